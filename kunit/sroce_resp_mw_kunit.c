// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite sroce_resp_mw: remote accesses through memory windows
 * (IBTA vol. 1 10.6.7, 9.7.5.1.2) as the responder (sroce_resp*.c) sees
 * them, packet by packet.  A window's binding may end while an access
 * through it is under way: IB_WR_LOCAL_INV or a peer's SEND with
 * Invalidate (type 2B), a bind to another range or a zero-length bind
 * (type 1), or the window's deallocation.  From then on nothing of the
 * old binding is granted: the next RDMA WRITE packet is answered with a
 * remote access error NAK and writes nothing, a READ response stream
 * stops with a remote access error NAK.  Notation: sroce_engine_fixture.h.
 */
#include <kunit/test.h>

#include "sroce_engine_fixture.h"

/* Buffer layout: receive buffers, READ source, WRITE target */
#define RQB	0x0000
#define RDB	0x4000
#define WRB	0x10000

#define MW1	SROCE_FX_KEY_MW1
#define MW2	SROCE_FX_KEY_MW2

/* A 600-byte RDMA WRITE to WRB through window @k: FIRST, MIDDLE, LAST */
#define WR_FIRST(k) \
	FX_RX(.op = OP_RC(RDMA_WRITE_FIRST), .psn = 0, .len = 256, .key = (k), \
	      .off = WRB, .dlen = 600)
#define WR_MIDDLE \
	FX_RX(.op = OP_RC(RDMA_WRITE_MIDDLE), .psn = 1, .len = 256, .data = 256)
#define WR_LAST \
	FX_RX(.op = OP_RC(RDMA_WRITE_LAST), .psn = 2, .len = 88, .data = 512, \
	      .ackreq = true)

/*
 * After the FIRST packet of the WRITE went into the window the binding
 * ends (the steps ...): the MIDDLE packet is NAKed with a remote access
 * error, only the FIRST packet's bytes are written, and the QP fails.
 */
#define WR_CUT(k, ...) \
	FX_STEPS(FX_MW(k, SROCE_FX_MW_BIND), WR_FIRST(k), FX_NO_TX(), \
		 FX_MEM(.buf = WRB, .len = 256), __VA_ARGS__, WR_MIDDLE, \
		 FX_NAKED(1, FX_NAK_ACC, 0), \
		 FX_MEM(.buf = WRB, .len = 256), \
		 FX_MEM_ORIG(.buf = WRB + 256, .len = 344), \
		 FX_COUNT(SROCE_CNT_REMOTE_ACCESS_ERR, 1), \
		 FX_STATE(IB_QPS_ERR))

/* The responses to a 600-byte READ of RDB at PSN 0 (path MTU 256) */
#define RD_REQ(k) \
	FX_RX(.op = OP_RC(RDMA_READ_REQUEST), .psn = 0, .key = (k), \
	      .off = RDB, .dlen = 600)
#define RD_FIRST_OUT \
	FX_TX(.op = OP_RC(RDMA_READ_RESPONSE_FIRST), .psn = 0, .syn = FX_ACK, \
	      .msn = 1, .len = 256, .buf = RDB)

/*
 * The READ's first response went out, the network pushes back the next
 * one; while the responder is held (not retrying: its NAK would be pushed
 * back too, and lost) the binding ends (the steps ...); the network takes
 * packets again, the responder runs, and the stream stops with a remote
 * access error NAK (MSN @m) at the PSN it reached.
 */
#define RD_CUT(k, m, ...) \
	FX_MW(k, SROCE_FX_MW_BIND), FX_BLOCK_AFTER(1), RD_REQ(k), \
	RD_FIRST_OUT, FX_NO_TX(), FX_RESP_HOLD(), __VA_ARGS__, FX_UNBLOCK(), \
	FX_RESP_RELEASE(), FX_NAKED(1, FX_NAK_ACC, m), \
	FX_COUNT(SROCE_CNT_REMOTE_ACCESS_ERR, 1), FX_STATE(IB_QPS_ERR)

