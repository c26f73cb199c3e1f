/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * TCP glue: the per-stack state (connection and listener hashes, the timer
 * wheel, pools of half-open and TIME_WAIT entries, the receive memory
 * pool), state changes and their counters, the end of a connection, and
 * the receive memory accounting.
 *
 * Receive memory follows the socket-memory model of UDP (lib/mem): every
 * segment queued to a connection (in order or not) charges its truesize,
 * whole pages are scheduled from the TCP pool as the delta rule says, and
 * reading gives them back keeping at most a page. A segment that does not
 * fit rcvbuf, or that the pool refuses, is dropped and counted.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_malloc.h>
#include <rte_mempool.h>
#include <rte_random.h>

#include "tcp_cc.h"
#include "tcp_private.h"

RTE_LOG_REGISTER(ust_tcp_logtype, ustack.tcp, INFO);

static const char *const state_names[] = {
	[UST_TCP_CLOSED] = "CLOSED",
	[UST_TCP_LISTEN] = "LISTEN",
	[UST_TCP_SYN_SENT] = "SYN_SENT",
	[UST_TCP_SYN_RECEIVED] = "SYN_RECEIVED",
	[UST_TCP_ESTABLISHED] = "ESTABLISHED",
	[UST_TCP_FIN_WAIT_1] = "FIN_WAIT_1",
	[UST_TCP_FIN_WAIT_2] = "FIN_WAIT_2",
	[UST_TCP_CLOSE_WAIT] = "CLOSE_WAIT",
	[UST_TCP_CLOSING] = "CLOSING",
	[UST_TCP_LAST_ACK] = "LAST_ACK",
	[UST_TCP_TIME_WAIT] = "TIME_WAIT",
};

const char *
ust_tcp_state_name(unsigned int state)
{
	return state < RTE_DIM(state_names) ? state_names[state] : "?";
}

/* TCP's place in IPv4 input (struct ust_ipv4_proto, lib/ip), and the
 * ICMP errors about its segments (tcp_icmp.c) */
static const struct ust_ipv4_proto tcp_ipv4_proto = {
	.input_burst = ust_tcp_input_burst,
	.err_handler = ust_tcp_icmp_error,
};

/* and in IPv6 input (struct ust_ipv6_proto), with ICMPv6's errors */
static const struct ust_ipv6_proto tcp_ipv6_proto = {
	.input = ust_tcp6_input,
	.err_handler = ust_tcp_icmp6_error,
};

/* The key of conns6: an IPv6 4-tuple (struct ust_tcp_key's a6 and
 * ports), 36 bytes. */
struct tcp_key6 {
	uint8_t local[16];
	uint8_t remote[16];
	rte_be16_t lport;
	rte_be16_t rport;
};

/*
 * The slabs (struct ust_tcp_slab, tcp_private.h). Control blocks come from
 * chunks of the stack's own, not from one heap allocation each. The stacks
 * of a process (one per lcore) would otherwise get blocks next to each
 * other's, and an lcore's writes to its blocks then slow its neighbour's
 * accesses to the blocks beside them (the adjacent-line prefetch pairs
 * 128-byte lines; DPDK 23.03 added RTE_CACHE_GUARD for it): ust-perf
 * tcp-rr-loop on 2 lcores of one process did 1.1x one lcore with
 * interleaved blocks, as much as two processes (1.9x) with them apart. A
 * guard line closes each chunk. And a connect or accept no longer takes the
 * heap's lock, which every lcore shares. Chunks go back to the heap when
 * the stack is destroyed.
 */
#define TCP_CHUNK_BLOCKS 32
#define TCP_CHUNK_BYTES 16384u  /* the other slabs' chunks, about */

struct ust_tcp_chunk {
	struct ust_tcp_chunk *next;
} __rte_cache_aligned;

#define TCP_BLOCK_SIZE RTE_ALIGN_CEIL(sizeof(struct ust_tcp_sock), \
				      RTE_CACHE_LINE_SIZE)
