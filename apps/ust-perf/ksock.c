/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * --stack kernel: the same modes on the kernel's sockets, so that one
 * tool measures both sides of a comparison (ustack against the kernel
 * on the user's own box, in one command line).
 *
 * The modes' socket calls go through the perf_* functions below: each is
 * ustack's call when @stk is a stack, and the kernel's when @stk is NULL
 * (a worker of --stack kernel has no stack), with ustack's conventions on
 * both sides: sockets are non-blocking, a failure is a negative errno,
 * events come as struct ust_epoll_event (the UST_EPOLL* bits are Linux's
 * EPOLL* values). A kernel worker with nothing ready waits in
 * epoll_wait() (or poll(), the UDP sink) up to 10 ms, as applications run
 * the kernel's sockets (--kernel-wait block, the default), or spins as a
 * ustack worker does (--kernel-wait spin: a timeout of 0, both stacks
 * busy polling, one core a worker). A flood never waits.
 *
 * And the kernel's own counters: /proc/net/snmp and /proc/net/netstat
 * (the network namespace's; the MIB names ustack's counters follow), read
 * when the measured interval begins and ends, their differences the
 * "counters" of the JSON and the counters printed at the end.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/sockios.h>

#include <netinet/in.h>

#include "perf.h"
#include "ust_socket.h"
#include "ust_tcp.h"

/* the kernel's result as ustack's: -errno on failure */
static inline int
kret(int rc)
{
	return rc < 0 ? -errno : rc;
}

int
perf_socket(struct ust_stack *stk, int family, int type)
{
	if (stk != NULL)
		return ust_socket(stk, family, type, 0);
	return kret(socket(family, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
}

int
perf_server_socket(const struct perf_ctx *c, struct ust_stack *stk,
		   int type, uint16_t port, union ust_sockaddr *any,
		   socklen_t *len)
{
	bool v6 = stk != NULL ? c->env.cfg.stack.ip6.enable : true;
	int sd = -EAFNOSUPPORT;

	if (v6)
		sd = perf_socket(stk, AF_INET6, type);
	if (sd >= 0) {
		/* (IPV6_V6ONLY off: ustack's default, and the kernel's
		 * unless bindv6only says otherwise) */
		perf_set_int(stk, sd, IPPROTO_IPV6, IPV6_V6ONLY, 0);
		*len = app_sockaddr(any, true, 0, NULL, port);
		return sd;
	}
	if (sd != -EAFNOSUPPORT)
		return sd;
	/* IPv4 only (a kernel without IPv6 too) */
	*len = app_sockaddr(any, false, 0, NULL, port);
	return perf_socket(stk, AF_INET, type);
}

int
perf_bind(struct ust_stack *stk, int sd, const struct sockaddr *sa,
	  socklen_t len)
{
	if (stk != NULL)
		return ust_bind(stk, sd, sa, len);
	return kret(bind(sd, sa, len));
}

int
perf_listen(struct ust_stack *stk, int sd, int backlog)
{
	if (stk != NULL)
		return ust_listen(stk, sd, backlog);
	return kret(listen(sd, backlog));
}

int
perf_accept(struct ust_stack *stk, int ls)
{
	if (stk != NULL)
		return ust_accept(stk, ls, NULL, NULL);
	return kret(accept4(ls, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC));
}

int
perf_connect(struct ust_stack *stk, int sd, const struct sockaddr *sa,
	     socklen_t len)
{
	if (stk == NULL)
		return kret(connect(sd, sa, len));
	return app_connect(stk, sd, sa, len, NULL);
}

ssize_t
perf_send(struct ust_stack *stk, int sd, const void *buf, size_t len)
{
	ssize_t k;

	if (stk != NULL)
		return ust_send(stk, sd, buf, len, 0);
	k = send(sd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
	return k < 0 ? -errno : k;
}

ssize_t
perf_recv(struct ust_stack *stk, int sd, void *buf, size_t len)
{
	ssize_t k;

	if (stk != NULL)
		return ust_recv(stk, sd, buf, len, 0);
	k = recv(sd, buf, len, MSG_DONTWAIT);
	return k < 0 ? -errno : k;
}

int
perf_close(struct ust_stack *stk, int sd)
{
	if (stk != NULL)
		return ust_close(stk, sd);
	return kret(close(sd));
}

int
perf_setsockopt(struct ust_stack *stk, int sd, int level, int name,
		const void *v, socklen_t len)
{
	if (stk != NULL)
		return ust_setsockopt(stk, sd, level, name, v, len);
	return kret(setsockopt(sd, level, name, v, len));
}

int
perf_set_int(struct ust_stack *stk, int sd, int level, int name, int v)
{
	return perf_setsockopt(stk, sd, level, name, &v, sizeof(v));
}

int
perf_getsockopt(struct ust_stack *stk, int sd, int level, int name, void *v,
		socklen_t *len)
{
	if (stk != NULL)
		return ust_getsockopt(stk, sd, level, name, v, len);
	return kret(getsockopt(sd, level, name, v, len));
}

int
perf_epoll_create(struct ust_stack *stk)
{
	int ep;

	if (stk != NULL)
		return app_epoll_create(PERF_PROG, stk);
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		app_usage_error(PERF_PROG, "cannot create an event set: %s",
				strerror(errno));
	return ep;
}

void
perf_epoll_ctl(struct ust_stack *stk, int ep, int op, int sd,
	       uint32_t events, uint64_t data)
{
	struct epoll_event ev = { .events = events, .data.u64 = data };
	int kop;

	if (stk != NULL) {
		app_watch(stk, ep, op, sd, events, data);
		return;
	}
	kop = op == UST_EPOLL_CTL_ADD ? EPOLL_CTL_ADD :
		op == UST_EPOLL_CTL_DEL ? EPOLL_CTL_DEL : EPOLL_CTL_MOD;
	epoll_ctl(ep, kop, sd, &ev);
}

int
perf_epoll_wait(struct ust_stack *stk, int ep, struct ust_epoll_event *evs,
		int max, int wait_ms)
{
	struct epoll_event kev[64];
	int n, i;

	if (stk != NULL)
		return ust_epoll_wait(stk, ep, evs, max);
	if (max > (int)RTE_DIM(kev))
		max = (int)RTE_DIM(kev);
	n = epoll_wait(ep, kev, max, wait_ms);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (i = 0; i < n; i++) {
		evs[i].events = kev[i].events;
		evs[i].data = kev[i].data.u64;
	}
	return n;
}

void
perf_wait_readable(int sd, int wait_ms)
{
	struct pollfd p = { .fd = sd, .events = POLLIN };

	poll(&p, 1, wait_ms);
}

uint64_t
perf_unsent(struct ust_stack *stk, int sd)
{
	struct ust_tcp_info ti;
	socklen_t l = sizeof(ti);
	int q = 0;

	if (stk != NULL)
		return ust_getsockopt(stk, sd, UST_SOL_USTACK, UST_TCP_INFO,
				      &ti, &l) == 0 ? ti.snd_buffered : 0;
	/* the bytes not yet acknowledged, sent or not (as snd_buffered) */
	if (ioctl(sd, SIOCOUTQ, &q) != 0 || q < 0)
		return 0;
	return (uint64_t)q;
}

/* ---- the kernel's counters ---- */

/* Parse one file of pairs of lines ("Group: Name Name..." then "Group:
 * value value...") into @s; returns 0, or -errno. */
static int
ksnmp_file(struct perf_ksnmp *s, const char *path)
{
	char names[4096], vals[4096];
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return -errno;
	while (fgets(names, sizeof(names), f) != NULL &&
	       fgets(vals, sizeof(vals), f) != NULL) {
		char *sn, *sv, *n, *v, *g;
		char *cn = strchr(names, ':'), *cv = strchr(vals, ':');

		if (cn == NULL || cv == NULL ||
		    cn - names != cv - vals ||
		    strncmp(names, vals, (size_t)(cn - names)) != 0)
			continue;
		*cn = '\0';
		g = names;
		n = strtok_r(cn + 1, " \n", &sn);
		v = strtok_r(cv + 1, " \n", &sv);
		for (; n != NULL && v != NULL && s->n < PERF_KSNMP_MAX;
		     n = strtok_r(NULL, " \n", &sn),
		     v = strtok_r(NULL, " \n", &sv)) {
			snprintf(s->group[s->n], sizeof(s->group[0]), "%.15s", g);
			snprintf(s->name[s->n], sizeof(s->name[0]), "%.39s", n);
			s->v[s->n] = strtoll(v, NULL, 10);
			s->n++;
		}
	}
	fclose(f);
	return 0;
}

int
perf_ksnmp_read(struct perf_ksnmp *s)
{
	int rc;

	s->n = 0;
	rc = ksnmp_file(s, "/proc/net/snmp");
	if (rc == 0)
		rc = ksnmp_file(s, "/proc/net/netstat");
	return rc;
}

int64_t
perf_ksnmp_get(const struct perf_ksnmp *s, const char *group,
	       const char *name)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->group[i], group) == 0 &&
		    strcmp(s->name[i], name) == 0)
			return s->v[i];
	return 0;
}

/* the value of counter @i of @b in @a (the same files, read twice: the
 * same order, but a counter may appear: looked up when it moved) */
static int64_t
ksnmp_delta(const struct perf_ksnmp *a, const struct perf_ksnmp *b,
	    unsigned int i)
{
	if (i < a->n && strcmp(a->name[i], b->name[i]) == 0 &&
	    strcmp(a->group[i], b->group[i]) == 0)
		return b->v[i] - a->v[i];
	return b->v[i] - perf_ksnmp_get(a, b->group[i], b->name[i]);
}

void
perf_ksnmp_json(struct app_json *j, const char *key,
		const struct perf_ksnmp *a, const struct perf_ksnmp *b)
{
	const char *group = NULL;
	unsigned int i;

	json_obj(j, key);
	for (i = 0; i < b->n; i++) {
		if (group == NULL || strcmp(group, b->group[i]) != 0) {
			if (group != NULL)
				json_obj_end(j);
			group = b->group[i];
			json_obj(j, group);
		}
		json_i64(j, b->name[i], ksnmp_delta(a, b, i));
	}
	if (group != NULL)
		json_obj_end(j);
	json_obj_end(j);
}

void
perf_ksnmp_print(FILE *f, const struct perf_ksnmp *a,
		 const struct perf_ksnmp *b)
{
	const char *group = NULL;
	unsigned int i, col = 0;

	for (i = 0; i < b->n; i++) {
		int64_t d = ksnmp_delta(a, b, i);

		/* the counters that moved; gauges (Tcp CurrEstab...) too */
		if (d == 0)
			continue;
		if (group == NULL || strcmp(group, b->group[i]) != 0) {
			group = b->group[i];
			fprintf(f, "%s%s:", col ? "\n" : "", group);
			col = 1;
		}
		fprintf(f, " %s %" PRId64, b->name[i], d);
	}
	fprintf(f, "%s", col ? "\n" : "(no kernel counter moved)\n");
}
