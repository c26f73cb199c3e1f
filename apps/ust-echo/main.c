/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * ust-echo: the echo and request-response application.
 *
 *   ust-echo [EAL options] -- --mode server --addr A.B.C.D/N [--port N]
 *   ust-echo [EAL options] -- --mode client --addr A.B.C.D/N --peer A.B.C.D
 *
 * With --proto udp (the default) the server echoes every UDP datagram back
 * to its sender, zero copy (the received mbuf is the reply), until SIGINT
 * or SIGTERM, then prints its counters and exits 0; the client runs
 * request-response over --flows sockets, one request outstanding per flow,
 * and prints transactions/s and latency percentiles. With --proto tcp the
 * same over TCP connections, plus a stream mode (echo_tcp.c). Both run the
 * stack on the main lcore. This file: the mode table (what --mode, --proto
 * and --stream/--bulk choose, and the run function of each), the option
 * table (which modes take each option; another mode's option is refused),
 * the UDP modes and main().
 */

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/stat.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "echo.h"
#include "ust_config.h"
#include "ust_socket.h"
#include "ust_stack.h"

volatile sig_atomic_t quit;

/*
 * The modes: --mode server|client, --proto udp|tcp and, for a TCP client,
 * --stream or --bulk choose one; each has its run function and takes the
 * options whose entry in opt_table names it.
 */
enum {
	M_UDP_SERVER = 1u << 0,
	M_UDP_CLIENT = 1u << 1,
	M_TCP_SERVER = 1u << 2,
	M_TCP_CLIENT = 1u << 3,
	M_TCP_STREAM = 1u << 4,
	M_SERVERS = M_UDP_SERVER | M_TCP_SERVER,
	M_TCP = M_TCP_SERVER | M_TCP_CLIENT | M_TCP_STREAM,
	M_RR_CLIENTS = M_UDP_CLIENT | M_TCP_CLIENT,
	M_CLIENTS = M_RR_CLIENTS | M_TCP_STREAM,
	M_ALL = M_SERVERS | M_CLIENTS,
};

static int run_server(const struct opts *o, struct app_env *env,
		      rte_be32_t peer, struct echo_result *r);
static int run_client(const struct opts *o, struct app_env *env,
		      rte_be32_t peer, struct echo_result *r);

static const struct echo_mode modes[] = {
	{ "udp-server", M_UDP_SERVER, true, false, false,
	  "--mode server (the default): echo every UDP datagram, zero\n"
	  "               copy",
	  run_server },
	{ "udp-client", M_UDP_CLIENT, false, false, false,
	  "--mode client: UDP request-response over --flows sockets",
	  run_client },
	{ "tcp-server", M_TCP_SERVER, true, true, false,
	  "--mode server --proto tcp: echo, request-response\n"
	  "               (--response), a sink (--discard) or a full accept "
	  "queue (--hold)",
	  run_tcp_server },
	{ "tcp-client", M_TCP_CLIENT, false, true, false,
	  "--mode client --proto tcp: request-response over --flows\n"
	  "               connections",
	  run_tcp_client },
	{ "tcp-stream", M_TCP_STREAM, false, true, true,
	  "--mode client --proto tcp --stream FILE or --bulk BYTES: send\n"
	  "               on one connection, read the echo until EOF",
	  run_tcp_stream },
};

static void
usage(void)
{
	unsigned int i;

	printf(
"Usage: " PROG " [EAL options] -- [options]\n"
"\n"
"Serve UDP or TCP echo, or drive an echo server with request-response\n"
"traffic (one request outstanding per flow), on the first ethdev port.\n"
"\n"
"Modes (an option that names modes is refused in the others):\n");
	for (i = 0; i < RTE_DIM(modes); i++)
		printf("  %-12s %s\n", modes[i].name, modes[i].summary);
	printf(
"\n"
"Options:\n"
"  --mode server|client   role (default: server)\n"
"  --proto udp|tcp        transport (default: udp)\n"
"  --config FILE          load settings (format: config/ustack.ini; a\n"
"                         regular file of at most 1 MiB); the flags below\n"
"                         override it\n"
"  --addr A.B.C.D/N       our address and prefix ([ip] addr); required\n"
"                         unless the config file sets it\n"
"  --gateway A.B.C.D      default gateway ([ip] gateway)\n"
"  --port N               port served, or the server's (default: 7)\n"
"  --port-id N            ethdev port ([port] id, default: 0)\n"
"  --peer A.B.C.D         clients: the server's address (required)\n"
"  --size BYTES           udp-client, tcp-client: request size, 1-1472\n"
"                         for UDP, 1-65536 for TCP (default: 64);\n"
"                         tcp-server: with --response, answer every --size\n"
"                         bytes read\n"
"  --response BYTES       tcp-client, tcp-server: response size (client\n"
"                         default: --size; server default: 0, echo what\n"
"                         arrives)\n"
"  --flows N              udp-client, tcp-client: concurrent flows, 1-4096\n"
"                         (default: 1)\n"
"  --duration SECONDS     clients: measured time; tcp-stream: the time the\n"
"                         whole transfer may take (default: 5)\n"
"  --warmup SECONDS       udp-client, tcp-client: unmeasured time before\n"
"                         (default: 0.5)\n"
"  --timeout MS           udp-client: an unanswered request is counted\n"
"                         lost and resent after this long; tcp-client:\n"
"                         wait before connecting again after an error\n"
"                         (default: 200)\n"
"  --reconnect K          tcp-client: close each connection and open a new\n"
"                         one after K transactions (default: 0, never)\n"
"  --count N              tcp-client: stop after N transactions (default:\n"
"                         0, run for --duration)\n"
"  --stream FILE          tcp-stream: send FILE (a regular, readable file)\n"
"                         on one connection, then\n"
"                         shut down sending and read until EOF\n"
"  --bulk BYTES           tcp-stream: as --stream, with BYTES of a pattern\n"
"  --stream-out FILE      tcp-stream: write what the server sends back\n"
"  --discard              tcp-server: read and drop (a bulk sink)\n"
"  --close-rst            tcp-server: reset the open connections at exit\n"
"  --backlog N            tcp-server: listen backlog (default: 4096; at\n"
"                         most [tcp] max_conns)\n"
"  --keepalive SECONDS    tcp-server: probe a connection idle this long,\n"
"                         every SECONDS after, and drop it after 3\n"
"                         unanswered probes (SO_KEEPALIVE, TCP_KEEPIDLE,\n"
"                         TCP_KEEPINTVL, TCP_KEEPCNT; 1 to 32767; default:\n"
"                         off): a peer gone whose RST was lost is found\n"
"  --hold                 tcp-server: never accept; connections stay\n"
"                         established in the accept queue (to measure the\n"
"                         stack's memory per connection, reported with\n"
"                         --stats-period)\n"
"  --sndbuf BYTES         TCP modes: SO_SNDBUF of every socket\n"
"  --rcvbuf BYTES         TCP modes: SO_RCVBUF of every socket\n"
APP_TX_USAGE
"  --fault SPEC           drop, duplicate, reorder, corrupt received frames\n"
"                         (e.g. drop=10%%,reorder=5%%,dup=1%%,corrupt=1%%,\n"
"                         seed=7; see ust_fault.h)\n"
"  --json FILE            write counters, drop reasons, the result and the\n"
"                         mbuf pool's in-use count at start and end\n"
"  --idle-sleep US        servers: sleep after an idle poll (default: 0,\n"
"                         busy poll)\n"
"  --stats-period SECONDS all but tcp-stream: print a stats line this often\n"
"                         (default: 0, off)\n"
"  --linger SECONDS       after the run, keep the port open but unpolled\n"
"                         this long before closing it (default: 0); two\n"
"                         processes on one net_memif use it so that neither\n"
"                         polls while the other disconnects (DPDK 22.11's\n"
"                         memif unmaps its rings under a polling peer)\n"
"  --help                 print this text\n"
"\n"
"Exit status: 0 on success; 1 when a client completed no transaction (or\n"
"a stream did not end in order);\n"
"2 on a bad flag, an option of another mode, configuration or device.\n");
}

static double
parse_seconds(const char *flag, const char *v, double min, double max)
{
	return app_parse_seconds(PROG, flag, v, min, max);
}

static uint32_t
parse_num(const char *flag, const char *v, uint32_t min, uint32_t max)
{
	uint32_t n;

	if (ust_parse_u32(v, min, max, &n) != 0)
		app_usage_error(PROG, "%s %s: expected an integer from %u to "
				"%u", flag, v, min, max);
	return n;
}

enum { O_MODE = 256, O_PROTO, O_CONFIG, O_ADDR, O_GW, O_PORT,
       O_PORTID, O_PEER, O_SIZE, O_FLOWS, O_DURATION, O_WARMUP,
       O_TIMEOUT, O_JSON, O_IDLE, O_STATS, O_LINGER, O_HELP,
       O_RESPONSE, O_RECONNECT, O_COUNT, O_STREAM, O_BULK,
       O_STREAM_OUT, O_DISCARD, O_CLOSE_RST, O_SNDBUF, O_RCVBUF,
       O_FAULT, O_BACKLOG, O_HOLD, O_KEEPALIVE, O_END };

/* every option and the modes that take it (the TX layout flags, from
 * app_common.h, are taken by all) */
static const struct {
	struct option lo;
	unsigned int modes;
} opt_table[] = {
	{ { "mode", required_argument, NULL, O_MODE }, M_ALL },
	{ { "proto", required_argument, NULL, O_PROTO }, M_ALL },
	{ { "config", required_argument, NULL, O_CONFIG }, M_ALL },
	{ { "addr", required_argument, NULL, O_ADDR }, M_ALL },
	{ { "gateway", required_argument, NULL, O_GW }, M_ALL },
	{ { "port", required_argument, NULL, O_PORT }, M_ALL },
	{ { "port-id", required_argument, NULL, O_PORTID }, M_ALL },
	{ { "peer", required_argument, NULL, O_PEER }, M_CLIENTS },
	{ { "size", required_argument, NULL, O_SIZE },
	  M_RR_CLIENTS | M_TCP_SERVER },
	{ { "flows", required_argument, NULL, O_FLOWS }, M_RR_CLIENTS },
	{ { "duration", required_argument, NULL, O_DURATION }, M_CLIENTS },
	{ { "warmup", required_argument, NULL, O_WARMUP }, M_RR_CLIENTS },
	{ { "timeout", required_argument, NULL, O_TIMEOUT }, M_RR_CLIENTS },
	{ { "json", required_argument, NULL, O_JSON }, M_ALL },
	{ { "idle-sleep", required_argument, NULL, O_IDLE }, M_SERVERS },
	{ { "stats-period", required_argument, NULL, O_STATS },
	  M_ALL & ~M_TCP_STREAM },
	{ { "linger", required_argument, NULL, O_LINGER }, M_ALL },
	{ { "help", no_argument, NULL, O_HELP }, M_ALL },
	{ { "response", required_argument, NULL, O_RESPONSE },
	  M_TCP_SERVER | M_TCP_CLIENT },
	{ { "reconnect", required_argument, NULL, O_RECONNECT },
	  M_TCP_CLIENT },
	{ { "count", required_argument, NULL, O_COUNT }, M_TCP_CLIENT },
	{ { "stream", required_argument, NULL, O_STREAM }, M_TCP_STREAM },
	{ { "bulk", required_argument, NULL, O_BULK }, M_TCP_STREAM },
	{ { "stream-out", required_argument, NULL, O_STREAM_OUT },
	  M_TCP_STREAM },
	{ { "discard", no_argument, NULL, O_DISCARD }, M_TCP_SERVER },
	{ { "close-rst", no_argument, NULL, O_CLOSE_RST }, M_TCP_SERVER },
	{ { "sndbuf", required_argument, NULL, O_SNDBUF }, M_TCP },
	{ { "rcvbuf", required_argument, NULL, O_RCVBUF }, M_TCP },
	{ { "fault", required_argument, NULL, O_FAULT }, M_ALL },
	{ { "backlog", required_argument, NULL, O_BACKLOG }, M_TCP_SERVER },
	{ { "keepalive", required_argument, NULL, O_KEEPALIVE },
	  M_TCP_SERVER },
	{ { "hold", no_argument, NULL, O_HOLD }, M_TCP_SERVER },
};

/* The mode the role, the transport and --stream/--bulk choose. */
static const struct echo_mode *
choose_mode(const struct opts *o)
{
	unsigned int bit, i;

	if (o->server)
		bit = o->tcp ? M_TCP_SERVER : M_UDP_SERVER;
	else if (!o->tcp)
		bit = M_UDP_CLIENT;
	else
		bit = o->stream != NULL || o->bulk != 0 ? M_TCP_STREAM :
			M_TCP_CLIENT;
	for (i = 0; i < RTE_DIM(modes); i++)
		if (modes[i].bit == bit)
			break;
	return &modes[i];
}

/* Refuse (exit 2) the first option given, in command line order, that
 * @m does not take, naming the modes that do. */
static void
check_mode_opts(const struct echo_mode *m, const int *given,
		unsigned int n_given)
{
	unsigned int g, i, k;

	for (g = 0; g < n_given; g++) {
		char list[128];
		size_t off = 0;

		for (i = 0; i < RTE_DIM(opt_table); i++)
			if (opt_table[i].lo.val == given[g])
				break;
		if (i == RTE_DIM(opt_table) || (opt_table[i].modes & m->bit))
			continue;
		list[0] = '\0';
		for (k = 0; k < RTE_DIM(modes) && off < sizeof(list); k++)
			if (opt_table[i].modes & modes[k].bit)
				off += (size_t)snprintf(list + off,
							sizeof(list) - off,
							"%s%s", off ? ", " :
							"", modes[k].name);
		app_usage_error(PROG, "--%s: not an option of mode %s (only "
				"of %s; try --help)", opt_table[i].lo.name,
				m->name, list);
	}
}

static void
parse_opts(int argc, char **argv, struct opts *o)
{
	struct option lo[RTE_DIM(opt_table) + 4];
	static const struct option tx_lo[] = { APP_TX_LONGOPTS };
	bool seen[O_END - O_MODE] = { false };
	int given[O_END - O_MODE];
	unsigned int n = 0, n_given = 0, i;
	int c;

	for (i = 0; i < RTE_DIM(opt_table); i++)
		lo[n++] = opt_table[i].lo;
	for (i = 0; i < RTE_DIM(tx_lo); i++)
		lo[n++] = tx_lo[i];
	memset(&lo[n], 0, sizeof(lo[n]));
	memset(o, 0, sizeof(*o));
	o->server = true;
	o->port = 7;
	o->size = 64;
	o->flows = 1;
	o->duration = 5;
	o->warmup = 0.5;
	o->timeout_ms = 200;
	o->backlog = 4096;
	app_tx_opts_init(&o->tx);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":", lo, NULL)) != -1) {
		if (c >= O_MODE && c < O_END && !seen[c - O_MODE]) {
			seen[c - O_MODE] = true;
			given[n_given++] = c;
		}
		switch (c) {
		case O_MODE:
			if (strcmp(optarg, "server") == 0)
				o->server = true;
			else if (strcmp(optarg, "client") == 0)
				o->server = false;
			else
				app_usage_error(PROG, "--mode %s: expected "
						"server or client", optarg);
			break;
		case O_PROTO:
			if (strcmp(optarg, "udp") == 0)
				o->tcp = false;
			else if (strcmp(optarg, "tcp") == 0)
				o->tcp = true;
			else
				app_usage_error(PROG, "--proto %s: expected "
						"udp or tcp", optarg);
			break;
		case O_RESPONSE:
			o->response = parse_num("--response", optarg, 1,
						MAX_TCP_SIZE);
			break;
		case O_RECONNECT:
			o->reconnect = parse_num("--reconnect", optarg, 0,
						 UINT32_MAX);
			break;
		case O_COUNT:
			o->count = parse_num("--count", optarg, 0, UINT32_MAX);
			break;
		case O_STREAM: {
			struct stat sb;

			/* now, not after bring-up: a directory or a FIFO
			 * would fail (or block) mid-run */
			if (stat(optarg, &sb) != 0)
				app_usage_error(PROG, "--stream %s: %s", optarg,
						strerror(errno));
			if (!S_ISREG(sb.st_mode))
				app_usage_error(PROG, "--stream %s: not a "
						"regular file", optarg);
			if (access(optarg, R_OK) != 0)
				app_usage_error(PROG, "--stream %s: %s", optarg,
						strerror(errno));
			o->stream = optarg;
			break;
		}
		case O_BULK: {
			char *end;

			errno = 0;
			o->bulk = strtoull(optarg, &end, 10);
			/* digits only: strtoull() takes blanks and a sign */
			if (errno != 0 || !isdigit((unsigned char)optarg[0]) ||
			    *end != '\0' || o->bulk == 0 ||
			    o->bulk > (1ull << 50))
				app_usage_error(PROG, "--bulk %s: expected a "
						"byte count from 1 to 2^50",
						optarg);
			break;
		}
		case O_STREAM_OUT:
			o->stream_out = optarg;
			break;
		case O_DISCARD:
			o->discard = true;
			break;
		case O_CLOSE_RST:
			o->close_rst = true;
			break;
		case O_SNDBUF:
			o->sndbuf = parse_num("--sndbuf", optarg, 1,
					      INT32_MAX / 2);
			break;
		case O_RCVBUF:
			o->rcvbuf = parse_num("--rcvbuf", optarg, 1,
					      INT32_MAX / 2);
			break;
		case O_BACKLOG:
			o->backlog = parse_num("--backlog", optarg, 1,
					       1u << 24);
			break;
		case O_HOLD:
			o->hold = true;
			break;
		case O_KEEPALIVE:
			/* Linux's MAX_TCP_KEEPIDLE */
			o->keepalive = parse_num("--keepalive", optarg, 1,
						 32767);
			break;
		case O_FAULT:
			app_fault_check(PROG, optarg);
			o->fault = optarg;
			break;
		case O_CONFIG:
			o->config = optarg;
			break;
		case O_ADDR:
			o->addr = optarg;
			break;
		case O_GW:
			o->gateway = optarg;
			break;
		case O_PORT:
			o->port = parse_num("--port", optarg, 1, 65535);
			break;
		case O_PORTID:
			o->port_id = optarg;
			break;
		case O_PEER:
			o->peer = optarg;
			break;
		case O_SIZE:
			o->size = parse_num("--size", optarg, 1, MAX_TCP_SIZE);
			break;
		case O_FLOWS:
			o->flows = parse_num("--flows", optarg, 1, MAX_FLOWS);
			break;
		case O_DURATION:
			o->duration = parse_seconds("--duration", optarg, 0.01,
						    86400);
			break;
		case O_WARMUP:
			o->warmup = parse_seconds("--warmup", optarg, 0, 3600);
			break;
		case O_TIMEOUT:
			o->timeout_ms = parse_num("--timeout", optarg, 1,
						  60000);
			break;
		case O_JSON:
			o->json = optarg;
			break;
		case O_IDLE:
			o->idle_sleep_us = parse_num("--idle-sleep", optarg, 0,
						     1000000);
			break;
		case O_STATS:
			o->stats_period = parse_num("--stats-period", optarg,
						    0, 86400);
			break;
		case O_LINGER:
			o->linger = parse_seconds("--linger", optarg, 0, 3600);
			break;
		case O_HELP:
			usage();
			exit(0);
		case ':':
			app_usage_error(PROG, "%s: missing value",
					argv[optind - 1]);
			break;
		default:
			if (app_tx_opt_parse(PROG, &o->tx, c, optarg))
				break;
			app_usage_error(PROG, "unknown option '%s' (try "
					"--help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		app_usage_error(PROG, "unexpected argument '%s'",
				argv[optind]);
	o->mode = choose_mode(o);
	check_mode_opts(o->mode, given, n_given);
	if (!o->tcp && o->size > MAX_UDP_SIZE)
		app_usage_error(PROG, "--size %u: UDP requests are 1-%u bytes",
				o->size, MAX_UDP_SIZE);
	if (o->stream != NULL && o->bulk != 0)
		app_usage_error(PROG, "--stream and --bulk exclude each other");
	if (o->discard && o->response != 0)
		app_usage_error(PROG, "--discard and --response exclude each "
				"other");
}

/* Defaults, then --config, then flags. */
static void
build_config(const struct opts *o, struct ust_config *cfg, rte_be32_t *peer)
{
	char err[256];

	ust_config_defaults(cfg);
	if (o->config != NULL &&
	    ust_config_load(cfg, o->config, err, sizeof(err)) != 0)
		app_usage_error(PROG, "%s", err);
	app_tx_opts_apply(&o->tx, cfg);
	if (o->addr != NULL &&
	    ust_parse_ipv4_prefix(o->addr, &cfg->stack.addr,
				  &cfg->stack.prefix_len) != 0)
		app_usage_error(PROG, "--addr %s: expected A.B.C.D/N", o->addr);
	if (cfg->stack.addr == 0 && o->addr == NULL)
		app_usage_error(PROG, "missing --addr A.B.C.D/N");
	if (o->gateway != NULL &&
	    ust_parse_ipv4(o->gateway, &cfg->stack.gateway) != 0)
		app_usage_error(PROG, "--gateway %s: expected A.B.C.D",
				o->gateway);
	app_check_ip(PROG, cfg, o->addr, o->gateway);
	if (o->port_id != NULL)
		cfg->port.port_id = (uint16_t)parse_num("--port-id",
			o->port_id, 0, RTE_MAX_ETHPORTS - 1);
	*peer = 0;
	if (!o->server) {
		if (o->peer == NULL)
			app_usage_error(PROG, "client mode needs --peer "
					"A.B.C.D");
		if (ust_parse_ipv4(o->peer, peer) != 0)
			app_usage_error(PROG, "--peer %s: expected A.B.C.D",
					o->peer);
	}
}

void
echo_idle(const struct opts *o, bool busy)
{
	if (!busy && o->idle_sleep_us != 0) {
		struct timespec ts = {
			.tv_sec = o->idle_sleep_us / 1000000,
			.tv_nsec = (long)(o->idle_sleep_us % 1000000) * 1000,
		};

		nanosleep(&ts, NULL);
	}
}

/* ---- UDP server ---- */

static int
run_server(const struct opts *o, struct app_env *env,
	   rte_be32_t peer __rte_unused, struct echo_result *r)
{
	struct server_result *res = &r->srv;
	struct ust_stack *stk = env->stk;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	uint64_t next_stats, period = (uint64_t)o->stats_period * 1000000000u;
	int sd;

	sin.sin_port = rte_cpu_to_be_16((uint16_t)o->port);
	sd = ust_socket(stk, AF_INET, SOCK_DGRAM, 0);
	if (sd < 0 || ust_bind(stk, sd, (struct sockaddr *)&sin,
			       sizeof(sin)) != 0)
		app_usage_error(PROG, "cannot bind UDP port %u", o->port);
	printf("%s: serving UDP echo on port %u\n", PROG, o->port);
	fflush(stdout);
	next_stats = ust_clock_ns() + period;
	while (!quit) {
		struct rte_mbuf *pk[32];
		struct sockaddr_in from[32];
		uint64_t now = ust_clock_ns();
		uint16_t rx = ust_stack_poll(stk, now);
		int n = ust_recv_burst(stk, sd, pk, 32, from);
		int s = 0, i;

		if (n > 0) {
			s = ust_send_burst(stk, sd, pk, (unsigned int)n, from);
			if (s < 0)
				s = 0;
			for (i = s; i < n; i++)
				rte_pktmbuf_free(pk[i]);
			res->echoed += (uint64_t)s;
			res->refused += (uint64_t)(n - s);
			ust_stack_flush(stk);
		}
		if (period != 0 && now >= next_stats) {
			printf("%s: echoed %" PRIu64 " refused %" PRIu64 "\n",
			       PROG, res->echoed, res->refused);
			fflush(stdout);
			next_stats = now + period;
		}
		echo_idle(o, rx > 0 || n > 0);
	}
	ust_close(stk, sd);
	return 0;
}

/* ---- client ---- */

struct flow {
	int sd;
	bool outstanding;
	uint64_t seq;
	uint64_t sent_ns;
};

static int
run_client(const struct opts *o, struct app_env *env, rte_be32_t peer,
	   struct echo_result *r)
{
	struct client_result *res = &r->cli;
	struct ust_stack *stk = env->stk;
	struct sockaddr_in to = { .sin_family = AF_INET };
	struct flow *fl;
	uint8_t req[MAX_UDP_SIZE], rsp[MAX_UDP_SIZE + 1];
	uint64_t start, measure_from, end, tmo = (uint64_t)o->timeout_ms * 1000000;
	uint64_t period = (uint64_t)o->stats_period * 1000000000u, next_stats;
	uint32_t f;
	int ep;

	fl = calloc(o->flows, sizeof(*fl));
	if (fl == NULL)
		app_usage_error(PROG, "out of memory for %u flows", o->flows);
	to.sin_addr.s_addr = peer;
	to.sin_port = rte_cpu_to_be_16((uint16_t)o->port);
	ep = app_epoll_create(PROG, stk);
	for (f = 0; f < o->flows; f++) {
		struct ust_epoll_event ev = { .events = UST_EPOLLIN,
					      .data = f };
		int rc;

		fl[f].sd = ust_socket(stk, AF_INET, SOCK_DGRAM, 0);
		if (fl[f].sd < 0)
			app_usage_error(PROG, "flow %u: socket: %s (raise "
					"[stack] max_sockets)", f,
					strerror(-fl[f].sd));
		rc = ust_connect(stk, fl[f].sd, (struct sockaddr *)&to,
				 sizeof(to));
		if (rc != 0)
			app_usage_error(PROG, "--peer %s: %s", o->peer,
					strerror(-rc));
		ust_epoll_ctl(stk, ep, UST_EPOLL_CTL_ADD, fl[f].sd, &ev);
	}
	memset(req, 0xa5, sizeof(req));
	app_hist_init(&res->lat);
	start = ust_clock_ns();
	measure_from = start + (uint64_t)(o->warmup * 1e9);
	end = measure_from + (uint64_t)(o->duration * 1e9);
	next_stats = start + period;
	while (!quit) {
		struct ust_epoll_event evs[64];
		uint64_t now = ust_clock_ns();
		int n, i;

		if (now >= end)
			break;
		ust_stack_poll(stk, now);
		n = ust_epoll_wait(stk, ep, evs, 64);
		now = ust_clock_ns();
		for (i = 0; i < n; i++) {
			struct flow *x = &fl[evs[i].data];
			ssize_t r;

			while ((r = ust_recv(stk, x->sd, rsp, sizeof(rsp),
					     0)) >= 0 || r == -ECONNREFUSED) {
				uint64_t seq;

				if (r == -ECONNREFUSED) {
					res->refused++;
					continue;
				}
				if (o->size >= 8) {
					memcpy(&seq, rsp, 8);
					if (!x->outstanding || seq != x->seq ||
					    (uint32_t)r != o->size) {
						res->late++;
						continue;
					}
				} else if (!x->outstanding) {
					res->late++;
					continue;
				}
				x->outstanding = false;
				res->all++;
				if (x->sent_ns >= measure_from) {
					res->transactions++;
					app_hist_add(&res->lat,
						     now - x->sent_ns);
				}
			}
		}
		for (f = 0; f < o->flows; f++) {
			struct flow *x = &fl[f];
			ssize_t r;

			if (x->outstanding) {
				if (now - x->sent_ns < tmo)
					continue;
				res->timeouts++;
				x->outstanding = false;
			}
			x->seq++;
			if (o->size >= 8)
				memcpy(req, &x->seq, 8);
			r = ust_send(stk, x->sd, req, o->size, 0);
			if (r < 0) {
				if (r != -EAGAIN)
					res->send_errors++;
				if (r == -ECONNREFUSED)
					res->refused++;
				continue;
			}
			x->outstanding = true;
			x->sent_ns = now;
		}
		if (period != 0 && now >= next_stats) {
			printf("%s: %" PRIu64 " transactions, %" PRIu64
			       " timeouts\n", PROG, res->all, res->timeouts);
			fflush(stdout);
			next_stats = now + period;
		}
	}
	res->seconds = (double)(ust_clock_ns() < end ? ust_clock_ns() : end);
	res->seconds = res->seconds > (double)measure_from ?
		(res->seconds - (double)measure_from) / 1e9 : 0;
	for (f = 0; f < o->flows; f++)
		ust_close(stk, fl[f].sd);
	ust_close(stk, ep);
	free(fl);
	return 0;
}

static void
print_client(const struct opts *o, const struct client_result *r)
{
	double tps = r->seconds > 0 ? (double)r->transactions / r->seconds : 0;

	if (o->mode->stream) {
		printf("%s: tcp stream, %" PRIu64 " bytes sent, %" PRIu64
		       " received in %.3f s (%.3f Gbit/s out, %.3f in)\n",
		       PROG, r->bytes_sent, r->bytes_received, r->seconds,
		       r->seconds > 0 ? r->bytes_sent * 8 / r->seconds / 1e9 :
		       0, r->seconds > 0 ? r->bytes_received * 8 / r->seconds /
		       1e9 : 0);
		printf("stream %s%s%s\n", r->all == 1 ? "completed" :
		       "failed", r->last_error != 0 ? ": " : "",
		       r->last_error != 0 ? strerror(r->last_error) : "");
		return;
	}
	printf("%s: %s, %u flow%s, %u-byte requests", PROG,
	       o->tcp ? "tcp" : "udp", o->flows, o->flows == 1 ? "" : "s",
	       o->size);
	if (o->tcp)
		printf(", %u-byte responses", o->response != 0 ? o->response :
		       o->size);
	printf(", %.2f s measured\n", r->seconds);
	printf("transactions: %" PRIu64 " (%.1f transactions/s)\n",
	       r->transactions, tps);
	printf("latency (us): p50 %.1f  p99 %.1f  p99.9 %.1f  (min %.1f, "
	       "max %.1f)\n",
	       app_hist_quantile(&r->lat, 0.5) / 1e3,
	       app_hist_quantile(&r->lat, 0.99) / 1e3,
	       app_hist_quantile(&r->lat, 0.999) / 1e3,
	       r->lat.count ? r->lat.min / 1e3 : 0, r->lat.max / 1e3);
	if (o->tcp) {
		printf("connections: %" PRIu64 " (%.1f/s), all transactions %"
		       PRIu64 "\n", r->connects, r->seconds > 0 ?
		       (double)r->connects / r->seconds : 0, r->all);
		printf("errors: refused %" PRIu64 ", reset %" PRIu64
		       ", timed out %" PRIu64 ", other %" PRIu64 "%s%s\n",
		       r->refused, r->resets, r->conn_timeouts,
		       r->other_errors, r->last_error != 0 ? "; last: " : "",
		       r->last_error != 0 ? strerror(r->last_error) : "");
		return;
	}
	printf("timeouts %" PRIu64 ", late replies %" PRIu64 ", port "
	       "unreachable %" PRIu64 ", send errors %" PRIu64 "\n",
	       r->timeouts, r->late, r->refused, r->send_errors);
}

int
main(int argc, char **argv)
{
	int eal_argc, app_argc;
	char **eal_argv, **app_argv;
	struct opts o;
	struct app_env env;
	struct echo_result res;
	struct server_result *sres = &res.srv;
	struct client_result *cres = &res.cli;
	FILE *json = NULL;
	struct app_json j;
	rte_be32_t peer;
	int rc = 0;

	app_split_args(argc, argv, &eal_argc, &eal_argv, &app_argc, &app_argv);
	parse_opts(app_argc, app_argv, &o);
	memset(&env, 0, sizeof(env));
	env.prog = PROG;
	env.fault_spec = o.fault;
	build_config(&o, &env.cfg, &peer);
	if (o.json != NULL) {
		json = fopen(o.json, "w");
		if (json == NULL)
			app_usage_error(PROG, "--json %s: %s", o.json,
					strerror(errno));
	}
	if (rte_eal_init(eal_argc, eal_argv) < 0)
		app_usage_error(PROG, "EAL initialisation failed: %s",
				rte_strerror(rte_errno));
	app_env_up(&env);
	app_print_port(stdout, &env);
	app_catch_signals(&quit);
	memset(&res, 0, sizeof(res));
	o.mode->run(&o, &env, peer, &res);
	/* a last poll sends what is staged (e.g. final echoes) */
	ust_stack_flush(env.stk);
	app_print_stats(stdout, env.stk);
	app_print_fault(stdout, &env);
	if (json != NULL) {
		json_begin(&j, json);
		json_str(&j, "app", PROG);
		json_str(&j, "mode", o.server ? "server" : "client");
		json_str(&j, "proto", o.tcp ? "tcp" : "udp");
		json_stack(&j, env.stk);
		json_obj(&j, "result");
		if (o.server) {
			json_u64(&j, "echoed", sres->echoed);
			json_u64(&j, "refused", sres->refused);
			if (o.tcp) {
				json_u64(&j, "received", sres->received);
				json_u64(&j, "accepted", sres->accepted);
				json_u64(&j, "closed", sres->closed);
				json_u64(&j, "resets", sres->resets);
				json_u64(&j, "transactions",
					 sres->transactions);
			}
		} else {
			if (o.tcp) {
				json_u64(&j, "response", o.response != 0 ?
					 o.response : o.size);
				json_u64(&j, "connects", cres->connects);
				json_u64(&j, "refused", cres->refused);
				json_u64(&j, "resets", cres->resets);
				json_u64(&j, "conn_timeouts",
					 cres->conn_timeouts);
				json_u64(&j, "other_errors",
					 cres->other_errors);
				json_u64(&j, "bytes_sent", cres->bytes_sent);
				json_u64(&j, "bytes_received",
					 cres->bytes_received);
				json_u64(&j, "all", cres->all);
			}
			json_u64(&j, "flows", o.flows);
			json_u64(&j, "size", o.size);
			json_dbl(&j, "seconds", cres->seconds);
			json_u64(&j, "transactions", cres->transactions);
			json_dbl(&j, "transactions_per_s",
				 cres->seconds > 0 ?
				 (double)cres->transactions / cres->seconds :
				 0);
			json_u64(&j, "timeouts", cres->timeouts);
			json_u64(&j, "late", cres->late);
			json_u64(&j, "port_unreachable", cres->refused);
			json_u64(&j, "send_errors", cres->send_errors);
			json_hist(&j, "latency_ns", &cres->lat);
		}
		json_obj_end(&j);
	}
	app_env_down(&env);
	printf("mbufs in use: %u at start, %u at end\n",
	       env.mbuf_in_use_start, env.mbuf_in_use_end);
	if (json != NULL) {
		json_env(&j, &env);
		json_end(&j);
		fclose(json);
	}
	if (!o.server) {
		print_client(&o, cres);
		if (o.mode->stream)
			rc = cres->all == 1 ? 0 : 1;
		else if (cres->transactions == 0)
			rc = 1;
	}
	fflush(stdout);
	app_sleep(o.linger);
	ust_port_close(env.cfg.port.port_id);
	rte_eal_cleanup();
	return rc;
}
