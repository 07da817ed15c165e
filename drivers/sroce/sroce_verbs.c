// SPDX-License-Identifier: GPL-2.0
/*
 * Verb entry points (struct ib_device_ops): check the input,
 * allocate, reply.  The QP and SRQ verbs, the CQ verbs, the kernel
 * consumers' work requests and the MR verbs have their own files
 * (sroce_verbs_qp.c, sroce_verbs_cq.c, sroce_verbs_wr.c,
 * sroce_verbs_mr.c); object internals live in sroce_qp.c, sroce_srq.c,
 * sroce_mr.c and sroce_queue.c.
 *
 * Errors follow what rdma-core documents for the verbs: EINVAL for bad
 * attributes or masks, ENOMEM for exhausted resources or full rings,
 * EOPNOTSUPP for features we do not offer (tag matching SRQs, alternate
 * paths, creation flags), EFAULT when a udata copy fails.
 *
 * Driver data exchanged with the provider (sroce-abi.h): every create verb
 * of a user object answers with its response struct; no verb takes driver
 * input, so non-zero input bytes are refused.
 */

#include <linux/netdevice.h>
#include <rdma/ib_mad.h>
#include <rdma/restrack.h>
#include <kunit/visibility.h>
#include <uapi/rdma/rdma_netlink.h>

#include "sroce.h"
#include "sroce_av.h"
#include "sroce_diag.h"
#include "sroce_mr.h"
#include "sroce_qp.h"
#include "sroce_queue.h"
#include "sroce_verbs.h"

#define SROCE_DEVICE_CAP_FLAGS	(IB_DEVICE_RC_RNR_NAK_GEN | \
				 IB_DEVICE_SYS_IMAGE_GUID | \
				 IB_DEVICE_PORT_ACTIVE_EVENT | \
				 IB_DEVICE_MEM_MGT_EXTENSIONS | \
				 IB_DEVICE_MEM_WINDOW | \
				 IB_DEVICE_MEM_WINDOW_TYPE_2B | \
				 IB_DEVICE_XRC | \
				 SROCE_DEVICE_ATOMIC_WRITE | \
				 SROCE_DEVICE_FLUSH_GLOBAL)

/* ------------------------------------------------------------------ */
/* udata helpers                                                       */
/* ------------------------------------------------------------------ */

/**
 * sroce_udata_in_ok() - check that a verb got no driver input
 * @udata: the verb's user data, or NULL for a kernel caller
 *
 * We define no driver input: accept none, or only zero bytes.
 * Context: process with @udata (reads the user's input buffer); any
 * without (create_ah of a kernel AH may be atomic).
 * Return: 0, or -EINVAL when the input holds a non-zero byte or cannot
 * be read.
 */
int sroce_udata_in_ok(struct ib_udata *udata)
{
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	return 0;
}

/**
 * sroce_udata_ok() - check a user verb's driver data, both ways
 * @udata: the verb's user data, or NULL for a kernel caller
 * @resp_len: size of the response the verb answers with
 *
 * The provider must have room for our whole response, and sends no driver
 * input (sroce_udata_in_ok()).
 * Context: as sroce_udata_in_ok().
 * Return: 0 (also without @udata), or -EINVAL when the output buffer is
 * shorter than @resp_len or the input is refused.
 */
int sroce_udata_ok(struct ib_udata *udata, size_t resp_len)
{
	if (!udata)
		return 0;
	if (udata->outlen < resp_len)
		return -EINVAL;
	return sroce_udata_in_ok(udata);
}

/**
 * sroce_udata_uctx() - the user context a verb is called in
 * @udata: the verb's user data, or NULL for a kernel caller
 *
 * Context: any, within the verb.
 * Return: the core context of @udata, or NULL without @udata (a kernel
 * object); never an error.
 */
struct ib_ucontext *sroce_udata_uctx(struct ib_udata *udata)
{
	struct sroce_ucontext *uc;

