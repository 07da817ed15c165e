// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_resp.c - the responder: request packets of RC, UC and UD queue
 * pairs into memory and receive completions, and the responses they call
 * for: ACK/NAK, RDMA READ responses and atomic ACKs (IBTA vol. 1 9.5,
 * 9.7.4, 9.7.5, 9.8 and annex A17).
 *
 * A packet goes through small check steps (state, PSN, opcode sequence,
 * access, length, resources) and then one "do" step per operation (those
 * of SEND and RDMA WRITE, with the receive WQEs they take, UD and the XRC
 * SRQ lookup are in sroce_resp_recv.c; those of RDMA READ, atomics, ATOMIC
 * WRITE and FLUSH, which answer with data of their own, and their
 * duplicates are in sroce_resp_rdma.c).  Every
 * step returns an enum sroce_resp_ret; one error handler per transport
 * turns a failure into the IBTA behaviour (NAK and error state for RC,
 * silent drop of the message for UC/UD).
 *
 * The responses leave in request order through the per-QP response
 * queue of sroce_resp_out.c: the steps here queue them, and the entry
 * points below (sroce_resp_rcv(), sroce_resp_run()) push the queue a
 * budget of packets at a time.
 *
 * Context: a responder run of the QP (it owns SROCE_DP_RESP_RUNNING, see
 * sroce_dp.h): the work item, or inline from RX softirq or a doorbell;
 * responder runs of one QP never overlap (its send side may run at the
 * same time on another CPU: the two share no state).  Nothing here
 * sleeps (GFP_ATOMIC).
 */

#include <linux/slab.h>
#include <linux/spinlock.h>
#include <rdma/ib_pack.h>

#include "sroce.h"
#include "sroce_mr.h"
#include "sroce_net.h"
#include "sroce_qp.h"
#include "sroce_trace.h"

/* Packets sent per call: from sroce_resp_rcv() and sroce_resp_run(). */
#define SROCE_RESP_INLINE_BUDGET	8
#define SROCE_RESP_RUN_BUDGET		128

/* Does the QP state of this entry point's snapshot take requests? */
static bool sroce_resp_state_rx(const struct sroce_resp *resp)
{
	return resp->attr.caps & SROCE_QPS_RX_REQ;
}

/**
 * sroce_resp_set_epsn() - set the PSN the responder expects next
 * @resp: the responder
 * @psn: the PSN (taken modulo 2^24)
 *
 * Context: the QP's responder run; others read it with READ_ONCE().
 */
void sroce_resp_set_epsn(struct sroce_resp *resp, u32 psn)
{
	WRITE_ONCE(resp->epsn, psn & SROCE_PSN_MASK);
}

/**
 * sroce_resp_ack_psn() - the PSN an ACK answering a request names
 * @resp: the responder
 * @psn: the request answered, at or behind the newest run
 *
 * The newest SEND or WRITE packet run (@resp->ack_psn, IBTA 9.7.5.1.1: an
 * ACK is cumulative), unless that is the last packet of a message of
 * several packets and not the request answered.  A requester that goes
 * back N (rdma_rxe) may be resending that message when the ACK arrives:
 * an ACK of its last PSN then moves the requester's acknowledged PSN past
 * the message without completing the WQE, its own resent last packet is
 * answered behind that PSN, and the WQE never completes.  One PSN less
 * leaves the last packet to be answered when it is resent.  A message of
 * one packet is never caught half sent.
 * Context: the QP's responder run.
 * Return: the PSN, 24 bits.
 */
u32 sroce_resp_ack_psn(const struct sroce_resp *resp, u32 psn)
{
	if (resp->ack_end && resp->ack_first != resp->ack_psn &&
	    psn != resp->ack_psn)
		return (resp->ack_psn - 1) & SROCE_PSN_MASK;
	return resp->ack_psn;
}

/* ------------------------------------------------------------------ */
/* Packet accessors                                                    */
/* ------------------------------------------------------------------ */

static u32 sroce_resp_hdr_len(const struct sroce_pkt_info *pkt)
{
	return sroce_opcode[pkt->opcode].length;
}

/**
 * sroce_resp_payload_off() - where a request's payload starts
 * @skb: the request packet
 * @pkt: the request
 *
 * Context: any.
 * Return: the offset of the payload from skb->data.
 */
u32 sroce_resp_payload_off(const struct sk_buff *skb,
			   const struct sroce_pkt_info *pkt)
{
	return (u32)(pkt->hdr - skb->data) + sroce_resp_hdr_len(pkt);
}

