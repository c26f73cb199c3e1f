/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * The TCP socket calls. lib/sock/socket.c checks the arguments every
 * socket call shares (descriptor, address family, lengths) and dispatches
 * here by socket kind; this file holds what is TCP's own: ports, the
 * connection's user calls of RFC 9293 3.10.1-3.10.6 (OPEN, SEND, RECEIVE,
 * CLOSE, ABORT), options and readiness.
 *
 * Every call is non-blocking: connect() returns -EINPROGRESS, send() takes
 * what the send buffer has room for, recv() gives what has arrived, and
 * UST_EPOLL* events say when to call again.
 *
 * Send buffer: payload bytes queued and not yet acknowledged, against
 * sndbuf (SO_SNDBUF, doubled as Linux). ust_send() copies into mbufs
 * (filling the tail mbuf first); ust_send_burst() queues the caller's
 * mbufs as they are. Receive buffer: the truesize of the segments queued,
 * in order and out of order, against rcvbuf (tcp.c's accounting), the
 * window advertised from what is free (tcp_output.c).
 */

#include <errno.h>
#include <string.h>
#include <netinet/tcp.h>

#include <rte_hash.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "tcp_cc.h"
#include "tcp_private.h"

#define NS_PER_MS 1000000ull

/* Linux's bounds for TCP_KEEPIDLE/TCP_KEEPINTVL (s) and TCP_KEEPCNT */
#define UST_TCP_KEEP_MAX_S 32767
#define UST_TCP_KEEP_MAX_CNT 127

struct ust_sock *
ust_tcp_create(struct ust_stack *stk)
{
	struct ust_tcp_sock *tp = ust_tcp_sock_alloc(stk);

	return tp != NULL ? &tp->base : NULL;
}

/* ---- ports ---- */

static bool
tcp_port_listened(struct ust_stack *stk, uint16_t port)
{
	uint32_t p = port;

	return rte_hash_lookup(stk->tcp->listeners, &p) >= 0;
}

/* Hold @port for @tp: free, or shared under SO_REUSEADDR with sockets that
 * do not listen (a server restarting beside connections it accepted). */
static int
tcp_port_take(struct ust_stack *stk, struct ust_tcp_sock *tp, uint16_t port)
{
	uint16_t *refs = stk->tcp->port_refs;

	if (refs[port] != 0 &&
	    (!(tp->base.flags & UST_SKF_REUSEADDR) ||
	     tcp_port_listened(stk, port) || refs[port] == UINT16_MAX))
		return -EADDRINUSE;
	refs[port]++;
	tp->tflags |= TF_PORT_REF;
	return 0;
}

/* An AF_INET6 socket binds an IPv6 address of ours (UST_SK6_LOCAL6, in the
 * descriptor's table), or :: for any: then, unless V6ONLY, IPv4's any
 * address too, so that a dual-stack listener takes both families
 * (ust_tcp_listen_takes()); or an IPv4 address through a mapped one. */
int
ust_tcp_bind(struct ust_stack *stk, struct ust_sock *s,
	     const struct ust_saddr *a)
{
	static const uint8_t any6[16];
	struct ust_tcp_sock *tp = tcp_sk(s);
	uint16_t p = rte_be_to_cpu_16(a->port);
	rte_be32_t addr = a->v4;
	int rc = 0;

	if ((s->flags & UST_SKF_BOUND) || tp->state != UST_TCP_CLOSED)
		return -EINVAL;
	if (a->family == AF_INET6) {
		if (memcmp(a->v6, any6, sizeof(any6)) != 0 &&
		    ust_ip6_our_addr(stk, a->v6, false) < 0)
			return -EADDRNOTAVAIL;
		addr = 0;
	}
	if (addr != 0 && addr != stk->addr)
		return -EADDRNOTAVAIL;
	if (p != 0) {
		rc = tcp_port_take(stk, tp, p);
	} else {
		/* RFC 6056 algorithm 1 flavour: random start, linear probe,
		 * over ports nobody holds */
		uint32_t lo = stk->conf.ephemeral_lo;
		uint32_t span = stk->conf.ephemeral_hi - lo + 1;
		uint32_t i, start = (uint32_t)rte_rand_max(span);

		rc = -EADDRINUSE;
		for (i = 0; i < span && rc != 0; i++) {
			p = (uint16_t)(lo + (start + i) % span);
			if (stk->tcp->port_refs[p] == 0)
				rc = tcp_port_take(stk, tp, p);
		}
	}
	if (rc != 0)
		return rc;
	s->laddr = addr;
	s->lport = rte_cpu_to_be_16(p);
	s->flags |= UST_SKF_BOUND;
	if (a->family == AF_INET6) {
		s->inet6 |= UST_SK6_LOCAL6;
		memcpy(ust_sock_laddr6(s), a->v6, UST_IPV6_ADDR_LEN);
	}
	return 0;
}

/* The peer's address of a connected socket, in its family. */
static void
tcp_peer_saddr(const struct ust_sock *s, struct ust_saddr *a)
{
	const struct ust_tcp_sock *tp = (const struct ust_tcp_sock *)s;

	ust_saddr_v4(a, s->raddr, s->rport);
	if (tp->a6 != NULL) {
		a->family = AF_INET6;
		memcpy(a->v6, tp->a6->remote, sizeof(a->v6));
	}
}

int
ust_tcp_listen(struct ust_stack *stk, struct ust_sock *s, int backlog)
{
	struct ust_tcp_sock *tp = tcp_sk(s);
	uint32_t port;
	int rc;

	/* at least one; at most what the connection table holds */
	if (backlog < 1)
		backlog = 1;
	if ((uint32_t)backlog > stk->conf.tcp.max_conns)
		backlog = (int)stk->conf.tcp.max_conns;
	if (tp->state == UST_TCP_LISTEN) {
		tp->listen->backlog = (uint32_t)backlog;
		return 0;
	}
	if (tp->state != UST_TCP_CLOSED || (tp->tflags & TF_WAS_CONN))
		return -EINVAL;
	if (!(s->flags & UST_SKF_BOUND)) {
		struct ust_saddr any;

		/* the family's any address, an ephemeral port (as Linux) */
		memset(&any, 0, sizeof(any));
		any.family = (s->inet6 & UST_SK6_INET6) ? AF_INET6 : AF_INET;
		rc = ust_tcp_bind(stk, s, &any);
		if (rc != 0)
			return rc;
	}
	port = rte_be_to_cpu_16(s->lport);
	if (tcp_port_listened(stk, (uint16_t)port))
		return -EADDRINUSE;
	tp->listen = rte_zmalloc_socket("ust_tcp_listen", sizeof(*tp->listen),
					0, stk->conf.socket_id);
	if (tp->listen == NULL)
		return -ENOMEM;
	tp->listen->backlog = (uint32_t)backlog;
	if (rte_hash_add_key_data(stk->tcp->listeners, &port, tp) < 0) {
		rte_free(tp->listen);
		tp->listen = NULL;
		return -ENOBUFS;
	}
	ust_tcp_set_state(stk, tp, UST_TCP_LISTEN);
	return 0;
}

int
ust_tcp_accept(struct ust_stack *stk, struct ust_sock *s,
	       struct ust_saddr *peer)
{
	struct ust_tcp_sock *lp = tcp_sk(s), *tp;
	struct ust_tcp_listen *l = lp->listen;
	int sd;

	if (lp->state != UST_TCP_LISTEN)
		return -EINVAL;
	tp = l->acceptq_head;
	if (tp == NULL)
		return -EAGAIN;
	if (stk->sd_free == UST_SD_NONE)
		return -EMFILE; /* it stays queued */
	sd = ust_sd_alloc(stk, &tp->base);
	if (sd < 0)
		return sd;
	l->acceptq_head = tp->accept_next;
	if (l->acceptq_head == NULL)
		l->acceptq_tail = NULL;
	l->acceptq_len--;
	stk->tcp->n_acceptq--;
	tp->accept_next = NULL;
	tp->parent = NULL;
	tp->tflags &= ~TF_ORPHAN;
	/* the listener's family: an AF_INET6 one's children report their
	 * IPv4 ends mapped, their IPv6 ones from the descriptor's table */
	tp->base.inet6 = (s->inet6 & (UST_SK6_INET6 | UST_SK6_V6ONLY)) |
		(tp->base.inet6 & (UST_SK6_LOCAL6 | UST_SK6_REMOTE6));
	if (tp->a6 != NULL) {
		memcpy(ust_sock_laddr6(&tp->base), tp->a6->local,
		       UST_IPV6_ADDR_LEN);
		memcpy(ust_sock_raddr6(&tp->base), tp->a6->remote,
		       UST_IPV6_ADDR_LEN);
	}
	if (peer != NULL)
		tcp_peer_saddr(&tp->base, peer);
	return sd;
}

/* ---- active open (RFC 9293 3.10.1, OPEN call, CLOSED state) ---- */

/* Whether @k may be used by a new connection: unused, or in TIME_WAIT
 * and taken over, as Linux's tcp_tw_reuse does: timestamps on (PAWS
 * tells old duplicates from the new connection's segments, whose
 * timestamps and ISN both grow with the clock) and a second gone since
 * the old connection's last segment. */
static bool
tcp_tuple_usable(struct ust_stack *stk, const struct ust_tcp_key *k)
{
	void *d = ust_tcp_hash_lookup(stk, k);
	struct ust_tcp_tw *tw;

	if (d == NULL)
		return true;
	if (tcp_obj_kind(d) != UST_TCP_OBJ_TW || !stk->conf.tcp.tw_reuse)
		return false;
	tw = tcp_obj_ptr(d);
	if (!tw->ts_ok || stk->now - tw->ts_recent_ns < 1000000000ull)
		return false;
	stk->mib[UST_MIB_TCPEXT_TWRECYCLED]++;
	ust_tcp_tw_free(stk, tw);
	return true;
}

/* A local port for a connection to @k's remote end: held by nobody, and
 * the 4-tuple usable. RFC 6056 algorithm 4 (double-hash port selection,
 * as Linux's __inet_hash_connect()): a keyed hash of the destination
 * gives the offset where its search starts and the class whose counter
 * moves the start on, so that the connections to one destination walk the
 * range in order. The port a search meets first is then the one used
 * longest ago: its TIME_WAIT (when the pace cycles the range within
 * time_wait_ms, tw_reuse's second) is the oldest there is, and the search
 * mostly ends at its first candidate where a random start (RFC 6056
 * algorithm 1) probed, with a hash lookup each, through the run of fresh
 * TIME_WAIT ports behind the last choice. An observer of one destination
 * learns nothing of the others' (the hash is keyed, the classes many);
 * the counter also moves by a small random step, as Linux's since 5.19,
 * so a destination's own sequence is not exactly predictable either. */
static int
tcp_connect_port(struct ust_stack *stk, struct ust_tcp_key *k)
{
	struct ust_tcp_stack *ts = stk->tcp;
	struct {
		uint64_t tag;
		rte_be32_t laddr;
		rte_be32_t raddr;
		rte_be16_t rport;
		uint16_t pad;
	} in = {
		/* 20 bytes: a length no other use of the key hashes */
		.tag = 0x7463705f706f7274ull, /* "tcp_port" */
		.laddr = k->laddr, .raddr = k->raddr, .rport = k->rport,
	};
	uint64_t h = ust_siphash24(ts->secret, &in, sizeof(in));
	uint32_t lo = stk->conf.ephemeral_lo;
	uint32_t span = stk->conf.ephemeral_hi - lo + 1;
	uint32_t *perturb = &ts->port_perturb[(h >> 32) &
					      (UST_TCP_PERTURB_SIZE - 1)];
	uint32_t off = (uint32_t)(((uint64_t)(uint32_t)h + *perturb) % span);
	uint32_t i;

	for (i = 0; i < span; i++) {
		uint16_t p = (uint16_t)(lo + off);

		if (++off == span)
			off = 0;
		if (ts->port_refs[p] != 0)
			continue;
		k->lport = rte_cpu_to_be_16(p);
		/* sibling stacks: the reply must arrive on our queue (by
		 * the group's hash, IPv4's: an IPv6 reply is steered by its
		 * port's slice, or goes round the siblings) */
		if (stk->sib != NULL && k->a6 == NULL &&
		    !stk->sib->port_ok(stk, k->lport, k->raddr, k->rport))
			continue;
		if (tcp_tuple_usable(stk, k)) {
			*perturb += i + 1 + (uint32_t)(rte_rand() & 3);
			return 0;
		}
	}
	return -EADDRNOTAVAIL;
}

static int tcp_connect_start(struct ust_stack *stk, struct ust_tcp_sock *tp,
			     const struct ust_tcp_key *k);

/* @k's local port: the bound one (the 4-tuple must be usable), else an
 * ephemeral one (tcp_connect_port()). 0 or -errno. */
static int
tcp_connect_lport(struct ust_stack *stk, const struct ust_sock *s,
		  struct ust_tcp_key *k)
{
	if (s->flags & UST_SKF_BOUND) {
		k->lport = s->lport;
		return tcp_tuple_usable(stk, k) ? 0 : -EADDRNOTAVAIL;
	}
	return tcp_connect_port(stk, k);
}

/* connect() to an IPv6 address (RFC 9293 3.10.1 over RFC 8200): the
 * source is the bound address or RFC 6724's for the destination; the
 * addresses go to the connection's own object (tp->a6) and to the
 * descriptor's table (getsockname, getpeername). Between sibling stacks
 * (lib/group) the answer may arrive at another stack: it is steered to
 * this one by the port's slice, or (port steering, whose hash is IPv4's)
 * goes round the siblings (tcp_seg_dispatch()). */
static int
tcp_connect6(struct ust_stack *stk, struct ust_tcp_sock *tp,
	     const struct ust_saddr *a)
{
	static const uint8_t any6[UST_IPV6_ADDR_LEN];
	struct ust_tcp_stack *ts = stk->tcp;
	struct ust_sock *s = &tp->base;
	const uint8_t *src;
	struct ust_tcp_key k;
	int rc;

	if (memcmp(a->v6, any6, sizeof(any6)) == 0 || a->port == 0)
		return -EINVAL;
	if (ust_ipv6_is_multicast(a->v6) ||
	    ((s->flags & UST_SKF_BOUND) && !(s->inet6 & UST_SK6_LOCAL6)))
		return -ENETUNREACH;   /* or bound to an IPv4 address */
	rc = ust_ip6_route_check(stk, a->v6);
	if (rc != 0)
		return rc;
	src = (s->inet6 & UST_SK6_LOCAL6) &&
		memcmp(ust_sock_laddr6(s), any6, sizeof(any6)) != 0 ?
		ust_sock_laddr6(s) : ust_ip6_select_src(stk, a->v6);
	if (src == NULL)
		return -EADDRNOTAVAIL; /* none yet: DAD */
	if (ts->n_conns + ts->n_req + ts->n_tw >= stk->conf.tcp.max_conns)
		return -EAGAIN;
	if (tp->a6 == NULL) {
		tp->a6 = ust_tcp_slab_get(&ts->a6_slab);
		if (tp->a6 == NULL)
			return -ENOMEM;
	}
	memcpy(tp->a6->local, src, UST_IPV6_ADDR_LEN);
	memcpy(tp->a6->remote, a->v6, UST_IPV6_ADDR_LEN);
	ust_tcp_key6(&k, tp->a6, 0, a->port);
	rc = tcp_connect_lport(stk, s, &k);
	if (rc != 0)
		return rc;
	memcpy(ust_sock_laddr6(s), tp->a6->local, UST_IPV6_ADDR_LEN);
	memcpy(ust_sock_raddr6(s), tp->a6->remote, UST_IPV6_ADDR_LEN);
	s->inet6 |= UST_SK6_LOCAL6 | UST_SK6_REMOTE6;
	tp->rcv_mss = RTE_MIN(tp->rcv_mss, ust_tcp_local_mss6(stk));
	return tcp_connect_start(stk, tp, &k);
}

int
ust_tcp_connect(struct ust_stack *stk, struct ust_sock *s,
		const struct ust_saddr *a)
{
	struct ust_tcp_sock *tp = tcp_sk(s);
	struct ust_tcp_stack *ts = stk->tcp;
	enum ust_route_kind kind;
	struct ust_tcp_key k;
	rte_be32_t nh;
	int rc;

	switch (tp->state) {
	case UST_TCP_CLOSED:
		break;
	case UST_TCP_SYN_SENT:
		return -EALREADY;
	case UST_TCP_LISTEN:
		return -EINVAL;
	default:
		return -EISCONN;
	}
	if (a->family == AF_INET6)
		return tcp_connect6(stk, tp, a);
	if (a->v4 == 0 || a->port == 0)
		return -EINVAL;
	if (ust_route(stk, a->v4, &nh, &kind) != 0) {
		stk->mib[UST_MIB_IP_OUTNOROUTES]++;
		return -ENETUNREACH;
	}
	if (kind == UST_ROUTE_BROADCAST || kind == UST_ROUTE_MULTICAST)
		return -ENETUNREACH;
	if (ts->n_conns + ts->n_req + ts->n_tw >= stk->conf.tcp.max_conns)
		return -EAGAIN;
	k.laddr = stk->addr;
	k.raddr = a->v4;
	k.rport = a->port;
	k.a6 = NULL;
	rc = tcp_connect_lport(stk, s, &k);
	if (rc != 0)
		return rc;
	return tcp_connect_start(stk, tp, &k);
}

/* The rest of a connect() to the 4-tuple @k, chosen and usable. */
static int
tcp_connect_start(struct ust_stack *stk, struct ust_tcp_sock *tp,
		  const struct ust_tcp_key *k0)
{
	struct ust_tcp_stack *ts = stk->tcp;
	struct ust_sock *s = &tp->base;
	struct ust_tcp_key kk = *k0, *k = &kk;

	if (k->a6 == NULL && tp->a6 != NULL) {
		/* (an IPv6 attempt before, then IPv4: mapped) */
		ust_tcp_slab_put(&ts->a6_slab, tp->a6);
		tp->a6 = NULL;
	}
	if (ust_tcp_hash_add(stk, k, tp, UST_TCP_OBJ_SOCK) < 0)
		return -EAGAIN;
	ts->n_conns++;
	s->laddr = k->laddr;
	s->lport = k->lport;
	s->raddr = k->raddr;
	s->rport = k->rport;
	s->flags |= UST_SKF_BOUND | UST_SKF_CONNECTED;
	if (k->a6 == NULL)
		s->inet6 &= ~UST_SK6_LOCAL6;
	s->so_error = 0;
	/* a socket used before starts afresh */
	ust_tcp_purge_queues(stk, tp, true);
	tp->tflags &= TF_NODELAY | TF_KEEPALIVE | TF_QUICKACK | TF_PORT_REF;
	tp->iss = ust_tcp_isn(stk, k);
	tp->ts_offset = ust_tcp_ts_offset(stk, k);
	tp->ts_recent = 0;
	tp->snd_una = tp->iss;
	tp->snd_nxt = tp->iss;
	tp->snd_max = tp->iss;
	tp->snd_buf_seq = tp->iss + 1;
	tp->snd_wscale = 0;
	tp->rcv_wscale = ust_tcp_choose_wscale(stk);
	tp->rto_us = stk->conf.tcp.rto_init_ms * 1000;
	tp->srtt_us = 0;
	tp->rttvar_us = 0;
	tp->backoff = 0;
	tp->probes = 0;
	tp->n_sb = 0;
	tp->n_rcv_sack = 0;
	ust_tcp_sack_release(tp);
	ust_tcp_set_state(stk, tp, UST_TCP_SYN_SENT);
	stk->mib[UST_MIB_TCP_ACTIVEOPENS]++;
	tp->rtt_start_us = (uint32_t)(stk->now / 1000);
	ust_tcp_send_syn(stk, tp);
	ust_tcp_rtx_arm(stk, tp, UST_RTX_RTO, ust_tcp_rto_ns(tp));
	return -EINPROGRESS;
}

/* ---- SEND ---- */

/* Why the connection cannot take data now, or 0. */
int
ust_tcp_send_state_error(struct ust_tcp_sock *tp)
{
	int err = tp->base.so_error;

	if (err != 0) {
		tp->base.so_error = 0;
		return -err;
	}
	switch (tp->state) {
	case UST_TCP_ESTABLISHED:
	case UST_TCP_CLOSE_WAIT:
		return (tp->tflags & TF_FIN_QUEUED) ? -EPIPE : 0;
	case UST_TCP_SYN_SENT:
	case UST_TCP_SYN_RECEIVED:
		/* (a FIN queued in SYN-RECEIVED: tcp_shut_wr()) */
		return (tp->tflags & TF_FIN_QUEUED) ? -EPIPE : -EAGAIN;
	case UST_TCP_CLOSED:
	case UST_TCP_LISTEN:
		/* as Linux's sk_stream_wait_connect(): a socket that is not
		 * connecting (never connected, refused, listening) gets
		 * EPIPE for a write; a pending error goes first
		 * (ust_tcp_send()'s caller) */
		return -EPIPE;
	default:
		return -EPIPE; /* shut down for writing */
	}
}

/*
 * Linux's forced push (tcp_sendmsg_locked()'s forced_push()): inside a
 * write, the skb that takes the write past pushed_seq + half the peer's
 * largest window is marked PSH (tcp_mark_push()), and pushed_seq moves to
 * its end; so a long write has PSH about every half window, besides the
 * one at its end (packetdrill cubic/cubic-rto-ss-ca-cwnd-bump). Linux
 * looks as each skb becomes full: its skbs are cut at the size goal (the
 * TSO packet's segments by pacing, ust_tcp_tso_autosize(), times mss_now) from the
 * unsent tail of the write queue, which a write fills first, or from the
 * write's start. ustack keeps how long that last skb is (fp_tail) and puts
 * a send-queue buffer boundary at each mark, the buffer marked
 * (UST_SNDQ_FPUSH): the segment that ends there carries PSH
 * (ust_tcp_send_segment()), sent again too, as Linux's skb keeps its flag.
 */
struct tcp_fpush {
	uint32_t next;          /* the next mark (when on) */
	uint32_t step;          /* from one mark to the next */
	uint32_t goal;          /* the size goal */
	uint32_t first;         /* the first skb boundary */
	uint32_t made;          /* marks made */
	uint32_t last;          /* the last made */
	bool on;
};

/* half the peer's largest window (Linux's tcp_bound_to_half_wnd(): all of
 * a tiny one) */
static inline uint32_t
tcp_half_wnd(const struct ust_tcp_sock *tp)
{
	return tp->snd_wnd_max > 536 ? tp->snd_wnd_max / 2 : tp->snd_wnd_max;
}

/* Plan the marks inside the write [@seq, @end) after the queue's @tail:
 * none in *fp when there is none (the write's end itself is
 * tcp_push()'s, not a forced one). */
static void
tcp_fpush_plan(struct ust_stack *stk, const struct ust_tcp_sock *tp,
	       struct rte_mbuf *tail, uint32_t seq, uint32_t end,
	       struct tcp_fpush *fp)
{
	uint32_t mss = RTE_MAX(ust_tcp_mss_now(tp), 1u);
	uint32_t half = tcp_half_wnd(tp), unsent, lim;

	memset(fp, 0, sizeof(*fp));
	unsent = SEQ_LT(tp->snd_max, seq) ? seq - tp->snd_max : 0;
	unsent = RTE_MIN(unsent, (uint32_t)tp->fp_tail);
	/* the common short write, all before it sent: one skb of its own,
	 * no mark (and no division for the size goal, which is at least a
	 * segment) */
	if (unsent == 0 && end - seq <= mss &&
	    (half == 0 || SEQ_LEQ(end, tp->pushed_seq + half))) {
		fp->goal = mss;
		fp->first = seq + mss;
		return;
	}
	/* (Linux's tcp_xmit_size_goal(): tcp_tso_autosize()'s segments,
	 * within half the peer's largest window) */
	fp->goal = RTE_MAX(RTE_MIN(ust_tcp_tso_autosize(tp, mss),
				   half / mss), 1u) * mss;
	/* the unsent part of the last skb is filled to the goal first,
	 * unless a mark closed it (Linux's tcp_skb_can_collapse_to()) */
	if (unsent > 0 && unsent < fp->goal &&
	    !(tail != NULL && ust_tcp_sndq_closed(stk, tail)))
		fp->first = seq - unsent + fp->goal;
	else
		fp->first = seq + fp->goal;
	if (half == 0 || !SEQ_LT(fp->first, end))
		return;
	lim = tp->pushed_seq + half;
	fp->next = SEQ_GT(fp->first, lim) ? fp->first :
		fp->first + ((lim - fp->first) / fp->goal + 1) * fp->goal;
	fp->step = (half / fp->goal + 1) * fp->goal;
	fp->on = SEQ_LT(fp->next, end);
}

/* After the write [@seq, @end): how long Linux's last skb is. */
static void
tcp_fpush_tail(struct ust_tcp_sock *tp, const struct tcp_fpush *fp,
	       uint32_t seq, uint32_t end)
{
	uint32_t start;

	if (SEQ_LT(fp->first, end))
		start = fp->first + ((end - 1 - fp->first) / fp->goal) *
			fp->goal;
	else if (fp->first == seq + fp->goal)
		start = seq; /* a new skb from the write's start */
	else
		start = fp->first - fp->goal; /* the one it filled */
	tp->fp_tail = (uint16_t)RTE_MIN(end - start, (uint32_t)UINT16_MAX);
}

/* Marks were made, the first at @first: pushed_seq, and the mark new data
 * looks for next (the one it looked for is kept while it is unsent). */
static void
tcp_fpush_made(struct ust_tcp_sock *tp, const struct tcp_fpush *fp,
	       uint32_t seq, uint32_t first)
{
	if (fp->made == 0)
		return;
	tp->pushed_seq = fp->last;
	if (!(tp->tflags & TF_FPUSH) || !SEQ_GT(tp->fp_next, tp->snd_max) ||
	    SEQ_GT(tp->fp_next, seq))
		tp->fp_next = first;
	tp->tflags |= TF_FPUSH;
}

/* A buffer ending at a mark was queued. */
static inline void
tcp_fpush_mark(struct ust_stack *stk, struct tcp_fpush *fp, struct rte_mbuf *m,
	       uint32_t mend)
{
	ust_tcp_sndq_mark_fpush(stk, m);
	fp->made++;
	fp->last = mend;
}

/* Copy @len bytes to the end of the send queue; returns what was copied
 * (less when the mbuf pool runs dry). With a chained layout every buffer
 * takes at most one MSS (Linux's size goal): a full segment is then one
 * attached piece, not the two halves of a buffer boundary. A buffer ends
 * at each forced-push mark of @fp, and is marked. */
static size_t
sndq_append(struct ust_stack *stk, struct ust_tcp_sock *tp, const uint8_t *buf,
	    size_t len, struct tcp_fpush *fp)
{
	struct rte_mbuf *tail = tp->sndq.tail;
	size_t goal = tp->tx_layout == UST_TCP_TX_LINEAR ? SIZE_MAX : tp->mss;
	uint32_t pos = tp->snd_buf_seq + tp->snd_buffered;
	size_t done = 0;

	/* fill the tail first: small writes share a buffer (its bytes
	 * already sent do not move) */
	if (tail != NULL && tail->nb_segs == 1 && RTE_MBUF_DIRECT(tail) &&
	    rte_mbuf_refcnt_read(tail) == 1 && tail->data_len < goal &&
	    !ust_tcp_sndq_closed(stk, tail)) {
		size_t k = RTE_MIN(len, (size_t)rte_pktmbuf_tailroom(tail));

		k = RTE_MIN(k, goal - tail->data_len);
		if (fp->on && SEQ_LEQ(fp->next, pos + (uint32_t)k))
			k = fp->next - pos;
		if (k > 0) {
			memcpy(rte_pktmbuf_mtod_offset(tail, uint8_t *,
						       tail->data_len),
			       buf, k);
			tail->data_len = (uint16_t)(tail->data_len + k);
			tail->pkt_len += (uint32_t)k;
			done = k;
			pos += (uint32_t)k;
			if (fp->on && pos == fp->next) {
				tcp_fpush_mark(stk, fp, tail, pos);
				fp->next += fp->step;
				fp->on = SEQ_LT(fp->next, pos +
						(uint32_t)(len - done));
			}
		}
	}
	while (done < len) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(stk->pool);
		size_t k;

		if (m == NULL)
			break;
		k = RTE_MIN(len - done, (size_t)rte_pktmbuf_tailroom(m));
		k = RTE_MIN(k, goal);
		if (fp->on && SEQ_LEQ(fp->next, pos + (uint32_t)k))
			k = fp->next - pos;
		memcpy(rte_pktmbuf_mtod(m, uint8_t *), buf + done, k);
		m->data_len = (uint16_t)k;
		m->pkt_len = (uint32_t)k;
		ust_tcp_sndq_push(stk, tp, m);
		done += k;
		pos += (uint32_t)k;
		if (fp->on && pos == fp->next) {
			tcp_fpush_mark(stk, fp, m, pos);
			fp->next += fp->step;
			fp->on = SEQ_LT(fp->next, pos + (uint32_t)(len - done));
		}
	}
	tp->snd_buffered += (uint32_t)done;
	return done;
}

