/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/**
 * @file
 * A ustack stack instance: one per lcore, share-nothing.
 *
 * An instance owns one netif (an ethdev queue pair, usually), its ARP cache,
 * its sockets, its counters and its memory pools. Nothing in it is global:
 * every call takes the instance, and time is passed in (nanoseconds of any
 * monotonic clock), so tests drive the clock.
 *
 * The loop of an application lcore:
 *
 * @code
 *	for (;;) {
 *		uint64_t now = ust_clock_ns();
 *		ust_stack_poll(stk, now);   // TX drain, RX burst, timers
 *		... ust_recv_burst() / ust_recvfrom() / ust_sendto() ...
 *	}
 * @endcode
 *
 * ust_stack_poll() does what three calls do, which a custom loop (or a
 * test) can call separately: ust_stack_input() (a burst of received frames
 * in), ust_stack_timers() (ARP retries and aging when due, TCP's timers
 * and output waiting for staging room) and ust_stack_flush() (the staged
 * frames out to the netif). The poll also reads the netif and the loopback
 * queue itself.
 *
 * Threading: every function here runs on the instance's lcore, except the
 * read-side socket calls of a socket marked UST_SO_SPLIT (see
 * ust_socket.h) and ust_stack_stats_get(), which may run anywhere.
 */

#ifndef UST_STACK_H
#define UST_STACK_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_byteorder.h>

#include "ust_mem.h"
#include "ust_netif.h"
#include "ust_stats.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rte_mbuf;
struct rte_mempool;
struct ust_stack;

/** The largest [stack] max_sockets and [tcp] max_conns: 2^24. */
#define UST_MAX_SOCKETS (1u << 24)

/** ARP (neighbour cache) settings; times in milliseconds. */
struct ust_arp_conf {
	uint32_t entries;        /**< cache capacity (256) */
	uint32_t reachable_ms;   /**< a confirmed entry stays fresh (30000) */
	uint32_t retrans_ms;     /**< between requests while resolving (1000) */
	uint32_t max_probes;     /**< requests before giving up (3) */
	uint32_t gc_ms;          /**< an unused stale entry is removed (60000) */
	uint32_t queue_len;      /**< packets held per unresolved entry (256) */
	uint32_t pending_max;    /**< mbufs held on all unresolved entries
				  *  together (1024) */
};

/** IP reassembly (lib/ip/frag.c); the Linux sysctls it follows in
 *  parentheses. */
struct ust_frag_conf {
	uint32_t max_datagrams;  /**< datagrams being reassembled at once
				  *  (1024); a new one beyond evicts the
				  *  oldest */
	uint32_t mem_max;        /**< bytes (mbuf truesize) the fragments held
				  *  may take (4 MiB: ipfrag_high_thresh);
				  *  beyond, the oldest datagrams are
				  *  evicted */
	uint32_t timeout_ms;     /**< a datagram not complete after this is
				  *  dropped (30000: ipfrag_time) */
	uint32_t max_frags;      /**< fragments of one datagram (128; 45 make
				  *  65535 bytes at MTU 1500) */
};

/**
 * IPv6 of a stack instance (lib/ip/ipv6.c, nd.c, icmp6.c). Off unless
 * @p enable; on, the stack has a link-local address from its MAC (EUI-64,
 * RFC 4291 2.5.1) and @p addr when it is set, each checked by duplicate
 * address detection (RFC 4862 5.4) before it is used. Neighbour Discovery
 * (RFC 4861) takes the neighbour cache's bounds and times from [arp]
 * (entries, queue_len, pending_max, reachable_ms, retrans_ms, max_probes,
 * gc_ms), as Linux's ndisc takes the neighbour core's.
 */
struct ust_ip6_conf {
	bool enable;              /**< IPv6 on (false) */
	uint8_t addr[16];         /**< a global address; all zero: link-local
				   *  only */
	uint8_t prefix_len;       /**< of @p addr's on-link prefix (64) */
	uint8_t gateway[16];      /**< default router (a link-local or
				   *  on-link address); zero: learned from
				   *  router advertisements */
	uint8_t hop_limit;        /**< of packets we send (64) */
	uint8_t dad_transmits;    /**< DAD solicitations per address; 0: no
				   *  DAD (1, as Linux's dad_transmits) */
	bool accept_ra;           /**< learn a default router, on-link
				   *  prefixes, MTU and ND times from router
				   *  advertisements, after soliciting them
				   *  (true, as Linux's accept_ra for a
				   *  host) */
};

/** ICMP error rate limit: a token bucket, as net.ipv4.icmp_msgs_per_sec. */
struct ust_icmp_conf {
	uint32_t msgs_per_sec;   /**< tokens per second (1000) */
	uint32_t burst;          /**< bucket depth (50) */
};

