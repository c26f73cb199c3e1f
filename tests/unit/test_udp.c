/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * The accounted UDP receive queue, through the stack: datagrams in with
 * ust_stack_input(), read with ust_recv(), and the socket's accounting
 * checked after every step against the invariants:
 *
 *   rmem_alloc == sum of queued truesize + forward_deficit
 *   pool pages * 4096 == sum over sockets of (forward_alloc + rmem_alloc)
 *   nothing negative; rmem_alloc <= rcvbuf + one packet's truesize
 *
 * Default mbufs have a truesize of 2304 bytes (2176-byte buffer + 128-byte
 * struct rte_mbuf); a second pool of 9600-byte buffers (truesize 9728)
 * exercises packets larger than a page.
 */

#include <errno.h>

#include <rte_mbuf.h>

#include "ust_socket.h"
#include "ust_stack.h"
#include "ut.h"
#include "ut_netif.h"

#define T 2304u
#define TJ (9600u + 128u)

static struct rte_mempool *pool, *jumbo;
static struct ut_netif nif;

static void
exact(struct ust_stack_conf *c)
{
	c->udp_mem.pcpu_reserve = 0;
}

static int
meminfo(struct ust_stack *stk, int sd, struct ust_sock_meminfo *mi)
{
	socklen_t l = sizeof(*mi);

	return ust_getsockopt(stk, sd, UST_SOL_USTACK, UST_SO_MEMINFO, mi, &l);
}

/* The invariants over @n sockets of @stk (all of its UDP sockets). */
static int
invariants(struct ust_stack *stk, const int *sds, int n, uint32_t max_ts)
{
	int64_t sum = 0;
	int i;

	for (i = 0; i < n; i++) {
		struct ust_sock_meminfo mi;

		if (sds[i] < 0)
			continue;
		UT_EQ(meminfo(stk, sds[i], &mi), 0);
		UT_ASSERT(mi.rmem_alloc == mi.queued_truesize +
			  mi.forward_deficit, "sd %d: rmem %u != queued %u + "
			  "deficit %u", sds[i], mi.rmem_alloc,
			  mi.queued_truesize, mi.forward_deficit);
		UT_ASSERT(mi.forward_alloc >= 0, "sd %d: forward_alloc %d",
			  sds[i], mi.forward_alloc);
		UT_ASSERT((int32_t)mi.rmem_alloc >= 0);
		UT_ASSERT(mi.rmem_alloc <= mi.rcvbuf + max_ts,
			  "sd %d: rmem %u > rcvbuf %u + %u", sds[i],
			  mi.rmem_alloc, mi.rcvbuf, max_ts);
		UT_ASSERT(mi.forward_threshold == mi.rcvbuf / 4);
		UT_ASSERT(mi.rmem_alloc_hw >= mi.rmem_alloc);
		sum += (int64_t)mi.forward_alloc + mi.rmem_alloc;
	}
	UT_ASSERT(ust_mem_pool_pages(ust_stack_udp_mem(stk)) * 4096 == sum,
		  "pool %" PRId64 " pages vs sockets %" PRId64 " bytes",
		  ust_mem_pool_pages(ust_stack_udp_mem(stk)), sum);
	return 0;
}

static void
send_to(struct ust_stack *stk, struct rte_mempool *mp, uint16_t port,
	uint16_t len)
{
	static uint8_t pl[1500];
	struct rte_mbuf *m = ut_udp_frame(mp, UT_PEER_IP, UT_OUR_IP, 4000, port,
					  pl, len);

	ust_stack_input(stk, &m, 1, 0);
}

static int
set_rcvbuf(struct ust_stack *stk, int sd, int v)
{
	return ust_setsockopt(stk, sd, SOL_SOCKET, SO_RCVBUFFORCE, &v,
			      sizeof(v));
}

static uint64_t
mib(struct ust_stack *stk, enum ust_mib c)
{
	struct ust_stats st;

	ust_stack_stats_get(stk, &st);
	return st.mib[c];
}

