/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_cc.h - congestion control of sroce: ECN marking, PFC priority
 * mapping and DCQCN (sroce_cc.c); the knobs it reads are in
 * sroce_cc_knobs.h.
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
 * protected by its own spinlock, taken with irqsave: the receive path (CE,
 * CNP), the requester (process context or inline in softirq) and
 * modify_qp (a move to RESET) all update it.
 */
#ifndef SROCE_CC_H
#define SROCE_CC_H

#include <linux/bits.h>
#include <linux/time64.h>
#include <linux/types.h>
#include <linux/spinlock.h>

#include "sroce_hdr.h"
#include "sroce_cc_knobs.h"

struct sroce_dev;
struct sroce_cc_np_budget;
struct sroce_qp;
struct sroce_av;
struct sk_buff;

/* alpha is a fraction in units of 2^-16 */
#define SROCE_CC_ALPHA_SHIFT	16
#define SROCE_CC_ALPHA_ONE	BIT(SROCE_CC_ALPHA_SHIFT)

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

/*
 * Device-wide CNP budget of the notification point: at most
 * SROCE_CC_NP_BUDGET_CNPS CNPs per SROCE_CC_NP_BUDGET_WINDOW_NS, all QPs
 * together (100,000 CNPs/s, about 60 Mb/s of CNPs on the wire).  The
 * per-QP cnp_interval_us bounds the CNPs one QP asks for, but a flood of
 * CE-marked packets with spoofed sources, spread over QPs or aimed at a
 * UD QP (whose CNP goes back to the packet's source address), must not
 * turn the device into a reflector.  Far above what DCQCN needs: a sender
 * halves its rate for the first CNP of an interval, and more do little.
 */
#define SROCE_CC_NP_BUDGET_WINDOW_NS	NSEC_PER_MSEC
#define SROCE_CC_NP_BUDGET_CNPS		100U

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
 * @lock: protects @np and @rp (irqsave: softirq and process context)
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

/* ---- rate limits from the knobs (pure) ---- */
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
bool sroce_cc_np_budget_take(struct sroce_cc_np_budget *b, u64 now_ns);

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

/* ---- QP and data path hooks ---- */
void sroce_cc_qp_init(struct sroce_qp *qp);
void sroce_cc_qp_reset(struct sroce_qp *qp);
bool sroce_cc_rcv(struct sroce_dev *dev, struct sk_buff *skb);
int sroce_cc_send_cnp(struct sroce_qp *qp, const struct sroce_av *path,
		      u32 dest_qpn, u16 pkey);
bool sroce_cc_qp_pace(struct sroce_qp *qp, u32 bytes, u64 *delay_ns);

#endif /* SROCE_CC_H */
