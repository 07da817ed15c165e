// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce_ex.c - the extended verbs of the sroce provider: ibv_create_qp_ex
 * with the ibv_wr_* work request API, and ibv_create_cq_ex with the
 * ibv_start_poll / ibv_next_poll / ibv_end_poll interface.
 *
 * Nothing here knows the ring formats.  A work request is built in
 * ibv_post_send()'s form and handed to the send queue code of sroce_post.c
 * (sroce_sq_put: the same checks against the opcode/QP-type table of
 * sroce-abi.h, the same WQE), a batch is published and the doorbell rung
 * once, by ibv_wr_complete().  A completion is parsed by sroce_poll_cq(),
 * the accessors read the struct ibv_wc it filled.
 *
 * Errors follow ibv_wr_post(3): builders and setters return nothing; the
 * first failure of a batch (EINVAL for a work request the QP may not take,
 * ENOMEM for a full send queue, EIO for a queue the kernel put in error)
 * is returned by ibv_wr_complete(), which then posts none of the batch.
 *
 * Memory windows: ibv_wr_bind_mw() and ibv_wr_local_inv() build the
 * IBV_WR_BIND_MW and IBV_WR_LOCAL_INV requests ibv_post_send() takes
 * (IBV_QP_EX_WITH_BIND_MW on RC and UC, IBV_QP_EX_WITH_LOCAL_INV on any
 * type, as the SROCE_WR_OPS_* table says).
 *
 * XRC: ibv_create_qp_ex() creates XRC send (INI) QPs, which take the
 * SROCE_WR_OPS_XRC operations with ibv_wr_set_xrc_srqn() naming the
 * target's XRC SRQ, and XRC receive (TGT) QPs in an XRC domain, which
 * have no queue of their own (no PD, no CQ, no send operation).
 *
 * RDMA FLUSH (IBTA 1.5 annex A19.4, RC only): ibv_wr_flush() and
 * IBV_QP_EX_WITH_FLUSH exist from rdma-core 45 on (struct ibv_qp_ex grew
 * wr_flush after wr_atomic_write); the build offers them when the
 * headers have them (SROCE_HAVE_WR_FLUSH, a test compile in Makefile).
 *
 * Not offered: TSO, flush with older headers, or an operation the QP type
 * does not take (ATOMIC WRITE and FLUSH are RC only): creating a QP that
 * asks for them fails with EOPNOTSUPP; completion timestamps (a CQE
 * carries no time the device could vouch for:
 * IBV_WC_EX_WITH_COMPLETION_TIMESTAMP and _WALLCLOCK fail with
 * EOPNOTSUPP), CVLAN, flow tag, tag matching.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/sroce-abi.h>

#include "sroce.h"

/* ------------------------------------------------------------------ */
/* Extended QP: creation                                               */
/* ------------------------------------------------------------------ */

/* The IBV_WR_* opcode of each send_ops_flags bit sroce can offer. */
static const struct {
	uint64_t flag;
	enum ibv_wr_opcode opcode;
} sroce_send_ops[] = {
	{ IBV_QP_EX_WITH_RDMA_WRITE, IBV_WR_RDMA_WRITE },
	{ IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_WRITE_WITH_IMM },
	{ IBV_QP_EX_WITH_SEND, IBV_WR_SEND },
	{ IBV_QP_EX_WITH_SEND_WITH_IMM, IBV_WR_SEND_WITH_IMM },
	{ IBV_QP_EX_WITH_RDMA_READ, IBV_WR_RDMA_READ },
	{ IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_CMP_AND_SWP },
	{ IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD, IBV_WR_ATOMIC_FETCH_AND_ADD },
	{ IBV_QP_EX_WITH_SEND_WITH_INV, IBV_WR_SEND_WITH_INV },
	{ IBV_QP_EX_WITH_ATOMIC_WRITE, IBV_WR_ATOMIC_WRITE },
#ifdef SROCE_HAVE_WR_FLUSH
	{ IBV_QP_EX_WITH_FLUSH, IBV_WR_FLUSH },
#endif
	{ IBV_QP_EX_WITH_LOCAL_INV, IBV_WR_LOCAL_INV },
	{ IBV_QP_EX_WITH_BIND_MW, IBV_WR_BIND_MW },
};

