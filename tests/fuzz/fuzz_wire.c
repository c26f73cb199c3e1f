/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * libFuzzer target for the wire layer: every parser over the input (the
 * input buffer is exactly the input's size, so AddressSanitizer catches any
 * read past a length check), with every frame length the stack could pass;
 * what parses is emitted again and must parse to the same repr.
 */

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "ust_wire.h"

static void
check_ipv4_roundtrip(const struct ust_ipv4_repr *r)
{
	uint8_t buf[UST_IPV4_HDR_LEN];
	struct ust_ipv4_repr b = *r, p;

	if (b.total_len < UST_IPV4_HDR_LEN)
		return;
	assert(ust_ipv4_emit(buf, sizeof(buf), &b, 0) == UST_IPV4_HDR_LEN);
	if (ust_ipv4_parse(buf, sizeof(buf), b.total_len, 0, &p) != UST_WIRE_OK)
		abort();
	assert(p.src == b.src && p.dst == b.dst && p.proto == b.proto &&
	       p.ttl == b.ttl && p.id == b.id && p.df == b.df &&
	       p.mf == b.mf && p.frag_off == b.frag_off &&
	       p.total_len == b.total_len && p.hdr_len == 20);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = malloc(size ? size : 1);
	struct ust_eth_repr eth;
	struct ust_arp_repr arp;
	struct ust_ipv4_repr ip;
	struct ust_icmp_repr ic;
	struct ust_udp_repr u;
	size_t frame;

	memcpy(buf, data, size);
	if (ust_eth_parse(buf, size, &eth) == UST_WIRE_OK) {
		uint8_t out[UST_ETH_HDR_LEN];
		struct ust_eth_repr e2;

		assert(ust_eth_emit(out, sizeof(out), &eth) == UST_ETH_HDR_LEN);
		assert(memcmp(out, buf, UST_ETH_HDR_LEN) == 0);
		(void)ust_eth_parse(out, sizeof(out), &e2);
	}
	if (ust_arp_parse(buf, size, &arp) == UST_WIRE_OK) {
		uint8_t out[UST_ARP_LEN];
		struct ust_arp_repr a2;

		assert(ust_arp_emit(out, sizeof(out), &arp) == UST_ARP_LEN);
		assert(ust_arp_parse(out, sizeof(out), &a2) == UST_WIRE_OK);
		assert(a2.op == arp.op && a2.spa == arp.spa &&
		       a2.tpa == arp.tpa);
	}
	/* the IPv4 parser with the frame as long, longer and shorter */
	for (frame = size > 2 ? size - 2 : 0; frame <= size + 2; frame++) {
		int rc = ust_ipv4_parse(buf, size, frame, 0, &ip);

		if (rc != UST_WIRE_OK)
			continue;
		assert(ip.hdr_len >= 20 && ip.hdr_len <= size &&
		       ip.total_len <= frame && ip.total_len >= ip.hdr_len);
		check_ipv4_roundtrip(&ip);
		if (ip.total_len <= size) {
			const uint8_t *l4 = buf + ip.hdr_len;
			size_t l4len = ip.total_len - ip.hdr_len;

			if (ust_icmp_parse(l4, l4len, 0, &ic) == UST_WIRE_OK) {
				assert(ic.data + ic.data_len == l4 + l4len);
				if (ic.embedded_ok)
					assert(ic.embedded_l4 + 8 <= l4 + l4len);
			}
			if (ust_udp_parse(l4, l4len, ip.src, ip.dst, 0, &u) ==
			    UST_WIRE_OK)
				assert(u.len >= 8 && u.len <= l4len);
		}
	}
	/* ICMP and UDP on the raw input, with and without checksums */
	if (ust_icmp_parse(buf, size, UST_WIRE_F_NO_CSUM, &ic) == UST_WIRE_OK) {
		uint8_t *out = malloc(UST_ICMP_HDR_LEN + ic.data_len);

		assert(ust_icmp_emit(out, UST_ICMP_HDR_LEN + ic.data_len, &ic) ==
		       UST_ICMP_HDR_LEN + ic.data_len);
		assert(ust_icmp_parse(out, UST_ICMP_HDR_LEN + ic.data_len, 0,
				      &ic) == UST_WIRE_OK ||
		       ic.type == UST_ICMP_ECHO_REQUEST ||
		       ic.type == UST_ICMP_ECHO_REPLY);
		free(out);
	}
	if (ust_udp_parse(buf, size, 0x0100a8c0, 0x0200a8c0, 0, &u) ==
	    UST_WIRE_OK)
		assert(u.len <= size);
	(void)ust_udp_parse(buf, size, 1, 2, UST_WIRE_F_NO_CSUM, &u);
	free(buf);
	return 0;
}
