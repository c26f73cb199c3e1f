#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# ust-perf tcp-conns over net_memif: 70,000 idle connections between two
# ustack processes (more than a 16-bit descriptor holds, over 4 server
# ports), every one established with no SYN retransmitted, none lost
# while idle, every one answering its probe with its own number; memory
# per connection reported; neither side leaks an mbuf.
. "$(dirname "$0")/lib.sh"
require_root
trap cleanup EXIT
sock="$WORK/memif.sock"
N=70000
cat > "$WORK/conns.ini" <<INI
[stack]
max_sockets = 70100
[tcp]
max_conns = 70100
INI
"$PERF_BIN" -l 0 --no-pci $(eal_mem 512) --file-prefix "kcs-$$" \
	--vdev "net_memif0,role=server,socket=$sock" -- --mode tcp-conns \
	--role server --addr 198.18.1.2/24 --config "$WORK/conns.ini" \
	--ports 4 --duration 0 --stats-period 0 --json "$WORK/server.json" \
	> "$WORK/server.log" 2>&1 &
SRV=$!
PIDS+=("$SRV")
for i in $(seq 1 100); do
	grep -qs "tcp-conns server" "$WORK/server.log" && break
	sleep 0.05
done
rc=0
"$PERF_BIN" -l 1 --no-pci $(eal_mem 512) --file-prefix "kcc-$$" \
	--vdev "net_memif0,role=client,socket=$sock" -- --mode tcp-conns \
	--role client --addr 198.18.1.1/24 --peer 198.18.1.2 \
	--config "$WORK/conns.ini" --ports 4 --conns $N --duration 1 \
	--warmup 0 --stats-period 0 --linger 1 --json "$WORK/client.json" \
	> "$WORK/client.log" 2>&1 || rc=$?
[ "$rc" = 0 ] || { cat "$WORK/client.log"; fail "client exited with $rc"; }
# the server ends by itself once every connection it accepted is closed
for i in $(seq 1 300); do
	kill -0 "$SRV" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$SRV" 2>/dev/null && fail "the server did not end with its connections"
src=0
wait "$SRV" || src=$?
[ "$src" = 0 ] || { cat "$WORK/server.log"; fail "server exited with $src"; }
grep "ust-perf: tcp-conns\|memory" "$WORK/client.log" "$WORK/server.log"
"$PY" - "$WORK/client.json" "$WORK/server.json" $N <<'PYEOF' || fail "tcp-conns"
import json, sys
c, s = (json.load(open(p)) for p in sys.argv[1:3])
n = int(sys.argv[3])
for name, j in (("client", c), ("server", s)):
    if j["mbuf_in_use_start"] != j["mbuf_in_use_end"]:
        sys.exit(f"{name}: mbuf leak: {j['mbuf_in_use_start']} in use at "
                 f"start, {j['mbuf_in_use_end']} at end")
r, q = c["result"], s["result"]
for k in ("established", "answered"):
    if r[k] != n:
        sys.exit(f"client: {k} {r[k]} of {n}")
for k in ("failed", "lost", "wrong"):
    if r[k] != 0:
        sys.exit(f"client: {k} {r[k]}")
if q["conns"] != n or q["established"] != n or q["lost"] != 0:
    sys.exit(f"server: accepted {q['conns']}, open at the probe "
             f"{q['established']}, lost {q['lost']}")
if q["echoed_bytes"] != 8 * n:
    sys.exit(f"server: echoed {q['echoed_bytes']} bytes, not {8 * n}")
# a burst of connects found the TX staging full: the SYNs waited for room,
# none for its retransmission timer
rtx = c["counters"]["Tcp"]["RetransSegs"]
if rtx != 0:
    sys.exit(f"client: {rtx} segments retransmitted")
if not 0 < r["heap_per_conn_bytes"] < 4096:
    sys.exit(f"client: heap per connection {r['heap_per_conn_bytes']}")
if r["mbufs_per_conn"] > 0.01:
    sys.exit(f"client: idle connections hold {r['mbufs_per_conn']} mbufs")
if c["counters"]["TcpExt"]["TW"] != n:
    sys.exit(f"client: {c['counters']['TcpExt']['TW']} TIME_WAIT, not {n}")
print(f"  {n} connections, {r['setup_per_s']:.0f}/s set up, "
      f"{r['heap_per_conn_bytes']:.0f} heap bytes each "
      f"(+{r['tables_per_slot_bytes']:.0f} per slot)")
PYEOF
log "tcp-conns over memif: $N connections set up, held, answering, no leak"
