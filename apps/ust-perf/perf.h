/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * ust-perf: the benchmark application, testpmd-style. Each mode (a traffic
 * pattern) lives in its own file behind struct perf_mode, as testpmd's
 * forwarding engines do; main.c parses the common options, brings the port
 * and the stacks up (one a worker lcore, --nb-cores), runs the mode's
 * per-iteration function on every worker's lcore, prints a stats line every
 * --stats-period and a final summary, and writes --json.
 */

#ifndef UST_PERF_H
#define UST_PERF_H

#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <rte_byteorder.h>
#include <rte_common.h>

#include "app_common.h"
#include "ust_socket.h"

#define PERF_PROG "ust-perf"
/* option ids: the common ones below this, the modes' from it */
#define PERF_OPT_MODE_BASE 512

/*
 * One worker a stack (--nb-cores N): worker i runs stack i's loop on its
 * lcore (the main lcore first). What a worker writes in the loop lives on
 * its own cache lines (this struct, and the modes' per-worker state).
 */
struct perf_worker {
	struct perf_ctx *ctx;
	uint16_t idx;
	unsigned int lcore;
	struct ust_stack *stk;      /* NULL in a mode without a port */
	struct rte_mempool *pool;   /* mbufs the worker builds packets from */
	bool measuring;
	uint64_t t_begin;           /* ns: this worker's measured interval */
	uint64_t t_end;
	/* cycles of the worker's lcore over the measured interval: TSC at
	 * its start and end, and the sum over poll iterations that did work */
	uint64_t tsc_begin;
	uint64_t tsc_end;
	uint64_t busy_tsc;
	uint64_t polls;             /* measured poll iterations */
	uint64_t busy_polls;        /* ... of which did work */
} __rte_cache_aligned;

/* the kernel's counters at one time: /proc/net/snmp and netstat */
#define PERF_KSNMP_MAX 512
struct perf_ksnmp {
	unsigned int n;
	char group[PERF_KSNMP_MAX][16];
	char name[PERF_KSNMP_MAX][40];
	int64_t v[PERF_KSNMP_MAX];
};

struct perf_ctx {
	struct ust_env env;
	const struct perf_mode *mode;
	/* --stack kernel: the workers use the kernel's sockets (no port,
	 * no stack: perf_worker.stk is NULL) */
	bool kernel;
	/* --kernel-wait: how long a kernel worker with nothing ready may
	 * wait in epoll_wait() or poll() (ms; 0: it spins) */
	int kwait_ms;
	/* --stack kernel: the kernel's counters when worker 0's measured
	 * interval began, and at its end */
	struct perf_ksnmp *ksnmp0, *ksnmp1;
	double duration;            /* seconds; 0: until SIGINT/SIGTERM */
	double warmup;              /* seconds not counted */
	uint32_t stats_period;      /* seconds; 0: no periodic line */
	double linger;              /* seconds the port stays open after */
	uint64_t tsc_hz;
	uint64_t heap_eal;          /* DPDK heap bytes allocated right after
				     * EAL initialisation (tcp-conns) */
	struct app_tx_opts tx;      /* --tx-layout, --copy-small... */
	/* set by the mode's check(): the clock (--warmup, then --duration)
	 * starts when the mode calls perf_start_clock() (a server: at its
	 * first connection, on any stack), not when the run starts */
	bool clock_on_peer;
	int status;                 /* exit status the mode asks for */
	void *priv;                 /* the mode's state */
	uint16_t nb_workers;        /* stacks (--nb-cores), one a worker */
	/* worker 0's measured interval and cycles, once the run is over
	 * (the N = 1 report's figures) */
	uint64_t tsc_begin;
	uint64_t tsc_end;
	uint64_t busy_tsc;
	uint64_t polls;
	uint64_t busy_polls;
	FILE *json_interval;        /* --json-interval: JSON Lines */
	/* read by every worker in its loop, written once or twice a run:
	 * the schedule (ns; UINT64_MAX: not yet) and the stop flag */
	volatile sig_atomic_t quit __rte_cache_aligned;
	uint64_t t_begin;           /* ns: measurement start (after warmup) */
	uint64_t t_end;             /* ns: measurement end */
	/* the start barrier: workers whose begin() is done */
	uint32_t ready __rte_cache_aligned;
	struct perf_worker w[UST_GROUP_MAX];
};

