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
 * same over TCP connections, plus a stream mode (echo_tcp.c).
 *
 * With --nb-cores N (default 1) there are N share-nothing stacks on the N
 * queue pairs of the port, stack i polled on the i-th lcore of the EAL
 * list (the main lcore first; lib/group). Every mode runs one worker a
 * stack: a server listens (or binds its UDP port) on every stack and
 * serves what its stack receives; a client puts flow k on stack k % N.
 * Each worker keeps its results in its own struct echo_worker; the summary
 * adds them up and prints them per stack too.
 *
 * This file: the mode table (what --mode, --proto and --stream/--bulk
 * choose, and the run function of each), the option table (which modes
 * take each option; another mode's option is refused), the workers'
 * start barrier and end, the UDP modes and main().
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
#include <rte_pause.h>

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

static int run_server(struct echo_worker *w);
static int run_client(struct echo_worker *w);

/* what the workers share: set up before the launch, then only the two
 * barrier counters are written (once a worker) */
struct echo_ctx {
	const struct opts *o;
	struct ust_env *env;
	rte_be32_t peer;
	bool peer_is6;
	uint8_t peer6[16];
	uint16_t nb;
	uint16_t active;           /* workers with something to do */
	struct echo_worker *w;     /* nb of them */
	uint32_t ready __rte_cache_aligned; /* workers set up */
	uint32_t done;             /* workers finished */
};

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
"  --addr6 ADDR/N         IPv6 on, with this global address and prefix\n"
"                         ([ip6] addr; a link-local one is formed from the\n"
"                         MAC): the stack answers ping6 and Neighbour\n"
"                         Discovery; servers are dual-stack, clients reach\n"
"                         an IPv6 --peer\n"
"  --gateway6 ADDR        IPv6 default router ([ip6] gateway; else from\n"
"                         router advertisements)\n"
"  --port N               port served, or the server's (default: 7)\n"
"  --port-id N            ethdev port ([port] id, default: 0)\n"
"  --nb-cores N           stacks, 1-64, one a lcore ([port] queues;\n"
"                         default: 1): stack i polls queue pair i of the\n"
"                         port on the i-th lcore of the EAL list (-l), the\n"
"                         main lcore first. Servers listen on every stack;\n"
"                         clients put flow k on stack k %% N. The EAL list\n"
"                         needs N lcores and the port N queue pairs, else\n"
"                         exit status 2 (see \"Several lcores\" below)\n"
"  --peer ADDR            clients: the server's address, A.B.C.D or (with\n"
"                         --addr6) an IPv6 one (required)\n"
"  --size BYTES           udp-client, tcp-client: request size, 1-65507\n"
"                         for UDP (above the MTU's 1472: IPv4 fragments),\n"
"                         1-65536 for TCP (default: 64);\n"
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
"  --pcap FILE            write every frame of the port, both ways, to FILE\n"
"                         (pcapng, as dpdk-dumpcap; for runs without\n"
"                         hugepages, where dumpcap cannot attach)\n"
"  --json FILE            write counters, drop reasons, the result and the\n"
"                         mbuf pool's in-use count at start and end\n"
"  --idle-sleep US        servers: sleep after an idle poll (default: 0,\n"
"                         busy poll)\n"
"  --idle-adaptive        servers: once idle 200 us, sleep until a frame\n"
"                         (the queue's RX interrupt, where the port has\n"
"                         them), the stack's next timer or 10 ms; without\n"
"                         interrupts, --idle-sleep at most (default 200 us)\n"
"  --stats-period SECONDS all but tcp-stream: print a stats line this often\n"
"                         (default: 0, off)\n"
"  --linger SECONDS       after the run, keep the port open but unpolled\n"
"                         this long before closing it (default: 0); two\n"
"                         processes on one net_memif use it so that neither\n"
"                         polls while the other disconnects (DPDK 22.11's\n"
"                         memif unmaps its rings under a polling peer)\n"
"  --help                 print this text\n"
"  --version              print ustack's and DPDK's versions\n"
"\n"
"SIGUSR1 prints the counters (as at exit: the stacks', the port's drops)\n"
"and the run goes on (tcp-stream ignores it); SIGINT or SIGTERM ends it.\n"
"\n"
"Several lcores: e.g. " PROG " -l 0-1 --vdev=net_tap0 -- --nb-cores 2\n"
"--proto tcp --addr 198.18.0.2/24. The port spreads flows over its queues\n"
"(RSS on a NIC; net_tap: the kernel's own hash; net_memif: queue i of\n"
"one side is queue i of the other); a segment that lands on a stack that\n"
"does not own its flow (a client's replies, say) is handed to the owner\n"
"(counters HandoffOut/HandoffIn). The stats lines and the summary show\n"
"each stack (\"stack i (lcore L):\") and the total; --json has the totals\n"
"at the top level and each stack under \"stacks\".\n"
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

enum { O_MODE = 256, O_PROTO, O_CONFIG, O_ADDR, O_GW, O_ADDR6, O_GW6, O_PORT,
       O_PORTID, O_PEER, O_SIZE, O_FLOWS, O_DURATION, O_WARMUP,
       O_TIMEOUT, O_JSON, O_IDLE, O_IDLE_ADAPTIVE, O_STATS, O_LINGER,
       O_HELP, O_VERSION,
       O_RESPONSE, O_RECONNECT, O_COUNT, O_STREAM, O_BULK,
       O_STREAM_OUT, O_DISCARD, O_CLOSE_RST, O_SNDBUF, O_RCVBUF,
       O_FAULT, O_PCAP, O_BACKLOG, O_HOLD, O_KEEPALIVE, O_NB_CORES, O_END };

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
	{ { "addr6", required_argument, NULL, O_ADDR6 }, M_ALL },
	{ { "gateway6", required_argument, NULL, O_GW6 }, M_ALL },
	{ { "port", required_argument, NULL, O_PORT }, M_ALL },
	{ { "port-id", required_argument, NULL, O_PORTID }, M_ALL },
	{ { "nb-cores", required_argument, NULL, O_NB_CORES }, M_ALL },
	{ { "peer", required_argument, NULL, O_PEER }, M_CLIENTS },
	{ { "size", required_argument, NULL, O_SIZE },
	  M_RR_CLIENTS | M_TCP_SERVER },
	{ { "flows", required_argument, NULL, O_FLOWS }, M_RR_CLIENTS },
	{ { "duration", required_argument, NULL, O_DURATION }, M_CLIENTS },
	{ { "warmup", required_argument, NULL, O_WARMUP }, M_RR_CLIENTS },
	{ { "timeout", required_argument, NULL, O_TIMEOUT }, M_RR_CLIENTS },
	{ { "json", required_argument, NULL, O_JSON }, M_ALL },
	{ { "idle-sleep", required_argument, NULL, O_IDLE }, M_SERVERS },
	{ { "idle-adaptive", no_argument, NULL, O_IDLE_ADAPTIVE }, M_SERVERS },
	{ { "stats-period", required_argument, NULL, O_STATS },
	  M_ALL & ~M_TCP_STREAM },
	{ { "linger", required_argument, NULL, O_LINGER }, M_ALL },
	{ { "help", no_argument, NULL, O_HELP }, M_ALL },
	{ { "version", no_argument, NULL, O_VERSION }, M_ALL },
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
	{ { "pcap", required_argument, NULL, O_PCAP }, M_ALL },
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
		case O_PCAP:
			if (optarg[0] == '\0')
				app_usage_error(PROG, "--pcap: a file name");
			o->pcap = optarg;
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
		case O_ADDR6:
			o->addr6 = optarg;
			break;
		case O_GW6:
			o->gateway6 = optarg;
			break;
		case O_PORT:
			o->port = parse_num("--port", optarg, 1, 65535);
			break;
		case O_PORTID:
			o->port_id = optarg;
			break;
		case O_NB_CORES:
			o->nb_cores = optarg;
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
		case O_IDLE_ADAPTIVE:
			o->idle_adaptive = true;
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
		case O_VERSION:
			app_print_version(PROG);
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
build_config(const struct opts *o, struct ust_config *cfg, rte_be32_t *peer,
	     uint8_t *peer6, bool *peer_is6)
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
	app_set_ip6(PROG, cfg, o->addr6, o->gateway6);
	if (o->port_id != NULL)
		cfg->port.port_id = (uint16_t)parse_num("--port-id",
			o->port_id, 0, RTE_MAX_ETHPORTS - 1);
	*peer = 0;
	*peer_is6 = false;
	if (!o->server) {
		if (o->peer == NULL)
			app_usage_error(PROG, "client mode needs --peer "
					"A.B.C.D");
		if (ust_parse_ipv4(o->peer, peer) == 0)
			return;
		if (ust_parse_ipv6(o->peer, peer6) != 0)
			app_usage_error(PROG, "--peer %s: expected A.B.C.D or "
					"an IPv6 address", o->peer);
		if (!cfg->stack.ip6.enable)
			app_usage_error(PROG, "--peer %s: IPv6 is off (no "
					"--addr6, no [ip6])", o->peer);
		*peer_is6 = true;
	}
}

