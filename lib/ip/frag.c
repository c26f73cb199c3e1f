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
#include <rte_random.h>

#include "ip_private.h"
#include "ust_wire.h"

#define NS_PER_MS 1000000ull
/* the largest IPv4 datagram */
#define IPV4_MAX_LEN 65535u

/* (source, destination, ID, protocol) for IPv4 (RFC 791); (source,
 * destination, ID) for IPv6 (RFC 8200 4.5), its protocol 0; one table
 * holds both */
struct reasm_key {
	uint8_t src[16];         /* IPv4: the first 4 bytes */
	uint8_t dst[16];
	uint32_t id;
	uint8_t proto;
	uint8_t family;          /* 4 or 6 */
	uint16_t zero;
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

/* The family's counters: Ip's or Ip6's */
static inline enum ust_mib
mib_reqds(const struct reasm_key *k)
{
	return k->family == 6 ? UST_MIB_IP6_REASMREQDS : UST_MIB_IP_REASMREQDS;
}

static inline enum ust_mib
mib_fails(const struct reasm_key *k)
{
	return k->family == 6 ? UST_MIB_IP6_REASMFAILS : UST_MIB_IP_REASMFAILS;
}

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
	stk->mib[mib_fails(&q->key)]++;
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

		stk->mib[q->key.family == 6 ? UST_MIB_IP6_REASMTIMEOUT :
			 UST_MIB_IP_REASMTIMEOUT]++;
		/* RFC 8200 4.5: the same, ICMPv6's (time exceeded code 1),
		 * when the first fragment came */
		if (q->key.family == 6 && first != NULL &&
		    ust_meta(stk->meta_off, first)->frag_off == 0 &&
		    stk->ip6 != NULL) {
			struct ust_ipv6_repr ip6;

			if (ust_ipv6_parse(rte_pktmbuf_mtod(first, void *),
					   first->data_len, first->pkt_len,
					   &ip6) == UST_WIRE_OK)
				ust_icmp6_send_error(stk, first, &ip6,
						     UST_ICMP6_TIME_EXCEEDED,
						     1, 0);
		}
		/* RFC 792, RFC 1122 3.3.2: time exceeded, fragment reassembly
		 * time exceeded, about the first fragment, if it came (the
		 * error quotes its header and the L4 header) */
		if (q->key.family == 4 && first != NULL &&
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
reasm_chain(struct ust_stack *stk, struct reasm_q *q)
{
	struct rte_mbuf *head = q->frags, *f;

	f = ust_meta(stk->meta_off, head)->nextpkt;
	ust_meta(stk->meta_off, head)->nextpkt = NULL;
	q->frags = NULL;
	while (f != NULL) {
		struct rte_mbuf *next = ust_meta(stk->meta_off, f)->nextpkt;
		/* IPv4: each piece keeps its header until now; IPv6's lost
		 * theirs when they were held */
		uint32_t fh = q->key.family == 4 ?
			(uint32_t)(*rte_pktmbuf_mtod(f, uint8_t *) & 0xf) * 4 :
			0;

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
			stk->mib[mib_fails(&q->key)]++;
			reasm_q_free(stk, q);
			return NULL;
		}
		f = next;
	}
	return head;
}

static struct rte_mbuf *
reasm_finish(struct ust_stack *stk, struct reasm_q *q,
	     struct ust_ipv4_repr *ip)
{
	struct rte_mbuf *head = reasm_chain(stk, q);
	struct rte_ipv4_hdr *ih;
	uint32_t hlen;