/* ------------------------------------------------------------------ */
/* Attribute snapshot, reset                                           */
/* ------------------------------------------------------------------ */

/* Forget everything about the connection (move to RESET, destroy). */
static void sroce_resp_reset(struct sroce_qp *qp)
{
	struct sroce_resp *resp = to_sroce_resp(qp);

	sroce_resp_msg_end(qp);
	resp->msg.srq_held = false;	/* reset discards the QP's WQEs */
	sroce_resp_out_clear(qp);
	sroce_resp_ooo_purge(resp);
	if (resp->res)
		memset(resp->res, 0, resp->res_cap * sizeof(*resp->res));
	resp->res_head = 0;
	sroce_resp_set_epsn(resp, 0);
	resp->ack_psn = SROCE_PSN_MASK;
	resp->ack_end = false;
	resp->msn = 0;
	resp->nak_sent = false;
	resp->ack_owed = false;
	resp->uc_drop = false;
	resp->failed = false;
}

/**
 * sroce_resp_res_alloc() - the responder resources of a modify_qp
 * @qp: the QP being modified
 * @attr: the new attributes
 * @mask: IB_QP_* bits naming the valid ones
 *
 * A reliable QP given max_dest_rd_atomic gets that many responder
 * resources (IBTA 9.5), allocated here in the verb's process context and
 * charged to its caller's memory cgroup, not later by a responder run
 * (softirq, or a work item: no one's account); sroce_resp_res_offer()
 * hands them over with the attribute.
 * Context: process, may sleep.
 * Return: the zeroed resources, NULL when there are none to allocate, or
 * ERR_PTR(-ENOMEM).
 */
struct sroce_resp_res *sroce_resp_res_alloc(struct sroce_qp *qp,
					    const struct ib_qp_attr *attr,
					    int mask)
{
	struct sroce_resp_res *res;

	if (!(mask & IB_QP_MAX_DEST_RD_ATOMIC) ||
	    !sroce_qpt_reliable(qp->type) || !attr->max_dest_rd_atomic)
		return NULL;
	res = kcalloc(attr->max_dest_rd_atomic, sizeof(*res),
		      GFP_KERNEL_ACCOUNT);
	return res ?: ERR_PTR(-ENOMEM);
}

/**
 * sroce_resp_res_offer() - hand a modify_qp's responder resources over
 * @qp: the QP; qp->attr holds the new max_dest_rd_atomic
 * @mask: the modify_qp's IB_QP_* bits
 * @res: in: what sroce_resp_res_alloc() returned for it; out: resources
 *	offered before and not taken up yet, for the caller to kfree()
 *	once it dropped the lock
 *
 * The responder takes them up before its next request (sroce_resp_sync()).
 * Context: qp->state_lock held (any context).
 */
void sroce_resp_res_offer(struct sroce_qp *qp, int mask,
			  struct sroce_resp_res **res)
{
	struct sroce_resp *resp = to_sroce_resp(qp);

	lockdep_assert_held(&qp->state_lock);
	if (!(mask & IB_QP_MAX_DEST_RD_ATOMIC) || !sroce_qpt_reliable(qp->type))
		return;
	swap(resp->pend_res, *res);
	resp->pend_res_set = true;
}

/*
 * Take up the responder resources modify_qp sized to max_dest_rd_atomic
 * (IBTA 9.5): the queue is dropped first since it indexes the old ones.
 */
static void sroce_resp_res_install(struct sroce_qp *qp,
				   struct sroce_resp_res *res)
{
	struct sroce_resp *resp = to_sroce_resp(qp);

	sroce_resp_out_clear(qp);
	kfree(resp->res);
	resp->res = res;
	resp->res_cap = res ? resp->attr.max_rd : 0;
	resp->res_head = 0;
}

/**
 * sroce_resp_sync() - take up the QP's attributes and pending changes
 * @qp: the responder's QP
 *
 * Copy the attributes the responder uses and pick up what
 * sroce_resp_modify() left, under qp->state_lock.
 * Context: the QP's responder run; takes qp->state_lock.
 */
