/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * DPDK telemetry for stack instances, readable with dpdk-telemetry.py from
 * a running application:
 *
 *   /ustack/stacks              names of the instances
 *   /ustack/groups              groups of sibling stacks (lib/group) and
 *                               the names of their stacks
 *   /ustack/snmp,NAME           MIB counters, grouped as /proc/net/snmp
 *                               (of a group: the sums over its stacks)
 *   /ustack/drops,NAME          drop reasons, and rx_consumed (the same)
 *   /ustack/udp_mem,NAME        the UDP memory pool
 *   /ustack/sockets,NAME        per-socket receive memory accounting
 *   /ustack/pool,NAME           the mbuf pool (in use, free, the reserve)
 *                               and the mbufs held for ARP resolution
 *
 * rte_telemetry callbacks get no context pointer, so this file keeps the
 * one piece of process-wide mutable state in ustack: a registry of live
 * instances, under a lock taken only by telemetry and by instance
 * creation and destruction. Since NAME answers for a stack or a group,
 * the registry refuses a name that a live stack or group already has. Counters are read without synchronisation
 * (aligned 64-bit loads); sockets are walked under the instance's
 * ctl_lock, which close also takes.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_spinlock.h>
#include <rte_telemetry.h>

#include "sock_private.h"
#include "telemetry_private.h"
#include "udp_private.h"

/* live instances and groups a process may have: their names are unique
 * among both (ust_stack_create() and ust_group_create() refuse a name in
 * use with EEXIST, and more than these with ENOSPC) */
#define TEL_MAX_STACKS 1024
#define TEL_MAX_GROUPS 64

static rte_spinlock_t tel_lock = RTE_SPINLOCK_INITIALIZER;
static struct ust_stack *tel_stacks[TEL_MAX_STACKS];
static const struct ust_tel_group *tel_groups[TEL_MAX_GROUPS];
static bool tel_registered;

static const struct ust_tel_group *
tel_find_group(const char *name)
{
	unsigned int i;

	if (name == NULL)
		return NULL;
	for (i = 0; i < TEL_MAX_GROUPS; i++)
		if (tel_groups[i] != NULL &&
		    strcmp(tel_groups[i]->name, name) == 0)
			return tel_groups[i];
	return NULL;
}

/* The sums of a group's counters; false when there is no such group. */
static bool
tel_group_stats(const char *name, struct ust_stats *st)
{
	const struct ust_tel_group *g;
	struct ust_stats one;
	unsigned int i;

	rte_spinlock_lock(&tel_lock);
	g = tel_find_group(name);
	if (g != NULL) {
		memset(st, 0, sizeof(*st));
		for (i = 0; i < g->n; i++) {
			ust_stack_stats_get(g->stks[i], &one);
			ust_stats_add(st, &one);
		}
	}
	rte_spinlock_unlock(&tel_lock);
	return g != NULL;
}

static struct ust_stack *
tel_find(const char *name)
{
	unsigned int i;

	if (name == NULL)
		return NULL;
	for (i = 0; i < TEL_MAX_STACKS; i++)
		if (tel_stacks[i] != NULL &&
		    strcmp(tel_stacks[i]->name, name) == 0)
			return tel_stacks[i];
	return NULL;
}

/* A live stack or group is named @name. Under tel_lock. */
static bool
tel_name_taken(const char *name)
{
	return tel_find(name) != NULL || tel_find_group(name) != NULL;
}

/* Copy the counters of instance @name; false when there is none. */
static bool
tel_stats_of(const char *name, struct ust_stats *st,
	     struct ust_mem_pool_stats *ps, bool tcp)
{
	struct ust_stack *stk;

	rte_spinlock_lock(&tel_lock);
	stk = tel_find(name);
	if (stk != NULL) {
		ust_stack_stats_get(stk, st);
		ust_mem_pool_stats_get(tcp ? ust_stack_tcp_mem(stk) :
				       stk->udp_mem, ps);
	}
	rte_spinlock_unlock(&tel_lock);
	return stk != NULL;
}

