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
/*
 * The same for a received IPv6 fragment (@m at its fixed header, @x its
 * chain walked to the fragment header): held, dropped, or the whole
 * datagram returned, at its fixed header, the fragment header removed
 * (its extension headers after that one not walked yet). A piece that
 * would end past 65535 bytes gets a parameter problem (RFC 8200 4.5).
 * IPv4's and IPv6's datagrams share the table and [frag]'s bounds.
 */
struct rte_mbuf *ust_ip6_reasm(struct ust_stack *stk, struct rte_mbuf *m,
			       const struct ust_ipv6_repr *ip6,
			       const struct ust_ipv6_ext_repr *x);
/* Cut @m (data at its IPv6 fixed header, no extension headers) into
 * fragments for @mtu (rte_ipv6_fragment_packet(), the payload attached),
 * each with the datagram's random ID (RFC 7739). As ust_ipv4_fragment(). */
int ust_ipv6_fragment(struct ust_stack *stk, struct rte_mbuf *m, uint16_t mtu,
		      struct rte_mbuf **out);
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

/* ---- IPv6, lib/ip/ipv6.c, nd.c, icmp6.c ---- */

/* An IPv6 upper protocol (ust_ipv4_proto's counterpart): @input takes one
 * packet, data at its upper-layer header, with the fixed header parsed in
 * @ip6 (the extension headers were walked); the fixed header starts
 * @l3_len bytes before the data (what an ICMPv6 error about it quotes). */
struct ust_ipv6_proto {
	void (*input)(struct ust_stack *stk, struct rte_mbuf *m,
		      const struct ust_ipv6_repr *ip6, uint32_t l3_len);
	/* an ICMPv6 error (types 1-4) about a packet of this protocol:
	 * @ic->embedded its fixed header, @ic->data at that header with at
	 * least 48 bytes (the upper header's first 8); may be NULL */
	void (*err_handler)(struct ust_stack *stk,
			    const struct ust_icmp6_repr *ic);
};

/* Register what takes IPv6 next header @nh; 0, -EINVAL (no handler, IPv6
 * off, or ICMPv6, which lib/ip handles itself), -EEXIST. */
int ust_ipv6_register(struct ust_stack *stk, uint8_t nh,
		      const struct ust_ipv6_proto *p);

/* Our addresses: [UST_IP6_LL] from the MAC, [UST_IP6_GLOBAL] configured */
#define UST_IP6_LL 0
#define UST_IP6_GLOBAL 1
#define UST_IP6_NADDR 2

struct ust_ip6_addr {
	uint8_t a[UST_IPV6_ADDR_LEN];
	uint8_t prefix_len;
	uint8_t state;       /* enum ust_ip6_addr_state; 0: unused */
	uint8_t dad_left;    /* DAD solicitations still to send */
	uint64_t dad_next;   /* when the next goes (or DAD ends) */
};

/* Neighbour cache entry states (RFC 4861 7.3.2) */
enum ust_nd_state {
	UST_ND_FREE = UST_NEIGH_FREE,
	UST_ND_INCOMPLETE = UST_NEIGH_INCOMPLETE, /* multicast NS, packets
						   * wait */
	UST_ND_REACHABLE = UST_NEIGH_REACHABLE,   /* confirmed within
						   * ReachableTime */
	UST_ND_STALE = UST_NEIGH_STALE,           /* the next use delays */
	UST_ND_DELAY = UST_NEIGH_DELAY,           /* used while STALE: probes
						   * in 5 s unless confirmed */
	UST_ND_PROBE = UST_NEIGH_PROBE,           /* unicast NS outstanding,
						   * still used */
	UST_ND_PERMANENT = UST_NEIGH_PERMANENT,
};

/* (next_probe: INCOMPLETE, PROBE: the next NS; DELAY: PROBE) */
struct ust_nd_entry {
	uint8_t ip[UST_IPV6_ADDR_LEN];
	union {
		struct {
			UST_NEIGH_FIELDS
		};
		struct ust_neigh n;
	};
};

/* ---- what ARP's and ND's caches share, lib/ip/neigh.c ---- */

/* "REACHABLE", "DELAY"... (enum ust_neigh_state) */
const char *ust_neigh_state_name(uint8_t state);
/* The oldest frame waiting on @n, taken off the table's count @pending. */
struct rte_mbuf *ust_neigh_pending_pop(struct ust_stack *stk,
				       uint32_t *pending, struct ust_neigh *n);