/* The same for buffers queued whole after @prev, the queue's tail before
 * (ust_send_burst(), zero copy) from @seq: the buffer holding a mark's
 * byte is marked, PSH then at its end. */
void
ust_tcp_fpush_burst(struct ust_stack *stk, struct ust_tcp_sock *tp,
		    struct rte_mbuf *prev, uint32_t seq)
{
	uint32_t mseq = seq, mark = 0;
	uint32_t end = tp->snd_buf_seq + tp->snd_buffered;
	struct rte_mbuf *m = prev != NULL ?
		ust_meta(stk->meta_off, prev)->nextpkt : tp->sndq.head;
	struct tcp_fpush fp;

	if (m == NULL || !SEQ_LT(seq, end))
		return;
	tcp_fpush_plan(stk, tp, prev, seq, end, &fp);
	for (; m != NULL && fp.on; m = ust_meta(stk->meta_off, m)->nextpkt) {
		uint32_t mend = mseq + m->pkt_len;

		if (SEQ_LEQ(fp.next, mend) && SEQ_LT(mend, end)) {
			if (fp.made == 0)
				mark = mend;
			tcp_fpush_mark(stk, &fp, m, mend);
			while (SEQ_LEQ(fp.next, mend))
				fp.next += fp.step;
		}
		fp.on = SEQ_LT(fp.next, end);
		mseq = mend;
	}
	tcp_fpush_tail(tp, &fp, seq, end);
	tcp_fpush_made(tp, &fp, seq, mark);
}

