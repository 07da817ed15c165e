// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite sroce_mw: memory windows (sroce_mw.c, IBTA 10.6.7).
 *   - sroce_mw_bind_check(): the rules of a bind, one row each: rkey
 *     index and rkey in effect, PDs, type 2B windows bound only when
 *     free, rights, zero-length binds, the MR's MW_BIND and local write
 *     access, zero-based MRs, the window inside the MR.
 *   - bind, access and invalidation through the device's key namespace,
 *     on a fast-register MR: what the responder's rkey resolution
 *     (sroce_rkey_get()) grants through a bound window, what Local
 *     Invalidate and a peer's Send with Invalidate do to each type, and
 *     that a bound MR cannot be invalidated.
 */
#include <kunit/test.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "sroce.h"
#include "sroce_mr.h"
#include "sroce_verbs.h"

#define LW	IB_ACCESS_LOCAL_WRITE
#define RW	IB_ACCESS_REMOTE_WRITE
#define RR	IB_ACCESS_REMOTE_READ
#define RA	IB_ACCESS_REMOTE_ATOMIC
#define BIND	IB_ACCESS_MW_BIND
#define MR_VA	0x10000ULL
#define MR_LEN	0x2000ULL
#define WKEY	0x1234500U	/* the window's rkey: index 0x12345 */

/**
 * struct sroce_mw_check_case - one bind against sroce_mw_bind_check()
 * @name: what it checks
 * @type2: a type 2B window (else type 1)
 * @bound: the window is bound already
 * @stale_rkey: the WR names the window by another key byte
 * @other_index: the new rkey has another index
 * @qp_other_pd: the QP is in another PD than the window
 * @mr_other_pd: the MR is in another PD than the window
 * @no_mr: the lkey names no valid MR
 * @mr_type: the MR's type (0: SROCE_MR_USER)
 * @dma_mr: the MR is a DMA MR
 * @mr_access: the MR's access flags
 * @access: the rights the bind grants
 * @addr: offset of the window from the MR's start
 * @length: the window's length
 * @err: expected return
 */
struct sroce_mw_check_case {
	const char *name;
	bool type2;
	bool bound;
	bool stale_rkey;
	bool other_index;
	bool qp_other_pd;
	bool mr_other_pd;
	bool no_mr;
	enum sroce_mr_type mr_type;
	bool dma_mr;
	int mr_access;
	u32 access;
	u64 addr;
	u64 length;
	int err;
};

