// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite sroce_cc: congestion control arithmetic (sroce_cc.c,
 * sroce_cc_knobs.c) without a device: knob ranges, ECN marking and priority mapping, the CNP
 * interval of the notification point, and the DCQCN reaction point (Zhu
 * et al., SIGCOMM 2015): rate cut, alpha update and decay, fast recovery,
 * additive and hyper increase, floor and ceiling, lazy timers and the
 * token bucket pacer; the device-wide CNP budget of the notification
 * point, alone and under a flood of CE-marked packets through
 * sroce_cc_rcv().  Then one QP hook through modify_qp: a QP moved to
 * RESET starts over at line rate.
 *
 * Rates are in kb/s unless a name says Mb/s; times in ns.  The default
 * parameters are used with a 40 Gb/s line rate (the paper's links), so the
 * ceiling is 40,000,000 kb/s.
 */
#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/ip.h>
#include <linux/netdevice.h>
#include <net/inet_ecn.h>
#include <rdma/ib_pack.h>

#include "sroce.h"
#include "sroce_av.h"
#include "sroce_cc.h"
#include "sroce_qp.h"
#include "sroce_verbs.h"

#define LINE_KBPS	40000000U
#define US		1000ULL		/* ns */
#define T0		(1000000ULL * US)	/* an arbitrary start time */

static void cc_params(struct sroce_cc_params *p)
{
	sroce_cc_params_init(p);
	p->line_rate_mbps = LINE_KBPS / 1000;
}

/* An active limiter at @rc/@rt whose periods all start at @now. */
static void cc_rp_active(struct sroce_cc_rp *rp, u32 rc, u32 rt, u32 alpha,
			 u64 now)
{
	sroce_cc_rp_init(rp);
	rp->active = true;
	rp->rc_kbps = rc;
	rp->rt_kbps = rt;
	rp->alpha = alpha;
	rp->alpha_ts = now;
	rp->rate_ts = now;
	rp->tb_ts = now;
}

/* Field by field: the structure has padding. */
static void cc_rp_expect_same(struct kunit *test, const struct sroce_cc_rp *a,
			      const struct sroce_cc_rp *b)
{
	KUNIT_EXPECT_EQ(test, a->active, b->active);
	KUNIT_EXPECT_EQ(test, a->rc_kbps, b->rc_kbps);
	KUNIT_EXPECT_EQ(test, a->rt_kbps, b->rt_kbps);
	KUNIT_EXPECT_EQ(test, a->alpha, b->alpha);
	KUNIT_EXPECT_EQ(test, a->t_cnt, b->t_cnt);
	KUNIT_EXPECT_EQ(test, a->bc_cnt, b->bc_cnt);
	KUNIT_EXPECT_EQ(test, a->bc_bytes, b->bc_bytes);
	KUNIT_EXPECT_EQ(test, a->alpha_ts, b->alpha_ts);
	KUNIT_EXPECT_EQ(test, a->rate_ts, b->rate_ts);
	KUNIT_EXPECT_EQ(test, a->tb_ts, b->tb_ts);
	KUNIT_EXPECT_EQ(test, a->tokens, b->tokens);
}

/* ------------------------------------------------------------------ */
/* Knobs                                                               */
/* ------------------------------------------------------------------ */

struct sroce_cc_knob_case {
	const char *name;
	enum sroce_cc_knob knob;
	u32 value;
	int err;
};

static const struct sroce_cc_knob_case sroce_cc_knob_cases[] = {
	{ "np_enable_0", SROCE_CC_NP_ENABLE, 0, 0 },
	{ "np_enable_1", SROCE_CC_NP_ENABLE, 1, 0 },
	{ "np_enable_2", SROCE_CC_NP_ENABLE, 2, -EINVAL },
	{ "cnp_interval_0", SROCE_CC_NP_CNP_INTERVAL_US, 0, 0 },
	{ "cnp_interval_max", SROCE_CC_NP_CNP_INTERVAL_US, 1000000, 0 },
	{ "cnp_interval_over", SROCE_CC_NP_CNP_INTERVAL_US, 1000001, -EINVAL },
	{ "cnp_dscp_63", SROCE_CC_NP_CNP_DSCP, 63, 0 },
	{ "cnp_dscp_64", SROCE_CC_NP_CNP_DSCP, 64, -EINVAL },
	{ "cnp_prio_7", SROCE_CC_NP_CNP_PRIO, 7, 0 },
	{ "cnp_prio_8", SROCE_CC_NP_CNP_PRIO, 8, -EINVAL },
	{ "rp_enable_0", SROCE_CC_RP_ENABLE, 0, 0 },
	{ "rp_enable_big", SROCE_CC_RP_ENABLE, U32_MAX, -EINVAL },
	{ "ecn_enable_0", SROCE_CC_RP_ECN_ENABLE, 0, 0 },
	{ "ecn_enable_3", SROCE_CC_RP_ECN_ENABLE, 3, -EINVAL },
	{ "g_shift_0", SROCE_CC_RP_G_SHIFT, 0, -EINVAL },
	{ "g_shift_1", SROCE_CC_RP_G_SHIFT, 1, 0 },
	{ "g_shift_16", SROCE_CC_RP_G_SHIFT, 16, 0 },
	{ "g_shift_17", SROCE_CC_RP_G_SHIFT, 17, -EINVAL },
	{ "alpha_period_0", SROCE_CC_RP_ALPHA_PERIOD_US, 0, -EINVAL },
	{ "alpha_period_1", SROCE_CC_RP_ALPHA_PERIOD_US, 1, 0 },
	{ "alpha_period_over", SROCE_CC_RP_ALPHA_PERIOD_US, 1000001, -EINVAL },
	{ "rate_period_0", SROCE_CC_RP_RATE_PERIOD_US, 0, -EINVAL },
	{ "rate_period_55", SROCE_CC_RP_RATE_PERIOD_US, 55, 0 },
	{ "byte_counter_off", SROCE_CC_RP_BYTE_COUNTER, 0, 0 },
	{ "byte_counter_1g", SROCE_CC_RP_BYTE_COUNTER, 1U << 30, 0 },
	{ "byte_counter_over", SROCE_CC_RP_BYTE_COUNTER, (1U << 30) + 1,
	  -EINVAL },
	{ "fr_steps_0", SROCE_CC_RP_FR_STEPS, 0, 0 },
	{ "fr_steps_255", SROCE_CC_RP_FR_STEPS, 255, 0 },
	{ "fr_steps_256", SROCE_CC_RP_FR_STEPS, 256, -EINVAL },
	{ "ai_0", SROCE_CC_RP_AI_RATE_MBPS, 0, -EINVAL },
	{ "ai_800g", SROCE_CC_RP_AI_RATE_MBPS, 800000, 0 },
	{ "ai_over", SROCE_CC_RP_AI_RATE_MBPS, 800001, -EINVAL },
	{ "hai_1", SROCE_CC_RP_HAI_RATE_MBPS, 1, 0 },
	{ "min_rate_0", SROCE_CC_RP_MIN_RATE_MBPS, 0, -EINVAL },
	{ "min_rate_1", SROCE_CC_RP_MIN_RATE_MBPS, 1, 0 },
	{ "max_rate_auto", SROCE_CC_RP_MAX_RATE_MBPS, 0, 0 },
	{ "max_rate_over", SROCE_CC_RP_MAX_RATE_MBPS, U32_MAX, -EINVAL },
	{ "bad_knob", SROCE_CC_NUM_KNOBS, 0, -EINVAL },
	{ "bad_knob_big", (enum sroce_cc_knob)1000, 1, -EINVAL },
};

static void sroce_cc_knob_case_desc(const struct sroce_cc_knob_case *c,
				    char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s=%u", c->name, c->value);
}

KUNIT_ARRAY_PARAM(sroce_cc_knob, sroce_cc_knob_cases, sroce_cc_knob_case_desc);

/* The validator, and set: a bad value is refused and changes nothing. */
static void sroce_cc_param_check_test(struct kunit *test)
{
	const struct sroce_cc_knob_case *c = test->param_value;
	struct sroce_cc_params p, before;

	KUNIT_EXPECT_EQ(test, sroce_cc_param_check(c->knob, c->value), c->err);

	cc_params(&p);
	before = p;
	KUNIT_EXPECT_EQ(test, sroce_cc_param_set(&p, c->knob, c->value),
			c->err);
	if (c->err) {
		KUNIT_EXPECT_EQ(test, memcmp(&p, &before, sizeof(p)), 0);
	} else {
		KUNIT_EXPECT_EQ(test, sroce_cc_param_get(&p, c->knob),
				c->value);
	}
}

/* Defaults are valid and are the DCQCN paper's values. */
static void sroce_cc_defaults_test(struct kunit *test)
{
	struct sroce_cc_params p;
	unsigned int k, j;

	sroce_cc_params_init(&p);
	for (k = 0; k < SROCE_CC_NUM_KNOBS; k++) {
		const char *name = sroce_cc_knob_name(k);

		KUNIT_ASSERT_NOT_NULL(test, name);
		KUNIT_EXPECT_EQ_MSG(test,
				    sroce_cc_param_check(k,
							 sroce_cc_param_get(&p, k)),
				    0, "knob %s", name);
		/* names are unique within roce_np/ and roce_rp/ but "enable"
		 * is in both; the pair (NP, RP) is the only repeat
		 */
		for (j = 0; j < k; j++)
			if (strcmp(name, sroce_cc_knob_name(j)) == 0)
				KUNIT_EXPECT_STREQ(test, name, "enable");
	}
	KUNIT_EXPECT_NULL(test, sroce_cc_knob_name(SROCE_CC_NUM_KNOBS));

	KUNIT_EXPECT_EQ(test, p.np_enable, 1U);
	KUNIT_EXPECT_EQ(test, p.rp_enable, 1U);
	KUNIT_EXPECT_EQ(test, p.ecn_enable, 1U);
	KUNIT_EXPECT_EQ(test, p.cnp_interval_us, 50U);
	KUNIT_EXPECT_EQ(test, p.cnp_dscp, 48U);
	KUNIT_EXPECT_EQ(test, p.cnp_prio, 6U);
	KUNIT_EXPECT_EQ(test, p.g_shift, 8U);		/* g = 1/256 */
	KUNIT_EXPECT_EQ(test, p.alpha_period_us, 55U);
	KUNIT_EXPECT_EQ(test, p.rate_period_us, 55U);
	KUNIT_EXPECT_EQ(test, p.byte_counter, 10U << 20);
	KUNIT_EXPECT_EQ(test, p.fr_steps, 5U);
	KUNIT_EXPECT_EQ(test, p.ai_rate_mbps, 40U);
	KUNIT_EXPECT_EQ(test, p.max_rate_mbps, 0U);
	KUNIT_EXPECT_EQ(test, p.line_rate_mbps,
			SROCE_CC_DEFAULT_LINE_RATE_MBPS);
}

/* Ceiling: max_rate or the line rate; floor: min_rate, never above. */
static void sroce_cc_ceiling_floor_test(struct kunit *test)
{
	struct sroce_cc_params p;

	cc_params(&p);
	KUNIT_EXPECT_EQ(test, sroce_cc_ceiling_kbps(&p), LINE_KBPS);
	KUNIT_EXPECT_EQ(test, sroce_cc_floor_kbps(&p), 10000U);

	p.max_rate_mbps = 25000;
	KUNIT_EXPECT_EQ(test, sroce_cc_ceiling_kbps(&p), 25000000U);

	p.max_rate_mbps = 0;
	p.line_rate_mbps = 0;	/* unknown speed */
	KUNIT_EXPECT_EQ(test, sroce_cc_ceiling_kbps(&p),
			SROCE_CC_DEFAULT_LINE_RATE_MBPS * 1000);

	p.max_rate_mbps = 100;
	p.min_rate_mbps = 500;	/* floor above the ceiling */
	KUNIT_EXPECT_EQ(test, sroce_cc_floor_kbps(&p), 100000U);
}

/* ------------------------------------------------------------------ */
/* Marking and priority                                                */
/* ------------------------------------------------------------------ */

struct sroce_cc_tos_case {
	const char *name;
	u32 ecn_enable;
	u8 traffic_class;
	u8 tos;
};

static const struct sroce_cc_tos_case sroce_cc_tos_cases[] = {
	{ "dscp0_ect0", 1, 0x00, INET_ECN_ECT_0 },
	{ "dscp26_ect0", 1, 26 << 2, (26 << 2) | INET_ECN_ECT_0 },
	{ "dscp48_ect0", 1, 48 << 2, 0xc2 },
	{ "dscp63_ect0", 1, 63 << 2, 0xfe },
	{ "tc_ecn_bits_ignored", 1, (48 << 2) | INET_ECN_CE, 0xc2 },
	{ "tc_ect1_ignored", 1, INET_ECN_ECT_1, INET_ECN_ECT_0 },
	{ "off_not_ect", 0, 48 << 2, 0xc0 },
	{ "off_clears_ce", 0, INET_ECN_CE, INET_ECN_NOT_ECT },
};

static void sroce_cc_tos_case_desc(const struct sroce_cc_tos_case *c,
				   char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(sroce_cc_tos, sroce_cc_tos_cases, sroce_cc_tos_case_desc);

static void sroce_cc_tos_test(struct kunit *test)
{
	const struct sroce_cc_tos_case *c = test->param_value;
	struct sroce_cc_params p;

	cc_params(&p);
	p.ecn_enable = c->ecn_enable;
	KUNIT_EXPECT_EQ(test, sroce_cc_tos(&p, c->traffic_class), c->tos);
}

static void sroce_cc_tos_no_params_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sroce_cc_tos(NULL, 48 << 2), 0xc2);
}

