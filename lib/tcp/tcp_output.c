/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * TCP output, after lwIP's tcp_out.c split:
 *
 *  - the queued path: ust_send() appends to the send queue, then
 *    ust_tcp_output() decides what may go now (what RACK marked lost
 *    during SACK recovery, PRR's cwnd, else new data within min(cwnd,
 *    snd_wnd), Nagle (RFC 896, with Minshall's change as Linux), TCP_CORK
 *    and MSG_MORE, no segment across a MSG_EOR record's end, PSH on the
 *    end of each write and of each TSO-sized run and on the last of a lost
 *    packet sent again whole, sender silly-window
 *    avoidance (RFC 9293 3.8.6.2.1) with the persist timer as its
 *    override, the FIN when the data is out) and calls
 *    ust_tcp_send_segment() for each segment; at the end of each push,
 *    TCP_INFO's chronographs (busy, rwnd-limited, sndbuf-limited);
 *  - direct sends that carry no data from the queue: ust_tcp_send_ack(),
 *    ust_tcp_send_syn(), ust_tcp_send_rst(), and ust_tcp_send_reply()
 *    for segments with no control block (RSTs to strangers, TIME_WAIT
 *    ACKs, probes).
 *
 * Every segment is built by ust_tcp_seg_build() (tcp_tx.c): the one place
 * where a segment's mbuf layout is decided (linear, chained, first-linear,
 * copy-small, zero copy).
 */

#include <errno.h>
#include <string.h>

#include <rte_ip.h>

#include "tcp_cc.h"
#include "tcp_private.h"

/* ---- windows ---- */

uint32_t
ust_tcp_rcv_window(const struct ust_tcp_sock *tp)
{
	const struct ust_tcp_stack *ts = tp->base.stk->tcp;
	uint32_t space = tp->rcvbuf > tp->rmem_alloc ?
		tp->rcvbuf - tp->rmem_alloc : 0;
	uint32_t max = UST_TCP_MAX_WIN << tp->rcv_wscale;
	/* space / ts->rx_mbuf_size, by multiply and shift */
	uint32_t by_mbufs = rte_reciprocal_divide(space, ts->rx_mbuf_size_r) *
		tp->rcv_mss;

	/* half the memory for payload, half for the buffers around it
	 * (Linux's tcp_adv_win_scale = 1); and no more than a segment for
	 * each whole mbuf that still fits, since a segment that does not
	 * join the tail's buffer takes one: near a full buffer, half the
	 * memory left would invite data that the memory then refuses */
	space /= 2;
	space = RTE_MIN(space, by_mbufs);
	return space > max ? max : space;
}

uint16_t
ust_tcp_window_field(struct ust_tcp_sock *tp)
{
	struct ust_stack *stk = tp->base.stk;
	uint32_t win = ust_tcp_rcv_window(tp);
	uint32_t cur = SEQ_GT(tp->rcv_adv, tp->rcv_nxt) ?
		tp->rcv_adv - tp->rcv_nxt : 0;
	uint32_t field;

	/* never shrink the window (RFC 9293 3.8.6.2.2): the right edge
	 * announced stays; and open it only by a segment or half the buffer
	 * at a time (receiver silly-window avoidance) */
	if (win < cur)
		win = cur;
	else if (win - cur < RTE_MIN((uint32_t)tp->rcv_mss, tp->rcvbuf / 4) &&
		 cur != 0)
		win = cur;
	field = win >> tp->rcv_wscale;
	/* rounded down to the scale's unit, the edge would move left: up,
	 * then (as Linux's tcp_select_window()) */
	if ((field << tp->rcv_wscale) < cur)
		field = RTE_ALIGN_CEIL(cur, 1u << tp->rcv_wscale) >>
			tp->rcv_wscale;
	if (field > UST_TCP_MAX_WIN)
		field = UST_TCP_MAX_WIN;
	if (field == 0 && tp->rcv_wnd != 0)
		stk->mib[UST_MIB_TCPEXT_TCPTOZEROWINDOWADV]++;
	else if (field != 0 && tp->rcv_wnd == 0 &&
		 tp->state >= UST_TCP_ESTABLISHED)
		stk->mib[UST_MIB_TCPEXT_TCPFROMZEROWINDOWADV]++;
	tp->rcv_wnd = field << tp->rcv_wscale;
	tp->rcv_adv = tp->rcv_nxt + tp->rcv_wnd;
	return (uint16_t)field;
}

/* ---- building segments ---- */

static void
tcp_fill_options(struct ust_stack *stk, struct ust_tcp_sock *tp,
		 struct ust_tcp_opts *o, uint8_t flags)
{
	unsigned int i;

