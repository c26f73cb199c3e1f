/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Stack tests: frames in through ust_stack_input(), frames out of the test
 * netif, a fake clock, and at teardown the conservation law (every frame
 * consumed or dropped with one reason) and the mbuf leak check.
 */

#include <errno.h>

#include <rte_arp.h>
#include <rte_errno.h>
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

static uint64_t
mib(struct ust_stack *stk, enum ust_mib c)
{
	struct ust_stats st;

	ust_stack_stats_get(stk, &st);
	return st.mib[c];
}

static uint64_t
drops(struct ust_stack *stk, enum ust_drop_reason r)
{
	struct ust_stats st;

	ust_stack_stats_get(stk, &st);
	return st.drop[r];
}

static void
inject(struct ust_stack *stk, struct rte_mbuf *m, uint64_t now)
{
	ust_stack_input(stk, &m, 1, now);
	ust_stack_flush(stk);
}

static int
teardown(struct ust_stack *stk)
{
	int rc = ut_check_conservation(stk);

	ust_stack_destroy(stk);
	ut_tx_drain(&nif);
	if (ut_leak_check(pool) != 0)
		rc = -1;
	return rc;
}

static struct sockaddr_in
peer(rte_be32_t ip, uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = rte_cpu_to_be_16(port) };

	sin.sin_addr.s_addr = ip;
	return sin;
}

/* Learn the peer's MAC through an ARP request it sends us. */
static void
learn_peer(struct ust_stack *stk, uint64_t now)
{
	inject(stk, ut_arp_frame(pool, RTE_ARP_OP_REQUEST, &ut_peer_mac,
				 UT_PEER_IP, UT_OUR_IP), now);
	ut_tx_drain(&nif);
}

static int
test_arp_reply(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	struct rte_ether_addr mac;
	struct ust_arp_repr a;
	struct ust_eth_repr e;
	struct rte_mbuf *m;

	UT_ASSERT(stk != NULL);
	inject(stk, ut_arp_frame(pool, RTE_ARP_OP_REQUEST, &ut_peer_mac,
				 UT_PEER_IP, UT_OUR_IP), 0);
	UT_EQ(nif.tx_n, 1);
	m = ut_tx_pop(&nif);
	UT_EQ(ust_eth_parse(rte_pktmbuf_mtod(m, void *), m->data_len, &e), 0);
	UT_EQ(e.ethertype, RTE_ETHER_TYPE_ARP);
	UT_ASSERT(rte_is_same_ether_addr(&e.dst, &ut_peer_mac));
	UT_ASSERT(rte_is_same_ether_addr(&e.src, &ut_our_mac));
	UT_EQ(ust_arp_parse(rte_pktmbuf_mtod_offset(m, void *, 14),
			    m->data_len - 14, &a), 0);
	UT_EQ(a.op, RTE_ARP_OP_REPLY);
	UT_EQ(a.spa, UT_OUR_IP);
	UT_EQ(a.tpa, UT_PEER_IP);
	UT_ASSERT(rte_is_same_ether_addr(&a.sha, &ut_our_mac));
	UT_ASSERT(rte_is_same_ether_addr(&a.tha, &ut_peer_mac));
	rte_pktmbuf_free(m);
	UT_EQ(mib(stk, UST_MIB_ARP_INREQUESTS), 1);
	UT_EQ(mib(stk, UST_MIB_ARP_OUTREPLIES), 1);
	/* the requester was learned */
	UT_EQ(ust_stack_arp_lookup(stk, UT_PEER_IP, &mac), 0);
	UT_ASSERT(rte_is_same_ether_addr(&mac, &ut_peer_mac));
	/* a request for someone else: no reply, nothing learned */
	inject(stk, ut_arp_frame(pool, RTE_ARP_OP_REQUEST, &ut_peer_mac,
				 RTE_BE32(UT_IPV4(198, 18, 0, 9)),
				 RTE_BE32(UT_IPV4(198, 18, 0, 10))), 0);
	UT_EQ(nif.tx_n, 0);
	UT_EQ(mib(stk, UST_MIB_ARP_INIGNORED), 1);
	UT_ASSERT(ust_stack_arp_lookup(stk, RTE_BE32(UT_IPV4(198, 18, 0, 9)),
				       NULL) != 0);
	/* someone claims our address */
	inject(stk, ut_arp_frame(pool, RTE_ARP_OP_REQUEST, &ut_peer_mac,
				 UT_OUR_IP, UT_OUR_IP), 0);
	UT_EQ(mib(stk, UST_MIB_ARP_INCONFLICTS), 1);
	UT_EQ(nif.tx_n, 0);
	return teardown(stk);
}

static int
check_udp_frame(struct rte_mbuf *m, const struct rte_ether_addr *dmac,
		rte_be32_t dst, uint16_t dport, const void *payload,
		uint16_t len)
{
	struct ust_eth_repr e;
	struct ust_ipv4_repr ip;
	struct ust_udp_repr u;
	const uint8_t *l4 = ut_parse_ipv4_frame(m, &e, &ip);

	UT_ASSERT(l4 != NULL);
	UT_ASSERT(rte_is_same_ether_addr(&e.dst, dmac));
	UT_EQ(ip.dst, dst);
	UT_EQ(ip.src, UT_OUR_IP);
	UT_EQ(ip.proto, IPPROTO_UDP);
	UT_ASSERT(ip.df);
	UT_EQ(ust_udp_parse(l4, ip.total_len - ip.hdr_len, ip.src, ip.dst, 0,
			    &u), 0);
	UT_EQ(u.dst_port, dport);
	UT_EQ(u.len, 8 + len);
	UT_EQ(memcmp(l4 + 8, payload, len), 0);
	return 0;
}

static int
test_arp_resolve(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	struct sockaddr_in to = peer(UT_PEER_IP, 9);
	struct ust_arp_repr a;
	struct rte_mbuf *m;
	int sd;

	UT_ASSERT(stk != NULL);
	sd = ust_socket(stk, AF_INET, SOCK_DGRAM, 0);
	UT_ASSERT(sd >= 0);
	UT_EQ(ust_sendto(stk, sd, "hello", 5, 0, (struct sockaddr *)&to,
			 sizeof(to)), 5);
	ust_stack_flush(stk);
	/* a broadcast request, the datagram held */
	UT_EQ(nif.tx_n, 1);
	m = ut_tx_pop(&nif);
	UT_EQ(ust_arp_parse(rte_pktmbuf_mtod_offset(m, void *, 14), 28, &a), 0);
	UT_EQ(a.op, RTE_ARP_OP_REQUEST);
	UT_EQ(a.tpa, UT_PEER_IP);
	UT_ASSERT(rte_is_broadcast_ether_addr(
		&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr));
	rte_pktmbuf_free(m);
	/* the reply releases it */
	inject(stk, ut_arp_frame(pool, RTE_ARP_OP_REPLY, &ut_peer_mac,
				 UT_PEER_IP, UT_OUR_IP), 10 * MS);
	UT_EQ(nif.tx_n, 1);
	m = ut_tx_pop(&nif);
	UT_EQ(check_udp_frame(m, &ut_peer_mac, UT_PEER_IP, 9, "hello", 5), 0);
	rte_pktmbuf_free(m);
	UT_EQ(mib(stk, UST_MIB_ARP_INREPLIES), 1);
	UT_EQ(mib(stk, UST_MIB_UDP_OUTDATAGRAMS), 1);
	/* MSG_MORE (UDP corking) and MSG_EOR are TCP's in ustack */
	UT_EQ(ust_sendto(stk, sd, "x", 1, MSG_MORE, (struct sockaddr *)&to,
			 sizeof(to)), -EOPNOTSUPP);
	UT_EQ(ust_sendto(stk, sd, "x", 1, MSG_EOR, (struct sockaddr *)&to,
			 sizeof(to)), -EOPNOTSUPP);
	/* next send goes straight out */
	UT_EQ(ust_sendto(stk, sd, "x", 1, 0, (struct sockaddr *)&to,
			 sizeof(to)), 1);
	ust_stack_flush(stk);
	UT_EQ(nif.tx_n, 1);
	/* an off-subnet destination resolves the gateway */
	to = peer(UT_FAR_IP, 9);
	UT_EQ(ust_sendto(stk, sd, "y", 1, 0, (struct sockaddr *)&to,
			 sizeof(to)), 1);
	ust_stack_flush(stk);
	UT_EQ(nif.tx_n, 2);
	m = nif.tx[1];
	UT_EQ(ust_arp_parse(rte_pktmbuf_mtod_offset(m, void *, 14), 28, &a), 0);
	UT_EQ(a.tpa, UT_GW_IP);
	return teardown(stk);
}

