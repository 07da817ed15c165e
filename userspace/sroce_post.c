// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce_post.c - the posting data path of the sroce provider:
 * ibv_post_send (each work request checked against the opcode/QP-type
 * table of sroce-abi.h, its WQE built in the SQ ring, small payloads
 * inline, the doorbell rung once unless the kernel's send side is busy
 * with the QP), ibv_post_recv and ibv_post_srq_recv (pure ring operations, but
 * for a QP in error).  The send queue code is shared with the ibv_wr_*
 * API of sroce_ex.c.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/sroce-abi.h>

#include "sroce.h"

/* XRC SRQ numbers are 24 bits on the wire (XRCETH, IBTA annex A14). */
#define SROCE_XRC_SRQN_MAX	0xffffffU

/* Opcodes whose payload the provider may put inline unasked. */
#define SROCE_WR_OPS_AUTO_INLINE \
	(SROCE_WR_OPS_INLINE & ~SROCE_WR_OPS_INLINE_ONLY)

/*
 * How a checked send carries its payload: in its gather list, or inline
 * (@inl, @inline_len bytes), because the caller asked (IBV_SEND_INLINE,
 * an ATOMIC WRITE) or because it is small (@auto_inl: then @va holds
 * where each SGE's bytes are in our address space).
 */
struct sroce_send_plan {
	uint32_t inline_len;
	bool inl;
	bool auto_inl;
	const void *va[SROCE_AUTO_INLINE_SGE];
};

/* ------------------------------------------------------------------ */
/* Post                                                                */
/* ------------------------------------------------------------------ */

/*
 * Work request opcodes each QP type accepts: the masks the kernel checks
 * too (sroce-abi.h).
 */
uint32_t sroce_qp_opcodes(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_RC:
		return SROCE_WR_OPS_RC;
	case IBV_QPT_UC:
		return SROCE_WR_OPS_UC;
	case IBV_QPT_UD:
		return SROCE_WR_OPS_UD;
	case IBV_QPT_XRC_SEND:
		return SROCE_WR_OPS_XRC;
	default:
		return 0;	/* XRC receive QPs have no send queue */
	}
}

/* True for an opcode whose payload always goes inline (ATOMIC WRITE). */
static bool sroce_wr_inline_only(const struct ibv_send_wr *wr)
{
	return SROCE_WR_OPS_INLINE_ONLY & SROCE_WR_OP_BIT(wr->opcode);
}

/*
 * ATOMIC WRITE: the gather list (ibv_post_send()) or the builder's inline
 * copy holds exactly the SROCE_ATOMIC_WRITE_LEN bytes to store, which go
 * into the WQE.  Returns 0 or EINVAL.
 */
static int sroce_check_inline_only(const struct ibv_send_wr *wr,
				   struct sroce_send_plan *plan)
{
	uint64_t len = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	if (len != SROCE_ATOMIC_WRITE_LEN)
		return EINVAL;
	plan->inline_len = SROCE_ATOMIC_WRITE_LEN;
	plan->inl = true;
	return 0;
}

/*
 * FLUSH (IBTA 1.5 annex A19.4): only from ibv_wr_flush() (@flush; struct
 * ibv_send_wr cannot carry its arguments, so ibv_post_send() refuses it),
 * no data, a placement type of SROCE_FLUSH_TYPES bits (at least one), a
 * level RANGE or MR, a range's length that fits the RETH (32 bits; at
 * level MR the length is not used).  Returns 0 or EINVAL.
 */
static int sroce_check_flush_wr(const struct ibv_send_wr *wr,
				const struct sroce_flush_args *flush)
{
	if (!flush || wr->num_sge || (wr->send_flags & IBV_SEND_INLINE))
		return EINVAL;
	if (!flush->type || (flush->type & ~SROCE_FLUSH_TYPES))
		return EINVAL;
	if (flush->level == SROCE_FLUSH_MR)
		return 0;
	if (flush->level != SROCE_FLUSH_RANGE || flush->length > UINT32_MAX)
		return EINVAL;
	return 0;
}

