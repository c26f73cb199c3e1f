/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 the ustack authors
 */

/* The unit-test harness: see ut.h. */

#include <stdarg.h>
#include <stdlib.h>

#include "ut.h"

int
ut_run(const char *suite, const struct ut_case *cases, size_t n)
{
	const char *only = getenv("UT_ONLY");
	size_t i, failed = 0, ran = 0;

	for (i = 0; i < n; i++) {
		int rc;

		if (only != NULL && strcmp(only, cases[i].name) != 0)
			continue;
		ran++;
		rc = cases[i].fn();
		printf("%s %s\n", rc == 0 ? "ok  " : "FAIL", cases[i].name);
		fflush(stdout);
		if (rc != 0)
			failed++;
	}
	printf("%s: %zu passed, %zu failed\n", suite, ran - failed, failed);
	return failed == 0 ? 0 : 1;
}


void
ut_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
