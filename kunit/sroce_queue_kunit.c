// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite sroce_queue: the rings shared with userspace (sroce_queue.h,
 * sroce_queue.c, uapi sroce-abi.h).  The test plays a hostile provider: it
 * writes producer and consumer indices into the ring header directly
 * (out of range, wrapped, equal, behind) and checks that the kernel side
 * never reports more entries than the ring holds and never addresses a
 * slot outside it.  And the device's failure path reads a kernel CQ's
 * ring (have its consumers taken every CQE?) under the CQ lock, never
 * half of a resize (sroce_fatal_cq_taken(), sroce_qp.c).
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "sroce.h"
#include "sroce_qp.h"
#include "sroce_queue.h"

static struct sroce_dev *sroce_queue_test_dev(struct kunit *test)
{
	struct sroce_dev *dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, dev);
	return dev;
}

static void sroce_queue_layout_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct sroce_queue_hdr),
			SROCE_QUEUE_HDR_SIZE);
	KUNIT_EXPECT_EQ(test, offsetof(struct sroce_queue_hdr, producer), 0);
	/* producer and consumer on separate 64-byte cache lines */
	KUNIT_EXPECT_EQ(test, offsetof(struct sroce_queue_hdr, consumer), 64);
	KUNIT_EXPECT_EQ(test, sizeof(struct sroce_sge), 16);
	KUNIT_EXPECT_EQ(test, sizeof(struct sroce_send_wqe), 320);
	KUNIT_EXPECT_EQ(test, sizeof(struct sroce_recv_wqe), 272);
	KUNIT_EXPECT_EQ(test, sizeof(struct sroce_cqe), 48);
}

/* Sizes the kernel accepts, and the buffer it lays out for them. */
static void sroce_queue_init_test(struct kunit *test)
{
	static const struct {
		u32 num;
		u32 slot;
		int err;
	} cases[] = {
		{ 1, 48, 0 },
		{ 2, 320, 0 },
		{ 64, 272, 0 },
		{ 1024, 48, 0 },
		{ 1U << 20, 16, 0 },
		{ 0, 48, -EINVAL },
		{ 3, 48, -EINVAL },
		{ 1000, 48, -EINVAL },
		{ 1U << 21, 16, -EINVAL },
		{ 0x80000000U, 48, -EINVAL },
		{ 16, 0, -EINVAL },
		/* num * slot_size overflows 32 and 64-bit byte counts */
		{ 1U << 20, U32_MAX, -EINVAL },
		{ 1U << 12, 1U << 20, -EINVAL },
	};
	struct sroce_dev *dev = sroce_queue_test_dev(test);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct sroce_queue q;
		int err;

		memset(&q, 0x5a, sizeof(q));
		err = sroce_queue_init(dev, &q, cases[i].num, cases[i].slot,
				       NULL, NULL);
		KUNIT_EXPECT_EQ_MSG(test, err, cases[i].err, "num %u slot %u",
				    cases[i].num, cases[i].slot);
		if (err)
			continue;
		KUNIT_EXPECT_EQ(test, q.num, cases[i].num);
		KUNIT_EXPECT_EQ(test, q.slot_size, cases[i].slot);
		KUNIT_EXPECT_EQ(test, q.kidx, 0u);
		KUNIT_EXPECT_NULL(test, q.mmap_entry);
		KUNIT_EXPECT_PTR_EQ(test, q.slots,
				    (void *)q.hdr + SROCE_QUEUE_HDR_SIZE);
		KUNIT_EXPECT_TRUE(test, PAGE_ALIGNED(q.buf_size));
		KUNIT_EXPECT_GE(test, q.buf_size, SROCE_QUEUE_HDR_SIZE +
				(size_t)cases[i].num * cases[i].slot);
		KUNIT_EXPECT_EQ(test, q.hdr->producer, 0u);
		KUNIT_EXPECT_EQ(test, q.hdr->consumer, 0u);
		KUNIT_EXPECT_EQ(test, q.hdr->flags, 0u);
		/* the whole buffer is zeroed and writable */
		KUNIT_EXPECT_NULL(test, memchr_inv(q.hdr, 0, q.buf_size));
		memset(q.hdr, 0xff, q.buf_size);
		sroce_queue_cleanup(&q);
		KUNIT_EXPECT_NULL(test, q.hdr);
		/* a second cleanup is allowed */
		sroce_queue_cleanup(&q);
	}
}

