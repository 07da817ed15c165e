// SPDX-License-Identifier: GPL-2.0
/*
 * The data path of one QP: two engines, each serialized on its own, run
 * by the QP's single work item and by the inline runs that stand in for it.
 *
 * The send side (requester and completer):
 *   1. take what the state allows and the attributes modify_qp left
 *      (under state_lock)
 *   2. received responses (ACK, NAK, READ response) to the completer,
 *      within a budget
 *   3. what the completer's timers decided (retransmit, RNR wait over)
 *   4. the requester: new and retransmitted request packets, within a
 *      budget
 *   5. in SQE/ERR: flush the SQ
 * The responder:
 *   1. received requests, within a budget (sroce_resp_rcv())
 *   2. its pending replies (sroce_resp_run()); pushed back, it retries
 *      from @resp_timer
 *   3. in ERR: flush the RQ (sroce_resp_flush())
 *
 * The two share no state: a QP that both sends and answers (every
 * ping-pong) has its responder place a request and ACK it on one CPU while
 * its requester sends the next message from another, as rdma_rxe's
 * separate requester, completer and responder tasks allow.
 *
 * A run that used up a budget requeues the work instead of looping, so one
 * busy QP does not starve others sharing the worker.
 *
 * Each side runs on its home CPU only (struct sroce_dp.home_cpu), so
 * that the packets it sends stay in order (sroce_req_pkt.c "Packet order
 * across CPUs"): each has its own work item (qp->work, dp.resp_work),
 * queued there, and a doorbell or a received packet on another CPU
 * queues that work instead of running the side inline.  A side's home is
 * the CPU it first sent from, where its runs happen anyway: the send
 * side's the one that posts, the responder's the one the requests arrive
 * on (loopback and veth deliver on the CPU that sent them), so a pair of
 * QPs keeps each direction on one CPU without a wake-up.  A user RC QP's
 * sides are placed instead (sroce_dp_place.c): the send side by its
 * doorbells, which spreads the QPs of one thread over CPUs, and the
 * responder of a peer on the same device by requests of several packets,
 * which puts one QP's two directions on two CPUs (a remote peer's
 * responder follows its requests to the CPU they arrive on, once idle).
 *
 * Serialization: a run owns its side's RUNNING bit (struct sroce_dp).  The
 * work item is the runner of last resort; sroce_dp_rx_kick() (RX softirq) and
 * sroce_dp_doorbell() (post_send) run a side inline with a small budget,
 * as rdma_rxe does: a ping-pong then needs no worker wake-up, and a busy
 * QP still moves to the work.  Whoever finds RUNNING taken sets the side's
 * KICK and leaves; the owner checks KICK after giving RUNNING back and
 * runs again (both order the bit operations with full barriers, so one of
 * them always sees the other).  Each side's state is touched only by its
 * owner, so none of it needs a lock of its own.  A spinlock would not do:
 * taken in softirq, it would force
 * runs in process context to disable BH, and every packet they send would
 * wait in this CPU's backlog (veth: netif_rx()) until the run ends; with
 * BH enabled, a packet is delivered while it is sent, as in rdma_rxe, and
 * backlogs stay short.  (Packet order across CPUs: see sroce_req_pkt.c.)
 *
 * No lost wake-up: the RX queue is drained by every run until it is empty
 * or the budget is spent (then the run requeues the work), so a packet
 * that finds the queue non-empty will be seen by a run that is pending or
 * in progress; one that finds it empty kicks a run itself.
 *
 * References: sroce_qp_schedule() takes a QP reference for the queued work,
 * which the work function drops; a received packet holds the reference its
 * lookup took until the run is done with it; each armed timer holds one,
 * and so does each request packet in flight (sroce_req_pkt.c).
 */

#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <kunit/visibility.h>

#include "sroce.h"
#include "sroce_diag.h"
#include "sroce_qp.h"
#include "sroce_trace.h"

/* Packets per run in each direction (and CQEs per flush). */
#define SROCE_DP_BUDGET		128
/* Runs inline in softirq or post_send do less, then leave it to the work. */
#define SROCE_DP_RX_INLINE_BUDGET	32
#define SROCE_DP_TX_INLINE_BUDGET	64
/* Runs one caller may do for kicks before it hands over to the work. */
#define SROCE_DP_KICK_ROUNDS	2
/* Responder pause after the network pushed back, ns. */
#define SROCE_DP_RESP_PAUSE_NS	(50 * NSEC_PER_USEC)