static int
test_arp_timeout(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	struct sockaddr_in to = peer(RTE_BE32(UT_IPV4(198, 18, 0, 77)), 9);
	uint64_t t;
	int sd;

	UT_ASSERT(stk != NULL);
	sd = ust_socket(stk, AF_INET, SOCK_DGRAM, 0);
	UT_EQ(ust_sendto(stk, sd, "a", 1, 0, (struct sockaddr *)&to,
			 sizeof(to)), 1);
	UT_EQ(ust_sendto(stk, sd, "b", 1, 0, (struct sockaddr *)&to,
			 sizeof(to)), 1);
	ust_stack_flush(stk);
	UT_EQ(nif.tx_n, 1);
	/* the next deadline is the retry (ust_stack_next_deadline()): none
	 * before it; a poll before it moves ARP's 100-ms tick, and the
	 * deadline with it; the request at the deadline */
	t = ust_stack_next_deadline(stk);
	UT_EQ(t, 1 * SEC);
	ust_stack_timers(stk, t - 1);
	ust_stack_flush(stk);
	UT_EQ(nif.tx_n, 1);
	t = ust_stack_next_deadline(stk);
	UT_ASSERT(t >= 1 * SEC && t < 1 * SEC + 100 * MS);
	ust_stack_timers(stk, t - 1);
	ust_stack_flush(stk);
	UT_EQ(nif.tx_n, 1);
	ust_stack_timers(stk, t);
	ust_stack_flush(stk);
	UT_EQ(nif.tx_n, 2);
	/* retries at retrans_ms (1 s), max_probes (3) requests in all */
	for (t = 100 * MS; t <= 5 * SEC; t += 100 * MS) {
		ust_stack_timers(stk, t);
		ust_stack_flush(stk);
	}
	UT_EQ(nif.tx_n, 3);
	UT_EQ(mib(stk, UST_MIB_ARP_OUTREQUESTS), 3);
	UT_EQ(mib(stk, UST_MIB_ARP_RESFAILED), 1);
	UT_EQ(drops(stk, UST_DROP_NEIGH_FAILED), 2);
	UT_ASSERT(ust_stack_arp_lookup(stk, to.sin_addr.s_addr, NULL) != 0);
	/* nothing left to time */
	UT_EQ(ust_stack_next_deadline(stk), UINT64_MAX);
	return teardown(stk);
}

static void
tweak_queue4(struct ust_stack_conf *c)
{
	c->arp.queue_len = 4;
}

static int
test_arp_queue_full(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, tweak_queue4);
	struct sockaddr_in to = peer(UT_PEER_IP, 9);
	struct rte_mbuf *m;
	uint8_t i;
	int sd;

	UT_ASSERT(stk != NULL);
	sd = ust_socket(stk, AF_INET, SOCK_DGRAM, 0);
	for (i = 0; i < 6; i++)
		UT_EQ(ust_sendto(stk, sd, &i, 1, 0, (struct sockaddr *)&to,
				 sizeof(to)), 1);
	UT_EQ(drops(stk, UST_DROP_NEIGH_QUEUEFULL), 2);
	UT_EQ(mib(stk, UST_MIB_ARP_UNRESOLVEDDISCARDS), 2);
	ust_stack_flush(stk);
	UT_EQ(ut_tx_drain(&nif), 1); /* the request */
	inject(stk, ut_arp_frame(pool, RTE_ARP_OP_REPLY, &ut_peer_mac,
				 UT_PEER_IP, UT_OUR_IP), MS);
	UT_EQ(nif.tx_n, 4);
	/* the oldest two made room: 2, 3, 4, 5 went out, in order */
	for (i = 2; i < 6; i++) {
		m = ut_tx_pop(&nif);
		UT_EQ(check_udp_frame(m, &ut_peer_mac, UT_PEER_IP, 9, &i, 1), 0);
		rte_pktmbuf_free(m);
	}
	return teardown(stk);
}

static int
test_arp_aging(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	struct sockaddr_in to = peer(UT_PEER_IP, 9);
	struct rte_ether_hdr *eh;
	uint64_t t;
	int sd;

	UT_ASSERT(stk != NULL);
	learn_peer(stk, 0);
	sd = ust_socket(stk, AF_INET, SOCK_DGRAM, 0);
	/* after reachable_ms (30 s) the entry is stale; the next use sends
	 * a unicast probe and the datagram at once */
	ust_stack_timers(stk, 31 * SEC);
	UT_EQ(ust_sendto(stk, sd, "z", 1, 0, (struct sockaddr *)&to,
			 sizeof(to)), 1);
	ust_stack_flush(stk);
	UT_EQ(nif.tx_n, 2);
	eh = rte_pktmbuf_mtod(nif.tx[0], struct rte_ether_hdr *);
	UT_EQ(rte_be_to_cpu_16(eh->ether_type), RTE_ETHER_TYPE_ARP);
	UT_ASSERT(rte_is_same_ether_addr(&eh->dst_addr, &ut_peer_mac));
	UT_EQ(check_udp_frame(nif.tx[1], &ut_peer_mac, UT_PEER_IP, 9, "z", 1),
	      0);
	ut_tx_drain(&nif);
	/* no answer to the probes: the entry goes */
	for (t = 31 * SEC; t <= 36 * SEC; t += 100 * MS)
		ust_stack_timers(stk, t);
	ust_stack_flush(stk);
	UT_EQ(nif.tx_n, 2); /* probes 2 and 3 */
	ut_tx_drain(&nif);
	UT_ASSERT(ust_stack_arp_lookup(stk, UT_PEER_IP, NULL) != 0);
	UT_EQ(mib(stk, UST_MIB_ARP_DESTROYS), 1);
	/* the next send resolves from scratch, by broadcast */
	UT_EQ(ust_sendto(stk, sd, "w", 1, 0, (struct sockaddr *)&to,
			 sizeof(to)), 1);
	ust_stack_flush(stk);
	UT_EQ(nif.tx_n, 1);
	eh = rte_pktmbuf_mtod(nif.tx[0], struct rte_ether_hdr *);
	UT_ASSERT(rte_is_broadcast_ether_addr(&eh->dst_addr));
	return teardown(stk);
}

static int
test_icmp_echo(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	struct ust_eth_repr e;
	struct ust_ipv4_repr ip;
	struct ust_icmp_repr ic;
	const uint8_t *l4;
	struct rte_mbuf *m;
	uint16_t i;

	UT_ASSERT(stk != NULL);
	learn_peer(stk, 0);
	inject(stk, ut_icmp_echo_frame(pool, UT_OUR_IP, 0x77, 3, 56), MS);
	UT_EQ(nif.tx_n, 1);
	m = ut_tx_pop(&nif);
	l4 = ut_parse_ipv4_frame(m, &e, &ip);
	UT_ASSERT(l4 != NULL);
	UT_ASSERT(rte_is_same_ether_addr(&e.dst, &ut_peer_mac));
	UT_EQ(ip.src, UT_OUR_IP);
	UT_EQ(ip.dst, UT_PEER_IP);
	UT_EQ(ip.proto, IPPROTO_ICMP);
	UT_EQ(ust_icmp_parse(l4, ip.total_len - ip.hdr_len, 0, &ic), 0);
	UT_EQ(ic.type, UST_ICMP_ECHO_REPLY);
	UT_EQ(ic.ident, 0x77);
	UT_EQ(ic.seq, 3);
	UT_EQ(ic.data_len, 56);
	for (i = 0; i < 56; i++)
		UT_EQ(ic.data[i], (uint8_t)i);
	rte_pktmbuf_free(m);
	UT_EQ(mib(stk, UST_MIB_ICMP_INECHOS), 1);
	UT_EQ(mib(stk, UST_MIB_ICMP_OUTECHOREPS), 1);
	/* a broadcast echo is ignored, as Linux does by default */
	inject(stk, ut_icmp_echo_frame(pool, RTE_BE32(UT_IPV4(198, 18, 0, 255)),
				       1, 1, 8), MS);
	UT_EQ(nif.tx_n, 0);
	UT_EQ(mib(stk, UST_MIB_ICMP_INECHOS), 2);
	/* a corrupted echo is counted and dropped */
	m = ut_icmp_echo_frame(pool, UT_OUR_IP, 1, 1, 8);
	*rte_pktmbuf_mtod_offset(m, uint8_t *, 14 + 20 + 9) ^= 0xff;
	inject(stk, m, MS);
	UT_EQ(nif.tx_n, 0);
	UT_EQ(drops(stk, UST_DROP_ICMP_CSUM), 1);
	UT_EQ(mib(stk, UST_MIB_ICMP_INCSUMERRORS), 1);
	return teardown(stk);
}

/* One malformed frame, and the drop reason it must land in. */
static int
expect_drop(struct ust_stack *stk, struct rte_mbuf *m,
	    enum ust_drop_reason r)
{
	uint64_t before = drops(stk, r);
	struct ust_stats st;
	uint64_t all_before, all_after;

	ust_stack_stats_get(stk, &st);
	all_before = ust_stats_drops(&st, UST_DROP_PATH_RX);
	inject(stk, m, MS);
	ust_stack_stats_get(stk, &st);
	all_after = ust_stats_drops(&st, UST_DROP_PATH_RX);
	UT_ASSERT(drops(stk, r) == before + 1, "reason %s not counted",
		  ust_drop_name(r));
	UT_ASSERT(all_after == all_before + 1, "more than one reason for %s",
		  ust_drop_name(r));
	return 0;
}

static struct rte_mbuf *
udp_to_us(uint16_t dport, uint16_t len)
{
	/* the largest payload a caller asks for (100), zero-padded */
	static const uint8_t pl[128] = "0123456789abcdef";

	if (len > sizeof(pl))
		return NULL;
	return ut_udp_frame(pool, UT_PEER_IP, UT_OUR_IP, 5555, dport, pl, len);
}

static struct rte_ipv4_hdr *
iph(struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, 14);
}

