/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Unit tests of the wire layer: hand-built and malformed packets, parsed and
 * emitted without EAL. Checksums are cross-checked against DPDK's own
 * helpers (rte_ipv4_cksum, rte_ipv4_udptcp_cksum), which these tests treat
 * as the independent reference.
 */

#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include <rte_arp.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "ust_wire.h"
#include "ut.h"

#define SRC RTE_BE32(UT_IPV4(198, 18, 0, 1))
#define DST RTE_BE32(UT_IPV4(198, 18, 0, 2))

/* A UDP datagram in @buf: IPv4 (20 + optlen bytes) + UDP + payload. */
static size_t
build_udp(uint8_t *buf, size_t optlen, size_t plen)
{
	struct rte_ipv4_hdr *ih = (struct rte_ipv4_hdr *)buf;
	struct rte_udp_hdr *uh;
	size_t i, hl = 20 + optlen;

	memset(buf, 0, hl + 8 + plen);
	ih->version_ihl = (uint8_t)(0x40 | (hl / 4));
	ih->total_length = rte_cpu_to_be_16((uint16_t)(hl + 8 + plen));
	ih->time_to_live = 64;
	ih->next_proto_id = IPPROTO_UDP;
	ih->src_addr = SRC;
	ih->dst_addr = DST;
	for (i = 0; i < optlen; i++)
		buf[20 + i] = 1; /* NOP */
	ih->hdr_checksum = rte_ipv4_cksum(ih);
	uh = (struct rte_udp_hdr *)(buf + hl);
	uh->src_port = RTE_BE16(5000);
	uh->dst_port = RTE_BE16(7);
	uh->dgram_len = rte_cpu_to_be_16((uint16_t)(8 + plen));
	for (i = 0; i < plen; i++)
		buf[hl + 8 + i] = (uint8_t)(i * 7 + 3);
	uh->dgram_cksum = rte_ipv4_udptcp_cksum(ih, uh);
	return hl + 8 + plen;
}

static void
ipv4_fix_csum(uint8_t *buf)
{
	struct rte_ipv4_hdr *ih = (struct rte_ipv4_hdr *)buf;

	ih->hdr_checksum = 0;
	ih->hdr_checksum = rte_ipv4_cksum(ih);
}

static int
test_eth(void)
{
	uint8_t buf[14];
	struct ust_eth_repr r, p;

	memset(&r, 0, sizeof(r));
	memset(&r.dst, 0xff, 6);
	r.src.addr_bytes[0] = 0x02;
	r.src.addr_bytes[5] = 0x09;
	r.ethertype = RTE_ETHER_TYPE_IPV4;
	UT_EQ(ust_eth_emit(buf, 13, &r), 0);
	UT_EQ(ust_eth_emit(buf, sizeof(buf), &r), 14);
	UT_EQ(buf[12], 0x08);
	UT_EQ(buf[13], 0x00);
	UT_EQ(ust_eth_parse(buf, 13, &p), UST_WIRE_ETRUNC);
	UT_EQ(ust_eth_parse(buf, 14, &p), UST_WIRE_OK);
	UT_EQ(p.ethertype, RTE_ETHER_TYPE_IPV4);
	UT_ASSERT(rte_is_same_ether_addr(&p.src, &r.src));
	UT_ASSERT(rte_is_broadcast_ether_addr(&p.dst));
	return 0;
}

static int
test_arp(void)
{
	uint8_t buf[64];
	struct ust_arp_repr r, p;

	memset(&r, 0, sizeof(r));
	r.op = RTE_ARP_OP_REQUEST;
	r.sha.addr_bytes[0] = 0x02;
	r.spa = SRC;
	r.tpa = DST;
	UT_EQ(ust_arp_emit(buf, 27, &r), 0);
	UT_EQ(ust_arp_emit(buf, sizeof(buf), &r), 28);
	UT_EQ(ust_arp_parse(buf, 28, &p), UST_WIRE_OK);
	UT_EQ(p.op, RTE_ARP_OP_REQUEST);
	UT_EQ(p.spa, SRC);
	UT_EQ(p.tpa, DST);
	UT_ASSERT(rte_is_same_ether_addr(&p.sha, &r.sha));
	/* truncated */
	UT_EQ(ust_arp_parse(buf, 27, &p), UST_WIRE_ETRUNC);
	UT_EQ(ust_arp_parse(buf, 0, &p), UST_WIRE_ETRUNC);
	/* not Ethernet */
	buf[1] = 6;
	UT_EQ(ust_arp_parse(buf, 28, &p), UST_WIRE_EUNSUPP);
	buf[1] = 1;
	/* not IPv4 */
	buf[2] = 0x86;
	buf[3] = 0xdd;
	UT_EQ(ust_arp_parse(buf, 28, &p), UST_WIRE_EUNSUPP);
	buf[2] = 0x08;
	buf[3] = 0x00;
	/* wrong address lengths */
	buf[4] = 8;
	UT_EQ(ust_arp_parse(buf, 28, &p), UST_WIRE_EUNSUPP);
	buf[4] = 6;
	buf[5] = 16;
	UT_EQ(ust_arp_parse(buf, 28, &p), UST_WIRE_EUNSUPP);
	buf[5] = 4;
	/* RARP opcode */
	buf[7] = 3;
	UT_EQ(ust_arp_parse(buf, 28, &p), UST_WIRE_EUNSUPP);
	buf[7] = 2;
	UT_EQ(ust_arp_parse(buf, 28, &p), UST_WIRE_OK);
	UT_EQ(p.op, RTE_ARP_OP_REPLY);
	return 0;
}

static int
test_ipv4_valid(void)
{
	uint8_t buf[256];
	struct ust_ipv4_repr r;
	size_t n = build_udp(buf, 0, 10);

	UT_EQ(ust_ipv4_parse(buf, n, n, 0, &r), UST_WIRE_OK);
	UT_EQ(r.hdr_len, 20);
	UT_EQ(r.total_len, n);
	UT_EQ(r.proto, IPPROTO_UDP);
	UT_EQ(r.ttl, 64);
	UT_EQ(r.src, SRC);
	UT_EQ(r.dst, DST);
	UT_ASSERT(!ust_ipv4_is_fragment(&r));
	/* Ethernet padding: a frame longer than the datagram is fine */
	UT_EQ(ust_ipv4_parse(buf, n, n + 20, 0, &r), UST_WIRE_OK);
	UT_EQ(r.total_len, n);
	return 0;
}

