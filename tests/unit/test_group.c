/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Sibling stacks (lib/group) in one process, no port: a group of NS stacks
 * behind a software RSS wire (Toeplitz over the 4-tuple with a symmetric
 * key, a RETA; frames that are not TCP or UDP to queue 0, as NICs send
 * them), and a peer stack on the other end of the wire. A fake clock; every
 * stack polled in turn on the main lcore (their lcores exist, mapped onto
 * the same CPUs); one case runs the stacks on their own lcores.
 *
 * Checked: connections to a listener on every stack spread over the stacks
 * and are served byte-exact; the peer's ARP request, answered by one stack,
 * teaches all of them (no stack asks itself); active opens from every stack
 * land on their own stack with port steering (no handoff) and reach it
 * through handoffs without (still byte-exact); connected UDP the same;
 * over IPv6 (which the hash leaves out: the wire sends it to queue 0, as a
 * NIC does what it does not hash) active opens and connected UDP from
 * every stack reach their owner by the port's slice, or round the
 * siblings with port steering; each stack's conservation of frames; every
 * mbuf back in the pool.
 */

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "ust_group.h"
#include "ust_socket.h"
#include "ut.h"
#include "ut_netif.h"

#define NS 3                 /* stacks in the group */
#define QMAX 16384
#define STEP_NS 100000ull    /* 100 us a round */
#define SRV_PORT 7000
#define PEER_PORT 9000
#define UDP_PORT 9001

static struct rte_mempool *pool;
static uint64_t now;

/* ---- the wire: peer <-> NS queues, spread by a software RSS ---- */

struct fifo {
	struct rte_mbuf *m[QMAX];
	unsigned int head, tail;   /* head - tail frames queued */
};

static struct fifo q_grp[NS]; /* the group's RX queues */
static struct fifo q_peer;    /* the peer's RX */
static struct ust_rss wire_rss;
static uint64_t wire_drops;
/* the peer's TCP segments go to the next queue instead: what a kernel peer
 * behind a multi-queue TAP does when it rehashes a flow after an RTO */
static bool wire_moved;

struct end {
	bool peer;
	uint16_t queue;
};

static struct end ends[NS + 1];

static void
fifo_push(struct fifo *f, struct rte_mbuf *m)
{
	if (f->head - f->tail >= QMAX) {
		wire_drops++;
		rte_pktmbuf_free(m);
		return;
	}
	f->m[f->head++ % QMAX] = m;
}

static uint16_t
fifo_pop(struct fifo *f, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t k = 0;

	while (k < n && f->tail != f->head)
		pkts[k++] = f->m[f->tail++ % QMAX];
	return k;
}

static void
fifo_free(struct fifo *f)
{
	while (f->tail != f->head)
		rte_pktmbuf_free(f->m[f->tail++ % QMAX]);
	f->head = f->tail = 0;
}

/* the queue a NIC with wire_rss gives a frame */
static uint16_t
wire_queue(struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eh;
	const struct rte_ipv4_hdr *ih;
	const uint8_t *l4;
	rte_be16_t sp = 0, dp = 0;
	uint16_t q;

	eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	if (eh->ether_type != RTE_BE16(RTE_ETHER_TYPE_IPV4))
		return 0;
	ih = (const struct rte_ipv4_hdr *)(eh + 1);
	l4 = (const uint8_t *)ih + (ih->version_ihl & 0xf) * 4;
	if (ih->next_proto_id == IPPROTO_TCP ||
	    ih->next_proto_id == IPPROTO_UDP) {
		memcpy(&sp, l4, 2);
		memcpy(&dp, l4 + 2, 2);
	}
	q = ust_rss_queue(&wire_rss, ust_rss_hash(&wire_rss, ih->src_addr,
						  ih->dst_addr, sp, dp));
	if (wire_moved && ih->next_proto_id == IPPROTO_TCP)
		q = (uint16_t)((q + 1) % NS);
	return q;
}

static uint16_t
end_rx(void *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	struct end *e = ctx;

	return fifo_pop(e->peer ? &q_peer : &q_grp[e->queue], pkts, n);
}

static uint16_t
end_tx(void *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	struct end *e = ctx;
	uint16_t i;

	for (i = 0; i < n; i++) {
		if (e->peer)
			fifo_push(&q_grp[wire_queue(pkts[i])], pkts[i]);
		else
			fifo_push(&q_peer, pkts[i]);
	}
	return n;
}

static const struct ust_netif_ops end_ops = {
	.rx_burst = end_rx,
	.tx_burst = end_tx,
};

static void
wire_init(void)
{
	unsigned int i;

	memset(&wire_rss, 0, sizeof(wire_rss));
	wire_rss.kind = UST_RSS_TOEPLITZ;
	wire_rss.key_len = 40;
	for (i = 0; i < 40; i += 2) {
		wire_rss.key[i] = 0x6d;
		wire_rss.key[i + 1] = 0x5a;
	}
	wire_rss.reta_size = 128;
	wire_moved = false;
	wire_rss.nb_queues = NS;
	wire_rss.hf = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_TCP |
		RTE_ETH_RSS_NONFRAG_IPV4_UDP;
	for (i = 0; i < wire_rss.reta_size; i++)
		wire_rss.reta[i] = (uint16_t)(i % NS);
	wire_drops = 0;
}

/* ---- the setting: a group and a peer ---- */

static const struct rte_ether_addr grp_mac = {
	{ 0x02, 0x00, 0x00, 0x00, 0x00, 0x02 } };
static const struct rte_ether_addr peer_mac = {
	{ 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 } };

static struct ust_group *grp;
static struct ust_stack *peer;
static bool small_range;        /* 1024 ephemeral ports, not 28232 */
static bool with_ip6;           /* IPv6 too: 2001:2::2 (the group's), ::1 */

/* RFC 5180's benchmarking range */
static const uint8_t grp_ip6[16] = { 0x20, 0x01, 0, 2, [15] = 2 };
static const uint8_t peer_ip6[16] = { 0x20, 0x01, 0, 2, [15] = 1 };

static void
ip6_on(struct ust_ip6_conf *c, const uint8_t *addr)
{
	c->enable = true;
	memcpy(c->addr, addr, 16);
	c->prefix_len = 64;
	c->dad_transmits = 0;
	c->accept_ra = false;
}

static void
netif_of(struct ust_netif *n, struct end *e, const struct rte_ether_addr *mac,
	 uint16_t queue)
{
	memset(n, 0, sizeof(*n));
	n->ops = &end_ops;
	n->ctx = e;
	n->mac = *mac;
	n->mtu = 1500;
	n->port_id = 0;
	n->queue_id = queue;
}

/* The group and the peer destroyed, the wire's frames freed. */
static void
wire_clear(void)
{
	unsigned int i;

	if (grp != NULL)
		ust_group_destroy(grp);
	if (peer != NULL)
		ust_stack_destroy(peer);
	grp = NULL;
	peer = NULL;
	for (i = 0; i < NS; i++)
		fifo_free(&q_grp[i]);
	fifo_free(&q_peer);
}