	if (!udata)
		return NULL;
	uc = rdma_udata_to_drv_context(udata, struct sroce_ucontext, ibuc);
	return &uc->ibuc;
}

/* ------------------------------------------------------------------ */
/* Object limits                                                       */
/* ------------------------------------------------------------------ */

/* The most objects of each type a device can be given (query_device). */
static const u32 sroce_res_cap[SROCE_NUM_RES] = {
	[SROCE_RES_PD] = SROCE_MAX_PD,
	[SROCE_RES_CQ] = SROCE_MAX_CQ,
	[SROCE_RES_QP] = SROCE_MAX_QP,
	[SROCE_RES_MR] = SROCE_MAX_MR,
	[SROCE_RES_AH] = SROCE_MAX_AH,
	[SROCE_RES_SRQ] = SROCE_MAX_SRQ,
	[SROCE_RES_XRCD] = SROCE_MAX_XRCD,
};

/**
 * sroce_res_init() - set a new device's object limits
 * @dev: device, before registration (query_device reports the limits)
 * @want: wanted limit per enum sroce_res_type, the max_* module
 *	parameters: 0 means SROCE_MAX_*, larger values are clamped to it
 *
 * Context: any.
 */
void sroce_res_init(struct sroce_dev *dev, const unsigned int *want)
{
	unsigned int w;
	int t;

	for (t = 0; t < SROCE_NUM_RES; t++) {
		w = READ_ONCE(want[t]);
		atomic_set(&dev->res[t].used, 0);
		dev->res[t].max = w ? min_t(u32, w, sroce_res_cap[t]) :
				      sroce_res_cap[t];
	}
}
EXPORT_SYMBOL_IF_KUNIT(sroce_res_init);

/**
 * sroce_res_get() - take one object slot of a device
 * @dev: device
 * @type: object type
 *
 * Every create verb takes a slot before it allocates anything, and gives it
 * back with sroce_res_put() when it fails or the object is destroyed, so a
 * device never holds more objects than query_device advertises.
 * Context: any (an atomic counter; AHs may be created in atomic context).
 * Return: 0, or -ENOMEM when the device holds its limit already (what
 * rdma-core documents for exhausted resources).
 */
int sroce_res_get(struct sroce_dev *dev, enum sroce_res_type type)
{
	struct sroce_res_pool *p = &dev->res[type];

	return atomic_add_unless(&p->used, 1, p->max) ? 0 : -ENOMEM;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_res_get);

/**
 * sroce_res_put() - give back a slot taken by sroce_res_get()
 * @dev: device
 * @type: object type
 *
 * Context: any.
 */
void sroce_res_put(struct sroce_dev *dev, enum sroce_res_type type)
{
	WARN_ON_ONCE(atomic_dec_if_positive(&dev->res[type].used) < 0);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_res_put);

/* ------------------------------------------------------------------ */
/* Device and port                                                     */
/* ------------------------------------------------------------------ */

/**
 * sroce_query_device() - device attributes (ib_device_ops.query_device)
 * @ibdev: device
 * @attr: filled completely; the core caches it in ibdev->attrs at
 *	registration, so kernel_cap_flags must be set here
 * @uhw: driver data of ibv_query_device_ex; we define none
 *
 * Context: process.
 * Return: 0, or -EINVAL when @uhw carries driver data.
 */
