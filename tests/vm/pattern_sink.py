#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
"""A kernel TCP sink that checks ust-perf --verify's pattern.

  pattern_sink.py PORT RESULTS

Accepts connections on PORT until killed; reads each to its end and checks
every byte against the pattern of its offset in the connection's stream
(32-bit little-endian words, word w = w * 2654435761 ^ 0x5eed1234 mod 2^32,
as apps/ust-perf/mode_tcp.c writes it). When a connection ends, appends one
JSON line to RESULTS: {"bytes": N, "errors": N, "first_error": OFFSET or
null, "end": "eof" or the error}. Prints "ready" once listening.
"""

import array
import json
import socket
import socketserver
import sys
import threading

MUL, XOR, M32 = 2654435761, 0x5EED1234, 0xFFFFFFFF
lock = threading.Lock()


def pattern(off, n):
    """The pattern's bytes at stream offsets [off, off + n)."""
    w0, w1 = off >> 2, (off + n + 3) >> 2
    a = array.array("I", [((w * MUL) & M32) ^ XOR for w in range(w0, w1)])
    if sys.byteorder != "little":
        a.byteswap()
    b = a.tobytes()
    s = off & 3
    return b[s:s + n]


class Sink(socketserver.BaseRequestHandler):
    def handle(self):
        s = self.request
        off, errors, first, end = 0, 0, None, "eof"
        while True:
            try:
                b = s.recv(1 << 20)
            except OSError as e:
                end = str(e)
                break
            if not b:
                break
            exp = pattern(off, len(b))
            if b != exp:
                bad = [i for i in range(len(b)) if b[i] != exp[i]]
                if first is None:
                    first = off + bad[0]
                errors += len(bad)
            off += len(b)
        with lock, open(sys.argv[2], "a") as f:
            f.write(json.dumps({"bytes": off, "errors": errors,
                                "first_error": first, "end": end}) + "\n")


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    srv = Server(("0.0.0.0", int(sys.argv[1])), Sink)
    print("ready", flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
