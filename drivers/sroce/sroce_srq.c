// SPDX-License-Identifier: GPL-2.0
/*
 * Shared receive queues (IBTA vol. 1 10.2.9): one ring of receive WQEs
 * that the responders of every QP attached to it take from.
 *
 * The ring is an ordinary sroce_queue (sroce_queue.c): mapped by the
 * provider for a user SRQ, which posts by writing it and never enters the
 * kernel; filled by sroce_post_srq_recv() for a kernel SRQ.  A QP's
 * responder takes a WQE when a message starts (sroce_srq_take()): under
 * srq->lock it copies the slot once (sroce_queue_fetch_recv(), the same
 * copy and check as for an RQ) and consumes it at once, so QPs on other
 * CPUs never take the same WQE; the QP keeps its private copy until the
 * message completes.
 *
 * SRQ limit (IBTA 10.2.9, as mlx5 and rxe implement it):
 * modify_srq(IB_SRQ_LIMIT) arms it; when a take leaves
 * fewer WQEs on the SRQ than the limit, IB_EVENT_SRQ_LIMIT_REACHED is
 * raised once and the limit disarms (0) until armed again.
 *
 * XRC SRQs (IBTA vol. 1 annex A14): an SRQ of an XRC domain, with its own
 * CQ, that no QP is attached to: every request a TGT QP of that domain
 * receives names the SRQ in its XRCETH.  They have a number in
 * dev->srq_xa; the responder looks it up (RCU, kref) for each request and
 * destroy waits for those references, which last one responder run.
 */

#include <linux/log2.h>
#include <linux/xarray.h>
#include <kunit/visibility.h>

#include "sroce.h"
#include "sroce_queue.h"
#include "sroce_srq.h"

/**
 * sroce_srq_limit_hit() - does the SRQ limit fire for this WQE count?
 * @limit: armed limit, 0 when disarmed; set to 0 when it fires
 * @count: WQEs left on the SRQ
 *
 * IBTA 10.2.9: the event fires when the count drops below an armed
 * limit, once; then the limit is disarmed.
 * Context: any; the caller serializes @limit (srq->lock).
 * Return: true when IB_EVENT_SRQ_LIMIT_REACHED is due.
 */
bool sroce_srq_limit_hit(u32 *limit, u32 count)
{
	if (!*limit || count >= *limit)
		return false;
	*limit = 0;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_srq_limit_hit);

static void sroce_srq_event(struct sroce_srq *srq, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
		.event = type,
	};

	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}

/**
 * sroce_srq_check_init() - check SRQ creation attributes
 * @init: basic or XRC SRQ; max_wr up to SROCE_MAX_SRQ_WR, max_sge up to
 *	SROCE_MAX_SGE (what query_device advertises); an XRC SRQ names its
 *	XRC domain and CQ; srq_limit is ignored at creation
 *	(ibv_create_srq(3), ibv_create_srq_ex(3))
 *
 * Context: any.
 * Return: 0, -EOPNOTSUPP (tag matching SRQ), -EINVAL (over a limit, XRC
 * SRQ without XRC domain or CQ).
 */
int sroce_srq_check_init(const struct ib_srq_init_attr *init)
{
	if (init->srq_type == IB_SRQT_XRC) {
		if (!init->ext.cq || !init->ext.xrc.xrcd)
			return -EINVAL;
	} else if (init->srq_type != IB_SRQT_BASIC) {
		return -EOPNOTSUPP;
	}
	if (init->attr.max_wr > SROCE_MAX_SRQ_WR ||
	    init->attr.max_sge > SROCE_MAX_SGE)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_srq_check_init);

/**
 * sroce_srq_init() - set up a new SRQ and its ring
 * @dev: device
 * @srq: SRQ the core allocated (zeroed, ibsrq.pd set)
 * @init: checked by sroce_srq_check_init(); @init->attr is updated with
 *	the real capacities: max_wr the ring size (the next power of two, at
 *	least 1), max_sge at least 1
 * @uctx: user context mapping the ring, or NULL for a kernel SRQ
 * @resp: filled with the ring's mmap information when @uctx is set
 *
 * An XRC SRQ also gets its number (ibsrq.ext.xrc.srq_num), reserved in
 * dev->srq_xa; requests find it after sroce_srq_publish().
 * Context: process, may sleep.
 * Return: 0, -EINVAL, -ENOMEM.
 */
