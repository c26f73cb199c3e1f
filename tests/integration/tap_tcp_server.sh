#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The kernel's TCP as client, ust-echo's as server, over TAP: 1000 short
# connections echoed byte-exact and closed in order, a 64 MiB random stream
# echoed with matching sha256, ECONNREFUSED from a closed port, and
# ECONNRESET when the server resets its connections at exit. With
# LOSS=N (percent), that share of the frames is lost each way, as on a
# lossy wire (nftables in the kernel's input, ust-echo's fault stage in
# front of its stack: lib.sh's nft_loss), the short connections run 20 at
# a time (each loss costs a timeout of 0.2 to 1 s), and RetransSegs must be
# non-zero. TX_LAYOUT and
# COPY_SMALL set ust-echo's --tx-layout and --copy-small (the layout must
# then show in its tcp_tx counters); CONNS and MIB size the two parts (1000
# connections, 64 MiB).
. "$(dirname "$0")/lib.sh"
require_root
LOSS=${LOSS:-0}
MIB=${MIB:-64}
CONNS=${CONNS:-1000}
ns_create
start_echo_tap srv ustt0 --addr 198.18.0.2/24 --proto tcp --port 7 \
	--close-rst --json "$WORK/srv.json" ${TXL[@]+"${TXL[@]}"} \
	${LOSS_FAULT[@]+"${LOSS_FAULT[@]}"}
PAR=1
if [ "$LOSS" != 0 ]; then
	nft_loss ustt0 "$LOSS"
	PAR=20
	log "loss ${LOSS}% each way: ${LOSS_FAULT[*]}"
fi
peer="$(dirname "$0")/tcp_peer.py"
nsx timeout 600 "$PY" "$peer" short 198.18.0.2 7 "$CONNS" 64 "$PAR" ||
	fail "$CONNS short connections"
nsx timeout 900 "$PY" "$peer" stream 198.18.0.2 7 $((MIB << 20)) 2026 ||
	fail "${MIB} MiB stream"
if [ "$LOSS" = 0 ]; then
	# (an RST is never sent again: these run on the loss-free wire only)
	nsx timeout 30 "$PY" "$peer" refused 198.18.0.2 9 || fail "closed port"
	# a connection held open while the server exits with --close-rst
	nsx timeout 60 "$PY" "$peer" hold 198.18.0.2 7 > "$WORK/hold.log" 2>&1 &
	HOLD=$!
	for i in $(seq 1 200); do
		grep -qs ready "$WORK/hold.log" && break
		sleep 0.05
	done
	stop "$ECHO_PID"
	wait "$HOLD" || { cat "$WORK/hold.log"; fail "reset peer"; }
	cat "$WORK/hold.log"
else
	stop "$ECHO_PID"
fi
check_json_sane "$WORK/srv.json" || fail "server accounting"
acc=$(json_get "$WORK/srv.json" 'j["result"]["accepted"]')
[ "$acc" -ge $((CONNS + 1)) ] ||
	fail "server accepted $acc connections, expected $((CONNS + 1))"
if [ -n "${TX_LAYOUT:-}" ]; then
	check_tcp_tx "$WORK/srv.json" "$TX_LAYOUT" ||
		fail "--tx-layout $TX_LAYOUT not in effect"
fi
if [ -n "${COPY_SMALL:-}" ] && [ "$COPY_SMALL" != 0 ]; then
	small=$(json_get "$WORK/srv.json" 'j["tcp_tx"]["small_pkts"]')
	[ "$small" -gt 0 ] || fail "--copy-small $COPY_SMALL: no small packet"
fi
if [ "$LOSS" = 0 ]; then
	rst=$(json_get "$WORK/srv.json" 'j["counters"]["Tcp"]["OutRsts"]')
	[ "$rst" -ge 2 ] || fail "expected RSTs (closed port, reset), got $rst"
fi
rtx=$(json_get "$WORK/srv.json" 'j["counters"]["Tcp"]["RetransSegs"]')
if [ "$LOSS" != 0 ]; then
	[ "$rtx" -gt 0 ] || fail "no retransmission under ${LOSS}% loss"
fi
log "$CONNS connections + ${MIB} MiB stream byte-exact (+ refused, reset" \
	"without loss); loss ${LOSS}%, RetransSegs $rtx, no leak;" \
	"tx-layout ${TX_LAYOUT:-default}, copy-small ${COPY_SMALL:-default}"
