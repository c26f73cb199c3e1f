#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# The seeds' flood experiments (issue 3), each A/B side by side in one run,
# BENCH_REPS interleaved repetitions, medians:
#   1. 64-byte flood into one socket, split deployment: batched vs
#      unbatched release (seed 001): delivered/s, drops, reader cycles per
#      datagram. Sources: synthetic (producer and reader alone on the two
#      cores), net_memif from a ust-perf udp-flood process, net_tap from
#      iperf2 in the kernel.
#   2. the small-rcvbuf worry: rcvbuf 1280, 1024-byte datagrams (netperf
#      UDP_STREAM -s 1280 -m 1024): batched vs unbatched, and the datagrams
#      lost to the batching itself.
#   3. delta vs legacy scheduling (seed 000): pages charged per datagram,
#      forward_alloc high water, datagrams/s; default mbufs (truesize 2304)
#      and 9.6 KB mbufs (truesize 9856, more than two pages).
#   sudo devtools/bench/udp-mem.sh
. "$(dirname "$0")/lib.sh"
bench_setup
DUR=${BENCH_DURATION:-5}

# sink_synth NAME [udp-sink options]: split sink, synthetic source
sink_synth() {
	local name=$1
	shift
	"$PERF" -l 0,1 --no-pci $UST_EAL_MEM --file-prefix "b$name" \
		--vdev net_null0 -- --mode udp-sink --addr 198.18.1.2/24 \
		--source synthetic --duration "$DUR" --warmup 1 --stats-period 0 \
		--json "$OUT/$name.json" "$@" > "$OUT/$name.log" 2>&1
}

# sink_memif NAME "EAL LCORE ARGS" [udp-sink options]: a udp-flood process
# on lcore 0 feeds it
sink_memif() {
	local name=$1 lcores=$2 sock="$OUT/$1.sock"
	shift 2
	rm -f "$sock"
	"$PERF" $lcores --no-pci $UST_EAL_MEM --file-prefix "s$name" \
		--vdev "net_memif0,role=server,socket=$sock" -- --mode udp-sink \
		--addr 198.18.1.2/24 --duration 0 --warmup 0 --stats-period 0 \
		--json "$OUT/$name.json" "$@" > "$OUT/$name.log" 2>&1 &
	local sink=$!
	sleep 1
	"$PERF" -l 0 --no-pci $UST_EAL_MEM --file-prefix "f$name" \
		--vdev "net_memif0,role=client,socket=$sock" -- --mode udp-flood \
		--addr 198.18.1.1/24 --peer 198.18.1.2 --size 64 \
		--duration "$DUR" --warmup 1 --stats-period 0 --linger 2 \
		> "$OUT/$name.flood" 2>&1 &
	local flood=$!
	while kill -0 $flood 2>/dev/null &&
	      ! grep -qs "udp-flood, " "$OUT/$name.flood"; do
		sleep 0.1
	done
	sleep 0.3
	kill -TERM $sink; wait $sink || true; wait $flood || true
}

# sink_tap NAME LCORES [udp-sink options]: iperf2 in the kernel feeds it
sink_tap() {
	local name=$1 lcores=$2 ns=ubm-$$
	shift 2
	ip netns add $ns
	ip -n $ns link set lo up
	nsenter --net=/var/run/netns/$ns "$PERF" -l "$lcores" --no-pci \
		$UST_EAL_MEM --file-prefix "t$name" --vdev net_tap0,iface=ubm0 -- \
		--mode udp-sink --addr 198.18.0.2/24 --port 5001 --duration 0 \
		--warmup 0 --stats-period 0 --json "$OUT/$name.json" "$@" \
		> "$OUT/$name.log" 2>&1 &
	local sink=$!
	for i in $(seq 1 100); do
		ip -n $ns link show ubm0 >/dev/null 2>&1 && break
		sleep 0.05
	done
	ip -n $ns addr add 198.18.0.1/24 dev ubm0
	ip -n $ns link set ubm0 up
	ip netns exec $ns iperf -u -c 198.18.0.2 -p 5001 -b 10G -l 64 \
		-t "$DUR" > "$OUT/$name.iperf" 2>&1 || true
	kill -TERM $sink; wait $sink || true
	ip netns del $ns
}

