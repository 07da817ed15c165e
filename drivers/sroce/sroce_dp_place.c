// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_dp_place.c - where each side of a QP's data path runs.
 *
 * Each side sends from one CPU at a time, its home (struct
 * sroce_dp.home_cpu), so that its packets stay in order (sroce_req_pkt.c
 * "Packet order across CPUs"); sroce_dp.c runs a side nowhere else.  A
 * side's home is the CPU it first sends from (sroce_dp_claim_home()), and
 * for user RC QPs it is placed instead, so that one thread's QPs, and the
 * two directions of one QP, use every CPU: the send side by its doorbells
 * ("Spreading send sides over CPUs"), the responder by its requests
 * ("Placing a responder").  Each placement owns the side's RUNNING bit
 * while it moves the home; a run that starts later finds the move once it
 * owns the bit and hops (sroce_dp_kick()).
 */

#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <kunit/visibility.h>

#include "sroce.h"
#include "sroce_qp.h"

/*
 * Spreading send sides over CPUs.  A home is where the posting thread
 * runs, so a ping-pong needs no wake-up; but an application that drives
 * several QPs from one thread would then have every side of every QP on
 * its CPU (the responders too: veth and loopback deliver on the sending
 * CPU) while the others idle.  So a user RC send side is placed by its
 * doorbells: at the first, and after it sat quiescent (every packet it
 * sent acknowledged) for SROCE_DP_PLACE_IDLE, it goes to the posting
 * CPU, unless that CPU is home to more of the device's placed send sides
 * than a second choice, another online CPU picked by QPN (two random
 * choices, with the QPN for the draw).  A QP in use stays put, so a
 * placement sticks while traffic flows.  Moving keeps packet order: an
 * ACK covers every request sent so far, so none can still wait in the
 * old CPU's queues (a resent duplicate can, and the responder answers it
 * as one; after a reset, what the old connection left queued is dropped
 * as such).  A run that was about to start at the old home finds the
 * move once it owns RUNNING and hops (sroce_dp_kick()).  UC and UD get no
 * ACK and never move; kernel QPs, posted to from every CPU a ULP runs
 * on, keep the first CPU they send from.
 */
#define SROCE_DP_PLACE_IDLE	(HZ / 100)

/* Is @qp's send side one that is placed and counted (a user RC one)? */
static bool sroce_dp_spreads(const struct sroce_qp *qp)
{
	return qp->dev->send_homes && qp->is_user &&
	       sroce_qpt_reliable(qp->type);
}

/**
 * sroce_dp_count_home() - count a send side at another CPU
 * @qp: queue pair
 * @cpu: where it is counted from now on (struct sroce_dev.send_homes);
 *	-1: nowhere (destroy)
 *
 * Uncounts it where it was counted (struct sroce_dp.placed_cpu), if
 * anywhere.  Context: any; the counts are atomics.
 */
void sroce_dp_count_home(struct sroce_qp *qp, int cpu)
{
	int was = xchg(&qp->dp.placed_cpu, cpu);

	if (was >= 0)
		atomic_dec(&qp->dev->send_homes[was]);
	if (cpu >= 0)
		atomic_inc(&qp->dev->send_homes[cpu]);
}

/**
 * sroce_dp_claim_home() - a side of the data path sends from this CPU
 * @qp: queue pair
 * @side: the side about to send
 *
 * The first time a side sends, this CPU becomes its home (struct
 * sroce_dp.home_cpu): for the send side the CPU that posts, for the
 * responder the one its requests arrive on.  A user RC send side that no
 * doorbell placed (a run took it first) is counted there as if placed.
 * Context: a run of @side, not migratable.
 */
void sroce_dp_claim_home(struct sroce_qp *qp, enum sroce_dp_side side)
{
	int *home = &qp->dp.home_cpu[side];
	int cpu = raw_smp_processor_id();

	if (likely(READ_ONCE(*home) >= 0) || cmpxchg(home, -1, cpu) != -1)
		return;
	if (side == SROCE_DP_SEND && sroce_dp_spreads(qp))
		sroce_dp_count_home(qp, cpu);
}

/*
 * Where a side should be placed, posted to (or its requests received) on
 * @cpu: there, unless the QPN's second choice is home to fewer placed send
 * sides (@qp's own not counted).
 */