/** TCP settings; times in milliseconds, sizes in bytes. Names in
 *  parentheses are the Linux sysctls they follow. */
struct ust_tcp_conf {
	uint32_t max_conns;       /**< connections, half-open and TIME_WAIT
				   *  entries included (65536) */
	uint32_t rmem_default;    /**< initial receive buffer (tcp_rmem[1],
				   *  131072) */
	uint32_t rmem_max;        /**< SO_RCVBUF limit (tcp_rmem[2], 6291456) */
	uint32_t wmem_default;    /**< initial send buffer (tcp_wmem[1], 16384
				   *  there; 131072 here) */
	uint32_t wmem_max;        /**< SO_SNDBUF limit (tcp_wmem[2], 4194304) */
	uint32_t rto_min_ms;      /**< (TCP_RTO_MIN, 200) */
	uint32_t rto_max_ms;      /**< (TCP_RTO_MAX, 120000) */
	uint32_t rto_init_ms;     /**< RFC 6298 initial RTO (1000) */
	uint32_t delack_ms;       /**< delayed ACK timeout (1) */
	uint32_t quickack;        /**< segments ACKed at once after the
				   *  handshake and after idle (16) */
	uint32_t syn_retries;     /**< (tcp_syn_retries, 6) */
	uint32_t synack_retries;  /**< (tcp_synack_retries, 5) */
	uint32_t retries2;        /**< RTOs before giving up (tcp_retries2,
				   *  15) */
	uint32_t max_syn_backlog; /**< half-open entries (tcp_max_syn_backlog,
				   *  4096) */
	uint32_t syncookies;      /**< 0 off, 1 when the SYN queue overflows,
				   *  2 always (tcp_syncookies, 1) */
	uint32_t time_wait_ms;    /**< 2 * MSL (60000) */
	uint32_t fin_timeout_ms;  /**< orphaned FIN_WAIT_2 (tcp_fin_timeout,
				   *  60000) */
	uint32_t keepalive_time_ms;  /**< (tcp_keepalive_time, 7200000) */
	uint32_t keepalive_intvl_ms; /**< (tcp_keepalive_intvl, 75000) */
	uint32_t keepalive_probes;   /**< (tcp_keepalive_probes, 9) */
	uint32_t init_cwnd;       /**< segments (RFC 6928, 10) */
	uint32_t min_tso_segs;    /**< the fewest full segments between two
				   *  PSH marks in a burst of new data, as
				   *  the smallest TSO packet Linux sends
				   *  (tcp_min_tso_segs, 2) */
	uint32_t challenge_ack_limit; /**< RFC 5961 challenge ACKs a second,
				       *  stack-wide, on average: each
				       *  second's budget is random in
				       *  [limit/2, limit*3/2) (1000) */
	uint32_t invalid_ratelimit_ms; /**< at most one ACK to an invalid
					*  segment (out of window, PAWS,
					*  challenge, duplicate SYN) per
					*  connection per interval; 0: no
					*  limit (tcp_invalid_ratelimit,
					*  500) */
	uint32_t synack_rtx_burst; /**< SYN-ACK retransmissions per poll;
				    *  the rest wait a tick (64) */
	uint8_t listen_overcommit; /**< 1: only the backlog bounds a
				    *  listener (Linux); 0: no handshake is
				    *  completed for a connection the socket
				    *  table has no descriptor for (0) */
	uint8_t sack;             /**< (tcp_sack, 1) */
	uint8_t dsack;            /**< report duplicates (RFC 2883;
				    * tcp_dsack, 1) */
	uint8_t moderate_rcvbuf;  /**< receive-buffer autotuning
				    * (tcp_moderate_rcvbuf, 1) */
	uint8_t slow_start_after_idle; /**< new data after more than an RTO
					 *  idle starts from a smaller cwnd
					 *  (RFC 5681 4.1;
					 *  tcp_slow_start_after_idle, 1) */
	uint8_t timestamps;       /**< (tcp_timestamps, 1) */
	uint8_t window_scaling;   /**< (tcp_window_scaling, 1) */
	uint8_t tw_reuse;         /**< connect() may take over a 4-tuple in
				   *  TIME_WAIT whose timestamps protect it,
				   *  one second after its last segment
				   *  (tcp_tw_reuse = 1; 0) */
	uint8_t rfc1337;          /**< an RST does not end TIME_WAIT (RFC
				   *  1337 fix 1; tcp_rfc1337, 0: as Linux,
				   *  an in-sequence RST ends it) */
	char congestion[16];      /**< "cubic" or "newreno" */
	/* TX layouts of data segments (ust_tcp_tx.h, doc/tx-layout.md) */
	uint8_t tx_layout;        /**< enum ust_tcp_tx_layout (linear) */
	uint16_t first_linear_max; /**< first-linear: payload bytes at most
				    *  (2048 - UST_TCP_TX_MAX_HDR) */
	uint16_t copy_small;      /**< frames this long or shorter are copied
				   *  into the small pool; 0: no pool (0) */
	uint32_t copy_small_bufs; /**< buffers in the small pool (4096) */
};

