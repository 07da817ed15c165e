// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce_qp.c - the work queue objects of the sroce provider: QPs
 * (ibv_create_qp, ibv_open_qp, query, modify, destroy; a QP reset drops
 * its CQEs from its CQs) and SRQs, basic and XRC (create, ibv_get_srq_num,
 * query, modify, destroy), with the mapping of their rings.
 * ibv_create_qp_ex (sroce_ex.c) builds on the QP checks and command here.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/sroce-abi.h>

#include "sroce.h"

/* Driver data after the core responses: the kernel sees it as udata. */
struct sroce_create_qp_resp_buf {
	struct ib_uverbs_create_qp_resp ibv_resp;
	struct sroce_create_qp_resp drv;
};

struct sroce_create_srq_resp_buf {
	struct ib_uverbs_create_srq_resp ibv_resp;
	struct sroce_create_srq_resp drv;
};

static_assert(offsetof(struct sroce_create_qp_resp_buf, drv) ==
	      sizeof(struct ib_uverbs_create_qp_resp), "no padding");
static_assert(offsetof(struct sroce_create_srq_resp_buf, drv) ==
	      sizeof(struct ib_uverbs_create_srq_resp), "no padding");

/* ------------------------------------------------------------------ */
/* QP                                                                  */
/* ------------------------------------------------------------------ */

/*
 * The type, CQs and capacities of a new QP: EOPNOTSUPP for a type sroce
 * lacks; EINVAL for a missing CQ (libibverbs would follow the NULL) or
 * capacities beyond the WQE formats.  An XRC send (INI) QP has a send
 * queue only (the core gives it no receive CQ and zeroes its receive
 * capacities), an XRC receive (TGT) QP no queue at all: what it would
 * need for them is not looked at (perftest passes receive capacities for
 * a TGT QP).
 */
int sroce_check_qp_new(enum ibv_qp_type type, const struct ibv_qp_cap *cap,
		       const struct ibv_cq *send_cq,
		       const struct ibv_cq *recv_cq)
{
	switch (type) {
	case IBV_QPT_RC:
	case IBV_QPT_UC:
	case IBV_QPT_UD:
		if (!recv_cq || cap->max_recv_sge > SROCE_MAX_SGE)
			return EINVAL;
		break;
	case IBV_QPT_XRC_SEND:
		break;
	case IBV_QPT_XRC_RECV:
		return 0;
	default:
		return EOPNOTSUPP;
	}
	if (!send_cq || cap->max_send_sge > SROCE_MAX_SGE ||
	    cap->max_inline_data > SROCE_MAX_INLINE)
		return EINVAL;
	return 0;
}

/*
 * ibv_create_qp(): an XRC receive QP needs an XRC domain, which only
 * ibv_create_qp_ex() names (IBV_QP_INIT_ATTR_XRCD): EINVAL here, as
 * libibverbs' own command does.
 */
static int sroce_check_qp_init_attr(const struct ibv_qp_init_attr *attr)
{
	if (attr->qp_type == IBV_QPT_XRC_RECV)
		return EINVAL;
	return sroce_check_qp_new(attr->qp_type, &attr->cap, attr->send_cq,
				  attr->recv_cq);
}

static uint32_t sroce_min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* Maps the SQ and (unless the QP has none) the RQ; stores the caps. */
static int sroce_qp_map(struct ibv_context *ibctx, struct sroce_qp *qp,
			const struct sroce_create_qp_resp *resp,
			const struct ibv_qp_cap *cap)
{
	int ret;

	ret = sroce_ring_map(ibctx, &qp->sq, &resp->sq_mi,
			     sizeof(struct sroce_send_wqe), cap->max_send_wr);
	if (ret)
		return ret;

	if (resp->rq_mi.size) {
		ret = sroce_ring_map(ibctx, &qp->rq, &resp->rq_mi,
				     sizeof(struct sroce_recv_wqe),
				     cap->max_recv_wr);
		if (ret) {
			sroce_ring_unmap(&qp->sq);
			return ret;
		}
		qp->has_rq = true;
	}

	qp->max_send_sge = sroce_min_u32(cap->max_send_sge, SROCE_MAX_SGE);
	qp->max_recv_sge = sroce_min_u32(cap->max_recv_sge, SROCE_MAX_SGE);
	return 0;
}

