/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * IPv4 fragments: reassembly of what arrives (RFC 791, RFC 815) and
 * fragmentation of what we send above the MTU.
 *
 * Reassembly, ust_ip_reasm(), from ust_ipv4_input() for every validated
 * fragment addressed to us. A datagram being reassembled is a queue keyed
 * by (source, destination, ID, protocol) in an rte_hash, its fragments
 * held in offset order (linked through their metadata, each keeping its
 * own IP header until the datagram is complete). The rules are Linux's
 * (net/ipv4/ip_fragment.c, inet_fragment.c) and RFC 5722's, which Linux
 * applies to IPv4 as well:
 *  - a fragment whose payload is empty, not a multiple of 8 bytes while
 *    more follow, or that would end past 65535 bytes (the ping of death)
 *    is malformed; so is one that disagrees with the datagram's end once
 *    the last fragment has told it (IP_FRAG_MALFORMED, the datagram
 *    dropped with it);
 *  - an exact duplicate of a held fragment is dropped alone (DUP_FRAG);
 *  - any other overlap drops the whole datagram (IP_FRAG_OVERLAP for the
 *    fragment, IP_FRAG_REASM_FAILED for those held; ReasmOverlaps): no
 *    overlap is ever resolved, so no byte of a datagram is ever chosen
 *    between two copies (the teardrop and the overlapping-fragment
 *    evasions);
 *  - a datagram is held [frag] timeout_ms from its first fragment
 *    (Linux's ipfrag_time, 30 s), then dropped (FRAG_REASM_TIMEOUT,
 *    ReasmTimeout), with an ICMP time exceeded (code 1, RFC 792) when its
 *    first fragment had come, as Linux sends;
 *  - what is held is bounded: [frag] max_datagrams queues, [frag] mem_max
 *    bytes of fragments (mbuf truesize, as ipfrag_high_thresh) and
 *    [frag] max_frags fragments a datagram (IP_FRAG_TOO_MANY beyond). A
 *    new fragment that finds the table full evicts the oldest datagrams
 *    (IP_FRAG_EVICTED), as FreeBSD does: Linux instead refuses every
 *    fragment until the timeout frees memory, so that a flood of random
 *    IDs stops all reassembly for 30 s; evicting the oldest lets a
 *    datagram whose fragments come together complete under such a flood.
 * Counting: every fragment counts in ReasmReqds; a fragment held counts
 * as consumed (as a segment queued out of order does), and when its
 * datagram fails it is freed under a drop reason of the SOCK path (held,
 * then freed), so that frames in == consumed + RX drops holds at every
 * moment. The datagram completed goes on as one received packet (one of
 * its fragments is no longer consumed): ReasmOKs.
 *
 * Not rte_ip_frag's reassembly: DPDK's table takes at most
 * RTE_LIBRTE_IP_FRAG_MAX_FRAG fragments a datagram, a build-time constant
 * that Debian's DPDK 22.11 sets to 8 (11840 bytes at MTU 1500, where a UDP
 * datagram of 65507 bytes is 45 fragments), and it resolves overlaps
 * rather than dropping the datagram as RFC 5722 asks.
 *
 * Fragmentation, ust_ipv4_fragment(), from ust_ipv4_output() for a packet
 * above the MTU without DF: rte_ipv4_fragment_packet(), which attaches the
 * payload to the fragments (indirect mbufs, no copy) and copies the
 * header; here each fragment's header checksum, and FragOKs/FragCreates.
 */

#include <errno.h>
#include <string.h>

#include <rte_hash.h>
#include <rte_ip.h>
#include <rte_ip_frag.h>
#include <rte_jhash.h>
#include <rte_malloc.h>

#include "ip_private.h"
#include "ust_wire.h"

#define NS_PER_MS 1000000ull
/* the largest IPv4 datagram */
#define IPV4_MAX_LEN 65535u

struct reasm_key {
	rte_be32_t src;
	rte_be32_t dst;
	rte_be16_t id;
	uint8_t proto;
	uint8_t zero;
};

/* a datagram being reassembled */
struct reasm_q {
	struct reasm_key key;
	struct reasm_q *older;    /* by arrival of the first fragment; the */
	struct reasm_q *newer;    /* free list through newer */
	struct rte_mbuf *frags;   /* by offset, through meta nextpkt */
	uint64_t expire_ns;
	uint32_t end;             /* payload length, once the last came */
	uint32_t have;            /* payload bytes held (never overlapping) */
	uint32_t truesize;        /* of the fragments held */
	uint16_t nfrags;
	bool last_seen;
};

