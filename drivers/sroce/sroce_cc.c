// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_cc.c - congestion control: ECN marking (IBTA annex A17.9), the CNP
 * notification point, the DCQCN reaction point with a token bucket pacer
 * and PFC priority mapping.  The knobs they read, with their sysfs files,
 * are in sroce_cc_knobs.c.
 *
 * DCQCN: Zhu et al., "Congestion Control for Large-Scale RDMA Deployments",
 * SIGCOMM 2015.  The arithmetic is in pure functions over struct
 * sroce_cc_rp / struct sroce_cc_np and struct sroce_cc_params, so KUnit
 * (kunit/sroce_cc_kunit.c) tests it without a device; the wrappers at the
 * end take the QP's cc lock, read the clock and talk to the device.
 * See sroce_cc.h for the design (lazy timers, fixed point).
 */

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/timekeeping.h>
#include <net/inet_ecn.h>
#include <net/ipv6.h>
#include <kunit/visibility.h>

#include "sroce.h"
#include "sroce_av.h"
#include "sroce_net.h"
#include "sroce_qp.h"
#include "sroce_recv.h"
#include "sroce_cc.h"
#include "sroce_trace.h"

/* Token bucket credit: ns * kb/s.  One byte is 8 bits = 8e6 ns * kb/s. */
#define SROCE_CC_CREDIT_PER_BYTE	8000000LL
#define SROCE_CC_BURST_CREDIT	\
	((s64)SROCE_CC_BURST_BYTES * SROCE_CC_CREDIT_PER_BYTE)

/* ------------------------------------------------------------------ */
/* Rate limits the knobs give                                          */
/* ------------------------------------------------------------------ */

/**
 * sroce_cc_ceiling_kbps() - highest rate the reaction point allows
 * @p: device parameters
 *
 * max_rate_mbps when set, else the line rate (netdev speed or
 * SROCE_CC_DEFAULT_LINE_RATE_MBPS), at most SROCE_CC_RATE_MAX_MBPS.
 * Context: any.
 * Return: kb/s, at least 1000.
 */
u32 sroce_cc_ceiling_kbps(const struct sroce_cc_params *p)
{
	u32 mbps = READ_ONCE(p->max_rate_mbps);

	if (!mbps)
		mbps = READ_ONCE(p->line_rate_mbps);
	if (!mbps)
		mbps = SROCE_CC_DEFAULT_LINE_RATE_MBPS;
	return min(mbps, SROCE_CC_RATE_MAX_MBPS) * SROCE_CC_KBPS_PER_MBPS;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cc_ceiling_kbps);

/**
 * sroce_cc_floor_kbps() - lowest rate a rate cut may reach
 * @p: device parameters
 *
 * min_rate_mbps, clamped to [1 Mb/s, ceiling] so that a floor set above
 * the ceiling never lets the rate exceed the ceiling.
 * Context: any.
 * Return: kb/s.
 */
u32 sroce_cc_floor_kbps(const struct sroce_cc_params *p)
{
	u32 mbps = clamp(READ_ONCE(p->min_rate_mbps), 1U,
			 SROCE_CC_RATE_MAX_MBPS);

	return min(mbps * SROCE_CC_KBPS_PER_MBPS, sroce_cc_ceiling_kbps(p));
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cc_floor_kbps);

/* ------------------------------------------------------------------ */
/* ECN marking and priority                                            */
/* ------------------------------------------------------------------ */

/**
 * sroce_cc_tos() - IPv4 TOS / IPv6 traffic class byte of an outgoing packet
 * @p: device parameters, or NULL (then ECN is on)
 * @traffic_class: GRH traffic class of the path: DSCP in the upper six
 *	bits; its ECN bits are ignored
 *
 * RoCEv2 senders mark ECT so that ECN-capable switches mark CE instead of
 * dropping (IBTA annex A17.9.1).  ECT(0) when ecn_enable is set, Not-ECT
 * otherwise.  sroce_net_xmit() takes the TOS of every packet from here,
 * CNPs too (with cnp_dscp in @traffic_class).
 * Context: any.
 * Return: DSCP << 2 | ECN.
 */
