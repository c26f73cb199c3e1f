/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * One accounted receive queue fed by several stacks (ust_socket_attach()):
 * a UDP socket on stack 0, attached to stacks 1..3, each stack on its own
 * test netif, all sharing one mbuf pool.
 *
 *  - attach_errors: the calls' checks and errors.
 *  - shared_rcvbuf: rcvbuf holds across producers (bursts from three
 *    stacks into a small rcvbuf: what fits goes in, the rest is dropped and
 *    counted on the stack that received it); forward_alloc is the socket's,
 *    so a producer's charge uses what another left (delta and legacy).
 *  - shared_random: seeded random steps (bursts of random sizes to a random
 *    stack, reads of random batches, SO_RCVBUF changes, pool limit changes,
 *    schedule and release switches: fixed per run for four runs, flipped in
 *    the fifth), the model's invariants (ut_udp_check(), the same as
 *    test_udp_random's) and the counters after every step; every datagram
 *    delivered byte for byte in its producer's order or counted once under
 *    one drop reason; one producer detached halfway (its datagrams then
 *    find no port); three teardowns: close on the owner then the owner
 *    destroyed first, producers destroyed first (what they queued is still
 *    read), the owner destroyed with the socket still attached.
 *  - shared_mt_*: two producer stacks on lcores 1 and 2 flooding, the
 *    reader on the main lcore (the owner's); the invariants checked by the
 *    reader while they run and at the end, the counts balanced.
 *
 * UT_SEED=n reproduces shared_random; UT_STEPS=n sets its length.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "ust_socket.h"
#include "ust_stack.h"
#include "ut.h"
#include "ut_netif.h"

#define NSTK 4           /* stack 0 owns the socket, 1..3 are attached */
#define PORT 7
#define SPORT0 5000      /* datagrams to stack p come from port SPORT0 + p */
#define PL_MAX 1400
#define TMAX (9600u + 128u) /* truesize of a jumbo mbuf: one datagram */

static struct rte_mempool *pool, *jumbo;
static struct ut_netif nifs[NSTK];

static void
tweak_exact(struct ust_stack_conf *c)
{
	c->udp_mem.pcpu_reserve = 0; /* the pool's limits exact */
}

static void
tweak_lcore(struct ust_stack_conf *c)
{
	c->udp_mem.pcpu_reserve = 16; /* the default: lcore reserves */
}

/* ---- datagrams: their length and bytes follow from (producer, seq) ---- */

static uint32_t
dg_mix(unsigned int p, uint32_t seq)
{
	uint64_t x = (((uint64_t)p << 32) | seq) * 0x9E3779B97F4A7C15ull;

	return (uint32_t)(x >> 32);
}

static uint16_t
dg_len(unsigned int p, uint32_t seq)
{
	return (uint16_t)(8 + dg_mix(p, seq) % (PL_MAX - 8));
}

static void
dg_fill(uint8_t *b, unsigned int p, uint32_t seq, uint16_t len)
{
	uint16_t i;

	memcpy(b, &seq, sizeof(seq));
	b[4] = (uint8_t)p;
	for (i = 5; i < len; i++)
		b[i] = (uint8_t)(seq * 7 + p * 31 + i);
}

static struct rte_mbuf *
dg_frame(struct rte_mempool *mp, unsigned int p, uint32_t seq)
{
	uint8_t b[PL_MAX];
	uint16_t len = dg_len(p, seq);

	dg_fill(b, p, seq, len);
	return ut_udp_frame(mp, UT_PEER_IP, UT_OUR_IP,
			    (uint16_t)(SPORT0 + p), PORT, b, len);
}

/* What the reader knows of a producer's datagrams. */
struct flow {
	uint32_t sent;          /* given to its stack */
	uint32_t sent_detached; /* ... after it was detached */
	uint32_t next_min;      /* the next one read must be at least this */
	uint64_t delivered;
};

/* A datagram read: from a producer's port, its bytes those of (p, seq),
 * after the last one read of that producer (order, no duplicate). */
static int
dg_check(struct flow *f, const uint8_t *b, uint32_t len,
	 const struct sockaddr_in *from)
{
	uint8_t want[PL_MAX];
	unsigned int p;
	uint32_t seq;

	UT_ASSERT(len >= 5 && len <= PL_MAX, "length %u", len);
	memcpy(&seq, b, sizeof(seq));
	p = b[4];
	UT_ASSERT(p < NSTK, "producer %u", p);
	if (from != NULL) {
		UT_EQ(from->sin_addr.s_addr, UT_PEER_IP);
		UT_EQ(rte_be_to_cpu_16(from->sin_port), SPORT0 + p);
	}
	UT_ASSERT(seq >= f[p].next_min && seq < f[p].sent,
		  "producer %u: datagram %u after %u (sent %u)", p, seq,
		  f[p].next_min, f[p].sent);
	UT_EQ(len, dg_len(p, seq));
	dg_fill(want, p, seq, (uint16_t)len);
	UT_ASSERT(memcmp(want, b, len) == 0, "producer %u datagram %u: bytes",
		  p, seq);
	f[p].next_min = seq + 1;
	f[p].delivered++;
	return 0;
}

/* Read up to @n datagrams, zero copy or copying; their count in *@got. */
static int
read_some(struct ust_stack *stk, int sd, unsigned int n, bool zc,
	  struct flow *f, unsigned int *got)
{
	unsigned int j;

	*got = 0;
	if (zc) {
		struct rte_mbuf *b[64];
		union ust_sockaddr from[64];
		int k = ust_recv_burst(stk, sd, b, RTE_MIN(n, 64u), from);

		UT_ASSERT(k >= 0, "recv_burst %d", k);
		for (j = 0; j < (unsigned int)k; j++) {
			uint8_t buf[PL_MAX];
			uint32_t len = b[j]->pkt_len;
			const void *d = len <= PL_MAX ?
				rte_pktmbuf_read(b[j], 0, len, buf) : NULL;
			int rc = d != NULL ? dg_check(f, d, len, &from[j].sin) : -1;

			rte_pktmbuf_free(b[j]);
			UT_EQ(rc, 0);
		}
		*got = (unsigned int)k;
		return 0;
	}
	for (j = 0; j < n; j++) {
		uint8_t buf[2048];
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t rc = ust_recvfrom(stk, sd, buf, sizeof(buf), 0,
					  (struct sockaddr *)&from, &fl);

		if (rc == -EAGAIN)
			break;
		UT_ASSERT(rc >= 0, "recvfrom %zd", rc);
		UT_EQ(dg_check(f, buf, (uint32_t)rc, &from), 0);
		(*got)++;
	}
	return 0;
}

static int
meminfo(struct ust_stack *stk, int sd, struct ust_sock_meminfo *mi)
{
	socklen_t l = sizeof(*mi);

	return ust_getsockopt(stk, sd, UST_SOL_USTACK, UST_SO_MEMINFO, mi, &l);
}

static int
bind_port(struct ust_stack *stk, int sd, uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = rte_cpu_to_be_16(port) };

	return ust_bind(stk, sd, (struct sockaddr *)&sin, sizeof(sin));
}

