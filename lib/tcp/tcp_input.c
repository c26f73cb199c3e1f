/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * TCP input: segment arrival, RFC 9293 3.10.7.
 *
 * ust_tcp_input_burst() (IPv4 input hands it the TCP segments of an RX
 * burst together) validates each header with the wire parser, groups the
 * segments by 4-tuple and looks each 4-tuple up once in the connection
 * hash (one bulk lookup, the control blocks prefetched), which holds
 * control blocks, half-open entries and TIME_WAIT entries alike; then each
 * 4-tuple's segments go in their order, and the output of in-order data
 * waits for the connection's last segment in the burst (one ACK per
 * connection per burst, tcp_output_can_wait()). ust_tcp_input() does the
 * same for one segment. Each segment, its headers stripped, goes to:
 *
 *  - a control block in SYN-SENT: tcp_rcv_syn_sent() (3.10.7.3);
 *  - a control block in any other state: ust_tcp_rcv_established() runs the
 *    steps of 3.10.7.4 in the RFC's order, each in its own function:
 *    PAWS (RFC 7323 5.3), sequence check, RST (with RFC 5961's challenge
 *    ACK), SYN (RFC 5961 4), ACK (tcp_ack(): RTT, congestion control, loss
 *    detection (RACK-TLP with SACK, tcp_rack.c; duplicate ACKs and NewReno
 *    without), recovery with PRR, window update), segment text
 *    (tcp_data_in()), FIN (tcp_fin_in()), then output;
 *  - a half-open entry or a listener: tcp_listen.c;
 *  - a TIME_WAIT entry: tcp_timer.c, unless a newer SYN reuses the 4-tuple
 *    (RFC 6191);
 *  - nothing: an RST as 3.10.7.1 prescribes.
 *
 * The mbuf reaching a handler holds the payload only; the handler consumes
 * it (queues it, or frees it counting rx_consumed) or drops it with one
 * drop reason.
 */

#include <errno.h>
#include <string.h>

#include <rte_hash.h>
#include <rte_ip.h>
#include <rte_prefetch.h>

#include "tcp_cc.h"
#include "tcp_private.h"

#define NS_PER_MS 1000000ull

static void
tcp_free_consumed(struct ust_stack *stk, struct rte_mbuf *m)
{
	if (m == NULL)
		return;
	ust_consumed(stk);
	rte_pktmbuf_free(m);
}

/* Our window scale: the smallest shift that lets the 16-bit field cover
 * the largest receive buffer a connection may grow to (rmem_max, as Linux
 * sizes it from tcp_rmem[2]: 15 MiB gives 8), RFC 7323 2.2. */
uint8_t
ust_tcp_choose_wscale(const struct ust_stack *stk)
{
	uint32_t need = stk->conf.tcp.rmem_max;
	uint8_t ws = 0;

	if (!stk->conf.tcp.window_scaling)
		return 0;
	while (ws < UST_TCP_MAX_WSCALE && (UST_TCP_MAX_WIN << ws) < need)
		ws++;
	return ws;
}

static uint16_t
tcp_local_mss(const struct ust_stack *stk, uint32_t l3_hdr)
{
	/* the headroom holds Ethernet and IP; the TCP header with the
	 * longest options and the payload share the data room, so that a
	 * segment built linear always fits one mbuf */
	uint32_t room = rte_pktmbuf_data_room_size(stk->pool) -
		RTE_PKTMBUF_HEADROOM;
	uint32_t by_mbuf = room > UST_TCP_MAX_HDR_LEN + UST_TCP_DEFAULT_MSS ?
		room - (uint32_t)UST_TCP_MAX_HDR_LEN : UST_TCP_DEFAULT_MSS;
	uint32_t by_mtu = stk->netif.mtu - l3_hdr - UST_TCP_HDR_LEN;

	return (uint16_t)RTE_MIN(RTE_MIN(by_mtu, by_mbuf), (uint32_t)UINT16_MAX);
}

uint16_t
ust_tcp_local_mss(const struct ust_stack *stk)
{
	return tcp_local_mss(stk, (uint32_t)UST_IPV4_HDR_LEN);
}

uint16_t
ust_tcp_local_mss6(const struct ust_stack *stk)
{
	return tcp_local_mss(stk, (uint32_t)UST_IPV6_HDR_LEN);
}

void
ust_tcp_rcv_init(struct ust_tcp_sock *tp, uint32_t wnd)
{
	tp->rcv_wnd = wnd;
	tp->rcv_adv = tp->rcv_nxt + wnd;
}

void
ust_tcp_options_from_peer(struct ust_stack *stk, struct ust_tcp_sock *tp,
		      const struct ust_tcp_opts *o, bool syn)
{
	const struct ust_tcp_conf *c = &stk->conf.tcp;
	uint32_t mss = UST_TCP_DEFAULT_MSS;

	RTE_SET_USED(syn);
	/* RFC 9293 3.7.1: without a usable option (none, or 0), 536; a
	 * smaller value than our floor is raised to the floor, not to 536,
	 * which the peer said it cannot take */
	if ((o->has & UST_TCPOPT_MSS) && o->mss != 0)
		mss = RTE_MAX(o->mss, (uint16_t)UST_TCP_MIN_MSS);
	if (c->window_scaling && (o->has & UST_TCPOPT_WS)) {
		tp->tflags |= TF_WS_OK;
		tp->snd_wscale = o->wscale;
	} else {
		tp->snd_wscale = 0;
		tp->rcv_wscale = 0;
	}
	if (c->sack && (o->has & UST_TCPOPT_SACK_PERM))
		tp->tflags |= TF_SACK_OK;
	if (c->timestamps && (o->has & UST_TCPOPT_TS)) {
		tp->tflags |= TF_TS_OK;
		tp->ts_recent = o->tsval;
		tp->ts_recent_ns = stk->now;
	}
	mss = RTE_MIN(mss, (uint32_t)tp->rcv_mss);
	/* the MSS counts the payload of a segment without options: room for
	 * the timestamps comes off it (RFC 9293 3.7.1) */
	if (tp->tflags & TF_TS_OK)
		mss -= 12;
	tp->mss = (uint16_t)RTE_MAX(mss, (uint32_t)UST_TCP_MIN_MSS);
}

/*
 * Send-buffer autotuning, as Linux's tcp_sndbuf_expand(): unless the
 * application set SO_SNDBUF, the buffer holds at least two windows of
 * max(10, cwnd, reordering + 1) segments (CUBIC's recovery needs 1.7
 * windows queued), each counted as what a segment costs Linux without TSO
 * (its buffer rounded to a power of two, with the skb), up to wmem_max.
 * It only grows. ustack counts payload against it, as Linux's TSO skbs
 * nearly do. Called at establishment (tcp_init_buffer_space()) and when
 * an ACK frees room the application waits for while cwnd is not the limit
 * (tcp_new_space()): without it, an echo server whose sends wait in
 * recovery stops reading, and its closing window stalls the other
 * direction too.
 */
static void
tcp_sndbuf_expand(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	uint32_t mss = RTE_MAX((uint32_t)tp->mss, 1u);
	uint64_t per_mss = rte_align32pow2(mss + 640u) + 256u;
	uint64_t segs = RTE_MAX(RTE_MAX(10u, tp->cwnd / mss),
				(uint32_t)tp->rack.reordering + 1u);
	uint64_t want = RTE_MIN(2 * segs * per_mss,
				(uint64_t)stk->conf.tcp.wmem_max);

	if (!(tp->base.flags & UST_SKF_SNDBUF_LOCK) && tp->base.sndbuf < want)
		tp->base.sndbuf = (uint32_t)want;
}

void
ust_tcp_established(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	const struct ust_tcp_conf *c = &stk->conf.tcp;

	ust_tcp_set_state(stk, tp, UST_TCP_ESTABLISHED);
	tp->cwnd = ust_tcp_cc_init_cwnd(stk, tp);
	tp->lsnd_ns = stk->now;
	tp->ssthresh = INT32_MAX;
	tp->snd_buf_seq = tp->iss + 1;
	tp->recover = tp->iss;
	tp->cwnd_usage_seq = tp->snd_una;
	tp->rack.fack = tp->snd_una;
	tp->rack.end_seq = tp->snd_una;
	tp->rack.reo_wnd_mult = 1;
	tp->rack.reordering = UST_TCP_DUPTHRESH;
	tp->max_flight = 0;
	tp->snd_psh = tp->snd_buf_seq;
	tp->pushed_seq = tp->snd_buf_seq;
	tp->fp_tail = 0;
	tp->snd_sml = tp->snd_buf_seq;
	tp->high_rxt = tp->snd_una;
	tp->high_sacked = tp->snd_una;
	tp->quickack = (uint8_t)RTE_MIN(c->quickack, 255u);
	tp->backoff = 0;
	tp->probes = 0;
	tp->tflags |= TF_WAS_CONN;
	tp->lrcv_t = UST_TCP_T(stk->now);
	tp->lsnd_t = tp->lrcv_t;
	tp->ts_rto = tcp_ts_now(stk, tp->ts_offset);
	tp->cc->init(stk, tp);
	ust_timer_cancel(&stk->tcp->wheel, &tp->rtx_timer);
	tp->rtx_mode = UST_RTX_NONE;
	ust_tcp_keepalive_reset(stk, tp);
	tcp_sndbuf_expand(stk, tp);
	ust_tcp_rcv_space_init(stk, tp);
}

