// SPDX-License-Identifier: GPL-2.0
/*
 * Verb entry points (struct ib_device_ops): check the input,
 * allocate, reply.  Object internals live in sroce_qp.c, sroce_mr.c and
 * sroce_queue.c.
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
#include <linux/log2.h>
#include <rdma/ib_mad.h>
#include <rdma/restrack.h>
#include <kunit/visibility.h>
#include <uapi/rdma/rdma_netlink.h>

#include "sroce.h"
#include "sroce_av.h"
#include "sroce_mr.h"
#include "sroce_qp.h"
#include "sroce_queue.h"
#include "sroce_srq.h"
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

/* We define no driver input: accept none, or only zero bytes. */
static int sroce_udata_in_ok(struct ib_udata *udata)
{
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return -EINVAL;
	return 0;
}

/* The provider must have room for our whole response. */
static int sroce_udata_ok(struct ib_udata *udata, size_t resp_len)
{
	if (!udata)
		return 0;
	if (udata->outlen < resp_len)
		return -EINVAL;
	return sroce_udata_in_ok(udata);
}

static struct ib_ucontext *sroce_udata_uctx(struct ib_udata *udata)
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
/* Completion queues                                                   */
/* ------------------------------------------------------------------ */

/**
 * sroce_create_cq() - create a completion queue (ib_device_ops.create_cq)
 * @ibcq: CQ the core allocated
 * @attr: cqe 1..SROCE_MAX_CQE, a valid comp_vector, no flags
 * @uarg: the core's udata (kernels before 6.11) or uverbs attribute bundle;
 *	user CQs are answered with struct sroce_create_cq_resp (the ring)
 *
 * The ring gets the next power of two of @attr->cqe slots, all usable; the
 * real size is reported in ibcq->cqe.
 * Context: process.
 * Return: 0, -EOPNOTSUPP (flags), -EINVAL, -ENOMEM (also: max_cq reached),
 * -EFAULT.
 */
int sroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    struct sroce_create_cq_uarg *uarg)
{
	struct ib_udata *udata = sroce_create_cq_udata(uarg);
	struct sroce_dev *dev = to_sroce_dev(ibcq->device);
	struct sroce_cq *cq = to_sroce_cq(ibcq);
	struct sroce_create_cq_resp resp = {};
	u32 num;
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->cqe < 1 || attr->cqe > SROCE_MAX_CQE ||
	    attr->comp_vector >= ibcq->device->num_comp_vectors)
		return -EINVAL;
	err = sroce_udata_ok(udata, sizeof(resp));
	if (err)
		return err;

	err = sroce_res_get(dev, SROCE_RES_CQ);
	if (err)
		return err;

	spin_lock_init(&cq->lock);
	cq->is_user = !!udata;
	num = roundup_pow_of_two(attr->cqe);
	err = sroce_queue_init(dev, &cq->queue, num, sizeof(struct sroce_cqe),
			       sroce_udata_uctx(udata),
			       udata ? &resp.mi : NULL);
	if (err)
		goto err_put;

	if (udata) {
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto err_cleanup;
	}
	ibcq->cqe = num;
	return 0;

err_cleanup:
	sroce_queue_cleanup(&cq->queue);
err_put:
	sroce_res_put(dev, SROCE_RES_CQ);
	return err;
}

/**
 * sroce_destroy_cq() - destroy a completion queue (ib_device_ops.destroy_cq)
 * @ibcq: CQ; the core guarantees no QP uses it any more, and destroyed QPs
 *	have no deferred work left, so nothing posts to it
 * @udata: user data
 *
 * Context: process.
 * Return: 0.
 */
int sroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct sroce_cq *cq = to_sroce_cq(ibcq);

	sroce_queue_cleanup(&cq->queue);
	sroce_res_put(to_sroce_dev(ibcq->device), SROCE_RES_CQ);
	return 0;
}

/**
 * sroce_resize_cq() - change the size of a CQ, keeping every CQE
 *	(ib_device_ops.resize_cq)
 * @ibcq: CQ
 * @cqe: wanted size, 1..SROCE_MAX_CQE; the ring gets the next power of two
 *	of slots, reported in ibcq->cqe
 * @udata: a user CQ is answered with struct sroce_resize_cq_resp
 *
 * A new ring is allocated (and, for a user CQ, offered for mmap), the CQEs
 * not yet polled are copied into it under the CQ lock and it replaces the
 * old ring, whose mmap entry goes; the provider maps the new ring and
 * unmaps the old one.  The response is written before the swap, so a
 * failed copy to the user leaves the CQ as it was.
 * Context: process.
 * Return: 0, -EINVAL for a size out of range or smaller than the number of
 * CQEs pending, or for a kernel CQ resized with udata (and vice versa),
 * -ENOMEM, -EFAULT.
 */
int sroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct sroce_dev *dev = to_sroce_dev(ibcq->device);
	struct sroce_cq *cq = to_sroce_cq(ibcq);
	struct sroce_resize_cq_resp resp = {};
	struct sroce_queue nq;
	int err;

	if (cqe < 1 || cqe > SROCE_MAX_CQE || !!udata != cq->is_user)
		return -EINVAL;
	err = sroce_udata_ok(udata, sizeof(resp));
	if (err)
		return err;

	err = sroce_queue_init(dev, &nq, roundup_pow_of_two(cqe),
			       sizeof(struct sroce_cqe), sroce_udata_uctx(udata),
			       udata ? &resp.mi : NULL);
	if (err)
		return err;
	if (udata) {
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err)
			goto out;
	}
	/* On success nq holds the old ring. */
	err = sroce_cq_swap_ring(cq, &nq);
