/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Congestion control behind an ops table, after Linux's
 * tcp_congestion_ops and FreeBSD's cc(4): the connection's core (loss
 * detection, recovery, RTO) stays in tcp_input.c and tcp_timer.c; the
 * module decides how cwnd grows and how far it falls. Modules: NewReno
 * (RFC 5681, RFC 6582) in cc/newreno.c and CUBIC (RFC 9438, with Linux's
 * arithmetic) in cc/cubic.c, chosen per stack ([tcp] congestion) and per
 * socket (TCP_CONGESTION).
 */

#ifndef UST_TCP_CC_H
#define UST_TCP_CC_H

#include <stdbool.h>
#include <stdint.h>

struct ust_stack;
struct ust_tcp_sock;

enum ust_tcp_cc_event {
	UST_CC_EV_RECOVERY_ENTER, /* fast retransmit; ssthresh was set */
	UST_CC_EV_RECOVERY_EXIT,  /* the recovery point was acknowledged */
	UST_CC_EV_RTO,            /* a retransmission timeout */
	UST_CC_EV_IDLE,           /* sending again after an idle RTO */
	UST_CC_EV_TX_START,       /* data goes with nothing in flight
				   * (Linux's CA_EVENT_TX_START; tp->lsnd_ns
				   * is when data last went) */
};

struct ust_tcp_cc_ops {
	const char *name;
	/* a new connection (tp->cwnd and tp->ssthresh are set) */
	void (*init)(struct ust_stack *stk, struct ust_tcp_sock *tp);
	/* @acked new bytes acknowledged, not in recovery: grow cwnd */
	void (*cong_avoid)(struct ust_stack *stk, struct ust_tcp_sock *tp,
			   uint32_t acked);
	/* the slow-start threshold after a loss, in bytes */
	uint32_t (*ssthresh)(struct ust_stack *stk, struct ust_tcp_sock *tp);
	void (*event)(struct ust_stack *stk, struct ust_tcp_sock *tp,
		      enum ust_tcp_cc_event ev);
	/* optional: an ACK brought an RTT sample (@rtt_us, of the most
	 * recently sent segment it delivered, as Linux's pkts_acked() gets
	 * it); called before cong_avoid() */
	void (*pkts_acked)(struct ust_stack *stk, struct ust_tcp_sock *tp,
			   uint32_t rtt_us);
};

extern const struct ust_tcp_cc_ops ust_tcp_cc_newreno;
extern const struct ust_tcp_cc_ops ust_tcp_cc_cubic;

/* slow start as Linux's tcp_slow_start(): cwnd grows by every byte
 * acknowledged (RFC 3465 byte counting without its L limit), at most to
 * ssthresh; returns the bytes left over once cwnd reaches ssthresh */
uint32_t ust_tcp_cc_slow_start(struct ust_tcp_sock *tp, uint32_t acked);
/* may cwnd grow? (Linux's tcp_is_cwnd_limited(), RFC 7661): only when
 * the flight was limited by it, or in slow start while cwnd is below twice
 * the largest flight of the current window */
bool ust_tcp_cc_cwnd_limited(const struct ust_tcp_sock *tp);
/* after output: record whether the flight was cwnd-limited (Linux's
 * tcp_cwnd_validate()) */
void ust_tcp_cc_cwnd_validate(struct ust_tcp_sock *tp, bool cwnd_limited);
/* the initial window (RFC 6928 for 10 segments) */
uint32_t ust_tcp_cc_init_cwnd(const struct ust_stack *stk,
			      const struct ust_tcp_sock *tp);
/* sending after more than an RTO idle: slow start again (Linux's
 * tcp_cwnd_restart(), net.ipv4.tcp_slow_start_after_idle = 1) */
void ust_tcp_cc_idle_restart(struct ust_stack *stk, struct ust_tcp_sock *tp);

#endif /* UST_TCP_CC_H */