/** Configuration of a stack instance. ust_stack_conf_defaults() first. */
struct ust_stack_conf {
	const char *name;           /**< for logs and telemetry, unique in
				     *  the process ("ust0") */
	struct ust_netif netif;     /**< where frames come from and go to */
	struct rte_mempool *pool;   /**< mbufs for packets the stack builds */
	int socket_id;              /**< NUMA node for the instance's memory */
	/** the lcore that polls the instance (LCORE_ID_ANY: the one that
	 *  creates it) */
	unsigned int lcore;
	rte_be32_t addr;            /**< our IPv4 address */
	uint8_t prefix_len;         /**< of the directly connected subnet */
	rte_be32_t gateway;         /**< default gateway, 0 for none */
	uint8_t ttl;                /**< TTL of packets we send (64) */
	/** deliver datagrams carrying a source route option (LSRR, SSRR)
	 *  instead of dropping them as IP_SOURCE_ROUTE (false, as Linux's
	 *  accept_source_route=0) */
	bool accept_source_route;
	uint16_t rx_burst;          /**< frames per RX burst (32) */
	uint16_t tx_stage;          /**< frames staged before TX (512) */
	uint32_t max_sockets;       /**< socket descriptors (1024; at most
				     *  UST_MAX_SOCKETS) */
	/** mbufs replies that belong to no socket (ARP, ICMP, RST, SYN-ACK)
	 *  leave free in @p pool, for RX to refill its ring, at most half the
	 *  pool; 0: 1/8 of the pool (the apps set the port's RX descriptors
	 *  x queues + rx_burst) */
	uint32_t pool_reserve;
	uint16_t ephemeral_lo;      /**< ephemeral ports (32768) */
	uint16_t ephemeral_hi;      /**< ... to (60999) */
	struct ust_arp_conf arp;
	struct ust_icmp_conf icmp;
	struct ust_frag_conf frag;
	struct ust_ip6_conf ip6;
	struct ust_mem_conf udp_mem; /**< UDP memory pool and buffer sizes */
	struct ust_tcp_conf tcp;
	struct ust_mem_conf tcp_mem; /**< TCP receive memory pool (tcp_mem) */
	/** the clock when the stack is created (ust_clock_ns() when the
	 *  defaults were filled): the time socket calls made before the first
	 *  ust_stack_poll() see. Tests with a fake clock set their own. */
	uint64_t now_ns;
};

/** Fill @p conf with the defaults named in struct ust_stack_conf. */
void ust_stack_conf_defaults(struct ust_stack_conf *conf);

/**
 * Create a stack instance on the calling lcore. Returns NULL and sets
 * rte_errno on failure: EINVAL for a bad configuration, ENOMEM, EEXIST
 * when a live stack or group of the process has the name (telemetry
 * answers for a name: it must be unique), ENOSPC beyond 1024 live stacks.
 */
struct ust_stack *ust_stack_create(const struct ust_stack_conf *conf);

/**
 * Destroy an instance: closes its sockets (their queued datagrams count
 * as SOCKET_CLOSE drops), frees staged and pending frames (counted too).
 */
void ust_stack_destroy(struct ust_stack *stk);

/**
 * Run one iteration: transmit what is staged, receive one burst and process
 * it, run due timers, transmit again. Returns the number of frames received.
 */
uint16_t ust_stack_poll(struct ust_stack *stk, uint64_t now_ns);

/**
 * Process a burst of received frames. The stack takes ownership of every
 * mbuf: each is consumed or dropped with one drop reason.
 */
void ust_stack_input(struct ust_stack *stk, struct rte_mbuf **pkts,
		     uint16_t n, uint64_t now_ns);

/** Run the timers that are due at @p now_ns (ARP retries and aging, TCP's
 * retransmission, delayed-ACK, keepalive and TIME_WAIT timers). */
void ust_stack_timers(struct ust_stack *stk, uint64_t now_ns);

/**
 * When the instance next needs a poll with no frame arriving (ns of the
 * clock it is given): the earliest of its timers (TCP's retransmission,
 * delayed-ACK, keepalive, TIME_WAIT and SYN-ACK timers, ARP's retries and
 * aging), or a time not after the last poll's when work is pending now
 * (frames staged for TX, frames to itself, output waiting for staging
 * room); UINT64_MAX when nothing is pending. Frames from the port, and in
 * a group from sibling stacks, are not deadlines: a loop that sleeps
 * until the deadline wakes for them by other means (RX interrupts, or a
 * bounded sleep). Exact to the timer wheel's tick (1 ms), never early; it
 * walks the wheel's slots up to the first due timer, so call it from an
 * idle loop about to sleep, not on every poll.
 */
