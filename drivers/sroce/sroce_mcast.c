// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_mcast.c - UD multicast: a device's multicast groups, the QPs
 * attached to each (ib_device_ops.attach_mcast / detach_mcast), and the
 * delivery of a packet sent to a group to every QP attached to it.
 *
 * RoCEv2 carries the MGID as the IP destination address (a v4-mapped MGID
 * for IPv4), and a multicast packet names the multicast QPN 0xFFFFFF in
 * its BTH.  A group is keyed by its MGID; a QP is attached at most once
 * per group (a second attach succeeds without a second copy of each
 * message, as ibv_attach_mcast(3) says).
 *
 * The IP stack delivers a multicast packet to the UDP 4791 socket only
 * when the netdev is a member of the IP group: rdma_cm's join makes it one
 * for RoCEv2 (it sends the IGMP report, cma_igmp_send()), as it does for
 * the other RoCE devices.  A packet sent to a group the device itself
 * belongs to is looped back by the IP stack (ip_mc_output()), so QPs of
 * the same device receive it too.
 *
 * Writers (attach, detach, QP destroy) hold dev->mcg_mutex; the receive
 * path reads the groups and their QP lists under RCU and takes each QP
 * with kref_get_unless_zero().  A destroyed QP leaves its groups before
 * sroce_qp_destroy() waits for an RCU grace period.
 */
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <kunit/visibility.h>
#include <rdma/ib_addr.h>

#include "sroce.h"
#include "sroce_mcast.h"
#include "sroce_qp.h"
#include "sroce_recv.h"

/**
 * struct sroce_mcg - a multicast group of a device
 * @node: entry in dev->mcg_hash (RCU)
 * @mgid: the group's MGID (v4-mapped for an IPv4 group)
 * @qps: the attached QPs, struct sroce_mca (RCU)
 * @nr_qps: number of entries in @qps
 * @rcu: frees the group after the readers are gone
 */
struct sroce_mcg {
	struct hlist_node node;
	struct in6_addr mgid;
	struct list_head qps;
	unsigned int nr_qps;
	struct rcu_head rcu;
};

/**
 * struct sroce_mca - a QP's attachment to a group
 * @list: entry in the group's @qps (RCU)
 * @qp: the QP (no reference: the QP detaches itself before it goes away)
 * @rcu: frees the attachment after the readers are gone
 */
struct sroce_mca {
	struct list_head list;
	struct sroce_qp *qp;
	struct rcu_head rcu;
};

static u32 sroce_mcg_hash(const struct in6_addr *mgid)
{
	return jhash2(mgid->s6_addr32, ARRAY_SIZE(mgid->s6_addr32), 0);
}

/* The group of @mgid.  Context: under rcu_read_lock() or dev->mcg_mutex. */
static struct sroce_mcg *sroce_mcg_find(struct sroce_dev *dev,
					const struct in6_addr *mgid)
{
	struct sroce_mcg *mcg;

	hash_for_each_possible_rcu(dev->mcg_hash, mcg, node,
				   sroce_mcg_hash(mgid),
				   lockdep_is_held(&dev->mcg_mutex)) {
		if (ipv6_addr_equal(&mcg->mgid, mgid))
			return mcg;
	}
	return NULL;
}

static struct sroce_mca *sroce_mca_find(struct sroce_mcg *mcg,
					struct sroce_qp *qp)
{
	struct sroce_mca *mca;

	list_for_each_entry(mca, &mcg->qps, list) {
		if (mca->qp == qp)
			return mca;
	}
	return NULL;
}

/*
 * The group of @mgid, created when @dev has none yet and may hold another.
 * Return: the group, or an ERR_PTR(-ENOMEM) (no memory, or max_mcast_grp
 * groups exist already).
 */
static struct sroce_mcg *sroce_mcg_get(struct sroce_dev *dev,
				       const struct in6_addr *mgid)
{
	struct sroce_mcg *mcg;

	lockdep_assert_held(&dev->mcg_mutex);
	mcg = sroce_mcg_find(dev, mgid);
	if (mcg)
		return mcg;
	if (dev->nr_mcg >= SROCE_MAX_MCAST_GRP)
		return ERR_PTR(-ENOMEM);
	mcg = kzalloc(sizeof(*mcg), GFP_KERNEL_ACCOUNT);
	if (!mcg)
		return ERR_PTR(-ENOMEM);
	mcg->mgid = *mgid;
	INIT_LIST_HEAD(&mcg->qps);
	hash_add_rcu(dev->mcg_hash, &mcg->node, sroce_mcg_hash(mgid));
	dev->nr_mcg++;
	return mcg;
}

