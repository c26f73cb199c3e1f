#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
"""A barrage of malformed and hostile TCP segments at ust-echo's TCP server.

usage: tcp_malformed.py IFACE DST_IP PORT ROUNDS EXPECT_JSON

Stateless kinds (bad checksum, impossible flags, data offset beyond the
segment, options running past the header...) go to the listening port. For
the stateful kinds, scapy opens a connection of its own (the kernel is kept
from resetting it by an nftables rule the caller installs for source port
PORT+1000) and then sends, inside that 4-tuple: RSTs out of the window and in
the window but not at RCV.NXT (a challenge ACK), a SYN in the window (a
challenge ACK), a timestamp older than the last (PAWS), an ACK of data never
sent, data beyond the window; then a forged segment at RCV.NXT with a
TSval 2^31 ahead and an ACK of unsent data, after which the connection's
next genuine segment must still be taken (issue 9). After every round a kernel TCP connection
checks that echo still works. The drop reason each kind must land in, with
its count, goes to EXPECT_JSON for the caller to compare with the server's
counters.
"""
import json
import random
import socket
import sys

from scapy.all import (IP, TCP, Ether, Raw, conf, get_if_hwaddr, getmacbyip,
                       sendp, srp1)

iface, dst, port, rounds, out = (sys.argv[1], sys.argv[2], int(sys.argv[3]),
                                 int(sys.argv[4]), sys.argv[5])
conf.verb = 0
src = "198.18.0.1"
smac = get_if_hwaddr(iface)
dmac = getmacbyip(dst)
if dmac is None:
    sys.exit("no ARP answer from " + dst)
eth = Ether(src=smac, dst=dmac)
sport = port + 1000   # scapy's own connection (the kernel's RSTs filtered)


def raw_tcp(tcp_bytes, sport_=40000):
    """An IPv4 frame around hand-made TCP bytes (checksum filled)."""
    pkt = eth / IP(src=src, dst=dst, proto=6) / Raw(tcp_bytes)
    b = bytearray(bytes(pkt))
    # TCP checksum over the pseudo-header
    seg = b[34:]
    ph = (bytes(map(int, src.split("."))) + bytes(map(int, dst.split("."))) +
          bytes([0, 6]) + len(seg).to_bytes(2, "big"))
    seg[16:18] = b"\0\0"
    data = ph + bytes(seg)
    if len(data) % 2:
        data += b"\0"
    s = sum(int.from_bytes(data[i:i + 2], "big") for i in range(0, len(data), 2))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    seg[16:18] = (~s & 0xffff).to_bytes(2, "big")
    return bytes(b[:34] + seg)


def hdr(flags, doff=5, opts=b"", sp=40000, seq=1, ack=0, win=65535):
    return (sp.to_bytes(2, "big") + port.to_bytes(2, "big") +
            seq.to_bytes(4, "big") + ack.to_bytes(4, "big") +
            bytes([doff << 4, flags]) + win.to_bytes(2, "big") + b"\0\0\0\0" +
            opts)


stateless = {
    "tcp_bad_csum": (bytes(eth / IP(src=src, dst=dst) /
                           TCP(sport=40001, dport=port, flags="S", chksum=0x1234)),
                     "TCP_CSUM"),
    "tcp_doff_4": (raw_tcp(hdr(0x02, doff=4)), "TCP_HDR"),
    "tcp_doff_beyond": (raw_tcp(hdr(0x02, doff=15)), "TCP_HDR"),
    "tcp_truncated_header": (raw_tcp(hdr(0x02)[:12]), "TCP_HDR"),
    "tcp_opt_past_header": (raw_tcp(hdr(0x02, doff=6, opts=b"\x02\x08\x05\xb4")),
                            "TCP_HDR"),
    "tcp_opt_len_0": (raw_tcp(hdr(0x02, doff=6, opts=b"\x08\x00\x00\x00")),
                      "TCP_HDR"),
    "tcp_opt_len_1": (raw_tcp(hdr(0x02, doff=6, opts=b"\x03\x01\x00\x00")),
                      "TCP_HDR"),
    "tcp_mss_bad_size": (raw_tcp(hdr(0x02, doff=6, opts=b"\x02\x03\x05\x00")),
                         "TCP_HDR"),
    "tcp_sack_odd": (raw_tcp(hdr(0x10, doff=8, opts=b"\x05\x07" + b"\0" * 5 +
                                 b"\x00" * 5)), "TCP_HDR"),
    "tcp_syn_fin": (raw_tcp(hdr(0x03)), "TCP_FLAGS"),
    "tcp_syn_rst": (raw_tcp(hdr(0x06)), "TCP_FLAGS"),
    "tcp_no_flags": (raw_tcp(hdr(0x00)), "TCP_FLAGS"),
    "tcp_rst_to_listener": (raw_tcp(hdr(0x04)), "TCP_RESET"),
    "tcp_fin_closed_port": (bytes(eth / IP(src=src, dst=dst) /
                                  TCP(sport=40002, dport=port + 1, flags="F")),
                            "NO_SOCKET"),
    "tcp_ack_to_listener": (bytes(eth / IP(src=src, dst=dst) /
                                  TCP(sport=40003, dport=port, flags="A",
                                      seq=5, ack=77)),
                            None),  # a bad SYN cookie or no socket: RST
}


