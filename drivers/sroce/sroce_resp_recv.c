// SPDX-License-Identifier: GPL-2.0
/*
 * The responder's requests that place data: SEND (RC, UC, UD and GSI,
 * IBTA vol. 1 9.4.1, 9.8.4) into the buffers of a receive WQE and RDMA
 * WRITE (9.4.3) into the MR its RETH names, with their length checks
 * (9.7.5.1.4); the receive WQEs they take from the QP's RQ or SRQ, or
 * from the XRC SRQ a request names (annex A14), their receive completions
 * (10.8.3), and the flush of the receive queue in the error state
 * (10.3.1, 11.4.2.1, 11.6.3.4).
 *
 * Context: the responder run of the QP, as sroce_resp.c.
 */

#include <linux/ip.h>
#include <linux/ipv6.h>

#include "sroce.h"
#include "sroce_mr.h"
#include "sroce_qp.h"
#include "sroce_queue.h"
#include "sroce_trace.h"

/* Bytes of the GRH area at the start of a UD receive buffer. */
#define SROCE_GRH_SIZE			40

typedef int (*sroce_resp_chunk_fn)(struct sroce_qp *qp, void *buf, u32 len);

/*
 * Feed @len payload bytes at @off to @fn straight from the skb: the linear
 * part in place, page fragments through skb_seq_read()'s mappings.
 */
static int sroce_resp_walk(struct sroce_qp *qp, struct sk_buff *skb, u32 off,
			   u32 len, sroce_resp_chunk_fn fn)
{
	struct skb_seq_state st;
	u32 done = 0, n;
	const u8 *data;
	int err = 0;

	if (likely(off + len <= skb_headlen(skb)))
		return fn(qp, skb->data + off, len);

	skb_prepare_seq_read(skb, off, off + len, &st);
	while (done < len) {
		n = skb_seq_read(done, &data, &st);
		if (!n) {
			err = -EFAULT;
			break;
		}
		n = min(n, len - done);
		err = fn(qp, (void *)data, n);
		if (err)
			break;
		done += n;
	}
	skb_abort_seq_read(&st);
	return err;
}

/* ------------------------------------------------------------------ */
/* XRC (IBTA vol. 1 annex A14)                                         */
/* ------------------------------------------------------------------ */

/*
 * An XRC TGT QP has no PD, receive queue or CQ of its own: each request
 * names, in its XRCETH, an XRC SRQ of the QP's XRC domain, whose PD the
 * memory checks use, whose ring the receive WQE comes from and whose CQ
 * takes the completion.  The SRQ is looked up for each request and held
 * for that request only (resp->xsrq), so destroying it waits for one
 * request at most, never for a peer.  A message is tied to the number its
 * first packet names (msg->xsrqn): every later packet must name the same
 * SRQ, so a WRITE's data and the WQE its immediate takes come from one
 * domain object, and so does a WQE a SEND took (kept across a dropped
 * message too).  A completion outside a request (an error, a flush) looks
 * the SRQ up again; if it is gone, the WQE went with it.
 */

/* The SRQ a request takes its receive WQE from. */
static struct sroce_srq *sroce_resp_srq(struct sroce_qp *qp)
{
	return qp->type == IB_QPT_XRC_TGT ? to_sroce_resp(qp)->xsrq : qp->srq;
}

/**
 * sroce_resp_pd() - the PD a request's memory accesses are checked in
 * @qp: the responder's QP
 *
 * An XRC TGT QP's is the PD of the SRQ its request names.
 * Context: the QP's responder run.
 * Return: the PD, or NULL on an XRC TGT QP without the request's SRQ.
 */
struct sroce_pd *sroce_resp_pd(struct sroce_qp *qp)
{
	struct sroce_srq *x = to_sroce_resp(qp)->xsrq;

	if (qp->type != IB_QPT_XRC_TGT)
		return qp->pd;
	return x ? to_sroce_pd(x->ibsrq.pd) : NULL;
}

/* The CQ receive completions go to. */
static struct sroce_cq *sroce_resp_rcq(struct sroce_qp *qp)
{
	struct sroce_srq *x = to_sroce_resp(qp)->xsrq;

	if (qp->type != IB_QPT_XRC_TGT)
		return qp->rcq;
	return x ? to_sroce_cq(x->ibsrq.ext.cq) : NULL;
}

