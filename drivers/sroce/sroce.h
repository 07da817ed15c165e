/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce.h - objects of the sroce software RoCEv2 device and the interfaces
 * between its files.
 *
 * Files and their one job each:
 *   sroce_main.c     module init/exit, rdma_link_ops, netdev notifier,
 *                    device allocation/registration, port state, ops table
 *   sroce_verbs.c    verb entry points: validate, allocate, reply
 *   sroce_qp.c       QP state machine (IBTA 10.3), QP attributes
 *   sroce_req.c      requester: SQ WQEs -> request packets (TX)
 *   sroce_resp.c     responder: request packets -> memory, RQ, ACK/NAK
 *   sroce_resp_out.c responder's response queue: ACK/NAK, READ responses,
 *                    atomic ACKs, in request order (TX)
 *   sroce_comp.c     completer: ACK/NAK/read responses -> CQEs, retransmit
 *   sroce_mr.c       MRs, keys, protection checks, copies to/from memory
 *   sroce_queue.c    shared rings and their mmap entries, CQs
 *   sroce_net.c      UDP 4791 sockets per netns, RX demux, IP/UDP encap, TX
 *   sroce_opcode.c   opcode table, RNR/timeout tables
 *   sroce_icrc.c     ICRC
 *   sroce_cc.c       congestion control: ECN marking, CNPs, DCQCN rate
 *                    and pacing, PFC priority
 *   sroce_cc_knobs.c congestion control knobs, their sysfs files, the
 *                    line rate, per-QP rdma resource attributes
 *   sroce_counters.c rdma statistic counters (hw_stats)
 *
 * Object lifetime: every QP and MR carries a kref and a completion.
 * Lookups from packets use RCU + kref_get_unless_zero(); every deferred
 * context (work item, timer, queued skb) holds a reference; destroy
 * unpublishes the object, stops its deferred work, drops the base reference
 * and waits for the completion before returning to the core.
 */
#ifndef SROCE_H
#define SROCE_H

#include <linux/kref.h>
#include <linux/completion.h>
#include <linux/spinlock.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>
#include <linux/timer.h>
#include <linux/xarray.h>
#include <linux/skbuff.h>
#include <linux/netdevice.h>
#include <linux/in6.h>
#include <net/dst_cache.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_umem.h>
#include <rdma/uverbs_ioctl.h>
#include <uapi/rdma/sroce-abi.h>

#include "sroce_hdr.h"

#define SROCE_DRV_NAME		"sroce"

/* Device limits reported by query_device. */
#define SROCE_MAX_QP		0x10000
#define SROCE_MAX_QP_WR		0x4000
#define SROCE_MAX_CQ		0x10000
#define SROCE_MAX_CQE		0x10000
#define SROCE_MAX_MR		0x40000
#define SROCE_MAX_PD		0x10000
#define SROCE_MAX_AH		0x10000
#define SROCE_MAX_MR_SIZE	BIT_ULL(40)
#define SROCE_MAX_RD_ATOMIC	128
#define SROCE_MAX_MSG_SIZE	0x80000000U	/* 2 GiB, IBTA max */
#define SROCE_PAGE_SIZE_CAP	PAGE_SIZE
#define SROCE_MIN_QPN		16

/* ------------------------------------------------------------------ */
/* Counters (rdma statistic), one set per device                       */
/* ------------------------------------------------------------------ */

