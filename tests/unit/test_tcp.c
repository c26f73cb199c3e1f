/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * TCP, packets in and packets out: the test plays the peer with segments
 * built by hand (ut_tcp_frame()), reads what the stack sends
 * (ut_tx_tcp()) and drives time with a fake clock. Every state transition
 * of RFC 9293, the options (RFC 7323, RFC 2018), RFC 5961's challenge
 * ACKs, the timers and the memory accounting; each test ends with the
 * conservation law and the mempool back to where it started.
 */

#include <errno.h>
#include <netinet/tcp.h>

#include "ust_socket.h"
#include "ust_stack.h"
#include "ust_tcp.h"
#include "ut.h"
#include "ut_netif.h"

#define PPORT 40000          /* the peer's port */
#define LPORT 80             /* ours, listening */
#define MS 1000000ull
#define SEQ_LE(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)) <= 0)
#define SEQ_GT_(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)) > 0)

static struct rte_mempool *pool;
static struct ut_netif nif;
static uint64_t now;
static struct ust_stack *cur; /* the stack under test, for expect() */

/* what the peer knows of the connection */
struct peer {
	uint32_t snd_nxt;   /* the peer's next sequence number */
	uint32_t rcv_nxt;   /* what it acknowledges: our next byte */
	uint32_t tsval;     /* its timestamp clock */
	uint32_t ts_recent; /* our last timestamp */
	uint16_t win;       /* its window field */
	uint8_t wscale;
	bool ts;            /* timestamps in use */
	bool sack;
	uint16_t port;
};

static struct ust_stats st;

static uint64_t
mib(struct ust_stack *stk, enum ust_mib c)
{
	ust_stack_stats_get(stk, &st);
	return st.mib[c];
}

static __rte_unused uint64_t
drops(struct ust_stack *stk, enum ust_drop_reason r)
{
	ust_stack_stats_get(stk, &st);
	return st.drop[r];
}

static __rte_unused void
run(struct ust_stack *stk, uint64_t ms)
{
	now += ms * MS;
	ust_stack_poll(stk, now);
}

static void
inject(struct ust_stack *stk, struct rte_mbuf *m)
{
	ust_stack_input(stk, &m, 1, now);
	ust_stack_poll(stk, now);
}

/* A segment from the peer, with its timestamps if in use. */
static void
seg(struct ust_stack *stk, struct peer *p, uint32_t seq, uint8_t flags,
    const void *data, uint16_t len)
{
	struct ust_tcp_repr th;

	memset(&th, 0, sizeof(th));
	th.src_port = p->port;
	th.dst_port = LPORT;
	th.seq = seq;
	th.ack = (flags & UST_TCP_ACK) ? p->rcv_nxt : 0;
	th.flags = flags;
	th.window = p->win;
	if (p->ts) {
		th.opts.has |= UST_TCPOPT_TS;
		th.opts.tsval = p->tsval;
		th.opts.tsecr = p->ts_recent;
	}
	inject(stk, ut_tcp_frame(pool, &th, data, len));
}

/* The peer sends in order: data (len bytes), flags. */
static void
psend(struct ust_stack *stk, struct peer *p, uint8_t flags, const void *data,
      uint16_t len)
{
	seg(stk, p, p->snd_nxt, flags | UST_TCP_ACK, data, len);
	p->snd_nxt += len + ((flags & UST_TCP_FIN) ? 1 : 0);
}

/* The next segment we sent; updates what the peer acknowledges. */
static int
expect(struct peer *p, struct ust_tcp_repr *th, void *data, size_t cap)
{
	uint32_t end;
	int n;

	/* what the application's calls staged goes out */
	ust_stack_flush(cur);
	n = ut_tx_tcp(&nif, th, data, cap);

	if (n < 0)
		return n;
	if (th->opts.has & UST_TCPOPT_TS)
		p->ts_recent = th->opts.tsval;
	end = th->seq + (uint32_t)n + ((th->flags & UST_TCP_SYN) ? 1 : 0) +
		((th->flags & UST_TCP_FIN) ? 1 : 0);
	if ((th->flags & UST_TCP_SYN) ||
	    (SEQ_LE(th->seq, p->rcv_nxt) && SEQ_GT_(end, p->rcv_nxt)))
		p->rcv_nxt = end;
	return n;
}

