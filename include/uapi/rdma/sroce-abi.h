/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * sroce-abi.h - the ABI between the sroce kernel module and its rdma-core
 * provider (libsroce-rdmav34.so).
 *
 * Queues (SQ, RQ, SRQ, CQ) are rings the kernel allocates with vmalloc_user() and
 * the provider maps with mmap(MAP_SHARED) at the offset the create response
 * returns.  A ring buffer starts with struct sroce_queue_hdr (producer and
 * consumer indices on separate cache lines) followed by @num_slots slots of a
 * fixed size.  Indices are free-running 32-bit counters; the slot of index i
 * is i & (num_slots - 1).  Each side writes only its own index, with a release
 * store, and reads the other side's with an acquire load.  The kernel never
 * trusts an index or a slot written by userspace: it copies a slot out of the
 * ring, then validates the copy.
 *
 * Ownership:
 *   SQ: provider produces WQEs, kernel consumes; the consumer index advances
 *       when the WQE has completed, so a slot may be reused only then.
 *   RQ: provider produces WQEs, kernel consumes.
 *   SRQ: provider produces WQEs (struct sroce_recv_wqe), kernel consumes
 *       for every QP attached to it; the consumer index advances as soon
 *       as a QP takes a WQE (the first packet of a message), so a slot may
 *       be reused before its message completes.  No doorbell: the provider
 *       never enters the kernel to post to an SRQ.
 *   CQ: kernel produces CQEs, provider consumes.
 *
 * Values stored in WQEs and CQEs are the userspace (ibv_*) values: opcodes are
 * enum ib_uverbs_wr_opcode / ib_uverbs_wc_opcode, send flags the
 * SROCE_WR_FLAG_* bits, statuses enum ib_wc_status (identical in both
 * worlds), and CQE flags are the SROCE_WC_F_* bits below, which equal the
 * IBV_WC_* bits libibverbs defines.
 *
 * Which work requests a QP accepts is defined here once (SROCE_WR_OPS_*,
 * SROCE_WR_SEND_FLAGS): the provider checks them before it writes a WQE,
 * the kernel when it posts a kernel WR and again when it reads a WQE out
 * of a ring.
 */
#ifndef SROCE_ABI_USER_H
#define SROCE_ABI_USER_H

#include <linux/types.h>
#include <rdma/ib_user_verbs.h>

/*
 * Bumped whenever any structure in this file changes layout or meaning.
 * A field added in what was padding, whose zero value keeps the old
 * meaning, does not bump it: the older side ignores the field or reads
 * zero (struct sroce_queue_hdr @qp_flags, @sq_flags).
 */
#define SROCE_ABI_VERSION	1

/*
 * Contents of every sroce device's hca_type sysfs attribute
 * (/sys/class/infiniband/<dev>/hca_type).  The core registers sroce with
 * driver_id RDMA_DRIVER_UNKNOWN and users name devices freely, so the
 * provider recognises a device by this read-only attribute, not its name.
 */
#define SROCE_HCA_TYPE		"sroce"

/* Maximum scatter/gather entries of one send or receive WQE. */
#define SROCE_MAX_SGE		16
/* Maximum bytes of inline data of one send WQE (the SGE area reused). */
#define SROCE_MAX_INLINE	(SROCE_MAX_SGE * 16)

/**
 * struct sroce_queue_hdr - indices at the start of every shared ring
 * @producer: index of the next slot the producer will fill (free running)
 * @pad0: keeps @consumer on its own 64-byte cache line
 * @consumer: index of the next slot the consumer will take (free running)
 * @flags: SROCE_QUEUE_F_* bits, written by the kernel
 * @qp_flags: SROCE_QP_F_* bits of the QP an SQ or RQ ring belongs to,
 *	written by the kernel whenever the QP changes state, also when the
 *	kernel moves it to the error state by itself (retry exceeded, a
 *	remote or local error: IBTA 10.3.1.7, 11.6.3.1), which the
 *	provider's cached state does not show.  Zero in a CQ ring, and from
 *	kernels that predate the field (it was padding).
 * @sq_flags: SROCE_SQ_F_* bits of an SQ ring, written by the kernel only
 *	(the doorbell protocol below).  Zero in other rings, and from
 *	kernels that predate the field (it was padding): ring always.
 * @pad1: pads the header to 128 bytes; slots start right after it
 *
 * Size: 128 bytes.  Slots start at offset SROCE_QUEUE_HDR_SIZE.
 */