static const struct sroce_mw_check_case sroce_mw_check_cases[] = {
	{ .name = "type1-whole-mr", .mr_access = LW | BIND,
	  .access = RW | LW, .length = MR_LEN },
	{ .name = "type2-whole-mr", .type2 = true, .mr_access = LW | BIND,
	  .access = RW | RR | RA | LW, .length = MR_LEN },
	{ .name = "type1-rebind-while-bound", .bound = true,
	  .mr_access = LW | BIND, .access = RR, .length = 8 },
	{ .name = "type2-bound-not-free", .type2 = true, .bound = true,
	  .mr_access = LW | BIND, .access = RR, .length = 8, .err = -EINVAL },
	{ .name = "type1-zero-length-unbinds", .no_mr = true },
	{ .name = "type2-zero-length-needs-mr", .type2 = true, .no_mr = true,
	  .err = -EINVAL },
	{ .name = "stale-rkey", .stale_rkey = true, .mr_access = LW | BIND,
	  .access = RR, .length = 8, .err = -EINVAL },
	{ .name = "new-rkey-other-index", .other_index = true,
	  .mr_access = LW | BIND, .access = RR, .length = 8, .err = -EINVAL },
	{ .name = "qp-other-pd", .qp_other_pd = true, .mr_access = LW | BIND,
	  .access = RR, .length = 8, .err = -EACCES },
	{ .name = "mr-other-pd", .mr_other_pd = true, .mr_access = LW | BIND,
	  .access = RR, .length = 8, .err = -EACCES },
	{ .name = "no-mr", .no_mr = true, .access = RR, .length = 8,
	  .err = -EINVAL },
	{ .name = "mr-without-mw-bind", .mr_access = LW | RW, .access = RR,
	  .length = 8, .err = -EACCES },
	{ .name = "remote-write-needs-local-write", .mr_access = BIND,
	  .access = RW, .length = 8, .err = -EACCES },
	{ .name = "remote-atomic-needs-local-write", .mr_access = BIND | RR,
	  .access = RA, .length = 8, .err = -EACCES },
	{ .name = "read-only-mr-read-window", .mr_access = BIND,
	  .access = RR, .length = 8 },
	{ .name = "zero-based-mr", .mr_access = LW | BIND | IB_ZERO_BASED,
	  .access = RR, .length = 8, .err = -EINVAL },
	{ .name = "zero-based-window", .mr_access = LW | BIND,
	  .access = RR | IB_ZERO_BASED, .length = 8, .err = -EINVAL },
	{ .name = "unknown-right", .mr_access = LW | BIND,
	  .access = RR | IB_ACCESS_MW_BIND, .length = 8, .err = -EINVAL },
	/* a window carries no FLUSH right (annex A19.4, SROCE_MW_ACCESS) */
	{ .name = "flush-right", .mr_access = LW | BIND,
	  .access = RR | SROCE_ACCESS_FLUSH_GLOBAL, .length = 8,
	  .err = -EINVAL },
	{ .name = "dma-mr", .dma_mr = true, .mr_access = LW | BIND,
	  .access = RR, .length = 8, .err = -EINVAL },
	{ .name = "window-on-a-window", .mr_type = SROCE_MR_MW1,
	  .mr_access = LW | BIND, .access = RR, .length = 8, .err = -EINVAL },
	{ .name = "last-byte", .mr_access = LW | BIND, .access = RR,
	  .addr = MR_LEN - 1, .length = 1 },
	{ .name = "one-past-the-end", .mr_access = LW | BIND, .access = RR,
	  .addr = MR_LEN - 1, .length = 2, .err = -EINVAL },
	{ .name = "before-the-start", .mr_access = LW | BIND, .access = RR,
	  .addr = -1ULL, .length = 2, .err = -EINVAL },
	{ .name = "length-wraps", .mr_access = LW | BIND, .access = RR,
	  .addr = 8, .length = U64_MAX, .err = -EINVAL },
};

static void sroce_mw_check_desc(const struct sroce_mw_check_case *c,
				char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sroce_mw_check, sroce_mw_check_cases, sroce_mw_check_desc);

static void sroce_mw_check_test(struct kunit *test)
{
	const struct sroce_mw_check_case *c = test->param_value;
	struct sroce_pd pd = {}, other = {};
	struct sroce_mr win = {
		.type = c->type2 ? SROCE_MR_MW2 : SROCE_MR_MW1,
		.pd = &pd, .key = WKEY, .valid = c->bound,
	};
	struct sroce_mr mr = {
		.type = c->dma_mr ? SROCE_MR_DMA : c->mr_type ?: SROCE_MR_USER,
		.pd = c->mr_other_pd ? &other : &pd, .valid = true,
		.access = c->mr_access, .iova = MR_VA, .length = MR_LEN,
	};
	struct sroce_mw_bind b = {
		.mw_rkey = c->stale_rkey ? WKEY + 1 : WKEY,
		.new_rkey = c->other_index ? WKEY + 0x100 : WKEY + 7,
		.access = c->access, .addr = MR_VA + c->addr,
		.length = c->length,
	};

	KUNIT_EXPECT_EQ(test, sroce_mw_bind_check(&win, c->no_mr ? NULL : &mr,
						  c->qp_other_pd ? &other : &pd,
						  &b), c->err);
}

/* ---- bind, access and invalidation in the key namespace ---- */

struct sroce_mw_fix {
	struct sroce_dev *dev;
	struct sroce_pd pd;
	struct sroce_mr *mr;	/* fast-register MR over @buf */
	struct sroce_mr *win;
	u8 *buf;
};

#define FIX_QPN		0x11
#define FIX_BUF		(2 * PAGE_SIZE)