void sroce_resp_sync(struct sroce_qp *qp)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	struct sroce_resp_attr *a = &resp->attr;
	bool reset, set_psn, set_res;
	struct sroce_resp_res *res;
	unsigned long flags;
	u32 psn;

	spin_lock_irqsave(&qp->state_lock, flags);
	a->caps = sroce_qp_state_caps_of(qp->state);
	a->access = qp->attr.qp_access_flags;
	a->qkey = qp->attr.qkey;
	a->mtu = max_t(u32, qp->mtu, 256);
	a->dest_qpn = qp->attr.dest_qp_num & SROCE_QPN_MASK;
	a->rnr_code = qp->attr.min_rnr_timer & SROCE_AETH_VAL_MASK;
	a->max_rd = sroce_qpt_reliable(qp->type) ?
		    qp->attr.max_dest_rd_atomic : 0;
	a->av = qp->av;
	reset = resp->pend_reset;
	set_psn = resp->pend_psn;
	psn = resp->pend_psn_val;
	resp->pend_reset = false;
	resp->pend_psn = false;
	res = resp->pend_res;
	set_res = resp->pend_res_set;
	resp->pend_res = NULL;
	resp->pend_res_set = false;
	spin_unlock_irqrestore(&qp->state_lock, flags);

	if (reset)
		sroce_resp_reset(qp);
	if (set_psn) {
		sroce_resp_set_epsn(resp, psn);
		resp->ack_psn = (psn - 1) & SROCE_PSN_MASK;
		resp->ack_end = false;
		sroce_resp_ooo_purge(resp);
		resp->nak_sent = false;
		resp->ack_owed = false;
		resp->uc_drop = false;
	}
	if (set_res)
		sroce_resp_res_install(qp, res);
}

/* ------------------------------------------------------------------ */
/* Error handling                                                      */
/* ------------------------------------------------------------------ */

/**
 * sroce_resp_fatal() - fail the connection from the responder side
 * @qp: queue pair
 * @syndrome: AETH syndrome of the NAK to send, or 0 to send nothing
 * @psn: PSN the NAK carries
 *
 * Classes A and C (IBTA 9.9.3): sends the NAK (best effort, responses
 * still queued are dropped: the connection is going down), ends the
 * message in progress, stops taking packets and moves the QP to the error
 * state, which flushes its WQEs.
 *
 * Context: a responder run of the QP (SROCE_DP_RESP_RUNNING owned); does
 * not sleep.
 */
void sroce_resp_fatal(struct sroce_qp *qp, u8 syndrome, u32 psn)
{
	struct sroce_resp *resp = to_sroce_resp(qp);

	sroce_resp_out_clear(qp);
	if (syndrome)
		sroce_resp_xmit_ack(qp, IB_OPCODE_RC_ACKNOWLEDGE, syndrome,
				    psn, resp->msn, 0);
	sroce_resp_msg_end(qp);
	resp->failed = true;
	sroce_qp_error(qp);
}

static enum ib_wc_status sroce_resp_err_status(struct sroce_resp *resp,
					       enum sroce_resp_ret ret)
{
	if (resp->wc_err)
		return resp->wc_err;
	switch (ret) {
	case SROCE_RESP_NAK_ACC:
		return IB_WC_LOC_ACCESS_ERR;
	case SROCE_RESP_NAK_OP:
		return IB_WC_LOC_QP_OP_ERR;
	default:
		return IB_WC_REM_INV_REQ_ERR;
	}
}

static u8 sroce_resp_nak_syndrome(enum sroce_resp_ret ret)
{
	switch (ret) {
	case SROCE_RESP_NAK_ACC:
		return SROCE_AETH_NAK | SROCE_NAK_REM_ACCESS;
	case SROCE_RESP_NAK_OP:
		return SROCE_AETH_NAK | SROCE_NAK_REM_OP_ERR;
	default:
		return SROCE_AETH_NAK | SROCE_NAK_INVALID_REQ;
	}
}

/*
 * RC failure of the request at @pkt (IBTA 9.7.5.2, 9.9.3): RNR NAK and
 * wait for the retry (class B), or NAK, complete the WQE in progress with
 * an error and go to the error state (classes A and C).
 */
static void sroce_resp_rc_error(struct sroce_qp *qp,
				const struct sroce_pkt_info *pkt,
				enum sroce_resp_ret ret)
{
	struct sroce_resp *resp = to_sroce_resp(qp);

