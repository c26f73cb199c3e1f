/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Multicast Listener Discovery, version 2 (RFC 3810), the host's part: a
 * stack with IPv6 reports the groups it listens to (the solicited-node
 * group of each address; all-nodes is never reported, RFC 3810 6), so
 * that switches that snoop MLD forward Neighbour Discovery's multicast
 * to it, as RFC 4861 7.2.1 and RFC 4862 5.4.2 ask before DAD.
 *
 * How it is called: ust_ip6_timers() (nd.c) calls ust_mld_timers(), which
 * sends the unsolicited reports (2, the Robustness Variable, 1 s apart:
 * the Unsolicited Report Interval) from the start, and the answer to a
 * query when its random delay is up; ICMPv6 input (icmp6.c) hands queries
 * to ust_mld_input(). Reports are MLDv2's: a state-change report
 * (CHANGE_TO_EXCLUDE, no sources: a join) unsolicited, a current-state one
 * (MODE_IS_EXCLUDE) in answer, every group in one message, from the
 * link-local address (:: while it is tentative, RFC 3590 4), to
 * ff02::16, hop limit 1, with a Router Alert option (RFC 2711).
 * Queries are taken from a link-local source with hop limit 1 (RFC 3810
 * 5.1.14); an MLDv1 query (24 bytes) is answered with an MLDv2 report too
 * (no MLDv1 compatibility mode: RFC 3810 8's interoperation is not
 * implemented, an MLDv1-only querier will not see ustack's groups).
 */

#include <string.h>

#include <rte_random.h>

#include "ip_private.h"
#include "ust_wire.h"

#define MLD_REPORTS 2                       /* Robustness Variable */
#define MLD_INTERVAL_NS (1000ull * 1000 * 1000)
#define MLD_TYPE_QUERY 130
#define MLD_TYPE_V2_REPORT 143
#define MLD_MODE_IS_EXCLUDE 2
#define MLD_CHANGE_TO_EXCLUDE 4
/* a record: type, aux length, sources (0), the group */
#define MLD_RECORD_LEN 20

static const uint8_t mld_routers[UST_IPV6_ADDR_LEN] = {
	0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x16 };

/* Our groups' addresses (the distinct solicited-node groups of our
 * addresses, a duplicate's left out) into @g; their count. */
static unsigned int
mld_groups(const struct ust_stack *stk, uint8_t g[][UST_IPV6_ADDR_LEN])
{
	const struct ust_ip6 *i6 = stk->ip6;
	unsigned int n = 0, k, j;

	for (k = 0; k < UST_IP6_NADDR; k++) {
		uint8_t sn[UST_IPV6_ADDR_LEN];

		if (i6->addr[k].state == 0 ||
		    i6->addr[k].state == UST_IP6_DUPLICATE)
			continue;
		ust_ipv6_solicited_node(i6->addr[k].a, sn);
		for (j = 0; j < n; j++)
			if (memcmp(g[j], sn, UST_IPV6_ADDR_LEN) == 0)
				break;
		if (j == n)
			memcpy(g[n++], sn, UST_IPV6_ADDR_LEN);
	}
	return n;
}

static void
mld_send_report(struct ust_stack *stk, uint8_t record_type)
{
	static const uint8_t unspec[UST_IPV6_ADDR_LEN];
	const struct ust_ip6_addr *ll = &stk->ip6->addr[UST_IP6_LL];
	uint8_t groups[UST_IP6_NADDR][UST_IPV6_ADDR_LEN];
	uint8_t rec[UST_IP6_NADDR * MLD_RECORD_LEN];
	struct ust_icmp6_repr ic;
	struct ust_ipv6_repr ip6;
	struct ust_eth_repr eth;
	unsigned int n = mld_groups(stk, groups), k;
	const uint8_t *src;
	struct rte_mbuf *m;
	uint8_t *p;
	size_t l4;

	if (n == 0)
		return;
	src = ll->state == UST_IP6_PREFERRED ? ll->a : unspec;
	memset(rec, 0, sizeof(rec));
	for (k = 0; k < n; k++) {
		rec[k * MLD_RECORD_LEN] = record_type;
		memcpy(rec + k * MLD_RECORD_LEN + 4, groups[k],
		       UST_IPV6_ADDR_LEN);
	}
	m = ust_reply_alloc(stk);
	if (m == NULL)
		return; /* the next report, or the next query's answer */
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(UST_ETH_HDR_LEN +
		UST_IPV6_HDR_LEN + 8 + UST_ICMP6_HDR_LEN + n * MLD_RECORD_LEN));
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	memset(&ic, 0, sizeof(ic));
	ic.type = MLD_TYPE_V2_REPORT;
	ic.param = n;  /* reserved (16 bits), records (16 bits) */
	ic.data = rec;
	ic.data_len = n * MLD_RECORD_LEN;
	l4 = ust_icmp6_emit(p + UST_ETH_HDR_LEN + UST_IPV6_HDR_LEN + 8,
			    UST_ICMP6_HDR_LEN + n * MLD_RECORD_LEN, src,
			    mld_routers, &ic);
	/* hop-by-hop: Router Alert (MLD, value 0), then 2 bytes of PadN */
	p[UST_ETH_HDR_LEN + UST_IPV6_HDR_LEN + 0] = UST_IPV6_NH_ICMPV6;
	p[UST_ETH_HDR_LEN + UST_IPV6_HDR_LEN + 1] = 0;
	memcpy(p + UST_ETH_HDR_LEN + UST_IPV6_HDR_LEN + 2,
	       (const uint8_t[6]){ 5, 2, 0, 0, 1, 0 }, 6);
	memset(&ip6, 0, sizeof(ip6));
	memcpy(ip6.src, src, UST_IPV6_ADDR_LEN);
	memcpy(ip6.dst, mld_routers, UST_IPV6_ADDR_LEN);
	ip6.payload_len = (uint16_t)(8 + l4);
	ip6.next_header = UST_IPV6_NH_HOPOPTS;
	ip6.hop_limit = 1;
	ust_ipv6_emit(p + UST_ETH_HDR_LEN, UST_IPV6_HDR_LEN, &ip6);
	ust_ipv6_mcast_mac(mld_routers, &eth.dst);
	eth.src = stk->netif.mac;
	eth.ethertype = RTE_ETHER_TYPE_IPV6;
	ust_eth_emit(p, UST_ETH_HDR_LEN, &eth);
	ust_meta_no_owner(stk->meta_off, m);
	stk->mib[UST_MIB_ICMP6_OUTMSGS]++;
	stk->mib[UST_MIB_ICMP6_OUTMLDV2REPORTS]++;
	stk->mib[UST_MIB_IP6_OUTREQUESTS]++;
	stk->mib[UST_MIB_IP6_OUTMCASTPKTS]++;
	stk->mib[UST_MIB_IP6_OUTOCTETS] += UST_IPV6_HDR_LEN + 8 + l4;
	ust_tx_stage(stk, m);
}

