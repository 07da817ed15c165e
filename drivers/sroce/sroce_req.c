// SPDX-License-Identifier: GPL-2.0
/*
 * The requester (IBTA vol. 1 9.5, 9.7.1-9.7.4): turns the send WQEs of a QP
 * into request packets.
 *
 * Each WQE is copied out of the SQ ring into a kernel shadow entry before
 * anything in it is read, then validated (the ring of a user QP is shared
 * with userspace, which may change a slot at any time).  Messages are cut
 * into path-MTU packets; an RDMA READ request reserves one PSN per expected
 * response packet; AckReq is set on the last packet of a message and every
 * SROCE_REQ_ACK_EVERY packets (every half congestion window when that is
 * smaller, or by time).  RC flow control keeps the requester within the
 * congestion window (at most SROCE_REQ_WINDOW PSNs, fewer after losses,
 * see sroce_retx.c) of the oldest unacknowledged PSN and within max_rd_atomic
 * outstanding RDMA READs/atomics.
 *
 * Retransmission is go-back-N (9.7.5.1): sroce_req_rewind() moves the
 * requester back to the oldest unacknowledged PSN (sroce_req_pos.c); since
 * a WQE keeps the PSNs it was given when first started and every packet
 * but the last of a message is full, the packet of any PSN can be rebuilt
 * from the WQE alone (sroce_req_pkt.c builds and sends each packet).
 *
 * Context: everything here runs in the QP's data path run, which owns the
 * QP's RUNNING bit (asserted at the entry points): in the work item, in
 * post_send or in the RX softirq; nothing may sleep.
 */

#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/log2.h>
#include <linux/mm.h>

#include "sroce.h"
#include "sroce_mr.h"
#include "sroce_net.h"
#include "sroce_qp.h"
#include "sroce_queue.h"

/* Bytes of a send WQE before its SGE/inline area. */
#define SROCE_REQ_WQE_HDR	offsetof(struct sroce_send_wqe, sge)

/* ------------------------------------------------------------------ */
/* Fetching and validating WQEs                                        */
/* ------------------------------------------------------------------ */

/* Class of each WQE opcode (enum ib_uverbs_wr_opcode) sroce carries out. */
static const u16 sroce_req_wr_cls[] = {
	[IB_UVERBS_WR_SEND]			= SROCE_WR_SEND,
	[IB_UVERBS_WR_SEND_WITH_IMM]		= SROCE_WR_SEND | SROCE_WR_IMM,
	[IB_UVERBS_WR_SEND_WITH_INV]		= SROCE_WR_SEND | SROCE_WR_INV,
	[IB_UVERBS_WR_RDMA_WRITE]		= SROCE_WR_WRITE,
	[IB_UVERBS_WR_RDMA_WRITE_WITH_IMM]	= SROCE_WR_WRITE | SROCE_WR_IMM,
	[IB_UVERBS_WR_RDMA_READ]		= SROCE_WR_READ,
	[IB_UVERBS_WR_ATOMIC_CMP_AND_SWP]	= SROCE_WR_ATOMIC |
						  SROCE_WR_CMP_SWAP,
	[IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD]	= SROCE_WR_ATOMIC,
	[SROCE_WR_ATOMIC_WRITE]			= SROCE_WR_AWRITE,
	[SROCE_WR_FLUSH]			= SROCE_WR_RFLUSH,
	[IB_UVERBS_WR_LOCAL_INV]		= SROCE_WR_LOCAL,
	[IB_UVERBS_WR_BIND_MW]			= SROCE_WR_LOCAL | SROCE_WR_BIND,
	[IB_WR_REG_MR]				= SROCE_WR_LOCAL | SROCE_WR_REG,
};

/*
 * Class of a WQE opcode on @qp, 0 when the QP does not allow it: a user
 * QP's ring is checked against what userspace may post, a kernel QP's
 * against what kernel verbs may (memory management operations too).
 */
static u16 sroce_req_wr_class(const struct sroce_qp *qp, u32 opcode)
{
	bool ok = qp->is_user ? sroce_wr_opcode_ok(qp->type, opcode) :
				sroce_wr_kernel_opcode_ok(qp->type, opcode);

	if (!ok || opcode >= ARRAY_SIZE(sroce_req_wr_cls))
		return 0;
	return sroce_req_wr_cls[opcode];
}

