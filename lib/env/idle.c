/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Sleeping when idle (ust_env.h's ust_idle), as l3fwd-power does: once
 * idle for after_ns (no poll with work), a stack's lcore sleeps until a
 * frame arrives on its queue (the queue's RX interrupt, where the port was configured with them: ust_port_conf
 * rx_intr) or until the stack's next deadline (ust_stack_next_deadline():
 * its TCP and ARP timers), whichever is first, and at most max_ns (frames
 * handed over by sibling stacks raise no interrupt: they wait that long at
 * most). Without interrupts it sleeps fallback_ns at most, and the
 * deadline; the sleeps chain while nothing arrives. Called by the app's
 * loop after each poll with whether the poll did work (ust_idle()); the
 * first sleep of a lcore registers its queue's
 * interrupt with the lcore's own epoll set (RTE_EPOLL_PER_THREAD).
 */

#include <errno.h>
#include <string.h>
#include <time.h>

#include <rte_ethdev.h>
#include <rte_interrupts.h>

#include "ust_env.h"

void
ust_idle_init(struct ust_idle *id, const struct ust_env *env, uint16_t queue,
	      uint64_t after_ns, uint64_t fallback_ns)
{
	memset(id, 0, sizeof(*id));
	id->after_ns = after_ns;
	id->max_ns = 10 * 1000 * 1000;
	id->fallback_ns = fallback_ns;
	id->port_id = env->cfg.port.port_id;
	id->queue = queue;
	id->intr = env->port.rx_intr ? -1 : 0;
}

static void
idle_nanosleep(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000u),
		.tv_nsec = (long)(ns % 1000000000u),
	};

	nanosleep(&ts, NULL);
}

void
ust_idle_check(struct ust_idle *id, struct ust_stack *stk)
{
	uint64_t now = ust_clock_ns(), dl, wait;
	int en;

	if (now - id->since < id->after_ns)
		return;
	dl = ust_stack_next_deadline(stk);
	if (dl <= now)
		return;
	wait = dl - now < id->max_ns ? dl - now : id->max_ns;
	if (id->intr < 0) {
		/* once per lcore: the queue's event in this thread's set (a
		 * PMD that configures RX interrupts may still have no event
		 * per queue: net_memif in DPDK 22.11) */
		int rc = rte_eth_dev_rx_intr_ctl_q(id->port_id, id->queue,
			RTE_EPOLL_PER_THREAD, RTE_INTR_EVENT_ADD, NULL);

		id->intr = rc == 0;
	}
	/* a PMD whose queue event is a level-triggered descriptor (net_tap:
	 * the TAP fd) has nothing to enable (-ENOTSUP) and is always armed,
	 * as l3fwd-power takes it */
	en = id->intr == 1 ?
		rte_eth_dev_rx_intr_enable(id->port_id, id->queue) : -ENODEV;
	if (en == 0 || en == -ENOTSUP) {
		struct rte_epoll_event ev;
		int n;

		/* ms, rounded up: the deadline is never missed by more than
		 * its own 1-ms tick */
		n = rte_epoll_wait(RTE_EPOLL_PER_THREAD, &ev, 1,
				   (int)((wait + 999999) / 1000000));
		if (en == 0)
			rte_eth_dev_rx_intr_disable(id->port_id, id->queue);
		if (n > 0)
			id->intr_wakeups++;
	} else {
		idle_nanosleep(wait < id->fallback_ns ? wait :
			       id->fallback_ns);
	}
	id->sleeps++;
	id->slept_ns += ust_clock_ns() - now;
}
