#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# ust-perf l2-pingpong over net_memif (two processes, no stack work): the
# client's frames come back, every answer matches a slot's sequence (none
# stale), the server bounced at least what the client counted, neither
# side leaks an mbuf.
. "$(dirname "$0")/lib.sh"
require_root
trap cleanup EXIT
sock="$WORK/memif.sock"
"$PERF_BIN" -l 0 --no-pci $(eal_mem 256) --file-prefix "l2s-$$" \
	--vdev "net_memif0,role=server,socket=$sock" -- --mode l2-pingpong \
	--role server --addr 198.18.1.2/24 --duration 0 --warmup 0 \
	--stats-period 0 --json "$WORK/server.json" > "$WORK/server.log" 2>&1 &
SRV=$!
PIDS+=("$SRV")
for i in $(seq 1 100); do
	grep -qs "l2-pingpong server" "$WORK/server.log" && break
	sleep 0.05
done
rc=0
"$PERF_BIN" -l 1 --no-pci $(eal_mem 256) --file-prefix "l2c-$$" \
	--vdev "net_memif0,role=client,socket=$sock" -- --mode l2-pingpong \
	--role client --addr 198.18.1.1/24 --size 106 --inflight 4 \
	--duration 1 --warmup 0.5 --stats-period 0 --linger 1 \
	--json "$WORK/client.json" > "$WORK/client.log" 2>&1 || rc=$?
[ "$rc" = 0 ] || { cat "$WORK/client.log"; fail "client exited with $rc"; }
stop "$SRV"
grep -E "round trip|resent" "$WORK/client.log"
"$PY" - "$WORK/client.json" "$WORK/server.json" <<'PYEOF' || fail "ping-pong"
import json, sys
c, s = (json.load(open(p)) for p in sys.argv[1:3])
for name, j in (("client", c), ("server", s)):
    if j["mbuf_in_use_start"] != j["mbuf_in_use_end"]:
        sys.exit(f"{name}: mbuf leak: {j['mbuf_in_use_start']} in use at "
                 f"start, {j['mbuf_in_use_end']} at end")
r = c["result"]
if r["transactions"] < 1000:
    sys.exit(f"client: only {r['transactions']} round trips")
if r["stale"] != 0:
    sys.exit(f"client: {r['stale']} answers to no slot's sequence")
if r["latency_ns"]["count"] != r["transactions"]:
    sys.exit("client: latency samples != round trips")
if s["result"]["transactions"] < r["transactions"]:
    sys.exit(f"server bounced {s['result']['transactions']}, fewer than "
             f"the client's {r['transactions']} answers")
print(f"  {r['transactions']} round trips, p50 "
      f"{r['latency_ns']['p50'] / 1e3:.2f} us")
PYEOF
log "l2-pingpong over memif: every frame back, no leak"
