// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite sroce_srq: shared receive queues (sroce_srq.c) and the
 * receive WQE fetch they share with RQs (sroce_queue_fetch_recv()).  The
 * test plays a hostile provider: it writes the producer index and the
 * slots of the ring directly, and checks what a take returns, what it
 * consumes, the SRQ limit event and the consumer index across the 32-bit
 * wrap.
 */
#include <kunit/test.h>
#include <linux/slab.h>

#include "sroce.h"
#include "sroce_queue.h"
#include "sroce_srq.h"

#define SROCE_SRQK_NUM	8

struct sroce_srqk {
	struct sroce_dev *dev;
	struct sroce_srq *srq;
	int limit_events;
	int err_events;
};

static void sroce_srqk_event(struct ib_event *ev, void *ctx)
{
	struct sroce_srqk *k = ctx;

	if (ev->event == IB_EVENT_SRQ_LIMIT_REACHED)
		k->limit_events++;
	else if (ev->event == IB_EVENT_SRQ_ERR)
		k->err_events++;
}

static void sroce_srqk_exit(struct kunit *test)
{
	struct sroce_srqk *k = test->priv;

	if (k && k->srq)
		sroce_srq_destroy(k->srq);
}

/* A kernel SRQ of SROCE_SRQK_NUM WQEs whose events the test counts. */
static struct sroce_srqk *sroce_srqk_new(struct kunit *test)
{
	struct ib_srq_init_attr init = {
		.srq_type = IB_SRQT_BASIC,
		.attr = { .max_wr = SROCE_SRQK_NUM, .max_sge = 2 },
	};
	struct sroce_srqk *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, k);
	k->dev = kunit_kzalloc(test, sizeof(*k->dev), GFP_KERNEL);
	k->srq = kunit_kzalloc(test, sizeof(*k->srq), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, k->dev);
	KUNIT_ASSERT_NOT_NULL(test, k->srq);
	KUNIT_ASSERT_EQ(test, sroce_srq_init(k->dev, k->srq, &init, NULL, NULL),
			0);
	KUNIT_ASSERT_EQ(test, init.attr.max_wr, (u32)SROCE_SRQK_NUM);
	k->srq->ibsrq.event_handler = sroce_srqk_event;
	k->srq->ibsrq.srq_context = k;
	test->priv = k;
	return k;
}

/* Start both indices at @start, then publish @n WQEs with ids @start.. */
static void sroce_srqk_fill(struct sroce_srq *srq, u32 start, u32 n,
			    u32 num_sge)
{
	struct sroce_queue *q = &srq->rq;
	struct sroce_recv_wqe *w;
	u32 i;

	q->kidx = start;
	q->hdr->consumer = start;
	for (i = 0; i < n; i++) {
		w = sroce_queue_slot(q, start + i);
		memset(w, 0, sizeof(*w));
		w->wr_id = start + i;
		w->num_sge = num_sge;
	}
	q->hdr->producer = start + n;
}