/* 14 cache lines (doc/tcp.md, Memory): with the tables' share of a slot,
 * an established connection's state stays within 1 KiB; a field more must
 * find a hole */
#define TCP_BLOCK_MAX 896

int
ust_tcp_slab_grow(struct ust_tcp_slab *s)
{
	struct ust_tcp_chunk *c;
	uint8_t *b;
	unsigned int i;

	/* the header line, the objects, a guard line */
	c = rte_malloc_socket(s->name, sizeof(*c) +
			      (size_t)s->per_chunk * s->size +
			      RTE_CACHE_LINE_SIZE, RTE_CACHE_LINE_SIZE,
			      s->socket_id);
	if (c == NULL)
		return -ENOMEM;
	c->next = s->chunks;
	s->chunks = c;
	b = (uint8_t *)(c + 1);
	/* in address order off the list */
	for (i = s->per_chunk; i-- > 0;) {
		void *o = b + (size_t)i * s->size;

		*(void **)o = s->free;
		s->free = o;
	}
	s->total += s->per_chunk;
	return 0;
}

static void
tcp_slab_init(struct ust_tcp_slab *s, const char *name, size_t size,
	      unsigned int per_chunk, int socket_id)
{
	s->name = name;
	s->size = (uint32_t)RTE_ALIGN_CEIL(size, sizeof(void *));
	s->per_chunk = per_chunk != 0 ? per_chunk :
		RTE_MAX(TCP_CHUNK_BYTES / s->size, 1u);
	s->socket_id = socket_id;
}

static uint64_t
tcp_slab_bytes(const struct ust_tcp_slab *s)
{
	uint64_t chunks = s->per_chunk != 0 ? s->total / s->per_chunk : 0;

	return chunks * (sizeof(struct ust_tcp_chunk) +
			 (uint64_t)s->per_chunk * s->size +
			 RTE_CACHE_LINE_SIZE);
}

int
ust_tcp_mem_get(struct ust_stack *stk, struct ust_tcp_mem *m)
{
	const struct ust_tcp_stack *ts;
	unsigned int i;

	if (stk == NULL || stk->tcp == NULL || m == NULL)
		return -EINVAL;
	ts = stk->tcp;
	memset(m, 0, sizeof(*m));
	m->sock_size = ts->tp_slab.size;
	m->tw_size = ts->tw_slab.size;
	m->sack_size = ts->sack_slab.size;
	m->socks = ts->tp_slab.in_use;
	m->tws = ts->tw_slab.in_use;
	m->sacks = ts->sack_slab.in_use;
	m->slab_bytes = tcp_slab_bytes(&ts->tp_slab) +
		tcp_slab_bytes(&ts->tw_slab) + tcp_slab_bytes(&ts->sack_slab) +
		tcp_slab_bytes(&ts->a6_slab);
	for (i = 0; i < UST_TCP_RACK_SLABS; i++) {
		m->racks += ts->rack_slab[i].in_use;
		m->rack_bytes += ts->rack_slab[i].in_use *
			ts->rack_slab[i].size;
		m->slab_bytes += tcp_slab_bytes(&ts->rack_slab[i]);
	}
	return 0;
}

static void
tcp_slab_fini(struct ust_tcp_slab *s)
{
	struct ust_tcp_chunk *c;

	if (s->in_use != 0)
		TCP_LOG(ERR, "%s: %" PRIu64 " objects still in use", s->name,
			s->in_use);
	while ((c = s->chunks) != NULL) {
		s->chunks = c->next;
		rte_free(c);
	}
	s->free = NULL;
}