/* ---- SYN-SENT: RFC 9293 3.10.7.3 ---- */

static void
tcp_rcv_syn_sent(struct ust_stack *stk, struct ust_tcp_sock *tp,
		 struct rte_mbuf *m, const struct ust_tcp_repr *th)
{
	struct ust_tcp_key k;
	bool ack_ok = false;

	ust_tcp_key_of(tp, &k);
	/* first, check the ACK */
	if (th->flags & UST_TCP_ACK) {
		if (SEQ_LEQ(th->ack, tp->iss) || SEQ_GT(th->ack, tp->snd_max)) {
			if (!(th->flags & UST_TCP_RST))
				ust_tcp_send_reply(stk, &k, th->ack, 0, UST_TCP_RST,
					       0, NULL);
			ust_drop(stk, m, UST_DROP_TCP_INVALID_SEQUENCE);
			return;
		}
		ack_ok = true;
	}
	/* second, the RST: with an acceptable ACK, the connection is
	 * refused */
	if (th->flags & UST_TCP_RST) {
		if (!ack_ok) {
			ust_drop(stk, m, UST_DROP_TCP_RESET);
			return;
		}
		stk->mib[UST_MIB_TCP_ATTEMPTFAILS]++;
		tcp_free_consumed(stk, m);
		ust_tcp_abort(stk, tp, ECONNREFUSED, false);
		return;
	}
	/* fourth, the SYN */
	if (!(th->flags & UST_TCP_SYN)) {
		ust_drop(stk, m, UST_DROP_TCP_FLAGS);
		return;
	}
	tp->irs = th->seq;
	tp->rcv_nxt = th->seq + 1;
	/* the window our SYN announced, unscaled */
	ust_tcp_rcv_init(tp, RTE_MIN(ust_tcp_rcv_window(tp), UST_TCP_MAX_WIN));
	ust_tcp_options_from_peer(stk, tp, &th->opts, true);
	if (ack_ok) {
		tp->snd_una = th->ack;
		/* the window of a SYN is never scaled (RFC 7323 2.2) */
		tp->snd_wnd = th->window;
		tp->snd_wnd_max = tp->snd_wnd;
		tp->snd_wl1 = th->seq;
		tp->snd_wl2 = th->ack;
		/* Karn: the SYN is timed unless it was sent again */
		if (tp->backoff == 0)
			ust_tcp_rtt_sample(tp, (uint32_t)(stk->now / 1000) -
					    tp->rtt_start_us, &stk->conf.tcp);
		ust_tcp_established(stk, tp);
		tp->last_rcv_ns = stk->now;
		tp->tflags |= TF_ACK_NOW;
		tcp_free_consumed(stk, m);
		ust_tcp_output(stk, tp);
		ust_tcp_wakeup(tp);
		return;
	}
	/* a simultaneous open (3.10.7.3, "otherwise"): SYN-RECEIVED */
	ust_tcp_set_state(stk, tp, UST_TCP_SYN_RECEIVED);
	tcp_free_consumed(stk, m);
	ust_tcp_send_syn(stk, tp);
}

/* ---- the steps of 3.10.7.4 ---- */

/* Is [seq, seq + seg_len) acceptable? (RFC 9293 3.10.7.4, "first") */
static bool
tcp_seq_acceptable(const struct ust_tcp_sock *tp, uint32_t seq,
		   uint32_t seg_len)
{
	/* the window is the larger of the last one announced and what is
	 * left of it: its right edge never moves left (3.8.6.2.2) */
	uint32_t left = SEQ_GT(tp->rcv_adv, tp->rcv_nxt) ?
		tp->rcv_adv - tp->rcv_nxt : 0;
	uint32_t wnd = RTE_MAX(tp->rcv_wnd, left);
	/* RCV.NXT when the window was last announced (Linux's rcv_wup) */
	uint32_t wup = SEQ_MIN(tp->rcv_nxt, tp->rcv_adv - tp->rcv_wnd);

	/* The RFC's four cases, with the allowance it asks for ("special
	 * allowance should be made to accept valid ACKs, URGs, and RSTs")
	 * made as Linux's tcp_sequence() makes it: a segment is acceptable
	 * unless it ends before the window last announced or starts beyond
	 * its right edge. So an ACK at the right edge of a full (or zero)
	 * window, an ACK whose sender had not heard of our last segments,
	 * and data at RCV.NXT into a zero window go on for their control
	 * fields; their text, if any, is then dropped by tcp_data_in(). */
	return SEQ_GEQ(seq + seg_len, wup) &&
	       SEQ_LEQ(seq, tp->rcv_nxt + wnd);
}

/* Remove @n acknowledged data bytes from the send queue. */
static void
sndq_ack(struct ust_stack *stk, struct ust_tcp_sock *tp, uint32_t n)
{
	int off = stk->meta_off;

	while (n > 0) {
		struct rte_mbuf *m = tp->sndq.head, *h;

		if (m == tp->snd_cur)
			tp->snd_cur = NULL; /* it moves or goes */
		if (n >= m->pkt_len) {
			n -= m->pkt_len;
			tp->snd_buffered -= m->pkt_len;
			tp->snd_buf_seq += m->pkt_len;
			ust_pktq_pop(off, &tp->sndq);
			rte_pktmbuf_free(m);
			continue;
		}
		/* across segments for a chained mbuf (ust_send_burst()): the
		 * head may become the next segment */
		h = ust_mbuf_adj(off, m, n);
		if (h != m) {
			tp->sndq.head = h;
			if (tp->sndq.tail == m)
				tp->sndq.tail = h;
		}
		tp->snd_buffered -= n;
		tp->snd_buf_seq += n;
		n = 0;
	}
}

void
ust_tcp_enter_recovery(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	bool sack = (tp->tflags & TF_SACK_OK) != 0;

	stk->mib[UST_MIB_TCPEXT_TCPFASTRETRANS]++;
	stk->mib[sack ? UST_MIB_TCPEXT_TCPSACKRECOVERY :
		 UST_MIB_TCPEXT_TCPRENORECOVERY]++;
	tp->ssthresh = tp->cc->ssthresh(stk, tp);
	tp->recover = tp->snd_max;
	tp->tflags |= TF_RECOVERY;
	tp->tflags &= ~TF_RTT_TIMING;
	tp->high_rxt = tp->snd_una;
	tp->cc->event(stk, tp, UST_CC_EV_RECOVERY_ENTER);
	if (sack) {
		/* RACK marked segments lost (RFC 8985 6.2): PRR sets cwnd
		 * per ACK from here (RFC 6937), the lost ones go first */
		ust_tcp_prr_init(tp);
		return;
	}
	/* RFC 6582 3.2 2-3: retransmit, cwnd = ssthresh + 3 * SMSS */
	ust_tcp_send_segment(stk, tp, tp->snd_una,
			 RTE_MIN((uint32_t)tp->mss,
				 tcp_snd_data_end(tp) - tp->snd_una),
			 UST_TCP_ACK, true);
	tp->high_rxt = tp->snd_una + tp->mss;
	tp->cwnd = tp->ssthresh + UST_TCP_DUPTHRESH * tp->mss;
}

enum ack_result { ACK_OK, ACK_DROP_OLD, ACK_DROP_UNSENT };

/* RFC 2883 4: the first block a D-SACK (below the cumulative ACK, or
 * within the second block) */
static bool
tcp_is_dsack(const struct ust_tcp_opts *o, uint32_t ack)
{
	if (!(o->has & UST_TCPOPT_SACK) || o->nsack == 0)
		return false;
	if (SEQ_LEQ(o->sack[0].end, ack))
		return true;
	return o->nsack > 1 && SEQ_GEQ(o->sack[0].start, o->sack[1].start) &&
	       SEQ_LEQ(o->sack[0].end, o->sack[1].end);
}

/* RFC 8985 7.4: did the loss probe repair a loss? (as Linux's
 * tcp_process_tlp_ack()) If the probe was sent again and what it sent
 * was not reported twice (D-SACK), the original was lost: congestion
 * control reduces the window as for a recovery that is already over. */
