// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite sroce_mr: memory region keys and lookup, the protection check
 * sroce_mr_check() (IBTA 10.6.3, 9.7.5.1.2: PD, access flags, bounds with
 * overflow near 2^64), SGE gather/scatter, which MRs a peer may invalidate
 * (IBTA 10.6.7) and deregistration while an engine still holds the MR
 * (sroce_mr.c, sroce_mr_rkey.c, sroce_mr_copy.c).
 *
 * The device and MRs are built in the test: a zeroed struct sroce_dev with
 * only its MR xarray set up, MRs registered through sroce_mr_init_dma()
 * (kernel memory, no pinning) or filled in by hand.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "sroce.h"
#include "sroce_compat.h"
#include "sroce_mr.h"
#include "sroce_verbs.h"

/* The end of a test: what device removal does for the MRs. */
static void sroce_mr_test_dev_drain(struct kunit_resource *res)
{
	sroce_mr_dev_drain(res->data);
}

/* A device with just what the MR code uses, drained when the test ends. */
static struct sroce_dev *sroce_mr_test_dev(struct kunit *test)
{
	struct sroce_dev *dev;

	dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	xa_init_flags(&dev->mr_xa, XA_FLAGS_ALLOC);
	sroce_mr_dev_init(dev);
	KUNIT_ASSERT_NOT_NULL(test,
			      kunit_alloc_resource(test, NULL,
						   sroce_mr_test_dev_drain,
						   GFP_KERNEL, dev));
	return dev;
}

/* A registered DMA MR (kmalloc'ed: sroce_mr_destroy() frees it). */
static struct sroce_mr *sroce_mr_test_dma(struct kunit *test,
					  struct sroce_dev *dev,
					  struct sroce_pd *pd, int access)
{
	struct sroce_mr *mr;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mr);
	if (sroce_mr_init_dma(dev, mr, pd, access)) {
		kfree(mr);
		KUNIT_FAIL(test, "sroce_mr_init_dma() failed");
		return NULL;
	}
	return mr;
}

/* Keys: lkey == rkey, index in the upper 24 bits (never 0), all distinct. */
static void sroce_mr_key_test(struct kunit *test)
{
	struct sroce_dev *dev = sroce_mr_test_dev(test);
	struct sroce_pd pd = {};
	struct sroce_mr *mr[16];
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(mr); i++) {
		mr[i] = sroce_mr_test_dma(test, dev, &pd,
					  IB_ACCESS_LOCAL_WRITE);
		KUNIT_ASSERT_NOT_NULL(test, mr[i]);
		KUNIT_EXPECT_EQ(test, mr[i]->ibmr.lkey, mr[i]->ibmr.rkey);
		KUNIT_EXPECT_NE(test, mr[i]->ibmr.lkey >> 8, 0u);
		KUNIT_EXPECT_TRUE(test, mr[i]->valid);
		KUNIT_EXPECT_PTR_EQ(test, mr[i]->pd, &pd);
		KUNIT_EXPECT_PTR_EQ(test, mr[i]->dev, dev);
		for (j = 0; j < i; j++) {
			KUNIT_EXPECT_NE(test, mr[i]->ibmr.lkey,
					mr[j]->ibmr.lkey);
			KUNIT_EXPECT_NE(test, mr[i]->ibmr.lkey >> 8,
					mr[j]->ibmr.lkey >> 8);
		}
	}
	for (i = 0; i < ARRAY_SIZE(mr); i++)
		sroce_mr_destroy(mr[i]);
	KUNIT_EXPECT_TRUE(test, xa_empty(&dev->mr_xa));
	xa_destroy(&dev->mr_xa);
}

/* Lookup by lkey and rkey; wrong key byte, index or a hostile key miss. */
/*
 * ibv_rereg_mr() keeps the keys: after sroce_mr_rereg_swap() a lookup of
 * the old MR's key finds the successor, never the old MR, and the
 * successor's own provisional key is gone.
 */
static void sroce_mr_rereg_swap_test(struct kunit *test)
{
	struct sroce_dev *dev = sroce_mr_test_dev(test);
	struct sroce_pd pd = {};
	struct sroce_mr *old, *mr, *found;
	u32 key, own;

	old = sroce_mr_test_dma(test, dev, &pd, IB_ACCESS_LOCAL_WRITE);
	mr = sroce_mr_test_dma(test, dev, &pd, IB_ACCESS_LOCAL_WRITE |
			       IB_ACCESS_REMOTE_WRITE);
	KUNIT_ASSERT_NOT_NULL(test, old);
	KUNIT_ASSERT_NOT_NULL(test, mr);
	key = old->ibmr.lkey;
	own = mr->ibmr.lkey;

	sroce_mr_rereg_swap(old, mr);
	KUNIT_EXPECT_EQ(test, mr->ibmr.lkey, key);
	KUNIT_EXPECT_EQ(test, mr->ibmr.rkey, key);
	KUNIT_EXPECT_FALSE(test, old->valid);
	found = sroce_mr_lookup(dev, key, true);
	KUNIT_EXPECT_PTR_EQ(test, found, mr);
	if (found)
		sroce_mr_put(found);
	KUNIT_EXPECT_NULL(test, sroce_mr_lookup(dev, own, false));

	sroce_mr_destroy(old);	/* leaves the slot to its successor */
	found = sroce_mr_lookup(dev, key, false);
	KUNIT_EXPECT_PTR_EQ(test, found, mr);
	if (found)
		sroce_mr_put(found);
	sroce_mr_destroy(mr);
	KUNIT_EXPECT_NULL(test, sroce_mr_lookup(dev, key, false));
}