int
ust_tcp_init(struct ust_stack *stk)
{
	const struct ust_tcp_conf *c = &stk->conf.tcp;
	struct ust_tcp_stack *ts;
	char name[RTE_HASH_NAMESIZE];
	struct rte_hash_parameters hp = {
		.name = name,
		.key_len = UST_TCP_KEY4_LEN,
		.hash_func = rte_hash_crc,
		.socket_id = stk->conf.socket_id,
	};
	struct ust_mem_conf mc = stk->conf.tcp_mem;
	struct rte_mempool *mp = stk->pool;
	unsigned int i;
	int rc;

	RTE_BUILD_BUG_ON(TCP_BLOCK_SIZE > TCP_BLOCK_MAX);
	ts = rte_zmalloc_socket("ust_tcp", sizeof(*ts), RTE_CACHE_LINE_SIZE,
				stk->conf.socket_id);
	if (ts == NULL)
		return -ENOMEM;
	stk->tcp = ts;
	hp.entries = c->max_conns < 64 ? 64 : c->max_conns;
	snprintf(name, sizeof(name), "ust_tcp_%p", (void *)stk);
	/* the peer picks the keys (its address and port): with extendable
	 * buckets a table below max_conns takes every one, where a plain
	 * cuckoo table refuses a key whose two buckets crafted 4-tuples have
	 * filled (the hash, CRC32C, is public), which would refuse that
	 * client's connections */
	hp.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE;
	ts->conns = rte_hash_create(&hp);
	if (stk->ip6 != NULL) {
		/* IPv6's 4-tuples, in a table of their own: IPv4's key stays
		 * 12 bytes */
		hp.key_len = sizeof(struct tcp_key6);
		snprintf(name, sizeof(name), "ust_tcp6_%p", (void *)stk);
		ts->conns6 = rte_hash_create(&hp);
		if (ts->conns6 == NULL)
			return -ENOMEM;
	}
	hp.extra_flag = 0;
	hp.key_len = sizeof(uint32_t);
	hp.entries = 1024;
	snprintf(name, sizeof(name), "ust_tcpl_%p", (void *)stk);
	ts->listeners = rte_hash_create(&hp);
	snprintf(name, sizeof(name), "ust_req_%p", (void *)stk);
	ts->req_pool = rte_mempool_create(name, RTE_MAX(c->max_syn_backlog, 64u),
					  sizeof(struct ust_tcp_req), 0, 0,
					  NULL, NULL, NULL, NULL,
					  stk->conf.socket_id, 0);
	/* control blocks, TIME_WAIT entries (at most max_conns, as the
	 * connections: ust_tcp_enter_time_wait()), SACK blocks and RACK's
	 * record arrays, as connections need them */
	tcp_slab_init(&ts->tp_slab, "ust_tcp_chunk", TCP_BLOCK_SIZE,
		      TCP_CHUNK_BLOCKS, stk->conf.socket_id);
	tcp_slab_init(&ts->tw_slab, "ust_tcp_tw", sizeof(struct ust_tcp_tw),
		      0, stk->conf.socket_id);
	tcp_slab_init(&ts->sack_slab, "ust_tcp_sack",
		      sizeof(struct ust_tcp_sack), 0, stk->conf.socket_id);
	tcp_slab_init(&ts->a6_slab, "ust_tcp_a6",
		      sizeof(struct ust_tcp_addr6), 0, stk->conf.socket_id);
	for (i = 0; i < UST_TCP_RACK_SLABS; i++)
		tcp_slab_init(&ts->rack_slab[i], "ust_tcp_rack",
			      sizeof(struct ust_tcp_txrec) *
			      (UST_TCP_RACK_CAP_MIN << i), 0,
			      stk->conf.socket_id);
	ts->port_refs = rte_zmalloc_socket("ust_tcp_ports",
					   sizeof(*ts->port_refs) * 65536, 0,
					   stk->conf.socket_id);
	ts->port_perturb = rte_zmalloc_socket("ust_tcp_perturb",
					      sizeof(*ts->port_perturb) *
					      UST_TCP_PERTURB_SIZE, 0,
					      stk->conf.socket_id);
	if (ts->conns == NULL || ts->listeners == NULL ||
	    ts->req_pool == NULL ||
	    ts->port_refs == NULL || ts->port_perturb == NULL)
		return -ENOMEM;
	ts->rx_mbuf_size = (uint32_t)sizeof(struct rte_mbuf) +
		rte_pktmbuf_priv_size(mp) + rte_pktmbuf_data_room_size(mp);
	ts->rx_mbuf_size_r = rte_reciprocal_value(ts->rx_mbuf_size);
	rc = ust_wheel_init(&ts->wheel, 4096, 1000000, stk->now,
			    stk->conf.socket_id);
	if (rc != 0)
		return rc;
	if (mc.base_pages == 0)
		mc.base_pages = ((uint64_t)mp->size *
				 (mp->elt_size + mp->header_size +
				  mp->trailer_size)) >> UST_MEM_PAGE_SHIFT;
	if (mc.mem[0] == 0 && mc.mem[1] == 0 && mc.mem[2] == 0) {
		/* Linux sizes tcp_mem at 1/16 of free memory, for a kernel
		 * whose memory mostly serves other things; the mbuf pool is
		 * the stack's own, so TCP may take all of it: pressure at
		 * half, the limit at three quarters (the rest stays for RX
		 * rings, UDP and TX) */
		mc.mem[0] = mc.base_pages / 2;
		mc.mem[1] = mc.base_pages / 2;
		mc.mem[2] = mc.base_pages / 4 * 3;
	}
	ts->mem = ust_mem_pool_create(&mc, stk->conf.socket_id);
	if (ts->mem == NULL)
		return -EINVAL;
	ts->cc_default = ust_tcp_cc_find(c->congestion);
	if (ts->cc_default == NULL)
		return -EINVAL;
	ts->secret[0] = rte_rand();
	ts->secret[1] = rte_rand();
	rc = ust_ipv4_register(stk, IPPROTO_TCP, &tcp_ipv4_proto);
	if (rc != 0)
		return rc;
	if (stk->ip6 != NULL) {
		rc = ust_ipv6_register(stk, IPPROTO_TCP, &tcp_ipv6_proto);
		if (rc != 0)
			return rc;
	}
	rc = ust_tcp_sock_register(stk);
	if (rc != 0)
		return rc;
	return ust_tcp_tx_init(stk);
}

