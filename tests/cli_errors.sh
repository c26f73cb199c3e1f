#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# Every bad flag and configuration of issue 9 item 8, against the built
# ust-echo and ust-perf: exit status 2 and one line on stderr naming the
# problem. The apps check their arguments before rte_eal_init(): no EAL,
# no root, no device, no namespace.
set -uo pipefail
build=${UST_BUILD:?UST_BUILD not set}
echo_bin=$build/apps/ust-echo
perf_bin=$build/apps/ust-perf
work=$(mktemp -d /tmp/ust-cli.XXXXXX)
trap 'rm -rf "$work"' EXIT
failed=0 n=0

# expect NEEDLE PROGRAM ARGS...: status 2, one stderr line containing NEEDLE
expect() {
	local needle=$1 rc lines
	shift
	n=$((n + 1))
	timeout 10 "$@" </dev/null >"$work/out" 2>"$work/err"
	rc=$?
	lines=$(wc -l <"$work/err")
	if [ "$rc" != 2 ] || [ "$lines" != 1 ] ||
	   ! grep -qF -- "$needle" "$work/err"; then
		echo "FAIL: $(basename "$1") ${*:2}: status $rc, $lines lines:" \
		     "$(head -c 300 "$work/err") (wanted \"$needle\")"
		failed=$((failed + 1))
	else
		echo "ok   $(basename "$1") ${*:2}: $(cat "$work/err")"
	fi
}

A="--addr 198.18.0.2/24"
cli="--mode client --peer 198.18.0.1"
printf '[tcp]\nsack = 1\n[tcp]\nsack = 7\n' >"$work/dup.ini"
printf '[tcp]\nrto_min_ms = 5000\nrto_max_ms = 1000\n' >"$work/rto.ini"
{
	printf '[arp]\nstatic = '
	for i in $(seq 100 107); do printf '198.18.0.%d=02:00:00:00:00:%02x, ' "$i" "$i"; done
	printf '198.18.0.108=02:00:00:00:00:6c\n'
} >"$work/long.ini"
{
	printf '[arp]\nstatic = '
	for i in $(seq 100 109); do printf '198.18.0.%d=02:00:00:00:00:%02x, ' "$i" "$i"; done
	printf '198.18.0.110=02:00:00:00:00:6e\n'
} >"$work/longer.ini"
printf '[ip]\naddr = 198.18.0.255/24\n' >"$work/bcast.ini"
head -c $((1024 * 1024 + 1)) /dev/zero | tr '\0' ';' >"$work/big.ini"

for app in "$echo_bin" "$perf_bin"; do
	m=""
	[ "$app" = "$perf_bin" ] && m="--mode udp-flood"
	expect "section given twice" "$app" $m $A --config "$work/dup.ini"
	expect "[tcp] rto_min_ms: 5000 exceeds rto_max_ms 1000" "$app" $m $A --config "$work/rto.ini"
	expect "[arp] static: value longer than 254" "$app" $m $A --config "$work/long.ini"
	expect "line 2 longer than 322 characters" "$app" $m $A --config "$work/longer.ini"
	expect "[ip] addr: the subnet's broadcast address" "$app" $m --config "$work/bcast.ini"
	expect "not a regular file" "$app" $m $A --config "$work"
	expect "not a regular file" "$app" $m $A --config /dev/zero
	expect "larger than 1048576 bytes" "$app" $m $A --config "$work/big.ini"
	expect "--duration nan" "$app" $m $A --duration nan
	expect "--duration inf" "$app" $m $A --duration inf
	expect "--warmup -nan" "$app" $m $A --warmup -nan
	expect "--linger 1e999" "$app" $m $A --linger 1e999
	expect "--linger  1" "$app" $m $A --linger " 1"
	expect "--addr 198.18.0.0/24: the subnet's network address" "$app" $m --addr 198.18.0.0/24
	expect "--addr 198.18.0.255/24: the subnet's broadcast address" "$app" $m --addr 198.18.0.255/24
	expect "--addr 224.0.0.1/24: a multicast address" "$app" $m --addr 224.0.0.1/24
	expect "--addr 127.0.0.1/8: a loopback address" "$app" $m --addr 127.0.0.1/8
	expect "--addr 0.0.0.0/8: 0.0.0.0" "$app" $m --addr 0.0.0.0/8
	expect "--addr 198.18.0.2/32: prefix longer than /30" "$app" $m --addr 198.18.0.2/32
	expect "--gateway 198.19.0.1: not in our subnet" "$app" $m $A --gateway 198.19.0.1
	expect "--gateway 198.18.0.2: our own address" "$app" $m $A --gateway 198.18.0.2
	expect "--gateway 198.18.0.255: the subnet's broadcast" "$app" $m $A --gateway 198.18.0.255
	expect "--port-id  0" "$app" $m $A --port-id " 0"
	expect "--port-id +0" "$app" $m $A --port-id +0
	expect "--copy-small 1x" "$app" $m $A --copy-small 1x