	memset(o, 0, sizeof(*o));
	if (flags & UST_TCP_SYN) {
		const struct ust_tcp_conf *c = &stk->conf.tcp;

		o->has = UST_TCPOPT_MSS;
		o->mss = tp->rcv_mss;
		/* on a SYN-ACK, only what the peer offered */
		if (c->window_scaling && (!(flags & UST_TCP_ACK) ||
					  (tp->tflags & TF_WS_OK))) {
			o->has |= UST_TCPOPT_WS;
			o->wscale = tp->rcv_wscale;
		}
		if (c->sack && (!(flags & UST_TCP_ACK) ||
				(tp->tflags & TF_SACK_OK)))
			o->has |= UST_TCPOPT_SACK_PERM;
		if (c->timestamps && (!(flags & UST_TCP_ACK) ||
				      (tp->tflags & TF_TS_OK))) {
			o->has |= UST_TCPOPT_TS;
			o->tsval = tcp_ts_now(stk, tp->ts_offset);
			o->tsecr = tp->ts_recent;
		}
		return;
	}
	if (tp->tflags & TF_TS_OK) {
		o->has |= UST_TCPOPT_TS;
		o->tsval = tcp_ts_now(stk, tp->ts_offset);
		o->tsecr = tp->ts_recent;
	}
	if ((tp->tflags & TF_SACK_OK) &&
	    (tp->n_rcv_sack > 0 || (tp->tflags & TF_DSACK)) &&
	    (flags & UST_TCP_ACK) && !(flags & UST_TCP_RST)) {
		unsigned int n = 0;

		o->has |= UST_TCPOPT_SACK;
		/* a D-SACK block first (RFC 2883 4), then the latest */
		if (tp->tflags & TF_DSACK) {
			o->sack[n].start = tp->sack->rcv_dsack.start;
			o->sack[n++].end = tp->sack->rcv_dsack.end;
		}
		for (i = 0; i < tp->n_rcv_sack && n < UST_TCP_MAX_SACK; i++) {
			o->sack[n].start = tp->sack->rcv_sack[i].start;
			o->sack[n++].end = tp->sack->rcv_sack[i].end;
		}
		o->nsack = (uint8_t)n;
	}
}

static void
tcp_ack_sent(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	tp->tflags &= ~(TF_ACK_NOW | TF_DELACK | TF_WIN_UPDATE);
	tp->unacked_segs = 0;
	if (ust_timer_armed(&tp->delack_timer))
		ust_timer_cancel(&stk->tcp->wheel, &tp->delack_timer);
}