struct sroce_queue_hdr {
	__u32 producer;
	__u32 pad0[15];
	__u32 consumer;
	__u32 flags;
	__u32 qp_flags;
	__u32 sq_flags;
	__u32 pad1[12];
};

#define SROCE_QUEUE_HDR_SIZE	128
/*
 * The kernel found a hostile index or slot and put the queue in error, or
 * destroyed the queue while it was still mapped (device removed under a
 * live context): the provider should fail polls and posts with EIO.
 */
#define SROCE_QUEUE_F_ERROR	(1U << 0)

/*
 * SROCE_QP_F_FLUSH in sroce_queue_hdr.qp_flags: the QP is in the error
 * state, so WQEs posted to either queue complete with IBV_WC_WR_FLUSH_ERR
 * (IBTA 10.3.1.7, 11.4.1.1) once the provider rings the doorbell.
 *
 * A receive posted while the QP enters the error state is flushed by one
 * side or the other, never by none: the provider publishes its producer
 * index (release), issues a full barrier, then reads @qp_flags and rings
 * the doorbell if it finds SROCE_QP_F_FLUSH; the kernel publishes the
 * flag (release), issues a full barrier, then flushes, reading the
 * producer index.  Either the provider sees the flag or the kernel's flush
 * sees the new WQE.
 */
#define SROCE_QP_F_FLUSH	(1U << 0)

/*
 * The SQ doorbell (an empty POST_SEND command) is needed only when the
 * kernel will not look at the SQ again by itself, as io_uring's
 * IORING_SQ_NEED_WAKEUP tells an SQPOLL thread's submitter.
 *
 * SROCE_SQ_F_WAKEUP_CAP in sroce_queue_hdr.sq_flags: the kernel keeps
 * SROCE_SQ_F_NEED_WAKEUP up to date.  Without it (an older kernel: the
 * field is zero) the provider rings after every post.
 *
 * SROCE_SQ_F_NEED_WAKEUP: the provider must ring after publishing WQEs.
 * The kernel clears it while its send side is sure to run again and read
 * the producer index: a run in progress, a run queued because its budget
 * ran out, or a reliable QP with unacknowledged packets and a finite
 * local ACK timeout, whose ACK (or retransmit timeout) runs the send
 * side, and every run fetches the WQEs posted since the last one.  It
 * sets the flag before it stops looking.
 *
 * No WQE is left behind: the provider publishes its producer index
 * (release), issues a full barrier, then reads @sq_flags and rings when
 * it finds NEED_WAKEUP (or no WAKEUP_CAP).  The kernel's last run stores
 * NEED_WAKEUP, issues a full barrier, then reads the producer index and
 * runs again when it moved since the run began.  Of two stores each
 * followed by a full barrier and a load of the other's location, at
 * least one load sees the other side's store: either the provider sees
 * NEED_WAKEUP and rings, or the kernel sees the new producer index.
 * The kernel only writes @sq_flags; a provider that scribbles on it
 * delays only its own WQEs.
 */
#define SROCE_SQ_F_WAKEUP_CAP	(1U << 0)
#define SROCE_SQ_F_NEED_WAKEUP	(1U << 1)

/**
 * struct sroce_sge - one scatter/gather entry
 * @addr: virtual address (iova) in the MR named by @lkey
 * @length: length in bytes
 * @lkey: local key of the MR
 *
 * Size: 16 bytes.
 */