/* Drop @mca from its group @mcg, and the group when it is left empty. */
static void sroce_mca_del(struct sroce_dev *dev, struct sroce_mcg *mcg,
			  struct sroce_mca *mca)
{
	lockdep_assert_held(&dev->mcg_mutex);
	list_del_rcu(&mca->list);
	mca->qp->nr_mcast--;
	mcg->nr_qps--;
	dev->nr_mca--;
	kfree_rcu(mca, rcu);
	if (!mcg->nr_qps) {
		hash_del_rcu(&mcg->node);
		dev->nr_mcg--;
		kfree_rcu(mcg, rcu);
	}
}

/**
 * sroce_mcast_attach() - attach a UD QP to a multicast group
 *	(ib_device_ops.attach_mcast)
 * @ibqp: the QP; the core accepts only UD QPs and multicast MGIDs
 *	(ib_attach_mcast())
 * @gid: the group's MGID
 * @lid: ignored (RoCE has no LIDs)
 *
 * Attaching a QP to a group it is attached to already succeeds and
 * changes nothing (ibv_attach_mcast(3)).
 *
 * Context: process, sleeps; takes dev->mcg_mutex.
 * Return: 0; -EINVAL for a QP that is not UD or an MGID that is not
 * multicast; -ENOMEM when memory is short or a limit of query_device
 * (max_mcast_grp, max_mcast_qp_attach, max_total_mcast_qp_attach) would
 * be passed.
 */
int sroce_mcast_attach(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct sroce_qp *qp = to_sroce_qp(ibqp);
	struct sroce_dev *dev = qp->dev;
	struct in6_addr mgid;
	struct sroce_mcg *mcg;
	struct sroce_mca *mca;
	int err = 0;

	memcpy(&mgid, gid->raw, sizeof(mgid));
	if (qp->type != IB_QPT_UD || !rdma_is_multicast_addr(&mgid))
		return -EINVAL;
	mutex_lock(&dev->mcg_mutex);
	mcg = sroce_mcg_get(dev, &mgid);
	if (IS_ERR(mcg)) {
		err = PTR_ERR(mcg);
		goto out;
	}
	if (sroce_mca_find(mcg, qp))
		goto out;
	if (mcg->nr_qps >= SROCE_MAX_MCAST_QP_ATTACH ||
	    dev->nr_mca >= SROCE_MAX_TOTAL_MCAST_QP_ATTACH) {
		err = -ENOMEM;
		goto out_unused;
	}
	mca = kzalloc(sizeof(*mca), GFP_KERNEL_ACCOUNT);
	if (!mca) {
		err = -ENOMEM;
		goto out_unused;
	}
	mca->qp = qp;
	list_add_tail_rcu(&mca->list, &mcg->qps);
	mcg->nr_qps++;
	dev->nr_mca++;
	qp->nr_mcast++;
	goto out;

out_unused:
	if (!mcg->nr_qps) {
		hash_del_rcu(&mcg->node);
		dev->nr_mcg--;
		kfree_rcu(mcg, rcu);
	}
out:
	mutex_unlock(&dev->mcg_mutex);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mcast_attach);

/**
 * sroce_mcast_detach() - detach a QP from a multicast group
 *	(ib_device_ops.detach_mcast)
 * @ibqp: the QP
 * @gid: the group's MGID
 * @lid: ignored
 *
 * Packets the QP took from the group before are still delivered.
 * Context: process, sleeps; takes dev->mcg_mutex.
 * Return: 0, or -EINVAL when the QP is not attached to the group.
 */
int sroce_mcast_detach(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct sroce_qp *qp = to_sroce_qp(ibqp);
	struct sroce_dev *dev = qp->dev;
	struct sroce_mcg *mcg;
	struct sroce_mca *mca = NULL;

	mutex_lock(&dev->mcg_mutex);
	mcg = sroce_mcg_find(dev, (const struct in6_addr *)gid->raw);
	if (mcg)
		mca = sroce_mca_find(mcg, qp);
	if (mca)
		sroce_mca_del(dev, mcg, mca);
	mutex_unlock(&dev->mcg_mutex);
	return mca ? 0 : -EINVAL;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mcast_detach);

