#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# The guest's side of tests/vm/vm_test.sh, run in one boot by
# tests/vm/run.sh (UST_PCI bound to vfio-pci; the host kernel at
# 198.18.0.1 in the test namespace, ustack at 198.18.0.2). Each step
# writes res/STEP.log, res/STEP.json and res/STEP.rc to the share; the
# host checks them after the guest is off. A step that needs the host to
# act (ping, a kernel client) writes req/NAME and waits for done/NAME
# (the host's exit status). Steps (all by default):
#   ping_udp   ust-echo UDP server, IPv6 on; the host pings it (ping6 too,
#              through the NIC's multicast filter, and fragmented) and
#              sends datagrams
#              of random sizes that must come back byte-exact
#   tcp_out    ust-echo TCP client: a 2 MiB random file echoed by the
#              kernel (tcp_peer.py echo-server, port 7), sha256 compared
#   tcp_in     ust-echo TCP echo server; the kernel streams 2 MiB of seeded
#              data through it (sha256) and makes 20 short connections
#   perf_rr    ust-perf tcp-rr against the kernel echo server: its JSON
#   zc_stream  ust-perf tcp-stream --zc --zc-map per-send --verify to the
#              kernel's pattern checker (port 9000)
#   zc_rr      ust-perf tcp-rr --zc --zc-map per-send --verify against the
#              kernel echo server: every echoed byte checked
#   table      tests/vm/txlayout-kernel.sh: the TX layout table
#   mq_in      (virtio: 2 queue pairs, RSS) ust-echo TCP echo server on 2
#              lcores (--nb-cores 2); the kernel streams 1 MiB through it
#              and makes 40 short connections: both stacks accept some
#   mq_out     ust-echo tcp-client on 2 lcores, 8 connections to the
#              kernel's echo server: each on the stack its reply hashes
#              to (no handoff)
#   dumpcap    ust-echo TCP echo server with hugepages (the guest has
#              them); dpdk-dumpcap (the host's binary, from the share: the
#              guest has the same DPDK) attaches as a secondary process
#              while the host pings and echoes over TCP; the pcapng file is
#              read back on the host (issue 14's capture)
# Exit status: the number of steps that failed here.
set -u
S=${UST_SHARE:?}
R=$S/res
mkdir -p "$R" "$S/req" "$S/done"
ECHO=$UST_BUILD/apps/ust-echo
PERF=$UST_BUILD/apps/ust-perf
ADDR=198.18.0.2/24
PEER=198.18.0.1
STEPS=("$@")
if [ ${#STEPS[@]} -eq 0 ]; then
	STEPS=(ping_udp tcp_out tcp_in perf_rr zc_stream zc_rr table dumpcap)
	[ "${UST_NIC:-}" = virtio ] && STEPS+=(mq_in mq_out)
fi
FAILED=0

eal() { echo "-l 1 -a $UST_PCI $UST_EAL_MEM --file-prefix $1"; }
# two lcores, for two stacks on two queue pairs
eal2() { echo "-l 0-1 -a $UST_PCI $UST_EAL_MEM --file-prefix $1"; }

# A TX ring of 64 descriptors: e1000 (em) and virtio have no
# tx_done_cleanup in DPDK 22.11 and free transmitted mbufs only as their
# ring turns over; with 64 they hold at most 64, fewer than the zero-copy
# buffers, which then never run out (and fewer than VFIO's 256 user maps).
CONF=$R/port.ini
printf '[port]\ntx_desc = %s\n' "${UST_VM_TX_DESC:-64}" > "$CONF"

# host_do NAME [SECONDS]: ask the host to run its part NAME; its status
host_do() {
	local n=$1 i
	: > "$S/req/$n"
	for i in $(seq 1 $((${2:-300} * 5))); do
		if [ -f "$S/done/$n" ]; then
			return "$(cat "$S/done/$n")"
		fi
		sleep 0.2
	done
	echo "the host did not answer request $n"
	return 1
}

# wait_for PATTERN FILE PID: until FILE has PATTERN (120 s)
wait_for() {
	local i
	for i in $(seq 1 1200); do
		grep -qs "$1" "$2" && return 0
		kill -0 "$3" 2>/dev/null || { echo "process $3 died at start:"; cat "$2"; return 1; }
		sleep 0.1
	done
	echo "timed out waiting for '$1' in $2"
	return 1
}

# stop_wait PID: SIGTERM, its exit status
stop_wait() {
	local rc=0
	kill -TERM "$1" 2>/dev/null
	wait "$1" || rc=$?
	return $rc
}

step_ping_udp() {
	local pid rc=0
	$ECHO $(eal ping) -- --config "$CONF" --addr $ADDR --addr6 2001:2::2/64 --port 7 --json "$R/ping_udp.json" \
		> "$R/ping_udp.app.log" 2>&1 &
	pid=$!
	wait_for serving "$R/ping_udp.app.log" $pid || return 1
	grep -E "^port|IOVA" "$R/ping_udp.app.log"
	host_do ping 120 || { echo "host: ping failed"; rc=1; }
	host_do udp 300 || { echo "host: UDP echo check failed"; rc=1; }
	stop_wait $pid || { echo "ust-echo exited with $?"; rc=1; }
	return $rc
}

step_tcp_out() {
	local rc=0 a b
	head -c $((2 << 20)) /dev/urandom > /tmp/in.bin
	$ECHO $(eal tcpout) -- --config "$CONF" --mode client --addr $ADDR --peer $PEER \
		--proto tcp --port 7 --stream /tmp/in.bin --stream-out /tmp/out.bin \
		--duration 300 --json "$R/tcp_out.json" > "$R/tcp_out.app.log" 2>&1 || rc=$?
	grep -E "^port|stream" "$R/tcp_out.app.log"
	[ "$rc" = 0 ] || { echo "ust-echo client exited with $rc"; tail -5 "$R/tcp_out.app.log"; return 1; }
	a=$(sha256sum < /tmp/in.bin | cut -d' ' -f1)
	b=$(sha256sum < /tmp/out.bin | cut -d' ' -f1)
	echo "sha256 sent $a, echoed $b ($(stat -c %s /tmp/out.bin) bytes back)"
	rm -f /tmp/in.bin /tmp/out.bin
	[ "$a" = "$b" ]
}

step_tcp_in() {
	local pid rc=0
	$ECHO $(eal tcpin) -- --config "$CONF" --addr $ADDR --proto tcp --port 7 \
		--json "$R/tcp_in.json" > "$R/tcp_in.app.log" 2>&1 &
	pid=$!
	wait_for serving "$R/tcp_in.app.log" $pid || return 1
	host_do tcp_in 300 || { echo "host: TCP stream/short through ust-echo failed"; rc=1; }
	stop_wait $pid || { echo "ust-echo exited with $?"; rc=1; }
	return $rc
}

# perf NAME MODE ARGS...: one ust-perf client run, JSON res/NAME.json
perf() {
	local name=$1 mode=$2 rc=0
	shift 2
	$PERF $(eal "$name") -- --config "$CONF" --mode "$mode" --role client --addr $ADDR \
		--peer $PEER --stats-period 0 --json "$R/$name.json" "$@" \
		> "$R/$name.app.log" 2>&1 || rc=$?
	grep -E "^port|IOVA|^transactions|^latency|^bytes|^tx layout|^zero copy|^verify|^ust-perf: --zc|refused|error" \
		"$R/$name.app.log"
	return $rc
}

step_dumpcap() {
	local pid cap i rc=0
	[ -x "$S/bin/dpdk-dumpcap" ] || { echo "no dpdk-dumpcap in the share"; return 1; }
	$ECHO $(eal dcap) -- --config "$CONF" --addr $ADDR --proto tcp --port 7 \
		--json "$R/dumpcap.json" > "$R/dumpcap.app.log" 2>&1 &
	pid=$!
	wait_for serving "$R/dumpcap.app.log" $pid || return 1
	if grep -q "warning" "$R/dumpcap.app.log"; then
		echo "ust-echo warns:"; grep warning "$R/dumpcap.app.log"; rc=1
	fi
	"$S/bin/dpdk-dumpcap" --file-prefix=dcap -i 0 -w "$R/dumpcap.pcapng" -q \
		> "$R/dumpcap.tool.log" 2>&1 &
	cap=$!
	# attached once it has written the file's section header
	for i in $(seq 1 150); do
		[ -s "$R/dumpcap.pcapng" ] && break
		kill -0 $cap 2>/dev/null || break
		sleep 0.2
	done
	if [ ! -s "$R/dumpcap.pcapng" ]; then
		echo "dpdk-dumpcap did not start:"; cat "$R/dumpcap.tool.log"
		kill -INT $cap 2>/dev/null; stop_wait $pid; return 1
	fi
	sleep 0.5
	host_do dumpcap 120 || { echo "host: ping and TCP echo failed"; rc=1; }
	sleep 0.5
	kill -INT $cap
	wait $cap || true
	cat "$R/dumpcap.tool.log"
	stop_wait $pid || { echo "ust-echo exited with $?"; rc=1; }
	return $rc
}

step_mq_in() {
	local pid rc=0
	$ECHO $(eal2 mqin) -- --config "$CONF" --addr $ADDR --proto tcp --port 7 \
		--nb-cores 2 --json "$R/mq_in.json" > "$R/mq_in.app.log" 2>&1 &
	pid=$!
	wait_for serving "$R/mq_in.app.log" $pid || return 1
	grep -E "^port|RSS|rss" "$R/mq_in.app.log"
	host_do mq_in 300 || { echo "host: TCP stream/short through ust-echo failed"; rc=1; }
	stop_wait $pid || { echo "ust-echo exited with $?"; rc=1; }
	grep -E "^stack" "$R/mq_in.app.log"
	return $rc
}

step_mq_out() {
	local rc=0
	$ECHO $(eal2 mqout) -- --config "$CONF" --mode client --proto tcp --addr $ADDR \
		--peer $PEER --port 7 --flows 8 --nb-cores 2 --duration 3 --warmup 0.5 \
		--json "$R/mq_out.json" > "$R/mq_out.app.log" 2>&1 || rc=$?
	grep -E "^port|RSS|rss|^stack|transactions" "$R/mq_out.app.log"
	[ "$rc" = 0 ] || { echo "ust-echo client exited with $rc"; tail -5 "$R/mq_out.app.log"; return 1; }
}

step_perf_rr() {
	perf perf_rr tcp-rr --port 7 --conns 4 --size 64 --duration 3 --warmup 0.5
}

step_zc_stream() {
	perf zc_stream tcp-stream --port 9000 --conns 2 --size 16384 \
		--duration 3 --warmup 0.5 --tx-layout chained --zc \
		--zc-map per-send --zc-bufs 32 --verify || return 1
	# the kernel's checker: what it received, checked against the pattern
	host_do sink 60
}

step_zc_rr() {
	perf zc_rr tcp-rr --port 7 --conns 4 --size 1024 --duration 3 \
		--warmup 0.5 --tx-layout chained --zc --zc-map per-send \
		--zc-bufs 128 --verify
}

step_table() {
	local label=()
	# in the test bed's guest; elsewhere the script says what IOMMU it found
	if grep -qs QEMU /sys/class/dmi/id/sys_vendor; then
		label=(--label "emulated IOMMU (QEMU intel-iommu, TCG): not hardware figures; $UST_NIC")
	fi
	bash "$UST_SRC/tests/vm/txlayout-kernel.sh" --pci "$UST_PCI" \
		--lcores 1 --config "$CONF" --addr $ADDR --peer $PEER --port 7 \
		--conns "${UST_VM_TABLE_CONNS:-4}" --size 1024 \
		--secs "${UST_VM_TABLE_SECS:-3}" --warmup 0.5 --out "$R/table" \
		${label[@]+"${label[@]}"}
}

for s in "${STEPS[@]}"; do
	t0=$(date +%s.%N)
	echo "== $s"
	rc=0
	"step_$s" > "$R/$s.log" 2>&1 || rc=$?
	cat "$R/$s.log"
	echo "$rc" > "$R/$s.rc"
	awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", b - a }' \
		> "$R/$s.secs"
	echo "== $s: exit status $rc, $(cat "$R/$s.secs") s"
	[ "$rc" = 0 ] || FAILED=$((FAILED + 1))
done
exit $FAILED
