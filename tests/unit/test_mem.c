/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * The memory model's arithmetic with the seeds' own numbers, and the pool's
 * limits (udp_mem min/pressure/max, the udp_rmem_min guarantee) and
 * per-lcore reserve.
 */

#include <rte_lcore.h>
#include <rte_memory.h>

#include "ust_mem.h"
#include "ut.h"

static int
test_schedule_seed000(void)
{
	/* seed 000: forward_alloc 150000, a 150001-byte charge */
	UT_EQ(ust_mem_schedule_pages(UST_MEM_SCHEDULE_DELTA, 150000, 150001), 1);
	UT_EQ(ust_mem_schedule_pages(UST_MEM_SCHEDULE_LEGACY, 150000, 150001),
	      37);
	/* exactly covered: delta charges nothing, legacy (>=) a whole size */
	UT_EQ(ust_mem_schedule_pages(UST_MEM_SCHEDULE_DELTA, 150000, 150000), 0);
	UT_EQ(ust_mem_schedule_pages(UST_MEM_SCHEDULE_LEGACY, 150000, 150000),
	      37);
	/* covered with room to spare: neither charges */
	UT_EQ(ust_mem_schedule_pages(UST_MEM_SCHEDULE_DELTA, 4096, 2304), 0);
	UT_EQ(ust_mem_schedule_pages(UST_MEM_SCHEDULE_LEGACY, 4096, 2304), 0);
	/* page edges */
	UT_EQ(ust_mem_schedule_pages(UST_MEM_SCHEDULE_DELTA, 0, 4096), 1);
	UT_EQ(ust_mem_schedule_pages(UST_MEM_SCHEDULE_DELTA, 0, 4097), 2);
	UT_EQ(ust_mem_schedule_pages(UST_MEM_SCHEDULE_DELTA, 1, 4097), 1);
	UT_EQ(ust_mem_schedule_pages(UST_MEM_SCHEDULE_LEGACY, 1, 4097), 2);
	UT_EQ(ust_mem_pages(0), 0);
	UT_EQ(ust_mem_pages(1), 1);
	UT_EQ(ust_mem_pages(4096), 1);
	UT_EQ(ust_mem_pages(150001), 37);
	return 0;
}

static int
test_release_pages(void)
{
	/* the reader keeps partial = 1 byte: at most one page stays */
	UT_EQ(ust_mem_release_pages(8192, 1), 1);
	UT_EQ(ust_mem_release_pages(8193, 1), 2);
	UT_EQ(ust_mem_release_pages(4097, 1), 1);
	UT_EQ(ust_mem_release_pages(4096, 1), 0);
	UT_EQ(ust_mem_release_pages(1, 1), 0);
	UT_EQ(ust_mem_release_pages(0, 1), 0);
	/* close keeps nothing */
	UT_EQ(ust_mem_release_pages(8192, 0), 2);
	UT_EQ(ust_mem_release_pages(0, 0), 0);
	return 0;
}

static int
test_buf_sizes(void)
{
	/* netperf -s 1280: doubled 2560, floored to 4608, as Linux */
	UT_EQ(ust_mem_rcvbuf_from_user(1280, 212992, false), 4608);
	UT_EQ(ust_mem_rcvbuf_from_user(100000, 212992, false), 200000);
	UT_EQ(ust_mem_rcvbuf_from_user(1u << 30, 212992, false), 425984);
	UT_EQ(ust_mem_rcvbuf_from_user(1u << 30, 212992, true),
	      (INT32_MAX / 2) * 2);
	UT_EQ(ust_mem_rcvbuf_from_user(1u << 29, 212992, true), 1u << 30);
	UT_EQ(ust_mem_rcvbuf_from_user(UINT32_MAX, 212992, true),
	      (INT32_MAX / 2) * 2);
	UT_EQ(ust_mem_rcvbuf_from_user(0, 212992, false), 4608);
	UT_EQ(ust_mem_sndbuf_from_user(1, 212992, false), 4608);
	return 0;
}

static struct ust_mem_pool *
pool_with(uint64_t min, uint64_t pressure, uint64_t max, uint32_t reserve)
{
	struct ust_mem_conf c;

	ust_mem_conf_defaults(&c);
	c.mem[0] = min;
	c.mem[1] = pressure;
	c.mem[2] = max;
	c.pcpu_reserve = reserve;
	return ust_mem_pool_create(&c, SOCKET_ID_ANY);
}

