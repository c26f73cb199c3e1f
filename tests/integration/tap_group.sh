#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# ust-echo on two lcores (-l 0-1 --nb-cores 2: two stacks on the two queue
# pairs of a net_tap port), the kernel as client; the kernel spreads its
# flows over the TAP's queues by its own hash. TCP echo: 200 connections
# open at once, each echoing 4 KiB byte-exact, then 4 parallel streams of
# MIB (64) MiB echoed byte-exact (sha256); both stacks accepted
# connections (PassiveOpens > 0 in each stack's JSON). UDP echo: 64
# connected kernel sockets (64 source ports) send datagrams that come back
# byte-exact (the last 128 of 1473-9472 bytes: IPv4 fragments, which the
# kernel's hash puts on one queue by their addresses: reassembled by that
# queue's stack, whose socket answers);
# the stacks' InDatagrams add up to what was sent, and both
# stacks received some (a connected kernel socket picks its TAP queue from
# its random sk_txhash: 64 sockets all on one queue has odds of 2^-63).
# IPv6: echoes from 16 kernel addresses answered by both stacks, which
# share what ND teaches (no resolution fails).
# Per stack: InFrames == rx_consumed + RX drops; no mbuf leak.
. "$(dirname "$0")/lib.sh"
require_root
MIB=${MIB:-64}
CONNS=${CONNS:-200}
ns_create

# start2 NAME IFACE [ust-echo options...]: start_echo_tap with 2 lcores
start2() {
	local name=$1 iface=$2 i
	shift 2
	nsenter --net="/var/run/netns/$NS" "$ECHO_BIN" -l 0-1 --no-pci \
		$(eal_mem 256) --file-prefix "$name-$$" \
		--vdev "net_tap0,iface=$iface" -- --nb-cores 2 "$@" \
		> "$WORK/$name.log" 2>&1 &
	ECHO_PID=$!
	PIDS+=("$ECHO_PID")
	wait_iface "$iface"
	nsx ip addr add 198.18.0.1/24 dev "$iface"
	nsx ip link set "$iface" up
	for i in $(seq 1 200); do
		grep -qs "serving" "$WORK/$name.log" && return 0
		kill -0 "$ECHO_PID" 2>/dev/null ||
			{ cat "$WORK/$name.log"; fail "$name died at start"; }
		sleep 0.05
	done
	cat "$WORK/$name.log"
	fail "$name did not start"
}


# ---- TCP ----
start2 tcp ustg0 --addr 198.18.0.2/24 --proto tcp --port 7 \
	--json "$WORK/tcp.json"
nsx timeout 120 "$PY" - 198.18.0.2 7 "$CONNS" <<'PYEOF' || fail "$CONNS concurrent connections"
import os, socket, sys
host, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
conns = []
for i in range(n):
    s = socket.create_connection((host, port), timeout=30)
    conns.append((s, os.urandom(4096)))
for s, data in conns:
    s.sendall(data)
for i, (s, data) in enumerate(conns):
    got = b""
    while len(got) < len(data):
        b = s.recv(65536)
        if not b:
            sys.exit(f"connection {i}: EOF after {len(got)} bytes")
        got += b
    if got != data:
        sys.exit(f"connection {i}: the echo differs")
for s, _ in conns:
    s.close()
print(f"{n} concurrent connections echoed 4096 bytes each byte-exact")
PYEOF
peer="$(dirname "$0")/tcp_peer.py"
spids=()
for k in 1 2 3 4; do
	nsx timeout 600 "$PY" "$peer" stream 198.18.0.2 7 $((MIB << 20)) \
		$((2026 + k)) > "$WORK/stream$k.log" 2>&1 &
	spids+=("$!")
done
k=0
for p in "${spids[@]}"; do
	k=$((k + 1))
	wait "$p" || { cat "$WORK/stream$k.log"; fail "stream $k"; }
	cat "$WORK/stream$k.log"
done
sleep 0.5
stop "$ECHO_PID"
grep "^stack" "$WORK/tcp.log"
check_json_sane "$WORK/tcp.json" || fail "TCP server accounting (total)"
check_stacks "$WORK/tcp.json" || fail "TCP server accounting (per stack)"
acc=$(json_get "$WORK/tcp.json" 'j["result"]["accepted"]')
[ "$acc" -ge $((CONNS + 4)) ] || fail "accepted $acc, expected $((CONNS + 4))"
p0=$(json_get "$WORK/tcp.json" 'j["stacks"][0]["counters"]["Tcp"]["PassiveOpens"]')
p1=$(json_get "$WORK/tcp.json" 'j["stacks"][1]["counters"]["Tcp"]["PassiveOpens"]')
[ "$p0" -gt 0 ] && [ "$p1" -gt 0 ] ||
	fail "connections not spread: PassiveOpens $p0 and $p1"
a0=$(json_get "$WORK/tcp.json" 'j["stacks"][0]["result"]["accepted"]')
a1=$(json_get "$WORK/tcp.json" 'j["stacks"][1]["result"]["accepted"]')
[ $((a0 + a1)) = "$acc" ] || fail "accepted $a0 + $a1 != total $acc"
log "TCP: $CONNS concurrent connections + 4 x ${MIB} MiB byte-exact;" \
	"PassiveOpens $p0 / $p1 on the two stacks"