/* Send what waited on @n (now resolved) to its MAC. */
void ust_neigh_flush(struct ust_stack *stk, uint32_t *pending,
		     struct ust_neigh *n);
/* Drop what waited on @n (NEIGH_FAILED). */
void ust_neigh_drop_pending(struct ust_stack *stk, uint32_t *pending,
			    struct ust_neigh *n);
/* Fill @m's destination MAC (data at its Ethernet header) and stage it:
 * every unicast frame's last step, inline as it was in arp.c. */
static inline void
ust_neigh_fill_and_stage(struct ust_stack *stk, struct rte_mbuf *m,
			 const struct rte_ether_addr *mac)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

	rte_ether_addr_copy(mac, &eh->dst_addr);
	ust_tx_stage(stk, m);
}
/*
 * Hold @m on unresolved @n within the bounds ([arp] queue_len frames on
 * the entry, pending_max mbufs on the table's @pending, the pool's RX
 * reserve for a frame no socket owns): the entry's oldest frames make
 * room; with none to give @m is dropped. Each frame dropped counts in
 * @unresolved (Arp's or Ndisc's UnresolvedDiscards).
 */
void ust_neigh_queue(struct ust_stack *stk, uint32_t *pending,
		     struct ust_neigh *n, struct rte_mbuf *m,
		     enum ust_mib unresolved);
/*
 * The entry a full table gives up (arp.c's header says the order: class
 * 0, never used by our output; 1, idle 5 s; 2, INCOMPLETE and unanswered
 * for @retrans_ns), among classes [@min_class, @max_class], the least
 * recently active first: its index among the @cap entries at @base,
 * @stride bytes apart, whose struct ust_neigh is at @n_off; UINT32_MAX
 * when none may go.
 */
uint32_t ust_neigh_victim(const void *base, size_t stride, size_t n_off,
			  uint32_t cap, uint64_t now, uint64_t retrans_ns,
			  int min_class, int max_class);

/* An on-link prefix learned from a router advertisement (RFC 4861 6.3.4) */
#define UST_IP6_MAX_PREFIXES 8
struct ust_ip6_prefix {
	uint8_t p[UST_IPV6_ADDR_LEN];
	uint8_t len;         /* 0: slot unused */
	uint64_t expires;
};

struct ust_ip6 {
	struct ust_ip6_addr addr[UST_IP6_NADDR];
	uint16_t mtu;             /* link MTU (an RA may lower it) */
	uint8_t hop_limit;
	/* the default router: configured (never expires) or from an RA */
	bool has_router;
	uint8_t router[UST_IPV6_ADDR_LEN];
	uint64_t router_expires;
	struct ust_ip6_prefix prefixes[UST_IP6_MAX_PREFIXES];
	uint32_t reachable_ms;    /* ND times: [arp]'s, or an RA's */
	uint32_t retrans_ms;
	uint8_t rs_left;          /* router solicitations still to send */
	uint64_t rs_next;
	uint64_t next_tick;       /* ND timers, every 100 ms */
	/* the neighbour cache: hash of address -> index into e[] */
	struct rte_hash *h;
	struct ust_nd_entry *e;
	uint32_t cap;
	uint32_t count;
	uint32_t free_head;
	uint32_t pending;         /* mbufs on all pending queues */
	uint32_t incomplete;
	uint32_t hit_idx;         /* last next hop resolved (UINT32_MAX:
				   * none) */
	/* MLDv2 (mld.c): unsolicited reports still to send and when; the
	 * answer to a query due (UINT64_MAX: none) */
	uint8_t mld_left;
	uint64_t mld_next;
	uint64_t mld_answer;
	/* ICMPv6 error rate limit (RFC 4443 2.4 f), as ICMP's */
	uint64_t icmp_tokens_ns;
	uint64_t icmp_last;
	const struct ust_ipv6_proto *protos[256];
};

int ust_ip6_init(struct ust_stack *stk);
void ust_ip6_fini(struct ust_stack *stk);
/* Due at ip6->next_tick: DAD, router solicitation, the neighbour cache's
 * retries and aging, router and prefix lifetimes. */
void ust_ip6_timers(struct ust_stack *stk);
uint64_t ust_ip6_next_deadline(const struct ust_stack *stk);

/* The Ethernet destination of our IPv6 groups: true when @mac is the
 * all-nodes group's or one of our solicited-node groups' (33:33:...). */
