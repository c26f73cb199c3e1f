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
 *
 * --nb-cores N (run to completion only; --split is one stack and two
 * lcores): every stack binds --port, a shard of its own. With --source
 * port each reads what RSS gives its queue; with --source synthetic each
 * lcore builds its own datagrams into its own stack from its own mbufs:
 * N share-nothing sinks with no wire between the lcores, the scale-out
 * check of devtools/bench/scale.sh. With --shared instead, stack 0 alone
 * binds the port and every other stack feeds that one socket
 * (ust_socket_attach(): one accounted receive queue, N producers, one
 * reader on stack 0's lcore), the seeds' several softirq CPUs feeding one
 * socket.
 *
 * --stack kernel: the same receiver on a kernel UDP socket (a socket a
 * worker, SO_REUSEPORT with --nb-cores N), read with recvmmsg() of
 * --read-batch datagrams (MSG_DONTWAIT; a copy, as ust_recv()), the reader's
 * cycles counted the same way. The socket's figures are the kernel's
 * SO_MEMINFO (rcvbuf, rmem_alloc, forward_alloc: the model ustack
 * implements; their high water sampled every 16 reads that got
 * datagrams, outside the timed calls) and its drop count; the run's
 * rcvbuf and mem drops are the namespace's Udp RcvbufErrors and
 * MemErrors. What only ustack counts (the pool's pages charged, the
 * batched releases, the deficit drops) is null in the JSON.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/sock_diag.h>

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
	S_READ_DELAY, S_BATCH, S_SOURCE, S_SIZE, S_RATE, S_COPY, S_SHARED,
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
	{ "shared", no_argument, NULL, S_SHARED },
	{ NULL, 0, NULL, 0 },
};

/* what the reader writes, on its own cache line */
struct sink_reader {
	uint64_t delivered;
	uint64_t bytes;
	uint64_t busy_cycles;
	uint64_t calls;
	uint64_t errors;
	/* the traffic's own interval: the end of the first read that got
	 * datagrams since the measure began (0: none yet) and of the last,
	 * with the count delivered at each, so that a rate leaves out the
	 * idle time before the source starts and after it stops */
	uint64_t first_tsc, first_delivered;
	uint64_t last_tsc, last_delivered;
	volatile int stop;
	int running;
} __rte_cache_aligned;

struct sink {
	uint16_t port;
	uint32_t rcvbuf;          /* 0: the default */
	int release;              /* -1: the configuration's */
	int schedule;
	bool split;
	bool shared;              /* one socket on stack 0, fed by all */
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
	struct ust_sock_meminfo mi; /* at the end, before the close */
	struct ust_stack *stk;
	struct rte_mempool *pool;
	/* --stack kernel: the reading call's messages, the socket's drop
	 * count at the measure's start and at the last tick, the reads
	 * since the last SO_MEMINFO sample */
	struct mmsghdr *mm;
	struct iovec *iov;
	uint8_t *kbuf;
	uint64_t kdrops0, kdrops_tick;
	uint32_t ksample;
} __rte_cache_aligned;

#define SINK_KBUF 2048 /* a kernel read's buffer a datagram */

/* the options (parsed here), copied to each worker's state */
static struct sink sink_state;
static struct sink sink_w[UST_GROUP_MAX];

/* --shared: stack 0's socket once bound (-1 before), and how many of the
 * other stacks have let go of it at the end; written once each */
static struct {
	int sd;
	uint32_t detached;
} sink_one __rte_cache_aligned = { .sd = -1 };

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
	case S_SHARED:
		k->shared = true;
		break;
	}
}

