/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Bring-up and teardown of the apps' environment, from a struct
 * ust_config: an mbuf pool per NUMA node of the lcores, the port with one
 * queue pair per stack (RSS over them), an optional fault stage in front
 * of each queue, and the stacks (a struct ust_group: stack i on queue i
 * and lcore i, the main lcore first, then the workers of -l in order),
 * and the capture server for dpdk-dumpcap (rte_pdump).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_pdump.h>

#include "app_common.h"

void
app_env_nb_cores(struct app_env *env, const char *arg)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno != 0 || end == arg || *end != '\0' || v < 1 ||
	    v > UST_GROUP_MAX)
		app_usage_error(env->prog, "--nb-cores %s: a number of "
				"stacks from 1 to %u", arg, UST_GROUP_MAX);
	env->cfg.port.nb_queues = (uint16_t)v;
}

/* stack i's lcore: the main lcore, then the EAL's workers in order */
static void
env_lcores(struct app_env *env)
{
	unsigned int lc = rte_get_main_lcore(), i;

	if (env->nb_stacks > rte_lcore_count())
		app_usage_error(env->prog, "%u stacks (--nb-cores or [port] "
				"queues) need %u lcores: the EAL lcore list "
				"(-l) has %u", env->nb_stacks, env->nb_stacks,
				rte_lcore_count());
	env->lcores[0] = lc;
	for (i = 1; i < env->nb_stacks; i++) {
		lc = rte_get_next_lcore(i == 1 ? (unsigned int)-1 : lc, 1, 0);
		env->lcores[i] = lc;
	}
}

/* a pool on NUMA node @sock (made on first use) */
static struct rte_mempool *
env_pool(struct app_env *env, int sock)
{
	struct ust_config *c = &env->cfg;
	char name[RTE_MEMPOOL_NAMESIZE];
	unsigned int slot = sock < 0 ? 0 : (unsigned int)sock;

	if (slot >= RTE_MAX_NUMA_NODES)
		slot = 0;
	if (env->pools[slot] != NULL)
		return env->pools[slot];
	snprintf(name, sizeof(name), "ust_pool_p%u_s%u", c->port.port_id,
		 slot);
	env->pools[slot] = rte_pktmbuf_pool_create(name, c->pool.mbufs,
						   c->pool.cache, 0,
						   c->pool.data_room, sock);
	if (env->pools[slot] == NULL)
		app_usage_error(env->prog, "cannot create a pool of %u mbufs "
				"on NUMA node %d: %s (more hugepages, or a "
				"smaller [pool] mbufs)", c->pool.mbufs, sock,
				rte_strerror(rte_errno));
	return env->pools[slot];
}

