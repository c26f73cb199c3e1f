/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/**
 * @file
 * The ustack socket API.
 *
 * The calls mirror BSD sockets (same arguments, struct sockaddr_in and
 * struct sockaddr_in6, the errno values a socket programmer expects) with
 * two differences:
 *
 *  - every call takes the stack instance first, and a socket descriptor is
 *    an index in that instance's table, not a kernel file descriptor;
 *  - nothing blocks, and errors are returned as negative errno values
 *    (-EAGAIN, -EADDRINUSE...) rather than through errno, so no call
 *    touches thread-local storage or makes a system call.
 *
 * Readiness for many sockets at once: ust_epoll_create(), ust_epoll_ctl(),
 * ust_epoll_wait(), level-triggered or edge-triggered (UST_EPOLLET), O(ready
 * sockets) per wait.
 *
 * Zero copy: ust_recv_burst() hands out the received mbufs themselves,
 * trimmed to the UDP payload; ust_send_burst() takes mbufs holding a payload
 * and prepends the headers in their headroom.
 *
 * Threading: all calls run on the stack instance's lcore, except that a UDP
 * socket marked with UST_SO_SPLIT may be read (ust_recvfrom(),
 * ust_recv_burst()) from one other lcore: the split deployment, where one
 * lcore polls the port and another drains the socket; and that a UDP socket
 * may be fed by other stacks' lcores too (ust_socket_attach()).
 */

#ifndef UST_SOCKET_H
#define UST_SOCKET_H

#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rte_mbuf;
struct ust_stack;

/**
 * An address of either family, as the burst calls take arrays of them:
 * an AF_INET socket's are sockaddr_in, an AF_INET6 socket's sockaddr_in6
 * (IPv4 peers of a dual-stack socket as IPv4-mapped addresses,
 * ::ffff:a.b.c.d, as Linux reports them).
 */
union ust_sockaddr {
	struct sockaddr sa;
	struct sockaddr_in sin;
	struct sockaddr_in6 sin6;
};

/** Option level of ustack's own socket options. */
#define UST_SOL_USTACK 0x5553

/**
 * int, set before bind (-EINVAL after): the socket is read from another
 * lcore than the
 * stack's (split deployment). The producer then takes the socket's queue
 * lock once per RX burst and updates rmem_alloc atomically; the reader
 * splices the producer's queue once per batch. Not usable with epoll.
 */
#define UST_SO_SPLIT 1
/** get only, struct ust_sock_meminfo: the socket's memory accounting. */
#define UST_SO_MEMINFO 2

/** A socket's receive memory accounting, for observability and tests. */
struct ust_sock_meminfo {
	uint32_t rcvbuf;            /**< bytes of truesize the queue may hold */
	uint32_t rmem_alloc;        /**< truesize queued + forward_deficit */
	int32_t forward_alloc;      /**< bytes charged ahead of use */
	uint32_t forward_deficit;   /**< read but not yet released */
	uint32_t forward_threshold; /**< rcvbuf / 4 */
	uint32_t sndbuf;            /**< SO_SNDBUF in effect */
	uint32_t wmem_queued;       /**< bytes staged in the stack for TX */
	uint32_t queued;            /**< datagrams queued (both queues) */
	/** their truesize, summed over the queues; for a split socket asked
	 *  about off its reader's lcore, rmem_alloc - forward_deficit (the
	 *  reader's queue is not walked from another lcore) */
	uint32_t queued_truesize;
	uint64_t rcvbuf_drops;      /**< dropped: rcvbuf full */
	uint64_t mem_drops;         /**< dropped: pool refused */
	/** rcvbuf drops that would have fitted had the reader released its
	 *  forward_deficit: datagrams lost to release batching itself */
	uint64_t deficit_drops;
	uint64_t enqueued;          /**< datagrams queued */
	uint64_t delivered;         /**< datagrams read by the application */
	uint64_t splices;           /**< producer queue taken over by reader */
	uint64_t releases;          /**< batched releases performed */
	int32_t forward_alloc_hw;   /**< high-water mark of forward_alloc */
	uint32_t rmem_alloc_hw;     /**< high-water mark of rmem_alloc */
};

