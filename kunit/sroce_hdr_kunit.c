// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite sroce_hdr: the BTH opcode table (sroce_opcode.c) against the
 * IBTA header layout (vol. 1 9.2-9.5, table 38; annex A17 for the CNP),
 * sroce_bth_init() and the BTH accessors, and the placement of headers,
 * payload, pad and ICRC in real skbs, including those the transmit path
 * allocates (sroce_net_alloc_skb()).
 *
 * The expected rows below are written from the specification, not copied
 * from the table under test: which extended headers each opcode carries
 * and what the packet is (request or response, operation, position in the
 * message).  Lengths and offsets are derived here from the IBTA header
 * sizes in wire order.
 */
#include <kunit/test.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include <linux/udp.h>
#include <net/net_namespace.h>
#include <rdma/ib_pack.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "sroce_compat.h"
#include "sroce_av.h"
#include "sroce_net.h"

/* IBTA header sizes in bytes (vol. 1 9.2-9.5). */
#define BTH_BYTES	12
#define RETH_BYTES	16
#define AETH_BYTES	4
#define ATMETH_BYTES	28
#define ATMACK_BYTES	8
#define DETH_BYTES	8
#define IMMDT_BYTES	4
#define IETH_BYTES	4
#define XRCETH_BYTES	4
#define FETH_BYTES	4	/* annex A19.4.1 */

/* Extended headers in the order IBTA puts them after the BTH. */
static const struct {
	enum sroce_hdr_type type;
	u32 mask;
	unsigned int bytes;
} sroce_hdr_wire_order[] = {
	{ SROCE_HDR_XRCETH, SROCE_MASK_XRCETH, XRCETH_BYTES },
	{ SROCE_HDR_DETH, SROCE_MASK_DETH, DETH_BYTES },
	{ SROCE_HDR_FETH, SROCE_MASK_FETH, FETH_BYTES },
	{ SROCE_HDR_RETH, SROCE_MASK_RETH, RETH_BYTES },
	{ SROCE_HDR_ATMETH, SROCE_MASK_ATMETH, ATMETH_BYTES },
	{ SROCE_HDR_AETH, SROCE_MASK_AETH, AETH_BYTES },
	{ SROCE_HDR_ATMACK, SROCE_MASK_ATMACK, ATMACK_BYTES },
	{ SROCE_HDR_IMMDT, SROCE_MASK_IMMDT, IMMDT_BYTES },
	{ SROCE_HDR_IETH, SROCE_MASK_IETH, IETH_BYTES },
};

#define SROCE_HDRS_ALL	(SROCE_MASK_RETH | SROCE_MASK_AETH |		\
			 SROCE_MASK_ATMETH | SROCE_MASK_ATMACK |	\
			 SROCE_MASK_IETH | SROCE_MASK_DETH |		\
			 SROCE_MASK_IMMDT | SROCE_MASK_PAYLOAD |	\
			 SROCE_MASK_XRCETH | SROCE_MASK_FETH)
#define SROCE_KINDS_ALL	(SROCE_MASK_REQ | SROCE_MASK_ACK |		\
			 SROCE_MASK_SEND | SROCE_MASK_WRITE |		\
			 SROCE_MASK_READ | SROCE_MASK_ATOMIC |		\
			 SROCE_MASK_RWR | SROCE_MASK_COMP |		\
			 SROCE_MASK_START | SROCE_MASK_MIDDLE |		\
			 SROCE_MASK_END | SROCE_MASK_CNP |		\
			 SROCE_MASK_INV | SROCE_MASK_ATOMIC_WRITE |	\
			 SROCE_MASK_FLUSH)

/*
 * One expected row.  @hdrs lists the extended headers exactly.  @kind are
 * the meaning bits that must be set; @may those the table is free to set
 * or not (RWR/COMP placement, operation bits on responses, BTH); every
 * other meaning bit must be clear.
 */
struct sroce_hdr_case {
	const char *name;
	u8 opcode;
	enum ib_qp_type qpt;
	u32 hdrs;
	u32 kind;
	u32 may;
};

#define X_PAY		SROCE_MASK_PAYLOAD
#define X_IMM		SROCE_MASK_IMMDT
#define X_RETH		SROCE_MASK_RETH
#define X_AETH		SROCE_MASK_AETH
#define X_FIRST		SROCE_MASK_START
#define X_MIDDLE	SROCE_MASK_MIDDLE
#define X_LAST		SROCE_MASK_END
#define X_ONLY		(SROCE_MASK_START | SROCE_MASK_END)
#define X_SEND		(SROCE_MASK_REQ | SROCE_MASK_SEND)
#define X_WRITE		(SROCE_MASK_REQ | SROCE_MASK_WRITE)
#define X_READ		(SROCE_MASK_REQ | SROCE_MASK_READ)
#define X_ATOMIC	(SROCE_MASK_REQ | SROCE_MASK_ATOMIC)
#define X_RESP		SROCE_MASK_ACK
#define X_COMP		SROCE_MASK_COMP
/* A receive WQE may be taken on any packet of a SEND ... */
#define X_RWR		SROCE_MASK_RWR
/* ... and completed on its last packet. */
#define X_RECV		(SROCE_MASK_RWR | SROCE_MASK_COMP)

