/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-QP data path state (requester, completer, responder) and the hooks
 * the QP state machine calls.  Owned by sroce_dp.c, sroce_req*.c,
 * sroce_comp.c, sroce_retx.c and sroce_resp.c (the responder interface
 * below).
 */
#ifndef SROCE_DP_H
#define SROCE_DP_H

#include <linux/types.h>
#include <linux/hrtimer.h>
#include <linux/skbuff.h>
#include <linux/timer.h>
#include <linux/bitops.h>
#include <linux/bug.h>
#include <linux/lockdep.h>

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
	SROCE_DP_HOP,		/* @hop_work queues the send side's work */
	SROCE_DP_RESP_HOP,	/* ... and the responder's */
};

/* @side's RUNNING bit in struct sroce_dp.flags */
static inline int sroce_dp_run_bit(enum sroce_dp_side side)
{
	return side == SROCE_DP_RESP ? SROCE_DP_RESP_RUNNING : SROCE_DP_RUNNING;
}

/**
 * struct sroce_dp - data path state of one QP
 * @flags: enum sroce_dp_flag bits (atomic bit operations).  A side's
 *	RUNNING bit is the ownership of that side's runs: the work item,
 *	sroce_dp_rx_kick() (RX softirq) and sroce_dp_doorbell() (post_send)
 *	take it
 *	with test_and_set_bit_lock(); whoever finds it taken sets the side's
 *	KICK instead, and the owner runs again before it leaves (a doorbell
 *	that takes it only to move the send side, sroce_dp_place_send(),
 *	leaves the run to the kick or work that follows it).  No one
 *	spins, and runs in process context keep BH enabled, so a packet a
 *	run sends is normally delivered before the next one; each side
 *	sends from one CPU at a time (packet order: sroce_req_pkt.c).  Runs
 *	do not sleep (GFP_ATOMIC).
 * @resp_rx: received requests waiting for the responder (responses wait
 *	in the QP's rx_queue for the send side)
 * @rx_bytes: truesize of the packets queued for each side (by enum
 *	sroce_dp_side: qp->rx_queue, @resp_rx), under that queue's lock;
 *	with the queue length it bounds the backlog (sroce_dp_rx_queue())
 * @resp_timer: retries the responder after the network pushed back; holds
 *	a QP reference while queued
 * @home_cpu: each side's home (by enum sroce_dp_side), the only CPU it
 *	runs and sends from while that CPU is online, so that its packets
 *	stay in order (sroce_req_pkt.c "Packet order across CPUs"): the CPU
 *	it first sent from (sroce_dp_claim_home()), -1 until then.  The
 *	send side's moves only while every packet it sent is acknowledged
 *	(sroce_dp_place_send()); the responder's when its peer is on the
 *	same device, whose packets wait in no CPU's queue, or, for a peer
 *	elsewhere, to where its requests arrive after an idle spell
 *	(sroce_dp_place_resp()); any responder's, to where its requests
 *	arrive, when its home leaves them waiting (sroce_dp_take_resp())
 * @resp_last: jiffies of the responder's last run (its start)
 * @resp_queued: jiffies of the last request that found @resp_rx empty
 * @resp_taken: jiffies of the last time a CPU took the responder over from
 *	a home that left its requests waiting (sroce_dp_take_resp())
 * @placed_cpu: the CPU whose count of placed send sides (struct
 *	sroce_dev.send_homes) counts this QP's send side, the home its
 *	doorbell placed it at (sroce_dp_place_send()); -1 when not counted
 *	(kernel, UC and UD QPs; a user RC one that a run claimed first is
 *	counted by sroce_dp_claim_home())
 * @resp_work: the responder's work item (qp->work is the send side's)
 * @hop_work: queues a side's work again at its home, for a work or run
 *	that found itself elsewhere (queued before the side had a home, or
 *	before the send side moved): a work requeued while it runs stays on
 *	its CPU
 * @send: send-side state: requester and completer (sroce_req*.c,
 *	sroce_comp.c, sroce_retx.c), owned by the send side's RUNNING
 * @resp: responder state (sroce_resp.c, sroce_resp_out.c), owned by
 *	RESP_RUNNING
 * @run_map: lockdep's view of each side's RUNNING bit (by enum
 *	sroce_dp_side): taken as a trylock with the bit, so lockdep sees
 *	the locks a run takes (state_lock, CQ locks) nest inside it, and
 *	sroce_dp_assert_run() / sroce_dp_assert_resp_run() check that the
 *	caller is inside a run; destroy's wait for a run is an acquisition
 *	(empty without CONFIG_LOCKDEP)
 *
 * @send and @resp are touched only by the owner of their side's RUNNING
 * bit or, where noted, under the QP's state_lock.
 */
