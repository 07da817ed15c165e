/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * sroce.h - what the provider's files share: the provider objects, the
 * ring accessors of the data path, the verbs the ops table of sroce.c
 * names, and the send queue, CQ and QP helpers that the extended verbs
 * (sroce_ex.c: ibv_create_qp_ex with the ibv_wr_* API, ibv_create_cq_ex)
 * reuse, so every rule on a WQE or a CQE lives in one place.
 *
 * Files and their one job each:
 *   sroce.c       the provider: ABI checks, query, PD, XRC domain, MR, MW,
 *                 AH, the ops table, context and device allocation,
 *                 device matching, registration
 *   sroce_ring.c  mapping and unmapping the rings the kernel allocates
 *   sroce_cq.c    CQs: create, destroy, resize, poll
 *   sroce_qp.c    QPs (create, open, query, modify, destroy) and SRQs
 *                 (create, query, modify, destroy)
 *   sroce_post.c  posting: ibv_post_send (checks, WQEs, doorbell) and the
 *                 send queue code ibv_wr_* shares, ibv_post_recv,
 *                 ibv_post_srq_recv
 *   sroce_ex.c    the extended verbs: ibv_create_qp_ex with the ibv_wr_*
 *                 API, ibv_create_cq_ex with ibv_start_poll and the rest
 */
#ifndef SROCE_PROVIDER_H
#define SROCE_PROVIDER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/sroce-abi.h>

#include "verbs_private.h"

/*
 * A protection domain, or a parent domain over one (ibv_alloc_parent_domain):
 * @protection is NULL for a protection domain; for a parent domain, the
 * protection domain it extends, whose handle its ibpd carries, so every
 * command names the PD the kernel knows.  @parents counts a protection
 * domain's parent domains: ibv_dealloc_pd() fails with EBUSY while any is
 * left.
 */
struct sroce_pd {
	struct ibv_pd ibpd;
	struct sroce_pd *protection;
	atomic_int parents;
};

static inline struct sroce_pd *to_spd(struct ibv_pd *ibpd)
{
	return container_of(ibpd, struct sroce_pd, ibpd);
}

/* Is @ibpd a parent domain (ibv_alloc_parent_domain) of @ibctx? */
static inline bool sroce_is_parent_domain(struct ibv_pd *ibpd,
					  struct ibv_context *ibctx)
{
	return ibpd && ibpd->context == ibctx && to_spd(ibpd)->protection;
}

/*
 * One mapped ring.  @limit is how many slots may be outstanding at once:
 * the ring size, further capped for work queues by the capacity the kernel
 * granted (so the CQs the caller sized for it cannot overflow).
 */
struct sroce_ring {
	struct sroce_queue_hdr *hdr;
	uint8_t *slots;
	size_t map_size;
	uint32_t num;
	uint32_t slot_size;
	uint32_t limit;
	pthread_spinlock_t lock;
};

/*
 * State of the extended poll interface (ibv_start_poll .. ibv_end_poll):
 * @wc is the current completion, parsed by sroce_poll_cq(); @lock keeps
 * other pollers out between start_poll and end_poll, unless the CQ was
 * created IBV_CREATE_CQ_ATTR_SINGLE_THREADED (@locking false).
 */
struct sroce_cq_poll {
	struct ibv_wc wc;
	pthread_spinlock_t lock;
	bool locking;
};

struct sroce_cq {
	struct verbs_cq vcq;
	struct sroce_ring ring;
	struct sroce_cq_poll ex;
};

/*
 * The arguments of an RDMA FLUSH (ibv_wr_flush(), IBTA 1.5 annex A19.4),
 * which struct ibv_send_wr has no room for: the range's @length, the
 * placement type @type (SROCE_FLUSH_GLOBAL / _PERSISTENT bits) and the
 * selectivity level @level (SROCE_FLUSH_RANGE or SROCE_FLUSH_MR).
 */
struct sroce_flush_args {
	uint64_t length;
	uint8_t type;
	uint8_t level;
};

