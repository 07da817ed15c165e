// SPDX-License-Identifier: GPL-2.0
/*
 * The requester's position in the send queue, and the network's push-back.
 *
 * Go-back-N (IBTA 9.7.5.1) moves the requester back to the oldest
 * unacknowledged PSN (sroce_req_rewind()), a late ACK moves it forward
 * (sroce_req_forward()), and a batch the network pushed back is sent again
 * from its first packet (sroce_req_seek()).  A WQE keeps the PSNs it was
 * given when first started, so any of its packets can be rebuilt from the
 * WQE alone.  A queue that pushes back pauses the requester until it moves
 * again or a timer fires (sroce_req_tx_pause()).
 *
 * Context: the QP's data path run (owns the QP's RUNNING bit), but for the
 * pause's hrtimer.
 */

#include <linux/hrtimer.h>

#include "sroce.h"
#include "sroce_net.h"
#include "sroce_qp.h"

/* ------------------------------------------------------------------ */
/* Push-back: the pause, and a batch sent again                        */
/* ------------------------------------------------------------------ */

/**
 * sroce_req_tx_timer_fn() - the backpressure pause ended: send again
 * @t: the QP's send.tx_timer, armed by sroce_req_tx_pause() with a QP
 *	reference, which this drops
 *
 * Context: hrtimer, softirq (HRTIMER_MODE_REL_SOFT).
 * Return: HRTIMER_NORESTART.
 */
enum hrtimer_restart sroce_req_tx_timer_fn(struct hrtimer *t)
{
	struct sroce_qp *qp = container_of(t, struct sroce_qp,
					   dp.send.tx_timer);

	if (!test_bit(SROCE_SEND_F_STOPPED, &qp->dp.send.flags)) {
		set_bit(SROCE_SEND_F_TX_RETRY, &qp->dp.send.flags);
		sroce_dp_schedule(qp, SROCE_DP_SEND);
	}
	sroce_qp_put(qp);
	return HRTIMER_NORESTART;
}

/**
 * sroce_req_tx_pause() - the network pushed back: pause the QP's sending
 * @qp: queue pair
 *
 * The requester sends nothing until the queue that pushed back moves
 * again or @tx_timer fires, whichever comes first.  The queue moving is
 * seen when one of the QP's packets still in the stack (in a qdisc, in a
 * stopped device queue, as under a PFC pause) leaves it: its destructor
 * ends the pause (SROCE_SEND_F_TX_WAKE).  The timer is the fallback when
 * none is queued; its pause doubles, from SROCE_REQ_TX_PAUSE_MIN_NS to
 * SROCE_REQ_TX_PAUSE_MAX_NS, while the network keeps pushing back, so a
 * full backlog gets the time to drain.  Backpressure is not a loss:
 * nothing is counted as retransmitted.
 * Context: data path run (owns the QP's RUNNING bit).
 */
void sroce_req_tx_pause(struct sroce_qp *qp)
{
	struct sroce_send *snd = &qp->dp.send;

	sroce_dp_assert_run(qp);
	snd->tx_blocked = true;
	if (atomic_read(&snd->tx_inflight))
		set_bit(SROCE_SEND_F_TX_WAKE, &snd->flags);
	if (hrtimer_is_queued(&snd->tx_timer))
		return;
	sroce_qp_get(qp);
	hrtimer_start(&snd->tx_timer, ns_to_ktime(snd->tx_pause_ns),
		      HRTIMER_MODE_REL_SOFT);
	snd->tx_pause_ns = min(2 * snd->tx_pause_ns,
			       (u32)SROCE_REQ_TX_PAUSE_MAX_NS);
}

/**
 * sroce_req_flush() - send the run's batch of request packets now
 * @qp: queue pair
 *
 * Pushed back, the batch is sent again from its first packet after a
 * pause (sroce_req_batch_lost(), sroce_req_tx_pause()).
 * Context: data path run (owns the QP's RUNNING bit).
 * Return: 0, or -EAGAIN when pushed back.
 */
int sroce_req_flush(struct sroce_qp *qp)
{
	struct sroce_send *snd = &qp->dp.send;
	struct sroce_net_batch *b = snd->tx_batch;
	bool held = b && b->head;
	int err;

	if (!held)
		return 0;
	err = sroce_net_batch_flush(qp->dev, b);
	if (err != -EAGAIN) {
		if (!err)
			sroce_req_batch_left(qp);
		return 0;
	}
	if (snd->error)
		return -EAGAIN;
	sroce_req_batch_lost(qp);
	if (!snd->tx_blocked)
		sroce_req_tx_pause(qp);
	return -EAGAIN;
}

/**
 * sroce_req_batch_left() - a batch (or a packet) left: the backpressure
 *	pause starts short again, and the next batch may be twice as long
 * @qp: queue pair
 *
 * Context: data path run (owns the QP's RUNNING bit).
 */
void sroce_req_batch_left(struct sroce_qp *qp)
{
	struct sroce_send *snd = &qp->dp.send;

	snd->tx_pause_ns = SROCE_REQ_TX_PAUSE_MIN_NS;
	snd->tx_batch_segs = sroce_net_batch_next_segs(snd->tx_batch_segs,
						       true);
}

