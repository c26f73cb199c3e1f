/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * ARP for Ethernet and IPv4 (RFC 826): parse and emit the 28-byte body
 * (struct rte_arp_hdr). Other hardware or protocol types are reported as
 * unsupported, never misread.
 */

#include <string.h>

#include <rte_arp.h>

#include "ust_wire.h"
#include "wire_private.h"

int
ust_arp_parse(const void *buf, size_t len, struct ust_arp_repr *r)
{
	const struct rte_arp_hdr *h = buf;
	const uint8_t *p = buf;

	if (len < UST_ARP_LEN)
		return UST_WIRE_ETRUNC;
	if (ust_ld16(p + offsetof(struct rte_arp_hdr, arp_hardware)) !=
			RTE_ARP_HRD_ETHER ||
	    ust_ld16(p + offsetof(struct rte_arp_hdr, arp_protocol)) !=
			RTE_ETHER_TYPE_IPV4 ||
	    h->arp_hlen != RTE_ETHER_ADDR_LEN || h->arp_plen != 4)
		return UST_WIRE_EUNSUPP;
	r->op = ust_ld16(p + offsetof(struct rte_arp_hdr, arp_opcode));
	if (r->op != RTE_ARP_OP_REQUEST && r->op != RTE_ARP_OP_REPLY)
		return UST_WIRE_EUNSUPP;
	memcpy(&r->sha, p + 8, RTE_ETHER_ADDR_LEN);
	r->spa = ust_ld32_raw(p + 14);
	memcpy(&r->tha, p + 18, RTE_ETHER_ADDR_LEN);
	r->tpa = ust_ld32_raw(p + 24);
	return UST_WIRE_OK;
}

size_t
ust_arp_emit(void *buf, size_t len, const struct ust_arp_repr *r)
{
	uint8_t *p = buf;

	if (len < UST_ARP_LEN)
		return 0;
	ust_st16(p, RTE_ARP_HRD_ETHER);
	ust_st16(p + 2, RTE_ETHER_TYPE_IPV4);
	p[4] = RTE_ETHER_ADDR_LEN;
	p[5] = 4;
	ust_st16(p + 6, r->op);
	memcpy(p + 8, &r->sha, RTE_ETHER_ADDR_LEN);
	ust_st32_raw(p + 14, r->spa);
	memcpy(p + 18, &r->tha, RTE_ETHER_ADDR_LEN);
	ust_st32_raw(p + 24, r->tpa);
	return UST_ARP_LEN;
}
