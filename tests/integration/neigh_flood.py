#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
"""The kernel's side of tap_flood.sh: a spoofed flood, a legitimate TCP
session, and a sampler of the stack's mbuf pool through telemetry.

  neigh_flood.py flood IFACE DSTMAC DST SECONDS NSRC FIRST PORT
      ICMP echo requests and TCP SYNs (to PORT) from NSRC spoofed on-link
      sources, FIRST upwards, that never answer ARP, written as fast as
      the TAP takes them through one AF_PACKET socket (frames built once).
  neigh_flood.py session HOST PORT SECONDS READY_FILE
      one TCP connection: a 64-byte request, its echo, again, for SECONDS;
      fails when a request goes unanswered for 10 s (a dead server, not a
      slow one) or the echo differs.
  neigh_flood.py sample PREFIX NAME INTERVAL_S OUT_FILE
      reads /ustack/pool,NAME every INTERVAL_S until SIGTERM and writes the
      peak in_use, the lowest avail, the peak arp_pending and the samples.

Exit status 0 when the check holds, 1 otherwise (the reason on stderr).
"""

import ipaddress
import json
import os
import signal
import socket
import struct
import sys
import time


def die(msg):
    print(f"neigh_flood: {msg}", file=sys.stderr)
    sys.exit(1)


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack(f"!{len(b) // 2}H", b))
    s = (s >> 16) + (s & 0xffff)
    s += s >> 16
    return (~s) & 0xffff


def ipv4(src, dst, proto, payload, ident):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ident, 0,
                    64, proto, 0, src, dst)
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + payload


def icmp_echo(ident, seq):
    b = struct.pack("!BBHHH", 8, 0, 0, ident, seq) + b"ustack-flood" * 2
    return b[:2] + struct.pack("!H", csum(b)) + b[4:]


def tcp_syn(src, dst, sport, dport, seq):
    h = struct.pack("!HHIIBBHHH", sport, dport, seq, 0, 5 << 4, 0x02,
                    65535, 0, 0)
    ph = struct.pack("!4s4sBBH", src, dst, 0, 6, len(h))
    return h[:16] + struct.pack("!H", csum(ph + h)) + h[18:]


def flood(iface, dstmac, dst, seconds, nsrc, first, port):
    dmac = bytes.fromhex(dstmac.replace(":", ""))
    d = socket.inet_aton(dst)
    base = int(ipaddress.IPv4Address(first))
    frames = []
    for i in range(nsrc):
        s = struct.pack("!I", base + i)
        smac = b"\x02\x5e" + s
        eth = dmac + smac + b"\x08\x00"
        frames.append(eth + ipv4(s, d, 1, icmp_echo(0x5e, i & 0xffff), i))
        frames.append(eth + ipv4(s, d, 6, tcp_syn(s, d, 1024 + i % 60000,
                                                  port, i * 7919), i))
    sk = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    sk.bind((iface, 0))
    sk.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
    send = sk.send
    n = errs = 0
    end = time.monotonic() + seconds
    t0 = time.monotonic()
    while time.monotonic() < end:
        for f in frames:
            try:
                send(f)
                n += 1
            except OSError:
                errs += 1
    dt = time.monotonic() - t0
    print(json.dumps({"frames": n, "errors": errs, "seconds": round(dt, 2),
                      "pps": int(n / dt), "sources": nsrc}))


def session(host, port, seconds, ready):
    s = socket.create_connection((host, port), timeout=10)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    s.settimeout(10)
    n = 0
    worst = 0.0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        req = struct.pack("!Q", n) * 8
        t = time.monotonic()
        s.sendall(req)
        got = b""
        while len(got) < len(req):
            try:
                b = s.recv(len(req) - len(got))
            except socket.timeout:
                die(f"request {n} unanswered for 10 s")
            if not b:
                die(f"connection closed at request {n}")
            got += b
        if got != req:
            die(f"request {n}: echo differs")
        worst = max(worst, time.monotonic() - t)
        n += 1
        if n == 1:
            open(ready, "w").write("ready\n")
        time.sleep(0.01)
    s.close()
    print(json.dumps({"transactions": n, "worst_s": round(worst, 3)}))


def telemetry_query(sk, cmd):
    sk.send(cmd.encode())
    return json.loads(sk.recv(1 << 16).decode())


def sample(prefix, name, interval, out):
    path = f"/var/run/dpdk/{prefix}/dpdk_telemetry.v2"
    sk = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    for _ in range(100):
        try:
            sk.connect(path)
            break
        except OSError:
            time.sleep(0.05)
    else:
        die(f"no telemetry socket at {path}")
    sk.recv(1 << 16)  # the greeting
    stop = []
    signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
    res = {"samples": 0, "in_use_max": 0, "avail_min": None,
           "arp_pending_max_seen": 0, "series": []}
    while not stop:
        r = telemetry_query(sk, f"/ustack/pool,{name}")
        p = r.get("/ustack/pool")
        if not p:
            die(f"/ustack/pool,{name}: {r}")
        res["samples"] += 1
        res["size"] = p["size"]
        res["reserve"] = p["reserve"]
        res["arp_pending_max"] = p["arp_pending_max"]
        res["in_use_max"] = max(res["in_use_max"], p["in_use"])
        if res["avail_min"] is None or p["avail"] < res["avail_min"]:
            res["avail_min"] = p["avail"]
        res["arp_pending_max_seen"] = max(res["arp_pending_max_seen"],
                                          p["arp_pending"])
        if res["samples"] % 4 == 1:
            res["series"].append([p["in_use"], p["arp_pending"],
                                  p["arp_incomplete"]])
        with open(out + ".tmp", "w") as f:
            json.dump(res, f)
        os.replace(out + ".tmp", out)
        time.sleep(interval)


def main():
    a = sys.argv[1:]
    if len(a) == 8 and a[0] == "flood":
        flood(a[1], a[2], a[3], float(a[4]), int(a[5]), a[6], int(a[7]))
    elif len(a) == 5 and a[0] == "session":
        session(a[1], int(a[2]), float(a[3]), a[4])
    elif len(a) == 5 and a[0] == "sample":
        sample(a[1], a[2], float(a[3]), a[4])
    else:
        die(__doc__)


if __name__ == "__main__":
    main()
