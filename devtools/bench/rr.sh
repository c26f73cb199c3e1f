#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# UDP request-response, issue-2 table: two ust-echo processes over net_memif
# (client on lcore 1, server on lcore 0), the wire's own round trip
# (ust-perf l2-pingpong: raw frames of the same length bounced between two
# processes over the same kind of memif pair), dpdk-testpmd io forwarding over
# the same kind of memif pair as the ceiling, and two kernel sockets
# (sockperf ping-pong over a veth pair between two namespaces, and over
# loopback in one namespace; blocking and busy-polling sockets).
# BENCH_REPS runs of each, interleaved; medians.
#   sudo devtools/bench/rr.sh
. "$(dirname "$0")/lib.sh"
bench_setup
DUR=${BENCH_DURATION:-5}

ust_rr() { # flows size -> prints "tps p50 p99" (us)
	local flows=$1 size=$2 sock="$OUT/rr.sock" tag="rr-$1-$2-$RANDOM"
	rm -f "$sock"
	"$ECHO" -l 0 --no-pci $UST_EAL_MEM --file-prefix "s$tag" \
		--vdev "net_memif0,role=server,socket=$sock" -- \
		--addr 198.18.1.2/24 > "$OUT/$tag.server" 2>&1 &
	local srv=$!
	sleep 1
	"$ECHO" -l 1 --no-pci $UST_EAL_MEM --file-prefix "c$tag" \
		--vdev "net_memif0,role=client,socket=$sock" -- --mode client \
		--addr 198.18.1.1/24 --peer 198.18.1.2 --flows "$flows" \
		--size "$size" --duration "$DUR" --warmup 1 --linger 2 \
		--json "$OUT/$tag.json" > "$OUT/$tag.client" 2>&1 &
	local cli=$!
	while kill -0 $cli 2>/dev/null && ! grep -qs "^transactions" "$OUT/$tag.client"; do
		sleep 0.1
	done
	kill -INT $srv; wait $srv || true; wait $cli || true
	jget "$OUT/$tag.json" '"%.0f %.1f %.1f" % (j["result"]["transactions_per_s"], j["result"]["latency_ns"]["p50"] / 1e3, j["result"]["latency_ns"]["p99"] / 1e3)'
}

testpmd_io() { # -> Mpps through the io-forwarding side
	local sock="$OUT/tp.sock" tag="tp$RANDOM"
	rm -f "$sock"
	timeout $((DUR + 8)) dpdk-testpmd -l 0,1 --main-lcore 0 --no-pci \
		$UST_EAL_MEM --file-prefix "a$tag" \
		--vdev "net_memif0,role=server,socket=$sock" -- \
		--forward-mode=io --stats-period $DUR --total-num-mbufs=16384 \
		> "$OUT/$tag.io" 2>&1 &
	sleep 2
	timeout $((DUR + 4)) dpdk-testpmd -l 0,1 --main-lcore 1 --no-pci \
		$UST_EAL_MEM --file-prefix "b$tag" \
		--vdev "net_memif0,role=client,socket=$sock" -- \
		--forward-mode=txonly --txpkts=64 --stats-period $DUR \
		--total-num-mbufs=16384 > "$OUT/$tag.tx" 2>&1 || true
	wait || true
	grep "Rx-pps" "$OUT/$tag.io" | awk '{print $2}' | sort -g | tail -1 |
		awk '{printf "%.2f\n", $1 / 1e6}'
}