static void sroce_mr_lookup_test(struct kunit *test)
{
	struct sroce_dev *dev = sroce_mr_test_dev(test);
	struct sroce_pd pd = {};
	struct sroce_mr *mr, *found;
	u32 key;

	mr = sroce_mr_test_dma(test, dev, &pd, IB_ACCESS_LOCAL_WRITE |
			       IB_ACCESS_REMOTE_READ);
	KUNIT_ASSERT_NOT_NULL(test, mr);
	key = mr->ibmr.lkey;

	found = sroce_mr_lookup(dev, key, false);
	KUNIT_EXPECT_PTR_EQ(test, found, mr);
	/* the lookup holds a reference until sroce_mr_put() */
	KUNIT_EXPECT_EQ(test, kref_read(&mr->ref), 2u);
	if (found)
		sroce_mr_put(found);
	KUNIT_EXPECT_EQ(test, kref_read(&mr->ref), 1u);

	found = sroce_mr_lookup(dev, key, true);
	KUNIT_EXPECT_PTR_EQ(test, found, mr);
	if (found)
		sroce_mr_put(found);

	KUNIT_EXPECT_NULL(test, sroce_mr_lookup(dev, key ^ 0x01, false));
	KUNIT_EXPECT_NULL(test, sroce_mr_lookup(dev, key ^ 0x80, true));
	KUNIT_EXPECT_NULL(test, sroce_mr_lookup(dev, key + 0x100, false));
	KUNIT_EXPECT_NULL(test, sroce_mr_lookup(dev, key & 0xff, false));
	KUNIT_EXPECT_NULL(test, sroce_mr_lookup(dev, 0, false));
	KUNIT_EXPECT_NULL(test, sroce_mr_lookup(dev, U32_MAX, true));

	/* an invalidated MR is not found */
	mr->valid = false;
	KUNIT_EXPECT_NULL(test, sroce_mr_lookup(dev, key, false));
	mr->valid = true;

	/*
	 * The key in effect is compared, not ibmr's keys, which the owner
	 * of a fast-register MR moves on ahead of its next IB_WR_REG_MR.
	 */
	mr->ibmr.lkey = key ^ 0x5a;
	mr->ibmr.rkey = key ^ 0x5a;
	KUNIT_EXPECT_NULL(test, sroce_mr_lookup(dev, key ^ 0x5a, true));
	KUNIT_EXPECT_NULL(test, sroce_mr_lookup(dev, key ^ 0x5a, false));
	found = sroce_mr_lookup(dev, key, true);
	KUNIT_EXPECT_PTR_EQ(test, found, mr);
	if (found)
		sroce_mr_put(found);
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;

	sroce_mr_destroy(mr);
	KUNIT_EXPECT_NULL(test, sroce_mr_lookup(dev, key, false));
	xa_destroy(&dev->mr_xa);
}

/* A stale key never finds the MR that reuses its index. */
static void sroce_mr_stale_key_test(struct kunit *test)
{
	struct sroce_dev *dev = sroce_mr_test_dev(test);
	struct sroce_pd pd = {};
	struct sroce_mr *mr, *found;
	u32 old_key, idx;

	mr = sroce_mr_test_dma(test, dev, &pd, IB_ACCESS_LOCAL_WRITE);
	KUNIT_ASSERT_NOT_NULL(test, mr);
	old_key = mr->ibmr.lkey;
	idx = old_key >> 8;
	sroce_mr_destroy(mr);

	/* make the cyclic allocator hand out the same index again */
	dev->next_mr_idx = idx;
	mr = sroce_mr_test_dma(test, dev, &pd, IB_ACCESS_LOCAL_WRITE);
	KUNIT_ASSERT_NOT_NULL(test, mr);
	KUNIT_EXPECT_EQ(test, mr->ibmr.lkey >> 8, idx);
	KUNIT_EXPECT_NE(test, mr->ibmr.lkey, old_key);
	KUNIT_EXPECT_NULL(test, sroce_mr_lookup(dev, old_key, false));
	KUNIT_EXPECT_NULL(test, sroce_mr_lookup(dev, old_key, true));
	found = sroce_mr_lookup(dev, mr->ibmr.lkey, false);
	KUNIT_EXPECT_PTR_EQ(test, found, mr);
	if (found)
		sroce_mr_put(found);
	sroce_mr_destroy(mr);
	xa_destroy(&dev->mr_xa);
}

/*
 * Key bytes are drawn at random, not counted: a peer that holds one key
 * cannot tell the next registrations' (the index of a key names its slot
 * and is no secret; the key byte is what an rkey guesser must find).
 * Between 64 registrations in a row no step between neighbours' key
 * bytes comes up more than a few times; a counter steps by the same
 * amount every time.
 */
