#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# UDP over IPv6 against the kernel over TAP (issue 15), in 2001:2::/64
# (RFC 5180) and 198.18.0.0/24:
# - ust-echo's UDP server with --addr6 is one dual-stack socket on [::]:7:
#   kernel sockets of both families send datagrams of random sizes
#   1-65507 bytes, each echoed byte-exact (above 1452 bytes the kernel
#   fragments, ustack reassembles, and ustack fragments its echo), plus the
#   edges 1452/1453 and IPv6's largest, 65527;
# - the counters: Udp6 and Udp each count their family's datagrams,
#   Ip6 ReasmOKs and FragOKs the fragmented ones;
# - ust-echo's UDP client with --peer 2001:2::1 (AF_INET6 sockets,
#   connected; they wait for DAD) against a kernel IPv6 echo socket: every
#   transaction answered;
# - at exit: frames in == consumed + dropped, no mbuf leaked.
. "$(dirname "$0")/lib.sh"
require_root
ns_create

# kernel_v6 IFACE: the kernel's side gets a MAC of its own (net_tap gives
# it the port's, whose link-local address would be ours) and 2001:2::1
kernel_v6() {
	nsx ip link set "$1" down
	nsx ip link set "$1" address 02:00:5e:10:00:01
	nsx ip link set "$1" up
	nsx ip -6 addr add 2001:2::1/64 dev "$1" nodad
}

start_echo_tap echo ustu6 --addr 198.18.0.2/24 --addr6 2001:2::2/64 \
	--port 7 --json "$WORK/echo.json"
kernel_v6 ustu6
grep -q "serving UDP echo on port 7 (IPv4 and IPv6)" "$WORK/echo.log" ||
	fail "not a dual-stack server: $(cat "$WORK/echo.log")"
ok=0
for i in $(seq 1 40); do
	nsx ping -6 -c 1 -W 1 2001:2::2 >/dev/null 2>&1 && { ok=1; break; }
	sleep 0.1
done
[ "$ok" = 1 ] || fail "2001:2::2 never answered ping6"
chk="$(dirname "$0")/udp_echo_check.py"
# both families at once, on the one socket
nsx "$PY" "$chk" 2001:2::2 7 60 15 1 65507 > "$WORK/v6.out" 2>&1 &
p6=$!
nsx "$PY" "$chk" 198.18.0.2 7 40 16 1 65507 > "$WORK/v4.out" 2>&1 ||
	fail "IPv4 echo beside IPv6: $(cat "$WORK/v4.out")"
wait "$p6" || fail "IPv6 echo of random sizes 1-65507: $(cat "$WORK/v6.out")"
cat "$WORK/v6.out" "$WORK/v4.out"
for n in 1 1452 1453 65527; do
	nsx "$PY" "$chk" 2001:2::2 7 3 "$n" "$n" "$n" ||
		fail "IPv6 echo of $n bytes"
done
log "UDP echo 1-65507 bytes over IPv6 and IPv4 on one dual-stack socket, 65527 over IPv6: byte-exact"
stop "$ECHO_PID"
check_json_sane "$WORK/echo.json" || fail "server accounting"
"$PY" - "$WORK/echo.json" <<'PYEOF' || fail "counters"
import json, sys
j = json.load(open(sys.argv[1]))
c = j["counters"]
u6, u4, ip6 = c["Udp6"], c["Udp"], c["Ip6"]
bad = []
# 60 + 12 IPv6 datagrams, 40 IPv4 ones (retries may add a few)
if not 72 <= u6["InDatagrams"] <= 100:
    bad.append(f"Udp6 InDatagrams {u6['InDatagrams']}")
if u6["OutDatagrams"] != u6["InDatagrams"]:
    bad.append(f"Udp6 OutDatagrams {u6['OutDatagrams']} != InDatagrams")
if not 40 <= u4["InDatagrams"] <= 60:
    bad.append(f"Udp InDatagrams {u4['InDatagrams']}")
if u6["InErrors"] or u6["NoPorts"]:
    bad.append(f"Udp6 InErrors {u6['InErrors']} NoPorts {u6['NoPorts']}")
# most sizes are above 1452: fragmented both ways
if ip6["ReasmOKs"] < 50 or ip6["FragOKs"] < 50:
    bad.append(f"Ip6 ReasmOKs {ip6['ReasmOKs']} FragOKs {ip6['FragOKs']}")
if bad:
    sys.exit("\n".join(bad))
print("Udp6:", u6)
print("Ip6 ReasmOKs", ip6["ReasmOKs"], "FragOKs", ip6["FragOKs"])
PYEOF

# the client: ust-echo's AF_INET6 sockets against a kernel IPv6 echo on
# [::]:7777 (bound before 2001:2::1 exists: the TAP comes with the client)
nsx "$PY" -c '
import socket, sys
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.bind(("::", 7777, 0, 0))
print("ready", flush=True)
while True:
    d, a = s.recvfrom(65535)
    s.sendto(d, a)
' > "$WORK/kecho.log" 2>&1 &
PIDS+=("$!")
nsenter --net="/var/run/netns/$NS" "$ECHO_BIN" -l 0 --no-pci \
	$(eal_mem 256) --file-prefix "cli-$$" \
	--vdev "net_tap0,iface=ustu6c" -- --mode client \
	--addr 198.18.0.2/24 --addr6 2001:2::2/64 --peer 2001:2::1 \
	--port 7777 --flows 4 --size 3000 --duration 2 --warmup 0 \
	--json "$WORK/cli.json" > "$WORK/cli.log" 2>&1 &
cpid=$!
PIDS+=("$cpid")
wait_iface ustu6c
kernel_v6 ustu6c
grep -qs ready "$WORK/kecho.log" || sleep 0.5
rc=0
wait "$cpid" || rc=$?
[ "$rc" = 0 ] || { cat "$WORK/cli.log"; fail "client exit $rc"; }
grep -E "transactions" "$WORK/cli.log"
check_json_sane "$WORK/cli.json" || fail "client accounting"
n=$(json_get "$WORK/cli.json" 'j["result"]["transactions"]')
t=$(json_get "$WORK/cli.json" 'j["result"]["timeouts"] + j["result"]["late"] + j["result"]["send_errors"]')
o=$(json_get "$WORK/cli.json" 'j["counters"]["Udp6"]["OutDatagrams"]')
[ "$n" -gt 100 ] || fail "$n transactions over IPv6"
[ "$t" -le 4 ] || fail "$t timeouts, late or failed sends"
[ "$o" -ge "$n" ] || fail "Udp6 OutDatagrams $o < $n transactions"
log "udp-client over IPv6: $n transactions of 3000 bytes (fragmented), $t timeouts"