out:
	sroce_queue_cleanup(&nq);
	return err;
}

static enum ib_wc_opcode sroce_wc_opcode(u32 opcode)
{
	/*
	 * FLUSH and ATOMIC WRITE: IB_WC_FLUSH and IB_WC_ATOMIC_WRITE since
	 * 6.2, the same values.  6.1's IB_WC_REG_MR is 8 as well, which this
	 * keeps (a kernel QP's CQE; a user QP's goes to a user CQ).
	 */
	if (opcode == SROCE_WC_FLUSH || opcode == SROCE_WC_ATOMIC_WRITE)
		return (enum ib_wc_opcode)opcode;
	switch (opcode) {
	case IB_UVERBS_WC_SEND:
		return IB_WC_SEND;
	case IB_UVERBS_WC_RDMA_WRITE:
		return IB_WC_RDMA_WRITE;
	case IB_UVERBS_WC_RDMA_READ:
		return IB_WC_RDMA_READ;
	case IB_UVERBS_WC_COMP_SWAP:
		return IB_WC_COMP_SWAP;
	case IB_UVERBS_WC_FETCH_ADD:
		return IB_WC_FETCH_ADD;
	case IB_UVERBS_WC_BIND_MW:
		return IB_WC_BIND_MW;
	case IB_UVERBS_WC_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case IB_UVERBS_WC_TSO:
		return IB_WC_LSO;
	case IB_WC_REG_MR:		/* kernel CQEs only */
		return IB_WC_REG_MR;
	case IB_WC_RECV_RDMA_WITH_IMM:	/* IBV_WC_RECV_RDMA_WITH_IMM */
		return IB_WC_RECV_RDMA_WITH_IMM;
	default:			/* IBV_WC_RECV */
		return IB_WC_RECV;
	}
}

/*
 * CQE flags hold the userspace IBV_WC_* bits; the kernel's differ from bit
 * 2 on (IB_WC_WITH_INVALIDATE is bit 2, IBV_WC_WITH_INV bit 3).
 */
static int sroce_wc_flags(const struct sroce_cqe *cqe)
{
	int flags = 0;

	if (cqe->wc_flags & SROCE_WC_F_GRH)
		flags |= IB_WC_GRH;
	if (cqe->wc_flags & SROCE_WC_F_WITH_IMM)
		flags |= IB_WC_WITH_IMM;
	if (cqe->wc_flags & SROCE_WC_F_WITH_INV)
		flags |= IB_WC_WITH_INVALIDATE;
	if (cqe->network_hdr_type)
		flags |= IB_WC_WITH_NETWORK_HDR_TYPE;
	return flags;
}

/* The core QP a CQE belongs to, or NULL once that QP was destroyed. */
static struct ib_qp *sroce_cqe_qp(struct sroce_dev *dev, u32 qpn)
{
	struct sroce_qp *qp;

	rcu_read_lock();
	qp = xa_load(&dev->qp_xa, qpn & SROCE_QPN_MASK);
	rcu_read_unlock();
	return qp ? &qp->ibqp : NULL;
}

static void sroce_cqe_to_wc(struct sroce_dev *dev,
			    const struct sroce_cqe *cqe, struct ib_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = cqe->wr_id;
	wc->status = cqe->status;
	wc->opcode = sroce_wc_opcode(cqe->opcode);
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = cqe->byte_len;
	wc->qp = sroce_cqe_qp(dev, cqe->qp_num);
	if (cqe->wc_flags & SROCE_WC_F_WITH_INV)
		wc->ex.invalidate_rkey = cqe->ex.invalidated_rkey;
	else
		wc->ex.imm_data = cqe->ex.imm_data;
	wc->src_qp = cqe->src_qp;
	wc->slid = cqe->slid;
	wc->wc_flags = sroce_wc_flags(cqe);
	wc->pkey_index = cqe->pkey_index;
	wc->sl = cqe->sl;
	wc->dlid_path_bits = cqe->dlid_path_bits;
	wc->port_num = SROCE_PORT_NUM;
	wc->network_hdr_type = cqe->network_hdr_type;
}

/**
 * sroce_poll_cq() - take completions from a kernel CQ (ib_device_ops.poll_cq)
 * @ibcq: CQ
 * @num_entries: room in @wc
 * @wc: filled with kernel values (flags and opcodes converted)
 *
 * User CQs are polled by the provider from the mapped ring.
 * Context: any (takes cq->lock with irqsave).
 * Return: the number of completions, or -EINVAL for a user CQ.
 */
int sroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct sroce_dev *dev = to_sroce_dev(ibcq->device);
	struct sroce_cq *cq = to_sroce_cq(ibcq);
	struct sroce_queue *q = &cq->queue;
	unsigned long flags;
	int n = 0;
	u32 cons;

	if (cq->is_user)
		return -EINVAL;

	spin_lock_irqsave(&cq->lock, flags);
	cons = q->hdr->consumer;
	while (n < num_entries && cons != q->kidx) {
		sroce_cqe_to_wc(dev, sroce_queue_slot(q, cons), &wc[n]);
		cons++;
		n++;
	}
	/* Slots read above may be reused once the producer sees this. */
	smp_store_release(&q->hdr->consumer, cons);
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

