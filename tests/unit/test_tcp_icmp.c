/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * TCP's ICMP handling and the socket options of issue 12, packets in and
 * packets out with a fake clock, as test_tcp.c (whose peer helpers this
 * file repeats): ICMP errors about our segments (RFC 1122 4.2.3.9, RFC
 * 1191 fragmentation needed and the MSS re-cut, RFC 5927's sequence check,
 * connect() aborted, soft errors reported on timeout, half-open entries),
 * and TCP_MAXSEG on a listener, IP_MTU_DISCOVER and DF, IP_MTU,
 * TCP_NOTSENT_LOWAT, TCP_USER_TIMEOUT (RFC 5482), TCP_CORK and its 200 ms
 * ceiling, TCP_INQ, and TCP_INFO in Linux's struct tcp_info. Each test ends
 * with the conservation law and the mempool back where it started.
 *
 * <linux/tcp.h> (not <netinet/tcp.h>): the option names and Linux's struct
 * tcp_info, whose layout TCP_INFO fills.
 */

#include <errno.h>
#include <stddef.h>
#include <linux/tcp.h>

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
#define NO_WS 0xff           /* struct peer: no window scale option */

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
	uint8_t wscale;     /* NO_WS: no option */
	bool ts;            /* timestamps in use */
	bool sack;
	int mss;            /* the MSS option of its SYN, -1: none */
	uint16_t port;      /* the peer's port */
	uint16_t lport;     /* ours */
};

static struct ust_stats st;

static uint64_t
mib(struct ust_stack *stk, enum ust_mib c)
{
	ust_stack_stats_get(stk, &st);
	return st.mib[c];
}

static void
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

/* Nothing sent: the TX staging flushed, no frame on the wire. */
static bool
tx_none(void)
{
	ust_stack_flush(cur);
	return nif.tx_n == 0;
}

/* Advance the clock a millisecond at a time until the stack sends a
 * frame: the milliseconds it took, or -1 after @limit. */
static int
wait_tx(struct ust_stack *stk, int limit)
{
	int i;

	for (i = 1; i <= limit; i++) {
		run(stk, 1);
		ust_stack_flush(stk);
		if (nif.tx_n > 0)
			return i;
	}
	return -1;
}

/* A segment from the peer: @o adds options (SACK blocks; a SYN's), and
 * the peer's timestamps are added if in use. */
static struct rte_mbuf *
frame(struct peer *p, uint32_t seq, uint32_t ack, uint8_t flags,
      const struct ust_tcp_opts *o, const void *data, uint16_t len)
{
	struct ust_tcp_repr th;

	memset(&th, 0, sizeof(th));
	th.src_port = p->port;
	th.dst_port = p->lport;
	th.seq = seq;
	th.ack = (flags & UST_TCP_ACK) ? ack : 0;
	th.flags = flags;
	th.window = p->win;
	if (o != NULL)
		th.opts = *o;
	if (p->ts) {
		th.opts.has |= UST_TCPOPT_TS;
		th.opts.tsval = p->tsval;
		th.opts.tsecr = (flags & UST_TCP_ACK) ? p->ts_recent : 0;
	}
	return ut_tcp_frame(pool, &th, data, len);
}

/* A segment from the peer at @seq, acknowledging what it received. */
static void
seg(struct ust_stack *stk, struct peer *p, uint32_t seq, uint8_t flags,
    const void *data, uint16_t len)
{
	inject(stk, frame(p, seq, p->rcv_nxt, flags, NULL, data, len));
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
	struct ust_stack *stk;

	/* what a failed test left on the wire is not this test's */
	ut_tx_drain(&nif);
	stk = ut_stack_create(&nif, pool, tweak);
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
setopt_int(struct ust_stack *stk, int sd, int level, int name, int v)
{
	return ust_setsockopt(stk, sd, level, name, &v, sizeof(v));
}

static int
getopt_int(struct ust_stack *stk, int sd, int level, int name)
{
	socklen_t l = sizeof(int);
	int v = -1, rc;

	rc = ust_getsockopt(stk, sd, level, name, &v, &l);
	return rc != 0 ? rc : v;
}

static struct sockaddr_in
addr_of(rte_be32_t ip, uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = rte_cpu_to_be_16(port) };

	sin.sin_addr.s_addr = ip;
	return sin;
}

static int
bind_port(struct ust_stack *stk, int sd, uint16_t port)
{
	struct sockaddr_in sin = addr_of(0, port);

	return ust_bind(stk, sd, (struct sockaddr *)&sin, sizeof(sin));
}

