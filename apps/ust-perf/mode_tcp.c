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
 * --stack kernel (both roles, both modes; not --zc): the same on the
 * kernel's TCP sockets (ksock.c), a socket set and an epoll set a worker,
 * a server's listeners sharing --port with SO_REUSEPORT; what only ustack
 * has (the TX layout counters) is null in the JSON.
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
#include <sys/resource.h>
#include <unistd.h>
#include <netinet/tcp.h>

#include <rte_common.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

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
#define TCP_KBUF 65536 /* --stack kernel: a read's buffer */

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
	struct perf_peer peer;
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
	uint8_t *rbuf;      /* --stack kernel: what a read copies into */
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
	/* the worker's */
	struct ust_stack *stk;
	struct perf_worker *w;
	struct rte_mempool *pool;
} __rte_cache_aligned;

static struct tcp_perf tp = {
	.port = 5201, .conns = 1, .size = 0, .zc_map = UST_ZC_MAP_PER_SEND,
	.ls = -1, .ep = -1,
};

/* one a worker (tcp-rr-loop: its client), the options copied from tp */
static struct tcp_perf tcw[UST_GROUP_MAX];

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
		t->server = perf_parse_role(arg);
		t->role_set = true;
		break;
	case T_PEER:
		perf_parse_peer(arg, &t->peer);
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
	if (!t->server && t->peer.str == NULL)
		app_usage_error(PERF_PROG, "--mode %s --role client needs "
				"--peer A.B.C.D", m);
	if (t->server && t->peer.str != NULL)
		app_usage_error(PERF_PROG, "--peer is a --role client "
				"option");
	if (!t->server)
		perf_check_peer(c, &t->peer);
	if (!t->rr && t->response != 0)
		app_usage_error(PERF_PROG, "--response: a tcp-rr option");
	if (!t->rr && t->server && t->zc)
		app_usage_error(PERF_PROG, "--zc: the tcp-stream server only "
				"receives (give it to the client)");
	if (t->size == 0)
		t->size = t->rr ? 64 : 65536;
	if (t->response == 0)
		t->response = t->size;
	if (c->kernel && t->zc)
		app_usage_error(PERF_PROG, "--zc: not with --stack kernel");
	if (t->zc_bufs == 0)
		t->zc_bufs = t->server ? 4096 : t->conns * (t->rr ? 8 : 64);
	c->clock_on_peer = t->server;
}

/* ---- helpers ---- */

static void
set_opts(struct tcp_perf *t, struct ust_stack *stk, int sd)
{
	if (t->rr)
		perf_set_int(stk, sd, IPPROTO_TCP, TCP_NODELAY, 1);
	if (t->sndbuf != 0)
		perf_set_int(stk, sd, SOL_SOCKET, SO_SNDBUF, (int)t->sndbuf);
	if (t->rcvbuf != 0)
		perf_set_int(stk, sd, SOL_SOCKET, SO_RCVBUF, (int)t->rcvbuf);
}

