/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_net.h - hooks of the wire path (sroce_net.c) that other parts of
 * the driver may tune.  The main entry points (attach/detach, alloc_skb,
 * xmit, sroce_av_from_attr) are declared in sroce.h.
 */
#ifndef SROCE_NET_H
#define SROCE_NET_H

#include <linux/types.h>

struct sroce_dev;
struct sroce_qp;

/**
 * sroce_net_ecn_bits() - ECN codepoint to put in an outgoing packet
 * @dev: device
 * @qp: source QP, or NULL
 * @opcode: BTH opcode of the packet (SROCE_CNP_OPCODE for a CNP)
 *
 * The low two bits of the IPv4 TOS / IPv6 traffic class; the upper six
 * (DSCP) come from the address vector's traffic class.  For now every
 * packet is ECT(0), so that switches mark CE instead of dropping; the
 * congestion control code may make it configurable.
 *
 * Context: any.
 * Return: an INET_ECN_* value (0..3).
 */
u8 sroce_net_ecn_bits(struct sroce_dev *dev, struct sroce_qp *qp, u8 opcode);

#if IS_ENABLED(CONFIG_KUNIT)
#include <linux/skbuff.h>
#include "sroce.h"

/* Receive validation, static unless KUnit tests it (sroce_rx suite). */
int sroce_net_check(struct sroce_dev *dev, struct sk_buff *skb,
		    enum sroce_counter *drop);
#endif

#endif /* SROCE_NET_H */
