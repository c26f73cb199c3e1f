/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/**
 * @file
 * A capture stage: a netif (ust_netif.h) wrapped around another that
 * writes every frame it receives and every frame the inner netif takes
 * for transmission to a pcapng file, with DPDK's rte_pcapng (the format
 * dpdk-dumpcap writes; tcpdump and wireshark read it). For captures where
 * dpdk-dumpcap cannot attach (a process without hugepages has no
 * secondary processes); with hugepages dpdk-dumpcap needs no stage.
 *
 * One file for all of a process's stages: each stage copies a burst's
 * frames (up to snaplen bytes, timestamped) into the file's own mbuf pool
 * and writes them with one writev(), which the kernel keeps whole, so
 * stages on several lcores share the file. A write is a system call per
 * burst on the data path: a debugging stage, not for measurements. A frame
 * the copy pool cannot take is not captured and is counted (missed); the
 * traffic itself is never held or dropped by the stage.
 *
 * Usage: ust_capture_open() once, after the ports exist (the file names
 * them); for each queue, ust_capture_create(file, &inner_netif) and
 * ust_capture_netif() for the stack's netif; ust_capture_free() of each
 * stage after its stack is destroyed, then ust_capture_close().
 */

#ifndef UST_CAPTURE_H
#define UST_CAPTURE_H

#include <stdint.h>

#include "ust_netif.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ust_capture_file;
struct ust_capture;

/** What a stage wrote. */
struct ust_capture_stats {
	uint64_t rx;          /**< received frames written */
	uint64_t tx;          /**< transmitted frames written */
	uint64_t missed;      /**< frames not captured: no copy buffer */
	uint64_t write_errors; /**< bursts the file refused */
};

/**
 * Create (truncate) @p path and write the pcapng section header and one
 * interface block per ethdev port. @p snaplen: bytes kept of each frame,
 * at most 9216 (0: 9216, a jumbo frame whole). NULL with rte_errno set on
 * failure.
 */
struct ust_capture_file *ust_capture_open(const char *path,
					  uint32_t snaplen);

/** Close the file and free its pool (every stage freed first). */
void ust_capture_close(struct ust_capture_file *file);

/** A stage in front of @p inner, writing to @p file. NULL with rte_errno
 *  set on failure. */
struct ust_capture *ust_capture_create(struct ust_capture_file *file,
				       const struct ust_netif *inner);

/** The netif to give the stack: @p inner's, with the stage's ops. */
void ust_capture_netif(struct ust_capture *c, struct ust_netif *out);

void ust_capture_stats_get(const struct ust_capture *c,
			   struct ust_capture_stats *s);

void ust_capture_free(struct ust_capture *c);

#ifdef __cplusplus
}
#endif

#endif /* UST_CAPTURE_H */
