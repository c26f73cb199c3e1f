/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/**
 * @file
 * The environment: everything an application needs around its stacks,
 * brought up and torn down in one call each, as ust-echo and ust-perf use
 * it. From a configuration (lib/config: an INI file, or the defaults and
 * the application's own changes): an mbuf pool per NUMA node of the
 * lcores, the first port (ust_config's port) with one queue pair per stack
 * and RSS over them, optional stages on each queue (a pcapng capture, a
 * fault stage), the stacks (a struct ust_group: stack i on queue i and
 * lcore i, the main lcore first, then the EAL's workers in order),
 * telemetry (the stacks register themselves) and the capture server for
 * dpdk-dumpcap (rte_pdump, where there are hugepages).
 *
 * The shortest application:
 *
 * @code
 *	static int
 *	loop(struct ust_env *env, uint16_t i, struct ust_stack *stk, void *arg)
 *	{
 *		... ust_recv_burst() / ust_send_burst() on stk's sockets ...
 *		return did_work;   // > 0 work, 0 none, < 0: stop every lcore
 *	}
 *
 *	char err[256];
 *	struct ust_env *env = ust_env_create(argc, argv, "app.ini", err,
 *					     sizeof(err));
 *	... sockets on ust_env_stack(env, i) for each i ...
 *	ust_env_run(env, loop, NULL);    // until ust_env_stop() or loop()
 *	ust_env_destroy(env);
 * @endcode
 *
 * examples/udp_echo and examples/tcp_echo are complete ones.
 */

#ifndef UST_ENV_H
#define UST_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_config.h>

#include "ust_capture.h"
#include "ust_config.h"
#include "ust_fault.h"
#include "ust_group.h"
#include "ust_port.h"
#include "ust_stack.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rte_mempool;

/**
 * An environment. The application fills cfg (ust_config_defaults() and
 * ust_config_load(), or ust_env_create() does) and the optional stages
 * before ust_env_up(); the rest is read-only, filled by ust_env_up().
 */
struct ust_env {
	const char *prog;          /**< for messages (optional) */
	struct ust_config cfg;     /**< cfg.port.nb_queues: stacks */
	const char *fault_spec;    /**< a fault stage on each queue
				    *   (ust_fault_parse(); seed + queue) */
	const char *pcap_path;     /**< a capture stage on each queue, all
				    *   into this pcapng file */
	/* filled by ust_env_up() */
	struct rte_mempool *pool;  /**< the main lcore's NUMA node's pool */
	struct rte_mempool *pools[RTE_MAX_NUMA_NODES];
	struct ust_port_info port;
	struct ust_rss rss;        /**< the port's hash, read back */
	uint16_t nb_stacks;
	unsigned int lcores[UST_GROUP_MAX]; /**< stack i's lcore */
	struct ust_group *grp;
	struct ust_stack *stk;     /**< stack 0, on the main lcore */
	struct ust_stack *stks[UST_GROUP_MAX];
	bool pdump;                /**< dpdk-dumpcap can attach */
	bool no_secondary;         /**< no hugepages: no secondary process
				    *   (dpdk-dumpcap, dpdk-proc-info) */
	struct ust_fault *fault;   /**< stack 0's fault stage */
	struct ust_fault *faults[UST_GROUP_MAX];
	struct ust_capture_file *pcap;
	struct ust_capture *captures[UST_GROUP_MAX];
	unsigned int mbuf_in_use_start; /**< after ust_env_up() */
	unsigned int mbuf_in_use_end;   /**< after ust_env_down() */
	volatile int stop;         /**< ust_env_stop() */
	/** ust_env_run() sleeps when idle (ust_idle, 200 us idle first;
	 *  set cfg.port.rx_intr too, for RX interrupts) */
	bool idle_adaptive;
};

/**
 * Sleeping when idle, for a stack's own loop (ust_env_run() uses it when
 * env->idle_adaptive is set; ust-echo --idle-adaptive): once the stack
 * has had no work for after_ns, its lcore sleeps until a frame arrives on
 * its queue (the queue's RX interrupt, where the port has them:
 * cfg.port.rx_intr), the stack's next deadline
 * (ust_stack_next_deadline()) or max_ns (10 ms; frames handed over by
 * sibling stacks raise no interrupt), and without interrupts fallback_ns
 * at most; the sleeps chain while nothing arrives. The first sleep on an
 * lcore registers its queue's event with the lcore's own epoll set
 * (RTE_EPOLL_PER_THREAD).
 */

