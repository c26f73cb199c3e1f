/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Listeners (RFC 9293 3.10.7.2, "LISTEN STATE"): the SYN queue of
 * half-open entries, SYN cookies when it is full (RFC 4987 3.6), and the
 * accept queue.
 *
 * How it is called: ust_tcp_listen_input() for a segment to a listening port
 * with no connection; ust_tcp_req_input() for a segment to a half-open entry
 * (the handshake's last ACK makes it a connection); ust_tcp_req_timeout() when
 * a SYN-ACK is due again; ust_tcp_listen_close() from close().
 *
 * Memory for half-open connections is bounded: entries come from a pool of
 * max_syn_backlog, a listener holds at most min(backlog, max_syn_backlog),
 * and beyond that the state lives in the SYN-ACK's sequence number (a
 * cookie) and in the peer's echo of our timestamp.
 */

#include <errno.h>
#include <string.h>

#include <rte_hash.h>
#include <rte_mempool.h>

#include "tcp_cc.h"
#include "tcp_private.h"

#define NS_PER_MS 1000000ull

/* The window a listener's SYN-ACK announces (unscaled): what its
 * children's receive buffer gives (ust_tcp_rcv_window() of an empty one, as
 * the listener's is). */
static uint16_t
tcp_initial_window(const struct ust_tcp_sock *lp)
{
	return (uint16_t)RTE_MIN(ust_tcp_rcv_window(lp), UST_TCP_MAX_WIN);
}

/* @rq's 4-tuple. */
static inline void
tcp_req_key(const struct ust_tcp_req *rq, struct ust_tcp_key *k)
{
	k->laddr = rq->laddr;
	k->raddr = rq->raddr;
	k->lport = rq->lport;
	k->rport = rq->rport;
	k->a6 = rq->a6;
}

static inline bool
tcp_any6(const uint8_t *a)
{
	static const uint8_t zero[UST_IPV6_ADDR_LEN];

	return memcmp(a, zero, sizeof(zero)) == 0;
}

/* The MSS listener @lp announces to the 4-tuple @k: its own, and over
 * IPv6 no more than IPv6's MTU carries (RFC 8200 5: 20 bytes more of
 * header). */
static inline uint16_t
tcp_listen_mss(const struct ust_stack *stk, const struct ust_tcp_sock *lp,
	       const struct ust_tcp_key *k)
{
	return k->a6 != NULL ? RTE_MIN(lp->rcv_mss, ust_tcp_local_mss6(stk)) :
		lp->rcv_mss;
}

static void
tcp_req_send_synack(struct ust_stack *stk, const struct ust_tcp_sock *lp,
		    const struct ust_tcp_key *k,
		    uint32_t iss, uint32_t irs, uint8_t agreed,
		    uint8_t rcv_wscale, uint16_t mss, uint32_t tsval,
		    uint32_t tsecr)
{
	struct ust_tcp_opts o;

	memset(&o, 0, sizeof(o));
	o.has = UST_TCPOPT_MSS;
	o.mss = mss;
	if (agreed & UST_TCPOPT_WS) {
		o.has |= UST_TCPOPT_WS;
		o.wscale = rcv_wscale;
	}
	if (agreed & UST_TCPOPT_SACK_PERM)
		o.has |= UST_TCPOPT_SACK_PERM;
	if (agreed & UST_TCPOPT_TS) {
		o.has |= UST_TCPOPT_TS;
		o.tsval = tsval;
		o.tsecr = tsecr;
	}
	ust_tcp_send_reply_df(stk, k, iss, irs + 1, UST_TCP_SYN | UST_TCP_ACK,
			      tcp_initial_window(lp), &o,
			      lp->pmtudisc != IP_PMTUDISC_DONT);
}

/* What both sides agree on, from the peer's SYN options. */
static uint8_t
tcp_agreed_options(const struct ust_stack *stk, const struct ust_tcp_opts *o)
{
	const struct ust_tcp_conf *c = &stk->conf.tcp;
	uint8_t a = 0;

	if (c->window_scaling && (o->has & UST_TCPOPT_WS))
		a |= UST_TCPOPT_WS;
	if (c->sack && (o->has & UST_TCPOPT_SACK_PERM))
		a |= UST_TCPOPT_SACK_PERM;
	if (c->timestamps && (o->has & UST_TCPOPT_TS))
		a |= UST_TCPOPT_TS;
	return a;
}

