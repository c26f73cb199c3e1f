#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# ust-echo's TCP as client, the kernel's as server (a Python echo server),
# over TAP: 1000 short connections (one request-response each, closed in
# order), a 64 MiB stream echoed byte-exact (sha256 of the file sent and of
# what came back), ECONNREFUSED from a closed port, and ECONNRESET from a
# server that resets its connections. With LOSS=N (percent), that share of
# the frames is lost each way (nftables in the kernel's input, ust-echo's
# fault stage in front of its stack: lib.sh's nft_loss), and RetransSegs
# must be non-zero. TX_LAYOUT and COPY_SMALL set ust-echo's --tx-layout and
# --copy-small (the layout must then show in its tcp_tx counters); CONNS
# and MIB size the two parts (1000 connections, 64 MiB).
. "$(dirname "$0")/lib.sh"
require_root
LOSS=${LOSS:-0}
MIB=${MIB:-64}
CONNS=${CONNS:-1000}
ns_create
peer="$(dirname "$0")/tcp_peer.py"

# client_tap NAME [ust-echo options...]: ust-echo as a client on a TAP in
# the namespace (the kernel side gets 198.18.0.1/24); waits for its end.
# Its exit status is in CLIENT_RC.
client_tap() {
	local name=$1
	shift
	nsenter --net="/var/run/netns/$NS" "$ECHO_BIN" -l 0 --no-pci \
		$(eal_mem 256) --file-prefix "$name-$$" \
		--vdev "net_tap0,iface=ustc0" -- --mode client \
		--addr 198.18.0.2/24 --peer 198.18.0.1 --proto tcp "$@" \
		${TXL[@]+"${TXL[@]}"} ${LOSS_FAULT[@]+"${LOSS_FAULT[@]}"} \
		--json "$WORK/$name.json" > "$WORK/$name.log" 2>&1 &
	local pid=$!
	PIDS+=("$pid")
	wait_iface ustc0
	nsx ip addr add 198.18.0.1/24 dev ustc0
	nsx ip link set ustc0 up
	if [ "$LOSS" != 0 ]; then
		nft_loss ustc0 "$LOSS"
	fi
	CLIENT_RC=0
	wait "$pid" || CLIENT_RC=$?
	nsx nft delete table inet ustloss 2>/dev/null || true
}

# (nsenter execs the peer itself, so that the PID cleanup() signals is
# the peer's: ip netns exec forks, and its child outlived the test)
nsenter --net="/var/run/netns/$NS" "$PY" "$peer" echo-server 7 \
	> "$WORK/kecho.log" 2>&1 &
PIDS+=("$!")
nsenter --net="/var/run/netns/$NS" "$PY" "$peer" rst-server 8 \
	> "$WORK/krst.log" 2>&1 &
PIDS+=("$!")
for i in $(seq 1 100); do
	[ "$(grep -c ready "$WORK/kecho.log" "$WORK/krst.log" |
	     awk -F: '{s += $2} END {print s}')" = 2 ] && break
	sleep 0.05
done

# $CONNS connections, one transaction each, on 4 flows (20 under loss,
# where each loss costs a timeout of 0.2 to 1 s)
FLOWS=4
[ "$LOSS" = 0 ] || FLOWS=20
client_tap short --port 7 --flows "$FLOWS" --reconnect 1 --count "$CONNS" --size 64 \
	--duration 600 --warmup 0
[ "$CLIENT_RC" = 0 ] || { cat "$WORK/short.log"; fail "short connections"; }
grep -E "transactions:|connections:|errors:" "$WORK/short.log"
check_json_sane "$WORK/short.json" || fail "client accounting (short)"
n=$(json_get "$WORK/short.json" 'j["result"]["all"]')
c=$(json_get "$WORK/short.json" 'j["result"]["connects"]')
e=$(json_get "$WORK/short.json" 'j["result"]["refused"] + j["result"]["resets"] + j["result"]["other_errors"]')
[ "$n" = "$CONNS" ] || fail "$n transactions, expected $CONNS"
[ "$c" -ge "$CONNS" ] || fail "$c connections, expected $CONNS"
[ "$e" = 0 ] || fail "$e connection errors"
rtx=$(json_get "$WORK/short.json" 'j["counters"]["Tcp"]["RetransSegs"]')

# the stream
head -c $((MIB << 20)) /dev/urandom > "$WORK/in.bin"
client_tap stream --port 7 --stream "$WORK/in.bin" \
	--stream-out "$WORK/out.bin" --duration 900
[ "$CLIENT_RC" = 0 ] || { cat "$WORK/stream.log"; fail "stream"; }
grep -E "stream" "$WORK/stream.log"
a=$(sha256sum < "$WORK/in.bin" | cut -d' ' -f1)
b=$(sha256sum < "$WORK/out.bin" | cut -d' ' -f1)
[ "$a" = "$b" ] || fail "sha256 of the echo $b differs from the stream's $a"
log "${MIB} MiB echoed, sha256 $a on both sides"
check_json_sane "$WORK/stream.json" || fail "client accounting (stream)"
if [ -n "${TX_LAYOUT:-}" ]; then
	check_tcp_tx "$WORK/stream.json" "$TX_LAYOUT" ||
		fail "--tx-layout $TX_LAYOUT not in effect"
fi
rtx=$((rtx + $(json_get "$WORK/stream.json" 'j["counters"]["Tcp"]["RetransSegs"]')))
rm -f "$WORK/in.bin" "$WORK/out.bin"

if [ "$LOSS" = 0 ]; then
	# (an RST is never sent again: these run on the loss-free wire only)
	client_tap refused --port 9 --count 1 --duration 4 --warmup 0
	[ "$CLIENT_RC" = 1 ] || fail "closed port: exit status $CLIENT_RC"
	grep -q "Connection refused" "$WORK/refused.log" ||
		{ cat "$WORK/refused.log"; fail "closed port: no ECONNREFUSED"; }
	r=$(json_get "$WORK/refused.json" 'j["result"]["refused"]')
	[ "$r" -ge 1 ] || fail "closed port: refused $r"
	client_tap reset --port 8 --count 1 --duration 4 --warmup 0
	[ "$CLIENT_RC" = 1 ] || fail "reset: exit status $CLIENT_RC"
	grep -q "Connection reset by peer" "$WORK/reset.log" ||
		{ cat "$WORK/reset.log"; fail "reset: no ECONNRESET"; }
	check_json_sane "$WORK/reset.json" || fail "client accounting (reset)"
fi
if [ "$LOSS" != 0 ]; then
	[ "$rtx" -gt 0 ] || fail "no retransmission under ${LOSS}% loss"
fi
log "$CONNS connections + ${MIB} MiB stream byte-exact (+ refused, reset" \
	"without loss); loss ${LOSS}%, RetransSegs $rtx, no leak;" \
	"tx-layout ${TX_LAYOUT:-default}, copy-small ${COPY_SMALL:-default}"
