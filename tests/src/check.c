// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* check.c - see check.h */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

int nfail;
char why[512];

/* "FAIL name: why" or "PASS name (detail)"; starts the next case. */
void result(const char *name, const char *detail)
{
	if (why[0]) {
		printf("FAIL %s: %s\n", name, why);
		nfail++;
	} else {
		printf("PASS %s (%s)\n", name, detail);
	}
	fflush(stdout);
	why[0] = 0;
}

/* Record why the current case failed; the first reason counts. */
void whyf(const char *fmt, ...)
{
	va_list ap;

	if (why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
}

/* The 8 bytes at @p (any alignment) must hold @v. */
void check_u64(const void *p, uint64_t v, const char *what)
{
	uint64_t got;

	memcpy(&got, p, 8);
	if (got != v)
		whyf("%s: %#llx, want %#llx", what, (unsigned long long)got,
		     (unsigned long long)v);
}
