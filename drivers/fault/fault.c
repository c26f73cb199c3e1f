/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * The fault-injection stage (ust_fault.h). rx_burst pulls a burst from the
 * inner netif and decides each frame's fate with a xorshift64* generator:
 * frames to deliver go to the ready FIFO, held frames wait in the held
 * array with a countdown of bursts; every burst counts the held frames
 * down and moves the expired ones to the ready FIFO, from which up to n
 * frames are returned. Nothing here takes a lock: a stage belongs to the
 * lcore that polls its netif, as the stack does.
 */

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "ust_config.h"
#include "ust_fault.h"

#define FAULT_READY 1024u   /* a power of 2 */
#define FAULT_HELD 256u
#define FAULT_BURST 32u

struct fault_held {
	struct rte_mbuf *m;
	uint32_t left;          /* bursts to wait */
};

struct ust_fault {
	struct ust_netif inner;
	struct ust_fault_conf conf;
	struct rte_mempool *mp;
	uint64_t rng;
	struct ust_fault_stats st;
	uint32_t r_head;        /* ready FIFO */
	uint32_t r_count;
	uint32_t n_held;
	struct rte_mbuf *ready[FAULT_READY];
	struct fault_held held[FAULT_HELD];
};

void
ust_fault_conf_defaults(struct ust_fault_conf *c)
{
	memset(c, 0, sizeof(*c));
	c->seed = 1;
	c->reorder_depth = 3;
}

/* "12.5%" or "125000ppm" or "0" -> parts per million */
static int
parse_ppm(const char *v, uint32_t *out)
{
	const char *end;
	double d;

	/* finite, no blanks or sign: NaN would pass every comparison and
	 * make the cast below undefined */
	if (ust_parse_double(v, 0, 1e7, &d, &end) != 0)
		return -1;
	if (strcmp(end, "%") == 0)
		d *= 10000.0;
	else if (strcmp(end, "ppm") != 0 && !(*end == '\0' && d == 0))
		return -1;
	if (d > 1000000.0)
		return -1;
	*out = (uint32_t)(d + 0.5);
	return 0;
}

int
ust_fault_parse(const char *spec, struct ust_fault_conf *c, char *err,
		size_t errlen)
{
	char buf[256], *save = NULL, *tok;

	if (spec == NULL || strlen(spec) >= sizeof(buf)) {
		snprintf(err, errlen, "fault spec too long");
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", spec);
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '='), *end;
		uint32_t *ppm = NULL;

		if (eq == NULL) {
			snprintf(err, errlen, "'%s' is not key=value",
				 tok);
			return -1;
		}
		*eq++ = '\0';
		if (strcmp(tok, "drop") == 0)
			ppm = &c->drop_ppm;
		else if (strcmp(tok, "dup") == 0)
			ppm = &c->dup_ppm;
		else if (strcmp(tok, "reorder") == 0)
			ppm = &c->reorder_ppm;
		else if (strcmp(tok, "corrupt") == 0)
			ppm = &c->corrupt_ppm;
		if (ppm != NULL) {
			if (parse_ppm(eq, ppm) != 0) {
				snprintf(err, errlen, "bad %s '%s' "
					 "(want e.g. 5%% or 500ppm)", tok, eq);
				return -1;
			}
		} else if (strcmp(tok, "seed") == 0) {
			errno = 0;
			c->seed = strtoull(eq, &end, 0);
			if (!isdigit((unsigned char)*eq) || *end != '\0' ||
			    errno != 0) {
				snprintf(err, errlen, "bad seed '%s'",
					 eq);
				return -1;
			}
		} else if (strcmp(tok, "depth") == 0) {
			uint32_t d;

			if (ust_parse_u32(eq, 1, 64, &d) != 0) {
				snprintf(err, errlen, "depth '%s' not "
					 "in 1..64", eq);
				return -1;
			}
			c->reorder_depth = (uint16_t)d;
		} else {
			snprintf(err, errlen, "unknown key '%s' (drop, "
				 "dup, reorder, corrupt, depth, seed)", tok);
			return -1;
		}
	}
	return 0;
}

static inline uint64_t
fault_rand(struct ust_fault *f)
{
	f->rng ^= f->rng >> 12;
	f->rng ^= f->rng << 25;
	f->rng ^= f->rng >> 27;
	return f->rng * 0x2545F4914F6CDD1DULL;
}

static inline bool
roll(struct ust_fault *f, uint32_t ppm)
{
	return ppm != 0 && fault_rand(f) % 1000000u < ppm;
}

static void
ready_push(struct ust_fault *f, struct rte_mbuf *m)
{
	if (f->r_count == FAULT_READY) {
		f->st.overflow++;
		rte_pktmbuf_free(m);
		return;
	}
	f->ready[(f->r_head + f->r_count) & (FAULT_READY - 1)] = m;
	f->r_count++;
}

