/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * TX layouts of TCP segments and zero-copy sends (ust_tcp_tx.h,
 * doc/tx-layout.md).
 *
 * ust_tcp_seg_build() is called by ust_tcp_send_segment() (tcp_output.c) for every
 * segment a connection sends, with the header to emit and the payload's
 * place in the send queue; it decides the mbuf layout, in this order:
 *
 *  1. copy-small: the whole frame fits the socket's copy_small limit and
 *     the small pool has a buffer: headers and payload written into one
 *     small buffer (pure ACKs included);
 *  2. linear: the socket's layout is linear, or first-linear and the
 *     payload lies inside the first-linear range ust_tcp_tx_note_write()
 *     recorded, or the segment has no payload, or it would need more than
 *     UST_TCP_TX_MAX_SEGS mbufs: headers and payload copied into one mbuf;
 *  3. chained: headers in one mbuf, then one mbuf per piece of send-queue
 *     buffer the payload lies in, attached with rte_pktmbuf_attach() (the
 *     buffer's reference count keeps it until the NIC is done, whatever the
 *     ACKs do meanwhile); zero-copy payload (ust_send_zc()) is always
 *     attached this way, as an external buffer with a per-segment shared
 *     info whose free callback unmaps what was mapped for the segment.
 *
 * Every built packet is counted once (tcp_tx_account()): packets, mbuf
 * segments, distinct 4 KiB pages, bytes copied, per stack and per socket.
 *
 * Zero copy: ust_zc_register() records an area (rte_extmem_register(), and
 * with UST_ZC_MAP_ONCE one map of all of it); ust_send_zc() queues mbufs
 * that attach the application's buffer as external buffers sharing one
 * record (struct tcp_zc_rec), whose reference count is the send-queue
 * mbufs plus the transmitted segments still held by the NIC; the record's
 * completion (the cookie in the completion FIFO) comes when it drops to
 * zero. Per-send mapping keeps a count per 4 KiB unit of the area: a unit
 * is mapped when the first segment in flight needs it and unmapped when the
 * last one is freed (VFIO refuses a second map of an IOVA range already
 * mapped, so two segments in flight on one page share its mapping).
 *
 * The zero-copy state (struct tcp_zc) holds what the free callbacks touch,
 * and nothing of the stack: the NIC may free a segment after the stack is
 * destroyed; the state then outlives the stack until its last buffer
 * completes.
 */

#include <errno.h>
#include <string.h>

#include <rte_bus.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_memory.h>

#include "tcp_private.h"

#define ZC_UNIT_SHIFT 12
#define ZC_UNIT (1u << ZC_UNIT_SHIFT)
#define ZC_MAX_AREAS 8
#define ZC_MAX_RECS 16384u     /* buffers not completed, per stack */
#define ZC_SPLIT 32768u        /* bytes per send-queue mbuf (buf_len is
				* 16 bits) */
#define FRAME_HDRS (RTE_ETHER_HDR_LEN + (uint32_t)sizeof(struct rte_ipv4_hdr))
/* mbufs per packet at most: beyond, the packet is built linear (Linux's
 * MAX_SKB_FRAGS is 17; NICs take 8 to 40 descriptors per packet) */
#define UST_TCP_TX_MAX_SEGS 16

struct tcp_zc;

/* A registered area. */
struct tcp_zc_area {
	uint8_t *va;
	size_t len;
	size_t page_sz;
	uint8_t mode;           /* enum ust_zc_map_mode */
	uint32_t outstanding;   /* its buffers not completed */
	uint16_t *unit_refs;    /* per 4 KiB: segments in flight on it */
};

/* One ust_send_zc() buffer. */
struct tcp_zc_rec {
	/* refcnt: send-queue mbufs + transmitted segments held by the NIC */
	struct rte_mbuf_ext_shared_info shinfo;
	struct tcp_zc *zc;
	struct tcp_zc_area *area;
	uint64_t cookie;
	int sd;
	struct tcp_zc_rec *next_free;
};

/* One transmitted segment's payload, kept in its mbuf's own buffer (unused
 * while an external buffer is attached). */
struct tcp_zc_seg {
	struct rte_mbuf_ext_shared_info shinfo;
	struct tcp_zc_rec *rec;
	uint32_t unit;          /* first 4 KiB unit mapped for it */
	uint32_t n_units;       /* 0: nothing mapped for it */
};

struct tcp_zc {
	struct tcp_zc_area areas[ZC_MAX_AREAS];
	unsigned int n_areas;
	struct ust_dma_mapper mapper;
	struct tcp_zc_rec *recs;
	struct tcp_zc_rec *free_recs;
	uint32_t outstanding;
	bool orphan;            /* the stack is gone: free at the last one */
	struct ust_zc_done *done;  /* FIFO of ZC_MAX_RECS */
	uint32_t done_head;
	uint32_t done_tail;
	/* counters the free callbacks update (merged into the stack's) */
	uint64_t completions;
	uint64_t unmaps;
	uint64_t unmap_cycles;
	uint64_t unmap_hist[UST_TX_HIST_BUCKETS];
};