static void
synq_unlink(struct ust_tcp_listen *l, struct ust_tcp_req *rq)
{
	if (rq->prev != NULL)
		rq->prev->next = rq->next;
	else
		l->synq = rq->next;
	if (rq->next != NULL)
		rq->next->prev = rq->prev;
	l->synq_len--;
}

void
ust_tcp_req_free(struct ust_stack *stk, struct ust_tcp_req *rq, bool unhash)
{
	if (unhash) {
		struct ust_tcp_key k;

		tcp_req_key(rq, &k);
		ust_tcp_hash_del(stk, &k);
	}
	if (rq->a6 != NULL)
		ust_tcp_slab_put(&stk->tcp->a6_slab, rq->a6);
	ust_timer_cancel(&stk->tcp->wheel, &rq->timer);
	if (rq->listener != NULL)
		synq_unlink(rq->listener->listen, rq);
	stk->tcp->n_req--;
	if (rq->retries > 0)
		stk->tcp->n_req_stale--;
	rte_mempool_put(stk->tcp->req_pool, rq);
}

void
ust_tcp_req_timeout(struct ust_stack *stk, struct ust_tcp_req *rq)
{
	const struct ust_tcp_conf *c = &stk->conf.tcp;
	struct ust_tcp_key k;

	tcp_req_key(rq, &k);
	if ((uint32_t)rq->retries + 1 > c->synack_retries) {
		ust_tcp_req_free(stk, rq, true);
		return;
	}
	/* A bound on one wave of retransmissions: entries made by a SYN
	 * burst expire together, and each SYN-ACK takes an mbuf; at most
	 * synack_rtx_burst of them per poll (ust_tcp_poll() refills the
	 * budget), the others wait a tick and are sent by the next polls,
	 * their retry count and backoff unchanged. */
	if (stk->tcp->synack_budget == 0) {
		ust_timer_arm(&stk->tcp->wheel, &rq->timer,
			      stk->now + NS_PER_MS);
		return;
	}
	stk->tcp->synack_budget--;
	if (rq->retries++ == 0)
		stk->tcp->n_req_stale++;
	tcp_req_send_synack(stk, rq->listener, &k, rq->iss, rq->irs, rq->opts,
			    rq->rcv_wscale, tcp_listen_mss(stk, rq->listener, &k),
			    tcp_ts_now(stk, rq->ts_offset), rq->ts_recent);
	stk->mib[UST_MIB_TCP_RETRANSSEGS]++;
	ust_timer_arm(&stk->tcp->wheel, &rq->timer,
		      stk->now + ((uint64_t)c->rto_init_ms << rq->retries) *
		      NS_PER_MS);
}

void
ust_tcp_acceptq_add(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	struct ust_tcp_listen *l = tp->parent->listen;

	tp->accept_next = NULL;
	if (l->acceptq_tail != NULL)
		l->acceptq_tail->accept_next = tp;
	else
		l->acceptq_head = tp;
	l->acceptq_tail = tp;
	l->acceptq_len++;
	stk->tcp->n_acceptq++;
	if (tp->parent->base.ep != NULL)
		ust_sock_wakeup(&tp->parent->base);
}

/* A connection from a completed handshake (a half-open entry, or a valid
 * cookie): ESTABLISHED, hashed, in the accept queue. */
