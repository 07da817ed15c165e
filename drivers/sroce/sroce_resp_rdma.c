// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_resp_rdma.c - the responder's requests that its own response
 * answers: RDMA READ, atomics (IBTA vol. 1 9.4.4, 9.4.5), ATOMIC WRITE and
 * FLUSH (IBTA 1.5 annex A19), each taking a responder resource, and the
 * duplicates of all of them, answered again from their resource, never
 * executed twice (IBTA 9.7.5.1.3).
 *
 * Context: the responder run of the QP, as sroce_resp.c.
 */

#include <linux/spinlock.h>
#include <rdma/ib_pack.h>

#include "sroce.h"
#include "sroce_mr.h"
#include "sroce_qp.h"

/* Atomic operations are atomic with respect to each other (IBTA 9.4.5). */
static DEFINE_SPINLOCK(sroce_resp_atomic_lock);
/* ------------------------------------------------------------------ */
/* RDMA READ and atomics (RC)                                          */
/* ------------------------------------------------------------------ */

/**
 * sroce_resp_do_read() - execute an RDMA READ request
 * @qp: the responder's QP
 * @pkt: the request
 *
 * RDMA READ request (IBTA 9.4.4, 9.7.5.1.6): check the RETH, save a
 * responder resource, count the MSN now (C9-148) and advance the expected
 * PSN past every response packet; the responses are queued.
 * Context: the QP's responder run.
 * Return: SROCE_RESP_OK or the failure's enum sroce_resp_ret.
 */
enum sroce_resp_ret sroce_resp_do_read(struct sroce_qp *qp,
				       const struct sroce_pkt_info *pkt)
{
	struct sroce_reth *reth = sroce_pkt_hdr(pkt, SROCE_HDR_RETH);
	struct sroce_resp *resp = to_sroce_resp(qp);
	u32 len = be32_to_cpu(reth->len), rkey = be32_to_cpu(reth->rkey);
	u64 va = be64_to_cpu(reth->va);
	struct sroce_resp_res *res;
	enum sroce_resp_ret ret;
	struct sroce_mr *mr;
	u32 npsn;
	u16 idx;

	if (len > SROCE_MAX_MSG_SIZE) {
		sroce_counter_inc(qp->dev, SROCE_CNT_REMOTE_INVALID_REQ);
		return SROCE_RESP_NAK_INV;
	}
	ret = sroce_resp_check_res(qp);
	if (ret)
		return ret;
	if (len) {
		mr = sroce_resp_rkey(qp, rkey, va, len, IB_ACCESS_REMOTE_READ);
		if (!mr)
			return SROCE_RESP_NAK_ACC;
		sroce_mr_put(mr);
	}
	npsn = sroce_resp_read_npsn(len, resp->attr.mtu);
	res = sroce_resp_res_take(qp, SROCE_RES_READ, pkt->psn, npsn, &idx);
	res->va = va;
	res->rkey = rkey;
	res->length = len;
	res->xsrqn = resp->xsrq ? resp->xsrq->srqn : 0;
	resp->msn = (resp->msn + 1) & SROCE_MSN_MASK;
	if (sroce_resp_queue_read(qp, idx, pkt->psn, pkt->psn, va, len)) {
		res->type = SROCE_RES_FREE;
		resp->msn = (resp->msn - 1) & SROCE_MSN_MASK;
		return SROCE_RESP_DROP;
	}
	sroce_resp_set_epsn(resp, resp->epsn + npsn);
	return SROCE_RESP_OK;
}

/*
 * Execute an atomic under the global atomic lock (IBTA 9.4.5).
 * Return: 0, or -EINVAL when the MR was deregistered since its check
 * (nothing read or written).
 */
static int sroce_resp_atomic_exec(struct sroce_mr *mr, u64 va, bool cswap,
				  u64 swap_add, u64 comp, u64 *orig)
{
	unsigned long flags;
	int err;

	spin_lock_irqsave(&sroce_resp_atomic_lock, flags);
	err = sroce_mr_atomic(mr, va, cswap, swap_add, comp, orig);
	spin_unlock_irqrestore(&sroce_resp_atomic_lock, flags);
	return err;
}

