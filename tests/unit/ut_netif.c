/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/* The in-memory netif and frame builders for stack tests: see ut_netif.h. */

#include <stdio.h>
#include <stdlib.h>

#include <rte_arp.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "ut.h"
#include "ust_socket.h"
#include "ut_netif.h"

const struct rte_ether_addr ut_our_mac = {{ 0x02, 0, 0, 0, 0, 0x02 }};
const struct rte_ether_addr ut_peer_mac = {{ 0x02, 0, 0, 0, 0, 0x01 }};

static uint16_t
ut_rx(void *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	struct ut_netif *u = ctx;
	uint16_t k = 0;

	while (k < n && k < u->rx_n) {
		pkts[k] = u->rx[k];
		k++;
	}
	memmove(u->rx, u->rx + k, (u->rx_n - k) * sizeof(u->rx[0]));
	u->rx_n -= k;
	return k;
}

static uint16_t
ut_tx(void *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	struct ut_netif *u = ctx;
	uint16_t k;

	for (k = 0; k < n && k < u->tx_accept && u->tx_n < UT_TX_MAX; k++)
		u->tx[u->tx_n++] = pkts[k];
	return k;
}

static const struct ust_netif_ops ut_ops = { .rx_burst = ut_rx,
					     .tx_burst = ut_tx };

void
ut_netif_init(struct ut_netif *n, uint32_t flags)
{
	memset(n, 0, sizeof(*n));
	n->netif.ops = &ut_ops;
	n->netif.ctx = n;
	n->netif.mac = ut_our_mac;
	n->netif.mtu = 1500;
	n->netif.flags = flags;
	n->netif.port_id = UINT16_MAX;
	n->tx_accept = UINT32_MAX;
}

struct ust_stack *
ut_stack_create(struct ut_netif *n, struct rte_mempool *mp,
		void (*tweak)(struct ust_stack_conf *))
{
	struct ust_stack_conf c;
	static unsigned int seq;
	char name[32];

	ust_stack_conf_defaults(&c);
	snprintf(name, sizeof(name), "ut%u", seq++);
	c.name = name;
	c.netif = n->netif;
	c.pool = mp;
	c.addr = UT_OUR_IP;
	c.prefix_len = 24;
	c.gateway = UT_GW_IP;
	c.now_ns = 0; /* the tests' fake clocks start here */
	if (tweak != NULL)
		tweak(&c);
	return ust_stack_create(&c);
}

static uint8_t *
frame_start(struct rte_mbuf *m, uint16_t ethertype, size_t len,
	    const struct rte_ether_addr *dst)
{
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	struct ust_eth_repr e;

	if (p == NULL) {
		fprintf(stderr, "test frame of %zu bytes does not fit\n", len);
		abort();
	}
	e.dst = *dst;
	e.src = ut_peer_mac;
	e.ethertype = ethertype;
	ust_eth_emit(p, UST_ETH_HDR_LEN, &e);
	return p + UST_ETH_HDR_LEN;
}

struct rte_mbuf *
ut_udp_frame(struct rte_mempool *mp, rte_be32_t src, rte_be32_t dst,
	     uint16_t sport, uint16_t dport, const void *payload,
	     uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_ipv4_hdr *ih;
	struct rte_udp_hdr *uh;

	if (m == NULL)
		return NULL;
	ih = (struct rte_ipv4_hdr *)frame_start(m, RTE_ETHER_TYPE_IPV4,
		UST_ETH_HDR_LEN + 28 + len, &ut_our_mac);
	memset(ih, 0, 28);
	ih->version_ihl = 0x45;
	ih->total_length = rte_cpu_to_be_16((uint16_t)(28 + len));
	ih->time_to_live = 64;
	ih->next_proto_id = IPPROTO_UDP;
	ih->src_addr = src;
	ih->dst_addr = dst;
	ih->hdr_checksum = rte_ipv4_cksum(ih);
	uh = (struct rte_udp_hdr *)(ih + 1);
	uh->src_port = rte_cpu_to_be_16(sport);
	uh->dst_port = rte_cpu_to_be_16(dport);
	uh->dgram_len = rte_cpu_to_be_16((uint16_t)(8 + len));
	if (len > 0)
		memcpy(uh + 1, payload, len);
	uh->dgram_cksum = rte_ipv4_udptcp_cksum(ih, uh);
	return m;
}