static struct ust_tcp_sock *
tcp_child_create(struct ust_stack *stk, struct ust_tcp_sock *lp,
		 const struct ust_tcp_key *k, struct ust_tcp_addr6 *a6,
		 uint32_t iss, uint32_t irs,
		 uint8_t agreed, uint16_t peer_mss, uint8_t snd_wscale,
		 uint8_t rcv_wscale, uint32_t ts_offset, uint32_t ts_recent)
{
	struct ust_tcp_sock *tp = ust_tcp_sock_alloc(stk);
	struct ust_tcp_opts o;

	if (tp == NULL) {
		if (a6 != NULL)
			ust_tcp_slab_put(&stk->tcp->a6_slab, a6);
		return NULL;
	}
	/* over IPv6 the addresses: @a6 when the caller had them in an
	 * object of its own (a half-open entry's), else a copy of @k's */
	if (k->a6 != NULL) {
		if (a6 == NULL) {
			a6 = ust_tcp_slab_get(&stk->tcp->a6_slab);
			if (a6 == NULL) {
				ust_tcp_sock_free(stk, tp);
				return NULL;
			}
			*a6 = *k->a6;
		}
		tp->a6 = a6;
		tp->base.inet6 |= UST_SK6_LOCAL6 | UST_SK6_REMOTE6;
	}
	tp->base.laddr = k->laddr;
	tp->base.raddr = k->raddr;
	tp->base.lport = k->lport;
	tp->base.rport = k->rport;
	tp->base.flags |= UST_SKF_BOUND | UST_SKF_CONNECTED;
	/* the listener's settings go to its children */
	tp->rcvbuf = lp->rcvbuf;
	tp->base.sndbuf = lp->base.sndbuf;
	tp->base.flags |= lp->base.flags &
		(UST_SKF_SNDBUF_LOCK | UST_SKF_RCVBUF_LOCK);
	tp->tflags |= (lp->tflags & (TF_NODELAY | TF_KEEPALIVE | TF_QUICKACK)) |
		TF_PASSIVE | TF_ORPHAN | TF_PORT_REF;
	stk->tcp->port_refs[rte_be_to_cpu_16(k->lport)]++;
	tp->linger_s = lp->linger_s;
	tp->cc = lp->cc;
	tp->keep_idle_ms = lp->keep_idle_ms;
	tp->keep_intvl_ms = lp->keep_intvl_ms;
	tp->keep_cnt = lp->keep_cnt;
	tp->tx_layout = lp->tx_layout;
	tp->copy_small = lp->copy_small;
	/* the options a listener's connections inherit, as Linux's clone */
	tp->pmtudisc = lp->pmtudisc;
	tp->tos = lp->tos;
	tp->notsent_lowat = lp->notsent_lowat;
	tp->user_timeout_ms = lp->user_timeout_ms;
	tp->corked = lp->corked;
	tp->inq = lp->inq;
	tp->iss = iss;
	tp->irs = irs;
	tp->snd_una = iss + 1;
	tp->snd_nxt = iss + 1;
	tp->snd_max = iss + 1;
	tp->rcv_nxt = irs + 1;
	tp->ts_offset = ts_offset;
	tp->rcv_mss = tcp_listen_mss(stk, lp, k);
	tp->rcv_wscale = rcv_wscale;
	memset(&o, 0, sizeof(o));
	o.has = (uint8_t)(agreed | UST_TCPOPT_MSS);
	o.mss = peer_mss;
	o.wscale = snd_wscale;
	o.tsval = ts_recent;
	ust_tcp_options_from_peer(stk, tp, &o, true);
	tp->rto_us = stk->conf.tcp.rto_init_ms * 1000;
	if (ust_tcp_hash_add(stk, k, tp, UST_TCP_OBJ_SOCK) < 0) {
		ust_tcp_sock_free(stk, tp);
		return NULL;
	}
	stk->tcp->n_conns++;
	ust_tcp_established(stk, tp);
	stk->mib[UST_MIB_TCP_PASSIVEOPENS]++;
	tp->parent = lp;
	ust_tcp_acceptq_add(stk, tp);
	return tp;
}

/* Descriptors left in the socket table for connections not yet in an
 * accept queue: each connection waiting there takes one when accepted. */
static uint32_t
tcp_sd_room(const struct ust_stack *stk)
{
	uint32_t free_sds = stk->sd_cap - stk->sd_used;

	if (stk->conf.tcp.listen_overcommit)
		return UINT32_MAX;
	return free_sds > stk->tcp->n_acceptq ?
		free_sds - stk->tcp->n_acceptq : 0;
}

