// SPDX-License-Identifier: GPL-2.0
/*
 * Retransmission of a QP's requests (IBTA vol. 1 9.7.5.1, 9.7.5.2,
 * 9.7.6.1.3): loss episodes, the congestion window, the RTT estimate and
 * the retransmit and RNR timers.  The completer (sroce_comp.c) reports
 * what the responses say: progress (sroce_retx_advance()), a sequence
 * error NAK, a gap in the responses; the timers report silence.
 *
 * Retransmission (go-back-N from the oldest unacknowledged PSN) follows a
 * NAK-sequence error, an out-of-order response, an RNR NAK (after its
 * timer), or the retransmit timeout.  After a NAK-sequence error or a
 * retransmit timeout only the oldest unacknowledged packet goes first,
 * alone: a responder that held what followed the gap acknowledges it all,
 * a late ACK or the answer to the duplicate acknowledges what already
 * arrived, and nothing else is sent again (sroce_retx_resend_one(); RFC
 * 6298 5.4 resends one segment on a timeout too).  A loss is recovered
 * once: the signals that follow for the same episode (the NAK of a hole
 * already gone back for, gaps in responses still in flight) start
 * nothing (sroce_send_new_loss()).  Each loss episode cuts a congestion
 * window that limits the PSNs in flight, so that what go-back-N sends
 * again stays proportionate to what was lost; a timeout cuts it to a
 * trickle; progress grows it back.  The retry counter (attribute
 * retry_cnt; 7 is seven retries, not infinite) counts local ACK timeouts
 * and sequence errors and is reloaded on progress; the RNR counter
 * (rnr_retry; 7 is infinite) counts RNR NAKs (sroce_comp.c).
 *
 * The retransmit timeout follows the measured RTT (RFC 6298, from ACKs of
 * packets sent once), within the QP's local ACK timeout (IBTA 9.7.6.1.3).
 * The timer is not pushed back on every ACK: it fires, and the run checks
 * how long ago the last progress was, re-arming for the rest.
 *
 * Context: everything here runs in the QP's data path run, which owns the
 * QP's RUNNING bit: in the work item, in post_send or in the RX softirq;
 * nothing may sleep.  The timer functions are the exception.
 */

#include <linux/jiffies.h>
#include <rdma/ib_pack.h>
#include <kunit/visibility.h>

#include "sroce.h"
#include "sroce_qp.h"
#include "sroce_trace.h"

/* ------------------------------------------------------------------ */
/* The congestion window and the RTT                                   */
/* ------------------------------------------------------------------ */

/* The timed packet (sroce_req_pkt.c) is acknowledged: one RTT sample. */
static void sroce_retx_rtt_sample(struct sroce_send *snd)
{
	u64 us;

	if (!snd->rtt_timing || !sroce_psn_after(snd->comp_psn, snd->rtt_psn))
		return;
	snd->rtt_timing = false;
	us = div_u64(ktime_get_ns() - snd->rtt_start, NSEC_PER_USEC);
	sroce_rtt_sample(&snd->rtt, min_t(u64, us, U32_MAX));
}

/*
 * In-order progress of @n PSNs grows the congestion window: by @n below
 * ssthresh (slow start), else by one PSN per two windows acknowledged
 * (congestion avoidance), up to SROCE_REQ_WINDOW.  Half TCP's pace: a
 * loss costs go-back-N the whole window behind it, not one packet.
 */
static void sroce_retx_cwnd_grow(struct sroce_send *snd, u32 n)
{
	if (snd->cwnd < snd->ssthresh) {
		snd->cwnd = min(snd->cwnd + n, snd->ssthresh);
		return;
	}
	snd->cwnd_acc += n;
	while (snd->cwnd_acc >= 2 * snd->cwnd &&
	       snd->cwnd < SROCE_REQ_WINDOW) {
		snd->cwnd_acc -= 2 * snd->cwnd;
		snd->cwnd++;
	}
	if (snd->cwnd >= SROCE_REQ_WINDOW)
		snd->cwnd_acc = 0;
}

