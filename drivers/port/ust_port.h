/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/**
 * @file
 * The port layer: brings up an ethdev port with one RX/TX queue pair per
 * stack instance and gives each queue pair to a stack as a struct
 * ust_netif.
 *
 * With more than one queue pair and a device that offers RSS, the port
 * hashes the IPv4 addresses and TCP/UDP ports (the IPv4 hash types the
 * device has, nothing else) with a symmetric Toeplitz key (0x6d, 0x5a
 * repeated: both directions of a flow hash alike) and a redirection table
 * spreading the hash evenly (entry i -> queue i % nb_queues).
 * ust_port_rss() reads back what the device really runs, for sibling
 * stacks (ust_group.h) to compute where a flow's frames arrive; it says
 * UST_RSS_NONE when they cannot (net_tap, where the kernel picks the
 * queue, net_memif, net_ring, net_af_packet, net_null, or no readback).
 * ust_port_numa_check() warns of lcores on another NUMA node than the
 * port's.
 *
 * Any PMD works. A per-PMD profile (matched on the driver name) records
 * what ustack knows about it; doc/pmd-profiles.md explains each one:
 * mlx5 (bifurcated, rdma-core, no vfio bind), net_tap, net_memif, net_ring,
 * net_af_packet, net_null, and the PCI NICs (e1000, ixgbe, i40e, ice,
 * virtio). Each profile also says who picks a frame's queue
 * (ust_port_profile_rss()): a Toeplitz hash the stack can compute, the
 * kernel's flow hash, or nobody (each queue is its own wire).
 *
 * Checksum offloads are enabled when the PMD offers them (RX verification
 * and TX filling of IPv4, UDP and TCP checksums) and the netif flags say so;
 * the stack computes in software what the PMD does not offer.
 *
 * Zero copy (ust_tcp_tx.h) maps payload for DMA through a mapper the
 * application installs on the stack: ust_port_dma_mapper() is the port's.
 */

#ifndef UST_PORT_H
#define UST_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>

#include "ust_netif.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rte_mempool;
struct ust_dma_mapper;

/** Queue pairs of a port, at most (one per stack). */
#define UST_PORT_MAX_QUEUES 64

/** Port bring-up settings. ust_port_conf_defaults() first. */
struct ust_port_conf {
	uint16_t port_id;
	uint16_t nb_queues;       /**< queue pairs, one per stack (1), at
				   *   most UST_PORT_MAX_QUEUES and the
				   *   device's own maximum */
	uint16_t rx_desc;         /**< RX ring size (1024) */
	uint16_t tx_desc;         /**< TX ring size (1024) */
	uint16_t mtu;             /**< 0: keep the PMD's MTU */
	bool promisc;             /**< promiscuous mode (off) */
	bool offloads;            /**< use checksum offloads if offered (on) */
	/** with RSS (more than one queue): program the symmetric Toeplitz
	 *  key, 0x6d 0x5a repeated, so that both directions of a flow land
	 *  on one queue (on); off keeps the PMD's key */
	bool rss_sym_key;
	/** RX queue interrupts (intr_conf.rxq), for an application that
	 *  sleeps when idle (rte_eth_dev_rx_intr_enable()); a PMD that
	 *  refuses them is configured without (info->rx_intr false) (off) */
	bool rx_intr;
	struct rte_mempool *pool; /**< RX buffers */
	/** RX buffers of queue i, e.g. a pool on the NUMA node of the lcore
	 *  polling it; the queue is set up on that pool's node. NULL: pool */
	struct rte_mempool *rx_pools[UST_PORT_MAX_QUEUES];
};

/** What bring-up found. */
struct ust_port_info {
	char driver[32];          /**< PMD name, e.g. "net_tap" */
	const char *profile;      /**< ustack profile: "mlx5", "tap"... */
	struct rte_ether_addr mac;
	uint16_t mtu;
	uint32_t netif_flags;     /**< UST_NETIF_F_* in effect */
	uint64_t rx_offloads;     /**< RTE_ETH_RX_OFFLOAD_* enabled */
	uint64_t tx_offloads;     /**< RTE_ETH_TX_OFFLOAD_* enabled */
	uint16_t nb_queues;
	uint16_t rx_desc;
	uint16_t tx_desc;
	bool link_up;
	uint32_t link_speed;      /**< Mbps */
	/** the profile's RSS: "toeplitz" (a Toeplitz hash the stack can
	 *  compute, once read back: ust_port_rss()), "kernel" (the kernel
	 *  picks the queue by its own flow hash: net_tap, net_af_packet),
	 *  "none" (each queue is its own wire, or no hash) */
	const char *rss_mode;
	bool rss_on;              /**< RSS configured (more than one queue
				   *   and the device offers it) */
	uint64_t rss_hf;          /**< RTE_ETH_RSS_* hash types asked */
	bool rx_intr;             /**< RX queue interrupts configured */
};

void ust_port_conf_defaults(struct ust_port_conf *conf);

