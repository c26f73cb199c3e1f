/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * getsockopt(IPPROTO_TCP, TCP_INFO): a connection told in Linux's struct
 * tcp_info, the layout of the system's <linux/tcp.h> (a UAPI header), so
 * that tools written for Linux sockets read ustack's as they are. Fields
 * ustack keeps are filled in Linux's units (segments where Linux counts
 * segments, microseconds, milliseconds since an event); those it does not
 * keep are zero. The caller gets min(its length, sizeof) bytes, as from
 * Linux, so that a caller built against an older, shorter struct works.
 *
 * The struct has grown since the system's header (Debian 12's ends at
 * tcpi_snd_wnd): the fields Linux appended since (tcpi_rcv_wnd and
 * tcpi_rehash, the RTO totals, tcpi_received_ce and the AccECN byte
 * counters) follow it here as struct tcp_info_tail, so that a caller built
 * against a newer header (packetdrill's own copy, which asserts that it got
 * its whole struct) gets all of it.
 *
 * Also the connection as telemetry shows it (struct ust_tcp_view): of a
 * socket (ust_tcp_view_get()) and of what no descriptor holds, orphans,
 * half-open and TIME_WAIT entries (ust_tcp_view_next()), for
 * /ustack/tcp_conns.
 *
 * In a file of its own: <linux/tcp.h> and <netinet/tcp.h> (which the
 * other TCP files use for the option names) do not go together.
 */

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <linux/tcp.h>

#include <rte_hash.h>

#include "tcp_private.h"

#define NS_PER_MS 1000000ull

/* Linux's struct tcp_info after tcpi_snd_wnd, as of Linux 6.18 */
struct tcp_info_tail {
	uint32_t tcpi_rcv_wnd;          /* our window, bytes */
	uint32_t tcpi_rehash;
	uint16_t tcpi_total_rto;        /* RTO expiries */
	uint16_t tcpi_total_rto_recoveries;
	uint32_t tcpi_total_rto_time;
	uint32_t tcpi_received_ce;
	uint32_t tcpi_delivered_e1_bytes;
	uint32_t tcpi_delivered_e0_bytes;
	uint32_t tcpi_delivered_ce_bytes;
	uint32_t tcpi_received_e1_bytes;
	uint32_t tcpi_received_e0_bytes;
	uint32_t tcpi_received_ce_bytes;
	uint32_t tcpi_ecn_bits;         /* ecn_mode:2, accecn_opt_seen:2... */
};

/* where the tail starts: right after tcpi_snd_wnd (the system's struct
 * may end in padding), and the whole size, aligned as Linux's (u64) */
#define TCP_INFO_HEAD_LEN \
	(offsetof(struct tcp_info, tcpi_snd_wnd) + sizeof(uint32_t))
#define TCP_INFO_LEN \
	RTE_ALIGN_CEIL(TCP_INFO_HEAD_LEN + sizeof(struct tcp_info_tail), 8)

/* Linux's state numbers (include/net/tcp_states.h, a stable ABI: ss and
 * netstat print them) for ustack's enum ust_tcp_state */
static const uint8_t tcp_linux_state[] = {
	[UST_TCP_CLOSED] = 7,
	[UST_TCP_LISTEN] = 10,
	[UST_TCP_SYN_SENT] = 2,
	[UST_TCP_SYN_RECEIVED] = 3,
	[UST_TCP_ESTABLISHED] = 1,
	[UST_TCP_FIN_WAIT_1] = 4,
	[UST_TCP_FIN_WAIT_2] = 5,
	[UST_TCP_CLOSE_WAIT] = 8,
	[UST_TCP_CLOSING] = 11,
	[UST_TCP_LAST_ACK] = 9,
	[UST_TCP_TIME_WAIT] = 6,
};

/* Linux's TCP_INFINITE_SSTHRESH */
#define TCP_LINUX_INFINITE_SSTHRESH 0x7fffffffu

static uint32_t
segs_of(uint32_t bytes, uint32_t mss)
{
	return mss == 0 ? 0 : (bytes + mss - 1) / mss;
}

static uint32_t
ms_since(const struct ust_stack *stk, uint64_t t_ns)
{
	return t_ns == 0 || t_ns > stk->now ? 0 :
		(uint32_t)((stk->now - t_ns) / NS_PER_MS);
}

/* Linux's lost_out and retrans_out from RACK's transmission records:
 * segments marked lost and not since delivered (sent again or not), and
 * retransmissions in flight. */