enum sroce_counter {
	SROCE_CNT_SENT_PKTS,
	SROCE_CNT_RCVD_PKTS,
	SROCE_CNT_DUP_REQ,
	SROCE_CNT_OUT_OF_SEQ_REQ,
	SROCE_CNT_RCV_RNR_ERR,		/* RNR NAKs received */
	SROCE_CNT_SND_RNR,		/* RNR NAKs sent */
	SROCE_CNT_RCV_SEQ_ERR,		/* NAK sequence errors received */
	SROCE_CNT_COMPLETER_RETRY_ERR,	/* retry count exceeded */
	SROCE_CNT_RETRANSMITS,		/* request packets sent again */
	SROCE_CNT_RNR_RETRY_ERR,
	SROCE_CNT_LOCAL_ACCESS_ERR,
	SROCE_CNT_REMOTE_ACCESS_ERR,
	SROCE_CNT_REMOTE_INVALID_REQ,
	SROCE_CNT_RX_DROP_MALFORMED,	/* too short, bad header lengths */
	SROCE_CNT_RX_DROP_ICRC,		/* ICRC mismatch */
	SROCE_CNT_RX_DROP_OPCODE,	/* unknown or wrong-transport opcode */
	SROCE_CNT_RX_DROP_NO_QP,	/* no such destination QP */
	SROCE_CNT_RX_DROP_PKEY,
	SROCE_CNT_RX_DROP_QKEY,
	SROCE_CNT_RX_DROP_STATE,	/* QP not in a receiving state */
	SROCE_CNT_TX_BACKPRESSURE,	/* qdisc/queue pushed back */
	SROCE_CNT_ECN_MARKED_PKTS,	/* CE received */
	SROCE_CNT_CNP_SENT,
	SROCE_CNT_CNP_RCVD,
	SROCE_CNT_RATE_REDUCTIONS,
	SROCE_NUM_COUNTERS
};

/* ------------------------------------------------------------------ */
/* Device                                                              */
/* ------------------------------------------------------------------ */

struct sroce_net;

/**
 * struct sroce_dev - one sroce RDMA device bound to one Ethernet netdev
 * @ib_dev: core device; must stay first (ib_alloc_device)
 * @ndev: bound netdev (held with dev_hold from newlink until dealloc)
 * @snet: per-netns UDP sockets this device receives through
 * @list: entry in the module's device list (under sroce_dev_mutex) and,
 *	RCU-protected, in @snet's device list for RX demux
 * @qp_xa: QPN -> struct sroce_qp, RCU lookups from RX
 * @mr_xa: key index -> struct sroce_mr
 * @ah_xa: AH number -> struct sroce_ah (user AHs named in UD WQEs)
 * @mr_key_gen: rotates the low byte of keys (never reused right away)
 * @port_state: IB_PORT_ACTIVE or IB_PORT_DOWN, follows carrier
 * @mtu_cap: largest IB MTU the netdev MTU allows
 * @counters: SROCE_NUM_COUNTERS counters
 * @cc: congestion control knobs (sroce_cc.c)
 */
struct sroce_dev {
	struct ib_device ib_dev;
	struct net_device *ndev;
	struct sroce_net *snet;
	struct list_head list;
	struct list_head net_list;
	struct xarray qp_xa;
	u32 next_qpn;
	struct xarray mr_xa;
	u32 next_mr_idx;
	atomic_t mr_key_gen;
	struct xarray ah_xa;
	u32 next_ah;
	enum ib_port_state port_state;
	enum ib_mtu mtu_cap;
	atomic64_t counters[SROCE_NUM_COUNTERS];
	struct sroce_cc_params *cc;
};

static inline struct sroce_dev *to_sroce_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct sroce_dev, ib_dev);
}

static inline void sroce_counter_inc(struct sroce_dev *dev,
				     enum sroce_counter c)
{
	atomic64_inc(&dev->counters[c]);
}

static inline void sroce_counter_add(struct sroce_dev *dev,
				     enum sroce_counter c, s64 n)
{
	atomic64_add(n, &dev->counters[c]);
}

/* ------------------------------------------------------------------ */
/* PD, AH                                                              */
/* ------------------------------------------------------------------ */

struct sroce_pd {
	struct ib_pd ibpd;
};

static inline struct sroce_pd *to_sroce_pd(struct ib_pd *pd)
{
	return container_of(pd, struct sroce_pd, ibpd);
}

