/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_send.h - the send side of one QP: state shared by the requester
 * (sroce_req.c, sroce_req_pos.c, sroce_req_pkt.c), the completer (sroce_comp.c) and the
 * retransmission policy (sroce_retx.c), and the calls between them and
 * the QP work loop (sroce_dp.c).
 *
 * The send queue as the send side sees it, in free-running 32-bit indices
 * of the SQ ring (slot = index & (num - 1)):
 *
 *   qp->sq.kidx       oldest WQE not yet completed (the ring's consumer
 *                     index, published to the producer as WQEs complete,
 *                     in order)
 *   send.send_idx     WQE the requester sends next (go-back-N moves it back)
 *   send.issued_idx   one past the newest WQE that was ever started;
 *                     WQEs in [kidx, issued_idx) have their PSNs assigned
 *   send.fetch_idx    one past the newest WQE copied out of the ring
 *
 *   kidx <= send_idx <= issued_idx <= fetch_idx <= producer
 *
 * PSNs (24 bits, compared with sroce_psn_diff()):
 *
 *   send.comp_psn     oldest PSN not acknowledged (for an RDMA READ at the
 *                     head: the first response PSN still missing)
 *   send.psn          PSN of the next packet the requester sends
 *   send.max_psn      one past the newest PSN ever sent
 *
 * Everything below is touched only by the QP's send-side run (the work
 * item, sroce_dp_rx_kick() or sroce_dp_doorbell()), which owns the QP's
 * RUNNING bit (struct sroce_dp); the exceptions are @flags (atomic bit operations,
 * set by timers and sroce_dp_modify()) and the pend_* members (under
 * qp->state_lock).
 */
#ifndef SROCE_SEND_H
#define SROCE_SEND_H

#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/timer.h>
#include <linux/hrtimer.h>
#include <rdma/ib_verbs.h>
#include <uapi/rdma/sroce-abi.h>

#include "sroce_hdr.h"

#include "sroce_av.h"
#include "sroce_mr.h"

struct sroce_net_batch;
struct sroce_qp;
struct sroce_pkt_info;
struct sk_buff;

/* Packets of one message between AckReq bits (IBTA 9.7.2; rxe: 64). */
#define SROCE_REQ_ACK_EVERY	64
/*
 * PSNs the requester may run ahead of the oldest unacknowledged one.  With
 * ACKs every SROCE_REQ_ACK_EVERY packets this keeps the pipe full, and a
 * go-back-N burst plus the originals still queued stays below a netdev
 * backlog (netdev_max_backlog, 1000 by default).
 */
#define SROCE_REQ_WINDOW	256
/*
 * PSNs one RDMA READ request asks for: a READ WQE goes out as several READ
 * requests of at most this many response packets, so the PSN window paces
 * READ responses as it paces writes, and a retry replays one chunk at most.
 * Each chunk is an ordinary READ request on the wire and holds one of the
 * max_rd_atomic initiator slots while its responses are due (IBTA 9.5).
 */
#define SROCE_REQ_READ_CHUNK	(SROCE_REQ_WINDOW / 2)
/*
 * Congestion window after a loss (PSNs): a loss episode cuts it to a
 * quarter of what was in flight, a retransmit timeout to the minimum;
 * in-order progress grows it back (slow start below ssthresh, then one
 * PSN per two windows of acknowledged PSNs) up to SROCE_REQ_WINDOW.
 * Go-back-N sends again everything after a lost packet, so what is in
 * flight bounds what one loss costs.  Two packets stay allowed, so that
 * the ACK of the second covers a lost ACK of the first.
 */
#define SROCE_REQ_CWND_MIN	2
/*
 * The congestion window of a new connection, also its first ssthresh:
 * the whole window, so that a path that loses nothing keeps
 * SROCE_REQ_WINDOW PSNs in flight (a smaller start costs bandwidth when
 * the RTT is long, as on a loaded host).
 */