/* Each stack's counters of the datagrams it received, and the socket's
 * sums: per stack p, sent == InDatagrams + RcvbufErrors + MemErrors +
 * NoPorts, each drop under its one reason, NoPorts only for datagrams
 * sent after p was detached; the socket's enqueued and drops are the sums
 * over the stacks; what was queued is read or still queued. @mi may be
 * NULL (no socket any more). */
struct sums {
	uint64_t in, rcvbuf, mem, noport, delivered;
};

static int
count_check(struct ust_stack *const *stk, const struct flow *f, int n,
	    const struct ust_sock_meminfo *mi, struct sums *sm)
{
	int p;

	memset(sm, 0, sizeof(*sm));
	for (p = 0; p < n; p++) {
		struct ust_stats st;

		if (stk[p] == NULL)
			continue;
		ust_stack_stats_get(stk[p], &st);
		UT_EQ(f[p].sent, st.mib[UST_MIB_UDP_INDATAGRAMS] +
		      st.drop[UST_DROP_SOCKET_RCVBUFF] +
		      st.drop[UST_DROP_PROTO_MEM] +
		      st.drop[UST_DROP_NO_SOCKET]);
		UT_EQ(st.mib[UST_MIB_UDP_RCVBUFERRORS],
		      st.drop[UST_DROP_SOCKET_RCVBUFF]);
		UT_EQ(st.mib[UST_MIB_UDP_MEMERRORS],
		      st.drop[UST_DROP_PROTO_MEM]);
		UT_EQ(st.mib[UST_MIB_UDP_INERRORS],
		      st.drop[UST_DROP_SOCKET_RCVBUFF] +
		      st.drop[UST_DROP_PROTO_MEM]);
		UT_EQ(st.mib[UST_MIB_UDP_NOPORTS], st.drop[UST_DROP_NO_SOCKET]);
		UT_EQ(st.drop[UST_DROP_NO_SOCKET], f[p].sent_detached);
		UT_EQ(ut_check_conservation(stk[p]), 0);
		sm->in += st.mib[UST_MIB_UDP_INDATAGRAMS];
		sm->rcvbuf += st.drop[UST_DROP_SOCKET_RCVBUFF];
		sm->mem += st.drop[UST_DROP_PROTO_MEM];
		sm->noport += st.drop[UST_DROP_NO_SOCKET];
		sm->delivered += f[p].delivered;
	}
	if (mi != NULL) {
		UT_EQ(mi->enqueued, sm->in);
		UT_EQ(mi->rcvbuf_drops, sm->rcvbuf);
		UT_EQ(mi->mem_drops, sm->mem);
		UT_EQ(mi->delivered, sm->delivered);
		UT_EQ(sm->in, sm->delivered + mi->queued);
	}
	return 0;
}