/* @steer: the group knows the wire's hash (else it cannot predict it) */
static int
setting_up(bool steer)
{
	struct ust_group_conf gc;
	struct ust_stack_conf pc;
	unsigned int i, lc;

	/* a failed case returns before setting_down(): clear what it left,
	 * so that one failure is reported once, not by every later case */
	wire_clear();
	wire_init();
	ust_group_conf_defaults(&gc);
	gc.name = "grp";
	gc.nb_stacks = NS;
	lc = rte_get_main_lcore();
	for (i = 0; i < NS; i++) {
		ends[i].peer = false;
		ends[i].queue = (uint16_t)i;
		gc.lcores[i] = lc;
		lc = rte_get_next_lcore(lc, 0, 0);
		netif_of(&gc.netifs[i], &ends[i], &grp_mac, (uint16_t)i);
	}
	gc.stack.pool = pool;
	gc.stack.addr = UT_OUR_IP;
	gc.stack.prefix_len = 24;
	gc.stack.now_ns = now;
	gc.stack.tcp.time_wait_ms = 1000;
	if (small_range) {
		gc.stack.ephemeral_lo = 40000;
		gc.stack.ephemeral_hi = 41023;
	}
	if (steer)
		gc.rss = wire_rss;
	if (with_ip6)
		ip6_on(&gc.stack.ip6, grp_ip6);
	grp = ust_group_create(&gc);
	UT_ASSERT(grp != NULL, "ust_group_create: %s",
		  rte_strerror(rte_errno));
	ust_stack_conf_defaults(&pc);
	pc.name = "peer";
	ends[NS].peer = true;
	netif_of(&pc.netif, &ends[NS], &peer_mac, 0);
	pc.netif.port_id = UINT16_MAX;
	pc.pool = pool;
	pc.addr = UT_PEER_IP;
	pc.prefix_len = 24;
	pc.now_ns = now;
	pc.tcp.time_wait_ms = 1000;
	if (with_ip6)
		ip6_on(&pc.ip6, peer_ip6);
	peer = ust_stack_create(&pc);
	UT_ASSERT(peer != NULL);
	return 0;
}

static void
round_trip(void)
{
	uint16_t i;

	now += STEP_NS;
	ust_stack_poll(peer, now);
	for (i = 0; i < NS; i++)
		ust_stack_poll(ust_group_stack(grp, i), now);
}

static int
setting_down(void)
{
	uint16_t i;
	int rc = 0;

	/* let closes finish, then tear down */
	for (i = 0; i < 40; i++)
		round_trip();
	for (i = 0; i < NS; i++)
		if (ut_check_conservation(ust_group_stack(grp, i)) != 0)
			rc = -1;
	if (ut_check_conservation(peer) != 0)
		rc = -1;
	wire_clear();
	UT_EQ(wire_drops, 0);
	UT_ASSERT(ut_leak_check(pool) == 0);
	return rc;
}

static uint64_t
mib(struct ust_stack *stk, enum ust_mib c)
{
	struct ust_stats st;

	ust_stack_stats_get(stk, &st);
	return st.mib[c];
}

static uint64_t
group_mib(enum ust_mib c)
{
	struct ust_stats st;

	ust_group_stats_get(grp, &st);
	return st.mib[c];
}

static void
dump_one(const char *who, struct ust_stack *stk)
{
	struct ust_stats st;
	unsigned int i;

	ust_stack_stats_get(stk, &st);
	fprintf(stderr, "  %s:", who);
	for (i = 0; i < UST_MIB_MAX; i++)
		if (st.mib[i] != 0)
			fprintf(stderr, " %s.%s=%" PRIu64, ust_mib_group(i),
				ust_mib_name(i), st.mib[i]);
	fprintf(stderr, "\n  %s drops:", who);
	for (i = 0; i < UST_DROP_MAX; i++)
		if (st.drop[i] != 0)
			fprintf(stderr, " %s=%" PRIu64, ust_drop_name(i),
				st.drop[i]);
	fprintf(stderr, "\n");
}

/* every stack's counters, for a failure's report */
static void
dump_stats(void)
{
	uint16_t i;

	for (i = 0; i < NS; i++)
		dump_one(ust_stack_name(ust_group_stack(grp, i)),
			 ust_group_stack(grp, i));
	dump_one("peer", peer);
}

/* ---- streams ---- */

static inline uint8_t
pat(unsigned int id, uint64_t off)
{
	return (uint8_t)(off * 7 + id * 13 + (off >> 8));
}

struct flow {
	struct ust_stack *stk;  /* the side that writes and checks */
	int sd;
	unsigned int id;
	uint64_t sent, rcvd, total;
};

/* write what fits, read and check what came back */
static int
flow_step(struct flow *f)
{
	uint8_t buf[4096];
	ssize_t k;
	uint64_t i;

	while (f->sent < f->total) {
		size_t n = (size_t)RTE_MIN(f->total - f->sent,
					   (uint64_t)sizeof(buf));

		for (i = 0; i < n; i++)
			buf[i] = pat(f->id, f->sent + i);
		k = ust_send(f->stk, f->sd, buf, n, 0);
		if (k == -EAGAIN)
			break;
		UT_ASSERT(k > 0, "flow %u: send: %zd", f->id, k);
		f->sent += (uint64_t)k;
	}
	for (;;) {
		k = ust_recv(f->stk, f->sd, buf, sizeof(buf), 0);
		if (k == -EAGAIN)
			return 0;
		UT_ASSERT(k > 0, "flow %u: recv: %zd after %" PRIu64, f->id,
			  k, f->rcvd);
		for (i = 0; i < (uint64_t)k; i++)
			UT_ASSERT(buf[i] == pat(f->id, f->rcvd + i),
				  "flow %u: byte %" PRIu64 " wrong", f->id,
				  f->rcvd + i);
		f->rcvd += (uint64_t)k;
	}
}

/* echo what arrives on @sd back */
static int
echo_step(struct ust_stack *stk, int sd)
{
	uint8_t buf[4096];
	ssize_t k, w;

	for (;;) {
		k = ust_recv(stk, sd, buf, sizeof(buf), MSG_PEEK);
		if (k == -EAGAIN || k == 0)
			return 0;
		UT_ASSERT(k > 0, "echo: recv: %zd", k);
		w = ust_send(stk, sd, buf, (size_t)k, 0);
		if (w == -EAGAIN)
			return 0;
		UT_ASSERT(w > 0, "echo: send: %zd", w);
		UT_EQ(ust_recv(stk, sd, buf, (size_t)w, 0), w);
	}
}

#define MAX_CONNS 64

struct echo_srv {
	struct ust_stack *stk;
	int lsd;
	int sds[MAX_CONNS];
	unsigned int n;
};

static int
srv_listen(struct echo_srv *s, struct ust_stack *stk, uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = rte_cpu_to_be_16(port) };

	memset(s, 0, sizeof(*s));
	s->stk = stk;
	s->lsd = ust_socket(stk, AF_INET, SOCK_STREAM, 0);
	UT_ASSERT(s->lsd >= 0);
	UT_EQ(ust_bind(stk, s->lsd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	UT_EQ(ust_listen(stk, s->lsd, 128), 0);
	return 0;
}

static int
srv_step(struct echo_srv *s)
{
	unsigned int i;
	int sd;

	while (s->n < MAX_CONNS &&
	       (sd = ust_accept(s->stk, s->lsd, NULL, NULL)) >= 0)
		s->sds[s->n++] = sd;
	for (i = 0; i < s->n; i++)
		if (echo_step(s->stk, s->sds[i]) != 0)
			return -1;
	return 0;
}

static void
srv_close(struct echo_srv *s)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		ust_close(s->stk, s->sds[i]);
	ust_close(s->stk, s->lsd);
}

/* A connection to @ip:@port from source port @sport of the peer's address
 * (0: an ephemeral port of the stack's own), started. */
static int
connect_from(struct ust_stack *stk, rte_be32_t ip, uint16_t port,
	     uint16_t sport)
{
	struct sockaddr_in me = { .sin_family = AF_INET,
				  .sin_port = rte_cpu_to_be_16(sport),
				  .sin_addr.s_addr = UT_PEER_IP };
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = rte_cpu_to_be_16(port),
				   .sin_addr.s_addr = ip };
	int sd = ust_socket(stk, AF_INET, SOCK_STREAM, 0), one = 1;

	if (sd < 0)
		return sd;
	if (sport != 0 &&
	    ust_bind(stk, sd, (struct sockaddr *)&me, sizeof(me)) != 0)
		return -1;
	ust_setsockopt(stk, sd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (ust_connect(stk, sd, (struct sockaddr *)&sin, sizeof(sin)) !=
	    -EINPROGRESS)
		return -1;
	return sd;
}

