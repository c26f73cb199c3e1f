#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# ust-perf --stack kernel (issue 14): every mode it has (udp-flood,
# udp-sink, tcp-rr, tcp-stream) run against ust-perf on ustack over TAP,
# each role once on each stack, so that both stacks' documents of the same
# mode and role exist: their "options", "result" and "stacks" objects have
# the same keys (a figure only ustack has is null on the kernel's side),
# the kernel's top-level keys are among ustack's, and the traffic is right
# (TCP byte-exact with --verify both ways, transactions counted on both
# sides, datagrams delivered and every one accounted for).
. "$(dirname "$0")/lib.sh"
require_root
ns_create
DUR=(--duration 2 --warmup 0.5 --stats-period 0)
IF=ustpk0
NUM=0

# ust-perf on ustack over a TAP of its own (198.18.0.2; the kernel's side
# 198.18.0.1); NAME then the mode's flags. Sets UPID.
start_ustack() {
	local name=$1
	shift
	NUM=$((NUM + 1))
	IF=ustpk$NUM
	nsenter --net="/var/run/netns/$NS" "$PERF_BIN" -l 0 --no-pci \
		$(eal_mem 256) --file-prefix "pk$name-$$" \
		--vdev "net_tap0,iface=$IF" -- --addr 198.18.0.2/24 \
		"${DUR[@]}" --json "$WORK/$name.json" "$@" \
		> "$WORK/$name.log" 2>&1 &
	UPID=$!
	PIDS+=("$UPID")
	wait_iface "$IF"
	nsx ip addr add 198.18.0.1/24 dev "$IF"
	nsx ip link set "$IF" up
	sleep 0.3
}

# ust-perf --stack kernel in the namespace, in the background; NAME then
# the mode's flags. Sets KPID.
start_kernel() {
	local name=$1
	shift
	nsenter --net="/var/run/netns/$NS" "$PERF_BIN" --stack kernel \
		"${DUR[@]}" --json "$WORK/$name.json" "$@" \
		> "$WORK/$name.log" 2>&1 &
	KPID=$!
	PIDS+=("$KPID")
}

# wait for PID; fail with NAME's log unless it exits with status 0
reap() {
	local pid=$1 name=$2 rc=0
	wait "$pid" || rc=$?
	[ "$rc" = 0 ] || { cat "$WORK/$name.log"; fail "$name exited with $rc"; }
}

done_pair() {
	nsx ip link del "$IF" 2>/dev/null || true
}

# tcp-rr: the kernel's client against ustack's server, then ustack's
# client against the kernel's server; 40-byte requests and responses,
# the pattern checked both ways
start_ustack us_rr_srv --mode tcp-rr --role server --size 40 --verify
start_kernel k_rr_cli --mode tcp-rr --role client --peer 198.18.0.2 \
	--conns 4 --size 40 --verify
reap "$KPID" k_rr_cli
reap "$UPID" us_rr_srv
done_pair
start_kernel k_rr_srv --mode tcp-rr --role server --size 40 --verify
sleep 0.5
start_ustack us_rr_cli --mode tcp-rr --role client --peer 198.18.0.1 \
	--conns 4 --size 40 --verify
reap "$UPID" us_rr_cli
reap "$KPID" k_rr_srv
done_pair

# tcp-stream: both ways, byte-exact
start_ustack us_st_srv --mode tcp-stream --role server --verify
start_kernel k_st_cli --mode tcp-stream --role client --peer 198.18.0.2 \
	--conns 2 --verify
reap "$KPID" k_st_cli
reap "$UPID" us_st_srv
done_pair
start_kernel k_st_srv --mode tcp-stream --role server --verify
sleep 0.5
start_ustack us_st_cli --mode tcp-stream --role client --peer 198.18.0.1 \
	--conns 2 --verify
reap "$UPID" us_st_cli
reap "$KPID" k_st_srv
done_pair

# UDP: the kernel's flood into ustack's sink, ustack's flood into the
# kernel's sink (the sinks measure a second longer than the floods run)
DUR=(--duration 3 --warmup 0.5 --stats-period 0)
start_ustack us_sink --mode udp-sink --port 5001
DUR=(--duration 2 --warmup 0.2 --stats-period 0)
start_kernel k_flood --mode udp-flood --peer 198.18.0.2 --dst-port 5001 \
	--rate 100k
reap "$KPID" k_flood
reap "$UPID" us_sink
done_pair
DUR=(--duration 3 --warmup 0.5 --stats-period 0)
start_kernel k_sink --mode udp-sink --port 5001
sleep 0.5
DUR=(--duration 2 --warmup 0.2 --stats-period 0)
start_ustack us_flood --mode udp-flood --peer 198.18.0.1 --dst-port 5001 \
	--rate 100k
reap "$UPID" us_flood
reap "$KPID" k_sink
done_pair

for f in us_rr_srv us_rr_cli us_st_srv us_st_cli us_sink us_flood; do
	check_json_sane "$WORK/$f.json" || fail "$f accounting"
done

