// SPDX-License-Identifier: GPL-2.0
/*
 * The requester's packets (IBTA vol. 1 9.2, 9.3, 9.7.1-9.7.4): the packet
 * of a WQE at the send PSN is described (opcode, PSNs; an RDMA READ
 * request asks for the rest of its chunk), built with its headers (BTH,
 * DETH, RETH, AtomicETH, ImmDt, IETH, XRCETH, and FETH of IBTA 1.5 annex
 * A19) and its payload (gathered from the SGEs, or page fragments of a
 * user MR for zero-copy RC), and sent: DCQCN pacing, one CPU at a time,
 * and the bookkeeping after it left (PSNs, RTT sampling, UC and UD WQEs
 * done).
 *
 * Context: the QP's data path run, as sroce_req.c; nothing may sleep.
 */

#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <rdma/ib_pack.h>
#include <kunit/visibility.h>

#include "sroce.h"
#include "sroce_av.h"
#include "sroce_mr.h"
#include "sroce_net.h"
#include "sroce_qp.h"
#include "sroce_trace.h"

/**
 * struct sroce_req_pkt - the request packet being built
 * @psn: its PSN
 * @npsn: PSNs it uses: 1, or the responses an RDMA READ request asks for
 * @off: message offset of its payload, or where a READ request starts
 * @rlen: RETH DMA length: the rest of the message (WRITE), the bytes a
 *	READ request asks for
 * @payload: payload bytes
 * @opcode: BTH opcode
 * @first: first packet of the message
 * @last: last packet of the message
 */
struct sroce_req_pkt {
	u32 psn;
	u32 npsn;
	u32 off;
	u32 rlen;
	u32 payload;
	u8 opcode;
	bool first;
	bool last;
};

/* ------------------------------------------------------------------ */
/* Building packets                                                    */
/* ------------------------------------------------------------------ */

/*
 * Opcode of a SEND or RDMA WRITE packet (IBTA 9.2, table 38).  SEND and
 * WRITE share the layout FIRST, MIDDLE, LAST, LAST_IMM, ONLY, ONLY_IMM
 * from @op_first on; invalidate has its own LAST and ONLY.
 */
static u8 sroce_req_seg_opcode(u16 cls, bool first, bool last, u8 op_first)
{
	bool imm = cls & SROCE_WR_IMM;

	if (!last)
		return first ? op_first : op_first + 1;
	if (cls & SROCE_WR_INV)
		return first ? IB_OPCODE_SEND_ONLY_WITH_INVALIDATE :
			       IB_OPCODE_SEND_LAST_WITH_INVALIDATE;
	if (first)
		return op_first + (imm ? 5 : 4);
	return op_first + (imm ? 3 : 2);
}

static u8 sroce_req_next_opcode(const struct sroce_qp *qp,
				const struct sroce_req_wqe *w,
				bool first, bool last)
{
	u8 base = sroce_qp_opcode_base(qp);
	u16 cls = w->cls;

	if (sroce_qp_is_ud(qp))
		return cls & SROCE_WR_IMM ?
		       IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE :
		       IB_OPCODE_UD_SEND_ONLY;
	if (cls & SROCE_WR_READ)
		return base | IB_OPCODE_RDMA_READ_REQUEST;
	if (cls & SROCE_WR_AWRITE)
		return SROCE_OPCODE_RC_ATOMIC_WRITE;
	if (cls & SROCE_WR_RFLUSH)
		return SROCE_OPCODE_RC_FLUSH;
	if (cls & SROCE_WR_ATOMIC)
		return base | (cls & SROCE_WR_CMP_SWAP ?
			       IB_OPCODE_COMPARE_SWAP : IB_OPCODE_FETCH_ADD);
	if (cls & SROCE_WR_WRITE)
		return base + sroce_req_seg_opcode(cls, first, last,
						   IB_OPCODE_RDMA_WRITE_FIRST);
	return base + sroce_req_seg_opcode(cls, first, last,
					   IB_OPCODE_SEND_FIRST);
}

/* Describe the packet of @w at send.psn. */
static void sroce_req_next_pkt(struct sroce_qp *qp, struct sroce_req_wqe *w,
			       struct sroce_req_pkt *p)
{
	struct sroce_send *snd = &qp->dp.send;
	u32 npsn = sroce_req_wqe_npsn(snd, w);
	u32 k = sroce_psn_diff(snd->psn, w->first_psn);

