#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# TCP over IPv6 against the kernel over TAP (issue 15), in 2001:2::/64
# (RFC 5180) and 198.18.0.0/24: ust-echo's TCP server with --addr6 is one
# dual-stack listener on [::]:7.
# - the kernel's TCP over IPv6: short connections echoed byte-exact, and a
#   64 MiB random stream echoed with matching sha256 (MIB sizes it);
# - the kernel's TCP over IPv4 to the same listener: short connections;
# - over IPv6, a closed port answers with a reset (ECONNREFUSED);
# - with LOSS=N (percent), that share of the frames is lost each way
#   (nftables in the kernel's input, ust-echo's fault stage), and
#   RetransSegs must be non-zero;
# - the MSS ustack announced over IPv6 is IPv6's (MTU - 60), seen in the
#   kernel's ss -i for the stream's connection;
# - at exit: frames in == consumed + dropped, no mbuf leaked.
. "$(dirname "$0")/lib.sh"
require_root
LOSS=${LOSS:-0}
MIB=${MIB:-64}
CONNS=${CONNS:-200}
ns_create

start_echo_tap srv ustt6 --addr 198.18.0.2/24 --addr6 2001:2::2/64 \
	--proto tcp --port 7 --json "$WORK/srv.json" \
	${LOSS_FAULT[@]+"${LOSS_FAULT[@]}"}
# the kernel's side gets a MAC of its own (net_tap gives it the port's,
# whose link-local address would be ours) and 2001:2::1
nsx ip link set ustt6 down
nsx ip link set ustt6 address 02:00:5e:10:00:01
nsx ip link set ustt6 up
nsx ip -6 addr add 2001:2::1/64 dev ustt6 nodad
grep -q "serving TCP echo on port 7 (IPv4 and IPv6)" "$WORK/srv.log" ||
	fail "not a dual-stack server: $(cat "$WORK/srv.log")"
ok=0
for i in $(seq 1 50); do
	nsx ping -6 -c 1 -W 1 2001:2::2 >/dev/null 2>&1 && { ok=1; break; }
	sleep 0.1
done
[ "$ok" = 1 ] || fail "2001:2::2 never answered ping6"
PAR=1
if [ "$LOSS" != 0 ]; then
	nft_loss ustt6 "$LOSS"
	PAR=20
	log "loss ${LOSS}% each way: ${LOSS_FAULT[*]}"
fi
peer="$(dirname "$0")/tcp_peer.py"
nsx timeout 600 "$PY" "$peer" short 2001:2::2 7 "$CONNS" 1000 "$PAR" ||
	fail "$CONNS short connections over IPv6"
nsx timeout 600 "$PY" "$peer" short 198.18.0.2 7 50 1000 "$PAR" ||
	fail "50 short connections over IPv4 to the dual-stack listener"
nsx timeout 900 "$PY" "$peer" stream 2001:2::2 7 $((MIB << 20)) 2026 \
	> "$WORK/stream.log" 2>&1 &
SP=$!
# the MSS we announced, as the kernel saw it (while the stream runs), on
# an established connection only: in SYN-SENT (a SYN lost under LOSS) the
# kernel's mss is its IPv6 default clamp, 1220 less options, until our
# SYN-ACK's MSS option arrives
mss=""
for i in $(seq 1 200); do
	line=$(nsx ss -tin state established dst '[2001:2::2]' 2>/dev/null |
		grep -o ' mss:[0-9]*' | head -1 || true)
	[ -n "$line" ] && { mss=${line# mss:}; break; }
	sleep 0.05
done
wait "$SP" || fail "${MIB} MiB stream over IPv6: $(cat "$WORK/stream.log")"
cat "$WORK/stream.log"
# the kernel's send MSS to us: our announced 1440 (1500 - 40 - 20), less
# 12 with timestamps
[ -n "$mss" ] || fail "no IPv6 connection seen by ss"
[ "$mss" -le 1440 ] && [ "$mss" -ge 1428 ] ||
	fail "the kernel's MSS to us over IPv6 is $mss, not 1440 (less options)"
if [ "$LOSS" = 0 ]; then
	nsx timeout 30 "$PY" "$peer" refused 2001:2::2 9 ||
		fail "closed port over IPv6"
fi
stop "$ECHO_PID"
check_json_sane "$WORK/srv.json" || fail "server accounting"
acc=$(json_get "$WORK/srv.json" 'j["result"]["accepted"]')
[ "$acc" -ge $((CONNS + 51)) ] ||
	fail "server accepted $acc connections, expected $((CONNS + 51))"
rtx=$(json_get "$WORK/srv.json" 'j["counters"]["Tcp"]["RetransSegs"]')
if [ "$LOSS" != 0 ]; then
	[ "$rtx" -gt 0 ] || fail "no retransmission under ${LOSS}% loss"
fi
log "TCP over IPv6: $CONNS connections + ${MIB} MiB stream byte-exact," \
	"50 IPv4 connections on the same listener, MSS $mss; loss ${LOSS}%," \
	"RetransSegs $rtx, no leak"
