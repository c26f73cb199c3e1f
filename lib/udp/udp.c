/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * UDP: sockets, demultiplexing, and the accounted receive queue that
 * implements Linux's socket memory model (see ust_mem.h and
 * doc/udp-memory.md).
 *
 * How it is called:
 *  - RX: ust_udp_input_burst() with the UDP datagrams of one RX burst. Pass
 *    one validates each datagram (length, checksum unless the NIC verified
 *    it); pass two looks all destination ports up with one bulk rte_hash
 *    lookup; pass three groups the datagrams by socket and hands each group
 *    to udp_enqueue_batch(), which takes the socket's queue lock once (split
 *    sockets only) and applies the memory rules per datagram.
 *  - Reader: ust_udp_recvfrom() / ust_udp_recv_burst() dequeue from the
 *    reader's own queue; when it runs dry, the producer's queue is spliced
 *    over in one step. Every dequeue calls udp_rmem_release(), which
 *    batches the release of memory (rcvbuf/4, or at once when the reader's
 *    queue is empty).
 *  - TX: ust_udp_sendto() (copy) and ust_udp_send_burst() (zero copy) build
 *    the UDP header and go to ust_ipv4_output() or ust_ipv6_output().
 *  - IPv6: udp6_input() takes one datagram from IPv6 input (registered
 *    with ust_ipv6_register()) into the same udp_enqueue_batch(), counted
 *    in Udp6. The port table holds IPv4's key (the port) and IPv6's (the
 *    port | UDP_KEY6): an AF_INET6 socket bound to :: holds both unless
 *    IPV6_V6ONLY, so that an AF_INET socket and a V6ONLY one may share a
 *    port as on Linux; the IPv4 path is unchanged.
 *  - Shared: a socket attached to other stacks (udp_sock_attach()) is in
 *    their port tables too, so their ust_udp_input_burst() queues into it
 *    with the same udp_enqueue_batch(), locked as for a split socket: one
 *    accounted queue, N producers, one reader.
 *
 * The enqueue rules, per datagram of truesize T (ust_truesize()):
 *  1. rmem_alloc + T > rcvbuf and rmem_alloc != 0: drop, RcvbufErrors and
 *     InErrors (a datagram that does not fit goes only into an empty
 *     socket, as Linux does today);
 *  2. pages = ust_mem_schedule_pages(mode, forward_alloc, T); if the pool
 *     refuses them: drop, MemErrors and InErrors;
 *  3. forward_alloc += pages * 4096 - T; rmem_alloc += T; queue.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "udp_private.h"
#include "ust_wire.h"

RTE_LOG_REGISTER(ust_udp_logtype, ustack.udp, INFO);

#define UDP_HDRS_ROOM (UST_ETH_HDR_LEN + UST_IPV4_HDR_LEN + UST_UDP_HDR_LEN)
#define UDP_HDRS_ROOM6 (UST_ETH_HDR_LEN + UST_IPV6_HDR_LEN + UST_UDP_HDR_LEN)
/* the largest payload over IPv6 without a jumbogram: 65535 - 8 */
#define UDP6_MAX_PAYLOAD 65527

/* the port table's keys a socket holds (ust_udp_sock.keys) */
#define UDP_K4 1u
#define UDP_K6 2u
#define UDP_KEY6 0x10000u   /* IPv6's key: the port | this */

/* Udp6's counters are Udp's, in the same order further on: one offset */
#define UDP_MIB6 (UST_MIB_UDP6_INDATAGRAMS - UST_MIB_UDP_INDATAGRAMS)
_Static_assert(UST_MIB_UDP6_MEMERRORS - UST_MIB_UDP_MEMERRORS == UDP_MIB6 &&
	       UST_MIB_UDP6_NOPORTS - UST_MIB_UDP_NOPORTS == UDP_MIB6 &&
	       UST_MIB_UDP6_SNDBUFERRORS - UST_MIB_UDP_SNDBUFERRORS ==
	       UDP_MIB6, "Udp6's counters in Udp's order");

static const uint8_t udp_any6[UST_IPV6_ADDR_LEN];

static inline struct ust_udp_sock *
udp_sk(struct ust_sock *s)
{
	return (struct ust_udp_sock *)s;
}

static inline const struct ust_udp_sock *
udp_csk(const struct ust_sock *s)
{
	return (const struct ust_udp_sock *)s;
}

/* Producer and reader may run on different lcores: split, or fed by
 * other stacks (attached); fixed once bound. */
static inline bool
udp_split(const struct ust_udp_sock *us)
{
	return (us->base.flags & (UST_SKF_SPLIT | UST_SKF_SHARED)) != 0;
}

/* UDP's place in IPv4 input (struct ust_ipv4_proto, lib/ip) */
static const struct ust_ipv4_proto udp_ipv4_proto = {
	.input_burst = ust_udp_input_burst,
	.err_handler = ust_udp_icmp_error,
};

static void udp6_input(struct ust_stack *stk, struct rte_mbuf *m,
		       const struct ust_ipv6_repr *ip6, uint32_t l3_len);

/* ... and in IPv6 input (struct ust_ipv6_proto) */
static void udp6_icmp_error(struct ust_stack *stk,
			    const struct ust_icmp6_repr *ic);

static const struct ust_ipv6_proto udp_ipv6_proto = {
	.input = udp6_input,
	.err_handler = udp6_icmp_error,
};

int
ust_udp_init(struct ust_stack *stk)
{
	char name[RTE_HASH_NAMESIZE];
	struct rte_hash_parameters hp = {
		.name = name,
		/* twice the keys there can be (cuckoo hashing fills its
		 * table well below 100 %); keyed by local port and family
		 * (a dual-stack socket holds two keys), so at most 2 x 65536
		 * of them, whatever the number of (TCP) sockets */
		.entries = RTE_MIN(RTE_MAX(stk->conf.max_sockets * 4, 64u),
				   4u * 65536),
		.key_len = sizeof(uint32_t),
		.hash_func = rte_hash_crc,
		.socket_id = stk->conf.socket_id,
	};
	struct ust_mem_conf mc = stk->conf.udp_mem;
	int rc;
	struct rte_mempool *mp = stk->pool;

	snprintf(name, sizeof(name), "ust_udp_%p", (void *)stk);
	stk->udp_ports = rte_hash_create(&hp);
	if (stk->udp_ports == NULL)
		return -ENOMEM;
	/* Linux derives udp_mem from free memory; ustack's analogue is the
	 * memory of the mbuf pool the RX queues fill. */
	if (mc.base_pages == 0)
		mc.base_pages = ((uint64_t)mp->size *
				 (mp->elt_size + mp->header_size +
				  mp->trailer_size)) >> UST_MEM_PAGE_SHIFT;
	stk->udp_mem = ust_mem_pool_create(&mc, stk->conf.socket_id);
	if (stk->udp_mem == NULL)
		return -rte_errno;
	stk->eph_next = (uint16_t)rte_rand();
	rc = ust_ipv4_register(stk, IPPROTO_UDP, &udp_ipv4_proto);
	if (rc != 0)
		return rc;
	/* (-EINVAL: IPv6 is off) */
	if (stk->ip6 != NULL) {
		rc = ust_ipv6_register(stk, IPPROTO_UDP, &udp_ipv6_proto);
		if (rc != 0)
			return rc;
	}
	return ust_udp_sock_register(stk);
}

static bool udp_producer_unlink(struct ust_udp_sock *us,
				struct ust_stack *stk);

void
ust_udp_fini(struct ust_stack *stk)
{
	const void *key;
	void *data;
	uint32_t next = 0;

	/* its own sockets are closed (their keys gone): what is left are
	 * sockets of other stacks this one fed; it stops feeding them */
	while (stk->udp_ports != NULL &&
	       rte_hash_iterate(stk->udp_ports, &key, &data, &next) >= 0) {
		struct ust_udp_sock *us = data;

		if (us->base.stk != stk)
			udp_producer_unlink(us, stk);
	}
	rte_hash_free(stk->udp_ports);
	stk->udp_ports = NULL;
	if (stk->udp_mem != NULL && ust_mem_pool_pages(stk->udp_mem) != 0)
		UDP_LOG(ERR, "%s: UDP pool destroyed with %" PRId64
			" pages charged", stk->name,
			ust_mem_pool_pages(stk->udp_mem));
	ust_mem_pool_free(stk->udp_mem);
	stk->udp_mem = NULL;
}

/* ---- receive memory: the reader's release ---- */

/*
 * Called by the reader for every datagram it takes off the queue (@size is
 * its truesize, @empty whether the reader's queue is now empty), and by
 * close with partial 0. Batched mode returns without touching anything the
 * producer reads until forward_deficit reaches forward_threshold or the
 * queue is empty; then the whole deficit moves back at once.
 */
