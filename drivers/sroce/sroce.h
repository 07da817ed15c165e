/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce.h - the sroce software RoCEv2 device: its object, limits and
 * counters, and the map of the driver's files.
 *
 * A packet's way through the files:
 *
 *   RX  sroce_net_sock.c (UDP 4791 socket) -> sroce_recv.c (every check,
 *       CE/CNP to sroce_cc.c, dispatch) -> sroce_dp.c (the QP's two
 *       engines) ->
 *       sroce_resp.c, sroce_resp_recv.c, sroce_resp_rdma.c (requests) |
 *       sroce_comp.c (responses)
 *   TX  verbs post_send -> sroce_dp.c doorbell -> sroce_req.c,
 *       sroce_req_pkt.c (requests), sroce_resp_out.c (ACKs, READ
 *       responses, atomic ACKs) ->
 *       sroce_net.c (IP/UDP encapsulation, ICRC, route, send; a run's
 *       packets as one skb: sroce_net_gso.c)
 *
 * Files and their one job each (each object's header has its name;
 * sroce_send.h is the send side's, shared by sroce_req.c, sroce_req_pos.c,
 * sroce_req_pkt.c, sroce_comp.c and sroce_retx.c):
 *   sroce_main.c      module init/exit, rdma_link_ops, netdev notifier,
 *                     device allocation/registration, port state, ops table
 *   sroce_verbs.c     verb entry points: validate, allocate, reply
 *                     (device, port, contexts, PDs, AHs, rdma resource
 *                     details)
 *   sroce_verbs_qp.c  QP and SRQ verbs: create, modify, query, destroy
 *   sroce_verbs_cq.c  CQ verbs, poll_cq (CQE -> ib_wc), req_notify_cq
 *   sroce_verbs_wr.c  kernel consumers' post_send, post_recv,
 *                     post_srq_recv: WR checks, WQEs into the rings
 *   sroce_verbs_mr.c  MR verbs: DMA, user, fast-register MRs, rereg
 *   sroce_qp.c        QP object, state machine (IBTA 10.3) and the table of
 *                     what each state allows (sroce_qp_state_caps[])
 *   sroce_qp_fatal.c  the device's failure (every QP to ERR) and the drain
 *                     verbs (drain_sq, drain_rq)
 *   sroce_dp.c        QP data path: the send side's and the responder's
 *                     runs, their work item, doorbell and RX kick
 *   sroce_dp_place.c  where each side runs: its home CPU, claimed or
 *                     placed (send sides by doorbells, responders by
 *                     where their requests arrive, and for local peers
 *                     by requests of several packets)
 *   sroce_diag.c      the send side's wake-up invariant (checked after
 *                     each run) and the per-QP state of `rdma -dd
 *                     resource show qp` (the tests' stall detector)
 *   sroce_req.c       requester: SQ WQEs fetched and checked, flow
 *                     control, the send loop
 *   sroce_req_pos.c   requester's position: go-back-N rewind, forward,
 *                     seek; the network's push-back (pause, a batch sent
 *                     again)
 *   sroce_req_pkt.c   requester's packets: opcode, headers, payload (copy
 *                     or zero-copy), pacing, transmit
 *   sroce_comp.c      completer: ACKs, NAKs, READ responses -> CQEs
 *                     (sroce_send.h: the send side's state, shared with
 *                     the requester)
 *   sroce_retx.c      retransmission: loss episodes, congestion window,
 *                     RTT, retransmit and RNR timers
 *   sroce_resp.c      responder: request packets, their checks, RC
 *                     order, errors, entry points
 *   sroce_resp_ooo.c  RC responder's out-of-order hold: requests past a
 *                     gap kept, run once it is filled, one answer for all
 *   sroce_resp_recv.c responder's data placement: SEND and RDMA WRITE
 *                     into memory, receive WQEs (RQ, SRQ, XRC SRQ) and
 *                     their CQEs, UD, flush of the RQ
 *   sroce_resp_rdma.c responder's requests answered with their own
 *                     response (READ, atomics, ATOMIC WRITE, FLUSH) and
 *                     duplicates
 *   sroce_resp_out.c  responder's response queue: ACK/NAK, READ responses,
 *                     atomic ACKs, in request order
 *   sroce_recv.c      receive path: packet checks (headers, ICRC, P_Key,
 *                     QP type and state, addresses, Q_Key), congestion
 *                     control hook, dispatch to the QP's data path
 *   sroce_net.c       packet allocation, IP/UDP encapsulation, TX, route
 *                     cache, same-device loopback
 *   sroce_net_sock.c  UDP 4791 sockets per netns and their devices (which
 *                     device a received packet is for)
 *   sroce_net_gso.c   a run's packets as one skb (UDP GSO with a fraglist),
 *                     cut back into the same packets below
 *   sroce_av.c        address vectors and AH numbers
 *   sroce_mr.c        MRs, keys, lookups, protection checks,
 *                     registration (DMA, user MRs), deregistration
 *   sroce_mr_fast.c   fast-register MRs: page lists (map_mr_sg),
 *                     IB_WR_REG_MR, IB_WR_LOCAL_INV
 *   sroce_mr_rkey.c   a peer's rkeys: the MR (or memory window) a remote
 *                     access reaches, Send with Invalidate
 *   sroce_mr_copy.c   copies to/from MR memory, atomics, SGE cursors
 *                     (copy and zero-copy gather)
 *   sroce_mw.c        memory windows (type 1, 2B): bind, invalidate, the
 *                     window behind an rkey
 *   sroce_queue.c     shared rings and their mmap entries, CQs
 *   sroce_mcast.c     UD multicast groups: attach/detach, delivery of a
 *                     packet to every attached QP
 *   sroce_srq.c       shared receive queues: the ring several QPs take
 *                     receive WQEs from, the SRQ limit event
 *   sroce_opcode.c    packet opcode table, work request rule table (which
 *                     opcodes and flags each QP type takes), RNR/timeout
 *                     tables
 *   sroce_icrc.c      ICRC
 *   sroce_cc.c        congestion control: ECN marking, CNPs, DCQCN rate
 *                     and pacing, PFC priority
 *   sroce_cc_knobs.c  congestion control knobs, their sysfs files, the
 *                     line rate, per-QP rdma resource attributes
 *   sroce_counters.c  rdma statistic counters (hw_stats)
 *   sroce_hdr.h       wire headers, PSN and AETH arithmetic
 *   sroce_compat.h    kernel-version dependent helpers
 *
 * Object lifetime: every QP and MR carries a kref.  Lookups from packets
 * use RCU + kref_get_unless_zero(); every deferred context (work item,
 * timer, queued skb) holds a reference.  Destroying a QP unpublishes it,
 * stops its deferred work, drops the base reference and waits for its
 * completion before returning to the core.  Deregistering an MR never
 * waits for the engines that hold it across packets (a peer could make
 * that wait forever): it invalidates the MR at once and the last
 * reference frees it (sroce_mr.c).
 */
