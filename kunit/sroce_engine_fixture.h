/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_engine_fixture.h - table-driven tests of the protocol engines
 * (requester, completer, responder) through the QP data path: packets in,
 * packets out, CQEs and state.
 *
 * Each test case is a QP configuration and a script of steps.  The fixture
 * (sroce_engine_fixture.c) builds a device that is not registered with the
 * IB core, one QP of the case's type brought to RTS through the driver's
 * own verbs (sroce_dev_ops), its CQs, DMA MRs over a vmalloc'ed buffer and,
 * for UD, an AH; for an XRC TGT QP, its XRC domain and the XRC SRQs of
 * enum sroce_fx_srq instead of a receive queue.  The device's KUnit
 * transmit hook (sroce_dev.kunit_xmit) captures every packet the engines
 * send instead of the network.  The script then plays the peer:
 *   - RX builds a request or response packet with the header helpers of
 *     sroce_hdr.h, fills its metadata as the receive path does and hands
 *     it to sroce_rcv();
 *   - SEND / RECV post work requests through post_send / post_recv; WQE
 *     writes a send WQE into the SQ ring as a provider does (the QP is a
 *     user QP from then on) and rings the doorbell;
 *   - TX, TXS, SCQE, RCQE, STATE, COUNT, MEM ... check what came out.
 * After every step the QP's work item is flushed, so timing of the
 * workqueue never matters; timers (RNR, local ACK timeout, backpressure
 * pauses) are waited for explicitly (WAIT).  At the end of a script no
 * packet and no CQE may be left unchecked.
 *
 * Conventions:
 *   - the peer's QPN is SROCE_FX_PEER_QPN; the requester's remote VAs are
 *     SROCE_FX_REMOTE_VA + .off with R_Key SROCE_FX_REMOTE_RKEY;
 *   - the local buffer (SROCE_FX_BUF_SIZE bytes) starts out with
 *     sroce_fx_pat_tx(offset) at every offset; RX payloads carry
 *     sroce_fx_pat_rx(.data + i);
 *   - the n-th send WQE of a case has wr_id n (1, 2, ...), the n-th
 *     receive WQE 0x100 + n - 1, unless the step names one (.wr);
 *   - a QP attribute left 0 in the case takes a default; SROCE_FX_ZERO
 *     asks for a real 0 where the default is not 0.
 */
#ifndef SROCE_ENGINE_FIXTURE_H
#define SROCE_ENGINE_FIXTURE_H

#include <kunit/test.h>
#include <rdma/ib_pack.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "sroce_av.h"
#include "sroce_mr.h"
#include "sroce_qp.h"
#include "sroce_queue.h"
#include "sroce_recv.h"

#define SROCE_FX_BUF_SIZE	(128 * 1024)
#define SROCE_FX_PEER_QPN	0x00abcd
#define SROCE_FX_QKEY		0x11223344	/* the UD QP's Q_Key */
#define SROCE_FX_QKEY2		0x55667788	/* Q_Key UD WQEs name */
#define SROCE_FX_REMOTE_VA	0x7f0000001000ULL
#define SROCE_FX_REMOTE_RKEY	0x00c0ffee
#define SROCE_FX_RECV_LEN	1024	/* receive buffer bytes by default */
#define SROCE_FX_ZERO		0xff	/* "0" for attributes defaulting to !0 */

/* Initial byte at buffer offset @i, and byte @i of RX payload patterns. */
static inline u8 sroce_fx_pat_tx(u32 i)
{
	return (u8)(i * 7 + 3);
}

static inline u8 sroce_fx_pat_rx(u32 i)
{
	return (u8)((i * 13 + 101) ^ 0x5a);
}

/* Which key an RX header or an SGE names. */
enum sroce_fx_key {
	SROCE_FX_KEY_MR,	/* DMA MR, local write + all remote access */
	SROCE_FX_KEY_RO,	/* DMA MR with local write only */
	SROCE_FX_KEY_PD,	/* DMA MR of another PD, all access */
	SROCE_FX_KEY_INV,	/* DMA MR for SEND with Invalidate */
	SROCE_FX_KEY_FLUSH,	/* DMA MR, all remote access, FLUSH_GLOBAL */
	SROCE_FX_NUM_MR,
	SROCE_FX_KEY_BAD = SROCE_FX_NUM_MR,	/* no MR has it */
	SROCE_FX_KEY_MW1,	/* the type 1 window of FX_MW steps */
	SROCE_FX_KEY_MW2,	/* the type 2B window of FX_MW steps */
};

