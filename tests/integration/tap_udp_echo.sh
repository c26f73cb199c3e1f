#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A kernel UDP client sends datagrams of random sizes 1-1472 bytes to
# ust-echo over TAP; each must come back byte-exact.
. "$(dirname "$0")/lib.sh"
require_root
ns_create
start_echo_tap echo uste0 --addr 198.18.0.2/24 --port 7 --json "$WORK/echo.json"
nsx "$PY" "$(dirname "$0")/udp_echo_check.py" 198.18.0.2 7 3000 2026 1 1472 ||
	fail "echo check"
# the smallest and largest sizes explicitly
nsx "$PY" "$(dirname "$0")/udp_echo_check.py" 198.18.0.2 7 20 1 1 1 || fail "1-byte datagrams"
nsx "$PY" "$(dirname "$0")/udp_echo_check.py" 198.18.0.2 7 20 2 1472 1472 || fail "1472-byte datagrams"
stop "$ECHO_PID"
check_json_sane "$WORK/echo.json" || fail "server accounting"
n=$(json_get "$WORK/echo.json" 'j["result"]["echoed"]')
[ "$n" -ge 3040 ] || fail "server echoed $n datagrams, expected >= 3040"
log "3040 datagrams echoed byte-exact, no leak"
