#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
"""The kernel's side of the TCP interop tests: plain Linux sockets.

  tcp_peer.py echo-server PORT            echo every connection until killed
  tcp_peer.py echo-server6 PORT           the same on [::] (both families)
  tcp_peer.py rst-server PORT             read a little, then reset (SO_LINGER 0)
  tcp_peer.py short HOST PORT N SIZE [P]  N connections, P at a time (1: one after
                                          another), each SIZE bytes echoed
                                          byte-exact, then closed
  tcp_peer.py stream HOST PORT BYTES SEED BYTES of seeded random data sent on one
                                          connection, the echo read back; the two
                                          sha256 must match
  tcp_peer.py refused HOST PORT           connect must fail with ECONNREFUSED
  tcp_peer.py hold HOST PORT              connect, one echo, then wait: the
                                          connection must end in ECONNRESET

Exit status 0 when the check holds, 1 otherwise (with the reason on stderr).
"""

import errno
import hashlib
import random
import socket
import socketserver
import sys
import threading
import time


def die(msg):
    print(f"tcp_peer: {msg}", file=sys.stderr)
    sys.exit(1)


class Echo(socketserver.BaseRequestHandler):
    def handle(self):
        s = self.request
        while True:
            try:
                b = s.recv(65536)
            except ConnectionError:
                return
            if not b:
                return
            s.sendall(b)


class Rst(socketserver.BaseRequestHandler):
    def handle(self):
        s = self.request
        try:
            s.recv(65536)
        except ConnectionError:
            return
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                     (1).to_bytes(4, "little") + (0).to_bytes(4, "little"))
        s.close()


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True
    request_queue_size = 1024


class Server6(Server):
    address_family = socket.AF_INET6


def serve(port, handler, six=False):
    srv = Server6(("::", port), handler) if six else \
        Server(("0.0.0.0", port), handler)
    print("ready", flush=True)
    srv.serve_forever()


def short(host, port, n, size, par=1):
    failed = []

    def one(i):
        data = random.Random((n * 7919 + size) * 65536 + i).randbytes(size)
        with socket.create_connection((host, port), timeout=60) as s:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            s.sendall(data)
            got = b""
            while len(got) < size:
                b = s.recv(65536)
                if not b:
                    return f"connection {i}: EOF after {len(got)} of {size} bytes"
                got += b
            if got != data:
                return f"connection {i}: echo differs"
            s.shutdown(socket.SHUT_WR)
            if s.recv(1) != b"":
                return f"connection {i}: data after the echo"
        return None

    def worker(w):
        # connections w, w + par, w + 2 par... one after another
        for i in range(w, n, par):
            if failed:
                return
            try:
                err = one(i)
            except OSError as e:
                err = f"connection {i}: {e}"
            if err:
                failed.append(err)
                return

    t0 = time.monotonic()
    ths = [threading.Thread(target=worker, args=(w,)) for w in range(par)]
    for th in ths:
        th.start()
    for th in ths:
        th.join()
    dt = time.monotonic() - t0
    if failed:
        die(failed[0])
    print(f"{n} connections of {size} bytes ({par} at a time) echoed "
          f"byte-exact and closed in order in {dt:.2f} s ({n / dt:.0f}/s)")


def stream(host, port, total, seed):
    rnd = random.Random(seed)
    sent_hash = hashlib.sha256()
    recv_hash = hashlib.sha256()
    got = [0]
    err = []
    s = socket.create_connection((host, port), timeout=60)

    def reader():
        try:
            while True:
                b = s.recv(1 << 20)
                if not b:
                    return
                recv_hash.update(b)
                got[0] += len(b)
        except OSError as e:
            err.append(e)

    th = threading.Thread(target=reader)
    th.start()
    t0 = time.monotonic()
    left = total
    while left > 0:
        chunk = rnd.randbytes(min(left, 1 << 20))
        sent_hash.update(chunk)
        s.sendall(chunk)
        left -= len(chunk)
    s.shutdown(socket.SHUT_WR)
    th.join(120)
    dt = time.monotonic() - t0
    s.close()
    if err:
        die(f"stream: {err[0]}")
    if got[0] != total:
        die(f"stream: {got[0]} of {total} bytes came back")
    if sent_hash.hexdigest() != recv_hash.hexdigest():
        die("stream: sha256 of the echo differs from what was sent")
    print(f"{total} bytes echoed, sha256 {sent_hash.hexdigest()} on both "
          f"sides, {total * 8 / dt / 1e6:.0f} Mbit/s each way")


def refused(host, port):
    try:
        socket.create_connection((host, port), timeout=10)
    except ConnectionRefusedError:
        print("connection refused, as expected")
        return
    except OSError as e:
        die(f"expected ECONNREFUSED, got {e}")
    die("expected ECONNREFUSED, the connection succeeded")


def hold(host, port):
    s = socket.create_connection((host, port), timeout=30)
    s.sendall(b"ping")
    if s.recv(4) != b"ping":
        die("no echo")
    print("ready", flush=True)
    try:
        b = s.recv(1)
    except ConnectionResetError:
        print("connection reset, as expected")
        return
    except OSError as e:
        if e.errno == errno.ECONNRESET:
            print("connection reset, as expected")
            return
        die(f"expected ECONNRESET, got {e}")
    die(f"expected ECONNRESET, got {'EOF' if not b else 'data'}")


def main(argv):
    if len(argv) < 2:
        die(__doc__)
    cmd, args = argv[1], argv[2:]
    if cmd == "echo-server":
        serve(int(args[0]), Echo)
    elif cmd == "echo-server6":
        serve(int(args[0]), Echo, six=True)
    elif cmd == "rst-server":
        serve(int(args[0]), Rst)
    elif cmd == "short":
        short(args[0], int(args[1]), int(args[2]), int(args[3]),
              int(args[4]) if len(args) > 4 else 1)
    elif cmd == "stream":
        stream(args[0], int(args[1]), int(args[2]), int(args[3]))
    elif cmd == "refused":
        refused(args[0], int(args[1]))
    elif cmd == "hold":
        hold(args[0], int(args[1]))
    else:
        die(f"unknown command {cmd}")


if __name__ == "__main__":
    main(sys.argv)
