#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# The README's test command: install what is missing, build, reserve
# hugepages, and run every suite (unit, integration over TAP and memif,
# fuzz smoke runs, and the bound-NIC test bed in QEMU guests: suite vm,
# doc/testbed.md). Ends with the line "N passed, N failed".
#   sudo ./devtools/ust-test.sh [meson test arguments, e.g. --suite unit]

. "$(dirname "$0")/common.sh"
ust_need_root
ust_install_deps
ust_build
ust_hugepages 1024
echo "== running the test suites"
rc=0
meson test -C "$UST_BUILD" --num-processes 1 --print-errorlogs "$@" || rc=$?
python3 - "$UST_BUILD/meson-logs/testlog.json" <<'PYEOF'
import json, sys
res = {}
for line in open(sys.argv[1]):
    t = json.loads(line)
    res[t["result"]] = res.get(t["result"], 0) + 1
passed = res.get("OK", 0) + res.get("EXPECTEDFAIL", 0)
skipped = res.get("SKIP", 0)
failed = sum(v for k, v in res.items() if k not in ("OK", "EXPECTEDFAIL", "SKIP"))
if skipped:
    print(f"({skipped} skipped)")
print(f"{passed} passed, {failed} failed")
PYEOF
exit $rc
