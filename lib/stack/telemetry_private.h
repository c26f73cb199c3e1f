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

void ust_telemetry_register(struct ust_stack *stk);
void ust_telemetry_unregister(struct ust_stack *stk);

#endif /* UST_TELEMETRY_PRIVATE_H */
