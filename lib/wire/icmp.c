/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * ICMPv4 (RFC 792): parse echo and error messages, emit them with their
 * checksum. For errors (destination unreachable, time exceeded, parameter
 * problem) the embedded offending header is validated as well, so that the
 * stack can hand the error to the socket it belongs to (RFC 1122 3.2.2).
 */

#include <string.h>

#include <rte_ip.h>

#include "ust_wire.h"
#include "wire_private.h"

static bool
icmp_is_error(uint8_t type)
{
	return type == UST_ICMP_DEST_UNREACH ||
	       type == UST_ICMP_TIME_EXCEEDED ||
	       type == UST_ICMP_PARAM_PROBLEM;
}

int
ust_icmp_parse(const void *buf, size_t len, int flags, struct ust_icmp_repr *r)
{
	const uint8_t *p = buf;

	if (len < UST_ICMP_HDR_LEN)
		return UST_WIRE_ETRUNC;
	if (!(flags & UST_WIRE_F_NO_CSUM) && rte_raw_cksum(p, len) != 0xffff)
		return UST_WIRE_ECSUM;
	memset(r, 0, sizeof(*r));
	r->type = p[0];
	r->code = p[1];
	r->data = p + UST_ICMP_HDR_LEN;
	r->data_len = len - UST_ICMP_HDR_LEN;
	switch (r->type) {
	case UST_ICMP_ECHO_REQUEST:
	case UST_ICMP_ECHO_REPLY:
		if (r->code != 0)
			return UST_WIRE_EMALFORMED;
		r->ident = ust_ld16(p + 4);
		r->seq = ust_ld16(p + 6);
		break;
	case UST_ICMP_DEST_UNREACH:
		r->mtu = ust_ld16(p + 6);
		break;
	default:
		break;
	}
	if (icmp_is_error(r->type)) {
		/* RFC 792: the internet header plus the first 64 bits of
		 * the original datagram's data. The checksum of the embedded
		 * header is not verified (routers may have rewritten it); its
		 * total length may exceed what was quoted. */
		struct ust_ipv4_repr *e = &r->embedded;
		int rc = ust_ipv4_parse(r->data, r->data_len, 0xffff,
					UST_WIRE_F_NO_CSUM, e);

		if (rc == UST_WIRE_OK && r->data_len >= e->hdr_len + 8u) {
			r->embedded_ok = true;
			r->embedded_l4 = r->data + e->hdr_len;
			r->embedded_l4_len = r->data_len - e->hdr_len;
		}
	}
	return UST_WIRE_OK;
}

size_t
ust_icmp_emit(void *buf, size_t len, const struct ust_icmp_repr *r)
{
	uint8_t *p = buf;
	size_t total = UST_ICMP_HDR_LEN + r->data_len;
	uint16_t ck;

	if (len < total)
		return 0;
	p[0] = r->type;
	p[1] = r->code;
	p[2] = 0;
	p[3] = 0;
	switch (r->type) {
	case UST_ICMP_ECHO_REQUEST:
	case UST_ICMP_ECHO_REPLY:
		ust_st16(p + 4, r->ident);
		ust_st16(p + 6, r->seq);
		break;
	case UST_ICMP_DEST_UNREACH:
		ust_st16(p + 4, 0);
		ust_st16(p + 6, r->code == UST_ICMP_CODE_FRAG_NEEDED ?
			 r->mtu : 0);
		break;
	default:
		memset(p + 4, 0, 4);
		break;
	}
	if (r->data_len > 0)
		memmove(p + UST_ICMP_HDR_LEN, r->data, r->data_len);
	ck = (uint16_t)~rte_raw_cksum(p, total);
	memcpy(p + 2, &ck, sizeof(ck));
	return total;
}
