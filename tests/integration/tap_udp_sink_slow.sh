#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# An iperf2 flood from the kernel over TAP into a slow ust-perf udp-sink,
# run to completion and split: rmem_alloc never above rcvbuf plus one
# datagram's truesize, the overflow counted as RcvbufErrors, every frame
# accounted for, and the UDP pool back at zero pages afterwards.
. "$(dirname "$0")/lib.sh"
require_root
command -v iperf >/dev/null || fail "iperf (iperf2) is not installed"
ns_create

run_sink() {
	local name=$1 lcores=$2
	shift 2
	nsenter --net="/var/run/netns/$NS" "$PERF_BIN" -l "$lcores" --no-pci \
		$(eal_mem 256) --file-prefix "$name-$$" \
		--vdev "net_tap0,iface=ust$name" -- --mode udp-sink \
		--addr 198.18.0.2/24 --port 5001 --duration 4 --warmup 0.5 \
		--stats-period 0 --rcvbuf 16384 --read-delay 20000 \
		--json "$WORK/$name.json" "$@" > "$WORK/$name.log" 2>&1 &
	local pid=$!
	PIDS+=("$pid")
	wait_iface "ust$name"
	nsx ip addr add 198.18.0.1/24 dev "ust$name"
	nsx ip link set "ust$name" up
	nsx timeout 20 iperf -u -c 198.18.0.2 -p 5001 -b 10G -l 64 -t 3 \
		> "$WORK/iperf-$name.log" 2>&1 || true
	local rc=0
	wait "$pid" || rc=$?
	[ "$rc" = 0 ] || { cat "$WORK/$name.log"; fail "$name exited with $rc"; }
	nsx ip link del "ust$name" 2>/dev/null || true
	check_json_sane "$WORK/$name.json" || fail "$name accounting"
	"$PY" - "$WORK/$name.json" <<'PYEOF' || fail "$name: memory bounds"
import json, sys
j = json.load(open(sys.argv[1]))
s, r = j["socket"], j["result"]
t = j["mbuf_truesize"]
print(f"  rcvbuf {s['rcvbuf']}, rmem_alloc high water {s['rmem_alloc_high_water']}"
      f" (bound {s['rcvbuf'] + t}), delivered {r['delivered']}, rcvbuf drops "
      f"{r['rcvbuf_drops']}, pool pages now {j['udp_mem']['pages']}")
if s["rmem_alloc_high_water"] > s["rcvbuf"] + t:
    sys.exit("rmem_alloc went above rcvbuf + one datagram")
if r["rcvbuf_drops"] == 0:
    sys.exit("a slow reader under a flood must overflow its rcvbuf")
if j["counters"]["Udp"]["RcvbufErrors"] < r["rcvbuf_drops"]:
    sys.exit("RcvbufErrors does not count the drops")
if s["queued"] != 0 or s["rmem_alloc"] != 0:
    sys.exit("datagrams left queued after the drain")
PYEOF
}

run_sink rtc 0
run_sink split 0,1 --split
log "slow reader bounded by rcvbuf, drops counted, pool back to zero (both deployments)"
