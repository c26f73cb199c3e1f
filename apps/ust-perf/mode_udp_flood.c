/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * --mode udp-flood: a UDP generator through the stack (the seeds' iperf
 * -u -b 0 -l 64): --flows connected sockets, one source port each, sending
 * datagrams of --size bytes round-robin with the zero-copy burst API, at
 * full rate or at --rate datagrams per second (a token bucket on the
 * clock). What the stack does not take (its TX staging full: the NIC is
 * the bottleneck) is counted, not retried.
 *
 * With --nb-cores N every stack floods its own --flows flows (their source
 * ports in its ephemeral slice) at --rate each: N x the datagrams.
 *
 * --stack kernel: the same on the kernel's connected UDP sockets, a burst
 * a sendmmsg() call (MSG_DONTWAIT); what it does not take is refused. The
 * frames out are then the datagrams the kernel took (one frame each, at
 * most 1472 bytes), their octets those frames' Ethernet length.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sys/socket.h>

#include <rte_mbuf.h>

#include "perf.h"
#include "ust_socket.h"

enum {
	F_PEER = PERF_OPT_MODE_BASE, F_DPORT, F_SIZE, F_RATE, F_FLOWS,
	F_BURST,
};

static const struct option flood_opts[] = {
	{ "peer", required_argument, NULL, F_PEER },
	{ "dst-port", required_argument, NULL, F_DPORT },
	{ "size", required_argument, NULL, F_SIZE },
	{ "rate", required_argument, NULL, F_RATE },
	{ "flows", required_argument, NULL, F_FLOWS },
	{ "burst", required_argument, NULL, F_BURST },
	{ NULL, 0, NULL, 0 },
};

struct flood {
	struct perf_peer peer;
	uint16_t dport;
	uint32_t size;
	uint64_t rate;
	uint32_t flows;
	uint32_t burst;
	int *sds;
	uint32_t next;
	uint64_t seq;
	uint64_t offered;   /* datagrams built */
	uint64_t sent;      /* taken by the stack */
	uint64_t refused;   /* not taken (TX staging full) */
	uint64_t nombuf;    /* not built for want of mbufs */
	uint64_t tokens_ns;
	uint64_t last_ns;
	/* --stack kernel: a burst's messages, each a datagram of its own */
	struct mmsghdr *mm;
	struct iovec *iov;
	uint8_t *kbuf;
	/* snapshots */
	uint64_t sent0, refused0, sent_tick;
	uint64_t frames0, frames_tick, octets_tick;
} __rte_cache_aligned;

/* the options (parsed here), copied to each worker's state */
static struct flood flood_state = {
	.dport = 9, .size = 64, .flows = 1, .burst = 32,
};
static struct flood flood_w[UST_GROUP_MAX];

static void
flood_parse(struct perf_ctx *c, int id, const char *arg)
{
	struct flood *f = &flood_state;

	c->priv = f;
	switch (id) {
	case F_PEER:
		perf_parse_peer(arg, &f->peer);
		break;
	case F_DPORT:
		f->dport = (uint16_t)perf_num("--dst-port", arg, 1, 65535);
		break;
	case F_SIZE:
		f->size = perf_num("--size", arg, 8, 1472);
		break;
	case F_RATE:
		f->rate = perf_rate("--rate", arg);
		break;
	case F_FLOWS:
		f->flows = perf_num("--flows", arg, 1, 4096);
		break;
	case F_BURST:
		f->burst = perf_num("--burst", arg, 1, 64);
		break;
	}
}

static void
flood_check(struct perf_ctx *c)
{
	c->priv = &flood_state;
	if (flood_state.peer.str == NULL)
		app_usage_error(PERF_PROG, "--mode udp-flood needs --peer "
				"A.B.C.D");
	perf_check_peer(c, &flood_state.peer);
}