static int
test_pool_limits(void)
{
	struct ust_mem_pool *p = pool_with(10, 12, 14, 0);
	struct ust_mem_pool_stats st;

	UT_ASSERT(p != NULL);
	/* up to min: always */
	UT_ASSERT(ust_mem_pool_charge(p, 10, 100000));
	UT_EQ(ust_mem_pool_pages(p), 10);
	/* above min: only for a socket below rmem_min (4096) */
	UT_ASSERT(ust_mem_pool_charge(p, 1, 2304));
	UT_ASSERT(!ust_mem_pool_charge(p, 1, 4096));
	UT_ASSERT(!ust_mem_pool_charge(p, 1, 100000));
	UT_EQ(ust_mem_pool_pages(p), 11);
	/* above pressure: still the same rule, counted */
	UT_ASSERT(ust_mem_pool_charge(p, 3, 0));
	UT_EQ(ust_mem_pool_pages(p), 14);
	/* above max: refused even for an empty socket */
	UT_ASSERT(!ust_mem_pool_charge(p, 1, 0));
	UT_EQ(ust_mem_pool_pages(p), 14);
	ust_mem_pool_stats_get(p, &st);
	UT_EQ(st.charge_calls, 3);
	UT_EQ(st.pages_charged, 14);
	UT_EQ(st.charge_failures, 3);
	UT_EQ(st.min_grants, 2);
	UT_EQ(st.pressure_events, 2);
	UT_EQ(st.high_water, 14);
	UT_EQ(st.limit[0], 10);
	UT_EQ(st.limit[2], 14);
	ust_mem_pool_uncharge(p, 14);
	UT_EQ(ust_mem_pool_pages(p), 0);
	ust_mem_pool_stats_get(p, &st);
	UT_EQ(st.pages_uncharged, 14);
	UT_EQ(st.high_water, 14);
	/* limits change at run time */
	{
		uint64_t m[3] = { 1, 1, 1 };

		ust_mem_pool_set_limits(p, m);
		UT_ASSERT(ust_mem_pool_charge(p, 1, 100000));
		UT_ASSERT(!ust_mem_pool_charge(p, 1, 0));
		ust_mem_pool_uncharge(p, 1);
	}
	ust_mem_pool_free(p);
	return 0;
}

static int
test_pool_reserve(void)
{
	struct ust_mem_pool *p = pool_with(1000, 1000, 1000, 16);

	UT_ASSERT(p != NULL);
	/* charges below the reserve stay in this lcore's slot, but the pool
	 * still counts them exactly */
	UT_ASSERT(ust_mem_pool_charge(p, 5, 0));
	UT_EQ(ust_mem_pool_pages(p), 5);
	UT_ASSERT(ust_mem_pool_charge(p, 11, 0));
	UT_EQ(ust_mem_pool_pages(p), 16);
	ust_mem_pool_uncharge(p, 3);
	UT_EQ(ust_mem_pool_pages(p), 13);
	ust_mem_pool_uncharge(p, 13);
	UT_EQ(ust_mem_pool_pages(p), 0);
	ust_mem_pool_free(p);
	return 0;
}

static int
test_derived_limits(void)
{
	struct ust_mem_conf c;
	struct ust_mem_pool *p;
	struct ust_mem_pool_stats st;

	/* Linux: limit = max(pages / 8, 128); min 3/4; pressure; max 2 min */
	ust_mem_conf_defaults(&c);
	c.base_pages = 8000;
	p = ust_mem_pool_create(&c, SOCKET_ID_ANY);
	UT_ASSERT(p != NULL);
	ust_mem_pool_stats_get(p, &st);
	UT_EQ(st.limit[0], 750);
	UT_EQ(st.limit[1], 1000);
	UT_EQ(st.limit[2], 1500);
	ust_mem_pool_free(p);
	c.base_pages = 100;
	p = ust_mem_pool_create(&c, SOCKET_ID_ANY);
	ust_mem_pool_stats_get(p, &st);
	UT_EQ(st.limit[1], 128);
	UT_EQ(st.limit[0], 96);
	ust_mem_pool_free(p);
	/* bad limits are refused */
	c.mem[0] = 5;
	c.mem[1] = 4;
	c.mem[2] = 6;
	UT_ASSERT(ust_mem_pool_create(&c, SOCKET_ID_ANY) == NULL);
	return 0;
}

static const struct ut_case cases[] = {
	{ "schedule_seed000", test_schedule_seed000 },
	{ "release_pages", test_release_pages },
	{ "buf_sizes", test_buf_sizes },
	{ "pool_limits", test_pool_limits },
	{ "pool_reserve", test_pool_reserve },
	{ "derived_limits", test_derived_limits },
};

int
main(int argc, char **argv)
{
	(void)argc;
	if (ut_eal_init(argv[0], "0") != 0)
		return 1;
	return UT_RUN(cases);
}
