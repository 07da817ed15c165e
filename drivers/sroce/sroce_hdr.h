/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_hdr.h - RoCEv2 transport headers on the wire (IBTA vol. 1 ch. 9,
 * annex A17), the opcode table that drives parsing and building, PSN
 * arithmetic and AETH encoding.
 *
 * All multi-byte fields are big-endian on the wire.  A packet's transport
 * headers start at the BTH; the opcode table gives, per opcode, which
 * extended headers follow and at which offsets, so no parser hard-codes a
 * layout.
 */
#ifndef SROCE_HDR_H
#define SROCE_HDR_H

#include <linux/types.h>
#include <linux/bits.h>
#include <linux/skbuff.h>
#include <rdma/ib_verbs.h>
#include <uapi/rdma/sroce-abi.h>

#define SROCE_UDP_PORT		4791
#define SROCE_ICRC_SIZE		4
#define SROCE_PSN_MASK		0xffffffU
#define SROCE_QPN_MASK		0xffffffU
#define SROCE_MSN_MASK		0xffffffU
#define SROCE_DEFAULT_PKEY	0xffff
#define SROCE_GSI_QKEY		0x80010000U
#define SROCE_CNP_OPCODE	0x81
/*
 * RC ATOMIC WRITE (IBTA vol. 1 1.5, table 38 and oA19-28): BTH, RETH and
 * 8 bytes of payload; Linux 6.2+ names it IB_OPCODE_RC_ATOMIC_WRITE.
 */
#define SROCE_OPCODE_RC_ATOMIC_WRITE	0x1d
/*
 * RC FLUSH (IBTA vol. 1 1.5, table 38 and annex A19.4): BTH, FETH, RETH,
 * no payload; Linux 6.2+ names it IB_OPCODE_RC_FLUSH.
 */
#define SROCE_OPCODE_RC_FLUSH		0x1c

/* BTH, 12 bytes (IBTA 9.2) */
struct sroce_bth {
	u8 opcode;
	u8 flags;		/* SE(1) MigReq(1) PadCnt(2) TVer(4) */
	__be16 pkey;
	__be32 qpn;		/* FECN(1) BECN(1) resv(6) DestQP(24) */
	__be32 apsn;		/* AckReq(1) resv(7) PSN(24) */
} __packed;

#define SROCE_BTH_SE		0x80
#define SROCE_BTH_MIG		0x40
#define SROCE_BTH_PAD_MASK	0x30
#define SROCE_BTH_PAD_SHIFT	4
#define SROCE_BTH_TVER_MASK	0x0f
#define SROCE_BTH_FECN		BIT(31)
#define SROCE_BTH_BECN		BIT(30)
#define SROCE_BTH_ACKREQ	BIT(31)

/* RETH, 16 bytes (IBTA 9.3.3) */
struct sroce_reth {
	__be64 va;
	__be32 rkey;
	__be32 len;
} __packed;

/*
 * FETH, 4 bytes (IBTA annex A19.4.1): the placement type in bits 3..0,
 * the selectivity level in bits 5..4 (SROCE_FETH_* of sroce-abi.h).
 */
struct sroce_feth {
	__be32 bits;
} __packed;

/* AETH, 4 bytes (IBTA 9.3.5) */
struct sroce_aeth {
	__be32 smsn;		/* Syndrome(8) MSN(24) */
} __packed;

/* AtomicETH, 28 bytes (IBTA 9.3.4) */
struct sroce_atmeth {
	__be64 va;
	__be32 rkey;
	__be64 swap_add;
	__be64 comp;
} __packed;

/* AtomicAckETH, 8 bytes (IBTA 9.5.3) */
struct sroce_atmack {
	__be64 orig;
} __packed;

/* DETH, 8 bytes (IBTA 9.3.2) */
struct sroce_deth {
	__be32 qkey;
	__be32 sqp;		/* resv(8) SrcQP(24) */
} __packed;

/* ImmDt, 4 bytes (IBTA 9.3.6) */
struct sroce_immdt {
	__be32 imm;
} __packed;

/* IETH, 4 bytes (IBTA 9.3.7) */
struct sroce_ieth {
	__be32 rkey;
} __packed;

/*
 * XRCETH, 4 bytes (IBTA annex A14): in every XRC request, right after the BTH;
 * names the XRC SRQ at the target that receives the message.
 */
struct sroce_xrceth {
	__be32 srqn;		/* resv(8) XRCSRQ(24) */
} __packed;

#define SROCE_SRQN_MASK		0xffffffU

