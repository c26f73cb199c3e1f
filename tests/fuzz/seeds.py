#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write a seed corpus for a fuzz target: well-formed frames to mutate.

fuzz_wire takes a frame (from the Ethernet header, the IP header or the
L4 header on); fuzz_stack takes a configuration byte and a sequence of
operations, laid out as fuzz_stack.c reads them."""
import os
import struct
import sys

target, out = sys.argv[1], sys.argv[2]

PEER = b"\xc6\x12\x00\x01"
US = b"\xc6\x12\x00\x02"


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack(f"!{len(b) // 2}H", b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff


def ipv4(proto, payload, src=PEER, dst=US):
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 1, 0x4000, 64, proto, 0, src, dst)
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + payload


def udp(payload, sport=4000, dport=7):
    u = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    ph = PEER + US + struct.pack("!BBH", 0, 17, len(u))
    c = csum(ph + u) or 0xffff
    return u[:6] + struct.pack("!H", c) + u[8:]


def icmp_echo(payload):
    m = struct.pack("!BBHHH", 8, 0, 0, 1, 1) + payload
    return m[:2] + struct.pack("!H", csum(m)) + m[4:]


FIN, SYN, RST, PSH, ACK = 0x01, 0x02, 0x04, 0x08, 0x10


def tcp_opts(mss=None, ws=None, sack_perm=False, ts=None, sack=()):
    o = b""
    if mss is not None:
        o += struct.pack("!BBH", 2, 4, mss)
    if sack_perm:
        o += b"\x01\x01\x04\x02"
    if ts is not None:
        o += b"\x01\x01" + struct.pack("!BBII", 8, 10, ts[0], ts[1])
    if ws is not None:
        o += struct.pack("!BBBB", 1, 3, 3, ws)
    if sack:
        o += b"\x01\x01" + struct.pack("!BB", 5, 2 + 8 * len(sack))
        o += b"".join(struct.pack("!II", s, e) for s, e in sack)
    return o


def tcp(flags, seq, ack, payload=b"", opts=b"", sport=40100, dport=80, win=65535):
    hl = 20 + len(opts)
    t = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, (hl // 4) << 4, flags, win, 0, 0) + opts + payload
    ph = PEER + US + struct.pack("!BBH", 0, 6, len(t))
    return t[:16] + struct.pack("!H", csum(ph + t)) + t[18:]


eth = b"\x02\x00\x00\x00\x00\x02" + b"\x02\x00\x00\x00\x00\x01"


def ether(l3, ethertype=b"\x08\x00"):
    return eth + ethertype + l3


ts = (5000, 7000)
segments = {
    "tcp_syn": tcp(SYN, 1000, 0, opts=tcp_opts(mss=1460, ws=7, sack_perm=True, ts=ts)),
    "tcp_data": tcp(ACK | PSH, 1001, 2001, b"hello, tcp" * 10, tcp_opts(ts=ts)),
    "tcp_fin": tcp(FIN | ACK, 1101, 2001, opts=tcp_opts(ts=ts)),
    "tcp_rst": tcp(RST, 1101, 0),
    "tcp_sack": tcp(ACK, 1101, 2001, opts=tcp_opts(ts=ts, sack=((3449, 4897), (6345, 7793), (9241, 10689)))),
}
frames = {
    "udp": ether(ipv4(17, udp(b"hello fuzz"))),
    "icmp": ether(ipv4(1, icmp_echo(b"x" * 32))),
    "arp": b"\xff" * 6 + eth[6:] + b"\x08\x06" + struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1, eth[6:], PEER, b"\0" * 6, US),
    "udp_noport": ether(ipv4(17, udp(b"n", dport=9))),
}
for name, seg in segments.items():
    frames[name] = ether(ipv4(6, seg))

# IPv6 (2001:2::/48, RFC 5180): ICMPv6 echo, an NS, a chain of extension
# headers before UDP, a fragment
SRC6 = bytes.fromhex("20010002000000000000000000000001")
DST6 = bytes.fromhex("20010002000000000000000000000002")


def ipv6(nh, payload, src=SRC6, dst=DST6):
    return struct.pack("!IHBB", 6 << 28, len(payload), nh, 64) + src + dst + payload


def icmp6(typ, body, src=SRC6, dst=DST6):
    m = struct.pack("!BBH", typ, 0, 0) + body
    ph = src + dst + struct.pack("!IxxxB", len(m), 58)
    return m[:2] + struct.pack("!H", csum(ph + m)) + m[4:]


frames["icmp6_echo"] = b"\x33\x33\x00\x00\x00\x01" + eth[6:] + b"\x86\xdd" + ipv6(58, icmp6(128, struct.pack("!HH", 7, 1) + b"ping6"))
frames["nd_ns"] = b"\x33\x33\xff\x00\x00\x02" + eth[6:] + b"\x86\xdd" + ipv6(58, icmp6(135, b"\0" * 4 + DST6 + b"\x01\x01" + eth[6:]))
frames["ipv6_ext"] = b"\x33\x33\x00\x00\x00\x01" + eth[6:] + b"\x86\xdd" + ipv6(0, b"\x3c\x00\x01\x04\0\0\0\0" + b"\x2b\x00\x00\x00\0\0\0\0" + b"\x11\x00\x04\x00\0\0\0\0" + udp(b"six"))
def ipv6_h(nh, payload, hlim, src=SRC6, dst=DST6):
    return struct.pack("!IHBB", 6 << 28, len(payload), nh, hlim) + src + dst + payload


LL6 = bytes.fromhex("fe800000000000000000000000000001")
frames["icmp6_echo_unicast"] = eth + b"\x86\xdd" + ipv6(58, icmp6(128, struct.pack("!HH", 7, 2) + b"ping6" * 8))
frames["nd_ns255"] = b"\x33\x33\xff\x00\x00\x02" + eth[6:] + b"\x86\xdd" + ipv6_h(58, icmp6(135, b"\0" * 4 + DST6 + b"\x01\x01" + eth[6:], dst=bytes.fromhex("ff0200000000000000000001ff000002")), 255, dst=bytes.fromhex("ff0200000000000000000001ff000002"))
frames["nd_na255"] = eth + b"\x86\xdd" + ipv6_h(58, icmp6(136, b"\x60\0\0\0" + SRC6 + b"\x02\x01" + eth[6:]), 255)
frames["nd_ra255"] = eth + b"\x86\xdd" + ipv6_h(58, icmp6(134, b"\x40\x00\x07\x08\0\0\0\0\0\0\0\0" + b"\x01\x01" + eth[6:] + b"\x05\x01\0\0\0\0\x05\x78" + b"\x03\x04\x40\xc0\0\0\x0e\x10\0\0\x0e\x10\0\0\0\0" + bytes.fromhex("20010002000700000000000000000000"), src=LL6), 255, src=LL6)
def udp6(payload, sport=4000, dport=7, src=SRC6, dst=DST6):
    u = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    ph = src + dst + struct.pack("!I3xB", len(u), 17)
    return u[:6] + struct.pack("!H", csum(ph + u) or 0xffff) + u[8:]


# UDP over IPv6 to the dual-stack echo socket: one datagram, and the two
# pieces of one of 1600 bytes (echoed in fragments)
frames["udp6_echo"] = eth + b"\x86\xdd" + ipv6(17, udp6(b"echo6" * 10))
_big6 = udp6(bytes(range(256)) * 6 + b"x" * 64)
frames["udp6_frag0"] = eth + b"\x86\xdd" + ipv6(44, b"\x11\x00\x00\x01\x00\x00\x0a\xbc" + _big6[:1232])
frames["udp6_frag1"] = eth + b"\x86\xdd" + ipv6(44, b"\x11\x00" + struct.pack("!H", 1232) + b"\x00\x00\x0a\xbc" + _big6[1232:])
frames["ipv6_frag"] = b"\x33\x33\x00\x00\x00\x01" + eth[6:] + b"\x86\xdd" + ipv6(44, b"\x11\x00\x00\x01\x12\x34\x56\x78" + udp(b"f" * 16))


def tcp6(flags, seq, ack, payload=b"", opts=b"", sport=40200, dport=81, win=65535, src=SRC6, dst=DST6):
    hl = 20 + len(opts)
    t = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, (hl // 4) << 4, flags, win, 0, 0) + opts + payload
    ph = src + dst + struct.pack("!I3xB", len(t), 6)
    return t[:16] + struct.pack("!H", csum(ph + t)) + t[18:]


# TCP over IPv6 to the IPv6-only listener on [::]:81: a SYN with every
# option (a half-open entry in the IPv6 table, its SYN-ACK), an ACK whose
# cookie is wrong, data, an RST; a SYN to the IPv4 listener's port 80 (an
# AF_INET listener: reset); ICMPv6 packet too big quoting a SYN-ACK
_opts6 = tcp_opts(mss=1440, ws=7, sack_perm=True, ts=(1, 0))
frames["tcp6_syn"] = eth + b"\x86\xdd" + ipv6(6, tcp6(SYN, 1000, 0, opts=_opts6))
frames["tcp6_ack"] = eth + b"\x86\xdd" + ipv6(6, tcp6(ACK, 1001, 12345, opts=b"\x01\x01" + struct.pack("!BBII", 8, 10, 2, 1)))
frames["tcp6_data"] = eth + b"\x86\xdd" + ipv6(6, tcp6(ACK | PSH, 1001, 12345, payload=b"d" * 100))
frames["tcp6_rst"] = eth + b"\x86\xdd" + ipv6(6, tcp6(RST, 1001, 0))
frames["tcp6_syn80"] = eth + b"\x86\xdd" + ipv6(6, tcp6(SYN, 5000, 0, dport=80, opts=_opts6))
frames["tcp6_ptb"] = eth + b"\x86\xdd" + ipv6(58, icmp6(2, struct.pack("!I", 1280) + ipv6(6, tcp6(SYN | ACK, 777, 1001, sport=81, dport=40200, src=DST6, dst=SRC6, opts=tcp_opts(mss=1440)), src=DST6, dst=SRC6)))

if target == "fuzz_wire":
    # the wire target parses from any offset: the frame, its IP part and
    # (for TCP) its TCP part
    for name, f in frames.items():
        open(os.path.join(out, name), "wb").write(f)
        open(os.path.join(out, name + "_ip"), "wb").write(f[14:])
    for name, seg in segments.items():
        open(os.path.join(out, name + "_l4"), "wb").write(seg)
    sys.exit(0)

# ---- fuzz_stack: operations (fuzz_stack.c, enum op) ----
OP_FRAME, OP_SEG, OP_TCPRAW, OP_CLOCK, OP_SEND, OP_RECV, OP_SOCK, OP_OPEN, OP_NETIF, OP_UDP, OP_FRAG = range(11)
# SEG: sel and opt bits
ACK_SND_MAX, ACK_SND_UNA, ACK_SND_NXT, ACK_OLD = range(4)
SEL_FAR, SEL_CHAIN, SEL_CSUM_OK, SEL_MSS, SEL_WS, SEL_SACK_PERM = 0x04, 0x08, 0x10, 0x20, 0x40, 0x80
OPT_TS, OPT_TS_BACK = 0x01, 0x08
# the configuration byte
F_NO_SACK, F_NO_TS, F_NO_WS, F_NO_COOKIES, F_NEWRENO, F_NO_QUICKACK, F_SMALL_BUF, F_PLAIN_PEER = (1 << i for i in range(8))


def op_frame(f):
    return struct.pack("<BH", OP_FRAME, len(f)) + f


def op_seg(c, flags, seq_off=0, ack_off=0, sel=ACK_SND_MAX, win=65535, ts=True, tsd=1, plen=0, sacks=(), cut=None, opt=0):
    """A segment to slot c: seq = rcv_nxt + seq_off, ack = base(sel) + ack_off,
    SACK blocks as (offset from snd_una, length)."""
    opt |= (OPT_TS if ts else 0) | (len(sacks) << 1)
    if cut is not None:
        sel |= SEL_CHAIN
    b = struct.pack("<BBBBhhHBBH", OP_SEG, c, flags, sel, seq_off, ack_off, win, opt, tsd, plen)
    b += b"".join(struct.pack("<HH", s, n) for s, n in sacks)
    if cut is not None:
        b += bytes([cut])
    return b


def op_tcpraw(c, seg, mode=3):
    return struct.pack("<BBBH", OP_TCPRAW, c, mode, len(seg)) + seg


def op_clock(ms):
    """The smallest step of at least ms milliseconds."""
    for e in range(256):
        if ((e & 7) + 1) << (e >> 3) >= ms:
            return bytes([OP_CLOCK, e])
    return bytes([OP_CLOCK, 255])


def op_send(c, n, mode=0):
    return struct.pack("<BBHB", OP_SEND, c, n, mode)


def op_recv(c, n, mode=0):
    return struct.pack("<BBHB", OP_RECV, c, n, mode)


SHUT_RD, SHUT_WR, SHUT_RDWR, CLOSE, NODELAY, QUICKACK, KEEPALIVE, RCVBUF, SNDBUF, LINGER, CONGESTION, LISTENER, KEEPALIVE_OFF, ACCEPT = range(14)


def op_sock(c, what):
    return bytes([OP_SOCK, c, what])


def op_open(slot, active=False, complete=True, opts=0x0f):
    return bytes([OP_OPEN, slot, opts | (0x10 if active else 0) | (0x80 if complete else 0)])


def op_netif(n):
    return bytes([OP_NETIF, n])


# FRAG sel bits: ID (0-3), MF, TCP, a UDP length of two pieces; bits 5-7
# bytes past the 8-byte multiple
FR_MF, FR_TCP, FR_TWO = 0x04, 0x08, 0x10


def op_frag(sel, off8, len8, data=b""):
    return struct.pack("<BBHBB", OP_FRAG, sel, off8, len8, len(data)) + data


MSS = 1448  # the set-up connections' MSS with timestamps
seeds = {}
for name, f in frames.items():
    seeds[name] = bytes([0]) + op_frame(f)
# TCP over IPv6 (the peer's neighbour solicitation first: its address
# and MAC cached, so that our answers leave): a SYN, its SYN-ACK resent
# (timers), packet too big, a bad ACK, data, a reset, the entry's end
seeds["tcp6_flow"] = bytes([0]) + op_frame(frames["nd_ns255"]) + op_frame(frames["tcp6_syn"]) + op_clock(1000) + op_frame(frames["tcp6_ptb"]) + op_frame(frames["tcp6_ack"]) + op_frame(frames["tcp6_data"]) + op_clock(3000) + op_frame(frames["tcp6_rst"]) + op_frame(frames["tcp6_syn80"]) + op_clock(64000)
seeds["tcp6_cookies"] = bytes([0]) + op_frame(frames["nd_ns255"]) + b"".join(op_frame(eth + b"\x86\xdd" + ipv6(6, tcp6(SYN, 1000 + k, 0, sport=40300 + k, opts=_opts6))) for k in range(8)) + op_frame(frames["tcp6_ack"])
seeds["udp6_echoed"] = bytes([0]) + op_frame(frames["udp6_echo"]) + op_frame(frames["udp6_frag0"]) + op_frame(frames["udp6_frag1"]) + bytes([OP_UDP])
seeds["all"] = bytes([0]) + b"".join(op_frame(f) for f in frames.values()) + bytes([OP_UDP])
seeds["tcp_segments_raw"] = bytes([0]) + b"".join(op_tcpraw(0, seg) for seg in segments.values())
# data in, in order and out of order (SACK blocks out), read
seeds["tcp_data"] = bytes([0]) + op_seg(0, ACK | PSH, plen=100) + op_recv(0, 50) + op_recv(0, 100, mode=2) + op_seg(1, ACK, plen=1400, cut=40)
seeds["tcp_ooo"] = bytes([0]) + op_seg(0, ACK, seq_off=1000, plen=500) + op_seg(0, ACK, seq_off=3000, plen=500) + op_seg(0, ACK, seq_off=1200, plen=1000) + op_seg(0, ACK, plen=1000) + op_recv(0, 4000)
# the peer's FIN, our FIN, TIME_WAIT or LAST_ACK
seeds["tcp_fin"] = bytes([0]) + op_seg(0, FIN | ACK, plen=10) + op_recv(0, 100) + op_sock(0, CLOSE) + op_seg(0, ACK) + op_clock(100)
seeds["tcp_close_first"] = bytes([0]) + op_sock(1, SHUT_WR) + op_seg(1, ACK) + op_seg(1, FIN | ACK) + op_clock(61000) + op_seg(1, ACK)
# TIME_WAIT: the peer's FIN again, data, an RST (RFC 1337), a newer SYN
seeds["tcp_time_wait"] = bytes([0]) + op_sock(0, SHUT_WR) + op_seg(0, ACK) + op_seg(0, FIN | ACK) + op_seg(0, FIN | ACK, seq_off=-1) + op_seg(0, ACK, plen=10) + op_seg(0, RST, ts=False) + op_seg(0, SYN, seq_off=1000, tsd=100, sel=SEL_MSS | SEL_SACK_PERM) + op_seg(0, ACK) + op_clock(61000)
# RST: exact, in window (challenge ACK), and a SYN in a synchronized state
seeds["tcp_rst"] = bytes([0]) + op_seg(0, RST, seq_off=5, ts=False) + op_seg(0, SYN, ts=False) + op_seg(0, RST, ts=False)
# our data, dup ACKs with SACK blocks (recovery), an RTO
seeds["tcp_sack"] = bytes([0]) + op_send(0, 30000) + op_seg(0, ACK, sel=ACK_SND_UNA, ack_off=MSS) + b"".join(
    op_seg(0, ACK, sel=ACK_SND_UNA, sacks=((MSS, MSS * k),)) for k in range(2, 12)) + op_seg(0, ACK, sel=ACK_SND_UNA, ack_off=2 * MSS, sacks=((4 * MSS, MSS), (6 * MSS, 2 * MSS))) + op_clock(2000) + op_seg(0, ACK)
seeds["tcp_newreno"] = bytes([F_NO_SACK | F_NEWRENO]) + op_send(1, 30000) + b"".join(
    op_seg(1, ACK, sel=ACK_SND_UNA) for _ in range(4)) + op_seg(1, ACK, sel=ACK_SND_UNA, ack_off=MSS) + op_seg(1, ACK)
# zero window: persist probes
seeds["tcp_zero_window"] = bytes([F_NO_TS]) + op_seg(1, ACK, win=0, ts=False) + op_send(1, 5000) + op_clock(1000) + op_clock(3000) + op_seg(1, ACK, ts=False)
# handshakes: passive (SYN flood into cookies), active, not completed
# handshakes: passive (the SYN queue full, then a SYN cookie), active, not
# completed; connections left in the accept queue
seeds["tcp_handshakes"] = bytes([0]) + b"".join(op_open(s, complete=False) for s in range(2, 6)) + op_open(6, complete=False, opts=0x0b) + op_seg(6, ACK) + op_open(5, complete=False, opts=0x0b) + op_clock(3000) + op_seg(2, ACK) + op_open(3, active=True, complete=False) + op_seg(3, SYN | ACK, sel=ACK_SND_MAX | SEL_MSS | SEL_WS | SEL_SACK_PERM, win=1460 << 4, tsd=7) + op_open(7, complete=False) + op_seg(7, ACK, plen=100) + op_sock(0, ACCEPT)
seeds["tcp_plain"] = bytes([F_PLAIN_PEER | F_NO_QUICKACK | F_SMALL_BUF]) + op_seg(0, ACK, plen=1400, ts=False) + op_clock(1) + op_seg(0, ACK, plen=1400, ts=False) + op_send(0, 4000) + op_seg(0, ACK, ts=False)
# keepalive, PAWS, window updates, TX backing up
seeds["tcp_misc"] = bytes([0]) + op_sock(0, KEEPALIVE) + op_clock(1100) + op_clock(1100) + op_seg(0, ACK, plen=100, opt=OPT_TS_BACK, tsd=100) + op_sock(0, RCVBUF) + op_seg(0, ACK, plen=1000) + op_recv(0, 2000) + op_netif(0) + op_send(0, 20000, mode=1) + op_netif(255) + op_clock(10)
# IPv4 fragments: a datagram of two pieces (echoed in fragments), an
# overlap, a duplicate, a fragmented TCP segment, too many pieces, a timeout
seeds["frag_udp"] = bytes([0]) + op_frag(FR_MF | FR_TWO, 0, 184) + op_frag(FR_TWO, 184, 184) + bytes([OP_UDP])
seeds["frag_overlap"] = bytes([0]) + op_frag(FR_MF | 1, 0, 184) + op_frag(FR_MF | 1, 100, 184) + op_frag(1, 184, 10) + op_frag(FR_MF | 1, 0, 184) + op_frag(FR_MF | 1, 0, 184)
seeds["frag_tcp"] = bytes([0]) + op_frag(FR_MF | FR_TCP | 2, 0, 4) + op_frag(FR_TCP | 2, 4, 4) + op_frag(FR_MF | 0x20 | 3, 0, 4)
seeds["frag_many"] = bytes([0]) + b"".join(op_frag(FR_MF | 3, k, 1) for k in range(130)) + op_clock(31000)
# the first piece with 40 bytes of options, the last ending at 65512: too
# long once whole
seeds["frag_oversize"] = bytes([0]) + op_frag(FR_MF | 2, 0x8000, 184) + b"".join(op_frag(FR_MF | 2, 184 * k, 184) for k in range(1, 44)) + op_frag(2, 184 * 44, 93)
seeds["frag_timeout"] = bytes([0]) + op_frag(FR_MF, 0, 100) + op_frag(FR_MF | 1, 300, 100) + op_clock(29000) + op_frag(1, 400, 1) + op_clock(2000)
for name, s in seeds.items():
    open(os.path.join(out, name), "wb").write(s)