done
	expect "--fault drop=nan%" "$echo_bin" $A --fault drop=nan%
	expect "--fault drop=inf%" "$echo_bin" $A --fault drop=inf%
	expect "--fault depth= 3" "$echo_bin" $A --fault "depth= 3"
	expect "--fault seed=-1" "$echo_bin" $A --fault seed=-1
expect "--size  64" "$echo_bin" $A --size " 64"
expect "--size -1" "$echo_bin" $A --size -1
expect "--size 64x" "$echo_bin" $A --size 64x
expect "--size 99999999999999999999" "$echo_bin" $A --size 99999999999999999999
expect "--flows  2" "$echo_bin" $A $cli --flows " 2"
expect "--timeout +5" "$echo_bin" $A $cli --timeout +5
expect "--bulk  5" "$echo_bin" $A $cli --proto tcp --bulk " 5"
expect "--stream $work: not a regular file" "$echo_bin" $A $cli --proto tcp --stream "$work"
expect "--stream /dev/zero: not a regular file" "$echo_bin" $A $cli --proto tcp --stream /dev/zero
expect "--stream $work/none" "$echo_bin" $A $cli --proto tcp --stream "$work/none"
# an option of another ust-echo mode (the mode table in apps/ust-echo/main.c)
expect "--keepalive: not an option of mode udp-server" "$echo_bin" $A --keepalive 5
expect "--peer: not an option of mode udp-server" "$echo_bin" $A --peer 198.18.0.1
expect "--peer 2001:2::1: IPv6 is off (no --addr6, no [ip6])" "$echo_bin" $A --mode client --peer 2001:2::1
expect "--peer 2001:2::1: IPv6 is off (no --addr6, no [ip6])" "$echo_bin" $A --mode client --proto tcp --peer 2001:2::1
expect "--peer 2001:2::1::5: expected A.B.C.D or an IPv6 address" "$echo_bin" $A --mode client --peer 2001:2::1::5
expect "--size: not an option of mode udp-server" "$echo_bin" $A --size 64
expect "--duration: not an option of mode tcp-server" "$echo_bin" $A --proto tcp --duration 2
expect "--hold: not an option of mode udp-client" "$echo_bin" $A $cli --hold
expect "--count: not an option of mode udp-client" "$echo_bin" $A $cli --count 5
expect "--sndbuf: not an option of mode udp-client" "$echo_bin" $A $cli --sndbuf 65536
expect "--discard: not an option of mode tcp-client" "$echo_bin" $A $cli --proto tcp --discard
expect "--stream-out: not an option of mode tcp-client" "$echo_bin" $A $cli --proto tcp --stream-out "$work/o"
expect "--flows: not an option of mode tcp-stream" "$echo_bin" $A $cli --proto tcp --bulk 5 --flows 2
expect "--bulk: not an option of mode tcp-server" "$echo_bin" $A --proto tcp --bulk 5
printf '[ip6]\naddr = fe80::1/64\n' >"$work/ll6.ini"
printf '[ip6]\naddr = 2001:2::2/64\ngateway = 2001:3::1\n' >"$work/gw6.ini"
expect "--addr6 2001:2::2: expected an IPv6 address/N" "$echo_bin" $A --addr6 2001:2::2
expect "--addr6 2001:2::2/129: expected an IPv6 address/N" "$echo_bin" $A --addr6 2001:2::2/129
expect "--addr6 fe80::5/64: a link-local address" "$echo_bin" $A --addr6 fe80::5/64
expect "--addr6 ff02::1/64: a multicast address" "$echo_bin" $A --addr6 ff02::1/64
expect "--addr6 ::1/128: the unspecified or loopback address" "$echo_bin" $A --addr6 ::1/128
expect "--addr6 ::ffff:198.18.0.2/96: an IPv4-mapped address" "$echo_bin" $A --addr6 ::ffff:198.18.0.2/96
expect "--gateway6 fe80::1: IPv6 is off" "$echo_bin" $A --gateway6 fe80::1
expect "--gateway6 2001:3::1: off-link" "$echo_bin" $A --addr6 2001:2::2/64 --gateway6 2001:3::1
expect "--gateway6 2001:2::2: our own address" "$echo_bin" $A --addr6 2001:2::2/64 --gateway6 2001:2::2
expect "--gateway6 2001:2:::1: expected an IPv6 address" "$echo_bin" $A --addr6 2001:2::2/64 --gateway6 2001:2:::1
expect "[ip6] addr: a link-local address" "$echo_bin" $A --config "$work/ll6.ini"
expect "[ip6] gateway: off-link" "$echo_bin" $A --config "$work/gw6.ini"
expect "--stream and --bulk exclude each other" "$echo_bin" $A $cli --proto tcp --bulk 5 --stream "$work/dup.ini"
expect "--discard and --response exclude each other" "$echo_bin" $A --proto tcp --discard --response 5
expect "--size 65508: UDP requests are 1-65507 bytes" "$echo_bin" $A $cli --size 65508
# --nb-cores (issue 11): the value, then what the EAL lcores and the port
# can serve (these two need the EAL: no hugepages, a software port)
expect "--nb-cores 0: a number of stacks from 1 to 64" "$echo_bin" $A --nb-cores 0
expect "--nb-cores 65: a number of stacks from 1 to 64" "$echo_bin" $A --nb-cores 65
expect "--nb-cores x: a number of stacks from 1 to 64" "$echo_bin" $A --nb-cores x
if [ "$(id -u)" = 0 ]; then
	eal="--no-pci --no-huge -m 256 --log-level=1 --file-prefix ust-cli-$$"
	expect "2 stacks (--nb-cores or [port] queues) need 2 lcores: the EAL lcore list (-l) has 1" \
		"$echo_bin" -l 0 --vdev net_null0 $eal -- $A --nb-cores 2
	printf '[port]\nqueues = 2\n' >"$work/q2.ini"
	expect "2 stacks (--nb-cores or [port] queues) need 2 lcores" \
		"$echo_bin" -l 0 --vdev net_null0 $eal -- $A --config "$work/q2.ini"
	# net_ring has 16 queue pairs at most; 17 lcores on one CPU
	expect "port 0: setup of 17 queue pairs failed" \
		"$echo_bin" --lcores "(0-16)@0" --vdev net_ring0 $eal -- $A --nb-cores 17
