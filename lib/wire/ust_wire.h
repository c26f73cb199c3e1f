/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/**
 * @file
 * ustack wire formats: parse and emit Ethernet, ARP, IPv4, ICMPv4, IPv6
 * with its extension headers, ICMPv6 with Neighbor Discovery, UDP and TCP.
 *
 * Every function here is a pure function over a (pointer, length) pair. They
 * need no EAL, no mbuf and no stack context, so unit tests and fuzzers run
 * them without hugepages. The header layouts are DPDK's (rte_ether.h,
 * rte_arp.h, rte_ip.h, rte_icmp.h, rte_udp.h) and the checksums are DPDK's
 * (rte_raw_cksum and friends); this layer adds the strict validation and the
 * "repr" types, after smoltcp's wire/ module:
 *
 *  - ust_X_parse(buf, len, ..., &repr) checks every length field against
 *    @p len before it reads through it and fills a host-order "repr" of the
 *    header. It returns UST_WIRE_OK or a negative enum ust_wire_err naming
 *    exactly what is wrong; the stack maps each error to one drop counter.
 *  - ust_X_emit(buf, len, &repr) writes the header described by the repr and
 *    returns the number of bytes written, or 0 when @p len is too small. It
 *    never fails otherwise.
 *
 * Multi-byte fields in a repr are in host byte order, except IPv4 and IPv6
 * addresses, which stay in network byte order (as in struct sockaddr_in and
 * sockaddr_in6), so that they can be compared and copied without swapping.
 */

#ifndef UST_WIRE_H
#define UST_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_ether.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Why a parse failed. Each value maps to one drop reason in the stack. */
enum ust_wire_err {
	UST_WIRE_OK = 0,
	UST_WIRE_ETRUNC = -1,    /**< buffer shorter than the header needs */
	UST_WIRE_EVERSION = -2,  /**< IP version is not 4 (6 for IPv6) */
	UST_WIRE_EIHL = -3,      /**< IHL below 5 or beyond the buffer */
	UST_WIRE_ELEN = -4,      /**< a length field is inconsistent */
	UST_WIRE_ECSUM = -5,     /**< checksum does not verify */
	UST_WIRE_EOPTION = -6,   /**< malformed IP option list */
	UST_WIRE_EUNSUPP = -7,   /**< well formed, but not a kind we handle */
	UST_WIRE_EMALFORMED = -8,/**< a field holds an impossible value */
};

/** Name of a wire error, for logs and tests. */
const char *ust_wire_strerror(int err);

/** Parse flags. */
#define UST_WIRE_F_NO_CSUM 0x1 /**< skip checksum verification (offload said good) */

/* ------------------------------------------------------------------ */
/* Ethernet                                                            */
/* ------------------------------------------------------------------ */

/** Ethernet II header, parsed. */
struct ust_eth_repr {
	struct rte_ether_addr dst;
	struct rte_ether_addr src;
	uint16_t ethertype; /**< host order; VLAN tags are not stripped */
};

/** Length of an untagged Ethernet header. */
#define UST_ETH_HDR_LEN ((size_t)sizeof(struct rte_ether_hdr))

int ust_eth_parse(const void *buf, size_t len, struct ust_eth_repr *r);
size_t ust_eth_emit(void *buf, size_t len, const struct ust_eth_repr *r);

/* ------------------------------------------------------------------ */
/* ARP (Ethernet / IPv4 only)                                          */
/* ------------------------------------------------------------------ */

/** ARP packet for Ethernet and IPv4, parsed. */
struct ust_arp_repr {
	uint16_t op;               /**< RTE_ARP_OP_REQUEST or RTE_ARP_OP_REPLY */
	struct rte_ether_addr sha; /**< sender hardware address */
	rte_be32_t spa;            /**< sender protocol address */
	struct rte_ether_addr tha; /**< target hardware address */
	rte_be32_t tpa;            /**< target protocol address */
};

#define UST_ARP_LEN ((size_t)28)

/**
 * Parse an ARP packet. Anything other than Ethernet/IPv4 with hlen 6 and
 * plen 4 is UST_WIRE_EUNSUPP; an opcode other than request or reply is
 * UST_WIRE_EUNSUPP too.
 */
