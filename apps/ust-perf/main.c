/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * ust-perf: common options, bring-up, the main loop and the report. The
 * traffic itself is the mode's (mode_*.c).
 *
 *   ust-perf [EAL options] -- --mode MODE [common options] [mode options]
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>

#include "perf.h"
#include "ust_config.h"

static const struct perf_mode *const modes[] = {
	&perf_udp_flood,
	&perf_udp_sink,
	&perf_tcp_rr,
	&perf_tcp_stream,
};

enum {
	O_MODE = 256, O_CONFIG, O_ADDR, O_GW, O_PORTID, O_DURATION, O_WARMUP,
	O_STATS, O_JSON, O_LINGER, O_HELP,
};

static const struct option common_opts[] = {
	{ "mode", required_argument, NULL, O_MODE },
	{ "config", required_argument, NULL, O_CONFIG },
	{ "addr", required_argument, NULL, O_ADDR },
	{ "gateway", required_argument, NULL, O_GW },
	{ "port-id", required_argument, NULL, O_PORTID },
	{ "duration", required_argument, NULL, O_DURATION },
	{ "warmup", required_argument, NULL, O_WARMUP },
	{ "stats-period", required_argument, NULL, O_STATS },
	{ "json", required_argument, NULL, O_JSON },
	{ "linger", required_argument, NULL, O_LINGER },
	{ "help", no_argument, NULL, O_HELP },
	APP_TX_LONGOPTS,
};

static void
usage(void)
{
	unsigned int i;

	printf(
"Usage: " PERF_PROG " [EAL options] -- --mode MODE [options]\n"
"\n"
"Benchmark ustack on the first ethdev port: periodic stats lines, a final\n"
"summary, and --json.\n"
"\n"
"Modes:\n");
	for (i = 0; i < RTE_DIM(modes); i++)
		printf("  %-12s %s\n", modes[i]->name, modes[i]->summary);
	printf(
"\n"
"Common options:\n"
"  --mode MODE            the traffic pattern (required)\n"
"  --config FILE          load settings (format: config/ustack.ini; a\n"
"                         regular file of at most 1 MiB)\n"
"  --addr A.B.C.D/N       our address ([ip] addr); required unless the\n"
"                         config file sets it\n"
"  --gateway A.B.C.D      default gateway\n"
"  --port-id N            ethdev port (default: 0)\n"
"  --duration SECONDS     measured time; 0 runs until SIGINT (default: 10)\n"
"  --warmup SECONDS       time before measuring (default: 1)\n"
"  --stats-period SECONDS a stats line this often; 0: none (default: 1)\n"
"  --json FILE            write the results, counters and mbuf in-use counts\n"
"  --linger SECONDS       keep the port open, unpolled, this long after the\n"
"                         run (two processes on one net_memif: see\n"
"                         ust-echo --help)\n"
APP_TX_USAGE
"  --help                 print this text\n");
	for (i = 0; i < RTE_DIM(modes); i++)
		printf("\nOptions of --mode %s:\n%s", modes[i]->name,
		       modes[i]->usage);
	printf("\nExit status: 0 on success; 1 when a tcp-rr or tcp-stream "
	       "client completed\nnothing or lost a connection; 2 on a bad "
	       "flag, configuration or device (--zc\non a port that cannot "
	       "map DMA included).\n");
}

uint32_t
perf_num(const char *flag, const char *v, uint32_t min, uint32_t max)
{
	uint32_t n;

	if (ust_parse_u32(v, min, max, &n) != 0)
		app_usage_error(PERF_PROG, "%s %s: expected an integer from %u "
				"to %u", flag, v, min, max);
	return n;
}

uint64_t
perf_rate(const char *flag, const char *v)
{
	const char *end = v;
	double d = -1;

	/* finite (NaN passed every comparison; its cast was undefined) */
	if (ust_parse_double(v, 0, 1e12, &d, &end) == 0) {
		if (*end == 'k' || *end == 'K')
			d *= 1e3, end++;
		else if (*end == 'm' || *end == 'M')
			d *= 1e6, end++;
	}
	if (d < 0 || *end != '\0' || d > 1e12)
		app_usage_error(PERF_PROG, "%s %s: expected packets per second "
				"(e.g. 500000, 500k, 2.5M; 0 = full rate)",
				flag, v);
	return (uint64_t)d;
}