static int
connect_to(struct ust_stack *stk, rte_be32_t ip, uint16_t port)
{
	return connect_from(stk, ip, port, 0);
}

/* connect_to() from a source port the wire's RSS sends to queue @q (the
 * next such port at or above *@sport, which moves past it), so that a test
 * that wants every stack to get flows does not leave that to the random
 * ephemeral ports: 12 random flows miss one of 3 queues 2% of the time */
static int
connect_to_queue(struct ust_stack *stk, rte_be32_t ip, uint16_t port,
		 uint16_t q, uint16_t *sport)
{
	while (ust_rss_queue(&wire_rss, ust_rss_hash(&wire_rss, UT_PEER_IP,
			     ip, rte_cpu_to_be_16(*sport),
			     rte_cpu_to_be_16(port))) != q)
		(*sport)++;
	return connect_from(stk, ip, port, (*sport)++);
}

/* run @flows (and the servers) until every flow got its bytes back */
static int
run_flows(struct flow *fl, unsigned int nf, struct echo_srv *srv,
	  unsigned int nsrv)
{
	unsigned int r, i, done = 0;

	for (r = 0; r < 200000 && done < nf; r++) {
		round_trip();
		for (i = 0; i < nsrv; i++)
			if (srv_step(&srv[i]) != 0)
				return -1;
		done = 0;
		for (i = 0; i < nf; i++) {
			if (flow_step(&fl[i]) != 0)
				return -1;
			done += fl[i].rcvd == fl[i].total;
		}
	}
	UT_EQ(done, nf);
	return 0;
}

/* ---- cases ---- */

/* The Microsoft RSS verification vector (the key every NIC ships) and
 * the symmetric key's symmetry. */
static int
test_hash(void)
{
	static const uint8_t ms_key[40] = {
		0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2,
		0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
		0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4,
		0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
		0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
	};
	struct ust_rss r;
	rte_be32_t a = RTE_BE32(UT_IPV4(66, 9, 149, 187));
	rte_be32_t b = RTE_BE32(UT_IPV4(161, 142, 100, 80));
	unsigned int i;

	memset(&r, 0, sizeof(r));
	r.key_len = 40;
	memcpy(r.key, ms_key, 40);
	/* source 66.9.149.187:2794, destination 161.142.100.80:1766 */
	UT_EQ(ust_rss_hash(&r, a, b, RTE_BE16(2794), RTE_BE16(1766)),
	      0x51ccc178);
	UT_EQ(ust_rss_hash(&r, a, b, 0, 0), 0x323e8fc2);
	wire_init();
	for (i = 0; i < 1000; i++) {
		rte_be32_t x = (rte_be32_t)rte_rand(), y = (rte_be32_t)rte_rand();
		rte_be16_t p = (rte_be16_t)rte_rand(), q = (rte_be16_t)rte_rand();

		UT_EQ(ust_rss_hash(&wire_rss, x, y, p, q),
		      ust_rss_hash(&wire_rss, y, x, q, p));
	}
	return 0;
}

/* Connections from the peer to a listener on every stack. */
static int
test_passive(void)
{
	struct echo_srv srv[NS];
	struct flow fl[24];
	unsigned int i;
	uint64_t total = 0;
	uint16_t sport = 20000;

	if (setting_up(true) != 0)
		return -1;
	for (i = 0; i < NS; i++)
		if (srv_listen(&srv[i], ust_group_stack(grp, (uint16_t)i),
			       SRV_PORT) != 0)
			return -1;
	for (i = 0; i < RTE_DIM(fl); i++) {
		fl[i].stk = peer;
		fl[i].id = i;
		fl[i].sent = fl[i].rcvd = 0;
		fl[i].total = 20000 + i * 777;
		fl[i].sd = connect_to_queue(peer, UT_OUR_IP, SRV_PORT,
					    (uint16_t)(i % NS), &sport);
		UT_ASSERT(fl[i].sd >= 0);
	}
	if (run_flows(fl, RTE_DIM(fl), srv, NS) != 0)
		return -1;
	for (i = 0; i < NS; i++) {
		struct ust_stack *s = ust_group_stack(grp, (uint16_t)i);

		/* every stack served some, and knew the peer without
		 * asking: stack 0 answered its request, the others learnt
		 * from the copies */
		UT_ASSERT(mib(s, UST_MIB_TCP_PASSIVEOPENS) > 0,
			  "stack %u accepted nothing", i);
		UT_EQ(srv[i].n, mib(s, UST_MIB_TCP_PASSIVEOPENS));
		total += srv[i].n;
		UT_EQ(mib(s, UST_MIB_ARP_OUTREQUESTS), 0);
		UT_EQ(ust_stack_arp_lookup(s, UT_PEER_IP, NULL), 0);
	}
	UT_EQ(total, RTE_DIM(fl));
	UT_EQ(mib(ust_group_stack(grp, 0), UST_MIB_ARP_OUTREPLIES), 1);
	UT_EQ(mib(ust_group_stack(grp, 0), UST_MIB_GROUP_ARPCOPIES), NS - 1);
	UT_EQ(mib(peer, UST_MIB_ARP_OUTREQUESTS), 1);
	/* the wire keeps a flow on one queue: nothing to hand over */
	UT_EQ(group_mib(UST_MIB_GROUP_HANDOFFOUT), 0);
	for (i = 0; i < RTE_DIM(fl); i++)
		ust_close(peer, fl[i].sd);
	for (i = 0; i < NS; i++)
		srv_close(&srv[i]);
	return setting_down();
}

/* The peer's connections move to another queue half way (a kernel peer
 * behind a multi-queue TAP rehashes a flow after an RTO): their segments
 * reach a stack that has a listener on the port but not the connection,
 * and go to the one that has it (@steer: the one the hash names; else
 * round the siblings); nothing is reset. */
static int
passive_moved(bool steer)
{
	struct echo_srv srv[NS];
	struct flow fl[12];
	unsigned int i, r;
	uint64_t min_rcvd = 0;

	if (setting_up(steer) != 0)
		return -1;
	for (i = 0; i < NS; i++)
		if (srv_listen(&srv[i], ust_group_stack(grp, (uint16_t)i),
			       SRV_PORT) != 0)
			return -1;
	for (i = 0; i < RTE_DIM(fl); i++) {
		fl[i].stk = peer;
		fl[i].id = i;
		fl[i].sent = fl[i].rcvd = 0;
		fl[i].total = 200000;
		fl[i].sd = connect_to(peer, UT_OUR_IP, SRV_PORT);
		UT_ASSERT(fl[i].sd >= 0);
	}
	/* established and some bytes echoed on every connection ... */
	for (r = 0; r < 100000 && min_rcvd < 20000; r++) {
		round_trip();
		min_rcvd = UINT64_MAX;
		for (i = 0; i < NS; i++)
			if (srv_step(&srv[i]) != 0)
				return -1;
		for (i = 0; i < RTE_DIM(fl); i++) {
			if (flow_step(&fl[i]) != 0)
				return -1;
			min_rcvd = RTE_MIN(min_rcvd, fl[i].rcvd);
		}
	}
	UT_ASSERT(min_rcvd >= 20000 && min_rcvd < 200000,
		  "%" PRIu64 " bytes back before the move", min_rcvd);
	UT_EQ(group_mib(UST_MIB_GROUP_HANDOFFOUT), 0);
	/* ... then every segment from the peer arrives one queue over */
	wire_moved = true;
	if (run_flows(fl, RTE_DIM(fl), srv, NS) != 0)
		return -1;
	printf("  %" PRIu64 " segments went round to their stack\n",
	       group_mib(UST_MIB_GROUP_HANDOFFOUT));
	UT_ASSERT(group_mib(UST_MIB_GROUP_HANDOFFOUT) > 0);
	UT_EQ(group_mib(UST_MIB_TCP_OUTRSTS), 0);
	UT_EQ(mib(peer, UST_MIB_TCP_ESTABRESETS), 0);
	for (i = 0; i < RTE_DIM(fl); i++)
		ust_close(peer, fl[i].sd);
	for (i = 0; i < NS; i++)
		srv_close(&srv[i]);
	/* the FINs go round too: every connection closes cleanly */
	for (r = 0; r < 100; r++)
		round_trip();
	UT_EQ(group_mib(UST_MIB_TCP_CURRESTAB), 0);
	UT_EQ(group_mib(UST_MIB_TCP_OUTRSTS), 0);
	return setting_down();
}