static void sroce_mr_key_random_test(struct kunit *test)
{
	struct sroce_dev *dev = sroce_mr_test_dev(test);
	struct sroce_mr *mr[64];
	unsigned int steps[256] = {}, i, most = 0;
	struct sroce_pd pd = {};
	u8 step;

	for (i = 0; i < ARRAY_SIZE(mr); i++) {
		mr[i] = sroce_mr_test_dma(test, dev, &pd,
					  IB_ACCESS_LOCAL_WRITE);
		KUNIT_ASSERT_NOT_NULL(test, mr[i]);
		if (!i)
			continue;
		step = mr[i]->ibmr.lkey - mr[i - 1]->ibmr.lkey;
		most = max(most, ++steps[step]);
	}
	KUNIT_EXPECT_LT_MSG(test, most, 16U,
			    "%u of 63 steps between key bytes alike", most);
	for (i = 0; i < ARRAY_SIZE(mr); i++)
		sroce_mr_destroy(mr[i]);
	xa_destroy(&dev->mr_xa);
}

/* Registration refuses inconsistent access flags (IBTA C10-10). */
static void sroce_mr_register_access_test(struct kunit *test)
{
	static const struct {
		int access;
		int err;
	} cases[] = {
		{ 0, 0 },
		{ IB_ACCESS_LOCAL_WRITE, 0 },
		{ IB_ACCESS_REMOTE_READ, 0 },
		{ IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE, 0 },
		{ IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_ATOMIC, 0 },
		{ IB_ACCESS_REMOTE_WRITE, -EINVAL },
		{ IB_ACCESS_REMOTE_ATOMIC, -EINVAL },
		{ IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE, -EINVAL },
		{ IB_ACCESS_ON_DEMAND | IB_ACCESS_LOCAL_WRITE, -EOPNOTSUPP },
		{ IB_ACCESS_LOCAL_WRITE | (1 << 30), -EINVAL },
		/*
		 * FLUSH (annex A19.4): the global flush right where the
		 * kernel has it (6.2+); never the persistent one (no pmem)
		 */
		{ IB_ACCESS_REMOTE_READ | SROCE_ACCESS_FLUSH_GLOBAL,
		  SROCE_MR_ACCESS_FLUSH ? 0 : -EINVAL },
		{ IB_ACCESS_REMOTE_READ | SROCE_ACCESS_FLUSH_PERSISTENT,
		  -EINVAL },
	};
	struct sroce_dev *dev = sroce_mr_test_dev(test);
	struct sroce_pd pd = {};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct sroce_mr *mr = kzalloc(sizeof(*mr), GFP_KERNEL);
		int err;

		KUNIT_ASSERT_NOT_NULL(test, mr);
		err = sroce_mr_init_dma(dev, mr, &pd, cases[i].access);
		KUNIT_EXPECT_EQ_MSG(test, err, cases[i].err, "access %#x",
				    cases[i].access);
		if (err)
			kfree(mr);
		else
			sroce_mr_destroy(mr);
	}
	KUNIT_EXPECT_TRUE(test, xa_empty(&dev->mr_xa));
	xa_destroy(&dev->mr_xa);
}

/* ---- sroce_mr_check() on a hand-made MR ---- */

#define SROCE_MR_T_IOVA		0x10000ULL
#define SROCE_MR_T_LEN		0x3000ULL
#define SROCE_MR_T_TOP_IOVA	(U64_MAX - 0xffffULL)	/* ends at 2^64 - 1 */
#define SROCE_MR_T_TOP_LEN	0xffffULL

struct sroce_mr_check_case {
	const char *name;
	bool dma;		/* SROCE_MR_DMA over all memory */
	bool top;		/* user MR whose last byte is at 2^64 - 2 */
	bool invalid;		/* MR invalidated */
	bool other_pd;		/* access from another PD */
	int mr_access;
	u64 iova;
	u64 len;
	int access;		/* needed by the access */
	int err;
};

#define LW	IB_ACCESS_LOCAL_WRITE
#define RW	IB_ACCESS_REMOTE_WRITE
#define RR	IB_ACCESS_REMOTE_READ
#define RA	IB_ACCESS_REMOTE_ATOMIC
#define FG	SROCE_ACCESS_FLUSH_GLOBAL
#define FP	SROCE_ACCESS_FLUSH_PERSISTENT
#define BASE	SROCE_MR_T_IOVA
#define END	(SROCE_MR_T_IOVA + SROCE_MR_T_LEN)