static void
tcp_tlp_ack(struct ust_stack *stk, struct ust_tcp_sock *tp, uint32_t ack,
	    bool dsack, bool dup)
{
	struct ust_tcp_rack *r = &tp->rack;

	if (!r->tlp_out || SEQ_LT(ack, r->tlp_end_seq))
		return;
	if (!r->tlp_is_retrans || dsack) {
		r->tlp_out = false;
	} else if (SEQ_GT(ack, r->tlp_end_seq)) {
		r->tlp_out = false;
		tp->ssthresh = tp->cc->ssthresh(stk, tp);
		tp->cwnd = tp->ssthresh;
		tp->cc->event(stk, tp, UST_CC_EV_RECOVERY_EXIT);
	} else if (dup) {
		/* a duplicate ACK of the probe: the original arrived */
		r->tlp_out = false;
	}
}

/* Fifth, the ACK field (RFC 9293 3.10.7.4), for synchronized states. */
static enum ack_result
tcp_ack(struct ust_stack *stk, struct ust_tcp_sock *tp,
	const struct ust_tcp_repr *th, uint32_t payload_len)
{
	uint32_t ack = th->ack;
	/* RFC 7323 2.2: the window of a segment with SYN is never scaled
	 * (here: the SYN-ACK ending a simultaneous open) */
	uint32_t win = (th->flags & UST_TCP_SYN) ? th->window :
		(uint32_t)th->window << tp->snd_wscale;
	uint32_t max_wnd = RTE_MAX(tp->snd_wnd_max, UST_TCP_MAX_WIN);
	bool new_sack = false, dsack = false, advanced, dup;

	if (SEQ_GT(ack, tp->snd_max)) {
		/* it acknowledges what we never sent: RFC 5961 5.2, a
		 * challenge ACK (rate limited as the others: a forged segment
		 * gets no ACK per segment) */
		ust_tcp_challenge_ack(stk, tp);
		return ACK_DROP_UNSENT;
	}
	if (SEQ_LT(ack, tp->snd_una - max_wnd)) {
		/* RFC 5961 5.2: too old to be acceptable */
		ust_tcp_challenge_ack(stk, tp);
		return ACK_DROP_OLD;
	}
	advanced = SEQ_GT(ack, tp->snd_una);
	dup = !advanced && payload_len == 0 && win == tp->snd_wnd &&
		!(th->flags & (UST_TCP_SYN | UST_TCP_FIN));
	if ((tp->tflags & TF_SACK_OK) && (th->opts.has & UST_TCPOPT_SACK)) {
		uint32_t before = tp->sacked_bytes;

		dsack = tcp_is_dsack(&th->opts, ack);
		if (dsack)
			stk->mib[UST_MIB_TCPEXT_TCPDSACKRECV]++;

		ust_tcp_sack_sender_update(tp, &th->opts);
		new_sack = tp->sacked_bytes > before;
	}

	if (SEQ_GT(ack, tp->snd_una)) {
		uint32_t acked = ack - tp->snd_una, cc_acked = acked;
		uint32_t data_end = tcp_snd_data_end(tp);
		uint32_t data_acked, rtt_us = 0;

		/* RTT (RFC 6298): the segment timed in microseconds (Karn:
		 * never a retransmitted one), else the echoed timestamp
		 * (RFC 7323 4.1), whose resolution is a millisecond */
		if ((tp->tflags & TF_RTT_TIMING) && SEQ_GT(ack, tp->rtt_seq)) {
			tp->tflags &= ~TF_RTT_TIMING;
			rtt_us = (uint32_t)(stk->now / 1000) -
				tp->rtt_start_us;
			ust_tcp_rtt_sample(tp, rtt_us, &stk->conf.tcp);
		} else if (!(tp->tflags & TF_RTT_TIMING) &&
			   (tp->tflags & TF_TS_OK) &&
			   (th->opts.has & UST_TCPOPT_TS) &&
			   th->opts.tsecr != 0 &&
			   SEQ_GEQ(th->opts.tsecr, tp->ts_rto) &&
			   SEQ_LEQ(th->opts.tsecr, tp->ts_data_tx)) {
			/* (an echo from before the last timeout answers a
			 * duplicate of go-back-N, and one newer than our
			 * last data echoes a pure ACK: either would time an
			 * outage or the peer's silence, not the path; RFC
			 * 7323 4.1 leaves the choice of samples open) */
			uint32_t ms = tcp_ts_now(stk, tp->ts_offset) -
				th->opts.tsecr;

			/* an echo that took longer than the RTO is a late
			 * ACK (lost ACKs, then the peer's silence), not the
			 * path: growth of the path's RTT is still seen by the
			 * timed segments above */
			if ((uint64_t)ms * 1000 <= tp->rto_us) {
				rtt_us = ms * 1000 + 500;
				ust_tcp_rtt_sample(tp, rtt_us, &stk->conf.tcp);
			}
		}
		/* the data part of what is acknowledged (not SYN, not FIN) */
		data_acked = SEQ_MIN(ack, data_end) - tp->snd_buf_seq;
		if (SEQ_GT(SEQ_MIN(ack, data_end), tp->snd_buf_seq))
			sndq_ack(stk, tp, data_acked);
		tp->snd_una = ack;
		tp->bytes_acked_total += acked;
		if (SEQ_LT(tp->snd_nxt, tp->snd_una))
			tp->snd_nxt = tp->snd_una;
		if (SEQ_LT(tp->high_rxt, tp->snd_una))
			tp->high_rxt = tp->snd_una;
		ust_tcp_sack_sender_clean(tp);
		/* without SACK, each duplicate ACK told of a segment that
		 * arrived: the ACK that fills the hole delivers the rest only
		 * (at least one segment), as Linux's tcp_remove_reno_sacks() */
		if (!(tp->tflags & TF_SACK_OK) && tp->dupacks > 0) {
			uint32_t told = (uint32_t)tp->dupacks * tp->mss;

			cc_acked = acked > told ? acked - told : 0;
			cc_acked = RTE_MAX(cc_acked,
					   RTE_MIN(acked, (uint32_t)tp->mss));
		}
		tp->dupacks = 0;
		tp->backoff = 0;
		tp->soft_err = 0; /* the path works: an ICMP error is old */
		if (tp->tflags & TF_RECOVERY) {
			if (SEQ_GEQ(ack, tp->recover)) {
				/* RFC 6582 3.2 3 / RFC 6675 5: full ACK */
				tp->cwnd = (tp->tflags & TF_SACK_OK) ?
					tp->ssthresh :
					RTE_MIN(tp->ssthresh,
						tcp_flight(tp) + tp->mss);
				tp->tflags &= ~TF_RECOVERY;
				ust_tcp_rack_recovery_end(tp);
				tp->cc->event(stk, tp,
					      UST_CC_EV_RECOVERY_EXIT);
			} else if (!(tp->tflags & TF_SACK_OK)) {
				/* RFC 6582 3.2 4: partial ACK, retransmit the
				 * next hole, deflate */
				ust_tcp_send_segment(stk, tp, tp->snd_una,
					RTE_MIN((uint32_t)tp->mss,
						data_end - tp->snd_una),
					UST_TCP_ACK, true);
				tp->cwnd = tp->cwnd > acked ?
					tp->cwnd - acked + tp->mss : tp->mss;
			}
		} else {
			if ((tp->tflags & TF_LOSS) && SEQ_GEQ(ack, tp->recover))
				tp->tflags &= ~TF_LOSS;
			/* no growth while application-limited (RFC 7661,
			 * Linux's tcp_is_cwnd_limited()); with SACK, after
			 * RACK below, by what the ACK delivered */
			if (!(tp->tflags & TF_SACK_OK) && rtt_us != 0 &&
			    tp->cc->pkts_acked != NULL)
				tp->cc->pkts_acked(stk, tp, rtt_us);
			if (!(tp->tflags & TF_SACK_OK) &&
			    ust_tcp_cc_cwnd_limited(tp))
				tp->cc->cong_avoid(stk, tp, cc_acked);
		}
		/* RFC 6298 5.2-5.3: all acknowledged, stop; else restart */
		tp->tflags &= ~TF_TLP_SENT;
		if (tp->snd_una == tp->snd_max) {
			ust_tcp_rtx_stop(stk, tp);
			tcp_chrono_stop(stk, tp, UST_CHRONO_BUSY);
		} else if (tp->rtx_mode == UST_RTX_RTO ||
			   tp->rtx_mode == UST_RTX_TLP) {
			ust_tcp_rtx_rearm(stk, tp, true);
		}
		/* the buffer grows when what waits in it, sent at once,
		 * would leave room in cwnd (Linux checks after the push) */
		if (tp->tflags & TF_NOSPACE) {
			uint32_t queued = data_end - tp->snd_una;

			if (queued - RTE_MIN(queued, tp->sacked_bytes) <
			    tp->cwnd)
				tcp_sndbuf_expand(stk, tp);
		}
		/* the application is no longer held by the send buffer once
		 * a third of it is free (Linux's sk_stream_min_wspace():
		 * free space at least half of what is queued) */
		if ((tp->tflags & TF_NOSPACE) &&
		    tp->base.sndbuf - RTE_MIN(tp->snd_buffered,
					      tp->base.sndbuf) >=
		    tp->snd_buffered / 2) {
			tp->tflags &= ~TF_NOSPACE;
			tcp_chrono_stop(stk, tp, UST_CHRONO_SNDBUF);
		}
		if (tp->snd_buffered < tp->base.sndbuf)
			ust_tcp_wakeup(tp);
	} else if (ack == tp->snd_una && tp->snd_una != tp->snd_max &&
		   (new_sack || (payload_len == 0 &&
				 !(th->flags & (UST_TCP_SYN | UST_TCP_FIN)) &&
				 win == tp->snd_wnd))) {
		/* a duplicate ACK: RFC 5681 2's definition, or RFC 6675 2's
		 * (an ACK that SACKs data not SACKed before, whatever its
		 * window or payload) */
		tp->dupacks++;
		if (tp->tflags & TF_RECOVERY) {
			if (!(tp->tflags & TF_SACK_OK))
				tp->cwnd += tp->mss; /* RFC 6582: inflate */
		} else if (!(tp->tflags & (TF_LOSS | TF_SACK_OK)) &&
			   tp->dupacks >= UST_TCP_DUPTHRESH) {
			/* without SACK only: with it, RACK decides below */
			ust_tcp_enter_recovery(stk, tp);
		}
	}
	if (tp->tflags & TF_SACK_OK) {
		/* RACK (RFC 8985 6.2): what this ACK delivered, and what is
		 * lost; losses start recovery (Linux's tcp_time_to_recover()
		 * with RACK: no duplicate-ACK threshold), where PRR paces
		 * the sending (RFC 6937) */
		uint32_t delivered, segs;
		uint64_t reo, rtt;
		bool lost;

		delivered = ust_tcp_rack_ack(stk, tp, dsack, &lost, &reo, &rtt,
					     &segs);
		/* the congestion control's RTT sample (CUBIC's HyStart),
		 * in us to the nearest (the transmissions' stamps are up to
		 * a few ns apart within a poll: ust_tcp_send_segment()) */
		if (rtt != 0 && tp->cc->pkts_acked != NULL)
			tp->cc->pkts_acked(stk, tp, (uint32_t)RTE_MIN(
				(rtt + 500) / 1000, (uint64_t)UINT32_MAX));
		tcp_tlp_ack(stk, tp, ack, dsack, dup && !new_sack);
		if (lost && !(tp->tflags & (TF_RECOVERY | TF_LOSS)))
			ust_tcp_enter_recovery(stk, tp);
		if (tp->tflags & TF_RECOVERY)
			ust_tcp_prr_ack(tp, segs, advanced, lost);
		else if ((advanced || (delivered > 0 &&
				       tp->rack.reordering > UST_TCP_DUPTHRESH)) &&
			 ust_tcp_cc_cwnd_limited(tp))
			/* cwnd grows by what this ACK delivered, SACKed
			 * segments included (Linux's tcp_cong_control() with
			 * tcp_may_raise_cwnd(): on an ACK that advances
			 * SND.UNA, or, once reordering beyond DupThresh was
			 * seen, on any ACK that delivers, a SACK alone
			 * included); what was SACKed before counts no more */
			tp->cc->cong_avoid(stk, tp, delivered);
		/* RFC 8985 6.3: the reordering timer, in the RTO's place */
		if (reo > 0)
			ust_tcp_rtx_arm(stk, tp, UST_RTX_REO, reo);
		else if (tp->rtx_mode == UST_RTX_REO)
			ust_tcp_rtx_rearm(stk, tp, true);
	}
	/* the window (3.10.7.4 fifth, "if SND.UNA =< SEG.ACK =< SND.NXT") */
	if (SEQ_LT(tp->snd_wl1, th->seq) ||
	    (tp->snd_wl1 == th->seq && SEQ_LEQ(tp->snd_wl2, ack))) {
		bool opened = win > tp->snd_wnd;

		tp->snd_wnd = win;
		tp->snd_wnd_max = RTE_MAX(tp->snd_wnd_max, win);
		tp->snd_wl1 = th->seq;
		tp->snd_wl2 = ack;
		if (opened && tp->rtx_mode == UST_RTX_PERSIST) {
			tp->backoff = 0;
			ust_tcp_rtx_stop(stk, tp);
		}
	}
	/* an answer to our zero-window probes: only unanswered probes count
	 * towards giving up (RFC 1122 4.2.2.17: the connection MUST NOT be
	 * closed while the receiver keeps acknowledging them) */
	if (tp->rtx_mode == UST_RTX_PERSIST)
		tp->probes = 0;
	return ACK_OK;
}