static const char *const layout_names[] = {
	[UST_TCP_TX_LINEAR] = "linear",
	[UST_TCP_TX_CHAINED] = "chained",
	[UST_TCP_TX_FIRST_LINEAR] = "first-linear",
};

const char *
ust_tcp_tx_layout_name(unsigned int layout)
{
	return layout < RTE_DIM(layout_names) ? layout_names[layout] : NULL;
}

int
ust_tcp_tx_layout_parse(const char *name)
{
	unsigned int i;

	for (i = 0; name != NULL && i < RTE_DIM(layout_names); i++)
		if (strcmp(name, layout_names[i]) == 0)
			return (int)i;
	return -1;
}

static inline unsigned int
hist_bucket(uint64_t cycles)
{
	unsigned int b = cycles == 0 ? 0 : 63u - (unsigned int)__builtin_clzll(cycles);

	return b < UST_TX_HIST_BUCKETS ? b : UST_TX_HIST_BUCKETS - 1;
}

/* ---- set-up ---- */

int
ust_tcp_tx_layout_check(struct ust_stack *stk, unsigned int layout)
{
	if (layout > UST_TCP_TX_FIRST_LINEAR)
		return -EINVAL;
	if (layout != UST_TCP_TX_LINEAR &&
	    !(stk->netif.flags & UST_NETIF_F_TX_MULTI_SEGS))
		return -EOPNOTSUPP;
	return 0;
}

int
ust_tcp_tx_small_pool(struct ust_stack *stk)
{
	struct ust_tcp_stack *ts = stk->tcp;
	char name[RTE_MEMPOOL_NAMESIZE];

	if (ts->small_pool != NULL)
		return 0;
	/* made once, before any packet uses it: its memory is mapped for
	 * DMA with the rest of DPDK's (the "pre-mapped zone"); the buffer
	 * holds the largest copy_small frame, starting at its Ethernet
	 * header */
	snprintf(name, sizeof(name), "ust_cs_%" PRIxPTR,
		 (uintptr_t)stk & 0xffffffffffu);
	ts->small_pool = rte_pktmbuf_pool_create(name,
			stk->conf.tcp.copy_small_bufs,
			RTE_MIN(256u, stk->conf.tcp.copy_small_bufs / 8), 0,
			UST_TCP_COPY_SMALL_MAX, stk->conf.socket_id);
	return ts->small_pool != NULL ? 0 : -ENOMEM;
}

int
ust_tcp_tx_init(struct ust_stack *stk)
{
	const struct ust_tcp_conf *c = &stk->conf.tcp;
	int rc;

	rc = ust_tcp_tx_layout_check(stk, c->tx_layout);
	if (rc != 0) {
		UST_LOG(ERR, "%s: tx_layout %s: %s", stk->name,
			ust_tcp_tx_layout_name(c->tx_layout) ?
			ust_tcp_tx_layout_name(c->tx_layout) : "?",
			rc == -EOPNOTSUPP ? "the port does not transmit "
			"chained mbufs" : "unknown");
		return -EINVAL;
	}
	if (c->copy_small > UST_TCP_COPY_SMALL_MAX)
		return -EINVAL;
	if (c->copy_small > 0)
		return ust_tcp_tx_small_pool(stk);
	return 0;
}

static void
zc_free_state(struct tcp_zc *zc)
{
	unsigned int i;

	for (i = 0; i < zc->n_areas; i++)
		rte_free(zc->areas[i].unit_refs);
	rte_free(zc->recs);
	rte_free(zc->done);
	rte_free(zc);
}

static void zc_area_release(struct tcp_zc *zc, struct tcp_zc_area *a);

void
ust_tcp_tx_fini(struct ust_stack *stk)
{
	struct ust_tcp_stack *ts = stk->tcp;
	struct tcp_zc *zc = ts->zc;

	rte_mempool_free(ts->small_pool);
	ts->small_pool = NULL;
	ts->zc = NULL;
	if (zc == NULL)
		return;
	if (zc->outstanding > 0) {
		/* the NIC still holds some: the state stays (and the areas
		 * registered) until the last one is freed */
		UST_LOG(WARNING, "%s: %u zero-copy buffers still held by the "
			"NIC: their state outlives the stack", stk->name,
			zc->outstanding);
		zc->orphan = true;
		return;
	}
	while (zc->n_areas > 0)
		zc_area_release(zc, &zc->areas[zc->n_areas - 1]);
	zc_free_state(zc);
}