static void
sink_check(struct perf_ctx *c)
{
	const char *opt = NULL;

	c->priv = &sink_state;
	if (sink_state.split)
		opt = "--split";
	else if (sink_state.shared)
		opt = "--shared";
	else if (sink_state.synthetic)
		opt = "--source synthetic";
	else if (sink_state.copy)
		opt = "--copy (the kernel's read is a copy)";
	else if (sink_state.release >= 0)
		opt = "--release";
	else if (sink_state.schedule >= 0)
		opt = "--schedule";
	if (c->kernel && opt != NULL)
		app_usage_error(PERF_PROG, "%s: not with --stack kernel", opt);
	if (sink_state.split && c->env.cfg.port.nb_queues > 1)
		app_usage_error(PERF_PROG, "--split is one stack and a reader "
				"lcore: not with --nb-cores %u",
				c->env.cfg.port.nb_queues);
	if (sink_state.shared && c->env.cfg.port.nb_queues < 2)
		app_usage_error(PERF_PROG, "--shared feeds stack 0's socket "
				"from the other stacks: it needs --nb-cores 2 "
				"or more");
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
		uint64_t t1 = rte_rdtsc();

		r->delivered += n;
		r->busy_cycles += t1 - t0;
		if (unlikely(__atomic_load_n(&r->first_tsc,
					     __ATOMIC_RELAXED) == 0)) {
			r->first_delivered = r->delivered;
			__atomic_store_n(&r->first_tsc, t1, __ATOMIC_RELAXED);
		}
		r->last_tsc = t1;
		r->last_delivered = r->delivered;
	}
	return n;
}

/* --stack kernel: the kernel's SO_MEMINFO of the socket into @mi
 * (rcvbuf, rmem_alloc, forward_alloc, drops as rcvbuf_drops), the high
 * waters kept */
static void
sink_kmeminfo(struct sink *k, struct ust_sock_meminfo *mi)
{
	uint32_t v[SK_MEMINFO_VARS];
	socklen_t l = sizeof(v);

	memset(v, 0, sizeof(v));
	if (getsockopt(k->sd, SOL_SOCKET, SO_MEMINFO, v, &l) != 0)
		return;
	mi->rcvbuf = v[SK_MEMINFO_RCVBUF];
	mi->rmem_alloc = v[SK_MEMINFO_RMEM_ALLOC];
	mi->forward_alloc = (int32_t)v[SK_MEMINFO_FWD_ALLOC];
	mi->sndbuf = v[SK_MEMINFO_SNDBUF];
	mi->rcvbuf_drops = v[SK_MEMINFO_DROPS];
	mi->rmem_alloc_hw = RTE_MAX(mi->rmem_alloc_hw, mi->rmem_alloc);
	mi->forward_alloc_hw = RTE_MAX(mi->forward_alloc_hw,
				       mi->forward_alloc);
}

/* --stack kernel: one recvmmsg() of up to batch datagrams; how many */
static unsigned int
sink_read_kernel(struct sink *k, const struct perf_ctx *c)
{
	struct sink_reader *r = &k->rd;
	uint64_t t0 = rte_rdtsc(), t1;
	unsigned int i;
	int n;

	n = recvmmsg(k->sd, k->mm, k->batch, MSG_DONTWAIT, NULL);
	r->calls++;
	if (n <= 0) {
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			r->errors++;
		return 0;
	}
	for (i = 0; i < (unsigned int)n; i++) {
		r->bytes += k->mm[i].msg_len;
		if (k->read_delay_ns != 0)
			perf_spin_ns(c, k->read_delay_ns);
	}
	t1 = rte_rdtsc();
	r->delivered += (unsigned int)n;
	r->busy_cycles += t1 - t0;
	if (unlikely(r->first_tsc == 0)) {
		r->first_delivered = r->delivered;
		__atomic_store_n(&r->first_tsc, t1, __ATOMIC_RELAXED);
	}
	r->last_tsc = t1;
	r->last_delivered = r->delivered;
	if (++k->ksample == 16) {
		k->ksample = 0;
		sink_kmeminfo(k, &k->mi);
	}
	return (unsigned int)n;
}

/* --stack kernel: the socket's drops so far (SO_MEMINFO) */
static uint64_t
sink_kdrops(const struct sink *k)
{
	uint32_t v[SK_MEMINFO_VARS];
	socklen_t l = sizeof(v);

	if (k->sd < 0 ||
	    getsockopt(k->sd, SOL_SOCKET, SO_MEMINFO, v, &l) != 0)
		return 0;
	return v[SK_MEMINFO_DROPS];
}

