/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * The stack instance: creation, the poll loop, RX demultiplexing by
 * EtherType, and the TX staging area.
 *
 * How it is called: the application's lcore calls ust_stack_poll() in its
 * loop. poll = flush (what the application sent since the last poll) +
 * one RX burst through ust_stack_input() + ust_stack_timers() + flush (what
 * the stack answered: ARP replies, echo replies, ICMP errors).
 *
 * RX: ust_stack_input() walks the burst once. ARP frames go to
 * ust_arp_input(); IPv4 packets to ust_ipv4_input(), which validates them
 * and handles ICMP itself but hands UDP datagrams back, so that they are
 * demultiplexed as one batch (one bulk hash lookup, one queue lock per
 * socket per burst) by ust_udp_input_burst().
 *
 * TX: every frame goes through ust_tx_stage() into one array handed to the
 * netif's tx_burst; what the netif refuses stays staged for the next flush.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>
#include <rte_random.h>

#include "stack_private.h"
#include "ust_wire.h"

RTE_LOG_REGISTER_DEFAULT(ust_logtype, INFO);

static const struct rte_mbuf_dynfield ust_meta_desc = {
	.name = "ustack_mbuf_meta",
	.size = sizeof(struct ust_mbuf_meta),
	.align = __alignof__(struct ust_mbuf_meta),
};

uint64_t
ust_clock_ns(void)
{
	uint64_t hz = rte_get_tsc_hz();

	/* before rte_eal_init() the TSC rate is unknown: no time yet */
	if (unlikely(hz == 0))
		return 0;
	return (uint64_t)((unsigned __int128)rte_get_tsc_cycles() *
			  1000000000u / hz);
}

void
ust_stack_conf_defaults(struct ust_stack_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->name = "ust";
	c->socket_id = SOCKET_ID_ANY;
	c->prefix_len = 24;
	c->ttl = 64;
	c->rx_burst = 32;
	c->tx_stage = 512;
	c->max_sockets = 1024;
	c->ephemeral_lo = 32768;
	c->ephemeral_hi = 60999;
	c->arp.entries = 256;
	c->arp.reachable_ms = 30000;
	c->arp.retrans_ms = 1000;
	c->arp.max_probes = 3;
	c->arp.gc_ms = 60000;
	c->arp.queue_len = 64;
	c->arp.pending_max = 1024;
	c->icmp.msgs_per_sec = 1000;
	c->icmp.burst = 50;
	ust_mem_conf_defaults(&c->udp_mem);
	ust_mem_conf_defaults(&c->tcp_mem);
	c->tcp.max_conns = 65536;
	c->tcp.rmem_default = 131072;
	c->tcp.rmem_max = 6291456;
	c->tcp.wmem_default = 131072;
	c->tcp.wmem_max = 4194304;
	c->tcp.rto_min_ms = 200;
	c->tcp.rto_max_ms = 120000;
	c->tcp.rto_init_ms = 1000;
	c->tcp.delack_ms = 1;
	c->tcp.quickack = 16;
	c->tcp.syn_retries = 6;
	c->tcp.synack_retries = 5;
	c->tcp.retries2 = 15;
	c->tcp.max_syn_backlog = 4096;
	c->tcp.syncookies = 1;
	c->tcp.time_wait_ms = 60000;
	c->tcp.fin_timeout_ms = 60000;
	c->tcp.keepalive_time_ms = 7200000;
	c->tcp.keepalive_intvl_ms = 75000;
	c->tcp.keepalive_probes = 9;
	c->tcp.init_cwnd = 10;
	c->tcp.challenge_ack_limit = 1000;
	c->tcp.invalid_ratelimit_ms = 500;
	c->tcp.synack_rtx_burst = 64;
	c->tcp.sack = 1;
	c->tcp.timestamps = 1;
	c->tcp.window_scaling = 1;
	snprintf(c->tcp.congestion, sizeof(c->tcp.congestion), "cubic");
	c->tcp.tx_layout = 0; /* UST_TCP_TX_LINEAR */
	c->tcp.first_linear_max = 2048 - 94; /* - UST_TCP_TX_MAX_HDR */
	c->tcp.copy_small = 0;
	c->tcp.copy_small_bufs = 4096;
	c->now_ns = ust_clock_ns();
}