static void
tcp_info_lost(const struct ust_tcp_sock *tp, uint32_t *lost,
	      uint32_t *retrans)
{
	const struct ust_tcp_rack *r = &tp->rack;
	uint32_t i;

	*lost = 0;
	*retrans = 0;
	for (i = 0; r->recs != NULL && i < r->n; i++) {
		uint16_t f = r->recs[i].flags;

		if (f & (UST_TXR_DEAD | UST_TXR_SACKED))
			continue;
		if (f & UST_TXR_LOST)
			(*lost)++;
		else if (f & UST_TXR_RETRANS) {
			(*retrans)++;
			/* a retransmission in recovery: its segment was
			 * found lost (a loss probe's was not) */
			if (tp->tflags & (TF_RECOVERY | TF_LOSS))
				(*lost)++;
		}
	}
}

/* the chronographs in microseconds (Linux's tcp_get_info_chrono_stats()):
 * busy time is the sum of all three, the running one up to now */
static void
tcp_info_chrono(const struct ust_stack *stk, const struct ust_tcp_sock *tp,
		struct tcp_info *ti)
{
	uint64_t us[3], total = 0;
	unsigned int i;

	for (i = 0; i < 3; i++) {
		uint32_t t = tp->chrono_stat[i];

		if (tp->chrono_type == i + 1)
			t += UST_TCP_T(stk->now) - tp->chrono_start;
		us[i] = ((uint64_t)t << 20) / 1000;
		total += us[i];
	}
	ti->tcpi_busy_time = total;
	ti->tcpi_rwnd_limited = us[UST_CHRONO_RWND - 1];
	ti->tcpi_sndbuf_limited = us[UST_CHRONO_SNDBUF - 1];
}

static void
tcp_info_fill_linux(const struct ust_tcp_sock *tp, struct tcp_info *ti)
{
	const struct ust_stack *stk = tp->base.stk;
	uint32_t mss = tp->mss;

	memset(ti, 0, sizeof(*ti));
	ti->tcpi_state = tp->state < RTE_DIM(tcp_linux_state) ?
		tcp_linux_state[tp->state] : 0;
	if (tp->state == UST_TCP_LISTEN) {
		/* as Linux: the accept queue and the backlog */
		ti->tcpi_unacked = tp->listen->acceptq_len;
		ti->tcpi_sacked = tp->listen->backlog;
		return;
	}
	if (tp->tflags & TF_LOSS)
		ti->tcpi_ca_state = TCP_CA_Loss;
	else if (tp->tflags & TF_RECOVERY)
		ti->tcpi_ca_state = TCP_CA_Recovery;
	else if (tp->dupacks > 0 || tp->sacked_bytes > 0)
		ti->tcpi_ca_state = TCP_CA_Disorder;
	else
		ti->tcpi_ca_state = TCP_CA_Open;
	ti->tcpi_retransmits = tp->rtx_mode == UST_RTX_RTO ? tp->backoff : 0;
	ti->tcpi_probes = tp->probes;
	ti->tcpi_backoff = tp->backoff;
	if (tp->tflags & TF_TS_OK)
		ti->tcpi_options |= TCPI_OPT_TIMESTAMPS;
	if (tp->tflags & TF_SACK_OK)
		ti->tcpi_options |= TCPI_OPT_SACK;
	if (tp->tflags & TF_WS_OK) {
		ti->tcpi_options |= TCPI_OPT_WSCALE;
		ti->tcpi_snd_wscale = tp->snd_wscale & 0xf;
		ti->tcpi_rcv_wscale = tp->rcv_wscale & 0xf;
	}
	ti->tcpi_rto = (uint32_t)(ust_tcp_rto_ns(tp) / 1000);
	ti->tcpi_ato = stk->conf.tcp.delack_ms * 1000;
	ti->tcpi_snd_mss = mss;
	ti->tcpi_rcv_mss = tp->rcv_mss;
	ti->tcpi_unacked = segs_of(tp->snd_max - tp->snd_una, mss);
	ti->tcpi_sacked = segs_of(tp->sacked_bytes, mss);
	ti->tcpi_last_ack_recv = ms_since(stk, tp->last_rcv_ns);
	ti->tcpi_last_data_recv = UST_TCP_T_MS(UST_TCP_T(stk->now) - tp->lrcv_t);
	ti->tcpi_last_data_sent = UST_TCP_T_MS(UST_TCP_T(stk->now) - tp->lsnd_t);
	ti->tcpi_pmtu = ust_tcp_pmtu(tp);
	ti->tcpi_rcv_ssthresh = tp->rcv_wnd;
	ti->tcpi_rtt = tp->srtt_us >> 3;
	ti->tcpi_rttvar = tp->rttvar_us >> 2;
	ti->tcpi_snd_ssthresh = tp->ssthresh >= TCP_LINUX_INFINITE_SSTHRESH ?
		TCP_LINUX_INFINITE_SSTHRESH : tp->ssthresh / RTE_MAX(mss, 1u);
	ti->tcpi_snd_cwnd = tp->cwnd / RTE_MAX(mss, 1u);
	ti->tcpi_advmss = tp->rcv_mss;
	ti->tcpi_reordering = tp->rack.reordering != 0 ?
		tp->rack.reordering : UST_TCP_DUPTHRESH;
	ti->tcpi_reord_seen = tp->rack.reord_seen;
	tcp_info_lost(tp, &ti->tcpi_lost, &ti->tcpi_retrans);
	ti->tcpi_rcv_space = tp->rcv_wnd;
	ti->tcpi_total_retrans = (uint32_t)tp->retrans;
	ti->tcpi_bytes_acked = tp->bytes_acked_total;
	ti->tcpi_bytes_received = tp->bytes_received;
	ti->tcpi_segs_out = (uint32_t)tp->segs_out;
	ti->tcpi_segs_in = (uint32_t)tp->segs_in;
	ti->tcpi_notsent_bytes = tcp_notsent_bytes(tp);
	ti->tcpi_snd_wnd = tp->snd_wnd;
	tcp_info_chrono(stk, tp, ti);
}