struct perf_mode {
	const char *name;
	const char *summary;
	const char *usage;          /* the mode's options, for --help */
	const struct option *opts;  /* ids from PERF_OPT_MODE_BASE, NULL-ended */
	/* the mode brings its own stacks up (no ethdev port): begin()
	 * creates them on the worker's lcore, end() destroys them */
	bool no_port;
	/* the mode runs on the kernel's sockets too (--stack kernel) */
	bool kernel;
	/* store one of the mode's options (exit 2 on a bad value) */
	void (*parse)(struct perf_ctx *c, int id, const char *arg);
	/* check the options once parsed (exit 2 on a missing one) */
	void (*check)(struct perf_ctx *c);
	/* the worker's sockets, on its lcore; every worker's begin() is
	 * done before any worker polls (listeners exist on every stack) */
	void (*begin)(struct perf_ctx *c, struct perf_worker *w);
	/* one iteration on the worker's lcore; returns whether it did work */
	bool (*poll)(struct perf_ctx *c, struct perf_worker *w, uint64_t now);
	/* warmup over (on the worker's lcore): reset the measured counters */
	void (*measure)(struct perf_ctx *c, struct perf_worker *w,
			uint64_t now);
	/* the periodic stats line(s), over the last @dt seconds (main lcore;
	 * reads the workers' counters) */
	void (*tick)(struct perf_ctx *c, double dt);
	/* stop, close sockets (the stack still exists; worker's lcore) */
	void (*end)(struct perf_ctx *c, struct perf_worker *w);
	/* print the summary (totals, and per stack when N > 1); add the
	 * mode's results to @j (may be NULL), totals at the top level */
	void (*report)(struct perf_ctx *c, struct app_json *j);
	/* the mode's results of worker @w as members of the current JSON
	 * object (an element of "stacks") */
	void (*report_stack)(struct perf_ctx *c, const struct perf_worker *w,
			     struct app_json *j);
};

extern const struct perf_mode perf_udp_flood;
extern const struct perf_mode perf_udp_sink;
extern const struct perf_mode perf_tcp_rr;
extern const struct perf_mode perf_tcp_stream;
extern const struct perf_mode perf_tcp_rr_loop;
extern const struct perf_mode perf_l2_pingpong;
extern const struct perf_mode perf_tcp_conns;

/* helpers shared by modes */
uint32_t perf_num(const char *flag, const char *v, uint32_t min, uint32_t max);
uint64_t perf_rate(const char *flag, const char *v);
/* --role server|client: whether server (exit 2 on anything else) */
bool perf_parse_role(const char *v);
/* a client's server: --peer A.B.C.D, or an IPv6 address (with --addr6,
 * or --stack kernel) */
struct perf_peer {
	const char *str;            /* as given; NULL: none */
	bool v6;
	rte_be32_t v4;
	uint8_t a6[16];
};

/* --peer A.B.C.D or an IPv6 address (exit 2 on anything else) */
void perf_parse_peer(const char *v, struct perf_peer *p);
/* once the options are parsed: exit 2 when @p is IPv6 and ustack's stacks
 * have no IPv6 (--addr6, [ip6]) */
void perf_check_peer(const struct perf_ctx *c, const struct perf_peer *p);
/* @p's address and @port (host order) into @to; returns its length */
socklen_t perf_peer_addr(const struct perf_peer *p, uint16_t port,
			 union ust_sockaddr *to);
/* A server's socket of @type on @stk (NULL: the kernel's) and the address
 * it binds, port @port: [::], both families, when IPv6 is on (ustack's
 * --addr6; the kernel's unless it has no IPv6), else 0.0.0.0. Returns the
 * descriptor (or -errno) and sets *@len. */
