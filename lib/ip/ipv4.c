/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * IPv4 input and output of a stack instance.
 *
 * Input, ust_ipv4_input(), once per received IPv4 packet: validation with
 * the wire parser (version, IHL, total length against the frame, checksum
 * unless the NIC verified it, options well formed), then TTL, source and
 * destination checks, fragments, and dispatch by protocol. ICMP is handled
 * here; UDP is returned to the caller to be demultiplexed as a batch.
 *
 * Output, ust_ipv4_output(), for every packet we originate: route (the
 * directly connected subnet, else the default gateway), prepend the IPv4
 * and Ethernet headers, set checksum offload flags the netif supports (or
 * compute in software), then broadcast/multicast MACs directly, unicast
 * through ARP, and packets to our own address through the loopback queue.
 * A packet above the MTU is cut into fragments first (frag.c) unless it
 * has DF, which TCP's always have (its MSS keeps it below).
 */

#include <errno.h>
#include <string.h>

#include <rte_ip.h>

#include "ip_private.h"
#include "ust_wire.h"

RTE_LOG_REGISTER(ust_ip_logtype, ustack.ip, INFO);

int
ust_route(const struct ust_stack *stk, rte_be32_t dst, rte_be32_t *nexthop,
	  enum ust_route_kind *kind)
{
	if (dst == stk->addr) {
		*kind = UST_ROUTE_LOCAL;
		*nexthop = dst;
		return 0;
	}
	if (dst == RTE_BE32(UINT32_MAX) || dst == stk->bcast) {
		*kind = UST_ROUTE_BROADCAST;
		*nexthop = dst;
		return 0;
	}
	if (ust_ipv4_is_multicast(dst)) {
		*kind = UST_ROUTE_MULTICAST;
		*nexthop = dst;
		return 0;
	}
	if (dst == 0)
		return -ENETUNREACH;
	*kind = UST_ROUTE_UNICAST;
	if ((dst & stk->mask) == (stk->addr & stk->mask)) {
		*nexthop = dst;
		return 0;
	}
	if (stk->gateway != 0) {
		*nexthop = stk->gateway;
		return 0;
	}
	return -ENETUNREACH;
}

static inline bool
ipv4_src_invalid(const struct ust_stack *stk, rte_be32_t src)
{
	uint32_t h = rte_be_to_cpu_32(src);

	/* martians: multicast, limited or subnet broadcast, 0.0.0.0, 127/8 */
	return ust_ipv4_is_multicast(src) || src == RTE_BE32(UINT32_MAX) ||
	       src == stk->bcast || h == 0 || (h >> 24) == 127;
}

int
ust_ipv4_input(struct ust_stack *stk, struct rte_mbuf **mp,
	       struct ust_ipv4_repr *ip)
{
	struct rte_mbuf *m = *mp;
	uint64_t csum = m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK;
	const struct ust_ipv4_proto *p;
	int flags = 0;
	int rc;

	stk->mib[UST_MIB_IP_INRECEIVES]++;
	stk->mib[UST_MIB_IPEXT_INOCTETS] += m->pkt_len;
	/* GOOD: verified by the NIC; NONE: "not filled in, data intact" */
	if (csum == RTE_MBUF_F_RX_IP_CKSUM_GOOD ||
	    csum == RTE_MBUF_F_RX_IP_CKSUM_NONE)
		flags = UST_WIRE_F_NO_CSUM;
	rc = ust_ipv4_parse(rte_pktmbuf_mtod(m, void *), m->data_len,
			    m->pkt_len, flags, ip);
	if (rc == UST_WIRE_OK && csum == RTE_MBUF_F_RX_IP_CKSUM_BAD)
		rc = UST_WIRE_ECSUM;
	switch (rc) {
	case UST_WIRE_OK:
		break;
	case UST_WIRE_ETRUNC:
		if (m->data_len >= UST_IPV4_HDR_LEN &&
		    m->pkt_len >= UST_IPV4_HDR_LEN)
			stk->mib[UST_MIB_IPEXT_INTRUNCATEDPKTS]++;
		else
			stk->mib[UST_MIB_IP_INHDRERRORS]++;
		ust_drop(stk, m, UST_DROP_PKT_TOO_SMALL);
		return 0;
	case UST_WIRE_ECSUM:
		stk->mib[UST_MIB_IPEXT_INCSUMERRORS]++;
		stk->mib[UST_MIB_IP_INHDRERRORS]++;
		ust_drop(stk, m, UST_DROP_IP_CSUM);
		return 0;
	default:
		stk->mib[UST_MIB_IP_INHDRERRORS]++;
		ust_drop(stk, m, UST_DROP_IP_INHDR);
		return 0;
	}
	/* RFC 1122 3.2.1.7: nobody may send TTL 0, so it is malformed.
	 * (Linux delivers it locally; ustack is stricter.) */
	if (unlikely(ip->ttl == 0)) {
		stk->mib[UST_MIB_IP_INHDRERRORS]++;
		ust_drop(stk, m, UST_DROP_IP_INHDR);
		return 0;
	}
	/* Ethernet padding after a short datagram */
	ust_mbuf_trim_to(m, ip->total_len);