/* The copy and check every RQ and SRQ WQE goes through. */
static void sroce_srq_fetch_test(struct kunit *test)
{
	static const struct {
		const char *name;
		u32 kidx;
		u32 ahead;	/* producer - kidx, as the provider wrote it */
		u32 num_sge;
		int ret;
		bool ring_error;
	} cases[] = {
		{ .name = "empty", .ahead = 0, .ret = 0 },
		{ .name = "one", .ahead = 1, .num_sge = 1, .ret = 1 },
		{ .name = "full", .ahead = SROCE_SRQK_NUM,
		  .num_sge = SROCE_MAX_SGE, .ret = SROCE_SRQK_NUM },
		{ .name = "over full", .ahead = SROCE_SRQK_NUM + 1, .ret = -EIO,
		  .ring_error = true },
		{ .name = "producer behind", .kidx = 100, .ahead = (u32)-1,
		  .ret = -EIO, .ring_error = true },
		{ .name = "num_sge above max", .ahead = 2,
		  .num_sge = SROCE_MAX_SGE + 1, .ret = -EBADMSG },
		{ .name = "num_sge huge", .ahead = 1, .num_sge = U32_MAX,
		  .ret = -EBADMSG },
		{ .name = "across the wrap", .kidx = U32_MAX - 1, .ahead = 4,
		  .num_sge = 0, .ret = 4 },
	};
	struct sroce_srqk *k = sroce_srqk_new(test);
	struct sroce_queue *q = &k->srq->rq;
	struct sroce_recv_wqe wqe;
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		sroce_srqk_fill(k->srq, cases[i].kidx, 1, cases[i].num_sge);
		q->hdr->producer = cases[i].kidx + cases[i].ahead;
		q->hdr->flags = 0;
		memset(&wqe, 0xa5, sizeof(wqe));
		ret = sroce_queue_fetch_recv(q, &wqe);
		KUNIT_EXPECT_EQ_MSG(test, ret, cases[i].ret, "%s", cases[i].name);
		KUNIT_EXPECT_EQ_MSG(test, !!(q->hdr->flags & SROCE_QUEUE_F_ERROR),
				    cases[i].ring_error, "%s", cases[i].name);
		/* never consumes */
		KUNIT_EXPECT_EQ_MSG(test, q->kidx, cases[i].kidx, "%s",
				    cases[i].name);
		if (ret > 0 || ret == -EBADMSG)
			KUNIT_EXPECT_EQ_MSG(test, wqe.wr_id, (u64)cases[i].kidx,
					    "%s", cases[i].name);
		if (ret == -EBADMSG)
			KUNIT_EXPECT_EQ_MSG(test, wqe.num_sge, 0u, "%s",
					    cases[i].name);
	}
}

/* IBTA 10.2.9: below an armed limit, once, then disarmed. */
static void sroce_srq_limit_test(struct kunit *test)
{
	static const struct {
		u32 limit;
		u32 count;
		bool hit;
		u32 after;
	} cases[] = {
		{ .limit = 0, .count = 0, .hit = false, .after = 0 },
		{ .limit = 4, .count = 5, .hit = false, .after = 4 },
		{ .limit = 4, .count = 4, .hit = false, .after = 4 },
		{ .limit = 4, .count = 3, .hit = true, .after = 0 },
		{ .limit = 1, .count = 0, .hit = true, .after = 0 },
		{ .limit = U32_MAX, .count = 0, .hit = true, .after = 0 },
	};
	unsigned int i;
	u32 limit;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		limit = cases[i].limit;
		KUNIT_EXPECT_EQ_MSG(test, sroce_srq_limit_hit(&limit,
							      cases[i].count),
				    cases[i].hit, "limit %u count %u",
				    cases[i].limit, cases[i].count);
		KUNIT_EXPECT_EQ(test, limit, cases[i].after);
	}
}

