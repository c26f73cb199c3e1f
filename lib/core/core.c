/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * lib/core: the primitives every layer uses. The clock, the TX staging
 * area and the mbuf helpers (pull, adj, trim, the one chain checksum).
 * The stack object that owns them is created, polled and destroyed by
 * lib/stack; nothing here calls a layer above.
 *
 * TX: every frame goes through ust_tx_stage() into one array handed to the
 * netif's tx_burst by ust_stack_flush(); what the netif refuses stays
 * staged for the next flush. A frame that a socket owns gives its memory
 * back through the stack's tx_done callback when the driver takes it (or
 * it is dropped), and sockets waiting for staging room are woken through
 * tx_room: both registered by lib/sock at init, so that core does not
 * call up.
 */

#include <string.h>

#include <rte_cycles.h>
#include <rte_ip.h>

#include "stack_private.h"
#include "ust_wire.h"

/* DPDK's RTE_LOG_REGISTER_DEFAULT names a type after the build's
 * RTE_LOG_DEFAULT_LOGTYPE, which only DPDK's own build defines: each
 * component names its type itself (see UST_LOG_TO()). */
RTE_LOG_REGISTER(ust_drop_logtype, ustack.drop, INFO);

void
ust_drop_log(const struct ust_stack *stk, enum ust_drop_reason r)
{
	static const char *const path[] = {
		[UST_DROP_PATH_RX] = "rx", [UST_DROP_PATH_SOCK] = "socket",
		[UST_DROP_PATH_TX] = "tx",
	};
	enum ust_drop_path p = ust_drop_path(r);

	UST_LOG_TO(ust_drop_logtype, "ustack.drop", DEBUG, "%s: %s (%s)",
		   stk->name, ust_drop_name(r),
		   p < RTE_DIM(path) && path[p] != NULL ? path[p] : "?");
}

/*
 * The TSC as nanoseconds by a multiply and a shift: ns = cycles * mult >>
 * UST_CLOCK_SHIFT with mult = (10^9 << UST_CLOCK_SHIFT) / hz, the product
 * in 128 bits (a 128-bit division per call, __udivti3, was 31 % of a
 * connect-bound client's cycles). With a shift of 40, mult is about 2^38
 * at 4 GHz: its rounding is below 4 parts in 10^12 of the clock's value
 * (about 10 us a month), the same for every caller, and the clock stays
 * monotonic; the product of any 64-bit count and mult (below 2^64 at any
 * rate above 60 Hz) fits the 128 bits.
 *
 * mult depends only on rte_get_tsc_hz(), fixed once EAL has started, so it
 * is cached write-once on the first call (a per-stack copy would have to
 * be passed to every caller of this function, which takes no stack): a
 * lcore racing the first call computes and stores the same value. hz is
 * stored after mult (release) and read before it (acquire), so a reader
 * that sees the rate sees its multiplier.
 */
#define UST_CLOCK_SHIFT 40

static uint64_t clock_hz;	/* the rate mult is for (0: not yet) */
static uint64_t clock_mult;

static uint64_t
clock_mult_for(uint64_t hz)
{
	uint64_t mult = (uint64_t)(((unsigned __int128)1000000000u <<
				    UST_CLOCK_SHIFT) / hz);

	__atomic_store_n(&clock_mult, mult, __ATOMIC_RELAXED);
	__atomic_store_n(&clock_hz, hz, __ATOMIC_RELEASE);
	return mult;
}

uint64_t
ust_clock_ns(void)
{
	uint64_t hz = rte_get_tsc_hz();
	uint64_t mult;

	/* before rte_eal_init() the TSC rate is unknown: no time yet */
	if (unlikely(hz == 0))
		return 0;
	if (likely(__atomic_load_n(&clock_hz, __ATOMIC_ACQUIRE) == hz))
		mult = __atomic_load_n(&clock_mult, __ATOMIC_RELAXED);
	else
		mult = clock_mult_for(hz);
	return (uint64_t)(((unsigned __int128)rte_get_tsc_cycles() * mult) >>
			  UST_CLOCK_SHIFT);
}

/* ---- TX staging ---- */

