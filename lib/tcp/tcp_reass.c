/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * The out-of-order queue (RFC 9293 3.10.7.4, "seventh, process the segment
 * text"; RFC 2018 for the SACK blocks it yields): received segments beyond
 * rcv_nxt, as payload mbufs sorted by sequence number and never
 * overlapping. A new segment is trimmed against its neighbours, and those
 * it covers are removed; what it duplicates entirely is refused. When
 * rcv_nxt reaches the head, ust_tcp_reass_pull() moves the in-order run to the
 * receive queue.
 *
 * Memory: each queued segment's truesize is charged as the receive queue's
 * is (ust_tcp_rmem_charge()), so that a peer cannot make the out-of-order
 * queue grow beyond rcvbuf.
 */

#include "tcp_private.h"

static inline uint32_t
seg_end(int off, struct rte_mbuf *m)
{
	return tcp_mseq(off, m) + m->pkt_len;
}

static void
ofo_unlink_after(struct ust_tcp_sock *tp, int off, struct rte_mbuf *prev,
		 struct rte_mbuf *cur)
{
	struct rte_mbuf *next = ust_meta(off, cur)->nextpkt;

	if (prev == NULL)
		tp->ofoq.head = next;
	else
		ust_meta(off, prev)->nextpkt = next;
	if (tp->ofoq.tail == cur)
		tp->ofoq.tail = prev;
	tp->ofoq.len--;
	tp->ofo_segs--;
}

bool
ust_tcp_reass_insert(struct ust_stack *stk, struct ust_tcp_sock *tp,
		 struct rte_mbuf *m, uint32_t seq, uint32_t len)
{
	int off = stk->meta_off;
	struct rte_mbuf *prev = NULL, *cur = tp->ofoq.head;
	uint32_t end = seq + len, ts;

	/* the first segment that ends after ours starts */
	while (cur != NULL && SEQ_LEQ(seg_end(off, cur), seq)) {
		prev = cur;
		cur = ust_meta(off, cur)->nextpkt;
	}
	if (cur != NULL && SEQ_LEQ(tcp_mseq(off, cur), seq) &&
	    SEQ_GEQ(seg_end(off, cur), end)) {
		/* all of it is queued already */
		ust_tcp_dsack_set(stk, tp, seq, end);
		ust_drop(stk, m, UST_DROP_TCP_OLD_DATA);
		return false;
	}
	/* what is queued already is reported in a D-SACK block (RFC 2883;
	 * Linux's tcp_data_queue_ofo()) */
	if (cur != NULL && SEQ_LT(tcp_mseq(off, cur), seq)) {
		/* the tail of cur covers our head */
		uint32_t cut = seg_end(off, cur) - seq;

		ust_tcp_dsack_set(stk, tp, seq, seq + cut);
		m = ust_mbuf_adj(off, m, cut);
		seq += cut;
		prev = cur;
		cur = ust_meta(off, cur)->nextpkt;
	}
	/* segments we cover entirely go */
	while (cur != NULL && SEQ_LEQ(seg_end(off, cur), end)) {
		struct rte_mbuf *next = ust_meta(off, cur)->nextpkt;

		ust_tcp_dsack_set(stk, tp, tcp_mseq(off, cur),
				  seg_end(off, cur));
		ofo_unlink_after(tp, off, prev, cur);
		ust_tcp_rmem_uncharge(stk, tp, ust_meta(off, cur)->truesize, 1);
		ust_drop(stk, cur, UST_DROP_TCP_OFOMERGE);
		cur = next;
	}
	if (cur != NULL && SEQ_LT(tcp_mseq(off, cur), end)) {
		/* our tail runs into cur */
		ust_tcp_dsack_set(stk, tp, tcp_mseq(off, cur), end);
		if (tcp_mseq(off, cur) == seq) {
			/* and our head into prev: all of it is queued */
			ust_drop(stk, m, UST_DROP_TCP_OLD_DATA);
			return false;
		}
		ust_mbuf_trim_to(m, tcp_mseq(off, cur) - seq);
		end = tcp_mseq(off, cur);
	}
	ts = ust_truesize(m);
	if (!ust_tcp_rmem_charge(stk, tp, ts)) {
		stk->mib[UST_MIB_TCPEXT_TCPOFODROP]++;
		ust_drop(stk, m, UST_DROP_TCP_OFO_DROP);
		return false;
	}
	ust_meta(off, m)->truesize = ts;
	tcp_mseq_set(off, m, seq);
	ust_meta(off, m)->nextpkt = cur;
	if (prev == NULL)
		tp->ofoq.head = m;
	else
		ust_meta(off, prev)->nextpkt = m;
	if (cur == NULL)
		tp->ofoq.tail = m;
	tp->ofoq.len++;
	tp->ofo_segs++;
	stk->mib[UST_MIB_TCPEXT_TCPOFOQUEUE]++;
	if (tp->tflags & TF_SACK_OK)
		ust_tcp_sack_rcv_update(tp, seq, end);
	ust_consumed(stk);
	return true;
}

uint32_t
ust_tcp_reass_pull(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	int off = stk->meta_off;
	uint32_t moved = 0;
	struct rte_mbuf *m;

	while ((m = tp->ofoq.head) != NULL &&
	       SEQ_LEQ(tcp_mseq(off, m), tp->rcv_nxt)) {
		uint32_t seq = tcp_mseq(off, m), end = seg_end(off, m);
		uint32_t ts = ust_meta(off, m)->truesize;

		ust_pktq_pop(off, &tp->ofoq);
		tp->ofo_segs--;
		if (SEQ_LEQ(end, tp->rcv_nxt)) {
			ust_tcp_rmem_uncharge(stk, tp, ts, 1);
			ust_drop(stk, m, UST_DROP_TCP_OFOMERGE);
			continue;
		}
		if (SEQ_LT(seq, tp->rcv_nxt)) {
			m = ust_mbuf_adj(off, m, tp->rcv_nxt - seq);
			/* the truesize of what is left */
			ust_tcp_rmem_uncharge(stk, tp, ts - ust_truesize(m), 1);
			ts = ust_truesize(m);
			ust_meta(off, m)->truesize = ts;
		}
		ust_pktq_push(off, &tp->rcvq, m);
		tp->rcv_buffered += m->pkt_len;
		moved += end - tp->rcv_nxt;
		tp->rcv_nxt = end;
	}
	if (tp->n_rcv_sack > 0)
		ust_tcp_sack_rcv_trim(tp);
	return moved;
}

void
ust_tcp_reass_purge(struct ust_stack *stk, struct ust_tcp_sock *tp,
		enum ust_drop_reason r)
{
	struct rte_mbuf *m;

	while ((m = ust_pktq_pop(stk->meta_off, &tp->ofoq)) != NULL) {
		ust_tcp_rmem_uncharge(stk, tp, ust_meta(stk->meta_off, m)->truesize,
				  0);
		ust_drop(stk, m, r);
	}
	tp->ofo_segs = 0;
	tp->n_rcv_sack = 0;
	ust_tcp_sack_release(tp);
}
