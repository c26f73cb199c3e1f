#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A scapy barrage of malformed frames at ust-echo over TAP: each is dropped
# and counted under the reason it deserves, echo keeps working, nothing
# crashes, nothing leaks.
. "$(dirname "$0")/lib.sh"
require_root
"$PY" -c "import scapy" 2>/dev/null || fail "python3-scapy is not installed"
ns_create
start_echo_tap echo ustm0 --addr 198.18.0.2/24 --port 7 --json "$WORK/echo.json"
nsx "$PY" "$(dirname "$0")/malformed.py" ustm0 198.18.0.2 7 40 "$WORK/expect.json" ||
	fail "barrage"
stop "$ECHO_PID"
check_json_sane "$WORK/echo.json" || fail "server accounting"
"$PY" - "$WORK/echo.json" "$WORK/expect.json" <<'PYEOF' || fail "drop reasons"
import json, sys
got = json.load(open(sys.argv[1]))["drops"]
want = json.load(open(sys.argv[2]))
bad = [f"{k}: counted {got.get(k, 0)}, sent {v}" for k, v in sorted(want.items()) if got.get(k, 0) < v]
if bad:
    sys.exit("\n".join(bad))
print("every kind counted under its reason:", ", ".join(f"{k}={got[k]}" for k in sorted(want)))
PYEOF
log "barrage dropped and counted; echo alive; no leak"