struct ust_idle {
	uint64_t after_ns;      /* idle this long (no poll with work) before
				 * a sleep */
	uint64_t since;         /* when the run of empty polls began */
	uint32_t empty;         /* empty polls in a row */
	uint64_t max_ns;        /* longest sleep (10 ms) */
	uint64_t fallback_ns;   /* longest sleep without RX interrupts */
	uint16_t port_id;
	uint16_t queue;
	int intr;               /* RX interrupts: -1 not yet registered on
				 * this lcore, 0 none, 1 registered */
	uint64_t sleeps;
	uint64_t intr_wakeups;  /* sleeps a frame ended */
	uint64_t slept_ns;
};

/* The idle state of the stack polling @queue of @env's port: a sleep
 * once idle for @after_ns, @fallback_ns at most without interrupts. */
void ust_idle_init(struct ust_idle *id, const struct ust_env *env,
		   uint16_t queue, uint64_t after_ns, uint64_t fallback_ns);

/* Every 64 empty polls: idle for after_ns yet? Then sleep until a frame,
 * the stack's next deadline or max_ns. */
void ust_idle_check(struct ust_idle *id, struct ust_stack *stk);

/* After each poll: @busy, whether it did work. A busy poll costs a
 * store; the first empty poll of a run reads the clock, and every 64th
 * checks how long the run has lasted. */
static inline void
ust_idle(struct ust_idle *id, struct ust_stack *stk, bool busy)
{
	if (busy)
		id->empty = 0;
	else if (++id->empty == 1)
		id->since = ust_clock_ns();
	else if ((id->empty & 63) == 0)
		ust_idle_check(id, stk);
}

/**
 * After rte_eal_init(), with @p env->cfg set: pools, port, stages, stacks.
 * Returns 0, or a negative errno with a one-line reason in @p err (of
 * @p errlen bytes): no port, more stacks than EAL lcores or than the port
 * has queues, a pool that cannot be made, a stage or stack refused. On
 * failure nothing is left set up.
 */
int ust_env_up(struct ust_env *env, char *err, size_t errlen);

/** Destroy the stacks and stages, let the PMD free completed TX mbufs and
 *  record the pools' in-use count (mbuf_in_use_end); the port stays open
 *  (two processes on one net_memif close it later: ust_port_close()). */
void ust_env_down(struct ust_env *env);

/** mbufs in use in all the environment's pools. */
unsigned int ust_env_in_use(const struct ust_env *env);

/**
 * The one call: rte_eal_init(@p argc, @p argv) (EAL arguments only, as
 * rte_eal_init() takes them), the configuration from the INI file
 * @p ini_path (NULL: the defaults; the file must then, or else, give
 * [ip] addr), then ust_env_up(). Returns the environment, or NULL with
 * the reason in @p err.
 */
struct ust_env *ust_env_create(int argc, char **argv, const char *ini_path,
			       char *err, size_t errlen);

/** A stack's share of a loop: called on stack @p idx's lcore after each
 *  poll of @p stk. Returns > 0 when it did work (an adaptive loop stays
 *  awake), 0 when it did none, < 0 to stop every lcore. */
typedef int (*ust_env_loop_t)(struct ust_env *env, uint16_t idx,
			      struct ust_stack *stk, void *arg);

/**
 * Run @p fn on every stack's lcore (the main lcore's included) after each
 * ust_stack_poll(), until ust_env_stop() (async-signal-safe: a SIGINT
 * handler may call it) or until one returns < 0. Returns 0, or the first
 * negative return, or -EBUSY when an lcore is busy. With idle_adaptive,
 * each lcore sleeps when its stack and @p fn have had nothing to do
 * (ust_idle).
 */
int ust_env_run(struct ust_env *env, ust_env_loop_t fn, void *arg);

/** Ask ust_env_run()'s loops to return. */
void ust_env_stop(struct ust_env *env);

/** ust_env_down(), close the port, free the pools and the environment of
 *  ust_env_create(), rte_eal_cleanup(). */
void ust_env_destroy(struct ust_env *env);

#ifdef __cplusplus
}
#endif

#endif /* UST_ENV_H */
