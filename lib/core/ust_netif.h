/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/**
 * @file
 * The network interface contract between a stack instance and whatever
 * moves its frames: an ethdev queue pair (drivers/port), a middleware stage
 * wrapping another netif (fault injection, capture), or a test double that
 * records frames in memory.
 *
 * The stack never calls rte_eth_* itself; it calls these two functions once
 * per burst. That keeps the stack testable without a port, as TLDK's back
 * end is, and lets stages compose like smoltcp's device middlewares.
 */

#ifndef UST_NETIF_H
#define UST_NETIF_H

#include <stdint.h>

#include <rte_ether.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rte_mbuf;

/** Burst operations of a netif. Same contract as rte_eth_rx/tx_burst:
 *  tx_burst takes ownership of the first "returned" mbufs only. */
struct ust_netif_ops {
	uint16_t (*rx_burst)(void *ctx, struct rte_mbuf **pkts, uint16_t n);
	uint16_t (*tx_burst)(void *ctx, struct rte_mbuf **pkts, uint16_t n);
};

/** The NIC verifies IPv4 header checksums and reports them in ol_flags. */
#define UST_NETIF_F_RX_IPV4_CKSUM (1u << 0)
/** The NIC verifies UDP/TCP checksums and reports them in ol_flags. */
#define UST_NETIF_F_RX_L4_CKSUM (1u << 1)
/** The NIC fills IPv4 header checksums (RTE_MBUF_F_TX_IP_CKSUM). */
#define UST_NETIF_F_TX_IPV4_CKSUM (1u << 2)
/** The NIC fills UDP checksums (RTE_MBUF_F_TX_UDP_CKSUM). */
#define UST_NETIF_F_TX_UDP_CKSUM (1u << 3)
/** The NIC fills TCP checksums (RTE_MBUF_F_TX_TCP_CKSUM). */
#define UST_NETIF_F_TX_TCP_CKSUM (1u << 4)
/** The NIC transmits chained mbufs (RTE_ETH_TX_OFFLOAD_MULTI_SEGS). */
#define UST_NETIF_F_TX_MULTI_SEGS (1u << 5)

/** How a port spreads received frames over its queues (struct ust_rss). */
enum ust_rss_kind {
	/** one queue, or queues whose choice the stack cannot compute:
	 *  net_memif, net_ring, net_af_packet (each queue is its own wire),
	 *  net_tap (the kernel picks the queue by its own flow hash) */
	UST_RSS_NONE = 0,
	/** the device hashes the IPv4 addresses and TCP/UDP ports with
	 *  Toeplitz over key[] and picks reta[hash % reta_size]: the stack
	 *  can compute where a flow's frames arrive (mlx5, virtio with
	 *  VIRTIO_NET_F_RSS, ...) */
	UST_RSS_TOEPLITZ,
};

#define UST_RSS_KEY_MAX 64
#define UST_RSS_RETA_MAX 512

/** A port's receive-side scaling as the device really runs it: the key
 *  and redirection table read back from the PMD (drivers/port's
 *  ust_port_rss()), which sibling stacks (lib/group) use to steer flows. */
struct ust_rss {
	uint8_t kind;             /**< enum ust_rss_kind */
	uint8_t key_len;          /**< bytes of key[] in use */
	uint16_t reta_size;       /**< entries of reta[] in use */
	uint16_t nb_queues;       /**< queues the RETA points into */
	uint64_t hf;              /**< RTE_ETH_RSS_* hash types in effect */
	uint8_t key[UST_RSS_KEY_MAX];
	uint16_t reta[UST_RSS_RETA_MAX]; /**< hash % reta_size -> queue */
};

/** A network interface as a stack instance sees it. */
struct ust_netif {
	const struct ust_netif_ops *ops;
	void *ctx;                  /**< first argument of the ops */
	struct rte_ether_addr mac;  /**< our MAC address */
	uint16_t mtu;               /**< IP MTU, e.g. 1500 */
	uint32_t flags;             /**< UST_NETIF_F_* */
	uint16_t port_id;           /**< ethdev port, or UINT16_MAX */
	uint16_t queue_id;          /**< ethdev queue pair */
};

#ifdef __cplusplus
}
#endif

#endif /* UST_NETIF_H */