/**
 * sroce_req_notify_cq() - arm a CQ (ib_device_ops.req_notify_cq)
 * @ibcq: CQ
 * @flags: IB_CQ_SOLICITED or IB_CQ_NEXT_COMP, optionally
 *	IB_CQ_REPORT_MISSED_EVENTS
 *
 * An armed IB_CQ_NEXT_COMP is not weakened to IB_CQ_SOLICITED.
 * Context: any (takes cq->lock with irqsave).
 * Return: 0, or 1 with IB_CQ_REPORT_MISSED_EVENTS when CQEs are pending
 * (the caller must poll again, IBTA 11.4.2.2).
 */
int sroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct sroce_cq *cq = to_sroce_cq(ibcq);
	struct sroce_queue *q = &cq->queue;
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = flags & IB_CQ_SOLICITED_MASK;
	if (flags & IB_CQ_REPORT_MISSED_EVENTS) {
		/* Pairs with the consumer's release store of its index. */
		if (q->kidx != smp_load_acquire(&q->hdr->consumer))
			ret = 1;
	}
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
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
	    sroce_cc_fill_res_qp_entry(msg, qp))
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

/* ------------------------------------------------------------------ */
/* Queue pairs                                                         */
/* ------------------------------------------------------------------ */

/*
 * The QP type and what it must come with.  XRC (IBTA vol. 1 annex A14): a
 * send (INI) QP has a send CQ only, and only userspace can name the remote
 * SRQ of its work requests (struct ib_send_wr has no field for it); a
 * receive (TGT) QP has an XRC domain and nothing else: the core creates
 * it without udata, for the process that asked, and shares it.
 */
static int sroce_check_qp_type(const struct ib_qp_init_attr *init,
			       struct ib_udata *udata)
{
	bool cqs = init->send_cq && init->recv_cq;

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	case IB_QPT_GSI:
		/* IBTA 10.2.9: RC, UC and UD QPs may take receives from an SRQ */
		if (udata || init->srq)
			return -EOPNOTSUPP;
		break;
	case IB_QPT_XRC_INI:
		if (!udata)
			return -EOPNOTSUPP;
		return init->send_cq && !init->srq && !init->xrcd ? 0 : -EINVAL;
	case IB_QPT_XRC_TGT:
		return init->xrcd && !init->srq ? 0 : -EINVAL;
	default:
		return -EOPNOTSUPP;
	}
	if (init->xrcd)
		return -EOPNOTSUPP;
	return cqs ? 0 : -EINVAL;
}

static int sroce_check_qp_init(const struct ib_qp_init_attr *init,
			       struct ib_udata *udata)
{
	const struct ib_qp_cap *cap = &init->cap;
	int err;

	if (init->create_flags || init->rwq_ind_tbl)
		return -EOPNOTSUPP;
	err = sroce_check_qp_type(init, udata);
	if (err)
		return err;
	if (init->sq_sig_type != IB_SIGNAL_ALL_WR &&
	    init->sq_sig_type != IB_SIGNAL_REQ_WR)
		return -EINVAL;
	if (cap->max_send_wr > SROCE_MAX_QP_WR ||
	    cap->max_recv_wr > SROCE_MAX_QP_WR ||
	    cap->max_send_sge > SROCE_MAX_SGE ||
	    cap->max_recv_sge > SROCE_MAX_SGE ||
	    cap->max_inline_data > SROCE_MAX_INLINE)
		return -EINVAL;
	return 0;
}

/**
 * sroce_create_qp() - create a queue pair (ib_device_ops.create_qp)
 * @ibqp: QP the core allocated
 * @init: RC, UC, UD or GSI; RC, UC or UD with an SRQ or not; XRC INI (user
 *	only) or TGT; no creation flags; capacities up to the device limits.
 *	@init->cap is updated with the real capacities.
 * @udata: user QPs are answered with struct sroce_create_qp_resp (rings)
 *
 * Context: process.
 * Return: 0, -EOPNOTSUPP, -EINVAL, -EBUSY (second GSI QP), -ENOMEM (also:
 * max_qp reached), -EFAULT.
 */
int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata)
{
	struct sroce_dev *dev = to_sroce_dev(ibqp->device);
	struct sroce_qp *qp = to_sroce_qp(ibqp);
	struct sroce_create_qp_resp resp = {};
	int err;

	err = sroce_check_qp_init(init, udata);
	if (err)
		return err;
	err = sroce_udata_ok(udata, sizeof(resp));
	if (err)
		return err;

	err = sroce_res_get(dev, SROCE_RES_QP);
	if (err)
		return err;

	err = sroce_qp_init(dev, qp, init, sroce_udata_uctx(udata),
			    udata ? &resp : NULL);
	if (err)
		goto err_put;

	if (udata) {
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err) {
			sroce_qp_destroy(qp);
			goto err_put;
		}
	}
	sroce_qp_publish(qp);
	return 0;

err_put:
	sroce_res_put(dev, SROCE_RES_QP);
	return err;
}

/**
 * sroce_modify_qp() - modify a queue pair (ib_device_ops.modify_qp)
 * @ibqp: QP
 * @attr: attributes
 * @mask: IB_QP_* bits naming the valid attributes
 * @udata: user data; we define no driver input
 *
 * Context: process.
 * Return: see sroce_qp_modify().
 */
int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata)
{
	int err;

	err = sroce_udata_in_ok(udata);
	if (err)
		return err;
	return sroce_qp_modify(to_sroce_qp(ibqp), attr, mask);
}