struct rte_mbuf *
ut_arp_frame(struct rte_mempool *mp, uint16_t op,
	     const struct rte_ether_addr *sha, rte_be32_t spa, rte_be32_t tpa)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_ether_addr bcast;
	struct ust_arp_repr a;
	uint8_t *p;

	if (m == NULL)
		return NULL;
	memset(&bcast, 0xff, sizeof(bcast));
	p = frame_start(m, RTE_ETHER_TYPE_ARP, UST_ETH_HDR_LEN + 28,
			op == RTE_ARP_OP_REQUEST ? &bcast : &ut_our_mac);
	memset(&a, 0, sizeof(a));
	a.op = op;
	a.sha = *sha;
	a.spa = spa;
	if (op == RTE_ARP_OP_REPLY)
		a.tha = ut_our_mac;
	a.tpa = tpa;
	ust_arp_emit(p, 28, &a);
	return m;
}

struct rte_mbuf *
ut_icmp_echo_frame(struct rte_mempool *mp, rte_be32_t dst, uint16_t ident,
		   uint16_t seq, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_ipv4_hdr *ih;
	struct ust_icmp_repr ic;
	uint8_t data[1500];
	uint16_t i;

	if (m == NULL)
		return NULL;
	ih = (struct rte_ipv4_hdr *)frame_start(m, RTE_ETHER_TYPE_IPV4,
		UST_ETH_HDR_LEN + 28 + len, &ut_our_mac);
	memset(ih, 0, 20);
	ih->version_ihl = 0x45;
	ih->total_length = rte_cpu_to_be_16((uint16_t)(28 + len));
	ih->time_to_live = 64;
	ih->next_proto_id = IPPROTO_ICMP;
	ih->src_addr = UT_PEER_IP;
	ih->dst_addr = dst;
	ih->hdr_checksum = rte_ipv4_cksum(ih);
	for (i = 0; i < len; i++)
		data[i] = (uint8_t)i;
	memset(&ic, 0, sizeof(ic));
	ic.type = UST_ICMP_ECHO_REQUEST;
	ic.ident = ident;
	ic.seq = seq;
	ic.data = data;
	ic.data_len = len;
	ust_icmp_emit(ih + 1, 8 + len, &ic);
	return m;
}

struct rte_mbuf *
ut_icmp_port_unreach_frame(struct rte_mempool *mp, const uint8_t *quote,
			   uint16_t quote_len)
{
	return ut_icmp_error_frame(mp, UST_ICMP_DEST_UNREACH,
				   UST_ICMP_CODE_PORT_UNREACH, 0, quote,
				   quote_len);
}

struct rte_mbuf *
ut_icmp_error_frame(struct rte_mempool *mp, uint8_t type, uint8_t code,
		    uint16_t mtu, const uint8_t *quote, uint16_t quote_len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct ust_ipv4_repr ip;
	struct ust_icmp_repr ic;
	uint8_t *p;

	if (m == NULL)
		return NULL;
	p = frame_start(m, RTE_ETHER_TYPE_IPV4,
			UST_ETH_HDR_LEN + 28 + quote_len, &ut_our_mac);
	memset(&ip, 0, sizeof(ip));
	ip.src = UT_PEER_IP;
	ip.dst = UT_OUR_IP;
	ip.proto = IPPROTO_ICMP;
	ip.ttl = 64;
	ip.total_len = (uint16_t)(28 + quote_len);
	ust_ipv4_emit(p, 20, &ip, 0);
	memset(&ic, 0, sizeof(ic));
	ic.type = type;
	ic.code = code;
	ic.mtu = mtu;
	ic.data = quote;
	ic.data_len = quote_len;
	ust_icmp_emit(p + 20, 8u + quote_len, &ic);
	return m;
}