int ust_arp_parse(const void *buf, size_t len, struct ust_arp_repr *r);
size_t ust_arp_emit(void *buf, size_t len, const struct ust_arp_repr *r);

/* ------------------------------------------------------------------ */
/* IPv4                                                                */
/* ------------------------------------------------------------------ */

/** IPv4 header, parsed. */
struct ust_ipv4_repr {
	rte_be32_t src;
	rte_be32_t dst;
	uint8_t proto;
	uint8_t ttl;
	uint8_t tos;
	uint8_t hdr_len;       /**< bytes, 20..60 */
	uint16_t total_len;    /**< header plus payload, from the header */
	uint16_t id;
	uint16_t frag_off;     /**< fragment offset in bytes */
	bool df;               /**< don't fragment */
	bool mf;               /**< more fragments */
};

#define UST_IPV4_HDR_LEN ((size_t)20)
#define UST_IPV4_MAX_HDR_LEN ((size_t)60)

/**
 * True for 224.0.0.0/4. (DPDK 22.11's RTE_IS_IPV4_MCAST() builds its bounds
 * with RTE_IPV4(), whose signed shift is undefined for 224 and up.)
 */
static inline bool
ust_ipv4_is_multicast(rte_be32_t addr)
{
	return (rte_be_to_cpu_32(addr) >> 28) == 0xe;
}

/** True when the datagram is a fragment (MF set or non-zero offset). */
static inline bool
ust_ipv4_is_fragment(const struct ust_ipv4_repr *r)
{
	return r->mf || r->frag_off != 0;
}

/**
 * Parse and validate an IPv4 header.
 *
 * @param buf       start of the IPv4 header
 * @param len       bytes readable contiguously at @p buf (at least the header)
 * @param frame_len bytes of the frame from @p buf to its end; may exceed
 *                  @p len when the rest of the packet is in further segments.
 *                  The total length field must not exceed it (a longer
 *                  frame, e.g. Ethernet padding, is fine: the caller trims).
 * @param flags     UST_WIRE_F_NO_CSUM to skip the header checksum
 *
 * Checks, in order: 20 bytes readable (ETRUNC), version 4 (EVERSION),
 * IHL >= 5 and within @p len (EIHL), total length >= IHL*4 (ELEN),
 * total length <= @p frame_len (ETRUNC), header checksum (ECSUM), option
 * list well formed (EOPTION). Options are skipped, never interpreted.
 * Fragments parse fine; use ust_ipv4_is_fragment().
 */
int ust_ipv4_parse(const void *buf, size_t len, size_t frame_len,
		   int flags, struct ust_ipv4_repr *r);

/**
 * Look for a source route (LSRR, type 131, or SSRR, type 137; RFC 791) in
 * the @p len option bytes at @p buf (those after the fixed 20-byte header).
 * Reads nothing beyond @p len. Returns 1 when one is present, 0 when not,
 * UST_WIRE_EOPTION for a malformed option list, a source route shorter
 * than 3 bytes or with a pointer below 4, or a second source route.
 */
int ust_ipv4_opt_source_route(const void *buf, size_t len);

/** Emit flags. */
#define UST_WIRE_F_CSUM_OFFLOAD 0x2 /**< leave checksum 0 for the NIC to fill */

/**
 * Emit a 20-byte IPv4 header (no options) from @p r; r->hdr_len is ignored.
 * The checksum is filled in unless UST_WIRE_F_CSUM_OFFLOAD is given.
 */
size_t ust_ipv4_emit(void *buf, size_t len, const struct ust_ipv4_repr *r,
		     int flags);

/**
 * One's complement sum (not complemented) of the IPv4 pseudo-header for an
 * L4 segment of @p l4_len bytes, as rte_ipv4_phdr_cksum() computes it.
 */
uint16_t ust_ipv4_phdr_sum(rte_be32_t src, rte_be32_t dst, uint8_t proto,
			   uint16_t l4_len);

/* ------------------------------------------------------------------ */
/* ICMPv4                                                              */
/* ------------------------------------------------------------------ */

#define UST_ICMP_ECHO_REPLY 0
#define UST_ICMP_DEST_UNREACH 3
#define UST_ICMP_ECHO_REQUEST 8
#define UST_ICMP_TIME_EXCEEDED 11
#define UST_ICMP_PARAM_PROBLEM 12

