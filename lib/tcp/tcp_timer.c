/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * TCP timers on the stack's wheel (lib/core/timer.c), and what happens
 * when they fire:
 *
 *  - rtx_timer, one per connection, in one of six modes: RTO (RFC 6298:
 *    retransmit, back off, RFC 5681 loss window, give up after retries2),
 *    TLP (RFC 8985 7: the loss probe), REO (RFC 8985 6.3: RACK's
 *    reordering timer), PERSIST (RFC 9293 3.8.6.1: probe a zero window),
 *    KEEPALIVE (RFC 1122 4.2.3.6) and FIN_WAIT2 (an orphaned connection
 *    waiting for a FIN);
 *  - delack_timer: the delayed ACK (RFC 1122 4.2.3.2, RFC 9293 3.8.6.3);
 *  - a half-open entry's SYN-ACK retransmission (tcp_listen.c);
 *  - the end of a TIME_WAIT entry, and TIME_WAIT itself (RFC 9293
 *    3.10.7.4; RFC 1337: an RST does not end TIME_WAIT; RFC 6191: a SYN
 *    with a newer timestamp may reuse the 4-tuple).
 *
 * The wheel is advanced by ust_tcp_poll() (tcp.c), which lib/stack calls
 * from ust_stack_poll() and ust_stack_timers() with the stack's clock.
 */

#include <errno.h>
#include <string.h>

#include <rte_mempool.h>

#include "tcp_cc.h"
#include "tcp_private.h"

#define NS_PER_MS 1000000ull
#define NS_PER_US 1000ull
#define RTT_MAX_US (100u * 1000 * 1000) /* 100 s */

uint64_t
ust_tcp_rto_ns(const struct ust_tcp_sock *tp)
{
	const struct ust_tcp_conf *c = &tp->base.stk->conf.tcp;
	uint64_t rto = (uint64_t)tp->rto_us << tp->backoff;

	if (rto > (uint64_t)c->rto_max_ms * 1000)
		rto = (uint64_t)c->rto_max_ms * 1000;
	return rto * NS_PER_US;
}

void
ust_tcp_rtx_arm(struct ust_stack *stk, struct ust_tcp_sock *tp,
	    enum ust_tcp_rtx_mode mode, uint64_t delay_ns)
{
	tp->rtx_mode = (uint8_t)mode;
	ust_timer_arm(&stk->tcp->wheel, &tp->rtx_timer, stk->now + delay_ns);
}

void
ust_tcp_rtx_stop(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	ust_timer_cancel(&stk->tcp->wheel, &tp->rtx_timer);
	tp->rtx_mode = UST_RTX_NONE;
	ust_tcp_keepalive_reset(stk, tp);
}

/* RFC 8985 7.1: a probe may go when the RTT is known, nothing is being
 * recovered and no probe is out already */
static bool
tcp_tlp_ok(const struct ust_tcp_sock *tp)
{
	/* (with SACK only, and in any state with data or a FIN in flight,
	 * as Linux's tcp_schedule_loss_probe()) */
	return tp->srtt_us != 0 && (tp->tflags & TF_SACK_OK) &&
	       (tp->state == UST_TCP_ESTABLISHED ||
		tp->state == UST_TCP_CLOSE_WAIT ||
		tp->state == UST_TCP_FIN_WAIT_1 ||
		tp->state == UST_TCP_CLOSING ||
		tp->state == UST_TCP_LAST_ACK) &&
	       !tp->rack.tlp_out &&
	       !(tp->tflags & (TF_RECOVERY | TF_LOSS | TF_TLP_SENT));
}

/* RFC 8985 7.2: PTO = 2 * SRTT, plus room for a delayed ACK when one
 * segment is out (WCDelAckT, Linux's rto_min), else 2 ms (Linux's
 * TCP_TIMEOUT_MIN); never later than the RTO */
static uint64_t
tcp_pto_ns(const struct ust_stack *stk, const struct ust_tcp_sock *tp)
{
	uint64_t pto = 2ull * (tp->srtt_us >> 3) * NS_PER_US;
	uint64_t rto = ust_tcp_rto_ns(tp);

	pto += ust_tcp_rack_packets_out(tp) <= 1 ?
		(uint64_t)stk->conf.tcp.rto_min_ms * NS_PER_MS :
		2 * NS_PER_MS;
	return pto < rto ? pto : rto;
}