u8 sroce_cc_tos(const struct sroce_cc_params *p, u8 traffic_class)
{
	u8 ecn = (!p || READ_ONCE(p->ecn_enable)) ? INET_ECN_ECT_0 :
						     INET_ECN_NOT_ECT;

	return (traffic_class & ~INET_ECN_MASK) | ecn;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cc_tos);

/**
 * sroce_cc_priority() - skb->priority for a traffic class and SL
 * @traffic_class: GRH traffic class (DSCP << 2 | ECN)
 * @sl: service level of the address vector (0..15)
 *
 * PFC (IEEE 802.1Qbb) pauses per priority: the frame must land in the
 * lossless class.  skb->priority selects the netdev's TX queue / traffic
 * class (mqprio) and, through a VLAN device's egress-qos-map (identity by
 * convention), the VLAN PCP.  A non-zero SL is taken as the priority
 * (sl & 7, as RoCE NICs map SL to PCP); otherwise the usual DSCP-to-
 * priority default, DSCP >> 3 (DSCP 26 -> 3, DSCP 48 -> 6).
 * Context: any.
 * Return: 0..7.
 */
u8 sroce_cc_priority(u8 traffic_class, u8 sl)
{
	if (sl)
		return sl & 7;
	return traffic_class >> 5;	/* (traffic_class >> 2) >> 3 */
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cc_priority);

/**
 * sroce_cc_skb_priority() - skb->priority of an outgoing packet
 * @p: device parameters, or NULL
 * @av: destination path (traffic class, SL)
 * @opcode: BTH opcode; CNPs (0x81) use cnp_prio
 *
 * sroce_net_xmit() sets the priority of every packet from here, so that
 * it lands in its PFC class (sroce_cc_priority()).
 * Context: any.
 * Return: 0..7.
 */
u32 sroce_cc_skb_priority(const struct sroce_cc_params *p,
			  const struct sroce_av *av, u8 opcode)
{
	if (opcode == SROCE_CNP_OPCODE && p)
		return READ_ONCE(p->cnp_prio);
	return sroce_cc_priority(av->traffic_class, av->sl);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cc_skb_priority);

/* ------------------------------------------------------------------ */
/* Notification point                                                  */
/* ------------------------------------------------------------------ */

/**
 * sroce_cc_np_should_send_cnp() - decide whether a CE packet gets a CNP
 * @np: notification point state of the receiving QP
 * @now_ns: current time, ns (ktime_get_ns())
 * @p: device parameters
 *
 * At most one CNP per QP per cnp_interval_us (DCQCN: 50 µs; IBTA annex
 * A17.9.2 leaves the rate to the implementation); interval 0 answers every
 * CE packet.  Records @now_ns as the time of the CNP when it says yes.
 * Pure apart from @np.  Context: any; the caller serializes @np.
 * Return: true when a CNP should be sent now.
 */
bool sroce_cc_np_should_send_cnp(struct sroce_cc_np *np, u64 now_ns,
				 const struct sroce_cc_params *p)
{
	u64 interval_ns;

	if (!READ_ONCE(p->np_enable))
		return false;
	interval_ns = (u64)READ_ONCE(p->cnp_interval_us) * NSEC_PER_USEC;
	if (np->cnp_sent && now_ns - np->last_cnp_ns < interval_ns)
		return false;
	np->cnp_sent = true;
	np->last_cnp_ns = now_ns;
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cc_np_should_send_cnp);

/**
 * sroce_cc_np_budget_take() - take one CNP from the device-wide budget
 * @b: the device's budget (zeroed: a fresh one)
 * @now_ns: current time, ns (ktime_get_ns())
 *
 * At most SROCE_CC_NP_BUDGET_CNPS CNPs per window of
 * SROCE_CC_NP_BUDGET_WINDOW_NS; the first CNP after a window ended starts
 * the next one at @now_ns.  Lock-free: CPUs racing at a window's start may
 * each see the old count reset, so a window may grant a few CNPs more than
 * the budget, never many (at most one more per CPU).  IBTA annex A17.9.2
 * leaves the CNP rate to the implementation.
 * Context: any.
 * Return: true when the CNP may be sent.
 */