static int
teardown(struct ust_stack *stk)
{
	int rc = ut_check_conservation(stk);

	ust_stack_destroy(stk);
	ut_tx_drain(&nif);
	if (ut_leak_check(pool) != 0 || ut_leak_check(jumbo) != 0)
		rc = -1;
	return rc;
}

static int
test_truesize(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, exact);
	struct ust_sock_meminfo mi;
	int sd = ut_udp_bound(stk, 7);

	send_to(stk, pool, 7, 64);
	UT_EQ(meminfo(stk, sd, &mi), 0);
	UT_EQ(mi.queued, 1);
	UT_EQ(mi.queued_truesize, T);
	UT_EQ(mi.rmem_alloc, T);
	/* first datagram, delta rule: 1 page, forward_alloc 4096 - 2304 */
	UT_EQ(mi.forward_alloc, 4096 - T);
	UT_EQ(ust_mem_pool_pages(ust_stack_udp_mem(stk)), 1);
	send_to(stk, jumbo, 7, 64);
	UT_EQ(meminfo(stk, sd, &mi), 0);
	UT_EQ(mi.queued_truesize, T + TJ);
	UT_EQ(invariants(stk, &sd, 1, TJ), 0);
	return teardown(stk);
}

/* Charge the same jumbo datagrams with each rule: pages and high water. */
static int
schedule_run(enum ust_mem_schedule mode, uint64_t *pages, int32_t *hw)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, exact);
	struct ust_mem_pool_stats ps;
	struct ust_sock_meminfo mi;
	int sd = ut_udp_bound(stk, 7), i;

	ust_mem_pool_set_schedule(ust_stack_udp_mem(stk), mode);
	for (i = 0; i < 8; i++) {
		send_to(stk, jumbo, 7, 100);
		UT_EQ(invariants(stk, &sd, 1, TJ), 0);
	}
	ust_mem_pool_stats_get(ust_stack_udp_mem(stk), &ps);
	UT_EQ(meminfo(stk, sd, &mi), 0);
	UT_EQ(mi.queued, 8);
	*pages = ps.pages_charged;
	*hw = mi.forward_alloc_hw;
	return teardown(stk);
}

static int
test_schedule_delta_vs_legacy(void)
{
	uint64_t pd, pl;
	int32_t hd, hl;

	UT_EQ(schedule_run(UST_MEM_SCHEDULE_DELTA, &pd, &hd), 0);
	UT_EQ(schedule_run(UST_MEM_SCHEDULE_LEGACY, &pl, &hl), 0);
	/* delta charges exactly what the queue needs: ceil(8 * 9728 / 4096) */
	UT_EQ(pd, (8 * TJ + 4095) / 4096);
	/* legacy rounds every datagram up on its own: more pages, more
	 * forward memory held ahead of use */
	UT_ASSERT(pl > pd, "legacy %" PRIu64 " pages, delta %" PRIu64, pl, pd);
	UT_ASSERT(hd < (int32_t)(TJ + 4096), "delta high water %d", hd);
	UT_ASSERT(hl > hd, "legacy hw %d, delta hw %d", hl, hd);
	return 0;
}

static int
test_rcvbuf_rule(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, exact);
	struct ust_sock_meminfo mi;
	int sd = ut_udp_bound(stk, 7);

	/* rcvbuf 4608: two default datagrams fit exactly, the third not */
	UT_EQ(set_rcvbuf(stk, sd, 2304), 0);
	send_to(stk, pool, 7, 10);
	send_to(stk, pool, 7, 10);
	send_to(stk, pool, 7, 10);
	UT_EQ(meminfo(stk, sd, &mi), 0);
	UT_EQ(mi.rcvbuf, 4608);
	UT_EQ(mi.queued, 2);
	UT_EQ(mi.rcvbuf_drops, 1);
	UT_EQ(mib(stk, UST_MIB_UDP_RCVBUFERRORS), 1);
	UT_EQ(mib(stk, UST_MIB_UDP_INERRORS), 1);
	UT_EQ(invariants(stk, &sd, 1, T), 0);
	return teardown(stk);
}