void
ust_tcp_rtx_rearm(struct ust_stack *stk, struct ust_tcp_sock *tp, bool restart)
{
	if (tcp_tlp_ok(tp)) {
		ust_tcp_rtx_arm(stk, tp, UST_RTX_TLP, tcp_pto_ns(stk, tp));
		return;
	}
	if (tp->rtx_mode != UST_RTX_RTO || restart)
		ust_tcp_rtx_arm(stk, tp, UST_RTX_RTO, ust_tcp_rto_ns(tp));
}

/* RFC 8985 7.3: the probe timer expired. Send one segment, new data if
 * the window allows, else the last segment sent again (Linux's
 * tcp_send_loss_probe(): the last segment as it was sent: a FIN alone
 * when it went alone, data with the FIN when they went together), to
 * draw the SACKs that start fast recovery instead of waiting for the
 * RTO. */
static void
tcp_tlp_expired(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	uint32_t s, e;
	bool f;

	uint32_t data_end = tcp_snd_data_end(tp);
	uint32_t avail = SEQ_LT(tp->snd_nxt, data_end) ?
		data_end - tp->snd_nxt : 0;
	uint32_t room = SEQ_GT(tp->snd_una + tp->snd_wnd, tp->snd_nxt) ?
		tp->snd_una + tp->snd_wnd - tp->snd_nxt : 0;

	stk->mib[UST_MIB_TCPEXT_TCPLOSSPROBES]++;
	/* TCP_USER_TIMEOUT counts from when what is outstanding went
	 * unanswered, the probe timer's arming (Linux's retrans_stamp, the
	 * probed segment's send time), not from this probe: the RTO that
	 * follows keeps it (ust_tcp_user_timeout_expired()) */
	if (tp->backoff == 0) {
		uint64_t pto = tcp_pto_ns(stk, tp);

		tp->ut_start_ns = stk->now > pto ? stk->now - pto : 0;
	}
	tp->tflags |= TF_TLP_SENT;
	if (avail > 0 && room > 0 && tp->snd_nxt == tp->snd_max &&
	    !(tp->tflags & TF_FIN_SENT)) {
		uint32_t mss = ust_tcp_mss_now(tp);
		uint32_t len = RTE_MIN(avail, RTE_MIN(mss, room));

		ust_tcp_send_segment(stk, tp, tp->snd_nxt, len, UST_TCP_ACK,
				 false);
		tp->snd_nxt += len;
		tp->snd_max = tp->snd_nxt;
		if (len < mss)
			tp->snd_sml = tp->snd_nxt; /* (Minshall) */
		tp->rack.tlp_is_retrans = false;
	} else if (ust_tcp_rack_last(tp, &s, &e, &f)) {
		ust_tcp_send_segment(stk, tp, s, e - s - (f ? 1 : 0),
				     UST_TCP_ACK | (f ? UST_TCP_FIN : 0), true);
		tp->tflags &= ~TF_RTT_TIMING;
		tp->rack.tlp_is_retrans = true;
	} else {
		bool fin = (tp->tflags & TF_FIN_SENT) != 0;
		uint32_t end = fin ? tp->snd_max - 1 : tp->snd_max;
		uint32_t len = RTE_MIN((uint32_t)tp->mss,
				       SEQ_GT(end, tp->snd_una) ?
				       end - tp->snd_una : 0);

		ust_tcp_send_segment(stk, tp, end - len, len,
				 UST_TCP_ACK | (fin ? UST_TCP_FIN : 0), true);
		/* Karn: what is sent twice is not timed */
		tp->tflags &= ~TF_RTT_TIMING;
		tp->rack.tlp_is_retrans = true;
	}
	/* RFC 8985 7.3: TLP.end_seq */
	tp->rack.tlp_out = true;
	tp->rack.tlp_end_seq = tp->snd_max;
	ust_tcp_rtx_arm(stk, tp, UST_RTX_RTO, ust_tcp_rto_ns(tp));
}

/* RFC 8985 6.3: the reordering timer expired: what RACK now finds lost
 * goes again, in recovery */
