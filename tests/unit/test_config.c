/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Configuration files: the shipped config/ustack.ini loads and equals the
 * built-in defaults; each kind of mistake is refused with a message that
 * names the file, section, key and problem; flags' value parsers.
 */

#include <stdlib.h>
#include <unistd.h>

#include <rte_ip.h>

#include "ust_config.h"
#include "ust_tcp_tx.h"
#include "ut.h"

static char path[64];

static int
write_file(const char *text)
{
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/ust_cfg_%d.ini", (int)getpid());
	f = fopen(path, "w");
	if (f == NULL)
		return -1;
	fputs(text, f);
	fclose(f);
	return 0;
}

static int
load(const char *text, struct ust_config *c, char *err, size_t len)
{
	int rc;

	ust_config_defaults(c);
	if (write_file(text) != 0)
		return -2;
	rc = ust_config_load(c, path, err, len);
	unlink(path);
	return rc;
}

static int
test_shipped_file(void)
{
	const char *src = getenv("UST_SOURCE_ROOT");
	struct ust_config c, d;
	char file[512], err[256];

	UT_ASSERT(src != NULL, "UST_SOURCE_ROOT not set");
	snprintf(file, sizeof(file), "%s/config/ustack.ini", src);
	ust_config_defaults(&c);
	ust_config_defaults(&d);
	UT_EQ(ust_config_load(&c, file, err, sizeof(err)), 0);
	/* the file documents the defaults: loading it changes nothing
	 * except the address it sets */
	UT_EQ(c.stack.addr, RTE_BE32(UT_IPV4(198, 18, 0, 2)));
	UT_EQ(c.stack.prefix_len, 24);
	c.stack.addr = d.stack.addr;
	c.stack.prefix_len = d.stack.prefix_len;
	UT_EQ(c.port.rx_desc, d.port.rx_desc);
	UT_EQ(c.pool.mbufs, d.pool.mbufs);
	UT_EQ(c.pool.data_room, d.pool.data_room);
	UT_EQ(c.stack.rx_burst, d.stack.rx_burst);
	UT_EQ(c.stack.tx_stage, d.stack.tx_stage);
	UT_EQ(c.stack.ephemeral_lo, d.stack.ephemeral_lo);
	UT_EQ(c.stack.ephemeral_hi, d.stack.ephemeral_hi);
	UT_EQ(c.stack.arp.entries, d.stack.arp.entries);
	UT_EQ(c.stack.arp.reachable_ms, d.stack.arp.reachable_ms);
	UT_EQ(c.stack.arp.queue_len, d.stack.arp.queue_len);
	UT_EQ(c.stack.icmp.msgs_per_sec, d.stack.icmp.msgs_per_sec);
	UT_EQ(c.stack.udp_mem.rmem_default, d.stack.udp_mem.rmem_default);
	UT_EQ(c.stack.udp_mem.pcpu_reserve, d.stack.udp_mem.pcpu_reserve);
	UT_EQ(c.stack.udp_mem.schedule, d.stack.udp_mem.schedule);
	UT_EQ(c.stack.udp_mem.release, d.stack.udp_mem.release);
	UT_ASSERT(memcmp(&c.stack.tcp, &d.stack.tcp, sizeof(c.stack.tcp)) ==
		  0, "[tcp] in config/ustack.ini differs from the defaults");
	UT_EQ(c.stack.tcp_mem.mem[2], d.stack.tcp_mem.mem[2]);
	UT_EQ(c.stack.gateway, 0);
	UT_EQ(c.n_static_arp, 0);
	UT_EQ(c.stack.ip6.enable, d.stack.ip6.enable);
	UT_EQ(c.stack.ip6.hop_limit, d.stack.ip6.hop_limit);
	UT_EQ(c.stack.ip6.dad_transmits, d.stack.ip6.dad_transmits);
	UT_EQ(c.stack.ip6.accept_ra, d.stack.ip6.accept_ra);
	UT_EQ(c.stack.ip6.addr[0], 0);
	return 0;
}

