#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# ust-perf udp-flood into ust-perf udp-sink over net_memif (two processes):
# every frame the flood handed to its port arrives at the sink, and every
# datagram that arrives is delivered or counted in one drop reason.
. "$(dirname "$0")/lib.sh"
require_root
trap cleanup EXIT
sock="$WORK/memif.sock"
"$PERF_BIN" -l 1 --no-pci $(eal_mem 256) --file-prefix "sink-$$" \
	--vdev "net_memif0,role=server,socket=$sock" -- --mode udp-sink \
	--addr 198.18.1.2/24 --port 9 --duration 0 --warmup 0 \
	--stats-period 0 --json "$WORK/sink.json" > "$WORK/sink.log" 2>&1 &
SINK=$!
PIDS+=("$SINK")
for i in $(seq 1 100); do
	grep -qs "udp-sink on port" "$WORK/sink.log" && break
	sleep 0.05
done
# the flood lingers, unpolled, until the sink has stopped (see ust-echo
# --help, --linger)
"$PERF_BIN" -l 0 --no-pci $(eal_mem 256) --file-prefix "flood-$$" \
	--vdev "net_memif0,role=client,socket=$sock" -- --mode udp-flood \
	--addr 198.18.1.1/24 --peer 198.18.1.2 --dst-port 9 --size 64 \
	--flows 4 --duration 2 --warmup 0.5 --stats-period 1 --linger 3 \
	--json "$WORK/flood.json" --json-interval "$WORK/flood.jsonl" \
	> "$WORK/flood.log" 2>&1 &
FLOOD=$!
PIDS+=("$FLOOD")
for i in $(seq 1 200); do
	grep -qs "udp-flood, " "$WORK/flood.log" && break
	kill -0 "$FLOOD" 2>/dev/null || break
	sleep 0.05
done
sleep 0.5 # the sink drains what is still in the rings
stop "$SINK"
rc=0
wait "$FLOOD" || rc=$?
[ "$rc" = 0 ] || { cat "$WORK/flood.log"; fail "flood exited with $rc"; }
grep "udp-flood, " "$WORK/flood.log"
grep -E "^frames in" "$WORK/sink.log"
check_json_sane "$WORK/sink.json" || fail "sink accounting"
check_json_sane "$WORK/flood.json" || fail "flood accounting"
"$PY" - "$WORK/flood.json" "$WORK/sink.json" <<'PYEOF' || fail "end to end"
import json, sys
f, s = (json.load(open(p)) for p in sys.argv[1:3])
out, got = f["counters"]["Eth"]["OutFrames"], s["counters"]["Eth"]["InFrames"]
if out != got:
    sys.exit(f"flood sent {out} frames, sink received {got}")
udp_in = s["counters"]["Udp"]["InDatagrams"]
sock = s["socket"]
if sock["enqueued"] != udp_in or sock["delivered"] != udp_in:
    sys.exit(f"sink queued {sock['enqueued']}, read {sock['delivered']}, "
             f"InDatagrams {udp_in}")
print(f"  {got} frames sent and received; {udp_in} datagrams delivered, "
      f"{s['drops']['SOCKET_RCVBUFF']} rcvbuf drops")
PYEOF
# --json-interval: a line a second, the counters growing, the last at
# most the final ones
"$PY" - "$WORK/flood.jsonl" "$WORK/flood.json" <<'PYEOF' || fail "--json-interval"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
final = json.load(open(sys.argv[2]))["counters"]["Eth"]["OutFrames"]
assert len(lines) >= 2, lines
outs = [l["stacks"][0]["counters"]["Eth"]["OutFrames"] for l in lines]
assert all(l["mode"] == "udp-flood" and "port" in l for l in lines), lines[0]
assert outs == sorted(outs) and outs[-1] > 0 and outs[-1] <= final, (outs, final)
print(f"  {len(lines)} interval lines, OutFrames {outs}")
PYEOF
log "flood over memif: nothing lost uncounted"
