/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_recv.h - the receive path (sroce_recv.c): the encap_rcv callback
 * sroce_net_sock.c installs on its UDP 4791 sockets, and the checks KUnit
 * tests.
 */
#ifndef SROCE_RECV_H
#define SROCE_RECV_H

#include <linux/in6.h>
#include <linux/types.h>

#include "sroce.h"

struct sk_buff;
struct sock;
struct sroce_qp;

int sroce_udp_encap_rcv(struct sock *sk, struct sk_buff *skb);
void sroce_recv_skb(struct sroce_dev *dev, struct sk_buff *skb);
void sroce_recv_skb_local(struct sroce_dev *dev, struct sk_buff *skb);
void sroce_recv_ip_addrs(const struct sk_buff *skb, u8 network_type,
			 struct in6_addr *saddr, struct in6_addr *daddr);
bool sroce_recv_qp_check(struct sroce_qp *qp, const struct sk_buff *skb,
			 enum sroce_counter *drop);
void sroce_rcv(struct sk_buff *skb);

#if IS_ENABLED(CONFIG_KUNIT)
/* Static unless KUnit tests them (sroce_rx, sroce_rx_addr, the engines). */
int sroce_recv_check(struct sroce_dev *dev, struct sk_buff *skb, bool local,
		     enum sroce_counter *drop);
bool sroce_recv_addr_ok(enum ib_qp_type type, const struct sroce_av *path,
			const struct in6_addr *saddr,
			const struct in6_addr *daddr);
#endif

#endif /* SROCE_RECV_H */
