/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * IPv4 fragments (lib/ip/frag.c): datagrams cut by the test into fragments
 * in, the reassembled datagram at a UDP socket (byte-exact), every way a
 * fragment can be wrong dropped under its reason, the bounds and the
 * timeout with a fake clock; and our own sends above the MTU out as
 * fragments that reassemble into what was sent. At teardown: frames in ==
 * consumed + RX drops, and every mbuf back in the pool.
 */

#include <errno.h>

#include <rte_arp.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "ust_socket.h"
#include "ust_stack.h"
#include "ut.h"
#include "ut_netif.h"

#define MS (1000ull * 1000)
#define SEC (1000ull * MS)

static struct rte_mempool *pool;
static struct ut_netif nif;

/* the datagram being cut: IPv4 header, UDP header, payload */
static uint8_t dg[65536 + 128]; /* (pieces past 65535 are cut from it too) */

static void
learn_peer(struct ust_stack *stk, uint64_t now)
{
	ut_inject(stk, ut_arp_frame(pool, RTE_ARP_OP_REQUEST, &ut_peer_mac,
				 UT_PEER_IP, UT_OUR_IP), now);
	ut_tx_drain(&nif);
}

static uint8_t
pattern(uint32_t i, uint32_t seed)
{
	return (uint8_t)(i * 7 + seed + (i >> 8));
}

/* A UDP datagram from the peer's port 5555 to @dport with @len payload
 * bytes of pattern(@seed), whole in dg[]; returns its IP length. */
static uint32_t
make_udp(uint16_t dport, uint32_t len, uint32_t seed)
{
	struct rte_ipv4_hdr *ih = (struct rte_ipv4_hdr *)dg;
	struct rte_udp_hdr *uh = (struct rte_udp_hdr *)(ih + 1);
	uint8_t *pl = (uint8_t *)(uh + 1);
	uint32_t i;

	memset(ih, 0, sizeof(*ih));
	ih->version_ihl = 0x45;
	ih->total_length = rte_cpu_to_be_16((uint16_t)(28 + len));
	ih->time_to_live = 64;
	ih->next_proto_id = IPPROTO_UDP;
	ih->src_addr = UT_PEER_IP;
	ih->dst_addr = UT_OUR_IP;
	uh->src_port = RTE_BE16(5555);
	uh->dst_port = rte_cpu_to_be_16(dport);
	uh->dgram_len = rte_cpu_to_be_16((uint16_t)(8 + len));
	uh->dgram_cksum = 0;
	for (i = 0; i < len; i++)
		pl[i] = pattern(i, seed);
	uh->dgram_cksum = rte_ipv4_udptcp_cksum(ih, uh);
	return 28 + len;
}

/* The fragment of dg[] (IP length @iplen) carrying payload bytes
 * [@off, @off + @len), ID @id, MF as @mf. */
static struct rte_mbuf *
frag(uint16_t id, uint32_t off, uint32_t len, bool mf)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_ipv4_hdr *ih;
	uint8_t *p;
	struct ust_eth_repr e;

	if (m == NULL)
		abort();
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(14 + 20 + len));
	if (p == NULL)
		abort();
	e.dst = ut_our_mac;
	e.src = ut_peer_mac;
	e.ethertype = RTE_ETHER_TYPE_IPV4;
	ust_eth_emit(p, 14, &e);
	ih = (struct rte_ipv4_hdr *)(p + 14);
	memcpy(ih, dg, 20);
	ih->packet_id = rte_cpu_to_be_16(id);
	ih->total_length = rte_cpu_to_be_16((uint16_t)(20 + len));
	ih->fragment_offset = rte_cpu_to_be_16((uint16_t)((off / 8) |
		(mf ? RTE_IPV4_HDR_MF_FLAG : 0)));
	ih->hdr_checksum = 0;
	ih->hdr_checksum = rte_ipv4_cksum(ih);
	memcpy(ih + 1, dg + 20 + off, len);
	return m;
}

/* dg[]'s payload cut in pieces of @piece bytes (a multiple of 8), sent in
 * the order of @order (indices; NULL: in order), ID @id */