static int
test_malformed(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	struct rte_mbuf *m;
	int sd;

	UT_ASSERT(stk != NULL);
	sd = ut_udp_bound(stk, 7);
	UT_ASSERT(sd >= 0);
	learn_peer(stk, 0);

	m = udp_to_us(7, 10);
	rte_pktmbuf_trim(m, m->pkt_len - 10);
	UT_EQ(expect_drop(stk, m, UST_DROP_PKT_TOO_SMALL), 0);

	m = udp_to_us(7, 10);
	rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->ether_type =
		RTE_BE16(0x88cc);
	UT_EQ(expect_drop(stk, m, UST_DROP_UNHANDLED_PROTO), 0);

	m = udp_to_us(7, 10);
	rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr.addr_bytes[5] = 9;
	UT_EQ(expect_drop(stk, m, UST_DROP_OTHERHOST), 0);

	m = udp_to_us(7, 10);
	iph(m)->hdr_checksum ^= 0x1;
	UT_EQ(expect_drop(stk, m, UST_DROP_IP_CSUM), 0);
	UT_EQ(mib(stk, UST_MIB_IPEXT_INCSUMERRORS), 1);

	m = udp_to_us(7, 10);
	iph(m)->version_ihl = 0x65;
	ut_fix_ipv4_csum(m);
	UT_EQ(expect_drop(stk, m, UST_DROP_IP_INHDR), 0);

	m = udp_to_us(7, 10);
	iph(m)->version_ihl = 0x43;
	UT_EQ(expect_drop(stk, m, UST_DROP_IP_INHDR), 0);

	m = udp_to_us(7, 10);
	iph(m)->total_length = RTE_BE16(200);
	ut_fix_ipv4_csum(m);
	UT_EQ(expect_drop(stk, m, UST_DROP_PKT_TOO_SMALL), 0);
	UT_EQ(mib(stk, UST_MIB_IPEXT_INTRUNCATEDPKTS), 1);

	m = udp_to_us(7, 10);
	iph(m)->total_length = RTE_BE16(12);
	ut_fix_ipv4_csum(m);
	UT_EQ(expect_drop(stk, m, UST_DROP_IP_INHDR), 0);

	m = udp_to_us(7, 10);
	iph(m)->time_to_live = 0;
	ut_fix_ipv4_csum(m);
	UT_EQ(expect_drop(stk, m, UST_DROP_IP_INHDR), 0);

	m = udp_to_us(7, 10);
	iph(m)->dst_addr = RTE_BE32(UT_IPV4(198, 18, 0, 99));
	ut_fix_ipv4_csum(m);
	UT_EQ(expect_drop(stk, m, UST_DROP_IP_INADDRERRORS), 0);

	m = udp_to_us(7, 10);
	iph(m)->src_addr = RTE_BE32(UT_IPV4(224, 0, 0, 1));
	ut_fix_ipv4_csum(m);
	UT_EQ(expect_drop(stk, m, UST_DROP_IP_INVALID_SOURCE), 0);

	m = udp_to_us(7, 10);
	iph(m)->src_addr = UT_OUR_IP;
	ut_fix_ipv4_csum(m);
	UT_EQ(expect_drop(stk, m, UST_DROP_IP_LOCAL_SOURCE), 0);

	m = udp_to_us(7, 10);
	iph(m)->fragment_offset = RTE_BE16(RTE_IPV4_HDR_MF_FLAG);
	ut_fix_ipv4_csum(m);
	/* more fragments follow a piece that is not 8-byte aligned (18):
	 * malformed (tests/unit/test_frag.c has the rest) */
	UT_EQ(expect_drop(stk, m, UST_DROP_IP_FRAG_MALFORMED), 0);
	UT_EQ(mib(stk, UST_MIB_IP_REASMFAILS), 1);

	m = udp_to_us(7, 10);
	iph(m)->next_proto_id = 253;
	ut_fix_ipv4_csum(m);
	UT_EQ(expect_drop(stk, m, UST_DROP_IP_NOPROTO), 0);
	UT_EQ(mib(stk, UST_MIB_IP_INUNKNOWNPROTOS), 1);
	UT_EQ(nif.tx_n, 1); /* protocol unreachable */
	ut_tx_drain(&nif);

	m = udp_to_us(7, 10);
	*rte_pktmbuf_mtod_offset(m, uint8_t *, 14 + 20 + 8) ^= 0x40;
	UT_EQ(expect_drop(stk, m, UST_DROP_UDP_CSUM), 0);
	UT_EQ(mib(stk, UST_MIB_UDP_INCSUMERRORS), 1);

	m = udp_to_us(7, 10);
	*rte_pktmbuf_mtod_offset(m, uint16_t *, 14 + 20 + 4) = RTE_BE16(40);
	UT_EQ(expect_drop(stk, m, UST_DROP_UDP_BADLEN), 0);

	m = udp_to_us(7, 10);
	*rte_pktmbuf_mtod_offset(m, uint16_t *, 14 + 20 + 4) = RTE_BE16(0);
	UT_EQ(expect_drop(stk, m, UST_DROP_UDP_BADLEN), 0);
	UT_EQ(mib(stk, UST_MIB_UDP_INERRORS), 3);

	m = udp_to_us(8, 10);
	UT_EQ(expect_drop(stk, m, UST_DROP_NO_SOCKET), 0);
	UT_EQ(mib(stk, UST_MIB_UDP_NOPORTS), 1);
	UT_EQ(nif.tx_n, 1); /* port unreachable */
	ut_tx_drain(&nif);

	/* ARP that is not Ethernet/IPv4, and a truncated one */
	m = ut_arp_frame(pool, RTE_ARP_OP_REQUEST, &ut_peer_mac, UT_PEER_IP,
			 UT_OUR_IP);
	*rte_pktmbuf_mtod_offset(m, uint8_t *, 14 + 1) = 6;
	UT_EQ(expect_drop(stk, m, UST_DROP_ARP_UNSUPPORTED), 0);
	m = ut_arp_frame(pool, RTE_ARP_OP_REQUEST, &ut_peer_mac, UT_PEER_IP,
			 UT_OUR_IP);
	rte_pktmbuf_trim(m, 10);
	UT_EQ(expect_drop(stk, m, UST_DROP_ARP_MALFORMED), 0);

	/* a valid datagram still gets through, trimmed of padding */
	m = udp_to_us(7, 10);
	memset(rte_pktmbuf_append(m, 12), 0, 12); /* Ethernet padding */
	inject(stk, m, MS);
	{
		char buf[64];

		UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), 10);
		UT_EQ(memcmp(buf, "0123456789", 10), 0);
	}
	UT_EQ(mib(stk, UST_MIB_UDP_INDATAGRAMS), 1);
	return teardown(stk);
}

static void
tweak_icmp5(struct ust_stack_conf *c)
{
	c->icmp.msgs_per_sec = 1;
	c->icmp.burst = 5;
}

static int
test_port_unreach_ratelimit(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, tweak_icmp5);
	struct ust_eth_repr e;
	struct ust_ipv4_repr ip;
	struct ust_icmp_repr ic;
	const uint8_t *l4;
	int i;

	UT_ASSERT(stk != NULL);
	learn_peer(stk, 0);
	/* the bucket starts full: 5 errors, then 1 per second */
	for (i = 0; i < 10; i++)
		inject(stk, udp_to_us(4444, 20), 10 * MS);
	UT_EQ(nif.tx_n, 5);
	UT_EQ(mib(stk, UST_MIB_UDP_NOPORTS), 10);
	UT_EQ(mib(stk, UST_MIB_ICMP_OUTDESTUNREACHS), 5);
	UT_EQ(mib(stk, UST_MIB_ICMP_OUTRATELIMITGLOBAL), 5);
	l4 = ut_parse_ipv4_frame(nif.tx[0], &e, &ip);
	UT_ASSERT(l4 != NULL);
	UT_EQ(ust_icmp_parse(l4, ip.total_len - ip.hdr_len, 0, &ic), 0);
	UT_EQ(ic.type, UST_ICMP_DEST_UNREACH);
	UT_EQ(ic.code, UST_ICMP_CODE_PORT_UNREACH);
	UT_ASSERT(ic.embedded_ok);
	UT_EQ(ic.embedded.src, UT_PEER_IP);
	UT_EQ(ic.embedded.dst, UT_OUR_IP);
	UT_EQ(ic.data_len, 48); /* the whole 48-byte datagram is quoted */
	ut_tx_drain(&nif);
	inject(stk, udp_to_us(4444, 20), 1010 * MS);
	inject(stk, udp_to_us(4444, 20), 1010 * MS);
	UT_EQ(nif.tx_n, 1);
	/* never about a broadcast */
	ut_tx_drain(&nif);
	{
		struct rte_mbuf *m = ut_udp_frame(pool, UT_PEER_IP,
			RTE_BE32(UT_IPV4(198, 18, 0, 255)), 1, 4444, "x", 1);

		UT_EQ(expect_drop(stk, m, UST_DROP_NO_SOCKET), 0);
		UT_EQ(mib(stk, UST_MIB_UDP_IGNOREDMULTI), 1);
		UT_EQ(nif.tx_n, 0);
	}
	return teardown(stk);
}

