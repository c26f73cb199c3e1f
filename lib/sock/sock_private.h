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
};

#define UST_SKF_BOUND (1u << 0)
#define UST_SKF_CONNECTED (1u << 1)
#define UST_SKF_BROADCAST (1u << 2)
#define UST_SKF_REUSEADDR (1u << 3)
#define UST_SKF_SPLIT (1u << 4)

struct ust_epoll;

/* What every socket starts with; read-mostly, one cache line. */
struct ust_sock {
	uint8_t kind;
	uint8_t flags;
	uint16_t sd;
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
	bool ep_listed;
	uint64_t ep_data;
	struct ust_sock *ep_next;
	struct ust_sock *ep_prev;
	/* waiting for room in the stack's TX staging area (EPOLLOUT) */
	bool tx_waiting;
	struct ust_sock *tx_next;
	struct ust_sock *tx_prev;
};

/* An event set: the sockets that may be ready, in a list. */
struct ust_epoll {
	struct ust_sock base;
	struct ust_sock *head;
	struct ust_sock *tail;
	uint32_t members;
};

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

#endif /* UST_SOCK_PRIVATE_H */