#define X_ROW(tr, op, qpt, hdrs, kind, may) \
	{ #tr "_" #op, IB_OPCODE_##tr##_##op, qpt, hdrs, kind, may }
/* XRC (IBTA annex A14): opcode 0xa0 + RC's; requests carry an XRCETH */
#define X_XRC		SROCE_MASK_XRCETH
#define X_XREQ(op, hdrs, kind, may) \
	{ "XRC_" #op, 0xa0 | IB_OPCODE_##op, IB_QPT_XRC_TGT, X_XRC | (hdrs), \
	  kind, may }
#define X_XRESP(op, hdrs, kind, may) \
	{ "XRC_" #op, 0xa0 | IB_OPCODE_##op, IB_QPT_XRC_INI, hdrs, kind, may }

static const struct sroce_hdr_case sroce_hdr_cases[] = {
	/* RC: IBTA table 38, opcodes 0x00-0x17 */
	X_ROW(RC, SEND_FIRST, IB_QPT_RC, X_PAY, X_SEND | X_FIRST, X_RWR),
	X_ROW(RC, SEND_MIDDLE, IB_QPT_RC, X_PAY, X_SEND | X_MIDDLE, X_RWR),
	X_ROW(RC, SEND_LAST, IB_QPT_RC, X_PAY, X_SEND | X_LAST, X_RECV),
	X_ROW(RC, SEND_LAST_WITH_IMMEDIATE, IB_QPT_RC, X_IMM | X_PAY,
	      X_SEND | X_LAST, X_RECV),
	X_ROW(RC, SEND_ONLY, IB_QPT_RC, X_PAY, X_SEND | X_ONLY, X_RECV),
	X_ROW(RC, SEND_ONLY_WITH_IMMEDIATE, IB_QPT_RC, X_IMM | X_PAY,
	      X_SEND | X_ONLY, X_RECV),
	X_ROW(RC, RDMA_WRITE_FIRST, IB_QPT_RC, X_RETH | X_PAY, X_WRITE | X_FIRST,
	      0),
	X_ROW(RC, RDMA_WRITE_MIDDLE, IB_QPT_RC, X_PAY, X_WRITE | X_MIDDLE, 0),
	X_ROW(RC, RDMA_WRITE_LAST, IB_QPT_RC, X_PAY, X_WRITE | X_LAST, X_COMP),
	X_ROW(RC, RDMA_WRITE_LAST_WITH_IMMEDIATE, IB_QPT_RC, X_IMM | X_PAY,
	      X_WRITE | X_LAST, X_RECV),
	X_ROW(RC, RDMA_WRITE_ONLY, IB_QPT_RC, X_RETH | X_PAY, X_WRITE | X_ONLY,
	      X_COMP),
	X_ROW(RC, RDMA_WRITE_ONLY_WITH_IMMEDIATE, IB_QPT_RC,
	      X_RETH | X_IMM | X_PAY, X_WRITE | X_ONLY, X_RECV),
	X_ROW(RC, RDMA_READ_REQUEST, IB_QPT_RC, X_RETH, X_READ | X_ONLY,
	      X_COMP),
	/* responses may name the operation they answer (READ, ATOMIC) */
	X_ROW(RC, RDMA_READ_RESPONSE_FIRST, IB_QPT_RC, X_AETH | X_PAY,
	      X_RESP | X_FIRST, SROCE_MASK_READ),
	X_ROW(RC, RDMA_READ_RESPONSE_MIDDLE, IB_QPT_RC, X_PAY,
	      X_RESP | X_MIDDLE, SROCE_MASK_READ),
	X_ROW(RC, RDMA_READ_RESPONSE_LAST, IB_QPT_RC, X_AETH | X_PAY,
	      X_RESP | X_LAST, SROCE_MASK_READ | X_COMP),
	X_ROW(RC, RDMA_READ_RESPONSE_ONLY, IB_QPT_RC, X_AETH | X_PAY,
	      X_RESP | X_ONLY, SROCE_MASK_READ | X_COMP),
	/* ACKs are single packets; whether they count as START/END is open */
	X_ROW(RC, ACKNOWLEDGE, IB_QPT_RC, X_AETH, X_RESP, X_ONLY | X_COMP),
	X_ROW(RC, ATOMIC_ACKNOWLEDGE, IB_QPT_RC, X_AETH | SROCE_MASK_ATMACK,
	      X_RESP, X_ONLY | SROCE_MASK_ATOMIC | X_COMP),
	X_ROW(RC, COMPARE_SWAP, IB_QPT_RC, SROCE_MASK_ATMETH,
	      X_ATOMIC | X_ONLY, X_COMP),
	X_ROW(RC, FETCH_ADD, IB_QPT_RC, SROCE_MASK_ATMETH,
	      X_ATOMIC | X_ONLY, X_COMP),
	/* IBTA 1.5 oA19-28: RETH and 8 bytes to store (no IB_OPCODE_ in 6.1) */
	{ "RC_ATOMIC_WRITE", SROCE_OPCODE_RC_ATOMIC_WRITE, IB_QPT_RC,
	  X_RETH | X_PAY, SROCE_MASK_REQ | SROCE_MASK_ATOMIC_WRITE | X_ONLY, 0 },
	/* IBTA 1.5 annex A19.4: FETH then RETH, no payload (none in 6.1) */
	{ "RC_FLUSH", SROCE_OPCODE_RC_FLUSH, IB_QPT_RC,
	  SROCE_MASK_FETH | X_RETH, SROCE_MASK_REQ | SROCE_MASK_FLUSH | X_ONLY,
	  0 },
	X_ROW(RC, SEND_LAST_WITH_INVALIDATE, IB_QPT_RC,
	      SROCE_MASK_IETH | X_PAY, X_SEND | X_LAST | SROCE_MASK_INV,
	      X_RECV),
	X_ROW(RC, SEND_ONLY_WITH_INVALIDATE, IB_QPT_RC,
	      SROCE_MASK_IETH | X_PAY, X_SEND | X_ONLY | SROCE_MASK_INV,
	      X_RECV),
	/* UC: SEND and RDMA WRITE only */
	X_ROW(UC, SEND_FIRST, IB_QPT_UC, X_PAY, X_SEND | X_FIRST, X_RWR),
	X_ROW(UC, SEND_MIDDLE, IB_QPT_UC, X_PAY, X_SEND | X_MIDDLE, X_RWR),
	X_ROW(UC, SEND_LAST, IB_QPT_UC, X_PAY, X_SEND | X_LAST, X_RECV),
	X_ROW(UC, SEND_LAST_WITH_IMMEDIATE, IB_QPT_UC, X_IMM | X_PAY,
	      X_SEND | X_LAST, X_RECV),
	X_ROW(UC, SEND_ONLY, IB_QPT_UC, X_PAY, X_SEND | X_ONLY, X_RECV),
	X_ROW(UC, SEND_ONLY_WITH_IMMEDIATE, IB_QPT_UC, X_IMM | X_PAY,
	      X_SEND | X_ONLY, X_RECV),
	X_ROW(UC, RDMA_WRITE_FIRST, IB_QPT_UC, X_RETH | X_PAY, X_WRITE | X_FIRST,
	      0),
	X_ROW(UC, RDMA_WRITE_MIDDLE, IB_QPT_UC, X_PAY, X_WRITE | X_MIDDLE, 0),
	X_ROW(UC, RDMA_WRITE_LAST, IB_QPT_UC, X_PAY, X_WRITE | X_LAST, X_COMP),
	X_ROW(UC, RDMA_WRITE_LAST_WITH_IMMEDIATE, IB_QPT_UC, X_IMM | X_PAY,
	      X_WRITE | X_LAST, X_RECV),
	X_ROW(UC, RDMA_WRITE_ONLY, IB_QPT_UC, X_RETH | X_PAY, X_WRITE | X_ONLY,
	      X_COMP),
	X_ROW(UC, RDMA_WRITE_ONLY_WITH_IMMEDIATE, IB_QPT_UC,
	      X_RETH | X_IMM | X_PAY, X_WRITE | X_ONLY, X_RECV),
	/* UD: SEND ONLY with DETH */
	X_ROW(UD, SEND_ONLY, IB_QPT_UD, SROCE_MASK_DETH | X_PAY,
	      X_SEND | X_ONLY, X_RECV),
	X_ROW(UD, SEND_ONLY_WITH_IMMEDIATE, IB_QPT_UD,
	      SROCE_MASK_DETH | X_IMM | X_PAY, X_SEND | X_ONLY, X_RECV),

	/* XRC: 0xa0-0xb4, 0xb6-0xb7; requests to TGT, responses to INI */
	X_XREQ(SEND_FIRST, X_PAY, X_SEND | X_FIRST, X_RWR),
	X_XREQ(SEND_MIDDLE, X_PAY, X_SEND | X_MIDDLE, X_RWR),
	X_XREQ(SEND_LAST, X_PAY, X_SEND | X_LAST, X_RECV),
	X_XREQ(SEND_LAST_WITH_IMMEDIATE, X_IMM | X_PAY, X_SEND | X_LAST,
	       X_RECV),
	X_XREQ(SEND_ONLY, X_PAY, X_SEND | X_ONLY, X_RECV),
	X_XREQ(SEND_ONLY_WITH_IMMEDIATE, X_IMM | X_PAY, X_SEND | X_ONLY,
	       X_RECV),
	X_XREQ(RDMA_WRITE_FIRST, X_RETH | X_PAY, X_WRITE | X_FIRST, 0),
	X_XREQ(RDMA_WRITE_MIDDLE, X_PAY, X_WRITE | X_MIDDLE, 0),
	X_XREQ(RDMA_WRITE_LAST, X_PAY, X_WRITE | X_LAST, X_COMP),
	X_XREQ(RDMA_WRITE_LAST_WITH_IMMEDIATE, X_IMM | X_PAY,
	       X_WRITE | X_LAST, X_RECV),
	X_XREQ(RDMA_WRITE_ONLY, X_RETH | X_PAY, X_WRITE | X_ONLY, X_COMP),
	X_XREQ(RDMA_WRITE_ONLY_WITH_IMMEDIATE, X_RETH | X_IMM | X_PAY,
	       X_WRITE | X_ONLY, X_RECV),
	X_XREQ(RDMA_READ_REQUEST, X_RETH, X_READ | X_ONLY, X_COMP),
	X_XRESP(RDMA_READ_RESPONSE_FIRST, X_AETH | X_PAY, X_RESP | X_FIRST,
		SROCE_MASK_READ),
	X_XRESP(RDMA_READ_RESPONSE_MIDDLE, X_PAY, X_RESP | X_MIDDLE,
		SROCE_MASK_READ),
	X_XRESP(RDMA_READ_RESPONSE_LAST, X_AETH | X_PAY, X_RESP | X_LAST,
		SROCE_MASK_READ | X_COMP),
	X_XRESP(RDMA_READ_RESPONSE_ONLY, X_AETH | X_PAY, X_RESP | X_ONLY,
		SROCE_MASK_READ | X_COMP),
	X_XRESP(ACKNOWLEDGE, X_AETH, X_RESP, X_ONLY | X_COMP),
	X_XRESP(ATOMIC_ACKNOWLEDGE, X_AETH | SROCE_MASK_ATMACK, X_RESP,
		X_ONLY | SROCE_MASK_ATOMIC | X_COMP),
	X_XREQ(COMPARE_SWAP, SROCE_MASK_ATMETH, X_ATOMIC | X_ONLY, X_COMP),
	X_XREQ(FETCH_ADD, SROCE_MASK_ATMETH, X_ATOMIC | X_ONLY, X_COMP),
	X_XREQ(SEND_LAST_WITH_INVALIDATE, SROCE_MASK_IETH | X_PAY,
	       X_SEND | X_LAST | SROCE_MASK_INV, X_RECV),
	X_XREQ(SEND_ONLY_WITH_INVALIDATE, SROCE_MASK_IETH | X_PAY,
	       X_SEND | X_ONLY | SROCE_MASK_INV, X_RECV),
};

static void sroce_hdr_case_desc(const struct sroce_hdr_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%#04x %s", c->opcode, c->name);
}

KUNIT_ARRAY_PARAM(sroce_hdr, sroce_hdr_cases, sroce_hdr_case_desc);

/* Header length of @hdrs: BTH plus the extended headers. */
static unsigned int sroce_hdr_expected_length(u32 hdrs)
{
	unsigned int i, len = BTH_BYTES;

	for (i = 0; i < ARRAY_SIZE(sroce_hdr_wire_order); i++)
		if (hdrs & sroce_hdr_wire_order[i].mask)
			len += sroce_hdr_wire_order[i].bytes;
	return len;
}

static void sroce_hdr_sizes_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct sroce_bth), BTH_BYTES);
	KUNIT_EXPECT_EQ(test, sizeof(struct sroce_reth), RETH_BYTES);
	KUNIT_EXPECT_EQ(test, sizeof(struct sroce_aeth), AETH_BYTES);
	KUNIT_EXPECT_EQ(test, sizeof(struct sroce_atmeth), ATMETH_BYTES);
	KUNIT_EXPECT_EQ(test, sizeof(struct sroce_atmack), ATMACK_BYTES);
	KUNIT_EXPECT_EQ(test, sizeof(struct sroce_deth), DETH_BYTES);
	KUNIT_EXPECT_EQ(test, sizeof(struct sroce_immdt), IMMDT_BYTES);
	KUNIT_EXPECT_EQ(test, sizeof(struct sroce_ieth), IETH_BYTES);
	KUNIT_EXPECT_EQ(test, sizeof(struct sroce_feth), FETH_BYTES);
	KUNIT_EXPECT_EQ(test, SROCE_ICRC_SIZE, 4);
	KUNIT_EXPECT_EQ(test, SROCE_UDP_PORT, 4791);
	KUNIT_EXPECT_LE(test, sizeof(struct sroce_pkt_info),
			sizeof_field(struct sk_buff, cb));
}