struct sroce_sge {
	__aligned_u64 addr;
	__u32 length;
	__u32 lkey;
};

/**
 * struct sroce_send_wqe - a send queue entry
 * @wr_id: caller's work request id, returned in the CQE
 * @opcode: enum ib_uverbs_wr_opcode (IBV_WR_*), one of SROCE_WR_OPS_* of
 *	the QP's type
 * @send_flags: SROCE_WR_FLAG_* bits (IBV_SEND_*) within SROCE_WR_SEND_FLAGS
 * @num_sge: number of valid entries in @sge (0..SROCE_MAX_SGE); with
 *	IBV_SEND_INLINE, ignored
 * @inline_len: bytes of inline data in @inline_data when IBV_SEND_INLINE is
 *	set (0..SROCE_MAX_INLINE; ATOMIC WRITE: SROCE_ATOMIC_WRITE_LEN)
 * @imm_data: immediate data, network byte order (IBV_WR_*_WITH_IMM)
 * @invalidate_rkey: rkey to invalidate (IBV_WR_SEND_WITH_INV,
 *	IBV_WR_LOCAL_INV)
 * @xrc_remote_srqn: XRC send (INI) QPs: the number of the XRC SRQ at the
 *	target that receives the message (ibv_send_wr.qp_type.xrc.remote_srqn,
 *	24 bits), carried in every request packet's XRCETH (IBTA annex A14);
 *	zero and ignored on other QP types (it was padding)
 * @rdma: remote address and rkey for RDMA WRITE/READ, ATOMIC WRITE and
 *	FLUSH; for FLUSH only (zero and ignored otherwise: it was padding)
 *	also @rdma.length, the RETH DMA length of the range to flush
 *	(ignored by the responder at level SROCE_FLUSH_MR), @rdma.flush_type,
 *	the SROCE_FLUSH_GLOBAL / SROCE_FLUSH_PERSISTENT placement type bits,
 *	and @rdma.flush_level, SROCE_FLUSH_RANGE or SROCE_FLUSH_MR (the
 *	FETH, IBTA vol. 1 annex A19.4.1); a FLUSH has no SGEs and no inline
 *	data
 * @atomic: remote address, rkey and operands for atomics
 * @ud: destination of a UD send: AH number from the create_ah response,
 *	remote QPN and Q_Key
 * @bind: a memory window bind (IBV_WR_BIND_MW, IBTA 10.6.7.2): the
 *	window's current rkey @mw_rkey and the @new_rkey it takes (same
 *	index, the key byte may change), the lkey of the MR it binds to,
 *	the window [@addr, @addr + @length) inside that MR and its
 *	IBV_ACCESS_* rights @access; @length 0 unbinds a type 1 window
 * @sge: gather list
 * @inline_data: inline payload
 *
 * Size: 320 bytes.
 */
struct sroce_send_wqe {
	__aligned_u64 wr_id;
	__u32 opcode;
	__u32 send_flags;
	__u32 num_sge;
	__u32 inline_len;
	union {
		__be32 imm_data;
		__u32 invalidate_rkey;
	} ex;
	__u32 xrc_remote_srqn;
	union {
		struct {
			__aligned_u64 remote_addr;
			__u32 rkey;
			__u32 length;
			__u8 flush_type;
			__u8 flush_level;
			__u8 reserved[6];
		} rdma;
		struct {
			__aligned_u64 remote_addr;
			__aligned_u64 compare_add;
			__aligned_u64 swap;
			__u32 rkey;
			__u32 reserved;
		} atomic;
		struct {
			__u32 ah_num;
			__u32 remote_qpn;
			__u32 remote_qkey;
			__u32 reserved;
		} ud;
		struct {
			__u32 mw_rkey;
			__u32 new_rkey;
			__u32 mr_lkey;
			__u32 access;
			__aligned_u64 addr;
			__aligned_u64 length;
		} bind;
		__u8 raw[32];
	} wr;
	union {
		struct sroce_sge sge[SROCE_MAX_SGE];
		__u8 inline_data[SROCE_MAX_INLINE];
	};
};