struct sroce_cc_prio_case {
	u8 traffic_class;
	u8 sl;
	u8 prio;
};

static const struct sroce_cc_prio_case sroce_cc_prio_cases[] = {
	{ 0, 0, 0 },
	{ 7 << 2, 0, 0 },	/* DSCP 7 */
	{ 8 << 2, 0, 1 },	/* DSCP 8 (CS1) */
	{ 26 << 2, 0, 3 },	/* DSCP 26 (AF31), the common RoCE class */
	{ (26 << 2) | 3, 0, 3 },	/* ECN bits do not matter */
	{ 46 << 2, 0, 5 },	/* EF */
	{ 48 << 2, 0, 6 },	/* CS6: CNPs */
	{ 63 << 2, 0, 7 },
	{ 0, 3, 3 },		/* an SL wins */
	{ 48 << 2, 2, 2 },
	{ 0, 7, 7 },
	{ 0, 9, 1 },		/* SL 9: PCP is three bits */
};

static void sroce_cc_prio_case_desc(const struct sroce_cc_prio_case *c,
				    char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "tc=%#x sl=%u", c->traffic_class,
		 c->sl);
}

KUNIT_ARRAY_PARAM(sroce_cc_prio, sroce_cc_prio_cases, sroce_cc_prio_case_desc);

static void sroce_cc_priority_test(struct kunit *test)
{
	const struct sroce_cc_prio_case *c = test->param_value;
	struct sroce_av av = { .traffic_class = c->traffic_class, .sl = c->sl };
	struct sroce_cc_params p;

	cc_params(&p);
	KUNIT_EXPECT_EQ(test, sroce_cc_priority(c->traffic_class, c->sl),
			c->prio);
	/* data packets follow the mapping, CNPs take cnp_prio */
	KUNIT_EXPECT_EQ(test, sroce_cc_skb_priority(&p, &av, 0x04),
			(u32)c->prio);
	p.cnp_prio = 5;
	KUNIT_EXPECT_EQ(test, sroce_cc_skb_priority(&p, &av, SROCE_CNP_OPCODE),
			5U);
}

