/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * --mode l2-pingpong: the wire's own round trip, the floor under every
 * request-response figure. Raw Ethernet frames (EtherType 0x88B5, IEEE
 * 802's local experimental type) bounced between two ust-perf processes
 * with rte_eth_rx_burst() and rte_eth_tx_burst() on the stack's queue
 * pair, in the same polling loop as the other modes (the clock read, the
 * mode's poll, the stats tick) but with no stack work: the stack exists
 * and is never polled. What tcp-rr or ust-echo adds on top of this mode's
 * round trip at the same frame size is the stacks' cost per transaction.
 *
 *  - client (--role client): --inflight N frames, each a slot with its own
 *    sequence number; an answer to a slot's current sequence is one
 *    transaction, its latency the TSC time since the slot was sent, and
 *    the same mbuf goes straight back with the next sequence. A slot
 *    unanswered for PP_RESEND_MS is sent again with a new sequence
 *    (counted: "resent"; the peer not yet up, or a frame lost), and a late
 *    answer to an old sequence is counted ("stale") and freed.
 *  - server (--role server): every frame of the type goes back with its
 *    MAC addresses swapped; the clock starts at the first one, and the run
 *    ends PP_IDLE_MS after the last (the client gone) or at --duration.
 *
 * Frames without an IP header hash to one receive queue on an RSS NIC, so
 * the client runs on one stack; a server runs on any number and bounces
 * what each queue receives.
 */

#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "perf.h"

#define PP_ETHERTYPE 0x88B5
#define PP_MAGIC 0x55535050u      /* "USPP" */
#define PP_RESEND_MS 100
#define PP_IDLE_MS 2000
#define PP_BURST 32
#define PP_MAX_INFLIGHT 1024

enum {
	P_ROLE = PERF_OPT_MODE_BASE, P_SIZE, P_INFLIGHT, P_PEER_MAC,
};

static const struct option pp_opts[] = {
	{ "role", required_argument, NULL, P_ROLE },
	{ "size", required_argument, NULL, P_SIZE },
	{ "inflight", required_argument, NULL, P_INFLIGHT },
	{ "peer-mac", required_argument, NULL, P_PEER_MAC },
	{ NULL, 0, NULL, 0 },
};

/* after the Ethernet header */
struct pp_hdr {
	rte_be32_t magic;
	uint16_t slot;
	uint16_t pad;
	uint32_t seq;
} __rte_packed;

struct pp_slot {
	uint64_t sent_tsc;
	uint32_t seq;
};

struct pp {
	/* options */
	int role;                   /* 0: unset, 1: client, 2: server */
	uint32_t size;              /* frame bytes, FCS excluded */
	uint32_t inflight;
	bool peer_mac_set;
	struct rte_ether_addr peer_mac;
	/* the worker's */
	struct rte_ether_addr mac;
	uint16_t port;
	uint16_t queue;
	struct pp_slot *slots;
	bool started;
	uint64_t resend_cyc;
	uint64_t next_check;        /* TSC: look for slots to resend */
	uint64_t last_rx_tsc;
	uint64_t txns;              /* client: answers; server: bounced */
	uint64_t resent;
	uint64_t stale;
	uint64_t other;             /* frames of another type, freed */
	uint64_t tx_full;           /* frames the TX queue did not take */
	uint64_t nombuf;
	uint64_t txns0, txns_tick, resent0, stale0, other0, tx_full0;
	struct app_hist lat;        /* ns, in the measured interval */
} __rte_cache_aligned;

static struct pp pp_state = { .size = 64, .inflight = 1 };
static struct pp pp_w[UST_GROUP_MAX];

static void
pp_parse(struct perf_ctx *c, int id, const char *arg)
{
	struct pp *p = &pp_state;

	c->priv = p;
	switch (id) {
	case P_ROLE:
		if (strcmp(arg, "client") == 0)
			p->role = 1;
		else if (strcmp(arg, "server") == 0)
			p->role = 2;
		else
			app_usage_error(PERF_PROG, "--role %s: expected client "
					"or server", arg);
		break;
	case P_SIZE:
		p->size = perf_num("--size", arg, RTE_ETHER_MIN_LEN -
				   RTE_ETHER_CRC_LEN, 9018);
		break;
	case P_INFLIGHT:
		p->inflight = perf_num("--inflight", arg, 1, PP_MAX_INFLIGHT);
		break;
	case P_PEER_MAC:
		if (rte_ether_unformat_addr(arg, &p->peer_mac) != 0)
			app_usage_error(PERF_PROG, "--peer-mac %s: expected "
					"XX:XX:XX:XX:XX:XX", arg);
		p->peer_mac_set = true;
		break;
	}
}

static void
pp_check(struct perf_ctx *c)
{
	c->priv = &pp_state;
	if (pp_state.role == 0)
		app_usage_error(PERF_PROG, "--mode l2-pingpong needs --role "
				"client|server");
	/* the server's clock starts at the first frame */
	c->clock_on_peer = pp_state.role == 2;
}

static struct rte_mbuf *
pp_frame(struct pp *p, struct rte_mempool *pool)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_ether_hdr *eh;

	if (m == NULL)
		return NULL;
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m,
							(uint16_t)p->size);
	if (eh == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(eh, 0, p->size);
	eh->dst_addr = p->peer_mac;
	eh->src_addr = p->mac;
	eh->ether_type = rte_cpu_to_be_16(PP_ETHERTYPE);
	return m;
}

static void
pp_begin(struct perf_ctx *c, struct perf_worker *w)
{
	struct pp *p = &pp_w[w->idx];
	uint16_t room = rte_pktmbuf_data_room_size(w->pool) -
		RTE_PKTMBUF_HEADROOM;

	*p = pp_state;
	if (p->role == 1 && c->nb_workers > 1)
		app_usage_error(PERF_PROG, "--mode l2-pingpong --role client "
				"runs on one stack (--nb-cores 1): frames "
				"without an IP header all hash to one queue");
	if (p->size > room ||
	    p->size > (uint32_t)c->env.port.mtu + RTE_ETHER_HDR_LEN)
		app_usage_error(PERF_PROG, "--size %u: above the port's MTU "
				"%u + 14 or its mbufs' %u bytes", p->size,
				c->env.port.mtu, room);
	if (!p->peer_mac_set)
		memset(&p->peer_mac, 0xff, sizeof(p->peer_mac));
	p->mac = c->env.port.mac;
	p->port = c->env.cfg.port.port_id;
	p->queue = w->idx;
	p->resend_cyc = c->tsc_hz * PP_RESEND_MS / 1000;
	app_hist_init(&p->lat);
	if (p->role == 1) {
		p->slots = calloc(p->inflight, sizeof(*p->slots));
		if (p->slots == NULL)
			app_usage_error(PERF_PROG, "out of memory");
	}
	if (w->idx != 0)
		return;
	printf("%s: l2-pingpong %s, %u-byte frames%s", PERF_PROG,
	       p->role == 1 ? "client" : "server", p->size,
	       p->role == 1 ? "" : " (bounced)");
	if (p->role == 1)
		printf(", %u in flight", p->inflight);
	printf("\n");
}

/* send slot @i with its next sequence, in @m (a fresh frame when NULL);
 * false when it could not be built */
static bool
pp_stamp(struct pp *p, struct rte_mbuf *m, struct rte_mempool *pool,
	 uint32_t i, uint64_t tsc)
{
	struct pp_hdr *h;

	if (m == NULL) {
		m = pp_frame(p, pool);
		if (m == NULL) {
			p->nombuf++;
			return false;
		}
	}
	h = rte_pktmbuf_mtod_offset(m, struct pp_hdr *, RTE_ETHER_HDR_LEN);
	h->magic = rte_cpu_to_be_32(PP_MAGIC);
	h->slot = (uint16_t)i;
	h->seq = ++p->slots[i].seq;
	p->slots[i].sent_tsc = tsc;
	if (rte_eth_tx_burst(p->port, p->queue, &m, 1) == 0) {
		/* the slot is resent at its deadline */
		rte_pktmbuf_free(m);
		p->tx_full++;
	}
	return true;
}

/* @m is one of ours (right type, long enough, our magic) */
static inline bool
pp_ours(const struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eh;
	const struct pp_hdr *h;

	if (rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN + sizeof(*h))
		return false;
	eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	h = (const struct pp_hdr *)(eh + 1);
	return eh->ether_type == rte_cpu_to_be_16(PP_ETHERTYPE) &&
		h->magic == rte_cpu_to_be_32(PP_MAGIC);
}

static bool
pp_poll_client(struct perf_ctx *c, struct perf_worker *w, struct pp *p)
{
	struct rte_mbuf *rx[PP_BURST], *tx[PP_BURST];
	uint16_t n, i, nt = 0, s;
	uint64_t tsc = rte_rdtsc();
	double ns_per_cyc = 1e9 / (double)c->tsc_hz;

	if (unlikely(!p->started)) {
		for (i = 0; i < p->inflight; i++)
			if (!pp_stamp(p, NULL, w->pool, i, tsc))
				return false;
		p->started = true;
	}
	n = rte_eth_rx_burst(p->port, p->queue, rx, PP_BURST);
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = rx[i];
		struct rte_ether_hdr *eh;
		struct pp_hdr *h;
		struct pp_slot *sl;

		if (!pp_ours(m)) {
			p->other++;
			rte_pktmbuf_free(m);
			continue;
		}
		eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		h = (struct pp_hdr *)(eh + 1);
		if (h->slot >= p->inflight ||
		    h->seq != p->slots[h->slot].seq) {
			p->stale++;
			rte_pktmbuf_free(m);
			continue;
		}
		sl = &p->slots[h->slot];
		p->txns++;
		if (w->measuring)
			app_hist_add(&p->lat, (uint64_t)((double)(tsc -
					sl->sent_tsc) * ns_per_cyc));
		/* back to the peer in the same mbuf, the next sequence */
		eh->dst_addr = eh->src_addr;
		eh->src_addr = p->mac;
		h->seq = ++sl->seq;
		sl->sent_tsc = tsc;
		tx[nt++] = m;
	}
	if (nt > 0) {
		s = rte_eth_tx_burst(p->port, p->queue, tx, nt);
		if (s < nt) {
			/* their slots are resent at the deadline */
			rte_pktmbuf_free_bulk(tx + s, nt - s);
			p->tx_full += nt - s;
		}
	}
	if (unlikely(tsc >= p->next_check)) {
		/* a slot unanswered too long: the frame was lost, or the
		 * peer was not there yet (looked for every tenth of the
		 * deadline, not every poll: the slots are up to 1024) */
		p->next_check = tsc + p->resend_cyc / 10;
		for (i = 0; i < p->inflight; i++)
			if (tsc - p->slots[i].sent_tsc > p->resend_cyc &&
			    pp_stamp(p, NULL, w->pool, i, tsc))
				p->resent++;
	}
	return n > 0;
}