/* Schedule our ACK for in-order data (RFC 9293 3.8.6.3, RFC 1122
 * 4.2.3.2): at once while quick-acking or on every second full segment,
 * else after delack_ms. */
static void
tcp_ack_schedule(struct ust_stack *stk, struct ust_tcp_sock *tp,
		 uint32_t len)
{
	if (len >= tp->mss)
		tp->unacked_segs++;
	if (tp->quickack > 0) {
		tp->quickack--;
		tp->tflags |= TF_ACK_NOW;
	} else if ((tp->tflags & TF_QUICKACK) || tp->unacked_segs >= 2) {
		tp->tflags |= TF_ACK_NOW;
	} else {
		ust_tcp_delack_arm(stk, tp);
	}
}

/* Data below rcv_nxt arrived again: the part of [seq, seq + len) we had is
 * reported in a D-SACK block (RFC 2883; Linux's tcp_send_dupack() and
 * tcp_data_queue()) */
static void
tcp_dsack_old(struct ust_stack *stk, struct ust_tcp_sock *tp, uint32_t seq,
	      uint32_t len)
{
	if (len > 0 && SEQ_LT(seq, tp->rcv_nxt))
		ust_tcp_dsack_set(stk, tp, seq,
				  SEQ_MIN(seq + len, tp->rcv_nxt));
}

/* Seventh, the segment text. Consumes or drops @m. */
static void
tcp_data_in(struct ust_stack *stk, struct ust_tcp_sock *tp,
	    struct rte_mbuf *m, uint32_t seq)
{
	int off = stk->meta_off;
	uint32_t len = m->pkt_len, ts;
	bool was_empty = tp->rcvq.len == 0, charged;

