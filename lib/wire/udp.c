/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * UDP (RFC 768): parse with length and checksum validation, emit with a
 * full checksum or with the pseudo-header sum for checksum offload; over
 * IPv4 and over IPv6 (RFC 8200 8.1: its pseudo-header, the checksum
 * mandatory).
 */

#include <string.h>

#include <rte_ip.h>

#include "ust_wire.h"
#include "wire_private.h"

int
ust_udp_parse(const void *buf, size_t len, rte_be32_t src, rte_be32_t dst,
	      int flags, struct ust_udp_repr *r)
{
	const uint8_t *p = buf;
	uint16_t ck;

	if (len < UST_UDP_HDR_LEN)
		return UST_WIRE_ETRUNC;
	r->src_port = ust_ld16(p);
	r->dst_port = ust_ld16(p + 2);
	r->len = ust_ld16(p + 4);
	if (r->len < UST_UDP_HDR_LEN || r->len > len)
		return UST_WIRE_ELEN;
	memcpy(&ck, p + 6, sizeof(ck));
	r->has_csum = ck != 0;
	if (r->has_csum && !(flags & UST_WIRE_F_NO_CSUM)) {
		uint32_t sum = rte_raw_cksum(p, r->len);

		sum += ust_ipv4_phdr_sum(src, dst, IPPROTO_UDP, r->len);
		sum = (sum & 0xffff) + (sum >> 16);
		sum = (sum & 0xffff) + (sum >> 16);
		if (sum != 0xffff)
			return UST_WIRE_ECSUM;
	}
	return UST_WIRE_OK;
}

size_t
ust_udp_emit(void *buf, size_t len, const struct ust_udp_repr *r,
	     rte_be32_t src, rte_be32_t dst, const void *payload, int flags)
{
	uint8_t *p = buf;
	uint16_t ck = 0;

	if (len < UST_UDP_HDR_LEN || r->len < UST_UDP_HDR_LEN)
		return 0;
	ust_st16(p, r->src_port);
	ust_st16(p + 2, r->dst_port);
	ust_st16(p + 4, r->len);
	ust_st16(p + 6, 0);
	if (flags & UST_WIRE_F_CSUM_OFFLOAD) {
		/* a one's complement sum is byte-order neutral when stored
		 * as computed, as rte_ipv4_phdr_cksum() users do */
		ck = ust_ipv4_phdr_sum(src, dst, IPPROTO_UDP, r->len);
	} else if (payload != NULL) {
		uint32_t sum = rte_raw_cksum(p, UST_UDP_HDR_LEN);

		sum += rte_raw_cksum(payload, r->len - UST_UDP_HDR_LEN);
		sum += ust_ipv4_phdr_sum(src, dst, IPPROTO_UDP, r->len);
		sum = (sum & 0xffff) + (sum >> 16);
		sum = (sum & 0xffff) + (sum >> 16);
		ck = (uint16_t)~sum;
		if (ck == 0)
			ck = 0xffff; /* RFC 768: zero is sent as all ones */
	}
	memcpy(p + 6, &ck, sizeof(ck));
	return UST_UDP_HDR_LEN;
}

/* fold a 32-bit one's complement sum to 16 bits */
static inline uint16_t
udp_fold(uint32_t sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

int
ust_udp6_parse(const void *buf, size_t len, const uint8_t *src,
	       const uint8_t *dst, int flags, struct ust_udp_repr *r)
{
	const uint8_t *p = buf;
	uint16_t ck;

	if (len < UST_UDP_HDR_LEN)
		return UST_WIRE_ETRUNC;
	r->src_port = ust_ld16(p);
	r->dst_port = ust_ld16(p + 2);
	r->len = ust_ld16(p + 4);
	if (r->len < UST_UDP_HDR_LEN || r->len > len)
		return UST_WIRE_ELEN;
	memcpy(&ck, p + 6, sizeof(ck));
	r->has_csum = true;
	if (ck == 0)
		return UST_WIRE_ECSUM;
	if (!(flags & UST_WIRE_F_NO_CSUM)) {
		uint32_t sum = rte_raw_cksum(p, r->len);

		sum += ust_ipv6_phdr_sum(src, dst, IPPROTO_UDP, r->len);
		if (udp_fold(sum) != 0xffff)
			return UST_WIRE_ECSUM;
	}
	return UST_WIRE_OK;
}

size_t
ust_udp6_emit(void *buf, size_t len, const struct ust_udp_repr *r,
	      const uint8_t *src, const uint8_t *dst, const void *payload,
	      int flags)
{
	uint8_t *p = buf;
	uint16_t ck = 0;

	if (len < UST_UDP_HDR_LEN || r->len < UST_UDP_HDR_LEN)
		return 0;
	ust_st16(p, r->src_port);
	ust_st16(p + 2, r->dst_port);
	ust_st16(p + 4, r->len);
	ust_st16(p + 6, 0);
	if (flags & UST_WIRE_F_CSUM_OFFLOAD) {
		ck = ust_ipv6_phdr_sum(src, dst, IPPROTO_UDP, r->len);
	} else if (payload != NULL) {
		uint32_t sum = rte_raw_cksum(p, UST_UDP_HDR_LEN);

		sum += rte_raw_cksum(payload, r->len - UST_UDP_HDR_LEN);
		sum += ust_ipv6_phdr_sum(src, dst, IPPROTO_UDP, r->len);
		ck = (uint16_t)~udp_fold(sum);
		if (ck == 0)
			ck = 0xffff;
	}
	memcpy(p + 6, &ck, sizeof(ck));
	return UST_UDP_HDR_LEN;
}