/* One opcode's row: name, QP type, headers, length, offsets, meaning. */
static void sroce_hdr_opcode_test(struct kunit *test)
{
	const struct sroce_hdr_case *c = test->param_value;
	const struct sroce_opcode_info *info = &sroce_opcode[c->opcode];
	unsigned int i, off = BTH_BYTES;
	u32 kinds;

	KUNIT_ASSERT_TRUE(test, sroce_opcode_valid(c->opcode));
	KUNIT_ASSERT_NOT_NULL(test, info->name);
	KUNIT_EXPECT_STREQ(test, info->name, c->name);
	KUNIT_EXPECT_EQ(test, info->qpt, (u8)c->qpt);
	/* the transport bits of the opcode agree with the QP type */
	KUNIT_EXPECT_EQ(test, c->opcode & 0xe0,
			c->qpt == IB_QPT_RC ? SROCE_OP_RC :
			c->qpt == IB_QPT_UC ? SROCE_OP_UC :
			c->qpt == IB_QPT_UD ? SROCE_OP_UD : SROCE_OP_XRC);
	/* an XRC opcode stands for the RC one of the same low bits */
	KUNIT_EXPECT_EQ(test, sroce_rc_opcode(c->opcode),
			c->opcode & (c->opcode >= 0xa0 ? 0x1f : 0xff));

	KUNIT_EXPECT_EQ(test, info->mask & SROCE_HDRS_ALL, c->hdrs);
	kinds = info->mask & SROCE_KINDS_ALL;
	KUNIT_EXPECT_EQ(test, kinds & c->kind, c->kind);
	KUNIT_EXPECT_EQ(test, kinds & ~(c->kind | c->may), 0u);
	/* no undefined bits */
	KUNIT_EXPECT_EQ(test, info->mask & ~(SROCE_HDRS_ALL | SROCE_KINDS_ALL |
					     SROCE_MASK_BTH), 0u);
	/* a request is not a response, and a completion ends a message */
	KUNIT_EXPECT_NE(test, !!(info->mask & SROCE_MASK_REQ),
			!!(info->mask & SROCE_MASK_ACK));
	if (info->mask & SROCE_MASK_COMP)
		KUNIT_EXPECT_TRUE(test, info->mask & SROCE_MASK_END);
	if (info->mask & SROCE_MASK_MIDDLE)
		KUNIT_EXPECT_FALSE(test, info->mask &
				   (SROCE_MASK_START | SROCE_MASK_END));

	KUNIT_EXPECT_EQ(test, info->length, sroce_hdr_expected_length(c->hdrs));
	KUNIT_EXPECT_EQ(test, info->offset[SROCE_HDR_BTH], 0);
	for (i = 0; i < ARRAY_SIZE(sroce_hdr_wire_order); i++) {
		if (!(c->hdrs & sroce_hdr_wire_order[i].mask))
			continue;
		KUNIT_EXPECT_EQ_MSG(test,
				    info->offset[sroce_hdr_wire_order[i].type],
				    off, "header type %d",
				    sroce_hdr_wire_order[i].type);
		off += sroce_hdr_wire_order[i].bytes;
	}
	if (c->hdrs & SROCE_MASK_PAYLOAD)
		KUNIT_EXPECT_EQ(test, info->offset[SROCE_HDR_PAYLOAD], off);
}