void
ust_mld_timers(struct ust_stack *stk)
{
	struct ust_ip6 *i6 = stk->ip6;

	if (i6->mld_left > 0 && stk->now >= i6->mld_next) {
		i6->mld_left--;
		i6->mld_next = stk->now + MLD_INTERVAL_NS;
		mld_send_report(stk, MLD_CHANGE_TO_EXCLUDE);
	}
	if (stk->now >= i6->mld_answer) {
		i6->mld_answer = UINT64_MAX;
		mld_send_report(stk, MLD_MODE_IS_EXCLUDE);
	}
}

uint64_t
ust_mld_next_deadline(const struct ust_stack *stk)
{
	const struct ust_ip6 *i6 = stk->ip6;

	return RTE_MIN(i6->mld_left > 0 ? i6->mld_next : UINT64_MAX,
		       i6->mld_answer);
}

void
ust_mld_input(struct ust_stack *stk, struct rte_mbuf *m,
	      const struct ust_ipv6_repr *ip6, uint32_t len)
{
	struct ust_ip6 *i6 = stk->ip6;
	const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
	uint8_t groups[UST_IP6_NADDR][UST_IPV6_ADDR_LEN];
	uint64_t delay_ms, when;
	uint32_t code;
	unsigned int n, k;

	stk->mib[UST_MIB_ICMP6_INGROUPMEMBQUERIES]++;
	/* RFC 3810 5.1.14: from a link-local source, hop limit 1; a query
	 * is 24 bytes (MLDv1) or 28 and more (MLDv2) */
	if (len < 24 || m->data_len < 24 || ip6->hop_limit != 1 ||
	    !(ip6->src[0] == 0xfe && (ip6->src[1] & 0xc0) == 0x80))
		return;
	/* a group-specific query for a group not ours asks nothing of us */
	n = mld_groups(stk, groups);
	for (k = 0; k < UST_IPV6_ADDR_LEN && p[8 + k] == 0; k++)
		;
	if (k < UST_IPV6_ADDR_LEN) {
		for (k = 0; k < n; k++)
			if (memcmp(groups[k], p + 8, UST_IPV6_ADDR_LEN) == 0)
				break;
		if (k == n)
			return;
	}
	/* Maximum Response Code (RFC 3810 5.1.3): ms, or a float above
	 * 32767 */
	code = (uint32_t)p[4] << 8 | p[5];
	delay_ms = code < 32768 ? code :
		(uint64_t)((code & 0x0fff) | 0x1000) << (((code >> 12) & 7) +
							 3);
	/* the answer after a random delay within it (RFC 3810 6.2); an
	 * earlier one already due stays */
	when = stk->now + (delay_ms == 0 ? 0 :
			   rte_rand_max(delay_ms) * 1000000ull);
	if (when < i6->mld_answer)
		i6->mld_answer = when;
}
