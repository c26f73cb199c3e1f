/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Socket helpers the apps' TCP modes share: setting an int option,
 * adding or changing a socket in an event set, and a listener's
 * refusing-connections warning.
 */

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

void
app_listen_watch(struct app_listen_watch *w, const struct app_env *env,
		 uint64_t now_ns, unsigned int backlog)
{
	struct ust_stats st;
	uint64_t ovf, drops;

	if (w->warned || now_ns < w->next_ns)
		return;
	w->next_ns = now_ns + 1000000000ull;
	ust_stack_stats_get(env->stk, &st);
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