	if (ip->dst != stk->addr) {
		if (ip->dst == RTE_BE32(UINT32_MAX) || ip->dst == stk->bcast) {
			stk->mib[UST_MIB_IPEXT_INBCASTPKTS]++;
		} else if (ust_ipv4_is_multicast(ip->dst)) {
			/* no multicast group is joined */
			ust_drop(stk, m, UST_DROP_OTHERHOST);
			return 0;
		} else {
			stk->mib[UST_MIB_IP_INADDRERRORS]++;
			ust_drop(stk, m, UST_DROP_IP_INADDRERRORS);
			return 0;
		}
	}
	if (unlikely(ipv4_src_invalid(stk, ip->src))) {
		stk->mib[UST_MIB_IP_INADDRERRORS]++;
		ust_drop(stk, m, UST_DROP_IP_INVALID_SOURCE);
		return 0;
	}
	if (unlikely(ip->src == stk->addr && !stk->in_loop)) {
		stk->mib[UST_MIB_IP_INADDRERRORS]++;
		ust_drop(stk, m, UST_DROP_IP_LOCAL_SOURCE);
		return 0;
	}
	if (unlikely(ip->hdr_len > UST_IPV4_HDR_LEN)) {
		/* parsed above: hdr_len bytes are in the first segment */
		int sr = ust_ipv4_opt_source_route(rte_pktmbuf_mtod_offset(m,
			const uint8_t *, UST_IPV4_HDR_LEN),
			ip->hdr_len - UST_IPV4_HDR_LEN);

		if (sr < 0) {
			stk->mib[UST_MIB_IP_INHDRERRORS]++;
			ust_drop(stk, m, UST_DROP_IP_INHDR);
			return 0;
		}
		/* as Linux with accept_source_route=0 (ip_rcv_options()):
		 * dropped, in no MIB counter; with it on, delivered (ustack
		 * is a host: the route is neither followed nor reversed) */
		if (sr > 0 && !stk->accept_source_route) {
			ust_drop(stk, m, UST_DROP_IP_SOURCE_ROUTE);
			return 0;
		}
	}
	if (unlikely(ust_ipv4_is_fragment(ip))) {
		/* held until its datagram is whole (frag.c), which then goes
		 * on as one packet */
		m = ust_ip_reasm(stk, m, ip);
		if (m == NULL)
			return 0;
		*mp = m;
	}
	if (ip->proto == IPPROTO_ICMP) {
		stk->mib[UST_MIB_IP_INDELIVERS]++;
		ust_icmp_input(stk, m, ip);
		return 0;
	}
	p = stk->ip_protos[ip->proto];
	if (unlikely(p == NULL)) {
		stk->mib[UST_MIB_IP_INUNKNOWNPROTOS]++;
		ust_icmp_send_error(stk, m, ip, UST_ICMP_DEST_UNREACH,
				    UST_ICMP_CODE_PROTO_UNREACH);
		ust_drop(stk, m, UST_DROP_IP_NOPROTO);
		return 0;
	}
	stk->mib[UST_MIB_IP_INDELIVERS]++;
	if (p->input_burst != NULL)
		return ip->proto;
	p->input(stk, m, ip);
	return 0;
}

int
ust_ipv4_register(struct ust_stack *stk, uint8_t proto,
		  const struct ust_ipv4_proto *p)
{
	if (p == NULL || proto == IPPROTO_ICMP ||
	    (p->input == NULL) == (p->input_burst == NULL))
		return -EINVAL;
	if (stk->ip_protos[proto] != NULL)
		return -EEXIST;
	stk->ip_protos[proto] = p;
	return 0;
}

static void
ipv4_mcast_mac(rte_be32_t dst, struct rte_ether_addr *mac)
{
	uint32_t h = rte_be_to_cpu_32(dst);

	mac->addr_bytes[0] = 0x01;
	mac->addr_bytes[1] = 0x00;
	mac->addr_bytes[2] = 0x5e;
	mac->addr_bytes[3] = (h >> 16) & 0x7f;
	mac->addr_bytes[4] = (h >> 8) & 0xff;
	mac->addr_bytes[5] = h & 0xff;
}

