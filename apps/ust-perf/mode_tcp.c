/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * --mode tcp-rr and --mode tcp-stream: TCP through the stack, to measure
 * what the TX layouts (ust_tcp_tx.h) cost.
 *
 * tcp-rr (--role client): --conns connections to --peer:--port, each with
 * exactly one --size-byte request outstanding and a --response-byte
 * answer awaited (ping-pong); transactions and their latency (p50, p99).
 * tcp-rr (--role server): answers every --size bytes read on a connection
 * with --response bytes.
 * tcp-stream (--role client): --conns connections that send --size-byte
 * messages as fast as the send buffers take them; (--role server): reads
 * and discards, counting bytes.
 *
 * A server's clock (--warmup, then --duration) starts at its first
 * connection; its run ends when every connection it accepted is closed
 * again, or at the end of --duration (or SIGINT), after which it serves
 * the open connections up to 5 s more, unmeasured, for the client to end
 * first. Started before the client with the same --warmup and --duration,
 * its measured interval is the client's, a handshake later.
 *
 * --zc (the senders: both roles of tcp-rr, the tcp-stream client): the
 * messages are sent with ust_send_zc() from --zc-bufs buffers in an area
 * mmap()ed (2 MB hugepages when there are free ones, else 4 KB pages) and
 * registered with ust_zc_register(), the port's DMA mapper
 * (ust_port_dma_mapper()) installed on the stack first with
 * ust_stack_set_dma_mapper() (--zc-map per-send or once; per send,
 * each buffer starts a 4 KiB unit of its own, so that every send maps
 * what it sends rather than find it mapped for a buffer in flight); a buffer
 * is used again only after ust_zc_completions() returned its cookie. On a
 * port that cannot map DMA (no mapper: a vdev-bus PMD, IOVA as PA; or the
 * registration's probe map fails with ENOTSUP) the run is refused with
 * the reason (exit status 2): zero copy is never faked. A PMD frees
 * transmitted mbufs lazily (e1000 and virtio only when their TX ring is
 * nearly full): when no buffer is free, and at the end of the run until
 * every buffer has completed, the stack's port is asked to free what the
 * NIC is done with (rte_eth_tx_done_cleanup()). A PMD without it (e1000's
 * em and virtio in DPDK 22.11) frees only as its ring turns over: give it
 * a TX ring smaller than --zc-bufs ([port] tx_desc) so that sends do not
 * starve, and at the end of the run ust-perf turns the ring over with
 * filler frames (a locally administered destination, ethertype 0x88B5,
 * sent with rte_eth_tx_burst(), not through the stack) so that every map
 * has had its unmap before the counters are reported.
 *
 * --verify (both roles): every byte sent is a pattern of its offset in the
 * connection's byte stream (32-bit little-endian words, word w is
 * w * 2654435761 ^ 0x5eed1234, the bytes of a zero-copy buffer written
 * into it before ust_send_zc()), and every byte received is checked
 * against the same pattern: a kernel echo server, a kernel sink that
 * checks the pattern (tests/vm/pattern_sink.py), or another ust-perf with
 * --verify. A mismatch is counted (exit status 1). The JSON's "verify"
 * object has the bytes sent and checked over the whole run.
 *
 * Reported over the measured interval: transactions/s (or Gbit/s), the
 * latency percentiles, the TX layout counters' delta (segments and pages
 * per packet, bytes copied per transaction), and the main lcore's cycles
 * per transaction: the sum of the TSC cycles of the poll iterations that
 * did work (busy), and all the loop's cycles (loop), each divided by the
 * transactions. tcp-stream reports the same per KiB.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <netinet/tcp.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "perf.h"
#include "ust_socket.h"
#include "ust_tcp.h"
#include "ust_tcp_tx.h"

#define MAX_CONNS 16384
#define MAX_RR_SIZE 65536
#define MAX_STREAM_SIZE (1u << 20)
#define BURST 32
#define LISTENER UINT64_MAX
#define HUGE_2M (2u << 20)
#define LISTEN_BACKLOG 4096 /* the server's accept queue */

enum {
	T_ROLE = PERF_OPT_MODE_BASE, T_PEER, T_PORT, T_CONNS, T_SIZE,
	T_RESPONSE, T_ZC, T_ZC_MAP, T_ZC_BUFS, T_SNDBUF, T_RCVBUF, T_VERIFY,
};

static const struct option tcp_opts[] = {
	{ "role", required_argument, NULL, T_ROLE },
	{ "peer", required_argument, NULL, T_PEER },
	{ "port", required_argument, NULL, T_PORT },
	{ "conns", required_argument, NULL, T_CONNS },
	{ "size", required_argument, NULL, T_SIZE },
	{ "response", required_argument, NULL, T_RESPONSE },
	{ "zc", no_argument, NULL, T_ZC },
	{ "zc-map", required_argument, NULL, T_ZC_MAP },
	{ "zc-bufs", required_argument, NULL, T_ZC_BUFS },
	{ "sndbuf", required_argument, NULL, T_SNDBUF },
	{ "rcvbuf", required_argument, NULL, T_RCVBUF },
	{ "verify", no_argument, NULL, T_VERIFY },
	{ NULL, 0, NULL, 0 },
};

/* a connection's state */
enum {
	C_FREE = 0,       /* no socket */
	C_CONNECTING,     /* client: SYN sent */
	C_SEND,           /* client: sending a request; stream: sending */
	C_WAIT,           /* client: the response is awaited */
	C_SERVE,          /* server: accepted */
	C_DEAD,           /* client: failed, closed */
};

struct tconn {
	int sd;
	uint8_t st;
	bool want_out;      /* EPOLLOUT asked for */
	uint32_t off;       /* bytes of the message being sent */
	uint32_t have;      /* bytes of the message being received */
	uint32_t owed;      /* server: responses owed */
	uint64_t sent_ns;   /* client: when the request went */
	uint64_t tx_off;    /* --verify: bytes of the stream sent */
	uint64_t rx_off;    /* --verify: bytes of the stream received */
};

