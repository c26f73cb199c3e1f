/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/**
 * @file
 * TX mbuf layouts of TCP data segments, their counters, and zero-copy
 * sends from application memory with per-send DMA mapping
 * (doc/tx-layout.md).
 *
 * A layout says how a segment that carries data is put in mbufs:
 *  - UST_TCP_TX_LINEAR: headers and payload copied into one mbuf;
 *  - UST_TCP_TX_CHAINED: headers in one mbuf, the payload attached
 *    (rte_pktmbuf_attach(), no copy) from the send queue's buffers: two or
 *    more segments per packet, as Linux puts payload in page fragments;
 *  - UST_TCP_TX_FIRST_LINEAR: linear when the segment is built while the
 *    write queue was empty (nothing unsent, nothing unacknowledged) and its
 *    payload is at most first_linear_max bytes; chained otherwise (the
 *    rule of the 2022 RFC "tcp: allow linear skb payload for first in
 *    queue").
 * Independently, copy_small N (0 = off, 128, 256...) copies any packet
 * whose whole frame (Ethernet header included) is at most N bytes into one
 * buffer of a small pool created at start-up (the driver-side "pre-mapped
 * zone" of the same thread): pure ACKs and tiny segments take one small
 * buffer and hold no reference on the send queue.
 *
 * The stack's configuration (struct ust_tcp_conf: tx_layout,
 * first_linear_max, copy_small) sets the default; a socket overrides it
 * with ust_setsockopt(UST_SOL_USTACK, UST_TCP_TX_LAYOUT / UST_TCP_COPY_SMALL,
 * int). Chained layouts need a NIC that transmits chained mbufs: refused
 * with EOPNOTSUPP otherwise.
 *
 * Zero copy: ust_zc_register() registers application memory once
 * (rte_extmem_register()); ust_send_zc() queues a buffer from it without a
 * copy, each transmitted segment attaching the buffer as an external
 * buffer. With UST_ZC_MAP_PER_SEND every segment's payload pages are mapped
 * for DMA (through the DMA mapper the application installed with
 * ust_stack_set_dma_mapper(); for an ethdev port, drivers/port's
 * ust_port_dma_mapper(): rte_dev_dma_map() on the port's device) before
 * transmit and unmapped in the external buffer's free callback once the
 * NIC is done, the kernel's streaming DMA model; with UST_ZC_MAP_ONCE the
 * whole area is mapped at registration. A buffer belongs to the stack
 * until ust_zc_completions() reports its cookie: after it is acknowledged
 * and every transmitted copy is freed. Without an installed mapper
 * registration fails with ENOTSUP (ust_zc_check(): "no DMA mapper
 * installed: ..."); a port whose device cannot map (net_tap, net_memif,
 * net_ring, net_af_packet: the vdev bus, whose rte_dev_dma_map() succeeds
 * and maps nothing), or IOVA as PA, has no mapper to install
 * (ust_port_dma_mapper() says why): zero copy is refused, never faked.
 */

#ifndef UST_TCP_TX_H
#define UST_TCP_TX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ust_stack;

/** TX layout of TCP data segments (struct ust_tcp_conf tx_layout). */
enum ust_tcp_tx_layout {
	UST_TCP_TX_LINEAR = 0,
	UST_TCP_TX_CHAINED = 1,
	UST_TCP_TX_FIRST_LINEAR = 2,
};

/** Name of a layout ("linear", "chained", "first-linear"), NULL if none. */
const char *ust_tcp_tx_layout_name(unsigned int layout);

/** Layout from its name; -1 if unknown. */
int ust_tcp_tx_layout_parse(const char *name);

/** Largest TCP/IP/Ethernet header a data segment can have: Ethernet 14,
 *  IPv4 20, TCP 60. The default first_linear_max is 2048 minus it. */
#define UST_TCP_TX_MAX_HDR 94u

/** Frames at most this long may be copied whole (copy_small). */
#define UST_TCP_COPY_SMALL_MAX 512u

/** Level UST_SOL_USTACK, int: the socket's layout (enum
 *  ust_tcp_tx_layout), set and get. */
#define UST_TCP_TX_LAYOUT 17
/** Level UST_SOL_USTACK, int: the socket's copy-small limit in bytes of
 *  frame (0: off; at most the stack's copy_small, which sizes the pool). */
#define UST_TCP_COPY_SMALL 18

/** Buckets of the cycle histograms: bucket i counts calls that took
 *  [2^i, 2^(i+1)) TSC cycles (the last one: all above). */
#define UST_TX_HIST_BUCKETS 24

/** TX layout counters, per stack (the port queue it drives) and, the
 *  packet ones, per socket (struct ust_tcp_info). */