#define UST_ICMP_CODE_NET_UNREACH 0
#define UST_ICMP_CODE_HOST_UNREACH 1
#define UST_ICMP_CODE_PROTO_UNREACH 2
#define UST_ICMP_CODE_PORT_UNREACH 3
#define UST_ICMP_CODE_FRAG_NEEDED 4

/** ICMPv4 message, parsed. */
struct ust_icmp_repr {
	uint8_t type;
	uint8_t code;
	/** echo: identifier and sequence (host order) */
	uint16_t ident;
	uint16_t seq;
	/** destination unreachable / frag needed: next-hop MTU (host order) */
	uint16_t mtu;
	/** the data after the 8-byte ICMP header (echo payload, or the
	 *  offending datagram's header for errors), within the parsed buffer */
	const uint8_t *data;
	size_t data_len;
	/** for error messages: the embedded IPv4 header and the first 8 bytes
	 *  of its payload, validated (embedded_ok false if absent/malformed) */
	bool embedded_ok;
	struct ust_ipv4_repr embedded;
	const uint8_t *embedded_l4; /**< first bytes of the offending L4 header */
	size_t embedded_l4_len;
};

#define UST_ICMP_HDR_LEN ((size_t)8)

/**
 * Parse an ICMPv4 message of exactly @p len bytes (the IP payload).
 * Verifies the checksum over all @p len bytes unless UST_WIRE_F_NO_CSUM.
 */
int ust_icmp_parse(const void *buf, size_t len, int flags,
		   struct ust_icmp_repr *r);

/**
 * Emit an ICMPv4 header followed by r->data_len bytes of r->data, and its
 * checksum. For echo messages ident and seq are written; for destination
 * unreachable, the unused word (with the MTU for code 4).
 */
size_t ust_icmp_emit(void *buf, size_t len, const struct ust_icmp_repr *r);

/* ------------------------------------------------------------------ */
/* IPv6 (RFC 8200) and its extension headers                           */
/* ------------------------------------------------------------------ */

#define UST_IPV6_HDR_LEN ((size_t)40)
#define UST_IPV6_ADDR_LEN 16

/* next header values */
#define UST_IPV6_NH_HOPOPTS 0
#define UST_IPV6_NH_TCP 6
#define UST_IPV6_NH_UDP 17
#define UST_IPV6_NH_ROUTING 43
#define UST_IPV6_NH_FRAGMENT 44
#define UST_IPV6_NH_ICMPV6 58
#define UST_IPV6_NH_NONE 59
#define UST_IPV6_NH_DSTOPTS 60

/** IPv6 fixed header, parsed. Addresses stay in network order. */
struct ust_ipv6_repr {
	uint8_t src[UST_IPV6_ADDR_LEN];
	uint8_t dst[UST_IPV6_ADDR_LEN];
	uint8_t traffic_class;
	uint32_t flow_label;    /**< 20 bits */
	uint16_t payload_len;   /**< bytes after the fixed header */
	uint8_t next_header;    /**< of the first header after it */
	uint8_t hop_limit;
};

/**
 * Parse an IPv6 fixed header: 40 bytes readable in @p len (ETRUNC),
 * version 6 (EVERSION), payload length within @p frame_len - 40 (ETRUNC;
 * a longer frame is padding the caller trims). A payload length of 0 (a
 * jumbogram's, RFC 2675) is EUNSUPP.
 */
int ust_ipv6_parse(const void *buf, size_t len, size_t frame_len,
		   struct ust_ipv6_repr *r);
size_t ust_ipv6_emit(void *buf, size_t len, const struct ust_ipv6_repr *r);

/** What to do with a packet whose extension headers are not acceptable:
 *  ICMPv6 parameter problem codes (RFC 4443 3.4, RFC 7112), as
 *  ust_ipv6_ext_repr's err_code. */
#define UST_ICMP6_PARAM_HDR 0      /**< erroneous header field */
#define UST_ICMP6_PARAM_NH 1       /**< unrecognized next header */
#define UST_ICMP6_PARAM_OPTION 2   /**< unrecognized option */
#define UST_ICMP6_PARAM_CHAIN 3    /**< first fragment without the chain */