void
ust_tcp_fini(struct ust_stack *stk)
{
	struct ust_tcp_stack *ts = stk->tcp;
	const void *key;
	void *data, **objs = NULL;
	uint32_t iter = 0, n = 0, i;

	if (ts == NULL)
		return;
	/* what is left once sockets are closed: half-open entries, TIME_WAIT
	 * entries and orphaned connections; collected first, since freeing
	 * them changes the hash */
	if (ts->conns != NULL) {
		uint32_t total = rte_hash_count(ts->conns) +
			(ts->conns6 != NULL ? rte_hash_count(ts->conns6) : 0);

		if (total > 0)
			objs = rte_malloc("ust_tcp_fini",
					  sizeof(*objs) * total, 0);
		while (objs != NULL &&
		       rte_hash_iterate(ts->conns, &key, &data, &iter) >= 0)
			objs[n++] = data;
		iter = 0;
		while (objs != NULL && ts->conns6 != NULL &&
		       rte_hash_iterate(ts->conns6, &key, &data, &iter) >= 0)
			objs[n++] = data;
	}
	for (i = 0; i < n; i++) {
		void *obj = tcp_obj_ptr(objs[i]);

		switch (tcp_obj_kind(objs[i])) {
		case UST_TCP_OBJ_REQ:
			ust_tcp_req_free(stk, obj, true);
			break;
		case UST_TCP_OBJ_TW:
			ust_tcp_tw_free(stk, obj);
			break;
		default:
			ust_tcp_abort(stk, obj, ECONNABORTED, false);
			break;
		}
	}
	rte_free(objs);
	ust_tcp_tx_fini(stk);
	rte_free(ts->port_refs);
	rte_free(ts->port_perturb);
	rte_hash_free(ts->conns);
	rte_hash_free(ts->conns6);
	rte_hash_free(ts->listeners);
	rte_mempool_free(ts->req_pool);
	tcp_slab_fini(&ts->tw_slab);
	tcp_slab_fini(&ts->sack_slab);
	tcp_slab_fini(&ts->a6_slab);
	for (i = 0; i < UST_TCP_RACK_SLABS; i++)
		tcp_slab_fini(&ts->rack_slab[i]);
	tcp_slab_fini(&ts->tp_slab);
	ust_wheel_fini(&ts->wheel);
	if (ts->mem != NULL && ust_mem_pool_pages(ts->mem) != 0)
		TCP_LOG(ERR, "%s: TCP pool destroyed with %" PRId64
			" pages charged", stk->name,
			ust_mem_pool_pages(ts->mem));
	ust_mem_pool_free(ts->mem);
	rte_free(ts);
	stk->tcp = NULL;
}