static const struct sroce_mr_check_case sroce_mr_check_cases[] = {
	/* bounds */
	{ "whole", .mr_access = LW, .iova = BASE, .len = SROCE_MR_T_LEN },
	{ "first_byte", .mr_access = LW, .iova = BASE, .len = 1 },
	{ "last_byte", .mr_access = LW, .iova = END - 1, .len = 1 },
	{ "one_before", .mr_access = LW, .iova = BASE - 1, .len = 1,
	  .err = -EFAULT },
	{ "straddle_start", .mr_access = LW, .iova = BASE - 1, .len = 2,
	  .err = -EFAULT },
	{ "one_past", .mr_access = LW, .iova = END, .len = 1, .err = -EFAULT },
	{ "straddle_end", .mr_access = LW, .iova = END - 1, .len = 2,
	  .err = -EFAULT },
	{ "one_too_long", .mr_access = LW, .iova = BASE,
	  .len = SROCE_MR_T_LEN + 1, .err = -EFAULT },
	{ "zero_len_inside", .mr_access = LW, .iova = BASE + 5, .len = 0 },
	{ "zero_len_outside", .mr_access = LW, .iova = 0, .len = 0 },
	{ "zero_len_top", .mr_access = LW, .iova = U64_MAX, .len = 0 },
	{ "iova_zero", .mr_access = LW, .iova = 0, .len = 1, .err = -EFAULT },
	/* lengths that wrap around 2^64 */
	{ "len_max", .mr_access = LW, .iova = BASE, .len = U64_MAX,
	  .err = -EFAULT },
	{ "len_wraps_to_inside", .mr_access = LW, .iova = BASE + 0x100,
	  .len = U64_MAX - 0xff + 0x10, .err = -EFAULT },
	{ "len_wraps_to_zero", .mr_access = LW, .iova = BASE,
	  .len = 0 - BASE, .err = -EFAULT },
	{ "iova_max", .mr_access = LW, .iova = U64_MAX, .len = 1,
	  .err = -EFAULT },
	{ "top_whole", .top = true, .mr_access = LW,
	  .iova = SROCE_MR_T_TOP_IOVA, .len = SROCE_MR_T_TOP_LEN },
	{ "top_last_byte", .top = true, .mr_access = LW, .iova = U64_MAX - 1,
	  .len = 1 },
	{ "top_past", .top = true, .mr_access = LW, .iova = U64_MAX - 1,
	  .len = 2, .err = -EFAULT },
	{ "top_wrap", .top = true, .mr_access = LW, .iova = U64_MAX - 1,
	  .len = 3, .err = -EFAULT },
	{ "top_len_max", .top = true, .mr_access = LW,
	  .iova = SROCE_MR_T_TOP_IOVA, .len = U64_MAX, .err = -EFAULT },
	/* access flags */
	{ "local_read", .mr_access = 0, .iova = BASE, .len = 8 },
	{ "local_write_ok", .mr_access = LW, .iova = BASE, .len = 8,
	  .access = LW },
	{ "local_write_denied", .mr_access = RR, .iova = BASE, .len = 8,
	  .access = LW, .err = -EACCES },
	{ "remote_read_ok", .mr_access = RR, .iova = BASE, .len = 8,
	  .access = RR },
	{ "remote_read_denied", .mr_access = LW | RW, .iova = BASE, .len = 8,
	  .access = RR, .err = -EACCES },
	{ "remote_write_ok", .mr_access = LW | RW, .iova = BASE, .len = 8,
	  .access = RW },
	{ "remote_write_denied", .mr_access = LW | RR, .iova = BASE,
	  .len = 8, .access = RW, .err = -EACCES },
	{ "atomic_ok", .mr_access = LW | RA, .iova = BASE, .len = 8,
	  .access = RA },
	{ "atomic_denied", .mr_access = LW | RW | RR, .iova = BASE, .len = 8,
	  .access = RA, .err = -EACCES },
	{ "two_flags_one_missing", .mr_access = LW | RR, .iova = BASE,
	  .len = 8, .access = RR | RW, .err = -EACCES },
	{ "flags_checked_for_zero_len", .mr_access = RR, .iova = BASE,
	  .len = 0, .access = RW, .err = -EACCES },
	/* FLUSH rights (annex A19.4), level RANGE: inside; level MR: len 0 */
	{ "flush_global_range", .mr_access = RR | FG, .iova = BASE + 0x100,
	  .len = 0x200, .access = FG },
	{ "flush_global_range_past_end", .mr_access = RR | FG,
	  .iova = END - 0x100, .len = 0x200, .access = FG, .err = -EFAULT },
	{ "flush_global_mr_level", .mr_access = FG, .iova = 0, .len = 0,
	  .access = FG },
	{ "flush_global_denied", .mr_access = LW | RW | RR | RA, .iova = BASE,
	  .len = 8, .access = FG, .err = -EACCES },
	{ "flush_persistent_denied", .mr_access = RR | FG, .iova = BASE,
	  .len = 8, .access = FP, .err = -EACCES },
	{ "flush_both_one_missing", .mr_access = FG, .iova = BASE, .len = 0,
	  .access = FG | FP, .err = -EACCES },
	{ "flush_persistent_ok", .mr_access = FP, .iova = BASE, .len = 8,
	  .access = FP },
	/* PD and validity */
	{ "other_pd", .other_pd = true, .mr_access = LW, .iova = BASE,
	  .len = 8, .err = -EACCES },
	{ "other_pd_zero_len", .other_pd = true, .mr_access = LW,
	  .iova = BASE, .len = 0, .err = -EACCES },
	{ "invalidated", .invalid = true, .mr_access = LW, .iova = BASE,
	  .len = 8, .err = -EINVAL },
	/* DMA MR: all kernel memory, still no wrap-around */
	{ "dma_any", .dma = true, .mr_access = LW, .iova = 0x1234, .len = 8,
	  .access = LW },
	/* length U64_MAX: the last byte is 2^64 - 2 */
	{ "dma_below_top", .dma = true, .mr_access = LW, .iova = U64_MAX - 1,
	  .len = 1 },
	{ "dma_top", .dma = true, .mr_access = LW, .iova = U64_MAX, .len = 1,
	  .err = -EFAULT },
	{ "dma_wrap", .dma = true, .mr_access = LW, .iova = U64_MAX, .len = 2,
	  .err = -EFAULT },
	{ "dma_other_pd", .dma = true, .other_pd = true, .mr_access = LW,
	  .iova = 0x1234, .len = 8, .err = -EACCES },
};

