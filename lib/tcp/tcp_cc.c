/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/* The congestion control registry and the slow start they share. */

#include <string.h>

#include "tcp_cc.h"
#include "tcp_private.h"

static const struct ust_tcp_cc_ops *const cc_modules[] = {
	&ust_tcp_cc_cubic,
	&ust_tcp_cc_newreno,
};

const struct ust_tcp_cc_ops *
ust_tcp_cc_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(cc_modules); i++)
		if (strcmp(cc_modules[i]->name, name) == 0)
			return cc_modules[i];
	/* Linux's name for NewReno */
	if (strcmp(name, "reno") == 0)
		return &ust_tcp_cc_newreno;
	return NULL;
}

uint32_t
ust_tcp_cc_slow_start(struct ust_tcp_sock *tp, uint32_t acked)
{
	/* Linux's tcp_slow_start(): every byte acknowledged grows cwnd (a
	 * stretch ACK of ten segments grows it by ten), up to ssthresh; what
	 * is left over goes to congestion avoidance */
	uint32_t room = tp->ssthresh > tp->cwnd ? tp->ssthresh - tp->cwnd : 0;
	uint32_t inc = RTE_MIN(acked, room);

	tp->cwnd += inc;
	return acked - inc;
}

bool
ust_tcp_cc_cwnd_limited(const struct ust_tcp_sock *tp)
{
	/* Linux's tcp_is_cwnd_limited() (RFC 7661 in spirit): the window
	 * grows only when it was used up; in slow start, while it is below
	 * twice the largest flight of the current window, so that a flight
	 * of half the window or more still doubles it */
	if (tp->tflags & TF_CWND_LIMITED)
		return true;
	if (tp->cwnd < tp->ssthresh)
		return tp->cwnd < 2 * tp->max_flight;
	return false;
}

void
ust_tcp_cc_cwnd_validate(struct ust_tcp_sock *tp, bool cwnd_limited)
{
	/* Linux's tcp_cwnd_validate(): remember for the current window
	 * (until cwnd_usage_seq is acknowledged) whether it was limited by
	 * cwnd, else the largest flight it had */
	if (!SEQ_LT(tp->snd_una, tp->cwnd_usage_seq) || cwnd_limited ||
	    (!(tp->tflags & TF_CWND_LIMITED) &&
	     tcp_flight(tp) > tp->max_flight)) {
		if (cwnd_limited)
			tp->tflags |= TF_CWND_LIMITED;
		else
			tp->tflags &= ~TF_CWND_LIMITED;
		tp->max_flight = tcp_flight(tp);
		tp->cwnd_usage_seq = tp->snd_nxt;
	}
}

uint32_t
ust_tcp_cc_init_cwnd(const struct ust_stack *stk, const struct ust_tcp_sock *tp)
{
	const struct ust_tcp_conf *c = &stk->conf.tcp;
	uint32_t iw = c->init_cwnd * tp->mss;

	/* RFC 6928: IW = min(10 * MSS, max(2 * MSS, 14600)) for 10 */
	if (c->init_cwnd >= 10)
		iw = RTE_MIN(iw, RTE_MAX(2u * tp->mss, 14600u));
	return iw;
}

void
ust_tcp_cc_idle_restart(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	/* Linux's tcp_cwnd_restart() (RFC 5681 4.1, RFC 2861): after more
	 * than an RTO without sending, cwnd is halved per RTO idle, down to
	 * the initial window; ssthresh keeps 3/4 of the old cwnd */
	uint64_t idle = stk->now - tp->lsnd_ns;
	uint64_t rto = (uint64_t)tp->rto_us * 1000;
	uint32_t restart = RTE_MIN(ust_tcp_cc_init_cwnd(stk, tp), tp->cwnd);
	uint32_t cwnd = tp->cwnd;

	tp->cc->event(stk, tp, UST_CC_EV_IDLE);
	if (!(tp->tflags & TF_RECOVERY))
		tp->ssthresh = RTE_MAX(tp->ssthresh,
				       (tp->cwnd >> 1) + (tp->cwnd >> 2));
	while (rto > 0 && idle > rto && cwnd > restart) {
		idle -= rto;
		cwnd >>= 1;
	}
	tp->cwnd = RTE_MAX(cwnd, restart);
}
