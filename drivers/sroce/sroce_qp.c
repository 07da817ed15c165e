// SPDX-License-Identifier: GPL-2.0
/*
 * Queue pair objects: QPN allocation, rings, the IBTA state
 * machine of modify_qp (IBTA 10.3), the table of what each state allows
 * (sroce_qp_state_caps[]), query, destroy, and the small helpers the data
 * path uses (lookup, schedule, error).
 *
 * Lifetime (see sroce.h): a QP is published in dev->qp_xa once fully set up;
 * packets find it with sroce_qp_lookup() (RCU + kref_get_unless_zero()).
 * The xarray entry owns the base reference; every queued work item, timer
 * and skb owns one more.  Destroy unpublishes the QP, waits for an RCU grace
 * period (the core frees the QP memory right after destroy_qp returns, so
 * no lookup may still be looking at it), stops the data path, drops the base
 * reference and waits until the last reference is gone.
 *
 * Locking: qp->state_lock (irqsave: the data path takes it in softirq)
 * protects qp->state and qp->attr.  The data path's hook sroce_dp_modify()
 * is called with it held.  qp->state is the only copy of the state
 * (qp->attr.qp_state is not kept); readers outside the lock use
 * READ_ONCE().
 */

#include <linux/log2.h>
#include <kunit/visibility.h>

#include "sroce.h"
#include "sroce_av.h"
#include "sroce_mcast.h"
#include "sroce_qp.h"
#include "sroce_queue.h"
#include "sroce_trace.h"
#include "sroce_verbs.h"

static const char * const sroce_qp_state_names[] = {
	[IB_QPS_RESET]	= "RESET",
	[IB_QPS_INIT]	= "INIT",
	[IB_QPS_RTR]	= "RTR",
	[IB_QPS_RTS]	= "RTS",
	[IB_QPS_SQD]	= "SQD",
	[IB_QPS_SQE]	= "SQE",
	[IB_QPS_ERR]	= "ERR",
};

/**
 * sroce_qp_state_name() - IBTA name of a QP state for debug output
 * @state: IB_QPS_*
 *
 * Context: any.
 * Return: "RESET", "INIT", ..., "ERR", or "?" for a value out of range.
 */
const char *sroce_qp_state_name(enum ib_qp_state state)
{
	if ((unsigned int)state >= ARRAY_SIZE(sroce_qp_state_names) ||
	    !sroce_qp_state_names[state])
		return "?";
	return sroce_qp_state_names[state];
}

/*
 * What each QP state allows: the one table every "may I?" of the driver
 * reads, through sroce_qp_state_can() (IBTA vol. 1 10.3.1, the QP state
 * descriptions; posting work requests: 10.8.2).
 *
 * RESET (10.3.1.1): posting to either queue is an immediate error, received
 *	packets are dropped.
 * INIT (10.3.1.2): receive WRs may be posted but are not processed; send
 *	WRs are an immediate error; received packets are dropped.
 * RTR (10.3.1.3): the responder works; send WRs are still an immediate
 *	error.  The path and remote QPN are set from here on.
 * RTS: both queues work.
 * SQD: send WRs are accepted but none starts; the started ones complete,
 *	then IB_EVENT_SQ_DRAINED (11.6.3).  The responder works.
 * SQE (UD, UC): send WQEs complete with a flush error; the responder
 *	works.
 * ERR (10.3.1.7): WRs are accepted and every WQE of both queues completes
 *	with IB_WC_WR_FLUSH_ERR; requests are dropped.  Responses still reach
 *	the send side, which, not running, ignores them.
 *
 * CNPs: RC and UC QPs take them while they have a path (SROCE_QPS_PATH),
 * from the path's peer only; datagram QPs never (sroce_recv.c).
 */