static void
send_cut(struct ust_stack *stk, uint16_t id, uint32_t iplen, uint32_t piece,
	 const unsigned int *order, uint64_t now)
{
	uint32_t plen = iplen - 20, n = (plen + piece - 1) / piece, i;

	for (i = 0; i < n; i++) {
		uint32_t k = order != NULL ? order[i] : i;
		uint32_t off = k * piece;
		uint32_t len = RTE_MIN(piece, plen - off);

		ut_inject(stk, frag(id, off, len, off + len < plen), now);
	}
}

/* Read one datagram from @sd and check it is @len bytes of
 * pattern(@seed). */
static int
read_check(struct ust_stack *stk, int sd, uint32_t len, uint32_t seed)
{
	static uint8_t buf[65536];
	ssize_t n = ust_recv(stk, sd, buf, sizeof(buf), 0);
	uint32_t i;

	UT_EQ(n, len);
	for (i = 0; i < len; i++)
		if (buf[i] != pattern(i, seed)) {
			ut_msg("byte %u: %u, not %u", i, buf[i],
			       pattern(i, seed));
			return -1;
		}
	return 0;
}

static int
test_reasm_orders(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	static const unsigned int rev[] = { 2, 1, 0 };
	static const unsigned int mid[] = { 1, 2, 0 };
	uint64_t rng = 7;
	int sd, k;

	UT_ASSERT(stk != NULL);
	sd = ut_udp_bound(stk, 7);
	UT_ASSERT(sd >= 0);
	/* in order, reversed, last first */
	send_cut(stk, 1, make_udp(7, 3000, 1), 1480, NULL, MS);
	UT_EQ(read_check(stk, sd, 3000, 1), 0);
	send_cut(stk, 2, make_udp(7, 3000, 2), 1480, rev, MS);
	UT_EQ(read_check(stk, sd, 3000, 2), 0);
	send_cut(stk, 3, make_udp(7, 3000, 3), 1480, mid, MS);
	UT_EQ(read_check(stk, sd, 3000, 3), 0);
	UT_EQ(ut_mib(stk, UST_MIB_IP_REASMREQDS), 9);
	UT_EQ(ut_mib(stk, UST_MIB_IP_REASMOKS), 3);
	UT_EQ(ut_mib(stk, UST_MIB_UDP_INDATAGRAMS), 3);
	/* random sizes, small pieces, shuffled */
	for (k = 0; k < 20; k++) {
		uint32_t len = 1 + (uint32_t)(ut_rand(&rng) % 20000);
		uint32_t iplen = make_udp(7, len, (uint32_t)k + 10);
		uint32_t piece = 8 * (1 + (uint32_t)(ut_rand(&rng) % 185));
		unsigned int order[2600], n = (iplen - 20 + piece - 1) / piece;
		unsigned int i;

		for (i = 0; i < n; i++)
			order[i] = i;
		for (i = n - 1; i > 0; i--) {
			unsigned int j = (unsigned int)(ut_rand(&rng) % (i + 1));
			unsigned int t = order[i];

			order[i] = order[j];
			order[j] = t;
		}
		if (n > 128) {
			/* more than [frag] max_frags: counted, dropped */
			send_cut(stk, (uint16_t)(100 + k), iplen, piece,
				 order, MS);
			continue;
		}
		send_cut(stk, (uint16_t)(100 + k), iplen, piece, order, MS);
		UT_ASSERT(read_check(stk, sd, len, (uint32_t)k + 10) == 0,
			  "size %u, pieces of %u", len, piece);
	}
	UT_EQ(ust_close(stk, sd), 0);
	return ut_teardown(stk, &nif, pool);
}

