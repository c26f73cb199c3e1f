#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The kernel pings ust-echo over TAP: ARP resolution, then every echo
# request answered (and a large one, 1400 bytes of payload).
. "$(dirname "$0")/lib.sh"
require_root
ns_create
start_echo_tap echo ustp0 --addr 198.18.0.2/24 --json "$WORK/echo.json"
out=$(nsx ping -c 20 -i 0.05 -W 1 198.18.0.2) || fail "ping: $out"
echo "$out" | grep -qs " 0% packet loss" || fail "loss: $out"
out=$(nsx ping -c 5 -i 0.05 -W 1 -s 1400 198.18.0.2) || fail "ping -s 1400: $out"
echo "$out" | grep -qs " 0% packet loss" || fail "loss with 1400 bytes: $out"
stop "$ECHO_PID"
check_json_sane "$WORK/echo.json" || fail "server accounting"
[ "$(json_get "$WORK/echo.json" 'j["counters"]["Icmp"]["OutEchoReps"]')" -ge 25 ] ||
	fail "fewer than 25 echo replies counted"
[ "$(json_get "$WORK/echo.json" 'j["counters"]["Arp"]["OutReplies"]')" -ge 1 ] ||
	fail "no ARP reply counted"
log "25 echo requests answered, ARP resolved, no leak"
