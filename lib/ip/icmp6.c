/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * ICMPv6 of a stack instance (RFC 4443).
 *
 * ust_icmp6_input(): the checksum over the pseudo-header and the whole
 * message (chained ones too), then echo requests answered in place (the
 * request's mbuf becomes the reply, from the address it was sent to, or
 * for a multicast request from our source for the asker, as Linux with
 * echo_ignore_multicast 0), errors counted by type (no upper protocol
 * takes IPv6 errors yet), Neighbour Discovery handed to nd.c, MLD
 * queries to mld.c.
 *
 * ust_icmp6_send_error(): destination unreachable, time exceeded and
 * parameter problem, after RFC 4443 2.4: never about an ICMPv6 error or a
 * redirect, a packet from :: or a multicast source, or (but parameter
 * problem code 2 and packet too big) a packet to a multicast address; as
 * much of the packet as fits in the minimum MTU (1280); rate limited with
 * a token bucket of [icmp] msgs_per_sec and burst (Linux's icmpv6
 * ratelimit is its own sysctl; ustack's IPv6 bucket is separate from
 * IPv4's, with the same settings).
 */

#include <string.h>

#include <rte_ip.h>

#include "ip_private.h"
#include "ust_wire.h"

/* RFC 4443 2.4 (c): the error fits the minimum IPv6 MTU */
#define ICMP6_QUOTE_MAX (1280 - UST_IPV6_HDR_LEN - UST_ICMP6_HDR_LEN)
/* the bytes parsed contiguously: an error's fixed part and quoted
 * header, or an ND message whole (RFC 4861 messages with options fit
 * the link's MTU; a larger one is pulled whole or dropped) */
#define ICMP6_PARSE_MIN (UST_ICMP6_HDR_LEN + UST_IPV6_HDR_LEN + 8)

static bool
icmp6_csum_ok(const struct rte_mbuf *m, const struct ust_ipv6_repr *ip6,
	      uint32_t len)
{
	uint32_t sum = ust_ipv6_phdr_sum(ip6->src, ip6->dst,
					 UST_IPV6_NH_ICMPV6, len);
	uint16_t s;

	if (ust_mbuf_raw_cksum(m, 0, len, &s) != 0)
		return false;
	sum += s;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

/* The request becomes the reply: type 129, the checksum again over the
 * new pseudo-header (the source may change for a multicast request). */
static void
icmp6_echo_reply(struct ust_stack *stk, struct rte_mbuf *m,
		 const struct ust_ipv6_repr *ip6, uint32_t len)
{
	const uint8_t *src;
	uint8_t *p = rte_pktmbuf_mtod(m, uint8_t *);
	uint32_t sum;
	uint16_t s, ck;

	src = ust_ipv6_is_multicast(ip6->dst) ?
		ust_ip6_select_src(stk, ip6->src) : ip6->dst;
	if (src == NULL) {
		rte_pktmbuf_free(m);
		return;
	}
	p[0] = UST_ICMP6_ECHO_REPLY;
	p[2] = 0;
	p[3] = 0;
	sum = ust_ipv6_phdr_sum(src, ip6->src, UST_IPV6_NH_ICMPV6, len);
	if (ust_mbuf_raw_cksum(m, 0, len, &s) != 0) {
		rte_pktmbuf_free(m);
		return;
	}
	sum += s;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	ck = (uint16_t)~sum;
	memcpy(p + 2, &ck, sizeof(ck));
	ust_meta_no_owner(stk->meta_off, m);
	stk->mib[UST_MIB_ICMP6_OUTMSGS]++;
	stk->mib[UST_MIB_ICMP6_OUTECHOREPLIES]++;
	ust_ipv6_output(stk, m, src, ip6->src, UST_IPV6_NH_ICMPV6, 0, 0);
}

static void icmp6_error_up(struct ust_stack *stk,
			   const struct ust_icmp6_repr *ic);

void
ust_icmp6_input(struct ust_stack *stk, struct rte_mbuf *m,
		const struct ust_ipv6_repr *ip6, uint32_t len)
{
	struct ust_icmp6_repr ic;
	uint32_t plen;
	uint8_t type;
	int rc;

	stk->mib[UST_MIB_ICMP6_INMSGS]++;
	if (len < UST_ICMP6_HDR_LEN) {
		stk->mib[UST_MIB_ICMP6_INERRORS]++;
		ust_drop(stk, m, UST_DROP_ICMP_MALFORMED);
		return;
	}
	if (!icmp6_csum_ok(m, ip6, len)) {
		stk->mib[UST_MIB_ICMP6_INCSUMERRORS]++;
		stk->mib[UST_MIB_ICMP6_INERRORS]++;
		ust_drop(stk, m, UST_DROP_ICMP_CSUM);
		return;
	}
	type = *rte_pktmbuf_mtod(m, const uint8_t *);
	/* ND messages are parsed whole (their options), the rest in their
	 * first bytes (an echo's data is never read) */
	plen = type >= UST_ICMP6_ND_RS && type <= UST_ICMP6_ND_REDIRECT ?
		len : RTE_MIN(len, (uint32_t)ICMP6_PARSE_MIN);
	if (plen > m->data_len && !ust_mbuf_pull(m, plen)) {
		stk->mib[UST_MIB_ICMP6_INERRORS]++;
		ust_drop(stk, m, UST_DROP_PKT_HDR_SPLIT);
		return;
	}
	rc = ust_icmp6_parse(rte_pktmbuf_mtod(m, void *), plen, ip6->src,
			     ip6->dst, UST_WIRE_F_NO_CSUM, &ic);
	if (rc != UST_WIRE_OK) {
		stk->mib[UST_MIB_ICMP6_INERRORS]++;
		if (type >= UST_ICMP6_ND_RS && type <= UST_ICMP6_ND_REDIRECT)
			ust_drop(stk, m, rc == UST_WIRE_ETRUNC ?
				 UST_DROP_PKT_TOO_SMALL :
				 UST_DROP_IPV6_NDISC_BAD_OPTIONS);
		else
			ust_drop(stk, m, UST_DROP_ICMP_MALFORMED);
		return;
	}
	switch (ic.type) {
	case UST_ICMP6_ECHO_REQUEST:
		stk->mib[UST_MIB_ICMP6_INECHOS]++;
		ust_consumed(stk);
		icmp6_echo_reply(stk, m, ip6, len);
		return;
	case UST_ICMP6_ECHO_REPLY:
		stk->mib[UST_MIB_ICMP6_INECHOREPLIES]++;
		break;
	case UST_ICMP6_DEST_UNREACH:
		stk->mib[UST_MIB_ICMP6_INDESTUNREACHS]++;
		icmp6_error_up(stk, &ic);
		break;
	case UST_ICMP6_PKT_TOO_BIG:
		stk->mib[UST_MIB_ICMP6_INPKTTOOBIGS]++;
		icmp6_error_up(stk, &ic);
		break;
	case UST_ICMP6_TIME_EXCEEDED:
		stk->mib[UST_MIB_ICMP6_INTIMEEXCDS]++;
		icmp6_error_up(stk, &ic);
		break;
	case UST_ICMP6_PARAM_PROBLEM:
		stk->mib[UST_MIB_ICMP6_INPARMPROBLEMS]++;
		icmp6_error_up(stk, &ic);
		break;
	case UST_ICMP6_ND_RS:
	case UST_ICMP6_ND_RA:
	case UST_ICMP6_ND_NS:
	case UST_ICMP6_ND_NA:
	case UST_ICMP6_ND_REDIRECT:
		ust_nd_input(stk, m, ip6, &ic,
			     UST_IPV6_HDR_LEN + ip6->payload_len - len);
		return;
	case 130: /* MLD query */
		ust_mld_input(stk, m, ip6, len);
		break;
	case 131: /* MLDv1 report, done */
	case 132:
	case 143: /* MLDv2 report: a host has nothing to do with them */
		stk->mib[UST_MIB_ICMP6_INMLDV2REPORTS] += ic.type == 143;
		break;
	default:
		/* RFC 4443 2.4 (b): unknown informational messages are
		 * discarded, unknown errors go up (to nobody yet) */
		break;
	}
	ust_consumed(stk);
	rte_pktmbuf_free(m);
}

/* An error about a packet we sent goes to the protocol that sent it (its
 * fixed header's next header: one with extension headers is not
 * followed), with the invoking packet's first 48 bytes whole. */
static void
icmp6_error_up(struct ust_stack *stk, const struct ust_icmp6_repr *ic)
{
	const struct ust_ipv6_proto *p;

	if (!ic->embedded_ok || ic->data_len < UST_IPV6_HDR_LEN + 8)
		return;
	p = stk->ip6->protos[ic->embedded.next_header];
	if (p != NULL && p->err_handler != NULL)
		p->err_handler(stk, ic);
}

/* Whether @orig (at its IPv6 header) carries an ICMPv6 error or a
 * redirect, which no error may answer (RFC 4443 2.4 e.1): looked for
 * right after the fixed header only, where ustack's own and nearly all
 * ICMPv6 sits (a packet with extension headers before it is answered). */
static bool
icmp6_is_error(const struct rte_mbuf *orig, const struct ust_ipv6_repr *ip6)
{
	uint8_t t;
	const uint8_t *tp;

	if (ip6->next_header != UST_IPV6_NH_ICMPV6)
		return false;
	tp = rte_pktmbuf_read(orig, UST_IPV6_HDR_LEN, 1, &t);
	return tp == NULL || *tp < 128 || *tp == UST_ICMP6_ND_REDIRECT;
}

void
ust_icmp6_send_error(struct ust_stack *stk, struct rte_mbuf *orig,
		     const struct ust_ipv6_repr *ip6, uint8_t type,
		     uint8_t code, uint32_t param)
{
	static const uint8_t unspec[UST_IPV6_ADDR_LEN];
	struct ust_icmp6_repr ic;
	const uint8_t *src;
	struct rte_mbuf *m;
	const void *q;
	uint8_t *p;
	uint32_t quote;

	if (ust_ipv6_is_multicast(ip6->src) ||
	    memcmp(ip6->src, unspec, UST_IPV6_ADDR_LEN) == 0)
		return;
	if (ust_ipv6_is_multicast(ip6->dst) && type != UST_ICMP6_PKT_TOO_BIG &&
	    !(type == UST_ICMP6_PARAM_PROBLEM &&
	      code == UST_ICMP6_PARAM_OPTION))
		return;
	if (icmp6_is_error(orig, ip6))
		return;
	if (!ust_icmp_bucket_take(stk, &stk->ip6->icmp_tokens_ns,
				  &stk->ip6->icmp_last)) {
		stk->mib[UST_MIB_ICMP6_OUTRATELIMITHOST]++;
		return;
	}
	src = ust_ipv6_is_multicast(ip6->dst) ||
		ust_ip6_our_addr(stk, ip6->dst, true) < 0 ?
		ust_ip6_select_src(stk, ip6->src) : ip6->dst;
	if (src == NULL)
		return;
	m = ust_reply_alloc(stk);
	if (m == NULL) {
		stk->mib[UST_MIB_ICMP6_OUTERRORS]++;
		return;
	}
	quote = RTE_MIN(orig->pkt_len, (uint32_t)ICMP6_QUOTE_MAX);
	p = (uint8_t *)rte_pktmbuf_append(m, UST_ICMP6_HDR_LEN + quote);
	q = p == NULL ? NULL :
		rte_pktmbuf_read(orig, 0, quote, p + UST_ICMP6_HDR_LEN);
	if (q == NULL) {
		rte_pktmbuf_free(m);
		stk->mib[UST_MIB_ICMP6_OUTERRORS]++;
		return;
	}
	if (q != p + UST_ICMP6_HDR_LEN)
		memcpy(p + UST_ICMP6_HDR_LEN, q, quote);
	memset(&ic, 0, sizeof(ic));
	ic.type = type;
	ic.code = code;
	ic.param = param;
	ic.data = p + UST_ICMP6_HDR_LEN;
	ic.data_len = quote;
	ust_icmp6_emit(p, UST_ICMP6_HDR_LEN + quote, src, ip6->src, &ic);
	ust_meta_no_owner(stk->meta_off, m);
	stk->mib[UST_MIB_ICMP6_OUTMSGS]++;
	switch (type) {
	case UST_ICMP6_DEST_UNREACH:
		stk->mib[UST_MIB_ICMP6_OUTDESTUNREACHS]++;
		break;
	case UST_ICMP6_TIME_EXCEEDED:
		stk->mib[UST_MIB_ICMP6_OUTTIMEEXCDS]++;
		break;
	case UST_ICMP6_PARAM_PROBLEM:
		stk->mib[UST_MIB_ICMP6_OUTPARMPROBLEMS]++;
		break;
	default:
		break;
	}
	ust_ipv6_output(stk, m, src, ip6->src, UST_IPV6_NH_ICMPV6, 0, 0);
}