/* ------------------------------------------------------------------ */
/* Notification point: one CNP per QP per interval                     */
/* ------------------------------------------------------------------ */

#define NP_STEPS	6

struct sroce_cc_np_case {
	const char *name;
	u32 enable;
	u32 interval_us;
	u64 at_ns[NP_STEPS];	/* CE packet arrival times after T0 */
	bool send[NP_STEPS];
};

static const struct sroce_cc_np_case sroce_cc_np_cases[] = {
	{ "interval_50us", 1, 50,
	  { 0, 10 * US, 50 * US - 1, 50 * US, 60 * US, 100 * US },
	  { true, false, false, true, false, true } },
	{ "burst_one_cnp", 1, 50,
	  { 0, 1, 2, 3, 4, 5 },
	  { true, false, false, false, false, false } },
	{ "sparse_all", 1, 50,
	  { 0, 51 * US, 200 * US, 1000 * US, 1051 * US, 1100 * US },
	  { true, true, true, true, true, false } },
	{ "interval_0_every_ce", 1, 0,
	  { 0, 0, 1, 2, 3, 4 },
	  { true, true, true, true, true, true } },
	{ "interval_1s", 1, 1000000,
	  { 0, 999999 * US, 1000000 * US, 1000001 * US, 1999999 * US,
	    2000000 * US },
	  { true, false, true, false, false, true } },
	{ "np_disabled", 0, 50,
	  { 0, 100 * US, 200 * US, 300 * US, 400 * US, 500 * US },
	  { false, false, false, false, false, false } },
};

static void sroce_cc_np_case_desc(const struct sroce_cc_np_case *c,
				  char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(sroce_cc_np, sroce_cc_np_cases, sroce_cc_np_case_desc);

static void sroce_cc_np_interval_test(struct kunit *test)
{
	const struct sroce_cc_np_case *c = test->param_value;
	struct sroce_cc_np np = {};
	struct sroce_cc_params p;
	unsigned int i;

	cc_params(&p);
	p.np_enable = c->enable;
	p.cnp_interval_us = c->interval_us;
	for (i = 0; i < NP_STEPS; i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    sroce_cc_np_should_send_cnp(&np,
								T0 + c->at_ns[i],
								&p),
				    c->send[i], "CE packet %u", i);
}

/* ------------------------------------------------------------------ */
/* Notification point: the device-wide CNP budget                      */
/* ------------------------------------------------------------------ */

#define WIN	SROCE_CC_NP_BUDGET_WINDOW_NS
#define BUDGET	SROCE_CC_NP_BUDGET_CNPS

/* @first CNPs asked for at T0, then @then more at T0 + @later_ns */
struct sroce_cc_budget_case {
	const char *name;
	u32 first;
	u64 later_ns;
	u32 then;
	u32 want_first;		/* granted of @first */
	u32 want_then;		/* granted of @then */
};

static const struct sroce_cc_budget_case sroce_cc_budget_cases[] = {
	{ .name = "within_budget", .first = BUDGET, .later_ns = 0,
	  .then = 0, .want_first = BUDGET, .want_then = 0 },
	{ .name = "flood_capped", .first = 10 * BUDGET, .later_ns = WIN / 2,
	  .then = BUDGET, .want_first = BUDGET, .want_then = 0 },
	{ .name = "just_before_next_window", .first = BUDGET + 1,
	  .later_ns = WIN - 1, .then = 1, .want_first = BUDGET,
	  .want_then = 0 },
	{ .name = "next_window_refills", .first = BUDGET + 1,
	  .later_ns = WIN, .then = BUDGET + 1, .want_first = BUDGET,
	  .want_then = BUDGET },
	{ .name = "long_idle_refills", .first = 3 * BUDGET,
	  .later_ns = 1000 * WIN, .then = 2 * BUDGET, .want_first = BUDGET,
	  .want_then = BUDGET },
	{ .name = "few_cnps_never_limited", .first = 3, .later_ns = 5 * US,
	  .then = 3, .want_first = 3, .want_then = 3 },
};

#undef WIN

static void sroce_cc_budget_case_desc(const struct sroce_cc_budget_case *c,
				      char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(sroce_cc_budget, sroce_cc_budget_cases,
		  sroce_cc_budget_case_desc);

static u32 cc_budget_take_n(struct sroce_cc_np_budget *b, u64 now, u32 n)
{
	u32 granted = 0;

	while (n--)
		granted += sroce_cc_np_budget_take(b, now);
	return granted;
}

static void sroce_cc_np_budget_test(struct kunit *test)
{
	const struct sroce_cc_budget_case *c = test->param_value;
	struct sroce_cc_np_budget b = {};

	KUNIT_EXPECT_EQ(test, cc_budget_take_n(&b, T0, c->first),
			c->want_first);
	KUNIT_EXPECT_EQ(test, cc_budget_take_n(&b, T0 + c->later_ns, c->then),
			c->want_then);
}

static int cc_xmit_count;

/* sroce_dev.kunit_xmit: count the CNP, drop it */
static int cc_count_xmit(struct sroce_dev *dev, struct sroce_qp *qp,
			 const struct sroce_av *av, struct sk_buff *skb)
{
	if (skb->len >= 1 && skb->data[0] == SROCE_CNP_OPCODE)
		cc_xmit_count++;
	kfree_skb(skb);
	return 0;
}

/* A CE-marked IPv4 UD SEND to @qp from 198.18.0.1, as sroce_cc_rcv() sees it */
static struct sk_buff *cc_ce_ud_packet(struct kunit *test,
				       struct sroce_qp *qp)
{
	const struct sroce_opcode_info *info =
		&sroce_opcode[IB_OPCODE_UD_SEND_ONLY];
	struct sroce_pkt_info *pkt;
	struct sroce_deth *deth;
	struct sk_buff *skb;
	struct iphdr *iph;

	skb = alloc_skb(256, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reset_network_header(skb);
	iph = skb_put_zero(skb, sizeof(*iph));
	iph->version = 4;
	iph->ihl = 5;
	iph->tos = INET_ECN_CE;
	iph->saddr = htonl(0xc6120001);
	iph->daddr = htonl(0xc6120002);
	__skb_pull(skb, sizeof(*iph));
	skb_put_zero(skb, info->length + SROCE_ICRC_SIZE);
	sroce_bth_init((struct sroce_bth *)skb->data, IB_OPCODE_UD_SEND_ONLY,
		       false, 0, SROCE_DEFAULT_PKEY, sroce_qpn(qp), false, 0);
	deth = (void *)(skb->data + info->offset[SROCE_HDR_DETH]);
	deth->sqp = cpu_to_be32(0x000777);

	pkt = SROCE_PKT(skb);
	memset(pkt, 0, sizeof(*pkt));
	pkt->hdr = skb->data;
	pkt->paylen = skb->len;
	pkt->opcode = IB_OPCODE_UD_SEND_ONLY;
	pkt->mask = info->mask;
	pkt->ecn = INET_ECN_CE;
	pkt->network_type = RDMA_NETWORK_IPV4;
	pkt->qp = qp;
	return skb;
}

/*
 * A flood of CE-marked packets to a UD QP, each of which would get a CNP
 * by the QP's interval (0: every one): the device sends BUDGET CNPs in a
 * window, counts the rest as cnp_suppressed.  The window is pinned in the
 * future so that the test does not depend on how fast it runs.
 */
static void sroce_cc_np_flood_test(struct kunit *test)
{
	struct sroce_cc_params *p;
	struct sroce_dev *dev;
	struct sroce_qp *qp;
	struct sk_buff *skb;
	unsigned int i;

	dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);
	p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);
	qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, qp);
	dev->ndev = alloc_netdev(0, "srocecc%d", NET_NAME_ENUM, ether_setup);
	KUNIT_ASSERT_NOT_NULL(test, dev->ndev);
	cc_params(p);
	p->cnp_interval_us = 0;
	dev->cc = p;
	dev->kunit_xmit = cc_count_xmit;
	atomic64_set(&dev->cnp_budget.window_ns,
		     ktime_get_ns() + 100 * NSEC_PER_SEC);
	qp->dev = dev;
	qp->type = IB_QPT_UD;
	qp->ibqp.qp_num = 0x000222;
	spin_lock_init(&qp->cc.lock);
	kref_init(&qp->ref);
	skb = cc_ce_ud_packet(test, qp);

	cc_xmit_count = 0;
	for (i = 0; i < BUDGET + 50; i++)
		KUNIT_EXPECT_FALSE(test, sroce_cc_rcv(dev, skb));
	KUNIT_EXPECT_EQ(test, cc_xmit_count, BUDGET);
	KUNIT_EXPECT_EQ(test, atomic64_read(&dev->counters[SROCE_CNT_CNP_SENT]),
			BUDGET);
	KUNIT_EXPECT_EQ(test,
			atomic64_read(&dev->counters[SROCE_CNT_CNP_SUPPRESSED]),
			50);
	KUNIT_EXPECT_EQ(test,
			atomic64_read(&dev->counters[SROCE_CNT_ECN_MARKED_PKTS]),
			BUDGET + 50);
	kfree_skb(skb);
	free_netdev(dev->ndev);
}