#ifndef SROCE_H
#define SROCE_H

#include <linux/kref.h>
#include <linux/llist.h>
#include <linux/completion.h>
#include <linux/spinlock.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>
#include <linux/timer.h>
#include <linux/xarray.h>
#include <linux/hashtable.h>
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

/*
 * Identity reported by query_device.  vendor_id is an IEEE OUI; sroce has
 * none, so it reports 02:53:52 ("SR" with the U/L bit set): an identifier
 * in the locally administered space of IEEE 802-2014 8.2, which the IEEE
 * never assigns to an organisation, so it names no real vendor (and, unlike
 * rxe's 0xFFFFFF, cannot be mistaken for rxe).  The part number and
 * hardware version are sroce's own; hw_ver follows incompatible changes of
 * the user ring formats (the ABI version).
 */
#define SROCE_VENDOR_ID		0x025352
#define SROCE_VENDOR_PART_ID	0x0001
#define SROCE_HW_VER		SROCE_ABI_VERSION

/* Device limits reported by query_device. */
#define SROCE_MAX_QP		0x10000
#define SROCE_MAX_QP_WR		0x4000
#define SROCE_MAX_CQ		0x10000
#define SROCE_MAX_CQE		0x10000
#define SROCE_MAX_MR		0x40000
#define SROCE_MAX_PD		0x10000
#define SROCE_MAX_AH		0x10000
#define SROCE_MAX_SRQ		0x10000
#define SROCE_MAX_XRCD		0x10000
#define SROCE_MAX_SRQ_WR	SROCE_MAX_QP_WR
#define SROCE_MAX_MR_SIZE	BIT_ULL(40)
#define SROCE_MAX_RD_ATOMIC	128
#define SROCE_MAX_MSG_SIZE	0x80000000U	/* 2 GiB, IBTA max */
#define SROCE_PAGE_SIZE_CAP	PAGE_SIZE
#define SROCE_MIN_QPN		16
#define SROCE_MAX_MCAST_GRP	1024
#define SROCE_MAX_MCAST_QP_ATTACH	64
#define SROCE_MAX_TOTAL_MCAST_QP_ATTACH	4096
#define SROCE_MCG_HASH_BITS	6

