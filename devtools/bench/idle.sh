#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# Sleeping when idle (issue 14): ust-echo's UDP server busy-polling and with
# --idle-adaptive (after 64 empty polls, sleep until a frame, the next
# timer or 10 ms), side by side, BENCH_REPS times each, interleaved:
#   - idle: the server's CPU use over BENCH_IDLE seconds (10) with nothing
#     arriving, from /proc/PID/stat (user + system ticks), on a TAP port
#     in a namespace (RX interrupts: the TAP fd);
#   - light load: the kernel pings the server over that TAP port every
#     10 ms (BENCH_PINGS of them): the round trip's average and median,
#     where each ping finds the server asleep;
#   - full load: UDP request-response over net_memif, 1 flow of 64 bytes,
#     a ust-echo client against the server (transactions/s and p50), where
#     the server never idles 64 polls in a row.
#   sudo devtools/bench/idle.sh
. "$(dirname "$0")/lib.sh"
bench_setup
IDLE=${BENCH_IDLE:-10}
PINGS=${BENCH_PINGS:-200}
DUR=${BENCH_DURATION:-5}
HZ=$(getconf CLK_TCK)

ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# tap_run MODE -> "cpu_percent ping_avg_us ping_p50_us"
tap_run() {
	local mode=$1 ns=bi-$$-$RANDOM tag="tap-$1-$RANDOM" extra="" pid t0 t1
	[ "$mode" = adaptive ] && extra=--idle-adaptive
	ip netns add "$ns"
	# shellcheck disable=SC2086
	nsenter --net="/var/run/netns/$ns" "$ECHO" -l 0 --no-pci $UST_EAL_MEM \
		--file-prefix "i$tag" --vdev net_tap0,iface=ustb0 -- \
		--addr 198.18.0.2/24 --port 7 $extra > "$OUT/$tag.log" 2>&1 &
	pid=$!
	for _ in $(seq 1 100); do
		ip netns exec "$ns" ip link show ustb0 >/dev/null 2>&1 && break
		sleep 0.05
	done
	ip netns exec "$ns" ip addr add 198.18.0.1/24 dev ustb0
	ip netns exec "$ns" ip link set ustb0 up
	sleep 1
	ip netns exec "$ns" ping -c 3 -i 0.1 -W 1 198.18.0.2 >/dev/null || true
	t0=$(ticks $pid)
	sleep "$IDLE"
	t1=$(ticks $pid)
	ip netns exec "$ns" ping -c "$PINGS" -i 0.01 -W 1 198.18.0.2 \
		> "$OUT/$tag.ping" 2>&1 || true
	kill -INT $pid 2>/dev/null || true
	wait $pid || true
	ip netns del "$ns"
	local avg p50
	avg=$(awk -F/ '/^rtt/ {printf "%.0f", $5 * 1000}' "$OUT/$tag.ping")
	# shellcheck disable=SC2046
	p50=$(median $(sed -n 's/.*time=\([0-9.]*\) ms/\1/p' "$OUT/$tag.ping" |
		awk '{printf "%.0f\n", $1 * 1000}'))
	awk -v a="$t0" -v b="$t1" -v hz="$HZ" -v s="$IDLE" -v avg="${avg:-0}" \
		-v p="${p50:-0}" 'BEGIN {printf "%.2f %s %s\n", (b - a) / hz / s * 100, avg, p}'
}

# rr_run MODE -> "tps p50_us"
rr_run() {
	local mode=$1 sock="$OUT/idle.sock" tag="rr-$1-$RANDOM" extra=""
	[ "$mode" = adaptive ] && extra=--idle-adaptive
	rm -f "$sock"
	# shellcheck disable=SC2086
	"$ECHO" -l 0 --no-pci $UST_EAL_MEM --file-prefix "s$tag" \
		--vdev "net_memif0,role=server,socket=$sock" -- \
		--addr 198.18.1.2/24 $extra > "$OUT/$tag.server" 2>&1 &
	local srv=$!
	sleep 1
	"$ECHO" -l 1 --no-pci $UST_EAL_MEM --file-prefix "c$tag" \
		--vdev "net_memif0,role=client,socket=$sock" -- --mode client \
		--addr 198.18.1.1/24 --peer 198.18.1.2 --flows 1 --size 64 \
		--duration "$DUR" --warmup 1 --linger 2 \
		--json "$OUT/$tag.json" > "$OUT/$tag.client" 2>&1 &
	local cli=$!
	while kill -0 $cli 2>/dev/null && ! grep -qs "^transactions" "$OUT/$tag.client"; do
		sleep 0.1
	done
	kill -INT $srv; wait $srv || true; wait $cli || true
	jget "$OUT/$tag.json" '"%.0f %.2f" % (j["result"]["transactions_per_s"], j["result"]["latency_ns"]["p50"] / 1e3)'
}

declare -A R
for rep in $(seq 1 "$REPS"); do
	for mode in poll adaptive; do
		R["tap $mode $rep"]=$(tap_run $mode)
		R["rr $mode $rep"]=$(rr_run $mode)
		echo "run $rep $mode: tap ${R["tap $mode $rep"]}, rr ${R["rr $mode $rep"]}" >&2
	done
done

col() { # KIND MODE FIELD -> median over the runs
	local v=() rep
	for rep in $(seq 1 "$REPS"); do
		# shellcheck disable=SC2206
		local f=(${R["$1 $2 $rep"]})
		v+=("${f[$3]}")
	done
	median "${v[@]}"
}

echo "| ust-echo UDP server | idle CPU (%) | ping every 10 ms: avg / p50 (us) | memif RR 64 B, 1 flow: transactions/s | p50 (us) |"
echo "|---|---|---|---|---|"
for mode in poll adaptive; do
	echo "| $mode | $(col tap $mode 0) | $(col tap $mode 1) / $(col tap $mode 2) | $(col rr $mode 0) | $(col rr $mode 1) |"
done
