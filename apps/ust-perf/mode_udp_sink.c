/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * --mode udp-sink: receive on one UDP socket, as the seeds' flood
 * experiments do (iperf -u -b 0 -l 64 into a receiver on its own CPU).
 *
 * Deployments:
 *  - run to completion (default): the main lcore polls the port and reads
 *    the socket in the same loop;
 *  - --split: the main lcore polls the port and queues into the socket; a
 *    second lcore (the first worker lcore of -l) reads it. This is where
 *    the producer and the reader share the socket's cache lines (seed 001).
 *
 * Sources: --source port (default) takes frames from the ethdev port;
 * --source synthetic builds them on the producer lcore from a template (a
 * NIC at line rate that verified the checksums), so that the split
 * deployment's two lcores are the producer and the reader alone, with no
 * generator process competing for a core of a small machine.
 *
 * The reader's cost is measured as TSC cycles spent in reading calls that
 * returned datagrams (receive + free), per datagram.
 */

#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "perf.h"
#include "ust_socket.h"
#include "ust_wire.h"

enum {
	S_PORT = PERF_OPT_MODE_BASE, S_RCVBUF, S_RELEASE, S_SCHEDULE, S_SPLIT,
	S_READ_DELAY, S_BATCH, S_SOURCE, S_SIZE, S_RATE, S_COPY,
};

static const struct option sink_opts[] = {
	{ "port", required_argument, NULL, S_PORT },
	{ "rcvbuf", required_argument, NULL, S_RCVBUF },
	{ "release", required_argument, NULL, S_RELEASE },
	{ "schedule", required_argument, NULL, S_SCHEDULE },
	{ "split", no_argument, NULL, S_SPLIT },
	{ "read-delay", required_argument, NULL, S_READ_DELAY },
	{ "read-batch", required_argument, NULL, S_BATCH },
	{ "source", required_argument, NULL, S_SOURCE },
	{ "size", required_argument, NULL, S_SIZE },
	{ "rate", required_argument, NULL, S_RATE },
	{ "copy", no_argument, NULL, S_COPY },
	{ NULL, 0, NULL, 0 },
};

/* what the reader writes, on its own cache line */
struct sink_reader {
	uint64_t delivered;
	uint64_t bytes;
	uint64_t busy_cycles;
	uint64_t calls;
	uint64_t errors;
	volatile int stop;
	int running;
} __rte_cache_aligned;

struct sink {
	uint16_t port;
	uint32_t rcvbuf;          /* 0: the default */
	int release;              /* -1: the configuration's */
	int schedule;
	bool split;
	bool synthetic;
	bool copy;                /* ust_recvfrom() instead of recv_burst */
	uint32_t read_delay_ns;
	uint32_t batch;
	uint32_t size;            /* synthetic datagram payload */
	uint64_t rate;            /* synthetic pps, 0: full */
	int sd;
	unsigned int reader_lcore;
	struct sink_reader rd;
	/* synthetic source */
	uint8_t tmpl[RTE_ETHER_HDR_LEN + 20 + 8 + 1472];
	uint16_t tmpl_len;
	uint64_t gen_sent;
	uint64_t gen_nombuf;
	uint64_t tokens_ns;
	uint64_t last_ns;
	/* measured window and tick snapshots */
	struct ust_stats st0, st_tick;
	uint64_t delivered0, delivered_tick, busy0, gen0, gen_tick;
	struct ust_mem_pool_stats ps0;
	struct ust_sock_meminfo mi0;
};

static struct sink sink_state;

