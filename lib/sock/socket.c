/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * The public socket calls: argument checks, the descriptor table, and
 * dispatch to the protocol (lib/udp, lib/tcp) by socket kind. Every call
 * here is what ust_socket.h documents; protocol logic lives in the
 * protocol's folder.
 *
 * Descriptors index a table owned by the stack instance. Each slot has a
 * generation number, so that a frame staged for TX can name its socket by
 * (descriptor, generation) and the stack can tell, when the driver takes
 * the frame, whether that socket still exists.
 */

#include <errno.h>
#include <string.h>

#include <rte_malloc.h>

#include "sock_private.h"
#include "../tcp/tcp_private.h"
#include "../udp/udp_private.h"

int
ust_sock_table_init(struct ust_stack *stk)
{
	uint32_t i;

	stk->sd_cap = stk->conf.max_sockets;
	stk->sds = rte_zmalloc_socket("ust_sds", sizeof(*stk->sds) *
				      stk->sd_cap, RTE_CACHE_LINE_SIZE,
				      stk->conf.socket_id);
	if (stk->sds == NULL)
		return -ENOMEM;
	for (i = 0; i < stk->sd_cap; i++)
		stk->sds[i].next_free = i + 1 < stk->sd_cap ? i + 1 :
			UST_SD_NONE;
	stk->sd_free = 0;
	stk->sd_used = 0;
	rte_spinlock_init(&stk->ctl_lock);
	return 0;
}

static void
sock_destroy(struct ust_stack *stk, struct ust_sock *s)
{
	if (s->ep != NULL)
		ust_epoll_detach(s);
	ust_sock_tx_unwait(s);
	ust_sd_release(stk, s);
	switch (s->kind) {
	case UST_SK_UDP:
		ust_udp_close(stk, s);
		break;
	case UST_SK_TCP:
		ust_tcp_close(stk, s);
		break;
	case UST_SK_EPOLL:
		ust_epoll_destroy((struct ust_epoll *)s);
		break;
	default:
		break;
	}
}

void
ust_sock_table_fini(struct ust_stack *stk)
{
	uint32_t i;

	if (stk->sds == NULL)
		return;
	/* sockets before event sets, so that detaching finds its set */
	for (i = 0; i < stk->sd_cap; i++)
		if (stk->sds[i].s != NULL && stk->sds[i].s->kind != UST_SK_EPOLL)
			sock_destroy(stk, stk->sds[i].s);
	for (i = 0; i < stk->sd_cap; i++)
		if (stk->sds[i].s != NULL)
			sock_destroy(stk, stk->sds[i].s);
	rte_free(stk->sds);
	stk->sds = NULL;
}

int
ust_sd_alloc(struct ust_stack *stk, struct ust_sock *s)
{
	uint32_t sd = stk->sd_free;

	if (sd == UST_SD_NONE)
		return -EMFILE;
	s->sd = (uint16_t)sd;
	s->gen = stk->sds[sd].gen + 1;
	s->stk = stk;
	rte_spinlock_lock(&stk->ctl_lock);
	stk->sd_free = stk->sds[sd].next_free;
	stk->sds[sd].s = s;
	stk->sds[sd].gen = s->gen;
	stk->sd_used++;
	rte_spinlock_unlock(&stk->ctl_lock);
	return (int)sd;
}

void
ust_sd_release(struct ust_stack *stk, struct ust_sock *s)
{
	struct ust_sd_slot *slot = &stk->sds[s->sd];

	rte_spinlock_lock(&stk->ctl_lock);
	slot->s = NULL;
	slot->next_free = stk->sd_free;
	stk->sd_free = s->sd;
	stk->sd_used--;
	rte_spinlock_unlock(&stk->ctl_lock);
}

struct ust_sock *
ust_sd_lookup(struct ust_stack *stk, int sd)
{
	if (stk == NULL || sd < 0 || (uint32_t)sd >= stk->sd_cap)
		return NULL;
	return stk->sds[sd].s;
}

void
ust_sock_tx_done(struct ust_stack *stk, const struct ust_tx_owner *o)
{
	struct ust_sock *s;
	bool was_full;

	if (stk->sds == NULL || o->sd >= stk->sd_cap ||
	    stk->sds[o->sd].gen != o->gen)
		return;
	s = stk->sds[o->sd].s;
	if (s == NULL)
		return;
	was_full = s->wmem_queued >= s->sndbuf;
	s->wmem_queued -= o->truesize;
	if (was_full && s->wmem_queued < s->sndbuf && s->ep != NULL)
		ust_sock_wakeup(s);
}