int sroce_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		       struct ib_udata *uhw)
{
	struct sroce_dev *dev = to_sroce_dev(ibdev);

	if (uhw && (uhw->inlen || uhw->outlen))
		return -EINVAL;

	memset(attr, 0, sizeof(*attr));
	attr->sys_image_guid = ibdev->node_guid;
	attr->max_mr_size = SROCE_MAX_MR_SIZE;
	attr->page_size_cap = SROCE_PAGE_SIZE_CAP | SROCE_FR_PAGE_SIZE_CAP;
	attr->max_fast_reg_page_list_len = SROCE_FR_MAX_PAGES;
	attr->vendor_id = SROCE_VENDOR_ID;
	attr->vendor_part_id = SROCE_VENDOR_PART_ID;
	attr->hw_ver = SROCE_HW_VER;
	attr->max_qp = dev->res[SROCE_RES_QP].max;
	attr->max_qp_wr = SROCE_MAX_QP_WR;
	attr->device_cap_flags = SROCE_DEVICE_CAP_FLAGS;
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	attr->max_send_sge = SROCE_MAX_SGE;
	attr->max_recv_sge = SROCE_MAX_SGE;
	attr->max_sge_rd = SROCE_MAX_SGE;
	attr->max_cq = dev->res[SROCE_RES_CQ].max;
	attr->max_cqe = SROCE_MAX_CQE;
	attr->max_mr = dev->res[SROCE_RES_MR].max;
	attr->max_mw = attr->max_mr;	/* windows take MR slots */
	attr->max_pd = dev->res[SROCE_RES_PD].max;
	attr->max_qp_rd_atom = SROCE_MAX_RD_ATOMIC;
	attr->max_qp_init_rd_atom = SROCE_MAX_RD_ATOMIC;
	attr->max_res_rd_atom = attr->max_qp * SROCE_MAX_RD_ATOMIC;
	attr->atomic_cap = IB_ATOMIC_HCA;
	attr->max_ah = dev->res[SROCE_RES_AH].max;
	attr->max_srq = dev->res[SROCE_RES_SRQ].max;
	attr->max_srq_wr = SROCE_MAX_SRQ_WR;
	attr->max_srq_sge = SROCE_MAX_SGE;
	attr->max_pkeys = SROCE_PKEY_TBL_LEN;
	attr->max_mcast_grp = SROCE_MAX_MCAST_GRP;
	attr->max_mcast_qp_attach = SROCE_MAX_MCAST_QP_ATTACH;
	attr->max_total_mcast_qp_attach = SROCE_MAX_TOTAL_MCAST_QP_ATTACH;
	attr->local_ca_ack_delay = SROCE_LOCAL_CA_ACK_DELAY;
	return 0;
}

/**
 * sroce_query_port() - port attributes (ib_device_ops.query_port)
 * @ibdev: device
 * @port_num: 1
 * @attr: zeroed by the core; state follows the netdev's carrier, the MTUs
 *	its MTU, speed and width its ethtool link speed
 *
 * Context: process; takes RTNL (ib_get_eth_speed()), so never call it with
 * RTNL held.
 * Return: 0, or -EINVAL for another port.
 */
int sroce_query_port(struct ib_device *ibdev, u32 port_num,
		     struct ib_port_attr *attr)
{
	struct sroce_dev *dev = to_sroce_dev(ibdev);

	if (port_num != SROCE_PORT_NUM)
		return -EINVAL;

	attr->state = READ_ONCE(dev->port_state);
	if (attr->state == IB_PORT_ACTIVE)
		attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	else if (dev->ndev->flags & IFF_UP)
		attr->phys_state = IB_PORT_PHYS_STATE_POLLING;
	else
		attr->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = READ_ONCE(dev->mtu_cap);
	attr->gid_tbl_len = SROCE_GID_TBL_LEN;
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = SROCE_MAX_MSG_SIZE;
	attr->pkey_tbl_len = SROCE_PKEY_TBL_LEN;
	attr->max_vl_num = 1;

	/* Falls back to SDR x1 when the netdev reports no speed. */
	if (ib_get_eth_speed(ibdev, port_num, &attr->active_speed,
			     &attr->active_width)) {
		attr->active_speed = IB_SPEED_SDR;
		attr->active_width = IB_WIDTH_1X;
	}
	return 0;
}

/**
 * sroce_get_port_immutable() - fixed port properties
 *	(ib_device_ops.get_port_immutable)
 * @ibdev: device
 * @port_num: 1
 * @immutable: filled: RoCEv2 (UDP encapsulation; this includes IB_MAD and
 *	IB_CM, so the core creates the GSI QP), table sizes, MAD size
 *
 * Context: process (device registration).
 * Return: 0, or -EINVAL for another port.
 */