struct tcp_perf {
	bool rr;            /* tcp-rr, else tcp-stream */
	bool server;
	bool role_set;
	const char *peer_str;
	rte_be32_t peer;
	uint16_t port;
	uint32_t conns;
	uint32_t size;
	uint32_t response;
	uint32_t sndbuf;
	uint32_t rcvbuf;
	bool zc;
	enum ust_zc_map_mode zc_map;
	uint32_t zc_bufs;
	bool verify;
	/* sockets */
	int ls;             /* server: the listener */
	struct app_listen_watch lw; /* server: says once it refuses */
	int ep;
	struct tconn *c;    /* indexed by sd (server) or connection (client) */
	uint32_t nc;        /* entries of c */
	uint32_t open;      /* connections open */
	uint8_t *msg;       /* what non-zc sends send */
	/* --zc */
	uint8_t *area;
	size_t area_len;
	size_t page_sz;
	uint32_t slot_sz;
	int32_t *free_slots;
	uint32_t nfree;
	uint64_t zc_starved; /* sends deferred: no free buffer */
	uint64_t zc_cleanups; /* rte_eth_tx_done_cleanup() calls */
	uint64_t zc_fillers; /* filler frames sent to turn the ring over */
	bool no_cleanup;     /* the PMD has no tx_done_cleanup */
	uint16_t port_id, nb_queues;
	/* --verify, whole run */
	uint64_t vfy_sent;   /* bytes sent with the pattern */
	uint64_t vfy_checked; /* bytes received and checked */
	uint64_t vfy_errors; /* bytes that differ */
	uint64_t vfy_first;  /* stream offset of the first that differs */
	/* counters (whole run) */
	uint64_t txns;       /* rr: transactions (client: responses
			      * received; server: requests answered) */
	uint64_t bytes_out;  /* accepted by the stack */
	uint64_t bytes_in;
	uint64_t accepted;
	uint64_t connects;
	uint64_t closed;
	uint64_t errors;     /* connections ended by an error */
	uint64_t conn_timeouts;
	uint64_t resets;
	int last_error;
	struct app_hist lat; /* client rr: in the measured interval */
	bool measuring;
	/* snapshots: at the start of the measure, at its end, at the last
	 * tick */
	uint64_t txns0, out0, in0, txns1, out1, in1, txns_t, out_t, in_t;
	struct ust_tcp_tx_stats tx0, tx1;
	bool stopping;       /* client: no new request, no more data */
};

static struct tcp_perf tp = {
	.port = 5201, .conns = 1, .size = 0, .zc_map = UST_ZC_MAP_PER_SEND,
	.ls = -1, .ep = -1,
};

static struct tcp_perf *
state(struct perf_ctx *c)
{
	c->priv = &tp;
	return &tp;
}

static void
tcp_parse(struct perf_ctx *c, int id, const char *arg)
{
	struct tcp_perf *t = state(c);

	switch (id) {
	case T_ROLE:
		if (strcmp(arg, "server") == 0)
			t->server = true;
		else if (strcmp(arg, "client") == 0)
			t->server = false;
		else
			app_usage_error(PERF_PROG, "--role %s: expected server "
					"or client", arg);
		t->role_set = true;
		break;
	case T_PEER:
		t->peer_str = arg;
		if (ust_parse_ipv4(arg, &t->peer) != 0)
			app_usage_error(PERF_PROG, "--peer %s: expected "
					"A.B.C.D", arg);
		break;
	case T_PORT:
		t->port = (uint16_t)perf_num("--port", arg, 1, 65535);
		break;
	case T_CONNS:
		t->conns = perf_num("--conns", arg, 1, MAX_CONNS);
		break;
	case T_SIZE:
		t->size = perf_num("--size", arg, 1, c->mode == &perf_tcp_rr ?
				   MAX_RR_SIZE : MAX_STREAM_SIZE);
		break;
	case T_RESPONSE:
		t->response = perf_num("--response", arg, 1, MAX_RR_SIZE);
		break;
	case T_ZC:
		t->zc = true;
		break;
	case T_ZC_MAP:
		if (strcmp(arg, "per-send") == 0)
			t->zc_map = UST_ZC_MAP_PER_SEND;
		else if (strcmp(arg, "once") == 0)
			t->zc_map = UST_ZC_MAP_ONCE;
		else
			app_usage_error(PERF_PROG, "--zc-map %s: expected "
					"per-send or once", arg);
		break;
	case T_ZC_BUFS:
		t->zc_bufs = perf_num("--zc-bufs", arg, 1, 1u << 20);
		break;
	case T_SNDBUF:
		t->sndbuf = perf_num("--sndbuf", arg, 1, INT32_MAX / 2);
		break;
	case T_RCVBUF:
		t->rcvbuf = perf_num("--rcvbuf", arg, 1, INT32_MAX / 2);
		break;
	case T_VERIFY:
		t->verify = true;
		break;
	}
}

static void
tcp_check(struct perf_ctx *c)
{
	struct tcp_perf *t = state(c);
	const char *m = c->mode->name;

	t->rr = c->mode == &perf_tcp_rr;
	if (!t->role_set)
		app_usage_error(PERF_PROG, "--mode %s needs --role server or "
				"--role client", m);
	if (!t->server && t->peer == 0)
		app_usage_error(PERF_PROG, "--mode %s --role client needs "
				"--peer A.B.C.D", m);
	if (t->server && t->peer != 0)
		app_usage_error(PERF_PROG, "--peer is a --role client "
				"option");
	if (!t->rr && t->response != 0)
		app_usage_error(PERF_PROG, "--response: a tcp-rr option");
	if (!t->rr && t->server && t->zc)
		app_usage_error(PERF_PROG, "--zc: the tcp-stream server only "
				"receives (give it to the client)");
	if (t->size == 0)
		t->size = t->rr ? 64 : 65536;
	if (t->response == 0)
		t->response = t->size;
	if (t->zc_bufs == 0)
		t->zc_bufs = t->server ? 4096 : t->conns * (t->rr ? 8 : 64);
	c->clock_on_peer = t->server;
}

/* ---- helpers ---- */

static void
set_opts(struct tcp_perf *t, struct ust_stack *stk, int sd)
{
	if (t->rr)
		app_set_int(stk, sd, IPPROTO_TCP, TCP_NODELAY, 1);
	if (t->sndbuf != 0)
		app_set_int(stk, sd, SOL_SOCKET, SO_SNDBUF, (int)t->sndbuf);
	if (t->rcvbuf != 0)
		app_set_int(stk, sd, SOL_SOCKET, SO_RCVBUF, (int)t->rcvbuf);
}

static void
want_out(struct tcp_perf *t, struct ust_stack *stk, struct tconn *x,
	 uint64_t key, bool on)
{
	if (x->want_out == on)
		return;
	x->want_out = on;
	app_watch(stk, t->ep, UST_EPOLL_CTL_MOD, x->sd,
		  UST_EPOLLIN | (on ? UST_EPOLLOUT : 0), key);
}

static void
conn_error(struct tcp_perf *t, int err)
{
	t->errors++;
	t->last_error = err;
	if (err == ECONNRESET)
		t->resets++;
	else if (err == ETIMEDOUT)
		t->conn_timeouts++;
}

