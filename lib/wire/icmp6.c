/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * ICMPv6 (RFC 4443) and the Neighbor Discovery messages (RFC 4861): parse
 * with the checksum over the IPv6 pseudo-header and the ND options
 * validated, emit with the checksum. Pure functions over (pointer,
 * length).
 */

#include <string.h>

#include <rte_ip.h>

#include "ust_wire.h"
#include "wire_private.h"

/* the fixed part of each ND message, the ICMPv6 header included */
#define ND_RS_LEN 8u
#define ND_RA_LEN 16u
#define ND_NS_LEN 24u
#define ND_NA_LEN 24u
#define ND_REDIRECT_LEN 40u

#define ND_OPT_LLA_LEN 8u
#define ND_OPT_PREFIX_LEN 32u
#define ND_OPT_MTU_LEN 8u

static uint16_t
icmp6_sum(const uint8_t *src, const uint8_t *dst, const void *buf,
	  size_t len)
{
	uint32_t sum = (uint32_t)ust_ipv6_phdr_sum(src, dst,
						   UST_IPV6_NH_ICMPV6,
						   (uint32_t)len) +
		       rte_raw_cksum(buf, len);

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* RFC 4861 4.6: options of 8-byte units, none of length 0, none past the
 * message; the known ones of their sizes */
static int
nd_opts_parse(const uint8_t *p, size_t len, struct ust_nd_opts *o)
{
	size_t i = 0;

	while (i < len) {
		size_t olen;

		if (len - i < 2)
			return UST_WIRE_EMALFORMED;
		olen = (size_t)p[i + 1] * 8;
		if (olen == 0 || olen > len - i)
			return UST_WIRE_EMALFORMED;
		switch (p[i]) {
		case UST_ND_OPT_SLLA:
		case UST_ND_OPT_TLLA:
			/* Ethernet's: 6 bytes in an 8-byte option */
			if (olen != ND_OPT_LLA_LEN)
				return UST_WIRE_EMALFORMED;
			if (p[i] == UST_ND_OPT_SLLA) {
				o->has_slla = true;
				memcpy(&o->slla, p + i + 2, RTE_ETHER_ADDR_LEN);
			} else {
				o->has_tlla = true;
				memcpy(&o->tlla, p + i + 2, RTE_ETHER_ADDR_LEN);
			}
			break;
		case UST_ND_OPT_PREFIX:
			if (olen != ND_OPT_PREFIX_LEN || p[i + 2] > 128)
				return UST_WIRE_EMALFORMED;
			o->has_prefix = true;
			o->prefix_len = p[i + 2];
			o->prefix_flags = p[i + 3];
			o->prefix_valid = rte_be_to_cpu_32(
				ust_ld32_raw(p + i + 4));
			o->prefix_preferred = rte_be_to_cpu_32(
				ust_ld32_raw(p + i + 8));
			memcpy(o->prefix, p + i + 16, UST_IPV6_ADDR_LEN);
			break;
		case UST_ND_OPT_MTU:
			if (olen != ND_OPT_MTU_LEN)
				return UST_WIRE_EMALFORMED;
			o->has_mtu = true;
			o->mtu = rte_be_to_cpu_32(ust_ld32_raw(p + i + 4));
			break;
		default:
			break; /* RFC 4861 4.6: unknown options are skipped */
		}
		i += olen;
	}
	return UST_WIRE_OK;
}

int
ust_icmp6_parse(const void *buf, size_t len, const uint8_t *src,
		const uint8_t *dst, int flags, struct ust_icmp6_repr *r)
{
	const uint8_t *p = buf;
	size_t fixed = UST_ICMP6_HDR_LEN;

	memset(r, 0, sizeof(*r));
	if (len < UST_ICMP6_HDR_LEN)
		return UST_WIRE_ETRUNC;
	if (!(flags & UST_WIRE_F_NO_CSUM) &&
	    icmp6_sum(src, dst, buf, len) != 0xffff)
		return UST_WIRE_ECSUM;
	r->type = p[0];
	r->code = p[1];
	switch (r->type) {
	case UST_ICMP6_ECHO_REQUEST:
	case UST_ICMP6_ECHO_REPLY:
		r->ident = ust_ld16(p + 4);
		r->seq = ust_ld16(p + 6);
		break;
	case UST_ICMP6_DEST_UNREACH:
	case UST_ICMP6_PKT_TOO_BIG:
	case UST_ICMP6_TIME_EXCEEDED:
	case UST_ICMP6_PARAM_PROBLEM:
		r->param = rte_be_to_cpu_32(ust_ld32_raw(p + 4));
		if (len - fixed >= UST_IPV6_HDR_LEN &&
		    (p[fixed] >> 4) == 6) {
			/* the invoking packet, maybe cut short: its header
			 * only, the payload length not held to it */
			r->embedded_ok = ust_ipv6_parse(p + fixed,
				UST_IPV6_HDR_LEN, UST_IPV6_HDR_LEN + 65535,
				&r->embedded) == UST_WIRE_OK;
		}
		break;
	case UST_ICMP6_ND_RS:
		fixed = ND_RS_LEN;
		break;
	case UST_ICMP6_ND_RA:
		fixed = ND_RA_LEN;
		if (len < fixed)
			return UST_WIRE_ETRUNC;
		r->cur_hop_limit = p[4];
		r->flags = p[5];
		r->router_lifetime = ust_ld16(p + 6);
		r->reachable_ms = rte_be_to_cpu_32(ust_ld32_raw(p + 8));
		r->retrans_ms = rte_be_to_cpu_32(ust_ld32_raw(p + 12));
		break;
	case UST_ICMP6_ND_NS:
	case UST_ICMP6_ND_NA:
	case UST_ICMP6_ND_REDIRECT:
		fixed = r->type == UST_ICMP6_ND_REDIRECT ? ND_REDIRECT_LEN :
			ND_NS_LEN;
		if (len < fixed)
			return UST_WIRE_ETRUNC;
		if (r->type == UST_ICMP6_ND_NA)
			r->flags = p[4] & (UST_ND_NA_ROUTER |
					   UST_ND_NA_SOLICITED |
					   UST_ND_NA_OVERRIDE);
		memcpy(r->target, p + 8, UST_IPV6_ADDR_LEN);
		break;
	default:
		break;
	}
	if (r->type >= UST_ICMP6_ND_RS && r->type <= UST_ICMP6_ND_REDIRECT) {
		int rc = nd_opts_parse(p + fixed, len - fixed, &r->nd);

		if (rc != UST_WIRE_OK)
			return rc;
	}
	r->data = p + fixed;
	r->data_len = len - fixed;
	return UST_WIRE_OK;
}

/* an 8-byte link-layer address option */
static uint8_t *
nd_lla_emit(uint8_t *q, uint8_t type, const struct rte_ether_addr *a)
{
	q[0] = type;
	q[1] = 1;
	memcpy(q + 2, a, RTE_ETHER_ADDR_LEN);
	return q + ND_OPT_LLA_LEN;
}

size_t
ust_icmp6_emit(void *buf, size_t len, const uint8_t *src, const uint8_t *dst,
	       const struct ust_icmp6_repr *r)
{
	uint8_t *p = buf, *q;
	size_t fixed = UST_ICMP6_HDR_LEN, need, total;
	uint16_t ck;

	switch (r->type) {
	case UST_ICMP6_ND_RS:
		fixed = ND_RS_LEN;
		break;
	case UST_ICMP6_ND_RA:
		fixed = ND_RA_LEN;
		break;
	case UST_ICMP6_ND_NS:
	case UST_ICMP6_ND_NA:
		fixed = ND_NS_LEN;
		break;
	case UST_ICMP6_ND_REDIRECT:
		fixed = ND_REDIRECT_LEN;
		break;
	default:
		break;
	}
	need = fixed + (r->nd.has_slla ? ND_OPT_LLA_LEN : 0) +
	       (r->nd.has_tlla ? ND_OPT_LLA_LEN : 0) +
	       (r->nd.has_prefix ? ND_OPT_PREFIX_LEN : 0) +
	       (r->nd.has_mtu ? ND_OPT_MTU_LEN : 0);
	total = need + r->data_len;
	if (len < total)
		return 0;
	memset(p, 0, need);
	p[0] = r->type;
	p[1] = r->code;
	switch (r->type) {
	case UST_ICMP6_ECHO_REQUEST:
	case UST_ICMP6_ECHO_REPLY:
		ust_st16(p + 4, r->ident);
		ust_st16(p + 6, r->seq);
		break;
	case UST_ICMP6_ND_RA:
		p[4] = r->cur_hop_limit;
		p[5] = r->flags;
		ust_st16(p + 6, r->router_lifetime);
		ust_st32_raw(p + 8, rte_cpu_to_be_32(r->reachable_ms));
		ust_st32_raw(p + 12, rte_cpu_to_be_32(r->retrans_ms));
		break;
	case UST_ICMP6_ND_NS:
	case UST_ICMP6_ND_NA:
	case UST_ICMP6_ND_REDIRECT:
		if (r->type == UST_ICMP6_ND_NA)
			p[4] = r->flags;
		memcpy(p + 8, r->target, UST_IPV6_ADDR_LEN);
		break;
	case UST_ICMP6_ND_RS:
		break;
	default:
		ust_st32_raw(p + 4, rte_cpu_to_be_32(r->param));
		break;
	}
	q = p + fixed;
	if (r->nd.has_slla)
		q = nd_lla_emit(q, UST_ND_OPT_SLLA, &r->nd.slla);
	if (r->nd.has_tlla)
		q = nd_lla_emit(q, UST_ND_OPT_TLLA, &r->nd.tlla);
	if (r->nd.has_prefix) {
		q[0] = UST_ND_OPT_PREFIX;
		q[1] = 4;
		q[2] = r->nd.prefix_len;
		q[3] = r->nd.prefix_flags;
		ust_st32_raw(q + 4, rte_cpu_to_be_32(r->nd.prefix_valid));
		ust_st32_raw(q + 8, rte_cpu_to_be_32(r->nd.prefix_preferred));
		memcpy(q + 16, r->nd.prefix, UST_IPV6_ADDR_LEN);
		q += ND_OPT_PREFIX_LEN;
	}
	if (r->nd.has_mtu) {
		q[0] = UST_ND_OPT_MTU;
		q[1] = 1;
		ust_st32_raw(q + 4, rte_cpu_to_be_32(r->nd.mtu));
		q += ND_OPT_MTU_LEN;
	}
	/* (the data may already be in place: an error built around the
	 * packet it quotes) */
	if (r->data_len > 0 && r->data != q)
		memmove(q, r->data, r->data_len);
	ck = (uint16_t)~icmp6_sum(src, dst, p, total);
	memcpy(p + 2, &ck, sizeof(ck)); /* in wire order already */
	return total;
}