/*
 * A batch of the ibv_wr_* API (ibv_wr_start .. ibv_wr_complete): the work
 * request being built is kept in ibv_post_send()'s form (@wr, its gather
 * list @sge, inline bytes copied into @inline_buf by the setter, as the
 * caller may reuse its buffer at once) and written to the SQ ring by the
 * same code as ibv_post_send's when the next builder or ibv_wr_complete()
 * comes.  The SQ lock is held from ibv_wr_start on (@locked); WQEs go to
 * slots [@start, @prod), published only by ibv_wr_complete() when no call
 * of the batch failed (@err: the first errno).  @ops: IBV_WR_* opcode bits
 * (SROCE_WR_OP_BIT) the QP was created for (send_ops_flags).  @flush: the
 * FLUSH arguments of @wr when it is one.
 */
struct sroce_wr_batch {
	struct ibv_send_wr wr;
	struct ibv_sge sge[SROCE_MAX_SGE];
	uint8_t inline_buf[SROCE_MAX_INLINE];
	struct sroce_flush_args flush;
	uint32_t start;
	uint32_t prod;
	uint32_t cons;
	uint32_t ops;
	int err;
	bool locked;
	bool pending;
};

/*
 * A QP.  @sq.hdr is NULL when the QP has no send queue (an XRC receive QP,
 * or a QP ibv_open_qp() opened), @has_rq false when it has no receive
 * queue of its own (an SRQ, or XRC: IBTA annex A14).
 */
struct sroce_qp {
	struct verbs_qp vqp;
	struct sroce_ring sq;
	struct sroce_ring rq;
	bool has_rq;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	struct sroce_wr_batch wrb;
};

/*
 * A basic or an XRC SRQ: the same ring of receive WQEs.  @vsrq records the
 * type, and for an XRC SRQ its domain, CQ and number, when it came from
 * ibv_create_srq_ex() (a basic ibv_create_srq() leaves them zero: basic).
 */
struct sroce_srq {
	struct verbs_srq vsrq;
	struct sroce_ring ring;
	uint32_t max_sge;
};

struct sroce_ah {
	struct ibv_ah ibv_ah;
	uint32_t ah_num;
};

static inline struct sroce_cq *to_scq(struct ibv_cq *ibcq)
{
	return container_of(ibcq, struct sroce_cq, vcq.cq);
}

static inline struct sroce_qp *to_sqp(struct ibv_qp *ibqp)
{
	return container_of(ibqp, struct sroce_qp, vqp.qp);
}

static inline struct sroce_srq *to_ssrq(struct ibv_srq *ibsrq)
{
	return container_of(ibsrq, struct sroce_srq, vsrq.srq);
}

static inline struct sroce_ah *to_sah(struct ibv_ah *ibah)
{
	return container_of(ibah, struct sroce_ah, ibv_ah);
}

