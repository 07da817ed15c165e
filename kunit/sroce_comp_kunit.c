// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite sroce_comp: the completer (sroce_comp.c) driven through the
 * QP data path.  Each case posts send WQEs on an RC QP, lets the requester
 * send them, then plays the responder: ACKs (cumulative, duplicate,
 * ghost), each NAK code, RNR NAKs, READ responses (complete, lost,
 * malformed) and atomic ACKs, and checks the send CQEs, the QP state and
 * what is sent again (go-back-N, RNR retry, local ACK timeout).
 * IBTA vol. 1 9.7.5.1, 9.7.5.2, 9.7.6, 9.9.  Notation:
 * sroce_engine_fixture.h.
 */
#include <kunit/test.h>

#include "sroce_engine_fixture.h"

#define DST	0x8000	/* READ destination, atomic result */
#define ORIG	0x1122334455667788ULL
#define MTU	256

#define SEND8(b)	FX_SEND(.op = IB_WR_SEND, .len = 8, .buf = (b))
#define TX8(p, b)	FX_TX(.op = OP_RC(SEND_ONLY), .psn = (p), .len = 8, \
			      .buf = (b), .ackreq = true)
#define SCQE8(w)	FX_SCQE(.wr = (w), .wc_op = IB_WC_SEND, .len = 8)
#define SCQE_ERR(w, s)	FX_SCQE(.wr = (w), .status = (s), \
				.wc_op = IB_WC_SEND)

/* The responses to a 600-byte READ at PSN 0 */
#define RD_FIRST_IN \
	FX_RX(.op = OP_RC(RDMA_READ_RESPONSE_FIRST), .psn = 0, .syn = FX_ACK, \
	      .msn = 1, .len = MTU)
#define RD_MIDDLE_IN \
	FX_RX(.op = OP_RC(RDMA_READ_RESPONSE_MIDDLE), .psn = 1, .len = MTU, \
	      .data = MTU)
#define RD_LAST_IN \
	FX_RX(.op = OP_RC(RDMA_READ_RESPONSE_LAST), .psn = 2, .syn = FX_ACK, \
	      .msn = 1, .len = 88, .data = 2 * MTU)

/* Four SENDs out, a sequence error NAK at 2: 2 goes again, alone */
#define NAK2_RESENT_ALONE \
	SEND8(0), SEND8(0x100), SEND8(0x200), SEND8(0x300), \
	TX8(0, 0), TX8(1, 0x100), TX8(2, 0x200), TX8(3, 0x300), \
	FX_RX_NAK(2, FX_NAK_SEQ), \
	SCQE8(1), SCQE8(2), \
	TX8(2, 0x200), \
	FX_NO_TX()

/* Two SENDs out, a NAK for the first: its status, the second flushed. */
#define NAK_CASE(nm, code, st, ctr, n)					\
	{								\
		.name = nm,						\
		.type = IB_QPT_RC,					\
		.steps = FX_STEPS(SEND8(0), SEND8(0x10),		\
			TX8(0, 0), TX8(1, 0x10),			\
			FX_RX_NAK(0, FX_NAK(code)),			\
			SCQE_ERR(1, st),				\
			SCQE_ERR(2, IB_WC_WR_FLUSH_ERR),		\
			FX_COUNT(ctr, n),				\
			FX_STATE(IB_QPS_ERR),				\
			FX_FATAL(1)),					\
	}

