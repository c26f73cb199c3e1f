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
 *   /ustack/sockets,NAME[,SD]   per-socket memory accounting, UDP and
 *                               TCP, from descriptor SD on
 *   /ustack/tcp_conns,NAME[,SD] TCP connections and listeners (as ss -tio:
 *                               4-tuple, state, sequence numbers, windows,
 *                               cwnd, ssthresh, RTT, RTO, retransmits,
 *                               queues, the timer), from descriptor SD on;
 *                               then those no descriptor holds
 *   /ustack/arp,NAME[,I]        the ARP table, from entry I on
 *   /ustack/nd,NAME[,I]         the IPv6 neighbour cache, from entry I on
 *                               (empty with IPv6 off)
 *   /ustack/pool,NAME           the mbuf pool (in use, free, the reserve)
 *                               and the mbufs held for ARP resolution
 *
 * The listings are paged (a reply holds at most TEL_PAGE entries, a
 * telemetry reply being 16 KiB at most): a reply with more to come has
 * "next", the SD or I to ask for next. The TCP connections listed are
 * first those the application holds a descriptor for (keyed by it, with
 * "sd"), then, as ss lists them too, those no descriptor holds: closed
 * and still finishing (orphans), waiting in an accept queue ("held"),
 * half-open (SYN_RECEIVED) and TIME_WAIT, keyed and paged from the
 * descriptor space's end on (its size plus the entry's position in the
 * connection hash), read without a lock (ust_tcp_view_next()).
 *
 * rte_telemetry callbacks get no context pointer, so this file keeps the
 * one piece of process-wide mutable state in ustack: a registry of live
 * instances, under a lock taken only by telemetry and by instance
 * creation and destruction. Since NAME answers for a stack or a group,
 * the registry refuses a name that a live stack or group already has. Counters are read without synchronisation
 * (aligned 64-bit loads); sockets are walked under the instance's
 * ctl_lock, which close also takes.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_spinlock.h>
#include <rte_telemetry.h>

#include "ip_private.h"
#include "sock_private.h"
#include "tcp_private.h"
#include "telemetry_private.h"
#include "udp_private.h"

/* live instances and groups a process may have: their names are unique
 * among both (ust_stack_create() and ust_group_create() refuse a name in
 * use with EEXIST, and more than these with ENOSPC) */
#define TEL_MAX_STACKS 1024
#define TEL_MAX_GROUPS 64
/* entries of a paged listing per reply */
#define TEL_PAGE 16

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

/* "NAME" or "NAME,FIRST": the instance (under tel_lock), and where a
 * paged listing starts; NULL for no such instance or a bad FIRST. */
static struct ust_stack *
tel_find_paged(const char *params, uint32_t *first)
{
	char name[64], *end;
	const char *comma;
	unsigned long v;
	size_t len;

	*first = 0;
	if (params == NULL)
		return NULL;
	comma = strchr(params, ',');
	if (comma == NULL)
		return tel_find(params);
	len = (size_t)(comma - params);
	if (len >= sizeof(name) || comma[1] < '0' || comma[1] > '9')
		return NULL;
	errno = 0;
	v = strtoul(comma + 1, &end, 10);
	if (errno != 0 || *end != '\0' || v > UINT32_MAX)
		return NULL;
	memcpy(name, params, len);
	name[len] = '\0';
	*first = (uint32_t)v;
	return tel_find(name);
}

static void
tel_add_addr(struct rte_tel_data *c, const char *key, rte_be32_t a,
	     rte_be16_t port)
{
	const uint8_t *b = (const uint8_t *)&a;
	char s[24];

	snprintf(s, sizeof(s), "%u.%u.%u.%u:%u", b[0], b[1], b[2], b[3],
		 rte_be_to_cpu_16(port));
	rte_tel_data_add_dict_string(c, key, s);
}

/* "[2001:2::1]:port" */
static void
tel_add_addr6(struct rte_tel_data *c, const char *key, const uint8_t *a,
	      rte_be16_t port)
{
	char ip[INET6_ADDRSTRLEN], s[INET6_ADDRSTRLEN + 10];

	if (inet_ntop(AF_INET6, a, ip, sizeof(ip)) == NULL)
		ip[0] = '\0';
	snprintf(s, sizeof(s), "[%s]:%u", ip, rte_be_to_cpu_16(port));
	rte_tel_data_add_dict_string(c, key, s);
}

/* a socket's family: "inet", "inet6", "inet6 v6only" */
static const char *
tel_family(const struct ust_sock *s)
{
	if (!(s->inet6 & UST_SK6_INET6))
		return "inet";
	return (s->inet6 & UST_SK6_V6ONLY) ? "inet6 v6only" : "inet6";
}

