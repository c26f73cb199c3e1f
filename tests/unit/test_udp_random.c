/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Randomized, seeded and reproducible: interleaved bursts of datagrams of
 * two truesizes into several sockets, reads of random length (copy and
 * zero-copy), rcvbuf changes, A/B switches of scheduling and release, pool
 * limit changes, closes and reopens. After every step the accounting
 * invariants are checked over all sockets; at the end every socket is
 * closed and the pool must be back at zero pages with no mbuf in use.
 *
 * UT_SEED=n reproduces a run; UT_STEPS=n sets its length.
 */

#include <errno.h>
#include <stdlib.h>

#include <rte_mbuf.h>

#include "ust_socket.h"
#include "ust_stack.h"
#include "ut.h"
#include "ut_netif.h"

#define NSOCK 6
#define TMAX (9600u + 128u)

static struct rte_mempool *pool, *jumbo;
static struct ut_netif nif;

static void
tweak(struct ust_stack_conf *c)
{
	c->udp_mem.pcpu_reserve = 0;
}

/* the bound state of ut_udp_check(): rmem_alloc stays within rcvbuf plus
 * one datagram, or what was queued when rcvbuf shrank below it */
static uint32_t allow[NSOCK];

static int
check(struct ust_stack *stk, const int *sds, uint64_t step, uint64_t seed)
{
	return ut_udp_check(stk, sds, NSOCK, TMAX, allow, seed, step);
}

static int
open_sock(struct ust_stack *stk, int i)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = rte_cpu_to_be_16(7000 + i) };
	int sd = ust_socket(stk, AF_INET, SOCK_DGRAM, 0);

	if (sd < 0 || ust_bind(stk, sd, (struct sockaddr *)&sin,
			       sizeof(sin)) != 0)
		return -1;
	return sd;
}