uint16_t
ust_stack_flush(struct ust_stack *stk)
{
	uint16_t sent = 0;

	while (stk->tx_n > 0) {
		uint16_t n = stk->tx_n;
		uint16_t k, i;

		k = stk->netif.ops->tx_burst(stk->netif.ctx, stk->tx_pkts, n);
		stk->mib[UST_MIB_ETH_TXBURSTS]++;
		for (i = 0; i < k; i++) {
			const struct ust_tx_owner *o = &stk->tx_own[i];

			stk->mib[UST_MIB_ETH_OUTOCTETS] += o->len;
			if (o->sd != UST_OWNER_NONE)
				stk->tx_done(stk, o);
		}
		stk->mib[UST_MIB_ETH_OUTFRAMES] += k;
		sent += k;
		if (k < n) {
			/* the netif is full: keep the rest, in order */
			memmove(stk->tx_pkts, stk->tx_pkts + k,
				(size_t)(n - k) * sizeof(*stk->tx_pkts));
			memmove(stk->tx_own, stk->tx_own + k,
				(size_t)(n - k) * sizeof(*stk->tx_own));
			stk->tx_n = n - k;
			stk->mib[UST_MIB_ETH_TXRETRIES]++;
			break;
		}
		stk->tx_n = 0;
	}
	if (unlikely(stk->tx_waiters != NULL) && ust_tx_send_room(stk))
		stk->tx_room(stk);
	return sent;
}

bool
ust_tx_room(struct ust_stack *stk, uint16_t n)
{
	if (stk->tx_n + n <= stk->tx_cap)
		return true;
	ust_stack_flush(stk);
	return stk->tx_n + n <= stk->tx_cap;
}

void
ust_tx_stage(struct ust_stack *stk, struct rte_mbuf *m)
{
	const struct ust_mbuf_meta *meta = ust_meta(stk->meta_off, m);
	struct ust_tx_owner *o;

	if (unlikely(!ust_tx_room(stk, 1))) {
		ust_tx_drop(stk, m, UST_DROP_TX_STAGE_FULL);
		return;
	}
	o = &stk->tx_own[stk->tx_n];
	o->sd = meta->owner_sd;
	if (o->sd != UST_OWNER_NONE) {
		o->gen = meta->owner_gen;
		o->truesize = meta->truesize;
	}
	o->len = m->pkt_len;
	stk->tx_pkts[stk->tx_n++] = m;
	/* a full burst goes out at once; the rest at the end of the poll */
	if (stk->tx_n >= UST_MAX_BURST)
		ust_stack_flush(stk);
}

void
ust_tx_release(struct ust_stack *stk, struct rte_mbuf *m)
{
	struct ust_mbuf_meta *meta = ust_meta(stk->meta_off, m);

	if (meta->owner_sd != UST_OWNER_NONE) {
		struct ust_tx_owner o = {
			.sd = meta->owner_sd,
			.gen = meta->owner_gen,
			.truesize = meta->truesize,
		};

		stk->tx_done(stk, &o);
		meta->owner_sd = UST_OWNER_NONE;
	}
}

void
ust_tx_drop(struct ust_stack *stk, struct rte_mbuf *m, enum ust_drop_reason r)
{
	ust_tx_release(stk, m);
	ust_drop(stk, m, r);
}

uint16_t
ust_stack_tx_pending(const struct ust_stack *stk)
{
	return stk->tx_n;
}

/* ---- mbuf helpers ---- */

int
ust_mbuf_raw_cksum(const struct rte_mbuf *m, uint32_t off, uint32_t len,
		   uint16_t *sum)
{
	uint32_t acc = 0, done = 0;

	/* walked by data_len only: @m may be a chain's tail, whose pkt_len
	 * means nothing */
	while (m != NULL && off >= m->data_len) {
		off -= m->data_len;
		m = m->next;
	}
	for (; m != NULL && done < len; m = m->next, off = 0) {
		uint32_t k = RTE_MIN((uint32_t)m->data_len - off, len - done);
		/* folded per piece: the swap below is then exact */
		uint16_t s = rte_raw_cksum(rte_pktmbuf_mtod_offset(m,
						const void *, off), k);

		/* a piece at an odd offset has its bytes in the other
		 * halves of the 16-bit words */
		acc += (done & 1) ? rte_bswap16(s) : s;
		done += k;
	}
	if (done != len)
		return -1;
	acc = (acc & 0xffff) + (acc >> 16);
	acc = (acc & 0xffff) + (acc >> 16);
	*sum = (uint16_t)acc;
	return 0;
}