const u16 sroce_qp_state_caps[IB_QPS_ERR + 1] = {
	[IB_QPS_RESET]	= 0,
	[IB_QPS_INIT]	= SROCE_QPS_POST_RECV,
	[IB_QPS_RTR]	= SROCE_QPS_POST_RECV | SROCE_QPS_RX_REQ |
			  SROCE_QPS_PATH,
	[IB_QPS_RTS]	= SROCE_QPS_POST_SEND | SROCE_QPS_POST_RECV |
			  SROCE_QPS_RX_REQ | SROCE_QPS_RX_RESP |
			  SROCE_QPS_SQ_RUN | SROCE_QPS_PATH,
	[IB_QPS_SQD]	= SROCE_QPS_POST_SEND | SROCE_QPS_POST_RECV |
			  SROCE_QPS_RX_REQ | SROCE_QPS_RX_RESP |
			  SROCE_QPS_SQ_RUN | SROCE_QPS_SQ_DRAIN |
			  SROCE_QPS_PATH,
	[IB_QPS_SQE]	= SROCE_QPS_POST_SEND | SROCE_QPS_POST_RECV |
			  SROCE_QPS_RX_REQ | SROCE_QPS_RX_RESP |
			  SROCE_QPS_SQ_FLUSH | SROCE_QPS_PATH,
	[IB_QPS_ERR]	= SROCE_QPS_POST_SEND | SROCE_QPS_POST_RECV |
			  SROCE_QPS_RX_RESP | SROCE_QPS_SQ_FLUSH |
			  SROCE_QPS_RQ_FLUSH,
};
EXPORT_SYMBOL_IF_KUNIT(sroce_qp_state_caps);

/**
 * sroce_modify_qp_ok() - is an IBTA QP transition allowed with this mask?
 * @cur: current state
 * @next: requested state
 * @type: QP type
 * @mask: IB_QP_* attribute mask
 *
 * Wraps the core's ib_modify_qp_is_ok() (IBTA 10.3.1, tables of required
 * and optional attributes per transition).  Link layer Ethernet: the core
 * then requires no LID-related attributes.
 * Context: any.
 * Return: true when the transition and the attribute mask are allowed.
 */
bool sroce_modify_qp_ok(enum ib_qp_state cur, enum ib_qp_state next,
			enum ib_qp_type type, enum ib_qp_attr_mask mask)
{
	return ib_modify_qp_is_ok(cur, next, type, mask);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_modify_qp_ok);

/**
 * sroce_qp_release() - kref release: the last reference is gone
 * @ref: &qp->ref
 *
 * Wakes destroy, which frees the rings; the core frees the QP.
 * Context: any.
 */
void sroce_qp_release(struct kref *ref)
{
	struct sroce_qp *qp = container_of(ref, struct sroce_qp, ref);

	complete(&qp->done);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_qp_release);

/**
 * sroce_qp_lookup() - find a QP by QPN for a received packet
 * @dev: device
 * @qpn: 24-bit QPN (1 is the GSI QP)
 *
 * Context: any.
 * Return: the QP with a reference (drop it with sroce_qp_put()), or NULL
 * when no published QP has this number.
 */
struct sroce_qp *sroce_qp_lookup(struct sroce_dev *dev, u32 qpn)
{
	struct sroce_qp *qp;

	rcu_read_lock();
	qp = xa_load(&dev->qp_xa, qpn & SROCE_QPN_MASK);
	if (qp && !kref_get_unless_zero(&qp->ref))
		qp = NULL;
	rcu_read_unlock();
	return qp;
}

/**
 * sroce_qp_schedule() - make sure the QP's work runs soon
 * @qp: queue pair; the caller holds a reference
 *
 * Queues the work of both sides of the data path, each on its home CPU
 * (sroce_dp_schedule()).  Each queued work holds a QP reference, which
 * its function drops when it ends; a work already queued will see
 * everything posted so far.
 * Context: any.
 */
void sroce_qp_schedule(struct sroce_qp *qp)
{
	sroce_dp_schedule(qp, SROCE_DP_SEND);
	sroce_dp_schedule(qp, SROCE_DP_RESP);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_qp_schedule);

