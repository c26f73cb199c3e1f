/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * IPv6 input and output of a stack instance (RFC 8200), its addresses and
 * its routes.
 *
 * Input, ust_ipv6_input(), once per received IPv6 packet (eth.c): the
 * fixed header (lib/wire), the padding trimmed, source and destination
 * checks (RFC 4291: no multicast, loopback or IPv4-mapped source; the
 * destination one of our usable addresses or a group we joined), the
 * extension header walk (lib/wire: hop-by-hop first, options by their
 * action bits, routing headers with segments left refused as RFC 5095
 * asks of type 0, at most 8), each refusal answered with the ICMPv6
 * parameter problem the walk names; then ICMPv6 (icmp6.c), no next
 * header (consumed), or the protocol registered for the next header,
 * else a parameter problem (code 1) as Linux sends. Fragments are
 * reassembled (frag.c; an atomic fragment, RFC 6946, is the packet
 * itself) and the datagram's chain walked again.
 *
 * Output, ust_ipv6_output(): the route (our own address: loopback;
 * multicast: the group's MAC; link-local or on-link, by the configured
 * prefix or one an RA gave: the destination itself; else the default
 * router), the source (ust_ip6_select_src()), the headers, fragments
 * above the MTU (frag.c, rte_ipv6_fragment_packet()), and Neighbour
 * Discovery (nd.c) for unicast next hops.
 *
 * How it is called: ust_eth_input() (eth.c) for EtherType 0x86DD when the
 * stack has IPv6 on (else IPV6DISABLED); ICMPv6 and ND for what they
 * send; the upper protocols that register with ust_ipv6_register().
 */

#include <errno.h>
#include <string.h>

#include <rte_ip.h>

#include "ip_private.h"
#include "ust_wire.h"

/* the longest run of extension headers ustack reads contiguously; a
 * packet whose chain is longer is dropped as a header error */
#define IPV6_EXT_PULL 1024

static const uint8_t ip6_all_nodes[UST_IPV6_ADDR_LEN] = {
	0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };

static inline bool
ip6_is_unspec(const uint8_t *a)
{
	static const uint8_t z[UST_IPV6_ADDR_LEN];

	return memcmp(a, z, UST_IPV6_ADDR_LEN) == 0;
}

static inline bool
ip6_is_linklocal(const uint8_t *a)
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

static inline bool
ip6_is_loopback(const uint8_t *a)
{
	static const uint8_t lo[UST_IPV6_ADDR_LEN] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };

	return memcmp(a, lo, UST_IPV6_ADDR_LEN) == 0;
}

