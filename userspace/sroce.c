// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce.c - rdma-core 44 userspace provider for the sroce software RoCEv2
 * device (libsroce-rdmav34.so).
 *
 * Control verbs go to the kernel through libibverbs' ibv_cmd_*() helpers.
 * The data path bypasses the kernel: the send queue, receive queue and
 * completion queue are rings the kernel allocates and this provider maps
 * (include/uapi/rdma/sroce-abi.h).  post_recv and poll_cq are pure ring
 * operations; post_send writes WQEs and then rings a doorbell, an empty
 * legacy POST_SEND command, so the kernel schedules the QP's requester
 * (unless the ring header says the kernel will look at the SQ anyway:
 * SROCE_SQ_F_NEED_WAKEUP).  Small payloads are copied into the WQE
 * (inline) when their lkeys name MRs of this context, which are tracked
 * for that (sroce_mr_span()).
 *
 * Ring protocol (both sides): free-running 32-bit indices; each side writes
 * only its own index, with a release store after the slot contents, and
 * reads the other side's index with an acquire load before touching slots.
 * The provider re-reads its own index from the ring on every call instead of
 * caching it, so a kernel that resets a ring (QP to RESET) stays in step.
 *
 * The extended verbs (ibv_create_cq_ex, ibv_create_qp_ex and the ibv_wr_*
 * API) are in sroce_ex.c, built on the CQ, QP and send queue code of
 * sroce_cq.c, sroce_qp.c and sroce_post.c (sroce.h).
 *
 * Shared receive queues: the SRQ is one more ring the provider produces
 * into; ibv_post_srq_recv() is a pure ring operation (the kernel takes the
 * WQEs as messages arrive on the QPs attached to it).
 *
 * Parent domains (ibv_alloc_parent_domain) stand for their protection
 * domain everywhere; they carry no thread domain.
 *
 * Memory windows (IBTA 10.6.7): type 1 and type 2B.  ibv_alloc_mw() and
 * ibv_dealloc_mw() are kernel commands; a bind is a send queue work
 * request (IBV_WR_BIND_MW, which ibv_bind_mw() posts for a type 1 window)
 * that the kernel executes in queue order, as it does IBV_WR_LOCAL_INV.
 *
 * XRC (IBTA annex A14): XRC domains (ibv_open_xrcd), XRC SRQs
 * (ibv_create_srq_ex: the basic SRQ's ring, plus the number
 * ibv_get_srq_num() returns), XRC send (INI) QPs, whose send queue is
 * an RC one writing the target SRQ's number into every WQE, and XRC
 * receive (TGT) QPs, which have no ring at all (ibv_post_send and
 * ibv_post_recv on them fail with EINVAL, as ibv_post_recv on an INI QP
 * does) and may be opened by another process of the domain (ibv_open_qp).
 *
 * Not supported (left NULL, libibverbs returns EOPNOTSUPP): DM, thread
 * domains, flows, tag matching SRQs.
 *
 * This file: the ABI checks, query, PD, XRC domain, MR, MW, AH, the ops
 * table, context and device allocation, matching, registration.  The map
 * of the other files is at the top of sroce.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/sroce-abi.h>

#include "sroce.h"
#include "verbs_private.h"

#define SROCE_PROVIDER_NAME	"sroce"

