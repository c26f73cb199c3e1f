/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Socket helpers the apps' modes share: setting an int option, an event
 * set created and a socket added to it or changed, polling for a while
 * after closing, and a listener's refusing-connections warning.
 */

#include <string.h>

#include "app_common.h"
#include "ust_socket.h"

void
app_set_int(struct ust_stack *stk, int sd, int level, int name, int v)
{
	ust_setsockopt(stk, sd, level, name, &v, sizeof(v));
}

void
app_watch(struct ust_stack *stk, int ep, int op, int sd, uint32_t events,
	  uint64_t data)
{
	struct ust_epoll_event ev = { .events = events, .data = data };

	ust_epoll_ctl(stk, ep, op, sd, &ev);
}

int
app_epoll_create(const char *prog, struct ust_stack *stk)
{
	int ep = ust_epoll_create(stk);

	if (ep < 0)
		app_usage_error(prog, "cannot create an event set: %s",
				strerror(-ep));
	return ep;
}

void
app_poll_for(struct ust_stack *stk, uint64_t ns)
{
	uint64_t until = ust_clock_ns() + ns;

	while (ust_clock_ns() < until)
		ust_stack_poll(stk, ust_clock_ns());
}

void
app_listen_watch_check(struct app_listen_watch *w, const struct ust_env *env,
		       struct ust_stack *stk, uint64_t now_ns,
		       unsigned int backlog)
{
	struct ust_stats st;
	uint64_t ovf, drops;

	w->next_ns = now_ns + 1000000000ull;
	ust_stack_stats_get(stk, &st);
	ovf = st.mib[UST_MIB_TCPEXT_LISTENOVERFLOWS];
	drops = st.mib[UST_MIB_TCPEXT_LISTENDROPS];
	if (ovf == 0 && drops == 0)
		return;
	w->warned = true;
	printf("%s: warning: refusing connections (ListenOverflows %" PRIu64
	       ", ListenDrops %" PRIu64 "): the accept queue (backlog %u) or "
	       "the socket table ([stack] max_sockets %u) is full; raise them "
	       "or serve fewer clients\n", env->prog, ovf, drops, backlog,
	       env->cfg.stack.max_sockets);
	fflush(stdout);
}