#undef LW
#undef RW
#undef RR
#undef RA
#undef FG
#undef FP
#undef BASE
#undef END

static void sroce_mr_check_desc(const struct sroce_mr_check_case *c,
				char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sroce_mr_check, sroce_mr_check_cases, sroce_mr_check_desc);

static void sroce_mr_check_test(struct kunit *test)
{
	const struct sroce_mr_check_case *c = test->param_value;
	struct sroce_pd pd = {}, other = {};
	struct sroce_mr mr = {};

	mr.pd = &pd;
	mr.valid = !c->invalid;
	mr.access = c->mr_access;
	if (c->dma) {
		mr.type = SROCE_MR_DMA;
		mr.iova = 0;
		mr.length = U64_MAX;
	} else {
		mr.type = SROCE_MR_USER;
		mr.iova = c->top ? SROCE_MR_T_TOP_IOVA : SROCE_MR_T_IOVA;
		mr.length = c->top ? SROCE_MR_T_TOP_LEN : SROCE_MR_T_LEN;
	}
	kref_init(&mr.ref);

	KUNIT_EXPECT_EQ(test, sroce_mr_check(&mr, c->other_pd ? &other : &pd,
					     c->iova, c->len, c->access),
			c->err);
}

/* ---- gather and scatter through SGE lists over a DMA MR ---- */

static void sroce_mr_sge_copy_test(struct kunit *test)
{
	struct sroce_dev *dev = sroce_mr_test_dev(test);
	struct sroce_pd pd = {}, other = {};
	struct sroce_sge_cursor cur;
	struct sroce_sge sge[3];
	struct sroce_mr *mr;
	u8 *a, *b, *buf;
	unsigned int i;

	a = kunit_kzalloc(test, 64, GFP_KERNEL);
	b = kunit_kzalloc(test, 64, GFP_KERNEL);
	buf = kunit_kzalloc(test, 128, GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, a && b && buf);
	for (i = 0; i < 64; i++) {
		a[i] = i;
		b[i] = 0x80 + i;
	}
	mr = sroce_mr_test_dma(test, dev, &pd, IB_ACCESS_LOCAL_WRITE);
	KUNIT_ASSERT_NOT_NULL(test, mr);

	sge[0] = (struct sroce_sge){ (uintptr_t)a + 10, 20, mr->ibmr.lkey };
	sge[1] = (struct sroce_sge){ (uintptr_t)b, 0, mr->ibmr.lkey };
	sge[2] = (struct sroce_sge){ (uintptr_t)b + 4, 30, mr->ibmr.lkey };

	/* gather in two steps that split the first SGE */
	sroce_sge_cursor_init(&cur, sge, 3);
	KUNIT_EXPECT_EQ(test, sroce_sge_copy(dev, &pd, &cur, buf, 15,
					     SROCE_FROM_MR), 0);
	KUNIT_EXPECT_EQ(test, sroce_sge_copy(dev, &pd, &cur, buf + 15, 35,
					     SROCE_FROM_MR), 0);
	sroce_sge_cursor_release(&cur);
	KUNIT_EXPECT_EQ(test, memcmp(buf, a + 10, 20), 0);
	KUNIT_EXPECT_EQ(test, memcmp(buf + 20, b + 4, 30), 0);

	/* more than the list holds: IB_WC_LOC_LEN_ERR */
	sroce_sge_cursor_init(&cur, sge, 3);
	KUNIT_EXPECT_EQ(test, sroce_sge_copy(dev, &pd, &cur, buf, 51,
					     SROCE_FROM_MR), -EINVAL);
	sroce_sge_cursor_release(&cur);

	/* scatter */
	memset(buf, 0xee, 50);
	sroce_sge_cursor_init(&cur, sge, 3);
	KUNIT_EXPECT_EQ(test, sroce_sge_copy(dev, &pd, &cur, buf, 50,
					     SROCE_TO_MR), 0);
	sroce_sge_cursor_release(&cur);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(a + 10, 0xee, 20));
	KUNIT_EXPECT_EQ(test, a[9], 9);
	KUNIT_EXPECT_EQ(test, a[30], 30);
	KUNIT_EXPECT_EQ(test, b[3], 0x83);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(b + 4, 0xee, 30));
	KUNIT_EXPECT_EQ(test, b[34], 0x80 + 34);

	/* wrong PD, bad lkey */
	sroce_sge_cursor_init(&cur, sge, 1);
	KUNIT_EXPECT_EQ(test, sroce_sge_copy(dev, &other, &cur, buf, 4,
					     SROCE_FROM_MR), -EACCES);
	sroce_sge_cursor_release(&cur);
	sge[0].lkey ^= 0xff;
	sroce_sge_cursor_init(&cur, sge, 1);
	KUNIT_EXPECT_EQ(test, sroce_sge_copy(dev, &pd, &cur, buf, 4,
					     SROCE_FROM_MR), -EACCES);
	sroce_sge_cursor_release(&cur);
	/* every cursor let go of its reference */
	KUNIT_EXPECT_EQ(test, kref_read(&mr->ref), 1u);

	sroce_mr_destroy(mr);
	xa_destroy(&dev->mr_xa);
}

