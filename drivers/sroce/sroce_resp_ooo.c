// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_resp_ooo.c - the RC responder's out-of-order hold: requests ahead
 * of the expected PSN are kept in PSN order (bounded), one sequence error
 * NAK per gap goes out, and when the gap is filled the held requests run
 * as if the network had delivered them late, answered by one ACK or by a
 * NAK at the next gap (IBTA 9.7.5.1.1).  The in-sequence steps are
 * sroce_resp.c's.
 *
 * Context: the QP's responder run (it owns SROCE_DP_RESP_RUNNING, see
 * sroce_dp.h); nothing here sleeps.
 */

#include <linux/skbuff.h>
#include <rdma/ib_pack.h>

#include "sroce.h"
#include "sroce_qp.h"

/*
 * Requests their own response acknowledges: READ, atomics, ATOMIC WRITE,
 * FLUSH.
 */
#define SROCE_MASK_RESPONDED	(SROCE_MASK_READ | SROCE_MASK_ATOMIC | \
				 SROCE_MASK_ATOMIC_WRITE | SROCE_MASK_FLUSH)

/*
 * A request ahead of the expected PSN is held, not dropped: once the gap
 * before it is filled it is processed as if the network had delivered
 * it late, so a requester that sends only the missing packet again
 * learns from one acknowledge that the rest arrived, and one that goes
 * back N finds the rest duplicates (IBTA 9.7.5.1.1 still holds: one
 * sequence error NAK per gap).  The hold takes what the receive backlog
 * would (SROCE_RESP_OOO_MAX_*); what does not fit is dropped as before.
 */

/**
 * sroce_resp_ooo_purge() - drop every request of the out-of-order hold
 * @resp: the responder
 *
 * Context: the QP's responder run.
 */
void sroce_resp_ooo_purge(struct sroce_resp *resp)
{
	__skb_queue_purge(&resp->ooo);
	resp->ooo_bytes = 0;
}

static void sroce_resp_ooo_unlink(struct sroce_resp *resp, struct sk_buff *skb)
{
	__skb_unlink(skb, &resp->ooo);
	resp->ooo_bytes -= skb->truesize;
}

/*
 * Hold @skb, @diff PSNs ahead of the expected one, in PSN order.
 * Return: true when the hold took it; false when it is to be dropped
 * (too far ahead, the hold full, its PSN held already).
 */
static bool sroce_resp_ooo_hold(struct sroce_qp *qp, struct sk_buff *skb,
				s32 diff)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	u32 psn = SROCE_PKT(skb)->psn;
	struct sk_buff *pos;
	s32 d;

	if (diff >= SROCE_RESP_OOO_MAX_AHEAD ||
	    skb_queue_len(&resp->ooo) >= SROCE_RESP_OOO_MAX_PKTS ||
	    skb->truesize > SROCE_RESP_OOO_MAX_BYTES - resp->ooo_bytes)
		return false;
	/* mostly in order: look from the newest; none before: at the head */
	skb_queue_reverse_walk(&resp->ooo, pos) {
		d = sroce_psn_diff(psn, SROCE_PKT(pos)->psn);
		if (!d)
			return false;
		if (d > 0)
			break;
	}
	/* no route is needed to process it: do not pin one */
	skb_dst_drop(skb);
	__skb_queue_after(&resp->ooo, pos, skb);
	resp->ooo_bytes += skb->truesize;
	sroce_counter_inc(qp->dev, SROCE_CNT_RX_OOO_HELD);
	return true;
}

/*
 * The held request at the expected PSN, unlinked, or NULL; held requests
 * the expected PSN passed (inside a READ's PSNs: not from a valid
 * requester) are dropped.
 */
static struct sk_buff *sroce_resp_ooo_take(struct sroce_qp *qp)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	struct sk_buff *skb;
	s32 d;

	while ((skb = skb_peek(&resp->ooo))) {
		d = sroce_psn_diff(SROCE_PKT(skb)->psn, resp->epsn);
		if (d > 0)
			return NULL;
		sroce_resp_ooo_unlink(resp, skb);
		if (!d)
			return skb;
		sroce_counter_inc(qp->dev, SROCE_CNT_DUP_REQ);
		kfree_skb(skb);
	}
	return NULL;
}

/**
 * sroce_resp_out_of_seq() - an RC request ahead of the expected PSN
 * @qp: queue pair
 * @skb: the request
 * @diff: how many PSNs ahead of the expected one it is (> 0)
 *
 * Held (or dropped), and one PSN sequence error NAK per gap (IBTA
 * 9.7.5.1.1) carrying the expected PSN.  Until the expected PSN arrives
 * (it clears @nak_sent) no other NAK goes out: the requester goes back
 * once per NAK.
 * Context: the QP's responder run.
 * Return: true when the hold took @skb.
 */