static int
stacks_create(struct ust_stack **stk, void (*tweak)(struct ust_stack_conf *))
{
	int p;

	for (p = 0; p < NSTK; p++) {
		ut_netif_init(&nifs[p], 0);
		stk[p] = ut_stack_create(&nifs[p], pool, tweak);
		UT_ASSERT(stk[p] != NULL);
	}
	return 0;
}

static int
leak_check_all(void)
{
	int p;

	for (p = 0; p < NSTK; p++)
		ut_tx_drain(&nifs[p]);
	UT_EQ(ut_leak_check(pool), 0);
	UT_EQ(ut_leak_check(jumbo), 0);
	return 0;
}

/* ---- the calls' errors ---- */

static int
test_attach_errors(void)
{
	struct ust_stack *stk[NSTK];
	struct ust_epoll_event ev = { .events = UST_EPOLLIN };
	int sd, unbound, tcp, other, epd, p, one = 1;
	struct rte_mbuf *m;
	struct ust_stats st;

	UT_EQ(stacks_create(stk, tweak_exact), 0);
	sd = ut_udp_bound(stk[0], PORT);
	UT_ASSERT(sd >= 0);
	unbound = ust_socket(stk[0], AF_INET, SOCK_DGRAM, 0);
	tcp = ust_socket(stk[0], AF_INET, SOCK_STREAM, 0);
	UT_EQ(bind_port(stk[0], tcp, 80), 0);
	epd = ust_epoll_create(stk[0]);
	UT_ASSERT(unbound >= 0 && tcp >= 0 && epd >= 0);

	UT_EQ(ust_socket_attach(stk[1], stk[0], 999), -EBADF);
	UT_EQ(ust_socket_attach(stk[1], stk[0], -1), -EBADF);
	UT_EQ(ust_socket_attach(stk[1], NULL, sd), -EBADF);
	UT_EQ(ust_socket_attach(NULL, stk[0], sd), -EINVAL);
	UT_EQ(ust_socket_attach(stk[0], stk[0], sd), -EINVAL);
	UT_EQ(ust_socket_attach(stk[1], stk[0], unbound), -EINVAL);
	UT_EQ(ust_socket_attach(stk[1], stk[0], tcp), -EINVAL);
	UT_EQ(ust_socket_attach(stk[1], stk[0], epd), -EINVAL);
	UT_EQ(ust_socket_detach(stk[1], stk[0], sd), -ENOENT);
	/* a socket in an event set is read on its lcore only */
	UT_EQ(ust_epoll_ctl(stk[0], epd, UST_EPOLL_CTL_ADD, unbound, &ev), 0);
	UT_EQ(bind_port(stk[0], unbound, PORT + 1), 0);
	UT_EQ(ust_socket_attach(stk[1], stk[0], unbound), -EINVAL);

	/* the producer has a socket of its own on the port */
	other = ut_udp_bound(stk[2], PORT);
	UT_ASSERT(other >= 0);
	UT_EQ(ust_socket_attach(stk[2], stk[0], sd), -EADDRINUSE);

	UT_EQ(ust_socket_attach(stk[1], stk[0], sd), 0);
	UT_EQ(ust_socket_attach(stk[1], stk[0], sd), -EADDRINUSE);
	/* the producer's port is taken now */
	UT_EQ(bind_port(stk[1], ust_socket(stk[1], AF_INET, SOCK_DGRAM, 0),
			PORT), -EADDRINUSE);
	/* split from now on: no event set, UST_SO_SPLIT as it was */
	UT_EQ(ust_epoll_ctl(stk[0], epd, UST_EPOLL_CTL_ADD, sd, &ev), -EINVAL);
	{
		int v = -1;
		socklen_t l = sizeof(v);

		UT_EQ(ust_getsockopt(stk[0], sd, UST_SOL_USTACK, UST_SO_SPLIT,
				     &v, &l), 0);
		UT_EQ(v, 0);
		UT_EQ(ust_setsockopt(stk[0], sd, UST_SOL_USTACK, UST_SO_SPLIT,
				     &one, sizeof(one)), -EINVAL);
	}
	/* a datagram to stack 1 reaches the socket of stack 0 */
	m = dg_frame(pool, 1, 0);
	ust_stack_input(stk[1], &m, 1, 0);
	{
		struct flow f[NSTK];
		unsigned int got;

		memset(f, 0, sizeof(f));
		f[1].sent = 1;
		UT_EQ(read_some(stk[0], sd, 4, true, f, &got), 0);
		UT_EQ(got, 1);
	}
	ust_stack_stats_get(stk[1], &st);
	UT_EQ(st.mib[UST_MIB_UDP_INDATAGRAMS], 1);
	ust_stack_stats_get(stk[0], &st);
	UT_EQ(st.mib[UST_MIB_UDP_INDATAGRAMS], 0);

	UT_EQ(ust_socket_detach(stk[1], stk[0], sd), 0);
	UT_EQ(ust_socket_detach(stk[1], stk[0], sd), -ENOENT);
	/* detached: no port on stack 1 */
	m = dg_frame(pool, 1, 1);
	ust_stack_input(stk[1], &m, 1, 0);
	ust_stack_stats_get(stk[1], &st);
	UT_EQ(st.mib[UST_MIB_UDP_NOPORTS], 1);
	UT_EQ(st.drop[UST_DROP_NO_SOCKET], 1);
	/* and attachable again */
	UT_EQ(ust_socket_attach(stk[1], stk[0], sd), 0);
	UT_EQ(ust_socket_attach(stk[3], stk[0], sd), 0);
	/* the producer's socket on the port does not stop the owner's */
	UT_EQ(ust_close(stk[2], other), 0);
	UT_EQ(ust_socket_attach(stk[2], stk[0], sd), 0);
	{
		uint32_t allow = 0;

		/* the page the socket keeps charged is its owner's */
		UT_EQ(ut_udp_check(stk[0], &sd, 1, TMAX, &allow, 0, 0), 0);
	}
	for (p = 1; p < NSTK; p++)
		UT_EQ(ust_mem_pool_pages(ust_stack_udp_mem(stk[p])), 0);
	for (p = NSTK - 1; p >= 0; p--)
		ust_stack_destroy(stk[p]);
	return leak_check_all();
}