static void
udp_rmem_release(struct ust_udp_sock *us, uint32_t size, bool empty,
		 uint32_t partial)
{
	enum ust_mem_release mode = ust_mem_pool_conf(us->mem)->release;
	bool split = udp_split(us);
	uint32_t pages;
	int64_t fwd;

	us->forward_deficit += size;
	if (mode == UST_MEM_RELEASE_BATCHED && partial != 0 &&
	    us->forward_deficit < us->forward_threshold && !empty)
		return;
	size = us->forward_deficit;
	us->forward_deficit = 0;
	if (size == 0 && partial != 0)
		return;
	us->releases++;
	if (split) {
		__atomic_sub_fetch(&us->rmem_alloc, size, __ATOMIC_RELEASE);
		rte_spinlock_lock(&us->lock);
	} else {
		us->rmem_alloc -= size;
	}
	fwd = (int64_t)us->forward_alloc + size;
	pages = ust_mem_release_pages((uint32_t)fwd, partial);
	us->forward_alloc = (int32_t)(fwd - ((int64_t)pages << UST_MEM_PAGE_SHIFT));
	if (split)
		rte_spinlock_unlock(&us->lock);
	ust_mem_pool_uncharge(us->mem, pages);
}

/* ---- receive: the producer's enqueue ---- */

/* @mo: 0 for IPv4's datagrams (Udp), UDP_MIB6 for IPv6's (Udp6) */
static void
udp_enqueue_batch(struct ust_stack *stk, struct ust_udp_sock *us,
		  struct rte_mbuf **pkts, uint16_t n, unsigned int mo)
{
	enum ust_mem_schedule mode = ust_mem_pool_conf(us->mem)->schedule;
	bool split = udp_split(us);
	bool was_empty;
	uint64_t rmem, added = 0;
	uint32_t rcvbuf, deficit = UINT32_MAX;
	int64_t fwd;
	uint16_t i, queued = 0;

	if (split) {
		rte_spinlock_lock(&us->lock);
		rmem = __atomic_load_n(&us->rmem_alloc, __ATOMIC_ACQUIRE);
	} else {
		rmem = us->rmem_alloc;
	}
	was_empty = us->prod_q.len == 0;
	rcvbuf = us->rcvbuf;
	fwd = us->forward_alloc;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint32_t ts = ust_meta(us->meta_off, m)->truesize;
		uint64_t held = rmem + added;
		uint32_t pages;

		/* 1. the buffer: only an empty socket takes what does not fit */
		if (held + ts > rcvbuf && held != 0) {
			/* would it have fit had the reader released what it
			 * has read? A diagnostic: the reader's line is read
			 * once per batch (racily when split), not per drop,
			 * so that it does not bounce under a flood */
			if (deficit == UINT32_MAX)
				deficit = __atomic_load_n(&us->forward_deficit,
							  __ATOMIC_RELAXED);
			if (deficit != 0 && held - deficit + ts <= rcvbuf)
				us->deficit_drops++;
			us->rcvbuf_drops++;
			stk->mib[UST_MIB_UDP_RCVBUFERRORS + mo]++;
			stk->mib[UST_MIB_UDP_INERRORS + mo]++;
			ust_drop(stk, m, UST_DROP_SOCKET_RCVBUFF);
			continue;
		}
		/* 2. forward memory: the missing delta (or legacy rule) */
		pages = ust_mem_schedule_pages(mode, (uint32_t)fwd, ts);
		if (pages != 0 &&
		    !ust_mem_pool_charge(us->mem, pages,
					 (uint32_t)(held + ts))) {
			us->mem_drops++;
			stk->mib[UST_MIB_UDP_MEMERRORS + mo]++;
			stk->mib[UST_MIB_UDP_INERRORS + mo]++;
			ust_drop(stk, m, UST_DROP_PROTO_MEM);
			continue;
		}
		/* 3. charge and queue */
		fwd += ((int64_t)pages << UST_MEM_PAGE_SHIFT) - ts;
		if (fwd + ts > us->forward_alloc_hw)
			us->forward_alloc_hw = (int32_t)(fwd + ts);
		added += ts;
		ust_pktq_push(us->meta_off, &us->prod_q, m);
		queued++;
	}
	us->forward_alloc = (int32_t)fwd;
	us->enqueued += queued;
	if (rmem + added > us->rmem_alloc_hw)
		us->rmem_alloc_hw = (uint32_t)(rmem + added);
	if (split) {
		__atomic_add_fetch(&us->rmem_alloc, (uint32_t)added,
				   __ATOMIC_RELEASE);
		rte_spinlock_unlock(&us->lock);
	} else {
		us->rmem_alloc += (uint32_t)added;
	}
	stk->mib[UST_MIB_UDP_INDATAGRAMS + mo] += queued;
	stk->rx_consumed += queued;
	/* level-triggered sets hear of the first datagram into an empty
	 * queue; edge-triggered ones of every burst (EPOLLET) */
	if (queued > 0 && us->base.ep != NULL &&
	    ((was_empty && us->reader_q.len == 0) ||
	     (us->base.ep_events & UST_EPOLLET)))
		ust_sock_wakeup(&us->base);
}

static inline bool
udp_sock_match(const struct ust_sock *s, const struct ust_ipv4_repr *ip,
	       rte_be16_t sport)
{
	if (s->laddr != 0 && s->laddr != ip->dst)
		return false;
	if ((s->flags & UST_SKF_CONNECTED) &&
	    (s->raddr != ip->src || s->rport != sport))
		return false;
	return true;
}

/* Validate one datagram; on success fill its metadata and return its UDP
 * length, else count, drop and return 0. */
static uint16_t
udp_validate(struct ust_stack *stk, struct rte_mbuf *m,
	     const struct ust_ipv4_repr *ip, uint16_t *dport)
{
	uint64_t l4f = m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK;
	uint32_t l4len = (uint32_t)ip->total_len - ip->hdr_len;
	/* the UDP header is in the first segment (ust_mbuf_pull()); the
	 * payload may span segments */
	bool contig = ip->hdr_len + l4len <= m->data_len;
	/* GOOD: the NIC verified it; NONE: the checksum field is not filled
	 * in (a virtio/vhost peer offloading it) but the data is intact */
	bool verified = l4f == RTE_MBUF_F_RX_L4_CKSUM_GOOD ||
			l4f == RTE_MBUF_F_RX_L4_CKSUM_NONE;
	struct ust_udp_repr u;
	struct ust_mbuf_meta *meta;
	int rc;

	rc = ust_udp_parse(rte_pktmbuf_mtod_offset(m, const uint8_t *,
						   ip->hdr_len),
			   l4len, ip->src, ip->dst,
			   verified || !contig ? UST_WIRE_F_NO_CSUM : 0, &u);
	if (rc == UST_WIRE_OK && u.has_csum) {
		if (l4f == RTE_MBUF_F_RX_L4_CKSUM_BAD)
			rc = UST_WIRE_ECSUM;
		else if (!contig && !verified &&
			 !ust_mbuf_l4_csum_ok(m, ip, IPPROTO_UDP, u.len))
			rc = UST_WIRE_ECSUM;
	}
	if (rc != UST_WIRE_OK) {
		stk->mib[UST_MIB_UDP_INERRORS]++;
		if (rc == UST_WIRE_ECSUM) {
			stk->mib[UST_MIB_UDP_INCSUMERRORS]++;
			ust_drop(stk, m, UST_DROP_UDP_CSUM);
		} else {
			ust_drop(stk, m, UST_DROP_UDP_BADLEN);
		}
		return 0;
	}
	meta = ust_meta(stk->meta_off, m);
	meta->addr = ip->src;
	meta->port = rte_cpu_to_be_16(u.src_port);
	meta->rx_src6 = 0;
	meta->truesize = ust_truesize(m);
	*dport = u.dst_port;
	return u.len;
}

