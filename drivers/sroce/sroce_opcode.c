// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_opcode.c - the BTH opcode table (IBTA vol. 1 9.2, table 38, and
 * annex A17 for the CNP), the work request opcode table (which QP types
 * accept each work request opcode, which send flags it may carry) and the
 * RNR and local ACK timeout tables.
 *
 * One row per opcode: its header layout (which extended headers follow
 * the BTH, their byte offsets and the total header length, spelled out
 * once per layout below) and what the packet means to the responder (REQ)
 * or the completer (ACK).
 *
 * Receive WQE bits follow rdma_rxe:
 *   RWR  - the packet at which the responder takes a receive WQE: SEND
 *          FIRST and ONLY (MIDDLE and LAST continue the WQE taken at FIRST)
 *          and RDMA WRITE LAST/ONLY with immediate;
 *   COMP - the packet that completes that receive WQE: SEND LAST and ONLY,
 *          RDMA WRITE LAST/ONLY with immediate.
 */

#include <linux/kernel.h>
#include <linux/math64.h>
#include <rdma/ib_pack.h>
#include <uapi/rdma/sroce-abi.h>
#include <kunit/visibility.h>

#include "sroce_compat.h"
#include "sroce_hdr.h"

/* Sizes of the headers, in wire order (IBTA 9.2, table 38). */
#define BTH_SZ		sizeof(struct sroce_bth)
#define RETH_SZ		sizeof(struct sroce_reth)
#define AETH_SZ		sizeof(struct sroce_aeth)
#define ATMETH_SZ	sizeof(struct sroce_atmeth)
#define ATMACK_SZ	sizeof(struct sroce_atmack)
#define IETH_SZ		sizeof(struct sroce_ieth)
#define DETH_SZ		sizeof(struct sroce_deth)
#define IMMDT_SZ	sizeof(struct sroce_immdt)
#define FETH_SZ		sizeof(struct sroce_feth)
#define XRCETH_SZ	sizeof(struct sroce_xrceth)
#define BX_SZ		(BTH_SZ + XRCETH_SZ)	/* XRC request: BTH, XRCETH */
#define CNP_RESV_SZ	16	/* reserved bytes after a CNP's BTH */

/*
 * Header layouts: every combination of extended headers an opcode can
 * carry, as its header mask bits, total length and per-header offsets.
 */
#define SROCE_L_BTH_MASK	0
#define SROCE_L_BTH_LEN		BTH_SZ
#define SROCE_L_BTH_OFF		{ [SROCE_HDR_PAYLOAD] = BTH_SZ }

#define SROCE_L_IMM_MASK	SROCE_MASK_IMMDT
#define SROCE_L_IMM_LEN		(BTH_SZ + IMMDT_SZ)
#define SROCE_L_IMM_OFF		{ [SROCE_HDR_IMMDT] = BTH_SZ,		\
				  [SROCE_HDR_PAYLOAD] = BTH_SZ + IMMDT_SZ }

#define SROCE_L_RETH_MASK	SROCE_MASK_RETH
#define SROCE_L_RETH_LEN	(BTH_SZ + RETH_SZ)
#define SROCE_L_RETH_OFF	{ [SROCE_HDR_RETH] = BTH_SZ,		\
				  [SROCE_HDR_PAYLOAD] = BTH_SZ + RETH_SZ }

/* FLUSH (annex A19.4): the FETH, then the RETH; no payload */
#define SROCE_L_FETH_RETH_MASK	(SROCE_MASK_FETH | SROCE_MASK_RETH)
#define SROCE_L_FETH_RETH_LEN	(BTH_SZ + FETH_SZ + RETH_SZ)
#define SROCE_L_FETH_RETH_OFF	{ [SROCE_HDR_FETH] = BTH_SZ,		\
				  [SROCE_HDR_RETH] = BTH_SZ + FETH_SZ,	\
				  [SROCE_HDR_PAYLOAD] = BTH_SZ + FETH_SZ + \
							RETH_SZ }

#define SROCE_L_RETH_IMM_MASK	(SROCE_MASK_RETH | SROCE_MASK_IMMDT)
#define SROCE_L_RETH_IMM_LEN	(BTH_SZ + RETH_SZ + IMMDT_SZ)
#define SROCE_L_RETH_IMM_OFF	{ [SROCE_HDR_RETH] = BTH_SZ,		\
				  [SROCE_HDR_IMMDT] = BTH_SZ + RETH_SZ,	\
				  [SROCE_HDR_PAYLOAD] = BTH_SZ + RETH_SZ + \
							IMMDT_SZ }

#define SROCE_L_AETH_MASK	SROCE_MASK_AETH
#define SROCE_L_AETH_LEN	(BTH_SZ + AETH_SZ)
#define SROCE_L_AETH_OFF	{ [SROCE_HDR_AETH] = BTH_SZ,		\
				  [SROCE_HDR_PAYLOAD] = BTH_SZ + AETH_SZ }