socklen_t
echo_peer_addr(const struct echo_worker *w, union ust_sockaddr *to)
{
	return app_sockaddr(to, w->peer_is6, w->peer, w->peer6,
			    (uint16_t)w->o->port);
}

void
echo_idle(struct echo_worker *w, bool busy)
{
	const struct opts *o = w->o;

	if (o->idle_adaptive) {
		ust_idle(&w->idle, w->stk, busy);
	} else if (!busy && o->idle_sleep_us != 0) {
		struct timespec ts = {
			.tv_sec = o->idle_sleep_us / 1000000,
			.tv_nsec = (long)(o->idle_sleep_us % 1000000) * 1000,
		};

		nanosleep(&ts, NULL);
	}
}

/* ---- UDP server ---- */

/* the --stats-period line */
static void
udp_server_line(const char *prefix, const struct ust_env *env __rte_unused,
		struct ust_stack *stk __rte_unused, const struct echo_result *r)
{
	printf("%sechoed %" PRIu64 " refused %" PRIu64 "\n", prefix,
	       r->srv.echoed, r->srv.refused);
}

static int
run_server(struct echo_worker *w)
{
	const struct opts *o = w->o;
	struct server_result *res = &w->res.srv;
	struct ust_stack *stk = w->stk;
	union ust_sockaddr sa;
	socklen_t salen;
	uint64_t next_stats, period = (uint64_t)o->stats_period * 1000000000u;
	int sd;

	/* with IPv6 on, one dual-stack socket on :: takes both families */
	salen = app_sockaddr(&sa, w->ip6, 0, NULL, (uint16_t)o->port);
	sd = ust_socket(stk, sa.sa.sa_family, SOCK_DGRAM, 0);
	if (sd < 0 || ust_bind(stk, sd, &sa.sa, salen) != 0)
		app_usage_error(PROG, "cannot bind UDP port %u", o->port);
	/* every stack has its socket before any polls */
	echo_ready(w);
	if (w->idx == 0) {
		printf("%s: serving UDP echo on port %u%s", PROG, o->port,
		       w->ip6 ? " (IPv4 and IPv6)" : "");
		if (w->nb > 1)
			printf(" on %u stacks", w->nb);
		printf("\n");
		fflush(stdout);
	}
	next_stats = ust_clock_ns() + period;
	while (!quit) {
		struct rte_mbuf *pk[32];
		union ust_sockaddr from[32];
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
		if (period != 0 && now >= next_stats && w->idx == 0) {
			echo_stats_lines(w, udp_server_line);
			next_stats = now + period;
		}
		if (w->idx == 0 && app_usr1_take())
			echo_dump(w);
		echo_idle(w, rx > 0 || n > 0);
	}
	ust_close(stk, sd);
	echo_finish(w, 0);
	return 0;
}

