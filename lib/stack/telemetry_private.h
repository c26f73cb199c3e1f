/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/*
 * lib/stack's own: the stack object registers with telemetry on creation
 * and leaves it on destruction (telemetry.c). Not installed.
 */

#ifndef UST_TELEMETRY_PRIVATE_H
#define UST_TELEMETRY_PRIVATE_H

#include "stack_private.h"

/* ---- telemetry, lib/stack/telemetry.c ---- */

/* 0, or -EEXIST (a live stack or group has its name), -ENOSPC */
int ust_telemetry_register(struct ust_stack *stk);
void ust_telemetry_unregister(struct ust_stack *stk);

/* A group of sibling stacks (lib/group) as telemetry sees it: its name
 * and its stacks, owned by the group and registered for its lifetime;
 * /ustack/snmp,NAME and /ustack/drops,NAME then give the sums. */
struct ust_tel_group {
	const char *name;
	struct ust_stack *const *stks;
	uint16_t n;
};

/* 0, or -EEXIST (a live stack or group has its name), -ENOSPC */
int ust_telemetry_group_register(const struct ust_tel_group *g);
void ust_telemetry_group_unregister(const struct ust_tel_group *g);

#endif /* UST_TELEMETRY_PRIVATE_H */