/*
 * A loss episode starts: after a sequence error NAK or a gap in the
 * responses the window drops to a quarter of what was in flight, as each
 * later loss costs go-back-N what is in flight behind it.  After a
 * retransmit timeout it drops to the minimum and slow start brings it
 * back to half of what was in flight (RFC 5681 3.1: a timeout means the
 * path, or a slow receiver, took nothing for an RTO; only a trickle goes
 * until ACKs return).  Timeouts in a row (@snd->rto_backoff > 1) keep the
 * threshold of the first one.
 */
static void sroce_retx_cwnd_cut(struct sroce_send *snd, bool timeout)
{
	u32 flight = sroce_psn_diff(snd->max_psn, snd->comp_psn);

	flight = min(flight, snd->cwnd);
	snd->cwnd_acc = 0;
	if (!timeout) {
		snd->ssthresh = max_t(u32, flight / 4, SROCE_REQ_CWND_MIN);
		snd->cwnd = snd->ssthresh;
		return;
	}
	if (snd->rto_backoff <= 1)
		snd->ssthresh = max_t(u32, flight / 2, SROCE_REQ_CWND_MIN);
	snd->cwnd = SROCE_REQ_CWND_MIN;
}

/**
 * sroce_retx_advance() - PSNs before @psn are acknowledged
 * @snd: send side
 * @psn: one past the newest PSN acknowledged
 *
 * Progress reloads the retry counts, restarts the timeouts, ends a loss
 * episode once everything sent before its rewind is acknowledged, and
 * grows the congestion window (IBTA 9.7.5.1.1; RFC 5681 3.1).
 * Context: data path run (owns the QP's RUNNING bit).
 */
void sroce_retx_advance(struct sroce_send *snd, u32 psn)
{
	u32 n;

	if (!sroce_psn_after(psn, snd->comp_psn))
		return;
	n = sroce_psn_diff(psn, snd->comp_psn);
	snd->comp_psn = psn;
	snd->retry_cnt = snd->retry_max;
	snd->rnr_retry = snd->rnr_retry_max;
	snd->rto_backoff = 0;
	snd->last_progress = jiffies;
	snd->retry_base = jiffies;
	sroce_retx_rtt_sample(snd);
	/* slow start goes on during a recovery (after a timeout) */
	if (!snd->retrying || snd->cwnd < snd->ssthresh)
		sroce_retx_cwnd_grow(snd, n);
	if (snd->retrying && !sroce_psn_before(psn, snd->recover_psn))
		snd->retrying = false;
}

/* ------------------------------------------------------------------ */
/* Loss episodes                                                       */
/* ------------------------------------------------------------------ */

/**
 * sroce_retx_retry() - go back to the oldest unacknowledged PSN
 * @qp: queue pair
 * @timeout: the retransmit timer fired (else a NAK or a gap in responses)
 * @counted: the retry counts against retry_cnt
 *
 * For a NAK or an out-of-order response once per loss episode
 * (sroce_send_new_loss()): the packets already in flight behind the loss
 * would otherwise each start one more retry.  @counted: NAK sequence
 * errors and local ACK timeouts count; an earlier timeout the RTT allows
 * does not.  With no retry left the head WQE fails with
 * IB_WC_RETRY_EXC_ERR (IBTA 9.7.5.2.4, 9.7.6.1.3).  Every retry cuts the
 * congestion window (sroce_retx_cwnd_cut()).
 * Context: data path run (owns the QP's RUNNING bit).
 * Return: true when the requester went back.
 */
bool sroce_retx_retry(struct sroce_qp *qp, bool timeout, bool counted)
{
	struct sroce_send *snd = &qp->dp.send;

	if (!timeout && !sroce_send_new_loss(snd, ktime_get_ns()))
		return false;
	if (counted && !snd->retry_cnt) {
		sroce_counter_inc(qp->dev, SROCE_CNT_COMPLETER_RETRY_ERR);
		trace_sroce_retry_exc(qp, snd->comp_psn, snd->psn,
				      snd->max_psn,
				      jiffies_to_msecs(jiffies -
						       snd->last_progress),
				      skb_queue_len_lockless(&qp->rx_queue),
				      atomic_read(&snd->tx_inflight));
		sroce_comp_fail_head(qp, IB_WC_RETRY_EXC_ERR);
		return false;
	}
	if (counted)
		snd->retry_cnt--;
	sroce_retx_cwnd_cut(snd, timeout);
	snd->retrying = true;
	snd->rewind_psn = snd->comp_psn;
	snd->rewind_ns = ktime_get_ns();
	snd->recover_psn = snd->max_psn;
	snd->last_progress = jiffies;
	sroce_counter_inc(qp->dev, SROCE_CNT_LOSS_REWINDS);
	sroce_req_rewind(qp);
	return true;
}

