/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/* Event sets: level- and edge-triggered readiness, one-shot, fairness,
 * errors, lifetimes. */

#include <errno.h>

#include "ust_socket.h"
#include "ust_stack.h"
#include "ut.h"
#include "ut_netif.h"

static struct rte_mempool *pool;
static struct ut_netif nif;

static void
send_to(struct ust_stack *stk, uint16_t port)
{
	struct rte_mbuf *m = ut_udp_frame(pool, UT_PEER_IP, UT_OUR_IP, 4000,
					  port, "e", 1);

	ust_stack_input(stk, &m, 1, 0);
}

static int
teardown(struct ust_stack *stk)
{
	ust_stack_destroy(stk);
	ut_tx_drain(&nif);
	return ut_leak_check(pool);
}

static int
test_level_triggered(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	struct ust_epoll_event ev, out[8];
	int ep = ust_epoll_create(stk), sd[3], i;
	char buf[8];

	UT_ASSERT(ep >= 0);
	for (i = 0; i < 3; i++) {
		sd[i] = ut_udp_bound(stk, (uint16_t)(100 + i));
		ev.events = UST_EPOLLIN;
		ev.data = 1000 + i;
		UT_EQ(ust_epoll_ctl(stk, ep, UST_EPOLL_CTL_ADD, sd[i], &ev), 0);
	}
	UT_EQ(ust_epoll_wait(stk, ep, out, 8), 0);
	send_to(stk, 102);
	send_to(stk, 102);
	UT_EQ(ust_epoll_wait(stk, ep, out, 8), 1);
	UT_EQ(out[0].data, 1002);
	UT_EQ(out[0].events, UST_EPOLLIN);
	/* level-triggered: still readable, still reported */
	UT_EQ(ust_recv(stk, sd[2], buf, sizeof(buf), 0), 1);
	UT_EQ(ust_epoll_wait(stk, ep, out, 8), 1);
	UT_EQ(ust_recv(stk, sd[2], buf, sizeof(buf), 0), 1);
	UT_EQ(ust_epoll_wait(stk, ep, out, 8), 0);
	/* MOD to writable: ready at once */
	ev.events = UST_EPOLLOUT;
	ev.data = 77;
	UT_EQ(ust_epoll_ctl(stk, ep, UST_EPOLL_CTL_MOD, sd[0], &ev), 0);
	UT_EQ(ust_epoll_wait(stk, ep, out, 8), 1);
	UT_EQ(out[0].events, UST_EPOLLOUT);
	UT_EQ(out[0].data, 77);
	UT_EQ(ust_epoll_ctl(stk, ep, UST_EPOLL_CTL_DEL, sd[0], NULL), 0);
	UT_EQ(ust_epoll_wait(stk, ep, out, 8), 0);
	/* a closed socket leaves its set */
	send_to(stk, 101);
	UT_EQ(ust_close(stk, sd[1]), 0);
	UT_EQ(ust_epoll_wait(stk, ep, out, 8), 0);
	return teardown(stk);
}

/* EPOLLET: one report per change, drained or not (Linux's
 * epoll_in_edge.pkt for a datagram socket); EPOLLONESHOT: one report, then
 * nothing until MOD. */
