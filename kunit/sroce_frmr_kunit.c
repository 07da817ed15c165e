// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite sroce_mr_fast: fast-register MRs (sroce_mr_fast.c, IBTA
 * 10.6.3.6-7).
 *   - sroce_mr_map_sg(): the page list ib_sg_to_pages() builds from a
 *     DMA-mapped scatterlist (with the core's virtual DMA a DMA address is
 *     a kernel virtual address): first-page offsets, partial last pages,
 *     contiguous entries merged, gaps ending the mapping, page sizes, the
 *     max_num_sg limit; then the registration copies to the bytes the
 *     list names.
 *   - IB_WR_REG_MR and IB_WR_LOCAL_INV (sroce_mr_fast_reg(),
 *     sroce_mr_local_inv()): only the key byte changes, the MR must be
 *     invalid to be registered and unreferenced by engines, PD and access
 *     rules, keys in effect for lookups.
 * The remote invalidation rows are in the sroce_mr suite
 * (sroce_mr_peer_may_invalidate()).
 */
#include <kunit/test.h>
#include <linux/gfp.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "sroce.h"
#include "sroce_mr.h"
#include "sroce_verbs.h"

#define SZ	PAGE_SIZE
#define LW	IB_ACCESS_LOCAL_WRITE
#define RW	IB_ACCESS_REMOTE_WRITE
#define RR	IB_ACCESS_REMOTE_READ
/* a 64 KiB buffer: 16 pages, 64 KiB aligned (kmalloc of a power of 2) */
#define FR_BUF		(16 * SZ)

struct sroce_fr_fix {
	struct sroce_dev *dev;
	struct sroce_pd pd;
	struct sroce_mr *mr;
	u8 *buf;
};

