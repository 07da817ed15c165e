// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite sroce_wr: which work request opcodes each QP type accepts and
 * which send flags each opcode may carry, through sroce_wr_opcode_ok() and
 * sroce_wr_flags_ok() (sroce_opcode.c).
 *
 * The expected rows are written out from the specification (IBTA vol. 1
 * 9.4, the operations each transport service carries; 11.4.1.1 Post Send
 * Request), not from the masks of sroce-abi.h: every (QP type, opcode)
 * pair is checked, including QP types and opcodes the device does not
 * have.  A last case checks that the uapi masks the provider uses say the
 * same as the kernel's table.
 */
#include <kunit/test.h>
#include <uapi/rdma/sroce-abi.h>

#include "sroce_hdr.h"

/**
 * struct sroce_wr_op_case - one work request opcode
 * @name: its name
 * @opcode: enum ib_wr_opcode value (or a value no opcode has)
 * @rc: an RC QP accepts it
 * @uc: a UC QP accepts it
 * @ud: UD and GSI QPs accept it
 * @xrc: an XRC send (INI) QP accepts it (IBTA annex A14: RC's operations
 *	that have an XRC opcode; an XRC TGT QP sends nothing)
 * @inl: it may carry IB_SEND_INLINE
 * @kern: kernel RC, UC and UD QPs (not GSI) accept it besides (memory
 *	management operations); FENCE and SIGNALED are its only flags
 * @mem: a memory operation (LOCAL_INV, BIND_MW): never on GSI, FENCE and
 *	SIGNALED its only flags
 * @user_only: kernel QPs refuse it (BIND_MW: no kernel memory windows;
 *	ATOMIC WRITE: no kernel verb carries its 8 bytes; FLUSH: nor its
 *	placement type and selectivity level)
 */
struct sroce_wr_op_case {
	const char *name;
	u32 opcode;
	bool rc;
	bool uc;
	bool ud;
	bool xrc;
	bool inl;
	bool kern;
	bool mem;
	bool user_only;
};

static const struct sroce_wr_op_case sroce_wr_op_cases[] = {
	{ .name = "RDMA_WRITE", .opcode = IB_WR_RDMA_WRITE,
	  .rc = true, .xrc = true, .uc = true, .inl = true },
	{ .name = "RDMA_WRITE_WITH_IMM", .opcode = IB_WR_RDMA_WRITE_WITH_IMM,
	  .rc = true, .xrc = true, .uc = true, .inl = true },
	{ .name = "SEND", .opcode = IB_WR_SEND,
	  .rc = true, .xrc = true, .uc = true, .ud = true, .inl = true },
	{ .name = "SEND_WITH_IMM", .opcode = IB_WR_SEND_WITH_IMM,
	  .rc = true, .xrc = true, .uc = true, .ud = true, .inl = true },
	/* the local buffer is written: nothing to copy in at posting */
	{ .name = "RDMA_READ", .opcode = IB_WR_RDMA_READ, .rc = true, .xrc = true },
	{ .name = "ATOMIC_CMP_AND_SWP", .opcode = IB_WR_ATOMIC_CMP_AND_SWP,
	  .rc = true, .xrc = true },
	{ .name = "ATOMIC_FETCH_AND_ADD", .opcode = IB_WR_ATOMIC_FETCH_AND_ADD,
	  .rc = true, .xrc = true },
	/* no UC opcode carries an IETH (IBTA 9.2) */
	{ .name = "SEND_WITH_INV", .opcode = IB_WR_SEND_WITH_INV,
	  .rc = true, .xrc = true, .inl = true },
	/* memory windows (IBTA 10.6.7): invalidate anywhere, bind on RC/UC */
	{ .name = "LOCAL_INV", .opcode = IB_WR_LOCAL_INV,
	  .rc = true, .xrc = true, .uc = true, .ud = true, .mem = true },
	{ .name = "BIND_MW", .opcode = IB_WR_BIND_MW,
	  .rc = true, .uc = true, .mem = true, .user_only = true },
	/* kernel verbs only: userspace has no fast-register MR */
	{ .name = "REG_MR", .opcode = IB_WR_REG_MR, .kern = true },
	/* opcodes the device does not carry out */
	{ .name = "LSO", .opcode = IB_WR_LSO },
	{ .name = "RDMA_READ_WITH_INV", .opcode = IB_WR_RDMA_READ_WITH_INV },
	{ .name = "MASKED_ATOMIC_CMP_AND_SWP",
	  .opcode = IB_WR_MASKED_ATOMIC_CMP_AND_SWP },
	{ .name = "MASKED_ATOMIC_FETCH_AND_ADD",
	  .opcode = IB_WR_MASKED_ATOMIC_FETCH_AND_ADD },
	/* IBTA 1.5 annex A19.4: RC only (no XRC opcode), no data */
	{ .name = "FLUSH", .opcode = SROCE_WR_FLUSH, .rc = true,
	  .user_only = true },
	/* IBTA 1.5 oA19-28: RC only, its 8 bytes inline; no kernel verb */
	{ .name = "ATOMIC_WRITE", .opcode = SROCE_WR_ATOMIC_WRITE,
	  .rc = true, .inl = true, .user_only = true },
	{ .name = "REG_MR_INTEGRITY", .opcode = IB_WR_REG_MR_INTEGRITY },
	{ .name = "RESERVED1", .opcode = IB_WR_RESERVED1 },
	{ .name = "255", .opcode = 255 },
	{ .name = "256", .opcode = 256 },
	{ .name = "U32_MAX", .opcode = U32_MAX },
};

