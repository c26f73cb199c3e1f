/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * IPv6, Neighbour Discovery and ICMPv6 (lib/ip/ipv6.c, nd.c, icmp6.c):
 * packets in, packets out, a fake clock. Duplicate address detection and
 * its failures; resolution (INCOMPLETE, a multicast NS, the NA that
 * releases what waited), the state machine's timeouts (REACHABLE ->
 * STALE -> DELAY -> PROBE -> gone); NS answered; every malformed ND
 * message, extension header chain and address dropped under its reason,
 * with the parameter problem RFC 8200 asks for; router advertisements
 * (default router, on-link prefix, MTU); a flood of spoofed solicitations
 * held to the table's bound; UDP over IPv6 with dual-stack sockets and
 * IPV6_V6ONLY. At teardown: frames in == consumed + RX
 * drops, and every mbuf back in the pool.
 */

#include <string.h>

#include <rte_ip.h>

#include "ust_socket.h"
#include "ust_stack.h"
#include "ut.h"
#include "ut_netif.h"

#define MS (1000ull * 1000)
#define SEC (1000ull * MS)

static struct rte_mempool *pool;
static struct ut_netif nif;

static const uint8_t OUR6[16] = { 0x20, 0x01, 0, 2, 0, 0, 0, 0,
				  0, 0, 0, 0, 0, 0, 0, 2 };
static const uint8_t PEER6[16] = { 0x20, 0x01, 0, 2, 0, 0, 0, 0,
				   0, 0, 0, 0, 0, 0, 0, 1 };
static const uint8_t FAR6[16] = { 0x20, 0x01, 0, 2, 0, 9, 0, 0,
				  0, 0, 0, 0, 0, 0, 0, 1 };
static const uint8_t ROUTER_LL[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
				       0, 0, 0, 0, 0, 0, 0, 0xfe };
static const uint8_t ALL_NODES[16] = { 0xff, 2, 0, 0, 0, 0, 0, 0,
				       0, 0, 0, 0, 0, 0, 0, 1 };
static const uint8_t UNSPEC[16];

static void
ip6_on(struct ust_stack_conf *c)
{
	c->ip6.enable = true;
	memcpy(c->ip6.addr, OUR6, 16);
	c->ip6.prefix_len = 64;
}

static void
ip6_on_no_dad(struct ust_stack_conf *c)
{
	ip6_on(c);
	c->ip6.dad_transmits = 0;
	c->ip6.accept_ra = false;
}

/* An Ethernet + IPv6 frame to our MAC (or @dmac) with @l4len bytes of
 * next header @nh. */
static struct rte_mbuf *
frame6(const struct rte_ether_addr *dmac, const uint8_t *src,
       const uint8_t *dst, uint8_t nh, uint8_t hops, const void *l4,
       uint16_t l4len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct ust_ipv6_repr ip6;
	struct ust_eth_repr e;
	uint8_t *p;

	if (m == NULL)
		abort();
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(14 + 40 + l4len));
	if (p == NULL)
		abort();
	e.dst = dmac != NULL ? *dmac : ut_our_mac;
	e.src = ut_peer_mac;
	e.ethertype = RTE_ETHER_TYPE_IPV6;
	ust_eth_emit(p, 14, &e);
	memset(&ip6, 0, sizeof(ip6));
	memcpy(ip6.src, src, 16);
	memcpy(ip6.dst, dst, 16);
	ip6.payload_len = l4len;
	ip6.next_header = nh;
	ip6.hop_limit = hops;
	ust_ipv6_emit(p + 14, 40, &ip6);
	memcpy(p + 54, l4, l4len);
	return m;
}

static struct rte_mbuf *
icmp6_frame(const struct rte_ether_addr *dmac, const uint8_t *src,
	    const uint8_t *dst, uint8_t hops, const struct ust_icmp6_repr *ic)
{
	uint8_t buf[1500];
	size_t n = ust_icmp6_emit(buf, sizeof(buf), src, dst, ic);

	if (n == 0)
		abort();
	return frame6(dmac, src, dst, UST_IPV6_NH_ICMPV6, hops, buf,
		      (uint16_t)n);
}

static struct rte_mbuf *
echo_req(const uint8_t *src, const uint8_t *dst, uint16_t seq)
{
	static const uint8_t data[56] = "ustack ping6";
	struct ust_icmp6_repr ic;

	memset(&ic, 0, sizeof(ic));
	ic.type = UST_ICMP6_ECHO_REQUEST;
	ic.ident = 77;
	ic.seq = seq;
	ic.data = data;
	ic.data_len = sizeof(data);
	return icmp6_frame(NULL, src, dst, 64, &ic);
}

static struct rte_mbuf *
nd_msg(uint8_t type, const uint8_t *src, const uint8_t *dst,
       const uint8_t *target, uint8_t flags, bool lla)
{
	struct ust_icmp6_repr ic;
	const struct rte_ether_addr *dmac = NULL;
	struct rte_ether_addr mc;

	memset(&ic, 0, sizeof(ic));
	ic.type = type;
	ic.flags = flags;
	memcpy(ic.target, target, 16);
	if (lla && type == UST_ICMP6_ND_NS) {
		ic.nd.has_slla = true;
		ic.nd.slla = ut_peer_mac;
	} else if (lla) {
		ic.nd.has_tlla = true;
		ic.nd.tlla = ut_peer_mac;
	}
	if (dst[0] == 0xff) {
		ust_ipv6_mcast_mac(dst, &mc);
		dmac = &mc;
	}
	return icmp6_frame(dmac, src, dst, 255, &ic);
}

static void
tick(struct ust_stack *stk, uint64_t now)
{
	ust_stack_timers(stk, now);
	ust_stack_flush(stk);
}

/* The oldest TX frame if it is ICMPv6 (others before it are freed),
 * parsed with its checksum verified; false when there is none. */
static bool
pop6(struct ust_ipv6_repr *ip6, struct ust_icmp6_repr *ic,
     struct rte_ether_addr *dmac)
{
	struct rte_mbuf *m;

	while ((m = ut_tx_pop(&nif)) != NULL) {
		static uint8_t buf[2048];
		const uint8_t *p;
		struct ust_eth_repr e;

		if (m->pkt_len > sizeof(buf)) {
			rte_pktmbuf_free(m);
			continue;
		}
		p = rte_pktmbuf_read(m, 0, m->pkt_len, buf);
		if (ust_eth_parse(p, m->pkt_len, &e) != UST_WIRE_OK ||
		    e.ethertype != RTE_ETHER_TYPE_IPV6 ||
		    ust_ipv6_parse(p + 14, m->pkt_len - 14, m->pkt_len - 14,
				   ip6) != UST_WIRE_OK ||
		    ip6->next_header != UST_IPV6_NH_ICMPV6) {
			rte_pktmbuf_free(m);
			continue;
		}
		if (dmac != NULL)
			*dmac = e.dst;
		if (ust_icmp6_parse(p + 54, ip6->payload_len, ip6->src,
				    ip6->dst, 0, ic) != UST_WIRE_OK) {
			rte_pktmbuf_free(m);
			return false;
		}
		/* the data would point into buf: keep what the tests read */
		ic->data = NULL;
		rte_pktmbuf_free(m);
		return true;
	}
	return false;
}

/* A stack past DAD, the peer's NS answered (so the peer is STALE in the
 * cache, learned). */
static void
ip6_on_ra(struct ust_stack_conf *c)
{
	ip6_on_no_dad(c);
	c->ip6.accept_ra = true;
}

static struct ust_stack *
ready_stack_conf(void (*tweak)(struct ust_stack_conf *))
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, tweak);

	if (stk == NULL)
		return NULL;
	tick(stk, 0);
	ut_tx_drain(&nif);
	return stk;
}

static struct ust_stack *
ready_stack(void)
{
	return ready_stack_conf(ip6_on_no_dad);
}

static int
test_dad(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, ip6_on);
	struct ust_ipv6_repr ip6;
	struct ust_icmp6_repr ic;
	uint8_t a[16], ll[16], sn[16];
	struct rte_ether_addr macs[8];
	int n_ns = 0, n_rs = 0;

	UT_ASSERT(stk != NULL);
	UT_ASSERT(ust_stack_ip6_addr(stk, 0, ll, NULL) > 0);
	UT_EQ(ll[0], 0xfe);
	UT_EQ(ll[8], ut_our_mac.addr_bytes[0] ^ 2);
	UT_EQ(ust_stack_ip6_addr(stk, 1, a, NULL), UST_IP6_TENTATIVE);
	UT_ASSERT(memcmp(a, OUR6, 16) == 0);
	/* all-nodes, and one solicited-node group: the test MAC's low 24
	 * bits are OUR6's (00:00:02), so both addresses share it */
	UT_EQ(ust_stack_mc_addrs(stk, macs, 8), 2);
	UT_EQ(macs[1].addr_bytes[2], 0xff);
	UT_EQ(macs[1].addr_bytes[5], 2);
	tick(stk, 0);
	/* one NS from :: to each address's solicited-node group, no SLLA */
	while (pop6(&ip6, &ic, NULL)) {
		UT_EQ(ic.type, UST_ICMP6_ND_NS);
		UT_ASSERT(memcmp(ip6.src, UNSPEC, 16) == 0);
		UT_EQ(ip6.hop_limit, 255);
		ust_ipv6_solicited_node(ic.target, sn);
		UT_ASSERT(memcmp(ip6.dst, sn, 16) == 0);
		UT_ASSERT(!ic.nd.has_slla);
		n_ns++;
	}
	UT_EQ(n_ns, 2);
	/* tentative: an echo to it is not ours yet */
	ut_inject(stk, echo_req(PEER6, OUR6, 1), 10 * MS);
	UT_EQ(ut_drops(stk, UST_DROP_IP_INADDRERRORS), 1);
	UT_ASSERT(!pop6(&ip6, &ic, NULL));
	/* another node's DAD for our link-local: it is a duplicate */
	ut_inject(stk, nd_msg(UST_ICMP6_ND_NS, UNSPEC, sn, ll, 0, false),
	       20 * MS);
	UT_EQ(ust_stack_ip6_addr(stk, 0, NULL, NULL), UST_IP6_DUPLICATE);
	tick(stk, 1100 * MS);
	UT_EQ(ust_stack_ip6_addr(stk, 1, NULL, NULL), UST_IP6_PREFERRED);
	UT_EQ(ust_stack_ip6_addr(stk, 0, NULL, NULL), UST_IP6_DUPLICATE);
	UT_EQ(ut_mib(stk, UST_MIB_NDISC_DADFAILURES), 1);
	/* no link-local: no router solicitation (RFC 4861 6.3.7 wants one) */
	while (pop6(&ip6, &ic, NULL))
		n_rs += ic.type == UST_ICMP6_ND_RS;
	UT_EQ(n_rs, 0);
	/* the global address answers now */
	ut_inject(stk, nd_msg(UST_ICMP6_ND_NS, PEER6, OUR6, OUR6, 0, true),
	       1200 * MS);
	UT_ASSERT(pop6(&ip6, &ic, NULL));
	UT_EQ(ic.type, UST_ICMP6_ND_NA);
	UT_EQ(ic.flags, UST_ND_NA_SOLICITED | UST_ND_NA_OVERRIDE);
	ut_inject(stk, echo_req(PEER6, OUR6, 2), 1300 * MS);
	UT_ASSERT(pop6(&ip6, &ic, NULL));
	UT_EQ(ic.type, UST_ICMP6_ECHO_REPLY);
	UT_EQ(ic.seq, 2);
	UT_ASSERT(memcmp(ip6.src, OUR6, 16) == 0);
	return ut_teardown(stk, &nif, pool);
}