/*
 * Copy the slot of @idx out of the ring: the header first, then only the
 * SGEs or inline bytes the copied header announces.  Return: false when it
 * announces more than a slot holds.
 */
static bool sroce_req_copy_slot(struct sroce_qp *qp, u32 idx,
				struct sroce_send_wqe *dst, bool header_only)
{
	const u8 *src = sroce_queue_slot(&qp->sq, idx);
	size_t body;

	memcpy(dst, src, SROCE_REQ_WQE_HDR);
	if (header_only)
		return true;
	if (dst->send_flags & IB_SEND_INLINE) {
		if (dst->inline_len > SROCE_MAX_INLINE)
			return false;
		body = dst->inline_len;
	} else {
		if (dst->num_sge > SROCE_MAX_SGE)
			return false;
		body = dst->num_sge * sizeof(struct sroce_sge);
	}
	memcpy((u8 *)dst + SROCE_REQ_WQE_HDR, src + SROCE_REQ_WQE_HDR, body);
	return true;
}

/*
 * FLUSH (IBTA 1.5 annex A19.4.1): a placement type of SROCE_FLUSH_TYPES
 * bits, at least one; a selectivity level RANGE or MR; no SGEs (the flags
 * refused INLINE).  Its length is the range's, no data: no message size
 * limit, one PSN.  The responder checks the rkey, the range and the MR's
 * rights.
 */
static enum ib_wc_status sroce_req_check_flush(struct sroce_req_wqe *w)
{
	const struct sroce_send_wqe *wqe = &w->wqe;
	u8 type = wqe->wr.rdma.flush_type;
	u8 level = wqe->wr.rdma.flush_level;

	if (!type || (type & ~SROCE_FLUSH_TYPES) || wqe->num_sge ||
	    (level != SROCE_FLUSH_RANGE && level != SROCE_FLUSH_MR))
		return IB_WC_LOC_QP_OP_ERR;
	w->length = wqe->wr.rdma.length;
	return IB_WC_SUCCESS;
}

/* Validate a copied WQE and compute its length (IBTA 10.8.3, 9.4). */
static enum ib_wc_status sroce_req_check_wqe(struct sroce_qp *qp,
					     struct sroce_req_wqe *w)
{
	const struct sroce_send_wqe *wqe = &w->wqe;

	w->cls = sroce_req_wr_class(qp, wqe->opcode);
	if (!w->cls || !sroce_wr_flags_ok(wqe->opcode, wqe->send_flags))
		return IB_WC_LOC_QP_OP_ERR;
	if (w->cls & SROCE_WR_RFLUSH)
		return sroce_req_check_flush(w);
	/* memory operations carry no data (the flags refused INLINE) */
	if ((w->cls & SROCE_WR_LOCAL) && wqe->num_sge)
		return IB_WC_LOC_QP_OP_ERR;
	if (wqe->send_flags & IB_SEND_INLINE)
		w->length = wqe->inline_len;
	else if (sroce_sge_total(wqe->sge, wqe->num_sge, &w->length))
		return IB_WC_LOC_LEN_ERR;
	if (w->cls & SROCE_WR_ATOMIC) {
		/* 9.4.5: an 8-byte aligned remote operand, an 8-byte result */
		if (w->length < sizeof(u64))
			return IB_WC_LOC_LEN_ERR;
		if (!IS_ALIGNED(wqe->wr.atomic.remote_addr, sizeof(u64)))
			return IB_WC_LOC_QP_OP_ERR;
	}
	/* oA19-28: exactly 8 bytes, inline; the responder checks the VA */
	if ((w->cls & SROCE_WR_AWRITE) &&
	    (!(wqe->send_flags & IB_SEND_INLINE) ||
	     w->length != SROCE_ATOMIC_WRITE_LEN))
		return IB_WC_LOC_LEN_ERR;
	if (w->length > SROCE_MAX_MSG_SIZE ||
	    sroce_req_wqe_npsn(&qp->dp.send, w) > SROCE_REQ_MAX_WQE_PSNS)
		return IB_WC_LOC_LEN_ERR;
	return IB_WC_SUCCESS;
}

/*
 * The producer index of the SQ is impossible: stop reading the ring, tell
 * the provider through the ring flags, and fail the QP.
 */