bool sroce_cc_np_budget_take(struct sroce_cc_np_budget *b, u64 now_ns)
{
	s64 start = atomic64_read(&b->window_ns);

	if ((s64)(now_ns - start) >= (s64)SROCE_CC_NP_BUDGET_WINDOW_NS &&
	    atomic64_cmpxchg(&b->window_ns, start, now_ns) == start)
		atomic_set(&b->used, 0);
	return atomic_inc_return(&b->used) <= SROCE_CC_NP_BUDGET_CNPS;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cc_np_budget_take);

/* ------------------------------------------------------------------ */
/* Reaction point: DCQCN arithmetic                                    */
/* ------------------------------------------------------------------ */

static u32 sroce_cc_g_shift(const struct sroce_cc_params *p)
{
	return clamp(READ_ONCE(p->g_shift), 1U, (u32)SROCE_CC_G_SHIFT_MAX);
}

static u64 sroce_cc_period_ns(u32 us)
{
	return (u64)max(us, 1U) * NSEC_PER_USEC;
}

/**
 * sroce_cc_rp_init() - reaction point state of a new QP
 * @rp: state to reset
 *
 * The limiter starts off: the QP sends at line rate until its first CNP.
 * Context: any.
 */
void sroce_cc_rp_init(struct sroce_cc_rp *rp)
{
	memset(rp, 0, sizeof(*rp));
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cc_rp_init);

/* The rate is back at the ceiling: turn the limiter off. */
static void sroce_cc_rp_release(struct sroce_cc_rp *rp, u32 ceil)
{
	rp->active = false;
	rp->rc_kbps = ceil;
	rp->rt_kbps = ceil;
	rp->t_cnt = 0;
	rp->bc_cnt = 0;
	rp->bc_bytes = 0;
}

/* Add the credit earned at RC since the last refill, up to the burst. */
static void sroce_cc_rp_refill(struct sroce_cc_rp *rp, u64 now_ns)
{
	u64 elapsed;

	if (now_ns <= rp->tb_ts)
		return;
	elapsed = now_ns - rp->tb_ts;
	rp->tb_ts = now_ns;
	/* a second fills any bucket; below it elapsed * rc fits in s64 */
	if (elapsed >= NSEC_PER_SEC) {
		rp->tokens = SROCE_CC_BURST_CREDIT;
		return;
	}
	rp->tokens = min_t(s64, rp->tokens + (s64)(elapsed * rp->rc_kbps),
			   SROCE_CC_BURST_CREDIT);
}

/**
 * sroce_cc_alpha_decay() - alpha after some periods without a CNP
 * @alpha: alpha, units of 2^-16
 * @g_shift: g = 2^-@g_shift (1..16)
 * @periods: number of alpha update periods
 *
 * alpha * (1 - g)^periods, with (1 - g)^periods raised by squaring in
 * 32-bit fixed point (at most 64 steps for any @periods) and the result
 * rounded down.  One period is exact: alpha - ceil(alpha * g), so alpha
 * reaches 0 instead of sticking at a small value.
 * Pure.  Context: any.
 * Return: the new alpha.
 */
u32 sroce_cc_alpha_decay(u32 alpha, u32 g_shift, u64 periods)
{
	u64 f, r = 1ULL << 32;

	if (!alpha || !periods)
		return alpha;
	g_shift = clamp(g_shift, 1U, (u32)SROCE_CC_G_SHIFT_MAX);
	f = (1ULL << 32) - (1ULL << (32 - g_shift));
	while (periods && r) {
		if (periods & 1)
			r = mul_u64_u64_shr(r, f, 32);
		f = mul_u64_u64_shr(f, f, 32);
		periods >>= 1;
	}
	return mul_u64_u64_shr(alpha, r, 32);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cc_alpha_decay);

/**
 * sroce_cc_rp_alpha_timer() - apply alpha update periods without a CNP
 * @rp: reaction point state
 * @periods: number of elapsed alpha update periods (55 µs each by default)
 * @p: device parameters (g)
 *
 * DCQCN: alpha = (1 - g) * alpha for each period in which no CNP came.
 * Pure.  Context: any; the caller serializes @rp.
 */
void sroce_cc_rp_alpha_timer(struct sroce_cc_rp *rp, u64 periods,
			     const struct sroce_cc_params *p)
{
	rp->alpha = sroce_cc_alpha_decay(rp->alpha, sroce_cc_g_shift(p),
					 periods);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cc_rp_alpha_timer);