/**
 * sroce_resp_xrc_get() - look up the XRC SRQ a request names
 * @qp: the responder's QP
 * @pkt: the request
 *
 * XRC TGT QP: look up the SRQ @pkt names, in the QP's domain, and keep it
 * with a reference in resp->xsrq until sroce_resp_xrc_put().
 * Context: the QP's responder run.
 * Return: true when the request may go on (also on any other QP type);
 * false for an SRQ that does not exist, is another domain's, or is not
 * the one the message in progress (or its held WQE) named: an invalid
 * request.
 */
bool sroce_resp_xrc_get(struct sroce_qp *qp,
			const struct sroce_pkt_info *pkt)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	const struct sroce_xrceth *x;
	u32 srqn;

	if (qp->type != IB_QPT_XRC_TGT)
		return true;
	x = sroce_pkt_hdr(pkt, SROCE_HDR_XRCETH);
	srqn = be32_to_cpu(x->srqn) & SROCE_SRQN_MASK;
	if (resp->msg.srq_held || resp->msg.op != SROCE_MSG_NONE) {
		if (srqn != resp->msg.xsrqn)
			return false;
	} else {
		resp->msg.xsrqn = srqn;
	}
	resp->xsrq = sroce_srq_lookup_xrc(qp->dev, srqn, qp->ibqp.xrcd);
	return resp->xsrq;
}

/**
 * sroce_resp_xrc_put() - drop the XRC SRQ of a request
 * @qp: the responder's QP
 *
 * Drop the reference sroce_resp_xrc_get() or _xrc_msg() took.
 * Context: the QP's responder run.
 */
void sroce_resp_xrc_put(struct sroce_qp *qp)
{
	struct sroce_resp *resp = to_sroce_resp(qp);

	if (resp->xsrq)
		sroce_srq_put(resp->xsrq);
	resp->xsrq = NULL;
}

/* Outside a request: the SRQ of the held WQE, for its completion. */
static void sroce_resp_xrc_msg(struct sroce_qp *qp)
{
	struct sroce_resp *resp = to_sroce_resp(qp);

	if (qp->type == IB_QPT_XRC_TGT && !resp->xsrq)
		resp->xsrq = sroce_srq_lookup_xrc(qp->dev, resp->msg.xsrqn,
						  qp->ibqp.xrcd);
}

/**
 * sroce_resp_xrc_pd() - the PD an XRC READ's responses are checked in
 * @qp: XRC TGT QP
 * @xsrqn: the XRC SRQ the READ request named
 * @srq: set to that SRQ, with a reference to drop with sroce_srq_put()
 *	once the PD is no longer used; NULL when it is gone
 *
 * Context: a responder run of the QP.
 * Return: the SRQ's PD, or NULL.
 */
struct sroce_pd *sroce_resp_xrc_pd(struct sroce_qp *qp, u32 xsrqn,
				   struct sroce_srq **srq)
{
	*srq = sroce_srq_lookup_xrc(qp->dev, xsrqn, qp->ibqp.xrcd);
	return *srq ? to_sroce_pd((*srq)->ibsrq.pd) : NULL;
}

/* ------------------------------------------------------------------ */
/* Receive WQEs and completions                                        */
/* ------------------------------------------------------------------ */

/**
 * sroce_resp_msg_end() - end the message in progress
 * @qp: the responder's QP
 *
 * Releases the SGE cursor of its receive WQE and the MR an RDMA WRITE
 * held, and forgets the message.  The WQE itself stays: in the RQ ring,
 * or held from the SRQ (@msg.srq_held).
 * Context: the QP's responder run.
 */
void sroce_resp_msg_end(struct sroce_qp *qp)
{
	struct sroce_resp_msg *msg = &to_sroce_resp(qp)->msg;

	if (msg->have_wqe)
		sroce_sge_cursor_release(&msg->cur);
	sroce_rkey_release(&msg->rk);
	msg->have_wqe = false;
	msg->op = SROCE_MSG_NONE;
	msg->len = 0;
	msg->resid = 0;
}

/* The provider broke the RQ ring: flag it; the QP goes to error. */
static void sroce_resp_rq_hostile(struct sroce_qp *qp)
{
	struct sroce_queue_hdr *hdr = qp->rq.hdr;

	WRITE_ONCE(hdr->flags, READ_ONCE(hdr->flags) | SROCE_QUEUE_F_ERROR);
	sroce_counter_inc(qp->dev, SROCE_CNT_LOCAL_ACCESS_ERR);
}