/*
 * What an FX_MW step does to the window its .key names (IBTA 10.6.7).  The
 * windows bind to one fast-register MR over the whole buffer (registered
 * with local write and MW_BIND), in the QP's PD; the first BIND of a
 * window allocates it.  Each step's return is checked against .err.
 */
enum sroce_fx_mw_op {
	SROCE_FX_MW_BIND,	/* bind it over the whole buffer, all rights */
	SROCE_FX_MW_REBIND,	/* type 1: bind again, to the first page only */
	SROCE_FX_MW_UNBIND,	/* type 1: a zero-length bind */
	SROCE_FX_MW_LINV,	/* type 2B: IB_WR_LOCAL_INV through the QP */
	SROCE_FX_MW_DEALLOC,	/* ibv_dealloc_mw() */
};

/*
 * The XRC SRQs of an XRC TGT QP case (IBTA vol. 1 annex A14), which an
 * RX XRCETH names and POST_RECV posts to.  All complete to the receive
 * CQ; A and X are in the QP's PD, B in the other one (SROCE_FX_KEY_PD).
 */
enum sroce_fx_srq {
	SROCE_FX_SRQ_A,		/* the SRQ: of the QP's XRC domain */
	SROCE_FX_SRQ_B,		/* a second SRQ of that domain, other PD */
	SROCE_FX_SRQ_X,		/* an SRQ of another XRC domain */
	SROCE_FX_NUM_SRQ,
	SROCE_FX_SRQ_NONE = SROCE_FX_NUM_SRQ,	/* a number no SRQ has */
};

enum sroce_fx_kind {
	SROCE_FX_END,
	SROCE_FX_RX,		/* deliver a packet (.op .psn .len ...) */
	SROCE_FX_TX,		/* the next sent packet must match */
	SROCE_FX_TX_BURST,	/* .n full-MTU packets .op from .psn on */
	SROCE_FX_NO_TX,		/* nothing was sent */
	SROCE_FX_SCQE,		/* the next send CQE must match */
	SROCE_FX_RCQE,		/* the next receive CQE must match */
	SROCE_FX_NO_CQE,	/* both CQs are empty */
	SROCE_FX_POST_SEND,	/* post_send .op (enum ib_wr_opcode) */
	SROCE_FX_POST_WQE,	/* a user QP's send WQE .op, then the doorbell */
	SROCE_FX_POST_RECV,	/* post_recv .n WQEs of .len bytes */
	SROCE_FX_MODIFY,	/* modify_qp to state .n */
	SROCE_FX_STATE,		/* query_qp state is .n */
	SROCE_FX_COUNT,		/* device counter .ctr is .n */
	SROCE_FX_FATAL,		/* .n IB_EVENT_QP_FATAL events so far */
	SROCE_FX_BLOCK,		/* all pushed back (-EAGAIN) after .n */
	SROCE_FX_UNBLOCK,
	SROCE_FX_PUSHBACK,	/* the next .n transmissions pushed back */
	SROCE_FX_WAIT,		/* sleep .n ms, then flush the work */
	SROCE_FX_MEM,		/* buffer at .buf holds pat_rx(.data ...) */
	SROCE_FX_MEM_ORIG,	/* buffer at .buf still holds pat_tx() */
	SROCE_FX_MEM_U64,	/* u64 at .buf is .a */
	SROCE_FX_SET_U64,	/* store .a at .buf */
	SROCE_FX_MR_VALID,	/* MR .key is valid (.n 1) or not (.n 0) */
	SROCE_FX_CONGEST,	/* the next .n transmissions: NET_XMIT_CN */
	SROCE_FX_HOLD,		/* a send-side run is in progress elsewhere */
	SROCE_FX_RELEASE,	/* that run ends; ring the doorbell */
	SROCE_FX_RESP_HOLD,	/* a responder run is in progress elsewhere */
	SROCE_FX_RESP_RELEASE,	/* that run ends; the QP's work runs */
	SROCE_FX_REOPEN,	/* modify_qp RESET, INIT, RTR, RTS (the case's) */
	SROCE_FX_DEV_FATAL,	/* the device fails (its netdev is going) */
	SROCE_FX_DRAIN,		/* drain_sq, drain_rq; no other WQE outstanding */
	SROCE_FX_DESTROY,	/* destroy_qp; only TX and NO_TX steps follow */
	SROCE_FX_SRQ_WQES,	/* XRC SRQ .srqn holds .n WQEs */
	SROCE_FX_CWND,		/* the congestion window is .n PSNs */
	SROCE_FX_ARMED,		/* packets to time out (.n 1), timer armed, or none */
	SROCE_FX_MW,		/* window .key: enum sroce_fx_mw_op .n */
	SROCE_FX_EXPIRE,	/* retransmit timer: taken off (.n 0), fn (1) */
	SROCE_FX_SQ_FLAGS,	/* the SQ ring's sq_flags are .n */
};

