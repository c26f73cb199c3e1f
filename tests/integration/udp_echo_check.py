#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
"""UDP echo check: datagrams of random sizes, each echoed byte-exact.

usage: udp_echo_check.py HOST PORT COUNT SEED [MIN MAX]
HOST: an IPv4 or an IPv6 address.
Each datagram is sent and its echo awaited (retried on timeout, up to 5
times); the echo must equal what was sent. Prints a summary; exit 1 on any
mismatch or unanswered datagram."""
import os
import random
import socket
import sys

host, port, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
lo = int(sys.argv[5]) if len(sys.argv) > 5 else 1
hi = int(sys.argv[6]) if len(sys.argv) > 6 else 1472
rng = random.Random(seed)
# an IPv6 HOST (2001:2::2) over IPv6
s = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET,
                  socket.SOCK_DGRAM)
s.settimeout(0.5)
s.connect((host, port))
ok = retries = stray = 0
for i in range(count):
    size = rng.randint(lo, hi)
    data = bytes(rng.getrandbits(8) for _ in range(size))
    for attempt in range(5):
        s.send(data)
        try:
            while True:
                got = s.recv(65535)
                if got == data:
                    break
                # a late echo of an earlier try: keep waiting for ours;
                # a corrupted echo never matches and ends in a failure
                stray += 1
            ok += 1
            break
        except socket.timeout:
            retries += 1
    else:
        sys.exit(f"datagram {i} ({size} bytes): no echo after 5 tries")
print(f"{ok}/{count} datagrams echoed byte-exact, sizes {lo}-{hi}, "
      f"{retries} retries, {stray} stray echoes")