static void sroce_req_sq_hostile(struct sroce_qp *qp)
{
	struct sroce_queue_hdr *hdr = qp->sq.hdr;

	qp->dp.send.sq_broken = true;
	WRITE_ONCE(hdr->flags, READ_ONCE(hdr->flags) | SROCE_QUEUE_F_ERROR);
	sroce_req_fail(qp, NULL, IB_WC_LOC_QP_OP_ERR);
}

/**
 * sroce_req_fetch_one() - copy the next posted WQE out of the SQ ring
 * @qp: queue pair
 * @header_only: copy only the header (wr_id, opcode, flags) without
 *	validating it: for flushing
 *
 * The WQE at send.fetch_idx is copied into its shadow entry, reset to
 * SROCE_WQE_POSTED and, unless @header_only, validated; an invalid WQE is
 * failed (IB_WC_LOC_QP_OP_ERR or IB_WC_LOC_LEN_ERR) and the QP goes to
 * ERR.  A producer index more than the ring size ahead, or behind what was
 * already fetched, marks the ring SROCE_QUEUE_F_ERROR and fails the QP.
 *
 * Context: data path run (owns the QP's RUNNING bit).
 * Return: 1 when a WQE was fetched, 0 when none is posted, -EIO for a
 * hostile producer index, -EINVAL for an invalid WQE.
 */
int sroce_req_fetch_one(struct sroce_qp *qp, bool header_only)
{
	struct sroce_send *snd = &qp->dp.send;
	enum ib_wc_status status;
	struct sroce_req_wqe *w;
	u32 avail;
	bool ok;
	int n;

	sroce_dp_assert_run(qp);
	if (snd->sq_broken || !snd->wqes)
		return 0;
	n = sroce_queue_count(&qp->sq);
	avail = qp->sq.kidx + (u32)n - snd->fetch_idx;
	if (n < 0 || avail > snd->num) {
		sroce_req_sq_hostile(qp);
		return -EIO;
	}
	if (!avail)
		return 0;

	w = sroce_req_wqe(snd, snd->fetch_idx);
	w->state = SROCE_WQE_POSTED;
	w->status = IB_WC_SUCCESS;
	w->rd_issued = 0;
	w->rd_chunk = 0;
	w->cls = 0;
	w->length = 0;
	ok = sroce_req_copy_slot(qp, snd->fetch_idx, &w->wqe, header_only);
	snd->fetch_idx++;
	if (header_only)
		return 1;

	status = ok ? sroce_req_check_wqe(qp, w) : IB_WC_LOC_QP_OP_ERR;
	if (status != IB_WC_SUCCESS) {
		sroce_req_fail(qp, w, status);
		return -EINVAL;
	}
	return 1;
}

/* The WQE to send from next, fetching it from the ring if needed. */
static struct sroce_req_wqe *sroce_req_next_wqe(struct sroce_qp *qp)
{
	struct sroce_send *snd = &qp->dp.send;

	if (snd->send_idx == snd->fetch_idx &&
	    sroce_req_fetch_one(qp, false) <= 0)
		return NULL;
	return sroce_req_wqe(snd, snd->send_idx);
}

/* ------------------------------------------------------------------ */
/* Errors, cursors, timers                                             */
/* ------------------------------------------------------------------ */

/**
 * sroce_req_fail() - fail a WQE and move the QP to ERR
 * @qp: queue pair
 * @w: the WQE that failed, or NULL when none is to blame
 * @status: its completion status (enum ib_wc_status)
 *
 * The send side stops; the next flush completes the WQEs in order, @w
 * with @status and the others with IB_WC_WR_FLUSH_ERR (IBTA 10.3.1.7,
 * 10.8.3.1).  Calls sroce_qp_error() once.
 * Context: data path run (owns the QP's RUNNING bit).
 */
void sroce_req_fail(struct sroce_qp *qp, struct sroce_req_wqe *w,
		    enum ib_wc_status status)
{
	struct sroce_send *snd = &qp->dp.send;

	sroce_dp_assert_run(qp);
	if (w && w->state != SROCE_WQE_ERROR) {
		w->state = SROCE_WQE_ERROR;
		w->status = status;
	}
	if (snd->error)
		return;
	snd->error = true;
	sroce_qp_error(qp);
}

