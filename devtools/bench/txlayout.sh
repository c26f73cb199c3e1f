#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# TX layouts of TCP data segments (ust_tcp_tx.h), side by side in one run:
# TCP request-response between two ust-perf processes over net_memif
# (server on lcore 0, client on lcore 1, both ends with the same policy).
#  (a) the RFC's workload: 1024-byte requests and responses over 250
#      connections, for linear, chained, first-linear, linear with
#      copy-small 128, chained with copy-small 256;
#  (b) the maintainer's workload: 200 connections, 40-, 44-, 60- and
#      64-byte requests and responses, chained (as Linux) with copy-small
#      128 off and on, beside linear. With IPv4 and timestamps a frame has
#      66 bytes of headers (14 + 20 + 32): a 128-byte frame holds at most
#      62 bytes of payload, so 60 is under the cliff and 64 over it.
#  (c) bulk: one connection, 64 KiB writes, 4 MiB buffers (--mode
#      tcp-stream), linear vs chained: Gbit/s, segments and pages per
#      packet, bytes copied and cycles per KiB.
# Then --zc on memif, which must be refused (exit status 2 and one line),
# never measured.
#
# One markdown table per workload: transactions/s, ratio to linear,
# segments and pages per packet and bytes copied per transaction (client
# side, over the measured interval), the main lcore's cycles per
# transaction on both ends (busy: poll iterations that did work; loop:
# all), p99 latency. Medians over BENCH_REPS runs (default 1). Every
# command line is printed before it runs.
#   sudo devtools/bench/txlayout.sh
#   BENCH_SECS (default 5), BENCH_WARMUP (1), BENCH_REPS (1),
#   BENCH_OUT (directory of the logs and JSON), UST_BUILD (build folder)
# shellcheck source=devtools/bench/lib.sh
. "$(dirname "$0")/lib.sh"
REPS=${BENCH_REPS:-1}
SECS=${BENCH_SECS:-5}
WARM=${BENCH_WARMUP:-1}
bench_setup
read -ra MEM <<< "$UST_EAL_MEM"
RUNS=$OUT/runs.tsv
: > "$RUNS"
# other load on the machine shows in these numbers: say how much there was
load() { echo "load average $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"; }
echo "== $(load) before the runs"

# run_pair TAG WORKLOAD POLICY CONNS SIZE [flags...]: one tcp-rr pair;
# appends a line to $RUNS
run_pair() {
	local tag=$1 wl=$2 pol=$3 conns=$4 size=$5
	shift 5
	local sock="$OUT/$tag.sock" srv cli rc=0
	local scmd=("$PERF" -l 0 --no-pci "${MEM[@]}" --file-prefix "s$tag"
		--vdev "net_memif0,role=server,socket=$sock" -- --mode tcp-rr
		--role server --addr 198.18.1.2/24 --size "$size"
		--response "$size" --duration "$SECS" --warmup "$WARM"
		--stats-period 0 --json "$OUT/$tag.s.json" "$@")
	local ccmd=("$PERF" -l 1 --no-pci "${MEM[@]}" --file-prefix "c$tag"
		--vdev "net_memif0,role=client,socket=$sock" -- --mode tcp-rr
		--role client --addr 198.18.1.1/24 --peer 198.18.1.2
		--conns "$conns" --size "$size" --response "$size"
		--duration "$SECS" --warmup "$WARM" --stats-period 0
		--linger 2 --json "$OUT/$tag.c.json" "$@")
	rm -f "$sock"
	echo "\$ ${scmd[*]} &"
	echo "\$ ${ccmd[*]}"
	"${scmd[@]}" > "$OUT/$tag.server" 2>&1 &
	srv=$!
	for _ in $(seq 1 200); do
		grep -qs "tcp-rr server, port" "$OUT/$tag.server" && break
		kill -0 $srv 2>/dev/null || break
		sleep 0.05
	done
	"${ccmd[@]}" > "$OUT/$tag.client" 2>&1 &
	cli=$!
	# the server ends once the client has closed its connections (the
	# client lingers, port open and unpolled, meanwhile); a bound anyway
	for _ in $(seq 1 $(((${SECS%.*} + ${WARM%.*} + 30) * 10))); do
		kill -0 $srv 2>/dev/null || break
		sleep 0.1
	done
	kill -INT $srv 2>/dev/null || true
	wait $srv || rc=$?
	wait $cli || rc=$?
	if [ "$rc" != 0 ] || [ ! -s "$OUT/$tag.c.json" ] ||
	   [ ! -s "$OUT/$tag.s.json" ]; then
		echo "!! $tag: exit status $rc (logs: $OUT/$tag.client," \
			"$OUT/$tag.server)"
		printf '%s\t%s\t%s\tFAILED\n' "$wl" "$size" "$pol" >> "$RUNS"
		return 0
	fi
	/usr/bin/python3 - "$OUT/$tag.c.json" "$OUT/$tag.s.json" "$wl" \
		"$size" "$pol" >> "$RUNS" <<'PYEOF'
import json, sys
c = json.load(open(sys.argv[1]))["result"]
s = json.load(open(sys.argv[2]))["result"]
print("\t".join(sys.argv[3:6] + [str(x) for x in (
    c["transactions_per_s"], c["segs_per_pkt"], c["pages_per_pkt"],
    c["copied_bytes_per_txn"], c["cycles_per_txn"],
    c["loop_cycles_per_txn"], s["cycles_per_txn"],
    s["loop_cycles_per_txn"], c["latency_ns"]["p99"] / 1e3,
    c["errors"] + s["errors"])]))
PYEOF
}

