/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Ethdev bring-up and the ethdev netif.
 *
 * ust_port_setup() is called once per port before the stacks are created:
 * it reads the PMD's capabilities, enables the checksum offloads it has,
 * RSS when there is more than one queue pair (hash types masked by what the
 * device supports), adjusts the ring sizes to the PMD's limits, sets the MTU
 * and starts the port. ust_port_netif() then gives each stack its queue
 * pair; the netif ops are direct calls to rte_eth_rx_burst/rte_eth_tx_burst
 * with the port and queue encoded in the context pointer.
 *
 * ust_port_dma_mapper() gives the application the port's device as the
 * zero-copy DMA mapper (rte_dev_dma_map()/rte_dev_dma_unmap()), or why the
 * port cannot map; the application installs it on each stack of the port
 * with ust_stack_set_dma_mapper() (ust_tcp_tx.h), so that the stack itself
 * never calls ethdev or looks at buses.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_log.h>

#include "ust_port.h"
#include "ust_tcp_tx.h"

#define PORT_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, RTE_LOGTYPE_USER1, "ustack port: " fmt "\n", \
		##__VA_ARGS__)

/* What ustack knows of each PMD; see doc/pmd-profiles.md. */
static const struct {
	const char *prefix;
	const char *profile;
} port_profiles[] = {
	{ "mlx5", "mlx5" },          /* mlx5_pci, net_mlx5 */
	{ "net_mlx5", "mlx5" },
	{ "net_tap", "tap" },
	{ "net_memif", "memif" },
	{ "net_ring", "ring" },
	{ "net_af_packet", "af_packet" },
	{ "net_e1000_em", "e1000" },
	{ "net_e1000_igb", "e1000" },
	{ "net_virtio", "virtio" },
};

const char *
ust_port_profile(const char *driver_name)
{
	unsigned int i;

	if (driver_name == NULL)
		return "generic";
	for (i = 0; i < RTE_DIM(port_profiles); i++)
		if (strncmp(driver_name, port_profiles[i].prefix,
			    strlen(port_profiles[i].prefix)) == 0)
			return port_profiles[i].profile;
	return "generic";
}

void
ust_port_conf_defaults(struct ust_port_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->nb_queues = 1;
	c->rx_desc = 1024;
	c->tx_desc = 1024;
	c->offloads = true;
}