void
ust_tcp_key_of(const struct ust_tcp_sock *tp, struct ust_tcp_key *k)
{
	k->laddr = tp->base.laddr;
	k->raddr = tp->base.raddr;
	k->lport = tp->base.lport;
	k->rport = tp->base.rport;
	k->a6 = tp->a6;
}

/* (IPv4 keys: the first cache) */
static inline bool
tcp_key_eq(const struct ust_tcp_key *a, const struct ust_tcp_key *b)
{
	return memcmp(a, b, UST_TCP_KEY4_LEN) == 0;
}

/* whether IPv6 key @k is the one the second cache holds */
static inline bool
tcp_hit6(const struct ust_tcp_stack *ts, const struct ust_tcp_key *k)
{
	return ts->hit6_data != NULL && ts->hit6_lport == k->lport &&
		ts->hit6_rport == k->rport &&
		memcmp(&ts->hit6_a6, k->a6, sizeof(ts->hit6_a6)) == 0;
}

static inline void
tcp_key6_of(const struct ust_tcp_key *k, struct tcp_key6 *k6)
{
	memcpy(k6->local, k->a6->local, sizeof(k6->local));
	memcpy(k6->remote, k->a6->remote, sizeof(k6->remote));
	k6->lport = k->lport;
	k6->rport = k->rport;
}

int
ust_tcp_hash_add(struct ust_stack *stk, const struct ust_tcp_key *k, void *obj,
	     enum ust_tcp_obj kind)
{
	struct ust_tcp_stack *ts = stk->tcp;

	if (k->a6 != NULL) {
		struct tcp_key6 k6;

		if (ts->conns6 == NULL)
			return -EAFNOSUPPORT;
		if (tcp_hit6(ts, k))
			ts->hit6_data = NULL;
		tcp_key6_of(k, &k6);
		ts->conns_gen++;
		return rte_hash_add_key_data(ts->conns6, &k6,
					     tcp_obj_tag(obj, kind));
	}
	/* a key already there takes the new object (TIME_WAIT to socket):
	 * the cache forgets it either way */
	if (ts->hit_data != NULL && tcp_key_eq(&ts->hit_key, k))
		ts->hit_data = NULL;
	ts->conns_gen++;
	return rte_hash_add_key_data(ts->conns, k, tcp_obj_tag(obj, kind));
}

void
ust_tcp_hash_del(struct ust_stack *stk, const struct ust_tcp_key *k)
{
	struct ust_tcp_stack *ts = stk->tcp;

	if (k->a6 != NULL) {
		struct tcp_key6 k6;

		if (tcp_hit6(ts, k))
			ts->hit6_data = NULL;
		tcp_key6_of(k, &k6);
		ts->conns_gen++;
		if (ts->conns6 != NULL)
			rte_hash_del_key(ts->conns6, &k6);
		return;
	}
	if (ts->hit_data != NULL && tcp_key_eq(&ts->hit_key, k))
		ts->hit_data = NULL;
	ts->conns_gen++;
	rte_hash_del_key(ts->conns, k);
}

