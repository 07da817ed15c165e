/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_resp.h - responder state: the receive side of RC, UC and UD queue
 * pairs (IBTA vol. 1 9.5, 9.7.4, 9.7.5, 9.8), and the interface between
 * the request handling (sroce_resp.c; sroce_resp_recv.c for receive WQEs,
 * SEND, RDMA WRITE and UD; sroce_resp_rdma.c for READ, atomics, ATOMIC
 * WRITE, FLUSH and duplicates) and the response queue (sroce_resp_out.c).
 *
 * Every member is touched only by the run that owns the QP's responder
 * (SROCE_DP_RESP_RUNNING: the work item, or an inline run from the receive
 * path or a doorbell; see struct sroce_dp), except the pend_* members,
 * which sroce_resp_modify() writes and that run reads, both
 * under qp->state_lock.
 */
#ifndef SROCE_RESP_H
#define SROCE_RESP_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/math.h>
#include <linux/skbuff.h>
#include <linux/sizes.h>
#include <rdma/ib_verbs.h>
#include <uapi/rdma/sroce-abi.h>

#include "sroce_av.h"
#include "sroce_hdr.h"
#include "sroce_mr.h"

struct sroce_net_batch;
struct sroce_qp;

/*
 * Queued responses beyond which new ones are dropped (the peer retries);
 * sroce_resp_res.busy counts up to this many.
 */
#define SROCE_RESP_MAX_OUT		(2 * SROCE_MAX_RD_ATOMIC + 16)

/*
 * RC requests ahead of the expected PSN the responder holds until the gap
 * before them is filled (struct sroce_resp.ooo): at most a requester's
 * window of PSNs ahead (SROCE_REQ_WINDOW), this many packets and bytes
 * (truesize), less than the receive backlog of one QP (SROCE_DP_RX_MAX_*).
 */
#define SROCE_RESP_OOO_MAX_AHEAD	256
#define SROCE_RESP_OOO_MAX_PKTS		256
#define SROCE_RESP_OOO_MAX_BYTES	SZ_1M

/* Plain ACK syndrome: credit field "invalid" (IBTA 9.7.5.1.2). */
#define SROCE_AETH_ACK_UNLIMITED	(SROCE_AETH_ACK | SROCE_AETH_CREDIT_INVALID)

/* What the current inbound message is (struct sroce_resp_msg.op). */
enum sroce_resp_msg_op {
	SROCE_MSG_NONE,
	SROCE_MSG_SEND,
	SROCE_MSG_WRITE,
};

/**
 * struct sroce_resp_msg - the multi-packet message being received
 * @op: SROCE_MSG_NONE between messages
 * @have_wqe: @wqe holds a copy of the receive WQE at the RQ consumer index
 *	(not consumed until the message completes) and @cur is initialised
 * @srq_held: @wqe is a WQE taken (consumed) from the QP's SRQ whose
 *	message has not completed: it belongs to this QP now, survives the
 *	end of a dropped message (the next message uses it) and is flushed
 *	when the QP enters the error state
 * @xsrqn: XRC TGT QP: the number of the XRC SRQ the message in progress
 *	(its first packet) named, and @wqe was taken from; its later packets
 *	must name it too
 * @len: payload bytes placed so far (SEND) or RETH DMA length (WRITE)
 * @cur: scatter position in @wqe's SGE list (holds an MR reference)
 * @rk: the R_Key of an RDMA WRITE, taken at its first packet and kept
 *	across the others: its MR (a reference and a hold) and window, each
 *	packet checking it still grants the access (sroce_rkey_ref_ok())
 * @va: next byte to write in @rk's MR
 * @resid: bytes of the RDMA WRITE still expected
 * @wqe: private copy of the receive WQE (validated, never re-read)
 */
struct sroce_resp_msg {
	u8 op;
	bool have_wqe;
	bool srq_held;
	u32 xsrqn;
	u32 len;
	struct sroce_sge_cursor cur;
	struct sroce_rkey_ref rk;
	u64 va;
	u32 resid;
	struct sroce_recv_wqe wqe;
};

/* struct sroce_resp_res.type */
enum sroce_resp_res_type {
	SROCE_RES_FREE,
	SROCE_RES_READ,
	SROCE_RES_ATOMIC,
	SROCE_RES_AWRITE,	/* ATOMIC WRITE (IBTA 1.5 oA19-28) */
	SROCE_RES_FLUSH,	/* FLUSH (IBTA 1.5 annex A19.4) */
};

