/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * A test double for struct ust_netif: TX frames are kept in memory for the
 * test to inspect, and frame builders make the packets a test injects with
 * ust_stack_input(). With it, stack tests are "packets in, expected packets
 * out" with a fake clock, as smoltcp's and lwIP's are.
 */

#ifndef UST_UT_NETIF_H
#define UST_UT_NETIF_H

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "ust_netif.h"
#include "ust_stack.h"
#include "ust_wire.h"
#include "ut.h"

#define UT_OUR_IP RTE_BE32(UT_IPV4(198, 18, 0, 2))
#define UT_PEER_IP RTE_BE32(UT_IPV4(198, 18, 0, 1))
#define UT_GW_IP RTE_BE32(UT_IPV4(198, 18, 0, 254))
#define UT_FAR_IP RTE_BE32(UT_IPV4(198, 19, 5, 5))

#define UT_TX_MAX 8192

struct ut_netif {
	struct ust_netif netif;
	struct rte_mbuf *tx[UT_TX_MAX];
	unsigned int tx_n;
	unsigned int tx_accept; /* frames accepted per burst (UINT_MAX) */
	struct rte_mbuf *rx[UT_TX_MAX];
	unsigned int rx_n;
};

extern const struct rte_ether_addr ut_our_mac;
extern const struct rte_ether_addr ut_peer_mac;

void ut_netif_init(struct ut_netif *n, uint32_t flags);

/* A stack on @n with the defaults, address UT_OUR_IP/24, gateway UT_GW_IP;
 * @tweak may change the configuration first. */
struct ust_stack *ut_stack_create(struct ut_netif *n, struct rte_mempool *mp,
				  void (*tweak)(struct ust_stack_conf *));

/* Frames from the peer (UT_PEER_IP, ut_peer_mac) to us. */
struct rte_mbuf *ut_udp_frame(struct rte_mempool *mp, rte_be32_t src,
			      rte_be32_t dst, uint16_t sport, uint16_t dport,
			      const void *payload, uint16_t len);
struct rte_mbuf *ut_arp_frame(struct rte_mempool *mp, uint16_t op,
			      const struct rte_ether_addr *sha, rte_be32_t spa,
			      rte_be32_t tpa);
struct rte_mbuf *ut_icmp_echo_frame(struct rte_mempool *mp, rte_be32_t dst,
				    uint16_t ident, uint16_t seq,
				    uint16_t len);

/* An ICMP port unreachable from the peer quoting @quote_len bytes of the
 * IPv4 datagram at @quote (what the peer would send about our datagram). */
struct rte_mbuf *ut_icmp_port_unreach_frame(struct rte_mempool *mp,
					    const uint8_t *quote,
					    uint16_t quote_len);

/* An ICMP error of @type and @code from the peer (@mtu: the next-hop MTU
 * of a fragmentation-needed) quoting @quote_len bytes at @quote. */
struct rte_mbuf *ut_icmp_error_frame(struct rte_mempool *mp, uint8_t type,
				     uint8_t code, uint16_t mtu,
				     const uint8_t *quote, uint16_t quote_len);

/* A TCP segment from the peer (UT_PEER_IP) to UT_OUR_IP, options from
 * th->opts, checksums filled. */
struct rte_mbuf *ut_tcp_frame(struct rte_mempool *mp,
			      const struct ust_tcp_repr *th,
			      const void *payload, uint16_t len);

/* The oldest TX frame that is a TCP segment (other frames before it are
 * freed), parsed with its checksum verified: its payload length, with up
 * to @cap bytes copied to @data; -1 when there is none, -2 when it does
 * not parse. */
int ut_tx_tcp(struct ut_netif *n, struct ust_tcp_repr *th, void *data,
	      size_t cap);

/* A UDP socket bound to @port on any address; -1 on failure. */
int ut_udp_bound(struct ust_stack *stk, uint16_t port);

/* Recompute the IPv4 header checksum of a frame after editing it. */
void ut_fix_ipv4_csum(struct rte_mbuf *m);

/* Take the oldest TX frame (NULL if none). */
struct rte_mbuf *ut_tx_pop(struct ut_netif *n);
/* Free every TX frame; returns how many there were. */
unsigned int ut_tx_drain(struct ut_netif *n);

/* Parse a TX frame's Ethernet + IPv4 headers; returns the L4 pointer. */
const uint8_t *ut_parse_ipv4_frame(struct rte_mbuf *m,
				   struct ust_eth_repr *eth,
				   struct ust_ipv4_repr *ip);

/* One counter of @stk. */
uint64_t ut_mib(struct ust_stack *stk, enum ust_mib c);
uint64_t ut_drops(struct ust_stack *stk, enum ust_drop_reason r);

/* @m received at @now, and what the stack staged flushed to its netif. */
void ut_inject(struct ust_stack *stk, struct rte_mbuf *m, uint64_t now);

/* The end of a test: the conservation law checked, @stk destroyed, @n's
 * TX frames freed, and every mbuf of @mp back; 0 when all holds. */
int ut_teardown(struct ust_stack *stk, struct ut_netif *n,
		struct rte_mempool *mp);

/* Check mib[ETH_INFRAMES] == rx_consumed + RX drops; 0 when it holds. */
int ut_check_conservation(struct ust_stack *stk);

/*
 * The receive memory model's invariants (doc/udp-memory.md) over the UDP
 * sockets @sds[0..n) of @stk (negative entries skipped), which must be all
 * the sockets charging @stk's UDP pool:
 *  - per socket: rmem_alloc == queued truesize + forward_deficit; nothing
 *    negative; rmem_alloc <= rcvbuf + @tmax (the largest truesize of one
 *    datagram), or, after rcvbuf shrank below what was queued, no higher
 *    than it was then: @allow[i] is the caller's bound state (0 for a new
 *    socket; max(rmem_alloc, new rcvbuf + tmax) after a rcvbuf change);
 *  - the pool: pages * 4096 == sum over the sockets of forward_alloc +
 *    rmem_alloc (exact with no lcore charging meanwhile).
 * @seed and @step name the failing step. 0 when they hold.
 */
int ut_udp_check(struct ust_stack *stk, const int *sds, int n, uint32_t tmax,
		 uint32_t *allow, uint64_t seed, uint64_t step);

#endif /* UST_UT_NETIF_H */
