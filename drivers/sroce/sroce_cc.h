/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_cc.h - congestion control of sroce: ECN marking, PFC priority
 * mapping and DCQCN (sroce_cc.c).
 *
 * References: IBTA vol. 1 annex A17.9 (RoCEv2 congestion management: ECN,
 * the CNP, opcode 0x81); Zhu et al., "Congestion Control for Large-Scale
 * RDMA Deployments", SIGCOMM 2015 (DCQCN: notification point NP, reaction
 * point RP); IEEE 802.1Qbb (PFC).
 *
 * Roles:
 *   NP (receiver)  a packet arrives with ECN = CE: answer with a CNP to the
 *                  sending QP, at most one per QP per cnp_interval_us.
 *   RP (sender)    a CNP arrives: cut the QP's current rate RC, then let it
 *                  recover on a timer and a byte counter (fast recovery,
 *                  additive increase, hyper increase); every data packet
 *                  passes a token bucket that runs at RC.
 *
 * Timers are evaluated lazily: struct sroce_cc_rp keeps the time of the
 * last alpha update and of the last rate increase, and every call that
 * looks at the state (pacing a packet, a CNP, a resource dump) first
 * applies the whole periods that elapsed since.  There is no per-QP kernel
 * timer: nothing to arm, cancel or reference-count, nothing to stop on
 * destroy.  A QP that sends nothing does not need its rate to grow.
 *
 * Fixed point, no floating point: rates are kept in kb/s (u32, up to
 * 4.29 Tb/s) and set in Mb/s; alpha is in units of 2^-16
 * (SROCE_CC_ALPHA_ONE is 1.0); g is 2^-g_shift.
 *
 * Per-QP state (struct sroce_cc_qp, member cc of struct sroce_qp) is
 * protected by its own spinlock, taken with irqsave: the RX softirq (CE,
 * CNP) and the requester (process context) both update it.
 *
 * ---------------------------------------------------------------------
 * Integration hooks (to be added by the lead; each is one call):
 *
 *  1. sroce_main.c, sroce_newlink(), right after sroce_dev_init(dev, ndev):
 *	err = sroce_cc_dev_init(dev);
 *	if (err)
 *		goto err_free;
 *	rtnl_lock();		(newlink is not called under RTNL)
 *	sroce_cc_update_line_rate(dev);
 *	rtnl_unlock();
 *  2. sroce_main.c, sroce_enable_driver() (ib_register_device() calls it
 *     after device_add(), so the device's sysfs directory exists):
 *	if (sroce_cc_register_sysfs(to_sroce_dev(ibdev)))
 *		ibdev_warn(ibdev, "no cc/ sysfs directory\n");
 *     (ops.device_group is taken by the "parent" attribute and is a single
 *     flat group anyway; 6.1 has no rdma_set_device_sysfs_group().)
 *  3. sroce_main.c, sroce_dev_release_fields() (newlink's error path and
 *     dealloc_driver, after sroce_net_detach()): sroce_cc_dev_fini(dev);
 *     it removes cc/ (waiting for running show/store), then frees dev->cc;
 *     NULL-safe.
 *  4. sroce_main.c, sroce_netdev_event(), NETDEV_UP / NETDEV_CHANGE (RTNL
 *     held), next to sroce_update_port_state(dev):
 *	sroce_cc_update_line_rate(dev);
 *  5. sroce_qp.c, sroce_qp_init_fields() (create_qp, before the QP is
 *     published), next to spin_lock_init(&qp->state_lock):
 *	sroce_cc_qp_init(qp);
 *     optionally, on a move to RESET: sroce_cc_qp_reset(qp);
 *  6. sroce_net.c, sroce_udp_encap_rcv(), after RCVD_PKTS is counted,
 *     instead of a bare sroce_rcv(skb):
 *	if (!sroce_cc_rcv(dev, skb))
 *		sroce_rcv(skb);
 *     sroce_cc_rcv() consumes CNPs (frees the skb, drops pkt->qp) and
 *     answers CE-marked packets with a CNP.
 *  7. sroce_net.c, sroce_net_xmit(): the TOS and the priority:
 *	tos = sroce_cc_tos(dev->cc, av->traffic_class);
 *	skb->priority = sroce_cc_skb_priority(dev->cc, av, pkt.opcode);
 *     (sroce_net_ecn_bits() can then go, or return
 *     sroce_cc_tos(dev->cc, 0) & INET_ECN_MASK).
 *  8. (wired: sroce_req_paced()) sroce_req.c, sroce_req_send_packet(),
 *     right after
 *     sroce_req_next_pkt(qp, w, &p) (first transmissions and
 *     retransmissions alike), with a local u64 delay:
 *	if (!sroce_cc_qp_pace(qp, sroce_opcode[p.opcode].length +
 *			      p.payload + SROCE_ICRC_SIZE, &delay)) {
 *		req->tx_blocked = true;
 *		if (!hrtimer_is_queued(&req->tx_timer)) {
 *			sroce_qp_get(qp);
 *			hrtimer_start(&req->tx_timer, ns_to_ktime(delay),
 *				      HRTIMER_MODE_REL_SOFT);
 *		}
 *		return -EAGAIN;
 *	}
 *     (the backpressure path then finds the timer queued and keeps it).
 *     The responder may do the same for RDMA READ responses.
 *  9. sroce_verbs.c sroce_fill_res_qp_entry(), inside its driver nest:
 *	sroce_cc_fill_res_qp_entry(msg, qp)
 *     `rdma -dd resource show qp` then shows drv_cc_rate_mbps,
 *     drv_cc_target_mbps, drv_cc_alpha and drv_cc_limited.
 * ---------------------------------------------------------------------
 *
 * Sysfs (under /sys/class/infiniband/<ibdev>/cc/, like mlx5's
 * /sys/class/net/<if>/ecn/roce_np|roce_rp/): one file per knob of
 * enum sroce_cc_knob in roce_np/ or roce_rp/, plus the read-only
 * roce_rp/line_rate_mbps.  Writes are range-checked: a bad value returns
 * -EINVAL and changes nothing.
 */
#ifndef SROCE_CC_H
#define SROCE_CC_H

#include <linux/bits.h>
#include <linux/types.h>
#include <linux/spinlock.h>

#include "sroce_hdr.h"

struct sroce_dev;
struct sroce_qp;
struct sroce_av;
struct sk_buff;

/* alpha is a fraction in units of 2^-16 */
#define SROCE_CC_ALPHA_SHIFT	16
#define SROCE_CC_ALPHA_ONE	BIT(SROCE_CC_ALPHA_SHIFT)

#define SROCE_CC_KBPS_PER_MBPS	1000U
/* Highest rate a knob may name, Mb/s (800 Gb/s). */
#define SROCE_CC_RATE_MAX_MBPS	800000U
/* Line rate when the netdev reports no speed (virtio, ...), Mb/s. */
#define SROCE_CC_DEFAULT_LINE_RATE_MBPS	100000U
/*
 * Token bucket depth, bytes: what a paced QP may send back to back after
 * an idle time.  Software timers and work scheduling have tens of µs of
 * jitter; 64 KiB covers about 50 µs at 10 Gb/s.
 */
#define SROCE_CC_BURST_BYTES	65536U
/*
 * Rate increase periods applied in one lazy evaluation.  A QP that saw no
 * CNP for more periods than this (56 ms at 55 µs) is released to line rate.
 */
#define SROCE_CC_MAX_INCREASE_EVENTS	1024U
/* Timer and byte counter event counts saturate here. */
#define SROCE_CC_EVENT_CNT_MAX	0xffffU
/* Bytes of a CNP after the BTH: 16 reserved bytes (annex A17.9.3) */
#define SROCE_CNP_RESV_BYTES	16
/* BTH + reserved bytes; with the ICRC a CNP is 32 bytes of UDP payload */
#define SROCE_CNP_HDR_LEN	(sizeof(struct sroce_bth) + SROCE_CNP_RESV_BYTES)

/**
 * enum sroce_cc_knob - tunable parameters, one sysfs file each
 * @SROCE_CC_NP_ENABLE: roce_np/enable: answer CE with CNPs (0/1, default 1)
 * @SROCE_CC_NP_CNP_INTERVAL_US: roce_np/cnp_interval_us: minimum time
 *	between two CNPs of one QP, µs (0..1000000, default 50: DCQCN paper)
 * @SROCE_CC_NP_CNP_DSCP: roce_np/cnp_dscp: DSCP of CNPs (0..63, default 48)
 * @SROCE_CC_NP_CNP_PRIO: roce_np/cnp_prio: skb->priority (hence VLAN PCP
 *	and PFC class) of CNPs (0..7, default 6 = 48 >> 3)
 * @SROCE_CC_RP_ENABLE: roce_rp/enable: react to CNPs by rate limiting
 *	(0/1, default 1)
 * @SROCE_CC_RP_ECN_ENABLE: roce_rp/ecn_enable: send packets ECT(0) so
 *	switches mark CE instead of dropping; 0 sends Not-ECT (0/1,
 *	default 1)
 * @SROCE_CC_RP_G_SHIFT: roce_rp/g_shift: g = 2^-g_shift, the gain of the
 *	alpha moving average (1..16, default 8: g = 1/256, DCQCN paper)
 * @SROCE_CC_RP_ALPHA_PERIOD_US: roce_rp/alpha_update_period_us: alpha
 *	decays by (1 - g) every period without a CNP, µs (1..1000000,
 *	default 55: DCQCN paper)
 * @SROCE_CC_RP_RATE_PERIOD_US: roce_rp/rate_increase_period_us: rate
 *	increase timer, µs (1..1000000, default 55: DCQCN paper)
 * @SROCE_CC_RP_BYTE_COUNTER: roce_rp/byte_counter: bytes sent per rate
 *	increase event, 0 = byte counter off (0..1073741824, default 10 MiB:
 *	DCQCN paper's 10 MB)
 * @SROCE_CC_RP_FR_STEPS: roce_rp/fast_recovery_steps: F, increase events
 *	spent in fast recovery (0..255, default 5: DCQCN paper)
 * @SROCE_CC_RP_AI_RATE_MBPS: roce_rp/ai_rate_mbps: R_AI, additive increase
 *	step, Mb/s (1..800000, default 40: DCQCN paper)
 * @SROCE_CC_RP_HAI_RATE_MBPS: roce_rp/hai_rate_mbps: R_HAI, hyper increase
 *	step, Mb/s (1..800000, default 100)
 * @SROCE_CC_RP_MIN_RATE_MBPS: roce_rp/min_rate_mbps: rate floor, Mb/s
 *	(1..800000, default 10)
 * @SROCE_CC_RP_MAX_RATE_MBPS: roce_rp/max_rate_mbps: rate ceiling, Mb/s;
 *	0 = the netdev's line rate (0..800000, default 0)
 * @SROCE_CC_NUM_KNOBS: number of knobs
 */
enum sroce_cc_knob {
	SROCE_CC_NP_ENABLE,
	SROCE_CC_NP_CNP_INTERVAL_US,
	SROCE_CC_NP_CNP_DSCP,
	SROCE_CC_NP_CNP_PRIO,
	SROCE_CC_RP_ENABLE,
	SROCE_CC_RP_ECN_ENABLE,
	SROCE_CC_RP_G_SHIFT,
	SROCE_CC_RP_ALPHA_PERIOD_US,
	SROCE_CC_RP_RATE_PERIOD_US,
	SROCE_CC_RP_BYTE_COUNTER,
	SROCE_CC_RP_FR_STEPS,
	SROCE_CC_RP_AI_RATE_MBPS,
	SROCE_CC_RP_HAI_RATE_MBPS,
	SROCE_CC_RP_MIN_RATE_MBPS,
	SROCE_CC_RP_MAX_RATE_MBPS,
	SROCE_CC_NUM_KNOBS
};

/**
 * struct sroce_cc_params - congestion control knobs of one device
 * @np_enable: see &enum sroce_cc_knob (SROCE_CC_NP_ENABLE)
 * @cnp_interval_us: µs
 * @cnp_dscp: DSCP (0..63)
 * @cnp_prio: priority (0..7)
 * @rp_enable: 0/1
 * @ecn_enable: 0/1
 * @g_shift: g = 2^-@g_shift
 * @alpha_period_us: µs
 * @rate_period_us: µs
 * @byte_counter: bytes, 0 = off
 * @fr_steps: F
 * @ai_rate_mbps: R_AI, Mb/s
 * @hai_rate_mbps: R_HAI, Mb/s
 * @min_rate_mbps: Mb/s
 * @max_rate_mbps: Mb/s, 0 = @line_rate_mbps
 * @line_rate_mbps: the netdev's speed, or SROCE_CC_DEFAULT_LINE_RATE_MBPS
 *	(not a knob: sroce_cc_update_line_rate() sets it)
 *
 * Every member is a u32 written with WRITE_ONCE() (sysfs) and read with
 * READ_ONCE() (data path) without a lock: each value is valid on its own,
 * and the arithmetic tolerates any combination (the floor is clamped to
 * the ceiling).
 */
struct sroce_cc_params {
	u32 np_enable;
	u32 cnp_interval_us;
	u32 cnp_dscp;
	u32 cnp_prio;
	u32 rp_enable;
	u32 ecn_enable;
	u32 g_shift;
	u32 alpha_period_us;
	u32 rate_period_us;
	u32 byte_counter;
	u32 fr_steps;
	u32 ai_rate_mbps;
	u32 hai_rate_mbps;
	u32 min_rate_mbps;
	u32 max_rate_mbps;
	u32 line_rate_mbps;
};

/**
 * struct sroce_cc_np - notification point state of one QP
 * @last_cnp_ns: time the last CNP was decided, ns (ktime_get_ns())
 * @cnp_sent: @last_cnp_ns is valid
 */
struct sroce_cc_np {
	u64 last_cnp_ns;
	bool cnp_sent;
};

/**
 * struct sroce_cc_rp - reaction point (DCQCN) state of one QP
 * @active: the rate limiter is on (a CNP came and the rate has not yet
 *	recovered to the ceiling); when off, packets are not paced
 * @rc_kbps: current rate RC, kb/s
 * @rt_kbps: target rate RT, kb/s
 * @alpha: congestion estimate, units of 2^-16 (0..SROCE_CC_ALPHA_ONE)
 * @t_cnt: rate increase timer events since the last cut (saturates)
 * @bc_cnt: byte counter events since the last cut (saturates)
 * @bc_bytes: bytes sent toward the next byte counter event
 * @alpha_ts: start of the current alpha update period, ns
 * @rate_ts: start of the current rate increase period, ns
 * @tb_ts: time the token bucket was last refilled, ns
 * @tokens: token bucket credit in units of ns * kb/s (8,000,000 per
 *	byte), may be negative (a deficit the next packets wait for)
 */
struct sroce_cc_rp {
	bool active;
	u32 rc_kbps;
	u32 rt_kbps;
	u32 alpha;
	u32 t_cnt;
	u32 bc_cnt;
	u32 bc_bytes;
	u64 alpha_ts;
	u64 rate_ts;
	u64 tb_ts;
	s64 tokens;
};

/**
 * struct sroce_cc_qp - congestion control state of one QP
 * @lock: protects @np and @rp (irqsave: RX softirq and process context)
 * @np: notification point
 * @rp: reaction point
 */
struct sroce_cc_qp {
	spinlock_t lock;	/* protects np and rp */
	struct sroce_cc_np np;
	struct sroce_cc_rp rp;
};

/**
 * enum sroce_cc_event - source of a DCQCN rate increase event
 * @SROCE_CC_EV_TIMER: the rate increase timer expired
 * @SROCE_CC_EV_BYTES: the byte counter expired
 */
enum sroce_cc_event {
	SROCE_CC_EV_TIMER,
	SROCE_CC_EV_BYTES,
};

/* ---- knobs (pure) ---- */
void sroce_cc_params_init(struct sroce_cc_params *p);
int sroce_cc_param_check(enum sroce_cc_knob knob, u32 value);
int sroce_cc_param_set(struct sroce_cc_params *p, enum sroce_cc_knob knob,
		       u32 value);
u32 sroce_cc_param_get(const struct sroce_cc_params *p,
		       enum sroce_cc_knob knob);
const char *sroce_cc_knob_name(enum sroce_cc_knob knob);
u32 sroce_cc_ceiling_kbps(const struct sroce_cc_params *p);
u32 sroce_cc_floor_kbps(const struct sroce_cc_params *p);

/* ---- marking and priority (pure) ---- */
u8 sroce_cc_tos(const struct sroce_cc_params *p, u8 traffic_class);
u8 sroce_cc_priority(u8 traffic_class, u8 sl);
u32 sroce_cc_skb_priority(const struct sroce_cc_params *p,
			  const struct sroce_av *av, u8 opcode);

/* ---- notification point (pure) ---- */
bool sroce_cc_np_should_send_cnp(struct sroce_cc_np *np, u64 now_ns,
				 const struct sroce_cc_params *p);

/* ---- reaction point (pure) ---- */
void sroce_cc_rp_init(struct sroce_cc_rp *rp);
void sroce_cc_rp_on_cnp(struct sroce_cc_rp *rp, u64 now_ns,
			const struct sroce_cc_params *p);
u32 sroce_cc_alpha_decay(u32 alpha, u32 g_shift, u64 periods);
void sroce_cc_rp_alpha_timer(struct sroce_cc_rp *rp, u64 periods,
			     const struct sroce_cc_params *p);
void sroce_cc_rp_increase_event(struct sroce_cc_rp *rp,
				enum sroce_cc_event ev,
				const struct sroce_cc_params *p);
void sroce_cc_rp_advance(struct sroce_cc_rp *rp, u64 now_ns,
			 const struct sroce_cc_params *p);
bool sroce_cc_rp_pace(struct sroce_cc_rp *rp, u32 bytes, u64 now_ns,
		      const struct sroce_cc_params *p, u64 *delay_ns);
u32 sroce_cc_rp_rate_mbps(const struct sroce_cc_rp *rp,
			  const struct sroce_cc_params *p);

/* ---- CNP format (pure) ---- */
void sroce_cc_cnp_fill(void *hdr, u32 dest_qpn, u16 pkey);

/* ---- device ---- */
int sroce_cc_dev_init(struct sroce_dev *dev);
void sroce_cc_dev_fini(struct sroce_dev *dev);
int sroce_cc_register_sysfs(struct sroce_dev *dev);
void sroce_cc_unregister_sysfs(struct sroce_dev *dev);
void sroce_cc_update_line_rate(struct sroce_dev *dev);

/* ---- QP and data path hooks ---- */
void sroce_cc_qp_init(struct sroce_qp *qp);
void sroce_cc_qp_reset(struct sroce_qp *qp);
bool sroce_cc_rcv(struct sroce_dev *dev, struct sk_buff *skb);
int sroce_cc_send_cnp(struct sroce_qp *qp, const struct sroce_av *path,
		      u32 dest_qpn, u16 pkey);
bool sroce_cc_qp_pace(struct sroce_qp *qp, u32 bytes, u64 *delay_ns);
int sroce_cc_fill_res_qp_entry(struct sk_buff *msg, struct sroce_qp *qp);

#endif /* SROCE_CC_H */