#undef BUDGET

struct sroce_cc_cnp_case {
	u32 dest_qpn;
	u16 pkey;
	u8 bytes[12];	/* expected BTH */
};

static const struct sroce_cc_cnp_case sroce_cc_cnp_cases[] = {
	/* opcode 0x81; MigReq (as every sroce BTH); P_Key; BECN | DestQP;
	 * AckReq clear, PSN 0
	 */
	{ 0x000011, 0xffff,
	  { 0x81, 0x40, 0xff, 0xff, 0x40, 0x00, 0x00, 0x11, 0, 0, 0, 0 } },
	{ 0xabcdef, 0x8001,
	  { 0x81, 0x40, 0x80, 0x01, 0x40, 0xab, 0xcd, 0xef, 0, 0, 0, 0 } },
	/* bits above the 24-bit QPN do not leak into FECN/BECN/resv */
	{ 0xff123456, 0x7fff,
	  { 0x81, 0x40, 0x7f, 0xff, 0x40, 0x12, 0x34, 0x56, 0, 0, 0, 0 } },
};

static void sroce_cc_cnp_case_desc(const struct sroce_cc_cnp_case *c,
				   char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "qpn=%#x pkey=%#x", c->dest_qpn,
		 c->pkey);
}

KUNIT_ARRAY_PARAM(sroce_cc_cnp, sroce_cc_cnp_cases, sroce_cc_cnp_case_desc);

/* The CNP on the wire (annex A17.9.3): BTH + 16 zero bytes (+ ICRC = 32). */
static void sroce_cc_cnp_format_test(struct kunit *test)
{
	const struct sroce_cc_cnp_case *c = test->param_value;
	u8 buf[SROCE_CNP_HDR_LEN + 4];
	const struct sroce_bth *bth = (const struct sroce_bth *)buf;
	unsigned int i;

	KUNIT_EXPECT_EQ(test, SROCE_CNP_HDR_LEN + SROCE_ICRC_SIZE, 32);
	KUNIT_EXPECT_EQ(test, (unsigned int)SROCE_CNP_HDR_LEN,
			(unsigned int)sroce_opcode[SROCE_CNP_OPCODE].length);

	memset(buf, 0xa5, sizeof(buf));
	sroce_cc_cnp_fill(buf, c->dest_qpn, c->pkey);
	KUNIT_EXPECT_EQ(test, memcmp(buf, c->bytes, sizeof(c->bytes)), 0);
	for (i = sizeof(*bth); i < SROCE_CNP_HDR_LEN; i++)
		KUNIT_EXPECT_EQ_MSG(test, buf[i], 0, "reserved byte %u", i);
	/* nothing written past the headers */
	for (; i < sizeof(buf); i++)
		KUNIT_EXPECT_EQ(test, buf[i], 0xa5);

	KUNIT_EXPECT_TRUE(test, sroce_bth_becn(bth));
	KUNIT_EXPECT_FALSE(test, sroce_bth_ackreq(bth));
	KUNIT_EXPECT_EQ(test, sroce_bth_qpn(bth), c->dest_qpn & SROCE_QPN_MASK);
	KUNIT_EXPECT_EQ(test, sroce_bth_psn(bth), 0U);
	KUNIT_EXPECT_EQ(test, sroce_bth_pad(bth), 0);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(bth->pkey), c->pkey);
}

/* ------------------------------------------------------------------ */
/* Reaction point: cut and alpha                                       */
/* ------------------------------------------------------------------ */

/* The first CNP turns the limiter on at line rate with alpha = 1: halves. */
static void sroce_cc_rp_first_cnp_test(struct kunit *test)
{
	struct sroce_cc_params p;
	struct sroce_cc_rp rp;
	u64 delay;

	cc_params(&p);
	sroce_cc_rp_init(&rp);
	KUNIT_EXPECT_FALSE(test, rp.active);
	KUNIT_EXPECT_EQ(test, sroce_cc_rp_rate_mbps(&rp, &p), 40000U);

	sroce_cc_rp_on_cnp(&rp, T0, &p);
	KUNIT_EXPECT_TRUE(test, rp.active);
	KUNIT_EXPECT_EQ(test, rp.rt_kbps, LINE_KBPS);
	KUNIT_EXPECT_EQ(test, rp.rc_kbps, LINE_KBPS / 2);
	KUNIT_EXPECT_EQ(test, rp.alpha, (u32)SROCE_CC_ALPHA_ONE);
	KUNIT_EXPECT_EQ(test, sroce_cc_rp_rate_mbps(&rp, &p), 20000U);
	KUNIT_EXPECT_EQ(test, rp.t_cnt, 0U);
	KUNIT_EXPECT_EQ(test, rp.bc_cnt, 0U);

	/* the bucket starts empty: one packet goes, the next one waits */
	KUNIT_EXPECT_TRUE(test, sroce_cc_rp_pace(&rp, 1000, T0, &p, &delay));
	KUNIT_EXPECT_FALSE(test, sroce_cc_rp_pace(&rp, 1000, T0, &p, &delay));
	KUNIT_EXPECT_EQ(test, delay, 400ULL);	/* 8000 bits at 20 Gb/s */
}

struct sroce_cc_cut_case {
	const char *name;
	u32 rc;
	u32 alpha;
	u32 g_shift;
	u32 min_rate_mbps;
	u32 rc_after;
	u32 alpha_after;
};

static const struct sroce_cc_cut_case sroce_cc_cut_cases[] = {
	/* RC * (1 - alpha/2); alpha = alpha - alpha*g + g (2^-16 units) */
	{ "alpha_1", 30000000, 65536, 8, 10, 15000000, 65536 },
	/* RC at the ceiling: the limiter restarts there with alpha = 1 */
	{ "at_line_rate", 40000000, 32768, 8, 10, 20000000, 65536 },
	{ "alpha_half", 20000000, 32768, 8, 10, 15000000, 32896 },
	{ "alpha_0_no_cut", 10000000, 0, 8, 10, 10000000, 256 },
	{ "alpha_small", 1000000, 1000, 8, 10, 992371, 1253 },
	{ "g_1_16", 20000000, 32768, 4, 10, 15000000, 34816 },
	{ "g_1_2", 20000000, 65536, 1, 10, 10000000, 65536 },
	{ "g_2e-16", 20000000, 32768, 16, 10, 15000000, 32769 },
	{ "to_floor_exact", 20000, 65536, 8, 10, 10000, 65536 },
	{ "below_floor_clamped", 15000, 65536, 8, 10, 10000, 65536 },
	{ "floor_1mbps", 1500, 65536, 8, 1, 1000, 65536 },
	{ "odd_rate", 12345679, 65536, 8, 10, 6172840, 65536 },
};

