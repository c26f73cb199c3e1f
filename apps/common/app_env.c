/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * The apps' side of the environment (lib/env does the work): --nb-cores,
 * and ust_env_up()'s errors as the apps' one-line errors with exit status
 * 2, its findings as warnings.
 */

#include <errno.h>
#include <stdlib.h>

#include "app_common.h"

void
app_env_nb_cores(struct ust_env *env, const char *arg)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno != 0 || end == arg || *end != '\0' || v < 1 ||
	    v > UST_GROUP_MAX)
		app_usage_error(env->prog, "--nb-cores %s: a number of "
				"stacks from 1 to %u", arg, UST_GROUP_MAX);
	env->cfg.port.nb_queues = (uint16_t)v;
}

void
app_env_up(struct ust_env *env)
{
	char err[256];

	if (ust_env_up(env, err, sizeof(err)) != 0)
		app_usage_error(env->prog, "%s", err);
	/* after every check that may refuse the configuration (those are
	 * the one line on stderr) */
	if (env->no_secondary)
		fprintf(stderr, "%s: warning: no hugepages (--no-huge): no "
			"secondary process (dpdk-dumpcap, dpdk-proc-info) can "
			"attach\n", env->prog);
	else if (!env->pdump)
		fprintf(stderr, "%s: warning: capture unavailable: "
			"rte_pdump_init() failed\n", env->prog);
}

void
app_env_down(struct ust_env *env)
{
	ust_env_down(env);
}

unsigned int
app_env_in_use(const struct ust_env *env)
{
	return ust_env_in_use(env);
}
