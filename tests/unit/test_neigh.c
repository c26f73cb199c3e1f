/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Neighbour cache under a hostile network, packets in and packets out:
 * replies to spoofed sources that never answer ARP stay within the
 * stack-wide pending bound and the pool's RX reserve, spoofed ARP requests
 * cannot lock a new peer out of a full table, off-subnet senders are
 * answered but not learned, and every dropped frame is counted once. At
 * teardown: the conservation law and the mbuf leak check.
 *
 * The counters new with these bounds are looked up by name, so that this
 * file also builds against the code before them (and fails there).
 */

#include <rte_arp.h>
#include <rte_ip.h>

#include "ust_socket.h"
#include "ust_stack.h"
#include "ut.h"
#include "ut_netif.h"

#define MS (1000ull * 1000)
#define SEC (1000ull * MS)

static struct rte_mempool *pool;
static struct ut_netif nif;

static struct ust_stats
stats(struct ust_stack *stk)
{
	struct ust_stats st;

	ust_stack_stats_get(stk, &st);
	return st;
}

static uint64_t
mib(struct ust_stack *stk, enum ust_mib c)
{
	return stats(stk).mib[c];
}

static uint64_t
drops(struct ust_stack *stk, enum ust_drop_reason r)
{
	return stats(stk).drop[r];
}

/* A counter by name; UINT64_MAX when the stack does not have it. */
static uint64_t
drop_named(struct ust_stack *stk, const char *name)
{
	int r = ust_drop_lookup(name);

	return r < 0 ? UINT64_MAX : stats(stk).drop[r];
}

static uint64_t
mib_named(struct ust_stack *stk, const char *name)
{
	int r = ust_mib_lookup(name);

	return r < 0 ? UINT64_MAX : stats(stk).mib[r];
}

static void
inject(struct ust_stack *stk, struct rte_mbuf *m, uint64_t now)
{
	ust_stack_input(stk, &m, 1, now);
	ust_stack_flush(stk);
}

static int
teardown(struct ust_stack *stk, struct rte_mempool *mp)
{
	int rc = ut_check_conservation(stk);

	ust_stack_destroy(stk);
	ut_tx_drain(&nif);
	if (ut_leak_check(mp) != 0)
		rc = -1;
	return rc;
}

static rte_be32_t
ip4(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	return rte_cpu_to_be_32(UT_IPV4(a, b, c, d));
}

static struct rte_ether_addr
mac_of(rte_be32_t ip)
{
	uint32_t h = rte_be_to_cpu_32(ip);
	struct rte_ether_addr m = { { 0x02, 0x5e, (uint8_t)(h >> 24),
				      (uint8_t)(h >> 16), (uint8_t)(h >> 8),
				      (uint8_t)h } };
	return m;
}

/* An echo request to us from @src (spoofed or not), built from @mp. */
static struct rte_mbuf *
echo_from(struct rte_mempool *mp, rte_be32_t src, uint16_t seq)
{
	struct rte_mbuf *m = ut_icmp_echo_frame(mp, UT_OUR_IP, 7, seq, 16);
	struct rte_ipv4_hdr *ih;

	if (m == NULL)
		return NULL;
	ih = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, 14);
	ih->src_addr = src;
	ut_fix_ipv4_csum(m);
	return m;
}

static struct rte_mbuf *
arp_from(struct rte_mempool *mp, uint16_t op, rte_be32_t src)
{
	struct rte_ether_addr mac = mac_of(src);

	return ut_arp_frame(mp, op, &mac, src, UT_OUR_IP);
}

/* Count and free the TX frames: echo replies and ARP frames. */
static void
tx_count(unsigned int *echo_replies, unsigned int *arp)
{
	struct rte_mbuf *m;

	while ((m = ut_tx_pop(&nif)) != NULL) {
		const struct rte_ether_hdr *eh =
			rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);

		if (eh->ether_type == RTE_BE16(RTE_ETHER_TYPE_ARP)) {
			if (arp != NULL)
				(*arp)++;
		} else if (echo_replies != NULL) {
			(*echo_replies)++;
		}
		rte_pktmbuf_free(m);
	}
}

/*
 * 150 spoofed sources, 8 echo requests each, none answering ARP: the
 * replies held for resolution stop at arp.pending_max (1024) mbufs in all,
 * though each entry's own bound (64) is far off; beyond it a source's first
 * replies are dropped (NEIGH_PENDINGFULL) and a source that has replies
 * waiting makes room with its oldest (NEIGH_QUEUEFULL).
 */
