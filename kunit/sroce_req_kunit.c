// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite sroce_req: the requester (sroce_req.c) driven through
 * post_send and the QP data path.  Each case posts send WQEs and checks
 * the request packets that leave (opcodes, PSNs, AckReq, SE, extended
 * headers, payload cut at the path MTU), the flow control that holds them
 * back (PSN window, initiator depth, fence, SQD) and the send CQEs once
 * the test, playing the responder, acknowledges them.  IBTA vol. 1 9.2,
 * 9.4, 9.5, 9.7.1-9.7.4, 10.8.  Notation: sroce_engine_fixture.h.
 */
#include <kunit/test.h>

#include "sroce_engine_fixture.h"

/* Buffer layout: send source, READ destination, atomic result */
#define SRC	0x0000
#define DST	0x8000
#define ATR	0x9000

#define ORIG	0x1122334455667788ULL
#define MTU	256

/*
 * FLUSH (IBTA 1.5 annex A19.4), posted as a provider writes it: placement
 * type @t, selectivity level @l, a range of .dlen bytes at .off; its
 * request (BTH, FETH, RETH, no payload) and the RDMA READ RESPONSE ONLY
 * of no payload that answers it
 */
#define FLUSH_WQE(t, l, ...) \
	FX_WQE(.op = SROCE_WR_FLUSH, .plt = (t), .sel = (l), __VA_ARGS__)
#define FLUSH_TX(p, t, l, ...) \
	FX_TX(.op = SROCE_OPCODE_RC_FLUSH, .psn = (p), .plt = (t), .sel = (l), \
	      .ackreq = true, __VA_ARGS__)
#define FLUSH_RESP(p) \
	FX_RX(.op = OP_RC(RDMA_READ_RESPONSE_ONLY), .psn = (p), .syn = FX_ACK, \
	      .msn = 1)
#define GLOBAL		SROCE_FLUSH_GLOBAL
#define PERSISTENT	SROCE_FLUSH_PERSISTENT
/* a FLUSH WQE the requester refuses: the QP fails, nothing is sent */
#define FLUSH_REFUSED(...) \
	FX_STEPS(FLUSH_WQE(__VA_ARGS__), FX_NO_TX(), \
		 FX_SCQE(.wr = 1, .status = IB_WC_LOC_QP_OP_ERR, \
			 .wc_op = SROCE_WC_FLUSH), \
		 FX_STATE(IB_QPS_ERR))

/* sq_flags of a user SQ whose provider must ring */
#define SQ_WAKE_NEED	(SROCE_SQ_F_WAKEUP_CAP | SROCE_SQ_F_NEED_WAKEUP)