	if (head == NULL)
		return NULL;
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

/*
 * Hold @m, a fragment of the datagram @key carrying payload bytes [@off,
 * @off + @len) (more after it when @mf), the rules in the file header
 * applied; its end past @max_end is malformed. Returns the datagram's
 * queue when @m completed it (to be finished by the family), else NULL
 * (@m held or dropped).
 */
static struct reasm_q *
reasm_add(struct ust_stack *stk, struct rte_mbuf *m,
	  const struct reasm_key *kp, uint32_t off, uint32_t len, bool mf,
	  uint32_t max_end)
{
	struct ust_ip_reasm *r = stk->reasm;
	struct ust_mbuf_meta *meta = ust_meta(stk->meta_off, m);
	struct reasm_key key = *kp;
	struct reasm_q *q;
	struct rte_mbuf **pp, *f;
	uint32_t end = off + len, ts;
	void *data;

	stk->mib[mib_reqds(&key)]++;
	if (len == 0 || (mf && (len & 7) != 0) || end > max_end) {
		stk->mib[mib_fails(&key)]++;
		ust_drop(stk, m, UST_DROP_IP_FRAG_MALFORMED);
		return NULL;
	}
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
	if (!mf && q->last_seen) {
		if (end != q->end)
			goto malformed;
	} else if (!mf) {
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
	if (!mf) {
		q->last_seen = true;
		q->end = end;
	}
	ust_consumed(stk);
	if (q->last_seen && q->have == q->end)
		return q;
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

struct rte_mbuf *
ust_ip_reasm(struct ust_stack *stk, struct rte_mbuf *m,
	     struct ust_ipv4_repr *ip)
{
	struct reasm_key key;
	struct reasm_q *q;

	memset(&key, 0, sizeof(key));
	memcpy(key.src, &ip->src, 4);
	memcpy(key.dst, &ip->dst, 4);
	key.id = ip->id;
	key.proto = ip->proto;
	key.family = 4;
	q = reasm_add(stk, m, &key, ip->frag_off, ip->total_len - ip->hdr_len,
		      ip->mf, IPV4_MAX_LEN - ip->hdr_len);
	return q == NULL ? NULL : reasm_finish(stk, q, ip);
}

/* The offset of the next-header field that names the fragment header at
 * @fh_off in the IPv6 packet @p (the fixed header's, or the extension
 * header's before it: each of those has its length in 8-byte units). */
static uint32_t
ipv6_nh_field(const uint8_t *p, uint32_t fh_off)
{
	uint32_t field = 6, off = UST_IPV6_HDR_LEN;

	while (off < fh_off) {
		field = off;
		off += ((uint32_t)p[off + 1] + 1) * 8;
	}
	return field;
}

/* IPv6's datagram is whole: the fragment header taken out of the first
 * piece (the headers before it move up 8 bytes), the payload length and
 * the next header that named it rewritten. */
static struct rte_mbuf *
reasm6_finish(struct ust_stack *stk, struct reasm_q *q, uint32_t fh_off)
{
	struct rte_mbuf *head = reasm_chain(stk, q);
	uint32_t plen;
	uint8_t *p;

	if (head == NULL)
		return NULL;
	stk->rx_consumed--; /* the first piece goes on as the datagram */
	p = rte_pktmbuf_mtod(head, uint8_t *);
	plen = fh_off - UST_IPV6_HDR_LEN + q->end;
	p[ipv6_nh_field(p, fh_off)] = p[fh_off];
	memmove(p + 8, p, fh_off);
	rte_pktmbuf_adj(head, 8);
	p = rte_pktmbuf_mtod(head, uint8_t *);
	p[4] = (uint8_t)(plen >> 8);
	p[5] = (uint8_t)plen;
	head->ol_flags &= ~RTE_MBUF_F_RX_L4_CKSUM_MASK;
	reasm_q_free(stk, q);
	stk->mib[UST_MIB_IP6_REASMOKS]++;
	return head;
}

struct rte_mbuf *
ust_ip6_reasm(struct ust_stack *stk, struct rte_mbuf *m,
	      const struct ust_ipv6_repr *ip6,
	      const struct ust_ipv6_ext_repr *x)
{
	uint32_t hdrs = (uint32_t)x->frag_hdr_off + 8;
	struct reasm_key key;
	struct reasm_q *q;
	uint32_t len;

	memset(&key, 0, sizeof(key));
	memcpy(key.src, ip6->src, 16);
	memcpy(key.dst, ip6->dst, 16);
	key.id = x->frag_id;
	key.family = 6;
	len = m->pkt_len - hdrs;
	if (x->frag_off + len + (x->frag_hdr_off - UST_IPV6_HDR_LEN) >
	    65535) {
		/* RFC 8200 4.5: past 65535 once whole: parameter problem
		 * at the fragment offset field */
		ust_icmp6_send_error(stk, m, ip6, UST_ICMP6_PARAM_PROBLEM,
				     UST_ICMP6_PARAM_HDR,
				     x->frag_hdr_off + 2u);
		stk->mib[UST_MIB_IP6_REASMREQDS]++;
		stk->mib[UST_MIB_IP6_REASMFAILS]++;
		ust_drop(stk, m, UST_DROP_IP_FRAG_MALFORMED);
		return NULL;
	}
	/* the pieces after the first lose their headers now (the first
	 * keeps them: they become the datagram's); an empty one is
	 * reasm_add()'s to refuse */
	if (x->frag_off != 0 && len > 0)
		m = ust_mbuf_adj(stk->meta_off, m, hdrs);
	q = reasm_add(stk, m, &key, x->frag_off, len, x->frag_mf,
		      65535 - (x->frag_hdr_off - UST_IPV6_HDR_LEN));
	if (q == NULL)
		return NULL;
	/* the first piece's headers are the datagram's: where its fragment
	 * header is (the other pieces' may differ, RFC 8200 4.5) */
	{
		const uint8_t *h = rte_pktmbuf_mtod(q->frags, const uint8_t *);
		uint32_t fh = UST_IPV6_HDR_LEN, nh = h[6];

		while (nh != UST_IPV6_NH_FRAGMENT &&
		       fh + 8 <= q->frags->data_len) {
			nh = h[fh];
			fh += ((uint32_t)h[fh + 1] + 1) * 8;
		}
		if (nh != UST_IPV6_NH_FRAGMENT ||
		    fh + 8 > q->frags->data_len) {
			/* (the walk found it when the piece came) */
			reasm_kill(stk, q, UST_DROP_IP_FRAG_REASM_FAILED);
			return NULL;
		}
		return reasm6_finish(stk, q, fh);
	}
}

/* ---- fragmentation ---- */

/*
 * What both families do around DPDK's fragmenter @v6 (rte_ipv6_ or
 * rte_ipv4_fragment_packet()): the bound on the count, the RX reserve for
 * a reply no socket owns, the sender's wmem moved to the last fragment,
 * linearised fragments for a netif without chains, the counters.
 */
static int
frag_cut(struct ust_stack *stk, struct rte_mbuf *m, uint16_t mtu,
	 struct rte_mbuf **out, bool v6)
{
	const struct ust_mbuf_meta *meta = ust_meta(stk->meta_off, m);
	uint32_t owner_sd = meta->owner_sd;
	uint32_t owner_gen = meta->owner_gen;
	uint32_t truesize = meta->truesize;
	enum ust_mib fails = v6 ? UST_MIB_IP6_FRAGFAILS : UST_MIB_IP_FRAGFAILS;
	uint32_t count, hdr = v6 ? UST_IPV6_HDR_LEN + 8 : UST_IPV4_HDR_LEN;
	int32_t n, i;

	/* pieces of whole 8-byte units (RFC 8200 4.5, RFC 791) */
	count = (m->pkt_len - (v6 ? UST_IPV6_HDR_LEN : UST_IPV4_HDR_LEN) +
		 ((mtu - hdr) & ~7u) - 1) / ((mtu - hdr) & ~7u);
	if (count > UST_IPV4_FRAGS_MAX) {
		stk->mib[fails]++;
		ust_tx_drop(stk, m, UST_DROP_PKT_TOO_BIG);
		return -EMSGSIZE;
	}
	/* a reply no socket owns (an echo reply) takes its two mbufs a
	 * fragment only above the pool's RX reserve, as every reply does */
	if (owner_sd == UST_OWNER_NONE && !ust_reply_room(stk, 2 * count)) {
		stk->mib[fails]++;
		ust_drop(stk, m, UST_DROP_NOMEM_RESERVE);
		return -ENOBUFS;
	}
	if (v6)
		/* DPDK cuts at mtu - 48 bytes, which must be a multiple of 8
		 * for all but the last piece */
		n = rte_ipv6_fragment_packet(m, out, UST_IPV4_FRAGS_MAX,
					     (uint16_t)(hdr +
							((mtu - hdr) & ~7u)),
					     stk->pool, stk->pool);
	else
		n = rte_ipv4_fragment_packet(m, out, UST_IPV4_FRAGS_MAX, mtu,
					     stk->pool, stk->pool);
	if (n <= 0) {
		stk->mib[fails]++;
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
			stk->mib[fails]++;
			return -ENOBUFS;
		}
	}
	stk->mib[v6 ? UST_MIB_IP6_FRAGOKS : UST_MIB_IP_FRAGOKS]++;
	stk->mib[v6 ? UST_MIB_IP6_FRAGCREATES : UST_MIB_IP_FRAGCREATES] +=
		(uint64_t)n;
	return (int)n;
}

int
ust_ipv4_fragment(struct ust_stack *stk, struct rte_mbuf *m, uint16_t mtu,
		  struct rte_mbuf **out)
{
	return frag_cut(stk, m, mtu, out, false);
}

int
ust_ipv6_fragment(struct ust_stack *stk, struct rte_mbuf *m, uint16_t mtu,
		  struct rte_mbuf **out)
{
	/* DPDK 22.11 writes ID 0 into every fragment header: each datagram
	 * gets its own, unpredictable (RFC 7739) */
	rte_be32_t id = rte_cpu_to_be_32((uint32_t)rte_rand());
	int n = frag_cut(stk, m, mtu, out, true), i;

	for (i = 0; i < n; i++)
		memcpy(rte_pktmbuf_mtod_offset(out[i], uint8_t *,
					       UST_IPV6_HDR_LEN + 4), &id, 4);
	return n;
}