	switch (ret) {
	case SROCE_RESP_OK:
	case SROCE_RESP_DROP:
		return;
	case SROCE_RESP_RNR:
		sroce_counter_inc(qp->dev, SROCE_CNT_SND_RNR);
		trace_sroce_rnr_nak_sent(qp, pkt->psn, resp->attr.rnr_code);
		if (pkt->mask & SROCE_MASK_START)
			sroce_resp_msg_end(qp);
		resp->nak_sent = true;
		sroce_resp_queue_ack(qp, SROCE_AETH_RNR_NAK |
				     resp->attr.rnr_code, pkt->psn);
		return;
	default:
		break;
	}
	sroce_resp_complete_err(qp, sroce_resp_err_status(resp, ret));
	sroce_resp_fatal(qp, sroce_resp_nak_syndrome(ret), pkt->psn);
}

/**
 * sroce_resp_unrel_error() - handle the failure of a UC or UD request
 * @qp: the responder's QP
 * @ret: the outcome of the request's steps
 *
 * UC/UD failure (IBTA 9.8.3, 9.9.3): a local QP error (class A) completes
 * the WQE in progress and moves the QP to error; anything else drops the
 * rest of the message silently and keeps the WQE for the next one.
 * Context: the QP's responder run.
 */
void sroce_resp_unrel_error(struct sroce_qp *qp,
			    enum sroce_resp_ret ret)
{
	struct sroce_resp *resp = to_sroce_resp(qp);

	if (ret == SROCE_RESP_OK)
		return;
	if (ret == SROCE_RESP_NAK_OP) {
		sroce_resp_complete_err(qp, sroce_resp_err_status(resp, ret));
		sroce_resp_fatal(qp, 0, 0);
		return;
	}
	sroce_resp_msg_end(qp);
	resp->uc_drop = true;
}

/* ------------------------------------------------------------------ */
/* Checks                                                              */
/* ------------------------------------------------------------------ */

/*
 * Opcode sequence (IBTA 9.7.4.1.4): a message in progress only
 * takes its own MIDDLE/LAST packets; otherwise a packet must start one.
 */
static bool sroce_resp_op_seq_ok(const struct sroce_resp *resp, u32 mask)
{
	bool start = mask & SROCE_MASK_START;

	switch (resp->msg.op) {
	case SROCE_MSG_SEND:
		return !start && (mask & SROCE_MASK_SEND);
	case SROCE_MSG_WRITE:
		return !start && (mask & SROCE_MASK_WRITE);
	default:
		return start;
	}
}

/*
 * The QP's flush rights cover a FLUSH's placement type (IBTA 1.5 annex
 * A19.4.1.1; rdma_rxe's rule since Linux 6.2): each type it names needs
 * its right, IB_ACCESS_FLUSH_GLOBAL or _PERSISTENT, in qp_access_flags.
 */
static bool sroce_resp_flush_allowed(const struct sroce_resp *resp,
				     const struct sroce_pkt_info *pkt)
{
	u8 type = sroce_feth_type(sroce_pkt_hdr(pkt, SROCE_HDR_FETH));
	int acc = resp->attr.access;

	if ((type & SROCE_FLUSH_GLOBAL) && !(acc & SROCE_ACCESS_FLUSH_GLOBAL))
		return false;
	return !(type & SROCE_FLUSH_PERSISTENT) ||
	       (acc & SROCE_ACCESS_FLUSH_PERSISTENT);
}

/* The QP's access flags enable the operation (IBTA 9.7.5.1.2). */
static bool sroce_resp_op_allowed(const struct sroce_resp *resp,
				  const struct sroce_pkt_info *pkt)
{
	u32 mask = pkt->mask;
	int acc = resp->attr.access;

	if (mask & (SROCE_MASK_WRITE | SROCE_MASK_ATOMIC_WRITE))
		return acc & IB_ACCESS_REMOTE_WRITE;
	if (mask & SROCE_MASK_READ)
		return acc & IB_ACCESS_REMOTE_READ;
	if (mask & SROCE_MASK_ATOMIC)
		return acc & IB_ACCESS_REMOTE_ATOMIC;
	if (mask & SROCE_MASK_FLUSH)
		return sroce_resp_flush_allowed(resp, pkt);
	return true;
}

/**
 * sroce_resp_rkey() - the MR or window behind a request's rkey
 * @qp: the responder's QP
 * @rkey: the rkey of the RETH or AtomicETH
 * @va: first byte addressed
 * @len: bytes addressed
 * @access: IB_ACCESS_* rights the operation needs
 *
 * Looks up @rkey, an MR's or a memory window's, and checks [@va, @va +
 * @len) for @access on the QP's PD, an XRC request's on its SRQ's (IBTA
 * 9.7.5.1.2, 10.6.3, 10.6.7); counts a failure.
 * Context: the QP's responder run.
 * Return: the MR with a reference, or NULL.
 */