void
ust_stack_tcp_tx_stats(const struct ust_stack *stk,
		       struct ust_tcp_tx_stats *st)
{
	const struct tcp_zc *zc = stk->tcp->zc;
	unsigned int i;

	*st = stk->tcp->tx;
	if (zc == NULL)
		return;
	st->zc_completions = zc->completions;
	st->dma_unmaps += zc->unmaps;
	st->dma_unmap_cycles += zc->unmap_cycles;
	for (i = 0; i < UST_TX_HIST_BUCKETS; i++)
		st->unmap_hist[i] += zc->unmap_hist[i];
}

/* ---- DMA mapping ---- */

static int
port_dma_map(void *ctx, void *va, uint64_t iova, size_t len)
{
	if (rte_dev_dma_map(ctx, va, iova, len) == 0)
		return 0;
	return rte_errno != 0 ? -rte_errno : -EIO;
}

static int
port_dma_unmap(void *ctx, void *va, uint64_t iova, size_t len)
{
	if (rte_dev_dma_unmap(ctx, va, iova, len) == 0)
		return 0;
	return rte_errno != 0 ? -rte_errno : -EIO;
}

/* The port's device as the mapper, or -ENOTSUP and why not in @why. Only
 * devices on a bus that maps for DMA qualify: PCI (vfio-pci's IOMMU
 * container, or the driver's own map: mlx5 registers a memory region) and
 * the auxiliary bus (mlx5 sub-functions). The virtual devices (net_tap,
 * net_memif, net_ring, net_af_packet) are on the vdev bus, whose
 * rte_dev_dma_map() returns success and maps nothing: a mode that "maps"
 * there would time a no-op, so it is refused. */
static int
port_mapper(struct ust_stack *stk, struct ust_dma_mapper *m, char *why,
	    size_t n)
{
	struct rte_eth_dev_info di;
	const char *bus;

	if (stk->netif.port_id == UINT16_MAX ||
	    rte_eth_dev_info_get(stk->netif.port_id, &di) != 0 ||
	    di.device == NULL) {
		snprintf(why, n, "no ethdev port under the stack");
		return -ENOTSUP;
	}
	bus = rte_bus_name(rte_dev_bus(di.device));
	if (bus == NULL ||
	    (strcmp(bus, "pci") != 0 && strcmp(bus, "auxiliary") != 0)) {
		snprintf(why, n, "%s is on the %s bus, which maps nothing for "
			 "DMA", di.driver_name, bus != NULL ? bus : "unknown");
		return -ENOTSUP;
	}
	/* the IOVA given to the device is the virtual address */
	if (rte_eal_iova_mode() != RTE_IOVA_VA) {
		snprintf(why, n, "IOVA as PA: zero copy needs IOVA as VA "
			 "(EAL --iova-mode=va)");
		return -ENOTSUP;
	}
	m->name = rte_dev_name(di.device);
	m->map = port_dma_map;
	m->unmap = port_dma_unmap;
	m->ctx = di.device;
	return 0;
}

int
ust_zc_check(struct ust_stack *stk, char *why, size_t n)
{
	struct ust_dma_mapper m;
	char buf[128];

	if (why == NULL || n == 0) {
		why = buf;
		n = sizeof(buf);
	}
	why[0] = '\0';
	if (stk->tcp->mapper_set)
		return 0;
	return port_mapper(stk, &m, why, n);
}

int
ust_stack_set_dma_mapper(struct ust_stack *stk, const struct ust_dma_mapper *m)
{
	struct ust_tcp_stack *ts = stk->tcp;

	if (ts->zc != NULL && ts->zc->n_areas > 0)
		return -EBUSY;
	if (m != NULL && (m->map == NULL || m->unmap == NULL))
		return -EINVAL;
	if (m != NULL)
		ts->mapper = *m;
	ts->mapper_set = m != NULL;
	return 0;
}

static int
zc_map(struct ust_tcp_stack *ts, struct tcp_zc *zc, uint8_t *va, size_t len)
{
	uint64_t t0 = rte_rdtsc(), dt;
	int rc = zc->mapper.map(zc->mapper.ctx, va, (uint64_t)(uintptr_t)va,
				len);

	dt = rte_rdtsc() - t0;
	ts->tx.dma_maps++;
	ts->tx.dma_map_cycles += dt;
	ts->tx.map_hist[hist_bucket(dt)]++;
	if (rc != 0)
		ts->tx.dma_map_fail++;
	return rc;
}

static void
zc_unmap(struct tcp_zc *zc, uint8_t *va, size_t len)
{
	uint64_t t0 = rte_rdtsc(), dt;

	zc->mapper.unmap(zc->mapper.ctx, va, (uint64_t)(uintptr_t)va, len);
	dt = rte_rdtsc() - t0;
	zc->unmaps++;
	zc->unmap_cycles += dt;
	zc->unmap_hist[hist_bucket(dt)]++;
}

