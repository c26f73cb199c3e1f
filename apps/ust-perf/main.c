/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * ust-perf: common options, bring-up, the workers' loop and the report.
 * The traffic itself is the mode's (mode_*.c).
 *
 * --nb-cores N: N stacks (lib/group), stack i on the port's queue pair i
 * and on lcore i of the EAL list (the main lcore first); every worker runs
 * the same loop on its own stack, with its own counters, and the main
 * lcore's worker also prints the periodic lines. The modes without a port
 * (tcp-rr-loop) bring their own stacks up on the same lcores.
 *
 *   ust-perf [EAL options] -- --mode MODE [common options] [mode options]
 *
 * --stack kernel: the same loop and reports with no port and no stack,
 * the modes' sockets the kernel's (ksock.c); EAL only for the lcores.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "perf.h"
#include "ust_config.h"

static const struct perf_mode *const modes[] = {
	&perf_udp_flood,
	&perf_udp_sink,
	&perf_tcp_rr,
	&perf_tcp_stream,
	&perf_tcp_rr_loop,
	&perf_l2_pingpong,
	&perf_tcp_conns,
};

enum {
	O_MODE = 256, O_CONFIG, O_ADDR, O_GW, O_PORTID, O_DURATION, O_WARMUP,
	O_STATS, O_JSON, O_LINGER, O_HELP, O_NB_CORES, O_PCAP, O_JSON_INTERVAL,
	O_STACK, O_KWAIT, O_ADDR6, O_GW6,
};

static const struct option common_opts[] = {
	{ "mode", required_argument, NULL, O_MODE },
	{ "config", required_argument, NULL, O_CONFIG },
	{ "addr", required_argument, NULL, O_ADDR },
	{ "gateway", required_argument, NULL, O_GW },
	{ "addr6", required_argument, NULL, O_ADDR6 },
	{ "gateway6", required_argument, NULL, O_GW6 },
	{ "port-id", required_argument, NULL, O_PORTID },
	{ "duration", required_argument, NULL, O_DURATION },
	{ "warmup", required_argument, NULL, O_WARMUP },
	{ "stats-period", required_argument, NULL, O_STATS },
	{ "json", required_argument, NULL, O_JSON },
	{ "linger", required_argument, NULL, O_LINGER },
	{ "pcap", required_argument, NULL, O_PCAP },
	{ "json-interval", required_argument, NULL, O_JSON_INTERVAL },
	{ "help", no_argument, NULL, O_HELP },
	{ "nb-cores", required_argument, NULL, O_NB_CORES },
	{ "stack", required_argument, NULL, O_STACK },
	{ "kernel-wait", required_argument, NULL, O_KWAIT },
	APP_TX_LONGOPTS,
};

