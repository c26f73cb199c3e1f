#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# Shared by the benchmark scripts: EAL memory flags, memif pairs of two
# processes, a veth pair between two namespaces, and a JSON field reader. Benchmarks print markdown tables;
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
	ust_install_deps
	ust_build
	ust_hugepages 1536
	echo "results in $OUT" >&2
}

# The wire's own round trip: two ust-perf --mode l2-pingpong processes over
# a net_memif pair (server on lcore 0, client on lcore 1), the stacks never
# polled; @inflight frames of @frame bytes (the frame of the RR it is the
# floor of: 106 for a 64-byte UDP or a 40-byte timestamped TCP payload).
l2_frame() { # TCP payload bytes -> frame bytes (timestamps on)
	echo $((14 + 20 + 32 + $1))
}
l2_floor() { # inflight frame -> "tps p50 p99"
	local sock="$OUT/l2.sock" tag="l2-$1-$2-$RANDOM"
	rm -f "$sock"
	"$PERF" -l 0 --no-pci $UST_EAL_MEM --file-prefix "s$tag" \
		--vdev "net_memif0,role=server,socket=$sock" -- \
		--mode l2-pingpong --role server --addr 198.18.1.2/24 \
		--duration 0 --stats-period 0 > "$OUT/$tag.server" 2>&1 &
	local srv=$!
	sleep 1
	"$PERF" -l 1 --no-pci $UST_EAL_MEM --file-prefix "c$tag" \
		--vdev "net_memif0,role=client,socket=$sock" -- \
		--mode l2-pingpong --role client --addr 198.18.1.1/24 \
		--inflight "$1" --size "$2" --duration "$DUR" --warmup 1 \
		--stats-period 0 --linger 1 --json "$OUT/$tag.json" \
		> "$OUT/$tag.client" 2>&1 || true
	kill -INT $srv 2>/dev/null || true
	wait $srv || true
	jget "$OUT/$tag.json" '"%.0f %.2f %.2f" % (j["result"]["transactions_per_s"], j["result"]["latency_ns"]["p50"] / 1e3, j["result"]["latency_ns"]["p99"] / 1e3)'
}

# The request-response runs against their floors, run by run: for each
# configuration, R["ust CFG REP"] and R["l2 CFG REP"] ("tps p50 p99", the
# caller's associative array R) as transactions/s ustack / l2-pingpong and
# the p50 the stacks add, with their medians over the REPS runs.
floor_ratios() { # CFG...
	local cfg rep u up r a
	for cfg in "$@"; do
		r=(); a=()
		for rep in $(seq 1 "$REPS"); do
			read -r u up _ <<< "${R["ust $cfg $rep"]}"
			set -- ${R["l2 $cfg $rep"]}
			r+=("$(awk -v u="$u" -v l="$1" 'BEGIN {printf "%.3f", u / l}')")
			a+=("$(awk -v u="$up" -v l="$2" 'BEGIN {printf "%.2f", u - l}')")
		done
		echo "- $cfg: ratios ${r[*]} (median $(median "${r[@]}")); p50 added (us) ${a[*]} (median $(median "${a[@]}"))"
	done
}

# A veth pair between two namespaces for the kernel's own runs: NS1's IF1
# is SUBNET.1/24, NS2's IF2 SUBNET.2/24 (SUBNET within 198.18.0.0/15);
# veth_pair_del removes both namespaces (and the pair with them).
veth_pair() { # NS1 NS2 IF1 IF2 SUBNET
	ip netns add "$1"; ip netns add "$2"
	ip link add "$3" netns "$1" type veth peer name "$4" netns "$2"
	ip -n "$1" addr add "$5.1/24" dev "$3"
	ip -n "$2" addr add "$5.2/24" dev "$4"
	ip -n "$1" link set "$3" up; ip -n "$2" link set "$4" up
	ip -n "$1" link set lo up; ip -n "$2" link set lo up
}
veth_pair_del() { # NS1 NS2
	ip netns del "$1" 2>/dev/null; ip netns del "$2" 2>/dev/null; true
}