static void
tcp_reo_expired(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	uint64_t reo;
	bool lost;

	tp->rtx_mode = UST_RTX_NONE;
	lost = ust_tcp_rack_reo_timeout(stk, tp, &reo);
	if (lost && !(tp->tflags & (TF_RECOVERY | TF_LOSS))) {
		ust_tcp_enter_recovery(stk, tp);
		/* no ACK to count: as one segment delivered (Linux's
		 * tcp_rack_reo_timeout()), the fast retransmit goes */
		ust_tcp_prr_ack(tp, 1, false, true);
	}
	if (reo > 0)
		ust_tcp_rtx_arm(stk, tp, UST_RTX_REO, reo);
	else
		ust_tcp_rtx_rearm(stk, tp, true);
	ust_tcp_output(stk, tp);
	if (tp->snd_una != tp->snd_max && tp->rtx_mode == UST_RTX_NONE)
		ust_tcp_rtx_rearm(stk, tp, true);
}

void
ust_tcp_keepalive_arm(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	if (tp->state != UST_TCP_ESTABLISHED ||
	    (tp->rtx_mode != UST_RTX_NONE && tp->rtx_mode != UST_RTX_KEEPALIVE))
		return;
	tp->probes = 0;
	ust_tcp_rtx_arm(stk, tp, UST_RTX_KEEPALIVE,
		    (uint64_t)tp->keep_idle_ms * NS_PER_MS);
}

void
ust_tcp_rtt_sample(struct ust_tcp_sock *tp, uint32_t rtt_us,
	       const struct ust_tcp_conf *c)
{
	uint32_t rto;

	/* a sample that long times an outage (a poll loop that stalled),
	 * not the path; and srtt_us << 3 would not fit */
	if (rtt_us > RTT_MAX_US)
		return;
	if (rtt_us == 0)
		rtt_us = 1;
	/* RACK's min_RTT (RFC 8985 5.2) takes every sample, as Linux's
	 * tcp_min_rtt() */
	if (tp->rack.min_rtt_ns == 0 ||
	    (uint64_t)rtt_us * 1000 < tp->rack.min_rtt_ns)
		tp->rack.min_rtt_ns = (uint64_t)rtt_us * 1000;
	/* RFC 6298 2.2 and 2.3; srtt scaled by 8, rttvar by 4 */
	if (tp->srtt_us == 0) {
		tp->srtt_us = rtt_us << 3;
		tp->rttvar_us = rtt_us << 1;
	} else {
		int32_t delta = (int32_t)rtt_us - (int32_t)(tp->srtt_us >> 3);

		tp->srtt_us = (uint32_t)((int32_t)tp->srtt_us + delta);
		if (delta < 0)
			delta = -delta;
		tp->rttvar_us = (uint32_t)((int32_t)tp->rttvar_us + delta -
					   (int32_t)(tp->rttvar_us >> 2));
	}
	/* RTO = SRTT + max(G, 4 * RTTVAR) (RFC 6298 2.3) with Linux's floor:
	 * rto_min bounds the variance term, not the sum (tcp_set_rto), so
	 * that a 100 ms path gets 300 ms as on Linux, not 200 */
	rto = (tp->srtt_us >> 3) +
		RTE_MAX(RTE_MAX(1000u, tp->rttvar_us), c->rto_min_ms * 1000);
	if (rto > c->rto_max_ms * 1000)
		rto = c->rto_max_ms * 1000;
	tp->rto_us = rto;
	tp->backoff = 0;
}

void
ust_tcp_delack_arm(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	tp->tflags |= TF_DELACK;
	if (!ust_timer_armed(&tp->delack_timer))
		ust_timer_arm(&stk->tcp->wheel, &tp->delack_timer,
			      stk->now + (uint64_t)stk->conf.tcp.delack_ms *
			      NS_PER_MS);
}

/* Send the first unacknowledged segment again, whatever the windows (a
 * whole MSS, as it went: ust_tcp_output()'s retransmissions). */
