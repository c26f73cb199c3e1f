/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * The protocol memory pool: a page counter with three limits, shared by the
 * lcore that queues packets into sockets and the lcores that read them.
 *
 * Calls: ust_mem_pool_charge() from the producer (the stack's RX path) before
 * a packet is queued; ust_mem_pool_uncharge() from the reader's release path
 * and from close. Neither takes a lock. Each lcore keeps a signed local
 * reserve of pages in its own cache line and folds it into the shared atomic
 * counter only when it reaches +/- pcpu_reserve pages, as Linux does with its
 * per-CPU forward allocation since 2022: the shared line is written once per
 * reserve, not once per packet. With pcpu_reserve 0 every charge goes to the
 * shared counter and the limits are exact.
 */

#include <errno.h>
#include <string.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "ust_mem.h"

/* per-lcore state; written by one lcore only */
struct ust_mem_slot {
	int64_t reserve;
	uint64_t charge_calls;
	uint64_t pages_charged;
	uint64_t uncharge_calls;
	uint64_t pages_uncharged;
	uint64_t charge_failures;
	uint64_t min_grants;
	uint64_t pressure_events;
} __rte_cache_aligned;

/* slot index for threads without an lcore id: updated with atomics */
#define UST_MEM_SLOT_SHARED RTE_MAX_LCORE

struct ust_mem_pool {
	/* read-mostly: read by every charge and release */
	struct ust_mem_conf conf;
	int64_t limit[3];

	/* the shared counter and its high-water mark: written by the
	 * lcores only when their reserves overflow */
	int64_t allocated __rte_cache_aligned;
	int64_t high_water;        /* highest total a granted charge saw */

	struct ust_mem_slot slot[RTE_MAX_LCORE + 1];
};

void
ust_mem_conf_defaults(struct ust_mem_conf *conf)
{
	memset(conf, 0, sizeof(*conf));
	conf->rmem_min = UST_MEM_PAGE_SIZE;
	conf->rmem_default = 212992;
	conf->rmem_max = 212992;
	conf->wmem_default = 212992;
	conf->wmem_max = 212992;
	conf->pcpu_reserve = 16;
	conf->schedule = UST_MEM_SCHEDULE_DELTA;
	conf->release = UST_MEM_RELEASE_BATCHED;
}

static void
mem_resolve_limits(struct ust_mem_pool *p)
{
	const struct ust_mem_conf *c = &p->conf;

	if (c->mem[0] == 0 && c->mem[1] == 0 && c->mem[2] == 0) {
		/* Linux: limit = max(free pages / 8, 128); min = 3/4 limit;
		 * pressure = limit; max = 2 * min. */
		int64_t limit = (int64_t)(c->base_pages / 8);

		if (limit < 128)
			limit = 128;
		p->limit[0] = limit / 4 * 3;
		p->limit[1] = limit;
		p->limit[2] = p->limit[0] * 2;
	} else {
		p->limit[0] = (int64_t)c->mem[0];
		p->limit[1] = (int64_t)c->mem[1];
		p->limit[2] = (int64_t)c->mem[2];
	}
	p->conf.mem[0] = (uint64_t)p->limit[0];
	p->conf.mem[1] = (uint64_t)p->limit[1];
	p->conf.mem[2] = (uint64_t)p->limit[2];
}

struct ust_mem_pool *
ust_mem_pool_create(const struct ust_mem_conf *conf, int socket_id)
{
	struct ust_mem_pool *p;

	if (conf == NULL || conf->mem[0] > conf->mem[1] ||
	    conf->mem[1] > conf->mem[2]) {
		rte_errno = EINVAL;
		return NULL;
	}
	p = rte_zmalloc_socket("ust_mem_pool", sizeof(*p), RTE_CACHE_LINE_SIZE,
			       socket_id);
	if (p == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	p->conf = *conf;
	mem_resolve_limits(p);
	return p;
}

void
ust_mem_pool_free(struct ust_mem_pool *pool)
{
	rte_free(pool);
}

static inline struct ust_mem_slot *
mem_slot(struct ust_mem_pool *p, bool *shared)
{
	unsigned int id = rte_lcore_id();

	*shared = id >= RTE_MAX_LCORE;
	return &p->slot[*shared ? UST_MEM_SLOT_SHARED : id];
}

static void
mem_note_high_water(struct ust_mem_pool *p, int64_t now)
{
	int64_t hw = __atomic_load_n(&p->high_water, __ATOMIC_RELAXED);

	while (now > hw &&
	       !__atomic_compare_exchange_n(&p->high_water, &hw, now, true,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* Add @delta pages through the caller's slot; returns the caller's view of
 * the pool (shared counter plus its own unflushed reserve). */
static int64_t
mem_add(struct ust_mem_pool *p, struct ust_mem_slot *s, bool shared,
	int64_t delta)
{
	int64_t rsv = (int64_t)p->conf.pcpu_reserve;
	int64_t total;

	if (shared) {
		return __atomic_add_fetch(&p->allocated, delta,
					  __ATOMIC_RELAXED);
	}
	s->reserve += delta;
	if (s->reserve >= rsv || s->reserve <= -rsv) {
		total = __atomic_add_fetch(&p->allocated, s->reserve,
					   __ATOMIC_RELAXED);
		s->reserve = 0;
		return total;
	}
	return __atomic_load_n(&p->allocated, __ATOMIC_RELAXED) + s->reserve;
}

#define SLOT_INC(shared, field, v) do { \
	if (shared) \
		__atomic_fetch_add(&(field), (v), __ATOMIC_RELAXED); \
	else \
		(field) += (v); \
} while (0)

bool
ust_mem_pool_charge(struct ust_mem_pool *p, uint32_t pages,
		    uint32_t rmem_alloc)
{
	bool shared;
	struct ust_mem_slot *s = mem_slot(p, &shared);
	int64_t total;

	if (pages == 0)
		return true;
	total = mem_add(p, s, shared, pages);
	if (total <= p->limit[0])
		goto granted;
	if (total > p->limit[1])
		SLOT_INC(shared, s->pressure_events, 1);
	/* Over the hard limit: refused, whatever the socket holds. */
	if (total > p->limit[2])
		goto refused;
	/* Between min and max UDP has no pressure state: a socket still
	 * gets memory while it holds less than rmem_min (one page), so that
	 * every socket can always take one packet. */
	if (rmem_alloc < p->conf.rmem_min) {
		SLOT_INC(shared, s->min_grants, 1);
		goto granted;
	}
refused:
	mem_add(p, s, shared, -(int64_t)pages);
	SLOT_INC(shared, s->charge_failures, 1);
	return false;
granted:
	mem_note_high_water(p, total);
	SLOT_INC(shared, s->charge_calls, 1);
	SLOT_INC(shared, s->pages_charged, pages);
	return true;
}

void
ust_mem_pool_uncharge(struct ust_mem_pool *p, uint32_t pages)
{
	bool shared;
	struct ust_mem_slot *s = mem_slot(p, &shared);

	if (pages == 0)
		return;
	mem_add(p, s, shared, -(int64_t)pages);
	SLOT_INC(shared, s->uncharge_calls, 1);
	SLOT_INC(shared, s->pages_uncharged, pages);
}

int64_t
ust_mem_pool_pages(const struct ust_mem_pool *p)
{
	int64_t total = __atomic_load_n(&p->allocated, __ATOMIC_RELAXED);
	unsigned int i;

	for (i = 0; i < RTE_MAX_LCORE; i++)
		total += __atomic_load_n(&p->slot[i].reserve, __ATOMIC_RELAXED);
	return total;
}

void
ust_mem_pool_stats_get(const struct ust_mem_pool *p,
		       struct ust_mem_pool_stats *st)
{
	unsigned int i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < 3; i++)
		st->limit[i] = (uint64_t)p->limit[i];
	st->pages = ust_mem_pool_pages(p);
	st->high_water = __atomic_load_n(&p->high_water, __ATOMIC_RELAXED);
	if (st->high_water < st->pages)
		st->high_water = st->pages; /* unflushed reserves */
	for (i = 0; i <= RTE_MAX_LCORE; i++) {
		const struct ust_mem_slot *s = &p->slot[i];

		st->charge_calls += s->charge_calls;
		st->pages_charged += s->pages_charged;
		st->uncharge_calls += s->uncharge_calls;
		st->pages_uncharged += s->pages_uncharged;
		st->charge_failures += s->charge_failures;
		st->min_grants += s->min_grants;
		st->pressure_events += s->pressure_events;
	}
	st->schedule = p->conf.schedule;
	st->release = p->conf.release;
}

const struct ust_mem_conf *
ust_mem_pool_conf(const struct ust_mem_pool *p)
{
	return &p->conf;
}

void
ust_mem_pool_set_schedule(struct ust_mem_pool *p, enum ust_mem_schedule s)
{
	__atomic_store_n(&p->conf.schedule, s, __ATOMIC_RELAXED);
}

void
ust_mem_pool_set_release(struct ust_mem_pool *p, enum ust_mem_release r)
{
	__atomic_store_n(&p->conf.release, r, __ATOMIC_RELAXED);
}

void
ust_mem_pool_set_limits(struct ust_mem_pool *p, const uint64_t mem[3])
{
	p->conf.mem[0] = mem[0];
	p->conf.mem[1] = mem[1];
	p->conf.mem[2] = mem[2];
	p->limit[0] = (int64_t)mem[0];
	p->limit[1] = (int64_t)mem[1];
	p->limit[2] = (int64_t)mem[2];
}