static bool
pp_poll_server(struct perf_ctx *c, struct perf_worker *w, struct pp *p,
	       uint64_t now)
{
	struct rte_mbuf *rx[PP_BURST], *tx[PP_BURST];
	uint16_t n, i, nt = 0, s;
	uint64_t tsc = rte_rdtsc();

	n = rte_eth_rx_burst(p->port, p->queue, rx, PP_BURST);
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = rx[i];
		struct rte_ether_hdr *eh;

		if (!pp_ours(m)) {
			p->other++;
			rte_pktmbuf_free(m);
			continue;
		}
		eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		eh->dst_addr = eh->src_addr;
		eh->src_addr = p->mac;
		tx[nt++] = m;
	}
	if (nt > 0) {
		if (unlikely(!p->started)) {
			p->started = true;
			perf_start_clock(c, now);
		}
		p->last_rx_tsc = tsc;
		s = rte_eth_tx_burst(p->port, p->queue, tx, nt);
		if (s < nt) {
			rte_pktmbuf_free_bulk(tx + s, nt - s);
			p->tx_full += nt - s;
		}
		p->txns += s;
	} else if (p->started && w->idx == 0 &&
		   tsc - p->last_rx_tsc > c->tsc_hz * PP_IDLE_MS / 1000) {
		/* the client is gone */
		perf_stop(c, now);
	}
	return n > 0;
}

