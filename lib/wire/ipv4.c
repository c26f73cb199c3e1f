/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * IPv4 (RFC 791): validate and parse a header, emit an option-less header,
 * and the pseudo-header sum for UDP and TCP checksums.
 *
 * Validation follows the order of RFC 1122 3.2.1 and of Linux's
 * ip_rcv_core(): length, version, header length, total length, checksum.
 * Options are checked for a well-formed type/length list (RFC 791 p.15) and
 * then skipped by the parser; ust_ipv4_opt_source_route() finds the one
 * the stack acts on (source routes, refused by default as by Linux).
 */

#include <string.h>

#include <rte_ip.h>

#include "ust_wire.h"
#include "wire_private.h"

#define IPOPT_EOL 0
#define IPOPT_NOP 1
#define IPOPT_LSRR 131
#define IPOPT_SSRR 137

static int
ipv4_options_check(const uint8_t *opt, size_t len)
{
	size_t i = 0;

	while (i < len) {
		uint8_t type = opt[i];
		uint8_t olen;

		if (type == IPOPT_EOL)
			return UST_WIRE_OK; /* the rest is padding */
		if (type == IPOPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= len)
			return UST_WIRE_EOPTION; /* no room for the length */
		olen = opt[i + 1];
		if (olen < 2 || olen > len - i)
			return UST_WIRE_EOPTION;
		i += olen;
	}
	return UST_WIRE_OK;
}

int
ust_ipv4_opt_source_route(const void *buf, size_t len)
{
	const uint8_t *opt = buf;
	size_t i = 0;
	int found = 0;

	while (i < len) {
		uint8_t type = opt[i];
		uint8_t olen;

		if (type == IPOPT_EOL)
			break;
		if (type == IPOPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= len)
			return UST_WIRE_EOPTION;
		olen = opt[i + 1];
		if (olen < 2 || olen > len - i)
			return UST_WIRE_EOPTION;
		if (type == IPOPT_LSRR || type == IPOPT_SSRR) {
			/* type, length, pointer (>= 4, RFC 791 p.18); one
			 * source route per datagram (Linux refuses two) */
			if (olen < 3 || opt[i + 2] < 4 || found)
				return UST_WIRE_EOPTION;
			found = 1;
		}
		i += olen;
	}
	return found;
}

int
ust_ipv4_parse(const void *buf, size_t len, size_t frame_len, int flags,
	       struct ust_ipv4_repr *r)
{
	const uint8_t *p = buf;
	size_t hlen;
	uint16_t frag;

	if (len < UST_IPV4_HDR_LEN || frame_len < UST_IPV4_HDR_LEN)
		return UST_WIRE_ETRUNC;
	if ((p[0] >> 4) != 4)
		return UST_WIRE_EVERSION;
	hlen = (size_t)(p[0] & 0xf) * 4;
	if (hlen < UST_IPV4_HDR_LEN || hlen > len)
		return UST_WIRE_EIHL;
	r->total_len = ust_ld16(p + 2);
	if (r->total_len < hlen)
		return UST_WIRE_ELEN;
	if (r->total_len > frame_len)
		return UST_WIRE_ETRUNC;
	if (!(flags & UST_WIRE_F_NO_CSUM) && rte_raw_cksum(p, hlen) != 0xffff)
		return UST_WIRE_ECSUM;
	if (hlen > UST_IPV4_HDR_LEN &&
	    ipv4_options_check(p + UST_IPV4_HDR_LEN,
			       hlen - UST_IPV4_HDR_LEN) != UST_WIRE_OK)
		return UST_WIRE_EOPTION;

	r->hdr_len = (uint8_t)hlen;
	r->tos = p[1];
	r->id = ust_ld16(p + 4);
	frag = ust_ld16(p + 6);
	r->df = (frag & RTE_IPV4_HDR_DF_FLAG) != 0;
	r->mf = (frag & RTE_IPV4_HDR_MF_FLAG) != 0;
	r->frag_off = (uint16_t)((frag & RTE_IPV4_HDR_OFFSET_MASK) *
				 RTE_IPV4_HDR_OFFSET_UNITS);
	r->ttl = p[8];
	r->proto = p[9];
	r->src = ust_ld32_raw(p + 12);
	r->dst = ust_ld32_raw(p + 16);
	return UST_WIRE_OK;
}

size_t
ust_ipv4_emit(void *buf, size_t len, const struct ust_ipv4_repr *r, int flags)
{
	uint8_t *p = buf;
	uint16_t frag;

	if (len < UST_IPV4_HDR_LEN)
		return 0;
	p[0] = 0x45;
	p[1] = r->tos;
	ust_st16(p + 2, r->total_len);
	ust_st16(p + 4, r->id);
	frag = (uint16_t)(r->frag_off / RTE_IPV4_HDR_OFFSET_UNITS);
	if (r->df)
		frag |= RTE_IPV4_HDR_DF_FLAG;
	if (r->mf)
		frag |= RTE_IPV4_HDR_MF_FLAG;
	ust_st16(p + 6, frag);
	p[8] = r->ttl;
	p[9] = r->proto;
	p[10] = 0;
	p[11] = 0;
	ust_st32_raw(p + 12, r->src);
	ust_st32_raw(p + 16, r->dst);
	if (!(flags & UST_WIRE_F_CSUM_OFFLOAD)) {
		uint16_t ck = (uint16_t)~rte_raw_cksum(p, UST_IPV4_HDR_LEN);

		memcpy(p + 10, &ck, sizeof(ck)); /* already in wire order */
	}
	return UST_IPV4_HDR_LEN;
}

uint16_t
ust_ipv4_phdr_sum(rte_be32_t src, rte_be32_t dst, uint8_t proto,
		  uint16_t l4_len)
{
	struct {
		rte_be32_t src;
		rte_be32_t dst;
		uint8_t zero;
		uint8_t proto;
		rte_be16_t len;
	} __rte_packed ph = {
		.src = src,
		.dst = dst,
		.zero = 0,
		.proto = proto,
		.len = rte_cpu_to_be_16(l4_len),
	};

	return rte_raw_cksum(&ph, sizeof(ph));
}
