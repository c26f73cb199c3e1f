#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# Sourced by the README's two commands (ust-demo.sh, ust-test.sh): install
# what is missing from Debian's packages, build, reserve hugepages (or fall
# back to --no-huge). Needs root on a fresh Debian 12 machine.

set -euo pipefail

UST_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
UST_BUILD=${UST_BUILD:-$UST_SRC/build}
# the sanitizer build of ust-test.sh (meson option sanitizers)
UST_BUILD_ASAN=${UST_BUILD_ASAN:-$UST_BUILD-asan}
export UST_SRC UST_BUILD UST_BUILD_ASAN

# Debian 12 packages: build (DPDK 22.11, meson, ninja, numa), test peers
# (iputils-ping, iperf2, scapy, socat, nftables), the fuzzers (clang with
# libFuzzer), tools the tests call (iproute2, util-linux's nsenter), and
# the bound-NIC test bed (tests/vm: QEMU, debootstrap, mkfs.ext4 -d).
UST_PACKAGES="build-essential pkg-config meson ninja-build libdpdk-dev dpdk
dpdk-dev libnuma-dev libjansson-dev libsystemd-dev make python3 python3-scapy iputils-ping iperf socat
sockperf nftables tcpdump iproute2 util-linux ethtool clang
libclang-rt-14-dev qemu-system-x86 debootstrap e2fsprogs bison flex"

ust_need_root() {
	if [ "$(id -u)" != 0 ]; then
		echo "$(basename "$0"): run as root (it installs packages, reserves" \
		     "hugepages and creates network namespaces)" >&2
		exit 2
	fi
}

ust_install_deps() {
	local missing=() p
	for p in $UST_PACKAGES; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -qs "install ok installed" || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "== installing: ${missing[*]}"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq
		apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
	fi
}

ust_build() {
	echo "== building in $UST_BUILD"
	if [ ! -f "$UST_BUILD/build.ninja" ]; then
		meson setup "$UST_BUILD" "$UST_SRC" >/dev/null
	fi
	ninja -C "$UST_BUILD" >/dev/null
}

# Reserve 2 MB hugepages and mount hugetlbfs with DPDK's own
# dpdk-hugepages.py (never fewer pages than are reserved already); export
# UST_EAL_MEM with the EAL memory flags the tests and demos use (--no-huge
# when none can be had: then no secondary process, dpdk-dumpcap or
# dpdk-proc-info, can attach to them).
ust_hugepages() {
	local want=${1:-1024} nr free
	local f=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
	nr=$(cat "$f" 2>/dev/null || echo 0)
	if [ "$nr" -lt "$want" ]; then
		/usr/bin/python3 /usr/bin/dpdk-hugepages.py -p 2M \
			-r "$((want * 2))M" 2>/dev/null || true
	fi
	if ! grep -qs "hugetlbfs" /proc/mounts; then
		/usr/bin/python3 /usr/bin/dpdk-hugepages.py -m 2>/dev/null || true
	fi
	free=$(awk '/HugePages_Free/ {print $2}' /proc/meminfo)
	if grep -qs hugetlbfs /proc/mounts && [ "${free:-0}" -ge 512 ]; then
		export UST_EAL_MEM="-m 256"
		echo "== hugepages: $free free 2 MB pages"
	else
		export UST_EAL_MEM="--no-huge -m 512"
		echo "== hugepages: none available, running with --no-huge"
	fi
}
