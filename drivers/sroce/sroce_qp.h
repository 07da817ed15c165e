/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_qp.h - queue pairs: the object, its references and state (sroce_qp.c)
 */
#ifndef SROCE_QP_H
#define SROCE_QP_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/seqlock.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/dst_cache.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "sroce_av.h"
#include "sroce_queue.h"
#include "sroce_srq.h"
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
 * @type: IB_QPT_RC, IB_QPT_UC, IB_QPT_UD, IB_QPT_GSI, IB_QPT_XRC_INI (send
 *	only: no receive queue, no receive CQ) or IB_QPT_XRC_TGT (receive
 *	only: no rings, no CQ and no PD of its own; each request names the XRC
 *	SRQ of the QP's XRC domain that takes it, IBTA annex A14)
 * @is_user: rings mapped by a user context
 * @sq: send ring (struct sroce_send_wqe slots)
 * @rq: receive ring (struct sroce_recv_wqe slots); none (zeroed) when the
 *	QP takes its receive WQEs from @srq
 * @srq: shared receive queue the QP is attached to (IBTA 10.2.9), or
 *	NULL; the core holds it (usecnt) as long as the QP exists
 * @last_wqe: IB_EVENT_QP_LAST_WQE_REACHED was raised since the QP last
 *	entered the error state (sroce_qp_last_wqe_reached()); cleared when
 *	it leaves ERR for RESET, under @state_lock
 * @sq_lock: serializes kernel post_send producers
 * @rq_lock: serializes kernel post_recv producers
 * @state_lock: protects @attr and @state; taken by modify/query and by the
 *	data path when it moves the QP to SQE/ERR
 * @state: current IBTA state (IB_QPS_*), the only copy of it: written
 *	under @state_lock by sroce_qp_set_state() (WRITE_ONCE(); it also
 *	publishes SROCE_QP_F_FLUSH to the provider), read under it or with
 *	READ_ONCE().
 *	What a state allows is sroce_qp_state_can(), nowhere else; the data
 *	path engines take a snapshot of those capabilities per run
 *	(&struct sroce_send, &struct sroce_resp_attr)
 * @attr: attributes as last modified (pkey_index, qkey, psns, timeout,
 *	retry counts, path MTU, rd_atomic limits, ah_attr ...); its qp_state
 *	is not kept (query_qp fills it in from @state)
 * @av: primary path, built from @attr.ah_attr at RTR; written under
 *	@state_lock inside @av_seq
 * @av_seq: lets the receive path and the route cache read @av's
 *	addresses without @state_lock (sroce_qp_path_addrs()), so spoofed
 *	packets never contend it
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
 * @nr_mcast: multicast groups the QP is attached to (under
 *	dev->mcg_mutex, sroce_mcast.c)
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
	struct sroce_srq *srq;
	bool last_wqe;
	spinlock_t sq_lock;	/* kernel post_send producers */
	spinlock_t rq_lock;	/* kernel post_recv producers */
	spinlock_t state_lock;	/* @state and @attr */
	enum ib_qp_state state;
	struct ib_qp_attr attr;
	struct sroce_av av;
	seqcount_spinlock_t av_seq;	/* @av; writers hold state_lock */
	u32 mtu;
	struct kref ref;
	struct completion done;
	struct work_struct work;
	struct sk_buff_head rx_queue;
	struct sroce_dp dp;
	struct sroce_cc_qp cc;
	struct dst_cache dst_cache;
	u8 dst_tos;
	unsigned int nr_mcast;
};

static inline struct sroce_qp *to_sroce_qp(struct ib_qp *qp)
{
	return container_of(qp, struct sroce_qp, ibqp);
}

/* The responder state of a QP (sroce_resp.c, sroce_resp_out.c). */
static inline struct sroce_resp *to_sroce_resp(struct sroce_qp *qp)
{
	return &qp->dp.resp;
}

/*
 * A connected QP type: one peer, one path, the addresses of its packets
 * checked (RC, UC, and both halves of XRC: the send (INI) and the receive
 * (TGT) QP, IBTA 9.2.1).
 */
static inline bool sroce_qpt_connected(enum ib_qp_type type)
{
	return type == IB_QPT_RC || type == IB_QPT_UC ||
	       type == IB_QPT_XRC_INI || type == IB_QPT_XRC_TGT;
}

/*
 * A reliable connected QP type: PSNs checked, requests acknowledged and
 * retried (IBTA 9.7).  RC does both sides; XRC's INI QP only requests,
 * its TGT QP only responds.
 */
static inline bool sroce_qpt_reliable(enum ib_qp_type type)
{
	return type == IB_QPT_RC || type == IB_QPT_XRC_INI ||
	       type == IB_QPT_XRC_TGT;
}

/*
 * The transport bits of the opcodes a QP sends (IBTA 9.2.1): RC 000, UC
 * 001, UD 011, XRC 101.  Context: any.
 */
static inline u8 sroce_qp_opcode_base(const struct sroce_qp *qp)
{
	switch (qp->type) {
	case IB_QPT_UC:
		return SROCE_OP_UC;
	case IB_QPT_UD:
	case IB_QPT_GSI:
		return SROCE_OP_UD;
	case IB_QPT_XRC_INI:
	case IB_QPT_XRC_TGT:
		return SROCE_OP_XRC;
	default:
		return SROCE_OP_RC;
	}
}