/*
 * FETH (annex A19.4.1): the placement type in bits 3..0, the selectivity
 * level in bits 5..4 of a big-endian word, the rest zero; the expected
 * words are written from the specification.
 */
struct sroce_feth_case {
	const char *name;
	u8 type;
	u8 level;
	u32 wire;
};

static const struct sroce_feth_case sroce_feth_cases[] = {
	{ .name = "global-range", .type = 1, .level = 0, .wire = 0x01 },
	{ .name = "global-mr", .type = 1, .level = 1, .wire = 0x11 },
	{ .name = "persistent-range", .type = 2, .level = 0, .wire = 0x02 },
	{ .name = "both-mr", .type = 3, .level = 1, .wire = 0x13 },
	{ .name = "reserved-level", .type = 1, .level = 3, .wire = 0x31 },
};

static void sroce_feth_case_desc(const struct sroce_feth_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sroce_feth, sroce_feth_cases, sroce_feth_case_desc);

static void sroce_hdr_feth_test(struct kunit *test)
{
	const struct sroce_feth_case *c = test->param_value;
	struct sroce_feth feth;
	u8 wire[4];

	feth.bits = sroce_feth_encode(c->type, c->level);
	memcpy(wire, &feth, sizeof(wire));
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(wire), c->wire);
	KUNIT_EXPECT_EQ(test, sroce_feth_type(&feth), c->type);
	KUNIT_EXPECT_EQ(test, sroce_feth_level(&feth), c->level);
	KUNIT_EXPECT_EQ(test, SROCE_FLUSH_GLOBAL, 1u);
	KUNIT_EXPECT_EQ(test, SROCE_FLUSH_PERSISTENT, 2u);
	KUNIT_EXPECT_EQ(test, SROCE_FLUSH_MR, 1);
}