/* No room for one more connection to accept: the backlog is reached, or
 * the socket table has no descriptor for it (it would finish its
 * handshake and wait for an accept() that fails with EMFILE). Counted as
 * Linux counts a full accept queue. */
static bool
acceptq_full(struct ust_stack *stk, struct ust_tcp_sock *lp)
{
	if (lp->listen->acceptq_len < lp->listen->backlog &&
	    tcp_sd_room(stk) > 0)
		return false;
	stk->mib[UST_MIB_TCPEXT_LISTENOVERFLOWS]++;
	stk->mib[UST_MIB_TCPEXT_LISTENDROPS]++;
	return true;
}

/* The handshake's last ACK with a SYN cookie in it. The cookie was made
 * from IRS, which only SEG.SEQ - 1 can give back: a cookie's connection
 * cannot start with its first data segment lost (the pure ACK after it
 * fails the check and gets a reset), the limit Linux's cookie_v4_check()
 * has too; a half-open entry has no such limit (ust_tcp_req_input()). */
static void
tcp_cookie_ack(struct ust_stack *stk, struct ust_tcp_sock *lp,
	       struct rte_mbuf *m, const struct ust_tcp_key *k,
	       const struct ust_tcp_repr *th, uint32_t seg_len)
{
	uint32_t irs = th->seq - 1, iss = th->ack - 1;
	uint8_t agreed = 0, snd_ws = 0, rcv_ws = ust_tcp_choose_wscale(stk);
	struct ust_tcp_sock *tp;
	int idx = ust_tcp_cookie_check(stk, k, irs, iss);

	if (idx < 0) {
		stk->mib[UST_MIB_TCPEXT_SYNCOOKIESFAILED]++;
		ust_tcp_reset_reply(stk, k, th, seg_len);
		ust_drop(stk, m, UST_DROP_NO_SOCKET);
		return;
	}
	if (acceptq_full(stk, lp)) {
		ust_drop(stk, m, UST_DROP_TCP_LISTEN_OVERFLOW);
		return;
	}
	/* our timestamp, echoed, carries what the SYN offered: the peer's
	 * window scale (4 bits, 15 for none) and SACK-permitted (1 bit); our
	 * own shift is ust_tcp_choose_wscale(), the same for every SYN-ACK */
	if (th->opts.has & UST_TCPOPT_TS) {
		uint32_t e = th->opts.tsecr;

		agreed |= UST_TCPOPT_TS;
		if ((e & 0xf) != 0xf) {
			agreed |= UST_TCPOPT_WS;
			snd_ws = (uint8_t)RTE_MIN(e & 0xf,
						  (uint32_t)UST_TCP_MAX_WSCALE);
		}
		if (e & 0x10)
			agreed |= UST_TCPOPT_SACK_PERM;
	}
	if (!(agreed & UST_TCPOPT_WS))
		rcv_ws = 0;
	stk->mib[UST_MIB_TCPEXT_SYNCOOKIESRECV]++;
	tp = tcp_child_create(stk, lp, k, NULL, iss, irs, agreed,
			      ust_tcp_cookie_mss(k)[idx], snd_ws, rcv_ws,
			      ust_tcp_ts_offset(stk, k), th->opts.tsval);
	if (tp == NULL) {
		stk->mib[UST_MIB_TCPEXT_LISTENDROPS]++;
		ust_drop(stk, m, UST_DROP_TCP_LISTEN_OVERFLOW);
		return;
	}
	tp->snd_wnd = (uint32_t)th->window << tp->snd_wscale;
	tp->snd_wnd_max = tp->snd_wnd;
	tp->snd_wl1 = th->seq;
	tp->snd_wl2 = th->ack;
	/* the rest of the segment (data, FIN) as any connection's */
	ust_tcp_rcv_init(tp, tcp_initial_window(lp));
	ust_tcp_rcv_established(stk, tp, m, th, seg_len);
}

