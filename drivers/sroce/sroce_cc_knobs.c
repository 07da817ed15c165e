// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_cc_knobs.c - the control surface of congestion control: the knobs
 * of a device (struct sroce_cc_params: table, defaults, range checks),
 * their sysfs files under <ibdev>/cc/, the line rate taken from the
 * netdev, and the per-QP congestion state shown by `rdma resource show
 * qp`.  The algorithm that reads the knobs is in sroce_cc.c.
 */

#include <linux/ethtool.h>
#include <linux/kernel.h>
#include <linux/kobject.h>
#include <linux/minmax.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/timekeeping.h>
#include <net/netlink.h>
#include <rdma/restrack.h>
#include <kunit/visibility.h>

#include "sroce.h"
#include "sroce_cc_knobs.h"
#include "sroce_qp.h"
#include "sroce_cc.h"

/* Longest period or interval a knob may name, µs (1 s). */
#define SROCE_CC_MAX_PERIOD_US	1000000U

/* ------------------------------------------------------------------ */
/* Knobs                                                               */
/* ------------------------------------------------------------------ */

/**
 * struct sroce_cc_knob_info - one knob: sysfs name, place, range, default
 * @name: file name in roce_np/ or roce_rp/
 * @offset: offset of its u32 in struct sroce_cc_params
 * @min: smallest valid value
 * @max: largest valid value
 * @def: default (DCQCN paper values where the paper gives one)
 * @np: the file is in roce_np/ (else roce_rp/)
 */
struct sroce_cc_knob_info {
	const char *name;
	size_t offset;
	u32 min;
	u32 max;
	u32 def;
	bool np;
};

#define SROCE_CC_KNOB(_name, _field, _min, _max, _def, _np) {		\
	.name = _name,							\
	.offset = offsetof(struct sroce_cc_params, _field),		\
	.min = _min, .max = _max, .def = _def, .np = _np,		\
}

static const struct sroce_cc_knob_info sroce_cc_knobs[SROCE_CC_NUM_KNOBS] = {
	[SROCE_CC_NP_ENABLE] =
		SROCE_CC_KNOB("enable", np_enable, 0, 1, 1, true),
	[SROCE_CC_NP_CNP_INTERVAL_US] =
		SROCE_CC_KNOB("cnp_interval_us", cnp_interval_us, 0,
			      SROCE_CC_MAX_PERIOD_US, 50, true),
	[SROCE_CC_NP_CNP_DSCP] =
		SROCE_CC_KNOB("cnp_dscp", cnp_dscp, 0, 63, 48, true),
	[SROCE_CC_NP_CNP_PRIO] =
		SROCE_CC_KNOB("cnp_prio", cnp_prio, 0, 7, 6, true),
	[SROCE_CC_RP_ENABLE] =
		SROCE_CC_KNOB("enable", rp_enable, 0, 1, 1, false),
	[SROCE_CC_RP_ECN_ENABLE] =
		SROCE_CC_KNOB("ecn_enable", ecn_enable, 0, 1, 1, false),
	[SROCE_CC_RP_G_SHIFT] =
		SROCE_CC_KNOB("g_shift", g_shift, 1, SROCE_CC_G_SHIFT_MAX, 8,
			      false),
	[SROCE_CC_RP_ALPHA_PERIOD_US] =
		SROCE_CC_KNOB("alpha_update_period_us", alpha_period_us, 1,
			      SROCE_CC_MAX_PERIOD_US, 55, false),
	[SROCE_CC_RP_RATE_PERIOD_US] =
		SROCE_CC_KNOB("rate_increase_period_us", rate_period_us, 1,
			      SROCE_CC_MAX_PERIOD_US, 55, false),
	[SROCE_CC_RP_BYTE_COUNTER] =
		SROCE_CC_KNOB("byte_counter", byte_counter, 0, 1U << 30,
			      10U << 20, false),
	[SROCE_CC_RP_FR_STEPS] =
		SROCE_CC_KNOB("fast_recovery_steps", fr_steps, 0, 255, 5,
			      false),
	[SROCE_CC_RP_AI_RATE_MBPS] =
		SROCE_CC_KNOB("ai_rate_mbps", ai_rate_mbps, 1,
			      SROCE_CC_RATE_MAX_MBPS, 40, false),
	[SROCE_CC_RP_HAI_RATE_MBPS] =
		SROCE_CC_KNOB("hai_rate_mbps", hai_rate_mbps, 1,
			      SROCE_CC_RATE_MAX_MBPS, 100, false),
	[SROCE_CC_RP_MIN_RATE_MBPS] =
		SROCE_CC_KNOB("min_rate_mbps", min_rate_mbps, 1,
			      SROCE_CC_RATE_MAX_MBPS, 10, false),
	[SROCE_CC_RP_MAX_RATE_MBPS] =
		SROCE_CC_KNOB("max_rate_mbps", max_rate_mbps, 0,
			      SROCE_CC_RATE_MAX_MBPS, 0, false),
};

