// SPDX-License-Identifier: GPL-2.0
/*
 * Module init/exit, `rdma link add/delete` (rdma_link_ops),
 * the netdev notifier, device allocation/registration, port state, and the
 * ib_device_ops table.
 *
 * Device lifetime: newlink allocates a struct sroce_dev, binds it to an
 * Ethernet netdev (dev_hold), attaches it to the netns' UDP sockets and
 * registers it.  Unregistration (rdma link delete, netdev removal, rmmod)
 * goes through the core, which destroys every object, user or kernel,
 * through the destroy verbs (user contexts are disassociated), then calls
 * dealloc_driver, which undoes newlink.
 *
 * Locking: sroce_dev_mutex protects sroce_dev_list.  Lock order: RTNL (held
 * by the netdev notifier) before sroce_dev_mutex; nothing under
 * sroce_dev_mutex takes RTNL, registers or unregisters a device.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/if_arp.h>
#include <linux/random.h>
#include <net/addrconf.h>
#include <rdma/rdma_netlink.h>
#include <kunit/visibility.h>

#include "sroce.h"
#include "sroce_av.h"
#include "sroce_mcast.h"
#include "sroce_mr.h"
#include "sroce_net.h"
#include "sroce_qp.h"
#include "sroce_queue.h"
#include "sroce_verbs.h"

MODULE_AUTHOR("sroce developers");
MODULE_DESCRIPTION("Software RoCEv2 RDMA device");
MODULE_LICENSE("GPL");
MODULE_ALIAS_RDMA_LINK("sroce");

/*
 * Object limits of devices added from now on, one per type (enum
 * sroce_res_type); 0 means the most the device supports (SROCE_MAX_*),
 * larger values are clamped to it.  Writable, so that a test can lower them
 * before `rdma link add`; a device keeps the values it was added with.
 */
static unsigned int sroce_max_res[SROCE_NUM_RES];
module_param_named(max_pd, sroce_max_res[SROCE_RES_PD], uint, 0644);
MODULE_PARM_DESC(max_pd, "PDs per device, 1..65536; 0 (default): 65536");
module_param_named(max_cq, sroce_max_res[SROCE_RES_CQ], uint, 0644);
MODULE_PARM_DESC(max_cq, "CQs per device, 1..65536; 0 (default): 65536");
module_param_named(max_qp, sroce_max_res[SROCE_RES_QP], uint, 0644);
MODULE_PARM_DESC(max_qp,
		 "QPs per device incl. the GSI QP, 1..65536; 0 (default): 65536");
module_param_named(max_mr, sroce_max_res[SROCE_RES_MR], uint, 0644);
MODULE_PARM_DESC(max_mr, "MRs per device, 1..262144; 0 (default): 262144");
module_param_named(max_ah, sroce_max_res[SROCE_RES_AH], uint, 0644);
MODULE_PARM_DESC(max_ah, "AHs per device, 1..65536; 0 (default): 65536");
module_param_named(max_srq, sroce_max_res[SROCE_RES_SRQ], uint, 0644);
MODULE_PARM_DESC(max_srq, "SRQs per device, 1..65536; 0 (default): 65536");
module_param_named(max_xrcd, sroce_max_res[SROCE_RES_XRCD], uint, 0644);
MODULE_PARM_DESC(max_xrcd,
		 "XRC domains per device, 1..65536; 0 (default): 65536");

struct workqueue_struct *sroce_wq;
EXPORT_SYMBOL_IF_KUNIT(sroce_wq);

static LIST_HEAD(sroce_dev_list);
static DEFINE_MUTEX(sroce_dev_mutex);

/**
 * sroce_mtu_from_netdev() - largest IB MTU whose packets fit a netdev MTU
 * @ndev_mtu: netdev MTU in bytes (IP packet size)
 *
 * Subtracts the RoCEv2 overhead of a full packet (SROCE_MAX_PKT_OVERHEAD:
 * IPv6, UDP, BTH, RETH, ImmDt, ICRC) and rounds down to an IB MTU; never
 * below IB_MTU_256 (IBTA 9.4.6.1).  1500 gives IB_MTU_1024, 9000 gives
 * IB_MTU_4096, as for rxe.
 * Context: any.
 * Return: IB_MTU_256 .. IB_MTU_4096.
 */