	p->psn = snd->psn;
	p->off = k * snd->mtu;
	p->first = !k;
	p->rlen = w->length - p->off;
	if (w->cls & SROCE_WR_RD_ATOMIC) {
		/* 9.7.4.1.3: a (re)sent READ asks for the rest of its chunk */
		u32 last = sroce_req_chunk_last(w, snd->psn);

		p->npsn = sroce_psn_diff(last, snd->psn) + 1;
		/* FLUSH: the whole range, in its one PSN */
		if (w->cls & SROCE_WR_READ)
			p->rlen = min(p->rlen, p->npsn * snd->mtu);
		/* ATOMIC WRITE: its 8 bytes; the others: none */
		p->payload = w->cls & SROCE_WR_AWRITE ? w->length : 0;
		p->last = last == w->last_psn;
	} else {
		p->npsn = 1;
		p->payload = min(snd->mtu, w->length - p->off);
		p->last = k == npsn - 1;
	}
	p->opcode = sroce_req_next_opcode(qp, w, p->first, p->last);
}

/*
 * Is an ACK to be asked for (IBTA 9.7.2, AckReq) before the last packet
 * of a message?  By count: every half congestion window (a small window
 * needs ACKs more often to move on), at most every SROCE_REQ_ACK_EVERY
 * packets.  By time (with a finite local ACK timeout): when half a
 * retransmit timeout passed since the newest packet that asked, or since
 * the last progress; the timeout counts from those (sroce_retx.c), and a
 * paced sender, which sends few packets per RTO, would otherwise time out
 * between two AckReqs.  @now: jiffies.
 */
VISIBLE_IF_KUNIT bool sroce_req_ackreq_due(struct sroce_send *snd,
					   unsigned long now)
{
	if (++snd->noack_pkts >= clamp_t(u32, snd->cwnd / 2, 1,
					 SROCE_REQ_ACK_EVERY))
		return true;
	/* no retransmit timer without a local ACK timeout (infinite) */
	return snd->timeout_jiffies &&
	       !time_before(now, snd->last_progress +
			    max(sroce_retx_rto(snd) / 2, 1UL));
}
EXPORT_SYMBOL_IF_KUNIT(sroce_req_ackreq_due);

static void sroce_req_fill_bth(struct sroce_qp *qp,
			       const struct sroce_req_wqe *w,
			       const struct sroce_req_pkt *p, void *hdr)
{
	struct sroce_send *snd = &qp->dp.send;
	u16 cls = w->cls;
	bool se, ackreq = false;
	u32 dqpn;

	/* 9.2.3: SE on the last packet of a SEND or WRITE with immediate */
	se = p->last && (w->wqe.send_flags & IB_SEND_SOLICITED) &&
	     ((cls & SROCE_WR_SEND) || (cls & SROCE_WR_IMM));
	if (sroce_qpt_reliable(qp->type)) {
		ackreq = p->last || (cls & SROCE_WR_RD_ATOMIC) ||
			 snd->sel_probe || sroce_req_ackreq_due(snd, jiffies);
		if (ackreq)
			snd->noack_pkts = 0;
	}
	snd->tx_ackreq = ackreq;
	dqpn = sroce_qp_is_ud(qp) ? w->wqe.wr.ud.remote_qpn : snd->dest_qpn;
	sroce_bth_init(hdr, p->opcode, se, -p->payload & 3, SROCE_DEFAULT_PKEY,
		       dqpn, ackreq, p->psn);
}

/* DETH (9.3.2): the Q_Key rule of 10.2.5; QP1 always uses the GSI Q_Key. */
static void sroce_req_fill_deth(const struct sroce_qp *qp,
				const struct sroce_send_wqe *wqe,
				struct sroce_deth *deth)
{
	u32 qkey = wqe->wr.ud.remote_qkey;
	u32 sqpn = sroce_qpn(qp);

	if (qp->type == IB_QPT_GSI) {
		qkey = SROCE_GSI_QKEY;
		sqpn = 1;
	} else if (qkey & BIT(31)) {
		qkey = qp->dp.send.qkey;
	}
	deth->qkey = cpu_to_be32(qkey);
	deth->sqp = cpu_to_be32(sqpn & SROCE_QPN_MASK);
}

static void sroce_req_fill_atmeth(const struct sroce_req_wqe *w,
				  struct sroce_atmeth *atm)
{
	const struct sroce_send_wqe *wqe = &w->wqe;

