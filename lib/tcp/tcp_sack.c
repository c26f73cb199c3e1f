/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * SACK. Receiver (RFC 2018 4): the blocks we announce describe the
 * out-of-order data we hold, the block holding the latest segment first.
 * Sender (RFC 6675): a scoreboard of the ranges the peer SACKed above
 * snd_una, which RACK (tcp_rack.c) reads to know what was delivered and
 * going back N after a timeout skips; IsLost(), NextSeg() and the pipe of
 * RFC 6675 are kept, no longer used for sending.
 *
 * The ranges live in a block of their own (struct ust_tcp_sack), taken
 * from the stack's slab when the first is recorded and given back when
 * none is left (ust_tcp_sack_release()): every reader walks n_sb or
 * n_rcv_sack ranges, or reads the D-SACK under TF_DSACK, so it finds the
 * block there whenever it reads one.
 *
 * Called from tcp_input.c (updates) and tcp_output.c (NextSeg, pipe).
 */

#include <string.h>

#include "tcp_private.h"

struct ust_tcp_sack *
ust_tcp_sack_get(struct ust_tcp_sock *tp)
{
	if (tp->sack == NULL)
		tp->sack = ust_tcp_slab_get(&tp->base.stk->tcp->sack_slab);
	return tp->sack;
}

void
ust_tcp_sack_put(struct ust_tcp_sock *tp)
{
	if (tp->sack == NULL)
		return;
	ust_tcp_slab_put(&tp->base.stk->tcp->sack_slab, tp->sack);
	tp->sack = NULL;
}

/* ---- receiver ---- */

void
ust_tcp_sack_rcv_update(struct ust_tcp_sock *tp, uint32_t seq, uint32_t end)
{
	struct ust_seq_range nb = { seq, end };
	struct ust_seq_range keep[UST_TCP_MAX_SACK];
	struct ust_tcp_sack *sk = ust_tcp_sack_get(tp);
	unsigned int i, n = 0;

	if (sk == NULL)
		return; /* no memory: the block goes unannounced */
	/* merge every block that touches the new one into it */
	for (i = 0; i < tp->n_rcv_sack; i++) {
		struct ust_seq_range *b = &sk->rcv_sack[i];

		if (SEQ_LEQ(b->start, nb.end) && SEQ_GEQ(b->end, nb.start)) {
			nb.start = SEQ_MIN(nb.start, b->start);
			nb.end = SEQ_MAX(nb.end, b->end);
		} else if (n < UST_TCP_MAX_SACK - 1) {
			keep[n++] = *b;
		}
	}
	sk->rcv_sack[0] = nb;
	for (i = 0; i < n; i++)
		sk->rcv_sack[i + 1] = keep[i];
	tp->n_rcv_sack = (uint8_t)(n + 1);
}

void
ust_tcp_sack_rcv_trim(struct ust_tcp_sock *tp)
{
	unsigned int i, n = 0;

	for (i = 0; i < tp->n_rcv_sack; i++) {
		struct ust_seq_range b = tp->sack->rcv_sack[i];

		if (SEQ_LEQ(b.end, tp->rcv_nxt))
			continue;
		if (SEQ_LT(b.start, tp->rcv_nxt))
			b.start = tp->rcv_nxt;
		tp->sack->rcv_sack[n++] = b;
	}
	tp->n_rcv_sack = (uint8_t)n;
	ust_tcp_sack_release(tp);
}

/* RFC 2883: data that arrived twice, all or part of a segment, is reported
 * once, in the first SACK block of the next ACK (Linux's tcp_dsack_set()
 * and tcp_dsack_extend(), with tcp_dsack on): a duplicate touching the one
 * still to report joins it, another replaces it. The ACK that carries it
 * goes at once (the callers set TF_ACK_NOW). Counted as TCPDSACKOldSent
 * below rcv_nxt, TCPDSACKOfoSent above it. */
