#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# The TX layout table of the 2022 thread (doc/tx-layout.md) with ustack on
# one NIC and the Linux kernel as the peer: ust-perf tcp-rr as the client
# (--conns connections, one --size-byte request outstanding on each)
# against a kernel TCP echo server at --peer, once per TX policy, side by
# side in one run: linear, chained, first-linear, copy-small 128 (linear),
# zero copy with the payload pages mapped for DMA before each send and
# unmapped when the NIC frees the segment (rte_dev_dma_map()/
# rte_dev_dma_unmap(), --zc-map per-send), and zero copy with the area
# mapped once. The bound-NIC test bed runs it in a QEMU guest
# (tests/vm/guest-tests.sh); the same command runs on a bare-metal host
# with a real NIC (doc/testbed.md):
#
#   tests/vm/txlayout-kernel.sh --pci 0000:3b:00.0 --addr 198.18.0.2/24 \
#       --peer 198.18.0.1 [options]
#
# with the NIC bound to vfio-pci (IOMMU on: then rte_dev_dma_map() is a
# VFIO_IOMMU_MAP_DMA) or an mlx5 port (no bind; there it registers a
# memory region), and on the peer host, at --peer, a kernel echo server on
# --port, e.g. /usr/bin/python3 tests/integration/tcp_peer.py echo-server 7
#
# Options:
#   --pci ADDR[,DEVARGS]  the port (EAL -a); or --eal "ARGS" for any EAL
#                         port arguments (e.g. a vdev)
#   --addr A.B.C.D/N      ustack's address (required)
#   --peer A.B.C.D        the kernel echo server (required)
#   --port N              its port (default: 7)
#   --lcores LIST         EAL -l (default: 1)
#   --mem "FLAGS"         EAL memory flags (default: $UST_EAL_MEM or -m 256)
#   --conns N             connections (default: 4)
#   --size BYTES          request = response size (default: 1024)
#   --secs S              measured seconds per policy (default: 3)
#   --warmup S            (default: 0.5)
#   --config FILE         ust-perf --config (e.g. [port] tx_desc = 64 for
#                         a PMD without tx_done_cleanup: e1000, virtio)
#   --verify              ust-perf --verify on every run: each echoed byte
#                         checked (costs cycles: off by default)
#   --label TEXT          what the figures are (default: the IOMMU found)
#   --build DIR           (default: $UST_BUILD or build/)
#   --out DIR             logs and JSON (default: a new /tmp/ust-txlk.*)
#
# Output: each command line before it runs; a markdown table (per policy:
# transactions/s, ratio to linear, segments and pages per packet, bytes
# copied per transaction, cycles per transaction of the ustack lcore (busy
# / loop), p50 and p99 latency, DMA maps and unmaps per transaction, mean
# cycles per map and unmap, and over the whole run maps = unmaps); then for
# the zero-copy rows the histograms of the cycles of each map and unmap
# call (bucket i: [2^i, 2^(i+1)) TSC cycles). Exit status 1 if a run
# failed or maps and unmaps do not match; a port that cannot map refuses
# --zc (exit 2, one line) and the table says so.
set -euo pipefail

die() { echo "txlayout-kernel.sh: error: $*" >&2; exit 2; }
SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${UST_BUILD:-$SRC/build}
EALDEV="" ADDR="" PEER="" PORT=7 LCORES=1 MEM=${UST_EAL_MEM:--m 256}
CONNS=4 SIZE=1024 SECS=3 WARM=0.5 VERIFY=() LABEL="" OUT="" CONF=()
while [ $# -gt 0 ]; do
	case $1 in
	--pci) EALDEV="-a ${2:?}"; shift ;;
	--eal) EALDEV=${2:?}; shift ;;
	--addr) ADDR=${2:?}; shift ;;
	--peer) PEER=${2:?}; shift ;;
	--port) PORT=${2:?}; shift ;;
	--lcores) LCORES=${2:?}; shift ;;
	--mem) MEM=${2:?}; shift ;;
	--conns) CONNS=${2:?}; shift ;;
	--size) SIZE=${2:?}; shift ;;
	--secs) SECS=${2:?}; shift ;;
	--warmup) WARM=${2:?}; shift ;;
	--verify) VERIFY=(--verify) ;;
	--config) CONF=(--config "${2:?}"); shift ;;
	--label) LABEL=${2:?}; shift ;;
	--build) BUILD=${2:?}; shift ;;
	--out) OUT=${2:?}; shift ;;
	--help|-h) sed -n '/^# The TX layout/,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option '$1' (try --help)" ;;
	esac
	shift