static int
test_rcvbuf_below_one_packet(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, exact);
	struct ust_sock_meminfo mi;
	int sd = ut_udp_bound(stk, 7);
	char buf[16];

	/* rcvbuf 4608 < a jumbo truesize: an empty socket takes one */
	UT_EQ(set_rcvbuf(stk, sd, 1), 0);
	send_to(stk, jumbo, 7, 10);
	send_to(stk, jumbo, 7, 10);
	UT_EQ(meminfo(stk, sd, &mi), 0);
	UT_EQ(mi.queued, 1);
	UT_EQ(mi.rmem_alloc, TJ);
	UT_EQ(mi.rcvbuf_drops, 1);
	UT_EQ(invariants(stk, &sd, 1, TJ), 0);
	/* reading it empties the socket: it takes the next one */
	UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), 10);
	send_to(stk, jumbo, 7, 10);
	UT_EQ(meminfo(stk, sd, &mi), 0);
	UT_EQ(mi.queued, 1);
	UT_EQ(invariants(stk, &sd, 1, TJ), 0);
	return teardown(stk);
}

/* rcvbuf/4 threshold, batched release: read @n of 4 queued datagrams and
 * return rmem_alloc. */
static int
threshold_case(int rcvbuf_req, int reads, uint32_t *rmem, uint32_t *deficit)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, exact);
	struct ust_sock_meminfo mi;
	int sd = ut_udp_bound(stk, 7), i;
	char buf[16];

	UT_EQ(set_rcvbuf(stk, sd, rcvbuf_req), 0);
	for (i = 0; i < 4; i++)
		send_to(stk, pool, 7, 10);
	for (i = 0; i < reads; i++) {
		UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), 10);
		UT_EQ(invariants(stk, &sd, 1, T), 0);
	}
	UT_EQ(meminfo(stk, sd, &mi), 0);
	*rmem = mi.rmem_alloc;
	*deficit = mi.forward_deficit;
	return teardown(stk);
}

static int
test_threshold_edges(void)
{
	uint32_t rmem, def;

	/* rcvbuf 18432, threshold 4608 = 2 datagrams exactly */
	UT_EQ(threshold_case(9216, 1, &rmem, &def), 0);
	UT_EQ(def, T);          /* below the threshold: nothing released */
	UT_EQ(rmem, 4 * T);
	UT_EQ(threshold_case(9216, 2, &rmem, &def), 0);
	UT_EQ(def, 0);          /* at the threshold: released */
	UT_EQ(rmem, 2 * T);
	/* rcvbuf 18436, threshold 4609: two reads are one byte short */
	UT_EQ(threshold_case(9218, 2, &rmem, &def), 0);
	UT_EQ(def, 2 * T);
	UT_EQ(rmem, 4 * T);
	UT_EQ(threshold_case(9218, 3, &rmem, &def), 0);
	UT_EQ(def, 0);
	UT_EQ(rmem, T);
	/* the reader's queue emptied: released at once, below threshold */
	UT_EQ(threshold_case(9216 * 4, 4, &rmem, &def), 0);
	UT_EQ(def, 0);
	UT_EQ(rmem, 0);
	return 0;
}

static int
test_empty_releases_at_once(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, exact);
	struct ust_sock_meminfo mi;
	int sd = ut_udp_bound(stk, 7);
	char buf[16];

	send_to(stk, pool, 7, 10);
	UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), 10);
	UT_EQ(meminfo(stk, sd, &mi), 0);
	UT_EQ(mi.rmem_alloc, 0);
	UT_EQ(mi.forward_deficit, 0);
	/* partial keep: one page stays charged for the next datagram */
	UT_EQ(mi.forward_alloc, 4096);
	UT_EQ(ust_mem_pool_pages(ust_stack_udp_mem(stk)), 1);
	UT_EQ(invariants(stk, &sd, 1, T), 0);
	/* ... and the next one does not touch the pool */
	send_to(stk, pool, 7, 10);
	UT_EQ(ust_mem_pool_pages(ust_stack_udp_mem(stk)), 1);
	UT_EQ(invariants(stk, &sd, 1, T), 0);
	return teardown(stk);
}

