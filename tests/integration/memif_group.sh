#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# Two ust-echo processes on two lcores each (-l 0-1 --nb-cores 2) over a
# net_memif with 2 queues (queue i of one side is queue i of the other):
# a TCP echo server and a TCP request-response client with 16 flows (flow
# k on the client's stack k % 2, and so on the server's stack k % 2).
# Both processes share the machine's cores (oversubscribed): correctness
# only, never a rate. Every transaction completes with as many bytes back
# as sent and no error; both server stacks accepted connections and both
# client stacks opened them (PassiveOpens / ActiveOpens > 0 per stack);
# then a MIB (16) MiB stream echoed byte-exact (sha256). Per stack:
# InFrames == rx_consumed + RX drops; no mbuf leak on either side.
. "$(dirname "$0")/lib.sh"
require_root
trap cleanup EXIT
MIB=${MIB:-16}

server() {
	local name=$1 i
	shift
	"$ECHO_BIN" -l 0-1 --no-pci $(eal_mem 256) --file-prefix "$name-$$" \
		--vdev "net_memif0,role=server,socket=$WORK/$name.sock" -- \
		--nb-cores 2 --addr 198.18.1.2/24 --proto tcp --port 7 \
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

client() {
	local name=$1 srv=$2 i
	shift 2
	"$ECHO_BIN" -l 0-1 --no-pci $(eal_mem 256) --file-prefix "$name-$$" \
		--vdev "net_memif0,role=client,socket=$WORK/$srv.sock" -- \
		--nb-cores 2 --mode client --addr 198.18.1.1/24 \
		--peer 198.18.1.2 --proto tcp --port 7 --linger 3 \
		--json "$WORK/$name.json" "$@" > "$WORK/$name.log" 2>&1 &
	local cli=$!
	PIDS+=("$cli")
	for i in $(seq 1 3000); do
		grep -qs "^transactions:\|^stream " "$WORK/$name.log" && break
		kill -0 "$cli" 2>/dev/null || break
		sleep 0.05
	done
	stop "$SRV"
	CLIENT_RC=0
	wait "$cli" || CLIENT_RC=$?
}


server rrs
client rrc rrs --flows 16 --size 256 --duration 3 --warmup 0.5
[ "$CLIENT_RC" = 0 ] || { cat "$WORK/rrc.log"; fail "client exited with $CLIENT_RC"; }
grep -E "^stack .*flows|transactions:|errors:" "$WORK/rrc.log"
grep -E "^stack .*accepted" "$WORK/rrs.log"
for f in rrs rrc; do
	check_json_sane "$WORK/$f.json" || fail "$f accounting (total)"
	check_stacks "$WORK/$f.json" || fail "$f accounting (per stack)"
done
t=$(json_get "$WORK/rrc.json" 'j["result"]["all"]')
e=$(json_get "$WORK/rrc.json" 'j["result"]["refused"] + j["result"]["resets"] + j["result"]["other_errors"] + j["result"]["conn_timeouts"] + j["result"]["late"]')
[ "$t" -gt 0 ] || fail "no transaction"
[ "$e" = 0 ] || fail "$e errors or late bytes"
# every request sent was answered in full (none in flight at the end: the
# client stops sending when its time is up and reads what is owed... or
# closes with one request outstanding per flow at most)
bs=$(json_get "$WORK/rrc.json" 'j["result"]["bytes_sent"]')
br=$(json_get "$WORK/rrc.json" 'j["result"]["bytes_received"]')
[ "$br" = $((t * 256)) ] || fail "received $br bytes for $t transactions"
[ "$bs" -ge "$br" ] && [ $((bs - br)) -le $((16 * 256)) ] ||
	fail "sent $bs, received $br: more than one request a flow unanswered"
p0=$(json_get "$WORK/rrs.json" 'j["stacks"][0]["counters"]["Tcp"]["PassiveOpens"]')
p1=$(json_get "$WORK/rrs.json" 'j["stacks"][1]["counters"]["Tcp"]["PassiveOpens"]')
a0=$(json_get "$WORK/rrc.json" 'j["stacks"][0]["counters"]["Tcp"]["ActiveOpens"]')
a1=$(json_get "$WORK/rrc.json" 'j["stacks"][1]["counters"]["Tcp"]["ActiveOpens"]')
[ "$p0" -gt 0 ] && [ "$p1" -gt 0 ] || fail "server PassiveOpens $p0 and $p1"
[ "$a0" -gt 0 ] && [ "$a1" -gt 0 ] || fail "client ActiveOpens $a0 and $a1"
t0=$(json_get "$WORK/rrc.json" 'j["stacks"][0]["result"]["all"]')
t1=$(json_get "$WORK/rrc.json" 'j["stacks"][1]["result"]["all"]')
[ "$t0" -gt 0 ] && [ "$t1" -gt 0 ] || fail "transactions $t0 and $t1"

head -c $((MIB << 20)) /dev/urandom > "$WORK/in.bin"
server ss
client sc ss --stream "$WORK/in.bin" --stream-out "$WORK/out.bin" \
	--duration 120
[ "$CLIENT_RC" = 0 ] || { cat "$WORK/sc.log"; fail "stream client exited with $CLIENT_RC"; }
a=$(sha256sum < "$WORK/in.bin" | cut -d' ' -f1)
b=$(sha256sum < "$WORK/out.bin" | cut -d' ' -f1)
[ "$a" = "$b" ] || fail "sha256 of the echo $b differs from the stream's $a"
for f in ss sc; do
	check_json_sane "$WORK/$f.json" || fail "$f accounting (total)"
	check_stacks "$WORK/$f.json" || fail "$f accounting (per stack)"
done
rm -f "$WORK/in.bin" "$WORK/out.bin"
log "$t transactions ($t0 / $t1 on the client's stacks), PassiveOpens" \
	"$p0 / $p1, ActiveOpens $a0 / $a1, no error; ${MIB} MiB stream" \
	"byte-exact; per-stack conservation; no leak"