void
ust_udp_input_burst(struct ust_stack *stk, struct rte_mbuf **pkts,
		    const struct ust_ipv4_repr *ips, uint16_t n)
{
	uint32_t keys[UST_MAX_BURST];
	const void *kp[UST_MAX_BURST];
	void *data[UST_MAX_BURST];
	uint16_t ulen[UST_MAX_BURST];
	uint16_t idx[UST_MAX_BURST];
	uint8_t run[UST_MAX_BURST];   /* the datagram's run of one port */
	struct ust_udp_sock *gs[UST_MAX_BURST];
	struct rte_mbuf *gp[UST_MAX_BURST];
	uint16_t gcount[UST_MAX_BURST];
	uint8_t gof[UST_MAX_BURST];
	uint64_t hits = 0;
	uint16_t i, ok = 0, ng = 0, nd = 0, nr = 0;

	/* pass 1: validate */
	for (i = 0; i < n; i++) {
		uint16_t dport;
		uint16_t l = udp_validate(stk, pkts[i], &ips[i], &dport);

		if (l == 0)
			continue;
		keys[ok] = dport;
		ulen[ok] = l;
		idx[ok] = i;
		ok++;
	}
	if (ok == 0)
		return;
	/* pass 2: one lookup per run of datagrams to one port (a burst of
	 * one flow, the common case, does one; a bulk lookup of its 32
	 * equal keys was 10 % of a sink's cycles), one bulk lookup for the
	 * runs of a mixed burst */
	for (i = 0; i < ok; i++) {
		if (i > 0 && keys[i] == keys[i - 1]) {
			run[i] = run[i - 1];
			continue;
		}
		run[i] = nr;
		kp[nr++] = &keys[i];
	}
	if (nr == 1)
		hits = rte_hash_lookup_data(stk->udp_ports, kp[0],
					    &data[0]) >= 0;
	else
		rte_hash_lookup_bulk_data(stk->udp_ports, kp, nr, &hits,
					  data);
	/* pass 3: filter, strip headers, group by socket */
	for (i = 0; i < ok; i++) {
		struct rte_mbuf *m = pkts[idx[i]];
		const struct ust_ipv4_repr *ip = &ips[idx[i]];
		struct ust_udp_sock *us = NULL;
		uint16_t g;

		if (hits & (1ull << run[i])) {
			us = data[run[i]];
			if (!udp_sock_match(&us->base, ip,
					    ust_meta(stk->meta_off, m)->port))
				us = NULL;
		}
		if (us == NULL && stk->sib != NULL && !stk->sib_in &&
		    ip->dst == stk->addr &&
		    stk->sib->steer(stk, m, rte_cpu_to_be_16(keys[i]),
				    false)) {
			/* a sibling's flow (lib/group): handed over */
			continue;
		}
		if (us == NULL) {
			if (ip->dst != stk->addr) {
				stk->mib[UST_MIB_UDP_IGNOREDMULTI]++;
			} else {
				stk->mib[UST_MIB_UDP_NOPORTS]++;
				ust_icmp_send_error(stk, m, ip,
						    UST_ICMP_DEST_UNREACH,
						    UST_ICMP_CODE_PORT_UNREACH);
			}
			ust_drop(stk, m, UST_DROP_NO_SOCKET);
			continue;
		}
		/* the headers are in the first segment (the stack pulled
		 * them there): they stay in the headroom */
		rte_pktmbuf_adj(m, ip->hdr_len + UST_UDP_HDR_LEN);
		ust_mbuf_trim_to(m, (uint32_t)ulen[i] - UST_UDP_HDR_LEN);
		for (g = 0; g < ng && gs[g] != us; g++)
			;
		if (g == ng) {
			gs[ng] = us;
			gcount[ng++] = 0;
		}
		gcount[g]++;
		gof[nd] = (uint8_t)g;
		gp[nd++] = m;
	}
	if (ng == 1) {
		udp_enqueue_batch(stk, gs[0], gp, nd, 0);
		return;
	}
	/* several sockets in one burst: a counting sort keeps each socket's
	 * datagrams in arrival order, then one batch per socket */
	{
		struct rte_mbuf *sorted[UST_MAX_BURST];
		uint16_t start[UST_MAX_BURST], pos[UST_MAX_BURST];
		uint16_t g, s = 0;

		for (g = 0; g < ng; g++) {
			start[g] = s;
			pos[g] = s;
			s += gcount[g];
		}
		for (i = 0; i < nd; i++)
			sorted[pos[gof[i]]++] = gp[i];
		for (g = 0; g < ng; g++)
			udp_enqueue_batch(stk, gs[g], sorted + start[g],
					  gcount[g], 0);
	}
}

/* ---- receive over IPv6 ---- */

static inline bool
udp6_sock_match(const struct ust_sock *s, const struct ust_ipv6_repr *ip6,
		rte_be16_t sport)
{
	/* bound to one of our addresses (not ::): that one */
	if (memcmp(ust_sock_laddr6(s), udp_any6, sizeof(udp_any6)) != 0 &&
	    memcmp(ust_sock_laddr6(s), ip6->dst, sizeof(udp_any6)) != 0)
		return false;
	if ((s->flags & UST_SKF_CONNECTED) &&
	    (!(s->inet6 & UST_SK6_REMOTE6) || s->rport != sport ||
	     memcmp(ust_sock_raddr6(s), ip6->src, sizeof(udp_any6)) != 0))
		return false;
	return true;
}

/* One datagram from IPv6 input (data at the UDP header, the fixed header
 * @l3_len bytes before it): validated (RFC 8200 8.1: the checksum is
 * mandatory), looked up by IPv6's key, queued as IPv4's are. One at a
 * time: IPv6 input hands its packets over singly. A datagram for a socket
 * a sibling stack owns (lib/group) is handed to it. */
static void
udp6_input(struct ust_stack *stk, struct rte_mbuf *m,
	   const struct ust_ipv6_repr *ip6, uint32_t l3_len)
{
	uint64_t l4f = m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK;
	uint32_t l4len = m->pkt_len;
	bool verified = l4f == RTE_MBUF_F_RX_L4_CKSUM_GOOD ||
			l4f == RTE_MBUF_F_RX_L4_CKSUM_NONE;
	struct ust_udp_sock *us = NULL;
	struct ust_mbuf_meta *meta;
	struct ust_udp_repr u;
	bool contig;
	uint32_t key;
	void *data;
	int rc = UST_WIRE_ETRUNC;

	if (ust_mbuf_pull(m, UST_UDP_HDR_LEN)) {
		contig = l4len <= m->data_len;
		/* (the sum over a chain is taken below) */
		rc = ust_udp6_parse(rte_pktmbuf_mtod(m, const uint8_t *),
				    l4len, ip6->src, ip6->dst,
				    verified || !contig ?
				    UST_WIRE_F_NO_CSUM : 0, &u);
		if (rc == UST_WIRE_OK) {
			if (l4f == RTE_MBUF_F_RX_L4_CKSUM_BAD) {
				rc = UST_WIRE_ECSUM;
			} else if (!contig && !verified &&
				   !ust_mbuf_l4_csum6_ok(m, ip6->src, ip6->dst,
							 IPPROTO_UDP, u.len)) {
				rc = UST_WIRE_ECSUM;
			}
		}
	}
	if (rc != UST_WIRE_OK) {
		stk->mib[UST_MIB_UDP6_INERRORS]++;
		if (rc == UST_WIRE_ECSUM) {
			stk->mib[UST_MIB_UDP6_INCSUMERRORS]++;
			ust_drop(stk, m, UST_DROP_UDP_CSUM);
		} else {
			ust_drop(stk, m, UST_DROP_UDP_BADLEN);
		}
		return;
	}
	key = u.dst_port | UDP_KEY6;
	if (rte_hash_lookup_data(stk->udp_ports, &key, &data) >= 0) {
		us = data;
		if (!udp6_sock_match(&us->base, ip6,
				     rte_cpu_to_be_16(u.src_port)))
			us = NULL;
	}
	if (us == NULL && stk->sib != NULL &&
	    !ust_ipv6_is_multicast(ip6->dst)) {
		/* a sibling's flow (lib/group), from its IPv6 header: to the
		 * stack whose slice holds the port, or (port steering: IPv6
		 * is not in its hash) round the siblings, the last of which
		 * answers for the rest */
		rte_pktmbuf_prepend(m, (uint16_t)l3_len);
		if (stk->sib->steer(stk, m, rte_cpu_to_be_16(u.dst_port),
				    true))
			return;
		rte_pktmbuf_adj(m, (uint16_t)l3_len);
	}
	if (us == NULL) {
		if (ust_ipv6_is_multicast(ip6->dst)) {
			stk->mib[UST_MIB_UDP6_IGNOREDMULTI]++;
		} else {
			stk->mib[UST_MIB_UDP6_NOPORTS]++;
			/* the error quotes the packet from its fixed header */
			rte_pktmbuf_prepend(m, (uint16_t)l3_len);
			ust_icmp6_send_error(stk, m, ip6,
					     UST_ICMP6_DEST_UNREACH,
					     UST_ICMP6_CODE_PORT_UNREACH, 0);
		}
		ust_drop(stk, m, UST_DROP_NO_SOCKET);
		return;
	}
	meta = ust_meta(stk->meta_off, m);
	meta->addr = 0;
	meta->port = rte_cpu_to_be_16(u.src_port);
	/* the source stays in its header, in the headroom: read there */
	meta->rx_src6 = (uint16_t)(m->data_off - l3_len +
				   offsetof(struct rte_ipv6_hdr, src_addr));
	meta->truesize = ust_truesize(m);
	rte_pktmbuf_adj(m, UST_UDP_HDR_LEN);
	ust_mbuf_trim_to(m, (uint32_t)u.len - UST_UDP_HDR_LEN);
	udp_enqueue_batch(stk, us, &m, 1, UDP_MIB6);
}

/* The source address of a queued datagram, and its port. */
static inline void
udp_from(const struct ust_mbuf_meta *meta, const struct rte_mbuf *m,
	 struct ust_saddr *a)
{
	ust_saddr_v4(a, meta->addr, meta->port);
	if (meta->rx_src6 != 0) {
		a->family = AF_INET6;
		memcpy(a->v6, (const uint8_t *)m->buf_addr + meta->rx_src6,
		       sizeof(a->v6));
	}
}

