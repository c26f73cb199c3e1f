#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A scapy barrage of malformed and hostile TCP segments at ust-echo's TCP
# server over TAP (tcp_malformed.py): each is dropped and counted under the
# reason it deserves, challenge ACKs answer the in-window RST and SYN, echo
# keeps working, nothing crashes, nothing leaks.
. "$(dirname "$0")/lib.sh"
require_root
"$PY" -c "import scapy" 2>/dev/null || fail "python3-scapy is not installed"
ns_create
start_echo_tap echo ustn0 --addr 198.18.0.2/24 --proto tcp --port 7 \
	--json "$WORK/echo.json"
# scapy's own connection (source port 1007) must not be reset by the
# kernel, which knows nothing of it
nsx nft -f - <<'NFT'
table inet ustscapy {
	chain out {
		type filter hook output priority 0; policy accept;
		tcp sport 1007 tcp flags rst drop
	}
}
NFT
nsx "$PY" "$(dirname "$0")/tcp_malformed.py" ustn0 198.18.0.2 7 20 \
	"$WORK/expect.json" || fail "barrage"
stop "$ECHO_PID"
check_json_sane "$WORK/echo.json" || fail "server accounting"
"$PY" - "$WORK/echo.json" "$WORK/expect.json" <<'PYEOF' || fail "drop reasons"
import json, sys
j = json.load(open(sys.argv[1]))
got = j["drops"]
want = json.load(open(sys.argv[2]))
bad = [f"{k}: counted {got.get(k, 0)}, sent {v}" for k, v in sorted(want.items()) if got.get(k, 0) < v]
ch = j["counters"]["TcpExt"]["TCPChallengeACK"]
if ch == 0:
    bad.append("no challenge ACK sent")
if bad:
    sys.exit("\n".join(bad))
print("every kind counted under its reason:", ", ".join(f"{k}={got[k]}" for k in sorted(want)),
      f"; TCPChallengeACK={ch}")
PYEOF
log "barrage dropped and counted; echo alive; no leak"