/* ---- zero-copy areas and buffers ---- */

static struct tcp_zc *
zc_state(struct ust_stack *stk)
{
	struct ust_tcp_stack *ts = stk->tcp;
	struct tcp_zc *zc = ts->zc;
	uint32_t i;

	if (zc != NULL)
		return zc;
	zc = rte_zmalloc_socket("ust_zc", sizeof(*zc), RTE_CACHE_LINE_SIZE,
				stk->conf.socket_id);
	if (zc == NULL)
		return NULL;
	zc->recs = rte_zmalloc_socket("ust_zc_recs",
				      sizeof(*zc->recs) * ZC_MAX_RECS,
				      RTE_CACHE_LINE_SIZE, stk->conf.socket_id);
	zc->done = rte_zmalloc_socket("ust_zc_done",
				      sizeof(*zc->done) * ZC_MAX_RECS,
				      RTE_CACHE_LINE_SIZE, stk->conf.socket_id);
	if (zc->recs == NULL || zc->done == NULL) {
		zc_free_state(zc);
		return NULL;
	}
	for (i = 0; i < ZC_MAX_RECS; i++) {
		zc->recs[i].zc = zc;
		zc->recs[i].next_free = i + 1 < ZC_MAX_RECS ?
			&zc->recs[i + 1] : NULL;
	}
	zc->free_recs = &zc->recs[0];
	ts->zc = zc;
	return zc;
}

static void
zc_area_release(struct tcp_zc *zc, struct tcp_zc_area *a)
{
	if (a->mode == UST_ZC_MAP_ONCE)
		zc_unmap(zc, a->va, a->len);
	rte_extmem_unregister(a->va, a->len);
	rte_free(a->unit_refs);
	*a = zc->areas[--zc->n_areas];
	memset(&zc->areas[zc->n_areas], 0, sizeof(zc->areas[0]));
}

int
ust_zc_register(struct ust_stack *stk, void *addr, size_t len,
		size_t page_sz, enum ust_zc_map_mode mode)
{
	struct ust_tcp_stack *ts = stk->tcp;
	uint8_t *va = addr;
	struct tcp_zc_area *a;
	struct tcp_zc *zc;
	unsigned int i;
	int rc;

	if (addr == NULL || len == 0 || page_sz < ZC_UNIT ||
	    !rte_is_power_of_2(page_sz) ||
	    ((uintptr_t)addr & (page_sz - 1)) != 0 || len % page_sz != 0 ||
	    (mode != UST_ZC_MAP_PER_SEND && mode != UST_ZC_MAP_ONCE))
		return -EINVAL;
	zc = zc_state(stk);
	if (zc == NULL)
		return -ENOMEM;
	for (i = 0; i < zc->n_areas; i++)
		if (va < zc->areas[i].va + zc->areas[i].len &&
		    zc->areas[i].va < va + len)
			return -EEXIST;
	if (zc->n_areas == ZC_MAX_AREAS)
		return -ENOSPC;
	if (zc->n_areas == 0) {
		char why[128];

		if (ts->mapper_set)
			zc->mapper = ts->mapper;
		else {
			rc = port_mapper(stk, &zc->mapper, why, sizeof(why));
			if (rc != 0) {
				UST_LOG(ERR, "%s: zero copy refused: %s",
					stk->name, why);
				return rc;
			}
		}
	}
	if (rte_extmem_register(addr, len, NULL, 0, page_sz) != 0)
		return -rte_errno;
	a = &zc->areas[zc->n_areas];
	a->va = va;
	a->len = len;
	a->page_sz = page_sz;
	a->mode = (uint8_t)mode;
	a->outstanding = 0;
	a->unit_refs = rte_zmalloc_socket("ust_zc_units",
					  sizeof(uint16_t) * (len >> ZC_UNIT_SHIFT),
					  0, stk->conf.socket_id);
	if (a->unit_refs == NULL) {
		rte_extmem_unregister(addr, len);
		return -ENOMEM;
	}
	/* once: all of it now; per send: a probe of one unit, so that a
	 * device that cannot map says so here, not at the first send (the
	 * probe is not counted) */
	if (mode == UST_ZC_MAP_ONCE)
		rc = zc_map(ts, zc, va, len);
	else {
		rc = zc->mapper.map(zc->mapper.ctx, va, (uint64_t)(uintptr_t)va,
				    ZC_UNIT);
		if (rc == 0)
			zc->mapper.unmap(zc->mapper.ctx, va,
					 (uint64_t)(uintptr_t)va, ZC_UNIT);
	}
	if (rc != 0) {
		UST_LOG(ERR, "%s: zero copy: %s cannot map DMA (%s)",
			stk->name, zc->mapper.name ? zc->mapper.name : "mapper",
			strerror(-rc));
		rte_free(a->unit_refs);
		a->unit_refs = NULL;
		rte_extmem_unregister(addr, len);
		return rc == -EINVAL || rc == -ENODEV ? -ENOTSUP : rc;
	}
	zc->n_areas++;
	return 0;
}