/* A write's end with MSG_MORE is no PSH mark, unless it is forced
 * (Linux's tcp_push(): !MSG_MORE || forced_push()). */
static void
tcp_push_more_forced(struct ust_tcp_sock *tp, uint32_t end)
{
	uint32_t half = tcp_half_wnd(tp);

	if (half > 0 && SEQ_GT(end, tp->pushed_seq + half)) {
		tp->snd_psh = end;
		tp->pushed_seq = end;
	}
}

ssize_t
ust_tcp_send(struct ust_stack *stk, struct ust_sock *s, const void *buf,
	     size_t len, int flags)
{
	struct ust_tcp_sock *tp = tcp_sk(s);
	uint32_t seq, psh, pushed, first;
	struct tcp_fpush fp;
	size_t room, n, want;
	bool empty;
	int rc;

	rc = ust_tcp_send_state_error(tp);
	if (rc != 0)
		return rc;
	if (len == 0)
		return 0;
	room = s->sndbuf > tp->snd_buffered ? s->sndbuf - tp->snd_buffered : 0;
	if (room < len)
		tp->tflags |= TF_NOSPACE; /* (TCP_INFO's sndbuf-limited) */
	/* TCP_NOTSENT_LOWAT: as Linux's sendmsg(), no more while the bytes
	 * not yet sent are at the mark */
	if (room == 0 || (tp->notsent_lowat != 0 &&
			  tcp_notsent_bytes(tp) >= tp->notsent_lowat))
		return -EAGAIN;
	seq = tp->snd_buf_seq + tp->snd_buffered;
	empty = tp->snd_buffered == 0;
	want = RTE_MIN(len, room);
	tcp_fpush_plan(stk, tp, tp->sndq.tail, seq, seq + (uint32_t)want, &fp);
	first = fp.next;
	n = sndq_append(stk, tp, buf, want, &fp);
	if (n == 0)
		return -ENOBUFS;
	tcp_fpush_tail(tp, &fp, seq, seq + (uint32_t)n);
	tcp_fpush_made(tp, &fp, seq, first);
	psh = tp->snd_psh;
	pushed = tp->pushed_seq;
	ust_tcp_tx_note_write(tp, seq, (uint32_t)n, empty);
	if ((flags & MSG_EOR) && n == RTE_MIN(len, room)) {
		/* the end of a record (Linux's skb->eor): no later write
		 * joins its last buffer, no segment crosses it */
		ust_tcp_sndq_mark_eor(stk, tp->sndq.tail);
		tp->tflags |= TF_EOR_USED;
	}
	if (flags & MSG_MORE) {
		/* MSG_MORE (as Linux's tcp_push() with it): the end of this
		 * write is no PSH mark, and this push sends full segments
		 * only; what is held goes with the next push (an ACK, a
		 * write without it, TCP_NODELAY) or, with nothing in flight,
		 * on the probe timer */
		tp->snd_psh = psh;
		tp->pushed_seq = pushed;
		tp->tflags |= TF_MORE | TF_MORE_HOLD;
		tcp_push_more_forced(tp, seq + (uint32_t)n);
		ust_tcp_output(stk, tp);
		tp->tflags &= ~TF_MORE_HOLD;
	} else {
		tp->tflags &= ~TF_MORE;
		ust_tcp_output(stk, tp);
	}
	return (ssize_t)n;
}