static void
flood_begin(struct perf_ctx *c, struct perf_worker *w)
{
	struct flood *f = &flood_w[w->idx];
	struct ust_stack *stk = w->stk;
	union ust_sockaddr to;
	socklen_t tolen;
	uint32_t i;

	*f = flood_state;
	f->sds = calloc(f->flows, sizeof(*f->sds));
	if (f->sds == NULL)
		app_usage_error(PERF_PROG, "out of memory");
	tolen = perf_peer_addr(&f->peer, f->dport, &to);
	if (stk == NULL) {
		f->mm = calloc(f->burst, sizeof(*f->mm));
		f->iov = calloc(f->burst, sizeof(*f->iov));
		f->kbuf = calloc(f->burst, f->size);
		if (f->mm == NULL || f->iov == NULL || f->kbuf == NULL)
			app_usage_error(PERF_PROG, "out of memory");
		for (i = 0; i < f->burst; i++) {
			f->iov[i].iov_base = f->kbuf + (size_t)i * f->size;
			f->iov[i].iov_len = f->size;
			f->mm[i].msg_hdr.msg_iov = &f->iov[i];
			f->mm[i].msg_hdr.msg_iovlen = 1;
		}
	}
	for (i = 0; i < f->flows; i++) {
		int rc;

		f->sds[i] = perf_socket(stk, to.sa.sa_family, SOCK_DGRAM);
		if (f->sds[i] < 0)
			app_usage_error(PERF_PROG, "flow %u: %s (raise [stack] "
					"max_sockets)", i, strerror(-f->sds[i]));
		rc = perf_connect(stk, f->sds[i], &to.sa, tolen);
		if (rc != 0)
			app_usage_error(PERF_PROG, "--peer %s: %s", f->peer.str,
					strerror(-rc));
	}
	if (w->idx != 0)
		return;
	printf("%s: udp-flood to %s:%u, %u flow%s, %u-byte datagrams, %s",
	       PERF_PROG, f->peer.str, f->dport, f->flows,
	       f->flows == 1 ? "" : "s", f->size,
	       f->rate ? "rate-limited" : "full rate");
	if (c->nb_workers > 1)
		printf(", on each of %u %s", c->nb_workers,
		       c->kernel ? "workers" : "stacks");
	if (c->kernel)
		printf(", the kernel's sockets");
	printf("\n");
}

/* --stack kernel: @n datagrams in one sendmmsg() on the next flow;
 * returns how many the kernel took */
static unsigned int
flood_send_kernel(struct flood *f, unsigned int n)
{
	unsigned int i;
	int s;

	for (i = 0; i < n; i++) {
		f->seq++;
		memcpy(f->iov[i].iov_base, &f->seq, sizeof(f->seq));
	}
	f->offered += n;
	s = sendmmsg(f->sds[f->next], f->mm, n, MSG_DONTWAIT);
	/* EAGAIN or ENOBUFS: the queue is full; ECONNREFUSED: an ICMP
	 * port unreachable came back. Either way not sent. */
	if (s < 0)
		s = 0;
	return (unsigned int)s;
}

static bool
flood_poll(struct perf_ctx *c, struct perf_worker *w, uint64_t now)
{
	struct flood *f = &flood_w[w->idx];
	struct ust_stack *stk = w->stk;
	struct rte_mbuf *pk[64];
	unsigned int n = f->burst, i;
	int s;

	if (stk != NULL)
		ust_stack_poll(stk, now);
	if (f->rate != 0) {
		uint64_t cost = 1000000000ull / f->rate;

		if (cost == 0)
			cost = 1;
		if (f->last_ns == 0)
			f->last_ns = now;
		f->tokens_ns += now - f->last_ns;
		f->last_ns = now;
		if (f->tokens_ns > (uint64_t)f->burst * cost)
			f->tokens_ns = (uint64_t)f->burst * cost;
		n = (unsigned int)(f->tokens_ns / cost);
		if (n > f->burst)
			n = f->burst;
		f->tokens_ns -= n * cost;
		if (n == 0)
			return false;
	}
	RTE_SET_USED(c);
	if (stk == NULL) {
		s = (int)flood_send_kernel(f, n);
		goto sent;
	}
	if (rte_pktmbuf_alloc_bulk(w->pool, pk, n) != 0) {
		f->nombuf += n;
		return false;
	}
	for (i = 0; i < n; i++) {
		uint8_t *p = (uint8_t *)rte_pktmbuf_append(pk[i],
							   (uint16_t)f->size);

		f->seq++;
		memcpy(p, &f->seq, sizeof(f->seq));
	}
	f->offered += n;
	s = ust_send_burst(stk, f->sds[f->next], pk, n, NULL);
	if (s < 0)
		s = 0;
	if ((unsigned int)s < n)
		rte_pktmbuf_free_bulk(pk + s, n - (unsigned int)s);
sent:
	if ((unsigned int)s < n)
		f->refused += n - (unsigned int)s;
	f->sent += (unsigned int)s;
	if (++f->next == f->flows)
		f->next = 0;
	return s > 0;
}

/* worker @i's frames and their octets out so far: the stack's
 * counters, or (--stack kernel) the datagrams the kernel took */
