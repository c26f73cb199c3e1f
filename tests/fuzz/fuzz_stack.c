/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * libFuzzer target for the whole stack, as smoltcp fuzzes its interface,
 * with the TCP peer played by the harness so that the input reaches the
 * states behind a handshake.
 *
 * Every input runs on a fresh stack instance (the random numbers seeded:
 * an input replays the same way), set up with a UDP socket on port 7 that
 * echoes, a TCP listener on port 80 with a small backlog (SYN cookies are
 * near), an IPv6-only one on [::]:81 (TCP over IPv6: its half-open and
 * accept-queue entries in the IPv6 connection table, reached by FRAME
 * operations), a passive connection from the peer's port 40000 and an active one
 * to the peer's port 5001, both established and accepted.
 *
 * The input's first byte picks the configuration (F_* below); then it is a
 * sequence of operations, an opcode byte and its arguments (missing bytes
 * read as 0; seeds.py writes inputs in this format):
 *
 *  FRAME   u16 len, bytes: a raw frame (its last byte also picks the NIC's
 *          checksum verdicts), as the earlier version of this target did
 *  SEG     a TCP segment from the peer to connection slot c, built with the
 *          wire emitters: sequence number relative to the connection's
 *          rcv_nxt (read from its control block, so that in-window data,
 *          holes and overlaps are one small offset away), ACK relative to
 *          its snd_una, snd_nxt or snd_max, window, timestamps (forward or
 *          back, for PAWS), up to three SACK blocks relative to snd_una,
 *          handshake options, a payload, and the frame split into mbufs
 *  TCPRAW  u16 len, bytes: a TCP header and payload from the input, sent
 *          to slot c's 4-tuple (optionally its ports and sequence numbers)
 *          with a valid checksum: the option parser behind the stack
 *  CLOCK   the fake clock moves by 1 ms to months: delayed ACK, RTO,
 *          persist, keepalive, FIN_WAIT_2, TIME_WAIT and SYN-ACK timers
 *  SEND    ust_send() or ust_send_burst() on slot c's socket
 *  RECV    ust_recv(), MSG_PEEK or ust_recv_burst() on slot c's socket
 *  SOCK    shutdown(), close(), socket options (TX layouts and
 *          copy-small included), accept() (connections
 *          wait in the accept queue until then), the listener closed and
 *          opened again
 *  OPEN    a new connection in slot c: the peer's SYN with the options the
 *          input picks (the handshake completed and accepted, or not), or
 *          ust_connect() (the peer's SYN-ACK sent or not)
 *  NETIF   how many frames the netif takes per burst (0: TX backs up)
 *  UDP     the UDP socket echoes what it has (a datagram above the MTU
 *          goes out in fragments)
 *  FRAG    an IPv4 fragment from the peer: one of four datagrams (their
 *          IDs), UDP to the echo socket or TCP to the listener, offset
 *          and length in 8-byte units (or a few bytes off), MF, up to 64
 *          payload bytes from the input (u8 count, then the bytes) (a first UDP piece without gets a header whose
 *          length is one or two pieces'), 40 bytes of IP options or none;
 *          the reassembly rules, bounds and timeouts
 *  END     the stack is destroyed there, with everything open
 *
 * After every operation: every frame in is consumed or dropped with exactly
 * one reason; every frame out parses with valid checksums; the sockets'
 * memory accounting (each socket's queues against rmem_alloc, the TCP pool
 * against what the connections hold), the connection table against its
 * counters and CurrEstab, and each connection's sequence space, queues,
 * scoreboard and timers consistent. At the end of an input (but END) every
 * socket is closed and the clock runs from timer to timer until TCP holds
 * nothing (no connection may linger forever); then the stack is destroyed
 * and every mbuf must be back in the pool. A violation aborts; FUZZ_TRACE=1
 * in the environment prints the segments of an input.
 */

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/tcp.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_random.h>
#include <rte_udp.h>

#include "ip_private.h"
#include "tcp_private.h"
#include "ust_socket.h"
#include "ust_stack.h"
#include "ust_tcp.h"
#include "ust_tcp_tx.h"
#include "ut.h"
#include "ut_netif.h"

#define MS UINT64_C(1000000)
#define LPORT 80
#define LPORT6 81
#define MAX_CONN 8
#define MAX_PAYLOAD 4000

/* the configuration byte */
#define F_NO_SACK 0x01
#define F_NO_TS 0x02
#define F_NO_WS 0x04
#define F_NO_COOKIES 0x08
#define F_NEWRENO 0x10
#define F_NO_QUICKACK 0x20
#define F_SMALL_BUF 0x40
#define F_PLAIN_PEER 0x80  /* the set-up handshakes offer no options */

enum op {
	OP_FRAME,
	OP_SEG,
	OP_TCPRAW,
	OP_CLOCK,
	OP_SEND,
	OP_RECV,
	OP_SOCK,
	OP_OPEN,
	OP_NETIF,
	OP_UDP,
	OP_FRAG,
	OP_END,
	OP_MAX
};

/* SEG: the sel byte */
#define SEL_ACK_BASE 0x03   /* snd_max, snd_una, snd_nxt, snd_una - 128 KiB */
#define SEL_FAR 0x04        /* the sequence offset in KiB */
#define SEL_CHAIN 0x08      /* the frame in up to three mbufs (u8 cut) */
#define SEL_CSUM_OK 0x10    /* the NIC verified the checksum */
#define SEL_MSS 0x20        /* SYN options */
#define SEL_WS 0x40
#define SEL_SACK_PERM 0x80
/* SEG: the opt byte */
#define OPT_TS 0x01
#define OPT_NSACK 0x06      /* SACK blocks, 0 to 3 */
#define OPT_TS_BACK 0x08    /* tsval goes back (PAWS) */
/* bits 4-7: tsecr that many 16 ms in the past */

/* what the harness knows of a connection, as the peer */
struct conn {
	bool used;
	int sd;             /* our socket, -1 when none (closed, or not
			     * accepted yet) */
	uint16_t lport;     /* ours */
	uint16_t rport;     /* the peer's */
	uint32_t peer_isn;
	uint32_t tsval;     /* the peer's timestamp clock */
	uint32_t our_tsval; /* the last timestamp we sent */
	/* our side's sequence space, refreshed from the connection table,
	 * or learned from what we sent when the table has nothing */
	uint32_t rcv_nxt;
	uint32_t snd_una;
	uint32_t snd_nxt;
	uint32_t snd_max;
};

struct reader {
	const uint8_t *p;
	size_t n;
	size_t off;
};

static struct rte_mempool *pool;
static struct ut_netif nif;
static struct ust_stack *stk;
static uint64_t now;
static uint8_t cfg;
static int udp_sd;
static int listen_sd;
static int listen6_sd;   /* [::]:81, IPV6_V6ONLY */
static struct conn conns[MAX_CONN];
static uint8_t frame_buf[UST_ETH_HDR_LEN + 60 + 60 + MAX_PAYLOAD];
static bool trace; /* FUZZ_TRACE=1: print the operations (reproducing) */
/* a raw TCP frame went in: the bytes at a sequence number may be anyone's */
static bool raw_tcp;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		fprintf(stderr, "fuzz_stack: %s:%d: %s: ", __FILE__, \
			__LINE__, #cond); \
		fprintf(stderr, "" __VA_ARGS__); \
		fprintf(stderr, "\n"); \
		abort(); \
	} \
} while (0)

#define TRACE(...) do { \
	if (trace) \
		fprintf(stderr, __VA_ARGS__); \
} while (0)

static void
trace_seg(const char *dir, const struct ust_tcp_repr *th, uint32_t plen)
{
	TRACE("  %s %u>%u %s%s%s%s%s seq %u ack %u win %u len %u%s%s\n", dir,
	      th->src_port, th->dst_port,
	      (th->flags & UST_TCP_SYN) ? "S" : "",
	      (th->flags & UST_TCP_FIN) ? "F" : "",
	      (th->flags & UST_TCP_RST) ? "R" : "",
	      (th->flags & UST_TCP_PSH) ? "P" : "",
	      (th->flags & UST_TCP_ACK) ? "." : "", th->seq, th->ack,
	      th->window, plen, (th->opts.has & UST_TCPOPT_TS) ? " ts" : "",
	      th->opts.nsack ? " sack" : "");
}

/*
 * Every byte of a stream is a function of its sequence number, the peer's
 * and ours alike: what the application reads and what we send (first time
 * or again) is checked byte by byte, whatever the reassembly did.
 */
static uint8_t
seq_byte(uint32_t seq)
{
	return (uint8_t)(seq ^ seq >> 8 ^ seq >> 16 ^ seq >> 24 ^ 0x5a);
}

