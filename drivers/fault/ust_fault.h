/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/**
 * @file
 * A seeded fault-injection stage: a netif (ust_netif.h) wrapped around
 * another, that drops, duplicates, reorders and corrupts the frames the
 * stack receives, as a lossy wire in front of it would. Deterministic for a
 * given seed and frame sequence, so that a failing run can be replayed.
 *
 * Faults apply on the receive side only: a frame that is dropped, doubled
 * or delayed on its way in is what any of these faults on the wire looks
 * like to the receiver; two ustack instances each behind a stage make a
 * lossy wire in both directions. Transmit passes straight through.
 *
 *  - drop: the frame is freed, never seen by the stack;
 *  - duplicate: a deep copy (rte_pktmbuf_copy()) follows the frame;
 *  - reorder: the frame is held back for 1 to depth receive bursts, so
 *    that later frames overtake it;
 *  - corrupt: one random bit past the Ethernet header flips, and the
 *    frame's RX checksum flags are cleared so that the stack verifies it
 *    in software (a corrupted frame must be caught by a checksum, as on a
 *    real wire, never accepted).
 *
 * Usage: ust_fault_create(&conf, &inner_netif, pool), then pass the netif
 * from ust_fault_netif() to the stack in place of the inner one;
 * ust_fault_free() after the stack is destroyed.
 */

#ifndef UST_FAULT_H
#define UST_FAULT_H

#include <stddef.h>
#include <stdint.h>

#include "ust_netif.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rte_mempool;

/** Probabilities are in parts per million of received frames. */
struct ust_fault_conf {
	uint64_t seed;         /**< PRNG seed (1) */
	uint32_t drop_ppm;
	uint32_t dup_ppm;
	uint32_t reorder_ppm;
	uint32_t corrupt_ppm;
	uint16_t reorder_depth; /**< bursts a reordered frame waits, 1..depth
				 *   (3) */
};

/** What a stage did. */
struct ust_fault_stats {
	uint64_t frames;      /**< received from the inner netif */
	uint64_t dropped;
	uint64_t duplicated;
	uint64_t reordered;
	uint64_t corrupted;
	uint64_t overflow;    /**< dropped: the stage's queue was full */
};

struct ust_fault;

/** Fill @p c with the defaults (no faults, seed 1, depth 3). */
void ust_fault_conf_defaults(struct ust_fault_conf *c);

/**
 * Parse "drop=10%,dup=1%,reorder=5%,corrupt=0.1%,depth=3,seed=7" (any
 * subset, any order; a percentage with up to 4 decimals, or "ppm" units:
 * "drop=250ppm") into @p c, on top of what it holds. Returns 0, or -1 with
 * a one-line reason in @p err (of @p errlen bytes).
 */
int ust_fault_parse(const char *spec, struct ust_fault_conf *c, char *err,
		    size_t errlen);

/** A stage in front of @p inner; @p mp supplies the duplicates' mbufs.
 *  NULL with rte_errno set on failure. */
struct ust_fault *ust_fault_create(const struct ust_fault_conf *c,
				   const struct ust_netif *inner,
				   struct rte_mempool *mp);

/** The netif to give the stack: @p inner's, with the stage's ops. */
void ust_fault_netif(struct ust_fault *f, struct ust_netif *out);

void ust_fault_stats_get(const struct ust_fault *f, struct ust_fault_stats *s);

/** Free the stage and the frames it holds back. */
void ust_fault_free(struct ust_fault *f);

#ifdef __cplusplus
}
#endif

#endif /* UST_FAULT_H */