#define SROCE_QP_INIT_ATTR_MASK	(IBV_QP_INIT_ATTR_PD | \
				 IBV_QP_INIT_ATTR_XRCD | \
				 IBV_QP_INIT_ATTR_CREATE_FLAGS | \
				 IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)

/*
 * Translates @send_ops_flags into SROCE_WR_OP_BIT()s in *@ops.  Returns 0,
 * or EOPNOTSUPP for an operation sroce lacks or the QP type does not take
 * (the SROCE_WR_OPS_* table): ibv_create_qp_ex(3) fails the QP then.
 */
static int sroce_send_ops_to_opcodes(enum ibv_qp_type type,
				     uint64_t send_ops_flags, uint32_t *ops)
{
	uint64_t left = send_ops_flags;
	size_t i;

	*ops = 0;
	for (i = 0; i < sizeof(sroce_send_ops) / sizeof(sroce_send_ops[0]);
	     i++) {
		if (!(send_ops_flags & sroce_send_ops[i].flag))
			continue;
		left &= ~sroce_send_ops[i].flag;
		*ops |= SROCE_WR_OP_BIT(sroce_send_ops[i].opcode);
	}
	if (left || (*ops & ~sroce_qp_opcodes(type)))
		return EOPNOTSUPP;
	return 0;
}

/*
 * Returns 0 or the errno ibv_create_qp_ex() fails @attr with.  An XRC
 * receive (TGT) QP lives in an XRC domain of this context, with no PD and
 * no CQ (IBTA annex A14: it takes its receives from the XRC SRQ each request
 * names); every other QP needs a PD of this context (EINVAL).
 */
static int sroce_check_qp_init_attr_ex(struct ibv_context *ibctx,
				       const struct ibv_qp_init_attr_ex *attr,
				       uint32_t *ops)
{
	int ret;

	if (attr->qp_type == IBV_QPT_XRC_RECV) {
		if (!(attr->comp_mask & IBV_QP_INIT_ATTR_XRCD) ||
		    !attr->xrcd || attr->xrcd->context != ibctx)
			return EINVAL;
	} else if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd ||
		   attr->pd->context != ibctx) {
		return EINVAL;
	}
	if (attr->comp_mask & ~SROCE_QP_INIT_ATTR_MASK)
		return EOPNOTSUPP;
	/* no creation flag is offered; asking for none is fine */
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	    attr->create_flags)
		return EOPNOTSUPP;
	ret = sroce_check_qp_new(attr->qp_type, &attr->cap, attr->send_cq,
				 attr->recv_cq);
	if (ret)
		return ret;
	*ops = 0;
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS))
		return 0;
	return sroce_send_ops_to_opcodes(attr->qp_type, attr->send_ops_flags,
					 ops);
}

static void sroce_qp_ex_set_ops(struct ibv_qp_ex *qpx);

struct ibv_qp *sroce_create_qp_ex(struct ibv_context *ibctx,
				  struct ibv_qp_init_attr_ex *attr)
{
	struct sroce_qp *qp;
	uint32_t ops;
	int ret;

	ret = sroce_check_qp_init_attr_ex(ibctx, attr, &ops);
	if (ret) {
		errno = ret;
		return NULL;
	}
	qp = sroce_create_qp_cmd_ex(ibctx, attr);
	if (!qp)
		return NULL;

	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		qp->wrb.ops = ops;
		sroce_qp_ex_set_ops(&qp->vqp.qp_ex);
		qp->vqp.comp_mask |= VERBS_QP_EX;
	}
	return &qp->vqp.qp;
}

/* ------------------------------------------------------------------ */
/* Extended QP: the work request batch                                 */
/* ------------------------------------------------------------------ */

static inline struct sroce_qp *qpx_to_sqp(struct ibv_qp_ex *qpx)
{
	return to_sqp(&qpx->qp_base);
}

static inline void sroce_wr_fail(struct sroce_wr_batch *b, int err)
{
	if (!b->err)
		b->err = err;
}

