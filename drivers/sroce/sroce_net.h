/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_net.h - what sroce_net.c offers the receive path (sroce_recv.c).
 * Its other entry points (attach/detach, alloc_skb, xmit,
 * sroce_av_from_attr) are declared in sroce.h; ECN marking and priority
 * come from sroce_cc.h.
 */
#ifndef SROCE_NET_H
#define SROCE_NET_H

struct sk_buff;
struct sock;
struct sroce_dev;

struct sroce_dev *sroce_net_rx_dev(struct sock *sk, const struct sk_buff *skb);

#endif /* SROCE_NET_H */