static int
test_pending_total_bound(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	unsigned int base = rte_mempool_in_use_count(pool);
	unsigned int replies = 0, arps = 0, s, k;
	struct ust_stats st;

	UT_ASSERT(stk != NULL);
	for (s = 0; s < 150; s++) {
		for (k = 0; k < 8; k++)
			inject(stk, echo_from(pool, ip4(198, 18, 0, 10 + s),
					      (uint16_t)k), MS);
		tx_count(&replies, &arps);
	}
	UT_EQ(replies, 0);
	UT_EQ(arps, 150); /* one request per source, sent at once */
	UT_EQ(rte_mempool_in_use_count(pool) - base, 1024);
	UT_EQ(drop_named(stk, "NEIGH_PENDINGFULL"), (150 - 128) * 8);
	UT_EQ(drops(stk, UST_DROP_NEIGH_QUEUEFULL), 0);
	/* a source with replies waiting: its oldest makes room */
	inject(stk, echo_from(pool, ip4(198, 18, 0, 10), 99), 2 * MS);
	UT_EQ(drops(stk, UST_DROP_NEIGH_QUEUEFULL), 1);
	UT_EQ(rte_mempool_in_use_count(pool) - base, 1024);
	UT_EQ(mib(stk, UST_MIB_ARP_UNRESOLVEDDISCARDS), (150 - 128) * 8 + 1);
	/* every request answered, every reply held, sent or dropped once */
	st = stats(stk);
	UT_EQ(st.mib[UST_MIB_ICMP_INECHOS], 1201);
	UT_EQ(st.mib[UST_MIB_ICMP_OUTECHOREPS], 1201);
	UT_EQ(ust_stats_drops(&st, UST_DROP_PATH_TX), 1201 - 1024);
	/* a source that answers gets its 8 replies; the room is back */
	inject(stk, arp_from(pool, RTE_ARP_OP_REPLY, ip4(198, 18, 0, 10)),
	       3 * MS);
	tx_count(&replies, NULL);
	UT_EQ(replies, 8);
	UT_EQ(rte_mempool_in_use_count(pool) - base, 1016);
	inject(stk, echo_from(pool, ip4(198, 18, 0, 250), 1), 4 * MS);
	ut_tx_drain(&nif);
	UT_EQ(rte_mempool_in_use_count(pool) - base, 1017);
	return teardown(stk, pool);
}

/*
 * The pool's reserve: with most of a 2048-mbuf pool held elsewhere (as
 * sockets' queues would), replies to unresolvable sources and ARP replies
 * take nothing below the reserve (1/8 of the pool, 256, by default), and
 * RX (here: the test building frames) always finds mbufs.
 */
static int
test_reserve(void)
{
	struct rte_mempool *mp = ut_pool("ut_neigh_res", 2048);
	struct rte_mbuf *hog[1500], *extra[16];
	unsigned int ne;
	struct ust_stack *stk;
	unsigned int s, n, arps = 0;
	uint64_t denied, before;
	struct ust_stats st;

	UT_ASSERT(mp != NULL);
	stk = ut_stack_create(&nif, mp, NULL);
	UT_ASSERT(stk != NULL);
	UT_EQ(rte_pktmbuf_alloc_bulk(mp, hog, RTE_DIM(hog)), 0);
	/* 548 free; each source: an ARP request and a held reply */
	for (s = 0; s < 400; s++) {
		struct rte_mbuf *m = echo_from(mp, ip4(198, 18, 0, 1 + s % 250),
					       (uint16_t)s);

		UT_ASSERT(m != NULL, "RX found no mbuf at source %u", s);
		inject(stk, m, MS + s);
		tx_count(NULL, &arps);
		UT_ASSERT(rte_mempool_avail_count(mp) >= 256,
			  "%u free after source %u",
			  rte_mempool_avail_count(mp), s);
	}
	n = 2048 - RTE_DIM(hog) - rte_mempool_avail_count(mp);
	UT_ASSERT(n > 200 && n <= 548 - 256, "%u held", n);
	UT_ASSERT(drop_named(stk, "NOMEM_RESERVE") > 0 &&
		  drop_named(stk, "NOMEM_RESERVE") != UINT64_MAX);
	st = stats(stk);
	/* each reply held, or dropped under exactly one reason */
	UT_EQ(st.mib[UST_MIB_ICMP_OUTECHOREPS],
	      n + ust_stats_drops(&st, UST_DROP_PATH_TX));
	/* an ARP request to us, at the reserve (the request's own mbuf, freed
	 * before the reply is built, is the RX's): no reply built */
	denied = mib_named(stk, "Eth.ReserveDenied");
	before = mib(stk, UST_MIB_ARP_OUTREPLIES);
	ne = 0;
	while (rte_mempool_avail_count(mp) > 256 && ne < RTE_DIM(extra))
		extra[ne++] = rte_pktmbuf_alloc(mp);
	inject(stk, arp_from(mp, RTE_ARP_OP_REQUEST, ip4(198, 18, 0, 251)),
	       3 * MS);
	UT_EQ(rte_mempool_avail_count(mp), 256);
	UT_EQ(nif.tx_n, 0);
	UT_EQ(mib(stk, UST_MIB_ARP_OUTREPLIES), before);
	UT_ASSERT(mib_named(stk, "Eth.ReserveDenied") > denied &&
		  denied != UINT64_MAX);
	/* the other owners give their mbufs back: replies again */
	rte_pktmbuf_free_bulk(hog, RTE_DIM(hog));
	rte_pktmbuf_free_bulk(extra, ne);
	inject(stk, arp_from(mp, RTE_ARP_OP_REQUEST, ip4(198, 18, 0, 252)),
	       4 * MS);
	UT_EQ(nif.tx_n, 1);
	UT_EQ(mib(stk, UST_MIB_ARP_OUTREPLIES), before + 1);
	n = teardown(stk, mp);
	rte_mempool_free(mp);
	return (int)n;
}