/* A receive into an MR without local write access is refused. */
static void sroce_mr_sge_no_write_test(struct kunit *test)
{
	struct sroce_dev *dev = sroce_mr_test_dev(test);
	struct sroce_pd pd = {};
	struct sroce_sge_cursor cur;
	struct sroce_sge sge;
	struct sroce_mr *mr;
	u8 *a, buf[8] = {};

	a = kunit_kzalloc(test, 8, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	mr = sroce_mr_test_dma(test, dev, &pd, IB_ACCESS_REMOTE_READ);
	KUNIT_ASSERT_NOT_NULL(test, mr);
	sge = (struct sroce_sge){ (uintptr_t)a, 8, mr->ibmr.lkey };

	sroce_sge_cursor_init(&cur, &sge, 1);
	KUNIT_EXPECT_EQ(test, sroce_sge_copy(dev, &pd, &cur, buf, 8,
					     SROCE_TO_MR), -EACCES);
	sroce_sge_cursor_release(&cur);
	sroce_sge_cursor_init(&cur, &sge, 1);
	KUNIT_EXPECT_EQ(test, sroce_sge_copy(dev, &pd, &cur, buf, 8,
					     SROCE_FROM_MR), 0);
	sroce_sge_cursor_release(&cur);
	sroce_mr_destroy(mr);
	xa_destroy(&dev->mr_xa);
}

/* ---- sroce_mr_peer_may_invalidate(): IBTA 10.6.7 ---- */

#define LW	IB_ACCESS_LOCAL_WRITE
#define RW	IB_ACCESS_REMOTE_WRITE
#define RR	IB_ACCESS_REMOTE_READ
#define RA	IB_ACCESS_REMOTE_ATOMIC

struct sroce_mr_inv_case {
	const char *name;
	enum sroce_mr_type type;
	int access;
	bool other_pd;		/* the Send with Invalidate came on another PD */
	bool ok;
};

static const struct sroce_mr_inv_case sroce_mr_inv_cases[] = {
	/* registered by its owner: only deregistration invalidates it */
	{ "user_local_write_only", .type = SROCE_MR_USER, .access = LW },
	{ "user_remote_write", .type = SROCE_MR_USER, .access = LW | RW },
	{ "user_remote_all", .type = SROCE_MR_USER,
	  .access = LW | RW | RR | RA },
	{ "user_remote_other_pd", .type = SROCE_MR_USER, .access = LW | RW,
	  .other_pd = true },
	/* a kernel PD's local_dma_lkey, and DMA MRs with remote access */
	{ "dma_local_dma_lkey", .type = SROCE_MR_DMA, .access = LW },
	{ "dma_remote_all", .type = SROCE_MR_DMA,
	  .access = LW | RW | RR | RA },
	{ "dma_remote_other_pd", .type = SROCE_MR_DMA, .access = LW | RR,
	  .other_pd = true },
	/* fast-register MRs with remote access, on the QP's PD (10.6.7) */
	{ "fast_remote_write", .type = SROCE_MR_FAST, .access = LW | RW,
	  .ok = true },
	{ "fast_remote_read", .type = SROCE_MR_FAST, .access = RR, .ok = true },
	{ "fast_remote_all", .type = SROCE_MR_FAST,
	  .access = LW | RW | RR | RA, .ok = true },
	{ "fast_local_only", .type = SROCE_MR_FAST, .access = LW },
	{ "fast_remote_other_pd", .type = SROCE_MR_FAST, .access = LW | RW,
	  .other_pd = true },
	/* no such type */
	{ "type_out_of_range", .type = (enum sroce_mr_type)42,
	  .access = LW | RW },
};

static void sroce_mr_inv_desc(const struct sroce_mr_inv_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sroce_mr_inv, sroce_mr_inv_cases, sroce_mr_inv_desc);

static void sroce_mr_peer_inv_test(struct kunit *test)
{
	const struct sroce_mr_inv_case *c = test->param_value;
	struct sroce_pd pd = {}, other = {};
	struct sroce_mr mr = {
		.type = c->type,
		.access = c->access,
		.pd = &pd,
		.valid = true,
	};

	KUNIT_EXPECT_EQ(test, sroce_mr_peer_may_invalidate(&mr, c->other_pd ?
							   &other : &pd),
			c->ok);
	/* the predicate only reads */
	KUNIT_EXPECT_TRUE(test, mr.valid);
}

/* ---- deregistration while an engine holds the MR ---- */

/*
 * An engine keeps an MR across packets (a WRITE whose peer went silent
 * after FIRST, a receive cursor): deregistration returns at once, the MR
 * can no longer be found or accessed through the held reference, and the
 * last put frees it on the device's work item.
 */
static void sroce_mr_dereg_held_test(struct kunit *test)
{
	struct sroce_dev *dev = sroce_mr_test_dev(test);
	struct sroce_pd pd = {};
	struct sroce_sge_cursor cur;
	struct sroce_mr *mr, *held;
	struct sroce_sge sge;
	u8 *a, buf[16];
	u32 key;

	a = kunit_kzalloc(test, sizeof(buf), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	memset(buf, 0xab, sizeof(buf));
	mr = sroce_mr_test_dma(test, dev, &pd, LW | RW);
	KUNIT_ASSERT_NOT_NULL(test, mr);
	key = mr->ibmr.lkey;

	/* a responder's message MR and a receive cursor mid-message */
	held = sroce_mr_lookup(dev, key, true);
	KUNIT_ASSERT_PTR_EQ(test, held, mr);
	sge = (struct sroce_sge){ (uintptr_t)a, sizeof(buf), key };
	sroce_sge_cursor_init(&cur, &sge, 1);
	KUNIT_EXPECT_EQ(test, sroce_sge_copy(dev, &pd, &cur, buf, 4,
					     SROCE_TO_MR), 0);
	KUNIT_EXPECT_PTR_EQ(test, cur.mr, mr);
	KUNIT_EXPECT_EQ(test, kref_read(&mr->ref), 3u);

	sroce_mr_destroy(mr);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->mr_zombies), 1);
	KUNIT_EXPECT_NULL(test, sroce_mr_lookup(dev, key, false));
	KUNIT_EXPECT_TRUE(test, xa_empty(&dev->mr_xa));

	/* the holders' next use fails and writes nothing */
	KUNIT_EXPECT_EQ(test, sroce_mr_copy(held, (uintptr_t)a + 8, buf, 8,
					    SROCE_TO_MR), -EINVAL);
	KUNIT_EXPECT_EQ(test, sroce_sge_copy(dev, &pd, &cur, buf, 4,
					     SROCE_TO_MR), -EACCES);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(a, 0xab, 4));
	KUNIT_EXPECT_TRUE(test, !memchr_inv(a + 4, 0, sizeof(buf) - 4));

	/* the last put frees it in process context */
	sroce_sge_cursor_release(&cur);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->mr_zombies), 1);
	sroce_mr_put(held);
	sroce_mr_dev_drain(dev);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->mr_zombies), 0);
	xa_destroy(&dev->mr_xa);
}