/* The largest datagram, 65507 bytes: 45 fragments at MTU 1500. */
static int
test_reasm_largest(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	int sd, big = 1 << 20;

	UT_ASSERT(stk != NULL);
	sd = ut_udp_bound(stk, 7);
	UT_ASSERT(sd >= 0);
	UT_EQ(ust_setsockopt(stk, sd, SOL_SOCKET, SO_RCVBUF, &big,
			     sizeof(big)), 0);
	send_cut(stk, 9, make_udp(7, 65507, 5), 1480, NULL, MS);
	UT_EQ(ut_mib(stk, UST_MIB_IP_REASMREQDS), 45);
	UT_EQ(read_check(stk, sd, 65507, 5), 0);
	/* one byte more: the last fragment would end past 65535 */
	make_udp(7, 65507, 6);
	ut_inject(stk, frag(10, 65512, 16, false), MS);
	UT_EQ(ut_drops(stk, UST_DROP_IP_FRAG_MALFORMED), 1);
	/* each piece fits, but the first one's 40 bytes of options make the
	 * whole longer than IPv4 allows: dropped once complete, as one
	 * packet (teardown checks the frame accounting) */
	{
		struct rte_mbuf *m = frag(11, 0, 1480, true);
		struct rte_ipv4_hdr *ih;
		uint8_t *p;
		uint32_t off;

		/* 40 option bytes (NOPs) between the header and the data */
		p = (uint8_t *)rte_pktmbuf_prepend(m, 40);
		UT_ASSERT(p != NULL);
		memmove(p, p + 40, 14 + 20);
		ih = (struct rte_ipv4_hdr *)(p + 14);
		memset(p + 14 + 20, 1, 40);
		ih->version_ihl = 0x4f;
		ih->total_length = rte_cpu_to_be_16(60 + 1480);
		ih->hdr_checksum = 0;
		ih->hdr_checksum = rte_ipv4_cksum(ih);
		ut_inject(stk, m, MS);
		for (off = 1480; off + 1480 < 65512; off += 1480)
			ut_inject(stk, frag(11, off, 1480, true), MS);
		ut_inject(stk, frag(11, off, 65512 - off, false), MS);
		UT_EQ(ut_drops(stk, UST_DROP_IP_FRAG_MALFORMED), 2);
		UT_EQ(ut_mib(stk, UST_MIB_IP_REASMOKS), 1);
		UT_EQ(ust_recv(stk, sd, dg, 100, 0), -EAGAIN);
	}
	UT_EQ(ust_close(stk, sd), 0);
	return ut_teardown(stk, &nif, pool);
}

static int
test_reasm_dup_overlap(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	uint32_t iplen;
	int sd;

	UT_ASSERT(stk != NULL);
	sd = ut_udp_bound(stk, 7);
	UT_ASSERT(sd >= 0);
	/* an exact duplicate is dropped alone; the datagram completes */
	iplen = make_udp(7, 2000, 1);
	ut_inject(stk, frag(1, 0, 1480, true), MS);
	ut_inject(stk, frag(1, 0, 1480, true), MS);
	UT_EQ(ut_drops(stk, UST_DROP_DUP_FRAG), 1);
	ut_inject(stk, frag(1, 1480, iplen - 20 - 1480, false), MS);
	UT_EQ(read_check(stk, sd, 2000, 1), 0);
	/* an overlap drops the datagram: the new piece and those held */
	make_udp(7, 2000, 2);
	ut_inject(stk, frag(2, 0, 1480, true), MS);
	ut_inject(stk, frag(2, 1000, 1008, false), MS);
	UT_EQ(ut_drops(stk, UST_DROP_IP_FRAG_OVERLAP), 1);
	UT_EQ(ut_drops(stk, UST_DROP_IP_FRAG_REASM_FAILED), 1);
	UT_EQ(ut_mib(stk, UST_MIB_IPEXT_REASMOVERLAPS), 1);
	UT_EQ(ut_mib(stk, UST_MIB_IP_REASMFAILS), 1);
	/* ... and what follows starts a new datagram that never completes */
	ut_inject(stk, frag(2, 1480, 528, false), MS);
	UT_EQ(ust_recv(stk, sd, dg, 100, 0), -EAGAIN);
	/* overlapping the one before (the teardrop), and one inside */
	make_udp(7, 3000, 3);
	ut_inject(stk, frag(3, 0, 1480, true), MS);
	ut_inject(stk, frag(3, 1472, 8, true), MS);
	UT_EQ(ut_drops(stk, UST_DROP_IP_FRAG_OVERLAP), 2);
	ut_inject(stk, frag(3, 1480, 1480, true), MS);
	ut_inject(stk, frag(3, 1488, 8, true), MS);
	UT_EQ(ut_drops(stk, UST_DROP_IP_FRAG_OVERLAP), 3);
	UT_EQ(ust_recv(stk, sd, dg, 100, 0), -EAGAIN);
	UT_EQ(ut_mib(stk, UST_MIB_IP_REASMOKS), 1);
	UT_EQ(ust_close(stk, sd), 0);
	return ut_teardown(stk, &nif, pool);
}