/* A small kernel ring for the index tests. */
static void sroce_queue_test_ring(struct kunit *test, struct sroce_queue *q,
				  u32 num, u32 slot_size)
{
	KUNIT_ASSERT_EQ(test, sroce_queue_init(sroce_queue_test_dev(test), q,
					       num, slot_size, NULL, NULL), 0);
}

struct sroce_queue_count_case {
	const char *name;
	u32 kidx;	/* the kernel's consumer index */
	u32 producer;	/* what the "provider" wrote */
	int count;	/* expected sroce_queue_count(), num = 8 */
};

static const struct sroce_queue_count_case sroce_queue_count_cases[] = {
	{ "empty", 0, 0, 0 },
	{ "one", 0, 1, 1 },
	{ "full", 0, 8, 8 },
	{ "over_by_one", 0, 9, -EIO },
	{ "far_ahead", 0, 0x7fffffff, -EIO },
	{ "max", 0, U32_MAX, -EIO },
	{ "behind_by_one", 5, 4, -EIO },
	{ "behind_far", 0x1000, 0, -EIO },
	{ "equal_high", 0x12345678, 0x12345678, 0 },
	{ "wrap_empty", U32_MAX, U32_MAX, 0 },
	{ "wrap_one", U32_MAX, 0, 1 },
	{ "wrap_full", 0xfffffffc, 4, 8 },
	{ "wrap_over", 0xfffffffc, 5, -EIO },
	{ "wrap_behind", 2, 0xfffffffe, -EIO },
	{ "kidx_unaligned", 13, 20, 7 },
};

static void sroce_queue_count_desc(const struct sroce_queue_count_case *c,
				   char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s kidx=%#x prod=%#x", c->name,
		 c->kidx, c->producer);
}

KUNIT_ARRAY_PARAM(sroce_queue_count, sroce_queue_count_cases,
		  sroce_queue_count_desc);

static void sroce_queue_count_test(struct kunit *test)
{
	const struct sroce_queue_count_case *c = test->param_value;
	struct sroce_queue q;
	int n, i;

	sroce_queue_test_ring(test, &q, 8, 64);
	q.kidx = c->kidx;
	WRITE_ONCE(q.hdr->producer, c->producer);
	/* the consumer field is ours to publish, not an input: garbage it */
	WRITE_ONCE(q.hdr->consumer, ~c->kidx);

	n = sroce_queue_count(&q);
	KUNIT_EXPECT_EQ(test, n, c->count);
	KUNIT_EXPECT_LE(test, n, (int)q.num);

	/* every slot the count lets us consume lies inside the ring */
	for (i = 0; i < n; i++) {
		void *slot = sroce_queue_slot(&q, q.kidx);

		KUNIT_EXPECT_TRUE(test, slot >= q.slots);
		KUNIT_EXPECT_TRUE(test, slot + q.slot_size <=
					q.slots + (size_t)q.num * q.slot_size);
		sroce_queue_consume(&q, 1);
		KUNIT_EXPECT_EQ(test, READ_ONCE(q.hdr->consumer), q.kidx);
	}
	if (n >= 0) {
		KUNIT_EXPECT_EQ(test, q.kidx, c->producer);
		KUNIT_EXPECT_EQ(test, sroce_queue_count(&q), 0);
	}
	sroce_queue_cleanup(&q);
}

/* sroce_queue_slot() masks any index, hostile or not, into the ring. */
static void sroce_queue_slot_test(struct kunit *test)
{
	static const u32 idx[] = {
		0, 1, 7, 8, 9, 15, 16, 0x7fffffff, 0x80000000, 0xfffffff8,
		0xffffffff,
	};
	struct sroce_queue q;
	unsigned int i;

	sroce_queue_test_ring(test, &q, 8, 320);
	for (i = 0; i < ARRAY_SIZE(idx); i++) {
		void *slot = sroce_queue_slot(&q, idx[i]);

		KUNIT_EXPECT_PTR_EQ(test, slot,
				    q.slots + (idx[i] % 8) * (size_t)320);
		KUNIT_EXPECT_TRUE(test, slot + q.slot_size <=
					(void *)q.hdr + q.buf_size);
	}
	sroce_queue_cleanup(&q);
}

