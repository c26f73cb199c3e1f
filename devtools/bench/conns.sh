#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# Connection scale (issue 13 item 5): two ust-perf --mode tcp-conns
# processes over a net_memif pair (server on lcore 0, client on lcore 1)
# open BENCH_CONNS idle connections (default 1,000,000) over BENCH_PORTS
# server ports (default 64: 64 x 28232 ephemeral ports of 4-tuples), hold
# them BENCH_HOLD seconds, probe every one, close them. Prints the set-up
# rate, the heap and mbufs per connection (established, and again after
# the probes), the tables per connection slot, the control block's size,
# the SACK blocks and RACK record arrays still held after the probes,
# the hold's busy polls, on both sides;
# BENCH_REPS runs, medians. The
# hugepages it reserves: about 1.3 KiB a connection a side, plus 1 GiB.
#   sudo devtools/bench/conns.sh
#   sudo BENCH_CONNS=100000 BENCH_REPS=1 devtools/bench/conns.sh
. "$(dirname "$0")/lib.sh"
CONNS=${BENCH_CONNS:-1000000}
PORTS=${BENCH_PORTS:-64}
HOLD=${BENCH_HOLD:-10}
INFLIGHT=${BENCH_INFLIGHT:-1024}
ust_need_root
ust_build
# 2 MB pages: 1.3 KiB a connection on each side, the pools, the rest
ust_hugepages $(( (CONNS * 2 * 1400 / 1048576 + 1024) / 2 ))
echo "results in $OUT" >&2
SLOTS=1
while [ "$SLOTS" -lt $((CONNS + 64)) ]; do SLOTS=$((SLOTS * 2)); done
cat > "$OUT/conns.ini" <<INI
[stack]
max_sockets = $SLOTS
[tcp]
max_conns = $SLOTS
INI
MEM=$UST_EAL_MEM
case "$MEM" in
--no-huge*)
	# no hugepages: the heap is fixed at start
	MEM="--no-huge -m $(( CONNS * 1400 / 1048576 + 512 ))" ;;
esac

run() { # rep -> prints the JSON paths
	local tag="conns-$1-$RANDOM" sock="$OUT/conns-$1.sock"
	rm -f "$sock"
	echo "+ $PERF -l 0 --no-pci $MEM --file-prefix s$tag --vdev net_memif0,role=server,socket=$sock -- --mode tcp-conns --role server --addr 198.18.1.2/24 --config $OUT/conns.ini --ports $PORTS --duration 0 --stats-period 0" >&2
	"$PERF" -l 0 --no-pci $MEM --file-prefix "s$tag" \
		--vdev "net_memif0,role=server,socket=$sock" -- \
		--mode tcp-conns --role server --addr 198.18.1.2/24 \
		--config "$OUT/conns.ini" --ports "$PORTS" --duration 0 \
		--stats-period 0 --json "$OUT/$tag.server.json" \
		> "$OUT/$tag.server" 2>&1 &
	local srv=$!
	sleep 1
	echo "+ $PERF -l 1 --no-pci $MEM --file-prefix c$tag --vdev net_memif0,role=client,socket=$sock -- --mode tcp-conns --role client --addr 198.18.1.1/24 --peer 198.18.1.2 --config $OUT/conns.ini --ports $PORTS --conns $CONNS --inflight $INFLIGHT --duration $HOLD --warmup 0 --stats-period 0 --linger 1" >&2
	"$PERF" -l 1 --no-pci $MEM --file-prefix "c$tag" \
		--vdev "net_memif0,role=client,socket=$sock" -- \
		--mode tcp-conns --role client --addr 198.18.1.1/24 \
		--peer 198.18.1.2 --config "$OUT/conns.ini" --ports "$PORTS" \
		--conns "$CONNS" --inflight "$INFLIGHT" --duration "$HOLD" \
		--warmup 0 --stats-period 0 --linger 1 \
		--json "$OUT/$tag.client.json" > "$OUT/$tag.client" 2>&1 ||
		echo "client exited with $? (see $OUT/$tag.client)" >&2
	# the server ends once every connection is closed again
	for _ in $(seq 1 1200); do
		kill -0 $srv 2>/dev/null || break
		sleep 0.1
	done
	kill -INT $srv 2>/dev/null || true
	wait $srv || true
	echo "$OUT/$tag.client.json $OUT/$tag.server.json"
}

