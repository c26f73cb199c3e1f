/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * ust-echo over TCP.
 *
 * Server (run_tcp_server): one listening socket and an event set; every
 * connection is served in one of three ways:
 *  - echo (default): what arrives goes back, zero copy: the mbufs
 *    ust_recv_burst() hands over are queued again with ust_send_burst();
 *    what the send buffer does not take waits for UST_EPOLLOUT;
 *  - request-response (--response N): the stream is cut into --size-byte
 *    requests and each is answered with N bytes;
 *  - discard (--discard): read and drop, a sink for bulk transfers.
 * A connection the peer closes is closed in turn; at exit all are closed
 * (reset with --close-rst).
 *
 * Client (run_tcp_client): --flows connections, each with one --size-byte
 * request outstanding and a --response-byte answer awaited; with
 * --reconnect K a connection is closed and a new one opened after K
 * transactions (K = 1: connections per second). Connection errors are
 * counted by errno, and the connection is opened again after --timeout.
 *
 * Stream (run_tcp_stream): one connection that sends a file (--stream) or
 * --bulk bytes of a pattern, then shuts down its sending side, and reads
 * until the server's EOF, writing what comes back to --stream-out.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/tcp.h>

#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "echo.h"
#include "ust_socket.h"
#include "ust_tcp.h"

#define LISTENER UINT64_MAX
#define BURST 32

/* bytes allocated from the DPDK heaps (pools, tables, control blocks) */
static uint64_t
heap_used(void)
{
	struct rte_malloc_socket_stats ms;
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < RTE_MAX_NUMA_NODES; i++)
		if (rte_malloc_get_socket_stats((int)i, &ms) == 0)
			sum += ms.heap_allocsz_bytes;
	return sum;
}

static void
set_bufs(const struct opts *o, struct ust_stack *stk, int sd)
{
	if (o->sndbuf != 0)
		app_set_int(stk, sd, SOL_SOCKET, SO_SNDBUF, (int)o->sndbuf);
	if (o->rcvbuf != 0)
		app_set_int(stk, sd, SOL_SOCKET, SO_RCVBUF, (int)o->rcvbuf);
}

/* ---- server ---- */

struct sconn {
	bool open;
	bool eof;              /* the peer sent FIN */
	bool want_out;         /* waiting for send room */
	uint16_t npend;        /* echo: mbufs send_burst did not take */
	uint32_t req_have;     /* request-response: bytes of this request */
	uint64_t rsp_owed;     /* ... response bytes still to send */
	struct rte_mbuf *pend[BURST];
};

static const uint8_t rsp_fill[4096] = { 0x5a };

static void
sconn_close(struct ust_stack *stk, struct sconn *c, int sd, bool rst,
	    struct server_result *res)
{
	uint16_t i;

	for (i = 0; i < c->npend; i++)
		rte_pktmbuf_free(c->pend[i]);
	if (rst) {
		struct linger lg = { .l_onoff = 1, .l_linger = 0 };

		ust_setsockopt(stk, sd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	}
	ust_close(stk, sd);
	memset(c, 0, sizeof(*c));
	res->closed++;
}

/* Send what is owed; true when all of it went. */
static bool
sconn_flush(struct ust_stack *stk, struct sconn *c, int sd,
	    struct server_result *res)
{
	if (c->npend > 0) {
		int k = ust_send_burst(stk, sd, c->pend, c->npend, NULL);

		if (k > 0) {
			uint32_t i;

			for (i = 0; i < (uint32_t)k; i++)
				res->echoed += c->pend[i]->pkt_len;
			memmove(c->pend, c->pend + k,
				(c->npend - (uint32_t)k) * sizeof(c->pend[0]));
			c->npend = (uint16_t)(c->npend - k);
		}
		return c->npend == 0;
	}
	while (c->rsp_owed > 0) {
		ssize_t k = ust_send(stk, sd, rsp_fill,
				     c->rsp_owed < sizeof(rsp_fill) ?
				     c->rsp_owed : sizeof(rsp_fill), 0);

		if (k <= 0)
			return false;
		c->rsp_owed -= (uint64_t)k;
		res->echoed += (uint64_t)k;
	}
	return true;
}

/* Serve one connection's events; false when it is closed. */
static bool
sconn_serve(const struct opts *o, struct ust_stack *stk, int ep,
	    struct sconn *c, int sd, struct server_result *res)
{
	struct rte_mbuf *pk[BURST];
	int n, i;

