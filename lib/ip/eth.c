/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Ethernet input: one chunk of a received burst (at most UST_MAX_BURST
 * frames), walked once. ARP frames go to ust_arp_input(); IPv6 packets to
 * ust_ipv6_input() (ipv6.c), or dropped as IPV6DISABLED on a stack with
 * IPv6 off; IPv4 packets to
 * ust_ipv4_input(), which validates them, handles ICMP and hands each
 * packet to its protocol through the protocol table, except those of a
 * protocol that takes bursts (UDP, TCP): they come back here and go to it
 * together at the end of the chunk (UDP: one bulk hash lookup, one queue
 * lock per socket per burst; TCP: one lookup and one ACK per connection
 * per burst).
 *
 * How it is called: lib/stack's ust_stack_input() and ust_stack_poll()
 * call ust_eth_input() per chunk, for the netif's frames and for the
 * loopback queue's.
 */

#include <string.h>

#include <rte_ether.h>
#include <rte_prefetch.h>

#include "ip_private.h"
#include "ust_wire.h"

static inline bool
eth_dst_accepted(const struct ust_stack *stk, const struct rte_ether_hdr *eh)
{
	if (rte_is_same_ether_addr(&eh->dst_addr, &stk->netif.mac))
		return true;
	if (rte_is_broadcast_ether_addr(&eh->dst_addr))
		return true;
	/* IPv4 multicast MACs pass to the IP layer, which decides */
	if (eh->dst_addr.addr_bytes[0] == 0x01 &&
	    eh->dst_addr.addr_bytes[1] == 0x00 &&
	    eh->dst_addr.addr_bytes[2] == 0x5e)
		return true;
	/* IPv6: the groups we joined (all-nodes, solicited-node) */
	return unlikely(eh->dst_addr.addr_bytes[0] == 0x33) &&
	       ust_ip6_mac_joined(stk, &eh->dst_addr);
}

/* The packets of a chunk whose protocols take bursts (UDP and TCP), to
 * them: one call per protocol, its packets in their arrival order (a
 * protocol's order is all that matters: its sockets are its own). A chunk
 * of one protocol, the common case, goes as it is; a mixed one is split,
 * so that TCP still sees every segment of a connection in the chunk
 * together (one lookup, one ACK: tcp_input.c) when UDP datagrams come
 * between them. */
static void
stack_input_bursts(struct ust_stack *stk, struct rte_mbuf **pkts,
		   const struct ust_ipv4_repr *ips, uint16_t n)
{
	struct rte_mbuf *grp[UST_MAX_BURST];
	struct ust_ipv4_repr gips[UST_MAX_BURST];
	uint64_t taken = 0;
	uint16_t i, s, k;

	RTE_BUILD_BUG_ON(UST_MAX_BURST > 64); /* taken: a bit a packet */
	for (i = 1; i < n && ips[i].proto == ips[0].proto; i++)
		;
	if (i == n) {
		stk->ip_protos[ips[0].proto]->input_burst(stk, pkts, ips, n);
		return;
	}
	/* protocols in the order of their first packet */
	for (s = 0; s < n; s++) {
		if (taken & (1ull << s))
			continue;
		for (i = s, k = 0; i < n; i++) {
			if ((taken & (1ull << i)) || ips[i].proto != ips[s].proto)
				continue;
			taken |= 1ull << i;
			grp[k] = pkts[i];
			gips[k++] = ips[i];
		}
		stk->ip_protos[ips[s].proto]->input_burst(stk, grp, gips, k);
	}
}

void
ust_eth_input(struct ust_stack *stk, struct rte_mbuf **pkts, uint16_t n)
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
			/* (a fragment that completes its datagram comes
			 * back as the datagram) */
			if (ust_ipv4_input(stk, &m, &ips[nu]) != 0)
				burst[nu++] = m;
			break;
		case RTE_BE16(RTE_ETHER_TYPE_IPV6):
			if (stk->ip6 == NULL) {
				ust_drop(stk, m, UST_DROP_IPV6DISABLED);
				break;
			}
			rte_pktmbuf_adj(m, UST_ETH_HDR_LEN);
			ust_ipv6_input(stk, m);
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

