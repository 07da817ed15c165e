// SPDX-License-Identifier: GPL-2.0
/*
 * Work requests of kernel consumers: post_send, post_recv and
 * post_srq_recv check each WR and write it as a WQE into the SQ, RQ or SRQ
 * ring, then ring the data path's doorbell (sroce_dp.c).  User QPs and
 * SRQs post in their mapped rings; for a user QP post_send is the
 * doorbell only.
 */

#include <linux/lockdep.h>
#include <linux/spinlock.h>

#include "sroce.h"
#include "sroce_av.h"
#include "sroce_dp.h"
#include "sroce_mr.h"
#include "sroce_qp.h"
#include "sroce_queue.h"
#include "sroce_srq.h"
#include "sroce_verbs.h"

static bool sroce_wr_is_atomic(enum ib_wr_opcode op)
{
	return op == IB_WR_ATOMIC_CMP_AND_SWP ||
	       op == IB_WR_ATOMIC_FETCH_AND_ADD;
}

/*
 * IB_WR_REG_MR and IB_WR_LOCAL_INV carry no data; REG_MR names a
 * fast-register MR of this device (checked again when it is executed).
 */
static int sroce_check_local_wr(struct sroce_qp *qp,
				const struct ib_send_wr *wr)
{
	const struct ib_mr *ibmr;

	if (wr->num_sge)
		return -EINVAL;
	if (wr->opcode != IB_WR_REG_MR)
		return 0;
	ibmr = reg_wr(wr)->mr;
	if (!ibmr || ibmr->device != qp->ibqp.device ||
	    to_sroce_mr((struct ib_mr *)ibmr)->type != SROCE_MR_FAST)
		return -EINVAL;
	return 0;
}

/* Check a kernel send WR; @len gets its total length. */
static int sroce_check_send_wr(struct sroce_qp *qp,
			       const struct ib_send_wr *wr, u32 *len)
{
	u64 total = 0;
	int i;

	if (!sroce_wr_kernel_opcode_ok(qp->type, wr->opcode) ||
	    !sroce_wr_flags_ok(wr->opcode, wr->send_flags) ||
	    wr->num_sge < 0 || wr->num_sge > SROCE_MAX_SGE)
		return -EINVAL;
	if ((wr->opcode == IB_WR_REG_MR || wr->opcode == IB_WR_LOCAL_INV) &&
	    sroce_check_local_wr(qp, wr))
		return -EINVAL;

	for (i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	if (total > SROCE_MAX_MSG_SIZE)
		return -EINVAL;

	if ((wr->send_flags & IB_SEND_INLINE) && total > SROCE_MAX_INLINE)
		return -EINVAL;
	/* IBTA 9.4.5: 8-byte operand at an 8-byte aligned address. */
	if (sroce_wr_is_atomic(wr->opcode) &&
	    (total < sizeof(u64) || (atomic_wr(wr)->remote_addr & 7)))
		return -EINVAL;
	if (sroce_qp_is_ud(qp) &&
	    (!ud_wr(wr)->ah || ud_wr(wr)->remote_qpn > SROCE_QPN_MASK))
		return -EINVAL;

	*len = total;
	return 0;
}

static void sroce_fill_reg_wqe(struct sroce_send_wqe *wqe,
			       const struct ib_reg_wr *wr)
{
	struct sroce_reg_wqe reg = {
		.mr = (uintptr_t)to_sroce_mr(wr->mr),
		.key = wr->key,
		.access = wr->access,
	};

	memcpy(wqe->wr.raw, &reg, sizeof(reg));
}

static void sroce_fill_send_remote(struct sroce_qp *qp,
				   struct sroce_send_wqe *wqe,
				   const struct ib_send_wr *wr)
{
	if (sroce_qp_is_ud(qp)) {
		wqe->wr.ud.ah_num = to_sroce_ah(ud_wr(wr)->ah)->ah_num;
		wqe->wr.ud.remote_qpn = ud_wr(wr)->remote_qpn;
		wqe->wr.ud.remote_qkey = ud_wr(wr)->remote_qkey;
		return;
	}

	switch (wr->opcode) {
	case IB_WR_REG_MR:
		sroce_fill_reg_wqe(wqe, reg_wr(wr));
		break;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		wqe->wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		wqe->wr.rdma.rkey = rdma_wr(wr)->rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		wqe->wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		wqe->wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		wqe->wr.atomic.swap = atomic_wr(wr)->swap;
		wqe->wr.atomic.rkey = atomic_wr(wr)->rkey;
		break;
	default:
		break;
	}
}

/* Gather list or inline payload; kernel SGE addresses are kernel VAs. */
static void sroce_fill_send_data(struct sroce_send_wqe *wqe,
				 const struct ib_send_wr *wr, u32 len)
{
	u8 *p = wqe->inline_data;
	int i;

	if (wr->send_flags & IB_SEND_INLINE) {
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(p, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			p += wr->sg_list[i].length;
		}
		wqe->inline_len = len;
		return;
	}

	wqe->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		wqe->sge[i].addr = wr->sg_list[i].addr;
		wqe->sge[i].length = wr->sg_list[i].length;
		wqe->sge[i].lkey = wr->sg_list[i].lkey;
	}
}