static void
tcp_send_head(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	uint32_t data_end = tcp_snd_data_end(tp);
	/* (of what was sent: snd_nxt stays within snd_max) */
	uint32_t sent = SEQ_MIN(data_end, tp->snd_max);
	uint32_t len = SEQ_LT(tp->snd_una, sent) ?
		RTE_MIN((uint32_t)tp->mss, sent - tp->snd_una) : 0;
	uint8_t flags = UST_TCP_ACK;

	if ((tp->tflags & TF_FIN_SENT) && tp->snd_una + len == data_end)
		flags |= UST_TCP_FIN;
	if (len == 0 && !(flags & UST_TCP_FIN))
		return;
	if (ust_tcp_send_segment(stk, tp, tp->snd_una, len, flags, true) != 0)
		return;
	tp->snd_nxt = tp->snd_una + len + ((flags & UST_TCP_FIN) ? 1 : 0);
}

/* RFC 6298 5.4-5.7 and RFC 5681 3.1: the retransmission timer expired */
static void
tcp_rto_expired(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	const struct ust_tcp_conf *c = &stk->conf.tcp;

	/* TCP_USER_TIMEOUT (RFC 5482, tcp_icmp.c): when set, it decides */
	if (ust_tcp_user_timeout_expired(stk, tp))
		return;
	/* our SYN, or the SYN-ACK of a simultaneous open (ust_tcp_output() sends
	 * nothing before ESTABLISHED), as Linux's tcp_write_timeout() */
	if (tp->state == UST_TCP_SYN_SENT ||
	    tp->state == UST_TCP_SYN_RECEIVED) {
		if (++tp->probes > c->syn_retries && tp->user_timeout_ms == 0) {
			stk->mib[UST_MIB_TCP_ATTEMPTFAILS]++;
			ust_tcp_abort(stk, tp, ETIMEDOUT, false);
			return;
		}
		tp->backoff++;
		ust_tcp_send_syn(stk, tp);
		ust_tcp_rtx_arm(stk, tp, UST_RTX_RTO,
				ust_tcp_user_timeout_clamp(stk, tp,
							   ust_tcp_rto_ns(tp)));
		return;
	}
	if (tp->backoff >= c->retries2 && tp->user_timeout_ms == 0) {
		stk->mib[UST_MIB_TCPEXT_TCPABORTONTIMEOUT]++;
		ust_tcp_abort(stk, tp, ETIMEDOUT, true);
		return;
	}
	stk->mib[UST_MIB_TCPEXT_TCPTIMEOUTS]++;
	if (tp->backoff == 0) /* the first timeout of an episode: a loss */
		tp->ssthresh = tp->cc->ssthresh(stk, tp);
	tp->cwnd = tp->mss; /* RFC 5681: the loss window */
	tp->ts_rto = tcp_ts_now(stk, tp->ts_offset);
	tp->cc->event(stk, tp, UST_CC_EV_RTO);
	tp->tflags &= ~(TF_RECOVERY | TF_RTT_TIMING);
	tp->dupacks = 0;
	/* The scoreboard survives the first timeout, so that going back N
	 * skips what the peer holds (RFC 6675 5.1, as Linux does); a second
	 * timeout in a row suggests the peer reneged on its SACKs, which are
	 * then forgotten (RFC 2018 8) */
	if (tp->backoff > 0) {
		tp->n_sb = 0;
		tp->sacked_bytes = 0;
		tp->high_sacked = tp->snd_una;
		ust_tcp_sack_release(tp);
		ust_tcp_rack_unsack(tp);
	}
	/* RFC 8985: after a timeout everything in flight is lost; the
	 * probe's episode is over */
	ust_tcp_rack_all_lost(tp);
	tp->rack.tlp_out = false;
	/* go back N: resend from the first unacknowledged byte */
	tp->snd_nxt = tp->snd_una;
	tp->high_rxt = tp->snd_una;
	tp->recover = tp->snd_max;
	tp->tflags |= TF_LOSS;
	/* (a FIN sent stays TF_FIN_SENT: ust_tcp_output() sends it again from
	 * snd_nxt, and an ACK of the first one may still come) */
	tp->backoff++;
	ust_tcp_output(stk, tp);
	/* nothing went (the peer's window is zero, or shrank): the first
	 * segment goes anyway, as a probe that draws the peer's window, as
	 * Linux's retransmission timer does; otherwise a connection whose
	 * window closed with data in flight would only back off */
	if (tp->snd_nxt == tp->snd_una && SEQ_LT(tp->snd_una, tp->snd_max))
		tcp_send_head(stk, tp);
	ust_tcp_rtx_arm(stk, tp, UST_RTX_RTO,
			ust_tcp_user_timeout_clamp(stk, tp, ust_tcp_rto_ns(tp)));
}