/**
 * struct sroce_av - where packets of a QP or AH go (RoCEv2 only)
 * @network_type: RDMA_NETWORK_IPV4 or RDMA_NETWORK_IPV6
 * @saddr: source address (IPv4 as v4-mapped IPv6)
 * @daddr: destination address (IPv4 as v4-mapped IPv6)
 * @traffic_class: GRH traffic class: DSCP in the upper six bits
 * @hop_limit: TTL / hop limit
 * @flow_label: IPv6 flow label, also feeds the UDP source port
 * @sl: service level, maps to skb->priority and VLAN PCP
 * @dmac: destination MAC from the core (the IP stack resolves anyway)
 */
struct sroce_av {
	u8 network_type;
	struct in6_addr saddr;
	struct in6_addr daddr;
	u8 traffic_class;
	u8 hop_limit;
	u32 flow_label;
	u8 sl;
	u8 dmac[ETH_ALEN];
};

struct sroce_ah {
	struct ib_ah ibah;
	struct sroce_av av;
	u32 ah_num;		/* user AHs: index in dev->ah_xa, else 0 */
};

static inline struct sroce_ah *to_sroce_ah(struct ib_ah *ah)
{
	return container_of(ah, struct sroce_ah, ibah);
}

/**
 * sroce_av_from_attr() - fill an address vector from core AH attributes
 * @dev: device
 * @av: vector to fill
 * @attr: RoCE AH attributes with a valid GRH and sgid_attr
 *
 * Return: 0, or -EINVAL when the attributes do not name a RoCEv2 GID of
 * this device.  Implemented in sroce_net.c.
 */
int sroce_av_from_attr(struct sroce_dev *dev, struct sroce_av *av,
		       const struct rdma_ah_attr *attr);

/**
 * sroce_ah_lookup_av() - copy the address vector of an AH named by number
 * @dev: device
 * @ah_num: AH number from a UD WQE (sroce_send_wqe.wr.ud.ah_num); kernel
 *	and user AHs alike have one
 * @pd: PD of the QP that names the AH; the AH must belong to it
 * @av: where to copy the vector
 *
 * The AH may be destroyed at any time (its memory is freed by the core
 * right after destroy_ah): the copy is taken under the xarray lock that
 * destroy_ah also takes, so it is safe without a reference.
 * Context: any.  Implemented in sroce_verbs.c.
 * Return: 0, or -EINVAL when no AH of @pd has that number.
 */
int sroce_ah_lookup_av(struct sroce_dev *dev, u32 ah_num,
		       const struct sroce_pd *pd, struct sroce_av *av);

/* ------------------------------------------------------------------ */
/* Shared rings (sroce_queue.c)                                        */
/* ------------------------------------------------------------------ */

/**
 * struct sroce_queue - a ring of fixed-size slots, possibly mapped by the
 *	provider
 * @hdr: start of the vmalloc_user() buffer (indices)
 * @slots: first slot (hdr + SROCE_QUEUE_HDR_SIZE)
 * @num: slot count, a power of two
 * @slot_size: bytes per slot
 * @buf_size: bytes of the buffer, page aligned
 * @kidx: the kernel's own index, never read back from shared memory:
 *	the producer index of a CQ, the consumer index of an SQ or RQ
 * @mmap_entry: mmap entry when mapped by a user context, else NULL
 */
struct sroce_queue {
	struct sroce_queue_hdr *hdr;
	void *slots;
	u32 num;
	u32 slot_size;
	size_t buf_size;
	u32 kidx;
	struct rdma_user_mmap_entry *mmap_entry;
};

int sroce_queue_init(struct sroce_dev *dev, struct sroce_queue *q, u32 num,
		     u32 slot_size, struct ib_ucontext *uctx,
		     struct sroce_mmap_info *mi);
void sroce_queue_cleanup(struct sroce_queue *q);

static inline void *sroce_queue_slot(const struct sroce_queue *q, u32 idx)
{
	return q->slots + (size_t)(idx & (q->num - 1)) * q->slot_size;
}

/**
 * sroce_queue_count() - entries the producer has published past @q->kidx
 * @q: an SQ or RQ (kernel consumes)
 *
 * Acquire-loads the producer index.  Return: 0..@q->num, or -EIO when the
 * producer wrote an index more than @q->num ahead (hostile or corrupt).
 */