/**
 * sroce_cc_rp_increase_event() - one DCQCN rate increase step
 * @rp: reaction point state
 * @ev: the timer or the byte counter expired
 * @p: device parameters (F, R_AI, R_HAI, ceiling)
 *
 * Counts the event (T for the timer, BC for the byte counter), then:
 * fast recovery while max(T, BC) <= F (RT unchanged); hyper increase
 * (RT += R_HAI) once min(T, BC) > F; additive increase (RT += R_AI)
 * otherwise; in all three RC = (RT + RC) / 2, rounded up so RC reaches RT.
 * RT and RC stay at or below the ceiling; when RC reaches it the limiter
 * is released.  Does nothing while the limiter is off.
 * Pure.  Context: any; the caller serializes @rp.
 */
void sroce_cc_rp_increase_event(struct sroce_cc_rp *rp,
				enum sroce_cc_event ev,
				const struct sroce_cc_params *p)
{
	u32 ceil = sroce_cc_ceiling_kbps(p);
	u32 f = READ_ONCE(p->fr_steps);
	u64 rt = rp->rt_kbps;
	u64 rc;

	if (!rp->active)
		return;
	if (ev == SROCE_CC_EV_TIMER)
		rp->t_cnt = min(rp->t_cnt + 1, SROCE_CC_EVENT_CNT_MAX);
	else
		rp->bc_cnt = min(rp->bc_cnt + 1, SROCE_CC_EVENT_CNT_MAX);

	if (min(rp->t_cnt, rp->bc_cnt) > f)
		rt += (u64)READ_ONCE(p->hai_rate_mbps) * SROCE_CC_KBPS_PER_MBPS;
	else if (max(rp->t_cnt, rp->bc_cnt) > f)
		rt += (u64)READ_ONCE(p->ai_rate_mbps) * SROCE_CC_KBPS_PER_MBPS;
	rt = min_t(u64, rt, ceil);
	rc = min_t(u64, DIV_ROUND_UP_ULL(rt + rp->rc_kbps, 2), ceil);
	rp->rt_kbps = rt;
	rp->rc_kbps = rc;
	if (rc >= ceil)
		sroce_cc_rp_release(rp, ceil);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cc_rp_increase_event);

/* Byte counter: one increase event per byte_counter bytes sent. */
static void sroce_cc_rp_count_bytes(struct sroce_cc_rp *rp, u32 bytes,
				    const struct sroce_cc_params *p)
{
	u32 bc = READ_ONCE(p->byte_counter);
	u64 sum, n;

	if (!bc)
		return;
	sum = (u64)rp->bc_bytes + bytes;
	n = div64_u64(sum, bc);
	rp->bc_bytes = sum - n * bc;
	n = min_t(u64, n, SROCE_CC_MAX_INCREASE_EVENTS);
	while (n-- && rp->active)
		sroce_cc_rp_increase_event(rp, SROCE_CC_EV_BYTES, p);
}

/**
 * sroce_cc_rp_advance() - apply the timer periods that elapsed (lazy timers)
 * @rp: reaction point state
 * @now_ns: current time, ns
 * @p: device parameters
 *
 * Instead of per-QP kernel timers, every look at the state first refills
 * the token bucket at the current rate, then applies the whole alpha
 * update periods (alpha decay) and rate increase periods (timer events)
 * elapsed since the last ones; the periods' start times advance by whole
 * periods so no time is lost.  After more than
 * SROCE_CC_MAX_INCREASE_EVENTS rate periods without a CNP the limiter is
 * released at once.  A ceiling lowered through sysfs applies here.
 * Does nothing while the limiter is off.
 * Pure.  Context: any; the caller serializes @rp.
 */