static int
test_udp_roundtrip(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	struct sockaddr_in from;
	socklen_t fl = sizeof(from);
	char buf[2048];
	struct rte_mbuf *m;
	int sd;

	UT_ASSERT(stk != NULL);
	learn_peer(stk, 0);
	sd = ut_udp_bound(stk, 7);
	UT_ASSERT(sd >= 0);
	inject(stk, udp_to_us(7, 16), MS);
	UT_EQ(ust_recvfrom(stk, sd, buf, sizeof(buf), 0, (struct sockaddr *)&from,
			   &fl), 16);
	UT_EQ(fl, sizeof(from));
	UT_EQ(from.sin_addr.s_addr, UT_PEER_IP);
	UT_EQ(rte_be_to_cpu_16(from.sin_port), 5555);
	/* the socket-level options every kind shares (lib/sock) */
	{
		int v = 1;
		socklen_t vl = sizeof(v);

		UT_EQ(ust_getsockopt(stk, sd, SOL_SOCKET, SO_TYPE, &v, &vl), 0);
		UT_EQ(v, SOCK_DGRAM);
		UT_EQ(ust_setsockopt(stk, sd, SOL_SOCKET, SO_REUSEADDR, &v,
				     sizeof(v)), 0);
		v = 0;
		UT_EQ(ust_getsockopt(stk, sd, SOL_SOCKET, SO_REUSEADDR, &v,
				     &vl), 0);
		UT_EQ(v, 1);
		vl = 2;
		UT_EQ(ust_getsockopt(stk, sd, SOL_SOCKET, SO_TYPE, &v, &vl),
		      -EINVAL);
	}
	UT_EQ(ust_sendto(stk, sd, buf, 16, 0, (struct sockaddr *)&from, fl), 16);
	ust_stack_flush(stk);
	UT_EQ(nif.tx_n, 1);
	m = ut_tx_pop(&nif);
	UT_EQ(check_udp_frame(m, &ut_peer_mac, UT_PEER_IP, 5555, buf, 16), 0);
	UT_EQ(m->ol_flags, 0); /* software checksums: no offload flags */
	rte_pktmbuf_free(m);
	/* truncation and MSG_TRUNC, MSG_PEEK */
	inject(stk, udp_to_us(7, 16), MS);
	UT_EQ(ust_recv(stk, sd, buf, 4, MSG_PEEK), 4);
	UT_EQ(ust_recv(stk, sd, buf, 4, MSG_TRUNC), 16);
	UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), -EAGAIN);
	/* a zero-length datagram */
	inject(stk, udp_to_us(7, 0), MS);
	UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), 0);
	UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), -EAGAIN);
	return teardown(stk);
}

static int
test_udp_offload_flags(void)
{
	struct ust_stack *stk;
	struct sockaddr_in to = peer(UT_PEER_IP, 9);
	struct rte_mbuf *m;
	struct rte_ipv4_hdr *ih;
	struct rte_udp_hdr *uh;
	int sd;

	ut_netif_init(&nif, UST_NETIF_F_TX_IPV4_CKSUM |
		      UST_NETIF_F_TX_UDP_CKSUM);
	stk = ut_stack_create(&nif, pool, NULL);
	UT_ASSERT(stk != NULL);
	learn_peer(stk, 0);
	sd = ust_socket(stk, AF_INET, SOCK_DGRAM, 0);
	UT_EQ(ust_sendto(stk, sd, "abc", 3, 0, (struct sockaddr *)&to,
			 sizeof(to)), 3);
	ust_stack_flush(stk);
	m = ut_tx_pop(&nif);
	UT_ASSERT(m != NULL);
	UT_ASSERT(m->ol_flags & RTE_MBUF_F_TX_IP_CKSUM);
	UT_ASSERT(m->ol_flags & RTE_MBUF_F_TX_UDP_CKSUM);
	UT_ASSERT(m->ol_flags & RTE_MBUF_F_TX_IPV4);
	UT_EQ(m->l2_len, 14);
	UT_EQ(m->l3_len, 20);
	ih = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, 14);
	uh = (struct rte_udp_hdr *)(ih + 1);
	UT_EQ(ih->hdr_checksum, 0);
	UT_EQ(uh->dgram_cksum, rte_ipv4_phdr_cksum(ih, 0));
	rte_pktmbuf_free(m);
	ut_netif_init(&nif, 0);
	return teardown(stk);
}

static int
test_loopback(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	struct sockaddr_in self = peer(UT_OUR_IP, 7), from;
	socklen_t fl = sizeof(from);
	char buf[16];
	int a, b;

	UT_ASSERT(stk != NULL);
	a = ut_udp_bound(stk, 7);
	b = ut_udp_bound(stk, 8);
	UT_EQ(ust_sendto(stk, b, "loop", 4, 0, (struct sockaddr *)&self,
			 sizeof(self)), 4);
	ust_stack_poll(stk, MS);
	UT_EQ(nif.tx_n, 0);
	UT_EQ(ust_recvfrom(stk, a, buf, sizeof(buf), 0,
			   (struct sockaddr *)&from, &fl), 4);
	UT_EQ(memcmp(buf, "loop", 4), 0);
	UT_EQ(rte_be_to_cpu_16(from.sin_port), 8);
	UT_EQ(from.sin_addr.s_addr, UT_OUR_IP);
	return teardown(stk);
}

static int
test_tx_backpressure(void)
{
	struct ust_stack *stk;
	struct sockaddr_in to = peer(UT_PEER_IP, 9);
	struct ust_sock_meminfo mi;
	socklen_t ml = sizeof(mi);
	int sd, i, sent = 0, rc = 0;
	uint32_t seq;

	stk = ut_stack_create(&nif, pool, NULL);
	UT_ASSERT(stk != NULL);
	learn_peer(stk, 0);
	sd = ust_socket(stk, AF_INET, SOCK_DGRAM, 0);
	{
		int big = 1 << 24;

		UT_EQ(ust_setsockopt(stk, sd, SOL_SOCKET, SO_SNDBUFFORCE, &big,
				     sizeof(big)), 0);
	}
	nif.tx_accept = 0; /* the NIC's ring is full */
	for (i = 0; i < 2000; i++) {
		seq = (uint32_t)i;
		rc = (int)ust_sendto(stk, sd, &seq, 4, 0, (struct sockaddr *)&to,
				     sizeof(to));
		if (rc < 0)
			break;
		sent++;
	}
	nif.tx_accept = UINT32_MAX;
	UT_EQ(rc, -EAGAIN);
	/* tx_stage (512), less the slot a send keeps for an ARP probe */
	UT_EQ(sent, 511);
	UT_EQ(ust_stack_tx_pending(stk), 511);
	UT_EQ(mib(stk, UST_MIB_UDP_SNDBUFERRORS), 1);
	UT_EQ(ust_getsockopt(stk, sd, UST_SOL_USTACK, UST_SO_MEMINFO, &mi, &ml),
	      0);
	UT_EQ(mi.wmem_queued, 511u * 2304);
	/* the ring drains: everything goes, in order, nothing lost */
	nif.tx_accept = 7;
	while (ust_stack_tx_pending(stk) > 0)
		ust_stack_flush(stk);
	UT_EQ(nif.tx_n, 511);
	for (i = 0; i < 511; i++) {
		uint32_t got;

		memcpy(&got, rte_pktmbuf_mtod_offset(nif.tx[i], void *, 42), 4);
		UT_EQ(got, (uint32_t)i);
	}
	UT_EQ(ust_getsockopt(stk, sd, UST_SOL_USTACK, UST_SO_MEMINFO, &mi, &ml),
	      0);
	UT_EQ(mi.wmem_queued, 0);
	nif.tx_accept = UINT32_MAX;
	return teardown(stk);
}

static void
tweak_many_sds(struct ust_stack_conf *c)
{
	c->max_sockets = 65536 + 8;
}

static void
tweak_too_many_sds(struct ust_stack_conf *c)
{
	c->max_sockets = UST_MAX_SOCKETS + 1;
}

/*
 * Descriptors above 65535 (a million connections need them): a datagram
 * sent from descriptor 65537 holds its socket's send buffer while it waits
 * for the NIC, and gives it back to that socket, not to descriptor 1 (what
 * a 16-bit owner in the mbuf's metadata would name), once it has gone.
 */