int
ut_udp_bound(struct ust_stack *stk, uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = rte_cpu_to_be_16(port) };
	int sd = ust_socket(stk, AF_INET, SOCK_DGRAM, 0);

	if (sd < 0 || ust_bind(stk, sd, (struct sockaddr *)&sin,
			       sizeof(sin)) != 0)
		return -1;
	return sd;
}

void
ut_fix_ipv4_csum(struct rte_mbuf *m)
{
	struct rte_ipv4_hdr *ih = rte_pktmbuf_mtod_offset(m,
		struct rte_ipv4_hdr *, UST_ETH_HDR_LEN);

	ih->hdr_checksum = 0;
	ih->hdr_checksum = rte_ipv4_cksum(ih);
}

struct rte_mbuf *
ut_tx_pop(struct ut_netif *n)
{
	struct rte_mbuf *m;

	if (n->tx_n == 0)
		return NULL;
	m = n->tx[0];
	memmove(n->tx, n->tx + 1, (n->tx_n - 1) * sizeof(n->tx[0]));
	n->tx_n--;
	return m;
}

unsigned int
ut_tx_drain(struct ut_netif *n)
{
	unsigned int i, k = n->tx_n;

	for (i = 0; i < k; i++)
		rte_pktmbuf_free(n->tx[i]);
	n->tx_n = 0;
	return k;
}

const uint8_t *
ut_parse_ipv4_frame(struct rte_mbuf *m, struct ust_eth_repr *eth,
		    struct ust_ipv4_repr *ip)
{
	const uint8_t *p;

	/* a chained frame (TX layouts) is read as the NIC would gather it */
	if (m->nb_segs > 1 && rte_pktmbuf_linearize(m) != 0)
		return NULL;
	p = rte_pktmbuf_mtod(m, const uint8_t *);
	if (ust_eth_parse(p, m->data_len, eth) != UST_WIRE_OK ||
	    eth->ethertype != RTE_ETHER_TYPE_IPV4)
		return NULL;
	if (ust_ipv4_parse(p + 14, m->data_len - 14, m->pkt_len - 14, 0, ip) !=
	    UST_WIRE_OK)
		return NULL;
	return p + 14 + ip->hdr_len;
}

int
ut_check_conservation(struct ust_stack *stk)
{
	struct ust_stats st;
	uint64_t drops;

	ust_stack_stats_get(stk, &st);
	drops = ust_stats_drops(&st, UST_DROP_PATH_RX);
	if (st.mib[UST_MIB_ETH_INFRAMES] != st.rx_consumed + drops) {
		fprintf(stderr, "  conservation: in %" PRIu64 " != consumed %"
			PRIu64 " + rx drops %" PRIu64 "\n",
			st.mib[UST_MIB_ETH_INFRAMES], st.rx_consumed, drops);
		return -1;
	}
	return 0;
}

int
ut_udp_check(struct ust_stack *stk, const int *sds, int n, uint32_t tmax,
	     uint32_t *allow, uint64_t seed, uint64_t step)
{
	int64_t sum = 0;
	int i;

	for (i = 0; i < n; i++) {
		struct ust_sock_meminfo mi;
		socklen_t l = sizeof(mi);

		if (sds[i] < 0)
			continue;
		UT_EQ(ust_getsockopt(stk, sds[i], UST_SOL_USTACK,
				     UST_SO_MEMINFO, &mi, &l), 0);
		UT_ASSERT(mi.rmem_alloc == mi.queued_truesize +
			  mi.forward_deficit, "seed %" PRIu64 " step %" PRIu64
			  " sock %d: rmem %u queued %u deficit %u", seed, step,
			  i, mi.rmem_alloc, mi.queued_truesize,
			  mi.forward_deficit);
		UT_ASSERT(mi.forward_alloc >= 0, "seed %" PRIu64 " step %"
			  PRIu64 ": forward_alloc %d", seed, step,
			  mi.forward_alloc);
		UT_ASSERT((int32_t)mi.rmem_alloc >= 0 &&
			  (int32_t)mi.forward_deficit >= 0);
		if (allow[i] < mi.rcvbuf + tmax)
			allow[i] = mi.rcvbuf + tmax;
		UT_ASSERT(mi.rmem_alloc <= allow[i],
			  "seed %" PRIu64 " step %" PRIu64 ": rmem %u rcvbuf %u"
			  " allowed %u", seed, step, mi.rmem_alloc, mi.rcvbuf,
			  allow[i]);
		if (mi.rmem_alloc <= mi.rcvbuf + tmax)
			allow[i] = mi.rcvbuf + tmax;
		else
			allow[i] = mi.rmem_alloc; /* may only go down */
		sum += (int64_t)mi.forward_alloc + mi.rmem_alloc;
	}
	UT_ASSERT(ust_mem_pool_pages(ust_stack_udp_mem(stk)) * 4096 == sum,
		  "seed %" PRIu64 " step %" PRIu64 ": pool %" PRId64
		  " pages, sockets %" PRId64 " bytes", seed, step,
		  ust_mem_pool_pages(ust_stack_udp_mem(stk)), sum);
	return 0;
}