void sroce_cc_rp_advance(struct sroce_cc_rp *rp, u64 now_ns,
			 const struct sroce_cc_params *p)
{
	u32 ceil = sroce_cc_ceiling_kbps(p);
	u64 period, n;

	if (!rp->active)
		return;
	sroce_cc_rp_refill(rp, now_ns);
	rp->rt_kbps = min(rp->rt_kbps, ceil);
	if (rp->rc_kbps >= ceil) {
		sroce_cc_rp_release(rp, ceil);
		return;
	}

	period = sroce_cc_period_ns(READ_ONCE(p->alpha_period_us));
	if (now_ns > rp->alpha_ts) {
		n = div64_u64(now_ns - rp->alpha_ts, period);
		sroce_cc_rp_alpha_timer(rp, n, p);
		rp->alpha_ts += n * period;
	}

	period = sroce_cc_period_ns(READ_ONCE(p->rate_period_us));
	if (now_ns > rp->rate_ts) {
		n = div64_u64(now_ns - rp->rate_ts, period);
		if (n > SROCE_CC_MAX_INCREASE_EVENTS) {
			sroce_cc_rp_release(rp, ceil);
			return;
		}
		rp->rate_ts += n * period;
		while (n-- && rp->active)
			sroce_cc_rp_increase_event(rp, SROCE_CC_EV_TIMER, p);
	}
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cc_rp_advance);

/**
 * sroce_cc_rp_on_cnp() - DCQCN rate decrease on a received CNP
 * @rp: reaction point state of the QP named in the CNP
 * @now_ns: current time, ns
 * @p: device parameters (g, floor, ceiling)
 *
 * First applies elapsed periods (sroce_cc_rp_advance()).  If the limiter
 * is off, turns it on at the ceiling with alpha = 1 (DCQCN's initial
 * alpha; the first CNP halves the rate).  Then, as in the paper:
 * RT = RC; RC = RC * (1 - alpha / 2), not below the floor;
 * alpha = (1 - g) * alpha + g.  The timer and byte counter restart (T =
 * BC = 0: fast recovery again), and so does the alpha period.
 * Pure.  Context: any; the caller serializes @rp.
 */
void sroce_cc_rp_on_cnp(struct sroce_cc_rp *rp, u64 now_ns,
			const struct sroce_cc_params *p)
{
	u32 g_shift = sroce_cc_g_shift(p);
	u32 floor = sroce_cc_floor_kbps(p);
	u64 cut;

	sroce_cc_rp_advance(rp, now_ns, p);
	if (!rp->active) {
		sroce_cc_rp_release(rp, sroce_cc_ceiling_kbps(p));
		rp->active = true;
		rp->alpha = SROCE_CC_ALPHA_ONE;
		rp->tokens = 0;
		rp->tb_ts = now_ns;
	}

	rp->rt_kbps = rp->rc_kbps;
	cut = ((u64)rp->rc_kbps * rp->alpha) >> (SROCE_CC_ALPHA_SHIFT + 1);
	rp->rc_kbps = max_t(u64, rp->rc_kbps - cut, floor);
	rp->alpha = rp->alpha - (rp->alpha >> g_shift) +
		    (SROCE_CC_ALPHA_ONE >> g_shift);

	rp->t_cnt = 0;
	rp->bc_cnt = 0;
	rp->bc_bytes = 0;
	rp->alpha_ts = now_ns;
	rp->rate_ts = now_ns;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cc_rp_on_cnp);

/**
 * sroce_cc_rp_pace() - token bucket at RC: may a packet go now?
 * @rp: reaction point state of the sending QP
 * @bytes: bytes of the packet (its UDP payload: BTH to ICRC)
 * @now_ns: current time, ns
 * @p: device parameters, or NULL (no congestion control)
 * @delay_ns: set to 0 when the packet may go, else to the ns to wait
 *
 * With the reaction point disabled or the limiter off, every packet goes
 * and nothing is charged.  Otherwise, after sroce_cc_rp_advance(): a
 * packet goes while the bucket's credit is not negative, and is charged
 * (the credit may go below zero: large packets need no large bucket); the
 * bytes also count toward the byte counter.  With a deficit, the packet
 * waits for the time RC needs to pay it back; the caller re-arms its work
 * with a timer for @delay_ns and asks again then (no busy waiting).
 * Pure.  Context: any; the caller serializes @rp.
 * Return: true when the packet may be sent now (and was charged).
 */