static void
sink_begin_kernel(struct perf_ctx *c, struct perf_worker *w, struct sink *k)
{
	union ust_sockaddr any;
	socklen_t any_len;
	uint32_t i;
	int rc;

	k->mm = calloc(k->batch, sizeof(*k->mm));
	k->iov = calloc(k->batch, sizeof(*k->iov));
	k->kbuf = malloc((size_t)k->batch * SINK_KBUF);
	if (k->mm == NULL || k->iov == NULL || k->kbuf == NULL)
		app_usage_error(PERF_PROG, "out of memory");
	for (i = 0; i < k->batch; i++) {
		k->iov[i].iov_base = k->kbuf + (size_t)i * SINK_KBUF;
		k->iov[i].iov_len = SINK_KBUF;
		k->mm[i].msg_hdr.msg_iov = &k->iov[i];
		k->mm[i].msg_hdr.msg_iovlen = 1;
	}
	k->sd = perf_server_socket(c, NULL, SOCK_DGRAM, k->port, &any, &any_len);
	if (k->sd < 0)
		app_usage_error(PERF_PROG, "socket: %s", strerror(-k->sd));
	if (c->nb_workers > 1)
		perf_set_int(NULL, k->sd, SOL_SOCKET, SO_REUSEPORT, 1);
	/* as ustack's: not clamped to rmem_max where the process may
	 * (SO_RCVBUFFORCE needs CAP_NET_ADMIN), else SO_RCVBUF */
	if (k->rcvbuf != 0 &&
	    perf_set_int(NULL, k->sd, SOL_SOCKET, SO_RCVBUFFORCE,
			 (int)k->rcvbuf) != 0)
		perf_set_int(NULL, k->sd, SOL_SOCKET, SO_RCVBUF,
			     (int)k->rcvbuf);
	rc = perf_bind(NULL, k->sd, &any.sa, any_len);
	if (rc != 0)
		app_usage_error(PERF_PROG, "--port %u: %s", k->port,
				strerror(-rc));
	sink_kmeminfo(k, &k->mi);
	if (w->idx != 0)
		return;
	printf("%s: udp-sink on port %u: the kernel's socket%s, rcvbuf %u "
	       "(%s), recvmmsg of %u\n", PERF_PROG, k->port,
	       c->nb_workers > 1 ? "s (SO_REUSEPORT, one a worker)" : "",
	       k->mi.rcvbuf, k->rcvbuf ? "set" : "default", k->batch);
}

static struct perf_ctx *reader_ctx;

static int
sink_reader_main(void *arg)
{
	struct sink *k = arg;

	__atomic_store_n(&k->rd.running, 1, __ATOMIC_RELEASE);
	while (!k->rd.stop)
		sink_read(k, k->stk, reader_ctx);
	/* drain what is left, so that nothing stays queued */
	while (sink_read(k, k->stk, reader_ctx) > 0)
		;
	return 0;
}