static void
sink_parse(struct perf_ctx *c, int id, const char *arg)
{
	struct sink *k = &sink_state;

	c->priv = k;
	switch (id) {
	case S_PORT:
		k->port = (uint16_t)perf_num("--port", arg, 1, 65535);
		break;
	case S_RCVBUF:
		k->rcvbuf = perf_num("--rcvbuf", arg, 1, INT32_MAX);
		break;
	case S_RELEASE:
		if (strcmp(arg, "batched") == 0)
			k->release = UST_MEM_RELEASE_BATCHED;
		else if (strcmp(arg, "unbatched") == 0)
			k->release = UST_MEM_RELEASE_UNBATCHED;
		else
			app_usage_error(PERF_PROG, "--release %s: expected "
					"batched or unbatched", arg);
		break;
	case S_SCHEDULE:
		if (strcmp(arg, "delta") == 0)
			k->schedule = UST_MEM_SCHEDULE_DELTA;
		else if (strcmp(arg, "legacy") == 0)
			k->schedule = UST_MEM_SCHEDULE_LEGACY;
		else
			app_usage_error(PERF_PROG, "--schedule %s: expected "
					"delta or legacy", arg);
		break;
	case S_SPLIT:
		k->split = true;
		break;
	case S_READ_DELAY:
		k->read_delay_ns = perf_num("--read-delay", arg, 0, 100000000);
		break;
	case S_BATCH:
		k->batch = perf_num("--read-batch", arg, 1, 256);
		break;
	case S_SOURCE:
		if (strcmp(arg, "port") == 0)
			k->synthetic = false;
		else if (strcmp(arg, "synthetic") == 0)
			k->synthetic = true;
		else
			app_usage_error(PERF_PROG, "--source %s: expected port "
					"or synthetic", arg);
		break;
	case S_SIZE:
		k->size = perf_num("--size", arg, 0, 1472);
		break;
	case S_RATE:
		k->rate = perf_rate("--rate", arg);
		break;
	case S_COPY:
		k->copy = true;
		break;
	}
}

static void
sink_check(struct perf_ctx *c)
{
	c->priv = &sink_state;
}

/* One reading call: up to batch datagrams. Returns how many. */
static inline unsigned int
sink_read(struct sink *k, struct ust_stack *stk, const struct perf_ctx *c)
{
	struct sink_reader *r = &k->rd;
	struct rte_mbuf *pk[256];
	uint64_t t0 = rte_rdtsc();
	unsigned int i, n = 0;

	if (k->copy) {
		static __thread uint8_t buf[2048];

		for (i = 0; i < k->batch; i++) {
			ssize_t rc = ust_recv(stk, k->sd, buf, sizeof(buf), 0);

			if (rc < 0) {
				if (rc != -EAGAIN)
					r->errors++;
				break;
			}
			r->bytes += (uint64_t)rc;
			n++;
			if (k->read_delay_ns != 0)
				perf_spin_ns(c, k->read_delay_ns);
		}
	} else {
		int got = ust_recv_burst(stk, k->sd, pk, k->batch, NULL);

		if (got < 0) {
			r->errors++;
			return 0;
		}
		n = (unsigned int)got;
		for (i = 0; i < n; i++) {
			r->bytes += pk[i]->pkt_len;
			if (k->read_delay_ns != 0)
				perf_spin_ns(c, k->read_delay_ns);
		}
		if (n > 0)
			rte_pktmbuf_free_bulk(pk, n);
	}
	r->calls++;
	if (n > 0) {
		r->delivered += n;
		r->busy_cycles += rte_rdtsc() - t0;
	}
	return n;
}

static struct perf_ctx *reader_ctx;

static int
sink_reader_main(void *arg)
{
	struct sink *k = arg;

	__atomic_store_n(&k->rd.running, 1, __ATOMIC_RELEASE);
	while (!k->rd.stop)
		sink_read(k, reader_ctx->env.stk, reader_ctx);
	/* drain what is left, so that nothing stays queued */
	while (sink_read(k, reader_ctx->env.stk, reader_ctx) > 0)
		;
	return 0;
}