kernel_rr() { # where size [busy] -> "tps p50 p99"
	local where=$1 size=$2 ns1=bk1-$$ ns2=bk2-$$ ip=198.18.3.2 log nb=""
	[ "${3:-}" = busy ] && nb=--nonblocked
	log="$OUT/kernel-$where-$size-$RANDOM"
	if [ "$where" = veth ]; then
		ip netns add $ns1; ip netns add $ns2
		ip link add vb1 netns $ns1 type veth peer name vb2 netns $ns2
		ip -n $ns1 addr add 198.18.3.1/24 dev vb1
		ip -n $ns2 addr add 198.18.3.2/24 dev vb2
		ip -n $ns1 link set vb1 up; ip -n $ns2 link set vb2 up
		ip -n $ns1 link set lo up; ip -n $ns2 link set lo up
		ip netns exec $ns2 taskset -c 0 sockperf server -i $ip -p 7777 \
			$nb > /dev/null 2>&1 &
		sleep 1
		ip netns exec $ns1 taskset -c 1 sockperf ping-pong -i $ip -p 7777 \
			-t "$DUR" --msg-size "$size" --full-rtt --mps=max $nb \
			> "$log" 2>&1 || true
		kill %1 2>/dev/null || true
		wait || true
		ip netns del $ns1; ip netns del $ns2
	else
		# loopback, inside a namespace, on an address of the test range
		ip netns add $ns1
		ip -n $ns1 link set lo up
		ip -n $ns1 addr add 198.18.4.1/32 dev lo
		ip netns exec $ns1 taskset -c 0 sockperf server -i 198.18.4.1 \
			-p 7778 $nb > /dev/null 2>&1 &
		sleep 1
		ip netns exec $ns1 taskset -c 1 sockperf ping-pong -i 198.18.4.1 \
			-p 7778 -t "$DUR" --msg-size "$size" --full-rtt --mps=max \
			$nb > "$log" 2>&1 || true
		kill %1 2>/dev/null || true
		wait || true
		ip netns del $ns1
	fi
	/usr/bin/python3 - "$log" "$DUR" <<'PYEOF'
import re, sys
t = open(sys.argv[1]).read()
obs = re.search(r"(\d+) observations", t)
p50 = re.search(r"percentile 50.000 =\s+([\d.]+)", t)
p99 = re.search(r"percentile 99.000 =\s+([\d.]+)", t)
dur = re.search(r"Valid Duration\] RunTime=([\d.]+) sec", t)
if not (obs and p50 and p99 and dur):
    print("n/a n/a n/a")
else:
    print(f"{int(obs.group(1)) / float(dur.group(1)):.0f} {p50.group(1)} {p99.group(1)}")
PYEOF
}

declare -A R
for rep in $(seq 1 "$REPS"); do
	for cfg in "1 64" "8 64" "1 1024"; do
		R["ust $cfg $rep"]=$(ust_rr $cfg)
		set -- $cfg
		R["l2 $cfg $rep"]=$(l2_floor "$1" $((14 + 20 + 8 + $2)))
	done
	for cfg in "veth 64" "lo 64" "veth 1024" "veth 64 busy" "lo 64 busy" \
		   "veth 1024 busy"; do
		R["kernel $cfg $rep"]=$(kernel_rr $cfg)
	done
	R["testpmd $rep"]=$(testpmd_io)
done

col() { # key-prefix field -> median over reps
	local k=$1 f=$2 v=() rep
	for rep in $(seq 1 "$REPS"); do
		v+=("$(echo "${R["$k $rep"]}" | awk -v f="$f" '{print $f}')")
	done
	median "${v[@]}"
}

echo
echo "| peer pair | flows | size | transactions/s | p50 (us) | p99 (us) |"
echo "|---|---|---|---|---|---|"
for cfg in "1 64" "8 64" "1 1024"; do
	set -- $cfg
	echo "| ust-echo <-> ust-echo, net_memif | $1 | $2 | $(col "ust $cfg" 1) | $(col "ust $cfg" 2) | $(col "ust $cfg" 3) |"
	echo "| the wire alone: ust-perf l2-pingpong, net_memif ($((14 + 20 + 8 + $2))-byte frames) | $1 | $2 | $(col "l2 $cfg" 1) | $(col "l2 $cfg" 2) | $(col "l2 $cfg" 3) |"
done
for cfg in "veth 64" "lo 64" "veth 1024" "veth 64 busy" "lo 64 busy" \
	   "veth 1024 busy"; do
	set -- $cfg
	how="blocking"
	[ "${3:-}" = busy ] && how="busy-polling, --nonblocked"
	echo "| kernel <-> kernel (sockperf, $how), $1 | 1 | $2 | $(col "kernel $cfg" 1) | $(col "kernel $cfg" 2) | $(col "kernel $cfg" 3) |"
done
echo
echo
echo "ust-echo against the wire alone, run by run (transactions/s ust-echo / l2-pingpong; p50 added by the stacks):"
floor_ratios "1 64" "8 64" "1 1024"
echo
v=(); for rep in $(seq 1 "$REPS"); do v+=("${R["testpmd $rep"]}"); done
echo "dpdk-testpmd io forwarding over a net_memif pair (txonly 64-byte frames into it): $(median "${v[@]}") Mpps"
