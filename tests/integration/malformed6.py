#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
"""A barrage of malformed IPv6, ICMPv6 and Neighbour Discovery frames at
ust-echo, interleaved with ping6 checks; then fragments: overlapping
(RFC 5722), duplicated, an echo request in 8-byte pieces (answered), a
piece past 65535 bytes; then floods of solicitations from spoofed sources
and of first fragments with random IDs.

usage: malformed6.py IFACE DST_MAC DST_IP6 ROUNDS EXPECT_JSON
Writes the drop reason each kind must land in, with its count, to
EXPECT_JSON for the caller to compare with the server's counters."""
import json
import random
import subprocess
import sys
import threading
import time

from scapy.all import (AsyncSniffer, ICMPv6EchoReply, ICMPv6EchoRequest, ICMPv6ND_NA, ICMPv6ND_NS,
                       ICMPv6ND_RA, ICMPv6NDOptSrcLLAddr, IPv6,
                       IPv6ExtHdrDestOpt, IPv6ExtHdrFragment,
                       IPv6ExtHdrHopByHop, IPv6ExtHdrRouting, Ether, Raw,
                       conf, get_if_hwaddr, in6_chksum, sendp)

iface, dmac, dst, rounds, out = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
conf.verb = 0
src = "2001:2::1"
smac = get_if_hwaddr(iface)
eth = Ether(src=smac, dst=dmac)


def ip6(**kw):
    kw.setdefault("src", src)
    kw.setdefault("dst", dst)
    return eth / IPv6(**kw)


def patched(pkt, offset, data):
    b = bytearray(bytes(pkt))
    b[offset:offset + len(data)] = data
    return bytes(b)


def fixck(frame):
    """The ICMPv6 checksum of an edited frame (fixed header only, ICMPv6
    right after it) made right again."""
    b = bytearray(frame)
    b[14 + 40 + 2:14 + 40 + 4] = b"\0\0"
    ck = in6_chksum(58, IPv6(bytes(b[14:54])), bytes(b[54:]))
    b[14 + 40 + 2:14 + 40 + 4] = ck.to_bytes(2, "big")
    return bytes(b)


def ns(target, hlim=255, code=0, opts=True, **kw):
    p = ip6(hlim=hlim, **kw) / ICMPv6ND_NS(tgt=target, code=code)
    if opts:
        p = p / ICMPv6NDOptSrcLLAddr(lladdr=smac)
    return bytes(p)


echo = ICMPv6EchoRequest(id=1, seq=1, data=b"x" * 16)
kinds = {
    # kind: (frame bytes, expected drop reason)
    "short_header": (bytes(Ether(src=smac, dst=dmac, type=0x86dd) / Raw(b"\x60" + b"\0" * 19)), "PKT_TOO_SMALL"),
    "bad_version": (patched(ip6() / echo, 14, b"\x40"), "IP_INHDR"),
    "payload_past_frame": (patched(ip6() / echo, 18, b"\x04\x00"), "PKT_TOO_SMALL"),
    "multicast_source": (bytes(ip6(src="ff02::1") / echo), "IP_INVALID_SOURCE"),
    "loopback_source": (bytes(ip6(src="::1") / echo), "IP_INVALID_SOURCE"),
    "mapped_source": (bytes(ip6(src="::ffff:198.18.0.1") / echo), "IP_INVALID_SOURCE"),
    "not_our_address": (bytes(ip6(dst="2001:2::99") / echo), "IP_INADDRERRORS"),
    "routing_type0": (bytes(ip6() / IPv6ExtHdrRouting(type=0, segleft=1, addresses=["2001:2::7"]) / echo), "IPV6_BAD_EXTHDR"),
    "truncated_ext": (None, "IPV6_BAD_EXTHDR"),
    "hbh_not_first": (bytes(ip6() / IPv6ExtHdrDestOpt() / IPv6ExtHdrHopByHop() / echo), "IPV6_BAD_EXTHDR"),
    "option_discard": (None, "IPV6_BAD_EXTHDR"),
    "unknown_next_header": (bytes(ip6(nh=253) / Raw(b"\0" * 8)), "IP_NOPROTO"),
    "fragment_odd": (bytes(ip6() / IPv6ExtHdrFragment(m=1, id=8) / Raw(b"\0" * 13)), "IPV6_BAD_EXTHDR"),
    "ns_hop_limit": (ns(dst, hlim=64), "IPV6_NDISC_HOP_LIMIT"),
    "ns_code": (ns(dst, code=1), "IPV6_NDISC_BAD_CODE"),
    "ns_option_len0": (fixck(patched(ns(dst), 14 + 40 + 24 + 1, b"\x00")), "IPV6_NDISC_BAD_OPTIONS"),
    "ns_multicast_target": (ns("ff02::1"), "IPV6_NDISC_BAD_OPTIONS"),
    "ns_other_target": (ns("2001:2::77"), "IPV6_NDISC_NS_OTHERHOST"),
    "na_solicited_multicast": (bytes(ip6(dst="ff02::1", hlim=255) / ICMPv6ND_NA(tgt=src, S=1)), "IPV6_NDISC_BAD_OPTIONS"),
    "ra_global_source": (bytes(ip6(hlim=255) / ICMPv6ND_RA(routerlifetime=1800)), "IPV6_NDISC_BAD_OPTIONS"),
    # an NS cut to 12 bytes, its checksum right
    "ns_truncated": (fixck(bytes(ip6(hlim=255, nh=58) / Raw(b"\x87\0\0\0" + b"\0" * 8))), "PKT_TOO_SMALL"),
    "icmp6_bad_csum": (patched(ip6() / echo, 14 + 40 + 8, b"\xff"), "ICMP_CSUM"),
    "icmp6_short": (bytes(ip6(nh=58) / Raw(b"\x80\0\0")), "ICMP_MALFORMED"),
}
# option_discard: a destination option of type 01xxxxxx (discard, no
# answer): built by hand
kinds["option_discard"] = (bytes(ip6(nh=60) / Raw(b"\x3a\x00\x45\x04\0\0\0\0") / echo), "IPV6_BAD_EXTHDR")
# the truncated extension header: its payload length is honest (16), the
# destination options header says 40
kinds["truncated_ext"] = (bytes(ip6(nh=60) / Raw(b"\x3b\x04" + b"\0" * 14)), "IPV6_BAD_EXTHDR")