struct ibv_qp *sroce_create_qp(struct ibv_pd *pd,
			       struct ibv_qp_init_attr *attr)
{
	struct sroce_create_qp_resp_buf resp = {};
	struct ibv_create_qp cmd = {};
	struct sroce_qp *qp;
	int ret;

	ret = sroce_check_qp_init_attr(attr);
	if (ret) {
		errno = ret;
		return NULL;
	}

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;

	ret = ibv_cmd_create_qp(pd, &qp->vqp.qp, attr, &cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;

	ret = sroce_qp_map(pd->context, qp, &resp.drv, &attr->cap);
	if (ret)
		goto err_destroy;
	return &qp->vqp.qp;

err_destroy:
	ibv_cmd_destroy_qp(&qp->vqp.qp);
err_free:
	free(qp);
	errno = ret;
	return NULL;
}

/*
 * ibv_create_qp_ex() of a checked @attr (sroce_ex.c): the command takes
 * the verbs_qp, so libibverbs records the XRC domain of an XRC receive QP.
 * Its comp_mask may hold IBV_QP_INIT_ATTR_PD, _XRCD and _SEND_OPS_FLAGS
 * only: an empty CREATE_FLAGS, which the caller accepted, is dropped.  An
 * XRC receive QP has no rings, and the kernel answers it without driver
 * data (the core creates it without udata): nothing is mapped.  Returns
 * the QP, its capacities in @attr->cap, or NULL with errno set.
 */
struct sroce_qp *sroce_create_qp_cmd_ex(struct ibv_context *ibctx,
					struct ibv_qp_init_attr_ex *attr)
{
	struct sroce_create_qp_resp_buf resp = {};
	struct ibv_qp_init_attr_ex ia = *attr;
	struct ibv_create_qp cmd = {};
	struct sroce_qp *qp;
	int ret;

	ia.comp_mask &= IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD |
			IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;

	ret = ibv_cmd_create_qp_ex(ibctx, &qp->vqp, &ia, &cmd, sizeof(cmd),
				   &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;
	attr->cap = ia.cap;
	if (ia.qp_type == IBV_QPT_XRC_RECV)
		return qp;

	ret = sroce_qp_map(ibctx, qp, &resp.drv, &ia.cap);
	if (ret)
		goto err_destroy;
	return qp;

err_destroy:
	ibv_cmd_destroy_qp(&qp->vqp.qp);
err_free:
	free(qp);
	errno = ret;
	return NULL;
}

#define SROCE_QP_OPEN_ATTR_NEED	(IBV_QP_OPEN_ATTR_NUM | \
				 IBV_QP_OPEN_ATTR_XRCD | IBV_QP_OPEN_ATTR_TYPE)

/*
 * ibv_open_qp(3): another handle on the XRC receive QP @attr->qp_num of
 * the XRC domain @attr->xrcd, which a process sharing the domain created.
 * It has no rings here: it is modified, queried and destroyed through
 * the kernel only.  EINVAL without the number, the domain or the type,
 * for a type other than IBV_QPT_XRC_RECV or a domain of another context;
 * EOPNOTSUPP for an unknown comp_mask bit; the kernel's errno (EINVAL:
 * no such QP in the domain).
 */
struct ibv_qp *sroce_open_qp(struct ibv_context *ibctx,
			     struct ibv_qp_open_attr *attr)
{
	struct ib_uverbs_create_qp_resp resp = {};
	struct ibv_open_qp cmd = {};
	struct sroce_qp *qp;
	int ret;

