// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite sroce_qp_state: every from/to pair of the IBTA QP state
 * machine (vol. 1 10.3.1, figure 124 and the modify-QP attribute tables of
 * 11.2.5.2) through sroce_modify_qp_ok() (sroce_qp.c), for RC and UD.
 *
 * The expected table is written out from the specification: which
 * transitions exist and, per transition and QP type, which attributes are
 * required and which are optional.  For each pair the test checks that the
 * required set passes, that dropping any required attribute fails, that
 * each optional attribute may be added, and that any other attribute makes
 * the request fail.
 */
#include <kunit/test.h>

#include "sroce.h"
#include "sroce_qp.h"

#define SROCE_QPS_NUM	(IB_QPS_ERR + 1)

struct sroce_qp_trans {
	bool valid;
	u32 req[2];	/* [0] RC, [1] UD */
	u32 opt[2];
};

#define RC	0
#define UD	1

/* Attributes RC may change in RTR->RTS, RTS->RTS and SQD->RTS. */
#define RC_RTS_OPT	(IB_QP_CUR_STATE | IB_QP_ALT_PATH |		\
			 IB_QP_ACCESS_FLAGS | IB_QP_MIN_RNR_TIMER |	\
			 IB_QP_PATH_MIG_STATE)
#define UD_RTS_OPT	(IB_QP_CUR_STATE | IB_QP_QKEY)

static const struct sroce_qp_trans sroce_qp_table[SROCE_QPS_NUM][SROCE_QPS_NUM] = {
	[IB_QPS_RESET] = {
		[IB_QPS_RESET] = { .valid = true },
		[IB_QPS_INIT] = {
			.valid = true,
			.req[RC] = IB_QP_PKEY_INDEX | IB_QP_PORT |
				   IB_QP_ACCESS_FLAGS,
			.req[UD] = IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY,
		},
	},
	[IB_QPS_INIT] = {
		[IB_QPS_RESET] = { .valid = true },
		[IB_QPS_ERR] = { .valid = true },
		[IB_QPS_INIT] = {
			.valid = true,
			.opt[RC] = IB_QP_PKEY_INDEX | IB_QP_PORT |
				   IB_QP_ACCESS_FLAGS,
			.opt[UD] = IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY,
		},
		[IB_QPS_RTR] = {
			.valid = true,
			.req[RC] = IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN |
				   IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC |
				   IB_QP_MIN_RNR_TIMER,
			.opt[RC] = IB_QP_ALT_PATH | IB_QP_ACCESS_FLAGS |
				   IB_QP_PKEY_INDEX,
			.opt[UD] = IB_QP_PKEY_INDEX | IB_QP_QKEY,
		},
	},
	[IB_QPS_RTR] = {
		[IB_QPS_RESET] = { .valid = true },
		[IB_QPS_ERR] = { .valid = true },
		[IB_QPS_RTS] = {
			.valid = true,
			.req[RC] = IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
				   IB_QP_RNR_RETRY | IB_QP_SQ_PSN |
				   IB_QP_MAX_QP_RD_ATOMIC,
			.req[UD] = IB_QP_SQ_PSN,
			.opt[RC] = RC_RTS_OPT,
			.opt[UD] = UD_RTS_OPT,
		},
	},
	[IB_QPS_RTS] = {
		[IB_QPS_RESET] = { .valid = true },
		[IB_QPS_ERR] = { .valid = true },
		[IB_QPS_RTS] = {
			.valid = true,
			.opt[RC] = RC_RTS_OPT,
			.opt[UD] = UD_RTS_OPT,
		},
		[IB_QPS_SQD] = {
			.valid = true,
			.opt[RC] = IB_QP_EN_SQD_ASYNC_NOTIFY,
			.opt[UD] = IB_QP_EN_SQD_ASYNC_NOTIFY,
		},
	},
	[IB_QPS_SQD] = {
		[IB_QPS_RESET] = { .valid = true },
		[IB_QPS_ERR] = { .valid = true },
		[IB_QPS_RTS] = {
			.valid = true,
			.opt[RC] = RC_RTS_OPT,
			.opt[UD] = UD_RTS_OPT,
		},
		[IB_QPS_SQD] = {
			.valid = true,
			.opt[RC] = IB_QP_PORT | IB_QP_AV | IB_QP_TIMEOUT |
				   IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
				   IB_QP_MAX_QP_RD_ATOMIC |
				   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_ALT_PATH |
				   IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX |
				   IB_QP_MIN_RNR_TIMER | IB_QP_PATH_MIG_STATE,
			.opt[UD] = IB_QP_PKEY_INDEX | IB_QP_QKEY,
		},
	},
	[IB_QPS_SQE] = {
		[IB_QPS_RESET] = { .valid = true },
		[IB_QPS_ERR] = { .valid = true },
		/* only UD and UC enter SQE; RC has no optional attributes */
		[IB_QPS_RTS] = {
			.valid = true,
			.opt[UD] = UD_RTS_OPT,
		},
	},
	[IB_QPS_ERR] = {
		[IB_QPS_RESET] = { .valid = true },
		[IB_QPS_ERR] = { .valid = true },
	},
};

