#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# ust-stat and the telemetry it reads (issue 14): with a kernel client's
# TCP connection held open to ust-echo (a request echoed, the connection
# idle), /ustack/tcp_conns shows it ESTABLISHED with its 4-tuple and
# sequence numbers that agree with what was sent, the listener with its
# backlog, /ustack/sockets lists both TCP sockets, /ustack/arp the
# kernel's address at its MAC; ust-stat prints the same as tables.
. "$(dirname "$0")/lib.sh"
require_root
STAT=$UST_BUILD/apps/ust-stat
ns_create
start_echo_tap stat usts0 --addr 198.18.0.2/24 --proto tcp --port 7 \
	--backlog 64
kmac=$(nsx cat /sys/class/net/usts0/address)
# the client: connects, has 100 bytes echoed, holds the connection until
# its stdin closes
coproc CLIENT { nsx "$PY" -u -c '
import socket, sys
s = socket.create_connection(("198.18.0.2", 7), timeout=5)
s.sendall(b"x" * 100)
got = b""
while len(got) < 100:
    got += s.recv(100)
print(s.getsockname()[1], flush=True)
sys.stdin.read()
s.close()
'; }
PIDS+=("$CLIENT_PID")
read -r -t 10 cport <&"${CLIENT[0]}" || fail "the client did not connect"
sleep 0.3
printf '%s\n' /ustack/tcp_conns,ust0 /ustack/sockets,ust0 /ustack/arp,ust0 \
	/ustack/tcp_conns,ust0,x /ustack/tcp_conns,nosuch |
	"$PY" /usr/bin/dpdk-telemetry.py -f "stat-$$" > "$WORK/tel.out" 2>&1 ||
	fail "dpdk-telemetry.py: $(cat "$WORK/tel.out")"
"$PY" - "$WORK/tel.out" "$cport" "$kmac" <<'PYEOF' || fail "telemetry replies: $(cat "$WORK/tel.out")"
import json, sys
order = [json.loads(l) for l in open(sys.argv[1]) if l.strip().startswith("{")]
cport, kmac = int(sys.argv[2]), sys.argv[3]
conns = order[0]["/ustack/tcp_conns"]
est = [c for c in conns.values() if c["state"] == "ESTABLISHED"]
lst = [c for c in conns.values() if c["state"] == "LISTEN"]
assert len(est) == 1 and len(lst) == 1, conns
e = est[0]
assert e["local"] == "198.18.0.2:7", e
assert e["remote"] == "198.18.0.1:%d" % cport, e
# 100 bytes each way, all acknowledged, nothing queued
assert e["snd_una"] == e["snd_nxt"] == e["snd_max"], e
assert e["snd_queued"] == 0 and e["rcv_queued"] == 0, e
assert e["mss"] == 1448 or e["mss"] == 1460, e
assert e["cwnd"] >= e["mss"] and e["srtt_us"] > 0 and e["rto_us"] >= 200000, e
assert e["retrans"] == 0 and e["rcv_wnd"] > 0 and e["snd_wnd"] > 0, e
l = lst[0]
assert l["local"] == "0.0.0.0:7" and l["backlog"] == 64, l
assert l["acceptq"] == 0 and l["synq"] == 0, l
socks = order[1]["/ustack/sockets"]
tcp = [s for s in socks.values() if s["proto"] == "tcp"]
assert len(tcp) == 2 and all(s["local_port"] == 7 for s in tcp), socks
assert sorted(s["state"] for s in tcp) == ["ESTABLISHED", "LISTEN"], socks
arp = order[2]["/ustack/arp"]
a = [x for x in arp.values() if x["ip"] == "198.18.0.1"]
assert len(a) == 1 and a[0]["mac"].lower() == kmac.lower(), arp
assert a[0]["state"] in ("REACHABLE", "STALE"), a
# a bad page or an unknown stack: a null reply, not a crash
assert list(order[3].values()) == [None], order[3]
assert list(order[4].values()) == [None], order[4]
PYEOF
"$STAT" -f "stat-$$" all > "$WORK/stat.out" 2>&1 || fail "ust-stat: $(cat "$WORK/stat.out")"
grep -Eq "^ESTABLISHED +[0-9]+ +0 +0 +198\.18\.0\.2:7 +198\.18\.0\.1:$cport *$" "$WORK/stat.out" ||
	fail "ust-stat conns: $(cat "$WORK/stat.out")"
grep -Eq "^LISTEN +[0-9]+ +0 +64 +0\.0\.0\.0:7 " "$WORK/stat.out" || fail "ust-stat listener"
grep -Eq "snd_una:[0-9]+ snd_nxt:[0-9]+" "$WORK/stat.out" || fail "ust-stat seq"
grep -Eiq "^198\.18\.0\.1 +$kmac +(REACHABLE|STALE) +0$" "$WORK/stat.out" || fail "ust-stat arp"
grep -Eq "^tcp +[0-9]+ +7 +ESTABLISHED " "$WORK/stat.out" || fail "ust-stat sockets"
grep -Eq "^Tcp: .*CurrEstab=1" "$WORK/stat.out" || fail "ust-stat counters"
grep -q "^group ust: ust0$" "$WORK/stat.out" || fail "ust-stat stacks"
"$STAT" -f "stat-$$" --json conns > "$WORK/stat.json" || fail "ust-stat --json"
"$PY" -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$WORK/stat.json" ||
	fail "ust-stat --json: $(cat "$WORK/stat.json")"
"$STAT" -f "stat-$$" --stack nosuch >/dev/null 2>&1 && fail "--stack nosuch accepted"
eval "exec ${CLIENT[1]}>&-"
wait "$CLIENT_PID" || true
stop "$ECHO_PID"
log "telemetry and ust-stat show the live connection ($cport), the listener, sockets and ARP"
