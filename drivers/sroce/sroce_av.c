// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_av.c - address vectors: where the packets of a QP or an AH go.
 *
 * A RoCEv2 address vector is the GRH (IBTA vol. 1 8.3) as RoCEv2 carries
 * it in the IP header (annex A17.4.5): source and destination addresses
 * from the SGID and DGID, traffic class, flow label, hop limit and service
 * level.  Address handles
 * are numbered in dev->ah_xa so that UD WQEs, which come from rings that
 * user space writes, name them by number and never by pointer.
 */
#include <linux/etherdevice.h>
#include <linux/xarray.h>
#include <net/ipv6.h>
#include <rdma/ib_verbs.h>
#include "sroce.h"
#include "sroce_av.h"

/**
 * sroce_av_from_attr() - fill an address vector from core AH attributes
 * @dev: device
 * @av: vector to fill
 * @attr: RoCE AH attributes with a GRH whose sgid_attr is a RoCEv2 GID of
 *	port 1 of @dev
 *
 * Source address from the SGID, destination from the DGID (rdma_gid2ip
 * semantics: a v4-mapped GID is IPv4 and is kept v4-mapped in @av); both
 * must be of the SGID's family.  Hop limit 0 becomes 64.
 *
 * Context: any.  IBTA annex A17.4.5 (GRH fields carried by IP).
 * Return: 0, or -EINVAL when the attributes do not name a RoCEv2 GID of
 * this device or the DGID is of the other IP family.
 */
int sroce_av_from_attr(struct sroce_dev *dev, struct sroce_av *av,
		       const struct rdma_ah_attr *attr)
{
	const struct ib_gid_attr *sgid_attr;
	const struct ib_global_route *grh;
	const struct in6_addr *daddr;
	enum rdma_network_type type;
	bool v4;

	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(attr);
	sgid_attr = grh->sgid_attr;
	if (!sgid_attr || sgid_attr->device != &dev->ib_dev ||
	    sgid_attr->port_num != 1 ||
	    sgid_attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;

	type = rdma_gid_attr_network_type(sgid_attr);
	daddr = (const struct in6_addr *)grh->dgid.raw;
	v4 = type == RDMA_NETWORK_IPV4;
	if (v4 != ipv6_addr_v4mapped(daddr))
		return -EINVAL;

	memset(av, 0, sizeof(*av));
	av->network_type = type;
	memcpy(&av->saddr, sgid_attr->gid.raw, sizeof(av->saddr));
	av->daddr = *daddr;
	av->traffic_class = grh->traffic_class;
	av->hop_limit = grh->hop_limit ?: SROCE_DEFAULT_HOP_LIMIT;
	av->flow_label = grh->flow_label & IB_GRH_FLOWLABEL_MASK;
	av->sl = rdma_ah_get_sl(attr);
	ether_addr_copy(av->dmac, attr->roce.dmac);
	return 0;
}

/*
 * Give the AH a number for UD WQEs.  dev->ah_xa is taken with irqsave by
 * every user: lookups copy the vector under the lock (sroce_ah_lookup_av()),
 * because the core frees the AH right after destroy_ah.
 */
int sroce_ah_alloc_num(struct sroce_dev *dev, struct sroce_ah *ah,
		       bool sleepable)
{
	struct xa_limit limit = XA_LIMIT(1, SROCE_MAX_AH);
	unsigned long flags;
	u32 num;
	int err;

	if (sleepable) {
		err = xa_alloc_cyclic_irq(&dev->ah_xa, &num, ah, limit,
					  &dev->next_ah, GFP_KERNEL);
	} else {
		xa_lock_irqsave(&dev->ah_xa, flags);
		err = __xa_alloc_cyclic(&dev->ah_xa, &num, ah, limit,
					&dev->next_ah, GFP_ATOMIC);
		xa_unlock_irqrestore(&dev->ah_xa, flags);
	}
	if (err < 0)
		return err == -EBUSY ? -ENOMEM : err;
	ah->ah_num = num;
	return 0;
}

void sroce_ah_free_num(struct sroce_dev *dev, struct sroce_ah *ah)
{
	unsigned long flags;

	xa_lock_irqsave(&dev->ah_xa, flags);
	__xa_erase(&dev->ah_xa, ah->ah_num);
	xa_unlock_irqrestore(&dev->ah_xa, flags);
}

/**
 * sroce_ah_lookup_av() - copy the address vector of an AH named by number
 * @dev: device
 * @ah_num: AH number from a UD WQE (sroce_send_wqe.wr.ud.ah_num); kernel
 *	and user AHs alike have one
 * @pd: PD of the QP that names the AH; the AH must belong to it
 * @av: where to copy the vector
 *
 * The AH may be destroyed at any time (the core frees its memory right
 * after destroy_ah): the copy is taken under the xarray lock that
 * sroce_ah_free_num() also takes, so it is safe without a reference.
 * Context: any (takes dev->ah_xa's lock with irqsave).
 * Return: 0, or -EINVAL when no AH of @pd has that number.
 */
int sroce_ah_lookup_av(struct sroce_dev *dev, u32 ah_num,
		       const struct sroce_pd *pd, struct sroce_av *av)
{
	struct sroce_ah *ah;
	unsigned long flags;
	int err = -EINVAL;

	xa_lock_irqsave(&dev->ah_xa, flags);
	ah = xa_load(&dev->ah_xa, ah_num);
	if (ah && ah->ibah.pd == &pd->ibpd) {
		*av = ah->av;
		err = 0;
	}
	xa_unlock_irqrestore(&dev->ah_xa, flags);
	return err;
}