/*
 * Work request opcodes each QP type accepts, as bit masks over
 * enum ib_uverbs_wr_opcode (bit n set: opcode n accepted).  libibverbs'
 * IBV_WR_* and the kernel's IB_WR_* give these opcodes the same numbers.
 * GSI QPs accept what UD QPs accept.  SEND with invalidate is RC only: no
 * UC opcode carries an IETH (IBTA vol. 1 9.2).  The memory operations
 * (SROCE_WR_OPS_MEM) carry no data and are executed by the requester in
 * send queue order: LOCAL_INV on every QP type, BIND_MW on RC and UC only
 * (IBTA 10.6.7.2: a window is bound through a connected QP).  XRC send
 * (INI) QPs accept the RC operations an XRC opcode exists for (IBTA 9.2:
 * no ATOMIC WRITE, no FLUSH) and LOCAL_INV; XRC receive (TGT) QPs have no
 * send queue.
 */
#define SROCE_WR_OP_BIT(op)	(1U << (op))

/*
 * RDMA ATOMIC WRITE (IBTA vol. 1 1.5, memory placement extensions,
 * oA19-28): the work request and completion opcodes libibverbs names
 * IBV_WR_ATOMIC_WRITE and IBV_WC_ATOMIC_WRITE (Linux 6.2 and later:
 * IB_UVERBS_WR_ATOMIC_WRITE, IB_UVERBS_WC_ATOMIC_WRITE).  RC only; the
 * remote address and rkey are in @wr.rdma, the 8 bytes to store inline.
 */
#define SROCE_WR_ATOMIC_WRITE	15
#define SROCE_WC_ATOMIC_WRITE	9
#define SROCE_ATOMIC_WRITE_LEN	8

/*
 * RDMA FLUSH (IBTA vol. 1 1.5, annex A19.4, memory placement extensions):
 * the work request and completion opcodes libibverbs names IBV_WR_FLUSH
 * and IBV_WC_FLUSH (Linux 6.2 and later: IB_UVERBS_WR_FLUSH,
 * IB_UVERBS_WC_FLUSH).  RC only; the remote address, rkey, length,
 * placement type and selectivity level are in @wr.rdma, no data.
 *
 * The FETH (4 bytes, big-endian, after the BTH): placement type bits 3..0
 * (A19.4.1.1; the kernel's IB_FLUSH_GLOBAL, IB_FLUSH_PERSISTENT),
 * selectivity level bits 5..4 (A19.4.1.2; IB_FLUSH_RANGE, IB_FLUSH_MR).
 * The MR access rights a FLUSH needs at the responder are
 * SROCE_ACCESS_FLUSH_GLOBAL and SROCE_ACCESS_FLUSH_PERSISTENT (libibverbs'
 * IBV_ACCESS_FLUSH_*, the kernel's IB_ACCESS_FLUSH_* since Linux 6.2).
 */
#define SROCE_WR_FLUSH			14
#define SROCE_WC_FLUSH			8
#define SROCE_FLUSH_GLOBAL		(1U << 0)
#define SROCE_FLUSH_PERSISTENT		(1U << 1)
#define SROCE_FLUSH_TYPES		(SROCE_FLUSH_GLOBAL | SROCE_FLUSH_PERSISTENT)
#define SROCE_FLUSH_RANGE		0
#define SROCE_FLUSH_MR			1
#define SROCE_FETH_PLT_MASK		0x0fU
#define SROCE_FETH_SEL_SHIFT		4
#define SROCE_FETH_SEL_MASK		0x30U
#define SROCE_ACCESS_FLUSH_GLOBAL	(1U << 8)
#define SROCE_ACCESS_FLUSH_PERSISTENT	(1U << 9)