/**
 * sroce_query_qp() - attributes of a queue pair (ib_device_ops.query_qp)
 * @ibqp: QP
 * @attr: filled completely
 * @mask: attributes asked for (all are returned)
 * @init: creation attributes with the real capacities
 *
 * Context: process.
 * Return: 0.
 */
int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init)
{
	sroce_qp_query(to_sroce_qp(ibqp), attr, init);
	return 0;
}

/**
 * sroce_destroy_qp() - destroy a queue pair (ib_device_ops.destroy_qp)
 * @ibqp: QP
 * @udata: user data
 *
 * Returns only when no work item, timer or packet uses the QP any more.
 * Context: process, sleeps.
 * Return: 0 (never fails).
 */
int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	sroce_qp_destroy(to_sroce_qp(ibqp));
	sroce_res_put(to_sroce_dev(ibqp->device), SROCE_RES_QP);
	return 0;
}

static bool sroce_wr_is_atomic(enum ib_wr_opcode op)
{
	return op == IB_WR_ATOMIC_CMP_AND_SWP ||
	       op == IB_WR_ATOMIC_FETCH_AND_ADD;
}

/*
 * IB_WR_REG_MR and IB_WR_LOCAL_INV carry no data; REG_MR names a
 * fast-register MR of this device (checked again when it is executed).
 */
static int sroce_check_local_wr(struct sroce_qp *qp,
				const struct ib_send_wr *wr)
{
	const struct ib_mr *ibmr;

	if (wr->num_sge)
		return -EINVAL;
	if (wr->opcode != IB_WR_REG_MR)
		return 0;
	ibmr = reg_wr(wr)->mr;
	if (!ibmr || ibmr->device != qp->ibqp.device ||
	    to_sroce_mr((struct ib_mr *)ibmr)->type != SROCE_MR_FAST)
		return -EINVAL;
	return 0;
}

/* Check a kernel send WR; @len gets its total length. */
static int sroce_check_send_wr(struct sroce_qp *qp,
			       const struct ib_send_wr *wr, u32 *len)
{
	u64 total = 0;
	int i;

	if (!sroce_wr_kernel_opcode_ok(qp->type, wr->opcode) ||
	    !sroce_wr_flags_ok(wr->opcode, wr->send_flags) ||
	    wr->num_sge < 0 || wr->num_sge > SROCE_MAX_SGE)
		return -EINVAL;
	if ((wr->opcode == IB_WR_REG_MR || wr->opcode == IB_WR_LOCAL_INV) &&
	    sroce_check_local_wr(qp, wr))
		return -EINVAL;

	for (i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	if (total > SROCE_MAX_MSG_SIZE)
		return -EINVAL;

	if ((wr->send_flags & IB_SEND_INLINE) && total > SROCE_MAX_INLINE)
		return -EINVAL;
	/* IBTA 9.4.5: 8-byte operand at an 8-byte aligned address. */
	if (sroce_wr_is_atomic(wr->opcode) &&
	    (total < sizeof(u64) || (atomic_wr(wr)->remote_addr & 7)))
		return -EINVAL;
	if (sroce_qp_is_ud(qp) &&
	    (!ud_wr(wr)->ah || ud_wr(wr)->remote_qpn > SROCE_QPN_MASK))
		return -EINVAL;

	*len = total;
	return 0;
}

static void sroce_fill_reg_wqe(struct sroce_send_wqe *wqe,
			       const struct ib_reg_wr *wr)
{
	struct sroce_reg_wqe reg = {
		.mr = (uintptr_t)to_sroce_mr(wr->mr),
		.key = wr->key,
		.access = wr->access,
	};

	memcpy(wqe->wr.raw, &reg, sizeof(reg));
}

static void sroce_fill_send_remote(struct sroce_qp *qp,
				   struct sroce_send_wqe *wqe,
				   const struct ib_send_wr *wr)
{
	if (sroce_qp_is_ud(qp)) {
		wqe->wr.ud.ah_num = to_sroce_ah(ud_wr(wr)->ah)->ah_num;
		wqe->wr.ud.remote_qpn = ud_wr(wr)->remote_qpn;
		wqe->wr.ud.remote_qkey = ud_wr(wr)->remote_qkey;
		return;
	}

	switch (wr->opcode) {
	case IB_WR_REG_MR:
		sroce_fill_reg_wqe(wqe, reg_wr(wr));
		break;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		wqe->wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		wqe->wr.rdma.rkey = rdma_wr(wr)->rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		wqe->wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		wqe->wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		wqe->wr.atomic.swap = atomic_wr(wr)->swap;
		wqe->wr.atomic.rkey = atomic_wr(wr)->rkey;
		break;
	default:
		break;
	}
}

/* Gather list or inline payload; kernel SGE addresses are kernel VAs. */
static void sroce_fill_send_data(struct sroce_send_wqe *wqe,
				 const struct ib_send_wr *wr, u32 len)
{
	u8 *p = wqe->inline_data;
	int i;

	if (wr->send_flags & IB_SEND_INLINE) {
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(p, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			p += wr->sg_list[i].length;
		}
		wqe->inline_len = len;
		return;
	}

	wqe->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		wqe->sge[i].addr = wr->sg_list[i].addr;
		wqe->sge[i].length = wr->sg_list[i].length;
		wqe->sge[i].lkey = wr->sg_list[i].lkey;
	}
}

