/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/**
 * @file
 * Socket memory accounting, after Linux's model for UDP receive memory.
 *
 * A stack instance has one memory pool per protocol, counted in 4096-byte
 * pages with three limits (Linux's udp_mem[min, pressure, max]). A socket
 * charges whole pages to its forward_alloc before it queues a packet, and
 * gives them back as the reader consumes packets. The per-socket half of
 * the model (rcvbuf, rmem_alloc, forward_alloc, forward_deficit) lives in
 * the socket (lib/udp); this file has the pool and the arithmetic both
 * halves share, written from the semantics of:
 *
 *  - 2023, "udp: fix memory schedule error" (charge only the missing delta):
 *    ust_mem_schedule_pages() with UST_MEM_SCHEDULE_DELTA; the pre-2023 rule
 *    is UST_MEM_SCHEDULE_LEGACY;
 *  - 2016, "udp: add batching to udp_rmem_release()" (release in batches of
 *    rcvbuf/4, at once when the reader's queue is empty):
 *    UST_MEM_RELEASE_BATCHED; UST_MEM_RELEASE_UNBATCHED releases each packet.
 *
 * Both switches are per pool and can be flipped at run time for A/B runs.
 */

#ifndef UST_MEM_H
#define UST_MEM_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Accounting unit: Linux's PAGE_SIZE (SK_MEM_QUANTUM before 2022). */
#define UST_MEM_PAGE_SIZE 4096u
#define UST_MEM_PAGE_SHIFT 12

/**
 * Floor of rcvbuf: twice the truesize of a default mbuf (2048 bytes of data
 * room + 128 of headroom + a 128-byte struct rte_mbuf), which happens to be
 * Linux's SOCK_MIN_RCVBUF (2 * (2048 + sizeof(struct sk_buff))) as well.
 */
#define UST_SOCK_MIN_RCVBUF 4608u
/** Floor of sndbuf, as UST_SOCK_MIN_RCVBUF. */
#define UST_SOCK_MIN_SNDBUF 4608u

/** How forward memory is scheduled before a packet is queued. */
enum ust_mem_schedule {
	/** since 2023: charge ceil((truesize - forward_alloc) / page) pages
	 *  when truesize > forward_alloc */
	UST_MEM_SCHEDULE_DELTA = 0,
	/** before 2023: charge ceil(truesize / page) pages when
	 *  truesize >= forward_alloc */
	UST_MEM_SCHEDULE_LEGACY = 1,
};

/** How the reader gives memory back. */
enum ust_mem_release {
	/** since 2016: accumulate forward_deficit; release when it reaches
	 *  rcvbuf/4 or when the reader's queue is empty */
	UST_MEM_RELEASE_BATCHED = 0,
	/** before 2016: release every packet as it is read */
	UST_MEM_RELEASE_UNBATCHED = 1,
};

/** Configuration of a protocol's memory pool and its sockets' defaults. */
struct ust_mem_conf {
	/** limits in pages: [0] min, [1] pressure, [2] max (udp_mem);
	 *  all 0 = derive from @p base_pages as Linux derives from free memory */
	uint64_t mem[3];
	/** pages the limits derive from when mem[] is 0 (the stack passes the
	 *  truesize of its whole mbuf pool, its analogue of free memory) */
	uint64_t base_pages;
	uint32_t rmem_min;     /**< udp_rmem_min, bytes (4096) */
	uint32_t rmem_default; /**< net.core.rmem_default (212992) */
	uint32_t rmem_max;     /**< net.core.rmem_max (212992) */
	uint32_t wmem_default; /**< net.core.wmem_default (212992) */
	uint32_t wmem_max;     /**< net.core.wmem_max (212992) */
	/** per-lcore reserve in pages before the shared counter is touched
	 *  (Linux's per-CPU forward alloc, 1 MB there); 0 = exact counter */
	uint32_t pcpu_reserve;
	enum ust_mem_schedule schedule;
	enum ust_mem_release release;
};

/** Linux's defaults; mem[] left 0 (derived). */
void ust_mem_conf_defaults(struct ust_mem_conf *conf);

struct ust_mem_pool;

/** A snapshot of a pool. Page counts are exact when no lcore is charging. */
struct ust_mem_pool_stats {
	uint64_t limit[3];        /**< min, pressure, max (pages) */
	int64_t pages;            /**< pages charged now */
	int64_t high_water;       /**< highest page count a granted charge saw */
	uint64_t charge_calls;    /**< successful charges */
	uint64_t pages_charged;
	uint64_t uncharge_calls;
	uint64_t pages_uncharged;
	uint64_t charge_failures; /**< refusals (the sockets count MemErrors) */
	uint64_t min_grants;      /**< charges above min granted because the
				   *  socket held less than rmem_min */
	uint64_t pressure_events; /**< charges that found the pool above
				   *  the pressure limit */
	enum ust_mem_schedule schedule;
	enum ust_mem_release release;
};