done
[ -n "$EALDEV" ] || die "missing --pci (or --eal)"
[ -n "$ADDR" ] || die "missing --addr"
[ -n "$PEER" ] || die "missing --peer"
[ "$(id -u)" = 0 ] || die "run as root"
PERF=$BUILD/apps/ust-perf
[ -x "$PERF" ] || die "$PERF: not built"
OUT=${OUT:-$(mktemp -d /tmp/ust-txlk.XXXXXX)}
mkdir -p "$OUT"
RUNS=$OUT/runs.tsv
: > "$RUNS"

# what maps DMA here: the label of the figures
iommu() {
	local groups vendor
	groups=$(ls /sys/kernel/iommu_groups 2>/dev/null | wc -l)
	vendor=$(cat /sys/class/dmi/id/sys_vendor 2>/dev/null || echo "?")
	echo "host: $vendor; kernel command line IOMMU options: $(tr ' ' '\n' < /proc/cmdline |
		grep -E 'iommu' | tr '\n' ' ' || true)(${groups} IOMMU groups)"
}
if [ -z "$LABEL" ]; then
	if grep -qs QEMU /sys/class/dmi/id/sys_vendor; then
		LABEL="QEMU guest: emulated IOMMU, not hardware figures"
	else
		LABEL="$(iommu)"
	fi
fi

POL=("linear|--tx-layout linear"
     "chained|--tx-layout chained"
     "first-linear|--tx-layout first-linear"
     "copy-small 128 (linear)|--tx-layout linear --copy-small 128"
     "zero copy, map per send|--tx-layout chained --zc --zc-map per-send --zc-bufs 128"
     "zero copy, map once|--tx-layout chained --zc --zc-map once --zc-bufs 128")