/* Fill the L4 checksum in software when the offload was asked for but the
 * packet goes nowhere a NIC would compute it (our own address). */
static void
ipv4_loop_fix_csum(struct rte_mbuf *m)
{
	struct rte_ipv4_hdr *ih = rte_pktmbuf_mtod_offset(m,
		struct rte_ipv4_hdr *, UST_ETH_HDR_LEN);

	if (m->ol_flags & RTE_MBUF_F_TX_IP_CKSUM) {
		ih->hdr_checksum = 0;
		ih->hdr_checksum = rte_ipv4_cksum(ih);
	}
	m->ol_flags &= ~(RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_L4_MASK |
			 RTE_MBUF_F_TX_IPV4);
	/* as Linux's loopback: the checksums need no verification */
	m->ol_flags |= RTE_MBUF_F_RX_IP_CKSUM_GOOD |
		       RTE_MBUF_F_RX_L4_CKSUM_GOOD;
}

/* Stage @m (data at its Ethernet header, which has our source MAC) for
 * @dst by the route's kind: through ARP, broadcast, multicast, or into the
 * loopback queue. */
static __rte_always_inline void
ipv4_send_l2(struct ust_stack *stk, struct rte_mbuf *m, rte_be32_t dst,
	     rte_be32_t nh, enum ust_route_kind kind)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

	switch (kind) {
	case UST_ROUTE_UNICAST:
		memset(&eh->dst_addr, 0, sizeof(eh->dst_addr)); /* ARP's */
		ust_arp_output(stk, m, nh);
		break;
	case UST_ROUTE_BROADCAST:
		memset(&eh->dst_addr, 0xff, sizeof(eh->dst_addr));
		ust_tx_stage(stk, m);
		break;
	case UST_ROUTE_MULTICAST:
		ipv4_mcast_mac(dst, &eh->dst_addr);
		ust_tx_stage(stk, m);
		break;
	case UST_ROUTE_LOCAL:
		eh->dst_addr = stk->netif.mac;
		ipv4_loop_fix_csum(m);
		ust_loop_enqueue(stk, m);
		break;
	}
}

/* Prepend the Ethernet header to @m (data at its IPv4 header), our MAC as
 * the source; the destination is ipv4_send_l2()'s. */
static int
ipv4_prepend_eth(struct ust_stack *stk, struct rte_mbuf *m)
{
	struct ust_eth_repr eth;
	uint8_t *p;

	p = (uint8_t *)rte_pktmbuf_prepend(m, UST_ETH_HDR_LEN);
	if (unlikely(p == NULL))
		return -ENOBUFS;
	memset(&eth.dst, 0, sizeof(eth.dst));
	eth.src = stk->netif.mac;
	eth.ethertype = RTE_ETHER_TYPE_IPV4;
	ust_eth_emit(p, UST_ETH_HDR_LEN, &eth);
	return 0;
}

/*
 * Above the MTU without DF: the IPv4 header on @m (its checksum left to
 * each fragment), then cut by ust_ipv4_fragment(); each fragment gets its
 * header checksum (offloaded where the netif does it) and its Ethernet
 * header, and goes the route's way.
 */
static int
ipv4_output_frags(struct ust_stack *stk, struct rte_mbuf *m,
		  struct ust_ipv4_repr *ip, rte_be32_t nh,
		  enum ust_route_kind kind)
{
	struct rte_mbuf *frags[UST_IPV4_FRAGS_MAX];
	uint8_t *p;
	int n, i;

	p = (uint8_t *)rte_pktmbuf_prepend(m, UST_IPV4_HDR_LEN);
	if (unlikely(p == NULL)) {
		stk->mib[UST_MIB_IP_FRAGFAILS]++;
		ust_tx_drop(stk, m, UST_DROP_NOMEM);
		return -ENOBUFS;
	}
	ip->total_len = (uint16_t)m->pkt_len;
	ip->df = false;
	ust_ipv4_emit(p, UST_IPV4_HDR_LEN, ip, UST_WIRE_F_CSUM_OFFLOAD);
	n = ust_ipv4_fragment(stk, m, stk->netif.mtu, frags);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *f = frags[i];
		struct rte_ipv4_hdr *ih = rte_pktmbuf_mtod(f,
			struct rte_ipv4_hdr *);