/**
 * Configure, set up the queues of, and start a port. Returns 0, or a
 * negative errno: -ENODEV when the port does not exist, -EINVAL when the
 * PMD refuses the configuration or more queues are asked than the device
 * (or UST_PORT_MAX_QUEUES) has (the reason is logged).
 *
 * With more than one queue and a device that offers RSS: hash types
 * RTE_ETH_RSS_IPV4, FRAG_IPV4, NONFRAG_IPV4_TCP, NONFRAG_IPV4_UDP and
 * NONFRAG_IPV4_OTHER, those the device has; the symmetric key unless
 * conf->rss_sym_key is off (key length: the device's hash_key_size, 40
 * when it reports none); after start, the redirection table programmed
 * with entry i -> queue i % nb_queues (a PMD that refuses is logged at
 * INFO and keeps its own). A device with more than one queue and no RSS
 * is brought up all the same, with a WARNING that flows will be spread
 * unevenly, unless each of its queues is its own wire or the kernel
 * spreads them (net_memif, net_ring, net_af_packet, net_tap).
 */
int ust_port_setup(const struct ust_port_conf *conf,
		   struct ust_port_info *info);

/** Fill @p netif for queue pair @p queue of a port set up before. */
int ust_port_netif(uint16_t port_id, uint16_t queue,
		   const struct ust_port_info *info, struct ust_netif *netif);

/** Ask the PMD to free the mbufs of completed transmissions. */
void ust_port_tx_cleanup(uint16_t port_id, uint16_t nb_queues);

/**
 * Receive the Ethernet multicast groups @p macs (@p n of them: what
 * ust_stack_mc_addrs() lists) besides our unicast MAC:
 * rte_eth_dev_set_mc_addr_list(), or all multicast where the PMD has no
 * list (rte_eth_allmulticast_enable()). 0, or a negative errno when
 * neither works (IPv6 Neighbour Discovery then needs [port] promisc).
 */
int ust_port_set_mc_addrs(uint16_t port_id, const struct rte_ether_addr *macs,
			  unsigned int n);

/** Stop and close a port. */
void ust_port_close(uint16_t port_id);

/**
 * The port's device as the zero-copy DMA mapper (struct ust_dma_mapper of
 * ust_tcp_tx.h: rte_dev_dma_map()/rte_dev_dma_unmap() on the device, IOVA
 * as VA), to install on each of the port's stacks with
 * ust_stack_set_dma_mapper(). Returns 0 and fills @p out, or -ENOTSUP with
 * the reason in @p why when the port cannot map: a device on the vdev bus
 * (net_tap, net_memif, net_ring, net_af_packet: its rte_dev_dma_map()
 * succeeds and maps nothing), IOVA as PA, or no such port. -EINVAL if
 * @p out is NULL. @p why may be NULL.
 */
int ust_port_dma_mapper(uint16_t port_id, struct ust_dma_mapper *out,
			char *why, size_t n);

/**
 * The RSS a port set up before really runs, read back from the PMD
 * (rte_eth_dev_rss_hash_conf_get(), rte_eth_dev_rss_reta_query()):
 * @p out gets the hash types, the key, the redirection table and the
 * number of RX queues. out->kind is UST_RSS_TOEPLITZ only when the port
 * has more than one queue, the key and the whole table were read back
 * (and fit in struct ust_rss), and the profile's RSS is "toeplitz" (mlx5,
 * virtio, e1000 igb, ixgbe, i40e, ice; a PCI or auxiliary device of no
 * profile); UST_RSS_NONE otherwise (net_tap, net_memif, net_ring,
 * net_af_packet, net_null, a readback that fails), with whatever could be
 * read. Returns 0, -ENODEV when there is no such port, -EINVAL when
 * @p out is NULL.
 */
int ust_port_rss(uint16_t port_id, struct ust_rss *out);

/**
 * Log one WARNING line for each of the @p n lcores of @p lcores whose NUMA
 * node (rte_lcore_to_socket_id()) is not the port's
 * (rte_eth_dev_socket_id()): its frames cross the interconnect. No
 * warning when the port's node is unknown (SOCKET_ID_ANY). Returns how
 * many lcores differ, -ENODEV when there is no such port, -EINVAL when
 * @p lcores is NULL with @p n non-zero or an lcore id is out of range.
 */
int ust_port_numa_check(uint16_t port_id, const unsigned int *lcores,
			unsigned int n);

/** Profile name for a PMD driver name ("generic" when unknown). */
const char *ust_port_profile(const char *driver_name);

/**
 * The profile's RSS for a PMD driver name: "toeplitz" (the device hashes
 * with Toeplitz over a key and table the port layer programs and reads
 * back), "kernel" (the kernel picks the queue with its own flow hash:
 * net_tap, net_af_packet), "none" (no hash: net_memif, net_ring,
 * net_null, net_e1000_em), or "generic" for a driver of no profile (the
 * port layer then takes "toeplitz" for a PCI or auxiliary device, "none"
 * for any other).
 */
const char *ust_port_profile_rss(const char *driver_name);

#ifdef __cplusplus
}
#endif

#endif /* UST_PORT_H */