/** The extension header chain, walked (RFC 8200 4). */
struct ust_ipv6_ext_repr {
	uint8_t upper;          /**< the upper-layer protocol, or the next
				 *   header after a fragment header */
	uint16_t upper_off;     /**< its offset from the fixed header's
				 *   start */
	bool frag;              /**< a fragment header was found */
	bool frag_mf;
	uint16_t frag_off;      /**< bytes */
	uint32_t frag_id;
	uint16_t frag_hdr_off;  /**< where the fragment header is */
	uint16_t unfrag_len;    /**< the per-fragment headers (fixed header
				 *   and those before the fragment header) */
	bool hbh;               /**< a hop-by-hop options header */
	bool rh;                /**< a routing header (segments left 0) */
	uint8_t rh_type;
	/** on an error: the ICMPv6 parameter problem to answer with (code,
	 *  and the pointer: the offending byte's offset from the fixed
	 *  header's start); icmp false when none may be sent (an option
	 *  whose action bits say discard silently) */
	bool icmp;
	uint8_t err_code;
	uint32_t err_ptr;
};

/**
 * Walk the extension headers after an IPv6 fixed header (@p buf at the
 * fixed header, @p len bytes readable, @p r the parsed fixed header) up
 * to the upper-layer header or a fragment header (what follows one is a
 * fragment's payload, not to be walked), after RFC 8200:
 *  - hop-by-hop options only first (else EMALFORMED, NH pointing at the
 *    next header field that named it); options TLV-checked: Pad1, PadN,
 *    and an unknown option by its action bits (00 skip, 01 discard
 *    silently, 10 and 11 discard with parameter problem code 2);
 *  - routing headers: skipped when segments left is 0; otherwise refused
 *    with parameter problem code 0 at the routing type byte, the answer
 *    RFC 8200 4.4 gives for a type not recognised: type 0 is deprecated
 *    (RFC 5095) and ustack, a host, processes no other (it forwards
 *    nothing);
 *  - destination options: as hop-by-hop's;
 *  - a fragment header ends the walk: offset, M, ID, and EMALFORMED for
 *    a piece not a multiple of 8 bytes with M set (code 0, the payload
 *    length field);
 *  - any other next header is the upper layer (x->upper: known or not,
 *    the caller's to say, with parameter problem code 1 at the field
 *    that named it, x->err_ptr); a header running past @p len or the
 *    payload is ETRUNC; more than 8 extension headers is EMALFORMED.
 *    What follows a fragment header is walked only once the datagram is
 *    reassembled (a first fragment without the whole chain, RFC 7112, is
 *    the reassembler's to find).
 * Returns UST_WIRE_OK with @p x filled, or the error with x->err_*.
 */
int ust_ipv6_ext_parse(const void *buf, size_t len,
		       const struct ust_ipv6_repr *r,
		       struct ust_ipv6_ext_repr *x);

/**
 * One's complement sum (not complemented) of the IPv6 pseudo-header
 * (RFC 8200 8.1) for @p l4_len bytes of upper-layer protocol @p proto.
 * Not rte_ipv6_phdr_cksum(): that one takes the payload length and next
 * header from the fixed header, wrong once extension headers come between.
 */
uint16_t ust_ipv6_phdr_sum(const uint8_t *src, const uint8_t *dst,
			   uint8_t proto, uint32_t l4_len);

/** True for ff00::/8. */
static inline bool
ust_ipv6_is_multicast(const uint8_t *a)
{
	return a[0] == 0xff;
}

/** The solicited-node multicast address of @p a (ff02::1:ffXX:XXXX). */
void ust_ipv6_solicited_node(const uint8_t *a, uint8_t *out);

/** The Ethernet multicast address of IPv6 multicast @p a (33:33:...). */
void ust_ipv6_mcast_mac(const uint8_t *a, struct rte_ether_addr *mac);

/* ------------------------------------------------------------------ */
/* ICMPv6 (RFC 4443) and Neighbor Discovery (RFC 4861)                 */
/* ------------------------------------------------------------------ */