static int
test_random(void)
{
	const char *se = getenv("UT_SEED"), *st = getenv("UT_STEPS");
	uint64_t seed = se != NULL ? strtoull(se, NULL, 0) : 20261130;
	uint64_t steps = st != NULL ? strtoull(st, NULL, 0) : 20000;
	uint64_t s = seed | 1, step;
	struct ust_stack *stk = ut_stack_create(&nif, pool, tweak);
	struct ust_mem_pool *mp;
	uint64_t sent = 0, got = 0;
	int sds[NSOCK], i;
	static uint8_t pl[1400];

	UT_ASSERT(stk != NULL);
	mp = ust_stack_udp_mem(stk);
	for (i = 0; i < NSOCK; i++) {
		sds[i] = open_sock(stk, i);
		UT_ASSERT(sds[i] >= 0);
	}
	printf("  seed %" PRIu64 ", %" PRIu64 " steps\n", seed, steps);
	for (step = 0; step < steps; step++) {
		uint64_t r = ut_rand(&s);
		int k = (int)(r % NSOCK);
		unsigned int op = (unsigned int)((r >> 8) % 100);

		if (op < 45) {
			/* a burst into random sockets */
			struct rte_mbuf *b[32];
			unsigned int n = 1 + (unsigned int)((r >> 16) % 32), j;

			for (j = 0; j < n; j++) {
				uint64_t q = ut_rand(&s);
				int dst = (int)(q % NSOCK);

				b[j] = ut_udp_frame((q >> 8) % 8 ? pool : jumbo,
					UT_PEER_IP, UT_OUR_IP, 4000,
					(uint16_t)(7000 + dst), pl,
					(uint16_t)((q >> 16) % sizeof(pl)));
				UT_ASSERT(b[j] != NULL);
			}
			ust_stack_input(stk, b, (uint16_t)n, 0);
			sent += n;
		} else if (op < 80 && sds[k] >= 0) {
			/* read some, copying or zero-copy */
			unsigned int n = 1 + (unsigned int)((r >> 16) % 40), j;

			if ((r >> 24) & 1) {
				struct rte_mbuf *b[40];
				int got_n = ust_recv_burst(stk, sds[k], b, n,
							   NULL);

				UT_ASSERT(got_n >= 0);
				for (j = 0; j < (unsigned int)got_n; j++)
					rte_pktmbuf_free(b[j]);
				got += (unsigned int)got_n;
			} else {
				for (j = 0; j < n; j++) {
					char buf[1500];
					ssize_t rc = ust_recv(stk, sds[k], buf,
							      sizeof(buf), 0);

					if (rc == -EAGAIN)
						break;
					UT_ASSERT(rc >= 0);
					got++;
				}
			}
		} else if (op < 88 && sds[k] >= 0) {
			int v = (int)(1 + (r >> 16) % 100000);
			struct ust_sock_meminfo mi;
			socklen_t l = sizeof(mi);

			UT_EQ(ust_getsockopt(stk, sds[k], UST_SOL_USTACK,
					     UST_SO_MEMINFO, &mi, &l), 0);
			UT_EQ(ust_setsockopt(stk, sds[k], SOL_SOCKET,
					     SO_RCVBUFFORCE, &v, sizeof(v)), 0);
			allow[k] = RTE_MAX(mi.rmem_alloc, (uint32_t)(2 * v) +
					   TMAX);
		} else if (op < 91) {
			ust_mem_pool_set_schedule(mp, (r >> 16) & 1 ?
				UST_MEM_SCHEDULE_LEGACY :
				UST_MEM_SCHEDULE_DELTA);
		} else if (op < 94) {
			ust_mem_pool_set_release(mp, (r >> 16) & 1 ?
				UST_MEM_RELEASE_UNBATCHED :
				UST_MEM_RELEASE_BATCHED);
		} else if (op < 96) {
			uint64_t lim[3];

			lim[0] = 8 + (r >> 16) % 200;
			lim[1] = lim[0] + (r >> 24) % 50;
			lim[2] = lim[1] + (r >> 32) % 100;
			ust_mem_pool_set_limits(mp, lim);
		} else if (sds[k] >= 0) {
			UT_EQ(ust_close(stk, sds[k]), 0);
			sds[k] = -1;
		} else {
			sds[k] = open_sock(stk, k);
			UT_ASSERT(sds[k] >= 0);
			allow[k] = 0;
		}
		if (check(stk, sds, step, seed) != 0)
			return -1;
	}
	{
		struct ust_stats stt;

		ust_stack_stats_get(stk, &stt);
		printf("  %" PRIu64 " datagrams in, %" PRIu64 " read, queued "
		       "%" PRIu64 ", drops: rcvbuf %" PRIu64 " mem %" PRIu64
		       " close %" PRIu64 " noport %" PRIu64 "\n", sent, got,
		       stt.mib[UST_MIB_UDP_INDATAGRAMS],
		       stt.drop[UST_DROP_SOCKET_RCVBUFF],
		       stt.drop[UST_DROP_PROTO_MEM],
		       stt.drop[UST_DROP_SOCKET_CLOSE],
		       stt.drop[UST_DROP_NO_SOCKET]);
		/* every datagram is read, dropped once, or still queued */
		for (i = 0; i < NSOCK; i++)
			if (sds[i] >= 0) {
				UT_EQ(ust_close(stk, sds[i]), 0);
				sds[i] = -1;
			}
		ust_stack_stats_get(stk, &stt);
		UT_EQ(sent, got + stt.drop[UST_DROP_SOCKET_RCVBUFF] +
		      stt.drop[UST_DROP_PROTO_MEM] +
		      stt.drop[UST_DROP_SOCKET_CLOSE] +
		      stt.drop[UST_DROP_NO_SOCKET]);
		UT_EQ(stt.mib[UST_MIB_UDP_INDATAGRAMS],
		      got + stt.drop[UST_DROP_SOCKET_CLOSE]);
		UT_ASSERT(stt.drop[UST_DROP_SOCKET_RCVBUFF] > 0);
		UT_ASSERT(stt.drop[UST_DROP_PROTO_MEM] > 0);
	}
	UT_EQ(ust_mem_pool_pages(mp), 0);
	UT_EQ(ut_check_conservation(stk), 0);
	ust_stack_destroy(stk);
	ut_tx_drain(&nif);
	UT_EQ(ut_leak_check(pool), 0);
	UT_EQ(ut_leak_check(jumbo), 0);
	return 0;
}

static const struct ut_case cases[] = {
	{ "random", test_random },
};

int
main(int argc, char **argv)
{
	(void)argc;
	if (ut_eal_init(argv[0], "0") != 0)
		return 1;
	pool = ut_pool("ut_rnd", 8192);
	jumbo = rte_pktmbuf_pool_create("ut_rnd_j", 2048, 0, 0, 9600,
					SOCKET_ID_ANY);
	if (pool == NULL || jumbo == NULL)
		return 1;
	ut_netif_init(&nif, 0);
	return UT_RUN(cases);
}
