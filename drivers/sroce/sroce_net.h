/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_net.h - wire path internals exposed to KUnit.  The main entry points
 * (attach/detach, alloc_skb, xmit, sroce_av_from_attr) are declared in
 * sroce.h; ECN marking and priority come from sroce_cc.h.
 */
#ifndef SROCE_NET_H
#define SROCE_NET_H

#include <linux/types.h>

struct sroce_dev;
struct sroce_qp;

#if IS_ENABLED(CONFIG_KUNIT)
#include <linux/skbuff.h>
#include "sroce.h"

/* Receive validation, static unless KUnit tests it (sroce_rx suite). */
int sroce_net_check(struct sroce_dev *dev, struct sk_buff *skb,
		    enum sroce_counter *drop);
#endif

#endif /* SROCE_NET_H */