/* Writes the work request built so far to the SQ (sroce_sq_put). */
static void sroce_wr_flush(struct sroce_qp *qp)
{
	struct sroce_wr_batch *b = &qp->wrb;

	if (!b->pending)
		return;
	b->pending = false;
	if (b->err)
		return;
	if (!b->locked) {
		/* a builder outside ibv_wr_start .. ibv_wr_complete */
		b->err = EINVAL;
		return;
	}
	b->err = sroce_sq_put(qp, &b->wr,
			      (unsigned int)b->wr.opcode == SROCE_WR_FLUSH ?
			      &b->flush : NULL, &b->prod, &b->cons);
}

static void sroce_wr_start(struct ibv_qp_ex *qpx)
{
	struct sroce_qp *qp = qpx_to_sqp(qpx);
	struct sroce_wr_batch *b = &qp->wrb;

	b->pending = false;
	b->locked = false;
	b->err = sroce_sq_lock(qp, &b->start, &b->cons);
	if (b->err)
		return;
	b->locked = true;
	b->prod = b->start;
}

static int sroce_wr_complete(struct ibv_qp_ex *qpx)
{
	struct sroce_qp *qp = qpx_to_sqp(qpx);
	struct sroce_wr_batch *b = &qp->wrb;
	int err;

	sroce_wr_flush(qp);
	err = b->err;
	b->err = 0;
	if (!b->locked)
		return err ? err : EINVAL;
	b->locked = false;
	if (err) {
		/* nothing of the batch is published */
		pthread_spin_unlock(&qp->sq.lock);
		return err;
	}
	return sroce_sq_unlock_post(qp, b->start, b->prod);
}

static void sroce_wr_abort(struct ibv_qp_ex *qpx)
{
	struct sroce_qp *qp = qpx_to_sqp(qpx);
	struct sroce_wr_batch *b = &qp->wrb;

	b->pending = false;
	b->err = 0;
	if (b->locked) {
		b->locked = false;
		pthread_spin_unlock(&qp->sq.lock);
	}
}

/*
 * Starts a work request with @opcode, the caller's wr_id and wr_flags:
 * writes the previous one first.  Returns the request to fill in, or NULL
 * when the batch already failed.  IBV_SEND_INLINE is set by the inline
 * setters only (ibv_wr_post(3)); an opcode the QP was not created for
 * fails the batch with EINVAL, as one its type does not take does.
 */
static struct ibv_send_wr *sroce_wr_begin(struct ibv_qp_ex *qpx,
					  enum ibv_wr_opcode opcode)
{
	struct sroce_qp *qp = qpx_to_sqp(qpx);
	struct sroce_wr_batch *b = &qp->wrb;
	struct ibv_send_wr *wr = &b->wr;

	sroce_wr_flush(qp);
	if (b->err)
		return NULL;
	if (!(b->ops & SROCE_WR_OP_BIT(opcode))) {
		b->err = EINVAL;
		return NULL;
	}
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = qpx->wr_id;
	wr->opcode = opcode;
	wr->send_flags = qpx->wr_flags & ~(unsigned int)IBV_SEND_INLINE;
	wr->sg_list = b->sge;
	b->pending = true;
	return wr;
}

/* The request a setter completes, or NULL (batch failed, no builder). */
static struct ibv_send_wr *sroce_wr_current(struct ibv_qp_ex *qpx)
{
	struct sroce_wr_batch *b = &qpx_to_sqp(qpx)->wrb;

	if (b->err)
		return NULL;
	if (!b->pending) {
		b->err = EINVAL;
		return NULL;
	}
	return &b->wr;
}

/* ------------------------------------------------------------------ */
/* Extended QP: builders (ibv_wr_post(3) "WR builder")                 */
/* ------------------------------------------------------------------ */

static void sroce_wr_send(struct ibv_qp_ex *qpx)
{
	sroce_wr_begin(qpx, IBV_WR_SEND);
}

static void sroce_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm_data)
{
	struct ibv_send_wr *wr = sroce_wr_begin(qpx, IBV_WR_SEND_WITH_IMM);

	if (wr)
		wr->imm_data = imm_data;
}

static void sroce_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct ibv_send_wr *wr = sroce_wr_begin(qpx, IBV_WR_SEND_WITH_INV);

	if (wr)
		wr->invalidate_rkey = invalidate_rkey;
}

