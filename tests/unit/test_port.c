/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * The port layer's RSS, queues and profiles on real ethdev ports in one
 * process: net_null vdevs (created with rte_vdev_init(); the PMD keeps the
 * RSS key and redirection table it is given and reads them back, without
 * hashing anything) and net_ring ports of one queue (rte_eth_from_rings).
 *
 *  - more than one queue: the symmetric key (0x6d 0x5a repeated) and the
 *    redirection table i -> i % nb_queues are what ust_port_rss() reads
 *    back; kind UST_RSS_NONE all the same, net_null does not hash;
 *  - rss_sym_key off keeps the PMD's own key;
 *  - one queue: no RSS;
 *  - per-queue pools: queue i's mbufs come from rx_pools[i];
 *  - more queues than the device has, or than UST_PORT_MAX_QUEUES, are
 *    refused with a log line naming the fix;
 *  - ust_port_numa_check() and ust_port_rss()'s bad arguments;
 *  - every profile and its RSS property.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_bus_vdev.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "ust_netif.h"
#include "ust_port.h"
#include "ut.h"

static struct rte_mempool *pool;
static struct rte_mempool *pool2;

/* byte @p i of the symmetric Toeplitz key */
static uint8_t
sym_key_byte(unsigned int i)
{
	return (i & 1) == 0 ? 0x6d : 0x5a;
}

/* a net_null port named @p name, or -1 */
static int
null_port(const char *name)
{
	uint16_t port;

	if (rte_vdev_init(name, NULL) != 0)
		return -1;
	if (rte_eth_dev_get_port_by_name(name, &port) != 0)
		return -1;
	return port;
}

static void
null_close(const char *name, uint16_t port)
{
	ust_port_close(port);
	rte_vdev_uninit(name);
}

/* ust_port_setup() with the log going to a buffer: the log text in @p log
 * (NUL-terminated, truncated to @p n) */
static int
setup_logged(const struct ust_port_conf *pc, struct ust_port_info *pi,
	     char *log, size_t n)
{
	FILE *old = rte_log_get_stream();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc;

	if (f == NULL)
		return -ENOMEM;
	rte_openlog_stream(f);
	rc = ust_port_setup(pc, pi);
	fflush(f);
	rte_openlog_stream(old);
	fclose(f);
	snprintf(log, n, "%s", buf != NULL ? buf : "");
	free(buf);
	return rc;
}

static int
test_rss_symmetric(void)
{
	static const uint16_t counts[] = { 2, 3, 4 };
	unsigned int start = rte_mempool_in_use_count(pool);
	unsigned int c;

	for (c = 0; c < RTE_DIM(counts); c++) {
		struct rte_eth_dev_info di;
		struct ust_port_conf pc;
		struct ust_port_info pi;
		struct ust_rss rss;
		unsigned int i;
		int port = null_port("net_null0");

		UT_ASSERT(port >= 0);
		ust_port_conf_defaults(&pc);
		UT_ASSERT(pc.rss_sym_key);
		pc.port_id = (uint16_t)port;
		pc.nb_queues = counts[c];
		pc.pool = pool;
		UT_EQ(ust_port_setup(&pc, &pi), 0);
		UT_ASSERT(strcmp(pi.profile, "null") == 0, "%s", pi.profile);
		UT_ASSERT(strcmp(pi.rss_mode, "none") == 0, "%s", pi.rss_mode);
		UT_ASSERT(pi.rss_on);
		UT_EQ(pi.nb_queues, counts[c]);
		/* IPv4 hash types only, all of them: net_null offers all */
		UT_EQ(pi.rss_hf, RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_FRAG_IPV4 |
		      RTE_ETH_RSS_NONFRAG_IPV4_TCP |
		      RTE_ETH_RSS_NONFRAG_IPV4_UDP |
		      RTE_ETH_RSS_NONFRAG_IPV4_OTHER);
		UT_EQ(rte_eth_dev_info_get((uint16_t)port, &di), 0);

		UT_EQ(ust_port_rss((uint16_t)port, &rss), 0);
		UT_EQ(rss.nb_queues, counts[c]);
		UT_EQ(rss.key_len, di.hash_key_size != 0 ?
		      di.hash_key_size : 40);
		for (i = 0; i < rss.key_len; i++)
			UT_EQ(rss.key[i], sym_key_byte(i));
		UT_EQ(rss.hf, pi.rss_hf);
		UT_ASSERT(di.reta_size > 0);
		UT_EQ(rss.reta_size, di.reta_size);
		for (i = 0; i < rss.reta_size; i++)
			UT_EQ(rss.reta[i], i % counts[c]);
		/* net_null keeps the key and table but hashes nothing */
		UT_EQ(rss.kind, UST_RSS_NONE);
		null_close("net_null0", (uint16_t)port);
	}
	UT_EQ(rte_mempool_in_use_count(pool), start);
	return 0;
}