#define SROCE_REQ_CWND_INIT	SROCE_REQ_WINDOW
/* Most doublings of the retransmit timeout while no progress is seen. */
#define SROCE_REQ_RTO_BACKOFF_MAX	16
/*
 * The least margin of the retransmit timeout over the smoothed RTT:
 * RTO = SRTT + max(this, 4 RTTVAR), as Linux TCP's tcp_rto_min bounds
 * its RTTVAR term (RFC 6298 2.4 allows a floor).  An RTT estimate tracks
 * a queue as it builds, not a host that stops running the receiver for a
 * while: 16 QPs through one veth on a loaded 2-vCPU guest, losing
 * nothing, timed out 40-150 times in 5 s with the least margin one jiffy
 * or 10 ms (1,200-2,300 packets sent again each run), and 0 and 8 times
 * with 50 ms (0 and 16 sent again), at a third more bandwidth.  Losses
 * inside a window are still repaired at once from the responder's
 * sequence NAK; only a lost tail waits this long.  A QP whose local ACK
 * timeout is shorter keeps that timeout.
 */
#define SROCE_REQ_RTO_MIN_US	(50 * USEC_PER_MSEC)
/* PSNs one WQE may use: its whole range must stay below 2^23 (9.7.1). */
#define SROCE_REQ_MAX_WQE_PSNS	((1U << 23) - 1)
/* Pause after the network pushed back: doubles while it keeps pushing. */
#define SROCE_REQ_TX_PAUSE_MIN_NS	(20 * NSEC_PER_USEC)
#define SROCE_REQ_TX_PAUSE_MAX_NS	(1000 * NSEC_PER_USEC)

/**
 * enum sroce_send_flag - bits of &struct sroce_send.flags
 * @SROCE_SEND_F_MODIFIED: sroce_dp_modify() changed attributes or state;
 *	the next run copies them under qp->state_lock
 * @SROCE_SEND_F_TIMEOUT: the retransmit timer fired
 * @SROCE_SEND_F_RNR: the RNR timer fired
 * @SROCE_SEND_F_TX_RETRY: the backpressure pause is over
 * @SROCE_SEND_F_STOPPED: sroce_dp_stop() began; runs do nothing but drop
 *	queued packets, timers do not schedule
 * @SROCE_SEND_F_TX_WAKE: paused by backpressure with packets still queued
 *	in the stack; the next one's destructor (the queue moves again: a
 *	qdisc dequeued it, the device woke) ends the pause
 */
enum sroce_send_flag {
	SROCE_SEND_F_MODIFIED,
	SROCE_SEND_F_TIMEOUT,
	SROCE_SEND_F_RNR,
	SROCE_SEND_F_TX_RETRY,
	SROCE_SEND_F_STOPPED,
	SROCE_SEND_F_TX_WAKE,
};

/**
 * enum sroce_wqe_state - where a send WQE is
 * @SROCE_WQE_POSTED: copied from the ring; no packet sent since it was
 *	(re)started
 * @SROCE_WQE_SENDING: some of its packets are sent
 * @SROCE_WQE_SENT: all packets sent; an RC WQE waits for its ACK or
 *	response
 * @SROCE_WQE_DONE: completed successfully; its CQE is due in order
 * @SROCE_WQE_ERROR: failed with &struct sroce_req_wqe.status
 */
enum sroce_wqe_state {
	SROCE_WQE_POSTED,
	SROCE_WQE_SENDING,
	SROCE_WQE_SENT,
	SROCE_WQE_DONE,
	SROCE_WQE_ERROR,
};