int
ust_zc_unregister(struct ust_stack *stk, void *addr)
{
	struct tcp_zc *zc = stk->tcp->zc;
	unsigned int i;

	for (i = 0; zc != NULL && i < zc->n_areas; i++) {
		if (zc->areas[i].va != addr)
			continue;
		if (zc->areas[i].outstanding > 0)
			return -EBUSY;
		zc_area_release(zc, &zc->areas[i]);
		return 0;
	}
	return -ENOENT;
}

/* A buffer is done: its cookie to the FIFO, its record back. */
static void
zc_rec_free(void *addr, void *opaque)
{
	struct tcp_zc_rec *rec = opaque;
	struct tcp_zc *zc = rec->zc;

	RTE_SET_USED(addr);
	zc->done[zc->done_tail % ZC_MAX_RECS] = (struct ust_zc_done){
		.sd = rec->sd, .cookie = rec->cookie };
	zc->done_tail++;
	zc->completions++;
	rec->area->outstanding--;
	rec->next_free = zc->free_recs;
	zc->free_recs = rec;
	if (--zc->outstanding == 0 && zc->orphan) {
		while (zc->n_areas > 0)
			zc_area_release(zc, &zc->areas[zc->n_areas - 1]);
		zc_free_state(zc);
	}
}

/* A transmitted segment is freed by the NIC: unmap its units, drop its
 * reference on the buffer. */
static void
zc_seg_free(void *addr, void *opaque)
{
	struct tcp_zc_seg *zs = opaque;
	struct tcp_zc_rec *rec = zs->rec;
	struct tcp_zc_area *a = rec->area;
	uint32_t u;

	RTE_SET_USED(addr);
	for (u = zs->unit; u < zs->unit + zs->n_units; u++)
		if (--a->unit_refs[u] == 0)
			zc_unmap(rec->zc, a->va + ((size_t)u << ZC_UNIT_SHIFT),
				 ZC_UNIT);
	if (rte_mbuf_ext_refcnt_update(&rec->shinfo, -1) == 0)
		zc_rec_free(NULL, rec);
}

static inline bool
is_zc(const struct rte_mbuf *m)
{
	return RTE_MBUF_HAS_EXTBUF(m) && m->shinfo->free_cb == zc_rec_free;
}

unsigned int
ust_zc_completions(struct ust_stack *stk, struct ust_zc_done *out,
		   unsigned int n)
{
	struct tcp_zc *zc = stk->tcp->zc;
	unsigned int k = 0;

	while (zc != NULL && k < n && zc->done_head != zc->done_tail)
		out[k++] = zc->done[zc->done_head++ % ZC_MAX_RECS];
	return k;
}

ssize_t
ust_tcp_send_zc(struct ust_stack *stk, struct ust_sock *s, const void *buf,
		size_t len, uint64_t cookie)
{
	struct ust_tcp_sock *tp = tcp_sk(s);
	struct tcp_zc *zc = stk->tcp->zc;
	struct rte_mbuf *ms[64];
	uint8_t *va = (uint8_t *)(uintptr_t)buf;
	struct tcp_zc_area *a = NULL;
	struct tcp_zc_rec *rec;
	unsigned int i, n;
	size_t off;
	int rc;

	rc = ust_tcp_send_state_error(tp);
	if (rc != 0)
		return rc;
	if (len == 0)
		return 0;
	for (i = 0; zc != NULL && i < zc->n_areas; i++)
		if (va >= zc->areas[i].va &&
		    va + len <= zc->areas[i].va + zc->areas[i].len) {
			a = &zc->areas[i];
			break;
		}
	if (a == NULL)
		return -EFAULT;
	n = (unsigned int)((len + ZC_SPLIT - 1) / ZC_SPLIT);
	if (n > RTE_DIM(ms))
		return -EMSGSIZE;
	/* all or nothing; a buffer larger than the whole send buffer goes
	 * alone into an empty queue */
	if (tp->snd_buffered + len > s->sndbuf && tp->snd_buffered > 0)
		return -EAGAIN;
	rec = zc->free_recs;
	if (rec == NULL || rte_pktmbuf_alloc_bulk(stk->pool, ms, n) != 0)
		return -ENOBUFS;
	zc->free_recs = rec->next_free;
	rec->area = a;
	rec->cookie = cookie;
	rec->sd = s->sd;
	rec->shinfo.free_cb = zc_rec_free;
	rec->shinfo.fcb_opaque = rec;
	rte_mbuf_ext_refcnt_set(&rec->shinfo, (uint16_t)n);
	ust_tcp_tx_note_write(tp, tp->snd_buf_seq + tp->snd_buffered,
			  (uint32_t)len, false);
	for (i = 0, off = 0; i < n; i++, off += ZC_SPLIT) {
		uint16_t k = (uint16_t)RTE_MIN((size_t)ZC_SPLIT, len - off);

		rte_pktmbuf_attach_extbuf(ms[i], va + off,
					  (rte_iova_t)(uintptr_t)(va + off), k,
					  &rec->shinfo);
		ms[i]->data_len = k;
		ms[i]->pkt_len = k;
		ust_pktq_push(stk->meta_off, &tp->sndq, ms[i]);
	}
	tp->snd_buffered += (uint32_t)len;
	a->outstanding++;
	zc->outstanding++;
	stk->tcp->tx.zc_sends++;
	ust_tcp_output(stk, tp);
	return (ssize_t)len;
}

