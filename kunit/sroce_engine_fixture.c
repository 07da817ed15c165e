// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_engine_fixture.c - the fixture and script interpreter shared by
 * the engine suites (sroce_resp, sroce_resp_xrc, sroce_comp, sroce_req);
 * see sroce_engine_fixture.h for the notation.
 *
 * The device is a struct sroce_dev that is never registered with the IB
 * core: only what the verbs and the data path touch is set up (xarrays,
 * MTU, an unregistered Ethernet netdev for the headroom the packet
 * allocator reserves).  Every object is made through sroce_dev_ops, as the
 * core would call it for a kernel consumer.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/ip.h>
#include <linux/scatterlist.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <net/ipv6.h>

#include "sroce_compat.h"
#include "sroce_diag.h"
#include "sroce_engine_fixture.h"
#include "sroce_srq.h"
#include "sroce_verbs.h"

#define SROCE_FX_HEADROOM	128
#define SROCE_FX_CQE		256
#define SROCE_FX_QP_WR		32
#define SROCE_FX_ACCESS		(IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_ATOMIC)
#define SROCE_FX_MR_ACCESS	(IB_ACCESS_LOCAL_WRITE | SROCE_FX_ACCESS)
#define SROCE_FX_LOCAL_IP	0xc0a80101	/* 192.168.1.1 */
#define SROCE_FX_PEER_IP	0xc0a80102	/* 192.168.1.2 */

/**
 * struct sroce_fx - one test's device, QP and peer
 * @dev: the device (never registered); kunit_xmit captures its packets
 * @test: the running test
 * @c: the case
 * @ndev: unregistered netdev the device is bound to
 * @pd: PD of the QP and of most MRs
 * @pd2: another PD (SROCE_FX_KEY_PD)
 * @gid_attr: the source GID the QP's and the AH's path name
 * @scq: send CQ
 * @rcq: receive CQ
 * @qp: the QP under test
 * @ah: UD: the AH send WQEs name
 * @xrcd: XRC TGT QP: its XRC domain and another one
 * @srq: XRC TGT QP: the XRC SRQs, by enum sroce_fx_srq
 * @mr: DMA MRs, by enum sroce_fx_key
 * @frmr: FX_MW: the fast-register MR over @buf the windows bind to
 * @mw: FX_MW: the type 1 and the type 2B window (SROCE_FX_KEY_MW1, _MW2)
 * @buf: SROCE_FX_BUF_SIZE bytes all SGEs and RETH VAs point into
 * @tx: packets sent (private copies, BTH at skb->data)
 * @lock: protects @blocked, @allow, @pushback and @congest
 * @blocked: every transmission is pushed back (once @allow went out)
 * @allow: transmissions still let through while @blocked
 * @pushback: transmissions still to push back
 * @congest: transmissions still to send with NET_XMIT_CN
 * @fatal: IB_EVENT_QP_FATAL events seen
 * @nsend: send WQEs posted so far
 * @nrecv: receive WQEs posted so far
 */
struct sroce_fx {
	struct sroce_dev dev;
	struct kunit *test;
	const struct sroce_fx_case *c;
	struct net_device *ndev;
	struct sroce_pd pd;
	struct sroce_pd pd2;
	struct ib_gid_attr gid_attr;
	struct sroce_cq *scq;
	struct sroce_cq *rcq;
	struct sroce_qp *qp;
	struct sroce_ah *ah;
	struct ib_xrcd *xrcd[2];
	struct sroce_srq *srq[SROCE_FX_NUM_SRQ];
	struct ib_mr *mr[SROCE_FX_NUM_MR];
	struct ib_mr *frmr;
	struct sroce_mw *mw[2];
	u8 *buf;
	struct sk_buff_head tx;
	spinlock_t lock;	/* @blocked, @allow, @pushback, @congest */
	bool blocked;
	u32 allow;
	u32 pushback;
	u32 congest;
	atomic_t fatal;
	bool expiring;
	u32 nsend;
	u32 nrecv;
};

/* ------------------------------------------------------------------ */
/* The transmit hook and the receive side                              */
/* ------------------------------------------------------------------ */

/*
 * sroce_dev.kunit_xmit: keep a copy of the packet, or push it back; a
 * kept packet may be reported as queued on a congested qdisc.
 */
static int sroce_fx_xmit(struct sroce_dev *dev, struct sroce_qp *qp,
			 const struct sroce_av *av, struct sk_buff *skb)
{
	struct sroce_fx *fx = container_of(dev, struct sroce_fx, dev);
	struct sk_buff *copy = NULL;
	unsigned long flags;
	bool push, cn;

	spin_lock_irqsave(&fx->lock, flags);
	/* a batch's later packets went with its first (.batch cases) */
	push = false;
	if (!dev->kunit_batch_rest) {
		push = fx->pushback || (fx->blocked && !fx->allow);
		if (fx->pushback)
			fx->pushback--;
		else if (!push && fx->blocked)
			fx->allow--;
	}
	cn = !push && fx->congest;
	if (cn)
		fx->congest--;
	spin_unlock_irqrestore(&fx->lock, flags);
	if (push) {
		kfree_skb(skb);
		return -EAGAIN;
	}
	copy = skb_copy(skb, GFP_ATOMIC);
	if (copy)
		skb_queue_tail(&fx->tx, copy);
	/* the original's destructor (requester packets) runs now */
	consume_skb(skb);
	return cn ? NET_XMIT_CN : NET_XMIT_SUCCESS;
}

/*
 * Run the QP's work until it is idle: the outcome of a step is complete.
 * While every transmission is pushed back the engines retry from timers
 * forever; one pass is all there is to wait for then.
 */
static void sroce_fx_settle(struct sroce_fx *fx)
{
	int i;

	for (i = 0; fx->qp && i < 1000; i++) {
		/* each side of the data path has its work (sroce_dp.c) */
		flush_work(&fx->qp->dp.resp_work);
		flush_work(&fx->qp->work);
		if ((!work_pending(&fx->qp->work) &&
		     !work_pending(&fx->qp->dp.resp_work)) ||
		    READ_ONCE(fx->blocked))
			return;
	}
	if (fx->qp)
		KUNIT_FAIL(fx->test, "the QP's work does not settle");
}

static u32 sroce_fx_key(struct sroce_fx *fx, u8 key)
{
	struct sroce_mw *mw = NULL;

	if (key == SROCE_FX_KEY_MW1 || key == SROCE_FX_KEY_MW2)
		mw = fx->mw[key - SROCE_FX_KEY_MW1];
	if (mw)		/* the rkey in effect: binds change it */
		return READ_ONCE(mw->win->key);
	if (key >= SROCE_FX_NUM_MR)
		return fx->mr[SROCE_FX_KEY_MR]->rkey ^ 0x80;
	return fx->mr[key]->rkey;
}

/* The number of XRC SRQ @q (enum sroce_fx_srq); SROCE_FX_SRQ_NONE: unused. */
static u32 sroce_fx_srqn(struct sroce_fx *fx, u8 q)
{
	if (q < SROCE_FX_NUM_SRQ && fx->srq[q])
		return fx->srq[q]->srqn;
	return SROCE_SRQN_MASK;	/* numbers start at 1: never reached here */
}

static bool sroce_fx_is_xrc(const struct sroce_fx *fx)
{
	return fx->c->type == IB_QPT_XRC_TGT;
}

static u64 sroce_fx_va(struct sroce_fx *fx, u32 off)
{
	return (u64)(uintptr_t)(fx->buf + off);
}

static u32 sroce_fx_mtu(struct sroce_fx *fx)
{
	if (fx->c->type == IB_QPT_UD)
		return ib_mtu_enum_to_int(fx->dev.mtu_cap);
	return ib_mtu_enum_to_int(fx->c->mtu ?: IB_MTU_256);
}

static const char *sroce_fx_op_name(u8 opcode)
{
	return sroce_opcode[opcode].name ?: "invalid";
}

/* Header @type of a packet of @opcode whose BTH is at @hdr. */
static void *sroce_fx_hdr(u8 *hdr, u8 opcode, enum sroce_hdr_type type)
{
	return hdr + sroce_opcode[opcode].offset[type];
}

/* The RETH, AETH, AtomicETH and AtomicAckETH of an RX packet. */
static void sroce_fx_rx_ext(struct sroce_fx *fx, const struct sroce_fx_step *s,
			    u8 *hdr)
{
	u32 mask = sroce_opcode[s->op].mask;

	if (mask & SROCE_MASK_FETH) {
		struct sroce_feth *feth = sroce_fx_hdr(hdr, s->op, SROCE_HDR_FETH);

		feth->bits = sroce_feth_encode(s->plt, s->sel);
	}
	if (mask & SROCE_MASK_RETH) {
		struct sroce_reth *reth = sroce_fx_hdr(hdr, s->op, SROCE_HDR_RETH);

		reth->va = cpu_to_be64(s->va ?: sroce_fx_va(fx, s->off));
		reth->rkey = cpu_to_be32(sroce_fx_key(fx, s->key));
		reth->len = cpu_to_be32(s->dlen);
	}
	if (mask & SROCE_MASK_AETH) {
		struct sroce_aeth *aeth = sroce_fx_hdr(hdr, s->op, SROCE_HDR_AETH);

		aeth->smsn = cpu_to_be32(sroce_aeth_encode(s->syn, s->msn));
	}
	if (mask & SROCE_MASK_ATMETH) {
		struct sroce_atmeth *atm = sroce_fx_hdr(hdr, s->op,
							SROCE_HDR_ATMETH);

		atm->va = cpu_to_be64(sroce_fx_va(fx, s->off));
		atm->rkey = cpu_to_be32(sroce_fx_key(fx, s->key));
		atm->swap_add = cpu_to_be64(s->a);
		atm->comp = cpu_to_be64(s->b);
	}
	if (mask & SROCE_MASK_ATMACK) {
		struct sroce_atmack *ack = sroce_fx_hdr(hdr, s->op,
							SROCE_HDR_ATMACK);

		ack->orig = cpu_to_be64(s->a);
	}
}