def alive(r):
    for _ in range(5):
        if subprocess.run(["ping", "-6", "-c", "1", "-W", "1", dst],
                          stdout=subprocess.DEVNULL).returncode == 0:
            return
    sys.exit(f"round {r}: no ping6 answer after the barrage")


rng = random.Random(2026)
expect = {}
sent = 0
for r in range(rounds):
    names = list(kinds)
    rng.shuffle(names)
    frames = []
    for n in names:
        frame, reason = kinds[n]
        frames.append(frame)
        if reason is not None:
            expect[reason] = expect.get(reason, 0) + 1
    sendp([Raw(f) for f in frames], iface=iface)
    sent += len(frames)
    alive(r)
# fragments, each datagram its own ID
body = ICMPv6EchoRequest(id=0x77, seq=1, data=bytes(range(200)))
msg = bytes(IPv6(src=src, dst=dst) / body)[40:]


def piece(fid, off, data, m):
    return bytes(ip6(nh=44) / IPv6ExtHdrFragment(nh=58, offset=off // 8, m=m, id=fid) / Raw(data))


fid = 0x5000
for r in range(rounds):
    # an overlap: the datagram dropped, the pieces never answered
    sendp([Raw(piece(fid, 0, msg[:96], 1)), Raw(piece(fid, 88, msg[88:], 0))], iface=iface)
    expect["IP_FRAG_OVERLAP"] = expect.get("IP_FRAG_OVERLAP", 0) + 1
    # a duplicate: dropped alone, the datagram completes
    sendp([Raw(piece(fid + 1, 0, msg[:96], 1)), Raw(piece(fid + 1, 0, msg[:96], 1)), Raw(piece(fid + 1, 96, msg[96:], 0))], iface=iface)
    expect["DUP_FRAG"] = expect.get("DUP_FRAG", 0) + 1
    # past 65535 once whole
    sendp([Raw(piece(fid + 2, 65528, b"\0" * 16, 0))], iface=iface)
    expect["IP_FRAG_MALFORMED"] = expect.get("IP_FRAG_MALFORMED", 0) + 1
    fid += 3
# an echo request in 8-byte pieces, shuffled: answered
# (capturing before the first piece leaves: AsyncSniffer's start()
# returns before its socket is open)
ready = threading.Event()
sn = AsyncSniffer(iface=iface, count=1, started_callback=ready.set,
                  lfilter=lambda p: ICMPv6EchoReply in p and p[ICMPv6EchoReply].id == 0x78)
sn.start()
ready.wait(5)
body = ICMPv6EchoRequest(id=0x78, seq=2, data=bytes(range(200)))
msg = bytes(IPv6(src=src, dst=dst) / body)[40:]
pieces = [piece(0x7000, o, msg[o:o + 8], int(o + 8 < len(msg))) for o in range(0, len(msg), 8)]
rng.shuffle(pieces)
sendp([Raw(f) for f in pieces], iface=iface)
# the reply, within 5 s (it may wait for neighbour discovery of the
# source: a loaded machine's first solicitation can go unanswered)
sn.join(timeout=5)
got = sn.stop() if sn.running else sn.results
if len(got) != 1 or got[0][ICMPv6EchoReply].data != bytes(range(200)):
    sys.exit(f"the echo in {len(pieces)} 8-byte pieces: {len(got)} replies")
# floods: solicitations from 3000 spoofed on-link sources (each would
# take a neighbour entry), 2000 first fragments with random IDs (each
# would take a reassembly slot: the oldest are evicted)
flood = [ns(dst, src="2001:2::%x:%x" % (rng.getrandbits(16), rng.getrandbits(16))) for _ in range(3000)]
flood += [bytes(ip6() / IPv6ExtHdrFragment(m=1, id=rng.getrandbits(32)) / Raw(b"\x80" + b"\0" * 15)) for _ in range(2000)]
sendp([Raw(f) for f in flood], iface=iface)
expect["IP_FRAG_EVICTED"] = 2000 - 1024
alive(rounds)
json.dump(expect, open(out, "w"), indent=1, sort_keys=True)
print(f"{sent} malformed frames in {rounds} rounds of {len(kinds)} kinds, {4 * rounds} bad fragments, an echo in {len(pieces)} pieces answered, then {len(flood)} flood frames; ping6 alive after each")