static inline int sroce_queue_count(struct sroce_queue *q)
{
	/* pairs with the producer's release store: slots before it are written */
	u32 prod = smp_load_acquire(&q->hdr->producer);
	u32 n = prod - q->kidx;

	return n > q->num ? -EIO : (int)n;
}

/* Advance the kernel's consumer index and publish it (release). */
static inline void sroce_queue_consume(struct sroce_queue *q, u32 n)
{
	q->kidx += n;
	/* pairs with the producer's acquire load: our reads of the slots are done */
	smp_store_release(&q->hdr->consumer, q->kidx);
}

/* ------------------------------------------------------------------ */
/* CQ                                                                  */
/* ------------------------------------------------------------------ */

/**
 * struct sroce_cq - completion queue
 * @ibcq: core CQ
 * @lock: serializes producers (any QP's work may complete into it) and,
 *	for kernel CQs, poll_cq
 * @queue: the CQE ring (struct sroce_cqe slots)
 * @notify: IB_CQ_NEXT_COMP / IB_CQ_SOLICITED armed, 0 when not armed
 * @is_user: ring mapped by a user context
 * @overflowed: an error event was raised; further CQEs are dropped
 */
struct sroce_cq {
	struct ib_cq ibcq;
	spinlock_t lock;	/* producers; poll_cq of kernel CQs */
	struct sroce_queue queue;
	u8 notify;
	bool is_user;
	bool overflowed;
};

static inline struct sroce_cq *to_sroce_cq(struct ib_cq *cq)
{
	return container_of(cq, struct sroce_cq, ibcq);
}

/**
 * sroce_cq_post() - add a CQE and signal the consumer if armed
 * @cq: completion queue
 * @cqe: entry to copy into the ring (userspace values, see sroce-abi.h)
 * @solicited: the completion is for a solicited event
 *
 * Context: any (takes @cq->lock with irqsave).
 * Return: 0, or -ENOSPC when the CQ is full (an IB_EVENT_CQ_ERR is raised
 * once and the CQE is lost, as IBTA 11.4.2.1 allows).
 */
int sroce_cq_post(struct sroce_cq *cq, const struct sroce_cqe *cqe,
		  bool solicited);

/* ------------------------------------------------------------------ */
/* MR and memory access (sroce_mr.c)                                   */
/* ------------------------------------------------------------------ */

enum sroce_mr_type {
	SROCE_MR_DMA,		/* kernel virtual addresses, whole memory */
	SROCE_MR_USER,		/* pinned user memory (ib_umem) */
};

/**
 * struct sroce_mr - a memory region
 * @ibmr: core MR; lkey and rkey live here
 * @dev: owning device
 * @pd: protection domain
 * @type: SROCE_MR_DMA or SROCE_MR_USER
 * @umem: pinned pages (SROCE_MR_USER)
 * @pages: kernel pages of @umem, one per PAGE_SIZE block, built once
 * @npages: entries in @pages
 * @iova: first valid address
 * @length: bytes
 * @offset: offset of @iova within the first page
 * @access: IB_ACCESS_* flags
 * @ref: references; lookups take one
 * @done: completed when @ref drops to zero
 * @valid: false once invalidated or being deregistered
 */
struct sroce_mr {
	struct ib_mr ibmr;
	struct sroce_dev *dev;
	struct sroce_pd *pd;
	enum sroce_mr_type type;
	struct ib_umem *umem;
	struct page **pages;
	unsigned long npages;
	u64 iova;
	u64 length;
	u32 offset;
	int access;
	struct kref ref;
	struct completion done;
	bool valid;
};

static inline struct sroce_mr *to_sroce_mr(struct ib_mr *mr)
{
	return container_of(mr, struct sroce_mr, ibmr);
}

void sroce_mr_put(struct sroce_mr *mr);