static int
test_passive_moved(void)
{
	return passive_moved(true);
}

static int
test_passive_moved_walk(void)
{
	return passive_moved(false);
}

/* Connections from every stack to the peer: @steer (the group knows the
 * hash) or not; @n_per stack. */
static int
active_opens(bool steer)
{
	struct echo_srv srv;
	struct flow fl[NS * 8];
	unsigned int i, nf = 0;
	uint64_t out, in;

	if (setting_up(steer) != 0)
		return -1;
	if (srv_listen(&srv, peer, PEER_PORT) != 0)
		return -1;
	for (i = 0; i < RTE_DIM(fl); i++) {
		struct ust_stack *s = ust_group_stack(grp, (uint16_t)(i % NS));
		struct sockaddr_in me;
		socklen_t len = sizeof(me);

		fl[nf].stk = s;
		fl[nf].id = i;
		fl[nf].sent = fl[nf].rcvd = 0;
		fl[nf].total = 30000 + i * 311;
		fl[nf].sd = connect_to(s, UT_PEER_IP, PEER_PORT);
		UT_ASSERT(fl[nf].sd >= 0);
		UT_EQ(ust_getsockname(s, fl[nf].sd, (struct sockaddr *)&me,
				      &len), 0);
		/* with the hash known, the reply's hash names the owner
		 * (ports from the whole range); without, the port's slice */
		if (steer) {
			UT_EQ(ust_group_rx_stack(grp, UT_OUR_IP, me.sin_port,
						 UT_PEER_IP,
						 RTE_BE16(PEER_PORT)),
			      i % NS);
			UT_EQ(ust_group_port_owner(grp, me.sin_port), -1);
		} else {
			UT_EQ(ust_group_port_owner(grp, me.sin_port), i % NS);
		}
		nf++;
	}
	if (run_flows(fl, nf, &srv, 1) != 0)
		return -1;
	out = group_mib(UST_MIB_GROUP_HANDOFFOUT);
	in = group_mib(UST_MIB_GROUP_HANDOFFIN);
	printf("  %s: %" PRIu64 " frames handed over\n",
	       steer ? "steered" : "not steered", out);
	/* what siblings read: the frames handed over and the ARP copies */
	UT_EQ(out + group_mib(UST_MIB_GROUP_ARPCOPIES), in);
	if (steer)
		UT_EQ(out, 0);
	else
		UT_ASSERT(out > 0, "nothing handed over without steering");
	UT_EQ(group_mib(UST_MIB_TCP_ACTIVEOPENS), nf);
	UT_EQ(group_mib(UST_MIB_TCP_OUTRSTS), 0);
	for (i = 0; i < nf; i++)
		ust_close(fl[i].stk, fl[i].sd);
	srv_close(&srv);
	return setting_down();
}

static int
test_active_steered(void)
{
	return active_opens(true);
}

/* Over IPv6: connections from every stack to the peer's [::] listener.
 * Every reply arrives on queue 0 (the hash leaves IPv6 out); the others'
 * go to their owner, by the port's slice or (@steer) round the siblings:
 * byte-exact, no reset. */
static int
active_opens6(bool steer)
{
	struct sockaddr_in6 any = { .sin6_family = AF_INET6,
				    .sin6_port = RTE_BE16(PEER_PORT) };
	struct sockaddr_in6 to = { .sin6_family = AF_INET6,
				   .sin6_port = RTE_BE16(PEER_PORT) };
	struct echo_srv srv;
	struct flow fl[NS * 4];
	unsigned int i;
	uint64_t out;
	int one = 1;

	with_ip6 = true;
	if (setting_up(steer) != 0)
		return -1;
	with_ip6 = false;
	memset(&srv, 0, sizeof(srv));
	srv.stk = peer;
	srv.lsd = ust_socket(peer, AF_INET6, SOCK_STREAM, 0);
	UT_ASSERT(srv.lsd >= 0);
	UT_EQ(ust_bind(peer, srv.lsd, (struct sockaddr *)&any, sizeof(any)),
	      0);
	UT_EQ(ust_listen(peer, srv.lsd, 128), 0);
	memcpy(to.sin6_addr.s6_addr, peer_ip6, 16);
	for (i = 0; i < RTE_DIM(fl); i++) {
		struct ust_stack *s = ust_group_stack(grp, (uint16_t)(i % NS));
		struct sockaddr_in6 me;
		socklen_t len = sizeof(me);

		fl[i].stk = s;
		fl[i].id = i;
		fl[i].sent = fl[i].rcvd = 0;
		fl[i].total = 20000 + i * 311;
		fl[i].sd = ust_socket(s, AF_INET6, SOCK_STREAM, 0);
		UT_ASSERT(fl[i].sd >= 0);
		ust_setsockopt(s, fl[i].sd, IPPROTO_TCP, TCP_NODELAY, &one,
			       sizeof(one));
		UT_EQ(ust_connect(s, fl[i].sd, (struct sockaddr *)&to,
				  sizeof(to)), -EINPROGRESS);
		UT_EQ(ust_getsockname(s, fl[i].sd, (struct sockaddr *)&me,
				      &len), 0);
		UT_EQ(me.sin6_family, AF_INET6);
		UT_EQ(memcmp(me.sin6_addr.s6_addr, grp_ip6, 16), 0);
		if (!steer)
			UT_EQ(ust_group_port_owner(grp, me.sin6_port),
			      i % NS);
	}
	if (run_flows(fl, RTE_DIM(fl), &srv, 1) != 0) {
		dump_stats();
		return -1;
	}
	out = group_mib(UST_MIB_GROUP_HANDOFFOUT);
	printf("  IPv6, %s: %" PRIu64 " frames handed over\n",
	       steer ? "port steering (round the siblings)" : "slices", out);
	UT_EQ(out + group_mib(UST_MIB_GROUP_ARPCOPIES),
	      group_mib(UST_MIB_GROUP_HANDOFFIN));
	/* the replies to stacks 1 and 2 all came to stack 0 first */
	UT_ASSERT(out > 0, "nothing handed over");
	UT_EQ(group_mib(UST_MIB_TCP_ACTIVEOPENS), RTE_DIM(fl));
	UT_EQ(group_mib(UST_MIB_TCP_OUTRSTS), 0);
	UT_EQ(mib(peer, UST_MIB_TCP_OUTRSTS), 0);
	for (i = 0; i < RTE_DIM(fl); i++)
		ust_close(fl[i].stk, fl[i].sd);
	srv_close(&srv);
	return setting_down();
}

static int
test_active6_sliced(void)
{
	return active_opens6(false);
}

static int
test_active6_steered(void)
{
	return active_opens6(true);
}

/* Connected UDP over IPv6 from every stack to the peer's echo: every
 * datagram back to its socket. */