static void sroce_qp_event(struct sroce_qp *qp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = type,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/* Publish one ring's SROCE_QP_F_* bits to the provider (sroce-abi.h). */
static void sroce_qp_publish_flags(struct sroce_queue *q, u32 qp_flags)
{
	if (q->hdr && READ_ONCE(q->hdr->qp_flags) != qp_flags)
		/* pairs with the provider's acquire load of qp_flags */
		smp_store_release(&q->hdr->qp_flags, qp_flags);
}

/**
 * sroce_qp_set_state() - move a QP to a state and tell the provider
 * @qp: queue pair
 * @next: new state (IB_QPS_*)
 *
 * The one place qp->state is written after creation.  Also publishes
 * SROCE_QP_F_FLUSH in the header of the SQ and RQ rings while the state
 * flushes receive WQEs (SROCE_QPS_RQ_FLUSH: ERR), so a provider posting
 * after the kernel moved the QP to ERR by itself rings the doorbell and
 * gets its WQEs flushed (IBTA 10.3.1.7, 11.4.1.1).  The full barrier after
 * the flag orders it before the producer indices the flush reads, which
 * happens after this (the caller schedules the QP's work); the provider
 * orders its producer index before its read of the flag the same way, so
 * a WQE posted across the transition is seen by one side or the other.
 * Context: @qp->state_lock held.
 */
static void sroce_qp_set_state(struct sroce_qp *qp, enum ib_qp_state next)
{
	u32 qp_flags = 0;

	lockdep_assert_held(&qp->state_lock);
	trace_sroce_qp_state(qp, qp->state, next);
	WRITE_ONCE(qp->state, next);
	if (next == IB_QPS_RESET)
		qp->last_wqe = false;
	if (sroce_qp_state_can(next, SROCE_QPS_RQ_FLUSH))
		qp_flags |= SROCE_QP_F_FLUSH;
	sroce_qp_publish_flags(&qp->sq, qp_flags);
	sroce_qp_publish_flags(&qp->rq, qp_flags);
	/* flag before the flush's loads of the producer indices */
	smp_mb();
}

/**
 * sroce_qp_error() - move a QP to the error state from the data path
 * @qp: queue pair; the caller holds a reference
 *
 * Sets IB_QPS_ERR under @qp->state_lock if the QP is not there yet and then
 * raises IB_EVENT_QP_FATAL once (IBTA 11.6.3.1); schedules the work, which
 * flushes outstanding WQEs with IB_WC_WR_FLUSH_ERR.  Does not call
 * sroce_dp_modify(): the data path knows why it failed.
 * Context: any; must not be called with @qp->state_lock held.
 */
void sroce_qp_error(struct sroce_qp *qp)
{
	enum ib_qp_state old;
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	old = qp->state;
	if (old != IB_QPS_ERR)
		sroce_qp_set_state(qp, IB_QPS_ERR);
	spin_unlock_irqrestore(&qp->state_lock, flags);

	if (old != IB_QPS_ERR) {
		ibdev_dbg(qp->ibqp.device, "qp#%u %s -> ERR (fatal)\n",
			  sroce_qpn(qp), sroce_qp_state_name(old));
		sroce_qp_event(qp, IB_EVENT_QP_FATAL);
	}
	sroce_qp_schedule(qp);
}

/**
 * sroce_qp_last_wqe_reached() - tell the owner of an SRQ-attached QP in
 *	the error state that it takes no more WQEs from the SRQ
 * @qp: queue pair attached to an SRQ, in IB_QPS_ERR, whose responder
 *	flushed the WQE it held (sroce_resp_flush())
 *
 * Raises IB_EVENT_QP_LAST_WQE_REACHED once per entry into the error state
 * (IBTA 10.3.1.7, 11.6.3.4), so the owner may destroy the QP without
 * losing WQEs of the SRQ.  Nothing for a QP without an SRQ.
 * Context: a responder run of the QP; does not sleep.
 */
void sroce_qp_last_wqe_reached(struct sroce_qp *qp)
{
	unsigned long flags;
	bool raise;

	if (!qp->srq)
		return;
	spin_lock_irqsave(&qp->state_lock, flags);
	raise = qp->state == IB_QPS_ERR && !qp->last_wqe;
	if (raise)
		qp->last_wqe = true;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (raise)
		sroce_qp_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
}

/* Reserve a QPN; the slot holds no QP until sroce_qp_publish(). */
static int sroce_qp_alloc_qpn(struct sroce_dev *dev, struct sroce_qp *qp)
{
	u32 qpn;
	int err;

	if (qp->type == IB_QPT_GSI) {
		err = xa_insert(&dev->qp_xa, 1, NULL, GFP_KERNEL);
		if (err)
			return err;
		qp->ibqp.qp_num = 1;
		return 0;
	}

	err = xa_alloc_cyclic(&dev->qp_xa, &qpn, NULL,
			      XA_LIMIT(SROCE_MIN_QPN, SROCE_QPN_MASK),
			      &dev->next_qpn, GFP_KERNEL);
	if (err < 0)
		return err == -EBUSY ? -ENOMEM : err;
	qp->ibqp.qp_num = qpn;
	return 0;
}

static void sroce_qp_init_fields(struct sroce_dev *dev, struct sroce_qp *qp,
				 const struct ib_qp_init_attr *init,
				 struct ib_ucontext *uctx)
{
	qp->dev = dev;
	/* an XRC TGT QP has neither; an XRC INI QP no receive CQ */
	qp->pd = qp->ibqp.pd ? to_sroce_pd(qp->ibqp.pd) : NULL;
	qp->scq = init->send_cq ? to_sroce_cq(init->send_cq) : NULL;
	qp->rcq = init->recv_cq ? to_sroce_cq(init->recv_cq) : NULL;
	qp->srq = init->srq ? to_sroce_srq(init->srq) : NULL;
	qp->type = init->qp_type;
	qp->is_user = !!uctx;
	qp->sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);
	spin_lock_init(&qp->state_lock);
	seqcount_spinlock_init(&qp->av_seq, &qp->state_lock);
	sroce_cc_qp_init(qp);
	kref_init(&qp->ref);
	init_completion(&qp->done);

	qp->state = IB_QPS_RESET;
	qp->attr.port_num = SROCE_PORT_NUM;
	qp->attr.path_mtu = IB_MTU_256;
	qp->attr.path_mig_state = IB_MIG_MIGRATED;
	/* RC/UC get a path MTU at RTR; UD follows the port. */
	if (sroce_qpt_connected(qp->type))
		qp->mtu = ib_mtu_enum_to_int(IB_MTU_256);
	else
		qp->mtu = ib_mtu_enum_to_int(READ_ONCE(dev->mtu_cap));
}

