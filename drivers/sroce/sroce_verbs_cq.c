// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queue verbs: create, resize and destroy a CQ (its ring is a
 * struct sroce_queue, sroce_queue.c), and poll_cq and req_notify_cq for
 * kernel consumers, which convert the ring's CQEs (userspace IBV_WC_*
 * values) into struct ib_wc.  User CQs are polled and armed by the
 * provider in the mapped ring.
 */

#include <linux/log2.h>
#include <linux/rcupdate.h>
#include <linux/xarray.h>

#include "sroce.h"
#include "sroce_compat.h"
#include "sroce_qp.h"
#include "sroce_queue.h"
#include "sroce_verbs.h"

/**
 * sroce_create_cq() - create a completion queue (ib_device_ops.create_cq)
 * @ibcq: CQ the core allocated
 * @attr: cqe 1..SROCE_MAX_CQE, a valid comp_vector, no flags
 * @uarg: the core's udata (kernels before 6.11) or uverbs attribute bundle;
 *	user CQs are answered with struct sroce_create_cq_resp (the ring)
 *
 * The ring gets the next power of two of @attr->cqe slots, all usable; the
 * real size is reported in ibcq->cqe.
 * Context: process.
 * Return: 0, -EOPNOTSUPP (flags), -EINVAL, -ENOMEM (also: max_cq reached),
 * -EFAULT.
 */
int sroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct sroce_create_cq_uarg *uarg)
{
	struct ib_udata *udata = sroce_create_cq_udata(uarg);
	struct sroce_dev *dev = to_sroce_dev(ibcq->device);
	struct sroce_cq *cq = to_sroce_cq(ibcq);
	struct sroce_create_cq_resp resp = {};
	u32 num;
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->cqe < 1 || attr->cqe > SROCE_MAX_CQE ||
	    attr->comp_vector >= ibcq->device->num_comp_vectors)
		return -EINVAL;
	err = sroce_udata_ok(udata, sizeof(resp));
	if (err)
		return err;

	err = sroce_res_get(dev, SROCE_RES_CQ);
	if (err)
		return err;

	spin_lock_init(&cq->lock);
	cq->is_user = !!udata;
	num = roundup_pow_of_two(attr->cqe);
	err = sroce_queue_init(dev, &cq->queue, num, sizeof(struct sroce_cqe),
			       sroce_udata_uctx(udata),
			       udata ? &resp.mi : NULL);
	if (err)
		goto err_put;

	if (udata) {
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_cleanup;
	}
	ibcq->cqe = num;
	return 0;

err_cleanup:
	sroce_queue_cleanup(&cq->queue);
err_put:
	sroce_res_put(dev, SROCE_RES_CQ);
	return err;
}

/**
 * sroce_destroy_cq() - destroy a completion queue (ib_device_ops.destroy_cq)
 * @ibcq: CQ; the core guarantees no QP uses it any more, and destroyed QPs
 *	have no deferred work left, so nothing posts to it
 * @udata: user data
 *
 * Context: process.
 * Return: 0.
 */
int sroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct sroce_cq *cq = to_sroce_cq(ibcq);

	sroce_queue_cleanup(&cq->queue);
	sroce_res_put(to_sroce_dev(ibcq->device), SROCE_RES_CQ);
	return 0;
}

/**
 * sroce_resize_cq() - change the size of a CQ, keeping every CQE
 *	(ib_device_ops.resize_cq)
 * @ibcq: CQ
 * @cqe: wanted size, 1..SROCE_MAX_CQE; the ring gets the next power of two
 *	of slots, reported in ibcq->cqe
 * @udata: a user CQ is answered with struct sroce_resize_cq_resp
 *
 * A new ring is allocated (and, for a user CQ, offered for mmap), the CQEs
 * not yet polled are copied into it under the CQ lock and it replaces the
 * old ring, whose mmap entry goes; the provider maps the new ring and
 * unmaps the old one.  The response is written before the swap, so a
 * failed copy to the user leaves the CQ as it was.
 * Context: process.
 * Return: 0, -EINVAL for a size out of range or smaller than the number of
 * CQEs pending, or for a kernel CQ resized with udata (and vice versa),
 * -ENOMEM, -EFAULT.
 */
int sroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct sroce_dev *dev = to_sroce_dev(ibcq->device);
	struct sroce_cq *cq = to_sroce_cq(ibcq);
	struct sroce_resize_cq_resp resp = {};
	struct sroce_queue nq;
	int err;

	if (cqe < 1 || cqe > SROCE_MAX_CQE || !!udata != cq->is_user)
		return -EINVAL;
	err = sroce_udata_ok(udata, sizeof(resp));
	if (err)
		return err;

	err = sroce_queue_init(dev, &nq, roundup_pow_of_two(cqe),
			       sizeof(struct sroce_cqe), sroce_udata_uctx(udata),
			       udata ? &resp.mi : NULL);
	if (err)
		return err;
	if (udata) {
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto out;
	}
	/* On success nq holds the old ring. */
	err = sroce_cq_swap_ring(cq, &nq);
out:
	sroce_queue_cleanup(&nq);
	return err;
}