static int
tel_stacks_cb(const char *cmd, const char *params, struct rte_tel_data *d)
{
	unsigned int i;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	rte_spinlock_lock(&tel_lock);
	for (i = 0; i < TEL_MAX_STACKS; i++)
		if (tel_stacks[i] != NULL)
			rte_tel_data_add_array_string(d, tel_stacks[i]->name);
	rte_spinlock_unlock(&tel_lock);
	return 0;
}

static int
tel_groups_cb(const char *cmd, const char *params, struct rte_tel_data *d)
{
	unsigned int i, k;

	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	rte_tel_data_start_dict(d);
	rte_spinlock_lock(&tel_lock);
	for (i = 0; i < TEL_MAX_GROUPS; i++) {
		const struct ust_tel_group *g = tel_groups[i];
		struct rte_tel_data *a;

		if (g == NULL || (a = rte_tel_data_alloc()) == NULL)
			continue;
		rte_tel_data_start_array(a, RTE_TEL_STRING_VAL);
		for (k = 0; k < g->n; k++)
			rte_tel_data_add_array_string(a, g->stks[k]->name);
		rte_tel_data_add_dict_container(d, g->name, a, 0);
	}
	rte_spinlock_unlock(&tel_lock);
	return 0;
}

static int
tel_snmp_cb(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct ust_stats st;
	struct ust_mem_pool_stats ps;
	const char *group = NULL;
	struct rte_tel_data *g = NULL;
	unsigned int i;

	RTE_SET_USED(cmd);
	if (!tel_stats_of(params, &st, &ps, false) &&
	    !tel_group_stats(params, &st))
		return -1;
	rte_tel_data_start_dict(d);
	for (i = 0; i < UST_MIB_MAX; i++) {
		if (group == NULL || strcmp(group, ust_mib_group(i)) != 0) {
			if (g != NULL)
				rte_tel_data_add_dict_container(d, group, g, 0);
			group = ust_mib_group(i);
			g = rte_tel_data_alloc();
			if (g == NULL)
				return -1;
			rte_tel_data_start_dict(g);
		}
		rte_tel_data_add_dict_u64(g, ust_mib_name(i), st.mib[i]);
	}
	if (g != NULL)
		rte_tel_data_add_dict_container(d, group, g, 0);
	return 0;
}

static int
tel_drops_cb(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct ust_stats st;
	struct ust_mem_pool_stats ps;
	unsigned int i;

	RTE_SET_USED(cmd);
	if (!tel_stats_of(params, &st, &ps, false) &&
	    !tel_group_stats(params, &st))
		return -1;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "rx_consumed", st.rx_consumed);
	for (i = 0; i < UST_DROP_MAX; i++)
		rte_tel_data_add_dict_u64(d, ust_drop_name(i), st.drop[i]);
	return 0;
}

static int
tel_mem_cb(const char *params, struct rte_tel_data *d, bool tcp)
{
	struct ust_stats st;
	struct ust_mem_pool_stats ps;

	if (!tel_stats_of(params, &st, &ps, tcp))
		return -1;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "limit_min", ps.limit[0]);
	rte_tel_data_add_dict_u64(d, "limit_pressure", ps.limit[1]);
	rte_tel_data_add_dict_u64(d, "limit_max", ps.limit[2]);
	rte_tel_data_add_dict_int(d, "pages", (int)ps.pages);
	rte_tel_data_add_dict_int(d, "high_water", (int)ps.high_water);
	rte_tel_data_add_dict_u64(d, "charge_calls", ps.charge_calls);
	rte_tel_data_add_dict_u64(d, "pages_charged", ps.pages_charged);
	rte_tel_data_add_dict_u64(d, "uncharge_calls", ps.uncharge_calls);
	rte_tel_data_add_dict_u64(d, "pages_uncharged", ps.pages_uncharged);
	rte_tel_data_add_dict_u64(d, "charge_failures", ps.charge_failures);
	rte_tel_data_add_dict_u64(d, "min_grants", ps.min_grants);
	rte_tel_data_add_dict_u64(d, "pressure_events", ps.pressure_events);
	rte_tel_data_add_dict_string(d, "schedule",
		ps.schedule == UST_MEM_SCHEDULE_DELTA ? "delta" : "legacy");
	rte_tel_data_add_dict_string(d, "release",
		ps.release == UST_MEM_RELEASE_BATCHED ? "batched" :
		"unbatched");
	return 0;
}