static void sroce_wr_local_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	struct ibv_send_wr *wr = sroce_wr_begin(qpx, IBV_WR_LOCAL_INV);

	if (wr)
		wr->invalidate_rkey = invalidate_rkey;
}

/* ibv_wr_bind_mw: binds @mw with @rkey (type 2B; ibv_inc_rkey()). */
static void sroce_wr_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw,
			     uint32_t rkey,
			     const struct ibv_mw_bind_info *bind_info)
{
	struct ibv_send_wr *wr = sroce_wr_begin(qpx, IBV_WR_BIND_MW);

	if (!wr)
		return;
	if (!bind_info) {
		sroce_wr_fail(&qpx_to_sqp(qpx)->wrb, EINVAL);
		return;
	}
	wr->bind_mw.mw = mw;
	wr->bind_mw.rkey = rkey;
	wr->bind_mw.bind_info = *bind_info;
}

static void sroce_wr_rdma(struct ibv_qp_ex *qpx, enum ibv_wr_opcode opcode,
			  uint32_t rkey, uint64_t remote_addr, __be32 imm)
{
	struct ibv_send_wr *wr = sroce_wr_begin(qpx, opcode);

	if (!wr)
		return;
	wr->wr.rdma.rkey = rkey;
	wr->wr.rdma.remote_addr = remote_addr;
	wr->imm_data = imm;
}

static void sroce_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
				uint64_t remote_addr)
{
	sroce_wr_rdma(qpx, IBV_WR_RDMA_WRITE, rkey, remote_addr, 0);
}

static void sroce_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
				    uint64_t remote_addr, __be32 imm_data)
{
	sroce_wr_rdma(qpx, IBV_WR_RDMA_WRITE_WITH_IMM, rkey, remote_addr,
		      imm_data);
}

static void sroce_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey,
			       uint64_t remote_addr)
{
	sroce_wr_rdma(qpx, IBV_WR_RDMA_READ, rkey, remote_addr, 0);
}

static void sroce_wr_atomic(struct ibv_qp_ex *qpx, enum ibv_wr_opcode opcode,
			    uint32_t rkey, uint64_t remote_addr,
			    uint64_t compare_add, uint64_t swap)
{
	struct ibv_send_wr *wr = sroce_wr_begin(qpx, opcode);

	if (!wr)
		return;
	wr->wr.atomic.rkey = rkey;
	wr->wr.atomic.remote_addr = remote_addr;
	wr->wr.atomic.compare_add = compare_add;
	wr->wr.atomic.swap = swap;
}

static void sroce_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey,
				    uint64_t remote_addr, uint64_t compare,
				    uint64_t swap)
{
	sroce_wr_atomic(qpx, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, remote_addr,
			compare, swap);
}

static void sroce_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey,
				      uint64_t remote_addr, uint64_t add)
{
	sroce_wr_atomic(qpx, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, remote_addr,
			add, 0);
}

/*
 * ATOMIC WRITE (IBTA 1.5 oA19-28): the 8 bytes at @atomic_wr are copied
 * at once into the batch's inline buffer (the caller may reuse them when
 * this returns); a later gather or inline setter replaces them, and
 * sroce_sq_put() then checks the length.
 */
static void sroce_wr_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey,
				  uint64_t remote_addr, const void *atomic_wr)
{
	struct sroce_wr_batch *b = &qpx_to_sqp(qpx)->wrb;
	struct ibv_send_wr *wr = sroce_wr_begin(qpx, IBV_WR_ATOMIC_WRITE);

	if (!wr)
		return;
	wr->wr.rdma.rkey = rkey;
	wr->wr.rdma.remote_addr = remote_addr;
	memcpy(b->inline_buf, atomic_wr, SROCE_ATOMIC_WRITE_LEN);
	b->sge[0].addr = (uintptr_t)b->inline_buf;
	b->sge[0].length = SROCE_ATOMIC_WRITE_LEN;
	b->sge[0].lkey = 0;
	wr->num_sge = 1;
	wr->send_flags |= IBV_SEND_INLINE;
}

#ifdef SROCE_HAVE_WR_FLUSH
/*
 * RDMA FLUSH (IBTA 1.5 annex A19.4): no data; a gather or inline setter
 * after it makes sroce_sq_put() refuse the request.
 */
