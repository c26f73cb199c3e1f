/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * lib/ip's internal interface, for lib/ip itself and the components above
 * it (sock, udp, tcp, stack; the build gives no other component lib/ip's
 * include directory): Ethernet input, routing, IPv4 input and output and
 * the protocol table through which IPv4 reaches UDP and TCP, ARP, ICMP.
 * Not installed.
 */

#ifndef UST_IP_PRIVATE_H
#define UST_IP_PRIVATE_H

#include "stack_private.h"

/* ---- IPv4, lib/ip/ipv4.c ---- */

enum ust_route_kind {
	UST_ROUTE_UNICAST,
	UST_ROUTE_BROADCAST,
	UST_ROUTE_MULTICAST,
	UST_ROUTE_LOCAL,
};

/* Next hop for @dst; -ENETUNREACH when there is none. */
int ust_route(const struct ust_stack *stk, rte_be32_t dst,
	      rte_be32_t *nexthop, enum ust_route_kind *kind);

/*
 * An upper protocol of IPv4 (Linux's struct net_protocol): lib/udp and
 * lib/tcp register theirs at init with ust_ipv4_register(), and lib/ip
 * reaches them only through it. @input takes one packet (data at its IPv4
 * header) and consumes it. A protocol with @input_burst instead gets the
 * packets of an RX burst together, after the burst's other frames (UDP:
 * one bulk socket lookup per burst). @err_handler, when set, gets the
 * ICMP errors that quote a packet of this protocol we sent.
 */
struct ust_ipv4_proto {
	void (*input)(struct ust_stack *stk, struct rte_mbuf *m,
		      const struct ust_ipv4_repr *ip);
	void (*input_burst)(struct ust_stack *stk, struct rte_mbuf **pkts,
			    const struct ust_ipv4_repr *ips, uint16_t n);
	void (*err_handler)(struct ust_stack *stk,
			    const struct ust_icmp_repr *ic);
};

/* Register what takes IPv4 protocol @proto; 0, or -EINVAL (no handler, or
 * ICMP, which lib/ip handles itself), -EEXIST (taken). */
int ust_ipv4_register(struct ust_stack *stk, uint8_t proto,
		      const struct ust_ipv4_proto *p);

/*
 * Validate a received IPv4 packet (data at its header) and hand it to its
 * protocol, or return the protocol's number with @ip filled when the
 * protocol takes bursts (the caller batches it); returns 0 when the packet
 * was consumed or dropped here.
 */
int ust_ipv4_input(struct ust_stack *stk, struct rte_mbuf **m,
		   struct ust_ipv4_repr *ip);

/*
 * Prepend an IPv4 header (and Ethernet) to @m, whose data starts with the L4
 * header, and send it. Sets checksum offload flags when the netif has them.
 * A packet that fits the MTU goes with DF (PMTU discovery, RFC 1191); a
 * larger one is fragmented (lib/ip/frag.c), as Linux's IP_PMTUDISC_WANT:
 * its L4 checksum must then be complete (no offload). Always consumes @m
 * (a failure is counted as a drop). Returns 0, -ENETUNREACH when there was
 * no route (counted IP_OUTNOROUTES), -ENOBUFS or -EMSGSIZE when it could
 * not be fragmented (FragFails).
 */
int ust_ipv4_output(struct ust_stack *stk, struct rte_mbuf *m,
		    rte_be32_t src, rte_be32_t dst, uint8_t proto,
		    uint64_t l4_ol_flags);
/* ust_ipv4_output() with DF set only when @df (IP_MTU_DISCOVER) and the
 * TOS byte @tos (IP_TOS); with @df, a packet above the MTU is dropped
 * (PKT_TOO_BIG, FragFails, -EMSGSIZE), never fragmented: TCP's */
int ust_ipv4_output_df(struct ust_stack *stk, struct rte_mbuf *m,
		       rte_be32_t src, rte_be32_t dst, uint8_t proto,
		       uint64_t l4_ol_flags, bool df, uint8_t tos);

/* ---- IPv4 fragments, lib/ip/frag.c ---- */