int
ust_port_setup(const struct ust_port_conf *c, struct ust_port_info *info)
{
	struct rte_eth_dev_info di;
	struct rte_eth_conf ec;
	struct rte_eth_link link;
	uint16_t q, mtu;
	int rc;

	memset(info, 0, sizeof(*info));
	if (!rte_eth_dev_is_valid_port(c->port_id))
		return -ENODEV;
	if (c->pool == NULL || c->nb_queues == 0)
		return -EINVAL;
	rc = rte_eth_dev_info_get(c->port_id, &di);
	if (rc != 0)
		return rc;
	snprintf(info->driver, sizeof(info->driver), "%s", di.driver_name);
	info->profile = ust_port_profile(di.driver_name);
	if (c->nb_queues > di.max_rx_queues || c->nb_queues > di.max_tx_queues) {
		PORT_LOG(ERR, "port %u (%s) has %u/%u queues, %u asked",
			 c->port_id, di.driver_name, di.max_rx_queues,
			 di.max_tx_queues, c->nb_queues);
		return -EINVAL;
	}

	memset(&ec, 0, sizeof(ec));
	if (c->offloads) {
		uint64_t rx_want = RTE_ETH_RX_OFFLOAD_IPV4_CKSUM |
			RTE_ETH_RX_OFFLOAD_UDP_CKSUM |
			RTE_ETH_RX_OFFLOAD_TCP_CKSUM;
		uint64_t tx_want = RTE_ETH_TX_OFFLOAD_IPV4_CKSUM |
			RTE_ETH_TX_OFFLOAD_UDP_CKSUM |
			RTE_ETH_TX_OFFLOAD_TCP_CKSUM;

		ec.rxmode.offloads = di.rx_offload_capa & rx_want;
		ec.txmode.offloads = di.tx_offload_capa & tx_want;
	}
	ec.txmode.offloads |= di.tx_offload_capa &
		RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	if (c->nb_queues > 1 && di.flow_type_rss_offloads != 0) {
		ec.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		ec.rx_adv_conf.rss_conf.rss_hf = di.flow_type_rss_offloads &
			(RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP);
	}
	rc = rte_eth_dev_configure(c->port_id, c->nb_queues, c->nb_queues, &ec);
	if (rc != 0) {
		PORT_LOG(ERR, "port %u: configure failed: %s", c->port_id,
			 rte_strerror(-rc));
		return rc;
	}
	info->rx_desc = c->rx_desc;
	info->tx_desc = c->tx_desc;
	rc = rte_eth_dev_adjust_nb_rx_tx_desc(c->port_id, &info->rx_desc,
					      &info->tx_desc);
	if (rc != 0)
		return rc;
	if (c->mtu != 0) {
		rc = rte_eth_dev_set_mtu(c->port_id, c->mtu);
		if (rc != 0) {
			PORT_LOG(ERR, "port %u: MTU %u refused: %s",
				 c->port_id, c->mtu, rte_strerror(-rc));
			return rc;
		}
	}
	for (q = 0; q < c->nb_queues; q++) {
		struct rte_eth_rxconf rxq = di.default_rxconf;
		struct rte_eth_txconf txq = di.default_txconf;
		int sock = rte_eth_dev_socket_id(c->port_id);

		if (sock < 0)
			sock = SOCKET_ID_ANY;
		rxq.offloads = ec.rxmode.offloads;
		txq.offloads = ec.txmode.offloads;
		rc = rte_eth_rx_queue_setup(c->port_id, q, info->rx_desc, sock,
					    &rxq, c->pool);
		if (rc == 0)
			rc = rte_eth_tx_queue_setup(c->port_id, q,
						    info->tx_desc, sock, &txq);
		if (rc != 0) {
			PORT_LOG(ERR, "port %u: queue %u setup failed: %s",
				 c->port_id, q, rte_strerror(-rc));
			return rc;
		}
	}
	rc = rte_eth_dev_start(c->port_id);
	if (rc != 0) {
		PORT_LOG(ERR, "port %u: start failed: %s", c->port_id,
			 rte_strerror(-rc));
		return rc;
	}
	if (c->promisc)
		rte_eth_promiscuous_enable(c->port_id);
	rte_eth_macaddr_get(c->port_id, &info->mac);
	if (!rte_is_valid_assigned_ether_addr(&info->mac)) {
		/* some virtual PMDs (net_ring) start with 00:00:00:00:00:00,
		 * which no peer's ARP would accept: take a random locally
		 * administered address, as the kernel does for such links */
		struct rte_ether_addr mac;

		rte_eth_random_addr(mac.addr_bytes);
		/* a PMD that cannot change its address does not filter on
		 * it either: the stack uses the random one regardless */
		rc = rte_eth_dev_default_mac_addr_set(c->port_id, &mac);
		info->mac = mac;
		PORT_LOG(INFO, "port %u had no MAC address: using a random one"
			 "%s", c->port_id, rc == 0 ? "" : " (PMD kept its own)");
	}
	if (rte_eth_dev_get_mtu(c->port_id, &mtu) != 0 || mtu == 0)
		mtu = RTE_ETHER_MTU;
	info->mtu = mtu;
	info->nb_queues = c->nb_queues;
	info->rx_offloads = ec.rxmode.offloads;
	info->tx_offloads = ec.txmode.offloads;
	if (ec.rxmode.offloads & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM)
		info->netif_flags |= UST_NETIF_F_RX_IPV4_CKSUM;
	if (ec.rxmode.offloads & (RTE_ETH_RX_OFFLOAD_UDP_CKSUM |
				  RTE_ETH_RX_OFFLOAD_TCP_CKSUM))
		info->netif_flags |= UST_NETIF_F_RX_L4_CKSUM;
	if (ec.txmode.offloads & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM)
		info->netif_flags |= UST_NETIF_F_TX_IPV4_CKSUM;
	if (ec.txmode.offloads & RTE_ETH_TX_OFFLOAD_UDP_CKSUM)
		info->netif_flags |= UST_NETIF_F_TX_UDP_CKSUM;
	if (ec.txmode.offloads & RTE_ETH_TX_OFFLOAD_TCP_CKSUM)
		info->netif_flags |= UST_NETIF_F_TX_TCP_CKSUM;
	if (ec.txmode.offloads & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)
		info->netif_flags |= UST_NETIF_F_TX_MULTI_SEGS;
	memset(&link, 0, sizeof(link));
	if (rte_eth_link_get_nowait(c->port_id, &link) == 0) {
		info->link_up = link.link_status == RTE_ETH_LINK_UP;
		info->link_speed = link.link_speed;
	}
	return 0;
}

