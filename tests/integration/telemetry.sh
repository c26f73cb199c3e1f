#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# dpdk-telemetry.py reads ustack's counters, drop reasons, UDP and TCP pools and
# per-socket accounting from a running ust-echo, and its group's totals;
# SIGUSR1 makes it print its counters and go on; its log types are
# ustack.<component>, and ustack.drop at debug names each drop.
. "$(dirname "$0")/lib.sh"
require_root
ns_create
prefix="tel-$$"
ECHO_EAL_EXTRA="--log-level=ustack.drop:debug" \
	start_echo_tap tel ustt0 --addr 198.18.0.2/24 --port 7
nsx "$PY" "$(dirname "$0")/udp_echo_check.py" 198.18.0.2 7 50 3 1 1000 >/dev/null ||
	fail "echo"
# the telemetry socket lives under the EAL file prefix of start_echo_tap
printf '%s\n' /ustack/stacks /ustack/snmp,ust0 /ustack/drops,ust0 \
	/ustack/udp_mem,ust0 /ustack/tcp_mem,ust0 /ustack/sockets,ust0 \
	/ustack/groups /ustack/snmp,ust /ustack/snmp,nosuch |
	"$PY" /usr/bin/dpdk-telemetry.py -f "tel-$$" > "$WORK/tel.out" 2>&1 ||
	fail "dpdk-telemetry.py: $(cat "$WORK/tel.out")"
"$PY" - "$WORK/tel.out" <<'PYEOF' || fail "telemetry replies"
import json, sys
replies, order = {}, []
for line in open(sys.argv[1]):
    line = line.strip()
    if line.startswith("{"):
        r = json.loads(line)
        order.append(r)
        for k, v in r.items():
            replies.setdefault(k, v)
# the last query names no instance: a null reply, not a crash
assert list(order[-1].values()) == [None], order[-1]
stacks = replies["/ustack/stacks"]
assert "ust0" in stacks, stacks
snmp = replies["/ustack/snmp"]
assert snmp["Udp"]["InDatagrams"] >= 50, snmp["Udp"]
assert snmp["Udp"]["OutDatagrams"] >= 50, snmp["Udp"]
assert snmp["Arp"]["OutReplies"] >= 1, snmp["Arp"]
drops = replies["/ustack/drops"]
assert drops["rx_consumed"] >= 50 and "NO_SOCKET" in drops, drops
mem = replies["/ustack/udp_mem"]
assert mem["schedule"] == "delta" and mem["release"] == "batched", mem
assert mem["charge_calls"] >= 1 and mem["limit_max"] > 0, mem
tmem = replies["/ustack/tcp_mem"]
assert tmem["limit_max"] > mem["limit_max"] and tmem["pages"] == 0, tmem
assert snmp["Tcp"]["CurrEstab"] == 0, snmp["Tcp"]
socks = replies["/ustack/sockets"]
s = [v for v in socks.values() if v["local_port"] == 7]
assert len(s) == 1 and s[0]["rcvbuf"] == 212992 and s[0]["enqueued"] >= 50, socks
# the group (lib/group) of the one stack: its name, its stack, and its
# counters as the sums over its stacks
groups = order[-3]["/ustack/groups"]
assert groups == {"ust": ["ust0"]}, groups
gsnmp = order[-2]["/ustack/snmp"]
assert gsnmp["Udp"]["InDatagrams"] >= snmp["Udp"]["InDatagrams"], gsnmp["Udp"]
assert gsnmp["Group"]["HandoffOut"] == 0, gsnmp["Group"]
print("telemetry:", json.dumps({"InDatagrams": snmp["Udp"]["InDatagrams"],
      "pool_pages": mem["pages"], "socket": s[0]}))
PYEOF

# SIGUSR1: the counters as at exit, and the run goes on
kill -USR1 "$ECHO_PID"
for i in $(seq 1 100); do
	grep -qs "^port 0 drops:" "$WORK/tel.log" && break
	sleep 0.05
done
kill -0 "$ECHO_PID" 2>/dev/null || fail "SIGUSR1 ended ust-echo: $(cat "$WORK/tel.log")"
grep -q "^ust-echo: counters at SIGUSR1:" "$WORK/tel.log" || fail "no SIGUSR1 header"
grep -q "^Udp: InDatagrams=[1-9]" "$WORK/tel.log" || fail "no counters at SIGUSR1"
grep -q "^port 0 drops: " "$WORK/tel.log" || fail "no port drops line"
# ustack.drop at debug: a datagram to a port nobody listens on is named
nsx "$PY" -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("198.18.0.2", 9))'
for i in $(seq 1 100); do
	grep -qs "^ustack.drop: ust0: NO_SOCKET (rx)" "$WORK/tel.log" && break
	sleep 0.05
done
grep -q "^ustack.drop: ust0: NO_SOCKET (rx)" "$WORK/tel.log" ||
	fail "no ustack.drop line: $(cat "$WORK/tel.log")"
stop "$ECHO_PID"
# one line per drop, no more: as many as the final drop counters say
# (the kernel's own IPv6 chatter on the TAP port is dropped too)
n=$(grep -c "^ustack.drop: " "$WORK/tel.log")
total=$(grep "^drops:" "$WORK/tel.log" | tail -1 | tr ' ' '\n' |
	awk -F= 'NF == 2 {t += $2} END {print t + 0}')
[ "$n" = "$total" ] || fail "$n ustack.drop lines for $total drops counted"
log "telemetry serves counters, drops, pool and sockets; SIGUSR1 prints counters; ustack.drop names drops"
