/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * The public socket calls: argument checks, the descriptor table, and
 * dispatch through the socket-ops table a protocol registers at init
 * (struct ust_sock_ops, sock_private.h; lib/udp and lib/tcp register
 * theirs). Every call here is what ust_socket.h documents; what differs
 * between kinds lives in the protocol's folder, and nothing here names a
 * protocol.
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

int
ust_sock_register(struct ust_stack *stk, enum ust_sock_kind kind,
		  const struct ust_sock_ops *ops)
{
	if (kind <= 0 || kind >= UST_SK_KINDS || kind == UST_SK_EPOLL ||
	    ops == NULL || ops->create == NULL || ops->close == NULL ||
	    ops->events == NULL)
		return -EINVAL;
	stk->sk_ops[kind] = ops;
	return 0;
}

/* The ops of a socket's kind; NULL for an event set. */
static const struct ust_sock_ops *
sock_ops(const struct ust_sock *s)
{
	return s->kind < UST_SK_KINDS ? s->stk->sk_ops[s->kind] : NULL;
}

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
	/* TX staging (lib/core) reports through these */
	stk->tx_done = ust_sock_tx_done;
	stk->tx_room = ust_sock_tx_waiters_wake;
	return 0;
}

static void
sock_destroy(struct ust_stack *stk, struct ust_sock *s)
{
	if (s->ep != NULL)
		ust_epoll_detach(s);
	ust_sock_tx_unwait(s);
	ust_sd_release(stk, s);
	if (s->kind == UST_SK_EPOLL)
		ust_epoll_destroy((struct ust_epoll *)s);
	else
		sock_ops(s)->close(stk, s);
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
	rte_free(stk->sd_addr6);
	stk->sd_addr6 = NULL;
}

int
ust_sd_alloc(struct ust_stack *stk, struct ust_sock *s)
{
	uint32_t sd = stk->sd_free;

	if (sd == UST_SD_NONE)
		return -EMFILE;
	s->sd = (uint32_t)sd;
	s->gen = stk->sds[sd].gen + 1;
	s->stk = stk;
	rte_spinlock_lock(&stk->ctl_lock);
	stk->sd_free = stk->sds[sd].next_free;
	stk->sds[sd].s = s;
	stk->sds[sd].gen = s->gen;
	stk->sd_used++;
	rte_spinlock_unlock(&stk->ctl_lock);
	if (stk->sd_addr6 != NULL)
		memset(&stk->sd_addr6[sd], 0, sizeof(stk->sd_addr6[sd]));
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
	const struct ust_sock_ops *ops = sock_ops(s);

	return ops != NULL ? ops->events(s) : 0;
}

/* Look up @sd and check that it is a socket (not an event set); @ops are
 * its kind's. */
static int
sock_get(struct ust_stack *stk, int sd, struct ust_sock **out,
	 const struct ust_sock_ops **ops)
{
	struct ust_sock *s = ust_sd_lookup(stk, sd);

	if (s == NULL)
		return -EBADF;
	*ops = sock_ops(s);
	if (*ops == NULL)
		return -ENOTSOCK;
	*out = s;
	return 0;
}

/* ::ffff:0:0/96 */
static bool
saddr_is_mapped(const uint8_t *a)
{
	static const uint8_t pfx[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					 0xff, 0xff };

	return memcmp(a, pfx, sizeof(pfx)) == 0;
}

/* The address itself, whatever the socket's rules. */
static int
saddr_parse(const struct ust_sock *s, const struct sockaddr *addr,
	    socklen_t len, struct ust_saddr *out)
{
	memset(out, 0, sizeof(*out));
	if (addr == NULL)
		return -EFAULT;
	if (len < (socklen_t)sizeof(sa_family_t))
		return -EINVAL;
	switch (addr->sa_family) {
	case AF_UNSPEC:
		out->family = AF_UNSPEC;
		return 0;
	case AF_INET: {
		const struct sockaddr_in *sin = (const void *)addr;

		if (len < (socklen_t)sizeof(*sin))
			return -EINVAL;
		ust_saddr_v4(out, sin->sin_addr.s_addr, sin->sin_port);
		return 0;
	}
	case AF_INET6: {
		const struct sockaddr_in6 *sin6 = (const void *)addr;

		if (!(s->inet6 & UST_SK6_INET6))
			return -EAFNOSUPPORT;
		/* 24: RFC 2133's sockaddr_in6, without the scope (as
		 * Linux's SIN6_LEN_RFC2133) */
		if (len < 24)
			return -EINVAL;
		out->port = sin6->sin6_port;
		if (saddr_is_mapped(sin6->sin6_addr.s6_addr)) {
			out->family = AF_INET;
			out->mapped = true;
			memcpy(&out->v4, &sin6->sin6_addr.s6_addr[12], 4);
			return 0;
		}
		out->family = AF_INET6;
		memcpy(out->v6, sin6->sin6_addr.s6_addr, sizeof(out->v6));
		if (len >= (socklen_t)sizeof(*sin6))
			out->scope_id = sin6->sin6_scope_id;
		return 0;
	}
	default:
		return -EAFNOSUPPORT;
	}
}