struct sroce_mr *sroce_resp_rkey(struct sroce_qp *qp, u32 rkey, u64 va,
				 u64 len, int access)
{
	struct sroce_mr *mr = sroce_rkey_get(qp->dev, sroce_resp_pd(qp),
					     sroce_qpn(qp), rkey, va, len,
					     access);

	if (!mr)
		sroce_counter_inc(qp->dev, SROCE_CNT_REMOTE_ACCESS_ERR);
	return mr;
}

/**
 * sroce_resp_rkey_hold() - take a request's rkey for all its packets
 * @qp: the responder's QP
 * @rkey: the rkey of the RETH
 * @va: first byte addressed
 * @len: bytes addressed
 * @access: IB_ACCESS_* rights the operation needs
 * @ref: filled as sroce_rkey_hold() does
 *
 * sroce_resp_rkey() for an RDMA WRITE whose later packets use the rkey
 * too: they check it with sroce_rkey_ref_ok() (IBTA 9.7.5.1.2, 10.6.7).
 * Context: the QP's responder run.
 * Return: 0, or -EACCES (counted; @ref holds nothing).
 */
int sroce_resp_rkey_hold(struct sroce_qp *qp, u32 rkey, u64 va, u64 len,
			 int access, struct sroce_rkey_ref *ref)
{
	int err = sroce_rkey_hold(qp->dev, sroce_resp_pd(qp), sroce_qpn(qp),
				  rkey, va, len, access, ref);

	if (err)
		sroce_counter_inc(qp->dev, SROCE_CNT_REMOTE_ACCESS_ERR);
	return err;
}

/**
 * sroce_resp_check_res() - is there a responder resource for a new request
 * @qp: the responder's QP
 *
 * A new READ, atomic, ATOMIC WRITE or FLUSH needs a free responder
 * resource (IBTA 9.5): none configured, or all still answering, is an
 * invalid request.
 * Context: the QP's responder run.
 * Return: SROCE_RESP_OK, SROCE_RESP_NAK_INV, or SROCE_RESP_DROP when the
 * resources are missing (the requester retries).
 */
enum sroce_resp_ret sroce_resp_check_res(struct sroce_qp *qp)
{
	struct sroce_resp *resp = to_sroce_resp(qp);

	if (!resp->attr.max_rd) {
		sroce_counter_inc(qp->dev, SROCE_CNT_REMOTE_INVALID_REQ);
		return SROCE_RESP_NAK_INV;
	}
	if (!resp->res_cap)
		return SROCE_RESP_DROP;	/* not taken up yet: retried */
	if (resp->res[resp->res_head].busy) {
		sroce_counter_inc(qp->dev, SROCE_CNT_REMOTE_INVALID_REQ);
		return SROCE_RESP_NAK_INV;
	}
	return SROCE_RESP_OK;
}

/**
 * sroce_resp_res_take() - take the resource sroce_resp_check_res() found free
 * @qp: the responder's QP
 * @type: enum sroce_resp_res_type
 * @psn: the request's PSN
 * @npsn: PSNs its response takes (READ: one per response packet)
 * @idx: the resource's index, for the response queue
 *
 * Context: the QP's responder run, after sroce_resp_check_res() said OK.
 * Return: the cleared resource, its type and PSN range set.
 */
struct sroce_resp_res *sroce_resp_res_take(struct sroce_qp *qp, u8 type,
					   u32 psn, u32 npsn, u16 *idx)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	struct sroce_resp_res *res = &resp->res[resp->res_head];

	*idx = resp->res_head;
	resp->res_head = (resp->res_head + 1) % resp->res_cap;
	memset(res, 0, sizeof(*res));
	res->type = type;
	res->first_psn = psn;
	res->last_psn = sroce_psn_add(psn, npsn - 1);
	return res;
}

/* ------------------------------------------------------------------ */
/* RC                                                                  */
/* ------------------------------------------------------------------ */