/* ---- --verify: a pattern of the stream offset ---- */

static inline uint32_t
pat_word(uint64_t w)
{
	return (uint32_t)(w * 2654435761u) ^ 0x5eed1234u;
}

static inline uint8_t
pat_byte(uint64_t off)
{
	return (uint8_t)(pat_word(off >> 2) >> ((off & 3) * 8));
}

/* Write the pattern of stream offsets [off, off + len) to @p. */
static void
pat_fill(uint8_t *p, uint64_t off, uint32_t len)
{
	uint32_t i = 0, w;

	for (; i < len && ((off + i) & 3) != 0; i++)
		p[i] = pat_byte(off + i);
	for (; i + 4 <= len; i += 4) {
		w = pat_word((off + i) >> 2);
		p[i] = (uint8_t)w;
		p[i + 1] = (uint8_t)(w >> 8);
		p[i + 2] = (uint8_t)(w >> 16);
		p[i + 3] = (uint8_t)(w >> 24);
	}
	for (; i < len; i++)
		p[i] = pat_byte(off + i);
}

/* Check @len received bytes at stream offset @off. */
static void
pat_check(struct tcp_perf *t, const uint8_t *p, uint64_t off, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (unlikely(p[i] != pat_byte(off + i))) {
			if (t->vfy_errors++ == 0)
				t->vfy_first = off + i;
		}
	t->vfy_checked += len;
}

/* ---- zero copy ---- */

static void
zc_setup(struct perf_ctx *c, struct tcp_perf *t)
{
	struct ust_dma_mapper dm = { 0 };
	char why[128] = "";
	size_t len;
	int rc;

	/* per send: each buffer in 4 KiB units of its own, so that every
	 * send maps its pages (one map per page per packet, the kernel's
	 * streaming model), not units a buffer still in flight holds mapped */
	t->slot_sz = RTE_ALIGN_CEIL(RTE_MAX(t->size, t->response),
				    t->zc_map == UST_ZC_MAP_PER_SEND ? 4096u :
				    64u);
	len = (size_t)t->slot_sz * t->zc_bufs;
	t->page_sz = HUGE_2M;
	t->area_len = RTE_ALIGN_CEIL(len, (size_t)HUGE_2M);
	t->area = mmap(NULL, t->area_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_POPULATE,
		       -1, 0);
	if (t->area == MAP_FAILED) {
		t->page_sz = (size_t)sysconf(_SC_PAGESIZE);
		t->area_len = RTE_ALIGN_CEIL(len, t->page_sz);
		t->area = mmap(NULL, t->area_len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
			       -1, 0);
		if (t->area == MAP_FAILED)
			app_usage_error(PERF_PROG, "--zc: cannot map %zu "
					"bytes: %s", t->area_len,
					strerror(errno));
	}
	memset(t->area, 0xa5, t->area_len);
	/* the stack maps through the mapper installed on it: the port's
	 * device (drivers/port), or the reason the port cannot map */
	rc = ust_port_dma_mapper(c->env.cfg.port.port_id, &dm, why,
				 sizeof(why));
	if (rc == 0)
		rc = ust_stack_set_dma_mapper(c->env.stk, &dm);
	if (rc == 0)
		rc = ust_zc_register(c->env.stk, t->area, t->area_len,
				     t->page_sz, t->zc_map);
	if (rc == -ENOTSUP) {
		/* refused, never faked: no number is reported */
		if (why[0] == '\0')
			ust_zc_check(c->env.stk, why, sizeof(why));
		if (why[0] == '\0')
			snprintf(why, sizeof(why), "the probe map on %s "
				 "failed", dm.name != NULL ? dm.name :
				 "the device");
		fprintf(stderr, "%s: --zc: port %u (%s) cannot map DMA (%s): "
			"zero copy refused\n", PERF_PROG,
			c->env.cfg.port.port_id, c->env.port.driver, why);
		exit(2);
	}
	if (rc != 0)
		app_usage_error(PERF_PROG, "--zc: cannot register %zu bytes "
				"(%zu-byte pages): %s", t->area_len,
				t->page_sz, strerror(-rc));
	t->free_slots = calloc(t->zc_bufs, sizeof(*t->free_slots));
	if (t->free_slots == NULL)
		app_usage_error(PERF_PROG, "out of memory");
	for (t->nfree = 0; t->nfree < t->zc_bufs; t->nfree++)
		t->free_slots[t->nfree] = (int32_t)(t->zc_bufs - 1 - t->nfree);
	t->port_id = c->env.cfg.port.port_id;
	t->nb_queues = c->env.port.nb_queues;
	printf("%s: --zc: %zu bytes registered (%zu-byte pages), %u buffers "
	       "of %u bytes, map %s\n", PERF_PROG, t->area_len, t->page_sz,
	       t->zc_bufs, t->slot_sz,
	       t->zc_map == UST_ZC_MAP_ONCE ? "once" : "per-send");
}

/* Take the completions; returns how many. */
static unsigned int
zc_reap(struct tcp_perf *t, struct ust_stack *stk)
{
	struct ust_zc_done d[64];
	unsigned int n, i, all = 0;

	if (!t->zc)
		return 0;
	do {
		n = ust_zc_completions(stk, d, RTE_DIM(d));
		for (i = 0; i < n; i++)
			if (d[i].cookie < t->zc_bufs &&
			    t->nfree < t->zc_bufs)
				t->free_slots[t->nfree++] =
					(int32_t)d[i].cookie;
		all += n;
	} while (n == RTE_DIM(d));
	return all;
}

/* No free buffer: the NIC may hold transmitted ones that it is done with,
 * which the PMD frees only when its ring fills; ask it to free them now. */
static void
zc_kick(struct tcp_perf *t, struct ust_stack *stk)
{
	uint16_t q;

	if (!t->no_cleanup) {
		t->zc_cleanups++;
		for (q = 0; q < t->nb_queues; q++)
			if (rte_eth_tx_done_cleanup(t->port_id, q, 0) ==
			    -ENOTSUP)
				t->no_cleanup = true;
	}
	zc_reap(t, stk);
}

/*
 * The PMD has no tx_done_cleanup: make it free what it holds by turning
 * its TX ring over with filler frames (to a locally administered unicast
 * address no one has, IEEE local experimental ethertype), straight to the
 * port. Returns the frames sent.
 */
