/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * IPv6 Neighbour Discovery (RFC 4861) and stateless address
 * configuration's duplicate address detection (RFC 4862) of a stack
 * instance: the neighbour cache, our addresses' DAD, router discovery.
 *
 * How it is called:
 *  - ust_nd_input() by ICMPv6 input (icmp6.c) for NS, NA, RS, RA and
 *    redirect, after the checks every ND message gets (hop limit 255,
 *    code 0, options well formed: RFC 4861 6.1, 7.1, 8.1);
 *  - ust_nd_output() by IPv6 output for every unicast frame: fills the
 *    destination MAC, or holds the frame on an INCOMPLETE entry and
 *    solicits;
 *  - ust_ip6_timers() from the poll every 100 ms: DAD, router
 *    solicitations, retries, the state machine's timeouts, router and
 *    prefix lifetimes. It walks the cache, bounded by [arp] entries.
 *
 * The cache's states are RFC 4861 7.3.2's: INCOMPLETE (multicast NS every
 * RetransTimer, max_probes of them) -> REACHABLE (a solicited NA) -> STALE
 * after ReachableTime (or an unsolicited NA, NS or RA teaching an address)
 * -> DELAY on the next use (5 s, DELAY_FIRST_PROBE_TIME, the frames go
 * meanwhile) -> PROBE (unicast NS every RetransTimer) -> REACHABLE, or
 * deleted after max_probes. A STALE entry unused for gc_ms is deleted.
 * NA's override and solicited flags are applied as 7.2.5 says.
 *
 * Bounds, ARP's (arp.c says why), with ARP's code (neigh.c): [arp]
 * queue_len frames per entry and pending_max mbufs on all (the entry's
 * oldest make room); the pool's RX reserve for frames no socket owns;
 * [arp] entries, INCOMPLETE ones at most 3/4 of them; a full table
 * evicts, in this order, an entry learned from a message and never used
 * by our output, an entry idle for 5 s, and (for our output only) an
 * INCOMPLETE entry whose first NS went unanswered for RetransTimer.
 *
 * DAD: each address starts TENTATIVE (only DAD's messages reach it) and
 * sends dad_transmits NS from :: to its solicited-node group, RetransTimer
 * apart; no answer by then makes it PREFERRED. An NA for it, or an NS from
 * :: for it (another node's DAD), makes it DUPLICATE: never used, logged,
 * Ndisc DadFailures. Router discovery (accept_ra, no gateway configured):
 * 3 RS, 4 s apart (RFC 4861 10); an RA from a link-local source gives the
 * default router (its lifetime), on-link prefixes, the link MTU (1280 up
 * to the netif's), hop limit, ReachableTime and RetransTimer. Addresses
 * are not formed from an RA's prefixes (SLAAC): the global address is
 * configured. Redirects are counted and ignored.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_malloc.h>

#include "ip_private.h"
#include "ust_wire.h"

#define ND_TICK_NS (100ull * 1000 * 1000)
#define MS_TO_NS(ms) ((uint64_t)(ms) * 1000 * 1000)
#define ND_NONE UINT32_MAX
/* RFC 4861 10: DELAY_FIRST_PROBE_TIME, MAX_RTR_SOLICITATIONS,
 * RTR_SOLICITATION_INTERVAL */
#define ND_DELAY_NS (5ull * 1000 * 1000 * 1000)
#define ND_RS_MAX 3
#define ND_RS_INTERVAL_NS (4ull * 1000 * 1000 * 1000)
#define ND_HOP_LIMIT 255

static const uint8_t nd_all_nodes[UST_IPV6_ADDR_LEN] = {
	0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
static const uint8_t nd_all_routers[UST_IPV6_ADDR_LEN] = {
	0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 };
static const uint8_t nd_unspec[UST_IPV6_ADDR_LEN];

enum nd_why {
	ND_FOR_OUTPUT,
	ND_FOR_LEARN,
};

static void
ip6_log_addr(const struct ust_stack *stk, const char *what, const uint8_t *a)
{
	char s[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, a, s, sizeof(s));
	IP_LOG(ERR, "%s: IPv6 %s %s", stk->name, what, s);
}

/* ---- the cache ---- */

/* The hash key of @ip: aligned (rte_hash_crc() reads 8 bytes at a time,
 * and addresses come from packets at any offset). */
struct nd_key {
	uint64_t w[2];
};

static inline struct nd_key
nd_key(const uint8_t *ip)
{
	struct nd_key k;

	memcpy(&k, ip, sizeof(k));
	return k;
}

static struct ust_nd_entry *
nd_find(const struct ust_stack *stk, const uint8_t *ip, uint32_t *idx)
{
	struct nd_key k = nd_key(ip);
	void *data;

	if (rte_hash_lookup_data(stk->ip6->h, &k, &data) < 0)
		return NULL;
	*idx = (uint32_t)(uintptr_t)data;
	return &stk->ip6->e[*idx];
}

static void
nd_delete(struct ust_stack *stk, uint32_t idx)
{
	struct ust_ip6 *i6 = stk->ip6;
	struct ust_nd_entry *e = &i6->e[idx];
	struct nd_key k = nd_key(e->ip);

	rte_hash_del_key(i6->h, &k);
	ust_neigh_drop_pending(stk, &i6->pending, &e->n);
	if (e->state == UST_ND_INCOMPLETE)
		i6->incomplete--;
	if (i6->hit_idx == idx)
		i6->hit_idx = ND_NONE;
	e->state = UST_ND_FREE;
	e->next_free = i6->free_head;
	i6->free_head = idx;
	i6->count--;
	stk->mib[UST_MIB_NDISC_DESTROYS]++;
}

/* As arp_evict(): the classes of arp.c's header. */
static bool
nd_evict(struct ust_stack *stk, int min_class, int max_class)
{
	struct ust_ip6 *i6 = stk->ip6;
	uint32_t victim = ust_neigh_victim(i6->e, sizeof(*i6->e),
		offsetof(struct ust_nd_entry, n), i6->cap, stk->now,
		MS_TO_NS(i6->retrans_ms), min_class, max_class);

	if (victim == ND_NONE)
		return false;
	nd_delete(stk, victim);
	return true;
}

static struct ust_nd_entry *
nd_create(struct ust_stack *stk, const uint8_t *ip, uint32_t *idx,
	  enum nd_why why)
{
	struct ust_ip6 *i6 = stk->ip6;
	struct ust_nd_entry *e;
	struct nd_key k;

	if (why == ND_FOR_OUTPUT &&
	    i6->incomplete >= i6->cap - i6->cap / 4) {
		if (!nd_evict(stk, 2, 2)) {
			stk->mib[UST_MIB_NDISC_TABLEFULLS]++;
			return NULL;
		}
	} else if (i6->free_head == ND_NONE &&
		   !nd_evict(stk, 0, why == ND_FOR_LEARN ? 1 : 2)) {
		stk->mib[UST_MIB_NDISC_TABLEFULLS]++;
		return NULL;
	}
	*idx = i6->free_head;
	e = &i6->e[*idx];
	k = nd_key(ip);
	if (rte_hash_add_key_data(i6->h, &k, (void *)(uintptr_t)*idx) < 0) {
		stk->mib[UST_MIB_NDISC_TABLEFULLS]++;
		return NULL;
	}
	i6->free_head = e->next_free;
	memset(e, 0, sizeof(*e));
	memcpy(e->ip, ip, UST_IPV6_ADDR_LEN);
	e->used = stk->now;
	e->needed = why != ND_FOR_LEARN;
	ust_pktq_init(&e->pending);
	i6->count++;
	stk->mib[UST_MIB_NDISC_ALLOCS]++;
	return e;
}

/* ---- sending ND messages ---- */

/*
 * Build and stage an ND message from @src to @dst (hop limit 255) with
 * destination MAC @mac (NULL: @dst's multicast group's, or through the
 * cache for a unicast @dst).
 */
static void
nd_send(struct ust_stack *stk, const uint8_t *src, const uint8_t *dst,
	const struct rte_ether_addr *mac, struct ust_icmp6_repr *ic)
{
	struct rte_mbuf *m = ust_reply_alloc(stk);
	struct ust_ipv6_repr ip6;
	struct ust_eth_repr eth;
	uint8_t *p;
	size_t l4;

	if (m == NULL)
		return; /* a retry will do */
	p = (uint8_t *)rte_pktmbuf_append(m, UST_ETH_HDR_LEN +
					  UST_IPV6_HDR_LEN + 128);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	l4 = ust_icmp6_emit(p + UST_ETH_HDR_LEN + UST_IPV6_HDR_LEN, 128,
			    src, dst, ic);
	rte_pktmbuf_trim(m, (uint16_t)(128 - l4));
	memset(&ip6, 0, sizeof(ip6));
	memcpy(ip6.src, src, UST_IPV6_ADDR_LEN);
	memcpy(ip6.dst, dst, UST_IPV6_ADDR_LEN);
	ip6.payload_len = (uint16_t)l4;
	ip6.next_header = UST_IPV6_NH_ICMPV6;
	ip6.hop_limit = ND_HOP_LIMIT;
	ust_ipv6_emit(p + UST_ETH_HDR_LEN, UST_IPV6_HDR_LEN, &ip6);
	eth.src = stk->netif.mac;
	eth.ethertype = RTE_ETHER_TYPE_IPV6;
	if (mac != NULL)
		eth.dst = *mac;
	else if (ust_ipv6_is_multicast(dst))
		ust_ipv6_mcast_mac(dst, &eth.dst);
	else
		memset(&eth.dst, 0, sizeof(eth.dst));
	ust_eth_emit(p, UST_ETH_HDR_LEN, &eth);
	ust_meta_no_owner(stk->meta_off, m);
	stk->mib[UST_MIB_ICMP6_OUTMSGS]++;
	stk->mib[UST_MIB_IP6_OUTREQUESTS]++;
	stk->mib[UST_MIB_IP6_OUTOCTETS] += UST_IPV6_HDR_LEN + l4;
	if (ust_ipv6_is_multicast(dst))
		stk->mib[UST_MIB_IP6_OUTMCASTPKTS]++;
	switch (ic->type) {
	case UST_ICMP6_ND_NS:
		stk->mib[UST_MIB_ICMP6_OUTNEIGHBORSOLICITS]++;
		break;
	case UST_ICMP6_ND_NA:
		stk->mib[UST_MIB_ICMP6_OUTNEIGHBORADVERTISEMENTS]++;
		break;
	case UST_ICMP6_ND_RS:
		stk->mib[UST_MIB_ICMP6_OUTROUTERSOLICITS]++;
		break;
	default:
		break;
	}
	if (mac != NULL || ust_ipv6_is_multicast(dst))
		ust_tx_stage(stk, m);
	else
		ust_nd_output(stk, m, dst);
}

/* A neighbour solicitation for @target: multicast to its solicited-node
 * group (resolution), or unicast to @mac (a probe); from :: for DAD. */
static void
nd_send_ns(struct ust_stack *stk, const uint8_t *target,
	   const struct rte_ether_addr *mac, bool dad)
{
	struct ust_icmp6_repr ic;
	uint8_t sn[UST_IPV6_ADDR_LEN];
	const uint8_t *src;

	if (dad) {
		src = nd_unspec;
	} else {
		src = ust_ip6_select_src(stk, target);
		if (src == NULL)
			return; /* no usable address yet: a retry will do */
	}
	memset(&ic, 0, sizeof(ic));
	ic.type = UST_ICMP6_ND_NS;
	memcpy(ic.target, target, UST_IPV6_ADDR_LEN);
	/* RFC 4861 4.3: SLLA unless the source is :: */
	if (!dad) {
		ic.nd.has_slla = true;
		ic.nd.slla = stk->netif.mac;
	}
	if (mac != NULL) {
		nd_send(stk, src, target, mac, &ic);
		return;
	}
	ust_ipv6_solicited_node(target, sn);
	nd_send(stk, src, sn, NULL, &ic);
}

/* ---- output ---- */

void
ust_nd_output(struct ust_stack *stk, struct rte_mbuf *m, const uint8_t *nh)
{
	struct ust_ip6 *i6 = stk->ip6;
	struct ust_nd_entry *e = NULL;
	uint32_t idx = i6->hit_idx;

	if (likely(idx != ND_NONE) &&
	    memcmp(i6->e[idx].ip, nh, UST_IPV6_ADDR_LEN) == 0)
		e = &i6->e[idx];
	else
		e = nd_find(stk, nh, &idx);
	if (unlikely(e == NULL)) {
		e = nd_create(stk, nh, &idx, ND_FOR_OUTPUT);
		if (e == NULL) {
			stk->mib[UST_MIB_NDISC_RESFAILED]++;
			ust_tx_drop(stk, m, UST_DROP_NEIGH_FAILED);
			return;
		}
		e->state = UST_ND_INCOMPLETE;
		i6->incomplete++;
		e->probes = 1;
		e->next_probe = stk->now + MS_TO_NS(i6->retrans_ms);
		nd_send_ns(stk, nh, NULL, false);
		ust_neigh_queue(stk, &i6->pending, &e->n, m,
				UST_MIB_NDISC_UNRESOLVEDDISCARDS);
		return;
	}
	switch (e->state) {
	case UST_ND_INCOMPLETE:
		ust_neigh_queue(stk, &i6->pending, &e->n, m,
				UST_MIB_NDISC_UNRESOLVEDDISCARDS);
		return;
	case UST_ND_REACHABLE:
		if (stk->now - e->confirmed <= MS_TO_NS(i6->reachable_ms))
			break;
		e->state = UST_ND_STALE;
		/* fall through */
	case UST_ND_STALE:
		/* RFC 4861 7.3.3: in use again; probe in 5 s unless an
		 * upper layer or an NA confirms it meanwhile */
		e->state = UST_ND_DELAY;
		e->next_probe = stk->now + ND_DELAY_NS;
		break;
	default:
		break;
	}
	e->used = stk->now;
	e->needed = 1;
	i6->hit_idx = idx;
	ust_neigh_fill_and_stage(stk, m, &e->mac);
}

/* ---- input ---- */

/* Learn (or refresh) @ip at @mac from an NS, RS or RA (RFC 4861 7.2.3,
 * 6.3.4): a new entry, or one whose address changed, is STALE. */
static void
nd_learn(struct ust_stack *stk, const uint8_t *ip,
	 const struct rte_ether_addr *mac, bool router)
{
	struct ust_ip6 *i6 = stk->ip6;
	struct ust_nd_entry *e;
	uint32_t idx;

	e = nd_find(stk, ip, &idx);
	if (e == NULL) {
		e = nd_create(stk, ip, &idx, ND_FOR_LEARN);
		if (e == NULL)
			return;
		e->state = UST_ND_STALE;
		e->mac = *mac;
	} else if (e->state == UST_ND_PERMANENT) {
		return;
	} else if (e->state == UST_ND_INCOMPLETE) {
		i6->incomplete--;
		e->state = UST_ND_STALE;
		e->mac = *mac;
		ust_neigh_flush(stk, &i6->pending, &e->n);
	} else if (!rte_is_same_ether_addr(&e->mac, mac)) {
		e->state = UST_ND_STALE;
		e->mac = *mac;
	}
	if (router)
		e->is_router = 1;
}

static void
nd_dad_failed(struct ust_stack *stk, struct ust_ip6_addr *a)
{
	a->state = UST_IP6_DUPLICATE;
	stk->mib[UST_MIB_NDISC_DADFAILURES]++;
	ip6_log_addr(stk, "duplicate address detected, not used:", a->a);
}

static void
nd_input_ns(struct ust_stack *stk, const struct ust_ipv6_repr *ip6,
	    const struct ust_icmp6_repr *ic)
{
	struct ust_ip6 *i6 = stk->ip6;
	struct ust_icmp6_repr na;
	bool dad = memcmp(ip6->src, nd_unspec, UST_IPV6_ADDR_LEN) == 0;
	int k = ust_ip6_our_addr(stk, ic->target, false);
	struct ust_ip6_addr *a = k < 0 ? NULL : &i6->addr[k];

	if (a == NULL)
		return;
	if (a->state == UST_IP6_TENTATIVE) {
		/* RFC 4862 5.4.3: another node's DAD for it: ours fails;
		 * any other NS for a tentative address is ignored */
		if (dad)
			nd_dad_failed(stk, a);
		return;
	}
	if (a->state != UST_IP6_PREFERRED)
		return;
	if (stk->sib_in) {
		/* a sibling's copy: learn, the receiver answers */
		if (!dad && ic->nd.has_slla)
			nd_learn(stk, ip6->src, &ic->nd.slla, false);
		return;
	}
	memset(&na, 0, sizeof(na));
	na.type = UST_ICMP6_ND_NA;
	memcpy(na.target, ic->target, UST_IPV6_ADDR_LEN);
	na.nd.has_tlla = true;
	na.nd.tlla = stk->netif.mac;
	if (dad) {
		/* RFC 4861 7.2.4: to all-nodes, not solicited */
		na.flags = UST_ND_NA_OVERRIDE;
		nd_send(stk, a->a, nd_all_nodes, NULL, &na);
		return;
	}
	if (ic->nd.has_slla)
		nd_learn(stk, ip6->src, &ic->nd.slla, false);
	na.flags = UST_ND_NA_SOLICITED | UST_ND_NA_OVERRIDE;
	/* unicast back: to the SLLA when there was one, else resolved */
	nd_send(stk, a->a, ip6->src, ic->nd.has_slla ? &ic->nd.slla : NULL,
		&na);
}

static void
nd_input_na(struct ust_stack *stk, const struct ust_icmp6_repr *ic)
{
	struct ust_ip6 *i6 = stk->ip6;
	bool solicited = ic->flags & UST_ND_NA_SOLICITED;
	bool override = ic->flags & UST_ND_NA_OVERRIDE;
	struct ust_nd_entry *e;
	bool changed;
	uint32_t idx;
	int k;

	k = ust_ip6_our_addr(stk, ic->target, false);
	if (k >= 0) {
		/* someone answers for our address (RFC 4862 5.4.4) */
		if (i6->addr[k].state == UST_IP6_TENTATIVE)
			nd_dad_failed(stk, &i6->addr[k]);
		else if (stk->sib_in)
			; /* (counted by the stack that received it) */
		else if (!ic->nd.has_tlla ||
			 !rte_is_same_ether_addr(&ic->nd.tlla,
						 &stk->netif.mac))
			stk->mib[UST_MIB_NDISC_INCONFLICTS]++;
		return;
	}
	e = nd_find(stk, ic->target, &idx);
	if (e == NULL || e->state == UST_ND_PERMANENT)
		return; /* 7.2.5: no entry, nothing learned */
	if (e->state == UST_ND_INCOMPLETE) {
		if (!ic->nd.has_tlla)
			return;
		i6->incomplete--;
		e->mac = ic->nd.tlla;
		if (solicited) {
			e->state = UST_ND_REACHABLE;
			e->confirmed = stk->now;
		} else {
			e->state = UST_ND_STALE;
		}
		e->probes = 0;
		e->is_router = !!(ic->flags & UST_ND_NA_ROUTER);
		ust_neigh_flush(stk, &i6->pending, &e->n);
		return;
	}
	changed = ic->nd.has_tlla && !rte_is_same_ether_addr(&ic->nd.tlla,
							     &e->mac);
	if (!override && changed) {
		/* 7.2.5: keep the address; a REACHABLE one goes STALE */
		if (e->state == UST_ND_REACHABLE)
			e->state = UST_ND_STALE;
		return;
	}
	if (changed)
		e->mac = ic->nd.tlla;
	if (solicited) {
		e->state = UST_ND_REACHABLE;
		e->confirmed = stk->now;
		e->probes = 0;
	} else if (changed) {
		e->state = UST_ND_STALE;
	}
	e->is_router = !!(ic->flags & UST_ND_NA_ROUTER);
	/* 7.2.5: a learned default router that says it is no longer one
	 * stops being ours (a configured one stays) */
	if (!e->is_router && i6->has_router &&
	    i6->router_expires != UINT64_MAX &&
	    memcmp(i6->router, e->ip, UST_IPV6_ADDR_LEN) == 0)
		i6->has_router = false;
}

static void
nd_input_ra(struct ust_stack *stk, const struct ust_ipv6_repr *ip6,
	    const struct ust_icmp6_repr *ic)
{
	struct ust_ip6 *i6 = stk->ip6;
	const struct ust_nd_opts *o = &ic->nd;

	if (!stk->conf.ip6.accept_ra)
		return;
	/* a configured gateway is not replaced */
	if (!(i6->has_router && i6->router_expires == UINT64_MAX)) {
		if (ic->router_lifetime > 0) {
			memcpy(i6->router, ip6->src, UST_IPV6_ADDR_LEN);
			i6->has_router = true;
			i6->router_expires = stk->now +
				(uint64_t)ic->router_lifetime * 1000000000ull;
		} else if (i6->has_router &&
			   memcmp(i6->router, ip6->src,
				  UST_IPV6_ADDR_LEN) == 0) {
			i6->has_router = false;
		}
	}
	i6->rs_left = 0; /* a router answered */
	if (ic->cur_hop_limit != 0)
		i6->hop_limit = ic->cur_hop_limit;
	if (ic->reachable_ms != 0 && ic->reachable_ms <= 3600000)
		i6->reachable_ms = ic->reachable_ms;
	if (ic->retrans_ms != 0 && ic->retrans_ms <= 60000)
		i6->retrans_ms = ic->retrans_ms;
	if (o->has_mtu && o->mtu >= 1280 && o->mtu <= stk->netif.mtu)
		i6->mtu = (uint16_t)o->mtu;
	if (o->has_prefix && (o->prefix_flags & UST_ND_PREFIX_ONLINK) &&
	    o->prefix[0] != 0xff && !(o->prefix[0] == 0xfe &&
				      (o->prefix[1] & 0xc0) == 0x80)) {
		struct ust_ip6_prefix *slot = NULL;
		int k;

		for (k = 0; k < UST_IP6_MAX_PREFIXES; k++) {
			struct ust_ip6_prefix *p = &i6->prefixes[k];

			if (p->len == o->prefix_len &&
			    memcmp(p->p, o->prefix, UST_IPV6_ADDR_LEN) == 0) {
				slot = p;
				break;
			}
			if (slot == NULL && (p->len == 0 ||
					     stk->now >= p->expires))
				slot = p;
		}
		if (slot != NULL) {
			memcpy(slot->p, o->prefix, UST_IPV6_ADDR_LEN);
			slot->len = o->prefix_len;
			slot->expires = o->prefix_valid == UINT32_MAX ?
				UINT64_MAX : stk->now +
				(uint64_t)o->prefix_valid * 1000000000ull;
			if (o->prefix_valid == 0)
				slot->len = 0;
		}
	}
	if (o->has_slla)
		nd_learn(stk, ip6->src, &o->slla, true);
}

/* Sibling stacks (lib/group) learn what an NS, NA or RA teaches, as they
 * learn from ARP: the stack that received it answers, the copies only
 * teach (a sibling's NA may answer another stack's solicitation, its
 * queue being the one the peer's hash chose). */
static void
nd_copy_to_siblings(struct ust_stack *stk, struct rte_mbuf *m, uint32_t l3)
{
	if (rte_pktmbuf_prepend(m, (uint16_t)(UST_ETH_HDR_LEN + l3)) == NULL)
		return;
	stk->sib->arp_copy(stk, m);
	rte_pktmbuf_adj(m, (uint16_t)(UST_ETH_HDR_LEN + l3));
}

void
ust_nd_input(struct ust_stack *stk, struct rte_mbuf *m,
	     const struct ust_ipv6_repr *ip6, const struct ust_icmp6_repr *ic,
	     uint32_t l3_len)
{
	bool dad_src = memcmp(ip6->src, nd_unspec, UST_IPV6_ADDR_LEN) == 0;

	/* RFC 4861 6.1.1, 6.1.2, 7.1.1, 7.1.2, 8.1: what every ND message
	 * must be (off-link senders cannot send hop limit 255) */
	if (ip6->hop_limit != ND_HOP_LIMIT) {
		ust_drop(stk, m, UST_DROP_IPV6_NDISC_HOP_LIMIT);
		return;
	}
	if (ic->code != 0) {
		ust_drop(stk, m, UST_DROP_IPV6_NDISC_BAD_CODE);
		return;
	}
	if (stk->sib != NULL && !stk->sib_in &&
	    (ic->type == UST_ICMP6_ND_NS || ic->type == UST_ICMP6_ND_NA ||
	     ic->type == UST_ICMP6_ND_RA))
		nd_copy_to_siblings(stk, m, l3_len);
	switch (ic->type) {
	case UST_ICMP6_ND_NS:
		stk->mib[UST_MIB_ICMP6_INNEIGHBORSOLICITS]++;
		if (ust_ipv6_is_multicast(ic->target) ||
		    (dad_src && (ic->nd.has_slla ||
				 ip6->dst[0] != 0xff))) {
			/* 7.1.1: a multicast target; from :: only to a
			 * solicited-node group, without SLLA */
			ust_drop(stk, m, UST_DROP_IPV6_NDISC_BAD_OPTIONS);
			return;
		}
		if (ust_ip6_our_addr(stk, ic->target, false) < 0) {
			ust_drop(stk, m, UST_DROP_IPV6_NDISC_NS_OTHERHOST);
			return;
		}
		nd_input_ns(stk, ip6, ic);
		break;
	case UST_ICMP6_ND_NA:
		stk->mib[UST_MIB_ICMP6_INNEIGHBORADVERTISEMENTS]++;
		if (ust_ipv6_is_multicast(ic->target) ||
		    (ust_ipv6_is_multicast(ip6->dst) &&
		     (ic->flags & UST_ND_NA_SOLICITED))) {
			ust_drop(stk, m, UST_DROP_IPV6_NDISC_BAD_OPTIONS);
			return;
		}
		nd_input_na(stk, ic);
		break;
	case UST_ICMP6_ND_RS:
		/* a host discards them (RFC 4861 6.2.6 is a router's) */
		stk->mib[UST_MIB_ICMP6_INROUTERSOLICITS]++;
		break;
	case UST_ICMP6_ND_RA:
		stk->mib[UST_MIB_ICMP6_INROUTERADVERTISEMENTS]++;
		/* 6.1.2: from a link-local source */
		if (!(ip6->src[0] == 0xfe && (ip6->src[1] & 0xc0) == 0x80)) {
			ust_drop(stk, m, UST_DROP_IPV6_NDISC_BAD_OPTIONS);
			return;
		}
		nd_input_ra(stk, ip6, ic);
		break;
	default:
		/* redirect: counted, not followed */
		stk->mib[UST_MIB_ICMP6_INREDIRECTS]++;
		break;
	}
	ust_consumed(stk);
	rte_pktmbuf_free(m);
}

/* ---- timers ---- */

static void
nd_addr_timers(struct ust_stack *stk)
{
	struct ust_ip6 *i6 = stk->ip6;
	int k;

	for (k = 0; k < UST_IP6_NADDR; k++) {
		struct ust_ip6_addr *a = &i6->addr[k];

		if (a->state != UST_IP6_TENTATIVE || stk->now < a->dad_next)
			continue;
		if (a->dad_left == 0) {
			a->state = UST_IP6_PREFERRED;
			continue;
		}
		a->dad_left--;
		a->dad_next = stk->now + MS_TO_NS(i6->retrans_ms);
		nd_send_ns(stk, a->a, NULL, true);
	}
	if (i6->rs_left > 0 && stk->now >= i6->rs_next &&
	    i6->addr[UST_IP6_LL].state == UST_IP6_PREFERRED) {
		struct ust_icmp6_repr rs;

		memset(&rs, 0, sizeof(rs));
		rs.type = UST_ICMP6_ND_RS;
		rs.nd.has_slla = true;
		rs.nd.slla = stk->netif.mac;
		i6->rs_left--;
		i6->rs_next = stk->now + ND_RS_INTERVAL_NS;
		nd_send(stk, i6->addr[UST_IP6_LL].a, nd_all_routers, NULL,
			&rs);
	}
	if (i6->has_router && stk->now >= i6->router_expires)
		i6->has_router = false;
}

void
ust_ip6_timers(struct ust_stack *stk)
{
	struct ust_ip6 *i6 = stk->ip6;
	const struct ust_arp_conf *c = &stk->conf.arp;
	uint64_t now = stk->now;
	uint32_t i;

	i6->next_tick = now + ND_TICK_NS;
	ust_mld_timers(stk);
	nd_addr_timers(stk);
	if (i6->count == 0)
		return;
	for (i = 0; i < i6->cap; i++) {
		struct ust_nd_entry *e = &i6->e[i];

		switch (e->state) {
		case UST_ND_INCOMPLETE:
		case UST_ND_PROBE:
			if (now < e->next_probe)
				break;
			if (e->probes >= c->max_probes) {
				stk->mib[UST_MIB_NDISC_RESFAILED]++;
				nd_delete(stk, i);
				break;
			}
			e->probes++;
			e->next_probe = now + MS_TO_NS(i6->retrans_ms);
			nd_send_ns(stk, e->ip, e->state == UST_ND_PROBE ?
				   &e->mac : NULL, false);
			break;
		case UST_ND_DELAY:
			if (now < e->next_probe)
				break;
			/* 7.3.3: not confirmed meanwhile: probe */
			e->state = UST_ND_PROBE;
			e->probes = 1;
			e->next_probe = now + MS_TO_NS(i6->retrans_ms);
			nd_send_ns(stk, e->ip, &e->mac, false);
			break;
		case UST_ND_REACHABLE:
			if (now - e->confirmed > MS_TO_NS(i6->reachable_ms))
				e->state = UST_ND_STALE;
			break;
		case UST_ND_STALE:
			if (now - e->used > MS_TO_NS(c->gc_ms))
				nd_delete(stk, i);
			break;
		default:
			break;
		}
	}
}

uint64_t
ust_ip6_next_deadline(const struct ust_stack *stk)
{
	const struct ust_ip6 *i6 = stk->ip6;
	uint64_t d = UINT64_MAX, t;
	uint32_t i;
	int k;

	if (i6 == NULL)
		return UINT64_MAX;
	for (k = 0; k < UST_IP6_NADDR; k++)
		if (i6->addr[k].state == UST_IP6_TENTATIVE)
			d = RTE_MIN(d, i6->addr[k].dad_next);
	if (i6->rs_left > 0)
		d = RTE_MIN(d, i6->rs_next);
	d = RTE_MIN(d, ust_mld_next_deadline(stk));
	if (i6->has_router && i6->router_expires != UINT64_MAX)
		d = RTE_MIN(d, i6->router_expires);
	for (i = 0; i6->count > 0 && i < i6->cap; i++) {
		const struct ust_nd_entry *e = &i6->e[i];

		switch (e->state) {
		case UST_ND_INCOMPLETE:
		case UST_ND_PROBE:
		case UST_ND_DELAY:
			t = e->next_probe;
			break;
		case UST_ND_REACHABLE:
			t = e->confirmed + MS_TO_NS(i6->reachable_ms) + 1;
			break;
		case UST_ND_STALE:
			t = e->used + MS_TO_NS(stk->conf.arp.gc_ms) + 1;
			break;
		default:
			continue;
		}
		d = RTE_MIN(d, t);
	}
	return d == UINT64_MAX ? d : RTE_MAX(d, i6->next_tick);
}

/* ---- set-up ---- */

int
ust_ip6_init(struct ust_stack *stk)
{
	const struct ust_ip6_conf *c = &stk->conf.ip6;
	char name[RTE_HASH_NAMESIZE];
	struct rte_hash_parameters hp = {
		.name = name,
		.key_len = UST_IPV6_ADDR_LEN,
		.hash_func = rte_hash_crc,
		.socket_id = stk->conf.socket_id,
		/* extendable buckets: the keys are the peers' choice */
		.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};
	const uint8_t *mac = stk->netif.mac.addr_bytes;
	struct ust_ip6 *i6;
	uint32_t i;
	int k;

	stk->ip6 = NULL;
	if (!c->enable)
		return 0;
	i6 = rte_zmalloc_socket("ust_ip6", sizeof(*i6), RTE_CACHE_LINE_SIZE,
				stk->conf.socket_id);
	if (i6 == NULL)
		return -ENOMEM;
	stk->ip6 = i6;
	i6->cap = stk->conf.arp.entries;
	hp.entries = i6->cap * 2 < 64 ? 64 : i6->cap * 2;
	snprintf(name, sizeof(name), "ust_nd_%p", (void *)stk);
	i6->h = rte_hash_create(&hp);
	i6->e = rte_zmalloc_socket("ust_nd", sizeof(*i6->e) * i6->cap,
				   RTE_CACHE_LINE_SIZE, stk->conf.socket_id);
	if (i6->h == NULL || i6->e == NULL)
		return -ENOMEM;
	for (i = 0; i < i6->cap; i++)
		i6->e[i].next_free = i + 1 < i6->cap ? i + 1 : ND_NONE;
	i6->hit_idx = ND_NONE;
	i6->mtu = stk->netif.mtu;
	i6->hop_limit = c->hop_limit;
	i6->reachable_ms = stk->conf.arp.reachable_ms;
	i6->retrans_ms = stk->conf.arp.retrans_ms;
	i6->icmp_tokens_ns = (uint64_t)stk->conf.icmp.burst *
		(stk->conf.icmp.msgs_per_sec ?
		 1000000000ull / stk->conf.icmp.msgs_per_sec : 0);
	/* fe80::/64 with the modified EUI-64 of the MAC (RFC 4291 2.5.1) */
	i6->addr[UST_IP6_LL].a[0] = 0xfe;
	i6->addr[UST_IP6_LL].a[1] = 0x80;
	i6->addr[UST_IP6_LL].a[8] = mac[0] ^ 0x02;
	i6->addr[UST_IP6_LL].a[9] = mac[1];
	i6->addr[UST_IP6_LL].a[10] = mac[2];
	i6->addr[UST_IP6_LL].a[11] = 0xff;
	i6->addr[UST_IP6_LL].a[12] = 0xfe;
	i6->addr[UST_IP6_LL].a[13] = mac[3];
	i6->addr[UST_IP6_LL].a[14] = mac[4];
	i6->addr[UST_IP6_LL].a[15] = mac[5];
	i6->addr[UST_IP6_LL].prefix_len = 64;
	i6->addr[UST_IP6_LL].state = UST_IP6_TENTATIVE;
	if (memcmp(c->addr, nd_unspec, UST_IPV6_ADDR_LEN) != 0) {
		memcpy(i6->addr[UST_IP6_GLOBAL].a, c->addr,
		       UST_IPV6_ADDR_LEN);
		i6->addr[UST_IP6_GLOBAL].prefix_len = c->prefix_len;
		i6->addr[UST_IP6_GLOBAL].state = UST_IP6_TENTATIVE;
	}
	for (k = 0; k < UST_IP6_NADDR; k++) {
		i6->addr[k].dad_left = c->dad_transmits;
		i6->addr[k].dad_next = stk->now;
		if (c->dad_transmits == 0 && i6->addr[k].state != 0)
			i6->addr[k].state = UST_IP6_PREFERRED;
	}
	if (memcmp(c->gateway, nd_unspec, UST_IPV6_ADDR_LEN) != 0) {
		memcpy(i6->router, c->gateway, UST_IPV6_ADDR_LEN);
		i6->has_router = true;
		i6->router_expires = UINT64_MAX;
	} else if (c->accept_ra) {
		i6->rs_left = ND_RS_MAX;
		i6->rs_next = stk->now;
	}
	/* MLD reports first (RFC 4862 5.4.2: join before DAD's NS) */
	i6->mld_left = 2;
	i6->mld_next = stk->now;
	i6->mld_answer = UINT64_MAX;
	i6->next_tick = stk->now;
	return 0;
}

void
ust_ip6_fini(struct ust_stack *stk)
{
	struct ust_ip6 *i6 = stk->ip6;
	uint32_t i;

	if (i6 == NULL)
		return;
	if (i6->e != NULL && i6->h != NULL)
		for (i = 0; i < i6->cap; i++)
			if (i6->e[i].state != UST_ND_FREE)
				nd_delete(stk, i);
	rte_hash_free(i6->h);
	rte_free(i6->e);
	rte_free(i6);
	stk->ip6 = NULL;
}

int
ust_stack_nd_lookup(const struct ust_stack *stk, const uint8_t *ip,
		    struct rte_ether_addr *mac, const char **state)
{
	const struct ust_nd_entry *e;
	uint32_t idx;

	if (stk->ip6 == NULL || ip == NULL)
		return -ENOENT;
	e = nd_find(stk, ip, &idx);
	if (e == NULL)
		return -ENOENT;
	if (state != NULL)
		*state = ust_neigh_state_name(e->state);
	if (e->state == UST_ND_INCOMPLETE)
		return -ENOENT;
	if (mac != NULL)
		*mac = e->mac;
	return 0;
}
