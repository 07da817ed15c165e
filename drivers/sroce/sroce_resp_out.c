// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_resp_out.c - the responder's response queue: the ACKs, NAKs,
 * RDMA READ responses and atomic ACKs a QP's responder sends, in the
 * order their requests arrived (IBTA vol. 1 9.7.5.1, 9.7.5.1.6, 9.5.3).
 *
 * sroce_resp.c checks and executes the requests and queues their
 * responses here (sroce_resp_queue_ack(), sroce_resp_queue_read(),
 * sroce_resp_queue_atomic()); its entry points push the queue with
 * sroce_resp_push().  An ACK goes out at once when nothing is queued
 * ahead of it, a long READ response is streamed a budget of packets at a
 * time, and a packet the network pushes back (-EAGAIN) is rebuilt and
 * sent again later.  A response that finds the queue full is lost like
 * a dropped packet: the requester retries.
 *
 * Context: a responder run of the QP (it owns SROCE_DP_RESP_RUNNING, see
 * sroce_dp.h), like sroce_resp.c.  Nothing here sleeps (GFP_ATOMIC).
 */

#include <linux/list.h>
#include <linux/slab.h>
#include <rdma/ib_pack.h>
#include <kunit/visibility.h>

#include "sroce.h"
#include "sroce_mr.h"
#include "sroce_net.h"
#include "sroce_qp.h"
#include "sroce_resp.h"

/* struct sroce_resp_out.kind */
enum sroce_resp_out_kind {
	SROCE_OUT_ACK,		/* ACK, RNR NAK or NAK (opcode ACKNOWLEDGE) */
	SROCE_OUT_READ,		/* RDMA READ response packets */
	SROCE_OUT_ATOMIC,	/* ATOMIC ACKNOWLEDGE */
};

/**
 * struct sroce_resp_out - a response waiting to be sent; responses leave
 *	in the order their requests arrived (IBTA 9.7.5.1)
 * @list: entry in sroce_resp.out
 * @kind: enum sroce_resp_out_kind
 * @syndrome: AETH syndrome (SROCE_OUT_ACK)
 * @res: index in sroce_resp.res (READ, ATOMIC)
 * @psn: PSN of the next packet to send
 * @last_psn: PSN of the last packet (READ)
 * @first_psn: PSN of the original READ request: a stream starting there
 *	opens with READ_RESPONSE_FIRST/ONLY, else with MIDDLE/LAST
 * @msn: MSN to put in the AETH
 * @rkey: R_Key (READ)
 * @resid: bytes still to send (READ)
 * @va: next byte to send (READ)
 * @orig: original value (ATOMIC)
 * @xsrqn: XRC TGT QP: the XRC SRQ whose PD the READ's R_Key is checked in
 */
struct sroce_resp_out {
	struct list_head list;
	u8 kind;
	u8 syndrome;
	u16 res;
	u32 psn;
	u32 last_psn;
	u32 first_psn;
	u32 msn;
	u32 rkey;
	u32 resid;
	u64 va;
	u64 orig;
	u32 xsrqn;
};

/* ------------------------------------------------------------------ */
/* Building and sending responses                                      */
/* ------------------------------------------------------------------ */

/*
 * Allocate a response packet of @opcode with @payload bytes and fill its
 * BTH; *@hdr points at the BTH.
 */
static struct sk_buff *sroce_resp_alloc(struct sroce_qp *qp, u8 opcode,
					u32 payload, u32 psn, u8 **hdr)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	struct sroce_pkt_info info = {};
	struct sk_buff *skb;
	u8 pad = (-payload) & 3;

	sroce_dp_assert_resp_run(qp);
	/* an XRC TGT QP answers with the XRC opcodes (IBTA 9.2, table 38) */
	opcode |= sroce_qp_opcode_base(qp);
	skb = sroce_net_alloc_skb(qp->dev, &resp->attr.av,
				  sroce_opcode[opcode].length, payload, &info);
	if (!skb)
		return NULL;
	info.qp = qp;
	info.opcode = opcode;
	info.mask = sroce_opcode[opcode].mask;
	info.psn = psn;
	*SROCE_PKT(skb) = info;
	sroce_bth_init(sroce_pkt_bth(&info), opcode, false, pad,
		       SROCE_DEFAULT_PKEY, resp->attr.dest_qpn, false, psn);
	if (pad)
		memset(info.hdr + sroce_opcode[opcode].length + payload, 0, pad);
	*hdr = info.hdr;
	return skb;
}