static u32 *sroce_cc_knob_ptr(struct sroce_cc_params *p,
			      enum sroce_cc_knob knob)
{
	return (u32 *)((u8 *)p + sroce_cc_knobs[knob].offset);
}

static const u32 *sroce_cc_knob_cptr(const struct sroce_cc_params *p,
				     enum sroce_cc_knob knob)
{
	return (const u32 *)((const u8 *)p + sroce_cc_knobs[knob].offset);
}

/**
 * sroce_cc_params_init() - set every knob to its default
 * @p: parameters to fill
 *
 * Defaults are the DCQCN paper's (SIGCOMM 2015): CNP interval 50 µs,
 * g = 1/256, alpha and rate timers 55 µs, byte counter 10 MiB, F = 5,
 * R_AI = 40 Mb/s; plus R_HAI = 100 Mb/s, a 10 Mb/s floor, CNPs at DSCP 48
 * and priority 6, ECN on, the ceiling at the line rate, and a line rate
 * of SROCE_CC_DEFAULT_LINE_RATE_MBPS until sroce_cc_update_line_rate().
 * Context: any.
 */
void sroce_cc_params_init(struct sroce_cc_params *p)
{
	unsigned int k;

	for (k = 0; k < SROCE_CC_NUM_KNOBS; k++)
		*sroce_cc_knob_ptr(p, k) = sroce_cc_knobs[k].def;
	p->line_rate_mbps = SROCE_CC_DEFAULT_LINE_RATE_MBPS;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cc_params_init);

/**
 * sroce_cc_param_check() - is a value valid for a knob?
 * @knob: which knob
 * @value: proposed value in the knob's unit (µs, bytes, Mb/s, ...; see
 *	&enum sroce_cc_knob)
 *
 * Pure.  Context: any.
 * Return: 0, or -EINVAL for a value out of range or an unknown knob.
 */
int sroce_cc_param_check(enum sroce_cc_knob knob, u32 value)
{
	if ((unsigned int)knob >= SROCE_CC_NUM_KNOBS)
		return -EINVAL;
	if (value < sroce_cc_knobs[knob].min ||
	    value > sroce_cc_knobs[knob].max)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cc_param_check);

/**
 * sroce_cc_param_set() - change a knob after checking the value
 * @p: device parameters
 * @knob: which knob
 * @value: new value
 *
 * The data path reads the knob without a lock and sees the old or the new
 * value.  Context: any.
 * Return: 0, or -EINVAL (see sroce_cc_param_check()); then @p is unchanged.
 */
int sroce_cc_param_set(struct sroce_cc_params *p, enum sroce_cc_knob knob,
		       u32 value)
{
	int err = sroce_cc_param_check(knob, value);

	if (err)
		return err;
	WRITE_ONCE(*sroce_cc_knob_ptr(p, knob), value);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cc_param_set);

/**
 * sroce_cc_param_get() - current value of a knob
 * @p: device parameters
 * @knob: which knob
 *
 * Context: any.
 * Return: the value, or 0 for an unknown knob.
 */
u32 sroce_cc_param_get(const struct sroce_cc_params *p,
		       enum sroce_cc_knob knob)
{
	if ((unsigned int)knob >= SROCE_CC_NUM_KNOBS)
		return 0;
	return READ_ONCE(*sroce_cc_knob_cptr(p, knob));
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cc_param_get);

/**
 * sroce_cc_knob_name() - sysfs file name of a knob
 * @knob: which knob
 *
 * Context: any.
 * Return: the name (in roce_np/ or roce_rp/), or NULL.
 */
const char *sroce_cc_knob_name(enum sroce_cc_knob knob)
{
	if ((unsigned int)knob >= SROCE_CC_NUM_KNOBS)
		return NULL;
	return sroce_cc_knobs[knob].name;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cc_knob_name);