/*
 * The QP's own receive ring, or none when it takes its receive WQEs from
 * an SRQ (IBTA 10.2.9: the QP's receive capacities are then 0; the
 * response's rq_mi stays zeroed, which tells the provider), or is an XRC
 * QP: an INI QP receives nothing, a TGT QP takes from the XRC SRQ each
 * request names (annex A14).
 */
static int sroce_qp_init_rq(struct sroce_dev *dev, struct sroce_qp *qp,
			    struct ib_qp_init_attr *init,
			    struct ib_ucontext *uctx,
			    struct sroce_create_qp_resp *resp)
{
	u32 rq_num = roundup_pow_of_two(max(init->cap.max_recv_wr, 1U));
	int err;

	if (qp->srq || qp->type == IB_QPT_XRC_INI ||
	    qp->type == IB_QPT_XRC_TGT) {
		init->cap.max_recv_wr = 0;
		init->cap.max_recv_sge = 0;
		return 0;
	}
	err = sroce_queue_init(dev, &qp->rq, rq_num,
			       sizeof(struct sroce_recv_wqe), uctx,
			       resp ? &resp->rq_mi : NULL);
	if (err)
		return err;
	init->cap.max_recv_wr = rq_num;
	init->cap.max_recv_sge = SROCE_MAX_SGE;
	return 0;
}

/**
 * sroce_qp_init() - set up a new QP: QPN, rings, data path state
 * @dev: device
 * @qp: QP the core allocated (zeroed, ibqp.pd and ibqp.qp_type set)
 * @init: validated creation attributes; @init->cap is updated with what
 *	the QP really has (a power of two of WQEs per ring, at least one;
 *	no receive ring with an SRQ or on XRC QPs, no send ring on an XRC
 *	TGT QP)
 * @uctx: user context mapping the rings, or NULL for a kernel QP
 * @resp: filled with the rings' mmap information when @uctx is set
 *
 * The QPN is reserved but the QP is not visible to packets until
 * sroce_qp_publish().  On failure nothing is left to undo; after success
 * sroce_qp_destroy() undoes everything, published or not.
 * Context: process, may sleep.
 * Return: 0, -EBUSY (a second GSI QP), -ENOMEM, -EINVAL, or the error of
 * sroce_dp_init().
 */