static int
test_reasm_malformed(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	int sd;

	UT_ASSERT(stk != NULL);
	sd = ut_udp_bound(stk, 7);
	UT_ASSERT(sd >= 0);
	make_udp(7, 3000, 1);
	/* not a multiple of 8 with more to come */
	ut_inject(stk, frag(1, 0, 1479, true), MS);
	UT_EQ(ut_drops(stk, UST_DROP_IP_FRAG_MALFORMED), 1);
	/* empty */
	ut_inject(stk, frag(1, 8, 0, true), MS);
	UT_EQ(ut_drops(stk, UST_DROP_IP_FRAG_MALFORMED), 2);
	/* two last fragments that disagree on the end: the datagram goes */
	ut_inject(stk, frag(2, 0, 1480, true), MS);
	ut_inject(stk, frag(2, 2960, 40, false), MS);
	ut_inject(stk, frag(2, 1480, 800, false), MS);
	UT_EQ(ut_drops(stk, UST_DROP_IP_FRAG_MALFORMED), 3);
	UT_EQ(ut_drops(stk, UST_DROP_IP_FRAG_REASM_FAILED), 2);
	/* a last fragment before data already held */
	ut_inject(stk, frag(3, 2960, 40, true), MS);
	ut_inject(stk, frag(3, 1480, 8, false), MS);
	UT_EQ(ut_drops(stk, UST_DROP_IP_FRAG_MALFORMED), 4);
	UT_EQ(ut_drops(stk, UST_DROP_IP_FRAG_REASM_FAILED), 3);
	/* data beyond the end the last fragment told */
	ut_inject(stk, frag(4, 1480, 16, false), MS);
	ut_inject(stk, frag(4, 1480 + 16, 16, true), MS);
	UT_EQ(ut_drops(stk, UST_DROP_IP_FRAG_MALFORMED), 5);
	UT_EQ(ut_mib(stk, UST_MIB_IP_REASMOKS), 0);
	UT_EQ(ust_close(stk, sd), 0);
	return ut_teardown(stk, &nif, pool);
}

static int
test_reasm_timeout(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	struct ust_eth_repr e;
	struct ust_ipv4_repr ip;
	struct ust_icmp_repr ic;
	const uint8_t *l4;
	struct rte_mbuf *m;
	int sd;

	UT_ASSERT(stk != NULL);
	learn_peer(stk, 0);
	sd = ut_udp_bound(stk, 7);
	UT_ASSERT(sd >= 0);
	make_udp(7, 3000, 1);
	/* the first fragment of one, a middle one of another */
	ut_inject(stk, frag(1, 0, 1480, true), MS);
	ut_inject(stk, frag(2, 1480, 1480, true), 2 * SEC);
	UT_ASSERT(ust_stack_next_deadline(stk) <= MS + 30 * SEC);
	/* the peer's MAC fresh, so that the error goes without a probe */
	learn_peer(stk, 29 * SEC);
	ust_stack_poll(stk, MS + 30 * SEC - 1);
	UT_EQ(nif.tx_n, 0);
	UT_EQ(ut_mib(stk, UST_MIB_IP_REASMTIMEOUT), 0);
	ust_stack_poll(stk, MS + 30 * SEC);
	/* time exceeded, reassembly (code 1), quoting the first fragment */
	UT_EQ(nif.tx_n, 1);
	m = ut_tx_pop(&nif);
	l4 = ut_parse_ipv4_frame(m, &e, &ip);
	UT_ASSERT(l4 != NULL);
	UT_EQ(ip.dst, UT_PEER_IP);
	UT_EQ(ust_icmp_parse(l4, ip.total_len - ip.hdr_len, 0, &ic), 0);
	UT_EQ(ic.type, UST_ICMP_TIME_EXCEEDED);
	UT_EQ(ic.code, 1);
	UT_EQ(ic.data[0], 0x45);
	UT_EQ(ic.data[4] << 8 | ic.data[5], 1); /* the ID */
	rte_pktmbuf_free(m);
	UT_EQ(ut_mib(stk, UST_MIB_IP_REASMTIMEOUT), 1);
	UT_EQ(ut_drops(stk, UST_DROP_FRAG_REASM_TIMEOUT), 1);
	/* the other, with no first fragment: no ICMP */
	UT_ASSERT(ust_stack_next_deadline(stk) <= 2 * SEC + 30 * SEC);
	ust_stack_poll(stk, 2 * SEC + 30 * SEC - 1);
	UT_EQ(ut_mib(stk, UST_MIB_IP_REASMTIMEOUT), 1);
	ust_stack_poll(stk, 2 * SEC + 30 * SEC);
	UT_EQ(ut_mib(stk, UST_MIB_ICMP_OUTMSGS), 1);
	UT_EQ(ut_mib(stk, UST_MIB_IP_REASMTIMEOUT), 2);
	UT_EQ(ut_mib(stk, UST_MIB_IP_REASMFAILS), 2);
	UT_EQ(ut_drops(stk, UST_DROP_FRAG_REASM_TIMEOUT), 2);
	UT_EQ(ust_close(stk, sd), 0);
	return ut_teardown(stk, &nif, pool);
}