#define UST_ICMP6_DEST_UNREACH 1
#define UST_ICMP6_CODE_PORT_UNREACH 4   /**< destination unreachable's */
#define UST_ICMP6_PKT_TOO_BIG 2
#define UST_ICMP6_TIME_EXCEEDED 3
#define UST_ICMP6_PARAM_PROBLEM 4
#define UST_ICMP6_ECHO_REQUEST 128
#define UST_ICMP6_ECHO_REPLY 129
#define UST_ICMP6_ND_RS 133
#define UST_ICMP6_ND_RA 134
#define UST_ICMP6_ND_NS 135
#define UST_ICMP6_ND_NA 136
#define UST_ICMP6_ND_REDIRECT 137

/* NA flags */
#define UST_ND_NA_ROUTER 0x80
#define UST_ND_NA_SOLICITED 0x40
#define UST_ND_NA_OVERRIDE 0x20
/* RA flags */
#define UST_ND_RA_MANAGED 0x80
#define UST_ND_RA_OTHER 0x40

/* ND options */
#define UST_ND_OPT_SLLA 1
#define UST_ND_OPT_TLLA 2
#define UST_ND_OPT_PREFIX 3
#define UST_ND_OPT_MTU 5
/* prefix information flags */
#define UST_ND_PREFIX_ONLINK 0x80
#define UST_ND_PREFIX_AUTO 0x40

/** ND options found (RFC 4861 4.6); the last of each kind counts. */
struct ust_nd_opts {
	bool has_slla;
	bool has_tlla;
	bool has_prefix;
	bool has_mtu;
	struct rte_ether_addr slla;   /**< source link-layer address */
	struct rte_ether_addr tlla;   /**< target link-layer address */
	uint8_t prefix_len;
	uint8_t prefix_flags;         /**< UST_ND_PREFIX_* */
	uint32_t prefix_valid;        /**< seconds */
	uint32_t prefix_preferred;
	uint8_t prefix[UST_IPV6_ADDR_LEN];
	uint32_t mtu;
};

/** An ICMPv6 message, parsed. */
struct ust_icmp6_repr {
	uint8_t type;
	uint8_t code;
	/** echo: identifier and sequence */
	uint16_t ident;
	uint16_t seq;
	/** packet too big: MTU; parameter problem: pointer */
	uint32_t param;
	/** NS, NA, redirect: the target address */
	uint8_t target[UST_IPV6_ADDR_LEN];
	/** NA: UST_ND_NA_*; RA: UST_ND_RA_* */
	uint8_t flags;
	/** RA: current hop limit, router lifetime (s), reachable time and
	 *  retransmission timer (ms) */
	uint8_t cur_hop_limit;
	uint16_t router_lifetime;
	uint32_t reachable_ms;
	uint32_t retrans_ms;
	struct ust_nd_opts nd;
	/** after the message's fixed part: the echo data, or the invoking
	 *  packet of an error */
	const uint8_t *data;
	size_t data_len;
	/** errors: the invoking packet's fixed header, when whole */
	bool embedded_ok;
	struct ust_ipv6_repr embedded;
};

#define UST_ICMP6_HDR_LEN ((size_t)8)

/**
 * Parse an ICMPv6 message of exactly @p len bytes (the upper-layer
 * payload), its checksum verified over the pseudo-header of @p src, @p dst
 * unless UST_WIRE_F_NO_CSUM (ECSUM). Echo and errors need 8 bytes, ND
 * messages their fixed part (RS 8, RA 16, NS and NA 24, redirect 40;
 * ETRUNC), their options well formed: a length of 0 or past the message is
 * EMALFORMED (RFC 4861 drops the packet), a link-layer address option
 * other than 8 bytes is EMALFORMED, a prefix option other than 32 bytes or
 * with a prefix length above 128 is EMALFORMED; unknown options are
 * skipped. ND's own checks (hop limit 255, code 0, a target not multicast)
 * are the caller's.
 */
int ust_icmp6_parse(const void *buf, size_t len, const uint8_t *src,
		    const uint8_t *dst, int flags, struct ust_icmp6_repr *r);

/**
 * Emit an ICMPv6 message from @p r: its fixed part by type (echo: ident,
 * seq; errors: r->param; NS/NA: flags and target; RS; RA: its fields), the
 * ND options r->nd says (SLLA, TLLA, MTU; prefix for an RA), then
 * r->data_len bytes of r->data, and the checksum over the pseudo-header.
 * Returns the length, 0 when @p len is too small.
 */