static int
test_dad_na(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, ip6_on);
	struct ust_ipv6_repr ip6;
	struct ust_icmp6_repr ic;
	int n_rs = 0;

	UT_ASSERT(stk != NULL);
	tick(stk, 0);
	ut_tx_drain(&nif);
	/* someone answers for our global address while it is tentative */
	ut_inject(stk, nd_msg(UST_ICMP6_ND_NA, PEER6, ALL_NODES, OUR6,
			   UST_ND_NA_OVERRIDE, true), 5 * MS);
	UT_EQ(ust_stack_ip6_addr(stk, 1, NULL, NULL), UST_IP6_DUPLICATE);
	tick(stk, 1100 * MS);
	UT_EQ(ust_stack_ip6_addr(stk, 0, NULL, NULL), UST_IP6_PREFERRED);
	/* the link-local one works: a router solicitation from it */
	while (pop6(&ip6, &ic, NULL))
		if (ic.type == UST_ICMP6_ND_RS) {
			n_rs++;
			UT_EQ(ip6.src[0], 0xfe);
			UT_ASSERT(ic.nd.has_slla);
		}
	UT_EQ(n_rs, 1);
	/* a duplicate takes nothing */
	ut_inject(stk, echo_req(PEER6, OUR6, 1), 1200 * MS);
	UT_EQ(ut_drops(stk, UST_DROP_IP_INADDRERRORS), 1);
	return ut_teardown(stk, &nif, pool);
}

/* Resolution and the whole state machine, with the clock. */
static int
test_nd_states(void)
{
	struct ust_stack *stk = ready_stack();
	struct ust_ipv6_repr ip6;
	struct ust_icmp6_repr ic;
	struct rte_ether_addr dmac, mc;
	const char *state;
	uint8_t sn[16];
	uint64_t t = SEC;
	int k;

	UT_ASSERT(stk != NULL);
	/* an echo from a peer we do not know: a multicast NS, the reply
	 * waits */
	ut_inject(stk, echo_req(PEER6, OUR6, 1), t);
	UT_ASSERT(pop6(&ip6, &ic, &dmac));
	UT_EQ(ic.type, UST_ICMP6_ND_NS);
	ust_ipv6_solicited_node(PEER6, sn);
	UT_ASSERT(memcmp(ip6.dst, sn, 16) == 0);
	ust_ipv6_mcast_mac(sn, &mc);
	UT_ASSERT(rte_is_same_ether_addr(&dmac, &mc));
	UT_ASSERT(memcmp(ic.target, PEER6, 16) == 0);
	UT_ASSERT(ic.nd.has_slla);
	UT_ASSERT(!pop6(&ip6, &ic, NULL));
	UT_EQ(ust_stack_nd_lookup(stk, PEER6, NULL, &state), -ENOENT);
	UT_ASSERT(strcmp(state, "INCOMPLETE") == 0);
	/* the solicited NA releases the reply, to the peer's MAC */
	ut_inject(stk, nd_msg(UST_ICMP6_ND_NA, PEER6, OUR6, PEER6,
			   UST_ND_NA_SOLICITED | UST_ND_NA_OVERRIDE, true), t);
	UT_ASSERT(pop6(&ip6, &ic, &dmac));
	UT_EQ(ic.type, UST_ICMP6_ECHO_REPLY);
	UT_ASSERT(rte_is_same_ether_addr(&dmac, &ut_peer_mac));
	UT_EQ(ust_stack_nd_lookup(stk, PEER6, NULL, &state), 0);
	UT_ASSERT(strcmp(state, "REACHABLE") == 0);
	/* an unsolicited NA without override and another MAC: kept, and
	 * REACHABLE goes STALE (RFC 4861 7.2.5) */
	{
		struct rte_mbuf *m = nd_msg(UST_ICMP6_ND_NA, PEER6, OUR6,
					    PEER6, 0, true);
		uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);

		/* TLLA at the NA's fixed part's end: 14 + 40 + 24 + 2 */
		p[14 + 40 + 24 + 2 + 5] ^= 1;
		/* fix the checksum: recompute over the edited message */
		p[14 + 40 + 2] = 0;
		p[14 + 40 + 3] = 0;
		{
			struct ust_icmp6_repr r;
			uint8_t b[64];
			size_t n;

			UT_EQ(ust_icmp6_parse(p + 54, 32, PEER6, OUR6,
					      UST_WIRE_F_NO_CSUM, &r), 0);
			r.data_len = 0;
			n = ust_icmp6_emit(b, sizeof(b), PEER6, OUR6, &r);
			UT_EQ(n, 32);
			memcpy(p + 54, b, n);
		}
		ut_inject(stk, m, t);
	}
	UT_EQ(ust_stack_nd_lookup(stk, PEER6, &dmac, &state), 0);
	UT_ASSERT(strcmp(state, "STALE") == 0);
	UT_ASSERT(rte_is_same_ether_addr(&dmac, &ut_peer_mac));
	/* used while STALE: DELAY, the frame goes at once */
	t += SEC;
	ut_inject(stk, echo_req(PEER6, OUR6, 2), t);
	UT_ASSERT(pop6(&ip6, &ic, &dmac));
	UT_EQ(ic.type, UST_ICMP6_ECHO_REPLY);
	ust_stack_nd_lookup(stk, PEER6, NULL, &state);
	UT_ASSERT(strcmp(state, "DELAY") == 0);
	/* 5 s later: PROBE, a unicast NS to the cached MAC */
	tick(stk, t + 4900 * MS);
	UT_ASSERT(!pop6(&ip6, &ic, NULL));
	tick(stk, t + 5000 * MS);
	UT_ASSERT(pop6(&ip6, &ic, &dmac));
	UT_EQ(ic.type, UST_ICMP6_ND_NS);
	UT_ASSERT(memcmp(ip6.dst, PEER6, 16) == 0);
	UT_ASSERT(rte_is_same_ether_addr(&dmac, &ut_peer_mac));
	ust_stack_nd_lookup(stk, PEER6, NULL, &state);
	UT_ASSERT(strcmp(state, "PROBE") == 0);
	/* no answer to max_probes (3): gone */
	for (k = 1; k <= 3; k++)
		tick(stk, t + 5000 * MS + (uint64_t)k * 1000 * MS + MS);
	UT_EQ(ust_stack_nd_lookup(stk, PEER6, NULL, NULL), -ENOENT);
	UT_EQ(ut_mib(stk, UST_MIB_NDISC_RESFAILED), 1);
	ut_tx_drain(&nif);
	/* resolved again, then REACHABLE times out to STALE by itself */
	t += 20 * SEC;
	ut_inject(stk, echo_req(PEER6, OUR6, 3), t);
	ut_inject(stk, nd_msg(UST_ICMP6_ND_NA, PEER6, OUR6, PEER6,
			   UST_ND_NA_SOLICITED, true), t);
	tick(stk, t + 31 * SEC);
	ust_stack_nd_lookup(stk, PEER6, NULL, &state);
	UT_ASSERT(strcmp(state, "STALE") == 0);
	/* an unresolvable neighbour: 3 multicast NS, then its frames are
	 * dropped as NEIGH_FAILED */
	ut_tx_drain(&nif);
	{
		uint8_t other[16];

		memcpy(other, PEER6, 16);
		other[15] = 0x77;
		ut_inject(stk, echo_req(other, OUR6, 4), t + 32 * SEC);
		for (k = 1; k <= 4; k++)
			tick(stk, t + 32 * SEC + (uint64_t)k * 1001 * MS);
		UT_EQ(ut_drops(stk, UST_DROP_NEIGH_FAILED), 1);
	}
	return ut_teardown(stk, &nif, pool);
}