static enum ib_wc_opcode sroce_wc_opcode(u32 opcode)
{
	/*
	 * FLUSH and ATOMIC WRITE: IB_WC_FLUSH and IB_WC_ATOMIC_WRITE since
	 * 6.2, the same values.  6.1's IB_WC_REG_MR is 8 as well, which this
	 * keeps (a kernel QP's CQE; a user QP's goes to a user CQ).
	 */
	if (opcode == SROCE_WC_FLUSH || opcode == SROCE_WC_ATOMIC_WRITE)
		return (enum ib_wc_opcode)opcode;
	switch (opcode) {
	case IB_UVERBS_WC_SEND:
		return IB_WC_SEND;
	case IB_UVERBS_WC_RDMA_WRITE:
		return IB_WC_RDMA_WRITE;
	case IB_UVERBS_WC_RDMA_READ:
		return IB_WC_RDMA_READ;
	case IB_UVERBS_WC_COMP_SWAP:
		return IB_WC_COMP_SWAP;
	case IB_UVERBS_WC_FETCH_ADD:
		return IB_WC_FETCH_ADD;
	case IB_UVERBS_WC_BIND_MW:
		return IB_WC_BIND_MW;
	case IB_UVERBS_WC_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case IB_UVERBS_WC_TSO:
		return IB_WC_LSO;
	case IB_WC_REG_MR:		/* kernel CQEs only */
		return IB_WC_REG_MR;
	case IB_WC_RECV_RDMA_WITH_IMM:	/* IBV_WC_RECV_RDMA_WITH_IMM */
		return IB_WC_RECV_RDMA_WITH_IMM;
	default:			/* IBV_WC_RECV */
		return IB_WC_RECV;
	}
}

/*
 * CQE flags hold the userspace IBV_WC_* bits; the kernel's differ from bit
 * 2 on (IB_WC_WITH_INVALIDATE is bit 2, IBV_WC_WITH_INV bit 3).
 */
static int sroce_wc_flags(const struct sroce_cqe *cqe)
{
	int flags = 0;

	if (cqe->wc_flags & SROCE_WC_F_GRH)
		flags |= IB_WC_GRH;
	if (cqe->wc_flags & SROCE_WC_F_WITH_IMM)
		flags |= IB_WC_WITH_IMM;
	if (cqe->wc_flags & SROCE_WC_F_WITH_INV)
		flags |= IB_WC_WITH_INVALIDATE;
	if (cqe->network_hdr_type)
		flags |= IB_WC_WITH_NETWORK_HDR_TYPE;
	return flags;
}

/* The core QP a CQE belongs to, or NULL once that QP was destroyed. */
static struct ib_qp *sroce_cqe_qp(struct sroce_dev *dev, u32 qpn)
{
	struct sroce_qp *qp;

	rcu_read_lock();
	qp = xa_load(&dev->qp_xa, qpn & SROCE_QPN_MASK);
	rcu_read_unlock();
	return qp ? &qp->ibqp : NULL;
}

static void sroce_cqe_to_wc(struct sroce_dev *dev,
			    const struct sroce_cqe *cqe, struct ib_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = cqe->wr_id;
	wc->status = cqe->status;
	wc->opcode = sroce_wc_opcode(cqe->opcode);
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = cqe->byte_len;
	wc->qp = sroce_cqe_qp(dev, cqe->qp_num);
	if (cqe->wc_flags & SROCE_WC_F_WITH_INV)
		wc->ex.invalidate_rkey = cqe->ex.invalidated_rkey;
	else
		wc->ex.imm_data = cqe->ex.imm_data;
	wc->src_qp = cqe->src_qp;
	wc->slid = cqe->slid;
	wc->wc_flags = sroce_wc_flags(cqe);
	wc->pkey_index = cqe->pkey_index;
	wc->sl = cqe->sl;
	wc->dlid_path_bits = cqe->dlid_path_bits;
	wc->port_num = SROCE_PORT_NUM;
	wc->network_hdr_type = cqe->network_hdr_type;
}

/**
 * sroce_poll_cq() - take completions from a kernel CQ (ib_device_ops.poll_cq)
 * @ibcq: CQ
 * @num_entries: room in @wc
 * @wc: filled with kernel values (flags and opcodes converted)
 *
 * User CQs are polled by the provider from the mapped ring.
 * Context: any (takes cq->lock with irqsave).
 * Return: the number of completions, or -EINVAL for a user CQ.
 */
int sroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct sroce_dev *dev = to_sroce_dev(ibcq->device);
	struct sroce_cq *cq = to_sroce_cq(ibcq);
	struct sroce_queue *q = &cq->queue;
	unsigned long flags;
	int n = 0;
	u32 cons;

	if (cq->is_user)
		return -EINVAL;

	spin_lock_irqsave(&cq->lock, flags);
	cons = q->hdr->consumer;
	while (n < num_entries && cons != q->kidx) {
		sroce_cqe_to_wc(dev, sroce_queue_slot(q, cons), &wc[n]);
		cons++;
		n++;
	}
	/* Slots read above may be reused once the producer sees this. */
	smp_store_release(&q->hdr->consumer, cons);
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

/**
 * sroce_req_notify_cq() - arm a CQ (ib_device_ops.req_notify_cq)
 * @ibcq: CQ
 * @flags: IB_CQ_SOLICITED or IB_CQ_NEXT_COMP, optionally
 *	IB_CQ_REPORT_MISSED_EVENTS
 *
 * An armed IB_CQ_NEXT_COMP is not weakened to IB_CQ_SOLICITED.
 * Context: any (takes cq->lock with irqsave).
 * Return: 0, or 1 with IB_CQ_REPORT_MISSED_EVENTS when CQEs are pending
 * (the caller must poll again, IBTA 11.4.2.2).
 */
int sroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct sroce_cq *cq = to_sroce_cq(ibcq);
	struct sroce_queue *q = &cq->queue;
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = flags & IB_CQ_SOLICITED_MASK;
	if (flags & IB_CQ_REPORT_MISSED_EVENTS) {
		/* Pairs with the consumer's release store of its index. */
		if (q->kidx != smp_load_acquire(&q->hdr->consumer))
			ret = 1;
	}
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}