static void
seq_fill(uint8_t *p, uint32_t seq, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = seq_byte(seq + (uint32_t)i);
}

/* @len bytes at @p are the stream's from @seq (of slot @c, for the log) */
static void
seq_check(const uint8_t *p, uint32_t seq, size_t len, const char *what)
{
	size_t i;

	for (i = 0; i < len; i++)
		CHECK(p[i] == seq_byte(seq + (uint32_t)i),
		      "%s: byte at %u is %#x, not %#x", what,
		      seq + (uint32_t)i, p[i], seq_byte(seq + (uint32_t)i));
}

/* ---- reading the input ---- */

static uint8_t
rd_u8(struct reader *r)
{
	return r->off < r->n ? r->p[r->off++] : 0;
}

static uint16_t
rd_u16(struct reader *r)
{
	uint16_t lo = rd_u8(r);

	return (uint16_t)(lo | (uint16_t)rd_u8(r) << 8);
}

/* Up to @len bytes of the input; *got says how many there were. */
static const uint8_t *
rd_bytes(struct reader *r, size_t len, size_t *got)
{
	const uint8_t *p = r->p + r->off;

	if (len > r->n - r->off)
		len = r->n - r->off;
	r->off += len;
	*got = len;
	return p;
}

/* ---- frames in ---- */

/* Inject @len bytes of frame in up to three mbufs: the first @cut bytes
 * past the Ethernet header, then two halves (cut 0: linear). */
static void
inject(const uint8_t *f, size_t len, uint64_t ol_flags, unsigned int cut)
{
	struct rte_mbuf *head = NULL, *prev = NULL;
	size_t off = 0, seg[3];
	unsigned int i, n = 0;

	if (cut == 0 || len <= UST_ETH_HDR_LEN + cut) {
		seg[n++] = len;
	} else {
		size_t rest = len - UST_ETH_HDR_LEN - cut;

		seg[n++] = UST_ETH_HDR_LEN + cut;
		seg[n++] = rest / 2;
		seg[n++] = rest - rest / 2;
	}
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m;
		char *p;

		if (seg[i] == 0 && i > 0)
			continue;
		m = rte_pktmbuf_alloc(pool);
		CHECK(m != NULL, "pool empty");
		p = rte_pktmbuf_append(m, (uint16_t)seg[i]);
		CHECK(p != NULL || seg[i] == 0);
		if (seg[i] > 0)
			memcpy(p, f + off, seg[i]);
		off += seg[i];
		if (head == NULL) {
			head = m;
		} else {
			prev->next = m;
			head->nb_segs++;
			head->pkt_len += m->pkt_len;
		}
		prev = m;
	}
	head->ol_flags = ol_flags;
	now += 10000;
	ust_stack_input(stk, &head, 1, now);
}

static void
eth_ip_hdr(uint8_t *f, size_t l4len)
{
	struct ust_eth_repr e;
	struct ust_ipv4_repr ip;

	e.dst = ut_our_mac;
	e.src = ut_peer_mac;
	e.ethertype = RTE_ETHER_TYPE_IPV4;
	ust_eth_emit(f, UST_ETH_HDR_LEN, &e);
	memset(&ip, 0, sizeof(ip));
	ip.src = UT_PEER_IP;
	ip.dst = UT_OUR_IP;
	ip.proto = IPPROTO_TCP;
	ip.ttl = 64;
	ip.total_len = (uint16_t)(UST_IPV4_HDR_LEN + l4len);
	ust_ipv4_emit(f + UST_ETH_HDR_LEN, UST_IPV4_HDR_LEN, &ip, 0);
}

/* A TCP segment from the peer, linear in frame_buf, then injected. */
static void
send_tcp(struct ust_tcp_repr *th, uint32_t plen, uint64_t ol,
	 unsigned int cut)
{
	size_t hlen = UST_TCP_HDR_LEN +
		ust_tcp_opts_len(&th->opts, (th->flags & UST_TCP_SYN) != 0);
	uint8_t *l4 = frame_buf + UST_ETH_HDR_LEN + UST_IPV4_HDR_LEN;

	eth_ip_hdr(frame_buf, hlen + plen);
	seq_fill(l4 + hlen, th->seq + ((th->flags & UST_TCP_SYN) ? 1 : 0),
		 plen);
	ust_tcp_emit(l4, hlen, th, UT_PEER_IP, UT_OUR_IP, l4 + hlen, plen, 0);
	trace_seg("in ", th, plen);
	inject(frame_buf, UST_ETH_HDR_LEN + UST_IPV4_HDR_LEN + hlen + plen, ol,
	       cut);
}

/* ---- what the harness knows of the connections ---- */

static struct ust_tcp_key
conn_key(const struct conn *c)
{
	struct ust_tcp_key k = {
		.laddr = UT_OUR_IP,
		.raddr = UT_PEER_IP,
		.lport = rte_cpu_to_be_16(c->lport),
		.rport = rte_cpu_to_be_16(c->rport),
	};

	return k;
}

/* Our side's sequence numbers, from whatever holds the 4-tuple. */
static void
conn_refresh(struct conn *c)
{
	struct ust_tcp_key k = conn_key(c);
	void *d = ust_tcp_hash_lookup(stk, &k);

	if (d == NULL)
		return;
	switch (tcp_obj_kind(d)) {
	case UST_TCP_OBJ_SOCK: {
		struct ust_tcp_sock *tp = tcp_obj_ptr(d);

		c->rcv_nxt = tp->state == UST_TCP_SYN_SENT ? c->peer_isn :
			tp->rcv_nxt;
		c->snd_una = tp->snd_una;
		c->snd_nxt = tp->snd_nxt;
		c->snd_max = tp->snd_max;
		break;
	}
	case UST_TCP_OBJ_REQ: {
		struct ust_tcp_req *rq = tcp_obj_ptr(d);

		c->rcv_nxt = rq->irs + 1;
		c->snd_una = rq->iss + 1;
		c->snd_nxt = rq->iss + 1;
		c->snd_max = rq->iss + 1;
		break;
	}
	case UST_TCP_OBJ_TW: {
		struct ust_tcp_tw *tw = tcp_obj_ptr(d);

		c->rcv_nxt = tw->rcv_nxt;
		c->snd_una = tw->snd_nxt;
		c->snd_nxt = tw->snd_nxt;
		c->snd_max = tw->snd_nxt;
		break;
	}
	}
}

static struct conn *
conn_of_ports(uint16_t lport, uint16_t rport)
{
	unsigned int i;

	for (i = 0; i < MAX_CONN; i++)
		if (conns[i].used && conns[i].lport == lport &&
		    conns[i].rport == rport)
			return &conns[i];
	return NULL;
}

static void
conn_init(struct conn *c, unsigned int slot, uint16_t lport, uint16_t rport)
{
	memset(c, 0, sizeof(*c));
	c->used = true;
	c->sd = -1;
	c->lport = lport;
	c->rport = rport;
	c->peer_isn = 0x01000000u * (slot + 1) + 0xfff0u;
	c->tsval = 5000 + slot;
	c->rcv_nxt = c->peer_isn;
}

/* ---- frames out ---- */

/* Every frame we sent parses, checksums included; TCP segments teach the
 * peer our sequence numbers and timestamps. */
