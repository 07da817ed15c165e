/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_qp.h - queue pairs: the object, its references and state (sroce_qp.c)
 */
#ifndef SROCE_QP_H
#define SROCE_QP_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/dst_cache.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "sroce_av.h"
#include "sroce_queue.h"
#include "sroce_dp.h"
#include "sroce_cc.h"

/* ------------------------------------------------------------------ */
/* QP                                                                  */
/* ------------------------------------------------------------------ */

/**
 * struct sroce_qp - queue pair
 * @ibqp: core QP; must stay first among core-visible members
 * @dev: device
 * @pd: protection domain
 * @scq: send CQ
 * @rcq: receive CQ
 * @type: IB_QPT_RC, IB_QPT_UC, IB_QPT_UD or IB_QPT_GSI
 * @is_user: rings mapped by a user context
 * @sq: send ring (struct sroce_send_wqe slots)
 * @rq: receive ring (struct sroce_recv_wqe slots)
 * @sq_lock: serializes kernel post_send producers
 * @rq_lock: serializes kernel post_recv producers
 * @state_lock: protects @attr and @state; taken by modify/query and by the
 *	data path when it moves the QP to SQE/ERR
 * @state: current IBTA state (IB_QPS_*)
 * @attr: attributes as last modified (pkey_index, qkey, psns, timeout,
 *	retry counts, path MTU, rd_atomic limits, ah_attr ...)
 * @av: primary path, built from @attr.ah_attr at RTR
 * @mtu: path MTU in bytes
 * @sq_sig_all: every send WQE generates a CQE
 * @ref: references: the xarray entry's base reference, work, timers, skbs
 * @done: completed when @ref drops to zero; destroy waits on it
 * @work: the QP's single data path work item (it runs the responder and
 *	the send side, each serialized on its own: sroce_dp.c)
 * @rx_queue: received responses waiting for the send side (requests
 *	wait in dp.resp_rx)
 * @dp: data path state (sroce_dp.h)
 * @cc: congestion control state: DCQCN rate, CNP interval (sroce_cc.h)
 * @dst_cache: RC/UC: route of @av, per CPU (sroce_net.c); reset when
 *	modify_qp changes the path
 * @dst_tos: the TOS @dst_cache was looked up with
 */
struct sroce_qp {
	struct ib_qp ibqp;
	struct sroce_dev *dev;
	struct sroce_pd *pd;
	struct sroce_cq *scq;
	struct sroce_cq *rcq;
	enum ib_qp_type type;
	bool is_user;
	bool sq_sig_all;
	struct sroce_queue sq;
	struct sroce_queue rq;
	spinlock_t sq_lock;	/* kernel post_send producers */
	spinlock_t rq_lock;	/* kernel post_recv producers */
	spinlock_t state_lock;	/* @state and @attr */
	enum ib_qp_state state;
	struct ib_qp_attr attr;
	struct sroce_av av;
	u32 mtu;
	struct kref ref;
	struct completion done;
	struct work_struct work;
	struct sk_buff_head rx_queue;
	struct sroce_dp dp;
	struct sroce_cc_qp cc;
	struct dst_cache dst_cache;
	u8 dst_tos;
};

static inline struct sroce_qp *to_sroce_qp(struct ib_qp *qp)
{
	return container_of(qp, struct sroce_qp, ibqp);
}

static inline u32 sroce_qpn(const struct sroce_qp *qp)
{
	return qp->ibqp.qp_num;
}

void sroce_qp_release(struct kref *ref);

static inline void sroce_qp_get(struct sroce_qp *qp)
{
	kref_get(&qp->ref);
}

static inline void sroce_qp_put(struct sroce_qp *qp)
{
	kref_put(&qp->ref, sroce_qp_release);
}

struct sroce_qp *sroce_qp_lookup(struct sroce_dev *dev, u32 qpn);

/* Workqueue all QP work runs on (sroce_main.c). */
extern struct workqueue_struct *sroce_wq;

void sroce_qp_schedule(struct sroce_qp *qp);

void sroce_qp_error(struct sroce_qp *qp);

bool sroce_modify_qp_ok(enum ib_qp_state cur, enum ib_qp_state next,
			enum ib_qp_type type, enum ib_qp_attr_mask mask);

/* IBTA name of a QP state ("RESET", "INIT", ..., "ERR") for debug output. */
const char *sroce_qp_state_name(enum ib_qp_state state);

#endif /* SROCE_QP_H */
