/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/* Shared application code: see app_common.h. */

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "app_common.h"

void
app_usage_error(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: error: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

void
app_check_ip(const char *prog, const struct ust_config *cfg,
	     const char *addr_arg, const char *gw_arg)
{
	const struct ust_stack_conf *sc = &cfg->stack;
	const char *why;

	why = ust_check_addr(sc->addr, sc->prefix_len);
	if (why != NULL) {
		if (addr_arg != NULL)
			app_usage_error(prog, "--addr %s: %s", addr_arg, why);
		app_usage_error(prog, "[ip] addr: %s", why);
	}
	why = ust_check_gateway(sc->gateway, sc->addr, sc->prefix_len);
	if (why != NULL) {
		if (gw_arg != NULL)
			app_usage_error(prog, "--gateway %s: %s", gw_arg, why);
		app_usage_error(prog, "[ip] gateway: %s (with --addr %s)", why,
				addr_arg != NULL ? addr_arg : "?");
	}
}

double
app_parse_seconds(const char *prog, const char *flag, const char *v,
		  double min, double max)
{
	double d;

	if (ust_parse_double(v, min, max, &d, NULL) != 0)
		app_usage_error(prog, "%s %s: expected seconds from %g to %g",
				flag, v, min, max);
	return d;
}

void
app_split_args(int argc, char **argv, int *eal_argc, char ***eal_argv,
	       int *app_argc, char ***app_argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			break;
	if (i == argc) {
		*eal_argc = 1;
		*eal_argv = argv;
		*app_argc = argc;
		*app_argv = argv;
		return;
	}
	*eal_argc = i;
	*eal_argv = argv;
	/* the app's argv: argv[0], then what follows "--" */
	argv[i] = argv[0];
	*app_argc = argc - i;
	*app_argv = &argv[i];
}

static volatile sig_atomic_t *signal_flag;

static void
on_signal(int sig)
{
	(void)sig;
	if (signal_flag != NULL)
		*signal_flag = 1;
}

void
app_catch_signals(volatile sig_atomic_t *flag)
{
	struct sigaction sa;

	signal_flag = flag;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

void
app_sleep(double seconds)
{
	struct timespec ts;

	if (seconds <= 0)
		return;
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
}

void
app_env_up(struct app_env *env)
{
	struct ust_config *c = &env->cfg;
	struct ust_stack_conf sc;
	char name[RTE_MEMPOOL_NAMESIZE];
	int sock, rc;
	uint32_t i;

	if (rte_eth_dev_count_avail() == 0)
		app_usage_error(env->prog, "no ethdev port: give a device "
				"before \"--\" (e.g. --vdev=net_tap0 or -a "
				"PCI_ADDRESS)");
	if (!rte_eth_dev_is_valid_port(c->port.port_id))
		app_usage_error(env->prog, "--port-id %u: no such ethdev port "
				"(%u available)", c->port.port_id,
				rte_eth_dev_count_avail());
	sock = rte_eth_dev_socket_id(c->port.port_id);
	if (sock < 0)
		sock = (int)rte_socket_id();
	snprintf(name, sizeof(name), "ust_pool_p%u", c->port.port_id);
	env->pool = rte_pktmbuf_pool_create(name, c->pool.mbufs,
					    c->pool.cache, 0,
					    c->pool.data_room, sock);
	if (env->pool == NULL)
		app_usage_error(env->prog, "cannot create a pool of %u mbufs: "
				"%s (more hugepages, or a smaller [pool] "
				"mbufs)", c->pool.mbufs,
				rte_strerror(rte_errno));
	c->port.pool = env->pool;
	rc = ust_port_setup(&c->port, &env->port);
	if (rc != 0)
		app_usage_error(env->prog, "port %u: setup failed: %s",
				c->port.port_id, rte_strerror(-rc));
	sc = c->stack;
	sc.name = "ust0";
	sc.pool = env->pool;
	sc.socket_id = sock;
	sc.now_ns = ust_clock_ns();
	/* the reserve RX needs: a ring refill and a burst, per queue */
	if (sc.pool_reserve == 0)
		sc.pool_reserve = (uint32_t)env->port.rx_desc *
			env->port.nb_queues + sc.rx_burst;
	if (ust_port_netif(c->port.port_id, 0, &env->port, &sc.netif) != 0)
		app_usage_error(env->prog, "port %u: no queue 0",
				c->port.port_id);
	if (env->fault_spec != NULL) {
		struct ust_fault_conf fc;
		char err[160];

		ust_fault_conf_defaults(&fc);
		if (ust_fault_parse(env->fault_spec, &fc, err,
				    sizeof(err)) != 0)
			app_usage_error(env->prog, "--fault: %s", err);
		env->fault = ust_fault_create(&fc, &sc.netif, env->pool);
		if (env->fault == NULL)
			app_usage_error(env->prog, "--fault: cannot create "
					"the stage: %s",
					rte_strerror(rte_errno));
		ust_fault_netif(env->fault, &sc.netif);
	}
	env->stk = ust_stack_create(&sc);
	if (env->stk == NULL)
		app_usage_error(env->prog, "cannot create the stack: %s",
				rte_strerror(rte_errno));
	for (i = 0; i < c->n_static_arp; i++)
		if (ust_stack_arp_add_static(env->stk, c->static_arp[i].ip,
					     &c->static_arp[i].mac) != 0)
			app_usage_error(env->prog, "[arp] static: entry %u "
					"refused", i + 1);
	env->mbuf_in_use_start = rte_mempool_in_use_count(env->pool);
}

void
app_env_down(struct app_env *env)
{
	ust_stack_destroy(env->stk);
	env->stk = NULL;
	/* the frames the stage holds back go back to the pool */
	ust_fault_free(env->fault);
	env->fault = NULL;
	ust_port_tx_cleanup(env->cfg.port.port_id, env->port.nb_queues);
	env->mbuf_in_use_end = rte_mempool_in_use_count(env->pool);
}

void
app_print_port(FILE *f, const struct app_env *env)
{
	const struct ust_port_info *p = &env->port;
	char mac[RTE_ETHER_ADDR_FMT_SIZE];

	rte_ether_format_addr(mac, sizeof(mac), &p->mac);
	fprintf(f, "port %u: %s (profile %s) mac %s mtu %u link %s, "
		"offloads rx-csum %s tx-csum %s multi-seg %s\n",
		env->cfg.port.port_id, p->driver, p->profile, mac, p->mtu,
		p->link_up ? "up" : "down",
		(p->netif_flags & UST_NETIF_F_RX_L4_CKSUM) ? "on" : "off",
		(p->netif_flags & UST_NETIF_F_TX_UDP_CKSUM) ? "on" : "off",
		(p->netif_flags & UST_NETIF_F_TX_MULTI_SEGS) ? "on" : "off");
}

void
app_print_stats(FILE *f, struct ust_stack *stk)
{
	struct ust_stats st;
	const char *group = NULL;
	unsigned int i;
	bool any = false;

	ust_stack_stats_get(stk, &st);
	for (i = 0; i < UST_MIB_MAX; i++) {
		if (st.mib[i] == 0)
			continue;
		if (group == NULL || strcmp(group, ust_mib_group(i)) != 0) {
			group = ust_mib_group(i);
			fprintf(f, "%s%s:", any ? "\n" : "", group);
			any = true;
		}
		fprintf(f, " %s=%" PRIu64, ust_mib_name(i), st.mib[i]);
	}
	if (any)
		fputc('\n', f);
	{
		struct ust_mem_pool_stats ps;

		ust_mem_pool_stats_get(ust_stack_udp_mem(stk), &ps);
		fprintf(f, "udp pool: %" PRId64 " pages (high water %" PRId64
			", limits %" PRIu64 "/%" PRIu64 "/%" PRIu64 "), %"
			PRIu64 " pages charged in %" PRIu64 " calls, %" PRIu64
			" refused; schedule %s, release %s\n", ps.pages,
			ps.high_water, ps.limit[0], ps.limit[1], ps.limit[2],
			ps.pages_charged, ps.charge_calls, ps.charge_failures,
			ps.schedule == UST_MEM_SCHEDULE_DELTA ? "delta" :
			"legacy", ps.release == UST_MEM_RELEASE_BATCHED ?
			"batched" : "unbatched");
	}
	app_print_tcp_tx(f, stk);
	fprintf(f, "drops:");
	any = false;
	for (i = 0; i < UST_DROP_MAX; i++)
		if (st.drop[i] != 0) {
			fprintf(f, " %s=%" PRIu64, ust_drop_name(i),
				st.drop[i]);
			any = true;
		}
	fprintf(f, "%s\n", any ? "" : " none");
}

/* ---- TX layout options ---- */

void
app_tx_opts_init(struct app_tx_opts *t)
{
	t->tx_layout = -1;
	t->copy_small = -1;
	t->first_linear_max = -1;
}

static int
tx_num(const char *prog, const char *flag, const char *v, uint32_t max)
{
	uint32_t n;

	if (ust_parse_u32(v, 0, max, &n) != 0)
		app_usage_error(prog, "%s %s: expected an integer from 0 to %u",
				flag, v, max);
	return (int)n;
}

bool
app_tx_opt_parse(const char *prog, struct app_tx_opts *t, int id,
		 const char *arg)
{
	switch (id) {
	case APP_O_TX_LAYOUT:
		t->tx_layout = ust_tcp_tx_layout_parse(arg);
		if (t->tx_layout < 0)
			app_usage_error(prog, "--tx-layout %s: expected "
					"linear, chained or first-linear", arg);
		return true;
	case APP_O_COPY_SMALL:
		t->copy_small = tx_num(prog, "--copy-small", arg,
				       UST_TCP_COPY_SMALL_MAX);
		return true;
	case APP_O_FIRST_LINEAR_MAX:
		t->first_linear_max = tx_num(prog, "--first-linear-max", arg,
					     UINT16_MAX);
		return true;
	}
	return false;
}

void
app_tx_opts_apply(const struct app_tx_opts *t, struct ust_config *cfg)
{
	if (t->tx_layout >= 0)
		cfg->stack.tcp.tx_layout = (uint8_t)t->tx_layout;
	if (t->copy_small >= 0)
		cfg->stack.tcp.copy_small = (uint16_t)t->copy_small;
	if (t->first_linear_max >= 0)
		cfg->stack.tcp.first_linear_max =
			(uint16_t)t->first_linear_max;
}

static double
ratio(uint64_t a, uint64_t b)
{
	return b != 0 ? (double)a / (double)b : 0;
}

void
app_print_tcp_tx(FILE *f, const struct ust_stack *stk)
{
	const struct ust_stack_conf *sc = ust_stack_conf(stk);
	const char *name = ust_tcp_tx_layout_name(sc->tcp.tx_layout);
	struct ust_tcp_tx_stats st;

	ust_stack_tcp_tx_stats(stk, &st);
	if (st.pkts == 0)
		return;
	fprintf(f, "tcp tx (%s, copy-small %u): %" PRIu64 " packets, %.3f "
		"segs/pkt, %.3f pages/pkt; data %" PRIu64 " (linear %" PRIu64
		", chained %" PRIu64 ", zc %" PRIu64 "), small %" PRIu64
		" (pool empty %" PRIu64 "), %" PRIu64 " bytes copied of %"
		PRIu64 " payload", name != NULL ? name : "?",
		sc->tcp.copy_small, st.pkts, ratio(st.segs, st.pkts),
		ratio(st.pages, st.pkts), st.data_pkts, st.linear_pkts,
		st.chained_pkts, st.zc_pkts, st.small_pkts, st.small_fallback,
		st.copied_bytes, st.payload_bytes);
	if (st.dma_maps != 0 || st.dma_unmaps != 0 || st.dma_map_fail != 0)
		fprintf(f, "; dma maps %" PRIu64 " (failed %" PRIu64 "), "
			"unmaps %" PRIu64, st.dma_maps, st.dma_map_fail,
			st.dma_unmaps);
	fputc('\n', f);
}

void
app_tcp_tx_sub(struct ust_tcp_tx_stats *d, const struct ust_tcp_tx_stats *a,
	       const struct ust_tcp_tx_stats *b)
{
	unsigned int i;

#define SUB(x) d->x = a->x - b->x
	SUB(pkts);
	SUB(segs);
	SUB(pages);
	SUB(data_pkts);
	SUB(payload_bytes);
	SUB(copied_bytes);
	SUB(linear_pkts);
	SUB(chained_pkts);
	SUB(small_pkts);
	SUB(small_fallback);
	SUB(zc_pkts);
	SUB(zc_sends);
	SUB(zc_completions);
	SUB(dma_maps);
	SUB(dma_unmaps);
	SUB(dma_map_fail);
	SUB(dma_map_cycles);
	SUB(dma_unmap_cycles);
#undef SUB
	for (i = 0; i < UST_TX_HIST_BUCKETS; i++) {
		d->map_hist[i] = a->map_hist[i] - b->map_hist[i];
		d->unmap_hist[i] = a->unmap_hist[i] - b->unmap_hist[i];
	}
}

/* ---- histogram ---- */

void
app_hist_init(struct app_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

static unsigned int
hist_index(uint64_t v)
{
	unsigned int e;

	if (v < HIST_SUB)
		return (unsigned int)v;
	e = 63u - (unsigned int)__builtin_clzll(v); /* >= 5 */
	if (e > 48)
		return HIST_BUCKETS - 1;
	return (e - 4) * HIST_SUB + (unsigned int)((v >> (e - 5)) &
						    (HIST_SUB - 1));
}

static uint64_t
hist_value(unsigned int i)
{
	unsigned int e, sub;
	uint64_t lo;

	if (i < HIST_SUB)
		return i;
	e = i / HIST_SUB + 4;
	sub = i % HIST_SUB;
	lo = ((uint64_t)(HIST_SUB + sub)) << (e - 5);
	return lo + (1ull << (e - 5)) / 2;
}

void
app_hist_add(struct app_hist *h, uint64_t v)
{
	unsigned int i = hist_index(v);

	if (i >= HIST_BUCKETS)
		i = HIST_BUCKETS - 1;
	h->b[i]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

void
app_hist_merge(struct app_hist *d, const struct app_hist *s)
{
	unsigned int i;

	for (i = 0; i < HIST_BUCKETS; i++)
		d->b[i] += s->b[i];
	d->count += s->count;
	d->sum += s->sum;
	if (s->min < d->min)
		d->min = s->min;
	if (s->max > d->max)
		d->max = s->max;
}

uint64_t
app_hist_quantile(const struct app_hist *h, double q)
{
	uint64_t want, acc = 0;
	unsigned int i;

	if (h->count == 0)
		return 0;
	want = (uint64_t)(q * (double)h->count);
	if (want >= h->count)
		want = h->count - 1;
	for (i = 0; i < HIST_BUCKETS; i++) {
		acc += h->b[i];
		if (acc > want) {
			uint64_t v = hist_value(i);

			if (v < h->min)
				v = h->min;
			if (v > h->max)
				v = h->max;
			return v;
		}
	}
	return h->max;
}

/* ---- JSON ---- */

static void
json_key(struct app_json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	fputc('\n', j->f);
	fprintf(j->f, "%*s", 2 * j->depth, "");
	if (key != NULL)
		fprintf(j->f, "\"%s\": ", key);
}

void
json_begin(struct app_json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	fputc('{', f);
	j->first[0] = true;
}

void
json_end(struct app_json *j)
{
	fputs("\n}\n", j->f);
}

void
json_obj(struct app_json *j, const char *key)
{
	json_key(j, key);
	fputc('{', j->f);
	j->depth++;
	j->first[j->depth] = true;
}

void
json_obj_end(struct app_json *j)
{
	j->depth--;
	fputc('\n', j->f);
	fprintf(j->f, "%*s}", 2 * j->depth, "");
}

void
json_u64(struct app_json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	fprintf(j->f, "%" PRIu64, v);
}

void
json_i64(struct app_json *j, const char *key, int64_t v)
{
	json_key(j, key);
	fprintf(j->f, "%" PRId64, v);
}

void
json_dbl(struct app_json *j, const char *key, double v)
{
	json_key(j, key);
	fprintf(j->f, "%.3f", v);
}

void
json_str(struct app_json *j, const char *key, const char *v)
{
	const char *p;

	json_key(j, key);
	fputc('"', j->f);
	for (p = v; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			fputc('\\', j->f);
		if ((unsigned char)*p >= 0x20)
			fputc(*p, j->f);
	}
	fputc('"', j->f);
}

void
json_bool(struct app_json *j, const char *key, bool v)
{
	json_key(j, key);
	fputs(v ? "true" : "false", j->f);
}

void
json_arr_u64(struct app_json *j, const char *key, const uint64_t *v,
	     unsigned int n)
{
	unsigned int i;

	json_key(j, key);
	fputc('[', j->f);
	for (i = 0; i < n; i++)
		fprintf(j->f, "%s%" PRIu64, i ? ", " : "", v[i]);
	fputc(']', j->f);
}

void
json_tcp_tx(struct app_json *j, const char *key,
	    const struct ust_tcp_tx_stats *st)
{
	json_obj(j, key);
	json_u64(j, "pkts", st->pkts);
	json_u64(j, "segs", st->segs);
	json_u64(j, "pages", st->pages);
	json_u64(j, "data_pkts", st->data_pkts);
	json_u64(j, "payload_bytes", st->payload_bytes);
	json_u64(j, "copied_bytes", st->copied_bytes);
	json_u64(j, "linear_pkts", st->linear_pkts);
	json_u64(j, "chained_pkts", st->chained_pkts);
	json_u64(j, "small_pkts", st->small_pkts);
	json_u64(j, "small_fallback", st->small_fallback);
	json_u64(j, "zc_pkts", st->zc_pkts);
	json_u64(j, "zc_sends", st->zc_sends);
	json_u64(j, "zc_completions", st->zc_completions);
	json_u64(j, "dma_maps", st->dma_maps);
	json_u64(j, "dma_unmaps", st->dma_unmaps);
	json_u64(j, "dma_map_fail", st->dma_map_fail);
	json_u64(j, "dma_map_cycles", st->dma_map_cycles);
	json_u64(j, "dma_unmap_cycles", st->dma_unmap_cycles);
	json_dbl(j, "segs_per_pkt", ratio(st->segs, st->pkts));
	json_dbl(j, "pages_per_pkt", ratio(st->pages, st->pkts));
	/* bucket i: calls of [2^i, 2^(i+1)) TSC cycles */
	json_arr_u64(j, "map_hist", st->map_hist, UST_TX_HIST_BUCKETS);
	json_arr_u64(j, "unmap_hist", st->unmap_hist, UST_TX_HIST_BUCKETS);
	json_obj_end(j);
}

void
json_stack(struct app_json *j, struct ust_stack *stk)
{
	struct ust_tcp_tx_stats tx;
	struct ust_stats st;
	struct ust_mem_pool_stats ps;
	const char *group = NULL;
	unsigned int i;

	ust_stack_stats_get(stk, &st);
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
	ust_mem_pool_stats_get(ust_stack_tcp_mem(stk), &ps);
	ust_stack_tcp_tx_stats(stk, &tx);
	json_tcp_tx(j, "tcp_tx", &tx);
	json_obj(j, "tcp_mem");
	json_i64(j, "pages", ps.pages);
	json_i64(j, "high_water", ps.high_water);
	json_u64(j, "charge_failures", ps.charge_failures);
	json_obj_end(j);
	ust_mem_pool_stats_get(ust_stack_udp_mem(stk), &ps);
	json_obj(j, "udp_mem");
	json_u64(j, "limit_min", ps.limit[0]);
	json_u64(j, "limit_pressure", ps.limit[1]);
	json_u64(j, "limit_max", ps.limit[2]);
	json_i64(j, "pages", ps.pages);
	json_i64(j, "high_water", ps.high_water);
	json_u64(j, "charge_calls", ps.charge_calls);
	json_u64(j, "pages_charged", ps.pages_charged);
	json_u64(j, "uncharge_calls", ps.uncharge_calls);
	json_u64(j, "pages_uncharged", ps.pages_uncharged);
	json_u64(j, "charge_failures", ps.charge_failures);
	json_u64(j, "min_grants", ps.min_grants);
	json_u64(j, "pressure_events", ps.pressure_events);
	json_str(j, "schedule", ps.schedule == UST_MEM_SCHEDULE_DELTA ?
		 "delta" : "legacy");
	json_str(j, "release", ps.release == UST_MEM_RELEASE_BATCHED ?
		 "batched" : "unbatched");
	json_obj_end(j);
}

void
json_env(struct app_json *j, const struct app_env *env)
{
	struct rte_eth_stats es;

	json_obj(j, "port");
	json_u64(j, "id", env->cfg.port.port_id);
	json_str(j, "driver", env->port.driver);
	json_str(j, "profile", env->port.profile);
	json_u64(j, "mtu", env->port.mtu);
	json_bool(j, "rx_csum_offload",
		  (env->port.netif_flags & UST_NETIF_F_RX_L4_CKSUM) != 0);
	json_bool(j, "tx_csum_offload",
		  (env->port.netif_flags & UST_NETIF_F_TX_UDP_CKSUM) != 0);
	if (rte_eth_stats_get(env->cfg.port.port_id, &es) == 0) {
		json_u64(j, "ipackets", es.ipackets);
		json_u64(j, "opackets", es.opackets);
		json_u64(j, "ibytes", es.ibytes);
		json_u64(j, "obytes", es.obytes);
		json_u64(j, "imissed", es.imissed);
		json_u64(j, "ierrors", es.ierrors);
		json_u64(j, "oerrors", es.oerrors);
		json_u64(j, "rx_nombuf", es.rx_nombuf);
	}
	json_obj_end(j);
	/* the truesize of one of the pool's mbufs (see ust_truesize()) */
	json_u64(j, "mbuf_truesize", sizeof(struct rte_mbuf) +
		 rte_pktmbuf_priv_size(env->pool) +
		 rte_pktmbuf_data_room_size(env->pool));
	json_u64(j, "mbuf_in_use_start", env->mbuf_in_use_start);
	json_u64(j, "mbuf_in_use_end", env->mbuf_in_use_end);
}

void
json_hist(struct app_json *j, const char *key, const struct app_hist *h)
{
	json_obj(j, key);
	json_u64(j, "count", h->count);
	json_u64(j, "min", h->count ? h->min : 0);
	json_u64(j, "mean", h->count ? h->sum / h->count : 0);
	json_u64(j, "p50", app_hist_quantile(h, 0.50));
	json_u64(j, "p90", app_hist_quantile(h, 0.90));
	json_u64(j, "p99", app_hist_quantile(h, 0.99));
	json_u64(j, "p999", app_hist_quantile(h, 0.999));
	json_u64(j, "max", h->max);
	json_obj_end(j);
}

void
app_fault_check(const char *prog, const char *spec)
{
	struct ust_fault_conf fc;
	char err[160];

	ust_fault_conf_defaults(&fc);
	if (ust_fault_parse(spec, &fc, err, sizeof(err)) != 0)
		app_usage_error(prog, "--fault %s: %s", spec, err);
}

void
app_print_fault(FILE *f, const struct app_env *env)
{
	struct ust_fault_stats fs;

	if (env->fault == NULL)
		return;
	ust_fault_stats_get(env->fault, &fs);
	fprintf(f, "fault stage: %" PRIu64 " frames, dropped %" PRIu64
		", duplicated %" PRIu64 ", reordered %" PRIu64 ", corrupted %"
		PRIu64 ", overflow %" PRIu64 "\n", fs.frames, fs.dropped,
		fs.duplicated, fs.reordered, fs.corrupted, fs.overflow);
}

void
app_listen_watch(struct app_listen_watch *w, const struct app_env *env,
		 uint64_t now_ns, unsigned int backlog)
{
	struct ust_stats st;
	uint64_t ovf, drops;

	if (w->warned || now_ns < w->next_ns)
		return;
	w->next_ns = now_ns + 1000000000ull;
	ust_stack_stats_get(env->stk, &st);
	ovf = st.mib[UST_MIB_TCPEXT_LISTENOVERFLOWS];
	drops = st.mib[UST_MIB_TCPEXT_LISTENDROPS];
	if (ovf == 0 && drops == 0)
		return;
	w->warned = true;
	printf("%s: warning: refusing connections (ListenOverflows %" PRIu64
	       ", ListenDrops %" PRIu64 "): the accept queue (backlog %u) or "
	       "the socket table ([stack] max_sockets %u) is full; raise them "
	       "or serve fewer clients\n", env->prog, ovf, drops, backlog,
	       env->cfg.stack.max_sockets);
	fflush(stdout);
}