struct rte_mbuf *
ut_tcp_frame(struct rte_mempool *mp, const struct ust_tcp_repr *th,
	     const void *payload, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct ust_tcp_repr r = *th;
	struct ust_ipv4_repr ip;
	size_t hlen = UST_TCP_HDR_LEN +
		ust_tcp_opts_len(&r.opts, (r.flags & UST_TCP_SYN) != 0);
	uint8_t *p;

	if (m == NULL)
		return NULL;
	p = frame_start(m, RTE_ETHER_TYPE_IPV4,
			UST_ETH_HDR_LEN + 20 + hlen + len, &ut_our_mac);
	memset(&ip, 0, sizeof(ip));
	ip.src = UT_PEER_IP;
	ip.dst = UT_OUR_IP;
	ip.proto = IPPROTO_TCP;
	ip.ttl = 64;
	ip.total_len = (uint16_t)(20 + hlen + len);
	ust_ipv4_emit(p, 20, &ip, 0);
	if (len > 0)
		memcpy(p + 20 + hlen, payload, len);
	ust_tcp_emit(p + 20, hlen, &r, UT_PEER_IP, UT_OUR_IP, p + 20 + hlen,
		     len, 0);
	return m;
}

int
ut_tx_tcp(struct ut_netif *n, struct ust_tcp_repr *th, void *data, size_t cap)
{
	struct rte_mbuf *m;

	while ((m = ut_tx_pop(n)) != NULL) {
		struct ust_eth_repr eth;
		struct ust_ipv4_repr ip;
		const uint8_t *l4 = ut_parse_ipv4_frame(m, &eth, &ip);
		uint32_t l4len;
		int plen;

		if (l4 == NULL || ip.proto != IPPROTO_TCP) {
			rte_pktmbuf_free(m);
			continue;
		}
		l4len = (uint32_t)ip.total_len - ip.hdr_len;
		if (ust_tcp_parse(l4, l4len, ip.src, ip.dst, 0, th) !=
		    UST_WIRE_OK) {
			fprintf(stderr, "  TX segment does not parse\n");
			rte_pktmbuf_free(m);
			return -2;
		}
		plen = (int)(l4len - th->hdr_len);
		if (data != NULL)
			memcpy(data, l4 + th->hdr_len,
			       RTE_MIN((size_t)plen, cap));
		rte_pktmbuf_free(m);
		return plen;
	}
	return -1;
}

uint64_t
ut_mib(struct ust_stack *stk, enum ust_mib c)
{
	struct ust_stats st;

	ust_stack_stats_get(stk, &st);
	return st.mib[c];
}

uint64_t
ut_drops(struct ust_stack *stk, enum ust_drop_reason r)
{
	struct ust_stats st;

	ust_stack_stats_get(stk, &st);
	return st.drop[r];
}

void
ut_inject(struct ust_stack *stk, struct rte_mbuf *m, uint64_t now)
{
	ust_stack_input(stk, &m, 1, now);
	ust_stack_flush(stk);
}

int
ut_teardown(struct ust_stack *stk, struct ut_netif *n, struct rte_mempool *mp)
{
	int rc = ut_check_conservation(stk);

	ust_stack_destroy(stk);
	ut_tx_drain(n);
	if (ut_leak_check(mp) != 0)
		rc = -1;
	return rc;
}
