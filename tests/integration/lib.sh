#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# Shared by the integration tests: root check (exit 77 = skipped for meson),
# EAL memory flags (hugepages when the runner reserved them, --no-huge
# otherwise), a network namespace per test that is deleted on exit, and
# ust-echo started on a TAP port inside it with the kernel on the other
# side. Test traffic uses 198.18.0.0/15 (RFC 2544) inside the namespace.

set -euo pipefail

UST_BUILD=${UST_BUILD:-$(cd "$(dirname "$0")/../../build" && pwd)}
UST_SRC=${UST_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
ECHO_BIN=$UST_BUILD/apps/ust-echo
PERF_BIN=$UST_BUILD/apps/ust-perf
PY=/usr/bin/python3
TEST=$(basename "$0" .sh)
WORK=$(mktemp -d "/tmp/ust-$TEST.XXXXXX")
NS=ust-$$-${TEST:0:6}
PIDS=()

log() { printf '[%s] %s\n' "$TEST" "$*"; }
fail() { printf '[%s] FAIL: %s\n' "$TEST" "$*" >&2; exit 1; }

require_root() {
	if [ "$(id -u)" != 0 ]; then
		echo "SKIP: $TEST needs root (network namespaces and TAP devices)"
		exit 77
	fi
}

# EAL memory flags: reserved hugepages if there are enough free, else none
eal_mem() {
	local need_mb=${1:-256}
	if [ -n "${UST_EAL_MEM:-}" ]; then
		echo "$UST_EAL_MEM"
		return
	fi
	local free size
	free=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
	size=$(awk '/Hugepagesize/ {print $2}' /proc/meminfo)
	if grep -qs hugetlbfs /proc/mounts &&
	   [ $((free * size / 1024)) -ge $((need_mb * 2)) ]; then
		echo "-m $need_mb"
	else
		echo "--no-huge -m $need_mb"
	fi
}

cleanup() {
	local p
	for p in "${PIDS[@]:-}"; do
		[ -n "$p" ] && kill -TERM "$p" 2>/dev/null || true
	done
	sleep 0.3
	for p in "${PIDS[@]:-}"; do
		[ -n "$p" ] && kill -KILL "$p" 2>/dev/null || true
	done
	ip netns del "$NS" 2>/dev/null || true
	if [ "${UST_KEEP_LOGS:-0}" = 1 ]; then
		echo "logs kept in $WORK"
	else
		rm -rf "$WORK"
	fi
}

ns_create() {
	ip netns add "$NS"
	ip netns exec "$NS" ip link set lo up
	trap cleanup EXIT
}

nsx() { ip netns exec "$NS" "$@"; }

# wait_iface IFACE: the TAP a DPDK process creates inside the namespace
wait_iface() {
	local i
	for i in $(seq 1 200); do
		nsx ip link show "$1" >/dev/null 2>&1 && return 0
		sleep 0.05
	done
	fail "interface $1 did not appear"
}

# start_echo_tap NAME IFACE [ust-echo options...]: ust-echo on net_tap in
# the namespace; the kernel side gets 198.18.0.1/24. Sets ECHO_PID.
start_echo_tap() { # NAME IFACE APP-FLAGS... (ECHO_EAL_EXTRA: EAL flags)
	local name=$1 iface=$2
	shift 2
	# nsenter execs the program itself (ip netns exec forks), so that
	# the PID we signal is ust-echo's
	# shellcheck disable=SC2086 # ECHO_EAL_EXTRA: more EAL flags
	nsenter --net="/var/run/netns/$NS" "$ECHO_BIN" -l 0 --no-pci \
		$(eal_mem 256) --file-prefix "$name-$$" ${ECHO_EAL_EXTRA:-} \
		--vdev "net_tap0,iface=$iface" -- "$@" \
		> "$WORK/$name.log" 2>&1 &
	ECHO_PID=$!
	PIDS+=("$ECHO_PID")
	wait_iface "$iface"
	nsx ip addr add 198.18.0.1/24 dev "$iface"
	nsx ip link set "$iface" up
	# the server prints this line once its socket is bound
	local i
	for i in $(seq 1 200); do
		grep -qs "serving\|transactions" "$WORK/$name.log" 2>/dev/null && return 0
		kill -0 "$ECHO_PID" 2>/dev/null || { cat "$WORK/$name.log"; fail "$name died at start"; }
		sleep 0.05
	done
	cat "$WORK/$name.log"
	fail "$name did not start"
}

# stop PID: SIGTERM and wait; the exit status must be 0
stop() {
	local pid=$1 rc=0
	kill -TERM "$pid"
	wait "$pid" || rc=$?
	[ "$rc" = 0 ] || fail "process $pid exited with $rc"
}

# json_get FILE EXPR: a value from a JSON file (python expression on j)
json_get() {
	"$PY" -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"
}

# check_json_sane FILE: no leak, and every received frame consumed or
# dropped with exactly one reason
check_json_sane() {
	local f=$1
	"$PY" - "$f" <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1]))
start, end = j["mbuf_in_use_start"], j["mbuf_in_use_end"]
if start != end:
    sys.exit(f"mbuf leak: {start} in use at start, {end} at end")