/* Takes consume in order across the index wrap; the limit fires once. */
static void sroce_srq_take_test(struct kunit *test)
{
	static const struct {
		const char *name;
		u32 start;
		u32 posted;
		u32 limit;	/* armed before the takes */
		u32 takes;
		int limit_events;
		u32 limit_after;
	} cases[] = {
		{ .name = "no limit", .start = 0, .posted = 4, .takes = 4 },
		{ .name = "limit 3 of 4", .start = 0, .posted = 4, .limit = 3,
		  .takes = 4, .limit_events = 1, .limit_after = 0 },
		{ .name = "limit not reached", .start = 10, .posted = 8,
		  .limit = 2, .takes = 5, .limit_after = 2 },
		{ .name = "wrap", .start = U32_MAX - 2, .posted = 6, .limit = 1,
		  .takes = 6, .limit_events = 1 },
		{ .name = "empty", .start = U32_MAX, .posted = 0, .limit = 8,
		  .takes = 0, .limit_after = 8 },
	};
	struct sroce_srqk *k = sroce_srqk_new(test);
	struct sroce_srq *srq = k->srq;
	struct ib_srq_attr attr = {};
	struct sroce_recv_wqe wqe;
	unsigned int i;
	u32 j;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		k->limit_events = 0;
		sroce_srqk_fill(srq, cases[i].start, cases[i].posted, 1);
		attr.srq_limit = cases[i].limit;
		KUNIT_ASSERT_EQ(test, sroce_srq_modify(srq, &attr, IB_SRQ_LIMIT),
				0);
		for (j = 0; j < cases[i].takes; j++) {
			KUNIT_EXPECT_EQ_MSG(test, sroce_srq_take(srq, &wqe),
					    (int)(cases[i].posted - j), "%s #%u",
					    cases[i].name, j);
			KUNIT_EXPECT_EQ(test, wqe.wr_id, (u64)(cases[i].start + j));
			/* consumed at once, published to the provider */
			KUNIT_EXPECT_EQ(test, srq->rq.hdr->consumer,
					cases[i].start + j + 1);
		}
		if (cases[i].takes == cases[i].posted)
			KUNIT_EXPECT_EQ_MSG(test, sroce_srq_take(srq, &wqe), 0,
					    "%s: empty", cases[i].name);
		KUNIT_EXPECT_EQ_MSG(test, k->limit_events, cases[i].limit_events,
				    "%s", cases[i].name);
		sroce_srq_query(srq, &attr);
		KUNIT_EXPECT_EQ_MSG(test, attr.srq_limit, cases[i].limit_after,
				    "%s", cases[i].name);
	}
	KUNIT_EXPECT_EQ(test, k->err_events, 0);
}

/* A hostile producer index breaks the SRQ for good: one SRQ_ERR event. */
static void sroce_srq_hostile_test(struct kunit *test)
{
	struct sroce_srqk *k = sroce_srqk_new(test);
	struct sroce_srq *srq = k->srq;
	struct sroce_recv_wqe wqe;

	sroce_srqk_fill(srq, 5, 2, SROCE_MAX_SGE + 1);
	/* a bad WQE is consumed (the QP completes it in error) */
	KUNIT_EXPECT_EQ(test, sroce_srq_take(srq, &wqe), -EBADMSG);
	KUNIT_EXPECT_EQ(test, wqe.wr_id, 5ull);
	KUNIT_EXPECT_EQ(test, srq->rq.kidx, 6u);
	srq->rq.hdr->producer = srq->rq.kidx + SROCE_SRQK_NUM + 1;
	KUNIT_EXPECT_EQ(test, sroce_srq_take(srq, &wqe), -EIO);
	KUNIT_EXPECT_EQ(test, srq->rq.kidx, 6u);
	KUNIT_EXPECT_TRUE(test, srq->rq.hdr->flags & SROCE_QUEUE_F_ERROR);
	/* a sane index later does not revive it */
	srq->rq.hdr->producer = srq->rq.kidx + 1;
	KUNIT_EXPECT_EQ(test, sroce_srq_take(srq, &wqe), -EIO);
	KUNIT_EXPECT_EQ(test, k->err_events, 1);
}

