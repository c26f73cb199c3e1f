/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * The split deployment on two lcores: the main lcore runs the stack and
 * floods one UST_SO_SPLIT socket through ust_stack_input(); lcore 1 drains
 * it with ust_recv_burst(). Every datagram carries a sequence number: the
 * reader checks order, and at the end every datagram must be delivered or
 * counted in exactly one drop counter, and the memory pool must be back
 * where it started. Run with fast and slow readers, batched and unbatched.
 */

#include <errno.h>
#include <string.h>
#include <stdlib.h>

#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "ust_socket.h"
#include "ust_stack.h"
#include "ut.h"
#include "ut_netif.h"

#define N_DGRAMS 100000u
/* the slow reader's pause after each burst: slow enough to overflow the
 * socket even against a producer under ASan (3-4 times slower; with 20 us
 * an ASan build's producer did not outrun the reader) */
#define SLOW_US 200u

static struct rte_mempool *pool;
static struct ut_netif nif;

struct reader {
	struct ust_stack *stk;
	int sd;
	unsigned int delay_us;
	volatile int done;
	uint64_t got;
	uint32_t last;
	int order_errors;
	int other_errors;
};

static int
reader_main(void *arg)
{
	struct reader *r = arg;
	struct rte_mbuf *b[32];

	for (;;) {
		int done = __atomic_load_n(&r->done, __ATOMIC_ACQUIRE);
		int n = ust_recv_burst(r->stk, r->sd, b, 32, NULL);
		int i;

		if (n < 0) {
			r->other_errors++;
			return -1;
		}
		for (i = 0; i < n; i++) {
			uint32_t seq;

			memcpy(&seq, rte_pktmbuf_mtod(b[i], void *), 4);
			if (r->got > 0 && seq <= r->last)
				r->order_errors++;
			r->last = seq;
			r->got++;
			rte_pktmbuf_free(b[i]);
		}
		if (n == 0 && done)
			break;
		if (r->delay_us != 0 && n > 0)
			rte_delay_us_block(r->delay_us);
	}
	return 0;
}

static void
tweak(struct ust_stack_conf *c)
{
	c->udp_mem.pcpu_reserve = 16; /* the default: lcore reserves */
}