static int
test_many_descriptors(void)
{
	struct ust_stack *stk;
	struct sockaddr_in to = peer(UT_PEER_IP, 9);
	struct ust_sock_meminfo mi;
	socklen_t ml = sizeof(mi);
	int i, sd = -1, low = -1;

	/* the bound is UST_MAX_SOCKETS */
	UT_ASSERT(ut_stack_create(&nif, pool, tweak_too_many_sds) == NULL);
	stk = ut_stack_create(&nif, pool, tweak_many_sds);
	UT_ASSERT(stk != NULL);
	learn_peer(stk, 0);
	/* descriptors 0..65536: event sets, the cheapest kind; 1 a UDP
	 * socket that would be charged instead */
	for (i = 0; i <= 65536; i++) {
		int e = i == 1 ? ust_socket(stk, AF_INET, SOCK_DGRAM, 0) :
				 ust_epoll_create(stk);

		UT_EQ(e, i);
		if (i == 1)
			low = e;
	}
	sd = ust_socket(stk, AF_INET, SOCK_DGRAM, 0);
	UT_EQ(sd, 65537);
	nif.tx_accept = 0;
	UT_EQ(ust_sendto(stk, sd, "abcd", 4, 0, (struct sockaddr *)&to,
			 sizeof(to)), 4);
	UT_EQ(ust_sendto(stk, low, "efgh", 4, 0, (struct sockaddr *)&to,
			 sizeof(to)), 4);
	UT_EQ(ust_getsockopt(stk, sd, UST_SOL_USTACK, UST_SO_MEMINFO, &mi, &ml),
	      0);
	UT_EQ(mi.wmem_queued, 2304u);
	nif.tx_accept = 1; /* the first datagram only: descriptor 65537's */
	ust_stack_flush(stk);
	UT_EQ(nif.tx_n, 1);
	UT_EQ(ust_getsockopt(stk, sd, UST_SOL_USTACK, UST_SO_MEMINFO, &mi, &ml),
	      0);
	UT_EQ(mi.wmem_queued, 0);
	UT_EQ(ust_getsockopt(stk, low, UST_SOL_USTACK, UST_SO_MEMINFO, &mi,
			     &ml), 0);
	UT_EQ(mi.wmem_queued, 2304u);
	nif.tx_accept = UINT32_MAX;
	while (ust_stack_tx_pending(stk) > 0)
		ust_stack_flush(stk);
	UT_EQ(ust_getsockopt(stk, low, UST_SOL_USTACK, UST_SO_MEMINFO, &mi,
			     &ml), 0);
	UT_EQ(mi.wmem_queued, 0);
	return teardown(stk);
}

static int
test_sndbuf(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	struct sockaddr_in to = peer(UT_PEER_IP, 9);
	int sd, small = 1, v;
	socklen_t l = sizeof(v);

	UT_ASSERT(stk != NULL);
	learn_peer(stk, 0);
	sd = ust_socket(stk, AF_INET, SOCK_DGRAM, 0);
	UT_EQ(ust_setsockopt(stk, sd, SOL_SOCKET, SO_SNDBUF, &small,
			     sizeof(small)), 0);
	UT_EQ(ust_getsockopt(stk, sd, SOL_SOCKET, SO_SNDBUF, &v, &l), 0);
	UT_EQ(v, 4608); /* the floor */
	nif.tx_accept = 0;
	UT_EQ(ust_sendto(stk, sd, "a", 1, 0, (struct sockaddr *)&to,
			 sizeof(to)), 1);
	UT_EQ(ust_sendto(stk, sd, "b", 1, 0, (struct sockaddr *)&to,
			 sizeof(to)), 1);
	UT_EQ(ust_sendto(stk, sd, "c", 1, 0, (struct sockaddr *)&to,
			 sizeof(to)), -EAGAIN);
	UT_EQ(mib(stk, UST_MIB_UDP_SNDBUFERRORS), 1);
	nif.tx_accept = UINT32_MAX;
	ust_stack_flush(stk);
	UT_EQ(ust_sendto(stk, sd, "c", 1, 0, (struct sockaddr *)&to,
			 sizeof(to)), 1);
	return teardown(stk);
}

static int
test_connected_refused(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	struct sockaddr_in to = peer(UT_PEER_IP, 9);
	struct rte_mbuf *out, *err;
	char buf[8];
	int sd, v;
	socklen_t l = sizeof(v);

	UT_ASSERT(stk != NULL);
	learn_peer(stk, 0);
	sd = ust_socket(stk, AF_INET, SOCK_DGRAM, 0);
	UT_EQ(ust_connect(stk, sd, (struct sockaddr *)&to, sizeof(to)), 0);
	UT_EQ(ust_send(stk, sd, "q", 1, 0), 1);
	ust_stack_flush(stk);
	out = ut_tx_pop(&nif);
	UT_ASSERT(out != NULL);
	/* the peer answers port unreachable, quoting our datagram */
	err = ut_icmp_port_unreach_frame(pool,
		rte_pktmbuf_mtod_offset(out, uint8_t *, 14), 29);
	rte_pktmbuf_free(out);
	inject(stk, err, MS);
	UT_EQ(mib(stk, UST_MIB_ICMP_INDESTUNREACHS), 1);
	UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), -ECONNREFUSED);
	UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), -EAGAIN);
	UT_EQ(ust_getsockopt(stk, sd, SOL_SOCKET, SO_ERROR, &v, &l), 0);
	UT_EQ(v, 0);
	return teardown(stk);
}

static void
tweak_nogw(struct ust_stack_conf *c)
{
	c->gateway = 0;
	c->max_sockets = 4;
}

static int
test_errors(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, tweak_nogw);
	struct sockaddr_in a = peer(0, 7), far = peer(UT_FAR_IP, 7);
	struct sockaddr_in bc = peer(RTE_BE32(UT_IPV4(198, 18, 0, 255)), 7);
	struct sockaddr_in other = peer(RTE_BE32(UT_IPV4(198, 18, 0, 50)), 7);
	static char big[65508]; /* one byte more than UDP over IPv4 takes */
	char buf[8];
	int sd, sd2, sd3, sd4, one = 1;

	UT_ASSERT(stk != NULL);
	UT_EQ(ust_socket(stk, AF_PACKET, SOCK_DGRAM, 0), -EAFNOSUPPORT);
	UT_EQ(ust_socket(stk, AF_INET, SOCK_RAW, 0), -ESOCKTNOSUPPORT);
	UT_EQ(ust_socket(stk, AF_INET, SOCK_DGRAM, IPPROTO_TCP),
	      -EPROTONOSUPPORT);
	sd = ust_socket(stk, AF_INET, SOCK_DGRAM, 0);
	sd2 = ust_socket(stk, AF_INET, SOCK_DGRAM, 0);
	UT_ASSERT(sd >= 0 && sd2 >= 0);
	UT_EQ(ust_recv(stk, 99, buf, 1, 0), -EBADF);
	UT_EQ(ust_recv(stk, -1, buf, 1, 0), -EBADF);
	UT_EQ(ust_bind(stk, sd, (struct sockaddr *)&a, sizeof(a)), 0);
	UT_EQ(ust_bind(stk, sd, (struct sockaddr *)&a, sizeof(a)), -EINVAL);
	UT_EQ(ust_bind(stk, sd2, (struct sockaddr *)&a, sizeof(a)),
	      -EADDRINUSE);
	UT_EQ(ust_bind(stk, sd2, (struct sockaddr *)&other, sizeof(other)),
	      -EADDRNOTAVAIL);
	UT_EQ(ust_bind(stk, sd2, (struct sockaddr *)&a, 4), -EINVAL);
	UT_EQ(ust_send(stk, sd, "x", 1, 0), -EDESTADDRREQ);
	UT_EQ(ust_sendto(stk, sd, big, sizeof(big), 0,
			 (struct sockaddr *)&other, sizeof(other)), -EMSGSIZE);
	UT_EQ(ust_sendto(stk, sd, "x", 1, 0, (struct sockaddr *)&far,
			 sizeof(far)), -ENETUNREACH);
	UT_EQ(mib(stk, UST_MIB_IP_OUTNOROUTES), 1);
	UT_EQ(ust_sendto(stk, sd, "x", 1, 0, (struct sockaddr *)&bc,
			 sizeof(bc)), -EACCES);
	UT_EQ(ust_setsockopt(stk, sd, SOL_SOCKET, SO_BROADCAST, &one,
			     sizeof(one)), 0);
	UT_EQ(ust_sendto(stk, sd, "x", 1, 0, (struct sockaddr *)&bc,
			 sizeof(bc)), 1);
	ust_stack_flush(stk);
	UT_EQ(nif.tx_n, 1);
	UT_ASSERT(rte_is_broadcast_ether_addr(
		&rte_pktmbuf_mtod(nif.tx[0], struct rte_ether_hdr *)->dst_addr));
	UT_EQ(ust_recv(stk, sd, buf, 1, 0), -EAGAIN);
	UT_EQ(ust_recv(stk, sd, buf, 1, MSG_OOB), -EOPNOTSUPP);
	UT_EQ(ust_setsockopt(stk, sd, SOL_SOCKET, SO_KEEPALIVE, &one,
			     sizeof(one)), -ENOPROTOOPT);
	UT_EQ(ust_connect(stk, sd, (struct sockaddr *)&far, sizeof(far)),
	      -ENETUNREACH);
	/* the descriptor table is full at max_sockets */
	sd3 = ust_socket(stk, AF_INET, SOCK_DGRAM, 0);
	sd4 = ust_socket(stk, AF_INET, SOCK_DGRAM, 0);
	UT_ASSERT(sd3 >= 0 && sd4 >= 0);
	UT_EQ(ust_socket(stk, AF_INET, SOCK_DGRAM, 0), -EMFILE);
	UT_EQ(ust_close(stk, sd4), 0);
	UT_EQ(ust_close(stk, sd4), -EBADF);
	UT_ASSERT(ust_socket(stk, AF_INET, SOCK_DGRAM, 0) >= 0);
	return teardown(stk);
}