/* Classes of a WQE (&struct sroce_req_wqe.cls). */
#define SROCE_WR_SEND		BIT(0)
#define SROCE_WR_WRITE		BIT(1)
#define SROCE_WR_READ		BIT(2)
#define SROCE_WR_ATOMIC		BIT(3)
#define SROCE_WR_IMM		BIT(4)
#define SROCE_WR_INV		BIT(5)
#define SROCE_WR_CMP_SWAP	BIT(6)
#define SROCE_WR_LOCAL		BIT(7)	/* executed by the requester, no packet */
#define SROCE_WR_REG		BIT(8)	/* IB_WR_REG_MR (else LOCAL_INV) */
#define SROCE_WR_AWRITE		BIT(9)	/* ATOMIC WRITE (IBTA 1.5 oA19-28) */
#define SROCE_WR_BIND		BIT(10)	/* IB_WR_BIND_MW (else LOCAL_INV) */
#define SROCE_WR_RFLUSH		BIT(11)	/* RDMA FLUSH (IBTA 1.5 annex A19.4) */
/* Answered by a response, and holds an initiator depth slot (9.5) */
#define SROCE_WR_RD_ATOMIC	(SROCE_WR_READ | SROCE_WR_ATOMIC | \
				 SROCE_WR_AWRITE | SROCE_WR_RFLUSH)

/**
 * struct sroce_req_wqe - kernel shadow of one SQ slot
 * @wqe: the slot as copied out of the ring, then validated; only the
 *	header and the used SGEs or inline bytes are meaningful
 * @length: message bytes (sum of the SGEs, or the inline length); a
 *	FLUSH: the RETH DMA length (@wqe.wr.rdma.length), no data
 * @first_psn: PSN of its first packet (valid once started)
 * @last_psn: PSN of its last packet; for an RDMA READ the last response
 *	PSN (IBTA 9.7.4.1.3: a read uses one PSN per response packet)
 * @cls: SROCE_WR_* bits
 * @state: enum sroce_wqe_state
 * @status: enum ib_wc_status when @state is SROCE_WQE_ERROR
 * @rd_issued: READ chunks (an atomic: 1) sent so far; each took an
 *	initiator slot, given back when its last response arrives
 * @rd_chunk: response PSNs per READ request of this WQE (at most
 *	SROCE_REQ_READ_CHUNK, fewer when the congestion window was smaller
 *	when it started); fixed while the WQE lives
 */
struct sroce_req_wqe {
	struct sroce_send_wqe wqe;
	u32 length;
	u32 first_psn;
	u32 last_psn;
	u16 cls;
	u8 state;
	u8 status;
	u32 rd_issued;
	u32 rd_chunk;
};

/**
 * struct sroce_rtt - round-trip time estimate of a QP (RFC 6298 2.2-2.3)
 * @srtt_us: smoothed RTT in microseconds, 0 before the first sample
 * @rttvar_us: RTT variation in microseconds
 */
struct sroce_rtt {
	u32 srtt_us;
	u32 rttvar_us;
};

/**
 * sroce_rtt_sample() - fold one RTT measurement into the estimate
 * @r: estimate
 * @us: measured round trip in microseconds (of a packet sent once only:
 *	Karn's rule)
 *
 * RFC 6298 2.2/2.3: the first sample sets SRTT = R, RTTVAR = R/2; later
 * ones RTTVAR = 3/4 RTTVAR + 1/4 |SRTT - R|, SRTT = 7/8 SRTT + 1/8 R.
 * Context: any.
 */
static inline void sroce_rtt_sample(struct sroce_rtt *r, u32 us)
{
	u32 err;

	us = max(us, 1U);
	if (!r->srtt_us) {
		r->srtt_us = us;
		r->rttvar_us = us / 2;
		return;
	}
	err = r->srtt_us > us ? r->srtt_us - us : us - r->srtt_us;
	r->rttvar_us = r->rttvar_us - r->rttvar_us / 4 + err / 4;
	r->srtt_us = r->srtt_us - r->srtt_us / 8 + us / 8;
}

/**
 * sroce_rtt_rto_us() - retransmit timeout the RTT estimate warrants
 * @r: estimate
 * @gran_us: the least margin over SRTT (RFC 6298 G: the timer
 *	granularity, or a larger floor, SROCE_REQ_RTO_MIN_US), also the
 *	least RTO
 * @max_us: the QP's local ACK timeout (IBTA 9.7.6.1.3: 4.096 us *
 *	2^timeout); 0 when it is infinite
 * @backoff: timeouts in a row without progress: the RTO doubles for each
 *	(RFC 6298 5.5)
 *
 * RTO = SRTT + max(G, 4 * RTTVAR), doubled @backoff times, never less
 * than @gran_us nor more than @max_us; @max_us before the first sample.
 * Context: any.
 * Return: the timeout in microseconds, 0 for none (@max_us infinite).
 */