/** Create a socket: AF_INET or AF_INET6 with SOCK_DGRAM (UDP) or
 *  SOCK_STREAM (TCP, see ust_tcp.h). SOCK_NONBLOCK and SOCK_CLOEXEC are
 *  accepted and ignored: every socket is non-blocking. Returns sd >= 0.
 *
 *  AF_INET6 sockets are dual-stack as Linux's (net.ipv6.bindv6only 0):
 *  bound to :: they take IPv4 too, and IPv4 peers appear as IPv4-mapped
 *  addresses (::ffff:a.b.c.d), which they may also connect and send to;
 *  IPPROTO_IPV6 IPV6_V6ONLY (int, before bind: -EINVAL after) restricts
 *  them to IPv6 (a mapped address is then -EINVAL to bind, -ENETUNREACH
 *  to reach). TCP over IPv6: an AF_INET6 TCP socket connects to and
 *  accepts IPv6 peers, and IPv4 ones through mapped addresses; a listener
 *  on :: takes both families unless V6ONLY. Between sibling stacks
 *  (ust_group), IPv6 replies reach the connecting stack by handoff
 *  (doc/scale-out.md, "IPv6"). */
int ust_socket(struct ust_stack *stk, int domain, int type, int protocol);

/** TCP: listen for connections, at most @p backlog waiting in accept's
 *  queue (clamped to [1, [tcp] max_conns]). Binds an ephemeral port if
 *  unbound. */
int ust_listen(struct ust_stack *stk, int sd, int backlog);

/** TCP: take a connection from the accept queue; -EAGAIN when empty.
 *  @p addr (may be NULL) receives the peer's address. */
int ust_accept(struct ust_stack *stk, int sd, struct sockaddr *addr,
	       socklen_t *addrlen);

/** TCP: SHUT_RD, SHUT_WR or SHUT_RDWR (SHUT_WR sends FIN after the data
 *  queued). -ENOTCONN when not connected. */
int ust_shutdown(struct ust_stack *stk, int sd, int how);

/** Bind to a local address and port (port 0: an ephemeral port). */
int ust_bind(struct ust_stack *stk, int sd, const struct sockaddr *addr,
	     socklen_t addrlen);

/** UDP: set the default peer; datagrams from other peers are not
 *  delivered; AF_UNSPEC dissolves the association. TCP: open the
 *  connection; returns -EINPROGRESS, and UST_EPOLLOUT (connected) or
 *  UST_EPOLLERR with SO_ERROR (ECONNREFUSED, ETIMEDOUT...) tell the
 *  outcome. Both bind an ephemeral port if needed. */
int ust_connect(struct ust_stack *stk, int sd, const struct sockaddr *addr,
		socklen_t addrlen);

/**
 * Send a datagram. Returns @p len, or: -EAGAIN (TX staging full, or
 * sndbuf full: counted in Udp SndbufErrors), -ENOBUFS (no mbuf: SndbufErrors
 * too), -EMSGSIZE (larger than the path MTU allows: ustack does not
 * fragment), -ENETUNREACH (no route), -EDESTADDRREQ, -EISCONN,
 * -ECONNREFUSED (a pending ICMP error on a connected socket), -EACCES
 * (broadcast without SO_BROADCAST), -EINVAL, -EBADF, -ENOTSOCK.
 * flags: MSG_DONTWAIT and MSG_NOSIGNAL (always so); on TCP sockets also
 * MSG_MORE (hold a partial segment: more follows) and MSG_EOR (the write
 * ends a record: no segment crosses its end), doc/tcp.md; UDP refuses
 * those two with -EOPNOTSUPP, other flags get -EOPNOTSUPP everywhere.
 */
ssize_t ust_sendto(struct ust_stack *stk, int sd, const void *buf,
		   size_t len, int flags, const struct sockaddr *to,
		   socklen_t tolen);

/** ust_sendto() to the connected peer. */
ssize_t ust_send(struct ust_stack *stk, int sd, const void *buf, size_t len,
		 int flags);

