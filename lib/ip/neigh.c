/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * What the two neighbour caches share, ARP's (arp.c) and Neighbour
 * Discovery's (nd.c), as Linux's neighbour core serves arp and ndisc: the
 * frames waiting for an entry to resolve, with their bounds, and the
 * choice of the entry a full table evicts. Each cache keeps its own table
 * (an rte_hash keyed by its address), its own state machine and its own
 * messages; an entry of either has the shared part as struct ust_neigh.
 *
 * How it is called: by arp.c and nd.c only (ip_private.h).
 */

#include "ip_private.h"

/* an entry our output used may go once idle this long (Linux's
 * neigh_forced_gc spares entries updated in the last 5 s) */
#define NEIGH_GC_MIN_AGE_NS (5ull * 1000 * 1000 * 1000)

const char *
ust_neigh_state_name(uint8_t state)
{
	static const char *const names[] = {
		[UST_NEIGH_FREE] = "FREE",
		[UST_NEIGH_INCOMPLETE] = "INCOMPLETE",
		[UST_NEIGH_REACHABLE] = "REACHABLE",
		[UST_NEIGH_STALE] = "STALE",
		[UST_NEIGH_PROBE] = "PROBE",
		[UST_NEIGH_PERMANENT] = "PERMANENT",
		[UST_NEIGH_DELAY] = "DELAY",
	};

	return state < RTE_DIM(names) ? names[state] : "?";
}

struct rte_mbuf *
ust_neigh_pending_pop(struct ust_stack *stk, uint32_t *pending,
		      struct ust_neigh *n)
{
	struct rte_mbuf *m = ust_pktq_pop(stk->meta_off, &n->pending);

	if (m != NULL)
		*pending -= m->nb_segs;
	return m;
}

void
ust_neigh_flush(struct ust_stack *stk, uint32_t *pending, struct ust_neigh *n)
{
	struct rte_mbuf *m;

	while ((m = ust_neigh_pending_pop(stk, pending, n)) != NULL)
		ust_neigh_fill_and_stage(stk, m, &n->mac);
}

void
ust_neigh_drop_pending(struct ust_stack *stk, uint32_t *pending,
		       struct ust_neigh *n)
{
	struct rte_mbuf *m;

	while ((m = ust_neigh_pending_pop(stk, pending, n)) != NULL)
		ust_tx_drop(stk, m, UST_DROP_NEIGH_FAILED);
}

void
ust_neigh_queue(struct ust_stack *stk, uint32_t *pending, struct ust_neigh *n,
		struct rte_mbuf *m, enum ust_mib unresolved)
{
	uint32_t segs = m->nb_segs;

	if (ust_meta(stk->meta_off, m)->owner_sd == UST_OWNER_NONE &&
	    !ust_reply_room(stk, segs)) {
		stk->mib[unresolved]++;
		ust_tx_drop(stk, m, UST_DROP_NOMEM_RESERVE);
		return;
	}
	while (n->pending.len > 0 &&
	       (n->pending.len >= stk->conf.arp.queue_len ||
		*pending + segs > stk->conf.arp.pending_max)) {
		/* as Linux: the oldest waiting packet makes room */
		struct rte_mbuf *old = ust_neigh_pending_pop(stk, pending, n);

		stk->mib[unresolved]++;
		ust_tx_drop(stk, old, UST_DROP_NEIGH_QUEUEFULL);
	}
	if (*pending + segs > stk->conf.arp.pending_max) {
		stk->mib[unresolved]++;
		ust_tx_drop(stk, m, UST_DROP_NEIGH_PENDINGFULL);
		return;
	}
	ust_pktq_push(stk->meta_off, &n->pending, m);
	*pending += segs;
}

uint32_t
ust_neigh_victim(const void *base, size_t stride, size_t n_off, uint32_t cap,
		 uint64_t now, uint64_t retrans_ns, int min_class,
		 int max_class)
{
	uint32_t i, victim = UINT32_MAX;
	uint64_t vlast = 0;
	int vclass = 3;

	for (i = 0; i < cap; i++) {
		const struct ust_neigh *e = (const struct ust_neigh *)
			((const uint8_t *)base + (size_t)i * stride + n_off);
		uint64_t last;
		int cl;

		if (e->state == UST_NEIGH_FREE ||
		    e->state == UST_NEIGH_PERMANENT)
			continue;
		last = RTE_MAX(e->used, e->confirmed);
		if (e->state == UST_NEIGH_INCOMPLETE) {
			if (now - e->used < retrans_ns)
				continue;
			cl = 2;
		} else if (!e->needed) {
			cl = 0;
		} else if (now - last >= NEIGH_GC_MIN_AGE_NS) {
			cl = 1;
		} else {
			continue;
		}
		if (cl < min_class || cl > max_class)
			continue;
		if (cl < vclass || (cl == vclass && last < vlast)) {
			victim = i;
			vclass = cl;
			vlast = last;
		}
	}
	return victim;
}
