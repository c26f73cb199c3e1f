/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * ICMPv4 of a stack instance.
 *
 * ust_icmp_input(): echo requests are answered in place (the request's mbuf
 * becomes the reply: no allocation, no copy; broadcast echoes are ignored as
 * Linux's icmp_echo_ignore_broadcasts does); errors about datagrams we sent
 * (destination unreachable, time exceeded, parameter problem) are handed
 * to the error handler of the protocol they quote (UDP, TCP); the rest is
 * counted and consumed.
 *
 * ust_icmp_send_error(): destination unreachable (port, protocol), with the
 * RFC 1122 3.2.2 rules (never about an ICMP error, a broadcast or multicast,
 * or a non-first fragment) and a token bucket of icmp.msgs_per_sec with
 * depth icmp.burst, as Linux's net.ipv4.icmp_msgs_per_sec/_burst.
 */

#include <string.h>

#include <rte_icmp.h>
#include <rte_ip.h>

#include "ip_private.h"
#include "ust_wire.h"

/* RFC 1812 4.3.2.3: an error quotes as much as fits in 576 bytes */
#define ICMP_QUOTE_MAX (576 - UST_IPV4_HDR_LEN - UST_ICMP_HDR_LEN)

static int
icmp_checksum_ok(struct rte_mbuf *m, uint32_t off, uint32_t len)
{
	uint16_t sum;

	if (off + len <= m->data_len)
		return rte_raw_cksum(rte_pktmbuf_mtod_offset(m, void *, off),
				     len) == 0xffff;
	if (ust_mbuf_raw_cksum(m, off, len, &sum) != 0)
		return 0;
	return sum == 0xffff;
}

static void
icmp_echo_reply(struct ust_stack *stk, struct rte_mbuf *m,
		const struct ust_ipv4_repr *ip)
{
	struct rte_icmp_hdr *ic;
	uint32_t sum;

	/* drop the request's IP header (and options); keep ICMP in place */
	rte_pktmbuf_adj(m, ip->hdr_len);
	ic = rte_pktmbuf_mtod(m, struct rte_icmp_hdr *);
	/* RFC 1624 incremental update: only the type changes, 8 -> 0 */
	ic->icmp_type = RTE_IP_ICMP_ECHO_REPLY;
	sum = (uint16_t)~ic->icmp_cksum;
	sum += (uint16_t)~RTE_BE16(RTE_IP_ICMP_ECHO_REQUEST << 8) & 0xffff;
	sum += RTE_BE16(RTE_IP_ICMP_ECHO_REPLY << 8);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	ic->icmp_cksum = (uint16_t)~sum;
	ust_meta_no_owner(stk->meta_off, m);
	stk->mib[UST_MIB_ICMP_OUTMSGS]++;
	stk->mib[UST_MIB_ICMP_OUTECHOREPS]++;
	ust_ipv4_output(stk, m, stk->addr, ip->src, IPPROTO_ICMP, 0);
}

/* An error about a sibling stack's flow (lib/group) goes to that stack,
 * whole: true when it went. */
static bool
icmp_steer_error(struct ust_stack *stk, struct rte_mbuf *m,
		 const struct ust_icmp_repr *ic)
{
	rte_be16_t pt[2];

	if (stk->sib == NULL || stk->sib_in || !ic->embedded_ok ||
	    ic->embedded.src != stk->addr || ic->embedded_l4_len < 4)
		return false;
	memcpy(pt, ic->embedded_l4, sizeof(pt));
	return stk->sib->steer_err(stk, m, pt[0], ic->embedded.dst, pt[1]);
}

/* An error goes to the protocol of the datagram it quotes, if that was
 * ours and the protocol registered an error handler (UDP, TCP). */
static void
icmp_deliver_error(struct ust_stack *stk, const struct ust_icmp_repr *ic)
{
	const struct ust_ipv4_proto *p;

	if (!ic->embedded_ok || ic->embedded.src != stk->addr)
		return;
	/* about a fragment past the first: what follows its header is not
	 * the L4 header (RFC 792: errors are only about fragment zero) */
	if (ic->embedded.frag_off != 0)
		return;
	p = stk->ip_protos[ic->embedded.proto];
	if (p != NULL && p->err_handler != NULL)
		p->err_handler(stk, ic);
}

void
ust_icmp_input(struct ust_stack *stk, struct rte_mbuf *m,
	       const struct ust_ipv4_repr *ip)
{
	uint32_t len = ip->total_len - ip->hdr_len;
	struct ust_icmp_repr ic;
	uint8_t hdr[UST_ICMP_HDR_LEN + UST_IPV4_MAX_HDR_LEN + 8];
	const void *p;
	uint32_t plen;
	int rc;

	stk->mib[UST_MIB_ICMP_INMSGS]++;
	if (!icmp_checksum_ok(m, ip->hdr_len, len)) {
		stk->mib[UST_MIB_ICMP_INCSUMERRORS]++;
		stk->mib[UST_MIB_ICMP_INERRORS]++;
		ust_drop(stk, m, len < UST_ICMP_HDR_LEN ?
			 UST_DROP_ICMP_MALFORMED : UST_DROP_ICMP_CSUM);
		return;
	}
	/* parse the header and what an error quotes; the echo payload is
	 * never read, so a chained request is answered as it is */
	plen = len < sizeof(hdr) ? len : (uint32_t)sizeof(hdr);
	p = rte_pktmbuf_read(m, ip->hdr_len, plen, hdr);
	rc = p == NULL ? UST_WIRE_ETRUNC :
		ust_icmp_parse(p, plen, UST_WIRE_F_NO_CSUM, &ic);
	if (rc != UST_WIRE_OK) {
		stk->mib[UST_MIB_ICMP_INERRORS]++;
		ust_drop(stk, m, UST_DROP_ICMP_MALFORMED);
		return;
	}
	switch (ic.type) {
	case UST_ICMP_ECHO_REQUEST:
		stk->mib[UST_MIB_ICMP_INECHOS]++;
		ust_consumed(stk);
		if (ip->dst != stk->addr) {
			rte_pktmbuf_free(m); /* broadcast echo: ignored */
			return;
		}
		icmp_echo_reply(stk, m, ip);
		return;
	case UST_ICMP_ECHO_REPLY:
		stk->mib[UST_MIB_ICMP_INECHOREPS]++;
		break;
	case UST_ICMP_DEST_UNREACH:
		if (icmp_steer_error(stk, m, &ic))
			return;
		stk->mib[UST_MIB_ICMP_INDESTUNREACHS]++;
		icmp_deliver_error(stk, &ic);
		break;
	case UST_ICMP_TIME_EXCEEDED:
		if (icmp_steer_error(stk, m, &ic))
			return;
		stk->mib[UST_MIB_ICMP_INTIMEEXCDS]++;
		icmp_deliver_error(stk, &ic);
		break;
	case UST_ICMP_PARAM_PROBLEM:
		if (icmp_steer_error(stk, m, &ic))
			return;
		stk->mib[UST_MIB_ICMP_INPARMPROBS]++;
		icmp_deliver_error(stk, &ic);
		break;
	default:
		break;
	}
	ust_consumed(stk);
	rte_pktmbuf_free(m);
}

bool
ust_icmp_bucket_take(struct ust_stack *stk, uint64_t *tokens_ns,
		     uint64_t *last)
{
	const struct ust_icmp_conf *c = &stk->conf.icmp;
	uint64_t cost, cap, now = stk->now;

	if (c->msgs_per_sec == 0)
		return false;
	cost = 1000000000ull / c->msgs_per_sec;
	cap = cost * c->burst;
	if (now > *last) {
		*tokens_ns += now - *last;
		if (*tokens_ns > cap)
			*tokens_ns = cap;
	}
	*last = now;
	if (*tokens_ns < cost)
		return false;
	*tokens_ns -= cost;
	return true;
}

void
ust_icmp_send_error(struct ust_stack *stk, struct rte_mbuf *orig,
		    const struct ust_ipv4_repr *ip, uint8_t type, uint8_t code)
{
	struct ust_icmp_repr ic;
	struct rte_mbuf *m;
	const void *q;
	uint8_t *p;
	uint32_t quote;

	/* RFC 1122 3.2.2: not about broadcasts, multicasts, non-first
	 * fragments, or ICMP errors */
	if (ip->dst != stk->addr || ip->frag_off != 0 ||
	    ust_ipv4_is_multicast(ip->src))
		return;
	if (ip->proto == IPPROTO_ICMP) {
		uint8_t t;
		const uint8_t *tp = rte_pktmbuf_read(orig, ip->hdr_len, 1, &t);

		if (tp == NULL || (*tp != UST_ICMP_ECHO_REQUEST &&
				   *tp != UST_ICMP_ECHO_REPLY))
			return;
	}
	if (!ust_icmp_bucket_take(stk, &stk->icmp_tokens_ns,
				  &stk->icmp_last)) {
		stk->mib[UST_MIB_ICMP_OUTRATELIMITGLOBAL]++;
		return;
	}
	m = ust_reply_alloc(stk);
	if (m == NULL) {
		stk->mib[UST_MIB_ICMP_OUTERRORS]++;
		return;
	}
	quote = ip->total_len < ICMP_QUOTE_MAX ? ip->total_len : ICMP_QUOTE_MAX;
	p = (uint8_t *)rte_pktmbuf_append(m, UST_ICMP_HDR_LEN + quote);
	q = p == NULL ? NULL :
		rte_pktmbuf_read(orig, 0, quote, p + UST_ICMP_HDR_LEN);
	if (q == NULL) {
		rte_pktmbuf_free(m);
		stk->mib[UST_MIB_ICMP_OUTERRORS]++;
		return;
	}
	/* rte_pktmbuf_read() copies only when the bytes are not contiguous */
	if (q != p + UST_ICMP_HDR_LEN)
		memcpy(p + UST_ICMP_HDR_LEN, q, quote);
	memset(&ic, 0, sizeof(ic));
	ic.type = type;
	ic.code = code;
	ic.data = p + UST_ICMP_HDR_LEN;
	ic.data_len = quote;
	ust_icmp_emit(p, UST_ICMP_HDR_LEN + quote, &ic);
	ust_meta_no_owner(stk->meta_off, m);
	stk->mib[UST_MIB_ICMP_OUTMSGS]++;
	if (type == UST_ICMP_DEST_UNREACH)
		stk->mib[UST_MIB_ICMP_OUTDESTUNREACHS]++;
	ust_ipv4_output(stk, m, stk->addr, ip->src, IPPROTO_ICMP, 0);
}