static const struct sroce_fx_case sroce_comp_cases[] = {
	/* ---- ACKs (IBTA 9.7.5.1.1: cumulative) ---- */
	{
		.name = "ack_completes_send",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(SEND8(0),
			TX8(0, 0),
			FX_NO_CQE(),
			FX_RX_ACK(0),
			SCQE8(1),
			FX_STATE(IB_QPS_RTS)),
	},
	{
		.name = "ack_is_cumulative",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(SEND8(0), SEND8(0x100), SEND8(0x200),
			TX8(0, 0), TX8(1, 0x100), TX8(2, 0x200),
			FX_RX_ACK(2),
			SCQE8(1), SCQE8(2), SCQE8(3)),
	},
	{
		.name = "ack_partial",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(SEND8(0), SEND8(0x100), SEND8(0x200),
			TX8(0, 0), TX8(1, 0x100), TX8(2, 0x200),
			FX_RX_ACK(0),
			SCQE8(1),
			FX_NO_CQE(),
			FX_RX_ACK(2),
			SCQE8(2), SCQE8(3)),
	},
	{
		.name = "ack_mid_message_completes_nothing",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_SEND, .len = 600),
			FX_TX(.op = OP_RC(SEND_FIRST), .psn = 0, .len = MTU),
			FX_TX(.op = OP_RC(SEND_MIDDLE), .psn = 1, .len = MTU,
			      .buf = MTU),
			FX_TX(.op = OP_RC(SEND_LAST), .psn = 2, .len = 88,
			      .buf = 2 * MTU, .ackreq = true),
			FX_RX_ACK(1),
			FX_NO_CQE(),
			FX_RX_ACK(2),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_SEND, .len = 600)),
	},
	{
		.name = "ack_duplicate_ignored",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(SEND8(0),
			TX8(0, 0),
			FX_RX_ACK(0),
			SCQE8(1),
			FX_RX_ACK(0),
			FX_NO_TX(),
			FX_STATE(IB_QPS_RTS)),
	},
	{
		.name = "ack_beyond_sent_ignored",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(SEND8(0),
			TX8(0, 0),
			FX_RX_ACK(5),
			FX_NO_CQE(),
			FX_RX_ACK(0),
			SCQE8(1)),
	},
	{
		.name = "ack_reserved_syndrome_ignored",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(SEND8(0),
			TX8(0, 0),
			FX_RX_NAK(0, 0x40),
			FX_NO_CQE(),
			FX_STATE(IB_QPS_RTS),
			FX_RX_ACK(0),
			SCQE8(1)),
	},
	/* ---- NAK codes (IBTA 9.7.5.2.3-6, table 44) ---- */
	NAK_CASE("nak_invalid_request", SROCE_NAK_INVALID_REQ,
		 IB_WC_REM_INV_REQ_ERR, SROCE_CNT_REMOTE_INVALID_REQ, 1),
	NAK_CASE("nak_remote_access", SROCE_NAK_REM_ACCESS,
		 IB_WC_REM_ACCESS_ERR, SROCE_CNT_REMOTE_ACCESS_ERR, 1),
	NAK_CASE("nak_remote_operational", SROCE_NAK_REM_OP_ERR,
		 IB_WC_REM_OP_ERR, SROCE_CNT_RCV_SEQ_ERR, 0),
	NAK_CASE("nak_invalid_rd_request", SROCE_NAK_INVALID_RD_REQ,
		 IB_WC_REM_INV_RD_REQ_ERR, SROCE_CNT_RCV_SEQ_ERR, 0),
	NAK_CASE("nak_reserved_code", 0x1f, IB_WC_REM_OP_ERR,
		 SROCE_CNT_RETRANSMITS, 0),
	{
		.name = "nak_acks_what_precedes_it",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(SEND8(0), SEND8(0x10),
			TX8(0, 0), TX8(1, 0x10),
			FX_RX_NAK(1, FX_NAK_ACC),
			SCQE8(1),
			SCQE_ERR(2, IB_WC_REM_ACCESS_ERR),
			FX_STATE(IB_QPS_ERR)),
	},
	{
		.name = "nak_on_read",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_RDMA_READ, .len = 8,
					  .buf = DST),
			FX_TX(.op = OP_RC(RDMA_READ_REQUEST), .psn = 0,
			      .dlen = 8, .ackreq = true),
			FX_RX_NAK(0, FX_NAK_ACC),
			FX_SCQE(.wr = 1, .status = IB_WC_REM_ACCESS_ERR,
				.wc_op = IB_WC_RDMA_READ),
			FX_MEM_ORIG(.buf = DST, .len = 8)),
	},
	/*
	 * ---- sequence errors (IBTA 9.7.5.2.2): the NAKed packet goes
	 * again alone, then what its answer did not acknowledge ----
	 */
	{
		/* the responder held 3: its ACK covers it, nothing else goes */
		.name = "nak_seq_resends_its_psn_alone",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(NAK2_RESENT_ALONE,
			FX_COUNT(SROCE_CNT_RCV_SEQ_ERR, 1),
			FX_COUNT(SROCE_CNT_SEL_RESENDS, 1),
			FX_COUNT(SROCE_CNT_RETRANSMITS, 1),
			FX_RX_ACK(3),
			SCQE8(3), SCQE8(4),
			FX_NO_TX()),
	},
	{
		/*
		 * A go-back-N responder (rdma_rxe) dropped 3: the ACK of 2
		 * alone, then 3 goes again.
		 */
		.name = "nak_seq_go_back_n_peer",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(NAK2_RESENT_ALONE,
			FX_RX_ACK(2),
			SCQE8(3),
			TX8(3, 0x300),
			FX_COUNT(SROCE_CNT_RETRANSMITS, 2),
			FX_RX_ACK(3),
			SCQE8(4),
			FX_NO_TX()),
	},
	{
		.name = "nak_seq_inside_a_message",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_SEND, .len = 600),
			FX_TX(.op = OP_RC(SEND_FIRST), .psn = 0, .len = MTU),
			FX_TX(.op = OP_RC(SEND_MIDDLE), .psn = 1, .len = MTU,
			      .buf = MTU),
			FX_TX(.op = OP_RC(SEND_LAST), .psn = 2, .len = 88,
			      .buf = 2 * MTU, .ackreq = true),
			FX_RX_NAK(1, FX_NAK_SEQ),
			/* the resent packet asks for an ACK */
			FX_TX(.op = OP_RC(SEND_MIDDLE), .psn = 1, .len = MTU,
			      .buf = MTU, .ackreq = true),
			FX_NO_TX(),
			FX_RX_ACK(2),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_SEND, .len = 600),
			FX_NO_TX()),
	},
	{
		.name = "nak_seq_one_retry_per_loss",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(SEND8(0), SEND8(0x10),
			TX8(0, 0), TX8(1, 0x10),
			FX_RX_NAK(0, FX_NAK_SEQ),
			TX8(0, 0),
			/* the NAK of the packet resent, again */
			FX_RX_NAK(0, FX_NAK_SEQ),
			FX_NO_TX(),
			FX_COUNT(SROCE_CNT_RCV_SEQ_ERR, 2),
			FX_RX_ACK(1),
			SCQE8(1), SCQE8(2)),
	},
	{
		/*
		 * One rewind per loss episode: a NAK past the packet resent
		 * alone is a further gap of the same episode, whose packet
		 * goes alone too; a NAK before it starts nothing.
		 */
		.name = "nak_seq_one_rewind_per_episode",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(SEND8(0), SEND8(0x10), SEND8(0x20),
			SEND8(0x30),
			TX8(0, 0), TX8(1, 0x10), TX8(2, 0x20), TX8(3, 0x30),
			FX_RX_NAK(0, FX_NAK_SEQ),
			TX8(0, 0),
			FX_NO_TX(),
			FX_COUNT(SROCE_CNT_LOSS_REWINDS, 1),
			/* 0 and 1 arrived, 2 is missing, 3 held */
			FX_RX_NAK(2, FX_NAK_SEQ),
			SCQE8(1), SCQE8(2),
			TX8(2, 0x20),
			FX_NO_TX(),
			FX_RX_NAK(2, FX_NAK_SEQ),
			FX_NO_TX(),
			FX_COUNT(SROCE_CNT_LOSS_REWINDS, 1),
			FX_COUNT(SROCE_CNT_SEL_RESENDS, 2),
			FX_COUNT(SROCE_CNT_RCV_SEQ_ERR, 3),
			FX_COUNT(SROCE_CNT_RETRANSMITS, 2),
			FX_RX_ACK(3),
			SCQE8(3), SCQE8(4),
			FX_NO_TX()),
	},
	{
		/*
		 * A NAK past the packet resent alone: the responder holds
		 * requests; the responses to a READ it held do not end the
		 * wait for its ACK, and nothing it held goes again.
		 */
		.name = "nak_seq_peer_holds_read_then_ack",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(SEND8(0), SEND8(0x10), SEND8(0x20),
			FX_SEND(.op = IB_WR_RDMA_READ, .len = 8, .buf = DST,
				.off = 0x200),
			SEND8(0x40),
			TX8(0, 0), TX8(1, 0x10), TX8(2, 0x20),
			FX_TX(.op = OP_RC(RDMA_READ_REQUEST), .psn = 3,
			      .off = 0x200, .dlen = 8, .ackreq = true),
			TX8(4, 0x40),
			FX_RX_NAK(0, FX_NAK_SEQ),
			TX8(0, 0),
			FX_NO_TX(),
			FX_RX_NAK(2, FX_NAK_SEQ),
			SCQE8(1), SCQE8(2),
			TX8(2, 0x20),
			FX_NO_TX(),
			FX_RX(.op = OP_RC(RDMA_READ_RESPONSE_ONLY), .psn = 3,
			      .syn = FX_ACK, .len = 8),
			SCQE8(3),
			FX_SCQE(.wr = 4, .wc_op = IB_WC_RDMA_READ, .len = 8),
			FX_MEM(.buf = DST, .len = 8),
			FX_NO_TX(),
			FX_RX_ACK(4),
			SCQE8(5),
			FX_NO_TX(),
			FX_COUNT(SROCE_CNT_RETRANSMITS, 2)),
	},
	{
		/*
		 * Responses to a READ arrive after the packet resent alone:
		 * the requester moves past the READ's chunk, it does not
		 * ask for the rest of it while it streams.
		 */
		.name = "nak_seq_streaming_read_not_asked_again",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(SEND8(0x100),
			FX_SEND(.op = IB_WR_RDMA_READ, .len = 600, .buf = DST,
				.off = 0x200),
			SEND8(0x300),
			TX8(0, 0x100),
			FX_TX(.op = OP_RC(RDMA_READ_REQUEST), .psn = 1,
			      .off = 0x200, .dlen = 600, .ackreq = true),
			TX8(4, 0x300),
			FX_RX_NAK(0, FX_NAK_SEQ),
			TX8(0, 0x100),
			FX_NO_TX(),
			FX_RX(.op = OP_RC(RDMA_READ_RESPONSE_FIRST), .psn = 1,
			      .syn = FX_ACK, .len = MTU),
			SCQE8(1),
			FX_RX(.op = OP_RC(RDMA_READ_RESPONSE_MIDDLE), .psn = 2,
			      .len = MTU, .data = MTU),
			FX_RX(.op = OP_RC(RDMA_READ_RESPONSE_LAST), .psn = 3,
			      .syn = FX_ACK, .len = 88, .data = 2 * MTU),
			FX_SCQE(.wr = 2, .wc_op = IB_WC_RDMA_READ, .len = 600),
			/* after the READ, within the window cut to 2 */
			TX8(4, 0x300),
			FX_MEM(.buf = DST, .len = 600),
			FX_RX_ACK(4),
			SCQE8(3),
			FX_NO_TX(),
			FX_COUNT(SROCE_CNT_RETRANSMITS, 2)),
	},
	{
		/*
		 * The resent packet lost as well: the timeout sends it alone
		 * again; a go-back-N peer's ACK of it, then the next.
		 */
		.name = "nak_seq_resent_lost_timeout",
		.type = IB_QPT_RC,
		.timeout = 14,	/* 67 ms */
		.steps = FX_STEPS(SEND8(0), SEND8(0x10),
			TX8(0, 0), TX8(1, 0x10),
			FX_RX_NAK(0, FX_NAK_SEQ),
			TX8(0, 0),
			FX_NO_TX(),
			FX_WAIT(100),
			TX8(0, 0),
			FX_NO_TX(),
			FX_COUNT(SROCE_CNT_RETRANS_TIMEOUTS, 1),
			FX_RX_ACK(0),
			SCQE8(1),
			TX8(1, 0x10),
			FX_RX_ACK(1),
			SCQE8(2),
			FX_NO_TX()),
	},
	/* ---- retransmit timeout: the oldest packet goes again alone ---- */
	{
		/* the ACKs were only late: one packet sent again, not N */
		.name = "timeout_late_ack_resends_one",
		.type = IB_QPT_RC,
		.timeout = 14,	/* 67 ms */
		.steps = FX_STEPS(SEND8(0), SEND8(0x10), SEND8(0x20),
			TX8(0, 0), TX8(1, 0x10), TX8(2, 0x20),
			FX_WAIT(100),
			TX8(0, 0),
			FX_NO_TX(),
			FX_COUNT(SROCE_CNT_RETRANS_TIMEOUTS, 1),
			FX_COUNT(SROCE_CNT_SEL_RESENDS, 1),
			FX_RX_ACK(2),
			SCQE8(1), SCQE8(2), SCQE8(3),
			FX_NO_TX(),
			FX_COUNT(SROCE_CNT_RETRANSMITS, 1)),
	},
	{
		/*
		 * Everything was lost: the answer to the one packet
		 * acknowledges it alone, and the rest goes again.
		 */
		.name = "timeout_all_lost_then_the_rest",
		.type = IB_QPT_RC,
		.timeout = 14,	/* 67 ms */
		.steps = FX_STEPS(SEND8(0), SEND8(0x10), SEND8(0x20),
			TX8(0, 0), TX8(1, 0x10), TX8(2, 0x20),
			FX_WAIT(100),
			TX8(0, 0),
			FX_NO_TX(),
			FX_RX_ACK(0),
			SCQE8(1),
			TX8(1, 0x10), TX8(2, 0x20),
			FX_RX_ACK(2),
			SCQE8(2), SCQE8(3),
			FX_COUNT(SROCE_CNT_RETRANSMITS, 3)),
	},
	{
		/*
		 * A late ACK past the packet resent after a timeout is no
		 * sign that the peer holds requests behind a gap: a later
		 * READ's responses end the next wait as from any peer.
		 */
		.name = "timeout_late_ack_not_holding",
		.type = IB_QPT_RC,
		.timeout = 14,	/* 67 ms */
		.steps = FX_STEPS(SEND8(0), SEND8(0x10),
			TX8(0, 0), TX8(1, 0x10),
			FX_WAIT(100),
			TX8(0, 0),
			FX_RX_ACK(1),
			SCQE8(1), SCQE8(2),
			FX_NO_TX(),
			FX_SEND(.op = IB_WR_RDMA_READ, .len = 8, .buf = DST,
				.off = 0x200),
			SEND8(0x40),
			FX_TX(.op = OP_RC(RDMA_READ_REQUEST), .psn = 2,
			      .off = 0x200, .dlen = 8, .ackreq = true),
			TX8(3, 0x40),
			FX_RX_NAK(2, FX_NAK_SEQ),
			FX_TX(.op = OP_RC(RDMA_READ_REQUEST), .psn = 2,
			      .off = 0x200, .dlen = 8, .ackreq = true),
			FX_NO_TX(),
			FX_RX(.op = OP_RC(RDMA_READ_RESPONSE_ONLY), .psn = 2,
			      .syn = FX_ACK, .len = 8),
			FX_SCQE(.wr = 3, .wc_op = IB_WC_RDMA_READ, .len = 8),
			TX8(3, 0x40),
			FX_RX_ACK(3),
			SCQE8(4),
			FX_NO_TX(),
			FX_COUNT(SROCE_CNT_RETRANSMITS, 3)),
	},
	{
		/*
		 * The responder answers only packets that ask for an ACK:
		 * the timeout counts from the newest one sent, not from the
		 * last progress (a paced sender asks seldom)
		 */
		.name = "timeout_counts_from_newest_ackreq",
		.type = IB_QPT_RC,
		.timeout = 16,	/* 268 ms */
		.steps = FX_STEPS(SEND8(0),
			TX8(0, 0),
			FX_WAIT(150),
			SEND8(0x10),
			TX8(1, 0x10),
			FX_WAIT(150),	/* 300 ms after the first */
			FX_NO_TX(),
			FX_COUNT(SROCE_CNT_RETRANS_TIMEOUTS, 0),
			FX_WAIT(250),	/* 400 ms after the second */
			TX8(0, 0),
			FX_NO_TX(),
			FX_COUNT(SROCE_CNT_RETRANS_TIMEOUTS, 1),
			FX_RX_ACK(1),
			SCQE8(1), SCQE8(2),
			FX_NO_TX()),
	},
	{
		/*
		 * RFC 5681 3.1: a retransmit timeout cuts the window to
		 * the minimum (a trickle until ACKs return), the threshold
		 * to half of what was in flight; the timer stays armed
		 * while anything is unacknowledged
		 */
		.name = "timeout_cuts_window",
		.type = IB_QPT_RC,
		.timeout = 16,	/* 268 ms */
		.steps = FX_STEPS(FX_ARMED(0), FX_CWND(256),
			SEND8(0), SEND8(0x10), SEND8(0x20),
			TX8(0, 0), TX8(1, 0x10), TX8(2, 0x20),
			FX_ARMED(1),
			FX_WAIT(400),	/* one timeout, the next at 536 ms */
			TX8(0, 0),
			FX_NO_TX(),
			FX_COUNT(SROCE_CNT_RETRANS_TIMEOUTS, 1),
			FX_CWND(2),
			FX_ARMED(1),
			FX_RX_ACK(2),
			SCQE8(1), SCQE8(2), SCQE8(3),
			FX_ARMED(0),
			FX_NO_TX()),
	},
	{
		/* each path that leaves packets unacknowledged keeps a timer */
		.name = "timer_armed_while_unacknowledged",
		.type = IB_QPT_RC,
		.timeout = 16,	/* 268 ms */
		.steps = FX_STEPS(SEND8(0), SEND8(0x10),
			TX8(0, 0), TX8(1, 0x10),
			FX_ARMED(1),
			FX_RX_NAK(0, FX_RNR(25)),	/* 61.44 ms: its own timer */
			FX_ARMED(0),
			FX_WAIT(150),
			TX8(0, 0), TX8(1, 0x10),	/* go back to the NAK'd PSN */
			FX_ARMED(1),
			FX_RX_NAK(1, FX_NAK_SEQ),	/* PSN 0 arrived */
			SCQE8(1),
			TX8(1, 0x10),			/* PSN 1 alone */
			FX_ARMED(1),
			FX_RX_ACK(1),
			SCQE8(2),
			FX_ARMED(0),
			FX_NO_TX()),
	},
	{
		/*
		 * a retransmit timeout that falls in an RNR wait does not
		 * re-arm (the RNR timer runs the QP then); the end of the
		 * wait starts the ACK timeout again, also when nothing can
		 * be resent yet (paused by backpressure)
		 */
		.name = "rnr_wait_end_rearms_the_timer",
		.type = IB_QPT_RC,
		.timeout = 15,	/* 134 ms */
		.steps = FX_STEPS(SEND8(0), SEND8(0x10),
			TX8(0, 0), TX8(1, 0x10),
			FX_ARMED(1),
			FX_BLOCK(),
			FX_RX_NAK(0, FX_RNR(28)),	/* 163.84 ms */
			FX_ARMED(0),
			FX_WAIT(200),	/* timed out in the wait; paused at its end */
			FX_NO_TX(),
			FX_ARMED(1),
			FX_UNBLOCK(),
			FX_WAIT(5),
			TX8(0, 0), TX8(1, 0x10),
			FX_RX_ACK(1),
			SCQE8(1), SCQE8(2),
			FX_ARMED(0),
			FX_NO_TX()),
	},
	{
		/*
		 * the timer core takes an expired timer off its list before
		 * its function runs, and a run may arm it again in between:
		 * it counts as armed throughout, and the function's end
		 * does not hide the new arm
		 */
		.name = "timer_armed_while_its_function_runs",
		.type = IB_QPT_RC,
		.timeout = 16,	/* 268 ms */
		.steps = FX_STEPS(SEND8(0),
			TX8(0, 0),
			FX_EXPIRE(0),
			FX_ARMED(1),
			SEND8(0x10),	/* arms it again: it was not pending */
			TX8(1, 0x10),
			FX_ARMED(1),
			FX_EXPIRE(1),	/* early: the run re-arms for the rest */
			FX_ARMED(1),
			FX_EXPIRE(0),
			FX_ARMED(1),
			FX_EXPIRE(1),
			FX_ARMED(1),
			FX_NO_TX(),
			FX_COUNT(SROCE_CNT_RETRANS_TIMEOUTS, 0),
			FX_RX_ACK(1),
			SCQE8(1), SCQE8(2),
			FX_ARMED(0),
			FX_NO_TX()),
	},
	{
		/* a NAK's duplicate (the network repeats it) is stale */
		.name = "nak_seq_duplicate_ignored",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(SEND8(0), SEND8(0x10),
			TX8(0, 0), TX8(1, 0x10),
			FX_RX_ACK(0),
			SCQE8(1),
			FX_RX_NAK(1, FX_NAK_SEQ),
			TX8(1, 0x10),
			FX_RX_NAK(1, FX_NAK_SEQ),
			FX_RX_NAK(1, FX_NAK_SEQ),
			FX_NO_TX(),
			FX_COUNT(SROCE_CNT_LOSS_REWINDS, 1),
			FX_RX_ACK(1),
			SCQE8(2)),
	},
	{
		.name = "nak_seq_retry_count_exhausted",
		.type = IB_QPT_RC,
		.retry = SROCE_FX_ZERO,
		.steps = FX_STEPS(SEND8(0),
			TX8(0, 0),
			FX_RX_NAK(0, FX_NAK_SEQ),
			SCQE_ERR(1, IB_WC_RETRY_EXC_ERR),
			FX_COUNT(SROCE_CNT_COMPLETER_RETRY_ERR, 1),
			FX_STATE(IB_QPS_ERR)),
	},
	{
		.name = "nak_seq_progress_reloads_retry_count",
		.type = IB_QPT_RC,
		.retry = 1,
		.steps = FX_STEPS(SEND8(0), SEND8(0x10),
			TX8(0, 0), TX8(1, 0x10),
			FX_RX_NAK(0, FX_NAK_SEQ),
			TX8(0, 0),
			FX_RX_ACK(0),
			SCQE8(1),
			TX8(1, 0x10),
			/* the ACK was progress: one retry is allowed again */
			FX_RX_NAK(1, FX_NAK_SEQ),
			TX8(1, 0x10),
			FX_RX_ACK(1),
			SCQE8(2)),
	},
	/* ---- RNR NAK (IBTA 9.7.5.2.8) ---- */
	{
		.name = "rnr_nak_waits_then_resends",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(SEND8(0),
			TX8(0, 0),
			FX_RX_NAK(0, FX_RNR(25)),	/* 61.44 ms */
			FX_NO_TX(),
			FX_COUNT(SROCE_CNT_RCV_RNR_ERR, 1),
			FX_WAIT(150),
			TX8(0, 0),
			FX_COUNT(SROCE_CNT_RETRANSMITS, 1),
			FX_RX_ACK(0),
			SCQE8(1)),
	},
	{
		.name = "rnr_retry_count_exhausted",
		.type = IB_QPT_RC,
		.rnr_retry = SROCE_FX_ZERO,
		.steps = FX_STEPS(SEND8(0),
			TX8(0, 0),
			FX_RX_NAK(0, FX_RNR(1)),
			SCQE_ERR(1, IB_WC_RNR_RETRY_EXC_ERR),
			FX_COUNT(SROCE_CNT_RNR_RETRY_ERR, 1),
			FX_STATE(IB_QPS_ERR)),
	},
	{
		.name = "rnr_retry_counts_down",
		.type = IB_QPT_RC,
		.rnr_retry = 1,
		.steps = FX_STEPS(SEND8(0),
			TX8(0, 0),
			FX_RX_NAK(0, FX_RNR(1)),
			FX_WAIT(20),
			TX8(0, 0),
			FX_RX_NAK(0, FX_RNR(1)),
			SCQE_ERR(1, IB_WC_RNR_RETRY_EXC_ERR),
			FX_COUNT(SROCE_CNT_RCV_RNR_ERR, 2)),
	},
	{
		.name = "rnr_retry_7_is_infinite",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(SEND8(0),
			TX8(0, 0),
			FX_RX_NAK(0, FX_RNR(1)),
			FX_WAIT(20),
			TX8(0, 0),
			FX_RX_NAK(0, FX_RNR(1)),
			FX_WAIT(20),
			TX8(0, 0),
			FX_RX_NAK(0, FX_RNR(1)),
			FX_WAIT(20),
			TX8(0, 0),
			FX_RX_ACK(0),
			SCQE8(1),
			FX_COUNT(SROCE_CNT_RCV_RNR_ERR, 3)),
	},
	{
		.name = "rnr_nak_acks_what_precedes_it",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(SEND8(0), SEND8(0x10),
			TX8(0, 0), TX8(1, 0x10),
			FX_RX_NAK(1, FX_RNR(1)),
			SCQE8(1),
			FX_WAIT(20),
			TX8(1, 0x10),
			FX_RX_ACK(1),
			SCQE8(2)),
	},
	/* ---- READ responses (IBTA 9.7.5.1.3, C9-177) ---- */
	{
		.name = "read_responses_fill_the_buffer",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_RDMA_READ, .len = 600,
					  .buf = DST, .off = 0x200),
			FX_TX(.op = OP_RC(RDMA_READ_REQUEST), .psn = 0,
			      .off = 0x200, .dlen = 600, .ackreq = true),
			RD_FIRST_IN,
			RD_MIDDLE_IN,
			FX_NO_CQE(),
			RD_LAST_IN,
			FX_SCQE(.wr = 1, .wc_op = IB_WC_RDMA_READ, .len = 600),
			FX_MEM(.buf = DST, .len = 600)),
	},
	{
		.name = "read_lost_response_asked_again",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_RDMA_READ, .len = 600,
					  .buf = DST, .off = 0x200),
			FX_TX(.op = OP_RC(RDMA_READ_REQUEST), .psn = 0,
			      .off = 0x200, .dlen = 600, .ackreq = true),
			RD_FIRST_IN,
			/* the MIDDLE is lost */
			RD_LAST_IN,
			FX_TX(.op = OP_RC(RDMA_READ_REQUEST), .psn = 1,
			      .off = 0x200 + MTU, .dlen = 600 - MTU,
			      .ackreq = true),
			FX_COUNT(SROCE_CNT_RETRANSMITS, 1),
			FX_COUNT(SROCE_CNT_READ_RESUMES, 1),
			RD_MIDDLE_IN,
			RD_LAST_IN,
			FX_SCQE(.wr = 1, .wc_op = IB_WC_RDMA_READ, .len = 600),
			FX_MEM(.buf = DST, .len = 600)),
	},
	{
		/*
		 * Responses still in flight behind a gap do not ask again:
		 * one READ request per missing response, from the first
		 * missing PSN, not the whole message.
		 */
		.name = "read_gap_asked_again_once",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_RDMA_READ, .len = 1000,
					  .buf = DST, .off = 0x200),
			FX_TX(.op = OP_RC(RDMA_READ_REQUEST), .psn = 0,
			      .off = 0x200, .dlen = 1000, .ackreq = true),
			RD_FIRST_IN,
			/* PSN 1 is lost; 2 and 3 follow it */
			FX_RX(.op = OP_RC(RDMA_READ_RESPONSE_MIDDLE), .psn = 2,
			      .len = MTU, .data = 2 * MTU),
			FX_TX(.op = OP_RC(RDMA_READ_REQUEST), .psn = 1,
			      .off = 0x200 + MTU, .dlen = 1000 - MTU,
			      .ackreq = true),
			FX_RX(.op = OP_RC(RDMA_READ_RESPONSE_LAST), .psn = 3,
			      .syn = FX_ACK, .msn = 1, .len = 1000 - 3 * MTU,
			      .data = 3 * MTU),
			FX_NO_TX(),
			FX_COUNT(SROCE_CNT_LOSS_REWINDS, 1),
			FX_COUNT(SROCE_CNT_RETRANSMITS, 1),
			FX_COUNT(SROCE_CNT_READ_RESUMES, 1),
			/* the responses to the second request */
			FX_RX(.op = OP_RC(RDMA_READ_RESPONSE_FIRST), .psn = 1,
			      .syn = FX_ACK, .msn = 1, .len = MTU, .data = MTU),
			FX_RX(.op = OP_RC(RDMA_READ_RESPONSE_MIDDLE), .psn = 2,
			      .len = MTU, .data = 2 * MTU),
			FX_NO_CQE(),
			FX_RX(.op = OP_RC(RDMA_READ_RESPONSE_LAST), .psn = 3,
			      .syn = FX_ACK, .msn = 1, .len = 1000 - 3 * MTU,
			      .data = 3 * MTU),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_RDMA_READ, .len = 1000),
			FX_MEM(.buf = DST, .len = 1000),
			FX_NO_TX()),
	},
	{
		.name = "read_response_wrong_length",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_RDMA_READ, .len = 600,
					  .buf = DST),
			FX_TX(.op = OP_RC(RDMA_READ_REQUEST), .psn = 0,
			      .dlen = 600, .ackreq = true),
			FX_RX(.op = OP_RC(RDMA_READ_RESPONSE_FIRST), .psn = 0,
			      .syn = FX_ACK, .msn = 1, .len = 100),
			FX_SCQE(.wr = 1, .status = IB_WC_BAD_RESP_ERR,
				.wc_op = IB_WC_RDMA_READ),
			FX_STATE(IB_QPS_ERR)),
	},
	{
		.name = "read_response_only_where_first_due",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_RDMA_READ, .len = 600,
					  .buf = DST),
			FX_TX(.op = OP_RC(RDMA_READ_REQUEST), .psn = 0,
			      .dlen = 600, .ackreq = true),
			FX_RX(.op = OP_RC(RDMA_READ_RESPONSE_ONLY), .psn = 0,
			      .syn = FX_ACK, .msn = 1, .len = MTU),
			FX_SCQE(.wr = 1, .status = IB_WC_BAD_RESP_ERR,
				.wc_op = IB_WC_RDMA_READ),
			FX_STATE(IB_QPS_ERR)),
	},
	{
		/* an ACK past a READ whose response is missing: implied NAK */
		.name = "read_implied_nak_by_later_ack",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_RDMA_READ, .len = 8,
					  .buf = DST),
			SEND8(0),
			FX_TX(.op = OP_RC(RDMA_READ_REQUEST), .psn = 0,
			      .dlen = 8, .ackreq = true),
			TX8(1, 0),
			FX_RX_ACK(1),
			FX_TX(.op = OP_RC(RDMA_READ_REQUEST), .psn = 0,
			      .dlen = 8, .ackreq = true),
			TX8(1, 0),
			FX_NO_CQE(),
			FX_RX(.op = OP_RC(RDMA_READ_RESPONSE_ONLY), .psn = 0,
			      .syn = FX_ACK, .msn = 1, .len = 8),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_RDMA_READ, .len = 8),
			FX_RX_ACK(1),
			SCQE8(2),
			FX_MEM(.buf = DST, .len = 8)),
	},
	{
		.name = "read_response_nak_syndrome_ignored",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_RDMA_READ, .len = 8,
					  .buf = DST),
			FX_TX(.op = OP_RC(RDMA_READ_REQUEST), .psn = 0,
			      .dlen = 8, .ackreq = true),
			FX_RX(.op = OP_RC(RDMA_READ_RESPONSE_ONLY), .psn = 0,
			      .syn = FX_NAK_ACC, .msn = 1, .len = 8),
			FX_NO_CQE(),
			FX_MEM_ORIG(.buf = DST, .len = 8),
			FX_RX(.op = OP_RC(RDMA_READ_RESPONSE_ONLY), .psn = 0,
			      .syn = FX_ACK, .msn = 1, .len = 8),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_RDMA_READ, .len = 8)),
	},
	/* ---- FLUSH (IBTA 1.5 annex A19.4): a user QP's WQEs ---- */
	{
		/* its response lost: a later ACK implies it, FLUSH goes again */
		.name = "flush_implied_nak_by_later_ack",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_WQE(.op = SROCE_WR_FLUSH,
					 .plt = SROCE_FLUSH_GLOBAL,
					 .sel = SROCE_FLUSH_MR),
			FX_WQE(.op = IB_WR_SEND, .n = 1, .len = 8),
			FX_TX(.op = SROCE_OPCODE_RC_FLUSH, .psn = 0,
			      .plt = SROCE_FLUSH_GLOBAL, .sel = SROCE_FLUSH_MR,
			      .ackreq = true),
			TX8(1, 0),
			FX_RX_ACK(1),
			FX_TX(.op = SROCE_OPCODE_RC_FLUSH, .psn = 0,
			      .plt = SROCE_FLUSH_GLOBAL, .sel = SROCE_FLUSH_MR,
			      .ackreq = true),
			TX8(1, 0),
			FX_NO_CQE(),
			FX_RX(.op = OP_RC(RDMA_READ_RESPONSE_ONLY), .psn = 0,
			      .syn = FX_ACK, .msn = 1),
			FX_SCQE(.wr = 1, .wc_op = SROCE_WC_FLUSH),
			FX_RX_ACK(1),
			SCQE8(2)),
	},
	{
		/* the responder refused it (no flush right): remote access */
		.name = "flush_nak_remote_access",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_WQE(.op = SROCE_WR_FLUSH,
					 .plt = SROCE_FLUSH_PERSISTENT,
					 .sel = SROCE_FLUSH_RANGE, .dlen = 64),
			FX_TX(.op = SROCE_OPCODE_RC_FLUSH, .psn = 0,
			      .plt = SROCE_FLUSH_PERSISTENT,
			      .sel = SROCE_FLUSH_RANGE, .dlen = 64,
			      .ackreq = true),
			FX_RX_NAK(0, FX_NAK_ACC),
			FX_SCQE(.wr = 1, .status = IB_WC_REM_ACCESS_ERR,
				.wc_op = SROCE_WC_FLUSH),
			FX_STATE(IB_QPS_ERR)),
	},
	/* ---- atomic ACKs (IBTA 9.7.5.1.4) ---- */
	{
		.name = "atomic_ack_duplicate_ignored",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_SEND(.op = IB_WR_ATOMIC_FETCH_AND_ADD,
					  .len = 8, .buf = DST, .a = 1),
			FX_TX(.op = OP_RC(FETCH_ADD), .psn = 0, .a = 1,
			      .ackreq = true),
			FX_RX(.op = OP_RC(ATOMIC_ACKNOWLEDGE), .psn = 0,
			      .syn = FX_ACK, .msn = 1, .a = ORIG),
			FX_SCQE(.wr = 1, .wc_op = IB_WC_FETCH_ADD, .len = 8),
			FX_RX(.op = OP_RC(ATOMIC_ACKNOWLEDGE), .psn = 0,
			      .syn = FX_ACK, .msn = 1, .a = 42),
			FX_MEM64(DST, ORIG)),
	},
	{
		.name = "atomic_ack_for_a_send_ignored",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(SEND8(0),
			TX8(0, 0),
			FX_RX(.op = OP_RC(ATOMIC_ACKNOWLEDGE), .psn = 0,
			      .syn = FX_ACK, .msn = 1, .a = 42),
			FX_NO_CQE(),
			FX_RX_ACK(0),
			SCQE8(1)),
	},
	/* ---- local ACK timeout (IBTA 9.7.6.1.3) ---- */
	{
		.name = "ack_timeout_retries_then_fails",
		.type = IB_QPT_RC,
		.timeout = 1,	/* 8.192 us: one jiffy */
		.retry = 1,
		.steps = FX_STEPS(SEND8(0),
			TX8(0, 0),
			FX_WAIT(100),
			TX8(0, 0),
			SCQE_ERR(1, IB_WC_RETRY_EXC_ERR),
			FX_COUNT(SROCE_CNT_RETRANSMITS, 1),
			FX_COUNT(SROCE_CNT_COMPLETER_RETRY_ERR, 1),
			FX_STATE(IB_QPS_ERR)),
	},
	/* ---- the device fails; drains (IBTA 11.6.2, 10.3.1.7) ---- */
	{
		.name = "device_fatal_flushes_refuses_posts_drains",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(SEND8(0),
			TX8(0, 0),
			FX_RECV(.n = 1),
			FX_DEV_FATAL(),
			FX_FATAL(1),
			FX_STATE(IB_QPS_ERR),
			SCQE_ERR(1, IB_WC_WR_FLUSH_ERR),
			FX_RCQE_ERR(0x100, IB_WC_WR_FLUSH_ERR),
			FX_SEND(.op = IB_WR_SEND, .len = 8, .err = -EIO),
			FX_RECV(.n = 1, .err = -EIO),
			FX_NO_CQE(),
			FX_DRAIN(),
			FX_NO_CQE(),
			FX_NO_TX()),
	},
	{
		.name = "drain_moves_to_err",
		.type = IB_QPT_UC,
		.steps = FX_STEPS(FX_DRAIN(),
			FX_STATE(IB_QPS_ERR),
			FX_FATAL(0),
			FX_NO_CQE(),
			FX_NO_TX()),
	},
};

