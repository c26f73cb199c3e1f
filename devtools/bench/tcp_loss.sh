#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# Loss recovery, side by side: a 64 MiB random stream echoed (sha256 checked
# both ways) between a kernel client and
#   ust-echo over TAP (the kernel's TCP sends, ustack's echoes), and
#   a kernel echo server over a veth pair (the kernel on both sides),
# with LOSS percent (5) of the segments lost each way, as on a lossy wire:
# every loss is a segment the sender handed over and the receiver never saw.
#  - Segments are dropped where they arrive: by nftables' input hook in the
#    namespace of the receiving kernel, by ust-echo's fault stage
#    (--fault drop=) in front of ustack. A drop in the sender's own output
#    hook would not be a loss: the sending kernel sees the error, keeps the
#    segment and sends it again later, without any loss recovery.
#  - The veth pair carries one segment per frame (TSO, GSO and GRO off on
#    both ends), as the TAP does: otherwise a dropped frame would be a 64 KB
#    GSO packet, one loss event for ~45 segments.
# BENCH_REPS runs of each, interleaved; medians of the wall time; each
# sender's loss-recovery counters (retransmissions, timeouts, probes,
# recoveries, lost retransmissions, D-SACKs) and each receiver's
# duplicate and zero-window reports, ustack's beside the kernel's.
# Both sides run the congestion control CC (cubic, or reno), whatever the
# host's default is (this one's is bbr, which ustack does not have).
# PCAP=FILE captures the TAP side into FILE and the veth into
# FILE-kernel.pcap (.pcap dropped from FILE first): the first 128 bytes of
# every frame either side sent, before the receiver's drop, for analysis.
#   sudo devtools/bench/tcp_loss.sh       (LOSS=N, MIB=N, BENCH_REPS=N, CC=, PCAP=)
set -euo pipefail
export TEST=tcp_loss
. "$(dirname "$0")/../../tests/integration/lib.sh"
. "$(dirname "$0")/lib.sh"
bench_setup
LOSS=${LOSS:-5}
MIB=${MIB:-64}
CC=${CC:-cubic}
PEER=$UST_SRC/tests/integration/tcp_peer.py
NS2=$NS-k

# the kernel's echo server in a second namespace, a veth pair between them
kernel_pair() {
	ip netns add "$NS2"
	ip link add ustl0 netns "$NS" type veth peer name ustl1 netns "$NS2"
	nsx ip addr add 198.18.2.1/24 dev ustl0
	nsx ip link set ustl0 up
	ip netns exec "$NS2" ip link set lo up
	# the congestion control ustack runs (a per-namespace setting)
	nsx sysctl -qw net.ipv4.tcp_congestion_control="$CC"
	ip netns exec "$NS2" sysctl -qw net.ipv4.tcp_congestion_control="$CC"
	ip netns exec "$NS2" ip addr add 198.18.2.2/24 dev ustl1
	ip netns exec "$NS2" ip link set ustl1 up
	nsx ethtool -K ustl0 tso off gso off gro off >/dev/null
	ip netns exec "$NS2" ethtool -K ustl1 tso off gso off gro off >/dev/null
	ip netns exec "$NS2" "$PY" "$PEER" echo-server 7 &
	PIDS+=($!)
	sleep 0.5
}

# The loss-recovery counters compared (Linux's names; ustack keeps those
# without a "-" in the table under the same names)
CTRS="TcpRetransSegs TcpExtTCPTimeouts TcpExtTCPLossProbes TcpExtTCPSackRecovery
TcpExtTCPLostRetransmit TcpExtTCPDSACKRecv TcpExtTCPSpuriousRTOs
TcpExtTCPDSACKOldSent TcpExtTCPToZeroWindowAdv"

# kctrs NS: the kernel's CTRS in namespace NS (absolute), one line
kctrs() {
	ip netns exec "$1" nstat -az | awk -v names="$CTRS" '
		BEGIN { n = split(names, k); for (i = 1; i <= n; i++) v[k[i]] = 0 }
		($1 in v) { v[$1] = $2 }
		END { for (i = 1; i <= n; i++) printf "%s ", v[k[i]]; print "" }'
}

# addto FILE BEFORE AFTER: add AFTER - BEFORE (lines of CTRS) into FILE
addto() {
	/usr/bin/python3 - "$1" "$2" "$3" <<'PY'
import os, sys
f, b, a = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
t = open(f).read().split() if os.path.exists(f) else [0] * len(b)
open(f, "w").write(" ".join(str(int(x) + int(z) - int(y)) for x, y, z in zip(t, b, a)) + "\n")
PY
}