static void sroce_resp_set_aeth(u8 *hdr, u8 opcode, u8 syndrome, u32 msn)
{
	struct sroce_aeth *aeth;

	aeth = (void *)(hdr + sroce_opcode[opcode].offset[SROCE_HDR_AETH]);
	aeth->smsn = cpu_to_be32(sroce_aeth_encode(syndrome, msn));
}

/**
 * sroce_resp_xmit_ack() - send one acknowledge packet now, unqueued
 * @qp: queue pair
 * @opcode: IB_OPCODE_RC_ACKNOWLEDGE or IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE
 * @syndrome: AETH syndrome (ACK, RNR NAK or NAK)
 * @psn: PSN of the packet
 * @msn: MSN for the AETH
 * @orig: ATOMIC_ACKNOWLEDGE: original remote value for the AtomicAckETH
 *
 * Sends an ACKNOWLEDGE (ACK, RNR NAK, NAK) or an atomic ACK carrying
 * @orig (IBTA 9.3.5, 9.5.3) ahead of anything queued: only for the queue
 * itself and for a NAK that ends the connection.
 *
 * Context: a responder run of the QP; does not sleep.
 * Return: 0 when sent or lost, -EAGAIN when it must be sent again.
 */
int sroce_resp_xmit_ack(struct sroce_qp *qp, u8 opcode, u8 syndrome,
			u32 psn, u32 msn, u64 orig)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	struct sroce_atmack *atmack;
	struct sk_buff *skb;
	u8 *hdr;
	int err;

	skb = sroce_resp_alloc(qp, opcode, 0, psn, &hdr);
	if (!skb)
		return -EAGAIN;
	sroce_resp_set_aeth(hdr, opcode, syndrome, msn);
	if (opcode == IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE) {
		atmack = (void *)(hdr +
			 sroce_opcode[opcode].offset[SROCE_HDR_ATMACK]);
		atmack->orig = cpu_to_be64(orig);
	}
	sroce_dp_claim_home(qp, SROCE_DP_RESP);
	err = sroce_net_xmit_batch(qp->dev, qp, &resp->attr.av, skb,
				   resp->tx_batch);
	return err == -EAGAIN ? -EAGAIN : 0;
}

/* ------------------------------------------------------------------ */
/* The response queue                                                  */
/* ------------------------------------------------------------------ */

static void sroce_resp_out_free(struct sroce_qp *qp, struct sroce_resp_out *o)
{
	struct sroce_resp *resp = to_sroce_resp(qp);

	if (o->kind != SROCE_OUT_ACK && o->res < resp->res_cap &&
	    resp->res[o->res].busy)
		resp->res[o->res].busy--;
	if (o->kind == SROCE_OUT_READ && list_is_first(&o->list, &resp->out))
		sroce_rkey_release(&resp->rd);
	list_del(&o->list);
	resp->out_len--;
	kfree(o);
}

/**
 * sroce_resp_out_clear() - drop every queued response
 * @qp: queue pair
 *
 * Used on reset, on errors and on flush; also drops the MR reference
 * held for the READ response stream at the head of the queue.
 *
 * Context: a responder run of the QP, or destroy after the work stopped.
 */
void sroce_resp_out_clear(struct sroce_qp *qp)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	struct sroce_resp_out *o, *tmp;

	list_for_each_entry_safe(o, tmp, &resp->out, list)
		sroce_resp_out_free(qp, o);
	sroce_rkey_release(&resp->rd);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_resp_out_clear);

/**
 * sroce_resp_out_drop_from() - drop the queued responses from a PSN on
 * @qp: queue pair
 * @psn: PSN of a duplicate request
 *
 * A duplicate request at @psn restarts the responses from there: queued
 * responses from @psn on are dropped, the requester sends their requests
 * again (IBTA 9.7.5.1.3).
 *
 * Context: a responder run of the QP.
 */
void sroce_resp_out_drop_from(struct sroce_qp *qp, u32 psn)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	struct sroce_resp_out *o, *tmp;

	sroce_dp_assert_resp_run(qp);
	list_for_each_entry_safe_reverse(o, tmp, &resp->out, list) {
		if (sroce_psn_diff(o->psn, psn) >= 0)
			sroce_resp_out_free(qp, o);
	}
}

static struct sroce_resp_out *sroce_resp_out_new(struct sroce_qp *qp, u8 kind,
						 u32 psn)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	struct sroce_resp_out *o;

	if (resp->out_len >= SROCE_RESP_MAX_OUT)
		return NULL;
	o = kzalloc(sizeof(*o), GFP_ATOMIC | __GFP_NOWARN);
	if (!o)
		return NULL;
	o->kind = kind;
	o->psn = psn & SROCE_PSN_MASK;
	o->msn = resp->msn;
	return o;
}

