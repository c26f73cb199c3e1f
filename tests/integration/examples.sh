#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The examples against the INSTALLED library (issue 14): the build is
# installed into a staging directory (meson install --destdir), its
# ustack.pc pointed there, and examples/ built with its Makefile through
# pkg-config, shared and static (pkg-config --static: no libustack.so,
# no librte_*.so loaded at run time); each of udp_echo and tcp_echo (on
# the environment API, from an INI file) then echoes the kernel's UDP
# datagrams of random sizes, or 3 TCP connections' 1 MiB each, over TAP
# byte-exact and exits 0, having got every mbuf back (the static udp_echo
# sleeping when idle, ust_env's idle_adaptive). The README's code
# block is checked to be lines of examples/udp_echo/main.c, verbatim.
. "$(dirname "$0")/lib.sh"
require_root
command -v make >/dev/null || fail "make is not installed"
meson install -C "$UST_BUILD" --destdir "$WORK/inst" --quiet > "$WORK/install.log" 2>&1 ||
	fail "meson install: $(tail -5 "$WORK/install.log")"
pcdir=$(dirname "$(find "$WORK/inst" -name ustack.pc | head -1)")
[ -f "$pcdir/ustack.pc" ] && [ -f "$pcdir/ustack-libs.pc" ] || fail "no ustack.pc installed"
prefix=$(sed -n 's/^prefix=//p' "$pcdir/ustack.pc")
mkdir -p "$WORK/pc"
# the staging directory is the prefix (pkgconf's --define-prefix guesses
# it wrong under a multiarch libdir)
for f in "$pcdir"/ustack*.pc; do
	sed "s|^prefix=.*|prefix=$WORK/inst$prefix|" "$f" > "$WORK/pc/$(basename "$f")"
done
grep -q "ALLOW_EXPERIMENTAL_API" "$WORK/pc/ustack.pc" && fail "ustack.pc forces ALLOW_EXPERIMENTAL_API"
PKG_CONFIG_PATH=$WORK/pc make -C "$UST_SRC/examples" O="$WORK/ex" > "$WORK/make.log" 2>&1 ||
	fail "make examples: $(tail -20 "$WORK/make.log")"
libdir=$(PKG_CONFIG_PATH=$WORK/pc pkg-config --variable=libdir ustack)
for ex in udp_echo tcp_echo; do
	ldd "$WORK/ex/$ex-static" | grep -Eq "libustack|librte_" &&
		fail "the static $ex loads shared libraries: $(ldd "$WORK/ex/$ex-static")"
done
# (ldd's output read whole first: grep -q stops reading at its match, and
# ldd then dies of SIGPIPE, which pipefail would call a failure)
deps=$(LD_LIBRARY_PATH=$libdir ldd "$WORK/ex/udp_echo-shared")
grep -q "libustack.so.0 => $libdir" <<< "$deps" ||
	fail "the shared example does not load the installed libustack.so: $deps"
# the README's block: every line is one of main.c's
"$PY" - "$UST_SRC/README.md" "$UST_SRC/examples/udp_echo/main.c" <<'PYEOF' || fail "README snippet"
import sys
readme, src = open(sys.argv[1]).read(), open(sys.argv[2]).read()
block = readme.split("```c\n", 1)[1].split("```", 1)[0]
lines = {l.strip() for l in src.splitlines()}
missing = [l for l in block.splitlines() if l.strip() and l.strip() not in lines]
assert not missing, missing
PYEOF
ns_create
printf '[ip]\naddr = 198.18.0.2/24\n[port]\nrx_intr = 1\n' > "$WORK/echo.ini"
i=0
for ex in udp_echo tcp_echo; do
for kind in shared static; do
	i=$((i + 1))
	iface=ustx$i
	# shellcheck disable=SC2046
	LD_LIBRARY_PATH=$libdir nsenter --net="/var/run/netns/$NS" \
		"$WORK/ex/$ex-$kind" -l 0 --no-pci $(eal_mem 256) \
		--file-prefix "ex$i-$$" --vdev "net_tap0,iface=$iface" -- \
		"$WORK/echo.ini" 7 $([ "$ex-$kind" = udp_echo-static ] && echo adaptive) \
		> "$WORK/$ex-$kind.log" 2>&1 &
	pid=$!
	PIDS+=("$pid")
	wait_iface "$iface"
	nsx ip addr add 198.18.0.1/24 dev "$iface"
	nsx ip link set "$iface" up
	for _ in $(seq 1 100); do
		grep -qs "serving" "$WORK/$ex-$kind.log" && break
		kill -0 "$pid" 2>/dev/null || fail "$ex-$kind: $(cat "$WORK/$ex-$kind.log")"
		sleep 0.05
	done
	if [ "$ex" = udp_echo ]; then
		nsx "$PY" "$(dirname "$0")/udp_echo_check.py" 198.18.0.2 7 500 $i 1 1472 ||
			fail "$ex-$kind echo: $(cat "$WORK/$ex-$kind.log")"
	else
		nsx "$PY" - "$i" <<'PYEOF' || fail "$ex-$kind echo: $(cat "$WORK/$ex-$kind.log")"
import random, socket, sys, threading
def one(seed, ok):
    rnd = random.Random(seed)
    data = bytes(rnd.getrandbits(8) for _ in range(1 << 20))
    s = socket.create_connection(("198.18.0.2", 7), timeout=10)
    got = bytearray()
    def rx():
        while len(got) < len(data):
            d = s.recv(65536)
            if not d:
                break
            got.extend(d)
    t = threading.Thread(target=rx)
    t.start()
    off = 0
    while off < len(data):
        n = rnd.randint(1, 20000)
        s.sendall(data[off:off + n])
        off += n
    t.join()
    s.close()
    ok.append(bytes(got) == data)
ok = []
ts = [threading.Thread(target=one, args=(int(sys.argv[1]) * 10 + k, ok)) for k in range(3)]
[t.start() for t in ts]
[t.join() for t in ts]
assert ok == [True] * 3, ok
print("3 x 1 MiB echoed byte-exact")
PYEOF
	fi
	stop "$pid"
	grep -q "done, 0 mbufs leaked" "$WORK/$ex-$kind.log" || fail "$ex-$kind: $(cat "$WORK/$ex-$kind.log")"
	nsx ip link del "$iface" 2>/dev/null || true
done
done
log "examples/udp_echo and tcp_echo built against the installed library, shared and static, echo byte-exact"