/**
 * sroce_req_cursor_seek() - start an SGE cursor at a message offset
 * @cur: cursor (released or never used: any MR reference is overwritten)
 * @sge: the SGE list (a kernel copy)
 * @num_sge: entries in @sge
 * @off: bytes to skip
 *
 * No MR is looked up here; sroce_sge_copy() looks up the MR of the SGE
 * the cursor stops in.
 * Context: any.
 */
void sroce_req_cursor_seek(struct sroce_sge_cursor *cur,
			   const struct sroce_sge *sge, u32 num_sge, u32 off)
{
	sroce_sge_cursor_init(cur, sge, num_sge);
	while (off && cur->idx < num_sge) {
		u32 n = min(off, sge[cur->idx].length);

		off -= n;
		if (n == sge[cur->idx].length)
			cur->idx++;
		else
			cur->off = n;
	}
}

/**
 * sroce_req_release_cursors() - drop the MR references of both cursors
 * @snd: send-side state
 *
 * Context: data path run, or sroce_dp_stop() once no run can happen.
 */
void sroce_req_release_cursors(struct sroce_send *snd)
{
	if (snd->cur_valid)
		sroce_sge_cursor_release(&snd->cur);
	snd->cur_valid = false;
	if (snd->rcur_valid)
		sroce_sge_cursor_release(&snd->rcur);
	snd->rcur_valid = false;
}

/**
 * sroce_req_release_cur() - drop the MR reference of the gather cursor
 * @snd: send-side state
 *
 * Context: data path run (owns the QP's RUNNING bit).
 */
void sroce_req_release_cur(struct sroce_send *snd)
{
	if (snd->cur_valid)
		sroce_sge_cursor_release(&snd->cur);
	snd->cur_valid = false;
}

/**
 * sroce_req_arm_timer() - (re)arm a QP timer that holds a QP reference
 * @qp: queue pair
 * @t: qp->dp.send.retrans_timer or rnr_timer
 * @expires: jiffies
 *
 * Takes a reference when the timer was not pending; the timer function
 * drops it (a pending timer already holds one).  The arm is counted
 * (&struct sroce_send.retrans_held) before the timer can fire and stays
 * counted until its function has flagged the expiry, so the send side's
 * wake-up is visible throughout (sroce_diag.c); an arm that found the
 * timer pending only moved that timer's arm and is not counted again.
 * Context: data path run.
 */
void sroce_req_arm_timer(struct sroce_qp *qp, struct timer_list *t,
			 unsigned long expires)
{
	atomic_t *held = sroce_send_timer_held(&qp->dp.send, t);

	atomic_inc(held);
	if (mod_timer(t, expires))
		atomic_dec(held);
	else
		sroce_qp_get(qp);
}

/* ------------------------------------------------------------------ */
/* Sending                                                             */
/* ------------------------------------------------------------------ */
/*
 * Initiator depth (IBTA 9.5): a READ chunk or an atomic sent for the first
 * time needs one of the max_rd_atomic slots (a retransmission reuses its
 * chunk's).  @k is the chunk the next request belongs to.
 */
static bool sroce_req_take_rd_slot(struct sroce_send *snd,
				   struct sroce_req_wqe *w, u32 k)
{
	if (!(w->cls & SROCE_WR_RD_ATOMIC) || k < w->rd_issued)
		return true;
	if (snd->rd_outstanding >= snd->max_rd_atomic)
		return false;
	w->rd_issued = k + 1;
	snd->rd_outstanding++;
	return true;
}

/*
 * RC flow control: may a packet that uses @npsn PSNs leave now?  Within
 * the congestion window; the first one after the oldest unacknowledged
 * PSN always may.  While a packet is resent alone
 * (&struct sroce_send.sel_probe) only that one, until it is answered.
 */
static bool sroce_req_window_ok(const struct sroce_send *snd, u32 npsn)
{
	s32 ahead = sroce_psn_diff(snd->psn, snd->comp_psn);

	if (snd->sel_probe)
		return sroce_psn_before(snd->psn, snd->sel_end);
	return ahead <= 0 ||
	       (u32)ahead + npsn <= min_t(u32, snd->cwnd, SROCE_REQ_WINDOW);
}

/*
 * Give a new WQE its PSNs; they stay with it until it completes.  A READ
 * asks for at most a congestion window of responses per request: a lost
 * response then costs a window again, not SROCE_REQ_READ_CHUNK.
 */
