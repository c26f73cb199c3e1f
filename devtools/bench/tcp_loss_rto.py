#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
"""Classify the retransmission timeouts in a capture of tcp_loss.sh (PCAP=).

For each side of each echo connection in the capture (the server's
address given), a timeout is a retransmission after 150 ms or more in which
that side sent no data. Each is classed by what the capture shows was
outstanding then: how many segments were sent and neither acknowledged nor
SACKed by the last ACK seen (0: the peer had acknowledged all, its ACK was
lost on the way), whether the newest of them was itself a retransmission,
and (for the echo server) whether it had received data it had not yet
sent back.

    /usr/bin/python3 devtools/bench/tcp_loss_rto.py FILE.pcap 198.18.0.2
    /usr/bin/python3 devtools/bench/tcp_loss_rto.py FILE-kernel.pcap 198.18.2.2

(scapy: Debian's python3-scapy, hence /usr/bin/python3)
"""

import sys
from collections import Counter

from scapy.all import IP, TCP, PcapReader

GAP = 0.15


def frames(path, server):
    """(time, side, seq, len, ack, window, sacks) per TCP frame, seq and
    ack relative to the connection's ISNs; None where a connection
    starts (the server's SYN-ACK)."""
    base = cbase = None
    for p in PcapReader(path):
        if IP not in p or TCP not in p:
            continue
        ip, t = p[IP], p[TCP]
        if ip.src == server and (t.flags & 0x12) == 0x12:
            base, cbase = t.seq, t.ack - 1
            yield None
            continue
        if base is None:
            continue
        srv = ip.src == server
        mine, theirs = (base, cbase) if srv else (cbase, base)
        sacks = []
        for o in t.options:
            if o[0] == 'SAck':
                v = o[1]
                sacks = [((v[k] - theirs) & 0xffffffff,
                          (v[k + 1] - theirs) & 0xffffffff)
                         for k in range(0, len(v), 2)]
        yield (float(p.time), 'S' if srv else 'C',
               (t.seq - mine) & 0xffffffff,
               ip.len - ip.ihl * 4 - t.dataofs * 4,
               (t.ack - theirs) & 0xffffffff, t.window, sacks)


def classify(rows, side):
    other = 'C' if side == 'S' else 'S'
    out = Counter()
    sent_max = ack = rcvd = 0
    last_tx = None
    txs, sacks = {}, []
    for r in rows:
        if r is None:
            sent_max = ack = rcvd = 0
            last_tx = None
            txs, sacks = {}, []
            continue
        t, who, seq, length, rack, _, rsacks = r
        if who == other:
            ack = max(ack, rack)
            if rsacks:
                sacks = rsacks
            continue
        rcvd = max(rcvd, rack)
        if length == 0:
            continue
        if seq < sent_max and last_tx is not None and t - last_tx > GAP:
            outs = [(s, e, again) for s, (e, again) in txs.items()
                    if e > ack and not any(a <= s and e <= b
                                           for a, b in sacks)]
            newest = max(outs, key=lambda x: x[0]) if outs else None
            k = 'outstanding %s' % (len(outs) if len(outs) < 3 else '3+')
            if outs:
                k += ', newest a retransmission' if newest[2] else \
                    ', newest an original'
            if side == 'S':
                k += ', data waiting' if rcvd > sent_max else ', no data'
            out[k] += 1
        prev = txs.get(seq)
        txs[seq] = (seq + length, prev is not None or seq < sent_max)
        sent_max = max(sent_max, seq + length)
        last_tx = t
    return out


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print('usage: tcp_loss_rto.py FILE.pcap SERVER_ADDRESS',
              file=sys.stderr)
        return 2
    rows = list(frames(sys.argv[1], sys.argv[2]))
    for side, name in (('S', 'echo server'), ('C', 'kernel client')):
        c = classify(rows, side)
        print('%s: %d timeouts' % (name, sum(c.values())))
        for k, v in sorted(c.items(), key=lambda kv: -kv[1]):
            print('  %4d  %s' % (v, k))
    return 0


if __name__ == '__main__':
    sys.exit(main())
