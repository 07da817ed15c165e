/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * check.h - PASS/FAIL lines of the test programs that check many cases in
 * one run (ext_verbs, xrc_verbs): a case collects the first reason it
 * failed with whyf(), then result() prints its line and counts failures.
 */
#ifndef SROCE_TESTS_CHECK_H
#define SROCE_TESTS_CHECK_H

#include <stdint.h>

extern int nfail;		/* FAIL lines printed so far */
extern char why[512];		/* the current case's first failure, or "" */

void result(const char *name, const char *detail);
__attribute__((format(printf, 1, 2)))
void whyf(const char *fmt, ...);
void check_u64(const void *p, uint64_t v, const char *what);

#endif
