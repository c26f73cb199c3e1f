#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# Run one command in the bound-NIC test bed (doc/testbed.md): a QEMU guest
# (TCG; q35 with an emulated Intel IOMMU, DMA remapping on, strict) whose
# test NIC is bound to vfio-pci, its other end a TAP in a network
# namespace of this host. Prints the command's output and exits with its
# exit status.
#
#   tests/vm/run.sh [options] -- COMMAND [ARG...]
#
#   --nic e1000e|virtio  the test NIC: e1000e (DPDK's net_e1000_em) or
#                        virtio-net-pci (net_virtio, modern, behind the
#                        IOMMU: iommu_platform=on; two queue pairs with
#                        RSS: mq=on,rss=on, the TAP multi_queue)
#                        (default: e1000e)
#   --ns NAME            run QEMU in this existing network namespace, the
#                        NIC's other end the TAP --tap in it (made here if
#                        missing); default: a namespace made for the run,
#                        with the TAP at 198.18.0.1/24, deleted at the end
#   --tap NAME           (default: ustvm0)
#   --share DIR          the folder shared with the guest read-write at
#                        /ust/share, the command's working folder: logs,
#                        JSON, results (default: a new one, kept)
#   --build DIR          the build (default: $UST_BUILD, or build/), and
#   --src DIR            the source tree (default: this one): shared
#                        read-only, at the same paths as here
#   --mem MB             guest memory (default: 2048; 768 MB of it
#                        hugepages)
#   --smp N              guest CPUs (default: 2)
#   --timeout S          kill the guest after S seconds (default: 900)
#   --iommu-opts OPTS    QEMU intel-iommu options (default:
#                        intremap=on,caching-mode=on,aw-bits=48)
#   --append ARGS        more guest kernel arguments (e.g. iommu.strict=0)
#
# In the guest COMMAND runs as root in /ust/share with UST_PCI (the NIC's
# PCI address, bound to vfio-pci), UST_NIC, UST_EAL_MEM (EAL memory
# flags), UST_SRC, UST_BUILD and UST_SHARE in its environment; e.g.
#   tests/vm/run.sh -- sh -c '$UST_BUILD/apps/ust-perf -l 1 -a $UST_PCI ...'
# The guest image is built (or taken from the cache) by mkimage.sh. The
# share also gets console.log (the guest's serial console) and
# guest-info.txt (IOMMU, binding). Exit status: the command's; 124 if the
# guest timed out, 125 if it did not get to run the command.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
BUILD=${UST_BUILD:-$SRC/build}
NIC=e1000e NS="" TAP=ustvm0 SHARE="" MEM=2048 SMP=2 TIMEOUT=900
IOMMU_OPTS="intremap=on,caching-mode=on,aw-bits=48"
APPEND=""
die() { echo "run.sh: error: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--nic) NIC=${2:?}; shift ;;
	--ns) NS=${2:?}; shift ;;
	--tap) TAP=${2:?}; shift ;;
	--share) SHARE=${2:?}; shift ;;
	--build) BUILD=${2:?}; shift ;;
	--src) SRC=${2:?}; shift ;;
	--mem) MEM=${2:?}; shift ;;
	--smp) SMP=${2:?}; shift ;;
	--timeout) TIMEOUT=${2:?}; shift ;;
	--iommu-opts) IOMMU_OPTS=${2:?}; shift ;;
	--append) APPEND=${2:?}; shift ;;
	--help|-h) sed -n '/^# Run one/,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	--) shift; break ;;
	*) die "unknown option '$1' (try --help)" ;;
	esac
	shift
done
[ $# -gt 0 ] || die "no command (after --)"
[ "$(id -u)" = 0 ] || die "run as root (network namespaces, TAP)"
# virtio: two queue pairs with the device's RSS (VIRTIO_NET_F_RSS; QEMU
# hashes in software when it cannot load its eBPF program), over a
# multi-queue TAP: a guest that configures one queue pair uses one
TAPMODE="" NETQ=""
case $NIC in
e1000e) NICDEV="e1000e" ;;
virtio) NICDEV="virtio-net-pci,disable-legacy=on,iommu_platform=on,mq=on,rss=on,vectors=6"
	TAPMODE=multi_queue NETQ=",queues=2" ;;
*) die "--nic $NIC: expected e1000e or virtio" ;;
esac
QEMU=$(command -v qemu-system-x86_64) ||
	{ echo "run.sh: FAIL: qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)" >&2; exit 1; }
BUILD=$(cd "$BUILD" && pwd)
SRC=$(cd "$SRC" && pwd)