static void sroce_cc_cut_case_desc(const struct sroce_cc_cut_case *c,
				   char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(sroce_cc_cut, sroce_cc_cut_cases, sroce_cc_cut_case_desc);

static void sroce_cc_rp_cut_test(struct kunit *test)
{
	const struct sroce_cc_cut_case *c = test->param_value;
	struct sroce_cc_params p;
	struct sroce_cc_rp rp;

	cc_params(&p);
	p.g_shift = c->g_shift;
	p.min_rate_mbps = c->min_rate_mbps;
	cc_rp_active(&rp, c->rc, LINE_KBPS, c->alpha, T0);
	rp.t_cnt = 7;
	rp.bc_cnt = 3;
	rp.bc_bytes = 1234;

	sroce_cc_rp_on_cnp(&rp, T0 + 5, &p);
	KUNIT_EXPECT_TRUE(test, rp.active);
	KUNIT_EXPECT_EQ(test, rp.rt_kbps, c->rc);	/* RT = old RC */
	KUNIT_EXPECT_EQ(test, rp.rc_kbps, c->rc_after);
	KUNIT_EXPECT_EQ(test, rp.alpha, c->alpha_after);
	/* back to fast recovery, periods restart at the CNP */
	KUNIT_EXPECT_EQ(test, rp.t_cnt, 0U);
	KUNIT_EXPECT_EQ(test, rp.bc_cnt, 0U);
	KUNIT_EXPECT_EQ(test, rp.bc_bytes, 0U);
	KUNIT_EXPECT_EQ(test, rp.alpha_ts, T0 + 5);
	KUNIT_EXPECT_EQ(test, rp.rate_ts, T0 + 5);
}

struct sroce_cc_decay_case {
	u32 alpha;
	u32 g_shift;
	u64 periods;
	u32 expect;	/* floor(alpha * (1 - 2^-g_shift)^periods), Q32 */
};

static const struct sroce_cc_decay_case sroce_cc_decay_cases[] = {
	{ 65536, 8, 0, 65536 },
	{ 65536, 8, 1, 65280 },		/* 65536 * 255/256 exactly */
	{ 65536, 8, 2, 65025 },
	{ 65536, 8, 6, 64014 },		/* exact 64014.9 */
	{ 65536, 8, 10, 63020 },	/* exact 63020.5 */
	{ 65536, 8, 55, 52843 },	/* exact 52843.5 */
	{ 65536, 8, 1000, 1308 },	/* exact 1308.3 */
	{ 65536, 8, 3000, 0 },
	{ 65536, 8, 1ULL << 40, 0 },
	{ 65536, 8, U64_MAX, 0 },
	{ 1000, 8, 1, 996 },		/* 1000 - ceil(1000/256) */
	{ 1, 8, 1, 0 },			/* reaches zero, does not stick */
	{ 0, 8, 100, 0 },
	{ 65536, 1, 1, 32768 },
	{ 65536, 1, 16, 1 },
	{ 65536, 1, 17, 0 },
	{ 32768, 4, 3, 27000 },		/* 32768 * (15/16)^3 */
	{ 65536, 16, 1, 65535 },
	{ 65536, 16, 65536, 24108 },	/* exact 24109.2: e^-1 */
};

static void sroce_cc_decay_case_desc(const struct sroce_cc_decay_case *c,
				     char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "alpha=%u g=2^-%u n=%llu",
		 c->alpha, c->g_shift, c->periods);
}

KUNIT_ARRAY_PARAM(sroce_cc_decay, sroce_cc_decay_cases,
		  sroce_cc_decay_case_desc);

static void sroce_cc_alpha_decay_test(struct kunit *test)
{
	const struct sroce_cc_decay_case *c = test->param_value;
	struct sroce_cc_params p;
	struct sroce_cc_rp rp;

	KUNIT_EXPECT_EQ(test, sroce_cc_alpha_decay(c->alpha, c->g_shift,
						   c->periods), c->expect);

	/* the same through the state and the knob */
	cc_params(&p);
	p.g_shift = c->g_shift;
	cc_rp_active(&rp, 1000000, 2000000, c->alpha, T0);
	sroce_cc_rp_alpha_timer(&rp, c->periods, &p);
	KUNIT_EXPECT_EQ(test, rp.alpha, c->expect);
	KUNIT_EXPECT_EQ(test, rp.rc_kbps, 1000000U);	/* rate untouched */
}

/* More periods never give a larger alpha. */
static void sroce_cc_alpha_decay_monotonic_test(struct kunit *test)
{
	u32 prev = SROCE_CC_ALPHA_ONE, a;
	u64 n;

	for (n = 0; n <= 4096; n++) {
		a = sroce_cc_alpha_decay(SROCE_CC_ALPHA_ONE, 8, n);
		KUNIT_ASSERT_LE_MSG(test, a, prev, "n=%llu", n);
		prev = a;
	}
	KUNIT_EXPECT_EQ(test, prev, 0U);
}

/* ------------------------------------------------------------------ */
/* Reaction point: rate increase                                       */
/* ------------------------------------------------------------------ */

struct sroce_cc_inc_case {
	const char *name;
	enum sroce_cc_event ev;
	u32 fr_steps;
	u32 t_cnt;	/* before the event */
	u32 bc_cnt;
	u32 rc;
	u32 rt;
	u32 rc_after;
	u32 rt_after;
	bool active_after;
};

#define TIMER	SROCE_CC_EV_TIMER
#define BYTES	SROCE_CC_EV_BYTES

static const struct sroce_cc_inc_case sroce_cc_inc_cases[] = {
	/* fast recovery: RC = (RT + RC) / 2 while max(T, BC) <= F = 5 */
	{ "fr_first", TIMER, 5, 0, 0, 10000000, 20000000,
	  15000000, 20000000, true },
	{ "fr_fifth", TIMER, 5, 4, 0, 10000000, 20000000,
	  15000000, 20000000, true },
	{ "fr_bytes", BYTES, 5, 3, 0, 10000000, 20000000,
	  15000000, 20000000, true },
	{ "fr_both_at_f", BYTES, 5, 5, 4, 10000000, 20000000,
	  15000000, 20000000, true },
	{ "fr_rounds_up", TIMER, 5, 0, 0, 19999999, 20000000,
	  20000000, 20000000, true },
	/* additive: one counter past F, RT += R_AI (40 Mb/s) */
	{ "ai_timer", TIMER, 5, 5, 0, 10000000, 20000000,
	  15020000, 20040000, true },
	{ "ai_bytes", BYTES, 5, 0, 5, 10000000, 20000000,
	  15020000, 20040000, true },
	{ "ai_one_at_f", TIMER, 5, 9, 5, 10000000, 20000000,
	  15020000, 20040000, true },
	{ "ai_f_zero", TIMER, 0, 0, 0, 10000000, 20000000,
	  15020000, 20040000, true },
	/* hyper: both counters past F, RT += R_HAI (100 Mb/s) */
	{ "hai_timer", TIMER, 5, 6, 6, 10000000, 20000000,
	  15050000, 20100000, true },
	{ "hai_bytes", BYTES, 5, 6, 5, 10000000, 20000000,
	  15050000, 20100000, true },
	{ "hai_saturated", TIMER, 5, 0xffff, 0xffff, 10000000, 20000000,
	  15050000, 20100000, true },
	/* ceiling: RT stops at line rate; RC reaching it releases */
	{ "ceiling_rt", TIMER, 5, 5, 0, 39990000, 39990000,
	  39995000, 40000000, true },
	{ "ceiling_hai", TIMER, 5, 6, 6, 39000000, 39950000,
	  39500000, 40000000, true },
	{ "release", TIMER, 5, 0, 0, 39999999, 40000000,
	  40000000, 40000000, false },
	{ "release_ai", TIMER, 5, 5, 0, 39999999, 39999999,
	  40000000, 40000000, false },
};

