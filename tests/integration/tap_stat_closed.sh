#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# /ustack/tcp_conns and ust-stat list the TCP connections no descriptor
# holds, as ss does (issue 14):
# 1. ust-echo as a TCP client against a kernel server, one connection at a
#    time, each closed by ustack after one transaction (--reconnect 1):
#    the server closes all but the first when ustack's FIN arrives, so
#    ustack holds N-1 TIME_WAIT entries and one orphan in FIN_WAIT_2 (the
#    first, whose peer never closes). All are listed, without "sd", with
#    their 4-tuples and timers, over several pages of telemetry.
# 2. ust-echo as a TCP server that never accepts (--hold): two kernel
#    clients wait ESTABLISHED in the accept queue ("held"), and a third,
#    whose ACK of the SYN-ACK nftables drops, is half-open (SYN_RECEIVED)
#    with its SYN-ACK timer running.
# 3. as 1 over IPv6 (2001:2::/64, RFC 5180), the entries in the IPv6
#    connection table: N6 TIME_WAIT entries with their [addr]:port ends.
. "$(dirname "$0")/lib.sh"
require_root
STAT=$UST_BUILD/apps/ust-stat
N=41
ns_create

# ---- 1. orphans and TIME_WAIT of an active closer
coproc SRV { nsx "$PY" -u -c '
import socket, sys
n = int(sys.argv[1])
ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("0.0.0.0", 7000))
ls.listen(64)
print("listening", flush=True)
held = []
for i in range(n):
    c, _ = ls.accept()
    while True:
        b = c.recv(65536)
        if not b:
            break
        c.sendall(b)
    if i == 0:
        held.append(c)      # never closed: the peer stays in FIN_WAIT_2
    else:
        c.close()           # the peer goes to TIME_WAIT
ls.close()                  # later SYNs are reset
print("done", flush=True)
sys.stdin.read()
' "$N"; }
PIDS+=("$SRV_PID")
read -r -t 10 line <&"${SRV[0]}" && [ "$line" = listening ] ||
	fail "the kernel server did not start"
start_echo_tap closed usts0 --addr 198.18.0.2/24 --mode client --proto tcp \
	--peer 198.18.0.1 --port 7000 --size 64 --flows 1 --reconnect 1 \
	--duration 120 --warmup 0 --timeout 100 --stats-period 1
read -r -t 60 line <&"${SRV[0]}" && [ "$line" = done ] ||
	fail "the server did not see $N connections: $(cat "$WORK/closed.log")"
sleep 0.5
"$STAT" -f "closed-$$" --json conns > "$WORK/conns.json" 2>&1 ||
	fail "ust-stat --json: $(cat "$WORK/conns.json")"
# the first page, and the page its "next" points to, as sent
printf '%s\n' /ustack/tcp_conns,ust0 | "$PY" /usr/bin/dpdk-telemetry.py \
	-f "closed-$$" > "$WORK/page1.out" 2>&1 || fail "dpdk-telemetry.py"