static int
split_run(enum ust_mem_release rel, unsigned int delay_us)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, tweak);
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = RTE_BE16(7) };
	struct ust_sock_meminfo mi;
	socklen_t l = sizeof(mi);
	struct ust_stats st;
	struct reader r;
	unsigned int lc = rte_get_next_lcore(-1, 1, 0);
	uint32_t seq = 0;
	int one = 1;

	UT_ASSERT(stk != NULL);
	UT_ASSERT(lc < RTE_MAX_LCORE, "needs a second lcore");
	memset(&r, 0, sizeof(r));
	r.stk = stk;
	r.delay_us = delay_us;
	r.sd = ust_socket(stk, AF_INET, SOCK_DGRAM, 0);
	UT_EQ(ust_setsockopt(stk, r.sd, UST_SOL_USTACK, UST_SO_SPLIT, &one,
			     sizeof(one)), 0);
	UT_EQ(ust_bind(stk, r.sd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	ust_mem_pool_set_release(ust_stack_udp_mem(stk), rel);
	/* a non-split socket refuses a reader on another lcore */
	UT_EQ(rte_eal_remote_launch(reader_main, &r, lc), 0);
	while (seq < N_DGRAMS) {
		struct rte_mbuf *b[32];
		uint16_t n = 0;

		while (n < 32 && seq < N_DGRAMS) {
			uint8_t pl[64] = { 0 };

			/* the sequence number first, zero padding after */
			memcpy(pl, &seq, sizeof(seq));
			b[n] = ut_udp_frame(pool, UT_PEER_IP, UT_OUR_IP, 4000,
					    7, pl, sizeof(pl));
			if (b[n] == NULL)
				break; /* the socket holds them all: retry */
			seq++;
			n++;
		}
		if (n > 0)
			ust_stack_input(stk, b, n, 0);
	}
	__atomic_store_n(&r.done, 1, __ATOMIC_RELEASE);
	rte_eal_wait_lcore(lc);
	UT_EQ(r.other_errors, 0);
	UT_EQ(r.order_errors, 0);
	UT_EQ(ust_getsockopt(stk, r.sd, UST_SOL_USTACK, UST_SO_MEMINFO, &mi,
			     &l), 0);
	ust_stack_stats_get(stk, &st);
	printf("  %s reader%s: delivered %" PRIu64 ", rcvbuf drops %" PRIu64
	       ", mem drops %" PRIu64 ", splices %" PRIu64 ", releases %"
	       PRIu64 "\n", rel == UST_MEM_RELEASE_BATCHED ? "batched" :
	       "unbatched", delay_us ? " (slow)" : "", r.got, mi.rcvbuf_drops,
	       mi.mem_drops, mi.splices, mi.releases);
	UT_EQ(mi.queued, 0);
	UT_EQ(mi.delivered, r.got);
	UT_EQ(N_DGRAMS, r.got + mi.rcvbuf_drops + mi.mem_drops);
	UT_EQ(st.drop[UST_DROP_SOCKET_RCVBUFF], mi.rcvbuf_drops);
	UT_EQ(st.drop[UST_DROP_PROTO_MEM], mi.mem_drops);
	UT_EQ(st.mib[UST_MIB_UDP_INDATAGRAMS], r.got);
	UT_EQ(mi.rmem_alloc, 0);
	if (delay_us != 0)
		UT_ASSERT(mi.rcvbuf_drops > 0, "a slow reader must overflow");
	UT_EQ(ust_close(stk, r.sd), 0);
	UT_EQ(ust_mem_pool_pages(ust_stack_udp_mem(stk)), 0);
	UT_EQ(ut_check_conservation(stk), 0);
	ust_stack_destroy(stk);
	UT_EQ(ut_leak_check(pool), 0);
	return 0;
}

static int
test_split_batched(void)
{
	return split_run(UST_MEM_RELEASE_BATCHED, 0);
}

static int
test_split_unbatched(void)
{
	return split_run(UST_MEM_RELEASE_UNBATCHED, 0);
}

static int
test_split_slow_reader(void)
{
	return split_run(UST_MEM_RELEASE_BATCHED, SLOW_US);
}

static int
test_split_slow_unbatched(void)
{
	return split_run(UST_MEM_RELEASE_UNBATCHED, SLOW_US);
}

static int
read_elsewhere(void *arg)
{
	struct reader *r = arg;
	char buf[8];

	r->other_errors = (int)ust_recv(r->stk, r->sd, buf, sizeof(buf), 0);
	return 0;
}

static int
test_not_split_refused(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, tweak);
	unsigned int lc = rte_get_next_lcore(-1, 1, 0);
	struct reader r;

	memset(&r, 0, sizeof(r));
	r.stk = stk;
	r.sd = ust_socket(stk, AF_INET, SOCK_DGRAM, 0);
	UT_EQ(rte_eal_remote_launch(read_elsewhere, &r, lc), 0);
	rte_eal_wait_lcore(lc);
	UT_EQ(r.other_errors, -EPERM);
	ust_stack_destroy(stk);
	return 0;
}

static const struct ut_case cases[] = {
	{ "split_batched", test_split_batched },
	{ "split_unbatched", test_split_unbatched },
	{ "split_slow_reader", test_split_slow_reader },
	{ "split_slow_unbatched", test_split_slow_unbatched },
	{ "not_split_refused", test_not_split_refused },
};

int
main(int argc, char **argv)
{
	(void)argc;
	if (ut_eal_init(argv[0], "0-1") != 0)
		return 1;
	pool = ut_pool("ut_split", 8192);
	if (pool == NULL)
		return 1;
	ut_netif_init(&nif, 0);
	return UT_RUN(cases);
}
