/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * TCP (RFC 9293): parse a segment's header and options with strict bounds,
 * emit a header with its options and checksum. Options: end of list, no-op,
 * MSS (RFC 9293 3.2), window scale and timestamps (RFC 7323), SACK-permitted
 * and SACK (RFC 2018). Over IPv4 (ust_tcp_*) and IPv6 (ust_tcp6_*), which
 * differ only in the pseudo-header of the checksum.
 */

#include <string.h>

#include <rte_ip.h>

#include "ust_wire.h"
#include "wire_private.h"

#define OPT_EOL 0
#define OPT_NOP 1
#define OPT_MSS 2
#define OPT_WS 3
#define OPT_SACK_PERM 4
#define OPT_SACK 5
#define OPT_TS 8

static int
tcp_parse_options(const uint8_t *p, size_t len, struct ust_tcp_opts *o)
{
	size_t i = 0;

	while (i < len) {
		uint8_t kind = p[i];
		uint8_t olen;

		if (kind == OPT_EOL)
			break;
		if (kind == OPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= len)
			return UST_WIRE_EOPTION;
		olen = p[i + 1];
		if (olen < 2 || olen > len - i)
			return UST_WIRE_EOPTION;
		switch (kind) {
		case OPT_MSS:
			if (olen != 4)
				return UST_WIRE_EOPTION;
			o->mss = ust_ld16(p + i + 2);
			o->has |= UST_TCPOPT_MSS;
			break;
		case OPT_WS:
			if (olen != 3)
				return UST_WIRE_EOPTION;
			o->wscale = p[i + 2] > UST_TCP_MAX_WSCALE ?
				UST_TCP_MAX_WSCALE : p[i + 2];
			o->has |= UST_TCPOPT_WS;
			break;
		case OPT_SACK_PERM:
			if (olen != 2)
				return UST_WIRE_EOPTION;
			o->has |= UST_TCPOPT_SACK_PERM;
			break;
		case OPT_TS:
			if (olen != 10)
				return UST_WIRE_EOPTION;
			o->tsval = rte_be_to_cpu_32(ust_ld32_raw(p + i + 2));
			o->tsecr = rte_be_to_cpu_32(ust_ld32_raw(p + i + 6));
			o->has |= UST_TCPOPT_TS;
			break;
		case OPT_SACK: {
			unsigned int n, k;

			if (olen < 10 || (olen - 2) % 8 != 0)
				return UST_WIRE_EOPTION;
			n = (olen - 2) / 8;
			if (n > UST_TCP_MAX_SACK)
				n = UST_TCP_MAX_SACK;
			for (k = 0; k < n; k++) {
				o->sack[k].start = rte_be_to_cpu_32(
					ust_ld32_raw(p + i + 2 + 8 * k));
				o->sack[k].end = rte_be_to_cpu_32(
					ust_ld32_raw(p + i + 6 + 8 * k));
			}
			o->nsack = (uint8_t)n;
			o->has |= UST_TCPOPT_SACK;
			break;
		}
		default:
			break; /* unknown: skipped */
		}
		i += olen;
	}
	return UST_WIRE_OK;
}

/* The pseudo-header's sum for a segment of @len bytes: IPv4's (RFC 9293
 * 3.1) from the addresses @src and @dst point to (4 bytes each), or with
 * @v6 IPv6's (RFC 8200 8.1, 16 bytes each). */
static uint16_t
tcp_phdr_sum(const void *src, const void *dst, bool v6, uint32_t len)
{
	rte_be32_t s4, d4;

	if (v6)
		return ust_ipv6_phdr_sum(src, dst, IPPROTO_TCP, len);
	memcpy(&s4, src, sizeof(s4));
	memcpy(&d4, dst, sizeof(d4));
	return ust_ipv4_phdr_sum(s4, d4, IPPROTO_TCP, (uint16_t)len);
}

