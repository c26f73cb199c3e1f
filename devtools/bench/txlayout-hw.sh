#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# The TX layout table of devtools/bench/txlayout.sh on real NICs, with zero
# copy: TCP request-response between two ust-perf processes (the RFC's
# workload: 250 connections, 1024-byte requests and responses; --conns and
# --size change it), both ends with the same policy, for linear, chained,
# first-linear, linear with copy-small 128, chained with copy-small 256,
# then zero copy (ust_send_zc() from a registered area) with the payload
# pages mapped for DMA per send and unmapped on completion (--zc-map
# per-send), and with the area mapped once (--zc-map once).
#
# Usage (as root):
#   devtools/bench/txlayout-hw.sh --server-pci 0000:3b:00.0 \
#       --client-pci 0000:3b:00.1 [--mlx5] [--peer-host HOST] [options]
#
#   One host: two ports of this host cabled to each other (or on one
#   L2 segment); the server on --server-pci, the client on --client-pci,
#   two ust-perf processes with their own --file-prefix.
#   --peer-host HOST: the server runs on HOST over ssh (root, key
#   authentication, no prompt), on HOST's port --server-pci, with the
#   build at --remote-build (default: the same path as here); the client
#   runs here on --client-pci. HOST needs hugepages reserved (e.g.
#   echo 1024 > /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages).
#   --mlx5: the ports are mlx5 (bifurcated: they stay with the kernel's
#   mlx5_core, no vfio-pci binding; rdma-core installed); adds rows with
#   the PMD's inline devargs (txqs_min_inline=0,txq_inline_max=128/256, and
#   txq_inline_max=0), the hardware form of copy-small. There
#   rte_dev_dma_map() registers a memory region: the per-send rows measure
#   that, not an IOMMU. Without it the ports must be bound to vfio-pci
#   (checked); run once per IOMMU setting (kernel command line
#   intel_iommu=on iommu.strict=1, then iommu.strict=0 for lazy, then
#   iommu=pt or off) and compare: the first line says which was in force.
#
# Options:
#   --server-lcores LIST   EAL -l of the server (default: 2)
#   --client-lcores LIST   EAL -l of the client (default: 4)
#   --server-addr A.B.C.D  (default: 198.18.1.2; /24)
#   --client-addr A.B.C.D  (default: 198.18.1.1; /24)
#   --conns N              client connections (default: 250)
#   --size BYTES           request = response size (default: 1024)
#   --secs S               measured seconds per run (default: 5)
#   --warmup S             (default: 1)
#   --reps N               runs of each, medians (default: 1)
#   --build DIR            the build folder here (default: $UST_BUILD or
#                          build/)
#   --remote-build DIR     the build folder on --peer-host (default:
#                          --build)
#   --out DIR              logs and JSON (default: a new /tmp/ust-bench.*)
#   --help
#
# Output: every command line before it runs; one markdown table (per
# policy: transactions/s, ratio to linear, segments and pages per packet
# and bytes copied per transaction on the client, cycles per transaction
# of both ends' main lcores (busy: poll iterations that did work / loop:
# all), p99, DMA maps and unmaps per transaction and their mean cycles);
# then, for the zero-copy runs, the histograms of the cycles of each DMA
# map and unmap call from the JSON (bucket i: [2^i, 2^(i+1)) TSC cycles),
# client and server. A port whose device cannot map DMA refuses --zc (exit
# status 2, one line): the table says so instead of a number. Nothing in
# this script is a measured figure: all it prints comes from the run.
set -euo pipefail

usage() { sed -n '/^# Usage/,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "txlayout-hw.sh: error: $*" >&2; exit 2; }

SRC=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${UST_BUILD:-$SRC/build}
SPCI="" CPCI="" MLX5=0 PEER="" RBUILD=""
SL=2 CL=4 SADDR=198.18.1.2 CADDR=198.18.1.1
CONNS=250 SIZE=1024 SECS=5 WARM=1 REPS=1 OUT=""
while [ $# -gt 0 ]; do
	case $1 in
	--server-pci) SPCI=${2:?}; shift ;;
	--client-pci) CPCI=${2:?}; shift ;;
	--mlx5) MLX5=1 ;;
	--peer-host) PEER=${2:?}; shift ;;
	--server-lcores) SL=${2:?}; shift ;;
	--client-lcores) CL=${2:?}; shift ;;
	--server-addr) SADDR=${2:?}; shift ;;
	--client-addr) CADDR=${2:?}; shift ;;
	--conns) CONNS=${2:?}; shift ;;
	--size) SIZE=${2:?}; shift ;;
	--secs) SECS=${2:?}; shift ;;
	--warmup) WARM=${2:?}; shift ;;
	--reps) REPS=${2:?}; shift ;;
	--build) BUILD=${2:?}; shift ;;
	--remote-build) RBUILD=${2:?}; shift ;;
	--out) OUT=${2:?}; shift ;;
	--help|-h) usage; exit 0 ;;
	*) die "unknown option '$1' (try --help)" ;;
	esac
	shift