static void
tel_udp_socket(struct rte_tel_data *c, struct ust_sock *s)
{
	struct ust_sock_meminfo mi;

	ust_udp_meminfo(s, &mi, false);
	rte_tel_data_add_dict_string(c, "proto", "udp");
	rte_tel_data_add_dict_string(c, "family", tel_family(s));
	rte_tel_data_add_dict_int(c, "local_port", rte_be_to_cpu_16(s->lport));
	rte_tel_data_add_dict_u64(c, "rcvbuf", mi.rcvbuf);
	rte_tel_data_add_dict_u64(c, "rmem_alloc", mi.rmem_alloc);
	rte_tel_data_add_dict_u64(c, "rmem_alloc_hw", mi.rmem_alloc_hw);
	rte_tel_data_add_dict_int(c, "forward_alloc", mi.forward_alloc);
	rte_tel_data_add_dict_u64(c, "forward_deficit", mi.forward_deficit);
	rte_tel_data_add_dict_u64(c, "forward_threshold",
				  mi.forward_threshold);
	rte_tel_data_add_dict_u64(c, "queued", mi.queued);
	rte_tel_data_add_dict_u64(c, "rcvbuf_drops", mi.rcvbuf_drops);
	rte_tel_data_add_dict_u64(c, "mem_drops", mi.mem_drops);
	rte_tel_data_add_dict_u64(c, "deficit_drops", mi.deficit_drops);
	rte_tel_data_add_dict_u64(c, "enqueued", mi.enqueued);
	rte_tel_data_add_dict_u64(c, "delivered", mi.delivered);
}

static void
tel_tcp_socket(struct rte_tel_data *c, struct ust_sock *s)
{
	struct ust_tcp_view v;

	ust_tcp_view_get(s, &v);
	rte_tel_data_add_dict_string(c, "proto", "tcp");
	rte_tel_data_add_dict_string(c, "family", tel_family(s));
	rte_tel_data_add_dict_int(c, "local_port", rte_be_to_cpu_16(v.lport));
	rte_tel_data_add_dict_string(c, "state", ust_tcp_state_name(v.state));
	rte_tel_data_add_dict_u64(c, "rcvbuf", v.rcvbuf);
	rte_tel_data_add_dict_u64(c, "rmem_alloc", v.rmem_alloc);
	rte_tel_data_add_dict_int(c, "forward_alloc", v.fwd_alloc);
	rte_tel_data_add_dict_u64(c, "queued", v.rcv_queued);
	rte_tel_data_add_dict_u64(c, "sndbuf", v.sndbuf);
	rte_tel_data_add_dict_u64(c, "snd_queued", v.snd_queued);
	rte_tel_data_add_dict_u64(c, "wmem_queued", s->wmem_queued);
}

/* a connection's fields (as ss -tio), of a socket or of an entry no
 * descriptor holds */
static void
tel_tcp_view(struct rte_tel_data *c, const struct ust_tcp_view *v)
{
	if (v->v6) {
		tel_add_addr6(c, "local", v->laddr6, v->lport);
		tel_add_addr6(c, "remote", v->raddr6, v->rport);
	} else {
		tel_add_addr(c, "local", v->laddr, v->lport);
		tel_add_addr(c, "remote", v->raddr, v->rport);
	}
	rte_tel_data_add_dict_string(c, "state",
				     ust_tcp_state_name(v->state));
	if (v->state == UST_TCP_LISTEN) {
		rte_tel_data_add_dict_u64(c, "acceptq", v->acceptq);
		rte_tel_data_add_dict_u64(c, "synq", v->synq);
		rte_tel_data_add_dict_u64(c, "backlog", v->backlog);
		return;
	}
	rte_tel_data_add_dict_u64(c, "snd_una", v->snd_una);
	rte_tel_data_add_dict_u64(c, "snd_nxt", v->snd_nxt);
	rte_tel_data_add_dict_u64(c, "snd_max", v->snd_max);
	rte_tel_data_add_dict_u64(c, "snd_wnd", v->snd_wnd);
	rte_tel_data_add_dict_u64(c, "rcv_nxt", v->rcv_nxt);
	rte_tel_data_add_dict_u64(c, "rcv_wnd", v->rcv_wnd);
	rte_tel_data_add_dict_u64(c, "mss", v->mss);
	rte_tel_data_add_dict_u64(c, "cwnd", v->cwnd);
	rte_tel_data_add_dict_u64(c, "ssthresh", v->ssthresh);
	rte_tel_data_add_dict_u64(c, "srtt_us", v->srtt_us);
	rte_tel_data_add_dict_u64(c, "rttvar_us", v->rttvar_us);
	rte_tel_data_add_dict_u64(c, "rto_us", v->rto_us);
	rte_tel_data_add_dict_u64(c, "backoff", v->backoff);
	rte_tel_data_add_dict_u64(c, "retrans", v->retrans);
	rte_tel_data_add_dict_u64(c, "snd_queued", v->snd_queued);
	rte_tel_data_add_dict_u64(c, "rcv_queued", v->rcv_queued);
	rte_tel_data_add_dict_u64(c, "timer_ms", v->timer_ms);
}