/**
 * struct sroce_resp_res - a responder resource: one RDMA READ or atomic
 *	request remembered to answer its duplicates (IBTA 9.7.5.1.3, 9.7.5.1.5)
 * @type: enum sroce_resp_res_type
 * @busy: queued responses that still use this resource; at most the
 *	length of the response queue (SROCE_RESP_MAX_OUT, more than 255)
 * @first_psn: PSN of the request
 * @last_psn: PSN of its last response packet
 * @va: READ: first byte requested
 * @rkey: READ: R_Key of the request
 * @length: READ: bytes requested
 * @orig: ATOMIC: original remote value returned in the AtomicAckETH
 * @xsrqn: READ on an XRC TGT QP: the XRC SRQ the request named, whose PD
 *	the R_Key is checked in again when the responses go out
 */
struct sroce_resp_res {
	u8 type;
	u16 busy;
	u32 first_psn;
	u32 last_psn;
	u64 va;
	u32 rkey;
	u32 length;
	u64 orig;
	u32 xsrqn;
};

/**
 * struct sroce_resp_attr - QP attributes the responder uses, copied under
 *	qp->state_lock at the start of every responder entry point
 * @caps: what the QP state allows (enum sroce_qps_cap), taken from
 *	qp->state with the attributes below (sroce_resp_sync()), so that
 *	one entry point sees one state and the attributes that go with it.
 *	Never written otherwise
 * @access: qp_access_flags (IB_ACCESS_REMOTE_*)
 * @qkey: Q_Key (UD)
 * @mtu: path MTU in bytes
 * @dest_qpn: remote QPN (RC) responses go to
 * @rnr_code: min_rnr_timer, the 5-bit RNR NAK timer code
 * @max_rd: max_dest_rd_atomic
 * @av: the QP's path (RC): where responses go.  modify_qp rewrites
 *	qp->av under qp->state_lock, so responses are built from this copy
 */
struct sroce_resp_attr {
	u16 caps;
	int access;
	u32 qkey;
	u32 mtu;
	u32 dest_qpn;
	u8 rnr_code;
	u8 max_rd;
	struct sroce_av av;
};

/**
 * struct sroce_resp - responder state of one QP
 * @attr: attribute snapshot
 * @epsn: next expected request PSN (IBTA 9.7.4.1.1); written with
 *	WRITE_ONCE so query_qp may read it with READ_ONCE
 * @msn: message sequence number (IBTA 9.7.4.1.2), 24 bits
 * @ack_psn: the newest PSN a plain ACK may name: the last SEND or RDMA
 *	WRITE packet run.  A READ, atomic, ATOMIC WRITE or FLUSH is answered
 *	by its own response only (IBTA 9.7.5.1.6, 9.7.5.1.7): a requester
 *	such as rdma_rxe (Linux 6.1 and 6.12) completes a READ or atomic
 *	whose PSN a plain ACK names, without its data, when that response
 *	was lost
 * @ack_first: the first PSN of the message @ack_psn is in
 * @ack_end: @ack_psn is the last packet of its message
 * @nak_sent: a PSN sequence error NAK or an RNR NAK was sent for @epsn;
 *	no other NAK goes out until @epsn arrives (one NAK per sequence
 *	gap, IBTA 9.7.5.1.1)
 * @ooo_defer: the request being executed leaves its ACK to
 *	sroce_resp_ooo_answer(), which acknowledges the held requests
 *	processed after it as well
 * @ack_owed: held requests that asked for an ACK ran after a gap filler
 *	that did not, and no answer has gone out since (the requester's
 *	resend of the one that asked gets it); sent on destroy if still owed
 * @uc_drop: UC: the rest of the current message is being dropped
 * @failed: the responder moved the QP to the error state; drop packets
 *	until the QP is reset
 * @tx_blocked: the last send was pushed back (-EAGAIN); the work loop may
 *	read it after sroce_resp_run() returned true to delay the retry
 * @tx_batch: the packets of the sroce_resp_push() in progress that wait
 *	to leave as one skb (NULL outside it)
 * @tx_mark: where @tx_batch began in the READ response stream at the head
 *	of the queue: its PSN, address and bytes left
 * @tx_batch_segs: the most packets the next batch may hold, 1 to
 *	SROCE_NET_BATCH_SEGS (sroce_net_batch_next_segs())
 * @wc_err: receive completion status chosen by the step that failed
 * @msg: message being received
 * @xsrq: XRC TGT QP: the XRC SRQ the request being executed names, with
 *	a reference taken for that request only (sroce_resp_recv.c,
 *	"XRC"); its PD, ring and CQ stand in for the QP's.  NULL between
 *	requests
 * @res: @res_cap responder resources (RC), a ring recycled oldest first
 * @res_cap: entries of @res (max_dest_rd_atomic once allocated)
 * @res_head: next entry of @res to use
 * @out: queued responses (struct sroce_resp_out, sroce_resp_out.c),
 *	oldest first
 * @out_len: entries in @out
 * @rd: the R_Key of the READ response stream at the head of @out, once
 *	its first packet took it (its MR with a reference and a hold, its
 *	window), checked again for every packet; zeroed when none
 * @ooo: RC requests that arrived ahead of @epsn, in PSN order, each
 *	PSN once (sroce_resp.c, "Out-of-order hold"); bounded by
 *	SROCE_RESP_OOO_MAX_*, freed on reset and destroy
 * @ooo_bytes: truesize of the packets in @ooo
 * @pend_reset: set by sroce_resp_modify() on a move to RESET
 * @pend_psn: set by sroce_resp_modify() when rq_psn was given
 * @pend_psn_val: that rq_psn
 * @pend_res: set by sroce_resp_res_offer() when max_dest_rd_atomic was
 *	given: the responder resources for it (NULL for none), allocated by
 *	the verb on its caller's account, for the run to take up
 * @pend_res_set: @pend_res is to be taken up
 */
