/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * libFuzzer target for the wire layer: every parser over the input (the
 * input buffer is exactly the input's size, so AddressSanitizer catches any
 * read past a length check), with every frame length the stack could pass;
 * what parses is emitted again and must parse to the same repr. For TCP the
 * same repr means: the header fields, and the options ust_tcp_emit()
 * writes (on a SYN: MSS, window scale, SACK-permitted, timestamps; else:
 * timestamps and the SACK blocks that fit beside them); the checksum it
 * writes (or the pseudo-header sum it leaves for a NIC) must verify.
 */

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ip.h>

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

/* The options of @a that ust_tcp_emit() writes for a segment. */
static struct ust_tcp_opts
tcp_emitted_opts(const struct ust_tcp_opts *a, bool syn)
{
	struct ust_tcp_opts e;
	unsigned int fit = (a->has & UST_TCPOPT_TS) ? 3 : 4;

	memset(&e, 0, sizeof(e));
	if (syn) {
		e.has = a->has & (UST_TCPOPT_MSS | UST_TCPOPT_WS |
				  UST_TCPOPT_SACK_PERM | UST_TCPOPT_TS);
	} else {
		e.has = a->has & UST_TCPOPT_TS;
		if ((a->has & UST_TCPOPT_SACK) && a->nsack > 0) {
			e.has |= UST_TCPOPT_SACK;
			e.nsack = a->nsack < fit ? a->nsack : (uint8_t)fit;
			memcpy(e.sack, a->sack, sizeof(e.sack[0]) * e.nsack);
		}
	}
	if (e.has & UST_TCPOPT_MSS)
		e.mss = a->mss;
	if (e.has & UST_TCPOPT_WS)
		e.wscale = a->wscale;
	if (e.has & UST_TCPOPT_TS) {
		e.tsval = a->tsval;
		e.tsecr = a->tsecr;
	}
	return e;
}

static void
tcp_opts_equal(const struct ust_tcp_opts *a, const struct ust_tcp_opts *b)
{
	unsigned int k;

	assert(a->has == b->has);
	assert(!(a->has & UST_TCPOPT_MSS) || a->mss == b->mss);
	assert(!(a->has & UST_TCPOPT_WS) || a->wscale == b->wscale);
	assert(!(a->has & UST_TCPOPT_TS) ||
	       (a->tsval == b->tsval && a->tsecr == b->tsecr));
	assert(a->nsack == b->nsack);
	for (k = 0; k < a->nsack; k++)
		assert(a->sack[k].start == b->sack[k].start &&
		       a->sack[k].end == b->sack[k].end);
}

/*
 * A parsed segment @r whose payload is @plen bytes at @payload: emitted
 * again (with its checksum, then with the pseudo-header sum a NIC would
 * finish), it parses with a verified checksum to the repr emit documents.
 */
static void
check_tcp_roundtrip(const struct ust_tcp_repr *r, const uint8_t *payload,
		    size_t plen, rte_be32_t src, rte_be32_t dst)
{
	bool syn = (r->flags & UST_TCP_SYN) != 0;
	struct ust_tcp_opts want = tcp_emitted_opts(&r->opts, syn);
	size_t olen = ust_tcp_opts_len(&r->opts, syn);
	size_t hlen = UST_TCP_HDR_LEN + olen;
	uint8_t *out = malloc(UST_TCP_MAX_HDR_LEN + plen);
	struct ust_tcp_repr e = *r, p;
	int pass;

	assert(olen % 4 == 0 && olen <= UST_TCP_MAX_OPT_LEN);
	assert(out != NULL);
	if (plen > 0)
		memcpy(out + hlen, payload, plen);
	/* too small a buffer: nothing written */
	assert(ust_tcp_emit(out, hlen - 1, &e, src, dst, out + hlen, plen,
			    0) == 0);
	for (pass = 0; pass < 2; pass++) {
		int fl = pass ? UST_WIRE_F_CSUM_OFFLOAD : 0;

		e = *r;
		e.hdr_len = 0;
		assert(ust_tcp_emit(out, hlen, &e, src, dst, out + hlen, plen,
				    fl) == hlen);
		assert(e.hdr_len == hlen);
		if (pass) {
			/* what the NIC does with the pseudo-header sum */
			uint16_t ck = (uint16_t)~rte_raw_cksum(out, hlen + plen);

			memcpy(out + 16, &ck, sizeof(ck));
		}
		if (ust_tcp_parse(out, hlen + plen, src, dst, 0, &p) !=
		    UST_WIRE_OK)
			abort();
		assert(p.src_port == r->src_port && p.dst_port == r->dst_port &&
		       p.seq == r->seq && p.ack == r->ack &&
		       p.flags == r->flags && p.window == r->window &&
		       p.urp == r->urp && p.hdr_len == hlen);
		tcp_opts_equal(&p.opts, &want);
		/* and what parses again emits the same bytes */
		e = p;
		{
			uint8_t again[UST_TCP_MAX_HDR_LEN];

			assert(ust_tcp_emit(again, sizeof(again), &e, src, dst,
					    out + hlen, plen, 0) == hlen);
			if (!pass)
				assert(memcmp(again, out, hlen) == 0);
		}
	}
	free(out);
}