static void
tel_tcp_conn(struct rte_tel_data *c, struct ust_sock *s)
{
	struct ust_tcp_view v;

	ust_tcp_view_get(s, &v);
	rte_tel_data_add_dict_u64(c, "sd", s->sd);
	tel_tcp_view(c, &v);
}

/*
 * A paged listing of the sockets of @kinds (a bit per UST_SK_ kind) from
 * descriptor FIRST on, each as @fill() writes it, keyed by descriptor;
 * "next" when more remain. Sockets are read under the instance's
 * ctl_lock, which close takes: none is freed while it is read.
 */
static uint32_t
tel_sock_page(struct ust_stack *stk, uint32_t first, struct rte_tel_data *d,
	      uint32_t kinds,
	      void (*fill)(struct rte_tel_data *c, struct ust_sock *s),
	      bool *more)
{
	uint32_t i, n = 0;

	*more = false;
	rte_spinlock_lock(&stk->ctl_lock);
	for (i = first; i < stk->sd_cap; i++) {
		struct ust_sock *s = stk->sds[i].s;
		struct rte_tel_data *c;
		char key[16];

		if (s == NULL || !(kinds & (1u << s->kind)))
			continue;
		if (n == TEL_PAGE) {
			rte_tel_data_add_dict_int(d, "next", (int)i);
			*more = true;
			break;
		}
		c = rte_tel_data_alloc();
		if (c == NULL)
			break;
		rte_tel_data_start_dict(c);
		fill(c, s);
		snprintf(key, sizeof(key), "%u", i);
		rte_tel_data_add_dict_container(d, key, c, 0);
		n++;
	}
	rte_spinlock_unlock(&stk->ctl_lock);
	return n;
}

static int
tel_sock_list(const char *params, struct rte_tel_data *d, uint32_t kinds,
	      void (*fill)(struct rte_tel_data *c, struct ust_sock *s))
{
	struct ust_stack *stk;
	uint32_t first;
	bool more;

	rte_tel_data_start_dict(d);
	rte_spinlock_lock(&tel_lock);
	stk = tel_find_paged(params, &first);
	if (stk == NULL) {
		rte_spinlock_unlock(&tel_lock);
		return -1;
	}
	tel_sock_page(stk, first, d, kinds, fill, &more);
	rte_spinlock_unlock(&tel_lock);
	return 0;
}

static void
tel_any_socket(struct rte_tel_data *c, struct ust_sock *s)
{
	if (s->kind == UST_SK_TCP)
		tel_tcp_socket(c, s);
	else
		tel_udp_socket(c, s);
}

static int
tel_sockets_cb(const char *cmd, const char *params, struct rte_tel_data *d)
{
	RTE_SET_USED(cmd);
	return tel_sock_list(params, d, 1u << UST_SK_UDP | 1u << UST_SK_TCP,
			     tel_any_socket);
}

/*
 * The TCP sockets by descriptor (cursor SD < sd_cap), then what no
 * descriptor holds (orphans, the accept queues, half-open, TIME_WAIT:
 * ust_tcp_view_next()) at cursor sd_cap + the connection hash's position,
 * also their key.
 */
static int
tel_tcp_conns_cb(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct ust_stack *stk;
	struct ust_tcp_view v;
	uint32_t first, n = 0, pos, at;
	bool more = false;

	RTE_SET_USED(cmd);
	rte_tel_data_start_dict(d);
	rte_spinlock_lock(&tel_lock);
	stk = tel_find_paged(params, &first);
	if (stk == NULL) {
		rte_spinlock_unlock(&tel_lock);
		return -1;
	}
	if (first < stk->sd_cap) {
		n = tel_sock_page(stk, first, d, 1u << UST_SK_TCP,
				  tel_tcp_conn, &more);
		pos = 0;
	} else {
		pos = first - stk->sd_cap;
	}
	/* a full page of descriptors with more to come has said "next" */
	while (n < TEL_PAGE && !more) {
		struct rte_tel_data *c;
		char key[16];

		at = pos;
		if (ust_tcp_view_next(stk, &pos, &v) != 0)
			break;
		c = rte_tel_data_alloc();
		if (c == NULL)
			break;
		rte_tel_data_start_dict(c);
		tel_tcp_view(c, &v);
		if (v.accept_wait)
			rte_tel_data_add_dict_string(c, "held",
						     "accept queue");
		/* keyed by its slot (pos is past it), after every SD */
		snprintf(key, sizeof(key), "%" PRIu64,
			 (uint64_t)stk->sd_cap + pos - 1);
		rte_tel_data_add_dict_container(d, key, c, 0);
		n++;
	}
	if (n == TEL_PAGE && !more) {
		/* more may follow: where to look for the next entry */
		at = pos;
		if (ust_tcp_view_next(stk, &pos, &v) == 0)
			rte_tel_data_add_dict_u64(d, "next",
						  (uint64_t)stk->sd_cap + at);
	}
	rte_spinlock_unlock(&tel_lock);
	return 0;
}