/*
 * After a sequence error NAK (@nak) or a retransmit timeout, send again
 * only the packet at comp_psn (a READ request: the rest of its chunk),
 * with AckReq, and nothing after it until the answer: a responder that
 * held the requests behind the gap (sroce_resp.c) answers with an ACK
 * past them, or a NAK at the next gap, and none of them goes again; one
 * that dropped them (go-back-N, rdma_rxe) acknowledges the one packet,
 * and the requester goes on from there, resending the rest
 * (sroce_retx_sel_done()).  After a timeout the ACKs may only have been
 * late (a slow receiver): the answer then acknowledges everything that
 * arrived, which says nothing about holding (@nak false).
 */
static void sroce_retx_resend_one(struct sroce_qp *qp, bool nak)
{
	struct sroce_send *snd = &qp->dp.send;
	struct sroce_req_wqe *w = sroce_comp_head(qp);
	u32 end = sroce_psn_add(snd->comp_psn, 1);

	sroce_req_rewind(qp);
	if (!w || sroce_psn_before(snd->comp_psn, w->first_psn) ||
	    sroce_psn_after(snd->comp_psn, w->last_psn))
		return;
	if (w->cls & SROCE_WR_READ)
		end = sroce_psn_add(sroce_req_chunk_last(w, snd->comp_psn), 1);
	snd->sel_probe = true;
	snd->sel_nak = nak;
	snd->sel_end = end;
	sroce_counter_inc(qp->dev, SROCE_CNT_SEL_RESENDS);
}

/**
 * sroce_retx_sel_done() - is the packet resent alone answered?
 * @snd: send side
 * @pkt: the response just taken
 *
 * The requester may go on once what it asked for is acknowledged: by an
 * ACK, by responses up to the newest PSN sent, or, from a responder not
 * known to hold requests, by its own last response.  One that holds
 * them (@snd->peer_holds) runs them after it and ends with an ACK or a
 * NAK (sroce_resp.c): the READ responses or atomic ACKs in between do
 * not end the wait, the requester would send again what they are about
 * to acknowledge.
 * Context: data path run (owns the QP's RUNNING bit).
 */
void sroce_retx_sel_done(struct sroce_send *snd,
			 const struct sroce_pkt_info *pkt)
{
	if (!snd->sel_probe || sroce_psn_before(snd->comp_psn, snd->sel_end))
		return;
	if (sroce_rc_opcode(pkt->opcode) == IB_OPCODE_RC_ACKNOWLEDGE) {
		if (snd->sel_nak && sroce_psn_after(snd->comp_psn, snd->sel_end))
			snd->peer_holds = true;
	} else if (snd->peer_holds && snd->comp_psn != snd->max_psn) {
		return;
	}
	snd->sel_probe = false;
}

/**
 * sroce_retx_seq_nak() - a sequence error NAK at comp_psn (IBTA 9.7.5.2.4)
 * @qp: queue pair
 *
 * While the packet resent alone for an earlier one is unanswered, only
 * one past it counts (a further gap of the same loss episode: resend its
 * packet alone too); otherwise a new loss episode resends its first
 * packet alone.
 * Context: data path run (owns the QP's RUNNING bit).
 */
void sroce_retx_seq_nak(struct sroce_qp *qp)
{
	struct sroce_send *snd = &qp->dp.send;

	if (snd->sel_probe) {
		if (sroce_psn_before(snd->comp_psn, snd->sel_end))
			return;
		snd->peer_holds = true;
		sroce_retx_resend_one(qp, true);
		return;
	}
	if (sroce_retx_retry(qp, false, true))
		sroce_retx_resend_one(qp, true);
}

/**
 * sroce_retx_out_of_order() - a response that does not follow the last one
 * @qp: queue pair
 * @psn: its PSN
 *
 * Context: data path run (owns the QP's RUNNING bit).
 */
