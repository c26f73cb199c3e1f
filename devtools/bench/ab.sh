#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# A/B of two builds on the same workloads, interleaved: ust-echo pairs over
# net_memif (server on lcore 0, client on lcore 1) doing TCP request-response
# with 1 and 200 connections (40-byte requests and answers) and UDP
# request-response with one flow (64 bytes), and connections per second (16
# clients, one 64-byte transaction per connection, TIME_WAIT 10 ms so that
# the ephemeral port budget is not the limit), and on request (BENCH_WORKLOADS
# "bulk 1 MIB") one bulk TCP stream of MIB MiB (ust-echo --bulk, Gbit/s),
# BENCH_REPS runs of each with
# each build in turn; prints the runs and the median new/old per workload.
# For a change on the data path: build the old commit in its own folder
# (git worktree add /tmp/old OLD && meson setup /tmp/old/build /tmp/old &&
# ninja -C /tmp/old/build), then
#   sudo devtools/bench/ab.sh /tmp/old/build build
# BENCH_DURATION (3 s measured, after 1 s of warm-up); BENCH_WORKLOADS (below).
. "$(dirname "$0")/lib.sh"
OLD=${1:?usage: ab.sh OLD_BUILD NEW_BUILD}
NEW=${2:?usage: ab.sh OLD_BUILD NEW_BUILD}
for b in "$OLD" "$NEW"; do
	[ -x "$b/apps/ust-echo" ] || { echo "ab.sh: no $b/apps/ust-echo" >&2; exit 2; }
done
ust_need_root
ust_hugepages 1536
DUR=${BENCH_DURATION:-3}

# pair ECHO TAG PROTO SERVER-OPTS... -- CLIENT-OPTS...: transactions/s
pair() {
	local E=$1 tag=$2 proto=$3 sock="$OUT/$2.sock" srv cli
	shift 3
	local s=() c=()
	while [ "$1" != -- ]; do s+=("$1"); shift; done
	shift
	c=("$@")
	"$E" -l 0 --no-pci $UST_EAL_MEM --file-prefix "s$tag" \
		--vdev "net_memif0,role=server,socket=$sock" -- \
		--addr 198.18.1.2/24 --proto "$proto" "${s[@]}" \
		> "$OUT/$tag.server" 2>&1 &
	srv=$!
	sleep 1
	"$E" -l 1 --no-pci $UST_EAL_MEM --file-prefix "c$tag" \
		--vdev "net_memif0,role=client,socket=$sock" -- --mode client \
		--addr 198.18.1.1/24 --peer 198.18.1.2 --proto "$proto" \
		--linger 2 --json "$OUT/$tag.json" "${c[@]}" \
		> "$OUT/$tag.client" 2>&1 &
	cli=$!
	while kill -0 "$cli" 2>/dev/null &&
	      ! grep -qs "^transactions\|^stream " "$OUT/$tag.client"; do
		sleep 0.1
	done
	kill -INT "$srv"
	wait "$srv" || true
	wait "$cli" || true
	if [ -n "${BULK:-}" ]; then
		jget "$OUT/$tag.json" '"%.2f" % (j["result"]["bytes_sent"] * 8 / j["result"]["seconds"] / 1e9)'
	else
		jget "$OUT/$tag.json" '"%.0f" % j["result"]["transactions_per_s"]'
	fi
}

# TIME_WAIT 10 ms: a 4-tuple budget of 2.8 M connections/s (28232 ports;
# at 100 ms, 282 k/s, which 16 clients nearly reach)
printf '[tcp]\ntime_wait_ms = 10\n' > "$OUT/cps.ini"

# BENCH_WORKLOADS: a comma-separated subset, e.g. "cps 16 64,tcp 1 40"
IFS=, read -ra WLS <<< "${BENCH_WORKLOADS:-tcp 1 40,tcp 200 40,udp 1 64,cps 16 64}"
for w in "${WLS[@]}"; do
	set -- $w
	r_old=() r_new=()
	for ((i = 1; i <= REPS; i++)); do
		for b in old new; do
			B=$OLD
			[ $b = new ] && B=$NEW
			if [ "$1" = tcp ]; then
				v=$(pair "$B/apps/ust-echo" "$b$i$RANDOM" tcp \
					--size "$3" --response "$3" -- \
					--flows "$2" --size "$3" --response "$3" \
					--duration "$DUR" --warmup 1)
			elif [ "$1" = bulk ]; then
				v=$(BULK=1 pair "$B/apps/ust-echo" "$b$i$RANDOM" \
					tcp --discard --rcvbuf 4194304 -- \
					--bulk $(($3 << 20)) --sndbuf 4194304 \
					--rcvbuf 4194304 --duration 60)
			elif [ "$1" = cps ]; then
				v=$(pair "$B/apps/ust-echo" "$b$i$RANDOM" tcp \
					--size "$3" --response "$3" \
					--config "$OUT/cps.ini" -- \
					--flows "$2" --size "$3" --response "$3" \
					--reconnect 1 --config "$OUT/cps.ini" \
					--duration "$DUR" --warmup 1)
			else
				v=$(pair "$B/apps/ust-echo" "$b$i$RANDOM" udp -- \
					--flows "$2" --size "$3" \
					--duration "$DUR" --warmup 1)
			fi
			[ $b = old ] && r_old+=("$v") || r_new+=("$v")
		done
	done
	mo=$(median "${r_old[@]}")
	mn=$(median "${r_new[@]}")
	echo "$1 flows=$2 size=$3: old ${r_old[*]} | new ${r_new[*]} |" \
		"median new/old $(awk -v a="$mn" -v b="$mo" 'BEGIN { printf "%.3f", a / b }')"
done
