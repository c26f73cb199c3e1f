#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# ust-echo's TCP client on two lcores (-l 0-1 --nb-cores 2, two stacks on
# the two queue pairs of a net_tap port) against the kernel's echo server
# (tcp_peer.py) in the namespace. The kernel puts each connection's
# replies on a TAP queue of its own choosing (the socket's random txhash),
# so about half of them land on the stack that does not own the flow,
# which hands them to the owner. CONNS (400) connections over 8 flows
# (flow k on stack k % 2), one request-response each, all complete with
# as many bytes back as sent and no error; both stacks opened connections
# (ActiveOpens > 0 each); HandoffOut > 0 in total and HandoffOut ==
# HandoffIn. Then a MIB (16) MiB stream on stack 0 echoed byte-exact
# (sha256) with its replies handed over when they land on stack 1.
# Per stack: InFrames == rx_consumed + RX drops; no mbuf leak.
. "$(dirname "$0")/lib.sh"
require_root
MIB=${MIB:-16}
CONNS=${CONNS:-400}
ns_create
peer="$(dirname "$0")/tcp_peer.py"

# client2 NAME [ust-echo options...]: the 2-lcore client; waits for its
# end, exit status in CLIENT_RC
client2() {
	local name=$1
	shift
	nsenter --net="/var/run/netns/$NS" "$ECHO_BIN" -l 0-1 --no-pci \
		$(eal_mem 256) --file-prefix "$name-$$" \
		--vdev "net_tap0,iface=ustgc0" -- --nb-cores 2 --mode client \
		--addr 198.18.0.2/24 --peer 198.18.0.1 --proto tcp "$@" \
		--json "$WORK/$name.json" > "$WORK/$name.log" 2>&1 &
	local pid=$!
	PIDS+=("$pid")
	wait_iface ustgc0
	nsx ip addr add 198.18.0.1/24 dev ustgc0
	nsx ip link set ustgc0 up
	CLIENT_RC=0
	wait "$pid" || CLIENT_RC=$?
}


nsenter --net="/var/run/netns/$NS" "$PY" "$peer" echo-server 7 \
	> "$WORK/kecho.log" 2>&1 &
PIDS+=("$!")
for i in $(seq 1 100); do
	grep -qs ready "$WORK/kecho.log" && break
	sleep 0.05
done

client2 short --port 7 --flows 8 --reconnect 1 --count "$CONNS" --size 64 \
	--duration 120 --warmup 0
[ "$CLIENT_RC" = 0 ] || { cat "$WORK/short.log"; fail "short connections"; }
grep -E "^stack|transactions:|connections:|errors:" "$WORK/short.log"
check_json_sane "$WORK/short.json" || fail "client accounting (total)"
check_stacks "$WORK/short.json" || fail "client accounting (per stack)"
n=$(json_get "$WORK/short.json" 'j["result"]["all"]')
e=$(json_get "$WORK/short.json" 'j["result"]["refused"] + j["result"]["resets"] + j["result"]["other_errors"] + j["result"]["conn_timeouts"] + j["result"]["late"]')
bs=$(json_get "$WORK/short.json" 'j["result"]["bytes_sent"]')
br=$(json_get "$WORK/short.json" 'j["result"]["bytes_received"]')
[ "$n" = "$CONNS" ] || fail "$n transactions, expected $CONNS"
[ "$e" = 0 ] || fail "$e connection errors or late bytes"
[ "$bs" = "$br" ] && [ "$bs" = $((CONNS * 64)) ] ||
	fail "bytes sent $bs, received $br, expected $((CONNS * 64))"
o0=$(json_get "$WORK/short.json" 'j["stacks"][0]["counters"]["Tcp"]["ActiveOpens"]')
o1=$(json_get "$WORK/short.json" 'j["stacks"][1]["counters"]["Tcp"]["ActiveOpens"]')
[ "$o0" -gt 0 ] && [ "$o1" -gt 0 ] || fail "ActiveOpens $o0 and $o1"
ho=$(json_get "$WORK/short.json" 'j["counters"]["Group"]["HandoffOut"]')
[ "$ho" -gt 0 ] || fail "no segment handed over (HandoffOut $ho)"
log "$CONNS connections: ActiveOpens $o0 / $o1, HandoffOut $ho"

head -c $((MIB << 20)) /dev/urandom > "$WORK/in.bin"
client2 stream --port 7 --stream "$WORK/in.bin" --stream-out "$WORK/out.bin" \
	--duration 300
[ "$CLIENT_RC" = 0 ] || { cat "$WORK/stream.log"; fail "stream"; }
grep -E "^stack|stream" "$WORK/stream.log"
a=$(sha256sum < "$WORK/in.bin" | cut -d' ' -f1)
b=$(sha256sum < "$WORK/out.bin" | cut -d' ' -f1)
[ "$a" = "$b" ] || fail "sha256 of the echo $b differs from the stream's $a"
check_json_sane "$WORK/stream.json" || fail "stream accounting (total)"
check_stacks "$WORK/stream.json" || fail "stream accounting (per stack)"
hs=$(json_get "$WORK/stream.json" 'j["counters"]["Group"]["HandoffOut"]')
rm -f "$WORK/in.bin" "$WORK/out.bin"
log "$CONNS connections complete, no error, HandoffOut $ho; ${MIB} MiB" \
	"stream byte-exact (HandoffOut $hs); per-stack conservation; no leak"