/* Every attribute bit of enum ib_qp_attr_mask that modify_qp may carry. */
static const u32 sroce_qp_all_attrs[] = {
	IB_QP_CUR_STATE, IB_QP_EN_SQD_ASYNC_NOTIFY, IB_QP_ACCESS_FLAGS,
	IB_QP_PKEY_INDEX, IB_QP_PORT, IB_QP_QKEY, IB_QP_AV, IB_QP_PATH_MTU,
	IB_QP_TIMEOUT, IB_QP_RETRY_CNT, IB_QP_RNR_RETRY, IB_QP_RQ_PSN,
	IB_QP_MAX_QP_RD_ATOMIC, IB_QP_ALT_PATH, IB_QP_MIN_RNR_TIMER,
	IB_QP_SQ_PSN, IB_QP_MAX_DEST_RD_ATOMIC, IB_QP_PATH_MIG_STATE,
	IB_QP_CAP, IB_QP_DEST_QPN, IB_QP_RATE_LIMIT,
};

static const char * const sroce_qps_name[SROCE_QPS_NUM] = {
	"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
};

struct sroce_qp_state_case {
	enum ib_qp_state cur;
	enum ib_qp_state next;
	int t;			/* RC or UD */
};

/* All 7 x 7 pairs for RC and for UD. */
static struct sroce_qp_state_case sroce_qp_state_cases[2 * SROCE_QPS_NUM *
						       SROCE_QPS_NUM];

static void sroce_qp_state_desc(struct sroce_qp_state_case *c,
				char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %s->%s",
		 c->t == RC ? "RC" : "UD", sroce_qps_name[c->cur],
		 sroce_qps_name[c->next]);
}

KUNIT_ARRAY_PARAM(sroce_qp_state, sroce_qp_state_cases, sroce_qp_state_desc);

static int sroce_qp_state_suite_init(struct kunit_suite *suite)
{
	unsigned int i = 0, t, cur, next;

	for (t = RC; t <= UD; t++)
		for (cur = 0; cur < SROCE_QPS_NUM; cur++)
			for (next = 0; next < SROCE_QPS_NUM; next++)
				sroce_qp_state_cases[i++] =
					(struct sroce_qp_state_case){
						cur, next, t };
	return 0;
}

static bool sroce_qp_ok(const struct sroce_qp_state_case *c, u32 mask)
{
	return sroce_modify_qp_ok(c->cur, c->next,
				  c->t == RC ? IB_QPT_RC : IB_QPT_UD,
				  IB_QP_STATE | mask);
}