/* Run an in-sequence RC request; SEND/WRITE are acknowledged if asked. */
static enum sroce_resp_ret sroce_resp_rc_execute(struct sroce_qp *qp,
						 struct sk_buff *skb,
						 const struct sroce_pkt_info *pkt,
						 u32 len)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	enum sroce_resp_ret ret;

	if (pkt->mask & SROCE_MASK_READ)
		return sroce_resp_do_read(qp, pkt);
	if (pkt->mask & SROCE_MASK_ATOMIC)
		return sroce_resp_do_atomic(qp, pkt);
	if (pkt->mask & SROCE_MASK_ATOMIC_WRITE)
		return sroce_resp_do_awrite(qp, skb, pkt, len);
	if (pkt->mask & SROCE_MASK_FLUSH)
		return sroce_resp_do_flush(qp, pkt);
	if (pkt->mask & SROCE_MASK_SEND)
		ret = sroce_resp_do_send(qp, skb, pkt, len);
	else
		ret = sroce_resp_do_write(qp, skb, pkt, len);
	if (ret)
		return ret;
	sroce_resp_set_epsn(resp, pkt->psn + 1);
	if (pkt->mask & SROCE_MASK_START)
		resp->ack_first = pkt->psn;
	resp->ack_psn = pkt->psn;
	resp->ack_end = pkt->mask & SROCE_MASK_END;
	if (sroce_bth_ackreq(sroce_pkt_bth(pkt)) && !resp->ooo_defer)
		sroce_resp_queue_ack(qp, SROCE_AETH_ACK_UNLIMITED, pkt->psn);
	return SROCE_RESP_OK;
}

/**
 * sroce_resp_rc_in_seq() - run an RC request at the expected PSN
 * @qp: queue pair
 * @skb: the request
 * @pkt: its parsed headers
 * @len: its payload length, bytes
 *
 * Opcode sequence and access checks (IBTA 9.7.5.1), then the operation;
 * a failure becomes a NAK and the error state (sroce_resp_rc_error()).
 * Context: the QP's responder run.
 */
void sroce_resp_rc_in_seq(struct sroce_qp *qp, struct sk_buff *skb,
			  const struct sroce_pkt_info *pkt, u32 len)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	enum sroce_resp_ret ret;

	resp->nak_sent = false;
	if (!sroce_resp_xrc_get(qp, pkt) ||
	    !sroce_resp_op_seq_ok(resp, pkt->mask) ||
	    !sroce_resp_op_allowed(resp, pkt)) {
		sroce_counter_inc(qp->dev, SROCE_CNT_REMOTE_INVALID_REQ);
		ret = SROCE_RESP_NAK_INV;
	} else {
		ret = sroce_resp_rc_execute(qp, skb, pkt, len);
	}
	sroce_resp_rc_error(qp, pkt, ret);
	sroce_resp_xrc_put(qp);
}

/*
 * RC request: PSN check (ahead: held, behind: duplicate), then the
 * in-sequence steps.  Return: true when the out-of-order hold took @skb.
 */
static bool sroce_resp_rc(struct sroce_qp *qp, struct sk_buff *skb,
			  const struct sroce_pkt_info *pkt, u32 len)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	s32 diff = sroce_psn_diff(pkt->psn, resp->epsn);

	if (diff > 0)
		return sroce_resp_out_of_seq(qp, skb, diff);
	if (diff < 0) {
		sroce_resp_duplicate(qp, pkt);
		return false;
	}
	if (resp->nak_sent || !skb_queue_empty(&resp->ooo))
		sroce_resp_ooo_answer(qp, skb, pkt, len);
	else
		sroce_resp_rc_in_seq(qp, skb, pkt, len);
	return false;
}

/* ------------------------------------------------------------------ */
/* UC (IBTA 9.8)                                                       */
/* ------------------------------------------------------------------ */

/*
 * UC PSN check: after a gap the rest of the message is dropped and the
 * next FIRST/ONLY packet starts over at its own PSN (IBTA 9.8.3).
 */
static bool sroce_resp_uc_psn_ok(struct sroce_qp *qp,
				 const struct sroce_pkt_info *pkt)
{
	struct sroce_resp *resp = to_sroce_resp(qp);

	if (pkt->psn != resp->epsn) {
		sroce_counter_inc(qp->dev, SROCE_CNT_OUT_OF_SEQ_REQ);
		sroce_resp_msg_end(qp);
		resp->uc_drop = true;
	}
	sroce_resp_set_epsn(resp, pkt->psn + 1);
	if (!resp->uc_drop)
		return true;
	if (!(pkt->mask & SROCE_MASK_START))
		return false;
	resp->uc_drop = false;
	return true;
}