static int sroce_dp_pick_home(const struct sroce_qp *qp, int cpu)
{
	atomic_t *homes = qp->dev->send_homes;
	unsigned int n = num_online_cpus();
	int here, there, placed = READ_ONCE(qp->dp.placed_cpu);
	unsigned int alt;

	if (n < 2)
		return cpu;
	/* the online CPUs but @cpu, numbered: @cpu's place goes to the last */
	alt = cpumask_nth(qp->ibqp.qp_num % (n - 1), cpu_online_mask);
	if (alt == cpu)
		alt = cpumask_nth(n - 1, cpu_online_mask);
	if (alt >= nr_cpu_ids || alt == cpu)
		return cpu;
	here = atomic_read(&homes[cpu]) - (placed == cpu);
	there = atomic_read(&homes[alt]) - (placed == alt);
	return there < here ? alt : cpu;
}

/*
 * Own @side's RUNNING bit, as a run does, to move its home: no run sends
 * from the old home meanwhile, and a run that starts later checks its
 * home once it owns the bit (sroce_dp_kick()).  Never waits: false while
 * a run (or another placement) has it, and the side stays where it is.
 */
static bool sroce_dp_place_own(struct sroce_qp *qp, enum sroce_dp_side side)
{
	if (test_and_set_bit_lock(sroce_dp_run_bit(side), &qp->dp.flags))
		return false;
	lock_map_acquire_try(&qp->dp.run_map[side]);
	return true;
}

/* Give back what sroce_dp_place_own() took. */
static void sroce_dp_place_release(struct sroce_qp *qp,
				   enum sroce_dp_side side)
{
	lock_map_release(&qp->dp.run_map[side]);
	clear_bit_unlock(sroce_dp_run_bit(side), &qp->dp.flags);
}

/**
 * sroce_dp_place_send() - place a send side at a doorbell
 * @qp: queue pair whose SQ was rung on this CPU
 *
 * See "Spreading send sides over CPUs" above.  Owns RUNNING while it
 * checks, so no run sends meanwhile; a kick left then is served by the
 * run or work the doorbell starts next.
 * Context: not migratable (sroce_dp_doorbell()).
 */
void sroce_dp_place_send(struct sroce_qp *qp)
{
	struct sroce_send *snd = &qp->dp.send;
	int want, home = READ_ONCE(qp->dp.home_cpu[SROCE_DP_SEND]);

	if (!sroce_dp_spreads(qp))
		return;
	/* in use (or not acknowledged) lately: stays */
	if (home >= 0 && time_before(jiffies, READ_ONCE(snd->last_progress) +
				     SROCE_DP_PLACE_IDLE))
		return;
	want = sroce_dp_pick_home(qp, raw_smp_processor_id());
	if ((want == home && READ_ONCE(qp->dp.placed_cpu) == home) ||
	    !sroce_dp_place_own(qp, SROCE_DP_SEND))
		return;
	if (snd->comp_psn == snd->max_psn && !snd->rnr_wait &&
	    !sroce_dp_stopped(qp)) {
		WRITE_ONCE(qp->dp.home_cpu[SROCE_DP_SEND], want);
		sroce_dp_count_home(qp, want);
		if (home >= 0 && home != want)
			sroce_counter_inc(qp->dev, SROCE_CNT_SEND_MOVES);
	}
	sroce_dp_place_release(qp, SROCE_DP_SEND);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_dp_place_send);