static void
tweak_slash16(struct ust_stack_conf *c)
{
	c->prefix_len = 16;
}

/* A random on-link sender in 198.18.16.0 - 198.18.255.255. */
static rte_be32_t
spoofed(uint64_t *seed)
{
	uint32_t r = (uint32_t)ut_rand(seed);

	return rte_cpu_to_be_32(UT_IPV4(198, 18, 16 + (r >> 8) % 240,
					1 + r % 254));
}

/*
 * 3000 ARP requests for our address from random senders fill the table
 * (256 entries) with entries learned and never used. A new peer resolves at
 * once after them, whether it asks first or we do; a peer our output uses
 * and an entry we are resolving survive the flood.
 */
static int
test_forced_eviction(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, tweak_slash16);
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = RTE_BE16(9) };
	rte_be32_t used_peer = ip4(198, 18, 0, 1);
	rte_be32_t resolving = ip4(198, 18, 0, 3);
	rte_be32_t new_peer = ip4(198, 18, 0, 4);
	rte_be32_t asking_peer = ip4(198, 18, 0, 5);
	struct rte_ether_addr mac;
	uint64_t seed = 42, t = 0;
	unsigned int i, echo = 0;
	int sd;

	UT_ASSERT(stk != NULL);
	sd = ust_socket(stk, AF_INET, SOCK_DGRAM, 0);
	UT_ASSERT(sd >= 0);
	/* a peer we talk to */
	inject(stk, arp_from(pool, RTE_ARP_OP_REQUEST, used_peer), t);
	to.sin_addr.s_addr = used_peer;
	UT_EQ(ust_sendto(stk, sd, "a", 1, 0, (struct sockaddr *)&to,
			 sizeof(to)), 1);
	/* an address we are resolving, a datagram waiting */
	to.sin_addr.s_addr = resolving;
	UT_EQ(ust_sendto(stk, sd, "b", 1, 0, (struct sockaddr *)&to,
			 sizeof(to)), 1);
	ust_stack_flush(stk);
	ut_tx_drain(&nif);
	for (i = 0; i < 3000; i++) {
		t += 100 * 1000; /* 10000 per second: 0.3 s */
		inject(stk, arp_from(pool, RTE_ARP_OP_REQUEST, spoofed(&seed)),
		       t);
		ut_tx_drain(&nif); /* each is answered */
	}
	UT_EQ(mib(stk, UST_MIB_ARP_INREQUESTS), 3001);
	UT_EQ(mib(stk, UST_MIB_ARP_OUTREPLIES), 3001);
	UT_EQ(mib(stk, UST_MIB_ARP_TABLEFULLS), 0);
	UT_EQ(ust_stack_arp_lookup(stk, used_peer, NULL), 0);
	/* a new peer asks: learned at once */
	inject(stk, arp_from(pool, RTE_ARP_OP_REQUEST, asking_peer), t + MS);
	UT_EQ(nif.tx_n, 1);
	ut_tx_drain(&nif);
	UT_EQ(ust_stack_arp_lookup(stk, asking_peer, &mac), 0);
	/* we send to a new peer: the request goes out at once, and its
	 * answer releases the datagram */
	to.sin_addr.s_addr = new_peer;
	UT_EQ(ust_sendto(stk, sd, "c", 1, 0, (struct sockaddr *)&to,
			 sizeof(to)), 1);
	ust_stack_flush(stk);
	UT_EQ(nif.tx_n, 1);
	ut_tx_drain(&nif);
	inject(stk, arp_from(pool, RTE_ARP_OP_REPLY, new_peer), t + 2 * MS);
	tx_count(&echo, NULL);
	UT_EQ(echo, 1);
	UT_EQ(ust_stack_arp_lookup(stk, new_peer, NULL), 0);
	/* the entry being resolved kept its datagram */
	inject(stk, arp_from(pool, RTE_ARP_OP_REPLY, resolving), t + 3 * MS);
	tx_count(&echo, NULL);
	UT_EQ(echo, 2);
	UT_EQ(mib(stk, UST_MIB_ARP_TABLEFULLS), 0);
	UT_EQ(drops(stk, UST_DROP_NEIGH_FAILED), 0);
	return teardown(stk, pool);
}