static int
test_ipv4_malformed(void)
{
	uint8_t buf[256];
	struct ust_ipv4_repr r;
	size_t n = build_udp(buf, 0, 10);

	/* truncated below the fixed header */
	UT_EQ(ust_ipv4_parse(buf, 19, 19, 0, &r), UST_WIRE_ETRUNC);
	UT_EQ(ust_ipv4_parse(buf, 0, 0, 0, &r), UST_WIRE_ETRUNC);
	/* version 6 */
	buf[0] = 0x65;
	ipv4_fix_csum(buf);
	UT_EQ(ust_ipv4_parse(buf, n, n, 0, &r), UST_WIRE_EVERSION);
	/* IHL 4 (16 bytes) */
	buf[0] = 0x44;
	UT_EQ(ust_ipv4_parse(buf, n, n, 0, &r), UST_WIRE_EIHL);
	/* IHL 15 (60 bytes) beyond a 38-byte buffer */
	buf[0] = 0x4f;
	UT_EQ(ust_ipv4_parse(buf, n, n, 0, &r), UST_WIRE_EIHL);
	n = build_udp(buf, 0, 10);
	/* total length below the header length */
	buf[2] = 0;
	buf[3] = 19;
	ipv4_fix_csum(buf);
	UT_EQ(ust_ipv4_parse(buf, n, n, 0, &r), UST_WIRE_ELEN);
	/* total length beyond the frame */
	buf[3] = (uint8_t)(n + 1);
	ipv4_fix_csum(buf);
	UT_EQ(ust_ipv4_parse(buf, n, n, 0, &r), UST_WIRE_ETRUNC);
	/* bad checksum */
	n = build_udp(buf, 0, 10);
	buf[10] ^= 0x5a;
	UT_EQ(ust_ipv4_parse(buf, n, n, 0, &r), UST_WIRE_ECSUM);
	/* ... which a NIC-verified packet skips */
	UT_EQ(ust_ipv4_parse(buf, n, n, UST_WIRE_F_NO_CSUM, &r), UST_WIRE_OK);
	return 0;
}

static int
test_ipv4_options(void)
{
	uint8_t buf[256];
	struct ust_ipv4_repr r;
	size_t n;

	/* 8 bytes of NOPs: skipped */
	n = build_udp(buf, 8, 4);
	UT_EQ(ust_ipv4_parse(buf, n, n, 0, &r), UST_WIRE_OK);
	UT_EQ(r.hdr_len, 28);
	/* a timestamp-like option with a valid length, then EOL */
	n = build_udp(buf, 8, 4);
	buf[20] = 68;
	buf[21] = 4;
	buf[24] = 0; /* EOL: the rest is padding */
	buf[25] = 0xee;
	ipv4_fix_csum(buf);
	UT_EQ(ust_ipv4_parse(buf, n, n, 0, &r), UST_WIRE_OK);
	/* option length 1 */
	buf[21] = 1;
	ipv4_fix_csum(buf);
	UT_EQ(ust_ipv4_parse(buf, n, n, 0, &r), UST_WIRE_EOPTION);
	/* option length 0 */
	buf[21] = 0;
	ipv4_fix_csum(buf);
	UT_EQ(ust_ipv4_parse(buf, n, n, 0, &r), UST_WIRE_EOPTION);
	/* option running past the header */
	buf[21] = 9;
	ipv4_fix_csum(buf);
	UT_EQ(ust_ipv4_parse(buf, n, n, 0, &r), UST_WIRE_EOPTION);
	/* option type in the last byte, no room for its length */
	n = build_udp(buf, 4, 4);
	buf[23] = 68;
	ipv4_fix_csum(buf);
	UT_EQ(ust_ipv4_parse(buf, n, n, 0, &r), UST_WIRE_EOPTION);
	return 0;
}

/* ust_ipv4_opt_source_route() over a heap copy of exactly @len bytes, so
 * that a read past the end is an ASan finding */
static int
source_route(const uint8_t *opt, size_t len)
{
	uint8_t *b = malloc(len > 0 ? len : 1);
	int rc;

	if (b == NULL)
		return -100;
	memcpy(b, opt, len);
	rc = ust_ipv4_opt_source_route(b, len);
	free(b);
	return rc;
}

static int
test_ipv4_source_route(void)
{
	/* LSRR with one hop, pointer 4 (RFC 791 p.18), then EOL */
	static const uint8_t lsrr[] = { 131, 7, 4, 198, 18, 0, 9, 0 };
	/* SSRR after a NOP */
	static const uint8_t ssrr[] = { 1, 137, 7, 8, 198, 18, 0, 9 };
	/* an exhausted route (pointer past the length) is still one */
	static const uint8_t done[] = { 131, 3, 8, 0 };
	/* record route (7) and timestamp (68): not source routes */
	static const uint8_t rr[] = { 7, 7, 4, 0, 0, 0, 0, 0 };
	/* pointer below 4; length 2; two source routes */
	static const uint8_t ptr3[] = { 131, 7, 3, 198, 18, 0, 9, 0 };
	static const uint8_t len2[] = { 137, 2, 1, 0 };
	static const uint8_t two[] = { 131, 3, 4, 137, 3, 4, 0, 0 };
	/* a source route after EOL is padding, not an option */
	static const uint8_t padded[] = { 0, 131, 7, 4, 198, 18, 0, 9 };
	/* the type in the last byte; a length past the end */
	static const uint8_t tail[] = { 1, 1, 1, 131 };
	static const uint8_t past[] = { 131, 9, 4, 198, 18, 0, 9, 0 };
	uint8_t hdr[64];
	struct ust_ipv4_repr r;
	size_t n;

	UT_EQ(source_route(lsrr, sizeof(lsrr)), 1);
	UT_EQ(source_route(ssrr, sizeof(ssrr)), 1);
	UT_EQ(source_route(done, sizeof(done)), 1);
	UT_EQ(source_route(rr, sizeof(rr)), 0);
	UT_EQ(source_route(padded, sizeof(padded)), 0);
	UT_EQ(source_route(lsrr, 0), 0);
	UT_EQ(source_route(ptr3, sizeof(ptr3)), UST_WIRE_EOPTION);
	UT_EQ(source_route(len2, sizeof(len2)), UST_WIRE_EOPTION);
	UT_EQ(source_route(two, sizeof(two)), UST_WIRE_EOPTION);
	UT_EQ(source_route(tail, sizeof(tail)), UST_WIRE_EOPTION);
	UT_EQ(source_route(past, sizeof(past)), UST_WIRE_EOPTION);
	/* every truncation of a valid LSRR is refused, never over-read */
	for (n = 1; n < 7; n++)
		UT_EQ(source_route(lsrr, n), UST_WIRE_EOPTION);
	/* the parser still accepts a header carrying one: policy is the
	 * stack's */
	n = build_udp(hdr, 8, 4);
	memcpy(hdr + 20, lsrr, sizeof(lsrr));
	ipv4_fix_csum(hdr);
	UT_EQ(ust_ipv4_parse(hdr, n, n, 0, &r), UST_WIRE_OK);
	UT_EQ(r.hdr_len, 28);
	return 0;
}

static int
test_ipv4_fragments(void)
{
	uint8_t buf[256];
	struct ust_ipv4_repr r;
	size_t n = build_udp(buf, 0, 16);

	/* more fragments */
	buf[6] = 0x20;
	ipv4_fix_csum(buf);
	UT_EQ(ust_ipv4_parse(buf, n, n, 0, &r), UST_WIRE_OK);
	UT_ASSERT(r.mf && ust_ipv4_is_fragment(&r));
	/* offset 185 * 8 = 1480 */
	buf[6] = 0x00;
	buf[7] = 185;
	ipv4_fix_csum(buf);
	UT_EQ(ust_ipv4_parse(buf, n, n, 0, &r), UST_WIRE_OK);
	UT_EQ(r.frag_off, 1480);
	UT_ASSERT(ust_ipv4_is_fragment(&r));
	/* DF alone is not a fragment */
	buf[6] = 0x40;
	buf[7] = 0;
	ipv4_fix_csum(buf);
	UT_EQ(ust_ipv4_parse(buf, n, n, 0, &r), UST_WIRE_OK);
	UT_ASSERT(r.df && !ust_ipv4_is_fragment(&r));
	return 0;
}

