/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Loading config/ustack.ini-style files with rte_cfgfile. One table lists
 * every key: its section, name, type, where it lands in struct ust_config
 * and its bounds. ust_config_load() walks the file, not the table, so that
 * an unknown key is an error rather than ignored.
 */

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include <arpa/inet.h>
#include <rte_cfgfile.h>
#include <rte_mbuf.h>

#include "ust_config.h"
#include "ust_tcp_tx.h"

enum key_type {
	K_U8, K_U16, K_U32, K_BOOL, K_PREFIX, K_IPV4_OPT, K_SCHEDULE,
	K_RELEASE, K_MEM, K_EPHEMERAL, K_STATIC_ARP, K_CC, K_TX_LAYOUT,
	K_IPV6_PREFIX, K_IPV6_OPT,
};

struct key {
	const char *section;
	const char *name;
	enum key_type type;
	size_t off;
	uint32_t min;
	uint32_t max;
};

#define OFF(f) offsetof(struct ust_config, f)

static const struct key keys[] = {
	{ "port", "id", K_U16, OFF(port.port_id), 0, RTE_MAX_ETHPORTS - 1 },
	{ "port", "queues", K_U16, OFF(port.nb_queues), 1, 64 },
	{ "port", "rx_desc", K_U16, OFF(port.rx_desc), 32, 32768 },
	{ "port", "tx_desc", K_U16, OFF(port.tx_desc), 32, 32768 },
	{ "port", "mtu", K_U16, OFF(port.mtu), 0, 9600 },
	{ "port", "promisc", K_BOOL, OFF(port.promisc), 0, 1 },
	{ "port", "offloads", K_BOOL, OFF(port.offloads), 0, 1 },
	{ "port", "rx_intr", K_BOOL, OFF(port.rx_intr), 0, 1 },
	{ "pool", "mbufs", K_U32, OFF(pool.mbufs), 1023, 16u << 20 },
	{ "pool", "cache", K_U32, OFF(pool.cache), 0, 512 },
	{ "pool", "data_room", K_U16, OFF(pool.data_room), 256, 65535 },
	{ "ip", "addr", K_PREFIX, OFF(stack.addr), 0, 0 },
	{ "ip", "gateway", K_IPV4_OPT, OFF(stack.gateway), 0, 0 },
	{ "ip", "ttl", K_U8, OFF(stack.ttl), 1, 255 },
	{ "ip", "accept_source_route", K_BOOL, OFF(stack.accept_source_route),
	  0, 1 },
	{ "ip6", "enable", K_BOOL, OFF(stack.ip6.enable), 0, 1 },
	{ "ip6", "addr", K_IPV6_PREFIX, 0, 0, 0 },
	{ "ip6", "gateway", K_IPV6_OPT, OFF(stack.ip6.gateway), 0, 0 },
	{ "ip6", "hop_limit", K_U8, OFF(stack.ip6.hop_limit), 1, 255 },
	{ "ip6", "dad_transmits", K_U8, OFF(stack.ip6.dad_transmits), 0, 10 },
	{ "ip6", "accept_ra", K_BOOL, OFF(stack.ip6.accept_ra), 0, 1 },
	{ "stack", "rx_burst", K_U16, OFF(stack.rx_burst), 1, 64 },
	{ "stack", "tx_stage", K_U16, OFF(stack.tx_stage), 64, 16384 },
	{ "stack", "max_sockets", K_U32, OFF(stack.max_sockets), 1,
	  UST_MAX_SOCKETS },
	{ "stack", "pool_reserve", K_U32, OFF(stack.pool_reserve), 0,
	  16u << 20 },
	{ "stack", "ephemeral", K_EPHEMERAL, 0, 0, 0 },
	{ "arp", "entries", K_U32, OFF(stack.arp.entries), 1, 1u << 20 },
	{ "arp", "reachable_ms", K_U32, OFF(stack.arp.reachable_ms), 1,
	  86400000 },
	{ "arp", "retrans_ms", K_U32, OFF(stack.arp.retrans_ms), 1, 60000 },
	{ "arp", "max_probes", K_U32, OFF(stack.arp.max_probes), 1, 255 },
	{ "arp", "gc_ms", K_U32, OFF(stack.arp.gc_ms), 1, 86400000 },
	{ "arp", "queue_len", K_U32, OFF(stack.arp.queue_len), 1, 65535 },
	{ "arp", "pending_max", K_U32, OFF(stack.arp.pending_max), 1,
	  1u << 24 },
	{ "arp", "static", K_STATIC_ARP, 0, 0, 0 },
	{ "icmp", "msgs_per_sec", K_U32, OFF(stack.icmp.msgs_per_sec), 0,
	  1000000 },
	{ "icmp", "burst", K_U32, OFF(stack.icmp.burst), 1, 1000000 },
	{ "frag", "max_datagrams", K_U32, OFF(stack.frag.max_datagrams), 1,
	  1u << 20 },
	{ "frag", "mem_max", K_U32, OFF(stack.frag.mem_max), 65536,
	  1u << 30 },
	{ "frag", "timeout_ms", K_U32, OFF(stack.frag.timeout_ms), 1,
	  3600000 },
	{ "frag", "max_frags", K_U32, OFF(stack.frag.max_frags), 1, 1024 },
	{ "udp", "rmem_default", K_U32, OFF(stack.udp_mem.rmem_default),
	  UST_SOCK_MIN_RCVBUF, INT32_MAX },
	{ "udp", "rmem_max", K_U32, OFF(stack.udp_mem.rmem_max), 1,
	  INT32_MAX },
	{ "udp", "wmem_default", K_U32, OFF(stack.udp_mem.wmem_default),
	  UST_SOCK_MIN_SNDBUF, INT32_MAX },
	{ "udp", "wmem_max", K_U32, OFF(stack.udp_mem.wmem_max), 1,
	  INT32_MAX },
	{ "udp", "rmem_min", K_U32, OFF(stack.udp_mem.rmem_min), 0,
	  INT32_MAX },
	{ "udp", "mem", K_MEM, OFF(stack.udp_mem), 0, 0 },
	{ "udp", "pcpu_reserve", K_U32, OFF(stack.udp_mem.pcpu_reserve), 0,
	  1u << 20 },
	{ "udp", "schedule", K_SCHEDULE, OFF(stack.udp_mem.schedule), 0, 0 },
	{ "udp", "release", K_RELEASE, OFF(stack.udp_mem.release), 0, 0 },
	{ "tcp", "max_conns", K_U32, OFF(stack.tcp.max_conns), 1,
	  UST_MAX_SOCKETS },
	{ "tcp", "rmem_default", K_U32, OFF(stack.tcp.rmem_default),
	  UST_SOCK_MIN_RCVBUF, INT32_MAX },
	{ "tcp", "rmem_max", K_U32, OFF(stack.tcp.rmem_max), 1, INT32_MAX },
	{ "tcp", "wmem_default", K_U32, OFF(stack.tcp.wmem_default),
	  UST_SOCK_MIN_SNDBUF, INT32_MAX },
	{ "tcp", "wmem_max", K_U32, OFF(stack.tcp.wmem_max), 1, INT32_MAX },
	{ "tcp", "mem", K_MEM, OFF(stack.tcp_mem), 0, 0 },
	{ "tcp", "rto_min_ms", K_U32, OFF(stack.tcp.rto_min_ms), 1, 60000 },
	{ "tcp", "rto_max_ms", K_U32, OFF(stack.tcp.rto_max_ms), 1, 3600000 },
	{ "tcp", "rto_init_ms", K_U32, OFF(stack.tcp.rto_init_ms), 1, 60000 },
	{ "tcp", "delack_ms", K_U32, OFF(stack.tcp.delack_ms), 1, 500 },
	{ "tcp", "quickack", K_U32, OFF(stack.tcp.quickack), 0, 255 },
	{ "tcp", "syn_retries", K_U32, OFF(stack.tcp.syn_retries), 1, 127 },
	{ "tcp", "synack_retries", K_U32, OFF(stack.tcp.synack_retries), 1,
	  127 },
	{ "tcp", "retries2", K_U32, OFF(stack.tcp.retries2), 1, 127 },
	{ "tcp", "max_syn_backlog", K_U32, OFF(stack.tcp.max_syn_backlog), 1,
	  1u << 24 },
	{ "tcp", "syncookies", K_U32, OFF(stack.tcp.syncookies), 0, 2 },
	{ "tcp", "time_wait_ms", K_U32, OFF(stack.tcp.time_wait_ms), 1,
	  3600000 },
	{ "tcp", "fin_timeout_ms", K_U32, OFF(stack.tcp.fin_timeout_ms), 1,
	  3600000 },
	{ "tcp", "keepalive_time_ms", K_U32, OFF(stack.tcp.keepalive_time_ms),
	  1000, 32767000 },
	{ "tcp", "keepalive_intvl_ms", K_U32,
	  OFF(stack.tcp.keepalive_intvl_ms), 1000, 32767000 },
	{ "tcp", "keepalive_probes", K_U32, OFF(stack.tcp.keepalive_probes), 1,
	  127 },
	{ "tcp", "init_cwnd", K_U32, OFF(stack.tcp.init_cwnd), 1, 1000 },
	{ "tcp", "min_tso_segs", K_U32, OFF(stack.tcp.min_tso_segs), 1, 255 },
	{ "tcp", "challenge_ack_limit", K_U32,
	  OFF(stack.tcp.challenge_ack_limit), 0, 1000000 },
	{ "tcp", "invalid_ratelimit_ms", K_U32,
	  OFF(stack.tcp.invalid_ratelimit_ms), 0, 60000 },
	{ "tcp", "synack_rtx_burst", K_U32, OFF(stack.tcp.synack_rtx_burst), 1,
	  65535 },
	{ "tcp", "listen_overcommit", K_U8, OFF(stack.tcp.listen_overcommit),
	  0, 1 },
	{ "tcp", "sack", K_U8, OFF(stack.tcp.sack), 0, 1 },
	{ "tcp", "dsack", K_U8, OFF(stack.tcp.dsack), 0, 1 },
	{ "tcp", "moderate_rcvbuf", K_U8, OFF(stack.tcp.moderate_rcvbuf), 0,
	  1 },
	{ "tcp", "slow_start_after_idle", K_U8,
	  OFF(stack.tcp.slow_start_after_idle), 0, 1 },
	{ "tcp", "timestamps", K_U8, OFF(stack.tcp.timestamps), 0, 1 },
	{ "tcp", "window_scaling", K_U8, OFF(stack.tcp.window_scaling), 0, 1 },
	{ "tcp", "tw_reuse", K_U8, OFF(stack.tcp.tw_reuse), 0, 1 },
	{ "tcp", "rfc1337", K_U8, OFF(stack.tcp.rfc1337), 0, 1 },
	{ "tcp", "congestion", K_CC, OFF(stack.tcp.congestion), 0, 0 },
	{ "tcp", "tx_layout", K_TX_LAYOUT, OFF(stack.tcp.tx_layout), 0, 0 },
	{ "tcp", "first_linear_max", K_U16, OFF(stack.tcp.first_linear_max),
	  0, 65535 },
	{ "tcp", "copy_small", K_U16, OFF(stack.tcp.copy_small), 0,
	  UST_TCP_COPY_SMALL_MAX },
	{ "tcp", "copy_small_bufs", K_U32, OFF(stack.tcp.copy_small_bufs), 64,
	  1u << 20 },
};