static void sroce_fill_send_wqe(struct sroce_qp *qp,
				struct sroce_send_wqe *wqe,
				const struct ib_send_wr *wr, u32 len)
{
	memset(wqe, 0, offsetof(struct sroce_send_wqe, sge));
	wqe->wr_id = wr->wr_id;
	/* Kernel and uverbs values are the same for every opcode we allow. */
	wqe->opcode = wr->opcode;
	wqe->send_flags = wr->send_flags;
	if (wr->opcode == IB_WR_SEND_WITH_INV ||
	    wr->opcode == IB_WR_LOCAL_INV)
		wqe->ex.invalidate_rkey = wr->ex.invalidate_rkey;
	else if (wr->opcode == IB_WR_SEND_WITH_IMM ||
		 wr->opcode == IB_WR_RDMA_WRITE_WITH_IMM)
		wqe->ex.imm_data = wr->ex.imm_data;
	sroce_fill_send_remote(qp, wqe, wr);
	sroce_fill_send_data(wqe, wr, len);
}

/* Producer side of a kernel ring: the next free slot, or NULL when full. */
static void *sroce_queue_producer_slot(struct sroce_queue *q)
{
	u32 prod = q->hdr->producer;

	/* Pairs with the data path's release of consumed slots. */
	if (prod - smp_load_acquire(&q->hdr->consumer) >= q->num)
		return NULL;
	return sroce_queue_slot(q, prod);
}

static void sroce_queue_produce(struct sroce_queue *q)
{
	/* Publishes the slot written before; the data path acquires. */
	smp_store_release(&q->hdr->producer, q->hdr->producer + 1);
}

static int sroce_post_one_send(struct sroce_qp *qp,
			       const struct ib_send_wr *wr)
{
	struct sroce_send_wqe *wqe;
	u32 len;
	int err;

	lockdep_assert_held(&qp->sq_lock);

	err = sroce_check_send_wr(qp, wr, &len);
	if (err)
		return err;
	wqe = sroce_queue_producer_slot(&qp->sq);
	if (!wqe)
		return -ENOMEM;
	sroce_fill_send_wqe(qp, wqe, wr, len);
	sroce_queue_produce(&qp->sq);
	return 0;
}

/*
 * After a kernel post published its producer index: does the QP flush
 * what is posted now?  Read again after the post, behind a full barrier,
 * because the QP may have moved to ERR by itself since the post checked
 * the state: sroce_qp_set_state() orders the state before the flush's
 * reads of the producer indices, this orders the producer index before
 * the read of the state, so a WQE posted across the move is flushed by
 * one side or the other (IBTA 10.3.1.7).
 */
static bool sroce_post_sees_flush(struct sroce_qp *qp)
{
	smp_mb();	/* producer index before the state */
	return sroce_qp_state_can(READ_ONCE(qp->state), SROCE_QPS_RQ_FLUSH);
}