bool sroce_cc_rp_pace(struct sroce_cc_rp *rp, u32 bytes, u64 now_ns,
		      const struct sroce_cc_params *p, u64 *delay_ns)
{
	*delay_ns = 0;
	if (!p || !READ_ONCE(p->rp_enable) || !rp->active)
		return true;
	sroce_cc_rp_advance(rp, now_ns, p);
	if (!rp->active)
		return true;
	if (rp->tokens < 0) {
		*delay_ns = DIV64_U64_ROUND_UP((u64)-rp->tokens,
					       max(rp->rc_kbps, 1U));
		return false;
	}
	rp->tokens -= (s64)bytes * SROCE_CC_CREDIT_PER_BYTE;
	sroce_cc_rp_count_bytes(rp, bytes, p);
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cc_rp_pace);

/**
 * sroce_cc_rp_rate_mbps() - current rate of a QP for display
 * @rp: reaction point state
 * @p: device parameters
 *
 * Context: any; the caller serializes @rp.
 * Return: RC in Mb/s while the limiter is on, else the ceiling.
 */
u32 sroce_cc_rp_rate_mbps(const struct sroce_cc_rp *rp,
			  const struct sroce_cc_params *p)
{
	u32 kbps = rp->active ? rp->rc_kbps : sroce_cc_ceiling_kbps(p);

	return kbps / SROCE_CC_KBPS_PER_MBPS;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cc_rp_rate_mbps);

/* ------------------------------------------------------------------ */
/* QP hooks                                                            */
/* ------------------------------------------------------------------ */

/**
 * sroce_cc_qp_init() - set up the congestion control state of a new QP
 * @qp: QP not yet published (no packet can find it)
 *
 * The QP starts unlimited (line rate) and has sent no CNP.  Holds no
 * resources: there is nothing to undo at destroy.  Called by create_qp
 * (sroce_qp_init_fields()) before the QP is published.
 * Context: any.
 */
void sroce_cc_qp_init(struct sroce_qp *qp)
{
	spin_lock_init(&qp->cc.lock);
	memset(&qp->cc.np, 0, sizeof(qp->cc.np));
	sroce_cc_rp_init(&qp->cc.rp);
}

/**
 * sroce_cc_qp_reset() - forget the congestion state (QP moved to RESET)
 * @qp: QP set up with sroce_cc_qp_init()
 *
 * Context: any (takes qp->cc.lock with irqsave; may be called with
 * qp->state_lock held).
 */
void sroce_cc_qp_reset(struct sroce_qp *qp)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->cc.lock, flags);
	memset(&qp->cc.np, 0, sizeof(qp->cc.np));
	sroce_cc_rp_init(&qp->cc.rp);
	spin_unlock_irqrestore(&qp->cc.lock, flags);
}

/**
 * sroce_cc_qp_pace() - pacing hook of the requester
 * @qp: sending QP
 * @bytes: the packet's UDP payload bytes (BTH to ICRC)
 * @delay_ns: set to 0, or to the ns to wait when false is returned
 *
 * The requester asks before it builds each request packet, first
 * transmissions and retransmissions alike (sroce_req_paced()).
 * sroce_cc_rp_pace() under qp->cc.lock at ktime_get_ns().  On false, the
 * caller does not build the packet, arms its TX hrtimer for @delay_ns
 * (holding a QP reference) and tries again when it fires.  A packet the
 * network then pushes back (-EAGAIN) was charged and is charged again on
 * the retry: pacing errs on the slow side.
 * Context: any.
 * Return: true when the packet may be sent now.
 */
bool sroce_cc_qp_pace(struct sroce_qp *qp, u32 bytes, u64 *delay_ns)
{
	struct sroce_cc_params *p = qp->dev->cc;
	unsigned long flags;
	u32 old_kbps;
	bool ok;

	*delay_ns = 0;
	if (!p || !READ_ONCE(p->rp_enable))
		return true;
	spin_lock_irqsave(&qp->cc.lock, flags);
	old_kbps = qp->cc.rp.rc_kbps;
	ok = sroce_cc_rp_pace(&qp->cc.rp, bytes, ktime_get_ns(), p, delay_ns);
	trace_sroce_cc_rate(qp, old_kbps, qp->cc.rp.rc_kbps);
	spin_unlock_irqrestore(&qp->cc.lock, flags);
	return ok;
}

/* RC/UC: the QP's own path and remote QPN, once it has them (RTR on). */
static int sroce_cc_cnp_path_connected(struct sroce_qp *qp,
				       struct sroce_av *av, u32 *dest_qpn)
{
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&qp->state_lock, flags);
	if (!sroce_qp_state_can(qp->state, SROCE_QPS_PATH)) {
		err = -EINVAL;
	} else {
		*av = qp->av;
		*dest_qpn = qp->attr.dest_qp_num;
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
	return err;
}