static void
usage(void)
{
	unsigned int i;

	printf(
"Usage: " PERF_PROG " [EAL options] -- --mode MODE [options]\n"
"       " PERF_PROG " [-l LCORES --] --stack kernel --mode MODE [options]\n"
"\n"
"Benchmark ustack on the first ethdev port: periodic stats lines, a final\n"
"summary, and --json (totals at the top level; with \"nb_stacks\" and\n"
"\"stacks\", one object per stack: index, lcore, rates, counters).\n"
"With --stack kernel, the same mode on the kernel's sockets instead: the\n"
"same lines and the same JSON keys (a figure only ustack has is null; the\n"
"\"counters\" are the kernel's, /proc/net/snmp and netstat, over the\n"
"measured interval), so that one tool measures both sides.\n"
"\n"
"Modes (* also with --stack kernel):\n");
	for (i = 0; i < RTE_DIM(modes); i++)
		printf("  %-12s%s %s\n", modes[i]->name,
		       modes[i]->kernel ? "*" : " ", modes[i]->summary);
	printf(
"\n"
"Common options:\n"
"  --mode MODE            the traffic pattern (required)\n"
"  --stack ustack|kernel  whose sockets (default: ustack). kernel: no port\n"
"                         (EAL gets --no-pci --no-huge --no-shconf\n"
"                         --no-telemetry added, and -l 0 to --nb-cores - 1\n"
"                         unless the EAL options name the lcores), the\n"
"                         kernel's interfaces and routes; each worker a\n"
"                         socket set of its own (a\n"
"                         server's listeners share the port: SO_REUSEPORT),\n"
"                         waiting as --kernel-wait says;\n"
"                         not with --addr, --gateway, --addr6,\n"
"                         --gateway6, --port-id, --config, --pcap,\n"
"                         --linger, --tx-layout, --copy-small or\n"
"                         --first-linear-max\n"
"  --kernel-wait block|spin  --stack kernel: a worker with nothing ready\n"
"                         waits in epoll_wait()/poll() up to 10 ms, as\n"
"                         applications run the kernel (block, default), or\n"
"                         spins as ustack does (spin: a timeout of 0, a\n"
"                         core a worker); a flood never waits\n"
"  --config FILE          load settings (format: config/ustack.ini; a\n"
"                         regular file of at most 1 MiB)\n"
"  --addr A.B.C.D/N       our address ([ip] addr); required unless the\n"
"                         config file sets it\n"
"  --gateway A.B.C.D      default gateway\n"
"  --addr6 ADDR/N         IPv6 on, with this global address and prefix\n"
"                         ([ip6] addr): servers are dual-stack ([::]),\n"
"                         clients take an IPv6 --peer\n"
"  --gateway6 ADDR        IPv6 default router ([ip6] gateway; else from\n"
"                         router advertisements)\n"
"  --port-id N            ethdev port (default: 0)\n"
"  --nb-cores N           stacks, one a queue pair and lcore of -l (the\n"
"                         main lcore first), 1-64 (default: [port] queues,\n"
"                         1); every mode runs on each (see the modes)\n"
"  --duration SECONDS     measured time; 0 runs until SIGINT (default: 10)\n"
"  --warmup SECONDS       time before measuring (default: 1)\n"
"  --stats-period SECONDS a stats line this often; 0: none (default: 1)\n"
"  --json FILE            write the results, counters and mbuf in-use counts\n"
"  --json-interval FILE   each stats period, one line of JSON (JSON Lines):\n"
"                         the time, and each stack's counters and the\n"
"                         port's so far (a mode with a port)\n"
"  --linger SECONDS       keep the port open, unpolled, this long after the\n"
"                         run (two processes on one net_memif: see\n"
"                         ust-echo --help)\n"
"  --pcap FILE            write every frame of the port, both ways, to FILE\n"
"                         (pcapng; a system call per burst: not for\n"
"                         measurements)\n"
APP_TX_USAGE
"  --help                 print this text\n"
"  --version              print ustack's and DPDK's versions\n"
"\n"
"SIGUSR1 prints the counters (as at exit: the stacks' and the port's\n"
"drops) and the run goes on; SIGINT or SIGTERM ends it.\n");
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

bool
perf_parse_role(const char *v)
{
	if (strcmp(v, "server") == 0)
		return true;
	if (strcmp(v, "client") != 0)
		app_usage_error(PERF_PROG, "--role %s: expected server or "
				"client", v);
	return false;
}

void
perf_parse_peer(const char *v, struct perf_peer *p)
{
	memset(p, 0, sizeof(*p));
	p->str = v;
	if (ust_parse_ipv4(v, &p->v4) == 0)
		return;
	if (ust_parse_ipv6(v, p->a6) != 0)
		app_usage_error(PERF_PROG, "--peer %s: expected A.B.C.D or an "
				"IPv6 address", v);
	p->v6 = true;
}

void
perf_check_peer(const struct perf_ctx *c, const struct perf_peer *p)
{
	if (p->v6 && !c->kernel && !c->env.cfg.stack.ip6.enable)
		app_usage_error(PERF_PROG, "--peer %s: IPv6 is off (no "
				"--addr6, no [ip6])", p->str);
}

socklen_t
perf_peer_addr(const struct perf_peer *p, uint16_t port,
	       union ust_sockaddr *to)
{
	return app_sockaddr(to, p->v6, p->v4, p->a6, port);
}

uint64_t
perf_heap_bytes(void)
{
	struct rte_malloc_socket_stats st;
	uint64_t sum = 0;
	int s;

	for (s = 0; s < RTE_MAX_NUMA_NODES; s++)
		if (rte_malloc_get_socket_stats(s, &st) == 0)
			sum += st.heap_allocsz_bytes;
	return sum;
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
	uint64_t begin = now + (uint64_t)(c->warmup * 1e9);
	uint64_t none = UINT64_MAX;

	/* the first caller (of any worker) sets it */
	if (!__atomic_compare_exchange_n(&c->t_begin, &none, begin, false,
					 __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&c->t_end, c->duration > 0 ? begin +
			 (uint64_t)(c->duration * 1e9) : UINT64_MAX,
			 __ATOMIC_RELEASE);
}

void
perf_stop(struct perf_ctx *c, uint64_t now)
{
	uint64_t end = __atomic_load_n(&c->t_end, __ATOMIC_RELAXED);

	while (now < end &&
	       !__atomic_compare_exchange_n(&c->t_end, &end, now, false,
					    __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED))
		;
}

double
perf_secs(const struct perf_worker *w)
{
	return (double)(w->t_end - w->t_begin) / 1e9;
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
		if (strcmp(argv[k], "--version") == 0) {
			app_print_version(PERF_PROG);
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

/* "--NAME" of option @id of @lo */
static const char *
opt_name(const struct option *lo, int id)
{
	static char name[64];

	for (; lo->name != NULL; lo++)
		if (lo->val == id)
			break;
	snprintf(name, sizeof(name), "--%s", lo->name != NULL ? lo->name :
		 "?");
	return name;
}

static void
parse_opts(struct perf_ctx *c, int argc, char **argv, const char **json)
{
	struct option lo[64];
	const char *addr = NULL, *gw = NULL, *portid = NULL, *config = NULL;
	const char *addr6 = NULL, *gw6 = NULL;
	const char *nb_cores = NULL, *ustack_only = NULL;
	bool kwait_set = false;
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
		case O_ADDR6:
			addr6 = optarg;
			break;
		case O_GW6:
			gw6 = optarg;
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
		case O_JSON_INTERVAL:
			c->json_interval = fopen(optarg, "w");
			if (c->json_interval == NULL)
				app_usage_error(PERF_PROG, "--json-interval "
						"%s: %s", optarg,
						strerror(errno));
			break;
		case O_PCAP:
			if (optarg[0] == '\0')
				app_usage_error(PERF_PROG, "--pcap: a file name");
			c->env.pcap_path = optarg;
			break;
		case O_NB_CORES:
			nb_cores = optarg;
			break;
		case O_KWAIT:
			if (strcmp(optarg, "block") == 0)
				c->kwait_ms = 10;
			else if (strcmp(optarg, "spin") == 0)
				c->kwait_ms = 0;
			else
				app_usage_error(PERF_PROG, "--kernel-wait %s: "
						"expected block or spin",
						optarg);
			kwait_set = true;
			break;
		case O_STACK:
			if (strcmp(optarg, "kernel") == 0)
				c->kernel = true;
			else if (strcmp(optarg, "ustack") == 0)
				c->kernel = false;
			else
				app_usage_error(PERF_PROG, "--stack %s: "
						"expected ustack or kernel",
						optarg);
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
			if (opt >= PERF_OPT_MODE_BASE) {
				c->mode->parse(c, opt, optarg);
				break;
			}
			app_tx_opt_parse(PERF_PROG, &c->tx, opt, optarg);
			break;
		}
		/* the options of ustack's own port, stack and TCP */
		if (opt == O_ADDR || opt == O_GW || opt == O_PORTID ||
		    opt == O_ADDR6 || opt == O_GW6 ||
		    opt == O_CONFIG || opt == O_PCAP || opt == O_LINGER ||
		    (opt >= APP_O_TX_LAYOUT && opt <= APP_O_FIRST_LINEAR_MAX))
			ustack_only = opt_name(lo, opt);
	}
	if (optind < argc)
		app_usage_error(PERF_PROG, "unexpected argument '%s'",
				argv[optind]);
	if (c->kernel && !c->mode->kernel)
		app_usage_error(PERF_PROG, "--mode %s: not with --stack kernel "
				"(the kernel's: udp-flood, udp-sink, tcp-rr, "
				"tcp-stream)", c->mode->name);
	if (!c->kernel && kwait_set)
		app_usage_error(PERF_PROG, "--kernel-wait: a --stack kernel "
				"option");
	if (c->kernel && ustack_only != NULL)
		app_usage_error(PERF_PROG, "%s: not with --stack kernel (the "
				"kernel's interfaces, routes and TCP are used)",
				ustack_only);
	ust_config_defaults(&c->env.cfg);
	if (c->kernel) {
		if (nb_cores != NULL)
			app_env_nb_cores(&c->env, nb_cores);
		c->mode->check(c);
		return;
	}
	if (config != NULL &&
	    ust_config_load(&c->env.cfg, config, err, sizeof(err)) != 0)
		app_usage_error(PERF_PROG, "%s", err);
	app_tx_opts_apply(&c->tx, &c->env.cfg);
	if (nb_cores != NULL)
		app_env_nb_cores(&c->env, nb_cores);
	/* a mode without a port: two stacks a worker, their own addresses */
	if (c->mode->no_port && addr == NULL && c->env.cfg.stack.addr == 0)
		addr = "198.18.0.1/24";
	if (addr != NULL &&
	    ust_parse_ipv4_prefix(addr, &c->env.cfg.stack.addr,
				  &c->env.cfg.stack.prefix_len) != 0)
		app_usage_error(PERF_PROG, "--addr %s: expected A.B.C.D/N", addr);
	if (c->env.cfg.stack.addr == 0 && addr == NULL)
		app_usage_error(PERF_PROG, "missing --addr A.B.C.D/N");
	if (gw != NULL && ust_parse_ipv4(gw, &c->env.cfg.stack.gateway) != 0)
		app_usage_error(PERF_PROG, "--gateway %s: expected A.B.C.D", gw);
	app_check_ip(PERF_PROG, &c->env.cfg, addr, gw);
	app_set_ip6(PERF_PROG, &c->env.cfg, addr6, gw6);
	if (portid != NULL)
		c->env.cfg.port.port_id = (uint16_t)perf_num("--port-id",
			portid, 0, RTE_MAX_ETHPORTS - 1);
	c->mode->check(c);
}

/* SIGUSR1: the counters as at exit, while the run goes on (the stacks'
 * counters read from the main lcore, as telemetry reads them). */
static void
perf_dump(const struct perf_ctx *c)
{
	unsigned int i;

	printf("%s: counters at SIGUSR1:\n", PERF_PROG);
	if (c->kernel) {
		struct perf_ksnmp *now = malloc(sizeof(*now));

		if (now != NULL && perf_ksnmp_read(now) == 0) {
			printf("the kernel's, since the measured interval "
			       "began:\n");
			perf_ksnmp_print(stdout, c->ksnmp0, now);
		}
		free(now);
	} else if (c->mode->no_port) {
		printf("(--mode %s reports its stacks at exit)\n",
		       c->mode->name);
	} else {
		for (i = 0; i < c->nb_workers; i++) {
			if (c->nb_workers > 1)
				printf("stack %u (lcore %u):\n", i,
				       c->w[i].lcore);
			app_print_stats(stdout, c->env.stks[i]);
		}
		app_print_port_drops(stdout, &c->env);
	}
	fflush(stdout);
}

/* --json-interval: a line of the counters so far (each stack's, the
 * port's), read from the main lcore as telemetry reads them */
static void
perf_json_interval(const struct perf_ctx *c, uint64_t now, double dt)
{
	struct app_json j;
	unsigned int i;

	json_begin_line(&j, c->json_interval);
	json_str(&j, "mode", c->mode->name);
	json_str(&j, "stack", c->kernel ? "kernel" : "ustack");
	/* seconds since the measured interval began (negative in warmup) */
	json_dbl(&j, "t", (double)(int64_t)(now - c->t_begin) / 1e9);
	json_dbl(&j, "interval_s", dt);
	if (!c->mode->no_port && !c->kernel) {
		json_arr(&j, "stacks");
		for (i = 0; i < c->nb_workers; i++) {
			json_obj(&j, NULL);
			json_u64(&j, "lcore", c->w[i].lcore);
			json_stack(&j, c->env.stks[i]);
			json_obj_end(&j);
		}
		json_arr_end(&j);
		json_port_stats(&j, &c->env);
	}
	json_end(&j);
}

/* The workers' loop: worker @idx on its lcore, with stack @stk. */
static int
perf_worker_main(struct ust_stack *stk, uint16_t idx, void *arg)
{
	struct perf_ctx *c = arg;
	struct perf_worker *w = &c->w[idx];
	uint64_t next_tick = 0, last_tick = 0, now, t0;
	bool busy;

	RTE_SET_USED(stk);
	c->mode->begin(c, w);
	/* every stack's sockets (listeners) exist before any polls */
	__atomic_add_fetch(&c->ready, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&c->ready, __ATOMIC_ACQUIRE) < c->nb_workers)
		rte_pause();
	if (idx == 0) {
		now = ust_clock_ns();
		if (!c->clock_on_peer)
			perf_start_clock(c, now);
		last_tick = now;
		next_tick = now + (uint64_t)c->stats_period * 1000000000u;
	}
	w->measuring = false;
	while (!c->quit) {
		now = ust_clock_ns();
		if (!w->measuring &&
		    now >= __atomic_load_n(&c->t_begin, __ATOMIC_ACQUIRE)) {
			w->measuring = true;
			w->t_begin = now;
			c->mode->measure(c, w, now);
			w->polls = 0;
			w->busy_polls = 0;
			w->busy_tsc = 0;
			w->tsc_begin = rte_rdtsc();
			if (c->kernel && idx == 0)
				perf_ksnmp_read(c->ksnmp0);
		}
		if (now >= __atomic_load_n(&c->t_end, __ATOMIC_ACQUIRE))
			break;
		t0 = rte_rdtsc();
		busy = c->mode->poll(c, w, now);
		if (w->measuring) {
			w->polls++;
			if (busy) {
				w->busy_polls++;
				w->busy_tsc += rte_rdtsc() - t0;
			}
		}
		if (idx == 0 && app_usr1_take())
			perf_dump(c);
		if (idx == 0 && c->stats_period != 0 && now >= next_tick) {
			c->mode->tick(c, (double)(now - last_tick) / 1e9);
			if (c->json_interval != NULL)
				perf_json_interval(c, now,
					(double)(now - last_tick) / 1e9);
			fflush(stdout);
			last_tick = now;
			next_tick = now + (uint64_t)c->stats_period *
				1000000000u;
		}
	}
	now = ust_clock_ns();
	w->tsc_end = rte_rdtsc();
	if (c->kernel && idx == 0) {
		if (!w->measuring)
			perf_ksnmp_read(c->ksnmp0);
		perf_ksnmp_read(c->ksnmp1);
	}
	if (!w->measuring) {
		w->t_begin = now;
		w->tsc_begin = w->tsc_end;
	}
	w->t_end = now;
	c->mode->end(c, w);
	if (w->stk != NULL)
		ust_stack_flush(w->stk);
	return 0;
}

static int
perf_worker_remote(void *arg)
{
	struct perf_worker *w = arg;

	return perf_worker_main(w->stk, w->idx, w->ctx);
}

/* A mode without a port: the workers on the main lcore and the next ones
 * of -l, launched here (no group). */
static void
perf_launch_no_port(struct perf_ctx *c)
{
	unsigned int lc = rte_get_main_lcore(), i;

	if (c->nb_workers > rte_lcore_count())
		app_usage_error(PERF_PROG, "--nb-cores %u needs %u lcores: the "
				"EAL lcore list (-l) has %u", c->nb_workers,
				c->nb_workers, rte_lcore_count());
	for (i = 0; i < c->nb_workers; i++) {
		if (i > 0)
			lc = rte_get_next_lcore(i == 1 ? (unsigned int)-1 : lc,
						1, 0);
		c->w[i].lcore = lc;
	}
	for (i = 1; i < c->nb_workers; i++)
		if (rte_eal_remote_launch(perf_worker_remote, &c->w[i],
					  c->w[i].lcore) != 0)
			app_usage_error(PERF_PROG, "lcore %u is busy",
					c->w[i].lcore);
	perf_worker_main(NULL, 0, c);
	for (i = 1; i < c->nb_workers; i++)
		rte_eal_wait_lcore(c->w[i].lcore);
}

/*
 * --stack kernel: EAL for the lcores alone (no device probed, no
 * hugepage, no file of a prefix, no telemetry socket), whatever ustack
 * process runs beside: the user's EAL options, then ours; the lcores 0 to
 * --nb-cores - 1 unless the user's options name them.
 */
static void
kernel_eal_args(struct perf_ctx *c, int *argc, char ***argv)
{
	static const char *const ours[] = {
		"--no-pci", "--no-huge", "--no-shconf", "--no-telemetry",
		"--log-level=lib.eal:warning",
	};
	static char lcores[32];
	char **v;
	bool named = false;
	int n = 0, i;

	v = calloc((size_t)*argc + RTE_DIM(ours) + 3, sizeof(*v));
	if (v == NULL)
		app_usage_error(PERF_PROG, "out of memory");
	for (i = 0; i < *argc; i++) {
		const char *a = (*argv)[i];

		if (i > 0 && (strncmp(a, "-l", 2) == 0 ||
			      strncmp(a, "-c", 2) == 0 ||
			      strncmp(a, "--lcores", 8) == 0))
			named = true;
		v[n++] = (*argv)[i];
	}
	for (i = 0; i < (int)RTE_DIM(ours); i++)
		v[n++] = (char *)(uintptr_t)ours[i];
	if (!named) {
		unsigned int k = c->env.cfg.port.nb_queues;

		if (k <= 1)
			snprintf(lcores, sizeof(lcores), "0");
		else
			snprintf(lcores, sizeof(lcores), "0-%u", k - 1);
		v[n++] = (char *)(uintptr_t)"-l";
		v[n++] = lcores;
	}
	v[n] = NULL;
	*argc = n;
	*argv = v;
}

/* The counters of every stack added, as json_stack()'s "counters",
 * "drops", "rx_consumed", "rx_drops" and "tcp_tx". */
static void
perf_json_totals(struct app_json *j, const struct perf_ctx *c)
{
	struct ust_tcp_tx_stats tx, one;
	struct ust_stats st;
	const char *group = NULL;
	unsigned int i, k;

	ust_group_stats_get(c->env.grp, &st);
	json_obj(j, "counters");
	for (i = 0; i < UST_MIB_MAX; i++) {
		if (group == NULL || strcmp(group, ust_mib_group(i)) != 0) {
			if (group != NULL)
				json_obj_end(j);
			group = ust_mib_group(i);
			json_obj(j, group);
		}
		json_u64(j, ust_mib_name(i), st.mib[i]);
	}
	json_obj_end(j);
	json_obj_end(j);
	json_obj(j, "drops");
	for (i = 0; i < UST_DROP_MAX; i++)
		json_u64(j, ust_drop_name(i), st.drop[i]);
	json_obj_end(j);
	json_u64(j, "rx_consumed", st.rx_consumed);
	json_u64(j, "rx_drops", ust_stats_drops(&st, UST_DROP_PATH_RX));
	memset(&tx, 0, sizeof(tx));
	for (i = 0; i < c->nb_workers; i++) {
		uint64_t *a = (uint64_t *)&tx;
		const uint64_t *b = (const uint64_t *)&one;

		ust_stack_tcp_tx_stats(c->env.stks[i], &one);
		for (k = 0; k < sizeof(tx) / sizeof(uint64_t); k++)
			a[k] += b[k];
	}
	json_tcp_tx(j, "tcp_tx", &tx);
}

/* "nb_stacks" and "stacks": one object per worker */
static void
perf_json_stacks(struct app_json *j, struct perf_ctx *c)
{
	unsigned int i;

	json_u64(j, "nb_stacks", c->nb_workers);
	json_arr(j, "stacks");
	for (i = 0; i < c->nb_workers; i++) {
		const struct perf_worker *w = &c->w[i];

		json_obj(j, NULL);
		json_u64(j, "index", i);
		json_u64(j, "lcore", w->lcore);
		json_dbl(j, "seconds", perf_secs(w));
		json_u64(j, "busy_cycles", w->busy_tsc);
		json_u64(j, "loop_cycles", w->tsc_end - w->tsc_begin);
		if (c->mode->report_stack != NULL)
			c->mode->report_stack(c, w, j);
		if (!c->mode->no_port && !c->kernel && c->nb_workers > 1)
			json_stack(j, c->env.stks[i]);
		json_obj_end(j);
	}
	json_arr_end(j);
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
	unsigned int i;

	/* Status lines reach a log file or a pipe as they are printed
	 * (scripts wait for them); the data path never prints. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	app_split_args(argc, argv, &eal_argc, &eal_argv, &app_argc, &app_argv);
	c.mode = find_mode(app_argc, app_argv);
	c.duration = 10;
	c.warmup = 1;
	c.stats_period = 1;
	c.kwait_ms = 10;
	c.env.prog = PERF_PROG;
	app_tx_opts_init(&c.tx);
	parse_opts(&c, app_argc, app_argv, &json_path);
	if (json_path != NULL) {
		json = fopen(json_path, "w");
		if (json == NULL)
			app_usage_error(PERF_PROG, "--json %s: %s", json_path,
					strerror(errno));
	}
	if (c.kernel)
		kernel_eal_args(&c, &eal_argc, &eal_argv);
	if (rte_eal_init(eal_argc, eal_argv) < 0)
		app_usage_error(PERF_PROG, "EAL initialisation failed: %s",
				rte_strerror(rte_errno));
	c.tsc_hz = rte_get_tsc_hz();
	c.heap_eal = perf_heap_bytes();
	for (i = 0; i < UST_GROUP_MAX; i++) {
		c.w[i].ctx = &c;
		c.w[i].idx = (uint16_t)i;
	}
	c.t_begin = UINT64_MAX;
	c.t_end = UINT64_MAX;
	app_catch_signals(&c.quit);
	if (c.kernel) {
		c.ksnmp0 = calloc(1, sizeof(*c.ksnmp0));
		c.ksnmp1 = calloc(1, sizeof(*c.ksnmp1));
		if (c.ksnmp0 == NULL || c.ksnmp1 == NULL)
			app_usage_error(PERF_PROG, "out of memory");
	}
	if (c.mode->no_port || c.kernel) {
		c.nb_workers = c.env.cfg.port.nb_queues;
		perf_launch_no_port(&c);
	} else {
		app_env_up(&c.env);
		app_print_port(stdout, &c.env);
		c.nb_workers = c.env.nb_stacks;
		for (i = 0; i < c.nb_workers; i++) {
			c.w[i].lcore = c.env.lcores[i];
			c.w[i].stk = c.env.stks[i];
			c.w[i].pool = c.env.cfg.port.rx_pools[i] != NULL ?
				c.env.cfg.port.rx_pools[i] : c.env.pool;
		}
		if (ust_group_launch(c.env.grp, perf_worker_main, &c) ==
		    -EBUSY)
			app_usage_error(PERF_PROG, "an lcore of -l is busy");
	}
	/* worker 0's figures: the N = 1 report */
	c.t_begin = c.w[0].t_begin;
	c.t_end = c.w[0].t_end;
	c.tsc_begin = c.w[0].tsc_begin;
	c.tsc_end = c.w[0].tsc_end;
	c.busy_tsc = c.w[0].busy_tsc;
	c.polls = c.w[0].polls;
	c.busy_polls = c.w[0].busy_polls;
	if (json != NULL) {
		json_begin(&j, json);
		json_str(&j, "app", PERF_PROG);
		json_str(&j, "mode", c.mode->name);
		json_str(&j, "stack", c.kernel ? "kernel" : "ustack");
		json_dbl(&j, "seconds", (double)(c.t_end - c.t_begin) / 1e9);
	}
	c.mode->report(&c, json != NULL ? &j : NULL);
	if (c.kernel) {
		printf("kernel counters over the measured interval "
		       "(/proc/net/snmp, netstat):\n");
		perf_ksnmp_print(stdout, c.ksnmp0, c.ksnmp1);
		if (json != NULL)
			perf_ksnmp_json(&j, "counters", c.ksnmp0, c.ksnmp1);
	}
	if (c.mode->no_port || c.kernel) {
		if (json != NULL) {
			perf_json_stacks(&j, &c);
			json_end(&j);
			fclose(json);
		}
		if (c.json_interval != NULL)
			fclose(c.json_interval);
		fflush(stdout);
		free(c.ksnmp0);
		free(c.ksnmp1);
		rte_eal_cleanup();
		return c.status;
	}
	if (c.nb_workers == 1) {
		app_print_stats(stdout, c.env.stk);
	} else {
		for (i = 0; i < c.nb_workers; i++) {
			printf("stack %u (lcore %u):\n", i, c.w[i].lcore);
			app_print_stats(stdout, c.env.stks[i]);
		}
	}
	app_print_port_drops(stdout, &c.env);
	app_print_capture(stdout, &c.env);
	if (json != NULL) {
		if (c.nb_workers == 1)
			json_stack(&j, c.env.stk);
		else
			perf_json_totals(&j, &c);
		perf_json_stacks(&j, &c);
	}
	app_env_down(&c.env);
	printf("mbufs in use: %u at start, %u at end\n",
	       c.env.mbuf_in_use_start, c.env.mbuf_in_use_end);
	if (json != NULL) {
		json_env(&j, &c.env);
		json_end(&j);
		fclose(json);
	}
	if (c.json_interval != NULL)
		fclose(c.json_interval);
	fflush(stdout);
	app_sleep(c.linger);
	ust_port_close(c.env.cfg.port.port_id);
	rte_eal_cleanup();
	return c.status;
}