static int
test_ipv4_emit(void)
{
	uint8_t buf[64];
	struct ust_ipv4_repr r, p;

	memset(&r, 0, sizeof(r));
	r.src = SRC;
	r.dst = DST;
	r.proto = IPPROTO_ICMP;
	r.ttl = 63;
	r.total_len = 40;
	r.id = 0x1234;
	r.df = true;
	UT_EQ(ust_ipv4_emit(buf, 19, &r, 0), 0);
	UT_EQ(ust_ipv4_emit(buf, sizeof(buf), &r, 0), 20);
	/* the checksum equals DPDK's */
	{
		struct rte_ipv4_hdr h;
		uint16_t ours;

		memcpy(&h, buf, 20);
		ours = h.hdr_checksum;
		h.hdr_checksum = 0;
		UT_EQ(ours, rte_ipv4_cksum(&h));
	}
	UT_EQ(ust_ipv4_parse(buf, 40, 40, 0, &p), UST_WIRE_OK);
	UT_EQ(p.id, 0x1234);
	UT_ASSERT(p.df && !p.mf);
	UT_EQ(p.ttl, 63);
	/* offload: checksum left zero */
	ust_ipv4_emit(buf, sizeof(buf), &r, UST_WIRE_F_CSUM_OFFLOAD);
	UT_EQ(buf[10] | buf[11], 0);
	return 0;
}

static int
test_udp(void)
{
	uint8_t buf[256];
	struct ust_udp_repr u;
	size_t n = build_udp(buf, 0, 10);
	uint8_t *uh = buf + 20;

	UT_EQ(ust_udp_parse(uh, n - 20, SRC, DST, 0, &u), UST_WIRE_OK);
	UT_EQ(u.src_port, 5000);
	UT_EQ(u.dst_port, 7);
	UT_EQ(u.len, 18);
	UT_ASSERT(u.has_csum);
	/* truncated header */
	UT_EQ(ust_udp_parse(uh, 7, SRC, DST, 0, &u), UST_WIRE_ETRUNC);
	/* the pseudo-header is part of the checksum */
	UT_EQ(ust_udp_parse(uh, n - 20, SRC, SRC, 0, &u), UST_WIRE_ECSUM);
	/* a flipped payload byte */
	buf[n - 1] ^= 1;
	UT_EQ(ust_udp_parse(uh, n - 20, SRC, DST, 0, &u), UST_WIRE_ECSUM);
	UT_EQ(ust_udp_parse(uh, n - 20, SRC, DST, UST_WIRE_F_NO_CSUM, &u),
	      UST_WIRE_OK);
	/* checksum 0 means none in IPv4 */
	uh[6] = 0;
	uh[7] = 0;
	UT_EQ(ust_udp_parse(uh, n - 20, SRC, DST, 0, &u), UST_WIRE_OK);
	UT_ASSERT(!u.has_csum);
	/* length field 0 and 7 are invalid */
	uh[4] = 0;
	uh[5] = 0;
	UT_EQ(ust_udp_parse(uh, n - 20, SRC, DST, 0, &u), UST_WIRE_ELEN);
	uh[5] = 7;
	UT_EQ(ust_udp_parse(uh, n - 20, SRC, DST, 0, &u), UST_WIRE_ELEN);
	/* length beyond the IP payload */
	uh[5] = (uint8_t)(n - 20 + 1);
	UT_EQ(ust_udp_parse(uh, n - 20, SRC, DST, 0, &u), UST_WIRE_ELEN);
	/* shorter than the IP payload: accepted, the caller trims */
	uh[5] = 12;
	UT_EQ(ust_udp_parse(uh, n - 20, SRC, DST, 0, &u), UST_WIRE_OK);
	UT_EQ(u.len, 12);
	return 0;
}

static int
test_udp_zero_payload(void)
{
	uint8_t buf[64];
	struct ust_udp_repr u;
	size_t n = build_udp(buf, 0, 0);

	UT_EQ(n, 28);
	UT_EQ(ust_udp_parse(buf + 20, 8, SRC, DST, 0, &u), UST_WIRE_OK);
	UT_EQ(u.len, 8);
	return 0;
}

static int
test_udp_emit(void)
{
	uint8_t buf[256], ref[256];
	struct ust_udp_repr u = { .src_port = 5000, .dst_port = 7, .len = 18 };
	struct rte_ipv4_hdr *ih = (struct rte_ipv4_hdr *)ref;
	size_t n = build_udp(ref, 0, 10);
	uint16_t phdr;

	/* full checksum equals DPDK's */
	memcpy(buf, ref, n);
	UT_EQ(ust_udp_emit(buf + 20, 7, &u, SRC, DST, buf + 28, 0), 0);
	UT_EQ(ust_udp_emit(buf + 20, 8, &u, SRC, DST, buf + 28, 0), 8);
	UT_EQ(memcmp(buf, ref, n), 0);
	/* offload writes the pseudo-header sum DPDK computes */
	ust_udp_emit(buf + 20, 8, &u, SRC, DST, NULL, UST_WIRE_F_CSUM_OFFLOAD);
	memcpy(&phdr, buf + 26, 2);
	UT_EQ(phdr, rte_ipv4_phdr_cksum(ih, 0));
	/* no payload, no offload: checksum 0 ("none") */
	ust_udp_emit(buf + 20, 8, &u, SRC, DST, NULL, 0);
	UT_EQ(buf[26] | buf[27], 0);
	/* a sum of zero is sent as 0xffff (RFC 768) */
	{
		uint8_t z[64];
		struct ust_udp_repr zu;
		uint16_t ck;
		int i;
		bool found = false;

		memset(z, 0, sizeof(z));
		for (i = 0; i < 65536 && !found; i++) {
			zu.src_port = (uint16_t)i;
			zu.dst_port = 7;
			zu.len = 8;
			ust_udp_emit(z, 8, &zu, SRC, DST, z + 8, 0);
			memcpy(&ck, z + 6, 2);
			UT_ASSERT(ck != 0);
			found = ck == 0xffff;
		}
		UT_ASSERT(found, "no port gave a zero sum");
		UT_EQ(ust_udp_parse(z, 8, SRC, DST, 0, &zu), UST_WIRE_OK);
	}
	return 0;
}