/**
 * struct sroce_fx_step - one step of a case script
 * @kind: enum sroce_fx_kind
 * @op: BTH opcode (RX, TX, TX_BURST) or enum ib_wr_opcode (POST_SEND,
 *	POST_WQE)
 * @plt: FETH placement type (RX, TX) or the WQE's flush_type (POST_WQE)
 * @sel: FETH selectivity level (RX, TX) or the WQE's flush_level
 *	(POST_WQE)
 * @syn: AETH syndrome (RX, TX of opcodes with an AETH)
 * @key: enum sroce_fx_key of the RETH/AtomicETH/IETH (RX), SGE (POST_*)
 *	or window (MW)
 * @srqn: enum sroce_fx_srq: the SRQ an XRC request's XRCETH names (RX),
 *	POST_RECV posts to on an XRC TGT QP, SRQ_WQES counts
 * @ackreq: BTH AckReq (RX, TX)
 * @se: BTH SE (RX, TX)
 * @unsig: POST_SEND without IB_SEND_SIGNALED
 * @nodb: POST_WQE without the doorbell, as a provider that found
 *	SROCE_SQ_F_NEED_WAKEUP clear
 * @acks: TX_BURST: AckReq bits among the packets
 * @ctr: COUNT: enum sroce_counter
 * @psn: BTH PSN (RX, TX, first PSN of TX_BURST)
 * @msn: AETH MSN
 * @len: payload bytes (RX, TX), message bytes (POST_SEND), bytes per WQE
 *	(POST_RECV, 0: SROCE_FX_RECV_LEN), bytes (MEM, MEM_ORIG)
 * @dlen: RETH DMA length (RX, TX); POST_WQE: wr.rdma.length
 * @off: RX: local buffer offset of the RETH/AtomicETH VA; TX, POST_SEND
 *	and POST_WQE: remote VA offset from SROCE_FX_REMOTE_VA
 * @va: RX: the RETH VA itself instead of the buffer's (when not 0)
 * @buf: local buffer offset: SGE (POST_*), payload source (TX), checked
 *	bytes (MEM*, SET_U64)
 * @data: pattern offset of an RX payload and of MEM
 * @n: count (POST_RECV, TX_BURST, PUSHBACK, CONGEST, COUNT, FATAL,
 *	SRQ_WQES; BLOCK: transmissions still let through; POST_WQE: SGEs,
 *	each .len bytes at .buf), state (MODIFY, STATE), milliseconds
 *	(WAIT), enum sroce_fx_mw_op (MW), SROCE_SQ_F_* bits (SQ_FLAGS)
 * @imm: immediate data (host order), or the IETH R_Key of a sent
 *	SEND with Invalidate
 * @qkey: DETH Q_Key (RX: 0 is SROCE_FX_QKEY; POST_SEND and TX: 0 is
 *	SROCE_FX_QKEY2)
 * @flags: POST_SEND, POST_WQE send flags (IB_SEND_SIGNALED is added unless
 *	@unsig)
 * @err: POST_SEND / POST_RECV / MW return value
 * @status: CQE status (enum ib_wc_status)
 * @wc_op: CQE opcode (enum ib_wc_opcode)
 * @wcf: CQE wc_flags
 * @wr: wr_id of a posted WQE or of a CQE (0 in POST_*: numbered)
 * @a: AtomicETH swap/add, AtomicAckETH original value, MEM_U64/SET_U64
 * @b: AtomicETH compare
 */
struct sroce_fx_step {
	u8 kind;
	u8 op;
	u8 syn;
	u8 key;
	u8 srqn;
	u8 plt;
	u8 sel;
	bool ackreq;
	bool se;
	bool unsig;
	bool nodb;
	u16 acks;
	u16 ctr;
	u32 psn;
	u32 msn;
	u32 len;
	u32 dlen;
	u32 off;
	u64 va;
	u32 buf;
	u32 data;
	u32 n;
	u32 imm;
	u32 qkey;
	int flags;
	int err;
	u8 status;
	u8 wc_op;
	int wcf;
	u64 wr;
	u64 a;
	u64 b;
};

