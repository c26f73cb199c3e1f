/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * NewReno (RFC 5681 with RFC 6582's recovery, which the core runs): slow
 * start below ssthresh, then one SMSS per cwnd of bytes acknowledged
 * (RFC 3465 byte counting); after a loss, ssthresh = max(FlightSize / 2,
 * 2 * SMSS) (RFC 5681 equation 4).
 */

#include "tcp_cc.h"
#include "tcp_private.h"

static void
newreno_init(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	RTE_SET_USED(stk);
	tp->bytes_acked = 0;
}

static void
newreno_cong_avoid(struct ust_stack *stk, struct ust_tcp_sock *tp,
		   uint32_t acked)
{
	RTE_SET_USED(stk);
	if (tp->cwnd < tp->ssthresh) {
		acked = ust_tcp_cc_slow_start(tp, acked);
		if (acked == 0)
			return;
	}
	tp->bytes_acked += acked;
	if (tp->bytes_acked >= tp->cwnd) {
		tp->bytes_acked -= tp->cwnd;
		tp->cwnd += tp->mss;
	}
}

static uint32_t
newreno_ssthresh(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	uint32_t flight = tcp_flight(tp);

	RTE_SET_USED(stk);
	return RTE_MAX(flight / 2, 2u * tp->mss);
}

static void
newreno_event(struct ust_stack *stk, struct ust_tcp_sock *tp,
	      enum ust_tcp_cc_event ev)
{
	RTE_SET_USED(stk);
	if (ev != UST_CC_EV_TX_START)
		tp->bytes_acked = 0;
}

const struct ust_tcp_cc_ops ust_tcp_cc_newreno = {
	.name = "newreno",
	.init = newreno_init,
	.cong_avoid = newreno_cong_avoid,
	.ssthresh = newreno_ssthresh,
	.event = newreno_event,
};
