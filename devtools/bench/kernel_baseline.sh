#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# The kernel's baseline from ust-perf itself (issue 14): kernel TCP
# request-response over a veth pair between two namespaces, measured by
# the hand-written devtools/bench/kernel_tcp_rr.c and by ust-perf --stack
# kernel (--kernel-wait block, its default, and spin), interleaved run by
# run on the same cores, so that the tool's kernel figures can be read
# beside the old baseline's; and the kernel's UDP sink (ust-perf --stack
# kernel udp-flood into udp-sink, 64-byte datagrams) with the reader's
# cycles per datagram, the figure ustack's udp-sink reports for its own.
#   sudo BENCH_REPS=3 devtools/bench/kernel_baseline.sh
#   (BENCH_CONNS="1 200", BENCH_SIZE=40, BENCH_DURATION=5)
. "$(dirname "$0")/lib.sh"
bench_setup
DUR=${BENCH_DURATION:-5}
SIZE=${BENCH_SIZE:-40}
KRR=$OUT/kernel_tcp_rr
cc -O2 -Wall -o "$KRR" "$(dirname "$0")/kernel_tcp_rr.c"

veth_up() { veth_pair kb1-$$ kb2-$$ kv1 kv2 198.18.5; }
veth_down() { veth_pair_del kb1-$$ kb2-$$; }
trap veth_down EXIT

rr_krr() { # conns -> transactions/s
	ip netns exec kb2-$$ taskset -c 0 "$KRR" server 7777 "$SIZE" "$SIZE" \
		> /dev/null 2>&1 &
	local s=$!
	sleep 0.5
	ip netns exec kb1-$$ taskset -c 1 "$KRR" client 198.18.5.2 7777 "$1" \
		"$SIZE" "$SIZE" "$DUR" | awk '{print $1}'
	kill "$s" 2>/dev/null; wait "$s" 2>/dev/null || true
}

rr_perf() { # conns wait -> transactions/s
	ip netns exec kb2-$$ "$PERF" -l 0 -- --stack kernel --kernel-wait "$2" \
		--mode tcp-rr --role server --port 7777 --size "$SIZE" \
		--duration "$DUR" --warmup 1 --stats-period 0 \
		> "$OUT/srv.log" 2>&1 &
	local s=$!
	sleep 0.5
	ip netns exec kb1-$$ "$PERF" -l 1 -- --stack kernel --kernel-wait "$2" \
		--mode tcp-rr --role client --peer 198.18.5.2 --port 7777 \
		--conns "$1" --size "$SIZE" --duration "$DUR" --warmup 1 \
		--stats-period 0 --json "$OUT/cli.json" > "$OUT/cli.log" 2>&1
	wait "$s" 2>/dev/null || true
	jget "$OUT/cli.json" '"%.0f" % j["result"]["transactions_per_s"]'
}

sink_perf() { # -> "delivered/s cycles/datagram drops"
	ip netns exec kb2-$$ "$PERF" -l 0 -- --stack kernel --mode udp-sink \
		--port 5001 --duration "$DUR" --warmup 0.5 --stats-period 0 \
		--json "$OUT/sink.json" > "$OUT/sink.log" 2>&1 &
	local s=$!
	sleep 0.5
	ip netns exec kb1-$$ "$PERF" -l 1 -- --stack kernel --mode udp-flood \
		--peer 198.18.5.2 --dst-port 5001 --duration "$DUR" \
		--warmup 0.5 --stats-period 0 > "$OUT/flood.log" 2>&1
	wait "$s" 2>/dev/null || true
	jget "$OUT/sink.json" '"%.0f %.0f %d" % (j["result"]["delivered_per_active_s"], j["result"]["reader_cycles_per_datagram"], j["result"]["rcvbuf_drops"] + j["result"]["mem_drops"])'
}

declare -A R
veth_up
for rep in $(seq 1 "$REPS"); do
	for c in ${BENCH_CONNS:-1 200}; do
		R["krr $c $rep"]=$(rr_krr "$c")
		R["block $c $rep"]=$(rr_perf "$c" block)
		R["spin $c $rep"]=$(rr_perf "$c" spin)
		echo "rep $rep, $c conns: kernel_tcp_rr ${R["krr $c $rep"]}," \
			"ust-perf block ${R["block $c $rep"]}, spin ${R["spin $c $rep"]}"
	done
	R["sink $rep"]=$(sink_perf)
	echo "rep $rep, kernel udp-sink (delivered/s, cycles/datagram, drops): ${R["sink $rep"]}"
done
echo
echo "| kernel TCP RR ${SIZE} B over veth | connections | transactions/s (median) | / kernel_tcp_rr, run by run |"
echo "|---|---|---|---|"
for c in ${BENCH_CONNS:-1 200}; do
	for m in krr block spin; do
		v=(); r=()
		for rep in $(seq 1 "$REPS"); do
			v+=("${R["$m $c $rep"]}")
			r+=("$(awk -v a="${R["$m $c $rep"]}" -v b="${R["krr $c $rep"]}" \
				'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }')")
		done
		case $m in
		krr) what="kernel_tcp_rr.c";;
		block) what="ust-perf --stack kernel --kernel-wait block";;
		spin) what="ust-perf --stack kernel --kernel-wait spin";;
		esac
		echo "| $what | $c | $(median "${v[@]}") | ${r[*]} |"
	done
done