		if (stk->netif.flags & UST_NETIF_F_TX_IPV4_CKSUM) {
			f->ol_flags = RTE_MBUF_F_TX_IP_CKSUM |
				      RTE_MBUF_F_TX_IPV4;
		} else {
			ih->hdr_checksum = 0;
			ih->hdr_checksum = rte_ipv4_cksum(ih);
		}
		f->l2_len = UST_ETH_HDR_LEN;
		f->l3_len = UST_IPV4_HDR_LEN;
		if (ipv4_prepend_eth(stk, f) != 0) {
			ust_tx_drop(stk, f, UST_DROP_NOMEM);
			continue;
		}
		ipv4_send_l2(stk, f, ip->dst, nh, kind);
	}
	return 0;
}

int
ust_ipv4_output(struct ust_stack *stk, struct rte_mbuf *m, rte_be32_t src,
		rte_be32_t dst, uint8_t proto, uint64_t l4_ol_flags)
{
	/* IP_PMTUDISC_WANT: DF when it fits, fragments when not */
	return ust_ipv4_output_df(stk, m, src, dst, proto, l4_ol_flags,
				  m->pkt_len + UST_IPV4_HDR_LEN <=
				  stk->netif.mtu, 0);
}

int
ust_ipv4_output_df(struct ust_stack *stk, struct rte_mbuf *m, rte_be32_t src,
		   rte_be32_t dst, uint8_t proto, uint64_t l4_ol_flags,
		   bool df, uint8_t tos)
{
	struct ust_ipv4_repr ip;
	struct ust_eth_repr eth;
	enum ust_route_kind kind;
	rte_be32_t nh;
	uint8_t *p;
	int wflags = 0;

	if (ust_route(stk, dst, &nh, &kind) != 0) {
		stk->mib[UST_MIB_IP_OUTNOROUTES]++;
		ust_tx_drop(stk, m, UST_DROP_IP_OUTNOROUTES);
		return -ENETUNREACH;
	}
	memset(&ip, 0, sizeof(ip));
	ip.src = src;
	ip.dst = dst;
	ip.proto = proto;
	ip.ttl = stk->ttl;
	ip.tos = tos;
	ip.id = stk->ip_id++;
	/* DF for PMTU discovery (RFC 1191) unless the socket said
	 * IP_PMTUDISC_DONT */
	ip.df = df;
	if (unlikely(m->pkt_len + UST_IPV4_HDR_LEN > stk->netif.mtu)) {
		stk->mib[UST_MIB_IP_OUTREQUESTS]++;
		stk->mib[UST_MIB_IPEXT_OUTOCTETS] += m->pkt_len +
						     UST_IPV4_HDR_LEN;
		if (df) {
			/* as Linux: a DF packet is never cut (the sender
			 * learns EMSGSIZE before it gets here) */
			stk->mib[UST_MIB_IP_FRAGFAILS]++;
			ust_tx_drop(stk, m, UST_DROP_PKT_TOO_BIG);
			return -EMSGSIZE;
		}
		return ipv4_output_frags(stk, m, &ip, nh, kind);
	}
	p = (uint8_t *)rte_pktmbuf_prepend(m, UST_ETH_HDR_LEN +
					   UST_IPV4_HDR_LEN);
	if (unlikely(p == NULL)) {
		stk->mib[UST_MIB_IP_OUTDISCARDS]++;
		ust_tx_drop(stk, m, UST_DROP_NOMEM);
		return -ENOBUFS;
	}
	ip.total_len = (uint16_t)(m->pkt_len - UST_ETH_HDR_LEN);
	m->ol_flags = l4_ol_flags;
	if (stk->netif.flags & UST_NETIF_F_TX_IPV4_CKSUM) {
		wflags = UST_WIRE_F_CSUM_OFFLOAD;
		m->ol_flags |= RTE_MBUF_F_TX_IP_CKSUM;
	}
	if (m->ol_flags != 0)
		m->ol_flags |= RTE_MBUF_F_TX_IPV4;
	m->l2_len = UST_ETH_HDR_LEN;
	m->l3_len = UST_IPV4_HDR_LEN;
	ust_ipv4_emit(p + UST_ETH_HDR_LEN, UST_IPV4_HDR_LEN, &ip, wflags);
	stk->mib[UST_MIB_IP_OUTREQUESTS]++;
	stk->mib[UST_MIB_IPEXT_OUTOCTETS] += ip.total_len;
	memset(&eth.dst, 0, sizeof(eth.dst));
	eth.src = stk->netif.mac;
	eth.ethertype = RTE_ETHER_TYPE_IPV4;
	ust_eth_emit(p, UST_ETH_HDR_LEN, &eth);
	ipv4_send_l2(stk, m, dst, nh, kind);
	return 0;
}