/* UD/GSI: back to the packet's source address and its DETH SrcQP. */
static int sroce_cc_cnp_path_datagram(struct sk_buff *skb,
				      struct sroce_av *av, u32 *dest_qpn)
{
	struct sroce_pkt_info *pkt = SROCE_PKT(skb);
	const struct sroce_deth *deth;

	if (!(pkt->mask & SROCE_MASK_DETH))
		return -EINVAL;
	deth = sroce_pkt_hdr(pkt, SROCE_HDR_DETH);
	*dest_qpn = be32_to_cpu(deth->sqp) & SROCE_QPN_MASK;

	memset(av, 0, sizeof(*av));
	av->network_type = pkt->network_type;
	/* the reply goes back: the packet's source is its destination */
	sroce_recv_ip_addrs(skb, pkt->network_type, &av->daddr, &av->saddr);
	return 0;
}

/*
 * Notification point: a CE-marked packet arrived at @skb's QP.  Sends a
 * CNP when the QP's interval allows and the device-wide budget has one
 * left (else counts cnp_suppressed).  Context: softirq.
 */
static void sroce_cc_np_ce(struct sroce_dev *dev, struct sk_buff *skb)
{
	struct sroce_pkt_info *pkt = SROCE_PKT(skb);
	struct sroce_cc_params *p = dev->cc;
	struct sroce_qp *qp = pkt->qp;
	unsigned long flags;
	struct sroce_av av;
	u32 dest_qpn;
	bool send;
	int err;

	if (!p || !READ_ONCE(p->np_enable))
		return;
	spin_lock_irqsave(&qp->cc.lock, flags);
	send = sroce_cc_np_should_send_cnp(&qp->cc.np, ktime_get_ns(), p);
	spin_unlock_irqrestore(&qp->cc.lock, flags);
	if (!send)
		return;

	if (sroce_qp_is_ud(qp))
		err = sroce_cc_cnp_path_datagram(skb, &av, &dest_qpn);
	else
		err = sroce_cc_cnp_path_connected(qp, &av, &dest_qpn);
	if (err)
		return;
	if (!sroce_cc_np_budget_take(&dev->cnp_budget, ktime_get_ns())) {
		sroce_counter_inc(dev, SROCE_CNT_CNP_SUPPRESSED);
		return;
	}
	sroce_cc_send_cnp(qp, &av, dest_qpn,
			  be16_to_cpu(sroce_pkt_bth(pkt)->pkey));
}

/* Reaction point: a CNP named this QP.  Context: softirq. */
static void sroce_cc_rp_cnp(struct sroce_dev *dev, struct sroce_qp *qp)
{
	struct sroce_cc_params *p = dev->cc;
	unsigned long flags;
	u32 old_kbps;

	if (!p || !READ_ONCE(p->rp_enable))
		return;
	spin_lock_irqsave(&qp->cc.lock, flags);
	old_kbps = qp->cc.rp.rc_kbps;
	sroce_cc_rp_on_cnp(&qp->cc.rp, ktime_get_ns(), p);
	trace_sroce_cc_rate(qp, old_kbps, qp->cc.rp.rc_kbps);
	spin_unlock_irqrestore(&qp->cc.lock, flags);
	sroce_counter_inc(dev, SROCE_CNT_RATE_REDUCTIONS);
}

/**
 * sroce_cc_rcv() - receive hook: CNPs and CE-marked packets
 * @dev: device the packet arrived on
 * @skb: validated packet; SROCE_PKT(skb) is filled and pkt->qp holds a
 *	reference
 *
 * A CNP (opcode 0x81, IBTA annex A17.9.3) counts as cnp_rcvd, triggers the
 * DCQCN rate decrease of pkt->qp (the QP named in DestQP) when the
 * reaction point is enabled, and is consumed here: the skb is freed and
 * the QP reference dropped.  Any other packet marked CE counts as
 * ecn_marked_pkts and, when the notification point is enabled and the
 * QP's CNP interval allows, is answered with a CNP to its sender; the
 * packet then continues to the data path.  A CNP is never answered with a
 * CNP.
 * Context: softirq (the UDP encap_rcv path), RCU read lock held.
 * Return: true when @skb was consumed (a CNP), false when the caller
 * passes it on to sroce_rcv().
 */