	for (;;) {
		if (!sconn_flush(stk, c, sd, res))
			break;
		if (c->eof)
			break;
		n = ust_recv_burst(stk, sd, pk, BURST, NULL);
		if (n == -EAGAIN)
			break;
		if (n == 0) {
			c->eof = true;
			break;
		}
		if (n < 0) {
			res->resets++;
			sconn_close(stk, c, sd, false, res);
			res->closed--;
			return false;
		}
		for (i = 0; i < n; i++)
			res->received += pk[i]->pkt_len;
		if (o->discard) {
			for (i = 0; i < n; i++)
				rte_pktmbuf_free(pk[i]);
		} else if (o->response != 0) {
			for (i = 0; i < n; i++) {
				uint32_t len = pk[i]->pkt_len;

				/* each complete request owes a response */
				c->req_have += len;
				while (c->req_have >= o->size) {
					c->req_have -= o->size;
					c->rsp_owed += o->response;
					res->transactions++;
				}
				rte_pktmbuf_free(pk[i]);
			}
		} else {
			memcpy(c->pend, pk, (size_t)n * sizeof(pk[0]));
			c->npend = (uint16_t)n;
		}
	}
	if (c->eof && c->npend == 0 && c->rsp_owed == 0) {
		sconn_close(stk, c, sd, false, res);
		return false;
	}
	/* level-triggered: ask for EPOLLOUT only while something waits */
	if ((c->npend > 0 || c->rsp_owed > 0) != c->want_out) {
		c->want_out = !c->want_out;
		app_watch(stk, ep, UST_EPOLL_CTL_MOD, sd, UST_EPOLLIN |
			  (c->want_out ? UST_EPOLLOUT : 0), (uint64_t)sd);
	}
	return true;
}

/* the --stats-period line */
static void
tcp_server_line(const char *prefix, const struct ust_env *env,
		struct ust_stack *stk, const struct echo_result *r)
{
	const struct server_result *res = &r->srv;
	struct ust_stats st;