static void
sink_build_template(struct sink *k, struct perf_ctx *c)
{
	const struct ust_netif *nif = &ust_stack_conf(c->env.stk)->netif;
	struct ust_eth_repr e;
	struct ust_ipv4_repr ip;
	struct ust_udp_repr u;
	uint8_t *p = k->tmpl;
	uint16_t l4 = (uint16_t)(8 + k->size);
	uint32_t i;

	e.dst = nif->mac;
	memset(&e.src, 0, sizeof(e.src));
	e.src.addr_bytes[0] = 0x02;
	e.src.addr_bytes[5] = 0xfe;
	e.ethertype = RTE_ETHER_TYPE_IPV4;
	ust_eth_emit(p, UST_ETH_HDR_LEN, &e);
	memset(&ip, 0, sizeof(ip));
	/* a source in our subnet that is not us: the first host address, or
	 * the second when we are the first */
	ip.dst = c->env.cfg.stack.addr;
	ip.src = (ip.dst & app_mask_be(c->env.cfg.stack.prefix_len)) |
		rte_cpu_to_be_32(1);
	if (ip.src == ip.dst)
		ip.src = (ip.dst & app_mask_be(c->env.cfg.stack.prefix_len)) |
			rte_cpu_to_be_32(2);
	ip.proto = IPPROTO_UDP;
	ip.ttl = 64;
	ip.total_len = (uint16_t)(20 + l4);
	ip.df = true;
	ust_ipv4_emit(p + UST_ETH_HDR_LEN, 20, &ip, 0);
	for (i = 0; i < k->size; i++)
		p[UST_ETH_HDR_LEN + 28 + i] = (uint8_t)i;
	u.src_port = 9999;
	u.dst_port = k->port;
	u.len = l4;
	ust_udp_emit(p + UST_ETH_HDR_LEN + 20, 8, &u, ip.src, ip.dst,
		     p + UST_ETH_HDR_LEN + 28, 0);
	k->tmpl_len = (uint16_t)(UST_ETH_HDR_LEN + 20 + l4);
}

static void
sink_begin(struct perf_ctx *c)
{
	struct sink *k = &sink_state;
	struct ust_stack *stk = c->env.stk;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct ust_mem_pool *mp = ust_stack_udp_mem(stk);
	int one = 1, rc;

	if (k->release >= 0)
		ust_mem_pool_set_release(mp, (enum ust_mem_release)k->release);
	if (k->schedule >= 0)
		ust_mem_pool_set_schedule(mp,
					  (enum ust_mem_schedule)k->schedule);
	k->sd = ust_socket(stk, AF_INET, SOCK_DGRAM, 0);
	if (k->split)
		ust_setsockopt(stk, k->sd, UST_SOL_USTACK, UST_SO_SPLIT, &one,
			       sizeof(one));
	if (k->rcvbuf != 0) {
		int v = (int)k->rcvbuf;

		/* as SO_RCVBUF from a privileged process: the value is not
		 * clamped to rmem_max (netperf -s does the same on Linux when
		 * it raises rmem_max) */
		ust_setsockopt(stk, k->sd, SOL_SOCKET, SO_RCVBUFFORCE, &v,
			       sizeof(v));
	}
	sin.sin_port = rte_cpu_to_be_16(k->port);
	rc = ust_bind(stk, k->sd, (struct sockaddr *)&sin, sizeof(sin));
	if (rc != 0)
		app_usage_error(PERF_PROG, "--port %u: %s", k->port,
				strerror(-rc));
	if (k->synthetic)
		sink_build_template(k, c);
	if (k->split) {
		reader_ctx = c;
		k->reader_lcore = rte_get_next_lcore(-1, 1, 0);
		if (k->reader_lcore >= RTE_MAX_LCORE)
			app_usage_error(PERF_PROG, "--split needs a second lcore "
					"(e.g. -l 0,1)");
		rte_eal_remote_launch(sink_reader_main, k, k->reader_lcore);
		while (!__atomic_load_n(&k->rd.running, __ATOMIC_ACQUIRE))
			rte_pause();
	}
	printf("%s: udp-sink on port %u: %s deployment%s, source %s, rcvbuf "
	       "%s, release %s, schedule %s\n", PERF_PROG, k->port,
	       k->split ? "split" : "run-to-completion",
	       k->split ? " (reader on a second lcore)" : "",
	       k->synthetic ? "synthetic" : "port",
	       k->rcvbuf ? "set" : "default",
	       ust_mem_pool_conf(mp)->release == UST_MEM_RELEASE_BATCHED ?
	       "batched" : "unbatched",
	       ust_mem_pool_conf(mp)->schedule == UST_MEM_SCHEDULE_DELTA ?
	       "delta" : "legacy");
}

