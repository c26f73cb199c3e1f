/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * The environment (ust_env.h): bring-up in the order each piece needs the
 * one before (pools on the lcores' nodes, the port on them, the stages on
 * the port's queues, the stacks on the stages), teardown in reverse, and
 * the per-lcore loop. Errors are returned with a one-line reason, never
 * exit: the apps turn them into their exit status 2.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_pdump.h>

#include "ust_env.h"

static int __attribute__((format(printf, 3, 4)))
env_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* stack i's lcore: the main lcore, then the EAL's workers in order */
static int
env_lcores(struct ust_env *env, char *err, size_t errlen)
{
	unsigned int lc = rte_get_main_lcore(), i;

	if (env->nb_stacks > rte_lcore_count())
		return env_err(err, errlen, "%u stacks (--nb-cores or [port] "
			       "queues) need %u lcores: the EAL lcore list "
			       "(-l) has %u", env->nb_stacks, env->nb_stacks,
			       rte_lcore_count());
	env->lcores[0] = lc;
	for (i = 1; i < env->nb_stacks; i++) {
		lc = rte_get_next_lcore(i == 1 ? (unsigned int)-1 : lc, 1, 0);
		env->lcores[i] = lc;
	}
	return 0;
}

/* a pool on NUMA node @sock (made on first use) */
static struct rte_mempool *
env_pool(struct ust_env *env, int sock, char *err, size_t errlen)
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
		env_err(err, errlen, "cannot create a pool of %u mbufs on NUMA "
			"node %d: %s (more hugepages, or a smaller [pool] "
			"mbufs)", c->pool.mbufs, sock,
			rte_strerror(rte_errno));
	return env->pools[slot];
}

static void
env_free_pools(struct ust_env *env)
{
	unsigned int i;

	for (i = 0; i < RTE_MAX_NUMA_NODES; i++) {
		rte_mempool_free(env->pools[i]);
		env->pools[i] = NULL;
	}
	env->pool = NULL;
}

/* the stages and the queues' netifs, stack i's in @gc */
static int
env_stages(struct ust_env *env, struct ust_group_conf *gc, char *err,
	   size_t errlen)
{
	struct ust_config *c = &env->cfg;
	uint32_t i;

	if (env->pcap_path != NULL) {
		env->pcap = ust_capture_open(env->pcap_path, 0);
		if (env->pcap == NULL)
			return env_err(err, errlen, "--pcap %s: %s",
				       env->pcap_path,
				       rte_strerror(rte_errno));
	}
	for (i = 0; i < env->nb_stacks; i++) {
		gc->lcores[i] = env->lcores[i];
		gc->pools[i] = c->port.rx_pools[i];
		if (ust_port_netif(c->port.port_id, (uint16_t)i, &env->port,
				   &gc->netifs[i]) != 0)
			return env_err(err, errlen, "port %u: no queue %u",
				       c->port.port_id, i);
		/* the capture sees the wire: the port's frames, before the
		 * fault stage acts on them */
		if (env->pcap != NULL) {
			env->captures[i] = ust_capture_create(env->pcap,
							      &gc->netifs[i]);
			if (env->captures[i] == NULL)
				return env_err(err, errlen, "--pcap: %s",
					       rte_strerror(rte_errno));
			ust_capture_netif(env->captures[i], &gc->netifs[i]);
		}
		if (env->fault_spec != NULL) {
			struct ust_fault_conf fc;
			char why[160];

			ust_fault_conf_defaults(&fc);
			if (ust_fault_parse(env->fault_spec, &fc, why,
					    sizeof(why)) != 0)
				return env_err(err, errlen, "--fault: %s",
					       why);
			fc.seed += i;
			env->faults[i] = ust_fault_create(&fc, &gc->netifs[i],
							  gc->pools[i]);
			if (env->faults[i] == NULL)
				return env_err(err, errlen, "--fault: cannot "
					       "create the stage: %s",
					       rte_strerror(rte_errno));
			ust_fault_netif(env->faults[i], &gc->netifs[i]);
		}
	}
	env->fault = env->faults[0];
	return 0;
}