	atm->va = cpu_to_be64(wqe->wr.atomic.remote_addr);
	atm->rkey = cpu_to_be32(wqe->wr.atomic.rkey);
	if (w->cls & SROCE_WR_CMP_SWAP) {
		atm->swap_add = cpu_to_be64(wqe->wr.atomic.swap);
		atm->comp = cpu_to_be64(wqe->wr.atomic.compare_add);
	} else {
		atm->swap_add = cpu_to_be64(wqe->wr.atomic.compare_add);
		atm->comp = 0;
	}
}

/* Extended headers the opcode table says the packet carries. */
static void sroce_req_fill_ext(const struct sroce_qp *qp,
			       const struct sroce_req_wqe *w,
			       const struct sroce_req_pkt *p, u8 *hdr)
{
	const struct sroce_opcode_info *info = &sroce_opcode[p->opcode];
	const struct sroce_send_wqe *wqe = &w->wqe;

	if (info->mask & SROCE_MASK_XRCETH) {
		struct sroce_xrceth *x =
			(void *)(hdr + info->offset[SROCE_HDR_XRCETH]);

		x->srqn = cpu_to_be32(wqe->xrc_remote_srqn & SROCE_SRQN_MASK);
	}
	if (info->mask & SROCE_MASK_FETH) {
		struct sroce_feth *feth =
			(void *)(hdr + info->offset[SROCE_HDR_FETH]);

		feth->bits = sroce_feth_encode(wqe->wr.rdma.flush_type,
					       wqe->wr.rdma.flush_level);
	}
	if (info->mask & SROCE_MASK_RETH) {
		struct sroce_reth *reth =
			(void *)(hdr + info->offset[SROCE_HDR_RETH]);

		reth->va = cpu_to_be64(wqe->wr.rdma.remote_addr + p->off);
		reth->rkey = cpu_to_be32(wqe->wr.rdma.rkey);
		reth->len = cpu_to_be32(p->rlen);
	}
	if (info->mask & SROCE_MASK_IMMDT) {
		struct sroce_immdt *imm =
			(void *)(hdr + info->offset[SROCE_HDR_IMMDT]);

		imm->imm = wqe->ex.imm_data;
	}
	if (info->mask & SROCE_MASK_IETH) {
		struct sroce_ieth *ieth =
			(void *)(hdr + info->offset[SROCE_HDR_IETH]);

		ieth->rkey = cpu_to_be32(wqe->ex.invalidate_rkey);
	}
	if (info->mask & SROCE_MASK_ATMETH)
		sroce_req_fill_atmeth(w, (void *)(hdr +
				      info->offset[SROCE_HDR_ATMETH]));
	if (info->mask & SROCE_MASK_DETH)
		sroce_req_fill_deth(qp, wqe, (void *)(hdr +
				    info->offset[SROCE_HDR_DETH]));
}

/*
 * Put the gather cursor at byte @off of @w's SGE list: it stays where the
 * previous packet of the message left it, else it seeks (after a
 * retransmission rewound the PSN, or a failed gather).
 */
static void sroce_req_cursor_at(struct sroce_send *snd,
				const struct sroce_req_wqe *w, u32 off)
{
	if (snd->cur_valid && snd->cur_off == off)
		return;
	sroce_req_release_cur(snd);
	sroce_req_cursor_seek(&snd->cur, w->wqe.sge, w->wqe.num_sge, off);
	snd->cur_valid = true;
}

/*
 * Gather the payload straight into the packet: inline bytes, or the SGEs
 * through the cursor (which keeps the MR of its SGE, so consecutive
 * packets do no MR lookup).  Return: 0, -EINVAL (SGEs too short),
 * -EACCES/-EFAULT (local protection).
 */
static int sroce_req_gather(struct sroce_qp *qp, struct sroce_req_wqe *w,
			    const struct sroce_req_pkt *p, u8 *dst)
{
	struct sroce_send *snd = &qp->dp.send;
	int err;

	if (!p->payload)
		return 0;
	if (w->wqe.send_flags & IB_SEND_INLINE) {
		memcpy(dst, w->wqe.inline_data + p->off, p->payload);
		return 0;
	}
	sroce_req_cursor_at(snd, w, p->off);
	err = sroce_sge_copy(qp->dev, qp->pd, &snd->cur, dst, p->payload,
			     SROCE_FROM_MR);
	snd->cur_off = err ? U32_MAX : p->off + p->payload;
	return err;
}