/**
 * struct sroce_fx_case - a QP configuration and its script
 * @name: parameter description
 * @type: IB_QPT_RC, IB_QPT_UC, IB_QPT_UD or IB_QPT_XRC_TGT (responder
 *	only: no send queue, POST_RECV posts to an XRC SRQ)
 * @mtu: path MTU (RC, UC); 0 is IB_MTU_256 (UD: the port's, 1024)
 * @sq_psn: first PSN sent
 * @rq_psn: first PSN expected
 * @access: qp_access_flags; 0 is remote write, read and atomic.  The
 *	flush rights (SROCE_ACCESS_FLUSH_*) reach the QP whatever the
 *	kernel's core passes
 * @max_rd: max_rd_atomic; 0 is 4
 * @max_dest_rd: max_dest_rd_atomic; 0 is 4
 * @retry: retry_cnt; 0 is 7
 * @rnr_retry: rnr_retry; 0 is 7 (infinite)
 * @rnr_timer: min_rnr_timer code the responder puts in RNR NAKs
 * @timeout: local ACK timeout exponent; 0 is infinite
 * @batch: the engines' packets wait in batches until their run ends
 *	(sroce_dev.kunit_batch); PUSHBACK and BLOCK then count batches (and
 *	packets sent alone): a batch goes or is pushed back whole
 * @steps: the script, ended by a zeroed step (FX_STEPS() adds it)
 */
struct sroce_fx_case {
	const char *name;
	enum ib_qp_type type;
	enum ib_mtu mtu;
	u32 sq_psn;
	u32 rq_psn;
	int access;
	u8 max_rd;
	u8 max_dest_rd;
	u8 retry;
	u8 rnr_retry;
	u8 rnr_timer;
	u8 timeout;
	bool batch;
	const struct sroce_fx_step *steps;
};

void sroce_fx_case_desc(const struct sroce_fx_case *c, char *desc);
/* Run the case test->param_value (a struct sroce_fx_case). */
void sroce_fx_run(struct kunit *test);

/* The KUnit suite @sname: one parameterised test over the array @cases. */
#define SROCE_FX_SUITE(sname, cases)					\
	KUNIT_ARRAY_PARAM(sname, cases, sroce_fx_case_desc);		\
	static void sname##_test(struct kunit *test)			\
	{								\
		sroce_fx_run(test);					\
	}								\
	static struct kunit_case sname##_test_cases[] = {		\
		KUNIT_CASE_PARAM(sname##_test, sname##_gen_params),	\
		{}							\
	};								\
	static struct kunit_suite sname##_suite = {			\
		.name = #sname,						\
		.test_cases = sname##_test_cases,			\
	};								\
	kunit_test_suite(sname##_suite)

/* ---- script notation ---- */

#define FX_STEPS(...)	((const struct sroce_fx_step[]){ __VA_ARGS__, { } })

#define FX_RX(...)	{ .kind = SROCE_FX_RX, __VA_ARGS__ }
#define FX_TX(...)	{ .kind = SROCE_FX_TX, __VA_ARGS__ }
#define FX_TXS(...)	{ .kind = SROCE_FX_TX_BURST, __VA_ARGS__ }
#define FX_NO_TX()	{ .kind = SROCE_FX_NO_TX }
#define FX_SCQE(...)	{ .kind = SROCE_FX_SCQE, __VA_ARGS__ }
#define FX_RCQE(...)	{ .kind = SROCE_FX_RCQE, __VA_ARGS__ }
#define FX_NO_CQE()	{ .kind = SROCE_FX_NO_CQE }
#define FX_SEND(...)	{ .kind = SROCE_FX_POST_SEND, __VA_ARGS__ }
#define FX_WQE(...)	{ .kind = SROCE_FX_POST_WQE, __VA_ARGS__ }
#define FX_RECV(...)	{ .kind = SROCE_FX_POST_RECV, __VA_ARGS__ }
#define FX_MODIFY(st)	{ .kind = SROCE_FX_MODIFY, .n = (st) }
#define FX_STATE(st)	{ .kind = SROCE_FX_STATE, .n = (st) }
#define FX_COUNT(c, v)	{ .kind = SROCE_FX_COUNT, .ctr = (c), .n = (v) }
#define FX_FATAL(v)	{ .kind = SROCE_FX_FATAL, .n = (v) }
#define FX_MR_VALID(k, v)	{ .kind = SROCE_FX_MR_VALID, .key = (k), .n = (v) }
#define FX_BLOCK()	{ .kind = SROCE_FX_BLOCK }
#define FX_BLOCK_AFTER(v) { .kind = SROCE_FX_BLOCK, .n = (v) }
#define FX_UNBLOCK()	{ .kind = SROCE_FX_UNBLOCK }
#define FX_PUSHBACK(v)	{ .kind = SROCE_FX_PUSHBACK, .n = (v) }
#define FX_WAIT(ms)	{ .kind = SROCE_FX_WAIT, .n = (ms) }
#define FX_MEM(...)	{ .kind = SROCE_FX_MEM, __VA_ARGS__ }
#define FX_MEM_ORIG(...) { .kind = SROCE_FX_MEM_ORIG, __VA_ARGS__ }
#define FX_MEM64(o, v)	{ .kind = SROCE_FX_MEM_U64, .buf = (o), .a = (v) }
#define FX_SET64(o, v)	{ .kind = SROCE_FX_SET_U64, .buf = (o), .a = (v) }
#define FX_CONGEST(v)	{ .kind = SROCE_FX_CONGEST, .n = (v) }
#define FX_HOLD()	{ .kind = SROCE_FX_HOLD }
#define FX_RELEASE()	{ .kind = SROCE_FX_RELEASE }
#define FX_RESP_HOLD()	{ .kind = SROCE_FX_RESP_HOLD }
#define FX_RESP_RELEASE() { .kind = SROCE_FX_RESP_RELEASE }
#define FX_REOPEN()	{ .kind = SROCE_FX_REOPEN }
#define FX_DEV_FATAL()	{ .kind = SROCE_FX_DEV_FATAL }
#define FX_DRAIN()	{ .kind = SROCE_FX_DRAIN }
#define FX_DESTROY()	{ .kind = SROCE_FX_DESTROY }
#define FX_SRQ_WQES(q, v) { .kind = SROCE_FX_SRQ_WQES, .srqn = (q), .n = (v) }
#define FX_CWND(v)	{ .kind = SROCE_FX_CWND, .n = (v) }
#define FX_ARMED(v)	{ .kind = SROCE_FX_ARMED, .n = (v) }
#define FX_EXPIRE(half)	{ .kind = SROCE_FX_EXPIRE, .n = (half) }
#define FX_SQ_FLAGS(v)	{ .kind = SROCE_FX_SQ_FLAGS, .n = (v) }
#define FX_MW(k, o, ...) { .kind = SROCE_FX_MW, .key = (k), .n = (o), __VA_ARGS__ }

/* ACK/NAK sent (TX) or received (RX: MSN 0, the completer ignores it) */
#define FX_ACKED(p, m)	FX_TX(.op = OP_RC(ACKNOWLEDGE), .psn = (p), \
			      .syn = FX_ACK, .msn = (m))