/* Every opcode that is not RC, UC, UD or the CNP is invalid. */
static void sroce_hdr_invalid_opcodes_test(struct kunit *test)
{
	bool expected[256] = {};
	unsigned int op, i, valid = 0;

	for (i = 0; i < ARRAY_SIZE(sroce_hdr_cases); i++) {
		KUNIT_EXPECT_FALSE(test, expected[sroce_hdr_cases[i].opcode]);
		expected[sroce_hdr_cases[i].opcode] = true;
	}
	expected[SROCE_CNP_OPCODE] = true;

	for (op = 0; op < 256; op++) {
		KUNIT_EXPECT_EQ_MSG(test, sroce_opcode_valid(op), expected[op],
				    "opcode %#04x", op);
		valid += sroce_opcode_valid(op);
	}
	/* 25 RC (with ATOMIC WRITE, FLUSH) + 12 UC + 2 UD + 23 XRC + CNP */
	KUNIT_EXPECT_EQ(test, valid, 63u);
	KUNIT_EXPECT_EQ(test, ARRAY_SIZE(sroce_hdr_cases), 62);
}

/*
 * CNP (annex A17.9.3): opcode 0x81, BTH then 16 reserved bytes, then the
 * ICRC.  No extended header; the reserved bytes end the header area.
 */