static int
test_rss_pmd_key(void)
{
	struct ust_port_conf pc;
	struct ust_port_info pi;
	struct ust_rss rss;
	unsigned int i, sym = 0;
	int port = null_port("net_null1");

	UT_ASSERT(port >= 0);
	ust_port_conf_defaults(&pc);
	pc.port_id = (uint16_t)port;
	pc.nb_queues = 2;
	pc.pool = pool;
	pc.rss_sym_key = false;
	UT_EQ(ust_port_setup(&pc, &pi), 0);
	UT_ASSERT(pi.rss_on);
	UT_EQ(ust_port_rss((uint16_t)port, &rss), 0);
	UT_ASSERT(rss.key_len > 0);
	for (i = 0; i < rss.key_len; i++)
		if (rss.key[i] == sym_key_byte(i))
			sym++;
	/* the PMD's default key (Microsoft's) starts 6d 5a 56 da */
	UT_ASSERT(sym < rss.key_len, "the PMD's key was replaced");
	for (i = 0; i < rss.reta_size; i++)
		UT_EQ(rss.reta[i], i % 2);
	null_close("net_null1", (uint16_t)port);
	return 0;
}

static int
test_one_queue(void)
{
	struct ust_port_conf pc;
	struct ust_port_info pi;
	struct ust_rss rss;
	int port = null_port("net_null2");

	UT_ASSERT(port >= 0);
	ust_port_conf_defaults(&pc);
	pc.port_id = (uint16_t)port;
	pc.pool = pool;
	UT_EQ(ust_port_setup(&pc, &pi), 0);
	UT_ASSERT(!pi.rss_on);
	UT_EQ(pi.rss_hf, 0);
	UT_EQ(ust_port_rss((uint16_t)port, &rss), 0);
	UT_EQ(rss.nb_queues, 1);
	UT_EQ(rss.kind, UST_RSS_NONE);
	null_close("net_null2", (uint16_t)port);
	return 0;
}

/* queue i's mbufs come from rx_pools[i], the others from pool */
static int
test_rx_pools(void)
{
	unsigned int start = rte_mempool_in_use_count(pool);
	unsigned int start2 = rte_mempool_in_use_count(pool2);
	struct ust_port_conf pc;
	struct ust_port_info pi;
	uint16_t q;
	int port = null_port("net_null3");

	UT_ASSERT(port >= 0);
	ust_port_conf_defaults(&pc);
	pc.port_id = (uint16_t)port;
	pc.nb_queues = 3;
	pc.pool = pool;
	pc.rx_pools[1] = pool2;
	UT_EQ(ust_port_setup(&pc, &pi), 0);
	for (q = 0; q < pc.nb_queues; q++) {
		struct rte_mbuf *m[8];
		struct ust_netif nif;
		uint16_t n, i;

		UT_EQ(ust_port_netif((uint16_t)port, q, &pi, &nif), 0);
		n = nif.ops->rx_burst(nif.ctx, m, RTE_DIM(m));
		UT_ASSERT(n > 0);
		for (i = 0; i < n; i++) {
			UT_ASSERT(m[i]->pool == (q == 1 ? pool2 : pool),
				  "queue %u mbuf from %s", q, m[i]->pool->name);
			rte_pktmbuf_free(m[i]);
		}
	}
	null_close("net_null3", (uint16_t)port);

	/* no shared pool: every queue has its own */
	port = null_port("net_null4");
	UT_ASSERT(port >= 0);
	ust_port_conf_defaults(&pc);
	pc.port_id = (uint16_t)port;
	pc.nb_queues = 2;
	pc.rx_pools[0] = pool2;
	UT_EQ(ust_port_setup(&pc, &pi), -EINVAL);
	pc.rx_pools[1] = pool;
	UT_EQ(ust_port_setup(&pc, &pi), 0);
	null_close("net_null4", (uint16_t)port);
	UT_EQ(rte_mempool_in_use_count(pool), start);
	UT_EQ(rte_mempool_in_use_count(pool2), start2);
	return 0;
}

