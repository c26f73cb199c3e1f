/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * What the apps print about the port and the stack: the port line, the
 * counters and drop reasons, the TCP TX layout counters and the fault
 * stage's.
 */

#include <string.h>

#include <rte_ethdev.h>
#include <rte_ether.h>

#include "app_common.h"

void
app_print_port(FILE *f, const struct ust_env *env)
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
	if (p->nb_queues > 1)
		fprintf(f, "port %u: %u queue pairs, RSS %s%s\n",
			env->cfg.port.port_id, p->nb_queues,
			env->rss.kind == UST_RSS_TOEPLITZ ?
			"toeplitz (key and RETA read back: connections are "
			"steered to their stack's queue)" :
			p->rss_mode != NULL && strcmp(p->rss_mode, "kernel") == 0 ?
			"by the kernel's flow hash (replies of active opens are "
			"handed to their stack)" :
			"none the stacks can predict (replies of active opens "
			"are handed to their stack)",
			p->rss_on ? "" : ", not configured");
}

void
app_print_capture(FILE *f, const struct ust_env *env)
{
	struct ust_capture_stats t, one;
	unsigned int i;

	if (env->pcap == NULL)
		return;
	memset(&t, 0, sizeof(t));
	for (i = 0; i < env->nb_stacks; i++) {
		if (env->captures[i] == NULL)
			continue;
		ust_capture_stats_get(env->captures[i], &one);
		t.rx += one.rx;
		t.tx += one.tx;
		t.missed += one.missed;
		t.write_errors += one.write_errors;
	}
	fprintf(f, "capture: %" PRIu64 " frames in, %" PRIu64 " out written "
		"to %s; %" PRIu64 " missed (no copy buffer), %" PRIu64
		" bursts refused by the file\n", t.rx, t.tx, env->pcap_path,
		t.missed, t.write_errors);
}

void
app_print_port_drops(FILE *f, const struct ust_env *env)
{
	uint16_t pid = env->cfg.port.port_id;
	struct rte_eth_stats es;

	if (rte_eth_stats_get(pid, &es) != 0)
		return;
	if (es.imissed == 0 && es.rx_nombuf == 0 && es.ierrors == 0 &&
	    es.oerrors == 0) {
		fprintf(f, "port %u drops: none\n", pid);
		return;
	}
	fprintf(f, "port %u drops: imissed=%" PRIu64 " rx_nombuf=%" PRIu64
		" ierrors=%" PRIu64 " oerrors=%" PRIu64 "\n", pid, es.imissed,
		es.rx_nombuf, es.ierrors, es.oerrors);
}

/* the non-zero counters, grouped */
static void
print_mibs(FILE *f, const struct ust_stats *st)
{
	const char *group = NULL;
	unsigned int i;
	bool any = false;

	for (i = 0; i < UST_MIB_MAX; i++) {
		if (st->mib[i] == 0)
			continue;
		if (group == NULL || strcmp(group, ust_mib_group(i)) != 0) {
			group = ust_mib_group(i);
			fprintf(f, "%s%s:", any ? "\n" : "", group);
			any = true;
		}
		fprintf(f, " %s=%" PRIu64, ust_mib_name(i), st->mib[i]);
	}
	if (any)
		fputc('\n', f);
}

static void
print_udp_pool(FILE *f, const char *prefix, struct ust_stack *stk)
{
	struct ust_mem_pool_stats ps;

	ust_mem_pool_stats_get(ust_stack_udp_mem(stk), &ps);
	fprintf(f, "%sudp pool: %" PRId64 " pages (high water %" PRId64
		", limits %" PRIu64 "/%" PRIu64 "/%" PRIu64 "), %"
		PRIu64 " pages charged in %" PRIu64 " calls, %" PRIu64
		" refused; schedule %s, release %s\n", prefix, ps.pages,
		ps.high_water, ps.limit[0], ps.limit[1], ps.limit[2],
		ps.pages_charged, ps.charge_calls, ps.charge_failures,
		ps.schedule == UST_MEM_SCHEDULE_DELTA ? "delta" :
		"legacy", ps.release == UST_MEM_RELEASE_BATCHED ?
		"batched" : "unbatched");
}

static void
print_drops(FILE *f, const struct ust_stats *st)
{
	unsigned int i;
	bool any = false;

	fprintf(f, "drops:");
	for (i = 0; i < UST_DROP_MAX; i++)
		if (st->drop[i] != 0) {
			fprintf(f, " %s=%" PRIu64, ust_drop_name(i),
				st->drop[i]);
			any = true;
		}
	fprintf(f, "%s\n", any ? "" : " none");
}

static void print_tcp_tx(FILE *f, const struct ust_stack_conf *sc,
			 const struct ust_tcp_tx_stats *st);

void
app_print_stats(FILE *f, struct ust_stack *stk)
{
	struct ust_stats st;

	ust_stack_stats_get(stk, &st);
	print_mibs(f, &st);
	print_udp_pool(f, "", stk);
	app_print_tcp_tx(f, stk);
	print_drops(f, &st);
}

