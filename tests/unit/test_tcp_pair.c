/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Two TCP stacks in one process, each behind a seeded fault-injection
 * stage (drivers/fault), joined by an in-memory wire and a fake clock:
 * bulk streams both ways and many short connections, with loss,
 * reordering, duplication and corruption, checked byte-exact, closed in
 * order, with every mbuf back in the pool at the end. Variants cover
 * CUBIC and NewReno, and SACK and timestamps switched off.
 */

#include <errno.h>
#include <stdlib.h>
#include <netinet/tcp.h>

#include "ust_fault.h"
#include "ust_socket.h"
#include "ust_stack.h"
#include "ust_tcp.h"
#include "ust_tcp_tx.h"
#include "ut.h"
#include "ut_netif.h"

#define A_IP UT_OUR_IP
#define B_IP UT_PEER_IP
#define PORT 5001
#define STEP_NS 50000ull            /* 50 us of fake time per round */

static struct rte_mempool *pool;

struct side {
	struct ut_netif nif;
	struct ust_fault *fault;
	struct ust_stack *stk;
};

static struct side A, B;
static uint64_t now;

/* what each variant changes */
struct variant {
	const char *name;
	const char *fault;          /* ust_fault_parse() spec, both sides */
	const char *cc;
	bool no_sack;
	bool no_ts;
	uint8_t layout;             /* enum ust_tcp_tx_layout */
	uint16_t small;             /* copy_small */
};

static const struct variant *var;

static void
tweak(struct ust_stack_conf *c)
{
	if (var->no_sack)
		c->tcp.sack = 0;
	if (var->no_ts)
		c->tcp.timestamps = 0;
	snprintf(c->tcp.congestion, sizeof(c->tcp.congestion), "%s", var->cc);
	c->tcp.time_wait_ms = 2000;
	c->tcp.tx_layout = var->layout;
	c->tcp.copy_small = var->small;
}

static int
side_up(struct side *s, const struct rte_ether_addr *mac, rte_be32_t addr,
	uint64_t seed)
{
	struct ust_fault_conf fc;
	struct ust_stack_conf c;
	char err[128];
	static unsigned int n;
	char name[16];

	/* chained frames reach the other side as they are: its RX path
	 * reads them as a NIC's scattered receive would give them */
	ut_netif_init(&s->nif, var->layout != 0 ?
		      UST_NETIF_F_TX_MULTI_SEGS : 0);
	s->nif.netif.mac = *mac;
	ust_fault_conf_defaults(&fc);
	if (ust_fault_parse(var->fault, &fc, err, sizeof(err)) != 0) {
		fprintf(stderr, "  %s\n", err);
		return -1;
	}
	fc.seed = seed;
	s->fault = ust_fault_create(&fc, &s->nif.netif, pool);
	if (s->fault == NULL)
		return -1;
	ust_stack_conf_defaults(&c);
	snprintf(name, sizeof(name), "pair%u", n++);
	c.name = name;
	ust_fault_netif(s->fault, &c.netif);
	c.pool = pool;
	c.addr = addr;
	c.prefix_len = 24;
	c.now_ns = now;
	tweak(&c);
	s->stk = ust_stack_create(&c);
	return s->stk != NULL ? 0 : -1;
}

/* frames one side sent become the other side's to receive */
static void
wire(struct ut_netif *from, struct ut_netif *to)
{
	unsigned int i;

	for (i = 0; i < from->tx_n; i++) {
		if (to->rx_n < UT_TX_MAX)
			to->rx[to->rx_n++] = from->tx[i];
		else
			rte_pktmbuf_free(from->tx[i]);
	}
	from->tx_n = 0;
}

static void
round_trip(void)
{
	now += STEP_NS;
	ust_stack_poll(A.stk, now);
	ust_stack_poll(B.stk, now);
	ust_stack_flush(A.stk);
	ust_stack_flush(B.stk);
	wire(&A.nif, &B.nif);
	wire(&B.nif, &A.nif);
}

static int
pair_up(void)
{
	now = 1000000000ull;
	if (side_up(&A, &ut_our_mac, A_IP, 11) != 0 ||
	    side_up(&B, &ut_peer_mac, B_IP, 23) != 0)
		return -1;
	return 0;
}