int
ust_tcp_send_burst(struct ust_stack *stk, struct ust_sock *s,
		   struct rte_mbuf **pkts, unsigned int n)
{
	struct ust_tcp_sock *tp = tcp_sk(s);
	uint32_t seq = tp->snd_buf_seq + tp->snd_buffered;
	struct rte_mbuf *prev = tp->sndq.tail;
	bool empty = tp->snd_buffered == 0;
	unsigned int i;
	int rc;

	rc = ust_tcp_send_state_error(tp);
	if (rc != 0)
		return rc;
	/* the queue may go over sndbuf by the last mbuf taken, as Linux's
	 * by its last skb */
	for (i = 0; i < n && tp->snd_buffered < s->sndbuf; i++) {
		struct rte_mbuf *m = pkts[i];

		if (m->pkt_len == 0) {
			rte_pktmbuf_free(m);
			continue;
		}
		tp->snd_buffered += m->pkt_len;
		ust_tcp_sndq_push(stk, tp, m);
	}
	if (i < n)
		tp->tflags |= TF_NOSPACE; /* (TCP_INFO's sndbuf-limited) */
	if (i == 0 && n > 0)
		return -EAGAIN;
	ust_tcp_fpush_burst(stk, tp, prev, seq);
	ust_tcp_tx_note_write(tp, seq, tp->snd_buf_seq + tp->snd_buffered - seq,
			  empty);
	ust_tcp_output(stk, tp);
	return (int)i;
}

