/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * lib/stack: the stack object, the one component above every layer. It
 * alone creates an instance (each layer's init in dependency order: ARP,
 * the socket table, UDP, TCP; they register their handlers then), polls it
 * and destroys it, and registers it with telemetry (telemetry.c).
 *
 * How it is called: the application's lcore calls ust_stack_poll() in its
 * loop. poll = flush (what the application sent since the last poll) +
 * the loopback queue and one RX burst through ust_eth_input() (lib/ip) +
 * the timers (ARP's and reassembly's when due, TCP's wheel) + flush (what
 * the stack answered: ARP replies, echo replies, ICMP errors, segments).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_random.h>

#include "ip_private.h"
#include "sock_private.h"
#include "tcp_private.h"
#include "telemetry_private.h"

RTE_LOG_REGISTER(ust_stack_logtype, ustack.stack, INFO);
#define STACK_LOG(level, fmt, ...) \
	UST_LOG_TO(ust_stack_logtype, "ustack.stack", level, fmt, ##__VA_ARGS__)
#include "udp_private.h"
#include "ust_tcp_tx.h"
#include "ust_wire.h"

static const struct rte_mbuf_dynfield ust_meta_desc = {
	.name = "ustack_mbuf_meta",
	.size = sizeof(struct ust_mbuf_meta),
	.align = __alignof__(struct ust_mbuf_meta),
};

void
ust_stack_conf_defaults(struct ust_stack_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->name = "ust0";
	c->socket_id = SOCKET_ID_ANY;
	c->lcore = LCORE_ID_ANY;
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
	c->arp.queue_len = 256;
	c->arp.pending_max = 1024;
	c->frag.max_datagrams = 1024;
	c->frag.mem_max = 4u << 20;
	c->frag.timeout_ms = 30000;
	c->frag.max_frags = 128;
	c->ip6.prefix_len = 64;
	c->ip6.hop_limit = 64;
	c->ip6.dad_transmits = 1;
	c->ip6.accept_ra = true;
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
	c->tcp.min_tso_segs = 2;
	c->tcp.challenge_ack_limit = 1000;
	c->tcp.invalid_ratelimit_ms = 500;
	c->tcp.synack_rtx_burst = 64;
	c->tcp.sack = 1;
	c->tcp.dsack = 1;
	c->tcp.moderate_rcvbuf = 1;
	c->tcp.slow_start_after_idle = 1;
	c->tcp.timestamps = 1;
	c->tcp.window_scaling = 1;
	snprintf(c->tcp.congestion, sizeof(c->tcp.congestion), "cubic");
	c->tcp.tx_layout = UST_TCP_TX_LINEAR;
	c->tcp.first_linear_max = 2048 - UST_TCP_TX_MAX_HDR;
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
	if (c->max_sockets == 0 || c->max_sockets > UST_MAX_SOCKETS)
		return -EINVAL;
	if (c->ephemeral_lo == 0 || c->ephemeral_lo > c->ephemeral_hi)
		return -EINVAL;
	if (c->arp.entries == 0 || c->arp.retrans_ms == 0 ||
	    c->arp.max_probes == 0 || c->arp.queue_len == 0 ||
	    c->arp.pending_max == 0)
		return -EINVAL;
	if (c->tcp.max_conns == 0 || c->tcp.rto_min_ms == 0 ||
	    c->tcp.rto_max_ms < c->tcp.rto_min_ms || c->tcp.rto_init_ms == 0 ||
	    c->tcp.init_cwnd == 0 || c->tcp.min_tso_segs == 0 ||
	    c->tcp.delack_ms == 0 ||
	    c->tcp.time_wait_ms == 0 || c->tcp.max_syn_backlog == 0 ||
	    c->tcp.synack_rtx_burst == 0)
		return -EINVAL;
	if (c->frag.max_datagrams == 0 || c->frag.mem_max == 0 ||
	    c->frag.timeout_ms == 0 || c->frag.max_frags == 0)
		return -EINVAL;
	if (c->ip6.enable && (c->ip6.prefix_len == 0 ||
	    c->ip6.prefix_len > 128 || c->ip6.hop_limit == 0 ||
	    c->netif.mtu < 1280))
		return -EINVAL; /* (RFC 8200 5: a link for IPv6 has 1280) */
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
		STACK_LOG(ERR, "cannot register the mbuf metadata field: %s",
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
		 conf->name != NULL ? conf->name : "ust0");
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
	stk->log_drops = rte_log_can_log(ust_drop_logtype, RTE_LOG_DEBUG);
	stk->lcore = conf->lcore == LCORE_ID_ANY ? rte_lcore_id() :
		conf->lcore;
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
	stk->reasm_next = UINT64_MAX;
	rc = ust_arp_init(stk);
	if (rc == 0)
		rc = ust_ip_reasm_init(stk);
	if (rc == 0)
		rc = ust_ip6_init(stk);
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
	rc = ust_telemetry_register(stk);
	if (rc != 0) {
		STACK_LOG(ERR, "%s: %s", stk->name, rc == -EEXIST ?
			  "a stack or group of this process has this name" :
			  "too many stacks in this process");
		ust_stack_destroy(stk);
		rte_errno = -rc;
		return NULL;
	}
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
	ust_ip6_fini(stk);
	ust_ip_reasm_fini(stk);
	ust_sock_table_fini(stk);
	ust_tcp_fini(stk);
	ust_udp_fini(stk);
	while ((m = ust_pktq_pop(stk->meta_off, &stk->loopq)) != NULL)
		ust_drop(stk, m, UST_DROP_TX_STAGE_FULL);
	rte_free(stk->tx_pkts);
	rte_free(stk->tx_own);
	rte_free(stk);
}

void
ust_stack_input(struct ust_stack *stk, struct rte_mbuf **pkts, uint16_t n,
		uint64_t now_ns)
{
	stk->now = now_ns;
	stk->poll_gen++;
	while (n > 0) {
		uint16_t k = n > UST_MAX_BURST ? UST_MAX_BURST : n;

		ust_eth_input(stk, pkts, k);
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
	if (unlikely(now_ns >= stk->reasm_next))
		ust_ip_reasm_timers(stk);
	if (stk->ip6 != NULL && now_ns >= stk->ip6->next_tick)
		ust_ip6_timers(stk);
	ust_tcp_poll(stk);
}

int
ust_epoll_wait_timeout(struct ust_stack *stk, int epd,
		       struct ust_epoll_event *events, int max, int timeout_ms)
{
	uint64_t now = ust_clock_ns(), end;
	int n;

	if (timeout_ms < -1)
		return -EINVAL;
	end = timeout_ms < 0 ? UINT64_MAX :
		now + (uint64_t)timeout_ms * 1000000u;
	for (;;) {
		ust_stack_poll(stk, now);
		n = ust_epoll_wait(stk, epd, events, max);
		if (n != 0)
			return n;
		now = ust_clock_ns();
		if (now >= end)
			return 0;
	}
}

uint64_t
ust_stack_next_deadline(const struct ust_stack *stk)
{
	uint64_t d;

	if (stk->tx_n > 0 || stk->loopq.len > 0)
		return stk->now;
	d = RTE_MIN(ust_tcp_next_deadline(stk), ust_arp_next_deadline(stk));
	d = RTE_MIN(d, stk->reasm_next);
	d = RTE_MIN(d, ust_ip6_next_deadline(stk));
	return d < stk->now ? stk->now : d;
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
		ust_eth_input(stk, pkts, n);
		stk->in_loop = false;
	}
	n = stk->netif.ops->rx_burst(stk->netif.ctx, pkts, stk->rx_burst);
	if (n > 0) {
		stk->mib[UST_MIB_ETH_RXBURSTS]++;
		ust_eth_input(stk, pkts, n);
	}
	if (stk->sib != NULL) {
		/* what sibling stacks handed over (lib/group) */
		uint16_t h = stk->sib->rx(stk, pkts, UST_MAX_BURST);

		if (h > 0) {
			stk->sib_in = true;
			ust_eth_input(stk, pkts, h);
			stk->sib_in = false;
			n += h;
		}
	}
	if (now_ns >= stk->arp.next_tick)
		ust_arp_timers(stk);
	if (unlikely(now_ns >= stk->reasm_next))
		ust_ip_reasm_timers(stk);
	if (stk->ip6 != NULL && now_ns >= stk->ip6->next_tick)
		ust_ip6_timers(stk);
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