static void
tweak_small(struct ust_stack_conf *c)
{
	c->frag.max_datagrams = 4;
	c->frag.max_frags = 4;
}

static void
tweak_mem(struct ust_stack_conf *c)
{
	c->frag.mem_max = 65536;
}

/* The bounds: datagrams, fragments a datagram, memory. */
static int
test_reasm_bounds(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, tweak_small);
	uint32_t iplen, held;
	int sd, i;

	UT_ASSERT(stk != NULL);
	sd = ut_udp_bound(stk, 7);
	UT_ASSERT(sd >= 0);
	iplen = make_udp(7, 3000, 1);
	/* a fifth datagram evicts the oldest */
	for (i = 0; i < 5; i++)
		ut_inject(stk, frag((uint16_t)(10 + i), 0, 1480, true), MS + i);
	UT_EQ(ut_drops(stk, UST_DROP_IP_FRAG_EVICTED), 1);
	/* the newest completes; the evicted one does not */
	ut_inject(stk, frag(14, 1480, 1480, true), MS);
	ut_inject(stk, frag(14, 2960, iplen - 20 - 2960, false), MS);
	UT_EQ(read_check(stk, sd, 3000, 1), 0);
	ut_inject(stk, frag(10, 1480, 1480, true), MS);
	ut_inject(stk, frag(10, 2960, iplen - 20 - 2960, false), MS);
	UT_EQ(ust_recv(stk, sd, dg, 100, 0), -EAGAIN);
	/* a fifth fragment of one datagram: too many */
	make_udp(7, 100, 2);
	for (i = 0; i < 5; i++)
		ut_inject(stk, frag(20, (uint32_t)i * 8, 8, true), MS);
	UT_EQ(ut_drops(stk, UST_DROP_IP_FRAG_TOO_MANY), 1);
	UT_EQ(ust_close(stk, sd), 0);
	UT_EQ(ut_teardown(stk, &nif, pool), 0);

	/* memory: 64 KiB of fragments (mbuf truesize) at most */
	stk = ut_stack_create(&nif, pool, tweak_mem);
	UT_ASSERT(stk != NULL);
	make_udp(7, 3000, 3);
	for (i = 0; i < 200; i++)
		ut_inject(stk, frag((uint16_t)(100 + i), 0, 1480, true), MS);
	held = (uint32_t)(ut_mib(stk, UST_MIB_IP_REASMREQDS) -
			  ut_drops(stk, UST_DROP_IP_FRAG_EVICTED));
	UT_ASSERT(ut_drops(stk, UST_DROP_IP_FRAG_EVICTED) > 150, "%" PRIu64,
		  ut_drops(stk, UST_DROP_IP_FRAG_EVICTED));
	UT_ASSERT(held > 0 && held * 2048 <= 65536, "%u held", held);
	UT_EQ(rte_mempool_in_use_count(pool), held);
	return ut_teardown(stk, &nif, pool);
}

/* Our sends above the MTU: fragments that reassemble into the datagram;
 * on a netif that takes no chains (@linear), each fragment in one mbuf. */