/* ---- RECEIVE ---- */

/* Nothing to read: what recv() says. */
static int
tcp_recv_empty(struct ust_tcp_sock *tp)
{
	int err = tp->base.so_error;

	if (err != 0) {
		tp->base.so_error = 0;
		return -err;
	}
	if (tp->tflags & (TF_FIN_RCVD | TF_SHUT_RD))
		return 0;
	switch (tp->state) {
	case UST_TCP_LISTEN:
		return -ENOTCONN;
	case UST_TCP_CLOSED:
		return (tp->tflags & TF_WAS_CONN) ? 0 : -ENOTCONN;
	default:
		return -EAGAIN;
	}
}

/* Where a measure of what the application reads per RTT starts (Linux's
 * tcp_init_buffer_space() and the end of tcp_rcv_space_adjust()). */
void
ust_tcp_rcv_space_init(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	tp->rcvq_space = RTE_MIN(ust_tcp_rcv_window(tp),
				 10u * tp->rcv_mss);
	tp->rcvq_seq = tp->rcv_nxt - tp->rcv_buffered;
	tp->rcvq_time = (uint32_t)(stk->now >> 10);
}

/*
 * Receive-buffer autotuning (Linux's tcp_rcv_space_adjust(), "dynamic
 * right-sizing"): once an RTT, when the application read more than in the
 * last measured RTT, the buffer grows to hold twice that (and 16 segments
 * more), plus twice the growth, as the sender may still be speeding up;
 * the window follows (half the buffer), up to rmem_max. Not after
 * SO_RCVBUF, nor with [tcp] moderate_rcvbuf = 0. The RTT is the
 * connection's SRTT (Linux keeps a receiver's estimate apart; ustack's
 * SRTT has the handshake's sample at least). A receiver that reads as
 * fast as data comes gets a buffer that holds what a loss keeps waiting:
 * a fixed buffer closes the window during each recovery, and the sender
 * then stalls, or (an echo) both directions do.
 */
static void
tcp_rcv_space_adjust(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	uint32_t now = (uint32_t)(stk->now >> 10);
	uint32_t rtt_us = tp->srtt_us >> 3;
	uint32_t copied_seq = tp->rcv_nxt - tp->rcv_buffered;
	uint32_t copied = copied_seq - tp->rcvq_seq;

	if (rtt_us == 0 ||
	    ((uint64_t)(now - tp->rcvq_time) << 10) < (uint64_t)rtt_us * 1000)
		return;
	if (copied > tp->rcvq_space) {
		if (stk->conf.tcp.moderate_rcvbuf &&
		    !(tp->base.flags & UST_SKF_RCVBUF_LOCK)) {
			uint64_t space = RTE_MAX(tp->rcvq_space, 1u);
			uint64_t win = 2 * (uint64_t)copied +
				16u * (uint64_t)tp->rcv_mss;
			uint64_t buf;

			/* the sender may be in slow start */
			win += 2 * (win * (copied - space) / space);
			/* the window is half the buffer (ust_tcp_rcv_window) */
			buf = RTE_MIN(2 * win,
				      (uint64_t)stk->conf.tcp.rmem_max);
			if (buf > tp->rcvbuf)
				tp->rcvbuf = (uint32_t)buf;
		}
		tp->rcvq_space = copied;
	}
	tp->rcvq_seq = copied_seq;
	tp->rcvq_time = now;
}

/* Reading made room: tell the peer when the window it knows has at least
 * doubled and grown by a segment (receiver SWS avoidance, RFC 9293
 * 3.8.6.2.2; Linux's tcp_cleanup_rbuf() rule). */
static void
tcp_read_done(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	uint32_t cur, win;

	if (tp->state != UST_TCP_ESTABLISHED &&
	    tp->state != UST_TCP_FIN_WAIT_1 && tp->state != UST_TCP_FIN_WAIT_2)
		return;
	tcp_rcv_space_adjust(stk, tp);
	cur = SEQ_GT(tp->rcv_adv, tp->rcv_nxt) ? tp->rcv_adv - tp->rcv_nxt : 0;
	win = ust_tcp_rcv_window(tp);
	if (win > cur && win >= 2 * cur &&
	    win - cur >= RTE_MIN((uint32_t)tp->rcv_mss, tp->rcvbuf / 4)) {
		tp->tflags |= TF_WIN_UPDATE;
		ust_tcp_output(stk, tp);
	}
}

/* Take the head of the receive queue: its memory goes back. */
static struct rte_mbuf *
rcvq_take(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	int off = stk->meta_off;
	struct rte_mbuf *m = ust_pktq_pop(off, &tp->rcvq);

	ust_tcp_rmem_uncharge(stk, tp, ust_meta(off, m)->truesize,
			  tp->rcvq.len + tp->ofoq.len > 0 ? 1 : 0);
	return m;
}

ssize_t
ust_tcp_recv(struct ust_stack *stk, struct ust_sock *s, void *buf,
	     size_t len, int flags)
{
	struct ust_tcp_sock *tp = tcp_sk(s);
	int off = stk->meta_off;
	bool peek = (flags & MSG_PEEK) != 0;
	uint32_t moff = tp->rcv_head_off;
	struct rte_mbuf *m = tp->rcvq.head;
	uint8_t *dst = buf;
	size_t done = 0;

	if (tp->rcv_buffered == 0)
		return tcp_recv_empty(tp);
	while (done < len && m != NULL) {
		uint32_t k = (uint32_t)RTE_MIN(len - done,
					       (size_t)(m->pkt_len - moff));
		const void *src = rte_pktmbuf_read(m, moff, k, dst + done);

		if (src != dst + done)
			memcpy(dst + done, src, k);
		done += k;
		moff += k;
		if (moff < m->pkt_len)
			break;
		moff = 0;
		if (peek) {
			m = ust_meta(off, m)->nextpkt;
		} else {
			rte_pktmbuf_free(rcvq_take(stk, tp));
			m = tp->rcvq.head;
		}
	}
	if (!peek) {
		tp->rcv_head_off = moff;
		tp->rcv_buffered -= (uint32_t)done;
		tcp_read_done(stk, tp);
	}
	return (ssize_t)done;
}

int
ust_tcp_recv_burst(struct ust_stack *stk, struct ust_sock *s,
		   struct rte_mbuf **pkts, unsigned int n)
{
	struct ust_tcp_sock *tp = tcp_sk(s);
	unsigned int i = 0;

	if (tp->rcv_buffered == 0)
		return tcp_recv_empty(tp);
	while (i < n && tp->rcvq.head != NULL) {
		struct rte_mbuf *m = rcvq_take(stk, tp);

		if (tp->rcv_head_off != 0) {
			/* the part read by ust_recv() already */
			m = ust_mbuf_adj(stk->meta_off, m, tp->rcv_head_off);
			tp->rcv_head_off = 0;
		}
		tp->rcv_buffered -= m->pkt_len;
		pkts[i++] = m;
	}
	tcp_read_done(stk, tp);
	return (int)i;
}

/* ---- SHUTDOWN, CLOSE (RFC 9293 3.10.4) ---- */