enum ib_mtu sroce_mtu_from_netdev(unsigned int ndev_mtu)
{
	int room = (int)min(ndev_mtu, 65536U) - SROCE_MAX_PKT_OVERHEAD;

	if (room >= 4096)
		return IB_MTU_4096;
	if (room >= 2048)
		return IB_MTU_2048;
	if (room >= 1024)
		return IB_MTU_1024;
	if (room >= 512)
		return IB_MTU_512;
	return IB_MTU_256;
}

static enum ib_port_state sroce_netdev_port_state(struct net_device *ndev)
{
	return netif_running(ndev) && netif_carrier_ok(ndev) ?
	       IB_PORT_ACTIVE : IB_PORT_DOWN;
}

static struct sroce_dev *sroce_dev_find(struct net_device *ndev)
{
	struct sroce_dev *dev;

	lockdep_assert_held(&sroce_dev_mutex);

	list_for_each_entry(dev, &sroce_dev_list, list)
		if (dev->ndev == ndev)
			return dev;
	return NULL;
}

/* Queue unregistration of a registered device; no-op when it is not. */
static void sroce_dev_unregister_queued(struct sroce_dev *dev)
{
	if (!ib_device_try_get(&dev->ib_dev))
		return;
	ib_unregister_device_queued(&dev->ib_dev);
	ib_device_put(&dev->ib_dev);
}

/* An asynchronous event of the device or its port (IBTA 11.6.3). */
static void sroce_dev_event(struct sroce_dev *dev, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = &dev->ib_dev,
		.element.port_num = SROCE_PORT_NUM,
		.event = type,
	};

	/* Only a registered device has event handlers to tell. */
	if (!ib_device_try_get(&dev->ib_dev))
		return;
	ib_dispatch_event(&ev);
	ib_device_put(&dev->ib_dev);
}

/* Port state follows the netdev's operational state (carrier). */
static void sroce_update_port_state(struct sroce_dev *dev)
{
	enum ib_port_state state = sroce_netdev_port_state(dev->ndev);

	lockdep_assert_held(&sroce_dev_mutex);

	if (state == dev->port_state)
		return;
	WRITE_ONCE(dev->port_state, state);
	ibdev_info(&dev->ib_dev, "port %s\n",
		   state == IB_PORT_ACTIVE ? "active" : "down");
	sroce_dev_event(dev, state == IB_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
							IB_EVENT_PORT_ERR);
}

static void sroce_update_mtu(struct sroce_dev *dev)
{
	enum ib_mtu mtu = sroce_mtu_from_netdev(READ_ONCE(dev->ndev->mtu));

	lockdep_assert_held(&sroce_dev_mutex);

	if (mtu == dev->mtu_cap)
		return;
	WRITE_ONCE(dev->mtu_cap, mtu);
	ibdev_info(&dev->ib_dev, "netdev MTU %u, IB MTU %d\n",
		   dev->ndev->mtu, ib_mtu_enum_to_int(mtu));
}

static int sroce_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *arg)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(arg);
	struct sroce_dev *dev;

	mutex_lock(&sroce_dev_mutex);
	dev = sroce_dev_find(ndev);
	if (!dev)
		goto out;

	switch (event) {
	case NETDEV_UNREGISTER:
		/*
		 * No packet leaves or arrives again: as a hardware device
		 * does on surprise removal, the device fails (posts refused,
		 * every QP in the error state), so the consumers' teardown
		 * that the unregistration starts does not wait for answers
		 * that cannot come.
		 */
		sroce_dev_set_fatal(dev);
		sroce_dev_event(dev, IB_EVENT_DEVICE_FATAL);
		sroce_dev_unregister_queued(dev);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		sroce_update_port_state(dev);
		sroce_cc_update_line_rate(dev);
		break;
	case NETDEV_CHANGEMTU:
		sroce_update_mtu(dev);
		break;
	default:
		break;
	}
out:
	mutex_unlock(&sroce_dev_mutex);
	return NOTIFY_DONE;
}

static struct notifier_block sroce_netdev_nb = {
	.notifier_call = sroce_netdev_event,
};

static ssize_t parent_show(struct device *device,
			   struct device_attribute *attr, char *buf)
{
	struct sroce_dev *dev =
		rdma_device_to_drv_device(device, struct sroce_dev, ib_dev);

	return sysfs_emit(buf, "%s\n", netdev_name(dev->ndev));
}
static DEVICE_ATTR_RO(parent);