/* The ABI stores userspace values in WQEs and CQEs: pin the equalities. */
static_assert(SROCE_WC_F_GRH == IBV_WC_GRH, "CQE flag GRH");
static_assert(SROCE_WC_F_WITH_IMM == IBV_WC_WITH_IMM, "CQE flag WITH_IMM");
static_assert(SROCE_WC_F_WITH_INV == IBV_WC_WITH_INV, "CQE flag WITH_INV");
#define SROCE_SAME(a, b)	((int)(a) == (int)(b))
static_assert(SROCE_SAME(IBV_WR_RDMA_WRITE, IB_UVERBS_WR_RDMA_WRITE) &&
	      SROCE_SAME(IBV_WR_RDMA_WRITE_WITH_IMM,
			 IB_UVERBS_WR_RDMA_WRITE_WITH_IMM) &&
	      SROCE_SAME(IBV_WR_SEND, IB_UVERBS_WR_SEND) &&
	      SROCE_SAME(IBV_WR_SEND_WITH_IMM, IB_UVERBS_WR_SEND_WITH_IMM) &&
	      SROCE_SAME(IBV_WR_RDMA_READ, IB_UVERBS_WR_RDMA_READ) &&
	      SROCE_SAME(IBV_WR_ATOMIC_CMP_AND_SWP,
			 IB_UVERBS_WR_ATOMIC_CMP_AND_SWP) &&
	      SROCE_SAME(IBV_WR_ATOMIC_FETCH_AND_ADD,
			 IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD) &&
	      SROCE_SAME(IBV_WR_SEND_WITH_INV, IB_UVERBS_WR_SEND_WITH_INV) &&
	      SROCE_SAME(IBV_WR_ATOMIC_WRITE, SROCE_WR_ATOMIC_WRITE) &&
	      SROCE_SAME(IBV_WR_LOCAL_INV, IB_UVERBS_WR_LOCAL_INV) &&
	      SROCE_SAME(IBV_WR_BIND_MW, IB_UVERBS_WR_BIND_MW),
	      "send opcodes");
static_assert(SROCE_MW_ACCESS == (IBV_ACCESS_LOCAL_WRITE |
				  IBV_ACCESS_REMOTE_WRITE |
				  IBV_ACCESS_REMOTE_READ |
				  IBV_ACCESS_REMOTE_ATOMIC), "MW access");
/* SROCE_WR_FLAG_* (the kernel's IB_SEND_* bits) are libibverbs' bits. */
static_assert(SROCE_SAME(IBV_SEND_FENCE, SROCE_WR_FLAG_FENCE) &&
	      SROCE_SAME(IBV_SEND_SIGNALED, SROCE_WR_FLAG_SIGNALED) &&
	      SROCE_SAME(IBV_SEND_SOLICITED, SROCE_WR_FLAG_SOLICITED) &&
	      SROCE_SAME(IBV_SEND_INLINE, SROCE_WR_FLAG_INLINE), "send flags");
static_assert(!(SROCE_WR_SEND_FLAGS & IBV_SEND_IP_CSUM),
	      "no checksum offload");
static_assert(SROCE_SAME(IBV_WC_SEND, IB_UVERBS_WC_SEND) &&
	      SROCE_SAME(IBV_WC_RDMA_WRITE, IB_UVERBS_WC_RDMA_WRITE) &&
	      SROCE_SAME(IBV_WC_RDMA_READ, IB_UVERBS_WC_RDMA_READ) &&
	      SROCE_SAME(IBV_WC_COMP_SWAP, IB_UVERBS_WC_COMP_SWAP) &&
	      SROCE_SAME(IBV_WC_FETCH_ADD, IB_UVERBS_WC_FETCH_ADD) &&
	      SROCE_SAME(IBV_WC_ATOMIC_WRITE, SROCE_WC_ATOMIC_WRITE) &&
	      IBV_WC_RECV == 1 << 7 &&
	      IBV_WC_RECV_RDMA_WITH_IMM == IBV_WC_RECV + 1, "CQE opcodes");
static_assert(sizeof(struct sroce_sge) == sizeof(struct ibv_sge) &&
	      offsetof(struct sroce_sge, length) ==
	      offsetof(struct ibv_sge, length) &&
	      offsetof(struct sroce_sge, lkey) == offsetof(struct ibv_sge, lkey),
	      "sroce_sge must mirror ibv_sge");
static_assert(sizeof(struct sroce_queue_hdr) == SROCE_QUEUE_HDR_SIZE,
	      "ring header size");
static_assert(sizeof(struct sroce_send_wqe) == 320, "send WQE size");
/*
 * RDMA FLUSH (IBTA 1.5 annex A19.4): rdma-core 45 and later name what
 * sroce-abi.h defines; the completion opcode passes through as the
 * kernel stores it, SROCE_WC_FLUSH (8), whatever the headers know.
 */
