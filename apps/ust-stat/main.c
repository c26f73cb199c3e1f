/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * ust-stat: netstat/ss for a running ustack process, read from its DPDK
 * telemetry socket (the same socket dpdk-telemetry.py reads): the TCP
 * connections with their state (ss -tni), the sockets' memory accounting,
 * the ARP table, the counters and the drop reasons, for every stack of the
 * process or one (--stack). It is a client of the socket only: no EAL, no
 * hugepages, nothing shared with the process but the socket, so it can
 * run beside any ustack application, even one started with --no-huge.
 *
 * The telemetry protocol (DPDK's lib/telemetry, "v2"): a SOCK_SEQPACKET
 * Unix socket at RUNTIME_DIR/PREFIX/dpdk_telemetry.v2; the process sends a
 * JSON greeting on connect (its max_output_len), then answers each
 * command, one message each, as {"COMMAND": VALUE}. The ustack listings
 * are paged ("next": the descriptor or entry to ask for next), which
 * query_all() follows.
 */

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <jansson.h>

#define PROG "ust-stat"

struct tel {
	int fd;
	char *buf;
	size_t buf_len;
};

/* one line on stderr, then exit with @status: 2 for a bad flag ("error:"),
 * 1 when the process cannot be reached or answers badly */
static void __attribute__((format(printf, 2, 3), noreturn))
fail(int status, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s", PROG, status == 2 ? "error: " : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(status);
}

#define usage_error(...) fail(2, __VA_ARGS__)
#define die(...) fail(1, __VA_ARGS__)

static void
usage(void)
{
	printf(
"Usage: " PROG " [-f PREFIX] [--stack NAME] [--json] [WHAT...]\n"
"\n"
"Show what a running ustack process's stacks hold, read from its DPDK\n"
"telemetry socket (no EAL, no hugepages: it runs beside any ustack app).\n"
"\n"
"WHAT (default: conns):\n"
"  conns      TCP connections and listeners: state, 4-tuple, queues, and\n"
"             as ss -tio the sequence numbers, windows, cwnd, ssthresh,\n"
"             RTT, RTO, retransmits and the timer; those no descriptor\n"
"             holds (closed and finishing, in an accept queue, half-open,\n"
"             TIME_WAIT) with Sd \"-\"\n"
"  sockets    UDP and TCP sockets' memory accounting\n"
"  arp        the ARP table\n"
"  nd         the IPv6 neighbour cache (Neighbour Discovery)\n"
"  counters   the non-zero counters (as /proc/net/snmp) and drop reasons\n"
"  stacks     the process's stacks and groups\n"
"  all        all of the above\n"
"\n"
"Options:\n"
"  -f, --file-prefix PREFIX  the process's EAL --file-prefix (default: rte)\n"
"  -s, --stack NAME          one stack (default: every stack)\n"
"      --json                the telemetry replies as JSON, one a line\n"
"  -h, --help                print this text\n"
"\n"
"Exit status: 0; 1 when the process cannot be reached; 2 for a bad flag.\n");
}

/* RUNTIME_DIR as DPDK's EAL chooses it: /var/run as root, else
 * $XDG_RUNTIME_DIR, else /tmp; then /dpdk/PREFIX. */
static void
socket_path(char *p, size_t len, const char *prefix)
{
	const char *dir = "/var/run";

	if (getuid() != 0) {
		dir = getenv("XDG_RUNTIME_DIR");
		if (dir == NULL)
			dir = "/tmp";
	}
	snprintf(p, len, "%s/dpdk/%s/dpdk_telemetry.v2", dir, prefix);
}

static void
tel_connect(struct tel *t, const char *prefix)
{
	struct sockaddr_un sun;
	json_error_t err;
	json_t *hello, *max;
	ssize_t n;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	socket_path(sun.sun_path, sizeof(sun.sun_path), prefix);
	t->fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (t->fd < 0)
		die("socket: %s", strerror(errno));
	if (connect(t->fd, (struct sockaddr *)&sun, sizeof(sun)) != 0)
		die("cannot connect to %s: %s (is a ustack process running "
		    "with --file-prefix %s, with telemetry on?)", sun.sun_path,
		    strerror(errno), prefix);
	t->buf_len = 64 * 1024;
	t->buf = malloc(t->buf_len);
	if (t->buf == NULL)
		die("out of memory");
	n = read(t->fd, t->buf, t->buf_len - 1);
	if (n <= 0)
		die("%s: no greeting: %s", sun.sun_path,
		    n < 0 ? strerror(errno) : "closed");
	t->buf[n] = '\0';
	hello = json_loads(t->buf, 0, &err);
	if (hello == NULL)
		die("%s: bad greeting: %s", sun.sun_path, err.text);
	max = json_object_get(hello, "max_output_len");
	if (json_is_integer(max) &&
	    (size_t)json_integer_value(max) + 1 > t->buf_len) {
		t->buf_len = (size_t)json_integer_value(max) + 1;
		free(t->buf);
		t->buf = malloc(t->buf_len);
		if (t->buf == NULL)
			die("out of memory");
	}
	json_decref(hello);
}

/* The value of command @cmd (a new reference), or NULL when the process
 * answered null (no such stack). */
static json_t *
query(struct tel *t, const char *cmd)
{
	json_error_t err;
	json_t *reply, *v;
	const char *key;
	ssize_t n;

	if (write(t->fd, cmd, strlen(cmd)) < 0)
		die("%s: %s", cmd, strerror(errno));
	n = read(t->fd, t->buf, t->buf_len - 1);
	if (n <= 0)
		die("%s: %s", cmd, n < 0 ? strerror(errno) :
		    "the process closed the socket");
	t->buf[n] = '\0';
	reply = json_loads(t->buf, 0, &err);
	if (reply == NULL || !json_is_object(reply))
		die("%s: bad reply: %s", cmd, reply == NULL ? err.text :
		    "not an object");
	v = NULL;
	json_object_foreach(reply, key, v)
		break;
	if (v != NULL && json_is_null(v))
		v = NULL;
	json_incref(v);
	json_decref(reply);
	return v;
}

/* A paged listing ("CMD,NAME[,NEXT]") gathered into one object. */
static json_t *
query_all(struct tel *t, const char *cmd, const char *name)
{
	json_t *all = json_object(), *page, *next;
	char c[256];
	json_int_t from = 0;

	for (;;) {
		snprintf(c, sizeof(c), "%s,%s,%lld", cmd, name,
			 (long long)from);
		page = query(t, c);
		if (page == NULL)
			break;
		next = json_object_get(page, "next");
		from = json_is_integer(next) ? json_integer_value(next) : -1;
		json_object_del(page, "next");
		json_object_update(all, page);
		json_decref(page);
		if (from < 0)
			break;
	}
	return all;
}

static json_int_t
num(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_integer(v) ? json_integer_value(v) : 0;
}

static const char *
str(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_string(v) ? json_string_value(v) : "-";
}

/* the entries of a listing, in descriptor (key) order */
static int
by_key(const void *a, const void *b)
{
	long x = strtol(*(const char *const *)a, NULL, 10);
	long y = strtol(*(const char *const *)b, NULL, 10);

	return (x > y) - (x < y);
}

static size_t
sorted_keys(json_t *o, const char ***keys)
{
	const char *k;
	json_t *v;
	size_t n = 0;

	*keys = calloc(json_object_size(o) + 1, sizeof(**keys));
	if (*keys == NULL)
		die("out of memory");
	json_object_foreach(o, k, v)
		(*keys)[n++] = k;
	qsort(*keys, n, sizeof(**keys), by_key);
	return n;
}

static void
show_conns(json_t *l, const char *stack)
{
	const char **keys;
	size_t n = sorted_keys(l, &keys), i;

	/* as ss: Recv-Q and Send-Q are the bytes queued, of a listener
	 * its accept queue and its backlog */
	printf("%-12s %-6s %8s %8s %-21s %-21s (stack %s)\n", "State", "Sd",
	       "Recv-Q", "Send-Q", "Local", "Remote", stack);
	for (i = 0; i < n; i++) {
		json_t *c = json_object_get(l, keys[i]);
		char sd[24];

		if (strcmp(str(c, "state"), "LISTEN") == 0) {
			printf("%-12s %-6s %8lld %8lld %-21s %-21s\n",
			       "LISTEN", keys[i], (long long)num(c, "acceptq"),
			       (long long)num(c, "backlog"), str(c, "local"),
			       "*:*");
			printf("\t synq:%lld acceptq:%lld backlog:%lld\n",
			       (long long)num(c, "synq"),
			       (long long)num(c, "acceptq"),
			       (long long)num(c, "backlog"));
			continue;
		}
		/* no "sd": an orphan, half-open, in an accept queue or
		 * TIME_WAIT, which no descriptor holds */
		if (json_is_integer(json_object_get(c, "sd")))
			snprintf(sd, sizeof(sd), "%lld",
				 (long long)num(c, "sd"));
		else
			snprintf(sd, sizeof(sd), "-");
		printf("%-12s %-6s %8lld %8lld %-21s %-21s%s\n",
		       str(c, "state"), sd, (long long)num(c, "rcv_queued"),
		       (long long)num(c, "snd_queued"), str(c, "local"),
		       str(c, "remote"),
		       json_object_get(c, "held") != NULL ? " (accept queue)" :
		       "");
		if (strcmp(str(c, "state"), "TIME_WAIT") == 0) {
			printf("\t snd_nxt:%lld rcv_nxt:%lld timer:%.3f\n",
			       (long long)num(c, "snd_nxt"),
			       (long long)num(c, "rcv_nxt"),
			       (double)num(c, "timer_ms") / 1e3);
			continue;
		}
		printf("\t mss:%lld cwnd:%lld ssthresh:%lld rtt:%.3f/%.3f "
		       "rto:%.3f backoff:%lld retrans:%lld timer:%.3f\n"
		       "\t snd_una:%lld snd_nxt:%lld snd_max:%lld snd_wnd:%lld "
		       "rcv_nxt:%lld rcv_wnd:%lld\n",
		       (long long)num(c, "mss"), (long long)num(c, "cwnd"),
		       (long long)num(c, "ssthresh"),
		       (double)num(c, "srtt_us") / 1e3,
		       (double)num(c, "rttvar_us") / 1e3,
		       (double)num(c, "rto_us") / 1e3,
		       (long long)num(c, "backoff"),
		       (long long)num(c, "retrans"),
		       (double)num(c, "timer_ms") / 1e3,
		       (long long)num(c, "snd_una"),
		       (long long)num(c, "snd_nxt"),
		       (long long)num(c, "snd_max"),
		       (long long)num(c, "snd_wnd"),
		       (long long)num(c, "rcv_nxt"),
		       (long long)num(c, "rcv_wnd"));
	}
	if (n == 0)
		printf("(no TCP socket)\n");
	free(keys);
}

static void
show_sockets(json_t *l, const char *stack)
{
	const char **keys;
	size_t n = sorted_keys(l, &keys), i;

	printf("%-5s %-6s %-6s %-12s %9s %10s %9s %9s %9s  (stack %s)\n",
	       "Proto", "Sd", "Port", "State", "rcvbuf", "rmem_alloc",
	       "fwd_alloc", "queued", "drops", stack);
	for (i = 0; i < n; i++) {
		json_t *c = json_object_get(l, keys[i]);
		bool tcp = strcmp(str(c, "proto"), "tcp") == 0;

		printf("%-5s %-6s %-6lld %-12s %9lld %10lld %9lld %9lld %9lld\n",
		       str(c, "proto"), keys[i],
		       (long long)num(c, "local_port"),
		       tcp ? str(c, "state") : "-",
		       (long long)num(c, "rcvbuf"),
		       (long long)num(c, "rmem_alloc"),
		       (long long)num(c, "forward_alloc"),
		       (long long)num(c, "queued"),
		       (long long)(num(c, "rcvbuf_drops") +
				   num(c, "mem_drops")));
	}
	if (n == 0)
		printf("(no socket)\n");
	free(keys);
}

static void
show_arp(json_t *l, const char *stack)
{
	const char **keys;
	size_t n = sorted_keys(l, &keys), i;

	printf("%-16s %-18s %-11s %7s  (stack %s)\n", "Address", "HWaddress",
	       "State", "Pending", stack);
	for (i = 0; i < n; i++) {
		json_t *c = json_object_get(l, keys[i]);

		printf("%-16s %-18s %-11s %7lld\n", str(c, "ip"),
		       str(c, "mac"), str(c, "state"),
		       (long long)num(c, "pending"));
	}
	if (n == 0)
		printf("(no entry)\n");
	free(keys);
}

static void
show_nd(json_t *l, const char *stack)
{
	const char **keys;
	size_t n = sorted_keys(l, &keys), i;

	printf("%-40s %-18s %-11s %6s %7s  (stack %s)\n", "Address",
	       "HWaddress", "State", "Router", "Pending", stack);
	for (i = 0; i < n; i++) {
		json_t *c = json_object_get(l, keys[i]);

		printf("%-40s %-18s %-11s %6s %7lld\n", str(c, "ip"),
		       str(c, "mac"), str(c, "state"),
		       num(c, "router") ? "yes" : "no",
		       (long long)num(c, "pending"));
	}
	if (n == 0)
		printf("(no entry)\n");
	free(keys);
}

static void
show_counters(json_t *snmp, json_t *drops, const char *stack)
{
	const char *g, *k;
	json_t *grp, *v;
	bool any = false;

	printf("stack %s:\n", stack);
	json_object_foreach(snmp, g, grp) {
		bool first = true;

		if (!json_is_object(grp))
			continue;
		json_object_foreach(grp, k, v) {
			if (!json_is_integer(v) || json_integer_value(v) == 0)
				continue;
			if (first)
				printf("%s:", g);
			first = false;
			printf(" %s=%lld", k, (long long)json_integer_value(v));
		}
		if (!first)
			printf("\n");
	}
	printf("drops:");
	json_object_foreach(drops, k, v) {
		if (strcmp(k, "rx_consumed") == 0 || !json_is_integer(v) ||
		    json_integer_value(v) == 0)
			continue;
		printf(" %s=%lld", k, (long long)json_integer_value(v));
		any = true;
	}
	printf("%s\n", any ? "" : " none");
}

enum { W_CONNS = 1, W_SOCKETS = 2, W_ARP = 4, W_COUNTERS = 8,
       W_STACKS = 16, W_ND = 32, W_ALL = 63 };

int
main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "file-prefix", required_argument, NULL, 'f' },
		{ "stack", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *prefix = "rte", *stack = NULL;
	unsigned int what = 0;
	bool json = false;
	struct tel t;
	json_t *stacks;
	size_t i;
	int c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "f:s:h", lo, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (optarg[0] == '\0' || strchr(optarg, '/') != NULL)
				usage_error("--file-prefix %s: a file prefix, "
					    "not a path", optarg);
			prefix = optarg;
			break;
		case 's':
			if (optarg[0] == '\0' || strchr(optarg, ',') != NULL)
				usage_error("--stack %s: a stack name",
					    optarg);
			stack = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			usage();
			return 0;
		case ':':
			usage_error("%s: missing value", argv[optind - 1]);
		default:
			usage_error("%s: unknown option (try --help)",
				    argv[optind - 1]);
		}
	}
	for (; optind < argc; optind++) {
		const char *w = argv[optind];

		if (strcmp(w, "conns") == 0)
			what |= W_CONNS;
		else if (strcmp(w, "sockets") == 0)
			what |= W_SOCKETS;
		else if (strcmp(w, "arp") == 0)
			what |= W_ARP;
		else if (strcmp(w, "nd") == 0)
			what |= W_ND;
		else if (strcmp(w, "counters") == 0)
			what |= W_COUNTERS;
		else if (strcmp(w, "stacks") == 0)
			what |= W_STACKS;
		else if (strcmp(w, "all") == 0)
			what |= W_ALL;
		else
			usage_error("%s: not one of conns, sockets, arp, nd, "
				    "counters, stacks, all", w);
	}
	if (what == 0)
		what = W_CONNS;
	tel_connect(&t, prefix);
	stacks = query(&t, "/ustack/stacks");
	if (stacks == NULL || !json_is_array(stacks))
		die("the process has no ustack telemetry (/ustack/stacks)");
	if (stack != NULL) {
		bool found = false;

		for (i = 0; i < json_array_size(stacks); i++)
			if (strcmp(json_string_value(json_array_get(stacks, i)),
				   stack) == 0)
				found = true;
		if (!found)
			die("--stack %s: no such stack in the process", stack);
		json_decref(stacks);
		stacks = json_array();
		json_array_append_new(stacks, json_string(stack));
	}
	if (what & W_STACKS) {
		json_t *groups = query(&t, "/ustack/groups");

		if (json) {
			char *s = json_dumps(stacks, JSON_COMPACT);
			char *g = json_dumps(groups, JSON_COMPACT);

			printf("{\"stacks\":%s,\"groups\":%s}\n", s,
			       g != NULL ? g : "null");
			free(s);
			free(g);
		} else {
			const char *gn;
			json_t *gv;

			printf("stacks:");
			for (i = 0; i < json_array_size(stacks); i++)
				printf(" %s", json_string_value(
					json_array_get(stacks, i)));
			printf("\n");
			json_object_foreach(groups, gn, gv) {
				size_t k;

				printf("group %s:", gn);
				for (k = 0; k < json_array_size(gv); k++)
					printf(" %s", json_string_value(
						json_array_get(gv, k)));
				printf("\n");
			}
		}
		json_decref(groups);
	}
	for (i = 0; i < json_array_size(stacks); i++) {
		const char *name = json_string_value(json_array_get(stacks, i));
		static const struct {
			unsigned int w;
			const char *cmd;
			void (*show)(json_t *l, const char *stack);
		} lists[] = {
			{ W_CONNS, "/ustack/tcp_conns", show_conns },
			{ W_SOCKETS, "/ustack/sockets", show_sockets },
			{ W_ARP, "/ustack/arp", show_arp },
			{ W_ND, "/ustack/nd", show_nd },
		};
		size_t k;

		if (name == NULL)
			continue;
		for (k = 0; k < sizeof(lists) / sizeof(lists[0]); k++) {
			json_t *l;

			if (!(what & lists[k].w))
				continue;
			l = query_all(&t, lists[k].cmd, name);
			if (json) {
				char *s = json_dumps(l, JSON_COMPACT);

				printf("{\"stack\":\"%s\",\"%s\":%s}\n", name,
				       lists[k].cmd + 8, s);
				free(s);
			} else {
				lists[k].show(l, name);
			}
			json_decref(l);
		}
		if (what & W_COUNTERS) {
			char cmd[128];
			json_t *snmp, *drops;

			snprintf(cmd, sizeof(cmd), "/ustack/snmp,%s", name);
			snmp = query(&t, cmd);
			snprintf(cmd, sizeof(cmd), "/ustack/drops,%s", name);
			drops = query(&t, cmd);
			if (json) {
				char *a = json_dumps(snmp, JSON_COMPACT);
				char *b = json_dumps(drops, JSON_COMPACT);

				printf("{\"stack\":\"%s\",\"snmp\":%s,"
				       "\"drops\":%s}\n", name,
				       a != NULL ? a : "null",
				       b != NULL ? b : "null");
				free(a);
				free(b);
			} else {
				show_counters(snmp, drops, name);
			}
			json_decref(snmp);
			json_decref(drops);
		}
	}
	json_decref(stacks);
	free(t.buf);
	close(t.fd);
	return 0;
}