/* The XRCETH, ImmDt, IETH and DETH of an RX packet. */
static void sroce_fx_rx_ext2(struct sroce_fx *fx, const struct sroce_fx_step *s,
			     u8 *hdr)
{
	u32 mask = sroce_opcode[s->op].mask;

	if (mask & SROCE_MASK_XRCETH) {
		struct sroce_xrceth *x = sroce_fx_hdr(hdr, s->op,
						      SROCE_HDR_XRCETH);

		x->srqn = cpu_to_be32(sroce_fx_srqn(fx, s->srqn));
	}
	if (mask & SROCE_MASK_IMMDT) {
		struct sroce_immdt *imm = sroce_fx_hdr(hdr, s->op,
						       SROCE_HDR_IMMDT);

		imm->imm = cpu_to_be32(s->imm);
	}
	if (mask & SROCE_MASK_IETH) {
		struct sroce_ieth *ieth = sroce_fx_hdr(hdr, s->op, SROCE_HDR_IETH);

		ieth->rkey = cpu_to_be32(sroce_fx_key(fx, s->key));
	}
	if (mask & SROCE_MASK_DETH) {
		struct sroce_deth *deth = sroce_fx_hdr(hdr, s->op, SROCE_HDR_DETH);

		deth->qkey = cpu_to_be32(s->qkey ?: SROCE_FX_QKEY);
		deth->sqp = cpu_to_be32(SROCE_FX_PEER_QPN);
	}
}

/*
 * An IPv4 header in front of the BTH, where the receive path leaves the
 * packet's own: the UD responder copies it into the GRH area.
 */
static void sroce_fx_rx_iphdr(struct sk_buff *skb)
{
	struct iphdr *iph = skb_push(skb, sizeof(*iph));

	skb_reset_network_header(skb);
	memset(iph, 0, sizeof(*iph));
	iph->version = 4;
	iph->ihl = 5;
	iph->tot_len = htons(skb->len + 8);
	iph->ttl = 64;
	iph->protocol = IPPROTO_UDP;
	iph->saddr = htonl(SROCE_FX_PEER_IP);
	iph->daddr = htonl(SROCE_FX_LOCAL_IP);
	__skb_pull(skb, sizeof(*iph));
}

/* Build the packet of an RX step: BTH, extended headers, payload, ICRC. */
static struct sk_buff *sroce_fx_rx_build(struct sroce_fx *fx,
					 const struct sroce_fx_step *s)
{
	u32 hlen = sroce_opcode[s->op].length;
	u32 pad = -s->len & 3;
	struct sk_buff *skb;
	u8 *hdr;
	u32 i;

	skb = alloc_skb(SROCE_FX_HEADROOM + hlen + s->len + pad +
			SROCE_ICRC_SIZE, GFP_KERNEL);
	if (!skb)
		return NULL;
	skb_reserve(skb, SROCE_FX_HEADROOM);
	hdr = skb_put_zero(skb, hlen + s->len + pad + SROCE_ICRC_SIZE);
	sroce_bth_init((struct sroce_bth *)hdr, s->op, s->se, pad,
		       SROCE_DEFAULT_PKEY, sroce_qpn(fx->qp), s->ackreq, s->psn);
	sroce_fx_rx_ext(fx, s, hdr);
	sroce_fx_rx_ext2(fx, s, hdr);
	for (i = 0; i < s->len; i++)
		hdr[hlen + i] = sroce_fx_pat_rx(s->data + i);
	sroce_fx_rx_iphdr(skb);
	return skb;
}

/*
 * Hand a packet to the data path as the receive path does after its
 * checks: metadata in skb->cb, a QP reference the data path drops, and
 * sroce_rcv() with BH disabled, as from the UDP socket's softirq.
 */
static void sroce_fx_deliver(struct sroce_fx *fx, struct sk_buff *skb)
{
	struct sroce_pkt_info *pkt = SROCE_PKT(skb);
	const struct sroce_bth *bth = (const struct sroce_bth *)skb->data;

	memset(pkt, 0, sizeof(*pkt));
	pkt->hdr = skb->data;
	pkt->paylen = skb->len;
	pkt->opcode = bth->opcode;
	pkt->mask = sroce_opcode[bth->opcode].mask;
	pkt->psn = sroce_bth_psn(bth);
	pkt->port_num = 1;
	pkt->network_type = RDMA_NETWORK_IPV4;
	sroce_qp_get(fx->qp);
	pkt->qp = fx->qp;
	local_bh_disable();
	sroce_rcv(skb);
	local_bh_enable();
}

static void sroce_fx_step_rx(struct sroce_fx *fx, const struct sroce_fx_step *s,
			     int i)
{
	struct sk_buff *skb = sroce_fx_rx_build(fx, s);

	if (!skb) {
		KUNIT_FAIL(fx->test, "step %d: no memory for the packet", i);
		return;
	}
	sroce_fx_deliver(fx, skb);
}

/* ------------------------------------------------------------------ */
/* Checking sent packets                                               */
/* ------------------------------------------------------------------ */

/* Payload bytes of a sent packet, or -1 when its lengths do not add up. */
static int sroce_fx_tx_len(const struct sk_buff *skb)
{
	const struct sroce_bth *bth = (const struct sroce_bth *)skb->data;
	u32 fixed = sroce_opcode[bth->opcode].length + sroce_bth_pad(bth) +
		    SROCE_ICRC_SIZE;

	if (skb->len < sizeof(*bth) || skb->len < fixed)
		return -1;
	return skb->len - fixed;
}

/* Index of the first byte of @got that differs from @want, or @len. */
static u32 sroce_fx_diff(const u8 *got, const u8 *want, u32 len)
{
	u32 k;

	for (k = 0; k < len && got[k] == want[k]; k++)
		;
	return k;
}

/* BTH fields and payload of a sent packet against step @s. */
static void sroce_fx_tx_bth(struct sroce_fx *fx, const struct sroce_fx_step *s,
			    int i, u8 *hdr, u32 len)
{
	const struct sroce_bth *bth = (const struct sroce_bth *)hdr;
	struct kunit *test = fx->test;
	u8 *payload = hdr + sroce_opcode[s->op].length;

	KUNIT_EXPECT_EQ_MSG(test, sroce_bth_psn(bth), s->psn,
			    "step %d: PSN of %s", i, sroce_fx_op_name(s->op));
	KUNIT_EXPECT_EQ_MSG(test, sroce_bth_ackreq(bth), s->ackreq,
			    "step %d: AckReq, PSN %#x", i, s->psn);
	KUNIT_EXPECT_EQ_MSG(test, sroce_bth_se(bth), s->se,
			    "step %d: SE, PSN %#x", i, s->psn);
	KUNIT_EXPECT_EQ_MSG(test, sroce_bth_qpn(bth), SROCE_FX_PEER_QPN,
			    "step %d: destination QPN", i);
	KUNIT_EXPECT_EQ_MSG(test, be16_to_cpu(bth->pkey), SROCE_DEFAULT_PKEY,
			    "step %d: P_Key", i);
	KUNIT_EXPECT_EQ_MSG(test, len, s->len,
			    "step %d: payload bytes, PSN %#x", i, s->psn);
	KUNIT_EXPECT_EQ_MSG(test, sroce_bth_pad(bth), -len & 3,
			    "step %d: PadCnt, PSN %#x", i, s->psn);
	if (len == s->len && s->buf + len <= SROCE_FX_BUF_SIZE)
		KUNIT_EXPECT_EQ_MSG(test, sroce_fx_diff(payload, fx->buf + s->buf,
							len), len,
				    "step %d: payload differs from buffer %#x",
				    i, s->buf);
}