struct ust_ip_reasm {
	struct rte_hash *h;
	struct reasm_q *qs;       /* max_datagrams of them */
	struct reasm_q *free;
	struct reasm_q *oldest;
	struct reasm_q *newest;
	uint32_t n;
	uint64_t mem;             /* truesize held */
	uint64_t mem_max;
	uint64_t timeout_ns;
	uint32_t max_datagrams;
	uint32_t max_frags;
};

int
ust_ip_reasm_init(struct ust_stack *stk)
{
	const struct ust_frag_conf *c = &stk->conf.frag;
	struct ust_ip_reasm *r;
	struct rte_hash_parameters hp;
	char name[RTE_HASH_NAMESIZE];
	uint32_t i;

	r = rte_zmalloc_socket("ust_reasm", sizeof(*r), RTE_CACHE_LINE_SIZE,
			       stk->conf.socket_id);
	if (r == NULL)
		return -ENOMEM;
	r->qs = rte_zmalloc_socket("ust_reasm_q",
				   sizeof(*r->qs) * c->max_datagrams,
				   RTE_CACHE_LINE_SIZE, stk->conf.socket_id);
	memset(&hp, 0, sizeof(hp));
	snprintf(name, sizeof(name), "ust_frag_%p", (void *)stk);
	hp.name = name;
	/* rte_hash needs room for 8 at least */
	hp.entries = RTE_MAX(c->max_datagrams, 8u);
	hp.key_len = sizeof(struct reasm_key);
	hp.hash_func = rte_jhash;
	hp.socket_id = stk->conf.socket_id;
	/* extendable buckets: every one of the entries fits, whatever the
	 * keys (a flood of chosen IDs must not leave a full bucket that
	 * refuses a new datagram while the table has room) */
	hp.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE;
	r->h = rte_hash_create(&hp);
	if (r->qs == NULL || r->h == NULL) {
		rte_hash_free(r->h);
		rte_free(r->qs);
		rte_free(r);
		return -ENOMEM;
	}
	for (i = 0; i < c->max_datagrams; i++)
		r->qs[i].newer = i + 1 < c->max_datagrams ? &r->qs[i + 1] :
				 NULL;
	r->free = &r->qs[0];
	r->mem_max = c->mem_max;
	r->timeout_ns = (uint64_t)c->timeout_ms * NS_PER_MS;
	r->max_datagrams = c->max_datagrams;
	r->max_frags = c->max_frags;
	stk->reasm = r;
	stk->reasm_next = UINT64_MAX;
	return 0;
}

/* Forget @q (its fragments already gone) and put it back on the free
 * list. */
static void
reasm_q_free(struct ust_stack *stk, struct reasm_q *q)
{
	struct ust_ip_reasm *r = stk->reasm;

	rte_hash_del_key(r->h, &q->key);
	if (q->older != NULL)
		q->older->newer = q->newer;
	else
		r->oldest = q->newer;
	if (q->newer != NULL)
		q->newer->older = q->older;
	else
		r->newest = q->older;
	r->mem -= q->truesize;
	r->n--;
	memset(q, 0, sizeof(*q));
	q->newer = r->free;
	r->free = q;
	stk->reasm_next = r->oldest != NULL ? r->oldest->expire_ns :
			  UINT64_MAX;
}

/* Drop a datagram: each fragment held under @why. */
static void
reasm_kill(struct ust_stack *stk, struct reasm_q *q, enum ust_drop_reason why)
{
	struct rte_mbuf *f = q->frags;

	while (f != NULL) {
		struct rte_mbuf *next = ust_meta(stk->meta_off, f)->nextpkt;

		ust_drop(stk, f, why);
		f = next;
	}
	q->frags = NULL;
	stk->mib[UST_MIB_IP_REASMFAILS]++;
	reasm_q_free(stk, q);
}

void
ust_ip_reasm_fini(struct ust_stack *stk)
{
	struct ust_ip_reasm *r = stk->reasm;

	if (r == NULL)
		return;
	while (r->oldest != NULL)
		reasm_kill(stk, r->oldest, UST_DROP_IP_FRAG_REASM_FAILED);
	rte_hash_free(r->h);
	rte_free(r->qs);
	rte_free(r);
	stk->reasm = NULL;
	stk->reasm_next = UINT64_MAX;
}