/* A probe (zero window, keepalive): an ACK at @seq without data, with
 * the timestamps that every segment but an RST carries once they are in
 * use (RFC 7323 3.2: a peer may drop a segment without them) */
static void
tcp_send_probe(struct ust_stack *stk, struct ust_tcp_sock *tp, uint32_t seq)
{
	struct ust_tcp_key k;
	struct ust_tcp_opts o;

	ust_tcp_key_of(tp, &k);
	memset(&o, 0, sizeof(o));
	if (tp->tflags & TF_TS_OK) {
		o.has = UST_TCPOPT_TS;
		o.tsval = tcp_ts_now(stk, tp->ts_offset);
		o.tsecr = tp->ts_recent;
	}
	ust_tcp_send_reply(stk, &k, seq, tp->rcv_nxt, UST_TCP_ACK,
		       ust_tcp_window_field(tp), &o);
}

static void
tcp_persist_expired(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	const struct ust_tcp_conf *c = &stk->conf.tcp;

	if (tp->snd_wnd != 0 || tcp_snd_data_end(tp) == tp->snd_nxt) {
		/* a small window: what fits goes now, the override of
		 * sender SWS avoidance (RFC 9293 3.8.6.2.1; Linux's
		 * tcp_write_wakeup()) */
		tp->rtx_mode = UST_RTX_NONE;
		tp->cork_push = true;
		ust_tcp_output(stk, tp);
		tp->cork_push = false;
		return;
	}
	if (tp->probes >= c->retries2) {
		stk->mib[UST_MIB_TCPEXT_TCPABORTONTIMEOUT]++;
		ust_tcp_abort(stk, tp, ETIMEDOUT, true);
		return;
	}
	/* a zero-window probe: an ACK one byte to the left of the window,
	 * which the peer must answer with its current window (Linux's
	 * tcp_write_wakeup() for a zero window) */
	tp->probes++;
	stk->mib[UST_MIB_TCPEXT_TCPWINPROBE]++;
	tcp_send_probe(stk, tp, tp->snd_una - 1);
	if (tp->backoff < 16)
		tp->backoff++;
	ust_tcp_rtx_arm(stk, tp, UST_RTX_PERSIST, ust_tcp_rto_ns(tp));
}

static void
tcp_keepalive_expired(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	uint64_t idle = stk->now - tp->last_rcv_ns;

	if (idle < (uint64_t)tp->keep_idle_ms * NS_PER_MS && tp->probes == 0) {
		ust_tcp_rtx_arm(stk, tp, UST_RTX_KEEPALIVE,
			    (uint64_t)tp->keep_idle_ms * NS_PER_MS - idle);
		return;
	}
	if (tp->probes >= tp->keep_cnt) {
		stk->mib[UST_MIB_TCPEXT_TCPABORTONTIMEOUT]++;
		ust_tcp_abort(stk, tp, ETIMEDOUT, true);
		return;
	}
	tp->probes++;
	stk->mib[UST_MIB_TCPEXT_TCPKEEPALIVE]++;
	/* RFC 1122 4.2.3.6: SEG.SEQ = SND.NXT - 1, no data */
	tcp_send_probe(stk, tp, tp->snd_max - 1);
	ust_tcp_rtx_arm(stk, tp, UST_RTX_KEEPALIVE,
		    (uint64_t)tp->keep_intvl_ms * NS_PER_MS);
}

static void
tcp_rtx_expired(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	switch (tp->rtx_mode) {
	case UST_RTX_RTO:
		tcp_rto_expired(stk, tp);
		break;
	case UST_RTX_PERSIST:
		tcp_persist_expired(stk, tp);
		break;
	case UST_RTX_KEEPALIVE:
		tcp_keepalive_expired(stk, tp);
		break;
	case UST_RTX_FIN_WAIT2:
		ust_tcp_done(stk, tp);
		break;
	case UST_RTX_TLP:
		tcp_tlp_expired(stk, tp);
		break;
	case UST_RTX_REO:
		tcp_reo_expired(stk, tp);
		break;
	default:
		break;
	}
}

