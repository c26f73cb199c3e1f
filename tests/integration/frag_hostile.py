#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
"""Hostile IPv4 fragments at ust-echo's UDP port, as raw frames.

usage: frag_hostile.py IFACE DST_IP PORT EXPECT_JSON
Datagrams from 198.18.0.1:40000 (a kernel socket bound there receives the
echoes): tiny 8-byte fragments (echoed), more fragments than [frag]
max_frags (dropped), a duplicated fragment (echoed), overlapping fragments
and the teardrop (dropped, never echoed), then a flood of first fragments
with random IDs. Writes the drop reasons with the least count each must
reach to EXPECT_JSON."""
import json
import random
import socket
import struct
import sys
import time

from scapy.all import conf, get_if_hwaddr, getmacbyip

iface, dst, port, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
conf.verb = 0
SRC = "198.18.0.1"
SPORT = 40000
rng = random.Random(15)
smac = bytes.fromhex(get_if_hwaddr(iface).replace(":", ""))
m = getmacbyip(dst)
if m is None:
    sys.exit("no ARP answer from " + dst)
dmac = bytes.fromhex(m.replace(":", ""))
raw = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
raw.bind((iface, 0))
rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
rx.bind((SRC, SPORT))
rx.settimeout(1.0)


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def udp_datagram(payload):
    """The UDP header and payload, checksum over the pseudo-header."""
    ln = 8 + len(payload)
    ph = socket.inet_aton(SRC) + socket.inet_aton(dst) + struct.pack("!BBH", 0, 17, ln)
    h = struct.pack("!HHHH", SPORT, port, ln, 0)
    c = csum(ph + h + payload) or 0xffff
    return struct.pack("!HHHH", SPORT, port, ln, c) + payload


def frame(ident, off, data, mf, proto=17):
    """An Ethernet frame with one IPv4 fragment: @data at byte @off."""
    fl = (off // 8) | (0x2000 if mf else 0)
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(data), ident, fl, 64,
                    proto, 0, socket.inet_aton(SRC), socket.inet_aton(dst))
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return dmac + smac + b"\x08\x00" + h + data


def cut(dgram, piece):
    """(offset, bytes, more) pieces of @dgram, @piece bytes each."""
    return [(o, dgram[o:o + piece], o + piece < len(dgram))
            for o in range(0, len(dgram), piece)]


def send(ident, pieces):
    for off, data, mf in pieces:
        raw.send(frame(ident, off, data, mf))


def echoed(payload):
    """True when @payload comes back (other datagrams skipped)."""
    try:
        while True:
            got = rx.recv(65535)
            if got == payload:
                return True
    except socket.timeout:
        return False


def payload(n):
    return bytes(rng.getrandbits(8) for _ in range(n))


fails = []
# tiny fragments: 8 bytes each, 51 of them (a 400-byte payload): whole
p = payload(400)
send(1001, cut(udp_datagram(p), 8))
if not echoed(p):
    fails.append("tiny 8-byte fragments: no echo")
# 1200 bytes in 8-byte pieces: 151 fragments, more than max_frags (128)
p = payload(1200)
send(1002, cut(udp_datagram(p), 8))
if echoed(p):
    fails.append("151 fragments: echoed")
# a duplicate: dropped alone, the datagram completes
p = payload(3000)
pieces = cut(udp_datagram(p), 1480)
send(1003, pieces[:2] + pieces[1:])
if not echoed(p):
    fails.append("duplicated fragment: no echo")
# an overlap in the middle: the datagram is dropped
p = payload(3000)
d = udp_datagram(p)
send(1004, [(0, d[:1480], True), (1000, d[1000:2480], True),
            (2960, d[2960:], False)])
if echoed(p):
    fails.append("overlapping fragments: echoed")
# the teardrop: the second fragment inside the first
p = payload(2000)
d = udp_datagram(p)
send(1005, [(0, d[:1480], True), (1472, d[1472:], False)])
if echoed(p):
    fails.append("teardrop: echoed")
# a flood of first fragments with random IDs
# (paced: the TAP's queue, 1000 frames, would drop a burst ust-echo has
# no time to read on a loaded machine, and no counter of ours sees that)
for k, ident in enumerate(rng.sample(range(2000, 65536), 5000)):
    raw.send(frame(ident, 0, payload(8) + b"\0" * 56, True))
    if k % 200 == 199:
        time.sleep(0.01)
if fails:
    sys.exit("; ".join(fails))
# evicted: all but the last 1024 that arrived (most do)
json.dump({"IP_FRAG_TOO_MANY": 1, "DUP_FRAG": 1, "IP_FRAG_OVERLAP": 2,
           "IP_FRAG_EVICTED": 3000}, open(out, "w"))
print("hostile fragments: tiny and duplicated echoed; too many, overlapping "
      "and teardrop dropped; 5000 random IDs sent")