/* No more data from us: the FIN goes after what is queued. */
static void
tcp_shut_wr(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	if (tp->tflags & TF_FIN_QUEUED)
		return;
	switch (tp->state) {
	case UST_TCP_SYN_RECEIVED:
		/* (of a simultaneous open) the FIN waits for ESTABLISHED
		 * (RFC 9293 3.10.4), while the SYN-ACK is retransmitted */
		tp->tflags |= TF_FIN_QUEUED;
		return;
	case UST_TCP_ESTABLISHED:
		ust_tcp_set_state(stk, tp, UST_TCP_FIN_WAIT_1);
		break;
	case UST_TCP_CLOSE_WAIT:
		ust_tcp_set_state(stk, tp, UST_TCP_LAST_ACK);
		break;
	default:
		return;
	}
	tp->tflags |= TF_FIN_QUEUED;
	ust_tcp_output(stk, tp);
}

int
ust_tcp_shutdown(struct ust_stack *stk, struct ust_sock *s, int how)
{
	struct ust_tcp_sock *tp = tcp_sk(s);

	if (how != SHUT_RD && how != SHUT_WR && how != SHUT_RDWR)
		return -EINVAL;
	switch (tp->state) {
	case UST_TCP_CLOSED:
	case UST_TCP_LISTEN:
		return -ENOTCONN;
	case UST_TCP_SYN_SENT:
		/* as Linux: the attempt is abandoned */
		ust_tcp_done(stk, tp);
		return 0;
	default:
		break;
	}
	if (how != SHUT_WR) {
		tp->tflags |= TF_SHUT_RD;
		ust_tcp_wakeup(tp);
	}
	if (how != SHUT_RD)
		tcp_shut_wr(stk, tp);
	return 0;
}

void
ust_tcp_close(struct ust_stack *stk, struct ust_sock *s)
{
	struct ust_tcp_sock *tp = tcp_sk(s);

	switch (tp->state) {
	case UST_TCP_LISTEN:
		ust_tcp_listen_close(stk, tp);
		ust_tcp_set_state(stk, tp, UST_TCP_CLOSED);
		ust_tcp_sock_free(stk, tp);
		return;
	case UST_TCP_CLOSED:
		ust_tcp_purge_queues(stk, tp, true);
		ust_tcp_sock_free(stk, tp);
		return;
	case UST_TCP_SYN_SENT:
		tp->tflags |= TF_ORPHAN;
		ust_tcp_done(stk, tp);
		return;
	default:
		break;
	}
	tp->tflags |= TF_ORPHAN;
	if (stk->dying) {
		ust_tcp_abort(stk, tp, 0, false);
		return;
	}
	if (tp->rcv_buffered > 0 || tp->linger_s == 0) {
		/* unread data is lost (RFC 2525 2.17), or SO_LINGER 0 asked
		 * for an abort: RST, not FIN */
		stk->mib[tp->linger_s == 0 ? UST_MIB_TCPEXT_TCPABORTONLINGER :
			 UST_MIB_TCPEXT_TCPABORTONCLOSE]++;
		ust_tcp_abort(stk, tp, 0, true);
		return;
	}
	if (tp->state == UST_TCP_FIN_WAIT_2 &&
	    tp->rtx_mode != UST_RTX_FIN_WAIT2)
		ust_tcp_rtx_arm(stk, tp, UST_RTX_FIN_WAIT2,
			    (uint64_t)stk->conf.tcp.fin_timeout_ms * NS_PER_MS);
	tcp_shut_wr(stk, tp);
}

/* ---- options ---- */

static int
get_int(const void *val, socklen_t len, int *v)
{
	if (val == NULL || len < (socklen_t)sizeof(int))
		return -EINVAL;
	memcpy(v, val, sizeof(*v));
	return 0;
}

static int
tcp_set_sol_socket(struct ust_tcp_sock *tp, int name, const void *val,
		   socklen_t len)
{
	struct ust_stack *stk = tp->base.stk;
	const struct ust_tcp_conf *c = &stk->conf.tcp;
	struct linger lg;
	int v, rc;

	if (name == SO_LINGER) {
		if (val == NULL || len < (socklen_t)sizeof(lg))
			return -EINVAL;
		memcpy(&lg, val, sizeof(lg));
		tp->linger_s = lg.l_onoff ? RTE_MAX(lg.l_linger, 0) : -1;
		return 0;
	}
	rc = get_int(val, len, &v);
	if (rc != 0)
		return rc;
	switch (name) {
	case SO_RCVBUF:
	case SO_RCVBUFFORCE:
		tp->rcvbuf = ust_mem_rcvbuf_from_user((uint32_t)v, c->rmem_max,
						      name == SO_RCVBUFFORCE);
		tp->base.flags |= UST_SKF_RCVBUF_LOCK;
		return 0;
	case SO_SNDBUF:
	case SO_SNDBUFFORCE:
		tp->base.sndbuf = ust_mem_sndbuf_from_user((uint32_t)v,
			c->wmem_max, name == SO_SNDBUFFORCE);
		tp->base.flags |= UST_SKF_SNDBUF_LOCK;
		ust_tcp_wakeup(tp);
		return 0;
	case SO_KEEPALIVE:
		if (v) {
			tp->tflags |= TF_KEEPALIVE;
			ust_tcp_keepalive_reset(stk, tp);
		} else {
			tp->tflags &= ~TF_KEEPALIVE;
			if (tp->rtx_mode == UST_RTX_KEEPALIVE)
				ust_tcp_rtx_stop(stk, tp);
		}
		return 0;
	default:
		return -ENOPROTOOPT;
	}
}

static int
tcp_set_sol_tcp(struct ust_tcp_sock *tp, int name, const void *val,
		socklen_t len)
{
	struct ust_stack *stk = tp->base.stk;
	int v, rc;

	if (name == TCP_CONGESTION) {
		char cname[16];
		const struct ust_tcp_cc_ops *ops;

		if (val == NULL || len < 1)
			return -EINVAL;
		memset(cname, 0, sizeof(cname));
		memcpy(cname, val, RTE_MIN((size_t)len, sizeof(cname) - 1));
		ops = ust_tcp_cc_find(cname);
		if (ops == NULL)
			return -ENOENT;
		if (ops != tp->cc) {
			tp->cc = ops;
			ops->init(stk, tp);
		}
		return 0;
	}
	rc = get_int(val, len, &v);
	if (rc != 0)
		return rc;
	switch (name) {
	case TCP_NODELAY:
		if (v) {
			tp->tflags |= TF_NODELAY;
			/* what Nagle held goes now, and once a partial
			 * segment that TCP_CORK holds, as Linux's
			 * TCP_NAGLE_PUSH (the socket stays corked) */
			ust_tcp_cork_expired(stk, tp);
		} else {
			tp->tflags &= ~TF_NODELAY;
		}
		return 0;
	case TCP_MAXSEG:
		/* the user's MSS clamp (Linux's user_mss): the MSS we
		 * announce, within what the MTU and one mbuf carry, and a
		 * bound on the one we send. Before connect(), or on a
		 * listener, whose connections inherit it (their SYN-ACKs
		 * announce it); 0, the default, as Linux. On a connection
		 * EINVAL: the handshake agreed the MSS (Linux takes the
		 * value and ignores it). */
		if (tp->state != UST_TCP_CLOSED && tp->state != UST_TCP_LISTEN)
			return -EINVAL;
		if (v != 0 && (v < UST_TCP_MIN_MSS || v > UINT16_MAX))
			return -EINVAL;
		tp->rcv_mss = v == 0 ? ust_tcp_local_mss(stk) :
			(uint16_t)RTE_MIN((uint32_t)v,
					  (uint32_t)ust_tcp_local_mss(stk));
		return 0;
	case TCP_CORK:
		if (v) {
			tp->corked = true;
			return 0;
		}
		tp->corked = false;
		if (ust_timer_armed(&tp->cork_timer))
			ust_timer_cancel(&stk->tcp->wheel, &tp->cork_timer);
		/* as Linux: uncorking pushes what is pending, a partial
		 * segment too, whatever Nagle says */
		ust_tcp_cork_expired(stk, tp);
		return 0;
	case TCP_NOTSENT_LOWAT:
		if (v < 0)
			return -EINVAL;
		tp->notsent_lowat = (uint32_t)v;
		ust_tcp_wakeup(tp);
		return 0;
	case TCP_USER_TIMEOUT:
		/* milliseconds; 0: the retry counts decide (RFC 5482) */
		if (v < 0)
			return -EINVAL;
		tp->user_timeout_ms = (uint32_t)v;
		return 0;
	case TCP_INQ:
		if (v < 0 || v > 1)
			return -EINVAL;
		tp->inq = v != 0;
		return 0;
	case TCP_QUICKACK:
		if (v) {
			tp->tflags |= TF_QUICKACK;
			if (tp->tflags & TF_DELACK) {
				tp->tflags |= TF_ACK_NOW;
				ust_tcp_output(stk, tp);
			}
		} else {
			tp->tflags &= ~TF_QUICKACK;
		}
		return 0;
	case TCP_KEEPIDLE:
	case TCP_KEEPINTVL:
		if (v < 1 || v > UST_TCP_KEEP_MAX_S)
			return -EINVAL;
		if (name == TCP_KEEPIDLE) {
			tp->keep_idle_ms = (uint32_t)v * 1000;
			if (tp->rtx_mode == UST_RTX_KEEPALIVE && tp->probes == 0)
				ust_tcp_keepalive_reset(stk, tp);
		} else {
			tp->keep_intvl_ms = (uint32_t)v * 1000;
		}
		return 0;
	case TCP_KEEPCNT:
		if (v < 1 || v > UST_TCP_KEEP_MAX_CNT)
			return -EINVAL;
		tp->keep_cnt = (uint8_t)v;
		return 0;
	default:
		return -ENOPROTOOPT;
	}
}