/* ---- CQ producer (sroce_cq_post) against a hostile consumer ---- */

static int sroce_queue_comp_calls;

static void sroce_queue_comp_handler(struct ib_cq *ibcq, void *ctx)
{
	sroce_queue_comp_calls++;
}

static void sroce_queue_test_cq(struct kunit *test, struct sroce_cq *cq,
				u32 num)
{
	memset(cq, 0, sizeof(*cq));
	spin_lock_init(&cq->lock);
	sroce_queue_test_ring(test, &cq->queue, num, sizeof(struct sroce_cqe));
	cq->ibcq.comp_handler = sroce_queue_comp_handler;
	sroce_queue_comp_calls = 0;
}

static void sroce_queue_cq_fill_test(struct kunit *test)
{
	struct sroce_cqe cqe = { .status = IB_WC_SUCCESS };
	struct sroce_cq cq;
	unsigned int i;

	sroce_queue_test_cq(test, &cq, 4);

	for (i = 0; i < 4; i++) {
		cqe.wr_id = 100 + i;
		KUNIT_EXPECT_EQ(test, sroce_cq_post(&cq, &cqe, false), 0);
		KUNIT_EXPECT_EQ(test, READ_ONCE(cq.queue.hdr->producer), i + 1);
	}
	for (i = 0; i < 4; i++) {
		struct sroce_cqe *slot = sroce_queue_slot(&cq.queue, i);

		KUNIT_EXPECT_EQ(test, slot->wr_id, 100ull + i);
	}
	/* full: the fifth is lost, the CQ is in error from now on */
	KUNIT_EXPECT_EQ(test, sroce_cq_post(&cq, &cqe, false), -ENOSPC);
	KUNIT_EXPECT_TRUE(test, cq.overflowed);
	KUNIT_EXPECT_TRUE(test, cq.queue.hdr->flags & SROCE_QUEUE_F_ERROR);
	KUNIT_EXPECT_EQ(test, READ_ONCE(cq.queue.hdr->producer), 4u);
	WRITE_ONCE(cq.queue.hdr->consumer, 4);
	KUNIT_EXPECT_EQ(test, sroce_cq_post(&cq, &cqe, false), -ENOSPC);
	/* never armed: no completion callback */
	KUNIT_EXPECT_EQ(test, sroce_queue_comp_calls, 0);
	sroce_queue_cleanup(&cq.queue);
}

/* The consumer index read back from userspace is checked, not trusted. */
static void sroce_queue_cq_hostile_test(struct kunit *test)
{
	static const struct {
		const char *name;
		u32 kidx;
		u32 consumer;
		int err;
	} cases[] = {
		{ "consumer_equal", 10, 10, 0 },
		{ "consumer_behind_ok", 10, 7, 0 },
		{ "consumer_behind_full", 10, 6, -ENOSPC },
		{ "consumer_ahead", 10, 11, -ENOSPC },
		{ "consumer_far_ahead", 10, 0x80000000, -ENOSPC },
		{ "wrap_ok", 2, 0xffffffff, 0 },
		{ "wrap_full", 2, 0xfffffffe, -ENOSPC },
		{ "wrap_ahead", 0xfffffffe, 2, -ENOSPC },
	};
	struct sroce_cqe cqe = { .wr_id = 7 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct sroce_cq cq;
		u32 kidx = cases[i].kidx;
		int err;

		sroce_queue_test_cq(test, &cq, 4);
		cq.queue.kidx = kidx;
		WRITE_ONCE(cq.queue.hdr->producer, kidx);
		WRITE_ONCE(cq.queue.hdr->consumer, cases[i].consumer);
		err = sroce_cq_post(&cq, &cqe, false);
		KUNIT_EXPECT_EQ_MSG(test, err, cases[i].err, "%s",
				    cases[i].name);
		if (!err) {
			struct sroce_cqe *slot;

			slot = sroce_queue_slot(&cq.queue, kidx);
			KUNIT_EXPECT_EQ(test, slot->wr_id, 7ull);
			KUNIT_EXPECT_EQ(test, cq.queue.kidx, kidx + 1);
			KUNIT_EXPECT_EQ(test, READ_ONCE(cq.queue.hdr->producer),
					kidx + 1);
		} else {
			/* nothing written, error flagged */
			KUNIT_EXPECT_EQ(test, cq.queue.kidx, kidx);
			KUNIT_EXPECT_NULL(test,
					  memchr_inv(cq.queue.slots, 0,
						     4 * sizeof(cqe)));
			KUNIT_EXPECT_TRUE(test, cq.queue.hdr->flags &
						SROCE_QUEUE_F_ERROR);
		}
		sroce_queue_cleanup(&cq.queue);
	}
}