void
ust_sock_tx_wait(struct ust_sock *s)
{
	struct ust_stack *stk = s->stk;

	if (s->tx_waiting)
		return;
	s->tx_prev = NULL;
	s->tx_next = stk->tx_waiters;
	if (stk->tx_waiters != NULL)
		stk->tx_waiters->tx_prev = s;
	stk->tx_waiters = s;
	s->tx_waiting = true;
}

void
ust_sock_tx_unwait(struct ust_sock *s)
{
	if (!s->tx_waiting)
		return;
	if (s->tx_prev != NULL)
		s->tx_prev->tx_next = s->tx_next;
	else
		s->stk->tx_waiters = s->tx_next;
	if (s->tx_next != NULL)
		s->tx_next->tx_prev = s->tx_prev;
	s->tx_next = NULL;
	s->tx_prev = NULL;
	s->tx_waiting = false;
}

void
ust_sock_tx_waiters_wake(struct ust_stack *stk)
{
	while (stk->tx_waiters != NULL) {
		struct ust_sock *s = stk->tx_waiters;

		ust_sock_tx_unwait(s);
		if (s->ep != NULL)
			ust_sock_wakeup(s);
	}
}

uint32_t
ust_sock_events(const struct ust_sock *s)
{
	switch (s->kind) {
	case UST_SK_UDP:
		return ust_udp_events(s);
	case UST_SK_TCP:
		return ust_tcp_events(s);
	default:
		return 0;
	}
}

/* Look up @sd and check that it is a socket (not an event set). */
static int
sock_get(struct ust_stack *stk, int sd, struct ust_sock **out)
{
	struct ust_sock *s = ust_sd_lookup(stk, sd);

	if (s == NULL)
		return -EBADF;
	if (s->kind != UST_SK_UDP && s->kind != UST_SK_TCP)
		return -ENOTSOCK;
	*out = s;
	return 0;
}

/* ... and that it is a TCP socket. */
static int
tcp_sock_get(struct ust_stack *stk, int sd, struct ust_sock **out)
{
	int rc = sock_get(stk, sd, out);

	if (rc == 0 && (*out)->kind != UST_SK_TCP)
		return -EOPNOTSUPP;
	return rc;
}

static bool
is_tcp(const struct ust_sock *s)
{
	return s->kind == UST_SK_TCP;
}

static int
sin_from(const struct sockaddr *addr, socklen_t len,
	 const struct sockaddr_in **sin)
{
	if (addr == NULL)
		return -EFAULT;
	if (len < (socklen_t)sizeof(sa_family_t))
		return -EINVAL;
	if (addr->sa_family == AF_UNSPEC) {
		*sin = (const struct sockaddr_in *)addr;
		return 0;
	}
	if (addr->sa_family != AF_INET)
		return -EAFNOSUPPORT;
	if (len < (socklen_t)sizeof(struct sockaddr_in))
		return -EINVAL;
	*sin = (const struct sockaddr_in *)addr;
	return 0;
}

int
ust_socket(struct ust_stack *stk, int domain, int type, int protocol)
{
	struct ust_sock *s;
	int sd;

	if (stk == NULL)
		return -EINVAL;
	if (domain != AF_INET)
		return -EAFNOSUPPORT;
	type &= ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (type != SOCK_DGRAM && type != SOCK_STREAM)
		return -ESOCKTNOSUPPORT;
	if (protocol != 0 &&
	    protocol != (type == SOCK_DGRAM ? IPPROTO_UDP : IPPROTO_TCP))
		return -EPROTONOSUPPORT;
	if (stk->sd_free == UST_SD_NONE)
		return -EMFILE;
	s = type == SOCK_DGRAM ? ust_udp_create(stk) : ust_tcp_create(stk);
	if (s == NULL)
		return -ENOMEM;
	sd = ust_sd_alloc(stk, s);
	if (sd < 0) {
		if (type == SOCK_DGRAM)
			ust_udp_close(stk, s);
		else
			ust_tcp_close(stk, s);
	}
	return sd;
}

int
ust_bind(struct ust_stack *stk, int sd, const struct sockaddr *addr,
	 socklen_t addrlen)
{
	const struct sockaddr_in *sin;
	struct ust_sock *s;
	int rc;

	rc = sock_get(stk, sd, &s);
	if (rc == 0)
		rc = sin_from(addr, addrlen, &sin);
	if (rc != 0)
		return rc;
	if (sin->sin_family != AF_INET)
		return -EAFNOSUPPORT;
	if (is_tcp(s))
		return ust_tcp_bind(stk, s, sin->sin_addr.s_addr,
				    sin->sin_port);
	return ust_udp_bind(stk, s, sin->sin_addr.s_addr, sin->sin_port);
}