/*
 * The one place that chooses where a receive WQE comes from: the QP's RQ
 * (copied, consumed when its message completes, IBTA 10.8.3) or its SRQ
 * (copied and consumed at once, since other QPs take from it too, and
 * held in @msg until its message completes).  Both copy the slot once and
 * check the copy in sroce_queue_fetch_recv().
 * Return: as sroce_queue_fetch_recv().
 */
static int sroce_resp_fetch_wqe(struct sroce_qp *qp,
				struct sroce_resp_msg *msg)
{
	struct sroce_srq *srq = sroce_resp_srq(qp);
	int n;

	if (!srq)
		return qp->rq.hdr ? sroce_queue_fetch_recv(&qp->rq, &msg->wqe) : 0;
	if (msg->srq_held)
		return 1;
	n = sroce_srq_take(srq, &msg->wqe);
	if (n > 0 || n == -EBADMSG) {
		msg->srq_held = true;
		msg->xsrqn = srq->srqn;
	}
	return n;
}

/*
 * Take the receive WQE for the message that starts: a private, checked
 * copy in @msg->wqe.
 */
static enum sroce_resp_ret sroce_resp_take_wqe(struct sroce_qp *qp)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	struct sroce_resp_msg *msg = &resp->msg;
	int n;

	if (msg->have_wqe)
		return SROCE_RESP_OK;
	if (!sroce_resp_rcq(qp))
		return SROCE_RESP_RNR;
	n = sroce_resp_fetch_wqe(qp, msg);
	if (n == -EIO) {
		/* the provider broke the ring; the QP goes to error */
		sroce_counter_inc(qp->dev, SROCE_CNT_LOCAL_ACCESS_ERR);
		return SROCE_RESP_NAK_OP;
	}
	if (!n)
		return SROCE_RESP_RNR;
	msg->have_wqe = true;
	if (n == -EBADMSG) {
		sroce_sge_cursor_init(&msg->cur, msg->wqe.sge, 0);
		sroce_counter_inc(qp->dev, SROCE_CNT_LOCAL_ACCESS_ERR);
		resp->wc_err = IB_WC_LOC_QP_OP_ERR;
		return SROCE_RESP_NAK_OP;
	}
	sroce_sge_cursor_init(&msg->cur, msg->wqe.sge, msg->wqe.num_sge);
	return SROCE_RESP_OK;
}

static void sroce_resp_cqe_init(struct sroce_qp *qp, struct sroce_cqe *cqe,
				enum ib_wc_status status)
{
	memset(cqe, 0, sizeof(*cqe));
	cqe->wr_id = to_sroce_resp(qp)->msg.wqe.wr_id;
	cqe->status = status;
	cqe->opcode = IB_WC_RECV;
	cqe->qp_num = sroce_qpn(qp);
}

/*
 * Consume the RQ slot of the current WQE (or release the SRQ WQE held),
 * end the message and post @cqe (IBTA 10.8.3); nothing to post to when
 * the XRC SRQ of the WQE is gone.  Return: 0, or -ENOSPC when the CQ
 * overflowed.
 */
static int sroce_resp_post(struct sroce_qp *qp, const struct sroce_cqe *cqe,
			   bool solicited)
{
	struct sroce_resp_msg *msg = &to_sroce_resp(qp)->msg;
	struct sroce_cq *cq = sroce_resp_rcq(qp);

	/* an SRQ's WQE left its ring when it was taken */
	if (msg->srq_held)
		msg->srq_held = false;
	else
		sroce_queue_consume(&qp->rq, 1);
	sroce_resp_msg_end(qp);
	if (!cq)
		return 0;
	return sroce_cq_post(cq, cqe, solicited) == -ENOSPC ? -ENOSPC : 0;
}

/*
 * The last packet of a message that takes a receive WQE arrived: post its
 * CQE, solicited when the packet's BTH asks for it (IBTA 10.7.2.2).
 */
static enum sroce_resp_ret sroce_resp_done(struct sroce_qp *qp,
					   const struct sroce_cqe *cqe,
					   const struct sroce_pkt_info *pkt)
{
	if (sroce_resp_post(qp, cqe, sroce_bth_se(sroce_pkt_bth(pkt))))
		return SROCE_RESP_NAK_OP;
	return SROCE_RESP_OK;
}