r() { jget "$OUT/$1.json" "$2"; }
med() { # NAME-PREFIX python-expr -> median over reps
	local v=() rep
	for rep in $(seq 1 "$REPS"); do v+=("$(r "$1-$rep" "$2")"); done
	median "${v[@]}"
}
# rates over the traffic's own interval (udp-sink's active_seconds: from its
# first read with datagrams to its last), not the sink's lifetime: the memif
# and TAP sinks run before their source starts and after it stops
ASECS='(j["result"]["active_seconds"] or j["seconds"])'
DPS='"%.3f" % (j["result"]["delivered_per_active_s"] / 1e6 if j["result"]["active_seconds"] else j["result"]["delivered"] / j["seconds"] / 1e6)'
DROPS='"%.3f" % ((j["result"]["rcvbuf_drops"] + j["result"]["mem_drops"]) / '"$ASECS"' / 1e6)'
CYC='"%.1f" % j["result"]["reader_cycles_per_datagram"]'
DEF='j["result"]["deficit_drops"]'
PAGES='"%.4f" % j["result"]["pages_charged_per_datagram"]'
FHW='j["socket"]["forward_alloc_high_water"]'
PHW='j["udp_mem"]["high_water"]'

jumbo_cfg=$OUT/jumbo.ini
printf '[pool]\ndata_room = 9728\nmbufs = 16383\n' > "$jumbo_cfg"

for rep in $(seq 1 "$REPS"); do
	for rel in batched unbatched; do
		sink_synth "synth-$rel-$rep" --split --release "$rel"
		# split over memif needs three busy threads (flood, producer,
		# reader): on a two-core machine only with BENCH_OVERSUBSCRIBED=1
		[ "${BENCH_OVERSUBSCRIBED:-0}" = 1 ] &&
			sink_memif "memif-$rel-$rep" "-l 0,1 --main-lcore 1" \
				--split --release "$rel"
		sink_memif "memifrtc-$rel-$rep" "-l 1" --release "$rel"
		sink_tap "tap-$rel-$rep" 0,1 --split --release "$rel"
		sink_synth "small-$rel-$rep" --split --release "$rel" \
			--rcvbuf 1280 --size 1024
	done
	for sch in delta legacy; do
		sink_synth "sched-$sch-$rep" --split --schedule "$sch"
		sink_synth "schedj-$sch-$rep" --split --schedule "$sch" \
			--config "$jumbo_cfg" --size 1024
	done
done

echo
echo "### 1. 64-byte flood into one socket: batched vs unbatched release"
echo
echo "| source, deployment | release | delivered (M/s) | drops (M/s) | reader cycles/datagram | rcvbuf drops for want of a release |"
echo "|---|---|---|---|---|---|"
SOURCES="synth memifrtc tap"
[ "${BENCH_OVERSUBSCRIBED:-0}" = 1 ] && SOURCES="synth memif memifrtc tap"
for src in $SOURCES; do
	case $src in
	synth) what="synthetic, split";;
	memif) what="net_memif from udp-flood, split (3 threads, 2 cores)";;
	memifrtc) what="net_memif from udp-flood, run to completion";;
	tap) what="net_tap from iperf2, split (shares cores with the kernel)";;
	esac
	for rel in batched unbatched; do
		echo "| $what | $rel | $(med "$src-$rel" "$DPS") | $(med "$src-$rel" "$DROPS") | $(med "$src-$rel" "$CYC") | $(med "$src-$rel" "$DEF") |"
	done
done
echo
for src in $SOURCES; do
	b=$(med "$src-batched" "$DPS"); u=$(med "$src-unbatched" "$DPS")
	echo "- $src: batched/unbatched delivered = $(awk -v b="$b" -v u="$u" 'BEGIN { printf "%.2f", (u > 0 ? b / u : 0) }')"
done
echo
echo "### 2. rcvbuf 1280 (4608 in effect), 1024-byte datagrams, split, synthetic source"
echo
echo "| release | delivered (M/s) | drops (M/s) | reader cycles/datagram | lost to the batching itself |"
echo "|---|---|---|---|---|"
for rel in batched unbatched; do
	echo "| $rel | $(med "small-$rel" "$DPS") | $(med "small-$rel" "$DROPS") | $(med "small-$rel" "$CYC") | $(med "small-$rel" "$DEF") |"
done
echo
echo "### 3. delta vs legacy scheduling, split, synthetic source"
echo
echo "| mbuf truesize | schedule | delivered (M/s) | pages charged per datagram | forward_alloc high water (bytes) | pool high water (pages) |"
echo "|---|---|---|---|---|---|"
for t in sched schedj; do
	ts=2304; [ $t = schedj ] && ts=9856
	for sch in delta legacy; do
		echo "| $ts | $sch | $(med "$t-$sch" "$DPS") | $(med "$t-$sch" "$PAGES") | $(med "$t-$sch" "$FHW") | $(med "$t-$sch" "$PHW") |"
	done
done