/* ---- client ---- */

struct flow {
	int sd;
	bool outstanding;
	uint64_t seq;
	uint64_t sent_ns;
};

/* the --stats-period line */
static void
udp_client_line(const char *prefix, const struct ust_env *env __rte_unused,
		struct ust_stack *stk __rte_unused, const struct echo_result *r)
{
	printf("%s%" PRIu64 " transactions, %" PRIu64 " timeouts\n", prefix,
	       r->cli.all, r->cli.timeouts);
}

static int
run_client(struct echo_worker *w)
{
	const struct opts *o = w->o;
	struct client_result *res = &w->res.cli;
	struct ust_stack *stk = w->stk;
	union ust_sockaddr to;
	socklen_t tolen;
	struct flow *fl;
	uint8_t req[MAX_UDP_SIZE], rsp[MAX_UDP_SIZE + 1];
	uint64_t start, measure_from, end, tmo = (uint64_t)o->timeout_ms * 1000000;
	uint64_t period = (uint64_t)o->stats_period * 1000000000u, next_stats;
	uint32_t f;
	int ep;

	/* this stack's flows: k with k % nb == idx, numbered 0.. here */
	fl = calloc(w->nflows, sizeof(*fl));
	if (fl == NULL)
		app_usage_error(PROG, "out of memory for %u flows", w->nflows);
	tolen = echo_peer_addr(w, &to);
	ep = app_epoll_create(PROG, stk);
	for (f = 0; f < w->nflows; f++) {
		struct ust_epoll_event ev = { .events = UST_EPOLLIN,
					      .data = f };
		int rc;

		fl[f].sd = ust_socket(stk, to.sa.sa_family, SOCK_DGRAM, 0);
		if (fl[f].sd < 0)
			app_usage_error(PROG, "flow %u: socket: %s (raise "
					"[stack] max_sockets)", f,
					strerror(-fl[f].sd));
		rc = app_connect(stk, fl[f].sd, &to.sa, tolen, &quit);
		if (rc != 0)
			app_usage_error(PROG, "--peer %s: %s", o->peer,
					strerror(-rc));
		ust_epoll_ctl(stk, ep, UST_EPOLL_CTL_ADD, fl[f].sd, &ev);
	}
	memset(req, 0xa5, sizeof(req));
	app_hist_init(&res->lat);
	echo_ready(w);
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
		for (f = 0; f < w->nflows; f++) {
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
		if (period != 0 && now >= next_stats && w->idx == 0) {
			echo_stats_lines(w, udp_client_line);
			next_stats = now + period;
		}
		if (w->idx == 0 && app_usr1_take())
			echo_dump(w);
	}
	res->seconds = (double)(ust_clock_ns() < end ? ust_clock_ns() : end);
	res->seconds = res->seconds > (double)measure_from ?
		(res->seconds - (double)measure_from) / 1e9 : 0;
	for (f = 0; f < w->nflows; f++)
		ust_close(stk, fl[f].sd);
	ust_close(stk, ep);
	echo_finish(w, 0);
	free(fl);
	return 0;
}