void
ust_udp_icmp_error(struct ust_stack *stk, const struct ust_icmp_repr *ic)
{
	const struct ust_ipv4_repr *e = &ic->embedded;
	uint32_t key;
	void *data;
	struct ust_sock *s;
	rte_be16_t sport, dport;

	/* as Linux without IP_RECVERR: time exceeded and parameter problem
	 * are soft errors, which a UDP socket does not hear of */
	if (ic->type != UST_ICMP_DEST_UNREACH)
		return;
	memcpy(&sport, ic->embedded_l4, sizeof(sport));
	memcpy(&dport, ic->embedded_l4 + 2, sizeof(dport));
	key = rte_be_to_cpu_16(sport);
	if (rte_hash_lookup_data(stk->udp_ports, &key, &data) < 0)
		return;
	s = data;
	/* so_error is the owner's: a socket another stack owns hears of its
	 * errors through that stack only */
	if (s->stk != stk)
		return;
	/* as Linux without IP_RECVERR: only connected sockets hear of it */
	if (!(s->flags & UST_SKF_CONNECTED) || s->raddr != e->dst ||
	    s->rport != dport)
		return;
	switch (ic->code) {
	case UST_ICMP_CODE_PORT_UNREACH:
		s->so_error = ECONNREFUSED;
		break;
	case UST_ICMP_CODE_NET_UNREACH:
		s->so_error = ENETUNREACH;
		break;
	case UST_ICMP_CODE_HOST_UNREACH:
		s->so_error = EHOSTUNREACH;
		break;
	case UST_ICMP_CODE_PROTO_UNREACH:
		s->so_error = ENOPROTOOPT;
		break;
	default:
		return;
	}
	if (s->ep != NULL)
		ust_sock_wakeup(s);
}

/* An ICMPv6 error about a datagram we sent: as Linux without
 * IPV6_RECVERR, only a connected socket hears of it, and only of the
 * hard ones (icmpv6_err_convert(): destination unreachable and parameter
 * problem; packet too big and time exceeded are soft). */
static void
udp6_icmp_error(struct ust_stack *stk, const struct ust_icmp6_repr *ic)
{
	const struct ust_ipv6_repr *e = &ic->embedded;
	const uint8_t *l4 = ic->data + UST_IPV6_HDR_LEN;
	rte_be16_t sport, dport;
	struct ust_sock *s;
	uint32_t key;
	void *data;
	int err;

	if (ic->type == UST_ICMP6_PARAM_PROBLEM)
		err = EPROTO;
	else if (ic->type != UST_ICMP6_DEST_UNREACH)
		return;
	else if (ic->code == UST_ICMP6_CODE_PORT_UNREACH)
		err = ECONNREFUSED;
	else if (ic->code == 0)       /* no route */
		err = ENETUNREACH;
	else if (ic->code == 1 || ic->code >= 5) /* prohibited, policy */
		err = EACCES;
	else                          /* beyond scope, address unreachable */
		err = EHOSTUNREACH;
	memcpy(&sport, l4, sizeof(sport));
	memcpy(&dport, l4 + 2, sizeof(dport));
	key = rte_be_to_cpu_16(sport) | UDP_KEY6;
	if (rte_hash_lookup_data(stk->udp_ports, &key, &data) < 0)
		return;
	s = data;
	if (s->stk != stk || !(s->flags & UST_SKF_CONNECTED) ||
	    !(s->inet6 & UST_SK6_REMOTE6) || s->rport != dport ||
	    memcmp(ust_sock_raddr6(s), e->dst, UST_IPV6_ADDR_LEN) != 0)
		return;
	s->so_error = err;
	if (s->ep != NULL)
		ust_sock_wakeup(s);
}

/* ---- sockets ---- */

struct ust_sock *
ust_udp_create(struct ust_stack *stk)
{
	const struct ust_mem_conf *mc = ust_mem_pool_conf(stk->udp_mem);
	struct ust_udp_sock *us;

	us = rte_zmalloc_socket("ust_udp_sock", sizeof(*us),
				RTE_CACHE_LINE_SIZE, stk->conf.socket_id);
	if (us == NULL)
		return NULL;
	us->base.kind = UST_SK_UDP;
	us->base.stk = stk;
	us->base.sndbuf = mc->wmem_default;
	rte_spinlock_init(&us->lock);
	ust_pktq_init(&us->prod_q);
	ust_pktq_init(&us->reader_q);
	us->rcvbuf = mc->rmem_default;
	us->forward_threshold = us->rcvbuf >> 2;
	us->reader_lcore = LCORE_ID_ANY;
	us->meta_off = stk->meta_off;
	us->mem = stk->udp_mem;
	return &us->base;
}

/* Put @us in @stk's port table under @port's @keys (UDP_K4, UDP_K6): all
 * of them or none. */
static int
udp_port_add(struct ust_stack *stk, struct ust_udp_sock *us, uint16_t port,
	     unsigned int keys)
{
	uint32_t k4 = port, k6 = port | UDP_KEY6;

	if (((keys & UDP_K4) && rte_hash_lookup(stk->udp_ports, &k4) >= 0) ||
	    ((keys & UDP_K6) && rte_hash_lookup(stk->udp_ports, &k6) >= 0))
		return -EADDRINUSE;
	if ((keys & UDP_K4) &&
	    rte_hash_add_key_data(stk->udp_ports, &k4, us) < 0)
		return -ENOBUFS;
	if ((keys & UDP_K6) &&
	    rte_hash_add_key_data(stk->udp_ports, &k6, us) < 0) {
		if (keys & UDP_K4)
			rte_hash_del_key(stk->udp_ports, &k4);
		return -ENOBUFS;
	}
	return 0;
}

static void
udp_port_del(struct ust_stack *stk, uint16_t port, unsigned int keys)
{
	uint32_t k4 = port, k6 = port | UDP_KEY6;

	if (keys & UDP_K4)
		rte_hash_del_key(stk->udp_ports, &k4);
	if (keys & UDP_K6)
		rte_hash_del_key(stk->udp_ports, &k6);
}

/* An ephemeral port for @us, RFC 6056 algorithm 1 flavour: random start,
 * linear probe. With sibling stacks and a known IPv4 peer (@raddr,
 * @rport: the bind of a connect or a first send), only a port whose
 * replies arrive on this stack's queue (lib/group says which). */
static int
udp_port_pick(struct ust_stack *stk, struct ust_udp_sock *us,
	      unsigned int keys, rte_be32_t raddr, rte_be16_t rport,
	      uint16_t *port)
{
	uint32_t lo = stk->conf.ephemeral_lo;
	uint32_t span = stk->conf.ephemeral_hi - lo + 1;
	uint32_t i, start = (uint32_t)rte_rand_max(span);
	bool steer = stk->sib != NULL && raddr != 0;
	int rc = -EADDRINUSE;
	uint16_t p;

	for (i = 0; i < span && rc != 0; i++) {
		p = (uint16_t)(lo + (start + i) % span);
		if (steer && !stk->sib->port_ok(stk, rte_cpu_to_be_16(p),
						raddr, rport))
			continue;
		rc = udp_port_add(stk, us, p, keys);
		if (rc == -ENOBUFS)
			return rc;
	}
	if (rc != 0)
		return -EADDRINUSE;
	*port = p;
	return 0;
}

static inline bool
udp_any6_is(const uint8_t *a)
{
	return memcmp(a, udp_any6, sizeof(udp_any6)) == 0;
}

/* Bind @s to @a (port 0: an ephemeral one, for @raddr/@rport when an
 * IPv4 peer is known). IPv4 (AF_INET, or a mapped address on an AF_INET6
 * socket) takes IPv4's key; IPv6's :: takes IPv6's and, unless V6ONLY,
 * IPv4's (dual-stack); one of our IPv6 addresses, IPv6's alone. */
static int
udp_bind(struct ust_stack *stk, struct ust_sock *s, const struct ust_saddr *a,
	 rte_be32_t raddr, rte_be16_t rport)
{
	struct ust_udp_sock *us = udp_sk(s);
	uint16_t p = rte_be_to_cpu_16(a->port);
	unsigned int keys;
	int rc;

	if (s->flags & UST_SKF_BOUND)
		return -EINVAL;
	if (a->family == AF_INET6) {
		if (udp_any6_is(a->v6))
			keys = (s->inet6 & UST_SK6_V6ONLY) ? UDP_K6 :
			       UDP_K4 | UDP_K6;
		else if (stk->ip6 != NULL &&
			 !ust_ipv6_is_multicast(a->v6) &&
			 ust_ip6_our_addr(stk, a->v6, false) >= 0)
			keys = UDP_K6;
		else
			return -EADDRNOTAVAIL;
	} else {
		if (a->v4 != 0 && a->v4 != stk->addr)
			return -EADDRNOTAVAIL;
		keys = UDP_K4;
	}
	if (p != 0)
		rc = udp_port_add(stk, us, p, keys);
	else
		rc = udp_port_pick(stk, us, keys, raddr, rport, &p);
	if (rc != 0)
		return rc;
	if (a->family == AF_INET6) {
		memcpy(ust_sock_laddr6(s), a->v6, UST_IPV6_ADDR_LEN);
		s->inet6 |= UST_SK6_LOCAL6;
		s->laddr = 0;
	} else {
		s->laddr = a->v4;
	}
	us->keys = (uint8_t)keys;
	s->lport = rte_cpu_to_be_16(p);
	s->flags |= UST_SKF_BOUND;
	return 0;
}