/* A device with an MR xarray, a PD and one fast-register MR. */
static struct sroce_fr_fix *sroce_fr_fix(struct kunit *test, u32 max_num_sg)
{
	struct sroce_fr_fix *f;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	f->dev = kunit_kzalloc(test, sizeof(*f->dev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->dev);
	xa_init_flags(&f->dev->mr_xa, XA_FLAGS_ALLOC1);
	sroce_mr_dev_init(f->dev);
	f->buf = kunit_kzalloc(test, FR_BUF, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->buf);
	KUNIT_ASSERT_TRUE(test, IS_ALIGNED((uintptr_t)f->buf, FR_BUF));
	f->mr = kzalloc(sizeof(*f->mr), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->mr);
	if (sroce_mr_init_fast(f->dev, f->mr, &f->pd, max_num_sg)) {
		kfree(f->mr);
		KUNIT_FAIL(test, "sroce_mr_init_fast() failed");
		f->mr = NULL;
	}
	return f;
}

static void sroce_fr_fix_done(struct sroce_fr_fix *f)
{
	if (f->mr)
		sroce_mr_destroy(f->mr);
	sroce_mr_dev_drain(f->dev);
}

/* One scatterlist entry: offset into the buffer and length. */
struct sroce_fr_seg {
	u32 off;
	u32 len;
};

/**
 * struct sroce_fr_map_case - one ib_map_mr_sg() call
 * @name: what it checks
 * @seg: the entries (DMA address = buffer + @seg.off)
 * @nseg: entries in @seg
 * @page_size: ibmr.page_size (0: PAGE_SIZE)
 * @sg_offset: bytes skipped in the first entry
 * @max_num_sg: the MR's limit (0: 16)
 * @ret: what sroce_mr_map_sg() returns (entries mapped, or -errno)
 * @npages: blocks in the staged list
 * @first: buffer offset of the first block
 * @iova_off: buffer offset of ibmr.iova
 * @length: ibmr.length
 * @last_off: buffer offset of the last byte mapped (0: @iova_off +
 *	@length - 1, the mapping being contiguous)
 */
struct sroce_fr_map_case {
	const char *name;
	struct sroce_fr_seg seg[4];
	int nseg;
	u32 page_size;
	u32 sg_offset;
	u32 max_num_sg;
	int ret;
	u32 npages;
	u32 first;
	u32 iova_off;
	u64 length;
	u32 last_off;
};

static const struct sroce_fr_map_case sroce_fr_map_cases[] = {
	{ "one_page", .seg = { { 0, SZ } }, .nseg = 1, .ret = 1,
	  .npages = 1, .length = SZ },
	{ "first_offset", .seg = { { 100, SZ - 100 }, { SZ, 2 * SZ } },
	  .nseg = 2, .ret = 2, .npages = 3, .iova_off = 100,
	  .length = 3 * SZ - 100 },
	{ "offset_and_short", .seg = { { 3 * SZ + 7, 10 } }, .nseg = 1,
	  .ret = 1, .npages = 1, .first = 3 * SZ, .iova_off = 3 * SZ + 7,
	  .length = 10 },
	{ "last_partial", .seg = { { 0, SZ }, { SZ, 100 } }, .nseg = 2,
	  .ret = 2, .npages = 2, .length = SZ + 100 },
	{ "contiguous_merged", .seg = { { 0, SZ / 2 }, { SZ / 2, SZ } },
	  .nseg = 2, .ret = 2, .npages = 2, .length = SZ + SZ / 2 },
	{ "sg_offset", .seg = { { 0, 2 * SZ } }, .nseg = 1, .sg_offset = 512,
	  .ret = 1, .npages = 2, .iova_off = 512, .length = 2 * SZ - 512 },
	/* a gap ends the mapping; the caller maps the rest in another MR */
	{ "gap_unaligned_start", .seg = { { 0, SZ }, { 2 * SZ + 8, 100 } },
	  .nseg = 2, .ret = 1, .npages = 1, .length = SZ },
	{ "gap_short_first", .seg = { { 0, 100 }, { SZ, SZ } }, .nseg = 2,
	  .ret = 1, .npages = 1, .length = 100 },
	{ "gap_after_two", .seg = { { 0, SZ }, { 4 * SZ, SZ },
				    { 6 * SZ + 1, SZ } },
	  .nseg = 3, .ret = 2, .npages = 2, .length = 2 * SZ,
	  .last_off = 5 * SZ - 1 },
	/* larger blocks: the offset is taken within the block */
	{ "page_8k", .seg = { { SZ + 10, 3 * SZ - 10 } }, .nseg = 1,
	  .page_size = 2 * SZ, .ret = 1, .npages = 2, .iova_off = SZ + 10,
	  .length = 3 * SZ - 10 },
	{ "page_64k", .seg = { { 0, FR_BUF } }, .nseg = 1,
	  .page_size = FR_BUF, .ret = 1, .npages = 1, .length = FR_BUF },
	/* page sizes outside page_size_cap */
	{ "page_size_12k", .seg = { { 0, SZ } }, .nseg = 1,
	  .page_size = 3 * SZ, .ret = -EINVAL },
	{ "page_size_2k", .seg = { { 0, SZ } }, .nseg = 1, .page_size = 2048,
	  .ret = -EINVAL },
	{ "page_size_4m", .seg = { { 0, SZ } }, .nseg = 1,
	  .page_size = 4 << 20, .ret = -EINVAL },
	/*
	 * max_num_sg: the list never grows past it; inside the first entry
	 * ib_sg_to_pages() counts the length up to the last block it set
	 * and reports 0 entries mapped
	 */
	{ "max_num_sg_exact", .seg = { { 0, 2 * SZ } }, .nseg = 1,
	  .max_num_sg = 2, .ret = 1, .npages = 2, .length = 2 * SZ },
	{ "max_num_sg_second_entry", .seg = { { 0, 2 * SZ }, { 2 * SZ, SZ } },
	  .nseg = 2, .max_num_sg = 2, .ret = 1, .npages = 2,
	  .length = 2 * SZ },
	{ "max_num_sg_first_entry", .seg = { { 0, 3 * SZ } }, .nseg = 1,
	  .max_num_sg = 2, .ret = 0, .npages = 2, .length = SZ },
};

static void sroce_fr_map_desc(const struct sroce_fr_map_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sroce_fr_map, sroce_fr_map_cases, sroce_fr_map_desc);

/* Map @c's entries of @f's buffer: what sroce_mr_map_sg() returns. */
static int sroce_fr_map(struct sroce_fr_fix *f,
			const struct sroce_fr_map_case *c)
{
	struct scatterlist sg[4];
	unsigned int off = c->sg_offset;
	int i;

	sg_init_table(sg, c->nseg);
	for (i = 0; i < c->nseg; i++) {
		sg_set_buf(&sg[i], f->buf + c->seg[i].off, c->seg[i].len);
		sg_dma_address(&sg[i]) = (uintptr_t)(f->buf + c->seg[i].off);
		sg_dma_len(&sg[i]) = c->seg[i].len;
	}
	f->mr->ibmr.page_size = c->page_size ?: SZ;
	return sroce_mr_map_sg(f->mr, sg, c->nseg, &off);
}

/*
 * After a successful mapping: register it and write a byte through the MR
 * at its first and last iova; both land where the list says.
 */
static void sroce_fr_map_check_copy(struct kunit *test, struct sroce_fr_fix *f,
				    const struct sroce_fr_map_case *c)
{
	u32 key = (f->mr->key & ~0xffU) | ((f->mr->key + 1) & 0xff);
	u64 iova = f->mr->ibmr.iova, last = iova + f->mr->ibmr.length - 1;
	u32 last_off = c->last_off ?: c->iova_off + c->length - 1;
	u8 a = 0xa5, b = 0x5a;

	KUNIT_ASSERT_EQ(test, sroce_mr_fast_reg(f->dev, &f->pd, f->mr, key,
						LW), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_copy(f->mr, iova, &a, 1, SROCE_TO_MR),
			0);
	KUNIT_EXPECT_EQ(test, sroce_mr_copy(f->mr, last, &b, 1, SROCE_TO_MR),
			0);
	KUNIT_EXPECT_EQ(test, f->buf[c->iova_off], a);
	KUNIT_EXPECT_EQ(test, f->buf[last_off], b);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(f->mr, &f->pd, iova,
					     f->mr->ibmr.length, LW), 0);
	KUNIT_EXPECT_EQ(test, sroce_mr_check(f->mr, &f->pd, iova,
					     f->mr->ibmr.length + 1, LW),
			-EFAULT);
}