/**
 * sroce_resp_complete_err() - complete the WQE in progress with an error
 * @qp: the responder's QP
 * @status: the completion's status
 *
 * Complete the WQE of the current message, if any, with an error.
 * Context: the QP's responder run.
 */
void sroce_resp_complete_err(struct sroce_qp *qp,
			     enum ib_wc_status status)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	struct sroce_srq *held = resp->xsrq;
	struct sroce_cqe cqe;

	if (!resp->msg.have_wqe)
		return;
	sroce_resp_xrc_msg(qp);
	sroce_resp_cqe_init(qp, &cqe, status);
	sroce_resp_post(qp, &cqe, true);
	if (!held)
		sroce_resp_xrc_put(qp);
}

/* ------------------------------------------------------------------ */
/* Length checks                                                       */
/* ------------------------------------------------------------------ */

/*
 * Payload length of a SEND packet (IBTA 9.7.5.1.4): FIRST/MIDDLE carry
 * exactly one path MTU and no pad, LAST 1..MTU bytes, ONLY 0..MTU.
 */
static bool sroce_resp_send_len_ok(const struct sroce_resp *resp,
				   const struct sroce_pkt_info *pkt, u32 len)
{
	if (!(pkt->mask & SROCE_MASK_END))
		return len == resp->attr.mtu &&
		       !sroce_bth_pad(sroce_pkt_bth(pkt));
	if (len > resp->attr.mtu)
		return false;
	return len || (pkt->mask & SROCE_MASK_START);
}

/*
 * Payload length of an RDMA WRITE packet against what the RETH announced
 * (IBTA 9.7.5.1.4): FIRST/MIDDLE one MTU with more to come, LAST/ONLY
 * exactly the rest.
 */
static bool sroce_resp_write_len_ok(const struct sroce_resp *resp,
				    const struct sroce_pkt_info *pkt, u32 len)
{
	if (!(pkt->mask & SROCE_MASK_END))
		return len == resp->attr.mtu && len < resp->msg.resid &&
		       !sroce_bth_pad(sroce_pkt_bth(pkt));
	return len == resp->msg.resid;
}

/* ------------------------------------------------------------------ */
/* SEND                                                                */
/* ------------------------------------------------------------------ */

static int sroce_resp_chunk_sge(struct sroce_qp *qp, void *buf, u32 len)
{
	return sroce_sge_copy(qp->dev, sroce_resp_pd(qp),
			      &to_sroce_resp(qp)->msg.cur, buf, len, SROCE_TO_MR);
}

/*
 * Map a failed scatter (IBTA 9.7.5.1.4, 10.8.3.1): a list too short is a
 * length error (RC: NAK invalid request; UC/UD: the message is dropped),
 * a bad lkey a protection error (RC: NAK remote operational error).
 */
static enum sroce_resp_ret sroce_resp_sge_err(struct sroce_qp *qp, int err)
{
	struct sroce_resp *resp = to_sroce_resp(qp);

	if (err == -EINVAL) {
		resp->wc_err = IB_WC_LOC_LEN_ERR;
		sroce_counter_inc(qp->dev, sroce_qpt_reliable(qp->type) ?
				  SROCE_CNT_REMOTE_INVALID_REQ :
				  SROCE_CNT_RX_DROP_MALFORMED);
		return SROCE_RESP_NAK_INV;
	}
	resp->wc_err = IB_WC_LOC_PROT_ERR;
	sroce_counter_inc(qp->dev, SROCE_CNT_LOCAL_ACCESS_ERR);
	return SROCE_RESP_NAK_OP;
}

/* Scatter @len payload bytes at @off into the receive WQE. */
static enum sroce_resp_ret sroce_resp_scatter(struct sroce_qp *qp,
					      struct sk_buff *skb, u32 off,
					      u32 len)
{
	int err = 0;

	if (len)
		err = sroce_resp_walk(qp, skb, off, len, sroce_resp_chunk_sge);
	if (err)
		return sroce_resp_sge_err(qp, err);
	to_sroce_resp(qp)->msg.len += len;
	return SROCE_RESP_OK;
}

/*
 * SEND with Invalidate: invalidate the MR or type 2B window named by the
 * IETH R_Key if a peer may (sroce_rkey_invalidate(), IBTA 9.4.1.1,
 * 10.6.7); else NAK invalid request and leave it alone.
 */
