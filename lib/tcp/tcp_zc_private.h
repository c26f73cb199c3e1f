/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Calls between the zero-copy registry (tcp_zc.c) and the rest of TCP:
 * segment building (tcp_tx.c) and the stack's life cycle.
 */

#ifndef UST_TCP_ZC_PRIVATE_H
#define UST_TCP_ZC_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

struct ust_stack;
struct ust_tcp_tx_stats;

/* the free callback of a zero-copy buffer's send-queue mbufs */
void ust_tcp_zc_rec_free(void *addr, void *opaque);

/* Whether @m is a piece of a zero-copy buffer (ust_send_zc()). */
static inline bool
ust_tcp_zc_is_zc(const struct rte_mbuf *m)
{
	return RTE_MBUF_HAS_EXTBUF(m) && m->shinfo->free_cb == ust_tcp_zc_rec_free;
}

int ust_tcp_zc_attach(struct ust_stack *stk, struct rte_mbuf *mi,
		      struct rte_mbuf *seg, uint32_t off, uint16_t k);
void ust_tcp_zc_stats(const struct ust_stack *stk, struct ust_tcp_tx_stats *st);
void ust_tcp_zc_fini(struct ust_stack *stk);

#endif /* UST_TCP_ZC_PRIVATE_H */
