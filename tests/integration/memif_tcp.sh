#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Two ustack instances over net_memif, TCP both ends: request-response
# over 16 connections, then a stream echoed byte-exact (sha256) through
# ustack's seeded fault-injection stage on both sides (10% loss, 5%
# reordering, 2% duplication, 1% corruption of received frames).
. "$(dirname "$0")/lib.sh"
require_root
trap cleanup EXIT
MIB=${MIB:-16}
FAULT=${FAULT:-drop=10%,reorder=5%,dup=2%,corrupt=1%}

# server NAME [options]: ust-echo TCP server on a memif; sets SRV
server() {
	local name=$1
	shift
	"$ECHO_BIN" -l 0 --no-pci $(eal_mem 256) --file-prefix "$name-$$" \
		--vdev "net_memif0,role=server,socket=$WORK/$name.sock" -- \
		--addr 198.18.1.2/24 --proto tcp --port 7 \
		--json "$WORK/$name.json" "$@" > "$WORK/$name.log" 2>&1 &
	SRV=$!
	PIDS+=("$SRV")
	for i in $(seq 1 100); do
		grep -qs serving "$WORK/$name.log" && return 0
		sleep 0.05
	done
	cat "$WORK/$name.log"
	fail "$name did not start"
}

# client NAME SERVER [options]: ust-echo TCP client; waits for its end
# (it lingers, port open and unpolled, while the server stops: see
# --linger in ust-echo --help). Exit status in CLIENT_RC.
client() {
	local name=$1 srv=$2
	shift 2
	"$ECHO_BIN" -l 1 --no-pci $(eal_mem 256) --file-prefix "$name-$$" \
		--vdev "net_memif0,role=client,socket=$WORK/$srv.sock" -- \
		--mode client --addr 198.18.1.1/24 --peer 198.18.1.2 \
		--proto tcp --port 7 --linger 3 --json "$WORK/$name.json" "$@" \
		> "$WORK/$name.log" 2>&1 &
	local cli=$!
	PIDS+=("$cli")
	for i in $(seq 1 6000); do
		grep -qs "^transactions:\|^stream " "$WORK/$name.log" && break
		kill -0 "$cli" 2>/dev/null || break
		sleep 0.05
	done
	stop "$SRV"
	CLIENT_RC=0
	wait "$cli" || CLIENT_RC=$?
}

# request-response, 16 connections
server rrs --response 256
client rrc rrs --flows 16 --size 64 --response 256 --duration 2 \
	--warmup 0.5
[ "$CLIENT_RC" = 0 ] || { cat "$WORK/rrc.log"; fail "rr client exited with $CLIENT_RC"; }
grep -E "transactions:|latency" "$WORK/rrc.log"
check_json_sane "$WORK/rrs.json" || fail "rr server accounting"
check_json_sane "$WORK/rrc.json" || fail "rr client accounting"
t=$(json_get "$WORK/rrc.json" 'j["result"]["transactions"]')
[ "$t" -gt 1000 ] || fail "only $t transactions"

# the stream through the fault stages
head -c $((MIB << 20)) /dev/urandom > "$WORK/in.bin"
server fs --fault "$FAULT,seed=11"
client fc fs --fault "$FAULT,seed=23" --stream "$WORK/in.bin" \
	--stream-out "$WORK/out.bin" --duration 600
[ "$CLIENT_RC" = 0 ] || { cat "$WORK/fc.log"; fail "stream client exited with $CLIENT_RC"; }
grep -E "^ust-echo: tcp stream|fault stage" "$WORK/fc.log"
a=$(sha256sum < "$WORK/in.bin" | cut -d' ' -f1)
b=$(sha256sum < "$WORK/out.bin" | cut -d' ' -f1)
[ "$a" = "$b" ] || fail "sha256 of the echo $b differs from the stream's $a"
check_json_sane "$WORK/fs.json" || fail "stream server accounting"
check_json_sane "$WORK/fc.json" || fail "stream client accounting"
r=$(json_get "$WORK/fc.json" 'j["counters"]["Tcp"]["RetransSegs"] ')
rs=$(json_get "$WORK/fs.json" 'j["counters"]["Tcp"]["RetransSegs"] ')
[ $((r + rs)) -gt 0 ] || fail "no retransmission through the fault stages"
rm -f "$WORK/in.bin" "$WORK/out.bin"
log "$t transactions; ${MIB} MiB echoed byte-exact through '$FAULT'" \
	"(RetransSegs client $r, server $rs); no leak"