SROCE_FX_SUITE(sroce_comp, sroce_comp_cases);

/* ---- the pure parts: RTT estimate, RTO, loss episodes ---- */

/* RFC 6298 2.2/2.3 on a series of samples (microseconds). */
static const struct sroce_rtt_case {
	const char *name;
	u32 samples[4];
	u32 n;
	u32 srtt_us;
	u32 rttvar_us;
} sroce_rtt_cases[] = {
	{ .name = "first_sample", .samples = { 1000 }, .n = 1,
	  .srtt_us = 1000, .rttvar_us = 500 },
	{ .name = "steady", .samples = { 1000, 1000 }, .n = 2,
	  .srtt_us = 1000, .rttvar_us = 375 },
	/* err 800: rttvar 375 - 93 + 200, srtt 1000 - 125 + 225 */
	{ .name = "slower", .samples = { 1000, 1000, 1800 }, .n = 3,
	  .srtt_us = 1100, .rttvar_us = 482 },
	{ .name = "zero_is_one_us", .samples = { 0 }, .n = 1,
	  .srtt_us = 1, .rttvar_us = 0 },
};

static void sroce_rtt_case_desc(const struct sroce_rtt_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sroce_rtt, sroce_rtt_cases, sroce_rtt_case_desc);

static void sroce_rtt_sample_test(struct kunit *test)
{
	const struct sroce_rtt_case *c = test->param_value;
	struct sroce_rtt r = {};
	u32 i;

	for (i = 0; i < c->n; i++)
		sroce_rtt_sample(&r, c->samples[i]);
	KUNIT_EXPECT_EQ(test, r.srtt_us, c->srtt_us);
	KUNIT_EXPECT_EQ(test, r.rttvar_us, c->rttvar_us);
}

