/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * The timing wheel: every armed timer fires exactly once, never before its
 * time and no later than the first advance one tick after it; cancel and
 * re-arm; expiries beyond a turn; jumps longer than a turn; callbacks that
 * re-arm. Seeded and randomized.
 */

#include <stdlib.h>

#include <rte_memory.h>

#include "timer_private.h"
#include "ut.h"

#define N 5000
#define MS 1000000ull

struct item {
	struct ust_timer t;
	uint64_t due;      /* ns */
	uint64_t fired_at; /* ns, 0: not fired */
	int fires;
	bool cancelled;
	int rearms;        /* re-arm itself this many times */
};

static struct item items[N];
static uint64_t now_ns;

static void
fire(struct ust_timer *t, void *ctx)
{
	struct item *it = (struct item *)t;
	struct ust_wheel *w = ctx;

	it->fires++;
	it->fired_at = now_ns;
	if (it->rearms > 0) {
		it->rearms--;
		it->fires--; /* count the last one only */
		it->due = now_ns + 3 * MS;
		ust_timer_arm(w, t, it->due);
	}
}

static int
test_random(void)
{
	struct ust_wheel w;
	uint64_t s = 42;
	unsigned int i;

	now_ns = 5 * MS;
	UT_EQ(ust_wheel_init(&w, 256, MS, now_ns, SOCKET_ID_ANY), 0);
	for (i = 0; i < N; i++) {
		uint64_t r = ut_rand(&s);

		ust_timer_init(&items[i].t, 1);
		/* up to 4 turns of the 256-slot wheel ahead, some in the past */
		items[i].due = now_ns + (r % (1024 * MS)) - (i % 50 == 0 ?
							     now_ns / 2 : 0);
		items[i].rearms = (r >> 40) % 7 == 0 ? 2 : 0;
		ust_timer_arm(&w, &items[i].t, items[i].due);
	}
	/* cancel some, re-arm some */
	for (i = 0; i < N; i += 17) {
		ust_timer_cancel(&w, &items[i].t);
		items[i].cancelled = true;
	}
	for (i = 3; i < N; i += 29) {
		if (items[i].cancelled)
			continue;
		items[i].due += 10 * MS;
		ust_timer_arm(&w, &items[i].t, items[i].due);
	}
	/* advance in random steps, some longer than a turn */
	while (w.armed > 0) {
		uint64_t r = ut_rand(&s);

		now_ns += r % 8 == 0 ? (r >> 8) % (600 * MS) : (r >> 8) % (3 * MS);
		ust_wheel_advance(&w, now_ns, fire, &w);
		UT_ASSERT(now_ns < 100000 * MS, "timers never drain");
	}
	for (i = 0; i < N; i++) {
		struct item *it = &items[i];

		if (it->cancelled) {
			UT_EQ(it->fires, 0);
			continue;
		}
		UT_ASSERT(it->fires == 1, "timer %u fired %d times", i,
			  it->fires);
		UT_ASSERT(it->fired_at >= it->due || it->due < 6 * MS,
			  "timer %u fired early", i);
	}
	ust_wheel_fini(&w);
	return 0;
}

static int
test_precise(void)
{
	struct ust_wheel w;
	struct item a;

	memset(&a, 0, sizeof(a));
	now_ns = 0;
	UT_EQ(ust_wheel_init(&w, 64, MS, 0, SOCKET_ID_ANY), 0);
	ust_timer_init(&a.t, 1);
	a.due = 200 * MS + 1; /* rounds up to tick 201 */
	ust_timer_arm(&w, &a.t, a.due);
	now_ns = 200 * MS;
	ust_wheel_advance(&w, now_ns, fire, &w);
	UT_EQ(a.fires, 0);
	now_ns = 201 * MS;
	ust_wheel_advance(&w, now_ns, fire, &w);
	UT_EQ(a.fires, 1);
	UT_ASSERT(!ust_timer_armed(&a.t));
	UT_EQ(w.armed, 0);
	/* re-arming an armed timer moves it */
	ust_timer_arm(&w, &a.t, 300 * MS);
	ust_timer_arm(&w, &a.t, 250 * MS);
	now_ns = 260 * MS;
	ust_wheel_advance(&w, now_ns, fire, &w);
	UT_EQ(a.fires, 2);
	UT_EQ(w.armed, 0);
	ust_wheel_fini(&w);
	return 0;
}

/* the wheel divides by its tick as a multiply (rte_reciprocal): the same
 * quotient as the division, at the edges and at random, for the ticks a
 * stack uses and odd ones */
static int
test_tick_div(void)
{
	static const uint64_t ticks[] = { 1, 3, 1000, MS, 1000003, 1ull << 20,
					  4000000000ull };
	uint64_t s = 7;
	unsigned int i, j;

	for (i = 0; i < RTE_DIM(ticks); i++) {
		struct ust_wheel w;
		const uint64_t edge[] = { 0, 1, ticks[i] - 1, ticks[i],
					  ticks[i] + 1, UINT64_MAX,
					  UINT64_MAX - ticks[i],
					  UINT64_MAX / ticks[i] * ticks[i] };

		UT_EQ(ust_wheel_init(&w, 64, ticks[i], 0, SOCKET_ID_ANY), 0);
		for (j = 0; j < RTE_DIM(edge); j++)
			UT_EQ(rte_reciprocal_divide_u64(edge[j], &w.tick_div),
			      edge[j] / ticks[i]);
		for (j = 0; j < 100000; j++) {
			uint64_t a = ut_rand(&s) >> (j % 64);

			UT_EQ(rte_reciprocal_divide_u64(a, &w.tick_div),
			      a / ticks[i]);
		}
		ust_wheel_fini(&w);
	}
	return 0;
}

static const struct ut_case cases[] = {
	{ "precise", test_precise },
	{ "tick_div", test_tick_div },
	{ "random", test_random },
};

int
main(int argc, char **argv)
{
	(void)argc;
	if (ut_eal_init(argv[0], "0") != 0)
		return 1;
	return UT_RUN(cases);
}