/**
 * Receive a datagram. flags: MSG_PEEK, MSG_TRUNC (return the real length),
 * MSG_DONTWAIT (always implied). Returns the bytes copied, or -EAGAIN,
 * -ECONNREFUSED (pending ICMP error), -EBADF...
 */
ssize_t ust_recvfrom(struct ust_stack *stk, int sd, void *buf, size_t len,
		     int flags, struct sockaddr *from, socklen_t *fromlen);

/** ust_recvfrom() without the source address. */
ssize_t ust_recv(struct ust_stack *stk, int sd, void *buf, size_t len,
		 int flags);

/**
 * Zero-copy receive: up to @p n datagrams as mbufs whose data is the UDP
 * payload (the headers stay in the headroom). The caller owns them. @p from,
 * if not NULL, is an array of @p n addresses (union ust_sockaddr: the
 * socket's family). Returns the count (0 when nothing is queued) or a
 * negative errno.
 */
int ust_recv_burst(struct ust_stack *stk, int sd, struct rte_mbuf **pkts,
		   unsigned int n, union ust_sockaddr *from);

/**
 * Zero-copy send: each mbuf holds one datagram's payload and at least 42
 * bytes of headroom for IPv4, 62 for IPv6 (a received mbuf always has).
 * @p to is an array of @p n destinations (sockaddr_in, or sockaddr_in6 on
 * an AF_INET6 socket), or NULL for the connected peer. Returns how many the stack
 * took (it owns those; the caller keeps the rest), or a negative errno when
 * it took none.
 */
int ust_send_burst(struct ust_stack *stk, int sd, struct rte_mbuf **pkts,
		   unsigned int n, const union ust_sockaddr *to);

/** Close a socket; its queued datagrams are dropped (SOCKET_CLOSE) and its
 *  memory goes back to the pool. */
int ust_close(struct ust_stack *stk, int sd);

/**
 * One receive queue fed by several stacks (scale-out, lib/group): the bound
 * UDP socket @p sd of @p owner also receives the datagrams that
 * @p producer receives for the socket's port (and address, if it is bound
 * to one: it must then be @p producer's address too). @p producer's port
 * table gets a reference to the socket (a foreign entry, which it does not
 * own), and @p producer's RX path charges and queues into the socket's one
 * accounted receive queue directly, as the owner's does: under the
 * socket's queue lock, taken once per RX burst per socket; rmem_alloc
 * updated atomically; forward_alloc under the lock (Linux keeps it under
 * the receive queue's lock); pages charged to the socket's pool (@p owner's
 * UDP pool) through the producer lcore's own reserve. Every producer is
 * held to the same rcvbuf: together they can take rmem_alloc over rcvbuf
 * by one datagram at most, as a single producer can.
 *
 * Attaching makes the socket behave as a split socket (UST_SO_SPLIT: queue
 * lock and atomics on, readable from one other lcore, not usable with
 * epoll) whatever UST_SO_SPLIT says, and it stays so after detaching.
 *
 * Counters: the Udp InDatagrams, RcvbufErrors, MemErrors and InErrors of a
 * datagram, and its drop reason, count on the stack that received it; the
 * socket's own counters (UST_SO_MEMINFO: enqueued, rcvbuf_drops,
 * mem_drops...) sum over every producer, under the lock. Datagrams queued
 * stay queued and accounted until read or until the socket is closed
 * (SOCKET_CLOSE, counted on @p owner).
 *
 * Rules:
 *  - attach and detach at set-up and teardown, while neither stack is
 *    polled by another lcore; or, at run time, on @p producer's lcore while
 *    the socket is already split (UST_SO_SPLIT, or attached before) and its
 *    owner does not close it meanwhile;
 *  - closing the socket (on @p owner) removes it from every producer's port
 *    table: do it while no producer polls, or detach the producers first;
 *  - destroying a producer stack unlinks it from every socket it feeds;
 *    destroying the owner closes the socket; the stacks may be destroyed
 *    in any order, one at a time;
 *  - ICMP errors about the socket's datagrams reach it only through its
 *    owner.
 *
 * Returns 0; -EBADF (no such descriptor on @p owner); -EINVAL (not a UDP
 * socket, not bound, @p producer NULL or @p owner itself, bound to an
 * address @p producer does not have, or in an event set);
 * -EADDRINUSE (@p producer has a socket on that port, this one included);
 * -ENOMEM; -ENOBUFS (@p producer's port table is full).
 */
