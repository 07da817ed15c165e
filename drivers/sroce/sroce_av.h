/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_av.h - address vectors and address handles (sroce_av.c)
 */
#ifndef SROCE_AV_H
#define SROCE_AV_H

#include <linux/if_ether.h>
#include <linux/in6.h>
#include <rdma/ib_verbs.h>

struct sroce_dev;
struct sroce_pd;

/**
 * struct sroce_av - where packets of a QP or AH go (RoCEv2 only)
 * @network_type: RDMA_NETWORK_IPV4 or RDMA_NETWORK_IPV6
 * @saddr: source address (IPv4 as v4-mapped IPv6)
 * @daddr: destination address (IPv4 as v4-mapped IPv6)
 * @traffic_class: GRH traffic class: DSCP in the upper six bits
 * @hop_limit: TTL / hop limit
 * @flow_label: IPv6 flow label, also feeds the UDP source port
 * @sl: service level, maps to skb->priority and VLAN PCP
 * @dmac: destination MAC from the core (the IP stack resolves anyway)
 */
struct sroce_av {
	u8 network_type;
	struct in6_addr saddr;
	struct in6_addr daddr;
	u8 traffic_class;
	u8 hop_limit;
	u32 flow_label;
	u8 sl;
	u8 dmac[ETH_ALEN];
};

struct sroce_ah {
	struct ib_ah ibah;
	struct sroce_av av;
	u32 ah_num;		/* user AHs: index in dev->ah_xa, else 0 */
};

static inline struct sroce_ah *to_sroce_ah(struct ib_ah *ah)
{
	return container_of(ah, struct sroce_ah, ibah);
}

/* TTL / hop limit when the GRH gives 0 */
#define SROCE_DEFAULT_HOP_LIMIT	64

int sroce_av_from_attr(struct sroce_dev *dev, struct sroce_av *av,
		       const struct rdma_ah_attr *attr);

int sroce_ah_lookup_av(struct sroce_dev *dev, u32 ah_num,
		       const struct sroce_pd *pd, struct sroce_av *av);

int sroce_ah_alloc_num(struct sroce_dev *dev, struct sroce_ah *ah,
		       bool sleepable);
void sroce_ah_free_num(struct sroce_dev *dev, struct sroce_ah *ah);

#endif /* SROCE_AV_H */