static int
test_edge_and_oneshot(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	struct ust_epoll_event ev, out[8];
	int ep = ust_epoll_create(stk), a, b;
	char buf[8];

	UT_ASSERT(ep >= 0);
	a = ut_udp_bound(stk, 200);
	b = ut_udp_bound(stk, 201);
	ev.events = UST_EPOLLIN | UST_EPOLLOUT | UST_EPOLLET;
	ev.data = 1;
	UT_EQ(ust_epoll_ctl(stk, ep, UST_EPOLL_CTL_ADD, a, &ev), 0);
	/* what is ready when added is reported once */
	UT_EQ(ust_epoll_wait(stk, ep, out, 8), 1);
	UT_EQ(out[0].events, UST_EPOLLOUT);
	UT_EQ(ust_epoll_wait(stk, ep, out, 8), 0);
	/* a datagram in: reported once, with everything ready then */
	send_to(stk, 200);
	UT_EQ(ust_epoll_wait(stk, ep, out, 8), 1);
	UT_EQ(out[0].events, UST_EPOLLIN | UST_EPOLLOUT);
	UT_EQ(ust_epoll_wait(stk, ep, out, 8), 0);
	/* another one into a queue that is not empty: a new edge */
	send_to(stk, 200);
	UT_EQ(ust_epoll_wait(stk, ep, out, 8), 1);
	UT_EQ(ust_epoll_wait(stk, ep, out, 8), 0);
	/* reading is no change: still nothing */
	UT_EQ(ust_recv(stk, a, buf, sizeof(buf), 0), 1);
	UT_EQ(ust_epoll_wait(stk, ep, out, 8), 0);
	/* MOD re-arms: what is ready is reported again */
	UT_EQ(ust_epoll_ctl(stk, ep, UST_EPOLL_CTL_MOD, a, &ev), 0);
	UT_EQ(ust_epoll_wait(stk, ep, out, 8), 1);
	UT_EQ(out[0].events, UST_EPOLLIN | UST_EPOLLOUT);

	/* one-shot, level-triggered */
	ev.events = UST_EPOLLIN | UST_EPOLLONESHOT;
	ev.data = 2;
	UT_EQ(ust_epoll_ctl(stk, ep, UST_EPOLL_CTL_ADD, b, &ev), 0);
	UT_EQ(ust_epoll_wait(stk, ep, out, 8), 0);
	send_to(stk, 201);
	send_to(stk, 201);
	UT_EQ(ust_epoll_wait(stk, ep, out, 8), 1);
	UT_EQ(out[0].data, 2);
	/* disarmed: still readable, new data, nothing reported */
	send_to(stk, 201);
	UT_EQ(ust_epoll_wait(stk, ep, out, 8), 0);
	UT_EQ(ust_epoll_ctl(stk, ep, UST_EPOLL_CTL_MOD, b, &ev), 0);
	UT_EQ(ust_epoll_wait(stk, ep, out, 8), 1);
	UT_EQ(out[0].data, 2);
	UT_EQ(out[0].events, UST_EPOLLIN);
	UT_EQ(ust_epoll_wait(stk, ep, out, 8), 0);
	UT_EQ(ust_close(stk, a), 0);
	UT_EQ(ust_close(stk, b), 0);
	return teardown(stk);
}

static int
test_fairness(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	struct ust_epoll_event ev, out[3];
	int ep = ust_epoll_create(stk), i, k;
	int seen[10] = { 0 };

	for (i = 0; i < 10; i++) {
		int sd = ut_udp_bound(stk, (uint16_t)(200 + i));

		ev.events = UST_EPOLLIN;
		ev.data = (uint64_t)i;
		UT_EQ(ust_epoll_ctl(stk, ep, UST_EPOLL_CTL_ADD, sd, &ev), 0);
		send_to(stk, (uint16_t)(200 + i));
	}
	/* ten ready, three per wait: four waits report all ten */
	for (k = 0; k < 4; k++) {
		int n = ust_epoll_wait(stk, ep, out, 3);

		UT_EQ(n, 3);
		for (i = 0; i < n; i++)
			seen[out[i].data]++;
	}
	for (i = 0; i < 10; i++)
		UT_ASSERT(seen[i] >= 1, "socket %d starved", i);
	return teardown(stk);
}

static int
test_ctl_errors(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	struct ust_epoll_event ev = { .events = UST_EPOLLIN }, out[1];
	int ep = ust_epoll_create(stk), ep2 = ust_epoll_create(stk);
	int sd = ut_udp_bound(stk, 300);

	UT_EQ(ust_epoll_ctl(stk, ep, UST_EPOLL_CTL_ADD, sd, &ev), 0);
	UT_EQ(ust_epoll_ctl(stk, ep, UST_EPOLL_CTL_ADD, sd, &ev), -EEXIST);
	UT_EQ(ust_epoll_ctl(stk, ep2, UST_EPOLL_CTL_ADD, sd, &ev), -EBUSY);
	UT_EQ(ust_epoll_ctl(stk, ep2, UST_EPOLL_CTL_MOD, sd, &ev), -ENOENT);
	UT_EQ(ust_epoll_ctl(stk, ep2, UST_EPOLL_CTL_DEL, sd, NULL), -ENOENT);
	UT_EQ(ust_epoll_ctl(stk, ep, UST_EPOLL_CTL_ADD, ep2, &ev), -EINVAL);
	UT_EQ(ust_epoll_ctl(stk, sd, UST_EPOLL_CTL_ADD, sd, &ev), -EINVAL);
	UT_EQ(ust_epoll_ctl(stk, 999, UST_EPOLL_CTL_ADD, sd, &ev), -EBADF);
	UT_EQ(ust_epoll_ctl(stk, ep, UST_EPOLL_CTL_ADD, 999, &ev), -EBADF);
	UT_EQ(ust_epoll_ctl(stk, ep, 42, sd, &ev), -EINVAL);
	UT_EQ(ust_epoll_wait(stk, ep, out, 0), -EINVAL);
	UT_EQ(ust_epoll_wait(stk, sd, out, 1), -EINVAL);
	/* sockets calls on an event set */
	UT_EQ(ust_recv(stk, ep, out, 1, 0), -ENOTSOCK);
	/* closing a set with members releases them */
	send_to(stk, 300);
	UT_EQ(ust_close(stk, ep), 0);
	UT_EQ(ust_epoll_ctl(stk, ep2, UST_EPOLL_CTL_ADD, sd, &ev), 0);
	UT_EQ(ust_epoll_wait(stk, ep2, out, 1), 1);
	return teardown(stk);
}

