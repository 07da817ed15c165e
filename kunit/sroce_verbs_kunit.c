// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite sroce_verbs: per-device object limits (sroce_res_init(),
 * sroce_res_get(), sroce_res_put() in sroce_verbs.c) and the ring
 * occupancy that `rdma resource` dumps report (sroce_queue_used()).
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "sroce.h"
#include "sroce_queue.h"
#include "sroce_verbs.h"

static struct sroce_dev *sroce_verbs_test_dev(struct kunit *test)
{
	struct sroce_dev *dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, dev);
	return dev;
}

/* Wanted limits are clamped to SROCE_MAX_* of their type; 0 means that. */
static void sroce_res_init_test(struct kunit *test)
{
	static const struct {
		enum sroce_res_type type;
		unsigned int want;
		u32 max;
	} cases[] = {
		{ .type = SROCE_RES_PD, .want = 0, .max = SROCE_MAX_PD },
		{ .type = SROCE_RES_PD, .want = 1, .max = 1 },
		{ .type = SROCE_RES_PD, .want = 7, .max = 7 },
		{ .type = SROCE_RES_PD, .want = UINT_MAX, .max = SROCE_MAX_PD },
		{ .type = SROCE_RES_CQ, .want = SROCE_MAX_CQ, .max = SROCE_MAX_CQ },
		{ .type = SROCE_RES_CQ, .want = SROCE_MAX_CQ + 1,
		  .max = SROCE_MAX_CQ },
		{ .type = SROCE_RES_QP, .want = 2, .max = 2 },
		{ .type = SROCE_RES_QP, .want = 1U << 20, .max = SROCE_MAX_QP },
		{ .type = SROCE_RES_MR, .want = SROCE_MAX_PD + 1,
		  .max = SROCE_MAX_PD + 1 },
		{ .type = SROCE_RES_MR, .want = UINT_MAX, .max = SROCE_MAX_MR },
		{ .type = SROCE_RES_MR, .want = 0, .max = SROCE_MAX_MR },
		{ .type = SROCE_RES_AH, .want = 0, .max = SROCE_MAX_AH },
		{ .type = SROCE_RES_AH, .want = UINT_MAX, .max = SROCE_MAX_AH },
		{ .type = SROCE_RES_SRQ, .want = 0, .max = SROCE_MAX_SRQ },
		{ .type = SROCE_RES_SRQ, .want = 5, .max = 5 },
		{ .type = SROCE_RES_SRQ, .want = UINT_MAX, .max = SROCE_MAX_SRQ },
		{ .type = SROCE_RES_XRCD, .want = 0, .max = SROCE_MAX_XRCD },
		{ .type = SROCE_RES_XRCD, .want = 7, .max = 7 },
		{ .type = SROCE_RES_XRCD, .want = UINT_MAX,
		  .max = SROCE_MAX_XRCD },
	};
	struct sroce_dev *dev = sroce_verbs_test_dev(test);
	unsigned int want[SROCE_NUM_RES];
	unsigned int i, t;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		for (t = 0; t < SROCE_NUM_RES; t++)
			want[t] = 3;
		want[cases[i].type] = cases[i].want;
		sroce_res_init(dev, want);
		KUNIT_EXPECT_EQ_MSG(test, dev->res[cases[i].type].max,
				    cases[i].max, "type %d want %u",
				    cases[i].type, cases[i].want);
		KUNIT_EXPECT_EQ(test, atomic_read(&dev->res[cases[i].type].used),
				0);
	}
}

/*
 * A type holds at most its limit; a put frees one slot; types are
 * counted apart.
 */