static int
stack_conf_check(const struct ust_stack_conf *c)
{
	if (c->netif.ops == NULL || c->netif.ops->rx_burst == NULL ||
	    c->netif.ops->tx_burst == NULL || c->pool == NULL)
		return -EINVAL;
	if (c->addr == 0 || c->prefix_len == 0 || c->prefix_len > 32)
		return -EINVAL;
	if (c->rx_burst == 0 || c->rx_burst > UST_MAX_BURST)
		return -EINVAL;
	if (c->tx_stage < UST_MAX_BURST || c->tx_stage > 16384)
		return -EINVAL;
	if (c->max_sockets == 0 || c->max_sockets >= UST_OWNER_NONE)
		return -EINVAL;
	if (c->ephemeral_lo == 0 || c->ephemeral_lo > c->ephemeral_hi)
		return -EINVAL;
	if (c->arp.entries == 0 || c->arp.retrans_ms == 0 ||
	    c->arp.max_probes == 0 || c->arp.queue_len == 0 ||
	    c->arp.pending_max == 0)
		return -EINVAL;
	if (c->tcp.max_conns == 0 || c->tcp.rto_min_ms == 0 ||
	    c->tcp.rto_max_ms < c->tcp.rto_min_ms || c->tcp.rto_init_ms == 0 ||
	    c->tcp.init_cwnd == 0 || c->tcp.delack_ms == 0 ||
	    c->tcp.time_wait_ms == 0 || c->tcp.max_syn_backlog == 0 ||
	    c->tcp.synack_rtx_burst == 0)
		return -EINVAL;
	if (c->netif.mtu < 68 ||
	    !rte_is_valid_assigned_ether_addr(&c->netif.mac))
		return -EINVAL;
	return 0;
}