/* FETH, RETH and AtomicETH of a sent request. */
static void sroce_fx_tx_req_ext(struct sroce_fx *fx,
				const struct sroce_fx_step *s, int i, u8 *hdr)
{
	u32 mask = sroce_opcode[s->op].mask;
	struct kunit *test = fx->test;

	if (mask & SROCE_MASK_FETH) {
		struct sroce_feth *feth = sroce_fx_hdr(hdr, s->op, SROCE_HDR_FETH);

		KUNIT_EXPECT_EQ_MSG(test, be32_to_cpu(feth->bits),
				    (u32)s->plt | (u32)s->sel << 4,
				    "step %d: FETH", i);
	}
	if (mask & SROCE_MASK_RETH) {
		struct sroce_reth *reth = sroce_fx_hdr(hdr, s->op, SROCE_HDR_RETH);

		KUNIT_EXPECT_EQ_MSG(test, be64_to_cpu(reth->va),
				    SROCE_FX_REMOTE_VA + s->off,
				    "step %d: RETH VA", i);
		KUNIT_EXPECT_EQ_MSG(test, be32_to_cpu(reth->rkey),
				    SROCE_FX_REMOTE_RKEY, "step %d: RETH R_Key", i);
		KUNIT_EXPECT_EQ_MSG(test, be32_to_cpu(reth->len), s->dlen,
				    "step %d: RETH DMA length", i);
	}
	if (mask & SROCE_MASK_ATMETH) {
		struct sroce_atmeth *atm = sroce_fx_hdr(hdr, s->op,
							SROCE_HDR_ATMETH);

		KUNIT_EXPECT_EQ_MSG(test, be64_to_cpu(atm->va),
				    SROCE_FX_REMOTE_VA + s->off,
				    "step %d: AtomicETH VA", i);
		KUNIT_EXPECT_EQ_MSG(test, be32_to_cpu(atm->rkey),
				    SROCE_FX_REMOTE_RKEY,
				    "step %d: AtomicETH R_Key", i);
		KUNIT_EXPECT_EQ_MSG(test, be64_to_cpu(atm->swap_add), s->a,
				    "step %d: AtomicETH swap/add", i);
		KUNIT_EXPECT_EQ_MSG(test, be64_to_cpu(atm->comp), s->b,
				    "step %d: AtomicETH compare", i);
	}
}

/* AETH, AtomicAckETH, ImmDt, IETH and DETH of a sent packet. */
static void sroce_fx_tx_ext(struct sroce_fx *fx, const struct sroce_fx_step *s,
			    int i, u8 *hdr)
{
	u32 mask = sroce_opcode[s->op].mask;
	struct kunit *test = fx->test;

	if (mask & SROCE_MASK_AETH) {
		struct sroce_aeth *aeth = sroce_fx_hdr(hdr, s->op, SROCE_HDR_AETH);

		KUNIT_EXPECT_EQ_MSG(test, sroce_aeth_syndrome(aeth), s->syn,
				    "step %d: AETH syndrome, PSN %#x", i, s->psn);
		KUNIT_EXPECT_EQ_MSG(test, sroce_aeth_msn(aeth), s->msn,
				    "step %d: AETH MSN, PSN %#x", i, s->psn);
	}
	if (mask & SROCE_MASK_ATMACK) {
		struct sroce_atmack *ack = sroce_fx_hdr(hdr, s->op,
							SROCE_HDR_ATMACK);

		KUNIT_EXPECT_EQ_MSG(test, be64_to_cpu(ack->orig), s->a,
				    "step %d: AtomicAckETH original value", i);
	}
	if (mask & SROCE_MASK_IMMDT) {
		struct sroce_immdt *imm = sroce_fx_hdr(hdr, s->op,
						       SROCE_HDR_IMMDT);

		KUNIT_EXPECT_EQ_MSG(test, be32_to_cpu(imm->imm), s->imm,
				    "step %d: ImmDt", i);
	}
	if (mask & SROCE_MASK_IETH) {
		struct sroce_ieth *ieth = sroce_fx_hdr(hdr, s->op, SROCE_HDR_IETH);

		KUNIT_EXPECT_EQ_MSG(test, be32_to_cpu(ieth->rkey), s->imm,
				    "step %d: IETH R_Key", i);
	}
	if (mask & SROCE_MASK_DETH) {
		struct sroce_deth *deth = sroce_fx_hdr(hdr, s->op, SROCE_HDR_DETH);

		KUNIT_EXPECT_EQ_MSG(test, be32_to_cpu(deth->qkey),
				    s->qkey ?: SROCE_FX_QKEY2,
				    "step %d: DETH Q_Key", i);
		KUNIT_EXPECT_EQ_MSG(test, be32_to_cpu(deth->sqp),
				    sroce_qpn(fx->qp), "step %d: DETH SrcQP", i);
	}
}

static void sroce_fx_step_tx(struct sroce_fx *fx, const struct sroce_fx_step *s,
			     int i)
{
	struct sk_buff *skb = skb_dequeue(&fx->tx);
	u8 op;
	int len;

	if (!skb) {
		KUNIT_FAIL(fx->test, "step %d: nothing sent, expected %s PSN %#x",
			   i, sroce_fx_op_name(s->op), s->psn);
		return;
	}
	op = skb->data[0];
	len = sroce_fx_tx_len(skb);
	KUNIT_EXPECT_STREQ_MSG(fx->test, sroce_fx_op_name(op),
			       sroce_fx_op_name(s->op),
			       "step %d: opcode, PSN %#x (expected %#x)", i,
			       sroce_bth_psn((struct sroce_bth *)skb->data),
			       s->psn);
	KUNIT_EXPECT_GE_MSG(fx->test, len, 0, "step %d: packet too short", i);
	if (op == s->op && len >= 0) {
		sroce_fx_tx_bth(fx, s, i, skb->data, len);
		sroce_fx_tx_req_ext(fx, s, i, skb->data);
		sroce_fx_tx_ext(fx, s, i, skb->data);
	}
	kfree_skb(skb);
}

/* One packet of a burst; false (and a failure) when it does not match. */
static bool sroce_fx_burst_one(struct sroce_fx *fx,
			       const struct sroce_fx_step *s, int i, u32 k,
			       struct sk_buff *skb)
{
	const struct sroce_bth *bth = (const struct sroce_bth *)skb->data;
	u32 mtu = sroce_fx_mtu(fx), off = s->buf + k * mtu;
	u32 psn = sroce_psn_add(s->psn, k);
	int len = sroce_fx_tx_len(skb);

	if (bth->opcode == s->op && sroce_bth_psn(bth) == psn && len == mtu &&
	    off + mtu <= SROCE_FX_BUF_SIZE &&
	    sroce_fx_diff(skb->data + sroce_opcode[s->op].length,
			  fx->buf + off, mtu) == mtu)
		return true;
	KUNIT_FAIL(fx->test,
		   "step %d: packet %u of the burst: %s PSN %#x, %d bytes; expected %s PSN %#x, %u bytes from %#x",
		   i, k, sroce_fx_op_name(bth->opcode), sroce_bth_psn(bth), len,
		   sroce_fx_op_name(s->op), psn, mtu, off);
	return false;
}

static void sroce_fx_step_burst(struct sroce_fx *fx,
				const struct sroce_fx_step *s, int i)
{
	struct sk_buff *skb;
	u32 k, acks = 0;
	bool ok = true;

	for (k = 0; ok && k < s->n; k++) {
		skb = skb_dequeue(&fx->tx);
		if (!skb) {
			KUNIT_FAIL(fx->test, "step %d: %u of %u packets sent",
				   i, k, s->n);
			return;
		}
		ok = sroce_fx_burst_one(fx, s, i, k, skb);
		acks += sroce_bth_ackreq((struct sroce_bth *)skb->data);
		kfree_skb(skb);
	}
	if (ok)
		KUNIT_EXPECT_EQ_MSG(fx->test, acks, s->acks,
				    "step %d: AckReq bits in the burst", i);
}

static void sroce_fx_step_no_tx(struct sroce_fx *fx, int i)
{
	struct sk_buff *skb = skb_dequeue(&fx->tx);

	if (!skb)
		return;
	KUNIT_FAIL(fx->test, "step %d: unexpected %s PSN %#x sent (%u more)", i,
		   sroce_fx_op_name(skb->data[0]),
		   sroce_bth_psn((struct sroce_bth *)skb->data),
		   skb_queue_len(&fx->tx));
	kfree_skb(skb);
	skb_queue_purge(&fx->tx);
}

/* ------------------------------------------------------------------ */
/* Checking completions                                                */
/* ------------------------------------------------------------------ */

static void sroce_fx_cqe_fields(struct sroce_fx *fx,
				const struct sroce_fx_step *s, int i,
				const struct ib_wc *wc)
{
	struct kunit *test = fx->test;

	KUNIT_EXPECT_STREQ_MSG(test, ib_wc_status_msg(wc->status),
			       ib_wc_status_msg(s->status),
			       "step %d: CQE status, wr_id %#llx", i, wc->wr_id);
	KUNIT_EXPECT_EQ_MSG(test, wc->wr_id, s->wr, "step %d: CQE wr_id", i);
	KUNIT_EXPECT_EQ_MSG(test, wc->opcode, s->wc_op, "step %d: CQE opcode",
			    i);
	KUNIT_EXPECT_EQ_MSG(test, wc->byte_len, s->len, "step %d: CQE byte_len",
			    i);
	KUNIT_EXPECT_EQ_MSG(test, wc->wc_flags, s->wcf, "step %d: CQE wc_flags",
			    i);
	KUNIT_EXPECT_PTR_EQ_MSG(test, wc->qp, &fx->qp->ibqp, "step %d: CQE QP",
				i);
	if (s->wcf & IB_WC_WITH_IMM)
		KUNIT_EXPECT_EQ_MSG(test, be32_to_cpu(wc->ex.imm_data), s->imm,
				    "step %d: CQE immediate data", i);
	if (s->wcf & IB_WC_WITH_INVALIDATE)
		KUNIT_EXPECT_EQ_MSG(test, wc->ex.invalidate_rkey,
				    sroce_fx_key(fx, s->key),
				    "step %d: CQE invalidated R_Key", i);
	if (s->wcf & IB_WC_GRH) {
		KUNIT_EXPECT_EQ_MSG(test, wc->src_qp, SROCE_FX_PEER_QPN,
				    "step %d: CQE source QP", i);
		KUNIT_EXPECT_EQ_MSG(test, wc->network_hdr_type,
				    RDMA_NETWORK_IPV4,
				    "step %d: CQE network header type", i);
	}
}

