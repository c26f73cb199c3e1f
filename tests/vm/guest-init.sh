#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# The test bed guest's PID 1 (after the image's stub /sbin/ust-init has
# mounted the share at /ust/share; doc/testbed.md). It mounts the host's
# source and build folders read-only at the same paths as on the host,
# reserves hugepages, binds the test NIC to vfio-pci with dpdk-devbind.py,
# runs the share's cmd.sh with UST_PCI, UST_NIC, UST_EAL_MEM, UST_SRC,
# UST_BUILD and UST_SHARE set, its output to the share's cmd.out (and the
# console), its exit status to cmd.rc, and powers off. What it learnt of
# the IOMMU goes to the share's guest-info.txt.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8
S=/ust/share
# shellcheck disable=SC1091
. $S/vm.env

con() { echo "guest: $*" > /dev/console; }
finish() {
	sync
	umount -a -t 9p 2>/dev/null
	con "powering off"
	echo b > /proc/sysrq-trigger
	sleep 30
}
fail_early() {
	con "FAIL: $*"
	echo "guest: FAIL: $*" >> $S/cmd.out
	echo 125 > $S/cmd.rc.tmp && mv $S/cmd.rc.tmp $S/cmd.rc
	finish
}
trap finish EXIT

mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mkdir -p /dev/pts /dev/shm /dev/hugepages
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t hugetlbfs nodev /dev/hugepages
hostname ustvm
ip link set lo up 2>/dev/null
for v in UST_SRC UST_BUILD; do
	p=${!v}
	mkdir -p "$p"
	tag=ustsrc
	[ "$v" = UST_BUILD ] && tag=ustbuild
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,ro "$tag" "$p" ||
		fail_early "cannot mount the host's $v ($p)"
done

# the test NIC: the one network device of the guest
case $UST_NIC in
e1000e) ids="8086:10d3" ;;
virtio) ids="1af4:1041 1af4:1000" ;;
*) fail_early "unknown NIC profile $UST_NIC" ;;
esac
UST_PCI=""
for id in $ids; do
	UST_PCI=$(lspci -Dn -d "$id" | awk 'NR == 1 {print $1}')
	[ -n "$UST_PCI" ] && break
done
[ -n "$UST_PCI" ] || fail_early "no $UST_NIC device ($ids) in lspci: $(lspci -Dn | tr '\n' ';')"
modprobe vfio-pci && modprobe vfio_iommu_type1 || fail_early "modprobe vfio-pci failed"
DEVBIND=$(command -v dpdk-devbind.py) || fail_early "no dpdk-devbind.py"
if ! "$DEVBIND" -b vfio-pci "$UST_PCI" > $S/devbind.log 2>&1; then
	fail_early "dpdk-devbind.py -b vfio-pci $UST_PCI: $(cat $S/devbind.log)"
fi
{
	echo "kernel: $(uname -r); cmdline: $(cat /proc/cmdline)"
	echo "nic: $UST_NIC at $UST_PCI, driver $(basename "$(readlink /sys/bus/pci/devices/$UST_PCI/driver)")"
	echo "iommu groups: $(ls /sys/kernel/iommu_groups | wc -l); the NIC's: $(basename "$(readlink /sys/bus/pci/devices/$UST_PCI/iommu_group)")"
	cap=$(cat /sys/bus/pci/devices/$UST_PCI/iommu/intel-iommu/cap 2>/dev/null || true)
	if [ -n "$cap" ]; then
		# VT-d capability: MGAW (bits 21:16) + 1 is the guest address width
		echo "intel-iommu cap $cap: address width $(( ((0x$cap >> 16) & 0x3f) + 1 )) bits"
	fi
	echo "iommu domain type: $(cat /sys/kernel/iommu_groups/*/type 2>/dev/null | sort | uniq -c | tr '\n' ' ')"
	dmesg | grep -iE "DMAR|iommu" | grep -viE "ignoring|bus:" | head -12
	dpkg-query -W dpdk 2>/dev/null
	"$DEVBIND" -s 2>/dev/null | grep -E "^[0-9a-f]{4}:" | head
} > $S/guest-info.txt 2>&1
con "$UST_NIC at $UST_PCI bound to vfio-pci; running cmd.sh"

export UST_PCI UST_NIC UST_SRC UST_BUILD UST_SHARE=$S
export UST_EAL_MEM="-m 256"
cd $S || fail_early "cannot enter $S"
set -o pipefail
rc=0
bash $S/cmd.sh 2>&1 | tee $S/cmd.out > /dev/console || rc=$?
echo $rc > $S/cmd.rc.tmp
mv $S/cmd.rc.tmp $S/cmd.rc
con "cmd.sh exited with $rc"