static enum sroce_resp_ret sroce_resp_invalidate(struct sroce_qp *qp, u32 rkey)
{
	if (!sroce_rkey_invalidate(qp->dev, sroce_resp_pd(qp), sroce_qpn(qp),
				   rkey))
		return SROCE_RESP_OK;
	sroce_counter_inc(qp->dev, SROCE_CNT_REMOTE_INVALID_REQ);
	to_sroce_resp(qp)->wc_err = IB_WC_REM_INV_REQ_ERR;
	return SROCE_RESP_NAK_INV;
}

/* Last packet of a SEND: invalidate, complete the WQE, count the MSN. */
static enum sroce_resp_ret sroce_resp_send_done(struct sroce_qp *qp,
						const struct sroce_pkt_info *pkt)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	struct sroce_cqe cqe;
	u32 rkey = 0;

	if (pkt->mask & SROCE_MASK_INV) {
		struct sroce_ieth *ieth = sroce_pkt_hdr(pkt, SROCE_HDR_IETH);
		enum sroce_resp_ret ret;

		rkey = be32_to_cpu(ieth->rkey);
		ret = sroce_resp_invalidate(qp, rkey);
		if (ret)
			return ret;
	}
	sroce_resp_cqe_init(qp, &cqe, IB_WC_SUCCESS);
	cqe.byte_len = resp->msg.len;
	if (pkt->mask & SROCE_MASK_IMMDT) {
		cqe.wc_flags |= SROCE_WC_F_WITH_IMM;
		cqe.ex.imm_data = ((struct sroce_immdt *)
				   sroce_pkt_hdr(pkt, SROCE_HDR_IMMDT))->imm;
	} else if (pkt->mask & SROCE_MASK_INV) {
		cqe.wc_flags |= SROCE_WC_F_WITH_INV;
		cqe.ex.invalidated_rkey = rkey;
	}
	resp->msn = (resp->msn + 1) & SROCE_MSN_MASK;
	return sroce_resp_done(qp, &cqe, pkt);
}

/**
 * sroce_resp_do_send() - execute a SEND packet
 * @qp: the responder's QP
 * @skb: the request packet
 * @pkt: the request
 * @len: its payload bytes
 *
 * SEND FIRST/MIDDLE/LAST/ONLY on RC or UC (IBTA 9.4.1, 9.7.5.1.4).
 * Context: the QP's responder run.
 * Return: SROCE_RESP_OK or the failure's enum sroce_resp_ret.
 */
enum sroce_resp_ret sroce_resp_do_send(struct sroce_qp *qp,
				       struct sk_buff *skb,
				       const struct sroce_pkt_info *pkt,
				       u32 len)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	enum sroce_resp_ret ret;

	if (!sroce_resp_send_len_ok(resp, pkt, len)) {
		sroce_counter_inc(qp->dev, SROCE_CNT_REMOTE_INVALID_REQ);
		return SROCE_RESP_NAK_INV;
	}
	if (pkt->mask & SROCE_MASK_START) {
		ret = sroce_resp_take_wqe(qp);
		if (ret)
			return ret;
		resp->msg.op = SROCE_MSG_SEND;
		resp->msg.len = 0;
	}
	ret = sroce_resp_scatter(qp, skb, sroce_resp_payload_off(skb, pkt),
				 len);
	if (ret || !(pkt->mask & SROCE_MASK_END))
		return ret;
	return sroce_resp_send_done(qp, pkt);
}

/* ------------------------------------------------------------------ */
/* RDMA WRITE                                                          */
/* ------------------------------------------------------------------ */

/*
 * FIRST/ONLY: check the RETH for the whole message and keep its R_Key
 * (the MR, a window's binding) until the last packet, each packet checking
 * it again (IBTA 9.7.5.1.2).  A zero length write needs no valid R_Key.
 */
static enum sroce_resp_ret sroce_resp_write_start(struct sroce_qp *qp,
						  const struct sroce_pkt_info *pkt)
{
	struct sroce_reth *reth = sroce_pkt_hdr(pkt, SROCE_HDR_RETH);
	struct sroce_resp_msg *msg = &to_sroce_resp(qp)->msg;
	u32 len = be32_to_cpu(reth->len);
	u64 va = be64_to_cpu(reth->va);

	if (len > SROCE_MAX_MSG_SIZE) {
		sroce_counter_inc(qp->dev, SROCE_CNT_REMOTE_INVALID_REQ);
		return SROCE_RESP_NAK_INV;
	}
	if (len && sroce_resp_rkey_hold(qp, be32_to_cpu(reth->rkey), va, len,
					IB_ACCESS_REMOTE_WRITE, &msg->rk))
		return SROCE_RESP_NAK_ACC;
	msg->op = SROCE_MSG_WRITE;
	msg->va = va;
	msg->resid = len;
	msg->len = len;
	return SROCE_RESP_OK;
}

