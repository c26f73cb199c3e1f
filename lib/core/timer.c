/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/* The hashed timing wheel: see timer_private.h. */

#include <errno.h>

#include <rte_common.h>
#include <rte_malloc.h>

#include "timer_private.h"

int
ust_wheel_init(struct ust_wheel *w, uint32_t nslots, uint64_t tick_ns,
	       uint64_t now_ns, int socket_id)
{
	if (nslots == 0 || (nslots & (nslots - 1)) != 0 || tick_ns == 0)
		return -EINVAL;
	w->slot = rte_zmalloc_socket("ust_wheel", sizeof(*w->slot) * nslots,
				     RTE_CACHE_LINE_SIZE, socket_id);
	if (w->slot == NULL)
		return -ENOMEM;
	w->tick_ns = tick_ns;
	w->tick_div = rte_reciprocal_value_u64(tick_ns);
	w->now_tick = now_ns / tick_ns;
	w->mask = nslots - 1;
	w->armed = 0;
	w->running = NULL;
	return 0;
}

void
ust_wheel_fini(struct ust_wheel *w)
{
	rte_free(w->slot);
	w->slot = NULL;
}

static inline void
wheel_link(struct ust_wheel *w, struct ust_timer *t)
{
	struct ust_timer **head = &w->slot[t->expire & w->mask];

	t->prev = NULL;
	t->next = *head;
	if (*head != NULL)
		(*head)->prev = t;
	*head = t;
}

static inline void
wheel_unlink(struct ust_wheel *w, struct ust_timer *t)
{
	if (t->prev != NULL)
		t->prev->next = t->next;
	else if (w->running == t)
		w->running = t->next;
	else
		w->slot[t->expire & w->mask] = t->next;
	if (t->next != NULL)
		t->next->prev = t->prev;
	t->next = NULL;
	t->prev = NULL;
}

void
ust_timer_arm(struct ust_wheel *w, struct ust_timer *t, uint64_t expire_ns)
{
	/* round up: a timer never fires before its time */
	uint64_t tick = rte_reciprocal_divide_u64(expire_ns + w->tick_ns - 1,
						  &w->tick_div);

	if (tick <= w->now_tick)
		tick = w->now_tick + 1;
	if (t->armed) {
		if (t->expire == tick)
			return;
		wheel_unlink(w, t);
	} else {
		w->armed++;
	}
	t->expire = tick;
	t->armed = true;
	wheel_link(w, t);
}

void
ust_timer_cancel(struct ust_wheel *w, struct ust_timer *t)
{
	if (!t->armed)
		return;
	wheel_unlink(w, t);
	t->armed = false;
	w->armed--;
}

uint64_t
ust_wheel_next_ns(const struct ust_wheel *w)
{
	uint64_t tick, last;

	if (w->armed == 0)
		return UINT64_MAX;
	last = w->now_tick + w->mask + 1;
	for (tick = w->now_tick + 1; tick <= last; tick++) {
		const struct ust_timer *t;

		for (t = w->slot[tick & w->mask]; t != NULL; t = t->next)
			if (t->expire <= tick)
				return tick * w->tick_ns;
	}
	return last * w->tick_ns;
}

unsigned int
ust_wheel_advance(struct ust_wheel *w, uint64_t now_ns,
		  void (*fire)(struct ust_timer *t, void *ctx), void *ctx)
{
	uint64_t target = rte_reciprocal_divide_u64(now_ns, &w->tick_div);
	uint64_t tick, last;
	unsigned int fired = 0;

	if (target <= w->now_tick)
		return 0;
	/* a jump longer than a turn visits every slot once */
	last = target - w->now_tick > (uint64_t)w->mask + 1 ?
		w->now_tick + w->mask + 1 : target;
	for (tick = w->now_tick + 1; tick <= last && w->armed > 0; tick++) {
		struct ust_timer **head = &w->slot[tick & w->mask];
		struct ust_timer *t;

		/* detach the slot: callbacks may re-arm into it, and cancel
		 * or re-arm timers still in w->running */
		w->running = *head;
		*head = NULL;
		while ((t = w->running) != NULL) {
			w->running = t->next;
			if (t->next != NULL)
				t->next->prev = NULL;
			t->next = NULL;
			t->prev = NULL;
			if (t->expire <= target) {
				t->armed = false;
				w->armed--;
				fired++;
				fire(t, ctx);
			} else {
				wheel_link(w, t); /* a later turn */
			}
		}
	}
	w->now_tick = target;
	return fired;
}
