/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * examples/udp_echo: the smallest complete ustack application, built
 * against the INSTALLED library through pkg-config (shared or static; see
 * examples/meson.build and the README's "Embedding the library"). It
 * brings up the first ethdev port with one queue pair, one stack on the
 * main lcore, a UDP socket on PORT, and echoes what arrives, zero copy,
 * until SIGINT or SIGTERM; then it tears everything down and checks that
 * every mbuf came back to the pool.
 *
 *   udp_echo [EAL options] -- A.B.C.D/LEN PORT
 *   e.g. udp_echo -l 0 --vdev net_tap0 -- 198.18.0.2/24 7
 */

#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include <ust_port.h>
#include <ust_socket.h>
#include <ust_stack.h>

static volatile sig_atomic_t quit;

static void
on_signal(int sig)
{
	(void)sig;
	quit = 1;
}

static void __attribute__((noreturn))
usage(const char *why)
{
	fprintf(stderr, "udp_echo: %s (usage: udp_echo [EAL options] -- "
		"A.B.C.D/LEN PORT)\n", why);
	exit(2);
}

int
main(int argc, char **argv)
{
	struct ust_port_conf pc;
	struct ust_port_info info;
	struct ust_stack_conf c;
	struct ust_stack *stk;
	struct rte_mempool *pool;
	struct sockaddr_in sin;
	struct in_addr addr;
	unsigned int in_use;
	char ip[32], *slash;
	int n, sd, plen, port;

	n = rte_eal_init(argc, argv);
	if (n < 0)
		usage("EAL initialisation failed");
	argc -= n;
	argv += n;
	if (argc != 3)
		usage("two arguments after \"--\"");
	snprintf(ip, sizeof(ip), "%s", argv[1]);
	slash = strchr(ip, '/');
	if (slash == NULL)
		usage("the address needs its prefix length");
	*slash = '\0';
	plen = atoi(slash + 1);
	port = atoi(argv[2]);
	if (inet_pton(AF_INET, ip, &addr) != 1 || plen < 1 || plen > 30 ||
	    port < 1 || port > 65535)
		usage("bad address or port");

	/* mbufs, the port with one queue pair on them */
	pool = rte_pktmbuf_pool_create("echo_pool", 8191, 256, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE,
				       (int)rte_socket_id());
	if (pool == NULL)
		usage("cannot create the mbuf pool");
	ust_port_conf_defaults(&pc);
	pc.pool = pool;
	if (ust_port_setup(&pc, &info) != 0)
		usage("cannot set up port 0");

	/* the stack, on the port's queue 0 */
	ust_stack_conf_defaults(&c);
	if (ust_port_netif(pc.port_id, 0, &info, &c.netif) != 0)
		usage("no queue 0");
	c.pool = pool;
	c.addr = addr.s_addr;
	c.prefix_len = (uint8_t)plen;
	stk = ust_stack_create(&c);
	if (stk == NULL)
		usage(rte_strerror(rte_errno));

	/* the socket */
	sd = ust_socket(stk, AF_INET, SOCK_DGRAM, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	if (sd < 0 || ust_bind(stk, sd, (struct sockaddr *)&sin,
			       sizeof(sin)) != 0)
		usage("cannot bind the UDP port");
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("udp_echo: serving %s port %d\n", argv[1], port);
	fflush(stdout);

	/* the loop: poll, take what arrived, send it back */
	while (!quit) {
		struct rte_mbuf *pkts[32];
		struct sockaddr_in from[32];
		int k, sent;

		ust_stack_poll(stk, ust_clock_ns());
		k = ust_recv_burst(stk, sd, pkts, 32, from);
		if (k <= 0)
			continue;
		sent = ust_send_burst(stk, sd, pkts, (unsigned int)k, from);
		if (sent < 0)
			sent = 0;
		/* what the stack did not take is still ours */
		rte_pktmbuf_free_bulk(&pkts[sent], (unsigned int)(k - sent));
	}

	/* teardown: socket, stack, the port's TX ring, the port */
	ust_close(stk, sd);
	ust_stack_destroy(stk);
	ust_port_tx_cleanup(pc.port_id, 1);
	ust_port_close(pc.port_id);
	in_use = rte_mempool_in_use_count(pool);
	printf("udp_echo: done, %u mbufs in use\n", in_use);
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return in_use == 0 ? 0 : 1;
}
