// SPDX-License-Identifier: GPL-2.0
/*
 * The completer (IBTA vol. 1 9.7.5.1, 9.7.5.2, 9.9): turns ACKs, NAKs, RDMA
 * READ responses and atomic ACKs into completions.
 *
 * ACKs are cumulative: a response for PSN n implies that every request
 * before n arrived, so every SEND/WRITE WQE that ends before it completes,
 * in order.  An RDMA READ or atomic completes only with its response data;
 * an ACK past one whose response is missing means the response was lost,
 * and the READ is asked again from its first missing response PSN.
 *
 * What the responses say about loss (a sequence error NAK, a gap in the
 * responses) and progress goes to the retransmission policy
 * (sroce_retx.c), which also owns the timers. *
 * Context: everything here runs in the QP's data path run, which owns the
 * QP's RUNNING bit (asserted at the entry points): in the work item, in
 * post_send or in the RX softirq; nothing may sleep.
 */

#include <linux/jiffies.h>
#include <rdma/ib_pack.h>

#include "sroce.h"
#include "sroce_mr.h"
#include "sroce_qp.h"
#include "sroce_queue.h"
#include "sroce_trace.h"

/* ------------------------------------------------------------------ */
/* Completions                                                         */
/* ------------------------------------------------------------------ */

/* Userspace CQE opcode (enum ib_uverbs_wc_opcode) of a send WQE. */
static u32 sroce_comp_wc_opcode(u32 wr_opcode)
{
	switch (wr_opcode) {
	case IB_UVERBS_WR_RDMA_WRITE:
	case IB_UVERBS_WR_RDMA_WRITE_WITH_IMM:
		return IB_UVERBS_WC_RDMA_WRITE;
	case IB_UVERBS_WR_RDMA_READ:
	case IB_UVERBS_WR_RDMA_READ_WITH_INV:
		return IB_UVERBS_WC_RDMA_READ;
	case IB_UVERBS_WR_ATOMIC_CMP_AND_SWP:
		return IB_UVERBS_WC_COMP_SWAP;
	case IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD:
		return IB_UVERBS_WC_FETCH_ADD;
	case IB_UVERBS_WR_LOCAL_INV:
		return IB_UVERBS_WC_LOCAL_INV;
	case IB_WR_REG_MR:		/* kernel QPs only: no uverbs value */
		return IB_WC_REG_MR;
	case IB_UVERBS_WR_BIND_MW:
		return IB_UVERBS_WC_BIND_MW;
	case IB_UVERBS_WR_TSO:
		return IB_UVERBS_WC_TSO;
	case SROCE_WR_ATOMIC_WRITE:
		return SROCE_WC_ATOMIC_WRITE;
	case SROCE_WR_FLUSH:
		return SROCE_WC_FLUSH;
	default:
		return IB_UVERBS_WC_SEND;
	}
}

/*
 * Post the send CQE of @w: only for a signaled WQE (IB_SEND_SIGNALED or
 * sq_sig_all), but always for an error (IBTA 10.7.3.1).
 */
static void sroce_comp_post_cqe(struct sroce_qp *qp,
				const struct sroce_req_wqe *w,
				enum ib_wc_status status)
{
	struct sroce_cqe cqe = {};

	if (status == IB_WC_SUCCESS && !qp->sq_sig_all &&
	    !(w->wqe.send_flags & IB_SEND_SIGNALED))
		return;
	cqe.wr_id = w->wqe.wr_id;
	cqe.status = status;
	cqe.opcode = sroce_comp_wc_opcode(w->wqe.opcode);
	cqe.byte_len = status == IB_WC_SUCCESS ? w->length : 0;
	cqe.qp_num = sroce_qpn(qp);
	/* a full CQ raises IB_EVENT_CQ_ERR in sroce_cq_post() */
	sroce_cq_post(qp->scq, &cqe, false);
}

/* The last response of a READ chunk or atomic arrived: free its slot. */
static void sroce_comp_put_rd_slot(struct sroce_send *snd)
{
	if (!WARN_ON_ONCE(!snd->rd_outstanding))
		snd->rd_outstanding--;
}

/**
 * sroce_comp_check_drained() - raise IB_EVENT_SQ_DRAINED once in SQD
 * @qp: queue pair
 *
 * In SQD no new WQE starts; once every started one has completed the
 * send queue is drained (IBTA 10.3.1.4, 11.6.3).
 * Context: data path run (owns the QP's RUNNING bit).
 */