	if (stk != NULL)
		ust_stack_stats_get(stk, &st);
	else
		ust_group_stats_get(env->grp, &st);
	printf("%saccepted %" PRIu64 " closed %" PRIu64 " resets %" PRIu64
	       " bytes in %" PRIu64 " out %" PRIu64 " established %" PRIu64
	       " heap %" PRIu64 "\n", prefix, res->accepted, res->closed,
	       res->resets, res->received, res->echoed,
	       st.mib[UST_MIB_TCP_CURRESTAB], heap_used());
}

int
run_tcp_server(struct echo_worker *w)
{
	const struct opts *o = w->o;
	struct ust_env *env = w->env;
	struct server_result *res = &w->res.srv;
	struct ust_stack *stk = w->stk;
	union ust_sockaddr sa;
	socklen_t salen;
	uint64_t next_stats, period = (uint64_t)o->stats_period * 1000000000u;
	uint32_t nconn = env->cfg.stack.max_sockets;
	struct app_listen_watch lw = { 0, false };
	struct sconn *conns;
	int ls, ep, rc;
	uint32_t i;

	conns = calloc(nconn, sizeof(*conns));
	if (conns == NULL)
		app_usage_error(PROG, "out of memory for %u connections",
				nconn);
	/* with IPv6 on, one dual-stack listener on :: takes both families */
	salen = app_sockaddr(&sa, w->ip6, 0, NULL, (uint16_t)o->port);
	ls = ust_socket(stk, sa.sa.sa_family, SOCK_STREAM, 0);
	if (ls < 0)
		app_usage_error(PROG, "socket: %s", strerror(-ls));
	app_set_int(stk, ls, SOL_SOCKET, SO_REUSEADDR, 1);
	set_bufs(o, stk, ls);
	app_set_int(stk, ls, IPPROTO_TCP, TCP_NODELAY, 1);
	if (o->keepalive != 0) {
		/* accepted connections inherit it: a peer that went away and
		 * whose RST was lost (a full TAP queue drops frames in a burst
		 * of closes) is found instead of staying established */
		app_set_int(stk, ls, SOL_SOCKET, SO_KEEPALIVE, 1);
		app_set_int(stk, ls, IPPROTO_TCP, TCP_KEEPIDLE,
			    (int)o->keepalive);
		app_set_int(stk, ls, IPPROTO_TCP, TCP_KEEPINTVL,
			    (int)o->keepalive);
		app_set_int(stk, ls, IPPROTO_TCP, TCP_KEEPCNT, 3);
	}
	rc = ust_bind(stk, ls, &sa.sa, salen);
	if (rc == 0)
		rc = ust_listen(stk, ls, (int)o->backlog);
	if (rc != 0)
		app_usage_error(PROG, "cannot listen on TCP port %u: %s",
				o->port, strerror(-rc));
	ep = app_epoll_create(PROG, stk);
	app_watch(stk, ep, UST_EPOLL_CTL_ADD, ls, UST_EPOLLIN, LISTENER);
	/* every stack listens before any polls */
	echo_ready(w);
	if (w->idx == 0) {
		printf("%s: serving TCP %s on port %u", PROG,
		       o->hold ? "without accepting" : o->discard ? "discard" :
		       o->response != 0 ? "request-response" : "echo",
		       o->port);
		if (w->ip6)
			printf(" (IPv4 and IPv6)");
		if (w->nb > 1)
			printf(" on %u stacks", w->nb);
		printf(" (heap %" PRIu64 " bytes)\n", heap_used());
		fflush(stdout);
	}
	next_stats = ust_clock_ns() + period;
	while (!quit) {
		struct ust_epoll_event evs[64];
		uint64_t now = ust_clock_ns();
		uint16_t rx = ust_stack_poll(stk, now);
		int n = ust_epoll_wait(stk, ep, evs, 64), k;

		for (k = 0; k < n; k++) {
			int sd;

			if (evs[k].data != LISTENER) {
				sd = (int)evs[k].data;
				sconn_serve(o, stk, ep, &conns[sd], sd, res);
				continue;
			}
			while (!o->hold &&
			       (sd = ust_accept(stk, ls, NULL, NULL)) >= 0) {
				if ((uint32_t)sd >= nconn) {
					ust_close(stk, sd);
					continue;
				}
				res->accepted++;
				conns[sd].open = true;
				app_watch(stk, ep, UST_EPOLL_CTL_ADD, sd,
					  UST_EPOLLIN, (uint64_t)sd);
				sconn_serve(o, stk, ep, &conns[sd], sd, res);
			}
		}
		if (n > 0)
			ust_stack_flush(stk);
		app_listen_watch_stack(&lw, env, stk, now, o->backlog);
		if (period != 0 && now >= next_stats && w->idx == 0) {
			echo_stats_lines(w, tcp_server_line);
			next_stats = now + period;
		}
		if (w->idx == 0 && app_usr1_take())
			echo_dump(w);
		echo_idle(w, rx > 0 || n > 0);
	}
	for (i = 0; i < nconn; i++)
		if (conns[i].open)
			sconn_close(stk, &conns[i], (int)i, o->close_rst, res);
	ust_close(stk, ls);
	ust_close(stk, ep);
	/* what close() queued (FINs, RSTs) leaves before the stack goes */
	echo_finish(w, 20000000);
	free(conns);
	return 0;
}

/* ---- client ---- */

enum cstate { C_IDLE, C_CONNECTING, C_SEND, C_WAIT };

struct cflow {
	int sd;
	enum cstate st;
	uint32_t req_off;      /* bytes of the request sent */
	uint32_t rsp_have;
	uint32_t on_conn;      /* transactions on this connection */
	uint64_t sent_ns;
	uint64_t retry_ns;     /* C_IDLE: when to connect again */
};

static void
client_error(struct client_result *res, int err)
{
	res->last_error = err;
	switch (err) {
	case ECONNREFUSED:
		res->refused++;
		break;
	case ECONNRESET:
		res->resets++;
		break;
	case ETIMEDOUT:
		res->conn_timeouts++;
		break;
	default:
		res->other_errors++;
		break;
	}
}

static void
cflow_open(const struct opts *o, struct ust_stack *stk, int ep,
	   struct cflow *x, uint32_t f, const union ust_sockaddr *to,
	   socklen_t tolen, struct client_result *res)
{
	int rc;

	x->sd = ust_socket(stk, to->sa.sa_family, SOCK_STREAM, 0);
	if (x->sd < 0)
		app_usage_error(PROG, "flow %u: socket: %s (raise [stack] "
				"max_sockets)", f, strerror(-x->sd));
	app_set_int(stk, x->sd, IPPROTO_TCP, TCP_NODELAY, 1);
	set_bufs(o, stk, x->sd);
	rc = app_connect(stk, x->sd, &to->sa, tolen, &quit);
	if (rc != -EINPROGRESS) {
		if (rc == -ENETUNREACH || rc == -EINVAL ||
		    rc == -EAFNOSUPPORT)
			app_usage_error(PROG, "--peer %s: %s", o->peer,
					strerror(-rc));
		client_error(res, -rc);
		ust_close(stk, x->sd);
		x->sd = -1;
		x->st = C_IDLE;
		x->retry_ns = ust_clock_ns() + (uint64_t)o->timeout_ms *
			1000000u;
		return;
	}
	app_watch(stk, ep, UST_EPOLL_CTL_ADD, x->sd, UST_EPOLLIN | UST_EPOLLOUT,
		  f);
	x->st = C_CONNECTING;
	x->req_off = 0;
	x->rsp_have = 0;
	x->on_conn = 0;
}

static void
cflow_close(const struct opts *o, struct ust_stack *stk, struct cflow *x,
	    int err, struct client_result *res)
{
	if (err != 0)
		client_error(res, err);
	ust_close(stk, x->sd);
	x->sd = -1;
	x->st = C_IDLE;
	/* after an error, wait before trying again; after an orderly end of
	 * a connection (--reconnect), at once */
	x->retry_ns = err != 0 ? ust_clock_ns() + (uint64_t)o->timeout_ms *
		1000000u : 0;
}

/* Handle readiness of one flow. */
static void
cflow_event(struct echo_worker *w, int ep, struct cflow *x, uint32_t f,
	    uint32_t events, uint64_t measure_from)
{
	const struct opts *o = w->o;
	struct ust_stack *stk = w->stk;
	struct client_result *res = &w->res.cli;
	uint8_t *rsp = w->in;
	uint32_t want = o->response != 0 ? o->response : o->size;

	if (x->st == C_CONNECTING) {
		int err = 0;
		socklen_t l = sizeof(err);

		ust_getsockopt(stk, x->sd, SOL_SOCKET, SO_ERROR, &err, &l);
		if (err != 0 || (events & (UST_EPOLLERR | UST_EPOLLHUP))) {
			cflow_close(o, stk, x, err != 0 ? err : ECONNABORTED,
				    res);
			return;
		}
		if (!(events & UST_EPOLLOUT))
			return;
		res->connects++;
		x->st = C_SEND;
		/* from now on, readable is what matters */
		app_watch(stk, ep, UST_EPOLL_CTL_MOD, x->sd, UST_EPOLLIN, f);
		return;
	}
	if (x->st != C_WAIT && x->st != C_SEND)
		return;
	for (;;) {
		ssize_t r = ust_recv(stk, x->sd, rsp, MAX_TCP_SIZE, 0);
		uint64_t now;

		if (r == -EAGAIN)
			return;
		if (r <= 0) {
			cflow_close(o, stk, x, r == 0 ? EPIPE : (int)-r, res);
			return;
		}
		res->bytes_received += (uint64_t)r;
		if (x->st != C_WAIT) {
			res->late++;
			continue;
		}
		x->rsp_have += (uint32_t)r;
		if (x->rsp_have < want)
			continue;
		if (x->rsp_have > want)
			res->late++; /* more than was asked for */
		now = ust_clock_ns();
		res->all++;
		if (x->sent_ns >= measure_from) {
			res->transactions++;
			app_hist_add(&res->lat, now - x->sent_ns);
		}
		x->rsp_have = 0;
		x->on_conn++;
		if (o->reconnect != 0 && x->on_conn >= o->reconnect) {
			cflow_close(o, stk, x, 0, res);
			return;
		}
		x->st = C_SEND;
		x->req_off = 0;
	}
}

/* the --stats-period line */
static void
tcp_client_line(const char *prefix, const struct ust_env *env __rte_unused,
		struct ust_stack *stk __rte_unused, const struct echo_result *r)
{
	printf("%s%" PRIu64 " transactions, %" PRIu64 " connections\n",
	       prefix, r->cli.all, r->cli.connects);
}

int
run_tcp_client(struct echo_worker *w)
{
	const struct opts *o = w->o;
	struct client_result *res = &w->res.cli;
	uint8_t *req = w->buf;
	struct ust_stack *stk = w->stk;
	union ust_sockaddr to;
	socklen_t tolen;
	uint64_t start, measure_from, end;
	uint64_t period = (uint64_t)o->stats_period * 1000000000u, next_stats;
	struct cflow *fl;
	uint64_t inflight;
	uint32_t f;
	int ep;

	/* this stack's flows: k with k % nb == idx, numbered 0.. here */
	fl = calloc(w->nflows, sizeof(*fl));
	if (fl == NULL)
		app_usage_error(PROG, "out of memory for %u flows", w->nflows);
	tolen = echo_peer_addr(w, &to);
	ep = app_epoll_create(PROG, stk);
	memset(req, 0xa5, MAX_TCP_SIZE);
	app_hist_init(&res->lat);
	echo_ready(w);
	start = ust_clock_ns();
	measure_from = start + (uint64_t)(o->warmup * 1e9);
	end = measure_from + (uint64_t)(o->duration * 1e9);
	next_stats = start + period;
	for (f = 0; f < w->nflows; f++) {
		fl[f].sd = -1;
		cflow_open(o, stk, ep, &fl[f], f, &to, tolen, res);
	}
	while (!quit) {
		struct ust_epoll_event evs[64];
		uint64_t now = ust_clock_ns();
		int n, i;

		if (now >= end || (w->count != 0 && res->all >= w->count))
			break;
		ust_stack_poll(stk, now);
		n = ust_epoll_wait(stk, ep, evs, 64);
		for (i = 0; i < n; i++)
			cflow_event(w, ep, &fl[evs[i].data],
				    (uint32_t)evs[i].data, evs[i].events,
				    measure_from);
		now = ust_clock_ns();
		/* --count: transactions started and not completed count
		 * too, so that no flow starts one more than asked */
		inflight = 0;
		if (w->count != 0)
			for (f = 0; f < w->nflows; f++)
				if (fl[f].st == C_WAIT ||
				    (fl[f].st == C_SEND && fl[f].req_off > 0))
					inflight++;
		for (f = 0; f < w->nflows; f++) {
			struct cflow *x = &fl[f];
			ssize_t r;

			if (x->st == C_IDLE) {
				if (now >= x->retry_ns)
					cflow_open(o, stk, ep, x, f, &to,
						   tolen, res);
				continue;
			}
			if (x->st != C_SEND)
				continue;
			if (x->req_off == 0) {
				if (w->count != 0 &&
				    res->all + inflight + 1 > w->count)
					continue;
				inflight++;
				x->sent_ns = now;
			}
			r = ust_send(stk, x->sd, req + x->req_off,
				     o->size - x->req_off, 0);
			if (r < 0) {
				if (r != -EAGAIN && r != -ENOBUFS) {
					res->send_errors++;
					cflow_close(o, stk, x, (int)-r, res);
				}
				continue;
			}
			res->bytes_sent += (uint64_t)r;
			x->req_off += (uint32_t)r;
			if (x->req_off == o->size)
				x->st = C_WAIT;
		}
		if (period != 0 && now >= next_stats && w->idx == 0) {
			echo_stats_lines(w, tcp_client_line);
			next_stats = now + period;
		}
		if (w->idx == 0 && app_usr1_take())
			echo_dump(w);
	}
	res->seconds = (double)(ust_clock_ns() < end ? ust_clock_ns() : end);
	res->seconds = res->seconds > (double)measure_from ?
		(res->seconds - (double)measure_from) / 1e9 : 0;
	for (f = 0; f < w->nflows; f++)
		if (fl[f].sd >= 0)
			ust_close(stk, fl[f].sd);
	ust_close(stk, ep);
	/* the FINs go, and the last ACKs come in */
	echo_finish(w, 20000000);
	free(fl);
	return 0;
}

/* ---- stream ---- */

/*
 * --bulk's bytes: byte n of the stream is (n * 131 >> 3) mod 256, which
 * repeats every 2048 bytes (131 is odd: n * 131 mod 2048 runs through all
 * its values). The pattern is made once, a period longer than the largest
 * chunk, and the stream sends from it at the phase its byte count is at:
 * made a byte at a time per chunk, it was 31 % of the sender's cycles.
 */
#define PATTERN_PERIOD 2048u

static uint8_t *
pattern_make(void)
{
	uint8_t *pat = malloc(PATTERN_PERIOD + MAX_TCP_SIZE);
	size_t i;

	if (pat == NULL)
		return NULL;
	for (i = 0; i < PATTERN_PERIOD + MAX_TCP_SIZE; i++)
		pat[i] = (uint8_t)(i * 131 >> 3);
	return pat;
}

int
run_tcp_stream(struct echo_worker *w)
{
	const struct opts *o = w->o;
	struct client_result *res = &w->res.cli;
	uint8_t *buf = w->buf, *in = w->in, *pat = NULL;
	const uint8_t *data = buf;
	struct ust_stack *stk = w->stk;
	union ust_sockaddr to;
	socklen_t tolen;
	FILE *src = NULL, *out = NULL;
	uint64_t total = o->bulk, start = 0, t_end;
	size_t have = 0, off = 0;
	bool connected = false, shut = false, eof = false, src_done = false;
	int sd, rc;

	if (o->stream != NULL) {
		src = fopen(o->stream, "rb");
		if (src == NULL)
			app_usage_error(PROG, "--stream %s: %s", o->stream,
					strerror(errno));
	}
	if (src == NULL) {
		pat = pattern_make();
		if (pat == NULL)
			rte_exit(EXIT_FAILURE, "%s: --bulk: out of memory\n",
				 PROG);
	}
	if (o->stream_out != NULL) {
		out = fopen(o->stream_out, "wb");
		if (out == NULL)
			app_usage_error(PROG, "--stream-out %s: %s",
					o->stream_out, strerror(errno));
	}
	tolen = echo_peer_addr(w, &to);
	sd = ust_socket(stk, to.sa.sa_family, SOCK_STREAM, 0);
	set_bufs(o, stk, sd);
	echo_ready(w);
	rc = app_connect(stk, sd, &to.sa, tolen, &quit);
	if (rc != -EINPROGRESS)
		app_usage_error(PROG, "--peer %s: %s", o->peer, strerror(-rc));
	/* the whole transfer must end within --duration */
	t_end = ust_clock_ns() + (uint64_t)(o->duration * 1e9);
	while (!quit && !eof && ust_clock_ns() < t_end) {
		ssize_t k;

		ust_stack_poll(stk, ust_clock_ns());
		if (!connected) {
			int err = 0;
			socklen_t l = sizeof(err);

			ust_getsockopt(stk, sd, SOL_SOCKET, SO_ERROR, &err, &l);
			if (err != 0) {
				client_error(res, err);
				break;
			}
			k = ust_send(stk, sd, buf, 0, 0);
			if (k == -EAGAIN)
				continue;
			connected = true;
			res->connects++;
			start = ust_clock_ns();
		}
		/* send what the buffer takes */
		while (!shut) {
			if (off == have && !src_done) {
				if (src != NULL) {
					have = fread(buf, 1, MAX_TCP_SIZE,
						     src);
				} else {
					uint64_t left = total - res->bytes_sent;

					have = left < MAX_TCP_SIZE ?
						(size_t)left : MAX_TCP_SIZE;
					data = pat + res->bytes_sent %
						PATTERN_PERIOD;
				}
				off = 0;
				if (have == 0)
					src_done = true;
			}
			if (src_done) {
				ust_shutdown(stk, sd, SHUT_WR);
				shut = true;
				break;
			}
			k = ust_send(stk, sd, data + off, have - off, 0);
			if (k == -EAGAIN || k == -ENOBUFS)
				break;
			if (k < 0) {
				client_error(res, (int)-k);
				eof = true;
				break;
			}
			off += (size_t)k;
			res->bytes_sent += (uint64_t)k;
		}
		/* read what came back */
		for (;;) {
			k = ust_recv(stk, sd, in, MAX_TCP_SIZE, 0);
			if (k == -EAGAIN)
				break;
			if (k <= 0) {
				if (k < 0)
					client_error(res, (int)-k);
				eof = true;
				break;
			}
			res->bytes_received += (uint64_t)k;
			if (out != NULL && fwrite(in, 1, (size_t)k, out) !=
			    (size_t)k)
				app_usage_error(PROG, "--stream-out: %s",
						strerror(errno));
		}
	}
	res->seconds = start != 0 ? (double)(ust_clock_ns() - start) / 1e9 : 0;
	if (eof && res->last_error == 0)
		res->all = 1;
	ust_close(stk, sd);
	echo_finish(w, 20000000);
	if (src != NULL)
		fclose(src);
	free(pat);
	if (out != NULL && fclose(out) != 0)
		app_usage_error(PROG, "--stream-out: %s", strerror(errno));
	return 0;
}