#define FX_NAKED(p, s, m) FX_TX(.op = OP_RC(ACKNOWLEDGE), .psn = (p), \
				.syn = (s), .msn = (m))
#define FX_RX_ACK(p)	FX_RX(.op = OP_RC(ACKNOWLEDGE), .psn = (p), \
			      .syn = FX_ACK)
#define FX_RX_NAK(p, s)	FX_RX(.op = OP_RC(ACKNOWLEDGE), .psn = (p), .syn = (s))
/* Receive CQEs: a successful IB_WC_RECV, an error or flush */
#define FX_RCQE_OK(w, l) FX_RCQE(.wr = (w), .wc_op = IB_WC_RECV, .len = (l))
#define FX_RCQE_ERR(w, s) FX_RCQE(.wr = (w), .status = (s), \
				  .wc_op = IB_WC_RECV)

#define OP_RC(op)	IB_OPCODE_RC_##op
#define OP_UC(op)	IB_OPCODE_UC_##op
#define OP_UD(op)	IB_OPCODE_UD_##op
/* XRC: the RC opcode with the XRC transport bits (IBTA 9.2, table 38) */
#define OP_XRC(op)	(SROCE_OP_XRC | IB_OPCODE_##op)

/* AETH syndromes (IBTA 9.3.5 table 44) */
#define FX_ACK		(SROCE_AETH_ACK | SROCE_AETH_CREDIT_INVALID)
#define FX_RNR(code)	(SROCE_AETH_RNR_NAK | (code))
#define FX_NAK(code)	(SROCE_AETH_NAK | (code))
#define FX_NAK_SEQ	FX_NAK(SROCE_NAK_PSN_SEQ_ERR)
#define FX_NAK_INV	FX_NAK(SROCE_NAK_INVALID_REQ)
#define FX_NAK_ACC	FX_NAK(SROCE_NAK_REM_ACCESS)
#define FX_NAK_OP	FX_NAK(SROCE_NAK_REM_OP_ERR)
#define FX_NAK_INV_RD	FX_NAK(SROCE_NAK_INVALID_RD_REQ)

#endif /* SROCE_ENGINE_FIXTURE_H */