#ifdef SROCE_HAVE_WR_FLUSH
static_assert(SROCE_SAME(IBV_WR_FLUSH, SROCE_WR_FLUSH) &&
	      SROCE_SAME(IBV_WC_FLUSH, SROCE_WC_FLUSH) &&
	      SROCE_SAME(IBV_FLUSH_GLOBAL, SROCE_FLUSH_GLOBAL) &&
	      SROCE_SAME(IBV_FLUSH_PERSISTENT, SROCE_FLUSH_PERSISTENT) &&
	      SROCE_SAME(IBV_FLUSH_RANGE, SROCE_FLUSH_RANGE) &&
	      SROCE_SAME(IBV_FLUSH_MR, SROCE_FLUSH_MR) &&
	      SROCE_SAME(IBV_ACCESS_FLUSH_GLOBAL, SROCE_ACCESS_FLUSH_GLOBAL) &&
	      SROCE_SAME(IBV_ACCESS_FLUSH_PERSISTENT,
			 SROCE_ACCESS_FLUSH_PERSISTENT), "FLUSH values");
#endif
static_assert(sizeof(struct sroce_recv_wqe) == 272, "recv WQE size");
static_assert(sizeof(struct sroce_cqe) == 48, "CQE size");
static_assert(sizeof(_Atomic uint32_t) == sizeof(uint32_t) &&
	      _Alignof(_Atomic uint32_t) == _Alignof(uint32_t),
	      "ring indices are accessed as C11 atomics");

/* ------------------------------------------------------------------ */
/* Provider objects                                                    */
/* ------------------------------------------------------------------ */

struct sroce_device {
	struct verbs_device vdev;
};

/*
 * The MRs this context registered, by lkey, for the inline copy of small
 * payloads (sroce_mr_span()): each entry's own copy of what the kernel
 * checks an SGE against (PD, iova range) and where that range is in our
 * address space.  @mr_lock: readers are posts, writers reg/dereg/rereg.
 */
#define SROCE_MR_HASH	256

struct sroce_mr {
	struct verbs_mr vmr;
	struct sroce_mr *next;
	uint64_t iova;
	uint64_t length;
	uintptr_t addr;
	uint32_t lkey;
	uint32_t pd_handle;
	bool tracked;
};

struct sroce_context {
	struct verbs_context vctx;
	pthread_rwlock_t mr_lock;
	struct sroce_mr *mr_hash[SROCE_MR_HASH];
};

/* Driver data after the core responses: the kernel sees it as udata. */
struct sroce_get_context_resp {
	struct ib_uverbs_get_context_resp ibv_resp;
	struct sroce_alloc_ucontext_resp drv;
};

struct sroce_create_ah_resp_buf {
	struct ib_uverbs_create_ah_resp ibv_resp;
	struct sroce_create_ah_resp drv;
};

static_assert(offsetof(struct sroce_get_context_resp, drv) ==
	      sizeof(struct ib_uverbs_get_context_resp), "no padding");
static_assert(offsetof(struct sroce_create_ah_resp_buf, drv) ==
	      sizeof(struct ib_uverbs_create_ah_resp), "no padding");

static inline struct sroce_context *to_sctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct sroce_context, vctx.context);
}

/* ------------------------------------------------------------------ */
/* Query                                                               */
/* ------------------------------------------------------------------ */

static int sroce_query_device_ex(struct ibv_context *ibctx,
				 const struct ibv_query_device_ex_input *input,
				 struct ibv_device_attr_ex *attr,
				 size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp = {};
	size_t resp_size = sizeof(resp);
	uint64_t fw;
	int ret;

	ret = ibv_cmd_query_device_any(ibctx, input, attr, attr_size, &resp,
				       &resp_size);
	if (ret)
		return ret;

	fw = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver),
		 "%u.%u.%u", (unsigned int)(fw >> 32) & 0xffff,
		 (unsigned int)(fw >> 16) & 0xffff, (unsigned int)fw & 0xffff);
	return 0;
}