static int
pair_down(void)
{
	unsigned int i;

	UT_EQ(ut_check_conservation(A.stk), 0);
	UT_EQ(ut_check_conservation(B.stk), 0);
	ust_stack_destroy(A.stk);
	ust_stack_destroy(B.stk);
	for (i = 0; i < B.nif.rx_n; i++)
		rte_pktmbuf_free(B.nif.rx[i]);
	for (i = 0; i < A.nif.rx_n; i++)
		rte_pktmbuf_free(A.nif.rx[i]);
	A.nif.rx_n = 0;
	B.nif.rx_n = 0;
	ut_tx_drain(&A.nif);
	ut_tx_drain(&B.nif);
	ust_fault_free(A.fault);
	ust_fault_free(B.fault);
	return ut_leak_check(pool);
}

/* byte i of stream @id: a position-dependent pattern, so that a byte
 * delivered twice, out of order or corrupted shows */
static inline uint8_t
pat(uint32_t id, uint64_t i)
{
	uint64_t x = (i >> 3) * 0x9e3779b97f4a7c15ull + id;

	x ^= x >> 29;
	return (uint8_t)(x >> (8 * (i & 7)));
}

/* one direction of a stream */
struct flow {
	int sd;
	uint32_t id;
	uint64_t total;
	uint64_t sent;
	uint64_t rcvd;
	bool shut;          /* we sent FIN */
	bool eof;           /* we read EOF */
	int err;
	uint64_t buf_at;    /* stream offset of buf[0] */
	uint32_t buf_len;
	uint8_t buf[16384];
};

static int
flow_send(struct ust_stack *stk, struct flow *f)
{
	while (f->sent < f->total) {
		size_t n, i;
		ssize_t k;

		if (f->sent >= f->buf_at + f->buf_len) {
			f->buf_at = f->sent;
			f->buf_len = (uint32_t)RTE_MIN(sizeof(f->buf),
						       f->total - f->sent);
			for (i = 0; i < f->buf_len; i++)
				f->buf[i] = pat(f->id, f->buf_at + i);
		}
		n = f->buf_at + f->buf_len - f->sent;
		k = ust_send(stk, f->sd, f->buf + (f->sent - f->buf_at), n, 0);
		if (k == -EAGAIN || k == -ENOBUFS)
			return 0;
		if (k < 0) {
			f->err = (int)-k;
			fprintf(stderr, "  stream %u: send: %s after %" PRIu64
				" bytes\n", f->id, strerror(f->err), f->sent);
			return -1;
		}
		f->sent += (uint64_t)k;
	}
	if (!f->shut) {
		if (ust_shutdown(stk, f->sd, SHUT_WR) != 0)
			return -1;
		f->shut = true;
	}
	return 0;
}

/* read what arrived, checking it against the peer's flow @id */
static int
flow_recv(struct ust_stack *stk, struct flow *f, uint32_t id)
{
	uint8_t buf[8192];

	for (;;) {
		ssize_t k = ust_recv(stk, f->sd, buf, sizeof(buf), 0), i;

		if (k == -EAGAIN)
			return 0;
		if (k < 0) {
			f->err = (int)-k;
			fprintf(stderr, "  stream %u: recv: %s after %" PRIu64
				" bytes\n", id, strerror(f->err), f->rcvd);
			return -1;
		}
		if (k == 0) {
			f->eof = true;
			return 0;
		}
		for (i = 0; i < k; i++)
			if (buf[i] != pat(id, f->rcvd + (uint64_t)i)) {
				fprintf(stderr, "  stream %u: byte %" PRIu64
					" wrong\n", id, f->rcvd + (uint64_t)i);
				return -1;
			}
		f->rcvd += (uint64_t)k;
	}
}