int sroce_get_port_immutable(struct ib_device *ibdev, u32 port_num,
			     struct ib_port_immutable *immutable)
{
	if (port_num != SROCE_PORT_NUM)
		return -EINVAL;

	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->pkey_tbl_len = SROCE_PKEY_TBL_LEN;
	immutable->gid_tbl_len = SROCE_GID_TBL_LEN;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

/**
 * sroce_get_link_layer() - link layer of a port (ib_device_ops.get_link_layer)
 * @ibdev: device
 * @port_num: 1
 *
 * Context: any.
 * Return: IB_LINK_LAYER_ETHERNET.
 */
enum rdma_link_layer sroce_get_link_layer(struct ib_device *ibdev,
					  u32 port_num)
{
	return IB_LINK_LAYER_ETHERNET;
}

/**
 * sroce_query_pkey() - P_Key table entry (ib_device_ops.query_pkey)
 * @ibdev: device
 * @port_num: 1
 * @index: table index; the table has one entry, the default full P_Key
 * @pkey: filled with 0xffff
 *
 * Context: any.
 * Return: 0, or -EINVAL for an index other than 0.
 */
int sroce_query_pkey(struct ib_device *ibdev, u32 port_num, u16 index,
		     u16 *pkey)
{
	if (index >= SROCE_PKEY_TBL_LEN)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

/* ------------------------------------------------------------------ */
/* User context, PD                                                    */
/* ------------------------------------------------------------------ */

/**
 * sroce_alloc_ucontext() - open a user context (ib_device_ops.alloc_ucontext)
 * @ibuc: context the core allocated
 * @udata: answered with struct sroce_alloc_ucontext_resp: ABI version and
 *	the WQE/CQE sizes, which the provider checks against its own
 *
 * Context: process.
 * Return: 0, -EINVAL (no room for the response, unknown input), -EFAULT.
 */
int sroce_alloc_ucontext(struct ib_ucontext *ibuc, struct ib_udata *udata)
{
	struct sroce_alloc_ucontext_resp resp = {
		.abi_version = SROCE_ABI_VERSION,
		.max_sge = SROCE_MAX_SGE,
		.max_inline = SROCE_MAX_INLINE,
		.send_wqe_size = sizeof(struct sroce_send_wqe),
		.recv_wqe_size = sizeof(struct sroce_recv_wqe),
		.cqe_size = sizeof(struct sroce_cqe),
	};
	int err;

	if (!udata)
		return -EINVAL;
	err = sroce_udata_ok(udata, sizeof(resp));
	if (err)
		return err;
	return ib_copy_to_udata(udata, &resp, sizeof(resp));
}

/**
 * sroce_dealloc_ucontext() - close a user context
 *	(ib_device_ops.dealloc_ucontext)
 * @ibuc: context; all its objects and mmap entries are gone already
 *
 * Context: process.
 */
void sroce_dealloc_ucontext(struct ib_ucontext *ibuc)
{
}

/**
 * sroce_disassociate_ucontext() - the device goes away under a live
 *	context (ib_device_ops.disassociate_ucontext)
 * @ibuc: context
 *
 * Nothing to do: the core has destroyed the context's objects through the
 * normal destroy verbs, and ring pages a process still maps stay alive
 * through the page references of its mapping.  Having this op lets
 * `rdma link delete`, netdev removal and rmmod proceed while processes keep
 * the uverbs file open (they then get EIO).
 * Context: process.
 */
void sroce_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

/**
 * sroce_alloc_pd() - allocate a protection domain (ib_device_ops.alloc_pd)
 * @ibpd: PD the core allocated
 * @udata: user data; we answer nothing
 *
 * Context: process.
 * Return: 0, -EINVAL for unknown driver input, -ENOMEM (max_pd reached).
 */
int sroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	int err;

	err = sroce_udata_in_ok(udata);
	if (err)
		return err;
	return sroce_res_get(to_sroce_dev(ibpd->device), SROCE_RES_PD);
}

/**
 * sroce_dealloc_pd() - free a protection domain (ib_device_ops.dealloc_pd)
 * @ibpd: PD; the core guarantees no object uses it any more
 * @udata: user data
 *
 * Context: process.
 * Return: 0.
 */
int sroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	sroce_res_put(to_sroce_dev(ibpd->device), SROCE_RES_PD);
	return 0;
}