static void sroce_fill_send_wqe(struct sroce_qp *qp,
				struct sroce_send_wqe *wqe,
				const struct ib_send_wr *wr, u32 len)
{
	memset(wqe, 0, offsetof(struct sroce_send_wqe, sge));
	wqe->wr_id = wr->wr_id;
	/* Kernel and uverbs values are the same for every opcode we allow. */
	wqe->opcode = wr->opcode;
	wqe->send_flags = wr->send_flags;
	if (wr->opcode == IB_WR_SEND_WITH_INV ||
	    wr->opcode == IB_WR_LOCAL_INV)
		wqe->ex.invalidate_rkey = wr->ex.invalidate_rkey;
	else if (wr->opcode == IB_WR_SEND_WITH_IMM ||
		 wr->opcode == IB_WR_RDMA_WRITE_WITH_IMM)
		wqe->ex.imm_data = wr->ex.imm_data;
	sroce_fill_send_remote(qp, wqe, wr);
	sroce_fill_send_data(wqe, wr, len);
}

/* Producer side of a kernel ring: the next free slot, or NULL when full. */
static void *sroce_queue_producer_slot(struct sroce_queue *q)
{
	u32 prod = q->hdr->producer;

	/* Pairs with the data path's release of consumed slots. */
	if (prod - smp_load_acquire(&q->hdr->consumer) >= q->num)
		return NULL;
	return sroce_queue_slot(q, prod);
}

static void sroce_queue_produce(struct sroce_queue *q)
{
	/* Publishes the slot written before; the data path acquires. */
	smp_store_release(&q->hdr->producer, q->hdr->producer + 1);
}

static int sroce_post_one_send(struct sroce_qp *qp,
			       const struct ib_send_wr *wr)
{
	struct sroce_send_wqe *wqe;
	u32 len;
	int err;

	lockdep_assert_held(&qp->sq_lock);

	err = sroce_check_send_wr(qp, wr, &len);
	if (err)
		return err;
	wqe = sroce_queue_producer_slot(&qp->sq);
	if (!wqe)
		return -ENOMEM;
	sroce_fill_send_wqe(qp, wqe, wr, len);
	sroce_queue_produce(&qp->sq);
	return 0;
}

/*
 * After a kernel post published its producer index: does the QP flush
 * what is posted now?  Read again after the post, behind a full barrier,
 * because the QP may have moved to ERR by itself since the post checked
 * the state: sroce_qp_set_state() orders the state before the flush's
 * reads of the producer indices, this orders the producer index before
 * the read of the state, so a WQE posted across the move is flushed by
 * one side or the other (IBTA 10.3.1.7).
 */
static bool sroce_post_sees_flush(struct sroce_qp *qp)
{
	smp_mb();	/* producer index before the state */
	return sroce_qp_state_can(READ_ONCE(qp->state), SROCE_QPS_RQ_FLUSH);
}

/**
 * sroce_post_send_wrs() - post send WRs, also on a device in its fatal
 *	state (sroce_post_send() minus that check; the drain's marker)
 * @ibqp: QP
 * @wr: list of WRs for a kernel QP; NULL for a user QP, for which this is
 *	the doorbell after the provider wrote its SQ ring
 * @bad_wr: set to the first WR not posted
 *
 * WRs are checked one by one (opcode for the QP type, flags, SGE count,
 * inline size, atomic alignment, UD destination) and written to the SQ ring
 * in order; the first bad one stops the list.  Posting in RESET, INIT or
 * RTR fails; in SQE and ERR the WRs are accepted and flushed
 * (SROCE_QPS_POST_SEND, IBTA 10.3.1, 10.8.2).  Then rings the data
 * path's doorbell (sroce_dp_doorbell()), which may send the first packets
 * from the caller's context.
 * Context: any (takes qp->sq_lock with irqsave).
 * Return: 0, -EINVAL (bad WR or state), -ENOMEM (SQ full).
 */
int sroce_post_send_wrs(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			const struct ib_send_wr **bad_wr)
{
	struct sroce_qp *qp = to_sroce_qp(ibqp);
	enum ib_qp_state state = READ_ONCE(qp->state);
	unsigned long flags;
	bool posted = false;
	int err = 0;

	/* an XRC TGT QP has no send queue */
	if (!sroce_qp_state_can(state, SROCE_QPS_POST_SEND) || !qp->sq.num ||
	    (qp->is_user && wr)) {
		*bad_wr = wr;
		return -EINVAL;
	}
	if (qp->is_user) {
		sroce_dp_doorbell(qp);
		return 0;
	}

	spin_lock_irqsave(&qp->sq_lock, flags);
	/*
	 * Again under sq_lock: a move to RESET notes the SQ producer under
	 * it (sroce_dp_modify()) after setting the state, so a post is
	 * either wholly before the reset, which discards it, or refused.
	 */
	if (!sroce_qp_state_can(READ_ONCE(qp->state), SROCE_QPS_POST_SEND)) {
		err = -EINVAL;
		*bad_wr = wr;
		wr = NULL;
	}
	for (; wr; wr = wr->next) {
		err = sroce_post_one_send(qp, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
		posted = true;
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);

	/* in ERR the doorbell flushes both queues even with nothing new */
	if (posted || sroce_post_sees_flush(qp))
		sroce_dp_doorbell(qp);
	return err;
}

/*
 * Write one kernel receive WR into a kernel RQ or SRQ ring, which the
 * producer lock @lock serializes.  Return: 0, -EINVAL (more than
 * @max_sge entries, too long), -ENOMEM (ring full).
 */
static int sroce_post_one_recv(struct sroce_queue *q, spinlock_t *lock,
			       const struct ib_recv_wr *wr, u32 max_sge)
{
	struct sroce_recv_wqe *wqe;
	u64 total = 0;
	int i;

	lockdep_assert_held(lock);

	if (wr->num_sge < 0 || wr->num_sge > max_sge)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	if (total > SROCE_MAX_MSG_SIZE)
		return -EINVAL;

	wqe = sroce_queue_producer_slot(q);
	if (!wqe)
		return -ENOMEM;
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr->wr_id;
	wqe->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		wqe->sge[i].addr = wr->sg_list[i].addr;
		wqe->sge[i].length = wr->sg_list[i].length;
		wqe->sge[i].lkey = wr->sg_list[i].lkey;
	}
	sroce_queue_produce(q);
	return 0;
}