static int
test_unbatched(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, exact);
	struct ust_sock_meminfo mi;
	int sd = ut_udp_bound(stk, 7), i;
	char buf[16];

	ust_mem_pool_set_release(ust_stack_udp_mem(stk),
				 UST_MEM_RELEASE_UNBATCHED);
	for (i = 0; i < 4; i++)
		send_to(stk, pool, 7, 10);
	for (i = 1; i <= 4; i++) {
		UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), 10);
		UT_EQ(meminfo(stk, sd, &mi), 0);
		UT_EQ(mi.forward_deficit, 0);
		UT_EQ(mi.rmem_alloc, (4 - i) * T);
		UT_EQ(mi.releases, i);
		UT_EQ(invariants(stk, &sd, 1, T), 0);
	}
	return teardown(stk);
}

static int
test_rcvbuf_change_while_queued(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, exact);
	struct ust_sock_meminfo mi;
	int sd = ut_udp_bound(stk, 7), i;
	char buf[16];

	for (i = 0; i < 4; i++)
		send_to(stk, pool, 7, 10);
	/* shrink below what is queued: new datagrams are refused, reads
	 * release against the new threshold (1152) at once */
	UT_EQ(set_rcvbuf(stk, sd, 1), 0);
	send_to(stk, pool, 7, 10);
	UT_EQ(meminfo(stk, sd, &mi), 0);
	UT_EQ(mi.queued, 4);
	UT_EQ(mi.rcvbuf_drops, 1);
	UT_EQ(mi.forward_threshold, 1152);
	UT_EQ(invariants(stk, &sd, 1, 4 * T), 0);
	UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), 10);
	UT_EQ(meminfo(stk, sd, &mi), 0);
	UT_EQ(mi.forward_deficit, 0);
	UT_EQ(mi.rmem_alloc, 3 * T);
	UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), 10);
	UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), 10);
	/* one left (2304 <= 4608): it fits again */
	send_to(stk, pool, 7, 10);
	UT_EQ(meminfo(stk, sd, &mi), 0);
	UT_EQ(mi.queued, 2);
	UT_EQ(invariants(stk, &sd, 1, T), 0);
	return teardown(stk);
}

static int
test_pool_limit_and_rmem_min(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, exact);
	uint64_t lim[3] = { 1, 1, 2 };
	struct ust_sock_meminfo mi;
	int sds[3];

	sds[0] = ut_udp_bound(stk, 7);
	sds[1] = ut_udp_bound(stk, 8);
	sds[2] = ut_udp_bound(stk, 9);
	ust_mem_pool_set_limits(ust_stack_udp_mem(stk), lim);
	/* 1 page: within min */
	send_to(stk, pool, 7, 10);
	/* needs a 2nd page, above min, and the socket would hold 4608 >=
	 * udp_rmem_min: refused */
	send_to(stk, pool, 7, 10);
	UT_EQ(meminfo(stk, sds[0], &mi), 0);
	UT_EQ(mi.queued, 1);
	UT_EQ(mi.mem_drops, 1);
	UT_EQ(mib(stk, UST_MIB_UDP_MEMERRORS), 1);
	UT_EQ(mib(stk, UST_MIB_UDP_INERRORS), 1);
	/* an empty socket is below udp_rmem_min: granted above min */
	send_to(stk, pool, 8, 10);
	UT_EQ(meminfo(stk, sds[1], &mi), 0);
	UT_EQ(mi.queued, 1);
	/* above max: refused even for an empty socket */
	send_to(stk, pool, 9, 10);
	UT_EQ(meminfo(stk, sds[2], &mi), 0);
	UT_EQ(mi.queued, 0);
	UT_EQ(mi.mem_drops, 1);
	UT_EQ(mib(stk, UST_MIB_UDP_MEMERRORS), 2);
	UT_EQ(invariants(stk, sds, 3, T), 0);
	return teardown(stk);
}

