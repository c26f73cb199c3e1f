/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * TX layouts of TCP segments: building data segments and pure ACKs into
 * mbufs (ust_tcp_tx.h, doc/tx-layout.md).
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
 * Zero-copy payload is handled by the registry in tcp_zc.c (areas, DMA
 * mapping, completions): this file only asks it whether a send-queue piece
 * is zero copy (ust_tcp_zc_is_zc()) and has it attach one to a segment
 * (ust_tcp_zc_attach()).
 */

#include <errno.h>
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "tcp_private.h"
#include "tcp_zc_private.h"

#define FRAME_HDRS (RTE_ETHER_HDR_LEN + (uint32_t)sizeof(struct rte_ipv4_hdr))
#define FRAME_HDRS6 (RTE_ETHER_HDR_LEN + (uint32_t)sizeof(struct rte_ipv6_hdr))
/* mbufs per packet at most: beyond, the packet is built linear (Linux's
 * MAX_SKB_FRAGS is 17; NICs take 8 to 40 descriptors per packet) */
#define UST_TCP_TX_MAX_SEGS 16

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
		TCP_LOG(ERR, "%s: tx_layout %s: %s", stk->name,
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

void
ust_tcp_tx_fini(struct ust_stack *stk)
{
	struct ust_tcp_stack *ts = stk->tcp;

	rte_mempool_free(ts->small_pool);
	ts->small_pool = NULL;
	ust_tcp_zc_fini(stk);
}

void
ust_stack_tcp_tx_stats(const struct ust_stack *stk,
		       struct ust_tcp_tx_stats *st)
{
	*st = stk->tcp->tx;
	ust_tcp_zc_stats(stk, st);
}

/* ---- building segments ---- */

void
ust_tcp_tx_note_write(struct ust_tcp_sock *tp, uint32_t seq, uint32_t len,
		  bool queue_was_empty)
{
	const struct ust_tcp_conf *c = &tp->base.stk->conf.tcp;

	/* the end of the write: its last segment carries PSH (Linux's
	 * tcp_push() marks the write queue's tail at the end of each
	 * sendmsg()) */
	tp->snd_psh = seq + len;
	tp->pushed_seq = seq + len;
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

uint32_t
ust_tcp_sndq_eor_cut(struct ust_stack *stk, struct ust_tcp_sock *tp,
		     uint32_t seq, uint32_t len, bool *at_eor)
{
	uint32_t moff, mseq, end = seq + len;
	struct rte_mbuf *m;

	*at_eor = false;
	m = sndq_find(stk, tp, seq - tp->snd_buf_seq, &moff);
	mseq = seq - moff;
	/* at most a segment's worth of buffers */
	while (m != NULL && SEQ_LT(mseq, end)) {
		uint32_t mend = mseq + m->pkt_len;

		if (SEQ_LEQ(mend, end) && ust_tcp_sndq_is_eor(stk, m)) {
			*at_eor = true;
			return mend - seq;
		}
		mseq = mend;
		m = ust_meta(stk->meta_off, m)->nextpkt;
	}
	return len;
}

bool
ust_tcp_sndq_fpush_in(struct ust_stack *stk, struct ust_tcp_sock *tp,
		      uint32_t seq, uint32_t len)
{
	uint32_t moff, mseq, end = seq + len;
	struct rte_mbuf *m;

	m = sndq_find(stk, tp, seq - tp->snd_buf_seq, &moff);
	mseq = seq - moff;
	while (m != NULL && SEQ_LT(mseq, end)) {
		uint32_t mend = mseq + m->pkt_len;

		if (SEQ_LEQ(mend, end) && ust_tcp_sndq_is_fpush(stk, m))
			return true;
		mseq = mend;
		m = ust_meta(stk->meta_off, m)->nextpkt;
	}
	return false;
}

uint32_t
ust_tcp_sndq_fpush_after(struct ust_stack *stk, const struct ust_tcp_sock *tp,
			 uint32_t seq)
{
	struct rte_mbuf *m;
	uint32_t mseq;

	/* from the cursor when it is not beyond (it stays: the next
	 * segment's payload is found from it) */
	if (tp->snd_cur != NULL && SEQ_LEQ(tp->snd_cur_seq, seq)) {
		m = tp->snd_cur;
		mseq = tp->snd_cur_seq;
	} else {
		m = tp->sndq.head;
		mseq = tp->snd_buf_seq;
	}
	while (m != NULL) {
		uint32_t mend = mseq + m->pkt_len;

		if (SEQ_GT(mend, seq) && ust_tcp_sndq_is_fpush(stk, m))
			return mend;
		mseq = mend;
		m = ust_meta(stk->meta_off, m)->nextpkt;
	}
	return seq;
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

			*zc |= ust_tcp_zc_is_zc(seg);
			len -= k;
			off = 0;
			n++;
		}
		m = ust_meta(stk->meta_off, m)->nextpkt;
	}
	return n;
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
			if (ust_tcp_zc_is_zc(seg)) {
				if (ust_tcp_zc_attach(stk, mi, seg, off,
						      k) != 0) {
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
	const struct ust_tcp_addr6 *a6 = tp->a6;
	uint32_t frame_hdrs = a6 != NULL ? FRAME_HDRS6 : FRAME_HDRS;
	uint32_t seq = tp->snd_buf_seq + payload_off;
	struct rte_mbuf *m = NULL;
	int kind = KIND_LINEAR;
	bool zc = false;
	uint8_t *p;

	if (tp->copy_small > 0 && frame_hdrs + hlen + len <= tp->copy_small &&
	    stk->tcp->small_pool != NULL) {
		m = rte_pktmbuf_alloc(stk->tcp->small_pool);
		if (m != NULL) {
			/* the frame from the buffer's first byte */
			m->data_off = (uint16_t)frame_hdrs;
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
		if (a6 != NULL)
			ust_tcp6_emit(p, hlen, th, a6->local, a6->remote, NULL,
				      len, UST_WIRE_F_CSUM_OFFLOAD);
		else
			ust_tcp_emit(p, hlen, th, src, tp->base.raddr, NULL,
				     len, UST_WIRE_F_CSUM_OFFLOAD);
		if (!offload) {
			uint16_t sum = 0;

			/* the payload pieces after the headers' buffer */
			ust_mbuf_raw_cksum(m->next, 0, len, &sum);
			if (a6 != NULL)
				ust_tcp6_set_csum(p, hlen, a6->local,
						  a6->remote, sum, len);
			else
				ust_tcp_set_csum(p, hlen, src, tp->base.raddr,
						 sum, len);
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
		if (a6 != NULL)
			ust_tcp6_emit(p, hlen, th, a6->local, a6->remote,
				      p + hlen, len,
				      offload ? UST_WIRE_F_CSUM_OFFLOAD : 0);
		else
			ust_tcp_emit(p, hlen, th, src, tp->base.raddr, p + hlen,
				     len, offload ? UST_WIRE_F_CSUM_OFFLOAD : 0);
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