/* ------------------------------------------------------------------ */
/* Device: parameters and sysfs                                        */
/* ------------------------------------------------------------------ */

/**
 * struct sroce_cc_attr - a knob's sysfs file
 * @kattr: the attribute (show/store below)
 * @params: parameters it reads and writes
 * @knob: which knob
 */
struct sroce_cc_attr {
	struct kobj_attribute kattr;
	struct sroce_cc_params *params;
	enum sroce_cc_knob knob;
};

/**
 * struct sroce_cc_priv - what dev->cc points into
 * @params: the knobs; dev->cc is &@params
 * @attrs: one sysfs file per knob
 * @line_rate: roce_rp/line_rate_mbps (read-only)
 * @np_attrs: NULL-terminated attributes of roce_np/
 * @rp_attrs: NULL-terminated attributes of roce_rp/
 * @np_group: group of @np_attrs
 * @rp_group: group of @rp_attrs
 * @cc_kobj: <ibdev>/cc, or NULL when not registered
 * @np_kobj: <ibdev>/cc/roce_np
 * @rp_kobj: <ibdev>/cc/roce_rp
 */
struct sroce_cc_priv {
	struct sroce_cc_params params;
	struct sroce_cc_attr attrs[SROCE_CC_NUM_KNOBS];
	struct sroce_cc_attr line_rate;
	struct attribute *np_attrs[SROCE_CC_NUM_KNOBS + 1];
	struct attribute *rp_attrs[SROCE_CC_NUM_KNOBS + 2];
	struct attribute_group np_group;
	struct attribute_group rp_group;
	struct kobject *cc_kobj;
	struct kobject *np_kobj;
	struct kobject *rp_kobj;
};

static struct sroce_cc_priv *sroce_cc_priv(struct sroce_cc_params *p)
{
	return container_of(p, struct sroce_cc_priv, params);
}

static ssize_t sroce_cc_knob_show(struct kobject *kobj,
				  struct kobj_attribute *kattr, char *buf)
{
	struct sroce_cc_attr *a = container_of(kattr, struct sroce_cc_attr,
					       kattr);

	return sysfs_emit(buf, "%u\n", sroce_cc_param_get(a->params, a->knob));
}

static ssize_t sroce_cc_knob_store(struct kobject *kobj,
				   struct kobj_attribute *kattr,
				   const char *buf, size_t count)
{
	struct sroce_cc_attr *a = container_of(kattr, struct sroce_cc_attr,
					       kattr);
	u32 value;

	/* a malformed or too large number is a bad value too */
	if (kstrtou32(buf, 0, &value))
		return -EINVAL;
	if (sroce_cc_param_set(a->params, a->knob, value))
		return -EINVAL;
	return count;
}

static ssize_t sroce_cc_line_rate_show(struct kobject *kobj,
				       struct kobj_attribute *kattr, char *buf)
{
	struct sroce_cc_attr *a = container_of(kattr, struct sroce_cc_attr,
					       kattr);

	return sysfs_emit(buf, "%u\n", READ_ONCE(a->params->line_rate_mbps));
}

/* Fill the attribute arrays and groups from the knob table. */
static void sroce_cc_priv_init_attrs(struct sroce_cc_priv *priv)
{
	unsigned int k, nnp = 0, nrp = 0;

	for (k = 0; k < SROCE_CC_NUM_KNOBS; k++) {
		struct sroce_cc_attr *a = &priv->attrs[k];

		sysfs_attr_init(&a->kattr.attr);
		a->kattr.attr.name = sroce_cc_knobs[k].name;
		a->kattr.attr.mode = 0644;
		a->kattr.show = sroce_cc_knob_show;
		a->kattr.store = sroce_cc_knob_store;
		a->params = &priv->params;
		a->knob = k;
		if (sroce_cc_knobs[k].np)
			priv->np_attrs[nnp++] = &a->kattr.attr;
		else
			priv->rp_attrs[nrp++] = &a->kattr.attr;
	}
	sysfs_attr_init(&priv->line_rate.kattr.attr);
	priv->line_rate.kattr.attr.name = "line_rate_mbps";
	priv->line_rate.kattr.attr.mode = 0444;
	priv->line_rate.kattr.show = sroce_cc_line_rate_show;
	priv->line_rate.params = &priv->params;
	priv->rp_attrs[nrp++] = &priv->line_rate.kattr.attr;

	priv->np_group.attrs = priv->np_attrs;
	priv->rp_group.attrs = priv->rp_attrs;
}

