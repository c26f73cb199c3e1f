/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Ethdev bring-up and the ethdev netif.
 *
 * ust_port_setup() is called once per port before the stacks are created:
 * it reads the PMD's capabilities, enables the checksum offloads it has,
 * RSS when there is more than one queue pair (the IPv4 hash types the
 * device supports, a symmetric Toeplitz key, an even redirection table),
 * adjusts the ring sizes to the PMD's limits, sets the MTU and starts the
 * port. ust_port_netif() then gives each stack its queue pair; the netif
 * ops are direct calls to rte_eth_rx_burst/rte_eth_tx_burst with the port
 * and queue encoded in the context pointer.
 *
 * ust_port_rss() reads the key and the redirection table back from the
 * PMD: what the device runs, not what was asked, is what sibling stacks
 * steer flows by. Whether the stack can compute the device's hash at all
 * is the profile's (port_profiles[].rss).
 *
 * ust_port_dma_mapper() gives the application the port's device as the
 * zero-copy DMA mapper (rte_dev_dma_map()/rte_dev_dma_unmap()), or why the
 * port cannot map; the application installs it on each stack of the port
 * with ust_stack_set_dma_mapper() (ust_tcp_tx.h), so that the stack itself
 * never calls ethdev or looks at buses.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_mempool.h>

#include "ust_port.h"
#include "ust_tcp_tx.h"

/* "ustack.port", as the library's other log types (UST_LOG_TO() in
 * lib/core/stack_private.h, which this driver does not see) */
RTE_LOG_REGISTER(ust_port_logtype, ustack.port, INFO);
#define PORT_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, ust_port_logtype, "ustack.port: " fmt "\n", \
		##__VA_ARGS__)

/* The profiles' RSS (ust_port_profile_rss()) */
#define RSS_TOEPLITZ "toeplitz" /* Toeplitz over the key and RETA we read */
#define RSS_KERNEL "kernel"     /* the kernel's flow hash picks the queue */
#define RSS_NONE "none"         /* no hash: each queue is its own wire */

/* What ustack knows of each PMD; see doc/pmd-profiles.md. */
static const struct {
	const char *prefix;
	const char *profile;
	const char *rss;
} port_profiles[] = {
	{ "mlx5", "mlx5", RSS_TOEPLITZ },          /* mlx5_pci, net_mlx5 */
	{ "net_mlx5", "mlx5", RSS_TOEPLITZ },
	{ "net_tap", "tap", RSS_KERNEL },
	{ "net_memif", "memif", RSS_NONE },
	{ "net_ring", "ring", RSS_NONE },
	{ "net_af_packet", "af_packet", RSS_KERNEL },
	{ "net_null", "null", RSS_NONE },
	{ "net_e1000_em", "e1000", RSS_NONE },
	{ "net_e1000_igb", "e1000", RSS_TOEPLITZ }, /* and net_e1000_igb_vf */
	{ "net_ixgbe", "ixgbe", RSS_TOEPLITZ },    /* and net_ixgbe_vf */
	{ "net_i40e", "i40e", RSS_TOEPLITZ },      /* and net_i40e_vf */
	{ "net_ice", "ice", RSS_TOEPLITZ },        /* and net_ice_dcf */
	{ "net_virtio", "virtio", RSS_TOEPLITZ },  /* VIRTIO_NET_F_RSS */
};

/* The IPv4 hash types the port asks for: addresses, and TCP/UDP ports. */
#define PORT_RSS_HF (RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_FRAG_IPV4 | \
		     RTE_ETH_RSS_NONFRAG_IPV4_TCP | \
		     RTE_ETH_RSS_NONFRAG_IPV4_UDP | \
		     RTE_ETH_RSS_NONFRAG_IPV4_OTHER)

/* Key length when the PMD reports none, and the longest we handle. */
#define PORT_RSS_KEY_DEFAULT 40
#define PORT_RSS_KEY_MAX 255

static int
profile_index(const char *driver_name)
{
	unsigned int i;

	if (driver_name == NULL)
		return -1;
	for (i = 0; i < RTE_DIM(port_profiles); i++)
		if (strncmp(driver_name, port_profiles[i].prefix,
			    strlen(port_profiles[i].prefix)) == 0)
			return (int)i;
	return -1;
}

const char *
ust_port_profile(const char *driver_name)
{
	int i = profile_index(driver_name);

	return i < 0 ? "generic" : port_profiles[i].profile;
}

const char *
ust_port_profile_rss(const char *driver_name)
{
	int i = profile_index(driver_name);

	return i < 0 ? "generic" : port_profiles[i].rss;
}