/**
 * sroce_req_batch_lost() - the network pushed a batch of requests back:
 *	send its packets again
 * @qp: an RC or XRC queue pair
 *
 * None of the batch's packets left, the first at send.tx_mark_psn: the
 * requester goes back there (sroce_req_seek()), and send.max_psn back to
 * what it was before them, so the new ones among them are not counted as
 * retransmitted.  The next batches are half as long, down to one packet,
 * until one leaves (sroce_req_batch_left()): a queue too short for a whole
 * batch still makes progress.
 * Context: data path run (owns the QP's RUNNING bit).
 */
void sroce_req_batch_lost(struct sroce_qp *qp)
{
	struct sroce_send *snd = &qp->dp.send;

	sroce_req_seek(qp, snd->tx_mark_psn);
	snd->max_psn = snd->tx_mark_max;
	snd->tx_batch_segs = sroce_net_batch_next_segs(snd->tx_batch_segs,
						       false);
}

/**
 * sroce_req_seek() - send again from a PSN whose packet did not leave
 * @qp: queue pair
 * @psn: where a packet starts, at or after send.comp_psn and before
 *	send.psn
 *
 * The next packet sent is @psn, rebuilt from the WQE that holds it; the
 * WQEs before that one stay sent, the ones after it are sent again.
 * Context: data path run (owns the QP's RUNNING bit).
 */
void sroce_req_seek(struct sroce_qp *qp, u32 psn)
{
	struct sroce_send *snd = &qp->dp.send;
	bool probe = snd->sel_probe;
	struct sroce_req_wqe *w;
	u32 idx;
	bool timing = snd->rtt_timing && sroce_psn_before(snd->rtt_psn, psn);

	sroce_req_rewind(qp);
	snd->sel_probe = probe;
	snd->rtt_timing = timing;	/* the timed packet left */
	for (idx = qp->sq.kidx; idx != snd->issued_idx; idx++) {
		w = sroce_req_wqe(snd, idx);
		if (!sroce_psn_after(psn, w->last_psn)) {
			if (psn != w->first_psn)
				w->state = SROCE_WQE_SENDING;
			break;
		}
		if (w->state == SROCE_WQE_POSTED)
			w->state = SROCE_WQE_SENT;
	}
	snd->send_idx = idx;
	snd->psn = psn;
}

/* ------------------------------------------------------------------ */
/* Position: back to the oldest unacknowledged PSN, or forward         */
/* ------------------------------------------------------------------ */

/**
 * sroce_req_rewind() - go back to the oldest unacknowledged PSN
 * @qp: queue pair
 *
 * Go-back-N (IBTA 9.7.5.1): the next packet sent is send.comp_psn, rebuilt
 * from the WQE holding it (the head of the SQ); the WQEs after it are sent
 * again whole.  An RDMA READ is asked again from its first missing response
 * on.  Also used to move forward when a late ACK acknowledged PSNs past the
 * requester's position.
 * Context: data path run (owns the QP's RUNNING bit).
 */
void sroce_req_rewind(struct sroce_qp *qp)
{
	struct sroce_send *snd = &qp->dp.send;
	struct sroce_req_wqe *w;
	u32 idx;

	sroce_dp_assert_run(qp);
	sroce_req_release_cur(snd);
	for (idx = qp->sq.kidx; idx != snd->issued_idx; idx++) {
		w = sroce_req_wqe(snd, idx);
		if (w->state == SROCE_WQE_SENDING || w->state == SROCE_WQE_SENT)
			w->state = SROCE_WQE_POSTED;
	}
	snd->send_idx = qp->sq.kidx;
	snd->psn = snd->comp_psn;
	snd->noack_pkts = 0;
	snd->sel_probe = false;
	snd->rtt_timing = false;	/* Karn: the timed packet may go again */
}

/**
 * sroce_req_forward() - move the requester up to what is acknowledged
 * @qp: queue pair whose requester is behind send.comp_psn (a late ACK,
 *	or one that covered requests the responder held)
 *
 * The next packet sent is the one at comp_psn; within an RDMA READ whose
 * responses are arriving (comp_psn inside a chunk that was asked for),
 * the request after that chunk: asking for the rest of a chunk while its
 * responses stream would only have them sent twice.
 * Context: data path run (owns the QP's RUNNING bit).
 */
void sroce_req_forward(struct sroce_qp *qp)
{
	struct sroce_send *snd = &qp->dp.send;
	bool probe = snd->sel_probe;
	struct sroce_req_wqe *w;
	u32 last, k;

	sroce_req_rewind(qp);
	snd->sel_probe = probe;	/* still waiting for the answer */
	if (qp->sq.kidx == snd->issued_idx)
		return;
	w = sroce_req_wqe(snd, qp->sq.kidx);
	k = sroce_req_chunk_of(w, snd->psn);
	if (!(w->cls & SROCE_WR_READ) || k >= w->rd_issued ||
	    snd->psn == sroce_psn_add(w->first_psn, k * w->rd_chunk)) {
		if (snd->psn != w->first_psn)
			w->state = SROCE_WQE_SENDING;
		return;
	}
	last = sroce_req_chunk_last(w, snd->psn);
	snd->psn = sroce_psn_add(last, 1);
	if (last != w->last_psn) {
		w->state = SROCE_WQE_SENDING;
		return;
	}
	w->state = SROCE_WQE_SENT;
	snd->send_idx++;
}