/* A datagram QP: UD, or the GSI QP, which RoCE runs as UD (IBTA 10.2.1). */
static inline bool sroce_qp_is_ud(const struct sroce_qp *qp)
{
	return qp->type == IB_QPT_UD || qp->type == IB_QPT_GSI;
}

/*
 * The addresses of @qp's path (qp->av) without qp->state_lock: read inside
 * qp->av_seq, retried only while modify_qp rewrites them, so the caller
 * gets a whole path as modify_qp left it.  Context: any.
 */
static inline void sroce_qp_path_addrs(struct sroce_qp *qp,
				       struct in6_addr *saddr,
				       struct in6_addr *daddr)
{
	unsigned int seq;

	do {
		seq = read_seqcount_begin(&qp->av_seq);
		*saddr = qp->av.saddr;
		*daddr = qp->av.daddr;
	} while (read_seqcount_retry(&qp->av_seq, seq));
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

/* Move a QP to the error state from the data path (IB_EVENT_QP_FATAL). */
void sroce_qp_error(struct sroce_qp *qp);
void sroce_qp_last_wqe_reached(struct sroce_qp *qp);

void sroce_dev_set_fatal(struct sroce_dev *dev);
#if IS_ENABLED(CONFIG_KUNIT)
/* Static unless KUnit tests it (sroce_queue). */
bool sroce_fatal_cq_taken(struct sroce_cq *cq);
#endif
void sroce_drain_sq(struct ib_qp *ibqp);
void sroce_drain_rq(struct ib_qp *ibqp);

/* Is an IBTA QP transition allowed with this attribute mask? */
bool sroce_modify_qp_ok(enum ib_qp_state cur, enum ib_qp_state next,
			enum ib_qp_type type, enum ib_qp_attr_mask mask);

/* IBTA name of a QP state ("RESET", "INIT", ..., "ERR") for debug output. */
const char *sroce_qp_state_name(enum ib_qp_state state);

/**
 * enum sroce_qps_cap - what a QP state allows (sroce_qp_state_caps[])
 * @SROCE_QPS_POST_SEND: post_send accepts work requests
 * @SROCE_QPS_POST_RECV: post_recv accepts work requests
 * @SROCE_QPS_RX_REQ: the responder takes incoming requests
 * @SROCE_QPS_RX_RESP: responses (ACK, NAK, READ responses) are passed to
 *	the send side; it acts on them only with @SROCE_QPS_SQ_RUN
 * @SROCE_QPS_SQ_RUN: the send side runs: the requester sends packets of
 *	WQEs, the completer takes responses and keeps the retransmit timer
 * @SROCE_QPS_SQ_DRAIN: no new send WQE starts; IB_EVENT_SQ_DRAINED once
 *	the started ones completed
 * @SROCE_QPS_SQ_FLUSH: send WQEs complete with IB_WC_WR_FLUSH_ERR
 * @SROCE_QPS_RQ_FLUSH: receive WQEs complete with IB_WC_WR_FLUSH_ERR; a
 *	doorbell flushes both queues even when nothing new was posted
 * @SROCE_QPS_PATH: the RC/UC path and remote QPN (set at INIT to RTR)
 *	are in use: CNPs may be sent along it, and are taken from its peer
 */
enum sroce_qps_cap {
	SROCE_QPS_POST_SEND	= BIT(0),
	SROCE_QPS_POST_RECV	= BIT(1),
	SROCE_QPS_RX_REQ	= BIT(2),
	SROCE_QPS_RX_RESP	= BIT(3),
	SROCE_QPS_SQ_RUN	= BIT(4),
	SROCE_QPS_SQ_DRAIN	= BIT(5),
	SROCE_QPS_SQ_FLUSH	= BIT(6),
	SROCE_QPS_RQ_FLUSH	= BIT(7),
	SROCE_QPS_PATH		= BIT(8),
};

/* Capabilities of each QP state (sroce_qp.c). */
extern const u16 sroce_qp_state_caps[IB_QPS_ERR + 1];

/**
 * sroce_qp_state_caps_of() - every capability of a QP state
 * @s: IB_QPS_*
 *
 * For a snapshot taken once per data path run.
 * Context: any.
 * Return: enum sroce_qps_cap bits of @s; none for a value out of range.
 */
static inline unsigned int sroce_qp_state_caps_of(enum ib_qp_state s)
{
	if ((unsigned int)s >= ARRAY_SIZE(sroce_qp_state_caps))
		return 0;
	return sroce_qp_state_caps[s];
}

/**
 * sroce_qp_state_can() - does a QP state allow something?
 * @s: IB_QPS_*, e.g. READ_ONCE(qp->state)
 * @cap: enum sroce_qps_cap bits
 *
 * The one place that says what a state allows (IBTA vol. 1 10.3.1; the
 * table is sroce_qp_state_caps[] in sroce_qp.c).
 * Context: any.
 * Return: true when @s has every capability in @cap.
 */
static inline bool sroce_qp_state_can(enum ib_qp_state s, unsigned int cap)
{
	return (sroce_qp_state_caps_of(s) & cap) == cap;
}

#endif /* SROCE_QP_H */