	if (attr->comp_mask & ~(uint32_t)(IBV_QP_OPEN_ATTR_RESERVED - 1)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if ((attr->comp_mask & SROCE_QP_OPEN_ATTR_NEED) !=
	    SROCE_QP_OPEN_ATTR_NEED || !attr->xrcd ||
	    attr->xrcd->context != ibctx || attr->qp_type != IBV_QPT_XRC_RECV) {
		errno = EINVAL;
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return NULL;
	ret = ibv_cmd_open_qp(ibctx, &qp->vqp, sizeof(qp->vqp), attr, &cmd,
			      sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(qp);
		errno = ret;
		return NULL;
	}
	return &qp->vqp.qp;
}

int sroce_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd = {};

	return ibv_cmd_query_qp(ibqp, attr, attr_mask, init_attr, &cmd,
				sizeof(cmd));
}

/*
 * Removes the CQEs of QP @qpn from @ibcq's ring, as libmlx4 and libmlx5 do
 * when a QP is reset: a QP restated from ERR through RESET starts without
 * the completions (flushes) of its earlier life, which rdma-core's own
 * tests rely on.  The slots between the consumer and the producer index
 * are ours: the CQEs that stay move up towards the producer index and the
 * consumer index advances past the ones removed, so the kernel's view of
 * the free space only grows.
 */
static void sroce_cq_clean(struct ibv_cq *ibcq, uint32_t qpn)
{
	struct sroce_ring *ring = &to_scq(ibcq)->ring;
	uint32_t cons, prod, i, nfreed = 0;
	struct sroce_cqe *cqe;

	pthread_spin_lock(&ring->lock);
	cons = sroce_load_own(&ring->hdr->consumer);
	prod = sroce_load_acquire(&ring->hdr->producer);
	if ((sroce_load_acquire(&ring->hdr->flags) & SROCE_QUEUE_F_ERROR) ||
	    prod - cons > ring->num)
		goto out;	/* a dead or corrupt ring: poll_cq reports it */
	for (i = prod; i != cons;) {
		cqe = sroce_ring_slot(ring, --i);
		if (cqe->qp_num == qpn)
			nfreed++;
		else if (nfreed)
			memcpy(sroce_ring_slot(ring, i + nfreed), cqe,
			       sizeof(*cqe));
	}
	if (nfreed)
		sroce_store_release(&ring->hdr->consumer, cons + nfreed);
out:
	pthread_spin_unlock(&ring->lock);
}

int sroce_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		    int attr_mask)
{
	struct ibv_modify_qp cmd = {};
	int ret;

	ret = ibv_cmd_modify_qp(ibqp, attr, attr_mask, &cmd, sizeof(cmd));
	if (!ret && (attr_mask & IBV_QP_STATE) &&
	    attr->qp_state == IBV_QPS_RESET) {
		if (ibqp->recv_cq)
			sroce_cq_clean(ibqp->recv_cq, ibqp->qp_num);
		if (ibqp->send_cq && ibqp->send_cq != ibqp->recv_cq)
			sroce_cq_clean(ibqp->send_cq, ibqp->qp_num);
	}
	return ret;
}

int sroce_destroy_qp(struct ibv_qp *ibqp)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	int ret;

	ret = ibv_cmd_destroy_qp(ibqp);
	if (ret)
		return ret;
	sroce_ring_unmap(&qp->rq);
	sroce_ring_unmap(&qp->sq);
	free(qp);
	return 0;
}

/* ------------------------------------------------------------------ */
/* SRQ                                                                 */
/* ------------------------------------------------------------------ */

/*
 * Maps the ring of an SRQ the kernel created and answers the capacities
 * in @attr: the ring holds exactly max_wr WQEs (the kernel's max_wr is the
 * ring size, its max_sge at least 1).  Returns 0 or an errno value.
 */
static int sroce_srq_map(struct ibv_context *ibctx, struct sroce_srq *srq,
			 const struct sroce_create_srq_resp *drv,
			 struct ibv_srq_attr *attr)
{
	int ret;

	ret = sroce_ring_map(ibctx, &srq->ring, &drv->mi,
			     sizeof(struct sroce_recv_wqe), UINT32_MAX);
	if (ret)
		return ret;
	srq->max_sge = sroce_min_u32(attr->max_sge ? attr->max_sge : 1,
				     SROCE_MAX_SGE);
	attr->max_wr = srq->ring.limit;
	attr->max_sge = srq->max_sge;
	return 0;
}

#define SROCE_SRQ_INIT_ATTR_MASK (IBV_SRQ_INIT_ATTR_TYPE | \
				  IBV_SRQ_INIT_ATTR_PD | \
				  IBV_SRQ_INIT_ATTR_XRCD | \
				  IBV_SRQ_INIT_ATTR_CQ)