static inline u32 sroce_rtt_rto_us(const struct sroce_rtt *r, u32 gran_us,
				   u32 max_us, u32 backoff)
{
	u64 rto;

	if (!max_us)
		return 0;
	if (!r->srtt_us)
		return max_us;
	rto = (u64)r->srtt_us + max_t(u64, gran_us, 4ULL * r->rttvar_us);
	rto <<= min_t(u32, backoff, SROCE_REQ_RTO_BACKOFF_MAX);
	return clamp_t(u64, rto, min(gran_us, max_us), max_us);
}

/**
 * struct sroce_send - requester and completer state of one QP
 * @retrans_timer: local ACK timeout (IBTA 9.7.6.1.3); holds a QP reference
 *	while pending
 * @rnr_timer: RNR NAK wait (9.7.5.2.8); holds a QP reference while pending
 * @retrans_held: arms of @retrans_timer whose function has not finished:
 *	one more when an arm finds it idle, one less when its function has
 *	flagged SROCE_SEND_F_TIMEOUT.  Non-zero or TIMEOUT always shows an
 *	armed timer, also between its expiry and its function, and also when
 *	a run re-armed it while its function ran (a bit cleared by that
 *	function would then hide the new arm: sroce_diag.c)
 * @rnr_held: the same for @rnr_timer and SROCE_SEND_F_RNR
 * @tx_timer: pause after backpressure; holds a QP reference while queued
 * @flags: enum sroce_send_flag bits (atomic bit operations)
 * @pend_reset: the QP went to RESET (under qp->state_lock)
 * @pend_reset_prod: SQ producer index when it did: the reset discards
 *	the WQEs before it, not those posted after the QP left RESET
 *	(under qp->state_lock)
 * @pend_psn: @pend_sq_psn is new (under qp->state_lock)
 * @pend_sq_psn: sq_psn from modify_qp (under qp->state_lock)
 * @caps: what the QP state allows (enum sroce_qps_cap), taken from
 *	qp->state at the start of each run (sroce_dp_sync(), under
 *	qp->state_lock together with the attributes below), so that a run
 *	sees one state and the attributes that go with it; a modify_qp in
 *	between takes effect at the next run.  Never written otherwise
 * @av: primary path of an RC or UC QP (copy of qp->av)
 * @ud_av: destination of the UD WQE being sent (copy of its AH's vector)
 * @mtu: bytes of payload per packet: the path MTU (RC, UC) or the port
 *	MTU (UD); never 0
 * @dest_qpn: remote QPN (RC, UC)
 * @qkey: the QP's Q_Key (UD)
 * @timeout_jiffies: local ACK timeout, 0 = infinite
 * @retry_max: attribute retry_cnt (7 is 7 tries, not infinite)
 * @rnr_retry_max: attribute rnr_retry (7 = infinite)
 * @max_rd_atomic: initiator depth (at least 1)
 * @wqes: shadow array, one entry per SQ slot; NULL without an SQ
 * @num: entries in @wqes (qp->sq.num)
 * @fetch_idx: see the file comment
 * @send_idx: see the file comment
 * @issued_idx: see the file comment
 * @psn: see the file comment
 * @max_psn: see the file comment
 * @comp_psn: see the file comment
 * @noack_pkts: packets sent since the last AckReq
 * @rd_outstanding: READ chunks and atomics sent whose responses are due
 * @cur: gather cursor of the WQE at @send_idx (when @cur_valid)
 * @cur_off: message offset @cur is at
 * @cur_valid: @cur is initialised and may hold an MR reference
 * @rcur: scatter cursor of the RDMA READ at the head (when @rcur_valid)
 * @rcur_off: message offset @rcur is at
 * @rcur_valid: @rcur is initialised and may hold an MR reference
 * @retry_cnt: retries left before IB_WC_RETRY_EXC_ERR
 * @rnr_retry: RNR retries left before IB_WC_RNR_RETRY_EXC_ERR
 * @retrying: a loss rewind (NAK sequence error, missing response,
 *	timeout) is in progress: not everything sent before it is
 *	acknowledged yet
 * @rewind_psn: PSN the last loss rewind went back to
 * @rewind_ns: ktime_get_ns() of that rewind
 * @recover_psn: one past the newest PSN sent before that rewind
 * @sel_probe: after a sequence error NAK or a retransmit timeout, the
 *	requester sends only the packet at comp_psn (with AckReq) and waits
 *	for the answer to it (sroce_comp.c: a responder that held what
 *	followed the gap acknowledges it all at once)
 * @sel_nak: that packet answers a sequence error NAK (not a timeout)
 * @sel_end: one past the PSNs of that packet (a READ request: its chunk)
 * @peer_holds: the responder was seen to hold requests behind a gap (an
 *	answer to a packet resent alone acknowledged more than it): it
 *	answers such a packet with an ACK or NAK once it ran what it held
 * @cwnd: congestion window in PSNs (SROCE_REQ_CWND_MIN..SROCE_REQ_WINDOW)
 * @ssthresh: slow start threshold in PSNs
 * @cwnd_acc: PSNs acknowledged towards the next congestion avoidance step
 * @rtt: round-trip time estimate
 * @rtt_psn: PSN of the packet being timed (when @rtt_timing)
 * @rtt_start: ktime_get_ns() when it was sent
 * @rtt_timing: a packet sent once only and asking for an ACK is timed
 * @rto_backoff: retransmit timeouts in a row without progress
 * @tx_ackreq: the packet built last asks for an ACK
 * @retry_base: jiffies from which the QP's local ACK timeout counts: the
 *	last progress, the start of sending after an idle time, or the last
 *	retry counted against @retry_cnt
 * @rnr_wait: waiting for @rnr_timer; nothing is sent
 * @tx_blocked: waiting for @tx_timer after backpressure
 * @tx_pause_ns: the next backpressure pause; reset when a packet or a
 *	batch leaves
 * @tx_mark_psn: the first PSN of @tx_batch (sroce_req_batch_lost())
 * @tx_mark_max: @max_psn before @tx_batch's first packet
 * @tx_batch_segs: the most packets the next batch may hold, 1 to
 *	SROCE_NET_BATCH_SEGS (sroce_net_batch_next_segs())
 * @tx_inflight: request skbs handed to the network and not yet freed (a
 *	batch of packets is one: its head, sroce_net_batch_add())
 * @tx_batch: the packets of the run in progress that wait to leave as one
 *	skb (sroce_req_run(); NULL outside it)
 *	(their destructor runs when the peer's IP layer takes them, or when
 *	a NIC completes them); each holds a QP reference
 * @error: the send side failed; nothing is sent, the SQ is flushed
 * @sq_broken: the producer index was hostile; the ring is not read again
 * @drained_event: IB_EVENT_SQ_DRAINED was raised in this SQD period
 * @last_progress: jiffies of the last ACK progress, (re)transmission
 *	start or packet sent that asked for an ACK: the retransmit timeout
 *	counts from it
 */