/* Without other references deregistration frees the MR itself. */
static void sroce_mr_dereg_unheld_test(struct kunit *test)
{
	struct sroce_dev *dev = sroce_mr_test_dev(test);
	struct sroce_pd pd = {};
	struct sroce_mr *mr;

	mr = sroce_mr_test_dma(test, dev, &pd, LW);
	KUNIT_ASSERT_NOT_NULL(test, mr);
	sroce_mr_destroy(mr);
	KUNIT_EXPECT_EQ(test, atomic_read(&dev->mr_zombies), 0);
	KUNIT_EXPECT_TRUE(test, llist_empty(&dev->mr_free));
	KUNIT_EXPECT_FALSE(test, work_pending(&dev->mr_free_work));
	xa_destroy(&dev->mr_xa);
}

#undef LW
#undef RW
#undef RR
#undef RA

/* Message length: at most 2^31 bytes, no 32-bit wrap-around. */
static void sroce_mr_sge_total_test(struct kunit *test)
{
	struct sroce_sge sge[SROCE_MAX_SGE] = {};
	u32 total = 0;
	unsigned int i;

	KUNIT_EXPECT_EQ(test, sroce_sge_total(sge, 0, &total), 0);
	KUNIT_EXPECT_EQ(test, total, 0u);

	sge[0].length = 100;
	sge[1].length = 28;
	KUNIT_EXPECT_EQ(test, sroce_sge_total(sge, 2, &total), 0);
	KUNIT_EXPECT_EQ(test, total, 128u);

	sge[0].length = SROCE_MAX_MSG_SIZE;
	KUNIT_EXPECT_EQ(test, sroce_sge_total(sge, 1, &total), 0);
	KUNIT_EXPECT_EQ(test, total, SROCE_MAX_MSG_SIZE);
	KUNIT_EXPECT_EQ(test, sroce_sge_total(sge, 2, &total), -EINVAL);

	/* sixteen entries of 2^32 - 1 wrap a u32 sum many times over */
	for (i = 0; i < SROCE_MAX_SGE; i++)
		sge[i].length = U32_MAX;
	KUNIT_EXPECT_EQ(test, sroce_sge_total(sge, SROCE_MAX_SGE, &total),
			-EINVAL);
	/* two halves that sum to exactly 2^32 (0 in 32 bits) */
	sge[0].length = 0x80000000U;
	sge[1].length = 0x80000000U;
	KUNIT_EXPECT_EQ(test, sroce_sge_total(sge, 2, &total), -EINVAL);
}

/* ---- sroce_mr_atomic(): executed whole, or not at all (IBTA 9.4.5) ---- */

struct sroce_mr_atomic_case {
	const char *name;
	bool invalid;		/* MR deregistered since its check */
	bool cswap;		/* COMPARE_SWAP, else FETCH_ADD */
	u64 comp;
	int err;
	u64 orig;		/* expected @orig (when err == 0) */
	u64 after;		/* the target afterwards */
};

#define SROCE_MR_T_ATOM 0x1000000000000005ULL

static const struct sroce_mr_atomic_case sroce_mr_atomic_cases[] = {
	{ "fetch_add", .orig = SROCE_MR_T_ATOM,
	  .after = SROCE_MR_T_ATOM + 0x10 },
	{ "cswap_equal", .cswap = true, .comp = SROCE_MR_T_ATOM,
	  .orig = SROCE_MR_T_ATOM, .after = 0x10 },
	{ "cswap_differs", .cswap = true, .comp = 0,
	  .orig = SROCE_MR_T_ATOM, .after = SROCE_MR_T_ATOM },
	{ "fetch_add_deregistered", .invalid = true, .err = -EINVAL,
	  .orig = 0x77, .after = SROCE_MR_T_ATOM },
	{ "cswap_deregistered", .invalid = true, .cswap = true, .comp = 0,
	  .err = -EINVAL, .orig = 0x77, .after = SROCE_MR_T_ATOM },
};