static int
udp6_connected(bool steer)
{
	struct sockaddr_in6 to = { .sin6_family = AF_INET6,
				   .sin6_port = RTE_BE16(UDP_PORT) };
	struct sockaddr_in6 any = { .sin6_family = AF_INET6,
				    .sin6_port = RTE_BE16(UDP_PORT) };
	int sds[NS * 4], psd, one = 1;
	unsigned int i, r, got = 0, sent = 0;
	uint8_t buf[256];

	with_ip6 = true;
	if (setting_up(steer) != 0)
		return -1;
	with_ip6 = false;
	psd = ust_socket(peer, AF_INET6, SOCK_DGRAM, 0);
	UT_ASSERT(psd >= 0);
	UT_EQ(ust_bind(peer, psd, (struct sockaddr *)&any, sizeof(any)), 0);
	memcpy(to.sin6_addr.s6_addr, peer_ip6, 16);
	for (i = 0; i < RTE_DIM(sds); i++) {
		struct ust_stack *s = ust_group_stack(grp, (uint16_t)(i % NS));

		sds[i] = ust_socket(s, AF_INET6, SOCK_DGRAM, 0);
		UT_ASSERT(sds[i] >= 0);
		UT_EQ(ust_setsockopt(s, sds[i], UST_SOL_USTACK, UST_SO_SPLIT,
				     &one, sizeof(one)), 0);
		UT_EQ(ust_connect(s, sds[i], (struct sockaddr *)&to,
				  sizeof(to)), 0);
	}
	for (r = 0; r < 20; r++) {
		unsigned int k2;

		for (i = 0; i < RTE_DIM(sds); i++) {
			struct ust_stack *s =
				ust_group_stack(grp, (uint16_t)(i % NS));

			memset(buf, (int)(i + r), 100);
			if (ust_send(s, sds[i], buf, 100, 0) == 100)
				sent++;
		}
		for (k2 = 0; k2 < 4; k2++) {
			struct sockaddr_in6 from;
			socklen_t fl = sizeof(from);
			ssize_t k;

			round_trip();
			while ((k = ust_recvfrom(peer, psd, buf, sizeof(buf),
						 0, (struct sockaddr *)&from,
						 &fl)) > 0) {
				UT_EQ(ust_sendto(peer, psd, buf, (size_t)k, 0,
						 (struct sockaddr *)&from, fl),
				      k);
				fl = sizeof(from);
			}
		}
		for (k2 = 0; k2 < 4; k2++)
			round_trip();
		for (i = 0; i < RTE_DIM(sds); i++) {
			struct ust_stack *s =
				ust_group_stack(grp, (uint16_t)(i % NS));
			ssize_t k;

			while ((k = ust_recv(s, sds[i], buf, sizeof(buf),
					     0)) > 0) {
				UT_EQ(k, 100);
				UT_EQ(buf[0], (uint8_t)(i + r));
				got++;
			}
		}
	}
	if (got != sent)
		dump_stats();
	UT_EQ(sent, 20 * RTE_DIM(sds));
	UT_EQ(got, sent);
	UT_ASSERT(group_mib(UST_MIB_GROUP_HANDOFFOUT) > 0);
	UT_EQ(group_mib(UST_MIB_UDP6_NOPORTS), 0);
	for (i = 0; i < RTE_DIM(sds); i++)
		ust_close(ust_group_stack(grp, (uint16_t)(i % NS)), sds[i]);
	ust_close(peer, psd);
	return setting_down();
}

static int
test_udp6_sliced(void)
{
	return udp6_connected(false);
}

static int
test_udp6_steered(void)
{
	return udp6_connected(true);
}

static int
test_active_handoff(void)
{
	return active_opens(false);
}

/* Connected UDP sockets on every stack to the peer's echo: the same. */
static int
udp_connected(bool steer)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = RTE_BE16(UDP_PORT),
				   .sin_addr.s_addr = UT_PEER_IP };
	int sds[NS * 4], psd, one = 1;
	unsigned int i, r, got = 0, sent = 0, seen[NS * 4] = { 0 };
	uint8_t buf[256];

	if (setting_up(steer) != 0)
		return -1;
	psd = ut_udp_bound(peer, UDP_PORT);
	UT_ASSERT(psd >= 0);
	for (i = 0; i < RTE_DIM(sds); i++) {
		struct ust_stack *s = ust_group_stack(grp, (uint16_t)(i % NS));

		sds[i] = ust_socket(s, AF_INET, SOCK_DGRAM, 0);
		UT_ASSERT(sds[i] >= 0);
		/* this test reads every stack's sockets on the main lcore:
		 * off their stack's lcore, which a UDP socket allows when
		 * split */
		UT_EQ(ust_setsockopt(s, sds[i], UST_SOL_USTACK, UST_SO_SPLIT,
				     &one, sizeof(one)), 0);
		UT_EQ(ust_connect(s, sds[i], (struct sockaddr *)&sin,
				  sizeof(sin)), 0);
	}
	for (r = 0; r < 50; r++) {
		for (i = 0; i < RTE_DIM(sds); i++) {
			struct ust_stack *s =
				ust_group_stack(grp, (uint16_t)(i % NS));

			memset(buf, (int)(i + r), 100);
			if (ust_send(s, sds[i], buf, 100, 0) == 100)
				sent++;
		}
		round_trip();
		/* the peer echoes every datagram to its sender */
		for (;;) {
			struct sockaddr_in from;
			socklen_t fl = sizeof(from);
			ssize_t k = ust_recvfrom(peer, psd, buf, sizeof(buf), 0,
						 (struct sockaddr *)&from, &fl);

			if (k < 0)
				break;
			UT_EQ(ust_sendto(peer, psd, buf, (size_t)k, 0,
					 (struct sockaddr *)&from, fl), k);
		}
		round_trip();
		round_trip();
		for (i = 0; i < RTE_DIM(sds); i++) {
			struct ust_stack *s =
				ust_group_stack(grp, (uint16_t)(i % NS));
			ssize_t k;

			while ((k = ust_recv(s, sds[i], buf, sizeof(buf),
					     0)) > 0) {
				/* in order: the n-th back is round n's */
				UT_EQ(k, 100);
				UT_EQ(buf[0], (uint8_t)(i + seen[i]));
				seen[i]++;
				got++;
			}
		}
	}
	for (r = 0; r < 20; r++) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t k;

		while ((k = ust_recvfrom(peer, psd, buf, sizeof(buf), 0,
					 (struct sockaddr *)&from, &fl)) > 0)
			UT_EQ(ust_sendto(peer, psd, buf, (size_t)k, 0,
					 (struct sockaddr *)&from, fl), k);
		round_trip();
		for (i = 0; i < RTE_DIM(sds); i++) {
			struct ust_stack *s =
				ust_group_stack(grp, (uint16_t)(i % NS));
			ssize_t k2;

			while ((k2 = ust_recv(s, sds[i], buf, sizeof(buf),
					      0)) > 0) {
				UT_EQ(buf[0], (uint8_t)(i + seen[i]));
				seen[i]++;
				got++;
			}
		}
	}
	UT_EQ(sent, 50 * RTE_DIM(sds));
	if (got != sent) {
		dump_stats();
		for (i = 0; i < RTE_DIM(sds); i++)
			fprintf(stderr, "  socket %u: %u back\n", i, seen[i]);
	}
	UT_EQ(got, sent);
	if (steer)
		UT_EQ(group_mib(UST_MIB_GROUP_HANDOFFOUT), 0);
	else
		UT_ASSERT(group_mib(UST_MIB_GROUP_HANDOFFOUT) > 0);
	UT_EQ(group_mib(UST_MIB_UDP_NOPORTS), 0);
	for (i = 0; i < RTE_DIM(sds); i++)
		ust_close(ust_group_stack(grp, (uint16_t)(i % NS)), sds[i]);
	ust_close(peer, psd);
	return setting_down();
}

static int
test_udp_steered(void)
{
	return udp_connected(true);
}

static int
test_udp_handoff(void)
{
	return udp_connected(false);
}

