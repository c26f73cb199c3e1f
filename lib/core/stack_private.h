/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Internals shared by the stack's components (core, ip, sock, udp, tcp,
 * stack). Not installed. The stack instance, the per-packet metadata every
 * component reads, the packet queue type, the TX staging area, the drop
 * helpers, and the tables through which a layer reaches the one above it
 * without naming it (IPv4's protocol table, the TX-done callbacks). What
 * each layer offers the layers above is in its own internal header
 * (lib/ip/ip_private.h, lib/sock/sock_private.h, lib/udp/udp_private.h,
 * lib/tcp/tcp_private.h), which only the components that depend on it
 * can include (doc/architecture.md).
 *
 * Layout of struct ust_stack: the first cache lines hold what every RX and
 * TX packet reads (netif ops, addresses, metadata offset, the clock, the
 * last-used ARP entry), then the TX staging array, then counters (written
 * per packet, one writer), then the colder tables and configuration.
 */

#ifndef UST_STACK_PRIVATE_H
#define UST_STACK_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>

#include <rte_branch_prediction.h>
#include <rte_common.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_spinlock.h>

#include "ust_stack.h"
#include "ust_stats.h"
#include "ust_wire.h"

/*
 * Logging: one DPDK log type per component, named "ustack.<component>"
 * (--log-level='ustack.*:debug' turns them all on, --log-level=
 * ustack.tcp:debug one of them), each registered by its component with
 * RTE_LOG_REGISTER as ust_<component>_logtype and written through
 * UST_LOG_TO(), which prefixes the type's name. "ustack.drop" (lib/core)
 * logs every dropped packet with its counter's name at debug level; the
 * stack reads its level once at creation (stk->log_drops), so that a
 * drop costs one predicted branch when it is off.
 */
#define UST_LOG_TO(type, name, level, fmt, ...) \
	rte_log(RTE_LOG_##level, type, name ": " fmt "\n", ##__VA_ARGS__)
extern int ust_drop_logtype;

struct ust_sock;
struct ust_udp_sock;
struct rte_hash;

/*
 * Per-packet metadata in an mbuf dynamic field (24 bytes): queue linkage
 * (a socket queue or an ARP pending queue may hold chained mbufs, so m->next
 * is not available), the truesize charged for it, and either what receive
 * needs (the peer address; the hops between sibling stacks) or what
 * transmit needs (the owner whose send buffer holds it). A packet is one
 * or the other: every TX path writes its owner (a socket's, or
 * ust_meta_no_owner()) when it builds or takes the packet, after the RX
 * fields' last reader, so the two share their bytes, and the descriptor is
 * 32 bits wide (more than 65535 sockets).
 */
struct ust_mbuf_meta {
	struct rte_mbuf *nextpkt; /* next packet in a ust_pktq */
	uint32_t truesize;        /* RX: bytes charged to the socket */
	union {
		struct {
			rte_be32_t addr;    /* RX: IPv4 source address */
			rte_be16_t port;    /* RX: source port */
			uint16_t rx_src6;   /* RX, IPv6: the source address's
					     * offset from buf_addr (in its
					     * own header, in the headroom);
					     * 0: IPv4, @addr */
			uint32_t rx_hops;   /* RX, between sibling stacks
					     * (lib/group): stacks a segment
					     * whose owner is not known has
					     * been through */
		};
		struct {
			uint32_t frag_off;  /* RX, held for reassembly:
					     * payload offset in the datagram */
			uint32_t frag_len;  /* ... and payload bytes */
		};
		struct {
			uint32_t owner_sd;  /* TX: socket whose wmem holds
					     * it, or UST_OWNER_NONE */
			uint32_t owner_gen; /* TX: generation of that
					     * descriptor */
		};
	};
};

/* no owner; also one more than the largest descriptor ([stack]
 * max_sockets is below it) */
#define UST_OWNER_NONE UINT32_MAX

static inline struct ust_mbuf_meta *
ust_meta(int off, struct rte_mbuf *m)
{
	return RTE_MBUF_DYNFIELD(m, off, struct ust_mbuf_meta *);
}

/* A FIFO of packets linked through their metadata. */
struct ust_pktq {
	struct rte_mbuf *head;
	struct rte_mbuf *tail;
	uint32_t len;
};

static inline void
ust_pktq_init(struct ust_pktq *q)
{
	q->head = NULL;
	q->tail = NULL;
	q->len = 0;
}

static inline void
ust_pktq_push(int off, struct ust_pktq *q, struct rte_mbuf *m)
{
	ust_meta(off, m)->nextpkt = NULL;
	if (q->tail != NULL)
		ust_meta(off, q->tail)->nextpkt = m;
	else
		q->head = m;
	q->tail = m;
	q->len++;
}

static inline struct rte_mbuf *
ust_pktq_pop(int off, struct ust_pktq *q)
{
	struct rte_mbuf *m = q->head;

	if (m == NULL)
		return NULL;
	q->head = ust_meta(off, m)->nextpkt;
	if (q->head == NULL)
		q->tail = NULL;
	q->len--;
	return m;
}

/* Move all of @src to the end of @dst in O(1): the reader's splice. */
static inline void
ust_pktq_splice(int off, struct ust_pktq *dst, struct ust_pktq *src)
{
	if (src->head == NULL)
		return;
	if (dst->tail != NULL)
		ust_meta(off, dst->tail)->nextpkt = src->head;
	else
		dst->head = src->head;
	dst->tail = src->tail;
	dst->len += src->len;
	ust_pktq_init(src);
}

/*
 * truesize of a packet: the memory it pins, as Linux's skb->truesize is the
 * allocation behind an skb (head buffer + struct sk_buff + shared info +
 * page fragments). For an mbuf chain: for every segment, its buffer length
 * (headroom + data room) plus the struct rte_mbuf and its private area.
 * A default 2048-byte-data-room mbuf costs 2176 + 128 = 2304 bytes, whatever
 * the datagram size; a 64-byte datagram in Linux costs about 768 to 1280.
 */
static inline uint32_t
ust_truesize(const struct rte_mbuf *m)
{
	uint32_t per = (uint32_t)sizeof(struct rte_mbuf) +
		       rte_pktmbuf_priv_size(m->pool);
	uint32_t t = 0;

	do {
		t += per + m->buf_len;
		m = m->next;
	} while (m != NULL);
	return t;
}

/*
 * Owner of a staged frame, copied from its metadata when it is staged: the
 * driver may free a frame inside tx_burst, so nothing is read from an mbuf
 * once it has been handed over.
 */
struct ust_ip_reasm;
struct ust_ip6;

struct ust_tx_owner {
	uint32_t sd;
	uint32_t gen;
	uint32_t truesize;
	uint32_t len;      /* frame length, for the octet counters */
};

/* Mark a frame the stack builds for itself (ARP, ICMP): no owner. */
static inline void
ust_meta_no_owner(int off, struct rte_mbuf *m)
{
	ust_meta(off, m)->owner_sd = UST_OWNER_NONE;
}

/* ---- the neighbour caches: ARP's (lib/ip/arp.c), ND's (lib/ip/nd.c) ---- */

/* States of both (ND's DELAY only in ND's; lib/ip/neigh.c reads FREE,
 * INCOMPLETE and PERMANENT of either) */
enum ust_neigh_state {
	UST_NEIGH_FREE = 0,
	UST_NEIGH_INCOMPLETE, /* resolving; packets wait in pending */
	UST_NEIGH_REACHABLE,  /* confirmed within reachable_ms */
	UST_NEIGH_STALE,      /* usable; the next use starts a probe */
	UST_NEIGH_PROBE,      /* usable; unicast requests outstanding */
	UST_NEIGH_PERMANENT,  /* static: never probed, never aged */
	UST_NEIGH_DELAY,      /* ND: used while STALE, probes in 5 s */
};

enum ust_arp_state {
	UST_ARP_FREE = UST_NEIGH_FREE,
	UST_ARP_INCOMPLETE = UST_NEIGH_INCOMPLETE,
	UST_ARP_REACHABLE = UST_NEIGH_REACHABLE,
	UST_ARP_STALE = UST_NEIGH_STALE,
	UST_ARP_PROBE = UST_NEIGH_PROBE,
	UST_ARP_PERMANENT = UST_NEIGH_PERMANENT,
};

/* What an entry of either cache has besides its address, the part
 * lib/ip/neigh.c works on (each entry has it both as its own fields and
 * as @n, a union of the same layout) */
#define UST_NEIGH_FIELDS \
	uint8_t state;               /* enum ust_neigh_state */ \
	uint8_t probes; \
	uint8_t needed;              /* our output used (or created) it */ \
	uint8_t is_router;           /* ND: the neighbour says it routes */ \
	struct rte_ether_addr mac; \
	uint64_t confirmed; \
	uint64_t used;               /* last output use, or creation */ \
	uint64_t next_probe; \
	struct ust_pktq pending; \
	uint32_t next_free;

struct ust_neigh {
	UST_NEIGH_FIELDS
};

struct ust_arp_entry {
	rte_be32_t ip;
	union {
		struct {
			UST_NEIGH_FIELDS
		};
		struct ust_neigh n;
	};
};

struct ust_arp_table {
	struct rte_hash *h;          /* ip -> entry index */
	struct ust_arp_entry *e;
	uint32_t cap;
	uint32_t count;
	uint32_t free_head;
	uint32_t pending;            /* mbufs on all pending queues */
	uint32_t incomplete;         /* entries INCOMPLETE */
	uint64_t next_tick;
};

/* ---- the socket descriptor table, lib/sock ---- */

struct ust_sd_slot {
	struct ust_sock *s;
	uint32_t gen;
	uint32_t next_free;
};

/* An AF_INET6 socket's IPv6 addresses, beside the descriptor table (one
 * per slot, allocated with the stack's first AF_INET6 socket): kept out
 * of struct ust_sock, whose every byte a TCP connection's 14 cache lines
 * count (lib/tcp/tcp.c, TCP_BLOCK_MAX). */
struct ust_sd_addr6 {
	uint8_t local[16];
	uint8_t remote[16];
};

/* ---- sibling stacks (lib/group) ---- */

/*
 * What a group of sibling stacks (lib/group, above every layer) registers
 * on each of its stacks with ust_stack_set_siblings(); NULL on a lone stack.
 * The layers call these without knowing what a group is, as they reach
 * their upper layers through registered tables.
 */
struct ust_sibling_ops {
	/* frames siblings handed to this stack (Ethernet frames), at most
	 * @n; called by the poll */
	uint16_t (*rx)(struct ust_stack *stk, struct rte_mbuf **pkts,
		       uint16_t n);
	/* a TCP segment or UDP datagram (data at its IPv4 or IPv6 header,
	 * the Ethernet header right before) found no socket here: true when
	 * a sibling took it (or it was dropped as HANDOFF_FULL); false:
	 * handle it here. The sibling whose ephemeral
	 * slice holds local port @lport owns it; with @walk (a TCP segment
	 * that opens nothing), when no slice holds the port, it goes round
	 * the siblings in turn, since the connection may be any one's (a
	 * flow the port moved to another queue), and the last one answers */
	bool (*steer)(struct ust_stack *stk, struct rte_mbuf *m,
		      rte_be16_t lport, bool walk);
	/* an ICMP error (data at its IPv4 header) about a datagram we sent
	 * from local port @lport to (@raddr, @rport): true when a sibling
	 * owns that flow and took it (or it was dropped as HANDOFF_FULL) */
	bool (*steer_err)(struct ust_stack *stk, struct rte_mbuf *m,
			  rte_be16_t lport, rte_be32_t raddr,
			  rte_be16_t rport);
	/* an ARP frame, or an IPv6 NS, NA or RA (data at its Ethernet
	 * header), that teaches neighbours: copies go to the siblings; @m
	 * stays the caller's */
	void (*arp_copy)(struct ust_stack *stk, const struct rte_mbuf *m);
	/* whether a flow from local port @lport to (@raddr, @rport) is
	 * received on this stack's queue (ephemeral port choice) */
	bool (*port_ok)(const struct ust_stack *stk, rte_be16_t lport,
			rte_be32_t raddr, rte_be16_t rport);
};

/* Register a group's hooks (@ops and @ctx, kept in stk->sib and
 * stk->sib_ctx; NULL ops: none). The group gives each stack its slice of
 * the ephemeral ports in its configuration. */
void ust_stack_set_siblings(struct ust_stack *stk,
			    const struct ust_sibling_ops *ops, void *ctx);

/* ---- the stack instance ---- */

struct ust_sock_ops;
struct ust_ipv4_proto;
/* socket kinds (enum ust_sock_kind, sock_private.h) are below this */
#define UST_SK_KINDS 4

struct ust_stack {
	/* hot: read by every packet */
	struct ust_netif netif;
	rte_be32_t addr;
	rte_be32_t mask;
	rte_be32_t bcast;
	rte_be32_t gateway;
	int meta_off;
	uint16_t rx_burst;
	uint16_t tx_cap;
	uint16_t tx_n;
	uint16_t ip_id;
	bool log_drops;              /* "ustack.drop" at debug level */
	uint64_t now;
	struct rte_mempool *pool;
	uint32_t hit_ip;             /* last next hop resolved */
	uint32_t hit_idx;            /* ... and its ARP entry */
	unsigned int lcore;
	uint8_t ttl;
	bool accept_source_route;
	bool in_loop;                /* input is from loopq: src may be us */
	bool dying;                  /* being destroyed: nothing is sent */
	struct ust_sock *tx_waiters; /* sockets waiting for staging room */
	/* registered by lib/sock at init (core calls no layer above): a
	 * staged frame a socket owns has left or was dropped; staging room
	 * again for the sockets in tx_waiters */
	void (*tx_done)(struct ust_stack *stk, const struct ust_tx_owner *o);
	void (*tx_room)(struct ust_stack *stk);
	struct rte_mbuf **tx_pkts;   /* staging, tx_cap entries */
	struct ust_tx_owner *tx_own; /* ... and their owners, in parallel */
	struct ust_pktq loopq;       /* frames to ourselves, input next poll */

	/* counters: one writer (this lcore) */
	uint64_t mib[UST_MIB_MAX] __rte_cache_aligned;
	uint64_t drop[UST_DROP_MAX];
	uint64_t rx_consumed;

	/* UDP */
	struct rte_hash *udp_ports __rte_cache_aligned; /* port -> socket */
	struct ust_mem_pool *udp_mem;
	uint16_t eph_next;

	struct ust_tcp_stack *tcp;
	/* sibling stacks (lib/group): read once a poll and on the rare
	 * paths, so out of the per-packet lines above */
	const struct ust_sibling_ops *sib; /* NULL: a lone stack */
	void *sib_ctx;
	bool sib_in;                 /* input is a sibling's handoff: no
				      * steering, ARP copies learnt only */

	/* the pool's reserve for RX (see ust_reply_room()) */
	uint32_t pool_reserve;
	uint32_t pool_free;          /* estimate: free at the poll's start,
				      * less what replies took since */
	uint32_t poll_gen;           /* bumped by every poll and input */
	uint32_t pool_gen;           /* poll_gen when pool_free was read */

	/* ICMP error rate limit (token bucket) */
	uint64_t icmp_tokens_ns;     /* tokens, scaled: ns worth of credit */
	uint64_t icmp_last;

	struct ust_arp_table arp;
	/* IPv4 reassembly (lib/ip/frag.c): its table, and when its oldest
	 * datagram times out (UINT64_MAX: none held) */
	struct ust_ip_reasm *reasm;
	uint64_t reasm_next;
	/* IPv6 (lib/ip/ipv6.c, nd.c, icmp6.c): its addresses, neighbour
	 * cache, routers and protocol table; NULL with IPv6 off */
	struct ust_ip6 *ip6;

	/* descriptors; ctl_lock serialises socket creation and close with
	 * telemetry, which reads sockets from another thread */
	rte_spinlock_t ctl_lock;
	struct ust_sd_slot *sds;
	struct ust_sd_addr6 *sd_addr6;  /* NULL until an AF_INET6 socket */
	uint32_t sd_cap;
	uint32_t sd_free;
	uint32_t sd_used;
	/* what each socket kind does, registered by its protocol at init
	 * (ust_sock_register(), lib/sock/sock_private.h); indexed by kind */
	const struct ust_sock_ops *sk_ops[UST_SK_KINDS];
	/* IPv4's upper protocols, registered by them at init
	 * (ust_ipv4_register()); indexed by protocol number */
	const struct ust_ipv4_proto *ip_protos[256];

	struct ust_stack_conf conf;
	char name[32];
};

#define UST_SD_NONE UINT32_MAX
#define UST_MAX_BURST 64

/* ---- counting helpers ---- */

static inline void
ust_mib_inc(struct ust_stack *stk, enum ust_mib c)
{
	stk->mib[c]++;
}

static inline void
ust_mib_add(struct ust_stack *stk, enum ust_mib c, uint64_t v)
{
	stk->mib[c] += v;
}

/*
 * The reserve: replies that belong to no socket (ARP, ICMP echo replies and
 * errors, RSTs, SYN-ACKs) may take (allocate, or hold on an ARP queue) @n
 * mbufs only while the pool keeps pool_reserve free, so that a flood of
 * them can never take the mbufs RX needs to refill its ring.
 * rte_mempool_avail_count() walks every lcore's cache, so it is read at
 * most once per poll (the first reply of the poll), and the replies of the
 * poll are subtracted from that figure: an underestimate (mbufs freed
 * meanwhile are not added back), never an overestimate beyond what other
 * lcores take. Refusals are counted in Eth ReserveDenied.
 */
static inline bool
ust_reply_room(struct ust_stack *stk, uint32_t n)
{
	if (unlikely(stk->pool_gen != stk->poll_gen)) {
		stk->pool_gen = stk->poll_gen;
		stk->pool_free = rte_mempool_avail_count(stk->pool);
	}
	if (unlikely(stk->pool_free < stk->pool_reserve + n)) {
		stk->mib[UST_MIB_ETH_RESERVEDENIED]++;
		return false;
	}
	stk->pool_free -= n;
	return true;
}

/* An mbuf for a reply that belongs to no socket, or NULL (the reserve, or
 * an empty pool). */
static inline struct rte_mbuf *
ust_reply_alloc(struct ust_stack *stk)
{
	if (!ust_reply_room(stk, 1))
		return NULL;
	return rte_pktmbuf_alloc(stk->pool);
}

/* The "ustack.drop" debug line of a drop (lib/core/core.c). */
void ust_drop_log(const struct ust_stack *stk, enum ust_drop_reason r);

/* Free a packet that ends here without being consumed. */
static inline void
ust_drop(struct ust_stack *stk, struct rte_mbuf *m, enum ust_drop_reason r)
{
	stk->drop[r]++;
	if (unlikely(stk->log_drops))
		ust_drop_log(stk, r);
	rte_pktmbuf_free(m);
}

/* A received frame reached its end (handled or queued). */
static inline void
ust_consumed(struct ust_stack *stk)
{
	stk->rx_consumed++;
}

/* ---- mbuf helpers, lib/core/core.c ---- */

/*
 * Make the first @len bytes of @m (or all of it, if shorter) contiguous in
 * its first segment, as Linux's pskb_may_pull(); false when they cannot be.
 */
bool ust_mbuf_pull(struct rte_mbuf *m, uint32_t len);

/* Remove @len bytes from the front of @m, across segments (freeing whole
 * leading segments, whose successor becomes the head and inherits the
 * metadata). Returns the new head, or NULL when nothing is left (@m is
 * freed then). */
struct rte_mbuf *ust_mbuf_adj(int meta_off, struct rte_mbuf *m, uint32_t len);

/* Cut @m to @len bytes, across segments (rte_pktmbuf_trim() only trims
 * within the last one). */
void ust_mbuf_trim_to(struct rte_mbuf *m, uint32_t len);

/*
 * One's complement sum (folded to 16 bits, not complemented) of @len bytes
 * of @m from @off, across segments: the one chain checksum of the stack,
 * for RX verification and software TX checksums over chained mbufs.
 * Returns 0, or -1 when the bytes are not in @m. Not rte_raw_cksum_mbuf():
 * DPDK 22.11 truncates a piece's unreduced 32-bit sum to 16 bits before
 * swapping the bytes of a piece that starts at an odd offset, which gives
 * a wrong sum for chains with odd-length pieces (fixed in later releases).
 */
int ust_mbuf_raw_cksum(const struct rte_mbuf *m, uint32_t off, uint32_t len,
		       uint16_t *sum);

/* Whether the checksum of the @l4len-byte @proto (UDP, TCP) header and
 * payload of @m, from its IPv4 header's end, is right with @ip's
 * pseudo-header: the RX check of a datagram or segment whose bytes span
 * segments. */
bool ust_mbuf_l4_csum_ok(const struct rte_mbuf *m,
			 const struct ust_ipv4_repr *ip, uint8_t proto,
			 uint32_t l4len);

/* The same over IPv6: the @l4len bytes from @m's start (the IPv6 input
 * handlers' mbuf starts at the upper-layer header), with the pseudo-header
 * of @src, @dst (16 bytes each) and @proto (RFC 8200 8.1). */
bool ust_mbuf_l4_csum6_ok(const struct rte_mbuf *m, const uint8_t *src,
			  const uint8_t *dst, uint8_t proto, uint32_t l4len);

/* ---- TX staging, lib/core/core.c ---- */

/* Frames a send needs in the staging area: its datagram and an ARP probe
 * that may be staged before it. */
#define UST_TX_SEND_ROOM 2

/* Whether a send would find staging room now (no flush). */
static inline bool
ust_tx_send_room(const struct ust_stack *stk)
{
	return stk->tx_n + UST_TX_SEND_ROOM <= stk->tx_cap;
}

/* Room for @n more frames in the staging area (flushing if needed). */
bool ust_tx_room(struct ust_stack *stk, uint16_t n);

/* Stage a complete frame; drops (TX_STAGE_FULL) when there is no room. */
void ust_tx_stage(struct ust_stack *stk, struct rte_mbuf *m);

/* A TX frame leaves the TX path without reaching the driver (loopback):
 * give its owner's wmem back now. */
void ust_tx_release(struct ust_stack *stk, struct rte_mbuf *m);

/* Drop a TX frame that has metadata (its owner's wmem is given back). */
void ust_tx_drop(struct ust_stack *stk, struct rte_mbuf *m,
		 enum ust_drop_reason r);

/* A frame to our own address (data at its Ethernet header, checksums
 * settled): into the loopback queue, input at the next poll, bounded by
 * the staging size (TX_STAGE_FULL beyond); its owner's wmem is released
 * now, as it never reaches TX. IPv4's and IPv6's output call it. */
static inline void
ust_loop_enqueue(struct ust_stack *stk, struct rte_mbuf *m)
{
	if (stk->loopq.len >= stk->tx_cap) {
		ust_tx_drop(stk, m, UST_DROP_TX_STAGE_FULL);
		return;
	}
	ust_tx_release(stk, m);
	ust_pktq_push(stk->meta_off, &stk->loopq, m);
}

#endif /* UST_STACK_PRIVATE_H */