static void sroce_resp_out_add(struct sroce_qp *qp, struct sroce_resp_out *o)
{
	struct sroce_resp *resp = to_sroce_resp(qp);

	/* every queued response may use one resource: busy cannot wrap */
	BUILD_BUG_ON(SROCE_RESP_MAX_OUT >
		     type_max(typeof(((struct sroce_resp_res *)0)->busy)));
	sroce_dp_assert_resp_run(qp);
	if (o->kind != SROCE_OUT_ACK)
		resp->res[o->res].busy++;
	resp->ack_owed = false;
	list_add_tail(&o->list, &resp->out);
	resp->out_len++;
}

/* A plain ACK behind a queued plain ACK replaces it (ACKs are cumulative). */
static bool sroce_resp_ack_coalesce(struct sroce_qp *qp, u8 syndrome, u32 psn)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	struct sroce_resp_out *tail;

	if (syndrome != SROCE_AETH_ACK_UNLIMITED || list_empty(&resp->out))
		return false;
	tail = list_last_entry(&resp->out, struct sroce_resp_out, list);
	if (tail->kind != SROCE_OUT_ACK ||
	    tail->syndrome != SROCE_AETH_ACK_UNLIMITED)
		return false;
	if (sroce_psn_after(psn, tail->psn)) {
		tail->psn = psn;
		tail->msn = resp->msn;
	}
	return true;
}

/**
 * sroce_resp_queue_ack() - answer a request with an ACK, RNR NAK or NAK
 * @qp: queue pair
 * @syndrome: AETH syndrome (IBTA 9.7.5.2)
 * @psn: PSN of the acknowledge
 *
 * The acknowledge carries the current MSN and goes out at once when no
 * response is queued ahead of it, else behind them (IBTA 9.7.5.1).  A
 * plain ACK behind a queued plain ACK replaces it; with the queue full
 * the acknowledge is lost like a dropped packet.
 *
 * Context: a responder run of the QP; does not sleep.
 */
void sroce_resp_queue_ack(struct sroce_qp *qp, u8 syndrome, u32 psn)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	struct sroce_resp_out *o;

	resp->ack_owed = false;		/* every answer is cumulative */
	psn &= SROCE_PSN_MASK;
	if (list_empty(&resp->out) &&
	    !sroce_resp_xmit_ack(qp, IB_OPCODE_RC_ACKNOWLEDGE, syndrome, psn,
				 resp->msn, 0))
		return;
	if (sroce_resp_ack_coalesce(qp, syndrome, psn))
		return;
	o = sroce_resp_out_new(qp, SROCE_OUT_ACK, psn);
	if (!o)
		return;		/* lost like a dropped packet */
	o->syndrome = syndrome;
	sroce_resp_out_add(qp, o);
}

/**
 * sroce_resp_queue_read() - queue the response stream of an RDMA READ
 * @qp: queue pair
 * @res: index of its responder resource in sroce_resp.res (holds the
 *	R_Key)
 * @psn: PSN of the first response packet to send
 * @first_psn: PSN of the original request
 * @va: first byte to send
 * @len: bytes to send
 *
 * The responses go out one path MTU per packet, carrying the MSN of now
 * (IBTA 9.7.5.1.6); the MR is looked up again when the stream reaches the
 * head of the queue.
 *
 * Context: a responder run of the QP; does not sleep.
 * Return: 0, or -ENOBUFS when the queue is full or memory is short.
 */
int sroce_resp_queue_read(struct sroce_qp *qp, u16 res, u32 psn,
			  u32 first_psn, u64 va, u32 len)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	struct sroce_resp_out *o;

	o = sroce_resp_out_new(qp, SROCE_OUT_READ, psn);
	if (!o)
		return -ENOBUFS;
	o->res = res;
	o->first_psn = first_psn;
	o->last_psn = sroce_psn_add(psn, sroce_resp_read_npsn(len,
							      resp->attr.mtu) - 1);
	o->rkey = resp->res[res].rkey;
	o->xsrqn = resp->res[res].xsrqn;
	o->va = va;
	o->resid = len;
	sroce_resp_out_add(qp, o);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_resp_queue_read);

/**
 * sroce_resp_queue_atomic() - queue the ATOMIC ACKNOWLEDGE of an atomic
 * @qp: queue pair
 * @res: index of its responder resource in sroce_resp.res
 * @psn: PSN of the request
 *
 * The AtomicAckETH carries the original value the resource holds when
 * the packet is built (IBTA 9.5.3, 9.7.5.1.5): the caller may store it
 * after queueing.
 *
 * Context: a responder run of the QP; does not sleep.
 * Return: 0, or -ENOBUFS when the queue is full or memory is short.
 */