/* Each malformed ND message under its reason, none answered. */
static int
test_nd_malformed(void)
{
	struct ust_stack *stk = ready_stack();
	struct ust_ipv6_repr ip6;
	struct ust_icmp6_repr ic;
	struct rte_mbuf *m;
	uint8_t other[16], sn[16];

	UT_ASSERT(stk != NULL);
	/* hop limit not 255 */
	m = nd_msg(UST_ICMP6_ND_NS, PEER6, OUR6, OUR6, 0, true);
	rte_pktmbuf_mtod(m, uint8_t *)[14 + 7] = 254;
	ut_inject(stk, m, SEC);
	UT_EQ(ut_drops(stk, UST_DROP_IPV6_NDISC_HOP_LIMIT), 1);
	/* code not 0 (the checksum covers it: rebuilt) */
	{
		struct ust_icmp6_repr r;

		memset(&r, 0, sizeof(r));
		r.type = UST_ICMP6_ND_NS;
		r.code = 1;
		memcpy(r.target, OUR6, 16);
		ut_inject(stk, icmp6_frame(NULL, PEER6, OUR6, 255, &r), SEC);
		UT_EQ(ut_drops(stk, UST_DROP_IPV6_NDISC_BAD_CODE), 1);
	}
	/* an option of length 0 */
	{
		uint8_t b[32] = { UST_ICMP6_ND_NS, 0 };
		uint32_t s;
		uint16_t ck;

		memcpy(b + 8, OUR6, 16);
		b[24] = UST_ND_OPT_SLLA;
		b[25] = 0;
		s = ust_ipv6_phdr_sum(PEER6, OUR6, UST_IPV6_NH_ICMPV6, 32) +
			rte_raw_cksum(b, 32);
		s = (s & 0xffff) + (s >> 16);
		s = (s & 0xffff) + (s >> 16);
		ck = (uint16_t)~s;
		memcpy(b + 2, &ck, 2);
		ut_inject(stk, frame6(NULL, PEER6, OUR6, UST_IPV6_NH_ICMPV6,
			  255,
				   b, 32), SEC);
		UT_EQ(ut_drops(stk, UST_DROP_IPV6_NDISC_BAD_OPTIONS), 1);
	}
	/* a multicast target; an NS from :: with an SLLA */
	ut_inject(stk, nd_msg(UST_ICMP6_ND_NS, PEER6, OUR6, ALL_NODES, 0, true),
	       SEC);
	ust_ipv6_solicited_node(OUR6, sn);
	ut_inject(stk, nd_msg(UST_ICMP6_ND_NS, UNSPEC, sn, OUR6, 0, true), SEC);
	/* a solicited NA to a multicast address */
	ut_inject(stk, nd_msg(UST_ICMP6_ND_NA, PEER6, ALL_NODES, PEER6,
			   UST_ND_NA_SOLICITED, true), SEC);
	/* an RA from a global source */
	{
		struct ust_icmp6_repr r;

		memset(&r, 0, sizeof(r));
		r.type = UST_ICMP6_ND_RA;
		r.router_lifetime = 1800;
		ut_inject(stk, icmp6_frame(NULL, PEER6, OUR6, 255, &r), SEC);
	}
	UT_EQ(ut_drops(stk, UST_DROP_IPV6_NDISC_BAD_OPTIONS), 5);
	/* an NS for someone else's address */
	memcpy(other, OUR6, 16);
	other[15] = 0x99;
	ut_inject(stk, nd_msg(UST_ICMP6_ND_NS, PEER6, OUR6, other, 0, true),
	       SEC);
	UT_EQ(ut_drops(stk, UST_DROP_IPV6_NDISC_NS_OTHERHOST), 1);
	/* a truncated NS */
	{
		uint8_t b[16] = { UST_ICMP6_ND_NS, 0 };
		uint32_t s = ust_ipv6_phdr_sum(PEER6, OUR6,
					       UST_IPV6_NH_ICMPV6, 16) +
			rte_raw_cksum(b, 16);
		uint16_t ck;

		s = (s & 0xffff) + (s >> 16);
		s = (s & 0xffff) + (s >> 16);
		ck = (uint16_t)~s;
		memcpy(b + 2, &ck, 2);
		ut_inject(stk, frame6(NULL, PEER6, OUR6, UST_IPV6_NH_ICMPV6,
			  255,
				   b, 16), SEC);
		UT_EQ(ut_drops(stk, UST_DROP_PKT_TOO_SMALL), 1);
	}
	/* a bad checksum */
	m = echo_req(PEER6, OUR6, 1);
	rte_pktmbuf_mtod(m, uint8_t *)[60] ^= 0x55;
	ut_inject(stk, m, SEC);
	UT_EQ(ut_drops(stk, UST_DROP_ICMP_CSUM), 1);
	UT_EQ(ut_mib(stk, UST_MIB_ICMP6_INCSUMERRORS), 1);
	UT_ASSERT(!pop6(&ip6, &ic, NULL));
	return ut_teardown(stk, &nif, pool);
}

/* Extension headers and addresses: parameter problems as RFC 8200 says. */
static int
test_ext_headers(void)
{
	struct ust_stack *stk = ready_stack();
	struct ust_ipv6_repr ip6;
	struct ust_icmp6_repr ic;
	uint8_t b[64];
	int n;

	UT_ASSERT(stk != NULL);
	ut_inject(stk, nd_msg(UST_ICMP6_ND_NA, PEER6, OUR6, PEER6,
			   UST_ND_NA_SOLICITED, true), SEC);
	/* the peer must be resolved for the errors to go: learn it */
	ut_inject(stk, nd_msg(UST_ICMP6_ND_NS, PEER6, OUR6, OUR6, 0, true),
		  SEC);
	ut_tx_drain(&nif);
	/* a routing header type 0 with segments left: parameter problem
	 * code 0 at the type byte (offset 40 + 2) */
	memset(b, 0, sizeof(b));
	b[0] = 59;  /* no next header after it */
	b[1] = 2;   /* 24 bytes: 1 address */
	b[2] = 0;   /* type 0 */
	b[3] = 1;   /* segments left */
	ut_inject(stk, frame6(NULL, PEER6, OUR6, UST_IPV6_NH_ROUTING, 64, b,
		  24),
	       SEC);
	UT_EQ(ut_drops(stk, UST_DROP_IPV6_BAD_EXTHDR), 1);
	UT_ASSERT(pop6(&ip6, &ic, NULL));
	UT_EQ(ic.type, UST_ICMP6_PARAM_PROBLEM);
	UT_EQ(ic.code, 0);
	UT_EQ(ic.param, 42);
	UT_ASSERT(memcmp(ip6.dst, PEER6, 16) == 0);
	/* an unknown next header: code 1 at the fixed header's field (6) */
	ut_inject(stk, frame6(NULL, PEER6, OUR6, 253, 64, b, 8), SEC);
	UT_EQ(ut_drops(stk, UST_DROP_IP_NOPROTO), 1);
	UT_EQ(ut_mib(stk, UST_MIB_IP6_INUNKNOWNPROTOS), 1);
	UT_ASSERT(pop6(&ip6, &ic, NULL));
	UT_EQ(ic.type, UST_ICMP6_PARAM_PROBLEM);
	UT_EQ(ic.code, 1);
	UT_EQ(ic.param, 6);
	/* a hop-by-hop header after another one: code 1 too */
	memset(b, 0, sizeof(b));
	b[0] = UST_IPV6_NH_HOPOPTS;
	b[8] = 59;
	ut_inject(stk, frame6(NULL, PEER6, OUR6, UST_IPV6_NH_DSTOPTS, 64, b,
		  16),
	       SEC);
	UT_EQ(ut_drops(stk, UST_DROP_IPV6_BAD_EXTHDR), 2);
	UT_ASSERT(pop6(&ip6, &ic, NULL));
	UT_EQ(ic.type, UST_ICMP6_PARAM_PROBLEM);
	UT_EQ(ic.code, 1);
	/* a truncated extension header: dropped, not answered */
	memset(b, 0, sizeof(b));
	b[0] = 59;
	b[1] = 4; /* 40 bytes, 16 there */
	ut_inject(stk, frame6(NULL, PEER6, OUR6, UST_IPV6_NH_DSTOPTS, 64, b,
		  16),
	       SEC);
	UT_EQ(ut_drops(stk, UST_DROP_IPV6_BAD_EXTHDR), 3);
	/* an option whose action bits say discard silently (01) */
	memset(b, 0, sizeof(b));
	b[0] = 59;
	b[2] = 0x45; /* type 01000101 */
	b[3] = 4;
	ut_inject(stk, frame6(NULL, PEER6, OUR6, UST_IPV6_NH_DSTOPTS, 64, b, 8),
	       SEC);
	UT_EQ(ut_drops(stk, UST_DROP_IPV6_BAD_EXTHDR), 4);
	UT_ASSERT(!pop6(&ip6, &ic, NULL));
	/* a fragment */
	memset(b, 0, sizeof(b));
	b[0] = UST_IPV6_NH_ICMPV6;
	b[3] = 1; /* M */
	ut_inject(stk, frame6(NULL, PEER6, OUR6, UST_IPV6_NH_FRAGMENT, 64, b,
		  16),
	       SEC);
	UT_EQ(ut_mib(stk, UST_MIB_IP6_REASMREQDS), 1); /* held */
	/* no next header: consumed */
	ut_inject(stk, frame6(NULL, PEER6, OUR6, UST_IPV6_NH_NONE, 64, b, 0),
	       SEC);
	/* sources that never are: multicast, loopback, IPv4-mapped */
	{
		uint8_t lo[16] = { [15] = 1 };
		uint8_t mapped[16] = { [10] = 0xff, [11] = 0xff, [12] = 198,
				       [13] = 18, [15] = 1 };

		ut_inject(stk, echo_req(ALL_NODES, OUR6, 1), SEC);
		ut_inject(stk, echo_req(lo, OUR6, 1), SEC);
		ut_inject(stk, echo_req(mapped, OUR6, 1), SEC);
		UT_EQ(ut_drops(stk, UST_DROP_IP_INVALID_SOURCE), 3);
		/* our own address as the source (not from loopback) */
		ut_inject(stk, echo_req(OUR6, OUR6, 1), SEC);
		UT_EQ(ut_drops(stk, UST_DROP_IP_LOCAL_SOURCE), 1);
	}
	/* a multicast group we did not join: its MAC is refused first */
	{
		uint8_t grp[16] = { 0xff, 0x02, [15] = 0x42 };
		struct rte_ether_addr mc;
		struct ust_icmp6_repr r;

		ust_ipv6_mcast_mac(grp, &mc);
		memset(&r, 0, sizeof(r));
		r.type = UST_ICMP6_ECHO_REQUEST;
		ut_inject(stk, icmp6_frame(&mc, PEER6, grp, 64, &r), SEC);
		UT_EQ(ut_drops(stk, UST_DROP_OTHERHOST), 1);
	}
	/* an echo to all-nodes: answered from our link-local address */
	{
		struct rte_ether_addr mc;
		struct ust_icmp6_repr r;
		uint8_t peer_ll[16] = { 0xfe, 0x80, [15] = 0x11 };

		ust_ipv6_mcast_mac(ALL_NODES, &mc);
		memset(&r, 0, sizeof(r));
		r.type = UST_ICMP6_ECHO_REQUEST;
		r.seq = 9;
		ut_inject(stk, icmp6_frame(&mc, peer_ll, ALL_NODES, 64, &r),
			  SEC);
		/* (the peer's link-local is resolved first) */
		UT_ASSERT(pop6(&ip6, &ic, NULL));
		UT_EQ(ic.type, UST_ICMP6_ND_NS);
		UT_EQ(ip6.src[0], 0xfe);
		ut_inject(stk, nd_msg(UST_ICMP6_ND_NA, peer_ll, ip6.src,
				   peer_ll, UST_ND_NA_SOLICITED, true), SEC);
		UT_ASSERT(pop6(&ip6, &ic, NULL));
		UT_EQ(ic.type, UST_ICMP6_ECHO_REPLY);
		UT_EQ(ic.seq, 9);
		UT_EQ(ip6.src[0], 0xfe);
	}
	/* errors are rate limited: 60 at once, the bucket holds 50 */
	for (n = 0; n < 60; n++)
		ut_inject(stk, frame6(NULL, PEER6, OUR6, 253, 64, b, 8),
		       2 * SEC);
	UT_EQ(ut_mib(stk, UST_MIB_ICMP6_OUTRATELIMITHOST) > 0, 1);
	ut_tx_drain(&nif);
	return ut_teardown(stk, &nif, pool);
}