"$PY" - "$WORK" <<'PYEOF' || fail "the documents"
import json, sys
w = sys.argv[1]
def load(n):
    return json.load(open(f"{w}/{n}.json"))
def keys(v, path="", nulls=None):
    """every key path of @v (an array's elements merged as []; neither
    stack's "counters" looked into: not the same MIB); the paths whose
    value is null added to @nulls"""
    out = set()
    if isinstance(v, dict):
        for k, x in v.items():
            p = f"{path}.{k}"
            out.add(p)
            if x is None and nulls is not None:
                nulls.add(p)
            if k != "counters":
                out |= keys(x, p, nulls)
    elif isinstance(v, list):
        for x in v:
            out |= keys(x, path + "[]", nulls)
    return out
pairs = [("rr_srv", "tcp-rr"), ("rr_cli", "tcp-rr"), ("st_srv", "tcp-stream"),
         ("st_cli", "tcp-stream"), ("sink", "udp-sink"), ("flood", "udp-flood")]
for name, mode in pairs:
    u, k = load("us_" + name), load("k_" + name)
    assert u["stack"] == "ustack" and k["stack"] == "kernel", name
    assert u["mode"] == k["mode"] == mode, name
    for part in ("options", "result", "stacks", "socket"):
        if part not in u and part not in k:
            continue
        nk = set()
        a = keys(u[part], part)
        b = keys(k[part], part, nk)
        # an object the kernel has as null (tcp_tx): its key alone
        a = {p for p in a if not any(p.startswith(q + ".") for q in nk)}
        assert a == b, (name, part, sorted(a ^ b))
    top_u, top_k = set(u), set(k)
    assert top_k <= top_u, (name, sorted(top_k - top_u))
    assert "Tcp" in k["counters"] and "Udp" in k["counters"], name
# the traffic
for n in ("us_rr_srv", "k_rr_srv", "us_rr_cli", "k_rr_cli",
          "us_st_srv", "k_st_srv", "us_st_cli", "k_st_cli"):
    j = load(n)
    r, v = j["result"], j["result"]["verify"]
    assert r["errors"] == 0, (n, r)
    assert v["errors"] == 0, (n, v)
    if "srv" in n:
        assert v["bytes_checked"] > 0, (n, v)
    else:
        assert v["bytes_sent"] > 0, (n, v)
    if "rr" in n:
        assert r["transactions"] > 0, (n, r)
    print(f"  {n}: {r.get('transactions', '-')} transactions, "
          f"{v['bytes_checked']} bytes checked, {v['bytes_sent']} sent")
# the clients' streams arrived whole at the servers (checked there)
for c, s in (("us_st_cli", "k_st_srv"), ("k_st_cli", "us_st_srv"),
             ("us_rr_cli", "k_rr_srv"), ("k_rr_cli", "us_rr_srv")):
    sent = load(c)["result"]["verify"]["bytes_sent"]
    got = load(s)["result"]["verify"]["bytes_checked"]
    assert got == sent, (c, s, sent, got)
for fl, sk in (("k_flood", "us_sink"), ("us_flood", "k_sink")):
    f, s = load(fl)["result"], load(sk)["result"]
    assert f["sent"] > 10000, (fl, f)
    assert s["delivered"] > 0, (sk, s)
    # every datagram that reached the socket was read or counted dropped
    assert s["frames_in"] >= s["delivered"] + s["rcvbuf_drops"], (sk, s)
    print(f"  {fl} -> {sk}: {f['sent']} sent, {s['delivered']} delivered, "
          f"{s['rcvbuf_drops']} rcvbuf drops")
k = load("k_sink")
assert k["result"]["pages_charged_per_datagram"] is None, k["result"]
assert k["socket"]["rcvbuf"] > 0 and k["socket"]["releases"] is None, k
assert k["counters"]["Udp"]["InDatagrams"] >= k["result"]["delivered"], k
PYEOF

# the refusals: a mode the kernel has not, an option of ustack's, --zc, a
# stack that is not one
refused() { # FILE PATTERN ARGS...: exit status 2 and PATTERN said
	local f=$1 pat=$2 rc=0
	shift 2
	"$PERF_BIN" "$@" > "$WORK/$f" 2>&1 || rc=$?
	[ "$rc" = 2 ] && grep -q "$pat" "$WORK/$f" ||
		fail "$* (exit $rc): $(cat "$WORK/$f")"
}
refused e1 "^ust-perf: error: --mode tcp-rr-loop: not with --stack kernel" \
	--stack kernel --mode tcp-rr-loop
refused e2 "^ust-perf: error: --addr: not with --stack kernel" \
	--stack kernel --mode udp-sink --addr 198.18.0.2/24
refused e3 "^ust-perf: error: --zc: not with --stack kernel" \
	--stack kernel --mode tcp-rr --role client --peer 198.18.0.1 --zc
refused e4 "^ust-perf: error: --split: not with --stack kernel" \
	--stack kernel --mode udp-sink --split
refused e5 "^ust-perf: error: --stack linux: expected ustack or kernel" \
	--stack linux --mode udp-sink
log "four modes on both stacks: the same keys, the traffic byte-exact"