static bool sroce_dp_run_send(struct sroce_qp *qp, int budget);
static bool sroce_dp_run_resp(struct sroce_qp *qp, int budget);
static void sroce_dp_hop(struct sroce_qp *qp, enum sroce_dp_side side);

/**
 * sroce_dp_schedule() - make sure one side's work runs soon, at home
 * @qp: queue pair; the caller holds a reference
 * @side: which side's work
 *
 * Queues the work of @side on its home CPU (this one while it has none,
 * or it is offline).  Takes a reference for the queued work; the work
 * function drops it when it ends.  If the work is already queued, the
 * extra reference is dropped here (the queued instance will see
 * everything posted so far).
 * Context: any.
 */
void sroce_dp_schedule(struct sroce_qp *qp, enum sroce_dp_side side)
{
	struct work_struct *work = side == SROCE_DP_RESP ? &qp->dp.resp_work :
							   &qp->work;
	int cpu = READ_ONCE(qp->dp.home_cpu[side]);

	if (cpu < 0 || !cpu_online(cpu))
		cpu = WORK_CPU_UNBOUND;	/* sroce_wq is per-CPU: this one */
	sroce_qp_get(qp);
	if (!queue_work_on(cpu, sroce_wq, work))
		sroce_qp_put(qp);
}

/*
 * May @side run on this CPU, outside its work?  Only at home (or while
 * it has none or its home is offline).  The caller is not migratable.
 */
static bool sroce_dp_at_home(struct sroce_qp *qp, enum sroce_dp_side side)
{
	int home = READ_ONCE(qp->dp.home_cpu[side]);

	return home < 0 || home == raw_smp_processor_id() || !cpu_online(home);
}

/*
 * Run one side of the data path of @qp in the caller's context, or, when
 * a run of that side is in progress elsewhere, leave a kick that makes it
 * run once more.  Hands over to the work when a budget ran out or kicks
 * keep coming.  The caller holds a QP reference that outlives the call.
 * Context: not hard IRQ, IRQs enabled; does not sleep.
 */
static void sroce_dp_kick(struct sroce_qp *qp, enum sroce_dp_side side,
			  int budget)
{
	bool resp = side == SROCE_DP_RESP;
	int running = resp ? SROCE_DP_RESP_RUNNING : SROCE_DP_RUNNING;
	int kick = resp ? SROCE_DP_RESP_KICK : SROCE_DP_KICK;
	unsigned long *flags = &qp->dp.flags;
	int rounds = 0;
	bool more;

	set_bit(kick, flags);
	smp_mb__after_atomic();	/* KICK before reading RUNNING */
	while (!test_and_set_bit_lock(running, flags)) {
		/*
		 * The caller found this CPU the side's home before it owned
		 * RUNNING; a doorbell elsewhere may have moved the home since
		 * (sroce_dp_place_send()).  The run is the home's to do.
		 */
		if (unlikely(!sroce_dp_at_home(qp, side)) &&
		    !sroce_dp_stopped(qp)) {
			clear_bit_unlock(running, flags);
			sroce_dp_hop(qp, side);
			return;
		}
		lock_map_acquire_try(&qp->dp.run_map[side]);
		clear_bit(kick, flags);
		smp_mb__after_atomic();	/* kicks from now on are seen below */
		more = resp ? sroce_dp_run_resp(qp, budget) :
			      sroce_dp_run_send(qp, budget);
		lock_map_release(&qp->dp.run_map[side]);
		clear_bit_unlock(running, flags);
		smp_mb__after_atomic();	/* RUNNING clear before reading KICK */
		if (!more && !test_bit(kick, flags))
			return;
		if (more || ++rounds >= SROCE_DP_KICK_ROUNDS) {
			sroce_dp_schedule(qp, side);
			return;
		}
	}
	/* the owner sees KICK after it clears RUNNING, and runs again */
}

/*
 * Run one side of a QP's data path for received packets: inline, with
 * the small budget of a run in softirq, when no run of it is in progress,
 * else kick the run in progress; the work takes over when the budget runs
 * out or kicks keep coming.  Away from the side's home, the work does it
 * all.  The caller holds a QP reference that outlives the call.
 */
static void sroce_dp_rx_kick(struct sroce_qp *qp, enum sroce_dp_side side)
{
	if (sroce_dp_at_home(qp, side))
		sroce_dp_kick(qp, side, SROCE_DP_RX_INLINE_BUDGET);
	else
		sroce_dp_schedule(qp, side);
}

static struct sk_buff_head *sroce_dp_rx_q(struct sroce_qp *qp,
					  enum sroce_dp_side side)
{
	return side == SROCE_DP_RESP ? &qp->dp.resp_rx : &qp->rx_queue;
}