done
[ -n "$SPCI" ] || die "missing --server-pci"
[ -n "$CPCI" ] || die "missing --client-pci"
[ "$(id -u)" = 0 ] || die "run as root"
[[ $SECS =~ ^[0-9]+$ ]] || die "--secs $SECS: expected whole seconds"
RBUILD=${RBUILD:-$BUILD}
PERF=$BUILD/apps/ust-perf
RPERF=$RBUILD/apps/ust-perf
[ -x "$PERF" ] || die "$PERF: not built (meson setup and ninja first)"
OUT=${OUT:-$(mktemp -d /tmp/ust-bench.XXXXXX)}
mkdir -p "$OUT"
RDIR=/tmp/ust-txl-hw.$$

# run CMD... on the server's host
on_server() {
	if [ -n "$PEER" ]; then
		ssh -o BatchMode=yes "$PEER" "$(printf '%q ' "$@")"
	else
		"$@"
	fi
}

# the ports: present, and on vfio-pci unless mlx5
check_port() { # where pci
	local drv
	drv=$(on_server_or_here "$1" readlink "/sys/bus/pci/devices/$2/driver" ||
	      true)
	[ -n "$drv" ] || die "$2: no such PCI device, or no driver bound"
	drv=$(basename "$drv")
	if [ "$MLX5" = 1 ]; then
		[ "$drv" = mlx5_core ] ||
			die "$2: driver $drv, --mlx5 expects mlx5_core"
	else
		[ "$drv" = vfio-pci ] ||
			die "$2: bound to $drv: bind it to vfio-pci (dpdk-devbind.py -b vfio-pci $2), or give --mlx5 for mlx5 ports"
	fi
}
on_server_or_here() { # server|client cmd...
	local w=$1
	shift
	if [ "$w" = server ]; then on_server "$@"; else "$@"; fi
}
check_port server "$SPCI"
check_port client "$CPCI"
if [ -n "$PEER" ]; then
	on_server test -x "$RPERF" || die "$PEER: $RPERF: not built"
	on_server mkdir -p "$RDIR"
else
	mkdir -p "$RDIR"
fi

RUNS=$OUT/runs.tsv
: > "$RUNS"

# run_pair TAG POLICY [flags both ends get...]: one tcp-rr pair; a line
# of $RUNS: policy, status, client JSON, server JSON, message
run_pair() {
	local tag=$1 pol=$2
	shift 2
	local sjson=$RDIR/$tag.s.json cjson=$OUT/$tag.c.json rc=0 srv msg
	local scmd=("$RPERF" -l "$SL" -a "$SPCI${DEVARGS:+,$DEVARGS}" --file-prefix "txs$tag-$$" --
		--mode tcp-rr --role server --addr "$SADDR/24" --size "$SIZE"
		--response "$SIZE" --duration "$SECS" --warmup "$WARM"
		--stats-period 0 --json "$sjson" "$@")
	local ccmd=("$PERF" -l "$CL" -a "$CPCI${DEVARGS:+,$DEVARGS}" --file-prefix "txc$tag-$$" --
		--mode tcp-rr --role client --addr "$CADDR/24" --peer "$SADDR"
		--conns "$CONNS" --size "$SIZE" --response "$SIZE"
		--duration "$SECS" --warmup "$WARM" --stats-period 0
		--json "$cjson" "$@")
	echo "\$ ${PEER:+ssh $PEER }${scmd[*]} &"
	echo "\$ ${ccmd[*]}"
	# (the server's pid in a file, for a SIGINT should it hang)
	# shellcheck disable=SC2016
	on_server sh -c 'echo $$ > "$0"; exec "$@"' "$RDIR/$tag.pid" \
		"${scmd[@]}" > "$OUT/$tag.server" 2>&1 &
	srv=$!
	for _ in $(seq 1 400); do
		grep -qs "tcp-rr server, port\|error:\|zero copy refused" \
			"$OUT/$tag.server" && break
		kill -0 $srv 2>/dev/null || break
		sleep 0.05
	done
	"${ccmd[@]}" > "$OUT/$tag.client" 2>&1 || rc=$?
	# the server ends when the client's connections are closed
	for _ in $(seq 1 $(((SECS + 30) * 10))); do
		kill -0 $srv 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 $srv 2>/dev/null; then
		# shellcheck disable=SC2016
		on_server sh -c 'kill -INT "$(cat "$0")"' "$RDIR/$tag.pid" ||
			true
	fi
	wait $srv || rc=$((rc == 0 ? $? : rc))
	msg=$(grep -h "zero copy refused\|error:" "$OUT/$tag.client" \
		"$OUT/$tag.server" 2>/dev/null | head -1 || true)
	if [ "$rc" = 0 ]; then
		on_server cat "$sjson" > "$OUT/$tag.s.json"
		printf '%s\tok\t%s\t%s\t\n' "$pol" "$cjson" "$OUT/$tag.s.json" \
			>> "$RUNS"
	else
		echo "!! $tag: exit status $rc${msg:+: $msg}"
		printf '%s\texit %s\t\t\t%s\n' "$pol" "$rc" "$msg" >> "$RUNS"
	fi
}