int sroce_qp_init(struct sroce_dev *dev, struct sroce_qp *qp,
		  struct ib_qp_init_attr *init, struct ib_ucontext *uctx,
		  struct sroce_create_qp_resp *resp)
{
	u32 sq_num = roundup_pow_of_two(max(init->cap.max_send_wr, 1U));
	int err;

	sroce_qp_init_fields(dev, qp, init, uctx);

	err = sroce_qp_alloc_qpn(dev, qp);
	if (err)
		return err;

	if (qp->type == IB_QPT_XRC_TGT) {
		/* responder only: no send queue */
		memset(&init->cap, 0, sizeof(init->cap));
	} else {
		err = sroce_queue_init(dev, &qp->sq, sq_num,
				       sizeof(struct sroce_send_wqe), uctx,
				       resp ? &resp->sq_mi : NULL);
		if (err)
			goto err_free_qpn;
		init->cap.max_send_wr = sq_num;
		init->cap.max_send_sge = SROCE_MAX_SGE;
		init->cap.max_inline_data = SROCE_MAX_INLINE;
	}
	err = sroce_qp_init_rq(dev, qp, init, uctx, resp);
	if (err)
		goto err_free_sq;

	err = sroce_dp_init(qp);
	if (err)
		goto err_free_rq;
	return 0;

err_free_rq:
	sroce_queue_cleanup(&qp->rq);
err_free_sq:
	sroce_queue_cleanup(&qp->sq);
err_free_qpn:
	xa_erase(&dev->qp_xa, sroce_qpn(qp));
	return err;
}

/**
 * sroce_qp_publish() - make a set-up QP visible to received packets
 * @qp: QP after a successful sroce_qp_init()
 *
 * Context: process.
 */
void sroce_qp_publish(struct sroce_qp *qp)
{
	/* Cannot fail: the slot was reserved by sroce_qp_alloc_qpn(). */
	xa_store(&qp->dev->qp_xa, sroce_qpn(qp), qp, GFP_KERNEL);
	ibdev_dbg(qp->ibqp.device, "qp#%u created, type %d%s\n",
		  sroce_qpn(qp), qp->type, qp->is_user ? " (user)" : "");
}

/*
 * Value checks of the attributes in @mask that do not depend on state.  The
 * QP's access flags may carry the flush right where the kernel has it, as
 * applications written for rdma_rxe set it (6.2+); sroce's responder
 * checks the MR's right only (IBTA annex A19).
 */
static int sroce_qp_check_attr(struct sroce_qp *qp,
			       const struct ib_qp_attr *attr, int mask)
{
	if ((mask & IB_QP_PORT) && attr->port_num != SROCE_PORT_NUM)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index >= SROCE_PKEY_TBL_LEN)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 ||
	     attr->path_mtu > READ_ONCE(qp->dev->mtu_cap)))
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > SROCE_MAX_RD_ATOMIC)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > SROCE_MAX_RD_ATOMIC)
		return -EINVAL;
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > SROCE_QPN_MASK)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MIG_STATE) &&
	    (unsigned int)attr->path_mig_state > IB_MIG_ARMED)
		return -EINVAL;
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~(IB_ACCESS_LOCAL_WRITE |
				       IB_ACCESS_REMOTE_WRITE |
				       IB_ACCESS_REMOTE_READ |
				       IB_ACCESS_REMOTE_ATOMIC |
				       IB_ACCESS_MW_BIND |
				       SROCE_QP_ACCESS_FLUSH)))
		return -EINVAL;
	return 0;
}

/* RoCEv2 needs a GRH naming one of our GIDs (IBTA A17.4.5). */
static int sroce_qp_check_av(struct sroce_qp *qp,
			     const struct rdma_ah_attr *ah_attr,
			     struct sroce_av *av)
{
	if (ah_attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(ah_attr) & IB_AH_GRH) ||
	    rdma_ah_get_port_num(ah_attr) != SROCE_PORT_NUM)
		return -EINVAL;
	return sroce_av_from_attr(qp->dev, av, ah_attr);
}