#define sroce_err(ibctx, fmt, ...)					\
	__verbs_log(verbs_get_ctx(ibctx), VERBS_LOG_ERR,		\
		    "%s: %s:%d: " fmt, (ibctx)->device->name, __func__,	\
		    __LINE__, ##__VA_ARGS__)

/*
 * Ring indices (sroce.c: the ring protocol): inline, as the data path of
 * several files uses them on every post and poll.
 */
static inline uint32_t sroce_load_acquire(uint32_t *idx)
{
	return atomic_load_explicit((_Atomic uint32_t *)idx,
				    memory_order_acquire);
}

/* Our own index: nobody else writes it while we hold the ring lock. */
static inline uint32_t sroce_load_own(uint32_t *idx)
{
	return atomic_load_explicit((_Atomic uint32_t *)idx,
				    memory_order_relaxed);
}

static inline void sroce_store_release(uint32_t *idx, uint32_t val)
{
	atomic_store_explicit((_Atomic uint32_t *)idx, val,
			      memory_order_release);
}

static inline void *sroce_ring_slot(const struct sroce_ring *ring,
				    uint32_t idx)
{
	return ring->slots + (size_t)(idx & (ring->num - 1)) * ring->slot_size;
}

/*
 * The kernel put the ring in error (a hostile index or slot, a CQ overrun,
 * or the queue destroyed under a live mapping): posts and polls fail with
 * EIO from then on.
 */
static inline bool sroce_ring_dead(struct sroce_ring *ring)
{
	return sroce_load_acquire(&ring->hdr->flags) & SROCE_QUEUE_F_ERROR;
}

/*
 * Sends of at most SROCE_AUTO_INLINE_MAX bytes in at most
 * SROCE_AUTO_INLINE_SGE entries travel inside the WQE even without
 * IBV_SEND_INLINE, when their lkeys name MRs of this context (sroce.c:
 * sroce_mr_span()): the kernel then reads no MR.
 */
#define SROCE_AUTO_INLINE_MAX	128
#define SROCE_AUTO_INLINE_SGE	4

/* sroce.c: the MRs of a context, for the inline copy of small sends */
bool sroce_mr_span(struct ibv_context *ibctx, uint32_t pd_handle,
		   const struct ibv_sge *sge, int n, const void **va);

/* sroce_ring.c */
void *sroce_ring_mmap(struct ibv_context *ibctx,
		      const struct sroce_mmap_info *mi,
		      uint32_t slot_size, int *err);
void sroce_ring_set(struct sroce_ring *ring, void *buf,
		    const struct sroce_mmap_info *mi,
		    uint32_t slot_size, uint32_t max_wr);
int sroce_ring_map(struct ibv_context *ibctx, struct sroce_ring *ring,
		   const struct sroce_mmap_info *mi, uint32_t slot_size,
		   uint32_t max_wr);
void sroce_ring_unmap(struct sroce_ring *ring);

/* sroce_cq.c: create and poll are also what the extended CQ builds on */
struct ibv_cq *sroce_create_cq(struct ibv_context *ibctx, int cqe,
			       struct ibv_comp_channel *channel,
			       int comp_vector);
int sroce_destroy_cq(struct ibv_cq *ibcq);
int sroce_resize_cq(struct ibv_cq *ibcq, int cqe);
int sroce_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc);

/* sroce_qp.c: the checks and command the extended QP builds on, verbs */
int sroce_check_qp_new(enum ibv_qp_type type, const struct ibv_qp_cap *cap,
		       const struct ibv_cq *send_cq,
		       const struct ibv_cq *recv_cq);
struct sroce_qp *sroce_create_qp_cmd_ex(struct ibv_context *ibctx,
					struct ibv_qp_init_attr_ex *attr);
struct ibv_qp *sroce_create_qp(struct ibv_pd *pd,
			       struct ibv_qp_init_attr *attr);
struct ibv_qp *sroce_open_qp(struct ibv_context *ibctx,
			     struct ibv_qp_open_attr *attr);
int sroce_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		   int attr_mask, struct ibv_qp_init_attr *init_attr);
int sroce_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
		    int attr_mask);
int sroce_destroy_qp(struct ibv_qp *ibqp);
struct ibv_srq *sroce_create_srq_ex(struct ibv_context *ibctx,
				    struct ibv_srq_init_attr_ex *attr);
struct ibv_srq *sroce_create_srq(struct ibv_pd *pd,
				 struct ibv_srq_init_attr *attr);
int sroce_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num);
int sroce_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
		     int attr_mask);
int sroce_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr);
int sroce_destroy_srq(struct ibv_srq *ibsrq);

/* sroce_post.c: the send queue, shared by ibv_post_send and ibv_wr_* */
uint32_t sroce_qp_opcodes(enum ibv_qp_type type);
int sroce_sq_lock(struct sroce_qp *qp, uint32_t *prod, uint32_t *cons);
int sroce_sq_put(struct sroce_qp *qp, const struct ibv_send_wr *wr,
		 const struct sroce_flush_args *flush, uint32_t *prod,
		 uint32_t *cons);
int sroce_sq_unlock_post(struct sroce_qp *qp, uint32_t start, uint32_t prod);

/* sroce_post.c: the posting verbs */
int sroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr);
int sroce_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr);
int sroce_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr);

/* sroce_ex.c */
struct ibv_cq_ex *sroce_create_cq_ex(struct ibv_context *ibctx,
				     struct ibv_cq_init_attr_ex *attr);
struct ibv_qp *sroce_create_qp_ex(struct ibv_context *ibctx,
				  struct ibv_qp_init_attr_ex *attr);

#endif /* SROCE_PROVIDER_H */