/*
 * Read only, the same for every sroce device: the rdma-core provider
 * recognises our devices by it, whatever name they were given.
 */
static ssize_t hca_type_show(struct device *device,
			     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", SROCE_HCA_TYPE);
}
static DEVICE_ATTR_RO(hca_type);

static struct attribute *sroce_dev_attrs[] = {
	&dev_attr_parent.attr,
	&dev_attr_hca_type.attr,
	NULL
};

static const struct attribute_group sroce_dev_attr_group = {
	.attrs = sroce_dev_attrs,
};

static int sroce_enable_driver(struct ib_device *ibdev)
{
	if (sroce_cc_register_sysfs(to_sroce_dev(ibdev)))
		ibdev_warn(ibdev, "no cc/ sysfs directory\n");
	ibdev_info(ibdev, "attached to %s\n",
		   netdev_name(to_sroce_dev(ibdev)->ndev));
	return 0;
}

/* Undo sroce_dev_init(). */
static void sroce_dev_release_fields(struct sroce_dev *dev)
{
	WARN_ON_ONCE(!xa_empty(&dev->qp_xa));
	WARN_ON_ONCE(!xa_empty(&dev->srq_xa));
	WARN_ON_ONCE(!xa_empty(&dev->mr_xa));
	WARN_ON_ONCE(!xa_empty(&dev->ah_xa));
	WARN_ON_ONCE(dev->nr_mcg);
	sroce_mr_dev_drain(dev);
	xa_destroy(&dev->qp_xa);
	xa_destroy(&dev->srq_xa);
	xa_destroy(&dev->mr_xa);
	xa_destroy(&dev->ah_xa);
	sroce_cc_dev_fini(dev);
	kfree(dev->send_homes);
	dev_put(dev->ndev);
}

/*
 * ib_device_ops.dealloc_driver: the core destroyed every object and will
 * free the device; undo newlink.  Also called by ib_dealloc_device() when
 * registration failed.
 */
static void sroce_dealloc_driver(struct ib_device *ibdev)
{
	struct sroce_dev *dev = to_sroce_dev(ibdev);

	mutex_lock(&sroce_dev_mutex);
	list_del_init(&dev->list);
	mutex_unlock(&sroce_dev_mutex);

	sroce_net_detach(dev);
	ibdev_info(ibdev, "detached from %s\n", netdev_name(dev->ndev));
	sroce_dev_release_fields(dev);
}

/* One alphabetical table; object sizes last. */
const struct ib_device_ops sroce_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = SROCE_ABI_VERSION,

	.alloc_hw_port_stats = sroce_alloc_hw_port_stats,
	.alloc_mr = sroce_alloc_mr,
	.alloc_mw = sroce_alloc_mw,
	.alloc_pd = sroce_alloc_pd,
	.alloc_xrcd = sroce_alloc_xrcd,
	.alloc_ucontext = sroce_alloc_ucontext,
	.attach_mcast = sroce_mcast_attach,
	.create_ah = sroce_create_ah,
	.create_cq = sroce_create_cq,
	.create_qp = sroce_create_qp,
	.create_srq = sroce_create_srq,
	.create_user_ah = sroce_create_ah,
	.dealloc_driver = sroce_dealloc_driver,
	.dealloc_mw = sroce_dealloc_mw,
	.dealloc_pd = sroce_dealloc_pd,
	.dealloc_xrcd = sroce_dealloc_xrcd,
	.dealloc_ucontext = sroce_dealloc_ucontext,
	.dereg_mr = sroce_dereg_mr,
	.destroy_ah = sroce_destroy_ah,
	.destroy_cq = sroce_destroy_cq,
	.destroy_qp = sroce_destroy_qp,
	.destroy_srq = sroce_destroy_srq,
	.detach_mcast = sroce_mcast_detach,
	.device_group = &sroce_dev_attr_group,
	.disassociate_ucontext = sroce_disassociate_ucontext,
	.enable_driver = sroce_enable_driver,
	.fill_res_cq_entry = sroce_fill_res_cq_entry,
	.fill_res_qp_entry = sroce_fill_res_qp_entry,
	.get_dma_mr = sroce_get_dma_mr,
	.get_hw_stats = sroce_get_hw_stats,
	.get_link_layer = sroce_get_link_layer,
	.get_port_immutable = sroce_get_port_immutable,
	.map_mr_sg = sroce_map_mr_sg,
	.mmap = sroce_mmap,
	.mmap_free = sroce_mmap_free,
	.modify_qp = sroce_modify_qp,
	.modify_srq = sroce_modify_srq,
	.poll_cq = sroce_poll_cq,
	.drain_rq = sroce_drain_rq,
	.drain_sq = sroce_drain_sq,
	.post_recv = sroce_post_recv,
	.post_send = sroce_post_send,
	.post_srq_recv = sroce_post_srq_recv,
	.query_ah = sroce_query_ah,
	.query_device = sroce_query_device,
	.query_pkey = sroce_query_pkey,
	.query_port = sroce_query_port,
	.query_qp = sroce_query_qp,
	.query_srq = sroce_query_srq,
	.reg_user_mr = sroce_reg_user_mr,
	.req_notify_cq = sroce_req_notify_cq,
	.rereg_user_mr = sroce_rereg_user_mr,
	.resize_cq = sroce_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, sroce_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, sroce_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, sroce_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, sroce_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, sroce_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, sroce_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_xrcd, sroce_xrcd, ibxrcd),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, sroce_ucontext, ibuc),
};
EXPORT_SYMBOL_IF_KUNIT(sroce_dev_ops);