/* Copy the attributes in @mask into qp->attr; the caller checked them. */
static void sroce_qp_store_attr(struct sroce_qp *qp,
				const struct ib_qp_attr *attr, int mask,
				const struct sroce_av *av)
{
	struct ib_qp_attr *a = &qp->attr;

	lockdep_assert_held(&qp->state_lock);

	if (mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		a->en_sqd_async_notify = attr->en_sqd_async_notify;
	if (mask & IB_QP_ACCESS_FLAGS)
		a->qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_PKEY_INDEX)
		a->pkey_index = attr->pkey_index;
	if (mask & IB_QP_PORT)
		a->port_num = attr->port_num;
	if (mask & IB_QP_QKEY)
		a->qkey = attr->qkey;
	if (mask & IB_QP_AV) {
		a->ah_attr = attr->ah_attr;
		/* Not ours to keep: the core holds the reference. */
		a->ah_attr.grh.sgid_attr = NULL;
		/* the receive path reads it without the lock */
		write_seqcount_begin(&qp->av_seq);
		qp->av = *av;
		write_seqcount_end(&qp->av_seq);
		dst_cache_reset(&qp->dst_cache);
	}
	if (mask & IB_QP_PATH_MTU) {
		a->path_mtu = attr->path_mtu;
		qp->mtu = ib_mtu_enum_to_int(attr->path_mtu);
	}
	if (mask & IB_QP_TIMEOUT)
		a->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		a->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		a->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_RQ_PSN)
		a->rq_psn = attr->rq_psn & SROCE_PSN_MASK;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MIN_RNR_TIMER)
		a->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_SQ_PSN)
		a->sq_psn = attr->sq_psn & SROCE_PSN_MASK;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_PATH_MIG_STATE)
		a->path_mig_state = attr->path_mig_state;
	if (mask & IB_QP_DEST_QPN)
		a->dest_qp_num = attr->dest_qp_num;
}

/*
 * The state the QP is in and the one asked for.  A consumer that names the
 * current state (IB_QP_CUR_STATE) must name the real one (IBTA 11.2.4.2).
 */
static int sroce_qp_states(struct sroce_qp *qp, const struct ib_qp_attr *attr,
			   int mask, enum ib_qp_state *cur,
			   enum ib_qp_state *next)
{
	lockdep_assert_held(&qp->state_lock);

	*cur = qp->state;
	*next = (mask & IB_QP_STATE) ? attr->qp_state : *cur;
	if ((mask & IB_QP_CUR_STATE) && attr->cur_qp_state != *cur)
		return -EINVAL;
	if ((unsigned int)*next > IB_QPS_ERR)
		return -EINVAL;
	if (!sroce_modify_qp_ok(*cur, *next, qp->type, mask))
		return -EINVAL;
	return 0;
}

/**
 * sroce_qp_modify() - apply a modify_qp request (IBTA 11.2.4.2)
 * @qp: queue pair
 * @attr: attributes
 * @mask: IB_QP_* bits naming the valid attributes
 *
 * Validates the values and allocates the responder resources a new
 * max_dest_rd_atomic asks for (on the caller's memory cgroup), then, under
 * @qp->state_lock, the transition and the
 * mask against the IBTA tables; stores the attributes, moves the state and
 * lets the data path pick up PSNs and reset itself (sroce_dp_modify(),
 * which also forgets the congestion control state on a move to RESET).
 * Entering RTS or ERR schedules the QP's work: posted WQEs start, or are
 * flushed.
 * Context: process.
 * Return: 0, -EOPNOTSUPP (alternate path, non-standard bits), -EINVAL (bad
 * value, transition or mask; path MTU above the port's), -ENOMEM (the
 * responder resources of max_dest_rd_atomic).
 */