/* ---- rcvbuf and forward_alloc across producers ---- */

static int
test_shared_rcvbuf(void)
{
	struct ust_stack *stk[NSTK];
	struct ust_sock_meminfo mi;
	struct flow f[NSTK];
	struct sums sm;
	uint32_t allow = 0;
	unsigned int got;
	int sd, p, v = 5000, mode;

	/* rcvbuf 10000: four datagrams of 2304 fit (9216), a fifth not */
	UT_EQ(stacks_create(stk, tweak_exact), 0);
	sd = ut_udp_bound(stk[0], PORT);
	UT_ASSERT(sd >= 0);
	UT_EQ(ust_setsockopt(stk[0], sd, SOL_SOCKET, SO_RCVBUFFORCE, &v,
			     sizeof(v)), 0);
	for (p = 1; p < NSTK; p++)
		UT_EQ(ust_socket_attach(stk[p], stk[0], sd), 0);
	memset(f, 0, sizeof(f));
	for (p = 1; p < NSTK; p++) {
		struct rte_mbuf *b[3];
		int j;

		for (j = 0; j < 3; j++)
			b[j] = dg_frame(pool, (unsigned int)p, f[p].sent++);
		ust_stack_input(stk[p], b, 3, 0);
		UT_EQ(ut_udp_check(stk[0], &sd, 1, TMAX, &allow, 0,
				   (uint64_t)p), 0);
	}
	UT_EQ(meminfo(stk[0], sd, &mi), 0);
	UT_EQ(mi.rcvbuf, 10000);
	UT_EQ(mi.rmem_alloc, 4 * 2304);
	UT_EQ(mi.queued, 4);
	UT_EQ(mi.rcvbuf_drops, 5);
	UT_EQ(count_check(stk, f, NSTK, &mi, &sm), 0);
	{
		struct ust_stats st;

		ust_stack_stats_get(stk[1], &st);
		UT_EQ(st.mib[UST_MIB_UDP_INDATAGRAMS], 3);
		UT_EQ(st.mib[UST_MIB_UDP_RCVBUFERRORS], 0);
		ust_stack_stats_get(stk[2], &st);
		UT_EQ(st.mib[UST_MIB_UDP_INDATAGRAMS], 1);
		UT_EQ(st.mib[UST_MIB_UDP_RCVBUFERRORS], 2);
		ust_stack_stats_get(stk[3], &st);
		UT_EQ(st.mib[UST_MIB_UDP_INDATAGRAMS], 0);
		UT_EQ(st.mib[UST_MIB_UDP_RCVBUFERRORS], 3);
	}
	/* stack 1's three in order, then stack 2's first */
	UT_EQ(read_some(stk[0], sd, 10, false, f, &got), 0);
	UT_EQ(got, 4);
	UT_EQ(f[1].delivered, 3);
	UT_EQ(f[2].delivered, 1);
	UT_EQ(meminfo(stk[0], sd, &mi), 0);
	UT_EQ(mi.rmem_alloc, 0);
	UT_EQ(count_check(stk, f, NSTK, &mi, &sm), 0);
	UT_EQ(ust_close(stk[0], sd), 0);
	UT_EQ(ust_mem_pool_pages(ust_stack_udp_mem(stk[0])), 0);

	/* the socket's forward_alloc serves every producer: stack 1 leaves
	 * 1792 bytes after a 2304-byte datagram, stack 2's 9728-byte one then
	 * charges the missing delta, 2 pages (legacy: 3, the whole of it) */
	for (mode = 0; mode < 2; mode++) {
		struct rte_mbuf *m;

		ust_mem_pool_set_schedule(ust_stack_udp_mem(stk[0]), mode ?
			UST_MEM_SCHEDULE_LEGACY : UST_MEM_SCHEDULE_DELTA);
		sd = ut_udp_bound(stk[0], PORT);
		UT_ASSERT(sd >= 0);
		UT_EQ(ust_socket_attach(stk[1], stk[0], sd), 0);
		UT_EQ(ust_socket_attach(stk[2], stk[0], sd), 0);
		m = dg_frame(pool, 1, f[1].sent++);
		ust_stack_input(stk[1], &m, 1, 0);
		UT_EQ(meminfo(stk[0], sd, &mi), 0);
		UT_EQ(mi.forward_alloc, 4096 - 2304);
		m = dg_frame(jumbo, 2, f[2].sent++);
		ust_stack_input(stk[2], &m, 1, 0);
		UT_EQ(meminfo(stk[0], sd, &mi), 0);
		UT_EQ(mi.rmem_alloc, 2304 + TMAX);
		UT_EQ(mi.forward_alloc, mode ? 1792 + 3 * 4096 - (int)TMAX :
		      1792 + 2 * 4096 - (int)TMAX);
		UT_EQ(ust_mem_pool_pages(ust_stack_udp_mem(stk[0])),
		      mode ? 4 : 3);
		allow = 0;
		UT_EQ(ut_udp_check(stk[0], &sd, 1, TMAX, &allow, 0, 100), 0);
		for (p = 1; p < NSTK; p++)
			UT_EQ(ust_mem_pool_pages(ust_stack_udp_mem(stk[p])), 0);
		UT_EQ(read_some(stk[0], sd, 10, true, f, &got), 0);
		UT_EQ(got, 2);
		UT_EQ(ust_close(stk[0], sd), 0);
		UT_EQ(ust_mem_pool_pages(ust_stack_udp_mem(stk[0])), 0);
	}
	UT_EQ(count_check(stk, f, NSTK, NULL, &sm), 0);
	for (p = 0; p < NSTK; p++)
		ust_stack_destroy(stk[p]);
	return leak_check_all();
}