/* An IPPROTO_IP option's value: an int, or a single byte (Linux takes
 * either for its integer IP options). */
static int
ip_opt_int(const void *val, socklen_t len, int *v)
{
	if (val == NULL)
		return -EFAULT;
	if (len >= (socklen_t)sizeof(int))
		*v = *(const int *)val;
	else if (len >= 1)
		*v = *(const uint8_t *)val;
	else
		return -EINVAL;
	return 0;
}

int
ust_tcp_setsockopt(struct ust_sock *s, int level, int name, const void *val,
		   socklen_t len)
{
	struct ust_tcp_sock *tp = tcp_sk(s);

	if (level == SOL_SOCKET)
		return tcp_set_sol_socket(tp, name, val, len);
	if (level == IPPROTO_TCP)
		return tcp_set_sol_tcp(tp, name, val, len);
	if (level == IPPROTO_IP && name == IP_TOS) {
		int v, rc = ip_opt_int(val, len, &v);

		if (rc != 0)
			return rc;
		/* the ECN bits are the stack's (RFC 3168 6.1.1), not the
		 * user's, as Linux does for a stream socket */
		tp->tos = (uint8_t)(v & 0xfc);
		return 0;
	}
	if (level == IPPROTO_IP && name == IP_MTU_DISCOVER) {
		int v, rc = ip_opt_int(val, len, &v);

		if (rc != 0)
			return rc;
		/* DONT: no DF, and ICMP's MTU is not used; WANT, DO and
		 * PROBE: DF, and fragmentation-needed lowers the MSS.
		 * (INTERFACE and OMIT are refused as for a TCP socket
		 * they would only differ in what ustack does not do.) */
		if (v < IP_PMTUDISC_DONT || v > IP_PMTUDISC_PROBE)
			return -EINVAL;
		tp->pmtudisc = (uint8_t)v;
		return 0;
	}
	if (level == UST_SOL_USTACK &&
	    (name == UST_TCP_TX_LAYOUT || name == UST_TCP_COPY_SMALL)) {
		struct ust_stack *stk = s->stk;
		int v, rc;

		if (len < (socklen_t)sizeof(int))
			return -EINVAL;
		memcpy(&v, val, sizeof(v));
		if (name == UST_TCP_TX_LAYOUT) {
			rc = ust_tcp_tx_layout_check(stk, (unsigned int)v);
			if (v < 0 || rc != 0)
				return v < 0 ? -EINVAL : rc;
			tp->tx_layout = (uint8_t)v;
			return 0;
		}
		if (v < 0 || v > (int)UST_TCP_COPY_SMALL_MAX)
			return -EINVAL;
		if (v > 0) {
			rc = ust_tcp_tx_small_pool(stk);
			if (rc != 0)
				return rc;
		}
		tp->copy_small = (uint16_t)v;
		return 0;
	}
	return -ENOPROTOOPT;
}

static void
tcp_info_fill(const struct ust_tcp_sock *tp, struct ust_tcp_info *ti)
{
	uint8_t o = 0;

	memset(ti, 0, sizeof(*ti));
	ti->state = tp->state;
	if (tp->tflags & TF_WS_OK)
		o |= UST_TCPOPT_WS;
	if (tp->tflags & TF_SACK_OK)
		o |= UST_TCPOPT_SACK_PERM;
	if (tp->tflags & TF_TS_OK)
		o |= UST_TCPOPT_TS;
	ti->options = o;
	ti->snd_wscale = tp->snd_wscale;
	ti->rcv_wscale = tp->rcv_wscale;
	ti->backoff = tp->backoff;
	ti->in_recovery = (tp->tflags & TF_RECOVERY) != 0;
	ti->mss = tp->mss;
	ti->rto_us = tp->rto_us;
	ti->srtt_us = tp->srtt_us >> 3;
	ti->rttvar_us = tp->rttvar_us >> 2;
	ti->cwnd = tp->cwnd;
	ti->ssthresh = tp->ssthresh;
	ti->snd_wnd = tp->snd_wnd;
	ti->rcv_wnd = tp->rcv_wnd;
	ti->unacked = tp->snd_max - tp->snd_una;
	ti->sacked = tp->sacked_bytes;
	ti->snd_buffered = tp->snd_buffered;
	ti->rcv_buffered = tp->rcv_buffered;
	ti->ofo_segs = tp->ofo_segs;
	ti->segs_in = tp->segs_in;
	ti->segs_out = tp->segs_out;
	ti->retrans = tp->retrans;
	ti->tx_pkts = tp->tx_pkts;
	ti->tx_segs = tp->tx_segs;
	ti->tx_pages = tp->tx_pages;
	ti->tx_copied = tp->tx_copied;
	ti->tx_layout = tp->tx_layout;
	ti->copy_small = tp->copy_small;
	ti->bytes_acked = tp->bytes_acked_total;
	ti->bytes_received = tp->bytes_received;
	snprintf(ti->congestion, sizeof(ti->congestion), "%s", tp->cc->name);
}

void
ust_tcp_meminfo(const struct ust_sock *s, struct ust_sock_meminfo *mi)
{
	const struct ust_tcp_sock *tp = (const struct ust_tcp_sock *)s;
	int off = s->stk->meta_off;
	const struct ust_pktq *qs[2] = { &tp->rcvq, &tp->ofoq };
	unsigned int i;

	memset(mi, 0, sizeof(*mi));
	mi->rcvbuf = tp->rcvbuf;
	mi->rmem_alloc = tp->rmem_alloc;
	mi->rmem_alloc_hw = tp->rmem_alloc;
	mi->forward_alloc = tp->fwd_alloc;
	mi->forward_alloc_hw = tp->fwd_alloc;
	mi->sndbuf = s->sndbuf;
	mi->wmem_queued = tp->snd_buffered;
	for (i = 0; i < RTE_DIM(qs); i++) {
		struct rte_mbuf *m;

		for (m = qs[i]->head; m != NULL;
		     m = ust_meta(off, m)->nextpkt) {
			mi->queued++;
			mi->queued_truesize += ust_meta(off, m)->truesize;
		}
	}
}