/*
 * Zero-copy send: the payload of a packet goes out as page fragments of
 * the user MR's pinned pages instead of a copy.  Only for RC, whose WQE
 * completes after the ACK, when the responder has consumed the packet: the
 * application may not change the buffer before (IBTA 10.8), and a
 * packet that still differs fails the receiver's ICRC check.  UC and UD
 * complete when a packet leaves, so they copy, and so do kernel QPs (DMA
 * MRs have no page array), inline data and small payloads (a copy is
 * cheaper than a fragment).
 */
#define SROCE_REQ_ZC_MIN	512

static bool sroce_req_zerocopy(const struct sroce_qp *qp,
			       const struct sroce_req_wqe *w,
			       const struct sroce_req_pkt *p)
{
	return sroce_qpt_reliable(qp->type) && qp->is_user &&
	       p->payload >= SROCE_REQ_ZC_MIN &&
	       !(w->wqe.send_flags & IB_SEND_INLINE);
}

/*
 * The paged packet of a zero-copy send.  Return: the skb, or NULL with
 * @*err -EAGAIN (no memory), -EOPNOTSUPP or -E2BIG (copy instead), or a
 * gather error.
 */
static struct sk_buff *sroce_req_build_paged(struct sroce_qp *qp,
					     struct sroce_req_wqe *w,
					     const struct sroce_req_pkt *p,
					     const struct sroce_av *av,
					     int *err)
{
	const struct sroce_opcode_info *info = &sroce_opcode[p->opcode];
	struct sroce_send *snd = &qp->dp.send;
	struct sroce_pkt_info pkt = {};
	struct sk_buff *skb;

	skb = sroce_net_alloc_skb_paged(qp->dev, av, info->length, p->payload,
					&pkt);
	if (unlikely(!skb)) {
		*err = -EAGAIN;
		return NULL;
	}
	sroce_req_fill_bth(qp, w, p, pkt.hdr);
	sroce_req_fill_ext(qp, w, p, pkt.hdr);
	sroce_req_cursor_at(snd, w, p->off);
	*err = sroce_sge_frags(qp->dev, qp->pd, &snd->cur, skb, p->payload);
	if (!*err)
		*err = sroce_net_put_trailer(skb, p->payload);
	if (likely(!*err)) {
		snd->cur_off = p->off + p->payload;
		return skb;
	}
	snd->cur_off = U32_MAX;	/* seek again */
	kfree_skb(skb);
	if (*err == -ENOMEM)
		*err = -EAGAIN;
	return NULL;
}

/*
 * Allocate and fill the packet.  Return: the skb, or NULL with @*err
 * -EAGAIN (no memory: retry later) or a gather error.
 */
static struct sk_buff *sroce_req_build_packet(struct sroce_qp *qp,
					      struct sroce_req_wqe *w,
					      const struct sroce_req_pkt *p,
					      const struct sroce_av *av,
					      int *err)
{
	const struct sroce_opcode_info *info = &sroce_opcode[p->opcode];
	struct sroce_pkt_info pkt = {};
	struct sk_buff *skb;

	if (sroce_req_zerocopy(qp, w, p)) {
		skb = sroce_req_build_paged(qp, w, p, av, err);
		if (skb || (*err != -EOPNOTSUPP && *err != -E2BIG))
			return skb;
	}

	skb = sroce_net_alloc_skb(qp->dev, av, info->length, p->payload, &pkt);
	if (unlikely(!skb)) {
		*err = -EAGAIN;
		return NULL;
	}
	sroce_req_fill_bth(qp, w, p, pkt.hdr);
	sroce_req_fill_ext(qp, w, p, pkt.hdr);
	*err = sroce_req_gather(qp, w, p, pkt.hdr + info->length);
	if (unlikely(*err)) {
		kfree_skb(skb);
		return NULL;
	}
	return skb;
}

/* ------------------------------------------------------------------ */
/* Sending                                                             */
/* ------------------------------------------------------------------ */

/*
 * Packet order across CPUs.  A packet sent from a CPU may wait in that
 * CPU's queues (the netif_rx() backlog of loopback or veth, drained by
 * ksoftirqd under load; the transmit queue XPS picks for it) while one
 * sent later from another CPU is delivered first; the responder then
 * NAKs the gap and the whole window is sent again (UC loses the
 * message), and READ responses out of order are asked for again.  Which
 * packets still wait there cannot be known: loopback orphans a packet
 * (runs its destructor) before it queues it to the backlog.  So each side
 * of a QP sends from one CPU, its home (struct sroce_dp.home_cpu), as a
 * NIC keeps a QP on one send queue: sroce_dp.c runs it nowhere else.  An
 * RC send side's home moves only while every packet it sent is
 * acknowledged, so none of them can still be queued on the old one
 * (sroce_dp_place.c "Spreading send sides over CPUs").
 *
 * Each packet in flight is counted until its destructor runs (as rdma_rxe
 * counts its in-flight skbs), for the backpressure wake-up and the
 * retransmit timer (a packet still in the local stack is not lost).  The
 * QP pointer rides in skb_shinfo()->destructor_arg, which only zerocopy
 * skbs use (these never are), and each packet holds a QP reference.  A
 * packet that joins a batch is uncounted as it joins: the batch's head
 * stands for it (sroce_net_batch_add()).
 */