/* what ust_env_up() made, in reverse; the port's TX ring flushed */
static void
env_teardown(struct ust_env *env, bool port_up)
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
		ust_capture_free(env->captures[i]);
		env->captures[i] = NULL;
	}
	env->fault = NULL;
	ust_capture_close(env->pcap);
	env->pcap = NULL;
	if (port_up)
		ust_port_tx_cleanup(env->cfg.port.port_id,
				    env->port.nb_queues);
}

int
ust_env_up(struct ust_env *env, char *err, size_t errlen)
{
	struct ust_config *c = &env->cfg;
	struct ust_group_conf gc;
	int rc;
	uint32_t i, q;

	if (rte_eth_dev_count_avail() == 0)
		return env_err(err, errlen, "no ethdev port: give a device "
			       "before \"--\" (e.g. --vdev=net_tap0 or -a "
			       "PCI_ADDRESS)");
	if (!rte_eth_dev_is_valid_port(c->port.port_id))
		return env_err(err, errlen, "--port-id %u: no such ethdev "
			       "port (%u available)", c->port.port_id,
			       rte_eth_dev_count_avail());
	env->nb_stacks = c->port.nb_queues;
	rc = env_lcores(env, err, errlen);
	if (rc != 0)
		return rc;
	ust_port_numa_check(c->port.port_id, env->lcores, env->nb_stacks);
	/* each queue's buffers on its lcore's node */
	for (q = 0; q < env->nb_stacks; q++) {
		c->port.rx_pools[q] = env_pool(env,
			(int)rte_lcore_to_socket_id(env->lcores[q]), err,
			errlen);
		if (c->port.rx_pools[q] == NULL) {
			env_free_pools(env);
			return -ENOMEM;
		}
	}
	env->pool = c->port.rx_pools[0];
	c->port.pool = env->pool;
	rc = ust_port_setup(&c->port, &env->port);
	if (rc != 0) {
		env_err(err, errlen, "port %u: setup of %u queue pairs "
			"failed: %s%s", c->port.port_id, c->port.nb_queues,
			rte_strerror(-rc), c->port.nb_queues > 1 ?
			" (fewer --nb-cores, or a device with more queues)" :
			"");
		env_free_pools(env);
		return rc;
	}
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
	rc = env_stages(env, &gc, err, errlen);
	if (rc != 0)
		goto fail;
	env->grp = ust_group_create(&gc);
	if (env->grp == NULL) {
		rc = env_err(err, errlen, "cannot create the stacks: %s",
			     rte_strerror(rte_errno));
		goto fail;
	}
	for (i = 0; i < env->nb_stacks; i++) {
		struct ust_stack *stk = ust_group_stack(env->grp,
							(uint16_t)i);
		uint32_t k;

		env->stks[i] = stk;
		for (k = 0; k < c->n_static_arp; k++)
			if (ust_stack_arp_add_static(stk, c->static_arp[k].ip,
						     &c->static_arp[k].mac) !=
			    0) {
				rc = env_err(err, errlen, "[arp] static: entry "
					     "%u refused", k + 1);
				goto fail;
			}
	}
	env->stk = env->stks[0];
	if (c->stack.ip6.enable) {
		/* IPv6's groups (every stack of the port has the same
		 * addresses, so the first one's list is the port's) */
		struct rte_ether_addr mc[8];
		unsigned int n = ust_stack_mc_addrs(env->stk, mc,
						    RTE_DIM(mc));

		rc = ust_port_set_mc_addrs(c->port.port_id, mc,
					   RTE_MIN(n, RTE_DIM(mc)));
		if (rc != 0) {
			rc = env_err(err, errlen, "port %u: cannot receive "
				     "IPv6's multicast groups: %s (set [port] "
				     "promisc = 1)", c->port.port_id,
				     rte_strerror(-rc));
			goto fail;
		}
	}
	env->mbuf_in_use_start = ust_env_in_use(env);
	/* dpdk-dumpcap and dpdk-pdump are secondary processes: serve their
	 * capture requests (frames copied into their own pool, never
	 * ours); without hugepages none can attach (nor dpdk-proc-info) */
	env->no_secondary = !rte_eal_has_hugepages();
	if (!env->no_secondary && rte_pdump_init() == 0)
		env->pdump = true;
	return 0;
fail:
	env_teardown(env, true);
	ust_port_close(c->port.port_id);
	env_free_pools(env);
	return rc;
}

