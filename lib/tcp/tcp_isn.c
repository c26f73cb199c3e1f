/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Keyed hashes for TCP, from one per-boot secret of the stack instance:
 *
 *  - initial sequence numbers, RFC 6528: ISN = M + F(4-tuple, secret), M
 *    a clock ticking every 4 microseconds, F SipHash-2-4;
 *  - a random timestamp offset per connection (RFC 7323 5.4), so that
 *    timestamps reveal neither uptime nor a per-host clock;
 *  - SYN cookies (RFC 4987 5.4): the SYN-ACK's sequence number encodes a
 *    coarse clock (5 bits, 64 s a step), an MSS index (3 bits) and 24 bits
 *    of SipHash over the 4-tuple, the peer's ISN and that clock.
 *
 * SipHash-2-4 (Aumasson and Bernstein, 2012) is written here from its
 * specification; DPDK has keyed CRC and jhash, neither of which resists a
 * peer that wants to predict sequence numbers.
 */

#include <string.h>

#include "tcp_private.h"

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

#define SIPROUND do { \
	v0 += v1; v1 = ROTL(v1, 13); v1 ^= v0; v0 = ROTL(v0, 32); \
	v2 += v3; v3 = ROTL(v3, 16); v3 ^= v2; \
	v0 += v3; v3 = ROTL(v3, 21); v3 ^= v0; \
	v2 += v1; v1 = ROTL(v1, 17); v1 ^= v2; v2 = ROTL(v2, 32); \
} while (0)

uint64_t
ust_siphash24(const uint64_t key[2], const void *data, size_t len)
{
	const uint8_t *p = data;
	uint64_t v0 = 0x736f6d6570736575ull ^ key[0];
	uint64_t v1 = 0x646f72616e646f6dull ^ key[1];
	uint64_t v2 = 0x6c7967656e657261ull ^ key[0];
	uint64_t v3 = 0x7465646279746573ull ^ key[1];
	uint64_t b = (uint64_t)len << 56;
	size_t i, left = len & 7;

	for (i = 0; i + 8 <= len; i += 8) {
		uint64_t m;

		memcpy(&m, p + i, 8);
		m = rte_le_to_cpu_64(m);
		v3 ^= m;
		SIPROUND;
		SIPROUND;
		v0 ^= m;
	}
	for (i = 0; i < left; i++)
		b |= (uint64_t)p[len - left + i] << (8 * i);
	v3 ^= b;
	SIPROUND;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

/* The bytes of the 4-tuple @k that its hashes read (into @b): IPv4's 12,
 * or IPv6's 36 (both addresses whole, then the ports). */
#define TCP_KEY_BYTES_MAX 36

static size_t
tcp_key_bytes(const struct ust_tcp_key *k, uint8_t b[TCP_KEY_BYTES_MAX])
{
	if (k->a6 == NULL) {
		memcpy(b, k, UST_TCP_KEY4_LEN);
		return UST_TCP_KEY4_LEN;
	}
	memcpy(b, k->a6->local, 16);
	memcpy(b + 16, k->a6->remote, 16);
	memcpy(b + 32, &k->lport, 2);
	memcpy(b + 34, &k->rport, 2);
	return TCP_KEY_BYTES_MAX;
}

uint32_t
ust_tcp_isn(struct ust_stack *stk, const struct ust_tcp_key *k)
{
	uint32_t m = (uint32_t)(stk->now / 4000); /* 4 us ticks */
	uint8_t b[TCP_KEY_BYTES_MAX];
	size_t n = tcp_key_bytes(k, b);

	return m + (uint32_t)ust_siphash24(stk->tcp->secret, b, n);
}

uint32_t
ust_tcp_ts_offset(struct ust_stack *stk, const struct ust_tcp_key *k)
{
	uint8_t b[TCP_KEY_BYTES_MAX];
	size_t n = tcp_key_bytes(k, b);

	return (uint32_t)(ust_siphash24(stk->tcp->secret, b, n) >> 32);
}

uint64_t
ust_tcp_rand(struct ust_stack *stk)
{
	/* SipHash of a counter under the per-stack secret (16 bytes in: a
	 * length no other use of the key hashes, so no output repeats an
	 * ISN's or an offset's) */
	uint64_t in[2] = { 0x7463705f72616e64ull /* "ust_tcp_rand" */,
			   ++stk->tcp->rand_ctr };

	return ust_siphash24(stk->tcp->secret, in, sizeof(in));
}

/* MSS values a cookie can carry: Linux's msstab (536, 1300, 1440, 1460),
 * so that a peer's MSS gets the value Linux's cookie would give it, and
 * room for jumbo frames and small MTUs */
static const uint16_t cookie_mss4[8] = {
	536, 1300, 1440, 1460, 4312, 8960, 1220, 88
};

/* over IPv6, Linux's msstab of tcp_ipv6.c (the MTUs 1280, 1480, 1500 and
 * 9000 less 60 bytes of headers), 4352's, and below IPv6's minimum 536 and
 * 88 (where Linux gives a peer that announced less 1220 anyway); the 7th
 * repeats the 1st. The 8th, the smallest, is where the choice starts. */
static const uint16_t cookie_mss6[8] = {
	1220, 1420, 1440, 8940, 4292, 536, 1220, 88
};

const uint16_t *
ust_tcp_cookie_mss(const struct ust_tcp_key *k)
{
	return k->a6 != NULL ? cookie_mss6 : cookie_mss4;
}

#define COOKIE_STEP_MS 64000u

static uint32_t
cookie_hash(struct ust_stack *stk, const struct ust_tcp_key *k, uint32_t irs,
	    uint32_t t, uint8_t mss_idx)
{
	struct {
		uint8_t k[TCP_KEY_BYTES_MAX];
		uint32_t irs;
		uint32_t t;
		uint32_t idx;
	} in;

	memset(&in, 0, sizeof(in));
	tcp_key_bytes(k, in.k);
	in.irs = irs;
	in.t = t;
	in.idx = mss_idx;
	/* a second key, so that cookies tell nothing about ISNs */
	{
		uint64_t key[2] = { stk->tcp->secret[1], stk->tcp->secret[0] };

		return (uint32_t)ust_siphash24(key, &in, sizeof(in)) &
			0xffffffu;
	}
}

uint32_t
ust_tcp_cookie_make(struct ust_stack *stk, const struct ust_tcp_key *k,
		uint32_t irs, uint8_t mss_idx)
{
	uint32_t t = tcp_now_ms(stk) / COOKIE_STEP_MS;

	return ((t & 0x1f) << 27) | ((uint32_t)(mss_idx & 7) << 24) |
		cookie_hash(stk, k, irs, t, mss_idx);
}

int
ust_tcp_cookie_check(struct ust_stack *stk, const struct ust_tcp_key *k,
		 uint32_t irs, uint32_t cookie)
{
	uint32_t now = tcp_now_ms(stk) / COOKIE_STEP_MS;
	uint8_t idx = (cookie >> 24) & 7;
	uint32_t t5 = cookie >> 27;
	uint32_t age;

	/* a cookie is good for two steps (64 to 128 seconds) */
	for (age = 0; age < 2; age++) {
		uint32_t t = now - age;

		if ((t & 0x1f) == t5 &&
		    cookie_hash(stk, k, irs, t, idx) == (cookie & 0xffffffu))
			return idx;
	}
	return -1;
}