/* Creation and modify attributes: errnos as rdma-core documents them. */
static void sroce_srq_attr_test(struct kunit *test)
{
	static const struct {
		const char *name;
		enum ib_srq_type type;
		u32 max_wr;
		u32 max_sge;
		bool cq;	/* an XRC SRQ's CQ given */
		bool xrcd;	/* its XRC domain given */
		int err;
	} init_cases[] = {
		{ "basic", IB_SRQT_BASIC, 16, 1, .err = 0 },
		{ "zero", IB_SRQT_BASIC, 0, 0, .err = 0 },
		{ "at the limits", IB_SRQT_BASIC, SROCE_MAX_SRQ_WR, SROCE_MAX_SGE,
		  .err = 0 },
		{ "max_wr above", IB_SRQT_BASIC, SROCE_MAX_SRQ_WR + 1, 1,
		  .err = -EINVAL },
		{ "max_wr huge", IB_SRQT_BASIC, U32_MAX, 1, .err = -EINVAL },
		{ "max_sge above", IB_SRQT_BASIC, 16, SROCE_MAX_SGE + 1,
		  .err = -EINVAL },
		{ "XRC", IB_SRQT_XRC, 16, 1, .cq = true, .xrcd = true, .err = 0 },
		{ "XRC without CQ", IB_SRQT_XRC, 16, 1, .xrcd = true,
		  .err = -EINVAL },
		{ "XRC without XRCD", IB_SRQT_XRC, 16, 1, .cq = true,
		  .err = -EINVAL },
		{ "XRC max_wr above", IB_SRQT_XRC, SROCE_MAX_SRQ_WR + 1, 1,
		  .cq = true, .xrcd = true, .err = -EINVAL },
		{ "tag matching", IB_SRQT_TM, 16, 1, .err = -EOPNOTSUPP },
	};
	struct ib_xrcd *xrcd = kunit_kzalloc(test, sizeof(*xrcd), GFP_KERNEL);
	struct ib_cq *cq = kunit_kzalloc(test, sizeof(*cq), GFP_KERNEL);
	static const struct {
		const char *name;
		int mask;
		u32 limit;
		int err;
	} mod_cases[] = {
		{ "limit 1", IB_SRQ_LIMIT, 1, 0 },
		{ "limit max_wr", IB_SRQ_LIMIT, SROCE_SRQK_NUM, 0 },
		{ "limit above max_wr", IB_SRQ_LIMIT, SROCE_SRQK_NUM + 1, -EINVAL },
		{ "disarm", IB_SRQ_LIMIT, 0, 0 },
		{ "resize", IB_SRQ_MAX_WR, 0, -EINVAL },
		{ "resize and limit", IB_SRQ_MAX_WR | IB_SRQ_LIMIT, 1, -EINVAL },
		{ "nothing", 0, 0, 0 },
	};
	struct sroce_srqk *k = sroce_srqk_new(test);
	struct ib_srq_attr attr;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(init_cases); i++) {
		struct ib_srq_init_attr init = {
			.srq_type = init_cases[i].type,
			.attr = { .max_wr = init_cases[i].max_wr,
				  .max_sge = init_cases[i].max_sge },
		};

		if (init_cases[i].cq)
			init.ext.cq = cq;
		if (init_cases[i].xrcd)
			init.ext.xrc.xrcd = xrcd;
		KUNIT_EXPECT_EQ_MSG(test, sroce_srq_check_init(&init),
				    init_cases[i].err, "%s", init_cases[i].name);
	}
	for (i = 0; i < ARRAY_SIZE(mod_cases); i++) {
		u32 before = k->srq->limit;

		attr.srq_limit = mod_cases[i].limit;
		attr.max_wr = 2 * SROCE_SRQK_NUM;
		KUNIT_EXPECT_EQ_MSG(test, sroce_srq_modify(k->srq, &attr,
							   mod_cases[i].mask),
				    mod_cases[i].err, "%s", mod_cases[i].name);
		sroce_srq_query(k->srq, &attr);
		KUNIT_EXPECT_EQ(test, attr.max_wr, (u32)SROCE_SRQK_NUM);
		KUNIT_EXPECT_EQ(test, attr.srq_limit,
				mod_cases[i].err || !(mod_cases[i].mask & IB_SRQ_LIMIT) ?
				before : mod_cases[i].limit);
	}
}

/* An XRC SRQ of @xrcd on @dev, as the core hands it to create_srq. */
static struct sroce_srq *sroce_srqk_xrc(struct kunit *test,
					struct sroce_dev *dev,
					struct ib_xrcd *xrcd)
{
	struct sroce_srq *srq = kunit_kzalloc(test, sizeof(*srq), GFP_KERNEL);
	struct ib_srq_init_attr init = {
		.srq_type = IB_SRQT_XRC,
		.attr = { .max_wr = 4, .max_sge = 1 },
		.ext.xrc.xrcd = xrcd,
	};