/*
 * Return: 0, or -EACCES when the MR was deregistered or invalidated, or
 * the window's binding ended.
 */
static int sroce_resp_chunk_mr(struct sroce_qp *qp, void *buf, u32 len)
{
	struct sroce_resp_msg *msg = &to_sroce_resp(qp)->msg;

	if (!sroce_rkey_ref_ok(&msg->rk) ||
	    sroce_mr_copy(msg->rk.mr, msg->va, buf, len, SROCE_TO_MR))
		return -EACCES;
	msg->va += len;
	msg->resid -= len;
	return 0;
}

/*
 * Copy one WRITE packet's payload into the MR kept since FIRST.  The MR
 * range was checked; the copy fails when the MR was deregistered or
 * invalidated since, or the binding of the window the R_Key names ended
 * (remote access error, IBTA 9.7.5.1.2, 10.6.7: nothing is written), the
 * walk on a packet shorter than its headers say (a length error like a
 * payload that does not match the RETH, IBTA 9.7.5.1.4).
 */
static enum sroce_resp_ret sroce_resp_write_data(struct sroce_qp *qp,
						 struct sk_buff *skb,
						 const struct sroce_pkt_info *pkt,
						 u32 len)
{
	int err;

	if (!len)
		return SROCE_RESP_OK;
	err = sroce_resp_walk(qp, skb, sroce_resp_payload_off(skb, pkt), len,
			      sroce_resp_chunk_mr);
	if (err == -EACCES) {
		sroce_counter_inc(qp->dev, SROCE_CNT_REMOTE_ACCESS_ERR);
		return SROCE_RESP_NAK_ACC;
	}
	if (err) {
		sroce_counter_inc(qp->dev, SROCE_CNT_REMOTE_INVALID_REQ);
		return SROCE_RESP_NAK_INV;
	}
	return SROCE_RESP_OK;
}

/* WRITE with immediate: complete a receive WQE (IBTA 9.4.3, 10.8.3.1). */
static enum sroce_resp_ret sroce_resp_write_imm_done(struct sroce_qp *qp,
						     const struct sroce_pkt_info *pkt)
{
	struct sroce_immdt *immdt = sroce_pkt_hdr(pkt, SROCE_HDR_IMMDT);
	struct sroce_cqe cqe;

	sroce_resp_cqe_init(qp, &cqe, IB_WC_SUCCESS);
	cqe.opcode = IB_WC_RECV_RDMA_WITH_IMM;
	cqe.byte_len = to_sroce_resp(qp)->msg.len;
	cqe.wc_flags = SROCE_WC_F_WITH_IMM;
	cqe.ex.imm_data = immdt->imm;
	return sroce_resp_done(qp, &cqe, pkt);
}

/**
 * sroce_resp_do_write() - execute an RDMA WRITE packet
 * @qp: the responder's QP
 * @skb: the request packet
 * @pkt: the request
 * @len: its payload bytes
 *
 * RDMA WRITE FIRST/MIDDLE/LAST/ONLY (+IMM) on RC or UC (IBTA 9.4.3).
 * Context: the QP's responder run.
 * Return: SROCE_RESP_OK or the failure's enum sroce_resp_ret.
 */
enum sroce_resp_ret sroce_resp_do_write(struct sroce_qp *qp,
					struct sk_buff *skb,
					const struct sroce_pkt_info *pkt,
					u32 len)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	bool imm = pkt->mask & SROCE_MASK_IMMDT;
	enum sroce_resp_ret ret;

	if (pkt->mask & SROCE_MASK_START) {
		ret = sroce_resp_write_start(qp, pkt);
		if (ret)
			return ret;
	}
	if (!sroce_resp_write_len_ok(resp, pkt, len)) {
		sroce_counter_inc(qp->dev, SROCE_CNT_REMOTE_INVALID_REQ);
		return SROCE_RESP_NAK_INV;
	}
	if (imm) {
		ret = sroce_resp_take_wqe(qp);
		if (ret)
			return ret;
	}
	ret = sroce_resp_write_data(qp, skb, pkt, len);
	if (ret || !(pkt->mask & SROCE_MASK_END))
		return ret;
	resp->msn = (resp->msn + 1) & SROCE_MSN_MASK;
	if (imm)
		return sroce_resp_write_imm_done(qp, pkt);
	sroce_resp_msg_end(qp);
	return SROCE_RESP_OK;
}