static void sroce_cc_inc_case_desc(const struct sroce_cc_inc_case *c,
				   char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(sroce_cc_inc, sroce_cc_inc_cases, sroce_cc_inc_case_desc);

static void sroce_cc_rp_increase_test(struct kunit *test)
{
	const struct sroce_cc_inc_case *c = test->param_value;
	struct sroce_cc_params p;
	struct sroce_cc_rp rp;

	cc_params(&p);
	p.fr_steps = c->fr_steps;
	cc_rp_active(&rp, c->rc, c->rt, SROCE_CC_ALPHA_ONE / 2, T0);
	rp.t_cnt = c->t_cnt;
	rp.bc_cnt = c->bc_cnt;

	sroce_cc_rp_increase_event(&rp, c->ev, &p);
	KUNIT_EXPECT_EQ(test, rp.rc_kbps, c->rc_after);
	KUNIT_EXPECT_EQ(test, rp.rt_kbps, c->rt_after);
	KUNIT_EXPECT_EQ(test, rp.active, c->active_after);
	KUNIT_EXPECT_LE(test, rp.rc_kbps, LINE_KBPS);
	KUNIT_EXPECT_LE(test, rp.rt_kbps, LINE_KBPS);
	if (c->active_after) {
		KUNIT_EXPECT_EQ(test, rp.t_cnt,
				c->ev == TIMER ? min(c->t_cnt + 1, 0xffffU) :
						 c->t_cnt);
		KUNIT_EXPECT_EQ(test, rp.bc_cnt,
				c->ev == BYTES ? min(c->bc_cnt + 1, 0xffffU) :
						 c->bc_cnt);
	}
}

/* Off means off: increase events and timers do nothing. */
static void sroce_cc_rp_inactive_test(struct kunit *test)
{
	struct sroce_cc_params p;
	struct sroce_cc_rp rp, before;
	u64 delay = 1;

	cc_params(&p);
	sroce_cc_rp_init(&rp);
	before = rp;
	sroce_cc_rp_increase_event(&rp, TIMER, &p);
	sroce_cc_rp_advance(&rp, T0 + 1000 * US, &p);
	cc_rp_expect_same(test, &rp, &before);
	KUNIT_EXPECT_TRUE(test, sroce_cc_rp_pace(&rp, 4096, T0, &p, &delay));
	KUNIT_EXPECT_EQ(test, delay, 0ULL);
	cc_rp_expect_same(test, &rp, &before);
}

/*
 * Lazy timers: after the first CNP (RC 20 Gb/s, RT 40 Gb/s), one rate
 * period after another gives five fast recovery steps, then additive
 * increase; evaluating late applies the same steps at once.
 */
static const u32 sroce_cc_recovery_rc[] = {
	20000000,	/* after the cut */
	30000000, 35000000, 37500000, 38750000, 39375000,	/* F = 5 */
	39687500,	/* AI: RT = min(40 Gb/s + 40 Mb/s, ceiling) */
	39843750,
};

static void sroce_cc_rp_recovery_test(struct kunit *test)
{
	struct sroce_cc_params p;
	struct sroce_cc_rp rp, late;
	unsigned int k;
	u32 alpha;

	cc_params(&p);
	p.byte_counter = 0;
	sroce_cc_rp_init(&rp);
	sroce_cc_rp_on_cnp(&rp, T0, &p);
	late = rp;

	for (k = 0; k < ARRAY_SIZE(sroce_cc_recovery_rc); k++) {
		/* mid-period: nothing happens */
		sroce_cc_rp_advance(&rp, T0 + k * 55 * US + 54 * US, &p);
		KUNIT_EXPECT_EQ_MSG(test, rp.rc_kbps,
				    sroce_cc_recovery_rc[k], "step %u", k);
		sroce_cc_rp_advance(&rp, T0 + (k + 1) * 55 * US, &p);
		if (k + 1 < ARRAY_SIZE(sroce_cc_recovery_rc))
			KUNIT_EXPECT_EQ_MSG(test, rp.rc_kbps,
					    sroce_cc_recovery_rc[k + 1],
					    "step %u", k + 1);
	}
	KUNIT_EXPECT_EQ(test, rp.t_cnt, 8U);
	KUNIT_EXPECT_EQ(test, rp.rt_kbps, LINE_KBPS);
	/* alpha decayed once per 55 µs period too, one period at a time */
	for (k = 0, alpha = SROCE_CC_ALPHA_ONE; k < 8; k++)
		alpha = sroce_cc_alpha_decay(alpha, 8, 1);
	KUNIT_EXPECT_EQ(test, rp.alpha, alpha);

	/* the same 7 periods at once, plus a partial one */
	sroce_cc_rp_advance(&late, T0 + 7 * 55 * US + 30 * US, &p);
	KUNIT_EXPECT_EQ(test, late.rc_kbps, sroce_cc_recovery_rc[7]);
	KUNIT_EXPECT_EQ(test, late.t_cnt, 7U);
	KUNIT_EXPECT_EQ(test, late.rate_ts, T0 + 7 * 55 * US);
	KUNIT_EXPECT_EQ(test, late.alpha_ts, T0 + 7 * 55 * US);

	/* keeps going until RC is back at line rate: released */
	sroce_cc_rp_advance(&rp, T0 + 100 * 55 * US, &p);
	KUNIT_EXPECT_FALSE(test, rp.active);
	KUNIT_EXPECT_EQ(test, rp.rc_kbps, LINE_KBPS);
	KUNIT_EXPECT_EQ(test, sroce_cc_rp_rate_mbps(&rp, &p), 40000U);
}

/* A long idle time (more than SROCE_CC_MAX_INCREASE_EVENTS periods). */
static void sroce_cc_rp_idle_release_test(struct kunit *test)
{
	struct sroce_cc_params p;
	struct sroce_cc_rp rp;

	cc_params(&p);
	p.max_rate_mbps = 400000;	/* AI alone needs 7500 periods */
	sroce_cc_rp_init(&rp);
	sroce_cc_rp_on_cnp(&rp, T0, &p);
	sroce_cc_rp_on_cnp(&rp, T0 + 1, &p);
	sroce_cc_rp_on_cnp(&rp, T0 + 2, &p);

	sroce_cc_rp_advance(&rp, T0 + 2 + SROCE_CC_MAX_INCREASE_EVENTS * 55 * US,
			    &p);
	KUNIT_EXPECT_TRUE(test, rp.active);
	sroce_cc_rp_advance(&rp,
			    T0 + 2 + (2 * SROCE_CC_MAX_INCREASE_EVENTS + 1) *
			    55 * US, &p);
	KUNIT_EXPECT_FALSE(test, rp.active);
	KUNIT_EXPECT_EQ(test, rp.rc_kbps, 400000000U);
}

/* Many CNPs: RC falls to the floor and stays there. */
static void sroce_cc_rp_floor_test(struct kunit *test)
{
	struct sroce_cc_params p;
	struct sroce_cc_rp rp;
	u32 prev = U32_MAX;
	unsigned int i;

	cc_params(&p);
	sroce_cc_rp_init(&rp);
	for (i = 0; i < 40; i++) {
		sroce_cc_rp_on_cnp(&rp, T0 + i * 50 * US, &p);
		KUNIT_EXPECT_GE(test, rp.rc_kbps, 10000U);
		KUNIT_EXPECT_LE(test, rp.rc_kbps, prev);
		KUNIT_EXPECT_LE(test, rp.alpha, (u32)SROCE_CC_ALPHA_ONE);
		prev = rp.rc_kbps;
	}
	KUNIT_EXPECT_EQ(test, rp.rc_kbps, 10000U);
	KUNIT_EXPECT_EQ(test, sroce_cc_rp_rate_mbps(&rp, &p), 10U);
}

/* A ceiling lowered below RC through sysfs releases the limiter there. */
static void sroce_cc_rp_ceiling_change_test(struct kunit *test)
{
	struct sroce_cc_params p;
	struct sroce_cc_rp rp;
	u64 delay;

	cc_params(&p);
	cc_rp_active(&rp, 30000000, 35000000, SROCE_CC_ALPHA_ONE, T0);
	KUNIT_ASSERT_EQ(test,
			sroce_cc_param_set(&p, SROCE_CC_RP_MAX_RATE_MBPS,
					   20000), 0);
	KUNIT_EXPECT_TRUE(test, sroce_cc_rp_pace(&rp, 100, T0 + 1, &p,
						 &delay));
	KUNIT_EXPECT_FALSE(test, rp.active);
	KUNIT_EXPECT_EQ(test, rp.rc_kbps, 20000000U);
	KUNIT_EXPECT_EQ(test, sroce_cc_rp_rate_mbps(&rp, &p), 20000U);

	/* the next CNP starts from the new ceiling */
	sroce_cc_rp_on_cnp(&rp, T0 + 2, &p);
	KUNIT_EXPECT_EQ(test, rp.rc_kbps, 10000000U);
	KUNIT_EXPECT_EQ(test, rp.rt_kbps, 20000000U);
}

/* ------------------------------------------------------------------ */
/* Pacing                                                              */
/* ------------------------------------------------------------------ */

struct sroce_cc_pace_case {
	const char *name;
	u32 rc;
	u32 bytes;
	u64 delay;	/* of the second back-to-back packet, ns */
};

static const struct sroce_cc_pace_case sroce_cc_pace_cases[] = {
	{ "1g_4k", 1000000, 4096, 32768 },
	{ "10g_4k", 10000000, 4096, 3277 },	/* 3276.8 rounded up */
	{ "20g_1k", 20000000, 1024, 410 },	/* 409.6 */
	{ "39g_1500", 39000000, 1500, 308 },	/* 307.7 */
	{ "10m_1000", 10000, 1000, 800000 },
	{ "1m_64k", 1000, 65536, 524288000 },
	{ "1m_1", 1000, 1, 8000 },
};

static void sroce_cc_pace_case_desc(const struct sroce_cc_pace_case *c,
				    char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(sroce_cc_pace, sroce_cc_pace_cases, sroce_cc_pace_case_desc);

/* Timers far away, byte counter off: pacing alone. */
static void cc_pace_params(struct sroce_cc_params *p)
{
	cc_params(p);
	p->byte_counter = 0;
	p->rate_period_us = 1000000;
	p->alpha_period_us = 1000000;
}

static void sroce_cc_pace_test(struct kunit *test)
{
	const struct sroce_cc_pace_case *c = test->param_value;
	struct sroce_cc_params p;
	struct sroce_cc_rp rp;
	u64 delay;

	cc_pace_params(&p);
	cc_rp_active(&rp, c->rc, c->rc, SROCE_CC_ALPHA_ONE, T0);

	KUNIT_EXPECT_TRUE(test, sroce_cc_rp_pace(&rp, c->bytes, T0, &p, &delay));
	KUNIT_EXPECT_EQ(test, delay, 0ULL);
	KUNIT_EXPECT_FALSE(test, sroce_cc_rp_pace(&rp, c->bytes, T0, &p,
						  &delay));
	KUNIT_EXPECT_EQ(test, delay, c->delay);
	/* asking again is free: still the same wait, nothing charged */
	KUNIT_EXPECT_FALSE(test, sroce_cc_rp_pace(&rp, c->bytes, T0, &p,
						  &delay));
	KUNIT_EXPECT_EQ(test, delay, c->delay);
	/* one ns early: still waiting */
	if (c->delay > 1) {
		KUNIT_EXPECT_FALSE(test, sroce_cc_rp_pace(&rp, c->bytes,
							  T0 + c->delay - 1,
							  &p, &delay));
		KUNIT_EXPECT_GE(test, delay, 1ULL);
	}
	/* on time: goes, and the one after waits a full packet time again */
	KUNIT_EXPECT_TRUE(test, sroce_cc_rp_pace(&rp, c->bytes, T0 + c->delay,
						 &p, &delay));
	KUNIT_EXPECT_FALSE(test, sroce_cc_rp_pace(&rp, c->bytes, T0 + c->delay,
						  &p, &delay));
	KUNIT_EXPECT_GE(test, delay, c->delay - 1);
	KUNIT_EXPECT_LE(test, delay, c->delay);
}

/* Over a long run the pacer sends at RC, not faster. */
static void sroce_cc_pace_rate_test(struct kunit *test)
{
	struct sroce_cc_params p;
	struct sroce_cc_rp rp;
	u64 now = T0, delay, sent = 0;
	unsigned int i;

	cc_pace_params(&p);
	cc_rp_active(&rp, 2500000, 2500000, SROCE_CC_ALPHA_ONE, T0);
	/* a sender that retries exactly when told to, for 10 ms */
	for (i = 0; i < 100000 && now < T0 + 10000 * US; i++) {
		if (sroce_cc_rp_pace(&rp, 1024, now, &p, &delay))
			sent += 1024;
		else
			now += delay;
	}
	/* 2.5 Gb/s for 10 ms = 3,125,000 bytes (+ one packet) */
	KUNIT_EXPECT_GE(test, sent, 3125000ULL);
	KUNIT_EXPECT_LE(test, sent, 3125000ULL + 2 * 1024);
}

/* After an idle time the bucket holds SROCE_CC_BURST_BYTES, no more. */
static void sroce_cc_pace_burst_test(struct kunit *test)
{
	struct sroce_cc_params p;
	struct sroce_cc_rp rp;
	unsigned int n = 0;
	u64 delay;

	cc_pace_params(&p);
	cc_rp_active(&rp, 1000000, 1000000, SROCE_CC_ALPHA_ONE, T0);
	/* 2 s idle: far more than the 64 KiB a 1 Gb/s bucket can hold */
	while (n < 100 && sroce_cc_rp_pace(&rp, 4096, T0 + 2000000 * US, &p,
					   &delay))
		n++;
	/* 16 packets use the burst; a 17th goes on a zero balance */
	KUNIT_EXPECT_EQ(test, n, SROCE_CC_BURST_BYTES / 4096 + 1);
	KUNIT_EXPECT_EQ(test, delay, 32768ULL);
}

/* Disabled reaction point, or no parameters: never paced. */
static void sroce_cc_pace_disabled_test(struct kunit *test)
{
	struct sroce_cc_params p;
	struct sroce_cc_rp rp, before;
	u64 delay = 1;
	unsigned int i;

	cc_pace_params(&p);
	p.rp_enable = 0;
	cc_rp_active(&rp, 1000, 1000, SROCE_CC_ALPHA_ONE, T0);
	before = rp;
	for (i = 0; i < 10; i++) {
		KUNIT_EXPECT_TRUE(test, sroce_cc_rp_pace(&rp, 65536, T0, &p,
							 &delay));
		KUNIT_EXPECT_EQ(test, delay, 0ULL);
		delay = 1;
		KUNIT_EXPECT_TRUE(test, sroce_cc_rp_pace(&rp, 65536, T0, NULL,
							 &delay));
		KUNIT_EXPECT_EQ(test, delay, 0ULL);
	}
	cc_rp_expect_same(test, &rp, &before);
}

/* Bytes sent through the pacer drive the byte counter. */
static void sroce_cc_pace_byte_counter_test(struct kunit *test)
{
	struct sroce_cc_params p;
	struct sroce_cc_rp rp;
	u64 delay;

	cc_pace_params(&p);
	p.byte_counter = 8192;
	cc_rp_active(&rp, 10000000, 20000000, SROCE_CC_ALPHA_ONE, T0);
	rp.tokens = 1LL << 40;		/* enough credit for the test */

	KUNIT_EXPECT_TRUE(test, sroce_cc_rp_pace(&rp, 4096, T0, &p, &delay));
	KUNIT_EXPECT_EQ(test, rp.bc_cnt, 0U);
	KUNIT_EXPECT_EQ(test, rp.bc_bytes, 4096U);
	KUNIT_EXPECT_TRUE(test, sroce_cc_rp_pace(&rp, 4096, T0, &p, &delay));
	KUNIT_EXPECT_EQ(test, rp.bc_cnt, 1U);
	KUNIT_EXPECT_EQ(test, rp.bc_bytes, 0U);
	KUNIT_EXPECT_EQ(test, rp.rc_kbps, 15000000U);	/* fast recovery */
	/* 3.5 counters' worth in one packet: three events, rest carried */
	KUNIT_EXPECT_TRUE(test, sroce_cc_rp_pace(&rp, 28672, T0, &p, &delay));
	KUNIT_EXPECT_EQ(test, rp.bc_cnt, 4U);
	KUNIT_EXPECT_EQ(test, rp.bc_bytes, 4096U);
	KUNIT_EXPECT_EQ(test, rp.rc_kbps, 19375000U);
}

/* ------------------------------------------------------------------ */
/* QP hooks                                                            */
/* ------------------------------------------------------------------ */

/* A QP in @state with its data path set up; its runs only drop packets. */
static struct sroce_qp *cc_qp(struct kunit *test, enum ib_qp_state state)
{
	struct sroce_dev *dev;
	struct sroce_qp *qp;

	dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);
	qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_ASSERT_NOT_NULL(test, qp);
	qp->dev = dev;
	qp->ibqp.device = &dev->ib_dev;
	qp->type = IB_QPT_RC;
	spin_lock_init(&qp->state_lock);
	seqcount_spinlock_init(&qp->av_seq, &qp->state_lock);
	spin_lock_init(&qp->cc.lock);
	sroce_cc_rp_init(&qp->cc.rp);
	kref_init(&qp->ref);
	init_completion(&qp->done);
	KUNIT_ASSERT_EQ(test, sroce_dp_init(qp), 0);
	/* the runs modify_qp schedules find nothing to do */
	set_bit(SROCE_SEND_F_STOPPED, &qp->dp.send.flags);
	qp->state = state;
	return qp;
}

static int cc_qp_state(struct sroce_qp *qp, enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };

	return sroce_qp_modify(qp, &attr, IB_QP_STATE);
}

