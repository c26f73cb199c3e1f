#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 the ustack authors
"""Open N idle TCP connections from the kernel to HOST:PORT, spread over
the local source addresses given (each has about 28000 ephemeral ports),
print "established N" once all are, then hold them until killed.

usage: many_conns.py HOST PORT N SRC_ADDR [SRC_ADDR...]"""
import resource
import select
import socket
import sys
import time

host, port, n, srcs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if hard != resource.RLIM_INFINITY and n + 100 > hard:
    sys.exit(f"{n} connections need {n + 100} descriptors, the hard limit "
             f"is {hard}: run several processes")
resource.setrlimit(resource.RLIMIT_NOFILE, (n + 100, hard))
ep = select.epoll()
socks = {}
t0 = time.monotonic()
pending = 0
opened = 0
done = 0
while done < n:
    # at most 2000 handshakes in flight: the accept queue is the server's
    while opened < n and pending < 2000:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        s.bind((srcs[opened % len(srcs)], 0))
        try:
            s.connect((host, port))
        except BlockingIOError:
            pass
        socks[s.fileno()] = s
        ep.register(s.fileno(), select.EPOLLOUT)
        opened += 1
        pending += 1
    for fd, ev in ep.poll(1.0):
        s = socks[fd]
        err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        if err != 0:
            sys.exit(f"connection {done}: error {err}")
        ep.unregister(fd)
        pending -= 1
        done += 1
    if time.monotonic() - t0 > 600:
        sys.exit(f"only {done} of {n} connections after 600 s")
dt = time.monotonic() - t0
print(f"established {done} in {dt:.1f} s ({done / dt:.0f}/s)", flush=True)
while True:
    time.sleep(3600)