void
ust_tcp_timer_fire(struct ust_timer *t, void *ctx)
{
	struct ust_stack *stk = ctx;

	switch (t->kind) {
	case UST_TT_RTX:
		tcp_rtx_expired(stk, container_of(t, struct ust_tcp_sock,
						  rtx_timer));
		break;
	case UST_TT_DELACK: {
		struct ust_tcp_sock *tp = container_of(t, struct ust_tcp_sock,
						       delack_timer);

		if (tp->tflags & TF_DELACK) {
			stk->mib[UST_MIB_TCPEXT_DELAYEDACKS]++;
			ust_tcp_send_ack(stk, tp);
		}
		break;
	}
	case UST_TT_REQ:
		ust_tcp_req_timeout(stk, container_of(t, struct ust_tcp_req,
						  timer));
		break;
	case UST_TT_TW:
		ust_tcp_tw_free(stk, container_of(t, struct ust_tcp_tw, timer));
		break;
	case UST_TT_CORK:
		ust_tcp_cork_expired(stk, container_of(t, struct ust_tcp_sock,
						       cork_timer));
		break;
	default:
		break;
	}
}

/* ---- TIME_WAIT ---- */

void
ust_tcp_enter_time_wait(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	struct ust_tcp_stack *ts = stk->tcp;
	struct ust_tcp_tw *tw = NULL;
	struct ust_tcp_key k;

	ust_tcp_key_of(tp, &k);
	/* at most max_conns entries, as connections (Linux's
	 * tcp_max_tw_buckets): beyond, or without memory, the connection
	 * ends without TIME_WAIT (Linux's "time wait bucket table
	 * overflow") */
	if (ts->n_tw < stk->conf.tcp.max_conns)
		tw = ust_tcp_slab_get(&ts->tw_slab);
	if (tw != NULL) {
		struct ust_tcp_addr6 *a6 = NULL;

		/* over IPv6 a copy of the addresses: the control block keeps
		 * its own while a descriptor holds it */
		if (tp->a6 != NULL) {
			a6 = ust_tcp_slab_get(&ts->a6_slab);
			if (a6 == NULL) {
				ust_tcp_slab_put(&ts->tw_slab, tw);
				tw = NULL;
				goto no_tw;
			}
			*a6 = *tp->a6;
		}
		memset(tw, 0, sizeof(*tw));
		tw->a6 = a6;
		ust_timer_init(&tw->timer, UST_TT_TW);
		tw->laddr = k.laddr;
		tw->raddr = k.raddr;
		tw->lport = k.lport;
		tw->rport = k.rport;
		tw->snd_nxt = tp->snd_nxt;
		tw->rcv_nxt = tp->rcv_nxt;
		tw->ts_ok = (tp->tflags & TF_TS_OK) != 0;
		tw->ts_offset = tp->ts_offset;
		tw->ts_recent = tp->ts_recent;
		tw->ts_recent_ns = tp->ts_recent_ns;
		tw->rcv_wnd = ust_tcp_window_field(tp);
		k.a6 = a6;
	}
no_tw:
	/* the control block leaves the hash; the entry takes its place */
	ust_tcp_done(stk, tp);
	if (tw == NULL) {
		/* no room: the 4-tuple is free at once */
		stk->mib[UST_MIB_TCPEXT_TCPTIMEWAITOVERFLOW]++;
		return;
	}
	if (ust_tcp_hash_add(stk, &k, tw, UST_TCP_OBJ_TW) < 0) {
		if (tw->a6 != NULL)
			ust_tcp_slab_put(&ts->a6_slab, tw->a6);
		ust_tcp_slab_put(&ts->tw_slab, tw);
		stk->mib[UST_MIB_TCPEXT_TCPTIMEWAITOVERFLOW]++;
		return;
	}
	ts->n_tw++;
	stk->mib[UST_MIB_TCPEXT_TW]++;
	ust_timer_arm(&ts->wheel, &tw->timer,
		      stk->now + (uint64_t)stk->conf.tcp.time_wait_ms *
		      NS_PER_MS);
}

