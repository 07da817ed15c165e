/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_dp.h - per-QP data path state (requester, completer, responder) and
 * the hooks the QP state machine calls.  Owned by sroce_req.c,
 * sroce_comp.c and sroce_resp.c.
 */
#ifndef SROCE_DP_H
#define SROCE_DP_H

#include <linux/types.h>
#include <linux/timer.h>

struct sroce_qp;
struct ib_qp_attr;

#include "sroce_req.h"	/* struct sroce_req: requester + completer */
#include "sroce_resp.h"	/* struct sroce_resp: responder */

/**
 * struct sroce_dp - data path state of one QP
 * @req: requester and completer state (sroce_req.c, sroce_comp.c)
 * @resp: responder state (sroce_resp.c)
 *
 * All members are touched only from the QP's work item (serialized) or,
 * where noted, under the QP's state_lock.
 */
struct sroce_dp {
	struct sroce_req req;
	struct sroce_resp resp;
};

/* Called once at create_qp, before the QP is published. */
void sroce_dp_init(struct sroce_qp *qp);

/*
 * Called by modify_qp after the attributes in @mask were stored in
 * qp->attr and qp->state was set, with qp->state_lock held.  Picks up
 * sq_psn (at RTS), rq_psn (at RTR), and resets state on a move to RESET.
 */
void sroce_dp_modify(struct sroce_qp *qp, int mask,
		     enum ib_qp_state old_state);

/*
 * Called by destroy_qp after the QP was unpublished: stops timers, cancels
 * the work and frees queued packets and per-QP resources, dropping the
 * references they held.  Process context, may sleep.
 */
void sroce_dp_stop(struct sroce_qp *qp);

/* The QP's work item function (sroce_qp.work), sroce_dp.c. */
void sroce_qp_work(struct work_struct *work);

/*
 * Responder interface used by the QP work loop (sroce_dp.c).
 * Packets handed to sroce_resp_rcv() are consumed (freed) by it; the QP
 * reference the packet held is dropped by the work loop afterwards.
 */
void sroce_resp_init(struct sroce_qp *qp);
void sroce_resp_modify(struct sroce_qp *qp, int mask,
		       enum ib_qp_state old_state);
void sroce_resp_rcv(struct sroce_qp *qp, struct sk_buff *skb);
/* Sends pending read responses / ACKs; true while more is pending. */
bool sroce_resp_run(struct sroce_qp *qp);
/* In ERR: complete posted receive WQEs with IB_WC_WR_FLUSH_ERR. */
void sroce_resp_flush(struct sroce_qp *qp);
void sroce_resp_stop(struct sroce_qp *qp);

#endif /* SROCE_DP_H */