static int
open_pair(int *ca, int *sb, int *lb)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = RTE_BE16(PORT),
				   .sin_addr.s_addr = B_IP };
	int i, one = 1;

	*lb = ust_socket(B.stk, AF_INET, SOCK_STREAM, 0);
	UT_EQ(ust_bind(B.stk, *lb, (struct sockaddr *)&sin, sizeof(sin)), 0);
	UT_EQ(ust_listen(B.stk, *lb, 16), 0);
	*ca = ust_socket(A.stk, AF_INET, SOCK_STREAM, 0);
	UT_EQ(ust_setsockopt(A.stk, *ca, IPPROTO_TCP, TCP_NODELAY, &one,
			     sizeof(one)), 0);
	UT_EQ(ust_connect(A.stk, *ca, (struct sockaddr *)&sin, sizeof(sin)),
	      -EINPROGRESS);
	*sb = -EAGAIN;
	for (i = 0; i < 400000 && *sb == -EAGAIN; i++) {
		round_trip();
		*sb = ust_accept(B.stk, *lb, NULL, NULL);
	}
	UT_ASSERT(*sb >= 0, "accept: %d", *sb);
	return 0;
}

static void
dump(const char *who, struct ust_stack *stk)
{
	struct ust_stats st;
	unsigned int i;

	ust_stack_stats_get(stk, &st);
	fprintf(stderr, "  %s:", who);
	for (i = 0; i < UST_MIB_MAX; i++)
		if (st.mib[i] != 0 && strncmp(ust_mib_name(i), "Tcp", 0) == 0)
			fprintf(stderr, " %s=%" PRIu64, ust_mib_name(i),
				st.mib[i]);
	fprintf(stderr, "\n  %s drops:", who);
	for (i = 0; i < UST_DROP_MAX; i++)
		if (st.drop[i] != 0)
			fprintf(stderr, " %s=%" PRIu64, ust_drop_name(i),
				st.drop[i]);
	fprintf(stderr, "\n");
}

static uint64_t
mibv(struct ust_stack *stk, enum ust_mib c)
{
	struct ust_stats st;

	ust_stack_stats_get(stk, &st);
	return st.mib[c];
}

static void
info(const char *who, struct ust_stack *stk, int sd)
{
	struct ust_tcp_info i;
	socklen_t l = sizeof(i);

	if (ust_getsockopt(stk, sd, UST_SOL_USTACK, UST_TCP_INFO, &i, &l) != 0)
		return;
	fprintf(stderr, "  %s: state %u snd_wnd %u rcv_wnd %u cwnd %u "
		"ssthresh %u unacked %u sacked %u snd_buf %u rcv_buf %u ofo %u "
		"backoff %u rto %u recovery %u\n", who, i.state, i.snd_wnd,
		i.rcv_wnd, i.cwnd, i.ssthresh, i.unacked, i.sacked,
		i.snd_buffered, i.rcv_buffered, i.ofo_segs, i.backoff,
		i.rto_us, i.in_recovery);
}

static void
dump_pair(int sa, int sb)
{
	dump("A", A.stk);
	dump("B", B.stk);
	info("A", A.stk, sa);
	info("B", B.stk, sb);
}

/* A stream each way, @na bytes from A and @nb from B, both closed by
 * shutdown(SHUT_WR) once sent, then close(). */