void sroce_comp_check_drained(struct sroce_qp *qp)
{
	struct sroce_send *snd = &qp->dp.send;
	struct ib_event ev = {};

	sroce_dp_assert_run(qp);
	if (!(snd->caps & SROCE_QPS_SQ_DRAIN) || snd->drained_event ||
	    qp->sq.kidx != snd->issued_idx)
		return;
	snd->drained_event = true;
	if (!qp->ibqp.event_handler)
		return;
	ev.device = qp->ibqp.device;
	ev.element.qp = &qp->ibqp;
	ev.event = IB_EVENT_SQ_DRAINED;
	qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/**
 * sroce_comp_retire() - complete the finished WQEs at the head of the SQ
 * @qp: queue pair
 *
 * Advances the SQ consumer index past the SROCE_WQE_DONE WQEs at the head,
 * then posts their CQEs, in order.  The index moves first: a consumer that
 * sees a CQE may reuse the slots of every WQE up to it at once (unsignaled
 * WQEs are counted that way), so they must be free by then.  Stops at the
 * first WQE not done.
 * Context: data path run (owns the QP's RUNNING bit).
 */
void sroce_comp_retire(struct sroce_qp *qp)
{
	struct sroce_send *snd = &qp->dp.send;
	u32 first = qp->sq.kidx;
	u32 idx = first;

	sroce_dp_assert_run(qp);
	while (idx != snd->issued_idx &&
	       sroce_req_wqe(snd, idx)->state == SROCE_WQE_DONE)
		idx++;
	if (idx == first)
		return;
	/* the shadow entries stay valid: only this run refills them */
	sroce_queue_consume(&qp->sq, idx - first);
	for (; first != idx; first++)
		sroce_comp_post_cqe(qp, sroce_req_wqe(snd, first),
				    IB_WC_SUCCESS);
	sroce_comp_check_drained(qp);
}

/**
 * sroce_comp_head() - the oldest WQE not completed
 * @qp: queue pair
 *
 * Context: data path run (owns the QP's RUNNING bit).
 * Return: its shadow entry, or NULL when every started WQE completed.
 */
struct sroce_req_wqe *sroce_comp_head(struct sroce_qp *qp)
{
	struct sroce_send *snd = &qp->dp.send;

	if (qp->sq.kidx == snd->issued_idx)
		return NULL;
	return sroce_req_wqe(snd, qp->sq.kidx);
}

/**
 * sroce_comp_fail_head() - the WQE at the head failed
 * @qp: queue pair
 * @status: its completion status (remote error, retries exhausted ...)
 *
 * Context: data path run (owns the QP's RUNNING bit).
 */
void sroce_comp_fail_head(struct sroce_qp *qp, enum ib_wc_status status)
{
	sroce_req_fail(qp, sroce_comp_head(qp), status);
}

/* ------------------------------------------------------------------ */
/* Acknowledgment and retry                                            */
/* ------------------------------------------------------------------ */

/*
 * Every request before @end arrived (IBTA 9.7.5.1.1): complete the SEND
 * and WRITE WQEs that end before @end, in order.  Return: true when an
 * RDMA READ or atomic at the head ends before @end: its response is lost
 * and must be asked again (9.7.5.1.2, implied NAK).
 */
static bool sroce_comp_ack_upto(struct sroce_qp *qp, u32 end)
{
	struct sroce_send *snd = &qp->dp.send;
	struct sroce_req_wqe *w;
	bool passed = false;
	u32 idx;

	for (idx = qp->sq.kidx; idx != snd->issued_idx; idx++) {
		w = sroce_req_wqe(snd, idx);
		if (w->cls & SROCE_WR_RD_ATOMIC) {
			passed = sroce_psn_after(end, w->last_psn);
			break;
		}
		if (!sroce_psn_after(end, w->last_psn)) {
			sroce_retx_advance(snd, end);
			break;
		}
		w->state = SROCE_WQE_DONE;
		sroce_retx_advance(snd, sroce_psn_add(w->last_psn, 1));
	}
	sroce_comp_retire(qp);
	return passed;
}

/* ------------------------------------------------------------------ */
/* ACK, NAK, RNR NAK                                                   */
/* ------------------------------------------------------------------ */

static enum ib_wc_status sroce_comp_nak_status(struct sroce_dev *dev,
					       u8 code)
{
	switch (code) {
	case SROCE_NAK_INVALID_REQ:
		sroce_counter_inc(dev, SROCE_CNT_REMOTE_INVALID_REQ);
		return IB_WC_REM_INV_REQ_ERR;
	case SROCE_NAK_REM_ACCESS:
		sroce_counter_inc(dev, SROCE_CNT_REMOTE_ACCESS_ERR);
		return IB_WC_REM_ACCESS_ERR;
	case SROCE_NAK_INVALID_RD_REQ:
		return IB_WC_REM_INV_RD_REQ_ERR;
	default:	/* remote operational error, reserved codes */
		return IB_WC_REM_OP_ERR;
	}
}

/*
 * NAK (9.7.5.2.3-9.7.5.2.6): the PSN is the request that failed (for a
 * sequence error, the PSN the responder expects); all before it arrived.
 */
static void sroce_comp_nak(struct sroce_qp *qp, u32 psn, u8 code)
{
	struct sroce_send *snd = &qp->dp.send;

	sroce_comp_ack_upto(qp, psn);
	if (code == SROCE_NAK_PSN_SEQ_ERR) {
		sroce_counter_inc(qp->dev, SROCE_CNT_RCV_SEQ_ERR);
		/* a responder NAKs the packets sent after an RNR NAK too */
		if (!snd->rnr_wait)
			sroce_retx_seq_nak(qp);
		return;
	}
	sroce_comp_fail_head(qp, sroce_comp_nak_status(qp->dev, code));
}

/* RNR NAK (9.7.5.2.8): wait the given time, then resend from @psn. */
static void sroce_comp_rnr_nak(struct sroce_qp *qp, u32 psn, u8 code)
{
	struct sroce_send *snd = &qp->dp.send;
	unsigned long delay;

	sroce_comp_ack_upto(qp, psn);
	sroce_counter_inc(qp->dev, SROCE_CNT_RCV_RNR_ERR);
	trace_sroce_rnr_nak_rcvd(qp, psn, code);
	if (snd->rnr_wait || snd->error)
		return;
	if (!snd->rnr_retry) {
		sroce_counter_inc(qp->dev, SROCE_CNT_RNR_RETRY_ERR);
		sroce_comp_fail_head(qp, IB_WC_RNR_RETRY_EXC_ERR);
		return;
	}
	if (snd->rnr_retry != 7)
		snd->rnr_retry--;
	snd->rnr_wait = true;
	sroce_req_rewind(qp);
	delay = max(usecs_to_jiffies(sroce_rnr_timer_us(code)), 1UL);
	sroce_req_arm_timer(qp, &snd->rnr_timer, jiffies + delay);
}

/* ACK opcode: a positive ACK, an RNR NAK or a NAK (9.3.5, table 44). */
static void sroce_comp_handle_ack(struct sroce_qp *qp,
				  const struct sroce_pkt_info *pkt)
{
	const struct sroce_aeth *aeth = sroce_pkt_hdr(pkt, SROCE_HDR_AETH);
	u8 syn = sroce_aeth_syndrome(aeth);
	u8 val = syn & SROCE_AETH_VAL_MASK;

	switch (syn & SROCE_AETH_TYPE_MASK) {
	case SROCE_AETH_ACK:
		if (sroce_comp_ack_upto(qp, sroce_psn_add(pkt->psn, 1)))
			sroce_retx_retry(qp, false, true);
		break;
	case SROCE_AETH_RNR_NAK:
		sroce_comp_rnr_nak(qp, pkt->psn, val);
		break;
	case SROCE_AETH_NAK:
		sroce_comp_nak(qp, pkt->psn, val);
		break;
	default:	/* reserved syndrome: ignore the packet */
		break;
	}
}

/* ------------------------------------------------------------------ */
/* RDMA READ responses, atomic ACKs                                    */
/* ------------------------------------------------------------------ */

/* A response with an AETH must carry a positive ACK syndrome. */
static bool sroce_comp_aeth_ok(const struct sroce_pkt_info *pkt)
{
	const struct sroce_aeth *aeth;

	if (!(pkt->mask & SROCE_MASK_AETH))
		return true;
	aeth = sroce_pkt_hdr(pkt, SROCE_HDR_AETH);
	return (sroce_aeth_syndrome(aeth) & SROCE_AETH_TYPE_MASK) ==
	       SROCE_AETH_ACK;
}

/*
 * The payload of a response and its length.  The RX path makes only the
 * headers linear; a payload in fragments is made linear here.
 * Return: NULL when the packet is malformed or memory is short.
 */
static void *sroce_comp_payload(struct sk_buff *skb, u32 *len)
{
	struct sroce_pkt_info *pkt = SROCE_PKT(skb);
	u32 hlen = sroce_opcode[pkt->opcode].length;
	ptrdiff_t off = pkt->hdr - skb->data;
	s64 n = sroce_pkt_payload_len(skb, pkt);

	if (n < 0)
		return NULL;
	*len = n;
	if (pkt->hdr + hlen + *len > skb_tail_pointer(skb)) {
		if (skb_linearize(skb))
			return NULL;
		pkt->hdr = skb->data + off;
	}
	return pkt->hdr + hlen;
}

/*
 * Length rule of READ responses (9.7.5.1.3 / C9-177): every response but
 * the last of a READ request (chunk) carries a full MTU, the last one the
 * rest; FIRST/MIDDLE before the last, LAST/ONLY at it (a resumed READ may
 * start with either).
 */
static bool sroce_comp_read_len_ok(const struct sroce_send *snd,
				   const struct sroce_req_wqe *w, u8 opcode,
				   u32 psn, u32 off, u32 len)
{
	if (psn == sroce_req_chunk_last(w, psn))
		return (opcode == IB_OPCODE_RC_RDMA_READ_RESPONSE_LAST ||
			opcode == IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY) &&
		       len == min(w->length - off, snd->mtu);
	return (opcode == IB_OPCODE_RC_RDMA_READ_RESPONSE_FIRST ||
		opcode == IB_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE) &&
	       len == snd->mtu;
}

/* Scatter @len bytes at message offset @off into the READ's SGEs. */
static int sroce_comp_scatter(struct sroce_qp *qp, struct sroce_req_wqe *w,
			      u32 off, void *data, u32 len)
{
	struct sroce_send *snd = &qp->dp.send;
	int err;

	if (!snd->rcur_valid || snd->rcur_off != off) {
		if (snd->rcur_valid)
			sroce_sge_cursor_release(&snd->rcur);
		sroce_req_cursor_seek(&snd->rcur, w->wqe.sge, w->wqe.num_sge,
				      off);
		snd->rcur_valid = true;
	}
	err = sroce_sge_copy(qp->dev, qp->pd, &snd->rcur, data, len,
			     SROCE_TO_MR);
	snd->rcur_off = err ? U32_MAX : off + len;
	return err;
}

static void sroce_comp_release_rcur(struct sroce_send *snd)
{
	if (snd->rcur_valid)
		sroce_sge_cursor_release(&snd->rcur);
	snd->rcur_valid = false;
}

/* A local scatter failed: IB_WC_LOC_LEN_ERR or IB_WC_LOC_PROT_ERR. */
static void sroce_comp_local_error(struct sroce_qp *qp,
				   struct sroce_req_wqe *w, int err)
{
	sroce_counter_inc(qp->dev, SROCE_CNT_LOCAL_ACCESS_ERR);
	sroce_req_fail(qp, w, err == -EINVAL ? IB_WC_LOC_LEN_ERR :
					       IB_WC_LOC_PROT_ERR);
}

/* The response for @psn belongs to the head WQE of class @cls, else NULL. */
static struct sroce_req_wqe *sroce_comp_response_wqe(struct sroce_qp *qp,
						     u32 psn, u16 cls)
{
	struct sroce_req_wqe *w;

	if (sroce_comp_ack_upto(qp, psn)) {
		sroce_retx_retry(qp, false, true);
		return NULL;
	}
	w = sroce_comp_head(qp);
	if (!w || !(w->cls & cls) || psn != qp->dp.send.comp_psn) {
		sroce_retx_out_of_order(qp, psn);
		return NULL;
	}
	return w;
}

/* The response of a one-PSN atomic, ATOMIC WRITE or FLUSH @w arrived. */
static void sroce_comp_single_done(struct sroce_qp *qp,
				   struct sroce_req_wqe *w)
{
	sroce_retx_advance(&qp->dp.send, sroce_psn_add(w->last_psn, 1));
	sroce_comp_put_rd_slot(&qp->dp.send);
	w->state = SROCE_WQE_DONE;
	sroce_comp_retire(qp);
}

/*
 * The response to an ATOMIC WRITE (IBTA 1.5 oA19-28) or a FLUSH (annex
 * A19.4): an RDMA READ RESPONSE ONLY without payload, as rdma_rxe sends
 * it.
 */
static void sroce_comp_empty_resp(struct sroce_qp *qp,
				  struct sroce_req_wqe *w, u8 opcode, u32 len)
{
	if (opcode != IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY || len) {
		sroce_req_fail(qp, w, IB_WC_BAD_RESP_ERR);
		return;
	}
	sroce_comp_single_done(qp, w);
}

/* RDMA READ response FIRST/MIDDLE/LAST/ONLY (9.7.5.1.3). */
static void sroce_comp_read_resp(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_pkt_info *pkt = SROCE_PKT(skb);
	u8 opcode = sroce_rc_opcode(pkt->opcode);
	struct sroce_send *snd = &qp->dp.send;
	struct sroce_req_wqe *w;
	u32 psn = pkt->psn;
	u32 len, off;
	void *data;
	int err;

	if (!sroce_comp_aeth_ok(pkt))
		return;
	w = sroce_comp_response_wqe(qp, psn, SROCE_WR_READ | SROCE_WR_AWRITE |
				    SROCE_WR_RFLUSH);
	if (!w)
		return;
	data = sroce_comp_payload(skb, &len);
	if (!data)
		return;
	if (w->cls & (SROCE_WR_AWRITE | SROCE_WR_RFLUSH)) {
		sroce_comp_empty_resp(qp, w, opcode, len);
		return;
	}
	off = sroce_psn_diff(psn, w->first_psn) * snd->mtu;
	if (!sroce_comp_read_len_ok(snd, w, opcode, psn, off, len)) {
		sroce_req_fail(qp, w, IB_WC_BAD_RESP_ERR);
		return;
	}
	err = sroce_comp_scatter(qp, w, off, data, len);
	if (err) {
		sroce_comp_local_error(qp, w, err);
		return;
	}
	sroce_retx_advance(snd, sroce_psn_add(psn, 1));
	if (psn == sroce_req_chunk_last(w, psn))
		sroce_comp_put_rd_slot(snd);
	if (psn != w->last_psn)
		return;
	sroce_comp_release_rcur(snd);
	w->state = SROCE_WQE_DONE;
	sroce_comp_retire(qp);
}

/* ATOMIC ACK (9.7.5.1.4): write the original remote value locally. */
static void sroce_comp_atomic_ack(struct sroce_qp *qp,
				  const struct sroce_pkt_info *pkt)
{
	const struct sroce_atmack *atm = sroce_pkt_hdr(pkt, SROCE_HDR_ATMACK);
	struct sroce_sge_cursor cur;
	struct sroce_req_wqe *w;
	u64 orig;
	int err;

	if (!sroce_comp_aeth_ok(pkt))
		return;
	w = sroce_comp_response_wqe(qp, pkt->psn, SROCE_WR_ATOMIC);
	if (!w)
		return;
	orig = be64_to_cpu(atm->orig);
	sroce_sge_cursor_init(&cur, w->wqe.sge, w->wqe.num_sge);
	err = sroce_sge_copy(qp->dev, qp->pd, &cur, &orig, sizeof(orig),
			     SROCE_TO_MR);
	sroce_sge_cursor_release(&cur);
	if (err) {
		sroce_comp_local_error(qp, w, err);
		return;
	}
	sroce_comp_single_done(qp, w);
}

/* ------------------------------------------------------------------ */
/* Entry points                                                        */
/* ------------------------------------------------------------------ */

/*
 * Is the response worth looking at?  Only on an RC QP whose send side
 * works, and only for a PSN sent and not yet acknowledged: older ones are
 * duplicates, newer ones ghosts (9.7.5.1.1).  A duplicate still shows the
 * responder alive and the path merely slow (replies to retries queued
 * behind older ones): it defers the local ACK timeout, so that retries do
 * not pile more replays onto a congested path, but it reloads no retry
 * counter.
 */
static bool sroce_comp_accept(struct sroce_qp *qp,
			      const struct sroce_pkt_info *pkt)
{
	struct sroce_send *snd = &qp->dp.send;

	if (!sroce_qpt_reliable(qp->type) || !snd->wqes || snd->error ||
	    !(snd->caps & SROCE_QPS_SQ_RUN))
		return false;
	if (sroce_psn_before(pkt->psn, snd->comp_psn)) {
		snd->last_progress = jiffies;
		return false;
	}
	return sroce_psn_before(pkt->psn, snd->max_psn);
}

/*
 * After an ACK the requester may be behind what is acknowledged (a late
 * ACK for packets sent before a rewind, one that covered requests the
 * responder held): move it up to comp_psn.
 */
static void sroce_comp_sync_req(struct sroce_qp *qp)
{
	struct sroce_send *snd = &qp->dp.send;

	if (snd->error)
		return;
	if ((s32)(snd->send_idx - qp->sq.kidx) < 0 ||
	    sroce_psn_before(snd->psn, snd->comp_psn))
		sroce_req_forward(qp);
}

/**
 * sroce_comp_rcv() - process a response packet (ACK, NAK, READ response,
 *	atomic ACK) for the QP's requests
 * @qp: the QP the packet is addressed to
 * @skb: the packet (SROCE_PKT(skb) filled by the RX path); consumed
 *
 * Duplicates and ghosts are dropped; WQEs the response completes get
 * their CQEs in order; NAKs retry or fail the QP.  IBTA 9.7.5.1, 9.7.5.2.
 * The QP reference the packet holds is the caller's to drop.
 * Context: data path run (owns the QP's RUNNING bit).
 */
void sroce_comp_rcv(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_pkt_info *pkt = SROCE_PKT(skb);

	sroce_dp_assert_run(qp);
	if (!sroce_comp_accept(qp, pkt)) {
		kfree_skb(skb);
		return;
	}
	switch (sroce_rc_opcode(pkt->opcode)) {
	case IB_OPCODE_RC_ACKNOWLEDGE:
		sroce_comp_handle_ack(qp, pkt);
		break;
	case IB_OPCODE_RC_RDMA_READ_RESPONSE_FIRST:
	case IB_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE:
	case IB_OPCODE_RC_RDMA_READ_RESPONSE_LAST:
	case IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY:
		sroce_comp_read_resp(qp, skb);
		break;
	case IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE:
		sroce_comp_atomic_ack(qp, pkt);
		break;
	default:
		break;
	}
	sroce_retx_sel_done(&qp->dp.send, pkt);
	sroce_comp_sync_req(qp);
	consume_skb(skb);
}

/* Forget the send side's work in progress before flushing. */
static void sroce_comp_drop_inflight(struct sroce_qp *qp)
{
	struct sroce_send *snd = &qp->dp.send;

	sroce_req_release_cursors(snd);
	snd->rd_outstanding = 0;
	snd->rnr_wait = false;
	snd->retrying = false;
	snd->sel_probe = false;
}

/**
 * sroce_comp_flush() - complete every posted send WQE in error, in order
 * @qp: queue pair in ERR (or whose send side failed)
 * @budget: most CQEs to post in this call
 *
 * A WQE that failed gets its own status, the others IB_WC_WR_FLUSH_ERR
 * (IBTA 10.3.1.7, 11.4.2.2), including WQEs posted after the QP entered
 * ERR; CQEs are posted regardless of IB_SEND_SIGNALED, and the SQ consumer
 * index advances past each.
 * Context: data path run (owns the QP's RUNNING bit).
 * Return: true when @budget ran out before the SQ was empty.
 */
bool sroce_comp_flush(struct sroce_qp *qp, int budget)
{
	struct sroce_send *snd = &qp->dp.send;
	enum ib_wc_status status;
	struct sroce_req_wqe *w;
	int n = 0;

	sroce_dp_assert_run(qp);
	if (!snd->wqes)
		return false;
	sroce_comp_drop_inflight(qp);
	for (; n < budget; n++) {
		if (qp->sq.kidx == snd->fetch_idx &&
		    sroce_req_fetch_one(qp, true) <= 0)
			break;
		w = sroce_req_wqe(snd, qp->sq.kidx);
		status = IB_WC_WR_FLUSH_ERR;
		if (w->state == SROCE_WQE_ERROR)
			status = w->status;
		else if (w->state == SROCE_WQE_DONE)
			status = IB_WC_SUCCESS;
		w->rd_issued = 0;
		/* free the slot before its CQE is seen (sroce_comp_retire()) */
		sroce_queue_consume(&qp->sq, 1);
		sroce_comp_post_cqe(qp, w, status);
	}
	snd->send_idx = qp->sq.kidx;
	snd->issued_idx = qp->sq.kidx;
	return n >= budget;
}