/* ICMP errors about a flow of any stack: the peer answers every stack's
 * datagrams to a closed port with a port unreachable, which the wire
 * (hashing ICMP by its addresses alone) puts on one queue; each reaches the
 * stack of the socket it quotes, which reports ECONNREFUSED. @steer: the
 * group knows the hash (else the ports' slices name the stacks). */
static int
icmp_errors(bool steer)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = RTE_BE16(UDP_PORT + 2),
				  .sin_addr.s_addr = UT_PEER_IP };
	int sds[NS * 3], one = 1;
	unsigned int i, r;
	uint8_t buf[64];

	if (setting_up(steer) != 0)
		return -1;
	for (i = 0; i < RTE_DIM(sds); i++) {
		struct ust_stack *s = ust_group_stack(grp, (uint16_t)(i % NS));

		sds[i] = ust_socket(s, AF_INET, SOCK_DGRAM, 0);
		UT_ASSERT(sds[i] >= 0);
		/* (read on the main lcore: see udp_connected()) */
		UT_EQ(ust_setsockopt(s, sds[i], UST_SOL_USTACK, UST_SO_SPLIT,
				     &one, sizeof(one)), 0);
		UT_EQ(ust_connect(s, sds[i], (struct sockaddr *)&to,
				  sizeof(to)), 0);
		memset(buf, (int)i, sizeof(buf));
		UT_EQ(ust_send(s, sds[i], buf, sizeof(buf), 0), sizeof(buf));
	}
	for (r = 0; r < 20; r++)
		round_trip();
	UT_EQ(mib(peer, UST_MIB_ICMP_OUTDESTUNREACHS), RTE_DIM(sds));
	for (i = 0; i < RTE_DIM(sds); i++)
		UT_EQ(ust_recv(ust_group_stack(grp, (uint16_t)(i % NS)),
			       sds[i], buf, sizeof(buf), 0), -ECONNREFUSED);
	/* all on one queue: the others' were handed over */
	UT_EQ(group_mib(UST_MIB_GROUP_HANDOFFOUT), RTE_DIM(sds) / NS * 2);
	for (i = 0; i < RTE_DIM(sds); i++)
		ust_close(ust_group_stack(grp, (uint16_t)(i % NS)), sds[i]);
	return setting_down();
}

static int
test_icmp_steered(void)
{
	return icmp_errors(true);
}

static int
test_icmp_sliced(void)
{
	return icmp_errors(false);
}

/* One accounted queue fed by every stack (ust_group_udp_share()): the
 * peer's datagrams, from many source ports, arrive on every queue and all
 * go to stack 0's one socket; the memory model's invariants hold after
 * every round. */
static int
test_udp_shared(void)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = RTE_BE16(UDP_PORT + 1),
				  .sin_addr.s_addr = UT_OUR_IP };
	int psd[16], sd, one = 1;
	uint32_t allow = 0, seen[RTE_DIM(psd)] = { 0 };
	unsigned int i, r, sent = 0, got = 0;
	uint16_t sport = 30000;
	uint8_t buf[256];
	ssize_t k;

	if (setting_up(true) != 0)
		return -1;
	sd = ust_socket(ust_group_stack(grp, 0), AF_INET, SOCK_DGRAM, 0);
	UT_ASSERT(sd >= 0);
	/* read on the main lcore whatever the stacks' lcores (the option
	 * goes before bind) */
	UT_EQ(ust_setsockopt(ust_group_stack(grp, 0), sd, UST_SOL_USTACK,
			     UST_SO_SPLIT, &one, sizeof(one)), 0);
	to.sin_addr.s_addr = 0;
	UT_EQ(ust_bind(ust_group_stack(grp, 0), sd, (struct sockaddr *)&to,
		       sizeof(to)), 0);
	to.sin_addr.s_addr = UT_OUR_IP;
	UT_EQ(ust_group_udp_share(grp, 0, sd), 0);
	/* each sibling's port is now taken by the shared socket */
	UT_ASSERT(ut_udp_bound(ust_group_stack(grp, 1), UDP_PORT + 1) < 0);
	/* each sender's port chosen for queue i % NS (as connect_to_queue()
	 * does): 16 random ports miss one of 3 queues 0.5% of the time */
	for (i = 0; i < RTE_DIM(psd); i++) {
		struct sockaddr_in from = { .sin_family = AF_INET };

		while (ust_rss_queue(&wire_rss,
				     ust_rss_hash(&wire_rss, UT_PEER_IP,
						  UT_OUR_IP,
						  rte_cpu_to_be_16(sport),
						  to.sin_port)) != i % NS)
			sport++;
		from.sin_port = rte_cpu_to_be_16(sport++);
		psd[i] = ust_socket(peer, AF_INET, SOCK_DGRAM, 0);
		UT_ASSERT(psd[i] >= 0);
		UT_EQ(ust_bind(peer, psd[i], (struct sockaddr *)&from,
			       sizeof(from)), 0);
	}
	for (r = 0; r < 40; r++) {
		for (i = 0; i < RTE_DIM(psd); i++) {
			buf[0] = (uint8_t)i;
			buf[1] = (uint8_t)r;
			memset(buf + 2, (int)(i ^ r), 98);
			UT_EQ(ust_sendto(peer, psd[i], buf, 100, 0,
					 (struct sockaddr *)&to, sizeof(to)),
			      100);
			sent++;
		}
		round_trip();
		round_trip();
		while ((k = ust_recv(ust_group_stack(grp, 0), sd, buf,
				     sizeof(buf), 0)) > 0) {
			UT_EQ(k, 100);
			UT_ASSERT(buf[0] < RTE_DIM(psd));
			/* in order per sender (one queue per sender) */
			UT_EQ(buf[1], seen[buf[0]]);
			UT_EQ(buf[2], buf[0] ^ buf[1]);
			seen[buf[0]]++;
			got++;
		}
		UT_EQ(ut_udp_check(ust_group_stack(grp, 0), &sd, 1, 2304 * 2,
				   &allow, 0, r), 0);
	}
	UT_EQ(got, sent);
	for (i = 0; i < NS; i++)
		UT_ASSERT(mib(ust_group_stack(grp, (uint16_t)i),
			      UST_MIB_UDP_INDATAGRAMS) > 0,
			  "stack %u received none", i);
	UT_EQ(group_mib(UST_MIB_UDP_INDATAGRAMS), sent);
	UT_EQ(group_mib(UST_MIB_GROUP_HANDOFFOUT), 0);
	for (i = 0; i < RTE_DIM(psd); i++)
		ust_close(peer, psd[i]);
	ust_close(ust_group_stack(grp, 0), sd);
	return setting_down();
}

/* Connections from local ports the application bound itself, then
 * connect: chosen without the peer, so with the hash known their replies
 * may arrive on a sibling, which finds no connection and hands them round
 * to the stack that has it. Byte-exact, no reset. */