/**
 * sroce_mr_lookup() - find a valid MR by lkey or rkey
 * @dev: device
 * @key: lkey or rkey (index in the upper 24 bits, a key byte below)
 * @remote: @key is an rkey (compared with ibmr.rkey) rather than an lkey
 *
 * Context: any; RCU inside.  Return: the MR with a reference held
 * (drop it with sroce_mr_put()), or NULL.
 */
struct sroce_mr *sroce_mr_lookup(struct sroce_dev *dev, u32 key, bool remote);

/**
 * sroce_mr_check() - protection check of an access to an MR
 * @mr: region
 * @pd: PD of the QP doing the access
 * @iova: first byte
 * @len: bytes (0 is allowed and always in bounds)
 * @access: IB_ACCESS_* flags the access needs (0 for local read)
 *
 * Checks PD, validity, access flags and bounds with overflow checks
 * (IBTA 10.6.3 / 9.7.5.1.2).  Return: 0 or -EACCES (PD or flags), -EFAULT
 * (bounds), -EINVAL (invalidated MR).
 */
int sroce_mr_check(const struct sroce_mr *mr, const struct sroce_pd *pd,
		   u64 iova, u64 len, int access);

enum sroce_copy_dir {
	SROCE_TO_MR,		/* write into the MR */
	SROCE_FROM_MR,		/* read from the MR */
};

/**
 * sroce_mr_copy() - copy between a checked MR range and a kernel buffer
 * @mr: region; the range must have passed sroce_mr_check()
 * @iova: first byte in the MR
 * @buf: kernel buffer
 * @len: bytes
 * @dir: direction
 *
 * Context: may be called in softirq (kmap_local_page).
 */
void sroce_mr_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
		   enum sroce_copy_dir dir);

/**
 * struct sroce_sge_cursor - position in a scatter/gather list
 * @sge: the list (a kernel copy, never a user ring)
 * @num_sge: entries
 * @idx: current entry
 * @off: bytes consumed of entry @idx
 * @mr: MR of entry @idx once looked up (reference held), else NULL
 */
struct sroce_sge_cursor {
	const struct sroce_sge *sge;
	u32 num_sge;
	u32 idx;
	u32 off;
	struct sroce_mr *mr;
};

void sroce_sge_cursor_init(struct sroce_sge_cursor *cur,
			   const struct sroce_sge *sge, u32 num_sge);
void sroce_sge_cursor_release(struct sroce_sge_cursor *cur);

/**
 * sroce_sge_copy() - copy @len bytes at a cursor, then advance it
 * @dev: device (key lookups)
 * @pd: PD of the QP
 * @cur: cursor
 * @buf: kernel buffer
 * @len: bytes
 * @dir: SROCE_FROM_MR gathers (send), SROCE_TO_MR scatters (receive)
 *
 * Each SGE's lkey is looked up once and checked for @pd, bounds and, for
 * SROCE_TO_MR, IB_ACCESS_LOCAL_WRITE.  Return: 0, -EINVAL when the list is
 * shorter than @len (IB_WC_LOC_LEN_ERR), -EACCES/-EFAULT on a protection
 * failure (IB_WC_LOC_PROT_ERR).
 */
int sroce_sge_copy(struct sroce_dev *dev, struct sroce_pd *pd,
		   struct sroce_sge_cursor *cur, void *buf, u32 len,
		   enum sroce_copy_dir dir);
int sroce_sge_frags(struct sroce_dev *dev, struct sroce_pd *pd,
		    struct sroce_sge_cursor *cur, struct sk_buff *skb, u32 len);

/* Total bytes of an SGE list; -EINVAL when it overflows 2^31. */
int sroce_sge_total(const struct sroce_sge *sge, u32 num_sge, u32 *total);

/* ------------------------------------------------------------------ */
/* QP                                                                  */
/* ------------------------------------------------------------------ */

#include "sroce_dp.h"	/* requester/responder/completer state */
#include "sroce_cc.h"	/* congestion control state */