static int sroce_query_port(struct ibv_context *ibctx, uint8_t port,
			    struct ibv_port_attr *attr)
{
	struct ibv_query_port cmd = {};

	return ibv_cmd_query_port(ibctx, port, attr, &cmd, sizeof(cmd));
}

/* ------------------------------------------------------------------ */
/* PD                                                                  */
/* ------------------------------------------------------------------ */

static struct ibv_pd *sroce_alloc_pd(struct ibv_context *ibctx)
{
	struct ib_uverbs_alloc_pd_resp resp = {};
	struct ibv_alloc_pd cmd = {};
	struct sroce_pd *pd;
	int ret;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;

	ret = ibv_cmd_alloc_pd(ibctx, &pd->ibpd, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}
	return &pd->ibpd;
}

#define SROCE_PARENT_DOMAIN_MASK (IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS | \
				  IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)

/*
 * ibv_alloc_parent_domain(3): a parent domain over a protection domain of
 * this context.  EINVAL for an unknown comp_mask bit, a PD of another
 * context or a parent domain as @attr->pd, or any thread domain (sroce has
 * none: ibv_alloc_td() fails with EOPNOTSUPP, so no TD is one of ours).
 * The allocators are accepted and never called: the provider allocates no
 * queue buffer of its own, every ring is kernel memory it maps.
 */
static struct ibv_pd *
sroce_alloc_parent_domain(struct ibv_context *ibctx,
			  struct ibv_parent_domain_init_attr *attr)
{
	struct sroce_pd *pd;

	if ((attr->comp_mask & ~SROCE_PARENT_DOMAIN_MASK) || !attr->pd ||
	    attr->pd->context != ibctx || to_spd(attr->pd)->protection ||
	    attr->td) {
		errno = EINVAL;
		return NULL;
	}
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	pd->ibpd.context = ibctx;
	pd->ibpd.handle = attr->pd->handle;
	pd->protection = to_spd(attr->pd);
	atomic_fetch_add(&pd->protection->parents, 1);
	return &pd->ibpd;
}

/* A parent domain goes at once; a protection domain not before them. */
static int sroce_dealloc_pd(struct ibv_pd *ibpd)
{
	struct sroce_pd *pd = to_spd(ibpd);
	int ret;

	if (pd->protection) {
		atomic_fetch_sub(&pd->protection->parents, 1);
		free(pd);
		return 0;
	}
	if (atomic_load(&pd->parents))
		return EBUSY;
	ret = ibv_cmd_dealloc_pd(ibpd);
	if (ret)
		return ret;
	free(pd);
	return 0;
}

/* ------------------------------------------------------------------ */
/* XRC domain                                                          */
/* ------------------------------------------------------------------ */

/*
 * ibv_open_xrcd(3): a new XRC domain, or the one of the inode @attr->fd
 * names, shared with the processes that opened it too (IBTA annex A14; the
 * kernel keeps the inode table).  ibv_cmd_open_xrcd() refuses a comp_mask
 * without IBV_XRCD_INIT_ATTR_FD and _OFLAGS (EINVAL) or with an unknown
 * bit (EOPNOTSUPP); the kernel an inode without a domain and no O_CREAT
 * (EAGAIN), or one with a domain and O_EXCL (EINVAL).  No driver data
 * either way.
 */
static struct ibv_xrcd *sroce_open_xrcd(struct ibv_context *ibctx,
					struct ibv_xrcd_init_attr *attr)
{
	struct ib_uverbs_open_xrcd_resp resp = {};
	struct ibv_open_xrcd cmd = {};
	struct verbs_xrcd *xrcd;
	int ret;

	xrcd = calloc(1, sizeof(*xrcd));
	if (!xrcd)
		return NULL;
	ret = ibv_cmd_open_xrcd(ibctx, xrcd, sizeof(*xrcd), attr, &cmd,
				sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(xrcd);
		errno = ret;
		return NULL;
	}
	return &xrcd->xrcd;
}