/* Every QP type, and values past them, for each opcode. */
static const enum ib_qp_type sroce_wr_qp_types[] = {
	IB_QPT_SMI, IB_QPT_GSI, IB_QPT_RC, IB_QPT_UC, IB_QPT_UD,
	IB_QPT_RAW_IPV6, IB_QPT_RAW_ETHERTYPE, IB_QPT_RAW_PACKET,
	IB_QPT_XRC_INI, IB_QPT_XRC_TGT, IB_QPT_MAX, IB_QPT_DRIVER,
	IB_QPT_RESERVED1, IB_QPT_RESERVED10,
};

static bool sroce_wr_expected(const struct sroce_wr_op_case *c,
			      enum ib_qp_type type)
{
	switch (type) {
	case IB_QPT_RC:
		return c->rc;
	case IB_QPT_UC:
		return c->uc;
	case IB_QPT_UD:
		return c->ud;
	case IB_QPT_GSI:
		return c->ud && !c->mem;
	case IB_QPT_XRC_INI:
		return c->xrc;
	default:
		return false;
	}
}

static void sroce_wr_op_case_desc(const struct sroce_wr_op_case *c,
				  char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sroce_wr_op, sroce_wr_op_cases, sroce_wr_op_case_desc);

/* What a kernel QP of @type accepts: the user rules, local operations. */
static bool sroce_wr_kern_expected(const struct sroce_wr_op_case *c,
				   enum ib_qp_type type)
{
	if (c->user_only)
		return false;
	if (c->kern)
		return type == IB_QPT_RC || type == IB_QPT_UC ||
		       type == IB_QPT_UD;
	return sroce_wr_expected(c, type);
}

/* One opcode on every QP type, then with every single send flag. */
static void sroce_wr_opcode_test(struct kunit *test)
{
	const struct sroce_wr_op_case *c = test->param_value;
	bool any = c->rc || c->uc || c->ud || c->xrc || c->kern;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sroce_wr_qp_types); i++) {
		enum ib_qp_type t = sroce_wr_qp_types[i];

		KUNIT_EXPECT_EQ_MSG(test, sroce_wr_opcode_ok(t, c->opcode),
				    sroce_wr_expected(c, t), "QP type %#x", t);
		KUNIT_EXPECT_EQ_MSG(test,
				    sroce_wr_kernel_opcode_ok(t, c->opcode),
				    sroce_wr_kern_expected(c, t),
				    "kernel QP type %#x", t);
	}

	KUNIT_EXPECT_EQ(test, sroce_wr_flags_ok(c->opcode, 0), any);
	KUNIT_EXPECT_EQ(test, sroce_wr_flags_ok(c->opcode, IB_SEND_FENCE), any);
	KUNIT_EXPECT_EQ(test, sroce_wr_flags_ok(c->opcode, IB_SEND_SIGNALED),
			any);
	KUNIT_EXPECT_EQ(test, sroce_wr_flags_ok(c->opcode, IB_SEND_SOLICITED),
			any && !c->kern && !c->mem);
	KUNIT_EXPECT_EQ(test, sroce_wr_flags_ok(c->opcode, IB_SEND_INLINE),
			any && c->inl);
	KUNIT_EXPECT_FALSE(test, sroce_wr_flags_ok(c->opcode, IB_SEND_IP_CSUM));
	for (i = 5; i < 32; i++)
		KUNIT_EXPECT_FALSE_MSG(test,
				       sroce_wr_flags_ok(c->opcode, BIT(i)),
				       "flag bit %u", i);
}

