/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * ARP (RFC 826) and the neighbour cache of a stack instance.
 *
 * How it is called:
 *  - ust_arp_input() for every received ARP frame: answers requests for our
 *    address, learns and confirms senders (RFC 826's merge rule), counts
 *    address conflicts;
 *  - ust_arp_output() by IPv4 output for every unicast frame: fills the
 *    destination MAC from the cache, or holds the frame on an INCOMPLETE
 *    entry (a bounded queue, oldest dropped first) and resolves;
 *  - ust_arp_timers() from the poll loop every 100 ms: retries, failures,
 *    aging. It walks the table, which is bounded by arp.entries; nothing
 *    per packet scans it.
 *
 * States, after Linux's neighbour states without DELAY: INCOMPLETE ->
 * REACHABLE (confirmed by a reply or a request to us) -> STALE after
 * reachable_ms -> PROBE on the next use (unicast requests, the MAC stays in
 * use) -> REACHABLE, or deleted after max_probes; an unused STALE entry is
 * deleted after gc_ms. PERMANENT entries are static.
 *
 * Lookup is an rte_hash keyed by the IPv4 address, with a one-entry cache
 * of the last next hop in the stack's hot cache line: request-response
 * traffic to one peer does no hash lookup per packet.
 *
 * Bounds, against a hostile network (a flood from spoofed on-link sources
 * that never answer ARP):
 *  - pending frames: arp.queue_len per entry (the oldest makes room, as
 *    Linux's unres_qlen) and arp.pending_max mbufs on all entries together
 *    (Linux bounds each neighbour's queue by truesize, unres_qlen_bytes, and
 *    the number of neighbours by gc_thresh3, so 256 x 64 could exceed the
 *    whole mbuf pool; ustack counts mbufs because the pool is counted in
 *    mbufs). Beyond it a frame is dropped as NEIGH_PENDINGFULL, unless its
 *    own entry holds frames (its oldest makes room, NEIGH_QUEUEFULL).
 *    Frames that belong to no socket are also held only while the pool
 *    keeps its RX reserve (ust_reply_room(), NOMEM_RESERVE).
 *  - the table: arp.entries. When it is full, a new entry evicts one, as
 *    Linux's forced GC (neigh_forced_gc) does, in this order of preference,
 *    the least recently active first within each class:
 *      0. an entry learned from a request to us and never used by our
 *         output (any age: 3000 spoofed requests must not lock out a peer);
 *      1. an entry our output used, idle for 5 s (Linux's
 *         forced-GC age);
 *      2. only for an entry our own output needs: an INCOMPLETE entry whose
 *         first request went unanswered for retrans_ms (its frames are
 *         dropped, NEIGH_FAILED). So at most arp.entries unresolvable
 *         addresses are tried per retrans_ms, and a peer that answers ARP
 *         gets in at once even while a flood fills the table.
 *    A request to us from an unknown sender takes classes 0 and 1 only;
 *    PERMANENT entries are never evicted. INCOMPLETE entries may fill
 *    3/4 of the table only (beyond, a new one evicts one of class 2 or is
 *    refused, TableFulls): the last quarter is for peers that ask or
 *    answer, so that a new peer that ARPs us first (as a peer must that
 *    does not know our MAC) is learned, and answered, even while a flood of
 *    spoofed sources takes every INCOMPLETE slot the moment it frees.
 *  - off-subnet senders: a request to us from a sender outside our subnet
 *    is answered (as Linux's arp_process with the default arp_ignore 0) but
 *    not learned: we never send to such an address directly (the route is
 *    the gateway), so an entry would only be a slot a spoofer takes.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_malloc.h>

#include "ip_private.h"
#include "ust_wire.h"

#define ARP_TICK_NS (100ull * 1000 * 1000)
#define MS_TO_NS(ms) ((uint64_t)(ms) * 1000 * 1000)
#define ARP_NONE UINT32_MAX

/* Why an entry is created, which decides what it may evict. */
enum arp_why {
	ARP_FOR_OUTPUT, /* our output needs it (INCOMPLETE) */
	ARP_FOR_LEARN,  /* a request to us from an unknown sender */
	ARP_FOR_STATIC, /* a static entry */
};

/* INCOMPLETE entries may fill 3/4 of the table: the rest is for the peers
 * that answer (or ask) */
static inline uint32_t
arp_incomplete_cap(const struct ust_arp_table *t)
{
	return t->cap - t->cap / 4;
}

int
ust_arp_init(struct ust_stack *stk)
{
	struct ust_arp_table *t = &stk->arp;
	char name[RTE_HASH_NAMESIZE];
	struct rte_hash_parameters hp = {
		.name = name,
		.key_len = sizeof(rte_be32_t),
		.hash_func = rte_hash_crc,
		.hash_func_init_val = 0,
		.socket_id = stk->conf.socket_id,
	};
	uint32_t i;

	t->cap = stk->conf.arp.entries;
	hp.entries = t->cap * 2 < 64 ? 64 : t->cap * 2;
	snprintf(name, sizeof(name), "ust_arp_%p", (void *)stk);
	t->h = rte_hash_create(&hp);
	t->e = rte_zmalloc_socket("ust_arp", sizeof(*t->e) * t->cap,
				  RTE_CACHE_LINE_SIZE, stk->conf.socket_id);
	if (t->h == NULL || t->e == NULL)
		return -ENOMEM;
	for (i = 0; i < t->cap; i++)
		t->e[i].next_free = i + 1 < t->cap ? i + 1 : ARP_NONE;
	t->free_head = 0;
	t->count = 0;
	t->pending = 0;
	t->incomplete = 0;
	t->next_tick = 0;
	return 0;
}

static void arp_delete(struct ust_stack *stk, uint32_t idx);

/* No answer after max_probes requests: the entry and what waited on it
 * go (the frames under neigh_failed). */
static void
arp_failed(struct ust_stack *stk, uint32_t idx)
{
	const struct ust_arp_entry *e = &stk->arp.e[idx];

	stk->mib[UST_MIB_ARP_RESFAILED]++;
	if (rte_log_can_log(ust_ip_logtype, RTE_LOG_DEBUG)) {
		char a[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &e->ip, a, sizeof(a));
		IP_LOG(DEBUG, "%s: ARP: no reply from %s to %u requests, "
		       "%u queued frames dropped", stk->name, a, e->probes,
		       (unsigned int)e->pending.len);
	}
	arp_delete(stk, idx);
}

static void
arp_delete(struct ust_stack *stk, uint32_t idx)
{
	struct ust_arp_table *t = &stk->arp;
	struct ust_arp_entry *e = &t->e[idx];

	rte_hash_del_key(t->h, &e->ip);
	ust_neigh_drop_pending(stk, &t->pending, &e->n);
	if (e->state == UST_ARP_INCOMPLETE)
		t->incomplete--;
	if (stk->hit_ip == e->ip)
		stk->hit_ip = 0;
	e->state = UST_ARP_FREE;
	e->ip = 0;
	e->next_free = t->free_head;
	t->free_head = idx;
	t->count--;
	stk->mib[UST_MIB_ARP_DESTROYS]++;
}

void
ust_arp_fini(struct ust_stack *stk)
{
	struct ust_arp_table *t = &stk->arp;
	uint32_t i;

	if (t->e != NULL && t->h != NULL)
		for (i = 0; i < t->cap; i++)
			if (t->e[i].state != UST_ARP_FREE)
				arp_delete(stk, i);
	rte_hash_free(t->h);
	rte_free(t->e);
	t->h = NULL;
	t->e = NULL;
}

static struct ust_arp_entry *
arp_find(const struct ust_stack *stk, rte_be32_t ip, uint32_t *idx)
{
	void *data;

	if (rte_hash_lookup_data(stk->arp.h, &ip, &data) < 0)
		return NULL;
	*idx = (uint32_t)(uintptr_t)data;
	return &stk->arp.e[*idx];
}

/* Forced eviction when the table is full (the header says the order),
 * bounded by arp.entries: only when an entry must be created and none
 * is free. */
static bool
arp_evict(struct ust_stack *stk, int min_class, int max_class)
{
	struct ust_arp_table *t = &stk->arp;
	uint32_t victim = ust_neigh_victim(t->e, sizeof(*t->e),
		offsetof(struct ust_arp_entry, n), t->cap, stk->now,
		MS_TO_NS(stk->conf.arp.retrans_ms), min_class, max_class);

	if (victim == ARP_NONE)
		return false;
	arp_delete(stk, victim);
	return true;
}

static struct ust_arp_entry *
arp_create(struct ust_stack *stk, rte_be32_t ip, uint32_t *idx,
	   enum arp_why why)
{
	struct ust_arp_table *t = &stk->arp;
	struct ust_arp_entry *e;

	if (why == ARP_FOR_OUTPUT && t->incomplete >= arp_incomplete_cap(t)) {
		/* only an INCOMPLETE entry may make room for another */
		if (!arp_evict(stk, 2, 2)) {
			stk->mib[UST_MIB_ARP_TABLEFULLS]++;
			return NULL;
		}
	} else if (t->free_head == ARP_NONE &&
		   !arp_evict(stk, 0, why == ARP_FOR_LEARN ? 1 : 2)) {
		stk->mib[UST_MIB_ARP_TABLEFULLS]++;
		return NULL;
	}
	*idx = t->free_head;
	e = &t->e[*idx];
	if (rte_hash_add_key_data(t->h, &ip, (void *)(uintptr_t)*idx) < 0) {
		stk->mib[UST_MIB_ARP_TABLEFULLS]++;
		return NULL;
	}
	t->free_head = e->next_free;
	memset(e, 0, sizeof(*e));
	e->ip = ip;
	e->used = stk->now;
	e->needed = why != ARP_FOR_LEARN;
	ust_pktq_init(&e->pending);
	t->count++;
	stk->mib[UST_MIB_ARP_ALLOCS]++;
	return e;
}

/* Build and stage an ARP packet. */
static void
arp_send(struct ust_stack *stk, uint16_t op, const struct rte_ether_addr *dst,
	 const struct rte_ether_addr *tha, rte_be32_t tpa)
{
	struct rte_mbuf *m = ust_reply_alloc(stk);
	struct ust_eth_repr eth;
	struct ust_arp_repr a;
	uint8_t *p;

	if (m == NULL)
		return; /* a retry or the peer's next request will do */
	p = (uint8_t *)rte_pktmbuf_append(m, UST_ETH_HDR_LEN + UST_ARP_LEN);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	if (dst != NULL)
		eth.dst = *dst;
	else
		memset(&eth.dst, 0xff, sizeof(eth.dst));
	eth.src = stk->netif.mac;
	eth.ethertype = RTE_ETHER_TYPE_ARP;
	ust_eth_emit(p, UST_ETH_HDR_LEN, &eth);
	a.op = op;
	a.sha = stk->netif.mac;
	a.spa = stk->addr;
	if (tha != NULL)
		a.tha = *tha;
	else
		memset(&a.tha, 0, sizeof(a.tha));
	a.tpa = tpa;
	ust_arp_emit(p + UST_ETH_HDR_LEN, UST_ARP_LEN, &a);
	ust_meta_no_owner(stk->meta_off, m);
	stk->mib[op == RTE_ARP_OP_REQUEST ? UST_MIB_ARP_OUTREQUESTS :
		 UST_MIB_ARP_OUTREPLIES]++;
	ust_tx_stage(stk, m);
}

void
ust_arp_output(struct ust_stack *stk, struct rte_mbuf *m, rte_be32_t nh)
{
	struct ust_arp_entry *e;
	uint32_t idx;

	if (likely(nh == stk->hit_ip)) {
		idx = stk->hit_idx;
		e = &stk->arp.e[idx];
	} else {
		e = arp_find(stk, nh, &idx);
	}
	if (unlikely(e == NULL)) {
		e = arp_create(stk, nh, &idx, ARP_FOR_OUTPUT);
		if (e == NULL) {
			stk->mib[UST_MIB_ARP_RESFAILED]++;
			ust_tx_drop(stk, m, UST_DROP_NEIGH_FAILED);
			return;
		}
		e->state = UST_ARP_INCOMPLETE;
		stk->arp.incomplete++;
		e->probes = 1;
		e->next_probe = stk->now +
			MS_TO_NS(stk->conf.arp.retrans_ms);
		/* the request first: it resolves even when the frame is
		 * dropped by the bounds */
		arp_send(stk, RTE_ARP_OP_REQUEST, NULL, NULL, nh);
		ust_neigh_queue(stk, &stk->arp.pending, &e->n, m,
				UST_MIB_ARP_UNRESOLVEDDISCARDS);
		return;
	}
	switch (e->state) {
	case UST_ARP_INCOMPLETE:
		ust_neigh_queue(stk, &stk->arp.pending, &e->n, m,
				UST_MIB_ARP_UNRESOLVEDDISCARDS);
		return;
	case UST_ARP_REACHABLE:
		if (stk->now - e->confirmed <=
		    MS_TO_NS(stk->conf.arp.reachable_ms))
			break;
		e->state = UST_ARP_STALE;
		/* fall through */
	case UST_ARP_STALE:
		/* in use again: confirm it, keep sending meanwhile */
		e->state = UST_ARP_PROBE;
		e->probes = 1;
		e->next_probe = stk->now + MS_TO_NS(stk->conf.arp.retrans_ms);
		arp_send(stk, RTE_ARP_OP_REQUEST, &e->mac, NULL, e->ip);
		break;
	default:
		break;
	}
	e->used = stk->now;
	e->needed = 1;
	stk->hit_ip = nh;
	stk->hit_idx = idx;
	ust_neigh_fill_and_stage(stk, m, &e->mac);
}

static bool
arp_sender_valid(const struct ust_arp_repr *a)
{
	if (!rte_is_valid_assigned_ether_addr(&a->sha))
		return false;
	/* RFC 1122 3.3.2-ish sanity: no multicast or broadcast senders */
	if (ust_ipv4_is_multicast(a->spa) ||
	    a->spa == RTE_BE32(UINT32_MAX))
		return false;
	return true;
}

static void
arp_confirm(struct ust_stack *stk, struct ust_arp_entry *e,
	    const struct rte_ether_addr *mac, bool for_us)
{
	bool was_incomplete = e->state == UST_ARP_INCOMPLETE;
	bool changed = !rte_is_same_ether_addr(&e->mac, mac);

	if (e->state == UST_ARP_PERMANENT)
		return;
	if (was_incomplete)
		stk->arp.incomplete--;
	rte_ether_addr_copy(mac, &e->mac);
	if (for_us) {
		e->state = UST_ARP_REACHABLE;
		e->confirmed = stk->now;
		e->probes = 0;
	} else if (changed || was_incomplete) {
		e->state = UST_ARP_STALE;
	}
	if (was_incomplete)
		ust_neigh_flush(stk, &stk->arp.pending, &e->n);
}

void
ust_arp_input(struct ust_stack *stk, struct rte_mbuf *m)
{
	struct ust_arp_repr a;
	struct ust_arp_entry *e;
	uint32_t idx;
	bool for_us;
	int rc;

	rc = ust_arp_parse(rte_pktmbuf_mtod(m, void *), m->data_len, &a);
	if (rc != UST_WIRE_OK) {
		ust_drop(stk, m, rc == UST_WIRE_EUNSUPP ?
			 UST_DROP_ARP_UNSUPPORTED : UST_DROP_ARP_MALFORMED);
		return;
	}
	if (!arp_sender_valid(&a)) {
		ust_drop(stk, m, UST_DROP_ARP_MALFORMED);
		return;
	}
	if (a.spa == stk->addr) {
		/* someone else claims our address (or our own echo) */
		if (!rte_is_same_ether_addr(&a.sha, &stk->netif.mac))
			stk->mib[UST_MIB_ARP_INCONFLICTS]++;
		else
			stk->mib[UST_MIB_ARP_INIGNORED]++;
		ust_consumed(stk);
		rte_pktmbuf_free(m);
		return;
	}
	for_us = a.tpa == stk->addr;
	/* RFC 826 merge: update an existing entry for the sender ... (an
	 * RFC 5227 probe, from 0.0.0.0, teaches nothing) */
	e = a.spa == 0 ? NULL : arp_find(stk, a.spa, &idx);
	/* sibling stacks (lib/group) learn what this frame teaches: a
	 * request or reply to us, news of a known neighbour, a gratuitous
	 * announcement; the Ethernet header is still in the headroom */
	if (stk->sib != NULL && !stk->sib_in && a.spa != 0 &&
	    (for_us || e != NULL || a.spa == a.tpa)) {
		rte_pktmbuf_prepend(m, UST_ETH_HDR_LEN);
		stk->sib->arp_copy(stk, m);
		rte_pktmbuf_adj(m, UST_ETH_HDR_LEN);
	}
	if (e != NULL)
		arp_confirm(stk, e, &a.sha, for_us);
	else if (for_us && a.spa != 0 &&
		 (a.spa & stk->mask) == (stk->addr & stk->mask)) {
		/* ... and create one when the packet was meant for us and
		 * comes from our subnet (the header says why) */
		e = arp_create(stk, a.spa, &idx, ARP_FOR_LEARN);
		if (e != NULL)
			arp_confirm(stk, e, &a.sha, true);
	}
	if (!for_us) {
		stk->mib[UST_MIB_ARP_INIGNORED]++;
		ust_consumed(stk);
		rte_pktmbuf_free(m);
		return;
	}
	if (a.op == RTE_ARP_OP_REPLY) {
		stk->mib[UST_MIB_ARP_INREPLIES]++;
		ust_consumed(stk);
		rte_pktmbuf_free(m);
		return;
	}
	stk->mib[UST_MIB_ARP_INREQUESTS]++;
	ust_consumed(stk);
	rte_pktmbuf_free(m);
	/* the stack that received the request answers it, not its
	 * siblings' copies */
	if (!stk->sib_in)
		arp_send(stk, RTE_ARP_OP_REPLY, &a.sha, &a.sha, a.spa);
}

uint64_t
ust_arp_next_deadline(const struct ust_stack *stk)
{
	const struct ust_arp_table *t = &stk->arp;
	const struct ust_arp_conf *c = &stk->conf.arp;
	uint64_t d = UINT64_MAX, e_t;
	uint32_t i;

	if (t->count == 0)
		return UINT64_MAX;
	for (i = 0; i < t->cap; i++) {
		const struct ust_arp_entry *e = &t->e[i];

		switch (e->state) {
		case UST_ARP_INCOMPLETE:
		case UST_ARP_PROBE:
			e_t = e->next_probe;
			break;
		case UST_ARP_REACHABLE:	/* stale once strictly past */
			e_t = e->confirmed + MS_TO_NS(c->reachable_ms) + 1;
			break;
		case UST_ARP_STALE:
			e_t = e->used + MS_TO_NS(c->gc_ms) + 1;
			break;
		default:
			continue;
		}
		if (e_t < d)
			d = e_t;
	}
	return d == UINT64_MAX ? d : RTE_MAX(d, t->next_tick);
}

void
ust_arp_timers(struct ust_stack *stk)
{
	struct ust_arp_table *t = &stk->arp;
	const struct ust_arp_conf *c = &stk->conf.arp;
	uint64_t now = stk->now;
	uint32_t i;

	t->next_tick = now + ARP_TICK_NS;
	if (t->count == 0)
		return;
	for (i = 0; i < t->cap; i++) {
		struct ust_arp_entry *e = &t->e[i];

		switch (e->state) {
		case UST_ARP_INCOMPLETE:
			if (now < e->next_probe)
				break;
			if (e->probes >= c->max_probes) {
				arp_failed(stk, i);
				break;
			}
			e->probes++;
			e->next_probe = now + MS_TO_NS(c->retrans_ms);
			arp_send(stk, RTE_ARP_OP_REQUEST, NULL, NULL, e->ip);
			break;
		case UST_ARP_PROBE:
			if (now < e->next_probe)
				break;
			if (e->probes >= c->max_probes) {
				arp_failed(stk, i);
				break;
			}
			e->probes++;
			e->next_probe = now + MS_TO_NS(c->retrans_ms);
			arp_send(stk, RTE_ARP_OP_REQUEST, &e->mac, NULL,
				 e->ip);
			break;
		case UST_ARP_REACHABLE:
			if (now - e->confirmed > MS_TO_NS(c->reachable_ms))
				e->state = UST_ARP_STALE;
			break;
		case UST_ARP_STALE:
			if (now - e->used > MS_TO_NS(c->gc_ms))
				arp_delete(stk, i);
			break;
		default:
			break;
		}
	}
}

int
ust_stack_arp_add_static(struct ust_stack *stk, rte_be32_t ip,
			 const struct rte_ether_addr *mac)
{
	struct ust_arp_entry *e;
	uint32_t idx;
	bool was_incomplete = false;

	if (ip == 0 || mac == NULL || !rte_is_valid_assigned_ether_addr(mac))
		return -EINVAL;
	e = arp_find(stk, ip, &idx);
	if (e == NULL)
		e = arp_create(stk, ip, &idx, ARP_FOR_STATIC);
	else
		was_incomplete = e->state == UST_ARP_INCOMPLETE;
	if (e == NULL)
		return -ENOSPC;
	rte_ether_addr_copy(mac, &e->mac);
	if (was_incomplete)
		stk->arp.incomplete--;
	e->state = UST_ARP_PERMANENT;
	if (was_incomplete)
		ust_neigh_flush(stk, &stk->arp.pending, &e->n);
	return 0;
}

int
ust_stack_arp_lookup(const struct ust_stack *stk, rte_be32_t ip,
		     struct rte_ether_addr *mac)
{
	uint32_t idx;
	struct ust_arp_entry *e = arp_find(stk, ip, &idx);

	if (e == NULL || e->state == UST_ARP_INCOMPLETE)
		return -ENOENT;
	if (mac != NULL)
		rte_ether_addr_copy(&e->mac, mac);
	return 0;
}