/* EBUSY from the kernel while an SRQ or a QP of this process uses it. */
static int sroce_close_xrcd(struct ibv_xrcd *ibxrcd)
{
	struct verbs_xrcd *xrcd = container_of(ibxrcd, struct verbs_xrcd, xrcd);
	int ret;

	ret = ibv_cmd_close_xrcd(xrcd);
	if (ret)
		return ret;
	free(xrcd);
	return 0;
}

/* ------------------------------------------------------------------ */
/* MR                                                                  */
/* ------------------------------------------------------------------ */

static struct sroce_mr **sroce_mr_bucket(struct sroce_context *ctx,
					 uint32_t lkey)
{
	return &ctx->mr_hash[(lkey ^ (lkey >> 8)) & (SROCE_MR_HASH - 1)];
}

static void sroce_mr_track(struct sroce_context *ctx, struct sroce_mr *mr)
{
	struct sroce_mr **b = sroce_mr_bucket(ctx, mr->lkey);

	pthread_rwlock_wrlock(&ctx->mr_lock);
	mr->next = *b;
	*b = mr;
	mr->tracked = true;
	pthread_rwlock_unlock(&ctx->mr_lock);
}

static void sroce_mr_untrack(struct sroce_context *ctx, struct sroce_mr *mr)
{
	struct sroce_mr **p;

	pthread_rwlock_wrlock(&ctx->mr_lock);
	for (p = sroce_mr_bucket(ctx, mr->lkey); mr->tracked && *p;
	     p = &(*p)->next) {
		if (*p == mr) {
			*p = mr->next;
			mr->tracked = false;
			break;
		}
	}
	pthread_rwlock_unlock(&ctx->mr_lock);
}

/* The SGE lies in @mr (kernel rules: sroce_mr_check()); its address here. */
static bool sroce_mr_holds(const struct sroce_mr *mr, const struct ibv_sge *sge,
			   uint32_t pd_handle, const void **va)
{
	uint64_t off = sge->addr - mr->iova;

	if (mr->pd_handle != pd_handle || sge->addr < mr->iova ||
	    off > mr->length || sge->length > mr->length - off)
		return false;
	*va = (const void *)(mr->addr + (uintptr_t)off);
	return true;
}

/*
 * Do the @n SGEs of a send name MRs this context registered in the PD of
 * @pd_handle, each SGE inside its MR?  Then @va gets each SGE's address in
 * our address space and the payload may be copied into the WQE: the
 * kernel would accept these SGEs (a user MR stays valid until it is
 * deregistered; local reads need no access right).  Any other lkey (an
 * MR of another context, a bad key) is left to the kernel's checks.
 */
bool sroce_mr_span(struct ibv_context *ibctx, uint32_t pd_handle,
		   const struct ibv_sge *sge, int n, const void **va)
{
	struct sroce_context *ctx = to_sctx(ibctx);
	const struct sroce_mr *mr;
	bool ok = true;
	int i;

	pthread_rwlock_rdlock(&ctx->mr_lock);
	for (i = 0; ok && i < n; i++) {
		mr = *sroce_mr_bucket(ctx, sge[i].lkey);
		while (mr && mr->lkey != sge[i].lkey)
			mr = mr->next;
		ok = mr && sroce_mr_holds(mr, &sge[i], pd_handle, &va[i]);
	}
	pthread_rwlock_unlock(&ctx->mr_lock);
	return ok;
}

static struct ibv_mr *sroce_reg_mr(struct ibv_pd *pd, void *addr,
				   size_t length, uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp = {};
	struct ibv_reg_mr cmd = {};
	struct sroce_mr *mr;
	int ret;

	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return NULL;

	ret = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, &mr->vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(mr);
		errno = ret;
		return NULL;
	}
	mr->iova = hca_va;
	mr->length = length;
	mr->addr = (uintptr_t)addr;
	mr->lkey = mr->vmr.ibv_mr.lkey;
	mr->pd_handle = pd->handle;
	sroce_mr_track(to_sctx(pd->context), mr);
	return &mr->vmr.ibv_mr;
}