void *
ust_tcp_hash_lookup(struct ust_stack *stk, const struct ust_tcp_key *k)
{
	struct ust_tcp_stack *ts = stk->tcp;
	void *data;

	if (k->a6 != NULL) {
		struct tcp_key6 k6;

		if (tcp_hit6(ts, k))
			return ts->hit6_data;
		tcp_key6_of(k, &k6);
		if (ts->conns6 == NULL ||
		    rte_hash_lookup_data(ts->conns6, &k6, &data) < 0)
			return NULL;
		ts->hit6_a6 = *k->a6;
		ts->hit6_lport = k->lport;
		ts->hit6_rport = k->rport;
		ts->hit6_data = data;
		return data;
	}
	if (ts->hit_data != NULL && tcp_key_eq(&ts->hit_key, k))
		return ts->hit_data;
	if (rte_hash_lookup_data(ts->conns, k, &data) < 0)
		return NULL;
	ts->hit_key = *k;
	ts->hit_data = data;
	return data;
}

static bool
state_counts_established(uint8_t s)
{
	return s == UST_TCP_ESTABLISHED || s == UST_TCP_CLOSE_WAIT;
}

void
ust_tcp_set_state(struct ust_stack *stk, struct ust_tcp_sock *tp, uint8_t state)
{
	bool was = state_counts_established(tp->state);
	bool is = state_counts_established(state);

	/* Tcp.CurrEstab: connections in ESTABLISHED or CLOSE_WAIT */
	if (was && !is)
		stk->mib[UST_MIB_TCP_CURRESTAB]--;
	else if (!was && is)
		stk->mib[UST_MIB_TCP_CURRESTAB]++;
	tp->state = state;
}

struct ust_tcp_sock *
ust_tcp_sock_alloc(struct ust_stack *stk)
{
	struct ust_tcp_stack *ts = stk->tcp;
	struct ust_tcp_sock *tp;

	tp = ust_tcp_slab_get(&ts->tp_slab);
	if (tp == NULL)
		return NULL;
	memset(tp, 0, sizeof(*tp));
	tp->base.kind = UST_SK_TCP;
	tp->base.stk = stk;
	tp->base.sndbuf = stk->conf.tcp.wmem_default;
	tp->rcvbuf = stk->conf.tcp.rmem_default;
	tp->state = UST_TCP_CLOSED;
	tp->cc = stk->tcp->cc_default;
	tp->linger_s = -1;
	tp->mss = UST_TCP_DEFAULT_MSS;
	tp->rcv_mss = ust_tcp_local_mss(stk);
	tp->rto_us = stk->conf.tcp.rto_init_ms * 1000;
	tp->keep_idle_ms = stk->conf.tcp.keepalive_time_ms;
	tp->keep_intvl_ms = stk->conf.tcp.keepalive_intvl_ms;
	tp->keep_cnt = (uint8_t)stk->conf.tcp.keepalive_probes; /* (1..127) */
	tp->tx_layout = stk->conf.tcp.tx_layout;
	tp->copy_small = stk->conf.tcp.copy_small;
	ust_pktq_init(&tp->sndq);
	ust_pktq_init(&tp->rcvq);
	ust_pktq_init(&tp->ofoq);
	ust_timer_init(&tp->rtx_timer, UST_TT_RTX);
	ust_timer_init(&tp->delack_timer, UST_TT_DELACK);
	ust_timer_init(&tp->cork_timer, UST_TT_CORK);
	tp->pmtudisc = IP_PMTUDISC_WANT; /* Linux's default */
	return tp;
}

void
ust_tcp_sock_free(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	ust_tcp_output_undefer(stk, tp);
	if (stk->tcp->burst_tp == tp)
		stk->tcp->burst_tp = NULL;
	ust_timer_cancel(&stk->tcp->wheel, &tp->rtx_timer);
	ust_timer_cancel(&stk->tcp->wheel, &tp->delack_timer);
	ust_timer_cancel(&stk->tcp->wheel, &tp->cork_timer);
	if (tp->tflags & TF_PORT_REF)
		stk->tcp->port_refs[rte_be_to_cpu_16(tp->base.lport)]--;
	rte_free(tp->listen);
	ust_tcp_rack_free(tp);
	ust_tcp_sack_put(tp);
	if (tp->a6 != NULL)
		ust_tcp_slab_put(&stk->tcp->a6_slab, tp->a6);
	ust_tcp_slab_put(&stk->tcp->tp_slab, tp);
}