static uint32_t
zc_turn_ring(struct perf_ctx *c, struct tcp_perf *t)
{
	const uint32_t want = (uint32_t)c->env.port.tx_desc + 64;
	struct rte_mbuf *m[32];
	uint32_t sent = 0, tries = 0, i, n;
	uint16_t q, k;

	for (q = 0; q < t->nb_queues; q++) {
		for (sent = 0; sent < want && tries < 100000; tries++) {
			n = RTE_MIN((uint32_t)RTE_DIM(m), want - sent);
			if (rte_pktmbuf_alloc_bulk(c->env.pool, m, n) != 0)
				break;
			for (i = 0; i < n; i++) {
				struct rte_ether_hdr *eh;
				uint8_t *f;

				m[i]->data_len = 60;
				m[i]->pkt_len = 60;
				f = rte_pktmbuf_mtod(m[i], uint8_t *);
				memset(f, 0, 60);
				eh = (struct rte_ether_hdr *)(void *)f;
				eh->dst_addr.addr_bytes[0] = 0x02;
				eh->dst_addr.addr_bytes[5] = 0x01;
				eh->src_addr = c->env.port.mac;
				eh->ether_type = rte_cpu_to_be_16(0x88b5);
			}
			k = rte_eth_tx_burst(t->port_id, q, m, (uint16_t)n);
			for (i = k; i < n; i++)
				rte_pktmbuf_free(m[i]);
			sent += k;
		}
	}
	t->zc_fillers += sent;
	return sent;
}

/*
 * Send the rest of a @len-byte message on @x: with --zc all of it from a
 * buffer of the area, or nothing; else what the send buffer takes.
 * Returns 1 when the message went, 0 when (some of) it waits for room or
 * a buffer, -errno on an error.
 */
static int
send_msg(struct tcp_perf *t, struct ust_stack *stk, struct tconn *x,
	 uint32_t len)
{
	ssize_t k;

	if (t->zc) {
		int32_t s;

		uint8_t *buf;

		if (t->nfree == 0)
			zc_kick(t, stk);
		if (t->nfree == 0) {
			t->zc_starved++;
			return 0;
		}
		s = t->free_slots[t->nfree - 1];
		buf = t->area + (size_t)s * t->slot_sz;
		/* the buffer is ours again (its cookie came back) */
		if (t->verify)
			pat_fill(buf, x->tx_off, len);
		k = ust_send_zc(stk, x->sd, buf, len, (uint64_t)s);
		if (k == -EAGAIN || k == -ENOBUFS)
			return 0;
		if (k < 0)
			return (int)k;
		t->nfree--;
		t->bytes_out += len;
		if (t->verify) {
			x->tx_off += len;
			t->vfy_sent += len;
		}
		x->off = 0;
		return 1;
	}
	while (x->off < len) {
		if (t->verify)
			pat_fill(t->msg, x->tx_off, len - x->off);
		k = ust_send(stk, x->sd, t->msg, len - x->off, 0);
		if (k == -EAGAIN || k == -ENOBUFS)
			return 0;
		if (k < 0)
			return (int)k;
		x->off += (uint32_t)k;
		t->bytes_out += (uint64_t)k;
		if (t->verify) {
			x->tx_off += (uint64_t)k;
			t->vfy_sent += (uint64_t)k;
		}
	}
	x->off = 0;
	return 1;
}

/* Read what is queued on @x; returns the bytes, or 0 with *eof / *err. */
static uint64_t
drain(struct tcp_perf *t, struct ust_stack *stk, struct tconn *x, bool *eof,
      int *err)
{
	struct rte_mbuf *pk[BURST];
	uint64_t got = 0;
	int n, i;

	for (;;) {
		n = ust_recv_burst(stk, x->sd, pk, BURST, NULL);
		if (n == -EAGAIN)
			break;
		if (n == 0) {
			*eof = true;
			break;
		}
		if (n < 0) {
			*err = -n;
			break;
		}
		for (i = 0; i < n; i++) {
			got += pk[i]->pkt_len;
			if (t->verify) {
				const struct rte_mbuf *m;

				for (m = pk[i]; m != NULL; m = m->next) {
					pat_check(t, rte_pktmbuf_mtod(m,
						const uint8_t *), x->rx_off,
						m->data_len);
					x->rx_off += m->data_len;
				}
			}
			rte_pktmbuf_free(pk[i]);
		}
		if (n < BURST)
			break;
	}
	return got;
}

/* ---- server ---- */

static void
server_close(struct tcp_perf *t, struct ust_stack *stk, struct tconn *x,
	     uint64_t now, struct perf_ctx *c)
{
	ust_close(stk, x->sd);
	memset(x, 0, sizeof(*x));
	t->open--;
	t->closed++;
	/* every client is gone: the run is over (iperf3 --one-off) */
	if (t->open == 0)
		perf_stop(c, now);
}

/* Serve one connection's events; returns whether anything moved. */
static bool
server_serve(struct perf_ctx *c, struct tcp_perf *t, struct ust_stack *stk,
	     struct tconn *x, uint64_t now)
{
	bool eof = false;
	int err = 0, rc;
	uint64_t got;

	got = drain(t, stk, x, &eof, &err);
	t->bytes_in += got;
	if (t->rr) {
		x->have += (uint32_t)got;
		while (x->have >= t->size) {
			x->have -= t->size;
			x->owed++;
		}
		while (x->owed > 0) {
			rc = send_msg(t, stk, x, t->response);
			if (rc <= 0) {
				if (rc < 0)
					err = -rc;
				break;
			}
			x->owed--;
			t->txns++;
		}
		if (err == 0)
			want_out(t, stk, x, (uint64_t)x->sd, x->owed > 0);
	}
	if (err != 0) {
		conn_error(t, err);
		server_close(t, stk, x, now, c);
	} else if (eof) {
		server_close(t, stk, x, now, c);
	}
	return got > 0 || eof || err != 0;
}

static void
server_begin(struct perf_ctx *c, struct tcp_perf *t)
{
	struct ust_stack *stk = c->env.stk;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int rc;

	t->nc = c->env.cfg.stack.max_sockets;
	t->c = calloc(t->nc, sizeof(*t->c));
	if (t->c == NULL)
		app_usage_error(PERF_PROG, "out of memory");
	sin.sin_port = rte_cpu_to_be_16(t->port);
	t->ls = ust_socket(stk, AF_INET, SOCK_STREAM, 0);
	if (t->ls < 0)
		app_usage_error(PERF_PROG, "socket: %s", strerror(-t->ls));
	app_set_int(stk, t->ls, SOL_SOCKET, SO_REUSEADDR, 1);
	set_opts(t, stk, t->ls);
	rc = ust_bind(stk, t->ls, (struct sockaddr *)&sin, sizeof(sin));
	if (rc == 0)
		rc = ust_listen(stk, t->ls, LISTEN_BACKLOG);
	if (rc != 0)
		app_usage_error(PERF_PROG, "cannot listen on TCP port %u: %s",
				t->port, strerror(-rc));
	app_watch(stk, t->ep, UST_EPOLL_CTL_ADD, t->ls, UST_EPOLLIN, LISTENER);
}