static void sroce_fr_map_test(struct kunit *test)
{
	const struct sroce_fr_map_case *c = test->param_value;
	struct sroce_fr_fix *f = sroce_fr_fix(test, c->max_num_sg ?: 16);
	u32 psize = c->page_size ?: SZ;
	u32 i;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, f->mr);
	ret = sroce_fr_map(f, c);
	KUNIT_EXPECT_EQ(test, ret, c->ret);
	if (c->ret >= 0) {
		KUNIT_EXPECT_EQ(test, f->mr->fr.nstage, c->npages);
		KUNIT_EXPECT_EQ(test, f->mr->ibmr.length, c->length);
		KUNIT_EXPECT_EQ(test, f->mr->ibmr.iova,
				(u64)(uintptr_t)(f->buf + c->iova_off));
		KUNIT_EXPECT_EQ(test, f->mr->fr.stage_off,
				(c->iova_off - c->first) & (psize - 1));
		for (i = 0; i < min(f->mr->fr.nstage, c->npages); i++)
			KUNIT_EXPECT_EQ_MSG(test, f->mr->fr.stage[i] % psize,
					    0ULL, "block %u unaligned", i);
		if (c->npages)
			KUNIT_EXPECT_EQ(test, f->mr->fr.stage[0],
					(u64)(uintptr_t)(f->buf + c->first));
	}
	if (c->ret > 0 && c->length)
		sroce_fr_map_check_copy(test, f, c);
	sroce_fr_fix_done(f);
}

/* max_num_sg beyond max_fast_reg_page_list_len, or 0, is refused. */
static void sroce_fr_alloc_limits_test(struct kunit *test)
{
	static const u32 bad[] = { 0, SROCE_FR_MAX_PAGES + 1, U32_MAX };
	struct sroce_fr_fix *f = sroce_fr_fix(test, SROCE_FR_MAX_PAGES);
	struct sroce_mr *mr;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, f->mr);
	/* a fresh fast-register MR is published but invalid */
	KUNIT_EXPECT_FALSE(test, f->mr->valid);
	KUNIT_EXPECT_NULL(test, sroce_mr_lookup(f->dev, f->mr->key, true));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		mr = kzalloc(sizeof(*mr), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, mr);
		KUNIT_EXPECT_EQ_MSG(test, sroce_mr_init_fast(f->dev, mr, &f->pd,
							     bad[i]),
				    -EINVAL, "max_num_sg %u", bad[i]);
		kfree(mr);
	}
	sroce_fr_fix_done(f);
}

