#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# IPv6 against the kernel over TAP (2001:2::/48, RFC 5180): ust-echo's
# addresses pass duplicate address detection, the kernel resolves them by
# Neighbour Discovery and pings both (global and link-local), and ustack
# resolves the kernel: a source it has never heard of (INCOMPLETE, a
# multicast NS) and, after 5 s of use of an entry it learned from the
# kernel's NS (STALE -> DELAY -> PROBE), a unicast NS the kernel answers.
# Large echoes (fragmented both ways, up to 65000 bytes), and multicast
# echo to all-nodes, are answered too.
. "$(dirname "$0")/lib.sh"
require_root
ns_create
start_echo_tap echo ustp6 --addr 198.18.0.2/24 --addr6 2001:2::2/64 \
	--json "$WORK/echo.json"
# net_tap gives the kernel's interface the port's MAC: a link-local
# address formed from it would be ours (the kernel's DAD fails on our
# answer), so the kernel side gets a MAC of its own
nsx ip link set ustp6 down
nsx ip link set ustp6 address 02:00:5e:10:00:01
nsx ip link set ustp6 up
nsx ip -6 addr add 2001:2::1/64 dev ustp6 nodad
nsx tcpdump -i ustp6 -n -U -w "$WORK/nd.pcap" icmp6 >/dev/null 2>&1 &
PIDS+=($!)
sleep 0.5
# DAD takes retrans_ms (1 s) before the addresses answer
ok=0
for i in $(seq 1 40); do
	nsx ping -6 -c 1 -W 1 -I 2001:2::1 2001:2::2 >/dev/null 2>&1 && { ok=1; break; }
	sleep 0.1
done
[ "$ok" = 1 ] || fail "2001:2::2 never answered ping6: $(cat "$WORK/echo.log")"
# the kernel's entry for us, resolved by ND: its MAC gives our link-local
mac=$(nsx ip -6 neigh show 2001:2::2 dev ustp6 | awk '{print $3}')
case "$mac" in
??:??:??:??:??:??) ;;
*) fail "the kernel has no neighbour entry for 2001:2::2: $(nsx ip -6 neigh)" ;;
esac
ll=$("$PY" -c "
import sys, ipaddress
b = bytes(int(x, 16) for x in sys.argv[1].split(':'))
e = bytes([b[0] ^ 2]) + b[1:3] + b'\xff\xfe' + b[3:]
print(ipaddress.IPv6Address(b'\xfe\x80' + bytes(6) + e))" "$mac")
# fragmented both ways: the kernel cuts the request, ustack reassembles
# it and cuts the reply (65000 bytes: 45 pieces each way)
for size in 1453 8000 65000; do
	out=$(nsx ping -6 -c 3 -i 0.1 -W 2 -s $size -I 2001:2::1 2001:2::2) ||
		fail "ping6 -s $size: $out"
	echo "$out" | grep -qs " 0% packet loss" || fail "loss with $size bytes: $out"
done
# from an address ustack has not met, while the kernel's entry for us is
# fresh (no NS from it to teach ustack): ustack resolves it itself
nsx ip -6 addr add 2001:2::3/64 dev ustp6 nodad
out=$(nsx ping -6 -c 5 -i 0.05 -W 2 -I 2001:2::3 2001:2::2) || fail "ping6 from ::3: $out"
echo "$out" | grep -qs " 0% packet loss" || fail "loss from ::3: $out"
# 8 s of use of the entry for 2001:2::1 ustack learned STALE from the
# kernel's NS: DELAY, then a unicast probe after 5 s
out=$(nsx ping -6 -c 40 -i 0.2 -W 1 -I 2001:2::1 2001:2::2) || fail "ping6: $out"
echo "$out" | grep -qs " 0% packet loss" || fail "loss: $out"
out=$(nsx ping -6 -c 5 -i 0.05 -W 1 "$ll%ustp6") || fail "ping6 $ll: $out"
echo "$out" | grep -qs " 0% packet loss" || fail "link-local loss: $out"
out=$(nsx ping -6 -c 5 -i 0.05 -W 1 -s 1400 -I 2001:2::1 2001:2::2) || fail "ping6 -s 1400: $out"
echo "$out" | grep -qs " 0% packet loss" || fail "loss with 1400 bytes: $out"
# multicast echo: ustack answers from its link-local address
out=$(nsx ping -6 -c 3 -i 0.2 -W 1 "ff02::1%ustp6" 2>&1) || true
echo "$out" | grep -qs "from $ll" || fail "no answer to ff02::1 from $ll: $out"
# the neighbour cache as ust-stat shows it (telemetry /ustack/nd)
nd=$("$UST_BUILD/apps/ust-stat" -f "echo-$$" nd 2>&1) || fail "ust-stat nd: $nd"
echo "$nd" | grep -Eiq "^2001:2::1 +02:00:5e:10:00:01 +(REACHABLE|STALE|DELAY|PROBE)" ||
	fail "ust-stat nd lacks 2001:2::1: $nd"
echo "$nd" | grep -Eiq "^2001:2::3 +02:00:5e:10:00:01 " || fail "ust-stat nd lacks 2001:2::3: $nd"
sleep 0.5
kill "${PIDS[-1]}" 2>/dev/null || true
wait "${PIDS[-1]}" 2>/dev/null || true
stop "$ECHO_PID"
check_json_sane "$WORK/echo.json" || fail "server accounting"
c() { json_get "$WORK/echo.json" "j['counters']['$1']['$2']"; }
[ "$(c Icmp6 OutEchoReplies)" -ge 55 ] || fail "echo replies: $(c Icmp6 OutEchoReplies)"
[ "$(c Icmp6 InNeighborSolicits)" -ge 1 ] || fail "no NS received"
[ "$(c Icmp6 OutNeighborAdvertisements)" -ge 1 ] || fail "no NA sent"
[ "$(c Ndisc DadFailures)" = 0 ] || fail "DAD failed"
[ "$(c Icmp6 OutMLDv2Reports)" -ge 2 ] || fail "MLD reports: $(c Icmp6 OutMLDv2Reports)"
[ "$(c Ip6 ReasmOKs)" -ge 9 ] || fail "reassembled: $(c Ip6 ReasmOKs)"
[ "$(c Ip6 FragOKs)" -ge 9 ] || fail "fragmented: $(c Ip6 FragOKs)"
# what ustack sent, as the kernel saw it: a multicast NS for 2001:2::3,
# a unicast probe of 2001:2::1 (DAD ran before the kernel's side was up:
# test_ipv6 covers it)
ns=$(nsx tcpdump -r "$WORK/nd.pcap" -n -v 'icmp6 and ip6[40] == 135' 2>/dev/null)
echo "$ns" | grep -q "> ff02::1:ff00:3.*who has 2001:2::3" ||
	fail "no multicast NS for 2001:2::3: $ns"
echo "$ns" | grep -q "2001:2::2 > 2001:2::1.*who has 2001:2::1" ||
	fail "no unicast probe of 2001:2::1 (STALE -> DELAY -> PROBE): $ns"
log "ping6 global, link-local, 1400 bytes, fragmented up to 65000, multicast; ND both ways and the re-probe; no leak"