/**
 * sroce_mcast_qp_leave_all() - detach a QP being destroyed from its groups
 * @qp: the QP; kernel consumers may destroy a QP that is still attached
 *	(user space's are detached by uverbs first)
 *
 * The caller waits for an RCU grace period afterwards before it frees
 * @qp (sroce_qp_destroy()).
 * Context: process, sleeps; takes dev->mcg_mutex.
 */
void sroce_mcast_qp_leave_all(struct sroce_qp *qp)
{
	struct sroce_dev *dev = qp->dev;
	struct hlist_node *tmp;
	struct sroce_mcg *mcg;
	struct sroce_mca *mca;
	int bkt;

	/* Nothing attaches a QP while it is destroyed. */
	if (!READ_ONCE(qp->nr_mcast))
		return;
	mutex_lock(&dev->mcg_mutex);
	hash_for_each_safe(dev->mcg_hash, bkt, tmp, mcg, node) {
		if (!qp->nr_mcast)
			break;
		mca = sroce_mca_find(mcg, qp);
		if (mca)
			sroce_mca_del(dev, mcg, mca);
	}
	mutex_unlock(&dev->mcg_mutex);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mcast_qp_leave_all);

/*
 * A copy of @skb for @qp, which takes it after the per-QP checks; the
 * copy holds the QP reference the caller took.  Return: the copy, or
 * NULL (counted) when @qp may not take the packet or memory is short.
 */
static struct sk_buff *sroce_mcast_copy(struct sroce_dev *dev,
					struct sroce_qp *qp,
					struct sk_buff *skb)
{
	enum sroce_counter drop;
	struct sk_buff *copy;

	if (!sroce_recv_qp_check(qp, skb, &drop)) {
		sroce_counter_inc(dev, drop);
		return NULL;
	}
	copy = skb_clone(skb, GFP_ATOMIC);
	if (!copy) {	/* as if the QP's backlog were full */
		sroce_counter_inc(dev, SROCE_CNT_RX_DROP_BACKLOG);
		return NULL;
	}
	SROCE_PKT(copy)->qp = qp;
	return copy;
}

/**
 * sroce_mcast_rcv() - deliver a packet sent to a multicast group
 * @dev: the device that received it
 * @skb: a checked UD SEND to the multicast QPN (sroce_recv_check() left
 *	SROCE_PKT(@skb)->qp NULL); consumed
 *
 * Hands a copy to every attached QP that takes it (UD, in a receiving
 * state, its Q_Key in the DETH: the checks of a unicast packet), each
 * holding its own QP reference.  A packet for a group with no QP here is
 * dropped and counted in rx_drop_no_qp.
 *
 * Context: softirq (or any), under rcu_read_lock().
 */
void sroce_mcast_rcv(struct sroce_dev *dev, struct sk_buff *skb)
{
	struct in6_addr saddr, mgid;
	struct sroce_mcg *mcg;
	struct sroce_mca *mca;
	struct sk_buff *copy;
	bool taken = false;

	sroce_recv_ip_addrs(skb, SROCE_PKT(skb)->network_type, &saddr, &mgid);
	mcg = sroce_mcg_find(dev, &mgid);
	if (mcg) {
		list_for_each_entry_rcu(mca, &mcg->qps, list) {
			if (!kref_get_unless_zero(&mca->qp->ref))
				continue;
			copy = sroce_mcast_copy(dev, mca->qp, skb);
			if (!copy) {
				sroce_qp_put(mca->qp);
				continue;
			}
			sroce_rcv(copy);
			taken = true;
		}
	}
	if (!mcg)
		sroce_counter_inc(dev, SROCE_CNT_RX_DROP_NO_QP);
	if (taken)
		consume_skb(skb);
	else
		kfree_skb(skb);
}

/**
 * sroce_mcast_dev_init() - set up a device's multicast groups
 * @dev: the device being added
 *
 * Context: process.
 */
void sroce_mcast_dev_init(struct sroce_dev *dev)
{
	mutex_init(&dev->mcg_mutex);
	hash_init(dev->mcg_hash);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mcast_dev_init);
