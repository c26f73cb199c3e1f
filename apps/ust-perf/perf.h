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

#include <rte_byteorder.h>
#include <rte_common.h>

#include "app_common.h"

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

struct perf_ctx {
	struct ust_env env;
	const struct perf_mode *mode;
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
/* --peer A.B.C.D (exit 2 on anything else) */
rte_be32_t perf_parse_peer(const char *v);
/* bytes allocated from the DPDK heap, every NUMA socket's */
uint64_t perf_heap_bytes(void);
void perf_spin_ns(const struct perf_ctx *c, uint64_t ns);
/* start the clock now: --warmup, then --duration (clock_on_peer modes) */
void perf_start_clock(struct perf_ctx *c, uint64_t now);
/* end the run now (e.g. a server whose clients are gone) */
void perf_stop(struct perf_ctx *c, uint64_t now);
/* seconds of worker @w's measured interval */
double perf_secs(const struct perf_worker *w);

#endif /* UST_PERF_H */