POL=("linear|--tx-layout linear"
     "chained|--tx-layout chained"
     "first-linear|--tx-layout first-linear"
     "linear + copy-small 128|--tx-layout linear --copy-small 128"
     "chained + copy-small 256|--tx-layout chained --copy-small 256"
     "zero copy, map per send|--tx-layout chained --zc --zc-map per-send"
     "zero copy, map once|--tx-layout chained --zc --zc-map once")
# mlx5: the hardware form of copy-small, the PMD's inline data (enabled
# only with txqs_min_inline queues, 8 by default: 0 here), as a devarg
# after the policy's flags (doc/tx-layout.md)
if [ "$MLX5" = 1 ]; then
	POL+=("linear, mlx5 inline 128|--tx-layout linear|txqs_min_inline=0,txq_inline_max=128"
	      "chained, mlx5 inline 256|--tx-layout chained|txqs_min_inline=0,txq_inline_max=256"
	      "chained, no inline|--tx-layout chained|txq_inline_max=0")
fi
# what the IOMMU does here: the table is labelled with it
iommu_state() {
	local groups
	groups=$(on_server_or_here "$1" sh -c 'ls /sys/kernel/iommu_groups 2>/dev/null | wc -l')
	echo "$1: $(on_server_or_here "$1" cat /proc/cmdline | tr ' ' '\n' |
		{ grep -E 'iommu' || echo 'no iommu option'; } | tr '\n' ' ')(${groups} IOMMU groups)"
}
echo "== IOMMU: $(iommu_state server); $(iommu_state client)"
n=0
for rep in $(seq 1 "$REPS"); do
	echo "== repetition $rep of $REPS"
	for p in "${POL[@]}"; do
		n=$((n + 1))
		flags=${p#*|}
		DEVARGS=""
		if [[ $flags == *"|"* ]]; then
			DEVARGS=${flags#*|}
			flags=${flags%%|*}
		fi
		# shellcheck disable=SC2086
		run_pair "hw$n" "${p%%|*}" $flags
	done
done
if [ -n "$PEER" ]; then
	on_server rm -rf "$RDIR"
else
	rm -rf "$RDIR"
fi

/usr/bin/python3 - "$RUNS" "$REPS" "$SECS" "$CONNS" "$SIZE" <<'PYEOF'
import json, statistics, sys
runs, reps, secs, conns, size = sys.argv[1:6]
order, rows, bad = [], {}, {}
for line in open(runs):
    pol, st, cj, sj, msg = line.rstrip("\n").split("\t")
    if pol not in rows:
        order.append(pol)
        rows[pol] = []
    if st != "ok":
        bad.setdefault(pol, []).append(f"{st}: {msg}" if msg else st)
        continue
    rows[pol].append((json.load(open(cj)), json.load(open(sj))))

def med(pol, f):
    v = [f(c, s) for c, s in rows[pol]]
    return statistics.median(v) if v else None

def fmt(v, spec):
    return "n/a" if v is None else format(v, spec)

def per(a, b):
    return a / b if b else 0.0

R = lambda j: j["result"]
print()
print(f"ust-perf tcp-rr, {conns} connections, {size}-byte requests and "
      f"responses, {secs} s measured, median of {reps} run(s)")
print()
print("| policy | transactions/s | ratio to linear | segs/pkt | pages/pkt | "
      "bytes copied/txn | cycles/txn client (busy / loop) | cycles/txn "
      "server (busy / loop) | p99 (us) | DMA maps/txn (client, server) | "
      "DMA unmaps/txn | cycles per map / unmap (client) |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
base = med("linear", lambda c, s: R(c)["transactions_per_s"]) \
    if "linear" in rows else None
for pol in order:
    if not rows[pol]:
        print(f"| {pol} | refused or failed: {'; '.join(bad[pol])} "
              "| | | | | | | | | | |")
        continue
    tps = med(pol, lambda c, s: R(c)["transactions_per_s"])
    tx = lambda j: R(j)["tcp_tx"]
    txn = lambda j: R(j)["transactions"]
    note = f" ({len(bad[pol])} failed)" if pol in bad else ""
    print(f"| {pol}{note} | {fmt(tps, '.0f')} | "
          f"{fmt(tps / base if base else None, '.3f')} | "
          f"{fmt(med(pol, lambda c, s: R(c)['segs_per_pkt']), '.3f')} | "
          f"{fmt(med(pol, lambda c, s: R(c)['pages_per_pkt']), '.3f')} | "
          f"{fmt(med(pol, lambda c, s: R(c)['copied_bytes_per_txn']), '.1f')} | "
          f"{fmt(med(pol, lambda c, s: R(c)['cycles_per_txn']), '.0f')} / "
          f"{fmt(med(pol, lambda c, s: R(c)['loop_cycles_per_txn']), '.0f')} | "
          f"{fmt(med(pol, lambda c, s: R(s)['cycles_per_txn']), '.0f')} / "
          f"{fmt(med(pol, lambda c, s: R(s)['loop_cycles_per_txn']), '.0f')} | "
          f"{fmt(med(pol, lambda c, s: R(c)['latency_ns']['p99'] / 1e3), '.1f')} | "
          f"{fmt(med(pol, lambda c, s: per(tx(c)['dma_maps'], txn(c))), '.2f')}, "
          f"{fmt(med(pol, lambda c, s: per(tx(s)['dma_maps'], txn(s))), '.2f')} | "
          f"{fmt(med(pol, lambda c, s: per(tx(c)['dma_unmaps'], txn(c))), '.2f')}, "
          f"{fmt(med(pol, lambda c, s: per(tx(s)['dma_unmaps'], txn(s))), '.2f')} | "
          f"{fmt(med(pol, lambda c, s: per(tx(c)['dma_map_cycles'], tx(c)['dma_maps'])), '.0f')} / "
          f"{fmt(med(pol, lambda c, s: per(tx(c)['dma_unmap_cycles'], tx(c)['dma_unmaps'])), '.0f')} |")

# the DMA cycle histograms of the zero-copy runs (the first run of each)
for pol in order:
    if not pol.startswith("zero copy") or not rows[pol]:
        continue
    c, s = rows[pol][0]
    print()
    print(f"{pol}: cycles per DMA map / unmap call, measured interval, "
          f"first run (map failures: client "
          f"{R(c)['tcp_tx']['dma_map_fail']}, server "
          f"{R(s)['tcp_tx']['dma_map_fail']})")
    print()
    print("| cycles | client maps | client unmaps | server maps | "
          "server unmaps |")
    print("|---|---|---|---|---|")
    h = [R(c)["tcp_tx"]["map_hist"], R(c)["tcp_tx"]["unmap_hist"],
         R(s)["tcp_tx"]["map_hist"], R(s)["tcp_tx"]["unmap_hist"]]
    for i in range(len(h[0])):
        if not any(x[i] for x in h):
            continue
        lo = f"{2 ** i}-{2 ** (i + 1) - 1}" if i + 1 < len(h[0]) \
            else f">= {2 ** i}"
        print(f"| {lo} | " + " | ".join(str(x[i]) for x in h) + " |")
PYEOF
echo
echo "logs and JSON in $OUT"