int sroce_srq_init(struct sroce_dev *dev, struct sroce_srq *srq,
		   struct ib_srq_init_attr *init, struct ib_ucontext *uctx,
		   struct sroce_create_srq_resp *resp)
{
	u32 num = roundup_pow_of_two(max(init->attr.max_wr, 1U));
	int err;

	srq->dev = dev;
	srq->is_user = !!uctx;
	srq->max_sge = max(init->attr.max_sge, 1U);
	spin_lock_init(&srq->lock);
	spin_lock_init(&srq->prod_lock);
	kref_init(&srq->ref);
	init_completion(&srq->done);
	if (init->srq_type == IB_SRQT_XRC) {
		err = xa_alloc_cyclic(&dev->srq_xa, &srq->srqn, NULL,
				      XA_LIMIT(1, SROCE_SRQN_MASK),
				      &dev->next_srqn, GFP_KERNEL);
		if (err < 0)
			return err == -EBUSY ? -ENOMEM : err;
		srq->ibsrq.ext.xrc.srq_num = srq->srqn;
	}
	err = sroce_queue_init(dev, &srq->rq, num,
			       sizeof(struct sroce_recv_wqe), uctx,
			       resp ? &resp->mi : NULL);
	if (err) {
		if (srq->srqn)
			xa_erase(&dev->srq_xa, srq->srqn);
		return err;
	}
	init->attr.max_wr = num;
	init->attr.max_sge = srq->max_sge;
	init->attr.srq_limit = 0;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_srq_init);

/**
 * sroce_srq_modify() - arm the SRQ limit (ib_device_ops.modify_srq)
 * @srq: SRQ
 * @attr: srq_limit with IB_SRQ_LIMIT: 0 disarms, 1..max_wr arms
 * @mask: IB_SRQ_LIMIT; IB_SRQ_MAX_WR (resizing) is not offered
 *
 * Context: process.
 * Return: 0, or -EINVAL (resize asked, unknown bits, limit above max_wr:
 * ibv_modify_srq(3)).
 */
int sroce_srq_modify(struct sroce_srq *srq, const struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask)
{
	unsigned long flags;

	if (mask & ~IB_SRQ_LIMIT)
		return -EINVAL;
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit > srq->rq.num)
		return -EINVAL;
	spin_lock_irqsave(&srq->lock, flags);
	srq->limit = attr->srq_limit;
	spin_unlock_irqrestore(&srq->lock, flags);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_srq_modify);

/**
 * sroce_srq_query() - SRQ attributes (ib_device_ops.query_srq)
 * @srq: SRQ
 * @attr: filled: ring size, SGEs per WQE, armed limit (0: disarmed)
 *
 * Context: any.
 */
void sroce_srq_query(struct sroce_srq *srq, struct ib_srq_attr *attr)
{
	attr->max_wr = srq->rq.num;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = READ_ONCE(srq->limit);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_srq_query);

/**
 * sroce_srq_publish() - let XRC requests find a set-up SRQ
 * @srq: SRQ after a successful sroce_srq_init(); nothing for a basic SRQ
 *
 * Context: process.
 */
void sroce_srq_publish(struct sroce_srq *srq)
{
	/* cannot fail: sroce_srq_init() reserved the slot */
	if (srq->srqn)
		xa_store(&srq->dev->srq_xa, srq->srqn, srq, GFP_KERNEL);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_srq_publish);

static void sroce_srq_release(struct kref *ref)
{
	complete(&container_of(ref, struct sroce_srq, ref)->done);
}

/**
 * sroce_srq_put() - drop a reference sroce_srq_lookup_xrc() took
 * @srq: the SRQ
 *
 * Context: any.
 */
void sroce_srq_put(struct sroce_srq *srq)
{
	kref_put(&srq->ref, sroce_srq_release);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_srq_put);