static void sroce_fx_step_cqe(struct sroce_fx *fx, struct sroce_cq *cq,
			      const struct sroce_fx_step *s, int i)
{
	struct ib_wc wc;

	if (sroce_dev_ops.poll_cq(&cq->ibcq, 1, &wc) != 1) {
		KUNIT_FAIL(fx->test, "step %d: no %s CQE, expected wr_id %#llx %s",
			   i, cq == fx->scq ? "send" : "receive", s->wr,
			   ib_wc_status_msg(s->status));
		return;
	}
	sroce_fx_cqe_fields(fx, s, i, &wc);
}

static void sroce_fx_no_cqe(struct sroce_fx *fx, struct sroce_cq *cq, int i)
{
	struct ib_wc wc;

	if (sroce_dev_ops.poll_cq(&cq->ibcq, 1, &wc) != 1)
		return;
	KUNIT_FAIL(fx->test, "step %d: unexpected %s CQE wr_id %#llx %s opcode %d",
		   i, cq == fx->scq ? "send" : "receive", wc.wr_id,
		   ib_wc_status_msg(wc.status), wc.opcode);
	while (sroce_dev_ops.poll_cq(&cq->ibcq, 1, &wc) == 1)
		;
}

/* ------------------------------------------------------------------ */
/* Posting work requests                                               */
/* ------------------------------------------------------------------ */

/* The remote part of a send WR: RDMA, atomic or UD destination. */
static void sroce_fx_wr_remote(struct sroce_fx *fx,
			       const struct sroce_fx_step *s,
			       struct ib_send_wr *wr)
{
	struct ib_atomic_wr *atomic = container_of(wr, struct ib_atomic_wr, wr);
	struct ib_rdma_wr *rdma = container_of(wr, struct ib_rdma_wr, wr);
	struct ib_ud_wr *ud = container_of(wr, struct ib_ud_wr, wr);

	if (fx->c->type == IB_QPT_UD) {
		ud->ah = &fx->ah->ibah;
		ud->remote_qpn = SROCE_FX_PEER_QPN;
		ud->remote_qkey = s->qkey ?: SROCE_FX_QKEY2;
		return;
	}
	switch (s->op) {
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		atomic->remote_addr = SROCE_FX_REMOTE_VA + s->off;
		atomic->rkey = SROCE_FX_REMOTE_RKEY;
		atomic->swap = s->a;
		atomic->compare_add = s->op == IB_WR_ATOMIC_CMP_AND_SWP ? s->b :
									  s->a;
		break;
	default:
		rdma->remote_addr = SROCE_FX_REMOTE_VA + s->off;
		rdma->rkey = SROCE_FX_REMOTE_RKEY;
		break;
	}
}

/*
 * Write one send WQE into the SQ ring as a provider does (sroce-abi.h)
 * and ring the doorbell as a user QP's.  The QP counts as a user QP from
 * now on: the requester checks the WQE by the rules of userspace, which
 * take what no kernel verb carries (ATOMIC WRITE, FLUSH).
 */
static void sroce_fx_step_post_wqe(struct sroce_fx *fx,
				   const struct sroce_fx_step *s, int i)
{
	struct sroce_qp *qp = fx->qp;
	struct sroce_send_wqe *wqe;
	const struct ib_send_wr *bad;
	u32 prod, k;
	int err;

	qp->is_user = true;
	prod = qp->sq.hdr->producer;
	wqe = sroce_queue_slot(&qp->sq, prod);
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = s->wr ?: ++fx->nsend;
	wqe->opcode = s->op;
	wqe->send_flags = s->flags | (s->unsig ? 0 : IB_SEND_SIGNALED);
	wqe->wr.rdma.remote_addr = SROCE_FX_REMOTE_VA + s->off;
	wqe->wr.rdma.rkey = SROCE_FX_REMOTE_RKEY;
	wqe->wr.rdma.length = s->dlen;
	wqe->wr.rdma.flush_type = s->plt;
	wqe->wr.rdma.flush_level = s->sel;
	wqe->num_sge = min_t(u32, s->n, SROCE_MAX_SGE);
	for (k = 0; k < wqe->num_sge; k++) {
		wqe->sge[k].addr = sroce_fx_va(fx, s->buf);
		wqe->sge[k].length = s->len;
		wqe->sge[k].lkey = sroce_fx_key(fx, s->key);
	}
	/* the data path acquires the producer index of a user ring */
	smp_store_release(&qp->sq.hdr->producer, prod + 1);
	if (s->nodb)
		return;
	err = sroce_dev_ops.post_send(&qp->ibqp, NULL, &bad);
	KUNIT_EXPECT_EQ_MSG(fx->test, err, s->err, "step %d: doorbell", i);
}

static void sroce_fx_step_post_send(struct sroce_fx *fx,
				    const struct sroce_fx_step *s, int i)
{
	union {
		struct ib_rdma_wr rdma;
		struct ib_atomic_wr atomic;
		struct ib_ud_wr ud;
	} u = {};
	struct ib_send_wr *wr = &u.rdma.wr;
	const struct ib_send_wr *bad = NULL;
	struct ib_sge sge = {
		.addr = sroce_fx_va(fx, s->buf),
		.length = s->len,
		.lkey = sroce_fx_key(fx, s->key),
	};
	int err;

	if (s->kind == SROCE_FX_POST_WQE) {
		sroce_fx_step_post_wqe(fx, s, i);
		return;
	}
	BUILD_BUG_ON(offsetof(struct ib_atomic_wr, wr) ||
		     offsetof(struct ib_ud_wr, wr));
	wr->wr_id = s->wr ?: ++fx->nsend;
	wr->opcode = s->op;
	wr->send_flags = s->flags | (s->unsig ? 0 : IB_SEND_SIGNALED);
	wr->sg_list = &sge;
	wr->num_sge = 1;
	if (s->op == IB_WR_SEND_WITH_INV)
		wr->ex.invalidate_rkey = s->imm;
	else
		wr->ex.imm_data = cpu_to_be32(s->imm);
	sroce_fx_wr_remote(fx, s, wr);
	err = sroce_dev_ops.post_send(&fx->qp->ibqp, wr, &bad);
	KUNIT_EXPECT_EQ_MSG(fx->test, err, s->err, "step %d: post_send", i);
}

/* Post @wr to the QP's RQ, or on an XRC TGT QP to XRC SRQ @q. */
static int sroce_fx_post_recv(struct sroce_fx *fx, u8 q,
			      const struct ib_recv_wr *wr)
{
	const struct ib_recv_wr *bad = NULL;

	if (!sroce_fx_is_xrc(fx))
		return sroce_dev_ops.post_recv(&fx->qp->ibqp, wr, &bad);
	if (q >= SROCE_FX_NUM_SRQ)
		return -ENOENT;
	return sroce_dev_ops.post_srq_recv(&fx->srq[q]->ibsrq, wr, &bad);
}

static void sroce_fx_step_post_recv(struct sroce_fx *fx,
				    const struct sroce_fx_step *s, int i)
{
	u32 len = s->len ?: SROCE_FX_RECV_LEN;
	struct ib_recv_wr wr = {};
	struct ib_sge sge;
	u32 k;
	int err;

	for (k = 0; k < s->n; k++) {
		sge.addr = sroce_fx_va(fx, s->buf + k * len);
		sge.length = len;
		sge.lkey = sroce_fx_key(fx, s->key);
		wr.wr_id = s->wr ? s->wr + k : 0x100 + fx->nrecv++;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		err = sroce_fx_post_recv(fx, s->srqn, &wr);
		KUNIT_EXPECT_EQ_MSG(fx->test, err, s->err,
				    "step %d: post_recv %u", i, k);
	}
}

/* ------------------------------------------------------------------ */
/* State, counters, memory                                             */
/* ------------------------------------------------------------------ */

static enum ib_qp_state sroce_fx_qp_state(struct sroce_fx *fx)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;

	sroce_dev_ops.query_qp(&fx->qp->ibqp, &attr, IB_QP_STATE, &init);
	return attr.qp_state;
}

static void sroce_fx_step_modify(struct sroce_fx *fx,
				 const struct sroce_fx_step *s, int i)
{
	struct ib_qp_attr attr = { .qp_state = s->n };

	KUNIT_EXPECT_EQ_MSG(fx->test,
			    sroce_dev_ops.modify_qp(&fx->qp->ibqp, &attr,
						    IB_QP_STATE, NULL), 0,
			    "step %d: modify_qp to state %u", i, s->n);
}