static int
fragment_out(bool linear)
{
	static const uint32_t sizes[] = { 1473, 3000, 65507, 8000 };
	static uint8_t got[65536], msg[65536];
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = RTE_BE16(9) };
	unsigned int s;
	int sd;

	UT_ASSERT(stk != NULL);
	learn_peer(stk, 0);
	to.sin_addr.s_addr = UT_PEER_IP;
	sd = ust_socket(stk, AF_INET, SOCK_DGRAM, 0);
	UT_ASSERT(sd >= 0);
	{
		int big = 1 << 20;

		UT_EQ(ust_setsockopt(stk, sd, SOL_SOCKET, SO_SNDBUF, &big,
				     sizeof(big)), 0);
	}
	for (s = 0; s < RTE_DIM(sizes); s++) {
		uint32_t len = sizes[s], i, n, cover = 0;
		uint16_t id = 0;

		for (i = 0; i < len; i++)
			msg[i] = pattern(i, s);
		UT_EQ(ust_sendto(stk, sd, msg, len, 0,
				 (struct sockaddr *)&to, sizeof(to)),
		      (long long)len);
		ust_stack_flush(stk);
		n = nif.tx_n;
		UT_EQ(n, (len + 8 + 1479) / 1480);
		for (i = 0; i < n; i++) {
			struct rte_mbuf *m = ut_tx_pop(&nif);
			struct ust_eth_repr e;
			struct ust_ipv4_repr ip;
			uint32_t fl;

			UT_ASSERT(ut_parse_ipv4_frame(m, &e, &ip) != NULL);
			UT_ASSERT(m->pkt_len <= 14 + 1500);
			UT_ASSERT(!linear || m->nb_segs == 1, "%u segments",
				  m->nb_segs);
			if (i == 0)
				id = ip.id;
			UT_EQ(ip.id, id);
			UT_EQ(ip.df, 0);
			UT_EQ(ip.mf, i + 1 < n);
			UT_EQ(ip.frag_off, cover);
			fl = ip.total_len - ip.hdr_len;
			UT_ASSERT(rte_pktmbuf_read(m, 14 + ip.hdr_len, fl,
				  got + 20 + cover) != NULL);
			if (rte_pktmbuf_read(m, 14 + ip.hdr_len, fl,
					     got + 20 + cover) !=
			    got + 20 + cover)
				memcpy(got + 20 + cover, rte_pktmbuf_mtod_offset(
					m, uint8_t *, 14 + ip.hdr_len), fl);
			if (i == 0)
				memcpy(got, rte_pktmbuf_mtod_offset(m,
					uint8_t *, 14), 20);
			cover += fl;
			rte_pktmbuf_free(m);
		}
		UT_EQ(cover, len + 8);
		/* the whole datagram's UDP checksum and payload */
		{
			struct rte_ipv4_hdr *ih = (struct rte_ipv4_hdr *)got;

			ih->total_length = rte_cpu_to_be_16(
				(uint16_t)(20 + len + 8));
			ih->fragment_offset = 0;
			UT_EQ(rte_ipv4_udptcp_cksum_verify(ih, ih + 1), 0);
			UT_EQ(memcmp(got + 28, msg, len), 0);
		}
	}
	UT_EQ(ut_mib(stk, UST_MIB_IP_FRAGOKS), 4);
	UT_EQ(ut_mib(stk, UST_MIB_IP_FRAGCREATES), 2 + 3 + 45 + 6);
	UT_EQ(ut_mib(stk, UST_MIB_UDP_OUTDATAGRAMS), 4);
	/* the sender's memory is back once the last fragment has left */
	{
		struct ust_sock_meminfo mi;
		socklen_t l = sizeof(mi);

		UT_EQ(ust_getsockopt(stk, sd, UST_SOL_USTACK, UST_SO_MEMINFO,
				     &mi, &l), 0);
		UT_EQ(mi.wmem_queued, 0);
	}
	/* the limits: 65507 bytes, and what staging can take */
	UT_EQ(ust_sendto(stk, sd, msg, 65508, 0, (struct sockaddr *)&to,
			 sizeof(to)), -EMSGSIZE);
	UT_EQ(nif.tx_n, 0);
	UT_EQ(ust_close(stk, sd), 0);
	return ut_teardown(stk, &nif, pool);
}

static int
test_fragment_out(void)
{
	int rc;

	UT_EQ(fragment_out(false), 0);
	nif.netif.flags &= ~UST_NETIF_F_TX_MULTI_SEGS;
	rc = fragment_out(true);
	nif.netif.flags |= UST_NETIF_F_TX_MULTI_SEGS;
	return rc;
}

/* To ourselves: the loopback queue carries the fragments, and input
 * reassembles them; a fragmented echo request is answered in fragments. */
