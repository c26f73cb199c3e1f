#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# Scale-out, share-nothing check (issue 11): k = 1, 2, 4, ... lcores of an
# lcore list (and the whole list), each lcore running its own traffic with
# no wire between the lcores:
#   sink  ust-perf --mode udp-sink --source synthetic --nb-cores k: each
#         lcore builds 64-byte datagrams into its own stack, which a socket
#         bound on every stack (a shard each) reads; the port (net_null) is
#         there for the bring-up only, no frame crosses it;
#   rr    ust-perf --mode tcp-rr-loop --nb-cores k: on each lcore a client
#         stack and a server stack wired in memory, --conns connections of
#         64-byte request-response;
#   procs the control: k separate single-lcore tcp-rr-loop processes at
#         once. They share no memory at all, so their total over one
#         process's is what this machine gives k-way parallel work; "rr"
#         below it names something shared inside one process (the last
#         lines: one process / k processes). On a VM whose vCPUs do not
#         run at one speed, x1 (against lcore 0 alone) is off by as much;
#         the control is not.
# Hugepages are reserved (without them, EAL's --no-huge memory is faulted
# in on first touch, and the lcores of one process then queue on its page
# table lock: 30,000 faults in 3 s of tcp-rr-loop here).
# BENCH_REPS runs of each k and test, interleaved; per-lcore rates and
# totals are medians over the runs; "x1" is total(k) / total(1).
#   sudo devtools/bench/scale.sh [--lcores LIST]      (or LCORES=LIST)
# LIST is an EAL lcore list (0-7, 0,2,4-5; default: every core of the
# machine). BENCH_DURATION (5 s), BENCH_CONNS (tcp-rr-loop connections per
# lcore, 4). A machine with a real multi-queue port measures the same
# ust-perf modes over the port with --source port and tcp-rr/tcp-stream.
. "$(dirname "$0")/lib.sh"

LCORES=${LCORES:-0-$(($(nproc) - 1))}
while [ $# -gt 0 ]; do
	case $1 in
	--lcores) LCORES=${2:?--lcores needs a list}; shift 2 ;;
	--lcores=*) LCORES=${1#--lcores=}; shift ;;
	-h|--help) sed -n '4,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "scale.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
done

