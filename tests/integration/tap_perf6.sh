#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# ust-perf over IPv6 (issue 15), against ust-perf --stack kernel over TAP,
# in 2001:2::/64 (RFC 5180): with --addr6 ustack's servers are dual-stack
# ([::]) and its clients take an IPv6 --peer, as the kernel's.
# - tcp-rr and tcp-stream each way (--verify: byte-exact, the transactions
#   counted on both sides), the kernel's client reaching ustack's [::]
#   listener over IPv6 and over IPv4;
# - udp-flood each way into the other's udp-sink over IPv6, every datagram
#   read or counted as dropped;
# - ustack's side: frames in == consumed + dropped, no mbuf leaked, and
#   its Ip6 counters saw the traffic.
. "$(dirname "$0")/lib.sh"
require_root
ns_create
DUR=(--duration 2 --warmup 0.5 --stats-period 0)
NUM=0

# ust-perf on ustack over a TAP of its own (198.18.0.2, 2001:2::2; the
# kernel's side 198.18.0.1, 2001:2::1, with a MAC of its own: net_tap
# gives it the port's, whose link-local address would be ours); NAME then
# the mode's flags. Sets UPID and IF.
start_ustack() {
	local name=$1 i ok=0
	shift
	NUM=$((NUM + 1))
	IF=ustp6$NUM
	nsenter --net="/var/run/netns/$NS" "$PERF_BIN" -l 0 --no-pci \
		$(eal_mem 256) --file-prefix "p6$name-$$" \
		--vdev "net_tap0,iface=$IF" -- --addr 198.18.0.2/24 \
		--addr6 2001:2::2/64 "${DUR[@]}" --json "$WORK/$name.json" \
		"$@" > "$WORK/$name.log" 2>&1 &
	UPID=$!
	PIDS+=("$UPID")
	wait_iface "$IF"
	# the port up first: starting it sets the kernel side's MAC
	for i in $(seq 1 100); do
		grep -qs "^port 0: " "$WORK/$name.log" && break
		kill -0 "$UPID" 2>/dev/null || break
		sleep 0.05
	done
	nsx ip link set "$IF" down
	nsx ip link set "$IF" address 02:00:5e:10:00:01
	nsx ip addr add 198.18.0.1/24 dev "$IF"
	nsx ip -6 addr add 2001:2::1/64 dev "$IF" nodad
	nsx ip link set "$IF" up
	# our address once its duplicate address detection is over
	for i in $(seq 1 50); do
		nsx ping -6 -c 1 -W 1 2001:2::2 >/dev/null 2>&1 && { ok=1; break; }
		kill -0 "$UPID" 2>/dev/null || break
		sleep 0.1
	done
	[ "$ok" = 1 ] || { cat "$WORK/$name.log"; fail "2001:2::2 never answered ping6"; }
}

# ust-perf --stack kernel in the namespace; NAME then the mode's flags
start_kernel() {
	local name=$1
	shift
	nsenter --net="/var/run/netns/$NS" "$PERF_BIN" --stack kernel \
		"${DUR[@]}" --json "$WORK/$name.json" "$@" \
		> "$WORK/$name.log" 2>&1 &
	KPID=$!
	PIDS+=("$KPID")
}

reap() {
	local pid=$1 name=$2 rc=0
	wait "$pid" || rc=$?
	[ "$rc" = 0 ] || { cat "$WORK/$name.log"; fail "$name exited with $rc"; }
}

done_pair() {
	nsx ip link del "$IF" 2>/dev/null || true
}

# tcp-rr: the kernel's clients to ustack's [::] listener, one over IPv6
# and one over IPv4 at the same time (the server's run ends when its
# clients have gone: the IPv4 one ends first); ustack's client to the
# kernel's [::] listener over IPv6
DUR=(--duration 4 --warmup 0.5 --stats-period 0)
start_ustack us_rr_srv --mode tcp-rr --role server --size 40 --verify
DUR=(--duration 3 --warmup 0 --stats-period 0)
start_kernel k_rr_cli6 --mode tcp-rr --role client --peer 2001:2::2 \
	--conns 4 --size 40 --verify