static void sroce_wr_rdma_flush(struct ibv_qp_ex *qpx, uint32_t rkey,
				uint64_t remote_addr, size_t len, uint8_t type,
				uint8_t level)
{
	struct sroce_wr_batch *b = &qpx_to_sqp(qpx)->wrb;
	struct ibv_send_wr *wr = sroce_wr_begin(qpx, IBV_WR_FLUSH);

	if (!wr)
		return;
	wr->wr.rdma.rkey = rkey;
	wr->wr.rdma.remote_addr = remote_addr;
	b->flush.length = len;
	b->flush.type = type;
	b->flush.level = level;
}
#endif

/* ------------------------------------------------------------------ */
/* Extended QP: setters                                                */
/* ------------------------------------------------------------------ */

static void sroce_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge,
				  const struct ibv_sge *sg_list)
{
	struct ibv_send_wr *wr = sroce_wr_current(qpx);

	if (!wr)
		return;
	/*
	 * More entries than a WQE holds: keep the count only, so that
	 * sroce_sq_put() refuses the request by the QP's max_send_sge.
	 */
	wr->num_sge = num_sge > INT_MAX ? INT_MAX : (int)num_sge;
	if (num_sge <= SROCE_MAX_SGE && num_sge)
		memcpy(wr->sg_list, sg_list, num_sge * sizeof(*sg_list));
	wr->send_flags &= ~(unsigned int)IBV_SEND_INLINE;
}

static void sroce_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey,
			     uint64_t addr, uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	sroce_wr_set_sge_list(qpx, 1, &sge);
}

/*
 * Copies the caller's bytes at once (ibv_wr_post(3): the buffers may be
 * reused when the setter returns) and presents them to sroce_sq_put() as
 * one inline gather entry, which checks the length and the opcode.
 */
static void sroce_wr_set_inline_data_list(struct ibv_qp_ex *qpx,
					  size_t num_buf,
					  const struct ibv_data_buf *buf_list)
{
	struct sroce_wr_batch *b = &qpx_to_sqp(qpx)->wrb;
	struct ibv_send_wr *wr = sroce_wr_current(qpx);
	size_t i, len = 0;

	if (!wr)
		return;
	for (i = 0; i < num_buf; i++) {
		if (buf_list[i].length > UINT32_MAX - len) {
			len = UINT32_MAX;
			break;
		}
		len += buf_list[i].length;
	}
	if (len <= sizeof(b->inline_buf)) {
		for (len = 0, i = 0; i < num_buf; i++) {
			if (!buf_list[i].length)
				continue;
			memcpy(b->inline_buf + len, buf_list[i].addr,
			       buf_list[i].length);
			len += buf_list[i].length;
		}
	}
	b->sge[0].addr = (uintptr_t)b->inline_buf;
	b->sge[0].length = (uint32_t)len;
	b->sge[0].lkey = 0;
	wr->num_sge = 1;
	wr->send_flags |= IBV_SEND_INLINE;
}

static void sroce_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr,
				     size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	sroce_wr_set_inline_data_list(qpx, 1, &buf);
}

/* UD only: on the other types the request has no use for an address. */
static void sroce_wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
				 uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct ibv_send_wr *wr = sroce_wr_current(qpx);

	if (!wr || qpx->qp_base.qp_type != IBV_QPT_UD)
		return;
	wr->wr.ud.ah = ah;
	wr->wr.ud.remote_qpn = remote_qpn;
	wr->wr.ud.remote_qkey = remote_qkey;
}

/*
 * XRC send (INI) QPs only: the XRC SRQ at the target that receives the
 * request (ibv_wr_post(3)); 24 bits, sroce_sq_put() checks it.
 */
static void sroce_wr_set_xrc_srqn(struct ibv_qp_ex *qpx, uint32_t remote_srqn)
{
	struct ibv_send_wr *wr = sroce_wr_current(qpx);

	if (!wr || qpx->qp_base.qp_type != IBV_QPT_XRC_SEND)
		return;
	wr->qp_type.xrc.remote_srqn = remote_srqn;
}