static int
listener(struct ust_stack *stk, uint16_t port, int backlog)
{
	int sd = ust_socket(stk, AF_INET, SOCK_STREAM, 0);

	if (sd < 0 || bind_port(stk, sd, port) != 0 ||
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
	p->mss = 1460;
	p->port = PPORT;
	p->lport = LPORT;
}

/* The options of the peer's SYN (timestamps: frame() adds them). */
static void
syn_opts(const struct peer *p, struct ust_tcp_opts *o)
{
	memset(o, 0, sizeof(*o));
	if (p->mss >= 0) {
		o->has |= UST_TCPOPT_MSS;
		o->mss = (uint16_t)p->mss;
	}
	if (p->wscale != NO_WS) {
		o->has |= UST_TCPOPT_WS;
		o->wscale = p->wscale;
	}
	if (p->sack)
		o->has |= UST_TCPOPT_SACK_PERM;
}

/* The peer's SYN, or with UST_TCP_ACK in @flags its SYN-ACK, with the
 * options @p offers. */
static void
peer_syn_flags(struct ust_stack *stk, struct peer *p, uint8_t flags)
{
	struct ust_tcp_opts o;

	syn_opts(p, &o);
	inject(stk, frame(p, p->snd_nxt, p->rcv_nxt, UST_TCP_SYN | flags, &o,
			  NULL, 0));
	p->snd_nxt++;
}

static void
peer_syn(struct ust_stack *stk, struct peer *p)
{
	peer_syn_flags(stk, p, 0);
}

/* Check that the options of our SYN or SYN-ACK answer what @p offers. */
static int
check_syn_opts(const struct peer *p, const struct ust_tcp_repr *th)
{
	UT_ASSERT(th->opts.has & UST_TCPOPT_MSS);
	UT_EQ(th->opts.mss, 1460);
	UT_EQ((th->opts.has & UST_TCPOPT_WS) != 0, p->wscale != NO_WS);
	UT_EQ((th->opts.has & UST_TCPOPT_SACK_PERM) != 0, p->sack);
	UT_EQ((th->opts.has & UST_TCPOPT_TS) != 0, p->ts);
	if (p->ts)
		UT_EQ(th->opts.tsecr, p->tsval);
	return 0;
}

/*
 * The handshake of a passive open with a prepared peer: its SYN, our
 * SYN-ACK (checked), its ACK, accept(). Returns the connection's
 * descriptor.
 */
static int
handshake_passive(struct ust_stack *stk, int ls, struct peer *p)
{
	struct ust_tcp_repr th;
	uint32_t isn = p->snd_nxt;
	int sd;

	peer_syn(stk, p);
	UT_EQ(expect(p, &th, NULL, 0), 0);
	UT_EQ(th.flags, UST_TCP_SYN | UST_TCP_ACK);
	UT_EQ(th.ack, isn + 1);
	UT_EQ(th.src_port, p->lport);
	UT_EQ(th.dst_port, p->port);
	UT_EQ(check_syn_opts(p, &th), 0);
	UT_EQ(ust_accept(stk, ls, NULL, NULL), -EAGAIN);
	p->tsval++;
	psend(stk, p, 0, NULL, 0);
	sd = ust_accept(stk, ls, NULL, NULL);
	UT_ASSERT(sd >= 0, "accept: %d", sd);
	return sd;
}

/* A passive open from a peer with the usual options. */
static int
open_passive(struct ust_stack *stk, int ls, struct peer *p, uint32_t isn)
{
	peer_init(p, isn);
	return handshake_passive(stk, ls, p);
}

/* connect() to the peer's @port; our SYN is read and checked, and @p
 * learns our port and sequence number. Returns the descriptor. */
static int
connect_to(struct ust_stack *stk, struct peer *p, uint16_t port)
{
	struct sockaddr_in sin = addr_of(UT_PEER_IP, port);
	struct ust_tcp_repr th;
	int sd = ust_socket(stk, AF_INET, SOCK_STREAM, 0);

	UT_ASSERT(sd >= 0);
	UT_EQ(ust_connect(stk, sd, (struct sockaddr *)&sin, sizeof(sin)),
	      -EINPROGRESS);
	UT_EQ(expect(p, &th, NULL, 0), 0);
	UT_EQ(th.flags, UST_TCP_SYN);
	UT_EQ(th.dst_port, port);
	UT_ASSERT(th.src_port >= 32768 && th.src_port <= 60999,
		  "port %u", th.src_port);
	UT_EQ(th.window, 65535);
	UT_EQ(th.opts.has, UST_TCPOPT_MSS | UST_TCPOPT_WS |
	      UST_TCPOPT_SACK_PERM | UST_TCPOPT_TS);
	UT_EQ(th.opts.mss, 1460);
	UT_EQ(th.opts.wscale, 7); /* rmem_max 6 MiB: 65535 << 6 covers half */
	UT_EQ(th.opts.tsecr, 0);
	p->port = port;
	p->lport = th.src_port;
	return sd;
}

/* An event set watching @sd for @events; returns its descriptor. */
static int
watch(struct ust_stack *stk, int sd, uint32_t events)
{
	struct ust_epoll_event ev = { .events = events, .data = (uint64_t)sd };
	int epd = ust_epoll_create(stk);

	if (epd < 0 || ust_epoll_ctl(stk, epd, UST_EPOLL_CTL_ADD, sd, &ev) != 0)
		return -1;
	return epd;
}

/* The events reported for the one socket of @epd (0: none). */
static uint32_t
events_of(struct ust_stack *stk, int epd)
{
	struct ust_epoll_event ev[4];

	if (ust_epoll_wait(stk, epd, ev, 4) < 1)
		return 0;
	return ev[0].events;
}


/* the TOS byte of the segment expect_df() last found */
static int last_tos;

/* The next TCP segment we sent, as expect(), and whether its IPv4 header
 * had DF set (-1: no segment). */
static int
expect_df(struct peer *p, struct ust_tcp_repr *th, int *df)
{
	struct rte_mbuf *m;

	ust_stack_flush(cur);
	*df = -1;
	while ((m = ut_tx_pop(&nif)) != NULL) {
		struct ust_eth_repr eth;
		struct ust_ipv4_repr ip;
		const uint8_t *l4 = ut_parse_ipv4_frame(m, &eth, &ip);

		if (l4 != NULL && ip.proto == IPPROTO_TCP) {
			*df = ip.df;
			last_tos = ip.tos;
			/* back at the head, for expect() to read */
			memmove(&nif.tx[1], &nif.tx[0],
				nif.tx_n * sizeof(nif.tx[0]));
			nif.tx[0] = m;
			nif.tx_n++;
			return expect(p, th, NULL, 0);
		}
		rte_pktmbuf_free(m);
	}
	return -1;
}

/* An ICMP error from the peer's side quoting our segment at @seq on @p's
 * connection (an IPv4 datagram of @total_len bytes, as a router saw it). */
static void
icmp_err(struct ust_stack *stk, const struct peer *p, uint8_t type,
	 uint8_t code, uint16_t mtu, uint32_t seq, uint16_t total_len)
{
	uint8_t q[28];
	struct ust_ipv4_repr ip;
	rte_be16_t sp = rte_cpu_to_be_16(p->lport);
	rte_be16_t dp = rte_cpu_to_be_16(p->port);
	rte_be32_t s = rte_cpu_to_be_32(seq);

	memset(&ip, 0, sizeof(ip));
	ip.src = UT_OUR_IP;
	ip.dst = UT_PEER_IP;
	ip.proto = IPPROTO_TCP;
	ip.ttl = 1;
	ip.df = true;
	ip.total_len = total_len;
	ust_ipv4_emit(q, 20, &ip, 0);
	memcpy(q + 20, &sp, 2);
	memcpy(q + 22, &dp, 2);
	memcpy(q + 24, &s, 4);
	inject(stk, ut_icmp_error_frame(pool, type, code, mtu, q, sizeof(q)));
}

static int
linux_info(struct ust_stack *stk, int sd, struct tcp_info *ti)
{
	socklen_t l = sizeof(*ti);
	int rc;

	memset(ti, 0xa5, sizeof(*ti));
	rc = ust_getsockopt(stk, sd, IPPROTO_TCP, TCP_INFO, ti, &l);
	if (rc == 0 && l != sizeof(*ti))
		return -1;
	return rc;
}

/* ---- the tests ---- */

/* Fragmentation needed (RFC 1191): the MSS drops to what the reported
 * MTU carries and what was in flight goes again, re-cut; RFC 5927's check;
 * ICMP about no connection. */
static int
test_icmp_frag_needed(void)
{
	struct ust_stack *stk = stack(NULL);
	struct ust_tcp_repr th;
	static uint8_t buf[4000];
	struct tcp_info ti;
	uint32_t una, i;
	struct peer p;
	int ls, sd, df, n;

	ls = listener(stk, LPORT, 8);
	sd = open_passive(stk, ls, &p, 1000);
	UT_ASSERT(sd >= 0);
	UT_EQ(getopt_int(stk, sd, IPPROTO_IP, IP_MTU), 1500);
	UT_EQ(setopt_int(stk, sd, IPPROTO_TCP, TCP_NODELAY, 1), 0);
	UT_EQ(ust_send(stk, sd, buf, sizeof(buf), 0), (ssize_t)sizeof(buf));
	una = p.rcv_nxt;
	UT_EQ(expect_df(&p, &th, &df), 1448);
	UT_EQ(df, 1);
	UT_EQ(expect(&p, &th, NULL, 0), 1448);
	UT_EQ(expect(&p, &th, NULL, 0), 4000 - 2 * 1448);
	UT_ASSERT(tx_none());

	/* RFC 5927: a sequence number outside [SND.UNA, SND.NXT) */
	icmp_err(stk, &p, UST_ICMP_DEST_UNREACH, UST_ICMP_CODE_FRAG_NEEDED,
		 1000, una + 4000, 1500);
	icmp_err(stk, &p, UST_ICMP_DEST_UNREACH, UST_ICMP_CODE_FRAG_NEEDED,
		 1000, una - 1, 1500);
	UT_EQ(mib(stk, UST_MIB_TCPEXT_OUTOFWINDOWICMPS), 2);
	UT_ASSERT(tx_none());
	UT_EQ(getopt_int(stk, sd, IPPROTO_TCP, TCP_MAXSEG), 1448);

	/* in the window: MSS 1000 - 40 - 12 (timestamps) = 948, and the
	 * 4000 bytes again from SND.UNA in 948-byte segments */
	icmp_err(stk, &p, UST_ICMP_DEST_UNREACH, UST_ICMP_CODE_FRAG_NEEDED,
		 1000, una + 1448, 1500);
	UT_EQ(mib(stk, UST_MIB_TCPEXT_TCPICMPPMTUREDUCED), 1);
	UT_EQ(getopt_int(stk, sd, IPPROTO_TCP, TCP_MAXSEG), 948);
	UT_EQ(getopt_int(stk, sd, IPPROTO_IP, IP_MTU), 1000);
	for (i = 0; i < 5; i++) {
		n = expect(&p, &th, NULL, 0);
		UT_EQ(th.seq, una + i * 948);
		UT_EQ(n, i < 4 ? 948 : 4000 - 4 * 948);
	}
	UT_ASSERT(tx_none());
	UT_EQ(mib(stk, UST_MIB_TCP_RETRANSSEGS), 5);
	UT_EQ(linux_info(stk, sd, &ti), 0);
	UT_EQ(ti.tcpi_pmtu, 1000);
	UT_EQ(ti.tcpi_snd_mss, 948);
	UT_EQ(ti.tcpi_ca_state, TCP_CA_Loss);
	/* no congestion response: the window is the initial one */
	UT_EQ(ti.tcpi_snd_cwnd, 14600 / 948);

	/* a larger MTU than the path's: ignored */
	icmp_err(stk, &p, UST_ICMP_DEST_UNREACH, UST_ICMP_CODE_FRAG_NEEDED,
		 1200, una, 1500);
	UT_EQ(mib(stk, UST_MIB_TCPEXT_TCPICMPIGNORED), 1);
	UT_EQ(getopt_int(stk, sd, IPPROTO_IP, IP_MTU), 1000);
	UT_ASSERT(tx_none());

	/* all acknowledged; a router of before RFC 1191 (MTU 0): the
	 * plateau below the quoted datagram's 1000 bytes, 508 */
	p.tsval++;
	psend(stk, &p, 0, NULL, 0);
	UT_ASSERT(tx_none());
	UT_EQ(ust_send(stk, sd, buf, 100, 0), 100);
	UT_EQ(expect(&p, &th, NULL, 0), 100);
	icmp_err(stk, &p, UST_ICMP_DEST_UNREACH, UST_ICMP_CODE_FRAG_NEEDED,
		 0, th.seq, 1000);
	UT_EQ(getopt_int(stk, sd, IPPROTO_IP, IP_MTU), 508);
	UT_EQ(getopt_int(stk, sd, IPPROTO_TCP, TCP_MAXSEG), 508 - 52);
	UT_EQ(expect(&p, &th, NULL, 0), 100); /* sent again */
	/* below 68 bytes: 68, and the MSS no lower than 48 (then less the
	 * timestamps) */
	icmp_err(stk, &p, UST_ICMP_DEST_UNREACH, UST_ICMP_CODE_FRAG_NEEDED,
		 20, th.seq, 508);
	UT_EQ(getopt_int(stk, sd, IPPROTO_IP, IP_MTU), 68);
	UT_EQ(getopt_int(stk, sd, IPPROTO_TCP, TCP_MAXSEG), 48 - 12);
	ut_tx_drain(&nif);
	UT_EQ(mib(stk, UST_MIB_TCPEXT_TCPICMPPMTUREDUCED), 3);

	/* no such connection: Icmp InErrors, as Linux */
	p.port++;
	icmp_err(stk, &p, UST_ICMP_DEST_UNREACH, UST_ICMP_CODE_PORT_UNREACH,
		 0, una, 1500);
	p.port--;
	UT_EQ(mib(stk, UST_MIB_ICMP_INERRORS), 1);
	UT_EQ(state_of(stk, sd), UST_TCP_ESTABLISHED);
	UT_EQ(mib(stk, UST_MIB_ICMP_INDESTUNREACHS), 7);
	return teardown(stk);
}

/* IP_MTU_DISCOVER: DF unless IP_PMTUDISC_DONT, which also ignores
 * fragmentation needed. */
static int
test_ip_mtu_discover(void)
{
	struct ust_stack *stk = stack(NULL);
	struct ust_tcp_repr th;
	struct peer p;
	int ls, sd, df;

	ls = listener(stk, LPORT, 8);
	UT_EQ(getopt_int(stk, ls, IPPROTO_IP, IP_MTU_DISCOVER),
	      IP_PMTUDISC_WANT);
	UT_EQ(getopt_int(stk, ls, IPPROTO_IP, IP_MTU), -ENOTCONN);
	UT_EQ(setopt_int(stk, ls, IPPROTO_IP, IP_MTU_DISCOVER, 4), -EINVAL);
	UT_EQ(setopt_int(stk, ls, IPPROTO_IP, IP_MTU_DISCOVER, -1), -EINVAL);
	UT_EQ(setopt_int(stk, ls, IPPROTO_IP, 9999, 1), -ENOPROTOOPT);
	UT_EQ(setopt_int(stk, ls, IPPROTO_IP, IP_MTU_DISCOVER,
			 IP_PMTUDISC_DONT), 0);
	/* the listener's connections inherit it: the SYN-ACK too */
	peer_init(&p, 1000);
	peer_syn(stk, &p);
	UT_EQ(expect_df(&p, &th, &df), 0);
	UT_EQ(th.flags, UST_TCP_SYN | UST_TCP_ACK);
	UT_EQ(df, 0);
	p.tsval++;
	psend(stk, &p, 0, NULL, 0);
	sd = ust_accept(stk, ls, NULL, NULL);
	UT_ASSERT(sd >= 0);
	UT_EQ(getopt_int(stk, sd, IPPROTO_IP, IP_MTU_DISCOVER),
	      IP_PMTUDISC_DONT);
	UT_EQ(ust_send(stk, sd, "abc", 3, 0), 3);
	UT_EQ(expect_df(&p, &th, &df), 3);
	UT_EQ(df, 0);
	icmp_err(stk, &p, UST_ICMP_DEST_UNREACH, UST_ICMP_CODE_FRAG_NEEDED,
		 1000, th.seq, 1500);
	UT_EQ(mib(stk, UST_MIB_TCPEXT_TCPICMPIGNORED), 1);
	UT_EQ(getopt_int(stk, sd, IPPROTO_IP, IP_MTU), 1500);
	UT_ASSERT(tx_none());
	/* DO, PROBE, WANT: DF */
	UT_EQ(setopt_int(stk, sd, IPPROTO_IP, IP_MTU_DISCOVER,
			 IP_PMTUDISC_PROBE), 0);
	UT_EQ(setopt_int(stk, sd, IPPROTO_IP, IP_MTU_DISCOVER,
			 IP_PMTUDISC_DO), 0);
	UT_EQ(getopt_int(stk, sd, IPPROTO_IP, IP_MTU_DISCOVER),
	      IP_PMTUDISC_DO);
	p.tsval++;
	psend(stk, &p, 0, "x", 1);
	UT_EQ(expect_df(&p, &th, &df), 0);
	UT_EQ(df, 1);
	UT_EQ(last_tos, 0);
	/* IP_TOS: an int or one byte; the ECN bits stay the stack's */
	UT_EQ(setopt_int(stk, sd, IPPROTO_IP, IP_TOS, 0x2f), 0);
	UT_EQ(getopt_int(stk, sd, IPPROTO_IP, IP_TOS), 0x2c);
	UT_EQ(ust_send(stk, sd, "abc", 3, 0), 3);
	UT_EQ(expect_df(&p, &th, &df), 3);
	UT_EQ(last_tos, 0x2c);
	{
		uint8_t b = 0x10;

		UT_EQ(ust_setsockopt(stk, sd, IPPROTO_IP, IP_TOS, &b, 1), 0);
	}
	UT_EQ(getopt_int(stk, sd, IPPROTO_IP, IP_TOS), 0x10);
	return teardown(stk);
}

/* connect() meets an ICMP error: the attempt ends with its errno, as
 * Linux reports it; a sequence number other than the ISS is ignored. */
static int
test_icmp_connect(void)
{
	static const struct {
		uint8_t type, code;
		int err;
	} cases[] = {
		{ UST_ICMP_DEST_UNREACH, UST_ICMP_CODE_PORT_UNREACH,
		  ECONNREFUSED },
		{ UST_ICMP_DEST_UNREACH, UST_ICMP_CODE_HOST_UNREACH,
		  EHOSTUNREACH },
		{ UST_ICMP_DEST_UNREACH, UST_ICMP_CODE_NET_UNREACH,
		  ENETUNREACH },
		{ UST_ICMP_DEST_UNREACH, UST_ICMP_CODE_PROTO_UNREACH,
		  ENOPROTOOPT },
		{ UST_ICMP_DEST_UNREACH, 13, EHOSTUNREACH },
		{ UST_ICMP_TIME_EXCEEDED, 0, EHOSTUNREACH },
		{ UST_ICMP_PARAM_PROBLEM, 0, EPROTO },
	};
	struct ust_stack *stk = stack(NULL);
	unsigned int i;
	struct peer p;
	uint32_t iss;
	int sd, epd;

	for (i = 0; i < RTE_DIM(cases); i++) {
		peer_init(&p, 1000);
		sd = connect_to(stk, &p, LPORT);
		UT_ASSERT(sd >= 0);
		epd = watch(stk, sd, UST_EPOLLOUT);
		iss = p.rcv_nxt - 1;
		icmp_err(stk, &p, cases[i].type, cases[i].code, 0, iss + 1,
			 60);
		UT_EQ(state_of(stk, sd), UST_TCP_SYN_SENT);
		UT_EQ(mib(stk, UST_MIB_TCPEXT_OUTOFWINDOWICMPS), i + 1);
		icmp_err(stk, &p, cases[i].type, cases[i].code, 0, iss, 60);
		UT_EQ(state_of(stk, sd), UST_TCP_CLOSED);
		UT_ASSERT(events_of(stk, epd) & UST_EPOLLERR);
		UT_EQ(getopt_int(stk, sd, SOL_SOCKET, SO_ERROR), cases[i].err);
		UT_EQ(mib(stk, UST_MIB_TCPEXT_TCPICMPHARDERRORS), i + 1);
		UT_EQ(mib(stk, UST_MIB_TCP_ATTEMPTFAILS), i + 1);
		UT_EQ(ust_close(stk, epd), 0);
		UT_EQ(ust_close(stk, sd), 0);
		UT_ASSERT(tx_none());
	}
	/* fragmentation needed in SYN-SENT: the MSS we announce next */
	peer_init(&p, 1000);
	sd = connect_to(stk, &p, LPORT);
	iss = p.rcv_nxt - 1;
	icmp_err(stk, &p, UST_ICMP_DEST_UNREACH, UST_ICMP_CODE_FRAG_NEEDED,
		 1280, iss, 60);
	UT_EQ(state_of(stk, sd), UST_TCP_SYN_SENT);
	UT_EQ(getopt_int(stk, sd, IPPROTO_TCP, TCP_MAXSEG), 1240);
	{
		struct ust_tcp_repr th;

		UT_ASSERT(wait_tx(stk, 1100) > 0);
		UT_EQ(expect(&p, &th, NULL, 0), 0);
		UT_EQ(th.flags, UST_TCP_SYN);
		UT_EQ(th.opts.mss, 1240);
		/* and the MSS agreed: 1240 less the timestamps */
		peer_syn_flags(stk, &p, UST_TCP_ACK);
		UT_EQ(expect(&p, &th, NULL, 0), 0);
		UT_EQ(getopt_int(stk, sd, IPPROTO_TCP, TCP_MAXSEG), 1228);
	}
	return teardown(stk);
}

/* Established: errors are soft (RFC 1122 4.2.3.9), kept for SO_ERROR and
 * reported instead of ETIMEDOUT when the connection times out. */
static int
test_icmp_soft(void)
{
	struct ust_stack *stk = stack(NULL);
	struct ust_tcp_repr th;
	struct peer p;
	int ls, sd, epd, ms;

	ls = listener(stk, LPORT, 8);
	sd = open_passive(stk, ls, &p, 1000);
	UT_ASSERT(sd >= 0);
	epd = watch(stk, sd, UST_EPOLLIN);
	UT_EQ(ust_send(stk, sd, "hello", 5, 0), 5);
	UT_EQ(expect(&p, &th, NULL, 0), 5);
	icmp_err(stk, &p, UST_ICMP_DEST_UNREACH, UST_ICMP_CODE_PORT_UNREACH,
		 0, th.seq, 60);
	UT_EQ(state_of(stk, sd), UST_TCP_ESTABLISHED);
	UT_EQ(mib(stk, UST_MIB_TCPEXT_TCPICMPSOFTERRORS), 1);
	/* not an EPOLLERR; SO_ERROR tells it once */
	UT_EQ(events_of(stk, epd), 0);
	UT_EQ(getopt_int(stk, sd, SOL_SOCKET, SO_ERROR), ECONNREFUSED);
	UT_EQ(getopt_int(stk, sd, SOL_SOCKET, SO_ERROR), 0);
	/* an ACK of new data forgets it (the path works), as Linux */
	icmp_err(stk, &p, UST_ICMP_DEST_UNREACH, UST_ICMP_CODE_HOST_UNREACH,
		 0, th.seq, 60);
	p.tsval++;
	psend(stk, &p, 0, NULL, 0);
	UT_EQ(getopt_int(stk, sd, SOL_SOCKET, SO_ERROR), 0);
	UT_EQ(mib(stk, UST_MIB_TCPEXT_TCPICMPSOFTERRORS), 2);
	UT_EQ(ust_send(stk, sd, "world", 5, 0), 5);
	UT_EQ(expect(&p, &th, NULL, 0), 5);
	/* a router's TTL expired, then the data is never acknowledged: the
	 * connection times out (TCP_USER_TIMEOUT 2 s, to be short) with
	 * that error */
	icmp_err(stk, &p, UST_ICMP_TIME_EXCEEDED, 0, 0, th.seq, 60);
	UT_EQ(mib(stk, UST_MIB_TCPEXT_TCPICMPSOFTERRORS), 3);
	UT_EQ(setopt_int(stk, sd, IPPROTO_TCP, TCP_USER_TIMEOUT, 2000), 0);
	for (ms = 0; ms < 5000 && state_of(stk, sd) != UST_TCP_CLOSED; ms++)
		run(stk, 1);
	UT_EQ(state_of(stk, sd), UST_TCP_CLOSED);
	UT_ASSERT(events_of(stk, epd) & UST_EPOLLERR);
	UT_EQ(getopt_int(stk, sd, SOL_SOCKET, SO_ERROR), EHOSTUNREACH);
	UT_EQ(mib(stk, UST_MIB_TCPEXT_TCPABORTONTIMEOUT), 1);
	ut_tx_drain(&nif);
	/* TIME_WAIT and half-open entries */
	UT_EQ(ust_close(stk, epd), 0);
	UT_EQ(ust_close(stk, sd), 0);
	return teardown(stk);
}

/* A half-open entry: dropped on net or host unreachable (Linux's
 * tcp_req_err()), kept on port unreachable; only about our ISS. */
static int
test_icmp_half_open(void)
{
	struct ust_stack *stk = stack(NULL);
	struct ust_tcp_repr th;
	struct peer p;
	uint32_t iss;
	int ls;

	ls = listener(stk, LPORT, 8);
	UT_ASSERT(ls >= 0);
	peer_init(&p, 1000);
	peer_syn(stk, &p);
	UT_EQ(expect(&p, &th, NULL, 0), 0);
	iss = th.seq;
	icmp_err(stk, &p, UST_ICMP_DEST_UNREACH, UST_ICMP_CODE_HOST_UNREACH,
		 0, iss + 1, 60);
	UT_EQ(mib(stk, UST_MIB_TCPEXT_OUTOFWINDOWICMPS), 1);
	icmp_err(stk, &p, UST_ICMP_DEST_UNREACH, UST_ICMP_CODE_PORT_UNREACH,
		 0, iss, 60);
	UT_EQ(mib(stk, UST_MIB_TCPEXT_TCPICMPIGNORED), 1);
	UT_EQ(mib(stk, UST_MIB_TCPEXT_LISTENDROPS), 0);
	icmp_err(stk, &p, UST_ICMP_DEST_UNREACH, UST_ICMP_CODE_HOST_UNREACH,
		 0, iss, 60);
	UT_EQ(mib(stk, UST_MIB_TCPEXT_TCPICMPHARDERRORS), 1);
	UT_EQ(mib(stk, UST_MIB_TCPEXT_LISTENDROPS), 1);
	/* the entry is gone: the handshake's ACK finds nothing (RST) */
	p.tsval++;
	psend(stk, &p, 0, NULL, 0);
	UT_EQ(expect(&p, &th, NULL, 0), 0);
	UT_EQ(th.flags & UST_TCP_RST, UST_TCP_RST);
	UT_EQ(ust_accept(stk, ls, NULL, NULL), -EAGAIN);
	return teardown(stk);
}

/* TCP_MAXSEG on a listener: the MSS its SYN-ACKs announce, and a bound on
 * the accepted connections' send MSS. */
static int
test_maxseg_listener(void)
{
	struct ust_stack *stk = stack(NULL);
	struct ust_tcp_repr th;
	static uint8_t buf[3000];
	struct peer p;
	int ls, sd;

	ls = listener(stk, LPORT, 8);
	UT_EQ(getopt_int(stk, ls, IPPROTO_TCP, TCP_MAXSEG), 1460);
	UT_EQ(setopt_int(stk, ls, IPPROTO_TCP, TCP_MAXSEG, 50), -EINVAL);
	UT_EQ(setopt_int(stk, ls, IPPROTO_TCP, TCP_MAXSEG, 70000), -EINVAL);
	UT_EQ(setopt_int(stk, ls, IPPROTO_TCP, TCP_MAXSEG, 9000), 0);
	UT_EQ(getopt_int(stk, ls, IPPROTO_TCP, TCP_MAXSEG), 1460);
	UT_EQ(setopt_int(stk, ls, IPPROTO_TCP, TCP_MAXSEG, 1000), 0);
	UT_EQ(getopt_int(stk, ls, IPPROTO_TCP, TCP_MAXSEG), 1000);
	peer_init(&p, 1000);
	peer_syn(stk, &p);
	UT_EQ(expect(&p, &th, NULL, 0), 0);
	UT_EQ(th.flags, UST_TCP_SYN | UST_TCP_ACK);
	UT_EQ(th.opts.mss, 1000);
	p.tsval++;
	psend(stk, &p, 0, NULL, 0);
	sd = ust_accept(stk, ls, NULL, NULL);
	UT_ASSERT(sd >= 0);
	/* the peer offered 1460: 1000 bounds it, less the timestamps */
	UT_EQ(getopt_int(stk, sd, IPPROTO_TCP, TCP_MAXSEG), 988);
	UT_EQ(setopt_int(stk, sd, IPPROTO_TCP, TCP_MAXSEG, 500), -EINVAL);
	UT_EQ(setopt_int(stk, sd, IPPROTO_TCP, TCP_NODELAY, 1), 0);
	UT_EQ(ust_send(stk, sd, buf, sizeof(buf), 0), (ssize_t)sizeof(buf));
	UT_EQ(expect(&p, &th, NULL, 0), 988);
	UT_EQ(expect(&p, &th, NULL, 0), 988);
	UT_EQ(expect(&p, &th, NULL, 0), 988);
	UT_EQ(expect(&p, &th, NULL, 0), 3000 - 3 * 988);
	/* 0: the default again */
	UT_EQ(setopt_int(stk, ls, IPPROTO_TCP, TCP_MAXSEG, 0), 0);
	UT_EQ(getopt_int(stk, ls, IPPROTO_TCP, TCP_MAXSEG), 1460);
	return teardown(stk);
}

/* TCP_NOTSENT_LOWAT: writable, and send() takes more, only while the bytes
 * not yet sent are under the mark. */
static int
test_notsent_lowat(void)
{
	struct ust_stack *stk = stack(NULL);
	struct ust_tcp_repr th;
	static uint8_t buf[5000];
	struct tcp_info ti;
	struct peer p;
	int ls, sd, epd;

	ls = listener(stk, LPORT, 8);
	peer_init(&p, 1000);
	p.wscale = NO_WS;
	p.win = 1000;
	sd = handshake_passive(stk, ls, &p);
	UT_ASSERT(sd >= 0);
	UT_EQ(setopt_int(stk, sd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, -1),
	      -EINVAL);
	UT_EQ(setopt_int(stk, sd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, 1200), 0);
	UT_EQ(setopt_int(stk, sd, IPPROTO_TCP, TCP_NODELAY, 1), 0);
	UT_EQ(getopt_int(stk, sd, IPPROTO_TCP, TCP_NOTSENT_LOWAT), 1200);
	epd = watch(stk, sd, UST_EPOLLOUT);
	UT_EQ(events_of(stk, epd), UST_EPOLLOUT);
	/* the peer's window takes 1000 bytes: 4000 wait */
	UT_EQ(ust_send(stk, sd, buf, sizeof(buf), 0), (ssize_t)sizeof(buf));
	UT_EQ(expect(&p, &th, NULL, 0), 1000);
	UT_ASSERT(tx_none());
	UT_EQ(linux_info(stk, sd, &ti), 0);
	UT_EQ(ti.tcpi_notsent_bytes, 4000);
	UT_EQ(events_of(stk, epd), 0);
	UT_EQ(ust_send(stk, sd, buf, 10, 0), -EAGAIN);
	/* the window opens: two full segments go (the 204 bytes left of the
	 * window wait: sender SWS avoidance), 1104 wait, under the mark */
	p.win = 3100;
	p.tsval++;
	psend(stk, &p, 0, NULL, 0);
	UT_EQ(expect(&p, &th, NULL, 0), 1448);
	UT_EQ(expect(&p, &th, NULL, 0), 1448);
	UT_ASSERT(tx_none());
	UT_EQ(linux_info(stk, sd, &ti), 0);
	UT_EQ(ti.tcpi_notsent_bytes, 1104);
	UT_EQ(events_of(stk, epd), UST_EPOLLOUT);
	UT_EQ(ust_send(stk, sd, buf, 10, 0), 10);
	/* off again: the send buffer alone decides */
	UT_EQ(setopt_int(stk, sd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, 0), 0);
	UT_EQ(ust_send(stk, sd, buf, 1000, 0), 1000);
	UT_EQ(events_of(stk, epd), UST_EPOLLOUT);
	UT_EQ(ust_close(stk, epd), 0);
	return teardown(stk);
}

/* TCP_USER_TIMEOUT (RFC 5482): data unacknowledged that long aborts the
 * connection with ETIMEDOUT, well before retries2 would. */
static int
test_user_timeout(void)
{
	struct ust_stack *stk = stack(NULL);
	struct ust_tcp_repr th;
	struct peer p;
	int ls, sd, ms;

	ls = listener(stk, LPORT, 8);
	sd = open_passive(stk, ls, &p, 1000);
	UT_ASSERT(sd >= 0);
	UT_EQ(setopt_int(stk, sd, IPPROTO_TCP, TCP_USER_TIMEOUT, -1), -EINVAL);
	UT_EQ(setopt_int(stk, sd, IPPROTO_TCP, TCP_USER_TIMEOUT, 3000), 0);
	UT_EQ(getopt_int(stk, sd, IPPROTO_TCP, TCP_USER_TIMEOUT), 3000);
	UT_EQ(ust_send(stk, sd, "data", 4, 0), 4);
	UT_EQ(expect(&p, &th, NULL, 0), 4);
	for (ms = 0; ms < 10000 && state_of(stk, sd) != UST_TCP_CLOSED; ms++)
		run(stk, 1);
	/* 3 s after the data went (a loss probe's few ms aside) */
	UT_ASSERT(ms >= 3000 && ms <= 3100, "aborted after %d ms", ms);
	UT_EQ(getopt_int(stk, sd, SOL_SOCKET, SO_ERROR), ETIMEDOUT);
	UT_EQ(mib(stk, UST_MIB_TCPEXT_TCPABORTONTIMEOUT), 1);
	ut_tx_drain(&nif);

	/* a connect() too, whatever syn_retries says */
	peer_init(&p, 1000);
	sd = ust_socket(stk, AF_INET, SOCK_STREAM, 0);
	UT_EQ(setopt_int(stk, sd, IPPROTO_TCP, TCP_USER_TIMEOUT, 1500), 0);
	{
		struct sockaddr_in sin = addr_of(UT_PEER_IP, LPORT);

		UT_EQ(ust_connect(stk, sd, (struct sockaddr *)&sin,
				  sizeof(sin)), -EINPROGRESS);
	}
	for (ms = 0; ms < 10000 && state_of(stk, sd) != UST_TCP_CLOSED; ms++)
		run(stk, 1);
	UT_ASSERT(ms >= 1500 && ms <= 1510, "aborted after %d ms", ms);
	UT_EQ(getopt_int(stk, sd, SOL_SOCKET, SO_ERROR), ETIMEDOUT);
	ut_tx_drain(&nif);
	return teardown(stk);
}

/* TCP_CORK: partial segments wait for uncork, a full segment, or 200 ms. */
static int
test_cork(void)
{
	struct ust_stack *stk = stack(NULL);
	struct ust_tcp_repr th;
	static uint8_t buf[2000];
	struct peer p;
	int ls, sd;

	ls = listener(stk, LPORT, 8);
	sd = open_passive(stk, ls, &p, 1000);
	UT_ASSERT(sd >= 0);
	UT_EQ(setopt_int(stk, sd, IPPROTO_TCP, TCP_NODELAY, 1), 0);
	UT_EQ(setopt_int(stk, sd, IPPROTO_TCP, TCP_CORK, 1), 0);
	UT_EQ(getopt_int(stk, sd, IPPROTO_TCP, TCP_CORK), 1);
	UT_EQ(ust_send(stk, sd, buf, 100, 0), 100);
	UT_ASSERT(tx_none());
	/* a full segment goes; the rest waits */
	UT_EQ(ust_send(stk, sd, buf, 1500, 0), 1500);
	UT_EQ(expect(&p, &th, NULL, 0), 1448);
	UT_ASSERT(tx_none());
	p.tsval++;
	psend(stk, &p, 0, NULL, 0);
	UT_ASSERT(tx_none());
	run(stk, 150);
	UT_ASSERT(tx_none());
	/* the ceiling: 200 ms after it began to wait */
	UT_EQ(wait_tx(stk, 100), 50);
	UT_EQ(expect(&p, &th, NULL, 0), 1600 - 1448);
	p.tsval++;
	psend(stk, &p, 0, NULL, 0);
	/* uncorked: what waits goes at once, Nagle or not */
	UT_EQ(setopt_int(stk, sd, IPPROTO_TCP, TCP_NODELAY, 0), 0);
	UT_EQ(ust_send(stk, sd, buf, 10, 0), 10);
	UT_ASSERT(tx_none());
	UT_EQ(setopt_int(stk, sd, IPPROTO_TCP, TCP_CORK, 0), 0);
	UT_EQ(expect(&p, &th, NULL, 0), 10);
	UT_EQ(getopt_int(stk, sd, IPPROTO_TCP, TCP_CORK), 0);
	/* uncorked, Nagle holds a second small segment while one is out */
	UT_EQ(ust_send(stk, sd, buf, 10, 0), 10);
	UT_ASSERT(tx_none());
	run(stk, 300);
	ut_tx_drain(&nif);
	p.tsval++;
	psend(stk, &p, 0, NULL, 0);
	/* corked again: TCP_NODELAY pushes what the cork holds, once
	 * (Linux's TCP_NAGLE_PUSH), and the socket stays corked */
	UT_EQ(setopt_int(stk, sd, IPPROTO_TCP, TCP_CORK, 1), 0);
	UT_EQ(ust_send(stk, sd, buf, 20, 0), 20);
	UT_ASSERT(tx_none());
	UT_EQ(setopt_int(stk, sd, IPPROTO_TCP, TCP_NODELAY, 1), 0);
	UT_EQ(expect(&p, &th, NULL, 0), 20);
	UT_EQ(getopt_int(stk, sd, IPPROTO_TCP, TCP_CORK), 1);
	p.tsval++;
	psend(stk, &p, 0, NULL, 0);
	UT_EQ(ust_send(stk, sd, buf, 20, 0), 20);
	UT_ASSERT(tx_none());
	ut_tx_drain(&nif);
	return teardown(stk);
}

/* TCP_INQ: an option of 0 or 1, inherited from the listener, read back
 * as set (Linux's recvmsg_inq); the bytes waiting are in UST_TCP_INFO. */
static int
test_inq(void)
{
	struct ust_stack *stk = stack(NULL);
	static uint8_t buf[300];
	struct peer p;
	int ls, sd;

	ls = listener(stk, LPORT, 8);
	UT_EQ(getopt_int(stk, ls, IPPROTO_TCP, TCP_INQ), 0);
	UT_EQ(setopt_int(stk, ls, IPPROTO_TCP, TCP_INQ, 2), -EINVAL);
	UT_EQ(setopt_int(stk, ls, IPPROTO_TCP, TCP_INQ, 1), 0);
	sd = open_passive(stk, ls, &p, 1000);
	UT_ASSERT(sd >= 0);
	UT_EQ(getopt_int(stk, ls, IPPROTO_TCP, TCP_INQ), 1);
	UT_EQ(getopt_int(stk, sd, IPPROTO_TCP, TCP_INQ), 1);
	p.tsval++;
	psend(stk, &p, 0, buf, sizeof(buf));
	UT_EQ(getopt_int(stk, sd, IPPROTO_TCP, TCP_INQ), 1);
	UT_EQ(ust_recv(stk, sd, buf, 100, 0), 100);
	UT_EQ(setopt_int(stk, sd, IPPROTO_TCP, TCP_INQ, 0), 0);
	UT_EQ(getopt_int(stk, sd, IPPROTO_TCP, TCP_INQ), 0);
	UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), 200);
	ut_tx_drain(&nif);
	return teardown(stk);
}