struct sroce_send {
	struct timer_list retrans_timer;
	struct timer_list rnr_timer;
	atomic_t retrans_held;
	atomic_t rnr_held;
	struct hrtimer tx_timer;
	unsigned long flags;

	bool pend_reset;
	bool pend_psn;
	u32 pend_sq_psn;
	u32 pend_reset_prod;

	u16 caps;
	struct sroce_av av;
	struct sroce_av ud_av;
	u32 mtu;
	u32 dest_qpn;
	u32 qkey;
	unsigned long timeout_jiffies;
	u8 retry_max;
	u8 rnr_retry_max;
	u32 max_rd_atomic;

	struct sroce_req_wqe *wqes;
	u32 num;
	u32 fetch_idx;
	u32 send_idx;
	u32 issued_idx;
	u32 psn;
	u32 max_psn;
	u32 comp_psn;
	u32 noack_pkts;
	u32 rd_outstanding;

	struct sroce_sge_cursor cur;
	u32 cur_off;
	bool cur_valid;
	struct sroce_sge_cursor rcur;
	u32 rcur_off;
	bool rcur_valid;

	u8 retry_cnt;
	u8 rnr_retry;
	bool retrying;
	u32 rewind_psn;
	u64 rewind_ns;
	u32 recover_psn;
	bool sel_probe;
	bool sel_nak;
	u32 sel_end;
	bool peer_holds;
	u32 cwnd;
	u32 ssthresh;
	u32 cwnd_acc;
	struct sroce_rtt rtt;
	u32 rtt_psn;
	u64 rtt_start;
	bool rtt_timing;
	u32 rto_backoff;
	bool tx_ackreq;
	unsigned long retry_base;
	bool rnr_wait;
	bool tx_blocked;
	u32 tx_pause_ns;
	u32 tx_mark_psn;
	u32 tx_mark_max;
	u32 tx_batch_segs;
	atomic_t tx_inflight;
	struct sroce_net_batch *tx_batch;
	bool error;
	bool sq_broken;
	bool drained_event;
	unsigned long last_progress;
};