#define SROCE_WR_OPS_MEM					\
	(SROCE_WR_OP_BIT(IB_UVERBS_WR_LOCAL_INV) |		\
	 SROCE_WR_OP_BIT(IB_UVERBS_WR_BIND_MW))
#define SROCE_WR_OPS_UD						\
	(SROCE_WR_OP_BIT(IB_UVERBS_WR_SEND) |			\
	 SROCE_WR_OP_BIT(IB_UVERBS_WR_SEND_WITH_IMM) |		\
	 SROCE_WR_OP_BIT(IB_UVERBS_WR_LOCAL_INV))
#define SROCE_WR_OPS_UC						\
	(SROCE_WR_OPS_UD |					\
	 SROCE_WR_OP_BIT(IB_UVERBS_WR_RDMA_WRITE) |		\
	 SROCE_WR_OP_BIT(IB_UVERBS_WR_RDMA_WRITE_WITH_IMM) |	\
	 SROCE_WR_OP_BIT(IB_UVERBS_WR_BIND_MW))
#define SROCE_WR_OPS_RC						\
	(SROCE_WR_OPS_UC |					\
	 SROCE_WR_OP_BIT(IB_UVERBS_WR_SEND_WITH_INV) |		\
	 SROCE_WR_OP_BIT(IB_UVERBS_WR_RDMA_READ) |		\
	 SROCE_WR_OP_BIT(IB_UVERBS_WR_ATOMIC_CMP_AND_SWP) |	\
	 SROCE_WR_OP_BIT(IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD) |	\
	 SROCE_WR_OP_BIT(SROCE_WR_ATOMIC_WRITE) |		\
	 SROCE_WR_OP_BIT(SROCE_WR_FLUSH))
#define SROCE_WR_OPS_XRC					\
	(SROCE_WR_OPS_RC & ~(SROCE_WR_OP_BIT(SROCE_WR_ATOMIC_WRITE) |	\
			     SROCE_WR_OP_BIT(SROCE_WR_FLUSH) |		\
			     SROCE_WR_OP_BIT(IB_UVERBS_WR_BIND_MW)))
/*
 * Opcodes whose payload is always inline: ATOMIC WRITE carries the
 * SROCE_ATOMIC_WRITE_LEN bytes to store in @inline_data, with
 * SROCE_WR_FLAG_INLINE set and @inline_len SROCE_ATOMIC_WRITE_LEN.
 */
#define SROCE_WR_OPS_INLINE_ONLY	SROCE_WR_OP_BIT(SROCE_WR_ATOMIC_WRITE)
/* Opcodes whose payload may be inline: SENDs, RDMA WRITEs, ATOMIC WRITE. */
#define SROCE_WR_OPS_INLINE					\
	(SROCE_WR_OP_BIT(IB_UVERBS_WR_SEND) |			\
	 SROCE_WR_OP_BIT(IB_UVERBS_WR_SEND_WITH_IMM) |		\
	 SROCE_WR_OP_BIT(IB_UVERBS_WR_SEND_WITH_INV) |		\
	 SROCE_WR_OP_BIT(IB_UVERBS_WR_RDMA_WRITE) |		\
	 SROCE_WR_OP_BIT(IB_UVERBS_WR_RDMA_WRITE_WITH_IMM) |	\
	 SROCE_WR_OPS_INLINE_ONLY)

/* Send flag bits: equal to IBV_SEND_* (libibverbs) and IB_SEND_* (kernel). */
#define SROCE_WR_FLAG_FENCE	(1U << 0)
#define SROCE_WR_FLAG_SIGNALED	(1U << 1)
#define SROCE_WR_FLAG_SOLICITED	(1U << 2)
#define SROCE_WR_FLAG_INLINE	(1U << 3)	/* SROCE_WR_OPS_INLINE only */

