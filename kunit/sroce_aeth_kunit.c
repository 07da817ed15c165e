// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite sroce_aeth: AETH syndrome encoding and decoding (IBTA 9.3.5,
 * table 45), NAK codes, the RNR NAK timer table (IBTA 9.7.5.2.8) and the
 * local ACK timeout (IBTA 9.7.6.1.3).
 */
#include <kunit/test.h>

#include "sroce_hdr.h"

/*
 * RNR timer codes in microseconds, written out from IBTA vol. 1 table 45
 * (9.7.5.2.8): code 0 is 655.36 ms, codes 1-31 run from 0.01 ms to
 * 491.52 ms.
 */
static const u32 sroce_rnr_expected_us[32] = {
	655360,
	10, 20, 30, 40, 60, 80, 120, 160,
	240, 320, 480, 640, 960, 1280, 1920, 2560,
	3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960,
	61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

static void sroce_aeth_rnr_timer_test(struct kunit *test)
{
	unsigned int code;

	for (code = 0; code < 32; code++)
		KUNIT_EXPECT_EQ_MSG(test, sroce_rnr_timer_us(code),
				    sroce_rnr_expected_us[code], "code %u", code);

	/* Codes 1..31 strictly increase. */
	for (code = 2; code < 32; code++)
		KUNIT_EXPECT_GT(test, sroce_rnr_timer_us(code),
				sroce_rnr_timer_us(code - 1));
}

/* Only the low five bits of the code count: a whole syndrome byte works. */
static void sroce_aeth_rnr_timer_high_bits_test(struct kunit *test)
{
	unsigned int v;

	for (v = 32; v < 256; v++)
		KUNIT_EXPECT_EQ_MSG(test, sroce_rnr_timer_us(v),
				    sroce_rnr_expected_us[v & 0x1f], "code %#x", v);
}

/*
 * Local ACK timeout: 4.096 us * 2^timeout, 0 = infinite.  The exact value in
 * nanoseconds is 4096 << t; the microsecond result must be that value
 * rounded either way (the spec leaves sub-microsecond precision open).
 */
static void sroce_aeth_retry_timeout_test(struct kunit *test)
{
	u64 prev = 0;
	unsigned int t;

	KUNIT_EXPECT_EQ(test, sroce_retry_timeout_us(0), 0ull);
	for (t = 1; t < 32; t++) {
		u64 ns = 4096ull << t;
		u64 us = sroce_retry_timeout_us(t);

		KUNIT_EXPECT_GE_MSG(test, us, ns / 1000, "timeout %u", t);
		KUNIT_EXPECT_LE_MSG(test, us, DIV_ROUND_UP_ULL(ns, 1000),
				    "timeout %u", t);
		KUNIT_EXPECT_GE_MSG(test, us, prev, "timeout %u", t);
		prev = us;
	}
	/* 2^31 * 4.096 us is about 2.4 hours */
	KUNIT_EXPECT_GE(test, sroce_retry_timeout_us(31), 8796093022ull);
}

struct sroce_aeth_case {
	const char *name;
	u8 syndrome;
	u32 msn;
	u8 type;	/* SROCE_AETH_ACK, _RNR_NAK or _NAK */
	u8 value;	/* credit count, RNR timer code or NAK code */
};

static const struct sroce_aeth_case sroce_aeth_cases[] = {
	{ "ack_credit0", SROCE_AETH_ACK | 0, 0, SROCE_AETH_ACK, 0 },
	{ "ack_credit_invalid", SROCE_AETH_ACK | SROCE_AETH_CREDIT_INVALID,
	  0xffffff, SROCE_AETH_ACK, SROCE_AETH_CREDIT_INVALID },
	{ "ack_msn_mid", SROCE_AETH_ACK | 7, 0x123456, SROCE_AETH_ACK, 7 },
	{ "rnr_655ms", SROCE_AETH_RNR_NAK | 0, 1, SROCE_AETH_RNR_NAK, 0 },
	{ "rnr_0_01ms", SROCE_AETH_RNR_NAK | 1, 2, SROCE_AETH_RNR_NAK, 1 },
	{ "rnr_491ms", SROCE_AETH_RNR_NAK | 31, 0xfffffe,
	  SROCE_AETH_RNR_NAK, 31 },
	{ "nak_psn_seq", SROCE_AETH_NAK | SROCE_NAK_PSN_SEQ_ERR, 5,
	  SROCE_AETH_NAK, SROCE_NAK_PSN_SEQ_ERR },
	{ "nak_invalid_req", SROCE_AETH_NAK | SROCE_NAK_INVALID_REQ, 6,
	  SROCE_AETH_NAK, SROCE_NAK_INVALID_REQ },
	{ "nak_rem_access", SROCE_AETH_NAK | SROCE_NAK_REM_ACCESS, 7,
	  SROCE_AETH_NAK, SROCE_NAK_REM_ACCESS },
	{ "nak_rem_op", SROCE_AETH_NAK | SROCE_NAK_REM_OP_ERR, 8,
	  SROCE_AETH_NAK, SROCE_NAK_REM_OP_ERR },
	{ "nak_invalid_rd", SROCE_AETH_NAK | SROCE_NAK_INVALID_RD_REQ, 9,
	  SROCE_AETH_NAK, SROCE_NAK_INVALID_RD_REQ },
};

static void sroce_aeth_case_desc(const struct sroce_aeth_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sroce_aeth, sroce_aeth_cases, sroce_aeth_case_desc);

static void sroce_aeth_encode_test(struct kunit *test)
{
	const struct sroce_aeth_case *c = test->param_value;
	struct sroce_aeth aeth;
	const u8 *b = (const u8 *)&aeth;
	u8 syn;

	aeth.smsn = cpu_to_be32(sroce_aeth_encode(c->syndrome, c->msn));

	/* wire layout: syndrome byte, then the MSN big-endian */
	KUNIT_EXPECT_EQ(test, b[0], c->syndrome);
	KUNIT_EXPECT_EQ(test, b[1], (u8)(c->msn >> 16));
	KUNIT_EXPECT_EQ(test, b[2], (u8)(c->msn >> 8));
	KUNIT_EXPECT_EQ(test, b[3], (u8)c->msn);

	syn = sroce_aeth_syndrome(&aeth);
	KUNIT_EXPECT_EQ(test, syn, c->syndrome);
	KUNIT_EXPECT_EQ(test, sroce_aeth_msn(&aeth), c->msn);
	KUNIT_EXPECT_EQ(test, syn & SROCE_AETH_TYPE_MASK, c->type);
	KUNIT_EXPECT_EQ(test, syn & SROCE_AETH_VAL_MASK, c->value);
	/* bit 7 of the syndrome is reserved and stays clear */
	KUNIT_EXPECT_EQ(test, syn & 0x80, 0);
}

/* MSN bits above 24 must not leak into the syndrome. */
static void sroce_aeth_msn_mask_test(struct kunit *test)
{
	struct sroce_aeth aeth;

	aeth.smsn = cpu_to_be32(sroce_aeth_encode(SROCE_AETH_ACK | 3,
						  0xff123456));
	KUNIT_EXPECT_EQ(test, sroce_aeth_syndrome(&aeth), SROCE_AETH_ACK | 3);
	KUNIT_EXPECT_EQ(test, sroce_aeth_msn(&aeth), 0x123456u);

	aeth.smsn = cpu_to_be32(sroce_aeth_encode(SROCE_AETH_NAK, 0x1000000));
	KUNIT_EXPECT_EQ(test, sroce_aeth_syndrome(&aeth), SROCE_AETH_NAK);
	KUNIT_EXPECT_EQ(test, sroce_aeth_msn(&aeth), 0u);
}

/* The IBTA values the NAK codes and type bits must have on the wire. */
static void sroce_aeth_constants_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct sroce_aeth), 4);
	KUNIT_EXPECT_EQ(test, SROCE_AETH_ACK, 0x00);
	KUNIT_EXPECT_EQ(test, SROCE_AETH_RNR_NAK, 0x20);
	KUNIT_EXPECT_EQ(test, SROCE_AETH_NAK, 0x60);
	KUNIT_EXPECT_EQ(test, SROCE_NAK_PSN_SEQ_ERR, 0);
	KUNIT_EXPECT_EQ(test, SROCE_NAK_INVALID_REQ, 1);
	KUNIT_EXPECT_EQ(test, SROCE_NAK_REM_ACCESS, 2);
	KUNIT_EXPECT_EQ(test, SROCE_NAK_REM_OP_ERR, 3);
	KUNIT_EXPECT_EQ(test, SROCE_NAK_INVALID_RD_REQ, 4);
	KUNIT_EXPECT_EQ(test, SROCE_AETH_CREDIT_INVALID, 31);
}

static struct kunit_case sroce_aeth_test_cases[] = {
	KUNIT_CASE(sroce_aeth_constants_test),
	KUNIT_CASE_PARAM(sroce_aeth_encode_test, sroce_aeth_gen_params),
	KUNIT_CASE(sroce_aeth_msn_mask_test),
	KUNIT_CASE(sroce_aeth_rnr_timer_test),
	KUNIT_CASE(sroce_aeth_rnr_timer_high_bits_test),
	KUNIT_CASE(sroce_aeth_retry_timeout_test),
	{}
};

static struct kunit_suite sroce_aeth_suite = {
	.name = "sroce_aeth",
	.test_cases = sroce_aeth_test_cases,
};

kunit_test_suite(sroce_aeth_suite);