static void
flood_out(const struct perf_ctx *c, unsigned int i, uint64_t *frames,
	  uint64_t *octets)
{
	const struct flood *f = &flood_w[i];
	struct ust_stats st;

	if (c->kernel) {
		*frames = __atomic_load_n(&f->sent, __ATOMIC_RELAXED);
		*octets = *frames * (RTE_ETHER_HDR_LEN + 20 + 8 + f->size);
		return;
	}
	ust_stack_stats_get(c->env.stks[i], &st);
	*frames = st.mib[UST_MIB_ETH_OUTFRAMES];
	*octets = st.mib[UST_MIB_ETH_OUTOCTETS];
}

static void
flood_measure(struct perf_ctx *c, struct perf_worker *w, uint64_t now)
{
	struct flood *f = &flood_w[w->idx];

	RTE_SET_USED(now);
	f->sent0 = f->sent;
	f->sent_tick = f->sent;
	f->refused0 = f->refused;
	flood_out(c, w->idx, &f->frames0, &f->octets_tick);
	f->frames_tick = f->frames0;
}

/* one stats line of worker @i (@prefix before it), over @dt seconds;
 * adds its figures to @tot */
static void
flood_tick_one(struct perf_ctx *c, unsigned int i, double dt,
	       const char *prefix, double tot[4])
{
	struct flood *f = &flood_w[i];
	uint64_t sent = __atomic_load_n(&f->sent, __ATOMIC_RELAXED);
	uint64_t refused = __atomic_load_n(&f->refused, __ATOMIC_RELAXED);
	uint64_t frames, octets;
	double pps, gbps, sps;

	flood_out(c, i, &frames, &octets);
	pps = (double)(frames - f->frames_tick) / dt;
	gbps = (double)(octets - f->octets_tick) * 8 / dt / 1e9;
	sps = (double)(sent - f->sent_tick) / dt;
	if (prefix != NULL)
		printf("%stx %8.3f Mpps %8.3f Gbit/s | sent %8.3f M/s | "
		       "refused %" PRIu64 "\n", prefix, pps / 1e6, gbps,
		       sps / 1e6, refused - f->refused0);
	tot[0] += pps;
	tot[1] += gbps;
	tot[2] += sps;
	tot[3] += (double)(refused - f->refused0);
	f->frames_tick = frames;
	f->octets_tick = octets;
	f->sent_tick = sent;
}

static void
flood_tick(struct perf_ctx *c, double dt)
{
	double tot[4] = { 0, 0, 0, 0 }, one[4];
	char pfx[32];
	unsigned int i;

	if (c->nb_workers == 1) {
		flood_tick_one(c, 0, dt, "", tot);
		return;
	}
	/* the total first, then each stack, of the same interval */
	for (i = 0; i < c->nb_workers; i++) {
		struct flood *f = &flood_w[i];
		uint64_t frames, octets;

		flood_out(c, i, &frames, &octets);
		tot[0] += (double)(frames - f->frames_tick) / dt;
		tot[1] += (double)(octets - f->octets_tick) * 8 / dt / 1e9;
		tot[2] += (double)(__atomic_load_n(&f->sent, __ATOMIC_RELAXED) -
				   f->sent_tick) / dt;
		tot[3] += (double)(__atomic_load_n(&f->refused,
						   __ATOMIC_RELAXED) -
				   f->refused0);
	}
	printf("tx %8.3f Mpps %8.3f Gbit/s | sent %8.3f M/s | refused %.0f "
	       "(%u stacks)\n", tot[0] / 1e6, tot[1], tot[2] / 1e6, tot[3],
	       c->nb_workers);
	for (i = 0; i < c->nb_workers; i++) {
		snprintf(pfx, sizeof(pfx), "  stack %u: ", i);
		flood_tick_one(c, i, dt, pfx, one);
	}
}

static void
flood_end(struct perf_ctx *c, struct perf_worker *w)
{
	struct flood *f = &flood_w[w->idx];
	uint32_t i;

	RTE_SET_USED(c);
	/* what is staged goes out before the sockets close */
	for (i = 0; w->stk != NULL && i < 1000 &&
	     ust_stack_tx_pending(w->stk) > 0; i++)
		ust_stack_flush(w->stk);
	for (i = 0; i < f->flows; i++)
		perf_close(w->stk, f->sds[i]);
	free(f->mm);
	free(f->iov);
	free(f->kbuf);
	f->mm = NULL;
	f->iov = NULL;
	f->kbuf = NULL;
}