/*
 * The responder's home left its requests waiting (sroce_dp_resp_stalled()):
 * take it over here and run it (sroce_dp_take_resp()).  Its work, still
 * pending at the old home, is cancelled: left there, it would keep the
 * new home from queueing it (queue_work_on() finds it pending) until the
 * old home runs, and a run here that spends its budget would hand over
 * to a work that never comes.  Kicked whether it moved or not: a take
 * that held RESP_RUNNING without moving it may have hidden a kick from
 * its owner, and this one is then the responder's wake-up.
 */
static void sroce_dp_rx_take(struct sroce_qp *qp)
{
	/* a run elsewhere may drop the packets' references meanwhile */
	sroce_qp_get(qp);
	if (sroce_dp_take_resp(qp) && cancel_work(&qp->dp.resp_work))
		sroce_qp_put(qp);	/* sroce_dp_schedule()'s */
	sroce_dp_rx_kick(qp, SROCE_DP_RESP);
	sroce_qp_put(qp);
}

/**
 * sroce_dp_rx_queue() - queue a received packet for one side of its QP
 * @qp: destination queue pair
 * @skb: checked packet; SROCE_PKT(skb)->qp is @qp and holds a reference,
 *	which the run drops when it is done with the packet
 * @side: SROCE_DP_RESP for a request, SROCE_DP_SEND for a response
 *
 * Queues @skb for @side unless that queue already holds
 * SROCE_DP_RX_MAX_PKTS packets or SROCE_DP_RX_MAX_BYTES bytes (truesize):
 * then the packet is dropped and counted in rx_drop_backlog, so a flood
 * to one QPN cannot grow kernel memory without bound.  When the queue was
 * empty, runs that side inline or kicks its run in progress
 * (sroce_dp_rx_kick()): a non-empty queue means a run is due or in
 * progress, and a run only stops early after requeueing itself.  A request
 * behind others whose responder has not started a run for
 * SROCE_DP_RESP_STALL takes the responder over (sroce_dp_take_resp()).
 * Context: softirq, or process context with IRQs enabled; does not sleep.
 */
void sroce_dp_rx_queue(struct sroce_qp *qp, struct sk_buff *skb,
		       enum sroce_dp_side side)
{
	struct sk_buff_head *q = sroce_dp_rx_q(qp, side);
	unsigned int *bytes = &qp->dp.rx_bytes[side];
	bool was_empty, full, local = false, bulk = false;
	unsigned long flags;

	/*
	 * Read before it is queued: a run elsewhere may take it at once.
	 * Only a local peer's request can be placed by its size, so only
	 * its headers are looked at here.
	 */
	if (side == SROCE_DP_RESP) {
		local = SROCE_PKT(skb)->local;
		bulk = local && sroce_dp_bulk_req(SROCE_PKT(skb));
	}
	spin_lock_irqsave(&q->lock, flags);
	was_empty = skb_queue_empty(q);
	full = skb_queue_len(q) >= SROCE_DP_RX_MAX_PKTS ||
	       skb->truesize > SROCE_DP_RX_MAX_BYTES - *bytes;
	if (!full) {
		__skb_queue_tail(q, skb);
		*bytes += skb->truesize;
		if (was_empty && side == SROCE_DP_RESP)
			WRITE_ONCE(qp->dp.resp_queued, jiffies);
	}
	spin_unlock_irqrestore(&q->lock, flags);
	if (full) {
		sroce_counter_inc(qp->dev, SROCE_CNT_RX_DROP_BACKLOG);
		trace_sroce_drop(qp->dev, SROCE_CNT_RX_DROP_BACKLOG);
		kfree_skb(skb);
		sroce_qp_put(qp);	/* the packet's reference */
		return;
	}
	if (!was_empty) {
		/* the requests wait for a run: is their home running it? */
		if (side == SROCE_DP_RESP && sroce_dp_resp_stalled(&qp->dp))
			sroce_dp_rx_take(qp);
		return;
	}
	/* the run drops the packet's reference: keep the QP alive across it */
	sroce_qp_get(qp);
	if (side == SROCE_DP_RESP)
		sroce_dp_place_resp(qp, bulk, local);
	sroce_dp_rx_kick(qp, side);
	sroce_qp_put(qp);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_dp_rx_queue);