/* RTO = SRTT + max(G, 4 RTTVAR), doubled per backoff, in [G, max]. */
static const struct sroce_rto_case {
	const char *name;
	struct sroce_rtt rtt;
	u32 gran_us;
	u32 max_us;
	u32 backoff;
	u32 rto_us;
} sroce_rto_cases[] = {
	{ .name = "no_sample_qp_timeout", .gran_us = 4000,
	  .max_us = 268435, .rto_us = 268435 },
	{ .name = "infinite_timeout", .rtt = { 1000, 500 }, .gran_us = 4000,
	  .max_us = 0, .rto_us = 0 },
	{ .name = "srtt_plus_4_rttvar", .rtt = { 1000, 2000 },
	  .gran_us = 4000, .max_us = 268435, .rto_us = 9000 },
	{ .name = "granularity_floor", .rtt = { 100, 10 }, .gran_us = 4000,
	  .max_us = 268435, .rto_us = 4100 },
	{ .name = "backoff_doubles", .rtt = { 1000, 2000 }, .gran_us = 4000,
	  .max_us = 268435, .backoff = 2, .rto_us = 36000 },
	{ .name = "never_past_qp_timeout", .rtt = { 1000, 2000 },
	  .gran_us = 4000, .max_us = 8192, .rto_us = 8192 },
	{ .name = "backoff_capped_at_qp_timeout", .rtt = { 1000, 2000 },
	  .gran_us = 4000, .max_us = 268435, .backoff = 40,
	  .rto_us = 268435 },
	{ .name = "qp_timeout_below_granularity", .rtt = { 10, 1 },
	  .gran_us = 4000, .max_us = 8, .rto_us = 8 },
};