uint64_t ust_stack_next_deadline(const struct ust_stack *stk);

struct ust_epoll_event;

/**
 * ust_epoll_wait() that waits, for a loop with nothing else to do on this
 * stack: polls the instance (ust_stack_poll() at ust_clock_ns()) until
 * the event set @p epd has events ready or @p timeout_ms has passed (0:
 * one poll, then the check; -1: no limit), as epoll_wait(2). Returns the
 * events' count, 0 at the timeout, or a negative errno (-EBADF, -EINVAL)
 * as ust_epoll_wait(). The lcore spins while it waits (a poll-mode
 * stack's frames arrive by polling); to sleep instead, see
 * ust_stack_next_deadline(). For a stack on the real clock
 * (ust_clock_ns()), not a test's fake one.
 */
int ust_epoll_wait_timeout(struct ust_stack *stk, int epd,
			   struct ust_epoll_event *events, int max,
			   int timeout_ms);

/**
 * Hand staged frames to the netif. Frames the netif does not take stay
 * staged for the next call (they are not dropped). Returns frames sent.
 */
uint16_t ust_stack_flush(struct ust_stack *stk);

/** Number of frames staged and not yet taken by the netif. */
uint16_t ust_stack_tx_pending(const struct ust_stack *stk);

/** Copy the instance's counters. */
void ust_stack_stats_get(const struct ust_stack *stk, struct ust_stats *st);

/** The instance's UDP memory pool (stats, A/B switches). */
struct ust_mem_pool *ust_stack_udp_mem(struct ust_stack *stk);

/** The stack's TCP receive memory pool (tcp_mem), for its statistics. */
struct ust_mem_pool *ust_stack_tcp_mem(struct ust_stack *stk);

/** The instance's name. */
const char *ust_stack_name(const struct ust_stack *stk);

/** The configuration the instance runs with. */
const struct ust_stack_conf *ust_stack_conf(const struct ust_stack *stk);

/**
 * Add a permanent ARP entry (no resolution, no aging), for peers that
 * cannot answer ARP on this queue (multi-queue ports without RSS on ARP).
 */
int ust_stack_arp_add_static(struct ust_stack *stk, rte_be32_t ip,
			     const struct rte_ether_addr *mac);

/** Look up the MAC of @p ip in the cache; 0 when found and usable. */
int ust_stack_arp_lookup(const struct ust_stack *stk, rte_be32_t ip,
			 struct rte_ether_addr *mac);

/** State of an IPv6 address of the stack (ust_stack_ip6_addr()). */
enum ust_ip6_addr_state {
	UST_IP6_TENTATIVE = 1, /**< duplicate address detection running */
	UST_IP6_PREFERRED,     /**< in use */
	UST_IP6_DUPLICATE,     /**< another node has it: never used */
};

/**
 * The stack's IPv6 address @p idx (0: link-local, 1: the configured
 * global one) into @p addr (16 bytes) and its prefix length into
 * @p prefix_len (either may be NULL). Returns its enum ust_ip6_addr_state,
 * or -ENOENT (IPv6 off, or no such address).
 */
int ust_stack_ip6_addr(const struct ust_stack *stk, unsigned int idx,
		       uint8_t *addr, uint8_t *prefix_len);

/**
 * The Ethernet multicast addresses the stack must receive (IPv6's
 * all-nodes group and the solicited-node group of each of its addresses,
 * RFC 4861 7.2.1), for the port's filter (ust_port_set_mc_addrs()): up to
 * @p max into @p macs; returns how many there are (0 with IPv6 off).
 */
unsigned int ust_stack_mc_addrs(const struct ust_stack *stk,
				struct rte_ether_addr *macs,
				unsigned int max);

/** Look up the MAC of IPv6 neighbour @p ip (16 bytes) in the cache; 0
 * when found and usable, -ENOENT; the entry's state name ("REACHABLE",
 * "STALE", "DELAY", "PROBE", "INCOMPLETE", "PERMANENT") in @p state when
 * it is not NULL. */
int ust_stack_nd_lookup(const struct ust_stack *stk, const uint8_t *ip,
			struct rte_ether_addr *mac, const char **state);

/** Nanoseconds from the TSC; what applications pass as now_ns. */
uint64_t ust_clock_ns(void);

#ifdef __cplusplus
}
#endif

#endif /* UST_STACK_H */