/*
 * Kernel memory a verb allocates on its caller's behalf, sized by the
 * caller (a send queue's per-WQE state): charged to the caller's memory
 * cgroup, and beyond its limit (or when memory is short) refused with
 * -ENOMEM, without waking the OOM killer or warning.
 */
#define SROCE_GFP_USER		(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | \
				 __GFP_NOWARN)

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
	SROCE_CNT_RX_DROP_ADDR,		/* RC/UC: not from the QP's path */
	SROCE_CNT_CNP_SUPPRESSED,	/* device-wide CNP budget spent */
	SROCE_CNT_RX_DROP_BACKLOG,	/* the QP's receive backlog was full */
	SROCE_CNT_LOSS_REWINDS,		/* go-back-N for a loss episode */
	SROCE_CNT_RETRANS_TIMEOUTS,	/* retransmit timer expiries */
	SROCE_CNT_SEQ_NAK_SENT,		/* PSN sequence error NAKs sent */
	SROCE_CNT_RX_OOO_HELD,		/* requests held ahead of the gap */
	SROCE_CNT_RX_OOO_DRAINED,	/* held requests processed */
	SROCE_CNT_SEL_RESENDS,		/* packets resent alone (NAK, timeout) */
	SROCE_CNT_READ_RESUMES,		/* READs asked again from a later PSN */
	SROCE_CNT_WAKEUP_REPAIRS,	/* send sides left without a timer */
	SROCE_CNT_LOOPBACK_PKTS,	/* sent straight to the own receive path */
	SROCE_CNT_DOORBELLS,		/* user SQ doorbells (system calls) */
	SROCE_CNT_SEND_MOVES,		/* send sides placed on another CPU */
	SROCE_CNT_RESP_MOVES,		/* responders moved to another CPU */
	SROCE_CNT_TX_BATCHES,		/* request batches sent as one skb */
	SROCE_CNT_RESP_TAKEOVERS,	/* stalled responders run elsewhere */
	SROCE_NUM_COUNTERS
};

/* ------------------------------------------------------------------ */
/* Device                                                              */
/* ------------------------------------------------------------------ */

struct sroce_net;
struct sroce_qp;
struct sroce_av;

/* Objects whose number per device is limited (see sroce_res_get()). */
enum sroce_res_type {
	SROCE_RES_PD,
	SROCE_RES_CQ,
	SROCE_RES_QP,
	SROCE_RES_MR,
	SROCE_RES_AH,
	SROCE_RES_SRQ,
	SROCE_RES_XRCD,
	SROCE_NUM_RES
};

/**
 * struct sroce_res_pool - how many objects of one type a device holds
 * @used: objects alive
 * @max: limit, fixed when the device is added; query_device reports it
 */
struct sroce_res_pool {
	atomic_t used;
	u32 max;
};

/**
 * struct sroce_cc_np_budget - the notification point's device-wide CNP
 *	budget (sroce_cc_np_budget_take() in sroce_cc.c)
 * @window_ns: start of the current budget window, ns (ktime_get_ns())
 * @used: CNPs granted in that window
 *
 * Zero is a valid initial state.
 */
struct sroce_cc_np_budget {
	atomic64_t window_ns;
	atomic_t used;
};

