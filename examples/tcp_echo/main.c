/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * examples/tcp_echo: a TCP echo server on the environment API
 * (ust_env.h), built against the installed library (examples/Makefile).
 * Every stack listens on PORT (each serves the connections its queue
 * receives) and watches its listener and connections in one event set;
 * each connection's bytes go back as they come, with what the send
 * buffer could not take kept and sent on UST_EPOLLOUT, so that nothing
 * is lost: reading stops while bytes wait.
 *
 *   tcp_echo [EAL options] -- CONFIG.ini PORT
 */

#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include <ust_env.h>
#include <ust_socket.h>

#define BUF 16384

/* a connection: the event set's data points at it (0: the listener) */
struct conn {
	int sd;
	uint32_t off, len;     /* bytes of buf still to send back */
	struct conn *next, *prev;
	char buf[BUF];
};

struct server {
	int ls, ep;
	struct conn *conns;    /* every open connection, for the teardown */
};

static struct ust_env *env;
static struct server srv[UST_GROUP_MAX];

static void
on_signal(int sig)
{
	(void)sig;
	ust_env_stop(env);
}

static void
watch(struct ust_stack *stk, struct server *s, int sd, struct conn *c,
      uint32_t events, int op)
{
	struct ust_epoll_event ev = {
		.events = events, .data = (uint64_t)(uintptr_t)c,
	};

	ust_epoll_ctl(stk, s->ep, op, sd, &ev);
}

static void
conn_close(struct ust_stack *stk, struct server *s, struct conn *c)
{
	ust_close(stk, c->sd);	/* leaves the event set */
	if (c->prev != NULL)
		c->prev->next = c->next;
	else
		s->conns = c->next;
	if (c->next != NULL)
		c->next->prev = c->prev;
	free(c);
}

/* send what waits, then read and send back until the socket has nothing
 * or cannot take more */
static void
conn_io(struct ust_stack *stk, struct server *s, struct conn *c)
{
	for (;;) {
		ssize_t n;

		while (c->off < c->len) {
			n = ust_send(stk, c->sd, c->buf + c->off,
				     c->len - c->off, 0);
			if (n == -EAGAIN) {
				watch(stk, s, c->sd, c, UST_EPOLLOUT,
				      UST_EPOLL_CTL_MOD);
				return;
			}
			if (n < 0) {
				conn_close(stk, s, c);
				return;
			}
			c->off += (uint32_t)n;
		}
		n = ust_recv(stk, c->sd, c->buf, sizeof(c->buf), 0);
		if (n == -EAGAIN) {
			watch(stk, s, c->sd, c, UST_EPOLLIN,
			      UST_EPOLL_CTL_MOD);
			return;
		}
		if (n <= 0) {	/* the peer's FIN, or an error */
			conn_close(stk, s, c);
			return;
		}
		c->off = 0;
		c->len = (uint32_t)n;
	}
}

static int
serve(struct ust_env *e, uint16_t i, struct ust_stack *stk, void *arg)
{
	struct server *s = &srv[i];
	struct ust_epoll_event evs[32];
	int n, k;

	(void)e;
	(void)arg;
	n = ust_epoll_wait(stk, s->ep, evs, 32);
	for (k = 0; k < n; k++) {
		struct conn *c = (struct conn *)(uintptr_t)evs[k].data;
		int a;

		if (c != NULL) {
			conn_io(stk, s, c);
			continue;
		}
		/* the listener */
		while ((a = ust_accept(stk, s->ls, NULL, NULL)) >= 0) {
			c = calloc(1, sizeof(*c));
			if (c == NULL) {
				ust_close(stk, a);
				continue;
			}
			c->sd = a;
			c->next = s->conns;
			if (s->conns != NULL)
				s->conns->prev = c;
			s->conns = c;
			watch(stk, s, a, c, UST_EPOLLIN, UST_EPOLL_CTL_ADD);
			conn_io(stk, s, c);
		}
	}
	return n > 0;
}

int
main(int argc, char **argv)
{
	struct sockaddr_in sin;
	char err[256];
	unsigned int leaked;
	int eal_argc, port;
	uint16_t i;

	for (eal_argc = 1; eal_argc < argc; eal_argc++)
		if (strcmp(argv[eal_argc], "--") == 0)
			break;
	if (argc - eal_argc != 3) {
		fprintf(stderr, "usage: tcp_echo [EAL options] -- CONFIG.ini "
			"PORT\n");
		return 2;
	}
	port = atoi(argv[eal_argc + 2]);
	if (port < 1 || port > 65535) {
		fprintf(stderr, "tcp_echo: %s: not a port\n",
			argv[eal_argc + 2]);
		return 2;
	}
	env = ust_env_create(eal_argc, argv, argv[eal_argc + 1], err,
			     sizeof(err));
	if (env == NULL) {
		fprintf(stderr, "tcp_echo: %s\n", err);
		return 2;
	}
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	for (i = 0; i < env->nb_stacks; i++) {
		struct ust_stack *stk = env->stks[i];
		struct server *s = &srv[i];

		s->ls = ust_socket(stk, AF_INET, SOCK_STREAM, 0);
		s->ep = ust_epoll_create(stk);
		if (s->ls < 0 || s->ep < 0 ||
		    ust_bind(stk, s->ls, (struct sockaddr *)&sin,
			     sizeof(sin)) != 0 ||
		    ust_listen(stk, s->ls, 128) != 0) {
			fprintf(stderr, "tcp_echo: cannot listen on %d\n",
				port);
			ust_env_destroy(env);
			return 1;
		}
		watch(stk, s, s->ls, NULL, UST_EPOLLIN, UST_EPOLL_CTL_ADD);
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("tcp_echo: serving port %d on %u stacks\n", port,
	       env->nb_stacks);
	fflush(stdout);
	ust_env_run(env, serve, NULL);

	for (i = 0; i < env->nb_stacks; i++) {
		while (srv[i].conns != NULL)
			conn_close(env->stks[i], &srv[i], srv[i].conns);
		ust_close(env->stks[i], srv[i].ls);
		ust_close(env->stks[i], srv[i].ep);
	}
	/* the closes' FINs and TIME_WAITs end with the stacks */
	ust_env_down(env);
	/* the port's RX ring holds the same mbufs as at the start */
	leaked = env->mbuf_in_use_end > env->mbuf_in_use_start ?
		env->mbuf_in_use_end - env->mbuf_in_use_start : 0;
	printf("tcp_echo: done, %u mbufs leaked\n", leaked);
	ust_env_destroy(env);
	return leaked == 0 ? 0 : 1;
}