int perf_server_socket(const struct perf_ctx *c, struct ust_stack *stk,
		       int type, uint16_t port, union ust_sockaddr *any,
		       socklen_t *len);
/* bytes allocated from the DPDK heap, every NUMA socket's */
uint64_t perf_heap_bytes(void);
void perf_spin_ns(const struct perf_ctx *c, uint64_t ns);
/* start the clock now: --warmup, then --duration (clock_on_peer modes) */
void perf_start_clock(struct perf_ctx *c, uint64_t now);
/* end the run now (e.g. a server whose clients are gone) */
void perf_stop(struct perf_ctx *c, uint64_t now);
/* seconds of worker @w's measured interval */
double perf_secs(const struct perf_worker *w);

/*
 * The modes' socket calls on either stack (ksock.c): ustack's when @stk
 * is a stack, the kernel's when it is NULL (--stack kernel), with
 * ustack's conventions (non-blocking, -errno on failure).
 */
int perf_socket(struct ust_stack *stk, int family, int type);
int perf_bind(struct ust_stack *stk, int sd, const struct sockaddr *sa,
	      socklen_t len);
int perf_listen(struct ust_stack *stk, int sd, int backlog);
/* a connection of listener @ls, non-blocking */
int perf_accept(struct ust_stack *stk, int ls);
/* (ustack: while the source address is not usable yet, EADDRNOTAVAIL:
 * IPv6's duplicate address detection at start, the stack is polled and
 * the connect tried again, up to 10 s) */
int perf_connect(struct ust_stack *stk, int sd, const struct sockaddr *sa,
		 socklen_t len);
ssize_t perf_send(struct ust_stack *stk, int sd, const void *buf, size_t len);
ssize_t perf_recv(struct ust_stack *stk, int sd, void *buf, size_t len);
int perf_close(struct ust_stack *stk, int sd);
int perf_setsockopt(struct ust_stack *stk, int sd, int level, int name,
		    const void *v, socklen_t len);
int perf_set_int(struct ust_stack *stk, int sd, int level, int name, int v);
int perf_getsockopt(struct ust_stack *stk, int sd, int level, int name,
		    void *v, socklen_t *len);
/* an event set, or exit 2 saying why not */
int perf_epoll_create(struct ust_stack *stk);
/* UST_EPOLL_CTL_* of @sd with @events (UST_EPOLL*) and @data */
void perf_epoll_ctl(struct ust_stack *stk, int ep, int op, int sd,
		    uint32_t events, uint64_t data);
/* the ready events, at most @max (64 for the kernel); the kernel's
 * waits up to @wait_ms for one (ustack's never waits) */
int perf_epoll_wait(struct ust_stack *stk, int ep,
		    struct ust_epoll_event *evs, int max, int wait_ms);
/* --kernel-wait block: wait up to @wait_ms for @sd to be readable */
void perf_wait_readable(int sd, int wait_ms);
/* a TCP socket's bytes sent and not yet acknowledged, or not yet sent */
uint64_t perf_unsent(struct ust_stack *stk, int sd);

/* the kernel's counters now (0, or -errno: /proc not readable) */
int perf_ksnmp_read(struct perf_ksnmp *s);
/* one counter of @s (0 when it has none of that name) */
int64_t perf_ksnmp_get(const struct perf_ksnmp *s, const char *group,
		       const char *name);
/* what moved from @a to @b, as the object @key: {"Udp": {"InDatagrams":
 * N...}...}, every counter of @b */
void perf_ksnmp_json(struct app_json *j, const char *key,
		     const struct perf_ksnmp *a, const struct perf_ksnmp *b);
/* the counters that moved from @a to @b, a line a group */
void perf_ksnmp_print(FILE *f, const struct perf_ksnmp *a,
		      const struct perf_ksnmp *b);

#endif /* UST_PERF_H */