/* ICMPv6 message @dg (@len bytes, checksum done) cut: the fragment of
 * ID @id with bytes [@off, @off + @n), more after it when @mf. */
static struct rte_mbuf *
frag6(const uint8_t *dg, uint32_t id, uint32_t off, uint32_t n, bool mf)
{
	static uint8_t b[1500];

	b[0] = UST_IPV6_NH_ICMPV6;
	b[1] = 0;
	b[2] = (uint8_t)(off >> 8);
	b[3] = (uint8_t)((off & 0xf8) | (mf ? 1 : 0));
	b[4] = (uint8_t)(id >> 24);
	b[5] = (uint8_t)(id >> 16);
	b[6] = (uint8_t)(id >> 8);
	b[7] = (uint8_t)id;
	memcpy(b + 8, dg + off, n);
	return frame6(NULL, PEER6, OUR6, UST_IPV6_NH_FRAGMENT, 64, b,
		      (uint16_t)(8 + n));
}

static size_t
echo_msg(uint8_t *buf, size_t cap, uint32_t data_len, uint16_t seq)
{
	static uint8_t data[65535];
	struct ust_icmp6_repr ic;
	uint32_t i;

	for (i = 0; i < data_len; i++)
		data[i] = (uint8_t)(i * 13 + seq);
	memset(&ic, 0, sizeof(ic));
	ic.type = UST_ICMP6_ECHO_REQUEST;
	ic.ident = 5;
	ic.seq = seq;
	ic.data = data;
	ic.data_len = data_len;
	return ust_icmp6_emit(buf, cap, PEER6, OUR6, &ic);
}

/* Our fragments of one datagram, reassembled by the test: their common ID,
 * 8-byte pieces but the last, the ICMPv6 message's bytes in @out. Returns
 * its length, or 0. */
static uint32_t
collect_frags(uint8_t *out, uint32_t cap, uint32_t *nfrags)
{
	struct rte_mbuf *m;
	uint32_t id = 0, total = 0, end = 0, have = 0;
	bool first = true, last = false;

	*nfrags = 0;
	while ((m = ut_tx_pop(&nif)) != NULL) {
		static uint8_t f[2048];
		const uint8_t *p = rte_pktmbuf_read(m, 0, m->pkt_len, f);
		uint32_t plen, off, n, fid;
		bool mf;

		if (p[12] != 0x86 || p[13] != 0xdd || p[14 + 6] != 44) {
			rte_pktmbuf_free(m);
			continue;
		}
		plen = (uint32_t)p[18] << 8 | p[19];
		off = ((uint32_t)p[56] << 8 | p[57]) & ~7u;
		mf = p[57] & 1;
		fid = (uint32_t)p[58] << 24 | (uint32_t)p[59] << 16 |
		      (uint32_t)p[60] << 8 | p[61];
		n = plen - 8;
		if (p[54] != UST_IPV6_NH_ICMPV6 || (mf && (n & 7)) ||
		    m->pkt_len > 14 + 1500 || off + n > cap ||
		    (!first && fid != id)) {
			rte_pktmbuf_free(m);
			return 0;
		}
		id = fid;
		first = false;
		memcpy(out + off, p + 62, n);
		have += n;
		if (!mf) {
			last = true;
			end = off + n;
		}
		(*nfrags)++;
		rte_pktmbuf_free(m);
	}
	total = last && have == end ? end : 0;
	return total;
}

static int
test_fragments(void)
{
	struct ust_stack *stk = ready_stack();
	static uint8_t dg[65536], back[65536];
	struct ust_ipv6_repr ip6;
	struct ust_icmp6_repr ic;
	uint32_t n, nf, off, sum, i, order[8];
	uint64_t rs = 99;
	size_t len;

	UT_ASSERT(stk != NULL);
	ut_inject(stk, nd_msg(UST_ICMP6_ND_NS, PEER6, OUR6, OUR6, 0, true),
		  SEC);
	ut_tx_drain(&nif);
	/* 3000 bytes in 3 pieces, in a random order: a reply in 3 too */
	len = echo_msg(dg, sizeof(dg), 3000, 1);
	for (i = 0; i < 3; i++)
		order[i] = i;
	for (i = 2; i > 0; i--) {
		uint32_t j = (uint32_t)(ut_rand(&rs) % (i + 1)), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (i = 0; i < 3; i++) {
		off = order[i] * 1232;
		n = order[i] == 2 ? (uint32_t)len - off : 1232;
		ut_inject(stk, frag6(dg, 0x1234, off, n, order[i] != 2), SEC);
	}
	UT_EQ(ut_mib(stk, UST_MIB_IP6_REASMOKS), 1);
	n = collect_frags(back, sizeof(back), &nf);
	UT_EQ(n, len);
	UT_EQ(nf, 3);
	UT_EQ(back[0], UST_ICMP6_ECHO_REPLY);
	UT_ASSERT(memcmp(back + 4, dg + 4, len - 4) == 0);
	sum = ust_ipv6_phdr_sum(OUR6, PEER6, UST_IPV6_NH_ICMPV6, n) +
		rte_raw_cksum(back, n);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	UT_EQ(sum, 0xffff);
	UT_EQ(ut_mib(stk, UST_MIB_IP6_FRAGOKS), 1);
	UT_EQ(ut_mib(stk, UST_MIB_IP6_FRAGCREATES), 3);
	/* the largest: 65527 bytes of message in 45 pieces of 1448 */
	len = echo_msg(dg, sizeof(dg), 65535 - 8, 2);
	for (off = 0; off < len; off += 1448)
		ut_inject(stk, frag6(dg, 7, off,
				  RTE_MIN(1448u, (uint32_t)len - off),
				  off + 1448 < len), SEC);
	n = collect_frags(back, sizeof(back), &nf);
	UT_EQ(n, len);
	UT_EQ(back[0], UST_ICMP6_ECHO_REPLY);
	UT_EQ(nf, 46);
	/* one byte more: past 65535 once whole, a parameter problem at the
	 * fragment offset field (40 + 2) */
	ut_inject(stk, frag6(dg, 8, 65528, 8, false), SEC);
	UT_EQ(ut_drops(stk, UST_DROP_IP_FRAG_MALFORMED), 1);
	UT_ASSERT(pop6(&ip6, &ic, NULL));
	UT_EQ(ic.type, UST_ICMP6_PARAM_PROBLEM);
	UT_EQ(ic.code, 0);
	UT_EQ(ic.param, 42);
	/* an overlap drops the datagram (RFC 5722); a duplicate is dropped
	 * alone */
	len = echo_msg(dg, sizeof(dg), 2000, 3);
	ut_inject(stk, frag6(dg, 9, 0, 1000, true), SEC);
	ut_inject(stk, frag6(dg, 9, 0, 1000, true), SEC);
	UT_EQ(ut_drops(stk, UST_DROP_DUP_FRAG), 1);
	ut_inject(stk, frag6(dg, 9, 992, 800, true), SEC);
	UT_EQ(ut_drops(stk, UST_DROP_IP_FRAG_OVERLAP), 1);
	UT_EQ(ut_drops(stk, UST_DROP_IP_FRAG_REASM_FAILED), 1);
	ut_inject(stk, frag6(dg, 9, 1000, (uint32_t)len - 1000, false), SEC);
	UT_ASSERT(!pop6(&ip6, &ic, NULL)); /* never whole */
	/* an atomic fragment is the packet (RFC 6946) */
	len = echo_msg(dg, sizeof(dg), 100, 4);
	ut_inject(stk, frag6(dg, 10, 0, (uint32_t)len, false), 2 * SEC);
	UT_ASSERT(pop6(&ip6, &ic, NULL));
	UT_EQ(ic.type, UST_ICMP6_ECHO_REPLY);
	UT_EQ(ic.seq, 4);
	/* the timeout: the pieces held (ID 9's last) go, and a first piece
	 * gets its time exceeded (code 1) */
	len = echo_msg(dg, sizeof(dg), 2000, 5);
	ut_inject(stk, frag6(dg, 11, 0, 1000, true), 3 * SEC);
	tick(stk, 3 * SEC + 30 * SEC + MS);
	UT_EQ(ut_drops(stk, UST_DROP_FRAG_REASM_TIMEOUT), 2);
	UT_EQ(ut_mib(stk, UST_MIB_IP6_REASMTIMEOUT), 2);
	UT_ASSERT(pop6(&ip6, &ic, NULL));
	UT_EQ(ic.type, UST_ICMP6_TIME_EXCEEDED);
	UT_EQ(ic.code, 1);
	return ut_teardown(stk, &nif, pool);
}

/* The next MLDv2 report staged (other frames freed): its source, and
 * its record type and group (it must have one record); false if none. */
static bool
pop_mld(uint8_t *src, uint8_t *rtype, uint8_t *group)
{
	struct rte_mbuf *m;

	while ((m = ut_tx_pop(&nif)) != NULL) {
		const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
		uint32_t sum;
		uint16_t plen;

		if (p[12] != 0x86 || p[13] != 0xdd || p[14 + 6] != 0) {
			rte_pktmbuf_free(m);
			continue;
		}
		plen = (uint16_t)(p[18] << 8 | p[19]);
		/* hop limit 1, to ff02::16, Router Alert, ICMPv6 143, its
		 * checksum right, one record */
		if (p[21] != 1 || p[38] != 0xff || p[39] != 2 ||
		    p[53] != 0x16 || p[54] != UST_IPV6_NH_ICMPV6 ||
		    p[56] != 5 || p[57] != 2 || p[62] != 143 ||
		    plen != 8 + 8 + 20 || p[69] != 1) {
			rte_pktmbuf_free(m);
			return false;
		}
		sum = ust_ipv6_phdr_sum(p + 22, p + 38, UST_IPV6_NH_ICMPV6,
					28) + rte_raw_cksum(p + 62, 28);
		sum = (sum & 0xffff) + (sum >> 16);
		sum = (sum & 0xffff) + (sum >> 16);
		memcpy(src, p + 22, 16);
		*rtype = p[70];
		memcpy(group, p + 74, 16);
		rte_pktmbuf_free(m);
		return sum == 0xffff;
	}
	return false;
}

static int
test_mld(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, ip6_on);
	uint8_t src[16], group[16], sn[16], rtype, q[24];
	struct rte_ether_addr mc;
	uint8_t router_ll[16] = { 0xfe, 0x80, [15] = 0x99 };
	uint32_t sum;
	uint16_t ck;

	UT_ASSERT(stk != NULL);
	ust_ipv6_solicited_node(OUR6, sn);
	/* before DAD's NS: a join from :: (the link-local is tentative) */
	tick(stk, 0);
	UT_ASSERT(pop_mld(src, &rtype, group));
	UT_ASSERT(memcmp(src, UNSPEC, 16) == 0);
	UT_EQ(rtype, 4); /* CHANGE_TO_EXCLUDE: a join */
	UT_ASSERT(memcmp(group, sn, 16) == 0);
	ut_tx_drain(&nif);
	/* the second (Robustness Variable 2) a second later */
	tick(stk, 500 * MS);
	UT_ASSERT(!pop_mld(src, &rtype, group));
	tick(stk, 1000 * MS);
	UT_ASSERT(pop_mld(src, &rtype, group));
	tick(stk, 1100 * MS);
	ut_tx_drain(&nif);
	tick(stk, 5000 * MS);
	UT_ASSERT(!pop_mld(src, &rtype, group));
	/* a general query (MLDv1's 24 bytes, Maximum Response Delay 0):
	 * answered at the next tick, from our link-local address */
	memset(q, 0, sizeof(q));
	q[0] = 130;
	sum = ust_ipv6_phdr_sum(router_ll, ALL_NODES, UST_IPV6_NH_ICMPV6,
				24) + rte_raw_cksum(q, 24);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	ck = (uint16_t)~sum;
	memcpy(q + 2, &ck, 2);
	ust_ipv6_mcast_mac(ALL_NODES, &mc);
	ut_inject(stk, frame6(&mc, router_ll, ALL_NODES, UST_IPV6_NH_ICMPV6, 1,
			   q, 24), 6000 * MS);
	tick(stk, 6100 * MS);
	UT_ASSERT(pop_mld(src, &rtype, group));
	UT_EQ(rtype, 2); /* MODE_IS_EXCLUDE */
	UT_EQ(src[0], 0xfe);
	UT_ASSERT(memcmp(group, sn, 16) == 0);
	/* not from a router on the link (hop limit 64): ignored */
	ut_inject(stk, frame6(&mc, router_ll, ALL_NODES, UST_IPV6_NH_ICMPV6, 64,
			   q, 24), 7000 * MS);
	tick(stk, 7100 * MS);
	UT_ASSERT(!pop_mld(src, &rtype, group));
	UT_EQ(ut_mib(stk, UST_MIB_ICMP6_INGROUPMEMBQUERIES), 2);
	UT_EQ(ut_mib(stk, UST_MIB_ICMP6_OUTMLDV2REPORTS), 3);
	return ut_teardown(stk, &nif, pool);
}