#define SROCE_L_AETH_ATMACK_MASK (SROCE_MASK_AETH | SROCE_MASK_ATMACK)
#define SROCE_L_AETH_ATMACK_LEN	(BTH_SZ + AETH_SZ + ATMACK_SZ)
#define SROCE_L_AETH_ATMACK_OFF	{ [SROCE_HDR_AETH] = BTH_SZ,		\
				  [SROCE_HDR_ATMACK] = BTH_SZ + AETH_SZ, \
				  [SROCE_HDR_PAYLOAD] = BTH_SZ + AETH_SZ + \
							ATMACK_SZ }

#define SROCE_L_ATMETH_MASK	SROCE_MASK_ATMETH
#define SROCE_L_ATMETH_LEN	(BTH_SZ + ATMETH_SZ)
#define SROCE_L_ATMETH_OFF	{ [SROCE_HDR_ATMETH] = BTH_SZ,		\
				  [SROCE_HDR_PAYLOAD] = BTH_SZ + ATMETH_SZ }

#define SROCE_L_IETH_MASK	SROCE_MASK_IETH
#define SROCE_L_IETH_LEN	(BTH_SZ + IETH_SZ)
#define SROCE_L_IETH_OFF	{ [SROCE_HDR_IETH] = BTH_SZ,		\
				  [SROCE_HDR_PAYLOAD] = BTH_SZ + IETH_SZ }

#define SROCE_L_DETH_MASK	SROCE_MASK_DETH
#define SROCE_L_DETH_LEN	(BTH_SZ + DETH_SZ)
#define SROCE_L_DETH_OFF	{ [SROCE_HDR_DETH] = BTH_SZ,		\
				  [SROCE_HDR_PAYLOAD] = BTH_SZ + DETH_SZ }

#define SROCE_L_DETH_IMM_MASK	(SROCE_MASK_DETH | SROCE_MASK_IMMDT)
#define SROCE_L_DETH_IMM_LEN	(BTH_SZ + DETH_SZ + IMMDT_SZ)
#define SROCE_L_DETH_IMM_OFF	{ [SROCE_HDR_DETH] = BTH_SZ,		\
				  [SROCE_HDR_IMMDT] = BTH_SZ + DETH_SZ,	\
				  [SROCE_HDR_PAYLOAD] = BTH_SZ + DETH_SZ + \
							IMMDT_SZ }

/* XRC requests: the RC layouts with the XRCETH right after the BTH */
#define SROCE_L_X_MASK		SROCE_MASK_XRCETH
#define SROCE_L_X_LEN		BX_SZ
#define SROCE_L_X_OFF		{ [SROCE_HDR_XRCETH] = BTH_SZ,		\
				  [SROCE_HDR_PAYLOAD] = BX_SZ }

#define SROCE_L_X_IMM_MASK	(SROCE_MASK_XRCETH | SROCE_MASK_IMMDT)
#define SROCE_L_X_IMM_LEN	(BX_SZ + IMMDT_SZ)
#define SROCE_L_X_IMM_OFF	{ [SROCE_HDR_XRCETH] = BTH_SZ,		\
				  [SROCE_HDR_IMMDT] = BX_SZ,		\
				  [SROCE_HDR_PAYLOAD] = BX_SZ + IMMDT_SZ }

#define SROCE_L_X_RETH_MASK	(SROCE_MASK_XRCETH | SROCE_MASK_RETH)
#define SROCE_L_X_RETH_LEN	(BX_SZ + RETH_SZ)
#define SROCE_L_X_RETH_OFF	{ [SROCE_HDR_XRCETH] = BTH_SZ,		\
				  [SROCE_HDR_RETH] = BX_SZ,		\
				  [SROCE_HDR_PAYLOAD] = BX_SZ + RETH_SZ }

#define SROCE_L_X_RETH_IMM_MASK	(SROCE_MASK_XRCETH | SROCE_MASK_RETH |	\
				 SROCE_MASK_IMMDT)
#define SROCE_L_X_RETH_IMM_LEN	(BX_SZ + RETH_SZ + IMMDT_SZ)
#define SROCE_L_X_RETH_IMM_OFF	{ [SROCE_HDR_XRCETH] = BTH_SZ,		\
				  [SROCE_HDR_RETH] = BX_SZ,		\
				  [SROCE_HDR_IMMDT] = BX_SZ + RETH_SZ,	\
				  [SROCE_HDR_PAYLOAD] = BX_SZ + RETH_SZ + \
							IMMDT_SZ }

#define SROCE_L_X_ATMETH_MASK	(SROCE_MASK_XRCETH | SROCE_MASK_ATMETH)
#define SROCE_L_X_ATMETH_LEN	(BX_SZ + ATMETH_SZ)
#define SROCE_L_X_ATMETH_OFF	{ [SROCE_HDR_XRCETH] = BTH_SZ,		\
				  [SROCE_HDR_ATMETH] = BX_SZ,		\
				  [SROCE_HDR_PAYLOAD] = BX_SZ + ATMETH_SZ }