static int
bulk(uint64_t na, uint64_t nb)
{
	static struct flow fa, fb;
	struct ust_tcp_info ti;
	socklen_t l = sizeof(ti);
	int lb, rounds;

	memset(&fa, 0, sizeof(fa));
	memset(&fb, 0, sizeof(fb));
	fa.id = 1;
	fa.total = na;
	fb.id = 2;
	fb.total = nb;
	UT_EQ(pair_up(), 0);
	UT_EQ(open_pair(&fa.sd, &fb.sd, &lb), 0);
	for (rounds = 0; rounds < 2000000; rounds++) {
		UT_EQ(flow_send(A.stk, &fa), 0);
		UT_EQ(flow_send(B.stk, &fb), 0);
		round_trip();
		if (flow_recv(A.stk, &fa, 2) != 0 ||
		    flow_recv(B.stk, &fb, 1) != 0) {
			dump_pair(fa.sd, fb.sd);
			return -1;
		}
		if (fa.eof && fb.eof)
			break;
	}
	if (!(fa.eof && fb.eof))
		dump_pair(fa.sd, fb.sd);
	UT_ASSERT(fa.eof && fb.eof, "after %d rounds: A sent %" PRIu64
		  " got %" PRIu64 ", B sent %" PRIu64 " got %" PRIu64, rounds,
		  fa.sent, fa.rcvd, fb.sent, fb.rcvd);
	UT_EQ(fa.rcvd, nb);
	UT_EQ(fb.rcvd, na);
	UT_EQ(ust_getsockopt(A.stk, fa.sd, UST_SOL_USTACK, UST_TCP_INFO, &ti,
			     &l), 0);
	printf("  %s: %d rounds (%.1f s fake); A: srtt %u us rto %u us; "
	       "RetransSegs %" PRIu64 "/%" PRIu64 ", timeouts %" PRIu64
	       "/%" PRIu64 ", fast retransmits %" PRIu64 "/%" PRIu64
	       " (A/B)\n", var->name, rounds, rounds * STEP_NS / 1e9,
	       ti.srtt_us, ti.rto_us,
	       mibv(A.stk, UST_MIB_TCP_RETRANSSEGS),
	       mibv(B.stk, UST_MIB_TCP_RETRANSSEGS),
	       mibv(A.stk, UST_MIB_TCPEXT_TCPTIMEOUTS),
	       mibv(B.stk, UST_MIB_TCPEXT_TCPTIMEOUTS),
	       mibv(A.stk, UST_MIB_TCPEXT_TCPFASTRETRANS),
	       mibv(B.stk, UST_MIB_TCPEXT_TCPFASTRETRANS));
	if (getenv("UT_VERBOSE") != NULL)
		dump_pair(fa.sd, fb.sd);
	UT_EQ(ust_close(A.stk, fa.sd), 0);
	UT_EQ(ust_close(B.stk, fb.sd), 0);
	UT_EQ(ust_close(B.stk, lb), 0);
	/* the last ACKs, TIME_WAIT's end (2 s here) */
	for (rounds = 0; rounds < 200000; rounds++)
		round_trip();
	UT_EQ(mibv(A.stk, UST_MIB_TCP_CURRESTAB), 0);
	UT_EQ(mibv(B.stk, UST_MIB_TCP_CURRESTAB), 0);
	if (strstr(var->fault, "drop=0") == NULL)
		UT_ASSERT(mibv(A.stk, UST_MIB_TCP_RETRANSSEGS) +
			  mibv(B.stk, UST_MIB_TCP_RETRANSSEGS) > 0);
	return pair_down();
}

static const struct variant variants[] = {
	{ "clean cubic", "drop=0", "cubic", false, false, 0, 0 },
	{ "lossy cubic", "drop=10%,reorder=5%,dup=2%,corrupt=1%", "cubic",
	  false, false, 0, 0 },
	{ "lossy newreno", "drop=10%,reorder=5%,dup=2%,corrupt=1%", "newreno",
	  false, false, 0, 0 },
	{ "lossy, no SACK", "drop=5%,reorder=3%,dup=1%", "newreno", true,
	  false, 0, 0 },
	{ "lossy, SACK", "drop=5%,reorder=3%,dup=1%", "newreno", false,
	  false, 0, 0 },
	{ "5% drop only, SACK", "drop=5%", "newreno", false, false, 0, 0 },
	{ "5% drop only, no SACK", "drop=5%", "newreno", true, false, 0, 0 },
	{ "lossy, no timestamps", "drop=5%,reorder=3%,dup=1%", "cubic", false,
	  true, 0, 0 },
	{ "lossy, chained", "drop=10%,reorder=5%,dup=2%,corrupt=1%", "cubic",
	  false, false, UST_TCP_TX_CHAINED, 0 },
	{ "lossy, first-linear, copy-small 256",
	  "drop=10%,reorder=5%,dup=2%,corrupt=1%", "cubic", false, false,
	  UST_TCP_TX_FIRST_LINEAR, 256 },
};

static int
test_bulk(void)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(variants); i++) {
		var = &variants[i];
		if (bulk(2u << 20, 1u << 20) != 0) {
			fprintf(stderr, "  variant '%s' failed\n", var->name);
			return -1;
		}
	}
	return 0;
}