static void
corrupt(struct ust_fault *f, struct rte_mbuf *m)
{
	uint32_t len = m->data_len;

	if (len <= RTE_ETHER_HDR_LEN)
		return;
	{
		uint64_t r = fault_rand(f);
		uint32_t at = RTE_ETHER_HDR_LEN +
			(uint32_t)(r % (len - RTE_ETHER_HDR_LEN));
		uint8_t *p = rte_pktmbuf_mtod_offset(m, uint8_t *, at);

		*p ^= (uint8_t)(1u << ((r >> 32) & 7));
	}
	/* what a NIC verified no longer holds */
	m->ol_flags &= ~(RTE_MBUF_F_RX_IP_CKSUM_MASK |
			 RTE_MBUF_F_RX_L4_CKSUM_MASK);
	f->st.corrupted++;
}

static void
fault_one(struct ust_fault *f, struct rte_mbuf *m)
{
	const struct ust_fault_conf *c = &f->conf;

	f->st.frames++;
	if (roll(f, c->drop_ppm)) {
		f->st.dropped++;
		rte_pktmbuf_free(m);
		return;
	}
	if (roll(f, c->corrupt_ppm))
		corrupt(f, m);
	if (roll(f, c->dup_ppm)) {
		struct rte_mbuf *d = rte_pktmbuf_copy(m, f->mp, 0, UINT32_MAX);

		if (d != NULL) {
			f->st.duplicated++;
			ready_push(f, d);
		}
	}
	if (roll(f, c->reorder_ppm) && f->n_held < FAULT_HELD) {
		f->held[f->n_held].m = m;
		f->held[f->n_held].left =
			1 + (uint32_t)(fault_rand(f) % c->reorder_depth);
		f->n_held++;
		f->st.reordered++;
		return;
	}
	ready_push(f, m);
}

static uint16_t
fault_rx(void *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	struct ust_fault *f = ctx;
	struct rte_mbuf *in[FAULT_BURST];
	uint16_t k, i, out = 0;
	uint32_t j = 0;

	/* held frames count down first: one burst has gone by */
	for (i = 0; i < f->n_held; i++) {
		if (--f->held[i].left == 0)
			ready_push(f, f->held[i].m);
		else
			f->held[j++] = f->held[i];
	}
	f->n_held = j;
	if (f->r_count < FAULT_READY - 2 * FAULT_BURST) {
		k = f->inner.ops->rx_burst(f->inner.ctx, in,
					   RTE_MIN(n, (uint16_t)FAULT_BURST));
		for (i = 0; i < k; i++)
			fault_one(f, in[i]);
	}
	while (out < n && f->r_count > 0) {
		pkts[out++] = f->ready[f->r_head];
		f->r_head = (f->r_head + 1) & (FAULT_READY - 1);
		f->r_count--;
	}
	return out;
}

static uint16_t
fault_tx(void *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	struct ust_fault *f = ctx;

	return f->inner.ops->tx_burst(f->inner.ctx, pkts, n);
}

static const struct ust_netif_ops fault_ops = {
	.rx_burst = fault_rx,
	.tx_burst = fault_tx,
};

struct ust_fault *
ust_fault_create(const struct ust_fault_conf *c, const struct ust_netif *inner,
		 struct rte_mempool *mp)
{
	struct ust_fault *f;

	if (c == NULL || inner == NULL || mp == NULL ||
	    c->reorder_depth == 0 || c->drop_ppm > 1000000 ||
	    c->dup_ppm > 1000000 || c->reorder_ppm > 1000000 ||
	    c->corrupt_ppm > 1000000) {
		rte_errno = EINVAL;
		return NULL;
	}
	f = rte_zmalloc("ust_fault", sizeof(*f), RTE_CACHE_LINE_SIZE);
	if (f == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	f->inner = *inner;
	f->conf = *c;
	f->mp = mp;
	/* xorshift needs a non-zero state */
	f->rng = c->seed != 0 ? c->seed : 0x9e3779b97f4a7c15ull;
	return f;
}

void
ust_fault_netif(struct ust_fault *f, struct ust_netif *out)
{
	*out = f->inner;
	out->ops = &fault_ops;
	out->ctx = f;
}

void
ust_fault_stats_get(const struct ust_fault *f, struct ust_fault_stats *s)
{
	*s = f->st;
}

void
ust_fault_free(struct ust_fault *f)
{
	uint32_t i;

	if (f == NULL)
		return;
	for (i = 0; i < f->n_held; i++)
		rte_pktmbuf_free(f->held[i].m);
	while (f->r_count > 0) {
		rte_pktmbuf_free(f->ready[f->r_head]);
		f->r_head = (f->r_head + 1) & (FAULT_READY - 1);
		f->r_count--;
	}
	rte_free(f);
}
