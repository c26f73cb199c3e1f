#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write a seed corpus for a fuzz target: well-formed frames to mutate."""
import os
import struct
import sys

target, out = sys.argv[1], sys.argv[2]


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack(f"!{len(b) // 2}H", b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff


def ipv4(proto, payload, src=b"\xc6\x12\x00\x01", dst=b"\xc6\x12\x00\x02"):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 1, 0x4000, 64, proto, 0, src, dst)
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + payload


def udp(payload, sport=4000, dport=7):
    u = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    ph = b"\xc6\x12\x00\x01\xc6\x12\x00\x02" + struct.pack("!BBH", 0, 17, len(u))
    c = csum(ph + u) or 0xffff
    return u[:6] + struct.pack("!H", c) + u[8:]


def icmp_echo(payload):
    m = struct.pack("!BBHHH", 8, 0, 0, 1, 1) + payload
    return m[:2] + struct.pack("!H", csum(m)) + m[4:]


eth = b"\x02\x00\x00\x00\x00\x02" + b"\x02\x00\x00\x00\x00\x01"
frames = {
    "udp": eth + b"\x08\x00" + ipv4(17, udp(b"hello fuzz")),
    "icmp": eth + b"\x08\x00" + ipv4(1, icmp_echo(b"x" * 32)),
    "arp": b"\xff" * 6 + eth[6:] + b"\x08\x06" + struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1, eth[6:], b"\xc6\x12\x00\x01", b"\0" * 6, b"\xc6\x12\x00\x02"),
    "udp_noport": eth + b"\x08\x00" + ipv4(17, udp(b"n", dport=9)),
}
for name, f in frames.items():
    if target == "fuzz_wire":
        # the wire target parses from any offset: the frame, and its IP part
        open(os.path.join(out, name), "wb").write(f)
        open(os.path.join(out, name + "_ip"), "wb").write(f[14:])
    else:
        open(os.path.join(out, name), "wb").write(struct.pack("<H", len(f)) + f)
if target == "fuzz_stack":
    allf = b"".join(struct.pack("<H", len(f)) + f for f in frames.values())
    open(os.path.join(out, "all"), "wb").write(allf)