/* ---- IB_WR_REG_MR and IB_WR_LOCAL_INV ---- */

enum sroce_fr_op { FR_REG, FR_INV };

/**
 * struct sroce_fr_key_case - one REG_MR or LOCAL_INV on a mapped MR
 * @name: what it checks
 * @op: FR_REG or FR_INV
 * @valid: the MR is registered (with key byte +1) before the operation
 * @key_delta: how far the WR's key is from the right one (the low byte
 *	wraps, 0x100 is the next index; REG: from the key in effect + 1,
 *	INV: from the key in effect)
 * @same_byte: REG_MR keeps the key byte in effect
 * @other_pd: the QP is on another PD
 * @other_mr: REG_MR names another fast-register MR with this key's index
 * @dma_key: LOCAL_INV names a DMA MR's key
 * @held: an engine still holds the MR (a reference besides the base one,
 *	and a hold: sroce_mr_hold())
 * @lookup: a lookup holds a reference for the while (a transient one,
 *	e.g. another QP's bind or invalidate naming the key's index)
 * @long_len: ibmr.length longer than the page list maps
 * @unmapped: ib_map_mr_sg() was never called
 * @access: REG_MR's access flags
 * @err: the expected return
 * @valid_after: the MR is valid afterwards
 */
struct sroce_fr_key_case {
	const char *name;
	enum sroce_fr_op op;
	bool valid;
	u32 key_delta;
	bool same_byte;
	bool other_pd;
	bool other_mr;
	bool dma_key;
	bool held;
	bool lookup;
	bool long_len;
	bool unmapped;
	int access;
	int err;
	bool valid_after;
};

static const struct sroce_fr_key_case sroce_fr_key_cases[] = {
	{ "reg_ok", FR_REG, .access = LW | RW | RR, .valid_after = true },
	{ "reg_local_only", FR_REG, .access = 0, .valid_after = true },
	{ "reg_same_byte", FR_REG, .same_byte = true, .access = LW,
	  .valid_after = true },
	/* the MR must be invalid: a registered MR is not registered over */
	{ "reg_valid_mr", FR_REG, .valid = true, .access = LW,
	  .err = -EINVAL, .valid_after = true },
	/* only the key byte may change (the index names the MR) */
	{ "reg_other_index", FR_REG, .key_delta = 0x100, .access = LW,
	  .err = -EINVAL },
	{ "reg_other_mr", FR_REG, .other_mr = true, .access = LW,
	  .err = -EINVAL },
	{ "reg_other_pd", FR_REG, .other_pd = true, .access = LW,
	  .err = -EACCES },
	/* IBTA C10-10: remote write needs local write */
	{ "reg_remote_write_no_local", FR_REG, .access = RW, .err = -EINVAL },
	{ "reg_on_demand", FR_REG, .access = LW | IB_ACCESS_ON_DEMAND,
	  .err = -EOPNOTSUPP },
	{ "reg_held_by_engine", FR_REG, .held = true, .access = LW,
	  .err = -EINVAL },
	/* only engines that keep the MR across packets hold it off */
	{ "reg_lookup_reference", FR_REG, .lookup = true, .access = LW,
	  .valid_after = true },
	{ "reg_length_past_list", FR_REG, .long_len = true, .access = LW,
	  .err = -EINVAL },
	{ "reg_unmapped", FR_REG, .unmapped = true, .access = LW,
	  .err = -EINVAL },
	{ "inv_ok", FR_INV, .valid = true },
	{ "inv_invalid_again", FR_INV },
	{ "inv_stale_key", FR_INV, .valid = true, .key_delta = 0xff,
	  .err = -EINVAL, .valid_after = true },
	{ "inv_other_index", FR_INV, .valid = true, .key_delta = 0x100,
	  .err = -EINVAL, .valid_after = true },
	/* another PD's MR is none of the QP's: as for a wrong key */
	{ "inv_other_pd", FR_INV, .valid = true, .other_pd = true,
	  .err = -EINVAL, .valid_after = true },
	/* an MR registered by its owner is not a fast-register MR */
	{ "inv_dma_mr", FR_INV, .valid = true, .dma_key = true,
	  .err = -EINVAL, .valid_after = true },
};