/* ---- building segments ---- */

void
ust_tcp_tx_note_write(struct ust_tcp_sock *tp, uint32_t seq, uint32_t len,
		  bool queue_was_empty)
{
	const struct ust_tcp_conf *c = &tp->base.stk->conf.tcp;

	if (queue_was_empty && len <= c->first_linear_max) {
		tp->tflags |= TF_FIRST_LIN;
		tp->fl_start = seq;
		tp->fl_end = seq + len;
	} else if (queue_was_empty ||
		   ((tp->tflags & TF_FIRST_LIN) &&
		    SEQ_LEQ(tp->fl_end, tp->snd_una))) {
		/* too long, or the range is acknowledged: gone */
		tp->tflags &= ~TF_FIRST_LIN;
	}
}

/* Find the send-queue mbuf holding the byte @off after snd_buf_seq, from
 * the cursor when it is not behind (O(1) for in-order output); returns it
 * and the byte's offset in it. */
static struct rte_mbuf *
sndq_find(struct ust_stack *stk, struct ust_tcp_sock *tp, uint32_t off,
	  uint32_t *moff)
{
	uint32_t seq = tp->snd_buf_seq + off, mseq;
	struct rte_mbuf *m;

	if (tp->snd_cur != NULL && SEQ_GEQ(seq, tp->snd_cur_seq)) {
		m = tp->snd_cur;
		mseq = tp->snd_cur_seq;
	} else {
		m = tp->sndq.head;
		mseq = tp->snd_buf_seq;
	}
	while (m != NULL && SEQ_GEQ(seq, mseq + m->pkt_len)) {
		mseq += m->pkt_len;
		m = ust_meta(stk->meta_off, m)->nextpkt;
	}
	tp->snd_cur = m;
	tp->snd_cur_seq = mseq;
	*moff = seq - mseq;
	return m;
}

/* Copy @len bytes from the send queue, @off bytes after snd_buf_seq. */
static void
sndq_copy(struct ust_stack *stk, struct ust_tcp_sock *tp, uint32_t off,
	  uint32_t len, uint8_t *dst)
{
	struct rte_mbuf *m = sndq_find(stk, tp, off, &off);

	while (len > 0 && m != NULL) {
		uint32_t k = RTE_MIN(len, m->pkt_len - off);
		const void *src = rte_pktmbuf_read(m, off, k, dst);

		if (src != dst)
			memcpy(dst, src, k);
		dst += k;
		len -= k;
		off = 0;
		m = ust_meta(stk->meta_off, m)->nextpkt;
	}
}

/* How many mbuf segments the payload lies in (stops counting past
 * @limit); whether some of it is zero-copy. */
static unsigned int
sndq_pieces(struct ust_stack *stk, struct ust_tcp_sock *tp, uint32_t off,
	    uint32_t len, unsigned int limit, bool *zc)
{
	struct rte_mbuf *m = sndq_find(stk, tp, off, &off);
	unsigned int n = 0;

	*zc = false;
	while (len > 0 && m != NULL && n <= limit) {
		struct rte_mbuf *seg = m;

		/* into the chain of a multi-segment send-queue mbuf */
		while (seg != NULL && off >= seg->data_len) {
			off -= seg->data_len;
			seg = seg->next;
		}
		for (; seg != NULL && len > 0; seg = seg->next) {
			uint32_t k = RTE_MIN(len, (uint32_t)seg->data_len - off);

			*zc |= is_zc(seg);
			len -= k;
			off = 0;
			n++;
		}
		m = ust_meta(stk->meta_off, m)->nextpkt;
	}
	return n;
}

/* Attach the zero-copy piece @k bytes at @off in @seg to @mi, mapping its
 * units first (per-send areas). */