/**
 * struct sroce_wr_flags_case - send flags on one opcode
 * @name: what is checked
 * @opcode: enum ib_wr_opcode
 * @flags: IB_SEND_* bits
 * @ok: sroce_wr_flags_ok() accepts them
 */
struct sroce_wr_flags_case {
	const char *name;
	u32 opcode;
	u32 flags;
	bool ok;
};

#define ALL3	(IB_SEND_FENCE | IB_SEND_SIGNALED | IB_SEND_SOLICITED)

static const struct sroce_wr_flags_case sroce_wr_flags_cases[] = {
	{ .name = "send-all-four", .opcode = IB_WR_SEND,
	  .flags = ALL3 | IB_SEND_INLINE, .ok = true },
	{ .name = "write-imm-signaled-inline",
	  .opcode = IB_WR_RDMA_WRITE_WITH_IMM,
	  .flags = IB_SEND_SIGNALED | IB_SEND_INLINE, .ok = true },
	{ .name = "send-inv-inline", .opcode = IB_WR_SEND_WITH_INV,
	  .flags = IB_SEND_INLINE, .ok = true },
	{ .name = "read-fence-signaled", .opcode = IB_WR_RDMA_READ,
	  .flags = IB_SEND_FENCE | IB_SEND_SIGNALED, .ok = true },
	{ .name = "read-inline", .opcode = IB_WR_RDMA_READ,
	  .flags = IB_SEND_SIGNALED | IB_SEND_INLINE },
	{ .name = "cmp-swap-inline", .opcode = IB_WR_ATOMIC_CMP_AND_SWP,
	  .flags = IB_SEND_INLINE },
	{ .name = "fetch-add-all3", .opcode = IB_WR_ATOMIC_FETCH_AND_ADD,
	  .flags = ALL3, .ok = true },
	{ .name = "fetch-add-inline", .opcode = IB_WR_ATOMIC_FETCH_AND_ADD,
	  .flags = ALL3 | IB_SEND_INLINE },
	{ .name = "atomic-write-all-four", .opcode = SROCE_WR_ATOMIC_WRITE,
	  .flags = ALL3 | IB_SEND_INLINE, .ok = true },
	{ .name = "flush-all3", .opcode = SROCE_WR_FLUSH, .flags = ALL3,
	  .ok = true },
	{ .name = "flush-inline", .opcode = SROCE_WR_FLUSH,
	  .flags = IB_SEND_SIGNALED | IB_SEND_INLINE },
	/* no checksum offload: the device lacks IB_DEVICE_UD_IP_CSUM */
	{ .name = "send-ip-csum", .opcode = IB_WR_SEND,
	  .flags = IB_SEND_IP_CSUM },
	{ .name = "send-signaled-ip-csum", .opcode = IB_WR_SEND,
	  .flags = IB_SEND_SIGNALED | IB_SEND_IP_CSUM },
	{ .name = "send-imm-inline-ip-csum", .opcode = IB_WR_SEND_WITH_IMM,
	  .flags = IB_SEND_INLINE | IB_SEND_IP_CSUM },
	{ .name = "write-ip-csum", .opcode = IB_WR_RDMA_WRITE,
	  .flags = IB_SEND_IP_CSUM },
	/* bits the core leaves to drivers: none of ours */
	{ .name = "send-reserved-start", .opcode = IB_WR_SEND,
	  .flags = IB_SEND_RESERVED_START },
	{ .name = "send-reserved-end", .opcode = IB_WR_SEND,
	  .flags = IB_SEND_SIGNALED | (u32)IB_SEND_RESERVED_END },
	/* an opcode the device does not carry out takes no flags at all */
	{ .name = "lso-none", .opcode = IB_WR_LSO },
	{ .name = "lso-signaled", .opcode = IB_WR_LSO,
	  .flags = IB_SEND_SIGNALED },
	/* a bind carries no data: FENCE and SIGNALED only */
	{ .name = "bind-mw-none", .opcode = IB_WR_BIND_MW, .ok = true },
	{ .name = "bind-mw-fence-signaled", .opcode = IB_WR_BIND_MW,
	  .flags = IB_SEND_FENCE | IB_SEND_SIGNALED, .ok = true },
	{ .name = "bind-mw-inline", .opcode = IB_WR_BIND_MW,
	  .flags = IB_SEND_SIGNALED | IB_SEND_INLINE },
	{ .name = "bind-mw-solicited", .opcode = IB_WR_BIND_MW,
	  .flags = IB_SEND_SOLICITED },
	/* memory management operations: FENCE and SIGNALED, no data */
	{ .name = "local-inv-none", .opcode = IB_WR_LOCAL_INV, .ok = true },
	{ .name = "local-inv-fence-signaled", .opcode = IB_WR_LOCAL_INV,
	  .flags = IB_SEND_FENCE | IB_SEND_SIGNALED, .ok = true },
	{ .name = "local-inv-inline", .opcode = IB_WR_LOCAL_INV,
	  .flags = IB_SEND_INLINE },
	{ .name = "reg-mr-signaled", .opcode = IB_WR_REG_MR,
	  .flags = IB_SEND_SIGNALED, .ok = true },
	{ .name = "reg-mr-solicited", .opcode = IB_WR_REG_MR,
	  .flags = IB_SEND_SOLICITED },
};