static int
test_zero_copy(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	struct rte_mbuf *pk[8];
	union ust_sockaddr from[8];
	int sd, n, i;

	UT_ASSERT(stk != NULL);
	learn_peer(stk, 0);
	sd = ut_udp_bound(stk, 7);
	for (i = 0; i < 5; i++)
		inject(stk, udp_to_us(7, (uint16_t)(i + 1)), MS);
	n = ust_recv_burst(stk, sd, pk, 8, from);
	UT_EQ(n, 5);
	for (i = 0; i < n; i++) {
		UT_EQ(pk[i]->pkt_len, i + 1);
		UT_EQ(memcmp(rte_pktmbuf_mtod(pk[i], void *), "0123456789",
			     (size_t)i + 1), 0);
		UT_EQ(from[i].sin.sin_addr.s_addr, UT_PEER_IP);
		UT_ASSERT(rte_pktmbuf_headroom(pk[i]) >= 42);
	}
	UT_EQ(ust_send_burst(stk, sd, pk, (unsigned int)n, from), n);
	ust_stack_flush(stk);
	UT_EQ(nif.tx_n, 5);
	for (i = 0; i < 5; i++)
		UT_EQ(check_udp_frame(nif.tx[i], &ut_peer_mac, UT_PEER_IP, 5555,
				      "0123456789", (uint16_t)(i + 1)), 0);
	UT_EQ(ust_recv_burst(stk, sd, pk, 8, NULL), 0);
	return teardown(stk);
}

static int
test_close_drops(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	int sd, i;

	UT_ASSERT(stk != NULL);
	sd = ut_udp_bound(stk, 7);
	for (i = 0; i < 3; i++)
		inject(stk, udp_to_us(7, 100), MS);
	UT_EQ(ust_close(stk, sd), 0);
	UT_EQ(drops(stk, UST_DROP_SOCKET_CLOSE), 3);
	UT_EQ(ust_mem_pool_pages(ust_stack_udp_mem(stk)), 0);
	return teardown(stk);
}


/* Split a frame into segments of the given lengths (the last takes the
 * rest): the chained mbufs a scattering NIC or a PMD may deliver. */
static struct rte_mbuf *
chain_of(struct rte_mbuf *m, const uint16_t *cuts, unsigned int ncuts)
{
	struct rte_mbuf *head = NULL, *prev = NULL;
	uint32_t off = 0, total = m->pkt_len;
	unsigned int i;

	for (i = 0; i <= ncuts && off < total; i++) {
		uint32_t len = i < ncuts ? cuts[i] : total - off;
		struct rte_mbuf *seg = rte_pktmbuf_alloc(pool);

		if (len > total - off)
			len = total - off;
		memcpy(rte_pktmbuf_append(seg, (uint16_t)len),
		       rte_pktmbuf_mtod_offset(m, uint8_t *, off), len);
		off += len;
		if (head == NULL) {
			head = seg;
		} else {
			prev->next = seg;
			head->nb_segs++;
			head->pkt_len += len;
		}
		prev = seg;
	}
	rte_pktmbuf_free(m);
	return head;
}

static int
test_chained_rx(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	static const uint16_t cuts_a[] = { 20, 17, 3 };  /* headers split */
	static const uint16_t cuts_b[] = { 60, 1, 1 };   /* payload split */
	uint8_t pl[600], buf[700];
	struct rte_mbuf *m;
	unsigned int i;
	int sd;

	UT_ASSERT(stk != NULL);
	learn_peer(stk, 0);
	sd = ut_udp_bound(stk, 7);
	for (i = 0; i < sizeof(pl); i++)
		pl[i] = (uint8_t)(i * 13);
	m = chain_of(ut_udp_frame(pool, UT_PEER_IP, UT_OUR_IP, 5555, 7, pl,
				  sizeof(pl)), cuts_a, 3);
	UT_EQ(m->nb_segs, 4);
	inject(stk, m, MS);
	UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), sizeof(pl));
	UT_EQ(memcmp(buf, pl, sizeof(pl)), 0);
	m = chain_of(ut_udp_frame(pool, UT_PEER_IP, UT_OUR_IP, 5555, 7, pl,
				  sizeof(pl)), cuts_b, 3);
	inject(stk, m, MS);
	UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), sizeof(pl));
	UT_EQ(memcmp(buf, pl, sizeof(pl)), 0);
	/* Ethernet padding that fills whole segments of its own */
	m = ut_udp_frame(pool, UT_PEER_IP, UT_OUR_IP, 5555, 7, pl, 10);
	memset(rte_pktmbuf_append(m, 30), 0, 30);
	{
		static const uint16_t cuts_c[] = { 52, 10, 10 };

		m = chain_of(m, cuts_c, 3);
	}
	inject(stk, m, MS);
	UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), 10);
	UT_EQ(memcmp(buf, pl, 10), 0);
	/* a corrupted byte in a later segment is caught by the checksum */
	m = ut_udp_frame(pool, UT_PEER_IP, UT_OUR_IP, 5555, 7, pl, sizeof(pl));
	*rte_pktmbuf_mtod_offset(m, uint8_t *, 400) ^= 1;
	m = chain_of(m, cuts_b, 3);
	UT_EQ(expect_drop(stk, m, UST_DROP_UDP_CSUM), 0);
	/* an echo request whose ICMP header is in the second segment */
	{
		static const uint16_t cuts_d[] = { 30, 10 };
		struct ust_eth_repr e;
		struct ust_ipv4_repr ip;
		struct ust_icmp_repr ic;
		uint8_t flat[200];
		const uint8_t *l4;

		m = chain_of(ut_icmp_echo_frame(pool, UT_OUR_IP, 9, 9, 100),
			     cuts_d, 2);
		inject(stk, m, MS);
		UT_EQ(nif.tx_n, 1);
		m = ut_tx_pop(&nif);
		UT_ASSERT(m->pkt_len <= sizeof(flat));
		/* flatten whatever layout the reply has, then check it */
		l4 = rte_pktmbuf_read(m, 0, m->pkt_len, flat);
		UT_ASSERT(l4 != NULL);
		UT_EQ(ust_eth_parse(l4, m->pkt_len, &e), 0);
		UT_EQ(ust_ipv4_parse(l4 + 14, m->pkt_len - 14, m->pkt_len - 14,
				     0, &ip), 0);
		UT_EQ(ust_icmp_parse(l4 + 14 + ip.hdr_len,
				     ip.total_len - ip.hdr_len, 0, &ic), 0);
		UT_EQ(ic.type, UST_ICMP_ECHO_REPLY);
		UT_EQ(ic.data_len, 100);
		rte_pktmbuf_free(m);
	}
	return teardown(stk);
}

/*
 * The one chain checksum (ust_mbuf_raw_cksum()) where DPDK 22.11's
 * rte_raw_cksum_mbuf() is wrong: a piece after an odd number of bytes
 * whose own 32-bit sum exceeds 16 bits. A datagram received in pieces of
 * 45 bytes (headers and 3 of payload) and 1397 is delivered (the old code
 * dropped it as UDP_CSUM); a chain the application builds with a 3-byte
 * first segment leaves with a right checksum on a port without checksum
 * offload (the old code sent a wrong one).
 */
static int
test_chained_csum_odd(void)
{
	struct ust_stack *stk;
	/* 134: what Ethernet input pulls into the first segment */
	static const uint16_t cuts_a[] = { 134, 3 };
	static const uint16_t cuts_b[] = { 45, 700 };
	struct sockaddr_in to = peer(UT_PEER_IP, 9);
	uint8_t pl[1400], buf[1500];
	struct rte_mbuf *m, *m2;
	struct rte_ipv4_hdr *ih;
	const uint8_t *flat;
	unsigned int i;
	int sd;

	/* chains go out as they are; no checksum offload */
	ut_netif_init(&nif, UST_NETIF_F_TX_MULTI_SEGS);
	stk = ut_stack_create(&nif, pool, NULL);
	UT_ASSERT(stk != NULL);
	learn_peer(stk, 0);
	sd = ut_udp_bound(stk, 7);
	for (i = 0; i < sizeof(pl); i++)
		pl[i] = (uint8_t)(0xf0 | (i * 7));
	m = chain_of(ut_udp_frame(pool, UT_PEER_IP, UT_OUR_IP, 5555, 7, pl,
				  sizeof(pl)), cuts_a, 2);
	UT_EQ(m->nb_segs, 3);
	inject(stk, m, MS);
	UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), sizeof(pl));
	UT_EQ(memcmp(buf, pl, sizeof(pl)), 0);
	m = chain_of(ut_udp_frame(pool, UT_PEER_IP, UT_OUR_IP, 5555, 7, pl,
				  sizeof(pl)), cuts_b, 2);
	UT_EQ(m->nb_segs, 3);
	inject(stk, m, MS);
	UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), sizeof(pl));
	UT_EQ(drops(stk, UST_DROP_UDP_CSUM), 0);

	/* TX: 3 bytes, then 1397, software checksums (netif flags 0) */
	m = rte_pktmbuf_alloc(pool);
	m2 = rte_pktmbuf_alloc(pool);
	UT_ASSERT(m != NULL && m2 != NULL);
	memcpy(rte_pktmbuf_append(m, 3), pl, 3);
	memcpy(rte_pktmbuf_append(m2, sizeof(pl) - 3), pl + 3,
	       sizeof(pl) - 3);
	UT_EQ(rte_pktmbuf_chain(m, m2), 0);
	UT_EQ(ust_send_burst(stk, sd, &m, 1,
			     &(union ust_sockaddr){ .sin = to }), 1);
	ust_stack_flush(stk);
	UT_EQ(nif.tx_n, 1);
	m = ut_tx_pop(&nif);
	UT_ASSERT(m->nb_segs >= 2);
	UT_EQ(m->pkt_len, 14 + 20 + 8 + sizeof(pl));
	flat = rte_pktmbuf_read(m, 0, m->pkt_len, buf);
	UT_ASSERT(flat != NULL);
	ih = (struct rte_ipv4_hdr *)(uintptr_t)(flat + 14);
	UT_EQ(rte_ipv4_udptcp_cksum_verify(ih, ih + 1), 0);
	UT_EQ(memcmp(flat + 42, pl, sizeof(pl)), 0);
	rte_pktmbuf_free(m);
	ut_netif_init(&nif, 0);
	return teardown(stk);
}