static void sroce_hdr_cnp_test(struct kunit *test)
{
	const struct sroce_opcode_info *info = &sroce_opcode[SROCE_CNP_OPCODE];
	unsigned int op;

	KUNIT_EXPECT_EQ(test, SROCE_CNP_OPCODE, 0x81);
	KUNIT_ASSERT_TRUE(test, sroce_opcode_valid(SROCE_CNP_OPCODE));
	KUNIT_EXPECT_TRUE(test, info->mask & SROCE_MASK_CNP);
	KUNIT_EXPECT_EQ(test, info->mask & (SROCE_HDRS_ALL & ~SROCE_MASK_PAYLOAD),
			0u);
	KUNIT_EXPECT_EQ(test, info->mask & (SROCE_MASK_REQ | SROCE_MASK_ACK |
					    SROCE_MASK_RWR | SROCE_MASK_COMP),
			0u);
	KUNIT_EXPECT_EQ(test, info->length, BTH_BYTES + 16);
	KUNIT_EXPECT_EQ(test, info->offset[SROCE_HDR_PAYLOAD], BTH_BYTES + 16);
	/* 32 bytes of UDP payload with the ICRC */
	KUNIT_EXPECT_EQ(test, info->length + SROCE_ICRC_SIZE, 32);

	/* only the CNP carries the CNP bit */
	for (op = 0; op < 256; op++)
		if (op != SROCE_CNP_OPCODE)
			KUNIT_EXPECT_FALSE(test, sroce_opcode[op].mask &
						 SROCE_MASK_CNP);
}

struct sroce_bth_case {
	const char *name;
	u8 opcode;
	bool se;
	u8 pad;
	u16 pkey;
	u32 qpn;
	bool ackreq;
	u32 psn;
};

static const struct sroce_bth_case sroce_bth_cases[] = {
	{ "zeros", 0x00, false, 0, 0x0000, 0, false, 0 },
	{ "ones", 0xff, true, 3, 0xffff, 0xffffff, true, 0xffffff },
	{ "send_only", IB_OPCODE_RC_SEND_ONLY, true, 2, 0xffff, 0x000011,
	  true, 0x123456 },
	{ "ud", IB_OPCODE_UD_SEND_ONLY, false, 1, 0x8001, 0x000001, false,
	  0x000042 },
	{ "cnp", SROCE_CNP_OPCODE, false, 0, 0xffff, 0xabcdef, false, 0 },
	/* out-of-range inputs are masked, never spill into other fields */
	{ "qpn_high_bits", IB_OPCODE_RC_ACKNOWLEDGE, false, 0, 0x1234,
	  0xff000001, false, 1 },
	{ "psn_high_bits", IB_OPCODE_RC_ACKNOWLEDGE, false, 0, 0x1234, 1,
	  false, 0xff800000 },
	{ "pad_high_bits", IB_OPCODE_RC_SEND_LAST, false, 0xfd, 0x1234, 1,
	  false, 2 },
};

static void sroce_bth_case_desc(const struct sroce_bth_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sroce_bth, sroce_bth_cases, sroce_bth_case_desc);

/* sroce_bth_init() writes the IBTA 9.2 layout; the accessors read it. */
static void sroce_hdr_bth_test(struct kunit *test)
{
	const struct sroce_bth_case *c = test->param_value;
	u32 qpn = c->qpn & 0xffffff, psn = c->psn & 0xffffff;
	u8 pad = c->pad & 3;
	struct sroce_bth bth;
	const u8 *b = (const u8 *)&bth;

	memset(&bth, 0xa5, sizeof(bth));
	sroce_bth_init(&bth, c->opcode, c->se, c->pad, c->pkey, c->qpn,
		       c->ackreq, c->psn);

	/* raw bytes, big-endian */
	KUNIT_EXPECT_EQ(test, b[0], c->opcode);
	/* SE, MigReq (always set), PadCnt, TVer 0 */
	KUNIT_EXPECT_EQ(test, b[1], (c->se ? 0x80 : 0) | 0x40 | (pad << 4));
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(b + 2), c->pkey);
	/* FECN, BECN, reserved: clear */
	KUNIT_EXPECT_EQ(test, b[4], 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(b + 4), qpn);
	KUNIT_EXPECT_EQ(test, b[8], c->ackreq ? 0x80 : 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(b + 8) & 0xffffff, psn);

	/* accessors */
	KUNIT_EXPECT_EQ(test, sroce_bth_pad(&bth), pad);
	KUNIT_EXPECT_EQ(test, sroce_bth_qpn(&bth), qpn);
	KUNIT_EXPECT_EQ(test, sroce_bth_psn(&bth), psn);
	KUNIT_EXPECT_EQ(test, sroce_bth_ackreq(&bth), c->ackreq);
	KUNIT_EXPECT_EQ(test, sroce_bth_se(&bth), c->se);
	KUNIT_EXPECT_FALSE(test, sroce_bth_becn(&bth));

	/* BECN as a CNP receiver sees it; nothing else moves */
	bth.qpn |= cpu_to_be32(SROCE_BTH_BECN);
	KUNIT_EXPECT_TRUE(test, sroce_bth_becn(&bth));
	KUNIT_EXPECT_EQ(test, sroce_bth_qpn(&bth), qpn);
	KUNIT_EXPECT_EQ(test, b[4], 0x40);
	bth.apsn |= cpu_to_be32(0x7f000000);	/* reserved bits after AckReq */
	KUNIT_EXPECT_EQ(test, sroce_bth_psn(&bth), psn);
}