def handshake(rng):
    """scapy's own connection; returns (our seq, the server's next seq,
    its timestamp, our tsval)."""
    isn = rng.getrandbits(32)
    ts = 1000
    syn = (eth / IP(src=src, dst=dst) /
           TCP(sport=sport, dport=port, flags="S", seq=isn, window=65535,
               options=[("MSS", 1460), ("SAckOK", b""),
                        ("Timestamp", (ts, 0)), ("WScale", 0)]))
    sa = srp1(syn, iface=iface, timeout=2, filter=f"tcp and src port {port} "
              f"and dst port {sport}")
    if sa is None or sa[TCP].flags != "SA":
        sys.exit("no SYN-ACK for scapy's connection")
    their = sa[TCP].seq + 1
    tsval = dict(sa[TCP].options).get("Timestamp", (0, 0))[0]
    ts += 1
    sendp(eth / IP(src=src, dst=dst) /
          TCP(sport=sport, dport=port, flags="A", seq=isn + 1, ack=their,
              window=65535, options=[("Timestamp", (ts, tsval))]), iface=iface)
    return isn + 1, their, tsval, ts


def seg(seq, ack, flags, ts, ecr, payload=b"", win=65535):
    p = (eth / IP(src=src, dst=dst) /
         TCP(sport=sport, dport=port, flags=flags, seq=seq, ack=ack, window=win,
             options=[("Timestamp", (ts, ecr))]))
    if payload:
        p = p / Raw(payload)
    return bytes(p)


rng = random.Random(2026)
expect = {}
sent = 0


def count(reason, n=1):
    if reason is not None:
        expect[reason] = expect.get(reason, 0) + n


for r in range(rounds):
    names = list(stateless)
    rng.shuffle(names)
    frames = []
    for n in names:
        frames.append(stateless[n][0])
        count(stateless[n][1])
    # the connection's hostile segments
    me, them, ecr, ts = handshake(rng)
    ts += 1
    hostile = [
        # RST far out of the window: dropped
        (seg(me + 10_000_000, 0, "R", ts, ecr), "TCP_INVALID_SEQUENCE"),
        # RST in the window, not at RCV.NXT: challenge ACK, dropped
        (seg(me + 100, 0, "R", ts, ecr), "TCP_RESET"),
        # SYN in the window: challenge ACK, dropped
        (seg(me + 5, 0, "S", ts, ecr), "TCP_INVALID_SYN"),
        # an older timestamp: PAWS
        (seg(me, them, "A", 1, ecr, b"old"), "TCP_RFC7323_PAWS"),
        # acknowledges what was never sent
        (seg(me, them + 100_000, "A", ts, ecr), "TCP_ACK_UNSENT_DATA"),
        # data beyond the window
        (seg(me + 3_000_000, them, "A", ts, ecr, b"far"), "TCP_INVALID_SEQUENCE"),
    ]
    for f, why in hostile:
        frames.append(f)
        count(why)
    sendp([Raw(f) for f in frames], iface=iface)
    sent += len(frames)
    # issue 9: a forged segment at RCV.NXT, its TSval 2^31 - 1 ahead and its
    # ACK beyond SND.NXT (dropped, RFC 5961 5.2), must not move TS.Recent:
    # the connection's next genuine segment is still taken (not PAWS)
    sendp(Raw(seg(me, them + 200_000, "A", (ts + 0x7fffff00) & 0xffffffff,
                  ecr, b"evil")), iface=iface)
    count("TCP_ACK_UNSENT_DATA")
    sent += 1
    ts += 1
    ans = srp1(Ether(seg(me, them, "PA", ts, ecr, b"ping")), iface=iface,
               timeout=2, filter=f"tcp and src port {port} and dst port {sport}"
               f" and tcp[8:4] = {(me + 4) & 0xffffffff}")
    if ans is None:
        sys.exit(f"round {r}: the genuine segment after a forged TSval was "
                 "not taken")
    me += 4
    # end scapy's connection with an RST at RCV.NXT (accepted, not a drop)
    sendp(Raw(seg(me, 0, "R", ts, ecr)), iface=iface)
    # the server still echoes, to the kernel's own TCP
    with socket.create_connection((dst, port), timeout=10) as s:
        probe = f"alive {r}".encode()
        s.sendall(probe)
        got = b""
        while len(got) < len(probe):
            b = s.recv(100)
            if not b:
                sys.exit(f"round {r}: EOF instead of the echo")
            got += b
        if got != probe:
            sys.exit(f"round {r}: wrong echo")
json.dump(expect, open(out, "w"), indent=1, sort_keys=True)
print(f"{sent} hostile segments in {rounds} rounds; echo alive after each round")