/* A router advertisement: default router, on-link prefix, MTU. */
static int
test_ra(void)
{
	struct ust_stack *stk = ready_stack_conf(ip6_on_ra);
	struct ust_ipv6_repr ip6;
	struct ust_icmp6_repr ic, r;
	struct rte_ether_addr dmac;
	uint8_t onlink[16] = { 0x20, 0x01, 0, 2, 0, 7, [15] = 5 };
	struct rte_mbuf *m;

	UT_ASSERT(stk != NULL);
	/* no router: off-link is unreachable */
	ut_inject(stk, echo_req(FAR6, OUR6, 1), SEC);
	UT_EQ(ut_mib(stk, UST_MIB_IP6_OUTNOROUTES), 1);
	memset(&r, 0, sizeof(r));
	r.type = UST_ICMP6_ND_RA;
	r.cur_hop_limit = 77;
	r.router_lifetime = 600;
	r.nd.has_slla = true;
	r.nd.slla = ut_peer_mac;
	r.nd.has_mtu = true;
	r.nd.mtu = 1400;
	r.nd.has_prefix = true;
	r.nd.prefix_len = 64;
	r.nd.prefix_flags = UST_ND_PREFIX_ONLINK;
	r.nd.prefix_valid = 3600;
	memcpy(r.nd.prefix, onlink, 8);
	memset(r.nd.prefix + 8, 0, 8);
	ut_inject(stk, icmp6_frame(NULL, ROUTER_LL, ALL_NODES, 255, &r), SEC);
	/* the router is known (STALE, from the SLLA): the reply to an
	 * off-link source goes to its MAC, with the RA's hop limit */
	ut_inject(stk, echo_req(FAR6, OUR6, 2), SEC);
	UT_ASSERT(pop6(&ip6, &ic, &dmac));
	UT_EQ(ic.type, UST_ICMP6_ECHO_REPLY);
	UT_EQ(ip6.hop_limit, 77);
	UT_ASSERT(rte_is_same_ether_addr(&dmac, &ut_peer_mac));
	/* the on-link prefix: resolved directly, not through the router */
	ut_inject(stk, echo_req(onlink, OUR6, 3), SEC);
	UT_ASSERT(pop6(&ip6, &ic, NULL));
	UT_EQ(ic.type, UST_ICMP6_ND_NS);
	UT_ASSERT(memcmp(ic.target, onlink, 16) == 0);
	ut_tx_drain(&nif);
	/* the MTU: a 1400-byte echo's reply does not fit 1400: fragments
	 * of at most 1400 */
	{
		struct ust_icmp6_repr e;
		static uint8_t big[1400 - 40 - 8 + 8];
		unsigned int k = 0;

		memset(&e, 0, sizeof(e));
		e.type = UST_ICMP6_ECHO_REQUEST;
		e.data = big;
		e.data_len = sizeof(big);
		m = icmp6_frame(NULL, FAR6, OUR6, 64, &e);
		ut_inject(stk, m, SEC);
		UT_EQ(ut_mib(stk, UST_MIB_IP6_FRAGOKS), 1);
		while ((m = ut_tx_pop(&nif)) != NULL) {
			UT_ASSERT(m->pkt_len <= 14 + 1400);
			k++;
			rte_pktmbuf_free(m);
		}
		UT_EQ(k, 2);
	}
	/* the router's lifetime ends: unreachable again */
	tick(stk, SEC + 601 * SEC);
	ut_tx_drain(&nif);
	ut_inject(stk, echo_req(FAR6, OUR6, 4), 602 * SEC);
	UT_EQ(ut_mib(stk, UST_MIB_IP6_OUTNOROUTES), 2);
	return ut_teardown(stk, &nif, pool);
}

/* 3000 solicitations from spoofed sources: the table keeps its bound,
 * and a real peer still gets in and is answered. */
static int
test_nd_flood(void)
{
	struct ust_stack *stk = ready_stack();
	struct ust_ipv6_repr ip6;
	struct ust_icmp6_repr ic;
	uint64_t rs = 7;
	unsigned int in_use;
	int i, replies = 0;

	UT_ASSERT(stk != NULL);
	for (i = 0; i < 3000; i++) {
		uint8_t src[16];
		uint64_t r = ut_rand(&rs);

		memcpy(src, OUR6, 8);
		memcpy(src + 8, &r, 8);
		ut_inject(stk, nd_msg(UST_ICMP6_ND_NS, src, OUR6, OUR6, 0,
			  true),
		       SEC + (uint64_t)i * MS);
		ut_tx_drain(&nif);
	}
	in_use = rte_mempool_in_use_count(pool);
	UT_ASSERT(in_use < 64);
	UT_ASSERT(ut_mib(stk, UST_MIB_NDISC_ALLOCS) -
		  ut_mib(stk, UST_MIB_NDISC_DESTROYS) <= 256);
	/* the peer's echo: resolved (it evicts a learned-never-used entry)
	 * and answered */
	ut_inject(stk, echo_req(PEER6, OUR6, 1), 10 * SEC);
	ut_inject(stk, nd_msg(UST_ICMP6_ND_NA, PEER6, OUR6, PEER6,
			   UST_ND_NA_SOLICITED, true), 10 * SEC);
	while (pop6(&ip6, &ic, NULL))
		replies += ic.type == UST_ICMP6_ECHO_REPLY;
	UT_EQ(replies, 1);
	return ut_teardown(stk, &nif, pool);
}

/* IPv6 off: 0x86DD is IPV6DISABLED, and the config check. */
static int
test_ip6_off(void)
{
	struct ust_stack *stk = ut_stack_create(&nif, pool, NULL);

	UT_ASSERT(stk != NULL);
	ut_inject(stk, echo_req(PEER6, OUR6, 1), SEC);
	UT_EQ(ut_drops(stk, UST_DROP_IPV6DISABLED), 1);
	UT_EQ(ust_stack_ip6_addr(stk, 0, NULL, NULL), -ENOENT);
	UT_EQ(ust_stack_mc_addrs(stk, NULL, 0), 0);
	return ut_teardown(stk, &nif, pool);
}

/* ---- UDP over IPv6, dual-stack sockets ---- */

/* A UDP datagram from @src to @dst with a right checksum (@bad 1: a wrong
 * one; 2: none, which IPv6 does not allow). */
static struct rte_mbuf *
udp6_frame(const uint8_t *src, const uint8_t *dst, uint16_t sport,
	   uint16_t dport, const void *pl, uint16_t len, int bad)
{
	uint8_t buf[2048];
	struct ust_udp_repr u;

	u.src_port = sport;
	u.dst_port = dport;
	u.len = (uint16_t)(8 + len);
	memcpy(buf + 8, pl, len);
	if (ust_udp6_emit(buf, sizeof(buf), &u, src, dst, buf + 8, 0) == 0)
		abort();
	if (bad == 1)
		buf[6] ^= 0x55;
	else if (bad == 2)
		buf[6] = buf[7] = 0;
	return frame6(NULL, src, dst, IPPROTO_UDP, 64, buf, u.len);
}

/* The oldest TX frame if it is UDP over IPv6 (others before it freed),
 * its checksum verified, its payload into @pl; -1 if none. */
static int
pop_udp6(struct ust_ipv6_repr *ip6, struct ust_udp_repr *u, uint8_t *pl)
{
	struct rte_mbuf *m;

	while ((m = ut_tx_pop(&nif)) != NULL) {
		static uint8_t buf[2048];
		const uint8_t *p;
		struct ust_eth_repr e;

		p = rte_pktmbuf_read(m, 0, RTE_MIN(m->pkt_len,
						   (uint32_t)sizeof(buf)), buf);
		if (ust_eth_parse(p, m->pkt_len, &e) != UST_WIRE_OK ||
		    e.ethertype != RTE_ETHER_TYPE_IPV6 ||
		    ust_ipv6_parse(p + 14, m->pkt_len - 14, m->pkt_len - 14,
				   ip6) != UST_WIRE_OK ||
		    ip6->next_header != IPPROTO_UDP) {
			rte_pktmbuf_free(m);
			continue;
		}
		if (ust_udp6_parse(p + 54, ip6->payload_len, ip6->src,
				   ip6->dst, 0, u) != UST_WIRE_OK) {
			rte_pktmbuf_free(m);
			return -1;
		}
		memcpy(pl, p + 62, u->len - 8u);
		rte_pktmbuf_free(m);
		return 0;
	}
	return -1;
}