static void sroce_fr_key_desc(const struct sroce_fr_key_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sroce_fr_key, sroce_fr_key_cases, sroce_fr_key_desc);

static const struct sroce_fr_map_case sroce_fr_two_pages = {
	.seg = { { 0, 2 * SZ } }, .nseg = 1,
};

/* @key moved on by @n: the low byte wraps, what is above moves the index. */
static u32 sroce_fr_next_key(u32 key, u32 n)
{
	return ((key & ~0xffU) + (n & ~0xffU)) | ((key + n) & 0xff);
}

/* The operation of @c on @f's MR, set up as @c says: its return. */
static int sroce_fr_key_op(struct kunit *test, struct sroce_fr_fix *f,
			   const struct sroce_fr_key_case *c,
			   struct sroce_mr *dma, struct sroce_mr *other)
{
	struct sroce_pd other_pd = {};
	struct sroce_pd *pd = c->other_pd ? &other_pd : &f->pd;
	u32 key;
	int err;

	if (c->op == FR_INV) {
		key = c->dma_key ? dma->key :
				   sroce_fr_next_key(f->mr->key, c->key_delta);
		return sroce_mr_local_inv(f->dev, pd, key, 0);
	}
	if (!c->unmapped)
		KUNIT_ASSERT_EQ(test, sroce_fr_map(f, &sroce_fr_two_pages), 1);
	if (c->long_len)
		f->mr->ibmr.length = 2 * SZ + 1;
	key = c->same_byte ? f->mr->key :
			     sroce_fr_next_key(f->mr->key, 1 + c->key_delta);
	if (c->held || c->lookup)
		kref_get(&f->mr->ref);
	if (c->held)	/* what sroce_mr_hold() counts */
		atomic_inc(&f->mr->held);
	err = sroce_mr_fast_reg(f->dev, pd, c->other_mr ? other : f->mr, key,
				c->access);
	if (c->held)
		atomic_dec(&f->mr->held);
	if (c->held || c->lookup)
		sroce_mr_put(f->mr);
	return err;
}

static void sroce_fr_key_test(struct kunit *test)
{
	const struct sroce_fr_key_case *c = test->param_value;
	struct sroce_fr_fix *f = sroce_fr_fix(test, 16);
	struct sroce_mr *dma, *other, *found;
	u32 before;
	int err;

	KUNIT_ASSERT_NOT_NULL(test, f->mr);
	dma = kzalloc(sizeof(*dma), GFP_KERNEL);
	other = kzalloc(sizeof(*other), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dma);
	KUNIT_ASSERT_NOT_NULL(test, other);
	KUNIT_ASSERT_EQ(test, sroce_mr_init_dma(f->dev, dma, &f->pd, LW), 0);
	KUNIT_ASSERT_EQ(test, sroce_mr_init_fast(f->dev, other, &f->pd, 4), 0);
	if (c->valid) {
		KUNIT_ASSERT_EQ(test, sroce_fr_map(f, &sroce_fr_two_pages), 1);
		KUNIT_ASSERT_EQ(test, sroce_mr_fast_reg(f->dev, &f->pd, f->mr,
				sroce_fr_next_key(f->mr->key, 1), LW | RW), 0);
	}
	before = f->mr->key;
	err = sroce_fr_key_op(test, f, c, dma, other);
	KUNIT_EXPECT_EQ(test, err, c->err);
	KUNIT_EXPECT_EQ(test, f->mr->valid, c->valid_after);
	/* the key in effect finds the MR exactly when it is valid */
	found = sroce_mr_lookup(f->dev, f->mr->key, true);
	KUNIT_EXPECT_EQ(test, !!found, c->valid_after);
	if (found)
		sroce_mr_put(found);
	if (c->op == FR_REG && !err) {
		/* the old key byte no longer names it (unless it is reused) */
		KUNIT_EXPECT_EQ(test, f->mr->access, c->access);
		if (before != f->mr->key)
			KUNIT_EXPECT_NULL(test, sroce_mr_lookup(f->dev, before,
								true));
	}
	if (c->err)	/* a refused operation leaves the key alone */
		KUNIT_EXPECT_EQ(test, f->mr->key, before);
	KUNIT_EXPECT_EQ(test, kref_read(&f->mr->ref), 1U);
	sroce_mr_destroy(other);
	sroce_mr_destroy(dma);
	sroce_fr_fix_done(f);
}