static int
zc_attach(struct ust_stack *stk, struct rte_mbuf *mi, struct rte_mbuf *seg,
	  uint32_t off, uint16_t k)
{
	struct tcp_zc_rec *rec = seg->shinfo->fcb_opaque;
	struct tcp_zc_area *a = rec->area;
	struct tcp_zc_seg *zs = (struct tcp_zc_seg *)mi->buf_addr;
	uint8_t *va = rte_pktmbuf_mtod_offset(seg, uint8_t *, off);
	uint32_t u0, u1, u;

	zs->rec = rec;
	zs->unit = 0;
	zs->n_units = 0;
	if (a->mode == UST_ZC_MAP_PER_SEND) {
		u0 = (uint32_t)((size_t)(va - a->va) >> ZC_UNIT_SHIFT);
		u1 = (uint32_t)((size_t)(va + k - 1 - a->va) >> ZC_UNIT_SHIFT);
		for (u = u0; u <= u1; u++) {
			if (a->unit_refs[u]++ > 0)
				continue;
			if (zc_map(stk->tcp, rec->zc,
				   a->va + ((size_t)u << ZC_UNIT_SHIFT),
				   ZC_UNIT) != 0) {
				/* undo: what this segment mapped */
				a->unit_refs[u]--;
				while (u-- > u0)
					if (--a->unit_refs[u] == 0)
						zc_unmap(rec->zc, a->va +
							 ((size_t)u << ZC_UNIT_SHIFT),
							 ZC_UNIT);
				return -EIO;
			}
		}
		zs->unit = u0;
		zs->n_units = u1 - u0 + 1;
	}
	zs->shinfo.free_cb = zc_seg_free;
	zs->shinfo.fcb_opaque = zs;
	rte_mbuf_ext_refcnt_set(&zs->shinfo, 1);
	rte_mbuf_ext_refcnt_update(&rec->shinfo, 1);
	rte_pktmbuf_attach_extbuf(mi, va, (rte_iova_t)(uintptr_t)va, k,
				  &zs->shinfo);
	mi->data_len = k;
	mi->pkt_len = k;
	return 0;
}

/* Chain the payload, @len bytes @off after snd_buf_seq, behind @h:
 * one attached mbuf per piece. Returns 0, or -1 (@h's chain is then
 * freed by the caller). */
static int
sndq_attach(struct ust_stack *stk, struct ust_tcp_sock *tp,
	    struct rte_mbuf *h, uint32_t off, uint32_t len)
{
	struct rte_mbuf *m = sndq_find(stk, tp, off, &off), *tail = h;

	while (len > 0 && m != NULL) {
		struct rte_mbuf *seg = m;

		while (seg != NULL && off >= seg->data_len) {
			off -= seg->data_len;
			seg = seg->next;
		}
		for (; seg != NULL && len > 0; seg = seg->next) {
			uint16_t k = (uint16_t)RTE_MIN(len,
				(uint32_t)seg->data_len - off);
			struct rte_mbuf *mi = rte_pktmbuf_alloc(stk->pool);

			if (mi == NULL)
				return -1;
			if (is_zc(seg)) {
				if (zc_attach(stk, mi, seg, off, k) != 0) {
					rte_pktmbuf_free(mi);
					return -1;
				}
			} else {
				/* the piece's buffer, referenced: the
				 * direct mbuf owning it stays until the
				 * NIC frees this one */
				rte_pktmbuf_attach(mi, seg);
				mi->data_off = (uint16_t)(seg->data_off + off);
				mi->data_len = k;
				mi->pkt_len = k;
			}
			tail->next = mi;
			tail = mi;
			h->nb_segs++;
			h->pkt_len += k;
			len -= k;
			off = 0;
		}
		m = ust_meta(stk->meta_off, m)->nextpkt;
	}
	return len == 0 ? 0 : -1;
}

/* Distinct 4 KiB pages the packet's segments reference (the header's
 * counted with the Ethernet and IP headers prepended later). */
static uint32_t
pkt_pages(const struct rte_mbuf *m)
{
	uint64_t prev = UINT64_MAX;
	uint32_t pages = 0;
	bool first = true;

	for (; m != NULL; m = m->next) {
		uint64_t a = m->buf_iova + m->data_off, b, p0, p1;
		uint32_t l = m->data_len;

		if (first) {
			a -= FRAME_HDRS;
			l += FRAME_HDRS;
			first = false;
		}
		if (l == 0)
			continue;
		b = a + l - 1;
		p0 = a >> 12;
		p1 = b >> 12;
		pages += (uint32_t)(p1 - p0 + 1) - (p0 == prev ? 1u : 0u);
		prev = p1;
	}
	return pages;
}

enum { KIND_LINEAR, KIND_CHAINED, KIND_SMALL };