/* Register @f->mr over @f->buf with LOCAL_WRITE and MW_BIND. */
static void sroce_mw_fix_reg(struct kunit *test, struct sroce_mw_fix *f)
{
	struct scatterlist sg;
	unsigned int off = 0;
	u32 key = (f->mr->key & ~0xffU) | ((f->mr->key + 1) & 0xff);

	sg_init_table(&sg, 1);
	sg_set_buf(&sg, f->buf, FIX_BUF);
	sg_dma_address(&sg) = (uintptr_t)f->buf;
	sg_dma_len(&sg) = FIX_BUF;
	f->mr->ibmr.page_size = PAGE_SIZE;
	KUNIT_ASSERT_EQ(test, sroce_mr_map_sg(f->mr, &sg, 1, &off), 1);
	KUNIT_ASSERT_EQ(test, sroce_mr_fast_reg(f->dev, &f->pd, f->mr, key,
						LW | BIND), 0);
}

static struct sroce_mw_fix *sroce_mw_fix(struct kunit *test, bool type2)
{
	struct sroce_mw_fix *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->dev = kunit_kzalloc(test, sizeof(*f->dev), GFP_KERNEL);
	f->buf = kunit_kzalloc(test, FIX_BUF, GFP_KERNEL);
	f->mr = kzalloc(sizeof(*f->mr), GFP_KERNEL);
	f->win = kzalloc(sizeof(*f->win), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, f->dev && f->buf && f->mr && f->win);
	xa_init_flags(&f->dev->mr_xa, XA_FLAGS_ALLOC1);
	sroce_mr_dev_init(f->dev);
	KUNIT_ASSERT_EQ(test, sroce_mr_init_fast(f->dev, f->mr, &f->pd, 4), 0);
	sroce_mw_fix_reg(test, f);
	KUNIT_ASSERT_EQ(test, sroce_mr_init_window(f->dev, f->win, &f->pd,
						   type2 ? SROCE_MR_MW2 :
							   SROCE_MR_MW1), 0);
	return f;
}

static void sroce_mw_fix_done(struct sroce_mw_fix *f)
{
	struct sroce_mw_bind unbind = {
		.mw_rkey = f->win->key, .new_rkey = f->win->key,
	};

	/* what sroce_dealloc_mw() does: let the MR go, then destroy */
	if (f->win->type == SROCE_MR_MW1)
		sroce_mw_bind(f->dev, &f->pd, FIX_QPN, &unbind);
	else
		sroce_mw_invalidate(f->win, &f->pd, FIX_QPN, f->win->key);
	sroce_mr_destroy(f->win);
	sroce_mr_destroy(f->mr);
	sroce_mr_dev_drain(f->dev);
}

/* Bind @f's window to [@off, @off + @len) of the MR with @access. */
static int sroce_mw_fix_bind(struct sroce_mw_fix *f, u64 off, u64 len,
			     u32 access, u32 qpn)
{
	u32 rkey = f->win->key;
	struct sroce_mw_bind b = {
		.mw_rkey = rkey,
		.new_rkey = (rkey & ~0xffU) | ((rkey + 1) & 0xff),
		.mr_lkey = f->mr->key, .access = access,
		.addr = f->mr->iova + off, .length = len,
	};

	return sroce_mw_bind(f->dev, &f->pd, qpn, &b);
}

/**
 * struct sroce_mw_access_case - one remote access through a bound window
 * @name: what it checks
 * @type2: a type 2B window
 * @off: first byte of the access, from the window's start
 * @len: bytes
 * @access: rights it needs
 * @other_qp: it arrives on another QP than the one the window is bound to
 * @other_pd: on a QP of another PD
 * @ok: sroce_rkey_get() grants it
 */
struct sroce_mw_access_case {
	const char *name;
	bool type2;
	u64 off;
	u64 len;
	int access;
	bool other_qp;
	bool other_pd;
	bool ok;
};

/* The window is [PAGE_SIZE / 2, + PAGE_SIZE) of the MR, RW | RR. */
#define WIN_OFF		(PAGE_SIZE / 2)
#define WIN_LEN		PAGE_SIZE

