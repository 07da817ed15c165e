/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-QP data path state (requester, completer, responder) and the hooks
 * the QP state machine calls.  Owned by sroce_dp.c, sroce_req.c,
 * sroce_comp.c and sroce_resp.c (the responder interface below).
 */
#ifndef SROCE_DP_H
#define SROCE_DP_H

#include <linux/types.h>
#include <linux/hrtimer.h>
#include <linux/skbuff.h>
#include <linux/timer.h>
#include <linux/bitops.h>
#include <linux/bug.h>

#include "sroce_send.h"	/* struct sroce_send: requester + completer */
#include "sroce_resp.h"	/* struct sroce_resp: responder */

struct sroce_qp;
struct ib_qp_attr;

/*
 * The two engines of a QP's data path, each serialized on its own: the
 * send side (requester and completer: the SQ, PSNs, ACKs, retransmission)
 * and the responder (the RQ, incoming requests, their ACKs and READ
 * responses).  They share no state, so a QP's responder answers a request
 * on one CPU while its requester sends on another, as rdma_rxe's separate
 * tasks do.
 */
enum sroce_dp_side {
	SROCE_DP_SEND,
	SROCE_DP_RESP,
};

/* Bits of struct sroce_dp.flags: RUNNING and KICK of each side */
enum sroce_dp_flag {
	SROCE_DP_RUNNING,	/* a run owns the send side's state */
	SROCE_DP_KICK,		/* its owner must look again before leaving */
	SROCE_DP_RESP_RUNNING,	/* a run owns the responder's state */
	SROCE_DP_RESP_KICK,	/* its owner must look again before leaving */
};

/**
 * struct sroce_dp - data path state of one QP
 * @flags: enum sroce_dp_flag bits (atomic bit operations).  A side's
 *	RUNNING bit is the ownership of that side's runs: the work item,
 *	sroce_dp_rx_kick() (RX softirq) and sroce_dp_doorbell() (post_send)
 *	take it
 *	with test_and_set_bit_lock(); whoever finds it taken sets the side's
 *	KICK instead, and the owner runs again before it leaves.  No one
 *	spins, and runs in process context keep BH enabled, so every packet
 *	a run sends is delivered before the next one (no reordering between
 *	CPUs' backlogs).  Runs do not sleep (GFP_ATOMIC).
 * @resp_rx: received requests waiting for the responder (responses wait
 *	in the QP's rx_queue for the send side)
 * @resp_timer: retries the responder after the network pushed back; holds
 *	a QP reference while queued
 * @send: send-side state: requester and completer (sroce_req.c,
 *	sroce_comp.c), owned by the send side's RUNNING
 * @resp: responder state (sroce_resp.c, sroce_resp_out.c), owned by
 *	RESP_RUNNING
 *
 * @send and @resp are touched only by the owner of their side's RUNNING
 * bit or, where noted, under the QP's state_lock.
 */
struct sroce_dp {
	unsigned long flags;
	struct sk_buff_head resp_rx;
	struct hrtimer resp_timer;
	struct sroce_send send;
	struct sroce_resp resp;
};

/*
 * sroce_dp_assert_run() - the caller owns the QP's send side (RUNNING);
 * sroce_dp_assert_resp_run() - the caller owns its responder.
 * Checked when lockdep is enabled, as lockdep_assert_held() would be.
 */
#ifdef CONFIG_LOCKDEP
#define sroce_dp_assert_run(qp) \
	WARN_ON_ONCE(!test_bit(SROCE_DP_RUNNING, &(qp)->dp.flags))
#define sroce_dp_assert_resp_run(qp) \
	WARN_ON_ONCE(!test_bit(SROCE_DP_RESP_RUNNING, &(qp)->dp.flags))
#else
#define sroce_dp_assert_run(qp) do { } while (0)
#define sroce_dp_assert_resp_run(qp) do { } while (0)
#endif

/*
 * Set up the data path of a new QP, qp->work and qp->rx_queue included
 * (their only initialisation); undo with sroce_dp_stop().
 */
int sroce_dp_init(struct sroce_qp *qp);

/*
 * Called by modify_qp after the attributes in @mask were stored in
 * qp->attr and qp->state was set, with qp->state_lock held.  Picks up
 * sq_psn (at RTS), rq_psn (at RTR), and resets state (congestion control
 * included) on a move to RESET; calls sroce_resp_modify() with the same
 * arguments and schedules the work.
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
 * The receive path (sroce_recv.c) queued a packet on an empty RX queue of
 * @side: run that side inline or kick its run.
 */
void sroce_dp_rx_kick(struct sroce_qp *qp, enum sroce_dp_side side);

/*
 * Send doorbell: post_send calls it after publishing WQEs.  Runs the data
 * path inline when no run is in progress and the caller is not in hard
 * IRQ context or with IRQs off (lower latency), else schedules the work.
 * Context: any.
 */
void sroce_dp_doorbell(struct sroce_qp *qp);

/*
 * Responder interface used by the responder's runs (sroce_dp.c).
 * Packets handed to sroce_resp_rcv() are consumed (freed) by it; the QP
 * reference the packet held is dropped by the run afterwards.
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