ROWS=()
for rep in $(seq 1 "$REPS"); do
	ROWS+=("$(run "$rep")")
done
/usr/bin/python3 - "$CONNS" "${ROWS[@]}" <<'PYEOF'
import json, statistics, sys
n = int(sys.argv[1])
runs = []
for row in sys.argv[2:]:
    c, s = (json.load(open(p)) for p in row.split())
    runs.append((c, s))
def med(f):
    return statistics.median(f(c, s) for c, s in runs)
print(f"\n{n} connections, {len(runs)} run(s), medians:\n")
print("| figure | client | server |")
print("|---|---|---|")
rows = [
    ("established (of %d)" % n, lambda r, j: r["established"], "%.0f"),
    ("failed / lost / wrong", None, None),
    ("answered the probe", lambda r, j: r["answered"] if r["role"] == "client" else r["echoed_bytes"] / 8, "%.0f"),
    ("set-up rate (connections/s, first SYN to last established)", lambda r, j: r["setup_per_s"], "%.0f"),
    ("heap per connection (bytes)", lambda r, j: r["heap_per_conn_bytes"], "%.0f"),
    ("mbufs held per connection", lambda r, j: r["mbufs_per_conn"], "%.4f"),
    ("tables per connection slot (bytes)", lambda r, j: r["tables_per_slot_bytes"], "%.0f"),
    ("heap + tables per connection (bytes)", lambda r, j: r["heap_per_conn_bytes"] + r["tables_bytes"] / n, "%.0f"),
    ("heap per connection after the probes and echoes (bytes)", lambda r, j: r.get("heap_per_conn_probed_bytes", 0), "%.0f"),
    ("the same + tables (bytes)", lambda r, j: r.get("heap_per_conn_probed_bytes", 0) + r["tables_bytes"] / n, "%.0f"),
    ("control block (bytes)", lambda r, j: r.get("tcp_sock_bytes", 0), "%.0f"),
    ("SACK blocks held after the probes", lambda r, j: r.get("tcp_sacks_probed", 0), "%.0f"),
    ("RACK record arrays held after the probes", lambda r, j: r.get("tcp_racks_probed", 0), "%.0f"),
    ("SYNs / segments retransmitted", lambda r, j: j["counters"]["Tcp"]["RetransSegs"], "%.0f"),
    ("mbufs in use at the end - at start", lambda r, j: j["mbuf_in_use_end"] - j["mbuf_in_use_start"], "%.0f"),
]
for name, f, fmt in rows:
    if f is None:
        cl = "%d / %d / %d" % (med(lambda c, s: c["result"]["failed"]), med(lambda c, s: c["result"]["lost"]), med(lambda c, s: c["result"]["wrong"]))
        sv = "- / %d / %d" % (med(lambda c, s: s["result"]["lost"]), med(lambda c, s: s["result"]["wrong"]))
        print(f"| {name} | {cl} | {sv} |")
        continue
    cl = fmt % med(lambda c, s: f(c["result"], c))
    sv = "-" if "rate" in name else fmt % med(lambda c, s: f(s["result"], s))
    print(f"| {name} | {cl} | {sv} |")
c, s = runs[0]
r = c["result"]
print(f"\nhold: {r['hold_s']:.1f} s, {r['hold_polls']} polls of the client's "
      f"stack, {r['hold_busy_polls']} of them with work")
per = med(lambda c, s: c["result"]["heap_per_conn_bytes"] + c["result"]["tables_per_slot_bytes"])
print(f"10 M connections at {per:.0f} bytes each (heap + one table slot): "
      f"{per * 10e6 / 2**30:.1f} GiB a side")
PYEOF