/** Create a pool. Returns NULL with rte_errno set on failure. */
struct ust_mem_pool *ust_mem_pool_create(const struct ust_mem_conf *conf,
					 int socket_id);

/** Free a pool. Its page count should be 0: a leak check for callers. */
void ust_mem_pool_free(struct ust_mem_pool *pool);

void ust_mem_pool_stats_get(const struct ust_mem_pool *pool,
			    struct ust_mem_pool_stats *st);

/** Pages charged now (exact when quiescent). */
int64_t ust_mem_pool_pages(const struct ust_mem_pool *pool);

/** The pool's configuration (limits resolved). */
const struct ust_mem_conf *ust_mem_pool_conf(const struct ust_mem_pool *pool);

/** Switch scheduling at run time (A/B runs). */
void ust_mem_pool_set_schedule(struct ust_mem_pool *pool,
			       enum ust_mem_schedule s);
/** Switch release batching at run time (A/B runs). */
void ust_mem_pool_set_release(struct ust_mem_pool *pool,
			      enum ust_mem_release r);
/** Change the limits at run time (pages). */
void ust_mem_pool_set_limits(struct ust_mem_pool *pool, const uint64_t mem[3]);

/**
 * Charge @p pages to the pool for a socket that holds @p rmem_alloc bytes,
 * with Linux's rules for UDP: granted while the total stays at or below
 * min; refused above max; in between granted only when rmem_alloc is below
 * rmem_min. Returns true when charged.
 */
bool ust_mem_pool_charge(struct ust_mem_pool *pool, uint32_t pages,
			 uint32_t rmem_alloc);

/** Give @p pages back to the pool. */
void ust_mem_pool_uncharge(struct ust_mem_pool *pool, uint32_t pages);

/* ---- the arithmetic of the model, pure, for sockets and tests ---- */

/** Whole pages covering @p bytes (Linux's sk_mem_pages()). */
static inline uint32_t
ust_mem_pages(uint64_t bytes)
{
	return (uint32_t)((bytes + UST_MEM_PAGE_SIZE - 1) >> UST_MEM_PAGE_SHIFT);
}

/**
 * Pages to charge before queueing a packet of @p size bytes of truesize into
 * a socket whose forward_alloc is @p fwd; 0 when forward_alloc covers it.
 * Seed 000's example: fwd 150000, size 150001 gives 1 page with DELTA and
 * 37 pages with LEGACY.
 */
static inline uint32_t
ust_mem_schedule_pages(enum ust_mem_schedule mode, uint32_t fwd, uint32_t size)
{
	if (mode == UST_MEM_SCHEDULE_DELTA)
		return size > fwd ? ust_mem_pages(size - fwd) : 0;
	return size >= fwd ? ust_mem_pages(size) : 0;
}

/**
 * Pages to give back when forward_alloc is @p fwd (after the released bytes
 * were added to it) and @p partial bytes are to be kept: everything beyond
 * partial, rounded down to whole pages. The reader keeps partial = 1 (up to
 * one page stays charged, so that the next packet rarely touches the pool);
 * close uses partial = 0 and gives everything back.
 */
static inline uint32_t
ust_mem_release_pages(uint32_t fwd, uint32_t partial)
{
	if (fwd <= partial)
		return 0;
	return (fwd - partial) >> UST_MEM_PAGE_SHIFT;
}

/**
 * rcvbuf for a requested SO_RCVBUF value, as Linux sets it: clamped to
 * rmem_max (unless @p force, SO_RCVBUFFORCE), doubled, floored at
 * UST_SOCK_MIN_RCVBUF.
 */
static inline uint32_t
ust_mem_rcvbuf_from_user(uint32_t req, uint32_t rmem_max, bool force)
{
	uint64_t v = req;

	if (!force && v > rmem_max)
		v = rmem_max;
	if (v > INT32_MAX / 2)
		v = INT32_MAX / 2;
	v *= 2;
	return v < UST_SOCK_MIN_RCVBUF ? UST_SOCK_MIN_RCVBUF : (uint32_t)v;
}

/** sndbuf for a requested SO_SNDBUF value, as ust_mem_rcvbuf_from_user(). */
static inline uint32_t
ust_mem_sndbuf_from_user(uint32_t req, uint32_t wmem_max, bool force)
{
	uint64_t v = req;

	if (!force && v > wmem_max)
		v = wmem_max;
	if (v > INT32_MAX / 2)
		v = INT32_MAX / 2;
	v *= 2;
	return v < UST_SOCK_MIN_SNDBUF ? UST_SOCK_MIN_SNDBUF : (uint32_t)v;
}

#ifdef __cplusplus
}
#endif

#endif /* UST_MEM_H */