int
ust_udp_bind(struct ust_stack *stk, struct ust_sock *s,
	     const struct ust_saddr *a)
{
	return udp_bind(stk, s, a, 0, 0);
}

/* An unbound socket gets an ephemeral port, as Linux binds on connect and
 * on the first send: an AF_INET6 socket on :: (dual-stack unless
 * V6ONLY), an AF_INET one on 0.0.0.0. */
static int
udp_autobind(struct ust_stack *stk, struct ust_sock *s, rte_be32_t dst,
	     rte_be16_t dport)
{
	struct ust_saddr any;

	memset(&any, 0, sizeof(any));
	any.family = (s->inet6 & UST_SK6_INET6) ? AF_INET6 : AF_INET;
	return udp_bind(stk, s, &any, dst, dport);
}

/* A destination must be routable (and a broadcast allowed by
 * SO_BROADCAST), from where the socket is bound: IPv4 not from one of
 * our IPv6 addresses (-ENETUNREACH); an unbound socket is bound. */
static int
udp_route_and_bind(struct ust_stack *stk, struct ust_sock *s, rte_be32_t dst,
		   rte_be16_t dport)
{
	enum ust_route_kind kind;
	rte_be32_t nh;

	if (unlikely(s->inet6 & UST_SK6_LOCAL6) &&
	    (!udp_any6_is(ust_sock_laddr6(s)) || (s->inet6 & UST_SK6_V6ONLY)))
		return -ENETUNREACH;
	if (ust_route(stk, dst, &nh, &kind) != 0) {
		stk->mib[UST_MIB_IP_OUTNOROUTES]++;
		return -ENETUNREACH;
	}
	if (kind == UST_ROUTE_BROADCAST && !(s->flags & UST_SKF_BROADCAST))
		return -EACCES;
	if (!(s->flags & UST_SKF_BOUND))
		return udp_autobind(stk, s, dst, dport);
	return 0;
}

/* IPv6's: a route and a usable source (-EADDRNOTAVAIL: none, e.g. DAD
 * not over), from where the socket is bound: not from an IPv4 address
 * (-ENETUNREACH). */
static int
udp6_route_and_bind(struct ust_stack *stk, struct ust_sock *s,
		    const uint8_t *dst)
{
	int rc;

	if ((s->flags & UST_SKF_BOUND) && !(s->inet6 & UST_SK6_LOCAL6))
		return -ENETUNREACH;
	rc = ust_ip6_route_check(stk, dst);
	if (rc != 0)
		return rc;
	if (udp_any6_is(ust_sock_laddr6(s)) ?
	    ust_ip6_select_src(stk, dst) == NULL :
	    ust_ip6_our_addr(stk, ust_sock_laddr6(s), true) < 0)
		return -EADDRNOTAVAIL;
	if (!(s->flags & UST_SKF_BOUND))
		return udp_autobind(stk, s, 0, 0);
	return 0;
}

int
ust_udp_connect(struct ust_stack *stk, struct ust_sock *s,
		const struct ust_saddr *a)
{
	int rc;

	if (a->family == AF_UNSPEC) {
		s->flags &= ~UST_SKF_CONNECTED;
		s->inet6 &= ~UST_SK6_REMOTE6;
		s->raddr = 0;
		s->rport = 0;
		if (s->inet6 & UST_SK6_INET6)
			memset(ust_sock_raddr6(s), 0, UST_IPV6_ADDR_LEN);
		return 0;
	}
	if (a->port == 0)
		return -EINVAL;
	if (a->family == AF_INET6) {
		if (udp_any6_is(a->v6))
			return -EINVAL;
		rc = udp6_route_and_bind(stk, s, a->v6);
		if (rc != 0)
			return rc;
		memcpy(ust_sock_raddr6(s), a->v6, UST_IPV6_ADDR_LEN);
		s->inet6 |= UST_SK6_REMOTE6;
		s->raddr = 0;
	} else {
		if (a->v4 == 0)
			return -EINVAL;
		rc = udp_route_and_bind(stk, s, a->v4, a->port);
		if (rc != 0)
			return rc;
		s->raddr = a->v4;
		s->inet6 &= ~UST_SK6_REMOTE6;
	}
	s->rport = a->port;
	s->flags |= UST_SKF_CONNECTED;
	s->so_error = 0;
	return 0;
}

/* ---- one queue, several producers (ust_socket_attach()) ---- */

/* Take @stk off the socket's list of producers; true if it was on it. */
static bool
udp_producer_unlink(struct ust_udp_sock *us, struct ust_stack *stk)
{
	struct ust_udp_producer **pp, *p = NULL;

	rte_spinlock_lock(&us->lock);
	for (pp = &us->producers; *pp != NULL; pp = &(*pp)->next) {
		if ((*pp)->stk == stk) {
			p = *pp;
			*pp = p->next;
			break;
		}
	}
	rte_spinlock_unlock(&us->lock);
	rte_free(p);
	return p != NULL;
}

static int
udp_sock_attach(struct ust_stack *producer, struct ust_sock *s)
{
	struct ust_udp_sock *us = udp_sk(s);
	struct ust_udp_producer *p;
	uint16_t port = rte_be_to_cpu_16(s->lport);
	int rc;

	if (!(s->flags & UST_SKF_BOUND) || s->ep != NULL ||
	    producer->udp_ports == NULL ||
	    producer->meta_off != us->meta_off ||
	    (s->laddr != 0 && s->laddr != producer->addr) ||
	    ((s->inet6 & UST_SK6_LOCAL6) && !udp_any6_is(ust_sock_laddr6(s))))
		return -EINVAL;
	p = rte_zmalloc_socket("ust_udp_producer", sizeof(*p), 0,
			       producer->conf.socket_id);
	if (p == NULL)
		return -ENOMEM;
	p->stk = producer;
	/* locked from now on: before the producer can find it (at set-up;
	 * at run time the socket is split already and nothing is written) */
	if (!udp_split(us))
		s->flags |= UST_SKF_SHARED;
	rc = udp_port_add(producer, us, port, us->keys);
	if (rc < 0) {
		rte_free(p);
		return rc;
	}
	rte_spinlock_lock(&us->lock);
	p->next = us->producers;
	us->producers = p;
	rte_spinlock_unlock(&us->lock);
	return 0;
}

static int
udp_sock_detach(struct ust_stack *producer, struct ust_sock *s)
{
	struct ust_udp_sock *us = udp_sk(s);

	if (!udp_producer_unlink(us, producer))
		return -ENOENT;
	udp_port_del(producer, rte_be_to_cpu_16(s->lport), us->keys);
	return 0;
}

void
ust_udp_close(struct ust_stack *stk, struct ust_sock *s)
{
	struct ust_udp_sock *us = udp_sk(s);
	struct ust_udp_producer *p;
	struct rte_mbuf *m;
	uint32_t freed = 0;

	if (s->flags & UST_SKF_BOUND) {
		uint16_t port = rte_be_to_cpu_16(s->lport);

		udp_port_del(stk, port, us->keys);
		/* and from every other stack that fed it (no producer polls:
		 * ust_socket_attach()'s rules) */
		while ((p = us->producers) != NULL) {
			us->producers = p->next;
			udp_port_del(p->stk, port, us->keys);
			rte_free(p);
		}
	}
	ust_pktq_splice(us->meta_off, &us->reader_q, &us->prod_q);
	while ((m = ust_pktq_pop(us->meta_off, &us->reader_q)) != NULL) {
		freed += ust_meta(us->meta_off, m)->truesize;
		ust_drop(stk, m, UST_DROP_SOCKET_CLOSE);
	}
	/* everything goes back: rmem_alloc to 0, forward_alloc to 0 */
	udp_rmem_release(us, freed, true, 0);
	if (us->rmem_alloc != 0 || us->forward_alloc != 0)
		UDP_LOG(ERR, "udp close: accounting left rmem_alloc %u "
			"forward_alloc %d", us->rmem_alloc, us->forward_alloc);
	rte_free(us);
}

/* ---- reading ---- */

/* Take the next datagram (or look at it, @peek) from the reader's queue,
 * splicing the producer's queue over when the reader's is empty. */
static struct rte_mbuf *
udp_dequeue(struct ust_udp_sock *us, bool peek)
{
	struct ust_pktq *rq = &us->reader_q;

	if (rq->len == 0) {
		if (__atomic_load_n(&us->prod_q.len, __ATOMIC_RELAXED) == 0)
			return NULL;
		if (udp_split(us)) { /* fixed once bound: read once here */
			rte_spinlock_lock(&us->lock);
			ust_pktq_splice(us->meta_off, rq, &us->prod_q);
			rte_spinlock_unlock(&us->lock);
		} else {
			ust_pktq_splice(us->meta_off, rq, &us->prod_q);
		}
		us->splices++;
	}
	if (peek)
		return rq->head;
	return ust_pktq_pop(us->meta_off, rq);
}