/* worker @i's frames out over its measured interval */
static uint64_t
flood_frames(const struct perf_ctx *c, unsigned int i)
{
	uint64_t frames, octets;

	flood_out(c, i, &frames, &octets);
	return frames - flood_w[i].frames0;
}

static void
flood_report_stack(struct perf_ctx *c, const struct perf_worker *w,
		   struct app_json *j)
{
	const struct flood *f = &flood_w[w->idx];
	double secs = perf_secs(w);
	uint64_t frames = flood_frames(c, w->idx), sent = f->sent - f->sent0;

	json_u64(j, "sent", sent);
	json_dbl(j, "sent_per_s", secs > 0 ? (double)sent / secs : 0);
	json_u64(j, "frames_out", frames);
	json_dbl(j, "frames_out_per_s", secs > 0 ? (double)frames / secs : 0);
	json_u64(j, "refused", f->refused - f->refused0);
	json_u64(j, "nombuf", f->nombuf);
}

static void
flood_report(struct perf_ctx *c, struct app_json *j)
{
	struct flood *f = &flood_state;
	double secs = (double)(c->t_end - c->t_begin) / 1e9;
	uint64_t frames = 0, sent = 0, refused = 0, nombuf = 0;
	unsigned int i;

	for (i = 0; i < c->nb_workers; i++) {
		const struct flood *g = &flood_w[i];
		double s = perf_secs(&c->w[i]);
		uint64_t fr = flood_frames(c, i), se = g->sent - g->sent0;

		frames += fr;
		sent += se;
		refused += g->refused - g->refused0;
		nombuf += g->nombuf;
		if (c->nb_workers > 1)
			printf("%s: stack %u (lcore %u), %.2f s: %" PRIu64
			       " datagrams sent (%.3f M/s), %" PRIu64 " frames "
			       "out (%.3f Mpps), refused %" PRIu64 ", no mbuf %"
			       PRIu64 "\n", PERF_PROG, i, c->w[i].lcore, s, se,
			       s > 0 ? (double)se / s / 1e6 : 0, fr,
			       s > 0 ? (double)fr / s / 1e6 : 0,
			       g->refused - g->refused0, g->nombuf);
	}
	printf("%s: udp-flood, %.2f s measured: %" PRIu64 " datagrams sent "
	       "(%.3f M/s), %" PRIu64 " frames out (%.3f Mpps), refused %"
	       PRIu64 ", no mbuf %" PRIu64 "%s\n", PERF_PROG, secs, sent,
	       (double)sent / secs / 1e6, frames,
	       (double)frames / secs / 1e6, refused, nombuf,
	       c->nb_workers > 1 ? " (all stacks)" : "");
	if (j == NULL)
		return;
	json_obj(j, "options");
	json_str(j, "peer", f->peer.str);
	json_u64(j, "dst_port", f->dport);
	json_u64(j, "size", f->size);
	json_u64(j, "rate", f->rate);
	json_u64(j, "flows", f->flows);
	json_u64(j, "burst", f->burst);
	json_obj_end(j);
	json_obj(j, "result");
	json_u64(j, "sent", sent);
	json_dbl(j, "sent_per_s", (double)sent / secs);
	json_u64(j, "frames_out", frames);
	json_dbl(j, "frames_out_per_s", (double)frames / secs);
	json_u64(j, "refused", refused);
	json_u64(j, "nombuf", nombuf);
	json_obj_end(j);
}

const struct perf_mode perf_udp_flood = {
	.name = "udp-flood",
	.summary = "send UDP datagrams as fast as asked (the seeds' iperf -u)",
	.usage =
"  --peer ADDR            destination, A.B.C.D or (with --addr6 or\n"
"                         --stack kernel) an IPv6 address (required)\n"
"  --dst-port N           destination port (default: 9)\n"
"  --size BYTES           datagram payload, 8-1472 (default: 64)\n"
"  --rate PPS             datagrams per second, e.g. 500k, 2M (default: 0,\n"
"                         full rate)\n"
"  --flows N              sockets, one source port each (default: 1); with\n"
"                         --nb-cores N, on each stack\n"
"  --burst N              datagrams per send call, 1-64 (default: 32)\n",
	.opts = flood_opts,
	.kernel = true,
	.parse = flood_parse,
	.check = flood_check,
	.begin = flood_begin,
	.poll = flood_poll,
	.measure = flood_measure,
	.tick = flood_tick,
	.end = flood_end,
	.report = flood_report,
	.report_stack = flood_report_stack,
};