# stream_pair TAG LAYOUT: one tcp-stream pair; appends to $STREAMS
STREAMS=$OUT/streams.tsv
: > "$STREAMS"
stream_pair() {
	local tag=$1 lay=$2 sock="$OUT/$1.sock" srv rc=0
	local scmd=("$PERF" -l 0 --no-pci "${MEM[@]}" --file-prefix "s$tag"
		--vdev "net_memif0,role=server,socket=$sock" -- --mode tcp-stream
		--role server --addr 198.18.1.2/24 --duration "$SECS"
		--warmup "$WARM" --stats-period 0 --rcvbuf 4194304
		--json "$OUT/$tag.s.json" --tx-layout "$lay")
	local ccmd=("$PERF" -l 1 --no-pci "${MEM[@]}" --file-prefix "c$tag"
		--vdev "net_memif0,role=client,socket=$sock" -- --mode tcp-stream
		--role client --addr 198.18.1.1/24 --peer 198.18.1.2 --conns 1
		--size 65536 --sndbuf 4194304 --duration "$SECS"
		--warmup "$WARM" --stats-period 0 --linger 2
		--json "$OUT/$tag.c.json" --tx-layout "$lay")
	rm -f "$sock"
	echo "\$ ${scmd[*]} &"
	echo "\$ ${ccmd[*]}"
	"${scmd[@]}" > "$OUT/$tag.server" 2>&1 &
	srv=$!
	sleep 1
	"${ccmd[@]}" > "$OUT/$tag.client" 2>&1 || rc=$?
	wait $srv || rc=$?
	if [ "$rc" != 0 ] || [ ! -s "$OUT/$tag.c.json" ]; then
		echo "!! $tag: exit status $rc (logs: $OUT/$tag.client)"
		return 0
	fi
	/usr/bin/python3 - "$OUT/$tag.c.json" "$lay" >> "$STREAMS" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))["result"]
print("\t".join([sys.argv[2]] + [str(r[k]) for k in (
    "gbit_per_s", "segs_per_pkt", "pages_per_pkt", "copied_bytes_per_kib",
    "cycles_per_kib")]))
PYEOF
}

# the policies: name, then the flags both ends get
RFC_POL=("linear|--tx-layout linear"
	 "chained|--tx-layout chained"
	 "first-linear|--tx-layout first-linear"
	 "linear + copy-small 128|--tx-layout linear --copy-small 128"
	 "chained + copy-small 256|--tx-layout chained --copy-small 256")
MNT_POL=("linear|--tx-layout linear"
	 "chained|--tx-layout chained"
	 "chained + copy-small 128|--tx-layout chained --copy-small 128")