/*
 * DCQCN state lives as long as the QP's connection: RTS to SQD keeps the
 * cut rate, a move to RESET returns to line rate with the limiter off,
 * and the next CE packet gets a CNP at once (sroce_cc_qp_reset() from
 * sroce_dp_modify()).
 */
static void sroce_cc_qp_reset_test(struct kunit *test)
{
	struct sroce_cc_params p;
	struct sroce_qp *qp;

	if (!sroce_wq)
		kunit_skip(test, "the sroce module did not initialise");
	cc_params(&p);
	qp = cc_qp(test, IB_QPS_RTS);

	/*
	 * It answered a CE packet and got a CNP: half the line rate.  No
	 * assertion from here on: sroce_dp_stop() must run.
	 */
	KUNIT_EXPECT_TRUE(test, sroce_cc_np_should_send_cnp(&qp->cc.np, T0,
							    &p));
	sroce_cc_rp_on_cnp(&qp->cc.rp, T0, &p);
	KUNIT_EXPECT_EQ(test, sroce_cc_rp_rate_mbps(&qp->cc.rp, &p), 20000U);

	KUNIT_EXPECT_EQ(test, cc_qp_state(qp, IB_QPS_SQD), 0);
	KUNIT_EXPECT_TRUE(test, qp->cc.rp.active);
	KUNIT_EXPECT_EQ(test, sroce_cc_rp_rate_mbps(&qp->cc.rp, &p), 20000U);

	KUNIT_EXPECT_EQ(test, cc_qp_state(qp, IB_QPS_RESET), 0);
	KUNIT_EXPECT_EQ(test, qp->state, IB_QPS_RESET);
	KUNIT_EXPECT_FALSE(test, qp->cc.rp.active);
	KUNIT_EXPECT_EQ(test, sroce_cc_rp_rate_mbps(&qp->cc.rp, &p), 40000U);
	/* within cnp_interval_us of the last CNP, which RESET forgot */
	KUNIT_EXPECT_TRUE(test, sroce_cc_np_should_send_cnp(&qp->cc.np,
							    T0 + US, &p));

	sroce_dp_stop(qp);
	KUNIT_EXPECT_EQ(test, kref_read(&qp->ref), 1u);
}

