#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# The bound-NIC tests (suite vm; doc/testbed.md): one boot of the QEMU
# guest (tests/vm/run.sh) with the NIC profile given (e1000e: net_e1000_em;
# virtio: net_virtio), the NIC bound to vfio-pci behind the guest's
# emulated Intel IOMMU (strict), ustack on it, and the host kernel as the
# peer in a network namespace this test makes and deletes (198.18.0.1;
# ustack 198.18.0.2). The guest runs tests/vm/guest-tests.sh; this side
# serves its requests (ping, kernel clients) and then checks each step's
# results: ping and UDP echo byte-exact, TCP echo byte-exact both ways,
# ust-perf tcp-rr's JSON, zero copy with per-send DMA mapping through VFIO
# (bytes checked by the kernel, maps = unmaps, histograms of their
# cycles), and the TX layout table; on virtio (two queue pairs, the
# device's RSS), two stacks on two lcores: a server whose stacks both
# accept, and a client whose connections all land on their own stack
# (steered by the key and RETA read back: no handoff).
#   tests/vm/vm_test.sh e1000e|virtio [STEP...]
# Fails (does not skip) when the guest image cannot be built; skips (77)
# only without root. UST_KEEP_LOGS=1 keeps the share (logs, JSON).
NIC=${1:?usage: vm_test.sh e1000e|virtio [STEP...]}
shift
HERE=$(cd "$(dirname "$0")" && pwd)
# the integration tests' helpers: log, fail, require_root, the work folder,
# the namespace, the cleanup of both and of the PIDS started
. "$HERE/../integration/lib.sh"
export UST_SRC UST_BUILD
TEST=vm_$NIC
TAP=ustvm0
SHARE=$WORK/share
mkdir -p "$SHARE"
# the guest runs the host's dpdk-dumpcap (the same DPDK is in its image)
mkdir -p "$SHARE/bin"
cp "$(command -v dpdk-dumpcap)" "$SHARE/bin/" 2>/dev/null || true
require_root
command -v qemu-system-x86_64 >/dev/null ||
	fail "qemu-system-x86_64 is not installed: apt-get install qemu-system-x86 (devtools/ust-test.sh installs it)"
trap cleanup EXIT

t_start=$(date +%s)
# the image first: a failure to build it is this test's failure
"$HERE/mkimage.sh" > "$WORK/image.log" || {
	cat "$WORK/image.log"
	fail "no guest image: the bound-NIC tests cannot run"
}
log "guest image: $(tail -1 "$WORK/image.log") ($(($(date +%s) - t_start)) s)"
# every shared library the apps (and the host's dpdk-dumpcap, which the
# dumpcap step runs there) need is in the image: one missing (a new DPDK
# library not added to mkimage.sh's PKGS) would fail every step with
# "error while loading shared libraries"
IMGDIR=$(tail -1 "$WORK/image.log")
if command -v debugfs >/dev/null; then
	have=$(for d in /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu; do
		debugfs -R "ls -p $d" "$IMGDIR/rootfs.ext4" 2>/dev/null
	done | tr '/' '\n' | sort -u)
	missing=$(for b in "$UST_BUILD/apps/ust-echo" "$UST_BUILD/apps/ust-perf" \
			 "$(command -v dpdk-dumpcap || true)"; do
		[ -x "$b" ] && objdump -p "$b" | awk '/NEEDED/ {print $2}'
	done | sort -u | while read -r l; do
		grep -qx "$l" <<< "$have" || echo "$l"
	done)
	[ -z "$missing" ] || fail "the guest image lacks $(echo $missing): add their packages to tests/vm/mkimage.sh's PKGS"
fi

ns_create
# virtio has two queue pairs (run.sh): its TAP has two queues too
nsx ip tuntap add dev "$TAP" mode tap $([ "$NIC" = virtio ] && echo multi_queue)
nsx ip addr add 198.18.0.1/24 dev "$TAP"
nsx ip -6 addr add 2001:2::1/64 dev "$TAP" nodad
nsx ip link set "$TAP" up