/*
 * ibv_rereg_mr: the kernel registers a new MR under the old keys
 * (ibv_cmd_rereg_mr() stores what it answers in @vmr) and deregisters the
 * old one; the
 * iova of a new translation is its address, as ibv_reg_mr() uses.  Returns
 * 0 or an errno value (also left in errno; libibverbs then returns
 * IBV_REREG_MR_ERR_CMD and the old MR is unchanged).
 */
static int sroce_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
			  void *addr, size_t length, int access)
{
	struct ib_uverbs_rereg_mr_resp resp = {};
	struct ibv_rereg_mr cmd = {};
	int ret;

	/* no more inline copies from it: its keys, PD or range may change */
	sroce_mr_untrack(to_sctx(vmr->ibv_mr.context),
			 container_of(vmr, struct sroce_mr, vmr));
	ret = ibv_cmd_rereg_mr(vmr, (uint32_t)flags, addr, length,
			       (uintptr_t)addr, access, pd, &cmd, sizeof(cmd),
			       &resp, sizeof(resp));
	if (ret)
		errno = ret;
	return ret;
}

static int sroce_dereg_mr(struct verbs_mr *vmr)
{
	struct sroce_mr *mr = container_of(vmr, struct sroce_mr, vmr);
	int ret;

	ret = ibv_cmd_dereg_mr(vmr);
	if (ret)
		return ret;
	sroce_mr_untrack(to_sctx(vmr->ibv_mr.context), mr);
	free(mr);
	return 0;
}

/* ------------------------------------------------------------------ */
/* MW                                                                  */
/* ------------------------------------------------------------------ */

/*
 * ibv_alloc_mw: type 1 or type 2 (2B); any other type is EINVAL, as the
 * kernel answers too.
 */
static struct ibv_mw *sroce_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct ib_uverbs_alloc_mw_resp resp = {};
	struct ibv_alloc_mw cmd = {};
	struct ibv_mw *mw;
	int ret;

	if (type != IBV_MW_TYPE_1 && type != IBV_MW_TYPE_2) {
		errno = EINVAL;
		return NULL;
	}
	mw = calloc(1, sizeof(*mw));
	if (!mw)
		return NULL;
	ret = ibv_cmd_alloc_mw(pd, type, mw, &cmd, sizeof(cmd), &resp,
			       sizeof(resp));
	if (ret) {
		free(mw);
		errno = ret;
		return NULL;
	}
	return mw;
}

static int sroce_dealloc_mw(struct ibv_mw *mw)
{
	int ret;

	ret = ibv_cmd_dealloc_mw(mw);
	if (ret)
		return ret;
	free(mw);
	return 0;
}

/*
 * ibv_bind_mw (type 1; libibverbs checked the type, the MR's PD and a
 * missing MR): posts IBV_WR_BIND_MW with the next rkey and, once posted,
 * stores it in @mw->rkey (ibv_bind_mw(3)).  A zero-length bind unbinds
 * the window.  Returns 0 or the errno of ibv_post_send().
 */
static int sroce_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
			 struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr = {
		.wr_id = mw_bind->wr_id,
		.opcode = IBV_WR_BIND_MW,
		.send_flags = mw_bind->send_flags,
		.bind_mw = {
			.mw = mw,
			.rkey = ibv_inc_rkey(mw->rkey),
			.bind_info = mw_bind->bind_info,
		},
	};
	struct ibv_send_wr *bad;
	int ret;

	ret = sroce_post_send(qp, &wr, &bad);
	if (ret)
		return ret;
	mw->rkey = wr.bind_mw.rkey;
	return 0;
}

/* ------------------------------------------------------------------ */
/* AH                                                                  */
/* ------------------------------------------------------------------ */

static struct ibv_ah *sroce_create_ah(struct ibv_pd *pd,
				      struct ibv_ah_attr *attr)
{
	struct sroce_create_ah_resp_buf resp = {};
	struct sroce_ah *ah;
	int ret;

	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;