bool
ust_mbuf_l4_csum_ok(const struct rte_mbuf *m, const struct ust_ipv4_repr *ip,
		    uint8_t proto, uint32_t l4len)
{
	uint16_t raw;
	uint32_t sum;

	if (ust_mbuf_raw_cksum(m, ip->hdr_len, l4len, &raw) != 0)
		return false;
	sum = raw;
	sum += ust_ipv4_phdr_sum(ip->src, ip->dst, proto, (uint16_t)l4len);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

bool
ust_mbuf_l4_csum6_ok(const struct rte_mbuf *m, const uint8_t *src,
		     const uint8_t *dst, uint8_t proto, uint32_t l4len)
{
	uint16_t raw;
	uint32_t sum;

	if (ust_mbuf_raw_cksum(m, 0, l4len, &raw) != 0)
		return false;
	sum = raw;
	sum += ust_ipv6_phdr_sum(src, dst, proto, l4len);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

bool
ust_mbuf_pull(struct rte_mbuf *m, uint32_t len)
{
	if (len > m->pkt_len)
		len = m->pkt_len;
	if (m->data_len >= len)
		return true;
	/* the first segment must be ours to write, with room at its end */
	if (RTE_MBUF_CLONED(m) || rte_mbuf_refcnt_read(m) != 1 ||
	    rte_pktmbuf_tailroom(m) < len - m->data_len)
		return false;
	while (m->data_len < len) {
		struct rte_mbuf *n = m->next;
		uint16_t k = (uint16_t)RTE_MIN(len - m->data_len,
					       (uint32_t)n->data_len);

		/* only read from: its buffer may be shared (an attached
		 * piece of a sender's queue), its metadata must not be */
		if (rte_mbuf_refcnt_read(n) != 1)
			return false;
		memcpy(rte_pktmbuf_mtod_offset(m, uint8_t *, m->data_len),
		       rte_pktmbuf_mtod(n, uint8_t *), k);
		m->data_len += k;
		n->data_off += k;
		n->data_len -= k;
		if (n->data_len == 0) {
			m->next = n->next;
			m->nb_segs--;
			n->next = NULL;
			n->nb_segs = 1;
			rte_pktmbuf_free_seg(n);
		}
	}
	return true;
}

struct rte_mbuf *
ust_mbuf_adj(int meta_off, struct rte_mbuf *m, uint32_t len)
{
	if (len >= m->pkt_len) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	/* whole leading segments go; the next becomes the packet's head */
	while (len >= m->data_len && m->next != NULL) {
		struct rte_mbuf *n = m->next;

		len -= m->data_len;
		n->pkt_len = m->pkt_len - m->data_len;
		n->nb_segs = m->nb_segs - 1;
		*ust_meta(meta_off, n) = *ust_meta(meta_off, m);
		m->next = NULL;
		m->nb_segs = 1;
		rte_pktmbuf_free_seg(m);
		m = n;
	}
	rte_pktmbuf_adj(m, (uint16_t)len);
	return m;
}

void
ust_mbuf_trim_to(struct rte_mbuf *m, uint32_t len)
{
	struct rte_mbuf *seg = m;
	uint32_t remain = len;
	uint16_t segs = 1;

	if (len >= m->pkt_len)
		return;
	while (remain > seg->data_len) {
		remain -= seg->data_len;
		seg = seg->next;
		segs++;
	}
	seg->data_len = (uint16_t)remain;
	if (seg->next != NULL) {
		rte_pktmbuf_free(seg->next);
		seg->next = NULL;
	}
	m->pkt_len = len;
	m->nb_segs = segs;
}

/* ---- sibling stacks ---- */

void
ust_stack_set_siblings(struct ust_stack *stk,
		       const struct ust_sibling_ops *ops, void *ctx)
{
	stk->sib = ops;
	stk->sib_ctx = ctx;
}
