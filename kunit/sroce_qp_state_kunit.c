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
 *
 * Then what each state allows (sroce_qp_state_can(), the table in
 * sroce_qp.c), every state against every capability, written out here
 * per capability from 10.3.1 and the verbs (10.8.2).
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

/* Which states have a capability, per capability. */
struct sroce_qps_cap_case {
	const char *name;
	unsigned int cap;
	bool in[SROCE_QPS_NUM];
};

static const struct sroce_qps_cap_case sroce_qps_cap_cases[] = {
	{
		/* 10.3.1.1-3: an immediate error in RESET, INIT and RTR */
		.name = "POST_SEND", .cap = SROCE_QPS_POST_SEND,
		.in = { [IB_QPS_RTS] = true, [IB_QPS_SQD] = true,
			[IB_QPS_SQE] = true, [IB_QPS_ERR] = true },
	}, {
		/* 10.3.1.1: an immediate error in RESET only */
		.name = "POST_RECV", .cap = SROCE_QPS_POST_RECV,
		.in = { [IB_QPS_INIT] = true, [IB_QPS_RTR] = true,
			[IB_QPS_RTS] = true, [IB_QPS_SQD] = true,
			[IB_QPS_SQE] = true, [IB_QPS_ERR] = true },
	}, {
		/* the receive side works from RTR until ERR */
		.name = "RX_REQ", .cap = SROCE_QPS_RX_REQ,
		.in = { [IB_QPS_RTR] = true, [IB_QPS_RTS] = true,
			[IB_QPS_SQD] = true, [IB_QPS_SQE] = true },
	}, {
		/* a QP that has sent: RTS and every state after it */
		.name = "RX_RESP", .cap = SROCE_QPS_RX_RESP,
		.in = { [IB_QPS_RTS] = true, [IB_QPS_SQD] = true,
			[IB_QPS_SQE] = true, [IB_QPS_ERR] = true },
	}, {
		/* SQD completes the WQEs already started */
		.name = "SQ_RUN", .cap = SROCE_QPS_SQ_RUN,
		.in = { [IB_QPS_RTS] = true, [IB_QPS_SQD] = true },
	}, {
		.name = "SQ_DRAIN", .cap = SROCE_QPS_SQ_DRAIN,
		.in = { [IB_QPS_SQD] = true },
	}, {
		/* 10.3.1.7, and the send queue of SQE */
		.name = "SQ_FLUSH", .cap = SROCE_QPS_SQ_FLUSH,
		.in = { [IB_QPS_SQE] = true, [IB_QPS_ERR] = true },
	}, {
		/* 10.3.1.7: SQE keeps its receive queue working */
		.name = "RQ_FLUSH", .cap = SROCE_QPS_RQ_FLUSH,
		.in = { [IB_QPS_ERR] = true },
	}, {
		/* path and remote QPN are given at INIT to RTR */
		.name = "PATH", .cap = SROCE_QPS_PATH,
		.in = { [IB_QPS_RTR] = true, [IB_QPS_RTS] = true,
			[IB_QPS_SQD] = true, [IB_QPS_SQE] = true },
	},
};

static void sroce_qps_cap_desc(const struct sroce_qps_cap_case *c,
			       char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(sroce_qps_cap, sroce_qps_cap_cases, sroce_qps_cap_desc);

/* One capability in every state, and in states out of range. */
static void sroce_qps_cap_test(struct kunit *test)
{
	const struct sroce_qps_cap_case *c = test->param_value;
	unsigned int s;

	KUNIT_ASSERT_EQ(test, hweight32(c->cap), 1u);
	for (s = 0; s < SROCE_QPS_NUM; s++)
		KUNIT_EXPECT_EQ_MSG(test, sroce_qp_state_can(s, c->cap),
				    c->in[s], "in %s", sroce_qps_name[s]);
	KUNIT_EXPECT_FALSE(test, sroce_qp_state_can(SROCE_QPS_NUM, c->cap));
	KUNIT_EXPECT_FALSE(test, sroce_qp_state_can(-1, c->cap));
}

/*
 * The table has no capability the cases above leave out, and asking for
 * several capabilities at once needs all of them.
 */
static void sroce_qps_cap_all_test(struct kunit *test)
{
	unsigned int tested = 0, s, i;

	for (i = 0; i < ARRAY_SIZE(sroce_qps_cap_cases); i++) {
		KUNIT_EXPECT_EQ(test, tested & sroce_qps_cap_cases[i].cap, 0u);
		tested |= sroce_qps_cap_cases[i].cap;
	}
	for (s = 0; s < SROCE_QPS_NUM; s++) {
		KUNIT_EXPECT_EQ_MSG(test, sroce_qp_state_caps_of(s) & ~tested,
				    0u, "in %s", sroce_qps_name[s]);
		KUNIT_EXPECT_TRUE(test, sroce_qp_state_can(s, 0));
	}
	KUNIT_EXPECT_EQ(test, sroce_qp_state_caps_of(IB_QPS_RESET), 0u);
	KUNIT_EXPECT_TRUE(test, sroce_qp_state_can(IB_QPS_SQD,
						   SROCE_QPS_SQ_RUN |
						   SROCE_QPS_SQ_DRAIN));
	KUNIT_EXPECT_FALSE(test, sroce_qp_state_can(IB_QPS_RTS,
						    SROCE_QPS_SQ_RUN |
						    SROCE_QPS_SQ_DRAIN));
}

static struct kunit_case sroce_qp_state_test_cases[] = {
	KUNIT_CASE_PARAM(sroce_qp_state_test, sroce_qp_state_gen_params),
	KUNIT_CASE(sroce_qp_state_walk_test),
	KUNIT_CASE_PARAM(sroce_qps_cap_test, sroce_qps_cap_gen_params),
	KUNIT_CASE(sroce_qps_cap_all_test),
	{}
};

static struct kunit_suite sroce_qp_state_suite = {
	.name = "sroce_qp_state",
	.suite_init = sroce_qp_state_suite_init,
	.test_cases = sroce_qp_state_test_cases,
};

kunit_test_suite(sroce_qp_state_suite);