static void sroce_req_start(struct sroce_send *snd, struct sroce_req_wqe *w)
{
	w->rd_chunk = clamp_t(u32, snd->cwnd, SROCE_REQ_CWND_MIN,
			      SROCE_REQ_READ_CHUNK);
	w->first_psn = snd->psn;
	w->last_psn = sroce_psn_add(snd->psn, sroce_req_wqe_npsn(snd, w) - 1);
	snd->issued_idx++;
}

/* A new WQE may not go yet after all: it stays unstarted. */
static void sroce_req_unstart(struct sroce_send *snd)
{
	snd->issued_idx--;
}

/*
 * May the next packet of @w leave now?  A WQE not started yet waits in
 * SQD (no new WQEs, 10.3.1.4) and behind a fence (10.8.3.3: prior READs
 * and atomics complete first), and is started when it may go.
 */
static bool sroce_req_may_send(struct sroce_qp *qp, struct sroce_req_wqe *w)
{
	struct sroce_send *snd = &qp->dp.send;
	bool fresh = snd->send_idx == snd->issued_idx;
	u32 npsn = 1, k = 0;

	if (fresh) {
		if (snd->caps & SROCE_QPS_SQ_DRAIN)
			return false;
		if ((w->wqe.send_flags & IB_SEND_FENCE) && snd->rd_outstanding)
			return false;
		sroce_req_start(snd, w);
	}
	if (w->cls & SROCE_WR_READ) {
		npsn = sroce_psn_diff(sroce_req_chunk_last(w, snd->psn),
				      snd->psn) + 1;
		k = sroce_req_chunk_of(w, snd->psn);
	}
	if (sroce_qpt_reliable(qp->type) && !sroce_req_window_ok(snd, npsn))
		goto wait;
	if (!sroce_req_take_rd_slot(snd, w, k))
		goto wait;
	return true;
wait:
	if (fresh)
		sroce_req_unstart(snd);
	return false;
}

/*
 * UD specifics before sending @w: C10-93.1.1 (a message longer than the
 * MTU is silently not sent, and completes without error), then the AH's
 * address vector.  Return: true when @w is done with (faked or failed).
 */
static bool sroce_req_ud_prepare(struct sroce_qp *qp, struct sroce_req_wqe *w)
{
	struct sroce_send *snd = &qp->dp.send;

	if (w->length > snd->mtu) {
		snd->send_idx++;
		w->state = SROCE_WQE_DONE;
		sroce_comp_retire(qp);
		return true;
	}
	if (sroce_ah_lookup_av(qp->dev, w->wqe.wr.ud.ah_num, qp->pd,
			       &snd->ud_av)) {
		sroce_req_fail(qp, w, IB_WC_LOC_QP_OP_ERR);
		return true;
	}
	return false;
}

/* A packet could not be sent: pause on backpressure, else fail @w. */
static void sroce_req_send_error(struct sroce_qp *qp, struct sroce_req_wqe *w,
				 int err)
{
	if (err == -EBUSY)	/* paced: tx_timer runs the QP again */
		return;
	if (err == -EAGAIN) {
		sroce_req_tx_pause(qp);
		return;
	}
	sroce_counter_inc(qp->dev, SROCE_CNT_LOCAL_ACCESS_ERR);
	sroce_req_fail(qp, w, err == -EINVAL ? IB_WC_LOC_LEN_ERR :
					       IB_WC_LOC_PROT_ERR);
}

/* The requester's position must lie inside the WQE it sends from. */
static bool sroce_req_position_ok(struct sroce_qp *qp,
				  struct sroce_req_wqe *w)
{
	struct sroce_send *snd = &qp->dp.send;
	s32 k = sroce_psn_diff(snd->psn, w->first_psn);

	if (snd->send_idx == snd->issued_idx)
		return true;
	if (!WARN_ON_ONCE(k < 0 || k >= sroce_req_wqe_npsn(snd, w)))
		return true;
	sroce_req_fail(qp, w, IB_WC_LOC_QP_OP_ERR);
	return false;
}

static bool sroce_req_can_run(const struct sroce_send *snd)
{
	return snd->wqes && !snd->error && !snd->rnr_wait &&
	       !snd->tx_blocked && (snd->caps & SROCE_QPS_SQ_RUN);
}

/*
 * Responses arrived while sending: let the completer see them first.  A
 * NAK or an ACK that ends a loss episode is then acted on after one more
 * packet, not after a whole budget of packets the responder discards.
 * The receive path kicked the run after queueing them, so the run comes
 * back at once (struct sroce_dp: KICK).
 */
