/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * ICMP errors about TCP segments we sent: TCP's error handler in IPv4's
 * protocol table (struct ust_ipv4_proto, registered by ust_tcp_init();
 * lib/ip hands it the destination unreachable, time exceeded and
 * parameter problem messages whose quoted datagram is TCP and ours).
 *
 *  - The connection is found by the quoted 4-tuple (one hash lookup, the
 *    same as a segment's), and the quoted sequence number must lie in
 *    [SND.UNA, SND.NXT) (RFC 5927 4.1; for a half-open entry, our ISS):
 *    anything else is ignored and counted (OutOfWindowIcmps, as Linux).
 *  - Fragmentation needed (type 3 code 4, RFC 1191): the path MTU drops
 *    to the one reported (never below 68 bytes; an old router's 0 is
 *    replaced by the next plateau of RFC 1191 5 below the quoted
 *    datagram's length), the send MSS to what it carries (never below
 *    Linux's tcp_min_snd_mss, 48), and what was in flight is sent again
 *    from SND.UNA cut to the new MSS (Linux's tcp_simple_retransmit(): no
 *    congestion response). Not with IP_MTU_DISCOVER = IP_PMTUDISC_DONT.
 *  - SYN-SENT and SYN-RECEIVED: any other error aborts the attempt with
 *    its errno (ECONNREFUSED for port unreachable...), as Linux does; a
 *    half-open entry of a listener is dropped on net or host unreachable,
 *    time exceeded and parameter problem (Linux's tcp_req_err()).
 *  - Synchronized states: soft errors (RFC 1122 4.2.3.9; Linux treats
 *    port and protocol unreachable as soft too, since middleboxes send
 *    them at will): kept for SO_ERROR, and reported as the error of a
 *    connection that then times out instead of ETIMEDOUT.
 *
 * Each error handed here is counted once: Icmp InErrors (no connection,
 * as Linux), TcpExt OutOfWindowIcmps, TCPIcmpIgnored, TCPIcmpSoftErrors,
 * TCPIcmpHardErrors or TCPIcmpPmtuReduced.
 *
 * Also here, the timers the options of tcp_sock.c add to a connection:
 * TCP_USER_TIMEOUT (RFC 5482) and TCP_CORK's 200 ms ceiling.
 */

#include <errno.h>
#include <string.h>
#include <netinet/in.h>

#include "tcp_private.h"

#define NS_PER_MS 1000000ull
#define TCP_IPV6_MIN_MTU 1280u  /* RFC 8200 5 */

/* errno and "hard" (a connection attempt dies of it) of destination
 * unreachable codes 0-15 (RFC 792, RFC 1122 3.2.2.1, RFC 1812 5.2.7.1),
 * as Linux maps them for every protocol */
static const struct {
	int err;
	bool fatal;
} tcp_unreach_err[16] = {
	{ ENETUNREACH, false },  /* 0  net unreachable */
	{ EHOSTUNREACH, false }, /* 1  host unreachable */
	{ ENOPROTOOPT, true },   /* 2  protocol unreachable */
	{ ECONNREFUSED, true },  /* 3  port unreachable */
	{ EMSGSIZE, false },     /* 4  fragmentation needed */
	{ EOPNOTSUPP, false },   /* 5  source route failed */
	{ ENETUNREACH, true },   /* 6  net unknown */
	{ EHOSTDOWN, true },     /* 7  host unknown */
	{ ENONET, true },        /* 8  source host isolated */
	{ ENETUNREACH, true },   /* 9  net administratively prohibited */
	{ EHOSTUNREACH, true },  /* 10 host administratively prohibited */
	{ ENETUNREACH, false },  /* 11 net unreachable for TOS */
	{ EHOSTUNREACH, false }, /* 12 host unreachable for TOS */
	{ EHOSTUNREACH, true },  /* 13 communication prohibited */
	{ EHOSTUNREACH, true },  /* 14 host precedence violation */
	{ EHOSTUNREACH, true },  /* 15 precedence cutoff */
};

/* RFC 1191 5: the plateaus of common MTUs, for a router that reports 0 */
static const uint16_t tcp_mtu_plateau[] = {
	32000, 17914, 8166, 4352, 2002, 1492, 1006, 508, 296, UST_IPV4_MIN_MTU,
};

uint16_t
ust_tcp_pmtu(const struct ust_tcp_sock *tp)
{
	uint16_t mtu = tp->base.stk->netif.mtu;

	return tp->pmtu != 0 && tp->pmtu < mtu ? tp->pmtu : mtu;
}

/* the MTU fragmentation-needed reports: its next-hop MTU, or for a router
 * of before RFC 1191, which leaves it 0, the plateau below the length of
 * the datagram it quotes */
static uint16_t
tcp_icmp_mtu(const struct ust_icmp_repr *ic)
{
	unsigned int i;
	uint16_t mtu = ic->mtu;

	if (mtu == 0) {
		for (i = 0; i < RTE_DIM(tcp_mtu_plateau) - 1; i++)
			if (tcp_mtu_plateau[i] < ic->embedded.total_len)
				break;
		mtu = tcp_mtu_plateau[i];
	}
	return mtu < UST_IPV4_MIN_MTU ? UST_IPV4_MIN_MTU : mtu;
}

/* the send MSS a path MTU allows: Linux's tcp_mtu_to_mss(), with its
 * floor of tcp_min_snd_mss before the options come off */
static uint32_t
tcp_mtu_to_mss(const struct ust_tcp_sock *tp, uint32_t mtu)
{
	uint32_t mss = mtu - tcp_l3_hdr_len(tp) - UST_TCP_HDR_LEN;

	if (mss < UST_TCP_MIN_SND_MSS)
		mss = UST_TCP_MIN_SND_MSS;
	if (tp->tflags & TF_TS_OK)
		mss -= 12;
	return mss;
}

/* RFC 1191: a router could not forward a segment without fragmenting it */
static void
tcp_icmp_frag_needed(struct ust_stack *stk, struct ust_tcp_sock *tp,
		     uint16_t mtu)
{
	uint32_t mss;

	/* (IPv6 has no fragmentation on the path: discovery is always on) */
	if ((tp->pmtudisc == IP_PMTUDISC_DONT && tp->a6 == NULL) ||
	    mtu >= ust_tcp_pmtu(tp)) {
		stk->mib[UST_MIB_TCPEXT_TCPICMPIGNORED]++;
		return;
	}
	tp->pmtu = mtu;
	stk->mib[UST_MIB_TCPEXT_TCPICMPPMTUREDUCED]++;
	if (tp->state == UST_TCP_SYN_SENT ||
	    tp->state == UST_TCP_SYN_RECEIVED) {
		/* the MSS to announce, which bounds the one agreed */
		mss = RTE_MAX(mtu - tcp_l3_hdr_len(tp) - UST_TCP_HDR_LEN,
			      (uint32_t)UST_TCP_MIN_SND_MSS);
		if (mss < tp->rcv_mss)
			tp->rcv_mss = (uint16_t)mss;
		return;
	}
	mss = tcp_mtu_to_mss(tp, mtu);
	if (mss >= tp->mss)
		return;
	tp->mss = (uint16_t)mss;
	if (tp->snd_una == tp->snd_max)
		return;
	/* what was sent at the old size is lost: from SND.UNA again, cut to
	 * the new MSS by ust_tcp_output(); no congestion response (the
	 * path, not the load, dropped it), as Linux's
	 * tcp_simple_retransmit() */
	tp->snd_nxt = tp->snd_una;
	tp->high_rxt = tp->snd_una;
	tp->recover = tp->snd_max;
	tp->dupacks = 0;
	tp->tflags &= ~(TF_RECOVERY | TF_RTT_TIMING);
	tp->tflags |= TF_LOSS;
	ust_tcp_output(stk, tp);
}

/* the errno of an error message, and whether a connection attempt dies
 * of it; false when TCP ignores the message */
static bool
tcp_icmp_errno(const struct ust_icmp_repr *ic, int *err, bool *fatal)
{
	switch (ic->type) {
	case UST_ICMP_DEST_UNREACH:
		if (ic->code >= RTE_DIM(tcp_unreach_err))
			return false;
		*err = tcp_unreach_err[ic->code].err;
		*fatal = tcp_unreach_err[ic->code].fatal;
		return true;
	case UST_ICMP_TIME_EXCEEDED:
		*err = EHOSTUNREACH;
		*fatal = false;
		return true;
	case UST_ICMP_PARAM_PROBLEM:
		*err = EPROTO;
		*fatal = true;
		return true;
	default:
		return false;
	}
}

/* What an error message means for TCP, in either family. */
struct tcp_icmp_what {
	int err;                /* errno */
	bool fatal;             /* "hard": a connection attempt dies of it */
	bool req_drop;          /* a half-open entry dies of it */
	uint16_t mtu;           /* fragmentation needed, packet too big: the
				 * path MTU; else 0 */
};

/* an error about a half-open entry's SYN-ACK (Linux's tcp_req_err()) */
static void
tcp_icmp_req(struct ust_stack *stk, struct ust_tcp_req *rq, uint32_t seq,
	     bool drop)
{
	if (seq != rq->iss) {
		stk->mib[UST_MIB_TCPEXT_OUTOFWINDOWICMPS]++;
		return;
	}
	if (!drop) {
		stk->mib[UST_MIB_TCPEXT_TCPICMPIGNORED]++;
		return;
	}
	stk->mib[UST_MIB_TCPEXT_TCPICMPHARDERRORS]++;
	stk->mib[UST_MIB_TCPEXT_LISTENDROPS]++;
	ust_tcp_req_free(stk, rq, true);
}

/* An error about the segment of 4-tuple @k (ours: local is the quoted
 * packet's source) with sequence number @seq; @w what it means, NULL when
 * TCP does not act on its type. */
static void
tcp_icmp_deliver(struct ust_stack *stk, const struct ust_tcp_key *k,
		 uint32_t seq, const struct tcp_icmp_what *w, uint64_t inerr)
{
	struct ust_tcp_sock *tp;
	void *d;

	d = ust_tcp_hash_lookup(stk, k);
	if (d == NULL) {
		/* as Linux's tcp_v4_err() and tcp_v6_err(): no connection,
		 * an ICMP in error */
		stk->mib[inerr]++;
		return;
	}
	if (w == NULL) {
		stk->mib[UST_MIB_TCPEXT_TCPICMPIGNORED]++;
		return;
	}
	switch (tcp_obj_kind(d)) {
	case UST_TCP_OBJ_REQ:
		tcp_icmp_req(stk, tcp_obj_ptr(d), seq, w->req_drop);
		return;
	case UST_TCP_OBJ_TW:
		/* nothing of ours is in flight any more */
		stk->mib[UST_MIB_TCPEXT_TCPICMPIGNORED]++;
		return;
	default:
		break;
	}
	tp = tcp_obj_ptr(d);
	/* RFC 5927 4.1: only about data in flight; a blind attacker must
	 * guess the window, as for an RST */
	if (SEQ_LT(seq, tp->snd_una) || SEQ_GEQ(seq, tp->snd_max)) {
		stk->mib[UST_MIB_TCPEXT_OUTOFWINDOWICMPS]++;
		return;
	}
	if (w->mtu != 0) {
		tcp_icmp_frag_needed(stk, tp, w->mtu);
		return;
	}
	switch (tp->state) {
	case UST_TCP_SYN_SENT:
	case UST_TCP_SYN_RECEIVED:
		/* as Linux: the attempt ends with the error, hard or not */
		stk->mib[UST_MIB_TCPEXT_TCPICMPHARDERRORS]++;
		stk->mib[UST_MIB_TCP_ATTEMPTFAILS]++;
		ust_tcp_abort(stk, tp, w->err, false);
		return;
	default:
		break;
	}
	/* RFC 1122 4.2.3.9: the connection keeps trying; the error is told
	 * if it then times out (ust_tcp_abort()) or SO_ERROR asks */
	stk->mib[UST_MIB_TCPEXT_TCPICMPSOFTERRORS]++;
	tp->soft_err = w->err;
}

void
ust_tcp_icmp_error(struct ust_stack *stk, const struct ust_icmp_repr *ic)
{
	const struct ust_ipv4_repr *e = &ic->embedded;
	struct tcp_icmp_what w;
	struct ust_tcp_key k;
	uint32_t seq;

	/* ports and sequence number: the 8 bytes every error quotes */
	if (ic->embedded_l4_len < 8) {
		stk->mib[UST_MIB_ICMP_INERRORS]++;
		return;
	}
	memset(&k, 0, sizeof(k));
	k.laddr = e->src;
	k.raddr = e->dst;
	memcpy(&k.lport, ic->embedded_l4, sizeof(k.lport));
	memcpy(&k.rport, ic->embedded_l4 + 2, sizeof(k.rport));
	memcpy(&seq, ic->embedded_l4 + 4, sizeof(seq));
	seq = rte_be_to_cpu_32(seq);
	memset(&w, 0, sizeof(w));
	if (!tcp_icmp_errno(ic, &w.err, &w.fatal)) {
		tcp_icmp_deliver(stk, &k, seq, NULL, UST_MIB_ICMP_INERRORS);
		return;
	}
	w.req_drop = ic->type == UST_ICMP_TIME_EXCEEDED ||
		ic->type == UST_ICMP_PARAM_PROBLEM ||
		(ic->type == UST_ICMP_DEST_UNREACH &&
		 (ic->code == UST_ICMP_CODE_NET_UNREACH ||
		  ic->code == UST_ICMP_CODE_HOST_UNREACH));
	if (ic->type == UST_ICMP_DEST_UNREACH &&
	    ic->code == UST_ICMP_CODE_FRAG_NEEDED)
		w.mtu = tcp_icmp_mtu(ic);
	tcp_icmp_deliver(stk, &k, seq, &w, UST_MIB_ICMP_INERRORS);
}

/*
 * ICMPv6's errors (RFC 4443 3), as Linux's icmpv6_err_convert() reads
 * them: destination unreachable (no route, beyond scope and address
 * unreachable soft; prohibited, port unreachable, policy and reject
 * route hard), packet too big (RFC 8201: the path MTU; one below IPv6's
 * 1280 is discarded), time exceeded (soft), parameter problem (hard). A half-open
 * entry dies of a hard one, as in Linux's tcp_v6_err().
 */
void
ust_tcp_icmp6_error(struct ust_stack *stk, const struct ust_icmp6_repr *ic)
{
	const struct ust_ipv6_repr *e = &ic->embedded;
	const uint8_t *l4 = ic->data + UST_IPV6_HDR_LEN;
	struct ust_tcp_addr6 a6;
	struct tcp_icmp_what w;
	rte_be16_t lport, rport;
	struct ust_tcp_key k;
	bool known = true;
	uint32_t seq;

	/* (lib/ip hands over an error whose quote holds the fixed header
	 * and 8 bytes after it, the ports and the sequence number) */
	if (!ic->embedded_ok || ic->data_len < UST_IPV6_HDR_LEN + 8) {
		stk->mib[UST_MIB_ICMP6_INERRORS]++;
		return;
	}
	memcpy(a6.local, e->src, sizeof(a6.local));
	memcpy(a6.remote, e->dst, sizeof(a6.remote));
	memcpy(&lport, l4, sizeof(lport));
	memcpy(&rport, l4 + 2, sizeof(rport));
	memcpy(&seq, l4 + 4, sizeof(seq));
	seq = rte_be_to_cpu_32(seq);
	ust_tcp_key6(&k, &a6, lport, rport);
	memset(&w, 0, sizeof(w));
	switch (ic->type) {
	case UST_ICMP6_DEST_UNREACH:
		switch (ic->code) {
		case 0:         /* no route */
			w.err = ENETUNREACH;
			break;
		case 2:         /* beyond the scope of the source */
		case 3:         /* address unreachable */
			w.err = EHOSTUNREACH;
			break;
		case UST_ICMP6_CODE_PORT_UNREACH:
			w.err = ECONNREFUSED;
			w.fatal = true;
			break;
		default:        /* prohibited, policy, reject route */
			w.err = EACCES;
			w.fatal = true;
			break;
		}
		break;
	case UST_ICMP6_PKT_TOO_BIG:
		/* RFC 8201 4: an MTU below IPv6's minimum is discarded (as
		 * Linux's tcp_v6_err() has done since 5.8): no path is that
		 * narrow, and a forged one would cut the MSS to nothing */
		if (ic->param < TCP_IPV6_MIN_MTU) {
			stk->mib[UST_MIB_ICMP6_INERRORS]++;
			return;
		}
		w.err = EMSGSIZE;
		w.mtu = (uint16_t)RTE_MIN(ic->param, (uint32_t)UINT16_MAX);
		break;
	case UST_ICMP6_TIME_EXCEEDED:
		w.err = EHOSTUNREACH;
		break;
	case UST_ICMP6_PARAM_PROBLEM:
		w.err = EPROTO;
		w.fatal = true;
		break;
	default:
		known = false;
		break;
	}
	w.req_drop = w.fatal;
	tcp_icmp_deliver(stk, &k, seq, known ? &w : NULL,
			 UST_MIB_ICMP6_INERRORS);
}

/* ---- TCP_USER_TIMEOUT (RFC 5482) ---- */

bool
ust_tcp_user_timeout_expired(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	uint64_t ut = (uint64_t)tp->user_timeout_ms * NS_PER_MS;

	if (ut == 0)
		return false;
	/* retries2 no longer bounds the backoff: keep the shift of the
	 * RTO (long past rto_max by then) in range, and from wrapping to
	 * 0, which would start a new episode */
	if (tp->backoff > 30)
		tp->backoff = 30;
	if (tp->backoff == 0 && !(tp->tflags & TF_TLP_SENT)) {
		/* the first timeout of an episode: the head went unacked
		 * when the timer that just expired was armed, one RTO ago
		 * (after a loss probe, when the probe timer was armed:
		 * tcp_tlp_expired() set it) */
		uint64_t rto = ust_tcp_rto_ns(tp);

		tp->ut_start_ns = stk->now > rto ? stk->now - rto : 0;
	}
	if (stk->now - tp->ut_start_ns < ut)
		return false;
	/* as the retry counts' timeouts: an attempt ends silently, a
	 * connection with an RST */
	if (tp->state == UST_TCP_SYN_SENT ||
	    tp->state == UST_TCP_SYN_RECEIVED) {
		stk->mib[UST_MIB_TCP_ATTEMPTFAILS]++;
		ust_tcp_abort(stk, tp, ETIMEDOUT, false);
	} else {
		stk->mib[UST_MIB_TCPEXT_TCPABORTONTIMEOUT]++;
		ust_tcp_abort(stk, tp, ETIMEDOUT, true);
	}
	return true;
}

uint64_t
ust_tcp_user_timeout_clamp(struct ust_stack *stk,
			   const struct ust_tcp_sock *tp, uint64_t rto_ns)
{
	uint64_t ut = (uint64_t)tp->user_timeout_ms * NS_PER_MS;
	uint64_t left;

	if (ut == 0)
		return rto_ns;
	/* (Linux's tcp_clamp_rto_to_user_timeout()) */
	left = tp->ut_start_ns + ut > stk->now ?
		tp->ut_start_ns + ut - stk->now : 1;
	return RTE_MIN(rto_ns, left);
}

/* ---- TCP_CORK's ceiling ---- */

bool
ust_tcp_cork_allows(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	if (tp->cork_push)
		return true;
	if (tp->corked) {
		if (!ust_timer_armed(&tp->cork_timer))
			ust_timer_arm(&stk->tcp->wheel, &tp->cork_timer,
				      stk->now + UST_TCP_CORK_MS * NS_PER_MS);
		return false;
	}
	if (tp->tflags & TF_MORE_HOLD) {
		/* MSG_MORE with nothing in flight: no ACK will push what
		 * is held; Linux's probe timer does, after an RTO */
		if (tp->snd_una == tp->snd_max &&
		    !ust_timer_armed(&tp->cork_timer)) {
			ust_timer_arm(&stk->tcp->wheel, &tp->cork_timer,
				      stk->now + ust_tcp_rto_ns(tp));
			tp->tflags |= TF_PROBE_PSH;
		}
		return false;
	}
	return true;
}

void
ust_tcp_cork_expired(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	tp->cork_push = true;
	ust_tcp_output(stk, tp);
	tp->cork_push = false;
	tp->tflags &= ~TF_PROBE_PSH;
}