/* Extended headers a packet may carry, in wire order after the BTH. */
enum sroce_hdr_type {
	SROCE_HDR_BTH,
	SROCE_HDR_XRCETH,
	SROCE_HDR_FETH,
	SROCE_HDR_RETH,
	SROCE_HDR_AETH,
	SROCE_HDR_ATMETH,
	SROCE_HDR_ATMACK,
	SROCE_HDR_IETH,
	SROCE_HDR_DETH,
	SROCE_HDR_IMMDT,
	SROCE_HDR_PAYLOAD,
	SROCE_NUM_HDR_TYPES
};

/* Bits of sroce_opcode_info.mask */
enum sroce_hdr_mask {
	SROCE_MASK_BTH		= BIT(SROCE_HDR_BTH),
	SROCE_MASK_XRCETH	= BIT(SROCE_HDR_XRCETH),
	SROCE_MASK_FETH		= BIT(SROCE_HDR_FETH),
	SROCE_MASK_RETH		= BIT(SROCE_HDR_RETH),
	SROCE_MASK_AETH		= BIT(SROCE_HDR_AETH),
	SROCE_MASK_ATMETH	= BIT(SROCE_HDR_ATMETH),
	SROCE_MASK_ATMACK	= BIT(SROCE_HDR_ATMACK),
	SROCE_MASK_IETH		= BIT(SROCE_HDR_IETH),
	SROCE_MASK_DETH		= BIT(SROCE_HDR_DETH),
	SROCE_MASK_IMMDT	= BIT(SROCE_HDR_IMMDT),
	SROCE_MASK_PAYLOAD	= BIT(SROCE_HDR_PAYLOAD),

	SROCE_MASK_REQ		= BIT(12),	/* request (responder handles) */
	SROCE_MASK_ACK		= BIT(13),	/* response (completer handles) */
	SROCE_MASK_SEND		= BIT(14),
	SROCE_MASK_WRITE	= BIT(15),
	SROCE_MASK_READ		= BIT(16),
	SROCE_MASK_ATOMIC	= BIT(17),
	/* takes a receive WQE: SEND FIRST/ONLY, WRITE LAST/ONLY w/ imm */
	SROCE_MASK_RWR		= BIT(18),
	/* completes it: SEND LAST/ONLY, WRITE LAST/ONLY with immediate */
	SROCE_MASK_COMP		= BIT(19),
	SROCE_MASK_START	= BIT(20),	/* first or only packet */
	SROCE_MASK_MIDDLE	= BIT(21),
	SROCE_MASK_END		= BIT(22),	/* last or only packet */
	SROCE_MASK_CNP		= BIT(23),
	SROCE_MASK_INV		= BIT(24),	/* send with invalidate */
	SROCE_MASK_ATOMIC_WRITE	= BIT(25),	/* RC ATOMIC WRITE */
	SROCE_MASK_FLUSH	= BIT(26),	/* RC FLUSH */
};

/* Transport classes: top three bits of the opcode (IBTA 9.2.1). */
#define SROCE_OP_RC		0x00
#define SROCE_OP_UC		0x20
#define SROCE_OP_UD		0x60
#define SROCE_OP_XRC		0xa0	/* IBTA 9.2.1: 101b */
#define SROCE_OP_TRANSPORT	0xe0

/*
 * XRC opcodes are RC's with the XRC transport bits (IBTA 9.2, table 38):
 * the RC opcode an XRC one stands for, any other unchanged.  Responses
 * (ACKs, READ responses, atomic ACKs) have the same headers in both.
 */
static inline u8 sroce_rc_opcode(u8 opcode)
{
	if ((opcode & SROCE_OP_TRANSPORT) == SROCE_OP_XRC)
		return opcode & ~SROCE_OP_TRANSPORT;
	return opcode;
}

/**
 * struct sroce_opcode_info - what one BTH opcode carries
 * @name: IBTA name, e.g. "RC_RDMA_WRITE_FIRST"; NULL for an invalid opcode
 * @mask: SROCE_MASK_* bits
 * @length: bytes of BTH plus extended headers (payload offset)
 * @qpt: QP type this opcode goes to (IB_QPT_RC, IB_QPT_UC, IB_QPT_UD;
 *	XRC requests IB_QPT_XRC_TGT, XRC responses IB_QPT_XRC_INI); UD also
 *	covers GSI
 * @offset: byte offset of each present header from the start of the BTH
 */
struct sroce_opcode_info {
	const char *name;
	u32 mask;
	u8 length;
	u8 qpt;
	u8 offset[SROCE_NUM_HDR_TYPES];
};

/* Indexed by BTH opcode; entries without a @name are invalid opcodes. */
extern const struct sroce_opcode_info sroce_opcode[256];