/* The oldest packet queued for @side, or NULL. */
static struct sk_buff *sroce_dp_rx_dequeue(struct sroce_qp *qp,
					   enum sroce_dp_side side)
{
	struct sk_buff_head *q = sroce_dp_rx_q(qp, side);
	struct sk_buff *skb;
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	skb = __skb_dequeue(q);
	if (skb)
		qp->dp.rx_bytes[side] -= skb->truesize;
	spin_unlock_irqrestore(&q->lock, flags);
	return skb;
}

/* Free every packet queued for @side and the QP reference each one held. */
static void sroce_dp_purge_rx(struct sroce_qp *qp, enum sroce_dp_side side)
{
	struct sk_buff *skb;

	while ((skb = sroce_dp_rx_dequeue(qp, side))) {
		kfree_skb(skb);
		sroce_qp_put(qp);
	}
}

/*
 * Hand up to @budget received responses to the completer (CNPs never
 * get here: congestion control consumes them on receipt).
 * Return: true when packets are left.
 */
static bool sroce_dp_rx_send(struct sroce_qp *qp, int budget)
{
	struct sk_buff *skb;
	int n;

	for (n = 0; n < budget; n++) {
		skb = sroce_dp_rx_dequeue(qp, SROCE_DP_SEND);
		if (!skb)
			return false;
		if (SROCE_PKT(skb)->mask & SROCE_MASK_ACK)
			sroce_comp_rcv(qp, skb);
		else
			kfree_skb(skb);
		/* the reference the packet's QP lookup took */
		sroce_qp_put(qp);
	}
	return !skb_queue_empty(&qp->rx_queue);
}

/*
 * Hand up to @budget received requests to the responder.
 * Return: true when packets are left.
 */
static bool sroce_dp_rx_resp(struct sroce_qp *qp, int budget)
{
	struct sk_buff *skb;
	int n;

	for (n = 0; n < budget; n++) {
		skb = sroce_dp_rx_dequeue(qp, SROCE_DP_RESP);
		if (!skb)
			return false;
		sroce_resp_rcv(qp, skb);
		/* the reference the packet's QP lookup took */
		sroce_qp_put(qp);
	}
	return !skb_queue_empty(&qp->dp.resp_rx);
}

/*
 * Take what modify_qp left: what the state allows always (snd->caps), the
 * attributes and the pending RESET / sq_psn when it flagged a change.
 * Both are read under state_lock, in which modify_qp changes them
 * together, so the whole run sees one state and its attributes.
 */
static void sroce_dp_sync(struct sroce_qp *qp)
{
	struct sroce_send *snd = &qp->dp.send;
	bool reset = false, new_psn = false;
	u32 psn = 0, prod = 0;
	unsigned long flags;

	spin_lock_irqsave(&qp->state_lock, flags);
	snd->caps = sroce_qp_state_caps_of(qp->state);
	if (test_and_clear_bit(SROCE_SEND_F_MODIFIED, &snd->flags)) {
		sroce_req_copy_attrs(qp);
		reset = snd->pend_reset;
		prod = snd->pend_reset_prod;
		new_psn = snd->pend_psn;
		psn = snd->pend_sq_psn;
		snd->pend_reset = false;
		snd->pend_psn = false;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);

	if (reset)
		sroce_req_reset(qp, prod);
	if (new_psn)
		sroce_req_set_psn(qp, psn);
	if (!(snd->caps & SROCE_QPS_SQ_DRAIN))
		snd->drained_event = false;
}

static bool sroce_dp_sq_in_error(const struct sroce_qp *qp)
{
	const struct sroce_send *snd = &qp->dp.send;

	return snd->error || (snd->caps & SROCE_QPS_SQ_FLUSH);
}

/* Is the QP being destroyed (sroce_dp_stop())?  Runs only free packets. */
bool sroce_dp_stopped(const struct sroce_qp *qp)
{
	return test_bit(SROCE_SEND_F_STOPPED, &qp->dp.send.flags);
}

/* Store @val in a user SQ's sq_flags unless it holds it already. */
static void sroce_dp_sq_flags(struct sroce_queue_hdr *hdr, u32 val)
{
	/* the provider may scribble on it: a skipped store hurts only it */
	if (READ_ONCE(hdr->sq_flags) != val)
		WRITE_ONCE(hdr->sq_flags, val);
}

/*
 * Start of a send run on a user QP: the provider need not ring while the
 * run is in progress (sroce-abi.h, SROCE_SQ_F_NEED_WAKEUP).  Return: the
 * SQ producer index now, which the run's fetches see at least, for
 * sroce_dp_sq_idle(); only ever compared, never used as an index.
 */
