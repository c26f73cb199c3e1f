/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Internals of the socket layer: the base struct every socket kind embeds,
 * the descriptor table and the event sets (epoll).
 */

#ifndef UST_SOCK_PRIVATE_H
#define UST_SOCK_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include "stack_private.h"
#include "ust_socket.h"

enum ust_sock_kind {
	UST_SK_UDP = 1,
	UST_SK_EPOLL = 2,
	UST_SK_TCP = 3,
	/* UST_SK_KINDS (stack_private.h) = the last + 1 */
};

#define UST_SKF_BOUND (1u << 0)
#define UST_SKF_CONNECTED (1u << 1)
#define UST_SKF_BROADCAST (1u << 2)
#define UST_SKF_REUSEADDR (1u << 3)
#define UST_SKF_SPLIT (1u << 4)
/* other stacks queue into it (ust_socket_attach()): locked as a split
 * socket, whatever UST_SKF_SPLIT says; stays set once set */
#define UST_SKF_SHARED (1u << 5)
/* SO_SNDBUF was set: the stack does not size the send buffer (Linux's
 * SOCK_SNDBUF_LOCK) */
#define UST_SKF_SNDBUF_LOCK (1u << 6)
/* SO_RCVBUF was set: no receive-buffer autotuning (SOCK_RCVBUF_LOCK) */
#define UST_SKF_RCVBUF_LOCK (1u << 7)

/* The family side of a socket (ust_sock.inet6). An AF_INET socket has none
 * of them; an AF_INET6 socket bound or connected to an IPv4-mapped address
 * keeps that address in laddr/raddr (its flow is IPv4) and has LOCAL6 or
 * REMOTE6 clear. */
#define UST_SK6_INET6 (1u << 0)   /* an AF_INET6 socket */
#define UST_SK6_V6ONLY (1u << 1)  /* IPV6_V6ONLY */
#define UST_SK6_LOCAL6 (1u << 2)  /* bound in IPv6: laddr6 (:: for any) */
#define UST_SK6_REMOTE6 (1u << 3) /* connected to an IPv6 peer: raddr6 */

struct ust_epoll;

/* What every socket starts with; read-mostly. (An AF_INET6 socket's IPv6
 * addresses: ust_sock_laddr6(), ust_sock_raddr6().) */
struct ust_sock {
	uint8_t kind;
	uint8_t flags;
	/* (the flags of the lists below, packed beside the kind) */
	bool ep_listed;            /* on its event set's ready list */
	bool ep_edge;              /* EPOLLET: a change not yet reported */
	bool tx_waiting;           /* on the TX-room waiters' list */
	uint8_t inet6;             /* UST_SK6_* */
	uint32_t sd;
	uint32_t gen;
	struct ust_stack *stk;
	int so_error;              /* positive errno, reported once */
	rte_be32_t laddr;
	rte_be32_t raddr;
	rte_be16_t lport;
	rte_be16_t rport;
	uint32_t sndbuf;
	uint32_t wmem_queued;      /* bytes staged in the stack for TX */
	/* membership of an event set */
	struct ust_epoll *ep;
	uint32_t ep_events;
	uint64_t ep_data;
	struct ust_sock *ep_next;
	struct ust_sock *ep_prev;
	/* waiting for room in the stack's TX staging area (EPOLLOUT) */
	struct ust_sock *tx_next;
	struct ust_sock *tx_prev;
};

/* An AF_INET6 socket's IPv6 addresses (UST_SK6_LOCAL6: the local one, ::
 * for any; UST_SK6_REMOTE6: the peer), in its owner's table beside the
 * descriptors (struct ust_sd_addr6); only AF_INET6 sockets have them. */
static inline uint8_t *
ust_sock_laddr6(const struct ust_sock *s)
{
	return s->stk->sd_addr6[s->sd].local;
}

static inline uint8_t *
ust_sock_raddr6(const struct ust_sock *s)
{
	return s->stk->sd_addr6[s->sd].remote;
}

/* A socket address as the protocols take it: socket.c converts the
 * caller's sockaddr_in or sockaddr_in6 to it. AF_INET is IPv4, from a
 * sockaddr_in or an IPv4-mapped sockaddr_in6 (@mapped); AF_INET6 is a
 * native IPv6 address; AF_UNSPEC (connect) dissolves an association. */
struct ust_saddr {
	sa_family_t family;
	bool mapped;
	rte_be16_t port;
	rte_be32_t v4;
	uint8_t v6[16];
	uint32_t scope_id;
};

/* @addr (@len bytes, the caller's) for socket @s of @type, to @bind to or
 * to reach (connect, send): -EFAULT, -EINVAL (too short; a mapped address
 * to bind on a V6ONLY socket), -EAFNOSUPPORT (AF_INET6 on an AF_INET
 * socket; AF_INET on an AF_INET6 one except to reach from a datagram
 * socket that is not V6ONLY), -ENETUNREACH (a mapped address to reach
 * from a V6ONLY socket): Linux's rules. */
int ust_saddr_from(const struct ust_sock *s, int type, bool bind,
		   const struct sockaddr *addr, socklen_t len,
		   struct ust_saddr *out);
/* @a as the socket's family writes it: sockaddr_in for AF_INET sockets,
 * sockaddr_in6 (IPv4 ones mapped) for AF_INET6; its length. */
