#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# An ICMP echo and SYN flood from 4000 spoofed on-link sources that never
# answer ARP (198.18.0.64 to 198.18.15.223; the stack is 198.18.0.2/20) at
# ust-echo's TCP server over TAP, as fast as one AF_PACKET socket writes
# (issue 9, item 2): the mbufs in use (sampled through telemetry, /ustack/pool) stay under the
# bound the neighbour cache and the TX path document, a TCP echo session
# opened before the flood is served throughout, ping answers within 1 s of
# the flood's end, and at exit the pool has every mbuf back and every frame
# is consumed or dropped with one reason. FLOOD_S sets the flood's length
# (6 s).
. "$(dirname "$0")/lib.sh"
require_root
FLOOD_S=${FLOOD_S:-6}
IF=ustfl0
ns_create
start_echo_tap flood "$IF" --addr 198.18.0.2/20 --proto tcp --port 7 \
	--json "$WORK/echo.json"
nsx ping -c 1 -W 2 198.18.0.2 >/dev/null || fail "no ping before the flood"
mac=$(nsx ip neigh show 198.18.0.2 dev "$IF" | awk '{print $3; exit}')
[ -n "$mac" ] || fail "no MAC for 198.18.0.2"
peer="$(dirname "$0")/neigh_flood.py"
"$PY" "$peer" sample "flood-$$" ust0 0.05 "$WORK/pool.json" \
	2> "$WORK/sample.err" &
SAMPLER=$!
PIDS+=("$SAMPLER")
nsx "$PY" "$peer" session 198.18.0.2 7 $((FLOOD_S + 3)) "$WORK/ready" \
	> "$WORK/session.json" 2> "$WORK/session.err" &
SESSION=$!
PIDS+=("$SESSION")
for i in $(seq 1 200); do
	[ -s "$WORK/ready" ] && break
	kill -0 "$SESSION" 2>/dev/null || break
	sleep 0.05
done
[ -s "$WORK/ready" ] || fail "session: $(cat "$WORK/session.err")"
nsx "$PY" "$peer" flood "$IF" "$mac" 198.18.0.2 "$FLOOD_S" 4000 \
	198.18.0.64 7 > "$WORK/flood.json" || fail "flood generator"
# the issue's criterion: ping within 1 s of the flood's end (a few tries
# inside that second)
ping_rc=0
nsx ping -c 1 -i 0.2 -w 1 198.18.0.2 > "$WORK/ping.log" 2>&1 || ping_rc=$?
session_rc=0
wait "$SESSION" || session_rc=$?
kill -TERM "$SAMPLER" 2>/dev/null || true
wait "$SAMPLER" || true
log "flood: $(cat "$WORK/flood.json")"
# frames the TAP queue dropped before ust-echo read them (the legitimate
# session's too: its worst latency is TCP recovering from those)
log "kernel side of the TAP: $(nsx ip -s link show "$IF" | awk '/TX:/ {getline; print "TX packets " $2 ", dropped " $4; exit}')"
log "session: $(cat "$WORK/session.json" "$WORK/session.err")"
stop "$ECHO_PID"
check_json_sane "$WORK/echo.json" || fail "server accounting"
[ -s "$WORK/pool.json" ] || fail "no telemetry sample: $(cat "$WORK/sample.err")"
"$PY" - "$WORK/pool.json" "$WORK/echo.json" "$WORK/flood.json" \
	> "$WORK/verdict" <<'PYEOF' || { cat "$WORK/verdict"; fail "mbuf bound"; }
import json, sys
p = json.load(open(sys.argv[1]))
j = json.load(open(sys.argv[2]))
fl = json.load(open(sys.argv[3]))
start = j["mbuf_in_use_start"]
# what may be in use at once beyond the start (RX ring filled, the mempool
# caches): the frames held for ARP (arp.pending_max), the TX staging area
# (tx_stage, 512), one lcore cache of the default pool (1.5 x 256), an RX
# burst and the echo session's few buffers (64)
bound = start + p["arp_pending_max"] + 512 + 384 + 64
arp = j["counters"]["Arp"]
print(f"peak in use {p['in_use_max']} (start {start}, bound {bound}, pool "
      f"{p['size']}, reserve {p['reserve']}), lowest free {p['avail_min']}, "
      f"peak ARP pending {p['arp_pending_max_seen']} of "
      f"{p['arp_pending_max']}, {p['samples']} samples; flood "
      f"{fl['frames']} frames at {fl['pps']}/s; Arp {arp}")
if p["samples"] < 10:
    sys.exit("too few samples")
if fl["frames"] < 100000:
    sys.exit("no flood?")
if p["in_use_max"] > bound:
    sys.exit(f"mbufs in use peaked at {p['in_use_max']} > {bound}")
PYEOF
cat "$WORK/verdict"
[ "$session_rc" = 0 ] || fail "the legitimate session was not served"
[ "$ping_rc" = 0 ] || fail "no ping within 1 s of the flood's end: $(cat "$WORK/ping.log")"
log "bound held, session served, ping after the flood, no leak"