# ---- UDP ----
start2 udp ustg1 --addr 198.18.0.2/24 --port 7 --json "$WORK/udp.json"
nsx timeout 120 "$PY" - 198.18.0.2 7 <<'PYEOF' || fail "UDP echo"
import os, socket, sys
host, port = sys.argv[1], int(sys.argv[2])
socks = []
for i in range(64):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(2)
    s.connect((host, port))
    socks.append(s)
sent = 0
for rnd in range(10):
    for i, s in enumerate(socks):
        # the last two rounds above the MTU: fragments, which the
        # kernel sends on the socket's queue, so each stack reassembles
        # whole datagrams
        n = 1 + (rnd * 64 + i) % 1400 if rnd < 8 else 1473 + (i * 97) % 8000
        data = os.urandom(n)
        for attempt in range(5):
            s.send(data)
            sent += 1
            try:
                got = s.recv(65535)
            except socket.timeout:
                continue
            if got != data:
                sys.exit(f"socket {i}: the echo differs")
            break
        else:
            sys.exit(f"socket {i}: no echo after 5 tries")
print(f"UDP: 640 datagrams from 64 source ports echoed byte-exact "
      f"({sent} sent)")
PYEOF
stop "$ECHO_PID"
grep "^stack" "$WORK/udp.log"
check_json_sane "$WORK/udp.json" || fail "UDP server accounting (total)"
check_stacks "$WORK/udp.json" || fail "UDP server accounting (per stack)"
d0=$(json_get "$WORK/udp.json" 'j["stacks"][0]["counters"]["Udp"]["InDatagrams"]')
d1=$(json_get "$WORK/udp.json" 'j["stacks"][1]["counters"]["Udp"]["InDatagrams"]')
[ $((d0 + d1)) -ge 640 ] || fail "InDatagrams $d0 + $d1 < 640"
[ "$d0" -gt 0 ] && [ "$d1" -gt 0 ] ||
	fail "datagrams not spread: InDatagrams $d0 and $d1"
r0=$(json_get "$WORK/udp.json" 'j["stacks"][0]["counters"]["Ip"]["ReasmOKs"]')
r1=$(json_get "$WORK/udp.json" 'j["stacks"][1]["counters"]["Ip"]["ReasmOKs"]')
# (a fragment's queue comes from the kernel's hash of its addresses alone:
# every fragment of every datagram on one queue, so one stack takes them)
[ $((r0 + r1)) -ge 128 ] || fail "fragmented datagrams: ReasmOKs $r0 and $r1"
log "UDP: 64 source ports echoed byte-exact; InDatagrams $d0 / $d1;" \
	"fragmented ones reassembled $r0 / $r1; per-stack frame" \
	"conservation; no leak"

# ---- IPv6 ----
# 16 kernel source addresses, hashed by the kernel over the two queues:
# each stack answers the echoes it receives, and resolves the kernel's
# address itself; a neighbour advertisement answering one stack's
# solicitation may arrive on the other's queue, and the NS, NA and RA a
# stack receives are copied to its sibling (as ARP's are), so no
# resolution fails
start2 ip6 ustg2 --addr 198.18.0.2/24 --addr6 2001:2::2/64 --port 7 \
	--json "$WORK/ip6.json"
# (the kernel's side needs a MAC of its own: tap_ping6.sh says why)
nsx ip link set ustg2 down
nsx ip link set ustg2 address 02:00:5e:10:00:01
nsx ip link set ustg2 up
for i in $(seq 16 31); do
	nsx ip -6 addr add "2001:2::$i/64" dev ustg2 nodad
done
ok=0
for _ in $(seq 1 40); do
	nsx ping -6 -c 1 -W 1 -I 2001:2::16 2001:2::2 >/dev/null 2>&1 && { ok=1; break; }
	sleep 0.1
done
[ "$ok" = 1 ] || fail "2001:2::2 never answered ping6"
for i in $(seq 16 31); do
	out=$(nsx ping -6 -c 3 -i 0.1 -W 2 -I "2001:2::$i" 2001:2::2) ||
		fail "ping6 from 2001:2::$i: $out"
	echo "$out" | grep -qs " 0% packet loss" || fail "loss from 2001:2::$i: $out"
done
stop "$ECHO_PID"
check_json_sane "$WORK/ip6.json" || fail "IPv6 accounting (total)"
check_stacks "$WORK/ip6.json" || fail "IPv6 accounting (per stack)"
e0=$(json_get "$WORK/ip6.json" 'j["stacks"][0]["counters"]["Icmp6"]["InEchos"]')
e1=$(json_get "$WORK/ip6.json" 'j["stacks"][1]["counters"]["Icmp6"]["InEchos"]')
f=$(json_get "$WORK/ip6.json" 'sum(s["counters"]["Ndisc"]["ResFailed"] for s in j["stacks"])')
c=$(json_get "$WORK/ip6.json" 'sum(s["counters"]["Group"]["ArpCopies"] for s in j["stacks"])')
[ "$e0" -gt 0 ] && [ "$e1" -gt 0 ] || fail "echoes not spread: InEchos $e0 and $e1"
[ "$f" = 0 ] || fail "$f neighbour resolutions failed"
[ "$c" -gt 0 ] || fail "no ND frame copied to the sibling"
log "IPv6: 16 sources, 48 echoes answered by both stacks ($e0 / $e1);" \
	"ND frames copied to the sibling $c; no resolution failed"