static void sroce_rto_case_desc(const struct sroce_rto_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sroce_rto, sroce_rto_cases, sroce_rto_case_desc);

static void sroce_rto_test(struct kunit *test)
{
	const struct sroce_rto_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, sroce_rtt_rto_us(&c->rtt, c->gran_us, c->max_us,
					       c->backoff), c->rto_us);
}

/*
 * The QP's RTO: at least SROCE_REQ_RTO_MIN_US over SRTT, plus one jiffy,
 * never past the QP's local ACK timeout (sroce_retx_rto()).
 */
static const struct sroce_qp_rto_case {
	const char *name;
	struct sroce_rtt rtt;
	u32 timeout_ms;		/* the QP's local ACK timeout */
	u32 backoff;
	u32 rto_us;		/* expected, before the jiffy added */
	bool qp_timeout;	/* expected: the local ACK timeout itself */
} sroce_qp_rto_cases[] = {
	{ .name = "fast_path_gets_the_least_margin", .rtt = { 100, 10 },
	  .timeout_ms = 537, .rto_us = 100 + SROCE_REQ_RTO_MIN_US },
	{ .name = "variation_beyond_the_margin", .rtt = { 1000, 20000 },
	  .timeout_ms = 537, .rto_us = 81000 },
	{ .name = "margin_doubles_with_backoff", .rtt = { 100, 10 },
	  .timeout_ms = 537, .backoff = 1,
	  .rto_us = 2 * (100 + SROCE_REQ_RTO_MIN_US) },
	{ .name = "shorter_qp_timeout_wins", .rtt = { 100, 10 },
	  .timeout_ms = 8, .qp_timeout = true },
	{ .name = "no_sample_qp_timeout", .timeout_ms = 537,
	  .qp_timeout = true },
};