static struct sockaddr_in6
sin6_of(const uint8_t *a, uint16_t port)
{
	struct sockaddr_in6 s6;

	memset(&s6, 0, sizeof(s6));
	s6.sin6_family = AF_INET6;
	s6.sin6_port = rte_cpu_to_be_16(port);
	if (a != NULL)
		memcpy(s6.sin6_addr.s6_addr, a, 16);
	return s6;
}

static struct sockaddr_in6
sin6_mapped(rte_be32_t a, uint16_t port)
{
	struct sockaddr_in6 s6 = sin6_of(NULL, port);

	s6.sin6_addr.s6_addr[10] = 0xff;
	s6.sin6_addr.s6_addr[11] = 0xff;
	memcpy(&s6.sin6_addr.s6_addr[12], &a, 4);
	return s6;
}

/* A dual-stack socket on [::]:7: IPv6 and IPv4 datagrams in (the IPv4
 * peer reported mapped), replies out over each family with a right
 * checksum; Udp6 counts IPv6's, Udp IPv4's; above the MTU, fragments. */
static int
test_udp6_dual(void)
{
	static uint8_t big[65528];
	struct ust_stack *stk = ready_stack();
	struct sockaddr_in6 any = sin6_of(NULL, 7), from, name;
	socklen_t fl;
	struct ust_ipv6_repr ip6;
	struct ust_udp_repr u;
	uint8_t buf[2048], pl[2048];
	struct rte_mbuf *m;
	uint32_t k = 0;
	int sd;

	UT_ASSERT(stk != NULL);
	/* the peer known (STALE), so that replies go out at once */
	ut_inject(stk, nd_msg(UST_ICMP6_ND_NS, PEER6, OUR6, OUR6, 0, true),
		  MS);
	ut_tx_drain(&nif);
	sd = ust_socket(stk, AF_INET6, SOCK_DGRAM, 0);
	UT_ASSERT(sd >= 0);
	fl = sizeof(name);
	UT_EQ(ust_getsockname(stk, sd, (struct sockaddr *)&name, &fl), 0);
	UT_EQ(fl, sizeof(name));
	UT_EQ(name.sin6_family, AF_INET6);
	UT_EQ(memcmp(name.sin6_addr.s6_addr, UNSPEC, 16), 0);
	UT_EQ(ust_bind(stk, sd, (struct sockaddr *)&any, sizeof(any)), 0);
	/* IPv6 in */
	ut_inject(stk, udp6_frame(PEER6, OUR6, 5555, 7, "hello6", 6, 0),
		  2 * MS);
	fl = sizeof(from);
	UT_EQ(ust_recvfrom(stk, sd, buf, sizeof(buf), 0,
			   (struct sockaddr *)&from, &fl), 6);
	UT_EQ(memcmp(buf, "hello6", 6), 0);
	UT_EQ(fl, sizeof(from));
	UT_EQ(from.sin6_family, AF_INET6);
	UT_EQ(memcmp(from.sin6_addr.s6_addr, PEER6, 16), 0);
	UT_EQ(rte_be_to_cpu_16(from.sin6_port), 5555);
	UT_EQ(ut_mib(stk, UST_MIB_UDP6_INDATAGRAMS), 1);
	UT_EQ(ut_mib(stk, UST_MIB_UDP_INDATAGRAMS), 0);
	/* the reply, to what recvfrom said */
	UT_EQ(ust_sendto(stk, sd, "olleh6", 6, 0, (struct sockaddr *)&from,
			 fl), 6);
	ust_stack_flush(stk);
	UT_EQ(pop_udp6(&ip6, &u, pl), 0);
	UT_EQ(memcmp(ip6.src, OUR6, 16), 0);
	UT_EQ(memcmp(ip6.dst, PEER6, 16), 0);
	UT_EQ(u.src_port, 7);
	UT_EQ(u.dst_port, 5555);
	UT_EQ(u.len, 14);
	UT_EQ(memcmp(pl, "olleh6", 6), 0);
	UT_EQ(ut_mib(stk, UST_MIB_UDP6_OUTDATAGRAMS), 1);
	/* IPv4 in: reported as ::ffff:198.18.0.1 */
	ut_inject(stk, ut_udp_frame(pool, UT_PEER_IP, UT_OUR_IP, 4444, 7,
				    "hello4", 6), 3 * MS);
	fl = sizeof(from);
	UT_EQ(ust_recvfrom(stk, sd, buf, sizeof(buf), 0,
			   (struct sockaddr *)&from, &fl), 6);
	UT_EQ(memcmp(buf, "hello4", 6), 0);
	name = sin6_mapped(UT_PEER_IP, 4444);
	UT_EQ(memcmp(from.sin6_addr.s6_addr, name.sin6_addr.s6_addr, 16), 0);
	UT_EQ(from.sin6_port, name.sin6_port);
	UT_EQ(ut_mib(stk, UST_MIB_UDP_INDATAGRAMS), 1);
	/* the reply to the mapped address goes out over IPv4 */
	ut_tx_drain(&nif);
	UT_EQ(ust_sendto(stk, sd, "x", 1, 0, (struct sockaddr *)&from, fl), 1);
	ust_stack_flush(stk);
	UT_EQ(ut_mib(stk, UST_MIB_UDP_OUTDATAGRAMS), 1);
	UT_EQ(ut_mib(stk, UST_MIB_UDP6_OUTDATAGRAMS), 1);
	ut_tx_drain(&nif);
	/* above the MTU: fragments, each with the fragment header (8008
	 * bytes of UDP at 1500: 6 pieces of at most 1448) */
	memset(big, 0x3c, sizeof(big));
	from = sin6_of(PEER6, 5555);
	UT_EQ(ust_sendto(stk, sd, big, 8000, 0, (struct sockaddr *)&from,
			 sizeof(from)), 8000);
	ust_stack_flush(stk);
	while ((m = ut_tx_pop(&nif)) != NULL) {
		const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);

		UT_ASSERT(m->pkt_len <= 1514);
		UT_EQ(p[14 + 6], 44);   /* next header: fragment */
		k++;
		rte_pktmbuf_free(m);
	}
	UT_EQ(k, 6);
	UT_EQ(ut_mib(stk, UST_MIB_IP6_FRAGCREATES), 6);
	/* 65527 is IPv6's largest (65535 - 8), one more is refused */
	UT_EQ(ust_sendto(stk, sd, big, 65528, 0, (struct sockaddr *)&from,
			 sizeof(from)), -EMSGSIZE);
	UT_EQ(ust_sendto(stk, sd, big, 65527, 0, (struct sockaddr *)&from,
			 sizeof(from)), 65527);
	ust_stack_flush(stk);
	ut_tx_drain(&nif);
	UT_EQ(ust_close(stk, sd), 0);
	return ut_teardown(stk, &nif, pool);
}

/* IPV6_V6ONLY and the family rules, as Linux: a V6ONLY [::]:9 beside an
 * AF_INET 0.0.0.0:9, each taking its family; without V6ONLY the port is
 * taken for both; mapped addresses refused by V6ONLY sockets; sockaddrs
 * of the wrong family refused. */
static int
test_udp6_v6only(void)
{
	struct ust_stack *stk = ready_stack();
	struct sockaddr_in6 any = sin6_of(NULL, 9), s6;
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = RTE_BE16(9) };
	socklen_t l = sizeof(int);
	int s_6, s_4, s_d, one = 1, v = 7;
	uint8_t buf[64];

	UT_ASSERT(stk != NULL);
	ut_inject(stk, nd_msg(UST_ICMP6_ND_NS, PEER6, OUR6, OUR6, 0, true),
		  MS);
	ut_tx_drain(&nif);
	s_6 = ust_socket(stk, AF_INET6, SOCK_DGRAM, 0);
	s_4 = ust_socket(stk, AF_INET, SOCK_DGRAM, 0);
	s_d = ust_socket(stk, AF_INET6, SOCK_DGRAM, 0);
	UT_ASSERT(s_6 >= 0 && s_4 >= 0 && s_d >= 0);
	/* the option: AF_INET6 only, before bind */
	UT_EQ(ust_setsockopt(stk, s_4, IPPROTO_IPV6, IPV6_V6ONLY, &one,
			     sizeof(one)), -ENOPROTOOPT);
	UT_EQ(ust_getsockopt(stk, s_6, IPPROTO_IPV6, IPV6_V6ONLY, &v, &l), 0);
	UT_EQ(v, 0);
	UT_EQ(ust_setsockopt(stk, s_6, IPPROTO_IPV6, IPV6_V6ONLY, &one,
			     sizeof(one)), 0);
	UT_EQ(ust_getsockopt(stk, s_6, IPPROTO_IPV6, IPV6_V6ONLY, &v, &l), 0);
	UT_EQ(v, 1);
	/* families refused */
	UT_EQ(ust_bind(stk, s_4, (struct sockaddr *)&any, sizeof(any)),
	      -EAFNOSUPPORT);
	UT_EQ(ust_bind(stk, s_6, (struct sockaddr *)&sin, sizeof(sin)),
	      -EAFNOSUPPORT);
	UT_EQ(ust_bind(stk, s_6, (struct sockaddr *)&any, 20), -EINVAL);
	s6 = sin6_mapped(0, 9);
	UT_EQ(ust_bind(stk, s_6, (struct sockaddr *)&s6, sizeof(s6)), -EINVAL);
	s6 = sin6_of(FAR6, 9);
	UT_EQ(ust_bind(stk, s_6, (struct sockaddr *)&s6, sizeof(s6)),
	      -EADDRNOTAVAIL);
	/* V6ONLY [::]:9 and 0.0.0.0:9 side by side */
	UT_EQ(ust_bind(stk, s_6, (struct sockaddr *)&any, sizeof(any)), 0);
	UT_EQ(ust_setsockopt(stk, s_6, IPPROTO_IPV6, IPV6_V6ONLY, &one,
			     sizeof(one)), -EINVAL);
	UT_EQ(ust_bind(stk, s_4, (struct sockaddr *)&sin, sizeof(sin)), 0);
	/* a dual-stack one finds the port taken (both families' keys) */
	UT_EQ(ust_bind(stk, s_d, (struct sockaddr *)&any, sizeof(any)),
	      -EADDRINUSE);
	ut_inject(stk, udp6_frame(PEER6, OUR6, 1000, 9, "six", 3, 0), 2 * MS);
	ut_inject(stk, ut_udp_frame(pool, UT_PEER_IP, UT_OUR_IP, 1000, 9,
				    "four", 4), 2 * MS);
	UT_EQ(ust_recv(stk, s_6, buf, sizeof(buf), 0), 3);
	UT_EQ(memcmp(buf, "six", 3), 0);
	UT_EQ(ust_recv(stk, s_6, buf, sizeof(buf), 0), -EAGAIN);
	UT_EQ(ust_recv(stk, s_4, buf, sizeof(buf), 0), 4);
	UT_EQ(memcmp(buf, "four", 4), 0);
	/* a V6ONLY socket reaches no IPv4 peer */
	s6 = sin6_mapped(UT_PEER_IP, 1000);
	UT_EQ(ust_connect(stk, s_6, (struct sockaddr *)&s6, sizeof(s6)),
	      -ENETUNREACH);
	UT_EQ(ust_sendto(stk, s_6, "x", 1, 0, (struct sockaddr *)&s6,
			 sizeof(s6)), -ENETUNREACH);
	UT_EQ(ust_sendto(stk, s_6, "x", 1, 0, (struct sockaddr *)&sin,
			 sizeof(sin)), -EAFNOSUPPORT);
	/* an AF_INET socket no IPv6 one */
	s6 = sin6_of(PEER6, 1000);
	UT_EQ(ust_sendto(stk, s_4, "x", 1, 0, (struct sockaddr *)&s6,
			 sizeof(s6)), -EAFNOSUPPORT);
	/* the V6ONLY socket closed, IPv4's key is still s_4's */
	UT_EQ(ust_close(stk, s_6), 0);
	UT_EQ(ust_bind(stk, s_d, (struct sockaddr *)&any, sizeof(any)),
	      -EADDRINUSE);
	UT_EQ(ust_close(stk, s_4), 0);
	UT_EQ(ust_bind(stk, s_d, (struct sockaddr *)&any, sizeof(any)), 0);
	/* a dual-stack socket may send to a sockaddr_in, as Linux's */
	UT_EQ(ust_sendto(stk, s_d, "y", 1, 0, (struct sockaddr *)&sin,
			 sizeof(sin)), -EINVAL);  /* 0.0.0.0 */
	sin.sin_addr.s_addr = UT_PEER_IP;
	UT_EQ(ust_sendto(stk, s_d, "y", 1, 0, (struct sockaddr *)&sin,
			 sizeof(sin)), 1);
	UT_EQ(ust_close(stk, s_d), 0);
	return ut_teardown(stk, &nif, pool);
}