static inline bool
ip6_is_v4mapped(const uint8_t *a)
{
	static const uint8_t pre[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return memcmp(a, pre, sizeof(pre)) == 0;
}

/* Whether @a and @b share their first @len bits. */
static bool
ip6_prefix_match(const uint8_t *a, const uint8_t *b, uint8_t len)
{
	uint8_t bytes = len / 8, bits = len % 8;

	if (memcmp(a, b, bytes) != 0)
		return false;
	if (bits == 0)
		return true;
	return ((a[bytes] ^ b[bytes]) & (uint8_t)(0xff00 >> bits)) == 0;
}

int
ust_ip6_our_addr(const struct ust_stack *stk, const uint8_t *a, bool usable)
{
	const struct ust_ip6 *i6 = stk->ip6;
	int k;

	for (k = 0; k < UST_IP6_NADDR; k++) {
		const struct ust_ip6_addr *ad = &i6->addr[k];

		if (ad->state == 0 ||
		    (usable && ad->state != UST_IP6_PREFERRED))
			continue;
		if (memcmp(ad->a, a, UST_IPV6_ADDR_LEN) == 0)
			return k;
	}
	return -1;
}

const uint8_t *
ust_ip6_select_src(const struct ust_stack *stk, const uint8_t *dst)
{
	const struct ust_ip6 *i6 = stk->ip6;
	const struct ust_ip6_addr *ll = &i6->addr[UST_IP6_LL];
	const struct ust_ip6_addr *gl = &i6->addr[UST_IP6_GLOBAL];
	bool link_scope = ip6_is_linklocal(dst) ||
		(ust_ipv6_is_multicast(dst) && (dst[1] & 0x0f) <= 2);

	/* RFC 6724 rule 2 (scope) in short: the link-local address for
	 * link-scope destinations, the global one for the rest; either
	 * when the other is not usable */
	if (link_scope && ll->state == UST_IP6_PREFERRED)
		return ll->a;
	if (gl->state == UST_IP6_PREFERRED)
		return gl->a;
	if (ll->state == UST_IP6_PREFERRED)
		return ll->a;
	return NULL;
}

/* Whether @dst is on the link: link-local, in our prefix, or in one an RA
 * said is on-link. */
static bool
ip6_on_link(const struct ust_stack *stk, const uint8_t *dst)
{
	const struct ust_ip6 *i6 = stk->ip6;
	const struct ust_ip6_addr *gl = &i6->addr[UST_IP6_GLOBAL];
	int k;

	if (ip6_is_linklocal(dst))
		return true;
	if (gl->state != 0 && ip6_prefix_match(dst, gl->a, gl->prefix_len))
		return true;
	for (k = 0; k < UST_IP6_MAX_PREFIXES; k++) {
		const struct ust_ip6_prefix *p = &i6->prefixes[k];

		if (p->len != 0 && stk->now < p->expires &&
		    ip6_prefix_match(dst, p->p, p->len))
			return true;
	}
	return false;
}

bool
ust_ip6_mac_joined(const struct ust_stack *stk,
		   const struct rte_ether_addr *mac)
{
	const struct ust_ip6 *i6 = stk->ip6;
	const uint8_t *b = mac->addr_bytes;
	int k;

	if (i6 == NULL || b[0] != 0x33 || b[1] != 0x33)
		return false;
	if (b[2] == 0 && b[3] == 0 && b[4] == 0 && b[5] == 1)
		return true; /* ff02::1 */
	if (b[2] != 0xff)
		return false;
	for (k = 0; k < UST_IP6_NADDR; k++) {
		const uint8_t *a = i6->addr[k].a;

		if (i6->addr[k].state != 0 && a[13] == b[3] &&
		    a[14] == b[4] && a[15] == b[5])
			return true;
	}
	return false;
}

/* A multicast destination we receive: all-nodes, or the solicited-node
 * group of one of our addresses (tentative ones too: DAD listens). */
static bool
ip6_group_joined(const struct ust_stack *stk, const uint8_t *dst)
{
	const struct ust_ip6 *i6 = stk->ip6;
	uint8_t sn[UST_IPV6_ADDR_LEN];
	int k;

	if (memcmp(dst, ip6_all_nodes, UST_IPV6_ADDR_LEN) == 0)
		return true;
	for (k = 0; k < UST_IP6_NADDR; k++) {
		if (i6->addr[k].state == 0 ||
		    i6->addr[k].state == UST_IP6_DUPLICATE)
			continue;
		ust_ipv6_solicited_node(i6->addr[k].a, sn);
		if (memcmp(dst, sn, UST_IPV6_ADDR_LEN) == 0)
			return true;
	}
	return false;
}

int
ust_ipv6_register(struct ust_stack *stk, uint8_t nh,
		  const struct ust_ipv6_proto *p)
{
	if (stk->ip6 == NULL || p == NULL || p->input == NULL ||
	    nh == UST_IPV6_NH_ICMPV6)
		return -EINVAL;
	if (stk->ip6->protos[nh] != NULL)
		return -EEXIST;
	stk->ip6->protos[nh] = p;
	return 0;
}

/* Drop @m as a header error after answering with the parameter problem
 * the walk named (when it named one). */
static void
ipv6_bad_exthdr(struct ust_stack *stk, struct rte_mbuf *m,
		const struct ust_ipv6_repr *ip6,
		const struct ust_ipv6_ext_repr *x)
{
	stk->mib[UST_MIB_IP6_INHDRERRORS]++;
	if (x->icmp)
		ust_icmp6_send_error(stk, m, ip6, UST_ICMP6_PARAM_PROBLEM,
				     x->err_code, x->err_ptr);
	ust_drop(stk, m, UST_DROP_IPV6_BAD_EXTHDR);
}

/* An atomic fragment (offset 0, no more: RFC 6946) is the packet itself:
 * its fragment header taken out, as reassembly would. */
static struct rte_mbuf *
ipv6_atomic_frag(struct rte_mbuf *m, const struct ust_ipv6_ext_repr *x)
{
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t fh = x->frag_hdr_off, field = 6, off = UST_IPV6_HDR_LEN;
	uint16_t plen;

	while (off < fh) {
		field = off;
		off += ((uint32_t)p[off + 1] + 1) * 8;
	}
	p[field] = p[fh];
	plen = (uint16_t)(((uint16_t)p[4] << 8 | p[5]) - 8);
	memmove(p + 8, p, fh);
	rte_pktmbuf_adj(m, 8);
	p = rte_pktmbuf_mtod(m, uint8_t *);
	p[4] = (uint8_t)(plen >> 8);
	p[5] = (uint8_t)plen;
	return m;
}

void
ust_ipv6_input(struct ust_stack *stk, struct rte_mbuf *m)
{
	struct ust_ipv6_repr ip6;
	struct ust_ipv6_ext_repr x;
	const struct ust_ipv6_proto *p;
	bool reassembled = false;
	uint32_t pull;
	int rc;

	stk->mib[UST_MIB_IP6_INRECEIVES]++;
	stk->mib[UST_MIB_IP6_INOCTETS] += m->pkt_len;
	rc = ust_ipv6_parse(rte_pktmbuf_mtod(m, void *), m->data_len,
			    m->pkt_len, &ip6);
	if (rc != UST_WIRE_OK) {
		if (rc == UST_WIRE_ETRUNC && m->pkt_len >= UST_IPV6_HDR_LEN &&
		    m->data_len >= UST_IPV6_HDR_LEN) {
			stk->mib[UST_MIB_IP6_INTRUNCATEDPKTS]++;
			ust_drop(stk, m, UST_DROP_PKT_TOO_SMALL);
			return;
		}
		stk->mib[UST_MIB_IP6_INHDRERRORS]++;
		ust_drop(stk, m, rc == UST_WIRE_ETRUNC ?
			 UST_DROP_PKT_TOO_SMALL : UST_DROP_IP_INHDR);
		return;
	}
	ust_mbuf_trim_to(m, UST_IPV6_HDR_LEN + ip6.payload_len);
	/* RFC 4291 2.5.2, 2.5.3, 2.5.5.2, 2.7: never a source on the wire */
	if (unlikely(ust_ipv6_is_multicast(ip6.src) ||
		     ip6_is_loopback(ip6.src) || ip6_is_v4mapped(ip6.src) ||
		     ip6_is_loopback(ip6.dst) || ip6_is_v4mapped(ip6.dst))) {
		stk->mib[UST_MIB_IP6_INADDRERRORS]++;
		ust_drop(stk, m, UST_DROP_IP_INVALID_SOURCE);
		return;
	}
	if (ust_ipv6_is_multicast(ip6.dst)) {
		if (!ip6_group_joined(stk, ip6.dst)) {
			ust_drop(stk, m, UST_DROP_OTHERHOST);
			return;
		}
		stk->mib[UST_MIB_IP6_INMCASTPKTS]++;
	} else if (ust_ip6_our_addr(stk, ip6.dst, true) < 0) {
		/* a tentative address takes only DAD's NS and NA, which go
		 * to its solicited-node group (RFC 4862 5.4) */
		stk->mib[UST_MIB_IP6_INADDRERRORS]++;
		ust_drop(stk, m, UST_DROP_IP_INADDRERRORS);
		return;
	}
	if (unlikely(!stk->in_loop && ust_ip6_our_addr(stk, ip6.src,
						       false) >= 0)) {
		stk->mib[UST_MIB_IP6_INADDRERRORS]++;
		ust_drop(stk, m, UST_DROP_IP_LOCAL_SOURCE);
		return;
	}
again:
	/* the chain (and the upper header's first bytes) contiguous */
	pull = RTE_MIN(m->pkt_len, (uint32_t)UST_IPV6_HDR_LEN + IPV6_EXT_PULL);
	if (m->nb_segs > 1 && !ust_mbuf_pull(m, pull)) {
		ust_drop(stk, m, UST_DROP_PKT_HDR_SPLIT);
		return;
	}
	if (reassembled)
		ust_ipv6_parse(rte_pktmbuf_mtod(m, void *), m->data_len,
			       m->pkt_len, &ip6);
	rc = ust_ipv6_ext_parse(rte_pktmbuf_mtod(m, void *), m->data_len,
				&ip6, &x);
	if (rc == UST_WIRE_OK && x.frag) {
		if (reassembled) {
			/* a fragment header inside a reassembled datagram */
			ipv6_bad_exthdr(stk, m, &ip6, &x);
			return;
		}
		m = x.frag_off == 0 && !x.frag_mf ?
			ipv6_atomic_frag(m, &x) :
			ust_ip6_reasm(stk, m, &ip6, &x);
		if (m == NULL)
			return;
		/* the datagram, whole (or the atomic fragment without its
		 * fragment header): its chain walked again from the top */
		reassembled = true;
		goto again;
	}
	if (rc != UST_WIRE_OK) {
		/* 11 in an option's action bits: no answer to multicast */
		if (rc == UST_WIRE_EUNSUPP &&
		    ust_ipv6_is_multicast(ip6.dst) && x.icmp &&
		    (rte_pktmbuf_mtod(m, const uint8_t *)[x.err_ptr] >> 6) ==
		    3)
			x.icmp = false;
		ipv6_bad_exthdr(stk, m, &ip6, &x);
		return;
	}
	if (x.upper == UST_IPV6_NH_ICMPV6) {
		uint32_t len = m->pkt_len - x.upper_off;

		stk->mib[UST_MIB_IP6_INDELIVERS]++;
		rte_pktmbuf_adj(m, x.upper_off);
		ust_icmp6_input(stk, m, &ip6, len);
		return;
	}
	if (x.upper == UST_IPV6_NH_NONE) {
		/* RFC 8200 4.7: nothing follows; as Linux, consumed */
		stk->mib[UST_MIB_IP6_INDELIVERS]++;
		ust_consumed(stk);
		rte_pktmbuf_free(m);
		return;
	}
	p = stk->ip6->protos[x.upper];
	if (p == NULL) {
		stk->mib[UST_MIB_IP6_INUNKNOWNPROTOS]++;
		ust_icmp6_send_error(stk, m, &ip6, UST_ICMP6_PARAM_PROBLEM,
				     UST_ICMP6_PARAM_NH, x.err_ptr);
		ust_drop(stk, m, UST_DROP_IP_NOPROTO);
		return;
	}
	stk->mib[UST_MIB_IP6_INDELIVERS]++;
	rte_pktmbuf_adj(m, x.upper_off);
	p->input(stk, m, &ip6, x.upper_off);
}

/* ---- output ---- */

enum ip6_route_kind {
	IP6_ROUTE_UNICAST,
	IP6_ROUTE_MULTICAST,
	IP6_ROUTE_LOCAL,
};

static int
ip6_route(const struct ust_stack *stk, const uint8_t *dst, const uint8_t **nh,
	  enum ip6_route_kind *kind)
{
	const struct ust_ip6 *i6 = stk->ip6;

	*nh = dst;
	if (ust_ipv6_is_multicast(dst)) {
		*kind = IP6_ROUTE_MULTICAST;
		return 0;
	}
	if (ip6_is_unspec(dst) || ip6_is_loopback(dst) ||
	    ip6_is_v4mapped(dst))
		return -ENETUNREACH;
	if (ust_ip6_our_addr(stk, dst, false) >= 0) {
		*kind = IP6_ROUTE_LOCAL;
		return 0;
	}
	*kind = IP6_ROUTE_UNICAST;
	if (ip6_on_link(stk, dst))
		return 0;
	if (i6->has_router && stk->now < i6->router_expires) {
		*nh = i6->router;
		return 0;
	}
	return -ENETUNREACH;
}

int
ust_ip6_route_check(struct ust_stack *stk, const uint8_t *dst)
{
	enum ip6_route_kind kind;
	const uint8_t *nh;

	if (stk->ip6 == NULL)
		return -ENETUNREACH;
	if (ip6_route(stk, dst, &nh, &kind) != 0) {
		stk->mib[UST_MIB_IP6_OUTNOROUTES]++;
		return -ENETUNREACH;
	}
	return 0;
}

static void ipv6_send_l2(struct ust_stack *stk, struct rte_mbuf *m,
			 const uint8_t *dst, const uint8_t *nexthop,
			 enum ip6_route_kind kind);

/* Above the MTU: the fixed header on @m, then cut (frag.c, the source
 * fragments in IPv6: RFC 8200 4.5), each piece with its Ethernet header
 * the route's way. */
static int
ipv6_output_frags(struct ust_stack *stk, struct rte_mbuf *m,
		  const uint8_t *src, const uint8_t *dst, uint8_t nh,
		  uint8_t hops, const uint8_t *nexthop,
		  enum ip6_route_kind kind)
{
	struct rte_mbuf *frags[UST_IPV4_FRAGS_MAX];
	struct ust_ipv6_repr ip6;
	struct ust_eth_repr eth;
	uint8_t *p;
	int n, i;

	p = (uint8_t *)rte_pktmbuf_prepend(m, UST_IPV6_HDR_LEN);
	if (unlikely(p == NULL || m->pkt_len - UST_IPV6_HDR_LEN > 65535)) {
		stk->mib[UST_MIB_IP6_FRAGFAILS]++;
		ust_tx_drop(stk, m, p == NULL ? UST_DROP_NOMEM :
			    UST_DROP_PKT_TOO_BIG);
		return p == NULL ? -ENOBUFS : -EMSGSIZE;
	}
	memset(&ip6, 0, sizeof(ip6));
	memcpy(ip6.src, src, UST_IPV6_ADDR_LEN);
	memcpy(ip6.dst, dst, UST_IPV6_ADDR_LEN);
	ip6.payload_len = (uint16_t)(m->pkt_len - UST_IPV6_HDR_LEN);
	ip6.next_header = nh;
	ip6.hop_limit = hops != 0 ? hops : stk->ip6->hop_limit;
	ust_ipv6_emit(p, UST_IPV6_HDR_LEN, &ip6);
	stk->mib[UST_MIB_IP6_OUTOCTETS] += m->pkt_len;
	n = ust_ipv6_fragment(stk, m, stk->ip6->mtu, frags);
	if (n < 0)
		return n;
	memset(&eth.dst, 0, sizeof(eth.dst));
	eth.src = stk->netif.mac;
	eth.ethertype = RTE_ETHER_TYPE_IPV6;
	for (i = 0; i < n; i++) {
		p = (uint8_t *)rte_pktmbuf_prepend(frags[i], UST_ETH_HDR_LEN);
		if (p == NULL) {
			ust_tx_drop(stk, frags[i], UST_DROP_NOMEM);
			continue;
		}
		ust_eth_emit(p, UST_ETH_HDR_LEN, &eth);
		frags[i]->l2_len = UST_ETH_HDR_LEN;
		frags[i]->l3_len = UST_IPV6_HDR_LEN;
		ipv6_send_l2(stk, frags[i], dst, nexthop, kind);
	}
	return 0;
}

int
ust_ipv6_output(struct ust_stack *stk, struct rte_mbuf *m, const uint8_t *src,
		const uint8_t *dst, uint8_t nh, uint8_t hops,
		uint64_t l4_ol_flags)
{
	struct ust_ip6 *i6 = stk->ip6;
	struct ust_ipv6_repr ip6;
	struct ust_eth_repr eth;
	enum ip6_route_kind kind;
	const uint8_t *nexthop;
	uint8_t *p;

	if (ip6_route(stk, dst, &nexthop, &kind) != 0) {
		stk->mib[UST_MIB_IP6_OUTNOROUTES]++;
		ust_tx_drop(stk, m, UST_DROP_IP_OUTNOROUTES);
		return -ENETUNREACH;
	}
	if (src == NULL) {
		src = ust_ip6_select_src(stk, dst);
		if (src == NULL) {
			stk->mib[UST_MIB_IP6_OUTNOROUTES]++;
			ust_tx_drop(stk, m, UST_DROP_IP_OUTNOROUTES);
			return -EADDRNOTAVAIL;
		}
	}
	stk->mib[UST_MIB_IP6_OUTREQUESTS]++;
	if (unlikely(m->pkt_len + UST_IPV6_HDR_LEN > i6->mtu)) {
		if (l4_ol_flags != 0) {
			/* an offloaded checksum cannot be cut */
			stk->mib[UST_MIB_IP6_FRAGFAILS]++;
			ust_tx_drop(stk, m, UST_DROP_PKT_TOO_BIG);
			return -EMSGSIZE;
		}
		return ipv6_output_frags(stk, m, src, dst, nh, hops, nexthop,
					 kind);
	}
	p = (uint8_t *)rte_pktmbuf_prepend(m, UST_ETH_HDR_LEN +
					   UST_IPV6_HDR_LEN);
	if (unlikely(p == NULL)) {
		stk->mib[UST_MIB_IP6_OUTDISCARDS]++;
		ust_tx_drop(stk, m, UST_DROP_NOMEM);
		return -ENOBUFS;
	}
	memset(&ip6, 0, sizeof(ip6));
	memcpy(ip6.src, src, UST_IPV6_ADDR_LEN);
	memcpy(ip6.dst, dst, UST_IPV6_ADDR_LEN);
	ip6.payload_len = (uint16_t)(m->pkt_len - UST_ETH_HDR_LEN -
				     UST_IPV6_HDR_LEN);
	ip6.next_header = nh;
	ip6.hop_limit = hops != 0 ? hops : i6->hop_limit;
	ust_ipv6_emit(p + UST_ETH_HDR_LEN, UST_IPV6_HDR_LEN, &ip6);
	stk->mib[UST_MIB_IP6_OUTOCTETS] += UST_IPV6_HDR_LEN + ip6.payload_len;
	m->ol_flags = l4_ol_flags;
	if (l4_ol_flags != 0)
		m->ol_flags |= RTE_MBUF_F_TX_IPV6;
	m->l2_len = UST_ETH_HDR_LEN;
	m->l3_len = UST_IPV6_HDR_LEN;
	memset(&eth.dst, 0, sizeof(eth.dst));
	eth.src = stk->netif.mac;
	eth.ethertype = RTE_ETHER_TYPE_IPV6;
	ust_eth_emit(p, UST_ETH_HDR_LEN, &eth);
	ipv6_send_l2(stk, m, dst, nexthop, kind);
	return 0;
}

/* Stage @m (data at its Ethernet header, our MAC the source) the route's
 * way. */
static void
ipv6_send_l2(struct ust_stack *stk, struct rte_mbuf *m, const uint8_t *dst,
	     const uint8_t *nexthop, enum ip6_route_kind kind)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

	switch (kind) {
	case IP6_ROUTE_MULTICAST:
		stk->mib[UST_MIB_IP6_OUTMCASTPKTS]++;
		ust_ipv6_mcast_mac(dst, &eh->dst_addr);
		ust_tx_stage(stk, m);
		break;
	case IP6_ROUTE_LOCAL:
		eh->dst_addr = stk->netif.mac;
		/* as Linux's loopback: checksums need no verification */
		m->ol_flags = RTE_MBUF_F_RX_IP_CKSUM_GOOD |
			      RTE_MBUF_F_RX_L4_CKSUM_GOOD;
		ust_loop_enqueue(stk, m);
		break;
	case IP6_ROUTE_UNICAST:
		ust_nd_output(stk, m, nexthop);
		break;
	}
}