static void sroce_qp_rto_case_desc(const struct sroce_qp_rto_case *c,
				   char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sroce_qp_rto, sroce_qp_rto_cases, sroce_qp_rto_case_desc);

static void sroce_qp_rto_test(struct kunit *test)
{
	const struct sroce_qp_rto_case *c = test->param_value;
	struct sroce_send *snd = kunit_kzalloc(test, sizeof(*snd), GFP_KERNEL);
	unsigned long want;

	KUNIT_ASSERT_NOT_NULL(test, snd);
	snd->rtt = c->rtt;
	snd->timeout_jiffies = msecs_to_jiffies(c->timeout_ms);
	snd->rto_backoff = c->backoff;
	want = c->qp_timeout ? snd->timeout_jiffies :
			       usecs_to_jiffies(c->rto_us) + 1;
	KUNIT_EXPECT_EQ(test, sroce_retx_rto(snd), want);
}

/* One rewind per loss episode: sroce_send_new_loss(). */
static const struct sroce_loss_case {
	const char *name;
	bool retrying;
	u32 rewind_psn;
	u32 comp_psn;	/* the hole */
	u32 psn;	/* next PSN the requester sends */
	u32 srtt_us;
	u64 since_ns;	/* since the rewind */
	bool new_loss;
} sroce_loss_cases[] = {
	{ .name = "no_episode", .comp_psn = 10, .psn = 20,
	  .new_loss = true },
	{ .name = "same_hole_no_progress", .retrying = true,
	  .rewind_psn = 10, .comp_psn = 10, .psn = 14, .srtt_us = 100,
	  .since_ns = 10000000 },
	{ .name = "hole_not_sent_again_yet", .retrying = true,
	  .rewind_psn = 10, .comp_psn = 12, .psn = 12, .srtt_us = 100,
	  .since_ns = 10000000 },
	{ .name = "requester_behind_the_hole", .retrying = true,
	  .rewind_psn = 10, .comp_psn = 12, .psn = 11, .srtt_us = 100,
	  .since_ns = 10000000 },
	{ .name = "within_an_rtt_of_the_rewind", .retrying = true,
	  .rewind_psn = 10, .comp_psn = 12, .psn = 16, .srtt_us = 1000,
	  .since_ns = 999999 },
	{ .name = "resent_hole_an_rtt_later", .retrying = true,
	  .rewind_psn = 10, .comp_psn = 12, .psn = 16, .srtt_us = 1000,
	  .since_ns = 1000000, .new_loss = true },
	{ .name = "no_rtt_known", .retrying = true, .rewind_psn = 10,
	  .comp_psn = 12, .psn = 16, .new_loss = true },
	{ .name = "across_psn_wrap", .retrying = true,
	  .rewind_psn = 0xfffffe, .comp_psn = 1, .psn = 4, .srtt_us = 10,
	  .since_ns = 20000, .new_loss = true },
	{ .name = "same_hole_across_psn_wrap", .retrying = true,
	  .rewind_psn = 0xfffffe, .comp_psn = 0xfffffe, .psn = 4,
	  .since_ns = 20000 },
};

