/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Loss detection by RACK-TLP (RFC 8985) and the sending rate of fast
 * recovery by PRR (RFC 6937, PRR-SSRB), for connections with SACK, as
 * Linux does by default (net.ipv4.tcp_recovery = 1).
 *
 * Each transmission of a segment (new or again) leaves a record: its
 * sequence range, its time, and whether it was a retransmission. An ACK
 * delivers records (cumulatively or by SACK); the most recently sent of
 * them gives RACK.xmit_ts and RACK.end_seq, the last sample in Linux's
 * order RACK.rtt (6.2 step 2). A
 * record sent before RACK.xmit_ts and still not delivered RACK.rtt +
 * RACK.reo_wnd after it was sent is lost (step 5); one sent before but
 * not yet that old arms the reordering timer (6.3). A retransmission is a
 * new record, so a lost retransmission is found the same way. reo_wnd is
 * min_RTT / 4 (times the multiplier D-SACKs raise, step 4), none while no
 * reordering was seen and DupThresh segments are SACKed or recovery runs.
 *
 * The records live in a small array per connection, in no order: the
 * walks are over what is in flight, as Linux's walks of its retransmit
 * queue. The array grows by doubling (compacted first); when it cannot
 * grow, the oldest transmissions are forgotten and the RTO covers them.
 * Arrays of 8 to 64 records come from the stack's slabs, larger ones from
 * the heap; when an ACK leaves nothing in flight, the array goes back (an
 * idle connection holds none, and a request-response connection takes
 * and gives back the same one, hot, each exchange, with no lock).
 *
 * PRR (RFC 6937 3): during recovery, per ACK, sndcnt from the segments
 * delivered (prr_delivered), sent (prr_out), ssthresh and RecoverFS
 * (Linux's prior_cwnd); cwnd = in flight + sndcnt, which tcp_output.c's
 * loop then uses. All in segments, whatever their sizes, as Linux's
 * tcp_cwnd_reduction() counts packets: in bytes, a delivered segment
 * shorter than the MSS (one cut to leave room for SACK blocks, or the
 * rest of one cut so) would earn less than the full segment the next
 * transmission needs, and recovery would stall until the RTO.
 */

#include <string.h>

#include <rte_malloc.h>

#include "tcp_private.h"

#define RACK_CAP_MIN UST_TCP_RACK_CAP_MIN
#define RACK_CAP_SLAB (RACK_CAP_MIN << (UST_TCP_RACK_SLABS - 1))
#define RACK_REO_PERSIST 16     /* RFC 8985 6.2 step 4 */
#define RACK_REO_MULT_MAX 255
#define RACK_REO_SLACK_NS 2000000ull

/* RACK's times (RACK.rtt, min_RTT, the deadlines of step 5) in whole
 * microseconds, as Linux's tcp_stamp_us_delta(). The order of
 * transmissions stays in ns: a connection's segments of one poll are
 * stamped 1 ns apart (tcp_output.c), and in us they have one time, as a
 * burst has in Linux. With ns, a segment sent 1 ns after the one that
 * gave RACK.rtt would be 1 ns short of lost when reo_wnd is 0, and would
 * wait for the reordering timer (packetdrill
 * sack/sack-route-refresh-ip-tos). */
static inline uint64_t
rack_us(uint64_t ns)
{
	return ns / 1000;
}

/* RACK_sent_after(): was (t1, seq1) sent after (t2, seq2)? */
static inline bool
rack_sent_after(uint64_t t1, uint32_t seq1, uint64_t t2, uint32_t seq2)
{
	return t1 > t2 || (t1 == t2 && SEQ_GT(seq1, seq2));
}

/* does the record count in the flight? */
static inline bool
rack_counted(uint16_t flags)
{
	return !(flags & (UST_TXR_DEAD | UST_TXR_SACKED | UST_TXR_LOST));
}

/* A record's flags change: the counts follow. */
static void
rack_set(struct ust_tcp_rack *r, struct ust_tcp_txrec *x, uint16_t flags)
{
	if (rack_counted(x->flags)) {
		r->flight -= x->end - x->seq;
		r->flight_segs--;
	}
	if (!(x->flags & UST_TXR_DEAD))
		r->live--;
	x->flags = flags;
	if (rack_counted(flags)) {
		r->flight += x->end - x->seq;
		r->flight_segs++;
	}
	if (!(flags & UST_TXR_DEAD))
		r->live++;
}

/* A record's range shrinks to [seq, end). */
static void
rack_range(struct ust_tcp_rack *r, struct ust_tcp_txrec *x, uint32_t seq,
	   uint32_t end)
{
	if (rack_counted(x->flags))
		r->flight -= (x->end - x->seq) - (end - seq);
	x->seq = seq;
	x->end = end;
}

static void
rack_compact(struct ust_tcp_rack *r)
{
	uint32_t i, n = 0;
	bool sorted = true;

	for (i = 0; i < r->n; i++) {
		if (r->recs[i].flags & UST_TXR_DEAD)
			continue;
		if (n > 0 && (SEQ_LT(r->recs[i].seq, r->recs[n - 1].end) ||
			      r->recs[i].xmit_ns < r->recs[n - 1].xmit_ns))
			sorted = false;
		r->recs[n++] = r->recs[i];
	}
	r->n = n;
	r->head = 0;
	r->sorted = sorted;
}

/* the slab of an array of @cap records (RACK_CAP_MIN << i), or NULL */
static struct ust_tcp_slab *
rack_slab(struct ust_stack *stk, uint32_t cap)
{
	unsigned int i;

	if (cap > RACK_CAP_SLAB)
		return NULL;
	for (i = 0; (RACK_CAP_MIN << i) < cap; i++)
		;
	return &stk->tcp->rack_slab[i];
}

static struct ust_tcp_txrec *
rack_array_get(struct ust_stack *stk, uint32_t cap)
{
	struct ust_tcp_slab *s = rack_slab(stk, cap);

	if (s != NULL)
		return ust_tcp_slab_get(s);
	return rte_malloc_socket("ust_tcp_rack",
				 cap * sizeof(struct ust_tcp_txrec), 0,
				 stk->conf.socket_id);
}

static void
rack_array_put(struct ust_stack *stk, struct ust_tcp_txrec *a, uint32_t cap)
{
	struct ust_tcp_slab *s;

	if (a == NULL)
		return;
	s = rack_slab(stk, cap);
	if (s != NULL)
		ust_tcp_slab_put(s, a);
	else
		rte_free(a);
}

/* Nothing is in flight: the array goes back. */
static void
rack_release(struct ust_stack *stk, struct ust_tcp_rack *r)
{
	rack_array_put(stk, r->recs, r->cap);
	r->recs = NULL;
	r->cap = 0;
	r->n = 0;
	r->head = 0;
	r->sorted = true;
}

/* Room for one more record; false when there is none. */
static bool
rack_room(struct ust_stack *stk, struct ust_tcp_rack *r)
{
	struct ust_tcp_txrec *nr;
	uint32_t cap;

	if (r->n < r->cap)
		return true;
	rack_compact(r);
	if (r->n < r->cap - r->cap / 4)
		return true;
	cap = r->cap == 0 ? RACK_CAP_MIN : r->cap * 2;
	nr = rack_array_get(stk, cap);
	if (nr == NULL)
		return r->n < r->cap;
	if (r->n > 0)
		memcpy(nr, r->recs, r->n * sizeof(*nr));
	rack_array_put(stk, r->recs, r->cap);
	r->recs = nr;
	r->cap = cap;
	return true;
}

static void
rack_append(struct ust_stack *stk, struct ust_tcp_rack *r, uint32_t seq,
	    uint32_t end, uint64_t ns, uint16_t flags)
{
	struct ust_tcp_txrec *x;

	if (r->live == 0) {
		r->n = 0;
		r->head = 0;
		r->sorted = true;
	}
	if (!rack_room(stk, r)) {
		/* forget the oldest transmission: the RTO will do for it */
		uint32_t i, old = 0;

		if (r->n == 0)
			return; /* no array at all: nothing recorded */

		for (i = 1; i < r->n; i++)
			if (r->recs[i].xmit_ns < r->recs[old].xmit_ns)
				old = i;
		rack_set(r, &r->recs[old], UST_TXR_DEAD);
		r->recs[old] = r->recs[--r->n];
		r->sorted = false;
		r->head = 0;
	}
	if (r->n > 0 && (SEQ_LT(seq, r->recs[r->n - 1].end) ||
			 ns < r->recs[r->n - 1].xmit_ns))
		r->sorted = false;
	x = &r->recs[r->n++];
	x->seq = seq;
	x->end = end;
	x->xmit_ns = ns;
	x->flags = UST_TXR_DEAD;
	rack_set(r, x, flags);
}

void
ust_tcp_rack_xmit(struct ust_stack *stk, struct ust_tcp_sock *tp,
		  uint32_t seq, uint32_t end, bool fin, bool rtx, uint64_t ns)
{
	struct ust_tcp_rack *r = &tp->rack;
	struct ust_tcp_txrec tail = { .flags = UST_TXR_DEAD };
	uint32_t i, n = r->n;

	if (!(tp->tflags & TF_SACK_OK))
		return;
	if (rtx) {
		/* what this sends again is no longer in its old records: they
		 * keep what lies outside [seq, end) */
		for (i = 0; i < n; i++) {
			struct ust_tcp_txrec *x = &r->recs[i];

			if (x->flags & UST_TXR_DEAD)
				continue;
			/* the packet that went on at @seq ends there now:
			 * Linux's tcp_fragment() cuts the skb sent again
			 * from the piece before it */
			if (x->end == seq)
				x->flags &= (uint16_t)~UST_TXR_PKT_MORE;
			if (!SEQ_LT(x->seq, end) || !SEQ_GT(x->end, seq))
				continue;
			if (SEQ_GEQ(x->seq, seq) && SEQ_LEQ(x->end, end)) {
				rack_set(r, x, x->flags | UST_TXR_DEAD);
			} else if (SEQ_LT(x->seq, seq) && SEQ_GT(x->end, end)) {
				/* (records do not overlap: one at most;
				 * appended after the walk, which an append
				 * may compact) */
				tail = *x;
				rack_range(r, x, x->seq, seq);
				x->flags &= (uint16_t)~UST_TXR_FIN;
			} else if (SEQ_LT(x->seq, seq)) {
				rack_range(r, x, x->seq, seq);
				x->flags &= (uint16_t)~(UST_TXR_FIN |
							UST_TXR_PKT_MORE);
			} else {
				/* the rest of its packet (Linux's skb cut at
				 * @end keeps what follows) */
				rack_range(r, x, end, x->end);
			}
		}
		if (!(tail.flags & UST_TXR_DEAD))
			rack_append(stk, r, end, tail.end, tail.xmit_ns,
				    tail.flags);
	}
	rack_append(stk, r, seq, end, ns,
		    (uint16_t)((rtx ? UST_TXR_RETRANS : 0) |
			       (fin ? UST_TXR_FIN : 0)));
}

/* RFC 8985 6.2 step 4: RACK.reo_wnd */
static uint64_t
rack_reo_wnd(const struct ust_tcp_sock *tp)
{
	const struct ust_tcp_rack *r = &tp->rack;
	uint64_t w, srtt = (uint64_t)(tp->srtt_us >> 3) * 1000;

	if (!r->reordering_seen) {
		if (tp->tflags & (TF_RECOVERY | TF_LOSS))
			return 0;
		if (r->segs_sacked >= UST_TCP_DUPTHRESH)
			return 0;
	}
	w = (uint64_t)r->reo_wnd_mult * (r->min_rtt_ns / 4);
	return w < srtt ? w : srtt;
}

/* RFC 8985 6.2 step 5, RACK_detect_loss(): returns whether segments were
 * newly marked lost; *reo_ns the time until the next may be (0: none) */
static bool
rack_detect_loss(struct ust_stack *stk, struct ust_tcp_sock *tp,
		 uint64_t *reo_ns)
{
	struct ust_tcp_rack *r = &tp->rack;
	uint64_t reo = rack_reo_wnd(tp), timeout = 0;
	uint64_t now = rack_us(stk->now) * 1000;
	bool lost = false;
	uint32_t i;

	for (i = 0; i < r->n; i++) {
		struct ust_tcp_txrec *x = &r->recs[i];
		uint64_t deadline;

		if (x->flags & (UST_TXR_DEAD | UST_TXR_SACKED | UST_TXR_LOST))
			continue;
		if (!rack_sent_after(r->xmit_ns, r->end_seq, x->xmit_ns,
				     x->end))
			continue;
		deadline = rack_us(x->xmit_ns) * 1000 +
			(uint64_t)r->rtt_ns + reo;
		if (deadline <= now) {
			rack_set(r, x, x->flags | UST_TXR_LOST);
			lost = true;
		} else if (deadline - now > timeout) {
			timeout = deadline - now;
		}
	}
	/* the timer goes 2 ms after the deadline (Linux's
	 * tcp_rack_mark_lost(): + TCP_TIMEOUT_MIN) */
	*reo_ns = timeout > 0 ? timeout + RACK_REO_SLACK_NS : 0;
	return lost;
}

/* A reordering of @metric bytes seen: its degree in segments, at most 300
 * (Linux's tcp_check_sack_reordering(): tp->reordering grows only), and
 * one more event. */
static void
rack_reordering(struct ust_tcp_sock *tp, uint32_t metric)
{
	struct ust_tcp_rack *r = &tp->rack;
	uint32_t mss = RTE_MAX((uint32_t)tp->mss, 1u);

	if (metric > (uint32_t)r->reordering * mss)
		r->reordering = (uint16_t)RTE_MIN((metric + mss - 1) / mss,
						  300u);
	if (r->reord_seen < UINT16_MAX)
		r->reord_seen++;
}

/* Is [seq, end) SACKed whole? */
static bool
rack_sacked(const struct ust_tcp_sock *tp, uint32_t seq, uint32_t end)
{
	unsigned int i;

	for (i = 0; i < tp->n_sb; i++)
		if (SEQ_LEQ(tp->sack->sb[i].start, seq) &&
		    SEQ_GEQ(tp->sack->sb[i].end, end))
			return true;
	return false;
}

uint32_t
ust_tcp_rack_ack(struct ust_stack *stk, struct ust_tcp_sock *tp, bool dsack,
		 bool *lost, uint64_t *reo_ns, uint64_t *rtt_ns,
		 uint32_t *delivered_segs)
{
	struct ust_tcp_rack *r = &tp->rack;
	uint32_t prior_fack = r->fack, delivered = 0, sacked = 0, i;
	uint32_t segs = 0;
	uint32_t rtt_end_cum = 0, rtt_end_sack = 0;
	uint32_t low_sack = 0, low_cum = 0;
	bool rtt_cum = false, rtt_sack = false, fast;
	bool reord_sack = false, reord_cum = false;
	int64_t rtt_last = 0;

	*lost = false;
	*reo_ns = 0;
	*rtt_ns = 0;
	*delivered_segs = 0;
	if (!(tp->tflags & TF_SACK_OK))
		return 0;
	if (SEQ_LT(r->fack, tp->snd_una))
		r->fack = tp->snd_una;
	/* the common case: records in order, nothing SACKed; the ACK
	 * delivers a prefix of them, and none left can be lost (all were
	 * sent after those delivered), so the walk stops at the first one
	 * still out */
	fast = r->sorted && tp->n_sb == 0;
	for (i = fast ? r->head : 0; i < r->n; i++) {
		struct ust_tcp_txrec *x = &r->recs[i];
		bool cum;
		int64_t rtt;

		if (x->flags & UST_TXR_DEAD)
			continue;
		cum = SEQ_LEQ(x->end, tp->snd_una);
		if (!cum) {
			if (SEQ_LT(x->seq, tp->snd_una)) {
				/* partly acknowledged (no segment for PRR
				 * until it is whole, as Linux counts a
				 * one-segment skb) */
				delivered += tp->snd_una - x->seq;
				rack_range(r, x, tp->snd_una, x->end);
				x->flags |= UST_TXR_PARTIAL;
			}
			if (fast)
				break;
			if ((x->flags & UST_TXR_SACKED) ||
			    !rack_sacked(tp, x->seq, x->end)) {
				if (x->flags & UST_TXR_SACKED)
					sacked++;
				continue;
			}
			rack_set(r, x, x->flags | UST_TXR_SACKED);
			sacked++;
		} else {
			bool before = (x->flags & UST_TXR_SACKED) != 0;

			rack_set(r, x, x->flags | UST_TXR_DEAD);
			if (before)
				continue; /* delivered before */
		}
		delivered += x->end - x->seq;
		segs++;
		/* step 3: delivered below what was delivered before, never
		 * sent again: the network reordered. As Linux's
		 * tcp_clean_rtx_queue(), a segment acknowledged in part by
		 * an earlier ACK counts too (its start was below SND.UNA,
		 * which stands for RACK.fack there): its reordering degree
		 * is nothing, but reordering was seen, and reo_wnd stays
		 * open (packetdrill eor/no-coalesce-retrans) */
		if (!(x->flags & UST_TXR_RETRANS) &&
		    (SEQ_LT(x->seq, prior_fack) ||
		     (cum && (x->flags & UST_TXR_PARTIAL)))) {
			r->reordering_seen = true;
			/* the lowest, of the SACKed and of the
			 * cumulatively acknowledged apart (below) */
			if (!cum && (!reord_sack || SEQ_LT(x->seq, low_sack))) {
				reord_sack = true;
				low_sack = x->seq;
			}
			if (cum && (!reord_cum || SEQ_LT(x->seq, low_cum))) {
				reord_cum = true;
				low_cum = x->seq;
			}
		}
		if (SEQ_GT(x->end, r->fack))
			r->fack = x->end;
		/* step 2: RACK_update(), in whole microseconds */
		rtt = ((int64_t)rack_us(stk->now) -
		       (int64_t)rack_us(x->xmit_ns)) * 1000;
		if ((x->flags & UST_TXR_RETRANS) &&
		    rtt < (int64_t)r->min_rtt_ns)
			continue; /* the original's ACK, maybe */
		/* (min_RTT 0 is none: a clock that did not move gives the
		 * smallest RTT there is, 1 us) */
		if (!(x->flags & UST_TXR_RETRANS) &&
		    (r->min_rtt_ns == 0 || rtt < (int64_t)r->min_rtt_ns))
			r->min_rtt_ns = (uint64_t)RTE_MAX(rtt, (int64_t)1000);
		if (rack_sent_after(x->xmit_ns, x->end, r->xmit_ns,
				    r->end_seq)) {
			r->xmit_ns = x->xmit_ns;
			r->end_seq = x->end;
		}
		/* RACK.rtt is the last sample taken; Linux takes the SACKed
		 * segments first, then the cumulatively acknowledged ones in
		 * sequence order: the last is the highest of the latter */
		if (cum ? !rtt_cum || SEQ_GT(x->end, rtt_end_cum) :
		    !rtt_cum && (!rtt_sack || SEQ_GT(x->end, rtt_end_sack))) {
			if (cum) {
				rtt_cum = true;
				rtt_end_cum = x->end;
			} else {
				rtt_sack = true;
				rtt_end_sack = x->end;
			}
			rtt_last = rtt;
		}
	}
	if (fast)
		r->head = i;
	/* the reordering's degree, once for what this ACK SACKed and once
	 * for what it acknowledged cumulatively (Linux's
	 * tcp_check_sack_reordering() from its SACK tagging and from its
	 * retransmit queue's cleaning): reported by TCP_INFO */
	if (reord_sack)
		rack_reordering(tp, prior_fack - low_sack);
	if (reord_cum)
		rack_reordering(tp, prior_fack - low_cum);
	if (rtt_cum || rtt_sack) {
		r->rtt_ns = rtt_last;
		*rtt_ns = (uint64_t)RTE_MAX(rtt_last, (int64_t)1000);
	}
	r->segs_sacked = sacked;
	/* the walks are over what is in flight, not over what was */
	if (r->live == 0) {
		rack_release(stk, r);
	} else if (r->n > 2 * r->live + 16) {
		rack_compact(r);
	}
	/* step 4: D-SACKs widen the reordering window for 16 recoveries */
	if (r->dsack_round_set && SEQ_GEQ(tp->snd_una, r->dsack_round))
		r->dsack_round_set = false;
	if (!r->dsack_round_set && dsack) {
		r->dsack_round_set = true;
		r->dsack_round = tp->snd_max;
		if (r->reo_wnd_mult < RACK_REO_MULT_MAX)
			r->reo_wnd_mult++;
		r->reo_wnd_persist = RACK_REO_PERSIST;
	}
	if (r->reo_wnd_mult == 0)
		r->reo_wnd_mult = 1;
	/* (after a timeout, going back N sends everything again) */
	if (!(tp->tflags & TF_LOSS) && !fast)
		*lost = rack_detect_loss(stk, tp, reo_ns);
	*delivered_segs = segs;
	return delivered;
}

bool
ust_tcp_rack_reo_timeout(struct ust_stack *stk, struct ust_tcp_sock *tp,
			 uint64_t *reo_ns)
{
	return rack_detect_loss(stk, tp, reo_ns);
}

uint32_t
ust_tcp_rack_in_flight(const struct ust_tcp_sock *tp)
{
	return tp->rack.flight;
}

uint32_t
ust_tcp_rack_in_flight_segs(const struct ust_tcp_sock *tp)
{
	return tp->rack.flight_segs;
}

uint32_t
ust_tcp_rack_packets_out(const struct ust_tcp_sock *tp)
{
	return tp->rack.live;
}

bool
ust_tcp_rack_next_lost(const struct ust_tcp_sock *tp, uint32_t *seq,
		       uint32_t *end, bool *fin)
{
	const struct ust_tcp_rack *r = &tp->rack;
	const struct ust_tcp_txrec *best = NULL;
	uint32_t i;

	for (i = 0; i < r->n; i++) {
		const struct ust_tcp_txrec *x = &r->recs[i];

		if ((x->flags & (UST_TXR_DEAD | UST_TXR_SACKED |
				 UST_TXR_LOST)) != UST_TXR_LOST)
			continue;
		if (best == NULL || SEQ_LT(x->seq, best->seq))
			best = x;
	}
	if (best == NULL)
		return false;
	*seq = best->seq;
	*end = best->end;
	*fin = (best->flags & UST_TXR_FIN) != 0;
	return true;
}

void
ust_tcp_rack_join(struct ust_tcp_sock *tp)
{
	struct ust_tcp_rack *r = &tp->rack;
	struct ust_tcp_txrec *x, *y;

	/* records are appended in the order they leave, and compacting
	 * keeps it: the one before is next to it, unless forgetting the
	 * oldest moved it (then no join: a PSH fewer on a resend) */
	if (r->n < 2)
		return;
	x = &r->recs[r->n - 2];
	y = &r->recs[r->n - 1];
	if (!(x->flags & (UST_TXR_DEAD | UST_TXR_FIN)) &&
	    !(y->flags & UST_TXR_DEAD) && x->end == y->seq)
		x->flags |= UST_TXR_PKT_MORE;
}

/* the data end of a record (a FIN's sequence number is never SACKed) */
static inline uint32_t
rack_data_end(const struct ust_tcp_txrec *x)
{
	return x->end - ((x->flags & UST_TXR_FIN) ? 1 : 0);
}

/* the live record that starts at @seq, from index @i on first (the one
 * after a packet's record is most often the next in the array) */
static const struct ust_tcp_txrec *
rack_at(const struct ust_tcp_rack *r, uint32_t i, uint32_t seq)
{
	uint32_t j;

	if (i < r->n && !(r->recs[i].flags & UST_TXR_DEAD) &&
	    r->recs[i].seq == seq)
		return &r->recs[i];
	for (j = 0; j < r->n; j++)
		if (!(r->recs[j].flags & UST_TXR_DEAD) &&
		    r->recs[j].seq == seq)
			return &r->recs[j];
	return NULL;
}

uint32_t
ust_tcp_rack_lost_pkt(const struct ust_tcp_sock *tp, uint32_t seq,
		      uint32_t len, uint32_t max)
{
	const struct ust_tcp_rack *r = &tp->rack;
	const struct ust_tcp_txrec *x = rack_at(r, 0, seq);
	uint32_t k = 1;

	/* (a record with PKT_MORE has no FIN: its end is its data's) */
	while (x != NULL && k < max && (x->flags & UST_TXR_PKT_MORE) &&
	       x->end - x->seq <= len) {
		x = rack_at(r, (uint32_t)(x - r->recs) + 1, x->end);
		if (x == NULL || (x->flags & (UST_TXR_SACKED | UST_TXR_LOST)) !=
		    UST_TXR_LOST || rack_data_end(x) - x->seq > len)
			break;
		k++;
	}
	return k;
}

bool
ust_tcp_rack_last(const struct ust_tcp_sock *tp, uint32_t *seq,
		  uint32_t *end, bool *fin)
{
	const struct ust_tcp_rack *r = &tp->rack;
	const struct ust_tcp_txrec *best = NULL;
	uint32_t i;

	for (i = 0; i < r->n; i++) {
		const struct ust_tcp_txrec *x = &r->recs[i];

		if (x->flags & (UST_TXR_DEAD | UST_TXR_SACKED))
			continue;
		if (best == NULL || SEQ_GT(x->end, best->end))
			best = x;
	}
	if (best == NULL)
		return false;
	*seq = best->seq;
	*end = best->end;
	*fin = (best->flags & UST_TXR_FIN) != 0;
	return true;
}

/* Sorted records: the one that @v falls strictly inside, by bisection
 * over [head, n) (NULL: none). */
static const struct ust_tcp_txrec *
rack_inside_sorted(const struct ust_tcp_rack *r, uint32_t v)
{
	const struct ust_tcp_txrec *x;
	uint32_t lo = r->head, hi = r->n;

	while (lo < hi) { /* the first record from @v on */
		uint32_t mid = lo + (hi - lo) / 2;

		if (SEQ_LT(r->recs[mid].seq, v))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == r->head)
		return NULL;
	x = &r->recs[lo - 1];
	return !(x->flags & UST_TXR_DEAD) && SEQ_LT(v, rack_data_end(x)) ?
		x : NULL;
}

void
ust_tcp_rack_sack_trim(const struct ust_tcp_sock *tp, uint32_t *start,
		       uint32_t *end)
{
	const struct ust_tcp_rack *r = &tp->rack;
	const struct ust_tcp_txrec *x;
	uint32_t i;

	if (r->sorted) {
		/* the common case (nothing sent twice): O(log n) */
		x = rack_inside_sorted(r, *start);
		if (x != NULL)
			*start = rack_data_end(x);
		x = rack_inside_sorted(r, *end);
		if (x != NULL)
			*end = x->seq;
		return;
	}
	for (i = 0; i < r->n; i++) {
		uint32_t xe;

		x = &r->recs[i];
		xe = rack_data_end(x);
		if (x->flags & UST_TXR_DEAD)
			continue;
		if (SEQ_LT(x->seq, *start) && SEQ_LT(*start, xe))
			*start = xe;
		if (SEQ_LT(x->seq, *end) && SEQ_LT(*end, xe))
			*end = x->seq;
	}
}

void
ust_tcp_rack_unsack(struct ust_tcp_sock *tp)
{
	struct ust_tcp_rack *r = &tp->rack;
	uint32_t i;

	for (i = 0; i < r->n; i++)
		rack_set(r, &r->recs[i],
			 r->recs[i].flags & (uint16_t)~UST_TXR_SACKED);
	r->segs_sacked = 0;
}

void
ust_tcp_rack_all_lost(struct ust_tcp_sock *tp)
{
	struct ust_tcp_rack *r = &tp->rack;
	uint32_t i;

	for (i = 0; i < r->n; i++)
		if (!(r->recs[i].flags & (UST_TXR_DEAD | UST_TXR_SACKED)))
			rack_set(r, &r->recs[i],
				 r->recs[i].flags | UST_TXR_LOST);
	/* a recovery ends in a timeout */
	ust_tcp_rack_recovery_end(tp);
}

void
ust_tcp_rack_recovery_end(struct ust_tcp_sock *tp)
{
	struct ust_tcp_rack *r = &tp->rack;

	/* step 4: the window D-SACKs widened lasts 16 recoveries */
	if (r->reo_wnd_persist > 0 && --r->reo_wnd_persist == 0)
		r->reo_wnd_mult = 1;
}

void
ust_tcp_rack_free(struct ust_tcp_sock *tp)
{
	rack_release(tp->base.stk, &tp->rack);
	tp->rack.live = 0;
	tp->rack.flight = 0;
	tp->rack.flight_segs = 0;
}

/* ---- PRR (RFC 6937) ---- */

void
ust_tcp_prr_init(struct ust_tcp_sock *tp)
{
	struct ust_tcp_rack *r = &tp->rack;

	r->prr_delivered = 0;
	r->prr_out = 0;
	r->recover_fs = RTE_MAX(tp->cwnd / RTE_MAX((uint32_t)tp->mss, 1u), 1u);
}

void
ust_tcp_prr_ack(struct ust_tcp_sock *tp, uint32_t delivered,
		bool una_advanced, bool newly_lost)
{
	struct ust_tcp_rack *r = &tp->rack;
	uint32_t mss = RTE_MAX((uint32_t)tp->mss, 1u);
	int64_t pipe = r->flight_segs;
	int64_t ssthresh = tp->ssthresh / mss;
	int64_t sndcnt;

	if (delivered == 0 || r->recover_fs == 0)
		return;
	r->prr_delivered += delivered;
	if (pipe > ssthresh) {
		/* proportional rate reduction (RFC 6937 3.1) */
		sndcnt = ((int64_t)r->prr_delivered * ssthresh +
			  r->recover_fs - 1) / r->recover_fs;
		sndcnt -= r->prr_out;
	} else {
		/* slow start reduction bound: catch up to ssthresh, no
		 * faster than slow start (PRR-SSRB; the extra segment only
		 * for an ACK that advances SND.UNA and finds no new loss, as
		 * Linux's tcp_cwnd_reduction()) */
		int64_t limit = RTE_MAX((int64_t)r->prr_delivered -
					r->prr_out, (int64_t)delivered);

		if (una_advanced && !newly_lost)
			limit++;
		sndcnt = RTE_MIN(ssthresh - pipe, limit);
	}
	/* the fast retransmit goes whatever the rest says */
	if (r->prr_out == 0 && sndcnt < 1)
		sndcnt = 1;
	if (sndcnt < 0)
		sndcnt = 0;
	tp->cwnd = (uint32_t)(pipe + sndcnt) * mss;
}