n=0
for p in "${POL[@]}"; do
	n=$((n + 1))
	pol=${p%%|*}
	# shellcheck disable=SC2206
	flags=(${p#*|})
	cmd=("$PERF" -l "$LCORES" $EALDEV $MEM --file-prefix "txlk$n-$$" --
	     ${CONF[@]+"${CONF[@]}"} --mode tcp-rr --role client --addr "$ADDR" --peer "$PEER"
	     --port "$PORT" --conns "$CONNS" --size "$SIZE" --response "$SIZE"
	     --duration "$SECS" --warmup "$WARM" --stats-period 0
	     --json "$OUT/r$n.json" "${flags[@]}" ${VERIFY[@]+"${VERIFY[@]}"})
	echo "\$ ${cmd[*]}"
	rc=0
	"${cmd[@]}" > "$OUT/r$n.log" 2>&1 || rc=$?
	grep -hE "IOVA mode|^transactions:|^tx layout|^verify" "$OUT/r$n.log" |
		sed 's/^/  /' || true
	if [ "$rc" = 0 ]; then
		printf '%s\tok\t%s\t\n' "$pol" "$OUT/r$n.json" >> "$RUNS"
	else
		msg=$(grep -h "zero copy refused\|error" "$OUT/r$n.log" | head -1 || true)
		echo "!! $pol: exit status $rc${msg:+: $msg}"
		printf '%s\texit %s\t\t%s\n' "$pol" "$rc" "$msg" >> "$RUNS"
	fi
done

rc=0
/usr/bin/python3 - "$RUNS" "$LABEL" "$CONNS" "$SIZE" "$SECS" <<'PYEOF' || rc=$?
import json, sys
runs, label, conns, size, secs = sys.argv[1:6]
rows = []
for line in open(runs):
    pol, st, js, msg = line.rstrip("\n").split("\t")
    rows.append((pol, st, json.load(open(js)) if st == "ok" else None, msg))

def per(a, b):
    return a / b if b else 0.0

print()
print(f"ust-perf tcp-rr against a kernel echo server, {conns} connections, "
      f"{size}-byte requests and responses, {secs} s measured per policy")
print(f"Figures: {label}")
print()
print("| policy | transactions/s | ratio to linear | segs/pkt | pages/pkt | "
      "bytes copied/txn | cycles/txn (busy / loop) | p50 / p99 (us) | "
      "DMA maps/txn | DMA unmaps/txn | cycles per map / unmap | "
      "maps = unmaps (whole run) |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
base = None
bad = 0
for pol, st, j, msg in rows:
    if j is None:
        bad += 1
        print(f"| {pol} | {st}{': ' + msg if msg else ''} | | | | | | | | | | |")
        continue
    r = j["result"]
    t = r["tcp_tx"]
    all_t = j["tcp_tx"]
    n = r["transactions"]
    tps = r["transactions_per_s"]
    if pol == "linear":
        base = tps
    ok = all_t["dma_maps"] == all_t["dma_unmaps"] and all_t["dma_map_fail"] == 0
    if not ok:
        bad += 1
    lat = r["latency_ns"]
    print(f"| {pol} | {tps:.0f} | {per(tps, base):.3f} | "
          f"{r['segs_per_pkt']:.3f} | {r['pages_per_pkt']:.3f} | "
          f"{r['copied_bytes_per_txn']:.1f} | {r['cycles_per_txn']:.0f} / "
          f"{r['loop_cycles_per_txn']:.0f} | {lat['p50'] / 1e3:.1f} / "
          f"{lat['p99'] / 1e3:.1f} | {per(t['dma_maps'], n):.2f} | "
          f"{per(t['dma_unmaps'], n):.2f} | "
          f"{per(t['dma_map_cycles'], t['dma_maps']):.0f} / "
          f"{per(t['dma_unmap_cycles'], t['dma_unmaps']):.0f} | "
          f"{'yes' if ok else 'NO'}: {all_t['dma_maps']} / "
          f"{all_t['dma_unmaps']} |")

for pol, st, j, msg in rows:
    if j is None or not j["options"]["zc"]:
        continue
    t = j["result"]["tcp_tx"]
    print()
    if t["dma_maps"] == 0 and t["dma_unmaps"] == 0:
        a = j["tcp_tx"]
        print(f"{pol}: no DMA map or unmap in the measured interval (the "
              f"whole run: {a['dma_maps']} map, {a['dma_unmaps']} unmap, "
              f"{a['dma_map_cycles']} and {a['dma_unmap_cycles']} cycles: "
              f"the area at registration and unregistration)")
        continue
    print(f"{pol}: cycles per DMA map / unmap call (measured interval; "
          f"{label}; TSC {j['result']['tsc_hz'] / 1e6:.0f} MHz; "
          f"map failures {t['dma_map_fail']})")
    print()
    print("| cycles | maps | unmaps |")
    print("|---|---|---|")
    h, u = t["map_hist"], t["unmap_hist"]
    for i in range(len(h)):
        if h[i] == 0 and u[i] == 0:
            continue
        lo = f"{2 ** i}-{2 ** (i + 1) - 1}" if i + 1 < len(h) else f">= {2 ** i}"
        print(f"| {lo} | {h[i]} | {u[i]} |")
sys.exit(1 if bad else 0)
PYEOF
echo
echo "logs and JSON in $OUT"
exit $rc