static int
test_bound_ports(void)
{
	struct echo_srv srv;
	struct flow fl[NS * 4];
	unsigned int i;

	if (setting_up(true) != 0)
		return -1;
	if (srv_listen(&srv, peer, PEER_PORT) != 0)
		return -1;
	for (i = 0; i < RTE_DIM(fl); i++) {
		struct ust_stack *s = ust_group_stack(grp, (uint16_t)(i % NS));
		struct sockaddr_in me = { .sin_family = AF_INET,
			.sin_port = rte_cpu_to_be_16((uint16_t)(5000 + i)) };
		struct sockaddr_in to = { .sin_family = AF_INET,
			.sin_port = RTE_BE16(PEER_PORT),
			.sin_addr.s_addr = UT_PEER_IP };
		int one = 1;

		fl[i].stk = s;
		fl[i].id = i;
		fl[i].sent = fl[i].rcvd = 0;
		fl[i].total = 20000;
		fl[i].sd = ust_socket(s, AF_INET, SOCK_STREAM, 0);
		UT_ASSERT(fl[i].sd >= 0);
		ust_setsockopt(s, fl[i].sd, IPPROTO_TCP, TCP_NODELAY, &one,
			       sizeof(one));
		UT_EQ(ust_bind(s, fl[i].sd, (struct sockaddr *)&me,
			       sizeof(me)), 0);
		UT_EQ(ust_connect(s, fl[i].sd, (struct sockaddr *)&to,
				  sizeof(to)), -EINPROGRESS);
	}
	if (run_flows(fl, RTE_DIM(fl), &srv, 1) != 0)
		return -1;
	printf("  %" PRIu64 " frames handed over\n",
	       group_mib(UST_MIB_GROUP_HANDOFFOUT));
	/* two thirds of the flows hash to another stack than theirs */
	UT_ASSERT(group_mib(UST_MIB_GROUP_HANDOFFOUT) > 0);
	UT_EQ(group_mib(UST_MIB_TCP_OUTRSTS), 0);
	UT_EQ(group_mib(UST_MIB_TCP_ACTIVEOPENS), RTE_DIM(fl));
	for (i = 0; i < RTE_DIM(fl); i++)
		ust_close(fl[i].stk, fl[i].sd);
	srv_close(&srv);
	return setting_down();
}

/* How many connections a stack can open to one peer's port: with the hash
 * known, one port in NS of the whole range qualifies (about 1024 / 3 here);
 * cutting the range in slices as well would leave one in NS squared. */
static int
test_ports_per_peer(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = RTE_BE16(PEER_PORT),
				   .sin_addr.s_addr = UT_PEER_IP };
	struct ust_stack *s;
	int sds[1024], rc = -EINPROGRESS;
	unsigned int n = 0, i;

	small_range = true;
	rc = setting_up(true);
	small_range = false;
	if (rc != 0)
		return -1;
	s = ust_group_stack(grp, 1);
	while (n < RTE_DIM(sds)) {
		sds[n] = ust_socket(s, AF_INET, SOCK_STREAM, 0);
		UT_ASSERT(sds[n] >= 0);
		rc = ust_connect(s, sds[n], (struct sockaddr *)&sin,
				 sizeof(sin));
		if (rc != -EINPROGRESS) {
			ust_close(s, sds[n]);
			break;
		}
		n++;
	}
	printf("  %u connections from one stack to one peer port (%d at "
	       "the end)\n", n, rc);
	UT_EQ(rc, -EADDRNOTAVAIL);
	UT_ASSERT(n > 1024 / NS * 3 / 4 && n < 1024 / NS * 5 / 4,
		  "%u ports", n);
	for (i = 0; i < n; i++)
		ust_close(s, sds[i]);
	return setting_down();
}

/* Configurations a group refuses. */
static int
test_bad_conf(void)
{
	struct ust_group_conf gc;
	struct end e[2] = { { false, 0 }, { false, 1 } };
	unsigned int lc = rte_get_main_lcore();

	wire_init();
	ust_group_conf_defaults(&gc);
	gc.nb_stacks = 2;
	gc.stack.pool = pool;
	gc.stack.addr = UT_OUR_IP;
	netif_of(&gc.netifs[0], &e[0], &grp_mac, 0);
	netif_of(&gc.netifs[1], &e[1], &grp_mac, 1);
	gc.lcores[0] = lc;
	gc.lcores[1] = lc;             /* two stacks on one lcore */
	UT_ASSERT(ust_group_create(&gc) == NULL);
	UT_EQ(rte_errno, EINVAL);
	gc.lcores[1] = rte_get_next_lcore(lc, 0, 0);
	gc.netifs[1].queue_id = 0;     /* two stacks on one queue */
	UT_ASSERT(ust_group_create(&gc) == NULL);
	gc.netifs[1].queue_id = 1;
	gc.rss = wire_rss;             /* a RETA with queue 2: no stack */
	UT_ASSERT(ust_group_create(&gc) == NULL);
	gc.rss.kind = UST_RSS_NONE;
	gc.ring_size = 1000;           /* not a power of two */
	UT_ASSERT(ust_group_create(&gc) == NULL);
	gc.ring_size = 1024;
	gc.nb_stacks = 0;
	UT_ASSERT(ust_group_create(&gc) == NULL);
	gc.nb_stacks = 2;
	gc.lcores[1] = RTE_MAX_LCORE - 1; /* not an EAL lcore */
	UT_ASSERT(ust_group_create(&gc) == NULL);
	UT_ASSERT(ut_leak_check(pool) == 0);
	return 0;
}

/* The stacks on their own lcores (ust_group_launch()), the peer on
 * another: connections to every stack, checked as above. */
struct mt_state {
	atomic_int done;
	atomic_int failed;
	struct echo_srv srv[NS];
};

static int
mt_worker(struct ust_stack *stk, uint16_t idx, void *arg)
{
	struct mt_state *st = arg;
	int rc = 0;

	while (!atomic_load(&st->done)) {
		ust_stack_poll(stk, ust_clock_ns());
		if (srv_step(&st->srv[idx]) != 0) {
			atomic_store(&st->failed, 1);
			rc = -1;
			break;
		}
	}
	/* the last FINs and ACKs */
	{
		uint64_t end = ust_clock_ns() + 200000000ull;

		srv_close(&st->srv[idx]);
		while (ust_clock_ns() < end)
			ust_stack_poll(stk, ust_clock_ns());
	}
	return rc;
}

static int
mt_peer(void *arg)
{
	struct mt_state *st = arg;
	struct flow fl[12];
	unsigned int i, done = 0;
	uint64_t deadline = ust_clock_ns() + 60000000000ull;
	uint16_t sport = 30000;
	int rc = 0;

	/* (every stack gets flows: the test checks that each served some) */
	for (i = 0; i < RTE_DIM(fl); i++) {
		fl[i].stk = peer;
		fl[i].id = i;
		fl[i].sent = fl[i].rcvd = 0;
		fl[i].total = 100000;
		fl[i].sd = connect_to_queue(peer, UT_OUR_IP, SRV_PORT,
					    (uint16_t)(i % NS), &sport);
		if (fl[i].sd < 0)
			rc = -1;
	}
	while (rc == 0 && done < RTE_DIM(fl) && ust_clock_ns() < deadline &&
	       !atomic_load(&st->failed)) {
		ust_stack_poll(peer, ust_clock_ns());
		done = 0;
		for (i = 0; i < RTE_DIM(fl); i++) {
			if (flow_step(&fl[i]) != 0) {
				rc = -1;
				break;
			}
			done += fl[i].rcvd == fl[i].total;
		}
	}
	if (done != RTE_DIM(fl))
		rc = -1;
	for (i = 0; i < RTE_DIM(fl); i++)
		if (fl[i].sd >= 0)
			ust_close(peer, fl[i].sd);
	atomic_store(&st->done, 1);
	{
		uint64_t end = ust_clock_ns() + 300000000ull;

		while (ust_clock_ns() < end)
			ust_stack_poll(peer, ust_clock_ns());
	}
	return rc;
}

/* the software wire is not thread-safe: a lock around it for this case */
static rte_spinlock_t wire_lock = RTE_SPINLOCK_INITIALIZER;

static uint16_t
end_rx_mt(void *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t k;

	rte_spinlock_lock(&wire_lock);
	k = end_rx(ctx, pkts, n);
	rte_spinlock_unlock(&wire_lock);
	return k;
}

static uint16_t
end_tx_mt(void *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t k;

	rte_spinlock_lock(&wire_lock);
	k = end_tx(ctx, pkts, n);
	rte_spinlock_unlock(&wire_lock);
	return k;
}

static const struct ust_netif_ops end_ops_mt = {
	.rx_burst = end_rx_mt,
	.tx_burst = end_tx_mt,
};

