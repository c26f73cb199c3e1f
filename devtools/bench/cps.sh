#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# Connections per second (issue 13): two ust-echo processes over a
# net_memif pair (server on lcore 0, client on lcore 1); the client keeps
# BENCH_CLIENTS connections going (default "16 64 256"), each a connect,
# one 64-byte request and response, and a close, then the next. The
# rate counts whole cycles over the measured interval (after 1 s of
# warm-up), and the client's errors are printed beside it.
#
# The 4-tuple budget: one client address, one server port, the 28232
# ephemeral ports of 32768-60999; the client closes first, so its side
# holds the TIME_WAIT entries, and a 4-tuple comes back when its entry
# ends: at most 28232 / TIME_WAIT connections per second. TIME_WAIT here
# is BENCH_TW_MS (default 10 ms: 2.8 M/s, so the budget does not limit);
# with the default 60 s and [tcp] tw_reuse (a TIME_WAIT 4-tuple taken
# again after 1 s, Linux's tcp_tw_reuse) the budget is 28232/s.
# BENCH_REPS runs of each, medians.
#   sudo devtools/bench/cps.sh
#   sudo BENCH_CLIENTS=64 BENCH_REPS=5 devtools/bench/cps.sh
. "$(dirname "$0")/lib.sh"
bench_setup
DUR=${BENCH_DURATION:-4}
TW=${BENCH_TW_MS:-10}
printf '[tcp]\ntime_wait_ms = %s\n' "$TW" > "$OUT/cps.ini"

cps() { # clients -> "connections/s errors"
	local tag="cps-$1-$RANDOM" sock="$OUT/cps-$1.sock"
	rm -f "$sock"
	"$ECHO" -l 0 --no-pci $UST_EAL_MEM --file-prefix "s$tag" \
		--vdev "net_memif0,role=server,socket=$sock" -- \
		--addr 198.18.1.2/24 --proto tcp --size 64 --response 64 \
		--config "$OUT/cps.ini" > "$OUT/$tag.server" 2>&1 &
	local srv=$!
	sleep 1
	"$ECHO" -l 1 --no-pci $UST_EAL_MEM --file-prefix "c$tag" \
		--vdev "net_memif0,role=client,socket=$sock" -- --mode client \
		--addr 198.18.1.1/24 --peer 198.18.1.2 --proto tcp --linger 2 \
		--flows "$1" --size 64 --response 64 --reconnect 1 \
		--config "$OUT/cps.ini" --duration "$DUR" --warmup 1 \
		--json "$OUT/$tag.json" > "$OUT/$tag.client" 2>&1 || true
	kill -INT $srv 2>/dev/null || true
	wait $srv || true
	jget "$OUT/$tag.json" '"%.0f %d" % (j["result"]["transactions"] / j["result"]["seconds"], sum(j["result"][k] for k in ("refused", "resets", "conn_timeouts", "other_errors")))'
}

echo
echo "TIME_WAIT $TW ms: the 4-tuple budget is $((28232 * 1000 / TW)) connections/s"
echo
echo "| clients | connections/s (median of $REPS) | runs | client errors (median) |"
echo "|---|---|---|---|"
for n in ${BENCH_CLIENTS:-16 64 256}; do
	rates=() errs=()
	for ((i = 1; i <= REPS; i++)); do
		read -r r e <<< "$(cps "$n")"
		rates+=("$r")
		errs+=("$e")
	done
	echo "| $n | $(median "${rates[@]}") | ${rates[*]} | $(median "${errs[@]}") |"
done
