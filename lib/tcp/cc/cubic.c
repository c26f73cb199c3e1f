/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * CUBIC (RFC 9438). In congestion avoidance the window follows
 *
 *   W_cubic(t) = C * (t - K)^3 + W_max,   K = cbrt((W_max - cwnd_epoch) / C)
 *
 * with C = 0.4 and t the time since the epoch began (4.2); each ACK moves
 * cwnd towards W_cubic(t + RTT), at most by half a segment per segment
 * acknowledged (4.4, 4.5). Where W_cubic is below the window an AIMD flow
 * would have (the Reno-friendly estimate W_est, grown by alpha_cubic =
 * 3 * (1 - beta) / (1 + beta) segments per window, 4.3), cwnd follows
 * W_est. On a loss, ssthresh = cwnd * beta with beta = 0.7 (4.6), and
 * fast convergence lowers W_max when the window had not reached the last
 * W_max (4.7). Windows are counted in segments here, as in the RFC.
 *
 * Slow start ends early with HyStart (Ha and Rhee, "Hybrid Slow Start for
 * High-Bandwidth and Long-Distance Networks", 2008; RFC 9438 4.10 allows
 * it; Linux's CUBIC runs it by default, hystart_detect = 3), once cwnd is
 * at least 16 segments: ssthresh = cwnd when, within one round trip,
 *  - ACK train: the ACKs, each at most 2 ms after the one before, have
 *    come for longer than half of (min RTT + the delay a receive offload
 *    may add to an ACK), or
 *  - delay increase: the least of the round's RTT samples, once there are
 *    more than 8, exceeds min RTT by more than min RTT / 8, clamped to
 *    4..16 ms.
 * A round trip ends when what was sent at its start is acknowledged.
 */

#include <math.h>
#include <string.h>

#include "tcp_cc.h"
#include "tcp_private.h"

#define CUBIC_C 0.4
#define CUBIC_BETA 0.7

#define HYSTART_LOW_WINDOW 16      /* segments */
#define HYSTART_ACK_DELTA_US 2000
#define HYSTART_MIN_SAMPLES 8
#define HYSTART_DELAY_MIN_US 4000
#define HYSTART_DELAY_MAX_US 16000
#define HYSTART_GSO_BYTES 65536u   /* Linux's GSO_LEGACY_MAX_SIZE */

struct cubic {
	double w_max;          /* segments */
	double k;              /* seconds */
	double w_est;          /* segments */
	double cwnd_epoch;     /* segments */
	uint64_t epoch_ns;     /* 0: no epoch */
	/* HyStart; times in microseconds (32 bits: differences only) */
	uint32_t end_seq;      /* the round ends when this is acknowledged */
	uint32_t round_start;
	uint32_t last_ack;
	uint32_t curr_rtt;     /* least RTT sample of the round */
	uint32_t delay_min;    /* least RTT sample seen, 0: none */
	uint8_t sample_cnt;
	bool found;            /* slow start ended by HyStart */
};

static inline struct cubic *
cubic_of(struct ust_tcp_sock *tp)
{
	RTE_BUILD_BUG_ON(sizeof(struct cubic) > sizeof(tp->cc_priv));
	return (struct cubic *)tp->cc_priv;
}

static inline uint32_t
cubic_now_us(const struct ust_stack *stk)
{
	return (uint32_t)(stk->now / 1000);
}

/* a new HyStart round: what is sent now ends it */
static void
hystart_reset(const struct ust_stack *stk, const struct ust_tcp_sock *tp,
	      struct cubic *cb)
{
	cb->round_start = cubic_now_us(stk);
	cb->last_ack = cb->round_start;
	cb->end_seq = tp->snd_max;
	cb->curr_rtt = UINT32_MAX;
	cb->sample_cnt = 0;
}

static void
cubic_init(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	memset(cubic_of(tp), 0, sizeof(struct cubic));
	hystart_reset(stk, tp, cubic_of(tp));
}

/* How much later than its data an ACK may come because the receiver
 * holds it for an offload's batch: 4 GSO packets at the pacing rate Linux
 * would compute (cwnd / SRTT, twice that in slow start), at most 1 ms
 * (Linux's hystart_ack_delay()). */
static uint32_t
hystart_ack_delay_us(const struct ust_tcp_sock *tp)
{
	uint64_t srtt_us = tp->srtt_us >> 3;
	uint64_t rate2 = 2ull * tp->cwnd; /* bytes per SRTT, x2 */
	uint64_t d;

	if (srtt_us == 0 || rate2 == 0)
		return 0;
	d = 4ull * HYSTART_GSO_BYTES * srtt_us / rate2;
	return (uint32_t)RTE_MIN(d, 1000u);
}

static void
hystart_found(struct ust_stack *stk, struct ust_tcp_sock *tp,
	      struct cubic *cb, enum ust_mib detect, enum ust_mib cwnd)
{
	cb->found = true;
	tp->ssthresh = tp->cwnd;
	stk->mib[detect]++;
	stk->mib[cwnd] += tp->cwnd / RTE_MAX((uint32_t)tp->mss, 1u);
}

static void
hystart_update(struct ust_stack *stk, struct ust_tcp_sock *tp,
	       struct cubic *cb, uint32_t rtt_us)
{
	uint32_t now = cubic_now_us(stk);

	if (SEQ_GT(tp->snd_una, cb->end_seq))
		hystart_reset(stk, tp, cb);
	/* the ACK train */
	if ((int32_t)(now - cb->last_ack) <= HYSTART_ACK_DELTA_US) {
		uint32_t thr = (cb->delay_min + hystart_ack_delay_us(tp)) >> 1;

		cb->last_ack = now;
		if ((int32_t)(now - cb->round_start) > (int32_t)thr) {
			hystart_found(stk, tp, cb,
				      UST_MIB_TCPEXT_TCPHYSTARTTRAINDETECT,
				      UST_MIB_TCPEXT_TCPHYSTARTTRAINCWND);
			return;
		}
	}
	/* the delay increase */
	if (cb->curr_rtt > rtt_us)
		cb->curr_rtt = rtt_us;
	if (cb->sample_cnt < HYSTART_MIN_SAMPLES) {
		cb->sample_cnt++;
	} else if (cb->curr_rtt > cb->delay_min +
		   RTE_MIN(RTE_MAX(cb->delay_min >> 3,
				   (uint32_t)HYSTART_DELAY_MIN_US),
			   (uint32_t)HYSTART_DELAY_MAX_US)) {
		hystart_found(stk, tp, cb,
			      UST_MIB_TCPEXT_TCPHYSTARTDELAYDETECT,
			      UST_MIB_TCPEXT_TCPHYSTARTDELAYCWND);
	}
}

static void
cubic_pkts_acked(struct ust_stack *stk, struct ust_tcp_sock *tp,
		 uint32_t rtt_us)
{
	struct cubic *cb = cubic_of(tp);

	/* the first second of an epoch (after a recovery) gives no
	 * samples: its queue is draining (as Linux's cubictcp_acked()) */
	if (cb->epoch_ns != 0 && stk->now - cb->epoch_ns < 1000000000ull)
		return;
	if (cb->delay_min == 0 || cb->delay_min > rtt_us)
		cb->delay_min = rtt_us;
	if (!cb->found && tp->cwnd < tp->ssthresh &&
	    tp->cwnd >= HYSTART_LOW_WINDOW * (uint32_t)tp->mss)
		hystart_update(stk, tp, cb, rtt_us);
}

static void
cubic_cong_avoid(struct ust_stack *stk, struct ust_tcp_sock *tp,
		 uint32_t acked)
{
	struct cubic *cb = cubic_of(tp);
	double mss = tp->mss, cwnd, t, target, w_cubic, rtt;

	if (tp->cwnd < tp->ssthresh) {
		acked = ust_tcp_cc_slow_start(tp, acked);
		if (acked == 0)
			return;
	}
	cwnd = tp->cwnd / mss;
	if (cb->epoch_ns == 0) {
		cb->epoch_ns = stk->now;
		cb->cwnd_epoch = cwnd;
		cb->w_est = cwnd;
		if (cb->w_max <= cwnd) {
			/* no loss yet, or above the last one: grow from here */
			cb->w_max = cwnd;
			cb->k = 0;
		} else {
			cb->k = cbrt((cb->w_max - cwnd) / CUBIC_C);
		}
	}
	rtt = (tp->srtt_us >> 3) / 1e6;
	t = (double)(stk->now - cb->epoch_ns) / 1e9;
	w_cubic = CUBIC_C * pow(t - cb->k, 3) + cb->w_max;
	target = CUBIC_C * pow(t + rtt - cb->k, 3) + cb->w_max;
	if (target < cwnd)
		target = cwnd;
	if (target > 1.5 * cwnd)
		target = 1.5 * cwnd;
	/* the Reno-friendly region (4.3) */
	cb->w_est += 3.0 * (1 - CUBIC_BETA) / (1 + CUBIC_BETA) *
		(acked / mss) / cwnd;
	if (w_cubic < cb->w_est) {
		target = cb->w_est;
		if (target < cwnd)
			target = cwnd;
	}
	/* cwnd += (target - cwnd) / cwnd per segment acknowledged */
	tp->bytes_acked += (uint32_t)((target - cwnd) / cwnd * acked);
	if (tp->bytes_acked >= tp->mss) {
		tp->cwnd += tp->bytes_acked / tp->mss * tp->mss;
		tp->bytes_acked %= tp->mss;
	}
}

static uint32_t
cubic_ssthresh(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	struct cubic *cb = cubic_of(tp);
	double cwnd = tp->cwnd / (double)tp->mss;

	RTE_SET_USED(stk);
	/* fast convergence (4.7) */
	if (cwnd < cb->w_max)
		cb->w_max = cwnd * (1 + CUBIC_BETA) / 2;
	else
		cb->w_max = cwnd;
	cb->epoch_ns = 0;
	return RTE_MAX((uint32_t)(tp->cwnd * CUBIC_BETA), 2u * tp->mss);
}

static void
cubic_event(struct ust_stack *stk, struct ust_tcp_sock *tp,
	    enum ust_tcp_cc_event ev)
{
	struct cubic *cb = cubic_of(tp);

	tp->bytes_acked = 0;
	switch (ev) {
	case UST_CC_EV_RTO:
		/* 4.8: start again from slow start; W_max is kept; HyStart
		 * watches the new slow start afresh */
		cb->epoch_ns = 0;
		cb->found = false;
		cb->delay_min = 0;
		hystart_reset(stk, tp, cb);
		break;
	case UST_CC_EV_RECOVERY_EXIT:
	case UST_CC_EV_IDLE:
		cb->epoch_ns = 0;
		break;
	default:
		break;
	}
}

const struct ust_tcp_cc_ops ust_tcp_cc_cubic = {
	.name = "cubic",
	.init = cubic_init,
	.cong_avoid = cubic_cong_avoid,
	.ssthresh = cubic_ssthresh,
	.event = cubic_event,
	.pkts_acked = cubic_pkts_acked,
};