static int
test_icmp(void)
{
	uint8_t buf[128], ip[64];
	struct ust_icmp_repr r, p;
	size_t n;

	memset(&r, 0, sizeof(r));
	r.type = UST_ICMP_ECHO_REQUEST;
	r.ident = 0x4242;
	r.seq = 7;
	r.data = (const uint8_t *)"abcdefgh";
	r.data_len = 8;
	n = ust_icmp_emit(buf, sizeof(buf), &r);
	UT_EQ(n, 16);
	UT_EQ(ust_icmp_emit(buf, 15, &r), 0);
	UT_EQ(rte_raw_cksum(buf, n), 0xffff);
	UT_EQ(ust_icmp_parse(buf, n, 0, &p), UST_WIRE_OK);
	UT_EQ(p.type, UST_ICMP_ECHO_REQUEST);
	UT_EQ(p.ident, 0x4242);
	UT_EQ(p.seq, 7);
	UT_EQ(p.data_len, 8);
	UT_EQ(memcmp(p.data, "abcdefgh", 8), 0);
	/* truncated, bad checksum, echo with a code */
	UT_EQ(ust_icmp_parse(buf, 7, 0, &p), UST_WIRE_ETRUNC);
	buf[9] ^= 1;
	UT_EQ(ust_icmp_parse(buf, n, 0, &p), UST_WIRE_ECSUM);
	buf[9] ^= 1;
	r.code = 1;
	n = ust_icmp_emit(buf, sizeof(buf), &r);
	UT_EQ(ust_icmp_parse(buf, n, 0, &p), UST_WIRE_EMALFORMED);

	/* destination unreachable quoting a UDP datagram */
	build_udp(ip, 0, 4);
	memset(&r, 0, sizeof(r));
	r.type = UST_ICMP_DEST_UNREACH;
	r.code = UST_ICMP_CODE_PORT_UNREACH;
	r.data = ip;
	r.data_len = 28;
	n = ust_icmp_emit(buf, sizeof(buf), &r);
	UT_EQ(ust_icmp_parse(buf, n, 0, &p), UST_WIRE_OK);
	UT_ASSERT(p.embedded_ok);
	UT_EQ(p.embedded.proto, IPPROTO_UDP);
	UT_EQ(p.embedded.dst, DST);
	UT_EQ(p.embedded_l4[1], 5000 & 0xff);
	/* quoting fewer than 8 bytes of L4: not usable */
	r.data_len = 27;
	n = ust_icmp_emit(buf, sizeof(buf), &r);
	UT_EQ(ust_icmp_parse(buf, n, 0, &p), UST_WIRE_OK);
	UT_ASSERT(!p.embedded_ok);
	/* a garbage quote is not usable either */
	memset(ip, 0xab, sizeof(ip));
	r.data_len = 28;
	n = ust_icmp_emit(buf, sizeof(buf), &r);
	UT_EQ(ust_icmp_parse(buf, n, 0, &p), UST_WIRE_OK);
	UT_ASSERT(!p.embedded_ok);
	/* frag needed carries the MTU */
	build_udp(ip, 0, 4);
	r.code = UST_ICMP_CODE_FRAG_NEEDED;
	r.mtu = 1400;
	n = ust_icmp_emit(buf, sizeof(buf), &r);
	UT_EQ(ust_icmp_parse(buf, n, 0, &p), UST_WIRE_OK);
	UT_EQ(p.mtu, 1400);
	return 0;
}

static int
test_strerror(void)
{
	int e;

	for (e = UST_WIRE_EMALFORMED; e <= UST_WIRE_OK; e++)
		UT_ASSERT(strcmp(ust_wire_strerror(e), "unknown error") != 0);
	UT_ASSERT(strcmp(ust_wire_strerror(-100), "unknown error") == 0);
	return 0;
}


/* An IPv4 header in front of a TCP segment, to check checksums with DPDK. */
static void
ipv4_for(uint8_t *buf, size_t l4len)
{
	struct rte_ipv4_hdr *ih = (struct rte_ipv4_hdr *)buf;

	memset(ih, 0, 20);
	ih->version_ihl = 0x45;
	ih->total_length = rte_cpu_to_be_16((uint16_t)(20 + l4len));
	ih->time_to_live = 64;
	ih->next_proto_id = IPPROTO_TCP;
	ih->src_addr = SRC;
	ih->dst_addr = DST;
}

static int
test_tcp_syn_roundtrip(void)
{
	uint8_t buf[128];
	struct ust_tcp_repr r, p;
	size_t h;

	memset(&r, 0, sizeof(r));
	r.src_port = 40000;
	r.dst_port = 80;
	r.seq = 0xfffffff0;
	r.flags = UST_TCP_SYN;
	r.window = 65535;
	r.opts.has = UST_TCPOPT_MSS | UST_TCPOPT_WS | UST_TCPOPT_SACK_PERM |
		     UST_TCPOPT_TS;
	r.opts.mss = 1460;
	r.opts.wscale = 7;
	r.opts.tsval = 123456;
	UT_EQ(ust_tcp_opts_len(&r.opts, true), 20);
	UT_EQ(ust_tcp_emit(buf + 20, 39, &r, SRC, DST, NULL, 0, 0), 0);
	h = ust_tcp_emit(buf + 20, 60, &r, SRC, DST, NULL, 0, 0);
	UT_EQ(h, 40);
	UT_EQ(r.hdr_len, 40);
	/* DPDK agrees on the checksum */
	ipv4_for(buf, h);
	UT_EQ(rte_ipv4_udptcp_cksum_verify((struct rte_ipv4_hdr *)buf,
					   buf + 20), 0);
	UT_EQ(ust_tcp_parse(buf + 20, h, SRC, DST, 0, &p), UST_WIRE_OK);
	UT_EQ(p.src_port, 40000);
	UT_EQ(p.seq, 0xfffffff0);
	UT_EQ(p.flags, UST_TCP_SYN);
	UT_EQ(p.hdr_len, 40);
	UT_EQ(p.opts.has, r.opts.has);
	UT_EQ(p.opts.mss, 1460);
	UT_EQ(p.opts.wscale, 7);
	UT_EQ(p.opts.tsval, 123456);
	/* without timestamps, SACK-permitted takes its own word */
	r.opts.has = UST_TCPOPT_MSS | UST_TCPOPT_SACK_PERM;
	h = ust_tcp_emit(buf + 20, 60, &r, SRC, DST, NULL, 0, 0);
	UT_EQ(h, 28);
	UT_EQ(ust_tcp_parse(buf + 20, h, SRC, DST, 0, &p), UST_WIRE_OK);
	UT_EQ(p.opts.has, UST_TCPOPT_MSS | UST_TCPOPT_SACK_PERM);
	return 0;
}