/* ---- the workers ---- */

void
echo_ready(struct echo_worker *w)
{
	struct echo_ctx *c = w->ctx;

	if (w->o->idle_adaptive)
		ust_idle_init(&w->idle, w->env, w->idx, 200000,
			      w->o->idle_sleep_us != 0 ?
			      (uint64_t)w->o->idle_sleep_us * 1000 : 200000);

	__atomic_fetch_add(&c->ready, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&c->ready, __ATOMIC_ACQUIRE) < c->nb && !quit)
		rte_pause();
}

void
echo_finish(struct echo_worker *w, uint64_t ns)
{
	struct echo_ctx *c = w->ctx;

	__atomic_fetch_add(&c->done, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&c->done, __ATOMIC_ACQUIRE) < c->nb)
		ust_stack_poll(w->stk, ust_clock_ns());
	if (ns != 0)
		app_poll_for(w->stk, ns);
	/* a last poll sends what is staged (e.g. final echoes) */
	ust_stack_flush(w->stk);
}

void
echo_result_add(struct echo_result *sum, const struct echo_result *r)
{
	struct server_result *s = &sum->srv;
	struct client_result *c = &sum->cli;

	s->echoed += r->srv.echoed;
	s->refused += r->srv.refused;
	s->received += r->srv.received;
	s->accepted += r->srv.accepted;
	s->closed += r->srv.closed;
	s->resets += r->srv.resets;
	s->transactions += r->srv.transactions;
	c->transactions += r->cli.transactions;
	c->all += r->cli.all;
	c->timeouts += r->cli.timeouts;
	c->late += r->cli.late;
	c->send_errors += r->cli.send_errors;
	c->refused += r->cli.refused;
	c->connects += r->cli.connects;
	c->resets += r->cli.resets;
	c->conn_timeouts += r->cli.conn_timeouts;
	c->other_errors += r->cli.other_errors;
	if (c->last_error == 0)
		c->last_error = r->cli.last_error;
	c->bytes_sent += r->cli.bytes_sent;
	c->bytes_received += r->cli.bytes_received;
	if (r->cli.seconds > c->seconds)
		c->seconds = r->cli.seconds;
	app_hist_merge(&c->lat, &r->cli.lat);
}