static void sroce_fx_step_mem(struct sroce_fx *fx, const struct sroce_fx_step *s,
			      int i, bool orig)
{
	u32 k;

	if (s->buf + s->len > SROCE_FX_BUF_SIZE) {
		KUNIT_FAIL(fx->test, "step %d: range outside the buffer", i);
		return;
	}
	for (k = 0; k < s->len; k++)
		if (fx->buf[s->buf + k] != (orig ? sroce_fx_pat_tx(s->buf + k) :
					    sroce_fx_pat_rx(s->data + k)))
			break;
	KUNIT_EXPECT_EQ_MSG(fx->test, k, s->len,
			    "step %d: buffer at %#x differs at byte %u", i,
			    s->buf, k);
}

/* BLOCK (after .n), UNBLOCK, PUSHBACK (.n), CONGEST (.n) */
static void sroce_fx_set_block(struct sroce_fx *fx,
			       const struct sroce_fx_step *s)
{
	unsigned long flags;

	spin_lock_irqsave(&fx->lock, flags);
	if (s->kind == SROCE_FX_CONGEST) {
		fx->congest = s->n;
	} else {
		fx->blocked = s->kind == SROCE_FX_BLOCK;
		fx->allow = fx->blocked ? s->n : 0;
		fx->pushback = s->kind == SROCE_FX_PUSHBACK ? s->n : 0;
	}
	spin_unlock_irqrestore(&fx->lock, flags);
}

/*
 * ARMED: whether the send side has unacknowledged packets to time out
 * (sroce_send_needs_timer()), and if so that its retransmit timer is
 * pending or has fired for the next run: the invariant sroce_diag.c
 * checks after every run.
 */
static void sroce_fx_step_armed(struct sroce_fx *fx,
				const struct sroce_fx_step *s, int i)
{
	bool needs = sroce_send_needs_timer(fx->qp);

	KUNIT_EXPECT_EQ_MSG(fx->test, needs, !!s->n,
			    "step %d: unacknowledged packets to time out", i);
	KUNIT_EXPECT_TRUE_MSG(fx->test, sroce_send_retrans_armed(fx->qp),
			      "step %d: retransmit timer not armed", i);
}

/*
 * EXPIRE: the retransmit timer expires as the timer core runs it, in two
 * halves that a run on another CPU can fall between: .n 0, the core takes
 * the pending timer off its list (its function has not run yet); .n 1,
 * the function runs (it drops the reference the timer held).
 */
static void sroce_fx_step_expire(struct sroce_fx *fx,
				 const struct sroce_fx_step *s, int i)
{
	struct timer_list *t = &fx->qp->dp.send.retrans_timer;

	if (!s->n) {
		KUNIT_EXPECT_FALSE_MSG(fx->test, fx->expiring,
				       "step %d: an expiry is under way", i);
		fx->expiring = del_timer(t);
		KUNIT_EXPECT_TRUE_MSG(fx->test, fx->expiring,
				      "step %d: the timer was not pending", i);
		return;
	}
	KUNIT_EXPECT_TRUE_MSG(fx->test, fx->expiring,
			      "step %d: no expiry under way", i);
	if (fx->expiring)
		sroce_retx_retrans_timer_fn(t);
	fx->expiring = false;
}

/* Steps that check state rather than traffic. */
static void sroce_fx_step_check(struct sroce_fx *fx,
				const struct sroce_fx_step *s, int i)
{
	struct kunit *test = fx->test;

	switch (s->kind) {
	case SROCE_FX_STATE:
		KUNIT_EXPECT_EQ_MSG(test, sroce_fx_qp_state(fx), s->n,
				    "step %d: QP state (IB_QPS_*)", i);
		break;
	case SROCE_FX_COUNT:
		KUNIT_EXPECT_EQ_MSG(test, atomic64_read(&fx->dev.counters[s->ctr]),
				    (s64)s->n, "step %d: counter %u", i, s->ctr);
		break;
	case SROCE_FX_FATAL:
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&fx->fatal), (int)s->n,
				    "step %d: IB_EVENT_QP_FATAL events", i);
		break;
	case SROCE_FX_MEM:
	case SROCE_FX_MEM_ORIG:
		sroce_fx_step_mem(fx, s, i, s->kind == SROCE_FX_MEM_ORIG);
		break;
	case SROCE_FX_MEM_U64:
		KUNIT_EXPECT_EQ_MSG(test, *(u64 *)(fx->buf + s->buf), s->a,
				    "step %d: u64 at %#x", i, s->buf);
		break;
	case SROCE_FX_SET_U64:
		*(u64 *)(fx->buf + s->buf) = s->a;
		break;
	case SROCE_FX_MR_VALID:
		KUNIT_EXPECT_EQ_MSG(test,
				    READ_ONCE(to_sroce_mr(fx->mr[s->key])->valid),
				    !!s->n, "step %d: MR %u valid", i, s->key);
		break;
	case SROCE_FX_SRQ_WQES:
		if (s->srqn >= SROCE_FX_NUM_SRQ || !fx->srq[s->srqn]) {
			KUNIT_FAIL(test, "step %d: no XRC SRQ %u", i, s->srqn);
			break;
		}
		KUNIT_EXPECT_EQ_MSG(test, sroce_queue_count(&fx->srq[s->srqn]->rq),
				    (int)s->n, "step %d: WQEs on XRC SRQ %u", i,
				    s->srqn);
		break;
	case SROCE_FX_CWND:
		KUNIT_EXPECT_EQ_MSG(test, READ_ONCE(fx->qp->dp.send.cwnd), s->n,
				    "step %d: congestion window", i);
		break;
	case SROCE_FX_ARMED:
		sroce_fx_step_armed(fx, s, i);
		break;
	case SROCE_FX_SQ_FLAGS:
		KUNIT_EXPECT_EQ_MSG(test, READ_ONCE(fx->qp->sq.hdr->sq_flags),
				    s->n, "step %d: SQ ring sq_flags", i);
		break;
	default:
		KUNIT_FAIL(test, "step %d: unknown kind %u", i, s->kind);
	}
}

/* ------------------------------------------------------------------ */
/* Memory windows (FX_MW)                                              */
/* ------------------------------------------------------------------ */

/*
 * The fast-register MR the windows bind to: @buf whole, local write and
 * MW_BIND, registered as IB_WR_REG_MR would (the buffer is vmalloc'ed:
 * with the core's virtual DMA a block's DMA address is its kernel VA).
 */
static int sroce_fx_create_frmr(struct sroce_fx *fx)
{
	struct scatterlist sg;
	unsigned int off = 0;
	struct sroce_mr *mr;
	struct ib_mr *ibmr;
	u32 key;

	ibmr = sroce_dev_ops.alloc_mr(&fx->pd.ibpd, IB_MR_TYPE_MEM_REG,
				      SROCE_FX_BUF_SIZE / PAGE_SIZE);
	if (IS_ERR(ibmr))
		return PTR_ERR(ibmr);
	fx->frmr = ibmr;
	sg_init_table(&sg, 1);
	sg_dma_address(&sg) = sroce_fx_va(fx, 0);
	sg_dma_len(&sg) = SROCE_FX_BUF_SIZE;
	if (sroce_dev_ops.map_mr_sg(ibmr, &sg, 1, &off) != 1)
		return -EINVAL;
	mr = to_sroce_mr(ibmr);
	key = (mr->key & ~0xffU) | ((mr->key + 1) & 0xff);
	return sroce_mr_fast_reg(&fx->dev, &fx->pd, mr, key,
				 IB_ACCESS_LOCAL_WRITE | IB_ACCESS_MW_BIND);
}

/* Window @k of the QP's PD, allocated as ibv_alloc_mw() does. */
static int sroce_fx_create_mw(struct sroce_fx *fx, u32 k)
{
	struct sroce_mw *mw;
	int err;

	if (!fx->frmr) {
		err = sroce_fx_create_frmr(fx);
		if (err)
			return err;
	}
	mw = kzalloc(sizeof(*mw), GFP_KERNEL);
	if (!mw)
		return -ENOMEM;
	mw->ibmw.device = &fx->dev.ib_dev;
	mw->ibmw.pd = &fx->pd.ibpd;
	mw->ibmw.type = k ? IB_MW_TYPE_2 : IB_MW_TYPE_1;
	err = sroce_dev_ops.alloc_mw(&mw->ibmw, NULL);
	if (err) {
		kfree(mw);
		return err;
	}
	fx->mw[k] = mw;
	return 0;
}

static void sroce_fx_dealloc_mw(struct sroce_fx *fx, u32 k)
{
	sroce_dev_ops.dealloc_mw(&fx->mw[k]->ibmw);
	kfree(fx->mw[k]);
	fx->mw[k] = NULL;
}

/*
 * An FX_MW step, carried out with the functions the requester runs for
 * IB_WR_BIND_MW and IB_WR_LOCAL_INV WQEs of the QP (or the verb).
 * Return: what they return.
 */
