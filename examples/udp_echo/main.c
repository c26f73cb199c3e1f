/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * examples/udp_echo: a UDP echo server on the environment API
 * (ust_env.h), built against the INSTALLED library through pkg-config
 * (shared or static; examples/Makefile). ust_env_create() brings up EAL,
 * the pools, the first port and one stack per lcore of -l from an INI
 * file; each stack gets a socket on PORT; ust_env_run() polls every stack
 * on its lcore and calls echo() after each poll, which sends back what
 * arrived, zero copy; SIGINT or SIGTERM stops the run, and
 * ust_env_destroy() tears everything down. Exit status 0 when the pools
 * got every mbuf back (as many in use as at the start: the RX ring's).
 *
 *   udp_echo [EAL options] -- CONFIG.ini PORT [adaptive]
 *   e.g. udp_echo -l 0 --vdev net_tap0 -- echo.ini 7
 *   with echo.ini: [ip] addr = 198.18.0.2/24
 * "adaptive": the lcores sleep when idle (ust_env's idle_adaptive; with
 * [port] rx_intr = 1 in the INI file, until a frame's RX interrupt).
 */

#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include <ust_env.h>
#include <ust_socket.h>

static struct ust_env *env;

static void
on_signal(int sig)
{
	(void)sig;
	ust_env_stop(env);
}

/* each stack's socket */
static int sds[UST_GROUP_MAX];

static int
echo(struct ust_env *e, uint16_t i, struct ust_stack *stk, void *arg)
{
	struct rte_mbuf *pkts[32];
	union ust_sockaddr from[32];
	int k, sent;

	(void)e;
	(void)arg;
	k = ust_recv_burst(stk, sds[i], pkts, 32, from);
	if (k <= 0)
		return 0;
	sent = ust_send_burst(stk, sds[i], pkts, (unsigned int)k, from);
	if (sent < 0)
		sent = 0;
	/* what the stack did not take is still ours */
	rte_pktmbuf_free_bulk(&pkts[sent], (unsigned int)(k - sent));
	return 1;
}

int
main(int argc, char **argv)
{
	struct sockaddr_in sin;
	char err[256];
	unsigned int leaked;
	int eal_argc, port;
	uint16_t i;

	/* EAL's arguments, then ours after "--" */
	for (eal_argc = 1; eal_argc < argc; eal_argc++)
		if (strcmp(argv[eal_argc], "--") == 0)
			break;
	if (argc - eal_argc != 3 && (argc - eal_argc != 4 ||
				     strcmp(argv[eal_argc + 3], "adaptive"))) {
		fprintf(stderr, "usage: udp_echo [EAL options] -- CONFIG.ini "
			"PORT [adaptive]\n");
		return 2;
	}
	port = atoi(argv[eal_argc + 2]);
	if (port < 1 || port > 65535) {
		fprintf(stderr, "udp_echo: %s: not a port\n",
			argv[eal_argc + 2]);
		return 2;
	}
	env = ust_env_create(eal_argc, argv, argv[eal_argc + 1], err,
			     sizeof(err));
	if (env == NULL) {
		fprintf(stderr, "udp_echo: %s\n", err);
		return 2;
	}

	/* a socket on every stack: each serves what its queue receives */
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	for (i = 0; i < env->nb_stacks; i++) {
		sds[i] = ust_socket(env->stks[i], AF_INET, SOCK_DGRAM, 0);
		if (sds[i] < 0 || ust_bind(env->stks[i], sds[i],
					   (struct sockaddr *)&sin,
					   sizeof(sin)) != 0) {
			fprintf(stderr, "udp_echo: cannot bind port %d\n",
				port);
			ust_env_destroy(env);
			return 1;
		}
	}
	env->idle_adaptive = argc - eal_argc == 4;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("udp_echo: serving port %d on %u stacks%s\n", port,
	       env->nb_stacks, env->idle_adaptive ? ", sleeping when idle" :
	       "");
	fflush(stdout);
	ust_env_run(env, echo, NULL);

	for (i = 0; i < env->nb_stacks; i++)
		ust_close(env->stks[i], sds[i]);
	ust_env_down(env);
	/* the port's RX ring holds the same mbufs as at the start */
	leaked = env->mbuf_in_use_end > env->mbuf_in_use_start ?
		env->mbuf_in_use_end - env->mbuf_in_use_start : 0;
	printf("udp_echo: done, %u mbufs leaked\n", leaked);
	ust_env_destroy(env);
	return leaked == 0 ? 0 : 1;
}