static int
tcp_parse(const void *buf, size_t len, const void *src, const void *dst,
	  bool v6, int flags, struct ust_tcp_repr *r)
{
	const uint8_t *p = buf;
	size_t hlen;

	if (len < UST_TCP_HDR_LEN)
		return UST_WIRE_ETRUNC;
	hlen = (size_t)(p[12] >> 4) * 4;
	if (hlen < UST_TCP_HDR_LEN)
		return UST_WIRE_ELEN;
	if (hlen > len)
		return UST_WIRE_ETRUNC;
	if (!(flags & UST_WIRE_F_NO_CSUM)) {
		uint32_t sum = rte_raw_cksum(p, len);

		sum += tcp_phdr_sum(src, dst, v6, (uint32_t)len);
		sum = (sum & 0xffff) + (sum >> 16);
		sum = (sum & 0xffff) + (sum >> 16);
		if (sum != 0xffff)
			return UST_WIRE_ECSUM;
	}
	memset(&r->opts, 0, sizeof(r->opts));
	if (tcp_parse_options(p + UST_TCP_HDR_LEN, hlen - UST_TCP_HDR_LEN,
			      &r->opts) != UST_WIRE_OK)
		return UST_WIRE_EOPTION;
	r->src_port = ust_ld16(p);
	r->dst_port = ust_ld16(p + 2);
	r->seq = rte_be_to_cpu_32(ust_ld32_raw(p + 4));
	r->ack = rte_be_to_cpu_32(ust_ld32_raw(p + 8));
	r->hdr_len = (uint8_t)hlen;
	r->flags = p[13];
	r->window = ust_ld16(p + 14);
	r->urp = ust_ld16(p + 18);
	return UST_WIRE_OK;
}

/* SACK blocks that fit beside the other options of a non-SYN segment */
static unsigned int
tcp_sack_fit(const struct ust_tcp_opts *o)
{
	size_t room = UST_TCP_MAX_OPT_LEN;
	unsigned int n = 0;

	if (o->has & UST_TCPOPT_TS)
		room -= 12;
	if ((o->has & UST_TCPOPT_SACK) && o->nsack > 0) {
		n = (unsigned int)((room - 4) / 8);
		if (n > o->nsack)
			n = o->nsack;
	}
	return n;
}

size_t
ust_tcp_opts_len(const struct ust_tcp_opts *o, bool syn)
{
	size_t n = 0;

	if (syn) {
		if (o->has & UST_TCPOPT_MSS)
			n += 4;
		if (o->has & UST_TCPOPT_TS)
			n += 12; /* SACK-permitted rides in its two NOPs */
		else if (o->has & UST_TCPOPT_SACK_PERM)
			n += 4;
		if (o->has & UST_TCPOPT_WS)
			n += 4;
		return n;
	}
	if (o->has & UST_TCPOPT_TS)
		n += 12;
	if (tcp_sack_fit(o) > 0)
		n += 4 + 8 * tcp_sack_fit(o);
	return n;
}

static size_t
tcp_emit_options(uint8_t *p, const struct ust_tcp_opts *o, bool syn)
{
	size_t i = 0;
	unsigned int k, n;

	if (syn && (o->has & UST_TCPOPT_MSS)) {
		p[i++] = OPT_MSS;
		p[i++] = 4;
		ust_st16(p + i, o->mss);
		i += 2;
	}
	if (o->has & UST_TCPOPT_TS) {
		if (syn && (o->has & UST_TCPOPT_SACK_PERM)) {
			p[i++] = OPT_SACK_PERM;
			p[i++] = 2;
		} else {
			p[i++] = OPT_NOP;
			p[i++] = OPT_NOP;
		}
		p[i++] = OPT_TS;
		p[i++] = 10;
		ust_st32_raw(p + i, rte_cpu_to_be_32(o->tsval));
		ust_st32_raw(p + i + 4, rte_cpu_to_be_32(o->tsecr));
		i += 8;
	} else if (syn && (o->has & UST_TCPOPT_SACK_PERM)) {
		p[i++] = OPT_NOP;
		p[i++] = OPT_NOP;
		p[i++] = OPT_SACK_PERM;
		p[i++] = 2;
	}
	if (syn && (o->has & UST_TCPOPT_WS)) {
		p[i++] = OPT_NOP;
		p[i++] = OPT_WS;
		p[i++] = 3;
		p[i++] = o->wscale;
	}
	if (!syn && (n = tcp_sack_fit(o)) > 0) {
		p[i++] = OPT_NOP;
		p[i++] = OPT_NOP;
		p[i++] = OPT_SACK;
		p[i++] = (uint8_t)(2 + 8 * n);
		for (k = 0; k < n; k++) {
			ust_st32_raw(p + i, rte_cpu_to_be_32(o->sack[k].start));
			ust_st32_raw(p + i + 4, rte_cpu_to_be_32(o->sack[k].end));
			i += 8;
		}
	}
	return i;
}