/* The synthetic NIC: a burst of copies of the template into the stack. */
static unsigned int
sink_generate(struct sink *k, struct perf_ctx *c, uint64_t now)
{
	struct rte_mbuf *pk[32];
	unsigned int n = 32, i;

	if (k->rate != 0) {
		uint64_t cost = 1000000000ull / k->rate;

		if (k->last_ns == 0)
			k->last_ns = now;
		k->tokens_ns += now - k->last_ns;
		k->last_ns = now;
		if (k->tokens_ns > 32 * cost)
			k->tokens_ns = 32 * cost;
		n = (unsigned int)(k->tokens_ns / (cost ? cost : 1));
		if (n > 32)
			n = 32;
		k->tokens_ns -= n * cost;
		if (n == 0)
			return 0;
	}
	if (rte_pktmbuf_alloc_bulk(c->env.pool, pk, n) != 0) {
		k->gen_nombuf += n;
		return 0;
	}
	for (i = 0; i < n; i++) {
		rte_memcpy(rte_pktmbuf_mtod(pk[i], void *), k->tmpl,
			   k->tmpl_len);
		pk[i]->data_len = k->tmpl_len;
		pk[i]->pkt_len = k->tmpl_len;
		pk[i]->ol_flags = RTE_MBUF_F_RX_IP_CKSUM_GOOD |
				  RTE_MBUF_F_RX_L4_CKSUM_GOOD;
	}
	ust_stack_input(c->env.stk, pk, (uint16_t)n, now);
	k->gen_sent += n;
	return n;
}

static bool
sink_poll(struct perf_ctx *c, uint64_t now)
{
	struct sink *k = &sink_state;
	unsigned int work;

	if (k->synthetic) {
		work = sink_generate(k, c, now);
		ust_stack_timers(c->env.stk, now);
		ust_stack_flush(c->env.stk);
	} else {
		work = ust_stack_poll(c->env.stk, now);
	}
	if (!k->split)
		work += sink_read(k, c->env.stk, c);
	return work > 0;
}

static uint64_t
reader_delivered(const struct sink *k)
{
	return __atomic_load_n(&k->rd.delivered, __ATOMIC_RELAXED);
}

static void
sink_measure(struct perf_ctx *c, uint64_t now)
{
	struct sink *k = &sink_state;

	(void)now;
	ust_stack_stats_get(c->env.stk, &k->st0);
	k->st_tick = k->st0;
	k->delivered0 = reader_delivered(k);
	k->delivered_tick = k->delivered0;
	k->busy0 = __atomic_load_n(&k->rd.busy_cycles, __ATOMIC_RELAXED);
	k->gen0 = k->gen_sent;
	k->gen_tick = k->gen_sent;
	ust_mem_pool_stats_get(ust_stack_udp_mem(c->env.stk), &k->ps0);
}