int
ust_saddr_from(const struct ust_sock *s, int type, bool bind,
	       const struct sockaddr *addr, socklen_t len,
	       struct ust_saddr *out)
{
	int rc = saddr_parse(s, addr, len, out);
	bool v6only = (s->inet6 & UST_SK6_V6ONLY) != 0;

	if (rc != 0 || !(s->inet6 & UST_SK6_INET6))
		return rc;
	/* an AF_INET6 socket: Linux's inet6_bind(), ip6_datagram_connect(),
	 * udpv6_sendmsg(), tcp_v6_connect() */
	if (out->family == AF_INET && !out->mapped) {
		/* a sockaddr_in: a dual-stack datagram socket may reach
		 * with one; nothing else takes it */
		if (bind || type != SOCK_DGRAM || v6only)
			return -EAFNOSUPPORT;
	}
	if (out->mapped && v6only)
		return bind ? -EINVAL : -ENETUNREACH;
	return 0;
}

socklen_t
ust_saddr_to(const struct ust_sock *s, const struct ust_saddr *a,
	     union ust_sockaddr *out)
{
	memset(out, 0, sizeof(*out));
	if (!(s->inet6 & UST_SK6_INET6)) {
		out->sin.sin_family = AF_INET;
		out->sin.sin_addr.s_addr = a->v4;
		out->sin.sin_port = a->port;
		return sizeof(out->sin);
	}
	out->sin6.sin6_family = AF_INET6;
	out->sin6.sin6_port = a->port;
	if (a->family == AF_INET6) {
		memcpy(out->sin6.sin6_addr.s6_addr, a->v6, 16);
		out->sin6.sin6_scope_id = a->scope_id;
	} else {
		out->sin6.sin6_addr.s6_addr[10] = 0xff;
		out->sin6.sin6_addr.s6_addr[11] = 0xff;
		memcpy(&out->sin6.sin6_addr.s6_addr[12], &a->v4, 4);
	}
	return sizeof(out->sin6);
}

/* a result address out to the caller's (@addr, @addrlen) */
static void
sock_addr_out(const struct ust_sock *s, const struct ust_saddr *a,
	      struct sockaddr *addr, socklen_t *addrlen)
{
	union ust_sockaddr u;
	socklen_t n = ust_saddr_to(s, a, &u);
	socklen_t l = *addrlen < n ? *addrlen : n;

	memcpy(addr, &u, l);
	*addrlen = n;
}

int
ust_socket(struct ust_stack *stk, int domain, int type, int protocol)
{
	const struct ust_sock_ops *ops = NULL;
	struct ust_sock *s;
	unsigned int k;
	int sd;

	if (stk == NULL)
		return -EINVAL;
	if (domain != AF_INET && domain != AF_INET6)
		return -EAFNOSUPPORT;
	type &= ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
	for (k = 0; k < UST_SK_KINDS && ops == NULL; k++)
		if (stk->sk_ops[k] != NULL && stk->sk_ops[k]->type == type)
			ops = stk->sk_ops[k];
	if (ops == NULL)
		return -ESOCKTNOSUPPORT;
	if (protocol != 0 && protocol != ops->protocol)
		return -EPROTONOSUPPORT;
	if (stk->sd_free == UST_SD_NONE)
		return -EMFILE;
	/* the IPv6 addresses' table, with the first AF_INET6 socket */
	if (domain == AF_INET6 && stk->sd_addr6 == NULL) {
		stk->sd_addr6 = rte_zmalloc_socket("ust_sd_addr6",
			sizeof(*stk->sd_addr6) * stk->sd_cap,
			RTE_CACHE_LINE_SIZE, stk->conf.socket_id);
		if (stk->sd_addr6 == NULL)
			return -ENOMEM;
	}
	s = ops->create(stk);
	if (s == NULL)
		return -ENOMEM;
	if (domain == AF_INET6)
		s->inet6 = UST_SK6_INET6;
	sd = ust_sd_alloc(stk, s);
	if (sd < 0)
		ops->close(stk, s);
	return sd;
}

