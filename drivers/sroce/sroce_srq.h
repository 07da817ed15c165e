/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_srq.h - shared receive queues (sroce_srq.c)
 */
#ifndef SROCE_SRQ_H
#define SROCE_SRQ_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>
#include <uapi/rdma/sroce-abi.h>

#include "sroce_queue.h"

struct sroce_dev;

/**
 * struct sroce_srq - shared receive queue (IBTA vol. 1 10.2.9)
 * @ibsrq: core SRQ; must stay first among core-visible members
 * @dev: device
 * @rq: the ring of struct sroce_recv_wqe slots; @rq.kidx is the consumer
 *	index, advanced under @lock as soon as a QP takes a WQE
 * @lock: serializes the consumers (responders of the attached QPs, on any
 *	CPU), @limit and @broken
 * @prod_lock: serializes kernel post_srq_recv producers
 * @max_sge: scatter entries a WQE may carry (create attribute, at most
 *	SROCE_MAX_SGE)
 * @limit: armed SRQ limit, 0 when disarmed (IBTA 10.2.9.3)
 * @broken: the provider wrote a hostile producer index; IB_EVENT_SRQ_ERR
 *	was raised and no WQE is taken any more
 * @is_user: ring mapped by a user context
 * @srqn: XRC SRQs: the number XRC requests name it by (IBTA annex A14), its
 *	index in dev->srq_xa, also in ibsrq.ext.xrc.srq_num; 0 for a basic
 *	SRQ
 * @ref: XRC SRQs: the base reference and one per responder that uses the
 *	SRQ for a request (sroce_srq_lookup_xrc()); destroy waits for them
 * @done: completed when @ref drops to zero
 */
struct sroce_srq {
	struct ib_srq ibsrq;
	struct sroce_dev *dev;
	struct sroce_queue rq;
	spinlock_t lock;	/* consumers, @limit, @broken */
	spinlock_t prod_lock;	/* kernel post_srq_recv producers */
	u32 max_sge;
	u32 limit;
	bool broken;
	bool is_user;
	u32 srqn;
	struct kref ref;
	struct completion done;
};

static inline struct sroce_srq *to_sroce_srq(struct ib_srq *srq)
{
	return container_of(srq, struct sroce_srq, ibsrq);
}

bool sroce_srq_limit_hit(u32 *limit, u32 count);
int sroce_srq_check_init(const struct ib_srq_init_attr *init);
int sroce_srq_init(struct sroce_dev *dev, struct sroce_srq *srq,
		   struct ib_srq_init_attr *init, struct ib_ucontext *uctx,
		   struct sroce_create_srq_resp *resp);
int sroce_srq_modify(struct sroce_srq *srq, const struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask);
void sroce_srq_query(struct sroce_srq *srq, struct ib_srq_attr *attr);
void sroce_srq_publish(struct sroce_srq *srq);
void sroce_srq_destroy(struct sroce_srq *srq);
struct sroce_srq *sroce_srq_lookup_xrc(struct sroce_dev *dev, u32 srqn,
				       const struct ib_xrcd *xrcd);
void sroce_srq_put(struct sroce_srq *srq);
int sroce_srq_take(struct sroce_srq *srq, struct sroce_recv_wqe *wqe);

#endif /* SROCE_SRQ_H */