/*
 * Send flags a work request may carry.  Bit 4 (IBV_SEND_IP_CSUM) is not
 * among them: the device offers no checksum offload.
 */
#define SROCE_WR_SEND_FLAGS	(SROCE_WR_FLAG_FENCE | SROCE_WR_FLAG_SIGNALED | \
				 SROCE_WR_FLAG_SOLICITED | SROCE_WR_FLAG_INLINE)
/* Send flags of a memory operation (SROCE_WR_OPS_MEM): no data, no event. */
#define SROCE_WR_MEM_FLAGS	(SROCE_WR_FLAG_FENCE | SROCE_WR_FLAG_SIGNALED)

/*
 * Access rights a memory window bind may grant (IBTA 10.6.7.2): local
 * write, remote write, remote read, remote atomic (bits 0-3, the values of
 * IBV_ACCESS_* and the kernel's IB_ACCESS_*).  Remote write and atomic
 * need IBV_ACCESS_LOCAL_WRITE on the MR; a window is never zero based.
 */
#define SROCE_MW_ACCESS		0x0fU

/**
 * struct sroce_recv_wqe - a receive queue entry
 * @wr_id: caller's work request id, returned in the CQE
 * @num_sge: number of valid entries in @sge (0..SROCE_MAX_SGE)
 * @reserved: zero
 * @sge: scatter list
 *
 * Size: 272 bytes.
 */
struct sroce_recv_wqe {
	__aligned_u64 wr_id;
	__u32 num_sge;
	__u32 reserved;
	struct sroce_sge sge[SROCE_MAX_SGE];
};

/* CQE flag bits: equal to libibverbs' IBV_WC_GRH, IBV_WC_WITH_IMM, IBV_WC_WITH_INV. */
#define SROCE_WC_F_GRH		(1U << 0)
#define SROCE_WC_F_WITH_IMM	(1U << 1)
#define SROCE_WC_F_WITH_INV	(1U << 3)

/* struct sroce_cqe.network_hdr_type: the kernel's RDMA_NETWORK_IPV4/_IPV6. */
#define SROCE_NETWORK_IPV4	2
#define SROCE_NETWORK_IPV6	3

/*
 * ibv_wc.sl of a UD receive.  A RoCE packet carries no IB service level;
 * the provider reports its type there as mlx5 does for RoCE: bit 3 set for
 * a packet with a UDP header (RoCEv2), bits 2:0 its L3 header, 1 IPv6 or
 * 2 IPv4.  Consumers such as UCX read it to know where in the 40-byte GRH
 * area the destination address is (IBTA annex A17.4.5.2).
 */
#define SROCE_WC_SL_ROCEV2	(1U << 3)
#define SROCE_WC_SL_L3_IPV6	1U
#define SROCE_WC_SL_L3_IPV4	2U

/**
 * struct sroce_cqe - a completion queue entry
 * @wr_id: work request id of the completed WQE
 * @status: enum ib_wc_status (IBV_WC_*)
 * @opcode: enum ib_uverbs_wc_opcode (IBV_WC_SEND ... IBV_WC_RECV_RDMA_WITH_IMM,
 *	SROCE_WC_FLUSH, SROCE_WC_ATOMIC_WRITE)
 * @vendor_err: driver-specific error detail, 0 on success
 * @byte_len: bytes received (receive completions) or transferred (RDMA READ)
 * @ex: immediate data (network byte order) or the invalidated rkey
 * @qp_num: local QPN the WQE belongs to
 * @src_qp: remote QPN (UD receive completions)
 * @wc_flags: SROCE_WC_F_* bits
 * @pkey_index: P_Key index (GSI)
 * @slid: 0 on RoCE
 * @sl: service level
 * @dlid_path_bits: 0 on RoCE
 * @network_hdr_type: SROCE_NETWORK_* of a UD receive
 * @reserved: zero
 *
 * Size: 48 bytes.
 */