struct ust_tcp_tx_stats {
	uint64_t pkts;          /**< TCP packets built */
	uint64_t segs;          /**< mbuf segments of those packets */
	uint64_t pages;         /**< distinct 4 KiB pages they reference */
	uint64_t data_pkts;     /**< of which carry payload */
	uint64_t payload_bytes; /**< payload bytes sent */
	uint64_t copied_bytes;  /**< bytes copied to build packets (payload
				 *  copied into linear or small buffers, and
				 *  whole copy-small frames) */
	uint64_t linear_pkts;   /**< data packets built linear */
	uint64_t chained_pkts;  /**< data packets built chained */
	uint64_t small_pkts;    /**< packets copied into the small pool */
	uint64_t small_fallback; /**< small pool empty: built as usual */
	uint64_t zc_pkts;       /**< data packets with zero-copy payload */
	uint64_t zc_sends;      /**< ust_send_zc() buffers queued */
	uint64_t zc_completions; /**< of which completed */
	uint64_t dma_maps;      /**< mapper map calls */
	uint64_t dma_unmaps;    /**< mapper unmap calls */
	uint64_t dma_map_fail;  /**< map calls that failed (segment not sent) */
	uint64_t dma_map_cycles;   /**< TSC cycles spent in map calls */
	uint64_t dma_unmap_cycles; /**< ... in unmap calls */
	uint64_t map_hist[UST_TX_HIST_BUCKETS];   /**< cycles per map */
	uint64_t unmap_hist[UST_TX_HIST_BUCKETS]; /**< cycles per unmap */
};

/** Copy the stack's TX layout counters. */
void ust_stack_tcp_tx_stats(const struct ust_stack *stk,
			    struct ust_tcp_tx_stats *st);

/**
 * How payload memory is mapped for DMA. The stack has none of its own: the
 * application installs one, for an ethdev port the port's
 * (ust_port_dma_mapper() of drivers/port calls rte_dev_dma_map()/
 * rte_dev_dma_unmap() on the port's device); tests and applications with
 * their own IOMMU handling install another. Both return 0 or a negative
 * errno.
 */
struct ust_dma_mapper {
	const char *name;
	int (*map)(void *ctx, void *va, uint64_t iova, size_t len);
	int (*unmap)(void *ctx, void *va, uint64_t iova, size_t len);
	void *ctx;
};

/** Install @p m (copied) as the stack's mapper; NULL removes it (zero copy
 *  is then refused). Only while no area is registered (-EBUSY); -EINVAL
 *  without both ops. */
int ust_stack_set_dma_mapper(struct ust_stack *stk,
			     const struct ust_dma_mapper *m);

/**
 * Whether ust_zc_register() can map on this stack: 0 when a mapper is
 * installed, else -ENOTSUP with the reason in @p why ("no DMA mapper
 * installed: ..."). Why a port has no mapper to install (e.g. "net_memif is
 * on the vdev bus, which maps nothing for DMA", "IOVA as PA...") is
 * ust_port_dma_mapper()'s to say.
 */
int ust_zc_check(struct ust_stack *stk, char *why, size_t n);

/** When zero-copy payload is mapped. */
enum ust_zc_map_mode {
	UST_ZC_MAP_PER_SEND = 0, /**< each segment's pages, before transmit,
				  *  unmapped after its completion */
	UST_ZC_MAP_ONCE = 1,     /**< the whole area at registration */
};

/**
 * Register @p len bytes at @p addr (page-aligned, @p page_sz pages, e.g.
 * from mmap() or rte_malloc()) for ust_send_zc(). The IOVA of the memory
 * is its virtual address (IOVA as VA, as with vfio and mlx5). Returns 0,
 * -EINVAL, -ENOTSUP (no mapper installed, or the mapper cannot map: the
 * probe map failed with EINVAL or ENODEV), another error of the mapper,
 * -ENOSPC (no registration slot), or the error of rte_extmem_register().
 */
int ust_zc_register(struct ust_stack *stk, void *addr, size_t len,
		    size_t page_sz, enum ust_zc_map_mode mode);

/** Unregister an area: -EBUSY while a buffer from it is not completed. */
int ust_zc_unregister(struct ust_stack *stk, void *addr);

/**
 * Queue @p len bytes at @p buf (inside a registered area) on TCP socket
 * @p sd without copying them. All or nothing: returns len, -EAGAIN (send
 * buffer full), -EFAULT (not in a registered area), -ENOBUFS, or what
 * ust_send() returns for the socket's state. The buffer must not change
 * until ust_zc_completions() reports @p cookie.
 */
ssize_t ust_send_zc(struct ust_stack *stk, int sd, const void *buf,
		    size_t len, uint64_t cookie);

/** A zero-copy buffer the stack is done with. */
struct ust_zc_done {
	int sd;            /**< the socket it was sent on (maybe closed) */
	uint64_t cookie;   /**< as passed to ust_send_zc() */
};

/** Take up to @p n completions, oldest first; returns how many. */
unsigned int ust_zc_completions(struct ust_stack *stk,
				struct ust_zc_done *out, unsigned int n);

#ifdef __cplusplus
}
#endif

#endif /* UST_TCP_TX_H */