/* ------------------------------------------------------------------ */
/* UD and GSI (IBTA 9.8.4, 11.4.1.2)                                   */
/* ------------------------------------------------------------------ */

/* Q_Key check: the GSI QP's is fixed (IBTA 9.6.1.1, C9-49). */
static bool sroce_resp_qkey_ok(struct sroce_qp *qp,
			       const struct sroce_pkt_info *pkt)
{
	struct sroce_deth *deth = sroce_pkt_hdr(pkt, SROCE_HDR_DETH);
	u32 want = qp->type == IB_QPT_GSI ? SROCE_GSI_QKEY :
					     to_sroce_resp(qp)->attr.qkey;

	return be32_to_cpu(deth->qkey) == want;
}

/*
 * The 40-byte GRH area at the start of a UD receive buffer: the IPv6
 * header, or 20 zero bytes and the IPv4 header (as the core expects,
 * ib_get_rdma_header_version()).
 */
static enum sroce_resp_ret sroce_resp_ud_grh(struct sroce_qp *qp,
					     struct sk_buff *skb,
					     const struct sroce_pkt_info *pkt)
{
	u8 grh[SROCE_GRH_SIZE];
	int err;

	if (pkt->network_type == RDMA_NETWORK_IPV4) {
		memset(grh, 0, SROCE_GRH_SIZE - sizeof(struct iphdr));
		memcpy(grh + SROCE_GRH_SIZE - sizeof(struct iphdr), ip_hdr(skb),
		       sizeof(struct iphdr));
	} else {
		memcpy(grh, ipv6_hdr(skb), sizeof(struct ipv6hdr));
	}
	err = sroce_resp_chunk_sge(qp, grh, SROCE_GRH_SIZE);
	if (err)
		return sroce_resp_sge_err(qp, err);
	to_sroce_resp(qp)->msg.len = SROCE_GRH_SIZE;
	return SROCE_RESP_OK;
}

/* Post the receive completion of a UD message. */
static enum sroce_resp_ret sroce_resp_ud_done(struct sroce_qp *qp,
					      const struct sroce_pkt_info *pkt,
					      u32 len)
{
	struct sroce_deth *deth = sroce_pkt_hdr(pkt, SROCE_HDR_DETH);
	struct sroce_cqe cqe;

	/* the provider reads network_hdr_type as SROCE_NETWORK_* */
	BUILD_BUG_ON(RDMA_NETWORK_IPV4 != SROCE_NETWORK_IPV4);
	BUILD_BUG_ON(RDMA_NETWORK_IPV6 != SROCE_NETWORK_IPV6);
	sroce_resp_cqe_init(qp, &cqe, IB_WC_SUCCESS);
	cqe.byte_len = to_sroce_resp(qp)->msg.len;
	cqe.src_qp = be32_to_cpu(deth->sqp) & SROCE_QPN_MASK;
	cqe.wc_flags = SROCE_WC_F_GRH;
	cqe.network_hdr_type = pkt->network_type;
	if (pkt->mask & SROCE_MASK_IMMDT) {
		cqe.wc_flags |= SROCE_WC_F_WITH_IMM;
		cqe.ex.imm_data = ((struct sroce_immdt *)
				   sroce_pkt_hdr(pkt, SROCE_HDR_IMMDT))->imm;
	}
	return sroce_resp_done(qp, &cqe, pkt);
}

/**
 * sroce_resp_ud() - handle a UD or GSI request packet
 * @qp: the responder's QP
 * @skb: the request packet
 * @pkt: the request
 * @len: its payload bytes
 *
 * UD SEND ONLY (+IMM): Q_Key, then a receive WQE (none: silent drop),
 * GRH area and payload; a buffer too small drops the datagram and keeps
 * the WQE.
 * Context: the QP's responder run.
 */