/* Driver state and core device fields; the netdev is held from here on. */
static void sroce_dev_init(struct sroce_dev *dev, struct net_device *ndev)
{
	struct ib_device *ibdev = &dev->ib_dev;

	dev->ndev = ndev;
	dev_hold(ndev);
	INIT_LIST_HEAD(&dev->list);
	INIT_LIST_HEAD(&dev->net_list);
	xa_init_flags(&dev->qp_xa, XA_FLAGS_ALLOC);
	xa_init_flags(&dev->srq_xa, XA_FLAGS_ALLOC1);
	xa_init_flags(&dev->mr_xa, XA_FLAGS_ALLOC1);
	xa_init_flags(&dev->ah_xa, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_IRQ);
	sroce_mr_dev_init(dev);
	sroce_mcast_dev_init(dev);
	sroce_res_init(dev, sroce_max_res);
	dev->port_state = IB_PORT_DOWN;
	dev->mtu_cap = IB_MTU_256;

	strscpy(ibdev->node_desc, SROCE_DRV_NAME, sizeof(ibdev->node_desc));
	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = num_possible_cpus();
	ibdev->local_dma_lkey = 0;
	/*
	 * Under the netdev's parent (its PCI or virtio device, when it has
	 * one), as a hardware RoCE device is: sysfs then shows the netdev as
	 * /sys/class/infiniband/<dev>/device/net/<ndev>, where rdma-core's
	 * tools and test suite look for a device's interface.
	 */
	ibdev->dev.parent = ndev->dev.parent;
	addrconf_addr_eui48((unsigned char *)&ibdev->node_guid,
			    ndev->dev_addr);
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);
}

/* Make @dev the device of @ndev, unless @ndev has one already. */
static int sroce_dev_list_add(struct sroce_dev *dev)
{
	int err = 0;

	mutex_lock(&sroce_dev_mutex);
	if (sroce_dev_find(dev->ndev)) {
		err = -EEXIST;
	} else {
		list_add_tail(&dev->list, &sroce_dev_list);
		dev->port_state = sroce_netdev_port_state(dev->ndev);
		dev->mtu_cap = sroce_mtu_from_netdev(READ_ONCE(dev->ndev->mtu));
	}
	mutex_unlock(&sroce_dev_mutex);
	return err;
}

static void sroce_dev_list_del(struct sroce_dev *dev)
{
	mutex_lock(&sroce_dev_mutex);
	list_del_init(&dev->list);
	mutex_unlock(&sroce_dev_mutex);
}

/*
 * The netdev may have started unregistering while we registered: its
 * NETDEV_UNREGISTER event then found no registered device to remove.
 */
static void sroce_dev_recheck_netdev(struct sroce_dev *dev)
{
	mutex_lock(&sroce_dev_mutex);
	if (READ_ONCE(dev->ndev->reg_state) != NETREG_REGISTERED)
		sroce_dev_unregister_queued(dev);
	mutex_unlock(&sroce_dev_mutex);
}

