// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite sroce_psn: 24-bit PSN serial number arithmetic (sroce_hdr.h,
 * IBTA 9.7.1) across the 2^24 wrap.
 */
#include <kunit/test.h>

#include "sroce_hdr.h"

struct sroce_psn_case {
	const char *name;
	u32 a;
	u32 b;
	s32 diff;	/* expected sroce_psn_diff(a, b) */
};

static const struct sroce_psn_case sroce_psn_cases[] = {
	{ "equal_zero", 0, 0, 0 },
	{ "equal_top", 0xffffff, 0xffffff, 0 },
	{ "one_after", 1, 0, 1 },
	{ "one_before", 0, 1, -1 },
	{ "wrap_after", 0, 0xffffff, 1 },
	{ "wrap_before", 0xffffff, 0, -1 },
	{ "wrap_after_far", 0x000010, 0xfffff0, 0x20 },
	{ "wrap_before_far", 0xfffff0, 0x000010, -0x20 },
	{ "half_minus_one", 0x7fffff, 0, 0x7fffff },
	/* exactly half the space apart: defined as "before" (-2^23) */
	{ "half", 0x800000, 0, -0x800000 },
	{ "half_rev", 0, 0x800000, -0x800000 },
	{ "half_plus_one", 0x800001, 0, -0x7fffff },
	{ "mid_after", 0x123456, 0x123400, 0x56 },
	{ "mid_before", 0x123400, 0x123456, -0x56 },
	/* bits above the 24-bit PSN (AckReq and reserved bits) are ignored */
	{ "high_bits_a", 0xff000005, 0x000003, 2 },
	{ "high_bits_b", 0x000003, 0x81000005, -2 },
	{ "high_bits_wrap", 0x80000000, 0x00ffffff, 1 },
};

static void sroce_psn_case_desc(const struct sroce_psn_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s a=%#x b=%#x", c->name, c->a,
		 c->b);
}

KUNIT_ARRAY_PARAM(sroce_psn, sroce_psn_cases, sroce_psn_case_desc);

static void sroce_psn_diff_test(struct kunit *test)
{
	const struct sroce_psn_case *c = test->param_value;
	s32 d = sroce_psn_diff(c->a, c->b);

	KUNIT_EXPECT_EQ(test, d, c->diff);
	KUNIT_EXPECT_GE(test, d, -0x800000);
	KUNIT_EXPECT_LT(test, d, 0x800000);
	KUNIT_EXPECT_EQ(test, sroce_psn_before(c->a, c->b), c->diff < 0);
	KUNIT_EXPECT_EQ(test, sroce_psn_after(c->a, c->b), c->diff > 0);
	/* before and after are exclusive; neither holds only for equal PSNs */
	KUNIT_EXPECT_FALSE(test,
			   sroce_psn_before(c->a, c->b) &&
			   sroce_psn_after(c->a, c->b));
	/* adding the difference to b lands on a (24 bits) */
	KUNIT_EXPECT_EQ(test, sroce_psn_add(c->b, (u32)c->diff),
			c->a & SROCE_PSN_MASK);
}

struct sroce_psn_add_case {
	u32 psn;
	u32 n;
	u32 sum;
};

static const struct sroce_psn_add_case sroce_psn_add_cases[] = {
	{ 0, 0, 0 },
	{ 0, 1, 1 },
	{ 0xfffffe, 1, 0xffffff },
	{ 0xffffff, 1, 0 },
	{ 0xffffff, 2, 1 },
	{ 0xfffff0, 0x20, 0x10 },
	{ 0x123456, 0x1000000, 0x123456 },	/* a full turn */
	{ 0x000005, 0xffffffff, 0x000004 },	/* n = -1 */
	{ 0xffffffff, 0, 0xffffff },		/* high bits of psn dropped */
	{ 0x800000, 0x800000, 0 },
};

static void sroce_psn_add_desc(const struct sroce_psn_add_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%#x+%#x", c->psn, c->n);
}

KUNIT_ARRAY_PARAM(sroce_psn_add, sroce_psn_add_cases, sroce_psn_add_desc);

static void sroce_psn_add_test(struct kunit *test)
{
	const struct sroce_psn_add_case *c = test->param_value;
	u32 sum = sroce_psn_add(c->psn, c->n);

	KUNIT_EXPECT_EQ(test, sum, c->sum);
	KUNIT_EXPECT_EQ(test, sum & ~SROCE_PSN_MASK, 0u);
}

/* Walk a window across the wrap: every step is "after" its predecessor. */
static void sroce_psn_window_test(struct kunit *test)
{
	u32 start = 0xffff00, psn = start, prev;
	int i;

	for (i = 1; i <= 0x200; i++) {
		prev = psn;
		psn = sroce_psn_add(psn, 1);
		KUNIT_ASSERT_TRUE(test, sroce_psn_after(psn, prev));
		KUNIT_ASSERT_TRUE(test, sroce_psn_before(prev, psn));
		KUNIT_ASSERT_EQ(test, sroce_psn_diff(psn, start), i);
		KUNIT_ASSERT_EQ(test, sroce_psn_diff(start, psn), -i);
	}
	KUNIT_EXPECT_EQ(test, psn, 0x000100u);
}

static struct kunit_case sroce_psn_test_cases[] = {
	KUNIT_CASE_PARAM(sroce_psn_diff_test, sroce_psn_gen_params),
	KUNIT_CASE_PARAM(sroce_psn_add_test, sroce_psn_add_gen_params),
	KUNIT_CASE(sroce_psn_window_test),
	{}
};

static struct kunit_suite sroce_psn_suite = {
	.name = "sroce_psn",
	.test_cases = sroce_psn_test_cases,
};

kunit_test_suite(sroce_psn_suite);