static void
sink_tick(struct perf_ctx *c, double dt)
{
	struct sink *k = &sink_state;
	struct ust_stats st;
	uint64_t d = reader_delivered(k);
	struct ust_mem_pool_stats ps;

	ust_stack_stats_get(c->env.stk, &st);
	ust_mem_pool_stats_get(ust_stack_udp_mem(c->env.stk), &ps);
	printf("rx %8.3f Mpps | delivered %8.3f M/s | drops rcvbuf %8.3f "
	       "mem %6.3f M/s | pool %4" PRId64 " pages\n",
	       (double)(st.mib[UST_MIB_ETH_INFRAMES] -
			k->st_tick.mib[UST_MIB_ETH_INFRAMES]) / dt / 1e6,
	       (double)(d - k->delivered_tick) / dt / 1e6,
	       (double)(st.drop[UST_DROP_SOCKET_RCVBUFF] -
			k->st_tick.drop[UST_DROP_SOCKET_RCVBUFF]) / dt / 1e6,
	       (double)(st.drop[UST_DROP_PROTO_MEM] -
			k->st_tick.drop[UST_DROP_PROTO_MEM]) / dt / 1e6,
	       ps.pages);
	k->st_tick = st;
	k->delivered_tick = d;
}

static void
sink_end(struct perf_ctx *c)
{
	struct sink *k = &sink_state;

	if (k->split) {
		k->rd.stop = 1;
		rte_eal_wait_lcore(k->reader_lcore);
	} else {
		while (sink_read(k, c->env.stk, c) > 0)
			;
	}
}

static void
sink_report(struct perf_ctx *c, struct app_json *j)
{
	struct sink *k = &sink_state;
	struct ust_stack *stk = c->env.stk;
	double secs = (double)(c->t_end - c->t_begin) / 1e9;
	struct ust_stats st;
	struct ust_mem_pool_stats ps;
	struct ust_sock_meminfo mi;
	socklen_t ml = sizeof(mi);
	uint64_t rx, delivered, rcvbuf_drops, mem_drops, charged;
	double cyc;

	ust_stack_stats_get(stk, &st);
	ust_mem_pool_stats_get(ust_stack_udp_mem(stk), &ps);
	ust_getsockopt(stk, k->sd, UST_SOL_USTACK, UST_SO_MEMINFO, &mi, &ml);
	rx = st.mib[UST_MIB_ETH_INFRAMES] - k->st0.mib[UST_MIB_ETH_INFRAMES];
	delivered = reader_delivered(k) - k->delivered0;
	rcvbuf_drops = st.drop[UST_DROP_SOCKET_RCVBUFF] -
		k->st0.drop[UST_DROP_SOCKET_RCVBUFF];
	mem_drops = st.drop[UST_DROP_PROTO_MEM] -
		k->st0.drop[UST_DROP_PROTO_MEM];
	charged = ps.pages_charged - k->ps0.pages_charged;
	cyc = delivered ? (double)(k->rd.busy_cycles - k->busy0) /
		(double)delivered : 0;
	printf("%s: udp-sink, %.2f s measured\n", PERF_PROG, secs);
	printf("frames in %" PRIu64 " (%.3f Mpps), delivered %" PRIu64
	       " (%.3f M/s), drops: rcvbuf %" PRIu64 " mem %" PRIu64
	       " (lost to release batching: %" PRIu64 ")\n", rx,
	       (double)rx / secs / 1e6, delivered,
	       (double)delivered / secs / 1e6, rcvbuf_drops, mem_drops,
	       mi.deficit_drops);
	printf("socket: rcvbuf %u, rmem_alloc high water %u\n", mi.rcvbuf,
	       mi.rmem_alloc_hw);
	printf("reader: %.1f cycles/datagram; pool: %.4f pages charged per "
	       "datagram, high water %" PRId64 " pages; forward_alloc high "
	       "water %d; batched releases %" PRIu64 ", splices %" PRIu64
	       "\n", cyc, delivered ? (double)charged / (double)delivered : 0,
	       ps.high_water, mi.forward_alloc_hw, mi.releases, mi.splices);
	if (k->synthetic)
		printf("synthetic source: %" PRIu64 " generated, %" PRIu64
		       " not generated for want of mbufs\n",
		       k->gen_sent - k->gen0, k->gen_nombuf);
	if (j == NULL)
		goto close;
	json_obj(j, "options");
	json_u64(j, "port", k->port);
	json_bool(j, "split", k->split);
	json_str(j, "source", k->synthetic ? "synthetic" : "port");
	json_u64(j, "size", k->size);
	json_u64(j, "rate", k->rate);
	json_u64(j, "rcvbuf_requested", k->rcvbuf);
	json_u64(j, "read_delay_ns", k->read_delay_ns);
	json_u64(j, "read_batch", k->batch);
	json_bool(j, "copy", k->copy);
	json_obj_end(j);
	json_obj(j, "result");
	json_u64(j, "frames_in", rx);
	json_dbl(j, "frames_in_per_s", (double)rx / secs);
	json_u64(j, "delivered", delivered);
	json_dbl(j, "delivered_per_s", (double)delivered / secs);
	json_u64(j, "rcvbuf_drops", rcvbuf_drops);
	json_u64(j, "mem_drops", mem_drops);
	json_u64(j, "deficit_drops", mi.deficit_drops);
	json_dbl(j, "reader_cycles_per_datagram", cyc);
	json_dbl(j, "pages_charged_per_datagram",
		 delivered ? (double)charged / (double)delivered : 0);
	json_u64(j, "generated", k->gen_sent - k->gen0);
	json_u64(j, "generator_nombuf", k->gen_nombuf);
	json_obj_end(j);
	json_obj(j, "socket");
	json_u64(j, "rcvbuf", mi.rcvbuf);
	json_u64(j, "rmem_alloc", mi.rmem_alloc);
	json_u64(j, "rmem_alloc_high_water", mi.rmem_alloc_hw);
	json_i64(j, "forward_alloc", mi.forward_alloc);
	json_i64(j, "forward_alloc_high_water", mi.forward_alloc_hw);
	json_u64(j, "forward_deficit", mi.forward_deficit);
	json_u64(j, "forward_threshold", mi.forward_threshold);
	json_u64(j, "queued", mi.queued);
	json_u64(j, "enqueued", mi.enqueued);
	json_u64(j, "delivered", mi.delivered);
	json_u64(j, "rcvbuf_drops", mi.rcvbuf_drops);
	json_u64(j, "mem_drops", mi.mem_drops);
	json_u64(j, "deficit_drops", mi.deficit_drops);
	json_u64(j, "releases", mi.releases);
	json_u64(j, "splices", mi.splices);
	json_obj_end(j);
close:
	ust_close(stk, k->sd);
}