#define SROCE_L_X_IETH_MASK	(SROCE_MASK_XRCETH | SROCE_MASK_IETH)
#define SROCE_L_X_IETH_LEN	(BX_SZ + IETH_SZ)
#define SROCE_L_X_IETH_OFF	{ [SROCE_HDR_XRCETH] = BTH_SZ,		\
				  [SROCE_HDR_IETH] = BX_SZ,		\
				  [SROCE_HDR_PAYLOAD] = BX_SZ + IETH_SZ }

#define SROCE_L_CNP_MASK	0
#define SROCE_L_CNP_LEN		(BTH_SZ + CNP_RESV_SZ)
#define SROCE_L_CNP_OFF		{ [SROCE_HDR_PAYLOAD] = BTH_SZ + CNP_RESV_SZ }

/* One row: opcode, IBTA name, QP type, header layout, other bits. */
#define SROCE_ROW(opc, nm, qp_type, layout, m)				\
	[opc] = {							\
		.name	= nm,						\
		.mask	= SROCE_MASK_BTH | SROCE_L_##layout##_MASK | (m), \
		.length	= SROCE_L_##layout##_LEN,			\
		.qpt	= (qp_type),					\
		.offset	= SROCE_L_##layout##_OFF,			\
	}
/* An RC, UC or UD opcode. */
#define SROCE_OP(tr, op, qp_type, layout, m)				\
	SROCE_ROW(IB_OPCODE_##tr##_##op, #tr "_" #op, qp_type, layout, m)

/*
 * One XRC opcode (IBTA annex A14, table 38: the RC opcode with the XRC
 * transport bits): requests go to the target's TGT QP, responses to the
 * INI QP.
 */
#define SROCE_XOP(op, qp_type, layout, m)				\
	SROCE_ROW(SROCE_OP_XRC | IB_OPCODE_##op, "XRC_" #op, qp_type,	\
		  layout, m)
#define SROCE_XREQ(op, layout, m)	SROCE_XOP(op, IB_QPT_XRC_TGT, layout, m)
#define SROCE_XRESP(op, layout, m)	SROCE_XOP(op, IB_QPT_XRC_INI, layout, m)

/* Shorthands for the rows below. */
#define FIRST		SROCE_MASK_START
#define MIDDLE		SROCE_MASK_MIDDLE
#define LAST		SROCE_MASK_END
#define ONLY		(SROCE_MASK_START | SROCE_MASK_END)
#define RWR		SROCE_MASK_RWR
#define COMP		SROCE_MASK_COMP
#define INV		SROCE_MASK_INV
#define REQ_SEND	(SROCE_MASK_REQ | SROCE_MASK_SEND | SROCE_MASK_PAYLOAD)
#define REQ_WRITE	(SROCE_MASK_REQ | SROCE_MASK_WRITE | SROCE_MASK_PAYLOAD)
#define REQ_READ	(SROCE_MASK_REQ | SROCE_MASK_READ)
#define REQ_ATOMIC_OP	(SROCE_MASK_REQ | SROCE_MASK_ATOMIC)
#define RESP		SROCE_MASK_ACK
#define RESP_READ	(SROCE_MASK_ACK | SROCE_MASK_PAYLOAD)

const struct sroce_opcode_info sroce_opcode[256] = {
	/* RC SEND: a receive WQE taken at FIRST/ONLY, completed at LAST/ONLY */
	SROCE_OP(RC, SEND_FIRST, IB_QPT_RC, BTH, REQ_SEND | FIRST | RWR),
	SROCE_OP(RC, SEND_MIDDLE, IB_QPT_RC, BTH, REQ_SEND | MIDDLE),
	SROCE_OP(RC, SEND_LAST, IB_QPT_RC, BTH, REQ_SEND | LAST | COMP),
	SROCE_OP(RC, SEND_LAST_WITH_IMMEDIATE, IB_QPT_RC, IMM,
		 REQ_SEND | LAST | COMP),
	SROCE_OP(RC, SEND_ONLY, IB_QPT_RC, BTH, REQ_SEND | ONLY | RWR | COMP),
	SROCE_OP(RC, SEND_ONLY_WITH_IMMEDIATE, IB_QPT_RC, IMM,
		 REQ_SEND | ONLY | RWR | COMP),

	/* RC RDMA WRITE: RETH on FIRST/ONLY; with immediate uses a recv WQE */
	SROCE_OP(RC, RDMA_WRITE_FIRST, IB_QPT_RC, RETH, REQ_WRITE | FIRST),
	SROCE_OP(RC, RDMA_WRITE_MIDDLE, IB_QPT_RC, BTH, REQ_WRITE | MIDDLE),
	SROCE_OP(RC, RDMA_WRITE_LAST, IB_QPT_RC, BTH, REQ_WRITE | LAST),
	SROCE_OP(RC, RDMA_WRITE_LAST_WITH_IMMEDIATE, IB_QPT_RC, IMM,
		 REQ_WRITE | LAST | RWR | COMP),
	SROCE_OP(RC, RDMA_WRITE_ONLY, IB_QPT_RC, RETH, REQ_WRITE | ONLY),
	SROCE_OP(RC, RDMA_WRITE_ONLY_WITH_IMMEDIATE, IB_QPT_RC, RETH_IMM,
		 REQ_WRITE | ONLY | RWR | COMP),

	/* RC RDMA READ: one request; responses carry an AETH but MIDDLE */
	SROCE_OP(RC, RDMA_READ_REQUEST, IB_QPT_RC, RETH, REQ_READ | ONLY),
	SROCE_OP(RC, RDMA_READ_RESPONSE_FIRST, IB_QPT_RC, AETH,
		 RESP_READ | FIRST),
	SROCE_OP(RC, RDMA_READ_RESPONSE_MIDDLE, IB_QPT_RC, BTH,
		 RESP_READ | MIDDLE),
	SROCE_OP(RC, RDMA_READ_RESPONSE_LAST, IB_QPT_RC, AETH,
		 RESP_READ | LAST),
	SROCE_OP(RC, RDMA_READ_RESPONSE_ONLY, IB_QPT_RC, AETH,
		 RESP_READ | ONLY),

	/* RC ACK/NAK, atomic ACK and atomics: single packet, no payload */
	SROCE_OP(RC, ACKNOWLEDGE, IB_QPT_RC, AETH, RESP | ONLY),
	SROCE_OP(RC, ATOMIC_ACKNOWLEDGE, IB_QPT_RC, AETH_ATMACK, RESP | ONLY),
	SROCE_OP(RC, COMPARE_SWAP, IB_QPT_RC, ATMETH, REQ_ATOMIC_OP | ONLY),
	SROCE_OP(RC, FETCH_ADD, IB_QPT_RC, ATMETH, REQ_ATOMIC_OP | ONLY),

	/* RC ATOMIC WRITE (oA19-28): RETH and 8 bytes stored at once */
	SROCE_ROW(SROCE_OPCODE_RC_ATOMIC_WRITE, "RC_ATOMIC_WRITE", IB_QPT_RC,
		  RETH, SROCE_MASK_REQ | SROCE_MASK_ATOMIC_WRITE |
		  SROCE_MASK_PAYLOAD | ONLY),

	/*
	 * RC FLUSH (A19.4): FETH and RETH, no payload; a responder resource
	 * answers it with an RDMA READ RESPONSE ONLY of no payload
	 */
	SROCE_ROW(SROCE_OPCODE_RC_FLUSH, "RC_FLUSH", IB_QPT_RC, FETH_RETH,
		  SROCE_MASK_REQ | SROCE_MASK_FLUSH | ONLY),

	/* RC SEND with invalidate: the IETH names the rkey to invalidate */
	SROCE_OP(RC, SEND_LAST_WITH_INVALIDATE, IB_QPT_RC, IETH,
		 REQ_SEND | LAST | COMP | INV),
	SROCE_OP(RC, SEND_ONLY_WITH_INVALIDATE, IB_QPT_RC, IETH,
		 REQ_SEND | ONLY | RWR | COMP | INV),

	/* UC SEND: as RC, never acknowledged */
	SROCE_OP(UC, SEND_FIRST, IB_QPT_UC, BTH, REQ_SEND | FIRST | RWR),
	SROCE_OP(UC, SEND_MIDDLE, IB_QPT_UC, BTH, REQ_SEND | MIDDLE),
	SROCE_OP(UC, SEND_LAST, IB_QPT_UC, BTH, REQ_SEND | LAST | COMP),
	SROCE_OP(UC, SEND_LAST_WITH_IMMEDIATE, IB_QPT_UC, IMM,
		 REQ_SEND | LAST | COMP),
	SROCE_OP(UC, SEND_ONLY, IB_QPT_UC, BTH, REQ_SEND | ONLY | RWR | COMP),
	SROCE_OP(UC, SEND_ONLY_WITH_IMMEDIATE, IB_QPT_UC, IMM,
		 REQ_SEND | ONLY | RWR | COMP),

	/* UC RDMA WRITE: as RC */
	SROCE_OP(UC, RDMA_WRITE_FIRST, IB_QPT_UC, RETH, REQ_WRITE | FIRST),
	SROCE_OP(UC, RDMA_WRITE_MIDDLE, IB_QPT_UC, BTH, REQ_WRITE | MIDDLE),
	SROCE_OP(UC, RDMA_WRITE_LAST, IB_QPT_UC, BTH, REQ_WRITE | LAST),
	SROCE_OP(UC, RDMA_WRITE_LAST_WITH_IMMEDIATE, IB_QPT_UC, IMM,
		 REQ_WRITE | LAST | RWR | COMP),
	SROCE_OP(UC, RDMA_WRITE_ONLY, IB_QPT_UC, RETH, REQ_WRITE | ONLY),
	SROCE_OP(UC, RDMA_WRITE_ONLY_WITH_IMMEDIATE, IB_QPT_UC, RETH_IMM,
		 REQ_WRITE | ONLY | RWR | COMP),

	/* UD SEND: one packet with a DETH (Q_Key, source QP); UD and GSI QPs */
	SROCE_OP(UD, SEND_ONLY, IB_QPT_UD, DETH, REQ_SEND | ONLY | RWR | COMP),
	SROCE_OP(UD, SEND_ONLY_WITH_IMMEDIATE, IB_QPT_UD, DETH_IMM,
		 REQ_SEND | ONLY | RWR | COMP),

	/* XRC (IBTA annex A14): RC's rows, an XRCETH in every request */
	SROCE_XREQ(SEND_FIRST, X, REQ_SEND | FIRST | RWR),
	SROCE_XREQ(SEND_MIDDLE, X, REQ_SEND | MIDDLE),
	SROCE_XREQ(SEND_LAST, X, REQ_SEND | LAST | COMP),
	SROCE_XREQ(SEND_LAST_WITH_IMMEDIATE, X_IMM, REQ_SEND | LAST | COMP),
	SROCE_XREQ(SEND_ONLY, X, REQ_SEND | ONLY | RWR | COMP),
	SROCE_XREQ(SEND_ONLY_WITH_IMMEDIATE, X_IMM,
		   REQ_SEND | ONLY | RWR | COMP),
	SROCE_XREQ(RDMA_WRITE_FIRST, X_RETH, REQ_WRITE | FIRST),
	SROCE_XREQ(RDMA_WRITE_MIDDLE, X, REQ_WRITE | MIDDLE),
	SROCE_XREQ(RDMA_WRITE_LAST, X, REQ_WRITE | LAST),
	SROCE_XREQ(RDMA_WRITE_LAST_WITH_IMMEDIATE, X_IMM,
		   REQ_WRITE | LAST | RWR | COMP),
	SROCE_XREQ(RDMA_WRITE_ONLY, X_RETH, REQ_WRITE | ONLY),
	SROCE_XREQ(RDMA_WRITE_ONLY_WITH_IMMEDIATE, X_RETH_IMM,
		   REQ_WRITE | ONLY | RWR | COMP),
	SROCE_XREQ(RDMA_READ_REQUEST, X_RETH, REQ_READ | ONLY),
	SROCE_XRESP(RDMA_READ_RESPONSE_FIRST, AETH, RESP_READ | FIRST),
	SROCE_XRESP(RDMA_READ_RESPONSE_MIDDLE, BTH, RESP_READ | MIDDLE),
	SROCE_XRESP(RDMA_READ_RESPONSE_LAST, AETH, RESP_READ | LAST),
	SROCE_XRESP(RDMA_READ_RESPONSE_ONLY, AETH, RESP_READ | ONLY),
	SROCE_XRESP(ACKNOWLEDGE, AETH, RESP | ONLY),
	SROCE_XRESP(ATOMIC_ACKNOWLEDGE, AETH_ATMACK, RESP | ONLY),
	SROCE_XREQ(COMPARE_SWAP, X_ATMETH, REQ_ATOMIC_OP | ONLY),
	SROCE_XREQ(FETCH_ADD, X_ATMETH, REQ_ATOMIC_OP | ONLY),
	SROCE_XREQ(SEND_LAST_WITH_INVALIDATE, X_IETH,
		   REQ_SEND | LAST | COMP | INV),
	SROCE_XREQ(SEND_ONLY_WITH_INVALIDATE, X_IETH,
		   REQ_SEND | ONLY | RWR | COMP | INV),

	/* CNP (annex A17.9.3): BTH, 16 reserved bytes; RC, UC (sroce_recv.c) */
	[SROCE_CNP_OPCODE] = {
		.name	= "CNP",
		.mask	= SROCE_MASK_BTH | SROCE_MASK_CNP,
		.length	= SROCE_L_CNP_LEN,
		.offset	= SROCE_L_CNP_OFF,
	},
};
EXPORT_SYMBOL_IF_KUNIT(sroce_opcode);

/*
 * Work requests.  The rules are the SROCE_WR_* masks of sroce-abi.h, which
 * the provider checks as well; they count in enum ib_uverbs_wr_opcode and
 * IBV_SEND_* bits, and a kernel WR's enum ib_wr_opcode and IB_SEND_* bits
 * are the same numbers.
 */
#define SROCE_WR_SAME(op)	\
	static_assert((int)IB_WR_##op == (int)IB_UVERBS_WR_##op)
SROCE_WR_SAME(RDMA_WRITE);
SROCE_WR_SAME(RDMA_WRITE_WITH_IMM);
SROCE_WR_SAME(SEND);
SROCE_WR_SAME(SEND_WITH_IMM);
SROCE_WR_SAME(RDMA_READ);
SROCE_WR_SAME(ATOMIC_CMP_AND_SWP);
SROCE_WR_SAME(ATOMIC_FETCH_AND_ADD);
SROCE_WR_SAME(SEND_WITH_INV);
#if SROCE_KERNEL_AT_LEAST(6, 2)
/* ATOMIC WRITE: the numbers sroce gives it are the kernel's since 6.2 */
static_assert((int)IB_WR_ATOMIC_WRITE == SROCE_WR_ATOMIC_WRITE);
static_assert((int)IB_UVERBS_WC_ATOMIC_WRITE == SROCE_WC_ATOMIC_WRITE);
static_assert((int)IB_OPCODE_RC_ATOMIC_WRITE == SROCE_OPCODE_RC_ATOMIC_WRITE);
/* FLUSH (annex A19.4): sroce's numbers and bits are the kernel's since 6.2 */
static_assert((int)IB_WR_FLUSH == SROCE_WR_FLUSH);
static_assert((int)IB_UVERBS_WC_FLUSH == SROCE_WC_FLUSH);
static_assert((int)IB_WC_FLUSH == SROCE_WC_FLUSH);
static_assert((int)IB_WC_ATOMIC_WRITE == SROCE_WC_ATOMIC_WRITE);
static_assert((int)IB_OPCODE_RC_FLUSH == SROCE_OPCODE_RC_FLUSH);
static_assert(IB_FLUSH_GLOBAL == SROCE_FLUSH_GLOBAL);
static_assert(IB_FLUSH_PERSISTENT == SROCE_FLUSH_PERSISTENT);
static_assert(IB_FLUSH_RANGE == SROCE_FLUSH_RANGE);
static_assert(IB_FLUSH_MR == SROCE_FLUSH_MR);
static_assert(IB_ACCESS_FLUSH_GLOBAL == SROCE_ACCESS_FLUSH_GLOBAL);
static_assert(IB_ACCESS_FLUSH_PERSISTENT == SROCE_ACCESS_FLUSH_PERSISTENT);
#endif
/* FLUSH's WQE fields live in what was padding of @wr.rdma */
static_assert(sizeof(struct sroce_send_wqe) == 320);
static_assert(offsetof(struct sroce_send_wqe, wr.rdma.length) == 44);
static_assert(sizeof(((struct sroce_send_wqe *)0)->wr) == 32);
static_assert(IB_SEND_FENCE == SROCE_WR_FLAG_FENCE);
static_assert(IB_SEND_SIGNALED == SROCE_WR_FLAG_SIGNALED);
static_assert(IB_SEND_SOLICITED == SROCE_WR_FLAG_SOLICITED);
static_assert(IB_SEND_INLINE == SROCE_WR_FLAG_INLINE);
static_assert(!(SROCE_WR_SEND_FLAGS & IB_SEND_IP_CSUM));

/**
 * struct sroce_wr_rule - what one work request opcode is accepted with
 * @qp_types: bits of enum ib_qp_type whose QPs accept it; 0 when the
 *	device does not carry it out
 * @kern_qp_types: bits of enum ib_qp_type whose kernel QPs also accept
 *	it (memory management operations: kernel verbs only)
 * @send_flags: IB_SEND_* bits it may carry
 * @user_only: kernel QPs refuse it: no kernel verb carries its data (ATOMIC
 *	WRITE's 8 bytes; FLUSH's placement type and selectivity level;
 *	IB_WR_BIND_MW: struct ib_send_wr has no bind fields, kernel verbs
 *	allocate no memory window)
 */
struct sroce_wr_rule {
	u16 qp_types;
	u16 kern_qp_types;
	u8 send_flags;
	bool user_only;
};

/*
 * IBTA 10.6.3.6-7 (Base Memory Management Extensions): Fast Register and
 * Local Invalidate on RC, UC and UD QPs (not GSI: QP1 belongs to the MAD
 * layer); their only flags are FENCE and SIGNALED.  Userspace has no
 * fast-register MR, so its rings never carry REG_MR; LOCAL_INV and
 * BIND_MW (memory windows, IBTA 10.6.7) are SROCE_WR_OPS_MEM of the uapi
 * masks.
 */
#define SROCE_WR_LOCAL_OP						\
	{								\
		.kern_qp_types = BIT(IB_QPT_RC) | BIT(IB_QPT_UC) |	\
				 BIT(IB_QPT_UD),			\
		.send_flags = SROCE_WR_MEM_FLAGS,			\
	}

/* True when the uapi mask @ops has opcode @op. */
#define SROCE_WR_HAS(ops, op)	(!!((ops) & SROCE_WR_OP_BIT(op)))

/* The row of work request opcode <pfx><op>, from the uapi masks; GSI as UD. */
#define SROCE_WR_ROW(pfx, op)						\
	[pfx##op] = {							\
		.qp_types =						\
			SROCE_WR_HAS(SROCE_WR_OPS_RC, pfx##op) << IB_QPT_RC | \
			SROCE_WR_HAS(SROCE_WR_OPS_UC, pfx##op) << IB_QPT_UC | \
			SROCE_WR_HAS(SROCE_WR_OPS_UD, pfx##op) << IB_QPT_UD | \
			SROCE_WR_HAS(SROCE_WR_OPS_UD & ~SROCE_WR_OPS_MEM, \
				     pfx##op) << IB_QPT_GSI |		\
			SROCE_WR_HAS(SROCE_WR_OPS_XRC, pfx##op) << IB_QPT_XRC_INI, \
		.send_flags =						\
			SROCE_WR_HAS(SROCE_WR_OPS_MEM, pfx##op) ?	\
			SROCE_WR_MEM_FLAGS :				\
			SROCE_WR_HAS(SROCE_WR_OPS_INLINE, pfx##op) ?	\
			SROCE_WR_SEND_FLAGS :				\
			SROCE_WR_SEND_FLAGS & ~SROCE_WR_FLAG_INLINE,	\
		.user_only = SROCE_WR_HAS(SROCE_WR_OPS_INLINE_ONLY, pfx##op) || \
			     pfx##op == IB_UVERBS_WR_BIND_MW ||		\
			     pfx##op == SROCE_WR_FLUSH,			\
	}
#define SROCE_WR(op)	SROCE_WR_ROW(IB_UVERBS_WR_, op)

/*
 * Indexed by work request opcode: a row for every opcode userspace can
 * name, so the masks alone decide which are accepted.
 */
static const struct sroce_wr_rule sroce_wr_rules[] = {
	SROCE_WR(RDMA_WRITE),
	SROCE_WR(RDMA_WRITE_WITH_IMM),
	SROCE_WR(SEND),
	SROCE_WR(SEND_WITH_IMM),
	SROCE_WR(RDMA_READ),
	SROCE_WR(ATOMIC_CMP_AND_SWP),
	SROCE_WR(ATOMIC_FETCH_AND_ADD),
	SROCE_WR(LOCAL_INV),
	SROCE_WR(BIND_MW),
	SROCE_WR(SEND_WITH_INV),
	SROCE_WR(TSO),
	SROCE_WR(RDMA_READ_WITH_INV),
	SROCE_WR(MASKED_ATOMIC_CMP_AND_SWP),
	SROCE_WR(MASKED_ATOMIC_FETCH_AND_ADD),
	SROCE_WR_ROW(SROCE_WR_, FLUSH),
	SROCE_WR_ROW(SROCE_WR_, ATOMIC_WRITE),
	[IB_WR_REG_MR] = SROCE_WR_LOCAL_OP,
};

SROCE_WR_SAME(LOCAL_INV);
static_assert(!SROCE_WR_HAS(SROCE_WR_OPS_UD, IB_UVERBS_WR_BIND_MW));

static_assert(BIT(IB_QPT_XRC_INI) <= U16_MAX);
static_assert((SROCE_WR_OPS_RC | SROCE_WR_OPS_UC | SROCE_WR_OPS_UD) <
	      BIT_ULL(ARRAY_SIZE(sroce_wr_rules)));

/**
 * sroce_wr_opcode_ok() - does a QP of this type accept this work request?
 * @type: the QP's type; IB_QPT_GSI is taken as IB_QPT_UD
 * @opcode: enum ib_wr_opcode of a kernel WR, or enum ib_uverbs_wr_opcode
 *	of a WQE read out of a ring (the same numbers)
 *
 * RC accepts SEND (with immediate, with invalidate), RDMA WRITE (with
 * immediate), RDMA READ, both atomics, ATOMIC WRITE and FLUSH (IBTA 1.5
 * oA19-28, annex A19.4); UC accepts SEND and RDMA WRITE,
 * each also with immediate; UD and GSI accept SEND and SEND with
 * immediate (IBTA vol. 1 9.4: the operations each transport service
 * carries; 11.4.1.1 Post Send Request).  SEND with invalidate is RC only:
 * no UC opcode carries an IETH (9.2).  LOCAL_INV on every type and
 * BIND_MW on RC and UC (memory windows, 10.6.7).  An XRC send (INI) QP
 * accepts RC's operations but ATOMIC WRITE, FLUSH and BIND_MW; an XRC
 * receive (TGT) QP none (no send queue).  These are SROCE_WR_OPS_RC, _UC,
 * _UD and _XRC of sroce-abi.h, which the provider checks as well.
 *
 * Context: any.
 * Return: true when accepted; false for any other QP type (SMI, raw, TGT)
 * and for opcodes the device does not carry out for userspace (REG_MR:
 * see sroce_wr_kernel_opcode_ok(); LSO, masked atomics...).
 */
bool sroce_wr_opcode_ok(enum ib_qp_type type, u32 opcode)
{
	if (opcode >= ARRAY_SIZE(sroce_wr_rules) ||
	    (u32)type >= BITS_PER_TYPE(sroce_wr_rules[0].qp_types))
		return false;
	return sroce_wr_rules[opcode].qp_types & BIT(type);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_wr_opcode_ok);

/**
 * sroce_wr_kernel_opcode_ok() - does a kernel QP of this type accept this
 *	work request?
 * @type: the QP's type, as for sroce_wr_opcode_ok()
 * @opcode: enum ib_wr_opcode
 *
 * What sroce_wr_opcode_ok() accepts but what is userspace's only (struct
 * sroce_wr_rule @user_only: ATOMIC WRITE, FLUSH, IB_WR_BIND_MW), and
 * IB_WR_REG_MR on RC, UC and UD QPs (IBTA 10.6.3.6; @kern_qp_types):
 * fast-register MRs exist for kernel consumers only.
 * Context: any.
 * Return: true when accepted.
 */
bool sroce_wr_kernel_opcode_ok(enum ib_qp_type type, u32 opcode)
{
	if (opcode < ARRAY_SIZE(sroce_wr_rules) &&
	    sroce_wr_rules[opcode].user_only)
		return false;
	if (sroce_wr_opcode_ok(type, opcode))
		return true;
	if (opcode >= ARRAY_SIZE(sroce_wr_rules) ||
	    (u32)type >= BITS_PER_TYPE(sroce_wr_rules[0].kern_qp_types))
		return false;
	return sroce_wr_rules[opcode].kern_qp_types & BIT(type);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_wr_kernel_opcode_ok);

/**
 * sroce_wr_flags_ok() - may a work request carry these send flags?
 * @opcode: its opcode, as for sroce_wr_opcode_ok()
 * @flags: its IB_SEND_* (IBV_SEND_*) bits
 *
 * Accepted: IB_SEND_FENCE, IB_SEND_SIGNALED, IB_SEND_SOLICITED, and
 * IB_SEND_INLINE on opcodes whose payload can be copied in at posting
 * (not RDMA READ, not the atomics: their local buffer is written).
 * IB_SEND_IP_CSUM is refused: the device does not advertise
 * IB_DEVICE_UD_IP_CSUM.  IB_WR_REG_MR, IB_WR_LOCAL_INV and IB_WR_BIND_MW
 * take FENCE and SIGNALED only (SROCE_WR_MEM_FLAGS).  These are
 * SROCE_WR_SEND_FLAGS and SROCE_WR_OPS_INLINE of sroce-abi.h, which the
 * provider checks as well.
 *
 * Context: any.
 * Return: true when every bit of @flags is accepted for @opcode; false
 * also for an opcode the device does not carry out.
 */
bool sroce_wr_flags_ok(u32 opcode, u32 flags)
{
	if (opcode >= ARRAY_SIZE(sroce_wr_rules) ||
	    !(sroce_wr_rules[opcode].qp_types |
	      sroce_wr_rules[opcode].kern_qp_types))
		return false;
	return !(flags & ~(u32)sroce_wr_rules[opcode].send_flags);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_wr_flags_ok);

/* IBTA 9.7.5.2.8 table 45: minimal RNR NAK timer, in microseconds. */
static const u32 sroce_rnr_timer_table_us[32] = {
	655360,		/* code 0 */
	10, 20, 30, 40, 60, 80, 120, 160,
	240, 320, 480, 640, 960, 1280, 1920, 2560,
	3840, 5120, 7680, 10240, 15360, 20480, 30720, 40960,
	61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

/**
 * sroce_rnr_timer_us() - minimal RNR NAK timer for a 5-bit code
 * @code: RNR timer code from an RNR NAK's AETH or the QP attribute
 *	min_rnr_timer; only the low five bits are used
 *
 * Context: any.  IBTA 9.7.5.2.8, table 45.
 * Return: the delay in microseconds (code 0 is 655.36 ms).
 */
u32 sroce_rnr_timer_us(u8 code)
{
	return sroce_rnr_timer_table_us[code & 0x1f];
}
EXPORT_SYMBOL_IF_KUNIT(sroce_rnr_timer_us);

/**
 * sroce_retry_timeout_us() - local ACK timeout for the QP attribute "timeout"
 * @timeout: 5-bit exponent (higher bits ignored); the timeout is
 *	4.096 µs * 2^@timeout
 *
 * Context: any.  IBTA 9.7.6.1.3.
 * Return: microseconds, rounded up; 0 means infinite (@timeout 0).
 */
u64 sroce_retry_timeout_us(u8 timeout)
{
	timeout &= 0x1f;
	if (!timeout)
		return 0;
	return DIV_ROUND_UP_ULL(4096ULL << timeout, 1000);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_retry_timeout_us);