void
ust_ip_reasm_timers(struct ust_stack *stk)
{
	struct ust_ip_reasm *r = stk->reasm;

	while (r->oldest != NULL && r->oldest->expire_ns <= stk->now) {
		struct reasm_q *q = r->oldest;
		struct rte_mbuf *first = q->frags;

		stk->mib[UST_MIB_IP_REASMTIMEOUT]++;
		/* RFC 792, RFC 1122 3.3.2: time exceeded, fragment reassembly
		 * time exceeded, about the first fragment, if it came (the
		 * error quotes its header and the L4 header) */
		if (first != NULL &&
		    ust_meta(stk->meta_off, first)->frag_off == 0) {
			struct ust_ipv4_repr ip;

			if (ust_ipv4_parse(rte_pktmbuf_mtod(first, void *),
					   first->data_len, first->pkt_len,
					   UST_WIRE_F_NO_CSUM, &ip) ==
			    UST_WIRE_OK)
				ust_icmp_send_error(stk, first, &ip,
						    UST_ICMP_TIME_EXCEEDED, 1);
		}
		reasm_kill(stk, q, UST_DROP_FRAG_REASM_TIMEOUT);
	}
}

/* Make room for @ts more bytes and, when @need_q, one more datagram, by
 * evicting the oldest datagrams other than @keep. True when there is. */
static bool
reasm_room(struct ust_stack *stk, struct reasm_q *keep, uint32_t ts,
	   bool need_q)
{
	struct ust_ip_reasm *r = stk->reasm;

	while ((r->mem + ts > r->mem_max || (need_q && r->free == NULL)) &&
	       r->oldest != NULL && r->oldest != keep)
		reasm_kill(stk, r->oldest, UST_DROP_IP_FRAG_EVICTED);
	/* (@keep the oldest: the next one) */
	while (keep != NULL && r->mem + ts > r->mem_max &&
	       keep->newer != NULL)
		reasm_kill(stk, keep->newer, UST_DROP_IP_FRAG_EVICTED);
	return r->mem + ts <= r->mem_max && (!need_q || r->free != NULL);
}

/* The datagram is whole: its fragments chained behind the first, whose
 * header now tells the whole datagram. NULL when it cannot be chained
 * (counted). */
static struct rte_mbuf *
reasm_finish(struct ust_stack *stk, struct reasm_q *q,
	     struct ust_ipv4_repr *ip)
{
	struct rte_mbuf *head = q->frags, *f;
	struct rte_ipv4_hdr *ih;
	uint32_t hlen;

	f = ust_meta(stk->meta_off, head)->nextpkt;
	ust_meta(stk->meta_off, head)->nextpkt = NULL;
	q->frags = NULL;
	while (f != NULL) {
		struct rte_mbuf *next = ust_meta(stk->meta_off, f)->nextpkt;
		uint32_t fh = (uint32_t)(*rte_pktmbuf_mtod(f, uint8_t *) &
					 0xf) * 4;

		/* (ust_mbuf_adj() frees a segment the header filled) */
		f = ust_mbuf_adj(stk->meta_off, f, fh);
		if (f != NULL && rte_pktmbuf_chain(head, f) != 0) {
			/* more segments than an mbuf chain may have */
			ust_drop(stk, f, UST_DROP_IP_FRAG_REASM_FAILED);
			f = next;
			while (f != NULL) {
				next = ust_meta(stk->meta_off, f)->nextpkt;
				ust_drop(stk, f,
					 UST_DROP_IP_FRAG_REASM_FAILED);
				f = next;
			}
			ust_drop(stk, head, UST_DROP_IP_FRAG_REASM_FAILED);
			stk->mib[UST_MIB_IP_REASMFAILS]++;
			reasm_q_free(stk, q);
			return NULL;
		}
		f = next;
	}
	ih = rte_pktmbuf_mtod(head, struct rte_ipv4_hdr *);
	hlen = (uint32_t)(ih->version_ihl & 0xf) * 4;
	/* the first fragment goes on as the datagram (or is dropped as one
	 * received packet): no longer consumed */
	stk->rx_consumed--;
	if (hlen + q->end > IPV4_MAX_LEN) {
		/* the first fragment's options make it longer than IPv4
		 * allows (Linux's "oversized IP packet") */
		reasm_q_free(stk, q);
		stk->mib[UST_MIB_IP_REASMFAILS]++;
		ust_drop(stk, head, UST_DROP_IP_FRAG_MALFORMED);
		return NULL;
	}
	ih->total_length = rte_cpu_to_be_16((uint16_t)(hlen + q->end));
	ih->fragment_offset = 0;
	ih->hdr_checksum = 0;
	ih->hdr_checksum = rte_ipv4_cksum(ih);
	/* what a NIC said of the first fragment's L4 checksum was about a
	 * piece of it */
	head->ol_flags &= ~RTE_MBUF_F_RX_L4_CKSUM_MASK;
	reasm_q_free(stk, q);
	stk->mib[UST_MIB_IP_REASMOKS]++;
	/* (each piece was parsed and the lengths are ours: this holds) */
	if (ust_ipv4_parse(ih, head->data_len, head->pkt_len,
			   UST_WIRE_F_NO_CSUM, ip) != UST_WIRE_OK) {
		ust_drop(stk, head, UST_DROP_IP_FRAG_MALFORMED);
		return NULL;
	}
	return head;
}