struct sroce_resp {
	struct sroce_resp_attr attr;
	u32 epsn;
	u32 msn;
	u32 ack_psn;
	u32 ack_first;
	bool ack_end;
	bool nak_sent;
	bool ooo_defer;
	bool ack_owed;
	bool uc_drop;
	bool failed;
	bool tx_blocked;
	struct sroce_net_batch *tx_batch;
	struct {
		u32 psn;
		u64 va;
		u32 resid;
	} tx_mark;
	u16 tx_batch_segs;
	u8 wc_err;
	struct sroce_resp_msg msg;
	struct sroce_srq *xsrq;
	struct sroce_resp_res *res;
	u32 res_cap;
	u32 res_head;
	struct list_head out;
	u32 out_len;
	struct sroce_rkey_ref rd;
	struct sk_buff_head ooo;
	u32 ooo_bytes;
	/* under qp->state_lock */
	bool pend_reset;
	bool pend_psn;
	u32 pend_psn_val;
	struct sroce_resp_res *pend_res;
	bool pend_res_set;
};

/* Response packets of an RDMA READ of @len bytes at path MTU @mtu. */
static inline u32 sroce_resp_read_npsn(u32 len, u32 mtu)
{
	return len ? DIV_ROUND_UP(len, mtu) : 1;
}

/* Response queue (sroce_resp_out.c) */
int sroce_resp_xmit_ack(struct sroce_qp *qp, u8 opcode, u8 syndrome,
			u32 psn, u32 msn, u64 orig);
void sroce_resp_queue_ack(struct sroce_qp *qp, u8 syndrome, u32 psn);
int sroce_resp_queue_read(struct sroce_qp *qp, u16 res, u32 psn,
			  u32 first_psn, u64 va, u32 len);
int sroce_resp_queue_atomic(struct sroce_qp *qp, u16 res, u32 psn);
void sroce_resp_out_drop_from(struct sroce_qp *qp, u32 psn);
void sroce_resp_out_clear(struct sroce_qp *qp);
bool sroce_resp_push(struct sroce_qp *qp, int budget);

/* Responder resources, allocated by modify_qp (sroce_resp.c) */
struct sroce_resp_res *sroce_resp_res_alloc(struct sroce_qp *qp,
					    const struct ib_qp_attr *attr,
					    int mask);
void sroce_resp_res_offer(struct sroce_qp *qp, int mask,
			  struct sroce_resp_res **res);

/* Request handling (sroce_resp.c), called back by the queue */
void sroce_resp_fatal(struct sroce_qp *qp, u8 syndrome, u32 psn);
struct sroce_pd *sroce_resp_xrc_pd(struct sroce_qp *qp, u32 xsrqn,
				   struct sroce_srq **srq);