/* Connected IPv6 sockets take only their peer, and hear of the hard
 * ICMPv6 errors about what they sent (ECONNREFUSED); what finds no socket
 * gets a port unreachable (Udp6 NoPorts); checksums wrong or missing are
 * dropped (Udp6 InCsumErrors, UDP_CSUM), bad lengths too (UDP_BADLEN). */
static int
test_udp6_errors(void)
{
	struct ust_stack *stk = ready_stack();
	struct sockaddr_in6 any = sin6_of(OUR6, 11), peer = sin6_of(PEER6, 12);
	struct sockaddr_in6 got;
	socklen_t gl = sizeof(got);
	struct ust_ipv6_repr ip6;
	struct ust_icmp6_repr ic;
	uint8_t h[8] = { 0, 12, 0, 11, 0, 40, 0x12, 0x34 };
	uint8_t buf[64];
	int sd;

	UT_ASSERT(stk != NULL);
	ut_inject(stk, nd_msg(UST_ICMP6_ND_NS, PEER6, OUR6, OUR6, 0, true),
		  MS);
	ut_tx_drain(&nif);
	sd = ust_socket(stk, AF_INET6, SOCK_DGRAM, 0);
	UT_ASSERT(sd >= 0);
	UT_EQ(ust_bind(stk, sd, (struct sockaddr *)&any, sizeof(any)), 0);
	UT_EQ(ust_getsockname(stk, sd, (struct sockaddr *)&got, &gl), 0);
	UT_EQ(memcmp(got.sin6_addr.s6_addr, OUR6, 16), 0);
	UT_EQ(rte_be_to_cpu_16(got.sin6_port), 11);
	/* bound to an IPv6 address: no IPv4 */
	ut_inject(stk, ut_udp_frame(pool, UT_PEER_IP, UT_OUR_IP, 12, 11,
				    "v4", 2), 2 * MS);
	UT_EQ(ut_mib(stk, UST_MIB_UDP_NOPORTS), 1);
	ut_tx_drain(&nif);
	UT_EQ(ust_connect(stk, sd, (struct sockaddr *)&peer, sizeof(peer)), 0);
	gl = sizeof(got);
	UT_EQ(ust_getpeername(stk, sd, (struct sockaddr *)&got, &gl), 0);
	UT_EQ(memcmp(got.sin6_addr.s6_addr, PEER6, 16), 0);
	UT_EQ(rte_be_to_cpu_16(got.sin6_port), 12);
	/* from the peer: taken; from another port: refused */
	ut_inject(stk, udp6_frame(PEER6, OUR6, 12, 11, "ok", 2, 0), 3 * MS);
	ut_inject(stk, udp6_frame(PEER6, OUR6, 13, 11, "no", 2, 0), 3 * MS);
	UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), 2);
	UT_EQ(memcmp(buf, "ok", 2), 0);
	UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), -EAGAIN);
	UT_EQ(ut_mib(stk, UST_MIB_UDP6_NOPORTS), 1);
	UT_ASSERT(pop6(&ip6, &ic, NULL));
	UT_EQ(ic.type, UST_ICMP6_DEST_UNREACH);
	UT_EQ(ic.code, UST_ICMP6_CODE_PORT_UNREACH);
	UT_EQ(memcmp(ip6.dst, PEER6, 16), 0);
	/* a wrong checksum, none, a length past the packet, a short header */
	ut_inject(stk, udp6_frame(PEER6, OUR6, 12, 11, "ok", 2, 1), 4 * MS);
	ut_inject(stk, udp6_frame(PEER6, OUR6, 12, 11, "ok", 2, 2), 4 * MS);
	ut_inject(stk, frame6(NULL, PEER6, OUR6, IPPROTO_UDP, 64, h, 8),
		  4 * MS);
	ut_inject(stk, frame6(NULL, PEER6, OUR6, IPPROTO_UDP, 64, h, 5),
		  4 * MS);
	UT_EQ(ut_mib(stk, UST_MIB_UDP6_INCSUMERRORS), 2);
	UT_EQ(ut_mib(stk, UST_MIB_UDP6_INERRORS), 4);
	UT_EQ(ut_drops(stk, UST_DROP_UDP_CSUM), 2);
	UT_EQ(ut_drops(stk, UST_DROP_UDP_BADLEN), 2);
	UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), -EAGAIN);
	/* ICMPv6 errors about what we sent to the peer: a soft one (time
	 * exceeded) unheard, a hard one (port unreachable) reported once */
	{
		uint8_t q[48];
		struct ust_ipv6_repr qi;
		struct ust_udp_repr qu = { .src_port = 11, .dst_port = 12,
					   .len = 8 };
		struct ust_icmp6_repr er;

		memset(&qi, 0, sizeof(qi));
		memcpy(qi.src, OUR6, 16);
		memcpy(qi.dst, PEER6, 16);
		qi.payload_len = 8;
		qi.next_header = IPPROTO_UDP;
		qi.hop_limit = 64;
		ust_ipv6_emit(q, 40, &qi);
		ust_udp6_emit(q + 40, 8, &qu, OUR6, PEER6, NULL,
			      UST_WIRE_F_CSUM_OFFLOAD);
		memset(&er, 0, sizeof(er));
		er.type = UST_ICMP6_TIME_EXCEEDED;
		er.data = q;
		er.data_len = sizeof(q);
		ut_inject(stk, icmp6_frame(NULL, PEER6, OUR6, 64, &er), 4 * MS);
		UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), -EAGAIN);
		er.type = UST_ICMP6_DEST_UNREACH;
		er.code = UST_ICMP6_CODE_PORT_UNREACH;
		ut_inject(stk, icmp6_frame(NULL, PEER6, OUR6, 64, &er), 4 * MS);
		UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), -ECONNREFUSED);
		UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), -EAGAIN);
		/* about another peer port: not ours to hear */
		q[40 + 3] = 13;
		ut_inject(stk, icmp6_frame(NULL, PEER6, OUR6, 64, &er), 4 * MS);
		UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), -EAGAIN);
	}
	/* unconnected again: any source */
	peer.sin6_family = AF_UNSPEC;
	UT_EQ(ust_connect(stk, sd, (struct sockaddr *)&peer, sizeof(peer)), 0);
	ut_inject(stk, udp6_frame(PEER6, OUR6, 13, 11, "any", 3, 0), 5 * MS);
	UT_EQ(ust_recv(stk, sd, buf, sizeof(buf), 0), 3);
	UT_EQ(ust_close(stk, sd), 0);
	return ut_teardown(stk, &nif, pool);
}

/* ---- TCP over IPv6 ---- */

/* A TCP segment from @src to @dst with a right checksum. */
static struct rte_mbuf *
tcp6_frame(const uint8_t *src, const uint8_t *dst, uint16_t sport,
	   uint16_t dport, uint8_t flags, uint32_t seq, uint32_t ack,
	   uint16_t mss, const void *pl, uint16_t len)
{
	uint8_t buf[2048];
	struct ust_tcp_repr th;
	size_t h;

	memset(&th, 0, sizeof(th));
	th.src_port = sport;
	th.dst_port = dport;
	th.seq = seq;
	th.ack = ack;
	th.flags = flags;
	th.window = 65535;
	if (mss != 0) {
		th.opts.has = UST_TCPOPT_MSS;
		th.opts.mss = mss;
	}
	h = UST_TCP_HDR_LEN + ust_tcp_opts_len(&th.opts,
					       (flags & UST_TCP_SYN) != 0);
	if (len > 0)
		memcpy(buf + h, pl, len);
	if (ust_tcp6_emit(buf, sizeof(buf), &th, src, dst, buf + h, len,
			  0) != h)
		abort();
	return frame6(NULL, src, dst, IPPROTO_TCP, 64, buf,
		      (uint16_t)(h + len));
}