/* rdma_link_ops.newlink: `rdma link add NAME type sroce netdev NDEV`. */
static int sroce_newlink(const char *ibdev_name, struct net_device *ndev)
{
	struct sroce_dev *dev;
	int err;

	if (ndev->type != ARPHRD_ETHER || (ndev->flags & IFF_LOOPBACK))
		return -EINVAL;

	dev = ib_alloc_device(sroce_dev, ib_dev);
	if (!dev)
		return -ENOMEM;
	sroce_dev_init(dev, ndev);
	err = sroce_cc_dev_init(dev);
	if (!err)
		err = sroce_dp_dev_init(dev);
	if (err)
		goto err_free;
	rtnl_lock();
	sroce_cc_update_line_rate(dev);
	rtnl_unlock();

	err = sroce_dev_list_add(dev);
	if (err)
		goto err_free;
	err = ib_device_set_netdev(&dev->ib_dev, ndev, SROCE_PORT_NUM);
	if (err)
		goto err_unlist;
	err = sroce_net_attach(dev);
	if (err)
		goto err_unlist;

	/* From here on, dealloc_driver undoes everything above. */
	ib_set_device_ops(&dev->ib_dev, &sroce_dev_ops);
	err = ib_register_device(&dev->ib_dev, ibdev_name, NULL);
	if (err) {
		ib_dealloc_device(&dev->ib_dev);
		return err;
	}
	sroce_dev_recheck_netdev(dev);
	return 0;

err_unlist:
	sroce_dev_list_del(dev);
err_free:
	sroce_dev_release_fields(dev);
	ib_dealloc_device(&dev->ib_dev);
	return err;
}

static struct rdma_link_ops sroce_link_ops = {
	.type = SROCE_DRV_NAME,
	.newlink = sroce_newlink,
};

/*
 * Unregister our devices, one at a time, without holding sroce_dev_mutex
 * (dealloc_driver takes it).  ib_unregister_device() waits for an
 * unregistration already under way; either way dealloc_driver has taken the
 * device off the list when it returns.  Never ib_unregister_driver():
 * RDMA_DRIVER_UNKNOWN would match other drivers' devices too.
 */
static void sroce_unregister_all(void)
{
	struct sroce_dev *dev;

	for (;;) {
		mutex_lock(&sroce_dev_mutex);
		dev = list_first_entry_or_null(&sroce_dev_list,
					       struct sroce_dev, list);
		if (dev)
			get_device(&dev->ib_dev.dev);
		mutex_unlock(&sroce_dev_mutex);
		if (!dev)
			break;

		ib_unregister_device(&dev->ib_dev);

		/* Not taken off: unregistration was impossible; do not spin. */
		mutex_lock(&sroce_dev_mutex);
		if (WARN_ON_ONCE(!list_empty(&dev->list)))
			list_del_init(&dev->list);
		mutex_unlock(&sroce_dev_mutex);
		put_device(&dev->ib_dev.dev);
	}
}

static int __init sroce_init(void)
{
	int err;

	/*
	 * Per-CPU, not unbound: a QP's work runs on the CPU its packets
	 * leave from (sroce_dp_schedule()), which keeps them in order.
	 */
	sroce_wq = alloc_workqueue("sroce", WQ_HIGHPRI | WQ_MEM_RECLAIM, 0);
	if (!sroce_wq)
		return -ENOMEM;
	sroce_icrc_init();

	err = sroce_net_init();
	if (err)
		goto err_destroy_wq;
	err = register_netdevice_notifier(&sroce_netdev_nb);
	if (err)
		goto err_net_exit;
	rdma_link_register(&sroce_link_ops);

	pr_info("loaded, ABI version %d\n", SROCE_ABI_VERSION);
	return 0;

err_net_exit:
	sroce_net_exit();
err_destroy_wq:
	sroce_icrc_exit();
	destroy_workqueue(sroce_wq);
	return err;
}

static void __exit sroce_exit(void)
{
	rdma_link_unregister(&sroce_link_ops);
	sroce_unregister_all();
	unregister_netdevice_notifier(&sroce_netdev_nb);
	sroce_net_exit();
	/* ring buffers still waiting for a grace period (sroce_queue.c) */
	rcu_barrier();
	sroce_icrc_exit();
	destroy_workqueue(sroce_wq);
	pr_info("unloaded\n");
}

module_init(sroce_init);
module_exit(sroce_exit);
