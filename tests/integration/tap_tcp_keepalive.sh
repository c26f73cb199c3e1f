#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A peer that went away and whose RST was lost (issue 9, item 7: one
# connection stayed in CurrEstab after every client closed; the cause was
# the kernel's TAP queue, which dropped frames, RSTs among them, in a burst
# of 1100 closes, and an RST is never sent again). The kernel client here
# closes with unread data, so it resets the connection; nftables drops
# that RST. ust-echo without keepalive keeps the connection established;
# with --keepalive 1 its probes find the peer gone (their RSTs dropped too:
# the probes go unanswered) and the connection is dropped
# (TCPAbortOnTimeout), the application told (a reset), nothing leaked.
. "$(dirname "$0")/lib.sh"
require_root
ns_create
nsx nft -f - <<NFT
table inet ustrst {
	chain out {
		type filter hook output priority 0; policy accept;
		ip daddr 198.18.0.2 tcp dport 7 tcp flags & rst == rst drop
	}
}
NFT
start_echo_tap echo ustq0 --addr 198.18.0.2/24 --proto tcp --port 7 \
	--keepalive 1 --stats-period 1 --json "$WORK/echo.json"
nsx "$PY" - <<'PYEOF' || fail "client"
import socket, time
s = socket.create_connection(("198.18.0.2", 7), timeout=5)
s.sendall(b"hi")
time.sleep(0.5)    # the echo waits unread: close() resets
s.close()
PYEOF
# established at first (the RST was dropped), then found by keepalive:
# idle 1 s, 3 probes 1 s apart
seen1=0
for _ in $(seq 1 40); do
	sleep 0.5
	last=$(grep "established" "$WORK/echo.log" | tail -1)
	case "$last" in
	*"established 1 "*) seen1=1 ;;
	*"established 0 "*) [ "$seen1" = 1 ] && break ;;
	esac
done
[ "$seen1" = 1 ] || fail "the connection was never seen established: $last"
case "$last" in
*"established 0 "*"") ;;
*) fail "the connection whose RST was lost stays established: $last" ;;
esac
case "$last" in
*"resets 1 "*) ;;
*) fail "the application was not told: $last" ;;
esac
stop "$ECHO_PID"
check_json_sane "$WORK/echo.json" || fail "server accounting"
probes=$(json_get "$WORK/echo.json" 'j["counters"]["TcpExt"].get("TCPKeepAlive", 0)')
aborts=$(json_get "$WORK/echo.json" 'j["counters"]["TcpExt"].get("TCPAbortOnTimeout", 0)')
[ "$probes" -ge 3 ] || fail "$probes keepalive probes, not 3"
[ "$aborts" = 1 ] || fail "TCPAbortOnTimeout $aborts, not 1"
log "the connection whose RST was lost was dropped after $probes probes"
