#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The TX layouts of TCP data segments (ust_tcp_tx.h) between two ustack
# processes over net_memif, both ends with the same policy: for linear,
# chained, first-linear and chained with copy-small 256, a short tcp-rr
# between two ust-perf processes and a stream echoed by ust-echo with
# matching sha256; the tcp_tx counters of the JSON must show the layout in
# effect (linear: no chained packet, one segment per packet; chained:
# chained packets, more segments than packets; first-linear: request-
# response linear, the stream chained; copy-small 256 with 40-byte
# requests: small packets), and every process ends with the mbufs it
# started with. Then --zc on memif must be refused: exit status 2 and the
# one-line reason, no number.
. "$(dirname "$0")/lib.sh"
require_root
trap cleanup EXIT
MIB=${MIB:-8}

# tx_assert FILE EXPR WHAT: EXPR (python, on t = the JSON's tcp_tx) holds
tx_assert() {
	"$PY" - "$1" "$2" "$3" <<'PYEOF' || fail "$3 (in $(basename "$1"))"
import json, sys
t = json.load(open(sys.argv[1]))["tcp_tx"]
if not eval(sys.argv[2]):
    print(f"not true: {sys.argv[2]}: " + ", ".join(
        f"{k} {v}" for k, v in t.items() if not isinstance(v, list)))
    sys.exit(1)
PYEOF
}

# perf_rr NAME SIZE [flags...]: a ust-perf tcp-rr server and client (16
# connections, SIZE-byte requests and responses) with the flags on both
# ends; JSON in $WORK/NAME.s.json and $WORK/NAME.c.json
perf_rr() {
	local name=$1 size=$2 srv cli rc=0 i
	shift 2
	"$PERF_BIN" -l 0 --no-pci $(eal_mem 256) --file-prefix "$name-s-$$" \
		--vdev "net_memif0,role=server,socket=$WORK/$name.sock" -- \
		--mode tcp-rr --role server --addr 198.18.1.2/24 \
		--size "$size" --duration 1.5 --warmup 0.3 --stats-period 0 \
		--json "$WORK/$name.s.json" "$@" > "$WORK/$name.s.log" 2>&1 &
	srv=$!
	PIDS+=("$srv")
	for i in $(seq 1 200); do
		grep -qs "tcp-rr server, port" "$WORK/$name.s.log" && break
		kill -0 "$srv" 2>/dev/null || break
		sleep 0.05
	done
	"$PERF_BIN" -l 1 --no-pci $(eal_mem 256) --file-prefix "$name-c-$$" \
		--vdev "net_memif0,role=client,socket=$WORK/$name.sock" -- \
		--mode tcp-rr --role client --addr 198.18.1.1/24 \
		--peer 198.18.1.2 --conns 16 --size "$size" --duration 1.5 \
		--warmup 0.3 --stats-period 0 --linger 2 \
		--json "$WORK/$name.c.json" "$@" > "$WORK/$name.c.log" 2>&1 &
	cli=$!
	PIDS+=("$cli")
	# the server ends when the client has closed its connections
	for i in $(seq 1 300); do
		kill -0 "$srv" 2>/dev/null || break
		sleep 0.1
	done
	wait "$srv" || rc=$?
	[ "$rc" = 0 ] || { cat "$WORK/$name.s.log"; fail "$name: server exited with $rc"; }
	wait "$cli" || rc=$?
	[ "$rc" = 0 ] || { cat "$WORK/$name.c.log"; fail "$name: client exited with $rc"; }
	grep -hE "^transactions:|^tx layout" "$WORK/$name.c.log"
	check_json_sane "$WORK/$name.s.json" || fail "$name: server accounting"
	check_json_sane "$WORK/$name.c.json" || fail "$name: client accounting"
	local t
	t=$(json_get "$WORK/$name.c.json" 'j["result"]["transactions"]')
	[ "$t" -gt 100 ] || fail "$name: only $t transactions"
}