static int
test_tcp_data_sack(void)
{
	uint8_t buf[256];
	struct ust_tcp_repr r, p;
	const char *data = "hello, tcp";
	size_t h;
	unsigned int k;

	memset(&r, 0, sizeof(r));
	r.src_port = 80;
	r.dst_port = 40000;
	r.seq = 1000;
	r.ack = 2000;
	r.flags = UST_TCP_ACK | UST_TCP_PSH;
	r.window = 512;
	r.opts.has = UST_TCPOPT_TS | UST_TCPOPT_SACK;
	r.opts.tsval = 7;
	r.opts.tsecr = 9;
	r.opts.nsack = 4;
	for (k = 0; k < 4; k++) {
		r.opts.sack[k].start = 3000 + 100 * k;
		r.opts.sack[k].end = 3050 + 100 * k;
	}
	/* with timestamps only 3 SACK blocks fit in 40 bytes */
	UT_EQ(ust_tcp_opts_len(&r.opts, false), 40);
	memcpy(buf + 20 + 60, data, 10);
	h = ust_tcp_emit(buf + 20, 60, &r, SRC, DST, buf + 80, 10, 0);
	UT_EQ(h, 60);
	memmove(buf + 20 + h, buf + 80, 10);
	ipv4_for(buf, h + 10);
	UT_EQ(rte_ipv4_udptcp_cksum_verify((struct rte_ipv4_hdr *)buf,
					   buf + 20), 0);
	UT_EQ(ust_tcp_parse(buf + 20, h + 10, SRC, DST, 0, &p), UST_WIRE_OK);
	UT_EQ(p.opts.nsack, 3);
	UT_EQ(p.opts.sack[2].start, 3200);
	UT_EQ(p.opts.tsecr, 9);
	UT_EQ(p.ack, 2000);
	UT_EQ(p.window, 512);
	/* a corrupted payload byte */
	buf[20 + h + 3] ^= 1;
	UT_EQ(ust_tcp_parse(buf + 20, h + 10, SRC, DST, 0, &p), UST_WIRE_ECSUM);
	UT_EQ(ust_tcp_parse(buf + 20, h + 10, SRC, DST, UST_WIRE_F_NO_CSUM,
			    &p), UST_WIRE_OK);
	/* without timestamps, four */
	r.opts.has = UST_TCPOPT_SACK;
	UT_EQ(ust_tcp_opts_len(&r.opts, false), 36);
	/* offload: the pseudo-header sum */
	r.opts.has = 0;
	h = ust_tcp_emit(buf + 20, 60, &r, SRC, DST, NULL, 10,
			 UST_WIRE_F_CSUM_OFFLOAD);
	ipv4_for(buf, h + 10);
	{
		uint16_t ck;

		memcpy(&ck, buf + 20 + 16, 2);
		UT_EQ(ck, rte_ipv4_phdr_cksum((struct rte_ipv4_hdr *)buf, 0));
	}
	return 0;
}

/* A header of @hlen bytes whose options are @opt (checksum not checked). */
static int
tcp_opts_parse(const uint8_t *opt, size_t olen, struct ust_tcp_repr *r)
{
	uint8_t buf[60];

	memset(buf, 0, sizeof(buf));
	buf[12] = (uint8_t)(((20 + olen) / 4) << 4);
	memcpy(buf + 20, opt, olen);
	return ust_tcp_parse(buf, 20 + olen, SRC, DST, UST_WIRE_F_NO_CSUM, r);
}

static int
test_tcp_malformed(void)
{
	uint8_t buf[64];
	struct ust_tcp_repr r;

	memset(buf, 0, sizeof(buf));
	buf[12] = 5 << 4;
	UT_EQ(ust_tcp_parse(buf, 19, SRC, DST, UST_WIRE_F_NO_CSUM, &r),
	      UST_WIRE_ETRUNC);
	UT_EQ(ust_tcp_parse(buf, 20, SRC, DST, UST_WIRE_F_NO_CSUM, &r),
	      UST_WIRE_OK);
	/* data offset below 5 words */
	buf[12] = 4 << 4;
	UT_EQ(ust_tcp_parse(buf, 20, SRC, DST, UST_WIRE_F_NO_CSUM, &r),
	      UST_WIRE_ELEN);
	/* data offset beyond the segment */
	buf[12] = 15 << 4;
	UT_EQ(ust_tcp_parse(buf, 40, SRC, DST, UST_WIRE_F_NO_CSUM, &r),
	      UST_WIRE_ETRUNC);
	{
		/* an option running past the header */
		static const uint8_t past[] = { 8, 10, 0, 0 };
		/* option length 1, and 0 */
		static const uint8_t len1[] = { 30, 1, 0, 0 };
		static const uint8_t len0[] = { 30, 0, 0, 0 };
		/* MSS of the wrong size */
		static const uint8_t mss3[] = { 2, 3, 5, 0 };
		/* a kind in the last byte, no room for its length */
		static const uint8_t tail[] = { 1, 1, 1, 8 };
		/* SACK of 9 bytes */
		static const uint8_t sack9[] = { 5, 9, 0, 0, 0, 1, 0, 0, 0,
						 2, 0, 0 };
		/* window scale 15: read as 14 */
		static const uint8_t ws15[] = { 1, 3, 3, 15 };
		/* MSS 0: parsed, for the stack to ignore */
		static const uint8_t mss0[] = { 2, 4, 0, 0 };
		/* an unknown option is skipped; EOL ends the list */
		static const uint8_t unk[] = { 99, 4, 1, 2, 0, 8, 10, 0 };

		UT_EQ(tcp_opts_parse(past, 4, &r), UST_WIRE_EOPTION);
		UT_EQ(tcp_opts_parse(len1, 4, &r), UST_WIRE_EOPTION);
		UT_EQ(tcp_opts_parse(len0, 4, &r), UST_WIRE_EOPTION);
		UT_EQ(tcp_opts_parse(mss3, 4, &r), UST_WIRE_EOPTION);
		UT_EQ(tcp_opts_parse(tail, 4, &r), UST_WIRE_EOPTION);
		UT_EQ(tcp_opts_parse(sack9, 12, &r), UST_WIRE_EOPTION);
		UT_EQ(tcp_opts_parse(ws15, 4, &r), UST_WIRE_OK);
		UT_EQ(r.opts.wscale, 14);
		UT_EQ(tcp_opts_parse(mss0, 4, &r), UST_WIRE_OK);
		UT_ASSERT(r.opts.has & UST_TCPOPT_MSS);
		UT_EQ(r.opts.mss, 0);
		UT_EQ(tcp_opts_parse(unk, 8, &r), UST_WIRE_OK);
		UT_EQ(r.opts.has, 0);
	}
	return 0;
}


/* ---- IPv6 ---- */

static const uint8_t SRC6[16] = { 0x20, 0x01, 0x00, 0x02, 0, 0, 0, 0,
				  0, 0, 0, 0, 0, 0, 0, 0x01 };
static const uint8_t DST6[16] = { 0x20, 0x01, 0x00, 0x02, 0, 0, 0, 0,
				  0, 0, 0, 0, 0x12, 0x34, 0x56, 0x02 };

/* an IPv6 header for @plen payload bytes after it, next header @nh */
static void
build_ipv6(uint8_t *buf, uint8_t nh, uint16_t plen)
{
	struct ust_ipv6_repr r;

	memset(&r, 0, sizeof(r));
	memcpy(r.src, SRC6, 16);
	memcpy(r.dst, DST6, 16);
	r.traffic_class = 0xb8;
	r.flow_label = 0xabcde;
	r.payload_len = plen;
	r.next_header = nh;
	r.hop_limit = 64;
	ust_ipv6_emit(buf, 40, &r);
}