/**
 * sroce_cc_dev_init() - allocate a device's congestion control knobs
 * @dev: device being created; sets @dev->cc
 *
 * Every knob starts at its default (sroce_cc_params_init()).  Called by
 * newlink right after sroce_dev_init(), which then takes the line rate
 * with sroce_cc_update_line_rate().  Undo with sroce_cc_dev_fini().
 * Context: process (GFP_KERNEL).
 * Return: 0 or -ENOMEM.
 */
int sroce_cc_dev_init(struct sroce_dev *dev)
{
	struct sroce_cc_priv *priv;

	priv = kzalloc(sizeof(*priv), GFP_KERNEL);
	if (!priv)
		return -ENOMEM;
	sroce_cc_params_init(&priv->params);
	sroce_cc_priv_init_attrs(priv);
	dev->cc = &priv->params;
	return 0;
}

/**
 * sroce_cc_dev_fini() - remove the sysfs files and free the knobs
 * @dev: device; @dev->cc may be NULL (then nothing happens)
 *
 * Call once no QP exists and the RX path no longer finds @dev (after
 * sroce_net_detach()): the data path reads @dev->cc without a lock.
 * sroce_dev_release_fields() calls it (newlink's error path and
 * dealloc_driver).
 * Context: process; may sleep (waits for running sysfs show/store).
 */
void sroce_cc_dev_fini(struct sroce_dev *dev)
{
	if (!dev->cc)
		return;
	sroce_cc_unregister_sysfs(dev);
	kfree(sroce_cc_priv(dev->cc));
	dev->cc = NULL;
}

/* Remove and release one of our directories, if it exists. */
static void sroce_cc_kobj_remove(struct kobject **kobj)
{
	if (!*kobj)
		return;
	/* removes the files now, waiting for running show/store calls */
	kobject_del(*kobj);
	kobject_put(*kobj);
	*kobj = NULL;
}

/* Create <parent>/<name> with the files of @group. */
static struct kobject *sroce_cc_kobj_add(const char *name,
					 struct kobject *parent,
					 const struct attribute_group *group)
{
	struct kobject *kobj = kobject_create_and_add(name, parent);

	if (!kobj)
		return NULL;
	if (group && sysfs_create_group(kobj, group)) {
		kobject_del(kobj);
		kobject_put(kobj);
		return NULL;
	}
	return kobj;
}

/**
 * sroce_cc_register_sysfs() - create <ibdev>/cc/roce_np/ and cc/roce_rp/
 * @dev: registered device (after ib_register_device()) with @dev->cc set
 *
 * One file per knob (&enum sroce_cc_knob), plus roce_rp/line_rate_mbps,
 * in /sys/class/infiniband/<ibdev>/cc/.  Linux 6.1's ib_device_ops has a
 * single ops.device_group (one flat group, discouraged for new drivers,
 * and taken by the "parent" attribute) and no
 * rdma_set_device_sysfs_group(), so the two directories are kobjects of
 * their own under the device.  Called from the enable_driver op, which
 * ib_register_device() runs once the device's directory exists.
 * Context: process.
 * Return: 0, -EINVAL without @dev->cc, -EEXIST when already registered,
 * or -ENOMEM (nothing is left behind on failure).
 */
int sroce_cc_register_sysfs(struct sroce_dev *dev)
{
	struct sroce_cc_priv *priv;

	if (!dev->cc)
		return -EINVAL;
	priv = sroce_cc_priv(dev->cc);
	if (priv->cc_kobj)
		return -EEXIST;

	priv->cc_kobj = sroce_cc_kobj_add("cc", &dev->ib_dev.dev.kobj, NULL);
	if (!priv->cc_kobj)
		return -ENOMEM;
	priv->np_kobj = sroce_cc_kobj_add("roce_np", priv->cc_kobj,
					  &priv->np_group);
	if (!priv->np_kobj)
		goto err_cc;
	priv->rp_kobj = sroce_cc_kobj_add("roce_rp", priv->cc_kobj,
					  &priv->rp_group);
	if (!priv->rp_kobj)
		goto err_np;
	return 0;

err_np:
	sroce_cc_kobj_remove(&priv->np_kobj);
err_cc:
	sroce_cc_kobj_remove(&priv->cc_kobj);
	return -ENOMEM;
}