static void
want_out(struct tcp_perf *t, struct ust_stack *stk, struct tconn *x,
	 uint64_t key, bool on)
{
	if (x->want_out == on)
		return;
	x->want_out = on;
	perf_epoll_ctl(stk, t->ep, UST_EPOLL_CTL_MOD, x->sd,
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
		rc = ust_stack_set_dma_mapper(t->stk, &dm);
	if (rc == 0)
		rc = ust_zc_register(t->stk, t->area, t->area_len,
				     t->page_sz, t->zc_map);
	if (rc == -ENOTSUP) {
		/* refused, never faked: no number is reported */
		if (why[0] == '\0')
			ust_zc_check(t->stk, why, sizeof(why));
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
	/* a stack cleans its own queue pair only */
	t->nb_queues = 1;
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
		for (q = t->w->idx; q < t->w->idx + t->nb_queues; q++)
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

	for (q = t->w->idx; q < t->w->idx + t->nb_queues; q++) {
		for (sent = 0; sent < want && tries < 100000; tries++) {
			n = RTE_MIN((uint32_t)RTE_DIM(m), want - sent);
			if (rte_pktmbuf_alloc_bulk(t->pool, m, n) != 0)
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
		k = perf_send(stk, x->sd, t->msg, len - x->off);
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
	ssize_t k;
	int n, i;

	while (stk == NULL) {
		/* the kernel's: a copy into the read buffer */
		k = perf_recv(NULL, x->sd, t->rbuf, TCP_KBUF);
		if (k == -EAGAIN || k == -EINTR)
			break;
		if (k == 0) {
			*eof = true;
			break;
		}
		if (k < 0) {
			*err = (int)-k;
			break;
		}
		got += (uint64_t)k;
		if (t->verify) {
			pat_check(t, t->rbuf, x->rx_off, (uint32_t)k);
			x->rx_off += (uint64_t)k;
		}
		if (k < TCP_KBUF)
			break;
	}
	for (; stk != NULL;) {
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

/* no stack has a connection open */
static bool
all_closed(const struct perf_ctx *c)
{
	unsigned int i;

	for (i = 0; i < c->nb_workers; i++)
		if (__atomic_load_n(&tcw[i].open, __ATOMIC_RELAXED) != 0)
			return false;
	return true;
}

static void
server_close(struct tcp_perf *t, struct ust_stack *stk, struct tconn *x,
	     uint64_t now, struct perf_ctx *c)
{
	perf_close(stk, x->sd);
	memset(x, 0, sizeof(*x));
	__atomic_store_n(&t->open, t->open - 1, __ATOMIC_RELAXED);
	t->closed++;
	/* every client is gone, on every stack: the run is over (iperf3
	 * --one-off) */
	if (t->open == 0 && !c->mode->no_port && all_closed(c))
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
	struct ust_stack *stk = t->stk;
	union ust_sockaddr any;
	socklen_t any_len;
	int rc;

	t->nc = c->env.cfg.stack.max_sockets;
	if (stk == NULL) {
		/* the kernel's descriptors index the table */
		struct rlimit rl;

		t->nc = getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
			rl.rlim_cur < (1u << 20) ? (uint32_t)rl.rlim_cur :
			1u << 20;
	}
	t->c = calloc(t->nc, sizeof(*t->c));
	if (t->c == NULL)
		app_usage_error(PERF_PROG, "out of memory");
	t->ls = perf_server_socket(c, stk, SOCK_STREAM, t->port, &any,
				   &any_len);
	if (t->ls < 0)
		app_usage_error(PERF_PROG, "socket: %s", strerror(-t->ls));
	perf_set_int(stk, t->ls, SOL_SOCKET, SO_REUSEADDR, 1);
	/* the kernel's listeners of the workers share the port */
	if (stk == NULL && c->nb_workers > 1)
		perf_set_int(stk, t->ls, SOL_SOCKET, SO_REUSEPORT, 1);
	set_opts(t, stk, t->ls);
	rc = perf_bind(stk, t->ls, &any.sa, any_len);
	if (rc == 0)
		rc = perf_listen(stk, t->ls, LISTEN_BACKLOG);
	if (rc != 0)
		app_usage_error(PERF_PROG, "cannot listen on TCP port %u: %s",
				t->port, strerror(-rc));
	perf_epoll_ctl(stk, t->ep, UST_EPOLL_CTL_ADD, t->ls, UST_EPOLLIN, LISTENER);
}

/* Take the connections waiting; returns whether there were any. */
static bool
server_accept(struct perf_ctx *c, struct tcp_perf *t, struct ust_stack *stk,
	      uint64_t now)
{
	bool any = false;
	int sd;

	while ((sd = perf_accept(stk, t->ls)) >= 0) {
		any = true;
		if ((uint32_t)sd >= t->nc) {
			perf_close(stk, sd);
			continue;
		}
		/* the clock starts at the first connection */
		if (t->accepted++ == 0)
			perf_start_clock(c, now);
		__atomic_store_n(&t->open, t->open + 1, __ATOMIC_RELAXED);
		t->c[sd].sd = sd;
		t->c[sd].st = C_SERVE;
		perf_epoll_ctl(stk, t->ep, UST_EPOLL_CTL_ADD, sd, UST_EPOLLIN,
			  (uint64_t)sd);
		server_serve(c, t, stk, &t->c[sd], now);
	}
	return any;
}

static bool
server_poll(struct perf_ctx *c, struct tcp_perf *t, uint64_t now)
{
	struct ust_stack *stk = t->stk;
	struct ust_epoll_event evs[64];
	uint32_t rounds;
	bool busy;
	int n, k, sd, any;

	/* work: frames received, or staged frames that went out */
	busy = false;
	if (stk != NULL) {
		busy = ust_stack_tx_pending(stk) > 0;
		busy |= ust_stack_poll(stk, now) > 0;
		busy |= zc_reap(t, stk) > 0;
	}
	/* serve every ready socket (not the first 64 again and again) */
	for (rounds = 0, any = 0; rounds <= t->nc / RTE_DIM(evs); rounds++) {
		n = perf_epoll_wait(stk, t->ep, evs, RTE_DIM(evs),
				    rounds == 0 ? c->kwait_ms : 0);
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
	if (any > 0 && stk != NULL)
		ust_stack_flush(stk);
	/* (it reads stack 0's counters) */
	if (t->w->idx == 0 && !c->mode->no_port && !c->kernel)
		app_listen_watch(&t->lw, &c->env, now, LISTEN_BACKLOG);
	return busy;
}

/* ---- client ---- */

static void
client_fail(struct tcp_perf *t, struct ust_stack *stk, struct tconn *x,
	    int err)
{
	conn_error(t, err);
	perf_close(stk, x->sd);
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
	struct ust_stack *stk = t->stk;
	struct tconn *x = &t->c[f];
	union ust_sockaddr to;
	socklen_t tolen;
	int rc;

	RTE_SET_USED(c);
	tolen = perf_peer_addr(&t->peer, t->port, &to);
	x->sd = perf_socket(stk, to.sa.sa_family, SOCK_STREAM);
	if (x->sd < 0)
		app_usage_error(PERF_PROG, "connection %u: socket: %s (raise "
				"[stack] max_sockets)", f, strerror(-x->sd));
	set_opts(t, stk, x->sd);
	rc = perf_connect(stk, x->sd, &to.sa, tolen);
	if (rc != -EINPROGRESS)
		app_usage_error(PERF_PROG, "--peer %s: %s", t->peer.str,
				strerror(-rc));
	x->st = C_CONNECTING;
	t->open++;
	perf_epoll_ctl(stk, t->ep, UST_EPOLL_CTL_ADD, x->sd,
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

		perf_getsockopt(stk, x->sd, SOL_SOCKET, SO_ERROR, &err, &l);
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
	if (t->nc == 0)
		return;
	t->c = calloc(t->nc, sizeof(*t->c));
	if (t->c == NULL)
		app_usage_error(PERF_PROG, "out of memory");
	client_open(c, t, 0);
}

static bool
client_poll(struct perf_ctx *c, struct tcp_perf *t, uint64_t now)
{
	struct ust_stack *stk = t->stk;
	struct ust_epoll_event evs[64];
	uint32_t rounds;
	bool busy;
	int n, k, any;

	busy = false;
	if (stk != NULL) {
		busy = ust_stack_tx_pending(stk) > 0;
		busy |= ust_stack_poll(stk, now) > 0;
		busy |= zc_reap(t, stk) > 0;
	}
	for (rounds = 0, any = 0; rounds <= t->nc / RTE_DIM(evs); rounds++) {
		n = perf_epoll_wait(stk, t->ep, evs, RTE_DIM(evs),
				    rounds == 0 && !t->stopping ? c->kwait_ms :
				    0);
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
			/* a kernel worker that waits wakes up for room in
			 * the send buffer */
			else if (stk == NULL && c->kwait_ms != 0)
				want_out(t, stk, x, f, true);
			busy |= t->bytes_out != before;
		}
	}
	if ((any > 0 || busy) && stk != NULL)
		ust_stack_flush(stk);
	return busy;
}

/* ---- the mode ---- */

/* worker @w's state: the options, its stack and pool */
static struct tcp_perf *
tcp_worker(struct perf_ctx *c, struct perf_worker *w, struct tcp_perf *t,
	   struct ust_stack *stk)
{
	*t = *state(c);
	t->stk = stk;
	t->w = w;
	t->pool = w->pool;
	return t;
}

/* connections of a client's stack @i of @n: connection k on stack k % n */
static uint32_t
conns_of(uint32_t conns, unsigned int i, unsigned int n)
{
	return conns / n + (i < conns % n ? 1 : 0);
}

static void
tcp_begin(struct perf_ctx *c, struct perf_worker *w)
{
	struct tcp_perf *t = tcp_worker(c, w, &tcw[w->idx], w->stk);
	struct ust_stack *stk = t->stk;
	const struct ust_stack_conf *sc = stk != NULL ? ust_stack_conf(stk) :
		NULL;
	const char *lay = sc != NULL ?
		ust_tcp_tx_layout_name(sc->tcp.tx_layout) : NULL;

	if (!t->server)
		t->conns = conns_of(t->conns, w->idx, c->nb_workers);

	t->msg = malloc(RTE_MAX(t->size, t->response));
	if (t->msg == NULL)
		app_usage_error(PERF_PROG, "out of memory");
	memset(t->msg, 0xa5, RTE_MAX(t->size, t->response));
	if (stk == NULL) {
		t->rbuf = malloc(TCP_KBUF);
		if (t->rbuf == NULL)
			app_usage_error(PERF_PROG, "out of memory");
	}
	app_hist_init(&t->lat);
	if (t->zc)
		zc_setup(c, t);
	t->ep = perf_epoll_create(stk);
	if (t->server)
		server_begin(c, t);
	else
		client_begin(c, t);
	if (w->idx != 0)
		return;
	if (c->nb_workers > 1)
		printf("%s: %u %s: %s\n", PERF_PROG, c->nb_workers,
		       c->kernel ? "workers" : "stacks", t->server ?
		       "a listener on each" : c->kernel ? "connection k on "
		       "worker k % N" : "connection k on stack k % N");
	printf("%s: %s %s, ", PERF_PROG, c->mode->name,
	       t->server ? "server" : "client");
	if (t->server)
		printf("port %u", t->port);
	else
		printf("%u connection%s to %s:%u", state(c)->conns,
		       state(c)->conns == 1 ? "" : "s", t->peer.str, t->port);
	if (t->rr)
		printf(", %u-byte requests, %u-byte responses", t->size,
		       t->response);
	else
		printf(", %u-byte messages", t->size);
	if (sc == NULL)
		printf(", the kernel's sockets\n");
	else
		printf(", tx-layout %s, copy-small %u%s%s\n",
		       lay != NULL ? lay : "?", sc->tcp.copy_small,
		       t->zc ? ", zero copy map " : "", t->zc ?
		       (t->zc_map == UST_ZC_MAP_ONCE ? "once" : "per-send") :
		       "");
	fflush(stdout);
}

static bool
tcp_poll(struct perf_ctx *c, struct perf_worker *w, uint64_t now)
{
	struct tcp_perf *t = &tcw[w->idx];

	return t->server ? server_poll(c, t, now) : client_poll(c, t, now);
}

static void
tcp_measure_one(struct tcp_perf *t)
{
	t->measuring = true;
	app_hist_init(&t->lat);
	t->txns0 = t->txns_t = t->txns;
	t->out0 = t->out_t = t->bytes_out;
	t->in0 = t->in_t = t->bytes_in;
	if (t->stk != NULL)
		ust_stack_tcp_tx_stats(t->stk, &t->tx0);
}

static void
tcp_measure(struct perf_ctx *c, struct perf_worker *w, uint64_t now)
{
	RTE_SET_USED(c);
	RTE_SET_USED(now);
	tcp_measure_one(&tcw[w->idx]);
}

/* worker @t's line (after @prefix; NULL: none) over @dt seconds */
static void
tcp_tick_one(struct perf_ctx *c, struct tcp_perf *t, double dt,
	     const char *prefix)
{
	uint64_t txns = __atomic_load_n(&t->txns, __ATOMIC_RELAXED);
	uint64_t out = __atomic_load_n(&t->bytes_out, __ATOMIC_RELAXED);
	uint64_t in = __atomic_load_n(&t->bytes_in, __ATOMIC_RELAXED);

	if (prefix != NULL && t->rr && t->server)
		/* a server answers: it times no round trip */
		printf("%s%s: %10.0f transactions/s | open %u errors %" PRIu64
		       "\n", prefix, c->mode->name,
		       (double)(txns - t->txns_t) / dt, t->open, t->errors);
	else if (prefix != NULL && t->rr)
		printf("%s%s: %10.0f transactions/s | p50 %.1f p99 %.1f us | "
		       "open %u errors %" PRIu64 "\n", prefix, c->mode->name,
		       (double)(txns - t->txns_t) / dt,
		       app_hist_quantile(&t->lat, 0.5) / 1e3,
		       app_hist_quantile(&t->lat, 0.99) / 1e3, t->open,
		       t->errors);
	else if (prefix != NULL)
		printf("%s%s: out %8.3f Gbit/s in %8.3f Gbit/s | open %u "
		       "errors %" PRIu64 "\n", prefix, c->mode->name,
		       (double)(out - t->out_t) * 8 / dt / 1e9,
		       (double)(in - t->in_t) * 8 / dt / 1e9, t->open,
		       t->errors);
	t->txns_t = txns;
	t->out_t = out;
	t->in_t = in;
}

static void
tcp_tick(struct perf_ctx *c, double dt)
{
	uint64_t txns = 0, out = 0, in = 0, errors = 0;
	uint32_t open = 0;
	char pfx[32];
	unsigned int i;

	if (c->nb_workers == 1) {
		tcp_tick_one(c, &tcw[0], dt, "");
		return;
	}
	for (i = 0; i < c->nb_workers; i++) {
		struct tcp_perf *t = &tcw[i];

		txns += __atomic_load_n(&t->txns, __ATOMIC_RELAXED) -
			t->txns_t;
		out += __atomic_load_n(&t->bytes_out, __ATOMIC_RELAXED) -
			t->out_t;
		in += __atomic_load_n(&t->bytes_in, __ATOMIC_RELAXED) -
			t->in_t;
		open += t->open;
		errors += t->errors;
		snprintf(pfx, sizeof(pfx), "  stack %u: ", i);
		tcp_tick_one(c, t, dt, pfx);
	}
	if (tcw[0].rr)
		printf("%s: %10.0f transactions/s | open %u errors %" PRIu64
		       " | total of %u stacks\n", c->mode->name,
		       (double)txns / dt, open, errors, c->nb_workers);
	else
		printf("%s: out %8.3f Gbit/s in %8.3f Gbit/s | open %u errors "
		       "%" PRIu64 " | total of %u stacks\n", c->mode->name,
		       (double)out * 8 / dt / 1e9, (double)in * 8 / dt / 1e9,
		       open, errors, c->nb_workers);
}

static void
tcp_end(struct perf_ctx *c, struct perf_worker *w)
{
	struct tcp_perf *t = &tcw[w->idx];
	struct ust_stack *stk = t->stk;
	uint64_t until;
	uint32_t i;

	/* the measured interval ends here, before the closing handshakes */
	if (t->measuring) {
		t->txns1 = t->txns;
		t->out1 = t->bytes_out;
		t->in1 = t->bytes_in;
		if (stk != NULL)
			ust_stack_tcp_tx_stats(stk, &t->tx1);
	} else {
		t->txns0 = t->txns1 = t->txns;
		t->out0 = t->out1 = t->bytes_out;
		t->in0 = t->in1 = t->bytes_in;
		if (stk != NULL)
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

				if (x->st == C_WAIT || x->st == C_CONNECTING)
					busy++;
				else if (!t->rr && x->st == C_SEND &&
					 perf_unsent(stk, x->sd) > 0)
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
		perf_close(stk, x->sd);
		x->st = C_FREE;
	}
	if (t->ls >= 0)
		perf_close(stk, t->ls);
	/* the FINs go, the last ACKs come in, zero-copy buffers complete */
	until = ust_clock_ns() + 50000000;
	while (stk != NULL && ust_clock_ns() < until) {
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
	perf_close(stk, t->ep);
	if (t->zc && t->nfree != t->zc_bufs)
		printf("%s: --zc: %u of %u buffers not completed at exit\n",
		PERF_PROG, t->zc_bufs - t->nfree, t->zc_bufs);
	if (t->zc && ust_zc_unregister(stk, t->area) == 0) {
		munmap(t->area, t->area_len);
		t->area = NULL;
	}
	free(t->rbuf);
	t->rbuf = NULL;
}

static double
per(double a, double b)
{
	return b > 0 ? a / b : 0;
}

/* @n workers' states @ws added into @sum (measured deltas as txns1,
 * out1, in1, tx1 with zero bases; counters; latency merged); their
 * cycles into @cyc: busy, loop, polls, busy polls */
static void
tcp_sum(const struct perf_ctx *c, const struct tcp_perf *ws, unsigned int n,
	struct tcp_perf *sum, uint64_t cyc[4])
{
	struct ust_tcp_tx_stats d;
	unsigned int i, k;

	*sum = ws[0];
	sum->txns0 = sum->out0 = sum->in0 = 0;
	sum->txns1 = sum->out1 = sum->in1 = 0;
	memset(&sum->tx0, 0, sizeof(sum->tx0));
	memset(&sum->tx1, 0, sizeof(sum->tx1));
	app_hist_init(&sum->lat);
	sum->accepted = sum->connects = sum->closed = sum->errors = 0;
	sum->conn_timeouts = sum->resets = 0;
	sum->zc_starved = sum->zc_cleanups = sum->zc_fillers = 0;
	sum->vfy_sent = sum->vfy_checked = sum->vfy_errors = 0;
	sum->last_error = 0;
	sum->no_cleanup = false;
	cyc[0] = cyc[1] = cyc[2] = cyc[3] = 0;
	for (i = 0; i < n; i++) {
		const struct tcp_perf *t = &ws[i];
		const struct perf_worker *w = &c->w[i];
		uint64_t *a = (uint64_t *)&sum->tx1;
		const uint64_t *b = (const uint64_t *)&d;

		sum->txns1 += t->txns1 - t->txns0;
		sum->out1 += t->out1 - t->out0;
		sum->in1 += t->in1 - t->in0;
		app_tcp_tx_sub(&d, &t->tx1, &t->tx0);
		for (k = 0; k < sizeof(d) / sizeof(uint64_t); k++)
			a[k] += b[k];
		app_hist_merge(&sum->lat, &t->lat);
		sum->accepted += t->accepted;
		sum->connects += t->connects;
		sum->closed += t->closed;
		sum->errors += t->errors;
		sum->conn_timeouts += t->conn_timeouts;
		sum->resets += t->resets;
		sum->zc_starved += t->zc_starved;
		sum->zc_cleanups += t->zc_cleanups;
		sum->zc_fillers += t->zc_fillers;
		if (t->vfy_errors != 0 && sum->vfy_errors == 0)
			sum->vfy_first = t->vfy_first;
		sum->vfy_sent += t->vfy_sent;
		sum->vfy_checked += t->vfy_checked;
		sum->vfy_errors += t->vfy_errors;
		if (t->last_error != 0)
			sum->last_error = t->last_error;
		sum->no_cleanup |= t->no_cleanup;
		cyc[0] += w->busy_tsc;
		cyc[1] += w->tsc_end - w->tsc_begin;
		cyc[2] += w->polls;
		cyc[3] += w->busy_polls;
	}
}

/* worker @w's figures as members of its "stacks" object */
static void
tcp_report_stack(struct perf_ctx *c, const struct perf_worker *w,
		 struct app_json *j)
{
	const struct tcp_perf *t = &tcw[w->idx];
	double secs = perf_secs(w);
	uint64_t txns = t->txns1 - t->txns0, out = t->out1 - t->out0;
	uint64_t in = t->in1 - t->in0;
	double unit = t->rr ? (double)txns :
		(double)(t->server ? in : out) / 1024;

	RTE_SET_USED(c);
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
	json_dbl(j, t->rr ? "cycles_per_txn" : "cycles_per_kib",
		 per((double)w->busy_tsc, unit));
	json_dbl(j, t->rr ? "loop_cycles_per_txn" : "loop_cycles_per_kib",
		 per((double)(w->tsc_end - w->tsc_begin), unit));
	json_u64(j, "connects", t->server ? t->accepted : t->connects);
	json_u64(j, "errors", t->errors);
}

static void
tcp_report(struct perf_ctx *c, struct app_json *j)
{
	static struct tcp_perf sum;
	struct tcp_perf *t = &sum;
	const struct ust_stack_conf *sc = c->kernel ? NULL :
		ust_stack_conf(c->env.stk);
	const char *lay = sc != NULL ?
		ust_tcp_tx_layout_name(sc->tcp.tx_layout) : NULL;
	double secs = (double)(c->t_end - c->t_begin) / 1e9;
	uint64_t txns, out, in, loop, cyc[4];
	struct ust_tcp_tx_stats d;
	double unit, kib;
	unsigned int i;

	tcp_sum(c, tcw, c->nb_workers, &sum, cyc);
	txns = t->txns1 - t->txns0;
	out = t->out1 - t->out0;
	in = t->in1 - t->in0;
	loop = cyc[1];
	for (i = 0; c->nb_workers > 1 && i < c->nb_workers; i++) {
		const struct tcp_perf *x = &tcw[i];
		const struct perf_worker *w = &c->w[i];
		uint64_t n = x->txns1 - x->txns0;
		uint64_t b = x->server ? x->in1 - x->in0 : x->out1 - x->out0;
		double ws = perf_secs(w);

		printf("%s: stack %u (lcore %u), %.2f s: ", PERF_PROG, i,
		       w->lcore, ws);
		if (x->rr)
			printf("%" PRIu64 " transactions (%.1f/s), cycles/txn "
			       "%.0f busy %.0f loop", n, per((double)n, ws),
			       per((double)w->busy_tsc, (double)n),
			       per((double)(w->tsc_end - w->tsc_begin),
				   (double)n));
		else
			printf("%.3f Gbit/s", per((double)b * 8, ws) / 1e9);
		printf(", %" PRIu64 " connections, %" PRIu64 " errors\n",
		       x->server ? x->accepted : x->connects, x->errors);
	}

	app_tcp_tx_sub(&d, &t->tx1, &t->tx0);
	/* what cycles and copies are counted per: a transaction, or a KiB
	 * moved (sent by a stream client, received by its server) */
	kib = (double)(t->server ? in : out) / 1024;
	unit = t->rr ? (double)txns : kib;
	if (sc == NULL)
		printf("%s: %s %s, the kernel's sockets, %.2f s measured\n",
		       PERF_PROG, c->mode->name, t->server ? "server" :
		       "client", secs);
	else
		printf("%s: %s %s, tx-layout %s, copy-small %u%s, %.2f s "
		       "measured\n", PERF_PROG, c->mode->name,
		       t->server ? "server" : "client",
		       lay != NULL ? lay : "?", sc->tcp.copy_small,
		       t->zc ? (t->zc_map == UST_ZC_MAP_ONCE ?
				", zc map once" : ", zc map per-send") : "",
		       secs);
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
	if (sc == NULL)
		printf("cycles/%s: %.0f busy, %.0f loop (%" PRIu64 " of %"
		       PRIu64 " polls busy)\n", t->rr ? "txn" : "KiB",
		       per((double)cyc[0], unit), per((double)loop, unit),
		       cyc[3], cyc[2]);
	else
		printf("tx layout: %.3f segs/pkt, %.3f pages/pkt, %.1f bytes "
		       "copied/%s; cycles/%s: %.0f busy, %.0f loop (%" PRIu64
		       " of %" PRIu64 " polls busy); dma maps %" PRIu64
		       " unmaps %" PRIu64 "\n",
		       per((double)d.segs, (double)d.pkts),
		       per((double)d.pages, (double)d.pkts),
		       per((double)d.copied_bytes, unit), t->rr ? "txn" :
		       "KiB", t->rr ? "txn" : "KiB", per((double)cyc[0], unit),
		       per((double)loop, unit), cyc[3], cyc[2], d.dma_maps,
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
		json_str(j, "peer", t->peer.str);
	json_u64(j, "port", t->port);
	json_u64(j, "conns", t->server ? t->accepted : state(c)->conns);
	json_u64(j, "size", t->size);
	if (t->rr)
		json_u64(j, "response", t->response);
	if (sc != NULL) {
		json_str(j, "tx_layout", lay != NULL ? lay : "?");
		json_u64(j, "copy_small", sc->tcp.copy_small);
		json_u64(j, "first_linear_max", sc->tcp.first_linear_max);
	} else {
		/* the kernel's own layout */
		json_none(j, "tx_layout");
		json_none(j, "copy_small");
		json_none(j, "first_linear_max");
	}
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
	if (sc != NULL) {
		json_dbl(j, "segs_per_pkt",
			 per((double)d.segs, (double)d.pkts));
		json_dbl(j, "pages_per_pkt",
			 per((double)d.pages, (double)d.pkts));
	} else {
		json_none(j, "segs_per_pkt");
		json_none(j, "pages_per_pkt");
	}
	if (t->rr && sc == NULL) {
		json_none(j, "copied_bytes_per_txn");
		json_dbl(j, "cycles_per_txn", per((double)cyc[0], unit));
		json_dbl(j, "loop_cycles_per_txn", per((double)loop, unit));
	} else if (sc == NULL) {
		json_none(j, "copied_bytes_per_kib");
		json_dbl(j, "cycles_per_kib", per((double)cyc[0], unit));
		json_dbl(j, "loop_cycles_per_kib", per((double)loop, unit));
	} else if (t->rr) {
		json_dbl(j, "copied_bytes_per_txn",
			 per((double)d.copied_bytes, unit));
		json_dbl(j, "cycles_per_txn", per((double)cyc[0], unit));
		json_dbl(j, "loop_cycles_per_txn", per((double)loop, unit));
	} else {
		json_dbl(j, "copied_bytes_per_kib",
			 per((double)d.copied_bytes, unit));
		json_dbl(j, "cycles_per_kib", per((double)cyc[0], unit));
		json_dbl(j, "loop_cycles_per_kib", per((double)loop, unit));
	}
	json_u64(j, "busy_cycles", cyc[0]);
	json_u64(j, "loop_cycles", loop);
	json_u64(j, "polls", cyc[2]);
	json_u64(j, "busy_polls", cyc[3]);
	json_u64(j, "tsc_hz", c->tsc_hz);
	json_u64(j, "connects", t->server ? t->accepted : t->connects);
	json_u64(j, "closed", t->closed);
	json_u64(j, "errors", t->errors);
	json_u64(j, "resets", t->resets);
	json_u64(j, "conn_timeouts", t->conn_timeouts);
	json_u64(j, "zc_starved", t->zc_starved);
	json_u64(j, "zc_cleanups", t->zc_cleanups);
	if (sc != NULL)
		json_bool(j, "zc_pmd_cleanup", !t->no_cleanup);
	else
		json_none(j, "zc_pmd_cleanup");
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
	if (sc != NULL)
		json_tcp_tx(j, "tcp_tx", &d);
	else
		json_none(j, "tcp_tx");
	json_obj_end(j);
}

#define TCP_USAGE_COMMON \
"  --role server|client   (required)\n" \
"  --peer ADDR            client: the server, A.B.C.D or (with --addr6\n" \
"                         or --stack kernel) an IPv6 address (required)\n" \
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
	.kernel = true,
	.parse = tcp_parse,
	.check = tcp_check,
	.begin = tcp_begin,
	.poll = tcp_poll,
	.measure = tcp_measure,
	.tick = tcp_tick,
	.end = tcp_end,
	.report = tcp_report,
	.report_stack = tcp_report_stack,
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
	.kernel = true,
	.parse = tcp_parse,
	.check = tcp_check,
	.begin = tcp_begin,
	.poll = tcp_poll,
	.measure = tcp_measure,
	.tick = tcp_tick,
	.end = tcp_end,
	.report = tcp_report,
	.report_stack = tcp_report_stack,
};

/*
 * ---- tcp-rr-loop: a TCP RR pair on each lcore, wired in memory ----
 *
 * Each worker lcore runs two stacks of its own, a client and a server,
 * whose netifs hand frames to each other through two arrays (no port, no
 * ring between lcores: the NIC is modelled as one that verifies and fills
 * checksums); the client's --conns connections do request-response with
 * the server's listener, both polled in the worker's loop. Its mbuf pool is
 * its own too (made on its lcore's NUMA node). N lcores then share
 * nothing: the share-nothing check of devtools/bench/scale.sh. A
 * transaction's cycles are the client's and the server's together.
 */

#define LOOP_WIRE 4096  /* frames one direction holds */

/* one direction: frames one stack sent that the other has not read */
struct loop_wire {
	uint32_t head;
	uint32_t n;
	uint64_t full;   /* frames refused: the other stack lags */
	struct rte_mbuf *m[LOOP_WIRE];
};

/* one stack's end: it reads rx and sends into tx */
struct loop_end {
	struct loop_wire *rx;
	struct loop_wire *tx;
};

struct loop_pair {
	struct loop_wire to_srv;
	struct loop_wire to_cli;
	struct loop_end cli_end;
	struct loop_end srv_end;
	struct rte_mempool *pool;
	struct ust_stack *cs;      /* client */
	struct ust_stack *ss;      /* server */
	struct ust_stats cst;      /* counters at the end */
	struct ust_stats sst;
	unsigned int in_use_end;   /* mbufs in use once both are gone */
	uint64_t wire_full;
};

static struct tcp_perf loop_srv[UST_GROUP_MAX];
static struct loop_pair *loop_w[UST_GROUP_MAX];

static uint16_t
loop_rx(void *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	struct loop_wire *r = ((struct loop_end *)ctx)->rx;
	uint16_t k;

	for (k = 0; k < n && r->n > 0; k++) {
		pkts[k] = r->m[r->head];
		r->head = (r->head + 1) & (LOOP_WIRE - 1);
		r->n--;
	}
	return k;
}

static uint16_t
loop_tx(void *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	struct loop_wire *t = ((struct loop_end *)ctx)->tx;
	uint16_t k;

	for (k = 0; k < n && t->n < LOOP_WIRE; k++) {
		struct rte_mbuf *m = pkts[k];

		/* what a NIC that checked the checksums hands up */
		m->ol_flags = RTE_MBUF_F_RX_IP_CKSUM_GOOD |
			      RTE_MBUF_F_RX_L4_CKSUM_GOOD;
		m->packet_type = 0;
		t->m[(t->head + t->n) & (LOOP_WIRE - 1)] = m;
		t->n++;
	}
	t->full += n - k;
	return k;
}

static const struct ust_netif_ops loop_ops = {
	.rx_burst = loop_rx,
	.tx_burst = loop_tx,
};

static struct ust_stack *
loop_stack(struct perf_ctx *c, struct loop_pair *p, struct loop_end *e,
	   const char *role, unsigned int idx, rte_be32_t addr,
	   uint8_t mac_last)
{
	struct ust_stack_conf sc = c->env.cfg.stack;
	struct ust_stack *stk;
	char name[32];

	snprintf(name, sizeof(name), "loop%u%s", idx, role);
	sc.name = name;
	memset(&sc.netif, 0, sizeof(sc.netif));
	sc.netif.ops = &loop_ops;
	sc.netif.ctx = e;
	sc.netif.mac.addr_bytes[0] = 0x02;
	sc.netif.mac.addr_bytes[4] = (uint8_t)idx;
	sc.netif.mac.addr_bytes[5] = mac_last;
	sc.netif.mtu = 1500;
	sc.netif.flags = UST_NETIF_F_RX_IPV4_CKSUM | UST_NETIF_F_RX_L4_CKSUM |
		UST_NETIF_F_TX_IPV4_CKSUM | UST_NETIF_F_TX_UDP_CKSUM |
		UST_NETIF_F_TX_TCP_CKSUM;
	sc.netif.port_id = UINT16_MAX;
	sc.pool = p->pool;
	sc.socket_id = (int)rte_socket_id();
	sc.lcore = rte_lcore_id();
	sc.addr = addr;
	sc.gateway = 0;
	sc.now_ns = ust_clock_ns();
	stk = ust_stack_create(&sc);
	if (stk == NULL)
		app_usage_error(PERF_PROG, "lcore %u: cannot create the %s "
				"stack: %s", rte_lcore_id(), role,
				rte_strerror(rte_errno));
	return stk;
}

static void
loop_check(struct perf_ctx *c)
{
	struct tcp_perf *t = state(c);

	t->rr = true;
	t->server = false;
	if (t->size == 0)
		t->size = 64;
	if (t->response == 0)
		t->response = t->size;
	if (t->conns + 16 > c->env.cfg.stack.max_sockets)
		app_usage_error(PERF_PROG, "--conns %u: more than [stack] "
				"max_sockets (%u) allows", t->conns,
				c->env.cfg.stack.max_sockets);
	c->clock_on_peer = false;
}

static void
loop_begin(struct perf_ctx *c, struct perf_worker *w)
{
	const struct ust_config *cfg = &c->env.cfg;
	rte_be32_t saddr = cfg->stack.addr;
	rte_be32_t caddr = rte_cpu_to_be_32(rte_be_to_cpu_32(saddr) + 1);
	struct loop_pair *p;
	struct tcp_perf *cl, *sv;
	struct rte_ether_addr cmac, smac;
	char name[RTE_MEMPOOL_NAMESIZE];

	p = rte_zmalloc_socket("ust_loop", sizeof(*p), RTE_CACHE_LINE_SIZE,
			       (int)rte_socket_id());
	if (p == NULL)
		app_usage_error(PERF_PROG, "lcore %u: out of memory",
				rte_lcore_id());
	loop_w[w->idx] = p;
	snprintf(name, sizeof(name), "ust_loop_%u", w->idx);
	p->pool = rte_pktmbuf_pool_create(name, cfg->pool.mbufs,
					  cfg->pool.cache, 0,
					  cfg->pool.data_room,
					  (int)rte_socket_id());
	if (p->pool == NULL)
		app_usage_error(PERF_PROG, "lcore %u: cannot create a pool of "
				"%u mbufs: %s", rte_lcore_id(), cfg->pool.mbufs,
				rte_strerror(rte_errno));
	w->pool = p->pool;
	p->cli_end.rx = &p->to_cli;
	p->cli_end.tx = &p->to_srv;
	p->srv_end.rx = &p->to_srv;
	p->srv_end.tx = &p->to_cli;
	p->ss = loop_stack(c, p, &p->srv_end, "s", w->idx, saddr, 1);
	p->cs = loop_stack(c, p, &p->cli_end, "c", w->idx, caddr, 2);
	smac = ust_stack_conf(p->ss)->netif.mac;
	cmac = ust_stack_conf(p->cs)->netif.mac;
	if (ust_stack_arp_add_static(p->cs, saddr, &smac) != 0 ||
	    ust_stack_arp_add_static(p->ss, caddr, &cmac) != 0)
		app_usage_error(PERF_PROG, "static ARP entries refused");
	w->stk = NULL;
	sv = tcp_worker(c, w, &loop_srv[w->idx], p->ss);
	sv->server = true;
	memset(&sv->peer, 0, sizeof(sv->peer));
	sv->msg = malloc(RTE_MAX(sv->size, sv->response));
	cl = tcp_worker(c, w, &tcw[w->idx], p->cs);
	memset(&cl->peer, 0, sizeof(cl->peer));
	cl->peer.v4 = saddr;
	cl->peer.str = "the lcore's server stack";
	cl->msg = malloc(RTE_MAX(cl->size, cl->response));
	if (sv->msg == NULL || cl->msg == NULL)
		app_usage_error(PERF_PROG, "out of memory");
	memset(sv->msg, 0xa5, RTE_MAX(sv->size, sv->response));
	memset(cl->msg, 0xa5, RTE_MAX(cl->size, cl->response));
	app_hist_init(&cl->lat);
	app_hist_init(&sv->lat);
	sv->ep = app_epoll_create(PERF_PROG, p->ss);
	cl->ep = app_epoll_create(PERF_PROG, p->cs);
	server_begin(c, sv);
	client_begin(c, cl);
	if (w->idx == 0)
		printf("%s: tcp-rr-loop on %u lcore%s: on each, a client stack "
		       "and a server stack wired in memory, %u connection%s, "
		       "%u-byte requests, %u-byte responses\n", PERF_PROG,
		       c->nb_workers, c->nb_workers == 1 ? "" : "s",
		       cl->conns, cl->conns == 1 ? "" : "s", cl->size,
		       cl->response);
}

static bool
loop_poll(struct perf_ctx *c, struct perf_worker *w, uint64_t now)
{
	bool busy;

	busy = client_poll(c, &tcw[w->idx], now);
	busy |= server_poll(c, &loop_srv[w->idx], now);
	return busy;
}

static void
loop_measure(struct perf_ctx *c, struct perf_worker *w, uint64_t now)
{
	RTE_SET_USED(c);
	RTE_SET_USED(now);
	tcp_measure_one(&tcw[w->idx]);
	tcp_measure_one(&loop_srv[w->idx]);
}

static void
loop_poll_both(struct perf_ctx *c, struct perf_worker *w, uint64_t ns)
{
	uint64_t until = ust_clock_ns() + ns;

	while (ust_clock_ns() < until)
		loop_poll(c, w, ust_clock_ns());
}

static void
loop_end(struct perf_ctx *c, struct perf_worker *w)
{
	struct tcp_perf *cl = &tcw[w->idx], *sv = &loop_srv[w->idx];
	struct loop_pair *p = loop_w[w->idx];
	uint64_t until;
	uint32_t i, busy;

	cl->txns1 = cl->txns;
	cl->out1 = cl->bytes_out;
	cl->in1 = cl->bytes_in;
	ust_stack_tcp_tx_stats(cl->stk, &cl->tx1);
	if (!cl->measuring) {
		cl->txns0 = cl->txns1;
		cl->out0 = cl->out1;
		cl->in0 = cl->in1;
		cl->tx0 = cl->tx1;
	}
	cl->measuring = false;
	cl->stopping = true;
	/* the responses in flight come in (up to 200 ms) */
	until = ust_clock_ns() + 200000000ull;
	do {
		loop_poll(c, w, ust_clock_ns());
		for (i = 0, busy = 0; i < cl->nc; i++)
			if (cl->c[i].st == C_WAIT ||
			    cl->c[i].st == C_CONNECTING)
				busy++;
	} while (busy > 0 && ust_clock_ns() < until);
	for (i = 0; i < cl->nc; i++)
		if (cl->c[i].st != C_FREE && cl->c[i].st != C_DEAD) {
			ust_close(cl->stk, cl->c[i].sd);
			cl->c[i].st = C_FREE;
		}
	/* the FINs cross, the server closes its side */
	loop_poll_both(c, w, 50000000ull);
	for (i = 0; i < sv->nc; i++)
		if (sv->c[i].st == C_SERVE)
			ust_close(sv->stk, sv->c[i].sd);
	ust_close(sv->stk, sv->ls);
	loop_poll_both(c, w, 20000000ull);
	ust_close(cl->stk, cl->ep);
	ust_close(sv->stk, sv->ep);
	ust_stack_stats_get(p->cs, &p->cst);
	ust_stack_stats_get(p->ss, &p->sst);
	ust_stack_destroy(p->cs);
	ust_stack_destroy(p->ss);
	cl->stk = NULL;
	sv->stk = NULL;
	/* what the wires still hold */
	while (p->to_srv.n > 0 || p->to_cli.n > 0) {
		struct rte_mbuf *m[32];
		uint16_t n;

		n = loop_rx(&p->srv_end, m, RTE_DIM(m));
		n = (uint16_t)(n + loop_rx(&p->cli_end, m + n,
					   (uint16_t)(RTE_DIM(m) - n)));
		rte_pktmbuf_free_bulk(m, n);
	}
	p->wire_full = p->to_srv.full + p->to_cli.full;
	p->in_use_end = rte_mempool_in_use_count(p->pool);
	rte_mempool_free(p->pool);
	p->pool = NULL;
	w->pool = NULL;
}

static void
loop_tick(struct perf_ctx *c, double dt)
{
	uint64_t txns = 0, errors = 0;
	char pfx[32];
	unsigned int i;

	for (i = 0; i < c->nb_workers; i++) {
		struct tcp_perf *t = &tcw[i];

		txns += __atomic_load_n(&t->txns, __ATOMIC_RELAXED) -
			t->txns_t;
		errors += t->errors;
		snprintf(pfx, sizeof(pfx), "  lcore %u: ", c->w[i].lcore);
		tcp_tick_one(c, t, dt, c->nb_workers > 1 ? pfx : "");
	}
	if (c->nb_workers > 1)
		printf("%s: %10.0f transactions/s | errors %" PRIu64 " | "
		       "total of %u lcores\n", c->mode->name,
		       (double)txns / dt, errors, c->nb_workers);
}

static void
loop_report_stack(struct perf_ctx *c, const struct perf_worker *w,
		  struct app_json *j)
{
	const struct loop_pair *p = loop_w[w->idx];

	tcp_report_stack(c, w, j);
	json_u64(j, "client_segs_out", p->cst.mib[UST_MIB_TCP_OUTSEGS]);
	json_u64(j, "server_segs_out", p->sst.mib[UST_MIB_TCP_OUTSEGS]);
	json_u64(j, "retrans_segs", p->cst.mib[UST_MIB_TCP_RETRANSSEGS] +
		 p->sst.mib[UST_MIB_TCP_RETRANSSEGS]);
	json_u64(j, "wire_full", p->wire_full);
	json_u64(j, "mbuf_in_use_end", p->in_use_end);
}

static void
loop_report(struct perf_ctx *c, struct app_json *j)
{
	static struct tcp_perf sum;
	double secs = (double)(c->t_end - c->t_begin) / 1e9, rate = 0;
	uint64_t cyc[4], txns, leak = 0, retrans = 0, full = 0;
	unsigned int i;

	tcp_sum(c, tcw, c->nb_workers, &sum, cyc);
	txns = sum.txns1;
	for (i = 0; i < c->nb_workers; i++) {
		const struct tcp_perf *t = &tcw[i];
		const struct perf_worker *w = &c->w[i];
		const struct loop_pair *p = loop_w[i];
		uint64_t n = t->txns1 - t->txns0;
		double ws = perf_secs(w);
		uint64_t rt = p->cst.mib[UST_MIB_TCP_RETRANSSEGS] +
			p->sst.mib[UST_MIB_TCP_RETRANSSEGS];

		rate += per((double)n, ws);
		leak += p->in_use_end;
		retrans += rt;
		full += p->wire_full;
		printf("%s: lcore %u, %.2f s: %" PRIu64 " transactions "
		       "(%.1f/s), cycles/txn %.0f busy %.0f loop, p50 %.1f "
		       "p99 %.1f us; %" PRIu64 " connections, %" PRIu64
		       " errors, %" PRIu64 " retransmitted, mbufs left %u\n",
		       PERF_PROG, w->lcore, ws, n, per((double)n, ws),
		       per((double)w->busy_tsc, (double)n),
		       per((double)(w->tsc_end - w->tsc_begin), (double)n),
		       app_hist_quantile(&t->lat, 0.5) / 1e3,
		       app_hist_quantile(&t->lat, 0.99) / 1e3, t->connects,
		       t->errors, rt, p->in_use_end);
		if (n == 0 || t->errors != 0 || p->in_use_end != 0)
			c->status = 1;
	}
	printf("%s: tcp-rr-loop, %u lcore%s, %.2f s measured: %" PRIu64
	       " transactions, %.1f transactions/s (sum of the lcores' "
	       "rates), cycles/txn %.0f busy %.0f loop (client and server "
	       "together)\n", PERF_PROG, c->nb_workers,
	       c->nb_workers == 1 ? "" : "s", secs, txns, rate,
	       per((double)cyc[0], (double)txns),
	       per((double)cyc[1], (double)txns));
	printf("latency (us): p50 %.1f  p99 %.1f  p99.9 %.1f\n",
	       app_hist_quantile(&sum.lat, 0.5) / 1e3,
	       app_hist_quantile(&sum.lat, 0.99) / 1e3,
	       app_hist_quantile(&sum.lat, 0.999) / 1e3);
	if (j == NULL)
		return;
	json_obj(j, "options");
	json_u64(j, "conns_per_lcore", state(c)->conns);
	json_u64(j, "size", sum.size);
	json_u64(j, "response", sum.response);
	json_obj_end(j);
	json_obj(j, "result");
	json_u64(j, "transactions", txns);
	json_dbl(j, "transactions_per_s", rate);
	json_hist(j, "latency_ns", &sum.lat);
	json_dbl(j, "cycles_per_txn", per((double)cyc[0], (double)txns));
	json_dbl(j, "loop_cycles_per_txn", per((double)cyc[1], (double)txns));
	json_u64(j, "busy_cycles", cyc[0]);
	json_u64(j, "loop_cycles", cyc[1]);
	json_u64(j, "tsc_hz", c->tsc_hz);
	json_u64(j, "connects", sum.connects);
	json_u64(j, "errors", sum.errors);
	json_u64(j, "retrans_segs", retrans);
	json_u64(j, "wire_full", full);
	json_u64(j, "mbuf_in_use_end", leak);
	json_obj_end(j);
}

static const struct option loop_opts[] = {
	{ "port", required_argument, NULL, T_PORT },
	{ "conns", required_argument, NULL, T_CONNS },
	{ "size", required_argument, NULL, T_SIZE },
	{ "response", required_argument, NULL, T_RESPONSE },
	{ NULL, 0, NULL, 0 },
};

const struct perf_mode perf_tcp_rr_loop = {
	.name = "tcp-rr-loop",
	.summary = "TCP RR between two stacks on each lcore, in memory (no "
		   "port)",
	.usage =
"  No ethdev port (EAL --no-pci is enough): each of --nb-cores lcores runs\n"
"  a client stack and a server stack wired in memory; --addr is the\n"
"  server's (default 198.18.0.1/24), the client has the next address.\n"
"  --conns N              connections per lcore, 1-16384 (default: 1)\n"
"  --port N               the server's TCP port (default: 5201)\n"
"  --size BYTES           request size, 1-65536 (default: 64)\n"
"  --response BYTES       response size, 1-65536 (default: --size)\n"
"  Exit status 1 when an lcore completed nothing, lost a connection or\n"
"  left mbufs in use.\n",
	.opts = loop_opts,
	.no_port = true,
	.parse = tcp_parse,
	.check = loop_check,
	.begin = loop_begin,
	.poll = loop_poll,
	.measure = loop_measure,
	.tick = loop_tick,
	.end = loop_end,
	.report = loop_report,
	.report_stack = loop_report_stack,
};