# run_stream HOST CLIENT_FILE [SERVER_FILE]: seconds the echo of the stream
# took; the kernel client's counters during it are added into CLIENT_FILE,
# the kernel echo server's (the veth) into SERVER_FILE
run_stream() {
	local t0 t1 c0 s0
	c0=$(kctrs "$NS")
	s0=$(kctrs "$NS2")
	t0=$(date +%s.%N)
	nsx timeout 900 "$PY" "$PEER" stream "$1" 7 $((MIB << 20)) 2026 \
		> "$WORK/stream.log" 2>&1 || { cat "$WORK/stream.log"; fail "stream to $1"; }
	t1=$(date +%s.%N)
	addto "$2" "$c0" "$(kctrs "$NS")"
	[ -z "${3:-}" ] || addto "$3" "$s0" "$(kctrs "$NS2")"
	echo "$t0 $t1" | awk '{printf "%.2f", $2 - $1}'
}

# a namespace may only select a congestion control that the host allows:
# CC joins the allowed list for the run, which restores the old list
CC_ALLOWED=/proc/sys/net/ipv4/tcp_allowed_congestion_control
CC_OLD=$(cat "$CC_ALLOWED")
grep -qw "$CC" /proc/sys/net/ipv4/tcp_available_congestion_control ||
	modprobe "tcp_$CC" 2>/dev/null || true
grep -qw "$CC" /proc/sys/net/ipv4/tcp_available_congestion_control ||
	fail "the kernel has no $CC congestion control"
grep -qw "$CC" "$CC_ALLOWED" || echo "$CC_OLD $CC" > "$CC_ALLOWED"

ns_create
trap 'cleanup; ip netns del "$NS2" 2>/dev/null || true; echo "$CC_OLD" > "$CC_ALLOWED"' EXIT
kernel_pair
# ustack with the same congestion control (its name for reno: newreno)
case $CC in
cubic) UCC=cubic ;;
reno) UCC=newreno ;;
*) fail "CC=$CC: ustack has cubic and reno (newreno)" ;;
esac
printf '[tcp]\ncongestion = %s\n' "$UCC" > "$WORK/cc.ini"
start_echo_tap srv ustt0 --addr 198.18.0.2/24 --proto tcp --port 7 \
	--config "$WORK/cc.ini" --fault "drop=$LOSS%,seed=2026" \
	--json "$WORK/srv.json"
# the receiving side of each hop drops (lib.sh's nft_loss): the client's
# namespace on both of its interfaces, the echo server's on its veth end
nft_loss ustt0 "$LOSS"
nft_loss ustl0 "$LOSS" ustloss2
nft_loss ustl1 "$LOSS" ustloss "$NS2"

if [ -n "${PCAP:-}" ]; then
	nsx tcpdump -q -i ustt0 -s 128 -w "$PCAP" tcp 2>/dev/null &
	PIDS+=($!)
	nsx tcpdump -q -i ustl0 -s 128 -w "${PCAP%.pcap}-kernel.pcap" tcp \
		2>/dev/null &
	PIDS+=($!)
	sleep 1
fi
ust=() kern=()
for r in $(seq 1 "$REPS"); do
	ust+=("$(run_stream 198.18.0.2 "$WORK/c_ust")")
	kern+=("$(run_stream 198.18.2.2 "$WORK/c_kern" "$WORK/s_kern")")
	echo "rep $r: ustack ${ust[-1]} s, kernel ${kern[-1]} s" >&2
done
stop "$ECHO_PID"
# ust-echo's counters, in CTRS order ("-" where ustack keeps none)
/usr/bin/python3 - "$WORK/srv.json" "$CTRS" > "$WORK/s_ust" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["counters"]
out = []
for n in sys.argv[2].split():
    grp, name = ("TcpExt", n[6:]) if n.startswith("TcpExt") else ("Tcp", n[3:])
    v = c.get(grp, {}).get(name)
    out.append("-" if v is None else str(v))
print(" ".join(out))
PY
fdrop=$(sed -n 's/.*fault stage: \([0-9]*\) frames, dropped \([0-9]*\).*/\2 of \1/p' \
	"$WORK/srv.log" | head -1)
mu=$(median "${ust[@]}")
mk=$(median "${kern[@]}")
echo
echo "| ${MIB} MiB echo, ${LOSS}% loss each way, $CC | seconds (median of $REPS) |"
echo "|---|---|"
echo "| kernel client, ust-echo over TAP | $mu |"
echo "| kernel client, kernel echo over veth | $mk |"
echo "| ratio ustack / kernel | $(echo "$mu $mk" | awk '{printf "%.2f", $1 / $2}') |"
echo
echo "Each sender's counters, all $REPS runs (the receiver's for TCPDSACKOldSent"
echo "and TCPToZeroWindowAdv: what it sent about the other's data):"
echo "| counter | ust-echo | kernel client to ust-echo | kernel echo | kernel client to kernel echo |"
echo "|---|---|---|---|---|"
paste -d' ' <(echo "$CTRS" | tr -s ' \n' '\n' | grep .) \
	<(tr ' ' '\n' < "$WORK/s_ust" | grep .) \
	<(tr ' ' '\n' < "$WORK/c_ust" | grep .) \
	<(tr ' ' '\n' < "$WORK/s_kern" | grep .) \
	<(tr ' ' '\n' < "$WORK/c_kern" | grep .) |
	awk '{printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5}'
echo "(ust-echo's fault stage dropped $fdrop of the frames it received)"