int
ust_bind(struct ust_stack *stk, int sd, const struct sockaddr *addr,
	 socklen_t addrlen)
{
	const struct ust_sock_ops *ops;
	struct ust_saddr a;
	struct ust_sock *s;
	int rc;

	rc = sock_get(stk, sd, &s, &ops);
	if (rc == 0)
		rc = ust_saddr_from(s, ops->type, true, addr, addrlen,
				    &a);
	if (rc != 0)
		return rc;
	if (a.family == AF_UNSPEC)
		return -EAFNOSUPPORT;
	return ops->bind(stk, s, &a);
}

int
ust_listen(struct ust_stack *stk, int sd, int backlog)
{
	const struct ust_sock_ops *ops;
	struct ust_sock *s;
	int rc;

	rc = sock_get(stk, sd, &s, &ops);
	if (rc != 0)
		return rc;
	if (ops->listen == NULL)
		return -EOPNOTSUPP;
	return ops->listen(stk, s, backlog);
}

int
ust_accept(struct ust_stack *stk, int sd, struct sockaddr *addr,
	   socklen_t *addrlen)
{
	const struct ust_sock_ops *ops;
	struct ust_saddr a;
	struct ust_sock *s;
	int rc;

	rc = sock_get(stk, sd, &s, &ops);
	if (rc != 0)
		return rc;
	if (ops->accept == NULL)
		return -EOPNOTSUPP;
	if (addr != NULL && addrlen == NULL)
		return -EFAULT;
	memset(&a, 0, sizeof(a));
	rc = ops->accept(stk, s, &a);
	if (rc >= 0 && addr != NULL)
		sock_addr_out(s, &a, addr, addrlen);
	return rc;
}

int
ust_shutdown(struct ust_stack *stk, int sd, int how)
{
	const struct ust_sock_ops *ops;
	struct ust_sock *s;
	int rc;

	rc = sock_get(stk, sd, &s, &ops);
	if (rc != 0)
		return rc;
	if (ops->shutdown == NULL)
		return -ENOTCONN; /* as Linux for an unconnected UDP socket */
	return ops->shutdown(stk, s, how);
}

int
ust_connect(struct ust_stack *stk, int sd, const struct sockaddr *addr,
	    socklen_t addrlen)
{
	const struct ust_sock_ops *ops;
	struct ust_saddr a;
	struct ust_sock *s;
	int rc;

	rc = sock_get(stk, sd, &s, &ops);
	if (rc == 0)
		rc = ust_saddr_from(s, ops->type, false, addr, addrlen,
				    &a);
	if (rc != 0)
		return rc;
	return ops->connect(stk, s, &a);
}

#define UST_SEND_FLAGS (MSG_DONTWAIT | MSG_NOSIGNAL | MSG_MORE | MSG_EOR)
#define UST_RECV_FLAGS (MSG_DONTWAIT | MSG_PEEK | MSG_TRUNC)

ssize_t
ust_sendto(struct ust_stack *stk, int sd, const void *buf, size_t len,
	   int flags, const struct sockaddr *to, socklen_t tolen)
{
	const struct ust_sock_ops *ops;
	struct ust_saddr a, *pa = NULL;
	struct ust_sock *s;
	int rc;

	rc = sock_get(stk, sd, &s, &ops);
	if (rc != 0)
		return rc;
	if (flags & ~UST_SEND_FLAGS)
		return -EOPNOTSUPP;
	if (buf == NULL && len != 0)
		return -EFAULT;
	/* a datagram's destination; a connection ignores one (as Linux) */
	if (to != NULL && ops->type == SOCK_DGRAM) {
		rc = ust_saddr_from(s, ops->type, false, to, tolen, &a);
		if (rc != 0)
			return rc;
		pa = &a;
	}
	return ops->sendto(stk, s, buf, len, flags, pa);
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
	const struct ust_sock_ops *ops;
	struct ust_saddr a;
	struct ust_sock *s;
	ssize_t n;
	int rc;

	rc = sock_get(stk, sd, &s, &ops);
	if (rc != 0)
		return rc;
	if (flags & ~UST_RECV_FLAGS)
		return -EOPNOTSUPP;
	if (buf == NULL && len != 0)
		return -EFAULT;
	if (from != NULL && fromlen == NULL)
		return -EFAULT;
	n = ops->recvfrom(stk, s, buf, len, flags, from != NULL ? &a : NULL);
	if (n >= 0 && from != NULL)
		sock_addr_out(s, &a, from, fromlen);
	return n;
}

