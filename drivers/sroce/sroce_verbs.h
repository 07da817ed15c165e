/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interfaces between the verbs files: sroce_main.c (device,
 * ops table), sroce_verbs.c, sroce_verbs_qp.c, sroce_verbs_cq.c,
 * sroce_verbs_wr.c and sroce_verbs_mr.c (entry points), sroce_qp.c (QP
 * internals), sroce_srq.c (SRQ internals),
 * sroce_mr.c (MR internals), sroce_queue.c (rings) and sroce_counters.c.
 * The data path and the wire code use the object headers only.
 */
#ifndef SROCE_VERBS_H
#define SROCE_VERBS_H

#include "sroce.h"
#include "sroce_compat.h"
#include "sroce_mr.h"
#include "sroce_qp.h"

/* Port 1 tables: GIDs are filled by the core from the netdev's addresses. */
#define SROCE_GID_TBL_LEN	1024
#define SROCE_PKEY_TBL_LEN	1
#define SROCE_PORT_NUM		1
#define SROCE_LOCAL_CA_ACK_DELAY 15

/*
 * Bytes of a full-MTU packet that are not payload: IPv6 (40) + UDP (8) +
 * BTH (12) + RETH (16) + ImmDt (4) + ICRC (4).  The Ethernet header is not
 * part of the netdev MTU.  1500 gives IB_MTU_1024, 9000 gives IB_MTU_4096.
 */
#define SROCE_MAX_PKT_OVERHEAD	(40 + 8 + 12 + 16 + 4 + SROCE_ICRC_SIZE)

/**
 * struct sroce_ucontext - a user context (one per opened uverbs device)
 * @ibuc: core context; must stay first
 */
struct sroce_ucontext {
	struct ib_ucontext ibuc;
};

static inline struct sroce_ucontext *to_sroce_uctx(struct ib_ucontext *uc)
{
	return container_of(uc, struct sroce_ucontext, ibuc);
}

/* ---- sroce_main.c ---- */

enum ib_mtu sroce_mtu_from_netdev(unsigned int ndev_mtu);

/* ---- sroce_verbs.c: object limits ---- */

void sroce_res_init(struct sroce_dev *dev, const unsigned int *want);
int sroce_res_get(struct sroce_dev *dev, enum sroce_res_type type);
void sroce_res_put(struct sroce_dev *dev, enum sroce_res_type type);

/* ---- sroce_verbs.c: driver data of user verbs ---- */

int sroce_udata_in_ok(struct ib_udata *udata);
int sroce_udata_ok(struct ib_udata *udata, size_t resp_len);
struct ib_ucontext *sroce_udata_uctx(struct ib_udata *udata);

/* ---- sroce_verbs.c: ib_device_ops entry points ---- */

int sroce_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		       struct ib_udata *uhw);
int sroce_query_port(struct ib_device *ibdev, u32 port_num,
		     struct ib_port_attr *attr);
int sroce_get_port_immutable(struct ib_device *ibdev, u32 port_num,
			     struct ib_port_immutable *immutable);
enum rdma_link_layer sroce_get_link_layer(struct ib_device *ibdev,
					  u32 port_num);
int sroce_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
		     u16 *pkey);
int sroce_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata);
void sroce_dealloc_ucontext(struct ib_ucontext *ibuc);
void sroce_disassociate_ucontext(struct ib_ucontext *ibuc);
int sroce_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma);
void sroce_mmap_free(struct rdma_user_mmap_entry *entry);
int sroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int sroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

/**
 * struct sroce_xrcd - XRC domain (IBTA vol. 1 annex A14): groups the XRC
 *	SRQs and TGT QPs that may deliver to each other; all it needs is
 *	its identity (the core keeps its TGT QPs and sharing)
 * @ibxrcd: core XRC domain
 */
struct sroce_xrcd {
	struct ib_xrcd ibxrcd;
};

int sroce_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata);
int sroce_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata);
int sroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		    struct ib_udata *udata);
int sroce_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr);
int sroce_destroy_ah(struct ib_ah *ibah, u32 flags);
int sroce_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);
int sroce_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq);

/* ---- sroce_verbs_qp.c: ib_device_ops entry points ---- */

int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata);
int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata);
int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init);
int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int sroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata);
int sroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata);
int sroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int sroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);

/* ---- sroce_verbs_cq.c: ib_device_ops entry points ---- */

int sroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct sroce_create_cq_uarg *uarg);
int sroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int sroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int sroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int sroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);

/* ---- sroce_verbs_wr.c: ib_device_ops entry points ---- */

int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);
int sroce_post_send_wrs(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			const struct ib_send_wr **bad_wr);
int sroce_post_recv_wrs(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr);
int sroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr);

/* ---- sroce_verbs_mr.c: ib_device_ops entry points ---- */

struct ib_mr *sroce_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *sroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata);
struct ib_mr *sroce_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				  u64 length, u64 iova, int access,
				  struct ib_pd *ibpd, struct ib_udata *udata);
int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct ib_mr *sroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type mr_type,
			     u32 max_num_sg);
int sroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset);

/* ---- sroce_qp.c ---- */

int sroce_qp_init(struct sroce_dev *dev, struct sroce_qp *qp,
		  struct ib_qp_init_attr *init, struct ib_ucontext *uctx,
		  struct sroce_create_qp_resp *resp);
void sroce_qp_publish(struct sroce_qp *qp);
int sroce_qp_modify(struct sroce_qp *qp, struct ib_qp_attr *attr, int mask);
void sroce_qp_query(struct sroce_qp *qp, struct ib_qp_attr *attr,
		    struct ib_qp_init_attr *init);
void sroce_qp_destroy(struct sroce_qp *qp);

/* ---- sroce_mr.c ---- */

int sroce_mr_init_dma(struct sroce_dev *dev, struct sroce_mr *mr,
		      struct sroce_pd *pd, int access);
int sroce_mr_init_user(struct sroce_dev *dev, struct sroce_mr *mr,
		       struct sroce_pd *pd, u64 start, u64 length, u64 iova,
		       int access);
void sroce_mr_destroy(struct sroce_mr *mr);

#endif /* SROCE_VERBS_H */