/*
 * A full cycle as a ULP runs it: map, register, remote invalidation by a
 * peer (the predicate, then what the responder does), register again with
 * the next key byte, local invalidation; each key works only while in
 * effect.
 */
static void sroce_fr_cycle_test(struct kunit *test)
{
	struct sroce_fr_fix *f = sroce_fr_fix(test, 16);
	struct sroce_mr *m;
	u32 k1, k2;

	KUNIT_ASSERT_NOT_NULL(test, f->mr);
	k1 = sroce_fr_next_key(f->mr->key, 1);
	k2 = sroce_fr_next_key(f->mr->key, 2);
	KUNIT_ASSERT_EQ(test, sroce_fr_map(f, &sroce_fr_two_pages), 1);
	KUNIT_ASSERT_EQ(test, sroce_mr_fast_reg(f->dev, &f->pd, f->mr, k1,
						LW | RW), 0);
	m = sroce_mr_lookup(f->dev, k1, true);
	KUNIT_ASSERT_NOT_NULL(test, m);
	KUNIT_EXPECT_TRUE(test, sroce_mr_peer_may_invalidate(m, &f->pd));
	WRITE_ONCE(m->valid, false);	/* sroce_resp_invalidate() */
	sroce_mr_put(m);
	KUNIT_EXPECT_NULL(test, sroce_mr_lookup(f->dev, k1, true));

	KUNIT_ASSERT_EQ(test, sroce_fr_map(f, &sroce_fr_two_pages), 1);
	KUNIT_ASSERT_EQ(test, sroce_mr_fast_reg(f->dev, &f->pd, f->mr, k2,
						LW | RR), 0);
	KUNIT_EXPECT_NULL(test, sroce_mr_lookup(f->dev, k1, true));
	m = sroce_mr_lookup(f->dev, k2, false);
	KUNIT_ASSERT_NOT_NULL(test, m);
	sroce_mr_put(m);
	/* the stale key does not invalidate the new registration */
	KUNIT_EXPECT_EQ(test, sroce_mr_local_inv(f->dev, &f->pd, k1, 0),
			-EINVAL);
	KUNIT_EXPECT_TRUE(test, f->mr->valid);
	KUNIT_EXPECT_EQ(test, sroce_mr_local_inv(f->dev, &f->pd, k2, 0), 0);
	KUNIT_EXPECT_NULL(test, sroce_mr_lookup(f->dev, k2, false));
	sroce_fr_fix_done(f);
}

/*
 * A QP of another PD, a user's, names a kernel fast-register MR's index
 * in IB_WR_LOCAL_INV and IB_WR_BIND_MW with every key byte: each attempt
 * fails the same way, so the completion status tells nothing of the key
 * (IBTA 10.6.3.7: a key of another PD is not valid for the QP); the MR
 * stays valid, nothing is left holding it, and its owner can invalidate
 * and register it again.
 */