static int
test_values(void)
{
	struct ust_config c;
	char err[256];

	UT_EQ(load("[ip]\naddr = 198.19.1.1/16\ngateway = 198.19.0.1\n"
		   "[udp]\nschedule = legacy\nrelease = unbatched\n"
		   "mem = 10 20 30\n"
		   "[stack]\nephemeral = 40000-40100\n"
		   "[arp]\nstatic = 198.19.0.1=02:00:00:00:00:01, "
		   "198.19.0.9=02:00:00:00:00:09\n"
		   "[port]\nmtu = 9000\npromisc = 1\n"
		   "[tcp]\ncongestion = newreno\nsack = 0\nrto_min_ms = 50\n"
		   "mem = 1 2 3\ntime_wait_ms = 2000\n"
		   "tx_layout = first-linear\ncopy_small = 256\n"
		   "first_linear_max = 1000\n", &c, err,
		   sizeof(err)), 0);
	UT_ASSERT(strcmp(c.stack.tcp.congestion, "newreno") == 0);
	UT_EQ(c.stack.tcp.sack, 0);
	UT_EQ(c.stack.tcp.rto_min_ms, 50);
	UT_EQ(c.stack.tcp_mem.mem[2], 3);
	UT_EQ(c.stack.tcp.time_wait_ms, 2000);
	UT_EQ(c.stack.tcp.tx_layout, UST_TCP_TX_FIRST_LINEAR);
	UT_EQ(c.stack.tcp.copy_small, 256);
	UT_EQ(c.stack.tcp.first_linear_max, 1000);
	UT_EQ(c.stack.addr, RTE_BE32(UT_IPV4(198, 19, 1, 1)));
	UT_EQ(c.stack.prefix_len, 16);
	UT_EQ(c.stack.gateway, RTE_BE32(UT_IPV4(198, 19, 0, 1)));
	UT_EQ(c.stack.udp_mem.schedule, UST_MEM_SCHEDULE_LEGACY);
	UT_EQ(c.stack.udp_mem.release, UST_MEM_RELEASE_UNBATCHED);
	UT_EQ(c.stack.udp_mem.mem[1], 20);
	UT_EQ(c.stack.ephemeral_lo, 40000);
	UT_EQ(c.stack.ephemeral_hi, 40100);
	UT_EQ(c.n_static_arp, 2);
	UT_EQ(c.static_arp[1].mac.addr_bytes[5], 9);
	UT_EQ(c.port.mtu, 9000);
	UT_ASSERT(c.port.promisc);
	UT_ASSERT(!c.stack.ip6.enable);
	/* [ip6]: an address turns IPv6 on, wherever enable is */
	UT_EQ(load("[ip6]\naddr = 2001:2::2/48\nenable = 0\n"
		   "gateway = fe80::1\nhop_limit = 9\ndad_transmits = 0\n"
		   "accept_ra = 0\n", &c, err, sizeof(err)), 0);
	UT_ASSERT(c.stack.ip6.enable);
	UT_EQ(c.stack.ip6.addr[1], 0x01);
	UT_EQ(c.stack.ip6.addr[15], 2);
	UT_EQ(c.stack.ip6.prefix_len, 48);
	UT_EQ(c.stack.ip6.gateway[0], 0xfe);
	UT_EQ(c.stack.ip6.gateway[15], 1);
	UT_EQ(c.stack.ip6.hop_limit, 9);
	UT_EQ(c.stack.ip6.dad_transmits, 0);
	UT_ASSERT(!c.stack.ip6.accept_ra);
	UT_EQ(load("[ip6]\nenable = 1\n", &c, err, sizeof(err)), 0);
	UT_ASSERT(c.stack.ip6.enable);
	UT_EQ(c.stack.ip6.addr[0], 0);
	return 0;
}

static int
expect_error(const char *text, const char *needle)
{
	struct ust_config c;
	char err[256] = "";

	UT_EQ(load(text, &c, err, sizeof(err)), -1);
	UT_ASSERT(strstr(err, needle) != NULL, "message \"%s\" lacks \"%s\"",
		  err, needle);
	UT_ASSERT(strchr(err, '\n') == NULL, "one line: \"%s\"", err);
	return 0;
}