static void sroce_loss_case_desc(const struct sroce_loss_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sroce_loss, sroce_loss_cases, sroce_loss_case_desc);

static void sroce_loss_test(struct kunit *test)
{
	const struct sroce_loss_case *c = test->param_value;
	struct sroce_send *snd = kunit_kzalloc(test, sizeof(*snd), GFP_KERNEL);
	u64 now = 1000000000ULL;

	KUNIT_ASSERT_NOT_NULL(test, snd);
	snd->retrying = c->retrying;
	snd->rewind_psn = c->rewind_psn;
	snd->comp_psn = c->comp_psn;
	snd->psn = c->psn;
	snd->rtt.srtt_us = c->srtt_us;
	snd->rewind_ns = now - c->since_ns;
	KUNIT_EXPECT_EQ(test, sroce_send_new_loss(snd, now), c->new_loss);
}

/*
 * AckReq before the last packet of a message: by count (every half
 * window, at most SROCE_REQ_ACK_EVERY) or by time (half an RTO since
 * the newest packet that asked, or the last progress).
 */
static const struct sroce_ackreq_case {
	const char *name;
	u32 cwnd;
	u32 noack_pkts;		/* packets sent since the last AckReq */
	u32 since_jiffies;	/* since last_progress */
	u32 rto_jiffies;	/* the QP's local ACK timeout, no RTT sample */
	bool due;
} sroce_ackreq_cases[] = {
	{ .name = "half_window", .cwnd = 8, .noack_pkts = 3,
	  .rto_jiffies = 100, .due = true },
	{ .name = "below_half_window", .cwnd = 8, .noack_pkts = 2,
	  .rto_jiffies = 100 },
	{ .name = "every_64_at_most", .cwnd = 256, .noack_pkts = 63,
	  .rto_jiffies = 100, .due = true },
	{ .name = "window_of_one", .cwnd = 1, .rto_jiffies = 100,
	  .due = true },
	{ .name = "half_rto_passed", .cwnd = 256, .since_jiffies = 50,
	  .rto_jiffies = 100, .due = true },
	{ .name = "half_rto_not_yet", .cwnd = 256, .since_jiffies = 49,
	  .rto_jiffies = 100 },
	{ .name = "paced_long_gap", .cwnd = 256, .noack_pkts = 1,
	  .since_jiffies = 1000, .rto_jiffies = 100, .due = true },
	{ .name = "no_timer_no_time_rule", .cwnd = 256, .noack_pkts = 1,
	  .since_jiffies = 1000 },
};