/**
 * sroce_post_recv_wrs() - post receive WRs to a kernel QP, also on a
 *	device in its fatal state (sroce_post_recv() minus that check)
 * @ibqp: QP
 * @wr: list of WRs
 * @bad_wr: set to the first WR not posted
 *
 * User QPs post receives in their mapped ring; a QP attached to an SRQ
 * has no receive queue of its own.  Posting in RESET fails; in
 * ERR the WRs are accepted and flushed (SROCE_QPS_POST_RECV, IBTA
 * 10.3.1.1, 10.3.1.7).
 * Context: any (takes qp->rq_lock with irqsave).
 * Return: 0, -EINVAL (bad WR, state, user QP, SRQ attached), -ENOMEM (RQ
 * full).
 */
int sroce_post_recv_wrs(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	struct sroce_qp *qp = to_sroce_qp(ibqp);
	enum ib_qp_state state = READ_ONCE(qp->state);
	unsigned long flags;
	int err = 0;

	/* no receive queue: an SRQ's QP, XRC QPs */
	if (qp->is_user || !qp->rq.num ||
	    !sroce_qp_state_can(state, SROCE_QPS_POST_RECV)) {
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&qp->rq_lock, flags);
	for (; wr; wr = wr->next) {
		err = sroce_post_one_recv(&qp->rq, &qp->rq_lock, wr,
					  SROCE_MAX_SGE);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	spin_unlock_irqrestore(&qp->rq_lock, flags);

	if (sroce_post_sees_flush(qp))
		sroce_qp_schedule(qp);
	return err;
}

/* ------------------------------------------------------------------ */
/* Shared receive queues                                               */
/* ------------------------------------------------------------------ */

/**
 * sroce_create_srq() - create a shared receive queue
 *	(ib_device_ops.create_srq)
 * @ibsrq: SRQ the core allocated
 * @init: basic or XRC SRQ (an XRC SRQ with its XRC domain and CQ),
 *	max_wr up to max_srq_wr, max_sge up to max_srq_sge (query_device);
 *	updated with the real capacities (sroce_srq_init())
 * @udata: user SRQs are answered with struct sroce_create_srq_resp (the
 *	ring the provider posts to without entering the kernel)
 *
 * Context: process.
 * Return: 0, -EOPNOTSUPP (tag matching SRQ), -EINVAL (over a limit, XRC SRQ
 * without XRC domain or CQ, no room for the response), -ENOMEM (also: max_srq reached), -EFAULT.
 */
int sroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata)
{
	struct sroce_dev *dev = to_sroce_dev(ibsrq->device);
	struct sroce_srq *srq = to_sroce_srq(ibsrq);
	struct sroce_create_srq_resp resp = {};
	int err;

	err = sroce_srq_check_init(init);
	if (err)
		return err;
	err = sroce_udata_ok(udata, sizeof(resp));
	if (err)
		return err;
	err = sroce_res_get(dev, SROCE_RES_SRQ);
	if (err)
		return err;

	err = sroce_srq_init(dev, srq, init, sroce_udata_uctx(udata),
			     udata ? &resp : NULL);
	if (err)
		goto err_put;
	if (udata) {
		err = ib_copy_to_udata(udata, &resp, sizeof(resp));
		if (err) {
			sroce_srq_destroy(srq);
			goto err_put;
		}
	}
	sroce_srq_publish(srq);
	return 0;

err_put:
	sroce_res_put(dev, SROCE_RES_SRQ);
	return err;
}

/**
 * sroce_modify_srq() - arm an SRQ's limit (ib_device_ops.modify_srq)
 * @ibsrq: SRQ
 * @attr: srq_limit
 * @mask: IB_SRQ_LIMIT
 * @udata: user data; we define no driver input
 *
 * Context: process.
 * Return: see sroce_srq_modify().
 */
int sroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	int err;

	err = sroce_udata_in_ok(udata);
	if (err)
		return err;
	return sroce_srq_modify(to_sroce_srq(ibsrq), attr, mask);
}

/**
 * sroce_query_srq() - attributes of an SRQ (ib_device_ops.query_srq)
 * @ibsrq: SRQ
 * @attr: filled by sroce_srq_query()
 *
 * Context: process.
 * Return: 0.
 */
int sroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	sroce_srq_query(to_sroce_srq(ibsrq), attr);
	return 0;
}

/**
 * sroce_destroy_srq() - destroy an SRQ (ib_device_ops.destroy_srq)
 * @ibsrq: SRQ; the core refuses (-EBUSY) while a QP is attached
 * @udata: user data
 *
 * Context: process.
 * Return: 0 (never fails).
 */
int sroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	sroce_srq_destroy(to_sroce_srq(ibsrq));
	sroce_res_put(to_sroce_dev(ibsrq->device), SROCE_RES_SRQ);
	return 0;
}