static void sroce_qp_state_test(struct kunit *test)
{
	const struct sroce_qp_state_case *c = test->param_value;
	const struct sroce_qp_trans *tr = &sroce_qp_table[c->cur][c->next];
	u32 req = tr->req[c->t], opt = tr->opt[c->t];
	unsigned int i;

	if (!tr->valid) {
		/* no mask makes a missing transition valid */
		KUNIT_EXPECT_FALSE(test, sroce_qp_ok(c, 0));
		for (i = 0; i < ARRAY_SIZE(sroce_qp_all_attrs); i++)
			KUNIT_EXPECT_FALSE(test,
					   sroce_qp_ok(c, sroce_qp_all_attrs[i]));
		return;
	}

	KUNIT_EXPECT_TRUE(test, sroce_qp_ok(c, req));
	KUNIT_EXPECT_TRUE(test, sroce_qp_ok(c, req | opt));

	for (i = 0; i < ARRAY_SIZE(sroce_qp_all_attrs); i++) {
		u32 bit = sroce_qp_all_attrs[i];

		if (req & bit)
			KUNIT_EXPECT_FALSE_MSG(test, sroce_qp_ok(c, req & ~bit),
					       "without required %#x", bit);
		else if (opt & bit)
			KUNIT_EXPECT_TRUE_MSG(test, sroce_qp_ok(c, req | bit),
					      "with optional %#x", bit);
		else
			KUNIT_EXPECT_FALSE_MSG(test, sroce_qp_ok(c, req | bit),
					       "with forbidden %#x", bit);
	}
}

/* A few transitions as applications make them. */
static void sroce_qp_state_walk_test(struct kunit *test)
{
	const u32 rc_rtr = IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN |
			   IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC |
			   IB_QP_MIN_RNR_TIMER;
	const u32 rc_rts = IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			   IB_QP_SQ_PSN | IB_QP_MAX_QP_RD_ATOMIC;

	/* the usual RC bring-up, as rdma-core's pingpong does it */
	KUNIT_EXPECT_TRUE(test, sroce_modify_qp_ok(IB_QPS_RESET, IB_QPS_INIT,
						   IB_QPT_RC,
						   IB_QP_STATE |
						   IB_QP_PKEY_INDEX |
						   IB_QP_PORT |
						   IB_QP_ACCESS_FLAGS));
	KUNIT_EXPECT_TRUE(test, sroce_modify_qp_ok(IB_QPS_INIT, IB_QPS_RTR,
						   IB_QPT_RC,
						   IB_QP_STATE | rc_rtr));
	KUNIT_EXPECT_TRUE(test, sroce_modify_qp_ok(IB_QPS_RTR, IB_QPS_RTS,
						   IB_QPT_RC,
						   IB_QP_STATE | rc_rts));
	/* skipping a state is not allowed */
	KUNIT_EXPECT_FALSE(test, sroce_modify_qp_ok(IB_QPS_INIT, IB_QPS_RTS,
						    IB_QPT_RC,
						    IB_QP_STATE | rc_rtr |
						    rc_rts));
	/* IB_QP_CUR_STATE only from RTR, RTS, SQD, SQE */
	KUNIT_EXPECT_FALSE(test, sroce_modify_qp_ok(IB_QPS_INIT, IB_QPS_INIT,
						    IB_QPT_UD,
						    IB_QP_STATE |
						    IB_QP_CUR_STATE));
	KUNIT_EXPECT_TRUE(test, sroce_modify_qp_ok(IB_QPS_SQE, IB_QPS_RTS,
						   IB_QPT_UD,
						   IB_QP_STATE |
						   IB_QP_CUR_STATE));
}

static struct kunit_case sroce_qp_state_test_cases[] = {
	KUNIT_CASE_PARAM(sroce_qp_state_test, sroce_qp_state_gen_params),
	KUNIT_CASE(sroce_qp_state_walk_test),
	{}
};

static struct kunit_suite sroce_qp_state_suite = {
	.name = "sroce_qp_state",
	.suite_init = sroce_qp_state_suite_init,
	.test_cases = sroce_qp_state_test_cases,
};

kunit_test_suite(sroce_qp_state_suite);