static void
tx_walk(void)
{
	unsigned int i;

	ust_stack_flush(stk);
	for (i = 0; i < nif.tx_n; i++) {
		struct rte_mbuf *m = nif.tx[i], *sg;
		unsigned int segs = m->nb_segs;
		const uint8_t *p;
		int rc;
		struct ust_eth_repr eth;
		struct ust_ipv4_repr ip;
		struct ust_tcp_repr th;
		struct ust_udp_repr u;
		struct ust_icmp_repr ic;
		struct ust_arp_repr a;
		const uint8_t *l4;
		uint32_t l4len, plen, end;
		struct conn *c;

		if (m->nb_segs > 1) {
			/* a chained layout: a consistent chain, gathered
			 * as the NIC would */
			uint32_t sum = 0, n = 0;

			for (sg = m; sg != NULL; sg = sg->next) {
				sum += sg->data_len;
				n++;
			}
			CHECK(n == m->nb_segs && sum == m->pkt_len && n <= 17,
			      "chain of %u/%u segments, %u/%u bytes", n,
			      m->nb_segs, sum, m->pkt_len);
			CHECK(rte_pktmbuf_linearize(m) == 0);
		}
		CHECK(m->nb_segs == 1 && m->data_len == m->pkt_len);
		p = rte_pktmbuf_mtod(m, const uint8_t *);
		CHECK(ust_eth_parse(p, m->data_len, &eth) == UST_WIRE_OK);
		if (eth.ethertype == RTE_ETHER_TYPE_ARP) {
			CHECK(ust_arp_parse(p + UST_ETH_HDR_LEN,
					    m->data_len - UST_ETH_HDR_LEN,
					    &a) == UST_WIRE_OK);
			continue;
		}
		if (eth.ethertype == RTE_ETHER_TYPE_IPV6) {
			struct ust_ipv6_repr ip6;
			struct ust_icmp6_repr ic6;

			/* ICMPv6, ND and UDP (the echo socket is
			 * dual-stack): a whole packet within the MTU, its
			 * checksum right, or a fragment of a datagram */
			CHECK(ust_ipv6_parse(p + UST_ETH_HDR_LEN,
					     m->data_len - UST_ETH_HDR_LEN,
					     m->data_len - UST_ETH_HDR_LEN,
					     &ip6) == UST_WIRE_OK);
			CHECK(UST_IPV6_HDR_LEN + ip6.payload_len ==
			      m->data_len - UST_ETH_HDR_LEN &&
			      m->data_len - UST_ETH_HDR_LEN <= nif.netif.mtu,
			      "IPv6 length %u", ip6.payload_len);
			/* (an MLD report: a hop-by-hop header first) */
			l4 = p + UST_ETH_HDR_LEN + UST_IPV6_HDR_LEN;
			l4len = ip6.payload_len;
			if (ip6.next_header == 44) {
				/* a piece: of UDP, 8-byte units while more
				 * follow, within 65535 bytes */
				uint16_t fo;

				CHECK(l4len > 8 && l4[0] == IPPROTO_UDP,
				      "a fragment not of UDP");
				fo = (uint16_t)((l4[2] << 8) | l4[3]);
				CHECK(!(fo & 1) || ((l4len - 8) & 7) == 0,
				      "fragment of %u", l4len - 8);
				CHECK((fo & ~7u) + l4len - 8 <= 65535);
				continue;
			}
			if (ip6.next_header == IPPROTO_UDP) {
				CHECK(ust_udp6_parse(l4, l4len, ip6.src,
						     ip6.dst, 0, &u) ==
				      UST_WIRE_OK, "our UDP over IPv6");
				continue;
			}
			if (ip6.next_header == IPPROTO_TCP) {
				/* (the connection slots are IPv4's: TCP over
				 * IPv6 is only parsed, checksum included,
				 * from our address, within the MSS) */
				CHECK(ust_tcp6_parse(l4, l4len, ip6.src,
						     ip6.dst, 0, &th) ==
				      UST_WIRE_OK, "our TCP over IPv6");
				CHECK(ust_ip6_our_addr(stk, ip6.src, false) >=
				      0, "TCP over IPv6 from another address");
				CHECK(l4len - th.hdr_len <=
				      nif.netif.mtu - UST_IPV6_HDR_LEN -
				      UST_TCP_HDR_LEN, "TCP over IPv6 of %u",
				      l4len - th.hdr_len);
				continue;
			}
			if (ip6.next_header == UST_IPV6_NH_HOPOPTS) {
				CHECK(l4len > 8 && l4[0] == UST_IPV6_NH_ICMPV6 &&
				      l4[1] == 0 && l4[8] == 143,
				      "a hop-by-hop header not MLD's");
				l4 += 8;
				l4len -= 8;
			} else {
				CHECK(ip6.next_header == UST_IPV6_NH_ICMPV6);
			}
			CHECK(ust_icmp6_parse(l4, l4len, ip6.src, ip6.dst,
					      0, &ic6) == UST_WIRE_OK,
			      "our ICMPv6 does not parse");
			continue;
		}
		CHECK(eth.ethertype == RTE_ETHER_TYPE_IPV4, "type %#x",
		      eth.ethertype);
		CHECK(ust_ipv4_parse(p + UST_ETH_HDR_LEN,
				     m->data_len - UST_ETH_HDR_LEN,
				     m->data_len - UST_ETH_HDR_LEN, 0,
				     &ip) == UST_WIRE_OK);
		CHECK(ip.total_len <= nif.netif.mtu, "IP length %u",
		      ip.total_len);
		l4 = p + UST_ETH_HDR_LEN + ip.hdr_len;
		l4len = (uint32_t)ip.total_len - ip.hdr_len;
		if (ust_ipv4_is_fragment(&ip)) {
			/* a piece of a datagram above the MTU: no DF, 8-byte
			 * pieces while more follow, within 65535 bytes (its
			 * L4 header is checked by the reassembly tests) */
			CHECK(!ip.df && ip.proto != IPPROTO_TCP,
			      "a fragment with DF or of TCP");
			CHECK(!ip.mf || (l4len & 7) == 0, "fragment of %u",
			      l4len);
			CHECK(ip.frag_off + l4len + ip.hdr_len <= 65535);
			continue;
		}
		if (ip.proto == IPPROTO_UDP) {
			CHECK(ust_udp_parse(l4, l4len, ip.src, ip.dst, 0,
					    &u) == UST_WIRE_OK);
			continue;
		}
		if (ip.proto == IPPROTO_ICMP) {
			CHECK(ust_icmp_parse(l4, l4len, 0, &ic) ==
			      UST_WIRE_OK);
			continue;
		}
		CHECK(ip.proto == IPPROTO_TCP, "proto %u", ip.proto);
		rc = ust_tcp_parse(l4, l4len, ip.src, ip.dst, 0, &th);
		CHECK(rc == UST_WIRE_OK, "our TCP segment does not parse (%d, "
		      "%d without the checksum, %u segments)", rc,
		      ust_tcp_parse(l4, l4len, ip.src, ip.dst,
				    UST_WIRE_F_NO_CSUM, &th), segs);
		CHECK(ip.src == UT_OUR_IP && ip.dst == UT_PEER_IP);
		c = conn_of_ports(th.src_port, th.dst_port);
		if (c == NULL)
			continue;
		plen = l4len - th.hdr_len;
		trace_seg("out", &th, plen);
		seq_check(l4 + th.hdr_len, th.seq, plen, "sent");
		if (th.flags & UST_TCP_RST)
			continue;
		if (th.opts.has & UST_TCPOPT_TS)
			c->our_tsval = th.opts.tsval;
		end = th.seq + plen + ((th.flags & UST_TCP_SYN) ? 1 : 0) +
			((th.flags & UST_TCP_FIN) ? 1 : 0);
		if (th.flags & UST_TCP_SYN) {
			c->snd_una = th.seq;
			c->snd_nxt = end;
			c->snd_max = end;
		} else if (SEQ_GT(end, c->snd_max)) {
			c->snd_max = end;
		}
		if (th.flags & UST_TCP_ACK)
			c->rcv_nxt = th.ack;
	}
	ut_tx_drain(&nif);
}

/* ---- invariants ---- */

static uint32_t
q_bytes(const struct ust_pktq *q, const char *name, uint32_t *truesize)
{
	int off = stk->meta_off;
	uint32_t n = 0, k = 0;
	struct rte_mbuf *m;

	*truesize = 0;
	for (m = q->head; m != NULL; m = ust_meta(off, m)->nextpkt) {
		CHECK(m->pkt_len > 0, "empty mbuf in %s", name);
		n += m->pkt_len;
		*truesize += ust_meta(off, m)->truesize;
		k++;
	}
	CHECK(k == q->len, "%s of %u holds %u", name, q->len, k);
	return n;
}