static void tcp_set_csum(void *hdr, size_t hlen, const void *src,
			 const void *dst, bool v6, uint32_t payload_sum,
			 size_t plen);

static size_t
tcp_emit(void *buf, size_t len, struct ust_tcp_repr *r, const void *src,
	 const void *dst, bool v6, const void *payload, size_t plen,
	 int flags)
{
	uint8_t *p = buf;
	bool syn = (r->flags & UST_TCP_SYN) != 0;
	size_t hlen = UST_TCP_HDR_LEN + ust_tcp_opts_len(&r->opts, syn);

	if (len < hlen)
		return 0;
	ust_st16(p, r->src_port);
	ust_st16(p + 2, r->dst_port);
	ust_st32_raw(p + 4, rte_cpu_to_be_32(r->seq));
	ust_st32_raw(p + 8, rte_cpu_to_be_32(r->ack));
	p[12] = (uint8_t)((hlen / 4) << 4);
	p[13] = r->flags;
	ust_st16(p + 14, r->window);
	ust_st16(p + 16, 0);
	ust_st16(p + 18, r->urp);
	tcp_emit_options(p + UST_TCP_HDR_LEN, &r->opts, syn);
	r->hdr_len = (uint8_t)hlen;
	if (flags & UST_WIRE_F_CSUM_OFFLOAD) {
		uint16_t ck = tcp_phdr_sum(src, dst, v6,
					   (uint32_t)(hlen + plen));

		memcpy(p + 16, &ck, sizeof(ck));
	} else {
		tcp_set_csum(p, hlen, src, dst, v6,
			     plen ? rte_raw_cksum(payload, plen) : 0, plen);
	}
	return hlen;
}

static void
tcp_set_csum(void *hdr, size_t hlen, const void *src, const void *dst,
	     bool v6, uint32_t payload_sum, size_t plen)
{
	uint8_t *p = hdr;
	uint32_t sum;
	uint16_t ck;

	p[16] = 0;
	p[17] = 0;
	/* a payload sum starting at an even offset (hlen is a multiple of 4)
	 * adds to the header's as it is */
	sum = rte_raw_cksum(p, hlen) + payload_sum;
	sum += tcp_phdr_sum(src, dst, v6, (uint32_t)(hlen + plen));
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	ck = (uint16_t)~sum;
	memcpy(p + 16, &ck, sizeof(ck));
}

/* ---- the wrappers of each family ---- */

int
ust_tcp_parse(const void *buf, size_t len, rte_be32_t src, rte_be32_t dst,
	      int flags, struct ust_tcp_repr *r)
{
	return tcp_parse(buf, len, &src, &dst, false, flags, r);
}

int
ust_tcp6_parse(const void *buf, size_t len, const uint8_t *src,
	       const uint8_t *dst, int flags, struct ust_tcp_repr *r)
{
	return tcp_parse(buf, len, src, dst, true, flags, r);
}

size_t
ust_tcp_emit(void *buf, size_t len, struct ust_tcp_repr *r, rte_be32_t src,
	     rte_be32_t dst, const void *payload, size_t plen, int flags)
{
	return tcp_emit(buf, len, r, &src, &dst, false, payload, plen, flags);
}

size_t
ust_tcp6_emit(void *buf, size_t len, struct ust_tcp_repr *r,
	      const uint8_t *src, const uint8_t *dst, const void *payload,
	      size_t plen, int flags)
{
	return tcp_emit(buf, len, r, src, dst, true, payload, plen, flags);
}

void
ust_tcp_set_csum(void *hdr, size_t hlen, rte_be32_t src, rte_be32_t dst,
		 uint32_t payload_sum, size_t plen)
{
	tcp_set_csum(hdr, hlen, &src, &dst, false, payload_sum, plen);
}

void
ust_tcp6_set_csum(void *hdr, size_t hlen, const uint8_t *src,
		  const uint8_t *dst, uint32_t payload_sum, size_t plen)
{
	tcp_set_csum(hdr, hlen, src, dst, true, payload_sum, plen);
}