ssize_t
ust_recv(struct ust_stack *stk, int sd, void *buf, size_t len, int flags)
{
	return ust_recvfrom(stk, sd, buf, len, flags, NULL, NULL);
}

int
ust_recv_burst(struct ust_stack *stk, int sd, struct rte_mbuf **pkts,
	       unsigned int n, union ust_sockaddr *from)
{
	const struct ust_sock_ops *ops;
	struct ust_sock *s;
	int rc;

	rc = sock_get(stk, sd, &s, &ops);
	if (rc != 0)
		return rc;
	if (pkts == NULL)
		return -EFAULT;
	return ops->recv_burst(stk, s, pkts, n, from);
}

int
ust_send_burst(struct ust_stack *stk, int sd, struct rte_mbuf **pkts,
	       unsigned int n, const union ust_sockaddr *to)
{
	const struct ust_sock_ops *ops;
	struct ust_sock *s;
	int rc;

	rc = sock_get(stk, sd, &s, &ops);
	if (rc != 0)
		return rc;
	if (pkts == NULL)
		return -EFAULT;
	return ops->send_burst(stk, s, pkts, n, to);
}

ssize_t
ust_send_zc(struct ust_stack *stk, int sd, const void *buf, size_t len,
	    uint64_t cookie)
{
	const struct ust_sock_ops *ops;
	struct ust_sock *s;
	int rc;

	rc = sock_get(stk, sd, &s, &ops);
	if (rc != 0)
		return rc;
	if (ops->send_zc == NULL)
		return -EOPNOTSUPP;
	if (buf == NULL)
		return -EFAULT;
	return ops->send_zc(stk, s, buf, len, cookie);
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

/*
 * A socket of @owner fed by @producer too (ust_socket.h). What is checked
 * here is what every kind shares; the protocol checks the rest (bound, its
 * port free on @producer) and does it. A kind that cannot (TCP, an event
 * set) is -EINVAL.
 */
static int
sock_attach_get(struct ust_stack *producer, struct ust_stack *owner, int sd,
		struct ust_sock **s, const struct ust_sock_ops **ops)
{
	int rc = sock_get(owner, sd, s, ops);

	if (rc == -ENOTSOCK)
		return -EINVAL;
	if (rc != 0)
		return rc;
	if (producer == NULL || producer == owner)
		return -EINVAL;
	return 0;
}

int
ust_socket_attach(struct ust_stack *producer, struct ust_stack *owner, int sd)
{
	const struct ust_sock_ops *ops;
	struct ust_sock *s;
	int rc;

	rc = sock_attach_get(producer, owner, sd, &s, &ops);
	if (rc != 0)
		return rc;
	if (ops->attach == NULL)
		return -EINVAL;
	return ops->attach(producer, s);
}

int
ust_socket_detach(struct ust_stack *producer, struct ust_stack *owner, int sd)
{
	const struct ust_sock_ops *ops;
	struct ust_sock *s;
	int rc;

	rc = sock_attach_get(producer, owner, sd, &s, &ops);
	if (rc != 0)
		return rc;
	if (ops->detach == NULL)
		return -EINVAL;
	return ops->detach(producer, s);
}

/*
 * The socket-level options that mean the same for every kind are handled
 * here, once: SO_REUSEADDR (a flag the protocols' bind() reads) and SO_TYPE.
 * The others stay with the protocol, because their meaning differs: the
 * buffers (UDP's are the accounted receive queue and staged datagrams,
 * TCP's its byte queues, each with its own [udp]/[tcp] limits and its own
 * wake-up rule), SO_ERROR (UDP's queue of ICMP errors), SO_KEEPALIVE,
 * SO_LINGER, SO_BROADCAST.
 */
int
ust_setsockopt(struct ust_stack *stk, int sd, int level, int optname,
	       const void *optval, socklen_t optlen)
{
	const struct ust_sock_ops *ops;
	struct ust_sock *s;
	int rc, v;

	rc = sock_get(stk, sd, &s, &ops);
	if (rc != 0)
		return rc;
	if (level == SOL_SOCKET && optname == SO_REUSEADDR) {
		if (optval == NULL || optlen < (socklen_t)sizeof(int))
			return -EINVAL;
		memcpy(&v, optval, sizeof(v));
		if (v)
			s->flags |= UST_SKF_REUSEADDR;
		else
			s->flags &= ~UST_SKF_REUSEADDR;
		return 0;
	}
	if (level == IPPROTO_IPV6 && optname == IPV6_V6ONLY) {
		if (!(s->inet6 & UST_SK6_INET6))
			return -ENOPROTOOPT;
		if (optval == NULL || optlen < (socklen_t)sizeof(int))
			return -EINVAL;
		/* as Linux: fixed once the socket has a port */
		if (s->lport != 0)
			return -EINVAL;
		memcpy(&v, optval, sizeof(v));
		if (v)
			s->inet6 |= UST_SK6_V6ONLY;
		else
			s->inet6 &= ~UST_SK6_V6ONLY;
		return 0;
	}
	return ops->setsockopt(s, level, optname, optval, optlen);
}

int
ust_sockopt_put_int(void *val, socklen_t *len, int v)
{
	if (*len < (socklen_t)sizeof(int))
		return -EINVAL;
	memcpy(val, &v, sizeof(v));
	*len = sizeof(v);
	return 0;
}

int
ust_getsockopt(struct ust_stack *stk, int sd, int level, int optname,
	       void *optval, socklen_t *optlen)
{
	const struct ust_sock_ops *ops;
	struct ust_sock *s;
	int rc;

	rc = sock_get(stk, sd, &s, &ops);
	if (rc != 0)
		return rc;
	if (level == SOL_SOCKET &&
	    (optname == SO_REUSEADDR || optname == SO_TYPE)) {
		if (optval == NULL || optlen == NULL)
			return -EINVAL;
		return ust_sockopt_put_int(optval, optlen,
				       optname == SO_TYPE ? ops->type :
				       !!(s->flags & UST_SKF_REUSEADDR));
	}
	if (level == IPPROTO_IPV6 && optname == IPV6_V6ONLY) {
		if (!(s->inet6 & UST_SK6_INET6))
			return -ENOPROTOOPT;
		if (optval == NULL || optlen == NULL)
			return -EINVAL;
		return ust_sockopt_put_int(optval, optlen,
				       !!(s->inet6 & UST_SK6_V6ONLY));
	}
	return ops->getsockopt(s, level, optname, optval, optlen);
}

/* The local (@local) or remote end of @s, as getsockname() and
 * getpeername() report it: an AF_INET6 socket's IPv6 address when it has
 * one (:: when unbound), else its IPv4 address mapped. */
static int
put_end(const struct ust_sock *s, bool local, struct sockaddr *addr,
	socklen_t *addrlen)
{
	struct ust_saddr a;

	if (addr == NULL || addrlen == NULL)
		return -EFAULT;
	memset(&a, 0, sizeof(a));
	if (local) {
		ust_saddr_v4(&a, s->laddr, s->lport);
		if ((s->inet6 & UST_SK6_LOCAL6) ||
		    ((s->inet6 & UST_SK6_INET6) &&
		     !(s->flags & UST_SKF_BOUND) && s->laddr == 0)) {
			a.family = AF_INET6;
			memcpy(a.v6, ust_sock_laddr6(s), sizeof(a.v6));
		}
	} else {
		ust_saddr_v4(&a, s->raddr, s->rport);
		if (s->inet6 & UST_SK6_REMOTE6) {
			a.family = AF_INET6;
			memcpy(a.v6, ust_sock_raddr6(s), sizeof(a.v6));
		}
	}
	sock_addr_out(s, &a, addr, addrlen);
	return 0;
}

int
ust_getsockname(struct ust_stack *stk, int sd, struct sockaddr *addr,
		socklen_t *addrlen)
{
	const struct ust_sock_ops *ops;
	struct ust_sock *s;
	int rc;

	rc = sock_get(stk, sd, &s, &ops);
	if (rc != 0)
		return rc;
	return put_end(s, true, addr, addrlen);
}

int
ust_getpeername(struct ust_stack *stk, int sd, struct sockaddr *addr,
		socklen_t *addrlen)
{
	const struct ust_sock_ops *ops;
	struct ust_sock *s;
	int rc;

	rc = sock_get(stk, sd, &s, &ops);
	if (rc != 0)
		return rc;
	if (!(s->flags & UST_SKF_CONNECTED))
		return -ENOTCONN;
	return put_end(s, false, addr, addrlen);
}