/*
 * Placing a responder.  Requests arrive on the CPU that sent them
 * (loopback hands them over inside the sender's run; veth delivers on
 * the sending CPU), so a responder that runs where they arrive places
 * the data on the requester's CPU, packet after packet, while another
 * CPU may idle: one QP's transfer would use one CPU.  So a request that
 * is part of a transfer of several packets (a FIRST or MIDDLE packet, or
 * a READ of more than SROCE_DP_BULK_READ bytes) moves the responder to
 * the QPN's second choice (sroce_dp_pick_home()) when that CPU is home
 * to fewer of the device's placed send sides (the requester's included),
 * and it places data there while the requester goes on building packets.
 * A single-packet request after SROCE_DP_PLACE_IDLE without a responder
 * run brings it back, so a ping-pong needs no wake-up.
 *
 * Moves to a second CPU only for a peer on the same device (the request came
 * by loopback, SROCE_PKT()->local): the responder's packets go by loopback
 * too, within its run, and wait in no CPU's queue, so a move keeps them in
 * order.  A peer elsewhere keeps its responder where its requests arrive:
 * responses from another CPU arrive at the peer on that CPU, and a peer whose
 * requester runs where its responses arrive (rdma_rxe 6.1's tasks) then sends
 * from two CPUs and reorders its own requests (a veth bench of rdma_rxe ->
 * sroce with the responder placed for remote peers too: sequence NAKs 0 ->
 * 3,025, rdma_rxe's retries 223 -> 1,027).
 *
 * Where a remote peer's requests arrive changes when its requester moves
 * (sroce's own send sides are placed by their doorbells after an idle
 * spell).  A responder left behind would then be woken on its old CPU
 * for every burst of requests, and wait there whenever that CPU does not
 * run it (a busy host: its peer's ACK timeouts count against the retry
 * budget meanwhile).  So a request after SROCE_DP_PLACE_IDLE without a
 * responder run moves a remote peer's responder to the CPU it arrived
 * on, when the responder has nothing left to send and no retry of a send
 * pending (sroce_dp_resp_quiet()): what it sent before went long ago,
 * and its responses leave from where the peer's requests come from, as
 * before the peer moved.  User RC QPs only (sroce_dp_spreads()).
 *
 * A home that does not run its responder at all is a different case: on
 * a busy host, the vCPU may not be scheduled for longer than the peer's
 * retry budget (traced: a one-device ib_send_bw whose responder sat on
 * the other vCPU answered its 7 retries only after the send had failed).
 * A request that finds others waiting for SROCE_DP_RESP_STALL, with no
 * responder run started since they came, takes the responder over on the
 * CPU it arrived on (sroce_dp_take_resp()), whatever the QP: there it
 * runs at once.  Bulk placement then leaves it there for
 * SROCE_DP_TAKEN_HOLD, so that the next request does not send it back to
 * the CPU that stalled.
 */
#define SROCE_DP_BULK_READ	4096
#define SROCE_DP_TAKEN_HOLD	HZ

/**
 * sroce_dp_bulk_req() - is a request part of a transfer of several packets?
 * @pkt: a checked request (its headers linear)
 *
 * Return: true for a FIRST or MIDDLE packet, or a READ request of more
 * than SROCE_DP_BULK_READ bytes (IBTA 9.4.3: its responses are several).
 */
bool sroce_dp_bulk_req(const struct sroce_pkt_info *pkt)
{
	const struct sroce_reth *reth;

	if (!(pkt->mask & SROCE_MASK_END))
		return true;
	if (!(pkt->mask & SROCE_MASK_READ))
		return false;
	reth = sroce_pkt_hdr(pkt, SROCE_HDR_RETH);
	return be32_to_cpu(reth->len) > SROCE_DP_BULK_READ;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_dp_bulk_req);

/*
 * Has @qp's responder nothing left to send, nor a retry of a send pending?
 * A remote peer's responder moves only then: its responses may wait in the
 * old home's queues, and the ones it still has would otherwise leave from
 * the new home ahead of them.  The caller owns RESP_RUNNING.
 */
static bool sroce_dp_resp_quiet(struct sroce_qp *qp)
{
	struct sroce_resp *resp = to_sroce_resp(qp);

	return list_empty(&resp->out) && !resp->tx_blocked &&
	       !hrtimer_is_queued(&qp->dp.resp_timer);
}

/* Was the responder taken over from a stalled home in the last second? */
static bool sroce_dp_taken_lately(const struct sroce_qp *qp)
{
	unsigned long taken = READ_ONCE(qp->dp.resp_taken);

	return taken && time_before(jiffies, taken + SROCE_DP_TAKEN_HOLD);
}