size_t ust_icmp6_emit(void *buf, size_t len, const uint8_t *src,
		      const uint8_t *dst, const struct ust_icmp6_repr *r);

/* ------------------------------------------------------------------ */
/* UDP                                                                 */
/* ------------------------------------------------------------------ */

/** UDP header, parsed. */
struct ust_udp_repr {
	uint16_t src_port;    /**< host order */
	uint16_t dst_port;    /**< host order */
	uint16_t len;         /**< the length field: header plus payload */
	bool has_csum;        /**< checksum field non-zero */
};

#define UST_UDP_HDR_LEN ((size_t)8)

/**
 * Parse a UDP datagram.
 *
 * @param buf  start of the UDP header
 * @param len  the IP payload length (from the IP total length); all of it
 *             readable at @p buf unless UST_WIRE_F_NO_CSUM is given, in
 *             which case only the 8-byte header is read
 * @param src,dst,flags  the pseudo-header addresses, and UST_WIRE_F_NO_CSUM
 *
 * Checks: 8 bytes (ETRUNC), length field >= 8 (ELEN: a zero-payload
 * datagram has length 8; 0 is invalid in IPv4), length field <= @p len
 * (ELEN; a shorter length field with trailing bytes is accepted and the
 * caller trims, as Linux does), checksum (ECSUM) when non-zero.
 */
int ust_udp_parse(const void *buf, size_t len, rte_be32_t src,
		  rte_be32_t dst, int flags, struct ust_udp_repr *r);

/**
 * Emit a UDP header. When @p payload is non-NULL it must hold
 * r->len - 8 bytes and the checksum is computed over it; with
 * UST_WIRE_F_CSUM_OFFLOAD the pseudo-header sum is written instead (what
 * NICs expect for RTE_MBUF_F_TX_UDP_CKSUM); otherwise (payload NULL and no
 * offload) the checksum is 0, i.e. "none", which IPv4 allows.
 */
size_t ust_udp_emit(void *buf, size_t len, const struct ust_udp_repr *r,
		    rte_be32_t src, rte_be32_t dst, const void *payload,
		    int flags);

/**
 * Parse a UDP datagram carried by IPv6: as ust_udp_parse(), with IPv6's
 * pseudo-header (@p src, @p dst: 16 bytes each) and RFC 8200 8.1's rule
 * that the checksum is mandatory: a zero one is ECSUM (Linux drops it as
 * a checksum error), checked even under UST_WIRE_F_NO_CSUM, which only
 * skips the sum over the payload.
 */
int ust_udp6_parse(const void *buf, size_t len, const uint8_t *src,
		   const uint8_t *dst, int flags, struct ust_udp_repr *r);

/**
 * Emit a UDP header for IPv6: as ust_udp_emit(), with IPv6's
 * pseudo-header; without @p payload nor UST_WIRE_F_CSUM_OFFLOAD the
 * checksum field is left 0 for the caller to fill (IPv6 has no "none").
 */
size_t ust_udp6_emit(void *buf, size_t len, const struct ust_udp_repr *r,
		     const uint8_t *src, const uint8_t *dst,
		     const void *payload, int flags);

/* ------------------------------------------------------------------ */
/* TCP                                                                 */
/* ------------------------------------------------------------------ */

#define UST_TCP_HDR_LEN ((size_t)20)
#define UST_TCP_MAX_HDR_LEN ((size_t)60)
#define UST_TCP_MAX_OPT_LEN ((size_t)40)

/* flags, as in the header's byte 13 (same values as RTE_TCP_*_FLAG) */
#define UST_TCP_FIN 0x01
#define UST_TCP_SYN 0x02
#define UST_TCP_RST 0x04
#define UST_TCP_PSH 0x08
#define UST_TCP_ACK 0x10
#define UST_TCP_URG 0x20
#define UST_TCP_ECE 0x40
#define UST_TCP_CWR 0x80

/* options present in a ust_tcp_opts */
#define UST_TCPOPT_MSS 0x01
#define UST_TCPOPT_WS 0x02
#define UST_TCPOPT_SACK_PERM 0x04
#define UST_TCPOPT_TS 0x08
#define UST_TCPOPT_SACK 0x10