static void sroce_req_skb_dtor(struct sk_buff *skb)
{
	struct sroce_qp *qp = skb_shinfo(skb)->destructor_arg;
	struct sroce_send *snd = &qp->dp.send;

	/* a packet left a queue that had pushed back: resume (see tx_pause) */
	if (test_bit(SROCE_SEND_F_TX_WAKE, &snd->flags) &&
	    test_and_clear_bit(SROCE_SEND_F_TX_WAKE, &snd->flags) &&
	    !test_bit(SROCE_SEND_F_STOPPED, &snd->flags)) {
		set_bit(SROCE_SEND_F_TX_RETRY, &snd->flags);
		sroce_dp_schedule(qp, SROCE_DP_SEND);
	}
	atomic_dec(&snd->tx_inflight);
	sroce_qp_put(qp);
}

/* Count @skb in flight until its destructor runs; it holds a reference. */
static void sroce_req_skb_own(struct sroce_qp *qp, struct sk_buff *skb)
{
	sroce_qp_get(qp);
	atomic_inc(&qp->dp.send.tx_inflight);
	skb_shinfo(skb)->destructor_arg = qp;
	skb->destructor = sroce_req_skb_dtor;
}

/*
 * RTT sampling (RFC 6298 3, Karn's rule): one packet at a time is timed,
 * one sent for the first time that asks for an ACK (READ: its first
 * response); a rewind stops the timing, the completer takes the sample
 * when the packet is acknowledged.
 */
static void sroce_req_rtt_start(struct sroce_send *snd,
				const struct sroce_req_pkt *p)
{
	if (snd->rtt_timing || !snd->tx_ackreq ||
	    sroce_psn_before(p->psn, snd->max_psn))
		return;
	snd->rtt_timing = true;
	snd->rtt_psn = p->psn;
	snd->rtt_start = ktime_get_ns();
}

/* Bookkeeping after a packet left (or was lost on the way). */
static void sroce_req_advance(struct sroce_qp *qp, struct sroce_req_wqe *w,
			      const struct sroce_req_pkt *p)
{
	struct sroce_send *snd = &qp->dp.send;

	if (sroce_psn_before(p->psn, snd->max_psn)) {
		sroce_counter_inc(qp->dev, SROCE_CNT_RETRANSMITS);
		trace_sroce_retransmit(qp, p->psn, snd->retry_max - snd->retry_cnt);
		/*
		 * 9.7.4.1.4: a READ whose responses were lost is asked
		 * again from the first missing one, at its byte offset
		 * (sroce_req_next_pkt()), not from the message's start
		 */
		if ((w->cls & SROCE_WR_READ) && p->psn != w->first_psn)
			sroce_counter_inc(qp->dev, SROCE_CNT_READ_RESUMES);
	} else if (sroce_qpt_reliable(qp->type)) {
		sroce_req_rtt_start(snd, p);
	}
	snd->psn = sroce_psn_add(p->psn, p->npsn);
	if (sroce_psn_after(snd->psn, snd->max_psn))
		snd->max_psn = snd->psn;
	if (sroce_qpt_reliable(qp->type)) {
		/*
		 * The responder answers only packets that ask for an ACK
		 * (9.7.5.1): the ones before it wait for that answer, so
		 * the retransmit timeout counts from the newest one.  A
		 * paced sender asks only every few milliseconds.
		 */
		if (snd->tx_ackreq)
			snd->last_progress = jiffies;
		sroce_retx_arm(qp);
	}
	if (!p->last) {
		w->state = SROCE_WQE_SENDING;
		return;
	}
	snd->send_idx++;
	sroce_req_release_cur(snd);
	if (sroce_qpt_reliable(qp->type)) {
		w->state = SROCE_WQE_SENT;
		return;
	}
	/* UC and UD: no ACK; the WQE completes when its last packet left */
	w->state = SROCE_WQE_DONE;
	snd->comp_psn = snd->psn;
	sroce_comp_retire(qp);
}