/* One connection's control block. */
static void
check_tp(const struct ust_tcp_sock *tp)
{
	int off = stk->meta_off;
	uint32_t ts_snd, ts_rcv, ts_ofo, bytes;
	struct rte_mbuf *m;
	unsigned int i;

	CHECK(SEQ_LEQ(tp->snd_una, tp->snd_nxt) &&
	      SEQ_LEQ(tp->snd_nxt, tp->snd_max),
	      "snd_una %u snd_nxt %u snd_max %u", tp->snd_una, tp->snd_nxt,
	      tp->snd_max);
	bytes = q_bytes(&tp->sndq, "sndq", &ts_snd);
	CHECK(bytes == tp->snd_buffered, "sndq %u != snd_buffered %u",
	      bytes, tp->snd_buffered);
	bytes = q_bytes(&tp->rcvq, "rcvq", &ts_rcv);
	CHECK(bytes == tp->rcv_buffered + tp->rcv_head_off,
	      "rcvq %u != rcv_buffered %u + head_off %u", bytes,
	      tp->rcv_buffered, tp->rcv_head_off);
	bytes = q_bytes(&tp->ofoq, "ofoq", &ts_ofo);
	CHECK(ts_rcv + ts_ofo == tp->rmem_alloc,
	      "queued truesize %u + %u != rmem_alloc %u", ts_rcv, ts_ofo,
	      tp->rmem_alloc);
	CHECK(tp->ofo_segs == tp->ofoq.len);
	/* the out-of-order queue: beyond rcv_nxt, sorted, no overlap */
	{
		uint32_t edge = tp->rcv_nxt;

		for (m = tp->ofoq.head; m != NULL;
		     m = ust_meta(off, m)->nextpkt) {
			uint32_t s = tcp_mseq(off, m);

			CHECK(m == tp->ofoq.head ? SEQ_GT(s, edge) :
			      SEQ_GEQ(s, edge),
			      "ofo segment at %u, edge %u (rcv_nxt %u)", s,
			      edge, tp->rcv_nxt);
			edge = s + m->pkt_len;
		}
	}
	/* the SACK block is there exactly while it holds something, and
	 * RACK's record array while something is in flight (an idle
	 * connection holds neither) */
	CHECK((tp->sack != NULL) == (tp->n_rcv_sack > 0 || tp->n_sb > 0 ||
				     (tp->tflags & TF_DSACK) != 0),
	      "SACK block %p with %u blocks, %u ranges, D-SACK %d",
	      (void *)tp->sack, tp->n_rcv_sack, tp->n_sb,
	      (tp->tflags & TF_DSACK) != 0);
	CHECK(tp->rack.live > 0 || tp->rack.recs == NULL,
	      "RACK records kept with nothing in flight (%u of %u)",
	      tp->rack.n, tp->rack.cap);
	CHECK(tp->n_rcv_sack <= UST_TCP_MAX_SACK);
	for (i = 0; i < tp->n_rcv_sack; i++)
		CHECK(SEQ_LT(tp->sack->rcv_sack[i].start,
			     tp->sack->rcv_sack[i].end) &&
		      SEQ_GT(tp->sack->rcv_sack[i].start, tp->rcv_nxt),
		      "SACK block %u-%u, rcv_nxt %u",
		      tp->sack->rcv_sack[i].start, tp->sack->rcv_sack[i].end,
		      tp->rcv_nxt);
	/* the scoreboard: sorted ranges within what is in flight */
	CHECK(tp->n_sb <= UST_TCP_SB_MAX);
	for (i = 0; i < tp->n_sb; i++) {
		const struct ust_seq_range *sb = tp->sack->sb;

		CHECK(SEQ_LT(sb[i].start, sb[i].end) &&
		      SEQ_GEQ(sb[i].start, tp->snd_una) &&
		      SEQ_LEQ(sb[i].end, tp->snd_max),
		      "scoreboard %u-%u, snd_una %u snd_max %u",
		      sb[i].start, sb[i].end, tp->snd_una, tp->snd_max);
		CHECK(i == 0 || SEQ_GT(sb[i].start, sb[i - 1].end));
	}
	CHECK(tp->sacked_bytes <= tp->snd_max - tp->snd_una);
	/* the send queue starts at snd_una (a SYN or FIN aside) */
	if (tp->state >= UST_TCP_ESTABLISHED)
		CHECK(SEQ_LEQ(tp->snd_buf_seq, tp->snd_una + 1) &&
		      SEQ_LEQ(tp->snd_una, tp->snd_buf_seq + 1),
		      "snd_buf_seq %u snd_una %u", tp->snd_buf_seq,
		      tp->snd_una);
	/* a timer runs exactly when it has a reason to, and anything in
	 * flight has one: the RTO, the loss probe's, the persist timer,
	 * or RACK's reordering timer (RFC 8985 6.3), which re-arms the RTO
	 * when it finds nothing lost */
	CHECK(ust_timer_armed(&tp->rtx_timer) == (tp->rtx_mode != UST_RTX_NONE),
	      "rtx timer armed %d mode %u", ust_timer_armed(&tp->rtx_timer),
	      tp->rtx_mode);
	if (tp->state != UST_TCP_CLOSED && tp->state != UST_TCP_LISTEN &&
	    tp->snd_una != tp->snd_max)
		CHECK(tp->rtx_mode == UST_RTX_RTO ||
		      tp->rtx_mode == UST_RTX_TLP ||
		      tp->rtx_mode == UST_RTX_REO ||
		      tp->rtx_mode == UST_RTX_PERSIST,
		      "%u bytes in flight, rtx mode %u, state %s",
		      tp->snd_max - tp->snd_una, tp->rtx_mode,
		      ust_tcp_state_name(tp->state));
	/* (or the ACK waits for TX staging room with the output) */
	CHECK(tp->state == UST_TCP_CLOSED || !(tp->tflags & TF_DELACK) ||
	      ust_timer_armed(&tp->delack_timer) ||
	      (tp->tflags & TF_NEED_OUTPUT), "delayed ACK owed, no timer");
}

static int64_t
tp_mem(const struct ust_tcp_sock *tp)
{
	return (int64_t)tp->fwd_alloc + tp->rmem_alloc;
}

static void
check_invariants(void)
{
	struct ust_tcp_stack *ts = stk->tcp;
	struct ust_sock_meminfo mi;
	socklen_t ml = sizeof(mi);
	uint32_t n_sock = 0, n_req = 0, n_tw = 0, estab = 0, iter = 0, i;
	uint32_t armed = 0;
	int64_t mem = 0;
	struct ust_stats st;
	const void *key;
	void *data;

	ust_stack_stats_get(stk, &st);
	CHECK(st.mib[UST_MIB_ETH_INFRAMES] ==
	      st.rx_consumed + ust_stats_drops(&st, UST_DROP_PATH_RX),
	      "conservation: in %" PRIu64 " consumed %" PRIu64 " drops %"
	      PRIu64, st.mib[UST_MIB_ETH_INFRAMES], st.rx_consumed,
	      ust_stats_drops(&st, UST_DROP_PATH_RX));
	if (udp_sd >= 0) {
		CHECK(ust_getsockopt(stk, udp_sd, UST_SOL_USTACK,
				     UST_SO_MEMINFO, &mi, &ml) == 0);
		CHECK(mi.rmem_alloc == mi.queued_truesize + mi.forward_deficit);
		CHECK(ust_mem_pool_pages(ust_stack_udp_mem(stk)) * 4096 ==
		      (int64_t)mi.forward_alloc + mi.rmem_alloc);
	}
	/* the connection table: its counters, CurrEstab, every control block,
	 * and the memory of those the application closed or has not accepted
	 * (the others are in the descriptor table) */
	for (int t6 = 0; t6 < 2; t6++) {
	struct rte_hash *h = t6 ? ts->conns6 : ts->conns;

	iter = 0;
	while (h != NULL && rte_hash_iterate(h, &key, &data, &iter) >= 0) {
		struct ust_tcp_sock *tp;

		switch (tcp_obj_kind(data)) {
		case UST_TCP_OBJ_REQ:
			n_req++;
			armed += ((struct ust_tcp_req *)
				  tcp_obj_ptr(data))->timer.armed;
			continue;
		case UST_TCP_OBJ_TW:
			n_tw++;
			armed += ((struct ust_tcp_tw *)
				  tcp_obj_ptr(data))->timer.armed;
			continue;
		default:
			break;
		}
		tp = tcp_obj_ptr(data);
		n_sock++;
		armed += tp->rtx_timer.armed + tp->delack_timer.armed;
		CHECK(tp->state != UST_TCP_CLOSED &&
		      tp->state != UST_TCP_LISTEN);
		/* its key: IPv4's 12 bytes, or IPv6's addresses and ports */
		CHECK((tp->a6 != NULL) == (t6 != 0));
		if (tp->a6 == NULL) {
			CHECK(memcmp(key, &(struct ust_tcp_key){
				     tp->base.laddr, tp->base.raddr,
				     tp->base.lport, tp->base.rport, NULL },
				     UST_TCP_KEY4_LEN) == 0);
		} else {
			const uint8_t *k6 = key;

			CHECK(memcmp(k6, tp->a6, 32) == 0 &&
			      memcmp(k6 + 32, &tp->base.lport, 2) == 0 &&
			      memcmp(k6 + 34, &tp->base.rport, 2) == 0);
		}
		if (tp->state == UST_TCP_ESTABLISHED ||
		    tp->state == UST_TCP_CLOSE_WAIT)
			estab++;
		check_tp(tp);
		if (tp->tflags & TF_ORPHAN)
			mem += tp_mem(tp);
	}
	}
	CHECK(n_sock == ts->n_conns && n_req == ts->n_req && n_tw == ts->n_tw,
	      "table %u/%u/%u, counters %u/%u/%u", n_sock, n_req, n_tw,
	      ts->n_conns, ts->n_req, ts->n_tw);
	CHECK(estab == st.mib[UST_MIB_TCP_CURRESTAB], "CurrEstab %" PRIu64
	      ", %u connections", st.mib[UST_MIB_TCP_CURRESTAB], estab);
	for (i = 0; i < stk->sd_cap; i++) {
		struct ust_sock *s = stk->sds[i].s;
		struct ust_tcp_sock *tp;

		if (s == NULL || s->kind != UST_SK_TCP)
			continue;
		tp = tcp_sk(s);
		CHECK(!(tp->tflags & TF_ORPHAN));
		ml = sizeof(mi);
		CHECK(ust_getsockopt(stk, (int)i, UST_SOL_USTACK,
				     UST_SO_MEMINFO, &mi, &ml) == 0);
		CHECK(mi.rmem_alloc == mi.queued_truesize);
		if (tp->state == UST_TCP_CLOSED)
			check_tp(tp);
		if (tp->state == UST_TCP_CLOSED || tp->state == UST_TCP_LISTEN)
			armed += tp->rtx_timer.armed + tp->delack_timer.armed;
		mem += tp_mem(tp);
	}
	/* the wheel holds the timers of the connection table, no others */
	CHECK(armed == ts->wheel.armed, "%u timers armed, the wheel counts %u",
	      armed, ts->wheel.armed);
	CHECK(ust_mem_pool_pages(ts->mem) << UST_MEM_PAGE_SHIFT == mem,
	      "TCP pool %" PRId64 " pages, connections hold %" PRId64
	      " bytes", ust_mem_pool_pages(ts->mem), mem);
}