/* Payload sizes for the skb placement test: every pad count, and MTU. */
static const unsigned int sroce_hdr_paylens[] = { 0, 1, 2, 3, 4, 5, 255, 1024 };

/*
 * Lay a packet out on an skb as the transmit path does (headers from the
 * table, payload, pad to 4 bytes, ICRC) and find every part again through
 * the packet-info accessors alone, as the receive path does.
 */
static void sroce_hdr_skb_layout(struct kunit *test,
				 const struct sroce_hdr_case *c,
				 unsigned int paylen)
{
	const struct sroce_opcode_info *info = &sroce_opcode[c->opcode];
	unsigned int pad = (4 - (paylen & 3)) & 3, i, plen;
	struct sroce_pkt_info *pkt;
	struct sk_buff *skb;
	u8 *hdr, *p;

	skb = alloc_skb(128 + info->length + paylen + pad + SROCE_ICRC_SIZE,
			GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, 128);		/* Ethernet + IPv6 + UDP */

	/* build */
	hdr = skb_put_zero(skb, info->length);
	sroce_bth_init((struct sroce_bth *)hdr, c->opcode, false, pad, 0xffff,
		       0x123, true, 7);
	for (i = 0; i < ARRAY_SIZE(sroce_hdr_wire_order); i++)
		if (c->hdrs & sroce_hdr_wire_order[i].mask)
			memset(hdr + info->offset[sroce_hdr_wire_order[i].type],
			       0x10 + i, sroce_hdr_wire_order[i].bytes);
	p = skb_put(skb, paylen);
	for (i = 0; i < paylen; i++)
		p[i] = i * 7 + 1;
	skb_put_zero(skb, pad);
	put_unaligned_le32(0xdeadbeef, skb_put(skb, SROCE_ICRC_SIZE));

	/* parse */
	pkt = SROCE_PKT(skb);
	memset(pkt, 0, sizeof(*pkt));
	pkt->hdr = skb->data;
	pkt->opcode = sroce_pkt_bth(pkt)->opcode;
	pkt->mask = sroce_opcode[pkt->opcode].mask;
	pkt->paylen = skb->len;
	pkt->psn = sroce_bth_psn(sroce_pkt_bth(pkt));

	KUNIT_EXPECT_EQ(test, pkt->opcode, c->opcode);
	KUNIT_EXPECT_EQ(test, pkt->psn, 7u);
	KUNIT_EXPECT_EQ(test, sroce_bth_pad(sroce_pkt_bth(pkt)), pad);
	for (i = 0; i < ARRAY_SIZE(sroce_hdr_wire_order); i++) {
		const u8 *h;

		if (!(pkt->mask & sroce_hdr_wire_order[i].mask))
			continue;
		h = sroce_pkt_hdr(pkt, sroce_hdr_wire_order[i].type);
		KUNIT_EXPECT_TRUE(test, h >= pkt->hdr + BTH_BYTES);
		KUNIT_EXPECT_TRUE(test, h + sroce_hdr_wire_order[i].bytes <=
					(u8 *)sroce_pkt_hdr(pkt,
							    SROCE_HDR_PAYLOAD));
		KUNIT_EXPECT_TRUE(test, memchr_inv(h, 0x10 + i,
						   sroce_hdr_wire_order[i].bytes)
					== NULL);
	}

	p = sroce_pkt_hdr(pkt, SROCE_HDR_PAYLOAD);
	KUNIT_EXPECT_PTR_EQ(test, p, skb->data + info->length);
	plen = pkt->paylen - info->length - sroce_bth_pad(sroce_pkt_bth(pkt)) -
	       SROCE_ICRC_SIZE;
	KUNIT_EXPECT_EQ(test, plen, paylen);
	for (i = 0; i < paylen && i < plen; i++)
		if (p[i] != (u8)(i * 7 + 1))
			break;
	KUNIT_EXPECT_EQ(test, i, paylen);
	/* pad bytes are zero and end on a 4-byte boundary */
	KUNIT_EXPECT_TRUE(test, !memchr_inv(p + paylen, 0, pad));
	KUNIT_EXPECT_EQ(test, (info->length + paylen + pad) % 4, 0u);
	/* the ICRC is the last 4 bytes, right after the pad */
	KUNIT_EXPECT_PTR_EQ(test, pkt->hdr + pkt->paylen - SROCE_ICRC_SIZE,
			    p + paylen + pad);
	KUNIT_EXPECT_EQ(test, get_unaligned_le32(p + paylen + pad), 0xdeadbeef);
	KUNIT_EXPECT_PTR_EQ(test, p + paylen + pad + SROCE_ICRC_SIZE,
			    skb_tail_pointer(skb));
	kfree_skb(skb);
}