/*
 * A memory operation (SROCE_WR_OPS_MEM) carries no data (its SGEs are
 * ignored), FENCE and SIGNALED only; a bind names a window, rights within
 * SROCE_MW_ACCESS (never zero based) and an MR unless its length is 0.
 */
static int sroce_check_mem_wr(const struct ibv_send_wr *wr)
{
	const struct ibv_mw_bind_info *bi = &wr->bind_mw.bind_info;

	if (wr->send_flags & ~SROCE_WR_MEM_FLAGS)
		return EINVAL;
	if (wr->opcode != IBV_WR_BIND_MW)
		return 0;
	if (!wr->bind_mw.mw || (bi->mw_access_flags & ~SROCE_MW_ACCESS))
		return EINVAL;
	if (!bi->mr && bi->length)
		return EINVAL;
	return 0;
}

/*
 * A small send the caller did not ask to inline goes inline all the same
 * when every SGE lies in an MR of this context and the QP's PD (the
 * checks the kernel would make, sroce_mr_span()): the kernel then reads
 * no MR, and the completion is the same, since the kernel would have
 * accepted the SGEs.  Anything else (a bad or foreign lkey, an SGE past
 * its MR's end) keeps its gather list, which the kernel checks and
 * completes with the error IBTA says.
 */
static void sroce_plan_auto_inline(const struct sroce_qp *qp,
				   const struct ibv_send_wr *wr,
				   struct sroce_send_plan *plan)
{
	const struct ibv_qp *ibqp = &qp->vqp.qp;
	uint64_t len = 0;
	int i;

	if (!(SROCE_WR_OPS_AUTO_INLINE & SROCE_WR_OP_BIT(wr->opcode)) ||
	    wr->num_sge < 1 || wr->num_sge > SROCE_AUTO_INLINE_SGE ||
	    !ibqp->pd)
		return;
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	if (len > SROCE_AUTO_INLINE_MAX ||
	    !sroce_mr_span(ibqp->context, ibqp->pd->handle, wr->sg_list,
			   wr->num_sge, plan->va))
		return;
	plan->inline_len = (uint32_t)len;
	plan->inl = true;
	plan->auto_inl = true;
}

/*
 * Checks one send WR against the QP before anything is written.  Returns 0
 * or EINVAL.  *@plan gets how the payload goes (inline or not, its
 * length).  @flush: the arguments of a FLUSH, NULL from ibv_post_send().
 */
static int sroce_check_send_wr(const struct sroce_qp *qp,
			       const struct ibv_send_wr *wr,
			       const struct sroce_flush_args *flush,
			       struct sroce_send_plan *plan)
{
	uint64_t len = 0;
	int i;

	if ((unsigned int)wr->opcode >= 32 ||
	    !(sroce_qp_opcodes(qp->vqp.qp.qp_type) &
	      SROCE_WR_OP_BIT(wr->opcode)))
		return EINVAL;
	if (wr->send_flags & ~SROCE_WR_SEND_FLAGS)
		return EINVAL;
	plan->inline_len = 0;
	plan->inl = false;
	plan->auto_inl = false;
	if (SROCE_WR_OPS_MEM & SROCE_WR_OP_BIT(wr->opcode))
		return sroce_check_mem_wr(wr);
	if ((unsigned int)wr->opcode == SROCE_WR_FLUSH)
		return sroce_check_flush_wr(wr, flush);
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > qp->max_send_sge)
		return EINVAL;
	if (wr->num_sge && !wr->sg_list)
		return EINVAL;
	if (qp->vqp.qp.qp_type == IBV_QPT_UD && !wr->wr.ud.ah)
		return EINVAL;
	if (qp->vqp.qp.qp_type == IBV_QPT_XRC_SEND &&
	    wr->qp_type.xrc.remote_srqn > SROCE_XRC_SRQN_MAX)
		return EINVAL;

	if (sroce_wr_inline_only(wr))
		return sroce_check_inline_only(wr, plan);
	if (!(wr->send_flags & IBV_SEND_INLINE)) {
		sroce_plan_auto_inline(qp, wr, plan);
		return 0;
	}
	if (!(SROCE_WR_OPS_INLINE & SROCE_WR_OP_BIT(wr->opcode)))
		return EINVAL;
	/*
	 * Every send slot holds SROCE_MAX_INLINE bytes, whatever inline size
	 * the QP was created with: accept up to that, so callers that size
	 * inline data from ibv_query_qp() never see a spurious error.
	 */
	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	if (len > SROCE_MAX_INLINE)
		return EINVAL;
	plan->inline_len = (uint32_t)len;
	plan->inl = true;
	return 0;
}