/* ---- seeded random steps ---- */

enum teardown {
	TEARDOWN_CLOSE,          /* close on the owner, owner destroyed first */
	TEARDOWN_PRODUCERS,      /* producers destroyed first */
	TEARDOWN_OWNER,          /* owner destroyed with the socket attached */
};

static uint64_t total_rcvbuf, total_mem;

static int
shared_run(uint64_t seed, uint64_t steps, int ab, enum teardown td)
{
	struct ust_stack *stk[NSTK];
	struct ust_sock_meminfo mi;
	struct flow f[NSTK];
	bool attached[NSTK];
	struct sums sm;
	struct ust_mem_pool *mp;
	uint64_t s = (seed * 0x9E3779B97F4A7C15ull) | 1, step, close_drops;
	uint32_t allow = 0;
	int sd, p;

	printf("  run: seed %" PRIu64 ", %" PRIu64 " steps, %s, %s, "
	       "teardown %d\n", seed, steps,
	       ab == 4 ? "switches flipped" : ab & 1 ? "legacy" : "delta",
	       ab == 4 ? "" : ab & 2 ? "unbatched" : "batched", (int)td);
	UT_EQ(stacks_create(stk, tweak_exact), 0);
	mp = ust_stack_udp_mem(stk[0]);
	if (ab != 4) {
		ust_mem_pool_set_schedule(mp, ab & 1 ? UST_MEM_SCHEDULE_LEGACY :
					  UST_MEM_SCHEDULE_DELTA);
		ust_mem_pool_set_release(mp, ab & 2 ?
					 UST_MEM_RELEASE_UNBATCHED :
					 UST_MEM_RELEASE_BATCHED);
	}
	sd = ut_udp_bound(stk[0], PORT);
	UT_ASSERT(sd >= 0);
	memset(f, 0, sizeof(f));
	attached[0] = true;
	for (p = 1; p < NSTK; p++) {
		UT_EQ(ust_socket_attach(stk[p], stk[0], sd), 0);
		attached[p] = true;
	}
	for (step = 0; step < steps; step++) {
		uint64_t r = ut_rand(&s);
		unsigned int op = (unsigned int)((r >> 8) % 100);

		if (step == steps / 2) {
			/* one producer leaves halfway */
			int d = 1 + (int)((r >> 40) % (NSTK - 1));

			UT_EQ(ust_socket_detach(stk[d], stk[0], sd), 0);
			attached[d] = false;
		}
		if (op < 45) {
			/* a burst of random sizes to one stack */
			struct rte_mbuf *b[32];
			unsigned int n = 1 + (unsigned int)((r >> 16) % 32), j;

			p = (int)(r % NSTK);
			for (j = 0; j < n; j++) {
				uint64_t q = ut_rand(&s);

				b[j] = dg_frame(q % 8 ? pool : jumbo,
						(unsigned int)p, f[p].sent++);
				UT_ASSERT(b[j] != NULL);
				if (!attached[p])
					f[p].sent_detached++;
			}
			ust_stack_input(stk[p], b, (uint16_t)n, 0);
		} else if (op < 80) {
			unsigned int got;

			UT_EQ(read_some(stk[0], sd,
					1 + (unsigned int)((r >> 16) % 40),
					(r >> 24) & 1, f, &got), 0);
		} else if (op < 88) {
			int v = (int)(1 + (r >> 16) % 100000), rb;
			int name = (r >> 40) & 1 ? SO_RCVBUFFORCE : SO_RCVBUF;
			socklen_t l = sizeof(rb);

			UT_EQ(meminfo(stk[0], sd, &mi), 0);
			UT_EQ(ust_setsockopt(stk[0], sd, SOL_SOCKET, name, &v,
					     sizeof(v)), 0);
			UT_EQ(ust_getsockopt(stk[0], sd, SOL_SOCKET, SO_RCVBUF,
					     &rb, &l), 0);
			allow = RTE_MAX(mi.rmem_alloc, (uint32_t)rb + TMAX);
		} else if (op < 91 && ab == 4) {
			ust_mem_pool_set_schedule(mp, (r >> 16) & 1 ?
				UST_MEM_SCHEDULE_LEGACY :
				UST_MEM_SCHEDULE_DELTA);
		} else if (op < 94 && ab == 4) {
			ust_mem_pool_set_release(mp, (r >> 16) & 1 ?
				UST_MEM_RELEASE_UNBATCHED :
				UST_MEM_RELEASE_BATCHED);
		} else if (op < 97) {
			uint64_t lim[3];

			lim[0] = 8 + (r >> 16) % 200;
			lim[1] = lim[0] + (r >> 24) % 50;
			lim[2] = lim[1] + (r >> 32) % 100;
			ust_mem_pool_set_limits(mp, lim);
		}
		/* the model, on the owner's pool; the producers charge
		 * nothing to their own */
		if (ut_udp_check(stk[0], &sd, 1, TMAX, &allow, seed, step) != 0)
			return -1;
		for (p = 1; p < NSTK; p++)
			UT_EQ(ust_mem_pool_pages(ust_stack_udp_mem(stk[p])), 0);
		UT_EQ(meminfo(stk[0], sd, &mi), 0);
		if (count_check(stk, f, NSTK, &mi, &sm) != 0) {
			fprintf(stderr, "  seed %" PRIu64 " step %" PRIu64 "\n",
				seed, step);
			return -1;
		}
	}
	printf("  %" PRIu64 " queued, %" PRIu64 " read, drops: rcvbuf %"
	       PRIu64 " mem %" PRIu64 " noport %" PRIu64 ", still queued %u\n",
	       sm.in, sm.delivered, sm.rcvbuf, sm.mem, sm.noport, mi.queued);
	total_rcvbuf += sm.rcvbuf;
	total_mem += sm.mem;
	UT_ASSERT(sm.noport > 0, "the detached producer got no datagram");

	close_drops = mi.queued;
	switch (td) {
	case TEARDOWN_CLOSE: {
		struct ust_stats st;
		struct rte_mbuf *m;
		int own;

		UT_EQ(ust_close(stk[0], sd), 0);
		ust_stack_stats_get(stk[0], &st);
		UT_EQ(st.drop[UST_DROP_SOCKET_CLOSE], close_drops);
		UT_EQ(ust_mem_pool_pages(mp), 0);
		/* gone from every producer's table: no port there now, and
		 * the port is free to bind */
		for (p = 1; p < NSTK; p++) {
			m = dg_frame(pool, (unsigned int)p, f[p].sent++);
			f[p].sent_detached++;
			ust_stack_input(stk[p], &m, 1, 0);
		}
		UT_EQ(count_check(stk, f, NSTK, NULL, &sm), 0);
		own = ut_udp_bound(stk[1], PORT);
		UT_ASSERT(own >= 0);
		UT_EQ(sm.in, sm.delivered + close_drops);
		for (p = 0; p < NSTK; p++)
			ust_stack_destroy(stk[p]);
		break;
	}
	case TEARDOWN_PRODUCERS: {
		struct ust_stats st;
		unsigned int got;

		UT_EQ(count_check(stk, f, NSTK, &mi, &sm), 0);
		for (p = NSTK - 1; p >= 1; p--) {
			ust_stack_destroy(stk[p]);
			stk[p] = NULL;
		}
		/* what they queued is still there, accounted, readable */
		UT_EQ(ut_udp_check(stk[0], &sd, 1, TMAX, &allow, seed, steps),
		      0);
		do {
			UT_EQ(read_some(stk[0], sd, 32, true, f, &got), 0);
		} while (got > 0);
		UT_EQ(meminfo(stk[0], sd, &mi), 0);
		UT_EQ(mi.queued, 0);
		UT_EQ(mi.rmem_alloc, 0);
		UT_EQ(mi.enqueued, sm.in);
		UT_EQ(mi.delivered, sm.in);
		UT_EQ(ust_close(stk[0], sd), 0);
		ust_stack_stats_get(stk[0], &st);
		UT_EQ(st.drop[UST_DROP_SOCKET_CLOSE], 0);
		UT_EQ(ust_mem_pool_pages(mp), 0);
		ust_stack_destroy(stk[0]);
		break;
	}
	case TEARDOWN_OWNER: {
		struct rte_mbuf *m;

		UT_EQ(count_check(stk, f, NSTK, &mi, &sm), 0);
		UT_EQ(sm.in, sm.delivered + close_drops);
		/* the owner's table closes the socket (SOCKET_CLOSE) and takes
		 * it out of the producers' tables */
		ust_stack_destroy(stk[0]);
		stk[0] = NULL;
		for (p = 1; p < NSTK; p++) {
			m = dg_frame(pool, (unsigned int)p, f[p].sent++);
			f[p].sent_detached++;
			ust_stack_input(stk[p], &m, 1, 0);
		}
		UT_EQ(count_check(stk, f, NSTK, NULL, &sm), 0);
		for (p = 1; p < NSTK; p++)
			ust_stack_destroy(stk[p]);
		break;
	}
	}
	return leak_check_all();
}