K6=$KPID
DUR=(--duration 1 --warmup 0 --stats-period 0)
start_kernel k_rr_cli4 --mode tcp-rr --role client --peer 198.18.0.2 \
	--conns 2 --size 40 --verify
reap "$KPID" k_rr_cli4
reap "$K6" k_rr_cli6
reap "$UPID" us_rr_srv
done_pair
DUR=(--duration 2 --warmup 0.5 --stats-period 0)
start_kernel k_rr_srv --mode tcp-rr --role server --size 40 --verify
sleep 0.5
start_ustack us_rr_cli --mode tcp-rr --role client --peer 2001:2::1 \
	--conns 4 --size 40 --verify
reap "$UPID" us_rr_cli
reap "$KPID" k_rr_srv
done_pair

# tcp-stream: both ways over IPv6, byte-exact
start_ustack us_st_srv --mode tcp-stream --role server --verify
start_kernel k_st_cli --mode tcp-stream --role client --peer 2001:2::2 \
	--conns 2 --verify
reap "$KPID" k_st_cli
reap "$UPID" us_st_srv
done_pair
start_kernel k_st_srv --mode tcp-stream --role server --verify
sleep 0.5
start_ustack us_st_cli --mode tcp-stream --role client --peer 2001:2::1 \
	--conns 2 --verify
reap "$UPID" us_st_cli
reap "$KPID" k_st_srv
done_pair

# UDP over IPv6 each way (the sinks measure longer than the floods run)
DUR=(--duration 3 --warmup 0.5 --stats-period 0)
start_ustack us_sink --mode udp-sink --port 5001
DUR=(--duration 2 --warmup 0.2 --stats-period 0)
start_kernel k_flood --mode udp-flood --peer 2001:2::2 --dst-port 5001 \
	--rate 100k
reap "$KPID" k_flood
reap "$UPID" us_sink
done_pair
DUR=(--duration 3 --warmup 0.5 --stats-period 0)
start_kernel k_sink --mode udp-sink --port 5001
sleep 0.5
DUR=(--duration 2 --warmup 0.2 --stats-period 0)
start_ustack us_flood --mode udp-flood --peer 2001:2::1 --dst-port 5001 \
	--rate 100k
reap "$UPID" us_flood
reap "$KPID" k_sink
done_pair

for f in us_rr_srv us_rr_cli us_st_srv us_st_cli us_sink us_flood; do
	check_json_sane "$WORK/$f.json" || fail "$f accounting"
done

"$PY" - "$WORK" <<'PYEOF' || fail "the results"
import json, sys
w = sys.argv[1]
def load(n):
    return json.load(open(f"{w}/{n}.json"))
for n in ("us_rr_srv", "k_rr_srv", "us_rr_cli", "k_rr_cli6", "k_rr_cli4",
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
for c, s in (("us_st_cli", "k_st_srv"), ("k_st_cli", "us_st_srv"),
             ("us_rr_cli", "k_rr_srv")):
    sent = load(c)["result"]["verify"]["bytes_sent"]
    got = load(s)["result"]["verify"]["bytes_checked"]
    assert got == sent, (c, s, sent, got)
# ustack's server saw both clients' bytes (IPv6's and IPv4's)
sent = sum(load(c)["result"]["verify"]["bytes_sent"]
           for c in ("k_rr_cli6", "k_rr_cli4"))
got = load("us_rr_srv")["result"]["verify"]["bytes_checked"]
assert got == sent, ("us_rr_srv", sent, got)
for fl, sk in (("k_flood", "us_sink"), ("us_flood", "k_sink")):
    f, s = load(fl)["result"], load(sk)["result"]
    assert f["sent"] > 10000, (fl, f)
    assert s["delivered"] > 0, (sk, s)
    assert s["frames_in"] >= s["delivered"] + s["rcvbuf_drops"], (sk, s)
    print(f"  {fl} -> {sk}: {f['sent']} sent, {s['delivered']} delivered")
for n in ("us_rr_cli", "us_st_cli", "us_sink", "us_flood"):
    ip6 = load(n)["counters"]["Ip6"]
    assert ip6["InReceives"] > 0 and ip6["OutRequests"] > 0, (n, ip6)
PYEOF
log "tcp-rr, tcp-stream and UDP over IPv6 each way, byte-exact"