/* ---- the stack and its sockets ---- */

static void
tweak(struct ust_stack_conf *c)
{
	c->now_ns = now;
	c->max_sockets = 64;
	c->tx_stage = 64; /* NETIF 0 backs TCP output up soon */
	c->tcp.max_conns = 64;
	c->tcp.max_syn_backlog = 8;
	/* IPv6 on (2001:2::2, usable at once), so that frames of 0x86DD go
	 * through ipv6.c, nd.c and icmp6.c */
	c->ip6.enable = true;
	memcpy(c->ip6.addr, (const uint8_t[16]){ 0x20, 0x01, 0, 2,
		[15] = 2 }, 16);
	c->ip6.prefix_len = 64;
	c->ip6.dad_transmits = 0;
	/* fewer retries than Linux's: an input's connections die of silence
	 * in a few turns of the timer wheel */
	c->tcp.syn_retries = 2;
	c->tcp.synack_retries = 2;
	c->tcp.retries2 = 4;
	c->tcp.sack = !(cfg & F_NO_SACK);
	c->tcp.timestamps = !(cfg & F_NO_TS);
	c->tcp.window_scaling = !(cfg & F_NO_WS);
	c->tcp.syncookies = !(cfg & F_NO_COOKIES);
	if (cfg & F_NEWRENO)
		snprintf(c->tcp.congestion, sizeof(c->tcp.congestion),
			 "newreno");
	if (cfg & F_NO_QUICKACK)
		c->tcp.quickack = 0;
	if (cfg & F_SMALL_BUF) {
		c->tcp.rmem_default = 16384;
		c->tcp.wmem_default = 16384;
	}
}

static int
tcp_listener(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = RTE_BE16(LPORT) };
	int sd = ust_socket(stk, AF_INET, SOCK_STREAM, 0), v = 1;

	CHECK(sd >= 0);
	/* (again after a close: beside the connections it accepted) */
	CHECK(ust_setsockopt(stk, sd, SOL_SOCKET, SO_REUSEADDR, &v,
			     sizeof(v)) == 0);
	if (ust_bind(stk, sd, (struct sockaddr *)&sin, sizeof(sin)) != 0 ||
	    ust_listen(stk, sd, 4) != 0) {
		ust_close(stk, sd);
		return -1;
	}
	return sd;
}

/* [::]:81, IPv6 only: TCP over IPv6 from FRAME operations */
static int
tcp_listener6(void)
{
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6,
				     .sin6_port = RTE_BE16(LPORT6) };
	int sd = ust_socket(stk, AF_INET6, SOCK_STREAM, 0), v = 1;

	CHECK(sd >= 0);
	CHECK(ust_setsockopt(stk, sd, IPPROTO_IPV6, IPV6_V6ONLY, &v,
			     sizeof(v)) == 0);
	CHECK(ust_bind(stk, sd, (struct sockaddr *)&sin6, sizeof(sin6)) == 0);
	CHECK(ust_listen(stk, sd, 4) == 0);
	return sd;
}

/* Take what the listener has: into the slot of its 4-tuple, a free slot,
 * or closed at once. */
static void
accept_all(void)
{
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);
	int sd;

	while (listen_sd >= 0 &&
	       (sd = ust_accept(stk, listen_sd, (struct sockaddr *)&sin,
				&sl)) >= 0) {
		uint16_t rport = rte_be_to_cpu_16(sin.sin_port);
		struct conn *c = conn_of_ports(LPORT, rport);
		unsigned int i;

		for (i = 0; c == NULL && i < MAX_CONN; i++)
			if (!conns[i].used) {
				c = &conns[i];
				conn_init(c, i, LPORT, rport);
			}
		if (c == NULL || c->sd >= 0) {
			ust_close(stk, sd);
			continue;
		}
		c->sd = sd;
	}
}

static void
dump_conns(void)
{
	uint32_t iter = 0;
	const void *key;
	void *data;

	while (rte_hash_iterate(stk->tcp->conns, &key, &data, &iter) >= 0) {
		struct ust_tcp_sock *tp = tcp_obj_ptr(data);

		if (tcp_obj_kind(data) != UST_TCP_OBJ_SOCK)
			continue;
		fprintf(stderr, "    %u>%u %s flags %#x una %u nxt %u max %u "
			"wnd %u buffered %u/%u rtx mode %u%s\n",
			rte_be_to_cpu_16(tp->base.lport),
			rte_be_to_cpu_16(tp->base.rport),
			ust_tcp_state_name(tp->state), tp->tflags,
			tp->snd_una, tp->snd_nxt, tp->snd_max, tp->snd_wnd,
			tp->snd_buf_seq, tp->snd_buffered, tp->rtx_mode,
			ust_timer_armed(&tp->rtx_timer) ? " armed" : "");
	}
}

/* After each operation: timers, output, invariants. */
static void
step(void)
{
	ust_stack_timers(stk, now);
	tx_walk();
	check_invariants();
	if (trace)
		dump_conns();
}

/* The peer's SYN to slot @c with the options of @o. */
static void
peer_syn(struct conn *c, uint8_t o)
{
	struct ust_tcp_repr th;

	memset(&th, 0, sizeof(th));
	th.src_port = c->rport;
	th.dst_port = c->lport;
	th.seq = c->peer_isn;
	th.flags = UST_TCP_SYN;
	th.window = 65535;
	if (o & 0x01) {
		th.opts.has |= UST_TCPOPT_MSS;
		th.opts.mss = (o & 0x20) ? 536 : 1460;
	}
	if (o & 0x02) {
		th.opts.has |= UST_TCPOPT_WS;
		th.opts.wscale = (o & 0x40) ? 14 : 7;
	}
	if (o & 0x04)
		th.opts.has |= UST_TCPOPT_SACK_PERM;
	if (o & 0x08) {
		th.opts.has |= UST_TCPOPT_TS;
		th.opts.tsval = c->tsval;
	}
	if (o & 0x80)
		th.flags |= UST_TCP_ACK; /* SYN-ACK, to an active open */
	conn_refresh(c);
	th.ack = c->snd_una + 1;
	th.opts.tsecr = c->our_tsval;
	send_tcp(&th, 0, 0, 0);
	c->rcv_nxt = c->peer_isn + 1;
}

/* The peer's ACK of our SYN(-ACK), which completes a handshake. */
static void
peer_ack(struct conn *c, bool ts)
{
	struct ust_tcp_repr th;

	conn_refresh(c);
	memset(&th, 0, sizeof(th));
	th.src_port = c->rport;
	th.dst_port = c->lport;
	th.seq = c->rcv_nxt;
	th.ack = c->snd_max;
	th.flags = UST_TCP_ACK;
	th.window = 65535;
	if (ts) {
		th.opts.has = UST_TCPOPT_TS;
		th.opts.tsval = ++c->tsval;
		th.opts.tsecr = c->our_tsval;
	}
	send_tcp(&th, 0, 0, 0);
}