/* The bind of a checked IBV_WR_BIND_MW (sroce-abi.h wr.bind). */
static void sroce_build_bind(struct sroce_send_wqe *wqe,
			     const struct ibv_send_wr *wr)
{
	const struct ibv_mw_bind_info *bi = &wr->bind_mw.bind_info;

	wqe->wr.bind.mw_rkey = wr->bind_mw.mw->rkey;
	wqe->wr.bind.new_rkey = wr->bind_mw.rkey;
	wqe->wr.bind.mr_lkey = bi->mr ? bi->mr->lkey : 0;
	wqe->wr.bind.access = bi->mw_access_flags;
	wqe->wr.bind.addr = bi->addr;
	wqe->wr.bind.length = bi->length;
}

/* The gather list or inline payload of a checked @wr; none for memory ops. */
static void sroce_build_send_data(struct sroce_send_wqe *wqe,
				  const struct ibv_send_wr *wr,
				  const struct sroce_send_plan *plan)
{
	const void *src;
	uint32_t off = 0;
	int i;

	wqe->num_sge = 0;
	wqe->inline_len = 0;
	if (SROCE_WR_OPS_MEM & SROCE_WR_OP_BIT(wr->opcode))
		return;
	if (plan->inl) {
		/* The caller may reuse its buffers as soon as we return. */
		for (i = 0; i < wr->num_sge; i++) {
			src = plan->auto_inl ? plan->va[i] :
			      (const void *)(uintptr_t)wr->sg_list[i].addr;
			memcpy(wqe->inline_data + off, src,
			       wr->sg_list[i].length);
			off += wr->sg_list[i].length;
		}
		wqe->inline_len = plan->inline_len;
		return;
	}
	memcpy(wqe->sge, wr->sg_list,
	       (size_t)wr->num_sge * sizeof(struct sroce_sge));
	wqe->num_sge = (uint32_t)wr->num_sge;
}

/* The remote range and FETH fields of a checked FLUSH (wr.rdma). */
static void sroce_build_flush(struct sroce_send_wqe *wqe,
			      const struct ibv_send_wr *wr,
			      const struct sroce_flush_args *flush)
{
	wqe->wr.rdma.remote_addr = wr->wr.rdma.remote_addr;
	wqe->wr.rdma.rkey = wr->wr.rdma.rkey;
	/* level MR: the responder ignores the range */
	wqe->wr.rdma.length = flush->length > UINT32_MAX ?
			      UINT32_MAX : (uint32_t)flush->length;
	wqe->wr.rdma.flush_type = flush->type;
	wqe->wr.rdma.flush_level = flush->level;
}