/* Take the connections waiting; returns whether there were any. */
static bool
server_accept(struct perf_ctx *c, struct tcp_perf *t, struct ust_stack *stk,
	      uint64_t now)
{
	bool any = false;
	int sd;

	while ((sd = ust_accept(stk, t->ls, NULL, NULL)) >= 0) {
		any = true;
		if ((uint32_t)sd >= t->nc) {
			ust_close(stk, sd);
			continue;
		}
		/* the clock starts at the first connection */
		if (t->accepted++ == 0)
			perf_start_clock(c, now);
		t->open++;
		t->c[sd].sd = sd;
		t->c[sd].st = C_SERVE;
		app_watch(stk, t->ep, UST_EPOLL_CTL_ADD, sd, UST_EPOLLIN,
			  (uint64_t)sd);
		server_serve(c, t, stk, &t->c[sd], now);
	}
	return any;
}

static bool
server_poll(struct perf_ctx *c, struct tcp_perf *t, uint64_t now)
{
	struct ust_stack *stk = c->env.stk;
	struct ust_epoll_event evs[64];
	uint32_t rounds;
	bool busy;
	int n, k, sd, any;

	/* work: frames received, or staged frames that went out */
	busy = ust_stack_tx_pending(stk) > 0;
	busy |= ust_stack_poll(stk, now) > 0;
	busy |= zc_reap(t, stk) > 0;
	/* serve every ready socket (not the first 64 again and again) */
	for (rounds = 0, any = 0; rounds <= t->nc / RTE_DIM(evs); rounds++) {
		n = ust_epoll_wait(stk, t->ep, evs, RTE_DIM(evs));
		any += n;
		for (k = 0; k < n; k++) {
			if (evs[k].data != LISTENER) {
				sd = (int)evs[k].data;
				if (t->c[sd].st == C_SERVE)
					busy |= server_serve(c, t, stk,
							     &t->c[sd], now);
				continue;
			}
			busy |= server_accept(c, t, stk, now);
		}
		if (n < (int)RTE_DIM(evs))
			break;
	}
	if (any > 0)
		ust_stack_flush(stk);
	app_listen_watch(&t->lw, &c->env, now, LISTEN_BACKLOG);
	return busy;
}

/* ---- client ---- */

static void
client_fail(struct tcp_perf *t, struct ust_stack *stk, struct tconn *x,
	    int err)
{
	conn_error(t, err);
	ust_close(stk, x->sd);
	x->st = C_DEAD;
	x->sd = -1;
	t->open--;
}

/* rr: send the next request on @x (C_SEND); C_WAIT once it went whole */
static void
client_request(struct tcp_perf *t, struct ust_stack *stk, struct tconn *x,
	       uint32_t f)
{
	int rc;

	if (t->stopping) {
		/* the run is over: no new request */
		want_out(t, stk, x, f, false);
		return;
	}
	rc = send_msg(t, stk, x, t->size);
	if (rc < 0) {
		client_fail(t, stk, x, -rc);
		return;
	}
	if (rc == 1)
		x->st = C_WAIT;
	want_out(t, stk, x, f, rc == 0);
}

static void
client_open(struct perf_ctx *c, struct tcp_perf *t, uint32_t f)
{
	struct ust_stack *stk = c->env.stk;
	struct sockaddr_in to = { .sin_family = AF_INET };
	struct tconn *x = &t->c[f];
	int rc;

	to.sin_addr.s_addr = t->peer;
	to.sin_port = rte_cpu_to_be_16(t->port);
	x->sd = ust_socket(stk, AF_INET, SOCK_STREAM, 0);
	if (x->sd < 0)
		app_usage_error(PERF_PROG, "connection %u: socket: %s (raise "
				"[stack] max_sockets)", f, strerror(-x->sd));
	set_opts(t, stk, x->sd);
	rc = ust_connect(stk, x->sd, (struct sockaddr *)&to, sizeof(to));
	if (rc != -EINPROGRESS)
		app_usage_error(PERF_PROG, "--peer %s: %s", t->peer_str,
				strerror(-rc));
	x->st = C_CONNECTING;
	t->open++;
	app_watch(stk, t->ep, UST_EPOLL_CTL_ADD, x->sd,
		  UST_EPOLLIN | UST_EPOLLOUT, f);
}

static bool
client_event(struct perf_ctx *c, struct tcp_perf *t, struct ust_stack *stk,
	     struct tconn *x, uint32_t f, uint32_t events)
{
	bool eof = false;
	int err = 0;
	uint64_t got, now;
	uint32_t i;

	if (x->st == C_CONNECTING) {
		socklen_t l = sizeof(err);

		ust_getsockopt(stk, x->sd, SOL_SOCKET, SO_ERROR, &err, &l);
		if (err != 0 || (events & (UST_EPOLLERR | UST_EPOLLHUP))) {
			client_fail(t, stk, x, err != 0 ? err : ECONNABORTED);
			return true;
		}
		if (!(events & UST_EPOLLOUT))
			return false;
		/* the first connection resolved the peer's address: the
		 * others now (not all SYNs queued behind one ARP request) */
		if (t->connects++ == 0)
			for (i = 1; i < t->nc; i++)
				client_open(c, t, i);
		x->st = C_SEND;
		x->want_out = true;
		if (t->rr) {
			x->sent_ns = ust_clock_ns();
			client_request(t, stk, x, f);
		} else {
			want_out(t, stk, x, f, false);
		}
		return true;
	}
	if (x->st != C_SEND && x->st != C_WAIT)
		return false;
	got = drain(t, stk, x, &eof, &err);
	t->bytes_in += got;
	if (err != 0 || eof) {
		client_fail(t, stk, x, err != 0 ? err : EPIPE);
		return true;
	}
	if (!t->rr)
		return got > 0;
	if (x->st == C_SEND) {
		/* the send buffer has room again */
		if (events & UST_EPOLLOUT)
			client_request(t, stk, x, f);
		return true;
	}
	x->have += (uint32_t)got;
	if (x->have < t->response)
		return got > 0;
	/* the response is in: one transaction, and the next request */
	now = ust_clock_ns();
	x->have -= t->response;
	t->txns++;
	if (t->measuring)
		app_hist_add(&t->lat, now - x->sent_ns);
	x->st = C_SEND;
	x->sent_ns = now;
	client_request(t, stk, x, f);
	return true;
}