static void
tcp_tx_account(struct ust_stack *stk, struct ust_tcp_sock *tp,
	       const struct rte_mbuf *m, uint32_t len, uint32_t copied,
	       int kind, bool zc)
{
	struct ust_tcp_tx_stats *st = &stk->tcp->tx;
	uint32_t pages = pkt_pages(m);

	st->pkts++;
	st->segs += m->nb_segs;
	st->pages += pages;
	st->copied_bytes += copied;
	tp->tx_pkts++;
	tp->tx_segs += m->nb_segs;
	tp->tx_pages += pages;
	tp->tx_copied += copied;
	if (kind == KIND_SMALL)
		st->small_pkts++;
	if (len == 0)
		return;
	st->data_pkts++;
	st->payload_bytes += len;
	if (kind == KIND_CHAINED)
		st->chained_pkts++;
	else if (kind == KIND_LINEAR)
		st->linear_pkts++;
	if (zc)
		st->zc_pkts++;
}

struct rte_mbuf *
ust_tcp_seg_build(struct ust_stack *stk, struct ust_tcp_sock *tp,
	      struct ust_tcp_repr *th, uint32_t payload_off, uint32_t len,
	      uint64_t *ol_flags)
{
	bool offload = (stk->netif.flags & UST_NETIF_F_TX_TCP_CKSUM) != 0;
	size_t hlen = UST_TCP_HDR_LEN +
		ust_tcp_opts_len(&th->opts, (th->flags & UST_TCP_SYN) != 0);
	rte_be32_t src = tp->base.laddr != 0 ? tp->base.laddr : stk->addr;
	uint32_t seq = tp->snd_buf_seq + payload_off;
	struct rte_mbuf *m = NULL;
	int kind = KIND_LINEAR;
	bool zc = false;
	uint8_t *p;

	if (tp->copy_small > 0 && FRAME_HDRS + hlen + len <= tp->copy_small &&
	    stk->tcp->small_pool != NULL) {
		m = rte_pktmbuf_alloc(stk->tcp->small_pool);
		if (m != NULL) {
			/* the frame from the buffer's first byte */
			m->data_off = (uint16_t)FRAME_HDRS;
			kind = KIND_SMALL;
		} else {
			stk->tcp->tx.small_fallback++;
		}
	}
	if (m == NULL && len > 0) {
		unsigned int pieces = 0;

		if (tp->tx_layout != UST_TCP_TX_LINEAR ||
		    stk->tcp->zc != NULL)
			pieces = sndq_pieces(stk, tp, payload_off, len,
					     UST_TCP_TX_MAX_SEGS, &zc);
		if ((zc || tp->tx_layout == UST_TCP_TX_CHAINED ||
		     (tp->tx_layout == UST_TCP_TX_FIRST_LINEAR &&
		      !((tp->tflags & TF_FIRST_LIN) &&
			SEQ_GEQ(seq, tp->fl_start) &&
			SEQ_LEQ(seq + len, tp->fl_end)))) &&
		    pieces < UST_TCP_TX_MAX_SEGS)
			kind = KIND_CHAINED;
		else
			zc = false; /* copied: the NIC holds no reference */
	}
	if (m == NULL) {
		m = rte_pktmbuf_alloc(stk->pool);
		if (m == NULL)
			return NULL;
	}
	if (kind == KIND_CHAINED) {
		p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)hlen);
		if (p == NULL || sndq_attach(stk, tp, m, payload_off, len) != 0)
			goto fail;
		ust_tcp_emit(p, hlen, th, src, tp->base.raddr, NULL, len,
			     UST_WIRE_F_CSUM_OFFLOAD);
		if (!offload) {
			uint16_t sum = 0;

			/* the payload pieces after the headers' buffer */
			ust_mbuf_raw_cksum(m->next, 0, len, &sum);
			ust_tcp_set_csum(p, hlen, src, tp->base.raddr, sum,
					 len);
		}
	} else {
		/* linear, or small: headers and payload in one buffer (the
		 * MSS is clamped at connection set-up so that a segment
		 * always fits a pool buffer) */
		p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(hlen + len));
		if (p == NULL)
			goto fail;
		if (len > 0)
			sndq_copy(stk, tp, payload_off, len, p + hlen);
		ust_tcp_emit(p, hlen, th, src, tp->base.raddr, p + hlen, len,
			     offload ? UST_WIRE_F_CSUM_OFFLOAD : 0);
	}
	*ol_flags = 0;
	if (offload) {
		*ol_flags = RTE_MBUF_F_TX_TCP_CKSUM;
		m->l4_len = th->hdr_len;
	}
	ust_meta_no_owner(stk->meta_off, m);
	tcp_tx_account(stk, tp, m, len, kind == KIND_CHAINED ? 0 : len, kind,
		       zc);
	return m;
fail:
	rte_pktmbuf_free(m);
	return NULL;
}