/* @t's count of arms whose function has not finished (@retrans_held) */
static inline atomic_t *sroce_send_timer_held(struct sroce_send *snd,
					      const struct timer_list *t)
{
	return t == &snd->rnr_timer ? &snd->rnr_held : &snd->retrans_held;
}

static inline struct sroce_req_wqe *sroce_req_wqe(struct sroce_send *snd,
						  u32 idx)
{
	return &snd->wqes[idx & (snd->num - 1)];
}

/*
 * Packets (PSNs) an RC/UC WQE uses: one per MTU, at least one; an atomic
 * and a FLUSH (whose length is the range to flush, not data) one.
 */
static inline u32 sroce_req_wqe_npsn(const struct sroce_send *snd,
				     const struct sroce_req_wqe *w)
{
	if (w->cls & (SROCE_WR_ATOMIC | SROCE_WR_RFLUSH))
		return 1;
	return max_t(u32, DIV_ROUND_UP(w->length, snd->mtu), 1);
}

/* READ chunk of @w that holds @psn. */
static inline u32 sroce_req_chunk_of(const struct sroce_req_wqe *w, u32 psn)
{
	return (u32)sroce_psn_diff(psn, w->first_psn) /
	       max_t(u32, w->rd_chunk, 1);
}

/* Last PSN of the READ chunk (an atomic: its PSN) that holds @psn. */
static inline u32 sroce_req_chunk_last(const struct sroce_req_wqe *w, u32 psn)
{
	u32 n = max_t(u32, w->rd_chunk, 1);
	u32 end = (sroce_req_chunk_of(w, psn) + 1) * n - 1;

	if (end >= (u32)sroce_psn_diff(w->last_psn, w->first_psn))
		return w->last_psn;
	return sroce_psn_add(w->first_psn, end);
}

/**
 * sroce_send_new_loss() - does a loss signal start a new loss episode?
 * @snd: send side, with comp_psn the hole the signal points at (the
 *	oldest PSN not acknowledged, once the signal's own acknowledgment
 *	was taken)
 * @now_ns: ktime_get_ns() now
 *
 * One rewind per episode: while a loss rewind is in progress (@retrying),
 * these signals belong to its episode and start nothing:
 *   - one for the hole the rewind went back for, with no progress since
 *     (a duplicate NAK, a gap in responses to the requests before it);
 *   - one for a PSN the rewind has not sent again yet (it will);
 *   - one that comes less than a smoothed RTT after the rewind: what the
 *     rewind sent again cannot have been found missing yet, so the signal
 *     is about packets sent before it (reordered, or lost behind the
 *     first loss).
 * A hole in what the rewind sent again, seen an RTT later, is a new loss.
 * IBTA 9.7.5.1: the responder NAKs a sequence error once and drops what
 * follows the hole until the expected PSN arrives.
 * Context: any (pure).
 * Return: true when the requester should go back to comp_psn.
 */
