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

/**
 * struct sroce_net_batch - a run's request packets on their way out as one
 *	skb (sroce_net_gso.c)
 * @head: the first packet, encapsulated, or NULL while the batch is empty
 * @tail: the last packet on @head's frag_list (@head while it is alone)
 * @dst: @head's route; the flush gives its reference to @head
 * @av: the packets' destination (the QP's: valid for the run)
 * @segs: packets in the batch
 * @gso_size: @head's UDP payload, BTH to ICRC, in bytes
 * @next_id: the IPv4 ID of the next packet (consecutive from @head's)
 * @opcode: @head's BTH opcode (the skb's priority)
 *
 * Lives on the stack of one run of one QP's send side, which flushes it
 * before the run ends (sroce_net_batch_flush()).
 */
struct sroce_net_batch {
	struct sk_buff *head;
	struct sk_buff *tail;
	struct dst_entry *dst;
	const struct sroce_av *av;
	u16 segs;
	u16 gso_size;
	u16 next_id;
	u8 opcode;
};

int sroce_net_xmit_batch(struct sroce_dev *dev, struct sroce_qp *qp,
			 const struct sroce_av *av, struct sk_buff *skb,
			 struct sroce_net_batch *b);
int sroce_net_batch_flush(struct sroce_dev *dev, struct sroce_net_batch *b);

/* sroce_net_gso.c: the batch's skb; no route, no device (KUnit-visible) */
bool sroce_net_batch_room(const struct sroce_net_batch *b, unsigned int len);
void sroce_net_batch_start(struct sroce_net_batch *b, struct sk_buff *skb);
void sroce_net_batch_add(struct sroce_net_batch *b, struct sk_buff *skb);
struct sk_buff *sroce_net_batch_take(struct sroce_net_batch *b);

/* The device of a received packet (sroce_recv.c); RCU held. */
struct sroce_dev *sroce_net_rx_dev(struct sock *sk, const struct sk_buff *skb);

#endif /* SROCE_NET_H */