int
ust_listen(struct ust_stack *stk, int sd, int backlog)
{
	struct ust_sock *s;
	int rc;

	rc = tcp_sock_get(stk, sd, &s);
	if (rc != 0)
		return rc;
	return ust_tcp_listen(stk, s, backlog);
}

int
ust_accept(struct ust_stack *stk, int sd, struct sockaddr *addr,
	   socklen_t *addrlen)
{
	struct sockaddr_in sin;
	struct ust_sock *s;
	int rc;

	rc = tcp_sock_get(stk, sd, &s);
	if (rc != 0)
		return rc;
	if (addr != NULL && addrlen == NULL)
		return -EFAULT;
	rc = ust_tcp_accept(stk, s, &sin);
	if (rc >= 0 && addr != NULL) {
		socklen_t l = *addrlen < (socklen_t)sizeof(sin) ?
			*addrlen : (socklen_t)sizeof(sin);

		memcpy(addr, &sin, l);
		*addrlen = sizeof(sin);
	}
	return rc;
}

int
ust_shutdown(struct ust_stack *stk, int sd, int how)
{
	struct ust_sock *s;
	int rc;

	rc = sock_get(stk, sd, &s);
	if (rc != 0)
		return rc;
	if (!is_tcp(s))
		return -ENOTCONN; /* as Linux for an unconnected UDP socket */
	return ust_tcp_shutdown(stk, s, how);
}

int
ust_connect(struct ust_stack *stk, int sd, const struct sockaddr *addr,
	    socklen_t addrlen)
{
	const struct sockaddr_in *sin;
	struct ust_sock *s;
	int rc;

	rc = sock_get(stk, sd, &s);
	if (rc == 0)
		rc = sin_from(addr, addrlen, &sin);
	if (rc != 0)
		return rc;
	if (is_tcp(s))
		return ust_tcp_connect(stk, s, sin);
	return ust_udp_connect(stk, s, sin);
}

#define UST_SEND_FLAGS (MSG_DONTWAIT | MSG_NOSIGNAL)
#define UST_RECV_FLAGS (MSG_DONTWAIT | MSG_PEEK | MSG_TRUNC)

ssize_t
ust_sendto(struct ust_stack *stk, int sd, const void *buf, size_t len,
	   int flags, const struct sockaddr *to, socklen_t tolen)
{
	const struct sockaddr_in *sin = NULL;
	struct ust_sock *s;
	int rc;

	rc = sock_get(stk, sd, &s);
	if (rc != 0)
		return rc;
	if (flags & ~UST_SEND_FLAGS)
		return -EOPNOTSUPP;
	if (buf == NULL && len != 0)
		return -EFAULT;
	if (is_tcp(s))
		/* as Linux: a connection's destination is its peer's */
		return ust_tcp_send(stk, s, buf, len, flags);
	if (to != NULL) {
		rc = sin_from(to, tolen, &sin);
		if (rc != 0)
			return rc;
		if (sin->sin_family != AF_INET)
			return -EAFNOSUPPORT;
		if (s->flags & UST_SKF_CONNECTED)
			return -EISCONN;
	} else if (!(s->flags & UST_SKF_CONNECTED)) {
		return -EDESTADDRREQ;
	}
	return ust_udp_sendto(stk, s, buf, len, sin);
}

ssize_t
ust_send(struct ust_stack *stk, int sd, const void *buf, size_t len,
	 int flags)
{
	return ust_sendto(stk, sd, buf, len, flags, NULL, 0);
}

ssize_t
ust_recvfrom(struct ust_stack *stk, int sd, void *buf, size_t len, int flags,
	     struct sockaddr *from, socklen_t *fromlen)
{
	struct sockaddr_in sin;
	struct ust_sock *s;
	ssize_t n;
	int rc;

	rc = sock_get(stk, sd, &s);
	if (rc != 0)
		return rc;
	if (flags & ~UST_RECV_FLAGS)
		return -EOPNOTSUPP;
	if (buf == NULL && len != 0)
		return -EFAULT;
	if (from != NULL && fromlen == NULL)
		return -EFAULT;
	if (is_tcp(s)) {
		if (flags & MSG_TRUNC)
			return -EOPNOTSUPP;
		n = ust_tcp_recv(stk, s, buf, len, flags);
		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_addr.s_addr = s->raddr;
		sin.sin_port = s->rport;
	} else {
		n = ust_udp_recvfrom(stk, s, buf, len, flags,
				     from != NULL ? &sin : NULL);
	}
	if (n >= 0 && from != NULL) {
		socklen_t l = *fromlen < (socklen_t)sizeof(sin) ?
			*fromlen : (socklen_t)sizeof(sin);

		memcpy(from, &sin, l);
		*fromlen = sizeof(sin);
	}
	return n;
}

