/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * A hashed timing wheel, one per stack instance: O(1) arm, cancel and
 * expiry per timer, no scan of idle connections, so that hundreds of
 * thousands of connections cost nothing while their timers sleep. Timers
 * are embedded in their owners (connections, half-open entries, TIME_WAIT
 * entries) and carry a kind for dispatch.
 *
 * rte_timer is not used: it keeps a per-lcore skiplist (O(log n) per arm,
 * and TCP re-arms on nearly every ACK), takes its time from the TSC rather
 * than from the clock the stack is given, and so cannot be driven by a
 * test's fake clock.
 *
 * Resolution: one tick (1 ms); a timer fires on the first advance at or
 * after its expiry tick. Horizon: nslots ticks per turn; a later expiry
 * waits in its slot for its turn (a timer's expiry tick is kept).
 */

#ifndef UST_TIMER_PRIVATE_H
#define UST_TIMER_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_reciprocal.h>

struct ust_timer {
	struct ust_timer *next;
	struct ust_timer *prev;
	uint64_t expire;  /* tick */
	uint8_t kind;     /* the owner's dispatch tag */
	bool armed;
};

struct ust_wheel {
	uint64_t tick_ns;
	/* / tick_ns as a multiply (rte_reciprocal, exact for every 64-bit
	 * dividend): arming a timer and advancing the wheel, once a segment
	 * and once a poll, divide by it */
	struct rte_reciprocal_u64 tick_div;
	uint64_t now_tick;   /* every slot up to this tick has been run */
	uint32_t mask;       /* nslots - 1 */
	uint32_t armed;      /* timers armed */
	struct ust_timer **slot;
	struct ust_timer *running; /* the slot being run, detached */
};

/* nslots: a power of 2. Returns 0 or -ENOMEM. */
int ust_wheel_init(struct ust_wheel *w, uint32_t nslots, uint64_t tick_ns,
		   uint64_t now_ns, int socket_id);
void ust_wheel_fini(struct ust_wheel *w);

static inline void
ust_timer_init(struct ust_timer *t, uint8_t kind)
{
	t->next = NULL;
	t->prev = NULL;
	t->armed = false;
	t->kind = kind;
}

/* (Re)arm @t to fire at @expire_ns (an expiry in the past fires at the
 * next advance). */
void ust_timer_arm(struct ust_wheel *w, struct ust_timer *t,
		   uint64_t expire_ns);
void ust_timer_cancel(struct ust_wheel *w, struct ust_timer *t);

static inline bool
ust_timer_armed(const struct ust_timer *t)
{
	return t->armed;
}

/* Run every timer due at @now_ns: @fire(t, ctx) for each, disarmed first
 * (it may re-arm itself, and arm or cancel others). Returns the number
 * fired. */
unsigned int ust_wheel_advance(struct ust_wheel *w, uint64_t now_ns,
			       void (*fire)(struct ust_timer *t, void *ctx),
			       void *ctx);

/* The clock value (ns) of the first advance that would fire a timer:
 * exact within one turn of the wheel, now_tick + nslots ticks when every
 * timer is a turn or more away, UINT64_MAX when none is armed. It walks
 * the slots from the next tick until one holds a timer due in this turn:
 * O(slots + the timers of the slots walked); for an idle loop that is
 * about to sleep, not for every poll. */
uint64_t ust_wheel_next_ns(const struct ust_wheel *w);

#endif /* UST_TIMER_PRIVATE_H */
