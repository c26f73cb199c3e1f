#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# UDP and TCP request-response over IPv6 beside IPv4, one build,
# interleaved: a ust-echo pair over net_memif (server on lcore 0 with one
# dual-stack socket or listener, client on lcore 1), one flow (UDP) or
# connection (TCP), BENCH_SIZES bytes (64 and 1024: one frame each way;
# UDP's 4000 would be fragmented), BENCH_REPS runs of each family in turn,
# for each of BENCH_PROTOS (udp tcp). Prints the runs, the run-by-run ratios IPv6/IPv4 (this
# machine's rates are bimodal: a ratio of neighbours is steadier than one
# of medians) and their median.
#   sudo devtools/bench/ip6.sh [BUILD]
# BENCH_DURATION (3 s measured, after 1 s of warm-up). A bigger machine
# runs it unchanged (lcores 0 and 1).
. "$(dirname "$0")/lib.sh"
B=${1:-build}
[ -x "$B/apps/ust-echo" ] || { echo "ip6.sh: no $B/apps/ust-echo" >&2; exit 2; }
ust_need_root
ust_hugepages 1536
DUR=${BENCH_DURATION:-3}

# run PROTO FAMILY SIZE TAG: transactions/s
run() {
	local proto=$1 fam=$2 size=$3 tag=$4 sock="$OUT/$4.sock" srv cli peer
	peer=198.18.1.2
	[ "$fam" = 6 ] && peer=2001:2::2
	"$B/apps/ust-echo" -l 0 --no-pci $UST_EAL_MEM --file-prefix "s$tag" \
		--vdev "net_memif0,role=server,socket=$sock" -- --proto "$proto" \
		--addr 198.18.1.2/24 --addr6 2001:2::2/64 \
		> "$OUT/$tag.server" 2>&1 &
	srv=$!
	sleep 1
	"$B/apps/ust-echo" -l 1 --no-pci $UST_EAL_MEM --file-prefix "c$tag" \
		--vdev "net_memif0,role=client,socket=$sock" -- --mode client \
		--proto "$proto" \
		--addr 198.18.1.1/24 --addr6 2001:2::1/64 --peer "$peer" \
		--size "$size" --flows 1 --duration "$DUR" --warmup 1 \
		--linger 2 --json "$OUT/$tag.json" > "$OUT/$tag.client" 2>&1 &
	cli=$!
	while kill -0 "$cli" 2>/dev/null &&
	      ! grep -qs "^transactions" "$OUT/$tag.client"; do
		sleep 0.1
	done
	kill -INT "$srv"
	wait "$srv" || true
	wait "$cli" || true
	jget "$OUT/$tag.json" '"%.0f" % j["result"]["transactions_per_s"]'
}

for proto in ${BENCH_PROTOS:-udp tcp}; do
for size in ${BENCH_SIZES:-64 1024}; do
	r4=() r6=() q=()
	for ((i = 1; i <= REPS; i++)); do
		a=$(run "$proto" 4 "$size" "v4$i$RANDOM")
		b=$(run "$proto" 6 "$size" "v6$i$RANDOM")
		r4+=("$a")
		r6+=("$b")
		q+=("$(awk -v a="$b" -v b="$a" 'BEGIN { printf "%.3f", a / b }')")
	done
	echo "$proto rr size=$size: IPv4 ${r4[*]} | IPv6 ${r6[*]} |" \
		"IPv6/IPv4 run by run ${q[*]}, median $(median "${q[@]}")," \
		"medians $(median "${r4[@]}") / $(median "${r6[@]}")"
done
done