#define UST_TCP_MAX_SACK 4
/** RFC 7323 2.3: a shift above 14 is used as 14 */
#define UST_TCP_MAX_WSCALE 14

/** TCP options, parsed (RFC 9293 MSS, RFC 7323 WS and TS, RFC 2018 SACK). */
struct ust_tcp_opts {
	uint8_t has;            /**< UST_TCPOPT_* present */
	uint8_t wscale;         /**< shift, at most UST_TCP_MAX_WSCALE */
	uint16_t mss;           /**< as sent; 0 is "no usable value" */
	uint32_t tsval;
	uint32_t tsecr;
	uint8_t nsack;          /**< SACK blocks (up to UST_TCP_MAX_SACK) */
	struct {
		uint32_t start;
		uint32_t end;
	} sack[UST_TCP_MAX_SACK];
};

/** TCP header, parsed. Sequence numbers and ports in host order. */
struct ust_tcp_repr {
	uint16_t src_port;
	uint16_t dst_port;
	uint32_t seq;
	uint32_t ack;
	uint8_t hdr_len;        /**< data offset in bytes, 20..60 */
	uint8_t flags;          /**< UST_TCP_* */
	uint16_t window;        /**< unscaled, as on the wire */
	uint16_t urp;
	struct ust_tcp_opts opts;
};

/**
 * Parse a TCP segment of exactly @p len bytes (the IP payload).
 *
 * Checks: 20 bytes (ETRUNC), data offset >= 20 (ELEN) and within @p len
 * (ETRUNC: a data offset beyond the segment), the checksum over the
 * pseudo-header and all @p len bytes unless UST_WIRE_F_NO_CSUM (ECSUM; only
 * the header then needs to be readable), and the option list (EOPTION: a
 * length below 2, an option running past the header, a known option of the
 * wrong size, SACK blocks not a multiple of 8). Unknown options are
 * skipped. A window scale above 14 is read as 14 (RFC 7323 2.3).
 */
int ust_tcp_parse(const void *buf, size_t len, rte_be32_t src,
		  rte_be32_t dst, int flags, struct ust_tcp_repr *r);

/** Bytes the options of @p o take on the wire (a multiple of 4, <= 40). */
size_t ust_tcp_opts_len(const struct ust_tcp_opts *o, bool syn);

/**
 * Emit a TCP header with the options of r->opts (r->hdr_len is computed),
 * and its checksum over @p plen bytes of @p payload (contiguous), or the
 * pseudo-header sum with UST_WIRE_F_CSUM_OFFLOAD. Options are laid out as
 * Linux lays them out: MSS, SACK-permitted with timestamps, window scale on
 * a SYN; timestamps and SACK blocks (as many as fit) otherwise. Returns the
 * header length, or 0 when @p len is too small.
 */
size_t ust_tcp_emit(void *buf, size_t len, struct ust_tcp_repr *r,
		    rte_be32_t src, rte_be32_t dst, const void *payload,
		    size_t plen, int flags);

/** Fill the checksum of an emitted segment from a partial sum of its
 *  payload (one's complement, not complemented), for payloads in mbufs. */
void ust_tcp_set_csum(void *hdr, size_t hdr_len, rte_be32_t src,
		      rte_be32_t dst, uint32_t payload_sum, size_t plen);

/** The same three over IPv6: the checksum over IPv6's pseudo-header (RFC
 *  8200 8.1), @p src and @p dst 16 bytes each; the rest as above. */
int ust_tcp6_parse(const void *buf, size_t len, const uint8_t *src,
		   const uint8_t *dst, int flags, struct ust_tcp_repr *r);
size_t ust_tcp6_emit(void *buf, size_t len, struct ust_tcp_repr *r,
		     const uint8_t *src, const uint8_t *dst,
		     const void *payload, size_t plen, int flags);
void ust_tcp6_set_csum(void *hdr, size_t hdr_len, const uint8_t *src,
		       const uint8_t *dst, uint32_t payload_sum, size_t plen);

#ifdef __cplusplus
}
#endif

#endif /* UST_WIRE_H */