static bool
pp_poll(struct perf_ctx *c, struct perf_worker *w, uint64_t now)
{
	struct pp *p = &pp_w[w->idx];

	if (p->role == 1)
		return pp_poll_client(c, w, p);
	return pp_poll_server(c, w, p, now);
}

static void
pp_measure(struct perf_ctx *c, struct perf_worker *w, uint64_t now)
{
	struct pp *p = &pp_w[w->idx];

	RTE_SET_USED(c);
	RTE_SET_USED(now);
	p->txns0 = p->txns;
	p->txns_tick = p->txns;
	p->resent0 = p->resent;
	p->stale0 = p->stale;
	p->other0 = p->other;
	p->tx_full0 = p->tx_full;
	app_hist_init(&p->lat);
}

static void
pp_tick(struct perf_ctx *c, double dt)
{
	double rate = 0;
	uint64_t resent = 0;
	unsigned int i;

	for (i = 0; i < c->nb_workers; i++) {
		struct pp *p = &pp_w[i];
		uint64_t t = __atomic_load_n(&p->txns, __ATOMIC_RELAXED);

		rate += (double)(t - p->txns_tick) / dt;
		p->txns_tick = t;
		resent += __atomic_load_n(&p->resent, __ATOMIC_RELAXED);
	}
	printf("%s %10.0f /s | resent %" PRIu64 "\n",
	       pp_state.role == 1 ? "round trips" : "bounced", rate, resent);
}