/**
 * sroce_post_send() - post send WRs (ib_device_ops.post_send)
 * @ibqp: QP
 * @wr: list of WRs for a kernel QP; NULL for a user QP's doorbell
 * @bad_wr: set to the first WR not posted
 *
 * As sroce_post_send_wrs(), except that a kernel QP's WRs are refused
 * while the device is in its fatal state (sroce_dev_set_fatal()), as a
 * hardware device refuses them after a fatal error: the consumer fails
 * the request at once instead of waiting for a completion that cannot
 * come.  The device's own drain (sroce_drain_sq()) still posts.
 * Context: any.
 * Return: 0, -EIO (device fatal), or as sroce_post_send_wrs().
 */
int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	if (wr && sroce_dev_is_fatal(to_sroce_dev(ibqp->device))) {
		*bad_wr = wr;
		return -EIO;
	}
	return sroce_post_send_wrs(ibqp, wr, bad_wr);
}

/**
 * sroce_post_recv() - post receive WRs to a kernel QP
 *	(ib_device_ops.post_recv)
 * @ibqp: QP
 * @wr: list of WRs
 * @bad_wr: set to the first WR not posted
 *
 * As sroce_post_recv_wrs(), except that WRs are refused while the device
 * is in its fatal state (see sroce_post_send()).
 * Context: any.
 * Return: 0, -EIO (device fatal), or as sroce_post_recv_wrs().
 */
int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	if (sroce_dev_is_fatal(to_sroce_dev(ibqp->device))) {
		*bad_wr = wr;
		return -EIO;
	}
	return sroce_post_recv_wrs(ibqp, wr, bad_wr);
}

/**
 * sroce_post_srq_recv() - post receive WRs to a kernel SRQ
 *	(ib_device_ops.post_srq_recv)
 * @ibsrq: SRQ
 * @wr: list of WRs, each with at most the SRQ's max_sge entries
 * @bad_wr: set to the first WR not posted
 *
 * User SRQs post in their mapped ring.  The WRs go into the ring in order
 * (sroce_post_one_recv(), as for an RQ); any QP attached takes them.
 * Refused while the device is in its fatal state (see sroce_post_send()).
 * Context: any (takes srq->prod_lock with irqsave).
 * Return: 0, -EINVAL (bad WR, user SRQ), -ENOMEM (max_wr WQEs posted),
 * -EIO (device fatal).
 */
int sroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	struct sroce_srq *srq = to_sroce_srq(ibsrq);
	unsigned long flags;
	int err = 0;

	if (srq->is_user) {
		*bad_wr = wr;
		return -EINVAL;
	}
	if (sroce_dev_is_fatal(to_sroce_dev(ibsrq->device))) {
		*bad_wr = wr;
		return -EIO;
	}
	spin_lock_irqsave(&srq->prod_lock, flags);
	for (; wr; wr = wr->next) {
		err = sroce_post_one_recv(&srq->rq, &srq->prod_lock, wr,
					  srq->max_sge);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	spin_unlock_irqrestore(&srq->prod_lock, flags);
	return err;
}

/* ------------------------------------------------------------------ */
/* Memory regions                                                      */
/* ------------------------------------------------------------------ */

/*
 * A zeroed MR allocated with @gfp (GFP_KERNEL_ACCOUNT for a user's MR), with
 * a device slot taken.
 * Return: the MR, or ERR_PTR(-ENOMEM) (also when max_mr is reached).
 */
static struct sroce_mr *sroce_mr_alloc(struct sroce_dev *dev, gfp_t gfp)
{
	struct sroce_mr *mr;

	if (sroce_res_get(dev, SROCE_RES_MR))
		return ERR_PTR(-ENOMEM);
	mr = kzalloc(sizeof(*mr), gfp);
	if (!mr) {
		sroce_res_put(dev, SROCE_RES_MR);
		return ERR_PTR(-ENOMEM);
	}
	return mr;
}

/* Undo sroce_mr_alloc() for an MR that was never set up. */
static void sroce_mr_free_unused(struct sroce_dev *dev, struct sroce_mr *mr)
{
	kfree(mr);
	sroce_res_put(dev, SROCE_RES_MR);
}

/**
 * sroce_get_dma_mr() - MR over all kernel memory (ib_device_ops.get_dma_mr)
 * @ibpd: PD
 * @access: IB_ACCESS_* flags
 *
 * Context: process.
 * Return: the MR, or ERR_PTR(-EINVAL/-EOPNOTSUPP/-ENOMEM).
 */