const struct perf_mode perf_udp_sink = {
	.name = "udp-sink",
	.summary = "receive on one UDP socket (the seeds' flood receiver)",
	.usage =
"  --port N               UDP port to receive on (default: 9)\n"
"  --rcvbuf BYTES         SO_RCVBUF, not clamped to rmem_max (Linux then\n"
"                         doubles it, floor 4608)\n"
"  --release batched|unbatched  receive memory release (default: config)\n"
"  --schedule delta|legacy      forward memory scheduling (default: config)\n"
"  --split                read the socket on a second lcore (the split\n"
"                         deployment); default: run to completion\n"
"  --read-delay NS        a slow reader: spin this long per datagram\n"
"  --read-batch N         datagrams per reading call (default: 32)\n"
"  --copy                 read with ust_recv() (a copy) instead of\n"
"                         ust_recv_burst() (zero copy)\n"
"  --source port|synthetic  frames from the port (default), or built on\n"
"                         the producer lcore from a template\n"
"  --size BYTES           synthetic: datagram payload (default: 64)\n"
"  --rate PPS             synthetic: datagrams per second (0: full rate)\n",
	.opts = sink_opts,
	.parse = sink_parse,
	.check = sink_check,
	.begin = sink_begin,
	.poll = sink_poll,
	.measure = sink_measure,
	.tick = sink_tick,
	.end = sink_end,
	.report = sink_report,
};

RTE_INIT(sink_defaults)
{
	sink_state.port = 9;
	sink_state.release = -1;
	sink_state.schedule = -1;
	sink_state.batch = 32;
	sink_state.size = 64;
}