static u32 sroce_dp_sq_busy(struct sroce_qp *qp)
{
	struct sroce_queue_hdr *hdr = qp->sq.hdr;

	if (!qp->is_user || !hdr)
		return 0;
	sroce_dp_sq_flags(hdr, SROCE_SQ_F_WAKEUP_CAP);
	/* pairs with the provider's release store of the index */
	return smp_load_acquire(&hdr->producer);
}

/*
 * End of a send run on a user QP: keep SROCE_SQ_F_NEED_WAKEUP clear when
 * the send side is sure to run again (@more: the work is requeued; or
 * unacknowledged packets whose ACK or retransmit timeout runs it:
 * sroce_send_needs_timer(), whose timer sroce_send_check_wakeup() just
 * made sure of), else set it.  Every run reads the producer index, so a
 * WQE posted while the flag is clear is fetched by that next run.
 *
 * Setting it is a store buffering pattern with the provider: we store
 * the flag, full barrier, load the producer index; the provider stores
 * the producer index (release), full barrier, loads the flag.  One of
 * the two loads sees the other's store: the provider rings, or we see
 * the index moved past @seen (read when the run began, before it fetched
 * anything) and leave a kick, on which sroce_dp_kick() runs again (a
 * WQE fetched already by this run costs one empty run, nothing more).
 * Context: a send run (owns RUNNING).
 */
static void sroce_dp_sq_idle(struct sroce_qp *qp, bool more, u32 seen)
{
	struct sroce_queue_hdr *hdr = qp->sq.hdr;

	if (!qp->is_user || !hdr)
		return;
	if (more || sroce_send_needs_timer(qp)) {
		sroce_dp_sq_flags(hdr, SROCE_SQ_F_WAKEUP_CAP);
		return;
	}
	sroce_dp_sq_flags(hdr, SROCE_SQ_F_WAKEUP_CAP | SROCE_SQ_F_NEED_WAKEUP);
	/* a hostile index: the ring is not read again, nothing to run for */
	if (qp->dp.send.sq_broken)
		return;
	smp_mb();	/* the flag before the index: see above */
	if (READ_ONCE(hdr->producer) != seen)
		set_bit(SROCE_DP_KICK, &qp->dp.flags);
}

/*
 * One run of the send side (see the file comment).  Return: true when a
 * budget ran out and another run should follow.
 */
static bool sroce_dp_run_send(struct sroce_qp *qp, int budget)
{
	bool more;
	u32 seen;

	sroce_dp_assert_run(qp);
	if (sroce_dp_stopped(qp)) {
		sroce_dp_purge_rx(qp, SROCE_DP_SEND);
		return false;
	}
	seen = sroce_dp_sq_busy(qp);
	sroce_dp_sync(qp);
	more = sroce_dp_rx_send(qp, budget);
	sroce_retx_timers(qp);
	more |= sroce_req_run(qp, budget);
	sroce_comp_check_drained(qp);
	if (sroce_dp_sq_in_error(qp))
		more |= sroce_comp_flush(qp, budget);
	sroce_send_check_wakeup(qp);
	sroce_dp_sq_idle(qp, more, seen);
	return more;
}

static enum hrtimer_restart sroce_dp_resp_timer_fn(struct hrtimer *t)
{
	struct sroce_qp *qp = container_of(t, struct sroce_qp, dp.resp_timer);

	if (!sroce_dp_stopped(qp))
		sroce_dp_schedule(qp, SROCE_DP_RESP);
	sroce_qp_put(qp);
	return HRTIMER_NORESTART;
}

/* The network pushed the responder back: run it again after a pause. */
static void sroce_dp_resp_pause(struct sroce_qp *qp)
{
	struct hrtimer *t = &qp->dp.resp_timer;

	sroce_dp_assert_resp_run(qp);
	if (hrtimer_is_queued(t))
		return;
	sroce_qp_get(qp);
	hrtimer_start(t, ns_to_ktime(SROCE_DP_RESP_PAUSE_NS),
		      HRTIMER_MODE_REL_SOFT);
}

/*
 * One run of the responder (see the file comment).  Return: true when a
 * budget ran out and another run should follow.
 */
static bool sroce_dp_run_resp(struct sroce_qp *qp, int budget)
{
	bool more;

	sroce_dp_assert_resp_run(qp);
	if (sroce_dp_stopped(qp)) {
		sroce_dp_purge_rx(qp, SROCE_DP_RESP);
		return false;
	}
	WRITE_ONCE(qp->dp.resp_last, jiffies);
	more = sroce_dp_rx_resp(qp, budget);
	if (sroce_resp_run(qp)) {
		/* pushed back: retry after a pause, not in a hot loop */
		if (qp->dp.resp.tx_blocked)
			sroce_dp_resp_pause(qp);
		else
			more = true;
	}
	/* the QP may have entered ERR during this run (sroce_qp_error()) */
	if (sroce_qp_state_can(READ_ONCE(qp->state), SROCE_QPS_RQ_FLUSH))
		sroce_resp_flush(qp);
	return more;
}