struct sroce_cqe {
	__aligned_u64 wr_id;
	__u32 status;
	__u32 opcode;
	__u32 vendor_err;
	__u32 byte_len;
	union {
		__be32 imm_data;
		__u32 invalidated_rkey;
	} ex;
	__u32 qp_num;
	__u32 src_qp;
	__u32 wc_flags;
	__u16 pkey_index;
	__u16 slid;
	__u8 sl;
	__u8 dlid_path_bits;
	__u8 network_hdr_type;
	__u8 reserved;
};

/**
 * struct sroce_alloc_ucontext_resp - driver data of the get_context response
 * @abi_version: SROCE_ABI_VERSION of the kernel
 * @max_sge: SROCE_MAX_SGE
 * @max_inline: SROCE_MAX_INLINE
 * @send_wqe_size: sizeof(struct sroce_send_wqe)
 * @recv_wqe_size: sizeof(struct sroce_recv_wqe)
 * @cqe_size: sizeof(struct sroce_cqe)
 *
 * The provider refuses a context whose sizes differ from its own.
 */
struct sroce_alloc_ucontext_resp {
	__u32 abi_version;
	__u32 max_sge;
	__u32 max_inline;
	__u32 send_wqe_size;
	__u32 recv_wqe_size;
	__u32 cqe_size;
};

/**
 * struct sroce_mmap_info - where a ring lives in the uverbs file
 * @offset: mmap offset to pass to mmap() on the command fd
 * @size: bytes to map (header plus slots, page aligned)
 * @num_slots: number of slots, a power of two
 * @reserved: zero
 */
struct sroce_mmap_info {
	__aligned_u64 offset;
	__u32 size;
	__u32 num_slots;
	__u32 reserved;
	__u32 reserved2;
};

/**
 * struct sroce_create_cq_resp - driver data of the create_cq response
 * @mi: the CQ ring
 */
struct sroce_create_cq_resp {
	struct sroce_mmap_info mi;
};

/**
 * struct sroce_resize_cq_resp - driver data of the resize_cq response
 * @mi: the CQ's new ring, holding every CQE not yet polled at the same
 *	free-running indices; the provider maps it in place of the old one,
 *	which the kernel no longer writes (its mmap entry is gone; unmap it)
 */
struct sroce_resize_cq_resp {
	struct sroce_mmap_info mi;
};

/**
 * struct sroce_create_qp_resp - driver data of the create_qp response
 * @sq_mi: the send queue ring (size 0 for an XRC receive (TGT) QP, which
 *	has no send queue)
 * @rq_mi: the receive queue ring (size 0 when the QP uses an SRQ, and for
 *	XRC QPs: an INI QP receives nothing, a TGT QP's receives come from
 *	the XRC SRQ each request names, IBTA annex A14)
 */
struct sroce_create_qp_resp {
	struct sroce_mmap_info sq_mi;
	struct sroce_mmap_info rq_mi;
};

/**
 * struct sroce_create_srq_resp - driver data of the create_srq response
 * @mi: the SRQ ring of struct sroce_recv_wqe slots.  The provider may keep
 *	at most max_wr (as the core response returns it, the ring size) WQEs
 *	outstanding and at most max_sge entries per WQE; the kernel copies
 *	each WQE once when a QP takes it and checks the copy (IBTA 10.2.9).
 *	XRC SRQs have the same ring; their number (ibv_get_srq_num()) is the
 *	core response's srqn.
 */
struct sroce_create_srq_resp {
	struct sroce_mmap_info mi;
};

/**
 * struct sroce_create_ah_resp - driver data of the create_ah response
 * @ah_num: number to store in sroce_send_wqe.wr.ud.ah_num
 * @reserved: zero
 */
struct sroce_create_ah_resp {
	__u32 ah_num;
	__u32 reserved;
};

#endif /* SROCE_ABI_USER_H */