/* TCP_INFO in Linux's struct tcp_info; a shorter buffer gets the first
 * bytes. Unknown options stay ENOPROTOOPT. */
static int
test_tcp_info(void)
{
	struct ust_stack *stk = stack(NULL);
	struct ust_tcp_repr th;
	static uint8_t buf[3000];
	struct tcp_info ti;
	uint8_t small[8];
	socklen_t l;
	struct peer p;
	int ls, sd;

	ls = listener(stk, LPORT, 5);
	UT_EQ(linux_info(stk, ls, &ti), 0);
	UT_EQ(ti.tcpi_state, 10); /* TCP_LISTEN */
	UT_EQ(ti.tcpi_sacked, 5);
	UT_EQ(ti.tcpi_unacked, 0);
	sd = open_passive(stk, ls, &p, 1000);
	UT_ASSERT(sd >= 0);
	p.tsval++;
	psend(stk, &p, 0, buf, 700);
	UT_EQ(expect(&p, &th, NULL, 0), 0); /* ACK (quick-ACK) */
	UT_EQ(setopt_int(stk, sd, IPPROTO_TCP, TCP_NODELAY, 1), 0);
	UT_EQ(ust_send(stk, sd, buf, sizeof(buf), 0), (ssize_t)sizeof(buf));
	UT_EQ(expect(&p, &th, NULL, 0), 1448);
	UT_EQ(expect(&p, &th, NULL, 0), 1448);
	UT_EQ(expect(&p, &th, NULL, 0), 104);
	UT_EQ(linux_info(stk, sd, &ti), 0);
	UT_EQ(ti.tcpi_state, 1); /* TCP_ESTABLISHED */
	UT_EQ(ti.tcpi_ca_state, TCP_CA_Open);
	UT_EQ(ti.tcpi_options, TCPI_OPT_TIMESTAMPS | TCPI_OPT_SACK |
	      TCPI_OPT_WSCALE);
	UT_EQ(ti.tcpi_snd_wscale, 7);
	UT_EQ(ti.tcpi_rcv_wscale, 7);
	UT_EQ(ti.tcpi_snd_mss, 1448);
	UT_EQ(ti.tcpi_advmss, 1460);
	UT_EQ(ti.tcpi_pmtu, 1500);
	UT_EQ(ti.tcpi_unacked, 3);
	UT_EQ(ti.tcpi_snd_cwnd, 10);
	UT_EQ(ti.tcpi_snd_ssthresh, 0x7fffffffu);
	UT_EQ(ti.tcpi_snd_wnd, 65535u << 7);
	UT_EQ(ti.tcpi_bytes_received, 700);
	UT_EQ(ti.tcpi_bytes_acked, 0);
	UT_EQ(ti.tcpi_notsent_bytes, 0);
	UT_EQ(ti.tcpi_ato, 1000);
	UT_ASSERT(ti.tcpi_rto >= 200000, "rto %u", ti.tcpi_rto);
	UT_ASSERT(ti.tcpi_segs_in >= 1 && ti.tcpi_segs_out >= 4,
		  "in %u out %u", ti.tcpi_segs_in, ti.tcpi_segs_out);
	UT_EQ(ti.tcpi_total_retrans, 0);
	UT_EQ(ti.tcpi_lost, 0);
	UT_EQ(ti.tcpi_delivery_rate, 0);
	UT_EQ(ti.tcpi_rcv_ooopack, 0);
	p.tsval++;
	psend(stk, &p, 0, NULL, 0);
	UT_EQ(linux_info(stk, sd, &ti), 0);
	UT_EQ(ti.tcpi_bytes_acked, 3000);
	/* the times since data last went each way, in milliseconds */
	UT_ASSERT(ti.tcpi_last_data_sent <= 2, "%u", ti.tcpi_last_data_sent);
	run(stk, 300);
	p.tsval++;
	psend(stk, &p, 0, "abc", 3);
	run(stk, 100);
	UT_EQ(linux_info(stk, sd, &ti), 0);
	UT_ASSERT(ti.tcpi_last_data_recv >= 98 && ti.tcpi_last_data_recv <= 102,
		  "last_data_recv %u", ti.tcpi_last_data_recv);
	UT_ASSERT(ti.tcpi_last_data_sent >= 398 &&
		  ti.tcpi_last_data_sent <= 402, "last_data_sent %u",
		  ti.tcpi_last_data_sent);
	UT_EQ(ti.tcpi_unacked, 0);
	/* a caller with a newer, longer struct (Linux 6.18's: tcpi_rcv_wnd
	 * and on after tcpi_snd_wnd) gets it all: our window right after
	 * tcpi_snd_wnd, u64-aligned length, nothing beyond */
	{
		uint8_t big[512];
		size_t at = offsetof(struct tcp_info, tcpi_snd_wnd) + 4;
		uint32_t rcv_wnd;

		memset(big, 0xee, sizeof(big));
		l = sizeof(big);
		UT_EQ(ust_getsockopt(stk, sd, IPPROTO_TCP, TCP_INFO, big, &l),
		      0);
		UT_EQ(l, RTE_ALIGN_CEIL(at + 48, 8));
		memcpy(&rcv_wnd, big + at, 4);
		UT_ASSERT(rcv_wnd > 0);
		UT_EQ(big[l], 0xee);
	}
	/* the first 8 bytes only */
	memset(small, 0xee, sizeof(small));
	l = sizeof(small);
	UT_EQ(ust_getsockopt(stk, sd, IPPROTO_TCP, TCP_INFO, small, &l), 0);
	UT_EQ(l, sizeof(small));
	UT_EQ(small[0], 1);
	UT_EQ(small[5], TCPI_OPT_TIMESTAMPS | TCPI_OPT_SACK |
	      TCPI_OPT_WSCALE);
	UT_EQ(small[6], 0x77); /* rcv_wscale 7 << 4 | snd_wscale 7 */
	UT_EQ(getopt_int(stk, sd, IPPROTO_TCP, 9999), -ENOPROTOOPT);
	UT_EQ(setopt_int(stk, sd, IPPROTO_TCP, 9999, 1), -ENOPROTOOPT);
	ut_tx_drain(&nif);
	return teardown(stk);
}