int sroce_resp_queue_atomic(struct sroce_qp *qp, u16 res, u32 psn)
{
	struct sroce_resp_out *o;

	o = sroce_resp_out_new(qp, SROCE_OUT_ATOMIC, psn);
	if (!o)
		return -ENOBUFS;
	o->res = res;
	sroce_resp_out_add(qp, o);
	return 0;
}

/* ---- RDMA READ responses (IBTA 9.7.5.1.6, 9.4.4) ---- */

static u8 sroce_resp_read_opcode(const struct sroce_resp_out *o, u32 mtu)
{
	bool last = o->resid <= mtu;

	if (o->psn == o->first_psn)
		return last ? IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY :
			      IB_OPCODE_RC_RDMA_READ_RESPONSE_FIRST;
	return last ? IB_OPCODE_RC_RDMA_READ_RESPONSE_LAST :
		      IB_OPCODE_RC_RDMA_READ_RESPONSE_MIDDLE;
}

/*
 * MR of the stream at the head of the queue: its R_Key is taken once per
 * stream (sroce_rkey_hold()) and checked again for every packet: the MR
 * still valid, a window still bound as it was (IBTA 9.7.5.1.2, 10.6.7).
 * The PD is the QP's, or on an XRC TGT QP the one of the XRC SRQ the
 * request named, held only for the lookup (annex A14).
 */
static struct sroce_mr *sroce_resp_read_mr(struct sroce_qp *qp,
					   struct sroce_resp_out *o)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	struct sroce_srq *srq = NULL;
	struct sroce_pd *pd = qp->pd;
	int err;

	if (!resp->rd.mr) {
		if (qp->type == IB_QPT_XRC_TGT)
			pd = sroce_resp_xrc_pd(qp, o->xsrqn, &srq);
		err = sroce_rkey_hold(qp->dev, pd, sroce_qpn(qp), o->rkey,
				      o->va, o->resid, IB_ACCESS_REMOTE_READ,
				      &resp->rd);
		if (srq)
			sroce_srq_put(srq);
		if (err)
			return NULL;
	}
	return sroce_rkey_ref_ok(&resp->rd) ? resp->rd.mr : NULL;
}

/*
 * The network pushed back a batch: none of its packets left.  A batch
 * holds the packets of one response (sroce_resp_push_loop()), the one at
 * the head of the queue: a READ stream goes back to the batch's first
 * packet (resp->tx_mark); an ACK was not sent yet.
 */
static void sroce_resp_batch_lost(struct sroce_qp *qp,
				  struct sroce_resp_out *o)
{
	struct sroce_resp *resp = to_sroce_resp(qp);

	resp->tx_batch_segs = sroce_net_batch_next_segs(resp->tx_batch_segs,
							false);
	if (o->kind != SROCE_OUT_READ)
		return;
	o->psn = resp->tx_mark.psn;
	o->va = resp->tx_mark.va;
	o->resid = resp->tx_mark.resid;
}

/* A batch left: the next may be twice as long, up to the most */
static void sroce_resp_batch_left(struct sroce_resp *resp)
{
	resp->tx_batch_segs = sroce_net_batch_next_segs(resp->tx_batch_segs,
							true);
}

/*
 * Send the push's batch, the packets of @o (NULL: the queue is empty).
 * Pushed back, @o goes back to the batch's first packet.  Return: 0, or
 * -EAGAIN when pushed back.
 */
static int sroce_resp_out_flush(struct sroce_qp *qp, struct sroce_resp_out *o)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	int err;

	if (!resp->tx_batch || !resp->tx_batch->head)
		return 0;
	err = sroce_net_batch_flush(qp->dev, resp->tx_batch);
	if (err != -EAGAIN) {
		sroce_resp_batch_left(resp);
		return 0;
	}
	if (o)
		sroce_resp_batch_lost(qp, o);
	return -EAGAIN;
}

/*
 * Send the next READ response packet of @o.  Return: 0 (sent or lost,
 * the stream advanced), -EAGAIN (send it again later), -EACCES (the MR
 * went away: remote access error).
 */