/*
 * Returns 0 or the errno ibv_create_srq_ex(3) fails @attr with: a PD is
 * mandatory, an XRC SRQ also needs its XRC domain and the CQ its
 * completions go to (EINVAL without them, or with objects of another
 * context); tag matching SRQs are not offered (EOPNOTSUPP), nor is any
 * comp_mask bit sroce does not know.
 */
static int sroce_check_srq_init_attr_ex(struct ibv_context *ibctx,
					const struct ibv_srq_init_attr_ex *attr)
{
	enum ibv_srq_type type = IBV_SRQT_BASIC;

	if (attr->comp_mask & ~(uint32_t)SROCE_SRQ_INIT_ATTR_MASK)
		return EOPNOTSUPP;
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_PD) || !attr->pd ||
	    attr->pd->context != ibctx)
		return EINVAL;
	if (attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE)
		type = attr->srq_type;
	switch (type) {
	case IBV_SRQT_BASIC:
		return 0;
	case IBV_SRQT_XRC:
		break;
	case IBV_SRQT_TM:
		return EOPNOTSUPP;
	default:
		return EINVAL;
	}
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_XRCD) || !attr->xrcd ||
	    attr->xrcd->context != ibctx)
		return EINVAL;
	if (!(attr->comp_mask & IBV_SRQ_INIT_ATTR_CQ) || !attr->cq ||
	    attr->cq->context != ibctx)
		return EINVAL;
	return 0;
}

/*
 * ibv_create_srq_ex(3): a basic SRQ, or an XRC SRQ (IBTA annex A14): the
 * same ring; the kernel's answer holds its number, which
 * ibv_get_srq_num() returns and INI QPs name in every request.
 */
struct ibv_srq *sroce_create_srq_ex(struct ibv_context *ibctx,
				    struct ibv_srq_init_attr_ex *attr)
{
	struct sroce_create_srq_resp_buf resp = {};
	struct ibv_create_xsrq cmd = {};
	struct sroce_srq *srq;
	int ret;

	ret = sroce_check_srq_init_attr_ex(ibctx, attr);
	if (ret) {
		errno = ret;
		return NULL;
	}
	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	ret = ibv_cmd_create_srq_ex(ibctx, &srq->vsrq, attr, &cmd, sizeof(cmd),
				    &resp.ibv_resp, sizeof(resp));
	if (ret)
		goto err_free;
	ret = sroce_srq_map(ibctx, srq, &resp.drv, &attr->attr);
	if (ret)
		goto err_destroy;
	return &srq->vsrq.srq;

err_destroy:
	ibv_cmd_destroy_srq(&srq->vsrq.srq);
err_free:
	free(srq);
	errno = ret;
	return NULL;
}

/*
 * ibv_create_srq(3): a basic SRQ, made as ibv_create_srq_ex() makes it.
 * The kernel checks the attributes against the device limits (EINVAL)
 * and answers with the real capacities and the ring.
 */
struct ibv_srq *sroce_create_srq(struct ibv_pd *pd,
				 struct ibv_srq_init_attr *attr)
{
	struct ibv_srq_init_attr_ex ex = {
		.srq_context = attr->srq_context,
		.attr = attr->attr,
		.comp_mask = IBV_SRQ_INIT_ATTR_PD,
		.pd = pd,
	};
	struct ibv_srq *srq = sroce_create_srq_ex(pd->context, &ex);

	if (srq)
		attr->attr = ex.attr;
	return srq;
}

/* ibv_get_srq_num(3): XRC SRQs only; a basic SRQ has no number to name. */
int sroce_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);

	if (srq->vsrq.srq_type != IBV_SRQT_XRC)
		return EINVAL;
	*srq_num = srq->vsrq.srq_num;
	return 0;
}

int sroce_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		     int attr_mask)
{
	struct ibv_modify_srq cmd = {};

	return ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd, sizeof(cmd));
}

int sroce_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd = {};

	return ibv_cmd_query_srq(ibsrq, attr, &cmd, sizeof(cmd));
}

/* EBUSY from the kernel while a QP is still attached. */
int sroce_destroy_srq(struct ibv_srq *ibsrq)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	int ret;

	ret = ibv_cmd_destroy_srq(ibsrq);
	if (ret)
		return ret;
	sroce_ring_unmap(&srq->ring);
	free(srq);
	return 0;
}