	/* all of it arrived before (the segment was acceptable for its FIN
	 * or its ACK): a duplicate, answered at once (RFC 5681 4.2); a FIN
	 * it carries is the caller's */
	if (SEQ_LEQ(seq + len, tp->rcv_nxt)) {
		tcp_dsack_old(stk, tp, seq, len);
		tp->tflags |= TF_ACK_NOW;
		ust_drop(stk, m, UST_DROP_TCP_OLD_DATA);
		return;
	}
	/* what lies beyond the window we announced is not ours to keep */
	if (SEQ_GT(seq + len, tp->rcv_nxt + tp->rcv_wnd)) {
		uint32_t keep = SEQ_GT(tp->rcv_nxt + tp->rcv_wnd, seq) ?
			tp->rcv_nxt + tp->rcv_wnd - seq : 0;

		/* nothing new fits: it starts beyond the window, or (a
		 * zero window) before rcv_nxt with all that is new beyond */
		if (keep == 0 || SEQ_LEQ(seq + keep, tp->rcv_nxt)) {
			stk->mib[UST_MIB_TCPEXT_TCPZEROWINDOWDROP]++;
			tp->tflags |= TF_ACK_NOW;
			ust_drop(stk, m, UST_DROP_TCP_ZEROWINDOW);
			return;
		}
		ust_mbuf_trim_to(m, keep);
		len = keep;
	}
	/* a chained segment (scattered receive; a sender's attached pieces
	 * over an in-process port) that fits its first buffer is copied
	 * there: it then pins one buffer, not two (Linux's tcp_collapse()
	 * under memory pressure; here at once, since the window assumes a
	 * buffer per segment, in order or not) */
	if (unlikely(m->nb_segs > 1) && RTE_MBUF_DIRECT(m) &&
	    rte_mbuf_refcnt_read(m) == 1 && rte_pktmbuf_linearize(m) == 0)
		stk->mib[UST_MIB_TCPEXT_TCPRCVCOLLAPSED]++;
	/* what we have already (reported in a D-SACK block) */
	if (SEQ_LT(seq, tp->rcv_nxt)) {
		tcp_dsack_old(stk, tp, seq, len);
		m = ust_mbuf_adj(off, m, tp->rcv_nxt - seq);
		len -= tp->rcv_nxt - seq;
		seq = tp->rcv_nxt;
	}
	if (seq != tp->rcv_nxt) {
		/* a hole before it: out of order, ACK at once (RFC 5681 4.2)
		 * with SACK blocks */
		tp->tflags |= TF_ACK_NOW;
		ust_tcp_reass_insert(stk, tp, m, seq, len);
		return;
	}
	if (tp->rcvq.tail != NULL && m->nb_segs == 1 &&
	    tp->rcvq.tail->nb_segs == 1 && len <= UST_TCP_COALESCE_MAX &&
	    len <= rte_pktmbuf_tailroom(tp->rcvq.tail)) {
		/* a small segment joins the tail's buffer, as Linux's
		 * tcp_try_coalesce(): no new truesize, so a peer sending
		 * small segments fills the window, not the memory */
		struct rte_mbuf *tail = tp->rcvq.tail;

		memcpy(rte_pktmbuf_mtod_offset(tail, uint8_t *,
					       tail->data_len),
		       rte_pktmbuf_mtod(m, const uint8_t *), len);
		tail->data_len = (uint16_t)(tail->data_len + len);
		tail->pkt_len += len;
		stk->mib[UST_MIB_TCPEXT_TCPRCVCOALESCE]++;
		tcp_free_consumed(stk, m);
		goto queued;
	}
	ts = ust_truesize(m);
	charged = ust_tcp_rmem_charge(stk, tp, ts);
	if (!charged && tp->ofoq.len > 0) {
		/* the segment the window waits for comes before what waits
		 * beyond a hole: the out-of-order queue goes (Linux's
		 * tcp_prune_ofo_queue()), or a queue full of it would stall
		 * the connection; SACK reneging is allowed (RFC 2018 8) */
		stk->mib[UST_MIB_TCPEXT_OFOPRUNED]++;
		ust_tcp_reass_purge(stk, tp, UST_DROP_TCP_OFO_QUEUE_PRUNE);
		tp->tflags &= ~TF_OFO_FIN;
		charged = ust_tcp_rmem_charge(stk, tp, ts);
	}
	if (!charged) {
		stk->mib[UST_MIB_TCPEXT_TCPRCVQDROP]++;
		tp->tflags |= TF_ACK_NOW;
		ust_drop(stk, m, tp->rmem_alloc + ts > tp->rcvbuf ?
			 UST_DROP_SOCKET_RCVBUFF : UST_DROP_PROTO_MEM);
		return;
	}
	ust_meta(off, m)->truesize = ts;
	tcp_mseq_set(off, m, seq);
	ust_pktq_push(off, &tp->rcvq, m);
	ust_consumed(stk);
queued:
	tp->lrcv_t = UST_TCP_T(stk->now);
	tp->rcv_buffered += len;
	tp->rcv_nxt += len;
	tp->bytes_received += len;
	if (tp->ofoq.len > 0) {
		/* a hole filled: ACK at once (RFC 5681 4.2) */
		ust_tcp_reass_pull(stk, tp);
		tp->tflags |= TF_ACK_NOW;
	} else {
		tcp_ack_schedule(stk, tp, len);
	}
	/* level-triggered sets hear of data into an empty queue; an
	 * edge-triggered one of every segment, as Linux's sk_data_ready */
	if (was_empty || (tp->base.ep_events & UST_EPOLLET))
		ust_tcp_wakeup(tp);
}

/* Eighth, the FIN (it is in order: at rcv_nxt). */
static void
tcp_fin_in(struct ust_stack *stk, struct ust_tcp_sock *tp, bool *time_wait)
{
	bool fin_acked = (tp->tflags & TF_FIN_SENT) && tp->snd_una == tp->snd_max;

	tp->rcv_nxt++;
	tp->tflags |= TF_FIN_RCVD | TF_ACK_NOW;
	tp->tflags &= ~TF_OFO_FIN;
	/* what waits out of order lies beyond the FIN, where the peer has
	 * nothing to send: dropped, as Linux's tcp_fin() does */
	if (tp->ofoq.len > 0)
		ust_tcp_reass_purge(stk, tp, UST_DROP_TCP_ABORT);
	switch (tp->state) {
	case UST_TCP_SYN_RECEIVED:
	case UST_TCP_ESTABLISHED:
		ust_tcp_set_state(stk, tp, UST_TCP_CLOSE_WAIT);
		break;
	case UST_TCP_FIN_WAIT_1:
		if (fin_acked)
			*time_wait = true;
		else
			ust_tcp_set_state(stk, tp, UST_TCP_CLOSING);
		break;
	case UST_TCP_FIN_WAIT_2:
		*time_wait = true;
		break;
	default:
		break;
	}
	ust_tcp_wakeup(tp);
}

/* Whether the output after this segment may wait for the connection's
 * next segment in the same burst (ust_tcp_input_burst()): one cumulative
 * ACK for in-order data, as after Linux's GRO, and one output for a run of
 * ACKs. What must go per segment does: the ACKs of out-of-order data (the
 * duplicate ACKs and SACK blocks a sender's loss detection counts, RFC
 * 5681 4.2) and of a duplicate or what the window cut (the segment was not
 * all taken in order), D-SACK blocks, and the ACK of a FIN or of a change
 * of state (a FIN leaves ESTABLISHED, which the state test covers). */
static inline bool
tcp_output_can_wait(const struct ust_tcp_sock *tp,
		    const struct ust_tcp_repr *th, uint32_t rcv_nxt0,
		    uint32_t payload, bool time_wait)
{
	return !time_wait && tp->state == UST_TCP_ESTABLISHED &&
	       th->seq == rcv_nxt0 && tp->rcv_nxt - rcv_nxt0 >= payload &&
	       tp->ofoq.len == 0 && !(tp->tflags & TF_DSACK);
}