static void
open_passive(unsigned int slot, uint8_t o, bool complete)
{
	struct conn *c = &conns[slot];

	if (c->used && c->sd >= 0)
		ust_close(stk, c->sd);
	conn_init(c, slot, LPORT, (uint16_t)(40000 + slot));
	peer_syn(c, o & 0x7f);
	step();
	if (complete) {
		peer_ack(c, (o & 0x08) != 0);
		step();
		accept_all();
	}
}

static void
open_active(unsigned int slot, uint8_t o, bool complete)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_addr.s_addr = UT_PEER_IP };
	struct conn *c = &conns[slot];
	socklen_t sl = sizeof(sin);
	int sd;

	if (c->used && c->sd >= 0)
		ust_close(stk, c->sd);
	c->used = false;
	sd = ust_socket(stk, AF_INET, SOCK_STREAM, 0);
	if (sd < 0)
		return;
	if (o & 0x40) {
		/* a small MSS: many segments, a full scoreboard */
		int v = UST_TCP_MIN_MSS + (o & 0x20);

		CHECK(ust_setsockopt(stk, sd, IPPROTO_TCP, TCP_MAXSEG, &v,
				     sizeof(v)) == 0);
	}
	sin.sin_port = rte_cpu_to_be_16((uint16_t)(5000 + slot));
	if (ust_connect(stk, sd, (struct sockaddr *)&sin, sizeof(sin)) !=
	    -EINPROGRESS ||
	    ust_getsockname(stk, sd, (struct sockaddr *)&sin, &sl) != 0) {
		ust_close(stk, sd);
		return;
	}
	conn_init(c, slot, rte_be_to_cpu_16(sin.sin_port),
		  (uint16_t)(5000 + slot));
	c->sd = sd;
	step();
	if (complete) {
		peer_syn(c, (uint8_t)(o | 0x80));
		step();
	}
}

/* ---- the operations ---- */

static void
op_frame(struct reader *r)
{
	size_t len = rd_u16(r), got;
	const uint8_t *p = rd_bytes(r, RTE_MIN(len, (size_t)2000), &got);
	uint64_t ol = 0;

	if (got > UST_ETH_HDR_LEN + 9 && p[12] == 0x08 && p[13] == 0x00 &&
	    p[UST_ETH_HDR_LEN + 9] == IPPROTO_TCP)
		raw_tcp = true;
	/* the fuzzer also picks the NIC's checksum verdicts */
	if (got > 0)
		ol = (uint64_t)(p[got - 1] & 0x3) << 7 |
		     (uint64_t)(p[got - 1] >> 2 & 0x3) << 3;
	inject(p, got, ol, 0);
}

static void
op_frag(struct reader *r)
{
	static uint8_t f[UST_ETH_HDR_LEN + 60 + 2048];
	uint8_t sel = rd_u8(r);
	uint16_t raw = rd_u16(r), off = raw % 8192, fl;
	/* the offset's top bit: 40 bytes of options (NOPs) in this piece's
	 * header, which a first piece carries into the whole datagram */
	uint32_t hl = (raw & 0x8000) ? 60 : 20;
	uint32_t len = (uint32_t)(rd_u8(r) % 185) * 8 + (sel >> 5);
	struct rte_ipv4_hdr *ih = (struct rte_ipv4_hdr *)(f + UST_ETH_HDR_LEN);
	struct ust_eth_repr e;
	size_t got, i;
	/* then how many payload bytes the input gives (at most 64; the rest
	 * is a pattern), and those bytes */
	uint32_t give = RTE_MIN((uint32_t)(rd_u8(r) % 65), len);
	const uint8_t *p = rd_bytes(r, give, &got);

	e.dst = ut_our_mac;
	e.src = ut_peer_mac;
	e.ethertype = RTE_ETHER_TYPE_IPV4;
	ust_eth_emit(f, UST_ETH_HDR_LEN, &e);
	memset(ih, 0, sizeof(*ih));
	memset(ih + 1, 1, hl - 20);
	ih->version_ihl = (uint8_t)(0x40 | hl / 4);
	ih->total_length = rte_cpu_to_be_16((uint16_t)(hl + len));
	ih->packet_id = rte_cpu_to_be_16((uint16_t)(0x4000 + (sel & 3)));
	fl = off;
	if (sel & 0x04)
		fl |= RTE_IPV4_HDR_MF_FLAG;
	ih->fragment_offset = rte_cpu_to_be_16(fl);
	ih->time_to_live = 64;
	ih->next_proto_id = (sel & 0x08) ? IPPROTO_TCP : IPPROTO_UDP;
	ih->src_addr = UT_PEER_IP;
	ih->dst_addr = UT_OUR_IP;
	ih->hdr_checksum = rte_ipv4_cksum(ih);
	/* the input's bytes, then a pattern (a datagram's pieces agree when
	 * the inputs have none) */
	for (i = 0; i < len; i++)
		f[UST_ETH_HDR_LEN + hl + i] = i < got ? p[i] :
			(uint8_t)(off * 8 + i);
	if (off == 0 && len >= 8 && !(sel & 0x08) && got < 8) {
		/* a UDP header to the echo socket, its length the input's */
		struct rte_udp_hdr *uh = (struct rte_udp_hdr *)
			(f + UST_ETH_HDR_LEN + hl);

		uh->src_port = RTE_BE16(4000);
		uh->dst_port = RTE_BE16(7);
		uh->dgram_len = rte_cpu_to_be_16((uint16_t)((sel & 0x10) ?
							   2 * len : len));
		uh->dgram_cksum = 0;
	}
	inject(f, UST_ETH_HDR_LEN + hl + len, 0, 0);
}

static void
op_seg(struct reader *r)
{
	struct conn *c = &conns[rd_u8(r) % MAX_CONN];
	uint8_t flags = rd_u8(r), sel = rd_u8(r);
	int16_t seq_off = (int16_t)rd_u16(r), ack_off = (int16_t)rd_u16(r);
	uint16_t win = rd_u16(r);
	uint8_t opt = rd_u8(r), tsd = rd_u8(r);
	uint32_t plen = rd_u16(r) % MAX_PAYLOAD;
	unsigned int nsack = (opt & OPT_NSACK) >> 1, cut = 0, i;
	uint32_t base[4];
	struct ust_tcp_repr th;

	if (!c->used)
		return;
	conn_refresh(c);
	memset(&th, 0, sizeof(th));
	th.src_port = c->rport;
	th.dst_port = c->lport;
	th.seq = c->rcv_nxt + (uint32_t)((int32_t)seq_off *
					 ((sel & SEL_FAR) ? 1024 : 1));
	base[0] = c->snd_max;
	base[1] = c->snd_una;
	base[2] = c->snd_nxt;
	base[3] = c->snd_una - 0x20000;
	th.ack = base[sel & SEL_ACK_BASE] + (uint32_t)(int32_t)ack_off;
	th.flags = flags;
	th.window = win;
	if (flags & UST_TCP_SYN) {
		if (sel & SEL_MSS) {
			th.opts.has |= UST_TCPOPT_MSS;
			th.opts.mss = (uint16_t)(win >> 4);
		}
		if (sel & SEL_WS) {
			th.opts.has |= UST_TCPOPT_WS;
			th.opts.wscale = tsd & 0xf;
		}
		if (sel & SEL_SACK_PERM)
			th.opts.has |= UST_TCPOPT_SACK_PERM;
	}
	if (opt & OPT_TS) {
		th.opts.has |= UST_TCPOPT_TS;
		if (opt & OPT_TS_BACK) {
			th.opts.tsval = c->tsval - tsd;
		} else {
			c->tsval += tsd;
			th.opts.tsval = c->tsval;
		}
		th.opts.tsecr = c->our_tsval - (uint32_t)(opt >> 4) * 16;
	}
	for (i = 0; i < nsack; i++) {
		uint32_t s = c->snd_una + rd_u16(r);

		th.opts.sack[i].start = s;
		th.opts.sack[i].end = s + rd_u16(r);
	}
	if (nsack > 0 && !(flags & UST_TCP_SYN)) {
		th.opts.has |= UST_TCPOPT_SACK;
		th.opts.nsack = (uint8_t)nsack;
	}
	if (sel & SEL_CHAIN)
		cut = rd_u8(r);
	/* a linear frame fits one mbuf's data room */
	if (cut == 0)
		plen = RTE_MIN(plen, (uint32_t)(2000 - UST_ETH_HDR_LEN -
						UST_IPV4_HDR_LEN -
						UST_TCP_MAX_HDR_LEN));
	send_tcp(&th, plen, (sel & SEL_CSUM_OK) ? RTE_MBUF_F_RX_L4_CKSUM_GOOD :
		 0, cut);
}