/**
 * sroce_resp_do_atomic() - execute a COMPARE_SWAP or FETCH_ADD request
 * @qp: the responder's QP
 * @pkt: the request
 *
 * COMPARE_SWAP / FETCH_ADD (IBTA 9.4.5, 9.7.5.1.5): 8-byte aligned VA
 * (else invalid request), remote atomic access, executed once; the
 * original value is kept to answer duplicates.
 * Context: the QP's responder run.
 * Return: SROCE_RESP_OK or the failure's enum sroce_resp_ret.
 */
enum sroce_resp_ret sroce_resp_do_atomic(struct sroce_qp *qp,
					 const struct sroce_pkt_info *pkt)
{
	struct sroce_atmeth *ath = sroce_pkt_hdr(pkt, SROCE_HDR_ATMETH);
	struct sroce_resp *resp = to_sroce_resp(qp);
	u64 va = be64_to_cpu(ath->va);
	struct sroce_resp_res *res;
	enum sroce_resp_ret ret;
	struct sroce_mr *mr;
	u16 idx;
	int err;

	if (va & 7) {
		sroce_counter_inc(qp->dev, SROCE_CNT_REMOTE_INVALID_REQ);
		return SROCE_RESP_NAK_INV;
	}
	ret = sroce_resp_check_res(qp);
	if (ret)
		return ret;
	mr = sroce_resp_rkey(qp, be32_to_cpu(ath->rkey), va, sizeof(u64),
			     IB_ACCESS_REMOTE_ATOMIC);
	if (!mr)
		return SROCE_RESP_NAK_ACC;
	res = sroce_resp_res_take(qp, SROCE_RES_ATOMIC, pkt->psn, 1, &idx);
	resp->msn = (resp->msn + 1) & SROCE_MSN_MASK;
	if (sroce_resp_queue_atomic(qp, idx, pkt->psn)) {
		res->type = SROCE_RES_FREE;
		resp->msn = (resp->msn - 1) & SROCE_MSN_MASK;
		sroce_mr_put(mr);
		return SROCE_RESP_DROP;
	}
	err = sroce_resp_atomic_exec(mr, va,
				     sroce_rc_opcode(pkt->opcode) ==
				     IB_OPCODE_RC_COMPARE_SWAP,
				     be64_to_cpu(ath->swap_add),
				     be64_to_cpu(ath->comp), &res->orig);
	sroce_mr_put(mr);
	if (err) {	/* deregistered since the check: not executed */
		sroce_resp_out_drop_from(qp, pkt->psn);
		res->type = SROCE_RES_FREE;
		resp->msn = (resp->msn - 1) & SROCE_MSN_MASK;
		sroce_counter_inc(qp->dev, SROCE_CNT_REMOTE_ACCESS_ERR);
		return SROCE_RESP_NAK_ACC;
	}
	sroce_resp_set_epsn(resp, resp->epsn + 1);
	return SROCE_RESP_OK;
}

/*
 * The 8 bytes of an ATOMIC WRITE, with its RETH (IBTA 1.5 oA19-28): a
 * DMA length and payload of exactly 8 bytes, no pad, an 8-byte aligned
 * VA.  Return: SROCE_RESP_OK with *@va and *@val, or a NAK.
 */
static enum sroce_resp_ret
sroce_resp_awrite_args(struct sroce_qp *qp, struct sk_buff *skb,
		       const struct sroce_pkt_info *pkt, u32 len,
		       u64 *va, u64 *val)
{
	struct sroce_reth *reth = sroce_pkt_hdr(pkt, SROCE_HDR_RETH);
	__be64 data;

	*va = be64_to_cpu(reth->va);
	if (len != SROCE_ATOMIC_WRITE_LEN ||
	    be32_to_cpu(reth->len) != SROCE_ATOMIC_WRITE_LEN ||
	    sroce_bth_pad(sroce_pkt_bth(pkt)) || !IS_ALIGNED(*va, sizeof(u64)) ||
	    skb_copy_bits(skb, pkt->hdr + sroce_opcode[pkt->opcode].length -
			  skb->data, &data, sizeof(data))) {
		sroce_counter_inc(qp->dev, SROCE_CNT_REMOTE_INVALID_REQ);
		return SROCE_RESP_NAK_INV;
	}
	/* the bytes go to memory in wire order, as an RDMA WRITE's do */
	memcpy(val, &data, sizeof(*val));
	return SROCE_RESP_OK;
}