int
ust_tcp_send_segment(struct ust_stack *stk, struct ust_tcp_sock *tp, uint32_t seq,
		 uint32_t len, uint8_t flags, bool rtx)
{
	struct ust_tcp_repr th;
	struct rte_mbuf *m;
	uint64_t ol;

	if (unlikely(stk->dying))
		return -ESHUTDOWN;
	if (unlikely(!ust_tx_room(stk, UST_TX_SEND_ROOM))) {
		/* the NIC is behind: nothing is dropped at staging; output
		 * (and an ACK owed) resumes from ust_tcp_poll() */
		if (len == 0 && (flags & UST_TCP_ACK) &&
		    !(flags & (UST_TCP_SYN | UST_TCP_FIN | UST_TCP_RST)))
			tp->tflags |= TF_ACK_NOW;
		ust_tcp_output_defer(stk, tp);
		return -ENOBUFS;
	}
	memset(&th, 0, sizeof(th));
	th.src_port = rte_be_to_cpu_16(tp->base.lport);
	th.dst_port = rte_be_to_cpu_16(tp->base.rport);
	th.seq = seq;
	/* PSH as Linux sets it: on the segment holding the end of the last
	 * application write, or the end of the send queue (new data or a
	 * retransmission, a loss probe among them) unless that end came
	 * with MSG_MORE; on data the probe timer pushes out (Linux's
	 * tcp_write_wakeup()) */
	if (len > 0 && !(flags & (UST_TCP_SYN | UST_TCP_RST)) &&
	    ((SEQ_LT(seq, tp->snd_psh) && SEQ_LEQ(tp->snd_psh, seq + len)) ||
	     (seq + len == tcp_snd_data_end(tp) &&
	      !(tp->tflags & TF_MORE)) ||
	     (tp->tflags & TF_PROBE_PSH)))
		flags |= UST_TCP_PSH;
	/* a forced push's mark (tcp_sock.c): new data looks for the next
	 * one, a segment sent again walks its buffers */
	if (len > 0 && (tp->tflags & TF_FPUSH) &&
	    !(flags & (UST_TCP_SYN | UST_TCP_RST))) {
		if (SEQ_LT(seq, tp->fp_next) &&
		    SEQ_LEQ(tp->fp_next, seq + len)) {
			flags |= UST_TCP_PSH;
			tp->fp_next = ust_tcp_sndq_fpush_after(stk, tp,
							       tp->fp_next);
		} else if (!(flags & UST_TCP_PSH) &&
			   SEQ_LT(seq, tp->snd_max) &&
			   ust_tcp_sndq_fpush_in(stk, tp, seq, len)) {
			flags |= UST_TCP_PSH;
		}
	}
	/* a record's end (MSG_EOR) is a write's end: PSH, retransmitted
	 * too */
	if (len > 0 && (tp->tflags & TF_EOR_USED) && !(flags & UST_TCP_PSH)) {
		bool eor;

		if (ust_tcp_sndq_eor_cut(stk, tp, seq, len, &eor) == len && eor)
			flags |= UST_TCP_PSH;
	}
	th.flags = flags;
	if (flags & UST_TCP_ACK)
		th.ack = tp->rcv_nxt;
	th.window = (flags & UST_TCP_SYN) ?
		(uint16_t)RTE_MIN(ust_tcp_rcv_window(tp), UST_TCP_MAX_WIN) :
		ust_tcp_window_field(tp);
	tcp_fill_options(stk, tp, &th.opts, flags);
	/* new data is cut to ust_tcp_mss_now(), which leaves room for the
	 * SACK blocks; a segment sent again as it went first (tp->mss, room
	 * for timestamps only) carries the blocks that still fit */
	while (len > 0 && th.opts.nsack > 0 &&
	       ust_tcp_opts_len(&th.opts, false) + len >
	       tp->mss + ((tp->tflags & TF_TS_OK) ? 12u : 0u))
		if (--th.opts.nsack == 0)
			th.opts.has &= (uint8_t)~UST_TCPOPT_SACK;
	m = ust_tcp_seg_build(stk, tp, &th, len > 0 ? seq - tp->snd_buf_seq : 0,
			  len, &ol);
	if (m == NULL) {
		stk->mib[UST_MIB_IP_OUTDISCARDS]++;
		return -ENOBUFS;
	}
	/* a D-SACK block is reported once (Linux's tcp_options_write()) */
	if ((tp->tflags & TF_DSACK) && th.opts.nsack > 0) {
		tp->tflags &= ~TF_DSACK;
		ust_tcp_sack_release(tp);
	}
	stk->mib[UST_MIB_TCP_OUTSEGS]++;
	tp->segs_out++;
	if (len > 0 || (flags & (UST_TCP_SYN | UST_TCP_FIN)))
		tp->ts_data_tx = th.opts.tsval;
	if (len > 0)
		tp->lsnd_t = UST_TCP_T(stk->now);
	if (rtx) {
		stk->mib[UST_MIB_TCP_RETRANSSEGS]++;
		tp->retrans++;
	}
	if ((len > 0 || (flags & UST_TCP_FIN)) && !(flags & UST_TCP_SYN)) {
		uint32_t end = seq + len + ((flags & UST_TCP_FIN) ? 1 : 0);
		/* the transmission's time: the stack reads its clock once a
		 * poll, so the segments a connection sends in one poll are
		 * stamped 1 ns apart, in the order they leave. RACK orders
		 * transmissions by time, and breaks a tie by sequence
		 * (RFC 8985 6.2's RACK_sent_after()), which holds only if
		 * equal times went out in sequence order: a retransmission
		 * sent in the poll after new data (its loss found by an ACK
		 * later in the burst) would look older than that data, and be
		 * found lost again, spuriously, when the data is SACKed */
		uint64_t ns = stk->now > tp->lsnd_ns ? stk->now :
			tp->lsnd_ns + 1;

		/* data with nothing in flight: congestion control hears of
		 * it, with lsnd_ns still the last data's time */
		if (tp->snd_una == tp->snd_max && !rtx)
			tp->cc->event(stk, tp, UST_CC_EV_TX_START);
		/* RACK's record of the transmission; PRR's prr_out */
		ust_tcp_rack_xmit(stk, tp, seq, end,
				  (flags & UST_TCP_FIN) != 0, rtx, ns);
		tp->lsnd_ns = ns;
		if (tp->tflags & TF_RECOVERY)
			tp->rack.prr_out++;
	}
	if (flags & UST_TCP_ACK)
		tcp_ack_sent(stk, tp);
	if (tp->a6 != NULL)
		ust_ipv6_output(stk, m, tp->a6->local, tp->a6->remote,
				IPPROTO_TCP, 0, ol);
	else
		ust_ipv4_output_df(stk, m, tp->base.laddr != 0 ?
				   tp->base.laddr : stk->addr, tp->base.raddr,
				   IPPROTO_TCP, ol,
				   tp->pmtudisc != IP_PMTUDISC_DONT, tp->tos);
	return 0;
}

/* The sequence number of a segment without data, that the peer must find
 * acceptable (Linux's tcp_acceptable_seq()): the highest sent, since after
 * a timeout snd_nxt goes back to snd_una while the peer may hold all up to
 * snd_max; but never beyond the right edge of the peer's window, since
 * what we sent beyond a window that closed was not taken. */
static uint32_t
tcp_acceptable_seq(const struct ust_tcp_sock *tp)
{
	uint32_t edge = tp->snd_una + tp->snd_wnd;

	return SEQ_GT(tp->snd_max, edge) ? edge : tp->snd_max;
}

void
ust_tcp_send_ack(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	ust_tcp_send_segment(stk, tp, tcp_acceptable_seq(tp), 0, UST_TCP_ACK,
			 false);
}

void
ust_tcp_send_syn(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	uint8_t flags = UST_TCP_SYN;

	if (tp->state == UST_TCP_SYN_RECEIVED)
		flags |= UST_TCP_ACK;
	/* not staged (no room): ust_tcp_poll() sends it once there is, a
	 * first transmission still (SND.MAX stays at ISS), not at the RTO */
	if (ust_tcp_send_segment(stk, tp, tp->iss, 0, flags,
				 tp->snd_max != tp->iss) == -ENOBUFS)
		return;
	tp->snd_nxt = tp->iss + 1;
	tp->snd_max = SEQ_MAX(tp->snd_max, tp->snd_nxt);
}