static void sroce_ackreq_case_desc(const struct sroce_ackreq_case *c,
				   char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sroce_ackreq, sroce_ackreq_cases, sroce_ackreq_case_desc);

static void sroce_ackreq_test(struct kunit *test)
{
	const struct sroce_ackreq_case *c = test->param_value;
	struct sroce_send *snd = kunit_kzalloc(test, sizeof(*snd), GFP_KERNEL);
	unsigned long now = jiffies;

	KUNIT_ASSERT_NOT_NULL(test, snd);
	snd->cwnd = c->cwnd;
	snd->noack_pkts = c->noack_pkts;
	snd->timeout_jiffies = c->rto_jiffies;
	snd->last_progress = now - c->since_jiffies;
	KUNIT_EXPECT_EQ(test, sroce_req_ackreq_due(snd, now), c->due);
	KUNIT_EXPECT_EQ(test, snd->noack_pkts, c->noack_pkts + 1);
}

static struct kunit_case sroce_comp_pure_test_cases[] = {
	KUNIT_CASE_PARAM(sroce_ackreq_test, sroce_ackreq_gen_params),
	KUNIT_CASE_PARAM(sroce_rtt_sample_test, sroce_rtt_gen_params),
	KUNIT_CASE_PARAM(sroce_rto_test, sroce_rto_gen_params),
	KUNIT_CASE_PARAM(sroce_qp_rto_test, sroce_qp_rto_gen_params),
	KUNIT_CASE_PARAM(sroce_loss_test, sroce_loss_gen_params),
	{}
};

static struct kunit_suite sroce_comp_pure_suite = {
	.name = "sroce_comp_pure",
	.test_cases = sroce_comp_pure_test_cases,
};
kunit_test_suite(sroce_comp_pure_suite);