/**
 * sroce_resp_do_awrite() - execute an ATOMIC WRITE request
 * @qp: the responder's QP
 * @skb: the packet, for its 8 bytes of payload
 * @pkt: the request
 * @len: its payload length
 *
 * ATOMIC WRITE (IBTA 1.5 oA19-28): remote write access, the 8 bytes
 * stored with one 64-bit store after the writes before it, executed once;
 * a responder resource answers it, and its duplicates, with an RDMA READ
 * RESPONSE ONLY without payload (as rdma_rxe does).
 * Context: the QP's responder run.
 * Return: SROCE_RESP_OK or the failure's enum sroce_resp_ret.
 */
enum sroce_resp_ret sroce_resp_do_awrite(struct sroce_qp *qp,
					 struct sk_buff *skb,
					 const struct sroce_pkt_info *pkt,
					 u32 len)
{
	struct sroce_reth *reth = sroce_pkt_hdr(pkt, SROCE_HDR_RETH);
	struct sroce_resp *resp = to_sroce_resp(qp);
	struct sroce_resp_res *res;
	enum sroce_resp_ret ret;
	struct sroce_mr *mr;
	u64 va, val;
	u16 idx;

	ret = sroce_resp_awrite_args(qp, skb, pkt, len, &va, &val);
	if (!ret)
		ret = sroce_resp_check_res(qp);
	if (ret)
		return ret;
	mr = sroce_resp_rkey(qp, be32_to_cpu(reth->rkey), va, sizeof(u64),
			     IB_ACCESS_REMOTE_WRITE);
	if (!mr)
		return SROCE_RESP_NAK_ACC;
	res = sroce_resp_res_take(qp, SROCE_RES_AWRITE, pkt->psn, 1, &idx);
	resp->msn = (resp->msn + 1) & SROCE_MSN_MASK;
	if (sroce_resp_queue_read(qp, idx, pkt->psn, pkt->psn, 0, 0)) {
		ret = SROCE_RESP_DROP;
	} else if (sroce_mr_atomic_write(mr, va, val)) {
		/* deregistered since the check, or misplaced: not executed */
		sroce_resp_out_drop_from(qp, pkt->psn);
		sroce_counter_inc(qp->dev, SROCE_CNT_REMOTE_ACCESS_ERR);
		ret = SROCE_RESP_NAK_ACC;
	}
	sroce_mr_put(mr);
	if (ret) {
		res->type = SROCE_RES_FREE;
		resp->msn = (resp->msn - 1) & SROCE_MSN_MASK;
		return ret;
	}
	sroce_resp_set_epsn(resp, resp->epsn + 1);
	return SROCE_RESP_OK;
}

/*
 * The MR rights a FLUSH of placement type @type needs (IBTA 1.5 annex
 * A19.4.1.1), 0 for a type that is none or not known.
 */
static int sroce_resp_flush_access(u8 type)
{
	int access = 0;

	if (!type || (type & ~SROCE_FLUSH_TYPES))
		return 0;
	if (type & SROCE_FLUSH_GLOBAL)
		access |= SROCE_ACCESS_FLUSH_GLOBAL;
	if (type & SROCE_FLUSH_PERSISTENT)
		access |= SROCE_ACCESS_FLUSH_PERSISTENT;
	return access;
}