static int
tel_pool_cb(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct ust_stack *stk;

	RTE_SET_USED(cmd);
	rte_spinlock_lock(&tel_lock);
	stk = tel_find(params);
	if (stk != NULL) {
		/* racy reads of one writer's counts: a sample */
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_u64(d, "size", stk->pool->size);
		rte_tel_data_add_dict_u64(d, "in_use",
					  rte_mempool_in_use_count(stk->pool));
		rte_tel_data_add_dict_u64(d, "avail",
					  rte_mempool_avail_count(stk->pool));
		rte_tel_data_add_dict_u64(d, "reserve", stk->pool_reserve);
		rte_tel_data_add_dict_u64(d, "arp_pending", stk->arp.pending);
		rte_tel_data_add_dict_u64(d, "arp_pending_max",
					  stk->conf.arp.pending_max);
		rte_tel_data_add_dict_u64(d, "arp_entries", stk->arp.count);
		rte_tel_data_add_dict_u64(d, "arp_incomplete",
					  stk->arp.incomplete);
	}
	rte_spinlock_unlock(&tel_lock);
	return stk != NULL ? 0 : -1;
}

static int
tel_udp_mem_cb(const char *cmd, const char *params, struct rte_tel_data *d)
{
	RTE_SET_USED(cmd);
	return tel_mem_cb(params, d, false);
}

static int
tel_tcp_mem_cb(const char *cmd, const char *params, struct rte_tel_data *d)
{
	RTE_SET_USED(cmd);
	return tel_mem_cb(params, d, true);
}

static int
tel_sockets_cb(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct ust_stack *stk;
	uint32_t i, n = 0;

	RTE_SET_USED(cmd);
	rte_tel_data_start_dict(d);
	rte_spinlock_lock(&tel_lock);
	stk = tel_find(params);
	if (stk == NULL) {
		rte_spinlock_unlock(&tel_lock);
		return -1;
	}
	rte_spinlock_lock(&stk->ctl_lock);
	for (i = 0; i < stk->sd_cap && n < RTE_TEL_MAX_DICT_ENTRIES; i++) {
		struct ust_sock *s = stk->sds[i].s;
		struct ust_sock_meminfo mi;
		struct rte_tel_data *c;
		char key[16];

		if (s == NULL || s->kind != UST_SK_UDP)
			continue;
		c = rte_tel_data_alloc();
		if (c == NULL)
			break;
		ust_udp_meminfo(s, &mi, false);
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_int(c, "local_port",
					  rte_be_to_cpu_16(s->lport));
		rte_tel_data_add_dict_u64(c, "rcvbuf", mi.rcvbuf);
		rte_tel_data_add_dict_u64(c, "rmem_alloc", mi.rmem_alloc);
		rte_tel_data_add_dict_u64(c, "rmem_alloc_hw", mi.rmem_alloc_hw);
		rte_tel_data_add_dict_int(c, "forward_alloc", mi.forward_alloc);
		rte_tel_data_add_dict_u64(c, "forward_deficit",
					  mi.forward_deficit);
		rte_tel_data_add_dict_u64(c, "forward_threshold",
					  mi.forward_threshold);
		rte_tel_data_add_dict_u64(c, "queued", mi.queued);
		rte_tel_data_add_dict_u64(c, "rcvbuf_drops", mi.rcvbuf_drops);
		rte_tel_data_add_dict_u64(c, "mem_drops", mi.mem_drops);
		rte_tel_data_add_dict_u64(c, "deficit_drops", mi.deficit_drops);
		rte_tel_data_add_dict_u64(c, "enqueued", mi.enqueued);
		rte_tel_data_add_dict_u64(c, "delivered", mi.delivered);
		snprintf(key, sizeof(key), "%u", i);
		rte_tel_data_add_dict_container(d, key, c, 0);
		n++;
	}
	rte_spinlock_unlock(&stk->ctl_lock);
	rte_spinlock_unlock(&tel_lock);
	return 0;
}