static int sroce_fx_mw_op(struct sroce_fx *fx, const struct sroce_fx_step *s)
{
	u32 k = s->key - SROCE_FX_KEY_MW1;
	struct sroce_mw_bind b = {};
	int err;

	if (k >= ARRAY_SIZE(fx->mw))
		return -ENOENT;
	if (!fx->mw[k] && s->n == SROCE_FX_MW_BIND) {
		err = sroce_fx_create_mw(fx, k);
		if (err)
			return err;
	}
	if (!fx->mw[k])
		return -ENOENT;
	b.mw_rkey = READ_ONCE(fx->mw[k]->win->key);
	switch (s->n) {
	case SROCE_FX_MW_LINV:
		return sroce_mr_local_inv(&fx->dev, &fx->pd, b.mw_rkey,
					  sroce_qpn(fx->qp));
	case SROCE_FX_MW_DEALLOC:
		sroce_fx_dealloc_mw(fx, k);
		return 0;
	case SROCE_FX_MW_BIND:
		b.length = SROCE_FX_BUF_SIZE;
		break;
	case SROCE_FX_MW_REBIND:
		b.length = PAGE_SIZE;
		break;
	}
	b.new_rkey = (b.mw_rkey & ~0xffU) | ((b.mw_rkey + 1) & 0xff);
	b.mr_lkey = to_sroce_mr(fx->frmr)->key;
	b.access = SROCE_MW_ACCESS;
	b.addr = sroce_fx_va(fx, 0);
	return sroce_mw_bind(&fx->dev, &fx->pd, sroce_qpn(fx->qp), &b);
}

static void sroce_fx_step_mw(struct sroce_fx *fx,
			     const struct sroce_fx_step *s, int i)
{
	KUNIT_EXPECT_EQ_MSG(fx->test, sroce_fx_mw_op(fx, s), s->err,
			    "step %d: window %u, operation %u", i, s->key, s->n);
}

static void sroce_fx_step_run(struct sroce_fx *fx,
			      const struct sroce_fx_step *s, int i);

/*
 * The device's drain: the fixture's CQs, which nobody else polls, become
 * IB_POLL_DIRECT ones that the drain polls itself; the marker CQEs are
 * consumed there (a numbered WQE's CQE would not be: none may be left).
 */
static void sroce_fx_drain(struct sroce_fx *fx)
{
	/* ib_process_cq_direct() polls through the device's ops */
	fx->dev.ib_dev.ops.poll_cq = sroce_dev_ops.poll_cq;
	fx->scq->ibcq.poll_ctx = IB_POLL_DIRECT;
	fx->rcq->ibcq.poll_ctx = IB_POLL_DIRECT;
	sroce_dev_ops.drain_sq(&fx->qp->ibqp);
	sroce_dev_ops.drain_rq(&fx->qp->ibqp);
}

/* Run step @i; the QP's work is settled afterwards. */
static void sroce_fx_step(struct sroce_fx *fx, const struct sroce_fx_step *s,
			  int i)
{
	switch (s->kind) {
	case SROCE_FX_RX:
		sroce_fx_step_rx(fx, s, i);
		break;
	case SROCE_FX_TX:
		sroce_fx_step_tx(fx, s, i);
		break;
	case SROCE_FX_TX_BURST:
		sroce_fx_step_burst(fx, s, i);
		break;
	case SROCE_FX_NO_TX:
		sroce_fx_step_no_tx(fx, i);
		break;
	case SROCE_FX_SCQE:
	case SROCE_FX_RCQE:
		sroce_fx_step_cqe(fx, s->kind == SROCE_FX_SCQE ? fx->scq : fx->rcq,
				  s, i);
		break;
	case SROCE_FX_NO_CQE:
		sroce_fx_no_cqe(fx, fx->scq, i);
		sroce_fx_no_cqe(fx, fx->rcq, i);
		break;
	case SROCE_FX_POST_SEND:
	case SROCE_FX_POST_WQE:
		sroce_fx_step_post_send(fx, s, i);
		break;
	case SROCE_FX_POST_RECV:
		sroce_fx_step_post_recv(fx, s, i);
		break;
	case SROCE_FX_MODIFY:
		sroce_fx_step_modify(fx, s, i);
		break;
	case SROCE_FX_BLOCK:
	case SROCE_FX_UNBLOCK:
	case SROCE_FX_PUSHBACK:
	case SROCE_FX_CONGEST:
		sroce_fx_set_block(fx, s);
		break;
	case SROCE_FX_WAIT:
		msleep(s->n);
		break;
	case SROCE_FX_HOLD:
	case SROCE_FX_RELEASE:
	case SROCE_FX_RESP_HOLD:
	case SROCE_FX_RESP_RELEASE:
	case SROCE_FX_REOPEN:
	case SROCE_FX_DEV_FATAL:
	case SROCE_FX_DRAIN:
	case SROCE_FX_DESTROY:
		sroce_fx_step_run(fx, s, i);
		break;
	case SROCE_FX_MW:
		sroce_fx_step_mw(fx, s, i);
		break;
	case SROCE_FX_EXPIRE:
		sroce_fx_step_expire(fx, s, i);
		break;
	default:
		sroce_fx_step_check(fx, s, i);
	}
	sroce_fx_settle(fx);
	/* every run ended with a way to run the QP again (sroce_diag.c) */
	KUNIT_EXPECT_EQ_MSG(fx->test,
			    atomic64_read(&fx->dev.counters[SROCE_CNT_WAKEUP_REPAIRS]),
			    0LL, "step %d: a send side was left without a timer", i);
}

/* ------------------------------------------------------------------ */
/* Set-up and tear-down                                                */
/* ------------------------------------------------------------------ */

static void sroce_fx_event(struct ib_event *ev, void *ctx)
{
	struct sroce_fx *fx = ctx;

	if (ev->event == IB_EVENT_QP_FATAL)
		atomic_inc(&fx->fatal);
}

/* Object limits of the fixture's device: 0, the device maxima. */
static const unsigned int sroce_fx_no_limits[SROCE_NUM_RES];

