#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# The README's test command: install what is missing, build, reserve
# hugepages, and run every suite (unit, integration over TAP and memif,
# fuzz smoke runs, and the bound-NIC test bed in QEMU guests: suite vm,
# doc/testbed.md); then the unit suite again in a second build with
# AddressSanitizer and UBSan (-Dsanitizers=true, in $UST_BUILD-asan; a
# finding fails its test). Ends with the line "N passed, N failed", both
# builds counted.
#   sudo ./devtools/ust-test.sh [meson test arguments, e.g. --suite unit]

. "$(dirname "$0")/common.sh"
ust_need_root
ust_install_deps
ust_build
ust_hugepages 1024
echo "== running the test suites"
rc=0
meson test -C "$UST_BUILD" --num-processes 1 --print-errorlogs "$@" || rc=$?
echo "== the unit suite under ASan and UBSan, in $UST_BUILD_ASAN"
if [ ! -f "$UST_BUILD_ASAN/build.ninja" ]; then
	# no link-time optimisation there: that build finds bugs, it is not
	# measured, and its links are faster without
	meson setup "$UST_BUILD_ASAN" "$UST_SRC" -Dsanitizers=true \
		-Db_lto=false >/dev/null
fi
ninja -C "$UST_BUILD_ASAN" >/dev/null
# leaks are detected (the unit tests and DPDK's EAL under --no-huge free
# everything: no suppressions needed); halt at the first finding
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:halt_on_error=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
	meson test -C "$UST_BUILD_ASAN" --num-processes 1 --print-errorlogs \
	--suite unit || rc=$?
python3 - "$UST_BUILD/meson-logs/testlog.json" \
	"$UST_BUILD_ASAN/meson-logs/testlog.json" <<'PYEOF'
import json, sys
res = {}
for log in sys.argv[1:]:
    for line in open(log):
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
