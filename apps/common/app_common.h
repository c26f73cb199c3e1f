/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * What ust-echo and ust-perf share, one section a file:
 *  - app_cli.c: argument handling (EAL arguments before "--", the app's
 *    after; one-line errors with exit status 2), value checks, the TX
 *    layout flags, signals;
 *  - app_env.c: bring-up of one port and one stack from a struct
 *    ust_config, and teardown;
 *  - app_stats.c: the port line, counters and drop reasons printed;
 *  - app_hist.c: the latency histogram;
 *  - app_json.c: a small JSON writer and the stack's counters as JSON;
 *  - app_sock.c: socket helpers of the modes.
 */

#ifndef UST_APP_COMMON_H
#define UST_APP_COMMON_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <sys/socket.h>

#include <rte_byteorder.h>

#include "ust_capture.h"
#include "ust_config.h"
#include "ust_env.h"
#include "ust_fault.h"
#include "ust_group.h"
#include "ust_port.h"
#include "ust_socket.h"
#include "ust_stack.h"
#include "ust_tcp_tx.h"

/* ---- command line (app_cli.c) ---- */

/* Print "PROG: error: MSG" on one line and exit with status 2. */
void app_usage_error(const char *prog, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

/* Refuse (exit 2) an address or gateway that cannot be ours: network,
 * broadcast, multicast, loopback, 0.0.0.0, prefix above /30; a gateway
 * off-link, ours or broadcast. Names the flag when one set it (@addr_arg,
 * @gw_arg: the flags' values, or NULL), else the configuration key. */
/* --addr6 ADDR/N and --gateway6 ADDR (either NULL: not given) over @cfg:
 * IPv6 on with that address; a bad one is a usage error (exit 2). */
void app_set_ip6(const char *prog, struct ust_config *cfg, const char *addr6,
		 const char *gw6);
void app_check_ip(const char *prog, const struct ust_config *cfg,
		  const char *addr_arg, const char *gw_arg);

/* Seconds within [min, max], finite (no NaN, no inf), or exit 2 naming
 * @flag. */
double app_parse_seconds(const char *prog, const char *flag, const char *v,
			 double min, double max);

/* Split argv at "--": EAL arguments before, app arguments after (with
 * argv[0] first). Without "--", everything is the app's. */
void app_split_args(int argc, char **argv, int *eal_argc, char ***eal_argv,
		    int *app_argc, char ***app_argv);

/* Set *flag when SIGINT or SIGTERM arrives; note SIGUSR1 for
 * app_usr1_take(). */
void app_catch_signals(volatile sig_atomic_t *flag);

/* A SIGUSR1 arrived since the last call (the apps then print their
 * counters, as at exit, and go on): one load and a branch when none did,
 * for the main lcore's loop. */
extern volatile sig_atomic_t app_usr1;
static inline bool
app_usr1_take(void)
{
	if (__builtin_expect(app_usr1 == 0, 1))
		return false;
	app_usr1 = 0;
	return true;
}

/* "PROG (ustack VERSION, DPDK VERSION)" on stdout, for --version. */
void app_print_version(const char *prog);

/* ---- environment (app_env.c) ---- */

/* The apps' environment is the library's (lib/env, struct ust_env): a
 * port, its pools, stages and stacks, brought up from a configuration. */

/* Set the number of stacks from --nb-cores @arg (exit 2 naming the flag
 * when it is not 1 to UST_GROUP_MAX); app_env_up() checks it against the
 * EAL lcores and the port's queues. */
void app_env_nb_cores(struct ust_env *env, const char *arg);

/* After rte_eal_init(): ust_env_up(), exiting with status 2 and its
 * reason on a configuration the port or the stacks refuse (more stacks
 * than EAL lcores (-l) or than the port has queues...); warns when no
 * secondary process can attach (no hugepages). */
void app_env_up(struct ust_env *env);

/* ust_env_down(): the stacks and stages destroyed, the pools' in-use
 * count recorded; the port stays open (--linger). */
void app_env_down(struct ust_env *env);

/* mbufs in use in all the environment's pools */
unsigned int app_env_in_use(const struct ust_env *env);

/* ---- TX layout options (both apps; app_cli.c) ---- */

/* getopt ids of the options below (between the apps' own ranges) */
enum {
	APP_O_TX_LAYOUT = 400,
	APP_O_COPY_SMALL,
	APP_O_FIRST_LINEAR_MAX,
};

/* their struct option entries, for an app's long option table */
#define APP_TX_LONGOPTS \
	{ "tx-layout", required_argument, NULL, APP_O_TX_LAYOUT }, \
	{ "copy-small", required_argument, NULL, APP_O_COPY_SMALL }, \
	{ "first-linear-max", required_argument, NULL, \
	  APP_O_FIRST_LINEAR_MAX }

/* their --help lines */
#define APP_TX_USAGE \
"  --tx-layout linear|chained|first-linear\n" \
"                         TX layout of TCP data segments ([tcp] tx_layout;\n" \
"                         default: linear): payload copied after the\n" \
"                         headers, attached from the send queue, or linear\n" \
"                         for a first-in-queue payload of at most\n" \
"                         --first-linear-max bytes and chained otherwise\n" \
"  --copy-small N         copy TCP frames of at most N bytes (0-512; 0:\n" \
"                         off) whole into a small pool ([tcp] copy_small)\n" \
"  --first-linear-max N   first-linear: payload bytes at most, 0-65535\n" \
"                         ([tcp] first_linear_max; default: 1954)\n"

/* What the TX layout flags asked for; -1: not given. */
struct app_tx_opts {
	int tx_layout;
	int copy_small;
	int first_linear_max;
};

/* Nothing asked for. */
void app_tx_opts_init(struct app_tx_opts *t);

/* Store one of APP_O_* (exit 2 naming the flag on a bad value); returns
 * false when @id is not one of them. */
bool app_tx_opt_parse(const char *prog, struct app_tx_opts *t, int id,
		      const char *arg);

/* Override the configuration (file keys [tcp] tx_layout, copy_small,
 * first_linear_max) with the flags given: flags win. */
void app_tx_opts_apply(const struct app_tx_opts *t, struct ust_config *cfg);

/* Check a --fault spec now (exit 2 with the reason when it is bad). */
void app_fault_check(const char *prog, const char *spec);

/* Sleep @seconds (fractions allowed). */
void app_sleep(double seconds);

/* Network-order mask of a prefix length. */
static inline rte_be32_t
app_mask_be(uint8_t prefix)
{
	return rte_cpu_to_be_32(prefix >= 32 ? UINT32_MAX :
				prefix == 0 ? 0 : ~(UINT32_MAX >> prefix));
}

/* ---- printing (app_stats.c) ---- */

/* One line of the stack's TX layout counters (nothing when no TCP packet
 * was built). */
void app_print_tcp_tx(FILE *f, const struct ust_stack *stk);

/* @a - @b, counter by counter (histograms included). */
void app_tcp_tx_sub(struct ust_tcp_tx_stats *d,
		    const struct ust_tcp_tx_stats *a,
		    const struct ust_tcp_tx_stats *b);

/* @a / @b, 0 when @b is 0 */
static inline double
app_ratio(uint64_t a, uint64_t b)
{
	return b != 0 ? (double)a / (double)b : 0;
}

/* One line describing the port and its offloads. */
void app_print_port(FILE *f, const struct ust_env *env);

/* With --pcap, one line of what the capture stages wrote. */
void app_print_capture(FILE *f, const struct ust_env *env);

/* One line of the frames the port itself lost or refused, which the
 * stacks never saw (rte_eth_stats: imissed, rx_nombuf, ierrors,
 * oerrors): "port N drops: none" when there were none. */
void app_print_port_drops(FILE *f, const struct ust_env *env);

/* Non-zero counters, grouped as /proc/net/snmp, the UDP memory pool, then
 * drop reasons. */
void app_print_stats(FILE *f, struct ust_stack *stk);

/* app_print_stats() of the environment: with one stack, that stack's; with
 * several, the group's total counters, each stack's UDP pool, the summed
 * TCP TX layout counters and drop reasons, then one line a stack
 * ("stack i (lcore L): ...") with the counters that show how the flows
 * were spread: frames in and out, opens, datagrams, handoffs, drops. */
void app_print_group_stats(FILE *f, const struct ust_env *env);

/* @a + @b into @d, counter by counter (histograms included). */
void app_tcp_tx_add(struct ust_tcp_tx_stats *d,
		    const struct ust_tcp_tx_stats *a,
		    const struct ust_tcp_tx_stats *b);

/* One line of what the fault stage did (nothing without one); one a stack
 * with several. */
void app_print_fault(FILE *f, const struct ust_env *env);

/* ---- latency histogram (log-linear, ~3% resolution, ns; app_hist.c) ---- */

#define HIST_SUB 32
#define HIST_BUCKETS (45 * HIST_SUB)

struct app_hist {
	uint64_t count;
	uint64_t sum;
	uint64_t min;
	uint64_t max;
	uint64_t b[HIST_BUCKETS];
};

void app_hist_init(struct app_hist *h);
void app_hist_add(struct app_hist *h, uint64_t v);
void app_hist_merge(struct app_hist *dst, const struct app_hist *src);
/* value at quantile q (0..1), the bucket's midpoint */
uint64_t app_hist_quantile(const struct app_hist *h, double q);

/* ---- JSON writer (app_json.c) ---- */

struct json_t;

struct app_json {
	FILE *f;
	int depth;
	bool line;                 /* one line (JSON Lines), not indented */
	struct json_t *stack[16];  /* the open containers; [0]: the root */
};

void json_begin(struct app_json *j, FILE *f);
/* a document on one line, for a file of JSON Lines */
void json_begin_line(struct app_json *j, FILE *f);
void json_end(struct app_json *j);
void json_obj(struct app_json *j, const char *key);
void json_obj_end(struct app_json *j);
/* an array @key; its elements are json_obj(j, NULL) ... json_obj_end() */
void json_arr(struct app_json *j, const char *key);
void json_arr_end(struct app_json *j);
void json_u64(struct app_json *j, const char *key, uint64_t v);
void json_i64(struct app_json *j, const char *key, int64_t v);
/* null: a figure the run has no value for (ust-perf --stack kernel's
 * where only ustack counts it), the key kept so both stacks' documents
 * have the same keys */
void json_none(struct app_json *j, const char *key);
void json_dbl(struct app_json *j, const char *key, double v);
void json_str(struct app_json *j, const char *key, const char *v);
void json_bool(struct app_json *j, const char *key, bool v);
void json_arr_u64(struct app_json *j, const char *key, const uint64_t *v,
		  unsigned int n);
/* The TX layout counters as the object @key ("tcp_tx"): the counters, the
 * derived segs_per_pkt and pages_per_pkt, and the DMA map/unmap cycle
 * histograms. */
void json_tcp_tx(struct app_json *j, const char *key,
		 const struct ust_tcp_tx_stats *st);

/* The stack's counters, drop reasons, TCP and UDP pools, TX layout
 * counters ("tcp_tx"), port stats and the mbuf pool's in-use counts, as
 * members of the current object. */
void json_env(struct app_json *j, const struct ust_env *env);
/* the port's rte_eth_stats as the object "port" */
void json_port_stats(struct app_json *j, const struct ust_env *env);
void json_stack(struct app_json *j, struct ust_stack *stk);
/* json_stack() of the environment: with one stack, that stack's; with
 * several, the same members with the group's totals (counters summed by
 * ust_group_stats_get(), the pools' and TX layout counters added up) */
void json_group(struct app_json *j, const struct ust_env *env);
void json_hist(struct app_json *j, const char *key, const struct app_hist *h);

/* ---- socket helpers (app_sock.c) ---- */

/* setsockopt() of an int; the result is not checked (the apps set
 * options the stack has) */
void app_set_int(struct ust_stack *stk, int sd, int level, int name, int v);

/* ust_epoll_ctl() of @sd with @events and @data */
void app_watch(struct ust_stack *stk, int ep, int op, int sd, uint32_t events,
	       uint64_t data);

/* an event set (ust_epoll_create()), or exit 2 saying why not */
int app_epoll_create(const char *prog, struct ust_stack *stk);

/* @to: IPv6 address @a6 (@v6) or IPv4 address @v4, port @port (host
 * order); a NULL @a6 is ::, a zero @v4 0.0.0.0 (a server's wildcard).
 * Returns its length. */
socklen_t app_sockaddr(union ust_sockaddr *to, bool v6, rte_be32_t v4,
		       const uint8_t *a6, uint16_t port);

/* ust_connect() of @sd to @to, polling the stack while the source address
 * is not usable yet (EADDRNOTAVAIL: IPv6's duplicate address detection at
 * start), up to 10 s or until *@quit (may be NULL); returns
 * ust_connect()'s last result. */
int app_connect(struct ust_stack *stk, int sd, const struct sockaddr *to,
		socklen_t len, const volatile sig_atomic_t *quit);

/* poll the stack for @ns nanoseconds: what close() queued (FINs, RSTs)
 * leaves, and the last ACKs come in, before the stack goes */
void app_poll_for(struct ust_stack *stk, uint64_t ns);

/* ---- a TCP server's listener (app_sock.c) ---- */

/* Says once, on stdout, that connections are being refused: the first
 * time ListenOverflows or ListenDrops grows (the accept queue or the socket
 * table is full, and SYNs are dropped unanswered). */
struct app_listen_watch {
	uint64_t next_ns;  /* the counters are read once a second */
	bool warned;
};

/* the once-a-second check (called by the two below, which return without
 * a call in between: they run on every turn of a server's loop) */
void app_listen_watch_check(struct app_listen_watch *w,
			    const struct ust_env *env, struct ust_stack *stk,
			    uint64_t now_ns, unsigned int backlog);

/* for stack @stk of the environment (on its lcore) */
static inline void
app_listen_watch_stack(struct app_listen_watch *w, const struct ust_env *env,
		       struct ust_stack *stk, uint64_t now_ns,
		       unsigned int backlog)
{
	if (!w->warned && now_ns >= w->next_ns)
		app_listen_watch_check(w, env, stk, now_ns, backlog);
}

/* for stack 0 */
static inline void
app_listen_watch(struct app_listen_watch *w, const struct ust_env *env,
		 uint64_t now_ns, unsigned int backlog)
{
	app_listen_watch_stack(w, env, env->stk, now_ns, backlog);
}

#endif /* UST_APP_COMMON_H */