static void
op_tcpraw(struct reader *r)
{
	struct conn *c = &conns[rd_u8(r) % MAX_CONN];
	uint8_t mode = rd_u8(r);
	size_t len = rd_u16(r), got;
	const uint8_t *p = rd_bytes(r, RTE_MIN(len, (size_t)1900), &got);
	uint8_t *l4 = frame_buf + UST_ETH_HDR_LEN + UST_IPV4_HDR_LEN;
	uint32_t sum;
	uint16_t ck;

	raw_tcp = true;
	eth_ip_hdr(frame_buf, got);
	memcpy(l4, p, got);
	if (c->used && (mode & 1) && got >= 4) {
		uint16_t ports[2] = { rte_cpu_to_be_16(c->rport),
				      rte_cpu_to_be_16(c->lport) };

		memcpy(l4, ports, sizeof(ports));
	}
	if (c->used && (mode & 2) && got >= 12) {
		uint32_t sa[2];

		conn_refresh(c);
		sa[0] = rte_cpu_to_be_32(c->rcv_nxt);
		sa[1] = rte_cpu_to_be_32(c->snd_max);
		memcpy(l4 + 4, sa, sizeof(sa));
	}
	if (got >= UST_TCP_HDR_LEN && !(mode & 4)) {
		l4[16] = 0;
		l4[17] = 0;
		sum = rte_raw_cksum(l4, got);
		sum += ust_ipv4_phdr_sum(UT_PEER_IP, UT_OUR_IP, IPPROTO_TCP,
					 (uint16_t)got);
		sum = (sum & 0xffff) + (sum >> 16);
		sum = (sum & 0xffff) + (sum >> 16);
		ck = (uint16_t)~sum;
		memcpy(l4 + 16, &ck, sizeof(ck));
	}
	inject(frame_buf, UST_ETH_HDR_LEN + UST_IPV4_HDR_LEN + got, 0,
	       (mode >> 3) & 0x3f);
}

static void
op_clock(struct reader *r)
{
	uint8_t e = rd_u8(r);

	/* 1 ms to about 200 days, on a log scale */
	now += (((uint64_t)(e & 7) + 1) << (e >> 3)) * MS;
}

/* The control block behind descriptor @sd, or NULL. */
static struct ust_tcp_sock *
sd_tp(int sd)
{
	struct ust_sock *s = sd >= 0 ? ust_sd_lookup(stk, sd) : NULL;

	return s != NULL && s->kind == UST_SK_TCP ? tcp_sk(s) : NULL;
}

/* The sequence number of the next byte the application reads. */
static uint32_t
rcv_read_seq(const struct ust_tcp_sock *tp)
{
	return tp->rcv_nxt - tp->rcv_buffered -
		((tp->tflags & TF_FIN_RCVD) ? 1 : 0);
}

static void
op_send(struct reader *r)
{
	struct conn *c = &conns[rd_u8(r) % MAX_CONN];
	uint32_t len = rd_u16(r), seq;
	uint8_t mode = rd_u8(r);
	struct ust_tcp_sock *tp;

	if (!c->used || (tp = sd_tp(c->sd)) == NULL)
		return;
	seq = tcp_snd_data_end(tp);
	if (mode & 1) {
		struct rte_mbuf *pk[4];
		int n = (mode >> 1) % 4 + 1, i, k;

		for (i = 0; i < n; i++) {
			uint32_t l = RTE_MIN(len, (uint32_t)2000);
			char *p;

			pk[i] = rte_pktmbuf_alloc(pool);
			CHECK(pk[i] != NULL);
			p = rte_pktmbuf_append(pk[i], (uint16_t)l);
			CHECK(p != NULL);
			seq_fill((uint8_t *)p, seq, l);
			seq += l;
		}
		k = ust_send_burst(stk, c->sd, pk, (unsigned int)n, NULL);
		for (i = k < 0 ? 0 : k; i < n; i++)
			rte_pktmbuf_free(pk[i]);
	} else {
		uint8_t *buf = malloc(len + 1);

		CHECK(buf != NULL);
		seq_fill(buf, seq, len);
		(void)ust_send(stk, c->sd, buf, len, 0);
		free(buf);
	}
}

static void
op_recv(struct reader *r)
{
	struct conn *c = &conns[rd_u8(r) % MAX_CONN];
	uint32_t len = rd_u16(r), seq;
	uint8_t mode = rd_u8(r);
	struct ust_tcp_sock *tp;

	if (!c->used || (tp = sd_tp(c->sd)) == NULL)
		return;
	seq = rcv_read_seq(tp);
	if (mode % 3 == 2) {
		struct rte_mbuf *pk[8];
		int n = ust_recv_burst(stk, c->sd, pk, len % 8 + 1, NULL), i;

		for (i = 0; i < n; i++) {
			const struct rte_mbuf *seg;

			for (seg = pk[i]; seg != NULL; seg = seg->next) {
				if (!raw_tcp)
					seq_check(rte_pktmbuf_mtod(seg,
						const uint8_t *), seq,
						seg->data_len, "read");
				seq += seg->data_len;
			}
			rte_pktmbuf_free(pk[i]);
		}
	} else {
		uint8_t *buf = malloc(len + 1);
		ssize_t n;

		CHECK(buf != NULL);
		n = ust_recv(stk, c->sd, buf, len,
			     mode % 3 == 1 ? MSG_PEEK : 0);
		CHECK(n <= (ssize_t)len);
		if (n > 0 && !raw_tcp)
			seq_check(buf, seq, (size_t)n, "read");
		free(buf);
	}
}

static void
op_sock(struct reader *r)
{
	struct conn *c = &conns[rd_u8(r) % MAX_CONN];
	uint8_t what = rd_u8(r);
	int sd = c->used ? c->sd : -1, v = 1;
	struct linger lg = { 1, 0 };
	struct ust_tcp_info ti;
	socklen_t tl = sizeof(ti);

	switch (what % 16) {
	case 0:
	case 1:
	case 2:
		(void)ust_shutdown(stk, sd, (int)(what % 16)); /* RD, WR, RDWR */
		return;
	case 3:
		if (sd >= 0)
			ust_close(stk, sd);
		if (c->used)
			c->sd = -1;
		return;
	case 4:
		v = (what >> 4) & 1;
		(void)ust_setsockopt(stk, sd, IPPROTO_TCP, TCP_NODELAY, &v,
				     sizeof(v));
		return;
	case 5:
		v = (what >> 4) & 1;
		(void)ust_setsockopt(stk, sd, IPPROTO_TCP, TCP_QUICKACK, &v,
				     sizeof(v));
		return;
	case 6:
		v = 1 + ((what >> 4) & 3);
		(void)ust_setsockopt(stk, sd, IPPROTO_TCP, TCP_KEEPIDLE, &v,
				     sizeof(v));
		(void)ust_setsockopt(stk, sd, IPPROTO_TCP, TCP_KEEPINTVL, &v,
				     sizeof(v));
		(void)ust_setsockopt(stk, sd, IPPROTO_TCP, TCP_KEEPCNT, &v,
				     sizeof(v));
		v = 1;
		(void)ust_setsockopt(stk, sd, SOL_SOCKET, SO_KEEPALIVE, &v,
				     sizeof(v));
		return;
	case 7:
		v = 256 << (what >> 4);
		(void)ust_setsockopt(stk, sd, SOL_SOCKET, SO_RCVBUF, &v,
				     sizeof(v));
		return;
	case 8:
		v = 256 << (what >> 4);
		(void)ust_setsockopt(stk, sd, SOL_SOCKET, SO_SNDBUF, &v,
				     sizeof(v));
		return;
	case 9:
		lg.l_linger = what >> 4;
		(void)ust_setsockopt(stk, sd, SOL_SOCKET, SO_LINGER, &lg,
				     sizeof(lg));
		return;
	case 10: {
		const char *cc = (what & 0x10) ? "newreno" : "cubic";

		(void)ust_setsockopt(stk, sd, IPPROTO_TCP, TCP_CONGESTION, cc,
				     (socklen_t)strlen(cc));
		return;
	}
	case 11:
		if (listen_sd >= 0) {
			ust_close(stk, listen_sd);
			listen_sd = -1;
		} else {
			listen_sd = tcp_listener();
		}
		return;
	case 12:
		v = 0;
		(void)ust_setsockopt(stk, sd, SOL_SOCKET, SO_KEEPALIVE, &v,
				     sizeof(v));
		return;
	case 13:
		accept_all();
		return;
	case 14:
		/* TX layouts (3: refused), copy-small on or off */
		if (what & 0x40) {
			v = (what & 0x80) ? 128 : 0;
			(void)ust_setsockopt(stk, sd, UST_SOL_USTACK,
					     UST_TCP_COPY_SMALL, &v, sizeof(v));
		} else {
			v = (what >> 4) & 3;
			(void)ust_setsockopt(stk, sd, UST_SOL_USTACK,
					     UST_TCP_TX_LAYOUT, &v, sizeof(v));
		}
		return;
	default:
		(void)ust_getsockopt(stk, sd, UST_SOL_USTACK, UST_TCP_INFO, &ti,
				     &tl);
		return;
	}
}