void
ust_tcp_rcv_established(struct ust_stack *stk, struct ust_tcp_sock *tp,
		    struct rte_mbuf *m, const struct ust_tcp_repr *th,
		    uint32_t seg_len)
{
	const struct ust_tcp_opts *o = &th->opts;
	uint32_t payload = m->pkt_len, rcv_nxt0 = tp->rcv_nxt;
	bool time_wait = false, fin_acked, ts_update;
	enum ack_result ar;
	/* a simultaneous open (RFC 9293 figure 8, line 6): the peer's
	 * SYN-ACK repeats a SYN we acknowledged already, so that the steps
	 * below read literally find it unacceptable, and neither end would
	 * leave SYN-RECEIVED; as Linux, it is taken for the ACK it carries */
	bool synack = tp->state == UST_TCP_SYN_RECEIVED &&
		(th->flags & (UST_TCP_SYN | UST_TCP_ACK | UST_TCP_RST |
			      UST_TCP_FIN)) == (UST_TCP_SYN | UST_TCP_ACK) &&
		th->seq + 1 == tp->rcv_nxt && payload == 0;

	/* first: PAWS (RFC 7323 5.3 R1) */
	if ((tp->tflags & TF_TS_OK) && (o->has & UST_TCPOPT_TS) &&
	    !(th->flags & UST_TCP_RST) && SEQ_LT(o->tsval, tp->ts_recent) &&
	    stk->now - tp->ts_recent_ns < UST_TCP_PAWS_IDLE_MS * NS_PER_MS) {
		stk->mib[UST_MIB_TCPEXT_PAWSESTAB]++;
		/* RFC 7323 5.3 R1: an ACK, one per invalid_ratelimit_ms */
		if (!ust_tcp_oow_rate_limited(stk, &tp->oow_ack_ns,
					  UST_MIB_TCPEXT_TCPACKSKIPPEDPAWS)) {
			tcp_dsack_old(stk, tp, th->seq, payload);
			tp->tflags |= TF_ACK_NOW;
			ust_tcp_output(stk, tp);
		}
		ust_drop(stk, m, UST_DROP_TCP_RFC7323_PAWS);
		return;
	}
	/* first: the sequence number */
	if (!synack && !tcp_seq_acceptable(tp, th->seq, seg_len)) {
		/* RFC 9293 3.10.7.4: an unacceptable segment gets an ACK
		 * (unless it is an RST), a SYN a challenge ACK (RFC 5961
		 * 4.2); both once per invalid_ratelimit_ms at most (Linux's
		 * ust_tcp_oow_rate_limited(), here for data too: one ACK says
		 * all the peer needs to know, and a flood of forged segments
		 * must not get one ACK each) */
		if (th->flags & UST_TCP_SYN) {
			stk->mib[UST_MIB_TCPEXT_TCPSYNCHALLENGE]++;
			ust_tcp_challenge_ack(stk, tp);
		} else if (!(th->flags & UST_TCP_RST) &&
			   !ust_tcp_oow_rate_limited(stk, &tp->oow_ack_ns,
					UST_MIB_TCPEXT_TCPACKSKIPPEDSEQ)) {
			tcp_dsack_old(stk, tp, th->seq, payload);
			tp->tflags |= TF_ACK_NOW;
			ust_tcp_output(stk, tp);
		}
		ust_drop(stk, m, SEQ_LT(th->seq, tp->rcv_nxt) ?
			 UST_DROP_TCP_OLD_DATA :
			 tp->rcv_wnd == 0 ? UST_DROP_TCP_ZEROWINDOW :
			 UST_DROP_TCP_INVALID_SEQUENCE);
		return;
	}
	/* RFC 7323 4.3 (R3) says which timestamp to echo: that of a segment
	 * with SEG.TSval >= TS.Recent and SEG.SEQ <= Last.ACK.sent. It is
	 * taken below, once the segment has proven acceptable and its ACK
	 * has been accepted (as Linux's tcp_replace_ts_recent() since 2013):
	 * a forged segment at RCV.NXT with a TSval far ahead and an ACK of
	 * unsent data, or an RST, must not move it, or every later segment
	 * of the peer would fail PAWS. */
	ts_update = (tp->tflags & TF_TS_OK) && (o->has & UST_TCPOPT_TS) &&
		SEQ_GEQ(o->tsval, tp->ts_recent) &&
		SEQ_LEQ(th->seq, tp->rcv_nxt);
	/* second: RST (RFC 5961 3.2: only an exact match resets) */
	if (th->flags & UST_TCP_RST) {
		if (th->seq != tp->rcv_nxt) {
			ust_tcp_challenge_ack(stk, tp);
			ust_drop(stk, m, UST_DROP_TCP_RESET);
			return;
		}
		tcp_free_consumed(stk, m);
		switch (tp->state) {
		case UST_TCP_SYN_RECEIVED:
			stk->mib[UST_MIB_TCP_ATTEMPTFAILS]++;
			ust_tcp_abort(stk, tp, ECONNREFUSED, false);
			break;
		case UST_TCP_ESTABLISHED:
		case UST_TCP_FIN_WAIT_1:
		case UST_TCP_FIN_WAIT_2:
		case UST_TCP_CLOSE_WAIT:
			stk->mib[UST_MIB_TCP_ESTABRESETS]++;
			ust_tcp_abort(stk, tp, ECONNRESET, false);
			break;
		default:
			ust_tcp_done(stk, tp);
			break;
		}
		return;
	}
	/* fourth: a SYN in a synchronized state (RFC 5961 4.2) */
	if ((th->flags & UST_TCP_SYN) && !synack) {
		stk->mib[UST_MIB_TCPEXT_TCPSYNCHALLENGE]++;
		ust_tcp_challenge_ack(stk, tp);
		ust_drop(stk, m, UST_DROP_TCP_INVALID_SYN);
		return;
	}
	/* fifth: the ACK */
	if (!(th->flags & UST_TCP_ACK)) {
		ust_drop(stk, m, UST_DROP_TCP_FLAGS);
		return;
	}
	if (tp->state == UST_TCP_SYN_RECEIVED) {
		/* the end of a simultaneous open */
		if (SEQ_LEQ(th->ack, tp->snd_una) ||
		    SEQ_GT(th->ack, tp->snd_max)) {
			struct ust_tcp_key k;

			ust_tcp_key_of(tp, &k);
			ust_tcp_send_reply(stk, &k, th->ack, 0, UST_TCP_RST, 0,
				       NULL);
			ust_drop(stk, m, UST_DROP_TCP_INVALID_SEQUENCE);
			return;
		}
		tp->snd_wl1 = th->seq;
		tp->snd_wl2 = th->ack;
		/* the window of a SYN-ACK is not scaled (RFC 7323 2.2) */
		tp->snd_wnd = synack ? th->window :
			(uint32_t)th->window << tp->snd_wscale;
		tp->snd_wnd_max = tp->snd_wnd;
		ust_tcp_established(stk, tp);
		/* a close in SYN-RECEIVED, queued until now (RFC 9293
		 * 3.10.4): the FIN goes with the output below */
		if (tp->tflags & TF_FIN_QUEUED)
			ust_tcp_set_state(stk, tp, UST_TCP_FIN_WAIT_1);
		ust_tcp_wakeup(tp);
	}
	if (payload == 0 && !(th->flags & UST_TCP_FIN))
		stk->mib[UST_MIB_TCPEXT_TCPPUREACKS]++;
	ar = tcp_ack(stk, tp, th, payload);
	if (ar != ACK_OK) {
		ust_tcp_output(stk, tp);
		ust_drop(stk, m, ar == ACK_DROP_OLD ? UST_DROP_TCP_OLD_ACK :
			 UST_DROP_TCP_ACK_UNSENT_DATA);
		return;
	}
	/* the segment is acceptable and so is its ACK: now its timestamp
	 * (RFC 7323 4.3, above) and the peer's liveness, which the keepalive
	 * timer reads (a forged segment must not keep a dead peer's
	 * connection open, nor reset the count of unanswered probes) */
	if (ts_update) {
		tp->ts_recent = o->tsval;
		tp->ts_recent_ns = stk->now;
	}
	tp->last_rcv_ns = stk->now;
	if (tp->rtx_mode == UST_RTX_KEEPALIVE)
		tp->probes = 0;
	fin_acked = (tp->tflags & TF_FIN_SENT) && tp->snd_una == tp->snd_max;
	switch (tp->state) {
	case UST_TCP_FIN_WAIT_1:
		if (fin_acked) {
			ust_tcp_set_state(stk, tp, UST_TCP_FIN_WAIT_2);
			if (tp->tflags & TF_ORPHAN)
				ust_tcp_rtx_arm(stk, tp, UST_RTX_FIN_WAIT2,
					    (uint64_t)stk->conf.tcp.fin_timeout_ms *
					    NS_PER_MS);
		}
		break;
	case UST_TCP_CLOSING:
		if (fin_acked) {
			tcp_free_consumed(stk, m);
			ust_tcp_enter_time_wait(stk, tp);
			return;
		}
		break;
	case UST_TCP_LAST_ACK:
		if (fin_acked) {
			tcp_free_consumed(stk, m);
			ust_tcp_done(stk, tp);
			return;
		}
		break;
	default:
		break;
	}
	/* seventh: the segment text */
	if (payload > 0) {
		switch (tp->state) {
		case UST_TCP_ESTABLISHED:
		case UST_TCP_FIN_WAIT_1:
		case UST_TCP_FIN_WAIT_2:
			if ((tp->tflags & TF_ORPHAN) && tp->parent == NULL) {
				/* data for an application that closed (not
				 * a connection waiting in the accept queue):
				 * RFC 2525 2.17, reset, the connection first
				 * (the reset answers this segment as if no
				 * connection had been here, as Linux's
				 * tcp_reset() then tcp_v4_send_reset():
				 * <SEQ=SEG.ACK><CTL=RST>) */
				struct ust_tcp_addr6 a6;
				struct ust_tcp_key k;

				stk->mib[UST_MIB_TCPEXT_TCPABORTONDATA]++;
				ust_tcp_key_of(tp, &k);
				/* the abort may free tp->a6: the reset
				 * needs the addresses after it */
				if (k.a6 != NULL) {
					a6 = *k.a6;
					k.a6 = &a6;
				}
				ust_tcp_abort(stk, tp, 0, false);
				ust_tcp_reset_reply(stk, &k, th, payload);
				ust_drop(stk, m, UST_DROP_TCP_CLOSE);
				return;
			}
			tcp_data_in(stk, tp, m, th->seq);
			m = NULL;
			break;
		default:
			/* after the peer's FIN: should not happen */
			ust_drop(stk, m, UST_DROP_TCP_OLD_DATA);
			m = NULL;
			break;
		}
	}
	/* eighth: the FIN, in order or held back until the hole fills */
	if (th->flags & UST_TCP_FIN) {
		uint32_t fin_seq = th->seq + payload;

		if (fin_seq == tp->rcv_nxt && !(tp->tflags & TF_FIN_RCVD)) {
			tcp_fin_in(stk, tp, &time_wait);
		} else if (SEQ_GT(fin_seq, tp->rcv_nxt)) {
			tp->tflags |= TF_OFO_FIN | TF_ACK_NOW;
			tp->rcv_fin_seq = fin_seq;
		} else {
			tp->tflags |= TF_ACK_NOW; /* a retransmitted FIN */
		}
	}
	if ((tp->tflags & TF_OFO_FIN) && tp->rcv_fin_seq == tp->rcv_nxt)
		tcp_fin_in(stk, tp, &time_wait);
	tcp_free_consumed(stk, m);
	if (stk->tcp->burst_more && tcp_output_can_wait(tp, th, rcv_nxt0,
							 payload, time_wait)) {
		if (stk->tcp->burst_tp != NULL && stk->tcp->burst_tp != tp)
			ust_tcp_output(stk, stk->tcp->burst_tp);
		stk->tcp->burst_tp = tp;
		return;
	}
	if (stk->tcp->burst_tp == tp)
		stk->tcp->burst_tp = NULL; /* this output sends it */
	ust_tcp_output(stk, tp);
	if (time_wait)
		ust_tcp_enter_time_wait(stk, tp);
}