static inline int
udp_take_error(struct ust_sock *s)
{
	int e = s->so_error;

	s->so_error = 0;
	return -e;
}

static inline bool
udp_reader_ok(struct ust_udp_sock *us)
{
	unsigned int lc = rte_lcore_id();

	/* a socket read off the stack's lcore must be marked split; the
	 * split reader's lcore is noted for UST_SO_MEMINFO's queue walk */
	if (udp_split(us)) {
		if (us->reader_lcore != lc)
			us->reader_lcore = lc;
		return true;
	}
	return lc == us->base.stk->lcore;
}

ssize_t
ust_udp_recvfrom(struct ust_stack *stk, struct ust_sock *s, void *buf,
		 size_t len, int flags, struct ust_saddr *from)
{
	struct ust_udp_sock *us = udp_sk(s);
	struct rte_mbuf *m;
	uint32_t plen, copy;
	struct ust_mbuf_meta *meta;

	RTE_SET_USED(stk);
	if (unlikely(!udp_reader_ok(us)))
		return -EPERM;
	/* a pending error is reported before queued data, as Linux does */
	if (unlikely(s->so_error != 0))
		return udp_take_error(s);
	m = udp_dequeue(us, (flags & MSG_PEEK) != 0);
	if (m == NULL)
		return -EAGAIN;
	meta = ust_meta(us->meta_off, m);
	plen = m->pkt_len;
	copy = plen < len ? plen : (uint32_t)len;
	if (copy > 0) {
		const void *p = rte_pktmbuf_read(m, 0, copy, buf);

		if (p != buf)
			memcpy(buf, p, copy);
	}
	if (from != NULL)
		udp_from(meta, m, from);
	if (!(flags & MSG_PEEK)) {
		uint32_t ts = meta->truesize;

		us->delivered++;
		rte_pktmbuf_free(m);
		udp_rmem_release(us, ts, us->reader_q.len == 0, 1);
	}
	return (flags & MSG_TRUNC) ? (ssize_t)plen : (ssize_t)copy;
}

int
ust_udp_recv_burst(struct ust_stack *stk, struct ust_sock *s,
		   struct rte_mbuf **pkts, unsigned int n,
		   union ust_sockaddr *from)
{
	struct ust_udp_sock *us = udp_sk(s);
	unsigned int i;

	RTE_SET_USED(stk);
	if (unlikely(!udp_reader_ok(us)))
		return -EPERM;
	if (unlikely(s->so_error != 0))
		return udp_take_error(s);
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = udp_dequeue(us, false);
		const struct ust_mbuf_meta *meta;

		if (m == NULL)
			break;
		meta = ust_meta(us->meta_off, m);
		if (from != NULL) {
			struct ust_saddr a;

			udp_from(meta, m, &a);
			ust_saddr_to(s, &a, &from[i]);
		}
		pkts[i] = m;
		udp_rmem_release(us, meta->truesize, us->reader_q.len == 0, 1);
	}
	us->delivered += i;
	return (int)i;
}

/* ---- sending ---- */

/* Check what a send needs before anything is built. */
static int
udp_send_check(struct ust_stack *stk, struct ust_sock *s, rte_be32_t dst,
	       rte_be16_t dport, size_t len)
{
	uint32_t frames;
	int rc;

	if (s->so_error != 0)
		return udp_take_error(s);
	if (dst == 0 || dport == 0)
		return -EINVAL;
	/* above the MTU: fragmented (IP_PMTUDISC_WANT, Linux's default) */
	if (len > 65507)
		return -EMSGSIZE;
	frames = len + UST_IPV4_HDR_LEN + UST_UDP_HDR_LEN <= stk->netif.mtu ?
		 1 : ust_ipv4_frag_count((uint32_t)len + UST_UDP_HDR_LEN,
					 stk->netif.mtu);
	if (frames > UST_IPV4_FRAGS_MAX ||
	    frames + UST_TX_SEND_ROOM - 1 > stk->tx_cap)
		return -EMSGSIZE;
	rc = udp_route_and_bind(stk, s, dst, dport);
	if (rc != 0)
		return rc;
	if (s->wmem_queued >= s->sndbuf)
		goto nospace;
	/* room for the datagram's frames and for an ARP probe staged before
	 * them, so that a send that returns success is not dropped at
	 * staging */
	if (!ust_tx_room(stk, (uint16_t)(frames + UST_TX_SEND_ROOM - 1))) {
		ust_sock_tx_wait(s);
		goto nospace;
	}
	/* datagrams to ourselves wait in the loopback queue, bounded alike */
	if (dst == stk->addr && stk->loopq.len + frames > stk->tx_cap)
		goto nospace;
	return 0;
nospace:
	stk->mib[UST_MIB_UDP_SNDBUFERRORS]++;
	return -EAGAIN;
}

/* The checksum of a chained datagram (@m at its UDP header, @len bytes,
 * the field 0) with its pseudo-header's sum @phdr, into the header (DPDK
 * 22.11's rte_raw_cksum_mbuf() is wrong for odd-length pieces). */
static void
udp_csum_chain(struct rte_mbuf *m, uint16_t len, uint16_t phdr)
{
	uint16_t raw = 0, ck;
	uint32_t sum;

	ust_mbuf_raw_cksum(m, 0, len, &raw);
	sum = (uint32_t)raw + phdr;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	ck = (uint16_t)~sum;
	if (ck == 0)
		ck = 0xffff;  /* RFC 768: zero is sent as all ones */
	memcpy(rte_pktmbuf_mtod_offset(m, uint8_t *, 6), &ck, sizeof(ck));
}

/* The datagram is @s's until the driver takes it: its send buffer holds
 * its truesize. */
static inline void
udp_tx_charge(struct ust_stack *stk, struct ust_sock *s, struct rte_mbuf *m)
{
	struct ust_mbuf_meta *meta = ust_meta(stk->meta_off, m);

	meta->owner_sd = s->sd;
	meta->owner_gen = s->gen;
	meta->truesize = ust_truesize(m);
	s->wmem_queued += meta->truesize;
}

/* Prepend the UDP header to @m (data = payload) and send it. */
static void
udp_output(struct ust_stack *stk, struct ust_sock *s, struct rte_mbuf *m,
	   rte_be32_t dst, rte_be16_t dport)
{
	struct ust_udp_repr u;
	rte_be32_t src = s->laddr != 0 ? s->laddr : stk->addr;
	uint64_t ol = 0;
	uint8_t *h;

	u.src_port = rte_be_to_cpu_16(s->lport);
	u.dst_port = rte_be_to_cpu_16(dport);
	u.len = (uint16_t)(m->pkt_len + UST_UDP_HDR_LEN);
	h = (uint8_t *)rte_pktmbuf_prepend(m, UST_UDP_HDR_LEN);
	/* (a datagram above the MTU is fragmented: no NIC sums it whole) */
	if ((stk->netif.flags & UST_NETIF_F_TX_UDP_CKSUM) &&
	    u.len + UST_IPV4_HDR_LEN <= stk->netif.mtu) {
		ust_udp_emit(h, UST_UDP_HDR_LEN, &u, src, dst, NULL,
			     UST_WIRE_F_CSUM_OFFLOAD);
		ol = RTE_MBUF_F_TX_UDP_CKSUM;
		m->l4_len = UST_UDP_HDR_LEN;
	} else if (m->nb_segs == 1) {
		ust_udp_emit(h, UST_UDP_HDR_LEN, &u, src, dst,
			     h + UST_UDP_HDR_LEN, 0);
	} else {
		ust_udp_emit(h, UST_UDP_HDR_LEN, &u, src, dst, NULL, 0);
		udp_csum_chain(m, u.len,
			       ust_ipv4_phdr_sum(src, dst, IPPROTO_UDP, u.len));
	}
	udp_tx_charge(stk, s, m);
	if (ust_ipv4_output(stk, m, src, dst, IPPROTO_UDP, ol) == 0)
		stk->mib[UST_MIB_UDP_OUTDATAGRAMS]++;
}

