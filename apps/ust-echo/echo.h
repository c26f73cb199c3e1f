/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * ust-echo's shared declarations: the options (main.c parses them), the
 * modes and the results they fill, and the TCP modes' run functions
 * (echo_tcp.c); the mode table, the UDP modes and main() are in main.c.
 */

#ifndef UST_ECHO_H
#define UST_ECHO_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>

#include "app_common.h"

#define PROG "ust-echo"
#define MAX_FLOWS 4096
#define MAX_UDP_SIZE 65507 /* above 1472 (MTU 1500): sent in fragments */
#define MAX_TCP_SIZE 65536

struct echo_mode;

struct opts {
	const struct echo_mode *mode;  /* what --mode, --proto... chose */
	bool server;
	bool tcp;
	const char *config;
	const char *addr;
	const char *gateway;
	const char *addr6;
	const char *gateway6;
	const char *port_id;
	const char *peer;
	const char *json;
	const char *stream;      /* client: file to send (TCP) */
	const char *stream_out;  /* client: where the echo goes */
	const char *fault;       /* fault stage spec (ust_fault_parse()) */
	const char *nb_cores;    /* --nb-cores: stacks, one per lcore */
	uint64_t bulk;           /* client: bytes of a pattern to send */
	uint32_t port;
	uint32_t size;
	uint32_t response;       /* TCP: response bytes per request */
	uint32_t flows;
	uint32_t reconnect;      /* TCP client: transactions per connection */
	uint64_t count;          /* client: stop after this many */
	uint32_t sndbuf;
	uint32_t rcvbuf;
	bool discard;            /* TCP server: read, never answer */
	bool hold;               /* TCP server: never accept */
	uint32_t keepalive;      /* TCP server: keepalive idle, s (0: off) */
	uint32_t backlog;        /* TCP server: listen backlog */
	bool close_rst;          /* TCP server: reset connections at exit */
	double duration;
	double warmup;
	uint32_t timeout_ms;
	uint32_t idle_sleep_us;
	bool idle_adaptive;
	const char *pcap;        /* --pcap FILE */      /* servers: sleep until a frame or a timer */
	uint32_t stats_period;
	double linger;
	struct app_tx_opts tx;   /* --tx-layout, --copy-small... */
};

extern volatile sig_atomic_t quit;

struct echo_worker;

/* After a server's poll (@busy: it did work): with --idle-sleep, sleep
 * after an idle poll; with --idle-adaptive, after a run of them until a
 * frame, a timer or 10 ms (ust_idle()). */
void echo_idle(struct echo_worker *w, bool busy);

struct server_result {
	uint64_t echoed;         /* UDP datagrams; TCP bytes sent */
	uint64_t refused;        /* UDP replies the stack would not take */
	uint64_t received;       /* TCP bytes read */
	uint64_t accepted;       /* TCP connections */
	uint64_t closed;         /* ... closed in order */
	uint64_t resets;         /* ... ended by an error */
	uint64_t transactions;   /* TCP request-response: responses */
};

struct client_result {
	uint64_t transactions;   /* completed in the measured window */
	uint64_t all;            /* completed in all */
	uint64_t timeouts;
	uint64_t late;           /* replies to requests given up on */
	uint64_t send_errors;
	uint64_t refused;        /* UDP: port unreachable; TCP: ECONNREFUSED */
	uint64_t connects;       /* TCP connections established */
	uint64_t resets;         /* TCP: ECONNRESET */
	uint64_t conn_timeouts;  /* TCP: ETIMEDOUT */
	uint64_t other_errors;   /* TCP: any other error, or EOF mid-way */
	int last_error;          /* TCP: errno of the last error */
	uint64_t bytes_sent;     /* TCP stream */
	uint64_t bytes_received;
	double seconds;
	struct app_hist lat;
};

/* what a run fills: a server's result or a client's */
struct echo_result {
	struct server_result srv;
	struct client_result cli;
};

struct echo_ctx;

/*
 * One stack's worker, on its lcore: everything it writes while it runs
 * (results, histograms, buffers) is here, one cache-line aligned struct a
 * stack, so that no two lcores write a line in common. The periodic stats
 * line reads the other workers' results (never writes them).
 */
struct echo_worker {
	const struct opts *o;
	struct ust_env *env;
	struct echo_ctx *ctx;
	struct ust_stack *stk;
	uint16_t idx;            /* stack index */
	uint16_t nb;             /* stacks */
	unsigned int lcore;
	rte_be32_t peer;         /* a client's server */
	bool peer_is6;           /* ... an IPv6 one */
	uint8_t peer6[16];
	bool ip6;                /* IPv6 on: UDP servers are dual-stack */
	uint32_t nflows;         /* clients: flows k with k % nb == idx */
	uint64_t count;          /* tcp-client: this stack's share of --count */
	struct echo_result res;
	struct ust_idle idle;    /* --idle-adaptive */
	uint8_t buf[MAX_TCP_SIZE];  /* requests, stream data out */
	uint8_t in[MAX_TCP_SIZE];   /* responses, stream data in */
} __rte_cache_aligned;

/* a mode: run on every stack's lcore once the stacks are up; creates its
 * sockets, then calls echo_ready(), runs, closes, then echo_finish() */
typedef int (*echo_run_t)(struct echo_worker *w);

/* The start barrier: call once this stack's sockets (listener, bound UDP
 * socket) exist and before its first poll; returns when every stack's
 * worker has called it, so that no frame reaches a stack before its
 * sockets are there. */
void echo_ready(struct echo_worker *w);

/* After closing: poll this stack until every worker is done (a sibling's
 * frames may still come in on our queue and be handed over), then for
 * @ns more (TCP: the FINs and RSTs close() queued leave and the last ACKs
 * come in), and flush what is staged. */
void echo_finish(struct echo_worker *w, uint64_t ns);

/* a --stats-period line of @r: @stk's, or the total when @stk is NULL;
 * @prefix starts it */
typedef void (*echo_line_t)(const char *prefix, const struct ust_env *env,
			    struct ust_stack *stk,
			    const struct echo_result *r);

/* Stack 0's worker, when the --stats-period lines are due: one line, or
 * with several stacks one a stack ("stack i (lcore L): ") and the total
 * (the one-stack line). */
void echo_stats_lines(struct echo_worker *w, echo_line_t line);
/* SIGUSR1: the counters as at exit (stack 0's worker: it reads the
 * other stacks' counters, as telemetry does). */
void echo_dump(struct echo_worker *w);

/* @w's results added into @sum (the histogram merged) */
void echo_result_add(struct echo_result *sum, const struct echo_result *r);

struct echo_mode {
	const char *name;
	unsigned int bit;        /* its bit in the option table (main.c) */
	bool server;
	bool tcp;
	bool stream;             /* a stream: a transfer, not transactions */
	const char *summary;     /* for --help */
	echo_run_t run;
};

/* A client's server address (w->peer or w->peer6, port --port) into @to;
 * returns its length. */
socklen_t echo_peer_addr(const struct echo_worker *w, union ust_sockaddr *to);

int run_tcp_server(struct echo_worker *w);
int run_tcp_client(struct echo_worker *w);
int run_tcp_stream(struct echo_worker *w);

#endif /* UST_ECHO_H */