static int
test_too_many_queues(void)
{
	struct rte_ring *r = rte_ring_create("ut_port_r", 256, 0,
					     RING_F_SP_ENQ | RING_F_SC_DEQ);
	struct ust_port_conf pc;
	struct ust_port_info pi;
	char log[1024];
	int port;

	UT_ASSERT(r != NULL);
	port = rte_eth_from_rings("ut_port_ring", &r, 1, &r, 1, 0);
	UT_ASSERT(port >= 0);
	ust_port_conf_defaults(&pc);
	pc.port_id = (uint16_t)port;
	pc.pool = pool;
	pc.nb_queues = 2;
	UT_EQ(setup_logged(&pc, &pi, log, sizeof(log)), -EINVAL);
	UT_ASSERT(strstr(log, "give fewer lcores or more queues") != NULL,
		  "log: %s", log);
	UT_ASSERT(strcmp(pi.profile, "ring") == 0);
	pc.nb_queues = 1;
	UT_EQ(ust_port_setup(&pc, &pi), 0);
	UT_ASSERT(!pi.rss_on);
	ust_port_close((uint16_t)port);
	rte_ring_free(r);

	/* net_null has more queues than ustack takes */
	port = null_port("net_null5");
	UT_ASSERT(port >= 0);
	ust_port_conf_defaults(&pc);
	pc.port_id = (uint16_t)port;
	pc.pool = pool;
	pc.nb_queues = UST_PORT_MAX_QUEUES + 1;
	UT_EQ(setup_logged(&pc, &pi, log, sizeof(log)), -EINVAL);
	UT_ASSERT(strstr(log, "give fewer lcores or more queues") != NULL,
		  "log: %s", log);
	null_close("net_null5", (uint16_t)port);

	ust_port_conf_defaults(&pc);
	pc.port_id = RTE_MAX_ETHPORTS - 1;
	pc.pool = pool;
	UT_EQ(ust_port_setup(&pc, &pi), -ENODEV);
	return 0;
}

static int
test_bad_args(void)
{
	unsigned int lc[2] = { rte_lcore_id(), RTE_MAX_LCORE };
	struct ust_rss rss;
	int port;

	UT_EQ(ust_port_rss(RTE_MAX_ETHPORTS - 1, &rss), -ENODEV);
	UT_EQ(rss.kind, UST_RSS_NONE);
	UT_EQ(ust_port_numa_check(RTE_MAX_ETHPORTS - 1, lc, 1), -ENODEV);

	port = null_port("net_null6");
	UT_ASSERT(port >= 0);
	UT_EQ(ust_port_rss((uint16_t)port, NULL), -EINVAL);
	/* the null port is on the main lcore's node */
	UT_EQ(ust_port_numa_check((uint16_t)port, lc, 1), 0);
	UT_EQ(ust_port_numa_check((uint16_t)port, NULL, 0), 0);
	UT_EQ(ust_port_numa_check((uint16_t)port, NULL, 1), -EINVAL);
	UT_EQ(ust_port_numa_check((uint16_t)port, lc, 2), -EINVAL);
	rte_vdev_uninit("net_null6");
	return 0;
}

static int
test_profiles(void)
{
	static const struct {
		const char *driver;
		const char *profile;
		const char *rss;
	} t[] = {
		{ "mlx5_pci", "mlx5", "toeplitz" },
		{ "net_mlx5", "mlx5", "toeplitz" },
		{ "net_tap", "tap", "kernel" },
		{ "net_memif", "memif", "none" },
		{ "net_ring", "ring", "none" },
		{ "net_af_packet", "af_packet", "kernel" },
		{ "net_null", "null", "none" },
		{ "net_e1000_em", "e1000", "none" },
		{ "net_e1000_igb", "e1000", "toeplitz" },
		{ "net_e1000_igb_vf", "e1000", "toeplitz" },
		{ "net_ixgbe", "ixgbe", "toeplitz" },
		{ "net_ixgbe_vf", "ixgbe", "toeplitz" },
		{ "net_i40e", "i40e", "toeplitz" },
		{ "net_i40e_vf", "i40e", "toeplitz" },
		{ "net_ice", "ice", "toeplitz" },
		{ "net_ice_dcf", "ice", "toeplitz" },
		{ "net_virtio", "virtio", "toeplitz" },
		{ "net_virtio_user", "virtio", "toeplitz" },
		{ "net_bnxt", "generic", "generic" },
		{ NULL, "generic", "generic" },
	};
	unsigned int i;

	for (i = 0; i < RTE_DIM(t); i++) {
		UT_ASSERT(strcmp(ust_port_profile(t[i].driver),
				 t[i].profile) == 0, "%s: %s", t[i].driver,
			  ust_port_profile(t[i].driver));
		UT_ASSERT(strcmp(ust_port_profile_rss(t[i].driver),
				 t[i].rss) == 0, "%s: %s", t[i].driver,
			  ust_port_profile_rss(t[i].driver));
	}
	return 0;
}

static const struct ut_case cases[] = {
	{ "rss_symmetric", test_rss_symmetric },
	{ "rss_pmd_key", test_rss_pmd_key },
	{ "one_queue", test_one_queue },
	{ "rx_pools", test_rx_pools },
	{ "too_many_queues", test_too_many_queues },
	{ "bad_args", test_bad_args },
	{ "profiles", test_profiles },
};

int
main(int argc, char **argv)
{
	int rc;

	(void)argc;
	if (ut_eal_init(argv[0], "0") != 0)
		return 1;
	pool = ut_pool("ut_port", 4095);
	pool2 = ut_pool("ut_port2", 1023);
	if (pool == NULL || pool2 == NULL)
		return 1;
	rc = UT_RUN(cases);
	if (ut_leak_check(pool) != 0 || ut_leak_check(pool2) != 0)
		rc = 1;
	rte_eal_cleanup();
	return rc;
}