# the kernel's servers: TCP echo (7), the pattern checker (9000)
nsenter --net="/var/run/netns/$NS" "$PY" "$UST_SRC/tests/integration/tcp_peer.py" \
	echo-server 7 > "$WORK/kecho.log" 2>&1 &
PIDS+=("$!")
nsenter --net="/var/run/netns/$NS" "$PY" "$HERE/pattern_sink.py" 9000 \
	"$WORK/sink.jsonl" > "$WORK/ksink.log" 2>&1 &
PIDS+=("$!")
for _ in $(seq 1 100); do
	[ "$(cat "$WORK/kecho.log" "$WORK/ksink.log" | grep -c ready)" = 2 ] && break
	sleep 0.05
done

# the host's parts of the guest's steps
host_ping() {
	nsx ping -c 10 -i 0.2 -W 3 198.18.0.2 &&
	nsx ping -c 3 -i 0.2 -W 3 -s 1400 198.18.0.2 || return 1
	# IPv6 through the NIC's multicast filter (the kernel's NS goes to
	# ustack's solicited-node group; DAD takes a second first), then
	# fragmented both ways
	local i
	for i in $(seq 1 30); do
		nsx ping -6 -c 1 -W 1 2001:2::2 >/dev/null 2>&1 && break
		sleep 0.2
	done
	nsx ping -6 -c 10 -i 0.2 -W 3 2001:2::2 &&
	nsx ping -6 -c 3 -i 0.2 -W 3 -s 4000 2001:2::2
}
host_udp() {
	nsx "$PY" "$UST_SRC/tests/integration/udp_echo_check.py" 198.18.0.2 7 \
		300 2026 1 1472 &&
	# the same dual-stack socket over IPv6 (the NIC's checksum offload
	# for IPv6; above 1452 bytes fragmented both ways)
	nsx "$PY" "$UST_SRC/tests/integration/udp_echo_check.py" 2001:2::2 7 \
		100 2027 1 8000
}
host_tcp_in() {
	nsx "$PY" "$UST_SRC/tests/integration/tcp_peer.py" stream 198.18.0.2 7 \
		$((2 << 20)) 2026 &&
	nsx "$PY" "$UST_SRC/tests/integration/tcp_peer.py" short 198.18.0.2 7 \
		20 1000
}
host_dumpcap() {
	nsx ping -c 3 -i 0.2 -W 2 198.18.0.2 &&
	nsx "$PY" "$UST_SRC/tests/integration/tcp_peer.py" short 198.18.0.2 7 \
		3 100
}
# the capture dpdk-dumpcap made in the guest: ARP, ICMP echo both ways, a
# TCP handshake and data both ways, read back with tcpdump
dumpcap_check() {
	local f=$R/dumpcap.pcapng t=$WORK/dumpcap.txt
	tcpdump -nn -r "$f" > "$t" 2>"$WORK/dumpcap.err" ||
		{ cat "$WORK/dumpcap.err"; return 1; }
	grep -Eq "ARP, (Request|Reply)" "$t" &&
	grep -Eq "198\.18\.0\.1 > 198\.18\.0\.2: ICMP echo request" "$t" &&
	grep -Eq "198\.18\.0\.2 > 198\.18\.0\.1: ICMP echo reply" "$t" &&
	grep -Eq "198\.18\.0\.1\.[0-9]+ > 198\.18\.0\.2\.7: Flags \[S\]" "$t" &&
	grep -Eq "198\.18\.0\.2\.7 > 198\.18\.0\.1\.[0-9]+: Flags \[S\.\]" "$t" &&
	grep -Eq "198\.18\.0\.2\.7 > 198\.18\.0\.1\.[0-9]+: Flags \[P\.\].*length [1-9]" "$t" || {
		echo "the capture lacks a kind of frame:"; head -40 "$t"; return 1; }
	log "dumpcap: $(wc -l < "$t") frames captured in the guest, ARP, ICMP and TCP both ways"
}
host_mq_in() {
	# 40 connections from the kernel's random source ports: both
	# queues get some through the device's hash
	nsx "$PY" "$UST_SRC/tests/integration/tcp_peer.py" stream 198.18.0.2 7 \
		$((1 << 20)) 2027 &&
	nsx "$PY" "$UST_SRC/tests/integration/tcp_peer.py" short 198.18.0.2 7 \
		40 1000
}
host_sink() {
	# the guest's connections have ended: their lines are written
	for _ in $(seq 1 50); do
		[ "$(wc -l < "$WORK/sink.jsonl" 2>/dev/null || echo 0)" -ge 2 ] &&
			break
		sleep 0.2
	done
	cat "$WORK/sink.jsonl"
	[ -s "$WORK/sink.jsonl" ]
}