static void sroce_fr_other_pd_probe_test(struct kunit *test)
{
	struct sroce_fr_fix *f = sroce_fr_fix(test, 16);
	struct sroce_mw_bind b = { .access = RR, .length = 8 };
	int inv, bind, inv0 = 0, bind0 = 0;
	struct sroce_pd user = {};
	u32 k, key;

	KUNIT_ASSERT_NOT_NULL(test, f->mr);
	KUNIT_ASSERT_EQ(test, sroce_fr_map(f, &sroce_fr_two_pages), 1);
	key = sroce_fr_next_key(f->mr->key, 1);
	KUNIT_ASSERT_EQ(test, sroce_mr_fast_reg(f->dev, &f->pd, f->mr, key,
						LW | RW | IB_ACCESS_MW_BIND),
			0);
	for (k = 0; k < 256; k++) {
		key = (f->mr->key & ~0xffU) | k;
		inv = sroce_mr_local_inv(f->dev, &user, key, 0x11);
		b.mw_rkey = key;
		b.new_rkey = key;
		b.mr_lkey = key;
		b.addr = f->mr->iova;
		bind = sroce_mw_bind(f->dev, &user, 0x11, &b);
		if (!k) {
			inv0 = inv;
			bind0 = bind;
		}
		KUNIT_EXPECT_EQ_MSG(test, inv, inv0, "LOCAL_INV, key byte %#x",
				    k);
		KUNIT_EXPECT_EQ_MSG(test, bind, bind0, "BIND_MW, key byte %#x",
				    k);
	}
	KUNIT_EXPECT_NE(test, inv0, 0);
	KUNIT_EXPECT_NE(test, bind0, 0);
	KUNIT_EXPECT_TRUE(test, f->mr->valid);
	KUNIT_EXPECT_EQ(test, kref_read(&f->mr->ref), 1U);
	KUNIT_EXPECT_EQ(test, sroce_mr_local_inv(f->dev, &f->pd, f->mr->key, 0),
			0);
	KUNIT_ASSERT_EQ(test, sroce_fr_map(f, &sroce_fr_two_pages), 1);
	KUNIT_EXPECT_EQ(test, sroce_mr_fast_reg(f->dev, &f->pd, f->mr,
						sroce_fr_next_key(f->mr->key, 1),
						LW), 0);
	sroce_fr_fix_done(f);
}

/*
 * Never the same key byte twice in a row at an index: when a
 * fast-register MR is freed and its index taken again, the new MR's key
 * byte differs from the one the old MR's last IB_WR_REG_MR put in effect
 * (the rkey a peer may still hold), whatever byte that was.
 */
static void sroce_fr_index_reuse_test(struct kunit *test)
{
	struct sroce_fr_fix *f = sroce_fr_fix(test, 16);
	u32 i, idx, last;

	KUNIT_ASSERT_NOT_NULL(test, f->mr);
	for (i = 0; i < 64; i++) {
		idx = f->mr->key >> 8;
		last = sroce_fr_next_key(f->mr->key, 1);
		KUNIT_ASSERT_EQ(test, sroce_fr_map(f, &sroce_fr_two_pages), 1);
		KUNIT_ASSERT_EQ(test, sroce_mr_fast_reg(f->dev, &f->pd, f->mr,
							last, LW), 0);
		sroce_mr_destroy(f->mr);
		/* make the cyclic allocator hand out the same index again */
		f->dev->next_mr_idx = idx;
		f->mr = kzalloc(sizeof(*f->mr), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, f->mr);
		KUNIT_ASSERT_EQ(test, sroce_mr_init_fast(f->dev, f->mr, &f->pd,
							 16), 0);
		KUNIT_EXPECT_EQ(test, f->mr->key >> 8, idx);
		KUNIT_EXPECT_NE_MSG(test, f->mr->key, last, "round %u", i);
	}
	sroce_fr_fix_done(f);
}

static struct kunit_case sroce_fr_cases[] = {
	KUNIT_CASE_PARAM(sroce_fr_map_test, sroce_fr_map_gen_params),
	KUNIT_CASE(sroce_fr_alloc_limits_test),
	KUNIT_CASE_PARAM(sroce_fr_key_test, sroce_fr_key_gen_params),
	KUNIT_CASE(sroce_fr_cycle_test),
	KUNIT_CASE(sroce_fr_other_pd_probe_test),
	KUNIT_CASE(sroce_fr_index_reuse_test),
	{}
};

static struct kunit_suite sroce_fr_suite = {
	.name = "sroce_mr_fast",
	.test_cases = sroce_fr_cases,
};

kunit_test_suite(sroce_fr_suite);