static const struct sroce_fx_case sroce_resp_mw_cases[] = {
	/* ---- the windows grant their bytes while bound ---- */
	{
		.name = "rc_write_mw1_whole_message",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_MW(MW1, SROCE_FX_MW_BIND), WR_FIRST(MW1),
			WR_MIDDLE, WR_LAST, FX_ACKED(2, 1),
			FX_MEM(.buf = WRB, .len = 600),
			FX_COUNT(SROCE_CNT_REMOTE_ACCESS_ERR, 0),
			FX_STATE(IB_QPS_RTS)),
	},
	{
		.name = "rc_read_mw2_whole_stream",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_MW(MW2, SROCE_FX_MW_BIND), RD_REQ(MW2),
			RD_FIRST_OUT,
			FX_TX(.op = OP_RC(RDMA_READ_RESPONSE_MIDDLE), .psn = 1,
			      .len = 256, .buf = RDB + 256),
			FX_TX(.op = OP_RC(RDMA_READ_RESPONSE_LAST), .psn = 2,
			      .syn = FX_ACK, .msn = 1, .len = 88,
			      .buf = RDB + 512),
			FX_STATE(IB_QPS_RTS)),
	},
	{
		/* a binding that ended before the WRITE: refused at FIRST */
		.name = "rc_write_mw2_invalidated_before",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(FX_MW(MW2, SROCE_FX_MW_BIND),
			FX_MW(MW2, SROCE_FX_MW_LINV), WR_FIRST(MW2),
			FX_NAKED(0, FX_NAK_ACC, 0),
			FX_MEM_ORIG(.buf = WRB, .len = 600),
			FX_STATE(IB_QPS_ERR)),
	},
	/* ---- an RDMA WRITE the binding's end cuts (IBTA 9.7.5.1.2) ---- */
	{
		.name = "rc_write_mw2_local_inv_mid_message",
		.type = IB_QPT_RC,
		.steps = WR_CUT(MW2, FX_MW(MW2, SROCE_FX_MW_LINV)),
	},
	{
		.name = "rc_write_mw1_rebind_mid_message",
		.type = IB_QPT_RC,
		.steps = WR_CUT(MW1, FX_MW(MW1, SROCE_FX_MW_REBIND)),
	},
	{
		.name = "rc_write_mw1_unbind_mid_message",
		.type = IB_QPT_RC,
		.steps = WR_CUT(MW1, FX_MW(MW1, SROCE_FX_MW_UNBIND)),
	},
	{
		.name = "rc_write_mw1_dealloc_mid_message",
		.type = IB_QPT_RC,
		.steps = WR_CUT(MW1, FX_MW(MW1, SROCE_FX_MW_DEALLOC)),
	},
	{
		.name = "rc_write_mw2_dealloc_mid_message",
		.type = IB_QPT_RC,
		.steps = WR_CUT(MW2, FX_MW(MW2, SROCE_FX_MW_DEALLOC)),
	},
	{
		/* UC: the rest of the message is dropped, nothing written */
		.name = "uc_write_mw2_local_inv_mid_message",
		.type = IB_QPT_UC,
		.steps = FX_STEPS(FX_MW(MW2, SROCE_FX_MW_BIND),
			FX_RX(.op = OP_UC(RDMA_WRITE_FIRST), .psn = 0,
			      .len = 256, .key = MW2, .off = WRB, .dlen = 600),
			FX_MW(MW2, SROCE_FX_MW_LINV),
			FX_RX(.op = OP_UC(RDMA_WRITE_MIDDLE), .psn = 1,
			      .len = 256, .data = 256),
			FX_RX(.op = OP_UC(RDMA_WRITE_LAST), .psn = 2, .len = 88,
			      .data = 512),
			FX_MEM(.buf = WRB, .len = 256),
			FX_MEM_ORIG(.buf = WRB + 256, .len = 344),
			FX_COUNT(SROCE_CNT_REMOTE_ACCESS_ERR, 1),
			FX_STATE(IB_QPS_RTS)),
	},
	/* ---- a READ response stream the binding's end cuts ---- */
	{
		.name = "rc_read_mw2_local_inv_mid_stream",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(RD_CUT(MW2, 1, FX_MW(MW2, SROCE_FX_MW_LINV))),
	},
	{
		/*
		 * the peer's own SEND with Invalidate, behind its READ: taken
		 * by the responder's run before the stream goes on
		 */
		.name = "rc_read_mw2_send_inv_mid_stream",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(RD_CUT(MW2, 2, FX_RECV(.n = 1),
			FX_RX(.op = OP_RC(SEND_ONLY_WITH_INVALIDATE), .psn = 3,
			      .len = 8, .key = MW2),
			FX_NO_CQE()),
			FX_RCQE(.wr = 0x100, .wc_op = IB_WC_RECV, .len = 8,
				.wcf = IB_WC_WITH_INVALIDATE, .key = MW2)),
	},
	{
		.name = "rc_read_mw1_rebind_mid_stream",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(RD_CUT(MW1, 1,
					 FX_MW(MW1, SROCE_FX_MW_REBIND))),
	},
	{
		.name = "rc_read_mw1_dealloc_mid_stream",
		.type = IB_QPT_RC,
		.steps = FX_STEPS(RD_CUT(MW1, 1,
					 FX_MW(MW1, SROCE_FX_MW_DEALLOC))),
	},
};

SROCE_FX_SUITE(sroce_resp_mw, sroce_resp_mw_cases);