unsigned int
ust_env_in_use(const struct ust_env *env)
{
	unsigned int i, n = 0;

	for (i = 0; i < RTE_MAX_NUMA_NODES; i++)
		if (env->pools[i] != NULL)
			n += rte_mempool_in_use_count(env->pools[i]);
	return n;
}

void
ust_env_down(struct ust_env *env)
{
	env_teardown(env, true);
	env->mbuf_in_use_end = ust_env_in_use(env);
}

struct ust_env *
ust_env_create(int argc, char **argv, const char *ini_path, char *err,
	       size_t errlen)
{
	struct ust_env *env;
	int rc;

	env = calloc(1, sizeof(*env));
	if (env == NULL) {
		env_err(err, errlen, "out of memory");
		return NULL;
	}
	env->prog = argc > 0 ? argv[0] : "ustack";
	ust_config_defaults(&env->cfg);
	if (ini_path != NULL &&
	    ust_config_load(&env->cfg, ini_path, err, errlen) != 0)
		goto fail;
	if (env->cfg.stack.addr == 0) {
		env_err(err, errlen, "%s: no [ip] addr: the stacks need an "
			"address", ini_path != NULL ? ini_path : "defaults");
		goto fail;
	}
	if (rte_eal_init(argc, argv) < 0) {
		env_err(err, errlen, "EAL initialisation failed: %s",
			rte_strerror(rte_errno));
		goto fail;
	}
	rc = ust_env_up(env, err, errlen);
	if (rc != 0) {
		rte_eal_cleanup();
		goto fail;
	}
	return env;
fail:
	free(env);
	return NULL;
}

struct env_run {
	struct ust_env *env;
	ust_env_loop_t fn;
	void *arg;
	int rc;
};

static int
env_worker(struct ust_stack *stk, uint16_t idx, void *arg)
{
	struct env_run *r = arg;
	struct ust_env *env = r->env;
	struct ust_idle idle;
	int rc = 0;

	ust_idle_init(&idle, env, idx, 200000, 200000);
	while (!__atomic_load_n(&env->stop, __ATOMIC_RELAXED)) {
		uint16_t rx = ust_stack_poll(stk, ust_clock_ns());

		rc = r->fn(env, idx, stk, r->arg);
		if (env->idle_adaptive && rc >= 0)
			ust_idle(&idle, stk, rx > 0 || rc > 0);
		if (rc < 0) {
			int zero = 0;

			/* the first negative return is the run's */
			__atomic_compare_exchange_n(&r->rc, &zero, rc, false,
						    __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED);
			ust_env_stop(env);
			break;
		}
	}
	/* a last flush: what the last call staged leaves */
	ust_stack_flush(stk);
	return 0;
}

int
ust_env_run(struct ust_env *env, ust_env_loop_t fn, void *arg)
{
	struct env_run r = { .env = env, .fn = fn, .arg = arg, .rc = 0 };
	int rc;

	if (env == NULL || fn == NULL || env->grp == NULL)
		return -EINVAL;
	rc = ust_group_launch(env->grp, env_worker, &r);
	return rc != 0 ? rc : r.rc;
}

void
ust_env_stop(struct ust_env *env)
{
	__atomic_store_n(&env->stop, 1, __ATOMIC_RELAXED);
}

void
ust_env_destroy(struct ust_env *env)
{
	if (env == NULL)
		return;
	ust_env_down(env);
	ust_port_close(env->cfg.port.port_id);
	env_free_pools(env);
	free(env);
	rte_eal_cleanup();
}
