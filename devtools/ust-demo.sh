#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
#
# The README's first command: install what is missing, build, reserve
# hugepages (or fall back to --no-huge), then run ust-echo as a UDP echo
# server on a TAP port inside a network namespace, drive it from the
# kernel's side of the TAP (ping, UDP datagrams; then TCP: a stream and
# short connections), and print what happened.
#   sudo ./devtools/ust-demo.sh

. "$(dirname "$0")/common.sh"
ust_need_root
ust_install_deps
ust_build
ust_hugepages 512

NS=ust-demo
IFACE=ustdemo0
LOG=$(mktemp /tmp/ust-demo.XXXXXX)
cleanup() {
	[ -n "${PID:-}" ] && kill -INT "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
	ip netns del "$NS" 2>/dev/null || true
	rm -f "$LOG"
}
trap cleanup EXIT
ip netns del "$NS" 2>/dev/null || true
ip netns add "$NS"
ip netns exec "$NS" ip link set lo up

echo "== starting ust-echo on net_tap ($IFACE) in namespace $NS, address 198.18.0.2/24"
nsenter --net="/var/run/netns/$NS" "$UST_BUILD/apps/ust-echo" -l 0 --no-pci \
	$UST_EAL_MEM --file-prefix ust-demo --vdev "net_tap0,iface=$IFACE" -- \
	--mode server --addr 198.18.0.2/24 --port 7 > "$LOG" 2>&1 &
PID=$!
for i in $(seq 1 100); do
	grep -qs serving "$LOG" && break
	kill -0 "$PID" 2>/dev/null || { cat "$LOG"; exit 1; }
	sleep 0.1
done
grep -E "^port|serving" "$LOG"
ip netns exec "$NS" ip addr add 198.18.0.1/24 dev "$IFACE"
ip netns exec "$NS" ip link set "$IFACE" up

echo "== the kernel (198.18.0.1) pings ust-echo"
ip netns exec "$NS" ping -c 5 -i 0.2 198.18.0.2 | tail -3

echo "== the kernel sends UDP datagrams to port 7 and checks the echoes"
ip netns exec "$NS" /usr/bin/python3 - <<'PYEOF'
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(1)
s.connect(("198.18.0.2", 7))
for msg in [b"hello, ustack", b"x" * 1472, bytes(range(256))]:
    t = time.perf_counter()
    s.send(msg)
    got = s.recv(2048)
    us = (time.perf_counter() - t) * 1e6
    print(f"  {len(msg):5d} bytes sent, {len(got):5d} echoed, "
          f"{'identical' if got == msg else 'DIFFERENT'}, {us:.0f} us")
n, t = 2000, time.perf_counter()
for i in range(n):
    s.send(b"%d" % i)
    s.recv(64)
dt = time.perf_counter() - t
print(f"  {n} request-response round trips from Python: {n / dt:.0f}/s")
PYEOF

echo "== stopping ust-echo (SIGINT): its counters"
kill -INT "$PID"
wait "$PID" || true
PID=
sed -n '/^Eth:/,$p' "$LOG"

echo
echo "== the same TAP, ust-echo now as a TCP echo server on port 7"
ip netns del "$NS" 2>/dev/null || true
ip netns add "$NS"
ip netns exec "$NS" ip link set lo up
nsenter --net="/var/run/netns/$NS" "$UST_BUILD/apps/ust-echo" -l 0 --no-pci \
	$UST_EAL_MEM --file-prefix ust-demo --vdev "net_tap0,iface=$IFACE" -- \
	--mode server --addr 198.18.0.2/24 --proto tcp --port 7 > "$LOG" 2>&1 &
PID=$!
for i in $(seq 1 100); do
	grep -qs serving "$LOG" && break
	kill -0 "$PID" 2>/dev/null || { cat "$LOG"; exit 1; }
	sleep 0.1
done
grep -E "serving" "$LOG"
ip netns exec "$NS" ip addr add 198.18.0.1/24 dev "$IFACE"
ip netns exec "$NS" ip link set "$IFACE" up
echo "== the kernel's TCP connects, sends 8 MiB and reads the echo; 200 short connections"
ip netns exec "$NS" /usr/bin/python3 - <<'PYEOF'
import hashlib, os, socket, threading, time
data = os.urandom(8 << 20)
s = socket.create_connection(("198.18.0.2", 7), timeout=10)
got = []
def reader():
    while True:
        b = s.recv(1 << 20)
        if not b:
            return
        got.append(b)
th = threading.Thread(target=reader)
th.start()
t = time.perf_counter()
s.sendall(data)
s.shutdown(socket.SHUT_WR)
th.join()
dt = time.perf_counter() - t
back = b"".join(got)
print(f"  {len(data)} bytes sent, {len(back)} echoed, sha256 "
      f"{'identical' if hashlib.sha256(back).digest() == hashlib.sha256(data).digest() else 'DIFFERENT'}, "
      f"{len(data) * 8 / dt / 1e6:.0f} Mbit/s each way")
s.close()
t = time.perf_counter()
for i in range(200):
    with socket.create_connection(("198.18.0.2", 7), timeout=10) as c:
        c.sendall(b"ping %d" % i)
        c.recv(64)
print(f"  200 connections opened, one echo each, closed: "
      f"{200 / (time.perf_counter() - t):.0f}/s from Python")
PYEOF
echo "== stopping ust-echo (SIGINT): its counters"
kill -INT "$PID"
wait "$PID" || true
PID=
sed -n '/^Eth:/,$p' "$LOG"