static void sroce_res_get_put_test(struct kunit *test)
{
	static const unsigned int want[SROCE_NUM_RES] = {
		[SROCE_RES_PD] = 3, [SROCE_RES_CQ] = 1, [SROCE_RES_QP] = 2,
		[SROCE_RES_MR] = 4, [SROCE_RES_AH] = 1, [SROCE_RES_SRQ] = 2,
		[SROCE_RES_XRCD] = 3,
	};
	struct sroce_dev *dev = sroce_verbs_test_dev(test);
	unsigned int t, i;

	sroce_res_init(dev, want);
	for (t = 0; t < SROCE_NUM_RES; t++) {
		for (i = 0; i < want[t]; i++)
			KUNIT_EXPECT_EQ_MSG(test, sroce_res_get(dev, t), 0,
					    "type %u get %u", t, i);
		KUNIT_EXPECT_EQ_MSG(test, sroce_res_get(dev, t), -ENOMEM,
				    "type %u past its limit", t);
		KUNIT_EXPECT_EQ(test, atomic_read(&dev->res[t].used),
				(int)want[t]);
	}
	/* every type is full now; freeing one QP slot frees only that */
	sroce_res_put(dev, SROCE_RES_QP);
	KUNIT_EXPECT_EQ(test, sroce_res_get(dev, SROCE_RES_CQ), -ENOMEM);
	KUNIT_EXPECT_EQ(test, sroce_res_get(dev, SROCE_RES_QP), 0);
	KUNIT_EXPECT_EQ(test, sroce_res_get(dev, SROCE_RES_QP), -ENOMEM);

	for (t = 0; t < SROCE_NUM_RES; t++) {
		for (i = 0; i < want[t]; i++)
			sroce_res_put(dev, t);
		KUNIT_EXPECT_EQ(test, atomic_read(&dev->res[t].used), 0);
	}
}

/*
 * Occupancy follows the indices, wraps, and reads 0 once cleaned up; a
 * reader inside an RCU read-side section outlives the cleanup.
 */
static void sroce_queue_used_test(struct kunit *test)
{
	static const struct {
		u32 producer;
		u32 consumer;
		u32 used;
	} cases[] = {
		{ .producer = 0, .consumer = 0, .used = 0 },
		{ .producer = 5, .consumer = 2, .used = 3 },
		{ .producer = 2, .consumer = 0xfffffffe, .used = 4 },
		/* hostile: consumer ahead of producer, shown as it is */
		{ .producer = 0, .consumer = 1, .used = 0xffffffff },
	};
	struct sroce_dev *dev = sroce_verbs_test_dev(test);
	const struct sroce_queue_hdr *hdr;
	struct sroce_queue q;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, sroce_queue_init(dev, &q, 8, 48, NULL, NULL), 0);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		q.hdr->producer = cases[i].producer;
		q.hdr->consumer = cases[i].consumer;
		KUNIT_EXPECT_EQ_MSG(test, sroce_queue_used(&q), cases[i].used,
				    "producer %u consumer %u",
				    cases[i].producer, cases[i].consumer);
	}
	/*
	 * A reader that found the buffer before the cleanup may still read
	 * it: the buffer is freed only after a grace period.
	 */
	rcu_read_lock();
	hdr = READ_ONCE(q.hdr);
	sroce_queue_cleanup(&q);
	/* still mapped (a freed one has its PTEs cleared at once) */
	KUNIT_EXPECT_NOT_NULL(test, vmalloc_to_page(hdr));
	if (vmalloc_to_page(hdr))
		KUNIT_EXPECT_EQ(test, READ_ONCE(hdr->consumer), 1u);
	rcu_read_unlock();
	KUNIT_EXPECT_NULL(test, q.hdr);
	KUNIT_EXPECT_EQ(test, sroce_queue_used(&q), 0u);
}

static struct kunit_case sroce_verbs_cases[] = {
	KUNIT_CASE(sroce_res_init_test),
	KUNIT_CASE(sroce_res_get_put_test),
	KUNIT_CASE(sroce_queue_used_test),
	{}
};

static struct kunit_suite sroce_verbs_suite = {
	.name = "sroce_verbs",
	.test_cases = sroce_verbs_cases,
};

kunit_test_suite(sroce_verbs_suite);
