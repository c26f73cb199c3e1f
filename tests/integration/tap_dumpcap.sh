#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# dpdk-dumpcap captures from a running ust-echo (issue 14): the apps call
# rte_pdump_init(), so the capture tool attaches as a secondary process;
# ARP, ICMP and TCP frames both ways are in the pcapng file it writes,
# read back with tcpdump, and the server's pool gets back every mbuf.
# Secondary processes need hugepages: without them, the test checks that
# ust-echo warns so, and is skipped.
. "$(dirname "$0")/lib.sh"
require_root
command -v dpdk-dumpcap >/dev/null || fail "dpdk-dumpcap is not installed"
command -v tcpdump >/dev/null || fail "tcpdump is not installed"
ns_create
start_echo_tap cap ustc0 --addr 198.18.0.2/24 --proto tcp --port 7 \
	--json "$WORK/cap.json"
if [[ "$(eal_mem 256)" == *--no-huge* ]]; then
	grep -q "warning: no hugepages (--no-huge): no secondary process" \
		"$WORK/cap.log" || fail "no warning without hugepages"
	stop "$ECHO_PID"
	echo "SKIP: no hugepages here: no secondary process can attach"
	exit 77
fi
grep -q "warning" "$WORK/cap.log" && fail "a warning: $(cat "$WORK/cap.log")"
dpdk-dumpcap --file-prefix="cap-$$" -i 0 -w "$WORK/cap.pcapng" -q \
	> "$WORK/dumpcap.log" 2>&1 &
CAP_PID=$!
PIDS+=("$CAP_PID")
# dumpcap has attached once its output file exists (it writes the
# section header first)
for i in $(seq 1 100); do
	[ -s "$WORK/cap.pcapng" ] && break
	kill -0 "$CAP_PID" 2>/dev/null || fail "dumpcap: $(cat "$WORK/dumpcap.log")"
	sleep 0.1
done
[ -s "$WORK/cap.pcapng" ] || fail "dumpcap did not start: $(cat "$WORK/dumpcap.log")"
sleep 0.5
out=$(nsx ping -c 3 -i 0.1 -W 1 198.18.0.2) || fail "ping: $out"
nsx "$PY" - <<'PYEOF' || fail "TCP echo"
import socket
s = socket.create_connection(("198.18.0.2", 7), timeout=5)
msg = b"captured by dumpcap" * 10
s.sendall(msg)
got = b""
while len(got) < len(msg):
    d = s.recv(4096)
    if not d:
        break
    got += d
assert got == msg, got
s.close()
PYEOF
sleep 0.5
kill -INT "$CAP_PID"
wait "$CAP_PID" || true
stop "$ECHO_PID"
check_json_sane "$WORK/cap.json" || fail "server accounting"
tcpdump -nn -r "$WORK/cap.pcapng" > "$WORK/cap.txt" 2>"$WORK/tcpdump.err" ||
	fail "tcpdump -r: $(cat "$WORK/tcpdump.err")"
expect_frame() { # WHAT REGEX
	grep -Eq "$2" "$WORK/cap.txt" || fail "no $1 in the capture: $(cat "$WORK/cap.txt")"
}
expect_frame "ARP request" "ARP, Request who-has 198\.18\.0\.2 tell 198\.18\.0\.1"
expect_frame "ARP reply" "ARP, Reply 198\.18\.0\.2 is-at"
expect_frame "ICMP echo request" "198\.18\.0\.1 > 198\.18\.0\.2: ICMP echo request"
expect_frame "ICMP echo reply" "198\.18\.0\.2 > 198\.18\.0\.1: ICMP echo reply"
expect_frame "TCP SYN" "198\.18\.0\.1\.[0-9]+ > 198\.18\.0\.2\.7: Flags \[S\]"
expect_frame "TCP SYN-ACK" "198\.18\.0\.2\.7 > 198\.18\.0\.1\.[0-9]+: Flags \[S\.\]"
expect_frame "TCP data from ustack" "198\.18\.0\.2\.7 > 198\.18\.0\.1\.[0-9]+: Flags \[P?\.\], seq 1:191"
log "dumpcap captured ARP, ICMP and TCP both ways ($(wc -l < "$WORK/cap.txt") frames), no leak"
