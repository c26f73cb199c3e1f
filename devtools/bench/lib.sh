#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# Shared by the benchmark scripts: EAL memory flags, memif pairs of two
# processes, and a JSON field reader. Benchmarks print markdown tables;
# doc/performance.md records their output with the command that made it.

set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../common.sh"
ECHO=$UST_BUILD/apps/ust-echo
PERF=$UST_BUILD/apps/ust-perf
OUT=${BENCH_OUT:-$(mktemp -d /tmp/ust-bench.XXXXXX)}
REPS=${BENCH_REPS:-3}
mkdir -p "$OUT"

jget() { /usr/bin/python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"; }

# median of the numbers given as arguments
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

bench_setup() {
	ust_need_root
	ust_build
	ust_hugepages 1536
	echo "results in $OUT" >&2
}