/*
 * DCQCN reaction point: may a packet of @p leave at the QP's current rate?
 * When not, the requester waits for @tx_timer, armed for the delay the
 * rate limiter asks for (no busy wait); a backpressure pause already
 * queued is kept.  Pacing is not loss: nothing counts as retransmitted.
 */
static bool sroce_req_paced(struct sroce_qp *qp, const struct sroce_req_pkt *p)
{
	struct sroce_send *snd = &qp->dp.send;
	u64 delay;

	if (sroce_cc_qp_pace(qp, sroce_opcode[p->opcode].length + p->payload +
			     SROCE_ICRC_SIZE, &delay))
		return true;
	snd->tx_blocked = true;
	if (!hrtimer_is_queued(&snd->tx_timer)) {
		sroce_qp_get(qp);
		hrtimer_start(&snd->tx_timer, ns_to_ktime(delay),
			      HRTIMER_MODE_REL_SOFT);
	}
	return false;
}

/*
 * Hand the packet @p of @w to the network, into the run's batch on RC and
 * XRC: only they can send a pushed-back batch again (sroce_req_seek() to
 * the batch's first PSN, kept in tx_mark_psn); a UC WQE completes as its
 * last packet joins, and a UD WQE has its own destination.
 */
static int sroce_req_xmit(struct sroce_qp *qp, struct sroce_req_wqe *w,
			  const struct sroce_req_pkt *p,
			  const struct sroce_av *av, struct sk_buff *skb)
{
	struct sroce_send *snd = &qp->dp.send;
	struct sroce_net_batch *b = NULL;
	bool held = false;
	int err;

	if (sroce_qpt_reliable(qp->type) && snd->tx_batch) {
		b = snd->tx_batch;
		held = b->head;
	}
	err = sroce_net_xmit_batch(qp->dev, qp, av, skb, b);
	if (err == -EAGAIN) {
		if (held)
			sroce_req_batch_lost(qp);
		return err;
	}
	if (sroce_net_batch_started(b)) {
		snd->tx_mark_psn = p->psn;
		snd->tx_mark_max = snd->max_psn;
		if (held)	/* the batch before it left */
			sroce_req_batch_left(qp);
	} else if (!b || !b->head) {
		sroce_req_batch_left(qp);
	}
	sroce_req_advance(qp, w, p);
	return 0;
}

/**
 * sroce_req_send_packet() - build and send the next packet of a WQE
 * @qp: queue pair
 * @w: the WQE the packet at send.psn belongs to
 *
 * Build and send the next packet of @w.
 * Context: data path run (owns the QP's RUNNING bit).
 * Return: 0 when it left or joined the run's batch (or the network
 * dropped it: a loss the retransmit timer recovers), -EAGAIN on
 * backpressure (the packet is built again later; when a batch was
 * pushed back with it, from that batch's first packet on:
 * sroce_req_batch_lost()), -EBUSY when the rate limiter holds the packet
 * back (nothing changed), or a gather error (-EINVAL, -EACCES, -EFAULT).
 */
int sroce_req_send_packet(struct sroce_qp *qp, struct sroce_req_wqe *w)
{
	struct sroce_send *snd = &qp->dp.send;
	const struct sroce_av *av;
	struct sroce_req_pkt p;
	struct sk_buff *skb;
	int err;

	av = sroce_qp_is_ud(qp) ? &snd->ud_av : &snd->av;
	sroce_req_next_pkt(qp, w, &p);
	if (!sroce_req_paced(qp, &p))
		return -EBUSY;
	/* nothing was outstanding: the ACK timeout counts from now */
	if (snd->comp_psn == snd->max_psn) {
		snd->last_progress = jiffies;
		snd->retry_base = jiffies;
	}
	skb = sroce_req_build_packet(qp, w, &p, av, &err);
	if (!skb)
		return err;
	sroce_req_skb_own(qp, skb);
	sroce_dp_claim_home(qp, SROCE_DP_SEND);
	/*
	 * A packet the queue drops now is freed inside the call: its
	 * destructor must not end a pause (only a packet leaving the queue
	 * does; the pause after this push-back sets TX_WAKE again).
	 */
	if (test_bit(SROCE_SEND_F_TX_WAKE, &snd->flags))
		clear_bit(SROCE_SEND_F_TX_WAKE, &snd->flags);
	return sroce_req_xmit(qp, w, &p, av, skb);
}