void
ust_tcp_send_rst(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	stk->mib[UST_MIB_TCP_OUTRSTS]++;
	ust_tcp_send_segment(stk, tp, tcp_acceptable_seq(tp), 0,
			 UST_TCP_RST | UST_TCP_ACK, false);
}

void
ust_tcp_send_reply(struct ust_stack *stk, const struct ust_tcp_key *k,
	       uint32_t seq, uint32_t ack, uint8_t flags, uint16_t win,
	       const struct ust_tcp_opts *opts)
{
	ust_tcp_send_reply_df(stk, k, seq, ack, flags, win, opts, true);
}

void
ust_tcp_send_reply_df(struct ust_stack *stk, const struct ust_tcp_key *k,
		      uint32_t seq, uint32_t ack, uint8_t flags, uint16_t win,
		      const struct ust_tcp_opts *opts, bool df)
{
	bool offload = (stk->netif.flags & UST_NETIF_F_TX_TCP_CKSUM) != 0;
	struct ust_tcp_repr th;
	struct rte_mbuf *m;
	uint8_t *p;
	size_t hlen;

	if (unlikely(stk->dying))
		return;
	memset(&th, 0, sizeof(th));
	th.src_port = rte_be_to_cpu_16(k->lport);
	th.dst_port = rte_be_to_cpu_16(k->rport);
	th.seq = seq;
	th.ack = ack;
	th.flags = flags;
	th.window = win;
	if (opts != NULL)
		th.opts = *opts;
	hlen = UST_TCP_HDR_LEN +
		ust_tcp_opts_len(&th.opts, (flags & UST_TCP_SYN) != 0);
	m = ust_reply_alloc(stk); /* no owner: within the pool's reserve */
	if (m == NULL) {
		stk->mib[UST_MIB_IP_OUTDISCARDS]++;
		return;
	}
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)hlen);
	if (k->a6 != NULL)
		ust_tcp6_emit(p, hlen, &th, k->a6->local, k->a6->remote, NULL,
			      0, offload ? UST_WIRE_F_CSUM_OFFLOAD : 0);
	else
		ust_tcp_emit(p, hlen, &th, k->laddr, k->raddr, NULL, 0,
			     offload ? UST_WIRE_F_CSUM_OFFLOAD : 0);
	if (offload)
		m->l4_len = th.hdr_len;
	ust_meta_no_owner(stk->meta_off, m);
	stk->mib[UST_MIB_TCP_OUTSEGS]++;
	if (flags & UST_TCP_RST)
		stk->mib[UST_MIB_TCP_OUTRSTS]++;
	if (k->a6 != NULL)
		ust_ipv6_output(stk, m, k->a6->local, k->a6->remote,
				IPPROTO_TCP, 0,
				offload ? RTE_MBUF_F_TX_TCP_CKSUM : 0);
	else
		ust_ipv4_output_df(stk, m, k->laddr, k->raddr, IPPROTO_TCP,
				   offload ? RTE_MBUF_F_TX_TCP_CKSUM : 0, df, 0);
}

void
ust_tcp_reset_reply(struct ust_stack *stk, const struct ust_tcp_key *k,
		const struct ust_tcp_repr *th, uint32_t seg_len)
{
	/* RFC 9293 3.10.7.1: never answer an RST */
	if (th->flags & UST_TCP_RST)
		return;
	if (th->flags & UST_TCP_ACK)
		ust_tcp_send_reply(stk, k, th->ack, 0, UST_TCP_RST, 0, NULL);
	else
		ust_tcp_send_reply(stk, k, 0, th->seq + seg_len,
			       UST_TCP_RST | UST_TCP_ACK, 0, NULL);
}

bool
ust_tcp_oow_rate_limited(struct ust_stack *stk, uint64_t *last_ns,
		     enum ust_mib mib)
{
	uint64_t lim = (uint64_t)stk->conf.tcp.invalid_ratelimit_ms *
		1000000ull;

	/* Linux's tcp_invalid_ratelimit: an ACK to an out-of-window, PAWS-
	 * failed or challenged segment at most once per interval per
	 * connection, so that neither a flood of them nor an ACK loop
	 * between two confused ends gets one ACK per segment, and an
	 * off-path prober counting ACKs learns nothing (CVE-2016-5696) */
	/* (*last_ns holds the clock + 1: 0 is "none yet") */
	if (*last_ns != 0 && stk->now + 1 - *last_ns < lim) {
		stk->mib[mib]++;
		return true;
	}
	*last_ns = stk->now + 1;
	return false;
}

/* The stack-wide budget of RFC 5961 7 (challenge_ack_limit a second on
 * average). A fixed budget is a counter every connection shares: an
 * off-path attacker exhausting it and counting the challenge ACKs of its
 * own connection learns whether its spoofed segments hit another one's
 * window (CVE-2016-5696); so the budget of each second is drawn at random
 * from [limit/2, limit/2 + limit), as Linux does since 4.7. */