static void
pp_end(struct perf_ctx *c, struct perf_worker *w)
{
	RTE_SET_USED(c);
	free(pp_w[w->idx].slots);
	pp_w[w->idx].slots = NULL;
}

static double
per(double a, double b)
{
	return b > 0 ? a / b : 0;
}

static void
pp_report_stack(struct perf_ctx *c, const struct perf_worker *w,
		struct app_json *j)
{
	const struct pp *p = &pp_w[w->idx];
	double secs = perf_secs(w);

	RTE_SET_USED(c);
	json_u64(j, "transactions", p->txns - p->txns0);
	json_dbl(j, "transactions_per_s", per((double)(p->txns - p->txns0),
					      secs));
	json_u64(j, "tx_full", p->tx_full - p->tx_full0);
	json_u64(j, "other", p->other - p->other0);
}

static void
pp_report(struct perf_ctx *c, struct app_json *j)
{
	const struct pp *o = &pp_state;
	double secs = (double)(c->t_end - c->t_begin) / 1e9;
	uint64_t txns = 0, resent = 0, stale = 0, other = 0, tx_full = 0;
	uint64_t nombuf = 0;
	const struct app_hist *lat = &pp_w[0].lat;
	unsigned int i;

	for (i = 0; i < c->nb_workers; i++) {
		const struct pp *p = &pp_w[i];

		txns += p->txns - p->txns0;
		resent += p->resent - p->resent0;
		stale += p->stale - p->stale0;
		other += p->other - p->other0;
		tx_full += p->tx_full - p->tx_full0;
		nombuf += p->nombuf;
	}
	if (o->role == 1) {
		printf("%s: l2-pingpong client, %.2f s measured: %" PRIu64
		       " round trips (%.0f/s), %u in flight\n", PERF_PROG, secs,
		       txns, per((double)txns, secs), o->inflight);
		printf("round trip (us): p50 %.2f  p99 %.2f  p99.9 %.2f  "
		       "min %.2f  max %.2f\n",
		       app_hist_quantile(lat, 0.5) / 1e3,
		       app_hist_quantile(lat, 0.99) / 1e3,
		       app_hist_quantile(lat, 0.999) / 1e3,
		       lat->count ? (double)lat->min / 1e3 : 0,
		       (double)lat->max / 1e3);
	} else {
		printf("%s: l2-pingpong server, %.2f s measured: %" PRIu64
		       " frames bounced (%.0f/s)\n", PERF_PROG, secs, txns,
		       per((double)txns, secs));
	}
	printf("resent %" PRIu64 ", stale %" PRIu64 ", other frames %" PRIu64
	       ", tx full %" PRIu64 ", no mbuf %" PRIu64 "\n", resent, stale,
	       other, tx_full, nombuf);
	if (o->role == 1 && txns == 0)
		c->status = 1;
	if (j == NULL)
		return;
	json_obj(j, "options");
	json_str(j, "role", o->role == 1 ? "client" : "server");
	json_u64(j, "size", o->size);
	json_u64(j, "inflight", o->inflight);
	json_obj_end(j);
	json_obj(j, "result");
	json_dbl(j, "seconds", secs);
	json_u64(j, "transactions", txns);
	json_dbl(j, "transactions_per_s", per((double)txns, secs));
	if (o->role == 1)
		json_hist(j, "latency_ns", lat);
	json_u64(j, "resent", resent);
	json_u64(j, "stale", stale);
	json_u64(j, "other", other);
	json_u64(j, "tx_full", tx_full);
	json_u64(j, "nombuf", nombuf);
	json_dbl(j, "cycles_per_txn", per((double)c->busy_tsc, (double)txns));
	json_dbl(j, "loop_cycles_per_txn",
		 per((double)(c->tsc_end - c->tsc_begin), (double)txns));
	json_obj_end(j);
}

const struct perf_mode perf_l2_pingpong = {
	.name = "l2-pingpong",
	.summary = "the wire's round trip: raw frames bounced, no stack",
	.usage =
"  --role client|server   (required); the client runs on one stack\n"
"  --size BYTES           frame length without the FCS, 60-9018 (default:\n"
"                         64; 106 is the frame of a 64-byte UDP or a 40-byte\n"
"                         timestamped TCP payload)\n"
"  --inflight N           client: frames in flight, 1-1024 (default: 1)\n"
"  --peer-mac MAC         client: destination (default: broadcast; the\n"
"                         server answers to the source)\n",
	.opts = pp_opts,
	.parse = pp_parse,
	.check = pp_check,
	.begin = pp_begin,
	.poll = pp_poll,
	.measure = pp_measure,
	.tick = pp_tick,
	.end = pp_end,
	.report = pp_report,
	.report_stack = pp_report_stack,
};