next=$("$PY" -c '
import json, sys
for l in open(sys.argv[1]):
    if l.strip().startswith("{"):
        print(json.loads(l)["/ustack/tcp_conns"]["next"])
' "$WORK/page1.out") || fail "no next in the first page: $(cat "$WORK/page1.out")"
printf '%s\n' "/ustack/tcp_conns,ust0,$next" | "$PY" /usr/bin/dpdk-telemetry.py \
	-f "closed-$$" > "$WORK/page2.out" 2>&1 || fail "dpdk-telemetry.py"
"$PY" - "$WORK/conns.json" "$WORK/page1.out" "$WORK/page2.out" "$N" <<'PYEOF' ||
import json, sys

def page(f):
    for l in open(f):
        if l.strip().startswith("{"):
            return json.loads(l)["/ustack/tcp_conns"]

conns = json.loads(open(sys.argv[1]).readline())["tcp_conns"]
n = int(sys.argv[4])
free = {k: c for k, c in conns.items() if "sd" not in c}
tw = [c for c in free.values() if c["state"] == "TIME_WAIT"]
fw2 = [c for c in free.values() if c["state"] == "FIN_WAIT_2"]
assert len(tw) == n - 1, (len(tw), conns)
assert len(fw2) == 1, conns
assert len(free) == n, conns
for c in tw + fw2:
    assert c["local"].startswith("198.18.0.2:"), c
    assert c["remote"] == "198.18.0.1:7000", c
# distinct 4-tuples: every connection its own local port
assert len({c["local"] for c in tw + fw2}) == n, conns
for c in tw:
    # 2 MSL (60 s) running; everything sent acknowledged
    assert 0 < c["timer_ms"] <= 60000, c
    assert c["snd_una"] == c["snd_nxt"] and c["rcv_nxt"] != 0, c
f = fw2[0]
# our FIN acknowledged, the FIN_WAIT_2 timer (60 s) running
assert f["snd_una"] == f["snd_nxt"] and 0 < f["timer_ms"] <= 60000, f
# every descriptor key below every other key
held = [int(k) for k, c in conns.items() if "sd" in c]
assert all(h < int(k) for h in held for k in free), conns
# paging: 16 entries and "next"; the next page continues without overlap
p1, p2 = page(sys.argv[2]), page(sys.argv[3])
nxt = p1.pop("next")
assert len(p1) == 16, p1
p2.pop("next", None)
assert p2 and not set(p1) & set(p2), (p1, p2)
assert all(int(k) >= nxt for k in p2), (nxt, p2)
assert all(k in conns for k in list(p1) + list(p2)), (p1, p2)
PYEOF
	fail "the closed connections: $(head -c 3000 "$WORK/conns.json")"
"$STAT" -f "closed-$$" conns > "$WORK/conns.out" 2>&1 ||
	fail "ust-stat: $(cat "$WORK/conns.out")"
ntw=$(grep -Ec '^TIME_WAIT +- +0 +0 +198\.18\.0\.2:[0-9]+ +198\.18\.0\.1:7000 *$' "$WORK/conns.out" || true)
[ "$ntw" = $((N - 1)) ] || fail "ust-stat shows $ntw TIME_WAIT: $(cat "$WORK/conns.out")"
grep -Eq '^FIN_WAIT_2 +- +0 +0 +198\.18\.0\.2:[0-9]+ +198\.18\.0\.1:7000 *$' "$WORK/conns.out" ||
	fail "ust-stat shows no FIN_WAIT_2 orphan: $(cat "$WORK/conns.out")"
grep -Eq 'snd_nxt:[0-9]+ rcv_nxt:[0-9]+ timer:[0-9.]+$' "$WORK/conns.out" ||
	fail "ust-stat: no TIME_WAIT detail line"
stop "$ECHO_PID"
eval "exec ${SRV[1]}>&-"
wait "$SRV_PID" || true
log "$((N - 1)) TIME_WAIT entries and one FIN_WAIT_2 orphan listed, paged"

# ---- 2. the accept queue and a half-open connection
start_echo_tap held usts1 --addr 198.18.0.2/24 --proto tcp --port 7 --hold \
	--backlog 8
# the third client's ACK of the SYN-ACK (and anything after) is dropped
nsx nft -f - <<'NFT'
table inet ustheld {
	chain out {
		type filter hook output priority 0; policy accept;
		tcp sport 40003 tcp flags != syn drop
	}
}
NFT
coproc CLI { nsx "$PY" -u -c '
import socket, sys
cs = []
for i in range(2):
    cs.append(socket.create_connection(("198.18.0.2", 7), timeout=5))
h = socket.socket()
h.bind(("198.18.0.1", 40003))
h.setblocking(False)
try:
    h.connect(("198.18.0.2", 7))
except BlockingIOError:
    pass
print(" ".join(str(c.getsockname()[1]) for c in cs), flush=True)
sys.stdin.read()
'; }
PIDS+=("$CLI_PID")
read -r -t 10 ports <&"${CLI[0]}" || fail "the clients did not connect"
sleep 0.5
"$STAT" -f "held-$$" --json conns > "$WORK/held.json" 2>&1 ||
	fail "ust-stat --json: $(cat "$WORK/held.json")"
"$PY" - "$WORK/held.json" "$ports" <<'PYEOF' || fail "the held connections: $(cat "$WORK/held.json")"
import json, sys
conns = json.loads(open(sys.argv[1]).readline())["tcp_conns"]
ports = sorted(int(p) for p in sys.argv[2].split())
lst = [c for c in conns.values() if c["state"] == "LISTEN"]
assert len(lst) == 1 and "sd" in lst[0], conns
assert lst[0]["acceptq"] == 2 and lst[0]["synq"] == 1, lst
est = [c for c in conns.values() if c["state"] == "ESTABLISHED"]
assert sorted(int(c["remote"].split(":")[1]) for c in est) == ports, conns
assert all(c.get("held") == "accept queue" and "sd" not in c for c in est), est
assert all(c["local"] == "198.18.0.2:7" for c in est), est
syn = [c for c in conns.values() if c["state"] == "SYN_RECEIVED"]
assert len(syn) == 1 and "sd" not in syn[0], conns
s = syn[0]
assert s["remote"] == "198.18.0.1:40003" and s["local"] == "198.18.0.2:7", s
assert s["snd_nxt"] == (s["snd_una"] + 1) % 2**32 and s["timer_ms"] > 0, s
PYEOF
"$STAT" -f "held-$$" conns > "$WORK/held.out" 2>&1 || fail "ust-stat"
[ "$(grep -Ec '^ESTABLISHED +- .*\(accept queue\)$' "$WORK/held.out")" = 2 ] ||
	fail "ust-stat: the accept queue: $(cat "$WORK/held.out")"
grep -Eq '^SYN_RECEIVED +- +0 +0 +198\.18\.0\.2:7 +198\.18\.0\.1:40003 *$' "$WORK/held.out" ||
	fail "ust-stat: the half-open connection: $(cat "$WORK/held.out")"
eval "exec ${CLI[1]}>&-"
wait "$CLI_PID" || true
stop "$ECHO_PID"
log "two connections in the accept queue and one half-open listed"

# ---- 3. over IPv6: TIME_WAIT entries in the IPv6 connection table
N6=5
coproc SRV6 { nsx "$PY" -u -c '
import socket, sys
n = int(sys.argv[1])
ls = socket.socket(socket.AF_INET6)
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("::", 7000))
ls.listen(64)
print("listening", flush=True)
for i in range(n):
    c, _ = ls.accept()
    while True:
        b = c.recv(65536)
        if not b:
            break
        c.sendall(b)
    c.close()               # after ustack: the peer goes to TIME_WAIT
ls.close()
print("done", flush=True)
sys.stdin.read()
' "$N6"; }
PIDS+=("$SRV6_PID")
read -r -t 10 line <&"${SRV6[0]}" && [ "$line" = listening ] ||
	fail "the kernel IPv6 server did not start"
start_echo_tap tw6 usts2 --addr 198.18.0.2/24 --addr6 2001:2::2/64 \
	--mode client --proto tcp --peer 2001:2::1 --port 7000 --size 64 \
	--flows 1 --reconnect 1 --duration 120 --warmup 0 \
	--timeout 100 --stats-period 1
# the kernel's side: a MAC of its own (net_tap gives it the port's, whose
# link-local address would be ours) and 2001:2::1
nsx ip link set usts2 down
nsx ip link set usts2 address 02:00:5e:10:00:01
nsx ip link set usts2 up
nsx ip -6 addr add 2001:2::1/64 dev usts2 nodad
read -r -t 60 line <&"${SRV6[0]}" && [ "$line" = done ] ||
	fail "the IPv6 server did not see $N6 connections: $(cat "$WORK/tw6.log")"
sleep 0.5
"$STAT" -f "tw6-$$" --json conns > "$WORK/tw6.json" 2>&1 ||
	fail "ust-stat --json: $(cat "$WORK/tw6.json")"
"$PY" - "$WORK/tw6.json" "$N6" <<'PYEOF' || fail "the IPv6 TIME_WAIT entries: $(head -c 3000 "$WORK/tw6.json")"
import json, sys
conns = json.loads(open(sys.argv[1]).readline())["tcp_conns"]
n = int(sys.argv[2])
tw = [c for c in conns.values() if c["state"] == "TIME_WAIT"]
assert len(tw) == n, (len(tw), conns)
for c in tw:
    assert "sd" not in c, c
    assert c["local"].startswith("[2001:2::2]:"), c
    assert c["remote"] == "[2001:2::1]:7000", c
    assert 0 < c["timer_ms"] <= 60000, c
assert len({c["local"] for c in tw}) == n, conns
PYEOF
"$STAT" -f "tw6-$$" conns > "$WORK/tw6.out" 2>&1 || fail "ust-stat: $(cat "$WORK/tw6.out")"
ntw=$(grep -Ec '^TIME_WAIT +- +0 +0 +\[2001:2::2\]:[0-9]+ +\[2001:2::1\]:7000 *$' "$WORK/tw6.out" || true)
[ "$ntw" = "$N6" ] || fail "ust-stat shows $ntw IPv6 TIME_WAIT: $(cat "$WORK/tw6.out")"
stop "$ECHO_PID"
eval "exec ${SRV6[1]}>&-"
wait "$SRV6_PID" || true
log "$N6 IPv6 TIME_WAIT entries listed"
