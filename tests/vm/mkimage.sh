#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# The bound-NIC test bed's guest image (doc/testbed.md): a Debian 12
# minbase root made by debootstrap from Debian's mirror with the kernel,
# kmod, udev, pciutils, python3 and DPDK's runtime (dpdk-devbind.py and
# the e1000 and virtio PMDs), written into an ext4 image with mkfs.ext4 -d,
# and the kernel and initrd taken from it. Its PID 1 is a small stub
# (/sbin/ust-init) that mounts the run's 9p share and runs the
# guest-init.sh found there, so that the image holds nothing of the
# project and is rebuilt only when its inputs change: this script, the
# suite, the mirror and the package list. It is cached in
# $UST_VM_CACHE (default /var/cache/ustack-vm), in a folder named by the
# hash of those inputs; other folders there are removed.
#
#   tests/vm/mkimage.sh            build if missing; print the folder
#   tests/vm/mkimage.sh --check    the same, as a test: say what happened
#   tests/vm/mkimage.sh --rebuild  build again even if cached
#
# Exit status 0 with the folder (vmlinuz, initrd.img, rootfs.ext4) on the
# last line of stdout; 1 with the reason when it cannot be built (no
# network to the mirror, debootstrap missing...); 77 when not root.
set -euo pipefail

SUITE=${UST_VM_SUITE:-bookworm}
MIRROR=${UST_VM_MIRROR:-http://deb.debian.org/debian}
CACHE=${UST_VM_CACHE:-/var/cache/ustack-vm}
PKGS="linux-image-amd64 kmod udev pciutils python3 dpdk librte-net-e1000-23
librte-net-virtio23 librte-mempool-ring23 librte-cfgfile23 librte-hash23
librte-pdump23 librte-pcapng23 librte-bpf23 librte-ip-frag23 libjansson4
libnuma1 libfdt1 libbsd0 iproute2 procps"
MODE=build
case ${1:-} in
--check) MODE=check ;;
--rebuild) MODE=rebuild ;;
"") ;;
*) echo "usage: $0 [--check|--rebuild]" >&2; exit 2 ;;
esac

say() { echo "vm image: $*" >&2; }
die() {
	echo "vm image: FAIL: $*" >&2
	echo "vm image: the guest image cannot be built, so the bound-NIC" \
	     "tests (suite vm) cannot run: they fail, they are not skipped" >&2
	exit 1
}

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: the vm image needs root (debootstrap, chroot)"
	exit 77
fi
command -v debootstrap >/dev/null ||
	die "debootstrap is not installed (apt-get install debootstrap, or run devtools/ust-test.sh which installs it)"
command -v mkfs.ext4 >/dev/null || die "mkfs.ext4 is not installed (e2fsprogs)"

KEY=$( { cat "$0"; echo "$SUITE $MIRROR"; echo $PKGS; } | sha256sum |
	cut -c1-16)
DIR=$CACHE/$KEY
mkdir -p "$CACHE"
exec 9> "$CACHE/.lock"
flock 9
if [ "$MODE" != rebuild ] && [ -f "$DIR/ok" ]; then
	say "cached in $DIR (inputs hash $KEY, built $(cat "$DIR/ok"))"
	echo "$DIR"
	exit 0
fi

t0=$(date +%s)
rm -rf "$DIR" "$DIR.tmp"
mkdir -p "$DIR.tmp"
ROOT=$DIR.tmp/root
LOG=$DIR.tmp/debootstrap.log
say "building in $DIR (inputs hash $KEY): debootstrap $SUITE from $MIRROR"
# shellcheck disable=SC2086
if ! debootstrap --variant=minbase --include="$(echo $PKGS | tr ' ' ,)" \
	"$SUITE" "$ROOT" "$MIRROR" > "$LOG" 2>&1; then
	tail -n 25 "$LOG" >&2
	rm -rf "$ROOT"
	die "debootstrap $SUITE from $MIRROR failed (is the mirror reachable? the log's end is above; the whole log: $LOG)"
