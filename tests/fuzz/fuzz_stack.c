/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * libFuzzer target for the whole receive path, as smoltcp fuzzes its
 * interface: the input is a sequence of frames (2-byte length, then bytes)
 * fed to a stack instance through ust_stack_input(), with a UDP socket on
 * port 7 that echoes what it gets. After every input: every frame consumed
 * or dropped with exactly one reason, the accounting of the socket
 * consistent, and (at exit) no mbuf leaked.
 */

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_mbuf.h>

#include "ust_socket.h"
#include "ust_stack.h"
#include "ut.h"
#include "ut_netif.h"

static struct rte_mempool *pool;
static struct ut_netif nif;
static struct ust_stack *stk;
static int sd;
static uint64_t clock_ns;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = RTE_BE16(7) };

	(void)argc;
	if (ut_eal_init((*argv)[0], "0") != 0)
		abort();
	pool = ut_pool("fuzz", 4096);
	ut_netif_init(&nif, 0);
	stk = ut_stack_create(&nif, pool, NULL);
	if (pool == NULL || stk == NULL)
		abort();
	sd = ust_socket(stk, AF_INET, SOCK_DGRAM, 0);
	if (ust_bind(stk, sd, (struct sockaddr *)&sin, sizeof(sin)) != 0)
		abort();
	ust_stack_arp_add_static(stk, UT_PEER_IP, &ut_peer_mac);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rte_mbuf *pk[32];
	struct sockaddr_in from[32];
	struct ust_sock_meminfo mi;
	socklen_t ml = sizeof(mi);
	struct ust_stats st;
	size_t off = 0;
	int n, i;

	while (off + 2 <= size) {
		size_t len = (size_t)data[off] | ((size_t)data[off + 1] << 8);
		struct rte_mbuf *m;
		char *p;

		off += 2;
		if (len > size - off)
			len = size - off;
		if (len > 2000)
			len = 2000;
		m = rte_pktmbuf_alloc(pool);
		assert(m != NULL);
		p = rte_pktmbuf_append(m, (uint16_t)len);
		assert(p != NULL || len == 0);
		if (len > 0)
			memcpy(p, data + off, len);
		off += len;
		/* the fuzzer also picks the NIC's checksum verdicts */
		if (len > 0)
			m->ol_flags = (uint64_t)(data[off - 1] & 0x3) << 7 |
				      (uint64_t)(data[off - 1] >> 2 & 0x3) << 3;
		clock_ns += 1000000;
		ust_stack_input(stk, &m, 1, clock_ns);
	}
	ust_stack_timers(stk, clock_ns);
	n = ust_recv_burst(stk, sd, pk, 32, from);
	if (n > 0) {
		int s = ust_send_burst(stk, sd, pk, (unsigned int)n, from);

		for (i = s < 0 ? 0 : s; i < n; i++)
			rte_pktmbuf_free(pk[i]);
	}
	ust_stack_flush(stk);
	ut_tx_drain(&nif);
	ust_stack_stats_get(stk, &st);
	assert(st.mib[UST_MIB_ETH_INFRAMES] ==
	       st.rx_consumed + ust_stats_drops(&st, UST_DROP_PATH_RX));
	assert(ust_getsockopt(stk, sd, UST_SOL_USTACK, UST_SO_MEMINFO, &mi,
			      &ml) == 0);
	assert(mi.rmem_alloc == mi.queued_truesize + mi.forward_deficit);
	assert(ust_mem_pool_pages(ust_stack_udp_mem(stk)) * 4096 ==
	       (int64_t)mi.forward_alloc + mi.rmem_alloc);
	return 0;
}