void
perf_start_clock(struct perf_ctx *c, uint64_t now)
{
	c->t_begin = now + (uint64_t)(c->warmup * 1e9);
	c->t_end = c->duration > 0 ? c->t_begin +
		(uint64_t)(c->duration * 1e9) : UINT64_MAX;
}

void
perf_stop(struct perf_ctx *c, uint64_t now)
{
	if (now < c->t_end)
		c->t_end = now;
}

void
perf_spin_ns(const struct perf_ctx *c, uint64_t ns)
{
	uint64_t until = rte_rdtsc() + ns * c->tsc_hz / 1000000000u;

	while (rte_rdtsc() < until)
		rte_pause();
}

static double
parse_seconds(const char *flag, const char *v, double max)
{
	return app_parse_seconds(PERF_PROG, flag, v, 0, max);
}

static const struct perf_mode *
find_mode(int argc, char **argv)
{
	const char *name = NULL;
	unsigned int i;
	int k;

	for (k = 1; k < argc; k++) {
		if (strcmp(argv[k], "--help") == 0) {
			usage();
			exit(0);
		}
		if (strcmp(argv[k], "--mode") == 0 && k + 1 < argc)
			name = argv[k + 1];
		else if (strncmp(argv[k], "--mode=", 7) == 0)
			name = argv[k] + 7;
	}
	if (name == NULL) {
		char list[256];
		size_t off = 0;

		list[0] = '\0';
		for (i = 0; i < RTE_DIM(modes) && off < sizeof(list); i++)
			off += (size_t)snprintf(list + off, sizeof(list) - off,
						"%s%s", i ? ", " : "",
						modes[i]->name);
		app_usage_error(PERF_PROG, "missing --mode (one of: %s; try "
				"--help)", list);
	}
	for (i = 0; i < RTE_DIM(modes); i++)
		if (strcmp(modes[i]->name, name) == 0)
			return modes[i];
	app_usage_error(PERF_PROG, "--mode %s: unknown mode (try --help)", name);
}

static void
parse_opts(struct perf_ctx *c, int argc, char **argv, const char **json)
{
	struct option lo[64];
	const char *addr = NULL, *gw = NULL, *portid = NULL, *config = NULL;
	char err[256];
	unsigned int n = 0, i;
	int opt;

	for (i = 0; i < RTE_DIM(common_opts); i++)
		lo[n++] = common_opts[i];
	for (i = 0; c->mode->opts[i].name != NULL && n < RTE_DIM(lo) - 1; i++)
		lo[n++] = c->mode->opts[i];
	memset(&lo[n], 0, sizeof(lo[n]));
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":", lo, NULL)) != -1) {
		switch (opt) {
		case O_MODE:
			break;
		case O_CONFIG:
			config = optarg;
			break;
		case O_ADDR:
			addr = optarg;
			break;
		case O_GW:
			gw = optarg;
			break;
		case O_PORTID:
			portid = optarg;
			break;
		case O_DURATION:
			c->duration = parse_seconds("--duration", optarg,
						    86400 * 30);
			break;
		case O_WARMUP:
			c->warmup = parse_seconds("--warmup", optarg, 3600);
			break;
		case O_STATS:
			c->stats_period = perf_num("--stats-period", optarg, 0,
						   86400);
			break;
		case O_JSON:
			*json = optarg;
			break;
		case O_LINGER:
			c->linger = parse_seconds("--linger", optarg, 3600);
			break;
		case ':':
			app_usage_error(PERF_PROG, "%s: missing value",
					argv[optind - 1]);
			break;
		case '?':
			app_usage_error(PERF_PROG, "unknown option '%s' for "
					"--mode %s (try --help)",
					argv[optind - 1], c->mode->name);
			break;
		default:
			if (opt >= PERF_OPT_MODE_BASE)
				c->mode->parse(c, opt, optarg);
			else
				app_tx_opt_parse(PERF_PROG, &c->tx, opt,
						 optarg);
			break;
		}
	}
	if (optind < argc)
		app_usage_error(PERF_PROG, "unexpected argument '%s'",
				argv[optind]);
	ust_config_defaults(&c->env.cfg);
	if (config != NULL &&
	    ust_config_load(&c->env.cfg, config, err, sizeof(err)) != 0)
		app_usage_error(PERF_PROG, "%s", err);
	app_tx_opts_apply(&c->tx, &c->env.cfg);
	if (addr != NULL &&
	    ust_parse_ipv4_prefix(addr, &c->env.cfg.stack.addr,
				  &c->env.cfg.stack.prefix_len) != 0)
		app_usage_error(PERF_PROG, "--addr %s: expected A.B.C.D/N", addr);
	if (c->env.cfg.stack.addr == 0 && addr == NULL)
		app_usage_error(PERF_PROG, "missing --addr A.B.C.D/N");
	if (gw != NULL && ust_parse_ipv4(gw, &c->env.cfg.stack.gateway) != 0)
		app_usage_error(PERF_PROG, "--gateway %s: expected A.B.C.D", gw);
	app_check_ip(PERF_PROG, &c->env.cfg, addr, gw);
	if (portid != NULL)
		c->env.cfg.port.port_id = (uint16_t)perf_num("--port-id",
			portid, 0, RTE_MAX_ETHPORTS - 1);
	c->mode->check(c);
}

