#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# ust-echo --idle-adaptive over TAP (issue 14): the UDP and TCP servers
# sleep when idle and wake for frames (the TAP port's RX event) and for
# their timers; every datagram and byte is echoed exactly as when they
# busy-poll, and the sleeps are counted (some ended by a frame). The CPU
# use while idle is printed, not asserted (tests never assert on time).
. "$(dirname "$0")/lib.sh"
require_root
ns_create
start_echo_tap idle usti0 --addr 198.18.0.2/24 --port 7 --idle-adaptive \
	--json "$WORK/idle.json"
grep -q "^ust-echo: idle: adaptive, the port has RX interrupts" "$WORK/idle.log" ||
	fail "no RX interrupts on net_tap: $(cat "$WORK/idle.log")"
sleep 1
t0=$(awk '{print $14 + $15}' "/proc/$ECHO_PID/stat")
sleep 2
t1=$(awk '{print $14 + $15}' "/proc/$ECHO_PID/stat")
# datagrams that find it asleep, one at a time, then a burst
nsx "$PY" "$(dirname "$0")/udp_echo_check.py" 198.18.0.2 7 300 7 1 1472 ||
	fail "echo check"
out=$(nsx ping -c 10 -i 0.05 -W 1 198.18.0.2) || fail "ping: $out"
stop "$ECHO_PID"
check_json_sane "$WORK/idle.json" || fail "server accounting"
n=$(json_get "$WORK/idle.json" 'j["result"]["echoed"]')
[ "$n" -ge 300 ] || fail "echoed $n of 300"
line=$(grep "^idle: " "$WORK/idle.log") || fail "no idle summary"
[[ "$line" =~ ^idle:\ ([0-9]+)\ sleeps,\ ([0-9]+)\ ended\ by\ a\ frame.*RX\ interrupts\ on\ 1\ of\ 1 ]] ||
	fail "idle summary: $line"
[ "${BASH_REMATCH[1]}" -gt 0 ] && [ "${BASH_REMATCH[2]}" -gt 0 ] ||
	fail "no sleep ended by a frame: $line"
# the TCP server: a connection's bytes echoed while it naps between them
start_echo_tap idlet usti1 --addr 198.18.0.2/24 --port 7 --proto tcp \
	--idle-adaptive
nsx "$PY" - <<'PYEOF' || fail "TCP echo"
import socket, time
s = socket.create_connection(("198.18.0.2", 7), timeout=5)
for i in range(20):
    msg = bytes([65 + i % 26]) * (100 * i + 1)
    s.sendall(msg)
    got = b""
    while len(got) < len(msg):
        got += s.recv(65536)
    assert got == msg, (i, len(got))
    time.sleep(0.02)
s.close()
PYEOF
stop "$ECHO_PID"
grep -Eq "^idle: [1-9][0-9]* sleeps, [1-9][0-9]* ended by a frame" "$WORK/idlet.log" ||
	fail "TCP server idle: $(grep "^idle" "$WORK/idlet.log")"
log "echoed asleep and awake ($line); idle CPU $((t1 - t0)) ticks in 2 s"