struct rte_mbuf *
ust_ip_reasm(struct ust_stack *stk, struct rte_mbuf *m,
	     struct ust_ipv4_repr *ip)
{
	struct ust_ip_reasm *r = stk->reasm;
	struct ust_mbuf_meta *meta = ust_meta(stk->meta_off, m);
	struct reasm_key key;
	struct reasm_q *q;
	struct rte_mbuf **pp, *f;
	uint32_t off = ip->frag_off;
	uint32_t len = ip->total_len - ip->hdr_len;
	uint32_t end = off + len, ts;
	void *data;

	stk->mib[UST_MIB_IP_REASMREQDS]++;
	if (len == 0 || (ip->mf && (len & 7) != 0) ||
	    end + ip->hdr_len > IPV4_MAX_LEN) {
		stk->mib[UST_MIB_IP_REASMFAILS]++;
		ust_drop(stk, m, UST_DROP_IP_FRAG_MALFORMED);
		return NULL;
	}
	memset(&key, 0, sizeof(key));
	key.src = ip->src;
	key.dst = ip->dst;
	key.id = rte_cpu_to_be_16(ip->id);
	key.proto = ip->proto;
	ts = ust_truesize(m);
	if (rte_hash_lookup_data(r->h, &key, &data) >= 0) {
		q = data;
	} else {
		if (!reasm_room(stk, NULL, ts, true)) {
			ust_drop(stk, m, UST_DROP_IP_FRAG_NOMEM);
			return NULL;
		}
		q = r->free;
		r->free = q->newer;
		memset(q, 0, sizeof(*q));
		q->key = key;
		q->expire_ns = stk->now + r->timeout_ns;
		if (rte_hash_add_key_data(r->h, &key, q) != 0) {
			q->newer = r->free;
			r->free = q;
			ust_drop(stk, m, UST_DROP_IP_FRAG_NOMEM);
			return NULL;
		}
		q->older = r->newest;
		if (r->newest != NULL)
			r->newest->newer = q;
		else
			r->oldest = q;
		r->newest = q;
		r->n++;
		if (stk->reasm_next == UINT64_MAX)
			stk->reasm_next = q->expire_ns;
	}
	/* the end: told by the last fragment, and no fragment beyond it */
	if (!ip->mf && q->last_seen) {
		if (end != q->end)
			goto malformed;
	} else if (!ip->mf) {
		for (f = q->frags; f != NULL;
		     f = ust_meta(stk->meta_off, f)->nextpkt) {
			const struct ust_mbuf_meta *fm =
				ust_meta(stk->meta_off, f);

			if (fm->frag_off + fm->frag_len > end)
				goto malformed;
		}
	} else if (q->last_seen && end > q->end) {
		goto malformed;
	}
	/* where it goes: after every fragment that starts before it */
	pp = &q->frags;
	while (*pp != NULL &&
	       ust_meta(stk->meta_off, *pp)->frag_off < off)
		pp = &ust_meta(stk->meta_off, *pp)->nextpkt;
	if (*pp != NULL) {
		const struct ust_mbuf_meta *nm = ust_meta(stk->meta_off, *pp);

		if (nm->frag_off == off && nm->frag_len == len) {
			ust_drop(stk, m, UST_DROP_DUP_FRAG);
			return NULL;
		}
		if (nm->frag_off < end)
			goto overlap;
	}
	if (pp != &q->frags) {
		/* the fragment before: pp points into its metadata */
		const struct ust_mbuf_meta *pm = container_of(pp,
			struct ust_mbuf_meta, nextpkt);

		if (pm->frag_off + pm->frag_len > off)
			goto overlap;
	}
	if (q->nfrags >= r->max_frags) {
		ust_drop(stk, m, UST_DROP_IP_FRAG_TOO_MANY);
		reasm_kill(stk, q, UST_DROP_IP_FRAG_REASM_FAILED);
		return NULL;
	}
	if (!reasm_room(stk, q, ts, false)) {
		ust_drop(stk, m, UST_DROP_IP_FRAG_NOMEM);
		return NULL;
	}
	meta->frag_off = off;
	meta->frag_len = len;
	meta->nextpkt = *pp;
	*pp = m;
	q->nfrags++;
	q->have += len;
	q->truesize += ts;
	r->mem += ts;
	if (!ip->mf) {
		q->last_seen = true;
		q->end = end;
	}
	ust_consumed(stk);
	if (q->last_seen && q->have == q->end)
		return reasm_finish(stk, q, ip);
	return NULL;
overlap:
	stk->mib[UST_MIB_IPEXT_REASMOVERLAPS]++;
	ust_drop(stk, m, UST_DROP_IP_FRAG_OVERLAP);
	reasm_kill(stk, q, UST_DROP_IP_FRAG_REASM_FAILED);
	return NULL;
malformed:
	ust_drop(stk, m, UST_DROP_IP_FRAG_MALFORMED);
	reasm_kill(stk, q, UST_DROP_IP_FRAG_REASM_FAILED);
	return NULL;
}