/* The TCP parser over @len bytes, with and without the checksum. */
static void
fuzz_tcp(const uint8_t *l4, size_t len, rte_be32_t src, rte_be32_t dst)
{
	struct ust_tcp_repr t;
	int rc;

	rc = ust_tcp_parse(l4, len, src, dst, UST_WIRE_F_NO_CSUM, &t);
	if (rc != UST_WIRE_OK) {
		/* a checksum cannot make a malformed header parse (the
		 * checksum is verified before the options are read) */
		int rc2 = ust_tcp_parse(l4, len, src, dst, 0, &t);

		assert(rc2 == rc ||
		       (rc == UST_WIRE_EOPTION && rc2 == UST_WIRE_ECSUM));
		return;
	}
	assert(t.hdr_len >= UST_TCP_HDR_LEN && t.hdr_len <= len &&
	       t.hdr_len % 4 == 0 && t.hdr_len <= UST_TCP_MAX_HDR_LEN);
	assert(t.opts.nsack <= UST_TCP_MAX_SACK &&
	       t.opts.wscale <= UST_TCP_MAX_WSCALE);
	assert(!!(t.opts.has & UST_TCPOPT_SACK) == (t.opts.nsack > 0));
	check_tcp_roundtrip(&t, l4 + t.hdr_len, len - t.hdr_len, src, dst);
	rc = ust_tcp_parse(l4, len, src, dst, 0, &t);
	assert(rc == UST_WIRE_OK || rc == UST_WIRE_ECSUM);
}

/* IPv6 at @buf: the fixed header with the frame as long, longer and
 * shorter; what parses round-trips, its extension chain is walked within
 * the buffer, and the upper layer's ICMPv6 parsed (checksum skipped and
 * not) and round-tripped */