static void sroce_mr_atomic_desc(const struct sroce_mr_atomic_case *c,
				 char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sroce_mr_atomic, sroce_mr_atomic_cases, sroce_mr_atomic_desc);

static void sroce_mr_atomic_test(struct kunit *test)
{
	const struct sroce_mr_atomic_case *c = test->param_value;
	struct sroce_mr mr = { .type = SROCE_MR_DMA, .length = U64_MAX };
	u64 target = SROCE_MR_T_ATOM, orig = 0x77;

	mr.valid = !c->invalid;
	kref_init(&mr.ref);
	KUNIT_EXPECT_EQ(test, sroce_mr_atomic(&mr, (uintptr_t)&target,
					      c->cswap, 0x10, c->comp, &orig),
			c->err);
	KUNIT_EXPECT_EQ(test, orig, c->orig);
	KUNIT_EXPECT_EQ(test, target, c->after);
}

/* Re-registration keeps what its flags leave unchanged. */
struct sroce_mr_rereg_case {
	const char *name;
	int flags;
	struct sroce_mr_reg want;	/* with the MR below and the input */
};

/* The MR: user address 0x7000, 0x3000 bytes at iova 0x9000, local write. */
#define SROCE_RR_OLD	{ .start = 0x7000, .length = 0x3000, .iova = 0x9000, \
			  .access = IB_ACCESS_LOCAL_WRITE }
/* What the caller passes: a new range and remote read. */
#define SROCE_RR_NEW	{ .start = 0x20000, .length = 0x1000, .iova = 0x20000, \
			  .access = IB_ACCESS_REMOTE_READ }

static const struct sroce_mr_rereg_case sroce_mr_rereg_cases[] = {
	{ .name = "pd_only", .flags = IB_MR_REREG_PD, .want = SROCE_RR_OLD },
	{ .name = "translation", .flags = IB_MR_REREG_TRANS,
	  .want = { .start = 0x20000, .length = 0x1000, .iova = 0x20000,
		    .access = IB_ACCESS_LOCAL_WRITE } },
	{ .name = "access", .flags = IB_MR_REREG_ACCESS,
	  .want = { .start = 0x7000, .length = 0x3000, .iova = 0x9000,
		    .access = IB_ACCESS_REMOTE_READ } },
	{ .name = "all", .flags = IB_MR_REREG_TRANS | IB_MR_REREG_PD |
				  IB_MR_REREG_ACCESS, .want = SROCE_RR_NEW },
};

static void sroce_mr_rereg_desc(const struct sroce_mr_rereg_case *c,
				char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(sroce_mr_rereg, sroce_mr_rereg_cases, sroce_mr_rereg_desc);

static void sroce_mr_rereg_attrs_test(struct kunit *test)
{
	const struct sroce_mr_rereg_case *c = test->param_value;
	struct sroce_mr_reg reg = SROCE_RR_NEW;
	struct ib_umem *umem;
	struct sroce_mr *mr;

	mr = kunit_kzalloc(test, sizeof(*mr), GFP_KERNEL);
	umem = kunit_kzalloc(test, sizeof(*umem), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mr);
	KUNIT_ASSERT_NOT_NULL(test, umem);
	umem->address = 0x7000;
	mr->umem = umem;
	mr->type = SROCE_MR_USER;
	mr->length = 0x3000;
	mr->iova = 0x9000;
	mr->access = IB_ACCESS_LOCAL_WRITE;

	sroce_mr_rereg_attrs(mr, c->flags, &reg);
	KUNIT_EXPECT_EQ(test, reg.start, c->want.start);
	KUNIT_EXPECT_EQ(test, reg.length, c->want.length);
	KUNIT_EXPECT_EQ(test, reg.iova, c->want.iova);
	KUNIT_EXPECT_EQ(test, reg.access, c->want.access);
}

static struct kunit_case sroce_mr_test_cases[] = {
	KUNIT_CASE(sroce_mr_key_test),
	KUNIT_CASE_PARAM(sroce_mr_rereg_attrs_test, sroce_mr_rereg_gen_params),
	KUNIT_CASE(sroce_mr_lookup_test),
	KUNIT_CASE(sroce_mr_key_random_test),
	KUNIT_CASE(sroce_mr_rereg_swap_test),
	KUNIT_CASE(sroce_mr_stale_key_test),
	KUNIT_CASE(sroce_mr_register_access_test),
	KUNIT_CASE_PARAM(sroce_mr_check_test, sroce_mr_check_gen_params),
	KUNIT_CASE(sroce_mr_sge_copy_test),
	KUNIT_CASE(sroce_mr_sge_no_write_test),
	KUNIT_CASE(sroce_mr_sge_total_test),
	KUNIT_CASE_PARAM(sroce_mr_peer_inv_test, sroce_mr_inv_gen_params),
	KUNIT_CASE(sroce_mr_dereg_held_test),
	KUNIT_CASE(sroce_mr_dereg_unheld_test),
	KUNIT_CASE_PARAM(sroce_mr_atomic_test, sroce_mr_atomic_gen_params),
	{}
};

static struct kunit_suite sroce_mr_suite = {
	.name = "sroce_mr",
	.test_cases = sroce_mr_test_cases,
};

kunit_test_suite(sroce_mr_suite);