int
main(int argc, char **argv)
{
	static struct perf_ctx c;
	int eal_argc, app_argc;
	char **eal_argv, **app_argv;
	const char *json_path = NULL;
	FILE *json = NULL;
	struct app_json j;
	uint64_t start, next_tick, last_tick, now, t0;
	bool measuring, busy;

	app_split_args(argc, argv, &eal_argc, &eal_argv, &app_argc, &app_argv);
	c.mode = find_mode(app_argc, app_argv);
	c.duration = 10;
	c.warmup = 1;
	c.stats_period = 1;
	c.env.prog = PERF_PROG;
	app_tx_opts_init(&c.tx);
	parse_opts(&c, app_argc, app_argv, &json_path);
	if (json_path != NULL) {
		json = fopen(json_path, "w");
		if (json == NULL)
			app_usage_error(PERF_PROG, "--json %s: %s", json_path,
					strerror(errno));
	}
	if (rte_eal_init(eal_argc, eal_argv) < 0)
		app_usage_error(PERF_PROG, "EAL initialisation failed: %s",
				rte_strerror(rte_errno));
	c.tsc_hz = rte_get_tsc_hz();
	app_env_up(&c.env);
	app_print_port(stdout, &c.env);
	app_catch_signals(&c.quit);
	c.mode->begin(&c);
	start = ust_clock_ns();
	if (c.clock_on_peer) {
		c.t_begin = UINT64_MAX;
		c.t_end = UINT64_MAX;
	} else {
		perf_start_clock(&c, start);
	}
	last_tick = start;
	next_tick = start + (uint64_t)c.stats_period * 1000000000u;
	measuring = false;
	while (!c.quit) {
		now = ust_clock_ns();
		if (!measuring && now >= c.t_begin) {
			measuring = true;
			c.t_begin = now;
			c.mode->measure(&c, now);
			c.polls = 0;
			c.busy_polls = 0;
			c.busy_tsc = 0;
			c.tsc_begin = rte_rdtsc();
		}
		if (now >= c.t_end)
			break;
		t0 = rte_rdtsc();
		busy = c.mode->poll(&c, now);
		if (measuring) {
			c.polls++;
			if (busy) {
				c.busy_polls++;
				c.busy_tsc += rte_rdtsc() - t0;
			}
		}
		if (c.stats_period != 0 && now >= next_tick) {
			c.mode->tick(&c, (double)(now - last_tick) / 1e9);
			fflush(stdout);
			last_tick = now;
			next_tick = now + (uint64_t)c.stats_period * 1000000000u;
		}
	}
	now = ust_clock_ns();
	c.tsc_end = rte_rdtsc();
	if (!measuring) {
		c.t_begin = now;
		c.tsc_begin = c.tsc_end;
	}
	c.t_end = now;
	c.mode->end(&c);
	ust_stack_flush(c.env.stk);
	if (json != NULL) {
		json_begin(&j, json);
		json_str(&j, "app", PERF_PROG);
		json_str(&j, "mode", c.mode->name);
		json_dbl(&j, "seconds", (double)(c.t_end - c.t_begin) / 1e9);
	}
	c.mode->report(&c, json != NULL ? &j : NULL);
	app_print_stats(stdout, c.env.stk);
	if (json != NULL)
		json_stack(&j, c.env.stk);
	app_env_down(&c.env);
	printf("mbufs in use: %u at start, %u at end\n",
	       c.env.mbuf_in_use_start, c.env.mbuf_in_use_end);
	if (json != NULL) {
		json_env(&j, &c.env);
		json_end(&j);
		fclose(json);
	}
	fflush(stdout);
	app_sleep(c.linger);
	ust_port_close(c.env.cfg.port.port_id);
	rte_eal_cleanup();
	return c.status;
}