/**
 * struct sroce_dev - one sroce RDMA device bound to one Ethernet netdev
 * @ib_dev: core device; must stay first (ib_alloc_device)
 * @ndev: bound netdev (held with dev_hold from newlink until dealloc)
 * @snet: per-netns UDP sockets this device receives through
 * @list: entry in the module's device list (under sroce_dev_mutex) and,
 *	RCU-protected, in @snet's device list for RX demux
 * @qp_xa: QPN -> struct sroce_qp, RCU lookups from RX
 * @srq_xa: XRC SRQ number -> struct sroce_srq, RCU lookups from the
 *	responders of XRC TGT QPs (sroce_srq.c)
 * @mr_xa: key index -> struct sroce_mr
 * @ah_xa: AH number -> struct sroce_ah (user AHs named in UD WQEs)
 * @mr_key_hist: the key byte each index of @mr_xa had last, so that the
 *	next registration there draws another (sroce_mr.c): pages of bytes
 *	allocated as the index allocator reaches them, NULL until the first
 *	registration, freed by sroce_mr_dev_drain()
 * @mr_free: deregistered MRs whose last reference is gone, to be freed
 *	by @mr_free_work (sroce_mr.c)
 * @mr_free_work: frees @mr_free in process context
 * @mr_zombies: deregistered MRs not freed yet (still referenced or queued)
 * @port_state: IB_PORT_ACTIVE or IB_PORT_DOWN, follows carrier
 * @mtu_cap: largest IB MTU the netdev MTU allows
 * @counters: SROCE_NUM_COUNTERS counters
 * @send_homes: by CPU (nr_cpu_ids entries), how many of the device's
 *	user RC send sides were placed there (struct sroce_dp.placed_cpu);
 *	a send side being placed prefers a CPU with fewer
 *	(sroce_dp_place_send()).  NULL on a device that never spreads (the
 *	KUnit fixtures')
 * @cc: congestion control knobs (sroce_cc_knobs.c)
 * @cnp_budget: CNPs the notification point may still send in the
 *	current window, all QPs together (sroce_cc.c)
 * @res: per-type object counts and limits (sroce_res_get())
 * @mcg_mutex: serializes the writers of @mcg_hash and its groups
 *	(sroce_mcast.c)
 * @mcg_hash: multicast groups by MGID, RCU lookups from RX
 * @nr_mcg: groups in @mcg_hash (under @mcg_mutex)
 * @nr_mca: QP attachments of all groups together (under @mcg_mutex)
 * @kunit_xmit: KUnit only: when set, sroce_net_xmit() hands every built
 *	packet (skb->data at the BTH, before IP/UDP encapsulation) to it
 *	instead of sending it; it consumes the packet and returns what
 *	ip_local_out() would (NET_XMIT_* or a negative errno), which
 *	sroce_net_xmit() reads as for a packet it sent
 * @kunit_batch: KUnit only: with @kunit_xmit, sroce_net_xmit_batch() keeps
 *	the packets of a batch until the flush, where @kunit_xmit's answer
 *	to the first is the batch's (sroce_net_kunit_batch_put())
 * @kunit_batch_rest: KUnit only: true while @kunit_xmit gets the packets
 *	of a batch after its first (it may not push them back: the batch
 *	was taken whole)
 */
struct sroce_dev {
	struct ib_device ib_dev;
	struct net_device *ndev;
	struct sroce_net *snet;
	struct list_head list;
	struct list_head net_list;
	struct xarray qp_xa;
	u32 next_qpn;
	struct xarray srq_xa;
	u32 next_srqn;
	struct xarray mr_xa;
	u32 next_mr_idx;
	u8 **mr_key_hist;
	struct llist_head mr_free;
	struct work_struct mr_free_work;
	atomic_t mr_zombies;
	struct xarray ah_xa;
	u32 next_ah;
	enum ib_port_state port_state;
	bool fatal;
	enum ib_mtu mtu_cap;
	atomic64_t counters[SROCE_NUM_COUNTERS];
	atomic_t *send_homes;
	struct sroce_cc_params *cc;
	struct sroce_cc_np_budget cnp_budget;
	struct sroce_res_pool res[SROCE_NUM_RES];
	struct mutex mcg_mutex;	/* writers of @mcg_hash */
	DECLARE_HASHTABLE(mcg_hash, SROCE_MCG_HASH_BITS);
	u32 nr_mcg;
	u32 nr_mca;
#if IS_ENABLED(CONFIG_SROCE_KUNIT_TEST)
	int (*kunit_xmit)(struct sroce_dev *dev, struct sroce_qp *qp,
			  const struct sroce_av *av, struct sk_buff *skb);
	bool kunit_batch;
	bool kunit_batch_rest;
#endif
};

static inline struct sroce_dev *to_sroce_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct sroce_dev, ib_dev);
}

const char *sroce_counter_name(enum sroce_counter cnt);

/* Has the device failed for good (sroce_dev_set_fatal(), sroce_qp.c)? */
static inline bool sroce_dev_is_fatal(struct sroce_dev *dev)
{
	return READ_ONCE(dev->fatal);
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
/* PD                                                                  */
/* ------------------------------------------------------------------ */

struct sroce_pd {
	struct ib_pd ibpd;
};

static inline struct sroce_pd *to_sroce_pd(struct ib_pd *pd)
{
	return container_of(pd, struct sroce_pd, ibpd);
}

/* ------------------------------------------------------------------ */
/* Ops table (sroce_main.c) and counters (sroce_counters.c)           */
/* ------------------------------------------------------------------ */

extern const struct ib_device_ops sroce_dev_ops;

struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num);
int sroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index);

#endif /* SROCE_H */
