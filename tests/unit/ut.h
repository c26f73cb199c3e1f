/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * A small unit-test harness in the style of lwIP's and DPDK's: a table of
 * named cases, assertion macros that report the values, a run summary and
 * an exit status for meson. Tests that need mbufs call ut_eal_init(), which
 * starts EAL without hugepages (--no-huge --in-memory), so that unit tests
 * run anywhere, and ut_leak_check() at teardown.
 */

#ifndef UST_UT_H
#define UST_UT_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct rte_mempool;

/* RTE_IPV4() of DPDK 22.11 shifts a signed int into the sign bit, which
 * UBSan rejects for addresses from 128.0.0.0 up: the same, unsigned. */
#define UT_IPV4(a, b, c, d) \
	(((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | \
	 ((uint32_t)(c) << 8) | (uint32_t)(d))

struct ut_case {
	const char *name;
	int (*fn)(void);
};

#define UT_ASSERT(cond, ...) do { \
	if (!(cond)) { \
		fprintf(stderr, "  %s:%d: assertion failed: %s ", __FILE__, \
			__LINE__, #cond); \
		ut_msg("" __VA_ARGS__); \
		return -1; \
	} \
} while (0)

#define UT_EQ(a, b) do { \
	long long ut_a_ = (long long)(a), ut_b_ = (long long)(b); \
	if (ut_a_ != ut_b_) { \
		fprintf(stderr, "  %s:%d: %s == %s failed: %lld != %lld\n", \
			__FILE__, __LINE__, #a, #b, ut_a_, ut_b_); \
		return -1; \
	} \
} while (0)

#define UT_RUN(cases) ut_run(__FILE__, cases, sizeof(cases) / sizeof(cases[0]))

/* the optional message of UT_ASSERT */
void ut_msg(const char *fmt, ...);

int ut_run(const char *suite, const struct ut_case *cases, size_t n);

/* EAL without hugepages on lcores @lcores ("0" or "0-1", or with '@' a
 * map of lcores to CPUs, "0@0,1@1,2@0"); 0 on success */
int ut_eal_init(const char *prog, const char *lcores);

/* a pktmbuf pool of @n mbufs for a test */
struct rte_mempool *ut_pool(const char *name, unsigned int n);

/* 0 when @mp has every mbuf back; prints the difference otherwise */
int ut_leak_check(struct rte_mempool *mp);

/* deterministic PRNG for randomized tests (xorshift64*) */
static inline uint64_t
ut_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

#endif /* UST_UT_H */