static int
test_shared_random(void)
{
	const char *se = getenv("UT_SEED"), *st = getenv("UT_STEPS");
	uint64_t seed = se != NULL ? strtoull(se, NULL, 0) : 20261207;
	uint64_t steps = st != NULL ? strtoull(st, NULL, 0) : 6000;
	int ab;

	total_rcvbuf = 0;
	total_mem = 0;
	printf("  seed %" PRIu64 " (UT_SEED), %" PRIu64 " steps a run "
	       "(UT_STEPS)\n", seed, steps);
	/* the four schedule x release settings, then both flipped at random;
	 * the three teardowns in turn */
	for (ab = 0; ab < 5; ab++)
		if (shared_run(seed + (uint64_t)ab, steps, ab,
			       (enum teardown)(ab % 3)) != 0)
			return -1;
	UT_ASSERT(total_rcvbuf > 0 && total_mem > 0,
		  "rcvbuf drops %" PRIu64 ", mem drops %" PRIu64, total_rcvbuf,
		  total_mem);
	return 0;
}

/* ---- two producer lcores, one reader ---- */

#define MT_DGRAMS 30000u
#define MT_SLOW_US 200u

struct mt_prod {
	struct ust_stack *stk;
	struct ut_netif *nif;
	unsigned int p;
	uint32_t sent;
	int rc;
};