void
ust_config_defaults(struct ust_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	ust_port_conf_defaults(&cfg->port);
	ust_stack_conf_defaults(&cfg->stack);
	cfg->pool.mbufs = 16383;
	cfg->pool.cache = 256;
	cfg->pool.data_room = RTE_MBUF_DEFAULT_BUF_SIZE;
}

int
ust_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out)
{
	unsigned long long v;
	char *end;

	/* digits only: strtoull() would take leading blanks and a sign */
	if (s == NULL || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int
ust_parse_double(const char *s, double min, double max, double *out,
		 const char **rest)
{
	char *end;
	double d;

	/* a digit or a point first: no blanks, sign, "nan", "inf"; no hex */
	if (s == NULL || !(isdigit((unsigned char)*s) || *s == '.') ||
	    (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')))
		return -1;
	errno = 0;
	d = strtod(s, &end);
	if (errno != 0 || end == s || !isfinite(d) || d < min || d > max)
		return -1;
	if (rest != NULL)
		*rest = end;
	else if (*end != '\0')
		return -1;
	*out = d;
	return 0;
}

/* host-order mask of a prefix length (a shift by 32 is undefined) */
static uint32_t
prefix_mask(uint8_t prefix)
{
	if (prefix == 0)
		return 0;
	if (prefix >= 32)
		return UINT32_MAX;
	return ~(UINT32_MAX >> prefix);
}

const char *
ust_check_addr(rte_be32_t addr, uint8_t prefix)
{
	uint32_t h = rte_be_to_cpu_32(addr);
	uint32_t mask = prefix_mask(prefix);

	if (h == 0)
		return "0.0.0.0 is not an address";
	if ((h >> 24) == 127)
		return "a loopback address (127.0.0.0/8)";
	if ((h >> 28) == 0xe)
		return "a multicast address (224.0.0.0/4)";
	if (h == UINT32_MAX)
		return "the limited broadcast address";
	if (prefix > 30)
		return "prefix longer than /30 (no subnet with a neighbour "
		       "and a broadcast address)";
	if ((h & ~mask) == 0)
		return "the subnet's network address";
	if ((h & ~mask) == ~mask)
		return "the subnet's broadcast address";
	return NULL;
}

const char *
ust_check_gateway(rte_be32_t gw, rte_be32_t addr, uint8_t prefix)
{
	uint32_t g = rte_be_to_cpu_32(gw), a = rte_be_to_cpu_32(addr);
	uint32_t mask = prefix_mask(prefix);

	if (g == 0)
		return NULL; /* none */
	if (g == a)
		return "our own address";
	if ((g & mask) != (a & mask))
		return "not in our subnet (off-link)";
	if ((g & ~mask) == ~mask || g == UINT32_MAX)
		return "the subnet's broadcast address";
	if ((g & ~mask) == 0)
		return "the subnet's network address";
	if ((g >> 28) == 0xe)
		return "a multicast address";
	return NULL;
}

int
ust_parse_ipv4(const char *s, rte_be32_t *addr)
{
	struct in_addr a;

	if (s == NULL || inet_pton(AF_INET, s, &a) != 1)
		return -1;
	*addr = a.s_addr;
	return 0;
}

int
ust_parse_ipv4_prefix(const char *s, rte_be32_t *addr, uint8_t *prefix)
{
	char buf[32];
	const char *slash;
	uint32_t p;

	if (s == NULL)
		return -1;
	slash = strchr(s, '/');
	if (slash == NULL || (size_t)(slash - s) >= sizeof(buf))
		return -1;
	memcpy(buf, s, slash - s);
	buf[slash - s] = '\0';
	if (ust_parse_ipv4(buf, addr) != 0 ||
	    ust_parse_u32(slash + 1, 1, 32, &p) != 0)
		return -1;
	*prefix = (uint8_t)p;
	return 0;
}

int
ust_parse_ipv6(const char *s, uint8_t *addr)
{
	struct in6_addr a;

	/* inet_pton takes exactly the RFC 4291 2.2 text forms: no blanks,
	 * no zone, no prefix */
	if (s == NULL || inet_pton(AF_INET6, s, &a) != 1)
		return -1;
	memcpy(addr, &a, sizeof(a));
	return 0;
}

int
ust_parse_ipv6_prefix(const char *s, uint8_t *addr, uint8_t *prefix)
{
	char buf[INET6_ADDRSTRLEN];
	const char *slash;
	uint32_t p;

	if (s == NULL)
		return -1;
	slash = strchr(s, '/');
	if (slash == NULL || (size_t)(slash - s) >= sizeof(buf))
		return -1;
	memcpy(buf, s, slash - s);
	buf[slash - s] = '\0';
	if (ust_parse_ipv6(buf, addr) != 0 ||
	    ust_parse_u32(slash + 1, 1, 128, &p) != 0)
		return -1;
	*prefix = (uint8_t)p;
	return 0;
}

const char *
ust_check_addr6(const uint8_t *a, uint8_t prefix)
{
	static const uint8_t z[16];
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					    0xff, 0xff };

	if (memcmp(a, z, 15) == 0 && (a[15] == 0 || a[15] == 1))
		return "the unspecified or loopback address";
	if (a[0] == 0xff)
		return "a multicast address (ff00::/8)";
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
		return "a link-local address (fe80::/10: the stack forms its "
		       "own from the MAC)";
	if (memcmp(a, mapped, sizeof(mapped)) == 0)
		return "an IPv4-mapped address (::ffff:0:0/96)";
	if (prefix == 0 || prefix > 128)
		return "prefix length not 1-128";
	return NULL;
}

const char *
ust_check_gateway6(const uint8_t *gw, const uint8_t *addr, uint8_t prefix)
{
	static const uint8_t z[16];
	uint8_t bytes = prefix / 8, bits = prefix % 8;
	bool ll = gw[0] == 0xfe && (gw[1] & 0xc0) == 0x80;

	if (memcmp(gw, z, 16) == 0)
		return NULL; /* none */
	if (gw[0] == 0xff)
		return "a multicast address";
	if (memcmp(gw, addr, 16) == 0)
		return "our own address";
	if (ll)
		return NULL; /* routers advertise from link-local ones */
	if (memcmp(addr, z, 16) == 0)
		return "not link-local, and no [ip6] addr whose prefix holds "
		       "it";
	if (memcmp(gw, addr, bytes) != 0 || (bits != 0 &&
	    ((gw[bytes] ^ addr[bytes]) & (uint8_t)(0xff00 >> bits)) != 0))
		return "off-link (neither link-local nor in the address's "
		       "prefix)";
	return NULL;
}

int
ust_parse_mac(const char *s, struct rte_ether_addr *mac)
{
	unsigned int b[6];
	char tail;
	int i;

	/* exactly xx:xx:xx:xx:xx:xx: sscanf("%2x") would take blanks, a
	 * sign and "0x" */
	if (s == NULL || strlen(s) != 17)
		return -1;
	for (i = 0; i < 17; i++)
		if (i % 3 == 2 ? s[i] != ':' : !isxdigit((unsigned char)s[i]))
			return -1;
	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1],
				&b[2], &b[3], &b[4], &b[5], &tail) != 6)
		return -1;
	for (i = 0; i < 6; i++)
		mac->addr_bytes[i] = (uint8_t)b[i];
	return 0;
}