void
ust_tcp_poll(struct ust_stack *stk)
{
	struct ust_tcp_stack *ts = stk->tcp;

	ts->synack_budget = stk->conf.tcp.synack_rtx_burst;
	ust_wheel_advance(&ts->wheel, stk->now, ust_tcp_timer_fire, stk);
	/* output that waited for staging room, while there is room */
	while (ts->out_head != NULL && ust_tx_send_room(stk)) {
		struct ust_tcp_sock *tp = ts->out_head;

		ust_tcp_output_undefer(stk, tp);
		/* a SYN or SYN-ACK that found no room (ust_tcp_send_syn())
		 * goes now; ust_tcp_output() sends nothing in these states */
		if (tp->state == UST_TCP_SYN_SENT ||
		    tp->state == UST_TCP_SYN_RECEIVED)
			ust_tcp_send_syn(stk, tp);
		else
			ust_tcp_output(stk, tp);
	}
}

uint64_t
ust_tcp_next_deadline(const struct ust_stack *stk)
{
	const struct ust_tcp_stack *ts = stk->tcp;

	if (ts->out_head != NULL)
		return 0;
	return ust_wheel_next_ns(&ts->wheel);
}

/* Give back the queues' mbufs and memory; the in-order receive queue only
 * when @rcv (what the peer sent before its FIN stays readable). */
void
ust_tcp_purge_queues(struct ust_stack *stk, struct ust_tcp_sock *tp, bool rcv)
{
	int off = stk->meta_off;
	struct rte_mbuf *m;

	while (rcv && (m = ust_pktq_pop(off, &tp->rcvq)) != NULL) {
		ust_tcp_rmem_uncharge(stk, tp, ust_meta(off, m)->truesize, 0);
		ust_drop(stk, m, UST_DROP_TCP_ABORT);
	}
	if (rcv) {
		tp->rcv_buffered = 0;
		tp->rcv_head_off = 0;
	}
	ust_tcp_reass_purge(stk, tp, UST_DROP_TCP_ABORT);
	/* the send queue holds data, not received frames: not a drop */
	while ((m = ust_pktq_pop(off, &tp->sndq)) != NULL)
		rte_pktmbuf_free(m);
	tp->snd_buffered = 0;
	tp->snd_cur = NULL;
	ust_tcp_rack_free(tp);
	/* give back the last page(s) kept */
	if (tp->rcvq.len == 0)
		ust_tcp_rmem_uncharge(stk, tp, 0, 0);
}

void
ust_tcp_done(struct ust_stack *stk, struct ust_tcp_sock *tp)
{
	struct ust_tcp_key k;

	ust_tcp_key_of(tp, &k);
	if (tp->state != UST_TCP_CLOSED && tp->state != UST_TCP_LISTEN &&
	    tp->base.lport != 0) {
		void *d = ust_tcp_hash_lookup(stk, &k);

		if (d != NULL && tcp_obj_kind(d) == UST_TCP_OBJ_SOCK &&
		    tcp_obj_ptr(d) == tp) {
			ust_tcp_hash_del(stk, &k);
			stk->tcp->n_conns--;
		}
	}
	ust_timer_cancel(&stk->tcp->wheel, &tp->rtx_timer);
	ust_timer_cancel(&stk->tcp->wheel, &tp->delack_timer);
	ust_timer_cancel(&stk->tcp->wheel, &tp->cork_timer);
	ust_tcp_output_undefer(stk, tp);
	tp->rtx_mode = UST_RTX_NONE;
	ust_tcp_set_state(stk, tp, UST_TCP_CLOSED);
	ust_tcp_purge_queues(stk, tp, (tp->tflags & TF_ORPHAN) != 0);
	if (tp->tflags & TF_ORPHAN) {
		ust_tcp_sock_free(stk, tp);
		return;
	}
	ust_tcp_wakeup(tp);
}

