/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Internal helpers of the wire layer: unaligned big-endian loads and stores.
 * Frames arrive at any alignment (a 14-byte Ethernet header puts IPv4 at
 * offset 14), so fields are read with memcpy, which compilers turn into plain
 * loads on x86 and ARMv8.
 */

#ifndef UST_WIRE_PRIVATE_H
#define UST_WIRE_PRIVATE_H

#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>

static inline uint16_t
ust_ld16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return rte_be_to_cpu_16(v);
}

static inline uint32_t
ust_ld32_raw(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void
ust_st16(uint8_t *p, uint16_t host)
{
	uint16_t v = rte_cpu_to_be_16(host);

	memcpy(p, &v, sizeof(v));
}

static inline void
ust_st32_raw(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

#endif /* UST_WIRE_PRIVATE_H */
