#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
"""Check one step of tests/vm/guest-tests.sh from what it left in the share.

  check_results.py RESDIR SINK_JSONL STEP

Exit status 0 and a summary line when the step's JSON shows what it
should, 1 with the reason otherwise (tests/vm/vm_test.sh calls it once the
guest is off).
"""

import json
import os
import sys

res, sinkf, step = sys.argv[1:4]


def load(name):
    return json.load(open(os.path.join(res, name + ".json")))


# the steps' TX ring (guest-tests.sh: [port] tx_desc)
TX_DESC = int(os.environ.get("UST_VM_TX_DESC", "64"))


def sane(j):
    """No mbuf leak, every frame accounted. e1000 (em) and virtio have no
    tx_done_cleanup in DPDK 22.11: at exit they may still hold up to a TX
    ring of transmitted mbufs, freed when the port closes, after the
    count."""
    a, b = j["mbuf_in_use_start"], j["mbuf_in_use_end"]
    drv = j["port"]["driver"]
    # what the PMD may hold: em's ring is the tx_desc asked for; virtio's
    # PMD sizes its rings from the device's queue (QEMU's virtio-net: 256
    # entries), whatever tx_desc says. Twice that: a fragment's payload is
    # an indirect mbuf attached to the received (reassembled) datagram's,
    # which the descriptor's mbuf keeps from the pool too (the UDP echo
    # of 8000 bytes over IPv6 held 96 on em's ring of 64)
    held = {"net_e1000_em": 2 * TX_DESC,
            "net_virtio": 2 * max(TX_DESC, 256)}
    if b < a or b - a > held.get(drv, 0):
        sys.exit(f"mbuf leak: {a} in use at start, {b} at end "
                 f"({j['port']['driver']}, TX ring {TX_DESC})")
    fin = j["counters"]["Eth"]["InFrames"]
    if fin != j["rx_consumed"] + j["rx_drops"]:
        sys.exit(f"{fin} frames in != {j['rx_consumed']} consumed + "
                 f"{j['rx_drops']} dropped")


def zc(j):
    """Per-send zero copy: maps = unmaps over the whole run, every buffer
    completed, no byte different from the pattern."""
    t, r, o = j["tcp_tx"], j["result"]["tcp_tx"], j["options"]
    if not o["zc"] or o["zc_map"] != "per-send":
        sys.exit("not a per-send zero-copy run")
    if r["zc_pkts"] == 0 or r["dma_maps"] == 0:
        sys.exit(f"no zero-copy packet or no map in the measured interval "
                 f"(zc_pkts {r['zc_pkts']}, dma_maps {r['dma_maps']})")
    if t["dma_maps"] != t["dma_unmaps"] or t["dma_map_fail"] != 0:
        sys.exit(f"maps {t['dma_maps']} != unmaps {t['dma_unmaps']}, or "
                 f"map failures {t['dma_map_fail']}")
    if t["zc_sends"] != t["zc_completions"]:
        sys.exit(f"zero-copy sends {t['zc_sends']} != completions "
                 f"{t['zc_completions']}")
    v = j["result"]["verify"]
    if v["errors"] != 0:
        sys.exit(f"{v['errors']} received bytes differ from the pattern")
    print(f"  maps {t['dma_maps']} = unmaps {t['dma_unmaps']} over the "
          f"whole run; {t['zc_sends']} zero-copy sends, all completed; "
          f"measured: {r['dma_maps']} maps, mean "
          f"{r['dma_map_cycles'] / r['dma_maps']:.0f} cycles, "
          f"{r['dma_unmaps']} unmaps, mean "
          f"{r['dma_unmap_cycles'] / max(r['dma_unmaps'], 1):.0f} cycles "
          f"(emulated IOMMU)")


if step == "ping_udp":
    j = load(step)
    sane(j)
    reps = j["counters"]["Icmp"]["OutEchoReps"]
    echoed = j["result"]["echoed"]
    if reps < 13:
        sys.exit(f"{reps} echo replies, expected 13")
    if echoed < 300:
        sys.exit(f"{echoed} datagrams echoed, expected 300")
    i6 = j["counters"]["Icmp6"]
    reps6 = i6["OutEchoReplies"]
    if reps6 < 13 or i6["InNeighborSolicits"] < 1:
        sys.exit(f"{reps6} ICMPv6 echo replies (expected 13), {i6['InNeighborSolicits']} NS in")
    if j["counters"]["Ip6"]["ReasmOKs"] < 3 or j["counters"]["Ip6"]["FragOKs"] < 3:
        sys.exit("ping6 -s 4000 was not reassembled and fragmented 3 times")
    print(f"  {reps} echo replies, {reps6} ICMPv6 (ND through the NIC's multicast filter, 3 fragmented), "
          f"{echoed} datagrams echoed byte-exact")