/* Arming: NEXT_COMP fires once; SOLICITED fires for solicited or errors. */
static void sroce_queue_cq_notify_test(struct kunit *test)
{
	struct sroce_cqe ok = { .status = IB_WC_SUCCESS };
	struct sroce_cqe bad = { .status = IB_WC_LOC_PROT_ERR };
	struct sroce_cq cq;

	sroce_queue_test_cq(test, &cq, 16);

	cq.notify = IB_CQ_NEXT_COMP;
	KUNIT_EXPECT_EQ(test, sroce_cq_post(&cq, &ok, false), 0);
	KUNIT_EXPECT_EQ(test, sroce_queue_comp_calls, 1);
	KUNIT_EXPECT_EQ(test, sroce_cq_post(&cq, &ok, true), 0);
	KUNIT_EXPECT_EQ(test, sroce_queue_comp_calls, 1);

	cq.notify = IB_CQ_SOLICITED;
	KUNIT_EXPECT_EQ(test, sroce_cq_post(&cq, &ok, false), 0);
	KUNIT_EXPECT_EQ(test, sroce_queue_comp_calls, 1);
	KUNIT_EXPECT_EQ(test, sroce_cq_post(&cq, &ok, true), 0);
	KUNIT_EXPECT_EQ(test, sroce_queue_comp_calls, 2);

	cq.notify = IB_CQ_SOLICITED;
	KUNIT_EXPECT_EQ(test, sroce_cq_post(&cq, &bad, false), 0);
	KUNIT_EXPECT_EQ(test, sroce_queue_comp_calls, 3);
	KUNIT_EXPECT_EQ(test, cq.notify, 0);
	sroce_queue_cleanup(&cq.queue);
}

/* resize_cq: the CQEs not yet polled move into the new ring. */
struct sroce_queue_move_case {
	const char *name;
	u32 src_num, dst_num;
	u32 kidx;	/* the kernel's producer index */
	u32 cons;	/* the consumer index the "provider" wrote */
	u32 flags;	/* of the old ring */
	int err;
};

static const struct sroce_queue_move_case sroce_queue_move_cases[] = {
	{ .name = "empty", .src_num = 8, .dst_num = 4 },
	{ .name = "grow_full", .src_num = 4, .dst_num = 16, .kidx = 4 },
	{ .name = "shrink_fits", .src_num = 16, .dst_num = 4, .kidx = 10,
	  .cons = 7 },
	{ .name = "shrink_exact", .src_num = 16, .dst_num = 4, .kidx = 12,
	  .cons = 8 },
	{ .name = "shrink_short", .src_num = 16, .dst_num = 4, .kidx = 13,
	  .cons = 8, .err = -EINVAL },
	{ .name = "same_size_full", .src_num = 8, .dst_num = 8, .kidx = 0x108,
	  .cons = 0x100 },
	{ .name = "wrapped", .src_num = 8, .dst_num = 32, .kidx = 3,
	  .cons = 0xfffffffd },
	{ .name = "overrun_kept", .src_num = 4, .dst_num = 8, .kidx = 4,
	  .flags = SROCE_QUEUE_F_ERROR },
	{ .name = "consumer_ahead", .src_num = 8, .dst_num = 8, .kidx = 5,
	  .cons = 6, .err = -EINVAL },
	{ .name = "consumer_far_behind", .src_num = 8, .dst_num = 64,
	  .kidx = 20, .err = -EINVAL },
};

