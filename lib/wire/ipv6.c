/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * IPv6 (RFC 8200): the fixed header, the walk of the extension header
 * chain with RFC 8200's (and RFC 5095's, RFC 7112's) rules, the
 * pseudo-header sum, and the multicast addresses Neighbor Discovery needs.
 * Pure functions over (pointer, length); every length is checked before
 * the bytes it covers are read.
 */

#include <string.h>

#include <rte_ip.h>

#include "ust_wire.h"
#include "wire_private.h"

/* more extension headers than any legitimate packet carries (RFC 8200
 * recommends an order with each at most once, destination options twice) */
#define IPV6_MAX_EXT 8

/* option types of hop-by-hop and destination options */
#define IPV6_OPT_PAD1 0
#define IPV6_OPT_PADN 1

int
ust_ipv6_parse(const void *buf, size_t len, size_t frame_len,
	       struct ust_ipv6_repr *r)
{
	const uint8_t *p = buf;
	uint32_t vtf;

	if (len < UST_IPV6_HDR_LEN || frame_len < UST_IPV6_HDR_LEN)
		return UST_WIRE_ETRUNC;
	if ((p[0] >> 4) != 6)
		return UST_WIRE_EVERSION;
	vtf = rte_be_to_cpu_32(ust_ld32_raw(p));
	r->traffic_class = (uint8_t)(vtf >> 20);
	r->flow_label = vtf & 0xfffff;
	r->payload_len = ust_ld16(p + 4);
	r->next_header = p[6];
	r->hop_limit = p[7];
	memcpy(r->src, p + 8, UST_IPV6_ADDR_LEN);
	memcpy(r->dst, p + 24, UST_IPV6_ADDR_LEN);
	if (r->payload_len == 0)
		return UST_WIRE_EUNSUPP; /* a jumbogram (RFC 2675) */
	if (r->payload_len > frame_len - UST_IPV6_HDR_LEN)
		return UST_WIRE_ETRUNC;
	return UST_WIRE_OK;
}

size_t
ust_ipv6_emit(void *buf, size_t len, const struct ust_ipv6_repr *r)
{
	uint8_t *p = buf;
	uint32_t vtf;

	if (len < UST_IPV6_HDR_LEN)
		return 0;
	vtf = 6u << 28 | (uint32_t)r->traffic_class << 20 |
	      (r->flow_label & 0xfffff);
	ust_st32_raw(p, rte_cpu_to_be_32(vtf));
	ust_st16(p + 4, r->payload_len);
	p[6] = r->next_header;
	p[7] = r->hop_limit;
	memcpy(p + 8, r->src, UST_IPV6_ADDR_LEN);
	memcpy(p + 24, r->dst, UST_IPV6_ADDR_LEN);
	return UST_IPV6_HDR_LEN;
}

/* The TLV options of a hop-by-hop or destination options header at @off
 * (its @hlen bytes, readable): 0, or the error with x->err_* set. */
static int
ipv6_options(const uint8_t *p, uint32_t off, uint32_t hlen,
	     struct ust_ipv6_ext_repr *x)
{
	uint32_t i = off + 2, end = off + hlen;

	while (i < end) {
		uint8_t type = p[i];
		uint32_t olen;

		if (type == IPV6_OPT_PAD1) {
			i++;
			continue;
		}
		if (i + 2 > end) {
			x->icmp = true;
			x->err_code = UST_ICMP6_PARAM_HDR;
			x->err_ptr = i;
			return UST_WIRE_EOPTION;
		}
		olen = 2u + p[i + 1];
		if (i + olen > end) {
			x->icmp = true;
			x->err_code = UST_ICMP6_PARAM_HDR;
			x->err_ptr = i + 1;
			return UST_WIRE_EOPTION;
		}
		if (type != IPV6_OPT_PADN) {
			/* RFC 8200 4.2: no option is known to ustack but the
			 * padding (router alert and jumbo payload only matter
			 * to routers and jumbograms); the two high bits say
			 * what to do with one not recognised */
			switch (type >> 6) {
			case 0:
				break;
			case 1:
				x->icmp = false;
				x->err_ptr = i;
				return UST_WIRE_EUNSUPP;
			default:
				/* 11 also wants no answer to a multicast
				 * destination: the caller's to know */
				x->icmp = true;
				x->err_code = UST_ICMP6_PARAM_OPTION;
				x->err_ptr = i;
				return UST_WIRE_EUNSUPP;
			}
		}
		i += olen;
	}
	return UST_WIRE_OK;
}