fi
KVER=$(ls "$ROOT/lib/modules" | sort -V | tail -1)
[ -n "$KVER" ] && [ -f "$ROOT/boot/vmlinuz-$KVER" ] &&
	[ -f "$ROOT/boot/initrd.img-$KVER" ] ||
	die "no kernel or initrd in the root (/boot: $(ls "$ROOT/boot" | tr '\n' ' '))"
[ -x "$ROOT/usr/bin/dpdk-devbind.py" ] || [ -x "$ROOT/usr/sbin/dpdk-devbind.py" ] ||
	die "dpdk-devbind.py is not in the root"

# PID 1: mount the run's share and hand over to its guest-init.sh
cat > "$ROOT/sbin/ust-init" <<'INIT'
#!/bin/sh
# ustack test bed guest stub (tests/vm/mkimage.sh): mount the run's share,
# run its guest-init.sh; power off if that is impossible.
PATH=/usr/sbin:/usr/bin:/sbin:/bin
export PATH
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
modprobe 9pnet_virtio 2>/dev/null
modprobe 9p 2>/dev/null
mkdir -p /ust/share
if mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 ustshare /ust/share &&
   [ -f /ust/share/guest-init.sh ]; then
	exec /bin/bash /ust/share/guest-init.sh
fi
echo "ust-init: no share with a guest-init.sh" > /dev/console
echo o > /proc/sysrq-trigger
sleep 10
INIT
chmod 755 "$ROOT/sbin/ust-init"
echo ustvm > "$ROOT/etc/hostname"
# smaller image, faster mkfs: what a VM with an e1000e and virtio needs
# stays; graphics, sound, wireless, media, infiniband and the like go
for d in drivers/gpu drivers/media drivers/net/wireless drivers/infiniband \
	 drivers/staging drivers/iio drivers/input/touchscreen sound \
	 drivers/bluetooth net/bluetooth drivers/isdn drivers/scsi/qla2xxx \
	 drivers/scsi/lpfc drivers/net/ethernet/mellanox \
	 drivers/net/ethernet/broadcom drivers/net/ethernet/chelsio; do
	rm -rf "$ROOT/lib/modules/$KVER/kernel/$d"
done
chroot "$ROOT" depmod -a "$KVER" 2>/dev/null || true
rm -rf "$ROOT"/var/cache/apt/archives/*.deb "$ROOT"/var/lib/apt/lists/* \
	"$ROOT"/usr/share/doc "$ROOT"/usr/share/man "$ROOT"/usr/share/locale
cp "$ROOT/boot/vmlinuz-$KVER" "$DIR.tmp/vmlinuz"
cp "$ROOT/boot/initrd.img-$KVER" "$DIR.tmp/initrd.img"
size=$(du -sm "$ROOT" | cut -f1)
if ! mkfs.ext4 -q -F -L ustroot -E root_owner=0:0 -d "$ROOT" \
	"$DIR.tmp/rootfs.ext4" "$((size + 512))M" > "$DIR.tmp/mkfs.log" 2>&1; then
	cat "$DIR.tmp/mkfs.log" >&2
	die "mkfs.ext4 -d failed"
fi
{
	echo "suite $SUITE, mirror $MIRROR, kernel $KVER"
	chroot "$ROOT" dpkg-query -W dpdk librte-eal23 2>/dev/null || true
} > "$DIR.tmp/manifest"
rm -rf "$ROOT"
date -u +%FT%TZ > "$DIR.tmp/ok"
mv "$DIR.tmp" "$DIR"
# older images (other inputs) go
for d in "$CACHE"/*; do
	[ -d "$d" ] && [ "$d" != "$DIR" ] && rm -rf "$d"
done
say "built in $(($(date +%s) - t0)) s: $(tr '\n' ' ' < "$DIR/manifest")"
echo "$DIR"