# the list, expanded and sorted (the first is the main lcore)
expand_lcores() {
	local part a b
	for part in ${1//,/ }; do
		if [[ $part =~ ^([0-9]+)-([0-9]+)$ ]]; then
			a=${BASH_REMATCH[1]} b=${BASH_REMATCH[2]}
			[ "$a" -le "$b" ] || return 1
			seq "$a" "$b"
		elif [[ $part =~ ^[0-9]+$ ]]; then
			echo "$part"
		else
			return 1
		fi
	done | sort -n -u
}
if ! mapfile -t CORES < <(expand_lcores "$LCORES") || [ ${#CORES[@]} = 0 ]; then
	echo "scale.sh: --lcores $LCORES: expected an lcore list like 0-7 or 0,2,4-5" >&2
	exit 2
fi
for c in "${CORES[@]}"; do
	if [ "$c" -ge "$(nproc --all)" ]; then
		echo "scale.sh: --lcores $LCORES: this machine has $(nproc --all) cores" >&2
		exit 2
	fi
done
N=${#CORES[@]}
KS=()
for ((k = 1; k < N; k *= 2)); do KS+=("$k"); done
KS+=("$N")

bench_setup
DUR=${BENCH_DURATION:-5}
CONNS=${BENCH_CONNS:-4}
RES="$OUT/scale.tsv"
: > "$RES"

first_k() { local IFS=,; echo "${CORES[*]:0:$1}"; }

# test k rep: one run; appends "test k rep rate0 rate1 ..." to $RES
run_one() {
	local test=$1 k=$2 rep=$3 l tag json
	l=$(first_k "$k")
	tag="$test-$k-$rep-$RANDOM"
	json="$OUT/$tag.json"
	if [ "$test" = sink ]; then
		timeout $((DUR + 30)) "$PERF" -l "$l" --no-pci $UST_EAL_MEM \
			--file-prefix "sc$tag" --vdev net_null0 -- \
			--mode udp-sink --source synthetic --size 64 \
			--addr 198.18.0.1/24 --nb-cores "$k" \
			--duration "$DUR" --warmup 1 --stats-period 0 \
			--json "$json" > "$OUT/$tag.log" 2>&1 || true
		key=frames_in_per_s
	elif [ "$test" = rr ]; then
		timeout $((DUR + 30)) "$PERF" -l "$l" --no-pci $UST_EAL_MEM \
			--file-prefix "sc$tag" -- --mode tcp-rr-loop \
			--nb-cores "$k" --conns "$CONNS" --duration "$DUR" \
			--warmup 1 --stats-period 0 \
			--json "$json" > "$OUT/$tag.log" 2>&1 || true
		key=transactions_per_s
	else
		# k processes, one lcore each, side by side
		local i pids=() rates=()
		for ((i = 0; i < k; i++)); do
			timeout $((DUR + 30)) "$PERF" -l "${CORES[$i]}" --no-pci \
				$UST_EAL_MEM --file-prefix "sc$tag-$i" -- \
				--mode tcp-rr-loop --conns "$CONNS" \
				--duration "$DUR" --warmup 1 --stats-period 0 \
				--json "$json.$i" > "$OUT/$tag.$i.log" 2>&1 &
			pids+=("$!")
		done
		wait "${pids[@]}" || true
		for ((i = 0; i < k; i++)); do
			if [ ! -s "$json.$i" ]; then
				echo "scale.sh: procs on lcore ${CORES[$i]} failed: see $OUT/$tag.$i.log" >&2
				return
			fi
			rates+=("$(jget "$json.$i" "'%.0f' % j['stacks'][0]['transactions_per_s']")")
		done
		echo "$test $k $rep ${rates[*]}" >> "$RES"
		return
	fi
	if [ ! -s "$json" ]; then
		echo "scale.sh: $test on lcores $l failed: see $OUT/$tag.log" >&2
		return
	fi
	echo "$test $k $rep $(jget "$json" "' '.join('%.0f' % s['$key'] for s in j['stacks'])")" >> "$RES"
}

echo "lcores: ${CORES[*]}; k = ${KS[*]}; $REPS runs each, ${DUR} s" >&2
for ((rep = 1; rep <= REPS; rep++)); do
	for k in "${KS[@]}"; do
		for test in sink rr procs; do
			[ "$test" = procs ] && [ "$k" = 1 ] && continue
			echo "run $rep: $test, $k lcore(s)" >&2
			run_one "$test" "$k" "$rep"
		done
	done
done

/usr/bin/python3 - "$RES" "$CONNS" <<'EOF'
import sys, statistics
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
res = {}
for t, k, rep, *rates in rows:
    res.setdefault((t, int(k)), []).append([float(r) for r in rates])
names = {"sink": "udp-sink synthetic, 64 B (Mpps)",
         "rr": "tcp-rr-loop, %s conns/lcore (M txn/s)" % sys.argv[2],
         "procs": "control: k tcp-rr-loop processes (M txn/s)"}
print("| test | lcores | per lcore (median of runs) | total | x1 | x1 / lcores |")
print("|---|---|---|---|---|---|")
for t in ("sink", "rr", "procs"):
    # the control's base is one lcore of rr: one process alone
    base = statistics.median(sum(r) for r in res[("rr", 1)]) \
        if t == "procs" and ("rr", 1) in res else None
    for k in sorted(kk for tt, kk in res if tt == t):
        runs = res[(t, k)]
        per = [statistics.median(r[i] for r in runs) for i in range(k)]
        tot = statistics.median(sum(r) for r in runs)
        if k == 1:
            base = tot
        x = tot / base if base else float("nan")
        print("| %s | %d | %s | %.3f | %.2f | %.2f |" % (
            names[t], k, " ".join("%.3f" % (p / 1e6) for p in per),
            tot / 1e6, x, x / k))
# the criterion that does not depend on how fast each core of the machine
# is today: k lcores in one process against k processes (the control)
for k in sorted(kk for tt, kk in res if tt == "procs"):
    if ("rr", k) not in res:
        continue
    a = statistics.median(sum(r) for r in res[("rr", k)])
    b = statistics.median(sum(r) for r in res[("procs", k)])
    print("tcp-rr-loop, %d lcores in one process / %d processes: %.2f" %
          (k, k, a / b))
EOF