static bool sroce_req_responses_wait(struct sroce_qp *qp)
{
	return sroce_qpt_reliable(qp->type) &&
	       !skb_queue_empty_lockless(&qp->rx_queue);
}

/* Carry out the memory operation of @w: fast register, bind, invalidate. */
static int sroce_req_mem_op(struct sroce_qp *qp, const struct sroce_req_wqe *w)
{
	const struct sroce_reg_wqe *reg = (const void *)w->wqe.wr.raw;
	const typeof(w->wqe.wr.bind) *wb = &w->wqe.wr.bind;
	struct sroce_mw_bind b;

	if (w->cls & SROCE_WR_REG)
		return sroce_mr_fast_reg(qp->dev, qp->pd,
					 (const void *)(uintptr_t)reg->mr,
					 reg->key, reg->access);
	if (!(w->cls & SROCE_WR_BIND))
		return sroce_mr_local_inv(qp->dev, qp->pd,
					  w->wqe.ex.invalidate_rkey,
					  sroce_qpn(qp));
	b = (struct sroce_mw_bind){
		.mw_rkey = wb->mw_rkey,
		.new_rkey = wb->new_rkey,
		.mr_lkey = wb->mr_lkey,
		.access = wb->access,
		.addr = wb->addr,
		.length = wb->length,
	};
	return sroce_mw_bind(qp->dev, qp->pd, sroce_qpn(qp), &b);
}

/*
 * Execute IB_WR_REG_MR, IB_WR_LOCAL_INV or IB_WR_BIND_MW (IBTA
 * 10.6.3.6-7, 10.6.7.2) when the requester reaches it: after the WQEs
 * before it were sent, before those after it.  It takes no PSN: it counts
 * as ending where the WQE before it ended, so the completer retires it in
 * order, right after that one.  One executed before a rewind is not
 * executed again.  A fenced one waits for the READs and atomics before it.
 * Return: false when it must wait or failed (the run stops).
 */
static bool sroce_req_local_op(struct sroce_qp *qp, struct sroce_req_wqe *w)
{
	struct sroce_send *snd = &qp->dp.send;
	int err;

	if (snd->send_idx != snd->issued_idx) {
		snd->send_idx++;	/* done before a rewind */
		return true;
	}
	if ((snd->caps & SROCE_QPS_SQ_DRAIN) ||
	    ((w->wqe.send_flags & IB_SEND_FENCE) && snd->rd_outstanding))
		return false;
	/* the packets before it leave first: they may not be built again */
	if (sroce_req_flush(qp))
		return false;
	err = sroce_req_mem_op(qp, w);
	w->first_psn = sroce_psn_add(snd->psn, SROCE_PSN_MASK);
	w->last_psn = w->first_psn;
	snd->issued_idx++;
	snd->send_idx++;
	if (err) {
		sroce_counter_inc(qp->dev, SROCE_CNT_LOCAL_ACCESS_ERR);
		sroce_req_fail(qp, w, (w->cls & SROCE_WR_BIND) ?
				      IB_WC_MW_BIND_ERR :
				      err == -EACCES ? IB_WC_LOC_PROT_ERR :
				      IB_WC_LOC_QP_OP_ERR);
		return false;
	}
	w->state = SROCE_WQE_DONE;
	sroce_comp_retire(qp);
	return true;
}

/* sroce_req_run() but the batch */
static bool sroce_req_send_loop(struct sroce_qp *qp, int budget)
{
	struct sroce_send *snd = &qp->dp.send;
	struct sroce_req_wqe *w;
	int sent = 0;
	int err;

	if (test_and_clear_bit(SROCE_SEND_F_TX_RETRY, &snd->flags))
		snd->tx_blocked = false;
	if (!sroce_req_can_run(snd))
		return false;

	while (sent < budget) {
		w = sroce_req_next_wqe(qp);
		if (w && (w->cls & SROCE_WR_LOCAL)) {
			if (!sroce_req_local_op(qp, w))
				break;
			sent++;
			continue;
		}
		if (!w || !sroce_req_position_ok(qp, w) ||
		    !sroce_req_may_send(qp, w))
			break;
		if (sroce_qp_is_ud(qp) && sroce_req_ud_prepare(qp, w)) {
			if (snd->error)
				break;
			continue;
		}
		err = sroce_req_send_packet(qp, w);
		if (err) {
			sroce_req_send_error(qp, w, err);
			break;
		}
		sent++;
		if (sroce_req_responses_wait(qp))
			break;
	}
	return sent >= budget;
}