/**
 * struct sroce_qp - queue pair
 * @ibqp: core QP; must stay first among core-visible members
 * @dev: device
 * @pd: protection domain
 * @scq: send CQ
 * @rcq: receive CQ
 * @type: IB_QPT_RC, IB_QPT_UC, IB_QPT_UD or IB_QPT_GSI
 * @is_user: rings mapped by a user context
 * @sq: send ring (struct sroce_send_wqe slots)
 * @rq: receive ring (struct sroce_recv_wqe slots)
 * @sq_lock: serializes kernel post_send producers
 * @rq_lock: serializes kernel post_recv producers
 * @state_lock: protects @attr and @state; taken by modify/query and by the
 *	data path when it moves the QP to SQE/ERR
 * @state: current IBTA state (IB_QPS_*)
 * @attr: attributes as last modified (pkey_index, qkey, psns, timeout,
 *	retry counts, path MTU, rd_atomic limits, ah_attr ...)
 * @av: primary path, built from @attr.ah_attr at RTR
 * @mtu: path MTU in bytes
 * @sq_sig_all: every send WQE generates a CQE
 * @ref: references: the xarray entry's base reference, work, timers, skbs
 * @done: completed when @ref drops to zero; destroy waits on it
 * @work: the QP's single data path work item (it runs the responder and
 *	the send side, each serialized on its own: sroce_dp.c)
 * @rx_queue: received responses and CNPs waiting for the send side
 *	(requests wait in dp.resp_rx)
 * @dp: data path state (sroce_dp.h)
 * @cc: congestion control state: DCQCN rate, CNP interval (sroce_cc.h)
 * @dst_cache: RC/UC: route of @av, per CPU (sroce_net.c); reset when
 *	modify_qp changes the path
 * @dst_tos: the TOS @dst_cache was looked up with
 */
struct sroce_qp {
	struct ib_qp ibqp;
	struct sroce_dev *dev;
	struct sroce_pd *pd;
	struct sroce_cq *scq;
	struct sroce_cq *rcq;
	enum ib_qp_type type;
	bool is_user;
	bool sq_sig_all;
	struct sroce_queue sq;
	struct sroce_queue rq;
	spinlock_t sq_lock;	/* kernel post_send producers */
	spinlock_t rq_lock;	/* kernel post_recv producers */
	spinlock_t state_lock;	/* @state and @attr */
	enum ib_qp_state state;
	struct ib_qp_attr attr;
	struct sroce_av av;
	u32 mtu;
	struct kref ref;
	struct completion done;
	struct work_struct work;
	struct sk_buff_head rx_queue;
	struct sroce_dp dp;
	struct sroce_cc_qp cc;
	struct dst_cache dst_cache;
	u8 dst_tos;
};

static inline struct sroce_qp *to_sroce_qp(struct ib_qp *qp)
{
	return container_of(qp, struct sroce_qp, ibqp);
}

static inline u32 sroce_qpn(const struct sroce_qp *qp)
{
	return qp->ibqp.qp_num;
}

void sroce_qp_release(struct kref *ref);

static inline void sroce_qp_get(struct sroce_qp *qp)
{
	kref_get(&qp->ref);
}

static inline void sroce_qp_put(struct sroce_qp *qp)
{
	kref_put(&qp->ref, sroce_qp_release);
}

/**
 * sroce_qp_lookup() - find a QP by QPN for a received packet
 * @dev: device
 * @qpn: 24-bit QPN (1 is the GSI QP)
 *
 * Context: any.  Return: the QP with a reference, or NULL.
 */
struct sroce_qp *sroce_qp_lookup(struct sroce_dev *dev, u32 qpn);

/* Workqueue all QP work runs on (sroce_main.c). */
extern struct workqueue_struct *sroce_wq;

/**
 * sroce_qp_schedule() - make sure the QP's work runs soon
 * @qp: queue pair
 *
 * Takes a reference for the queued work (dropped by the work function).
 * Context: any.
 */
void sroce_qp_schedule(struct sroce_qp *qp);