bool
ust_tcp_listen_takes(const struct ust_tcp_sock *lp,
		     const struct ust_tcp_key *k)
{
	const struct ust_sock *s = &lp->base;
	bool any6 = (s->inet6 & UST_SK6_LOCAL6) &&
		tcp_any6(ust_sock_laddr6(s));

	if (k->a6 == NULL)
		/* IPv4: an AF_INET socket, or a dual-stack one on :: */
		return !(s->inet6 & UST_SK6_INET6) ||
			(!(s->inet6 & UST_SK6_V6ONLY) &&
			 (!(s->inet6 & UST_SK6_LOCAL6) || any6));
	/* IPv6: an AF_INET6 socket on :: or on the address */
	return (s->inet6 & UST_SK6_LOCAL6) &&
		(any6 || memcmp(ust_sock_laddr6(s), k->a6->local,
				UST_IPV6_ADDR_LEN) == 0);
}

void
ust_tcp_listen_input(struct ust_stack *stk, struct ust_tcp_sock *lp,
		 struct rte_mbuf *m, const struct ust_tcp_key *seg_k,
		 const struct ust_tcp_repr *th, uint32_t seg_len)
{
	const struct ust_tcp_conf *c = &stk->conf.tcp;
	struct ust_tcp_listen *l = lp->listen;
	struct ust_tcp_key k = *seg_k;
	struct ust_tcp_req *rq;
	uint8_t agreed;

	/* RFC 9293 3.10.7.2: first an RST (ignored), then an ACK (reset,
	 * unless it carries a cookie), then the SYN */
	if (th->flags & UST_TCP_RST) {
		ust_drop(stk, m, UST_DROP_TCP_RESET);
		return;
	}
	if (th->flags & UST_TCP_ACK) {
		if (!(th->flags & UST_TCP_SYN) && c->syncookies) {
			tcp_cookie_ack(stk, lp, m, &k, th, seg_len);
			return;
		}
		ust_tcp_reset_reply(stk, &k, th, seg_len);
		ust_drop(stk, m, UST_DROP_NO_SOCKET);
		return;
	}
	if (!(th->flags & UST_TCP_SYN)) {
		ust_drop(stk, m, UST_DROP_TCP_FLAGS);
		return;
	}
	if (acceptq_full(stk, lp)) {
		ust_drop(stk, m, UST_DROP_TCP_LISTEN_OVERFLOW);
		return;
	}
	agreed = tcp_agreed_options(stk, &th->opts);
	/* A half-open entry promises a connection: no more of them than the
	 * socket table has descriptors for (each completed one takes one),
	 * so that a burst of clients beyond max_sockets is not answered by
	 * handshakes that then wait in vain. While every entry is young
	 * (none has needed its SYN-ACK sent again) they are real clients
	 * whose ACKs are an RTT away: the SYN is dropped, and its client
	 * tries again after its own RTO, when the table has told whether
	 * there is room. Once entries go unanswered past the initial RTO
	 * (a SYN flood's spoofed sources never answer), a cookie: its ACK is
	 * taken only if there is room then (acceptq_full() in
	 * tcp_cookie_ack()), and the flood does not lock real clients out. */
	if (stk->tcp->n_req >= tcp_sd_room(stk) &&
	    stk->tcp->n_req_stale == 0) {
		stk->mib[UST_MIB_TCPEXT_LISTENDROPS]++;
		ust_drop(stk, m, UST_DROP_TCP_LISTEN_OVERFLOW);
		return;
	}
	/* tcp_syncookies: 1, cookies once the SYN queue is full; 2, always
	 * (Linux's values) */
	if (c->syncookies == 2 ||
	    l->synq_len >= RTE_MIN(l->backlog, c->max_syn_backlog) ||
	    stk->tcp->n_req >= tcp_sd_room(stk) ||
	    rte_mempool_get(stk->tcp->req_pool, (void **)&rq) != 0) {
		/* as ust_tcp_options_from_peer() */
		uint16_t peer = (th->opts.has & UST_TCPOPT_MSS) &&
			th->opts.mss != 0 ?
			RTE_MAX(th->opts.mss, (uint16_t)UST_TCP_MIN_MSS) :
			UST_TCP_DEFAULT_MSS;
		uint16_t mss = RTE_MIN(peer, tcp_listen_mss(stk, lp, &k));
		const uint16_t *tab = ust_tcp_cookie_mss(&k);
		uint8_t idx = 7, i; /* the table's smallest, 88 */
		uint32_t tsval = 0;

		if (!c->syncookies) {
			stk->mib[UST_MIB_TCPEXT_LISTENDROPS]++;
			ust_drop(stk, m, UST_DROP_TCP_LISTEN_OVERFLOW);
			return;
		}
		/* the largest MSS of the table not above what both carry
		 * (mss is at least the smallest: a start that fits) */
		for (i = 0; i < 8; i++)
			if (tab[i] <= mss && tab[i] > tab[idx])
				idx = i;
		if (agreed & UST_TCPOPT_TS) {
			uint32_t now = tcp_ts_now(stk, ust_tcp_ts_offset(stk, &k));

			/* the low 5 bits of our timestamp carry the peer's
			 * shift (15: none) and SACK-permitted; kept at or
			 * below the clock, so that the connection's later
			 * timestamps never go backwards (RFC 7323 5.4) */
			tsval = (now & ~0x1fu) |
				((agreed & UST_TCPOPT_WS) ?
				 (th->opts.wscale & 0xfu) : 0xfu) |
				((agreed & UST_TCPOPT_SACK_PERM) ? 0x10u : 0);
			if (SEQ_GT(tsval, now))
				tsval -= 0x20;
		} else {
			/* without timestamps a cookie cannot carry the
			 * other options */
			agreed = 0;
		}
		stk->mib[UST_MIB_TCPEXT_SYNCOOKIESSENT]++;
		tcp_req_send_synack(stk, lp, &k,
				    ust_tcp_cookie_make(stk, &k, th->seq, idx),
				    th->seq, agreed, ust_tcp_choose_wscale(stk),
				    tcp_listen_mss(stk, lp, &k), tsval,
				    th->opts.tsval);
		ust_consumed(stk);
		rte_pktmbuf_free(m);
		return;
	}
	memset(rq, 0, sizeof(*rq));
	if (k.a6 != NULL) {
		rq->a6 = ust_tcp_slab_get(&stk->tcp->a6_slab);
		if (rq->a6 == NULL) {
			rte_mempool_put(stk->tcp->req_pool, rq);
			stk->mib[UST_MIB_TCPEXT_LISTENDROPS]++;
			ust_drop(stk, m, UST_DROP_TCP_LISTEN_OVERFLOW);
			return;
		}
		*rq->a6 = *k.a6;
		k.a6 = rq->a6;
	}
	ust_timer_init(&rq->timer, UST_TT_REQ);
	rq->listener = lp;
	rq->laddr = k.laddr;
	rq->raddr = k.raddr;
	rq->lport = k.lport;
	rq->rport = k.rport;
	rq->irs = th->seq;
	rq->iss = stk->tcp->tw_isn != 0 ? stk->tcp->tw_isn :
		ust_tcp_isn(stk, &k);
	rq->ts_offset = ust_tcp_ts_offset(stk, &k);
	rq->ts_recent = th->opts.tsval;
	rq->opts = agreed;
	rq->peer_mss = (th->opts.has & UST_TCPOPT_MSS) ? th->opts.mss : 0;
	rq->snd_wscale = (agreed & UST_TCPOPT_WS) ? th->opts.wscale : 0;
	rq->rcv_wscale = (agreed & UST_TCPOPT_WS) ? ust_tcp_choose_wscale(stk) : 0;
	rq->sent_ns = stk->now;
	if (ust_tcp_hash_add(stk, &k, rq, UST_TCP_OBJ_REQ) < 0) {
		if (rq->a6 != NULL)
			ust_tcp_slab_put(&stk->tcp->a6_slab, rq->a6);
		rte_mempool_put(stk->tcp->req_pool, rq);
		stk->mib[UST_MIB_TCPEXT_LISTENDROPS]++;
		ust_drop(stk, m, UST_DROP_TCP_LISTEN_OVERFLOW);
		return;
	}
	rq->next = l->synq;
	rq->prev = NULL;
	if (l->synq != NULL)
		l->synq->prev = rq;
	l->synq = rq;
	l->synq_len++;
	stk->tcp->n_req++;
	tcp_req_send_synack(stk, lp, &k, rq->iss, rq->irs, rq->opts,
			    rq->rcv_wscale, tcp_listen_mss(stk, lp, &k),
			    tcp_ts_now(stk, rq->ts_offset), rq->ts_recent);
	ust_timer_arm(&stk->tcp->wheel, &rq->timer,
		      stk->now + (uint64_t)c->rto_init_ms * NS_PER_MS);
	ust_consumed(stk);
	rte_pktmbuf_free(m);
}