# echo_stream NAME [flags...]: ust-echo server (echo) and client (a
# $MIB MiB random file, sha256 of what comes back) with the flags on both
# ends; JSON in $WORK/NAME.s.json and $WORK/NAME.c.json
echo_stream() {
	local name=$1 srv cli rc=0 i
	shift
	"$ECHO_BIN" -l 0 --no-pci $(eal_mem 256) --file-prefix "$name-s-$$" \
		--vdev "net_memif0,role=server,socket=$WORK/$name.sock" -- \
		--addr 198.18.1.2/24 --proto tcp --port 7 \
		--json "$WORK/$name.s.json" "$@" > "$WORK/$name.s.log" 2>&1 &
	srv=$!
	PIDS+=("$srv")
	for i in $(seq 1 200); do
		grep -qs serving "$WORK/$name.s.log" && break
		sleep 0.05
	done
	"$ECHO_BIN" -l 1 --no-pci $(eal_mem 256) --file-prefix "$name-c-$$" \
		--vdev "net_memif0,role=client,socket=$WORK/$name.sock" -- \
		--mode client --addr 198.18.1.1/24 --peer 198.18.1.2 \
		--proto tcp --port 7 --linger 3 --json "$WORK/$name.c.json" \
		--stream "$WORK/in.bin" --stream-out "$WORK/out.bin" \
		--duration 120 "$@" > "$WORK/$name.c.log" 2>&1 &
	cli=$!
	PIDS+=("$cli")
	for i in $(seq 1 2400); do
		grep -qs "^stream " "$WORK/$name.c.log" && break
		kill -0 "$cli" 2>/dev/null || break
		sleep 0.05
	done
	stop "$srv"
	wait "$cli" || rc=$?
	[ "$rc" = 0 ] || { cat "$WORK/$name.c.log"; fail "$name: stream client exited with $rc"; }
	grep -h "^ust-echo: tcp stream" "$WORK/$name.c.log"
	local a b
	a=$(sha256sum < "$WORK/in.bin" | cut -d' ' -f1)
	b=$(sha256sum < "$WORK/out.bin" | cut -d' ' -f1)
	[ "$a" = "$b" ] || fail "$name: sha256 of the echo $b differs from the stream's $a"
	check_json_sane "$WORK/$name.s.json" || fail "$name: server accounting"
	check_json_sane "$WORK/$name.c.json" || fail "$name: client accounting"
	rm -f "$WORK/out.bin"
}

head -c $((MIB << 20)) /dev/urandom > "$WORK/in.bin"

# linear: no chained packet, one segment per packet, on every sender
perf_rr rr-lin 1024 --tx-layout linear
echo_stream st-lin --tx-layout linear
for f in rr-lin.s rr-lin.c st-lin.s st-lin.c; do
	tx_assert "$WORK/$f.json" \
		't["data_pkts"] > 0 and t["chained_pkts"] == 0 and t["segs"] == t["pkts"]' \
		"linear: chained or multi-segment packets"
done
log "linear: in effect"

# chained: the senders that copy into the send queue (ust-perf both ends,
# the stream's client) chain; the echo server sends what it received
perf_rr rr-ch 1024 --tx-layout chained
echo_stream st-ch --tx-layout chained
for f in rr-ch.s rr-ch.c st-ch.c; do
	tx_assert "$WORK/$f.json" \
		't["chained_pkts"] > 0 and t["segs"] > t["pkts"]' \
		"chained: no chained packet"
done
log "chained: in effect"

# first-linear: a request or a response goes out while the write queue is
# empty (ping-pong): linear; a bulk stream keeps the queue full: chained
perf_rr rr-fl 1024 --tx-layout first-linear
echo_stream st-fl --tx-layout first-linear
for f in rr-fl.s rr-fl.c; do
	tx_assert "$WORK/$f.json" \
		't["linear_pkts"] > 0 and t["chained_pkts"] * 100 <= t["linear_pkts"]' \
		"first-linear: request-response not linear"
done
tx_assert "$WORK/st-fl.c.json" 't["chained_pkts"] > 0' \
	"first-linear: the bulk stream not chained"
log "first-linear: in effect"

# copy-small 256 (with chained): 40-byte requests and responses (106-byte
# frames) are copied whole into the small pool
perf_rr rr-cs 40 --tx-layout chained --copy-small 256
echo_stream st-cs --tx-layout chained --copy-small 256
for f in rr-cs.s rr-cs.c; do
	tx_assert "$WORK/$f.json" 't["small_pkts"] > 0' \
		"copy-small 256: no small packet"
done
tx_assert "$WORK/st-cs.c.json" 't["chained_pkts"] > 0' \
	"copy-small 256: the full-sized stream segments not chained"
log "copy-small 256: in effect"

# zero copy on memif: refused (exit status 2, one line), never measured
for map in per-send once; do
	rc=0
	"$PERF_BIN" -l 1 --no-pci $(eal_mem 256) --file-prefix "zc-$$" \
		--vdev "net_memif0,role=server,socket=$WORK/zc.sock" -- \
		--mode tcp-rr --role client --addr 198.18.1.1/24 \
		--peer 198.18.1.2 --tx-layout chained --zc --zc-map "$map" \
		> "$WORK/zc.log" 2> "$WORK/zc.err" || rc=$?
	[ "$rc" = 2 ] || { cat "$WORK/zc.log" "$WORK/zc.err"; fail "--zc-map $map on memif: exit status $rc, expected 2"; }
	msg="ust-perf: --zc: port 0 (net_memif) cannot map DMA (net_memif is on the vdev bus, which maps nothing for DMA): zero copy refused"
	grep -qxF "$msg" "$WORK/zc.err" ||
		{ cat "$WORK/zc.err"; fail "--zc-map $map on memif: no refusal line"; }
	if grep -q "^transactions" "$WORK/zc.log"; then
		fail "--zc on memif reported a number"
	fi
done
log "--zc on memif refused: $msg"
rm -f "$WORK/in.bin"
log "linear, chained, first-linear, copy-small 256: request-response and" \
	"${MIB} MiB streams byte-exact, layouts in effect, no leak; zc refused"