/**
 * sroce_qp_error() - move a QP to the error state from the data path
 * @qp: queue pair
 *
 * Flushes outstanding WQEs with IB_WC_WR_FLUSH_ERR (done by the work), and
 * raises IB_EVENT_QP_FATAL when called for a fatal error.
 * Context: any.
 */
void sroce_qp_error(struct sroce_qp *qp);

/**
 * sroce_modify_qp_ok() - is an IBTA QP transition allowed with this mask?
 * @cur: current state
 * @next: requested state
 * @type: QP type
 * @mask: IB_QP_* attribute mask
 *
 * Wraps the core's ib_modify_qp_is_ok() (IBTA 10.3.1, tables 91-93).
 */
bool sroce_modify_qp_ok(enum ib_qp_state cur, enum ib_qp_state next,
			enum ib_qp_type type, enum ib_qp_attr_mask mask);

/* IBTA name of a QP state ("RESET", "INIT", ..., "ERR") for debug output. */
const char *sroce_qp_state_name(enum ib_qp_state state);

/* ------------------------------------------------------------------ */
/* Network (sroce_net.c)                                               */
/* ------------------------------------------------------------------ */

int sroce_net_init(void);
void sroce_net_exit(void);

/**
 * sroce_net_attach() - start receiving for a device in its netdev's netns
 * @dev: device with @dev->ndev set
 *
 * Creates (or takes a reference on) the netns' UDP 4791 sockets.
 * Context: process, under RTNL or not (does not take RTNL itself).
 * Return: 0 or a negative errno (-EADDRINUSE when port 4791 is taken).
 */
int sroce_net_attach(struct sroce_dev *dev);
void sroce_net_detach(struct sroce_dev *dev);

/**
 * sroce_net_alloc_skb() - allocate a packet for a QP or AH path
 * @dev: device
 * @av: destination
 * @hdr_len: bytes of BTH + extended headers
 * @payload: payload bytes (pad and ICRC are added)
 * @pkt: metadata to fill (hdr, paylen, network_type)
 *
 * Reserves headroom for link, IP and UDP headers and puts hdr_len +
 * payload + pad + ICRC bytes of tail room; @pkt->hdr points at the BTH.
 * Return: the skb or NULL.
 */
struct sk_buff *sroce_net_alloc_skb(struct sroce_dev *dev,
				    const struct sroce_av *av, u32 hdr_len,
				    u32 payload, struct sroce_pkt_info *pkt);
struct sk_buff *sroce_net_alloc_skb_paged(struct sroce_dev *dev,
					  const struct sroce_av *av,
					  u32 hdr_len, u32 payload,
					  struct sroce_pkt_info *pkt);
int sroce_net_put_trailer(struct sk_buff *skb, u32 payload);

/**
 * sroce_net_xmit() - encapsulate and send a built packet
 * @dev: device
 * @qp: source QP (flow entropy for the UDP source port, CC/priority)
 * @av: destination
 * @skb: packet from sroce_net_alloc_skb() with headers and payload filled
 *
 * Adds UDP and IP headers, computes the ICRC, routes in the netdev's netns
 * and sends.  Consumes @skb in every case.
 * Return: 0 when sent; -EAGAIN on backpressure (qdisc or device queue
 * pushed back: the caller retries the same packet later and must not count
 * it as lost); another negative errno when the packet was dropped.
 */
int sroce_net_xmit(struct sroce_dev *dev, struct sroce_qp *qp,
		   const struct sroce_av *av, struct sk_buff *skb);

/**
 * sroce_rcv() - hand a validated received packet to the data path
 * @skb: packet; SROCE_PKT(skb) is filled, pkt->qp holds a reference
 *
 * Context: softirq.  Implemented in sroce_dp.c.
 */
void sroce_rcv(struct sk_buff *skb);

/* ------------------------------------------------------------------ */
/* Verbs entry points (sroce_verbs.c) and counters                     */
/* ------------------------------------------------------------------ */

extern const struct ib_device_ops sroce_dev_ops;

struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num);
int sroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index);

#endif /* SROCE_H */