/* @s starts with a digit and holds only digits and characters of @sep:
 * what sscanf("%u") alone would not check (blanks first, signs, wrap) */
static bool
digits_and(const char *s, const char *sep)
{
	if (!isdigit((unsigned char)*s))
		return false;
	for (; *s != '\0'; s++)
		if (!isdigit((unsigned char)*s) && strchr(sep, *s) == NULL)
			return false;
	return true;
}

static int
cfg_err(char *err, size_t len, const char *path, const char *sec,
	const char *key, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (key != NULL)
		snprintf(err, len, "%s: [%s] %s: %s", path, sec, key, msg);
	else
		snprintf(err, len, "%s: [%s]: %s", path, sec, msg);
	return -1;
}

static int
set_static_arp(struct ust_config *cfg, const char *val)
{
	char buf[1024];
	char *tok, *save = NULL;

	if (strlen(val) >= sizeof(buf))
		return -1;
	strcpy(buf, val);
	/* entries accumulate over repeated "static =" lines */
	for (tok = strtok_r(buf, ", ", &save); tok != NULL;
	     tok = strtok_r(NULL, ", ", &save)) {
		char *eq = strchr(tok, '=');

		if (eq == NULL ||
		    cfg->n_static_arp >= UST_CONFIG_MAX_STATIC_ARP)
			return -1;
		*eq = '\0';
		if (ust_parse_ipv4(tok,
				   &cfg->static_arp[cfg->n_static_arp].ip) ||
		    ust_parse_mac(eq + 1,
				  &cfg->static_arp[cfg->n_static_arp].mac))
			return -1;
		cfg->n_static_arp++;
	}
	return 0;
}