/* ---- addresses ---- */

int
ust_stack_ip6_addr(const struct ust_stack *stk, unsigned int idx,
		   uint8_t *addr, uint8_t *prefix_len)
{
	const struct ust_ip6_addr *a;

	if (stk->ip6 == NULL || idx >= UST_IP6_NADDR)
		return -ENOENT;
	a = &stk->ip6->addr[idx];
	if (a->state == 0)
		return -ENOENT;
	if (addr != NULL)
		memcpy(addr, a->a, UST_IPV6_ADDR_LEN);
	if (prefix_len != NULL)
		*prefix_len = a->prefix_len;
	return a->state;
}

unsigned int
ust_stack_mc_addrs(const struct ust_stack *stk, struct rte_ether_addr *macs,
		   unsigned int max)
{
	uint8_t sn[UST_IPV6_ADDR_LEN];
	struct rte_ether_addr mac;
	unsigned int n = 0, k, j;

	if (stk->ip6 == NULL)
		return 0;
	ust_ipv6_mcast_mac(ip6_all_nodes, &mac);
	if (n < max)
		macs[n] = mac;
	n++;
	for (k = 0; k < UST_IP6_NADDR; k++) {
		if (stk->ip6->addr[k].state == 0)
			continue;
		ust_ipv6_solicited_node(stk->ip6->addr[k].a, sn);
		ust_ipv6_mcast_mac(sn, &mac);
		for (j = 0; j < n && j < max; j++)
			if (rte_is_same_ether_addr(&macs[j], &mac))
				break;
		if (j < n && j < max)
			continue; /* the same low 24 bits */
		if (n < max)
			macs[n] = mac;
		n++;
	}
	return n;
}
