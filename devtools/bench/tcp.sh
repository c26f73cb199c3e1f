#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# TCP, issue-4 tables: request-response between two ust-echo processes over
# net_memif (client on lcore 1, server on lcore 0), 1 and 200 connections,
# 40-byte, 44-byte and 1 KB requests and responses, beside the same
# request-response between kernel sockets over a veth pair between two
# namespaces (ust-perf --stack kernel, epoll, one thread each side,
# pinned to the same cores; kernel_tcp_rr.c for its reconnecting client), and beside the wire's own round trip (ust-perf l2-pingpong
# over the same kind of memif pair, as many frames in flight as
# connections, each frame as long as the RR's); single-flow bulk
# throughput over memif; connections per second; memory per established
# idle connection with 100,000 open.
# BENCH_REPS runs of each, interleaved; medians.
#   sudo devtools/bench/tcp.sh            (BENCH_SKIP_MEM=1: no 100k test;
#                                          BENCH_ONLY_MEM=1: only that)
. "$(dirname "$0")/lib.sh"
bench_setup
DUR=${BENCH_DURATION:-5}
KRR=$OUT/kernel_tcp_rr
cc -O2 -Wall -o "$KRR" "$(dirname "$0")/kernel_tcp_rr.c"

memif_pair() { # tag server-opts -- client-opts: runs both, waits
	local tag=$1 sock="$OUT/$1.sock"
	shift
	local sopts=() copts=()
	while [ "$1" != -- ]; do sopts+=("$1"); shift; done
	shift
	copts=("$@")
	rm -f "$sock"
	"$ECHO" -l 0 --no-pci $UST_EAL_MEM --file-prefix "s$tag" \
		--vdev "net_memif0,role=server,socket=$sock" -- \
		--addr 198.18.1.2/24 --proto tcp "${sopts[@]}" \
		> "$OUT/$tag.server" 2>&1 &
	local srv=$!
	sleep 1
	"$ECHO" -l 1 --no-pci $UST_EAL_MEM --file-prefix "c$tag" \
		--vdev "net_memif0,role=client,socket=$sock" -- --mode client \
		--addr 198.18.1.1/24 --peer 198.18.1.2 --proto tcp --linger 2 \
		--json "$OUT/$tag.json" "${copts[@]}" > "$OUT/$tag.client" 2>&1 &
	local cli=$!
	while kill -0 $cli 2>/dev/null &&
	      ! grep -qs "^transactions\|^stream " "$OUT/$tag.client"; do
		sleep 0.1
	done
	kill -INT $srv; wait $srv || true; wait $cli || true
}

ust_rr() { # flows size -> "tps p50 p99"
	local tag="rr-$1-$2-$RANDOM"
	memif_pair "$tag" --size "$2" --response "$2" -- --flows "$1" \
		--size "$2" --response "$2" --duration "$DUR" --warmup 1
	jget "$OUT/$tag.json" '"%.0f %.1f %.1f" % (j["result"]["transactions_per_s"], j["result"]["latency_ns"]["p50"] / 1e3, j["result"]["latency_ns"]["p99"] / 1e3)'
}

ust_cps() { # -> "connections/s"
	local tag="cps-$RANDOM"
	memif_pair "$tag" --size 64 --response 64 -- --flows 16 --size 64 \
		--response 64 --reconnect 1 --duration "$DUR" --warmup 1 \
		--config "$OUT/cps.ini"
	jget "$OUT/$tag.json" '"%.0f" % (j["result"]["transactions"] / j["result"]["seconds"])'
}

ust_bulk() { # -> Gbit/s
	local tag="bulk-$RANDOM"
	memif_pair "$tag" --discard --rcvbuf 4194304 -- \
		--bulk $((4 << 30)) --sndbuf 4194304 --rcvbuf 4194304 \
		--duration 60
	jget "$OUT/$tag.json" '"%.2f" % (j["result"]["bytes_sent"] * 8 / j["result"]["seconds"] / 1e9)'
}

veth_up() { veth_pair bk1-$$ bk2-$$ vb1 vb2 198.18.3; }
veth_down() { veth_pair_del bk1-$$ bk2-$$; }