static void sroce_wr_flags_case_desc(const struct sroce_wr_flags_case *c,
				     char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sroce_wr_flags, sroce_wr_flags_cases,
		  sroce_wr_flags_case_desc);

static void sroce_wr_flags_test(struct kunit *test)
{
	const struct sroce_wr_flags_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, sroce_wr_flags_ok(c->opcode, c->flags), c->ok);
}

/* The uapi masks (what the provider checks) say what the kernel's table says. */
static void sroce_wr_uapi_test(struct kunit *test)
{
	u32 op;

	for (op = 0; op < 32; op++) {
		u32 bit = SROCE_WR_OP_BIT(op);

		KUNIT_EXPECT_EQ_MSG(test, !!(SROCE_WR_OPS_RC & bit),
				    sroce_wr_opcode_ok(IB_QPT_RC, op),
				    "RC opcode %u", op);
		KUNIT_EXPECT_EQ_MSG(test, !!(SROCE_WR_OPS_UC & bit),
				    sroce_wr_opcode_ok(IB_QPT_UC, op),
				    "UC opcode %u", op);
		KUNIT_EXPECT_EQ_MSG(test, !!(SROCE_WR_OPS_UD & bit),
				    sroce_wr_opcode_ok(IB_QPT_UD, op),
				    "UD opcode %u", op);
		KUNIT_EXPECT_EQ_MSG(test,
				    !!(SROCE_WR_OPS_UD & ~SROCE_WR_OPS_MEM & bit),
				    sroce_wr_opcode_ok(IB_QPT_GSI, op),
				    "GSI opcode %u", op);
		KUNIT_EXPECT_EQ_MSG(test, !!(SROCE_WR_OPS_XRC & bit),
				    sroce_wr_opcode_ok(IB_QPT_XRC_INI, op),
				    "XRC INI opcode %u", op);
		KUNIT_EXPECT_FALSE_MSG(test,
				       sroce_wr_opcode_ok(IB_QPT_XRC_TGT, op),
				       "XRC TGT opcode %u", op);
		if (!(SROCE_WR_OPS_RC & bit))
			continue;
		KUNIT_EXPECT_EQ_MSG(test, !!(SROCE_WR_OPS_INLINE & bit),
				    sroce_wr_flags_ok(op, IB_SEND_INLINE),
				    "inline on opcode %u", op);
		KUNIT_EXPECT_EQ_MSG(test,
				    sroce_wr_flags_ok(op, SROCE_WR_SEND_FLAGS &
						      ~SROCE_WR_FLAG_INLINE),
				    !(SROCE_WR_OPS_MEM & bit), "opcode %u", op);
		KUNIT_EXPECT_TRUE_MSG(test,
				      sroce_wr_flags_ok(op, SROCE_WR_MEM_FLAGS),
				      "opcode %u", op);
	}
	KUNIT_EXPECT_FALSE(test, SROCE_WR_SEND_FLAGS & IB_SEND_IP_CSUM);
}

static struct kunit_case sroce_wr_test_cases[] = {
	KUNIT_CASE_PARAM(sroce_wr_opcode_test, sroce_wr_op_gen_params),
	KUNIT_CASE_PARAM(sroce_wr_flags_test, sroce_wr_flags_gen_params),
	KUNIT_CASE(sroce_wr_uapi_test),
	{}
};

static struct kunit_suite sroce_wr_suite = {
	.name = "sroce_wr",
	.test_cases = sroce_wr_test_cases,
};

kunit_test_suite(sroce_wr_suite);