struct sroce_dp {
	unsigned long flags;
	struct sk_buff_head resp_rx;
	unsigned int rx_bytes[2];
	struct hrtimer resp_timer;
	int home_cpu[2];
	unsigned long resp_last;
	unsigned long resp_queued;
	unsigned long resp_taken;
	int placed_cpu;
	struct work_struct resp_work;
	struct work_struct hop_work;
	struct sroce_send send;
	struct sroce_resp resp;
	struct lockdep_map run_map[2];
};

/*
 * Received packets one side of a QP may have queued (struct sroce_dp):
 * beyond either bound, packets are dropped and counted in
 * rx_drop_backlog, as a NIC drops when its ring is full; the peer
 * retransmits (RC) or loses them (UC, UD).  A run takes SROCE_DP_BUDGET
 * packets at a time, and a peer keeps at most its window of packets in
 * flight (sroce's requester: SROCE_REQ_WINDOW PSNs, each a request or a
 * READ response): 1024 packets are four such windows, more than a
 * netdev backlog (netdev_max_backlog, 1000 by default) holds in total.
 * The byte bound keeps jumbo packets to 4 MiB per queue.
 */
#define SROCE_DP_RX_MAX_PKTS	1024
#define SROCE_DP_RX_MAX_BYTES	(4U << 20)

/*
 * sroce_dp_assert_run() - the caller is inside a run of the QP's send
 * side (owns RUNNING); sroce_dp_assert_resp_run() - inside a run of its
 * responder.  Checked by lockdep (struct sroce_dp.run_map), as
 * lockdep_assert_held() checks a lock; nothing without CONFIG_LOCKDEP.
 */
#define sroce_dp_assert_run(qp) \
	lockdep_assert(lock_is_held(&(qp)->dp.run_map[SROCE_DP_SEND]))
#define sroce_dp_assert_resp_run(qp) \
	lockdep_assert(lock_is_held(&(qp)->dp.run_map[SROCE_DP_RESP]))

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

/*
 * Queue the work of one side of the QP's data path on that side's home
 * CPU (this CPU while it has none or it is offline); takes a QP reference
 * for the queued work.  sroce_qp_schedule() queues both.  Context: any.
 */
void sroce_dp_schedule(struct sroce_qp *qp, enum sroce_dp_side side);

/*
 * A side of the data path is about to send from this CPU: the first
 * time, it becomes the side's home (struct sroce_dp.home_cpu).
 * Context: a run of @side, not migratable.
 */
void sroce_dp_claim_home(struct sroce_qp *qp, enum sroce_dp_side side);
void sroce_dp_count_home(struct sroce_qp *qp, int cpu);
bool sroce_dp_stopped(const struct sroce_qp *qp);
/*
 * Placement (sroce_dp_place.c): a doorbell on this CPU places the send
 * side; a request that arrived on it (sroce_dp_bulk_req(): of a transfer
 * of several packets? @local: from a QP of this device) the responder.
 * The caller is not migratable.
 */
void sroce_dp_place_send(struct sroce_qp *qp);
void sroce_dp_place_resp(struct sroce_qp *qp, bool bulk, bool local);
bool sroce_dp_take_resp(struct sroce_qp *qp);
bool sroce_dp_bulk_req(const struct sroce_pkt_info *pkt);
int sroce_dp_dev_init(struct sroce_dev *dev);

/*
 * Requests that have waited this long, with no responder run started
 * since they came, show that its home CPU does not run it (a vCPU the
 * host does not schedule): sroce_dp_take_resp().  20 ms, under a peer's
 * local ACK timeout (sroce's retransmit timeout is at least 50 ms;
 * perftest's timeout 14 is 67 ms).  A takeover needs a request that
 * arrives: a peer that waits on its ACK timeout first spends one retry,
 * and its retransmission takes the responder over.
 */
#define SROCE_DP_RESP_STALL	(HZ / 50)

/*
 * May the responder of a request queued behind others on this CPU have
 * stalled at its home elsewhere?  Requests have waited SROCE_DP_RESP_STALL
 * (since the first of them found the queue empty, or since the last run
 * started, whichever is later).  The cheap test before
 * sroce_dp_take_resp().  The caller is not migratable.
 */
static inline bool sroce_dp_resp_stalled(const struct sroce_dp *dp)
{
	unsigned long last = READ_ONCE(dp->resp_last);
	unsigned long queued = READ_ONCE(dp->resp_queued);
	int home = READ_ONCE(dp->home_cpu[SROCE_DP_RESP]);

	if (time_after(queued, last))
		last = queued;
	return home >= 0 && home != raw_smp_processor_id() &&
	       time_after(jiffies, last + SROCE_DP_RESP_STALL);
}

/* The QP's work item function (sroce_qp.work), sroce_dp.c. */
void sroce_qp_work(struct work_struct *work);

void sroce_dp_rx_queue(struct sroce_qp *qp, struct sk_buff *skb,
		       enum sroce_dp_side side);

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
void sroce_resp_send_owed(struct sroce_qp *qp);
void sroce_resp_stop(struct sroce_qp *qp);

#endif /* SROCE_DP_H */
