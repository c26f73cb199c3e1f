/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/**
 * @file
 * The port layer: brings up an ethdev port with one RX/TX queue pair per
 * stack instance and gives each queue pair to a stack as a struct
 * ust_netif.
 *
 * Any PMD works. A per-PMD profile (matched on the driver name) records
 * what ustack knows about it; doc/pmd-profiles.md explains each one:
 * mlx5 (bifurcated, rdma-core, no vfio bind), net_tap, net_memif, net_ring,
 * net_af_packet, and the PCI NICs used by the bound-NIC test bed.
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

/** Port bring-up settings. ust_port_conf_defaults() first. */
struct ust_port_conf {
	uint16_t port_id;
	uint16_t nb_queues;       /**< queue pairs, one per stack (1) */
	uint16_t rx_desc;         /**< RX ring size (1024) */
	uint16_t tx_desc;         /**< TX ring size (1024) */
	uint16_t mtu;             /**< 0: keep the PMD's MTU */
	bool promisc;             /**< promiscuous mode (off) */
	bool offloads;            /**< use checksum offloads if offered (on) */
	struct rte_mempool *pool; /**< RX buffers */
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
};

void ust_port_conf_defaults(struct ust_port_conf *conf);

/**
 * Configure, set up the queues of, and start a port. Returns 0, or a
 * negative errno: -ENODEV when the port does not exist, -EINVAL when the
 * PMD refuses the configuration (the reason is logged).
 */
int ust_port_setup(const struct ust_port_conf *conf,
		   struct ust_port_info *info);

/** Fill @p netif for queue pair @p queue of a port set up before. */
int ust_port_netif(uint16_t port_id, uint16_t queue,
		   const struct ust_port_info *info, struct ust_netif *netif);

/** Ask the PMD to free the mbufs of completed transmissions. */
void ust_port_tx_cleanup(uint16_t port_id, uint16_t nb_queues);

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

/** Profile name for a PMD driver name ("generic" when unknown). */
const char *ust_port_profile(const char *driver_name);

#ifdef __cplusplus
}
#endif

#endif /* UST_PORT_H */