static int
test_close_returns_everything(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, exact);
	struct ust_mem_pool *mp = ust_stack_udp_mem(stk);
	int sds[2], i;
	char buf[16];

	sds[0] = ut_udp_bound(stk, 7);
	sds[1] = ut_udp_bound(stk, 8);
	for (i = 0; i < 7; i++) {
		send_to(stk, pool, 7, 10);
		send_to(stk, jumbo, 8, 10);
	}
	UT_EQ(ust_recv(stk, sds[0], buf, sizeof(buf), 0), 10);
	UT_EQ(ust_recv(stk, sds[1], buf, sizeof(buf), 0), 10);
	UT_EQ(invariants(stk, sds, 2, TJ), 0);
	UT_ASSERT(ust_mem_pool_pages(mp) > 0);
	UT_EQ(ust_close(stk, sds[0]), 0);
	sds[0] = -1;
	UT_EQ(invariants(stk, sds, 2, TJ), 0);
	UT_EQ(ust_close(stk, sds[1]), 0);
	UT_EQ(ust_mem_pool_pages(mp), 0);
	return teardown(stk);
}

static int
test_split_flag_api(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, exact);
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = RTE_BE16(7) };
	int sd = ust_socket(stk, AF_INET, SOCK_DGRAM, 0), one = 1, v = 0;
	int bound = ut_udp_bound(stk, 8);
	socklen_t l = sizeof(v);
	int ep = ust_epoll_create(stk);
	struct ust_epoll_event ev = { .events = UST_EPOLLIN, .data = 1 };
	char buf[16];

	/* fixed before the socket is bound: datagrams may arrive after */
	UT_EQ(ust_setsockopt(stk, bound, UST_SOL_USTACK, UST_SO_SPLIT, &one,
			     sizeof(one)), -EINVAL);
	UT_EQ(ust_setsockopt(stk, sd, UST_SOL_USTACK, UST_SO_SPLIT, &one,
			     sizeof(one)), 0);
	UT_EQ(ust_bind(stk, sd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	UT_EQ(ust_getsockopt(stk, sd, UST_SOL_USTACK, UST_SO_SPLIT, &v, &l), 0);
	UT_EQ(v, 1);
	/* a split socket is read elsewhere: no event set */
	UT_EQ(ust_epoll_ctl(stk, ep, UST_EPOLL_CTL_ADD, sd, &ev), -EINVAL);
	/* the locked path keeps the same accounting */
	send_to(stk, pool, 7, 10);
	send_to(stk, pool, 7, 10);
	UT_EQ(invariants(stk, &sd, 1, T), 0);
	UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), 10);
	UT_EQ(invariants(stk, &sd, 1, T), 0);
	return teardown(stk);
}

static const struct ut_case cases[] = {
	{ "truesize", test_truesize },
	{ "schedule_delta_vs_legacy", test_schedule_delta_vs_legacy },
	{ "rcvbuf_rule", test_rcvbuf_rule },
	{ "rcvbuf_below_one_packet", test_rcvbuf_below_one_packet },
	{ "threshold_edges", test_threshold_edges },
	{ "empty_releases_at_once", test_empty_releases_at_once },
	{ "unbatched", test_unbatched },
	{ "rcvbuf_change_while_queued", test_rcvbuf_change_while_queued },
	{ "pool_limit_and_rmem_min", test_pool_limit_and_rmem_min },
	{ "close_returns_everything", test_close_returns_everything },
	{ "split_flag_api", test_split_flag_api },
};

int
main(int argc, char **argv)
{
	(void)argc;
	if (ut_eal_init(argv[0], "0") != 0)
		return 1;
	pool = ut_pool("ut_udp", 2048);
	jumbo = rte_pktmbuf_pool_create("ut_udp_j", 512, 0, 0, 9600,
					SOCKET_ID_ANY);
	if (pool == NULL || jumbo == NULL)
		return 1;
	ut_netif_init(&nif, 0);
	return UT_RUN(cases);
}