static inline bool sroce_opcode_valid(u8 opcode)
{
	return sroce_opcode[opcode].name;
}

/* Work request opcodes each QP type accepts, send flags each may carry. */
bool sroce_wr_opcode_ok(enum ib_qp_type type, u32 opcode);
bool sroce_wr_kernel_opcode_ok(enum ib_qp_type type, u32 opcode);
bool sroce_wr_flags_ok(u32 opcode, u32 flags);

/**
 * struct sroce_pkt_info - per-packet metadata kept in skb->cb
 * @qp: destination (RX) or source (TX) QP; holds a reference on RX
 * @hdr: start of the BTH in the skb's linear data
 * @mask: sroce_opcode[@opcode].mask
 * @psn: PSN from the BTH
 * @paylen: bytes from the BTH to the end of the ICRC
 * @opcode: BTH opcode
 * @ecn: ECN bits of the IP header (RX)
 * @port_num: 1
 * @network_type: RDMA_NETWORK_IPV4 or RDMA_NETWORK_IPV6
 * @local: (RX) handed over by the device itself, from a QP of its own
 *	(sroce_recv_skb_local()): never on a wire, so no ICRC was computed
 *
 * Must fit skb->cb (48 bytes).
 */
struct sroce_pkt_info {
	struct sroce_qp *qp;
	u8 *hdr;
	u32 mask;
	u32 psn;
	u32 paylen;
	u8 opcode;
	u8 ecn;
	u8 port_num;
	u8 network_type;
	u8 local;
};

#define SROCE_PKT(skb)	((struct sroce_pkt_info *)(skb)->cb)

static inline void *sroce_pkt_hdr(const struct sroce_pkt_info *pkt,
				  enum sroce_hdr_type type)
{
	return pkt->hdr + sroce_opcode[pkt->opcode].offset[type];
}

static inline struct sroce_bth *sroce_pkt_bth(const struct sroce_pkt_info *pkt)
{
	return (struct sroce_bth *)pkt->hdr;
}

/* Pad bytes (0..3) announced in the BTH. */
static inline u8 sroce_bth_pad(const struct sroce_bth *bth)
{
	return (bth->flags & SROCE_BTH_PAD_MASK) >> SROCE_BTH_PAD_SHIFT;
}

/**
 * sroce_pkt_payload_len() - payload bytes of a received packet
 * @skb: the packet
 * @pkt: its metadata, filled by the receive path (SROCE_PKT(@skb))
 *
 * @pkt->paylen (BTH to the end of the ICRC) less the opcode's headers,
 * the pad (BTH PadCnt) and the ICRC (IBTA 9.2, 9.3.1); the packet must
 * hold all of it after @pkt->hdr.
 * Context: any.
 * Return: the payload length, or -1 when the lengths do not add up.
 */
static inline s64 sroce_pkt_payload_len(const struct sk_buff *skb,
					const struct sroce_pkt_info *pkt)
{
	u32 fixed = sroce_opcode[pkt->opcode].length +
		    sroce_bth_pad((const struct sroce_bth *)pkt->hdr) +
		    SROCE_ICRC_SIZE;

	if (pkt->paylen < fixed ||
	    pkt->hdr - skb->data + (s64)pkt->paylen > skb->len)
		return -1;
	return pkt->paylen - fixed;
}

static inline u32 sroce_bth_qpn(const struct sroce_bth *bth)
{
	return be32_to_cpu(bth->qpn) & SROCE_QPN_MASK;
}

static inline u32 sroce_bth_psn(const struct sroce_bth *bth)
{
	return be32_to_cpu(bth->apsn) & SROCE_PSN_MASK;
}

static inline bool sroce_bth_ackreq(const struct sroce_bth *bth)
{
	return be32_to_cpu(bth->apsn) & SROCE_BTH_ACKREQ;
}

static inline bool sroce_bth_se(const struct sroce_bth *bth)
{
	return bth->flags & SROCE_BTH_SE;
}

static inline bool sroce_bth_becn(const struct sroce_bth *bth)
{
	return be32_to_cpu(bth->qpn) & SROCE_BTH_BECN;
}

/**
 * sroce_bth_init() - fill a BTH
 * @bth: header to fill
 * @opcode: BTH opcode
 * @se: solicited event
 * @pad: pad bytes (0..3) after the payload
 * @pkey: P_Key
 * @qpn: destination QPN (24 bits)
 * @ackreq: request an ACK
 * @psn: PSN (24 bits)
 *
 * TVer is 0, MigReq is set (as every RoCE sender does), FECN/BECN clear.
 */