static void
op_open(struct reader *r)
{
	unsigned int slot = rd_u8(r) % MAX_CONN;
	uint8_t mode = rd_u8(r);

	if (mode & 0x10)
		open_active(slot, mode & 0x6f, (mode & 0x80) != 0);
	else
		open_passive(slot, mode & 0x6f, (mode & 0x80) != 0);
}

static void
op_netif(struct reader *r)
{
	uint8_t n = rd_u8(r);

	nif.tx_accept = n >= 0x80 ? UINT32_MAX : n % 4;
}

static void
udp_echo(void)
{
	struct rte_mbuf *pk[32];
	union ust_sockaddr from[32];
	int n, s, i;

	n = ust_recv_burst(stk, udp_sd, pk, 32, from);
	if (n <= 0)
		return;
	s = ust_send_burst(stk, udp_sd, pk, (unsigned int)n, from);
	for (i = s < 0 ? 0 : s; i < n; i++)
		rte_pktmbuf_free(pk[i]);
}

/* ---- one input ---- */

static void
setup(void)
{
	unsigned int i;
	uint8_t o = (cfg & F_PLAIN_PEER) ? 0 : 0x0f;

	rte_srand(1);
	raw_tcp = false;
	now = 1000 * 1000 * MS;
	nif.tx_accept = UINT32_MAX;
	stk = ut_stack_create(&nif, pool, tweak);
	CHECK(stk != NULL, "stack: %s", rte_strerror(rte_errno));
	CHECK(ust_stack_arp_add_static(stk, UT_PEER_IP, &ut_peer_mac) == 0);
	/* the echo socket: dual-stack on [::]:7, both families' datagrams */
	{
		struct sockaddr_in6 any6 = { .sin6_family = AF_INET6,
					     .sin6_port = RTE_BE16(7) };

		udp_sd = ust_socket(stk, AF_INET6, SOCK_DGRAM, 0);
		CHECK(udp_sd >= 0);
		CHECK(ust_bind(stk, udp_sd, (struct sockaddr *)&any6,
			       sizeof(any6)) == 0);
	}
	listen_sd = tcp_listener();
	CHECK(listen_sd >= 0);
	listen6_sd = tcp_listener6();
	for (i = 0; i < MAX_CONN; i++)
		conns[i].used = false;
	open_passive(0, o, true);
	open_active(1, o, true);
	CHECK(conns[0].sd >= 0 && conns[1].sd >= 0);
	CHECK(tcp_sk(stk->sds[conns[0].sd].s)->state == UST_TCP_ESTABLISHED);
	CHECK(tcp_sk(stk->sds[conns[1].sd].s)->state == UST_TCP_ESTABLISHED);
}

/* The first tick at which a timer of the connection table fires; 0 when
 * none is armed. */
static uint64_t
next_expiry_in(const struct rte_hash *h, uint64_t first)
{
	uint32_t iter = 0;
	const void *key;
	void *data;

	while (h != NULL && rte_hash_iterate(h, &key, &data, &iter) >= 0) {
		void *obj = tcp_obj_ptr(data);
		const struct ust_timer *t[2] = { NULL, NULL };
		unsigned int i;

		switch (tcp_obj_kind(data)) {
		case UST_TCP_OBJ_SOCK:
			t[0] = &((struct ust_tcp_sock *)obj)->rtx_timer;
			t[1] = &((struct ust_tcp_sock *)obj)->delack_timer;
			break;
		case UST_TCP_OBJ_REQ:
			t[0] = &((struct ust_tcp_req *)obj)->timer;
			break;
		case UST_TCP_OBJ_TW:
			t[0] = &((struct ust_tcp_tw *)obj)->timer;
			break;
		}
		for (i = 0; i < 2; i++)
			if (t[i] != NULL && t[i]->armed &&
			    (first == 0 || t[i]->expire < first))
				first = t[i]->expire;
	}
	return first;
}

/* the earliest timer of a connection table's entries, IPv4's and IPv6's */
static uint64_t
next_expiry(void)
{
	struct ust_tcp_stack *ts = stk->tcp;

	return next_expiry_in(ts->conns6, next_expiry_in(ts->conns, 0));
}

/* Close everything; the peer is silent from now on and the clock runs
 * from timer to timer: every connection must end (none may wait for
 * nothing), and then nothing may stay out of the pool. */
static void
teardown(void)
{
	struct ust_tcp_stack *ts = stk->tcp;
	unsigned int i, steps;
	uint8_t buf[4096];

	nif.tx_accept = UINT32_MAX;
	udp_echo();
	for (i = 0; i < MAX_CONN; i++) {
		struct ust_tcp_sock *tp = conns[i].used ?
			sd_tp(conns[i].sd) : NULL;
		uint32_t seq;
		ssize_t n;

		if (tp == NULL)
			continue;
		seq = rcv_read_seq(tp);
		while ((n = ust_recv(stk, conns[i].sd, buf, sizeof(buf),
				     0)) > 0) {
			if (!raw_tcp)
				seq_check(buf, seq, (size_t)n, "read");
			seq += (uint32_t)n;
		}
	}
	step();
	for (i = 0; i < MAX_CONN; i++)
		if (conns[i].used && conns[i].sd >= 0)
			ust_close(stk, conns[i].sd);
	if (listen_sd >= 0)
		ust_close(stk, listen_sd);
	ust_close(stk, listen6_sd);
	ust_close(stk, udp_sd);
	udp_sd = -1;
	step();
	for (steps = 0; ts->n_conns + ts->n_req + ts->n_tw > 0; steps++) {
		uint64_t tick = next_expiry();

		if (tick == 0)
			dump_conns();
		CHECK(tick != 0, "%u connections, %u half-open, %u TIME_WAIT "
		      "and no timer: they stay forever", ts->n_conns,
		      ts->n_req, ts->n_tw);
		CHECK(steps < 1000, "connections still there after %u timers",
		      steps);
		if (tick * ts->wheel.tick_ns > now)
			now = tick * ts->wheel.tick_ns;
		step();
	}
	CHECK(ust_mem_pool_pages(ts->mem) == 0);
	ust_stack_destroy(stk);
	stk = NULL;
	ut_tx_drain(&nif);
	CHECK(rte_mempool_in_use_count(pool) == 0, "%u mbufs leaked",
	      rte_mempool_in_use_count(pool));
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	if (ut_eal_init((*argv)[0], "0") != 0)
		abort();
	pool = ut_pool("fuzz", 4096);
	if (pool == NULL)
		abort();
	/* chained TX allowed: the TX layouts are fuzzed too */
	ut_netif_init(&nif, UST_NETIF_F_TX_MULTI_SEGS);
	trace = getenv("FUZZ_TRACE") != NULL;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader r = { data, size, 0 };

	cfg = rd_u8(&r);
	setup();
	while (r.off < r.n) {
		TRACE("op %u at %zu, clock %" PRIu64 " ms\n",
		      r.p[r.off] % OP_MAX, r.off, now / MS);
		switch (rd_u8(&r) % OP_MAX) {
		case OP_FRAME:
			op_frame(&r);
			break;
		case OP_SEG:
			op_seg(&r);
			break;
		case OP_TCPRAW:
			op_tcpraw(&r);
			break;
		case OP_CLOCK:
			op_clock(&r);
			break;
		case OP_SEND:
			op_send(&r);
			break;
		case OP_RECV:
			op_recv(&r);
			break;
		case OP_SOCK:
			op_sock(&r);
			break;
		case OP_OPEN:
			op_open(&r);
			break;
		case OP_NETIF:
			op_netif(&r);
			break;
		case OP_UDP:
			udp_echo();
			break;
		case OP_FRAG:
			op_frag(&r);
			break;
		default:
			/* the stack destroyed with everything open */
			ust_stack_destroy(stk);
			stk = NULL;
			ut_tx_drain(&nif);
			CHECK(rte_mempool_in_use_count(pool) == 0,
			      "%u mbufs leaked", rte_mempool_in_use_count(pool));
			return 0;
		}
		now += 10000;
		step();
	}
	teardown();
	return 0;
}