ssize_t
ust_recv(struct ust_stack *stk, int sd, void *buf, size_t len, int flags)
{
	return ust_recvfrom(stk, sd, buf, len, flags, NULL, NULL);
}

int
ust_recv_burst(struct ust_stack *stk, int sd, struct rte_mbuf **pkts,
	       unsigned int n, struct sockaddr_in *from)
{
	struct ust_sock *s;
	int rc;

	rc = sock_get(stk, sd, &s);
	if (rc != 0)
		return rc;
	if (pkts == NULL)
		return -EFAULT;
	if (is_tcp(s)) {
		if (from != NULL) {
			memset(from, 0, sizeof(*from));
			from->sin_family = AF_INET;
			from->sin_addr.s_addr = s->raddr;
			from->sin_port = s->rport;
		}
		return ust_tcp_recv_burst(stk, s, pkts, n);
	}
	return ust_udp_recv_burst(stk, s, pkts, n, from);
}

int
ust_send_burst(struct ust_stack *stk, int sd, struct rte_mbuf **pkts,
	       unsigned int n, const struct sockaddr_in *to)
{
	struct ust_sock *s;
	int rc;

	rc = sock_get(stk, sd, &s);
	if (rc != 0)
		return rc;
	if (pkts == NULL)
		return -EFAULT;
	if (is_tcp(s))
		return to != NULL ? -EISCONN :
			ust_tcp_send_burst(stk, s, pkts, n);
	if (to == NULL && !(s->flags & UST_SKF_CONNECTED))
		return -EDESTADDRREQ;
	if (to != NULL && (s->flags & UST_SKF_CONNECTED))
		return -EISCONN;
	return ust_udp_send_burst(stk, s, pkts, n, to);
}

ssize_t
ust_send_zc(struct ust_stack *stk, int sd, const void *buf, size_t len,
	    uint64_t cookie)
{
	struct ust_sock *s;
	int rc;

	rc = sock_get(stk, sd, &s);
	if (rc != 0)
		return rc;
	if (!is_tcp(s))
		return -EOPNOTSUPP;
	if (buf == NULL)
		return -EFAULT;
	return ust_tcp_send_zc(stk, s, buf, len, cookie);
}

int
ust_close(struct ust_stack *stk, int sd)
{
	struct ust_sock *s = ust_sd_lookup(stk, sd);

	if (s == NULL)
		return -EBADF;
	sock_destroy(stk, s);
	return 0;
}

int
ust_setsockopt(struct ust_stack *stk, int sd, int level, int optname,
	       const void *optval, socklen_t optlen)
{
	struct ust_sock *s;
	int rc;

	rc = sock_get(stk, sd, &s);
	if (rc != 0)
		return rc;
	if (is_tcp(s))
		return ust_tcp_setsockopt(s, level, optname, optval, optlen);
	return ust_udp_setsockopt(s, level, optname, optval, optlen);
}

int
ust_getsockopt(struct ust_stack *stk, int sd, int level, int optname,
	       void *optval, socklen_t *optlen)
{
	struct ust_sock *s;
	int rc;

	rc = sock_get(stk, sd, &s);
	if (rc != 0)
		return rc;
	if (is_tcp(s))
		return ust_tcp_getsockopt(s, level, optname, optval, optlen);
	return ust_udp_getsockopt(s, level, optname, optval, optlen);
}

static int
put_sin(struct sockaddr *addr, socklen_t *addrlen, rte_be32_t a,
	rte_be16_t p)
{
	struct sockaddr_in sin;
	socklen_t l;

	if (addr == NULL || addrlen == NULL)
		return -EFAULT;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = a;
	sin.sin_port = p;
	l = *addrlen < (socklen_t)sizeof(sin) ? *addrlen :
		(socklen_t)sizeof(sin);
	memcpy(addr, &sin, l);
	*addrlen = sizeof(sin);
	return 0;
}

int
ust_getsockname(struct ust_stack *stk, int sd, struct sockaddr *addr,
		socklen_t *addrlen)
{
	struct ust_sock *s;
	int rc;

	rc = sock_get(stk, sd, &s);
	if (rc != 0)
		return rc;
	return put_sin(addr, addrlen, s->laddr, s->lport);
}

int
ust_getpeername(struct ust_stack *stk, int sd, struct sockaddr *addr,
		socklen_t *addrlen)
{
	struct ust_sock *s;
	int rc;

	rc = sock_get(stk, sd, &s);
	if (rc != 0)
		return rc;
	if (!(s->flags & UST_SKF_CONNECTED))
		return -ENOTCONN;
	return put_sin(addr, addrlen, s->raddr, s->rport);
}