static int
test_fragment_loop_echo(void)
{
	static uint8_t msg[20000];
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = RTE_BE16(7) };
	struct rte_icmp_hdr *ic;
	uint32_t i, iplen;
	int sd, tx;

	UT_ASSERT(stk != NULL);
	learn_peer(stk, 0);
	sd = ut_udp_bound(stk, 7);
	UT_ASSERT(sd >= 0);
	to.sin_addr.s_addr = UT_OUR_IP;
	for (i = 0; i < sizeof(msg); i++)
		msg[i] = pattern(i, 4);
	tx = ust_socket(stk, AF_INET, SOCK_DGRAM, 0);
	UT_ASSERT(tx >= 0);
	UT_EQ(ust_sendto(stk, tx, msg, sizeof(msg), 0,
			 (struct sockaddr *)&to, sizeof(to)),
	      (long long)sizeof(msg));
	ust_stack_poll(stk, MS);
	UT_EQ(read_check(stk, sd, sizeof(msg), 4), 0);
	UT_EQ(nif.tx_n, 0);
	UT_EQ(ut_mib(stk, UST_MIB_IP_REASMOKS), 1);
	/* ping -s 3000: the request in three fragments, the reply too */
	iplen = make_udp(7, 3000, 0);
	dg[9] = IPPROTO_ICMP;
	ic = (struct rte_icmp_hdr *)(dg + 20);
	memset(ic, 0, sizeof(*ic));
	ic->icmp_type = RTE_IP_ICMP_ECHO_REQUEST;
	ic->icmp_ident = RTE_BE16(0x77);
	ic->icmp_cksum = (uint16_t)~rte_raw_cksum(ic, iplen - 20);
	send_cut(stk, 50, iplen, 1480, NULL, MS);
	UT_EQ(nif.tx_n, 3);
	{
		uint32_t cover = 0, sum = 0;

		while (nif.tx_n > 0) {
			struct rte_mbuf *m = ut_tx_pop(&nif);
			struct ust_eth_repr e;
			struct ust_ipv4_repr ip;
			uint32_t fl;

			UT_ASSERT(ut_parse_ipv4_frame(m, &e, &ip) != NULL);
			UT_EQ(ip.proto, IPPROTO_ICMP);
			UT_EQ(ip.frag_off, cover);
			fl = ip.total_len - ip.hdr_len;
			UT_ASSERT(rte_pktmbuf_read(m, 14 + ip.hdr_len, fl,
						   msg + cover) != NULL);
			if (rte_pktmbuf_read(m, 14 + ip.hdr_len, fl,
					     msg + cover) != msg + cover)
				memcpy(msg + cover, rte_pktmbuf_mtod_offset(m,
				       uint8_t *, 14 + ip.hdr_len), fl);
			cover += fl;
			rte_pktmbuf_free(m);
		}
		UT_EQ(cover, iplen - 20);
		UT_EQ(msg[0], RTE_IP_ICMP_ECHO_REPLY);
		UT_EQ(memcmp(msg + 8, dg + 28, iplen - 28), 0);
		sum = rte_raw_cksum(msg, cover);
		UT_EQ(sum, 0xffff);
	}
	UT_EQ(ust_close(stk, tx), 0);
	UT_EQ(ust_close(stk, sd), 0);
	return ut_teardown(stk, &nif, pool);
}

static const struct ut_case cases[] = {
	{ "reassembly in any order, random sizes", test_reasm_orders },
	{ "reassembly of 65507 bytes, and past 65535", test_reasm_largest },
	{ "duplicates and overlaps (RFC 5722)", test_reasm_dup_overlap },
	{ "malformed fragments", test_reasm_malformed },
	{ "timeout, ICMP time exceeded", test_reasm_timeout },
	{ "bounds: datagrams, fragments, memory", test_reasm_bounds },
	{ "fragmentation of our sends", test_fragment_out },
	{ "loopback and a fragmented echo", test_fragment_loop_echo },
};

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	if (ut_eal_init(argv[0], "0") != 0)
		return 1;
	pool = ut_pool("ut_frag", 8192);
	if (pool == NULL)
		return 1;
	ut_netif_init(&nif, UST_NETIF_F_TX_MULTI_SEGS);
	return UT_RUN(cases);
}