/**
 * sroce_alloc_xrcd() - allocate an XRC domain (ib_device_ops.alloc_xrcd)
 * @ibxrcd: XRC domain the core allocated (ibv_open_xrcd(3); the core
 *	shares it between processes that open the same file)
 * @udata: user data; we answer nothing
 *
 * Context: process.
 * Return: 0, -EINVAL for unknown driver input, -ENOMEM (max_xrcd reached).
 */
int sroce_alloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	int err;

	err = sroce_udata_in_ok(udata);
	if (err)
		return err;
	return sroce_res_get(to_sroce_dev(ibxrcd->device), SROCE_RES_XRCD);
}

/**
 * sroce_dealloc_xrcd() - free an XRC domain (ib_device_ops.dealloc_xrcd)
 * @ibxrcd: XRC domain; the core guarantees no SRQ or QP uses it any more
 * @udata: user data
 *
 * Context: process.
 * Return: 0.
 */
int sroce_dealloc_xrcd(struct ib_xrcd *ibxrcd, struct ib_udata *udata)
{
	sroce_res_put(to_sroce_dev(ibxrcd->device), SROCE_RES_XRCD);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Address handles                                                     */
/* ------------------------------------------------------------------ */

/**
 * sroce_create_ah() - create an address handle (ib_device_ops.create_ah and
 *	.create_user_ah)
 * @ibah: AH the core allocated (pd and sgid_attr set)
 * @init_attr: RoCE attributes with a GRH; flags tell whether we may sleep
 * @udata: user AHs are answered with struct sroce_create_ah_resp
 *
 * Every AH, kernel or user, gets a number in dev->ah_xa: UD WQEs name it.
 * Context: process, or atomic without RDMA_CREATE_AH_SLEEPABLE.
 * Return: 0, -EINVAL (not RoCE, no GRH, wrong port, GID not ours, no room
 * for the response), -ENOMEM (also: max_ah reached), -EFAULT.
 */
int sroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init_attr,
		    struct ib_udata *udata)
{
	struct sroce_dev *dev = to_sroce_dev(ibah->device);
	struct rdma_ah_attr *attr = init_attr->ah_attr;
	struct sroce_ah *ah = to_sroce_ah(ibah);
	struct sroce_create_ah_resp resp = {};
	int err;

	err = sroce_udata_ok(udata, sizeof(resp));
	if (err)
		return err;
	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH) ||
	    rdma_ah_get_port_num(attr) != SROCE_PORT_NUM)
		return -EINVAL;

	err = sroce_av_from_attr(dev, &ah->av, attr);
	if (err)
		return err;
	err = sroce_res_get(dev, SROCE_RES_AH);
	if (err)
		return err;
	err = sroce_ah_alloc_num(dev, ah, init_attr->flags &
					  RDMA_CREATE_AH_SLEEPABLE);
	if (err)
		goto err_put;

	if (udata) {
		resp.ah_num = ah->ah_num;
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_free;
	}
	return 0;

err_free:
	sroce_ah_free_num(dev, ah);
err_put:
	sroce_res_put(dev, SROCE_RES_AH);
	return err;
}

/**
 * sroce_query_ah() - attributes of an AH (ib_device_ops.query_ah)
 * @ibah: AH
 * @attr: filled from the address vector; sgid_attr is left NULL (the core
 *	owns that reference)
 *
 * Context: any.
 * Return: 0.
 */
