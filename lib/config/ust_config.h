/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/**
 * @file
 * Configuration files: the INI format of config/ustack.ini, read with
 * rte_cfgfile, into the structures the port layer and the stack take.
 *
 * Strict: an unknown section or key, or a value out of range, is an error
 * naming the file, section, key and problem, so that a typo never silently
 * falls back to a default. Needs no EAL: applications load the file before
 * rte_eal_init() and reject a bad one with exit status 2.
 *
 * The parsers of single values are public too, for command-line flags.
 */

#ifndef UST_CONFIG_H
#define UST_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_ether.h>

#include "ust_port.h"
#include "ust_stack.h"

#ifdef __cplusplus
extern "C" {
#endif

#define UST_CONFIG_MAX_STATIC_ARP 16
/** A configuration file larger than this is refused (1 MiB). */
#define UST_CONFIG_MAX_FILE (1u << 20)

/** The mbuf pool an application creates for a port. */
struct ust_pool_conf {
	uint32_t mbufs;      /**< mbufs in the pool (16383) */
	uint32_t cache;      /**< per-lcore cache (256) */
	uint16_t data_room;  /**< buffer size incl. headroom (2176) */
};

/** Everything a configuration file sets. */
struct ust_config {
	struct ust_port_conf port;
	struct ust_pool_conf pool;
	struct ust_stack_conf stack;
	uint32_t n_static_arp;
	struct {
		rte_be32_t ip;
		struct rte_ether_addr mac;
	} static_arp[UST_CONFIG_MAX_STATIC_ARP];
};

/** Defaults: what config/ustack.ini documents. */
void ust_config_defaults(struct ust_config *cfg);

/**
 * Load @p path over @p cfg. Returns 0, or -1 with a one-line message in
 * @p err (e.g. "ustack.ini: [udp] schedule: expected delta or legacy").
 * Refused too: a path that is not a regular file or is larger than
 * UST_CONFIG_MAX_FILE, a section given twice, a value longer than
 * rte_cfgfile keeps (CFG_VALUE_LEN - 2 characters), an address that
 * ust_check_addr() or ust_check_gateway() refuses, rto_min_ms above
 * rto_max_ms, and IPv6 settings ust_check_addr6() or ust_check_gateway6()
 * refuse. [ip6] addr turns IPv6 on as enable = 1 does.
 */
int ust_config_load(struct ust_config *cfg, const char *path, char *err,
		    size_t errlen);

/** "A.B.C.D" to a network-order address; 0 on success, -1 on error. */
int ust_parse_ipv4(const char *s, rte_be32_t *addr);

/** "A.B.C.D/N" (N 1..32); 0 on success, -1 on error. */
int ust_parse_ipv4_prefix(const char *s, rte_be32_t *addr, uint8_t *prefix);

/** Decimal integer within [min, max]; 0 on success, -1 on error. */
int ust_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out);

/**
 * Decimal number (fraction and exponent allowed) within [min, max]: a
 * digit or '.' first (no blanks, sign, hex), finite (no NaN, no inf). With
 * @p rest NULL nothing may follow; else *rest points after the number (for
 * a unit suffix). 0 on success, -1 on error.
 */
int ust_parse_double(const char *s, double min, double max, double *out,
		     const char **rest);

/**
 * Why @p addr/@p prefix cannot be our address (0.0.0.0, loopback,
 * multicast, limited broadcast, the subnet's network or broadcast address,
 * or a prefix above /30), or NULL when it can.
 */
const char *ust_check_addr(rte_be32_t addr, uint8_t prefix);

/**
 * Why @p gw cannot be the gateway of @p addr/@p prefix (our own address,
 * off-link, the subnet's broadcast or network address, multicast), or
 * NULL when it can; 0 (no gateway) is fine.
 */
const char *ust_check_gateway(rte_be32_t gw, rte_be32_t addr,
			      uint8_t prefix);

/** An IPv6 address in RFC 4291 2.2 text form into 16 bytes; 0 or -1. */
int ust_parse_ipv6(const char *s, uint8_t *addr);

/** "ADDR/N" (N 1..128); 0 on success, -1 on error. */
int ust_parse_ipv6_prefix(const char *s, uint8_t *addr, uint8_t *prefix);

/**
 * Why @p a/@p prefix cannot be our global IPv6 address (unspecified,
 * loopback, multicast, link-local: the stack forms that one itself,
 * IPv4-mapped), or NULL when it can.
 */
const char *ust_check_addr6(const uint8_t *a, uint8_t prefix);

/**
 * Why @p gw cannot be the IPv6 default router (multicast, our address,
 * off-link: neither link-local nor in @p addr/@p prefix), or NULL when it
 * can; all zero (none) is fine.
 */
const char *ust_check_gateway6(const uint8_t *gw, const uint8_t *addr,
			       uint8_t prefix);

/** "aa:bb:cc:dd:ee:ff"; 0 on success, -1 on error. */
int ust_parse_mac(const char *s, struct rte_ether_addr *mac);

#ifdef __cplusplus
}
#endif

#endif /* UST_CONFIG_H */
