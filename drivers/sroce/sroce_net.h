/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_net.h - the wire below the transport (sroce_net.c): per-netns UDP
 * 4791 sockets, packet allocation, IP/UDP encapsulation and transmit.
 * ECN marking and priority come from sroce_cc.h.
 */
#ifndef SROCE_NET_H
#define SROCE_NET_H

#include <linux/skbuff.h>
#include <linux/types.h>

#include "sroce.h"
#include "sroce_av.h"

struct sock;
struct sroce_qp;

int sroce_net_init(void);
void sroce_net_exit(void);

int sroce_net_attach(struct sroce_dev *dev);
void sroce_net_detach(struct sroce_dev *dev);

struct sk_buff *sroce_net_alloc_skb(struct sroce_dev *dev,
				    const struct sroce_av *av, u32 hdr_len,
				    u32 payload, struct sroce_pkt_info *pkt);
struct sk_buff *sroce_net_alloc_skb_paged(struct sroce_dev *dev,
					  const struct sroce_av *av,
					  u32 hdr_len, u32 payload,
					  struct sroce_pkt_info *pkt);
int sroce_net_put_trailer(struct sk_buff *skb, u32 payload);

int sroce_net_xmit(struct sroce_dev *dev, struct sroce_qp *qp,
		   const struct sroce_av *av, struct sk_buff *skb);

/* The device of a received packet (sroce_recv.c); RCU held. */
struct sroce_dev *sroce_net_rx_dev(struct sock *sk, const struct sk_buff *skb);

#endif /* SROCE_NET_H */