static void tcp_view_conn(const struct ust_tcp_sock *tp,
			  struct ust_tcp_view *v);
static uint32_t tcp_view_timer_ms(const struct ust_wheel *w,
				  const struct ust_timer *t);

void
ust_tcp_view_get(const struct ust_sock *s, struct ust_tcp_view *v)
{
	const struct ust_tcp_sock *tp = (const struct ust_tcp_sock *)s;

	memset(v, 0, sizeof(*v));
	v->laddr = s->laddr;
	v->raddr = s->raddr;
	v->lport = s->lport;
	v->rport = s->rport;
	if (tp->a6 != NULL) {
		v->v6 = true;
		memcpy(v->laddr6, tp->a6->local, 16);
		memcpy(v->raddr6, tp->a6->remote, 16);
	}
	v->state = tp->state;
	v->rcvbuf = tp->rcvbuf;
	v->sndbuf = s->sndbuf;
	if (tp->state == UST_TCP_LISTEN) {
		if (tp->listen != NULL) {
			v->acceptq = tp->listen->acceptq_len;
			v->synq = tp->listen->synq_len;
			v->backlog = tp->listen->backlog;
		}
		return;
	}
	tcp_view_conn(tp, v);
	if (s->stk != NULL && s->stk->tcp != NULL)
		v->timer_ms = tcp_view_timer_ms(&s->stk->tcp->wheel,
						&tp->rtx_timer);
}

/* the fields of a connection (not a listener) */
static void
tcp_view_conn(const struct ust_tcp_sock *tp, struct ust_tcp_view *v)
{
	v->backoff = tp->backoff;
	v->snd_una = tp->snd_una;
	v->snd_nxt = tp->snd_nxt;
	v->snd_max = tp->snd_max;
	v->snd_wnd = tp->snd_wnd;
	v->rcv_nxt = tp->rcv_nxt;
	v->rcv_wnd = tp->rcv_wnd;
	v->mss = tp->mss;
	v->cwnd = tp->cwnd;
	v->ssthresh = tp->ssthresh;
	v->srtt_us = tp->srtt_us >> 3;
	v->rttvar_us = tp->rttvar_us >> 2;
	v->rto_us = (uint32_t)(ust_tcp_rto_ns(tp) / 1000);
	v->retrans = tp->retrans;
	v->snd_queued = tp->snd_buffered;
	v->rcv_queued = tp->rcv_buffered;
	v->rmem_alloc = tp->rmem_alloc;
	v->fwd_alloc = tp->fwd_alloc;
}

/* ms until @t fires by the wheel's clock, 0 when not armed or due */
static uint32_t
tcp_view_timer_ms(const struct ust_wheel *w, const struct ust_timer *t)
{
	uint64_t now = w->now_tick, exp = t->expire;

	if (!t->armed || exp <= now)
		return 0;
	return (uint32_t)RTE_MIN((exp - now) * w->tick_ns / NS_PER_MS,
				 (uint64_t)UINT32_MAX);
}