void
ust_tcp_dsack_set(struct ust_stack *stk, struct ust_tcp_sock *tp,
		  uint32_t seq, uint32_t end)
{
	struct ust_tcp_sack *sk;

	if (!(tp->tflags & TF_SACK_OK) || !stk->conf.tcp.dsack ||
	    !SEQ_LT(seq, end))
		return;
	sk = ust_tcp_sack_get(tp);
	if (sk == NULL)
		return; /* no memory: no D-SACK */
	if ((tp->tflags & TF_DSACK) && SEQ_LEQ(seq, sk->rcv_dsack.end) &&
	    SEQ_GEQ(end, sk->rcv_dsack.start)) {
		sk->rcv_dsack.start = SEQ_MIN(seq, sk->rcv_dsack.start);
		sk->rcv_dsack.end = SEQ_MAX(end, sk->rcv_dsack.end);
		return;
	}
	stk->mib[SEQ_LT(seq, tp->rcv_nxt) ? UST_MIB_TCPEXT_TCPDSACKOLDSENT :
		 UST_MIB_TCPEXT_TCPDSACKOFOSENT]++;
	sk->rcv_dsack.start = seq;
	sk->rcv_dsack.end = end;
	tp->tflags |= TF_DSACK;
}

/* ---- sender scoreboard ---- */

static void
sb_recount(struct ust_tcp_sock *tp)
{
	const struct ust_seq_range *sb = tp->n_sb > 0 ? tp->sack->sb : NULL;
	unsigned int i;

	tp->sacked_bytes = 0;
	tp->high_sacked = tp->snd_una;
	for (i = 0; i < tp->n_sb; i++) {
		tp->sacked_bytes += sb[i].end - sb[i].start;
		tp->high_sacked = SEQ_MAX(tp->high_sacked, sb[i].end);
	}
}

static void
sb_insert(struct ust_tcp_sock *tp, uint32_t start, uint32_t end)
{
	struct ust_seq_range out[UST_TCP_SB_MAX + 1];
	struct ust_tcp_sack *sk = ust_tcp_sack_get(tp);
	unsigned int i, n = 0;
	bool placed = false;

	if (sk == NULL)
		return; /* no memory: RACK's records still know it */
	for (i = 0; i < tp->n_sb; i++) {
		struct ust_seq_range b = sk->sb[i];

		if (SEQ_LT(b.end, start)) {
			out[n++] = b;
			continue;
		}
		if (SEQ_GT(b.start, end)) {
			if (!placed) {
				out[n++] = (struct ust_seq_range){ start, end };
				placed = true;
			}
			out[n++] = b;
			continue;
		}
		/* overlaps or touches: absorb */
		start = SEQ_MIN(start, b.start);
		end = SEQ_MAX(end, b.end);
	}
	if (!placed)
		out[n++] = (struct ust_seq_range){ start, end };
	/* keep the lowest ranges: they matter for recovery */
	if (n > UST_TCP_SB_MAX)
		n = UST_TCP_SB_MAX;
	memcpy(sk->sb, out, n * sizeof(out[0]));
	tp->n_sb = (uint8_t)n;
}

void
ust_tcp_sack_sender_update(struct ust_tcp_sock *tp, const struct ust_tcp_opts *o)
{
	unsigned int i;

	for (i = 0; i < o->nsack; i++) {
		uint32_t s = o->sack[i].start, e = o->sack[i].end;

		/* valid blocks only: within what we sent, above snd_una
		 * (D-SACKs and garbage are ignored, RFC 2883 4) */
		if (!SEQ_LT(s, e) || SEQ_LEQ(e, tp->snd_una) ||
		    SEQ_GT(e, tp->snd_max))
			continue;
		if (SEQ_LT(s, tp->snd_una))
			s = tp->snd_una;
		ust_tcp_rack_sack_trim(tp, &s, &e);
		if (!SEQ_LT(s, e))
			continue;
		sb_insert(tp, s, e);
	}
	sb_recount(tp);
}

void
ust_tcp_sack_sender_clean(struct ust_tcp_sock *tp)
{
	unsigned int i, n = 0;

	for (i = 0; i < tp->n_sb; i++) {
		struct ust_seq_range b = tp->sack->sb[i];

		if (SEQ_LEQ(b.end, tp->snd_una))
			continue;
		if (SEQ_LT(b.start, tp->snd_una))
			b.start = tp->snd_una;
		tp->sack->sb[n++] = b;
	}
	tp->n_sb = (uint8_t)n;
	sb_recount(tp);
	ust_tcp_sack_release(tp);
}

bool
ust_tcp_sack_is_sacked(const struct ust_tcp_sock *tp, uint32_t seq)
{
	unsigned int i;

	for (i = 0; i < tp->n_sb; i++)
		if (SEQ_GEQ(seq, tp->sack->sb[i].start) && SEQ_LT(seq, tp->sack->sb[i].end))
			return true;
	return false;
}