static int
test_ipv6(void)
{
	uint8_t b[128];
	struct ust_ipv6_repr r;
	struct rte_ipv6_hdr *h = (struct rte_ipv6_hdr *)b;

	build_ipv6(b, UST_IPV6_NH_UDP, 20);
	/* the layout DPDK's header has */
	UT_EQ(rte_be_to_cpu_32(h->vtc_flow), 6u << 28 | 0xb8u << 20 | 0xabcde);
	UT_EQ(rte_be_to_cpu_16(h->payload_len), 20);
	UT_EQ(h->proto, 17);
	UT_EQ(h->hop_limits, 64);
	UT_EQ(ust_ipv6_parse(b, 60, 60, &r), UST_WIRE_OK);
	UT_EQ(r.traffic_class, 0xb8);
	UT_EQ(r.flow_label, 0xabcde);
	UT_EQ(r.payload_len, 20);
	UT_EQ(memcmp(r.src, SRC6, 16), 0);
	UT_EQ(memcmp(r.dst, DST6, 16), 0);
	/* padding after the payload is the caller's to trim */
	UT_EQ(ust_ipv6_parse(b, 64, 64, &r), UST_WIRE_OK);
	UT_EQ(ust_ipv6_parse(b, 39, 60, &r), UST_WIRE_ETRUNC);
	UT_EQ(ust_ipv6_parse(b, 59, 59, &r), UST_WIRE_ETRUNC);
	b[0] = 0x45;
	UT_EQ(ust_ipv6_parse(b, 60, 60, &r), UST_WIRE_EVERSION);
	build_ipv6(b, UST_IPV6_NH_UDP, 0);
	UT_EQ(ust_ipv6_parse(b, 60, 60, &r), UST_WIRE_EUNSUPP);
	UT_EQ(ust_ipv6_emit(b, 39, &r), 0);
	return 0;
}

/* extension headers after a fixed header, then 8 bytes of UDP */
static size_t
build_ext(uint8_t *b, const uint8_t *ext, size_t elen, uint8_t first)
{
	build_ipv6(b, first, (uint16_t)(elen + 8));
	if (elen > 0)
		memcpy(b + 40, ext, elen);
	memset(b + 40 + elen, 0, 8);
	return 40 + elen + 8;
}

static int
test_ipv6_ext(void)
{
	uint8_t b[256];
	struct ust_ipv6_repr r;
	struct ust_ipv6_ext_repr x;
	size_t n;
	/* hop-by-hop (PadN 4), destination options (Pad1 x6), routing type
	 * 4 with no segment left, then UDP */
	static const uint8_t chain[] = {
		UST_IPV6_NH_DSTOPTS, 0, 1, 4, 0, 0, 0, 0,
		UST_IPV6_NH_ROUTING, 0, 0, 0, 0, 0, 0, 0,
		UST_IPV6_NH_UDP, 0, 4, 0, 0, 0, 0, 0,
	};
	static const uint8_t hbh_late[] = {
		UST_IPV6_NH_HOPOPTS, 0, 1, 4, 0, 0, 0, 0,
		UST_IPV6_NH_UDP, 0, 1, 4, 0, 0, 0, 0,
	};
	static const uint8_t rh0[] = {
		UST_IPV6_NH_UDP, 2, 0, 1, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	};
	/* unknown options: action 00 (skipped), 01, 10 */
	static const uint8_t opt00[] = { UST_IPV6_NH_UDP, 0, 0x1e, 2, 0, 0,
					 1, 0 };
	static const uint8_t opt01[] = { UST_IPV6_NH_UDP, 0, 0x5e, 2, 0, 0,
					 1, 0 };
	static const uint8_t opt10[] = { UST_IPV6_NH_UDP, 0, 1, 0, 0x9e, 2,
					 0, 0 };
	static const uint8_t opt_past[] = { UST_IPV6_NH_UDP, 0, 1, 9, 0, 0,
					    0, 0 };
	/* fragment headers: offset 1480 with more, an odd length with more */
	static const uint8_t frag[] = { UST_IPV6_NH_UDP, 0, 0x05, 0xc9,
					0xde, 0xad, 0xbe, 0xef };
	static const uint8_t long_hdr[] = { UST_IPV6_NH_UDP, 3, 0, 0, 0, 0,
					    0, 0 };
	uint8_t many[9 * 8];
	unsigned int i;

	n = build_ext(b, chain, sizeof(chain), UST_IPV6_NH_HOPOPTS);
	UT_EQ(ust_ipv6_parse(b, n, n, &r), UST_WIRE_OK);
	UT_EQ(ust_ipv6_ext_parse(b, n, &r, &x), UST_WIRE_OK);
	UT_EQ(x.upper, UST_IPV6_NH_UDP);
	UT_EQ(x.upper_off, 40 + 24);
	UT_ASSERT(x.hbh && x.rh && !x.frag);
	UT_EQ(x.rh_type, 4);
	/* no extension header at all */
	n = build_ext(b, NULL, 0, UST_IPV6_NH_UDP);
	UT_EQ(ust_ipv6_parse(b, n, n, &r), UST_WIRE_OK);
	UT_EQ(ust_ipv6_ext_parse(b, n, &r, &x), UST_WIRE_OK);
	UT_EQ(x.upper_off, 40);
	/* hop-by-hop after another header: code 1 at the field naming it */
	n = build_ext(b, hbh_late, sizeof(hbh_late), UST_IPV6_NH_DSTOPTS);
	UT_EQ(ust_ipv6_parse(b, n, n, &r), UST_WIRE_OK);
	UT_EQ(ust_ipv6_ext_parse(b, n, &r, &x), UST_WIRE_EMALFORMED);
	UT_ASSERT(x.icmp);
	UT_EQ(x.err_code, UST_ICMP6_PARAM_NH);
	UT_EQ(x.err_ptr, 40);
	/* routing type 0 with a segment left (RFC 5095): code 0, the type */
	n = build_ext(b, rh0, sizeof(rh0), UST_IPV6_NH_ROUTING);
	UT_EQ(ust_ipv6_parse(b, n, n, &r), UST_WIRE_OK);
	UT_EQ(ust_ipv6_ext_parse(b, n, &r, &x), UST_WIRE_EUNSUPP);
	UT_ASSERT(x.icmp);
	UT_EQ(x.err_code, UST_ICMP6_PARAM_HDR);
	UT_EQ(x.err_ptr, 42);
	UT_EQ(x.rh_type, 0);
	/* options by their action bits */
	n = build_ext(b, opt00, sizeof(opt00), UST_IPV6_NH_DSTOPTS);
	UT_EQ(ust_ipv6_parse(b, n, n, &r), UST_WIRE_OK);
	UT_EQ(ust_ipv6_ext_parse(b, n, &r, &x), UST_WIRE_OK);
	n = build_ext(b, opt01, sizeof(opt01), UST_IPV6_NH_DSTOPTS);
	UT_EQ(ust_ipv6_ext_parse(b, n, &r, &x), UST_WIRE_EUNSUPP);
	UT_ASSERT(!x.icmp);
	n = build_ext(b, opt10, sizeof(opt10), UST_IPV6_NH_HOPOPTS);
	UT_EQ(ust_ipv6_ext_parse(b, n, &r, &x), UST_WIRE_EUNSUPP);
	UT_ASSERT(x.icmp);
	UT_EQ(x.err_code, UST_ICMP6_PARAM_OPTION);
	UT_EQ(x.err_ptr, 44);
	n = build_ext(b, opt_past, sizeof(opt_past), UST_IPV6_NH_DSTOPTS);
	UT_EQ(ust_ipv6_ext_parse(b, n, &r, &x), UST_WIRE_EOPTION);
	UT_EQ(x.err_code, UST_ICMP6_PARAM_HDR);
	/* a fragment header ends the walk */
	n = build_ext(b, frag, sizeof(frag), UST_IPV6_NH_FRAGMENT);
	UT_EQ(ust_ipv6_parse(b, n, n, &r), UST_WIRE_OK);
	UT_EQ(ust_ipv6_ext_parse(b, n, &r, &x), UST_WIRE_OK);
	UT_ASSERT(x.frag && x.frag_mf);
	UT_EQ(x.frag_off, 1480);
	UT_EQ(x.frag_id, 0xdeadbeef);
	UT_EQ(x.frag_hdr_off, 40);
	UT_EQ(x.unfrag_len, 40);
	UT_EQ(x.upper, UST_IPV6_NH_UDP);
	UT_EQ(x.upper_off, 48);
	/* ... with more to come, a piece not a multiple of 8 */
	build_ipv6(b, UST_IPV6_NH_FRAGMENT, 8 + 7);
	memcpy(b + 40, frag, 8);
	UT_EQ(ust_ipv6_parse(b, 55, 55, &r), UST_WIRE_OK);
	UT_EQ(ust_ipv6_ext_parse(b, 55, &r, &x), UST_WIRE_EMALFORMED);
	UT_EQ(x.err_code, UST_ICMP6_PARAM_HDR);
	UT_EQ(x.err_ptr, 4);
	/* a header longer than the packet; one cut by the buffer */
	n = build_ext(b, long_hdr, sizeof(long_hdr), UST_IPV6_NH_DSTOPTS);
	UT_EQ(ust_ipv6_parse(b, n, n, &r), UST_WIRE_OK);
	UT_EQ(ust_ipv6_ext_parse(b, n, &r, &x), UST_WIRE_ETRUNC);
	n = build_ext(b, chain, sizeof(chain), UST_IPV6_NH_HOPOPTS);
	UT_EQ(ust_ipv6_parse(b, n, n, &r), UST_WIRE_OK);
	UT_EQ(ust_ipv6_ext_parse(b, 50, &r, &x), UST_WIRE_ETRUNC);
	/* nine destination options headers */
	for (i = 0; i < 9; i++) {
		memset(many + 8 * i, 0, 8);
		many[8 * i] = i < 8 ? UST_IPV6_NH_DSTOPTS : UST_IPV6_NH_UDP;
	}
	n = build_ext(b, many, sizeof(many), UST_IPV6_NH_DSTOPTS);
	UT_EQ(ust_ipv6_parse(b, n, n, &r), UST_WIRE_OK);
	UT_EQ(ust_ipv6_ext_parse(b, n, &r, &x), UST_WIRE_EMALFORMED);
	return 0;
}

