/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * --mode tcp-conns: connection scale. The client opens --conns TCP
 * connections to --ports consecutive server ports from --port (so that
 * the 4-tuple space is ports x the ephemeral range, not the ephemeral
 * range alone), at most --inflight connecting at once, and holds them
 * idle; the server listens on those ports and echoes whatever it reads.
 *
 * The client's run:
 *  1. set-up: the first connection alone (it resolves the peer's address),
 *     then --inflight at a time, connection k to port --port + k % --ports
 *     (on stack k % N with --nb-cores N). The set-up rate is the
 *     connections over the time from the first SYN to the last
 *     established. A connection that fails counts under "failed".
 *  2. hold: once every connection is established, the memory is read (the
 *     DPDK heap: the rte_malloc statistics of every NUMA socket; the mbuf
 *     pools' in-use count) and compared with what it was before the first
 *     connection; the connections then stay idle for --warmup + --duration
 *     seconds while the stack is polled. A connection that ends or
 *     receives anything meanwhile counts under "lost".
 *  3. check: every connection sends an 8-byte probe (its number) and
 *     waits for the server's echo, --inflight probes at a time; a wrong or
 *     missing echo counts (10 s without progress ends the check).
 *  4. close, --inflight connections an iteration; the stack is polled
 *     until the closing handshakes are over (500 ms without work, 30 s at
 *     most).
 * Exit status 1 when a connection failed, was lost or did not answer.
 *
 * The server (--duration 0 is typical: it ends when every connection it
 * accepted is closed again) reads its memory when the first probe
 * arrives (the client probes only once all its connections are
 * established) and reports the same figures for its accepted connections.
 *
 * Memory per connection: the heap's growth between "no connection" and
 * "all established", divided by the connections (the control blocks, the
 * RACK records, anything allocated per connection), plus the mbufs the
 * connections hold (an idle one none); again once every connection has
 * exchanged its probe and echo and is idle again (the client: after the
 * check; the server: at the first close), so that what a connection keeps
 * after sending (a SACK block, RACK's records: nothing, when idle) shows.
 * With one stack, its TCP objects (ust_tcp_mem_get()) at both points.
 * Apart from that, the tables the stack sizes at creation for [tcp]
 * max_conns and [stack] max_sockets (the connection hash, the descriptor
 * table; TIME_WAIT entries are made as connections close) and the
 * port's queues: the heap before the first connection less the heap right
 * after EAL initialisation and the mbuf pools' memory, reported per
 * connection slot ([tcp] max_conns).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "perf.h"
#include "ust_socket.h"
#include "ust_stats.h"
#include "ust_tcp.h"

#define CONNS_MAX (UST_MAX_SOCKETS - 64)
#define PROBE_LEN 8
#define LISTEN_BACKLOG 4096
#define LISTENER (1ull << 63)   /* event data: a listener (| port index) */
#define PORTS_MAX 1024

enum {
	K_ROLE = PERF_OPT_MODE_BASE, K_PEER, K_PORT, K_PORTS, K_CONNS,
	K_INFLIGHT,
};

static const struct option conns_opts[] = {
	{ "role", required_argument, NULL, K_ROLE },
	{ "peer", required_argument, NULL, K_PEER },
	{ "port", required_argument, NULL, K_PORT },
	{ "ports", required_argument, NULL, K_PORTS },
	{ "conns", required_argument, NULL, K_CONNS },
	{ "inflight", required_argument, NULL, K_INFLIGHT },
	{ NULL, 0, NULL, 0 },
};

/* a connection's state (client: by connection; server: by descriptor) */
enum {
	S_FREE = 0,
	S_CONNECTING,  /* client: SYN sent */
	S_IDLE,        /* established, idle (server: accepted) */
	S_PROBE,       /* client: probe sent, echo awaited */
	S_DONE,        /* client: echo checked */
	S_DEAD,        /* failed or lost, closed */
};

struct kconn {
	int32_t sd;
	uint8_t st;
	uint8_t have;  /* probe bytes received */
	bool bad;      /* the echo differs */
	uint8_t pad;
};

/* the options, and one worker's state */
struct conns_perf {
	bool server;
	bool role_set;
	struct perf_peer peer;
	uint16_t port;
	uint16_t ports;
	uint32_t conns;     /* client: of the run; a worker's: its share */
	uint32_t inflight;
	/* the worker's */
	struct ust_stack *stk;
	struct perf_worker *w;
	int ep;
	int ls[PORTS_MAX];  /* server: the listeners */
	struct kconn *c;    /* client: by connection; server: by descriptor */
	uint32_t nc;
	uint32_t next;      /* client: the next connection to open */
	uint32_t connecting;
	uint32_t probing;
	/* counters (the main lcore reads them for its lines) */
	uint32_t open;      /* established and not closed */
	uint64_t established;
	uint64_t failed;
	uint64_t lost;
	uint64_t answered;
	uint64_t wrong;
	uint64_t accepted;  /* server */
	uint64_t echoed;    /* server: bytes */
	uint64_t closed;
	int last_error;
	bool probed;        /* server: a probe came in */
} __rte_cache_aligned;

/* what the workers share: the run's set-up figures, memory snapshots */
static struct {
	uint64_t t_first;       /* ns: the first SYN (the first worker's) */
	uint64_t t_last;        /* ns: the last connection established */
	uint64_t established;   /* all workers' */
	uint64_t settled;       /* ... and those that failed to */
	uint64_t heap_base;     /* bytes, before the first connection */
	uint64_t heap_est;      /* ... once all are established */
	uint64_t mbuf_base;     /* mbufs in use, idem */
	uint64_t mbuf_est;
	uint64_t open_at_est;   /* connections open at the snapshot */
	uint64_t mbuf_pool_bytes;
	bool snap;              /* heap_est taken */
	/* once every connection has exchanged its probe and echo, still
	 * open (the client: after the check; the server: at the first
	 * close): the heap, the connections open, and (worker 0's stack)
	 * its TCP objects */
	uint64_t heap_probed;
	uint64_t open_at_probed;
	bool snap_probed;
	struct ust_tcp_mem tcp_est, tcp_probed; /* worker 0's stack */
	uint64_t hold_polls, hold_busy; /* worker 0's, in the hold */
} g = { .t_first = UINT64_MAX };

static struct conns_perf kopt = {
	.port = 5201, .ports = 1, .conns = 1, .inflight = 1024,
};
static struct conns_perf kw[UST_GROUP_MAX];

static struct conns_perf *
state(struct perf_ctx *c)
{
	c->priv = &kopt;
	return &kopt;
}

static void
conns_parse(struct perf_ctx *c, int id, const char *arg)
{
	struct conns_perf *t = state(c);

	switch (id) {
	case K_ROLE:
		t->server = perf_parse_role(arg);
		t->role_set = true;
		break;
	case K_PEER:
		perf_parse_peer(arg, &t->peer);
		if (t->peer.v6)
			app_usage_error(PERF_PROG, "--peer %s: tcp-conns is "
					"IPv4 only", arg);
		break;
	case K_PORT:
		t->port = (uint16_t)perf_num("--port", arg, 1, 65535);
		break;
	case K_PORTS:
		t->ports = (uint16_t)perf_num("--ports", arg, 1, PORTS_MAX);
		break;
	case K_CONNS:
		t->conns = perf_num("--conns", arg, 1, CONNS_MAX);
		break;
	case K_INFLIGHT:
		t->inflight = perf_num("--inflight", arg, 1, 65536);
		break;
	}
}

static void
conns_check(struct perf_ctx *c)
{
	struct conns_perf *t = state(c);
	const struct ust_stack_conf *sc = &c->env.cfg.stack;
	uint64_t span = (uint64_t)sc->ephemeral_hi - sc->ephemeral_lo + 1;

	if (!t->role_set)
		app_usage_error(PERF_PROG, "--mode tcp-conns needs --role "
				"server or --role client");
	if (!t->server && t->peer.str == NULL)
		app_usage_error(PERF_PROG, "--mode tcp-conns --role client "
				"needs --peer A.B.C.D");
	if (t->server && t->peer.str != NULL)
		app_usage_error(PERF_PROG, "--peer is a --role client option");
	if ((uint32_t)t->port + t->ports - 1 > 65535)
		app_usage_error(PERF_PROG, "--port %u --ports %u: beyond port "
				"65535", t->port, t->ports);
	if (t->server)
		return;
	/* what the configuration must hold, said before the run */
	if ((uint64_t)t->conns > span * t->ports)
		app_usage_error(PERF_PROG, "--conns %u: more than --ports %u x "
				"the %" PRIu64 " ephemeral ports ([stack] "
				"ephemeral_lo..ephemeral_hi) make 4-tuples",
				t->conns, t->ports, span);
	if (t->conns > sc->tcp.max_conns)
		app_usage_error(PERF_PROG, "--conns %u: more than [tcp] "
				"max_conns (%u)", t->conns, sc->tcp.max_conns);
	if ((uint64_t)t->conns + 8 > sc->max_sockets)
		app_usage_error(PERF_PROG, "--conns %u: more than [stack] "
				"max_sockets (%u) allows (8 spare)", t->conns,
				sc->max_sockets);
	c->clock_on_peer = true; /* the hold starts when all are set up */
}

/* ---- memory ---- */

static void
pool_mem_cb(struct rte_mempool *mp, void *opaque,
	    struct rte_mempool_memhdr *memhdr, unsigned int idx)
{
	RTE_SET_USED(mp);
	RTE_SET_USED(idx);
	*(uint64_t *)opaque += memhdr->len;
}

/* the distinct mbuf pools of the environment */
static unsigned int
env_pools(const struct perf_ctx *c, struct rte_mempool **out, unsigned int max)
{
	unsigned int n = 0, i, k;

	for (i = 0; i < RTE_MAX_NUMA_NODES + UST_GROUP_MAX; i++) {
		struct rte_mempool *mp = i < RTE_MAX_NUMA_NODES ?
			c->env.pools[i] :
			c->env.cfg.port.rx_pools[i - RTE_MAX_NUMA_NODES];

		if (mp == NULL)
			continue;
		for (k = 0; k < n && out[k] != mp; k++)
			;
		if (k == n && n < max)
			out[n++] = mp;
	}
	return n;
}

/* the mbufs in use in the environment's pools, and (@bytes not NULL)
 * the memory the pools hold */
static uint64_t
mbufs_in_use(const struct perf_ctx *c, uint64_t *bytes)
{
	struct rte_mempool *mp[RTE_MAX_NUMA_NODES + UST_GROUP_MAX];
	unsigned int n = env_pools(c, mp, RTE_DIM(mp)), i;
	uint64_t sum = 0;

	for (i = 0; i < n; i++) {
		sum += rte_mempool_in_use_count(mp[i]);
		if (bytes != NULL)
			rte_mempool_mem_iter(mp[i], pool_mem_cb, bytes);
	}
	return sum;
}

/* the snapshot once every connection is set up (once) */
static void
snap_established(struct perf_ctx *c, uint64_t open)
{
	if (g.snap)
		return;
	g.snap = true;
	g.heap_est = perf_heap_bytes();
	g.mbuf_est = mbufs_in_use(c, NULL);
	g.open_at_est = open;
	ust_tcp_mem_get(kw[0].stk, &g.tcp_est);
}

/* the snapshot once every connection has exchanged data (once; called by
 * worker 0) */
static void
snap_probed(struct perf_ctx *c)
{
	uint64_t open = 0;
	unsigned int i;

	if (g.snap_probed)
		return;
	g.snap_probed = true;
	for (i = 0; i < c->nb_workers; i++)
		open += __atomic_load_n(&kw[i].open, __ATOMIC_RELAXED);
	g.heap_probed = perf_heap_bytes();
	g.open_at_probed = open;
	ust_tcp_mem_get(kw[0].stk, &g.tcp_probed);
}

/* ---- server ---- */

static void
server_close(struct conns_perf *t, struct kconn *x)
{
	ust_close(t->stk, x->sd);
	x->st = S_FREE;
	t->closed++;
	__atomic_store_n(&t->open, t->open - 1, __ATOMIC_RELAXED);
}

/* echo what is there; returns whether anything happened */
static bool
server_serve(struct perf_ctx *c, struct conns_perf *t, struct kconn *x)
{
	uint8_t buf[512];
	ssize_t n, s;

	for (;;) {
		n = ust_recv(t->stk, x->sd, buf, sizeof(buf), 0);
		if (n == -EAGAIN)
			return true;
		if (n <= 0) {
			if (n < 0) {
				t->lost++;
				t->last_error = (int)-n;
			}
			/* the client closes once every echo came back */
			if (t->w->idx == 0 && g.snap)
				snap_probed(c);
			server_close(t, x);
			return true;
		}
		if (!t->probed) {
			/* every worker's connections are set up: the client
			 * probes only then */
			t->probed = true;
			if (t->w->idx == 0) {
				uint64_t open = 0;
				unsigned int i;

				for (i = 0; i < c->nb_workers; i++)
					open += __atomic_load_n(&kw[i].open,
							__ATOMIC_RELAXED);
				snap_established(c, open);
			}
		}
		s = ust_send(t->stk, x->sd, buf, (size_t)n, 0);
		if (s != n) {
			/* a probe's echo fits any send buffer */
			t->wrong++;
			t->last_error = s < 0 ? (int)-s : EMSGSIZE;
			server_close(t, x);
			return true;
		}
		t->echoed += (uint64_t)n;
	}
}

static bool
server_accept(struct perf_ctx *c, struct conns_perf *t, int ls, uint64_t now)
{
	bool any = false;
	int sd;

	while ((sd = ust_accept(t->stk, ls, NULL, NULL)) >= 0) {
		any = true;
		if ((uint32_t)sd >= t->nc) {
			ust_close(t->stk, sd);
			continue;
		}
		if (t->accepted++ == 0)
			perf_start_clock(c, now);
		__atomic_store_n(&t->open, t->open + 1, __ATOMIC_RELAXED);
		t->c[sd].sd = sd;
		t->c[sd].st = S_IDLE;
		app_watch(t->stk, t->ep, UST_EPOLL_CTL_ADD, sd, UST_EPOLLIN,
			  (uint64_t)sd);
	}
	return any;
}

static void
server_begin(struct perf_ctx *c, struct conns_perf *t)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	unsigned int p;
	int rc;

	t->nc = c->env.cfg.stack.max_sockets;
	t->c = calloc(t->nc, sizeof(*t->c));
	if (t->c == NULL)
		app_usage_error(PERF_PROG, "out of memory");
	for (p = 0; p < t->ports; p++) {
		int ls = ust_socket(t->stk, AF_INET, SOCK_STREAM, 0);

		if (ls < 0)
			app_usage_error(PERF_PROG, "socket: %s",
					strerror(-ls));
		app_set_int(t->stk, ls, SOL_SOCKET, SO_REUSEADDR, 1);
		sin.sin_port = rte_cpu_to_be_16(t->port + p);
		rc = ust_bind(t->stk, ls, (struct sockaddr *)&sin,
			      sizeof(sin));
		if (rc == 0)
			rc = ust_listen(t->stk, ls, LISTEN_BACKLOG);
		if (rc != 0)
			app_usage_error(PERF_PROG, "cannot listen on TCP port "
					"%u: %s", t->port + p, strerror(-rc));
		t->ls[p] = ls;
		app_watch(t->stk, t->ep, UST_EPOLL_CTL_ADD, ls, UST_EPOLLIN,
			  LISTENER | p);
	}
}

/* ---- client ---- */

/* a connection set up or failed to: once all are, the snapshot, and the
 * hold starts */
static void
settle(struct perf_ctx *c, uint64_t now)
{
	if (__atomic_add_fetch(&g.settled, 1, __ATOMIC_ACQ_REL) !=
	    kopt.conns)
		return;
	g.t_last = now;
	snap_established(c, __atomic_load_n(&g.established,
					    __ATOMIC_RELAXED));
	perf_start_clock(c, now);
}

static void
client_fail(struct conns_perf *t, struct kconn *x, int err, bool lost)
{
	if (lost) {
		t->lost++;
		__atomic_store_n(&t->open, t->open - 1, __ATOMIC_RELAXED);
	} else {
		t->failed++;
	}
	t->last_error = err;
	ust_close(t->stk, x->sd);
	x->st = S_DEAD;
	x->sd = -1;
}

/* connection @f of this worker: global number f * N + idx */
static void
client_open(struct perf_ctx *c, struct conns_perf *t, uint32_t f, uint64_t now)
{
	struct sockaddr_in to = { .sin_family = AF_INET };
	struct kconn *x = &t->c[f];
	uint64_t k = (uint64_t)f * c->nb_workers + t->w->idx;
	uint64_t none = UINT64_MAX;
	int rc;

	to.sin_addr.s_addr = t->peer.v4;
	to.sin_port = rte_cpu_to_be_16(t->port + (uint16_t)(k % t->ports));
	x->sd = ust_socket(t->stk, AF_INET, SOCK_STREAM, 0);
	if (x->sd < 0)
		app_usage_error(PERF_PROG, "connection %" PRIu64 ": socket: %s "
				"(raise [stack] max_sockets)", k,
				strerror(-x->sd));
	rc = ust_connect(t->stk, x->sd, (struct sockaddr *)&to, sizeof(to));
	if (rc != -EINPROGRESS) {
		/* the configuration was checked: a 4-tuple or a slot the
		 * connections closed before have not given back yet */
		client_fail(t, x, -rc, false);
		settle(c, now);
		return;
	}
	__atomic_compare_exchange_n(&g.t_first, &none, now, false,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	x->st = S_CONNECTING;
	t->connecting++;
	app_watch(t->stk, t->ep, UST_EPOLL_CTL_ADD, x->sd,
		  UST_EPOLLIN | UST_EPOLLOUT, f);
}

static uint64_t
probe_word(uint32_t f, uint16_t idx)
{
	return ((uint64_t)f << 16 | idx) * 0x9e3779b97f4a7c15ull;
}

static void
client_probe(struct conns_perf *t, struct kconn *x, uint32_t f)
{
	uint64_t v = probe_word(f, t->w->idx);
	ssize_t n = ust_send(t->stk, x->sd, &v, sizeof(v), 0);

	if (n != (ssize_t)sizeof(v)) {
		client_fail(t, x, n < 0 ? (int)-n : EMSGSIZE, true);
		return;
	}
	x->st = S_PROBE;
	x->have = 0;
	t->probing++;
}

static void
client_event(struct perf_ctx *c, struct conns_perf *t, uint32_t f,
	     uint32_t events, uint64_t now)
{
	struct kconn *x = &t->c[f];
	uint8_t buf[64];
	ssize_t n;
	int err = 0;

	switch (x->st) {
	case S_CONNECTING: {
		socklen_t l = sizeof(err);

		ust_getsockopt(t->stk, x->sd, SOL_SOCKET, SO_ERROR, &err, &l);
		if (err != 0 || (events & (UST_EPOLLERR | UST_EPOLLHUP))) {
			t->connecting--;
			client_fail(t, x, err != 0 ? err : ECONNABORTED,
				    false);
			settle(c, now);
			return;
		}
		if (!(events & UST_EPOLLOUT))
			return;
		t->connecting--;
		x->st = S_IDLE;
		app_watch(t->stk, t->ep, UST_EPOLL_CTL_MOD, x->sd,
			  UST_EPOLLIN, f);
		t->established++;
		__atomic_store_n(&t->open, t->open + 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&g.established, 1, __ATOMIC_RELAXED);
		settle(c, now);
		return;
	}
	case S_IDLE:
		/* an idle connection: nothing may come, not even its end */
		n = ust_recv(t->stk, x->sd, buf, sizeof(buf), 0);
		if (n == -EAGAIN)
			return;
		client_fail(t, x, n < 0 ? (int)-n : n == 0 ? EPIPE : EPROTO,
			    true);
		return;
	case S_PROBE:
		n = ust_recv(t->stk, x->sd, buf, PROBE_LEN - x->have, 0);
		if (n == -EAGAIN)
			return;
		if (n <= 0) {
			t->probing--;
			client_fail(t, x, n < 0 ? (int)-n : EPIPE, true);
			return;
		}
		{
			uint64_t v = probe_word(f, t->w->idx);

			if (memcmp(buf, (uint8_t *)&v + x->have, (size_t)n))
				x->bad = true;
		}
		x->have = (uint8_t)(x->have + n);
		if (x->have < PROBE_LEN)
			return;
		t->probing--;
		x->st = S_DONE;
		if (x->bad)
			t->wrong++;
		else
			t->answered++;
		return;
	default:
		return;
	}
}

static void
client_begin(struct perf_ctx *c, struct conns_perf *t)
{
	RTE_SET_USED(c);
	t->nc = t->conns;
	if (t->nc == 0)
		return;
	t->c = calloc(t->nc, sizeof(*t->c));
	if (t->c == NULL)
		app_usage_error(PERF_PROG, "out of memory");
}

/* events of the worker's event set: all that are ready */
static bool
take_events(struct perf_ctx *c, struct conns_perf *t, uint64_t now)
{
	struct ust_epoll_event evs[64];
	bool any = false;
	int n, k;

	do {
		n = ust_epoll_wait(t->stk, t->ep, evs, RTE_DIM(evs));
		for (k = 0; k < n; k++) {
			uint64_t d = evs[k].data;

			any = true;
			if (!t->server)
				client_event(c, t, (uint32_t)d, evs[k].events,
					     now);
			else if (d & LISTENER)
				server_accept(c, t,
					      t->ls[d & (PORTS_MAX - 1)], now);
			else if (t->c[d].st == S_IDLE)
				server_serve(c, t, &t->c[d]);
		}
	} while (n == (int)RTE_DIM(evs));
	return any;
}

/* ---- the mode ---- */

static void
conns_begin(struct perf_ctx *c, struct perf_worker *w)
{
	struct conns_perf *t = &kw[w->idx];
	unsigned int n = c->nb_workers;

	*t = *state(c);
	t->stk = w->stk;
	t->w = w;
	if (!t->server)
		t->conns = kopt.conns / n + (w->idx < kopt.conns % n ? 1 : 0);
	t->inflight = RTE_MAX(kopt.inflight / n, 1u);
	t->ep = app_epoll_create(PERF_PROG, t->stk);
	if (t->server)
		server_begin(c, t);
	else
		client_begin(c, t);
	if (w->idx != 0)
		return;
	if (t->server)
		printf("%s: tcp-conns server, ports %u-%u, echoing\n",
		       PERF_PROG, t->port, t->port + t->ports - 1);
	else
		printf("%s: tcp-conns client, %u connections to %s:%u-%u, %u "
		       "connecting at once%s\n", PERF_PROG, kopt.conns,
		       t->peer.str, t->port, t->port + t->ports - 1,
		       kopt.inflight, n > 1 ? ", connection k on stack k % N" :
		       "");
	fflush(stdout);
}

static bool
conns_poll(struct perf_ctx *c, struct perf_worker *w, uint64_t now)
{
	struct conns_perf *t = &kw[w->idx];
	bool busy;

	if (w->idx == 0 && g.heap_base == 0) {
		/* every worker's begin() is done, nothing is connected */
		g.heap_base = perf_heap_bytes();
		g.mbuf_base = mbufs_in_use(c, &g.mbuf_pool_bytes);
	}
	busy = ust_stack_tx_pending(t->stk) > 0;
	busy |= ust_stack_poll(t->stk, now) > 0;
	busy |= take_events(c, t, now);
	if (!t->server) {
		/* the first connection alone: it resolves the peer's
		 * address; then --inflight at a time */
		while (t->next < t->nc && t->connecting < t->inflight &&
		       (t->next == 0 || t->established + t->failed > 0)) {
			client_open(c, t, t->next++, now);
			busy = true;
			if (t->next == 1)
				break;
		}
	} else if (t->accepted > 0 && t->open == 0) {
		/* every connection accepted is closed again */
		perf_stop(c, now);
	}
	if (busy)
		ust_stack_flush(t->stk);
	return busy;
}

static void
conns_measure(struct perf_ctx *c, struct perf_worker *w, uint64_t now)
{
	RTE_SET_USED(c);
	RTE_SET_USED(w);
	RTE_SET_USED(now);
}

static void
conns_tick(struct perf_ctx *c, double dt)
{
	uint64_t est = 0, failed = 0, lost = 0, acc = 0;
	uint32_t open = 0;
	unsigned int i;

	RTE_SET_USED(dt);
	for (i = 0; i < c->nb_workers; i++) {
		const struct conns_perf *t = &kw[i];

		open += __atomic_load_n(&t->open, __ATOMIC_RELAXED);
		est += __atomic_load_n(&t->established, __ATOMIC_RELAXED);
		acc += __atomic_load_n(&t->accepted, __ATOMIC_RELAXED);
		failed += __atomic_load_n(&t->failed, __ATOMIC_RELAXED);
		lost += __atomic_load_n(&t->lost, __ATOMIC_RELAXED);
	}
	if (kopt.server)
		printf("tcp-conns: open %u accepted %" PRIu64 " lost %" PRIu64
		       "\n", open, acc, lost);
	else
		printf("tcp-conns: open %u established %" PRIu64 " of %u "
		       "failed %" PRIu64 " lost %" PRIu64 "\n", open, est,
		       kopt.conns, failed, lost);
}

/* poll until @done() or @quiet_ns without work or @max_ns */
static void
poll_until(struct perf_ctx *c, struct conns_perf *t,
	   bool (*done)(const struct conns_perf *), uint64_t quiet_ns,
	   uint64_t max_ns)
{
	uint64_t start = ust_clock_ns(), last = start, now;

	for (;;) {
		now = ust_clock_ns();
		if (conns_poll(c, t->w, now))
			last = now;
		if (done != NULL && done(t))
			return;
		if (now - last > quiet_ns || now - start > max_ns)
			return;
	}
}

static bool
probes_done(const struct conns_perf *t)
{
	return t->probing == 0;
}

static bool
all_closed(const struct conns_perf *t)
{
	return t->open == 0;
}

static void
conns_end(struct perf_ctx *c, struct perf_worker *w)
{
	struct conns_perf *t = &kw[w->idx];
	uint64_t progress;
	uint32_t f, k;

	if (t->server) {
		/* the client probes, then closes: serve it to its end */
		poll_until(c, t, all_closed, 30ull * NS_PER_S, 120ull * NS_PER_S);
	} else {
		/* connections still connecting (the run ended early) */
		for (f = 0; f < t->nc; f++)
			if (t->c[f].st == S_CONNECTING) {
				t->connecting--;
				client_fail(t, &t->c[f], ETIMEDOUT, false);
			}
		/* the check: every connection answers, --inflight probes
		 * at a time (10 s without an answer ends it) */
		progress = ust_clock_ns();
		for (f = 0; f < t->nc;) {
			uint64_t before = t->answered + t->wrong + t->lost;

			for (; f < t->nc && t->probing < t->inflight; f++)
				if (t->c[f].st == S_IDLE)
					client_probe(t, &t->c[f], f);
			ust_stack_flush(t->stk);
			if (t->probing >= t->inflight)
				poll_until(c, t, NULL, 0, 1000000);
			if (t->answered + t->wrong + t->lost != before)
				progress = ust_clock_ns();
			else if (ust_clock_ns() - progress > 10ull * NS_PER_S)
				break;
		}
		poll_until(c, t, probes_done, 10ull * NS_PER_S, 60ull * NS_PER_S);
		/* a probe not answered by now is lost */
		for (f = 0; f < t->nc; f++)
			if (t->c[f].st == S_PROBE) {
				t->probing--;
				client_fail(t, &t->c[f], ETIMEDOUT, true);
			}
		/* the last echoes' ACKs (delayed), then the memory */
		poll_until(c, t, NULL, 100000000, NS_PER_S);
		if (w->idx == 0)
			snap_probed(c);
		/* close, --inflight an iteration */
		for (f = 0; f < t->nc;) {
			for (k = 0; f < t->nc && k < t->inflight; f++) {
				struct kconn *x = &t->c[f];

				if (x->st != S_IDLE && x->st != S_DONE)
					continue;
				ust_close(t->stk, x->sd);
				x->st = S_FREE;
				t->closed++;
				__atomic_store_n(&t->open, t->open - 1,
						 __ATOMIC_RELAXED);
				k++;
			}
			ust_stack_flush(t->stk);
			poll_until(c, t, NULL, 0, 1000000);
		}
		/* the closing handshakes */
		poll_until(c, t, NULL, (uint64_t)NS_PER_S / 2, 30ull * NS_PER_S);
	}
	for (k = 0; t->server && k < t->ports; k++)
		ust_close(t->stk, t->ls[k]);
	for (f = 0; t->server && f < t->nc; f++)
		if (t->c[f].st == S_IDLE)
			server_close(t, &t->c[f]);
	ust_close(t->stk, t->ep);
	poll_until(c, t, NULL, 100000000, 5ull * NS_PER_S);
	if (w->idx == 0) {
		g.hold_polls = w->polls;
		g.hold_busy = w->busy_polls;
	}
	free(t->c);
	t->c = NULL;
}

static void
conns_report(struct perf_ctx *c, struct app_json *j)
{
	const struct ust_stack_conf *sc = &c->env.cfg.stack;
	uint64_t est = 0, failed = 0, lost = 0, answered = 0, wrong = 0;
	uint64_t acc = 0, echoed = 0;
	uint64_t n, tables, eal = c->heap_eal;
	double setup_s = 0, rate = 0, per_conn = 0, mbufs_per = 0, slot;
	double per_conn_probed = 0;
	double hold_s = (double)(c->t_end - c->t_begin) / 1e9;
	int last_error = 0;
	unsigned int i;

	for (i = 0; i < c->nb_workers; i++) {
		const struct conns_perf *t = &kw[i];

		est += t->established;
		failed += t->failed;
		lost += t->lost;
		answered += t->answered;
		wrong += t->wrong;
		acc += t->accepted;
		echoed += t->echoed;
		if (t->last_error != 0)
			last_error = t->last_error;
	}
	if (c->t_begin == UINT64_MAX || c->t_end < c->t_begin)
		hold_s = 0;
	n = kopt.server ? g.open_at_est : est;
	if (!kopt.server && g.t_last > g.t_first && est == kopt.conns) {
		setup_s = (double)(g.t_last - g.t_first) / 1e9;
		rate = (double)est / setup_s;
	}
	if (g.snap && n > 0) {
		per_conn = ((double)g.heap_est - (double)g.heap_base) /
			   (double)n;
		mbufs_per = ((double)g.mbuf_est - (double)g.mbuf_base) /
			    (double)n;
	}
	if (g.snap_probed && g.open_at_probed > 0)
		per_conn_probed = ((double)g.heap_probed -
				   (double)g.heap_base) /
				  (double)g.open_at_probed;
	tables = g.heap_base > eal + g.mbuf_pool_bytes ?
		 g.heap_base - eal - g.mbuf_pool_bytes : 0;
	slot = (double)tables / sc->tcp.max_conns;
	if (kopt.server) {
		printf("%s: tcp-conns server: %" PRIu64 " accepted, %" PRIu64
		       " open when the first probe came, %" PRIu64 " bytes "
		       "echoed, %" PRIu64 " lost, %" PRIu64 " echoes refused"
		       "\n", PERF_PROG, acc, g.open_at_est, echoed, lost,
		       wrong);
	} else {
		printf("%s: tcp-conns: %" PRIu64 " of %u connections "
		       "established", PERF_PROG, est, kopt.conns);
		if (rate > 0)
			printf(" in %.3f s (first SYN to last established): "
			       "%.0f connections/s", setup_s, rate);
		printf("\n%s: failed %" PRIu64 ", lost while idle %" PRIu64
		       ", answered %" PRIu64 " of %" PRIu64 " (wrong %" PRIu64
		       "), held %.1f s\n", PERF_PROG, failed, lost, answered,
		       est, wrong, hold_s);
		if (last_error != 0)
			printf("%s: last error: %s\n", PERF_PROG,
			       strerror(last_error));
	}
	if (g.snap && n > 0)
		printf("%s: memory: heap %+.1f MiB for %" PRIu64
		       " connections: %.0f bytes each; mbufs held %.3f each "
		       "(%" PRIu64 " in use before, %" PRIu64 " after)\n",
		       PERF_PROG, ((double)g.heap_est - (double)g.heap_base) /
		       1048576.0, n, per_conn, mbufs_per, g.mbuf_base,
		       g.mbuf_est);
	if (g.snap_probed && g.open_at_probed > 0)
		printf("%s: memory after the probes and echoes: heap %+.1f MiB "
		       "for %" PRIu64 " connections: %.0f bytes each\n",
		       PERF_PROG, ((double)g.heap_probed - (double)g.heap_base) /
		       1048576.0, g.open_at_probed, per_conn_probed);
	if (g.snap && c->nb_workers == 1)
		printf("%s: TCP objects established / after the probes: "
		       "control blocks %" PRIu64 " / %" PRIu64 " of %u bytes, "
		       "SACK blocks %" PRIu64 " / %" PRIu64 ", RACK record "
		       "arrays %" PRIu64 " / %" PRIu64 " (%" PRIu64 " bytes), "
		       "slabs %.1f / %.1f MiB\n", PERF_PROG,
		       g.tcp_est.socks, g.tcp_probed.socks,
		       g.tcp_est.sock_size, g.tcp_est.sacks,
		       g.tcp_probed.sacks, g.tcp_est.racks,
		       g.tcp_probed.racks, g.tcp_probed.rack_bytes,
		       (double)g.tcp_est.slab_bytes / 1048576.0,
		       (double)g.tcp_probed.slab_bytes / 1048576.0);
	printf("%s: tables sized at creation ([tcp] max_conns %u, [stack] "
	       "max_sockets %u) and the port: %.1f MiB, %.0f bytes per "
	       "connection slot (mbuf pools %.1f MiB apart)\n", PERF_PROG,
	       sc->tcp.max_conns, sc->max_sockets, (double)tables / 1048576.0,
	       slot, (double)g.mbuf_pool_bytes / 1048576.0);
	if (!kopt.server && (est < kopt.conns || lost > 0 || wrong > 0 ||
			     answered < est))
		c->status = 1;
	if (j == NULL)
		return;
	json_obj(j, "result");
	json_str(j, "role", kopt.server ? "server" : "client");
	json_u64(j, "conns", kopt.server ? acc : kopt.conns);
	json_u64(j, "ports", kopt.ports);
	json_u64(j, "established", kopt.server ? g.open_at_est : est);
	json_u64(j, "failed", failed);
	json_u64(j, "lost", lost);
	json_u64(j, "answered", answered);
	json_u64(j, "wrong", wrong);
	json_u64(j, "echoed_bytes", echoed);
	json_dbl(j, "setup_s", setup_s);
	json_dbl(j, "setup_per_s", rate);
	json_dbl(j, "hold_s", hold_s);
	json_u64(j, "hold_polls", g.hold_polls);
	json_u64(j, "hold_busy_polls", g.hold_busy);
	json_u64(j, "heap_eal_bytes", eal);
	json_u64(j, "heap_base_bytes", g.heap_base);
	json_u64(j, "heap_established_bytes", g.heap_est);
	json_dbl(j, "heap_per_conn_bytes", per_conn);
	json_u64(j, "heap_probed_bytes", g.heap_probed);
	json_u64(j, "open_at_probed", g.open_at_probed);
	json_dbl(j, "heap_per_conn_probed_bytes", per_conn_probed);
	if (c->nb_workers == 1) {
		json_u64(j, "tcp_sock_bytes", g.tcp_est.sock_size);
		json_u64(j, "tcp_socks_established", g.tcp_est.socks);
		json_u64(j, "tcp_sacks_probed", g.tcp_probed.sacks);
		json_u64(j, "tcp_racks_probed", g.tcp_probed.racks);
		json_u64(j, "tcp_slab_bytes_probed", g.tcp_probed.slab_bytes);
	}
	json_u64(j, "mbufs_base", g.mbuf_base);
	json_u64(j, "mbufs_established", g.mbuf_est);
	json_dbl(j, "mbufs_per_conn", mbufs_per);
	json_u64(j, "mbuf_pool_bytes", g.mbuf_pool_bytes);
	json_u64(j, "tables_bytes", tables);
	json_dbl(j, "tables_per_slot_bytes", slot);
	json_u64(j, "max_conns", sc->tcp.max_conns);
	json_u64(j, "max_sockets", sc->max_sockets);
	json_obj_end(j);
}

static void
conns_report_stack(struct perf_ctx *c, const struct perf_worker *w,
		   struct app_json *j)
{
	const struct conns_perf *t = &kw[w->idx];

	RTE_SET_USED(c);
	json_u64(j, "established", t->established);
	json_u64(j, "accepted", t->accepted);
	json_u64(j, "failed", t->failed);
	json_u64(j, "lost", t->lost);
	json_u64(j, "answered", t->answered);
}

const struct perf_mode perf_tcp_conns = {
	.name = "tcp-conns",
	.summary = "connection scale: open and hold --conns idle TCP "
		   "connections, then check that each answers",
	.usage =
"  --role server|client   (required)\n"
"  --peer A.B.C.D         client: the server's address (IPv4)\n"
"  --port N               the first server port (default: 5201)\n"
"  --ports N              server ports, from --port, 1-1024 (default: 1);\n"
"                         connection k goes to --port + k % N\n"
"  --conns N              client: connections, 1-16777152 (default: 1); at\n"
"                         most --ports x the ephemeral range, [tcp]\n"
"                         max_conns, [stack] max_sockets - 8\n"
"  --inflight N           client: connecting (then probing, closing) at\n"
"                         once, 1-65536 (default: 1024)\n"
"  The client holds the connections --warmup + --duration seconds once all\n"
"  are established, then sends an 8-byte probe on each, which the server\n"
"  echoes, then closes them. Reported: the set-up rate, the DPDK heap and\n"
"  mbufs per connection (all established, and again after the probes and\n"
"  echoes), with one stack its TCP objects (control blocks, SACK blocks,\n"
"  RACK record arrays), the tables sized at creation per connection slot,\n"
"  connections failed, lost while idle, answered. Exit status 1 when one\n"
"  failed, was lost or did not answer. A server with --duration 0 ends\n"
"  when every connection it accepted is closed again.\n",
	.opts = conns_opts,
	.parse = conns_parse,
	.check = conns_check,
	.begin = conns_begin,
	.poll = conns_poll,
	.measure = conns_measure,
	.tick = conns_tick,
	.end = conns_end,
	.report = conns_report,
	.report_stack = conns_report_stack,
};