struct ust_stack *
ust_stack_create(const struct ust_stack_conf *conf)
{
	struct ust_stack *stk;
	int off, rc;
	uint32_t mask;

	rc = stack_conf_check(conf);
	if (rc != 0) {
		rte_errno = -rc;
		return NULL;
	}
	off = rte_mbuf_dynfield_register(&ust_meta_desc);
	if (off < 0) {
		UST_LOG(ERR, "cannot register the mbuf metadata field: %s",
			rte_strerror(rte_errno));
		return NULL;
	}
	stk = rte_zmalloc_socket("ust_stack", sizeof(*stk),
				 RTE_CACHE_LINE_SIZE, conf->socket_id);
	if (stk == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	stk->conf = *conf;
	snprintf(stk->name, sizeof(stk->name), "%s",
		 conf->name != NULL ? conf->name : "ust");
	stk->conf.name = stk->name;
	stk->netif = conf->netif;
	stk->pool = conf->pool;
	stk->meta_off = off;
	stk->addr = conf->addr;
	mask = conf->prefix_len == 32 ? UINT32_MAX :
		~(UINT32_MAX >> conf->prefix_len);
	stk->mask = rte_cpu_to_be_32(mask);
	stk->bcast = (stk->addr & stk->mask) | ~stk->mask;
	stk->gateway = conf->gateway;
	stk->now = conf->now_ns;
	stk->ttl = conf->ttl;
	stk->accept_source_route = conf->accept_source_route;
	stk->rx_burst = conf->rx_burst;
	stk->tx_cap = conf->tx_stage;
	stk->ip_id = (uint16_t)rte_rand();
	stk->lcore = rte_lcore_id();
	stk->hit_ip = 0;
	stk->pool_reserve = conf->pool_reserve != 0 ? conf->pool_reserve :
		conf->pool->size / 8;
	if (stk->pool_reserve > conf->pool->size / 2)
		stk->pool_reserve = conf->pool->size / 2;
	stk->pool_gen = UINT32_MAX;
	ust_pktq_init(&stk->loopq);
	stk->icmp_tokens_ns = (uint64_t)conf->icmp.burst *
		(conf->icmp.msgs_per_sec ?
		 1000000000ull / conf->icmp.msgs_per_sec : 0);

	stk->tx_pkts = rte_zmalloc_socket("ust_tx", sizeof(*stk->tx_pkts) *
					  stk->tx_cap, RTE_CACHE_LINE_SIZE,
					  conf->socket_id);
	stk->tx_own = rte_zmalloc_socket("ust_tx_own", sizeof(*stk->tx_own) *
					 stk->tx_cap, RTE_CACHE_LINE_SIZE,
					 conf->socket_id);
	if (stk->tx_pkts == NULL || stk->tx_own == NULL)
		goto nomem;
	rc = ust_arp_init(stk);
	if (rc == 0)
		rc = ust_sock_table_init(stk);
	if (rc == 0)
		rc = ust_udp_init(stk);
	if (rc == 0)
		rc = ust_tcp_init(stk);
	if (rc != 0) {
		ust_stack_destroy(stk);
		rte_errno = -rc;
		return NULL;
	}
	ust_telemetry_register(stk);
	return stk;
nomem:
	ust_stack_destroy(stk);
	rte_errno = ENOMEM;
	return NULL;
}

void
ust_stack_destroy(struct ust_stack *stk)
{
	struct rte_mbuf *m;
	uint16_t i;

	if (stk == NULL)
		return;
	ust_telemetry_unregister(stk);
	/* nothing is sent from here on (TCP closes abort quietly) */
	stk->dying = true;
	/* frames waiting for TX or ARP first, while their sockets exist to
	 * take back their wmem; then the sockets, whose queued datagrams go
	 * back to the pool; then TCP's orphans, half-open and TIME_WAIT
	 * entries; then the pools */
	if (stk->tx_pkts != NULL) {
		for (i = 0; i < stk->tx_n; i++)
			ust_drop(stk, stk->tx_pkts[i], UST_DROP_TX_STAGE_FULL);
		stk->tx_n = 0;
	}
	ust_arp_fini(stk);
	ust_sock_table_fini(stk);
	ust_tcp_fini(stk);
	ust_udp_fini(stk);
	while ((m = ust_pktq_pop(stk->meta_off, &stk->loopq)) != NULL)
		ust_drop(stk, m, UST_DROP_TX_STAGE_FULL);
	rte_free(stk->tx_pkts);
	rte_free(stk->tx_own);
	rte_free(stk);
}

/* ---- TX staging ---- */

uint16_t
ust_stack_flush(struct ust_stack *stk)
{
	uint16_t sent = 0;

	while (stk->tx_n > 0) {
		uint16_t n = stk->tx_n;
		uint16_t k, i;

		k = stk->netif.ops->tx_burst(stk->netif.ctx, stk->tx_pkts, n);
		stk->mib[UST_MIB_ETH_TXBURSTS]++;
		for (i = 0; i < k; i++) {
			const struct ust_tx_owner *o = &stk->tx_own[i];

			stk->mib[UST_MIB_ETH_OUTOCTETS] += o->len;
			if (o->sd != UST_OWNER_NONE)
				ust_sock_tx_done(stk, o);
		}
		stk->mib[UST_MIB_ETH_OUTFRAMES] += k;
		sent += k;
		if (k < n) {
			/* the netif is full: keep the rest, in order */
			memmove(stk->tx_pkts, stk->tx_pkts + k,
				(size_t)(n - k) * sizeof(*stk->tx_pkts));
			memmove(stk->tx_own, stk->tx_own + k,
				(size_t)(n - k) * sizeof(*stk->tx_own));
			stk->tx_n = n - k;
			stk->mib[UST_MIB_ETH_TXRETRIES]++;
			break;
		}
		stk->tx_n = 0;
	}
	if (unlikely(stk->tx_waiters != NULL) && ust_tx_send_room(stk))
		ust_sock_tx_waiters_wake(stk);
	return sent;
}

bool
ust_tx_room(struct ust_stack *stk, uint16_t n)
{
	if (stk->tx_n + n <= stk->tx_cap)
		return true;
	ust_stack_flush(stk);
	return stk->tx_n + n <= stk->tx_cap;
}

void
ust_tx_stage(struct ust_stack *stk, struct rte_mbuf *m)
{
	const struct ust_mbuf_meta *meta = ust_meta(stk->meta_off, m);
	struct ust_tx_owner *o;

	if (unlikely(!ust_tx_room(stk, 1))) {
		ust_tx_drop(stk, m, UST_DROP_TX_STAGE_FULL);
		return;
	}
	o = &stk->tx_own[stk->tx_n];
	o->sd = meta->owner_sd;
	if (o->sd != UST_OWNER_NONE) {
		o->gen = meta->owner_gen;
		o->truesize = meta->truesize;
	}
	o->len = m->pkt_len;
	stk->tx_pkts[stk->tx_n++] = m;
	/* a full burst goes out at once; the rest at the end of the poll */
	if (stk->tx_n >= UST_MAX_BURST)
		ust_stack_flush(stk);
}

void
ust_tx_release(struct ust_stack *stk, struct rte_mbuf *m)
{
	struct ust_mbuf_meta *meta = ust_meta(stk->meta_off, m);

	if (meta->owner_sd != UST_OWNER_NONE) {
		struct ust_tx_owner o = {
			.sd = meta->owner_sd,
			.gen = meta->owner_gen,
			.truesize = meta->truesize,
		};

		ust_sock_tx_done(stk, &o);
		meta->owner_sd = UST_OWNER_NONE;
	}
}

void
ust_tx_drop(struct ust_stack *stk, struct rte_mbuf *m, enum ust_drop_reason r)
{
	ust_tx_release(stk, m);
	ust_drop(stk, m, r);
}

uint16_t
ust_stack_tx_pending(const struct ust_stack *stk)
{
	return stk->tx_n;
}

/* ---- mbuf helpers ---- */

int
ust_mbuf_raw_cksum(const struct rte_mbuf *m, uint32_t off, uint32_t len,
		   uint16_t *sum)
{
	uint32_t acc = 0, done = 0;

	/* walked by data_len only: @m may be a chain's tail, whose pkt_len
	 * means nothing */
	while (m != NULL && off >= m->data_len) {
		off -= m->data_len;
		m = m->next;
	}
	for (; m != NULL && done < len; m = m->next, off = 0) {
		uint32_t k = RTE_MIN((uint32_t)m->data_len - off, len - done);
		/* folded per piece: the swap below is then exact */
		uint16_t s = rte_raw_cksum(rte_pktmbuf_mtod_offset(m,
						const void *, off), k);

		/* a piece at an odd offset has its bytes in the other
		 * halves of the 16-bit words */
		acc += (done & 1) ? rte_bswap16(s) : s;
		done += k;
	}
	if (done != len)
		return -1;
	acc = (acc & 0xffff) + (acc >> 16);
	acc = (acc & 0xffff) + (acc >> 16);
	*sum = (uint16_t)acc;
	return 0;
}

bool
ust_mbuf_pull(struct rte_mbuf *m, uint32_t len)
{
	if (len > m->pkt_len)
		len = m->pkt_len;
	if (m->data_len >= len)
		return true;
	/* the first segment must be ours to write, with room at its end */
	if (RTE_MBUF_CLONED(m) || rte_mbuf_refcnt_read(m) != 1 ||
	    rte_pktmbuf_tailroom(m) < len - m->data_len)
		return false;
	while (m->data_len < len) {
		struct rte_mbuf *n = m->next;
		uint16_t k = (uint16_t)RTE_MIN(len - m->data_len,
					       (uint32_t)n->data_len);

		/* only read from: its buffer may be shared (an attached
		 * piece of a sender's queue), its metadata must not be */
		if (rte_mbuf_refcnt_read(n) != 1)
			return false;
		memcpy(rte_pktmbuf_mtod_offset(m, uint8_t *, m->data_len),
		       rte_pktmbuf_mtod(n, uint8_t *), k);
		m->data_len += k;
		n->data_off += k;
		n->data_len -= k;
		if (n->data_len == 0) {
			m->next = n->next;
			m->nb_segs--;
			n->next = NULL;
			n->nb_segs = 1;
			rte_pktmbuf_free_seg(n);
		}
	}
	return true;
}

struct rte_mbuf *
ust_mbuf_adj(int meta_off, struct rte_mbuf *m, uint32_t len)
{
	if (len >= m->pkt_len) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	/* whole leading segments go; the next becomes the packet's head */
	while (len >= m->data_len && m->next != NULL) {
		struct rte_mbuf *n = m->next;

		len -= m->data_len;
		n->pkt_len = m->pkt_len - m->data_len;
		n->nb_segs = m->nb_segs - 1;
		*ust_meta(meta_off, n) = *ust_meta(meta_off, m);
		m->next = NULL;
		m->nb_segs = 1;
		rte_pktmbuf_free_seg(m);
		m = n;
	}
	rte_pktmbuf_adj(m, (uint16_t)len);
	return m;
}

void
ust_mbuf_trim_to(struct rte_mbuf *m, uint32_t len)
{
	struct rte_mbuf *seg = m;
	uint32_t remain = len;
	uint16_t segs = 1;

	if (len >= m->pkt_len)
		return;
	while (remain > seg->data_len) {
		remain -= seg->data_len;
		seg = seg->next;
		segs++;
	}
	seg->data_len = (uint16_t)remain;
	if (seg->next != NULL) {
		rte_pktmbuf_free(seg->next);
		seg->next = NULL;
	}
	m->pkt_len = len;
	m->nb_segs = segs;
}

/* ---- RX ---- */

static inline bool
eth_dst_accepted(const struct ust_stack *stk, const struct rte_ether_hdr *eh)
{
	if (rte_is_same_ether_addr(&eh->dst_addr, &stk->netif.mac))
		return true;
	if (rte_is_broadcast_ether_addr(&eh->dst_addr))
		return true;
	/* IPv4 multicast MACs pass to the IP layer, which decides */
	return eh->dst_addr.addr_bytes[0] == 0x01 &&
	       eh->dst_addr.addr_bytes[1] == 0x00 &&
	       eh->dst_addr.addr_bytes[2] == 0x5e;
}

/* The packets of a chunk whose protocol takes bursts, to it: a call per
 * run of one protocol, in arrival order (one protocol takes bursts today,
 * UDP: one call per chunk). */
static void
stack_input_bursts(struct ust_stack *stk, struct rte_mbuf **pkts,
		   const struct ust_ipv4_repr *ips, uint16_t n)
{
	uint16_t i, start = 0;

	for (i = 1; i <= n; i++) {
		if (i < n && ips[i].proto == ips[start].proto)
			continue;
		stk->ip_protos[ips[start].proto]->input_burst(stk,
			pkts + start, ips + start, (uint16_t)(i - start));
		start = i;
	}
}

static void
stack_input_chunk(struct ust_stack *stk, struct rte_mbuf **pkts, uint16_t n)
{
	struct rte_mbuf *burst[UST_MAX_BURST];
	struct ust_ipv4_repr ips[UST_MAX_BURST];
	uint16_t nu = 0;
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const struct rte_ether_hdr *eh;

		if (i + 1 < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + 1], void *));
		stk->mib[UST_MIB_ETH_INFRAMES]++;
		stk->mib[UST_MIB_ETH_INOCTETS] += m->pkt_len;
		if (unlikely(m->data_len < UST_ETH_HDR_LEN)) {
			ust_drop(stk, m, UST_DROP_PKT_TOO_SMALL);
			continue;
		}
		/* a chained frame gets all its headers (Ethernet, the longest
		 * IPv4 header, the L4 header) into its first segment */
		if (unlikely(m->nb_segs > 1) &&
		    !ust_mbuf_pull(m, UST_ETH_HDR_LEN + UST_IPV4_MAX_HDR_LEN +
				   UST_TCP_MAX_HDR_LEN)) {
			ust_drop(stk, m, UST_DROP_PKT_HDR_SPLIT);
			continue;
		}
		eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
		if (unlikely(!eth_dst_accepted(stk, eh))) {
			ust_drop(stk, m, UST_DROP_OTHERHOST);
			continue;
		}
		switch (eh->ether_type) {
		case RTE_BE16(RTE_ETHER_TYPE_IPV4):
			rte_pktmbuf_adj(m, UST_ETH_HDR_LEN);
			if (ust_ipv4_input(stk, m, &ips[nu]) != 0)
				burst[nu++] = m;
			break;
		case RTE_BE16(RTE_ETHER_TYPE_ARP):
			rte_pktmbuf_adj(m, UST_ETH_HDR_LEN);
			ust_arp_input(stk, m);
			break;
		default:
			ust_drop(stk, m, UST_DROP_UNHANDLED_PROTO);
			break;
		}
	}
	if (nu > 0)
		stack_input_bursts(stk, burst, ips, nu);
}