/**
 * sroce_srq_lookup_xrc() - the XRC SRQ an XRC request names
 * @dev: device
 * @srqn: XRCSRQ field of the request's XRCETH (IBTA annex A14)
 * @xrcd: XRC domain of the TGT QP the request arrived on
 *
 * IBTA annex A14: a TGT QP delivers only to SRQs of its own domain.
 * Context: any (RCU inside).
 * Return: the SRQ with a reference (sroce_srq_put()), or NULL when no
 * published XRC SRQ has this number in @xrcd.
 */
struct sroce_srq *sroce_srq_lookup_xrc(struct sroce_dev *dev, u32 srqn,
				       const struct ib_xrcd *xrcd)
{
	struct sroce_srq *srq;

	if (!srqn || !xrcd)
		return NULL;
	rcu_read_lock();
	srq = xa_load(&dev->srq_xa, srqn & SROCE_SRQN_MASK);
	if (srq && !kref_get_unless_zero(&srq->ref))
		srq = NULL;
	rcu_read_unlock();
	if (srq && srq->ibsrq.ext.xrc.xrcd != xrcd) {
		sroce_srq_put(srq);
		srq = NULL;
	}
	return srq;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_srq_lookup_xrc);

/**
 * sroce_srq_destroy() - release an SRQ's ring
 * @srq: SRQ no QP is attached to any more (the core refuses to destroy an
 *	SRQ still in use with -EBUSY, and a QP's destroy waits for its
 *	responder, so nothing takes from the ring now).  An XRC SRQ is
 *	unpublished first, then destroy waits for the responders that
 *	looked it up: each holds it for one request (bounded, never across
 *	packets)
 *
 * WQEs still posted are dropped without completions (IBTA 10.2.9).
 * Context: process, sleeps (XRC: RCU grace period).
 */
void sroce_srq_destroy(struct sroce_srq *srq)
{
	if (srq->srqn) {
		xa_erase(&srq->dev->srq_xa, srq->srqn);
		synchronize_rcu_expedited();
		sroce_srq_put(srq);
		wait_for_completion(&srq->done);
	}
	sroce_queue_cleanup(&srq->rq);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_srq_destroy);

/**
 * sroce_srq_take() - take the next receive WQE of an SRQ for a QP
 * @srq: SRQ the QP is attached to
 * @wqe: filled with the checked copy of the WQE (sroce_queue_fetch_recv())
 *
 * Copies and consumes the WQE at the consumer index under @srq->lock, so
 * responders of several QPs on different CPUs each get their own WQE.  A
 * WQE with a bad entry count is consumed too: the QP completes it in error.
 * Raises IB_EVENT_SRQ_LIMIT_REACHED when the take leaves fewer WQEs than
 * an armed limit (sroce_srq_limit_hit()), and IB_EVENT_SRQ_ERR once when
 * the provider broke the ring (IBTA 11.6.3.4); both without @srq->lock.
 * Context: a responder run of an attached QP, any context; does not sleep.
 * Return: as sroce_queue_fetch_recv(): >= 1 taken, 0 empty, -EBADMSG
 * taken but bad, -EIO the ring is broken (now or earlier).
 */
int sroce_srq_take(struct sroce_srq *srq, struct sroce_recv_wqe *wqe)
{
	bool limit = false, broke = false;
	unsigned long flags;
	int n, left;

	spin_lock_irqsave(&srq->lock, flags);
	if (srq->broken || !srq->rq.hdr) {
		spin_unlock_irqrestore(&srq->lock, flags);
		return -EIO;
	}
	n = sroce_queue_fetch_recv(&srq->rq, wqe);
	if (n == -EIO) {
		srq->broken = true;
		broke = true;
	} else if (n) {
		sroce_queue_consume(&srq->rq, 1);
		left = sroce_queue_count(&srq->rq);
		limit = left >= 0 && sroce_srq_limit_hit(&srq->limit, left);
	}
	spin_unlock_irqrestore(&srq->lock, flags);

	if (broke)
		sroce_srq_event(srq, IB_EVENT_SRQ_ERR);
	if (limit)
		sroce_srq_event(srq, IB_EVENT_SRQ_LIMIT_REACHED);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_srq_take);