/* IPv6's udp_send_check(). */
static int
udp6_send_check(struct ust_stack *stk, struct ust_sock *s, const uint8_t *dst,
		rte_be16_t dport, size_t len)
{
	uint32_t frames, mtu;
	int rc;

	if (s->so_error != 0)
		return udp_take_error(s);
	if (udp_any6_is(dst) || dport == 0)
		return -EINVAL;
	if (stk->ip6 == NULL)
		return -ENETUNREACH;
	if (len > UDP6_MAX_PAYLOAD)
		return -EMSGSIZE;
	mtu = stk->ip6->mtu;
	frames = len + UST_IPV6_HDR_LEN + UST_UDP_HDR_LEN <= mtu ? 1 :
		 ((uint32_t)len + UST_UDP_HDR_LEN +
		  ((mtu - UST_IPV6_HDR_LEN - 8) & ~7u) - 1) /
		 ((mtu - UST_IPV6_HDR_LEN - 8) & ~7u);
	if (frames > UST_IPV4_FRAGS_MAX ||
	    frames + UST_TX_SEND_ROOM - 1 > stk->tx_cap)
		return -EMSGSIZE;
	rc = udp6_route_and_bind(stk, s, dst);
	if (rc != 0)
		return rc;
	if (s->wmem_queued >= s->sndbuf)
		goto nospace;
	if (!ust_tx_room(stk, (uint16_t)(frames + UST_TX_SEND_ROOM - 1))) {
		ust_sock_tx_wait(s);
		goto nospace;
	}
	if (stk->loopq.len + frames > stk->tx_cap &&
	    ust_ip6_our_addr(stk, dst, false) >= 0)
		goto nospace;
	return 0;
nospace:
	stk->mib[UST_MIB_UDP6_SNDBUFERRORS]++;
	return -EAGAIN;
}

/* IPv6's udp_output(): the checksum always (RFC 8200 8.1). */
static void
udp6_output(struct ust_stack *stk, struct ust_sock *s, struct rte_mbuf *m,
	    const uint8_t *dst, rte_be16_t dport)
{
	const uint8_t *src = udp_any6_is(ust_sock_laddr6(s)) ?
			     ust_ip6_select_src(stk, dst) : ust_sock_laddr6(s);
	struct ust_udp_repr u;
	uint64_t ol = 0;
	uint8_t *h;

	u.src_port = rte_be_to_cpu_16(s->lport);
	u.dst_port = rte_be_to_cpu_16(dport);
	u.len = (uint16_t)(m->pkt_len + UST_UDP_HDR_LEN);
	h = (uint8_t *)rte_pktmbuf_prepend(m, UST_UDP_HDR_LEN);
	if ((stk->netif.flags & UST_NETIF_F_TX_UDP_CKSUM) &&
	    u.len + UST_IPV6_HDR_LEN <= stk->ip6->mtu) {
		ust_udp6_emit(h, UST_UDP_HDR_LEN, &u, src, dst, NULL,
			      UST_WIRE_F_CSUM_OFFLOAD);
		ol = RTE_MBUF_F_TX_UDP_CKSUM;
		m->l4_len = UST_UDP_HDR_LEN;
	} else if (m->nb_segs == 1) {
		ust_udp6_emit(h, UST_UDP_HDR_LEN, &u, src, dst,
			      h + UST_UDP_HDR_LEN, 0);
	} else {
		ust_udp6_emit(h, UST_UDP_HDR_LEN, &u, src, dst, NULL, 0);
		udp_csum_chain(m, u.len,
			       ust_ipv6_phdr_sum(src, dst, IPPROTO_UDP, u.len));
	}
	udp_tx_charge(stk, s, m);
	if (ust_ipv6_output(stk, m, src, dst, IPPROTO_UDP, 0, ol) == 0)
		stk->mib[UST_MIB_UDP6_OUTDATAGRAMS]++;
}

/* Copy @len bytes of payload into a new mbuf, chaining mbufs when one is
 * too small (jumbo MTU with a small data room; needs a multi-segment
 * netif, unless the datagram is fragmented: each fragment is then copied
 * into one mbuf, frag.c). @l3: the IP header's length. */
static int
udp_copy_payload(struct ust_stack *stk, const void *buf, size_t len,
		 uint32_t l3, uint32_t mtu, struct rte_mbuf **out)
{
	struct rte_mbuf *m, *seg;
	size_t off = 0;

	m = rte_pktmbuf_alloc(stk->pool);
	if (m == NULL)
		return -ENOBUFS;
	seg = m;
	while (off < len) {
		uint16_t room = rte_pktmbuf_tailroom(seg);
		size_t chunk = len - off < room ? len - off : room;

		if (chunk == 0) {
			struct rte_mbuf *n;

			if (!(stk->netif.flags & UST_NETIF_F_TX_MULTI_SEGS) &&
			    len + l3 + UST_UDP_HDR_LEN <= mtu) {
				rte_pktmbuf_free(m);
				return -EMSGSIZE;
			}
			n = rte_pktmbuf_alloc(stk->pool);
			if (n == NULL || rte_pktmbuf_chain(m, n) != 0) {
				rte_pktmbuf_free(n);
				rte_pktmbuf_free(m);
				return -ENOBUFS;
			}
			seg = n;
			continue;
		}
		memcpy(rte_pktmbuf_mtod_offset(seg, uint8_t *, seg->data_len),
		       (const uint8_t *)buf + off, chunk);
		seg->data_len += (uint16_t)chunk;
		m->pkt_len += (uint32_t)chunk;
		off += chunk;
	}
	*out = m;
	return 0;
}

ssize_t
ust_udp_sendto(struct ust_stack *stk, struct ust_sock *s, const void *buf,
	       size_t len, const struct ust_saddr *to)
{
	struct rte_mbuf *m;
	int rc;

	if (unlikely(to != NULL ? to->family == AF_INET6 :
		     (s->inet6 & UST_SK6_REMOTE6) != 0)) {
		const uint8_t *dst = to != NULL ? to->v6 : ust_sock_raddr6(s);
		rte_be16_t dport = to != NULL ? to->port : s->rport;

		rc = udp6_send_check(stk, s, dst, dport, len);
		if (rc == 0)
			rc = udp_copy_payload(stk, buf, len, UST_IPV6_HDR_LEN,
					      stk->ip6->mtu, &m);
		if (rc == -ENOBUFS)
			stk->mib[UST_MIB_UDP6_SNDBUFERRORS]++;
		if (rc != 0)
			return rc;
		udp6_output(stk, s, m, dst, dport);
	} else {
		rte_be32_t dst = to != NULL ? to->v4 : s->raddr;
		rte_be16_t dport = to != NULL ? to->port : s->rport;

		rc = udp_send_check(stk, s, dst, dport, len);
		if (rc == 0)
			rc = udp_copy_payload(stk, buf, len, UST_IPV4_HDR_LEN,
					      stk->netif.mtu, &m);
		if (rc == -ENOBUFS)
			stk->mib[UST_MIB_UDP_SNDBUFERRORS]++;
		if (rc != 0)
			return rc;
		udp_output(stk, s, m, dst, dport);
	}
	return (ssize_t)len;
}

int
ust_udp_send_burst(struct ust_stack *stk, struct ust_sock *s,
		   struct rte_mbuf **pkts, unsigned int n,
		   const union ust_sockaddr *to)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct ust_saddr a;
		bool v6;
		int rc = 0;

		/* an AF_INET socket's sockaddr_in, read as it is (the common
		 * case); anything else through the family rules */
		if (to != NULL && (s->inet6 != 0 ||
				   to[i].sa.sa_family != AF_INET))
			rc = ust_saddr_from(s, SOCK_DGRAM, false, &to[i].sa,
					    sizeof(to[i]), &a);
		else if (to != NULL)
			ust_saddr_v4(&a, to[i].sin.sin_addr.s_addr,
				     to[i].sin.sin_port);
		if (rc == 0 && to != NULL && a.family == AF_UNSPEC)
			rc = -EAFNOSUPPORT;
		if (rc != 0)
			return i > 0 ? (int)i : rc;
		v6 = to != NULL ? a.family == AF_INET6 :
		     (s->inet6 & UST_SK6_REMOTE6) != 0;
		if (unlikely(v6)) {
			const uint8_t *dst = to != NULL ? a.v6 : ust_sock_raddr6(s);
			rte_be16_t dport = to != NULL ? a.port : s->rport;

			rc = udp6_send_check(stk, s, dst, dport, m->pkt_len);
			if (rc == 0 &&
			    (rte_pktmbuf_headroom(m) < UDP_HDRS_ROOM6 ||
			     (m->nb_segs > 1 && !(stk->netif.flags &
			      UST_NETIF_F_TX_MULTI_SEGS))))
				rc = -EINVAL;
			if (rc != 0)
				return i > 0 ? (int)i : rc;
			m->ol_flags = 0;
			udp6_output(stk, s, m, dst, dport);
		} else {
			rte_be32_t dst = to != NULL ? a.v4 : s->raddr;
			rte_be16_t dport = to != NULL ? a.port : s->rport;

			rc = udp_send_check(stk, s, dst, dport, m->pkt_len);
			if (rc == 0 &&
			    (rte_pktmbuf_headroom(m) < UDP_HDRS_ROOM ||
			     (m->nb_segs > 1 && !(stk->netif.flags &
			      UST_NETIF_F_TX_MULTI_SEGS))))
				rc = -EINVAL;
			if (rc != 0)
				return i > 0 ? (int)i : rc;
			m->ol_flags = 0;
			udp_output(stk, s, m, dst, dport);
		}
	}
	return (int)i;
}

/* ---- options and readiness ---- */

