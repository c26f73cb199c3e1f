/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/**
 * @file
 * Sibling stacks: one share-nothing stack per lcore on the queue pairs of
 * one multi-queue port, and the little they share.
 *
 * A group is made of N stacks (ust_stack.h), stack i polling queue pair i
 * on lcore i. Each stack keeps its own sockets, connections, timers,
 * counters and ARP cache; nothing is locked per packet. What the group adds
 * (doc/scale-out.md says why each is done the way it is):
 *
 *  - Neighbours: an ARP frame that teaches one stack something (a request
 *    or reply to our address, an update of a known neighbour, a gratuitous
 *    announcement) is copied to every sibling over the handoff rings; a
 *    sibling learns from its copy and never answers it. Each stack keeps
 *    its own table, with its own bounds; there is no shared writer.
 *  - Listeners: each stack has its own listener on a port (the application
 *    listens on every stack: SO_REUSEPORT-style shards); a stack accepts the
 *    connections whose SYN it received, with its own SYN cookies.
 *  - Active opens and connected UDP: with a predictable hash
 *    (UST_RSS_TOEPLITZ, the key and RETA the device really uses) a stack
 *    picks, from the whole ephemeral range, a port whose reply hashes to
 *    its own queue (rte_softrss()), as mTCP and F-Stack do: no frame of
 *    the flow then arrives elsewhere. Without one, the ephemeral range is
 *    cut into N slices, one a stack, so that the local port alone names a
 *    flow's owner.
 *  - Handoff: a TCP segment or UDP datagram that finds no socket on the
 *    stack that received it, and that a sibling owns, goes to that sibling
 *    over a single-producer single-consumer rte_ring
 *    (one per ordered pair of stacks), in bursts, as Seastar forwards
 *    packets to the owning shard. With a predictable hash the owner is the
 *    stack the hash names. A TCP segment that opens nothing and that no
 *    owner is known for (a passive connection the port moved to another
 *    queue: a kernel peer behind a multi-queue TAP rehashes a flow after an
 *    RTO; a connection from a port bound before connect) goes round the
 *    siblings in turn until one has its connection; the last one answers
 *    as a lone stack would. An ICMP error goes to the stack that owns the
 *    flow it quotes. IPv6 is not in the hash (a NIC gives what it does
 *    not hash to one queue): an IPv6 segment or datagram that finds no
 *    socket goes to its port's slice, or with port steering round the
 *    siblings; ICMPv6 errors stay where they arrive. Counted:
 *    Group HandoffOut on the sender, HandoffIn on the receiver, drop reason
 *    HANDOFF_FULL when a ring is full.
 *
 * The stacks' own calls (ust_stack_poll() and every socket call) run on
 * their lcore as before: the group registers its hooks on each stack at
 * creation, and ust_stack_poll() reads the stack's handoff rings itself.
 *
 * @code
 *	struct ust_group_conf gc;
 *	ust_group_conf_defaults(&gc);
 *	gc.nb_stacks = n;                  // one per lcore
 *	for (i = 0; i < n; i++) {
 *		gc.lcores[i] = lcore[i];
 *		ust_port_netif(port, i, &info, &gc.netifs[i]);
 *	}
 *	ust_port_rss(port, &gc.rss);       // the hash the device runs
 *	gc.stack.pool = pool; gc.stack.addr = ...;
 *	grp = ust_group_create(&gc);
 *	ust_group_launch(grp, worker, arg); // worker(stk, i, arg) on lcore i
 *	ust_group_destroy(grp);
 * @endcode
 */

#ifndef UST_GROUP_H
#define UST_GROUP_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_byteorder.h>

#include "ust_netif.h"
#include "ust_stack.h"
#include "ust_stats.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ust_group;

/** Stacks in a group, at most. */
#define UST_GROUP_MAX 64

/** Group settings. ust_group_conf_defaults() first. */
struct ust_group_conf {
	const char *name;       /**< stack i is named "<name><i>" ("ust") */
	uint16_t nb_stacks;     /**< stacks, one per lcore (1) */
	/** the lcore that polls stack i (the stack's memory is on its NUMA
	 *  node unless stack.socket_id says otherwise) */
	unsigned int lcores[UST_GROUP_MAX];
	/** the queue pair (or test double) of stack i */
	struct ust_netif netifs[UST_GROUP_MAX];
	/** mbufs stack i builds packets from; NULL: stack.pool */
	struct rte_mempool *pools[UST_GROUP_MAX];
	/** every stack's settings (ust_stack_conf_defaults() first); name,
	 *  netif and lcore are set per stack, and without port steering
	 *  [ephemeral_lo, ephemeral_hi] is cut into nb_stacks equal slices */
	struct ust_stack_conf stack;
	/** how the port spreads flows over the queues (ust_port_rss());
	 *  kind UST_RSS_NONE when it cannot be predicted */
	struct ust_rss rss;
	/** entries of each handoff ring (one per ordered pair of stacks),
	 *  a power of two (1024) */
	uint32_t ring_size;
	/** with UST_RSS_TOEPLITZ: pick ephemeral ports whose reply arrives
	 *  on the stack's own queue (true) */
	bool steer_ports;
};