/* Writes the WQE for a checked @wr into @wqe, a free slot we own. */
static void sroce_build_send_wqe(struct sroce_send_wqe *wqe,
				 const struct sroce_qp *qp,
				 const struct ibv_send_wr *wr,
				 const struct sroce_flush_args *flush,
				 const struct sroce_send_plan *plan)
{

	wqe->wr_id = wr->wr_id;
	wqe->opcode = wr->opcode;
	wqe->send_flags = wr->send_flags;
	wqe->ex.imm_data = 0;
	wqe->xrc_remote_srqn = 0;
	memset(&wqe->wr, 0, sizeof(wqe->wr));

	switch (wr->opcode) {
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		wqe->ex.imm_data = wr->imm_data;
		/* fall through */
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_READ:
	case IBV_WR_ATOMIC_WRITE:
		wqe->wr.rdma.remote_addr = wr->wr.rdma.remote_addr;
		wqe->wr.rdma.rkey = wr->wr.rdma.rkey;
		break;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		wqe->wr.atomic.remote_addr = wr->wr.atomic.remote_addr;
		wqe->wr.atomic.compare_add = wr->wr.atomic.compare_add;
		wqe->wr.atomic.swap = wr->wr.atomic.swap;
		wqe->wr.atomic.rkey = wr->wr.atomic.rkey;
		break;
	case IBV_WR_SEND_WITH_IMM:
		wqe->ex.imm_data = wr->imm_data;
		break;
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_LOCAL_INV:
		wqe->ex.invalidate_rkey = wr->invalidate_rkey;
		break;
	case IBV_WR_BIND_MW:
		sroce_build_bind(wqe, wr);
		break;
	default:
		break;
	}
	if ((unsigned int)wr->opcode == SROCE_WR_FLUSH)
		sroce_build_flush(wqe, wr, flush);
	if (qp->vqp.qp.qp_type == IBV_QPT_UD &&
	    !(SROCE_WR_OPS_MEM & SROCE_WR_OP_BIT(wr->opcode))) {
		wqe->wr.ud.ah_num = to_sah(wr->wr.ud.ah)->ah_num;
		wqe->wr.ud.remote_qpn = wr->wr.ud.remote_qpn;
		wqe->wr.ud.remote_qkey = wr->wr.ud.remote_qkey;
	}
	if (qp->vqp.qp.qp_type == IBV_QPT_XRC_SEND &&
	    !(SROCE_WR_OPS_MEM & SROCE_WR_OP_BIT(wr->opcode)))
		wqe->xrc_remote_srqn = wr->qp_type.xrc.remote_srqn;

	if (plan->inl)
		wqe->send_flags |= IBV_SEND_INLINE;
	sroce_build_send_data(wqe, wr, plan);
}

/*
 * Doorbell: an empty legacy POST_SEND command (wr_count 0) makes the kernel
 * look at the SQ producer index.  Returns 0 or an errno value.
 */
static int sroce_ring_doorbell(struct ibv_qp *ibqp)
{
	struct ib_uverbs_post_send_resp resp = {};
	struct ibv_post_send cmd = {};
	ssize_t n;

	cmd.hdr.command = IB_USER_VERBS_CMD_POST_SEND;
	cmd.hdr.in_words = sizeof(cmd) / 4;
	cmd.hdr.out_words = sizeof(resp) / 4;
	cmd.core_payload.response = (uintptr_t)&resp;
	cmd.core_payload.qp_handle = ibqp->handle;
	cmd.core_payload.wr_count = 0;
	cmd.core_payload.sge_count = 0;
	cmd.core_payload.wqe_size = sizeof(struct ib_uverbs_send_wr);

	n = write(ibqp->context->cmd_fd, &cmd, sizeof(cmd));
	if (n == (ssize_t)sizeof(cmd))
		return 0;
	return n < 0 ? errno : EIO;
}

/*
 * Is the QP in the error state, where WQEs just posted must be flushed?
 * The cached ibqp->state knows only the transitions the caller asked for;
 * the kernel also moves a QP to ERR by itself (retry exceeded, remote
 * errors) and says so in the ring header (SROCE_QP_F_FLUSH).  Called after
 * the producer index was published: the full barrier orders that store
 * before the load of the flag, as the kernel orders its store of the flag
 * before its flush reads the producer index, so one of the two sides sees
 * the other's store (sroce-abi.h).
 */
static bool sroce_qp_flushing(struct ibv_qp *ibqp, struct sroce_ring *ring)
{
	atomic_thread_fence(memory_order_seq_cst);
	return ibqp->state == IBV_QPS_ERR ||
	       (sroce_load_acquire(&ring->hdr->qp_flags) & SROCE_QP_F_FLUSH);
}

