/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * The kernel's side of doc/performance.md's TCP table: request-response
 * over Linux TCP sockets, with the same traffic pattern as ust-echo's TCP
 * client and server (one request of --size bytes outstanding per
 * connection, answered with --response bytes), so that the two stacks are
 * compared on the same machine in the same run. Built by devtools/bench/
 * tcp.sh with the system compiler; not part of the library.
 *
 *   kernel_tcp_rr server PORT SIZE RESPONSE
 *   kernel_tcp_rr client ADDR PORT FLOWS SIZE RESPONSE SECONDS [RECONNECT]
 *
 * The client prints "tps p50_us p99_us" on one line. Non-blocking sockets
 * and one epoll set, one thread: the kernel's best single-core shape for
 * this workload (busy-polling left off, as applications run it).
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

struct conn {
	int fd;
	uint32_t have;
	uint64_t owed;
	uint64_t sent_ns;
	uint32_t done;
	int connecting;
};

static int
server(int port, uint32_t size, uint32_t rsp)
{
	static char buf[1 << 16], out[1 << 16];
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons((uint16_t)port) };
	struct epoll_event ev, evs[256];
	struct conn *c = calloc(1 << 20, sizeof(*c));
	int ls = socket(AF_INET, SOCK_STREAM, 0), ep = epoll_create1(0), one = 1;

	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(ls, (struct sockaddr *)&sin, sizeof(sin)) != 0 ||
	    listen(ls, 4096) != 0) {
		perror("listen");
		return 2;
	}
	nodelay(ls);
	ev.events = EPOLLIN;
	ev.data.fd = ls;
	epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev);
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		int n = epoll_wait(ep, evs, 256, -1), i;

		for (i = 0; i < n; i++) {
			int fd = evs[i].data.fd;
			ssize_t r;

			if (fd == ls) {
				while ((fd = accept(ls, NULL, NULL)) >= 0) {
					nodelay(fd);
					memset(&c[fd], 0, sizeof(c[fd]));
					ev.events = EPOLLIN;
					ev.data.fd = fd;
					epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
				}
				continue;
			}
			while ((r = read(fd, buf, sizeof(buf))) > 0) {
				c[fd].have += (uint32_t)r;
				while (c[fd].have >= size) {
					c[fd].have -= size;
					c[fd].owed += rsp;
				}
			}
			if (r == 0 || (r < 0 && errno != EAGAIN)) {
				close(fd);
				continue;
			}
			while (c[fd].owed > 0) {
				size_t k = c[fd].owed < sizeof(out) ?
					c[fd].owed : sizeof(out);

				r = write(fd, out, k);
				if (r <= 0)
					break;
				c[fd].owed -= (uint64_t)r;
			}
		}
	}
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void
open_conn(struct conn *c, const struct sockaddr_in *sin, int ep, int idx)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT };

	c->fd = socket(AF_INET, SOCK_STREAM, 0);
	nodelay(c->fd);
	connect(c->fd, (const struct sockaddr *)sin, sizeof(*sin));
	c->connecting = 1;
	c->have = 0;
	c->done = 0;
	ev.data.u32 = (uint32_t)idx;
	epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
}

static int
client(const char *addr, int port, int flows, uint32_t size, uint32_t rsp,
       double secs, uint32_t reconnect)
{
	static char req[1 << 16], buf[1 << 16];
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons((uint16_t)port) };
	struct conn *c = calloc((size_t)flows, sizeof(*c));
	size_t cap = 1 << 24, nlat = 0;
	uint64_t *lat = malloc(cap * sizeof(*lat));
	uint64_t t0, t_end, warm;
	int ep = epoll_create1(0), i;
	struct epoll_event evs[256];

	inet_pton(AF_INET, addr, &sin.sin_addr);
	for (i = 0; i < flows; i++)
		open_conn(&c[i], &sin, ep, i);
	t0 = now_ns();
	warm = t0 + 1000000000ull;
	t_end = warm + (uint64_t)(secs * 1e9);
	while (now_ns() < t_end) {
		int n = epoll_wait(ep, evs, 256, 10);

		for (i = 0; i < n; i++) {
			struct conn *x = &c[evs[i].data.u32];
			ssize_t r;

			if (x->connecting) {
				struct epoll_event ev = { .events = EPOLLIN,
					.data.u32 = evs[i].data.u32 };

				if (!(evs[i].events & EPOLLOUT))
					continue;
				x->connecting = 0;
				epoll_ctl(ep, EPOLL_CTL_MOD, x->fd, &ev);
				x->sent_ns = now_ns();
				if (write(x->fd, req, size) != (ssize_t)size)
					return 1;
				continue;
			}
			while ((r = read(x->fd, buf, sizeof(buf))) > 0)
				x->have += (uint32_t)r;
			if (x->have < rsp)
				continue;
			x->have -= rsp;
			{
				uint64_t t = now_ns();

				if (x->sent_ns >= warm && nlat < cap)
					lat[nlat++] = t - x->sent_ns;
				x->done++;
				if (reconnect != 0 && x->done >= reconnect) {
					close(x->fd);
					open_conn(x, &sin, ep,
						  (int)evs[i].data.u32);
					continue;
				}
				x->sent_ns = t;
				if (write(x->fd, req, size) != (ssize_t)size)
					return 1;
			}
		}
	}
	qsort(lat, nlat, sizeof(*lat), cmp_u64);
	printf("%.0f %.1f %.1f\n", nlat / secs,
	       nlat ? lat[nlat / 2] / 1e3 : 0.0,
	       nlat ? lat[nlat * 99 / 100] / 1e3 : 0.0);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 5 && strcmp(argv[1], "server") == 0)
		return server(atoi(argv[2]), (uint32_t)atoi(argv[3]),
			      (uint32_t)atoi(argv[4]));
	if ((argc == 8 || argc == 9) && strcmp(argv[1], "client") == 0)
		return client(argv[2], atoi(argv[3]), atoi(argv[4]),
			      (uint32_t)atoi(argv[5]), (uint32_t)atoi(argv[6]),
			      atof(argv[7]),
			      argc == 9 ? (uint32_t)atoi(argv[8]) : 0);
	fprintf(stderr, "usage: %s server PORT SIZE RESPONSE | client ADDR "
		"PORT FLOWS SIZE RESPONSE SECONDS [RECONNECT]\n", argv[0]);
	return 2;
}