void
ust_tcp_abort(struct ust_stack *stk, struct ust_tcp_sock *tp, int err,
	  bool send_rst)
{
	if (rte_log_can_log(ust_tcp_logtype, RTE_LOG_DEBUG)) {
		char l[INET_ADDRSTRLEN], r[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &tp->base.laddr, l, sizeof(l));
		inet_ntop(AF_INET, &tp->base.raddr, r, sizeof(r));
		TCP_LOG(DEBUG, "%s: %s:%u -> %s:%u %s: %s%s", stk->name, l,
			rte_be_to_cpu_16(tp->base.lport), r,
			rte_be_to_cpu_16(tp->base.rport),
			ust_tcp_state_name(tp->state),
			err == ECONNRESET ? "reset by the peer" :
			err == 0 ? "aborted" : strerror(err),
			send_rst && !stk->dying ? ", RST sent" : "");
	}
	if (send_rst && tp->state != UST_TCP_CLOSED &&
	    tp->state != UST_TCP_LISTEN && tp->state != UST_TCP_SYN_SENT)
		ust_tcp_send_rst(stk, tp);
	if (tp->parent != NULL) {
		/* established but never accepted: the listener lets go */
		struct ust_tcp_listen *l = tp->parent->listen;
		struct ust_tcp_sock **pp = &l->acceptq_head, *prev = NULL;

		while (*pp != NULL && *pp != tp) {
			prev = *pp;
			pp = &(*pp)->accept_next;
		}
		if (*pp == tp) {
			*pp = tp->accept_next;
			if (l->acceptq_tail == tp)
				l->acceptq_tail = prev;
			l->acceptq_len--;
			stk->tcp->n_acceptq--;
		}
		tp->parent = NULL;
		tp->tflags |= TF_ORPHAN;
	}
	/* a timeout after a soft ICMP error reports that error (RFC 1122
	 * 4.2.3.9; Linux's tcp_write_err()) */
	if (err == ETIMEDOUT && tp->soft_err != 0)
		err = tp->soft_err;
	tp->soft_err = 0;
	if (err != 0 && !(tp->tflags & TF_ORPHAN))
		tp->base.so_error = err;
	/* what was received is lost with the connection */
	ust_tcp_purge_queues(stk, tp, true);
	ust_tcp_done(stk, tp);
}

bool
ust_tcp_rmem_charge(struct ust_stack *stk, struct ust_tcp_sock *tp,
		uint32_t truesize)
{
	uint32_t pages;

	/* an empty connection always takes one segment, as UDP sockets do */
	if (tp->rmem_alloc != 0 && tp->rmem_alloc + truesize > tp->rcvbuf)
		return false;
	pages = ust_mem_schedule_pages(UST_MEM_SCHEDULE_DELTA,
				       (uint32_t)tp->fwd_alloc, truesize);
	if (pages != 0 &&
	    !ust_mem_pool_charge(stk->tcp->mem, pages,
				 tp->rmem_alloc + truesize))
		return false;
	tp->fwd_alloc += (int32_t)(pages << UST_MEM_PAGE_SHIFT) -
		(int32_t)truesize;
	tp->rmem_alloc += truesize;
	return true;
}

void
ust_tcp_rmem_uncharge(struct ust_stack *stk, struct ust_tcp_sock *tp,
		  uint32_t truesize, uint32_t partial)
{
	uint32_t pages;

	tp->rmem_alloc -= truesize;
	tp->fwd_alloc += (int32_t)truesize;
	pages = ust_mem_release_pages((uint32_t)tp->fwd_alloc, partial);
	tp->fwd_alloc -= (int32_t)(pages << UST_MEM_PAGE_SHIFT);
	ust_mem_pool_uncharge(stk->tcp->mem, pages);
}

void
ust_tcp_wakeup(struct ust_tcp_sock *tp)
{
	if (tp->base.ep != NULL)
		ust_sock_wakeup(&tp->base);
	if (tp->parent != NULL && tp->parent->base.ep != NULL)
		ust_sock_wakeup(&tp->parent->base);
}

struct ust_mem_pool *
ust_stack_tcp_mem(struct ust_stack *stk)
{
	return stk->tcp->mem;
}