static inline bool sroce_send_new_loss(const struct sroce_send *snd,
				       u64 now_ns)
{
	if (!snd->retrying)
		return true;
	if (!sroce_psn_after(snd->comp_psn, snd->rewind_psn) ||
	    !sroce_psn_after(snd->psn, snd->comp_psn))
		return false;
	return now_ns - snd->rewind_ns >= (u64)snd->rtt.srtt_us * NSEC_PER_USEC;
}

/* ---- sroce_req.c ---- */
int sroce_req_init(struct sroce_qp *qp);
void sroce_req_cleanup(struct sroce_qp *qp);
void sroce_req_reset(struct sroce_qp *qp, u32 prod);
void sroce_req_copy_attrs(struct sroce_qp *qp);
void sroce_req_set_psn(struct sroce_qp *qp, u32 psn);
bool sroce_req_run(struct sroce_qp *qp, int budget);
void sroce_req_fail(struct sroce_qp *qp, struct sroce_req_wqe *w,
		    enum ib_wc_status status);
int sroce_req_fetch_one(struct sroce_qp *qp, bool header_only);
void sroce_req_arm_timer(struct sroce_qp *qp, struct timer_list *t,
			 unsigned long expires);
void sroce_req_cursor_seek(struct sroce_sge_cursor *cur,
			   const struct sroce_sge *sge, u32 num_sge, u32 off);
void sroce_req_release_cursors(struct sroce_send *snd);
void sroce_req_release_cur(struct sroce_send *snd);

/* ---- sroce_req_pos.c ---- */
enum hrtimer_restart sroce_req_tx_timer_fn(struct hrtimer *t);
void sroce_req_tx_pause(struct sroce_qp *qp);
int sroce_req_flush(struct sroce_qp *qp);
void sroce_req_batch_left(struct sroce_qp *qp);
void sroce_req_batch_lost(struct sroce_qp *qp);
void sroce_req_seek(struct sroce_qp *qp, u32 psn);
void sroce_req_rewind(struct sroce_qp *qp);
void sroce_req_forward(struct sroce_qp *qp);

/* ---- sroce_req_pkt.c ---- */
int sroce_req_send_packet(struct sroce_qp *qp, struct sroce_req_wqe *w);
#if IS_ENABLED(CONFIG_KUNIT)
/* Static unless KUnit tests it (sroce_comp_pure). */
bool sroce_req_ackreq_due(struct sroce_send *snd, unsigned long now);
#endif

/* ---- sroce_comp.c ---- */
void sroce_comp_rcv(struct sroce_qp *qp, struct sk_buff *skb);
void sroce_comp_retire(struct sroce_qp *qp);
void sroce_comp_check_drained(struct sroce_qp *qp);
bool sroce_comp_flush(struct sroce_qp *qp, int budget);
struct sroce_req_wqe *sroce_comp_head(struct sroce_qp *qp);
void sroce_comp_fail_head(struct sroce_qp *qp, enum ib_wc_status status);

/* ---- sroce_retx.c ---- */
void sroce_retx_advance(struct sroce_send *snd, u32 psn);
bool sroce_retx_retry(struct sroce_qp *qp, bool timeout, bool counted);
void sroce_retx_sel_done(struct sroce_send *snd,
			 const struct sroce_pkt_info *pkt);
void sroce_retx_seq_nak(struct sroce_qp *qp);
void sroce_retx_out_of_order(struct sroce_qp *qp, u32 psn);
void sroce_retx_timers(struct sroce_qp *qp);
void sroce_retx_arm(struct sroce_qp *qp);
unsigned long sroce_retx_rto(const struct sroce_send *snd);
void sroce_retx_retrans_timer_fn(struct timer_list *t);
void sroce_retx_rnr_timer_fn(struct timer_list *t);

#endif /* SROCE_SEND_H */
