/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * The zero-copy registry: sends from application memory without a copy,
 * their DMA mapping and their completions (ust_tcp_tx.h, doc/tx-layout.md).
 *
 * How it is called:
 *  - by the application: ust_stack_set_dma_mapper() installs the mapper
 *    (for a port, the one drivers/port's ust_port_dma_mapper() gives: the
 *    stack never calls ethdev), ust_zc_check() says whether registration
 *    can map, ust_zc_register()/ust_zc_unregister() record and drop areas,
 *    ust_zc_completions() hands back the cookies of finished buffers;
 *  - by the socket layer: ust_send_zc() reaches ust_tcp_send_zc(), which
 *    queues the buffer on the send queue without a copy;
 *  - by segment building (tcp_tx.c): ust_tcp_zc_is_zc() tells a zero-copy
 *    piece of the send queue, ust_tcp_zc_attach() attaches it to a segment
 *    (mapping its units first);
 *  - by the stack's life cycle: ust_tcp_zc_fini() at destruction,
 *    ust_tcp_zc_stats() when the TX counters are read.
 *
 * ust_zc_register() records an area (rte_extmem_register(), and with
 * UST_ZC_MAP_ONCE one map of all of it); ust_send_zc() queues mbufs that
 * attach the application's buffer as external buffers sharing one record
 * (struct tcp_zc_rec), whose reference count is the send-queue mbufs plus
 * the transmitted segments still held by the NIC; the record's completion
 * (the cookie in the completion FIFO) comes when it drops to zero.
 * Per-send mapping keeps a count per 4 KiB unit of the area: a unit is
 * mapped when the first segment in flight needs it and unmapped when the
 * last one is freed (VFIO refuses a second map of an IOVA range already
 * mapped, so two segments in flight on one page share its mapping).
 *
 * Mapping goes only through the installed struct ust_dma_mapper: without
 * one, registration is refused with ENOTSUP ("no DMA mapper installed").
 *
 * The zero-copy state (struct tcp_zc) holds what the free callbacks touch,
 * and nothing of the stack: the NIC may free a segment after the stack is
 * destroyed; the state then outlives the stack until its last buffer
 * completes.
 */

#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_memory.h>

#include "tcp_private.h"
#include "tcp_zc_private.h"

#define ZC_UNIT_SHIFT 12
#define ZC_UNIT (1u << ZC_UNIT_SHIFT)
#define ZC_MAX_AREAS 8
#define ZC_MAX_RECS 16384u     /* buffers not completed, per stack */
#define ZC_SPLIT 32768u        /* bytes per send-queue mbuf (buf_len is
				* 16 bits) */

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