fi
expect "--size  64" "$perf_bin" --mode udp-flood $A --size " 64"
expect "--rate nan" "$perf_bin" --mode udp-flood $A --rate nan
expect "--rate infk" "$perf_bin" --mode udp-flood $A --rate infk
expect "--rate  5k" "$perf_bin" --mode udp-flood $A --rate " 5k"
expect "--conns  4" "$perf_bin" --mode tcp-rr $A --conns " 4"
# ---- ust-perf --nb-cores (issue 11; kept apart from the blocks above) ----
expect "--nb-cores 0: a number of stacks from 1 to 64" "$perf_bin" --mode udp-flood $A --peer 198.18.0.1 --nb-cores 0
expect "--nb-cores 65: a number of stacks from 1 to 64" "$perf_bin" --mode udp-flood $A --peer 198.18.0.1 --nb-cores 65
expect "--nb-cores two: a number of stacks" "$perf_bin" --mode tcp-rr $A --role server --nb-cores two
expect "--split is one stack and a reader lcore: not with --nb-cores 2" "$perf_bin" --mode udp-sink $A --split --nb-cores 2
expect "--shared feeds stack 0's socket from the other stacks: it needs --nb-cores 2 or more" "$perf_bin" --mode udp-sink $A --shared
expect "--nb-cores 2 needs 2 lcores: the EAL lcore list (-l) has 1" "$perf_bin" -l 0 --no-pci --no-huge -m 64 --no-shconf --log-level=*:error -- --mode tcp-rr-loop --nb-cores 2
expect "unknown option '--role' for --mode tcp-rr-loop" "$perf_bin" --mode tcp-rr-loop --role client
expect "--json-interval /nonexistent/x.jsonl: No such file or directory" "$perf_bin" --mode udp-flood $A --json-interval /nonexistent/x.jsonl
expect "--linger: not with --stack kernel" "$perf_bin" --stack kernel --mode udp-sink --linger 1
expect "--addr: not with --stack kernel" "$perf_bin" --stack kernel --mode udp-flood --peer 198.18.0.1 $A
# ust-perf over IPv6
expect "--peer 2001:2::1: IPv6 is off (no --addr6, no [ip6])" "$perf_bin" --mode udp-flood $A --peer 2001:2::1
expect "--peer 2001:2::1: IPv6 is off (no --addr6, no [ip6])" "$perf_bin" --mode tcp-rr $A --role client --peer 2001:2::1
expect "--peer 2001:2::1: tcp-conns is IPv4 only" "$perf_bin" --mode tcp-conns $A --addr6 2001:2::2/64 --role client --peer 2001:2::1
expect "--peer 2001:2::1::5: expected A.B.C.D or an IPv6 address" "$perf_bin" --mode tcp-rr $A --role client --peer 2001:2::1::5
expect "--addr6 2001:2::2: expected an IPv6 address/N" "$perf_bin" --mode udp-sink $A --addr6 2001:2::2
expect "--gateway6 2001:2::1: IPv6 is off (no --addr6, no [ip6])" "$perf_bin" --mode udp-sink $A --gateway6 2001:2::1
expect "--addr6: not with --stack kernel" "$perf_bin" --stack kernel --mode udp-sink --addr6 2001:2::2/64

# --version (issue 14): status 0, one line on stdout naming both versions
for b in "$echo_bin" "$perf_bin"; do
	n=$((n + 1))
	v=$("$b" --version 2>"$work/err")
	rc=$?
	if [ "$rc" = 0 ] && [ ! -s "$work/err" ] &&
	   [[ "$v" =~ ^ust-(echo|perf)\ \(ustack\ [0-9]+\.[0-9]+\.[0-9]+,\ DPDK\ [0-9.]+\)$ ]]; then
		echo "ok   $(basename "$b") --version: $v"
	else
		echo "FAIL: $(basename "$b") --version: status $rc: $v $(cat "$work/err")"
		failed=$((failed + 1))
	fi
done

echo "$((n - failed)) of $n refused as they should be"
[ "$failed" = 0 ]