static int
set_key(struct ust_config *cfg, const struct key *k, const char *val,
	const char **why)
{
	uint8_t *base = (uint8_t *)cfg;
	uint32_t v;

	switch (k->type) {
	case K_U8:
	case K_U16:
	case K_U32:
	case K_BOOL:
		if (ust_parse_u32(val, k->min, k->max, &v) != 0) {
			*why = "out of range or not a number";
			return -1;
		}
		if (k->type == K_U8)
			*(uint8_t *)(base + k->off) = (uint8_t)v;
		else if (k->type == K_U16)
			*(uint16_t *)(base + k->off) = (uint16_t)v;
		else if (k->type == K_U32)
			*(uint32_t *)(base + k->off) = v;
		else
			*(bool *)(base + k->off) = v != 0;
		return 0;
	case K_PREFIX:
		if (ust_parse_ipv4_prefix(val, &cfg->stack.addr,
					  &cfg->stack.prefix_len) != 0) {
			*why = "expected A.B.C.D/N";
			return -1;
		}
		return 0;
	case K_IPV4_OPT:
		if (*val == '\0') {
			*(rte_be32_t *)(base + k->off) = 0;
			return 0;
		}
		if (ust_parse_ipv4(val, (rte_be32_t *)(base + k->off)) != 0) {
			*why = "expected A.B.C.D";
			return -1;
		}
		return 0;
	case K_IPV6_PREFIX:
		if (*val == '\0') {
			memset(cfg->stack.ip6.addr, 0, 16);
			return 0;
		}
		if (ust_parse_ipv6_prefix(val, cfg->stack.ip6.addr,
					  &cfg->stack.ip6.prefix_len) != 0) {
			*why = "expected an IPv6 address/N";
			return -1;
		}
		return 0;
	case K_IPV6_OPT:
		if (*val == '\0') {
			memset(base + k->off, 0, 16);
			return 0;
		}
		if (ust_parse_ipv6(val, base + k->off) != 0) {
			*why = "expected an IPv6 address";
			return -1;
		}
		return 0;
	case K_SCHEDULE:
		if (strcmp(val, "delta") == 0)
			cfg->stack.udp_mem.schedule = UST_MEM_SCHEDULE_DELTA;
		else if (strcmp(val, "legacy") == 0)
			cfg->stack.udp_mem.schedule = UST_MEM_SCHEDULE_LEGACY;
		else {
			*why = "expected delta or legacy";
			return -1;
		}
		return 0;
	case K_RELEASE:
		if (strcmp(val, "batched") == 0)
			cfg->stack.udp_mem.release = UST_MEM_RELEASE_BATCHED;
		else if (strcmp(val, "unbatched") == 0)
			cfg->stack.udp_mem.release =
				UST_MEM_RELEASE_UNBATCHED;
		else {
			*why = "expected batched or unbatched";
			return -1;
		}
		return 0;
	case K_MEM: {
		struct ust_mem_conf *mc = (struct ust_mem_conf *)(base + k->off);
		unsigned long long a, b, c;
		char tail;

		if (!digits_and(val, " ") ||
		    sscanf(val, "%llu %llu %llu%c", &a, &b, &c, &tail) != 3 ||
		    a > b || b > c) {
			*why = "expected three page counts, min <= pressure <= max";
			return -1;
		}
		mc->mem[0] = a;
		mc->mem[1] = b;
		mc->mem[2] = c;
		return 0;
	}
	case K_CC:
		if (strcmp(val, "cubic") != 0 && strcmp(val, "newreno") != 0 &&
		    strcmp(val, "reno") != 0) {
			*why = "expected cubic or newreno";
			return -1;
		}
		snprintf(cfg->stack.tcp.congestion,
			 sizeof(cfg->stack.tcp.congestion), "%.*s",
			 (int)sizeof(cfg->stack.tcp.congestion) - 1, val);
		return 0;
	case K_TX_LAYOUT: {
		int l = ust_tcp_tx_layout_parse(val);

		if (l < 0) {
			*why = "expected linear, chained or first-linear";
			return -1;
		}
		cfg->stack.tcp.tx_layout = (uint8_t)l;
		return 0;
	}
	case K_EPHEMERAL: {
		unsigned int lo, hi;
		char tail;

		if (!digits_and(val, "-") ||
		    sscanf(val, "%u-%u%c", &lo, &hi, &tail) != 2 || lo == 0 ||
		    lo > hi || hi > 65535) {
			*why = "expected LOW-HIGH within 1-65535";
			return -1;
		}
		cfg->stack.ephemeral_lo = (uint16_t)lo;
		cfg->stack.ephemeral_hi = (uint16_t)hi;
		return 0;
	}
	case K_STATIC_ARP:
		if (set_static_arp(cfg, val) != 0) {
			*why = "expected A.B.C.D=aa:bb:cc:dd:ee:ff[, ...] (at most 16 in all lines)";
			return -1;
		}
		return 0;
	}
	*why = "internal error";
	return -1;
}

