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
 */

#include <math.h>
#include <string.h>

#include "tcp_cc.h"
#include "tcp_private.h"

#define CUBIC_C 0.4
#define CUBIC_BETA 0.7

struct cubic {
	double w_max;          /* segments */
	double k;              /* seconds */
	double w_est;          /* segments */
	double cwnd_epoch;     /* segments */
	uint64_t epoch_ns;     /* 0: no epoch */
};

static inline struct cubic *
cubic_of(struct ust_tcp_sock *tp)
{
	RTE_BUILD_BUG_ON(sizeof(struct cubic) > sizeof(tp->cc_priv));
	return (struct cubic *)tp->cc_priv;
}

static void
cubic_init(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	RTE_SET_USED(stk);
	memset(cubic_of(tp), 0, sizeof(struct cubic));
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

	RTE_SET_USED(stk);
	tp->bytes_acked = 0;
	switch (ev) {
	case UST_CC_EV_RTO:
		/* 4.8: start again from slow start; W_max is kept */
		cb->epoch_ns = 0;
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
};