static void
fuzz_ipv6(const uint8_t *buf, size_t size)
{
	struct ust_ipv6_repr r, r2;
	struct ust_ipv6_ext_repr x;
	struct ust_icmp6_repr ic, ic2;
	size_t frame;

	for (frame = size > 2 ? size - 2 : 0; frame <= size + 2; frame++) {
		uint8_t out[UST_IPV6_HDR_LEN];
		size_t end;

		if (ust_ipv6_parse(buf, size, frame, &r) != UST_WIRE_OK)
			continue;
		assert(r.payload_len + UST_IPV6_HDR_LEN <= frame);
		assert(ust_ipv6_emit(out, sizeof(out), &r) == UST_IPV6_HDR_LEN);
		assert(ust_ipv6_parse(out, sizeof(out),
				      UST_IPV6_HDR_LEN + r.payload_len, &r2) ==
		       UST_WIRE_OK);
		assert(memcmp(r.src, r2.src, sizeof(r.src)) == 0 &&
		       memcmp(r.dst, r2.dst, sizeof(r.dst)) == 0 &&
		       r.traffic_class == r2.traffic_class &&
		       r.flow_label == r2.flow_label &&
		       r.payload_len == r2.payload_len &&
		       r.next_header == r2.next_header &&
		       r.hop_limit == r2.hop_limit);
		if (ust_ipv6_ext_parse(buf, size, &r, &x) != UST_WIRE_OK)
			continue;
		end = RTE_MIN(size, UST_IPV6_HDR_LEN + (size_t)r.payload_len);
		assert(x.upper_off <= end && x.unfrag_len <= x.upper_off);
		assert(!x.frag || x.frag_hdr_off + 8u <= end);
		if (x.frag || x.upper != UST_IPV6_NH_ICMPV6)
			continue;
		if (ust_icmp6_parse(buf + x.upper_off, end - x.upper_off, r.src,
				    r.dst, UST_WIRE_F_NO_CSUM, &ic) ==
		    UST_WIRE_OK) {
			uint8_t *o = malloc(end - x.upper_off + 128);
			size_t n;

			assert(ic.data + ic.data_len == buf + end);
			/* what parses emits again and parses with a valid
			 * sum (the options ust_icmp6_emit() writes kept) */
			n = ust_icmp6_emit(o, end - x.upper_off + 128, r.src,
					   r.dst, &ic);
			assert(n > 0);
			assert(ust_icmp6_parse(o, n, r.src, r.dst, 0, &ic2) ==
			       UST_WIRE_OK);
			assert(ic2.type == ic.type && ic2.code == ic.code &&
			       ic2.ident == ic.ident && ic2.seq == ic.seq);
			free(o);
		}
		(void)ust_icmp6_parse(buf + x.upper_off, end - x.upper_off,
				      r.src, r.dst, 0, &ic);
	}
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
		/* the stack's source route check on the options the parser
		 * accepted: within them, and 0, 1 or EOPTION */
		{
			int sr = ust_ipv4_opt_source_route(buf + 20,
							   ip.hdr_len - 20);

			assert(sr == 0 || sr == 1 || sr == UST_WIRE_EOPTION);
		}
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
			if (frame == size)
				fuzz_tcp(l4, l4len, ip.src, ip.dst);
		}
	}
	fuzz_ipv6(buf, size);
	if (size > UST_ETH_HDR_LEN)
		fuzz_ipv6(buf + UST_ETH_HDR_LEN, size - UST_ETH_HDR_LEN);
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
	/* UDP over IPv6: what parses (the checksum skipped) round-trips
	 * through emit with its checksum, and a zero checksum never parses */
	{
		static const uint8_t s6[16] = { 0x20, 1, 0, 2, [15] = 1 };
		static const uint8_t d6[16] = { 0x20, 1, 0, 2, [15] = 2 };
		struct ust_udp_repr u2;

		if (ust_udp6_parse(buf, size, s6, d6, UST_WIRE_F_NO_CSUM,
				   &u) == UST_WIRE_OK) {
			uint8_t *out = malloc(u.len);

			assert(u.len <= size && buf[6] | buf[7]);
			assert(ust_udp6_emit(out, u.len, &u, s6, d6,
					     buf + UST_UDP_HDR_LEN, 0) ==
			       UST_UDP_HDR_LEN);
			memcpy(out + UST_UDP_HDR_LEN, buf + UST_UDP_HDR_LEN,
			       u.len - UST_UDP_HDR_LEN);
			assert(ust_udp6_parse(out, u.len, s6, d6, 0, &u2) ==
			       UST_WIRE_OK);
			assert(u2.src_port == u.src_port &&
			       u2.dst_port == u.dst_port && u2.len == u.len);
			free(out);
		}
		(void)ust_udp6_parse(buf, size, s6, d6, 0, &u);
	}
	/* TCP on the raw input (the checksum skipped: what the fuzzer cannot
	 * forge, the round trip computes) */
	fuzz_tcp(buf, size, RTE_BE32(0xc6120001), RTE_BE32(0xc6120002));
	/* the option walker on the raw input: every length, as options */
	{
		int sr = ust_ipv4_opt_source_route(buf, size);

		assert(sr == 0 || sr == 1 || sr == UST_WIRE_EOPTION);
	}
	free(buf);
	return 0;
}