static int
teardown(struct ust_stack *stk)
{
	UT_EQ(ut_check_conservation(stk), 0);
	ust_stack_destroy(stk);
	ut_tx_drain(&nif);
	return ut_leak_check(pool);
}

static struct ust_stack *
stack(void (*tweak)(struct ust_stack_conf *))
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, tweak);

	now = 1000 * MS;
	if (stk != NULL) {
		ust_stack_arp_add_static(stk, UT_PEER_IP, &ut_peer_mac);
		ust_stack_poll(stk, now);
	}
	cur = stk;
	return stk;
}

static int
tcp_info(struct ust_stack *stk, int sd, struct ust_tcp_info *ti)
{
	socklen_t l = sizeof(*ti);

	return ust_getsockopt(stk, sd, UST_SOL_USTACK, UST_TCP_INFO, ti, &l);
}

static int
state_of(struct ust_stack *stk, int sd)
{
	struct ust_tcp_info ti;

	if (tcp_info(stk, sd, &ti) != 0)
		return -1;
	return ti.state;
}

static int
listener(struct ust_stack *stk, uint16_t port, int backlog)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = rte_cpu_to_be_16(port) };
	int sd = ust_socket(stk, AF_INET, SOCK_STREAM, 0);

	if (sd < 0 || ust_bind(stk, sd, (struct sockaddr *)&sin,
			       sizeof(sin)) != 0 ||
	    ust_listen(stk, sd, backlog) != 0)
		return -1;
	return sd;
}

static void
peer_init(struct peer *p, uint32_t isn)
{
	memset(p, 0, sizeof(*p));
	p->snd_nxt = isn;
	p->tsval = 5000;
	p->win = 65535;
	p->wscale = 7;
	p->ts = true;
	p->sack = true;
	p->port = PPORT;
}

/* The peer's SYN with the options @p offers. */
static void
peer_syn(struct ust_stack *stk, struct peer *p)
{
	struct ust_tcp_repr th;

	memset(&th, 0, sizeof(th));
	th.src_port = p->port;
	th.dst_port = LPORT;
	th.seq = p->snd_nxt;
	th.flags = UST_TCP_SYN;
	th.window = p->win;
	th.opts.has = UST_TCPOPT_MSS;
	th.opts.mss = 1460;
	if (p->wscale != 0xff) {
		th.opts.has |= UST_TCPOPT_WS;
		th.opts.wscale = p->wscale;
	}
	if (p->sack)
		th.opts.has |= UST_TCPOPT_SACK_PERM;
	if (p->ts) {
		th.opts.has |= UST_TCPOPT_TS;
		th.opts.tsval = p->tsval;
	}
	inject(stk, ut_tcp_frame(pool, &th, NULL, 0));
	p->snd_nxt++;
}

/*
 * A passive open: the peer's SYN, our SYN-ACK (checked), the peer's ACK,
 * accept(). Returns the connection's descriptor.
 */
static int
open_passive(struct ust_stack *stk, int ls, struct peer *p, uint32_t isn)
{
	struct ust_tcp_repr th;
	int sd;

	peer_init(p, isn);
	peer_syn(stk, p);
	UT_EQ(expect(p, &th, NULL, 0), 0);
	UT_EQ(th.flags, UST_TCP_SYN | UST_TCP_ACK);
	UT_EQ(th.ack, isn + 1);
	UT_EQ(th.src_port, LPORT);
	UT_EQ(th.dst_port, p->port);
	UT_ASSERT(th.opts.has & UST_TCPOPT_MSS);
	UT_EQ(th.opts.mss, 1460);
	UT_ASSERT(th.opts.has & UST_TCPOPT_WS);
	UT_ASSERT(th.opts.has & UST_TCPOPT_SACK_PERM);
	UT_ASSERT(th.opts.has & UST_TCPOPT_TS);
	UT_EQ(th.opts.tsecr, p->tsval);
	UT_EQ(ust_accept(stk, ls, NULL, NULL), -EAGAIN);
	p->tsval++;
	psend(stk, p, 0, NULL, 0);
	sd = ust_accept(stk, ls, NULL, NULL);
	UT_ASSERT(sd >= 0, "accept: %d", sd);
	return sd;
}