static int
mt_create(void *arg)
{
	struct mt_prod *pr = arg;

	pr->stk = ut_stack_create(pr->nif, pool, tweak_lcore);
	return pr->stk != NULL ? 0 : -1;
}

static int
mt_produce(void *arg)
{
	struct mt_prod *pr = arg;

	while (pr->sent < MT_DGRAMS) {
		struct rte_mbuf *b[32];
		uint16_t n = 0;

		while (n < 32 && pr->sent < MT_DGRAMS) {
			b[n] = dg_frame(pool, pr->p, pr->sent);
			if (b[n] == NULL)
				break; /* the queue holds the pool: retry */
			pr->sent++;
			n++;
		}
		if (n > 0)
			ust_stack_input(pr->stk, b, n, 0);
	}
	return 0;
}

static int
mt_run(enum ust_mem_schedule sch, enum ust_mem_release rel,
       unsigned int delay_us)
{
	struct ust_stack *stk[3] = { NULL, NULL, NULL };
	struct mt_prod pr[3];
	struct ust_sock_meminfo mi;
	struct flow f[NSTK];
	struct sums sm;
	unsigned int lc[3], i, rounds = 0, got;
	uint32_t allow = 0;
	uint64_t checks = 0;
	int sd;

	lc[0] = rte_get_main_lcore();
	lc[1] = rte_get_next_lcore(lc[0], 1, 0);
	lc[2] = rte_get_next_lcore(lc[1], 1, 0);
	UT_ASSERT(lc[2] < RTE_MAX_LCORE, "needs two worker lcores");
	ut_netif_init(&nifs[0], 0);
	stk[0] = ut_stack_create(&nifs[0], pool, tweak_lcore);
	UT_ASSERT(stk[0] != NULL);
	/* each producer stack made on its own lcore */
	memset(pr, 0, sizeof(pr));
	for (i = 1; i < 3; i++) {
		ut_netif_init(&nifs[i], 0);
		pr[i].nif = &nifs[i];
		pr[i].p = i;
		UT_EQ(rte_eal_remote_launch(mt_create, &pr[i], lc[i]), 0);
		UT_EQ(rte_eal_wait_lcore(lc[i]), 0);
		stk[i] = pr[i].stk;
	}
	ust_mem_pool_set_schedule(ust_stack_udp_mem(stk[0]), sch);
	ust_mem_pool_set_release(ust_stack_udp_mem(stk[0]), rel);
	sd = ut_udp_bound(stk[0], PORT);
	UT_ASSERT(sd >= 0);
	/* set-up: nothing polls yet */
	UT_EQ(ust_socket_attach(stk[1], stk[0], sd), 0);
	UT_EQ(ust_socket_attach(stk[2], stk[0], sd), 0);
	memset(f, 0, sizeof(f));
	f[1].sent = MT_DGRAMS; /* upper bounds while they run */
	f[2].sent = MT_DGRAMS;
	for (i = 1; i < 3; i++)
		UT_EQ(rte_eal_remote_launch(mt_produce, &pr[i], lc[i]), 0);
	/* the reader, on the owner's lcore */
	for (;;) {
		bool running = rte_eal_get_lcore_state(lc[1]) != WAIT ||
			       rte_eal_get_lcore_state(lc[2]) != WAIT;

		UT_EQ(read_some(stk[0], sd, 32, true, f, &got), 0);
		if (got == 0 && !running)
			break;
		if (got > 0 && delay_us != 0)
			rte_delay_us_block(delay_us);
		/* while they produce: the socket's invariants, walked under
		 * its lock (the producers' pools charge through their lcore
		 * reserves: the pool's sum is checked at the end) */
		if (++rounds % 64 == 0) {
			UT_EQ(meminfo(stk[0], sd, &mi), 0);
			UT_ASSERT(mi.rmem_alloc == mi.queued_truesize +
				  mi.forward_deficit, "rmem %u queued %u "
				  "deficit %u", mi.rmem_alloc,
				  mi.queued_truesize, mi.forward_deficit);
			UT_ASSERT(mi.forward_alloc >= 0);
			UT_ASSERT(mi.rmem_alloc <= mi.rcvbuf + 2304,
				  "rmem %u rcvbuf %u", mi.rmem_alloc,
				  mi.rcvbuf);
			checks++;
		}
	}
	for (i = 1; i < 3; i++) {
		UT_EQ(rte_eal_wait_lcore(lc[i]), 0);
		UT_EQ(pr[i].sent, MT_DGRAMS);
	}
	UT_EQ(meminfo(stk[0], sd, &mi), 0);
	UT_EQ(ut_udp_check(stk[0], &sd, 1, TMAX, &allow, 0, 0), 0);
	UT_EQ(mi.queued, 0);
	UT_EQ(count_check(stk, f, 3, &mi, &sm), 0);
	UT_EQ(sm.in, sm.delivered);
	UT_EQ(sm.in + sm.rcvbuf + sm.mem, 2 * MT_DGRAMS);
	printf("  %s %s%s: delivered %" PRIu64 " (stack 1 %" PRIu64
	       ", stack 2 %" PRIu64 "), drops rcvbuf %" PRIu64 " mem %" PRIu64
	       ", splices %" PRIu64 ", releases %" PRIu64 ", %" PRIu64
	       " checks while running\n",
	       sch == UST_MEM_SCHEDULE_DELTA ? "delta" : "legacy",
	       rel == UST_MEM_RELEASE_BATCHED ? "batched" : "unbatched",
	       delay_us ? " (slow reader)" : "", sm.delivered, f[1].delivered,
	       f[2].delivered, sm.rcvbuf, sm.mem, mi.splices, mi.releases,
	       checks);
	if (delay_us != 0)
		UT_ASSERT(sm.rcvbuf > 0, "a slow reader must overflow");
	/* teardown, nothing polls: detach one, close with the other */
	UT_EQ(ust_socket_detach(stk[2], stk[0], sd), 0);
	UT_EQ(ust_close(stk[0], sd), 0);
	for (i = 0; i < 3; i++)
		UT_EQ(ust_mem_pool_pages(ust_stack_udp_mem(stk[i])), 0);
	for (i = 0; i < 3; i++)
		ust_stack_destroy(stk[i]);
	return leak_check_all();
}