void sroce_resp_ud(struct sroce_qp *qp, struct sk_buff *skb,
		   const struct sroce_pkt_info *pkt, u32 len)
{
	enum sroce_resp_ret ret;

	if (!sroce_resp_qkey_ok(qp, pkt)) {
		sroce_counter_inc(qp->dev, SROCE_CNT_RX_DROP_QKEY);
		trace_sroce_drop(qp->dev, SROCE_CNT_RX_DROP_QKEY);
		return;
	}
	if ((pkt->mask & (SROCE_MASK_START | SROCE_MASK_END)) !=
	    (SROCE_MASK_START | SROCE_MASK_END)) {
		sroce_counter_inc(qp->dev, SROCE_CNT_RX_DROP_MALFORMED);
		trace_sroce_drop(qp->dev, SROCE_CNT_RX_DROP_MALFORMED);
		return;
	}
	ret = sroce_resp_take_wqe(qp);
	if (!ret)
		ret = sroce_resp_ud_grh(qp, skb, pkt);
	if (!ret)
		ret = sroce_resp_scatter(qp, skb,
					 sroce_resp_payload_off(skb, pkt), len);
	if (!ret)
		ret = sroce_resp_ud_done(qp, pkt, len);
	sroce_resp_unrel_error(qp, ret);
	to_sroce_resp(qp)->uc_drop = false;
}

/* ------------------------------------------------------------------ */
/* Flush (error state)                                                 */
/* ------------------------------------------------------------------ */

/*
 * Flush of a QP attached to an SRQ: the WQEs still on the SRQ belong to
 * the other QPs and stay; only the WQE this QP took and did not complete
 * is flushed.  Then IB_EVENT_QP_LAST_WQE_REACHED (IBTA 11.6.3.4).
 */
static void sroce_resp_flush_srq(struct sroce_qp *qp)
{
	struct sroce_resp_msg *msg = &to_sroce_resp(qp)->msg;
	struct sroce_cqe cqe;

	if (msg->srq_held) {
		sroce_resp_xrc_msg(qp);
		sroce_resp_cqe_init(qp, &cqe, IB_WC_WR_FLUSH_ERR);
		sroce_resp_post(qp, &cqe, true);
		sroce_resp_xrc_put(qp);
	}
	msg->srq_held = false;
	sroce_qp_last_wqe_reached(qp);
}

/**
 * sroce_resp_flush() - flush the receive queue of a QP in the error state
 * @qp: queue pair in IB_QPS_ERR
 *
 * Ends the message in progress, drops queued responses and completes
 * every posted receive WQE with IB_WC_WR_FLUSH_ERR, keeping its wr_id,
 * consuming it (IBTA 10.3.1 error state, 11.4.2.1); with an SRQ, only the
 * WQE the QP took from it (sroce_resp_flush_srq()).  Bounded by the ring
 * size: a producer index beyond it marks the ring broken
 * (SROCE_QUEUE_F_ERROR) and flushes nothing.  Does nothing unless the QP
 * is in the error state.
 *
 * Context: a data path run of the QP (SROCE_DP_RESP_RUNNING owned); does not
 * sleep.
 */
void sroce_resp_flush(struct sroce_qp *qp)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	struct sroce_recv_wqe *slot;
	struct sroce_cqe cqe;
	int n;

	sroce_dp_assert_resp_run(qp);
	sroce_resp_sync(qp);
	if (!(resp->attr.caps & SROCE_QPS_RQ_FLUSH) && !resp->failed)
		return;
	sroce_resp_msg_end(qp);
	sroce_resp_out_clear(qp);
	sroce_resp_ooo_purge(resp);
	if (qp->srq || qp->type == IB_QPT_XRC_TGT) {
		sroce_resp_flush_srq(qp);
		return;
	}
	if (!qp->rq.hdr || !qp->rcq)
		return;
	n = sroce_queue_count(&qp->rq);
	if (n < 0) {
		sroce_resp_rq_hostile(qp);
		return;
	}
	while (n-- > 0) {
		slot = sroce_queue_slot(&qp->rq, qp->rq.kidx);
		memset(&cqe, 0, sizeof(cqe));
		cqe.wr_id = READ_ONCE(slot->wr_id);
		cqe.status = IB_WC_WR_FLUSH_ERR;
		cqe.opcode = IB_WC_RECV;
		cqe.qp_num = sroce_qpn(qp);
		sroce_queue_consume(&qp->rq, 1);
		sroce_cq_post(qp->rcq, &cqe, true);
	}
}