# The kernel's request-response: ust-perf --stack kernel (the same tool and
# traffic as ustack's side; --kernel-wait block, as applications run the
# kernel), or with [reconnect] kernel_tcp_rr.c's client that reconnects
# after every transaction (connections per second: ust-perf has no such
# kernel mode).
kernel_rr() { # flows size [reconnect] -> "tps p50 p99"
	local out
	veth_up
	ip netns exec bk1-$$ sysctl -qw net.ipv4.tcp_tw_reuse="${KERNEL_TW_REUSE:-2}"
	if [ -n "${3:-}" ]; then
		ip netns exec bk2-$$ taskset -c 0 "$KRR" server 7777 "$2" "$2" \
			> /dev/null 2>&1 &
		sleep 0.5
		out=$(ip netns exec bk1-$$ taskset -c 1 "$KRR" client \
			198.18.3.2 7777 "$1" "$2" "$2" "$DUR" "$3")
		kill %1 2>/dev/null || true
	else
		ip netns exec bk2-$$ "$PERF" -l 0 -- --stack kernel \
			--mode tcp-rr --role server --port 7777 --size "$2" \
			--duration "$DUR" --warmup 1 --stats-period 0 \
			> "$OUT/krr-srv.log" 2>&1 &
		sleep 0.5
		ip netns exec bk1-$$ "$PERF" -l 1 -- --stack kernel \
			--mode tcp-rr --role client --peer 198.18.3.2 \
			--port 7777 --conns "$1" --size "$2" --duration "$DUR" \
			--warmup 1 --stats-period 0 --json "$OUT/krr.json" \
			> "$OUT/krr-cli.log" 2>&1 || true
		out=$(/usr/bin/python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))["result"]
print("%.0f %.1f %.1f" % (r["transactions_per_s"],
      r["latency_ns"]["p50"] / 1e3, r["latency_ns"]["p99"] / 1e3))' \
			"$OUT/krr.json" 2>/dev/null || echo "n/a n/a n/a")
	fi
	wait || true
	veth_down
	echo "$out"
}

kernel_bulk() { # -> Gbit/s (ust-perf --stack kernel tcp-stream, one flow, veth)
	local out
	veth_up
	ip netns exec bk2-$$ "$PERF" -l 0 -- --stack kernel --mode tcp-stream \
		--role server --port 5201 --duration "$DUR" --warmup 1 \
		--stats-period 0 > "$OUT/kbulk-srv.log" 2>&1 &
	sleep 0.5
	ip netns exec bk1-$$ "$PERF" -l 1 -- --stack kernel --mode tcp-stream \
		--role client --peer 198.18.3.2 --port 5201 --duration "$DUR" \
		--warmup 1 --stats-period 0 --json "$OUT/kbulk.json" \
		> "$OUT/kbulk-cli.log" 2>&1 || true
	out=$(jget "$OUT/kbulk.json" '"%.2f" % j["result"]["gbit_per_s"]' \
		2>/dev/null)
	wait || true
	veth_down
	echo "${out:-n/a}"
}

# the client reuses its TIME_WAIT 4-tuples as Linux's tcp_tw_reuse = 1
# does (both stacks have 28232 ephemeral ports and 60 s of TIME_WAIT)
printf '[tcp]\ntw_reuse = 1\n' > "$OUT/cps.ini"

declare -A R
# BENCH_ONLY_MEM=1: the memory test alone
[ "${BENCH_ONLY_MEM:-0}" = 1 ] && REPS_RUN=0 || REPS_RUN=$REPS
for rep in $(seq 1 "$REPS_RUN"); do
	for cfg in "1 40" "1 44" "1 1024" "200 40" "200 44" "200 1024"; do
		R["ust $cfg $rep"]=$(ust_rr $cfg)
		# the floor right after the run it is the floor of (the pair
		# most likely shares the vCPUs' placement: doc/performance.md)
		set -- $cfg
		R["l2 $cfg $rep"]=$(l2_floor "$1" "$(l2_frame "$2")")
		R["kernel $cfg $rep"]=$(kernel_rr $cfg)
	done
	R["ust cps $rep"]=$(ust_cps)
	R["kernel cps $rep"]=$(KERNEL_TW_REUSE=1 kernel_rr 16 64 1 |
		awk '{print $1}')
	R["ust bulk $rep"]=$(ust_bulk)
	R["kernel bulk $rep"]=$(kernel_bulk)
done

col() { # key field -> median over reps
	local k=$1 f=$2 v=() rep
	for rep in $(seq 1 "$REPS"); do
		v+=("$(echo "${R["$k $rep"]}" | awk -v f="$f" '{print $f}')")
	done
	median "${v[@]}"
}