static int
test_lcores(void)
{
	static struct mt_state st;
	struct ust_group_conf gc;
	struct ust_stack_conf pc;
	unsigned int i, lc, peer_lc;
	int rc, prc;

	if (rte_lcore_count() < NS + 1) {
		printf("  (skipped: %u lcores)\n", rte_lcore_count());
		return 0;
	}
	wire_init();
	memset(&st, 0, sizeof(st));
	ust_group_conf_defaults(&gc);
	gc.name = "mt";
	gc.nb_stacks = NS;
	lc = rte_get_main_lcore();
	for (i = 0; i < NS; i++) {
		ends[i].peer = false;
		ends[i].queue = (uint16_t)i;
		gc.lcores[i] = lc;
		lc = rte_get_next_lcore(lc, 0, 0);
		netif_of(&gc.netifs[i], &ends[i], &grp_mac, (uint16_t)i);
		gc.netifs[i].ops = &end_ops_mt;
	}
	peer_lc = lc;
	gc.stack.pool = pool;
	gc.stack.addr = UT_OUR_IP;
	gc.stack.now_ns = ust_clock_ns();
	gc.rss = wire_rss;
	grp = ust_group_create(&gc);
	UT_ASSERT(grp != NULL);
	ust_stack_conf_defaults(&pc);
	pc.name = "mtpeer";
	ends[NS].peer = true;
	netif_of(&pc.netif, &ends[NS], &peer_mac, 0);
	pc.netif.ops = &end_ops_mt;
	pc.pool = pool;
	pc.addr = UT_PEER_IP;
	pc.lcore = peer_lc;
	pc.now_ns = ust_clock_ns();
	peer = ust_stack_create(&pc);
	UT_ASSERT(peer != NULL);
	for (i = 0; i < NS; i++)
		if (srv_listen(&st.srv[i], ust_group_stack(grp, (uint16_t)i),
			       SRV_PORT) != 0)
			return -1;
	UT_EQ(rte_eal_remote_launch(mt_peer, &st, peer_lc), 0);
	rc = ust_group_launch(grp, mt_worker, &st);
	prc = rte_eal_wait_lcore(peer_lc);
	UT_EQ(rc, 0);
	UT_EQ(prc, 0);
	for (i = 0; i < NS; i++)
		UT_ASSERT(mib(ust_group_stack(grp, (uint16_t)i),
			      UST_MIB_TCP_PASSIVEOPENS) > 0);
	for (i = 0; i < NS; i++)
		if (ut_check_conservation(ust_group_stack(grp, (uint16_t)i)))
			return -1;
	ust_group_destroy(grp);
	ust_stack_destroy(peer);
	grp = NULL;
	peer = NULL;
	for (i = 0; i < NS; i++)
		fifo_free(&q_grp[i]);
	fifo_free(&q_peer);
	UT_ASSERT(ut_leak_check(pool) == 0);
	return 0;
}

/*
 * Names are unique among a process's live stacks and groups: a group
 * whose stack would take a lone stack's name is refused (EEXIST) and
 * leaves nothing behind; with the group up, neither its name nor its
 * stacks' names can be taken by a lone stack.
 */
static int
test_names(void)
{
	struct ust_group_conf gc;
	struct ust_stack_conf pc;
	struct ust_stack *s;
	unsigned int i, lc;

	wire_init();
	ust_stack_conf_defaults(&pc);
	pc.name = "grp1";
	netif_of(&pc.netif, &ends[NS], &peer_mac, 0);
	pc.netif.port_id = UINT16_MAX;
	pc.pool = pool;
	pc.addr = UT_PEER_IP;
	pc.prefix_len = 24;
	s = ust_stack_create(&pc);
	UT_ASSERT(s != NULL);
	ust_group_conf_defaults(&gc);
	UT_ASSERT(strcmp(gc.name, "ust") == 0);
	gc.name = "grp";
	gc.nb_stacks = NS;
	lc = rte_get_main_lcore();
	for (i = 0; i < NS; i++) {
		gc.lcores[i] = lc;
		lc = rte_get_next_lcore(lc, 0, 0);
		netif_of(&gc.netifs[i], &ends[i], &grp_mac, (uint16_t)i);
	}
	gc.stack.pool = pool;
	gc.stack.addr = UT_OUR_IP;
	gc.stack.prefix_len = 24;
	UT_ASSERT(ust_group_create(&gc) == NULL);
	UT_EQ(rte_errno, EEXIST);
	ust_stack_destroy(s);
	UT_ASSERT(ut_leak_check(pool) == 0);
	grp = ust_group_create(&gc);
	UT_ASSERT(grp != NULL, "%s", rte_strerror(rte_errno));
	UT_ASSERT(strcmp(ust_stack_name(ust_group_stack(grp, 1)), "grp1") == 0);
	pc.name = "grp";
	UT_ASSERT(ust_stack_create(&pc) == NULL);
	UT_EQ(rte_errno, EEXIST);
	pc.name = "grp0";
	UT_ASSERT(ust_stack_create(&pc) == NULL);
	UT_EQ(rte_errno, EEXIST);
	ust_group_destroy(grp);
	grp = NULL;
	for (i = 0; i < NS; i++)
		fifo_free(&q_grp[i]);
	fifo_free(&q_peer);
	UT_ASSERT(ut_leak_check(pool) == 0);
	return 0;
}

static const struct ut_case cases[] = {
	{ "Toeplitz: the Microsoft vector, the symmetric key", test_hash },
	{ "passive opens spread over the stacks; ARP learnt once",
	  test_passive },
	{ "passive connections moved to another queue: to the hash's stack",
	  test_passive_moved },
	{ "passive connections moved, no hash known: they go round",
	  test_passive_moved_walk },
	{ "active opens steered to their own queue: no handoff",
	  test_active_steered },
	{ "active opens handed to their owner without steering",
	  test_active_handoff },
	{ "connected UDP steered", test_udp_steered },
	{ "connected UDP handed over", test_udp_handoff },
	{ "IPv6 active opens to their owner by the port's slice",
	  test_active6_sliced },
	{ "IPv6 active opens round the siblings with port steering",
	  test_active6_steered },
	{ "IPv6 connected UDP to its owner by the port's slice",
	  test_udp6_sliced },
	{ "IPv6 connected UDP round the siblings with port steering",
	  test_udp6_steered },
	{ "one UDP queue fed by every stack", test_udp_shared },
	{ "ICMP errors to the stack of the flow they quote (hash known)",
	  test_icmp_steered },
	{ "ICMP errors to the stack of the flow they quote (slices)",
	  test_icmp_sliced },
	{ "bind, then connect: replies hashed elsewhere go round",
	  test_bound_ports },
	{ "ports for one peer: one in N of the whole range",
	  test_ports_per_peer },
	{ "configurations refused", test_bad_conf },
	{ "stacks on their own lcores", test_lcores },
	{ "names unique among stacks and groups", test_names },
};

int
main(int argc, char **argv)
{
	char prefix[64];
	char *eal[] = {
		argv[0], (char *)"--lcores", (char *)"(0-3)@(0-1)",
		(char *)"--no-huge", (char *)"-m", (char *)"512",
		(char *)"--no-pci", (char *)"--no-shconf",
		(char *)"--no-telemetry", (char *)"--log-level=lib.eal:error",
		(char *)"--file-prefix", prefix, NULL,
	};

	RTE_SET_USED(argc);
	snprintf(prefix, sizeof(prefix), "utg%d", (int)getpid());
	if (rte_eal_init((int)RTE_DIM(eal) - 1, eal) < 0) {
		fprintf(stderr, "EAL initialisation failed\n");
		return 1;
	}
	pool = ut_pool("ut_group", 32768);
	if (pool == NULL)
		return 1;
	return UT_RUN(cases);
}
