/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/* The congestion control registry and the slow start they share. */

#include <string.h>

#include "tcp_cc.h"
#include "tcp_private.h"

static const struct ust_tcp_cc_ops *const cc_modules[] = {
	&ust_tcp_cc_cubic,
	&ust_tcp_cc_newreno,
};

const struct ust_tcp_cc_ops *
ust_tcp_cc_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(cc_modules); i++)
		if (strcmp(cc_modules[i]->name, name) == 0)
			return cc_modules[i];
	/* Linux's name for NewReno */
	if (strcmp(name, "reno") == 0)
		return &ust_tcp_cc_newreno;
	return NULL;
}

uint32_t
ust_tcp_cc_slow_start(struct ust_tcp_sock *tp, uint32_t acked)
{
	uint32_t inc = acked < 2u * tp->mss ? acked : 2u * tp->mss;
	uint32_t room = tp->ssthresh > tp->cwnd ? tp->ssthresh - tp->cwnd : 0;

	if (inc > room)
		inc = room;
	tp->cwnd += inc;
	return acked > inc ? acked - inc : 0;
}