int sroce_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	const struct sroce_av *av = &to_sroce_ah(ibah)->av;
	u8 sgid_index = ibah->sgid_attr ? ibah->sgid_attr->index : 0;
	union ib_gid dgid;

	memset(attr, 0, sizeof(*attr));
	attr->type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(attr, SROCE_PORT_NUM);
	rdma_ah_set_sl(attr, av->sl);
	memcpy(dgid.raw, &av->daddr, sizeof(dgid.raw));
	rdma_ah_set_grh(attr, &dgid, av->flow_label, sgid_index,
			av->hop_limit, av->traffic_class);
	memcpy(attr->roce.dmac, av->dmac, ETH_ALEN);
	return 0;
}

/**
 * sroce_destroy_ah() - destroy an AH (ib_device_ops.destroy_ah)
 * @ibah: AH
 * @flags: RDMA_DESTROY_AH_SLEEPABLE or 0; we never sleep
 *
 * Once the number is erased no lookup can copy the vector any more, so the
 * core may free the AH when we return.
 * Context: any.
 * Return: 0.
 */
int sroce_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct sroce_dev *dev = to_sroce_dev(ibah->device);

	sroce_ah_free_num(dev, to_sroce_ah(ibah));
	sroce_res_put(dev, SROCE_RES_AH);
	return 0;
}

/* ------------------------------------------------------------------ */
/* rdma resource: driver details                                       */
/* ------------------------------------------------------------------ */

/**
 * sroce_fill_res_qp_entry() - driver details of a QP for `rdma resource`
 *	(ib_device_ops.fill_res_qp_entry)
 * @msg: netlink message
 * @ibqp: QP
 *
 * Reads the ring indices through sroce_queue_used(), which copes with a
 * concurrent destroy: cores without rdma_restrack_begin_del() (6.1 before
 * 6.1.190) call destroy_qp before they wait for restrack readers, so a
 * dump may run while the QP is being destroyed.
 * Context: process (nldev dump, holding a restrack reference only).
 * Return: 0, or -EMSGSIZE.
 */
int sroce_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct sroce_qp *qp = to_sroce_qp(ibqp);
	struct nlattr *table;

	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "sq_size", qp->sq.num) ||
	    rdma_nl_put_driver_u32(msg, "sq_used", sroce_queue_used(&qp->sq)) ||
	    rdma_nl_put_driver_u32(msg, "rq_size", qp->rq.num) ||
	    rdma_nl_put_driver_u32(msg, "rq_used", sroce_queue_used(&qp->rq)) ||
	    rdma_nl_put_driver_u32(msg, "mtu", qp->mtu) ||
	    rdma_nl_put_driver_u32(msg, "user", qp->is_user) ||
	    sroce_cc_fill_res_qp_entry(msg, qp) ||
	    sroce_diag_fill_res_qp(msg, qp))
		goto err;
	nla_nest_end(msg, table);
	return 0;

err:
	nla_nest_cancel(msg, table);
	return -EMSGSIZE;
}

/**
 * sroce_fill_res_cq_entry() - driver details of a CQ for `rdma resource`
 *	(ib_device_ops.fill_res_cq_entry)
 * @msg: netlink message
 * @ibcq: CQ
 *
 * Reads the ring indices through sroce_queue_used() (see
 * sroce_fill_res_qp_entry()).
 * Context: process (nldev dump, holding a restrack reference only).
 * Return: 0, or -EMSGSIZE.
 */
int sroce_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	struct sroce_cq *cq = to_sroce_cq(ibcq);
	struct nlattr *table;

	table = nla_nest_start(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "cq_used",
				   sroce_queue_used(&cq->queue)) ||
	    rdma_nl_put_driver_u32(msg, "overflowed",
				   READ_ONCE(cq->overflowed)) ||
	    rdma_nl_put_driver_u32(msg, "user", cq->is_user))
		goto err;
	nla_nest_end(msg, table);
	return 0;

err:
	nla_nest_cancel(msg, table);
	return -EMSGSIZE;
}
