/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Socket helpers the apps' modes share: setting an int option, an event
 * set created and a socket added to it or changed, an address of either
 * family, a connect that waits out duplicate address detection, polling
 * for a while after closing, and a listener's refusing-connections
 * warning.
 */

#include <errno.h>
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

socklen_t
app_sockaddr(union ust_sockaddr *to, bool v6, rte_be32_t v4,
	     const uint8_t *a6, uint16_t port)
{
	memset(to, 0, sizeof(*to));
	if (v6) {
		to->sin6.sin6_family = AF_INET6;
		if (a6 != NULL)
			memcpy(to->sin6.sin6_addr.s6_addr, a6, 16);
		to->sin6.sin6_port = rte_cpu_to_be_16(port);
		return sizeof(to->sin6);
	}
	to->sin.sin_family = AF_INET;
	to->sin.sin_addr.s_addr = v4;
	to->sin.sin_port = rte_cpu_to_be_16(port);
	return sizeof(to->sin);
}

int
app_connect(struct ust_stack *stk, int sd, const struct sockaddr *to,
	    socklen_t len, const volatile sig_atomic_t *quit)
{
	uint64_t t0 = ust_clock_ns();
	int rc = ust_connect(stk, sd, to, len);

	/* an IPv6 source is usable once duplicate address detection is
	 * over (about a second after start): poll until then */
	while (rc == -EADDRNOTAVAIL && (quit == NULL || !*quit) &&
	       ust_clock_ns() - t0 < 10 * 1000000000ull) {
		ust_stack_poll(stk, ust_clock_ns());
		rc = ust_connect(stk, sd, to, len);
	}
	return rc;
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