/* The device: what the verbs and the data path use, nothing registered. */
static int sroce_fx_dev_init(struct sroce_fx *fx)
{
	struct sroce_dev *dev = &fx->dev;

	sroce_mr_dev_init(dev);	/* first: the destroy path drains it */
	fx->ndev = alloc_netdev(0, "srocekt%d", NET_NAME_ENUM, ether_setup);
	if (!fx->ndev)
		return -ENOMEM;
	dev->ndev = fx->ndev;
	INIT_LIST_HEAD(&dev->list);
	INIT_LIST_HEAD(&dev->net_list);
	xa_init_flags(&dev->qp_xa, XA_FLAGS_ALLOC);
	xa_init_flags(&dev->srq_xa, XA_FLAGS_ALLOC1);
	xa_init_flags(&dev->mr_xa, XA_FLAGS_ALLOC1);
	xa_init_flags(&dev->ah_xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	sroce_res_init(dev, sroce_fx_no_limits);
	dev->port_state = IB_PORT_ACTIVE;
	dev->mtu_cap = IB_MTU_1024;
	dev->ib_dev.phys_port_cnt = 1;
	dev->ib_dev.num_comp_vectors = 1;
	dev->kunit_xmit = sroce_fx_xmit;
	dev->kunit_batch = fx->c->batch;

	fx->pd.ibpd.device = &dev->ib_dev;
	fx->pd2.ibpd.device = &dev->ib_dev;
	fx->gid_attr.device = &dev->ib_dev;
	fx->gid_attr.ndev = fx->ndev;
	fx->gid_attr.port_num = 1;
	fx->gid_attr.gid_type = IB_GID_TYPE_ROCE_UDP_ENCAP;
	ipv6_addr_set_v4mapped(htonl(SROCE_FX_LOCAL_IP),
			       (struct in6_addr *)fx->gid_attr.gid.raw);
	return 0;
}

static struct sroce_cq *sroce_fx_create_cq(struct sroce_fx *fx)
{
	struct ib_cq_init_attr attr = { .cqe = SROCE_FX_CQE };
	struct sroce_cq *cq = kzalloc(sizeof(*cq), GFP_KERNEL);

	if (!cq)
		return NULL;
	cq->ibcq.device = &fx->dev.ib_dev;
	if (sroce_dev_ops.create_cq(&cq->ibcq, &attr, NULL)) {
		kfree(cq);
		return NULL;
	}
	return cq;
}

/* The DMA MRs of enum sroce_fx_key. */
static int sroce_fx_create_mrs(struct sroce_fx *fx)
{
	static const struct {
		bool pd2;
		int access;
	} mrs[SROCE_FX_NUM_MR] = {
		[SROCE_FX_KEY_MR] = { false, SROCE_FX_MR_ACCESS },
		[SROCE_FX_KEY_RO] = { false, IB_ACCESS_LOCAL_WRITE },
		[SROCE_FX_KEY_PD] = { true, SROCE_FX_MR_ACCESS },
		[SROCE_FX_KEY_INV] = { false, SROCE_FX_MR_ACCESS },
		[SROCE_FX_KEY_FLUSH] = { false, SROCE_FX_MR_ACCESS |
						SROCE_MR_ACCESS_FLUSH },
	};
	struct ib_mr *mr;
	int k;

	for (k = 0; k < SROCE_FX_NUM_MR; k++) {
		mr = sroce_dev_ops.get_dma_mr(mrs[k].pd2 ? &fx->pd2.ibpd :
							   &fx->pd.ibpd,
					      mrs[k].access);
		if (IS_ERR(mr))
			return PTR_ERR(mr);
		fx->mr[k] = mr;
	}
	/*
	 * The flush right as a 6.2+ core registers it; 6.1's core never
	 * passes the bit (SROCE_MR_ACCESS_FLUSH is 0 there), the responder
	 * checks it all the same.
	 */
	to_sroce_mr(fx->mr[SROCE_FX_KEY_FLUSH])->access |=
		SROCE_ACCESS_FLUSH_GLOBAL;
	return 0;
}

/* A RoCEv2 path from our GID to the peer's IPv4 address. */
static void sroce_fx_ah_attr(struct sroce_fx *fx, struct rdma_ah_attr *attr)
{
	union ib_gid dgid;

	ipv6_addr_set_v4mapped(htonl(SROCE_FX_PEER_IP),
			       (struct in6_addr *)dgid.raw);
	memset(attr, 0, sizeof(*attr));
	attr->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(attr, 1);
	rdma_ah_set_grh(attr, &dgid, 0, 0, 64, 0);
	attr->grh.sgid_attr = &fx->gid_attr;
}

static int sroce_fx_create_ah(struct sroce_fx *fx)
{
	struct rdma_ah_attr attr;
	struct rdma_ah_init_attr init = {
		.ah_attr = &attr,
		.flags = RDMA_CREATE_AH_SLEEPABLE,
	};
	int err;

	fx->ah = kzalloc(sizeof(*fx->ah), GFP_KERNEL);
	if (!fx->ah)
		return -ENOMEM;
	fx->ah->ibah.device = &fx->dev.ib_dev;
	fx->ah->ibah.pd = &fx->pd.ibpd;
	sroce_fx_ah_attr(fx, &attr);
	err = sroce_dev_ops.create_ah(&fx->ah->ibah, &init, NULL);
	if (err) {
		kfree(fx->ah);
		fx->ah = NULL;
	}
	return err;
}

/* An XRC domain, as the core hands it to alloc_xrcd. */
static struct ib_xrcd *sroce_fx_create_xrcd(struct sroce_fx *fx)
{
	struct sroce_xrcd *x = kzalloc(sizeof(*x), GFP_KERNEL);

	if (!x)
		return NULL;
	x->ibxrcd.device = &fx->dev.ib_dev;
	if (sroce_dev_ops.alloc_xrcd(&x->ibxrcd, NULL)) {
		kfree(x);
		return NULL;
	}
	return &x->ibxrcd;
}

/*
 * A kernel XRC SRQ of @xrcd and @pd completing to the receive CQ, as the
 * core hands it to create_srq (which also publishes its number).
 */
static struct sroce_srq *sroce_fx_create_srq(struct sroce_fx *fx,
					     struct ib_xrcd *xrcd,
					     struct sroce_pd *pd)
{
	struct sroce_srq *srq = kzalloc(sizeof(*srq), GFP_KERNEL);
	struct ib_srq_init_attr init = {
		.srq_type = IB_SRQT_XRC,
		.attr = { .max_wr = SROCE_FX_QP_WR, .max_sge = 1 },
		.ext.cq = &fx->rcq->ibcq,
		.ext.xrc.xrcd = xrcd,
	};

	if (!srq)
		return NULL;
	srq->ibsrq.device = &fx->dev.ib_dev;
	srq->ibsrq.pd = &pd->ibpd;
	srq->ibsrq.srq_type = IB_SRQT_XRC;
	srq->ibsrq.ext.cq = init.ext.cq;
	srq->ibsrq.ext.xrc.xrcd = xrcd;
	if (sroce_dev_ops.create_srq(&srq->ibsrq, &init, NULL)) {
		kfree(srq);
		return NULL;
	}
	return srq;
}

/* XRC TGT QP case: two XRC domains and the SRQs of enum sroce_fx_srq. */
static int sroce_fx_create_xrc(struct sroce_fx *fx)
{
	fx->xrcd[0] = sroce_fx_create_xrcd(fx);
	fx->xrcd[1] = sroce_fx_create_xrcd(fx);
	if (!fx->xrcd[0] || !fx->xrcd[1])
		return -ENOMEM;
	fx->srq[SROCE_FX_SRQ_A] = sroce_fx_create_srq(fx, fx->xrcd[0], &fx->pd);
	fx->srq[SROCE_FX_SRQ_B] = sroce_fx_create_srq(fx, fx->xrcd[0], &fx->pd2);
	fx->srq[SROCE_FX_SRQ_X] = sroce_fx_create_srq(fx, fx->xrcd[1], &fx->pd);
	if (!fx->srq[SROCE_FX_SRQ_A] || !fx->srq[SROCE_FX_SRQ_B] ||
	    !fx->srq[SROCE_FX_SRQ_X])
		return -ENOMEM;
	return 0;
}

/*
 * The QP of the case.  An XRC TGT QP has an XRC domain and neither PD nor
 * CQs; the core sets its ibqp.xrcd after create_qp.
 */
static int sroce_fx_create_qp(struct sroce_fx *fx)
{
	bool tgt = sroce_fx_is_xrc(fx);
	struct ib_qp_init_attr init = {
		.send_cq = tgt ? NULL : &fx->scq->ibcq,
		.recv_cq = tgt ? NULL : &fx->rcq->ibcq,
		.xrcd = tgt ? fx->xrcd[0] : NULL,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = fx->c->type,
		.cap = {
			.max_send_wr = SROCE_FX_QP_WR,
			.max_recv_wr = SROCE_FX_QP_WR,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	struct sroce_qp *qp = kzalloc(sizeof(*qp), GFP_KERNEL);
	int err;

	if (!qp)
		return -ENOMEM;
	qp->ibqp.device = &fx->dev.ib_dev;
	qp->ibqp.pd = tgt ? NULL : &fx->pd.ibpd;
	qp->ibqp.send_cq = init.send_cq;
	qp->ibqp.recv_cq = init.recv_cq;
	qp->ibqp.qp_type = fx->c->type;
	qp->ibqp.event_handler = sroce_fx_event;
	qp->ibqp.qp_context = fx;
	err = sroce_dev_ops.create_qp(&qp->ibqp, &init, NULL);
	if (err) {
		kfree(qp);
		return err;
	}
	qp->ibqp.xrcd = init.xrcd;
	fx->qp = qp;
	return 0;
}

static int sroce_fx_modify(struct sroce_fx *fx, struct ib_qp_attr *attr,
			   int mask)
{
	return sroce_dev_ops.modify_qp(&fx->qp->ibqp, attr, mask, NULL);
}

/* A case attribute: 0 is @def, SROCE_FX_ZERO is 0. */
static u8 sroce_fx_attr(u8 v, u8 def)
{
	if (v == SROCE_FX_ZERO)
		return 0;
	return v ?: def;
}

/*
 * The flush rights of a case's access flags that sroce_modify_qp() takes
 * from no 6.1 core (it has no such bits): given to the QP as a 6.2+ core
 * would pass them.
 */
#define SROCE_FX_QP_FLUSH	((SROCE_ACCESS_FLUSH_GLOBAL | \
				  SROCE_ACCESS_FLUSH_PERSISTENT) & \
				 ~SROCE_QP_ACCESS_FLUSH)

static int sroce_fx_to_init(struct sroce_fx *fx)
{
	const struct sroce_fx_case *c = fx->c;
	int access = c->access ?: SROCE_FX_ACCESS;
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.port_num = 1,
		.qkey = SROCE_FX_QKEY,
		.qp_access_flags = access & ~SROCE_FX_QP_FLUSH,
	};
	int mask = IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT;
	int err;

	mask |= c->type == IB_QPT_UD ? IB_QP_QKEY : IB_QP_ACCESS_FLAGS;
	err = sroce_fx_modify(fx, &attr, mask);
	if (!err && c->type != IB_QPT_UD) {
		spin_lock_irq(&fx->qp->state_lock);
		fx->qp->attr.qp_access_flags |= access & SROCE_FX_QP_FLUSH;
		spin_unlock_irq(&fx->qp->state_lock);
	}
	return err;
}

static int sroce_fx_to_rtr(struct sroce_fx *fx)
{
	const struct sroce_fx_case *c = fx->c;
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_RTR,
		.path_mtu = c->mtu ?: IB_MTU_256,
		.dest_qp_num = SROCE_FX_PEER_QPN,
		.rq_psn = c->rq_psn,
		.max_dest_rd_atomic = sroce_fx_attr(c->max_dest_rd, 4),
		.min_rnr_timer = c->rnr_timer,
	};
	int mask = IB_QP_STATE;

	if (c->type != IB_QPT_UD) {
		sroce_fx_ah_attr(fx, &attr.ah_attr);
		mask |= IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN |
			IB_QP_RQ_PSN;
	}
	if (c->type == IB_QPT_RC || c->type == IB_QPT_XRC_TGT)
		mask |= IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER;
	return sroce_fx_modify(fx, &attr, mask);
}

