// SPDX-License-Identifier: GPL-2.0
/*
 * Queue pair and shared receive queue verbs: create, modify, query and
 * destroy.  Creation checks the attributes, takes a device slot
 * (sroce_res_get()) and answers a user object with its rings; the objects
 * themselves are sroce_qp.c's and sroce_srq.c's.
 */

#include "sroce.h"
#include "sroce_qp.h"
#include "sroce_srq.h"
#include "sroce_verbs.h"

/* ------------------------------------------------------------------ */
/* Queue pairs                                                         */
/* ------------------------------------------------------------------ */

/*
 * The QP type and what it must come with.  XRC (IBTA vol. 1 annex A14): a
 * send (INI) QP has a send CQ only, and only userspace can name the remote
 * SRQ of its work requests (struct ib_send_wr has no field for it); a
 * receive (TGT) QP has an XRC domain and nothing else: the core creates
 * it without udata, for the process that asked, and shares it.
 */
static int sroce_check_qp_type(const struct ib_qp_init_attr *init,
			       struct ib_udata *udata)
{
	bool cqs = init->send_cq && init->recv_cq;

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	case IB_QPT_GSI:
		/* IBTA 10.2.9: RC, UC and UD QPs may take receives from an SRQ */
		if (udata || init->srq)
			return -EOPNOTSUPP;
		break;
	case IB_QPT_XRC_INI:
		if (!udata)
			return -EOPNOTSUPP;
		return init->send_cq && !init->srq && !init->xrcd ? 0 : -EINVAL;
	case IB_QPT_XRC_TGT:
		return init->xrcd && !init->srq ? 0 : -EINVAL;
	default:
		return -EOPNOTSUPP;
	}
	if (init->xrcd)
		return -EOPNOTSUPP;
	return cqs ? 0 : -EINVAL;
}

static int sroce_check_qp_init(const struct ib_qp_init_attr *init,
			       struct ib_udata *udata)
{
	const struct ib_qp_cap *cap = &init->cap;
	int err;

	if (init->create_flags || init->rwq_ind_tbl)
		return -EOPNOTSUPP;
	err = sroce_check_qp_type(init, udata);
	if (err)
		return err;
	if (init->sq_sig_type != IB_SIGNAL_ALL_WR &&
	    init->sq_sig_type != IB_SIGNAL_REQ_WR)
		return -EINVAL;
	if (cap->max_send_wr > SROCE_MAX_QP_WR ||
	    cap->max_recv_wr > SROCE_MAX_QP_WR ||
	    cap->max_send_sge > SROCE_MAX_SGE ||
	    cap->max_recv_sge > SROCE_MAX_SGE ||
	    cap->max_inline_data > SROCE_MAX_INLINE)
		return -EINVAL;
	return 0;
}

/**
 * sroce_create_qp() - create a queue pair (ib_device_ops.create_qp)
 * @ibqp: QP the core allocated
 * @init: RC, UC, UD or GSI; RC, UC or UD with an SRQ or not; XRC INI (user
 *	only) or TGT; no creation flags; capacities up to the device limits.
 *	@init->cap is updated with the real capacities.
 * @udata: user QPs are answered with struct sroce_create_qp_resp (rings)
 *
 * Context: process.
 * Return: 0, -EOPNOTSUPP, -EINVAL, -EBUSY (second GSI QP), -ENOMEM (also:
 * max_qp reached), -EFAULT.
 */
int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata)
{
	struct sroce_dev *dev = to_sroce_dev(ibqp->device);
	struct sroce_qp *qp = to_sroce_qp(ibqp);
	struct sroce_create_qp_resp resp = {};
	int err;

	err = sroce_check_qp_init(init, udata);
	if (err)
		return err;
	err = sroce_udata_ok(udata, sizeof(resp));
	if (err)
		return err;

	err = sroce_res_get(dev, SROCE_RES_QP);
	if (err)
		return err;

	err = sroce_qp_init(dev, qp, init, sroce_udata_uctx(udata),
			    udata ? &resp : NULL);
	if (err)
		goto err_put;

	if (udata) {
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err) {
			sroce_qp_destroy(qp);
			goto err_put;
		}
	}
	sroce_qp_publish(qp);
	return 0;

err_put:
	sroce_res_put(dev, SROCE_RES_QP);
	return err;
}