/* bytes SACKed above @seq */
static uint32_t
sacked_above(const struct ust_tcp_sock *tp, uint32_t seq)
{
	uint32_t n = 0;
	unsigned int i;

	for (i = 0; i < tp->n_sb; i++) {
		if (SEQ_LEQ(tp->sack->sb[i].end, seq))
			continue;
		n += tp->sack->sb[i].end - SEQ_MAX(tp->sack->sb[i].start, seq);
	}
	return n;
}

/* RFC 6675 IsLost(): DupThresh discontiguous segments, or more than
 * (DupThresh - 1) * SMSS bytes, SACKed above @seq */
static bool
is_lost(const struct ust_tcp_sock *tp, uint32_t seq)
{
	unsigned int i, ranges = 0;

	for (i = 0; i < tp->n_sb; i++)
		if (SEQ_GT(tp->sack->sb[i].start, seq))
			ranges++;
	return ranges >= UST_TCP_DUPTHRESH ||
	       sacked_above(tp, seq) > (UST_TCP_DUPTHRESH - 1u) * tp->mss;
}

bool
ust_tcp_sack_next_seg(const struct ust_tcp_sock *tp, uint32_t *seq, uint32_t *len)
{
	uint32_t p = SEQ_MAX(tp->snd_una, tp->high_rxt);
	unsigned int i;

	/* rule (1): the first unSACKed, not yet retransmitted, lost range */
	for (i = 0; i <= tp->n_sb && SEQ_LT(p, tp->high_sacked); i++) {
		uint32_t hole_end;

		/* skip what is SACKed at p */
		while (i < tp->n_sb && SEQ_LEQ(tp->sack->sb[i].end, p))
			i++;
		if (i < tp->n_sb && SEQ_LEQ(tp->sack->sb[i].start, p)) {
			p = tp->sack->sb[i].end;
			continue;
		}
		hole_end = i < tp->n_sb ? tp->sack->sb[i].start : tp->high_sacked;
		if (SEQ_LT(p, hole_end) && is_lost(tp, p)) {
			*seq = p;
			*len = RTE_MIN(hole_end - p, (uint32_t)tp->mss);
			return true;
		}
		if (i < tp->n_sb)
			p = tp->sack->sb[i].end;
	}
	return false;
}

uint32_t
ust_tcp_sack_pipe(const struct ust_tcp_sock *tp)
{
	uint32_t pipe = 0, p = tp->snd_una;
	unsigned int i;

	/* RFC 6675 SetPipe(), by ranges: unSACKed bytes count unless lost,
	 * and lost ones count again once retransmitted */
	for (i = 0; i <= tp->n_sb; i++) {
		uint32_t hole_end = i < tp->n_sb ? tp->sack->sb[i].start : tp->snd_max;

		if (SEQ_LT(p, hole_end)) {
			if (SEQ_LT(p, tp->high_sacked) && is_lost(tp, p)) {
				/* the retransmitted part of a lost hole */
				if (SEQ_GT(tp->high_rxt, p))
					pipe += SEQ_MIN(tp->high_rxt,
							hole_end) - p;
			} else {
				pipe += hole_end - p;
			}
		}
		if (i < tp->n_sb)
			p = SEQ_MAX(p, tp->sack->sb[i].end);
	}
	return pipe;
}

uint32_t
ust_tcp_sack_skip(const struct ust_tcp_sock *tp, uint32_t seq)
{
	unsigned int i;

	for (i = 0; i < tp->n_sb; i++)
		if (SEQ_GEQ(seq, tp->sack->sb[i].start) && SEQ_LT(seq, tp->sack->sb[i].end))
			return tp->sack->sb[i].end;
	return seq;
}

uint32_t
ust_tcp_sack_next_start(const struct ust_tcp_sock *tp, uint32_t seq)
{
	unsigned int i;

	/* the scoreboard is sorted */
	for (i = 0; i < tp->n_sb; i++)
		if (SEQ_GT(tp->sack->sb[i].start, seq))
			return tp->sack->sb[i].start;
	return tp->snd_max;
}

uint32_t
ust_tcp_sack_below(const struct ust_tcp_sock *tp, uint32_t seq)
{
	uint32_t n = 0;
	unsigned int i;

	for (i = 0; i < tp->n_sb && SEQ_LT(tp->sack->sb[i].start, seq); i++)
		n += SEQ_MIN(tp->sack->sb[i].end, seq) - tp->sack->sb[i].start;
	return n;
}