static void sroce_hdr_skb_test(struct kunit *test)
{
	const struct sroce_hdr_case *c = test->param_value;
	unsigned int i;

	if (!(c->hdrs & SROCE_MASK_PAYLOAD)) {
		sroce_hdr_skb_layout(test, c, 0);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(sroce_hdr_paylens); i++)
		sroce_hdr_skb_layout(test, c, sroce_hdr_paylens[i]);
}

/*
 * sroce_net_alloc_skb(): the transmit path's packet buffer.  A device bound
 * to the loopback netdev is enough: only the link header room is read.
 */
static void sroce_hdr_alloc_skb_test(struct kunit *test)
{
	static const u32 paylens[] = { 0, 1, 2, 3, 4, 5, 1024, 4096 };
	static const u8 types[] = { RDMA_NETWORK_IPV4, RDMA_NETWORK_IPV6 };
	const struct sroce_opcode_info *info =
		&sroce_opcode[IB_OPCODE_RC_RDMA_WRITE_ONLY];
	struct sroce_pkt_info pk;
	struct sroce_av av = {};
	struct sroce_dev *dev;
	unsigned int t, i;

	dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	dev->ndev = init_net.loopback_dev;
	KUNIT_ASSERT_NOT_NULL(test, dev->ndev);

	for (t = 0; t < ARRAY_SIZE(types); t++) {
		unsigned int iplen = types[t] == RDMA_NETWORK_IPV4 ?
				     sizeof(struct iphdr) :
				     sizeof(struct ipv6hdr);

		av.network_type = types[t];
		for (i = 0; i < ARRAY_SIZE(paylens); i++) {
			u32 pad = (4 - (paylens[i] & 3)) & 3;
			struct sroce_pkt_info pkt;
			struct sk_buff *skb;

			memset(&pkt, 0xa5, sizeof(pkt));
			skb = sroce_net_alloc_skb(dev, &av, info->length,
						  paylens[i], &pkt);
			KUNIT_ASSERT_NOT_NULL(test, skb);
			KUNIT_EXPECT_FALSE(test, skb_is_nonlinear(skb));
			KUNIT_EXPECT_PTR_EQ(test, pkt.hdr, skb->data);
			KUNIT_EXPECT_EQ(test, pkt.paylen, info->length +
					paylens[i] + pad + SROCE_ICRC_SIZE);
			KUNIT_EXPECT_EQ(test, skb->len, pkt.paylen);
			KUNIT_EXPECT_EQ(test, pkt.network_type, types[t]);
			/* IP and UDP headers and the link header fit in front */
			KUNIT_EXPECT_GE(test, skb_headroom(skb),
					LL_RESERVED_SPACE(dev->ndev) + iplen +
					sizeof(struct udphdr));
			/* headers, pad and ICRC slot start out zeroed */
			KUNIT_EXPECT_NULL(test, memchr_inv(skb->data, 0,
							   info->length));
			KUNIT_EXPECT_NULL(test,
					  memchr_inv(skb->data + info->length +
						     paylens[i], 0,
						     pad + SROCE_ICRC_SIZE));
			/* and end 4-byte aligned relative to the BTH */
			KUNIT_EXPECT_EQ(test, (info->length + paylens[i] + pad) %
					4, 0u);
			kfree_skb(skb);
		}
	}

	/* packets whose UDP length would not fit 16 bits are refused */
	av.network_type = RDMA_NETWORK_IPV4;
	KUNIT_EXPECT_NULL(test, sroce_net_alloc_skb(dev, &av, info->length,
						    U16_MAX, &pk));
	KUNIT_EXPECT_NULL(test, sroce_net_alloc_skb(dev, &av, info->length,
						    U32_MAX, &pk));
	KUNIT_EXPECT_NULL(test, sroce_net_alloc_skb(dev, &av, U32_MAX, 0,
						    &pk));
	/* and so is an unknown network type */
	av.network_type = RDMA_NETWORK_IB;
	KUNIT_EXPECT_NULL(test, sroce_net_alloc_skb(dev, &av, info->length, 0,
						    &pk));
}

static struct kunit_case sroce_hdr_test_cases[] = {
	KUNIT_CASE(sroce_hdr_sizes_test),
	KUNIT_CASE_PARAM(sroce_hdr_opcode_test, sroce_hdr_gen_params),
	KUNIT_CASE(sroce_hdr_invalid_opcodes_test),
	KUNIT_CASE_PARAM(sroce_hdr_feth_test, sroce_feth_gen_params),
	KUNIT_CASE(sroce_hdr_cnp_test),
	KUNIT_CASE_PARAM(sroce_hdr_bth_test, sroce_bth_gen_params),
	KUNIT_CASE_PARAM(sroce_hdr_skb_test, sroce_hdr_gen_params),
	KUNIT_CASE(sroce_hdr_alloc_skb_test),
	{}
};

static struct kunit_suite sroce_hdr_suite = {
	.name = "sroce_hdr",
	.test_cases = sroce_hdr_test_cases,
};

kunit_test_suite(sroce_hdr_suite);