/**
 * sroce_post_send_wrs() - post send WRs, also on a device in its fatal
 *	state (sroce_post_send() minus that check; the drain's marker)
 * @ibqp: QP
 * @wr: list of WRs for a kernel QP; NULL for a user QP, for which this is
 *	the doorbell after the provider wrote its SQ ring
 * @bad_wr: set to the first WR not posted
 *
 * WRs are checked one by one (opcode for the QP type, flags, SGE count,
 * inline size, atomic alignment, UD destination) and written to the SQ ring
 * in order; the first bad one stops the list.  Posting in RESET, INIT or
 * RTR fails; in SQE and ERR the WRs are accepted and flushed
 * (SROCE_QPS_POST_SEND, IBTA 10.3.1, 10.8.2).  Then rings the data
 * path's doorbell (sroce_dp_doorbell()), which may send the first packets
 * from the caller's context.
 * Context: any (takes qp->sq_lock with irqsave).
 * Return: 0, -EINVAL (bad WR or state), -ENOMEM (SQ full).
 */
int sroce_post_send_wrs(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			const struct ib_send_wr **bad_wr)
{
	struct sroce_qp *qp = to_sroce_qp(ibqp);
	enum ib_qp_state state = READ_ONCE(qp->state);
	unsigned long flags;
	bool posted = false;
	int err = 0;

	/* an XRC TGT QP has no send queue */
	if (!sroce_qp_state_can(state, SROCE_QPS_POST_SEND) || !qp->sq.num ||
	    (qp->is_user && wr)) {
		*bad_wr = wr;
		return -EINVAL;
	}
	if (qp->is_user) {
		sroce_counter_inc(qp->dev, SROCE_CNT_DOORBELLS);
		sroce_dp_doorbell(qp);
		return 0;
	}

	spin_lock_irqsave(&qp->sq_lock, flags);
	/*
	 * Again under sq_lock: a move to RESET notes the SQ producer under
	 * it (sroce_dp_modify()) after setting the state, so a post is
	 * either wholly before the reset, which discards it, or refused.
	 */
	if (!sroce_qp_state_can(READ_ONCE(qp->state), SROCE_QPS_POST_SEND)) {
		err = -EINVAL;
		*bad_wr = wr;
		wr = NULL;
	}
	for (; wr; wr = wr->next) {
		err = sroce_post_one_send(qp, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
		posted = true;
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);

	/* in ERR the doorbell flushes both queues even with nothing new */
	if (posted || sroce_post_sees_flush(qp))
		sroce_dp_doorbell(qp);
	return err;
}

/*
 * Write one kernel receive WR into a kernel RQ or SRQ ring, which the
 * producer lock @lock serializes.  Return: 0, -EINVAL (more than
 * @max_sge entries, too long), -ENOMEM (ring full).
 */
static int sroce_post_one_recv(struct sroce_queue *q, spinlock_t *lock,
			       const struct ib_recv_wr *wr, u32 max_sge)
{
	struct sroce_recv_wqe *wqe;
	u64 total = 0;
	int i;

	lockdep_assert_held(lock);

	if (wr->num_sge < 0 || wr->num_sge > max_sge)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	if (total > SROCE_MAX_MSG_SIZE)
		return -EINVAL;

	wqe = sroce_queue_producer_slot(q);
	if (!wqe)
		return -ENOMEM;
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr->wr_id;
	wqe->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		wqe->sge[i].addr = wr->sg_list[i].addr;
		wqe->sge[i].length = wr->sg_list[i].length;
		wqe->sge[i].lkey = wr->sg_list[i].lkey;
	}
	sroce_queue_produce(q);
	return 0;
}

/**
 * sroce_post_recv_wrs() - post receive WRs to a kernel QP, also on a
 *	device in its fatal state (sroce_post_recv() minus that check)
 * @ibqp: QP
 * @wr: list of WRs
 * @bad_wr: set to the first WR not posted
 *
 * User QPs post receives in their mapped ring; a QP attached to an SRQ
 * has no receive queue of its own.  Posting in RESET fails; in
 * ERR the WRs are accepted and flushed (SROCE_QPS_POST_RECV, IBTA
 * 10.3.1.1, 10.3.1.7).
 * Context: any (takes qp->rq_lock with irqsave).
 * Return: 0, -EINVAL (bad WR, state, user QP, SRQ attached), -ENOMEM (RQ
 * full).
 */