/**
 * sroce_dp_place_resp() - place a responder for a request
 * @qp: queue pair whose request arrived on this CPU
 * @bulk: the request is part of a transfer of several packets
 *	(sroce_dp_bulk_req())
 * @local: it came from a QP of the same device (SROCE_PKT()->local); a
 *	remote peer's responder only follows its requests after an idle
 *	spell, with nothing left to send
 *
 * See "Placing a responder" above.  Owns RESP_RUNNING while it moves the
 * home, as sroce_dp_place_send() owns RUNNING: a run that starts later
 * checks its home once it owns the bit (sroce_dp_kick()); while a run is
 * in progress, the responder stays where it is.
 * Context: sroce_dp_rx_queue()'s (a received packet's), not migratable.
 */
void sroce_dp_place_resp(struct sroce_qp *qp, bool bulk, bool local)
{
	int *home = &qp->dp.home_cpu[SROCE_DP_RESP];
	int was = READ_ONCE(*home), cpu = raw_smp_processor_id(), want;

	if (!sroce_dp_spreads(qp))
		return;
	if (bulk && local) {
		if (was >= 0 && was != cpu)
			return;		/* away already */
		if (sroce_dp_taken_lately(qp))
			return;		/* its second choice stalled lately */
		want = sroce_dp_pick_home(qp, cpu);
	} else {
		if (was < 0 || was == cpu ||
		    time_before(jiffies, READ_ONCE(qp->dp.resp_last) +
				SROCE_DP_PLACE_IDLE))
			return;
		want = cpu;
	}
	if (want == was || (want == cpu && was < 0))
		return;			/* the first packet it sends claims it */
	if (!sroce_dp_place_own(qp, SROCE_DP_RESP))
		return;
	if (READ_ONCE(*home) == was && (local || sroce_dp_resp_quiet(qp))) {
		WRITE_ONCE(*home, want);
		sroce_counter_inc(qp->dev, SROCE_CNT_RESP_MOVES);
	}
	sroce_dp_place_release(qp, SROCE_DP_RESP);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_dp_place_resp);

/**
 * sroce_dp_take_resp() - run a responder here that its home does not run
 * @qp: queue pair whose request just queued behind others on this CPU
 *	(sroce_dp_resp_stalled() said so)
 *
 * Requests have waited SROCE_DP_RESP_STALL with no responder run started
 * since: the responder's home CPU is not running it.  It moves here, where
 * its requests arrive, and the caller runs it; the work queued at the old
 * home finds itself away and hops.  Responses it sent from there may
 * still wait in that CPU's queues and reach the peer after newer ones: a
 * newer ACK covers the older PSNs (IBTA 9.7.5.1.1, coalesced) and the
 * older is then a duplicate; a READ response that is missing is asked for
 * again (9.7.5.1.6).  That costs less than the peer's retry budget spent
 * on a responder that is never run.  A run in progress keeps the
 * responder (its CPU stopped inside it): nothing else may run it.
 * Counted in resp_takeovers.
 * Context: sroce_dp_rx_queue()'s (a received packet's), not migratable.
 * Return: true when the responder moved here.
 */
bool sroce_dp_take_resp(struct sroce_qp *qp)
{
	bool moved;

	if (!sroce_dp_place_own(qp, SROCE_DP_RESP))
		return false;
	/*
	 * Again with the bit: a run at the old home may have started and
	 * ended since the caller looked, and a home only changes under it.
	 */
	moved = sroce_dp_resp_stalled(&qp->dp);
	if (moved) {
		WRITE_ONCE(qp->dp.home_cpu[SROCE_DP_RESP],
			   raw_smp_processor_id());
		/* as a run would: no other CPU takes it meanwhile */
		WRITE_ONCE(qp->dp.resp_last, jiffies);
		WRITE_ONCE(qp->dp.resp_taken, jiffies | 1);
		sroce_counter_inc(qp->dev, SROCE_CNT_RESP_TAKEOVERS);
	}
	sroce_dp_place_release(qp, SROCE_DP_RESP);
	return moved;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_dp_take_resp);

/**
 * sroce_dp_dev_init() - set up a device's count of placed send sides
 * @dev: device being created
 *
 * Context: process (GFP_KERNEL).
 * Return: 0 or -ENOMEM.  Freed with the device's other fields.
 */
int sroce_dp_dev_init(struct sroce_dev *dev)
{
	dev->send_homes = kcalloc(nr_cpu_ids, sizeof(*dev->send_homes),
				  GFP_KERNEL);
	return dev->send_homes ? 0 : -ENOMEM;
}