static bool
tcp_challenge_budget(struct ust_stack *stk)
{
	struct ust_tcp_stack *ts = stk->tcp;
	uint32_t limit = stk->conf.tcp.challenge_ack_limit;
	uint64_t sec = stk->now / 1000000000ull + 1;

	if (limit == 0)
		return false;
	if (ts->chack_sec != sec) {
		uint32_t half = (limit + 1) / 2;

		ts->chack_sec = sec;
		ts->chack_count = half + (uint32_t)(ust_tcp_rand(stk) % limit);
	}
	if (ts->chack_count == 0)
		return false;
	ts->chack_count--;
	return true;
}

void
ust_tcp_challenge_ack(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	/* first the connection's limit, then the stack's (RFC 5961 7) */
	if (ust_tcp_oow_rate_limited(stk, &tp->oow_ack_ns,
				 UST_MIB_TCPEXT_TCPACKSKIPPEDCHALLENGE))
		return;
	if (!tcp_challenge_budget(stk)) {
		stk->mib[UST_MIB_TCPEXT_TCPACKSKIPPEDCHALLENGE]++;
		return;
	}
	stk->mib[UST_MIB_TCPEXT_TCPCHALLENGEACK]++;
	ust_tcp_send_ack(stk, tp);
}

/* ---- what to send now ---- */

void
ust_tcp_output_defer(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	struct ust_tcp_stack *ts = stk->tcp;

	if (tp->tflags & TF_NEED_OUTPUT)
		return;
	tp->tflags |= TF_NEED_OUTPUT;
	tp->out_prev = NULL;
	tp->out_next = ts->out_head;
	if (ts->out_head != NULL)
		ts->out_head->out_prev = tp;
	ts->out_head = tp;
}

void
ust_tcp_output_undefer(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	if (!(tp->tflags & TF_NEED_OUTPUT))
		return;
	if (tp->out_prev != NULL)
		tp->out_prev->out_next = tp->out_next;
	else
		stk->tcp->out_head = tp->out_next;
	if (tp->out_next != NULL)
		tp->out_next->out_prev = tp->out_prev;
	tp->out_next = NULL;
	tp->out_prev = NULL;
	tp->tflags &= ~TF_NEED_OUTPUT;
}

static bool
tcp_tx_blocked(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	if (ust_tx_room(stk, UST_TX_SEND_ROOM))
		return false;
	/* the NIC is behind: ust_tcp_poll() resumes when there is room */
	ust_tcp_output_defer(stk, tp);
	return true;
}


/*
 * How many full segments Linux would put in one TSO packet now (its
 * tcp_tso_autosize(): about 1 ms at the pacing rate, which is 200% of
 * cwnd / SRTT in slow start and 120% after (tcp_update_pacing_rate()),
 * plus a bonus on short paths (tcp_tso_rtt_log 9); at least
 * tcp_min_tso_segs, 2; at most 64 KiB; and at most half of cwnd, which
 * tcp_cwnd_test() allows a packet so that two are in flight). Linux's TSO
 * packets each end with
 * PSH, and a NIC's segmentation leaves it on the packet's last segment:
 * on Linux's wire, PSH comes every that many segments of a burst. ustack
 * builds MSS segments itself and marks the same ones, so that what a
 * receiver (or packetdrill) sees is what Linux sends.
 */
unsigned int
ust_tcp_tso_autosize(const struct ust_tcp_sock *tp, uint32_t mss_now)
{
	uint32_t mss = RTE_MAX(mss_now, 1u);
	uint64_t min_segs = tp->base.stk->conf.tcp.min_tso_segs;
	uint64_t max_segs = RTE_MAX(65536u / mss, min_segs);
	uint64_t srtt_us = tp->srtt_us >> 3;
	uint64_t min_rtt_us = tp->rack.min_rtt_ns / 1000;
	uint64_t ratio, rate, bytes;

	if (srtt_us == 0) /* no pacing rate yet */
		return (unsigned int)max_segs;
	ratio = tp->cwnd < tp->ssthresh / 2 ? 200 : 120;
	/* bytes a second: cwnd * ratio% / SRTT */
	rate = (uint64_t)tp->cwnd * ratio * 10000 / srtt_us;
	bytes = rate >> 10;
	if (min_rtt_us != 0 && (min_rtt_us >> 9) < 32)
		bytes += 65536u >> (min_rtt_us >> 9);
	return (unsigned int)RTE_MIN(RTE_MAX(bytes / mss, min_segs), max_segs);
}

unsigned int
ust_tcp_tso_segs(const struct ust_tcp_sock *tp, uint32_t mss_now)
{
	uint32_t mss = RTE_MAX(mss_now, 1u);
	unsigned int half_cwnd = RTE_MAX(tp->cwnd / mss / 2, 1u);

	return RTE_MIN(ust_tcp_tso_autosize(tp, mss), half_cwnd);
}

/* TCP_INFO's chronographs after a push (Linux's tcp_write_xmit() and
 * tcp_cwnd_validate()): busy with data queued; rwnd-limited while the next
 * new segment does not fit the peer's window; sndbuf-limited when all was
 * sent, cwnd is not the limit (ust_tcp_cc_cwnd_limited(), after this
 * push's ust_tcp_cc_cwnd_validate()) and the application found the buffer
 * full */