static const struct sroce_mw_access_case sroce_mw_access_cases[] = {
	{ .name = "type1-write-inside", .len = 64, .access = RW, .ok = true },
	{ .name = "type1-read-whole", .len = WIN_LEN, .access = RR,
	  .ok = true },
	{ .name = "type1-other-qp-same-pd", .len = 8, .access = RR,
	  .other_qp = true, .ok = true },
	{ .name = "type2-write-inside", .type2 = true, .off = 8, .len = 64,
	  .access = RW, .ok = true },
	{ .name = "type2-other-qp", .type2 = true, .len = 8, .access = RR,
	  .other_qp = true },
	{ .name = "type1-other-pd", .len = 8, .access = RR, .other_pd = true },
	{ .name = "atomic-not-granted", .len = 8, .access = RA },
	/* FLUSH through a window: level RANGE, level MR (length 0) */
	{ .name = "flush-range-not-granted", .len = 8,
	  .access = SROCE_ACCESS_FLUSH_GLOBAL },
	{ .name = "flush-mr-not-granted", .len = 0,
	  .access = SROCE_ACCESS_FLUSH_GLOBAL },
	{ .name = "past-the-window", .off = WIN_LEN - 4, .len = 8,
	  .access = RW },
	{ .name = "before-the-window", .off = -4ULL, .len = 8, .access = RR },
	{ .name = "type2-past-the-window", .type2 = true, .off = WIN_LEN,
	  .len = 1, .access = RR },
};

static void sroce_mw_access_desc(const struct sroce_mw_access_case *c,
				 char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sroce_mw_access, sroce_mw_access_cases,
		  sroce_mw_access_desc);

static void sroce_mw_access_test(struct kunit *test)
{
	const struct sroce_mw_access_case *c = test->param_value;
	struct sroce_mw_fix *f = sroce_mw_fix(test, c->type2);
	struct sroce_pd other = {};
	u64 va = f->mr->iova + WIN_OFF + c->off;
	struct sroce_mr *got;

	/* unbound: nothing is granted */
	KUNIT_EXPECT_NULL(test, sroce_rkey_get(f->dev, &f->pd, FIX_QPN,
					       f->win->key, va, c->len,
					       c->access));
	KUNIT_ASSERT_EQ(test, sroce_mw_fix_bind(f, WIN_OFF, WIN_LEN, RW | RR,
						FIX_QPN), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->mr->num_mw), 1);
	got = sroce_rkey_get(f->dev, c->other_pd ? &other : &f->pd,
			     c->other_qp ? FIX_QPN + 1 : FIX_QPN, f->win->key,
			     va, c->len, c->access);
	KUNIT_EXPECT_EQ(test, !!got, c->ok);
	KUNIT_EXPECT_TRUE(test, !got || got == f->mr);
	if (got)
		sroce_mr_put(got);
	/* the MR's own key grants no remote access: it has none */
	KUNIT_EXPECT_NULL(test, sroce_rkey_get(f->dev, &f->pd, FIX_QPN,
					       f->mr->key, va, 8, RR));
	sroce_mw_fix_done(f);
}

/**
 * struct sroce_mw_inv_case - invalidating a bound window
 * @name: what it checks
 * @type2: a type 2B window
 * @remote: by a peer's Send with Invalidate (else Local Invalidate)
 * @zero_bind: by a zero-length bind
 * @other_qp: through another QP than the one it is bound to
 * @stale: naming the window's previous rkey
 * @err: expected return
 */
struct sroce_mw_inv_case {
	const char *name;
	bool type2;
	bool remote;
	bool zero_bind;
	bool other_qp;
	bool stale;
	int err;
};

static const struct sroce_mw_inv_case sroce_mw_inv_cases[] = {
	{ .name = "type2-local", .type2 = true },
	{ .name = "type2-remote", .type2 = true, .remote = true },
	{ .name = "type2-local-other-qp", .type2 = true, .other_qp = true,
	  .err = -EINVAL },
	{ .name = "type2-remote-other-qp", .type2 = true, .remote = true,
	  .other_qp = true, .err = -EINVAL },
	{ .name = "type2-stale-rkey", .type2 = true, .stale = true,
	  .err = -EINVAL },
	{ .name = "type2-zero-length-bind", .type2 = true, .zero_bind = true,
	  .err = -EINVAL },
	{ .name = "type1-local", .err = -EINVAL },
	{ .name = "type1-remote", .remote = true, .err = -EINVAL },
	{ .name = "type1-zero-length-bind", .zero_bind = true },
};

