#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# ust-echo on net_af_packet over a veth pair: ping and UDP echo byte-exact
# from the kernel on the other end of the veth.
. "$(dirname "$0")/lib.sh"
require_root
command -v ethtool >/dev/null || fail "ethtool is not installed"
ns_create
nsx ip link add ustva type veth peer name ustvb
nsx ip addr add 198.18.0.1/24 dev ustvb
# the AF_PACKET PMD of DPDK 22.11 does not report the kernel's
# CHECKSUM_PARTIAL packets (TP_STATUS_CSUMNOTREADY): the peer must fill in
# its checksums (doc/pmd-profiles.md)
nsx ethtool -K ustvb tx off >/dev/null
nsx ip link set ustva up
nsx ip link set ustvb up
nsenter --net="/var/run/netns/$NS" "$ECHO_BIN" -l 0 --no-pci $(eal_mem 256) \
	--file-prefix "afp-$$" --vdev net_af_packet0,iface=ustva -- \
	--addr 198.18.0.2/24 --port 7 --json "$WORK/echo.json" \
	> "$WORK/echo.log" 2>&1 &
ECHO_PID=$!
PIDS+=("$ECHO_PID")
for i in $(seq 1 100); do
	grep -qs serving "$WORK/echo.log" && break
	sleep 0.05
done
out=$(nsx ping -c 5 -i 0.1 -W 1 198.18.0.2) || fail "ping: $out"
nsx "$PY" "$(dirname "$0")/udp_echo_check.py" 198.18.0.2 7 500 11 1 1472 ||
	fail "echo check"
stop "$ECHO_PID"
check_json_sane "$WORK/echo.json" || fail "server accounting"
[ "$(json_get "$WORK/echo.json" 'j["port"]["driver"]')" = net_af_packet ] ||
	fail "not the af_packet PMD"
log "af_packet: ping and 500 datagrams echoed byte-exact, no leak"
