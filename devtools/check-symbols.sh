#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# The library's symbols, checked after every build (a custom target of the
# top meson.build, so a failure fails ninja) and as the unit test
# "symbols":
#  - every global symbol defined in libustack.a and exported by
#    libustack.so carries the ust_ prefix (an application or library with
#    its own tcp_output() must link beside ustack);
#  - every function of the library named by a public header is in the
#    version map gen-version-map.sh wrote (a prototype it cannot parse
#    would silently leave the function out of the ABI);
#  - every name in the version map is exported by the shared library.
#
#   check-symbols.sh STAMP libustack.a libustack.so version.map HEADER...
set -euo pipefail
stamp=$1 static=$2 shared=$3 map=$4
shift 4
rc=0
err() { echo "check-symbols: $*" >&2; rc=1; }

# (ASan's ODR indicators, one per global variable, name the variable)
bad=$(nm -g --defined-only "$static" | awk 'NF == 3 { print $3 }' |
	grep -v -e '^ust_' -e '^__odr_asan[._]ust_' | sort -u || true)
[ -z "$bad" ] || err "global symbols of $(basename "$static") without the ust_ prefix: $(echo $bad)"
bad=$(nm -D --defined-only "$shared" | awk 'NF == 3 && $2 != "A" { print $3 }' |
	sed 's/@.*//' | grep -v -e '^ust_' -e '^__odr_asan[._]ust_' |
	sort -u || true)
[ -z "$bad" ] || err "symbols exported by $(basename "$shared") without the ust_ prefix: $(echo $bad)"

exported=$(grep -oE '\bust_[a-z0-9_]+;' "$map" | tr -d ';' | sort -u || true)
funcs=$(nm -g --defined-only "$static" | awk '$2 == "T" { print $3 }' | sort -u)
# the names a public header calls as functions (a declaration may span
# lines: the headers are read whole)
declared=$(cat /dev/null "$@" | tr '\n' ' ' |
	{ grep -oE '\bust_[a-z0-9_]+[[:space:]]*\(' || true; } | tr -d '( \t' | sort -u)
missing=$(comm -12 <(echo "$funcs") <(echo "$declared") |
	comm -23 - <(echo "$exported") | grep . || true)
[ -z "$missing" ] || err "declared in a public header but not in $(basename "$map") (a prototype gen-version-map.sh cannot read?): $(echo $missing)"
dyn=$(nm -D --defined-only "$shared" | awk 'NF == 3 { print $3 }' | sed 's/@.*//' | sort -u)
stale=$(comm -23 <(echo "$exported") <(echo "$dyn") | grep . || true)
[ -z "$stale" ] || err "in $(basename "$map") but not exported: $(echo $stale)"

[ "$rc" = 0 ] || exit 1
echo "ok: $(echo "$exported" | wc -l) exported, no unprefixed global" > "$stamp"