static int sroce_resp_send_read(struct sroce_qp *qp, struct sroce_resp_out *o)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	u32 payload = min(o->resid, resp->attr.mtu);
	u8 opcode = sroce_resp_read_opcode(o, resp->attr.mtu);
	struct sroce_mr *mr = NULL;
	struct sk_buff *skb;
	bool held;
	u8 *hdr;
	int err;

	if (payload) {
		mr = sroce_resp_read_mr(qp, o);
		if (!mr)
			return -EACCES;
	}
	skb = sroce_resp_alloc(qp, opcode, payload, o->psn, &hdr);
	if (!skb)
		return -EAGAIN;
	if (sroce_opcode[opcode].mask & SROCE_MASK_AETH)
		sroce_resp_set_aeth(hdr, opcode, SROCE_AETH_ACK_UNLIMITED,
				    o->msn);
	if (payload && sroce_mr_copy(mr, o->va, hdr + sroce_opcode[opcode].length,
				     payload, SROCE_FROM_MR)) {
		kfree_skb(skb);
		return -EACCES;
	}
	sroce_dp_claim_home(qp, SROCE_DP_RESP);
	held = resp->tx_batch && resp->tx_batch->head;
	err = sroce_net_xmit_batch(qp->dev, qp, &resp->attr.av, skb,
				   resp->tx_batch);
	if (err == -EAGAIN) {
		if (held)
			sroce_resp_batch_lost(qp, o);
		return -EAGAIN;
	}
	if (sroce_net_batch_started(resp->tx_batch)) {
		if (held)	/* the batch before it left */
			sroce_resp_batch_left(resp);
		resp->tx_mark.psn = o->psn;
		resp->tx_mark.va = o->va;
		resp->tx_mark.resid = o->resid;
	}
	o->psn = sroce_psn_add(o->psn, 1);
	o->va += payload;
	o->resid -= payload;
	return 0;
}

/* Send one packet of the response at the head of the queue. */
static int sroce_resp_send_one(struct sroce_qp *qp, struct sroce_resp_out *o,
			       bool *done)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	int err;

	*done = true;
	switch (o->kind) {
	case SROCE_OUT_READ:
		err = sroce_resp_send_read(qp, o);
		*done = sroce_psn_after(o->psn, o->last_psn);
		return err;
	case SROCE_OUT_ATOMIC:
		return sroce_resp_xmit_ack(qp, IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE,
					   SROCE_AETH_ACK_UNLIMITED, o->psn,
					   o->msn, resp->res[o->res].orig);
	default:
		return sroce_resp_xmit_ack(qp, IB_OPCODE_RC_ACKNOWLEDGE,
					   o->syndrome, o->psn, o->msn, 0);
	}
}

/* sroce_resp_push() but the batch */
static bool sroce_resp_push_loop(struct sroce_qp *qp, int budget)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	struct sroce_resp_out *o;
	bool done;
	int err;

	while (!list_empty(&resp->out)) {
		if (budget-- <= 0)
			return true;
		o = list_first_entry(&resp->out, struct sroce_resp_out, list);
		err = sroce_resp_send_one(qp, o, &done);
		/* a batch ends with its response: see sroce_resp_batch_lost() */
		if (!err && done)
			err = sroce_resp_out_flush(qp, o);
		resp->tx_blocked = err == -EAGAIN;
		if (err == -EAGAIN)
			return true;
		if (err) {
			sroce_counter_inc(qp->dev, SROCE_CNT_REMOTE_ACCESS_ERR);
			sroce_resp_fatal(qp, SROCE_AETH_NAK | SROCE_NAK_REM_ACCESS,
					 o->psn);
			return false;
		}
		if (done)
			sroce_resp_out_free(qp, o);
	}
	return false;
}

/**
 * sroce_resp_push() - send queued response packets
 * @qp: queue pair
 * @budget: most packets to send
 *
 * Sends the queue in order (IBTA 9.7.5.1); a packet the network pushes
 * back (-EAGAIN) stays at the head and sets sroce_resp.tx_blocked.  A
 * READ response whose MR went away fails the connection with a remote
 * access error NAK (sroce_resp_fatal()).  The packets of one response
 * leave in batches, as one skb each (sroce_net_xmit_batch()), the last
 * when the response or the call ends; a batch the network pushes back is
 * sent again from its first packet, as a single packet would be.
 *
 * Context: a responder run of the QP; does not sleep.
 * Return: true while responses remain (budget spent or backpressure).
 */
bool sroce_resp_push(struct sroce_qp *qp, int budget)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	struct sroce_net_batch batch = {};
	struct sroce_resp_out *o;
	bool more;

	sroce_dp_assert_resp_run(qp);
	batch.max_segs = resp->tx_batch_segs;
	resp->tx_batch = &batch;
	more = sroce_resp_push_loop(qp, budget);
	o = list_first_entry_or_null(&resp->out, struct sroce_resp_out, list);
	if (sroce_resp_out_flush(qp, o)) {
		resp->tx_blocked = true;
		more = true;
	}
	resp->tx_batch = NULL;
	return more;
}

