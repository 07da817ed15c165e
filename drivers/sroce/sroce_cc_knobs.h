/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_cc_knobs.h - the congestion control knobs of a device and their
 * control surface (sroce_cc_knobs.c): sysfs files, the line rate, the
 * per-QP attributes of `rdma resource show qp`.
 *
 * Sysfs (under /sys/class/infiniband/<ibdev>/cc/, like mlx5's
 * /sys/class/net/<if>/ecn/roce_np|roce_rp/): one file per knob of
 * enum sroce_cc_knob in roce_np/ or roce_rp/, plus the read-only
 * roce_rp/line_rate_mbps.  Writes are range-checked: a bad value returns
 * -EINVAL and changes nothing.
 */
#ifndef SROCE_CC_KNOBS_H
#define SROCE_CC_KNOBS_H

#include <linux/types.h>

struct sroce_dev;
struct sroce_qp;
struct sk_buff;

/* Knobs name rates in Mb/s; DCQCN keeps them in kb/s. */
#define SROCE_CC_KBPS_PER_MBPS	1000U
/* Highest rate a knob may name, Mb/s (800 Gb/s). */
#define SROCE_CC_RATE_MAX_MBPS	800000U
/* Line rate when the netdev reports no speed (virtio, ...), Mb/s. */
#define SROCE_CC_DEFAULT_LINE_RATE_MBPS	100000U
/* Largest g_shift: g = 2^-16. */
#define SROCE_CC_G_SHIFT_MAX	16

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

/* ---- knobs (pure) ---- */
void sroce_cc_params_init(struct sroce_cc_params *p);
int sroce_cc_param_check(enum sroce_cc_knob knob, u32 value);
int sroce_cc_param_set(struct sroce_cc_params *p, enum sroce_cc_knob knob,
		       u32 value);
u32 sroce_cc_param_get(const struct sroce_cc_params *p,
		       enum sroce_cc_knob knob);
const char *sroce_cc_knob_name(enum sroce_cc_knob knob);

/* ---- device ---- */
int sroce_cc_dev_init(struct sroce_dev *dev);
void sroce_cc_dev_fini(struct sroce_dev *dev);
int sroce_cc_register_sysfs(struct sroce_dev *dev);
void sroce_cc_unregister_sysfs(struct sroce_dev *dev);
void sroce_cc_update_line_rate(struct sroce_dev *dev);

/* ---- per-QP state in `rdma resource show qp` ---- */
int sroce_cc_fill_res_qp_entry(struct sk_buff *msg, struct sroce_qp *qp);

#endif /* SROCE_CC_KNOBS_H */