static void
client_begin(struct perf_ctx *c, struct tcp_perf *t)
{
	t->nc = t->conns;
	t->c = calloc(t->nc, sizeof(*t->c));
	if (t->c == NULL)
		app_usage_error(PERF_PROG, "out of memory");
	client_open(c, t, 0);
}

static bool
client_poll(struct perf_ctx *c, struct tcp_perf *t, uint64_t now)
{
	struct ust_stack *stk = c->env.stk;
	struct ust_epoll_event evs[64];
	uint32_t rounds;
	bool busy;
	int n, k, any;

	busy = ust_stack_tx_pending(stk) > 0;
	busy |= ust_stack_poll(stk, now) > 0;
	busy |= zc_reap(t, stk) > 0;
	for (rounds = 0, any = 0; rounds <= t->nc / RTE_DIM(evs); rounds++) {
		n = ust_epoll_wait(stk, t->ep, evs, RTE_DIM(evs));
		any += n;
		for (k = 0; k < n; k++)
			busy |= client_event(c, t, stk, &t->c[evs[k].data],
					     (uint32_t)evs[k].data,
					     evs[k].events);
		if (n < (int)RTE_DIM(evs))
			break;
	}
	if (!t->rr) {
		/* stream: fill every send buffer */
		uint32_t f;

		for (f = 0; f < t->nc; f++) {
			struct tconn *x = &t->c[f];
			uint64_t before = t->bytes_out;
			int rc;

			if (x->st != C_SEND || t->stopping)
				continue;
			while ((rc = send_msg(t, stk, x, t->size)) == 1)
				;
			if (rc < 0)
				client_fail(t, stk, x, -rc);
			busy |= t->bytes_out != before;
		}
	}
	if (any > 0 || busy)
		ust_stack_flush(stk);
	return busy;
}

/* ---- the mode ---- */

static void
tcp_begin(struct perf_ctx *c)
{
	struct tcp_perf *t = state(c);
	struct ust_stack *stk = c->env.stk;
	const struct ust_stack_conf *sc = ust_stack_conf(stk);
	const char *lay = ust_tcp_tx_layout_name(sc->tcp.tx_layout);

	t->msg = malloc(RTE_MAX(t->size, t->response));
	if (t->msg == NULL)
		app_usage_error(PERF_PROG, "out of memory");
	memset(t->msg, 0xa5, RTE_MAX(t->size, t->response));
	app_hist_init(&t->lat);
	if (t->zc)
		zc_setup(c, t);
	t->ep = app_epoll_create(PERF_PROG, stk);
	if (t->server)
		server_begin(c, t);
	else
		client_begin(c, t);
	printf("%s: %s %s, ", PERF_PROG, c->mode->name,
	       t->server ? "server" : "client");
	if (t->server)
		printf("port %u", t->port);
	else
		printf("%u connection%s to %s:%u", t->conns,
		       t->conns == 1 ? "" : "s", t->peer_str, t->port);
	if (t->rr)
		printf(", %u-byte requests, %u-byte responses", t->size,
		       t->response);
	else
		printf(", %u-byte messages", t->size);
	printf(", tx-layout %s, copy-small %u%s%s\n", lay != NULL ? lay : "?",
	       sc->tcp.copy_small, t->zc ? ", zero copy map " : "",
	       t->zc ? (t->zc_map == UST_ZC_MAP_ONCE ? "once" : "per-send") :
	       "");
	fflush(stdout);
}

static bool
tcp_poll(struct perf_ctx *c, uint64_t now)
{
	struct tcp_perf *t = state(c);

	return t->server ? server_poll(c, t, now) : client_poll(c, t, now);
}

static void
tcp_measure(struct perf_ctx *c, uint64_t now)
{
	struct tcp_perf *t = state(c);

	(void)now;
	t->measuring = true;
	app_hist_init(&t->lat);
	t->txns0 = t->txns_t = t->txns;
	t->out0 = t->out_t = t->bytes_out;
	t->in0 = t->in_t = t->bytes_in;
	ust_stack_tcp_tx_stats(c->env.stk, &t->tx0);
}

static void
tcp_tick(struct perf_ctx *c, double dt)
{
	struct tcp_perf *t = state(c);

	if (t->rr)
		printf("%s: %10.0f transactions/s | p50 %.1f p99 %.1f us | "
		       "open %u errors %" PRIu64 "\n", c->mode->name,
		       (double)(t->txns - t->txns_t) / dt,
		       app_hist_quantile(&t->lat, 0.5) / 1e3,
		       app_hist_quantile(&t->lat, 0.99) / 1e3, t->open,
		       t->errors);
	else
		printf("%s: out %8.3f Gbit/s in %8.3f Gbit/s | open %u errors "
		       "%" PRIu64 "\n", c->mode->name,
		       (double)(t->bytes_out - t->out_t) * 8 / dt / 1e9,
		       (double)(t->bytes_in - t->in_t) * 8 / dt / 1e9, t->open,
		       t->errors);
	t->txns_t = t->txns;
	t->out_t = t->bytes_out;
	t->in_t = t->bytes_in;
}