void
ust_stack_input(struct ust_stack *stk, struct rte_mbuf **pkts, uint16_t n,
		uint64_t now_ns)
{
	stk->now = now_ns;
	stk->poll_gen++;
	while (n > 0) {
		uint16_t k = n > UST_MAX_BURST ? UST_MAX_BURST : n;

		stack_input_chunk(stk, pkts, k);
		pkts += k;
		n -= k;
	}
}

void
ust_stack_timers(struct ust_stack *stk, uint64_t now_ns)
{
	stk->now = now_ns;
	stk->poll_gen++;
	if (now_ns >= stk->arp.next_tick)
		ust_arp_timers(stk);
	ust_tcp_poll(stk);
}

uint16_t
ust_stack_poll(struct ust_stack *stk, uint64_t now_ns)
{
	struct rte_mbuf *pkts[UST_MAX_BURST];
	uint16_t n;

	stk->now = now_ns;
	stk->poll_gen++;
	if (stk->tx_n > 0)
		ust_stack_flush(stk);
	if (unlikely(stk->loopq.len > 0)) {
		n = 0;
		while (n < UST_MAX_BURST && stk->loopq.len > 0)
			pkts[n++] = ust_pktq_pop(stk->meta_off, &stk->loopq);
		stk->in_loop = true;
		stack_input_chunk(stk, pkts, n);
		stk->in_loop = false;
	}
	n = stk->netif.ops->rx_burst(stk->netif.ctx, pkts, stk->rx_burst);
	if (n > 0) {
		stk->mib[UST_MIB_ETH_RXBURSTS]++;
		stack_input_chunk(stk, pkts, n);
	}
	if (now_ns >= stk->arp.next_tick)
		ust_arp_timers(stk);
	ust_tcp_poll(stk);
	if (stk->tx_n > 0)
		ust_stack_flush(stk);
	return n;
}

/* ---- accessors ---- */

void
ust_stack_stats_get(const struct ust_stack *stk, struct ust_stats *st)
{
	memcpy(st->mib, stk->mib, sizeof(st->mib));
	memcpy(st->drop, stk->drop, sizeof(st->drop));
	st->rx_consumed = stk->rx_consumed;
}

struct ust_mem_pool *
ust_stack_udp_mem(struct ust_stack *stk)
{
	return stk->udp_mem;
}

const char *
ust_stack_name(const struct ust_stack *stk)
{
	return stk->name;
}

const struct ust_stack_conf *
ust_stack_conf(const struct ust_stack *stk)
{
	return &stk->conf;
}