/* ---- the tests ---- */

static int
test_passive_open_close(void)
{
	struct ust_stack *stk = stack(NULL);
	struct ust_tcp_repr th;
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);
	struct ust_tcp_info ti;
	struct peer p;
	char buf[64];
	int ls, sd;

	ls = listener(stk, LPORT, 8);
	UT_ASSERT(ls >= 0);
	sd = open_passive(stk, ls, &p, 1000);
	UT_ASSERT(sd >= 0);
	UT_EQ(mib(stk, UST_MIB_TCP_PASSIVEOPENS), 1);
	UT_EQ(mib(stk, UST_MIB_TCP_CURRESTAB), 1);
	UT_EQ(ust_getpeername(stk, sd, (struct sockaddr *)&sin, &sl), 0);
	UT_EQ(sin.sin_port, rte_cpu_to_be_16(PPORT));
	UT_EQ(tcp_info(stk, sd, &ti), 0);
	UT_EQ(ti.state, UST_TCP_ESTABLISHED);
	UT_EQ(ti.snd_wscale, 7);
	UT_EQ(ti.mss, 1460 - 12);
	UT_EQ(ti.options, UST_TCPOPT_WS | UST_TCPOPT_SACK_PERM |
	      UST_TCPOPT_TS);
	/* data in: delivered, acknowledged at once (quick-ack) */
	psend(stk, &p, UST_TCP_PSH, "hello", 5);
	UT_EQ(expect(&p, &th, NULL, 0), 0);
	UT_EQ(th.flags, UST_TCP_ACK);
	UT_EQ(th.ack, 1000 + 1 + 5);
	UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), 5);
	UT_ASSERT(memcmp(buf, "hello", 5) == 0);
	UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), -EAGAIN);
	/* data out */
	UT_EQ(ust_send(stk, sd, "world!", 6, 0), 6);
	UT_EQ(expect(&p, &th, buf, sizeof(buf)), 6);
	UT_EQ(th.flags, UST_TCP_ACK | UST_TCP_PSH);
	UT_ASSERT(memcmp(buf, "world!", 6) == 0);
	/* the peer closes: CLOSE_WAIT, EOF, our FIN, LAST_ACK, CLOSED */
	p.tsval++;
	psend(stk, &p, UST_TCP_FIN, NULL, 0);
	UT_EQ(expect(&p, &th, NULL, 0), 0);
	UT_EQ(th.ack, p.snd_nxt);
	UT_EQ(state_of(stk, sd), UST_TCP_CLOSE_WAIT);
	UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), 0);
	UT_EQ(ust_close(stk, sd), 0);
	UT_EQ(expect(&p, &th, NULL, 0), 0);
	UT_EQ(th.flags, UST_TCP_FIN | UST_TCP_ACK);
	UT_EQ(mib(stk, UST_MIB_TCP_CURRESTAB), 0);
	psend(stk, &p, 0, NULL, 0);
	UT_EQ(expect(&p, &th, NULL, 0), -1);
	UT_EQ(ust_close(stk, ls), 0);
	return teardown(stk);
}

static const struct ut_case cases[] = {
	{ "passive open, data, passive close", test_passive_open_close },
};

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	if (ut_eal_init(argv[0], "0") != 0)
		return 1;
	pool = ut_pool("ut_tcp", 4096);
	if (pool == NULL)
		return 1;
	ut_netif_init(&nif, 0);
	return UT_RUN(cases);
}