IMG=$("$HERE/mkimage.sh" | tail -1) || exit 1
SHARE=${SHARE:-$(mktemp -d /tmp/ust-vm.XXXXXX)}
mkdir -p "$SHARE"
SHARE=$(cd "$SHARE" && pwd)
rm -f "$SHARE/cmd.rc" "$SHARE/cmd.out" "$SHARE/console.log"
cp "$HERE/guest-init.sh" "$SHARE/guest-init.sh"
printf 'UST_NIC=%q\nUST_SRC=%q\nUST_BUILD=%q\n' "$NIC" "$SRC" "$BUILD" \
	> "$SHARE/vm.env"
{
	echo "# the command of tests/vm/run.sh"
	printf '%q ' "$@"
	echo
} > "$SHARE/cmd.sh"

OWN_NS=0
if [ -z "$NS" ]; then
	NS=ust-vm-$$
	OWN_NS=1
	ip netns add "$NS"
	ip -n "$NS" link set lo up
fi
QPID=""
cleanup() {
	if [ -n "$QPID" ] && kill -0 "$QPID" 2>/dev/null; then
		kill -TERM "$QPID" 2>/dev/null || true
		sleep 1
		kill -KILL "$QPID" 2>/dev/null || true
	fi
	if [ "$OWN_NS" = 1 ]; then
		ip netns del "$NS" 2>/dev/null || true
	fi
}
trap cleanup EXIT
if ! ip -n "$NS" link show "$TAP" >/dev/null 2>&1; then
	ip -n "$NS" tuntap add dev "$TAP" mode tap $TAPMODE
	if [ "$OWN_NS" = 1 ]; then
		ip -n "$NS" addr add 198.18.0.1/24 dev "$TAP"
	fi
	ip -n "$NS" link set "$TAP" up
fi

KARGS="root=/dev/vda rw console=ttyS0 init=/sbin/ust-init panic=-1"
KARGS+=" intel_iommu=on iommu.strict=1 hugepages=384 loglevel=4"
KARGS+=" net.ifnames=0 ${APPEND}"
QARGS=(-accel tcg -cpu max -smp "$SMP" -m "$MEM"
	-M q35,kernel-irqchip=split
	-device "intel-iommu,$IOMMU_OPTS"
	-nodefaults -no-user-config -display none -no-reboot
	-serial "file:$SHARE/console.log"
	-kernel "$IMG/vmlinuz" -initrd "$IMG/initrd.img" -append "$KARGS"
	-drive "file=$IMG/rootfs.ext4,if=virtio,format=raw,snapshot=on"
	-virtfs "local,path=$SHARE,mount_tag=ustshare,security_model=none,id=fs0"
	-virtfs "local,path=$SRC,mount_tag=ustsrc,security_model=none,readonly=on,id=fs1"
	-virtfs "local,path=$BUILD,mount_tag=ustbuild,security_model=none,readonly=on,id=fs2"
	-netdev "tap,id=n0,ifname=$TAP,script=no,downscript=no$NETQ"
	-device "$NICDEV,netdev=n0,mac=52:54:00:5e:00:02")
echo "run.sh: $NIC guest, image $IMG, share $SHARE, namespace $NS" >&2
echo "run.sh: \$ ip netns exec $NS $QEMU ${QARGS[*]}" > "$SHARE/qemu.cmd"
t0=$(date +%s)
# nsenter execs QEMU itself: the PID we wait for and signal is QEMU's
nsenter --net="/var/run/netns/$NS" "$QEMU" "${QARGS[@]}" \
	> "$SHARE/qemu.log" 2>&1 &
QPID=$!
rc=0
timeout_hit=0
while kill -0 "$QPID" 2>/dev/null; do
	if [ $(($(date +%s) - t0)) -ge "$TIMEOUT" ]; then
		timeout_hit=1
		break
	fi
	sleep 0.5
done
if [ "$timeout_hit" = 1 ]; then
	echo "run.sh: FAIL: the guest did not end within $TIMEOUT s; console tail:" >&2
	tail -n 30 "$SHARE/console.log" >&2 || true
	[ -f "$SHARE/cmd.out" ] && cat "$SHARE/cmd.out"
	exit 124
fi
wait "$QPID" || rc=$?
QPID=""
echo "run.sh: guest ran $(($(date +%s) - t0)) s (QEMU exit status $rc)" >&2
[ -f "$SHARE/cmd.out" ] && cat "$SHARE/cmd.out"
if [ ! -f "$SHARE/cmd.rc" ]; then
	echo "run.sh: FAIL: the guest did not run the command; QEMU said:" >&2
	tail -n 20 "$SHARE/qemu.log" >&2 || true
	echo "run.sh: console tail:" >&2
	tail -n 40 "$SHARE/console.log" >&2 || true
	exit 125
fi
exit "$(cat "$SHARE/cmd.rc")"