/* ---- arrival ---- */

/* One segment of a burst, parsed: its 4-tuple as the connection hash keys
 * it, and the next segment of the same 4-tuple in the burst. */
struct tcp_seg {
	struct rte_mbuf *m;
	uint16_t l3_len;        /* bytes before the TCP header in m */
	uint16_t ip_back;       /* IPv6: its headers' bytes before m's data
				 * (the IPv4 header is m's data) */
	uint32_t l4_len;        /* the TCP header and payload */
	struct ust_tcp_key k;
	uint32_t seg_len;
	uint16_t next;          /* TCP_SEG_NONE: the last of its 4-tuple */
	struct ust_tcp_repr th;
};

#define TCP_SEG_NONE UINT16_MAX

static inline bool
tcp_key_same(const struct ust_tcp_key *a, const struct ust_tcp_key *b)
{
	return a->raddr == b->raddr && a->lport == b->lport &&
	       a->rport == b->rport && a->laddr == b->laddr &&
	       (a->a6 == NULL ? b->a6 == NULL :
		b->a6 != NULL && memcmp(a->a6, b->a6, sizeof(*a->a6)) == 0);
}

/* A segment's wire check failed (@rc): counted, dropped. */
static void
tcp_seg_bad(struct ust_stack *stk, struct rte_mbuf *m, int rc)
{
	stk->mib[UST_MIB_TCP_INERRS]++;
	if (rc == UST_WIRE_ECSUM) {
		stk->mib[UST_MIB_TCP_INCSUMERRORS]++;
		ust_drop(stk, m, UST_DROP_TCP_CSUM);
	} else {
		ust_drop(stk, m, UST_DROP_TCP_HDR);
	}
}

/* What both families check once the header parsed and the destination is
 * ours (the flags), and the rest of @s; false when it was dropped. */
static bool
tcp_seg_fill(struct ust_stack *stk, struct rte_mbuf *m, uint16_t l3_len,
	     uint32_t l4len, struct tcp_seg *s)
{
	const struct ust_tcp_repr *th = &s->th;

	if ((th->flags & UST_TCP_SYN) &&
	    (th->flags & (UST_TCP_FIN | UST_TCP_RST))) {
		/* SYN with FIN or RST: no legitimate sender makes these */
		stk->mib[UST_MIB_TCP_INERRS]++;
		ust_drop(stk, m, UST_DROP_TCP_FLAGS);
		return false;
	}
	s->m = m;
	s->l3_len = l3_len;
	s->ip_back = 0;
	s->l4_len = l4len;
	s->seg_len = l4len - th->hdr_len +
		((th->flags & UST_TCP_SYN) ? 1 : 0) +
		((th->flags & UST_TCP_FIN) ? 1 : 0);
	s->k.lport = rte_cpu_to_be_16(th->dst_port);
	s->k.rport = rte_cpu_to_be_16(th->src_port);
	s->next = TCP_SEG_NONE;
	return true;
}

/* Validate a segment (the wire parser, the checksum, the destination, the
 * flags) and fill @s; false when it was dropped (counted). */
static bool
tcp_seg_parse(struct ust_stack *stk, struct rte_mbuf *m,
	      const struct ust_ipv4_repr *ip, struct tcp_seg *s)
{
	uint64_t l4f = m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK;
	uint32_t l4len = (uint32_t)ip->total_len - ip->hdr_len;
	bool contig = ip->hdr_len + l4len <= m->data_len;
	bool verified = l4f == RTE_MBUF_F_RX_L4_CKSUM_GOOD ||
			l4f == RTE_MBUF_F_RX_L4_CKSUM_NONE;
	struct ust_tcp_repr *th = &s->th;
	int rc;

	rc = ust_tcp_parse(rte_pktmbuf_mtod_offset(m, const uint8_t *,
						   ip->hdr_len),
			   l4len, ip->src, ip->dst,
			   verified || !contig ? UST_WIRE_F_NO_CSUM : 0, th);
	if (rc == UST_WIRE_OK && (l4f == RTE_MBUF_F_RX_L4_CKSUM_BAD ||
				  (!contig && !verified &&
				   !ust_mbuf_l4_csum_ok(m, ip, IPPROTO_TCP, l4len))))
		rc = UST_WIRE_ECSUM;
	if (rc != UST_WIRE_OK) {
		tcp_seg_bad(stk, m, rc);
		return false;
	}
	stk->mib[UST_MIB_TCP_INSEGS]++;
	if (ip->dst != stk->addr) {
		/* no TCP to broadcast addresses */
		ust_drop(stk, m, UST_DROP_OTHERHOST);
		return false;
	}
	s->k.laddr = ip->dst;
	s->k.raddr = ip->src;
	s->k.a6 = NULL;
	return tcp_seg_fill(stk, m, ip->hdr_len, l4len, s);
}

/* The same over IPv6: @m at the TCP header (lib/ip pulled the IPv6
 * headers), its 4-tuple's addresses in @a6. */
static bool
tcp6_seg_parse(struct ust_stack *stk, struct rte_mbuf *m,
	       const struct ust_ipv6_repr *ip6,
	       const struct ust_tcp_addr6 *a6, struct tcp_seg *s)
{
	uint64_t l4f = m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK;
	uint32_t l4len = m->pkt_len;
	bool contig = l4len <= m->data_len;
	bool verified = l4f == RTE_MBUF_F_RX_L4_CKSUM_GOOD ||
			l4f == RTE_MBUF_F_RX_L4_CKSUM_NONE;
	struct ust_tcp_repr *th = &s->th;
	int rc = UST_WIRE_ETRUNC;

	/* (the header's 20 bytes in the first buffer: the parser reads
	 * them, and its options within data_len, ETRUNC beyond) */
	if (ust_mbuf_pull(m, UST_TCP_HDR_LEN))
		rc = ust_tcp6_parse(rte_pktmbuf_mtod(m, const uint8_t *),
				    contig ? l4len : m->data_len,
				    ip6->src, ip6->dst,
				    verified || !contig ?
				    UST_WIRE_F_NO_CSUM : 0, th);
	if (rc == UST_WIRE_OK) {
		if (l4f == RTE_MBUF_F_RX_L4_CKSUM_BAD) {
			rc = UST_WIRE_ECSUM;
		} else if (!contig && !verified &&
			   !ust_mbuf_l4_csum6_ok(m, ip6->src, ip6->dst,
						 IPPROTO_TCP, l4len)) {
			rc = UST_WIRE_ECSUM;
		}
	}
	if (rc != UST_WIRE_OK) {
		tcp_seg_bad(stk, m, rc);
		return false;
	}
	stk->mib[UST_MIB_TCP_INSEGS]++;
	if (ust_ip6_our_addr(stk, ip6->dst, true) < 0) {
		/* no TCP to multicast (or tentative) addresses */
		ust_drop(stk, m, UST_DROP_OTHERHOST);
		return false;
	}
	if (!tcp_seg_fill(stk, m, 0, l4len, s))
		return false;
	ust_tcp_key6(&s->k, a6, s->k.lport, s->k.rport);
	return true;
}

/* Hand a parsed segment to what the connection hash holds for its
 * 4-tuple (@data, looked up by the caller; NULL: nothing). Consumes it. */