int sroce_qp_modify(struct sroce_qp *qp, struct ib_qp_attr *attr, int mask)
{
	struct sroce_resp_res *res = NULL;
	enum ib_qp_state cur, next;
	struct sroce_av av = {};
	unsigned long flags;
	int err;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	if (mask & IB_QP_ALT_PATH)
		return -EOPNOTSUPP;

	err = sroce_qp_check_attr(qp, attr, mask);
	if (!err && (mask & IB_QP_AV))
		err = sroce_qp_check_av(qp, &attr->ah_attr, &av);
	if (!err)
		res = sroce_resp_res_alloc(qp, attr, mask);
	if (err || IS_ERR(res))
		return err ?: PTR_ERR(res);

	spin_lock_irqsave(&qp->state_lock, flags);
	err = sroce_qp_states(qp, attr, mask, &cur, &next);
	if (err) {
		spin_unlock_irqrestore(&qp->state_lock, flags);
		kfree(res);
		ibdev_dbg(qp->ibqp.device,
			  "qp#%u %s -> %s mask %#x refused\n", sroce_qpn(qp),
			  sroce_qp_state_name(cur), sroce_qp_state_name(next),
			  mask);
		return err;
	}

	sroce_qp_store_attr(qp, attr, mask, &av);
	if (!sroce_qpt_connected(qp->type))
		qp->mtu = ib_mtu_enum_to_int(READ_ONCE(qp->dev->mtu_cap));
	sroce_qp_set_state(qp, next);
	sroce_dp_modify(qp, mask, cur);
	sroce_resp_res_offer(qp, mask, &res);
	spin_unlock_irqrestore(&qp->state_lock, flags);
	kfree(res);	/* resources an earlier modify offered, never taken */

	if (cur != next) {
		ibdev_dbg(qp->ibqp.device, "qp#%u %s -> %s\n", sroce_qpn(qp),
			  sroce_qp_state_name(cur), sroce_qp_state_name(next));
		if (next == IB_QPS_RTS || next == IB_QPS_ERR)
			sroce_qp_schedule(qp);
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_qp_modify);

/**
 * sroce_qp_query() - current attributes and creation attributes of a QP
 * @qp: queue pair
 * @attr: filled completely (the core's mask is only a hint)
 * @init: filled with the creation attributes and real capacities
 *
 * Context: process.
 */
void sroce_qp_query(struct sroce_qp *qp, struct ib_qp_attr *attr,
		    struct ib_qp_init_attr *init)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	*attr = qp->attr;
	attr->qp_state = qp->state;
	spin_unlock_irqrestore(&qp->state_lock, flags);

	attr->cur_qp_state = attr->qp_state;
	attr->sq_draining = 0;
	attr->ah_attr.grh.sgid_attr = NULL;
	memset(&attr->alt_ah_attr, 0, sizeof(attr->alt_ah_attr));
	if (!sroce_qpt_connected(qp->type))
		attr->path_mtu = READ_ONCE(qp->dev->mtu_cap);
	attr->cap.max_send_wr = qp->sq.num;
	attr->cap.max_recv_wr = qp->rq.num;
	attr->cap.max_send_sge = qp->sq.num ? SROCE_MAX_SGE : 0;
	attr->cap.max_recv_sge = qp->rq.num ? SROCE_MAX_SGE : 0;
	attr->cap.max_inline_data = qp->sq.num ? SROCE_MAX_INLINE : 0;

	memset(init, 0, sizeof(*init));
	init->event_handler = qp->ibqp.event_handler;
	init->qp_context = qp->ibqp.qp_context;
	init->send_cq = qp->scq ? &qp->scq->ibcq : NULL;
	init->recv_cq = qp->rcq ? &qp->rcq->ibcq : NULL;
	init->srq = qp->srq ? &qp->srq->ibsrq : NULL;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	init->qp_type = qp->type;
	init->port_num = SROCE_PORT_NUM;
}

/**
 * sroce_qp_destroy() - tear a QP down and wait until nothing uses it
 * @qp: QP after a successful sroce_qp_init(), published or not
 *
 * Never fails: the core destroys user QPs this way on device removal too.
 * Outstanding WQEs are dropped without completions (IBTA 10.3.3: the QP's
 * work requests are discarded).
 * Context: process, sleeps (RCU grace period, data path shutdown).
 */
void sroce_qp_destroy(struct sroce_qp *qp)
{
	struct sroce_dev *dev = qp->dev;

	sroce_mcast_qp_leave_all(qp);
	xa_erase(&dev->qp_xa, sroce_qpn(qp));
	/*
	 * After this no lookup can still hold a pointer without a reference.
	 * Expedited: a normal grace period costs tens of ms per destroyed QP,
	 * which applications that churn QPs (and device removal with many
	 * QPs) would feel.
	 */
	synchronize_rcu_expedited();

	sroce_dp_stop(qp);
	sroce_qp_put(qp);
	wait_for_completion(&qp->done);

	sroce_queue_cleanup(&qp->sq);
	sroce_queue_cleanup(&qp->rq);
	ibdev_dbg(&dev->ib_dev, "qp#%u destroyed\n", sroce_qpn(qp));
}