/* B echoes, zero copy, as ust-echo's server does: what ust_recv_burst()
 * gives goes back with ust_send_burst(); while the send buffer refuses,
 * B stops reading (its window closes) */
struct echo {
	int sd;
	uint16_t npend;
	bool eof;
	struct rte_mbuf *pend[32];
};

static int
echo_serve(struct ust_stack *stk, struct echo *e)
{
	for (;;) {
		int n;

		if (e->npend > 0) {
			int k = ust_send_burst(stk, e->sd, e->pend, e->npend,
					       NULL);

			if (k > 0) {
				memmove(e->pend, e->pend + k,
					(e->npend - (unsigned int)k) *
					sizeof(e->pend[0]));
				e->npend = (uint16_t)(e->npend - k);
			}
			if (e->npend > 0)
				return 0;
		}
		if (e->eof)
			return 0;
		n = ust_recv_burst(stk, e->sd, e->pend, 32, NULL);
		if (n == -EAGAIN)
			return 0;
		if (n == 0) {
			e->eof = true;
			return ust_shutdown(stk, e->sd, SHUT_WR);
		}
		if (n < 0) {
			fprintf(stderr, "  echo: %s\n", strerror(-n));
			return -1;
		}
		e->npend = (uint16_t)n;
	}
}

static int
echo_stream(uint64_t total)
{
	static struct flow fa;
	struct echo eb;
	int lb, rounds;

	memset(&fa, 0, sizeof(fa));
	memset(&eb, 0, sizeof(eb));
	fa.id = 1;
	fa.total = total;
	UT_EQ(pair_up(), 0);
	UT_EQ(open_pair(&fa.sd, &eb.sd, &lb), 0);
	for (rounds = 0; rounds < 4000000 && !fa.eof; rounds++) {
		UT_EQ(flow_send(A.stk, &fa), 0);
		round_trip();
		if (echo_serve(B.stk, &eb) != 0 ||
		    flow_recv(A.stk, &fa, 1) != 0) {
			dump_pair(fa.sd, eb.sd);
			return -1;
		}
	}
	if (!fa.eof)
		dump_pair(fa.sd, eb.sd);
	UT_ASSERT(fa.eof, "after %d rounds: sent %" PRIu64 " echoed %" PRIu64,
		  rounds, fa.sent, fa.rcvd);
	UT_EQ(fa.rcvd, total);
	printf("  echo %s: %d rounds (%.1f s fake); timeouts %" PRIu64 "/%"
	       PRIu64 "\n", var->name, rounds, rounds * STEP_NS / 1e9,
	       mibv(A.stk, UST_MIB_TCPEXT_TCPTIMEOUTS),
	       mibv(B.stk, UST_MIB_TCPEXT_TCPTIMEOUTS));
	UT_EQ(ust_close(A.stk, fa.sd), 0);
	UT_EQ(ust_close(B.stk, eb.sd), 0);
	UT_EQ(ust_close(B.stk, lb), 0);
	for (rounds = 0; rounds < 200000; rounds++)
		round_trip();
	return pair_down();
}

static int
test_echo(void)
{
	static const struct variant v[] = {
		{ "clean", "drop=0", "cubic", false, false, 0, 0 },
		{ "lossy", "drop=10%,reorder=5%,dup=2%,corrupt=1%", "cubic",
		  false, false, 0, 0 },
		{ "lossy, chained", "drop=10%,reorder=5%,dup=2%,corrupt=1%",
		  "cubic", false, false, UST_TCP_TX_CHAINED, 128 },
	};
	unsigned int i;

	for (i = 0; i < RTE_DIM(v); i++) {
		var = &v[i];
		if (echo_stream(8u << 20) != 0) {
			fprintf(stderr, "  variant '%s' failed\n", var->name);
			return -1;
		}
	}
	return 0;
}

static const struct ut_case cases[] = {
	{ "bulk both ways, clean and lossy", test_bulk },
	{ "zero-copy echo of a stream, clean and lossy", test_echo },
};

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	if (ut_eal_init(argv[0], "0") != 0)
		return 1;
	pool = ut_pool("ut_tcp_pair", 16384);
	if (pool == NULL)
		return 1;
	return UT_RUN(cases);
}