static int
test_errors(void)
{
	UT_EQ(expect_error("[bogus]\nx = 1\n", "[bogus]: unknown section"), 0);
	UT_EQ(expect_error("[udp]\nrmem_defualt = 1\n",
			   "[udp] rmem_defualt: unknown key"), 0);
	UT_EQ(expect_error("[udp]\nschedule = fast\n",
			   "[udp] schedule: expected delta or legacy"), 0);
	UT_EQ(expect_error("[stack]\nrx_burst = 65\n",
			   "[stack] rx_burst: out of range"), 0);
	UT_EQ(expect_error("[stack]\nrx_burst = -1\n",
			   "[stack] rx_burst"), 0);
	UT_EQ(expect_error("[stack]\nrx_burst = 12abc\n",
			   "[stack] rx_burst"), 0);
	UT_EQ(expect_error("[ip]\naddr = 198.18.0.300/24\n",
			   "[ip] addr: expected A.B.C.D/N"), 0);
	UT_EQ(expect_error("[ip]\naddr = 198.18.0.1\n", "[ip] addr"), 0);
	UT_EQ(expect_error("[ip]\naddr = 198.18.0.1/33\n", "[ip] addr"), 0);
	UT_EQ(expect_error("[ip]\ngateway = nope\n", "[ip] gateway"), 0);
	UT_EQ(expect_error("[udp]\nmem = 3 2 1\n", "[udp] mem"), 0);
	UT_EQ(expect_error("[tcp]\ncongestion = bbr\n",
			   "[tcp] congestion: expected cubic or newreno"), 0);
	UT_EQ(expect_error("[tcp]\nsack = 2\n", "[tcp] sack"), 0);
	UT_EQ(expect_error("[tcp]\ntx_layout = scatter\n",
			   "[tcp] tx_layout: expected linear, chained or "
			   "first-linear"), 0);
	UT_EQ(expect_error("[tcp]\ncopy_small = 600\n", "[tcp] copy_small"),
	      0);
	UT_EQ(expect_error("[tcp]\nrto_min_ms = 0\n", "[tcp] rto_min_ms"),
	      0);
	UT_EQ(expect_error("[stack]\nephemeral = 5000-4000\n",
			   "[stack] ephemeral"), 0);
	UT_EQ(expect_error("[arp]\nstatic = 1.2.3.4=zz:00:00:00:00:00\n",
			   "[arp] static"), 0);
	UT_EQ(expect_error("[ip6]\naddr = 2001:2::2\n",
			   "[ip6] addr: expected an IPv6 address/N"), 0);
	UT_EQ(expect_error("[ip6]\naddr = 2001:2::2/0\n", "[ip6] addr"), 0);
	UT_EQ(expect_error("[ip6]\naddr = fe80::2/64\n",
			   "[ip6] addr: a link-local address"), 0);
	UT_EQ(expect_error("[ip6]\naddr = 2001:2::2/64\ngateway = 2001:3::1\n",
			   "[ip6] gateway: off-link"), 0);
	UT_EQ(expect_error("[ip6]\ngateway = 2001:3::1\n",
			   "[ip6] gateway: not link-local"), 0);
	UT_EQ(expect_error("[ip6]\ngateway = ff02::2\n",
			   "[ip6] gateway: a multicast address"), 0);
	UT_EQ(expect_error("[ip6]\ndad_transmits = 11\n",
			   "[ip6] dad_transmits"), 0);
	{
		struct ust_config c;
		char err[256];

		ust_config_defaults(&c);
		UT_EQ(ust_config_load(&c, "/nonexistent/ustack.ini", err,
				      sizeof(err)), -1);
		UT_ASSERT(strstr(err, "/nonexistent/ustack.ini") != NULL);
	}
	return 0;
}

static int
test_parsers(void)
{
	uint32_t v;
	rte_be32_t a;
	uint8_t p;
	struct rte_ether_addr m;

	UT_EQ(ust_parse_u32("42", 0, 100, &v), 0);
	UT_EQ(v, 42);
	UT_EQ(ust_parse_u32("101", 0, 100, &v), -1);
	UT_EQ(ust_parse_u32("", 0, 100, &v), -1);
	UT_EQ(ust_parse_u32("4x", 0, 100, &v), -1);
	UT_EQ(ust_parse_u32("-4", 0, 100, &v), -1);
	UT_EQ(ust_parse_u32("99999999999999999999", 0, UINT32_MAX, &v), -1);
	UT_EQ(ust_parse_ipv4("198.18.0.1", &a), 0);
	UT_EQ(a, RTE_BE32(UT_IPV4(198, 18, 0, 1)));
	UT_EQ(ust_parse_ipv4("198.18.0", &a), -1);
	UT_EQ(ust_parse_ipv4_prefix("198.18.0.1/24", &a, &p), 0);
	UT_EQ(p, 24);
	UT_EQ(ust_parse_ipv4_prefix("198.18.0.1/0", &a, &p), -1);
	UT_EQ(ust_parse_ipv4_prefix("198.18.0.1/", &a, &p), -1);
	UT_EQ(ust_parse_mac("02:00:00:00:00:0a", &m), 0);
	UT_EQ(m.addr_bytes[5], 10);
	UT_EQ(ust_parse_mac("02:00:00:00:00", &m), -1);
	UT_EQ(ust_parse_mac("02:00:00:00:00:0a:", &m), -1);
	return 0;
}