socklen_t ust_saddr_to(const struct ust_sock *s, const struct ust_saddr *a,
		       union ust_sockaddr *out);
/* An IPv4 address and port as a ust_saddr. */
static inline void
ust_saddr_v4(struct ust_saddr *a, rte_be32_t addr, rte_be16_t port)
{
	a->family = AF_INET;
	a->mapped = false;
	a->port = port;
	a->v4 = addr;
	a->scope_id = 0;
}

/* An event set: the sockets that may be ready, in a list. */
struct ust_epoll {
	struct ust_sock base;
	struct ust_sock *head;
	struct ust_sock *tail;
	uint32_t members;
};

/*
 * What a socket kind does (FreeBSD's pr_usrreqs, Linux's proto_ops). A
 * protocol registers its table at init with ust_sock_register(); socket.c
 * checks the arguments every kind shares (descriptor, flags, pointers,
 * address family) and dispatches by the socket's kind, never naming a
 * protocol. A NULL member: the kind does not do that call (listen, accept
 * and send_zc: -EOPNOTSUPP; shutdown: -ENOTCONN, as Linux answers for an
 * unconnected UDP socket). Addresses are ust_saddr, converted from the
 * caller's (the burst calls' arrays are the caller's own: the protocol
 * converts each with ust_saddr_from()); @to and @from may be NULL.
 */
struct ust_sock_ops {
	int type;       /* SOCK_DGRAM, SOCK_STREAM */
	int protocol;   /* IPPROTO_UDP, IPPROTO_TCP */
	struct ust_sock *(*create)(struct ust_stack *stk);
	void (*close)(struct ust_stack *stk, struct ust_sock *s);
	int (*bind)(struct ust_stack *stk, struct ust_sock *s,
		    const struct ust_saddr *a);
	int (*connect)(struct ust_stack *stk, struct ust_sock *s,
		       const struct ust_saddr *a);
	int (*listen)(struct ust_stack *stk, struct ust_sock *s, int backlog);
	int (*accept)(struct ust_stack *stk, struct ust_sock *s,
		      struct ust_saddr *from);
	int (*shutdown)(struct ust_stack *stk, struct ust_sock *s, int how);
	ssize_t (*sendto)(struct ust_stack *stk, struct ust_sock *s,
			  const void *buf, size_t len, int flags,
			  const struct ust_saddr *to);
	ssize_t (*recvfrom)(struct ust_stack *stk, struct ust_sock *s,
			    void *buf, size_t len, int flags,
			    struct ust_saddr *from);
	int (*send_burst)(struct ust_stack *stk, struct ust_sock *s,
			  struct rte_mbuf **pkts, unsigned int n,
			  const union ust_sockaddr *to);
	int (*recv_burst)(struct ust_stack *stk, struct ust_sock *s,
			  struct rte_mbuf **pkts, unsigned int n,
			  union ust_sockaddr *from);
	ssize_t (*send_zc)(struct ust_stack *stk, struct ust_sock *s,
			   const void *buf, size_t len, uint64_t cookie);
	int (*setsockopt)(struct ust_sock *s, int level, int name,
			  const void *val, socklen_t len);
	int (*getsockopt)(struct ust_sock *s, int level, int name, void *val,
			  socklen_t *len);
	uint32_t (*events)(const struct ust_sock *s);
	/* @producer's port table gets a reference to @s, which another
	 * stack owns, and @producer's RX queues into it; and back
	 * (ust_socket_attach(), ust_socket_detach()). NULL: -EINVAL */
	int (*attach)(struct ust_stack *producer, struct ust_sock *s);
	int (*detach)(struct ust_stack *producer, struct ust_sock *s);
};

/* Register what sockets of @kind do (a protocol's init); 0 or -EINVAL. */
int ust_sock_register(struct ust_stack *stk, enum ust_sock_kind kind,
		      const struct ust_sock_ops *ops);

/* An int option value out (getsockopt): -EINVAL when *@len is short. */
int ust_sockopt_put_int(void *val, socklen_t *len, int v);

/* descriptor table, socket.c */
int ust_sd_alloc(struct ust_stack *stk, struct ust_sock *s);
void ust_sd_release(struct ust_stack *stk, struct ust_sock *s);
struct ust_sock *ust_sd_lookup(struct ust_stack *stk, int sd);

/* readiness of a socket now (UST_EPOLL*), by kind */
uint32_t ust_sock_events(const struct ust_sock *s);

/* the socket waits for TX staging room; woken by the next flush that
 * makes room (socket.c) */
void ust_sock_tx_wait(struct ust_sock *s);
void ust_sock_tx_unwait(struct ust_sock *s);

/* event sets, epoll.c */
void ust_sock_wakeup(struct ust_sock *s);
void ust_epoll_detach(struct ust_sock *s);
void ust_epoll_destroy(struct ust_epoll *ep);

/* ---- the table, for lib/stack ---- */

int ust_sock_table_init(struct ust_stack *stk);
void ust_sock_table_fini(struct ust_stack *stk);

/* Staging has room again: wake the sockets that waited for it. */
void ust_sock_tx_waiters_wake(struct ust_stack *stk);

/* The driver took (or the stack dropped) a frame of this owner. */
void ust_sock_tx_done(struct ust_stack *stk, const struct ust_tx_owner *o);

#endif /* UST_SOCK_PRIVATE_H */
