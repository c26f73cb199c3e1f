/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * The --json writer: the document built with libjansson as the members
 * come (json_obj()... json_obj_end() open and close a container) and
 * written at json_end(); and the stack's counters, pools, TX layout
 * counters and port as JSON.
 */

#include <string.h>

#include <jansson.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "app_common.h"

/* The value @v as member @key of the open container (an element, in an
 * array); a value jansson refuses (a non-finite real, a string that is not
 * UTF-8) is written as null. */
static void
json_add(struct app_json *j, const char *key, json_t *v)
{
	json_t *parent = j->stack[j->depth];

	if (v == NULL)
		v = json_null();
	if (json_is_array(parent))
		json_array_append_new(parent, v);
	else
		json_object_set_new(parent, key != NULL ? key : "", v);
}

static void
json_open(struct app_json *j, const char *key, json_t *c)
{
	json_incref(c);	/* the stack's reference, until the close */
	json_add(j, key, c);
	if (j->depth + 1 < (int)RTE_DIM(j->stack))
		j->stack[++j->depth] = c;
	else
		json_decref(c);
}

static void
json_close(struct app_json *j)
{
	if (j->depth > 0)
		json_decref(j->stack[j->depth--]);
}

void
json_begin(struct app_json *j, FILE *f)
{
	j->f = f;
	j->depth = 0;
	j->line = false;
	j->stack[0] = json_object();
}

void
json_begin_line(struct app_json *j, FILE *f)
{
	json_begin(j, f);
	j->line = true;
}

void
json_end(struct app_json *j)
{
	while (j->depth > 0)
		json_close(j);
	json_dumpf(j->stack[0], j->f, (j->line ? JSON_COMPACT : JSON_INDENT(2)) |
		   JSON_REAL_PRECISION(12));
	fputc('\n', j->f);
	if (j->line)
		fflush(j->f);
	json_decref(j->stack[0]);
	j->stack[0] = NULL;
}

void
json_obj(struct app_json *j, const char *key)
{
	json_open(j, key, json_object());
}

void
json_obj_end(struct app_json *j)
{
	json_close(j);
}

void
json_arr(struct app_json *j, const char *key)
{
	json_open(j, key, json_array());
}

void
json_arr_end(struct app_json *j)
{
	json_close(j);
}

void
json_u64(struct app_json *j, const char *key, uint64_t v)
{
	/* json_int_t is 64-bit signed: a larger count as a real */
	json_add(j, key, v <= INT64_MAX ? json_integer((json_int_t)v) :
		 json_real((double)v));
}

void
json_none(struct app_json *j, const char *key)
{
	json_add(j, key, json_null());
}

void
json_i64(struct app_json *j, const char *key, int64_t v)
{
	json_add(j, key, json_integer((json_int_t)v));
}

void
json_dbl(struct app_json *j, const char *key, double v)
{
	json_add(j, key, json_real(v));
}

void
json_str(struct app_json *j, const char *key, const char *v)
{
	json_add(j, key, json_string(v));
}

void
json_bool(struct app_json *j, const char *key, bool v)
{
	json_add(j, key, json_boolean(v));
}

void
json_arr_u64(struct app_json *j, const char *key, const uint64_t *v,
	     unsigned int n)
{
	unsigned int i;

	json_arr(j, key);
	for (i = 0; i < n; i++)
		json_u64(j, NULL, v[i]);
	json_arr_end(j);
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
	json_dbl(j, "segs_per_pkt", app_ratio(st->segs, st->pkts));
	json_dbl(j, "pages_per_pkt", app_ratio(st->pages, st->pkts));
	/* bucket i: calls of [2^i, 2^(i+1)) TSC cycles */
	json_arr_u64(j, "map_hist", st->map_hist, UST_TX_HIST_BUCKETS);
	json_arr_u64(j, "unmap_hist", st->unmap_hist, UST_TX_HIST_BUCKETS);
	json_obj_end(j);
}

/* counters, drops, rx_consumed, rx_drops */
static void
json_stats(struct app_json *j, const struct ust_stats *st)
{
	const char *group = NULL;
	unsigned int i;

	json_obj(j, "counters");
	for (i = 0; i < UST_MIB_MAX; i++) {
		if (group == NULL || strcmp(group, ust_mib_group(i)) != 0) {
			if (group != NULL)
				json_obj_end(j);
			group = ust_mib_group(i);
			json_obj(j, group);
		}
		json_u64(j, ust_mib_name(i), st->mib[i]);
	}
	json_obj_end(j);
	json_obj_end(j);
	json_obj(j, "drops");
	for (i = 0; i < UST_DROP_MAX; i++)
		json_u64(j, ust_drop_name(i), st->drop[i]);
	json_obj_end(j);
	json_u64(j, "rx_consumed", st->rx_consumed);
	json_u64(j, "rx_drops", ust_stats_drops(st, UST_DROP_PATH_RX));
}

static void
json_tcp_mem(struct app_json *j, const struct ust_mem_pool_stats *ps)
{
	json_obj(j, "tcp_mem");
	json_i64(j, "pages", ps->pages);
	json_i64(j, "high_water", ps->high_water);
	json_u64(j, "charge_failures", ps->charge_failures);
	json_obj_end(j);
}