static int
test_shared_mt_batched_slow(void)
{
	return mt_run(UST_MEM_SCHEDULE_DELTA, UST_MEM_RELEASE_BATCHED,
		      MT_SLOW_US);
}

static int
test_shared_mt_unbatched(void)
{
	return mt_run(UST_MEM_SCHEDULE_LEGACY, UST_MEM_RELEASE_UNBATCHED, 0);
}

static int
test_shared_mt_batched(void)
{
	return mt_run(UST_MEM_SCHEDULE_DELTA, UST_MEM_RELEASE_BATCHED, 0);
}

static const struct ut_case cases[] = {
	{ "attach_errors", test_attach_errors },
	{ "shared_rcvbuf", test_shared_rcvbuf },
	{ "shared_random", test_shared_random },
	{ "shared_mt_batched", test_shared_mt_batched },
	{ "shared_mt_batched_slow", test_shared_mt_batched_slow },
	{ "shared_mt_unbatched", test_shared_mt_unbatched },
};

int
main(int argc, char **argv)
{
	(void)argc;
	/* three lcores on whatever CPUs there are (two here): the main
	 * lcore reads, lcores 1 and 2 produce */
	if (ut_eal_init(argv[0], "0@0,1@1,2@0") != 0)
		return 1;
	pool = ut_pool("ut_shared", 8192);
	jumbo = rte_pktmbuf_pool_create("ut_shared_j", 1024, 0, 0, 9600,
					SOCKET_ID_ANY);
	if (pool == NULL || jumbo == NULL)
		return 1;
	return UT_RUN(cases);
}