void
app_print_group_stats(FILE *f, const struct ust_env *env)
{
	struct ust_tcp_tx_stats tx, one;
	struct ust_stats st;
	char prefix[48];
	uint16_t i;

	if (env->nb_stacks <= 1) {
		app_print_stats(f, env->stk);
		return;
	}
	ust_group_stats_get(env->grp, &st);
	fprintf(f, "total of %u stacks:\n", env->nb_stacks);
	print_mibs(f, &st);
	memset(&tx, 0, sizeof(tx));
	for (i = 0; i < env->nb_stacks; i++) {
		snprintf(prefix, sizeof(prefix), "stack %u (lcore %u): ", i,
			 env->lcores[i]);
		print_udp_pool(f, prefix, env->stks[i]);
		ust_stack_tcp_tx_stats(env->stks[i], &one);
		app_tcp_tx_add(&tx, &tx, &one);
	}
	print_tcp_tx(f, ust_stack_conf(env->stk), &tx);
	print_drops(f, &st);
	for (i = 0; i < env->nb_stacks; i++) {
		ust_stack_stats_get(env->stks[i], &st);
		fprintf(f, "stack %u (lcore %u): InFrames=%" PRIu64
			" OutFrames=%" PRIu64 " rx_consumed=%" PRIu64
			" rx_drops=%" PRIu64 " PassiveOpens=%" PRIu64
			" ActiveOpens=%" PRIu64 " CurrEstab=%" PRIu64
			" InDatagrams=%" PRIu64 " OutDatagrams=%" PRIu64
			" HandoffOut=%" PRIu64 " HandoffIn=%" PRIu64
			" ArpCopies=%" PRIu64 "\n", i, env->lcores[i],
			st.mib[UST_MIB_ETH_INFRAMES],
			st.mib[UST_MIB_ETH_OUTFRAMES], st.rx_consumed,
			ust_stats_drops(&st, UST_DROP_PATH_RX),
			st.mib[UST_MIB_TCP_PASSIVEOPENS],
			st.mib[UST_MIB_TCP_ACTIVEOPENS],
			st.mib[UST_MIB_TCP_CURRESTAB],
			st.mib[UST_MIB_UDP_INDATAGRAMS],
			st.mib[UST_MIB_UDP_OUTDATAGRAMS],
			st.mib[UST_MIB_GROUP_HANDOFFOUT],
			st.mib[UST_MIB_GROUP_HANDOFFIN],
			st.mib[UST_MIB_GROUP_ARPCOPIES]);
	}
}

void
app_print_tcp_tx(FILE *f, const struct ust_stack *stk)
{
	struct ust_tcp_tx_stats st;

	ust_stack_tcp_tx_stats(stk, &st);
	print_tcp_tx(f, ust_stack_conf(stk), &st);
}

static void
print_tcp_tx(FILE *f, const struct ust_stack_conf *sc,
	     const struct ust_tcp_tx_stats *s)
{
	const char *name = ust_tcp_tx_layout_name(sc->tcp.tx_layout);
	const struct ust_tcp_tx_stats st = *s;

	if (st.pkts == 0)
		return;
	fprintf(f, "tcp tx (%s, copy-small %u): %" PRIu64 " packets, %.3f "
		"segs/pkt, %.3f pages/pkt; data %" PRIu64 " (linear %" PRIu64
		", chained %" PRIu64 ", zc %" PRIu64 "), small %" PRIu64
		" (pool empty %" PRIu64 "), %" PRIu64 " bytes copied of %"
		PRIu64 " payload", name != NULL ? name : "?",
		sc->tcp.copy_small, st.pkts, app_ratio(st.segs, st.pkts),
		app_ratio(st.pages, st.pkts), st.data_pkts, st.linear_pkts,
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

void
app_tcp_tx_add(struct ust_tcp_tx_stats *d, const struct ust_tcp_tx_stats *a,
	       const struct ust_tcp_tx_stats *b)
{
	unsigned int i;

#define ADD(x) d->x = a->x + b->x
	ADD(pkts);
	ADD(segs);
	ADD(pages);
	ADD(data_pkts);
	ADD(payload_bytes);
	ADD(copied_bytes);
	ADD(linear_pkts);
	ADD(chained_pkts);
	ADD(small_pkts);
	ADD(small_fallback);
	ADD(zc_pkts);
	ADD(zc_sends);
	ADD(zc_completions);
	ADD(dma_maps);
	ADD(dma_unmaps);
	ADD(dma_map_fail);
	ADD(dma_map_cycles);
	ADD(dma_unmap_cycles);
#undef ADD
	for (i = 0; i < UST_TX_HIST_BUCKETS; i++) {
		d->map_hist[i] = a->map_hist[i] + b->map_hist[i];
		d->unmap_hist[i] = a->unmap_hist[i] + b->unmap_hist[i];
	}
}

void
app_print_fault(FILE *f, const struct ust_env *env)
{
	struct ust_fault_stats fs;
	uint16_t i;

	for (i = 0; i < UST_GROUP_MAX; i++) {
		if (env->faults[i] == NULL)
			continue;
		ust_fault_stats_get(env->faults[i], &fs);
		if (env->nb_stacks > 1)
			fprintf(f, "stack %u (lcore %u): ", i, env->lcores[i]);
		fprintf(f, "fault stage: %" PRIu64 " frames, dropped %" PRIu64
			", duplicated %" PRIu64 ", reordered %" PRIu64
			", corrupted %" PRIu64 ", overflow %" PRIu64 "\n",
			fs.frames, fs.dropped, fs.duplicated, fs.reordered,
			fs.corrupted, fs.overflow);
	}
}
