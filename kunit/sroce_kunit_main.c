// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_kunit: module of the sroce KUnit suites (kunit/sroce_*_kunit.c).
 * Each file registers its own suite with kunit_test_suite(); KUnit runs
 * them at boot when built in, or when this module is loaded.
 */
#include <linux/module.h>

MODULE_DESCRIPTION("KUnit tests for the sroce software RoCEv2 driver");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
