/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * CUBIC (RFC 9438) with Linux's arithmetic (its tcp_cubic.c, the default
 * there), so that cwnd takes the values Linux's does, packet by packet
 * (packetdrill's cubic scripts). In congestion avoidance the window
 * follows
 *
 *   W(t) = C * (t - K)^3 + W_max,   K = cbrt((W_max - cwnd_epoch) / C)
 *
 * with C = 0.4 and t the time since the epoch began plus the least RTT
 * seen (the window one RTT ahead, 4.4): per ACK, cwnd grows by one segment
 * every cnt segments acknowledged, cnt = cwnd / (W(t) - cwnd), as Linux's
 * bictcp_update() and tcp_cong_avoid_ai() do, in whole segments: W(t) is
 * truncated to a segment, t and K counted in 1/1024 s, cnt recomputed at
 * most once every 31 ms while cwnd stays (Linux's HZ / 32, with HZ 1000).
 * Where an AIMD flow would have more (the TCP-friendly estimate, one
 * segment per cwnd * 15 / 8 acknowledged: Linux's beta_scale for beta
 * 717/1024), cnt is lowered to catch up (4.3). Without a W_max (no loss
 * yet, or after a timeout, which forgets it as Linux's bictcp_reset()
 * does) cnt is at most 20. cnt is at least 2 (at most half a segment per
 * segment, 4.4). On a loss ssthresh = cwnd * 717 / 1024 (beta 0.7, 4.6),
 * and fast convergence lowers W_max when the window had not reached the
 * last W_max (4.7). Sending after an idle time shifts the epoch by it
 * (Linux's CA_EVENT_TX_START), so the curve does not jump. Windows are
 * counted in segments, as in the RFC and Linux.
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

#include <rte_common.h>

#include "tcp_cc.h"
#include "tcp_private.h"

#define CUBIC_C 0.4
#define CUBIC_BETA 717u            /* / 1024: 0.7 */
#define CUBIC_BETA_SCALE 15u       /* 8 * (1024 + beta) / 3 / (1024 - beta) */
#define CUBIC_HZ 10                /* t and K in 1/1024 s */
#define CUBIC_RTT_SCALE 410u       /* C in 2^-10: 0.4 (Linux: 41 * 10) */
#define CUBIC_RECALC_MS 31u        /* cnt recomputed at most this often */
#define CUBIC_NO_WMAX_CNT 20u      /* cnt's ceiling without a W_max */
#define CUBIC_OFFS_MAX (1u << 18)  /* |t - K| beyond: (t - K)^3 overflows */

#define HYSTART_LOW_WINDOW 16      /* segments */
#define HYSTART_ACK_DELTA_US 2000
#define HYSTART_MIN_SAMPLES 8
#define HYSTART_DELAY_MIN_US 4000
#define HYSTART_DELAY_MAX_US 16000
#define HYSTART_GSO_BYTES 65536u   /* Linux's GSO_LEGACY_MAX_SIZE */

struct cubic {
	uint32_t cnt;          /* segments acknowledged per segment more */
	uint32_t w_max;        /* W_max, segments (0: none) */
	uint32_t last_cwnd;    /* cwnd when cnt was computed */
	uint32_t last_ms;      /* and when */
	uint32_t origin;       /* W(t)'s plateau: W_max, or cwnd_epoch */
	uint32_t k;            /* K, 1/1024 s */
	uint32_t epoch_ms;     /* when the epoch began (epoch_on) */
	uint32_t ack_cnt;      /* segments acknowledged, for the estimate */
	uint32_t tcp_cwnd;     /* the TCP-friendly estimate, segments */
	uint32_t cwnd_cnt;     /* segments acknowledged toward the next one
				* more (Linux's snd_cwnd_cnt) */
	/* HyStart; times in microseconds (32 bits: differences only) */
	uint32_t end_seq;      /* the round ends when this is acknowledged */
	uint32_t round_start;
	uint32_t last_ack;
	uint32_t curr_rtt;     /* least RTT sample of the round */
	uint32_t delay_min;    /* least RTT sample seen, 0: none (also
				* W(t)'s look-ahead) */
	uint8_t sample_cnt;
	bool found : 1;        /* slow start ended by HyStart */
	bool epoch_on : 1;     /* an epoch runs */
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

/* Linux's jiffies at HZ 1000 */
static inline uint32_t
cubic_now_ms(const struct ust_stack *stk)
{
	return (uint32_t)(stk->now / 1000000);
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
	if (cb->epoch_on && cubic_now_ms(stk) - cb->epoch_ms < 1000)
		return;
	if (rtt_us == 0)
		rtt_us = 1;
	if (cb->delay_min == 0 || cb->delay_min > rtt_us)
		cb->delay_min = rtt_us;
	if (!cb->found && tp->cwnd < tp->ssthresh &&
	    tp->cwnd >= HYSTART_LOW_WINDOW * (uint32_t)tp->mss)
		hystart_update(stk, tp, cb, rtt_us);
}

/* A new epoch: W(t) from the window now (4.2). */
static void
cubic_epoch(struct cubic *cb, uint32_t cwnd, uint32_t acked, uint32_t now)
{
	cb->epoch_on = true;
	cb->epoch_ms = now;
	cb->ack_cnt = acked;
	cb->tcp_cwnd = cwnd;
	if (cb->w_max <= cwnd) {
		/* no W_max, or above it: grow from here */
		cb->k = 0;
		cb->origin = cwnd;
	} else {
		cb->k = (uint32_t)(cbrt((double)(cb->w_max - cwnd) / CUBIC_C) *
				   (1u << CUBIC_HZ));
		cb->origin = cb->w_max;
	}
}

/* cnt for this ACK (Linux's bictcp_update()). */
static void
cubic_update(struct cubic *cb, uint32_t cwnd, uint32_t acked, uint32_t now)
{
	uint64_t t, offs, delta;
	uint32_t target, max_cnt;

	cb->ack_cnt += acked;
	if (cb->last_cwnd == cwnd && now - cb->last_ms <= CUBIC_RECALC_MS)
		return;
	if (!(cb->epoch_on && now == cb->last_ms)) {
		cb->last_cwnd = cwnd;
		cb->last_ms = now;
		if (!cb->epoch_on)
			cubic_epoch(cb, cwnd, acked, now);
		/* t: since the epoch, plus the least RTT (whole ms, rounded
		 * up), in 1/1024 s */
		t = (uint64_t)(now - cb->epoch_ms) +
			(cb->delay_min + 999) / 1000;
		t = (t << CUBIC_HZ) / 1000;
		offs = t < cb->k ? cb->k - t : t - cb->k;
		offs = RTE_MIN(offs, (uint64_t)CUBIC_OFFS_MAX);
		delta = (CUBIC_RTT_SCALE * offs * offs * offs) >>
			(10 + 3 * CUBIC_HZ);
		if (t < cb->k)
			target = cb->origin > delta ?
				cb->origin - (uint32_t)delta : 0;
		else
			target = cb->origin + (uint32_t)RTE_MIN(delta,
							(uint64_t)UINT32_MAX / 2);
		if (target > cwnd)
			cb->cnt = cwnd / (target - cwnd);
		else
			cb->cnt = 100 * cwnd; /* very slow growth */
		if (cb->w_max == 0 && cb->cnt > CUBIC_NO_WMAX_CNT)
			cb->cnt = CUBIC_NO_WMAX_CNT;
	}
	/* the TCP-friendly estimate (4.3): one segment per
	 * cwnd * beta_scale / 8 acknowledged */
	delta = RTE_MAX((cwnd * CUBIC_BETA_SCALE) >> 3, 1u);
	while (cb->ack_cnt > delta) {
		cb->ack_cnt -= (uint32_t)delta;
		cb->tcp_cwnd++;
	}
	if (cb->tcp_cwnd > cwnd) {
		max_cnt = cwnd / (cb->tcp_cwnd - cwnd);
		if (cb->cnt > max_cnt)
			cb->cnt = max_cnt;
	}
	cb->cnt = RTE_MAX(cb->cnt, 2u);
}

static void
cubic_cong_avoid(struct ust_stack *stk, struct ust_tcp_sock *tp,
		 uint32_t acked)
{
	struct cubic *cb = cubic_of(tp);
	uint32_t mss = RTE_MAX((uint32_t)tp->mss, 1u);
	uint32_t cwnd, segs, d;

	if (tp->cwnd < tp->ssthresh) {
		acked = ust_tcp_cc_slow_start(tp, acked);
		if (acked == 0)
			return;
	}
	/* in segments, as Linux counts packets (a short one counts one) */
	segs = (acked + mss - 1) / mss;
	cwnd = RTE_MAX(tp->cwnd / mss, 1u);
	cubic_update(cb, cwnd, segs, cubic_now_ms(stk));
	/* Linux's tcp_cong_avoid_ai(): credit from a larger cnt goes
	 * gently, one segment */
	if (cb->cwnd_cnt >= cb->cnt) {
		cb->cwnd_cnt = 0;
		tp->cwnd += mss;
	}
	cb->cwnd_cnt += segs;
	if (cb->cwnd_cnt >= cb->cnt) {
		d = cb->cwnd_cnt / cb->cnt;
		cb->cwnd_cnt -= d * cb->cnt;
		tp->cwnd += d * mss;
	}
}

static uint32_t
cubic_ssthresh(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	struct cubic *cb = cubic_of(tp);
	uint32_t mss = RTE_MAX((uint32_t)tp->mss, 1u);
	uint32_t cwnd = tp->cwnd / mss;

	RTE_SET_USED(stk);
	cb->epoch_on = false;
	/* fast convergence (4.7) */
	if (cwnd < cb->w_max)
		cb->w_max = cwnd * (1024 + CUBIC_BETA) / 2048;
	else
		cb->w_max = cwnd;
	return RTE_MAX((cwnd * CUBIC_BETA) >> 10, 2u) * mss;
}

static void
cubic_event(struct ust_stack *stk, struct ust_tcp_sock *tp,
	    enum ust_tcp_cc_event ev)
{
	struct cubic *cb = cubic_of(tp);
	uint32_t now, idle;

	switch (ev) {
	case UST_CC_EV_RTO:
		/* Linux's cubictcp_state(TCP_CA_Loss): all of CUBIC's state
		 * goes, W_max and the least RTT too (RFC 9438 4.8 keeps
		 * W_max; Linux's packetdrill cubic-rto-ss-ca-cwnd-bump wants
		 * it gone); HyStart watches the new slow start afresh */
		memset(cb, 0, sizeof(*cb));
		hystart_reset(stk, tp, cb);
		break;
	case UST_CC_EV_RECOVERY_ENTER:
		cb->cwnd_cnt = 0;
		break;
	case UST_CC_EV_RECOVERY_EXIT:
		cb->epoch_on = false;
		cb->cwnd_cnt = 0;
		break;
	case UST_CC_EV_IDLE:
		cb->cwnd_cnt = 0;
		break;
	case UST_CC_EV_TX_START:
		/* idle, application-limited: the epoch moves by the idle
		 * time, so that W(t) goes on from where it was (Linux's
		 * CA_EVENT_TX_START) */
		if (!cb->epoch_on || stk->now <= tp->lsnd_ns)
			break;
		now = cubic_now_ms(stk);
		idle = now - (uint32_t)(tp->lsnd_ns / 1000000);
		if (idle > 0) {
			cb->epoch_ms += idle;
			if ((int32_t)(cb->epoch_ms - now) > 0)
				cb->epoch_ms = now;
		}
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