void sroce_retx_out_of_order(struct sroce_qp *qp, u32 psn)
{
	/* a gap: the responses in between are lost (9.7.5.1.2) */
	if (sroce_psn_after(psn, qp->dp.send.comp_psn))
		sroce_retx_retry(qp, false, true);
}

/* ------------------------------------------------------------------ */
/* Timers                                                              */
/* ------------------------------------------------------------------ */

/**
 * sroce_retx_rto() - the retransmit timeout of a QP now
 * @snd: send side
 *
 * What the measured RTT warrants (sroce_rtt_rto_us(), with the backoff
 * of timeouts in a row and a margin of at least SROCE_REQ_RTO_MIN_US over
 * the smoothed RTT; one jiffy more, the timer's granularity), never more
 * than the QP's local ACK timeout (IBTA 9.7.6.1.3).
 * Context: any.
 * Return: jiffies; 0 for an infinite local ACK timeout.
 */
unsigned long sroce_retx_rto(const struct sroce_send *snd)
{
	u32 max_us = min_t(u64, jiffies_to_msecs(snd->timeout_jiffies) *
			   (u64)USEC_PER_MSEC, U32_MAX);
	u32 gran_us = max_t(u32, jiffies_to_usecs(1), SROCE_REQ_RTO_MIN_US);
	u32 us = sroce_rtt_rto_us(&snd->rtt, gran_us, max_us,
				  snd->rto_backoff);

	return min(usecs_to_jiffies(us) + 1, snd->timeout_jiffies);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_retx_rto);

/*
 * Retransmit timeout: nothing arrived for an RTO since the last progress
 * or the newest packet that asked for an ACK (RFC 6298 5: the RTO from
 * the measured RTT, doubled for each timeout in a row).  A timer that
 * fires early re-arms itself for the rest of the time.  The retry counts
 * against retry_cnt only when the QP's whole local ACK timeout
 * (9.7.6.1.3) passed since the last progress or counted retry, so
 * retry_cnt keeps its meaning.  The oldest unacknowledged
 * packet goes again alone (sroce_retx_resend_one()): on a slow receiver
 * the ACKs were only late, and its answer acknowledges what arrived.
 * While request packets of the QP are still queued in this host (a
 * backlog drained by a starved ksoftirqd, a paused NIC queue), they
 * cannot have been lost on the way, and sending them again would only
 * lengthen the queue: the timeout waits (as TCP does not retransmit an
 * skb still in a host queue).  A packet dropped here is freed, which ends
 * that wait.
 */
static void sroce_retx_timeout(struct sroce_qp *qp)
{
	struct sroce_send *snd = &qp->dp.send;
	unsigned long deadline;
	bool counted;

	if (snd->comp_psn == snd->max_psn || snd->rnr_wait || snd->error ||
	    !snd->timeout_jiffies || !sroce_qpt_reliable(qp->type) ||
	    !(snd->caps & SROCE_QPS_SQ_RUN))
		return;
	if (atomic_read(&snd->tx_inflight)) {
		snd->last_progress = jiffies;
		snd->retry_base = jiffies;
	}
	deadline = snd->last_progress + sroce_retx_rto(snd);
	if (time_before(jiffies, deadline)) {
		sroce_req_arm_timer(qp, &snd->retrans_timer, deadline);
		return;
	}
	counted = !time_before(jiffies,
			       snd->retry_base + snd->timeout_jiffies);
	if (counted)
		snd->retry_base = jiffies;
	if (snd->rto_backoff < SROCE_REQ_RTO_BACKOFF_MAX)
		snd->rto_backoff++;
	/*
	 * The packet resent alone was answered, but the ACK or NAK a
	 * responder that holds requests sends after them never came
	 * (sroce_retx_sel_done()): this one does not hold them (rdma_rxe
	 * drops what follows a gap); the next resend goes on from the
	 * answer, as to any go-back-N responder.
	 */
	if (snd->sel_probe && !sroce_psn_before(snd->comp_psn, snd->sel_end))
		snd->peer_holds = false;
	sroce_counter_inc(qp->dev, SROCE_CNT_RETRANS_TIMEOUTS);
	trace_sroce_retrans_timeout(qp, snd->comp_psn, snd->rto_backoff);
	if (sroce_retx_retry(qp, true, counted))
		sroce_retx_resend_one(qp, false);
	if (!snd->error)
		sroce_req_arm_timer(qp, &snd->retrans_timer,
				    jiffies + sroce_retx_rto(snd));
}