/* One neighbour cache entry (ARP's or ND's), keyed by its index @i. */
static int
tel_neigh_entry(struct rte_tel_data *d, uint32_t i, const char *ip,
		const struct ust_neigh *n, bool router)
{
	char key[16], mac[RTE_ETHER_ADDR_FMT_SIZE];
	struct rte_tel_data *c = rte_tel_data_alloc();

	if (c == NULL)
		return -1;
	rte_tel_data_start_dict(c);
	rte_tel_data_add_dict_string(c, "ip", ip);
	rte_ether_format_addr(mac, sizeof(mac), &n->mac);
	rte_tel_data_add_dict_string(c, "mac",
				     n->state == UST_NEIGH_INCOMPLETE ?
				     "(incomplete)" : mac);
	rte_tel_data_add_dict_string(c, "state",
				     ust_neigh_state_name(n->state));
	if (router)
		rte_tel_data_add_dict_int(c, "router", n->is_router);
	rte_tel_data_add_dict_u64(c, "pending", n->pending.len);
	snprintf(key, sizeof(key), "%u", i);
	rte_tel_data_add_dict_container(d, key, c, 0);
	return 0;
}

/* The ARP table (@v6 false) or the IPv6 neighbour cache from entry FIRST
 * on, TEL_PAGE entries at most: racy reads of the lcore's table (its
 * array is never reallocated), a sample. */
static int
tel_neigh(const char *params, struct rte_tel_data *d, bool v6)
{
	struct ust_stack *stk;
	uint32_t i, first, cap, n = 0;

	rte_tel_data_start_dict(d);
	rte_spinlock_lock(&tel_lock);
	stk = tel_find_paged(params, &first);
	if (stk == NULL) {
		rte_spinlock_unlock(&tel_lock);
		return -1;
	}
	cap = v6 ? (stk->ip6 != NULL ? stk->ip6->cap : 0) : stk->arp.cap;
	for (i = first; i < cap; i++) {
		const struct ust_neigh *e = v6 ? &stk->ip6->e[i].n :
			&stk->arp.e[i].n;
		char ip[INET6_ADDRSTRLEN];

		if (e->state == UST_NEIGH_FREE ||
		    e->state > UST_NEIGH_DELAY)
			continue;
		if (n == TEL_PAGE) {
			rte_tel_data_add_dict_int(d, "next", (int)i);
			break;
		}
		if (v6)
			inet_ntop(AF_INET6, stk->ip6->e[i].ip, ip, sizeof(ip));
		else
			inet_ntop(AF_INET, &stk->arp.e[i].ip, ip, sizeof(ip));
		if (tel_neigh_entry(d, i, ip, e, v6) != 0)
			break;
		n++;
	}
	rte_spinlock_unlock(&tel_lock);
	return 0;
}

static int
tel_arp_cb(const char *cmd, const char *params, struct rte_tel_data *d)
{
	RTE_SET_USED(cmd);
	return tel_neigh(params, d, false);
}

static int
tel_nd_cb(const char *cmd, const char *params, struct rte_tel_data *d)
{
	RTE_SET_USED(cmd);
	return tel_neigh(params, d, true);
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
			"UDP and TCP sockets' memory accounting. Parameters: "
			"name[,first descriptor]");
		rte_telemetry_register_cmd("/ustack/tcp_conns",
			tel_tcp_conns_cb, "TCP connections and listeners. "
			"Parameters: name[,first descriptor]");
		rte_telemetry_register_cmd("/ustack/arp", tel_arp_cb,
			"The ARP table. Parameters: name[,first entry]");
		rte_telemetry_register_cmd("/ustack/nd", tel_nd_cb,
			"The IPv6 neighbour cache. Parameters: stack name, and "
			"the first entry (0)");
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