elif step in ("tcp_out", "tcp_in"):
    sane(load(step))
elif step == "perf_rr":
    r = load(step)["result"]
    if r["transactions"] <= 0 or r["errors"] != 0:
        sys.exit(f"{r['transactions']} transactions, {r['errors']} errors")
    print(f"  tcp-rr: {r['transactions_per_s']:.0f} transactions/s, p50 "
          f"{r['latency_ns']['p50'] / 1e3:.0f} us, p99 "
          f"{r['latency_ns']['p99'] / 1e3:.0f} us")
elif step == "zc_stream":
    j = load(step)
    zc(j)
    sink = [json.loads(x) for x in open(sinkf)] if os.path.exists(sinkf) \
        else []
    sent = j["result"]["verify"]["bytes_sent"]
    got = sum(x["bytes"] for x in sink)
    if not sink:
        sys.exit("the kernel's checker saw no connection")
    if any(x["errors"] for x in sink):
        sys.exit(f"the kernel found bytes that differ from the pattern: "
                 f"{sink}")
    if any(x["end"] != "eof" for x in sink):
        sys.exit(f"a connection did not end with a FIN: {sink}")
    if got != sent:
        sys.exit(f"the kernel received {got} bytes, ustack sent {sent}")
    print(f"  {sent} bytes sent zero-copy on {len(sink)} connections, the "
          f"same {got} received by the kernel and checked byte by byte")
elif step == "zc_rr":
    j = load(step)
    zc(j)
    v = j["result"]["verify"]
    if v["bytes_sent"] == 0 or v["bytes_checked"] != v["bytes_sent"]:
        sys.exit(f"sent {v['bytes_sent']}, echoed back and checked "
                 f"{v['bytes_checked']}")
    print(f"  {v['bytes_sent']} bytes sent zero-copy, echoed by the kernel "
          f"and checked byte by byte")
elif step in ("mq_in", "mq_out"):
    # two stacks on two queue pairs with the device's RSS
    j = load(step)
    sane(j)
    if j.get("nb_stacks") != 2 or len(j["stacks"]) != 2:
        sys.exit(f"{j.get('nb_stacks')} stacks, expected 2")
    rss = j["port"].get("rss", {})
    if rss.get("kind") != "toeplitz":
        sys.exit(f"the port's RSS is {rss}, not a Toeplitz hash read back")
    for s in j["stacks"]:
        c = s["counters"]
        fin = c["Eth"]["InFrames"]
        if fin != s["rx_consumed"] + s["rx_drops"]:
            sys.exit(f"stack {s['index']}: {fin} frames in != "
                     f"{s['rx_consumed']} consumed + {s['rx_drops']} dropped")
    key = "PassiveOpens" if step == "mq_in" else "ActiveOpens"
    opens = [s["counters"]["Tcp"][key] for s in j["stacks"]]
    if min(opens) == 0:
        sys.exit(f"{key} per stack {opens}: one stack carried nothing")
    # steered connections: nothing handed over but the stray segments
    # that find no connection (after a close) and go round the stacks;
    # were the device's hash and the steering to disagree, half of all
    # frames would be
    hout = j["counters"]["Group"]["HandoffOut"]
    fin = j["counters"]["Eth"]["InFrames"]
    if hout * 100 > fin:
        sys.exit(f"{hout} of {fin} frames handed over between the stacks: "
                 f"the device's hash and the stacks' steering disagree")
    if step == "mq_out":
        r = j["result"]
        errs = r["resets"] + r["conn_timeouts"] + r["other_errors"] + \
            r["refused"]
        if r["transactions"] <= 0 or errs != 0:
            sys.exit(f"{r['transactions']} transactions, {errs} errors")
        per = [s["result"]["transactions"] for s in j["stacks"]]
        if min(per) == 0:
            sys.exit(f"transactions per stack {per}")
    print(f"  {key} per stack {opens}, {hout} of {fin} frames handed over; "
          f"RSS key of {rss.get('key_len')} bytes, RETA of "
          f"{rss.get('reta_size')} read back")
else:
    sys.exit(f"unknown step {step}")
