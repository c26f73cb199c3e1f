/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * Counter names: the tables behind ust_mib_name(), ust_drop_name() and the
 * lookups, generated from the X-macro lists in ust_stats.h so that a
 * counter and its name cannot drift apart.
 */

#include <string.h>

#include "ust_stats.h"

static const char *const mib_names[UST_MIB_MAX] = {
#define X(g, e, n) [UST_MIB_##e] = n,
	UST_MIB_LIST(X)
#undef X
};

static const char *const mib_groups[UST_MIB_MAX] = {
#define X(g, e, n) [UST_MIB_##e] = #g,
	UST_MIB_LIST(X)
#undef X
};

static const char *const drop_names[UST_DROP_MAX] = {
#define X(e, n, p) [UST_DROP_##e] = n,
	UST_DROP_LIST(X)
#undef X
};

static const enum ust_drop_path drop_paths[UST_DROP_MAX] = {
#define X(e, n, p) [UST_DROP_##e] = UST_DROP_PATH_##p,
	UST_DROP_LIST(X)
#undef X
};

const char *
ust_mib_name(unsigned int mib)
{
	return mib < UST_MIB_MAX ? mib_names[mib] : NULL;
}

const char *
ust_mib_group(unsigned int mib)
{
	return mib < UST_MIB_MAX ? mib_groups[mib] : NULL;
}

const char *
ust_drop_name(unsigned int reason)
{
	return reason < UST_DROP_MAX ? drop_names[reason] : NULL;
}

enum ust_drop_path
ust_drop_path(unsigned int reason)
{
	return reason < UST_DROP_MAX ? drop_paths[reason] : UST_DROP_PATH_RX;
}

int
ust_mib_lookup(const char *group_dot_name)
{
	const char *dot = strchr(group_dot_name, '.');
	unsigned int i;

	if (dot == NULL)
		return -1;
	for (i = 0; i < UST_MIB_MAX; i++)
		if (strlen(mib_groups[i]) == (size_t)(dot - group_dot_name) &&
		    strncmp(mib_groups[i], group_dot_name,
			    dot - group_dot_name) == 0 &&
		    strcmp(mib_names[i], dot + 1) == 0)
			return (int)i;
	return -1;
}

int
ust_drop_lookup(const char *name)
{
	unsigned int i;

	for (i = 0; i < UST_DROP_MAX; i++)
		if (strcmp(drop_names[i], name) == 0)
			return (int)i;
	return -1;
}

uint64_t
ust_stats_drops(const struct ust_stats *s, enum ust_drop_path path)
{
	uint64_t t = 0;
	unsigned int i;

	for (i = 0; i < UST_DROP_MAX; i++)
		if (drop_paths[i] == path)
			t += s->drop[i];
	return t;
}

void
ust_stats_add(struct ust_stats *dst, const struct ust_stats *src)
{
	unsigned int i;

	for (i = 0; i < UST_MIB_MAX; i++)
		dst->mib[i] += src->mib[i];
	for (i = 0; i < UST_DROP_MAX; i++)
		dst->drop[i] += src->drop[i];
	dst->rx_consumed += src->rx_consumed;
}
