/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_recv.h - the receive path (sroce_recv.c): the encap_rcv callback
 * sroce_net.c installs on its UDP 4791 sockets, and the checks KUnit
 * tests.
 */
#ifndef SROCE_RECV_H
#define SROCE_RECV_H

#include <linux/types.h>

#include "sroce.h"

struct sk_buff;
struct sock;

int sroce_udp_encap_rcv(struct sock *sk, struct sk_buff *skb);

#if IS_ENABLED(CONFIG_KUNIT)
/* Static unless KUnit tests them (suite sroce_rx). */
int sroce_recv_check(struct sroce_dev *dev, struct sk_buff *skb,
		     enum sroce_counter *drop);
#endif

#endif /* SROCE_RECV_H */