void
ust_tcp_tw_free(struct ust_stack *stk, struct ust_tcp_tw *tw)
{
	struct ust_tcp_key k = { tw->laddr, tw->raddr, tw->lport, tw->rport,
				 tw->a6 };

	ust_timer_cancel(&stk->tcp->wheel, &tw->timer);
	ust_tcp_hash_del(stk, &k);
	if (tw->a6 != NULL)
		ust_tcp_slab_put(&stk->tcp->a6_slab, tw->a6);
	stk->tcp->n_tw--;
	ust_tcp_slab_put(&stk->tcp->tw_slab, tw);
}

void
ust_tcp_tw_input(struct ust_stack *stk, struct ust_tcp_tw *tw,
	     struct rte_mbuf *m, const struct ust_tcp_repr *th,
	     uint32_t seg_len)
{
	struct ust_tcp_key k = { tw->laddr, tw->raddr, tw->lport, tw->rport,
				 tw->a6 };
	struct ust_tcp_opts o;

	memset(&o, 0, sizeof(o));
	if (tw->ts_ok) {
		o.has = UST_TCPOPT_TS;
		o.tsval = tcp_ts_now(stk, tw->ts_offset);
		o.tsecr = tw->ts_recent;
	}
	if (th->flags & UST_TCP_RST) {
		/* An RST in sequence ends TIME_WAIT (RFC 9293 3.10.7.4, and
		 * Linux by default), unless rfc1337 is set (RFC 1337's fix:
		 * TIME_WAIT is not assassinated); any other RST is ignored
		 * (RFC 5961 3.2: no challenge from TIME_WAIT) */
		if (th->seq == tw->rcv_nxt && !stk->conf.tcp.rfc1337) {
			ust_tcp_tw_free(stk, tw);
			ust_consumed(stk);
			rte_pktmbuf_free(m);
			return;
		}
		ust_drop(stk, m, UST_DROP_TCP_RESET);
		return;
	}
	if (th->flags & UST_TCP_SYN) {
		/* handled by the caller (reuse, RFC 6191) when it is newer;
		 * here it is an old duplicate: answer with an ACK, once per
		 * invalid_ratelimit_ms at most (Linux's
		 * tcp_timewait_check_oow_rate_limit()) */
		if (!ust_tcp_oow_rate_limited(stk, &tw->oow_ack_ns,
				UST_MIB_TCPEXT_TCPACKSKIPPEDTIMEWAIT))
			ust_tcp_send_reply(stk, &k, tw->snd_nxt, tw->rcv_nxt,
				       UST_TCP_ACK, tw->rcv_wnd, &o);
		ust_drop(stk, m, UST_DROP_TCP_INVALID_SYN);
		return;
	}
	if ((th->flags & UST_TCP_FIN) && th->seq + seg_len == tw->rcv_nxt) {
		/* the peer did not hear our ACK of its FIN: again, and the
		 * 2 MSL start over (RFC 9293 3.10.7.4) */
		ust_tcp_send_reply(stk, &k, tw->snd_nxt, tw->rcv_nxt, UST_TCP_ACK,
			       tw->rcv_wnd, &o);
		ust_timer_arm(&stk->tcp->wheel, &tw->timer,
			      stk->now + (uint64_t)stk->conf.tcp.time_wait_ms *
			      NS_PER_MS);
		ust_consumed(stk);
		rte_pktmbuf_free(m);
		return;
	}
	if (seg_len == 0 && !(th->flags & UST_TCP_FIN) &&
	    th->seq == tw->rcv_nxt) {
		/* a late ACK, in sequence: nothing to do (one out of
		 * sequence is an old duplicate: an ACK, below) */
		ust_consumed(stk);
		rte_pktmbuf_free(m);
		return;
	}
	/* data after the connection ended, or an old duplicate: an ACK,
	 * rate limited as above */
	if (!ust_tcp_oow_rate_limited(stk, &tw->oow_ack_ns,
				  UST_MIB_TCPEXT_TCPACKSKIPPEDTIMEWAIT))
		ust_tcp_send_reply(stk, &k, tw->snd_nxt, tw->rcv_nxt, UST_TCP_ACK,
			       tw->rcv_wnd, &o);
	ust_drop(stk, m, UST_DROP_TCP_CLOSE);
}