/* rte_cfgfile reads lines into a buffer of CFG_NAME_LEN + CFG_VALUE_LEN +
 * 4 bytes and fails on a longer one, logging to stderr: refuse it first,
 * with its number. */
static int
config_line_check(const char *path, char *err, size_t len)
{
	const size_t max = CFG_NAME_LEN + CFG_VALUE_LEN + 2;
	size_t col = 0;
	unsigned int line = 1;
	FILE *f = fopen(path, "r");
	int c;

	if (f == NULL) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	while ((c = getc(f)) != EOF) {
		if (c == '\n') {
			line++;
			col = 0;
		} else if (++col > max) {
			fclose(f);
			snprintf(err, len, "%s: line %u longer than %zu "
				 "characters", path, line, max);
			return -1;
		}
	}
	fclose(f);
	return 0;
}

/* What one key cannot say alone: constraints between keys, and addresses
 * that parse but cannot be ours. */
static int
config_check(const struct ust_config *cfg, const char *path, char *err,
	     size_t len)
{
	const struct ust_stack_conf *sc = &cfg->stack;
	const char *why;

	if (sc->addr != 0 &&
	    (why = ust_check_addr(sc->addr, sc->prefix_len)) != NULL)
		return cfg_err(err, len, path, "ip", "addr", "%s", why);
	if (sc->addr != 0 && (why = ust_check_gateway(sc->gateway, sc->addr,
						       sc->prefix_len)) != NULL)
		return cfg_err(err, len, path, "ip", "gateway", "%s", why);
	if (memcmp(sc->ip6.addr, (uint8_t[16]){ 0 }, 16) != 0 &&
	    (why = ust_check_addr6(sc->ip6.addr, sc->ip6.prefix_len)) != NULL)
		return cfg_err(err, len, path, "ip6", "addr", "%s", why);
	if ((why = ust_check_gateway6(sc->ip6.gateway, sc->ip6.addr,
				      sc->ip6.prefix_len)) != NULL)
		return cfg_err(err, len, path, "ip6", "gateway", "%s", why);
	if (sc->tcp.rto_min_ms > sc->tcp.rto_max_ms)
		return cfg_err(err, len, path, "tcp", "rto_min_ms",
			       "%u exceeds rto_max_ms %u", sc->tcp.rto_min_ms,
			       sc->tcp.rto_max_ms);
	return 0;
}

