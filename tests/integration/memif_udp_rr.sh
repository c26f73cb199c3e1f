#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Two ustack instances in two processes over net_memif: the ust-echo client
# runs request-response against the ust-echo server (ARP, UDP both ways),
# with several flows; both report their results and neither leaks.
. "$(dirname "$0")/lib.sh"
require_root
trap cleanup EXIT
sock="$WORK/memif.sock"
"$ECHO_BIN" -l 0 --no-pci $(eal_mem 256) --file-prefix "ms-$$" \
	--vdev "net_memif0,role=server,socket=$sock" -- \
	--addr 198.18.1.2/24 --port 7 --json "$WORK/server.json" \
	> "$WORK/server.log" 2>&1 &
SRV=$!
PIDS+=("$SRV")
for i in $(seq 1 100); do
	grep -qs serving "$WORK/server.log" && break
	sleep 0.05
done
# The client lingers after its run, port open but unpolled, until the
# server has stopped: DPDK 22.11's memif unmaps its rings under a peer
# that is still polling (see --linger in ust-echo --help).
"$ECHO_BIN" -l 1 --no-pci $(eal_mem 256) --file-prefix "mc-$$" \
	--vdev "net_memif0,role=client,socket=$sock" -- \
	--mode client --addr 198.18.1.1/24 --peer 198.18.1.2 --port 7 \
	--flows 8 --size 200 --duration 2 --warmup 0.5 --linger 3 \
	--json "$WORK/client.json" > "$WORK/client.log" 2>&1 &
CLI=$!
PIDS+=("$CLI")
for i in $(seq 1 400); do
	grep -qs "^transactions:" "$WORK/client.log" && break
	kill -0 "$CLI" 2>/dev/null || break
	sleep 0.05
done
stop "$SRV"
rc=0
wait "$CLI" || rc=$?
[ "$rc" = 0 ] || { cat "$WORK/client.log"; fail "client exited with $rc"; }
grep -E "transactions:|latency" "$WORK/client.log"
check_json_sane "$WORK/server.json" || fail "server accounting"
check_json_sane "$WORK/client.json" || fail "client accounting"
t=$(json_get "$WORK/client.json" 'j["result"]["transactions"]')
e=$(json_get "$WORK/server.json" 'j["result"]["echoed"]')
[ "$t" -gt 1000 ] || fail "only $t transactions"
[ "$e" -ge "$t" ] || fail "server echoed $e < client's $t transactions"
log "$t transactions over memif, both sides clean"
