/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Bring-up and teardown of the apps' environment: the mbuf pool, the
 * port, an optional fault stage and one stack, from a struct ust_config.
 */

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "app_common.h"

void
app_env_up(struct app_env *env)
{
	struct ust_config *c = &env->cfg;
	struct ust_stack_conf sc;
	char name[RTE_MEMPOOL_NAMESIZE];
	int sock, rc;
	uint32_t i;

	if (rte_eth_dev_count_avail() == 0)
		app_usage_error(env->prog, "no ethdev port: give a device "
				"before \"--\" (e.g. --vdev=net_tap0 or -a "
				"PCI_ADDRESS)");
	if (!rte_eth_dev_is_valid_port(c->port.port_id))
		app_usage_error(env->prog, "--port-id %u: no such ethdev port "
				"(%u available)", c->port.port_id,
				rte_eth_dev_count_avail());
	sock = rte_eth_dev_socket_id(c->port.port_id);
	if (sock < 0)
		sock = (int)rte_socket_id();
	snprintf(name, sizeof(name), "ust_pool_p%u", c->port.port_id);
	env->pool = rte_pktmbuf_pool_create(name, c->pool.mbufs,
					    c->pool.cache, 0,
					    c->pool.data_room, sock);
	if (env->pool == NULL)
		app_usage_error(env->prog, "cannot create a pool of %u mbufs: "
				"%s (more hugepages, or a smaller [pool] "
				"mbufs)", c->pool.mbufs,
				rte_strerror(rte_errno));
	c->port.pool = env->pool;
	rc = ust_port_setup(&c->port, &env->port);
	if (rc != 0)
		app_usage_error(env->prog, "port %u: setup failed: %s",
				c->port.port_id, rte_strerror(-rc));
	sc = c->stack;
	sc.name = "ust0";
	sc.pool = env->pool;
	sc.socket_id = sock;
	sc.now_ns = ust_clock_ns();
	/* the reserve RX needs: a ring refill and a burst, per queue */
	if (sc.pool_reserve == 0)
		sc.pool_reserve = (uint32_t)env->port.rx_desc *
			env->port.nb_queues + sc.rx_burst;
	if (ust_port_netif(c->port.port_id, 0, &env->port, &sc.netif) != 0)
		app_usage_error(env->prog, "port %u: no queue 0",
				c->port.port_id);
	if (env->fault_spec != NULL) {
		struct ust_fault_conf fc;
		char err[160];

		ust_fault_conf_defaults(&fc);
		if (ust_fault_parse(env->fault_spec, &fc, err,
				    sizeof(err)) != 0)
			app_usage_error(env->prog, "--fault: %s", err);
		env->fault = ust_fault_create(&fc, &sc.netif, env->pool);
		if (env->fault == NULL)
			app_usage_error(env->prog, "--fault: cannot create "
					"the stage: %s",
					rte_strerror(rte_errno));
		ust_fault_netif(env->fault, &sc.netif);
	}
	env->stk = ust_stack_create(&sc);
	if (env->stk == NULL)
		app_usage_error(env->prog, "cannot create the stack: %s",
				rte_strerror(rte_errno));
	for (i = 0; i < c->n_static_arp; i++)
		if (ust_stack_arp_add_static(env->stk, c->static_arp[i].ip,
					     &c->static_arp[i].mac) != 0)
			app_usage_error(env->prog, "[arp] static: entry %u "
					"refused", i + 1);
	env->mbuf_in_use_start = rte_mempool_in_use_count(env->pool);
}

void
app_env_down(struct app_env *env)
{
	ust_stack_destroy(env->stk);
	env->stk = NULL;
	/* the frames the stage holds back go back to the pool */
	ust_fault_free(env->fault);
	env->fault = NULL;
	ust_port_tx_cleanup(env->cfg.port.port_id, env->port.nb_queues);
	env->mbuf_in_use_end = rte_mempool_in_use_count(env->pool);
}