[ "$REPS_RUN" = 0 ] || {
echo
echo "| stack | connections | request = response (bytes) | transactions/s | p50 (us) | p99 (us) |"
echo "|---|---|---|---|---|---|"
for cfg in "1 40" "1 44" "1 1024" "200 40" "200 44" "200 1024"; do
	set -- $cfg
	echo "| ustack, ust-echo <-> ust-echo over net_memif | $1 | $2 | $(col "ust $cfg" 1) | $(col "ust $cfg" 2) | $(col "ust $cfg" 3) |"
	echo "| the wire alone, ust-perf l2-pingpong over net_memif ($(l2_frame "$2")-byte frames) | $1 | $2 | $(col "l2 $cfg" 1) | $(col "l2 $cfg" 2) | $(col "l2 $cfg" 3) |"
	echo "| Linux, ust-perf --stack kernel over veth | $1 | $2 | $(col "kernel $cfg" 1) | $(col "kernel $cfg" 2) | $(col "kernel $cfg" 3) |"
done
echo
echo "ustack against the wire alone, run by run (transactions/s ustack / l2-pingpong; p50 added by the stacks):"
floor_ratios "1 40" "1 44" "1 1024" "200 40" "200 44" "200 1024"
echo
echo "| measure | ustack (net_memif) | Linux (veth) |"
echo "|---|---|---|"
echo "| connections/s (16 clients, one 64-byte transaction each) | $(col "ust cps" 1) | $(col "kernel cps" 1) |"
echo "| single-flow bulk (Gbit/s) | $(col "ust bulk" 1) | $(col "kernel bulk" 1) |"
}

[ "${BENCH_SKIP_MEM:-0}" = 1 ] && exit 0

# memory per established idle connection: 100,000 kernel connections over
# TAP to a ust-echo server that holds them in its accept queue
N=${BENCH_CONNS:-100000}
ns=bm-$$
ip netns add $ns
ip -n $ns link set lo up
cat > "$OUT/mem.ini" <<INI
[stack]
max_sockets = 1024
[tcp]
max_conns = $((N + N / 4))
max_syn_backlog = 65536
listen_overcommit = 1
INI
nsenter --net=/var/run/netns/$ns "$ECHO" -l 0 --no-pci $UST_EAL_MEM \
	--file-prefix "mem$$" --vdev net_tap0,iface=ustb0 -- \
	--config "$OUT/mem.ini" --addr 198.18.0.2/24 --proto tcp --port 7 \
	--hold --backlog $((N + N / 4)) --stats-period 1 \
	> "$OUT/mem.server" 2>&1 &
srv=$!
for i in $(seq 1 100); do
	ip -n $ns link show ustb0 > /dev/null 2>&1 && break
	sleep 0.1
done
for a in 1 3 4 5; do ip -n $ns addr add 198.18.0.$a/24 dev ustb0; done
ip -n $ns link set ustb0 up
ip netns exec $ns sysctl -qw net.ipv4.ip_local_port_range="10000 60999"
sleep 1
# the kernel side in processes of at most 15000 connections each (the hard
# limit of open files may be 20000 in a container, and only root with
# CAP_SYS_RESOURCE can raise it)
per=15000
k=$(((N + per - 1) / per))
clis=()
for i in $(seq 1 $k); do
	m=$((i < k ? per : N - per * (k - 1)))
	ip netns exec $ns /usr/bin/python3 "$(dirname "$0")/many_conns.py" \
		198.18.0.2 7 "$m" 198.18.0.1 198.18.0.3 198.18.0.4 198.18.0.5 \
		> "$OUT/mem.client.$i" 2>&1 &
	clis+=($!)
	# one after the other: each waits for its handshakes
	while kill -0 "${clis[-1]}" 2>/dev/null &&
	      ! grep -qs established "$OUT/mem.client.$i"; do
		sleep 1
	done
done
cat "$OUT"/mem.client.* > "$OUT/mem.client"
sleep 3
kill "${clis[@]}" 2>/dev/null || true
kill -INT $srv; wait $srv || true
ip netns del $ns
/usr/bin/python3 - "$OUT/mem.server" "$OUT/mem.client" "$N" <<'PYEOF'
import re, sys
srv = open(sys.argv[1]).read()
base = int(re.search(r"heap (\d+) bytes", srv).group(1))
lines = re.findall(r"established (\d+) heap (\d+)", srv)
est, heap = max((int(e), int(h)) for e, h in lines)
cli = open(sys.argv[2]).read().strip().splitlines()
print()
print(f"memory per established idle connection: {(heap - base) / est:.0f} bytes "
      f"({est} connections held by ust-echo --hold: heap {base / 2**20:.1f} MiB "
      f"at start, {heap / 2**20:.1f} MiB with them; kernel client: "
      f"{cli[-1] if cli else 'n/a'})")
PYEOF