/* ---- fragmentation ---- */

int
ust_ipv4_fragment(struct ust_stack *stk, struct rte_mbuf *m, uint16_t mtu,
		  struct rte_mbuf **out)
{
	const struct ust_mbuf_meta *meta = ust_meta(stk->meta_off, m);
	uint32_t owner_sd = meta->owner_sd;
	uint32_t owner_gen = meta->owner_gen;
	uint32_t truesize = meta->truesize;
	int32_t n, i;

	uint32_t count = ust_ipv4_frag_count(m->pkt_len - UST_IPV4_HDR_LEN,
					     mtu);

	if (count > UST_IPV4_FRAGS_MAX) {
		stk->mib[UST_MIB_IP_FRAGFAILS]++;
		ust_tx_drop(stk, m, UST_DROP_PKT_TOO_BIG);
		return -EMSGSIZE;
	}
	/* a reply no socket owns (an echo reply) takes its two mbufs a
	 * fragment only above the pool's RX reserve, as every reply does */
	if (owner_sd == UST_OWNER_NONE && !ust_reply_room(stk, 2 * count)) {
		stk->mib[UST_MIB_IP_FRAGFAILS]++;
		ust_drop(stk, m, UST_DROP_NOMEM_RESERVE);
		return -ENOBUFS;
	}
	n = rte_ipv4_fragment_packet(m, out, UST_IPV4_FRAGS_MAX, mtu,
				     stk->pool, stk->pool);
	if (n <= 0) {
		stk->mib[UST_MIB_IP_FRAGFAILS]++;
		ust_tx_drop(stk, m, UST_DROP_NOMEM);
		return -ENOBUFS;
	}
	/* the payload lives on in the fragments (indirect mbufs); the
	 * sender's wmem goes with the last of them */
	ust_meta_no_owner(stk->meta_off, m);
	rte_pktmbuf_free(m);
	for (i = 0; i < n; i++) {
		ust_meta_no_owner(stk->meta_off, out[i]);
		out[i]->ol_flags = 0;
	}
	if (owner_sd != UST_OWNER_NONE) {
		struct ust_mbuf_meta *lm = ust_meta(stk->meta_off, out[n - 1]);

		lm->owner_sd = owner_sd;
		lm->owner_gen = owner_gen;
		lm->truesize = truesize;
	}
	/* a netif that takes no chains gets each fragment copied into its
	 * first mbuf (which has the whole data room: the MTU fits) */
	if (!(stk->netif.flags & UST_NETIF_F_TX_MULTI_SEGS)) {
		for (i = 0; i < n; i++)
			if (rte_pktmbuf_linearize(out[i]) != 0)
				break;
		if (i < n) {
			for (i = 0; i < n; i++)
				ust_tx_drop(stk, out[i], UST_DROP_NOMEM);
			stk->mib[UST_MIB_IP_FRAGFAILS]++;
			return -ENOBUFS;
		}
	}
	stk->mib[UST_MIB_IP_FRAGOKS]++;
	stk->mib[UST_MIB_IP_FRAGCREATES] += (uint64_t)n;
	return (int)n;
}