	ret = ibv_cmd_create_ah(pd, &ah->ibv_ah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (ret) {
		free(ah);
		errno = ret;
		return NULL;
	}
	ah->ah_num = resp.drv.ah_num;
	return &ah->ibv_ah;
}

static int sroce_destroy_ah(struct ibv_ah *ibah)
{
	int ret;

	ret = ibv_cmd_destroy_ah(ibah);
	if (ret)
		return ret;
	free(to_sah(ibah));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Context operations (alphabetical)                                   */
/* ------------------------------------------------------------------ */

static void sroce_free_context(struct ibv_context *ibctx);

static const struct verbs_context_ops sroce_ctx_ops = {
	.alloc_parent_domain = sroce_alloc_parent_domain,
	.alloc_mw = sroce_alloc_mw,
	.alloc_pd = sroce_alloc_pd,
	.bind_mw = sroce_bind_mw,
	.attach_mcast = ibv_cmd_attach_mcast,
	.close_xrcd = sroce_close_xrcd,
	.create_ah = sroce_create_ah,
	.create_cq = sroce_create_cq,
	.create_cq_ex = sroce_create_cq_ex,
	.create_qp = sroce_create_qp,
	.create_qp_ex = sroce_create_qp_ex,
	.create_srq = sroce_create_srq,
	.create_srq_ex = sroce_create_srq_ex,
	.dealloc_mw = sroce_dealloc_mw,
	.dealloc_pd = sroce_dealloc_pd,
	.dereg_mr = sroce_dereg_mr,
	.destroy_ah = sroce_destroy_ah,
	.destroy_cq = sroce_destroy_cq,
	.destroy_qp = sroce_destroy_qp,
	.destroy_srq = sroce_destroy_srq,
	.detach_mcast = ibv_cmd_detach_mcast,
	.free_context = sroce_free_context,
	.get_srq_num = sroce_get_srq_num,
	.modify_qp = sroce_modify_qp,
	.modify_srq = sroce_modify_srq,
	.open_qp = sroce_open_qp,
	.open_xrcd = sroce_open_xrcd,
	.poll_cq = sroce_poll_cq,
	.post_recv = sroce_post_recv,
	.post_send = sroce_post_send,
	.post_srq_recv = sroce_post_srq_recv,
	.query_device_ex = sroce_query_device_ex,
	.query_port = sroce_query_port,
	.query_qp = sroce_query_qp,
	.query_srq = sroce_query_srq,
	.reg_mr = sroce_reg_mr,
	.req_notify_cq = ibv_cmd_req_notify_cq,
	.rereg_mr = sroce_rereg_mr,
	.resize_cq = sroce_resize_cq,
};

/* ------------------------------------------------------------------ */
/* Context and device                                                  */
/* ------------------------------------------------------------------ */

/* Refuses a kernel whose ring formats differ from the ones compiled in. */
static bool sroce_abi_matches(struct ibv_device *ibdev,
			      const struct sroce_alloc_ucontext_resp *r)
{
	if (r->abi_version == SROCE_ABI_VERSION &&
	    r->max_sge == SROCE_MAX_SGE && r->max_inline == SROCE_MAX_INLINE &&
	    r->send_wqe_size == sizeof(struct sroce_send_wqe) &&
	    r->recv_wqe_size == sizeof(struct sroce_recv_wqe) &&
	    r->cqe_size == sizeof(struct sroce_cqe))
		return true;

	fprintf(stderr,
		"libsroce: %s: kernel ABI mismatch: kernel abi %u sge %u inline %u send/recv WQE %u/%u CQE %u bytes, provider abi %u sge %u inline %u send/recv WQE %zu/%zu CQE %zu bytes; install a matching sroce.ko and libsroce-rdmav34.so\n",
		ibdev->name, r->abi_version, r->max_sge, r->max_inline,
		r->send_wqe_size, r->recv_wqe_size, r->cqe_size,
		SROCE_ABI_VERSION, SROCE_MAX_SGE, SROCE_MAX_INLINE,
		sizeof(struct sroce_send_wqe), sizeof(struct sroce_recv_wqe),
		sizeof(struct sroce_cqe));
	return false;
}

static struct verbs_context *sroce_alloc_context(struct ibv_device *ibdev,
						 int cmd_fd,
						 void *private_data)
{
	struct sroce_get_context_resp resp = {};
	struct ibv_get_context cmd = {};
	struct sroce_context *ctx;
	int ret;

	(void)private_data;
	ctx = _verbs_init_and_alloc_context(ibdev, cmd_fd, sizeof(*ctx),
		(struct verbs_context *)offsetof(struct sroce_context, vctx),
		0 /* RDMA_DRIVER_UNKNOWN: must equal the kernel's driver_id */);
	if (!ctx)
		return NULL;
	ret = pthread_rwlock_init(&ctx->mr_lock, NULL);
	if (ret) {
		verbs_uninit_context(&ctx->vctx);
		free(ctx);
		errno = ret;
		return NULL;
	}

	ret = ibv_cmd_get_context(&ctx->vctx, &cmd, sizeof(cmd),
				  &resp.ibv_resp, sizeof(resp));
	if (ret) {
		sroce_err(&ctx->vctx.context, "get_context failed: %s\n",
			  strerror(ret));
		goto err;
	}
	if (!sroce_abi_matches(ibdev, &resp.drv)) {
		ret = EINVAL;
		goto err;
	}
	verbs_set_ops(&ctx->vctx, &sroce_ctx_ops);
	return &ctx->vctx;

err:
	verbs_uninit_context(&ctx->vctx);	/* closes cmd_fd */
	pthread_rwlock_destroy(&ctx->mr_lock);
	free(ctx);
	errno = ret;
	return NULL;
}

static void sroce_free_context(struct ibv_context *ibctx)
{
	struct sroce_context *ctx = to_sctx(ibctx);

	verbs_uninit_context(&ctx->vctx);
	pthread_rwlock_destroy(&ctx->mr_lock);
	free(ctx);
}

static struct verbs_device *sroce_alloc_device(struct verbs_sysfs_dev *sysfs)
{
	struct sroce_device *dev;

	(void)sysfs;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;
	return &dev->vdev;
}

static void sroce_uninit_device(struct verbs_device *vdev)
{
	free(container_of(vdev, struct sroce_device, vdev));
}

/* ------------------------------------------------------------------ */
/* Matching and registration                                           */
/* ------------------------------------------------------------------ */

/*
 * A device is ours when its hca_type sysfs attribute says so (sroce-abi.h):
 * the kernel registers sroce with driver_id RDMA_DRIVER_UNKNOWN and the user
 * picks the device name (`rdma link add NAME type sroce ...`), so neither
 * identifies it.  The attribute is read only and sroce's own; libibverbs
 * calls us only for devices that no driver-id match took (rxe and every
 * other in-tree driver have their own id), so no other device is touched.
 */
static bool sroce_match_device(struct verbs_sysfs_dev *sysfs)
{
	static const char want[] = SROCE_HCA_TYPE "\n";
	char path[IBV_SYSFS_PATH_MAX + sizeof("/hca_type")];
	char buf[sizeof(want) + 1];
	ssize_t n;
	int fd;

	if (snprintf(path, sizeof(path), "%s/hca_type",
		     sysfs->ibdev_path) >= (int)sizeof(path))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n == (ssize_t)sizeof(want) - 1 && !memcmp(buf, want, n);
}

static const struct verbs_device_ops sroce_dev_ops = {
	.name = SROCE_PROVIDER_NAME,
	.match_min_abi_version = SROCE_ABI_VERSION,
	.match_max_abi_version = SROCE_ABI_VERSION,
	.match_device = sroce_match_device,
	.alloc_device = sroce_alloc_device,
	.uninit_device = sroce_uninit_device,
	.alloc_context = sroce_alloc_context,
};

static __attribute__((constructor)) void sroce_register_driver(void)
{
	verbs_register_driver_34(&sroce_dev_ops);
}
