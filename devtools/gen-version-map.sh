#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Write the linker version script of libustack: every function declared in
# the public headers given as arguments is exported, nothing else is.
# Internal functions shared between components keep the ust_ prefix but are
# not part of the ABI. devtools/check-symbols.sh checks the result after
# every build: a public function this grep misses fails the build.
set -eu
out=$1
shift
{
	echo "USTACK_0.1 {"
	echo "	global:"
	grep -hE '^[a-z_].*\bust_[a-z0-9_]+\(' "$@" | grep -v '^static' |
		grep -oE '\bust_[a-z0-9_]+\(' | tr -d '(' | sort -u |
		sed 's/^/		/; s/$/;/'
	echo "	local: *;"
	echo "};"
} > "$out"