log "booting the $NIC guest (TCG); steps: ${*:-all}"
"$HERE/run.sh" --nic "$NIC" --ns "$NS" --tap "$TAP" --share "$SHARE" \
	--build "$UST_BUILD" --src "$UST_SRC" --timeout "${UST_VM_TIMEOUT:-900}" \
	-- bash "$UST_SRC/tests/vm/guest-tests.sh" "$@" > "$WORK/guest.out" 2>&1 &
VM=$!
PIDS+=("$VM")
mkdir -p "$SHARE/req" "$SHARE/done"
while kill -0 "$VM" 2>/dev/null; do
	for r in "$SHARE"/req/*; do
		[ -e "$r" ] || continue
		n=$(basename "$r")
		[ -e "$SHARE/done/$n" ] && continue
		rc=0
		"host_$n" > "$WORK/host_$n.log" 2>&1 || rc=$?
		sed "s/^/  host $n: /" "$WORK/host_$n.log"
		echo "$rc" > "$SHARE/done/.$n"
		mv "$SHARE/done/.$n" "$SHARE/done/$n"
	done
	sleep 0.2
done
vrc=0
wait "$VM" || vrc=$?
cat "$WORK/guest.out"
t_end=$(date +%s)
log "guest run ended with status $vrc, $((t_end - t_start)) s since the start"
[ -f "$SHARE/guest-info.txt" ] && sed 's/^/  guest: /' "$SHARE/guest-info.txt"
[ "$vrc" = 124 ] && fail "the guest timed out"
[ "$vrc" = 125 ] && fail "the guest did not get to run its steps"

# ---- the checks, step by step ----
R=$SHARE/res
DEFAULT_STEPS="ping_udp tcp_out tcp_in perf_rr zc_stream zc_rr table dumpcap"
[ "$NIC" = virtio ] && DEFAULT_STEPS+=" mq_in mq_out"
STEPS="${*:-$DEFAULT_STEPS}"
FAILS=()
check() { # STEP: its rc file says 0, and the python checks below hold
	local s=$1
	shift
	if [ ! -f "$R/$s.rc" ]; then
		FAILS+=("$s: did not run")
		return
	fi
	if [ "$(cat "$R/$s.rc")" != 0 ]; then
		FAILS+=("$s: exit status $(cat "$R/$s.rc") in the guest")
		return
	fi
	if [ $# -gt 0 ] && ! "$@"; then
		FAILS+=("$s: $*")
		return
	fi
	log "$s: ok ($(cat "$R/$s.secs" 2>/dev/null || echo '?') s)"
}
# results: check_results.py STEP
res() { "$PY" "$HERE/check_results.py" "$R" "$WORK/sink.jsonl" "$1"; }
for s in ping_udp tcp_out tcp_in perf_rr zc_stream zc_rr mq_in mq_out; do
	case " $STEPS " in *" $s "*) check "$s" res "$s" ;; esac
done
case " $STEPS " in *" table "*) check table true ;; esac
case " $STEPS " in *" dumpcap "*) check dumpcap dumpcap_check ;; esac
if [ -f "$R/table.log" ]; then
	echo
	sed -n '/^ust-perf tcp-rr against/,$p' "$R/table.log"
fi
log "total $(($(date +%s) - t_start)) s"
if [ ${#FAILS[@]} -gt 0 ]; then
	printf '[%s] FAIL: %s\n' "$TEST" "${FAILS[@]}" >&2
	exit 1
fi
log "all steps passed on $NIC bound to vfio-pci"
