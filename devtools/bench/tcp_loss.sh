#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# Loss recovery, side by side: a 64 MiB random stream echoed (sha256 checked
# both ways) between a kernel client and
#   ust-echo over TAP (the kernel's TCP sends, ustack's echoes), and
#   a kernel echo server over a veth pair (the kernel on both sides),
# with nftables dropping LOSS percent (5) of the frames both ways on the
# client's interface. BENCH_REPS runs of each, interleaved; medians of the
# wall time, and ustack's retransmissions and retransmission timeouts.
#   sudo devtools/bench/tcp_loss.sh       (LOSS=N, MIB=N, BENCH_REPS=N)
set -euo pipefail
export TEST=tcp_loss
. "$(dirname "$0")/../../tests/integration/lib.sh"
. "$(dirname "$0")/lib.sh"
bench_setup
LOSS=${LOSS:-5}
MIB=${MIB:-64}
PEER=$UST_SRC/tests/integration/tcp_peer.py
NS2=$NS-k

# the kernel's echo server in a second namespace, a veth pair between them
kernel_pair() {
	ip netns add "$NS2"
	ip link add ustl0 netns "$NS" type veth peer name ustl1 netns "$NS2"
	nsx ip addr add 198.18.2.1/24 dev ustl0
	nsx ip link set ustl0 up
	ip netns exec "$NS2" ip link set lo up
	ip netns exec "$NS2" ip addr add 198.18.2.2/24 dev ustl1
	ip netns exec "$NS2" ip link set ustl1 up
	ip netns exec "$NS2" "$PY" "$PEER" echo-server 7 &
	PIDS+=($!)
	sleep 0.5
}

# run_stream HOST: seconds the echo of the stream took
run_stream() {
	local t0 t1
	t0=$(date +%s.%N)
	nsx timeout 900 "$PY" "$PEER" stream "$1" 7 $((MIB << 20)) 2026 \
		> "$WORK/stream.log" 2>&1 || { cat "$WORK/stream.log"; fail "stream to $1"; }
	t1=$(date +%s.%N)
	echo "$t0 $t1" | awk '{printf "%.2f", $2 - $1}'
}

ns_create
trap 'cleanup; ip netns del "$NS2" 2>/dev/null || true' EXIT
kernel_pair
start_echo_tap srv ustt0 --addr 198.18.0.2/24 --proto tcp --port 7 \
	--json "$WORK/srv.json"
nft_loss ustt0 "$LOSS"
nft_loss ustl0 "$LOSS" ustloss2 # the same on the veth

ust=() kern=()
for r in $(seq 1 "$REPS"); do
	ust+=("$(run_stream 198.18.0.2)")
	kern+=("$(run_stream 198.18.2.2)")
	echo "rep $r: ustack ${ust[-1]} s, kernel ${kern[-1]} s" >&2
done
stop "$ECHO_PID"
rtx=$(json_get "$WORK/srv.json" 'j["counters"]["Tcp"]["RetransSegs"]')
rto=$(json_get "$WORK/srv.json" 'j["counters"]["TcpExt"].get("TCPTimeouts", 0)')
mu=$(median "${ust[@]}")
mk=$(median "${kern[@]}")
echo
echo "| ${MIB} MiB echo, ${LOSS}% loss both ways | seconds (median of $REPS) |"
echo "|---|---|"
echo "| kernel client, ust-echo over TAP | $mu |"
echo "| kernel client, kernel echo over veth | $mk |"
echo "| ratio ustack / kernel | $(echo "$mu $mk" | awk '{printf "%.2f", $1 / $2}') |"
echo
echo "ust-echo, all runs: RetransSegs $rtx, TCPTimeouts $rto"