static void sroce_qp_ex_set_ops(struct ibv_qp_ex *qpx)
{
	qpx->wr_start = sroce_wr_start;
	qpx->wr_complete = sroce_wr_complete;
	qpx->wr_abort = sroce_wr_abort;
	qpx->wr_send = sroce_wr_send;
	qpx->wr_send_imm = sroce_wr_send_imm;
	qpx->wr_send_inv = sroce_wr_send_inv;
	qpx->wr_local_inv = sroce_wr_local_inv;
	qpx->wr_bind_mw = sroce_wr_bind_mw;
	qpx->wr_rdma_write = sroce_wr_rdma_write;
	qpx->wr_rdma_write_imm = sroce_wr_rdma_write_imm;
	qpx->wr_rdma_read = sroce_wr_rdma_read;
	qpx->wr_atomic_cmp_swp = sroce_wr_atomic_cmp_swp;
	qpx->wr_atomic_fetch_add = sroce_wr_atomic_fetch_add;
	qpx->wr_atomic_write = sroce_wr_atomic_write;
#ifdef SROCE_HAVE_WR_FLUSH
	qpx->wr_flush = sroce_wr_rdma_flush;
#endif
	qpx->wr_set_sge = sroce_wr_set_sge;
	qpx->wr_set_sge_list = sroce_wr_set_sge_list;
	qpx->wr_set_inline_data = sroce_wr_set_inline_data;
	qpx->wr_set_inline_data_list = sroce_wr_set_inline_data_list;
	qpx->wr_set_ud_addr = sroce_wr_set_ud_addr;
	qpx->wr_set_xrc_srqn = sroce_wr_set_xrc_srqn;
}

/* ------------------------------------------------------------------ */
/* Extended CQ                                                         */
/* ------------------------------------------------------------------ */

#define SROCE_CQ_INIT_ATTR_MASK	(IBV_CQ_INIT_ATTR_MASK_FLAGS | \
				 IBV_CQ_INIT_ATTR_MASK_PD)
#define SROCE_WC_EX_FLAGS	IBV_WC_STANDARD_FLAGS

static inline struct sroce_cq *cqx_to_scq(struct ibv_cq_ex *cqx)
{
	return to_scq(ibv_cq_ex_to_cq(cqx));
}

/*
 * Returns 0 or the errno ibv_create_cq_ex() fails @attr with.  A parent
 * domain (IBV_CQ_INIT_ATTR_MASK_PD) must be one of @ibctx's: its allocators
 * have nothing to allocate (the CQ ring is kernel memory).
 */
static int sroce_check_cq_init_attr_ex(struct ibv_context *ibctx,
				       const struct ibv_cq_init_attr_ex *attr)
{
	if (attr->comp_mask & ~SROCE_CQ_INIT_ATTR_MASK)
		return EINVAL;
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) &&
	    !sroce_is_parent_domain(attr->parent_domain, ibctx))
		return EINVAL;
	if ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
	    (attr->flags & ~(uint32_t)IBV_CREATE_CQ_ATTR_SINGLE_THREADED))
		return EOPNOTSUPP;	/* e.g. IGNORE_OVERRUN */
	if (attr->wc_flags & ~(uint64_t)SROCE_WC_EX_FLAGS)
		return EOPNOTSUPP;	/* e.g. completion timestamps */
	return 0;
}

/* The next completion into cq->ex.wc: 0, ENOENT (none), EIO (ring error). */
static int sroce_cq_ex_read(struct ibv_cq_ex *cqx)
{
	struct sroce_cq *cq = cqx_to_scq(cqx);
	int n;

	n = sroce_poll_cq(&cq->vcq.cq, 1, &cq->ex.wc);
	if (n == 0)
		return ENOENT;
	if (n < 0)
		return EIO;
	cqx->wr_id = cq->ex.wc.wr_id;
	cqx->status = cq->ex.wc.status;
	return 0;
}

static int sroce_start_poll(struct ibv_cq_ex *cqx,
			    struct ibv_poll_cq_attr *attr)
{
	struct sroce_cq *cq = cqx_to_scq(cqx);
	int ret;

	if (attr->comp_mask)
		return EINVAL;
	if (cq->ex.locking)
		pthread_spin_lock(&cq->ex.lock);
	ret = sroce_cq_ex_read(cqx);
	/* ibv_end_poll() follows only a successful start */
	if (ret && cq->ex.locking)
		pthread_spin_unlock(&cq->ex.lock);
	return ret;
}