bool sroce_cc_rcv(struct sroce_dev *dev, struct sk_buff *skb)
{
	struct sroce_pkt_info *pkt = SROCE_PKT(skb);
	struct sroce_qp *qp = pkt->qp;

	if (pkt->mask & SROCE_MASK_CNP) {
		sroce_counter_inc(dev, SROCE_CNT_CNP_RCVD);
		trace_sroce_cnp_rcvd(qp, sroce_qpn(qp));
		sroce_cc_rp_cnp(dev, qp);
		consume_skb(skb);
		sroce_qp_put(qp);
		return true;
	}
	if (INET_ECN_is_ce(pkt->ecn)) {
		sroce_counter_inc(dev, SROCE_CNT_ECN_MARKED_PKTS);
		sroce_cc_np_ce(dev, skb);
	}
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cc_rcv);

/**
 * sroce_cc_cnp_fill() - write the transport headers of a CNP
 * @hdr: SROCE_CNP_HDR_LEN bytes at the BTH
 * @dest_qpn: the QPN that must slow down (24 bits)
 * @pkey: the flow's P_Key
 *
 * IBTA annex A17.9.3: BTH with opcode 0x81, BECN set, FECN clear, SE and
 * AckReq clear, PadCnt 0, DestQP = @dest_qpn, PSN 0; then 16 reserved
 * bytes, zero.  The ICRC that follows is the network code's.
 * Pure.  Context: any.
 */
void sroce_cc_cnp_fill(void *hdr, u32 dest_qpn, u16 pkey)
{
	struct sroce_bth *bth = hdr;

	memset(hdr, 0, SROCE_CNP_HDR_LEN);
	sroce_bth_init(bth, SROCE_CNP_OPCODE, false, 0, pkey, dest_qpn, false,
		       0);
	bth->qpn |= cpu_to_be32(SROCE_BTH_BECN);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cc_cnp_fill);

/**
 * sroce_cc_send_cnp() - send a congestion notification packet
 * @qp: local QP that received the CE-marked packet (UDP source port
 *	entropy)
 * @path: path back to the sender (addresses; its traffic class and SL are
 *	replaced by cnp_dscp and cnp_prio)
 * @dest_qpn: the sender's QPN, the QP that must slow down
 * @pkey: the flow's P_Key
 *
 * IBTA annex A17.9.3: BTH opcode 0x81 with BECN set, DestQP = @dest_qpn,
 * PSN 0, then 16 reserved zero bytes, then the ICRC: 32 bytes of UDP
 * payload.  Sent at DSCP cnp_dscp, priority cnp_prio, ECT like every
 * sroce packet when ecn_enable is on.  Counts cnp_sent when sent.
 * Context: any (softirq included); does not sleep.
 * Return: 0, -ENOMEM, or the error of sroce_net_xmit() (-EAGAIN on
 * backpressure: the CNP is dropped, a later CE packet brings another).
 */
int sroce_cc_send_cnp(struct sroce_qp *qp, const struct sroce_av *path,
		      u32 dest_qpn, u16 pkey)
{
	struct sroce_dev *dev = qp->dev;
	struct sroce_cc_params *p = dev->cc;
	struct sroce_pkt_info pkt = {};
	struct sroce_av av = *path;
	struct sk_buff *skb;
	int err;

	if (p) {
		av.traffic_class = READ_ONCE(p->cnp_dscp) << 2;
		av.sl = READ_ONCE(p->cnp_prio);
	}
	skb = sroce_net_alloc_skb(dev, &av, SROCE_CNP_HDR_LEN, 0, &pkt);
	if (!skb)
		return -ENOMEM;
	sroce_cc_cnp_fill(pkt.hdr, dest_qpn, pkey);

	err = sroce_net_xmit(dev, qp, &av, skb);
	if (err)
		return err;
	sroce_counter_inc(dev, SROCE_CNT_CNP_SENT);
	trace_sroce_cnp_sent(qp, dest_qpn);
	return 0;
}