/**
 * sroce_modify_qp() - modify a queue pair (ib_device_ops.modify_qp)
 * @ibqp: QP
 * @attr: attributes
 * @mask: IB_QP_* bits naming the valid attributes
 * @udata: user data; we define no driver input
 *
 * Context: process.
 * Return: see sroce_qp_modify().
 */
int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata)
{
	int err;

	err = sroce_udata_in_ok(udata);
	if (err)
		return err;
	return sroce_qp_modify(to_sroce_qp(ibqp), attr, mask);
}

/**
 * sroce_query_qp() - attributes of a queue pair (ib_device_ops.query_qp)
 * @ibqp: QP
 * @attr: filled completely
 * @mask: attributes asked for (all are returned)
 * @init: creation attributes with the real capacities
 *
 * Context: process.
 * Return: 0.
 */
int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init)
{
	sroce_qp_query(to_sroce_qp(ibqp), attr, init);
	return 0;
}

/**
 * sroce_destroy_qp() - destroy a queue pair (ib_device_ops.destroy_qp)
 * @ibqp: QP
 * @udata: user data
 *
 * Returns only when no work item, timer or packet uses the QP any more.
 * Context: process, sleeps.
 * Return: 0 (never fails).
 */
int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	sroce_qp_destroy(to_sroce_qp(ibqp));
	sroce_res_put(to_sroce_dev(ibqp->device), SROCE_RES_QP);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Shared receive queues                                               */
/* ------------------------------------------------------------------ */

/**
 * sroce_create_srq() - create a shared receive queue
 *	(ib_device_ops.create_srq)
 * @ibsrq: SRQ the core allocated
 * @init: basic or XRC SRQ (an XRC SRQ with its XRC domain and CQ),
 *	max_wr up to max_srq_wr, max_sge up to max_srq_sge (query_device);
 *	updated with the real capacities (sroce_srq_init())
 * @udata: user SRQs are answered with struct sroce_create_srq_resp (the
 *	ring the provider posts to without entering the kernel)
 *
 * Context: process.
 * Return: 0, -EOPNOTSUPP (tag matching SRQ), -EINVAL (over a limit, XRC SRQ
 * without XRC domain or CQ, no room for the response), -ENOMEM (also: max_srq reached), -EFAULT.
 */
int sroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata)
{
	struct sroce_dev *dev = to_sroce_dev(ibsrq->device);
	struct sroce_srq *srq = to_sroce_srq(ibsrq);
	struct sroce_create_srq_resp resp = {};
	int err;

	err = sroce_srq_check_init(init);
	if (err)
		return err;
	err = sroce_udata_ok(udata, sizeof(resp));
	if (err)
		return err;
	err = sroce_res_get(dev, SROCE_RES_SRQ);
	if (err)
		return err;

	err = sroce_srq_init(dev, srq, init, sroce_udata_uctx(udata),
			     udata ? &resp : NULL);
	if (err)
		goto err_put;
	if (udata) {
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err) {
			sroce_srq_destroy(srq);
			goto err_put;
		}
	}
	sroce_srq_publish(srq);
	return 0;

err_put:
	sroce_res_put(dev, SROCE_RES_SRQ);
	return err;
}

/**
 * sroce_modify_srq() - arm an SRQ's limit (ib_device_ops.modify_srq)
 * @ibsrq: SRQ
 * @attr: srq_limit
 * @mask: IB_SRQ_LIMIT
 * @udata: user data; we define no driver input
 *
 * Context: process.
 * Return: see sroce_srq_modify().
 */
int sroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	int err;

	err = sroce_udata_in_ok(udata);
	if (err)
		return err;
	return sroce_srq_modify(to_sroce_srq(ibsrq), attr, mask);
}

/**
 * sroce_query_srq() - attributes of an SRQ (ib_device_ops.query_srq)
 * @ibsrq: SRQ
 * @attr: filled by sroce_srq_query()
 *
 * Context: process.
 * Return: 0.
 */
int sroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	sroce_srq_query(to_sroce_srq(ibsrq), attr);
	return 0;
}

/**
 * sroce_destroy_srq() - destroy an SRQ (ib_device_ops.destroy_srq)
 * @ibsrq: SRQ; the core refuses (-EBUSY) while a QP is attached
 * @udata: user data
 *
 * Context: process.
 * Return: 0 (never fails).
 */
int sroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	sroce_srq_destroy(to_sroce_srq(ibsrq));
	sroce_res_put(to_sroce_dev(ibsrq->device), SROCE_RES_SRQ);
	return 0;
}
