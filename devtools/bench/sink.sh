#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# The UDP sink against testpmd's own receive rate (issue 13): one
# dpdk-testpmd in txonly mode (64-byte UDP frames to 198.18.1.2:9, the
# sink's MAC) feeds, over a net_memif pair, either
#   - dpdk-testpmd in rxonly mode (receive and free: the ceiling), or
#   - ust-perf --mode udp-sink (run to completion on one lcore: validation,
#     the socket's memory accounting, the reader's receive and free),
# BENCH_REPS times each, interleaved so that both see the same placement of
# the two vCPUs. The sender is on lcore 0 and the receiver on lcore 1 in
# both. Rates: testpmd's Rx-pps of its full 1-s periods (their median), the
# sink's datagrams over its active interval; the sender's Tx-pps beside
# them says whether the receiver or the sender set the pace (memif pushes
# back: a receiver that keeps up leaves nothing dropped and the sender's
# rate is the pair's).
#   sudo devtools/bench/sink.sh
. "$(dirname "$0")/lib.sh"
bench_setup
DUR=${BENCH_DURATION:-5}

# txonly SOCK TAG: testpmd's sender, DUR full 1-s periods after it connects
# (it takes about 2 s to start; forwarding lcore 0)
txonly() {
	timeout $((DUR + 4)) dpdk-testpmd -l 0,1 --main-lcore 1 --no-pci \
		$UST_EAL_MEM --file-prefix "t$2" \
		--vdev "net_memif0,role=client,socket=$1" -- \
		--forward-mode=txonly --txpkts=64 \
		--eth-peer=0,02:00:00:00:00:02 --tx-ip=198.18.1.1,198.18.1.2 \
		--tx-udp=9,9 --stats-period 1 --total-num-mbufs=16384 \
		> "$OUT/$2.tx" 2>&1 || true
}

# pps_of LOG FIELD: median of the non-zero per-period rates, the first and
# the last period left out (partial)
pps_of() {
	local v
	v=$(grep "$2" "$1" | awk '{print $2}' | awk '$1 > 0' | sed '1d;$d')
	[ -n "$v" ] || { echo 0; return; }
	# shellcheck disable=SC2086
	median $v
}

tp_rx() { # -> "rx_Mpps tx_Mpps"
	local tag="tprx$RANDOM" sock
	sock="$OUT/$tag.sock"
	rm -f "$sock"
	timeout $((DUR + 10)) dpdk-testpmd -l 0,1 --main-lcore 0 --no-pci \
		$UST_EAL_MEM --file-prefix "r$tag" \
		--vdev "net_memif0,role=server,socket=$sock,mac=02:00:00:00:00:02" \
		-- --forward-mode=rxonly --stats-period 1 \
		--total-num-mbufs=16384 > "$OUT/$tag.rx" 2>&1 &
	local rx=$!
	sleep 2
	txonly "$sock" "$tag"
	sleep 0.5
	kill -INT $rx 2>/dev/null || true
	wait $rx 2>/dev/null || true
	echo "$(pps_of "$OUT/$tag.rx" Rx-pps) $(pps_of "$OUT/$tag.tx" Tx-pps)" |
		awk '{printf "%.3f %.3f\n", $1 / 1e6, $2 / 1e6}'
}

ust_rx() { # -> "delivered_Mpps tx_Mpps drops"
	local tag="usrx$RANDOM" sock
	sock="$OUT/$tag.sock"
	rm -f "$sock"
	"$PERF" -l 1 --no-pci $UST_EAL_MEM --file-prefix "r$tag" \
		--vdev "net_memif0,role=server,socket=$sock,mac=02:00:00:00:00:02" \
		-- --mode udp-sink --addr 198.18.1.2/24 --port 9 --duration 0 \
		--warmup 0 --stats-period 0 --json "$OUT/$tag.json" \
		> "$OUT/$tag.log" 2>&1 &
	local rx=$! i
	for i in $(seq 1 100); do
		grep -qs "udp-sink on port" "$OUT/$tag.log" && break
		kill -0 $rx 2>/dev/null || break
		sleep 0.1
	done
	txonly "$sock" "$tag"
	sleep 0.5
	kill -TERM $rx 2>/dev/null || true
	wait $rx || true
	# the text summary rather than the JSON: it is written before exit
	local rate drops
	rate=$(awk '/^while datagrams came:/ {printf "%.3f", $4}' "$OUT/$tag.log")
	drops=$(awk '/^frames in/ {for (i = 1; i < NF; i++) if ($i == "rcvbuf" || $i == "mem") d += $(i + 1)} END {print d + 0}' "$OUT/$tag.log")
	echo "${rate:-0} $(pps_of "$OUT/$tag.tx" Tx-pps | awk '{printf "%.3f", $1 / 1e6}') $drops"
}

declare -a TP TPTX US USTX RATIO
for rep in $(seq 1 "$REPS"); do
	read -r a b <<< "$(tp_rx)"
	read -r c d e <<< "$(ust_rx)"
	TP+=("$a"); TPTX+=("$b"); US+=("$c"); USTX+=("$d")
	RATIO+=("$(awk -v u="$c" -v t="$a" 'BEGIN {printf "%.3f", (t > 0) ? u / t : 0}')")
	echo "run $rep: testpmd rxonly $a Mpps (sender $b), ust-perf udp-sink $c Mpps (sender $d, socket drops $e)" >&2
done

echo "| receiver (fed by testpmd txonly, 64 B, over net_memif) | received (Mpps) | sender (Mpps) |"
echo "|---|---|---|"
echo "| dpdk-testpmd rxonly | $(median "${TP[@]}") | $(median "${TPTX[@]}") |"
echo "| ust-perf udp-sink, run to completion | $(median "${US[@]}") | $(median "${USTX[@]}") |"
echo
echo "udp-sink / testpmd rxonly, run by run: ${RATIO[*]}; median $(median "${RATIO[@]}")"