int
ust_ipv6_ext_parse(const void *buf, size_t len,
		   const struct ust_ipv6_repr *r, struct ust_ipv6_ext_repr *x)
{
	const uint8_t *p = buf;
	/* the packet's end: within the buffer and the payload length */
	uint32_t end = (uint32_t)RTE_MIN(len, UST_IPV6_HDR_LEN +
					 (size_t)r->payload_len);
	uint32_t off = UST_IPV6_HDR_LEN, nh_ptr = 6, n = 0;
	uint8_t nh = r->next_header;
	int rc;

	memset(x, 0, sizeof(*x));
	for (;;) {
		uint32_t hlen;

		switch (nh) {
		case UST_IPV6_NH_HOPOPTS:
		case UST_IPV6_NH_ROUTING:
		case UST_IPV6_NH_DSTOPTS:
		case UST_IPV6_NH_FRAGMENT:
			break;
		default:
			/* the upper layer (known or not: the caller's to
			 * say), or no next header */
			x->upper = nh;
			x->upper_off = (uint16_t)off;
			x->unfrag_len = (uint16_t)off;
			x->err_code = UST_ICMP6_PARAM_NH;
			x->err_ptr = nh_ptr;
			return UST_WIRE_OK;
		}
		if (++n > IPV6_MAX_EXT) {
			x->icmp = false;
			x->err_ptr = nh_ptr;
			return UST_WIRE_EMALFORMED;
		}
		if (nh == UST_IPV6_NH_HOPOPTS && off != UST_IPV6_HDR_LEN) {
			/* RFC 8200 4.1: only right after the fixed header */
			x->icmp = true;
			x->err_code = UST_ICMP6_PARAM_NH;
			x->err_ptr = nh_ptr;
			return UST_WIRE_EMALFORMED;
		}
		if (off + 8 > end) {
			x->icmp = false;
			x->err_ptr = off;
			return UST_WIRE_ETRUNC;
		}
		if (nh == UST_IPV6_NH_FRAGMENT) {
			uint16_t fo = ust_ld16(p + off + 2);
			uint32_t plen = (uint32_t)r->payload_len +
					UST_IPV6_HDR_LEN - (off + 8);

			x->frag = true;
			x->frag_hdr_off = (uint16_t)off;
			x->unfrag_len = (uint16_t)off;
			x->frag_off = fo & 0xfff8;
			x->frag_mf = (fo & 1) != 0;
			x->frag_id = rte_be_to_cpu_32(ust_ld32_raw(p + off + 4));
			x->upper = p[off];
			x->upper_off = (uint16_t)(off + 8);
			/* RFC 8200 4.5: a fragment with more to come is a
			 * multiple of 8 bytes long */
			if (x->frag_mf && (plen & 7) != 0) {
				x->icmp = true;
				x->err_code = UST_ICMP6_PARAM_HDR;
				x->err_ptr = 4;
				return UST_WIRE_EMALFORMED;
			}
			return UST_WIRE_OK;
		}
		hlen = 8u * (1u + p[off + 1]);
		if (off + hlen > end) {
			x->icmp = false;
			x->err_ptr = off + 1;
			return UST_WIRE_ETRUNC;
		}
		if (nh == UST_IPV6_NH_ROUTING) {
			x->rh = true;
			x->rh_type = p[off + 2];
			if (p[off + 3] != 0) {
				/* segments left: ustack routes nothing; type
				 * 0 is gone (RFC 5095), the others are not
				 * recognised by a host that forwards nothing */
				x->icmp = true;
				x->err_code = UST_ICMP6_PARAM_HDR;
				x->err_ptr = off + 2;
				return UST_WIRE_EUNSUPP;
			}
		} else {
			if (nh == UST_IPV6_NH_HOPOPTS)
				x->hbh = true;
			rc = ipv6_options(p, off, hlen, x);
			if (rc != UST_WIRE_OK)
				return rc;
		}
		nh_ptr = off;
		nh = p[off];
		off += hlen;
	}
}

uint16_t
ust_ipv6_phdr_sum(const uint8_t *src, const uint8_t *dst, uint8_t proto,
		  uint32_t l4_len)
{
	struct {
		uint8_t src[UST_IPV6_ADDR_LEN];
		uint8_t dst[UST_IPV6_ADDR_LEN];
		rte_be32_t len;
		uint8_t zero[3];
		uint8_t proto;
	} __rte_packed ph;

	memcpy(ph.src, src, UST_IPV6_ADDR_LEN);
	memcpy(ph.dst, dst, UST_IPV6_ADDR_LEN);
	ph.len = rte_cpu_to_be_32(l4_len);
	memset(ph.zero, 0, sizeof(ph.zero));
	ph.proto = proto;
	return rte_raw_cksum(&ph, sizeof(ph));
}

void
ust_ipv6_solicited_node(const uint8_t *a, uint8_t *out)
{
	static const uint8_t pfx[13] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0,
					 0, 0x01, 0xff };

	memcpy(out, pfx, sizeof(pfx));
	memcpy(out + 13, a + 13, 3);
}

void
ust_ipv6_mcast_mac(const uint8_t *a, struct rte_ether_addr *mac)
{
	mac->addr_bytes[0] = 0x33;
	mac->addr_bytes[1] = 0x33;
	memcpy(&mac->addr_bytes[2], a + 12, 4);
}