static void
tcp_output_chrono(const struct ust_stack *stk, struct ust_tcp_sock *tp,
		  uint32_t data_end, unsigned int sent)
{
	uint32_t unsent = SEQ_GT(data_end, tp->snd_max) ?
		data_end - tp->snd_max : 0;

	if (unsent > 0)
		tcp_chrono_start(stk, tp, UST_CHRONO_BUSY);
	if (unsent > 0 &&
	    SEQ_LT(tp->snd_una + tp->snd_wnd,
		   tp->snd_max + RTE_MIN(unsent, (uint32_t)tp->mss)))
		tcp_chrono_start(stk, tp, UST_CHRONO_RWND);
	else if (tp->chrono_type == UST_CHRONO_RWND)
		tcp_chrono_stop(stk, tp, UST_CHRONO_RWND);
	if ((tp->tflags & TF_NOSPACE) && sent > 0 && unsent == 0 &&
	    !ust_tcp_cc_cwnd_limited(tp) &&
	    (tp->state == UST_TCP_ESTABLISHED ||
	     tp->state == UST_TCP_CLOSE_WAIT))
		tcp_chrono_start(stk, tp, UST_CHRONO_SNDBUF);
}

void
ust_tcp_output(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	unsigned int chunk = 0, chunk_segs = 0, run_len = 0;
	uint32_t rtx_left = 0, rtx_pkt = 0; /* a lost packet's going again */

	/* data MSG_MORE held for the probe timer goes now with this push,
	 * unless this push is the MSG_MORE one (Linux's probe timer runs
	 * only while nothing is in flight) */
	if ((tp->tflags & TF_PROBE_PSH) &&
	    !(tp->tflags & TF_MORE_HOLD) && !tp->cork_push) {
		tp->tflags &= ~TF_PROBE_PSH;
		if (!tp->corked)
			ust_timer_cancel(&stk->tcp->wheel, &tp->cork_timer);
	}
	bool sack_rec, had_data, limited;
	uint32_t data_end, in_flight, mss;
	unsigned int sent = 0;

	switch (tp->state) {
	case UST_TCP_ESTABLISHED:
	case UST_TCP_CLOSE_WAIT:
	case UST_TCP_FIN_WAIT_1:
	case UST_TCP_CLOSING:
	case UST_TCP_LAST_ACK:
	case UST_TCP_FIN_WAIT_2:
		break;
	default:
		return;
	}
	ust_tcp_output_undefer(stk, tp);
	/* the size of a full segment in this push (Linux's mss_now) */
	mss = ust_tcp_mss_now(tp);
	data_end = tcp_snd_data_end(tp);
	sack_rec = (tp->tflags & (TF_RECOVERY | TF_SACK_OK)) ==
		(TF_RECOVERY | TF_SACK_OK);
	had_data = SEQ_LT(tp->snd_nxt, data_end) ||
		(sack_rec && tp->snd_una != tp->snd_max);
	/* new data after more than an RTO with nothing in flight: slow start
	 * again (RFC 5681 4.1, Linux's tcp_slow_start_after_idle) */
	if (stk->conf.tcp.slow_start_after_idle &&
	    tp->snd_una == tp->snd_max && SEQ_LT(tp->snd_nxt, data_end) &&
	    !(tp->tflags & (TF_RECOVERY | TF_LOSS)) &&
	    stk->now > tp->lsnd_ns &&
	    stk->now - tp->lsnd_ns > (uint64_t)tp->rto_us * 1000)
		ust_tcp_cc_idle_restart(stk, tp);
	for (;;) {
		uint32_t flight, room, peer_room, avail, len;
		uint8_t flags;
		bool rtx, fin, joined;

		if (tcp_tx_blocked(stk, tp))
			break;
		if (sack_rec) {
			uint32_t s, e;
			bool f;

			/* cwnd is PRR's (ust_tcp_prr_ack()), which counts
			 * segments, as Linux's tcp_packets_in_flight() */
			flight = ust_tcp_rack_in_flight(tp);
			if (ust_tcp_rack_in_flight_segs(tp) >=
			    tp->cwnd / RTE_MAX((uint32_t)tp->mss, 1u))
				break;
			/* first what RACK marked lost, lowest first; the
			 * segments of one packet that are all lost go
			 * again as one, as many as cwnd lets go, with PSH
			 * on the last when they are two and more, as
			 * Linux's tcp_retransmit_skb() sends an skb of
			 * several segments as one TSO packet (packetdrill
			 * sack-route-refresh-ip-tos) */
			if (ust_tcp_rack_next_lost(tp, &s, &e, &f)) {
				uint32_t l = e - s - (f ? 1 : 0);
				uint8_t rflags = UST_TCP_ACK;

				if (rtx_left == 0) {
					rtx_left = ust_tcp_rack_lost_pkt(tp, s,
						tp->mss, tp->cwnd /
						RTE_MAX((uint32_t)tp->mss, 1u) -
						ust_tcp_rack_in_flight_segs(tp));
					rtx_pkt = rtx_left;
				}
				rtx_left--;
				if (rtx_left == 0 && rtx_pkt >= 2)
					rflags |= UST_TCP_PSH;

				/* sent again as it went, a whole MSS, not
				 * mss (the room this push leaves for SACK
				 * blocks): the blocks that do not fit stay
				 * off it. Linux's tcp_retransmit_skb() cuts
				 * to the current MSS; ustack does not, since
				 * the few bytes cut off are a segment more to
				 * lose, which waits for PRR's next segment (a
				 * lost retransmission with its 12-byte rest
				 * unsent was a quarter of ust-echo's timeouts
				 * in the loss benchmark). Cut only to an MSS
				 * lower than when it went (a path MTU learnt
				 * since): the rest stays lost and goes next */
				if (l > tp->mss) {
					l = tp->mss;
					f = false;
				}

				if (ust_tcp_send_segment(stk, tp, s, l,
					rflags | (f ? UST_TCP_FIN : 0),
					true) != 0)
					break;
				if (rtx_left + 1 < rtx_pkt)
					ust_tcp_rack_join(tp);
				if (SEQ_GT(e, tp->high_rxt))
					tp->high_rxt = e;
				ust_tcp_rtx_rearm(stk, tp, false);
				sent++;
				continue;
			}
		} else if ((tp->tflags & TF_LOSS) && tp->n_sb > 0) {
			/* going back N after a timeout: what the peer SACKed
			 * is neither sent again nor counted in flight */
			uint32_t e = ust_tcp_sack_skip(tp, tp->snd_nxt);

			if (e != tp->snd_nxt && SEQ_LT(tp->snd_nxt, tp->snd_max)) {
				tp->snd_nxt = e;
				continue;
			}
			flight = tp->snd_nxt - tp->snd_una -
				ust_tcp_sack_below(tp, tp->snd_nxt);
		} else if ((tp->tflags & (TF_SACK_OK | TF_LOSS)) ==
			   TF_SACK_OK) {
			/* what the peer SACKed left the network (Linux's
			 * tcp_packets_in_flight()): limited transmit (RFC
			 * 3042) and more */
			flight = ust_tcp_rack_in_flight(tp);
		} else {
			flight = tp->snd_nxt - tp->snd_una;
		}
		avail = SEQ_LT(tp->snd_nxt, data_end) ?
			data_end - tp->snd_nxt : 0;
		room = tp->cwnd > flight ? tp->cwnd - flight : 0;
		/* RFC 3042 limited transmit: a new segment on each of the
		 * first two duplicate ACKs, so that a small window still
		 * makes the ACKs that trigger fast retransmit */
		if (!(tp->tflags & (TF_RECOVERY | TF_LOSS | TF_SACK_OK)) &&
		    tp->dupacks > 0 && tp->dupacks < UST_TCP_DUPTHRESH &&
		    SEQ_GEQ(tp->snd_nxt, tp->snd_max))
			room = tp->cwnd + (uint32_t)tp->dupacks * tp->mss >
				flight ? tp->cwnd + (uint32_t)tp->dupacks *
				tp->mss - flight : 0;
		peer_room = SEQ_GT(tp->snd_una + tp->snd_wnd, tp->snd_nxt) ?
			tp->snd_una + tp->snd_wnd - tp->snd_nxt : 0;
		room = RTE_MIN(room, peer_room);
		fin = (tp->tflags & TF_FIN_QUEUED) && tp->snd_nxt + avail ==
			data_end && SEQ_LEQ(tp->snd_nxt, data_end);
		if (avail > 0 && room > 0) {
			bool eor = false;

			/* (going back N: whole segments, as above) */
			len = RTE_MIN(avail, RTE_MIN(SEQ_LT(tp->snd_nxt,
				tp->snd_max) ? tp->mss : mss, room));
			if ((tp->tflags & TF_LOSS) && tp->n_sb > 0 &&
			    SEQ_LT(tp->snd_nxt, tp->snd_max))
				/* up to the next SACKed range */
				len = RTE_MIN(len, ust_tcp_sack_next_start(tp,
					tp->snd_nxt) - tp->snd_nxt);
			/* MSG_EOR: no segment crosses the end of a record */
			if (tp->tflags & TF_EOR_USED)
				len = ust_tcp_sndq_eor_cut(stk, tp, tp->snd_nxt,
							   len, &eor);
			/* sender SWS avoidance (RFC 9293 3.8.6.2.1): no
			 * small new segment because the window is small;
			 * with nothing in flight the persist timer is the
			 * override (below; Linux's probe timer). Going back
			 * N resends segments as they went, a small one
			 * before a SACKed one included */
			if (len < mss && len < avail &&
			    len < tp->snd_wnd_max / 2 && !eor &&
			    !tp->cork_push && !SEQ_LT(tp->snd_nxt, tp->snd_max))
				break;
			/* TCP_CORK: no partial segment while corked, up to
			 * the 200 ms ceiling (tcp_icmp.c) */
			if (len < mss && len == avail && !fin &&
			    !SEQ_LT(tp->snd_nxt, tp->snd_max) &&
			    !ust_tcp_cork_allows(stk, tp))
				break;
			/* Nagle with Minshall's change (Linux's
			 * tcp_nagle_check()): one small segment in flight at
			 * a time; the small tail of a write after full
			 * segments goes at once */
			if (len < mss && len == avail &&
			    SEQ_GT(tp->snd_sml, tp->snd_una) &&
			    SEQ_LEQ(tp->snd_sml, tp->snd_nxt) &&
			    !(tp->tflags & TF_NODELAY) && !fin &&
			    !tp->cork_push &&
			    !SEQ_LT(tp->snd_nxt, tp->snd_max))
				break;
			rtx = SEQ_LT(tp->snd_nxt, tp->snd_max);
			flags = UST_TCP_ACK;
			if (len == avail && fin)
				flags |= UST_TCP_FIN;
			/* PSH at the end of each TSO-sized run of full new
			 * segments in this burst, as on Linux's wire
			 * (ust_tcp_tso_segs()), a run as long as cwnd and
			 * the peer's window then let it be (Linux's
			 * tcp_cwnd_test() and tcp_mss_split_point() cut the
			 * packet); a packet of one segment goes without
			 * (packetdrill's prr, limited_transmit, shutdown and
			 * cubic-rto-ss-ca-cwnd-bump scripts: Linux's TSO
			 * packets of two segments and more end with PSH, a
			 * packet of one only when it ends a write). Going back
			 * N after a timeout resends segment by segment */
			joined = false;
			if (!rtx && len == mss) {
				if (chunk_segs == 0)
					chunk_segs = ust_tcp_tso_segs(tp,
									mss);
				if (chunk == 0)
					run_len = RTE_MIN(chunk_segs,
							  room / mss);
				joined = chunk > 0;
				if (run_len < 2) {
					chunk = 0;
				} else if (++chunk == run_len) {
					flags |= UST_TCP_PSH;
					chunk = 0;
				}
			} else {
				chunk = 0;
			}
			if (ust_tcp_send_segment(stk, tp, tp->snd_nxt, len, flags,
					     rtx) != 0)
				break;
			/* (RACK's records keep the packet, for its resend) */
			if (joined)
				ust_tcp_rack_join(tp);
			if (!rtx && !(tp->tflags & TF_RTT_TIMING)) {
				/* Karn: time one new segment at a time */
				tp->tflags |= TF_RTT_TIMING;
				tp->rtt_seq = tp->snd_nxt;
				tp->rtt_start_us = (uint32_t)(stk->now / 1000);
			}
			tp->snd_nxt += len;
			if (len < mss)
				tp->snd_sml = tp->snd_nxt;
			if (flags & UST_TCP_FIN) {
				tp->snd_nxt++;
				tp->tflags |= TF_FIN_SENT;
			}
			tp->snd_max = SEQ_MAX(tp->snd_max, tp->snd_nxt);
			/* RFC 8985 7.2: after new data, the probe timer */
			ust_tcp_rtx_rearm(stk, tp, !rtx && tp->rtx_mode ==
				      UST_RTX_TLP);
			sent++;
			continue;
		}
		if (avail == 0 && fin && tp->snd_nxt == data_end) {
			/* the FIN alone, needing no window */
			rtx = SEQ_LT(tp->snd_nxt, tp->snd_max);
			if (ust_tcp_send_segment(stk, tp, tp->snd_nxt, 0,
					     UST_TCP_FIN | UST_TCP_ACK,
					     rtx) != 0)
				break;
			tp->snd_nxt++;
			tp->snd_max = SEQ_MAX(tp->snd_max, tp->snd_nxt);
			tp->tflags |= TF_FIN_SENT;
			ust_tcp_rtx_rearm(stk, tp, false);
			continue;
		}
		break;
	}
	/* was the flight limited by cwnd? (Linux's tcp_write_xmit(): the
	 * packets in flight reach cwnd; here, no room for a full segment) */
	if (had_data) {
		in_flight = (tp->tflags & TF_SACK_OK) &&
			!(tp->tflags & TF_LOSS) ? ust_tcp_rack_in_flight(tp) :
			tp->snd_nxt - tp->snd_una -
			ust_tcp_sack_below(tp, tp->snd_nxt);
		limited = in_flight + tp->mss > tp->cwnd;
		if (sent > 0 || limited)
			ust_tcp_cc_cwnd_validate(tp, limited);
	}
	tcp_output_chrono(stk, tp, data_end, sent);
	/* a window too small for what waits (zero, or refused by SWS
	 * avoidance) and nothing in flight: the persist timer, which probes
	 * a zero window and sends what fits in a small one */
	if (SEQ_LT(tp->snd_nxt, data_end) &&
	    tp->snd_una == tp->snd_max && tp->rtx_mode != UST_RTX_PERSIST &&
	    (tp->snd_wnd == 0 || (sent == 0 && tp->snd_wnd < data_end -
				  tp->snd_nxt && tp->snd_wnd < tp->mss))) {
		tp->probes = 0;
		tp->backoff = 0;
		ust_tcp_rtx_arm(stk, tp, UST_RTX_PERSIST, ust_tcp_rto_ns(tp));
	}
	if (tp->tflags & (TF_ACK_NOW | TF_WIN_UPDATE))
		ust_tcp_send_ack(stk, tp);
}
