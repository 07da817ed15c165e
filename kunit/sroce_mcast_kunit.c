// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite sroce_mcast: multicast groups (sroce_mcast.c).  Each case
 * runs a list of attach, detach and destroy steps on two UD QPs and one
 * RC QP of a device, checks each step's return, then the number of groups
 * and attachments the device holds and each QP's count of groups.
 * Delivery to the attached QPs is checked in the VM (tests/t-36-mcast.sh,
 * rdma-core's test suite); the receive path's verdict on packets to the
 * multicast QPN in the sroce_rx suite.
 */
#include <kunit/test.h>
#include <linux/in6.h>

#include "sroce.h"
#include "sroce_mcast.h"
#include "sroce_qp.h"

enum sroce_mc_op {
	MC_END,
	MC_ATTACH,
	MC_DETACH,
	MC_LEAVE_ALL,	/* sroce_mcast_qp_leave_all(), as destroy_qp does */
	MC_FULL,	/* the device holds max_mcast_grp groups already */
};

/* QPs of the fixture */
enum { QP_UD0, QP_UD1, QP_RC, SROCE_MC_NR_QPS };

/* groups: 239.1.1.1 and 239.1.1.2 v4-mapped, ff0e::db8:1, a unicast GID */
enum { G_V4A, G_V4B, G_V6, G_UNICAST };

static const union ib_gid sroce_mc_gids[] = {
	[G_V4A] = { .raw = { [10] = 0xff, [11] = 0xff, 239, 1, 1, 1 } },
	[G_V4B] = { .raw = { [10] = 0xff, [11] = 0xff, 239, 1, 1, 2 } },
	[G_V6] = { .raw = { 0xff, 0x0e, [12] = 0x0d, 0xb8, 0x00, 0x01 } },
	[G_UNICAST] = { .raw = { [10] = 0xff, [11] = 0xff, 198, 18, 0, 1 } },
};

struct sroce_mc_step {
	enum sroce_mc_op op;
	u8 qp;
	u8 gid;
	int ret;
};

struct sroce_mc_case {
	const char *name;
	struct sroce_mc_step steps[8];
	u32 nr_mcg;
	u32 nr_mca;
	unsigned int nr_mcast[SROCE_MC_NR_QPS];
};

#define ATT(q, g, r)	{ .op = MC_ATTACH, .qp = (q), .gid = (g), .ret = (r) }
#define DET(q, g, r)	{ .op = MC_DETACH, .qp = (q), .gid = (g), .ret = (r) }
#define LEAVE(q)	{ .op = MC_LEAVE_ALL, .qp = (q) }
#define FULL		{ .op = MC_FULL }

static const struct sroce_mc_case sroce_mc_cases[] = {
	{ .name = "attach_ud", .steps = { ATT(QP_UD0, G_V4A, 0) },
	  .nr_mcg = 1, .nr_mca = 1, .nr_mcast = { [QP_UD0] = 1 } },
	{ .name = "attach_twice_is_one",
	  .steps = { ATT(QP_UD0, G_V4A, 0), ATT(QP_UD0, G_V4A, 0) },
	  .nr_mcg = 1, .nr_mca = 1, .nr_mcast = { [QP_UD0] = 1 } },
	{ .name = "two_qps_one_group",
	  .steps = { ATT(QP_UD0, G_V4A, 0), ATT(QP_UD1, G_V4A, 0) },
	  .nr_mcg = 1, .nr_mca = 2, .nr_mcast = { 1, 1 } },
	{ .name = "one_qp_three_groups",
	  .steps = { ATT(QP_UD0, G_V4A, 0), ATT(QP_UD0, G_V4B, 0),
		     ATT(QP_UD0, G_V6, 0) },
	  .nr_mcg = 3, .nr_mca = 3, .nr_mcast = { [QP_UD0] = 3 } },
	{ .name = "detach_last_frees_group",
	  .steps = { ATT(QP_UD0, G_V6, 0), DET(QP_UD0, G_V6, 0) } },
	{ .name = "detach_keeps_other_qp",
	  .steps = { ATT(QP_UD0, G_V4A, 0), ATT(QP_UD1, G_V4A, 0),
		     DET(QP_UD0, G_V4A, 0) },
	  .nr_mcg = 1, .nr_mca = 1, .nr_mcast = { [QP_UD1] = 1 } },
	{ .name = "detach_twice",
	  .steps = { ATT(QP_UD0, G_V4A, 0), DET(QP_UD0, G_V4A, 0),
		     DET(QP_UD0, G_V4A, -EINVAL) } },
	{ .name = "detach_other_qp",
	  .steps = { ATT(QP_UD0, G_V4A, 0), DET(QP_UD1, G_V4A, -EINVAL) },
	  .nr_mcg = 1, .nr_mca = 1, .nr_mcast = { [QP_UD0] = 1 } },
	{ .name = "detach_no_group", .steps = { DET(QP_UD0, G_V4B, -EINVAL) } },
	{ .name = "rc_qp", .steps = { ATT(QP_RC, G_V4A, -EINVAL) } },
	{ .name = "unicast_gid", .steps = { ATT(QP_UD0, G_UNICAST, -EINVAL) } },
	{ .name = "destroy_leaves_all",
	  .steps = { ATT(QP_UD0, G_V4A, 0), ATT(QP_UD0, G_V6, 0),
		     ATT(QP_UD1, G_V4A, 0), LEAVE(QP_UD0) },
	  .nr_mcg = 1, .nr_mca = 1, .nr_mcast = { [QP_UD1] = 1 } },
	{ .name = "destroy_unattached", .steps = { LEAVE(QP_UD1) } },
	{ .name = "group_limit",
	  .steps = { ATT(QP_UD0, G_V4A, 0), FULL, ATT(QP_UD1, G_V4B, -ENOMEM),
		     ATT(QP_UD1, G_V4A, 0) },
	  .nr_mcg = 1, .nr_mca = 2, .nr_mcast = { 1, 1 } },
};

#undef ATT
#undef DET
#undef LEAVE
#undef FULL

static void sroce_mc_case_desc(const struct sroce_mc_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sroce_mc, sroce_mc_cases, sroce_mc_case_desc);

struct sroce_mc_ctx {
	struct sroce_dev *dev;
	struct sroce_qp *qp[SROCE_MC_NR_QPS];
};

static int sroce_mc_init(struct kunit *test)
{
	static const enum ib_qp_type types[SROCE_MC_NR_QPS] = {
		[QP_UD0] = IB_QPT_UD, [QP_UD1] = IB_QPT_UD, [QP_RC] = IB_QPT_RC,
	};
	struct sroce_mc_ctx *ctx;
	unsigned int i;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->dev = kunit_kzalloc(test, sizeof(*ctx->dev), GFP_KERNEL);
	if (!ctx->dev)
		return -ENOMEM;
	sroce_mcast_dev_init(ctx->dev);
	for (i = 0; i < SROCE_MC_NR_QPS; i++) {
		ctx->qp[i] = kunit_kzalloc(test, sizeof(*ctx->qp[i]),
					   GFP_KERNEL);
		if (!ctx->qp[i])
			return -ENOMEM;
		ctx->qp[i]->dev = ctx->dev;
		ctx->qp[i]->type = types[i];
		ctx->qp[i]->ibqp.qp_type = types[i];
		kref_init(&ctx->qp[i]->ref);
	}
	test->priv = ctx;
	return 0;
}

/* Leave every group (the cases may leave some), then wait for the frees. */
static void sroce_mc_exit(struct kunit *test)
{
	struct sroce_mc_ctx *ctx = test->priv;
	unsigned int i;

	if (!ctx)
		return;
	for (i = 0; i < SROCE_MC_NR_QPS; i++)
		sroce_mcast_qp_leave_all(ctx->qp[i]);
	KUNIT_EXPECT_EQ(test, ctx->dev->nr_mcg, 0u);
	KUNIT_EXPECT_EQ(test, ctx->dev->nr_mca, 0u);
	rcu_barrier();	/* the kfree_rcu()s of the groups */
}

static int sroce_mc_run(struct sroce_mc_ctx *ctx,
			const struct sroce_mc_step *s)
{
	union ib_gid gid = sroce_mc_gids[s->gid];
	struct ib_qp *ibqp = &ctx->qp[s->qp]->ibqp;

	switch (s->op) {
	case MC_ATTACH:
		return sroce_mcast_attach(ibqp, &gid, 0);
	case MC_DETACH:
		return sroce_mcast_detach(ibqp, &gid, 0);
	case MC_LEAVE_ALL:
		sroce_mcast_qp_leave_all(ctx->qp[s->qp]);
		return 0;
	case MC_FULL:
		/* pretend the rest of the groups exist; undone below */
		ctx->dev->nr_mcg = SROCE_MAX_MCAST_GRP;
		return 0;
	default:
		return -EINVAL;
	}
}

static void sroce_mc_test(struct kunit *test)
{
	const struct sroce_mc_case *c = test->param_value;
	struct sroce_mc_ctx *ctx = test->priv;
	u32 real_mcg = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c->steps) && c->steps[i].op != MC_END; i++) {
		if (c->steps[i].op == MC_FULL)
			real_mcg = ctx->dev->nr_mcg;
		KUNIT_EXPECT_EQ_MSG(test, sroce_mc_run(ctx, &c->steps[i]),
				    c->steps[i].ret, "step %u", i);
	}
	if (real_mcg) {
		KUNIT_EXPECT_EQ(test, ctx->dev->nr_mcg, SROCE_MAX_MCAST_GRP);
		ctx->dev->nr_mcg = real_mcg;
	}
	KUNIT_EXPECT_EQ(test, ctx->dev->nr_mcg, c->nr_mcg);
	KUNIT_EXPECT_EQ(test, ctx->dev->nr_mca, c->nr_mca);
	for (i = 0; i < SROCE_MC_NR_QPS; i++)
		KUNIT_EXPECT_EQ_MSG(test, ctx->qp[i]->nr_mcast, c->nr_mcast[i],
				    "qp %u", i);
}

static struct kunit_case sroce_mc_test_cases[] = {
	KUNIT_CASE_PARAM(sroce_mc_test, sroce_mc_gen_params),
	{}
};

static struct kunit_suite sroce_mc_suite = {
	.name = "sroce_mcast",
	.init = sroce_mc_init,
	.exit = sroce_mc_exit,
	.test_cases = sroce_mc_test_cases,
};

kunit_test_suite(sroce_mc_suite);
