/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/* The EAL side of the unit-test harness: see ut.h. */

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "ut.h"

int
ut_eal_init(const char *prog, const char *lcores)
{
	char prefix[64];
	char *argv[] = {
		/* "0-1" is a list of lcores; "0@0,1@1,2@0" maps lcores to
		 * CPUs (--lcores), so that a test may run more lcores than
		 * the machine has CPUs */
		(char *)prog,
		(char *)(strchr(lcores, '@') != NULL ? "--lcores" : "-l"),
		(char *)lcores, (char *)"--no-huge",
		(char *)"-m", (char *)"512", (char *)"--no-pci",
		(char *)"--no-shconf", (char *)"--no-telemetry", (char *)"--log-level=lib.eal:error",
		(char *)"--file-prefix", prefix, NULL,
	};

	snprintf(prefix, sizeof(prefix), "ut%d", (int)getpid());
	if (rte_eal_init((int)(sizeof(argv) / sizeof(argv[0])) - 1, argv) < 0) {
		fprintf(stderr, "EAL initialisation failed\n");
		return -1;
	}
	return 0;
}

struct rte_mempool *
ut_pool(const char *name, unsigned int n)
{
	return rte_pktmbuf_pool_create(name, n, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE,
				       (int)rte_socket_id());
}

int
ut_leak_check(struct rte_mempool *mp)
{
	unsigned int in_use = rte_mempool_in_use_count(mp);

	if (in_use != 0) {
		fprintf(stderr, "  leak: %u mbufs of %s still in use\n",
			in_use, mp->name);
		return -1;
	}
	return 0;
}