static void sroce_queue_move_desc(const struct sroce_queue_move_case *c,
				  char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %u->%u cons=%#x kidx=%#x",
		 c->name, c->src_num, c->dst_num, c->cons, c->kidx);
}

KUNIT_ARRAY_PARAM(sroce_queue_move, sroce_queue_move_cases,
		  sroce_queue_move_desc);

static void sroce_queue_move_test(struct kunit *test)
{
	const struct sroce_queue_move_case *c = test->param_value;
	u32 i, n = c->kidx - c->cons;
	struct sroce_queue src, dst;
	struct sroce_cqe *cqe;

	sroce_queue_test_ring(test, &src, c->src_num, sizeof(*cqe));
	sroce_queue_test_ring(test, &dst, c->dst_num, sizeof(*cqe));
	for (i = 0; !c->err && i < n; i++) {
		cqe = sroce_queue_slot(&src, c->cons + i);
		cqe->wr_id = 1000ull + (u32)(c->cons + i);
		cqe->byte_len = i;
	}
	src.kidx = c->kidx;
	src.hdr->producer = c->kidx;
	src.hdr->consumer = c->cons;
	src.hdr->flags = c->flags;

	KUNIT_EXPECT_EQ(test, sroce_cq_ring_move(&dst, &src), c->err);
	if (c->err) {
		/* the new ring is untouched */
		KUNIT_EXPECT_EQ(test, dst.kidx, 0u);
		KUNIT_EXPECT_EQ(test, dst.hdr->producer, 0u);
		KUNIT_EXPECT_EQ(test, dst.hdr->consumer, 0u);
	} else {
		KUNIT_EXPECT_EQ(test, dst.kidx, c->kidx);
		KUNIT_EXPECT_EQ(test, dst.hdr->producer, c->kidx);
		KUNIT_EXPECT_EQ(test, dst.hdr->consumer, c->cons);
		KUNIT_EXPECT_EQ(test, dst.hdr->flags, c->flags);
		for (i = 0; i < n; i++) {
			cqe = sroce_queue_slot(&dst, c->cons + i);
			KUNIT_EXPECT_EQ(test, cqe->wr_id,
					1000ull + (u32)(c->cons + i));
			KUNIT_EXPECT_EQ(test, cqe->byte_len, i);
		}
	}
	sroce_queue_cleanup(&src);
	sroce_queue_cleanup(&dst);
}

/* The swap under the CQ lock: new CQEs go to the new ring. */
static void sroce_queue_cq_swap_test(struct kunit *test)
{
	struct sroce_cqe cqe = { .status = IB_WC_SUCCESS };
	struct sroce_queue nq, small;
	struct sroce_cq cq;
	u32 i;

	sroce_queue_test_cq(test, &cq, 4);
	for (i = 0; i < 4; i++) {
		cqe.wr_id = i;
		KUNIT_EXPECT_EQ(test, sroce_cq_post(&cq, &cqe, false), 0);
	}
	/* four pending do not fit in two slots: nothing changes */
	sroce_queue_test_ring(test, &small, 2, sizeof(cqe));
	KUNIT_EXPECT_EQ(test, sroce_cq_swap_ring(&cq, &small), -EINVAL);
	KUNIT_EXPECT_EQ(test, cq.queue.num, 4u);
	sroce_queue_cleanup(&small);

	sroce_queue_test_ring(test, &nq, 16, sizeof(cqe));
	KUNIT_EXPECT_EQ(test, sroce_cq_swap_ring(&cq, &nq), 0);
	KUNIT_EXPECT_EQ(test, cq.queue.num, 16u);
	KUNIT_EXPECT_EQ(test, cq.ibcq.cqe, 16);
	KUNIT_EXPECT_EQ(test, nq.num, 4u);	/* the old ring, to clean up */
	sroce_queue_cleanup(&nq);
	for (i = 4; i < 16; i++) {
		cqe.wr_id = i;
		KUNIT_EXPECT_EQ(test, sroce_cq_post(&cq, &cqe, false), 0);
	}
	for (i = 0; i < 16; i++) {
		struct sroce_cqe *slot = sroce_queue_slot(&cq.queue, i);

		KUNIT_EXPECT_EQ(test, slot->wr_id, (u64)i);
	}
	KUNIT_EXPECT_EQ(test, sroce_cq_post(&cq, &cqe, false), -ENOSPC);
	sroce_queue_cleanup(&cq.queue);
}