n=0
for rep in $(seq 1 "$REPS"); do
	echo "== repetition $rep of $REPS"
	for p in "${RFC_POL[@]}"; do
		n=$((n + 1))
		# shellcheck disable=SC2086
		run_pair "rfc$n" rfc "${p%%|*}" 250 1024 ${p#*|}
	done
	for size in 40 44 60 64; do
		for p in "${MNT_POL[@]}"; do
			n=$((n + 1))
			# shellcheck disable=SC2086
			run_pair "mnt$n" mnt "${p%%|*}" 200 "$size" ${p#*|}
		done
	done
	for lay in linear chained; do
		n=$((n + 1))
		stream_pair "st$n" "$lay"
	done
done

# zero copy on memif: refused, never measured
ZC=()
for map in per-send once; do
	sock="$OUT/zc-$map.sock"
	rm -f "$sock"
	zcmd=("$PERF" -l 1 --no-pci "${MEM[@]}" --file-prefix "zc$map"
	      --vdev "net_memif0,role=server,socket=$sock" -- --mode tcp-rr
	      --role client --addr 198.18.1.1/24 --peer 198.18.1.2 --conns 250
	      --size 1024 --tx-layout chained --zc --zc-map "$map")
	echo "\$ ${zcmd[*]}"
	rc=0
	timeout 60 "${zcmd[@]}" > "$OUT/zc-$map.out" 2> "$OUT/zc-$map.err" ||
		rc=$?
	ZC+=("--zc --zc-map $map: exit status $rc: $(grep -h "zero copy" \
		"$OUT/zc-$map.err" "$OUT/zc-$map.out" | head -1)")
done

/usr/bin/python3 - "$RUNS" "$REPS" "$SECS" <<'PYEOF'
import statistics, sys
runs, reps, secs = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rows = {}
order = []
failed = {}
for line in open(runs):
    f = line.rstrip("\n").split("\t")
    key = (f[0], int(f[1]), f[2])
    if key not in rows:
        rows[key] = []
        order.append(key)
    if f[3] == "FAILED":
        failed[key] = failed.get(key, 0) + 1
        continue
    rows[key].append([float(x) for x in f[3:]])

def med(key, i):
    v = [r[i] for r in rows[key]]
    return statistics.median(v) if v else None

def fmt(v, spec):
    return "n/a" if v is None else format(v, spec)

titles = {
    "rfc": "(a) the RFC's workload: 250 connections, 1024-byte requests "
           "and responses",
    "mnt": "(b) the maintainer's workload: 200 connections",
}
for wl in ("rfc", "mnt"):
    print()
    print(f"{titles[wl]}; ust-perf tcp-rr <-> ust-perf tcp-rr over "
          f"net_memif, {secs} s measured, median of {reps} "
          f"run{'s' if reps > 1 else ''}")
    print()
    print("| policy | request = response (bytes) | transactions/s | ratio "
          "to linear | segs/pkt | pages/pkt | bytes copied/txn | "
          "cycles/txn client (busy / loop) | cycles/txn server (busy / "
          "loop) | p99 (us) | errors |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for key in order:
        if key[0] != wl:
            continue
        lin = (wl, key[1], "linear")
        tps, base = med(key, 0), med(lin, 0) if lin in rows else None
        ratio = tps / base if tps is not None and base else None
        note = f" ({failed[key]} failed)" if key in failed else ""
        print(f"| {key[2]}{note} | {key[1]} | {fmt(tps, '.0f')} | "
              f"{fmt(ratio, '.3f')} | {fmt(med(key, 1), '.3f')} | "
              f"{fmt(med(key, 2), '.3f')} | {fmt(med(key, 3), '.1f')} | "
              f"{fmt(med(key, 4), '.0f')} / {fmt(med(key, 5), '.0f')} | "
              f"{fmt(med(key, 6), '.0f')} / {fmt(med(key, 7), '.0f')} | "
              f"{fmt(med(key, 8), '.1f')} | {fmt(med(key, 9), '.0f')} |")
PYEOF
echo
echo "(c) bulk: one connection, 64 KiB writes; ust-perf tcp-stream over net_memif, median of $REPS runs"
echo
/usr/bin/python3 - "$STREAMS" <<'PYEOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    f = line.split("\t")
    rows.setdefault(f[0], []).append([float(x) for x in f[1:]])
print("| layout | Gbit/s | segs/pkt | pages/pkt | bytes copied/KiB | cycles/KiB (client) |")
print("|---|---|---|---|---|---|")
for lay, runs in rows.items():
    med = [statistics.median(c) for c in zip(*runs)]
    print(f"| {lay} | {med[0]:.2f} | {med[1]:.3f} | {med[2]:.2f} | "
          f"{med[3]:.0f} | {med[4]:.0f} |")
PYEOF
echo
echo "$(load) after the runs"
echo
echo "zero copy on net_memif (must be refused):"
for z in "${ZC[@]}"; do
	echo "- $z"
done
echo
echo "logs and JSON in $OUT"