static void
tcp_seg_dispatch(struct ust_stack *stk, struct tcp_seg *s, void *data)
{
	struct rte_mbuf *m = s->m;
	const struct ust_tcp_repr *th = &s->th;
	uint32_t payload = s->l4_len - th->hdr_len;
	uint32_t seg_len = s->seg_len;

	/* no connection here: a sibling stack's flow (lib/group) goes to it
	 * whole, before a listener or a reset could answer for it; a SYN
	 * opens a new connection, which belongs to the stack that got it */
	if (data == NULL && stk->sib != NULL &&
	    (th->flags & (UST_TCP_SYN | UST_TCP_ACK)) != UST_TCP_SYN) {
		/* (handed over from its IP header: IPv6's in the headroom) */
		rte_pktmbuf_prepend(m, s->ip_back);
		if (stk->sib->steer(stk, m, s->k.lport, true))
			return;
		rte_pktmbuf_adj(m, s->ip_back);
	}
	/* keep the payload only; the headers stay in the headroom */
	rte_pktmbuf_adj(m, s->l3_len + th->hdr_len);
	ust_mbuf_trim_to(m, payload);
	if (data != NULL) {
		void *obj = tcp_obj_ptr(data);

		switch (tcp_obj_kind(data)) {
		case UST_TCP_OBJ_SOCK: {
			struct ust_tcp_sock *tp = obj;

			/* (the keepalive clock moves only for an acceptable
			 * segment: ust_tcp_rcv_established()) */
			tp->segs_in++;
			/* (tp may be freed by the handler) */
			if (tp->state == UST_TCP_SYN_SENT)
				tcp_rcv_syn_sent(stk, tp, m, th);
			else
				ust_tcp_rcv_established(stk, tp, m, th, seg_len);
			return;
		}
		case UST_TCP_OBJ_REQ:
			ust_tcp_req_input(stk, obj, m, th, seg_len);
			return;
		case UST_TCP_OBJ_TW: {
			struct ust_tcp_tw *tw = obj;
			bool newer;

			/* RFC 6191: a SYN may reuse the 4-tuple when its
			 * timestamp, or without one its sequence number, is
			 * beyond the old connection's */
			newer = tw->ts_ok && (th->opts.has & UST_TCPOPT_TS) ?
				SEQ_GT(th->opts.tsval, tw->ts_recent) :
				SEQ_GT(th->seq, tw->rcv_nxt);
			if ((th->flags & UST_TCP_SYN) &&
			    !(th->flags & UST_TCP_ACK) && newer) {
				stk->mib[UST_MIB_TCPEXT_TWRECYCLED]++;
				/* the new connection's ISN beyond anything
				 * the old one sent, as Linux chooses it
				 * (RFC 9293 3.4.1: no overlap) */
				stk->tcp->tw_isn = tw->snd_nxt + 65535 + 2;
				if (stk->tcp->tw_isn == 0)
					stk->tcp->tw_isn = 1;
				ust_tcp_tw_free(stk, tw);
				break; /* on to the listener */
			}
			ust_tcp_tw_input(stk, tw, m, th, seg_len);
			return;
		}
		}
	}
	{
		uint32_t lport = th->dst_port;
		void *lp;

		if (rte_hash_lookup_data(stk->tcp->listeners, &lport, &lp) >= 0 &&
		    ust_tcp_listen_takes(lp, &s->k)) {
			ust_tcp_listen_input(stk, lp, m, &s->k, th, seg_len);
			stk->tcp->tw_isn = 0;
			return;
		}
	}
	stk->tcp->tw_isn = 0;
	/* RFC 9293 3.10.7.1: no connection, reset */
	ust_tcp_reset_reply(stk, &s->k, th, seg_len);
	ust_drop(stk, m, UST_DROP_NO_SOCKET);
}

void
ust_tcp_input(struct ust_stack *stk, struct rte_mbuf *m,
	      const struct ust_ipv4_repr *ip)
{
	struct tcp_seg s;

	if (tcp_seg_parse(stk, m, ip, &s))
		tcp_seg_dispatch(stk, &s, ust_tcp_hash_lookup(stk, &s.k));
}

void
ust_tcp6_input(struct ust_stack *stk, struct rte_mbuf *m,
	       const struct ust_ipv6_repr *ip6, uint32_t l3_len)
{
	struct ust_tcp_addr6 a6;
	struct tcp_seg s;

	memcpy(a6.local, ip6->dst, sizeof(a6.local));
	memcpy(a6.remote, ip6->src, sizeof(a6.remote));
	if (tcp6_seg_parse(stk, m, ip6, &a6, &s)) {
		s.ip_back = (uint16_t)l3_len;
		tcp_seg_dispatch(stk, &s, ust_tcp_hash_lookup(stk, &s.k));
	}
}

/* The output a connection's segment left for the end of its segments in
 * this burst (ust_tcp_rcv_established(), while burst_more), now. */
static void
tcp_burst_flush(struct ust_stack *stk)
{
	struct ust_tcp_sock *tp = stk->tcp->burst_tp;

	if (tp != NULL) {
		stk->tcp->burst_tp = NULL;
		ust_tcp_output(stk, tp);
	}
}

/* A 4-tuple's slot in the burst's little table of 4-tuples (open
 * addressing, TCP_BURST_SLOTS >= 2 * UST_MAX_BURST): a multiplicative
 * hash of what varies between a host's connections, the remote address
 * and both ports. */
#define TCP_BURST_SLOTS 128

static inline uint32_t
tcp_burst_slot(const struct ust_tcp_key *k)
{
	uint32_t x = k->raddr ^ ((uint32_t)k->rport << 16 | k->lport);

	return (x * 0x9e3779b1u) >> 25; /* 7 bits: 0..127 */
}

void
ust_tcp_input_burst(struct ust_stack *stk, struct rte_mbuf **pkts,
		    const struct ust_ipv4_repr *ips, uint16_t n)
{
	struct ust_tcp_stack *ts = stk->tcp;
	struct tcp_seg segs[UST_MAX_BURST];
	/* the 4-tuples of the burst: their first and last segment, what the
	 * connection hash holds for them */
	uint16_t first[UST_MAX_BURST], last[UST_MAX_BURST];
	const void *keys[UST_MAX_BURST];
	void *data[UST_MAX_BURST];
	uint8_t slot[TCP_BURST_SLOTS];
	uint16_t ns = 0, ng = 0, pg = 0, g, i;
	uint32_t gen;

	RTE_BUILD_BUG_ON(TCP_BURST_SLOTS < 2 * UST_MAX_BURST);
	RTE_BUILD_BUG_ON(UST_MAX_BURST > RTE_HASH_LOOKUP_BULK_MAX);
	RTE_BUILD_BUG_ON(UST_MAX_BURST >= UINT8_MAX);
	if (n == 1) {
		/* (request-response: nothing to group) */
		ust_tcp_input(stk, pkts[0], &ips[0]);
		return;
	}
	/* parse them all, and chain each to the earlier segments of its
	 * 4-tuple (a run of one flow compares with the previous segment's
	 * 4-tuple only; the table of 4-tuples is set up at the second one) */
	for (i = 0; i < n; i++) {
		struct tcp_seg *s = &segs[ns];
		uint32_t h;

		if (!tcp_seg_parse(stk, pkts[i], &ips[i], s))
			continue;
		if (ng > 0 && tcp_key_same(&segs[first[pg]].k, &s->k)) {
			g = pg;
		} else if (ng == 0) {
			g = TCP_SEG_NONE;
		} else {
			if (ng == 1) {
				memset(slot, 0, sizeof(slot));
				slot[tcp_burst_slot(&segs[first[0]].k)] = 1;
			}
			for (h = tcp_burst_slot(&s->k); slot[h] != 0;
			     h = (h + 1) % TCP_BURST_SLOTS)
				if (tcp_key_same(&segs[first[slot[h] - 1]].k,
						 &s->k))
					break;
			if (slot[h] != 0) {
				g = slot[h] - 1;
			} else {
				g = TCP_SEG_NONE;
				slot[h] = (uint8_t)(ng + 1);
			}
		}
		if (g == TCP_SEG_NONE) {
			/* the first segment of its 4-tuple */
			g = ng++;
			first[g] = ns;
			keys[g] = &s->k;
		} else {
			segs[last[g]].next = ns;
		}
		last[g] = ns;
		pg = g;
		ns++;
	}
	if (ng == 0)
		return;
	/* one lookup per 4-tuple: the last-hit cache for a burst of one
	 * flow, else one bulk lookup, whose buckets rte_hash prefetches */
	if (ng == 1) {
		data[0] = ust_tcp_hash_lookup(stk, &segs[0].k);
	} else {
		uint64_t hits = 0;

		rte_hash_lookup_bulk_data(ts->conns, keys, ng, &hits, data);
		for (g = 0; g < ng; g++) {
			if (!(hits & (1ull << g)))
				data[g] = NULL;
			else if (tcp_obj_kind(data[g]) == UST_TCP_OBJ_SOCK)
				rte_prefetch0(tcp_obj_ptr(data[g]));
		}
	}
	/* each 4-tuple's segments in turn, in their order. What one handler
	 * does may change the hash (a connection established, closed or
	 * gone to TIME_WAIT, an entry evicted): then the 4-tuples after it
	 * are looked up again. */
	gen = ts->conns_gen;
	for (g = 0; g < ng; g++) {
		void *d = data[g];

		for (i = first[g]; i != TCP_SEG_NONE; i = segs[i].next) {
			if (unlikely(ts->conns_gen != gen))
				d = ust_tcp_hash_lookup(stk, &segs[i].k);
			ts->burst_more = segs[i].next != TCP_SEG_NONE;
			tcp_seg_dispatch(stk, &segs[i], d);
		}
		ts->burst_more = false;
		tcp_burst_flush(stk);
	}
}