/* DPDK's checksum of an ICMPv6 message @m (@len bytes) with no extension
 * header between: the independent reference */
static uint16_t
ref_icmp6_cksum(const uint8_t *m, size_t len)
{
	uint8_t b[1600];
	struct rte_ipv6_hdr *h = (struct rte_ipv6_hdr *)b;

	build_ipv6(b, UST_IPV6_NH_ICMPV6, (uint16_t)len);
	memcpy(b + 40, m, len);
	b[40 + 2] = 0;
	b[40 + 3] = 0;
	return rte_ipv6_udptcp_cksum(h, b + 40);
}

static int
test_icmp6(void)
{
	uint8_t m[256], data[20];
	struct ust_icmp6_repr r, p;
	uint16_t ck;
	size_t n, i;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 3);
	memset(&r, 0, sizeof(r));
	r.type = UST_ICMP6_ECHO_REQUEST;
	r.ident = 0x1234;
	r.seq = 7;
	r.data = data;
	r.data_len = sizeof(data);
	n = ust_icmp6_emit(m, sizeof(m), SRC6, DST6, &r);
	UT_EQ(n, 8 + sizeof(data));
	memcpy(&ck, m + 2, 2);
	UT_EQ(ck, ref_icmp6_cksum(m, n));
	UT_EQ(ust_icmp6_parse(m, n, SRC6, DST6, 0, &p), UST_WIRE_OK);
	UT_EQ(p.type, UST_ICMP6_ECHO_REQUEST);
	UT_EQ(p.ident, 0x1234);
	UT_EQ(p.seq, 7);
	UT_EQ(p.data_len, sizeof(data));
	UT_EQ(memcmp(p.data, data, sizeof(data)), 0);
	/* the pseudo-header counts: other addresses, a bad sum */
	UT_EQ(ust_icmp6_parse(m, n, DST6, SRC6, 0, &p), UST_WIRE_OK);
	UT_EQ(ust_icmp6_parse(m, n, SRC6, SRC6, 0, &p), UST_WIRE_ECSUM);
	UT_EQ(ust_icmp6_parse(m, n, SRC6, SRC6, UST_WIRE_F_NO_CSUM, &p),
	      UST_WIRE_OK);
	m[10] ^= 1;
	UT_EQ(ust_icmp6_parse(m, n, SRC6, DST6, 0, &p), UST_WIRE_ECSUM);
	UT_EQ(ust_icmp6_parse(m, 7, SRC6, DST6, 0, &p), UST_WIRE_ETRUNC);
	UT_EQ(ust_icmp6_emit(m, n - 1, SRC6, DST6, &r), 0);
	/* packet too big quoting an IPv6 header */
	{
		uint8_t q[48];

		build_ipv6(q, UST_IPV6_NH_UDP, 1452);
		memset(&r, 0, sizeof(r));
		r.type = UST_ICMP6_PKT_TOO_BIG;
		r.param = 1280;
		r.data = q;
		r.data_len = sizeof(q);
		n = ust_icmp6_emit(m, sizeof(m), SRC6, DST6, &r);
		UT_EQ(ust_icmp6_parse(m, n, SRC6, DST6, 0, &p), UST_WIRE_OK);
		UT_EQ(p.param, 1280);
		UT_ASSERT(p.embedded_ok);
		UT_EQ(p.embedded.payload_len, 1452);
		UT_EQ(p.embedded.next_header, UST_IPV6_NH_UDP);
	}
	return 0;
}