int ust_socket_attach(struct ust_stack *producer, struct ust_stack *owner,
		      int sd);

/**
 * Undo ust_socket_attach(): @p producer's port table drops its reference,
 * and its later datagrams for the port find no socket (Udp NoPorts, an
 * ICMP port unreachable). What it queued stays queued and accounted. Same
 * rules as ust_socket_attach(). Returns 0, -EBADF, -EINVAL, or -ENOENT
 * when @p producer does not feed the socket.
 */
int ust_socket_detach(struct ust_stack *producer, struct ust_stack *owner,
		      int sd);

/**
 * Options: SOL_SOCKET SO_RCVBUF, SO_RCVBUFFORCE, SO_SNDBUF, SO_SNDBUFFORCE
 * (int, as Linux: clamped, doubled, floored), SO_BROADCAST, SO_REUSEADDR
 * (int), SO_ERROR, SO_TYPE (get); IPPROTO_IPV6 IPV6_V6ONLY (int, AF_INET6
 * sockets, set before bind); UST_SOL_USTACK UST_SO_SPLIT (int),
 * UST_SO_MEMINFO (get). TCP sockets take more (IPPROTO_TCP, IPPROTO_IP:
 * ust_tcp.h).
 */
int ust_setsockopt(struct ust_stack *stk, int sd, int level, int optname,
		   const void *optval, socklen_t optlen);
int ust_getsockopt(struct ust_stack *stk, int sd, int level, int optname,
		   void *optval, socklen_t *optlen);

int ust_getsockname(struct ust_stack *stk, int sd, struct sockaddr *addr,
		    socklen_t *addrlen);
int ust_getpeername(struct ust_stack *stk, int sd, struct sockaddr *addr,
		    socklen_t *addrlen);

/* ---- readiness events ---- */

#define UST_EPOLLIN 0x001u   /**< readable (same value as EPOLLIN) */
#define UST_EPOLLOUT 0x004u  /**< writable (EPOLLOUT) */
#define UST_EPOLLERR 0x008u  /**< error pending (EPOLLERR), always reported */
#define UST_EPOLLHUP 0x010u  /**< TCP: both directions closed (EPOLLHUP),
			      *   always reported */
#define UST_EPOLLRDHUP 0x2000u /**< TCP: the peer sent FIN (EPOLLRDHUP) */
/** edge-triggered (EPOLLET): the socket is reported once per change
 *  (a segment or datagram in, send space back after a refused or short
 *  write, an error), whether or not the caller drained it */
#define UST_EPOLLET (1u << 31)
/** one report, then nothing until UST_EPOLL_CTL_MOD re-arms (EPOLLONESHOT) */
#define UST_EPOLLONESHOT (1u << 30)

#define UST_EPOLL_CTL_ADD 1
#define UST_EPOLL_CTL_DEL 2
#define UST_EPOLL_CTL_MOD 3

/** An event: the ready events and the caller's data, as struct epoll_event. */
struct ust_epoll_event {
	uint32_t events;
	uint64_t data;
};

/** Create an event set; returns a descriptor of the same table as sockets. */
int ust_epoll_create(struct ust_stack *stk);

/** Add, modify or remove @p sd in the set. A socket is in at most one set. */
int ust_epoll_ctl(struct ust_stack *stk, int epd, int op, int sd,
		  const struct ust_epoll_event *ev);

/** Fill up to @p max ready events; returns their count (0: none ready). */
int ust_epoll_wait(struct ust_stack *stk, int epd,
		   struct ust_epoll_event *events, int max);

#ifdef __cplusplus
}
#endif

#endif /* UST_SOCKET_H */