/**
 * sroce_req_run() - send new and retransmitted request packets
 * @qp: queue pair
 * @budget: most packets to send in this call
 *
 * Stops when the SQ is empty, a limit applies (window, initiator depth,
 * fence, SQD), the network pushes back (a short pause follows), a WQE
 * fails, or @budget packets were sent.  IBTA 9.7.
 * The packets of one call leave in batches, as one skb each
 * (sroce_net_xmit_batch()), the last when the call ends.
 * Context: data path run (owns the QP's RUNNING bit).
 * Return: true when @budget ran out and more may be ready to send.
 */
bool sroce_req_run(struct sroce_qp *qp, int budget)
{
	struct sroce_send *snd = &qp->dp.send;
	struct sroce_net_batch batch = {};
	bool more;

	sroce_dp_assert_run(qp);
	batch.max_segs = snd->tx_batch_segs;
	snd->tx_batch = &batch;
	more = sroce_req_send_loop(qp, budget);
	if (sroce_req_flush(qp))
		more = false;
	snd->tx_batch = NULL;
	return more;
}

/* ------------------------------------------------------------------ */
/* Set-up, attributes, reset                                           */
/* ------------------------------------------------------------------ */

static unsigned long sroce_req_timeout_jiffies(u8 timeout)
{
	u64 us = sroce_retry_timeout_us(timeout);

	if (!us)
		return 0;
	return max_t(unsigned long, 1, nsecs_to_jiffies(us * NSEC_PER_USEC));
}

/**
 * sroce_req_copy_attrs() - take the send side's copy of QP attributes
 * @qp: queue pair
 *
 * Copies path, MTU, destination QPN, Q_Key, timeout, retry counts and
 * initiator depth, and reloads the retry counters.
 * Context: data path run, with qp->state_lock held as well.
 */
void sroce_req_copy_attrs(struct sroce_qp *qp)
{
	struct sroce_send *snd = &qp->dp.send;
	const struct ib_qp_attr *a = &qp->attr;
	int mtu = qp->mtu;

	sroce_dp_assert_run(qp);
	lockdep_assert_held(&qp->state_lock);
	if (sroce_qp_is_ud(qp))
		mtu = ib_mtu_enum_to_int(READ_ONCE(qp->dev->mtu_cap));
	snd->mtu = mtu > 0 ? mtu : 256;
	snd->av = qp->av;
	snd->dest_qpn = a->dest_qp_num & SROCE_QPN_MASK;
	snd->qkey = a->qkey;
	snd->timeout_jiffies = sroce_req_timeout_jiffies(a->timeout);
	snd->retry_max = a->retry_cnt & 7;
	snd->rnr_retry_max = a->rnr_retry & 7;
	/* rdma_rxe blocks reads forever at 0; allow one instead */
	snd->max_rd_atomic = max_t(u32, a->max_rd_atomic, 1);
	snd->retry_cnt = snd->retry_max;
	snd->rnr_retry = snd->rnr_retry_max;
}

/**
 * sroce_req_set_psn() - start sending at a new PSN (modify_qp sq_psn)
 * @qp: queue pair
 * @psn: 24-bit PSN
 *
 * Ignored while WQEs are in flight (they keep the PSNs they were given).
 * Context: data path run (owns the QP's RUNNING bit).
 */
void sroce_req_set_psn(struct sroce_qp *qp, u32 psn)
{
	struct sroce_send *snd = &qp->dp.send;

	sroce_dp_assert_run(qp);
	if (qp->sq.kidx != snd->issued_idx)
		return;
	snd->psn = psn & SROCE_PSN_MASK;
	snd->max_psn = snd->psn;
	snd->comp_psn = snd->psn;
	/* a new connection: what was learnt of the path is forgotten */
	snd->cwnd = SROCE_REQ_CWND_INIT;
	snd->ssthresh = SROCE_REQ_CWND_INIT;
	snd->cwnd_acc = 0;
	snd->rtt = (struct sroce_rtt){};
	snd->rtt_timing = false;
	snd->rto_backoff = 0;
	snd->retrying = false;
	snd->sel_probe = false;
	snd->peer_holds = false;
}