static int sroce_fx_to_rts(struct sroce_fx *fx)
{
	const struct sroce_fx_case *c = fx->c;
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_RTS,
		.sq_psn = c->sq_psn,
		.timeout = c->timeout,
		.retry_cnt = sroce_fx_attr(c->retry, 7),
		.rnr_retry = sroce_fx_attr(c->rnr_retry, 7),
		.max_rd_atomic = sroce_fx_attr(c->max_rd, 4),
	};
	int mask = IB_QP_STATE | IB_QP_SQ_PSN;

	if (c->type == IB_QPT_RC)
		mask |= IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			IB_QP_MAX_QP_RD_ATOMIC;
	if (c->type == IB_QPT_XRC_TGT)	/* a responder: no retries */
		mask |= IB_QP_TIMEOUT;
	return sroce_fx_modify(fx, &attr, mask);
}

/*
 * Take the responder's RUNNING bit, waiting out a run in progress (a
 * pushed-back response is retried from a timer).
 */
static void sroce_fx_resp_hold(struct sroce_fx *fx, int i)
{
	unsigned long *flags = &fx->qp->dp.flags;
	int n;

	for (n = 0; n < 1000; n++) {
		if (!test_and_set_bit_lock(SROCE_DP_RESP_RUNNING, flags))
			return;
		usleep_range(20, 50);
	}
	KUNIT_FAIL(fx->test, "step %d: the responder's run never ends", i);
}

/*
 * HOLD takes the send side's RUNNING bit as a run on another CPU owns
 * it: kicks, doorbells and the work leave the send side alone (they
 * leave a KICK) until RELEASE gives it back and rings the doorbell.
 * RESP_HOLD and RESP_RELEASE do the same to the responder: requests
 * wait in its receive backlog, pushed-back responses are not retried,
 * until the QP's work runs it again.  REOPEN takes the QP through RESET
 * back to RTS with the case's attributes.  DEV_FATAL fails the device,
 * DRAIN drains the QP, DESTROY destroys it.
 */
static void sroce_fx_step_run(struct sroce_fx *fx,
			      const struct sroce_fx_step *s, int i)
{
	unsigned long *flags = &fx->qp->dp.flags;
	int err = 0;

	switch (s->kind) {
	case SROCE_FX_HOLD:
		KUNIT_EXPECT_FALSE_MSG(fx->test,
				       test_and_set_bit_lock(SROCE_DP_RUNNING,
							     flags),
				       "step %d: a run is in progress", i);
		break;
	case SROCE_FX_RELEASE:
		clear_bit_unlock(SROCE_DP_RUNNING, flags);
		sroce_dp_doorbell(fx->qp);
		break;
	case SROCE_FX_RESP_HOLD:
		sroce_fx_resp_hold(fx, i);
		break;
	case SROCE_FX_RESP_RELEASE:
		clear_bit_unlock(SROCE_DP_RESP_RUNNING, flags);
		sroce_qp_schedule(fx->qp);
		break;
	case SROCE_FX_DEV_FATAL:
		sroce_dev_set_fatal(&fx->dev);
		break;
	case SROCE_FX_DRAIN:
		sroce_fx_drain(fx);
		break;
	case SROCE_FX_DESTROY:
		sroce_dev_ops.destroy_qp(&fx->qp->ibqp, NULL);
		kfree(fx->qp);
		fx->qp = NULL;
		break;
	default:
		err = sroce_fx_modify(fx, &(struct ib_qp_attr){
					.qp_state = IB_QPS_RESET },
				      IB_QP_STATE);
		err = err ?: sroce_fx_to_init(fx);
		err = err ?: sroce_fx_to_rtr(fx);
		err = err ?: sroce_fx_to_rts(fx);
		KUNIT_EXPECT_EQ_MSG(fx->test, err, 0,
				    "step %d: RESET to RTS", i);
	}
}

static void sroce_fx_destroy(struct sroce_fx *fx)
{
	int k;

	if (fx->qp && fx->expiring)	/* a case left its timer half-fired */
		sroce_retx_retrans_timer_fn(&fx->qp->dp.send.retrans_timer);
	if (fx->qp) {
		sroce_dev_ops.destroy_qp(&fx->qp->ibqp, NULL);
		kfree(fx->qp);
	}
	if (fx->ah) {
		sroce_dev_ops.destroy_ah(&fx->ah->ibah, RDMA_DESTROY_AH_SLEEPABLE);
		kfree(fx->ah);
	}
	for (k = 0; k < SROCE_FX_NUM_SRQ; k++)
		if (fx->srq[k]) {
			sroce_dev_ops.destroy_srq(&fx->srq[k]->ibsrq, NULL);
			kfree(fx->srq[k]);
		}
	for (k = 0; k < ARRAY_SIZE(fx->xrcd); k++)
		if (fx->xrcd[k]) {
			sroce_dev_ops.dealloc_xrcd(fx->xrcd[k], NULL);
			kfree(container_of(fx->xrcd[k], struct sroce_xrcd, ibxrcd));
		}
	for (k = 0; k < ARRAY_SIZE(fx->mw); k++)
		if (fx->mw[k])
			sroce_fx_dealloc_mw(fx, k);
	if (fx->frmr)
		sroce_dev_ops.dereg_mr(fx->frmr, NULL);
	for (k = 0; k < SROCE_FX_NUM_MR; k++)
		if (fx->mr[k])
			sroce_dev_ops.dereg_mr(fx->mr[k], NULL);
	if (fx->scq)
		sroce_dev_ops.destroy_cq(&fx->scq->ibcq, NULL);
	if (fx->rcq)
		sroce_dev_ops.destroy_cq(&fx->rcq->ibcq, NULL);
	kfree(fx->scq);
	kfree(fx->rcq);
	skb_queue_purge(&fx->tx);
	sroce_mr_dev_drain(&fx->dev);
	xa_destroy(&fx->dev.qp_xa);
	xa_destroy(&fx->dev.srq_xa);
	xa_destroy(&fx->dev.mr_xa);
	xa_destroy(&fx->dev.ah_xa);
	if (fx->ndev)
		free_netdev(fx->ndev);
	vfree(fx->buf);
	kfree(fx);
}

/* Everything but the QP's state: device, buffer, MRs, CQs, AH. */
static int sroce_fx_objects(struct sroce_fx *fx)
{
	u32 k;
	int err;

	err = sroce_fx_dev_init(fx);
	if (err)
		return err;
	fx->buf = vmalloc(SROCE_FX_BUF_SIZE);
	if (!fx->buf)
		return -ENOMEM;
	for (k = 0; k < SROCE_FX_BUF_SIZE; k++)
		fx->buf[k] = sroce_fx_pat_tx(k);
	err = sroce_fx_create_mrs(fx);
	if (err)
		return err;
	fx->scq = sroce_fx_create_cq(fx);
	fx->rcq = sroce_fx_create_cq(fx);
	if (!fx->scq || !fx->rcq)
		return -ENOMEM;
	if (fx->c->type == IB_QPT_UD)
		return sroce_fx_create_ah(fx);
	if (sroce_fx_is_xrc(fx))
		return sroce_fx_create_xrc(fx);
	return 0;
}

/* The fixture of case @c with its QP in RTS, or NULL (test failed). */
static struct sroce_fx *sroce_fx_create(struct kunit *test,
					const struct sroce_fx_case *c)
{
	struct sroce_fx *fx = kzalloc(sizeof(*fx), GFP_KERNEL);
	int err;

	if (!fx) {
		KUNIT_FAIL(test, "no memory for the fixture");
		return NULL;
	}
	fx->test = test;
	fx->c = c;
	skb_queue_head_init(&fx->tx);
	spin_lock_init(&fx->lock);
	atomic_set(&fx->fatal, 0);
	err = sroce_fx_objects(fx);
	if (!err)
		err = sroce_fx_create_qp(fx);
	if (!err)
		err = sroce_fx_to_init(fx);
	if (!err)
		err = sroce_fx_to_rtr(fx);
	if (!err)
		err = sroce_fx_to_rts(fx);
	if (err) {
		KUNIT_FAIL(test, "fixture set-up failed: %d", err);
		sroce_fx_destroy(fx);
		return NULL;
	}
	sroce_fx_settle(fx);
	return fx;
}

/**
 * sroce_fx_case_desc() - KUnit parameter description of a case
 * @c: the case
 * @desc: KUNIT_PARAM_DESC_SIZE bytes to fill
 */
void sroce_fx_case_desc(const struct sroce_fx_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

/**
 * sroce_fx_run() - run one case of an engine suite
 * @test: the test; test->param_value is the struct sroce_fx_case
 *
 * Builds the fixture, runs the script until its end or the first step
 * that fails, checks that no packet or CQE is left unchecked, and tears
 * everything down.
 * Context: process (a KUnit test thread); sleeps.
 */
void sroce_fx_run(struct kunit *test)
{
	const struct sroce_fx_case *c = test->param_value;
	const struct sroce_fx_step *s;
	struct sroce_fx *fx;
	int i;

	fx = sroce_fx_create(test, c);
	if (!fx)
		return;
	for (i = 0, s = c->steps; s->kind != SROCE_FX_END; i++, s++) {
		sroce_fx_step(fx, s, i);
		if (READ_ONCE(test->status) == KUNIT_FAILURE)
			break;
	}
	if (s->kind == SROCE_FX_END) {
		sroce_fx_step_no_tx(fx, i);
		sroce_fx_no_cqe(fx, fx->scq, i);
		sroce_fx_no_cqe(fx, fx->rcq, i);
	}
	sroce_fx_destroy(fx);
}