static void
json_udp_mem(struct app_json *j, const struct ust_mem_pool_stats *ps)
{
	json_obj(j, "udp_mem");
	json_u64(j, "limit_min", ps->limit[0]);
	json_u64(j, "limit_pressure", ps->limit[1]);
	json_u64(j, "limit_max", ps->limit[2]);
	json_i64(j, "pages", ps->pages);
	json_i64(j, "high_water", ps->high_water);
	json_u64(j, "charge_calls", ps->charge_calls);
	json_u64(j, "pages_charged", ps->pages_charged);
	json_u64(j, "uncharge_calls", ps->uncharge_calls);
	json_u64(j, "pages_uncharged", ps->pages_uncharged);
	json_u64(j, "charge_failures", ps->charge_failures);
	json_u64(j, "min_grants", ps->min_grants);
	json_u64(j, "pressure_events", ps->pressure_events);
	json_str(j, "schedule", ps->schedule == UST_MEM_SCHEDULE_DELTA ?
		 "delta" : "legacy");
	json_str(j, "release", ps->release == UST_MEM_RELEASE_BATCHED ?
		 "batched" : "unbatched");
	json_obj_end(j);
}

void
json_stack(struct app_json *j, struct ust_stack *stk)
{
	struct ust_tcp_tx_stats tx;
	struct ust_stats st;
	struct ust_mem_pool_stats ps;

	ust_stack_stats_get(stk, &st);
	json_stats(j, &st);
	ust_mem_pool_stats_get(ust_stack_tcp_mem(stk), &ps);
	ust_stack_tcp_tx_stats(stk, &tx);
	json_tcp_tx(j, "tcp_tx", &tx);
	json_tcp_mem(j, &ps);
	ust_mem_pool_stats_get(ust_stack_udp_mem(stk), &ps);
	json_udp_mem(j, &ps);
}

/* @b added into @a (limits, modes: @a's; the high water marks: the
 * highest) */
static void
mem_add(struct ust_mem_pool_stats *a, const struct ust_mem_pool_stats *b)
{
	a->pages += b->pages;
	if (b->high_water > a->high_water)
		a->high_water = b->high_water;
	a->charge_calls += b->charge_calls;
	a->pages_charged += b->pages_charged;
	a->uncharge_calls += b->uncharge_calls;
	a->pages_uncharged += b->pages_uncharged;
	a->charge_failures += b->charge_failures;
	a->min_grants += b->min_grants;
	a->pressure_events += b->pressure_events;
}

void
json_group(struct app_json *j, const struct ust_env *env)
{
	struct ust_tcp_tx_stats tx, one;
	struct ust_mem_pool_stats tm, um, ps;
	struct ust_stats st;
	uint16_t i;

	if (env->nb_stacks <= 1) {
		json_stack(j, env->stk);
		return;
	}
	ust_group_stats_get(env->grp, &st);
	json_stats(j, &st);
	memset(&tx, 0, sizeof(tx));
	memset(&tm, 0, sizeof(tm));
	memset(&um, 0, sizeof(um));
	for (i = 0; i < env->nb_stacks; i++) {
		ust_stack_tcp_tx_stats(env->stks[i], &one);
		app_tcp_tx_add(&tx, &tx, &one);
		ust_mem_pool_stats_get(ust_stack_tcp_mem(env->stks[i]), &ps);
		if (i == 0)
			tm = ps;
		else
			mem_add(&tm, &ps);
		ust_mem_pool_stats_get(ust_stack_udp_mem(env->stks[i]), &ps);
		if (i == 0)
			um = ps;
		else
			mem_add(&um, &ps);
	}
	json_tcp_tx(j, "tcp_tx", &tx);
	json_tcp_mem(j, &tm);
	json_udp_mem(j, &um);
}

/* the port's rte_eth_stats as members of the open object */
static void
json_eth_stats(struct app_json *j, uint16_t port_id)
{
	struct rte_eth_stats es;

	if (rte_eth_stats_get(port_id, &es) != 0)
		return;
	json_u64(j, "ipackets", es.ipackets);
	json_u64(j, "opackets", es.opackets);
	json_u64(j, "ibytes", es.ibytes);
	json_u64(j, "obytes", es.obytes);
	json_u64(j, "imissed", es.imissed);
	json_u64(j, "ierrors", es.ierrors);
	json_u64(j, "oerrors", es.oerrors);
	json_u64(j, "rx_nombuf", es.rx_nombuf);
}

void
json_port_stats(struct app_json *j, const struct ust_env *env)
{
	json_obj(j, "port");
	json_eth_stats(j, env->cfg.port.port_id);
	json_obj_end(j);
}

void
json_env(struct app_json *j, const struct ust_env *env)
{
	json_obj(j, "port");
	json_u64(j, "id", env->cfg.port.port_id);
	json_str(j, "driver", env->port.driver);
	json_str(j, "profile", env->port.profile);
	json_u64(j, "mtu", env->port.mtu);
	json_u64(j, "nb_queues", env->port.nb_queues);
	/* the hash the stacks steer by, as the device reported it */
	json_obj(j, "rss");
	json_str(j, "kind", env->rss.kind == UST_RSS_TOEPLITZ ? "toeplitz" :
		 "none");
	json_str(j, "mode", env->port.rss_mode != NULL ? env->port.rss_mode :
		 "none");
	json_bool(j, "configured", env->port.rss_on);
	json_u64(j, "key_len", env->rss.key_len);
	json_u64(j, "reta_size", env->rss.reta_size);
	json_u64(j, "hf", env->rss.hf);
	json_obj_end(j);
	json_bool(j, "rx_csum_offload",
		  (env->port.netif_flags & UST_NETIF_F_RX_L4_CKSUM) != 0);
	json_bool(j, "tx_csum_offload",
		  (env->port.netif_flags & UST_NETIF_F_TX_UDP_CKSUM) != 0);
	json_eth_stats(j, env->cfg.port.port_id);
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
