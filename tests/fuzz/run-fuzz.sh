#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# Build the libFuzzer targets with clang (AddressSanitizer and UBSan) and
# run each for a fixed number of inputs from a seed corpus, seeded so that
# a run is reproducible. Meson runs this in the "fuzz" suite:
#   run-fuzz.sh TARGET RUNS
# To fuzz for real: build, then run $UST_BUILD/fuzz/TARGET CORPUS_DIR.
set -euo pipefail
target=$1
runs=${2:-100000}
src=${UST_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
out=${UST_BUILD:-$src/build}/fuzz
if ! command -v clang >/dev/null; then
	echo "SKIP: clang is not installed (the README's test command installs it)"
	exit 77
fi
mkdir -p "$out"
cflags="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined
	-fno-sanitize-recover=undefined -D_GNU_SOURCE -DALLOW_EXPERIMENTAL_API
	$(pkg-config --cflags libdpdk)"
inc="-I$src/lib/wire -I$src/lib/mem -I$src/lib/core -I$src/lib/ip
	-I$src/lib/udp -I$src/lib/tcp -I$src/lib/sock -I$src/lib/stack
	-I$src/lib/group -I$src/lib/config
	-I$src/drivers/port
	-I$src/tests/unit"
case $target in
fuzz_wire)
	srcs="$src/tests/fuzz/fuzz_wire.c $src/lib/wire/*.c"
	libs=""
	;;
fuzz_stack)
	# every library component but lib/env (the environment: EAL, ports
	# and stages, which a fuzzer's fake netif does without)
	srcs="$src/tests/fuzz/fuzz_stack.c $(ls "$src"/lib/*/*.c | grep -v /lib/env/)
		$src/lib/tcp/cc/*.c
		$src/drivers/port/*.c
		$src/tests/unit/ut_eal.c $src/tests/unit/ut_netif.c
		$src/tests/unit/ut.c"
	libs="$(pkg-config --libs libdpdk) -lnuma"
	;;
*)
	echo "unknown target $target" >&2
	exit 2
	;;
esac
# one object per source, compiled in parallel (named after its path: two
# files may share a name), then linked
obj="$out/obj-$target"
rm -rf "$obj"
mkdir -p "$obj"
export cflags inc obj
# shellcheck disable=SC2016,SC2086
printf '%s\n' $srcs | xargs -P "$(nproc)" -I{} sh -c \
	'clang $cflags $inc -c "$1" -o "$obj/$(echo "$1" | tr / _).o"' _ {}
# shellcheck disable=SC2086
clang $cflags "$obj"/*.o -o "$out/$target" $libs
corpus="$out/corpus-$target"
rm -rf "$corpus"
mkdir -p "$corpus"
/usr/bin/python3 "$src/tests/fuzz/seeds.py" "$target" "$corpus"
# inputs that once failed (tests/fuzz/regress/TARGET/, named after the
# bug): replayed first, with the seeds, on every run
if [ -d "$src/tests/fuzz/regress/$target" ]; then
	cp "$src/tests/fuzz/regress/$target"/* "$corpus"/
fi
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
cd "$out"
# (libFuzzer exits 77 on a crash by default: meson would call that a skip)
"./$target" -seed=1 -runs="$runs" -max_len=4096 -error_exitcode=1 \
	-timeout_exitcode=1 "$corpus" 2>&1 | tail -n 5