bool ust_ip6_mac_joined(const struct ust_stack *stk,
			const struct rte_ether_addr *mac);

/* One received IPv6 packet, data at its fixed header: validated, its
 * extension headers walked, and delivered or dropped; always consumed. */
void ust_ipv6_input(struct ust_stack *stk, struct rte_mbuf *m);

/*
 * Prepend the IPv6 header (next header @nh, hop limit @hops, or the
 * stack's with 0) and Ethernet to @m, data at its upper-layer header, and
 * send it: multicast to its group's MAC, to ourselves through the
 * loopback queue, unicast through Neighbour Discovery. @src NULL: the
 * source for @dst (RFC 6724 in short: link-local for link-local and
 * link-scope multicast destinations, else the global address). Consumes
 * @m. Above the MTU it is cut into fragments (its checksum must then be
 * complete: with @l4_ol_flags it is dropped, PKT_TOO_BIG). 0,
 * -ENETUNREACH (Ip6OutNoRoutes), -EADDRNOTAVAIL (no usable source),
 * -EMSGSIZE, -ENOBUFS.
 */
int ust_ipv6_output(struct ust_stack *stk, struct rte_mbuf *m,
		    const uint8_t *src, const uint8_t *dst, uint8_t nh,
		    uint8_t hops, uint64_t l4_ol_flags);

/* Our address @a: its index, or -1; with @usable only PREFERRED ones. */
int ust_ip6_our_addr(const struct ust_stack *stk, const uint8_t *a,
		     bool usable);
/* Whether @dst has a route now: 0, or -ENETUNREACH (Ip6OutNoRoutes; also
 * when IPv6 is off). */
int ust_ip6_route_check(struct ust_stack *stk, const uint8_t *dst);
/* The source address for @dst, or NULL when none is usable. */
const uint8_t *ust_ip6_select_src(const struct ust_stack *stk,
				  const uint8_t *dst);

/* Neighbour Discovery (nd.c): NS, NA, RS, RA, redirect (@m at the ICMPv6
 * header, @l3_len bytes of IPv6 headers before it, @ip6 the fixed header,
 * @ic parsed); consumes @m. */
void ust_nd_input(struct ust_stack *stk, struct rte_mbuf *m,
		  const struct ust_ipv6_repr *ip6,
		  const struct ust_icmp6_repr *ic, uint32_t l3_len);
/* Send @m (Ethernet header prepended, destination MAC unknown) to
 * neighbour @nh: as ust_arp_output(). Consumes @m. */
void ust_nd_output(struct ust_stack *stk, struct rte_mbuf *m,
		   const uint8_t *nh);

/* MLDv2 (mld.c): the reports due, from ust_ip6_timers(); when the next
 * is; a query (@m at its ICMPv6 header, @len bytes, not consumed). */
void ust_mld_timers(struct ust_stack *stk);
uint64_t ust_mld_next_deadline(const struct ust_stack *stk);
void ust_mld_input(struct ust_stack *stk, struct rte_mbuf *m,
		   const struct ust_ipv6_repr *ip6, uint32_t len);

/* ICMPv6 (icmp6.c): @m at the ICMPv6 header, @len its bytes. */
void ust_icmp6_input(struct ust_stack *stk, struct rte_mbuf *m,
		     const struct ust_ipv6_repr *ip6, uint32_t len);
/* An ICMPv6 error about @orig (data at its IPv6 header), with RFC 4443
 * 2.4's rules and the rate limit; does not consume @orig. */
void ust_icmp6_send_error(struct ust_stack *stk, struct rte_mbuf *orig,
			  const struct ust_ipv6_repr *ip6, uint8_t type,
			  uint8_t code, uint32_t param);

/* The ICMP errors' token bucket ([icmp] msgs_per_sec, depth burst):
 * true when one may go now (a token taken from @tokens_ns, refilled since
 * @last); IPv4's and IPv6's each have their own. */
bool ust_icmp_bucket_take(struct ust_stack *stk, uint64_t *tokens_ns,
			  uint64_t *last);

/* "ustack.ip" (registered in ip.c; see UST_LOG_TO()) */
extern int ust_ip_logtype;
#define IP_LOG(level, fmt, ...) \
	UST_LOG_TO(ust_ip_logtype, "ustack.ip", level, fmt, ##__VA_ARGS__)

#endif /* UST_IP_PRIVATE_H */
