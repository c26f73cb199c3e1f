#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# ust-echo --pcap without hugepages (issue 14): no secondary process can
# attach there (the app says so at start), so the capture stage writes
# every frame of the port to a pcapng file itself; tcpdump reads back the
# ARP exchange, ICMP echoes and UDP datagrams both ways, the count the app
# reports matches the file, and the pools get every mbuf back.
. "$(dirname "$0")/lib.sh"
require_root
command -v tcpdump >/dev/null || fail "tcpdump is not installed"
ns_create
ECHO_EAL_EXTRA="--no-huge" start_echo_tap pcap ustq0 --addr 198.18.0.2/24 \
	--port 7 --pcap "$WORK/cap.pcapng" --json "$WORK/pcap.json"
grep -q "warning: no hugepages (--no-huge): no secondary process" "$WORK/pcap.log" ||
	fail "no warning without hugepages: $(cat "$WORK/pcap.log")"
out=$(nsx ping -c 3 -i 0.1 -W 1 198.18.0.2) || fail "ping: $out"
nsx "$PY" "$(dirname "$0")/udp_echo_check.py" 198.18.0.2 7 50 3 1 1472 ||
	fail "echo check"
stop "$ECHO_PID"
check_json_sane "$WORK/pcap.json" || fail "server accounting"
line=$(grep "^capture: " "$WORK/pcap.log") || fail "no capture line: $(cat "$WORK/pcap.log")"
[[ "$line" =~ ^capture:\ ([0-9]+)\ frames\ in,\ ([0-9]+)\ out\ written\ to\ .*\;\ 0\ missed.*\ 0\ bursts ]] ||
	fail "capture: $line"
nin=${BASH_REMATCH[1]} nout=${BASH_REMATCH[2]}
tcpdump -nn -r "$WORK/cap.pcapng" > "$WORK/cap.txt" 2>"$WORK/tcpdump.err" ||
	fail "tcpdump -r: $(cat "$WORK/tcpdump.err")"
[ "$(wc -l < "$WORK/cap.txt")" = $((nin + nout)) ] ||
	fail "$(wc -l < "$WORK/cap.txt") frames in the file, $nin + $nout reported"
expect_frame() { # WHAT REGEX [MIN]
	local n
	n=$(grep -Ec "$2" "$WORK/cap.txt" || true)
	[ "$n" -ge "${3:-1}" ] || fail "$n $1 in the capture (wanted ${3:-1}): $(head -30 "$WORK/cap.txt")"
}
expect_frame "ARP requests" "ARP, Request who-has 198\.18\.0\.2 tell 198\.18\.0\.1"
expect_frame "ARP replies" "ARP, Reply 198\.18\.0\.2 is-at"
expect_frame "ICMP echo requests" "198\.18\.0\.1 > 198\.18\.0\.2: ICMP echo request" 3
expect_frame "ICMP echo replies" "198\.18\.0\.2 > 198\.18\.0\.1: ICMP echo reply" 3
expect_frame "UDP datagrams in" "198\.18\.0\.1\.[0-9]+ > 198\.18\.0\.2\.7: UDP" 50
expect_frame "UDP echoes out" "198\.18\.0\.2\.7 > 198\.18\.0\.1\.[0-9]+: UDP" 50
log "the capture stage wrote $nin frames in and $nout out, all read back"