/* The oldest TX frame if it is TCP over IPv6 (others before it freed),
 * its checksum verified: the header into @th, the payload into @pl (its
 * length returned), the IPv6 packet into @raw when not NULL; -1 if
 * none. */
static int
pop_tcp6(struct ust_ipv6_repr *ip6, struct ust_tcp_repr *th, uint8_t *pl,
	 uint8_t *raw)
{
	struct rte_mbuf *m;

	while ((m = ut_tx_pop(&nif)) != NULL) {
		static uint8_t buf[2048];
		const uint8_t *p;
		struct ust_eth_repr e;
		int n;

		p = rte_pktmbuf_read(m, 0, RTE_MIN(m->pkt_len,
						   (uint32_t)sizeof(buf)), buf);
		if (ust_eth_parse(p, m->pkt_len, &e) != UST_WIRE_OK ||
		    e.ethertype != RTE_ETHER_TYPE_IPV6 ||
		    ust_ipv6_parse(p + 14, m->pkt_len - 14, m->pkt_len - 14,
				   ip6) != UST_WIRE_OK ||
		    ip6->next_header != IPPROTO_TCP) {
			rte_pktmbuf_free(m);
			continue;
		}
		if (ust_tcp6_parse(p + 54, ip6->payload_len, ip6->src,
				   ip6->dst, 0, th) != UST_WIRE_OK) {
			rte_pktmbuf_free(m);
			return -1;
		}
		n = ip6->payload_len - th->hdr_len;
		memcpy(pl, p + 54 + th->hdr_len, (size_t)n);
		if (raw != NULL)
			memcpy(raw, p + 14, 40u + ip6->payload_len);
		rte_pktmbuf_free(m);
		return n;
	}
	return -1;
}

/* A dual-stack listener on [::]:80 takes a connection over IPv6: the
 * SYN-ACK announces IPv6's MSS (1500 - 60) with a right checksum, the
 * handshake's ACK carries data, accept() reports the IPv6 peer, data goes
 * back; ICMPv6 packet too big about our data lowers the path MTU; a SYN
 * to a closed port gets an RST over IPv6; an AF_INET listener takes no
 * IPv6 SYN; connect() over IPv6 sends a SYN from our address. */
static int
test_tcp6(void)
{
	struct ust_stack *stk = ready_stack();
	struct sockaddr_in6 any = sin6_of(NULL, 80), name, peer = sin6_of(PEER6, 9000);
	struct sockaddr_in sin = { .sin_family = AF_INET };
	uint8_t pl[2048], raw[2048];
	struct ust_ipv6_repr ip6;
	struct ust_tcp_repr th;
	struct ust_icmp6_repr ic;
	uint32_t iss;
	socklen_t fl;
	int ls, sd, ls4, cs;

	UT_ASSERT(stk != NULL);
	ut_inject(stk, nd_msg(UST_ICMP6_ND_NS, PEER6, OUR6, OUR6, 0, true),
		  MS);
	ut_tx_drain(&nif);
	ls = ust_socket(stk, AF_INET6, SOCK_STREAM, 0);
	UT_ASSERT(ls >= 0);
	UT_EQ(ust_bind(stk, ls, (struct sockaddr *)&any, sizeof(any)), 0);
	UT_EQ(ust_listen(stk, ls, 8), 0);
	/* the handshake */
	ut_inject(stk, tcp6_frame(PEER6, OUR6, 40000, 80, UST_TCP_SYN, 1000, 0,
				  1460, NULL, 0), 2 * MS);
	UT_EQ(pop_tcp6(&ip6, &th, pl, NULL), 0);
	UT_EQ(memcmp(ip6.src, OUR6, 16), 0);
	UT_EQ(memcmp(ip6.dst, PEER6, 16), 0);
	UT_EQ(th.flags, UST_TCP_SYN | UST_TCP_ACK);
	UT_EQ(th.src_port, 80);
	UT_EQ(th.dst_port, 40000);
	UT_EQ(th.ack, 1001);
	UT_ASSERT(th.opts.has & UST_TCPOPT_MSS);
	UT_EQ(th.opts.mss, 1440);
	iss = th.seq;
	ut_inject(stk, tcp6_frame(PEER6, OUR6, 40000, 80,
				  UST_TCP_ACK | UST_TCP_PSH, 1001, iss + 1, 0,
				  "hello", 5), 3 * MS);
	fl = sizeof(name);
	sd = ust_accept(stk, ls, (struct sockaddr *)&name, &fl);
	UT_ASSERT(sd >= 0);
	UT_EQ(fl, sizeof(name));
	UT_EQ(name.sin6_family, AF_INET6);
	UT_EQ(memcmp(name.sin6_addr.s6_addr, PEER6, 16), 0);
	UT_EQ(rte_be_to_cpu_16(name.sin6_port), 40000);
	fl = sizeof(name);
	UT_EQ(ust_getsockname(stk, sd, (struct sockaddr *)&name, &fl), 0);
	UT_EQ(memcmp(name.sin6_addr.s6_addr, OUR6, 16), 0);
	UT_EQ(rte_be_to_cpu_16(name.sin6_port), 80);
	UT_EQ(ust_recv(stk, sd, pl, sizeof(pl), 0), 5);
	UT_EQ(memcmp(pl, "hello", 5), 0);
	ut_tx_drain(&nif);
	UT_EQ(ust_send(stk, sd, "world", 5, 0), 5);
	ust_stack_flush(stk);
	UT_EQ(pop_tcp6(&ip6, &th, pl, raw), 5);
	UT_EQ(memcmp(pl, "world", 5), 0);
	UT_EQ(th.seq, iss + 1);
	UT_EQ(th.ack, 1006);
	/* packet too big, quoting that segment: the path MTU goes down */
	memset(&ic, 0, sizeof(ic));
	ic.type = UST_ICMP6_PKT_TOO_BIG;
	ic.param = 1280;
	ic.data = raw;
	ic.data_len = 40 + 20 + 5;
	ut_inject(stk, icmp6_frame(NULL, FAR6, OUR6, 64, &ic), 4 * MS);
	UT_EQ(ut_mib(stk, UST_MIB_TCPEXT_TCPICMPPMTUREDUCED), 1);
	{
		int mtu = 0;
		socklen_t ml = sizeof(mtu);

		UT_EQ(ust_getsockopt(stk, sd, IPPROTO_IP, IP_MTU, &mtu, &ml),
		      0);
		UT_EQ(mtu, 1280);
	}
	/* a closed port: RST */
	ut_tx_drain(&nif);
	ut_inject(stk, tcp6_frame(PEER6, OUR6, 40001, 81, UST_TCP_SYN, 5, 0,
				  1460, NULL, 0), 5 * MS);
	UT_EQ(pop_tcp6(&ip6, &th, pl, NULL), 0);
	UT_EQ(th.flags, UST_TCP_RST | UST_TCP_ACK);
	UT_EQ(th.ack, 6);
	UT_EQ(memcmp(ip6.dst, PEER6, 16), 0);
	/* an AF_INET listener takes no IPv6 SYN: RST too */
	ls4 = ust_socket(stk, AF_INET, SOCK_STREAM, 0);
	UT_ASSERT(ls4 >= 0);
	sin.sin_port = rte_cpu_to_be_16(82);
	UT_EQ(ust_bind(stk, ls4, (struct sockaddr *)&sin, sizeof(sin)), 0);
	UT_EQ(ust_listen(stk, ls4, 8), 0);
	ut_inject(stk, tcp6_frame(PEER6, OUR6, 40002, 82, UST_TCP_SYN, 5, 0,
				  1460, NULL, 0), 6 * MS);
	UT_EQ(pop_tcp6(&ip6, &th, pl, NULL), 0);
	UT_EQ(th.flags, UST_TCP_RST | UST_TCP_ACK);
	/* an active open over IPv6 */
	cs = ust_socket(stk, AF_INET6, SOCK_STREAM, 0);
	UT_ASSERT(cs >= 0);
	UT_EQ(ust_connect(stk, cs, (struct sockaddr *)&peer, sizeof(peer)),
	      -EINPROGRESS);
	ust_stack_flush(stk);
	UT_EQ(pop_tcp6(&ip6, &th, pl, NULL), 0);
	UT_EQ(th.flags, UST_TCP_SYN);
	UT_EQ(th.dst_port, 9000);
	UT_EQ(th.opts.mss, 1440);
	UT_EQ(memcmp(ip6.src, OUR6, 16), 0);
	ut_inject(stk, tcp6_frame(PEER6, OUR6, 9000, th.src_port,
				  UST_TCP_SYN | UST_TCP_ACK, 7000, th.seq + 1,
				  1400, NULL, 0), 7 * MS);
	UT_EQ(pop_tcp6(&ip6, &th, pl, NULL), 0);
	UT_EQ(th.flags, UST_TCP_ACK);
	UT_EQ(th.ack, 7001);
	fl = sizeof(name);
	UT_EQ(ust_getpeername(stk, cs, (struct sockaddr *)&name, &fl), 0);
	UT_EQ(memcmp(name.sin6_addr.s6_addr, PEER6, 16), 0);
	UT_EQ(ut_mib(stk, UST_MIB_TCP_CURRESTAB), 2);
	UT_EQ(ust_close(stk, cs), 0);
	UT_EQ(ust_close(stk, sd), 0);
	UT_EQ(ust_close(stk, ls), 0);
	UT_EQ(ust_close(stk, ls4), 0);
	ust_stack_flush(stk);
	ut_tx_drain(&nif);
	return ut_teardown(stk, &nif, pool);
}

int
main(int argc, char **argv)
{
	static const struct ut_case cases[] = {
		{ "duplicate address detection", test_dad },
		{ "DAD failed by an NA", test_dad_na },
		{ "neighbour cache states", test_nd_states },
		{ "malformed ND", test_nd_malformed },
		{ "extension headers and addresses", test_ext_headers },
		{ "router advertisement", test_ra },
		{ "fragments", test_fragments },
		{ "MLDv2 reports", test_mld },
		{ "NS flood", test_nd_flood },
		{ "IPv6 off", test_ip6_off },
		{ "UDP over IPv6, dual-stack", test_udp6_dual },
		{ "UDP IPV6_V6ONLY and families", test_udp6_v6only },
		{ "UDP over IPv6: filters and errors", test_udp6_errors },
		{ "TCP over IPv6", test_tcp6 },
	};

	(void)argc;
	if (ut_eal_init(argv[0], "0") != 0)
		return 1;
	pool = ut_pool("ut_ipv6", 8191);
	if (pool == NULL)
		return 1;
	ut_netif_init(&nif, 0);
	return UT_RUN(cases);
}