	KUNIT_ASSERT_NOT_NULL(test, srq);
	init.ext.cq = kunit_kzalloc(test, sizeof(*init.ext.cq), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, init.ext.cq);
	KUNIT_ASSERT_EQ(test, sroce_srq_check_init(&init), 0);
	srq->ibsrq.srq_type = IB_SRQT_XRC;
	srq->ibsrq.ext.xrc.xrcd = xrcd;
	KUNIT_ASSERT_EQ(test, sroce_srq_init(dev, srq, &init, NULL, NULL), 0);
	return srq;
}

/*
 * XRC SRQs (IBTA annex A14): a number each, found by a TGT QP's request
 * only once published, only from the SRQ's own XRC domain, never after
 * destroy; the XRCETH's reserved top byte is ignored.
 */
static void sroce_srq_xrc_lookup_test(struct kunit *test)
{
	struct sroce_dev *dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);
	struct ib_xrcd *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	struct ib_xrcd *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	struct sroce_srq *s1, *s2, *found;
	u32 n1;

	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	xa_init_flags(&dev->srq_xa, XA_FLAGS_ALLOC1);
	s1 = sroce_srqk_xrc(test, dev, a);
	s2 = sroce_srqk_xrc(test, dev, b);
	n1 = s1->srqn;
	KUNIT_EXPECT_NE(test, n1, 0u);
	KUNIT_EXPECT_NE(test, s2->srqn, n1);
	KUNIT_EXPECT_EQ(test, s1->ibsrq.ext.xrc.srq_num, n1);
	KUNIT_EXPECT_LE(test, n1, SROCE_SRQN_MASK);

	/* reserved until published */
	KUNIT_EXPECT_NULL(test, sroce_srq_lookup_xrc(dev, n1, a));
	sroce_srq_publish(s1);
	sroce_srq_publish(s2);
	found = sroce_srq_lookup_xrc(dev, n1, a);
	KUNIT_EXPECT_PTR_EQ(test, found, s1);
	if (found)
		sroce_srq_put(found);
	found = sroce_srq_lookup_xrc(dev, n1 | 0xff000000, a);
	KUNIT_EXPECT_PTR_EQ(test, found, s1);
	if (found)
		sroce_srq_put(found);
	/* another domain's SRQ, no number, no domain, a free number */
	KUNIT_EXPECT_NULL(test, sroce_srq_lookup_xrc(dev, n1, b));
	KUNIT_EXPECT_NULL(test, sroce_srq_lookup_xrc(dev, s2->srqn, a));
	KUNIT_EXPECT_NULL(test, sroce_srq_lookup_xrc(dev, 0, a));
	KUNIT_EXPECT_NULL(test, sroce_srq_lookup_xrc(dev, n1, NULL));
	KUNIT_EXPECT_NULL(test, sroce_srq_lookup_xrc(dev, SROCE_SRQN_MASK, a));

	/* destroy waits for no one here, and the number is gone */
	sroce_srq_destroy(s1);
	KUNIT_EXPECT_NULL(test, sroce_srq_lookup_xrc(dev, n1, a));
	sroce_srq_destroy(s2);
	KUNIT_EXPECT_TRUE(test, xa_empty(&dev->srq_xa));
	xa_destroy(&dev->srq_xa);
}

static struct kunit_case sroce_srq_cases[] = {
	KUNIT_CASE(sroce_srq_fetch_test),
	KUNIT_CASE(sroce_srq_limit_test),
	KUNIT_CASE(sroce_srq_take_test),
	KUNIT_CASE(sroce_srq_hostile_test),
	KUNIT_CASE(sroce_srq_attr_test),
	KUNIT_CASE(sroce_srq_xrc_lookup_test),
	{}
};

static struct kunit_suite sroce_srq_suite = {
	.name = "sroce_srq",
	.exit = sroce_srqk_exit,
	.test_cases = sroce_srq_cases,
};

kunit_test_suite(sroce_srq_suite);