static int
test_nd(void)
{
	uint8_t m[256];
	struct ust_icmp6_repr r, p;
	struct rte_ether_addr mac = { { 0x02, 0, 0, 0, 0, 0x42 } };
	uint8_t sn[16];
	uint16_t ck;
	size_t n;

	/* NS with the sender's link-layer address */
	memset(&r, 0, sizeof(r));
	r.type = UST_ICMP6_ND_NS;
	memcpy(r.target, DST6, 16);
	r.nd.has_slla = true;
	r.nd.slla = mac;
	ust_ipv6_solicited_node(DST6, sn);
	n = ust_icmp6_emit(m, sizeof(m), SRC6, sn, &r);
	UT_EQ(n, 32);
	UT_EQ(ust_icmp6_parse(m, n, SRC6, sn, 0, &p), UST_WIRE_OK);
	UT_EQ(p.type, UST_ICMP6_ND_NS);
	UT_EQ(memcmp(p.target, DST6, 16), 0);
	UT_ASSERT(p.nd.has_slla && !p.nd.has_tlla);
	UT_ASSERT(rte_is_same_ether_addr(&p.nd.slla, &mac));
	/* ff02::1:ff34:5602 and its MAC 33:33:ff:34:56:02 */
	{
		static const uint8_t want[16] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0,
			0, 0, 0, 0x01, 0xff, 0x34, 0x56, 0x02 };
		struct rte_ether_addr mm;

		UT_EQ(memcmp(sn, want, 16), 0);
		UT_ASSERT(ust_ipv6_is_multicast(sn));
		UT_ASSERT(!ust_ipv6_is_multicast(DST6));
		ust_ipv6_mcast_mac(sn, &mm);
		UT_EQ(mm.addr_bytes[0], 0x33);
		UT_EQ(mm.addr_bytes[1], 0x33);
		UT_EQ(mm.addr_bytes[2], 0xff);
		UT_EQ(mm.addr_bytes[5], 0x02);
	}
	/* NA, solicited and override, with the target's address */
	memset(&r, 0, sizeof(r));
	r.type = UST_ICMP6_ND_NA;
	r.flags = UST_ND_NA_SOLICITED | UST_ND_NA_OVERRIDE;
	memcpy(r.target, DST6, 16);
	r.nd.has_tlla = true;
	r.nd.tlla = mac;
	n = ust_icmp6_emit(m, sizeof(m), SRC6, DST6, &r);
	UT_EQ(n, 32);
	memcpy(&ck, m + 2, 2);
	UT_EQ(ck, ref_icmp6_cksum(m, n));
	UT_EQ(ust_icmp6_parse(m, n, SRC6, DST6, 0, &p), UST_WIRE_OK);
	UT_EQ(p.flags, UST_ND_NA_SOLICITED | UST_ND_NA_OVERRIDE);
	UT_ASSERT(p.nd.has_tlla);
	/* RA with a prefix and the MTU */
	memset(&r, 0, sizeof(r));
	r.type = UST_ICMP6_ND_RA;
	r.cur_hop_limit = 64;
	r.flags = UST_ND_RA_OTHER;
	r.router_lifetime = 1800;
	r.reachable_ms = 30000;
	r.retrans_ms = 1000;
	r.nd.has_slla = true;
	r.nd.slla = mac;
	r.nd.has_prefix = true;
	r.nd.prefix_len = 64;
	r.nd.prefix_flags = UST_ND_PREFIX_ONLINK | UST_ND_PREFIX_AUTO;
	r.nd.prefix_valid = 86400;
	r.nd.prefix_preferred = 14400;
	memcpy(r.nd.prefix, DST6, 8);
	r.nd.has_mtu = true;
	r.nd.mtu = 1500;
	n = ust_icmp6_emit(m, sizeof(m), SRC6, DST6, &r);
	UT_EQ(n, 16 + 8 + 32 + 8);
	UT_EQ(ust_icmp6_parse(m, n, SRC6, DST6, 0, &p), UST_WIRE_OK);
	UT_EQ(p.cur_hop_limit, 64);
	UT_EQ(p.router_lifetime, 1800);
	UT_EQ(p.reachable_ms, 30000);
	UT_EQ(p.retrans_ms, 1000);
	UT_ASSERT(p.nd.has_prefix && p.nd.has_mtu && p.nd.has_slla);
	UT_EQ(p.nd.prefix_len, 64);
	UT_EQ(p.nd.prefix_valid, 86400);
	UT_EQ(p.nd.prefix_preferred, 14400);
	UT_EQ(p.nd.mtu, 1500);
	UT_EQ(memcmp(p.nd.prefix, DST6, 8), 0);
	/* an option of length 0, one past the end, a wrong-sized LLA, a
	 * prefix length above 128: malformed; an unknown option: skipped */
	m[16 + 1] = 0;
	UT_EQ(ust_icmp6_parse(m, n, SRC6, DST6, UST_WIRE_F_NO_CSUM, &p),
	      UST_WIRE_EMALFORMED);
	m[16 + 1] = 20;
	UT_EQ(ust_icmp6_parse(m, n, SRC6, DST6, UST_WIRE_F_NO_CSUM, &p),
	      UST_WIRE_EMALFORMED);
	m[16 + 1] = 2;
	UT_EQ(ust_icmp6_parse(m, n, SRC6, DST6, UST_WIRE_F_NO_CSUM, &p),
	      UST_WIRE_EMALFORMED);
	m[16 + 1] = 1;
	m[24 + 2] = 129;
	UT_EQ(ust_icmp6_parse(m, n, SRC6, DST6, UST_WIRE_F_NO_CSUM, &p),
	      UST_WIRE_EMALFORMED);
	m[24 + 2] = 64;
	m[16] = 99;
	UT_EQ(ust_icmp6_parse(m, n, SRC6, DST6, UST_WIRE_F_NO_CSUM, &p),
	      UST_WIRE_OK);
	UT_ASSERT(!p.nd.has_slla && p.nd.has_prefix);
	/* an option cut by the message's end; an NS cut before its target */
	UT_EQ(ust_icmp6_parse(m, 20, SRC6, DST6, UST_WIRE_F_NO_CSUM, &p),
	      UST_WIRE_EMALFORMED);
	m[0] = UST_ICMP6_ND_NS;
	UT_EQ(ust_icmp6_parse(m, 23, SRC6, DST6, UST_WIRE_F_NO_CSUM, &p),
	      UST_WIRE_ETRUNC);
	return 0;
}

static const struct ut_case cases[] = {
	{ "eth", test_eth },
	{ "arp", test_arp },
	{ "ipv4_valid", test_ipv4_valid },
	{ "ipv4_malformed", test_ipv4_malformed },
	{ "ipv4_options", test_ipv4_options },
	{ "ipv4_source_route", test_ipv4_source_route },
	{ "ipv4_fragments", test_ipv4_fragments },
	{ "ipv4_emit", test_ipv4_emit },
	{ "udp", test_udp },
	{ "udp_zero_payload", test_udp_zero_payload },
	{ "udp_emit", test_udp_emit },
	{ "icmp", test_icmp },
	{ "strerror", test_strerror },
	{ "tcp_syn_roundtrip", test_tcp_syn_roundtrip },
	{ "tcp_data_sack", test_tcp_data_sack },
	{ "tcp_malformed", test_tcp_malformed },
	{ "ipv6", test_ipv6 },
	{ "ipv6_ext", test_ipv6_ext },
	{ "icmp6", test_icmp6 },
	{ "nd", test_nd },
};

int
main(void)
{
	return UT_RUN(cases);
}