static int
test_csum_none_flag(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	struct rte_mbuf *m;
	struct rte_ipv4_hdr *ih;
	struct rte_udp_hdr *uh;
	char buf[64];
	int sd;

	UT_ASSERT(stk != NULL);
	sd = ut_udp_bound(stk, 7);
	/* a virtio peer offloading its checksum: the field holds only the
	 * pseudo-header sum and the PMD says L4_CKSUM_NONE */
	m = udp_to_us(7, 16);
	ih = iph(m);
	uh = (struct rte_udp_hdr *)(ih + 1);
	uh->dgram_cksum = rte_ipv4_phdr_cksum(ih, 0);
	m->ol_flags = RTE_MBUF_F_RX_L4_CKSUM_NONE;
	inject(stk, m, MS);
	UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), 16);
	/* the same without the flag is a bad checksum */
	m = udp_to_us(7, 16);
	ih = iph(m);
	uh = (struct rte_udp_hdr *)(ih + 1);
	uh->dgram_cksum = rte_ipv4_phdr_cksum(ih, 0);
	UT_EQ(expect_drop(stk, m, UST_DROP_UDP_CSUM), 0);
	/* and the NIC's BAD verdict wins over a correct field */
	m = udp_to_us(7, 16);
	m->ol_flags = RTE_MBUF_F_RX_L4_CKSUM_BAD;
	UT_EQ(expect_drop(stk, m, UST_DROP_UDP_CSUM), 0);
	return teardown(stk);
}

static int
test_epollout_staging(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	struct sockaddr_in to = peer(UT_PEER_IP, 9);
	struct ust_epoll_event ev = { .events = UST_EPOLLOUT, .data = 42 };
	struct ust_epoll_event out[2];
	int sd, ep, big = 1 << 24;

	UT_ASSERT(stk != NULL);
	learn_peer(stk, 0);
	sd = ust_socket(stk, AF_INET, SOCK_DGRAM, 0);
	UT_EQ(ust_setsockopt(stk, sd, SOL_SOCKET, SO_SNDBUFFORCE, &big,
			     sizeof(big)), 0);
	ep = ust_epoll_create(stk);
	UT_EQ(ust_epoll_ctl(stk, ep, UST_EPOLL_CTL_ADD, sd, &ev), 0);
	UT_EQ(ust_epoll_wait(stk, ep, out, 2), 1);
	/* the NIC stops taking frames: staging fills, not sndbuf */
	nif.tx_accept = 0;
	while (ust_sendto(stk, sd, "s", 1, 0, (struct sockaddr *)&to,
			  sizeof(to)) == 1)
		;
	{
		int n = ust_epoll_wait(stk, ep, out, 2);

		nif.tx_accept = UINT32_MAX;
		UT_EQ(n, 0);
	}
	/* the NIC drains: the socket is told */
	ust_stack_flush(stk);
	UT_EQ(ust_epoll_wait(stk, ep, out, 2), 1);
	UT_EQ(out[0].data, 42);
	UT_ASSERT(out[0].events & UST_EPOLLOUT);
	return teardown(stk);
}

static int
test_loopback_bounded(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	struct sockaddr_in self = peer(UT_OUR_IP, 7);
	int a, b, n = 0, big = 1 << 24;
	ssize_t rc;

	UT_ASSERT(stk != NULL);
	a = ut_udp_bound(stk, 7);
	b = ut_udp_bound(stk, 8);
	UT_EQ(ust_setsockopt(stk, b, SOL_SOCKET, SO_SNDBUFFORCE, &big,
			     sizeof(big)), 0);
	/* without a poll in between, the loopback queue fills and sends
	 * are refused, not queued without bound */
	while ((rc = ust_sendto(stk, b, "l", 1, 0, (struct sockaddr *)&self,
				sizeof(self))) == 1 && n < 100000)
		n++;
	UT_EQ(rc, -EAGAIN);
	UT_EQ(n, 512);
	RTE_SET_USED(a);
	return teardown(stk);
}

static int
test_error_reporting(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	int sd, v = 0;
	socklen_t l = 2;
	char buf[8];

	UT_ASSERT(stk != NULL);
	sd = ut_udp_bound(stk, 7);
	/* an RFC 5227 probe for our address: answered, 0.0.0.0 not learned */
	inject(stk, ut_arp_frame(pool, RTE_ARP_OP_REQUEST, &ut_peer_mac, 0,
				 UT_OUR_IP), MS);
	UT_EQ(nif.tx_n, 1);
	ut_tx_drain(&nif);
	UT_ASSERT(ust_stack_arp_lookup(stk, 0, NULL) != 0);
	UT_EQ(mib(stk, UST_MIB_ARP_ALLOCS), 0);
	/* a too short SO_ERROR buffer is refused without losing anything */
	UT_EQ(ust_getsockopt(stk, sd, SOL_SOCKET, SO_ERROR, &v, &l), -EINVAL);
	UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), -EAGAIN);
	return teardown(stk);
}

/* @m (a frame with a 20-byte IPv4 header) again, with the @len bytes of
 * IPv4 options @opt (a multiple of 4) after the header */
static struct rte_mbuf *
with_ip_options(struct rte_mbuf *m, const uint8_t *opt, uint16_t len)
{
	struct rte_mbuf *n = rte_pktmbuf_alloc(pool);
	struct rte_ipv4_hdr *ih;
	uint8_t *p;

	if (n == NULL || m == NULL || (len & 3) != 0 || len > 40)
		goto fail;
	p = (uint8_t *)rte_pktmbuf_append(n, (uint16_t)(m->pkt_len + len));
	if (p == NULL)
		goto fail;
	memcpy(p, rte_pktmbuf_mtod(m, uint8_t *), 14 + 20);
	memcpy(p + 14 + 20, opt, len);
	memcpy(p + 14 + 20 + len, rte_pktmbuf_mtod_offset(m, uint8_t *,
		14 + 20), m->pkt_len - 14 - 20);
	ih = (struct rte_ipv4_hdr *)(p + 14);
	ih->version_ihl = (uint8_t)(0x40 | ((20 + len) / 4));
	ih->total_length = rte_cpu_to_be_16((uint16_t)(
		rte_be_to_cpu_16(ih->total_length) + len));
	ih->hdr_checksum = 0;
	ih->hdr_checksum = ~rte_raw_cksum(ih, 20 + len);
	rte_pktmbuf_free(m);
	return n;
fail:
	rte_pktmbuf_free(n);
	rte_pktmbuf_free(m);
	return NULL;
}

static void
accept_source_route(struct ust_stack_conf *c)
{
	c->accept_source_route = true;
}

/* LSRR and SSRR (RFC 791): dropped as IP_SOURCE_ROUTE with no reply, as
 * Linux with accept_source_route=0; delivered with it on; other options
 * and malformed source routes are not source-routed datagrams */