static void
sink_build_template(struct sink *k, struct perf_ctx *c)
{
	const struct ust_netif *nif = &ust_stack_conf(k->stk)->netif;
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
sink_begin(struct perf_ctx *c, struct perf_worker *w)
{
	struct sink *k = &sink_w[w->idx];
	struct ust_stack *stk = w->stk;
	union ust_sockaddr any;
	socklen_t any_len;
	struct ust_mem_pool *mp;
	int one = 1, rc;

	*k = sink_state;
	k->stk = stk;
	k->pool = w->pool;
	k->sd = -1;
	if (c->kernel) {
		sink_begin_kernel(c, w, k);
		return;
	}
	if (k->shared && w->idx != 0) {
		/* a producer of stack 0's socket: attached on this lcore
		 * once stack 0 has bound it, before any stack polls */
		int sd;

		while ((sd = __atomic_load_n(&sink_one.sd,
					     __ATOMIC_ACQUIRE)) < 0)
			rte_pause();
		rc = ust_socket_attach(stk, c->env.stks[0], sd);
		if (rc != 0)
			app_usage_error(PERF_PROG, "--shared: stack %u cannot "
					"feed stack 0's socket: %s", w->idx,
					strerror(-rc));
		if (k->synthetic)
			sink_build_template(k, c);
		return;
	}

	mp = ust_stack_udp_mem(stk);
	if (k->release >= 0)
		ust_mem_pool_set_release(mp, (enum ust_mem_release)k->release);
	if (k->schedule >= 0)
		ust_mem_pool_set_schedule(mp,
					  (enum ust_mem_schedule)k->schedule);
	/* [::] with --addr6: IPv4 and IPv6 datagrams (synthetic ones are
	 * IPv4's) */
	k->sd = perf_server_socket(c, stk, SOCK_DGRAM, k->port, &any, &any_len);
	if (k->sd < 0)
		app_usage_error(PERF_PROG, "socket: %s", strerror(-k->sd));
	/* (a shared socket is split: the other stacks' lcores queue into
	 * it, under its lock, while this one reads) */
	if (k->split || k->shared)
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
	rc = ust_bind(stk, k->sd, &any.sa, any_len);
	if (rc != 0)
		app_usage_error(PERF_PROG, "--port %u: %s", k->port,
				strerror(-rc));
	if (k->synthetic)
		sink_build_template(k, c);
	if (k->shared)
		__atomic_store_n(&sink_one.sd, k->sd, __ATOMIC_RELEASE);
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
	if (w->idx != 0)
		return;
	if (c->nb_workers > 1)
		printf("%s: %u stacks, %s\n", PERF_PROG, c->nb_workers,
		       k->shared ? "one socket on stack 0, fed by every stack "
		       "(--shared), read on stack 0's lcore" :
		       "each bound to the port (shards)");
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
	if (rte_pktmbuf_alloc_bulk(k->pool, pk, n) != 0) {
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
	RTE_SET_USED(c);
	ust_stack_input(k->stk, pk, (uint16_t)n, now);
	k->gen_sent += n;
	return n;
}

static bool
sink_poll(struct perf_ctx *c, struct perf_worker *w, uint64_t now)
{
	struct sink *k = &sink_w[w->idx];
	unsigned int work;

	if (c->kernel) {
		if (sink_read_kernel(k, c) > 0)
			return true;
		if (c->kwait_ms != 0)
			perf_wait_readable(k->sd, c->kwait_ms);
		return false;
	}
	if (k->synthetic) {
		work = sink_generate(k, c, now);
		ust_stack_timers(w->stk, now);
		ust_stack_flush(w->stk);
	} else {
		work = ust_stack_poll(w->stk, now);
	}
	if (!k->split && k->sd >= 0)
		work += sink_read(k, w->stk, c);
	return work > 0;
}

static uint64_t
reader_delivered(const struct sink *k)
{
	return __atomic_load_n(&k->rd.delivered, __ATOMIC_RELAXED);
}

static void
sink_measure(struct perf_ctx *c, struct perf_worker *w, uint64_t now)
{
	struct sink *k = &sink_w[w->idx];

	RTE_SET_USED(now);
	k->delivered0 = reader_delivered(k);
	if (c->kernel) {
		k->delivered_tick = k->delivered0;
		k->busy0 = k->rd.busy_cycles;
		k->rd.first_tsc = 0;
		k->kdrops0 = k->kdrops_tick = sink_kdrops(k);
		return;
	}
	ust_stack_stats_get(w->stk, &k->st0);
	k->st_tick = k->st0;
	k->delivered_tick = k->delivered0;
	k->busy0 = __atomic_load_n(&k->rd.busy_cycles, __ATOMIC_RELAXED);
	/* the reader (this lcore or --split's) starts the traffic's interval
	 * at its next read */
	__atomic_store_n(&k->rd.first_tsc, 0, __ATOMIC_RELAXED);
	k->gen0 = k->gen_sent;
	k->gen_tick = k->gen_sent;
	ust_mem_pool_stats_get(ust_stack_udp_mem(w->stk), &k->ps0);
}

/* worker @i's line over @dt seconds (@prefix before it; NULL: none), its
 * figures added to @tot (rx, delivered, rcvbuf drops, mem drops: per s) */
static void
sink_tick_one(struct perf_ctx *c, unsigned int i, double dt,
	      const char *prefix, double tot[4])
{
	struct sink *k = &sink_w[i];
	struct ust_stats st;
	uint64_t d = reader_delivered(k);
	struct ust_mem_pool_stats ps;
	double v[4];

	if (c->kernel) {
		/* (the socket's drops: rcvbuf and memory alike) */
		uint64_t dr = sink_kdrops(k);

		v[1] = (double)(d - k->delivered_tick) / dt;
		v[2] = (double)(dr - k->kdrops_tick) / dt;
		v[0] = v[1] + v[2];
		if (prefix != NULL)
			printf("%srx %8.3f Mpps | delivered %8.3f M/s | drops "
			       "%8.3f M/s | rmem_alloc %u\n", prefix,
			       v[0] / 1e6, v[1] / 1e6, v[2] / 1e6,
			       k->mi.rmem_alloc);
		tot[0] += v[0];
		tot[1] += v[1];
		tot[2] += v[2];
		k->kdrops_tick = dr;
		k->delivered_tick = d;
		return;
	}
	ust_stack_stats_get(k->stk, &st);
	ust_mem_pool_stats_get(ust_stack_udp_mem(k->stk), &ps);
	v[0] = (double)(st.mib[UST_MIB_ETH_INFRAMES] -
			k->st_tick.mib[UST_MIB_ETH_INFRAMES]) / dt;
	v[1] = (double)(d - k->delivered_tick) / dt;
	v[2] = (double)(st.drop[UST_DROP_SOCKET_RCVBUFF] -
			k->st_tick.drop[UST_DROP_SOCKET_RCVBUFF]) / dt;
	v[3] = (double)(st.drop[UST_DROP_PROTO_MEM] -
			k->st_tick.drop[UST_DROP_PROTO_MEM]) / dt;
	if (prefix != NULL)
		printf("%srx %8.3f Mpps | delivered %8.3f M/s | drops rcvbuf "
		       "%8.3f mem %6.3f M/s | pool %4" PRId64 " pages\n",
		       prefix, v[0] / 1e6, v[1] / 1e6, v[2] / 1e6, v[3] / 1e6,
		       ps.pages);
	tot[0] += v[0];
	tot[1] += v[1];
	tot[2] += v[2];
	tot[3] += v[3];
	k->st_tick = st;
	k->delivered_tick = d;
}

static void
sink_tick(struct perf_ctx *c, double dt)
{
	double tot[4] = { 0, 0, 0, 0 };
	char pfx[32];
	unsigned int i;

	if (c->nb_workers == 1) {
		sink_tick_one(c, 0, dt, "", tot);
		return;
	}
	/* each stack's line, then the total of the same interval */
	for (i = 0; i < c->nb_workers; i++) {
		snprintf(pfx, sizeof(pfx), "  stack %u: ", i);
		sink_tick_one(c, i, dt, pfx, tot);
	}
	printf("rx %8.3f Mpps | delivered %8.3f M/s | drops rcvbuf %8.3f "
	       "mem %6.3f M/s | total of %u stacks\n", tot[0] / 1e6,
	       tot[1] / 1e6, tot[2] / 1e6, tot[3] / 1e6, c->nb_workers);
}

static void
sink_end(struct perf_ctx *c, struct perf_worker *w)
{
	struct sink *k = &sink_w[w->idx];
	socklen_t ml = sizeof(k->mi);

	if (c->kernel) {
		/* the interval's figures before what it left queued is
		 * read (that read is the whole run's, not the interval's) */
		sink_kmeminfo(k, &k->mi);
		k->mi.rcvbuf_drops -= RTE_MIN(k->mi.rcvbuf_drops,
					      k->kdrops0);
		k->mi.delivered = k->rd.delivered - k->delivered0;
		while (sink_read_kernel(k, c) > 0)
			;
		perf_close(NULL, k->sd);
		k->sd = -1;
		free(k->mm);
		free(k->iov);
		free(k->kbuf);
		k->mm = NULL;
		k->iov = NULL;
		k->kbuf = NULL;
		return;
	}
	if (k->shared && w->idx != 0) {
		/* let go of stack 0's socket, on this lcore */
		ust_socket_detach(w->stk, c->env.stks[0], sink_one.sd);
		__atomic_add_fetch(&sink_one.detached, 1, __ATOMIC_RELEASE);
		return;
	}
	if (k->split) {
		k->rd.stop = 1;
		rte_eal_wait_lcore(k->reader_lcore);
	} else {
		/* --shared: read until every producer has let go */
		while (k->shared &&
		       __atomic_load_n(&sink_one.detached, __ATOMIC_ACQUIRE) <
		       (uint32_t)c->nb_workers - 1)
			sink_read(k, w->stk, c);
		while (sink_read(k, w->stk, c) > 0)
			;
	}
	/* the socket's figures, then the close, on the stack's lcore */
	ust_getsockopt(w->stk, k->sd, UST_SOL_USTACK, UST_SO_MEMINFO, &k->mi,
		       &ml);
	ust_close(w->stk, k->sd);
}

/* a worker's figures over its measured interval */
struct sink_fig {
	uint64_t rx, delivered, rcvbuf_drops, mem_drops, charged, busy;
	uint64_t generated;
	int64_t high_water;
};

static void
sink_fig_get(const struct sink *k, struct sink_fig *f)
{
	struct ust_stats st;
	struct ust_mem_pool_stats ps;

	if (k->stk == NULL) {
		/* --stack kernel: the socket saw what it delivered and
		 * what it dropped (sink_end()'s figures) */
		memset(f, 0, sizeof(*f));
		f->delivered = reader_delivered(k) - k->delivered0;
		f->rcvbuf_drops = k->mi.rcvbuf_drops;
		f->rx = f->delivered + f->rcvbuf_drops;
		f->busy = k->rd.busy_cycles - k->busy0;
		return;
	}
	ust_stack_stats_get(k->stk, &st);
	ust_mem_pool_stats_get(ust_stack_udp_mem(k->stk), &ps);
	f->rx = st.mib[UST_MIB_ETH_INFRAMES] -
		k->st0.mib[UST_MIB_ETH_INFRAMES];
	f->delivered = reader_delivered(k) - k->delivered0;
	f->rcvbuf_drops = st.drop[UST_DROP_SOCKET_RCVBUFF] -
		k->st0.drop[UST_DROP_SOCKET_RCVBUFF];
	f->mem_drops = st.drop[UST_DROP_PROTO_MEM] -
		k->st0.drop[UST_DROP_PROTO_MEM];
	f->charged = ps.pages_charged - k->ps0.pages_charged;
	f->busy = k->rd.busy_cycles - k->busy0;
	f->generated = k->gen_sent - k->gen0;
	f->high_water = ps.high_water;
}

/* the traffic's interval (seconds) and the rate delivered over it: from
 * the first read with datagrams in the measured window to the last */
static double
sink_active(const struct sink *k, const struct perf_ctx *c, double *rate)
{
	const struct sink_reader *r = &k->rd;
	double secs;

	*rate = 0;
	if (r->first_tsc == 0 || r->last_tsc <= r->first_tsc ||
	    c->tsc_hz == 0)
		return 0;
	secs = (double)(r->last_tsc - r->first_tsc) / (double)c->tsc_hz;
	*rate = (double)(r->last_delivered - r->first_delivered) / secs;
	return secs;
}

static void
sink_report_stack(struct perf_ctx *c, const struct perf_worker *w,
		  struct app_json *j)
{
	const struct sink *k = &sink_w[w->idx];
	double secs = perf_secs(w), arate;
	struct sink_fig f;

	sink_fig_get(k, &f);
	json_u64(j, "frames_in", f.rx);
	json_dbl(j, "frames_in_per_s", secs > 0 ? (double)f.rx / secs : 0);
	json_u64(j, "delivered", f.delivered);
	json_dbl(j, "delivered_per_s",
		 secs > 0 ? (double)f.delivered / secs : 0);
	json_dbl(j, "active_seconds", sink_active(k, c, &arate));
	json_dbl(j, "delivered_per_active_s", arate);
	json_u64(j, "rcvbuf_drops", f.rcvbuf_drops);
	if (c->kernel) {
		/* the socket's drop count is both kinds */
		json_none(j, "mem_drops");
		json_none(j, "deficit_drops");
	} else {
		json_u64(j, "mem_drops", f.mem_drops);
		json_u64(j, "deficit_drops", k->mi.deficit_drops);
	}
	json_dbl(j, "reader_cycles_per_datagram",
		 app_ratio(f.busy, f.delivered));
	json_u64(j, "generated", f.generated);
	json_u64(j, "generator_nombuf", k->gen_nombuf);
}

static void
sink_report(struct perf_ctx *c, struct app_json *j)
{
	struct sink *k = &sink_w[0];
	double secs = (double)(c->t_end - c->t_begin) / 1e9;
	struct ust_sock_meminfo mi = k->mi;
	struct sink_fig t, f;
	uint64_t gen = 0, nombuf = 0;
	double cyc, rate = 0, drate = 0, asecs, arate = 0, arate0;
	unsigned int i;

	memset(&t, 0, sizeof(t));
	for (i = 0; i < c->nb_workers; i++) {
		const struct sink *s = &sink_w[i];
		double ws = perf_secs(&c->w[i]);

		sink_fig_get(s, &f);
		t.rx += f.rx;
		t.delivered += f.delivered;
		t.rcvbuf_drops += f.rcvbuf_drops;
		t.mem_drops += f.mem_drops;
		t.charged += f.charged;
		t.busy += f.busy;
		t.high_water = RTE_MAX(t.high_water, f.high_water);
		gen += f.generated;
		nombuf += s->gen_nombuf;
		rate += ws > 0 ? (double)f.rx / ws : 0;
		drate += ws > 0 ? (double)f.delivered / ws : 0;
		{
			double ar;

			sink_active(s, c, &ar);
			arate += ar;
		}
		if (i > 0) {
			mi.deficit_drops += s->mi.deficit_drops;
			mi.releases += s->mi.releases;
			mi.splices += s->mi.splices;
			mi.rcvbuf_drops += s->mi.rcvbuf_drops;
			mi.mem_drops += s->mi.mem_drops;
			mi.queued += s->mi.queued;
			mi.enqueued += s->mi.enqueued;
			mi.delivered += s->mi.delivered;
			mi.rmem_alloc += s->mi.rmem_alloc;
			mi.rmem_alloc_hw = RTE_MAX(mi.rmem_alloc_hw,
						   s->mi.rmem_alloc_hw);
			mi.forward_alloc_hw = RTE_MAX(mi.forward_alloc_hw,
						      s->mi.forward_alloc_hw);
		}
		if (c->nb_workers > 1)
			printf("%s: stack %u (lcore %u), %.2f s: frames in %"
			       PRIu64 " (%.3f Mpps), delivered %" PRIu64
			       " (%.3f M/s), drops: rcvbuf %" PRIu64 " mem %"
			       PRIu64 "; reader %.1f cycles/datagram%s\n",
			       PERF_PROG, i, c->w[i].lcore, ws, f.rx,
			       ws > 0 ? (double)f.rx / ws / 1e6 : 0,
			       f.delivered,
			       ws > 0 ? (double)f.delivered / ws / 1e6 : 0,
			       f.rcvbuf_drops, f.mem_drops,
			       app_ratio(f.busy, f.delivered),
			       s->gen_nombuf ? "; generator short of mbufs" :
			       "");
	}
	if (c->kernel) {
		/* the namespace's counters split the drops by kind */
		t.rcvbuf_drops = (uint64_t)(perf_ksnmp_get(c->ksnmp1, "Udp",
			"RcvbufErrors") - perf_ksnmp_get(c->ksnmp0, "Udp",
			"RcvbufErrors"));
		t.mem_drops = (uint64_t)(perf_ksnmp_get(c->ksnmp1, "Udp",
			"MemErrors") - perf_ksnmp_get(c->ksnmp0, "Udp",
			"MemErrors"));
	}
	printf("%s: udp-sink, %.2f s measured%s%s\n", PERF_PROG, secs,
	       c->nb_workers > 1 ? ", all " : "",
	       c->nb_workers > 1 ? (c->kernel ? "workers" : "stacks") : "");
	printf("frames in %" PRIu64 " (%.3f Mpps), delivered %" PRIu64
	       " (%.3f M/s), drops: rcvbuf %" PRIu64 " mem %" PRIu64
	       " (lost to release batching: %" PRIu64 ")\n", t.rx,
	       (double)t.rx / secs / 1e6, t.delivered,
	       (double)t.delivered / secs / 1e6, t.rcvbuf_drops, t.mem_drops,
	       mi.deficit_drops);
	if (c->nb_workers > 1)
		printf("sum of the stacks' rates: %.3f Mpps in, %.3f M/s "
		       "delivered\n", rate / 1e6, drate / 1e6);
	asecs = sink_active(k, c, &arate0);
	printf("while datagrams came: %.3f M/s delivered over %.2f s%s\n",
	       arate / 1e6, asecs, c->nb_workers > 1 ?
	       " (stack 0's interval; the rate is the sum of the stacks')" : "");
	printf("socket: rcvbuf %u, rmem_alloc high water %u\n", mi.rcvbuf,
	       mi.rmem_alloc_hw);
	cyc = t.delivered ? (double)t.busy / (double)t.delivered : 0;
	if (c->kernel)
		printf("reader: %.1f cycles/datagram (recvmmsg); the kernel's "
		       "forward_alloc high water %d (sampled)\n", cyc,
		       mi.forward_alloc_hw);
	else
		printf("reader: %.1f cycles/datagram; pool: %.4f pages charged "
		       "per datagram, high water %" PRId64 " pages; "
		       "forward_alloc high water %d; batched releases %" PRIu64
		       ", splices %" PRIu64 "\n", cyc, t.delivered ?
		       (double)t.charged / (double)t.delivered : 0,
		       t.high_water, mi.forward_alloc_hw, mi.releases,
		       mi.splices);
	if (k->synthetic)
		printf("synthetic source: %" PRIu64 " generated, %" PRIu64
		       " not generated for want of mbufs\n", gen, nombuf);
	if (j == NULL)
		return;
	/* a figure only ustack has: null with --stack kernel */
#define SINK_U64(key, v) (c->kernel ? json_none(j, key) : \
			  json_u64(j, key, v))
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
	json_u64(j, "frames_in", t.rx);
	json_dbl(j, "frames_in_per_s", (double)t.rx / secs);
	json_u64(j, "delivered", t.delivered);
	json_dbl(j, "delivered_per_s", (double)t.delivered / secs);
	json_dbl(j, "active_seconds", asecs);
	json_dbl(j, "delivered_per_active_s", arate);
	json_u64(j, "rcvbuf_drops", t.rcvbuf_drops);
	json_u64(j, "mem_drops", t.mem_drops);
	SINK_U64("deficit_drops", mi.deficit_drops);
	json_dbl(j, "reader_cycles_per_datagram", cyc);
	if (c->kernel)
		json_none(j, "pages_charged_per_datagram");
	else
		json_dbl(j, "pages_charged_per_datagram", t.delivered ?
			 (double)t.charged / (double)t.delivered : 0);
	json_u64(j, "generated", gen);
	json_u64(j, "generator_nombuf", nombuf);
	if (c->nb_workers > 1) {
		json_dbl(j, "frames_in_per_s_sum", rate);
		json_dbl(j, "delivered_per_s_sum", drate);
	}
	json_obj_end(j);
	json_obj(j, "socket");
	json_u64(j, "rcvbuf", mi.rcvbuf);
	json_u64(j, "rmem_alloc", mi.rmem_alloc);
	json_u64(j, "rmem_alloc_high_water", mi.rmem_alloc_hw);
	json_i64(j, "forward_alloc", mi.forward_alloc);
	json_i64(j, "forward_alloc_high_water", mi.forward_alloc_hw);
	SINK_U64("forward_deficit", mi.forward_deficit);
	SINK_U64("forward_threshold", mi.forward_threshold);
	SINK_U64("queued", mi.queued);
	SINK_U64("enqueued", mi.enqueued);
	json_u64(j, "delivered", mi.delivered);
	/* (the kernel's: the socket's drops, both kinds) */
	json_u64(j, "rcvbuf_drops", mi.rcvbuf_drops);
	SINK_U64("mem_drops", mi.mem_drops);
	SINK_U64("deficit_drops", mi.deficit_drops);
	SINK_U64("releases", mi.releases);
	SINK_U64("splices", mi.splices);
	json_obj_end(j);
#undef SINK_U64
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
"  --shared               with --nb-cores N > 1: one socket on stack 0,\n"
"                         fed by every stack (one accounted queue, N\n"
"                         producers, one reader on stack 0's lcore);\n"
"                         default: a socket a stack (shards)\n"
"  --split                read the socket on a second lcore (the split\n"
"                         deployment; one stack: not with --nb-cores > 1);\n"
"                         default: run to completion\n"
"  --read-delay NS        a slow reader: spin this long per datagram\n"
"  --read-batch N         datagrams per reading call (default: 32)\n"
"  --copy                 read with ust_recv() (a copy) instead of\n"
"                         ust_recv_burst() (zero copy)\n"
"  --source port|synthetic  frames from the port (default), or built on\n"
"                         the producer lcore from a template (with\n"
"                         --nb-cores N: on each lcore, into its own stack)\n"
"  --size BYTES           synthetic: datagram payload (default: 64)\n"
"  --rate PPS             synthetic: datagrams per second (0: full rate)\n",
	.opts = sink_opts,
	.kernel = true,
	.parse = sink_parse,
	.check = sink_check,
	.begin = sink_begin,
	.poll = sink_poll,
	.measure = sink_measure,
	.tick = sink_tick,
	.end = sink_end,
	.report = sink_report,
	.report_stack = sink_report_stack,
};

RTE_INIT(sink_defaults)
{
	sink_state.port = 9;
	sink_state.release = -1;
	sink_state.schedule = -1;
	sink_state.batch = 32;
	sink_state.size = 64;
}