/* the sum of every worker's results */
static void
echo_total(const struct echo_ctx *c, struct echo_result *t)
{
	uint16_t i;

	memset(t, 0, sizeof(*t));
	app_hist_init(&t->cli.lat);
	for (i = 0; i < c->nb; i++)
		echo_result_add(t, &c->w[i].res);
}

void
echo_dump(struct echo_worker *w)
{
	printf("%s: counters at SIGUSR1:\n", PROG);
	app_print_group_stats(stdout, w->ctx->env);
	app_print_port_drops(stdout, w->ctx->env);
	fflush(stdout);
}

void
echo_stats_lines(struct echo_worker *w, echo_line_t line)
{
	struct echo_ctx *c = w->ctx;
	static struct echo_result t; /* stack 0's worker only */
	char prefix[64];
	uint16_t i;

	if (c->nb == 1) {
		line(PROG ": ", c->env, w->stk, &w->res);
		fflush(stdout);
		return;
	}
	/* the other workers' results are read, never written, here */
	for (i = 0; i < c->nb; i++) {
		snprintf(prefix, sizeof(prefix), "stack %u (lcore %u): ", i,
			 c->w[i].lcore);
		line(prefix, c->env, c->w[i].stk, &c->w[i].res);
	}
	echo_total(c, &t);
	line(PROG ": ", c->env, NULL, &t);
	fflush(stdout);
}

/* ust_group_launch()'s worker: stack @idx's share of the mode */
static int
echo_worker_main(struct ust_stack *stk, uint16_t idx, void *arg)
{
	struct echo_ctx *c = arg;
	struct echo_worker *w = &c->w[idx];

	w->stk = stk;
	if (!c->o->server && w->nflows == 0) {
		/* no flow here: poll, so that what lands on our queue for a
		 * sibling's flows is handed over, until they are all done */
		echo_ready(w);
		while (__atomic_load_n(&c->done, __ATOMIC_ACQUIRE) <
		       c->active)
			ust_stack_poll(stk, ust_clock_ns());
		echo_finish(w, c->o->tcp ? 20000000 : 0);
		return 0;
	}
	return c->o->mode->run(w);
}

/* The workers, one a stack, with the clients' flows dealt (flow k on
 * stack k % N) and --count shared out likewise. */
