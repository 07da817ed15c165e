// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_diag.c - the health of a QP's send side: the wake-up invariant
 * checked at the end of every send run, and the state `rdma -dd resource
 * show qp` prints (PSNs, window, timers, the age of the oldest WQE against
 * the QP's retry budget), which the VM tests' stall detector reads.
 *
 * The IB contract: every posted work request ends with a completion, a
 * success or an error once the retry budget is spent (IBTA 9.7.6.1.3,
 * 10.8.3.1).  A send side that has unacknowledged packets therefore always
 * has a way to be run again: its retransmit timer is armed (or has fired
 * and flagged the run), it waits for an RNR timer, it waits for the
 * backpressure or pacing timer, or it has failed and flushes.  A run that
 * ends otherwise would leave the QP silent until the application gives up.
 */

#include <linux/jiffies.h>
#include <rdma/rdma_netlink.h>
#include <kunit/visibility.h>

#include "sroce.h"
#include "sroce_diag.h"
#include "sroce_qp.h"
#include "sroce_queue.h"

/* Largest RNR NAK timer (IBTA table 45, code 0: 655.36 ms), in ms. */
#define SROCE_DIAG_RNR_MAX_MS	656
/* A UC or UD WQE waits for nothing but its turn to leave (pacing), ms. */
#define SROCE_DIAG_UNRELIABLE_MS	1000

/**
 * sroce_send_needs_timer() - must the retransmit timer be armed?
 * @qp: queue pair
 *
 * True when the send side of a reliable QP has packets that are not
 * acknowledged, a finite local ACK timeout, and nothing else that will
 * run it again: it has not failed and does not wait for an RNR timer.
 * Context: a send-side run (owns RUNNING), or any context for a snapshot.
 */
bool sroce_send_needs_timer(const struct sroce_qp *qp)
{
	const struct sroce_send *snd = &qp->dp.send;

	return sroce_qpt_reliable(qp->type) && snd->wqes && !snd->error &&
	       !snd->rnr_wait && snd->timeout_jiffies &&
	       (snd->caps & SROCE_QPS_SQ_RUN) &&
	       snd->comp_psn != snd->max_psn;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_send_needs_timer);

/*
 * A timer of the send side will run the QP: pending, or fired and its
 * function not done yet (the arm still counted: sroce_send_timer_held()),
 * or done and its expiry flagged (@flag) for the next run.  Read in the
 * order the function writes them backwards: the count drops after the
 * flag is set.
 */
static bool sroce_send_timer_set(struct sroce_send *snd, struct timer_list *t,
				 int flag)
{
	if (timer_pending(t) || atomic_read(sroce_send_timer_held(snd, t)))
		return true;
	smp_rmb();	/* the count read before the expiry's flag */
	return test_bit(flag, &snd->flags);
}

/**
 * sroce_send_retrans_armed() - is the retransmit timer armed when needed?
 * @qp: queue pair
 *
 * True when the send side needs no retransmit timer
 * (sroce_send_needs_timer()) or has one: pending, fired with its function
 * still to finish, or its expiry flagged for the next run.
 * Context: a send-side run (owns RUNNING), or any context for a snapshot.
 */
bool sroce_send_retrans_armed(struct sroce_qp *qp)
{
	struct sroce_send *snd = &qp->dp.send;

	return !sroce_send_needs_timer(qp) ||
	       sroce_send_timer_set(snd, &snd->retrans_timer,
				    SROCE_SEND_F_TIMEOUT);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_send_retrans_armed);

/* What a send side that cannot be run again waits for, in vain. */
enum sroce_send_wait {
	SROCE_WAIT_NONE,
	SROCE_WAIT_RETRANS,	/* unacknowledged packets, no retransmit timer */
	SROCE_WAIT_RNR,		/* an RNR wait without the RNR timer */
	SROCE_WAIT_PAUSE,	/* paused (backpressure, pacing), no tx_timer */
};

static const char * const sroce_send_wait_names[] = {
	[SROCE_WAIT_RETRANS]	= "retransmit",
	[SROCE_WAIT_RNR]	= "RNR",
	[SROCE_WAIT_PAUSE]	= "pause",
};

static enum sroce_send_wait sroce_send_lost_wait(struct sroce_qp *qp)
{
	struct sroce_send *snd = &qp->dp.send;

	if (test_bit(SROCE_SEND_F_STOPPED, &snd->flags) || snd->error)
		return SROCE_WAIT_NONE;
	if (!sroce_send_retrans_armed(qp))
		return SROCE_WAIT_RETRANS;
	if (snd->rnr_wait &&
	    !sroce_send_timer_set(snd, &snd->rnr_timer, SROCE_SEND_F_RNR))
		return SROCE_WAIT_RNR;
	if (snd->tx_blocked && !hrtimer_active(&snd->tx_timer) &&
	    !test_bit(SROCE_SEND_F_TX_RETRY, &snd->flags))
		return SROCE_WAIT_PAUSE;
	return SROCE_WAIT_NONE;
}

/**
 * sroce_send_check_wakeup() - the send side can always be run again
 * @qp: queue pair, at the end of a send-side run
 *
 * Checks the invariant of the file comment: unacknowledged packets with
 * neither the retransmit timer armed nor its expiry flagged; an RNR wait
 * without the RNR timer; a pause for backpressure or pacing without the
 * timer that ends it.  A broken invariant is a driver bug: it is counted
 * (wakeup_repairs), reported (a WARN on kernels with lockdep, as the debug
 * kernel, else a ratelimited error) and repaired by arming the timer, so
 * that the QP retries or fails instead of hanging.
 * Context: a send-side run (owns RUNNING); does not sleep.
 * Return: true when the invariant held.
 */
bool sroce_send_check_wakeup(struct sroce_qp *qp)
{
	struct sroce_send *snd = &qp->dp.send;
	enum sroce_send_wait w;

	sroce_dp_assert_run(qp);
	w = sroce_send_lost_wait(qp);
	if (w == SROCE_WAIT_NONE)
		return true;
	sroce_counter_inc(qp->dev, SROCE_CNT_WAKEUP_REPAIRS);
	WARN_ONCE(SROCE_DEBUG_CHECKS, "sroce: QP %u: %s timer not armed\n",
		  sroce_qpn(qp), sroce_send_wait_names[w]);
	if (!SROCE_DEBUG_CHECKS)
		pr_err_ratelimited("sroce: QP %u: %s timer not armed (psn %u comp %u max %u): armed now\n",
				   sroce_qpn(qp), sroce_send_wait_names[w],
				   snd->psn, snd->comp_psn, snd->max_psn);
	if (w == SROCE_WAIT_RETRANS)
		sroce_retx_arm(qp);
	else if (w == SROCE_WAIT_RNR)
		sroce_req_arm_timer(qp, &snd->rnr_timer, jiffies + 1);
	else
		sroce_req_tx_pause(qp);
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_send_check_wakeup);

/*
 * The retry budget of the send side, in ms: how long the oldest WQE may
 * go without progress before the QP must have completed it or failed.
 * RC and XRC: retry_cnt + 1 local ACK timeouts (IBTA 9.7.6.1.3) and
 * rnr_retry + 1 RNR waits of at most 655.36 ms (9.7.5.2.8); 0 for
 * unbounded (an infinite local ACK timeout, or an RNR wait with infinite
 * RNR retries).  UC and UD WQEs complete when their packets leave:
 * SROCE_DIAG_UNRELIABLE_MS.
 */
static u32 sroce_send_budget_ms(const struct sroce_qp *qp)
{
	const struct sroce_send *snd = &qp->dp.send;
	u64 ms;

	if (!sroce_qpt_reliable(qp->type))
		return SROCE_DIAG_UNRELIABLE_MS;
	if (!snd->timeout_jiffies || (snd->rnr_wait && snd->rnr_retry_max == 7))
		return 0;
	ms = (u64)(snd->retry_max + 1) * jiffies_to_msecs(snd->timeout_jiffies);
	if (snd->rnr_retry_max != 7)
		ms += (u64)(snd->rnr_retry_max + 1) * SROCE_DIAG_RNR_MAX_MS;
	return min_t(u64, ms, U32_MAX);
}

/* Bits of the "send_flags" attribute (a snapshot for diagnostics). */
static u32 sroce_send_state_bits(struct sroce_qp *qp)
{
	struct sroce_send *snd = &qp->dp.send;

	return (READ_ONCE(snd->flags) & 0xffff) |
	       (timer_pending(&snd->retrans_timer) ? SROCE_DIAG_RETRANS_ARMED : 0) |
	       (timer_pending(&snd->rnr_timer) ? SROCE_DIAG_RNR_ARMED : 0) |
	       (hrtimer_active(&snd->tx_timer) ? SROCE_DIAG_TX_ARMED : 0) |
	       (READ_ONCE(snd->rnr_wait) ? SROCE_DIAG_RNR_WAIT : 0) |
	       (READ_ONCE(snd->tx_blocked) ? SROCE_DIAG_TX_BLOCKED : 0) |
	       (READ_ONCE(snd->retrying) ? SROCE_DIAG_RETRYING : 0) |
	       (READ_ONCE(snd->sel_probe) ? SROCE_DIAG_SEL_PROBE : 0) |
	       (READ_ONCE(snd->error) ? SROCE_DIAG_ERROR : 0) |
	       (test_bit(SROCE_DP_RUNNING, &qp->dp.flags) ? SROCE_DIAG_RUNNING : 0) |
	       (work_pending(&qp->work) || work_pending(&qp->dp.resp_work) ||
		work_pending(&qp->dp.hop_work) ? SROCE_DIAG_WORK_PENDING : 0);
}

struct sroce_diag_attr {
	const char *name;
	u32 val;
};

/**
 * sroce_diag_fill_res_qp() - the send and receive state of a QP for `rdma
 *	-dd resource show qp`
 * @msg: netlink message, inside the QP's RDMA_NLDEV_ATTR_DRIVER nest
 * @qp: queue pair
 *
 * Adds, read without the runs' ownership (a snapshot, fields may be
 * mid-update): sq_head (the SQ consumer index, the oldest WQE not
 * completed), sq_fetch, sq_send and sq_issued (struct sroce_send's
 * indices), psn, comp_psn, max_psn, cwnd, rd_out (READ chunks and
 * atomics outstanding), retry_left, rto_ms, budget_ms (the retry budget,
 * 0 = unbounded, see sroce_send_budget_ms()), tx_inflight, send_flags
 * (SROCE_DIAG_* and enum sroce_send_flag bits), rq_epsn, rq_out (queued
 * responses), rq_ooo (requests held behind a gap), rx_q (responses and
 * requests queued for the runs), send_cpu and resp_cpu (each side's home
 * CPU, struct sroce_dp.home_cpu; 4294967295 before it has one).
 * Context: process (netlink dump).
 * Return: 0, or -EMSGSIZE.
 */
int sroce_diag_fill_res_qp(struct sk_buff *msg, struct sroce_qp *qp)
{
	struct sroce_send *snd = &qp->dp.send;
	struct sroce_resp *resp = &qp->dp.resp;
	const struct sroce_diag_attr attrs[] = {
		{ "sq_head", READ_ONCE(qp->sq.kidx) },
		{ "sq_fetch", READ_ONCE(snd->fetch_idx) },
		{ "sq_send", READ_ONCE(snd->send_idx) },
		{ "sq_issued", READ_ONCE(snd->issued_idx) },
		{ "psn", READ_ONCE(snd->psn) },
		{ "comp_psn", READ_ONCE(snd->comp_psn) },
		{ "max_psn", READ_ONCE(snd->max_psn) },
		{ "cwnd", READ_ONCE(snd->cwnd) },
		{ "rd_out", READ_ONCE(snd->rd_outstanding) },
		{ "retry_left", READ_ONCE(snd->retry_cnt) },
		{ "rto_backoff", READ_ONCE(snd->rto_backoff) },
		{ "srtt_us", READ_ONCE(snd->rtt.srtt_us) },
		{ "budget_ms", sroce_send_budget_ms(qp) },
		{ "tx_inflight", atomic_read(&snd->tx_inflight) },
		{ "send_flags", sroce_send_state_bits(qp) },
		{ "rq_epsn", READ_ONCE(resp->epsn) },
		{ "rq_out", READ_ONCE(resp->out_len) },
		{ "rq_ooo", skb_queue_len_lockless(&resp->ooo) },
		{ "rx_q", skb_queue_len_lockless(&qp->rx_queue) +
			  skb_queue_len_lockless(&qp->dp.resp_rx) },
		/* CPU numbers; none yet: U32_MAX */
		{ "send_cpu", READ_ONCE(qp->dp.home_cpu[SROCE_DP_SEND]) },
		{ "resp_cpu", READ_ONCE(qp->dp.home_cpu[SROCE_DP_RESP]) },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(attrs); i++)
		if (rdma_nl_put_driver_u32(msg, attrs[i].name, attrs[i].val))
			return -EMSGSIZE;
	return 0;
}