int
ust_telemetry_register(struct ust_stack *stk)
{
	unsigned int i;
	int rc = -ENOSPC;

	rte_spinlock_lock(&tel_lock);
	if (!tel_registered) {
		rte_telemetry_register_cmd("/ustack/stacks", tel_stacks_cb,
			"Names of the ustack instances. No parameters");
		rte_telemetry_register_cmd("/ustack/groups", tel_groups_cb,
			"Groups of sibling stacks and their stacks. No "
			"parameters");
		rte_telemetry_register_cmd("/ustack/snmp", tel_snmp_cb,
			"MIB counters of an instance, or the sums of a "
			"group's. Parameter: name");
		rte_telemetry_register_cmd("/ustack/drops", tel_drops_cb,
			"Drop reasons of an instance, or the sums of a "
			"group's. Parameter: name");
		rte_telemetry_register_cmd("/ustack/udp_mem", tel_udp_mem_cb,
			"UDP memory pool of an instance. Parameter: name");
		rte_telemetry_register_cmd("/ustack/tcp_mem", tel_tcp_mem_cb,
			"TCP memory pool of an instance. Parameter: name");
		rte_telemetry_register_cmd("/ustack/sockets", tel_sockets_cb,
			"UDP sockets' receive memory. Parameter: name");
		rte_telemetry_register_cmd("/ustack/pool", tel_pool_cb,
			"mbuf pool and ARP pending mbufs. Parameter: name");
		tel_registered = true;
	}
	if (tel_name_taken(stk->name)) {
		rc = -EEXIST;
		goto out;
	}
	for (i = 0; i < TEL_MAX_STACKS; i++)
		if (tel_stacks[i] == NULL) {
			tel_stacks[i] = stk;
			rc = 0;
			break;
		}
out:
	rte_spinlock_unlock(&tel_lock);
	return rc;
}

void
ust_telemetry_unregister(struct ust_stack *stk)
{
	unsigned int i;

	rte_spinlock_lock(&tel_lock);
	for (i = 0; i < TEL_MAX_STACKS; i++)
		if (tel_stacks[i] == stk)
			tel_stacks[i] = NULL;
	rte_spinlock_unlock(&tel_lock);
}

int
ust_telemetry_group_register(const struct ust_tel_group *g)
{
	unsigned int i;
	int rc = -ENOSPC;

	rte_spinlock_lock(&tel_lock);
	if (tel_name_taken(g->name)) {
		rc = -EEXIST;
		goto out;
	}
	for (i = 0; i < TEL_MAX_GROUPS; i++)
		if (tel_groups[i] == NULL) {
			tel_groups[i] = g;
			rc = 0;
			break;
		}
out:
	rte_spinlock_unlock(&tel_lock);
	return rc;
}

void
ust_telemetry_group_unregister(const struct ust_tel_group *g)
{
	unsigned int i;

	rte_spinlock_lock(&tel_lock);
	for (i = 0; i < TEL_MAX_GROUPS; i++)
		if (tel_groups[i] == g)
			tel_groups[i] = NULL;
	rte_spinlock_unlock(&tel_lock);
}