/* UC SEND or RDMA WRITE packet: no ACKs, errors drop the message. */
static void sroce_resp_uc(struct sroce_qp *qp, struct sk_buff *skb,
			  const struct sroce_pkt_info *pkt, u32 len)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	enum sroce_resp_ret ret;

	if (!sroce_resp_uc_psn_ok(qp, pkt))
		return;
	if (!sroce_resp_op_seq_ok(resp, pkt->mask)) {
		/* a new message ends an unfinished one (IBTA 9.8.3) */
		sroce_resp_msg_end(qp);
		if (!(pkt->mask & SROCE_MASK_START)) {
			sroce_counter_inc(qp->dev, SROCE_CNT_RX_DROP_MALFORMED);
			trace_sroce_drop(qp->dev, SROCE_CNT_RX_DROP_MALFORMED);
			resp->uc_drop = true;
			return;
		}
	}
	if (!sroce_resp_op_allowed(resp, pkt)) {
		sroce_counter_inc(qp->dev, SROCE_CNT_REMOTE_INVALID_REQ);
		ret = SROCE_RESP_NAK_INV;
	} else if (pkt->mask & SROCE_MASK_SEND) {
		ret = sroce_resp_do_send(qp, skb, pkt, len);
	} else {
		ret = sroce_resp_do_write(qp, skb, pkt, len);
	}
	sroce_resp_unrel_error(qp, ret);
}

/* ------------------------------------------------------------------ */
/* Entry points                                                        */
/* ------------------------------------------------------------------ */

/**
 * sroce_resp_init() - set up the responder state of a new QP
 * @qp: queue pair being created, not yet published
 *
 * Context: process (create_qp).  Nothing is allocated here; responder
 * resources come with max_dest_rd_atomic (sroce_resp_res_alloc(), IBTA
 * 9.5).
 */
void sroce_resp_init(struct sroce_qp *qp)
{
	struct sroce_resp *resp = to_sroce_resp(qp);

	memset(resp, 0, sizeof(*resp));
	resp->tx_batch_segs = SROCE_NET_BATCH_SEGS;
	INIT_LIST_HEAD(&resp->out);
	__skb_queue_head_init(&resp->ooo);
}

/**
 * sroce_resp_modify() - note a QP attribute change for the responder
 * @qp: queue pair; qp->attr and qp->state already hold the new values
 * @mask: IB_QP_* attributes that were modified
 * @old_state: state before the change
 *
 * Records the expected PSN given with IB_QP_RQ_PSN (IBTA 9.7.4.1.1,
 * 10.3.1: INIT to RTR) and a move to RESET; the QP's work applies them
 * before it handles the next packet (or in sroce_resp_run()), so
 * responder state is only ever touched by the responder's run.
 *
 * Context: qp->state_lock held (any context).
 */
void sroce_resp_modify(struct sroce_qp *qp, int mask,
		       enum ib_qp_state old_state)
{
	struct sroce_resp *resp = to_sroce_resp(qp);

	lockdep_assert_held(&qp->state_lock);
	if (qp->state == IB_QPS_RESET) {
		resp->pend_reset = true;
		resp->pend_psn = false;
	} else if (mask & IB_QP_RQ_PSN) {
		resp->pend_psn = true;
		resp->pend_psn_val = qp->attr.rq_psn & SROCE_PSN_MASK;
	}
}

/**
 * sroce_resp_rcv() - handle one request packet for this QP
 * @qp: destination queue pair
 * @skb: validated request packet (SROCE_PKT(skb) filled: headers, ICRC,
 *	QPN and transport already checked by RX); consumed here
 *
 * Accepts packets in RTR, RTS, SQD and SQE (IBTA 10.3.1), else drops them
 * (SROCE_CNT_RX_DROP_STATE).  RC requests go through the PSN check
 * (9.7.4.1, 9.7.5.1.1-3), opcode sequence (9.7.4.1.4), length and key
 * checks (9.7.5.1.2, 9.7.5.1.4) and execute SEND/WRITE/READ/atomics with
 * ACK/NAK/RNR NAK responses (9.7.5.2); UC (9.8.3) and UD/GSI (9.8.4)
 * requests are placed without responses.  A few queued response packets
 * are sent at once; sroce_resp_run() sends the rest.
 *
 * Context: a data path run of the QP (SROCE_DP_RESP_RUNNING owned), process or
 * softirq; does not sleep.
 */