/*
 * Reserves one slot of a work queue: returns false when @ring->limit WQEs
 * are outstanding even after re-reading the kernel's consumer index.
 */
static bool sroce_wq_has_room(struct sroce_ring *ring, uint32_t prod,
			      uint32_t *cons)
{
	if (prod - *cons < ring->limit)
		return true;
	*cons = sroce_load_acquire(&ring->hdr->consumer);
	return prod - *cons < ring->limit;
}

/*
 * Takes the SQ lock for posting, unless the QP cannot take send work
 * requests: EINVAL before RTS (IBTA 10.3.1), EIO when the kernel put the
 * ring in error; the lock is then not held.  On success *@prod is the
 * producer index and *@cons the kernel's consumer index.
 */
int sroce_sq_lock(struct sroce_qp *qp, uint32_t *prod, uint32_t *cons)
{
	struct ibv_qp *ibqp = &qp->vqp.qp;
	struct sroce_ring *sq = &qp->sq;

	if (!sq->hdr)
		return EINVAL;	/* an XRC receive QP, an opened QP */
	if (ibqp->state == IBV_QPS_RESET || ibqp->state == IBV_QPS_INIT ||
	    ibqp->state == IBV_QPS_RTR)
		return EINVAL;

	pthread_spin_lock(&sq->lock);
	if (sroce_ring_dead(sq)) {
		pthread_spin_unlock(&sq->lock);
		return EIO;
	}
	*prod = sroce_load_own(&sq->hdr->producer);
	*cons = sroce_load_acquire(&sq->hdr->consumer);
	return 0;
}

/*
 * Checks @wr and writes its WQE into slot *@prod of the locked SQ, which
 * it then advances.  @flush: a FLUSH's arguments (ibv_wr_flush()), else
 * NULL.  Returns 0, EINVAL (sroce_check_send_wr) or ENOMEM (the SQ is
 * full); nothing is written then.
 */
int sroce_sq_put(struct sroce_qp *qp, const struct ibv_send_wr *wr,
		 const struct sroce_flush_args *flush, uint32_t *prod,
		 uint32_t *cons)
{
	struct sroce_send_plan plan;
	int ret;

	ret = sroce_check_send_wr(qp, wr, flush, &plan);
	if (ret)
		return ret;
	if (!sroce_wq_has_room(&qp->sq, *prod, cons))
		return ENOMEM;
	sroce_build_send_wqe(sroce_ring_slot(&qp->sq, *prod), qp, wr, flush,
			     &plan);
	(*prod)++;
	return 0;
}

/*
 * Must the doorbell ring for WQEs just published?  Not while the kernel
 * says it will look at the SQ again by itself (sroce-abi.h,
 * SROCE_SQ_F_NEED_WAKEUP clear); always with a kernel that does not keep
 * the flag (no SROCE_SQ_F_WAKEUP_CAP).  Called after the producer index
 * was published (release): the full barrier orders that store before
 * the load of the flag, as the kernel orders its store of the flag
 * before its load of the index, so either we see NEED_WAKEUP or the
 * kernel sees the new index (the store buffering argument of
 * sroce-abi.h).  No WQE is left unseen.
 */
static bool sroce_sq_needs_doorbell(struct sroce_ring *sq)
{
	uint32_t f;

	atomic_thread_fence(memory_order_seq_cst);
	f = sroce_load_acquire(&sq->hdr->sq_flags);
	return !(f & SROCE_SQ_F_WAKEUP_CAP) || (f & SROCE_SQ_F_NEED_WAKEUP);
}

/*
 * Publishes the WQEs in slots [@start, @prod), drops the SQ lock and, if
 * there were any and the kernel needs it, rings the doorbell.  Returns 0
 * or the doorbell's errno.
 */