static int
test_error_event(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	struct ust_epoll_event ev = { .events = UST_EPOLLIN, .data = 5 }, out[2];
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = RTE_BE16(9) };
	int ep = ust_epoll_create(stk);
	int sd = ust_socket(stk, AF_INET, SOCK_DGRAM, 0);
	struct rte_mbuf *err, *out_m;
	struct ust_icmp_repr ic;

	to.sin_addr.s_addr = UT_PEER_IP;
	UT_EQ(ust_stack_arp_add_static(stk, UT_PEER_IP, &ut_peer_mac), 0);
	UT_EQ(ust_connect(stk, sd, (struct sockaddr *)&to, sizeof(to)), 0);
	UT_EQ(ust_epoll_ctl(stk, ep, UST_EPOLL_CTL_ADD, sd, &ev), 0);
	UT_EQ(ust_send(stk, sd, "q", 1, 0), 1);
	ust_stack_flush(stk);
	out_m = ut_tx_pop(&nif);
	UT_ASSERT(out_m != NULL);
	err = ut_icmp_port_unreach_frame(pool,
		rte_pktmbuf_mtod_offset(out_m, uint8_t *, 14), 29);
	rte_pktmbuf_free(out_m);
	ust_stack_input(stk, &err, 1, 0);
	UT_EQ(ust_epoll_wait(stk, ep, out, 2), 1);
	UT_ASSERT(out[0].events & UST_EPOLLERR);
	UT_EQ(out[0].data, 5);
	UT_EQ(ust_recv(stk, sd, &ic, 1, 0), -ECONNREFUSED);
	UT_EQ(ust_epoll_wait(stk, ep, out, 2), 0);
	return teardown(stk);
}

static void
real_clock(struct ust_stack_conf *c)
{
	c->now_ns = ust_clock_ns();
}

/*
 * ust_epoll_wait_timeout(): with nothing arriving it returns 0 at the
 * timeout (0: after one poll); a datagram waiting on the netif is taken in
 * by its polls and reported; a bad set or timeout is an error, as
 * ust_epoll_wait()'s.
 */
static int
test_wait_timeout(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, real_clock);
	struct ust_epoll_event ev, out[4];
	int ep, sd;
	char buf[8];

	UT_ASSERT(stk != NULL);
	ep = ust_epoll_create(stk);
	sd = ut_udp_bound(stk, 100);
	UT_ASSERT(ep >= 0 && sd >= 0);
	ev.events = UST_EPOLLIN;
	ev.data = 5;
	UT_EQ(ust_epoll_ctl(stk, ep, UST_EPOLL_CTL_ADD, sd, &ev), 0);
	UT_EQ(ust_epoll_wait_timeout(stk, ep, out, 4, 0), 0);
	UT_EQ(ust_epoll_wait_timeout(stk, ep, out, 4, 2), 0);
	/* on the wire, not yet polled: the wait's poll takes it in */
	nif.rx[nif.rx_n++] = ut_udp_frame(pool, UT_PEER_IP, UT_OUR_IP, 4000,
					  100, "w", 1);
	UT_EQ(ust_epoll_wait_timeout(stk, ep, out, 4, -1), 1);
	UT_EQ(out[0].data, 5);
	UT_EQ(out[0].events, UST_EPOLLIN);
	UT_EQ(nif.rx_n, 0);
	UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), 1);
	UT_EQ(ust_epoll_wait_timeout(stk, ep, out, 4, -2), -EINVAL);
	UT_EQ(ust_epoll_wait_timeout(stk, sd, out, 4, 0), -EINVAL);
	UT_EQ(ust_epoll_wait_timeout(stk, 999, out, 4, 0), -EBADF);
	return teardown(stk);
}

static const struct ut_case cases[] = {
	{ "level_triggered", test_level_triggered },
	{ "fairness", test_fairness },
	{ "edge_and_oneshot", test_edge_and_oneshot },
	{ "ctl_errors", test_ctl_errors },
	{ "error_event", test_error_event },
	{ "wait_timeout", test_wait_timeout },
};

int
main(int argc, char **argv)
{
	(void)argc;
	if (ut_eal_init(argv[0], "0") != 0)
		return 1;
	pool = ut_pool("ut_epoll", 2048);
	if (pool == NULL)
		return 1;
	ut_netif_init(&nif, 0);
	return UT_RUN(cases);
}