/* ---- a failing device waits for kernel CQs to be polled ---- */

/*
 * sroce_fatal_cq_taken(): a kernel CQ is taken when its consumer index
 * reached the producer's, through a resize too; user CQs and CQs polled
 * by their owner (IB_POLL_DIRECT) are never waited for.
 */
static void sroce_queue_cq_fatal_taken_test(struct kunit *test)
{
	struct sroce_cqe cqe = { .status = IB_WC_WR_FLUSH_ERR };
	struct sroce_queue nq;
	struct sroce_cq cq;

	KUNIT_EXPECT_TRUE(test, sroce_fatal_cq_taken(NULL));
	sroce_queue_test_cq(test, &cq, 4);
	KUNIT_EXPECT_TRUE(test, sroce_fatal_cq_taken(&cq));
	KUNIT_EXPECT_EQ(test, sroce_cq_post(&cq, &cqe, false), 0);
	KUNIT_EXPECT_EQ(test, sroce_cq_post(&cq, &cqe, false), 0);
	KUNIT_EXPECT_FALSE(test, sroce_fatal_cq_taken(&cq));
	sroce_queue_test_ring(test, &nq, 16, sizeof(cqe));
	KUNIT_ASSERT_EQ(test, sroce_cq_swap_ring(&cq, &nq), 0);
	sroce_queue_cleanup(&nq);
	KUNIT_EXPECT_FALSE(test, sroce_fatal_cq_taken(&cq));
	smp_store_release(&cq.queue.hdr->consumer, 1);
	KUNIT_EXPECT_FALSE(test, sroce_fatal_cq_taken(&cq));
	smp_store_release(&cq.queue.hdr->consumer, 2);
	KUNIT_EXPECT_TRUE(test, sroce_fatal_cq_taken(&cq));
	KUNIT_EXPECT_EQ(test, sroce_cq_post(&cq, &cqe, false), 0);
	cq.ibcq.poll_ctx = IB_POLL_DIRECT;
	KUNIT_EXPECT_TRUE(test, sroce_fatal_cq_taken(&cq));
	cq.ibcq.poll_ctx = IB_POLL_SOFTIRQ;
	cq.is_user = true;
	KUNIT_EXPECT_TRUE(test, sroce_fatal_cq_taken(&cq));
	sroce_queue_cleanup(&cq.queue);
}

/**
 * struct sroce_cq_race - a CQ in the middle of a resize, and its checker
 * @cq: the CQ
 * @mid: a ring header a reader of the half-swapped CQ would pair with the
 *	old ring's producer index
 * @locked: the holder holds @cq->lock with the CQ half swapped
 * @checked: the checker's sroce_fatal_cq_taken() returned
 * @taken: what it returned
 * @early: it returned while the lock was held
 * @done: each thread completes it once at its end
 */
struct sroce_cq_race {
	struct sroce_cq *cq;
	struct sroce_queue_hdr *mid;
	int locked;
	int checked;
	bool taken;
	bool early;
	struct completion done;
};

/*
 * The holder: what sroce_cq_swap_ring() does under the lock, held 50 ms
 * with the new ring's header and the old ring's index (the new ring's
 * consumer index equals the old producer's: the CQ looks polled).
 */
static int sroce_cq_race_holder(void *arg)
{
	struct sroce_cq_race *r = arg;
	struct sroce_queue saved;
	unsigned long flags;
	int i;

	spin_lock_irqsave(&r->cq->lock, flags);
	saved = r->cq->queue;
	WRITE_ONCE(r->cq->queue.hdr, r->mid);
	smp_store_release(&r->locked, 1);
	for (i = 0; i < 5000 && !smp_load_acquire(&r->checked); i++)
		udelay(10);
	r->early = smp_load_acquire(&r->checked);
	r->cq->queue = saved;
	spin_unlock_irqrestore(&r->cq->lock, flags);
	complete(&r->done);
	return 0;
}