/*
 * An echo flood from 600 spoofed sources (more than the table holds) that
 * never answer ARP. INCOMPLETE entries take 3/4 of the table at most and
 * a new one evicts only one whose request went unanswered for retrans_ms:
 * at most 192 + 1 request per such eviction go out. During the flood a new
 * peer that ARPs us first is learned and answered at once; after it, a
 * peer we must resolve gets an entry as soon as the flood's are 1 s old.
 */
static int
test_incomplete_flood(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, tweak_slash16);
	rte_be32_t asking = ip4(198, 18, 0, 1), silent = ip4(198, 18, 0, 6);
	uint64_t seed = 7, t = 0;
	unsigned int i, arps = 0, echo = 0;
	struct ust_stats st;

	UT_ASSERT(stk != NULL);
	for (i = 0; i < 600; i++) {
		t += 2 * MS; /* 500 per second: 1.2 s */
		inject(stk, echo_from(pool, spoofed(&seed), 1), t);
		tx_count(NULL, &arps);
	}
	/* 192 in the first 0.384 s; from 1.002 s one per entry 1 s old */
	UT_ASSERT(arps <= 192 + 100 + 1, "%u requests", arps);
	UT_ASSERT(mib(stk, UST_MIB_ARP_TABLEFULLS) > 0);
	/* a new peer asks, then pings: answered at once */
	inject(stk, arp_from(pool, RTE_ARP_OP_REQUEST, asking), t + MS);
	UT_EQ(ust_stack_arp_lookup(stk, asking, NULL), 0);
	ut_tx_drain(&nif);
	inject(stk, echo_from(pool, asking, 1), t + 2 * MS);
	tx_count(&echo, &arps);
	UT_EQ(echo, 1);
	/* the flood is over; 1 s later a peer we must resolve ourselves */
	inject(stk, echo_from(pool, silent, 1), t + SEC);
	i = arps;
	tx_count(&echo, &arps);
	UT_EQ(arps, i + 1);
	inject(stk, arp_from(pool, RTE_ARP_OP_REPLY, silent), t + SEC + MS);
	tx_count(&echo, NULL);
	UT_EQ(echo, 2);
	st = stats(stk);
	UT_EQ(st.mib[UST_MIB_ICMP_OUTECHOREPS], 602);
	return teardown(stk, pool);
}

/*
 * A request for our address from outside our subnet is answered but not
 * learned (198.19.x while we are 198.18.0.2/24).
 */
static int
test_offsubnet_not_learned(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	rte_be32_t far = ip4(198, 19, 1, 1);
	struct ust_arp_repr a;
	struct rte_mbuf *m;

	UT_ASSERT(stk != NULL);
	inject(stk, arp_from(pool, RTE_ARP_OP_REQUEST, far), 0);
	UT_EQ(nif.tx_n, 1);
	m = ut_tx_pop(&nif);
	UT_EQ(ust_arp_parse(rte_pktmbuf_mtod_offset(m, void *, 14),
			    m->data_len - 14, &a), 0);
	UT_EQ(a.op, RTE_ARP_OP_REPLY);
	UT_EQ(a.tpa, far);
	rte_pktmbuf_free(m);
	UT_ASSERT(ust_stack_arp_lookup(stk, far, NULL) != 0);
	UT_EQ(mib(stk, UST_MIB_ARP_ALLOCS), 0);
	/* an on-link sender still is */
	inject(stk, arp_from(pool, RTE_ARP_OP_REQUEST, ip4(198, 18, 0, 1)), 0);
	UT_EQ(ust_stack_arp_lookup(stk, ip4(198, 18, 0, 1), NULL), 0);
	UT_EQ(mib(stk, UST_MIB_ARP_ALLOCS), 1);
	return teardown(stk, pool);
}

static const struct ut_case cases[] = {
	{ "pending_total_bound", test_pending_total_bound },
	{ "reserve", test_reserve },
	{ "forced_eviction", test_forced_eviction },
	{ "incomplete_flood", test_incomplete_flood },
	{ "offsubnet_not_learned", test_offsubnet_not_learned },
};

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	if (ut_eal_init(argv[0], "0") != 0)
		return 1;
	pool = ut_pool("ut_neigh", 4096);
	if (pool == NULL)
		return 1;
	ut_netif_init(&nif, 0);
	return UT_RUN(cases);
}