/**
 * sroce_retx_timers() - act on the timers that fired since the last run
 * @qp: queue pair
 *
 * RNR timer: resend from the NAK'd PSN.  Retransmit timer: retry (or fail
 * with IB_WC_RETRY_EXC_ERR) when no progress was seen for a whole timeout.
 * Context: data path run (owns the QP's RUNNING bit).
 */
void sroce_retx_timers(struct sroce_qp *qp)
{
	struct sroce_send *snd = &qp->dp.send;

	sroce_dp_assert_run(qp);
	if (test_and_clear_bit(SROCE_SEND_F_RNR, &snd->flags) &&
	    snd->rnr_wait) {
		snd->rnr_wait = false;
		snd->last_progress = jiffies;
		if (!snd->error)
			sroce_req_rewind(qp);
		/*
		 * A retransmit timeout during the wait did not re-arm (the
		 * wait was the QP's timer then): the ACK timeout starts
		 * again now, also when nothing can be resent yet (paused)
		 */
		if (snd->comp_psn != snd->max_psn)
			sroce_retx_arm(qp);
	}
	if (test_and_clear_bit(SROCE_SEND_F_TIMEOUT, &snd->flags))
		sroce_retx_timeout(qp);
}

/**
 * sroce_retx_arm() - make sure the retransmit timer runs
 * @qp: RC queue pair with packets outstanding
 *
 * Arms it for one RTO from now, or brings it forward to then when it
 * was armed for later (before an RTT was measured: the QP's timeout).
 * Context: data path run (owns the QP's RUNNING bit).
 */
void sroce_retx_arm(struct sroce_qp *qp)
{
	struct sroce_send *snd = &qp->dp.send;
	unsigned long expires;

	if (!snd->timeout_jiffies)
		return;
	expires = jiffies + sroce_retx_rto(snd);
	if (!timer_pending(&snd->retrans_timer) ||
	    time_before(expires, READ_ONCE(snd->retrans_timer.expires)))
		sroce_req_arm_timer(qp, &snd->retrans_timer, expires);
}

/* @bit: the expiry's flag; the timer's arm stops counting after it */
static void sroce_retx_timer_fired(struct sroce_qp *qp, struct timer_list *t,
				   int bit)
{
	struct sroce_send *snd = &qp->dp.send;

	if (!test_bit(SROCE_SEND_F_STOPPED, &snd->flags)) {
		set_bit(bit, &snd->flags);
		sroce_dp_schedule(qp, SROCE_DP_SEND);
	}
	smp_mb__before_atomic();	/* the expiry flagged before the count */
	atomic_dec(sroce_send_timer_held(snd, t));
	sroce_qp_put(qp);
}

/**
 * sroce_retx_retrans_timer_fn() - retransmit timer callback
 * @t: qp->dp.send.retrans_timer
 *
 * Flags the timeout for the next run and schedules it; drops the QP
 * reference the armed timer held.
 * Context: timer (softirq).
 */
void sroce_retx_retrans_timer_fn(struct timer_list *t)
{
	struct sroce_qp *qp = from_timer(qp, t, dp.send.retrans_timer);

	sroce_retx_timer_fired(qp, t, SROCE_SEND_F_TIMEOUT);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_retx_retrans_timer_fn);

/**
 * sroce_retx_rnr_timer_fn() - RNR NAK timer callback
 * @t: qp->dp.send.rnr_timer
 *
 * Flags the end of the RNR wait for the next run and schedules it; drops
 * the QP reference the armed timer held.
 * Context: timer (softirq).
 */
void sroce_retx_rnr_timer_fn(struct timer_list *t)
{
	struct sroce_qp *qp = from_timer(qp, t, dp.send.rnr_timer);

	sroce_retx_timer_fired(qp, t, SROCE_SEND_F_RNR);
}