/** Fill @p c with the defaults named in struct ust_group_conf. */
void ust_group_conf_defaults(struct ust_group_conf *c);

/**
 * Create the stacks and the rings between them. Call before any of the
 * lcores polls. Returns NULL and sets rte_errno on failure (EINVAL for a
 * bad configuration, with the reason logged; ENOMEM; EEXIST when a live
 * stack or group of the process has the group's name or one of its
 * stacks' names; ENOSPC beyond 64 live groups).
 */
struct ust_group *ust_group_create(const struct ust_group_conf *c);

/**
 * Destroy every stack (ust_stack_destroy()) and free what the rings still
 * hold (counted as HANDOFF_FULL drops on the stack that sent them). Call
 * once no lcore polls any of them.
 */
void ust_group_destroy(struct ust_group *g);

/** Number of stacks. */
uint16_t ust_group_size(const struct ust_group *g);

/** Stack @p i, or NULL when there is no such stack. */
struct ust_stack *ust_group_stack(const struct ust_group *g, uint16_t i);

/** The lcore of stack @p i (LCORE_ID_ANY when there is no such stack). */
unsigned int ust_group_lcore(const struct ust_group *g, uint16_t i);

/** The stack the calling lcore polls, or NULL. */
struct ust_stack *ust_group_self(const struct ust_group *g);

/** Index of @p stk in the group, or -1. */
int ust_group_index(const struct ust_group *g, const struct ust_stack *stk);

/** A per-lcore loop: runs on stack @p idx's lcore. */
typedef int (*ust_group_worker_t)(struct ust_stack *stk, uint16_t idx,
				  void *arg);

/**
 * Run @p fn for every stack on its lcore (rte_eal_remote_launch(); the
 * calling lcore's own stack, if any, runs in the caller), and wait for all
 * of them. Returns 0 when every call returned 0, else the first non-zero
 * value in stack order; -EBUSY when an lcore is not free.
 */
int ust_group_launch(struct ust_group *g, ust_group_worker_t fn, void *arg);

/**
 * UDP on every stack through ONE accounted receive queue (the seeds'
 * several softirq CPUs feeding one socket) instead of a socket a stack
 * (the default, share-nothing): the bound UDP socket @p sd of stack
 * @p owner also receives the datagrams every sibling receives for its
 * port (ust_socket_attach(), whose rules apply: call it before the lcores
 * poll). Its one reader may run on any lcore. Returns 0 or the first
 * error of ust_socket_attach() (the siblings attached before it are
 * detached again).
 */
int ust_group_udp_share(struct ust_group *g, uint16_t owner, int sd);

/** The counters of every stack added together. Safe from any lcore. */
void ust_group_stats_get(const struct ust_group *g, struct ust_stats *st);

/**
 * The stack that receives the frames of a flow from (@p raddr, @p rport)
 * to (@p laddr, @p lport), addresses and ports in network order: by the
 * RSS hash when it is predictable, else -1 (the port picks).
 */
int ust_group_rx_stack(const struct ust_group *g, rte_be32_t laddr,
		       rte_be16_t lport, rte_be32_t raddr, rte_be16_t rport);

/** The stack whose ephemeral slice holds @p lport (network order), or
 *  -1 when it is outside the ephemeral range or the group steers ports by
 *  the hash (no slices; ust_group_rx_stack() then names the owner). */
int ust_group_port_owner(const struct ust_group *g, rte_be16_t lport);

/**
 * The Toeplitz hash of an IPv4 flow as a device with @p rss computes it,
 * over (source address, destination address, source port, destination
 * port), network order, as they appear in a received frame; ports 0 and 0
 * for a hash over the addresses alone. With a symmetric key (the port
 * layer's default) swapping source and destination gives the same hash.
 */
uint32_t ust_rss_hash(const struct ust_rss *rss, rte_be32_t src,
		      rte_be32_t dst, rte_be16_t sport, rte_be16_t dport);

/** The queue a device with @p rss gives a frame of hash @p hash. */
static inline uint16_t
ust_rss_queue(const struct ust_rss *rss, uint32_t hash)
{
	return rss->reta[hash % rss->reta_size];
}

#ifdef __cplusplus
}
#endif

#endif /* UST_GROUP_H */