/* Outcome of a check or do step of the responder. */
enum sroce_resp_ret {
	SROCE_RESP_OK,
	SROCE_RESP_DROP,	/* discard the packet, nothing else */
	SROCE_RESP_RNR,		/* no receive WQE (RC: RNR NAK) */
	SROCE_RESP_NAK_INV,	/* invalid request */
	SROCE_RESP_NAK_ACC,	/* remote access error */
	SROCE_RESP_NAK_OP,	/* remote operational (local QP) error */
};

struct sroce_pkt_info;

/* Steps shared by sroce_resp.c and sroce_resp_rdma.c (responder run only) */
void sroce_resp_set_epsn(struct sroce_resp *resp, u32 psn);
u32 sroce_resp_ack_psn(const struct sroce_resp *resp, u32 psn);
enum sroce_resp_ret sroce_resp_check_res(struct sroce_qp *qp);
struct sroce_resp_res *sroce_resp_res_take(struct sroce_qp *qp, u8 type,
					   u32 psn, u32 npsn, u16 *idx);
struct sroce_mr *sroce_resp_rkey(struct sroce_qp *qp, u32 rkey, u64 va,
				 u64 len, int access);
int sroce_resp_rkey_hold(struct sroce_qp *qp, u32 rkey, u64 va, u64 len,
			 int access, struct sroce_rkey_ref *ref);

/* Steps of sroce_resp.c that sroce_resp_recv.c uses (responder run only) */
void sroce_resp_sync(struct sroce_qp *qp);
void sroce_resp_rc_in_seq(struct sroce_qp *qp, struct sk_buff *skb,
			  const struct sroce_pkt_info *pkt, u32 len);

/* The out-of-order hold (sroce_resp_ooo.c; responder run only) */
void sroce_resp_ooo_purge(struct sroce_resp *resp);
bool sroce_resp_out_of_seq(struct sroce_qp *qp, struct sk_buff *skb, s32 diff);
void sroce_resp_ooo_answer(struct sroce_qp *qp, struct sk_buff *skb,
			   const struct sroce_pkt_info *pkt, u32 len);
u32 sroce_resp_payload_off(const struct sk_buff *skb,
			   const struct sroce_pkt_info *pkt);
void sroce_resp_unrel_error(struct sroce_qp *qp, enum sroce_resp_ret ret);

/* XRC SRQs, receive WQEs, SEND, RDMA WRITE, UD (sroce_resp_recv.c) */
struct sroce_pd *sroce_resp_pd(struct sroce_qp *qp);
bool sroce_resp_xrc_get(struct sroce_qp *qp, const struct sroce_pkt_info *pkt);
void sroce_resp_xrc_put(struct sroce_qp *qp);
void sroce_resp_msg_end(struct sroce_qp *qp);
void sroce_resp_complete_err(struct sroce_qp *qp, enum ib_wc_status status);
enum sroce_resp_ret sroce_resp_do_send(struct sroce_qp *qp,
				       struct sk_buff *skb,
				       const struct sroce_pkt_info *pkt,
				       u32 len);
enum sroce_resp_ret sroce_resp_do_write(struct sroce_qp *qp,
					struct sk_buff *skb,
					const struct sroce_pkt_info *pkt,
					u32 len);
void sroce_resp_ud(struct sroce_qp *qp, struct sk_buff *skb,
		   const struct sroce_pkt_info *pkt, u32 len);

/* Requests their own response answers (sroce_resp_rdma.c) */
enum sroce_resp_ret sroce_resp_do_read(struct sroce_qp *qp,
				       const struct sroce_pkt_info *pkt);
enum sroce_resp_ret sroce_resp_do_atomic(struct sroce_qp *qp,
					 const struct sroce_pkt_info *pkt);
enum sroce_resp_ret sroce_resp_do_awrite(struct sroce_qp *qp,
					 struct sk_buff *skb,
					 const struct sroce_pkt_info *pkt,
					 u32 len);
enum sroce_resp_ret sroce_resp_do_flush(struct sroce_qp *qp,
					const struct sroce_pkt_info *pkt);
void sroce_resp_duplicate(struct sroce_qp *qp,
			  const struct sroce_pkt_info *pkt);

#endif /* SROCE_RESP_H */