static int sroce_next_poll(struct ibv_cq_ex *cqx)
{
	return sroce_cq_ex_read(cqx);
}

static void sroce_end_poll(struct ibv_cq_ex *cqx)
{
	struct sroce_cq *cq = cqx_to_scq(cqx);

	if (cq->ex.locking)
		pthread_spin_unlock(&cq->ex.lock);
}

/*
 * The read_* accessors: the members of the completion sroce_poll_cq()
 * parsed.  read_imm_data also serves ibv_wc_read_invalidated_rkey(): the
 * CQE holds one or the other (IBV_WC_WITH_IMM / IBV_WC_WITH_INV).
 */
#define SROCE_WC_READER(type, member)					\
	static type sroce_wc_read_##member(struct ibv_cq_ex *cqx)	\
	{								\
		return cqx_to_scq(cqx)->ex.wc.member;			\
	}

SROCE_WC_READER(enum ibv_wc_opcode, opcode)
SROCE_WC_READER(uint32_t, vendor_err)
SROCE_WC_READER(uint32_t, byte_len)
SROCE_WC_READER(__be32, imm_data)
SROCE_WC_READER(uint32_t, qp_num)
SROCE_WC_READER(uint32_t, src_qp)
SROCE_WC_READER(unsigned int, wc_flags)
SROCE_WC_READER(uint32_t, slid)
SROCE_WC_READER(uint8_t, sl)
SROCE_WC_READER(uint8_t, dlid_path_bits)

static void sroce_cq_ex_set_ops(struct ibv_cq_ex *cqx)
{
	cqx->start_poll = sroce_start_poll;
	cqx->next_poll = sroce_next_poll;
	cqx->end_poll = sroce_end_poll;
	cqx->read_opcode = sroce_wc_read_opcode;
	cqx->read_vendor_err = sroce_wc_read_vendor_err;
	cqx->read_byte_len = sroce_wc_read_byte_len;
	cqx->read_imm_data = sroce_wc_read_imm_data;
	cqx->read_qp_num = sroce_wc_read_qp_num;
	cqx->read_src_qp = sroce_wc_read_src_qp;
	cqx->read_wc_flags = sroce_wc_read_wc_flags;
	cqx->read_slid = sroce_wc_read_slid;
	cqx->read_sl = sroce_wc_read_sl;
	cqx->read_dlid_path_bits = sroce_wc_read_dlid_path_bits;
}

/*
 * libibverbs' ibv_create_cq() wrapper initialises these members after the
 * provider returns; ibv_create_cq_ex() returns the provider's CQ as is.
 */
static void sroce_cq_ex_init_common(struct ibv_cq *ibcq,
				    const struct ibv_cq_init_attr_ex *attr)
{
	ibcq->channel = attr->channel;
	ibcq->cq_context = attr->cq_context;
	ibcq->comp_events_completed = 0;
	ibcq->async_events_completed = 0;
	pthread_mutex_init(&ibcq->mutex, NULL);
	pthread_cond_init(&ibcq->cond, NULL);
}

struct ibv_cq_ex *sroce_create_cq_ex(struct ibv_context *ibctx,
				     struct ibv_cq_init_attr_ex *attr)
{
	struct ibv_cq *ibcq;
	struct sroce_cq *cq;
	int ret;

	ret = sroce_check_cq_init_attr_ex(ibctx, attr);
	if (ret) {
		errno = ret;
		return NULL;
	}
	if (attr->cqe > INT_MAX) {
		errno = EINVAL;
		return NULL;
	}
	ibcq = sroce_create_cq(ibctx, (int)attr->cqe, attr->channel,
			       (int)attr->comp_vector);
	if (!ibcq)
		return NULL;

	cq = to_scq(ibcq);
	sroce_cq_ex_init_common(ibcq, attr);
	cq->ex.locking = !((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) &&
			   (attr->flags & IBV_CREATE_CQ_ATTR_SINGLE_THREADED));
	pthread_spin_init(&cq->ex.lock, PTHREAD_PROCESS_PRIVATE);
	sroce_cq_ex_set_ops(&cq->vcq.cq_ex);
	return &cq->vcq.cq_ex;
}