static struct kunit_case sroce_cc_test_cases[] = {
	KUNIT_CASE_PARAM(sroce_cc_param_check_test, sroce_cc_knob_gen_params),
	KUNIT_CASE(sroce_cc_defaults_test),
	KUNIT_CASE(sroce_cc_ceiling_floor_test),
	KUNIT_CASE_PARAM(sroce_cc_tos_test, sroce_cc_tos_gen_params),
	KUNIT_CASE(sroce_cc_tos_no_params_test),
	KUNIT_CASE_PARAM(sroce_cc_priority_test, sroce_cc_prio_gen_params),
	KUNIT_CASE_PARAM(sroce_cc_np_interval_test, sroce_cc_np_gen_params),
	KUNIT_CASE_PARAM(sroce_cc_np_budget_test, sroce_cc_budget_gen_params),
	KUNIT_CASE(sroce_cc_np_flood_test),
	KUNIT_CASE_PARAM(sroce_cc_cnp_format_test, sroce_cc_cnp_gen_params),
	KUNIT_CASE(sroce_cc_rp_first_cnp_test),
	KUNIT_CASE_PARAM(sroce_cc_rp_cut_test, sroce_cc_cut_gen_params),
	KUNIT_CASE_PARAM(sroce_cc_alpha_decay_test, sroce_cc_decay_gen_params),
	KUNIT_CASE(sroce_cc_alpha_decay_monotonic_test),
	KUNIT_CASE_PARAM(sroce_cc_rp_increase_test, sroce_cc_inc_gen_params),
	KUNIT_CASE(sroce_cc_rp_inactive_test),
	KUNIT_CASE(sroce_cc_rp_recovery_test),
	KUNIT_CASE(sroce_cc_rp_idle_release_test),
	KUNIT_CASE(sroce_cc_rp_floor_test),
	KUNIT_CASE(sroce_cc_rp_ceiling_change_test),
	KUNIT_CASE_PARAM(sroce_cc_pace_test, sroce_cc_pace_gen_params),
	KUNIT_CASE(sroce_cc_pace_rate_test),
	KUNIT_CASE(sroce_cc_pace_burst_test),
	KUNIT_CASE(sroce_cc_pace_disabled_test),
	KUNIT_CASE(sroce_cc_pace_byte_counter_test),
	KUNIT_CASE(sroce_cc_qp_reset_test),
	{}
};

static struct kunit_suite sroce_cc_test_suite = {
	.name = "sroce_cc",
	.test_cases = sroce_cc_test_cases,
};

kunit_test_suite(sroce_cc_test_suite);