/* @v for the hash entry @data when it is one the view lists (0), else -1 */
static int
tcp_view_obj(const struct ust_tcp_stack *ts, void *data, struct ust_tcp_view *v)
{
	const void *obj = tcp_obj_ptr(data);

	memset(v, 0, sizeof(*v));
	switch (tcp_obj_kind(data)) {
	case UST_TCP_OBJ_SOCK: {
		const struct ust_tcp_sock *tp = obj;

		/* the application's own are listed by descriptor; a
		 * listener is never in this hash, and its listen
		 * pointer is never followed here */
		if (!(tp->tflags & TF_ORPHAN) ||
		    tp->state == UST_TCP_LISTEN)
			return -1;
		v->laddr = tp->base.laddr;
		v->raddr = tp->base.raddr;
		v->lport = tp->base.lport;
		v->rport = tp->base.rport;
		if (tp->a6 != NULL) {
			v->v6 = true;
			memcpy(v->laddr6, tp->a6->local, 16);
			memcpy(v->raddr6, tp->a6->remote, 16);
		}
		v->state = tp->state;
		v->rcvbuf = tp->rcvbuf;
		v->sndbuf = tp->base.sndbuf;
		tcp_view_conn(tp, v);
		v->timer_ms = tcp_view_timer_ms(&ts->wheel,
						&tp->rtx_timer);
		v->accept_wait = tp->parent != NULL;
		return 0;
	}
	case UST_TCP_OBJ_REQ: {
		const struct ust_tcp_req *rq = obj;

		v->laddr = rq->laddr;
		v->raddr = rq->raddr;
		v->lport = rq->lport;
		v->rport = rq->rport;
		if (rq->a6 != NULL) {
			v->v6 = true;
			memcpy(v->laddr6, rq->a6->local, 16);
			memcpy(v->raddr6, rq->a6->remote, 16);
		}
		v->state = UST_TCP_SYN_RECEIVED;
		v->snd_una = rq->iss;
		v->snd_nxt = rq->iss + 1;
		v->snd_max = rq->iss + 1;
		v->rcv_nxt = rq->irs + 1;
		v->snd_wnd = rq->peer_window;
		v->mss = rq->peer_mss;
		v->backoff = rq->retries;
		v->timer_ms = tcp_view_timer_ms(&ts->wheel,
						&rq->timer);
		return 0;
	}
	case UST_TCP_OBJ_TW: {
		const struct ust_tcp_tw *tw = obj;

		v->laddr = tw->laddr;
		v->raddr = tw->raddr;
		v->lport = tw->lport;
		v->rport = tw->rport;
		if (tw->a6 != NULL) {
			v->v6 = true;
			memcpy(v->laddr6, tw->a6->local, 16);
			memcpy(v->raddr6, tw->a6->remote, 16);
		}
		v->state = UST_TCP_TIME_WAIT;
		v->snd_una = tw->snd_nxt;
		v->snd_nxt = tw->snd_nxt;
		v->snd_max = tw->snd_nxt;
		v->rcv_nxt = tw->rcv_nxt;
		v->timer_ms = tcp_view_timer_ms(&ts->wheel,
						&tw->timer);
		return 0;
	}
	default:
		return -1;
	}
}

/* a cursor with this bit walks conns6 (IPv6 4-tuples), after conns */
#define TCP_VIEW_POS6 (1u << 30)

int
ust_tcp_view_next(const struct ust_stack *stk, uint32_t *pos,
		  struct ust_tcp_view *v)
{
	const struct ust_tcp_stack *ts = stk->tcp;
	const void *key;
	uint32_t p6;
	void *data;

	if (ts == NULL || ts->conns == NULL)
		return -ENOENT;
	if (*pos < TCP_VIEW_POS6) {
		while (rte_hash_iterate(ts->conns, &key, &data, pos) >= 0)
			if (tcp_view_obj(ts, data, v) == 0)
				return 0;
		if (ts->conns6 == NULL)
			return -ENOENT;
		*pos = TCP_VIEW_POS6;
	}
	p6 = *pos - TCP_VIEW_POS6;
	while (ts->conns6 != NULL &&
	       rte_hash_iterate(ts->conns6, &key, &data, &p6) >= 0) {
		*pos = TCP_VIEW_POS6 + p6;
		if (tcp_view_obj(ts, data, v) == 0)
			return 0;
	}
	*pos = TCP_VIEW_POS6 + p6;
	return -ENOENT;
}

int
ust_tcp_info_linux(const struct ust_tcp_sock *tp, void *val, socklen_t *len)
{
	uint8_t buf[TCP_INFO_LEN];
	struct tcp_info_tail tail;
	struct tcp_info ti;
	size_t n;

	if (val == NULL || len == NULL)
		return -EINVAL;
	tcp_info_fill_linux(tp, &ti);
	memset(buf, 0, sizeof(buf));
	memcpy(buf, &ti, TCP_INFO_HEAD_LEN);
	memset(&tail, 0, sizeof(tail));
	if (tp->state != UST_TCP_LISTEN)
		tail.tcpi_rcv_wnd = tp->rcv_wnd;
	memcpy(buf + TCP_INFO_HEAD_LEN, &tail, sizeof(tail));
	n = RTE_MIN((size_t)*len, sizeof(buf));
	memcpy(val, buf, n);
	*len = (socklen_t)n;
	return 0;
}