/* RFC 9293 3.10.7.4's four cases for a window of @wnd > 0 from @rcv_nxt,
 * with Linux's tcp_in_window() allowance of a pure ACK at its right
 * edge. */
static bool
req_seq_acceptable(uint32_t rcv_nxt, uint32_t wnd, uint32_t seq,
		   uint32_t seg_len)
{
	uint32_t end = seq + seg_len;

	if (seq == rcv_nxt)
		return true;
	if (SEQ_GT(end, rcv_nxt) && SEQ_LT(seq, rcv_nxt + wnd))
		return true;
	return seg_len == 0 && seq == rcv_nxt + wnd;
}

/* The ACK a half-open entry sends to an unacceptable segment (Linux's
 * reqsk send_ack): our SYN's end, the peer's SYN's end, the SYN-ACK's
 * window (not scaled before the handshake ends: RFC 7323 2.2). */
static void
req_send_ack(struct ust_stack *stk, const struct ust_tcp_sock *lp,
	     const struct ust_tcp_key *k, const struct ust_tcp_req *rq)
{
	struct ust_tcp_opts o;

	memset(&o, 0, sizeof(o));
	if (rq->opts & UST_TCPOPT_TS) {
		o.has = UST_TCPOPT_TS;
		o.tsval = tcp_ts_now(stk, rq->ts_offset);
		o.tsecr = rq->ts_recent;
	}
	ust_tcp_send_reply(stk, k, rq->iss + 1, rq->irs + 1, UST_TCP_ACK,
		       tcp_initial_window(lp), &o);
}

