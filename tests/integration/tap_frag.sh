#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# IPv4 fragments against the kernel over TAP (issue 15):
# - UDP echo of random sizes 1-65507 bytes from a kernel socket, byte-exact:
#   the kernel fragments what it sends above the MTU and ustack reassembles
#   it; ustack fragments its echo and the kernel reassembles it;
# - ping -s 8000 and -s 65000: the request reassembled, the reply sent in
#   fragments;
# - a scapy barrage of hostile fragments (frag_hostile.py): overlaps
#   (teardrop), duplicates, tiny 8-byte fragments, more than [frag]
#   max_frags, a flood of first fragments with random IDs; each dropped
#   under its reason, the mbufs held bounded by [frag] max_datagrams
#   during the flood, and echo still working after it;
# - at exit: frames in == consumed + dropped, no mbuf leaked.
. "$(dirname "$0")/lib.sh"
require_root
"$PY" -c "import scapy" 2>/dev/null || fail "python3-scapy is not installed"
ns_create
start_echo_tap frag ustf0 --addr 198.18.0.2/24 --port 7 --json "$WORK/echo.json"
nsx "$PY" "$(dirname "$0")/udp_echo_check.py" 198.18.0.2 7 60 15 1 65507 ||
	fail "echo of random sizes 1-65507"
for n in 1473 2952 2953 65507; do
	nsx "$PY" "$(dirname "$0")/udp_echo_check.py" 198.18.0.2 7 3 "$n" "$n" "$n" ||
		fail "echo of $n bytes"
done
for s in 8000 65000; do
	nsx ping -c 3 -i 0.2 -W 2 -s "$s" 198.18.0.2 > "$WORK/ping.out" 2>&1 ||
		fail "ping -s $s: $(cat "$WORK/ping.out")"
	grep -q " 3 received" "$WORK/ping.out" || fail "ping -s $s: $(cat "$WORK/ping.out")"
done
log "echo 1-65507 bytes and ping -s 8000/65000: fragmented both ways, byte-exact"
tel() { # COMMAND -> the reply's value, as JSON
	printf '%s\n' "$1" | "$PY" /usr/bin/dpdk-telemetry.py -f "frag-$$" 2>/dev/null |
		"$PY" -c 'import json,sys
for l in sys.stdin:
    if l.strip().startswith("{"):
        print(json.dumps(list(json.loads(l).values())[0]))'
}
before=$(tel /ustack/pool,ust0 | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["in_use"])')
nsx "$PY" "$(dirname "$0")/frag_hostile.py" ustf0 198.18.0.2 7 "$WORK/expect.json" ||
	fail "hostile fragments"
after=$(tel /ustack/pool,ust0 | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["in_use"])')
# what the flood left held: one mbuf per datagram, [frag] max_datagrams (1024)
[ $((after - before)) -le 1100 ] ||
	fail "mbufs in use $before before the flood, $after after: unbounded"
nsx "$PY" "$(dirname "$0")/udp_echo_check.py" 198.18.0.2 7 5 16 3000 9000 ||
	fail "echo after the flood"
stop "$ECHO_PID"
check_json_sane "$WORK/echo.json" || fail "server accounting"
"$PY" - "$WORK/echo.json" "$WORK/expect.json" <<'PYEOF' || fail "counters"
import json, sys
j = json.load(open(sys.argv[1]))
want = json.load(open(sys.argv[2]))
got = j["drops"]
bad = [f"{k}: counted {got.get(k, 0)}, at least {v} expected" for k, v in sorted(want.items()) if got.get(k, 0) < v]
ip = j["counters"]["Ip"]
# 60 + 12 echoes of which most are fragmented, 6 pings, 5 after the flood
if ip["ReasmOKs"] < 60 or ip["FragOKs"] < 60:
    bad.append(f"ReasmOKs {ip['ReasmOKs']}, FragOKs {ip['FragOKs']}")
if ip["FragCreates"] < 2 * ip["FragOKs"]:
    bad.append(f"FragCreates {ip['FragCreates']} < 2 x FragOKs")
if ip["ReasmReqds"] < ip["ReasmOKs"] * 2:
    bad.append(f"ReasmReqds {ip['ReasmReqds']}")
if j["counters"]["IpExt"]["ReasmOverlaps"] < want.get("IP_FRAG_OVERLAP", 0):
    bad.append("ReasmOverlaps")
if bad:
    sys.exit("\n".join(bad))
print("Ip:", {k: v for k, v in ip.items() if "Reasm" in k or "Frag" in k})
print("drops:", {k: got[k] for k in sorted(want)})
PYEOF
log "hostile fragments dropped under their reasons, memory bounded, no leak"
