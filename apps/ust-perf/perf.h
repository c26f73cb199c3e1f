/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * ust-perf: the benchmark application, testpmd-style. Each mode (a traffic
 * pattern) lives in its own file behind struct perf_mode, as testpmd's
 * forwarding engines do; main.c parses the common options, brings the port
 * and the stack up, runs the mode's per-iteration function on the main
 * lcore, prints a stats line every --stats-period and a final summary, and
 * writes --json.
 */

#ifndef UST_PERF_H
#define UST_PERF_H

#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "app_common.h"

#define PERF_PROG "ust-perf"
/* option ids: the common ones below this, the modes' from it */
#define PERF_OPT_MODE_BASE 512

struct perf_ctx {
	struct app_env env;
	const struct perf_mode *mode;
	double duration;            /* seconds; 0: until SIGINT/SIGTERM */
	double warmup;              /* seconds not counted */
	uint32_t stats_period;      /* seconds; 0: no periodic line */
	double linger;              /* seconds the port stays open after */
	volatile sig_atomic_t quit;
	uint64_t tsc_hz;
	uint64_t t_begin;           /* ns: measurement start (after warmup) */
	uint64_t t_end;             /* ns: measurement end */
	struct app_tx_opts tx;      /* --tx-layout, --copy-small... */
	/* set by the mode's check(): the clock (--warmup, then --duration)
	 * starts when the mode calls perf_start_clock() (a server: at its
	 * first connection), not when the run starts */
	bool clock_on_peer;
	/* cycles of the main lcore over the measured interval: TSC at its
	 * start and end, and the sum over poll iterations that did work */
	uint64_t tsc_begin;
	uint64_t tsc_end;
	uint64_t busy_tsc;
	uint64_t polls;             /* measured poll iterations */
	uint64_t busy_polls;        /* ... of which did work */
	int status;                 /* exit status the mode asks for */
	void *priv;                 /* the mode's state */
};

struct perf_mode {
	const char *name;
	const char *summary;
	const char *usage;          /* the mode's options, for --help */
	const struct option *opts;  /* ids from PERF_OPT_MODE_BASE, NULL-ended */
	/* store one of the mode's options (exit 2 on a bad value) */
	void (*parse)(struct perf_ctx *c, int id, const char *arg);
	/* check the options once parsed (exit 2 on a missing one) */
	void (*check)(struct perf_ctx *c);
	/* sockets and worker lcores, once the stack is up */
	void (*begin)(struct perf_ctx *c);
	/* one iteration on the main lcore; returns whether it did work */
	bool (*poll)(struct perf_ctx *c, uint64_t now);
	/* warmup over: reset the measured counters */
	void (*measure)(struct perf_ctx *c, uint64_t now);
	/* the periodic stats line, over the last @dt seconds */
	void (*tick)(struct perf_ctx *c, double dt);
	/* stop workers, close sockets (the stack still exists) */
	void (*end)(struct perf_ctx *c);
	/* print the summary; add the mode's results to @j (may be NULL) */
	void (*report)(struct perf_ctx *c, struct app_json *j);
};

extern const struct perf_mode perf_udp_flood;
extern const struct perf_mode perf_udp_sink;
extern const struct perf_mode perf_tcp_rr;
extern const struct perf_mode perf_tcp_stream;

/* helpers shared by modes */
uint32_t perf_num(const char *flag, const char *v, uint32_t min, uint32_t max);
uint64_t perf_rate(const char *flag, const char *v);
void perf_spin_ns(const struct perf_ctx *c, uint64_t ns);
/* start the clock now: --warmup, then --duration (clock_on_peer modes) */
void perf_start_clock(struct perf_ctx *c, uint64_t now);
/* end the run now (e.g. a server whose clients are gone) */
void perf_stop(struct perf_ctx *c, uint64_t now);

#endif /* UST_PERF_H */