/*
 * A side's work or run is away from the side's home: it was queued
 * before the side had one, while it was offline, or before the send side
 * moved (sroce_dp_place_send()).  Requeued from here it would run
 * here again (a work queued while it runs stays on its CPU), so
 * @hop_work, at the home, queues it there once this one has ended.
 */
static void sroce_dp_hop(struct sroce_qp *qp, enum sroce_dp_side side)
{
	set_bit(side == SROCE_DP_RESP ? SROCE_DP_RESP_HOP : SROCE_DP_HOP,
		&qp->dp.flags);
	sroce_qp_get(qp);
	if (!queue_work_on(READ_ONCE(qp->dp.home_cpu[side]), sroce_wq,
			   &qp->dp.hop_work))
		sroce_qp_put(qp);
}

static void sroce_dp_hop_work(struct work_struct *work)
{
	struct sroce_qp *qp = container_of(work, struct sroce_qp, dp.hop_work);

	if (test_and_clear_bit(SROCE_DP_HOP, &qp->dp.flags))
		sroce_dp_schedule(qp, SROCE_DP_SEND);
	if (test_and_clear_bit(SROCE_DP_RESP_HOP, &qp->dp.flags))
		sroce_dp_schedule(qp, SROCE_DP_RESP);
	sroce_qp_put(qp);
}

/*
 * Body of a side's work: run it at home (anywhere once the QP is being
 * destroyed: it only frees packets), else send the work there.
 */
static void sroce_dp_work(struct sroce_qp *qp, enum sroce_dp_side side)
{
	if (sroce_dp_at_home(qp, side) || sroce_dp_stopped(qp))
		sroce_dp_kick(qp, side, SROCE_DP_BUDGET);
	else
		sroce_dp_hop(qp, side);
	sroce_qp_put(qp);
}

/**
 * sroce_qp_work() - the send side's work item (qp->work)
 * @work: qp->work
 *
 * Runs the send side with a budget (or kicks a run of it in progress),
 * requeues itself when the budget ran out, and drops the QP reference
 * sroce_dp_schedule() took.  Away from the side's home it only moves
 * there (sroce_dp_hop()).
 * Context: process (workqueue).
 */
void sroce_qp_work(struct work_struct *work)
{
	sroce_dp_work(container_of(work, struct sroce_qp, work),
		      SROCE_DP_SEND);
}

/* The responder's work item (dp.resp_work): as sroce_qp_work(). */
static void sroce_dp_resp_work(struct work_struct *work)
{
	sroce_dp_work(container_of(work, struct sroce_qp, dp.resp_work),
		      SROCE_DP_RESP);
}

/**
 * sroce_dp_doorbell() - new send WQEs were posted
 * @qp: queue pair (the caller holds a reference, e.g. the core's)
 *
 * Runs the data path inline, with a small budget, when no run is in
 * progress and this is the send side's home CPU: the first packets leave
 * from the caller's context without waking a worker.  Otherwise it kicks
 * the run in progress; when more is left, or on another CPU, the QP's
 * work continues.
 * Context: any; inline unless in hard IRQ context or with IRQs disabled
 * (then the work is scheduled).
 */
void sroce_dp_doorbell(struct sroce_qp *qp)
{
	if (in_hardirq() || irqs_disabled()) {
		sroce_qp_schedule(qp);
		return;
	}
	/* the CPU checked is the one the run sends from */
	migrate_disable();
	sroce_dp_place_send(qp);
	if (sroce_dp_at_home(qp, SROCE_DP_SEND))
		sroce_dp_kick(qp, SROCE_DP_SEND, SROCE_DP_TX_INLINE_BUDGET);
	else
		sroce_dp_schedule(qp, SROCE_DP_SEND);
	/*
	 * In ERR the provider also rings after a post_recv: the responder
	 * flushes the new receive WQEs (sroce_resp_flush()).
	 */
	if (sroce_qp_state_can(READ_ONCE(qp->state), SROCE_QPS_RQ_FLUSH)) {
		if (sroce_dp_at_home(qp, SROCE_DP_RESP))
			sroce_dp_kick(qp, SROCE_DP_RESP,
				      SROCE_DP_TX_INLINE_BUDGET);
		else
			sroce_dp_schedule(qp, SROCE_DP_RESP);
	}
	migrate_enable();
}
EXPORT_SYMBOL_IF_KUNIT(sroce_dp_doorbell);