static int sroce_cq_race_checker(void *arg)
{
	struct sroce_cq_race *r = arg;
	unsigned long end = jiffies + HZ;

	while (!smp_load_acquire(&r->locked) && time_before(jiffies, end))
		cpu_relax();
	r->taken = sroce_fatal_cq_taken(r->cq);
	smp_store_release(&r->checked, 1);
	complete(&r->done);
	return 0;
}

static struct task_struct *sroce_cq_race_thread(struct kunit *test,
						int (*fn)(void *),
						struct sroce_cq_race *r,
						unsigned int cpu)
{
	struct task_struct *t = kthread_create(fn, r, "sroce_cq_race/%u", cpu);

	KUNIT_ASSERT_FALSE(test, IS_ERR(t));
	kthread_bind(t, cpu);
	return t;
}

/*
 * A resize racing with the device's failure (its netdev is going): the
 * check, on another CPU, takes the CQ lock and sees the CQ whole, before
 * or after the swap, never the new ring's header with the old ring's
 * index.  Needs two CPUs (scripts/kunit --qemu_args='-smp 2', or the debug
 * kernel's guest); a single CPU runs no checker while the holder spins.
 */
static void sroce_queue_cq_fatal_locked_test(struct kunit *test)
{
	struct sroce_cqe cqe = { .status = IB_WC_WR_FLUSH_ERR };
	struct sroce_cq_race r = {};
	struct task_struct *holder, *checker;
	unsigned int a, b;
	struct sroce_queue mid;
	struct sroce_cq cq;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs");
	a = cpumask_first(cpu_online_mask);
	b = cpumask_next(a, cpu_online_mask);
	sroce_queue_test_cq(test, &cq, 4);
	sroce_queue_test_ring(test, &mid, 16, sizeof(cqe));
	KUNIT_EXPECT_EQ(test, sroce_cq_post(&cq, &cqe, false), 0);
	KUNIT_EXPECT_EQ(test, sroce_cq_post(&cq, &cqe, false), 0);
	WRITE_ONCE(mid.hdr->consumer, cq.queue.kidx);
	r.cq = &cq;
	r.mid = mid.hdr;
	init_completion(&r.done);
	holder = sroce_cq_race_thread(test, sroce_cq_race_holder, &r, a);
	checker = sroce_cq_race_thread(test, sroce_cq_race_checker, &r, b);
	wake_up_process(checker);
	wake_up_process(holder);
	wait_for_completion(&r.done);
	wait_for_completion(&r.done);
	KUNIT_EXPECT_FALSE_MSG(test, r.early,
			       "the check did not wait for the CQ lock");
	KUNIT_EXPECT_FALSE_MSG(test, r.taken,
			       "two CQEs pending, yet the CQ looked polled");
	sroce_queue_cleanup(&mid);
	sroce_queue_cleanup(&cq.queue);
}

static struct kunit_case sroce_queue_test_cases[] = {
	KUNIT_CASE(sroce_queue_layout_test),
	KUNIT_CASE(sroce_queue_init_test),
	KUNIT_CASE_PARAM(sroce_queue_count_test,
			 sroce_queue_count_gen_params),
	KUNIT_CASE(sroce_queue_slot_test),
	KUNIT_CASE(sroce_queue_cq_fill_test),
	KUNIT_CASE(sroce_queue_cq_hostile_test),
	KUNIT_CASE(sroce_queue_cq_notify_test),
	KUNIT_CASE_PARAM(sroce_queue_move_test, sroce_queue_move_gen_params),
	KUNIT_CASE(sroce_queue_cq_swap_test),
	KUNIT_CASE(sroce_queue_cq_fatal_taken_test),
	KUNIT_CASE(sroce_queue_cq_fatal_locked_test),
	{}
};

static struct kunit_suite sroce_queue_suite = {
	.name = "sroce_queue",
	.test_cases = sroce_queue_test_cases,
};

kunit_test_suite(sroce_queue_suite);