static inline unsigned int
hist_bucket(uint64_t cycles)
{
	unsigned int b = cycles == 0 ? 0 : 63u - (unsigned int)__builtin_clzll(cycles);

	return b < UST_TX_HIST_BUCKETS ? b : UST_TX_HIST_BUCKETS - 1;
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
/* At the stack's destruction. */
void
ust_tcp_zc_fini(struct ust_stack *stk)
{
	struct ust_tcp_stack *ts = stk->tcp;
	struct tcp_zc *zc = ts->zc;

	ts->zc = NULL;
	if (zc == NULL)
		return;
	if (zc->outstanding > 0) {
		/* the NIC still holds some: the state stays (and the areas
		 * registered) until the last one is freed */
		TCP_LOG(WARNING, "%s: %u zero-copy buffers still held by the "
			"NIC: their state outlives the stack", stk->name,
			zc->outstanding);
		zc->orphan = true;
		return;
	}
	while (zc->n_areas > 0)
		zc_area_release(zc, &zc->areas[zc->n_areas - 1]);
	zc_free_state(zc);
}

/* Add the counters the free callbacks keep to @st. */
void
ust_tcp_zc_stats(const struct ust_stack *stk, struct ust_tcp_tx_stats *st)
{
	const struct tcp_zc *zc = stk->tcp->zc;
	unsigned int i;

	if (zc == NULL)
		return;
	st->zc_completions = zc->completions;
	st->dma_unmaps += zc->unmaps;
	st->dma_unmap_cycles += zc->unmap_cycles;
	for (i = 0; i < UST_TX_HIST_BUCKETS; i++)
		st->unmap_hist[i] += zc->unmap_hist[i];
}

/* ---- DMA mapping ---- */

/* The application installs the mapper (drivers/port's
 * ust_port_dma_mapper() for an ethdev port): without one, nothing maps. */
int
ust_zc_check(struct ust_stack *stk, char *why, size_t n)
{
	char buf[128];

	if (why == NULL || n == 0) {
		why = buf;
		n = sizeof(buf);
	}
	why[0] = '\0';
	if (stk->tcp->mapper_set)
		return 0;
	snprintf(why, n, "no DMA mapper installed: the application installs "
		 "one with ust_stack_set_dma_mapper()");
	return -ENOTSUP;
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
	else
		memset(&ts->mapper, 0, sizeof(ts->mapper));
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
	if (!ts->mapper_set) {
		char why[128];

		rc = ust_zc_check(stk, why, sizeof(why));
		TCP_LOG(ERR, "%s: zero copy refused: %s", stk->name, why);
		return rc;
	}
	zc = zc_state(stk);
	if (zc == NULL)
		return -ENOMEM;
	for (i = 0; i < zc->n_areas; i++)
		if (va < zc->areas[i].va + zc->areas[i].len &&
		    zc->areas[i].va < va + len)
			return -EEXIST;
	if (zc->n_areas == ZC_MAX_AREAS)
		return -ENOSPC;
	/* the mapper of the areas (ust_stack_set_dma_mapper() is refused
	 * while one is registered): the free callbacks use this copy */
	if (zc->n_areas == 0)
		zc->mapper = ts->mapper;
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
		TCP_LOG(ERR, "%s: zero copy: %s cannot map DMA (%s)",
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

/* A buffer is done: its cookie to the FIFO, its record back (the free
 * callback of the send-queue mbufs' external buffer; ust_tcp_zc_is_zc()
 * tells a zero-copy piece by it). */
void
ust_tcp_zc_rec_free(void *addr, void *opaque)
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
		ust_tcp_zc_rec_free(NULL, rec);
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
	struct rte_mbuf *ms[64], *prev;
	uint8_t *va = (uint8_t *)(uintptr_t)buf;
	struct tcp_zc_area *a = NULL;
	uint32_t seq;
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
	rec->shinfo.free_cb = ust_tcp_zc_rec_free;
	rec->shinfo.fcb_opaque = rec;
	rte_mbuf_ext_refcnt_set(&rec->shinfo, (uint16_t)n);
	seq = tp->snd_buf_seq + tp->snd_buffered;
	prev = tp->sndq.tail;
	for (i = 0, off = 0; i < n; i++, off += ZC_SPLIT) {
		uint16_t k = (uint16_t)RTE_MIN((size_t)ZC_SPLIT, len - off);

		rte_pktmbuf_attach_extbuf(ms[i], va + off,
					  (rte_iova_t)(uintptr_t)(va + off), k,
					  &rec->shinfo);
		ms[i]->data_len = k;
		ms[i]->pkt_len = k;
		ust_tcp_sndq_push(stk, tp, ms[i]);
	}
	tp->snd_buffered += (uint32_t)len;
	ust_tcp_fpush_burst(stk, tp, prev, seq);
	ust_tcp_tx_note_write(tp, seq, (uint32_t)len, false);
	a->outstanding++;
	zc->outstanding++;
	stk->tcp->tx.zc_sends++;
	ust_tcp_output(stk, tp);
	return (ssize_t)len;
}

/* Attach the zero-copy piece @k bytes at @off in @seg to @mi, mapping its
 * units first (per-send areas); -EIO if a map failed (nothing of the
 * segment stays mapped). */
int
ust_tcp_zc_attach(struct ust_stack *stk, struct rte_mbuf *mi,
		  struct rte_mbuf *seg, uint32_t off, uint16_t k)
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