int sroce_post_recv_wrs(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	struct sroce_qp *qp = to_sroce_qp(ibqp);
	enum ib_qp_state state = READ_ONCE(qp->state);
	unsigned long flags;
	int err = 0;

	/* no receive queue: an SRQ's QP, XRC QPs */
	if (qp->is_user || !qp->rq.num ||
	    !sroce_qp_state_can(state, SROCE_QPS_POST_RECV)) {
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&qp->rq_lock, flags);
	for (; wr; wr = wr->next) {
		err = sroce_post_one_recv(&qp->rq, &qp->rq_lock, wr,
					  SROCE_MAX_SGE);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	spin_unlock_irqrestore(&qp->rq_lock, flags);

	if (sroce_post_sees_flush(qp))
		sroce_qp_schedule(qp);
	return err;
}

/**
 * sroce_post_send() - post send WRs (ib_device_ops.post_send)
 * @ibqp: QP
 * @wr: list of WRs for a kernel QP; NULL for a user QP's doorbell
 * @bad_wr: set to the first WR not posted
 *
 * As sroce_post_send_wrs(), except that a kernel QP's WRs are refused
 * while the device is in its fatal state (sroce_dev_set_fatal()), as a
 * hardware device refuses them after a fatal error: the consumer fails
 * the request at once instead of waiting for a completion that cannot
 * come.  The device's own drain (sroce_drain_sq()) still posts.
 * Context: any.
 * Return: 0, -EIO (device fatal), or as sroce_post_send_wrs().
 */
int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	if (wr && sroce_dev_is_fatal(to_sroce_dev(ibqp->device))) {
		*bad_wr = wr;
		return -EIO;
	}
	return sroce_post_send_wrs(ibqp, wr, bad_wr);
}

/**
 * sroce_post_recv() - post receive WRs to a kernel QP
 *	(ib_device_ops.post_recv)
 * @ibqp: QP
 * @wr: list of WRs
 * @bad_wr: set to the first WR not posted
 *
 * As sroce_post_recv_wrs(), except that WRs are refused while the device
 * is in its fatal state (see sroce_post_send()).
 * Context: any.
 * Return: 0, -EIO (device fatal), or as sroce_post_recv_wrs().
 */
int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	if (sroce_dev_is_fatal(to_sroce_dev(ibqp->device))) {
		*bad_wr = wr;
		return -EIO;
	}
	return sroce_post_recv_wrs(ibqp, wr, bad_wr);
}

/**
 * sroce_post_srq_recv() - post receive WRs to a kernel SRQ
 *	(ib_device_ops.post_srq_recv)
 * @ibsrq: SRQ
 * @wr: list of WRs, each with at most the SRQ's max_sge entries
 * @bad_wr: set to the first WR not posted
 *
 * User SRQs post in their mapped ring.  The WRs go into the ring in order
 * (sroce_post_one_recv(), as for an RQ); any QP attached takes them.
 * Refused while the device is in its fatal state (see sroce_post_send()).
 * Context: any (takes srq->prod_lock with irqsave).
 * Return: 0, -EINVAL (bad WR, user SRQ), -ENOMEM (max_wr WQEs posted),
 * -EIO (device fatal).
 */
int sroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	struct sroce_srq *srq = to_sroce_srq(ibsrq);
	unsigned long flags;
	int err = 0;

	if (srq->is_user) {
		*bad_wr = wr;
		return -EINVAL;
	}
	if (sroce_dev_is_fatal(to_sroce_dev(ibsrq->device))) {
		*bad_wr = wr;
		return -EIO;
	}
	spin_lock_irqsave(&srq->prod_lock, flags);
	for (; wr; wr = wr->next) {
		err = sroce_post_one_recv(&srq->rq, &srq->prod_lock, wr,
					  srq->max_sge);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	spin_unlock_irqrestore(&srq->prod_lock, flags);
	return err;
}