inframes = j["counters"]["Eth"]["InFrames"]
dropped = j["rx_drops"]
if inframes != j["rx_consumed"] + dropped:
    sys.exit(f"conservation: {inframes} frames in, {j['rx_consumed']} "
             f"consumed + {dropped} dropped")
if j["udp_mem"]["pages"] != 0:
    sys.exit(f"UDP pool holds {j['udp_mem']['pages']} pages at exit")
PYEOF
}

# nft_loss IFACE PERCENT [TABLE [NETNS]]: drop that share of the frames the
# kernel receives from IFACE, at random (nftables numgen in the input hook;
# this kernel has no netem), in nftables table TABLE (ustloss) of namespace
# NETNS (the test's). Only the receiving side can lose a frame as a wire
# would: a drop in the sender's own output hook is an error the sending
# kernel sees, and it keeps the segment and sends it again later, without
# any loss recovery. The other direction's losses are ust-echo's:
# --fault "drop=PERCENT%" (LOSS_FAULT below) in front of its stack.
nft_loss() {
	local iface=$1 pct=$2 table=${3:-ustloss} netns=${4:-$NS}
	ip netns exec "$netns" nft -f - <<NFT
table inet $table {
	chain in {
		type filter hook input priority 0; policy accept;
		iifname "$iface" numgen random mod 100 < $pct drop
	}
}
NFT
}

# LOSS (percent, 0 when unset) as ust-echo options: the array LOSS_FAULT,
# a seeded fault stage dropping that share of what ust-echo receives
LOSS_FAULT=()
if [ "${LOSS:-0}" != 0 ]; then
	LOSS_FAULT=(--fault "drop=${LOSS}%,seed=$$")
fi

# TX layout of the TCP data segments from the environment: TX_LAYOUT
# (linear, chained, first-linear) and COPY_SMALL (bytes) become ust-echo's
# --tx-layout and --copy-small, in the array TXL (empty: the defaults)
TXL=()
if [ -n "${TX_LAYOUT:-}" ]; then
	TXL+=(--tx-layout "$TX_LAYOUT")
fi
if [ -n "${COPY_SMALL:-}" ]; then
	TXL+=(--copy-small "$COPY_SMALL")
fi

# check_tcp_tx FILE LAYOUT: the JSON's tcp_tx counters show LAYOUT in
# effect for the data this process sent: linear: no chained packet and one
# segment per packet (copy-small packets are single-segment too); chained:
# chained packets, more segments than packets; first-linear: data packets
# were built, of either kind
check_tcp_tx() {
	"$PY" - "$1" "$2" <<'PYEOF'
import json, sys
t = json.load(open(sys.argv[1]))["tcp_tx"]
lay = sys.argv[2]
info = (f"pkts {t['pkts']} segs {t['segs']} data {t['data_pkts']} linear "
        f"{t['linear_pkts']} chained {t['chained_pkts']} small "
        f"{t['small_pkts']} zc {t['zc_pkts']}")
if t["data_pkts"] == 0:
    sys.exit(f"{lay}: no data packet built ({info})")
if lay == "linear":
    if t["chained_pkts"] != 0 or t["segs"] != t["pkts"]:
        sys.exit(f"linear: chained packets or multi-segment packets ({info})")
elif lay == "chained":
    if t["chained_pkts"] == 0 or t["segs"] <= t["pkts"]:
        sys.exit(f"chained: no chained packet ({info})")
elif lay == "first-linear":
    if t["linear_pkts"] + t["chained_pkts"] + t["small_pkts"] == 0:
        sys.exit(f"first-linear: no data packet counted ({info})")
print(f"tcp_tx {lay}: {info}")
PYEOF
}

# check_stacks FILE: the JSON of a 2-stack ust-echo (--nb-cores 2): per
# stack, every frame consumed or dropped once; what was handed over
# arrived (HandoffOut == HandoffIn less the ARP copies); one line a stack
check_stacks() {
	"$PY" - "$1" <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1]))
if j["nb_stacks"] != 2 or len(j["stacks"]) != 2:
    sys.exit(f"nb_stacks {j['nb_stacks']}, {len(j['stacks'])} stacks")
for s in j["stacks"]:
    c = s["counters"]
    if c["Eth"]["InFrames"] != s["rx_consumed"] + s["rx_drops"]:
        sys.exit(f"stack {s['index']}: {c['Eth']['InFrames']} frames in, "
                 f"{s['rx_consumed']} consumed + {s['rx_drops']} dropped")
    print(f"stack {s['index']} (lcore {s['lcore']}): InFrames "
          f"{c['Eth']['InFrames']} PassiveOpens {c['Tcp']['PassiveOpens']} "
          f"InDatagrams {c['Udp']['InDatagrams']} HandoffOut "
          f"{c['Group']['HandoffOut']} HandoffIn {c['Group']['HandoffIn']}")
g = j["counters"]["Group"]
if g["HandoffOut"] != g["HandoffIn"] - g["ArpCopies"]:
    sys.exit(f"HandoffOut {g['HandoffOut']}, HandoffIn {g['HandoffIn']} "
             f"(of which ARP copies {g['ArpCopies']})")
PYEOF
}