int
ust_tcp_getsockopt(struct ust_sock *s, int level, int name, void *val,
		   socklen_t *len)
{
	struct ust_tcp_sock *tp = tcp_sk(s);

	if (val == NULL || len == NULL)
		return -EINVAL;
	if (level == SOL_SOCKET) {
		switch (name) {
		case SO_RCVBUF:
			return ust_sockopt_put_int(val, len, (int)tp->rcvbuf);
		case SO_SNDBUF:
			return ust_sockopt_put_int(val, len, (int)s->sndbuf);
		case SO_KEEPALIVE:
			return ust_sockopt_put_int(val, len,
				       !!(tp->tflags & TF_KEEPALIVE));
		case SO_ACCEPTCONN:
			return ust_sockopt_put_int(val, len, tp->state == UST_TCP_LISTEN);
		case SO_ERROR: {
			int err = s->so_error;

			if (*len < (socklen_t)sizeof(int))
				return -EINVAL;
			s->so_error = 0;
			/* as Linux: else the soft error (an ICMP error the
			 * connection survived), reported once too */
			if (err == 0) {
				err = tp->soft_err;
				tp->soft_err = 0;
			}
			return ust_sockopt_put_int(val, len, err);
		}
		case SO_LINGER: {
			struct linger lg = {
				.l_onoff = tp->linger_s >= 0,
				.l_linger = tp->linger_s >= 0 ? tp->linger_s : 0,
			};

			if (*len < (socklen_t)sizeof(lg))
				return -EINVAL;
			memcpy(val, &lg, sizeof(lg));
			*len = sizeof(lg);
			return 0;
		}
		default:
			return -ENOPROTOOPT;
		}
	}
	if (level == IPPROTO_TCP) {
		switch (name) {
		case TCP_NODELAY:
			return ust_sockopt_put_int(val, len, !!(tp->tflags & TF_NODELAY));
		case TCP_MAXSEG:
			return ust_sockopt_put_int(val, len, (tp->tflags & TF_WAS_CONN) ?
				       tp->mss : tp->rcv_mss);
		case TCP_QUICKACK:
			return ust_sockopt_put_int(val, len, !!(tp->tflags & TF_QUICKACK));
		case TCP_KEEPIDLE:
			return ust_sockopt_put_int(val, len, (int)(tp->keep_idle_ms / 1000));
		case TCP_KEEPINTVL:
			return ust_sockopt_put_int(val, len,
				       (int)(tp->keep_intvl_ms / 1000));
		case TCP_KEEPCNT:
			return ust_sockopt_put_int(val, len, (int)tp->keep_cnt);
		case TCP_CORK:
			return ust_sockopt_put_int(val, len, tp->corked);
		case TCP_NOTSENT_LOWAT:
			return ust_sockopt_put_int(val, len,
						   (int)tp->notsent_lowat);
		case TCP_USER_TIMEOUT:
			return ust_sockopt_put_int(val, len,
						   (int)tp->user_timeout_ms);
		case TCP_INQ:
			/* as Linux's getsockopt(TCP_INQ): the option's value
			 * (recvmsg_inq); the bytes waiting are SIOCINQ's and
			 * the TCP_CM_INQ control message's (UST_TCP_INFO's
			 * rcv_buffered here) */
			return ust_sockopt_put_int(val, len, tp->inq);
		case TCP_INFO:
			return ust_tcp_info_linux(tp, val, len);
		case TCP_CONGESTION: {
			size_t n = strlen(tp->cc->name) + 1;

			if (*len < 1)
				return -EINVAL;
			n = RTE_MIN(n, (size_t)*len);
			memcpy(val, tp->cc->name, n);
			*len = (socklen_t)n;
			return 0;
		}
		default:
			return -ENOPROTOOPT;
		}
	}
	if (level == IPPROTO_IP) {
		switch (name) {
		case IP_MTU_DISCOVER:
			return ust_sockopt_put_int(val, len, tp->pmtudisc);
		case IP_TOS:
			return ust_sockopt_put_int(val, len, tp->tos);
		case IP_MTU:
			/* as Linux: the path MTU of a connected socket */
			if (tp->state == UST_TCP_CLOSED ||
			    tp->state == UST_TCP_LISTEN)
				return -ENOTCONN;
			return ust_sockopt_put_int(val, len, ust_tcp_pmtu(tp));
		default:
			return -ENOPROTOOPT;
		}
	}
	if (level == UST_SOL_USTACK &&
	    (name == UST_TCP_TX_LAYOUT || name == UST_TCP_COPY_SMALL)) {
		int v = name == UST_TCP_TX_LAYOUT ? tp->tx_layout :
			tp->copy_small;

		if (*len < (socklen_t)sizeof(v))
			return -EINVAL;
		memcpy(val, &v, sizeof(v));
		*len = sizeof(v);
		return 0;
	}
	if (level == UST_SOL_USTACK && name == UST_TCP_INFO) {
		struct ust_tcp_info ti;

		if (*len < (socklen_t)sizeof(ti))
			return -EINVAL;
		tcp_info_fill(tp, &ti);
		memcpy(val, &ti, sizeof(ti));
		*len = sizeof(ti);
		return 0;
	}
	if (level == UST_SOL_USTACK && name == UST_SO_MEMINFO) {
		struct ust_sock_meminfo mi;

		if (*len < (socklen_t)sizeof(mi))
			return -EINVAL;
		ust_tcp_meminfo(s, &mi);
		memcpy(val, &mi, sizeof(mi));
		*len = sizeof(mi);
		return 0;
	}
	return -ENOPROTOOPT;
}

/* ---- readiness ---- */

uint32_t
ust_tcp_events(const struct ust_sock *s)
{
	const struct ust_tcp_sock *tp = (const struct ust_tcp_sock *)s;
	uint32_t ev = 0;

	if (s->so_error != 0)
		ev |= UST_EPOLLERR;
	switch (tp->state) {
	case UST_TCP_LISTEN:
		if (tp->listen->acceptq_len > 0)
			ev |= UST_EPOLLIN;
		return ev;
	case UST_TCP_SYN_SENT:
	case UST_TCP_SYN_RECEIVED:
		return ev;
	case UST_TCP_CLOSED:
		/* as Linux: a closed socket reads (EOF or its error) and
		 * hangs up */
		return ev | UST_EPOLLHUP | UST_EPOLLIN |
			((tp->tflags & TF_FIN_RCVD) ? UST_EPOLLRDHUP : 0);
	default:
		break;
	}
	if (tp->rcv_buffered > 0 || (tp->tflags & (TF_FIN_RCVD | TF_SHUT_RD)))
		ev |= UST_EPOLLIN;
	if (tp->tflags & TF_FIN_RCVD)
		ev |= UST_EPOLLRDHUP;
	/* writable: room in the send buffer and, with TCP_NOTSENT_LOWAT,
	 * fewer bytes not yet sent than the mark (Linux's
	 * tcp_stream_memory_free()) */
	if ((tp->state == UST_TCP_ESTABLISHED ||
	     tp->state == UST_TCP_CLOSE_WAIT) &&
	    !(tp->tflags & TF_FIN_QUEUED) && tp->snd_buffered < s->sndbuf &&
	    (tp->notsent_lowat == 0 ||
	     tcp_notsent_bytes(tp) < tp->notsent_lowat))
		ev |= UST_EPOLLOUT;
	if ((tp->tflags & (TF_FIN_RCVD | TF_FIN_QUEUED)) ==
	    (TF_FIN_RCVD | TF_FIN_QUEUED))
		ev |= UST_EPOLLHUP;
	return ev;
}

/* ---- the socket-ops table (struct ust_sock_ops, lib/sock) ---- */


/* A connection's destination is its peer's: a given one is ignored (as
 * Linux). */
static ssize_t
tcp_sock_sendto(struct ust_stack *stk, struct ust_sock *s, const void *buf,
		size_t len, int flags, const struct ust_saddr *to)
{
	RTE_SET_USED(to);
	return ust_tcp_send(stk, s, buf, len, flags);
}

static ssize_t
tcp_sock_recvfrom(struct ust_stack *stk, struct ust_sock *s, void *buf,
		  size_t len, int flags, struct ust_saddr *from)
{
	if (flags & MSG_TRUNC)
		return -EOPNOTSUPP;
	if (from != NULL)
		tcp_peer_saddr(s, from);
	return ust_tcp_recv(stk, s, buf, len, flags);
}

static int
tcp_sock_recv_burst(struct ust_stack *stk, struct ust_sock *s,
		    struct rte_mbuf **pkts, unsigned int n,
		    union ust_sockaddr *from)
{
	if (from != NULL) {
		struct ust_saddr a;

		tcp_peer_saddr(s, &a);
		ust_saddr_to(s, &a, from);
	}
	return ust_tcp_recv_burst(stk, s, pkts, n);
}

static int
tcp_sock_send_burst(struct ust_stack *stk, struct ust_sock *s,
		    struct rte_mbuf **pkts, unsigned int n,
		    const union ust_sockaddr *to)
{
	if (to != NULL)
		return -EISCONN;
	return ust_tcp_send_burst(stk, s, pkts, n);
}

static const struct ust_sock_ops tcp_sock_ops = {
	.type = SOCK_STREAM,
	.protocol = IPPROTO_TCP,
	.create = ust_tcp_create,
	.close = ust_tcp_close,
	.bind = ust_tcp_bind,
	.connect = ust_tcp_connect,
	.listen = ust_tcp_listen,
	.accept = ust_tcp_accept,
	.shutdown = ust_tcp_shutdown,
	.sendto = tcp_sock_sendto,
	.recvfrom = tcp_sock_recvfrom,
	.send_burst = tcp_sock_send_burst,
	.recv_burst = tcp_sock_recv_burst,
	.send_zc = ust_tcp_send_zc,
	.setsockopt = ust_tcp_setsockopt,
	.getsockopt = ust_tcp_getsockopt,
	.events = ust_tcp_events,
};

int
ust_tcp_sock_register(struct ust_stack *stk)
{
	return ust_sock_register(stk, UST_SK_TCP, &tcp_sock_ops);
}