/* The profile's RSS resolved for a device: a driver of no profile is
 * taken at its bus's word (PCI and auxiliary devices are NICs, which hash
 * with Toeplitz; ust_port_rss() still needs the readback to work). */
static const char *
port_rss_mode(const struct rte_eth_dev_info *di)
{
	const char *mode = ust_port_profile_rss(di->driver_name);
	const char *bus;

	if (strcmp(mode, "generic") != 0)
		return mode;
	bus = di->device != NULL ? rte_bus_name(rte_dev_bus(di->device)) :
		NULL;
	if (bus != NULL &&
	    (strcmp(bus, "pci") == 0 || strcmp(bus, "auxiliary") == 0))
		return RSS_TOEPLITZ;
	return RSS_NONE;
}

/* Devices whose queues need no hash to be spread evenly: each queue is its
 * own wire (memif, ring) or the kernel spreads flows over them (tap,
 * af_packet). */
static bool
port_queues_own_wire(const char *profile)
{
	return strcmp(profile, "memif") == 0 || strcmp(profile, "ring") == 0 ||
		strcmp(profile, "af_packet") == 0 ||
		strcmp(profile, "tap") == 0;
}

/* The symmetric Toeplitz key: with 0x6d5a repeated, the hash of (src,
 * dst, sport, dport) equals that of (dst, src, dport, sport), so both
 * directions of a flow arrive on one queue. */
static void
port_sym_key(uint8_t *key, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		key[i] = (i & 1) == 0 ? 0x6d : 0x5a;
}

/* Program the redirection table: entry i -> queue i % nb_queues. */
static void
port_reta_program(uint16_t port_id, const struct rte_eth_dev_info *di,
		  uint16_t nb_queues)
{
	struct rte_eth_rss_reta_entry64
		reta[RTE_ETH_RSS_RETA_SIZE_512 / RTE_ETH_RETA_GROUP_SIZE];
	struct rte_eth_rss_reta_entry64 *conf = reta;
	unsigned int groups, i;
	int rc;

	if (di->reta_size == 0)
		return;
	groups = (di->reta_size + RTE_ETH_RETA_GROUP_SIZE - 1) /
		RTE_ETH_RETA_GROUP_SIZE;
	if (groups > RTE_DIM(reta)) {
		conf = calloc(groups, sizeof(*conf));
		if (conf == NULL) {
			PORT_LOG(INFO, "port %u: no memory for a RETA of %u "
				 "entries: the PMD keeps its own", port_id,
				 di->reta_size);
			return;
		}
	}
	memset(conf, 0, groups * sizeof(*conf));
	for (i = 0; i < di->reta_size; i++) {
		struct rte_eth_rss_reta_entry64 *g =
			&conf[i / RTE_ETH_RETA_GROUP_SIZE];

		g->mask |= UINT64_C(1) << (i % RTE_ETH_RETA_GROUP_SIZE);
		g->reta[i % RTE_ETH_RETA_GROUP_SIZE] = i % nb_queues;
	}
	rc = rte_eth_dev_rss_reta_update(port_id, conf, di->reta_size);
	if (rc != 0)
		PORT_LOG(INFO, "port %u (%s): the PMD refuses a RETA of %u "
			 "entries (%s): it keeps its own", port_id,
			 di->driver_name, di->reta_size, rte_strerror(-rc));
	if (conf != reta)
		free(conf);
}

/* After start: make sure the device runs the key asked for. Some PMDs
 * (net_null, some PCI NICs) take no key at configure time and one only
 * through rte_eth_dev_rss_hash_update(); a PMD without readback is left
 * as it is (net_tap refuses any key, and logs an error if given one). */
static void
port_key_program(uint16_t port_id, const struct rte_eth_dev_info *di,
		 uint8_t *key, uint8_t key_len, uint64_t hf)
{
	uint8_t cur[PORT_RSS_KEY_MAX];
	struct rte_eth_rss_conf rc_get, rc_set;
	int rc;

	memset(&rc_get, 0, sizeof(rc_get));
	memset(cur, 0, sizeof(cur));
	rc_get.rss_key = cur;
	rc_get.rss_key_len = key_len;
	if (rte_eth_dev_rss_hash_conf_get(port_id, &rc_get) != 0)
		return;
	if (memcmp(cur, key, key_len) == 0)
		return;
	memset(&rc_set, 0, sizeof(rc_set));
	rc_set.rss_key = key;
	rc_set.rss_key_len = key_len;
	rc_set.rss_hf = hf;
	rc = rte_eth_dev_rss_hash_update(port_id, &rc_set);
	if (rc != 0)
		PORT_LOG(INFO, "port %u (%s): the PMD refuses the symmetric "
			 "RSS key (%s): it keeps its own", port_id,
			 di->driver_name, rte_strerror(-rc));
}