/**
 * sroce_dp_init() - set up the data path of a new QP
 * @qp: QP whose type, queues (qp->sq, qp->rq) and CQs are set up; not yet
 *	published
 *
 * Initialises qp->work, qp->rx_queue, the runs' lockdep maps, the route
 * cache, the
 * send side (timers, SQ shadow array), the responder
 * (sroce_resp_init()) and the SQ ring's doorbell flags (sroce-abi.h:
 * SROCE_SQ_F_NEED_WAKEUP set).  On failure
 * nothing needs undoing.
 * Context: process (GFP_KERNEL).
 * Return: 0, -EINVAL (unexpected SQ ring shape) or -ENOMEM.
 */
int sroce_dp_init(struct sroce_qp *qp)
{
	static struct lock_class_key send_key, resp_key;
	int err;

	qp->dp.flags = 0;
	qp->dp.home_cpu[SROCE_DP_SEND] = -1;	/* sroce_dp_claim_home() */
	qp->dp.home_cpu[SROCE_DP_RESP] = -1;
	qp->dp.placed_cpu = -1;
	qp->dp.resp_last = jiffies;
	qp->dp.resp_queued = jiffies;
	qp->dp.resp_taken = 0;
	qp->dp.rx_bytes[SROCE_DP_SEND] = 0;
	qp->dp.rx_bytes[SROCE_DP_RESP] = 0;
	lockdep_init_map(&qp->dp.run_map[SROCE_DP_SEND], "sroce_dp_send_run",
			 &send_key, 0);
	lockdep_init_map(&qp->dp.run_map[SROCE_DP_RESP], "sroce_dp_resp_run",
			 &resp_key, 0);
	err = dst_cache_init(&qp->dst_cache, GFP_KERNEL_ACCOUNT);
	if (err)
		return err;
	skb_queue_head_init(&qp->rx_queue);
	skb_queue_head_init(&qp->dp.resp_rx);
	hrtimer_init(&qp->dp.resp_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	qp->dp.resp_timer.function = sroce_dp_resp_timer_fn;
	INIT_WORK(&qp->work, sroce_qp_work);
	INIT_WORK(&qp->dp.resp_work, sroce_dp_resp_work);
	INIT_WORK(&qp->dp.hop_work, sroce_dp_hop_work);
	err = sroce_req_init(qp);
	if (err) {
		dst_cache_destroy(&qp->dst_cache);
		return err;
	}
	sroce_resp_init(qp);
	/* no run yet: the provider rings after its first post */
	if (qp->sq.hdr)
		WRITE_ONCE(qp->sq.hdr->sq_flags,
			   SROCE_SQ_F_WAKEUP_CAP | SROCE_SQ_F_NEED_WAKEUP);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_dp_init);

/*
 * The SQ producer index at a move to RESET, what the reset discards up
 * to.  A kernel QP's posts are taken under sq_lock: a post_send is wholly
 * before the move or wholly after it.  (A user QP's producer is only
 * read: its WQEs are checked when they are fetched.)
 */
static u32 sroce_dp_sq_producer(struct sroce_qp *qp)
{
	u32 prod;

	lockdep_assert_held(&qp->state_lock);
	if (!qp->sq.hdr)
		return qp->sq.kidx;
	if (qp->is_user)	/* pairs with the provider's release store */
		return smp_load_acquire(&qp->sq.hdr->producer);
	spin_lock(&qp->sq_lock);
	prod = qp->sq.hdr->producer;
	spin_unlock(&qp->sq_lock);
	return prod;
}

/**
 * sroce_dp_modify() - tell the data path about a modify_qp
 * @qp: queue pair; qp->attr and qp->state already hold the new values
 * @mask: IB_QP_* attributes that changed
 * @old_state: state before the change
 *
 * Leaves the news for the next run: a move to RESET (discard the WQEs
 * posted until now, clear PSNs and counters) and a new sq_psn (at RTS);
 * the run also copies the attributes (path, MTU, timeout, retry counts,
 * max_rd_atomic ...) and what the new state allows (SQD stops new WQEs
 * from starting; SQE and ERR flush).  A move to RESET also returns the
 * congestion control state to that of a new QP at once
 * (sroce_cc_qp_reset(): line rate, no CNP sent; IBTA 10.3.1.1, the QP
 * keeps nothing from before).  Calls
 * sroce_resp_modify() with the same arguments, then schedules the work.
 * Context: qp->state_lock held.
 */
void sroce_dp_modify(struct sroce_qp *qp, int mask,
		     enum ib_qp_state old_state)
{
	struct sroce_send *snd = &qp->dp.send;

	lockdep_assert_held(&qp->state_lock);
	if ((mask & IB_QP_STATE) && qp->state == IB_QPS_RESET) {
		snd->pend_reset = true;
		snd->pend_reset_prod = sroce_dp_sq_producer(qp);
		snd->pend_psn = false;
		sroce_cc_qp_reset(qp);
	}
	if (mask & IB_QP_SQ_PSN) {
		snd->pend_psn = true;
		snd->pend_sq_psn = qp->attr.sq_psn;
	}
	set_bit(SROCE_SEND_F_MODIFIED, &snd->flags);
	sroce_resp_modify(qp, mask, old_state);
	sroce_qp_schedule(qp);
}

/*
 * Wait until no run of @side is in progress (and none can start: the
 * caller set STOPPED), then, when @last is given, run it as the side's
 * last run (BH off, as in softirq).  For lockdep this takes the run's map
 * as a lock: waiting for a run while holding a lock the run takes would
 * hang.
 */
static void sroce_dp_wait_run(struct sroce_qp *qp, enum sroce_dp_side side,
			      void (*last)(struct sroce_qp *qp))
{
	int bit = sroce_dp_run_bit(side);

	lock_map_acquire(&qp->dp.run_map[side]);
	while (test_and_set_bit_lock(bit, &qp->dp.flags))
		usleep_range(20, 100);
	if (last) {
		local_bh_disable();
		last(qp);
		local_bh_enable();
	}
	clear_bit_unlock(bit, &qp->dp.flags);
	lock_map_release(&qp->dp.run_map[side]);
}

static void sroce_dp_cancel_work(struct sroce_qp *qp)
{
	/* a queued (not yet running) work holds a reference */
	if (cancel_work_sync(&qp->dp.hop_work))
		sroce_qp_put(qp);
	if (cancel_work_sync(&qp->work))
		sroce_qp_put(qp);
	if (cancel_work_sync(&qp->dp.resp_work))
		sroce_qp_put(qp);
}

/* A timer cancelled while pending: its arm and its reference end here. */
static void sroce_dp_cancel_timer(struct sroce_qp *qp, struct timer_list *t)
{
	if (del_timer_sync(t)) {
		atomic_dec(sroce_send_timer_held(&qp->dp.send, t));
		sroce_qp_put(qp);
	}
}

/**
 * sroce_dp_stop() - stop the data path of a QP being destroyed
 * @qp: queue pair, already unpublished (no new lookups find it)
 *
 * Waits for a run in progress, sends the responder's owed ACK
 * (sroce_resp_send_owed()), cancels the work and the timers (dropping
 * the references they held), frees the queued packets (and their
 * references), stops the responder (sroce_resp_stop()) and frees the send
 * side.  A packet that was being looked up when the QP was unpublished
 * may still be queued later: the run it schedules only frees it.
 * Context: process, may sleep.
 */
void sroce_dp_stop(struct sroce_qp *qp)
{
	struct sroce_send *snd = &qp->dp.send;

	set_bit(SROCE_SEND_F_STOPPED, &snd->flags);
	/* runs in progress finish; later runs and timers see STOPPED */
	sroce_dp_wait_run(qp, SROCE_DP_SEND, NULL);
	sroce_dp_wait_run(qp, SROCE_DP_RESP, sroce_resp_send_owed);
	sroce_dp_cancel_work(qp);
	if (hrtimer_cancel(&qp->dp.resp_timer))
		sroce_qp_put(qp);
	sroce_dp_cancel_timer(qp, &snd->retrans_timer);
	sroce_dp_cancel_timer(qp, &snd->rnr_timer);
	if (hrtimer_cancel(&snd->tx_timer))
		sroce_qp_put(qp);
	/* a timer that fired before it saw STOPPED may have queued the work */
	sroce_dp_cancel_work(qp);
	sroce_dp_purge_rx(qp, SROCE_DP_SEND);
	sroce_dp_purge_rx(qp, SROCE_DP_RESP);
	sroce_dp_count_home(qp, -1);	/* counted only where it spreads */
	sroce_resp_stop(qp);
	sroce_req_cleanup(qp);
	dst_cache_destroy(&qp->dst_cache);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_dp_stop);
