#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A scapy barrage of malformed IPv6, ICMPv6 and Neighbour Discovery frames
# at ust-echo over TAP (truncated and misordered extension headers,
# routing type 0, fragments, bad ND messages, bad sources), then floods
# of spoofed solicitations and fragments: each frame dropped under the
# reason it deserves, ping6 still answered, the neighbour cache within its
# bound, nothing leaked.
. "$(dirname "$0")/lib.sh"
require_root
"$PY" -c "import scapy" 2>/dev/null || fail "python3-scapy is not installed"
ns_create
start_echo_tap echo ustm6 --addr 198.18.0.2/24 --addr6 2001:2::2/64 \
	--json "$WORK/echo.json"
# (the kernel's side needs a MAC of its own: tap_ping6.sh says why)
nsx ip link set ustm6 down
nsx ip link set ustm6 address 02:00:5e:10:00:01
nsx ip link set ustm6 up
nsx ip -6 addr add 2001:2::1/64 dev ustm6 nodad
ok=0
for i in $(seq 1 40); do
	nsx ping -6 -c 1 -W 1 2001:2::2 >/dev/null 2>&1 && { ok=1; break; }
	sleep 0.1
done
[ "$ok" = 1 ] || fail "2001:2::2 never answered ping6"
mac=$(nsx ip -6 neigh show 2001:2::2 dev ustm6 | awk '{print $3}')
nsx "$PY" "$(dirname "$0")/malformed6.py" ustm6 "$mac" 2001:2::2 20 \
	"$WORK/expect.json" || fail "barrage"
stop "$ECHO_PID"
check_json_sane "$WORK/echo.json" || fail "server accounting"
"$PY" - "$WORK/echo.json" "$WORK/expect.json" <<'PYEOF' || fail "drop reasons"
import json, sys
j = json.load(open(sys.argv[1]))
got, want = j["drops"], json.load(open(sys.argv[2]))
bad = [f"{k}: counted {got.get(k, 0)}, sent {v}" for k, v in sorted(want.items()) if got.get(k, 0) < v]
nd = j["counters"]["Ndisc"]
if nd["Allocs"] - nd["Destroys"] > 256:
    bad.append(f"neighbour entries {nd['Allocs'] - nd['Destroys']} above [arp] entries 256")
if nd["Allocs"] < 256:
    bad.append(f"the flood made only {nd['Allocs']} entries")
if bad:
    sys.exit("\n".join(bad))
print("every kind counted under its reason:", ", ".join(f"{k}={got[k]}" for k in sorted(want)),
      f"; neighbour entries made {nd['Allocs']}, live {nd['Allocs'] - nd['Destroys']}")
PYEOF
log "IPv6 barrage dropped and counted; ping6 alive; neighbour cache bounded; no leak"
