/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Ethernet II: parse and emit the 14-byte header (struct rte_ether_hdr).
 * 802.1Q tags are reported as the ethertype 0x8100 and left to the caller.
 */

#include <string.h>

#include "ust_wire.h"
#include "wire_private.h"

int
ust_eth_parse(const void *buf, size_t len, struct ust_eth_repr *r)
{
	const uint8_t *p = buf;

	if (len < UST_ETH_HDR_LEN)
		return UST_WIRE_ETRUNC;
	memcpy(&r->dst, p, RTE_ETHER_ADDR_LEN);
	memcpy(&r->src, p + RTE_ETHER_ADDR_LEN, RTE_ETHER_ADDR_LEN);
	r->ethertype = ust_ld16(p + 2 * RTE_ETHER_ADDR_LEN);
	return UST_WIRE_OK;
}

size_t
ust_eth_emit(void *buf, size_t len, const struct ust_eth_repr *r)
{
	uint8_t *p = buf;

	if (len < UST_ETH_HDR_LEN)
		return 0;
	memcpy(p, &r->dst, RTE_ETHER_ADDR_LEN);
	memcpy(p + RTE_ETHER_ADDR_LEN, &r->src, RTE_ETHER_ADDR_LEN);
	ust_st16(p + 2 * RTE_ETHER_ADDR_LEN, r->ethertype);
	return UST_ETH_HDR_LEN;
}