static void
tcp_end(struct perf_ctx *c)
{
	struct tcp_perf *t = state(c);
	struct ust_stack *stk = c->env.stk;
	uint64_t until;
	uint32_t i;

	/* the measured interval ends here, before the closing handshakes */
	if (t->measuring) {
		t->txns1 = t->txns;
		t->out1 = t->bytes_out;
		t->in1 = t->bytes_in;
		ust_stack_tcp_tx_stats(stk, &t->tx1);
	} else {
		t->txns0 = t->txns1 = t->txns;
		t->out0 = t->out1 = t->bytes_out;
		t->in0 = t->in1 = t->bytes_in;
		ust_stack_tcp_tx_stats(stk, &t->tx0);
		t->tx1 = t->tx0;
	}
	t->measuring = false;
	t->stopping = true;
	if (t->server) {
		/* serve the clients to their end (up to 5 s): the measured
		 * interval is over, the connections are not */
		until = ust_clock_ns() + 5000000000ull;
		while (t->open > 0 && ust_clock_ns() < until)
			server_poll(c, t, ust_clock_ns());
	} else {
		/* the responses in flight come in (up to 200 ms), and the
		 * stream's send buffers drain (up to 2 s): then the closes
		 * are orderly, no data left unread to reset them */
		until = ust_clock_ns() + (t->rr ? 200000000ull :
					  2000000000ull);
		while (ust_clock_ns() < until) {
			uint32_t busy = 0;

			client_poll(c, t, ust_clock_ns());
			for (i = 0; i < t->nc; i++) {
				struct tconn *x = &t->c[i];
				struct ust_tcp_info ti;
				socklen_t l = sizeof(ti);

				if (x->st == C_WAIT || x->st == C_CONNECTING)
					busy++;
				else if (!t->rr && x->st == C_SEND &&
					 ust_getsockopt(stk, x->sd,
							UST_SOL_USTACK,
							UST_TCP_INFO, &ti,
							&l) == 0 &&
					 ti.snd_buffered > 0)
					busy++;
			}
			if (busy == 0)
				break;
		}
	}
	for (i = 0; i < t->nc; i++) {
		struct tconn *x = &t->c[i];

		if (x->st == C_FREE || x->st == C_DEAD)
			continue;
		ust_close(stk, x->sd);
		x->st = C_FREE;
	}
	if (t->ls >= 0)
		ust_close(stk, t->ls);
	/* the FINs go, the last ACKs come in, zero-copy buffers complete */
	until = ust_clock_ns() + 50000000;
	while (ust_clock_ns() < until) {
		ust_stack_poll(stk, ust_clock_ns());
		zc_reap(t, stk);
	}
	/* the NIC may still hold transmitted zero-copy segments: have the
	 * PMD free them (up to 2 s), so that every buffer completes and every
	 * per-send map has its unmap before the counters are reported */
	until = ust_clock_ns() + 2000000000ull;
	while (t->zc && t->nfree != t->zc_bufs && ust_clock_ns() < until) {
		ust_stack_poll(stk, ust_clock_ns());
		zc_kick(t, stk);
		if (t->no_cleanup) {
			/* every ACK is in by now (the 50 ms above and
			 * this poll): what is left, the NIC holds */
			until = ust_clock_ns() + 200000000ull;
			while (ust_clock_ns() < until)
				ust_stack_poll(stk, ust_clock_ns());
			zc_turn_ring(c, t);
			until = ust_clock_ns() + 1000000000ull;
			while (t->nfree != t->zc_bufs &&
			       ust_clock_ns() < until) {
				ust_stack_poll(stk, ust_clock_ns());
				zc_reap(t, stk);
			}
			break;
		}
	}
	ust_close(stk, t->ep);
	if (t->zc && t->nfree != t->zc_bufs)
		printf("%s: --zc: %u of %u buffers not completed at exit\n",
		       PERF_PROG, t->zc_bufs - t->nfree, t->zc_bufs);
	if (t->zc && ust_zc_unregister(stk, t->area) == 0) {
		munmap(t->area, t->area_len);
		t->area = NULL;
	}
}

static double
per(double a, double b)
{
	return b > 0 ? a / b : 0;
}

static void
tcp_report(struct perf_ctx *c, struct app_json *j)
{
	struct tcp_perf *t = state(c);
	const struct ust_stack_conf *sc = ust_stack_conf(c->env.stk);
	const char *lay = ust_tcp_tx_layout_name(sc->tcp.tx_layout);
	double secs = (double)(c->t_end - c->t_begin) / 1e9;
	uint64_t txns = t->txns1 - t->txns0, out = t->out1 - t->out0;
	uint64_t in = t->in1 - t->in0;
	uint64_t loop = c->tsc_end - c->tsc_begin;
	struct ust_tcp_tx_stats d;
	double unit, kib;

	app_tcp_tx_sub(&d, &t->tx1, &t->tx0);
	/* what cycles and copies are counted per: a transaction, or a KiB
	 * moved (sent by a stream client, received by its server) */
	kib = (double)(t->server ? in : out) / 1024;
	unit = t->rr ? (double)txns : kib;
	printf("%s: %s %s, tx-layout %s, copy-small %u%s, %.2f s measured\n",
	       PERF_PROG, c->mode->name, t->server ? "server" : "client",
	       lay != NULL ? lay : "?", sc->tcp.copy_small,
	       t->zc ? (t->zc_map == UST_ZC_MAP_ONCE ? ", zc map once" :
			", zc map per-send") : "", secs);
	if (t->rr) {
		printf("transactions: %" PRIu64 " (%.1f transactions/s)\n",
		       txns, per((double)txns, secs));
		if (!t->server)
			printf("latency (us): p50 %.1f  p99 %.1f  p99.9 %.1f  "
			       "(min %.1f, max %.1f)\n",
			       app_hist_quantile(&t->lat, 0.5) / 1e3,
			       app_hist_quantile(&t->lat, 0.99) / 1e3,
			       app_hist_quantile(&t->lat, 0.999) / 1e3,
			       t->lat.count ? t->lat.min / 1e3 : 0,
			       t->lat.max / 1e3);
	} else {
		printf("bytes: %" PRIu64 " sent, %" PRIu64 " received (%.3f "
		       "Gbit/s)\n", out, in,
		       per((double)(t->server ? in : out) * 8, secs) / 1e9);
	}
	printf("tx layout: %.3f segs/pkt, %.3f pages/pkt, %.1f bytes copied/%s"
	       "; cycles/%s: %.0f busy, %.0f loop (%" PRIu64 " of %" PRIu64
	       " polls busy); dma maps %" PRIu64 " unmaps %" PRIu64 "\n",
	       per((double)d.segs, (double)d.pkts),
	       per((double)d.pages, (double)d.pkts),
	       per((double)d.copied_bytes, unit), t->rr ? "txn" : "KiB",
	       t->rr ? "txn" : "KiB", per((double)c->busy_tsc, unit),
	       per((double)loop, unit), c->busy_polls, c->polls, d.dma_maps,
	       d.dma_unmaps);
	printf("connections: %" PRIu64 " %s, %" PRIu64 " closed; errors %"
	       PRIu64 " (reset %" PRIu64 ", timed out %" PRIu64 ")%s%s\n",
	       t->server ? t->accepted : t->connects,
	       t->server ? "accepted" : "established", t->closed, t->errors,
	       t->resets, t->conn_timeouts, t->last_error ? "; last: " : "",
	       t->last_error ? strerror(t->last_error) : "");
	if (t->zc)
		printf("zero copy: %" PRIu64 " sends deferred for want of a "
		       "buffer, %" PRIu64 " TX cleanups asked of the PMD%s, %"
		       PRIu64 " filler frames to turn its ring over\n",
		       t->zc_starved, t->zc_cleanups, t->no_cleanup ?
		       " (it has none)" : "", t->zc_fillers);
	if (t->verify) {
		printf("verify: %" PRIu64 " bytes sent with the pattern, %"
		       PRIu64 " received and checked, %" PRIu64 " differ",
		       t->vfy_sent, t->vfy_checked, t->vfy_errors);
		if (t->vfy_errors != 0)
			printf(" (the first at stream offset %" PRIu64 ")",
			       t->vfy_first);
		printf("\n");
	}
	if (!t->server && (t->errors != 0 || (t->rr ? txns : out) == 0))
		c->status = 1;
	if (t->vfy_errors != 0)
		c->status = 1;
	if (j == NULL)
		return;
	json_obj(j, "options");
	json_str(j, "role", t->server ? "server" : "client");
	if (!t->server)
		json_str(j, "peer", t->peer_str);
	json_u64(j, "port", t->port);
	json_u64(j, "conns", t->server ? t->accepted : t->conns);
	json_u64(j, "size", t->size);
	if (t->rr)
		json_u64(j, "response", t->response);
	json_str(j, "tx_layout", lay != NULL ? lay : "?");
	json_u64(j, "copy_small", sc->tcp.copy_small);
	json_u64(j, "first_linear_max", sc->tcp.first_linear_max);
	json_bool(j, "zc", t->zc);
	json_bool(j, "verify", t->verify);
	if (t->zc) {
		json_str(j, "zc_map", t->zc_map == UST_ZC_MAP_ONCE ? "once" :
			 "per-send");
		json_u64(j, "zc_bufs", t->zc_bufs);
		json_u64(j, "zc_page_size", t->page_sz);
	}
	json_obj_end(j);
	json_obj(j, "result");
	json_dbl(j, "seconds", secs);
	if (t->rr) {
		json_u64(j, "transactions", txns);
		json_dbl(j, "transactions_per_s", per((double)txns, secs));
		if (!t->server)
			json_hist(j, "latency_ns", &t->lat);
	}
	json_u64(j, "bytes_sent", out);
	json_u64(j, "bytes_received", in);
	json_dbl(j, "gbit_per_s",
		 per((double)(t->server ? in : out) * 8, secs) / 1e9);
	json_dbl(j, "segs_per_pkt", per((double)d.segs, (double)d.pkts));
	json_dbl(j, "pages_per_pkt", per((double)d.pages, (double)d.pkts));
	if (t->rr) {
		json_dbl(j, "copied_bytes_per_txn",
			 per((double)d.copied_bytes, unit));
		json_dbl(j, "cycles_per_txn", per((double)c->busy_tsc, unit));
		json_dbl(j, "loop_cycles_per_txn", per((double)loop, unit));
	} else {
		json_dbl(j, "copied_bytes_per_kib",
			 per((double)d.copied_bytes, unit));
		json_dbl(j, "cycles_per_kib", per((double)c->busy_tsc, unit));
		json_dbl(j, "loop_cycles_per_kib", per((double)loop, unit));
	}
	json_u64(j, "busy_cycles", c->busy_tsc);
	json_u64(j, "loop_cycles", loop);
	json_u64(j, "polls", c->polls);
	json_u64(j, "busy_polls", c->busy_polls);
	json_u64(j, "tsc_hz", c->tsc_hz);
	json_u64(j, "connects", t->server ? t->accepted : t->connects);
	json_u64(j, "closed", t->closed);
	json_u64(j, "errors", t->errors);
	json_u64(j, "resets", t->resets);
	json_u64(j, "conn_timeouts", t->conn_timeouts);
	json_u64(j, "zc_starved", t->zc_starved);
	json_u64(j, "zc_cleanups", t->zc_cleanups);
	json_bool(j, "zc_pmd_cleanup", !t->no_cleanup);
	json_u64(j, "zc_fillers", t->zc_fillers);
	if (t->verify) {
		/* the whole run, not the measured interval */
		json_obj(j, "verify");
		json_u64(j, "bytes_sent", t->vfy_sent);
		json_u64(j, "bytes_checked", t->vfy_checked);
		json_u64(j, "errors", t->vfy_errors);
		json_u64(j, "first_error_offset", t->vfy_first);
		json_obj_end(j);
	}
	/* the TX layout counters over the measured interval */
	json_tcp_tx(j, "tcp_tx", &d);
	json_obj_end(j);
}

