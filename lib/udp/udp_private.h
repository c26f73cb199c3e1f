/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * The UDP socket and its accounted receive queue.
 *
 * Cache-line layout, for the split deployment (one lcore produces, another
 * reads); in run-to-completion both sides are the same lcore and the lock
 * and atomics are skipped:
 *
 *  line 0  struct ust_sock: identity, addresses, flags. Read-mostly.
 *  line 1  producer: the queue lock, the producer's queue, forward_alloc,
 *          rcvbuf and the drop counters. Written by the RX lcore once per
 *          burst per socket (one lock round trip), read by the reader only
 *          when it splices the queue (once per batch) or releases memory
 *          (once per rcvbuf/4 bytes).
 *  line 2  rmem_alloc alone: the producer adds once per burst, the reader
 *          subtracts once per release. Keeping it apart means neither
 *          side's per-packet lines bounce when the other writes it: the
 *          false sharing that seed 001's batching removes.
 *  line 3  reader: its own queue, forward_deficit, forward_threshold
 *          (rcvbuf/4, as Linux keeps it in a hot line since 2022) and its
 *          counters. Touched per packet by the reader only.
 *
 * Shared (ust_socket_attach()): several stacks' lcores produce into the
 * one socket, each through line 1 under the lock, once per burst; the
 * stacks that do besides the owner are listed in @producers (control path
 * only, under the lock).
 */

#ifndef UST_UDP_PRIVATE_H
#define UST_UDP_PRIVATE_H

#include <rte_spinlock.h>

#include "ip_private.h"
#include "sock_private.h"

/* A stack other than the socket's own whose port table holds the socket
 * (ust_socket_attach()). */
struct ust_udp_producer {
	struct ust_udp_producer *next;
	struct ust_stack *stk;
};

struct ust_udp_sock {
	struct ust_sock base;

	/* producer side */
	rte_spinlock_t lock __rte_cache_aligned;
	int32_t forward_alloc;
	int32_t forward_alloc_hw;
	uint32_t rmem_alloc_hw;  /* highest rmem_alloc after an enqueue */
	uint32_t rcvbuf;
	struct ust_pktq prod_q;
	uint64_t enqueued;
	uint64_t rcvbuf_drops;
	uint64_t mem_drops;
	uint64_t deficit_drops;  /* rcvbuf drops that the unreleased deficit
				  * caused: lost to batching itself */

	/* shared counter */
	uint32_t rmem_alloc __rte_cache_aligned;

	/* reader side */
	struct ust_pktq reader_q __rte_cache_aligned;
	uint32_t forward_deficit;
	uint32_t forward_threshold;
	int meta_off;
	struct ust_mem_pool *mem;
	uint64_t delivered;
	uint64_t splices;
	uint64_t releases;
	unsigned int reader_lcore; /* split: the lcore that last read */

	/* control path: the other stacks that queue into it, under lock */
	struct ust_udp_producer *producers;
	uint8_t keys;            /* the port table's keys it holds (udp.c) */
};

struct ust_sock *ust_udp_create(struct ust_stack *stk);
void ust_udp_close(struct ust_stack *stk, struct ust_sock *s);
int ust_udp_bind(struct ust_stack *stk, struct ust_sock *s,
		 const struct ust_saddr *a);
int ust_udp_connect(struct ust_stack *stk, struct ust_sock *s,
		    const struct ust_saddr *a);
ssize_t ust_udp_sendto(struct ust_stack *stk, struct ust_sock *s,
		       const void *buf, size_t len,
		       const struct ust_saddr *to);
ssize_t ust_udp_recvfrom(struct ust_stack *stk, struct ust_sock *s,
			 void *buf, size_t len, int flags,
			 struct ust_saddr *from);
int ust_udp_recv_burst(struct ust_stack *stk, struct ust_sock *s,
		       struct rte_mbuf **pkts, unsigned int n,
		       union ust_sockaddr *from);
int ust_udp_send_burst(struct ust_stack *stk, struct ust_sock *s,
		       struct rte_mbuf **pkts, unsigned int n,
		       const union ust_sockaddr *to);
int ust_udp_setsockopt(struct ust_sock *s, int level, int name,
		       const void *val, socklen_t len);
int ust_udp_getsockopt(struct ust_sock *s, int level, int name, void *val,
		       socklen_t *len);
uint32_t ust_udp_events(const struct ust_sock *s);
/* A burst of UDP datagrams (data at the IPv4 header, reprs alongside):
 * UDP's IPv4 input, registered by ust_udp_init(). */
void ust_udp_input_burst(struct ust_stack *stk, struct rte_mbuf **pkts,
			 const struct ust_ipv4_repr *ips, uint16_t n);

/* An ICMP error about a datagram one of our sockets sent (the same). */
void ust_udp_icmp_error(struct ust_stack *stk, const struct ust_icmp_repr *ic);

/* The socket-ops table of UDP sockets, registered by ust_udp_init(). */
int ust_udp_sock_register(struct ust_stack *stk);

/* Fill @mi; @walk counts the queues by walking them (owner lcore only;
 * telemetry passes false and reads the counters alone). */
void ust_udp_meminfo(const struct ust_sock *s, struct ust_sock_meminfo *mi,
		     bool walk);

/* ---- for lib/stack ---- */

int ust_udp_init(struct ust_stack *stk);
void ust_udp_fini(struct ust_stack *stk);


/* "ustack.udp" (registered in udp.c; see UST_LOG_TO()) */
extern int ust_udp_logtype;
#define UDP_LOG(level, fmt, ...) \
	UST_LOG_TO(ust_udp_logtype, "ustack.udp", level, fmt, ##__VA_ARGS__)

#endif /* UST_UDP_PRIVATE_H */