/**
 * sroce_resp_do_flush() - execute a FLUSH request
 * @qp: the responder's QP
 * @pkt: the request
 *
 * FLUSH (IBTA 1.5 annex A19.4), on a QP whose flush rights cover its
 * placement type (checked with its other access flags before this, as
 * rdma_rxe does: else an invalid request): a known placement type and
 * selectivity level (else an invalid request); the rkey, an MR's or a
 * window's, in the QP's PD with the flush rights of the placement type,
 * and at level RANGE [va, va + len) inside it; at level MR the whole MR,
 * whatever the RETH says.  Anything else is a remote access error, as for
 * a READ.  sroce has no persistent memory: no MR carries
 * IB_ACCESS_FLUSH_PERSISTENT (the core refuses it without
 * IB_DEVICE_FLUSH_PERSISTENT; windows carry no flush right at all), so a
 * PERSISTENT FLUSH is always refused, also on a QP that ib_cm gave the
 * right (SROCE_QP_ACCESS_FLUSH).  The responder
 * executes requests in order: every one before this has reached memory,
 * and a write barrier makes it globally visible before the answer.  A
 * responder resource answers it, and its duplicates, with an RDMA READ
 * RESPONSE ONLY without payload (as rdma_rxe does).
 * Context: the QP's responder run.
 * Return: SROCE_RESP_OK or the failure's enum sroce_resp_ret.
 */
enum sroce_resp_ret sroce_resp_do_flush(struct sroce_qp *qp,
					const struct sroce_pkt_info *pkt)
{
	struct sroce_feth *feth = sroce_pkt_hdr(pkt, SROCE_HDR_FETH);
	struct sroce_reth *reth = sroce_pkt_hdr(pkt, SROCE_HDR_RETH);
	int access = sroce_resp_flush_access(sroce_feth_type(feth));
	u8 level = sroce_feth_level(feth);
	struct sroce_resp *resp = to_sroce_resp(qp);
	struct sroce_resp_res *res;
	enum sroce_resp_ret ret;
	struct sroce_mr *mr;
	u16 idx;

	if (!access || (level != SROCE_FLUSH_RANGE && level != SROCE_FLUSH_MR)) {
		sroce_counter_inc(qp->dev, SROCE_CNT_REMOTE_INVALID_REQ);
		return SROCE_RESP_NAK_INV;
	}
	ret = sroce_resp_check_res(qp);
	if (ret)
		return ret;
	/* a zero length is in bounds of any MR: level MR names it whole */
	mr = sroce_resp_rkey(qp, be32_to_cpu(reth->rkey), be64_to_cpu(reth->va),
			     level == SROCE_FLUSH_MR ? 0 : be32_to_cpu(reth->len),
			     access);
	if (!mr)
		return SROCE_RESP_NAK_ACC;
	sroce_mr_put(mr);
	/* A19.4.1.1 global visibility: the stores before it, before the answer */
	wmb();
	res = sroce_resp_res_take(qp, SROCE_RES_FLUSH, pkt->psn, 1, &idx);
	resp->msn = (resp->msn + 1) & SROCE_MSN_MASK;
	if (sroce_resp_queue_read(qp, idx, pkt->psn, pkt->psn, 0, 0)) {
		res->type = SROCE_RES_FREE;
		resp->msn = (resp->msn - 1) & SROCE_MSN_MASK;
		return SROCE_RESP_DROP;
	}
	sroce_resp_set_epsn(resp, resp->epsn + 1);
	return SROCE_RESP_OK;
}

/* ------------------------------------------------------------------ */
/* Duplicates (IBTA 9.7.5.1.3)                                         */
/* ------------------------------------------------------------------ */

/* The resource a duplicate READ/atomic at @psn refers to, or NULL. */
static struct sroce_resp_res *sroce_resp_res_find(struct sroce_qp *qp,
						  u8 type, u32 psn, u16 *idx)
{
	struct sroce_resp *resp = to_sroce_resp(qp);
	struct sroce_resp_res *res;
	u32 i;

	for (i = 0; i < resp->res_cap; i++) {
		res = &resp->res[i];
		if (res->type != type ||
		    sroce_psn_before(psn, res->first_psn) ||
		    sroce_psn_after(psn, res->last_psn))
			continue;
		*idx = i;
		return res;
	}
	return NULL;
}

/*
 * Duplicate READ: replay the responses from its PSN, reading memory
 * again, if it asks for part of what the saved request covered with the
 * same R_Key; otherwise drop it (class D).
 */