struct ib_mr *sroce_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct sroce_dev *dev = to_sroce_dev(ibpd->device);
	struct sroce_mr *mr;
	int err;

	mr = sroce_mr_alloc(dev, GFP_KERNEL);
	if (IS_ERR(mr))
		return ERR_CAST(mr);

	err = sroce_mr_init_dma(dev, mr, to_sroce_pd(ibpd), access);
	if (err) {
		sroce_mr_free_unused(dev, mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

/**
 * sroce_reg_user_mr() - register user memory (ib_device_ops.reg_user_mr)
 * @ibpd: PD
 * @start: user virtual address
 * @length: bytes
 * @iova: address of the first byte in the MR
 * @access: IB_ACCESS_* flags
 * @udata: user data; we define no driver data either way
 *
 * Context: process.
 * Return: the MR, or ERR_PTR(): see sroce_mr_init_user().
 */
struct ib_mr *sroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata)
{
	struct sroce_dev *dev = to_sroce_dev(ibpd->device);
	struct sroce_mr *mr;
	int err;

	err = sroce_udata_in_ok(udata);
	if (err)
		return ERR_PTR(err);

	mr = sroce_mr_alloc(dev, GFP_KERNEL_ACCOUNT);
	if (IS_ERR(mr))
		return ERR_CAST(mr);

	err = sroce_mr_init_user(dev, mr, to_sroce_pd(ibpd), start, length,
				 iova, access);
	if (err) {
		sroce_mr_free_unused(dev, mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

/**
 * sroce_rereg_user_mr() - re-register a user MR
 *	(ib_device_ops.rereg_user_mr)
 * @ibmr: the MR, a user MR
 * @flags: IB_MR_REREG_TRANS, _PD, _ACCESS (the core refuses others and 0)
 * @start: new user address (IB_MR_REREG_TRANS)
 * @length: new length (IB_MR_REREG_TRANS)
 * @iova: new address of the first byte in the MR (IB_MR_REREG_TRANS)
 * @access: new IB_ACCESS_* flags (IB_MR_REREG_ACCESS; the core checked
 *	them against the device)
 * @ibpd: the new PD, or the MR's own without IB_MR_REREG_PD
 * @udata: no driver data
 *
 * Deregistration followed by registration (man ibv_rereg_mr(3)): a new MR
 * is registered over the new or the same memory, with the new PD and
 * access, and takes over the old one's keys (sroce_mr_rereg_swap(): lkey
 * and rkey stay, as with mlx5 and rxe); the old MR is invalidated and the
 * core then destroys it through dereg_mr, as ibv_dereg_mr() would
 * (sroce_mr_destroy()): transfers still using it fail on their next
 * access, so none reaches memory under the old rights or translation.  On
 * failure the old MR is unchanged and valid.
 * Context: process, may sleep.
 * Return: the new MR, or ERR_PTR(): -EINVAL (not a user MR, driver input,
 * a bad range or access, see sroce_mr_init_user()), -ENOMEM (also when
 * max_mr is reached: old and new MR exist together for a moment), or the
 * error of ib_umem_get().
 */
struct ib_mr *sroce_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				  u64 length, u64 iova, int access,
				  struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct sroce_mr_reg reg = {
		.start = start, .length = length, .iova = iova, .access = access,
	};
	struct sroce_mr *old = to_sroce_mr(ibmr);
	struct sroce_dev *dev = old->dev;
	struct sroce_mr *mr;
	int err;

	err = sroce_udata_in_ok(udata);
	if (err)
		return ERR_PTR(err);
	if (old->type != SROCE_MR_USER || atomic_read(&old->num_mw))
		return ERR_PTR(-EINVAL);	/* windows bound: 10.6.7.2.6 */
	sroce_mr_rereg_attrs(old, flags, &reg);

	mr = sroce_mr_alloc(dev, GFP_KERNEL_ACCOUNT);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	err = sroce_mr_init_user(dev, mr, to_sroce_pd(ibpd), reg.start,
				 reg.length, reg.iova, reg.access);
	if (err) {
		sroce_mr_free_unused(dev, mr);
		return ERR_PTR(err);
	}
	sroce_mr_rereg_swap(old, mr);
	return &mr->ibmr;
}

/**
 * sroce_dereg_mr() - deregister an MR (ib_device_ops.dereg_mr)
 * @ibmr: MR
 * @udata: user data
 *
 * Returns once no access uses the MR any more.
 * Context: process, sleeps.
 * Return: 0, or -EINVAL while memory windows are bound to the MR (IBTA
 * 10.6.7.2.6; as rdma_rxe).
 */
int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct sroce_mr *mr = to_sroce_mr(ibmr);
	struct sroce_dev *dev = mr->dev;

	if (atomic_read(&mr->num_mw))
		return -EINVAL;
	sroce_mr_destroy(mr);
	sroce_res_put(dev, SROCE_RES_MR);
	return 0;
}

/**
 * sroce_alloc_mr() - allocate a fast-register MR (ib_device_ops.alloc_mr)
 * @ibpd: PD
 * @mr_type: IB_MR_TYPE_MEM_REG only (no SG_GAPS, no integrity)
 * @max_num_sg: most pages one registration maps
 *	(1 .. max_fast_reg_page_list_len)
 *
 * The MR is invalid until an IB_WR_REG_MR registers the page list
 * ib_map_mr_sg() built (IBTA 10.6.3.6).
 * Context: process.
 * Return: the MR, or ERR_PTR(-EINVAL) (type, @max_num_sg), -ENOMEM.
 */
struct ib_mr *sroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type mr_type,
			     u32 max_num_sg)
{
	struct sroce_dev *dev = to_sroce_dev(ibpd->device);
	struct sroce_mr *mr;
	int err;

	if (mr_type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EINVAL);
	mr = sroce_mr_alloc(dev, GFP_KERNEL);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	err = sroce_mr_init_fast(dev, mr, to_sroce_pd(ibpd), max_num_sg);
	if (err) {
		sroce_mr_free_unused(dev, mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

/**
 * sroce_map_mr_sg() - page list of a fast-register MR
 *	(ib_device_ops.map_mr_sg)
 * @ibmr: MR from sroce_alloc_mr()
 * @sg: DMA-mapped scatterlist
 * @sg_nents: entries
 * @sg_offset: offset into the first entry
 *
 * See sroce_mr_map_sg().
 * Context: any.
 * Return: entries mapped, or -EINVAL.
 */
int sroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset)
{
	return sroce_mr_map_sg(to_sroce_mr(ibmr), sg, sg_nents, sg_offset);
}