static int
test_source_route(void)
{
	/* a one-hop route through 198.18.0.9, pointer at its end */
	static const uint8_t lsrr[8] = { 1, 131, 7, 8, 198, 18, 0, 9 };
	static const uint8_t ssrr[8] = { 137, 7, 4, 198, 18, 0, 9, 0 };
	static const uint8_t rr[8] = { 7, 7, 4, 0, 0, 0, 0, 0 };
	static const uint8_t bad[8] = { 131, 7, 2, 198, 18, 0, 9, 0 };
	static const uint8_t *const routes[] = { lsrr, ssrr };
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);
	struct sockaddr_in from;
	socklen_t fromlen = sizeof(from);
	char buf[64];
	int sd, i;

	UT_ASSERT(stk != NULL);
	learn_peer(stk, 0);
	sd = ut_udp_bound(stk, 7);
	for (i = 0; i < 2; i++) {
		/* echo request, UDP to a bound port, UDP to a closed port
		 * (no port unreachable either) */
		UT_EQ(expect_drop(stk, with_ip_options(ut_icmp_echo_frame(pool,
			UT_OUR_IP, 1, (uint16_t)i, 8), routes[i], 8),
			UST_DROP_IP_SOURCE_ROUTE), 0);
		UT_EQ(expect_drop(stk, with_ip_options(udp_to_us(7, 10),
			routes[i], 8), UST_DROP_IP_SOURCE_ROUTE), 0);
		UT_EQ(expect_drop(stk, with_ip_options(udp_to_us(9, 10),
			routes[i], 8), UST_DROP_IP_SOURCE_ROUTE), 0);
	}
	UT_EQ(nif.tx_n, 0);
	UT_EQ(drops(stk, UST_DROP_IP_SOURCE_ROUTE), 6);
	UT_EQ(mib(stk, UST_MIB_ICMP_INECHOS), 0);
	UT_EQ(mib(stk, UST_MIB_UDP_INDATAGRAMS), 0);
	UT_EQ(mib(stk, UST_MIB_UDP_NOPORTS), 0);
	UT_EQ(ust_recvfrom(stk, sd, buf, sizeof(buf), 0, NULL, NULL),
	      -EAGAIN);
	/* a malformed source route is a header error */
	UT_EQ(expect_drop(stk, with_ip_options(udp_to_us(7, 10), bad, 8),
			  UST_DROP_IP_INHDR), 0);
	UT_EQ(mib(stk, UST_MIB_IP_INHDRERRORS), 1);
	/* record route is not a source route: answered */
	inject(stk, with_ip_options(ut_icmp_echo_frame(pool, UT_OUR_IP, 1, 9,
						       8), rr, 8), MS);
	UT_EQ(nif.tx_n, 1);
	ut_tx_drain(&nif);
	UT_EQ(teardown(stk), 0);

	/* [ip] accept_source_route = 1: delivered and answered */
	stk = ut_stack_create(&nif, pool, accept_source_route);
	UT_ASSERT(stk != NULL);
	learn_peer(stk, 0);
	sd = ut_udp_bound(stk, 7);
	inject(stk, with_ip_options(ut_icmp_echo_frame(pool, UT_OUR_IP, 1, 1,
						       8), lsrr, 8), MS);
	UT_EQ(nif.tx_n, 1);
	ut_tx_drain(&nif);
	UT_EQ(mib(stk, UST_MIB_ICMP_OUTECHOREPS), 1);
	inject(stk, with_ip_options(udp_to_us(7, 10), ssrr, 8), MS);
	UT_EQ(ust_recvfrom(stk, sd, buf, sizeof(buf), 0,
			   (struct sockaddr *)&from, &fromlen), 10);
	UT_EQ(drops(stk, UST_DROP_IP_SOURCE_ROUTE), 0);
	return teardown(stk);
}

/*
 * The log types are "ustack.<component>" (none is left named after the
 * RTE_LOG_DEFAULT_LOGTYPE macro, the literal that DPDK's
 * RTE_LOG_REGISTER_DEFAULT gives outside DPDK's build); with
 * "ustack.*" at debug a dropped packet logs its reason and an ARP failure
 * its address, one line each, and with the level back at info nothing.
 */
static int
test_log_types(void)
{
	static const char *const types[] = {
		"ustack.stack", "ustack.ip", "ustack.udp", "ustack.tcp",
		"ustack.drop",
	};
	struct sockaddr_in to = peer(RTE_BE32(UT_IPV4(198, 18, 0, 77)), 9);
	FILE *old = rte_log_get_stream(), *f;
	struct ust_stack *stk;
	char *buf = NULL, want[160], name[32];
	size_t len = 0, i;
	struct rte_mbuf *m;
	int sd, rc;
	uint64_t t;

	f = open_memstream(&buf, &len);
	UT_ASSERT(f != NULL);
	rte_log_dump(f);
	fflush(f);
	for (i = 0; i < RTE_DIM(types); i++)
		UT_ASSERT(strstr(buf, types[i]) != NULL, "no log type %s",
			  types[i]);
	UT_ASSERT(strstr(buf, "RTE_LOG_DEFAULT_LOGTYPE") == NULL);
	fclose(f);
	free(buf);
	buf = NULL;

	f = open_memstream(&buf, &len);
	UT_ASSERT(f != NULL);
	rte_openlog_stream(f);
	UT_EQ(rte_log_set_level_pattern("ustack.*", RTE_LOG_DEBUG), 0);
	stk = ut_stack_create(&nif, pool, NULL);
	UT_ASSERT(stk != NULL);
	snprintf(name, sizeof(name), "%s", ust_stack_name(stk));
	sd = ut_udp_bound(stk, 7);
	UT_ASSERT(sd >= 0);
	learn_peer(stk, 0);
	m = udp_to_us(7, 10);
	*rte_pktmbuf_mtod_offset(m, uint8_t *, 14 + 20 + 8) ^= 0x40;
	UT_EQ(expect_drop(stk, m, UST_DROP_UDP_CSUM), 0);
	/* an unanswered ARP request with two datagrams waiting */
	UT_EQ(ust_sendto(stk, sd, "a", 1, 0, (struct sockaddr *)&to,
			 sizeof(to)), 1);
	UT_EQ(ust_sendto(stk, sd, "b", 1, 0, (struct sockaddr *)&to,
			 sizeof(to)), 1);
	ust_stack_flush(stk);
	for (t = 100 * MS; t <= 5 * SEC; t += 100 * MS) {
		ust_stack_timers(stk, t);
		ust_stack_flush(stk);
	}
	UT_EQ(drops(stk, UST_DROP_NEIGH_FAILED), 2);
	rc = teardown(stk);
	/* back at info: a drop logs nothing */
	UT_EQ(rte_log_set_level_pattern("ustack.*", RTE_LOG_INFO), 0);
	stk = ut_stack_create(&nif, pool, NULL);
	UT_ASSERT(stk != NULL);
	learn_peer(stk, 0);
	m = udp_to_us(8, 10);
	UT_EQ(expect_drop(stk, m, UST_DROP_NO_SOCKET), 0);
	if (teardown(stk) != 0)
		rc = -1;
	rte_openlog_stream(old);
	fclose(f);

	snprintf(want, sizeof(want), "ustack.drop: %s: %s (rx)\n", name,
		 ust_drop_name(UST_DROP_UDP_CSUM));
	UT_ASSERT(strstr(buf, want) != NULL, "no drop line in: %s", buf);
	snprintf(want, sizeof(want), "ustack.drop: %s: %s (tx)\n", name,
		 ust_drop_name(UST_DROP_NEIGH_FAILED));
	UT_ASSERT(strstr(buf, want) != NULL, "no neigh drop line in: %s",
		  buf);
	snprintf(want, sizeof(want), "ustack.ip: %s: ARP: no reply from "
		 "198.18.0.77 to 3 requests, 2 queued frames dropped\n", name);
	UT_ASSERT(strstr(buf, want) != NULL, "no ARP line in: %s", buf);
	snprintf(want, sizeof(want), ": %s (rx)\n",
		 ust_drop_name(UST_DROP_NO_SOCKET));
	UT_ASSERT(strstr(buf, want) == NULL, "a drop logged at info: %s",
		  buf);
	free(buf);
	return rc;
}

/*
 * Stack names are unique in the process (telemetry answers for a name):
 * the default is "ust0", a second live stack of that name is refused with
 * EEXIST, and the name is free again once the first is destroyed.
 */
static int
test_names(void)
{
	struct ust_stack_conf c;
	struct ust_stack *a, *b;

	ust_stack_conf_defaults(&c);
	UT_ASSERT(strcmp(c.name, "ust0") == 0);
	c.netif = nif.netif;
	c.pool = pool;
	c.addr = UT_OUR_IP;
	c.prefix_len = 24;
	a = ust_stack_create(&c);
	UT_ASSERT(a != NULL);
	UT_ASSERT(strcmp(ust_stack_name(a), "ust0") == 0);
	b = ust_stack_create(&c);
	UT_ASSERT(b == NULL);
	UT_EQ(rte_errno, EEXIST);
	c.name = NULL;	/* the default too */
	b = ust_stack_create(&c);
	UT_ASSERT(b == NULL);
	UT_EQ(rte_errno, EEXIST);
	ust_stack_destroy(a);
	b = ust_stack_create(&c);
	UT_ASSERT(b != NULL);
	return teardown(b);
}

static const struct ut_case cases[] = {
	{ "arp_reply", test_arp_reply },
	{ "arp_resolve", test_arp_resolve },
	{ "arp_timeout", test_arp_timeout },
	{ "arp_queue_full", test_arp_queue_full },
	{ "arp_aging", test_arp_aging },
	{ "icmp_echo", test_icmp_echo },
	{ "malformed", test_malformed },
	{ "port_unreach_ratelimit", test_port_unreach_ratelimit },
	{ "udp_roundtrip", test_udp_roundtrip },
	{ "many_descriptors", test_many_descriptors },
	{ "udp_offload_flags", test_udp_offload_flags },
	{ "loopback", test_loopback },
	{ "tx_backpressure", test_tx_backpressure },
	{ "sndbuf", test_sndbuf },
	{ "connected_refused", test_connected_refused },
	{ "errors", test_errors },
	{ "zero_copy", test_zero_copy },
	{ "close_drops", test_close_drops },
	{ "chained_rx", test_chained_rx },
	{ "chained checksum, odd-length pieces", test_chained_csum_odd },
	{ "csum_none_flag", test_csum_none_flag },
	{ "epollout_staging", test_epollout_staging },
	{ "loopback_bounded", test_loopback_bounded },
	{ "error_reporting", test_error_reporting },
	{ "source_route", test_source_route },
	{ "log_types", test_log_types },
	{ "names", test_names },
};

int
main(int argc, char **argv)
{
	RTE_SET_USED(argc);
	if (ut_eal_init(argv[0], "0") != 0)
		return 1;
	pool = ut_pool("ut_stack", 4096);
	if (pool == NULL)
		return 1;
	ut_netif_init(&nif, 0);
	return UT_RUN(cases);
}
