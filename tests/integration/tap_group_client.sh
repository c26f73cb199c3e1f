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
# Then over IPv6 (2001:2::/64, RFC 5180) to a kernel server on [::]:8:
# CONNS6 (200) connections the same way, the replies that land on the
# other stack handed over by their port's slice.
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

# check_short NAME N: NAME's N short connections (64 bytes each) all
# complete, no error, both stacks opened some, and some replies were
# handed over; sets O0, O1 (ActiveOpens) and HO (HandoffOut)
check_short() {
	local name=$1 want=$2 n e bs br
	grep -E "^stack|transactions:|connections:|errors:" "$WORK/$name.log"
	check_json_sane "$WORK/$name.json" || fail "$name accounting (total)"
	check_stacks "$WORK/$name.json" || fail "$name accounting (per stack)"
	n=$(json_get "$WORK/$name.json" 'j["result"]["all"]')
	e=$(json_get "$WORK/$name.json" 'j["result"]["refused"] + j["result"]["resets"] + j["result"]["other_errors"] + j["result"]["conn_timeouts"] + j["result"]["late"]')
	bs=$(json_get "$WORK/$name.json" 'j["result"]["bytes_sent"]')
	br=$(json_get "$WORK/$name.json" 'j["result"]["bytes_received"]')
	[ "$n" = "$want" ] || fail "$name: $n transactions, expected $want"
	[ "$e" = 0 ] || fail "$name: $e connection errors or late bytes"
	[ "$bs" = "$br" ] && [ "$bs" = $((want * 64)) ] ||
		fail "$name: bytes sent $bs, received $br, expected $((want * 64))"
	O0=$(json_get "$WORK/$name.json" 'j["stacks"][0]["counters"]["Tcp"]["ActiveOpens"]')
	O1=$(json_get "$WORK/$name.json" 'j["stacks"][1]["counters"]["Tcp"]["ActiveOpens"]')
	[ "$O0" -gt 0 ] && [ "$O1" -gt 0 ] || fail "$name: ActiveOpens $O0 and $O1"
	HO=$(json_get "$WORK/$name.json" 'j["counters"]["Group"]["HandoffOut"]')
	[ "$HO" -gt 0 ] || fail "$name: no segment handed over (HandoffOut $HO)"
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
check_short short "$CONNS"
ho=$HO
log "$CONNS connections: ActiveOpens $O0 / $O1, HandoffOut $ho"

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

# ---- over IPv6: the same short connections to a kernel server on [::]:8
CONNS6=${CONNS6:-200}
nsenter --net="/var/run/netns/$NS" "$PY" "$peer" echo-server6 8 \
	> "$WORK/kecho6.log" 2>&1 &
PIDS+=("$!")
for i in $(seq 1 100); do
	grep -qs ready "$WORK/kecho6.log" && break
	sleep 0.05
done
nsx ip link del ustgc0 2>/dev/null || true
nsenter --net="/var/run/netns/$NS" "$ECHO_BIN" -l 0-1 --no-pci \
	$(eal_mem 256) --file-prefix "short6-$$" \
	--vdev "net_tap0,iface=ustgc0" -- --nb-cores 2 --mode client \
	--addr 198.18.0.2/24 --addr6 2001:2::2/64 --peer 2001:2::1 \
	--proto tcp --port 8 --flows 8 --reconnect 1 --count "$CONNS6" \
	--size 64 --duration 120 --warmup 0 \
	--json "$WORK/short6.json" > "$WORK/short6.log" 2>&1 &
pid=$!
PIDS+=("$pid")
wait_iface ustgc0
# the port up first (starting it sets the kernel side's MAC), then a MAC
# of the kernel's own (net_tap gives it the port's, whose link-local
# address would be ours) and 2001:2::1
for i in $(seq 1 100); do
	grep -qs "^port 0: " "$WORK/short6.log" && break
	sleep 0.05
done
nsx ip link set ustgc0 down
nsx ip link set ustgc0 address 02:00:5e:10:00:01
nsx ip addr add 198.18.0.1/24 dev ustgc0
nsx ip -6 addr add 2001:2::1/64 dev ustgc0 nodad
nsx ip link set ustgc0 up
rc=0
wait "$pid" || rc=$?
[ "$rc" = 0 ] || { cat "$WORK/short6.log"; fail "short connections over IPv6"; }
check_short short6 "$CONNS6"
log "$CONNS6 connections over IPv6 from both stacks: ActiveOpens $O0 / $O1," \
	"HandoffOut $HO"