static inline void sroce_bth_init(struct sroce_bth *bth, u8 opcode, bool se,
				  u8 pad, u16 pkey, u32 qpn, bool ackreq,
				  u32 psn)
{
	bth->opcode = opcode;
	bth->flags = (se ? SROCE_BTH_SE : 0) | SROCE_BTH_MIG |
		     ((pad << SROCE_BTH_PAD_SHIFT) & SROCE_BTH_PAD_MASK);
	bth->pkey = cpu_to_be16(pkey);
	bth->qpn = cpu_to_be32(qpn & SROCE_QPN_MASK);
	bth->apsn = cpu_to_be32((ackreq ? SROCE_BTH_ACKREQ : 0) |
				(psn & SROCE_PSN_MASK));
}

/**
 * sroce_feth_encode() - the FETH of a FLUSH
 * @type: placement type, SROCE_FLUSH_* bits (A19.4.1.1)
 * @level: selectivity level, SROCE_FLUSH_RANGE or SROCE_FLUSH_MR
 *	(A19.4.1.2)
 *
 * Return: the FETH in wire order.
 */
static inline __be32 sroce_feth_encode(u8 type, u8 level)
{
	return cpu_to_be32((type & SROCE_FETH_PLT_MASK) |
			   ((level << SROCE_FETH_SEL_SHIFT) &
			    SROCE_FETH_SEL_MASK));
}

/* Placement type of a FETH (A19.4.1.1). */
static inline u8 sroce_feth_type(const struct sroce_feth *feth)
{
	return be32_to_cpu(feth->bits) & SROCE_FETH_PLT_MASK;
}

/* Selectivity level of a FETH (A19.4.1.2). */
static inline u8 sroce_feth_level(const struct sroce_feth *feth)
{
	return (be32_to_cpu(feth->bits) & SROCE_FETH_SEL_MASK) >>
	       SROCE_FETH_SEL_SHIFT;
}

/* ---- PSN arithmetic (IBTA 9.7.1: 24-bit serial numbers) ---- */

/**
 * sroce_psn_diff() - signed distance from @b to @a in 24-bit PSN space
 * @a: PSN
 * @b: PSN
 *
 * Return: a value in [-2^23, 2^23): negative when @a is before @b.
 */
static inline s32 sroce_psn_diff(u32 a, u32 b)
{
	return (s32)((a - b) << 8) >> 8;
}

static inline bool sroce_psn_before(u32 a, u32 b)
{
	return sroce_psn_diff(a, b) < 0;
}

static inline bool sroce_psn_after(u32 a, u32 b)
{
	return sroce_psn_diff(a, b) > 0;
}

static inline u32 sroce_psn_add(u32 psn, u32 n)
{
	return (psn + n) & SROCE_PSN_MASK;
}

/* ---- AETH (IBTA 9.3.5, table 45) ---- */

#define SROCE_AETH_TYPE_MASK	0x60	/* in the syndrome byte */
#define SROCE_AETH_ACK		0x00
#define SROCE_AETH_RNR_NAK	0x20
#define SROCE_AETH_NAK		0x60
#define SROCE_AETH_VAL_MASK	0x1f
#define SROCE_AETH_CREDIT_INVALID 0x1f

enum sroce_nak_code {
	SROCE_NAK_PSN_SEQ_ERR	= 0,
	SROCE_NAK_INVALID_REQ	= 1,
	SROCE_NAK_REM_ACCESS	= 2,
	SROCE_NAK_REM_OP_ERR	= 3,
	SROCE_NAK_INVALID_RD_REQ = 4,
};

static inline u32 sroce_aeth_encode(u8 syndrome, u32 msn)
{
	return ((u32)syndrome << 24) | (msn & SROCE_MSN_MASK);
}

static inline u8 sroce_aeth_syndrome(const struct sroce_aeth *aeth)
{
	return be32_to_cpu(aeth->smsn) >> 24;
}

static inline u32 sroce_aeth_msn(const struct sroce_aeth *aeth)
{
	return be32_to_cpu(aeth->smsn) & SROCE_MSN_MASK;
}

u32 sroce_rnr_timer_us(u8 code);

u64 sroce_retry_timeout_us(u8 timeout);

/* ---- ICRC (IBTA annex A17.3.3) ---- */

u32 sroce_icrc_compute(struct sk_buff *skb, const struct sroce_pkt_info *pkt);
void sroce_icrc_init(void);
void sroce_icrc_exit(void);
#if IS_ENABLED(CONFIG_KUNIT)
/* The crypto API's "crc32" and the switch between it and crc32_le(). */
int sroce_icrc_crc32_shash(u32 *crc, const void *data, size_t len);
int sroce_icrc_use_shash(bool on);
#endif

#endif /* SROCE_HDR_H */