static void sroce_mw_inv_desc(const struct sroce_mw_inv_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sroce_mw_inv, sroce_mw_inv_cases, sroce_mw_inv_desc);

static int sroce_mw_inv_op(struct sroce_mw_fix *f,
			   const struct sroce_mw_inv_case *c, u32 rkey)
{
	u32 qpn = c->other_qp ? FIX_QPN + 1 : FIX_QPN;

	if (c->zero_bind)
		return sroce_mw_fix_bind(f, 0, 0, 0, qpn);
	if (c->remote)
		return sroce_rkey_invalidate(f->dev, &f->pd, qpn, rkey);
	return sroce_mr_local_inv(f->dev, &f->pd, rkey, qpn);
}

static void sroce_mw_inv_test(struct kunit *test)
{
	const struct sroce_mw_inv_case *c = test->param_value;
	struct sroce_mw_fix *f = sroce_mw_fix(test, c->type2);
	u32 first = f->win->key;
	u64 va = f->mr->iova + WIN_OFF;
	struct sroce_mr *got;
	u32 rkey;

	KUNIT_ASSERT_EQ(test, sroce_mw_fix_bind(f, WIN_OFF, WIN_LEN, RW,
						FIX_QPN), 0);
	rkey = f->win->key;
	KUNIT_EXPECT_NE(test, rkey, first);
	/* a bound MR cannot be invalidated (nor deregistered) */
	KUNIT_EXPECT_EQ(test, sroce_mr_local_inv(f->dev, &f->pd, f->mr->key,
						 FIX_QPN), -EINVAL);
	KUNIT_EXPECT_TRUE(test, f->mr->valid);
	KUNIT_EXPECT_EQ(test, sroce_mw_inv_op(f, c, c->stale ? first : rkey),
			c->err);
	got = sroce_rkey_get(f->dev, &f->pd, FIX_QPN, f->win->key, va, 8, RW);
	KUNIT_EXPECT_EQ(test, !got, !c->err);
	if (got)
		sroce_mr_put(got);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->mr->num_mw), c->err ? 1 : 0);
	/* an invalidated type 2B window can be bound again */
	if (c->type2 && !c->err)
		KUNIT_EXPECT_EQ(test, sroce_mw_fix_bind(f, 0, 8, RR, FIX_QPN),
				0);
	sroce_mw_fix_done(f);
	/* everything the windows held was let go: the MR was freed */
}

/*
 * A window destroyed while bound (a bind that raced with the window's
 * deallocation): freeing it lets its MR go, which can then be invalidated
 * and freed.
 */
static void sroce_mw_destroy_bound_test(struct kunit *test)
{
	struct sroce_mw_fix *f = sroce_mw_fix(test, false);

	KUNIT_ASSERT_EQ(test, sroce_mw_fix_bind(f, 0, 64, RR, FIX_QPN), 0);
	KUNIT_EXPECT_EQ(test, kref_read(&f->mr->ref), 2U);
	sroce_mr_destroy(f->win);
	KUNIT_EXPECT_EQ(test, atomic_read(&f->mr->num_mw), 0);
	KUNIT_EXPECT_EQ(test, kref_read(&f->mr->ref), 1U);
	KUNIT_EXPECT_EQ(test, sroce_mr_local_inv(f->dev, &f->pd, f->mr->key,
						 FIX_QPN), 0);
	sroce_mr_destroy(f->mr);
	sroce_mr_dev_drain(f->dev);
}

static struct kunit_case sroce_mw_test_cases[] = {
	KUNIT_CASE_PARAM(sroce_mw_check_test, sroce_mw_check_gen_params),
	KUNIT_CASE_PARAM(sroce_mw_access_test, sroce_mw_access_gen_params),
	KUNIT_CASE_PARAM(sroce_mw_inv_test, sroce_mw_inv_gen_params),
	KUNIT_CASE(sroce_mw_destroy_bound_test),
	{}
};

static struct kunit_suite sroce_mw_suite = {
	.name = "sroce_mw",
	.test_cases = sroce_mw_test_cases,
};

kunit_test_suite(sroce_mw_suite);
