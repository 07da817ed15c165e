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
 * legacy POST_SEND command, so the kernel schedules the QP's requester.
 *
 * Ring protocol (both sides): free-running 32-bit indices; each side writes
 * only its own index, with a release store after the slot contents, and
 * reads the other side's index with an acquire load before touching slots.
 * The provider re-reads its own index from the ring on every call instead of
 * caching it, so a kernel that resets a ring (QP to RESET) stays in step.
 *
 * The extended verbs (ibv_create_cq_ex, ibv_create_qp_ex and the ibv_wr_*
 * API) are in sroce_ex.c, built on this file's CQ, QP and send queue code
 * (sroce.h).
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
 * Layout: query, PD, XRC domain, MR, CQ, QP, SRQ, AH, post, poll, ops
 * table, context and device allocation, matching, registration.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/sroce-abi.h>

#include "sroce.h"
#include "verbs_private.h"

#define SROCE_PROVIDER_NAME	"sroce"

/* XRC SRQ numbers are 24 bits on the wire (XRCETH, IBTA annex A14). */
#define SROCE_XRC_SRQN_MAX	0xffffffU

/* Upper bound on slots of one ring; the kernel's limits are far lower. */
#define SROCE_MAX_RING_SLOTS	(1U << 24)

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

struct sroce_context {
	struct verbs_context vctx;
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

/* Driver data after the core responses: the kernel sees it as udata. */
struct sroce_get_context_resp {
	struct ib_uverbs_get_context_resp ibv_resp;
	struct sroce_alloc_ucontext_resp drv;
};

struct sroce_create_cq_resp_buf {
	struct ib_uverbs_create_cq_resp ibv_resp;
	struct sroce_create_cq_resp drv;
};

struct sroce_resize_cq_resp_buf {
	struct ib_uverbs_resize_cq_resp ibv_resp;
	struct sroce_resize_cq_resp drv;
};

struct sroce_create_qp_resp_buf {
	struct ib_uverbs_create_qp_resp ibv_resp;
	struct sroce_create_qp_resp drv;
};

struct sroce_create_srq_resp_buf {
	struct ib_uverbs_create_srq_resp ibv_resp;
	struct sroce_create_srq_resp drv;
};

struct sroce_create_ah_resp_buf {
	struct ib_uverbs_create_ah_resp ibv_resp;
	struct sroce_create_ah_resp drv;
};

static_assert(offsetof(struct sroce_get_context_resp, drv) ==
	      sizeof(struct ib_uverbs_get_context_resp), "no padding");
static_assert(offsetof(struct sroce_create_cq_resp_buf, drv) ==
	      sizeof(struct ib_uverbs_create_cq_resp), "no padding");
static_assert(offsetof(struct sroce_resize_cq_resp_buf, drv) ==
	      sizeof(struct ib_uverbs_resize_cq_resp), "no padding");
static_assert(offsetof(struct sroce_create_qp_resp_buf, drv) ==
	      sizeof(struct ib_uverbs_create_qp_resp), "no padding");
static_assert(offsetof(struct sroce_create_srq_resp_buf, drv) ==
	      sizeof(struct ib_uverbs_create_srq_resp), "no padding");
static_assert(offsetof(struct sroce_create_ah_resp_buf, drv) ==
	      sizeof(struct ib_uverbs_create_ah_resp), "no padding");

static inline struct sroce_context *to_sctx(struct ibv_context *ibctx)
{
	return container_of(ibctx, struct sroce_context, vctx.context);
}

static inline struct sroce_ah *to_sah(struct ibv_ah *ibah)
{
	return container_of(ibah, struct sroce_ah, ibv_ah);
}

#define sroce_err(ibctx, fmt, ...)					\
	__verbs_log(verbs_get_ctx(ibctx), VERBS_LOG_ERR,		\
		    "%s: %s:%d: " fmt, (ibctx)->device->name, __func__,	\
		    __LINE__, ##__VA_ARGS__)

/* ------------------------------------------------------------------ */
/* Rings                                                               */
/* ------------------------------------------------------------------ */

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
 * Maps the ring the kernel described in @mi.  Returns the mapping with
 * *@err 0, or NULL with *@err set to an errno value: EINVAL when @mi is
 * inconsistent with our ABI, mmap()'s errno otherwise.
 */
static void *sroce_ring_mmap(struct ibv_context *ibctx,
			     const struct sroce_mmap_info *mi,
			     uint32_t slot_size, int *err)
{
	uint64_t need;
	void *buf;

	*err = EINVAL;
	if (!mi->num_slots || mi->num_slots > SROCE_MAX_RING_SLOTS ||
	    (mi->num_slots & (mi->num_slots - 1))) {
		sroce_err(ibctx, "bad ring: %u slots\n", mi->num_slots);
		return NULL;
	}
	need = SROCE_QUEUE_HDR_SIZE + (uint64_t)mi->num_slots * slot_size;
	if (mi->size < need) {
		sroce_err(ibctx, "bad ring: %u bytes for %u slots of %u\n",
			  mi->size, mi->num_slots, slot_size);
		return NULL;
	}
	*err = 0;

	buf = mmap(NULL, mi->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   ibctx->cmd_fd, (off_t)mi->offset);
	if (buf == MAP_FAILED) {
		*err = errno;
		return NULL;
	}
	return buf;
}

/* Points @ring at the mapping @buf of the ring @mi describes. */
static void sroce_ring_set(struct sroce_ring *ring, void *buf,
			   const struct sroce_mmap_info *mi,
			   uint32_t slot_size, uint32_t max_wr)
{
	ring->hdr = buf;
	ring->slots = (uint8_t *)buf + SROCE_QUEUE_HDR_SIZE;
	ring->map_size = mi->size;
	ring->num = mi->num_slots;
	ring->slot_size = slot_size;
	ring->limit = max_wr < mi->num_slots ? max_wr : mi->num_slots;
}

/* Maps a new ring; returns 0 or an errno value (sroce_ring_mmap()). */
static int sroce_ring_map(struct ibv_context *ibctx, struct sroce_ring *ring,
			  const struct sroce_mmap_info *mi, uint32_t slot_size,
			  uint32_t max_wr)
{
	void *buf;
	int err;

	buf = sroce_ring_mmap(ibctx, mi, slot_size, &err);
	if (!buf)
		return err;
	sroce_ring_set(ring, buf, mi, slot_size, max_wr);
	pthread_spin_init(&ring->lock, PTHREAD_PROCESS_PRIVATE);
	return 0;
}

static void sroce_ring_unmap(struct sroce_ring *ring)
{
	if (!ring->hdr)
		return;
	munmap(ring->hdr, ring->map_size);
	pthread_spin_destroy(&ring->lock);
	ring->hdr = NULL;
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

static struct ibv_mr *sroce_reg_mr(struct ibv_pd *pd, void *addr,
				   size_t length, uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp = {};
	struct ibv_reg_mr cmd = {};
	struct verbs_mr *vmr;
	int ret;

	vmr = calloc(1, sizeof(*vmr));
	if (!vmr)
		return NULL;

	ret = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(vmr);
		errno = ret;
		return NULL;
	}
	return &vmr->ibv_mr;
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

	ret = ibv_cmd_rereg_mr(vmr, (uint32_t)flags, addr, length,
			       (uintptr_t)addr, access, pd, &cmd, sizeof(cmd),
			       &resp, sizeof(resp));
	if (ret)
		errno = ret;
	return ret;
}

static int sroce_dereg_mr(struct verbs_mr *vmr)
{
	int ret;

	ret = ibv_cmd_dereg_mr(vmr);
	if (ret)
		return ret;
	free(vmr);
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

static int sroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
			   struct ibv_send_wr **bad_wr);

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
/* CQ                                                                  */
/* ------------------------------------------------------------------ */

struct ibv_cq *sroce_create_cq(struct ibv_context *ibctx, int cqe,
			       struct ibv_comp_channel *channel, int comp_vector)
{
	struct sroce_create_cq_resp_buf resp = {};
	struct ibv_create_cq cmd = {};
	struct sroce_cq *cq;
	int ret;

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;

	ret = ibv_cmd_create_cq(ibctx, cqe, channel, comp_vector, &cq->vcq.cq,
				&cmd, sizeof(cmd), &resp.ibv_resp,
				sizeof(resp));
	if (ret)
		goto err_free;

	ret = sroce_ring_map(ibctx, &cq->ring, &resp.drv.mi,
			     sizeof(struct sroce_cqe), resp.drv.mi.num_slots);
	if (ret)
		goto err_destroy;
	return &cq->vcq.cq;

err_destroy:
	ibv_cmd_destroy_cq(&cq->vcq.cq);
err_free:
	free(cq);
	errno = ret;
	return NULL;
}

static int sroce_destroy_cq(struct ibv_cq *ibcq)
{
	struct sroce_cq *cq = to_scq(ibcq);
	int ret;

	ret = ibv_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;
	sroce_ring_unmap(&cq->ring);
	free(cq);
	return 0;
}

/*
 * ibv_resize_cq: the kernel moves the CQEs not yet polled into a new ring
 * at the same indices (sroce-abi.h, struct sroce_resize_cq_resp); we map
 * it in place of the old ring, under the ring lock, so no poll_cq sees the
 * CQ in between.  Should the new mapping fail, the old ring, which the
 * kernel marked dead, stays: poll_cq reports EIO from then on.
 * Returns 0 or an errno value: EINVAL when @cqe is out of range or smaller
 * than the CQEs pending, ENOMEM.
 */
static int sroce_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct sroce_resize_cq_resp_buf resp = {};
	struct sroce_ring *ring = &to_scq(ibcq)->ring;
	struct ibv_resize_cq cmd = {};
	void *buf;
	int ret;

	pthread_spin_lock(&ring->lock);
	ret = ibv_cmd_resize_cq(ibcq, cqe, &cmd, sizeof(cmd), &resp.ibv_resp,
				sizeof(resp));
	if (ret)
		goto out;
	buf = sroce_ring_mmap(ibcq->context, &resp.drv.mi,
			      sizeof(struct sroce_cqe), &ret);
	if (!buf) {
		sroce_err(ibcq->context, "cannot map the resized CQ: %s\n",
			  strerror(ret));
		goto out;
	}
	munmap(ring->hdr, ring->map_size);
	sroce_ring_set(ring, buf, &resp.drv.mi, sizeof(struct sroce_cqe),
		       resp.drv.mi.num_slots);
out:
	pthread_spin_unlock(&ring->lock);
	return ret;
}

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

static struct ibv_qp *sroce_create_qp(struct ibv_pd *pd,
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
static struct ibv_qp *sroce_open_qp(struct ibv_context *ibctx,
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

static int sroce_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
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

static int sroce_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr,
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

static int sroce_destroy_qp(struct ibv_qp *ibqp)
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

static inline struct sroce_srq *to_ssrq(struct ibv_srq *ibsrq)
{
	return container_of(ibsrq, struct sroce_srq, vsrq.srq);
}

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
static struct ibv_srq *sroce_create_srq_ex(struct ibv_context *ibctx,
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
static struct ibv_srq *sroce_create_srq(struct ibv_pd *pd,
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
static int sroce_get_srq_num(struct ibv_srq *ibsrq, uint32_t *srq_num)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);

	if (srq->vsrq.srq_type != IBV_SRQT_XRC)
		return EINVAL;
	*srq_num = srq->vsrq.srq_num;
	return 0;
}

static int sroce_modify_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr,
			    int attr_mask)
{
	struct ibv_modify_srq cmd = {};

	return ibv_cmd_modify_srq(ibsrq, attr, attr_mask, &cmd, sizeof(cmd));
}

static int sroce_query_srq(struct ibv_srq *ibsrq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd = {};

	return ibv_cmd_query_srq(ibsrq, attr, &cmd, sizeof(cmd));
}

/* EBUSY from the kernel while a QP is still attached. */
static int sroce_destroy_srq(struct ibv_srq *ibsrq)
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
				   uint32_t *inline_len)
{
	uint64_t len = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++)
		len += wr->sg_list[i].length;
	if (len != SROCE_ATOMIC_WRITE_LEN)
		return EINVAL;
	*inline_len = SROCE_ATOMIC_WRITE_LEN;
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
 * Checks one send WR against the QP before anything is written.  Returns 0
 * or EINVAL.  *@inline_len gets the inline payload length.  @flush: the
 * arguments of a FLUSH, NULL from ibv_post_send().
 */
static int sroce_check_send_wr(const struct sroce_qp *qp,
			       const struct ibv_send_wr *wr,
			       const struct sroce_flush_args *flush,
			       uint32_t *inline_len)
{
	uint64_t len = 0;
	int i;

	if ((unsigned int)wr->opcode >= 32 ||
	    !(sroce_qp_opcodes(qp->vqp.qp.qp_type) &
	      SROCE_WR_OP_BIT(wr->opcode)))
		return EINVAL;
	if (wr->send_flags & ~SROCE_WR_SEND_FLAGS)
		return EINVAL;
	*inline_len = 0;
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
		return sroce_check_inline_only(wr, inline_len);
	if (!(wr->send_flags & IBV_SEND_INLINE))
		return 0;
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
	*inline_len = (uint32_t)len;
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
				  uint32_t inline_len)
{
	uint32_t off = 0;
	int i;

	wqe->num_sge = 0;
	wqe->inline_len = 0;
	if (SROCE_WR_OPS_MEM & SROCE_WR_OP_BIT(wr->opcode))
		return;
	if ((wr->send_flags & IBV_SEND_INLINE) || sroce_wr_inline_only(wr)) {
		/* The caller may reuse its buffers as soon as we return. */
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(wqe->inline_data + off,
			       (const void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			off += wr->sg_list[i].length;
		}
		wqe->inline_len = inline_len;
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
				 uint32_t inline_len)
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

	if (sroce_wr_inline_only(wr))
		wqe->send_flags |= IBV_SEND_INLINE;
	sroce_build_send_data(wqe, wr, inline_len);
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
 * The kernel put the ring in error (a hostile index or slot, a CQ overrun,
 * or the queue destroyed under a live mapping): posts and polls fail with
 * EIO from then on.
 */
static bool sroce_ring_dead(struct sroce_ring *ring)
{
	return sroce_load_acquire(&ring->hdr->flags) & SROCE_QUEUE_F_ERROR;
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
	uint32_t inline_len;
	int ret;

	ret = sroce_check_send_wr(qp, wr, flush, &inline_len);
	if (ret)
		return ret;
	if (!sroce_wq_has_room(&qp->sq, *prod, cons))
		return ENOMEM;
	sroce_build_send_wqe(sroce_ring_slot(&qp->sq, *prod), qp, wr, flush,
			     inline_len);
	(*prod)++;
	return 0;
}

/*
 * Publishes the WQEs in slots [@start, @prod), drops the SQ lock and, if
 * there were any, rings the doorbell.  Returns 0 or the doorbell's errno.
 */
int sroce_sq_unlock_post(struct sroce_qp *qp, uint32_t start, uint32_t prod)
{
	if (prod != start)
		sroce_store_release(&qp->sq.hdr->producer, prod);
	pthread_spin_unlock(&qp->sq.lock);

	if (prod == start)
		return 0;
	return sroce_ring_doorbell(&qp->vqp.qp);
}

static int sroce_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
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

static int sroce_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
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
static int sroce_post_srq_recv(struct ibv_srq *ibsrq, struct ibv_recv_wr *wr,
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

/* ------------------------------------------------------------------ */
/* Poll                                                                */
/* ------------------------------------------------------------------ */

#define SROCE_WC_FLAGS	(SROCE_WC_F_GRH | SROCE_WC_F_WITH_IMM | \
			 SROCE_WC_F_WITH_INV)

/* ibv_wc.sl: a UD receive's (it has a GRH) is its packet type, sroce-abi.h. */
static uint8_t sroce_wc_sl(const struct sroce_cqe *cqe)
{
	if (!(cqe->wc_flags & SROCE_WC_F_GRH))
		return cqe->sl;
	switch (cqe->network_hdr_type) {
	case SROCE_NETWORK_IPV4:
		return SROCE_WC_SL_ROCEV2 | SROCE_WC_SL_L3_IPV4;
	case SROCE_NETWORK_IPV6:
		return SROCE_WC_SL_ROCEV2 | SROCE_WC_SL_L3_IPV6;
	default:
		return cqe->sl;
	}
}

static void sroce_cqe_to_wc(struct ibv_wc *wc, const struct sroce_cqe *cqe)
{
	wc->wr_id = cqe->wr_id;
	wc->status = (enum ibv_wc_status)cqe->status;
	wc->opcode = (enum ibv_wc_opcode)cqe->opcode;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = cqe->byte_len;
	wc->imm_data = cqe->ex.imm_data;	/* or the invalidated rkey */
	wc->qp_num = cqe->qp_num;
	wc->src_qp = cqe->src_qp;
	wc->wc_flags = cqe->wc_flags & SROCE_WC_FLAGS;
	wc->pkey_index = cqe->pkey_index;
	wc->slid = cqe->slid;
	wc->sl = sroce_wc_sl(cqe);
	wc->dlid_path_bits = cqe->dlid_path_bits;
}

int sroce_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct sroce_ring *ring = &to_scq(ibcq)->ring;
	struct sroce_cqe cqe;
	uint32_t prod, cons, avail;
	int n;

	if (ne <= 0)
		return 0;

	pthread_spin_lock(&ring->lock);
	if (sroce_ring_dead(ring)) {
		pthread_spin_unlock(&ring->lock);
		errno = EIO;
		return -1;
	}
	cons = sroce_load_own(&ring->hdr->consumer);
	prod = sroce_load_acquire(&ring->hdr->producer);
	avail = prod - cons;
	if (avail > ring->num) {
		/* Kernel and provider disagree on the ring: report, not crash. */
		pthread_spin_unlock(&ring->lock);
		sroce_err(ibcq->context, "CQ ring corrupt (%u CQEs pending)\n",
			  avail);
		return -1;
	}
	for (n = 0; n < ne && (uint32_t)n < avail; n++) {
		memcpy(&cqe, sroce_ring_slot(ring, cons + n), sizeof(cqe));
		sroce_cqe_to_wc(&wc[n], &cqe);
	}
	if (n)
		sroce_store_release(&ring->hdr->consumer, cons + n);
	pthread_spin_unlock(&ring->lock);
	return n;
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
	free(ctx);
	errno = ret;
	return NULL;
}

static void sroce_free_context(struct ibv_context *ibctx)
{
	struct sroce_context *ctx = to_sctx(ibctx);

	verbs_uninit_context(&ctx->vctx);
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