/**
 * sroce_cc_unregister_sysfs() - remove <ibdev>/cc/
 * @dev: device
 *
 * Safe when not registered, twice, and after the core already removed the
 * ib_device's directory (the kobjects hold a reference on it).
 * sroce_cc_dev_fini() calls it.
 * Context: process; may sleep.
 */
void sroce_cc_unregister_sysfs(struct sroce_dev *dev)
{
	struct sroce_cc_priv *priv;

	if (!dev->cc)
		return;
	priv = sroce_cc_priv(dev->cc);
	sroce_cc_kobj_remove(&priv->rp_kobj);
	sroce_cc_kobj_remove(&priv->np_kobj);
	sroce_cc_kobj_remove(&priv->cc_kobj);
}

/**
 * sroce_cc_update_line_rate() - take the ceiling from the netdev's speed
 * @dev: device with @dev->ndev and @dev->cc set
 *
 * Reads the link speed with ethtool; an unknown speed (virtio, a link
 * down) gives SROCE_CC_DEFAULT_LINE_RATE_MBPS.  Called by newlink and by
 * the netdev notifier on NETDEV_UP, NETDEV_DOWN and NETDEV_CHANGE.
 * Context: process, RTNL held.
 */
void sroce_cc_update_line_rate(struct sroce_dev *dev)
{
	struct ethtool_link_ksettings ks = {};
	u32 mbps = SROCE_CC_DEFAULT_LINE_RATE_MBPS;

	ASSERT_RTNL();
	if (!dev->cc || !dev->ndev)
		return;
	if (!__ethtool_get_link_ksettings(dev->ndev, &ks) &&
	    ks.base.speed && ks.base.speed != (u32)SPEED_UNKNOWN)
		mbps = min(ks.base.speed, SROCE_CC_RATE_MAX_MBPS);
	WRITE_ONCE(dev->cc->line_rate_mbps, mbps);
}

/* ------------------------------------------------------------------ */
/* Per-QP state in `rdma resource show qp`                             */
/* ------------------------------------------------------------------ */

/* The driver attributes of a QP, inside the caller's nest. */
static int sroce_cc_put_attrs(struct sk_buff *msg, struct sroce_qp *qp,
			      struct sroce_cc_params *p)
{
	u32 rate, target, alpha;
	unsigned long flags;
	bool limited;

	spin_lock_irqsave(&qp->cc.lock, flags);
	sroce_cc_rp_advance(&qp->cc.rp, ktime_get_ns(), p);
	limited = qp->cc.rp.active;
	rate = sroce_cc_rp_rate_mbps(&qp->cc.rp, p);
	target = limited ? qp->cc.rp.rt_kbps / SROCE_CC_KBPS_PER_MBPS : rate;
	alpha = limited ? qp->cc.rp.alpha >> (SROCE_CC_ALPHA_SHIFT - 10) : 0;
	spin_unlock_irqrestore(&qp->cc.lock, flags);

	if (rdma_nl_put_driver_u32(msg, "cc_rate_mbps", rate) ||
	    rdma_nl_put_driver_u32(msg, "cc_target_mbps", target) ||
	    rdma_nl_put_driver_u32(msg, "cc_alpha", alpha) ||
	    rdma_nl_put_driver_u32(msg, "cc_limited", limited))
		return -EMSGSIZE;
	return 0;
}

/**
 * sroce_cc_fill_res_qp_entry() - congestion state for `rdma resource show qp`
 * @msg: netlink message being built
 * @qp: QP
 *
 * Called by sroce_fill_res_qp_entry() inside its RDMA_NLDEV_ATTR_DRIVER
 * nest; adds, after applying elapsed periods,
 * cc_rate_mbps (current rate RC in Mb/s, or the ceiling when not limited),
 * cc_target_mbps (RT), cc_alpha (alpha in units of 1/1024) and cc_limited
 * (0/1).  Shown by `rdma -dd resource show qp`.
 * Context: process (netlink dump).
 * Return: 0, or -EMSGSIZE when @msg is full (the caller cancels the nest).
 */
int sroce_cc_fill_res_qp_entry(struct sk_buff *msg, struct sroce_qp *qp)
{
	struct sroce_cc_params *p = qp->dev->cc;

	if (!p)
		return 0;
	return sroce_cc_put_attrs(msg, qp, p) ? -EMSGSIZE : 0;
}