static uint16_t
eth_rx(void *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	uintptr_t v = (uintptr_t)ctx;

	return rte_eth_rx_burst((uint16_t)(v >> 16), (uint16_t)v, pkts, n);
}

static uint16_t
eth_tx(void *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	uintptr_t v = (uintptr_t)ctx;

	return rte_eth_tx_burst((uint16_t)(v >> 16), (uint16_t)v, pkts, n);
}

static const struct ust_netif_ops eth_ops = {
	.rx_burst = eth_rx,
	.tx_burst = eth_tx,
};

int
ust_port_netif(uint16_t port_id, uint16_t queue,
	       const struct ust_port_info *info, struct ust_netif *netif)
{
	if (!rte_eth_dev_is_valid_port(port_id) || queue >= info->nb_queues)
		return -EINVAL;
	memset(netif, 0, sizeof(*netif));
	netif->ops = &eth_ops;
	netif->ctx = (void *)(((uintptr_t)port_id << 16) | queue);
	netif->mac = info->mac;
	netif->mtu = info->mtu;
	netif->flags = info->netif_flags;
	netif->port_id = port_id;
	netif->queue_id = queue;
	return 0;
}

void
ust_port_tx_cleanup(uint16_t port_id, uint16_t nb_queues)
{
	uint16_t q;

	for (q = 0; q < nb_queues; q++)
		rte_eth_tx_done_cleanup(port_id, q, 0);
}

void
ust_port_close(uint16_t port_id)
{
	rte_eth_dev_stop(port_id);
	rte_eth_dev_close(port_id);
}

/* ---- zero-copy DMA mapper ---- */

static int
port_dma_map(void *ctx, void *va, uint64_t iova, size_t len)
{
	if (rte_dev_dma_map(ctx, va, iova, len) == 0)
		return 0;
	return rte_errno != 0 ? -rte_errno : -EIO;
}

static int
port_dma_unmap(void *ctx, void *va, uint64_t iova, size_t len)
{
	if (rte_dev_dma_unmap(ctx, va, iova, len) == 0)
		return 0;
	return rte_errno != 0 ? -rte_errno : -EIO;
}

/* Only devices on a bus that maps for DMA qualify: PCI (vfio-pci's IOMMU
 * container, or the driver's own map: mlx5 registers a memory region) and
 * the auxiliary bus (mlx5 sub-functions). The virtual devices (net_tap,
 * net_memif, net_ring, net_af_packet) are on the vdev bus, whose
 * rte_dev_dma_map() returns success and maps nothing: a mode that "maps"
 * there would time a no-op, so it is refused. */
int
ust_port_dma_mapper(uint16_t port_id, struct ust_dma_mapper *out, char *why,
		    size_t n)
{
	struct rte_eth_dev_info di;
	const char *bus;
	char buf[128];

	if (why == NULL || n == 0) {
		why = buf;
		n = sizeof(buf);
	}
	why[0] = '\0';
	if (out == NULL)
		return -EINVAL;
	if (!rte_eth_dev_is_valid_port(port_id) ||
	    rte_eth_dev_info_get(port_id, &di) != 0 || di.device == NULL) {
		snprintf(why, n, "no ethdev port %u", port_id);
		return -ENOTSUP;
	}
	bus = rte_bus_name(rte_dev_bus(di.device));
	if (bus == NULL ||
	    (strcmp(bus, "pci") != 0 && strcmp(bus, "auxiliary") != 0)) {
		snprintf(why, n, "%s is on the %s bus, which maps nothing for "
			 "DMA", di.driver_name, bus != NULL ? bus : "unknown");
		return -ENOTSUP;
	}
	/* the IOVA the stack gives the device is the virtual address */
	if (rte_eal_iova_mode() != RTE_IOVA_VA) {
		snprintf(why, n, "IOVA as PA: zero copy needs IOVA as VA "
			 "(EAL --iova-mode=va)");
		return -ENOTSUP;
	}
	memset(out, 0, sizeof(*out));
	out->name = rte_dev_name(di.device);
	out->map = port_dma_map;
	out->unmap = port_dma_unmap;
	out->ctx = (void *)(uintptr_t)di.device;
	return 0;
}