/* IPv4 hands time exceeded and parameter problem to the protocols' error
 * handlers too: UDP, as Linux without IP_RECVERR, does not report them. */
static int
test_udp_soft_ignored(void)
{
	struct ust_stack *stk = stack(NULL);
	struct sockaddr_in to = addr_of(UT_PEER_IP, 9);
	struct rte_mbuf *out;
	uint8_t q[29];
	char buf[8];
	int sd;

	sd = ust_socket(stk, AF_INET, SOCK_DGRAM, 0);
	UT_EQ(ust_connect(stk, sd, (struct sockaddr *)&to, sizeof(to)), 0);
	UT_EQ(ust_send(stk, sd, "q", 1, 0), 1);
	ust_stack_flush(stk);
	out = ut_tx_pop(&nif);
	UT_ASSERT(out != NULL);
	memcpy(q, rte_pktmbuf_mtod_offset(out, uint8_t *, 14), sizeof(q));
	rte_pktmbuf_free(out);
	inject(stk, ut_icmp_error_frame(pool, UST_ICMP_TIME_EXCEEDED, 0, 0,
					q, sizeof(q)));
	inject(stk, ut_icmp_error_frame(pool, UST_ICMP_PARAM_PROBLEM, 0, 0,
					q, sizeof(q)));
	UT_EQ(mib(stk, UST_MIB_ICMP_INTIMEEXCDS), 1);
	UT_EQ(mib(stk, UST_MIB_ICMP_INPARMPROBS), 1);
	UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), -EAGAIN);
	UT_EQ(getopt_int(stk, sd, SOL_SOCKET, SO_ERROR), 0);
	/* and destination unreachable still is */
	inject(stk, ut_icmp_error_frame(pool, UST_ICMP_DEST_UNREACH,
					UST_ICMP_CODE_PORT_UNREACH, 0,
					q, sizeof(q)));
	UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), -ECONNREFUSED);
	/* TCP counts nothing of UDP's errors */
	UT_EQ(mib(stk, UST_MIB_ICMP_INERRORS), 0);
	UT_EQ(ust_close(stk, sd), 0);
	return teardown(stk);
}

static const struct ut_case cases[] = {
	{ "ICMP: fragmentation needed, RFC 5927, no connection",
	  test_icmp_frag_needed },
	{ "IP_MTU_DISCOVER: DF, DONT ignores fragmentation needed",
	  test_ip_mtu_discover },
	{ "ICMP: connect() aborted", test_icmp_connect },
	{ "ICMP: soft errors, reported on timeout", test_icmp_soft },
	{ "ICMP: half-open entries", test_icmp_half_open },
	{ "TCP_MAXSEG on a listener", test_maxseg_listener },
	{ "TCP_NOTSENT_LOWAT", test_notsent_lowat },
	{ "TCP_USER_TIMEOUT", test_user_timeout },
	{ "TCP_CORK and its ceiling", test_cork },
	{ "TCP_INQ", test_inq },
	{ "TCP_INFO: Linux's struct tcp_info", test_tcp_info },
	{ "UDP: time exceeded, parameter problem not reported",
	  test_udp_soft_ignored },
};

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	if (ut_eal_init(argv[0], "0") != 0)
		return 1;
	pool = ut_pool("ut_tcp_icmp", 4096);
	if (pool == NULL)
		return 1;
	ut_netif_init(&nif, 0);
	return UT_RUN(cases);
}