void
app_env_up(struct app_env *env)
{
	struct ust_config *c = &env->cfg;
	struct ust_group_conf gc;
	int rc;
	uint32_t i, q;

	if (rte_eth_dev_count_avail() == 0)
		app_usage_error(env->prog, "no ethdev port: give a device "
				"before \"--\" (e.g. --vdev=net_tap0 or -a "
				"PCI_ADDRESS)");
	if (!rte_eth_dev_is_valid_port(c->port.port_id))
		app_usage_error(env->prog, "--port-id %u: no such ethdev port "
				"(%u available)", c->port.port_id,
				rte_eth_dev_count_avail());
	env->nb_stacks = c->port.nb_queues;
	env_lcores(env);
	ust_port_numa_check(c->port.port_id, env->lcores, env->nb_stacks);
	/* each queue's buffers on its lcore's node */
	for (q = 0; q < env->nb_stacks; q++)
		c->port.rx_pools[q] = env_pool(env,
			(int)rte_lcore_to_socket_id(env->lcores[q]));
	env->pool = c->port.rx_pools[0];
	c->port.pool = env->pool;
	rc = ust_port_setup(&c->port, &env->port);
	if (rc != 0)
		app_usage_error(env->prog, "port %u: setup of %u queue pairs "
				"failed: %s%s", c->port.port_id,
				c->port.nb_queues, rte_strerror(-rc),
				c->port.nb_queues > 1 ? " (fewer --nb-cores, "
				"or a device with more queues)" : "");
	ust_group_conf_defaults(&gc);
	gc.name = "ust";
	gc.nb_stacks = env->nb_stacks;
	gc.stack = c->stack;
	gc.stack.pool = env->pool;
	gc.stack.now_ns = ust_clock_ns();
	/* the reserve RX needs: a ring refill and a burst, per queue */
	if (gc.stack.pool_reserve == 0)
		gc.stack.pool_reserve = (uint32_t)env->port.rx_desc *
			env->port.nb_queues + gc.stack.rx_burst;
	if (ust_port_rss(c->port.port_id, &gc.rss) != 0)
		gc.rss.kind = UST_RSS_NONE;
	env->rss = gc.rss;
	if (env->pcap_path != NULL) {
		env->pcap = ust_capture_open(env->pcap_path, 0);
		if (env->pcap == NULL)
			app_usage_error(env->prog, "--pcap %s: %s",
					env->pcap_path,
					rte_strerror(rte_errno));
	}
	for (i = 0; i < env->nb_stacks; i++) {
		gc.lcores[i] = env->lcores[i];
		gc.pools[i] = c->port.rx_pools[i];
		if (ust_port_netif(c->port.port_id, (uint16_t)i, &env->port,
				   &gc.netifs[i]) != 0)
			app_usage_error(env->prog, "port %u: no queue %u",
					c->port.port_id, i);
		/* the capture sees the wire: the port's frames, before the
		 * fault stage acts on them */
		if (env->pcap != NULL) {
			env->captures[i] = ust_capture_create(env->pcap,
							      &gc.netifs[i]);
			if (env->captures[i] == NULL)
				app_usage_error(env->prog, "--pcap: %s",
						rte_strerror(rte_errno));
			ust_capture_netif(env->captures[i], &gc.netifs[i]);
		}
		if (env->fault_spec != NULL) {
			struct ust_fault_conf fc;
			char err[160];

			ust_fault_conf_defaults(&fc);
			if (ust_fault_parse(env->fault_spec, &fc, err,
					    sizeof(err)) != 0)
				app_usage_error(env->prog, "--fault: %s", err);
			fc.seed += i;
			env->faults[i] = ust_fault_create(&fc, &gc.netifs[i],
							  gc.pools[i]);
			if (env->faults[i] == NULL)
				app_usage_error(env->prog, "--fault: cannot "
						"create the stage: %s",
						rte_strerror(rte_errno));
			ust_fault_netif(env->faults[i], &gc.netifs[i]);
		}
	}
	env->fault = env->faults[0];
	env->grp = ust_group_create(&gc);
	if (env->grp == NULL)
		app_usage_error(env->prog, "cannot create the stacks: %s",
				rte_strerror(rte_errno));
	for (i = 0; i < env->nb_stacks; i++) {
		struct ust_stack *stk = ust_group_stack(env->grp,
							(uint16_t)i);
		uint32_t k;

		env->stks[i] = stk;
		for (k = 0; k < c->n_static_arp; k++)
			if (ust_stack_arp_add_static(stk, c->static_arp[k].ip,
						     &c->static_arp[k].mac) != 0)
				app_usage_error(env->prog, "[arp] static: "
						"entry %u refused", k + 1);
	}
	env->stk = env->stks[0];
	env->mbuf_in_use_start = app_env_in_use(env);
	/* dpdk-dumpcap and dpdk-pdump are secondary processes: serve their
	 * capture requests (frames copied into their own pool, never
	 * ours); without hugepages none can attach (nor dpdk-proc-info or
	 * dpdk-telemetry's process info), which an operator is told */
	if (!rte_eal_has_hugepages())
		fprintf(stderr, "%s: warning: no hugepages (--no-huge): no "
			"secondary process (dpdk-dumpcap, dpdk-proc-info) can "
			"attach\n", env->prog);
	else if (rte_pdump_init() != 0)
		fprintf(stderr, "%s: warning: capture unavailable: "
			"rte_pdump_init: %s\n", env->prog,
			rte_strerror(rte_errno));
	else
		env->pdump = true;
}

unsigned int
app_env_in_use(const struct app_env *env)
{
	unsigned int i, n = 0;

	for (i = 0; i < RTE_MAX_NUMA_NODES; i++)
		if (env->pools[i] != NULL)
			n += rte_mempool_in_use_count(env->pools[i]);
	return n;
}

void
app_env_down(struct app_env *env)
{
	unsigned int i;

	if (env->pdump) {
		rte_pdump_uninit();
		env->pdump = false;
	}
	ust_group_destroy(env->grp);
	env->grp = NULL;
	env->stk = NULL;
	memset(env->stks, 0, sizeof(env->stks));
	/* the frames the stages hold back go back to the pool */
	for (i = 0; i < UST_GROUP_MAX; i++) {
		ust_fault_free(env->faults[i]);
		env->faults[i] = NULL;
	}
	env->fault = NULL;
	for (i = 0; i < UST_GROUP_MAX; i++) {
		ust_capture_free(env->captures[i]);
		env->captures[i] = NULL;
	}
	ust_capture_close(env->pcap);
	env->pcap = NULL;
	ust_port_tx_cleanup(env->cfg.port.port_id, env->port.nb_queues);
	env->mbuf_in_use_end = app_env_in_use(env);
}