int
ust_udp_setsockopt(struct ust_sock *s, int level, int name, const void *val,
		   socklen_t len)
{
	struct ust_udp_sock *us = udp_sk(s);
	const struct ust_mem_conf *mc = ust_mem_pool_conf(us->mem);
	int v;

	if (val == NULL || len < (socklen_t)sizeof(int))
		return -EINVAL;
	memcpy(&v, val, sizeof(v));
	if (level == SOL_SOCKET) {
		switch (name) {
		case SO_RCVBUF:
		case SO_RCVBUFFORCE:
			/* as Linux: a negative value is a huge unsigned one */
			us->rcvbuf = ust_mem_rcvbuf_from_user((uint32_t)v,
				mc->rmem_max, name == SO_RCVBUFFORCE);
			__atomic_store_n(&us->forward_threshold,
					 us->rcvbuf >> 2, __ATOMIC_RELAXED);
			return 0;
		case SO_SNDBUF:
		case SO_SNDBUFFORCE:
			s->sndbuf = ust_mem_sndbuf_from_user((uint32_t)v,
				mc->wmem_max, name == SO_SNDBUFFORCE);
			/* more room may make it writable (Linux's
			 * sk_write_space) */
			if (s->ep != NULL && s->wmem_queued < s->sndbuf)
				ust_sock_wakeup(s);
			return 0;
		case SO_BROADCAST:
			if (v)
				s->flags |= UST_SKF_BROADCAST;
			else
				s->flags &= ~UST_SKF_BROADCAST;
			return 0;
		default:
			return -ENOPROTOOPT;
		}
	}
	if (level == UST_SOL_USTACK && name == UST_SO_SPLIT) {
		/* fixed before datagrams can arrive: the producer and the
		 * reader must agree on locking for the socket's lifetime */
		if (s->ep != NULL || (s->flags & UST_SKF_BOUND))
			return -EINVAL;
		if (v)
			s->flags |= UST_SKF_SPLIT;
		else
			s->flags &= ~UST_SKF_SPLIT;
		return 0;
	}
	return -ENOPROTOOPT;
}

void
ust_udp_meminfo(const struct ust_sock *s, struct ust_sock_meminfo *mi,
		bool walk)
{
	struct ust_udp_sock *us = (struct ust_udp_sock *)(uintptr_t)s;
	bool split = udp_split(us);
	/* the reader's queue is the reader's: walked only from its lcore, or
	 * before a split reader ever read (the walk holds the queue lock, so
	 * no splice can fill it meanwhile) */
	unsigned int rl = __atomic_load_n(&us->reader_lcore, __ATOMIC_RELAXED);
	bool walk_reader = walk && (!split || rl == LCORE_ID_ANY ||
				    rl == rte_lcore_id());
	struct rte_mbuf *m;

	memset(mi, 0, sizeof(*mi));
	if (walk && split)
		rte_spinlock_lock(&us->lock);
	if (walk) {
		for (m = us->prod_q.head; m != NULL;
		     m = ust_meta(us->meta_off, m)->nextpkt) {
			mi->queued++;
			mi->queued_truesize +=
				ust_meta(us->meta_off, m)->truesize;
		}
	} else {
		mi->queued = us->prod_q.len;
	}
	mi->rcvbuf = us->rcvbuf;
	mi->rmem_alloc = __atomic_load_n(&us->rmem_alloc, __ATOMIC_ACQUIRE);
	mi->forward_alloc = us->forward_alloc;
	mi->forward_alloc_hw = us->forward_alloc_hw;
	mi->rmem_alloc_hw = us->rmem_alloc_hw;
	mi->rcvbuf_drops = us->rcvbuf_drops;
	mi->mem_drops = us->mem_drops;
	mi->deficit_drops = us->deficit_drops;
	mi->enqueued = us->enqueued;
	if (walk_reader) {
		for (m = us->reader_q.head; m != NULL;
		     m = ust_meta(us->meta_off, m)->nextpkt) {
			mi->queued++;
			mi->queued_truesize +=
				ust_meta(us->meta_off, m)->truesize;
		}
	}
	if (walk && split)
		rte_spinlock_unlock(&us->lock);
	mi->forward_deficit = us->forward_deficit;
	if (!walk_reader) {
		/* counted, not walked: the invariant gives the truesize */
		mi->queued += us->reader_q.len;
		mi->queued_truesize = mi->rmem_alloc - mi->forward_deficit;
	}
	mi->forward_threshold = us->forward_threshold;
	mi->sndbuf = s->sndbuf;
	mi->wmem_queued = s->wmem_queued;
	mi->delivered = us->delivered;
	mi->splices = us->splices;
	mi->releases = us->releases;
}

int
ust_udp_getsockopt(struct ust_sock *s, int level, int name, void *val,
		   socklen_t *len)
{
	struct ust_udp_sock *us = udp_sk(s);

	if (val == NULL || len == NULL)
		return -EINVAL;
	if (level == SOL_SOCKET) {
		switch (name) {
		case SO_RCVBUF:
			return ust_sockopt_put_int(val, len, (int)us->rcvbuf);
		case SO_SNDBUF:
			return ust_sockopt_put_int(val, len, (int)s->sndbuf);
		case SO_BROADCAST:
			return ust_sockopt_put_int(val, len,
				       !!(s->flags & UST_SKF_BROADCAST));
		case SO_ERROR:
			if (*len < (socklen_t)sizeof(int))
				return -EINVAL;
			return ust_sockopt_put_int(val, len, -udp_take_error(s));
		default:
			return -ENOPROTOOPT;
		}
	}
	if (level == UST_SOL_USTACK && name == UST_SO_SPLIT)
		return ust_sockopt_put_int(val, len, !!(s->flags & UST_SKF_SPLIT));
	if (level == UST_SOL_USTACK && name == UST_SO_MEMINFO) {
		struct ust_sock_meminfo mi;

		if (*len < (socklen_t)sizeof(mi))
			return -EINVAL;
		ust_udp_meminfo(s, &mi, true);
		memcpy(val, &mi, sizeof(mi));
		*len = sizeof(mi);
		return 0;
	}
	return -ENOPROTOOPT;
}

uint32_t
ust_udp_events(const struct ust_sock *s)
{
	const struct ust_udp_sock *us = udp_csk(s);
	uint32_t ev = 0;

	if (us->reader_q.len != 0 || us->prod_q.len != 0)
		ev |= UST_EPOLLIN;
	if (s->wmem_queued < s->sndbuf && ust_tx_send_room(s->stk))
		ev |= UST_EPOLLOUT;
	if (s->so_error != 0)
		ev |= UST_EPOLLERR | UST_EPOLLIN;
	return ev;
}

/* ---- the socket-ops table (struct ust_sock_ops, lib/sock) ---- */

/* A destination, or the connected peer: one of the two (as Linux). */
static int
udp_dest_check(const struct ust_sock *s, const void *to)
{
	if (to != NULL && (s->flags & UST_SKF_CONNECTED))
		return -EISCONN;
	if (to == NULL && !(s->flags & UST_SKF_CONNECTED))
		return -EDESTADDRREQ;
	return 0;
}

static ssize_t
udp_sock_sendto(struct ust_stack *stk, struct ust_sock *s, const void *buf,
		size_t len, int flags, const struct ust_saddr *to)
{
	int rc;

	/* MSG_DONTWAIT, MSG_NOSIGNAL: always so; MSG_MORE (UDP corking) and
	 * MSG_EOR are TCP's here */
	if (flags & (MSG_MORE | MSG_EOR))
		return -EOPNOTSUPP;
	if (to != NULL && to->family == AF_UNSPEC)
		return -EAFNOSUPPORT;
	rc = udp_dest_check(s, to);
	if (rc != 0)
		return rc;
	return ust_udp_sendto(stk, s, buf, len, to);
}

static int
udp_sock_send_burst(struct ust_stack *stk, struct ust_sock *s,
		    struct rte_mbuf **pkts, unsigned int n,
		    const union ust_sockaddr *to)
{
	int rc = udp_dest_check(s, to);

	if (rc != 0)
		return rc;
	return ust_udp_send_burst(stk, s, pkts, n, to);
}

static const struct ust_sock_ops udp_sock_ops = {
	.type = SOCK_DGRAM,
	.protocol = IPPROTO_UDP,
	.create = ust_udp_create,
	.close = ust_udp_close,
	.bind = ust_udp_bind,
	.connect = ust_udp_connect,
	.sendto = udp_sock_sendto,
	.recvfrom = ust_udp_recvfrom,
	.send_burst = udp_sock_send_burst,
	.recv_burst = ust_udp_recv_burst,
	.setsockopt = ust_udp_setsockopt,
	.getsockopt = ust_udp_getsockopt,
	.events = ust_udp_events,
	.attach = udp_sock_attach,
	.detach = udp_sock_detach,
};

int
ust_udp_sock_register(struct ust_stack *stk)
{
	return ust_sock_register(stk, UST_SK_UDP, &udp_sock_ops);
}