void
ust_tcp_req_input(struct ust_stack *stk, struct ust_tcp_req *rq,
	      struct rte_mbuf *m, const struct ust_tcp_repr *th,
	      uint32_t seg_len)
{
	struct ust_tcp_sock *lp = rq->listener, *tp;
	struct ust_tcp_key k;
	struct ust_tcp_req r;

	tcp_req_key(rq, &k);
	if (th->flags & UST_TCP_RST) {
		/* in window: the peer gave up (RFC 9293 3.10.7.4, SYN-
		 * RECEIVED: back to LISTEN) */
		if (th->seq == rq->irs + 1) {
			stk->mib[UST_MIB_TCPEXT_EMBRYONICRSTS]++;
			ust_tcp_req_free(stk, rq, true);
			ust_consumed(stk);
			rte_pktmbuf_free(m);
		} else {
			ust_drop(stk, m, UST_DROP_TCP_RESET);
		}
		return;
	}
	if (th->flags & UST_TCP_SYN) {
		if (th->seq == rq->irs && !(th->flags & UST_TCP_ACK)) {
			/* the SYN again: our SYN-ACK was lost; sent again
			 * once per invalid_ratelimit_ms at most (Linux's
			 * tcp_check_req()), or a flood of copies of one SYN
			 * gets as many SYN-ACKs */
			if (!ust_tcp_oow_rate_limited(stk, &rq->oow_ack_ns,
					UST_MIB_TCPEXT_TCPACKSKIPPEDSYNRECV))
				tcp_req_send_synack(stk, lp, &k, rq->iss,
						    rq->irs, rq->opts,
						    rq->rcv_wscale,
						    tcp_listen_mss(stk, lp,
								   &k),
						    tcp_ts_now(stk,
							       rq->ts_offset),
						    rq->ts_recent);
			ust_consumed(stk);
			rte_pktmbuf_free(m);
		} else {
			ust_drop(stk, m, UST_DROP_TCP_INVALID_SYN);
		}
		return;
	}
	if (!(th->flags & UST_TCP_ACK)) {
		ust_drop(stk, m, UST_DROP_TCP_FLAGS);
		return;
	}
	/* RFC 9293 3.10.7.4, first: the sequence number (an RST and a SYN
	 * were judged above, by their own stricter rules), in the window
	 * the SYN-ACK offered from RCV.NXT = IRS + 1. Not only IRS + 1:
	 * when the peer's first data segment is lost, its next one, or its
	 * pure ACK after the data, starts beyond it, and both are as good
	 * an end of the handshake (Linux's tcp_check_req() tests the
	 * window, not equality). Outside it, an ACK (rate limited), never a
	 * reset. */
	if (!req_seq_acceptable(rq->irs + 1, tcp_initial_window(lp),
				th->seq, seg_len)) {
		if (!ust_tcp_oow_rate_limited(stk, &rq->oow_ack_ns,
				UST_MIB_TCPEXT_TCPACKSKIPPEDSYNRECV))
			req_send_ack(stk, lp, &k, rq);
		ust_drop(stk, m, SEQ_LT(th->seq, rq->irs + 1) ?
			 UST_DROP_TCP_OLD_DATA : UST_DROP_TCP_INVALID_SEQUENCE);
		return;
	}
	/* fifth, the ACK: it must be of our SYN (3.10.7.4: otherwise
	 * <SEQ=SEG.ACK><CTL=RST>) */
	if (th->ack != rq->iss + 1) {
		ust_tcp_reset_reply(stk, &k, th, seg_len);
		ust_drop(stk, m, UST_DROP_TCP_INVALID_SEQUENCE);
		return;
	}
	if (acceptq_full(stk, lp)) {
		/* keep the entry: the peer will send its ACK again */
		ust_drop(stk, m, UST_DROP_TCP_LISTEN_OVERFLOW);
		return;
	}
	r = *rq; /* the entry goes back to its pool before the child
		  * takes its 4-tuple in the hash; its IPv6 addresses (which
		  * k points to) go to the child */
	ust_tcp_hash_del(stk, &k);
	rq->a6 = NULL;
	ust_tcp_req_free(stk, rq, false);
	tp = tcp_child_create(stk, lp, &k, r.a6, r.iss, r.irs, r.opts,
			      r.peer_mss,
			      r.snd_wscale, r.rcv_wscale, r.ts_offset,
			      r.ts_recent);
	if (tp == NULL) {
		stk->mib[UST_MIB_TCPEXT_LISTENDROPS]++;
		ust_drop(stk, m, UST_DROP_TCP_LISTEN_OVERFLOW);
		return;
	}
	/* Karn: the SYN-ACK is timed unless it was sent again */
	if (r.retries == 0)
		ust_tcp_rtt_sample(tp, (uint32_t)((stk->now - r.sent_ns) / 1000),
			       &stk->conf.tcp);
	tp->snd_wnd = (uint32_t)th->window << tp->snd_wscale;
	tp->snd_wnd_max = tp->snd_wnd;
	tp->snd_wl1 = th->seq;
	tp->snd_wl2 = th->ack;
	ust_tcp_rcv_init(tp, tcp_initial_window(lp));
	/* the ACK may carry data and a FIN: on as a connection's segment */
	ust_tcp_rcv_established(stk, tp, m, th, seg_len);
}

void
ust_tcp_listen_close(struct ust_stack *stk, struct ust_tcp_sock *lp)
{
	struct ust_tcp_listen *l = lp->listen;
	uint32_t lport = rte_be_to_cpu_16(lp->base.lport);

	rte_hash_del_key(stk->tcp->listeners, &lport);
	while (l->synq != NULL)
		ust_tcp_req_free(stk, l->synq, true);
	/* connections nobody accepted are reset (as Linux does) */
	while (l->acceptq_head != NULL) {
		struct ust_tcp_sock *tp = l->acceptq_head;

		stk->mib[UST_MIB_TCPEXT_TCPABORTONCLOSE]++;
		ust_tcp_abort(stk, tp, 0, true);
	}
}