static void sroce_resp_dup_read(struct sroce_qp *qp,
				const struct sroce_pkt_info *pkt)
{
	struct sroce_reth *reth = sroce_pkt_hdr(pkt, SROCE_HDR_RETH);
	struct sroce_resp *resp = to_sroce_resp(qp);
	u32 len = be32_to_cpu(reth->len);
	u64 va = be64_to_cpu(reth->va);
	struct sroce_resp_res *res;
	u32 last;
	u16 idx;

	res = sroce_resp_res_find(qp, SROCE_RES_READ, pkt->psn, &idx);
	if (!res || be32_to_cpu(reth->rkey) != res->rkey ||
	    va < res->va || len > res->length ||
	    va - res->va > res->length - len)
		return;
	last = sroce_psn_add(pkt->psn,
			     sroce_resp_read_npsn(len, resp->attr.mtu) - 1);
	if (sroce_psn_after(last, res->last_psn))
		return;
	sroce_resp_out_drop_from(qp, pkt->psn);
	sroce_resp_queue_read(qp, idx, pkt->psn, res->first_psn, va, len);
}

/* Duplicate atomic: send the saved result again, never re-execute. */
static void sroce_resp_dup_atomic(struct sroce_qp *qp,
				  const struct sroce_pkt_info *pkt)
{
	struct sroce_resp_res *res;
	u16 idx;

	res = sroce_resp_res_find(qp, SROCE_RES_ATOMIC, pkt->psn, &idx);
	if (!res)
		return;
	sroce_resp_out_drop_from(qp, pkt->psn);
	sroce_resp_queue_atomic(qp, idx, pkt->psn);
}

/*
 * Duplicate ATOMIC WRITE or FLUSH (resource @type): answer it again from
 * its resource, never store or flush again.
 */
static void sroce_resp_dup_empty(struct sroce_qp *qp,
				 const struct sroce_pkt_info *pkt, u8 type)
{
	struct sroce_resp_res *res;
	u16 idx;

	res = sroce_resp_res_find(qp, type, pkt->psn, &idx);
	if (!res)
		return;
	sroce_resp_out_drop_from(qp, pkt->psn);
	sroce_resp_queue_read(qp, idx, pkt->psn, pkt->psn, 0, 0);
}

/**
 * sroce_resp_duplicate() - answer a duplicate request
 * @qp: the responder's QP
 * @pkt: the request, behind the expected PSN
 *
 * A request behind the expected PSN (IBTA 9.7.5.1.3): a SEND or WRITE is
 * not executed again, only acknowledged when it asks for an ACK, with the
 * newest SEND or WRITE PSN run (sroce_resp_ack_psn(): never a PSN a READ
 * or atomic response answers) and the current MSN (C9-105; a coalesced
 * ACK, 9.7.5.1.1): a requester that resends after a timeout learns at
 * once all that arrived, rather than go back N over requests already run.
 * READs, atomics, ATOMIC WRITEs and FLUSHes are answered again.
 * Context: the QP's responder run.
 */
void sroce_resp_duplicate(struct sroce_qp *qp,
			  const struct sroce_pkt_info *pkt)
{
	sroce_counter_inc(qp->dev, SROCE_CNT_DUP_REQ);
	if (pkt->mask & SROCE_MASK_READ)
		sroce_resp_dup_read(qp, pkt);
	else if (pkt->mask & SROCE_MASK_ATOMIC)
		sroce_resp_dup_atomic(qp, pkt);
	else if (pkt->mask & SROCE_MASK_ATOMIC_WRITE)
		sroce_resp_dup_empty(qp, pkt, SROCE_RES_AWRITE);
	else if (pkt->mask & SROCE_MASK_FLUSH)
		sroce_resp_dup_empty(qp, pkt, SROCE_RES_FLUSH);
	else if (sroce_bth_ackreq(sroce_pkt_bth(pkt)))
		sroce_resp_queue_ack(qp, SROCE_AETH_ACK_UNLIMITED,
				     sroce_resp_ack_psn(to_sroce_resp(qp),
							pkt->psn));
}