void sroce_resp_rcv(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_pkt_info *pkt = SROCE_PKT(skb);
	struct sroce_resp *resp = to_sroce_resp(qp);
	s64 len;

	sroce_dp_assert_resp_run(qp);
	sroce_resp_sync(qp);
	if (!sroce_resp_state_rx(resp) || resp->failed) {
		sroce_counter_inc(qp->dev, SROCE_CNT_RX_DROP_STATE);
		trace_sroce_drop(qp->dev, SROCE_CNT_RX_DROP_STATE);
		goto drop;
	}
	len = sroce_pkt_payload_len(skb, pkt);
	if (len < 0 || !(pkt->mask & SROCE_MASK_REQ)) {
		sroce_counter_inc(qp->dev, SROCE_CNT_RX_DROP_MALFORMED);
		trace_sroce_drop(qp->dev, SROCE_CNT_RX_DROP_MALFORMED);
		goto drop;
	}
	resp->wc_err = 0;
	if (sroce_qpt_reliable(qp->type)) {
		if (sroce_resp_rc(qp, skb, pkt, len))
			skb = NULL;	/* held */
	} else if (qp->type == IB_QPT_UC) {
		sroce_resp_uc(qp, skb, pkt, len);
	} else {
		sroce_resp_ud(qp, skb, pkt, len);
	}
	sroce_resp_push(qp, SROCE_RESP_INLINE_BUDGET);
	consume_skb(skb);	/* NULL when held */
	return;
drop:
	kfree_skb(skb);
}

/**
 * sroce_resp_run() - send queued responses
 * @qp: queue pair
 *
 * Sends up to a budget of RDMA READ response packets, atomic ACKs and
 * ACK/NAKs in request order (IBTA 9.7.5.1.6: a 1 MiB+ read goes out over
 * several calls).  A packet the network pushes back (-EAGAIN from
 * sroce_net_xmit()) is rebuilt and sent on a later call, nothing is lost.
 * Outside RTR/RTS/SQD/SQE the queue is dropped.  Also applies a pending
 * move to RESET, releasing held MRs: call it whenever the work runs.
 *
 * Context: a data path run of the QP (SROCE_DP_RESP_RUNNING owned); does not
 * sleep.
 * Return: true while responses remain to be sent; then @tx_blocked in
 * struct sroce_resp tells whether the network pushed back.
 */
bool sroce_resp_run(struct sroce_qp *qp)
{
	struct sroce_resp *resp = to_sroce_resp(qp);

	sroce_dp_assert_resp_run(qp);
	sroce_resp_sync(qp);
	resp->tx_blocked = false;
	if (list_empty(&resp->out))
		return false;
	if (!sroce_resp_state_rx(resp) || resp->failed) {
		sroce_resp_out_clear(qp);
		return false;
	}
	return sroce_resp_push(qp, SROCE_RESP_RUN_BUDGET);
}

/**
 * sroce_resp_send_owed() - send the ACK still owed, the QP being destroyed
 * @qp: queue pair being destroyed
 *
 * Requests that asked for an ACK ran after a gap filler that did not
 * (sroce_resp_ooo_answer()); the requester's resend would have been
 * answered, but will find no QP.  While the QP still takes requests the
 * ACK goes out now (IBTA 9.7.5.1.1: a request with AckReq is
 * acknowledged), so the peer's WQE completes.
 *
 * Context: the responder's last run (sroce_dp_stop()), BH disabled.
 */
void sroce_resp_send_owed(struct sroce_qp *qp)
{
	struct sroce_resp *resp = to_sroce_resp(qp);

	if (!resp->ack_owed || resp->failed ||
	    !(sroce_qp_state_caps_of(READ_ONCE(qp->state)) & SROCE_QPS_RX_REQ))
		return;
	resp->ack_owed = false;
	sroce_resp_xmit_ack(qp, IB_OPCODE_RC_ACKNOWLEDGE,
			    SROCE_AETH_ACK_UNLIMITED, resp->ack_psn, resp->msn,
			    0);
}

/**
 * sroce_resp_stop() - release the responder's resources
 * @qp: queue pair being destroyed; its work no longer runs
 *
 * Drops held MR references (RDMA WRITE in progress, READ response
 * stream, receive SGE cursor), queued responses and the responder
 * resources.
 *
 * Context: process (destroy_qp), after the work was cancelled.
 */
void sroce_resp_stop(struct sroce_qp *qp)
{
	struct sroce_resp *resp = to_sroce_resp(qp);

	sroce_resp_reset(qp);
	kfree(resp->res);
	resp->res = NULL;
	resp->res_cap = 0;
	kfree(resp->pend_res);
	resp->pend_res = NULL;
}