static struct echo_worker *
echo_workers(struct echo_ctx *c)
{
	const struct opts *o = c->o;
	struct echo_worker *w;
	uint32_t flows = o->mode->stream ? 1 : o->flows;
	uint16_t i;

	w = aligned_alloc(RTE_CACHE_LINE_SIZE, sizeof(*w) * c->nb);
	if (w == NULL)
		app_usage_error(PROG, "out of memory for %u workers", c->nb);
	memset(w, 0, sizeof(*w) * c->nb);
	for (i = 0; i < c->nb; i++) {
		w[i].o = o;
		w[i].env = c->env;
		w[i].ctx = c;
		w[i].idx = i;
		w[i].nb = c->nb;
		w[i].lcore = c->env->lcores[i];
		w[i].peer = c->peer;
		w[i].peer_is6 = c->peer_is6;
		memcpy(w[i].peer6, c->peer6, sizeof(w[i].peer6));
		w[i].ip6 = c->env->cfg.stack.ip6.enable;
		w[i].nflows = flows / c->nb + (i < flows % c->nb ? 1 : 0);
		w[i].count = o->count / c->nb +
			(i < o->count % c->nb ? 1 : 0);
		/* --count N: a stack whose share is 0 has nothing to do */
		if (o->count != 0 && w[i].count == 0)
			w[i].nflows = 0;
		if (o->server || w[i].nflows > 0)
			c->active++;
		app_hist_init(&w[i].res.cli.lat);
	}
	return w;
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
		/* connects counts the warm-up's too: the rate is the
		 * measured interval's, from its transactions (--reconnect K:
		 * K a connection) */
		printf("connections: %" PRIu64 " in all (warm-up included), "
		       "all transactions %" PRIu64, r->connects, r->all);
		if (o->reconnect > 0 && r->seconds > 0)
			printf("; %.1f connections/s measured",
			       (double)r->transactions / o->reconnect /
			       r->seconds);
		printf("\n");
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

/* one line of a stack's results in the summary (several stacks) */
static void
print_worker(const struct opts *o, const struct echo_worker *w)
{
	const struct server_result *s = &w->res.srv;
	const struct client_result *c = &w->res.cli;

	printf("stack %u (lcore %u): ", w->idx, w->lcore);
	if (o->server && o->tcp)
		printf("accepted %" PRIu64 " closed %" PRIu64 " resets %"
		       PRIu64 " bytes in %" PRIu64 " out %" PRIu64 "\n",
		       s->accepted, s->closed, s->resets, s->received,
		       s->echoed);
	else if (o->server)
		printf("echoed %" PRIu64 " refused %" PRIu64 "\n", s->echoed,
		       s->refused);
	else
		printf("%u flow%s, transactions %" PRIu64 " (all %" PRIu64
		       "), connections %" PRIu64 ", bytes out %" PRIu64
		       " in %" PRIu64 ", errors %" PRIu64 ", p50 %.1f us\n",
		       w->nflows, w->nflows == 1 ? "" : "s", c->transactions,
		       c->all, c->connects, c->bytes_sent, c->bytes_received,
		       c->refused + c->resets + c->conn_timeouts +
		       c->other_errors + c->send_errors,
		       app_hist_quantile(&c->lat, 0.5) / 1e3);
}

/* the "result" object's members: the totals, or one stack's */
static void
json_result(struct app_json *j, const struct opts *o,
	    const struct echo_result *r, uint32_t flows)
{
	const struct server_result *sres = &r->srv;
	const struct client_result *cres = &r->cli;

	if (o->server) {
		json_u64(j, "echoed", sres->echoed);
		json_u64(j, "refused", sres->refused);
		if (o->tcp) {
			json_u64(j, "received", sres->received);
			json_u64(j, "accepted", sres->accepted);
			json_u64(j, "closed", sres->closed);
			json_u64(j, "resets", sres->resets);
			json_u64(j, "transactions", sres->transactions);
		}
		return;
	}
	if (o->tcp) {
		json_u64(j, "response", o->response != 0 ? o->response :
			 o->size);
		json_u64(j, "connects", cres->connects);
		json_u64(j, "refused", cres->refused);
		json_u64(j, "resets", cres->resets);
		json_u64(j, "conn_timeouts", cres->conn_timeouts);
		json_u64(j, "other_errors", cres->other_errors);
		json_u64(j, "bytes_sent", cres->bytes_sent);
		json_u64(j, "bytes_received", cres->bytes_received);
		json_u64(j, "all", cres->all);
	}
	json_u64(j, "flows", flows);
	json_u64(j, "size", o->size);
	json_dbl(j, "seconds", cres->seconds);
	json_u64(j, "transactions", cres->transactions);
	json_dbl(j, "transactions_per_s", cres->seconds > 0 ?
		 (double)cres->transactions / cres->seconds : 0);
	json_u64(j, "timeouts", cres->timeouts);
	json_u64(j, "late", cres->late);
	json_u64(j, "port_unreachable", cres->refused);
	json_u64(j, "send_errors", cres->send_errors);
	json_hist(j, "latency_ns", &cres->lat);
}

int
main(int argc, char **argv)
{
	int eal_argc, app_argc;
	char **eal_argv, **app_argv;
	struct opts o;
	struct ust_env env;
	struct echo_ctx ctx;
	struct echo_result res;
	struct client_result *cres = &res.cli;
	FILE *json = NULL;
	struct app_json j;
	rte_be32_t peer;
	uint8_t peer6[16];
	bool peer_is6;
	uint16_t i;
	int rc = 0;

	/* Status lines reach a log file or a pipe as they are printed
	 * (scripts wait for them); the data path never prints. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	app_split_args(argc, argv, &eal_argc, &eal_argv, &app_argc, &app_argv);
	parse_opts(app_argc, app_argv, &o);
	memset(&env, 0, sizeof(env));
	env.prog = PROG;
	env.fault_spec = o.fault;
	env.pcap_path = o.pcap;
	build_config(&o, &env.cfg, &peer, peer6, &peer_is6);
	/* the flag wins over [port] queues */
	if (o.nb_cores != NULL)
		app_env_nb_cores(&env, o.nb_cores);
	if (o.json != NULL) {
		json = fopen(o.json, "w");
		if (json == NULL)
			app_usage_error(PROG, "--json %s: %s", o.json,
					strerror(errno));
	}
	if (rte_eal_init(eal_argc, eal_argv) < 0)
		app_usage_error(PROG, "EAL initialisation failed: %s",
				rte_strerror(rte_errno));
	if (o.idle_adaptive)
		env.cfg.port.rx_intr = true;
	app_env_up(&env);
	if (o.idle_adaptive)
		printf("%s: idle: adaptive, %s\n", PROG, env.port.rx_intr ?
		       "the port has RX interrupts" : "no RX interrupts on "
		       "this port: short sleeps");
	app_print_port(stdout, &env);
	app_catch_signals(&quit);
	memset(&ctx, 0, sizeof(ctx));
	ctx.o = &o;
	ctx.env = &env;
	ctx.peer = peer;
	ctx.peer_is6 = peer_is6;
	memcpy(ctx.peer6, peer6, sizeof(ctx.peer6));
	ctx.nb = env.nb_stacks;
	ctx.w = echo_workers(&ctx);
	rc = ust_group_launch(env.grp, echo_worker_main, &ctx);
	if (rc == -EBUSY)
		app_usage_error(PROG, "an lcore of the EAL list is busy");
	rc = 0;
	echo_total(&ctx, &res);
	app_print_group_stats(stdout, &env);
	app_print_port_drops(stdout, &env);
	app_print_capture(stdout, &env);
	if (o.idle_adaptive) {
		uint64_t sl = 0, iw = 0, ns = 0;
		unsigned int ni = 0;

		for (i = 0; i < ctx.nb; i++) {
			sl += ctx.w[i].idle.sleeps;
			iw += ctx.w[i].idle.intr_wakeups;
			ns += ctx.w[i].idle.slept_ns;
			ni += ctx.w[i].idle.intr == 1;
		}
		printf("idle: %" PRIu64 " sleeps, %" PRIu64 " ended by a "
		       "frame, %.3f s asleep; RX interrupts on %u of %u "
		       "stacks\n", sl, iw, (double)ns / 1e9, ni, ctx.nb);
	}
	app_print_fault(stdout, &env);
	if (ctx.nb > 1)
		for (i = 0; i < ctx.nb; i++)
			print_worker(&o, &ctx.w[i]);
	if (json != NULL) {
		json_begin(&j, json);
		json_str(&j, "app", PROG);
		json_str(&j, "mode", o.server ? "server" : "client");
		json_str(&j, "proto", o.tcp ? "tcp" : "udp");
		json_group(&j, &env);
		json_obj(&j, "result");
		json_result(&j, &o, &res, o.flows);
		json_obj_end(&j);
		json_u64(&j, "nb_stacks", ctx.nb);
		json_arr(&j, "stacks");
		for (i = 0; i < ctx.nb; i++) {
			json_obj(&j, NULL);
			json_u64(&j, "index", i);
			json_u64(&j, "lcore", ctx.w[i].lcore);
			json_stack(&j, env.stks[i]);
			json_obj(&j, "result");
			json_result(&j, &o, &ctx.w[i].res, ctx.w[i].nflows);
			json_obj_end(&j);
			json_obj_end(&j);
		}
		json_arr_end(&j);
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
	free(ctx.w);
	fflush(stdout);
	app_sleep(o.linger);
	ust_port_close(env.cfg.port.port_id);
	rte_eal_cleanup();
	return rc;
}