bool sroce_resp_out_of_seq(struct sroce_qp *qp, struct sk_buff *skb, s32 diff)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	bool held;

	sroce_counter_inc(qp->dev, SROCE_CNT_OUT_OF_SEQ_REQ);
	held = sroce_resp_ooo_hold(qp, skb, diff);
	if (resp->nak_sent)
		return held;
	resp->nak_sent = true;
	sroce_counter_inc(qp->dev, SROCE_CNT_SEQ_NAK_SENT);
	sroce_resp_queue_ack(qp, SROCE_AETH_NAK | SROCE_NAK_PSN_SEQ_ERR,
			     resp->epsn);
	return held;
}

/*
 * Process the held requests that follow the expected PSN, in order, as
 * long as each one moves it on.  Return: whether the last request
 * processed (@ack on entry: the one before) wants a plain ACK, i.e. is
 * no READ or atomic, whose responses acknowledge it.
 */
static bool sroce_resp_ooo_drain(struct sroce_qp *qp, bool ack)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	struct sroce_pkt_info *pkt;
	struct sk_buff *skb;
	u32 psn;

	while (!resp->failed && (skb = sroce_resp_ooo_take(qp))) {
		sroce_counter_inc(qp->dev, SROCE_CNT_RX_OOO_DRAINED);
		pkt = SROCE_PKT(skb);
		psn = resp->epsn;
		ack = !(pkt->mask & SROCE_MASK_RESPONDED);
		resp->wc_err = 0;
		sroce_resp_rc_in_seq(qp, skb, pkt,
				     sroce_pkt_payload_len(skb, pkt));
		consume_skb(skb);
		if (resp->epsn == psn)	/* RNR NAK, dropped, or failed */
			break;
	}
	return ack;
}

/**
 * sroce_resp_ooo_answer() - run the request at the expected PSN, then the
 *	held ones after it
 * @qp: queue pair
 * @skb: the request at the expected PSN
 * @pkt: its parsed headers
 * @len: its payload length, bytes
 *
 * The request at the expected PSN arrived while others were held, or
 * after a NAK (the requester sent it again): run it and the held ones
 * that follow, then, when it asks for an ACK, answer at once for all of
 * them, in place of their own ACKs: a sequence error NAK at the next gap
 * while more is held beyond it, else an ACK of the last one.  A
 * requester that resent only the NAKed packet (sroce's, which asks for
 * an ACK on it) learns from it how far to skip.  One that goes back N
 * resends a packet in the middle of a message without AckReq, and after
 * it the rest: it is answered as it resends them, each duplicate that
 * asks acknowledged with the newest PSN (sroce_resp_duplicate(), by the
 * rule of sroce_resp_ack_psn(), as this answer is).  An ACK ahead of its
 * resends would reach it while it is resending: rdma_rxe
 * then takes the acknowledged PSN without completing the WQE, and with
 * the resent last packet lost never retries again.  The ACK stays owed
 * until then (@resp->ack_owed): a QP destroyed first, as an application
 * does once its last message arrived, sends it (sroce_resp_send_owed()).
 * Context: the QP's responder run.
 */
void sroce_resp_ooo_answer(struct sroce_qp *qp, struct sk_buff *skb,
			   const struct sroce_pkt_info *pkt, u32 len)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	bool asked = sroce_bth_ackreq(sroce_pkt_bth(pkt));
	u32 start = resp->epsn;
	bool ack;

	resp->ooo_defer = true;
	sroce_resp_rc_in_seq(qp, skb, pkt, len);
	ack = !(pkt->mask & SROCE_MASK_RESPONDED);
	if (resp->epsn != start)
		ack = sroce_resp_ooo_drain(qp, ack);
	resp->ooo_defer = false;
	if (resp->failed) {
		sroce_resp_ooo_purge(resp);
		return;
	}
	/* no progress, or an RNR NAK acknowledged what came before */
	if (resp->epsn == start || resp->nak_sent)
		return;
	if (!asked) {
		resp->ack_owed = ack && skb_queue_empty(&resp->ooo);
		return;
	}
	if (!skb_queue_empty(&resp->ooo)) {
		resp->nak_sent = true;
		sroce_counter_inc(qp->dev, SROCE_CNT_SEQ_NAK_SENT);
		sroce_resp_queue_ack(qp, SROCE_AETH_NAK | SROCE_NAK_PSN_SEQ_ERR,
				     resp->epsn);
	} else if (ack) {
		sroce_resp_queue_ack(qp, SROCE_AETH_ACK_UNLIMITED,
				     sroce_resp_ack_psn(resp, start));
	}
}