#define TCP_USAGE_COMMON \
"  --role server|client   (required)\n" \
"  --peer A.B.C.D         client: the server (required)\n" \
"  --port N               TCP port served or connected to (default: 5201)\n" \
"  --conns N              client: connections, 1-16384 (default: 1)\n" \
"  --sndbuf BYTES         SO_SNDBUF of every socket\n" \
"  --rcvbuf BYTES         SO_RCVBUF of every socket\n" \
"  --zc                   send with ust_send_zc() from a registered area\n" \
"                         (exit 2 on a port that cannot map DMA)\n" \
"  --zc-map per-send|once map each segment's pages for DMA and unmap them\n" \
"                         on completion, or map the area once (default:\n" \
"                         per-send)\n" \
"  --zc-bufs N            buffers of the area (default: a client 8 per\n" \
"                         connection for tcp-rr, 64 for tcp-stream; a\n" \
"                         server 4096)\n" \
"  --verify               send a pattern of the stream offset, check that\n" \
"                         what is received follows it (a kernel echo\n" \
"                         server, tests/vm/pattern_sink.py, or ust-perf\n" \
"                         --verify); a mismatch: exit status 1\n"

#define TCP_USAGE_NOTE \
"  A server's clock starts at its first connection; its run ends when all\n" \
"  its connections are closed again (after --duration, it serves them up\n" \
"  to 5 s more, unmeasured, for the client to end first).\n"

const struct perf_mode perf_tcp_rr = {
	.name = "tcp-rr",
	.summary = "TCP request-response, one request outstanding per "
		   "connection",
	.usage =
TCP_USAGE_COMMON
"  --size BYTES           request size, 1-65536 (default: 64)\n"
"  --response BYTES       response size, 1-65536 (default: --size)\n"
TCP_USAGE_NOTE,
	.opts = tcp_opts,
	.parse = tcp_parse,
	.check = tcp_check,
	.begin = tcp_begin,
	.poll = tcp_poll,
	.measure = tcp_measure,
	.tick = tcp_tick,
	.end = tcp_end,
	.report = tcp_report,
};

const struct perf_mode perf_tcp_stream = {
	.name = "tcp-stream",
	.summary = "TCP bulk: the client sends, the server discards",
	.usage =
TCP_USAGE_COMMON
"  --size BYTES           bytes per send call (with --zc: per buffer),\n"
"                         1-1048576 (default: 65536)\n"
TCP_USAGE_NOTE,
	.opts = tcp_opts,
	.parse = tcp_parse,
	.check = tcp_check,
	.begin = tcp_begin,
	.poll = tcp_poll,
	.measure = tcp_measure,
	.tick = tcp_tick,
	.end = tcp_end,
	.report = tcp_report,
};
