/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Two stack instances in one process over a pair of net_ring ethdev ports
 * (rte_eth_from_rings, crossed): real ethdev ports brought up by the port
 * layer, ARP between the stacks, and UDP echo of datagrams of random
 * sizes, byte-exact, with no mbuf leaked at the end.
 */

#include <errno.h>

#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_ring.h>

#include "ust_port.h"
#include "ust_socket.h"
#include "ust_stack.h"
#include "ust_tcp_tx.h"
#include "ut.h"

#define A_IP RTE_BE32(UT_IPV4(198, 18, 2, 1))
#define B_IP RTE_BE32(UT_IPV4(198, 18, 2, 2))

static struct rte_mempool *pool;

static struct ust_stack *
stack_on(const char *name, struct rte_ring *rx, struct rte_ring *tx,
	 rte_be32_t addr)
{
	struct ust_port_conf pc;
	struct ust_port_info pi;
	struct ust_stack_conf sc;
	int port = rte_eth_from_rings(name, &rx, 1, &tx, 1, 0);

	if (port < 0)
		return NULL;
	ust_port_conf_defaults(&pc);
	pc.port_id = (uint16_t)port;
	pc.pool = pool;
	if (ust_port_setup(&pc, &pi) != 0)
		return NULL;
	ust_stack_conf_defaults(&sc);
	sc.name = name;
	sc.pool = pool;
	sc.addr = addr;
	sc.prefix_len = 24;
	if (ust_port_netif((uint16_t)port, 0, &pi, &sc.netif) != 0)
		return NULL;
	return ust_stack_create(&sc);
}

static int
test_ring_echo(void)
{
	struct rte_ring *r1 = rte_ring_create("ut_r1", 1024, 0,
					      RING_F_SP_ENQ | RING_F_SC_DEQ);
	struct rte_ring *r2 = rte_ring_create("ut_r2", 1024, 0,
					      RING_F_SP_ENQ | RING_F_SC_DEQ);
	struct ust_stack *a, *b;
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = RTE_BE16(7) };
	unsigned int start_in_use, i;
	uint64_t seed = 7, now = 0;
	int sa, sb;

	UT_ASSERT(r1 != NULL && r2 != NULL);
	start_in_use = rte_mempool_in_use_count(pool);
	a = stack_on("ringA", r1, r2, A_IP);
	b = stack_on("ringB", r2, r1, B_IP);
	UT_ASSERT(a != NULL && b != NULL);
	sb = ust_socket(b, AF_INET, SOCK_DGRAM, 0);
	UT_EQ(ust_bind(b, sb, (struct sockaddr *)&sin, sizeof(sin)), 0);
	sa = ust_socket(a, AF_INET, SOCK_DGRAM, 0);
	sin.sin_addr.s_addr = B_IP;
	UT_EQ(ust_connect(a, sa, (struct sockaddr *)&sin, sizeof(sin)), 0);
	for (i = 0; i < 2000; i++) {
		uint8_t out[1472], in[1500];
		size_t len = 1 + ut_rand(&seed) % sizeof(out), k;
		ssize_t got = -EAGAIN;
		int spins;

		for (k = 0; k < len; k++)
			out[k] = (uint8_t)ut_rand(&seed);
		UT_EQ(ust_send(a, sa, out, len, 0), (ssize_t)len);
		for (spins = 0; spins < 100 && got == -EAGAIN; spins++) {
			struct rte_mbuf *pk[8];
			union ust_sockaddr from[8];
			int n;

			now += 1000;
			ust_stack_poll(a, now);
			ust_stack_poll(b, now);
			n = ust_recv_burst(b, sb, pk, 8, from);
			if (n > 0)
				UT_EQ(ust_send_burst(b, sb, pk, (unsigned int)n,
						     from), n);
			ust_stack_poll(b, now);
			ust_stack_poll(a, now);
			got = ust_recv(a, sa, in, sizeof(in), 0);
		}
		UT_ASSERT(got == (ssize_t)len, "datagram %u: got %zd of %zu", i, got, len);
		UT_EQ(memcmp(in, out, len), 0);
	}
	{
		struct ust_stats st;

		ust_stack_stats_get(a, &st);
		UT_EQ(st.mib[UST_MIB_UDP_INDATAGRAMS], 2000);
		UT_EQ(st.mib[UST_MIB_ARP_INREPLIES], 1);
		UT_EQ(ust_stats_drops(&st, UST_DROP_PATH_RX), 0);
		ust_stack_stats_get(b, &st);
		UT_EQ(st.mib[UST_MIB_UDP_OUTDATAGRAMS], 2000);
		UT_EQ(st.mib[UST_MIB_ARP_INREQUESTS], 1);
	}
	{
		/* a vdev port maps nothing for DMA (its rte_dev_dma_map()
		 * returns success doing nothing): the port layer has no
		 * mapper for it, and the stack, which has none of its own,
		 * refuses zero copy */
		static uint8_t area[2 * 4096] __rte_aligned(4096);
		struct ust_dma_mapper dm;
		unsigned int ports = 0;
		uint16_t pid;
		char why[128];

		RTE_ETH_FOREACH_DEV(pid) {
			UT_EQ(ust_port_dma_mapper(pid, &dm, why, sizeof(why)),
			      -ENOTSUP);
			UT_ASSERT(strstr(why, "net_ring is on the vdev bus, "
					 "which maps nothing for DMA") != NULL,
				  "%s", why);
			ports++;
		}
		UT_EQ(ports, 2);
		UT_EQ(ust_port_dma_mapper(RTE_MAX_ETHPORTS, &dm, why,
					  sizeof(why)), -ENOTSUP);
		UT_ASSERT(strstr(why, "no ethdev port") != NULL, "%s", why);
		UT_EQ(ust_zc_check(a, why, sizeof(why)), -ENOTSUP);
		UT_ASSERT(strstr(why, "no DMA mapper installed") != NULL,
			  "%s", why);
		UT_EQ(ust_zc_register(a, area, sizeof(area), 4096,
				      UST_ZC_MAP_PER_SEND), -ENOTSUP);
	}
	ust_stack_destroy(a);
	ust_stack_destroy(b);
	UT_EQ(rte_mempool_in_use_count(pool), start_in_use);
	return 0;
}

static const struct ut_case cases[] = {
	{ "ring_echo", test_ring_echo },
};

int
main(int argc, char **argv)
{
	(void)argc;
	if (ut_eal_init(argv[0], "0") != 0)
		return 1;
	pool = ut_pool("ut_ring", 4096);
	if (pool == NULL)
		return 1;
	return UT_RUN(cases);
}