int ust_ip_reasm_init(struct ust_stack *stk);
/* frees what is held (IP_FRAG_REASM_FAILED) */
void ust_ip_reasm_fini(struct ust_stack *stk);
/*
 * A received fragment (@m at its IPv4 header, validated, trimmed to
 * @ip->total_len): held, or dropped with its reason, and NULL returned; or,
 * when it completes its datagram, the whole datagram as one mbuf chain
 * (the first fragment's header, lengths and checksum rewritten, the L4
 * checksum flags cleared) with @ip describing it.
 */
struct rte_mbuf *ust_ip_reasm(struct ust_stack *stk, struct rte_mbuf *m,
			      struct ust_ipv4_repr *ip);
/* Drop the datagrams whose time is up (due at stk->reasm_next): ICMP time
 * exceeded (reassembly, RFC 792) for those whose first fragment came. */
void ust_ip_reasm_timers(struct ust_stack *stk);
/* Fragments, as many as @pkt_len bytes of IPv4 payload need at @mtu. */
static inline uint32_t
ust_ipv4_frag_count(uint32_t pkt_len, uint32_t mtu)
{
	uint32_t per = (mtu - UST_IPV4_HDR_LEN) & ~7u;

	return (pkt_len + per - 1) / per;
}
/* Fragments an IPv4 packet may be cut into on output (a 65535-byte datagram
 * at MTU 576 is 120) */
#define UST_IPV4_FRAGS_MAX 128
/*
 * Cut @m (data at its IPv4 header, DF clear, the header's checksum not
 * computed) into fragments for @mtu with rte_ipv4_fragment_packet(): each
 * gets its own header, the payload attached without a copy (linearised
 * when the netif takes no chains), and the last one @m's owner (the
 * sender's wmem is released when it has left). Consumes @m. Returns the
 * count in @out, or -ENOBUFS / -EMSGSIZE (@m dropped, FragFails).
 */
int ust_ipv4_fragment(struct ust_stack *stk, struct rte_mbuf *m, uint16_t mtu,
		      struct rte_mbuf **out);

/* Ethernet input of one chunk (at most UST_MAX_BURST frames), lib/ip/eth.c:
 * ARP, IPv4 and its protocols; every frame consumed or dropped. */
void ust_eth_input(struct ust_stack *stk, struct rte_mbuf **pkts, uint16_t n);

/* ---- ARP, lib/ip/arp.c ---- */

int ust_arp_init(struct ust_stack *stk);
void ust_arp_fini(struct ust_stack *stk);
void ust_arp_input(struct ust_stack *stk, struct rte_mbuf *m);
void ust_arp_timers(struct ust_stack *stk);
/* When ust_arp_timers() next changes an entry (a retry, REACHABLE going
 * STALE, a STALE entry aged out), not before its next tick; UINT64_MAX
 * when no entry will (none, or only static ones). O(entries): for an idle
 * loop about to sleep. */
uint64_t ust_arp_next_deadline(const struct ust_stack *stk);

/*
 * Send an IPv4 frame (Ethernet header already prepended, destination MAC
 * unknown) to @nexthop: fills the MAC and stages it when known, or queues it
 * on the entry and resolves. Consumes @m.
 */
void ust_arp_output(struct ust_stack *stk, struct rte_mbuf *m,
		    rte_be32_t nexthop);

/* ---- ICMP, lib/ip/icmp.c ---- */

void ust_icmp_input(struct ust_stack *stk, struct rte_mbuf *m,
		    const struct ust_ipv4_repr *ip);

/*
 * Send an ICMP error about @orig (data at its IPv4 header), rate limited;
 * does not consume @orig.
 */
void ust_icmp_send_error(struct ust_stack *stk, struct rte_mbuf *orig,
			 const struct ust_ipv4_repr *ip, uint8_t type,
			 uint8_t code);

/* "ustack.ip" (registered in ip.c; see UST_LOG_TO()) */
extern int ust_ip_logtype;
#define IP_LOG(level, fmt, ...) \
	UST_LOG_TO(ust_ip_logtype, "ustack.ip", level, fmt, ##__VA_ARGS__)

#endif /* UST_IP_PRIVATE_H */