int sroce_sq_unlock_post(struct sroce_qp *qp, uint32_t start, uint32_t prod)
{
	bool ring = false;

	if (prod != start) {
		sroce_store_release(&qp->sq.hdr->producer, prod);
		ring = sroce_sq_needs_doorbell(&qp->sq);
	}
	pthread_spin_unlock(&qp->sq.lock);

	return ring ? sroce_ring_doorbell(&qp->vqp.qp) : 0;
}

int sroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	uint32_t prod, cons, start;
	int ret, db;

	if (!bad_wr)
		return EINVAL;
	*bad_wr = NULL;
	ret = sroce_sq_lock(qp, &start, &cons);
	if (ret) {
		*bad_wr = wr;
		return ret;
	}
	for (prod = start; wr; wr = wr->next) {
		ret = sroce_sq_put(qp, wr, NULL, &prod, &cons);
		if (ret) {
			*bad_wr = wr;
			break;
		}
	}
	db = sroce_sq_unlock_post(qp, start, prod);
	return ret ? ret : db;
}

static void sroce_build_recv_wqe(struct sroce_recv_wqe *wqe,
				 const struct ibv_recv_wr *wr)
{
	wqe->wr_id = wr->wr_id;
	wqe->num_sge = (uint32_t)wr->num_sge;
	wqe->reserved = 0;
	memcpy(wqe->sge, wr->sg_list,
	       (size_t)wr->num_sge * sizeof(struct sroce_sge));
}

/*
 * Writes receive WRs into an RQ or SRQ ring and publishes them: at most
 * @max_sge entries each (EINVAL), at most @ring->limit outstanding
 * (ENOMEM), EIO once the kernel put the ring in error.  Sets *@posted
 * when at least one WQE was published.
 */
static int sroce_post_recv_ring(struct sroce_ring *ring, uint32_t max_sge,
				struct ibv_recv_wr *wr,
				struct ibv_recv_wr **bad_wr, bool *posted)
{
	uint32_t prod, cons, start;
	int ret = 0;

	pthread_spin_lock(&ring->lock);
	start = prod = sroce_load_own(&ring->hdr->producer);
	cons = sroce_load_acquire(&ring->hdr->consumer);
	if (sroce_ring_dead(ring)) {
		*bad_wr = wr;
		ret = EIO;
		wr = NULL;
	}
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > max_sge ||
		    (wr->num_sge && !wr->sg_list))
			ret = EINVAL;
		else if (!sroce_wq_has_room(ring, prod, &cons))
			ret = ENOMEM;
		if (ret) {
			*bad_wr = wr;
			break;
		}
		sroce_build_recv_wqe(sroce_ring_slot(ring, prod), wr);
		prod++;
	}
	if (prod != start)
		sroce_store_release(&ring->hdr->producer, prod);
	pthread_spin_unlock(&ring->lock);
	*posted = prod != start;
	return ret;
}

int sroce_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_ring *rq = &qp->rq;
	bool posted;
	int ret;

	if (!bad_wr)
		return EINVAL;
	*bad_wr = NULL;
	/* IBTA C10-97.2.1: no RQ work requests in RESET. */
	if (!qp->has_rq || ibqp->state == IBV_QPS_RESET) {
		*bad_wr = wr;
		return EINVAL;
	}

	ret = sroce_post_recv_ring(rq, qp->max_recv_sge, wr, bad_wr, &posted);

	/*
	 * In ERR the kernel must complete new receive WQEs with a flush error
	 * (IBTA 10.3.1.7); the doorbell makes it run the QP, which flushes
	 * both queues.
	 */
	if (posted && sroce_qp_flushing(ibqp, rq))
		sroce_ring_doorbell(ibqp);
	return ret;
}

/*
 * A pure ring operation: the kernel takes the WQEs when messages arrive on
 * the QPs attached to the SRQ, so nothing is rung.
 */
int sroce_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	bool posted;

	if (!bad_wr)
		return EINVAL;
	*bad_wr = NULL;
	return sroce_post_recv_ring(&srq->ring, srq->max_sge, wr, bad_wr,
				    &posted);
}