static const struct sroce_fx_case sroce_req_cases[] = {
	/* ---- SEND: cutting at the MTU, AckReq on the last packet ---- */
	{
		.name = "rc_send_zero_length",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_SEND, .len = 0),
			FX_TX(.op = OP_RC(SEND_ONLY), .psn = 0, .ackreq = true),
			FX_RX_ACK(0),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_SEND)),
	},
	{
		.name = "rc_send_one_mtu",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_SEND, .len = MTU,
					  .buf = 0x40),
			FX_TX(.op = OP_RC(SEND_ONLY), .psn = 0, .len = MTU,
			      .buf = 0x40, .ackreq = true),
			FX_RX_ACK(0),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_SEND, .len = MTU)),
	},
	{
		.name = "rc_send_mtu_plus_one",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_SEND, .len = MTU + 1),
			FX_TX(.op = OP_RC(SEND_FIRST), .psn = 0, .len = MTU),
			FX_TX(.op = OP_RC(SEND_LAST), .psn = 1, .len = 1,
			      .buf = MTU, .ackreq = true),
			FX_RX_ACK(1),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_SEND, .len = MTU + 1)),
	},
	{
		.name = "rc_send_first_middle_last",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_SEND, .len = 600,
					  .buf = 0x100),
			FX_TX(.op = OP_RC(SEND_FIRST), .psn = 0, .len = MTU,
			      .buf = 0x100),
			FX_TX(.op = OP_RC(SEND_MIDDLE), .psn = 1, .len = MTU,
			      .buf = 0x200),
			FX_TX(.op = OP_RC(SEND_LAST), .psn = 2, .len = 88,
			      .buf = 0x300, .ackreq = true),
			FX_RX_ACK(2),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_SEND, .len = 600)),
	},
	{
		.name = "rc_send_with_imm",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_SEND_WITH_IMM, .len = 300,
					  .imm = 0xcafe),
			FX_TX(.op = OP_RC(SEND_FIRST), .psn = 0, .len = MTU),
			FX_TX(.op = OP_RC(SEND_LAST_WITH_IMMEDIATE), .psn = 1,
			      .len = 44, .buf = MTU, .imm = 0xcafe,
			      .ackreq = true),
			FX_RX_ACK(1),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_SEND, .len = 300)),
	},
	{
		.name = "rc_send_solicited_se_on_last",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_SEND, .len = 300,
					  .flags = IB_SEND_SOLICITED),
			FX_TX(.op = OP_RC(SEND_FIRST), .psn = 0, .len = MTU),
			FX_TX(.op = OP_RC(SEND_LAST), .psn = 1, .len = 44,
			      .buf = MTU, .se = true, .ackreq = true),
			FX_RX_ACK(1),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_SEND, .len = 300)),
	},
	{
		.name = "rc_send_with_inv",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_SEND_WITH_INV, .len = 8,
					  .imm = 0xabc01),
			FX_TX(.op = OP_RC(SEND_ONLY_WITH_INVALIDATE), .psn = 0,
			      .len = 8, .imm = 0xabc01, .ackreq = true),
			FX_RX_ACK(0),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_SEND, .len = 8)),
	},
	{
		/* inline data is copied at post time: the lkey is not used */
		.name = "rc_send_inline",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_SEND, .len = 40,
					  .buf = 0x40, .key = SROCE_FX_KEY_BAD,
					  .flags = IB_SEND_INLINE),
			FX_TX(.op = OP_RC(SEND_ONLY), .psn = 0, .len = 40,
			      .buf = 0x40, .ackreq = true),
			FX_RX_ACK(0),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_SEND, .len = 40)),
	},
	/* ---- RDMA WRITE, READ, atomics ---- */
	{
		.name = "rc_write_first_middle_last",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_RDMA_WRITE, .len = 600,
					  .off = 0x100),
			FX_TX(.op = OP_RC(RDMA_WRITE_FIRST), .psn = 0,
			      .len = MTU, .off = 0x100, .dlen = 600),
			FX_TX(.op = OP_RC(RDMA_WRITE_MIDDLE), .psn = 1,
			      .len = MTU, .buf = MTU),
			FX_TX(.op = OP_RC(RDMA_WRITE_LAST), .psn = 2, .len = 88,
			      .buf = 2 * MTU, .ackreq = true),
			FX_RX_ACK(2),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_RDMA_WRITE,
				.len = 600)),
	},
	{
		.name = "rc_write_with_imm_only",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_RDMA_WRITE_WITH_IMM,
					  .len = 16, .off = 0x40, .imm = 5),
			FX_TX(.op = OP_RC(RDMA_WRITE_ONLY_WITH_IMMEDIATE),
			      .psn = 0, .len = 16, .off = 0x40, .dlen = 16,
			      .imm = 5, .ackreq = true),
			FX_RX_ACK(0),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_RDMA_WRITE, .len = 16)),
	},
	{
		.name = "rc_read_takes_a_psn_per_response",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_RDMA_READ, .len = 600,
					  .buf = DST, .off = 0x200),
			FX_TX(.op = OP_RC(RDMA_READ_REQUEST), .psn = 0,
			      .off = 0x200, .dlen = 600, .ackreq = true),
			FX_SEND(.op = IB_WR_SEND, .len = 8),
			FX_TX(.op = OP_RC(SEND_ONLY), .psn = 3, .len = 8,
			      .ackreq = true),
			FX_RX(.op = OP_RC(RDMA_READ_RESPONSE_FIRST), .psn = 0,
			      .syn = FX_ACK, .msn = 1, .len = MTU),
			FX_RX(.op = OP_RC(RDMA_READ_RESPONSE_MIDDLE), .psn = 1,
			      .len = MTU, .data = MTU),
			FX_RX(.op = OP_RC(RDMA_READ_RESPONSE_LAST), .psn = 2,
			      .syn = FX_ACK, .msn = 1, .len = 88,
			      .data = 2 * MTU),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_RDMA_READ, .len = 600),
			FX_RX_ACK(3),
			FX_SCQE(.wr = 2, .wc_op = IB_WC_SEND, .len = 8),
			FX_MEM(.buf = DST, .len = 600),
			FX_MEM_ORIG(.buf = DST + 600, .len = 64)),
	},
	{
		.name = "rc_read_zero_length",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_RDMA_READ, .len = 0,
					  .buf = DST),
			FX_TX(.op = OP_RC(RDMA_READ_REQUEST), .psn = 0,
			      .ackreq = true),
			FX_RX(.op = OP_RC(RDMA_READ_RESPONSE_ONLY), .psn = 0,
			      .syn = FX_ACK, .msn = 1),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_RDMA_READ)),
	},
	{
		.name = "rc_cmp_swap",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_ATOMIC_CMP_AND_SWP,
					  .len = 8, .buf = ATR, .off = 0x40,
					  .a = 99, .b = 7),
			FX_TX(.op = OP_RC(COMPARE_SWAP), .psn = 0, .off = 0x40,
			      .a = 99, .b = 7, .ackreq = true),
			FX_RX(.op = OP_RC(ATOMIC_ACKNOWLEDGE), .psn = 0,
			      .syn = FX_ACK, .msn = 1, .a = 7),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_COMP_SWAP, .len = 8),
			FX_MEM64(ATR, 7)),
	},
	{
		.name = "rc_fetch_add",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_ATOMIC_FETCH_AND_ADD,
					  .len = 8, .buf = ATR, .off = 0x48,
					  .a = 5),
			FX_TX(.op = OP_RC(FETCH_ADD), .psn = 0, .off = 0x48,
			      .a = 5, .ackreq = true),
			FX_RX(.op = OP_RC(ATOMIC_ACKNOWLEDGE), .psn = 0,
			      .syn = FX_ACK, .msn = 1, .a = ORIG),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_FETCH_ADD, .len = 8),
			FX_MEM64(ATR, ORIG)),
	},
	/* ---- PSNs, AckReq, flow control ---- */
	{
		.name = "rc_sq_psn_wraps",
		.type = IB_QPT_RC,
		.sq_psn = 0xfffffe,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_SEND, .len = 600),
			FX_TX(.op = OP_RC(SEND_FIRST), .psn = 0xfffffe,
			      .len = MTU),
			FX_TX(.op = OP_RC(SEND_MIDDLE), .psn = 0xffffff,
			      .len = MTU, .buf = MTU),
			FX_TX(.op = OP_RC(SEND_LAST), .psn = 0, .len = 88,
			      .buf = 2 * MTU, .ackreq = true),
			FX_RX_ACK(0),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_SEND, .len = 600)),
	},
	{
		/* IBTA 9.7.2: AckReq every SROCE_REQ_ACK_EVERY (64) packets */
		.name = "rc_ackreq_every_64_packets",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_SEND, .len = 130 * MTU),
			FX_TX(.op = OP_RC(SEND_FIRST), .psn = 0, .len = MTU),
			FX_TXS(.op = OP_RC(SEND_MIDDLE), .psn = 1, .n = 128,
			       .buf = MTU, .acks = 2),
			FX_TX(.op = OP_RC(SEND_LAST), .psn = 129, .len = MTU,
			      .buf = 129 * MTU, .ackreq = true),
			FX_RX_ACK(129),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_SEND,
				.len = 130 * MTU)),
	},
	{
		/* SROCE_REQ_WINDOW: 256 PSNs past the oldest unacked */
		.name = "rc_window_of_256_psns",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_SEND, .len = 300 * MTU),
			FX_TX(.op = OP_RC(SEND_FIRST), .psn = 0, .len = MTU),
			FX_TXS(.op = OP_RC(SEND_MIDDLE), .psn = 1, .n = 255,
			       .buf = MTU, .acks = 4),
			FX_NO_TX(),
			FX_RX_ACK(127),
			FX_TXS(.op = OP_RC(SEND_MIDDLE), .psn = 256, .n = 43,
			       .buf = 256 * MTU),
			FX_TX(.op = OP_RC(SEND_LAST), .psn = 299, .len = MTU,
			      .buf = 299 * MTU, .ackreq = true),
			FX_NO_CQE(),
			FX_RX_ACK(299),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_SEND,
				.len = 300 * MTU)),
	},
	{
		.name = "rc_initiator_depth_one",
		.type = IB_QPT_RC,
		.max_rd = 1,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_RDMA_READ, .len = 8,
					  .buf = DST),
			FX_SEND(.op = IB_WR_RDMA_READ, .len = 8, .buf = DST + 8,
				.off = 0x10),
			FX_TX(.op = OP_RC(RDMA_READ_REQUEST), .psn = 0,
			      .dlen = 8, .ackreq = true),
			FX_NO_TX(),
			FX_RX(.op = OP_RC(RDMA_READ_RESPONSE_ONLY), .psn = 0,
			      .syn = FX_ACK, .msn = 1, .len = 8),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_RDMA_READ, .len = 8),
			FX_TX(.op = OP_RC(RDMA_READ_REQUEST), .psn = 1,
			      .off = 0x10, .dlen = 8, .ackreq = true),
			FX_RX(.op = OP_RC(RDMA_READ_RESPONSE_ONLY), .psn = 1,
			      .syn = FX_ACK, .msn = 2, .len = 8, .data = 8),
			FX_SCQE(.wr = 2, .wc_op = IB_WC_RDMA_READ, .len = 8),
			FX_MEM(.buf = DST, .len = 16)),
	},
	{
		.name = "rc_fence_waits_for_read",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_RDMA_READ, .len = 8,
					  .buf = DST),
			FX_SEND(.op = IB_WR_SEND, .len = 8,
				.flags = IB_SEND_FENCE),
			FX_TX(.op = OP_RC(RDMA_READ_REQUEST), .psn = 0,
			      .dlen = 8, .ackreq = true),
			FX_NO_TX(),
			FX_RX(.op = OP_RC(RDMA_READ_RESPONSE_ONLY), .psn = 0,
			      .syn = FX_ACK, .msn = 1, .len = 8),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_RDMA_READ, .len = 8),
			FX_TX(.op = OP_RC(SEND_ONLY), .psn = 1, .len = 8,
			      .ackreq = true),
			FX_RX_ACK(1),
			FX_SCQE(.wr = 2, .wc_op = IB_WC_SEND, .len = 8)),
	},
	{
		.name = "rc_unsignaled_completes_silently",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_SEND, .len = 8,
					  .unsig = true),
			FX_SEND(.op = IB_WR_SEND, .len = 8),
			FX_TX(.op = OP_RC(SEND_ONLY), .psn = 0, .len = 8,
			      .ackreq = true),
			FX_TX(.op = OP_RC(SEND_ONLY), .psn = 1, .len = 8,
			      .ackreq = true),
			FX_RX_ACK(1),
			FX_SCQE(.wr = 2, .wc_op = IB_WC_SEND, .len = 8)),
	},
	{
		.name = "rc_sqd_holds_new_wqes",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_SEND, .len = 8),
			FX_TX(.op = OP_RC(SEND_ONLY), .psn = 0, .len = 8,
			      .ackreq = true),
			FX_MODIFY(IB_QPS_SQD),
			FX_SEND(.op = IB_WR_SEND, .len = 8, .buf = 0x20),
			FX_NO_TX(),
			FX_STATE(IB_QPS_SQD),
			FX_MODIFY(IB_QPS_RTS),
			FX_TX(.op = OP_RC(SEND_ONLY), .psn = 1, .len = 8,
			      .buf = 0x20, .ackreq = true),
			FX_RX_ACK(1),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_SEND, .len = 8),
			FX_SCQE(.wr = 2, .wc_op = IB_WC_SEND, .len = 8)),
	},
	{
		/* backpressure is not loss: the same packet goes again */
		.name = "rc_pushed_back_packet_sent_again",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_PUSHBACK(1),
			FX_SEND(.op = IB_WR_SEND, .len = 8),
			FX_WAIT(5),
			FX_TX(.op = OP_RC(SEND_ONLY), .psn = 0, .len = 8,
			      .ackreq = true),
			FX_COUNT(SROCE_CNT_RETRANSMITS, 0),
			FX_RX_ACK(0),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_SEND, .len = 8)),
	},
	/* ---- UC and UD complete when sent ---- */
	{
		.name = "uc_send_completes_when_sent",
		.type = IB_QPT_UC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_SEND, .len = 600),
			FX_TX(.op = OP_UC(SEND_FIRST), .psn = 0, .len = MTU),
			FX_TX(.op = OP_UC(SEND_MIDDLE), .psn = 1, .len = MTU,
			      .buf = MTU),
			FX_TX(.op = OP_UC(SEND_LAST), .psn = 2, .len = 88,
			      .buf = 2 * MTU),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_SEND, .len = 600)),
	},
	{
		.name = "uc_write_with_imm",
		.type = IB_QPT_UC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_RDMA_WRITE_WITH_IMM,
					  .len = 300, .off = 0x80, .imm = 9),
			FX_TX(.op = OP_UC(RDMA_WRITE_FIRST), .psn = 0,
			      .len = MTU, .off = 0x80, .dlen = 300),
			FX_TX(.op = OP_UC(RDMA_WRITE_LAST_WITH_IMMEDIATE),
			      .psn = 1, .len = 44, .buf = MTU, .imm = 9),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_RDMA_WRITE,
				.len = 300)),
	},
	{
		/* IBTA 1.5 oA19-28: userspace QPs only, no kernel verb */
		.name = "rc_kernel_atomic_write_refused",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = SROCE_WR_ATOMIC_WRITE, .len = 8,
					  .flags = IB_SEND_INLINE, .buf = DST,
					  .err = -EINVAL),
			FX_NO_TX(), FX_NO_CQE()),
	},
	/* ---- FLUSH (IBTA 1.5 annex A19.4): user QPs, RC only ---- */
	{
		/* the RETH names the whole range, however many MTUs it spans */
		.name = "rc_flush_global_range",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FLUSH_WQE(GLOBAL, SROCE_FLUSH_RANGE,
					    .off = 0x40, .dlen = 100000),
			FLUSH_TX(0, GLOBAL, SROCE_FLUSH_RANGE, .off = 0x40,
				 .dlen = 100000),
			FLUSH_RESP(0),
			FX_SCQE(.wr = 1, .wc_op = SROCE_WC_FLUSH,
				.len = 100000)),
	},
	{
		/* the responder judges the placement type (sroce has no pmem) */
		.name = "rc_flush_persistent_mr_level",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FLUSH_WQE(GLOBAL | PERSISTENT, SROCE_FLUSH_MR),
			FLUSH_TX(0, GLOBAL | PERSISTENT, SROCE_FLUSH_MR),
			FLUSH_RESP(0),
			FX_SCQE(.wr = 1, .wc_op = SROCE_WC_FLUSH)),
	},
	{
		/* it holds an initiator depth slot until answered, as a READ */
		.name = "rc_flush_initiator_depth",
		.type = IB_QPT_RC,
		.max_rd = 1,
		.steps = FX_STEPS(FLUSH_WQE(GLOBAL, SROCE_FLUSH_MR),
			FX_WQE(.op = IB_WR_RDMA_READ, .n = 1, .len = 8,
			       .buf = DST, .off = 0x80),
			FLUSH_TX(0, GLOBAL, SROCE_FLUSH_MR),
			FX_NO_TX(),
			FLUSH_RESP(0),
			FX_SCQE(.wr = 1, .wc_op = SROCE_WC_FLUSH),
			FX_TX(.op = OP_RC(RDMA_READ_REQUEST), .psn = 1,
			      .off = 0x80, .dlen = 8, .ackreq = true),
			FX_RX(.op = OP_RC(RDMA_READ_RESPONSE_ONLY), .psn = 1,
			      .syn = FX_ACK, .msn = 2, .len = 8),
			FX_SCQE(.wr = 2, .wc_op = IB_WC_RDMA_READ, .len = 8),
			FX_MEM(.buf = DST, .len = 8)),
	},
	{
		/* a response with payload is no answer to it */
		.name = "rc_flush_answered_with_payload",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FLUSH_WQE(GLOBAL, SROCE_FLUSH_MR),
			FLUSH_TX(0, GLOBAL, SROCE_FLUSH_MR),
			FX_RX(.op = OP_RC(RDMA_READ_RESPONSE_ONLY), .psn = 0,
			      .syn = FX_ACK, .msn = 1, .len = 8),
			FX_SCQE(.wr = 1, .status = IB_WC_BAD_RESP_ERR,
				.wc_op = SROCE_WC_FLUSH),
			FX_STATE(IB_QPS_ERR)),
	},
	{
		.name = "rc_flush_type_none_refused",
		.type = IB_QPT_RC,
		.steps = FLUSH_REFUSED(0, SROCE_FLUSH_RANGE, .dlen = 8),
	},
	{
		.name = "rc_flush_type_reserved_bit_refused",
		.type = IB_QPT_RC,
		.steps = FLUSH_REFUSED(GLOBAL | 8, SROCE_FLUSH_RANGE, .dlen = 8),
	},
	{
		.name = "rc_flush_level_reserved_refused",
		.type = IB_QPT_RC,
		.steps = FLUSH_REFUSED(GLOBAL, 2, .dlen = 8),
	},
	{
		.name = "rc_flush_with_sge_refused",
		.type = IB_QPT_RC,
		.steps = FLUSH_REFUSED(GLOBAL, SROCE_FLUSH_MR, .n = 1, .len = 8),
	},
	{
		.name = "rc_flush_inline_refused",
		.type = IB_QPT_RC,
		.steps = FLUSH_REFUSED(GLOBAL, SROCE_FLUSH_MR,
				       .flags = IB_SEND_INLINE),
	},
	{
		.name = "uc_flush_refused",
		.type = IB_QPT_UC,
		.steps = FLUSH_REFUSED(GLOBAL, SROCE_FLUSH_MR),
	},
	{
		/* no kernel verb carries a placement type and level */
		.name = "rc_kernel_flush_refused",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = SROCE_WR_FLUSH, .len = 0,
					  .err = -EINVAL),
			FX_NO_TX(), FX_NO_CQE()),
	},
	{
		.name = "uc_read_refused",
		.type = IB_QPT_UC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_RDMA_READ, .len = 8,
					  .buf = DST, .err = -EINVAL),
			FX_STATE(IB_QPS_RTS)),
	},
	{
		.name = "ud_send",
		.type = IB_QPT_UD,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_SEND, .len = 100,
					  .buf = 0x10),
			FX_SEND(.op = IB_WR_SEND, .len = 1),
			FX_TX(.op = OP_UD(SEND_ONLY), .psn = 0, .len = 100,
			      .buf = 0x10),
			FX_TX(.op = OP_UD(SEND_ONLY), .psn = 1, .len = 1),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_SEND, .len = 100),
			FX_SCQE(.wr = 2, .wc_op = IB_WC_SEND, .len = 1)),
	},
	{
		/* IBTA 10.2.5: a Q_Key with the high bit set means the QP's */
		.name = "ud_send_qkey_from_qp",
		.type = IB_QPT_UD,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_SEND, .len = 4,
					  .qkey = 0x80000000),
			FX_TX(.op = OP_UD(SEND_ONLY), .psn = 0, .len = 4,
			      .qkey = SROCE_FX_QKEY),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_SEND, .len = 4)),
	},
	{
		.name = "ud_send_with_imm",
		.type = IB_QPT_UD,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_SEND_WITH_IMM, .len = 10,
					  .imm = 3, .flags = IB_SEND_SOLICITED),
			FX_TX(.op = OP_UD(SEND_ONLY_WITH_IMMEDIATE), .psn = 0,
			      .len = 10, .imm = 3, .se = true),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_SEND, .len = 10)),
	},
	{
		/* C10-93.1.1: longer than the MTU is silently not sent */
		.name = "ud_longer_than_mtu_not_sent",
		.type = IB_QPT_UD,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_SEND, .len = 2000),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_SEND, .len = 2000),
			FX_SEND(.op = IB_WR_SEND, .len = 1024),
			FX_TX(.op = OP_UD(SEND_ONLY), .psn = 0, .len = 1024),
			FX_SCQE(.wr = 2, .wc_op = IB_WC_SEND, .len = 1024)),
	},
	/* ---- local errors, flush ---- */
	{
		.name = "rc_bad_lkey_local_protection_error",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_SEND, .len = 8,
					  .key = SROCE_FX_KEY_BAD),
			FX_SEND(.op = IB_WR_SEND, .len = 8),
			FX_SCQE(.wr = 1, .status = IB_WC_LOC_PROT_ERR,
				.wc_op = IB_WC_SEND),
			FX_SCQE(.wr = 2, .status = IB_WC_WR_FLUSH_ERR,
				.wc_op = IB_WC_SEND),
			FX_COUNT(SROCE_CNT_LOCAL_ACCESS_ERR, 1),
			FX_STATE(IB_QPS_ERR),
			FX_FATAL(1)),
	},
	{
		.name = "rc_err_flushes_outstanding_wqes",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_SEND, .len = 8),
			FX_SEND(.op = IB_WR_SEND, .len = 8, .unsig = true),
			FX_SEND(.op = IB_WR_RDMA_WRITE, .len = 8),
			FX_TX(.op = OP_RC(SEND_ONLY), .psn = 0, .len = 8,
			      .ackreq = true),
			FX_TX(.op = OP_RC(SEND_ONLY), .psn = 1, .len = 8,
			      .ackreq = true),
			FX_TX(.op = OP_RC(RDMA_WRITE_ONLY), .psn = 2, .len = 8,
			      .dlen = 8, .ackreq = true),
			FX_RECV(.n = 2),
			FX_MODIFY(IB_QPS_ERR),
			/* flushed completions ignore IB_SEND_SIGNALED */
			FX_SCQE(.wr = 1, .status = IB_WC_WR_FLUSH_ERR,
				.wc_op = IB_WC_SEND),
			FX_SCQE(.wr = 2, .status = IB_WC_WR_FLUSH_ERR,
				.wc_op = IB_WC_SEND),
			FX_SCQE(.wr = 3, .status = IB_WC_WR_FLUSH_ERR,
				.wc_op = IB_WC_RDMA_WRITE),
			FX_RCQE_ERR(0x100, IB_WC_WR_FLUSH_ERR),
			FX_RCQE_ERR(0x101, IB_WC_WR_FLUSH_ERR),
			/* a late ACK changes nothing */
			FX_RX_ACK(2),
			FX_STATE(IB_QPS_ERR)),
	},
	{
		.name = "rc_posted_in_err_flushed",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_MODIFY(IB_QPS_ERR),
			FX_SEND(.op = IB_WR_SEND, .len = 8),
			FX_SCQE(.wr = 1, .status = IB_WC_WR_FLUSH_ERR,
				.wc_op = IB_WC_SEND),
			FX_RECV(.n = 1),
			FX_RCQE_ERR(0x100, IB_WC_WR_FLUSH_ERR)),
	},
	/* ---- NET_XMIT_CN: the packet was queued, not dropped ---- */
	{
		.name = "ud_send_congested_sent_once",
		.type = IB_QPT_UD,
		.steps = FX_STEPS(FX_CONGEST(1),
			FX_SEND(.op = IB_WR_SEND, .len = 8),
			FX_TX(.op = OP_UD(SEND_ONLY), .psn = 0, .len = 8),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_SEND, .len = 8),
			FX_WAIT(5),
			FX_NO_TX(),
			FX_COUNT(SROCE_CNT_SENT_PKTS, 1),
			FX_COUNT(SROCE_CNT_TX_BACKPRESSURE, 1)),
	},
	{
		.name = "uc_write_congested_sent_once",
		.type = IB_QPT_UC,
		.steps = FX_STEPS(FX_CONGEST(1),
			FX_SEND(.op = IB_WR_RDMA_WRITE, .len = 8, .off = 0x40),
			FX_TX(.op = OP_UC(RDMA_WRITE_ONLY), .psn = 0, .len = 8,
			      .dlen = 8, .off = 0x40),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_RDMA_WRITE, .len = 8),
			FX_WAIT(5),
			FX_NO_TX()),
	},
	/* ---- a move to RESET the send side has not run yet ---- */
	{
		/*
		 * IBTA 10.3.1.1: RESET empties the SQ of what was posted
		 * before it; a WQE posted after the QP went on to RTS is
		 * sent even when the reset is only carried out now.
		 */
		.name = "ud_lazy_reset_keeps_later_wqe",
		.type = IB_QPT_UD,
		.steps = FX_STEPS(FX_HOLD(),
			FX_SEND(.op = IB_WR_SEND, .len = 4),
			FX_REOPEN(),
			FX_SEND(.op = IB_WR_SEND, .len = 6),
			FX_RELEASE(),
			FX_TX(.op = OP_UD(SEND_ONLY), .psn = 0, .len = 6),
			FX_SCQE(.wr = 2, .wc_op = IB_WC_SEND, .len = 6)),
	},
	{
		.name = "rc_lazy_reset_keeps_later_wqe",
		.type = IB_QPT_RC,
		.sq_psn = 100,
		.steps = FX_STEPS(FX_HOLD(),
			FX_SEND(.op = IB_WR_SEND, .len = 4),
			FX_SEND(.op = IB_WR_SEND, .len = 5),
			FX_REOPEN(),
			FX_SEND(.op = IB_WR_SEND, .len = 6),
			FX_RELEASE(),
			FX_TX(.op = OP_RC(SEND_ONLY), .psn = 100, .len = 6,
			      .ackreq = true),
			FX_RX_ACK(100),
			FX_SCQE(.wr = 3, .wc_op = IB_WC_SEND, .len = 6)),
	},
	{
		/*
		 * sroce-abi.h, SROCE_SQ_F_NEED_WAKEUP: clear while packets
		 * wait for their ACK, whose run fetches a WQE posted without
		 * a doorbell; set once nothing is outstanding and the SQ is
		 * empty.
		 */
		.name = "rc_sq_wakeup_while_outstanding",
		.type = IB_QPT_RC,
		.timeout = 14,	/* 67 ms */
		.steps = FX_STEPS(FX_SQ_FLAGS(SQ_WAKE_NEED),
			FX_WQE(.op = IB_WR_SEND, .n = 1, .len = 8),
			FX_TX(.op = OP_RC(SEND_ONLY), .psn = 0, .len = 8,
			      .ackreq = true),
			FX_SQ_FLAGS(SROCE_SQ_F_WAKEUP_CAP),
			FX_WQE(.op = IB_WR_SEND, .n = 1, .len = 16,
			       .nodb = true),
			FX_NO_TX(),
			FX_RX_ACK(0),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_SEND, .len = 8),
			FX_TX(.op = OP_RC(SEND_ONLY), .psn = 1, .len = 16,
			      .ackreq = true),
			FX_SQ_FLAGS(SROCE_SQ_F_WAKEUP_CAP),
			FX_RX_ACK(1),
			FX_SCQE(.wr = 2, .wc_op = IB_WC_SEND, .len = 16),
			FX_SQ_FLAGS(SQ_WAKE_NEED),
			FX_COUNT(SROCE_CNT_DOORBELLS, 1)),
	},
	{
		/* no local ACK timeout: an ACK is nothing to count on */
		.name = "rc_sq_wakeup_infinite_timeout",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_WQE(.op = IB_WR_RDMA_WRITE, .n = 1,
					 .len = 8),
			FX_TX(.op = OP_RC(RDMA_WRITE_ONLY), .psn = 0, .len = 8,
			      .dlen = 8, .ackreq = true),
			FX_SQ_FLAGS(SQ_WAKE_NEED),
			FX_RX_ACK(0),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_RDMA_WRITE, .len = 8),
			FX_SQ_FLAGS(SQ_WAKE_NEED)),
	},
	{
		/* nothing is acknowledged on UC: set after every run */
		.name = "uc_sq_wakeup_after_send",
		.type = IB_QPT_UC,
		.timeout = 14,	/* 67 ms */
		.steps = FX_STEPS(FX_WQE(.op = IB_WR_RDMA_WRITE, .n = 1,
					 .len = 8),
			FX_TX(.op = OP_UC(RDMA_WRITE_ONLY), .psn = 0, .len = 8,
			      .dlen = 8),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_RDMA_WRITE, .len = 8),
			FX_SQ_FLAGS(SQ_WAKE_NEED),
			FX_COUNT(SROCE_CNT_DOORBELLS, 1)),
	},
	{
		/* a QP that failed flushes and no longer counts on an ACK */
		.name = "rc_sq_wakeup_after_error",
		.type = IB_QPT_RC,
		.timeout = 14,	/* 67 ms */
		.steps = FX_STEPS(FX_WQE(.op = IB_WR_SEND, .n = 1, .len = 8),
			FX_TX(.op = OP_RC(SEND_ONLY), .psn = 0, .len = 8,
			      .ackreq = true),
			FX_SQ_FLAGS(SROCE_SQ_F_WAKEUP_CAP),
			FX_RX_NAK(0, FX_NAK_ACC),
			FX_SCQE(.wr = 1, .status = IB_WC_REM_ACCESS_ERR,
				.wc_op = IB_WC_SEND),
			FX_STATE(IB_QPS_ERR),
			FX_SQ_FLAGS(SQ_WAKE_NEED)),
	},
};

SROCE_FX_SUITE(sroce_req, sroce_req_cases);
