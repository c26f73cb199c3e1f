#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# An iperf2 flood of 64-byte datagrams (-b 10G -l 64) at ust-echo over TAP:
# the server survives, echo still works afterwards, no mbuf leaks, and every
# frame is consumed or dropped with one reason.
. "$(dirname "$0")/lib.sh"
require_root
command -v iperf >/dev/null || fail "iperf (iperf2) is not installed"
ns_create
start_echo_tap echo ustf0 --addr 198.18.0.2/24 --port 5001 --json "$WORK/echo.json"
nsx timeout 20 iperf -u -c 198.18.0.2 -p 5001 -b 10G -l 64 -t 3 \
	> "$WORK/iperf.log" 2>&1 || true
grep -E "datagrams|Sent" "$WORK/iperf.log" | head -3 || true
kill -0 "$ECHO_PID" || fail "ust-echo died under the flood"
nsx "$PY" "$(dirname "$0")/udp_echo_check.py" 198.18.0.2 5001 200 7 1 1472 ||
	fail "echo after the flood"
stop "$ECHO_PID"
check_json_sane "$WORK/echo.json" || fail "server accounting"
n=$(json_get "$WORK/echo.json" 'j["counters"]["Udp"]["InDatagrams"]')
[ "$n" -ge 10000 ] || fail "only $n datagrams received: no flood?"
log "flood of $n datagrams survived; echo works; no leak"