/* issue 9, item 8: what used to pass or hang */
static int
test_refused(void)
{
	struct ust_config c;
	char err[256], line[600];
	double d;
	const char *rest;
	rte_be32_t a, g;
	struct rte_ether_addr mac;
	uint32_t v;
	int i;

	/* a second [section]: its keys were silently ignored */
	UT_EQ(expect_error("[tcp]\nsack = 1\n[tcp]\nsack = 7\n",
			   "[tcp]: section given twice"), 0);
	/* cross-key constraints name the keys */
	UT_EQ(expect_error("[tcp]\nrto_min_ms = 5000\nrto_max_ms = 1000\n",
			   "[tcp] rto_min_ms: 5000 exceeds rto_max_ms 1000"), 0);
	/* addresses that parse but cannot be ours, gateways off-link */
	UT_EQ(expect_error("[ip]\naddr = 198.18.0.0/24\n",
			   "[ip] addr: the subnet's network address"), 0);
	UT_EQ(expect_error("[ip]\naddr = 198.18.0.255/24\n",
			   "[ip] addr: the subnet's broadcast address"), 0);
	UT_EQ(expect_error("[ip]\naddr = 224.0.0.1/24\n",
			   "[ip] addr: a multicast"), 0);
	UT_EQ(expect_error("[ip]\naddr = 127.0.0.1/8\n",
			   "[ip] addr: a loopback"), 0);
	UT_EQ(expect_error("[ip]\naddr = 198.18.0.2/32\n", "[ip] addr"), 0);
	UT_EQ(expect_error("[ip]\naddr = 198.18.0.2/24\ngateway = 198.19.0.1\n",
			   "[ip] gateway: not in our subnet"), 0);
	UT_EQ(expect_error("[ip]\naddr = 198.18.0.2/24\ngateway = 198.18.0.2\n",
			   "[ip] gateway: our own address"), 0);
	UT_EQ(expect_error("[ip]\naddr = 198.18.0.2/24\ngateway = 198.18.0.255\n",
			   "[ip] gateway: the subnet's broadcast"), 0);
	/* signs (sscanf's %llu took "-1" as 2^64 - 1), blanks, 0x */
	UT_EQ(expect_error("[udp]\nmem = -1 -1 -1\n", "[udp] mem"), 0);
	UT_EQ(expect_error("[stack]\nephemeral = +1-+2\n",
			   "[stack] ephemeral"), 0);
	UT_EQ(ust_parse_mac(" 2:00:00:00:00:01", &mac), -1);
	UT_EQ(ust_parse_mac("+2:00:00:00:00:01", &mac), -1);
	UT_EQ(ust_parse_mac("0x2:00:00:00:00:1", &mac), -1);
	UT_EQ(ust_parse_mac("02:00:00:00:00:01", &mac), 0);
	/* leading blanks and signs in integers */
	UT_EQ(expect_error("[stack]\nrx_burst = +8\n", "[stack] rx_burst"),
	      0);
	UT_EQ(ust_parse_u32(" 64", 0, 100, &v), -1);
	UT_EQ(ust_parse_u32("\t64", 0, 100, &v), -1);
	UT_EQ(ust_parse_u32("+64", 0, 100, &v), -1);
	UT_EQ(ust_parse_u32(" -1", 0, UINT32_MAX, &v), -1);
	UT_EQ(ust_parse_u32("64 ", 0, 100, &v), -1);
	/* floats: finite, no blanks or signs, a suffix only when asked */
	UT_EQ(ust_parse_double("2.5", 0, 10, &d, NULL), 0);
	UT_ASSERT(d == 2.5);
	UT_EQ(ust_parse_double(".5", 0, 10, &d, NULL), 0);
	UT_EQ(ust_parse_double("1e1", 0, 10, &d, NULL), 0);
	UT_EQ(ust_parse_double("nan", 0, 10, &d, NULL), -1);
	UT_EQ(ust_parse_double("NaN", 0, 10, &d, NULL), -1);
	UT_EQ(ust_parse_double("inf", 0, 1e300, &d, NULL), -1);
	UT_EQ(ust_parse_double("1e999", 0, 1e300, &d, NULL), -1);
	UT_EQ(ust_parse_double("-1", -5, 10, &d, NULL), -1);
	UT_EQ(ust_parse_double(" 1", 0, 10, &d, NULL), -1);
	UT_EQ(ust_parse_double("0x10", 0, 100, &d, NULL), -1);
	UT_EQ(ust_parse_double("11", 0, 10, &d, NULL), -1);
	UT_EQ(ust_parse_double("5%", 0, 10, &d, NULL), -1);
	UT_EQ(ust_parse_double("5%", 0, 10, &d, &rest), 0);
	UT_EQ(strcmp(rest, "%"), 0);
	/* the address checks themselves */
	UT_EQ(ust_parse_ipv4("198.18.0.2", &a), 0);
	UT_ASSERT(ust_check_addr(a, 24) == NULL);
	UT_ASSERT(ust_check_addr(a, 31) != NULL);
	UT_ASSERT(ust_check_addr(0, 24) != NULL);
	UT_EQ(ust_parse_ipv4("198.18.0.1", &g), 0);
	UT_ASSERT(ust_check_gateway(g, a, 24) == NULL);
	UT_ASSERT(ust_check_gateway(0, a, 24) == NULL);
	/* a directory, a device, a file too large */
	ust_config_defaults(&c);
	UT_EQ(ust_config_load(&c, "/tmp", err, sizeof(err)), -1);
	UT_ASSERT(strstr(err, "/tmp: not a regular file") != NULL, "%s", err);
	UT_EQ(ust_config_load(&c, "/dev/zero", err, sizeof(err)), -1);
	UT_ASSERT(strstr(err, "not a regular file") != NULL, "%s", err);
	{
		FILE *f;

		snprintf(path, sizeof(path), "/tmp/ust_cfg_%d.ini",
			 (int)getpid());
		f = fopen(path, "w");
		UT_ASSERT(f != NULL);
		for (i = 0; i < (1 << 20) / 8 + 1; i++)
			fputs(";comment", f);
		fputs("\n", f);
		fclose(f);
		UT_EQ(ust_config_load(&c, path, err, sizeof(err)), -1);
		unlink(path);
		UT_ASSERT(strstr(err, "larger than 1048576 bytes") != NULL,
			  "%s", err);
	}
	/* a value longer than rte_cfgfile keeps is refused, not cut */
	snprintf(line, sizeof(line), "[arp]\nstatic = ");
	for (i = 0; i < 9; i++)
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 "%s198.18.0.%d=02:00:00:00:00:%02x", i ? ", " : "",
			 100 + i, i);
	strcat(line, "\n");
	UT_EQ(expect_error(line, "[arp] static: value longer than 254"), 0);
	/* the 16 documented static entries fit, over several lines */
	line[0] = '\0';
	strcat(line, "[arp]\n");
	for (i = 0; i < 16; i++)
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 "%s198.18.0.%d=02:00:00:00:00:%02x%s",
			 i % 4 == 0 ? "static = " : ", ", 100 + i, i,
			 i % 4 == 3 ? "\n" : "");
	UT_EQ(load(line, &c, err, sizeof(err)), 0);
	UT_EQ(c.n_static_arp, 16);
	UT_EQ(c.static_arp[15].mac.addr_bytes[5], 15);
	UT_EQ(c.static_arp[15].ip, RTE_BE32(UT_IPV4(198, 18, 0, 115)));
	strcat(line, "static = 198.18.0.99=02:00:00:00:00:63\n");
	UT_EQ(expect_error(line, "[arp] static"), 0);
	return 0;
}

static const struct ut_case cases[] = {
	{ "shipped_file", test_shipped_file },
	{ "refused", test_refused },
	{ "values", test_values },
	{ "errors", test_errors },
	{ "parsers", test_parsers },
};

int
main(void)
{
	return UT_RUN(cases);
}