int
ust_config_load(struct ust_config *cfg, const char *path, char *err,
		size_t errlen)
{
	struct rte_cfgfile *f;
	int nsec, i, rc = 0;
	char **names = NULL;

	struct stat sb;

	/* rte_cfgfile reads a directory as an empty file and never ends on
	 * /dev/zero: a regular file of bounded size only */
	if (stat(path, &sb) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(sb.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		return -1;
	}
	if (sb.st_size > UST_CONFIG_MAX_FILE) {
		snprintf(err, errlen, "%s: larger than %u bytes", path,
			 UST_CONFIG_MAX_FILE);
		return -1;
	}
	if (config_line_check(path, err, errlen) != 0)
		return -1;
	f = rte_cfgfile_load(path, CFG_FLAG_EMPTY_VALUES);
	if (f == NULL) {
		snprintf(err, errlen, "%s: cannot read or parse the file",
			 path);
		return -1;
	}
	nsec = rte_cfgfile_num_sections(f, NULL, 0);
	if (nsec > 0) {
		bool oom = false;

		names = calloc(nsec, sizeof(*names));
		for (i = 0; names != NULL && i < nsec; i++) {
			names[i] = calloc(1, CFG_NAME_LEN);
			oom |= names[i] == NULL;
		}
		if (names == NULL || oom) {
			for (i = 0; names != NULL && i < nsec; i++)
				free(names[i]);
			free(names);
			rte_cfgfile_close(f);
			snprintf(err, errlen, "%s: out of memory", path);
			return -1;
		}
		rte_cfgfile_sections(f, names, nsec);
	}
	for (i = 0; rc == 0 && i < nsec; i++) {
		int ne = rte_cfgfile_section_num_entries(f, names[i]);
		struct rte_cfgfile_entry *e;
		bool known_sec = false;
		unsigned int k;
		int j;

		for (k = 0; k < RTE_DIM(keys); k++)
			if (strcmp(keys[k].section, names[i]) == 0)
				known_sec = true;
		if (!known_sec) {
			rc = cfg_err(err, errlen, path, names[i], NULL,
				     "unknown section");
			break;
		}
		/* rte_cfgfile keeps a repeated section apart, and lookups by
		 * name find the first: the second would be ignored */
		for (j = 0; j < i; j++)
			if (strcmp(names[j], names[i]) == 0)
				break;
		if (j < i) {
			rc = cfg_err(err, errlen, path, names[i], NULL,
				     "section given twice (merge them)");
			break;
		}
		if (ne <= 0)
			continue;
		e = calloc(ne, sizeof(*e));
		if (e == NULL) {
			rc = cfg_err(err, errlen, path, names[i], NULL,
				     "out of memory");
			break;
		}
		rte_cfgfile_section_entries(f, names[i], e, ne);
		for (j = 0; rc == 0 && j < ne; j++) {
			const char *why = NULL;

			for (k = 0; k < RTE_DIM(keys); k++)
				if (strcmp(keys[k].section, names[i]) == 0 &&
				    strcmp(keys[k].name, e[j].name) == 0)
					break;
			if (k == RTE_DIM(keys))
				rc = cfg_err(err, errlen, path, names[i],
					     e[j].name, "unknown key");
			else if (strlen(e[j].value) >= CFG_VALUE_LEN - 1)
				/* rte_cfgfile cut it without a word */
				rc = cfg_err(err, errlen, path, names[i],
					     e[j].name, "value longer than %d "
					     "characters", CFG_VALUE_LEN - 2);
			else if (set_key(cfg, &keys[k], e[j].value, &why) != 0)
				rc = cfg_err(err, errlen, path, names[i],
					     e[j].name, "%s (got \"%s\")", why,
					     e[j].value);
		}
		free(e);
	}
	for (i = 0; names != NULL && i < nsec; i++)
		free(names[i]);
	free(names);
	rte_cfgfile_close(f);
	if (rc == 0)
		rc = config_check(cfg, path, err, errlen);
	/* a global address turns IPv6 on, wherever enable is */
	if (rc == 0 && memcmp(cfg->stack.ip6.addr, (uint8_t[16]){ 0 },
			      16) != 0)
		cfg->stack.ip6.enable = true;
	return rc;
}