/**
 * sroce_req_reset() - return the send side to its RESET state
 * @qp: queue pair
 * @prod: the SQ producer index when the QP moved to RESET
 *	(sroce_dp_modify())
 *
 * Discards the WQEs posted before the move to RESET without completion
 * (IBTA 10.3.1.1: RESET empties the queues), advancing the SQ consumer
 * index to @prod, and clears the PSNs, counters and waits.  The reset
 * runs later than the move: WQEs posted after the QP went on to RTS are
 * not touched.  Pending timers stay; when they fire they find nothing to
 * do.
 * Context: data path run (owns the QP's RUNNING bit).
 */
void sroce_req_reset(struct sroce_qp *qp, u32 prod)
{
	struct sroce_send *snd = &qp->dp.send;
	u32 n = prod - qp->sq.kidx;

	sroce_dp_assert_run(qp);
	sroce_req_release_cursors(snd);
	/* a hostile user producer may be anywhere: then nothing is taken */
	if (snd->wqes && !snd->sq_broken && n <= qp->sq.num)
		sroce_queue_consume(&qp->sq, n);
	snd->fetch_idx = qp->sq.kidx;
	snd->send_idx = qp->sq.kidx;
	snd->issued_idx = qp->sq.kidx;
	snd->psn = 0;
	snd->max_psn = 0;
	snd->comp_psn = 0;
	snd->noack_pkts = 0;
	snd->rd_outstanding = 0;
	snd->retrying = false;
	snd->sel_probe = false;
	snd->peer_holds = false;
	snd->rnr_wait = false;
	snd->tx_blocked = false;
	snd->error = false;
	snd->drained_event = false;
	clear_bit(SROCE_SEND_F_TIMEOUT, &snd->flags);
	clear_bit(SROCE_SEND_F_RNR, &snd->flags);
	clear_bit(SROCE_SEND_F_TX_RETRY, &snd->flags);
}

/**
 * sroce_req_init() - set up the send side of a new QP
 * @qp: QP with its SQ ring (qp->sq) set up
 *
 * Sets up the timers and allocates the shadow array (one entry per SQ
 * slot).  On failure nothing needs undoing.
 * Context: process (GFP_KERNEL).
 * Return: 0, -EINVAL (SQ ring of an unexpected shape) or -ENOMEM.
 */
int sroce_req_init(struct sroce_qp *qp)
{
	struct sroce_send *snd = &qp->dp.send;

	timer_setup(&snd->retrans_timer, sroce_retx_retrans_timer_fn, 0);
	timer_setup(&snd->rnr_timer, sroce_retx_rnr_timer_fn, 0);
	hrtimer_init(&snd->tx_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	snd->tx_timer.function = sroce_req_tx_timer_fn;
	snd->mtu = 256;
	snd->max_rd_atomic = 1;
	snd->tx_pause_ns = SROCE_REQ_TX_PAUSE_MIN_NS;
	snd->tx_batch_segs = SROCE_NET_BATCH_SEGS;
	atomic_set(&snd->tx_inflight, 0);
	atomic_set(&snd->retrans_held, 0);
	atomic_set(&snd->rnr_held, 0);
	snd->cwnd = SROCE_REQ_CWND_INIT;
	snd->ssthresh = SROCE_REQ_CWND_INIT;
	snd->fetch_idx = qp->sq.kidx;
	snd->send_idx = qp->sq.kidx;
	snd->issued_idx = qp->sq.kidx;

	snd->num = qp->sq.num;
	if (!snd->num)
		return 0;
	if (!is_power_of_2(snd->num) ||
	    qp->sq.slot_size < sizeof(struct sroce_send_wqe))
		return -EINVAL;
	snd->wqes = kvcalloc(snd->num, sizeof(*snd->wqes), SROCE_GFP_USER);
	return snd->wqes ? 0 : -ENOMEM;
}

/**
 * sroce_req_cleanup() - free the send side of a QP
 * @qp: queue pair whose timers and work are stopped
 *
 * Context: process (sroce_dp_stop()).
 */
void sroce_req_cleanup(struct sroce_qp *qp)
{
	struct sroce_send *snd = &qp->dp.send;

	sroce_req_release_cursors(snd);
	kvfree(snd->wqes);
	snd->wqes = NULL;
}
