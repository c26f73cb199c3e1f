/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * The apps' latency histogram: log-linear buckets of about 3%, in ns.
 */

#include <string.h>

#include "app_common.h"

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