void
ust_port_conf_defaults(struct ust_port_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->nb_queues = 1;
	c->rx_desc = 1024;
	c->tx_desc = 1024;
	c->offloads = true;
	c->rss_sym_key = true;
}

int
ust_port_setup(const struct ust_port_conf *c, struct ust_port_info *info)
{
	struct rte_eth_dev_info di;
	struct rte_eth_conf ec;
	struct rte_eth_link link;
	uint8_t key[PORT_RSS_KEY_MAX];
	uint8_t key_len = 0;
	uint16_t q, mtu;
	int rc;

	memset(info, 0, sizeof(*info));
	if (!rte_eth_dev_is_valid_port(c->port_id))
		return -ENODEV;
	if (c->nb_queues == 0)
		return -EINVAL;
	rc = rte_eth_dev_info_get(c->port_id, &di);
	if (rc != 0)
		return rc;
	snprintf(info->driver, sizeof(info->driver), "%s", di.driver_name);
	info->profile = ust_port_profile(di.driver_name);
	info->rss_mode = port_rss_mode(&di);
	if (c->nb_queues > di.max_rx_queues ||
	    c->nb_queues > di.max_tx_queues ||
	    c->nb_queues > UST_PORT_MAX_QUEUES) {
		PORT_LOG(ERR, "port %u (%s) has %u RX / %u TX queues (ustack "
			 "at most %u), %u asked: give fewer lcores or more "
			 "queues", c->port_id, di.driver_name, di.max_rx_queues,
			 di.max_tx_queues, UST_PORT_MAX_QUEUES, c->nb_queues);
		return -EINVAL;
	}
	for (q = 0; q < c->nb_queues; q++)
		if (c->rx_pools[q] == NULL && c->pool == NULL) {
			PORT_LOG(ERR, "port %u: no mbuf pool for RX queue %u",
				 c->port_id, q);
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
	if (c->nb_queues > 1 &&
	    (di.flow_type_rss_offloads & PORT_RSS_HF) != 0) {
		struct rte_eth_rss_conf *rss = &ec.rx_adv_conf.rss_conf;

		ec.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		rss->rss_hf = di.flow_type_rss_offloads & PORT_RSS_HF;
		if (c->rss_sym_key) {
			key_len = di.hash_key_size != 0 ? di.hash_key_size :
				PORT_RSS_KEY_DEFAULT;
			port_sym_key(key, key_len);
			rss->rss_key = key;
			rss->rss_key_len = key_len;
		}
		info->rss_on = true;
		info->rss_hf = rss->rss_hf;
	} else if (c->nb_queues > 1 && !port_queues_own_wire(info->profile)) {
		PORT_LOG(WARNING, "port %u (%s) has no RSS over IPv4: its %u "
			 "queues will get flows spread unevenly (or all on "
			 "one)", c->port_id, di.driver_name, c->nb_queues);
	}
	if (c->rx_intr) {
		ec.intr_conf.rxq = 1;
		rc = rte_eth_dev_configure(c->port_id, c->nb_queues,
					   c->nb_queues, &ec);
		if (rc == 0) {
			info->rx_intr = true;
		} else {
			PORT_LOG(INFO, "port %u (%s): no RX interrupts (%s): "
				 "configured without", c->port_id,
				 di.driver_name, rte_strerror(-rc));
			ec.intr_conf.rxq = 0;
		}
	}
	if (!info->rx_intr)
		rc = rte_eth_dev_configure(c->port_id, c->nb_queues,
					   c->nb_queues, &ec);
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
		struct rte_mempool *mp = c->rx_pools[q] != NULL ?
			c->rx_pools[q] : c->pool;
		int sock = rte_eth_dev_socket_id(c->port_id);
		int rx_sock;

		if (sock < 0)
			sock = SOCKET_ID_ANY;
		/* a queue's own pool is on its lcore's node: so is its ring */
		rx_sock = c->rx_pools[q] != NULL &&
			c->rx_pools[q]->socket_id >= 0 ?
			c->rx_pools[q]->socket_id : sock;
		rxq.offloads = ec.rxmode.offloads;
		txq.offloads = ec.txmode.offloads;
		rc = rte_eth_rx_queue_setup(c->port_id, q, info->rx_desc,
					    (unsigned int)rx_sock, &rxq, mp);
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
	if (info->rss_on) {
		if (key_len != 0)
			port_key_program(c->port_id, &di, key, key_len,
					 info->rss_hf);
		port_reta_program(c->port_id, &di, c->nb_queues);
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

/* ---- RSS as the device runs it, NUMA ---- */

/* Read the redirection table back into @p out; 0 or a negative errno. */
static int
port_reta_read(uint16_t port_id, uint16_t reta_size, struct ust_rss *out)
{
	struct rte_eth_rss_reta_entry64
		reta[UST_RSS_RETA_MAX / RTE_ETH_RETA_GROUP_SIZE];
	unsigned int i;
	int rc;

	if (reta_size == 0 || reta_size > UST_RSS_RETA_MAX)
		return -ENOTSUP;
	memset(reta, 0, sizeof(reta));
	for (i = 0; i < reta_size; i++)
		reta[i / RTE_ETH_RETA_GROUP_SIZE].mask |=
			UINT64_C(1) << (i % RTE_ETH_RETA_GROUP_SIZE);
	rc = rte_eth_dev_rss_reta_query(port_id, reta, reta_size);
	if (rc != 0)
		return rc;
	for (i = 0; i < reta_size; i++)
		out->reta[i] = reta[i / RTE_ETH_RETA_GROUP_SIZE]
			.reta[i % RTE_ETH_RETA_GROUP_SIZE];
	out->reta_size = reta_size;
	return 0;
}

int
ust_port_set_mc_addrs(uint16_t port_id, const struct rte_ether_addr *macs,
		      unsigned int n)
{
	int rc;

	if (n == 0)
		return 0;
	rc = rte_eth_dev_set_mc_addr_list(port_id,
					  (struct rte_ether_addr *)(uintptr_t)
					  macs, n);
	if (rc == 0)
		return 0;
	/* no filter list (net_tap, net_memif, ...), or too short: all
	 * multicast, which the stack filters itself (eth.c) */
	rc = rte_eth_allmulticast_enable(port_id);
	if (rc == 0 || rte_eth_allmulticast_get(port_id) == 1 ||
	    rte_eth_promiscuous_get(port_id) == 1)
		return 0;
	return rc;
}

int
ust_port_rss(uint16_t port_id, struct ust_rss *out)
{
	struct rte_eth_dev_info di;
	struct rte_eth_rss_conf rss;
	uint8_t key[PORT_RSS_KEY_MAX];
	bool key_ok = false, reta_ok = false;
	unsigned int i;
	uint8_t len;

	if (out == NULL)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->kind = UST_RSS_NONE;
	if (!rte_eth_dev_is_valid_port(port_id) ||
	    rte_eth_dev_info_get(port_id, &di) != 0)
		return -ENODEV;
	out->nb_queues = di.nb_rx_queues;

	/* the key: as long as the device says, 40 bytes when it says
	 * nothing; a PMD that gives its length back is believed */
	len = di.hash_key_size != 0 ? di.hash_key_size : PORT_RSS_KEY_DEFAULT;
	memset(key, 0, sizeof(key));
	memset(&rss, 0, sizeof(rss));
	rss.rss_key = key;
	rss.rss_key_len = len;
	if (rte_eth_dev_rss_hash_conf_get(port_id, &rss) == 0) {
		if (rss.rss_key_len != 0 && rss.rss_key_len < len)
			len = rss.rss_key_len;
		out->hf = rss.rss_hf;
		if (len <= UST_RSS_KEY_MAX) {
			memcpy(out->key, key, len);
			out->key_len = len;
			key_ok = true;
		}
	}
	reta_ok = port_reta_read(port_id, di.reta_size, out) == 0;
	if (reta_ok)
		for (i = 0; i < out->reta_size; i++)
			if (out->reta[i] >= out->nb_queues)
				reta_ok = false;

	if (out->nb_queues > 1 && key_ok && reta_ok && out->hf != 0 &&
	    strcmp(port_rss_mode(&di), RSS_TOEPLITZ) == 0)
		out->kind = UST_RSS_TOEPLITZ;
	return 0;
}

int
ust_port_numa_check(uint16_t port_id, const unsigned int *lcores,
		    unsigned int n)
{
	unsigned int i;
	int port_sock, differ = 0;

	if (!rte_eth_dev_is_valid_port(port_id))
		return -ENODEV;
	if (lcores == NULL && n != 0)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (lcores[i] >= RTE_MAX_LCORE)
			return -EINVAL;
	port_sock = rte_eth_dev_socket_id(port_id);
	if (port_sock < 0)
		return 0;       /* SOCKET_ID_ANY: unknown, nothing to say */
	for (i = 0; i < n; i++) {
		unsigned int sock = rte_lcore_to_socket_id(lcores[i]);

		if (sock == (unsigned int)port_sock)
			continue;
		PORT_LOG(WARNING, "port %u is on NUMA node %d, lcore %u on "
			 "node %u: its frames cross the interconnect (give an "
			 "lcore of node %d)", port_id, port_sock, lcores[i],
			 sock, port_sock);
		differ++;
	}
	return differ;
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
