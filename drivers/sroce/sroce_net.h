/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_net.h - the wire below the transport: per-netns UDP 4791 sockets
 * (sroce_net_sock.c); packet allocation, IP/UDP encapsulation and
 * transmit (sroce_net.c, sroce_net_gso.c).
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
 * @max_segs: the most packets the batch may hold, at most
 *	SROCE_NET_BATCH_SEGS; set by the caller before the first packet (a
 *	batch a KUnit case zeroed has 0: SROCE_NET_BATCH_SEGS)
 * @max_len: the longest UDP payload @dst carries unfragmented, in bytes:
 *	a longer packet does not join (the MTU check of a GSO skb sees
 *	only @head's length, ip_finish_output_gso())
 *
 * Lives on the stack of one run of one QP's send side or responder, which
 * flushes it before the run ends (sroce_net_batch_flush()).  A batch the
 * network pushes back is the caller's to send again: see
 * sroce_net_batch_started().
 */
struct sroce_net_batch {
	struct sk_buff *head;
	struct sk_buff *tail;
	struct dst_entry *dst;
	const struct sroce_av *av;
	u16 segs;
	u16 max_segs;
	u16 gso_size;
	u16 next_id;
	u8 opcode;
	u32 max_len;
};

/* At most this many packets, and this many bytes of IP datagram, a batch */
#define SROCE_NET_BATCH_SEGS	32
#define SROCE_NET_BATCH_BYTES	(U16_MAX - 1024)

/**
 * sroce_net_batch_next_segs() - the bound on the next batch's packets
 * @segs: the bound on the batch just flushed, 1 to SROCE_NET_BATCH_SEGS
 * @left: the batch left (true) or the network pushed it back (false)
 *
 * A batch pushed back halves the bound, down to one packet, so a queue too
 * short for a whole batch still takes a shorter one; one that left doubles
 * it, up to SROCE_NET_BATCH_SEGS.  Both the requester and the responder
 * keep their bound this way (struct sroce_net_batch.max_segs).
 * Return: the bound on the next batch, 1 to SROCE_NET_BATCH_SEGS.
 */
static inline u16 sroce_net_batch_next_segs(u16 segs, bool left)
{
	return left ? min_t(u16, 2 * segs, SROCE_NET_BATCH_SEGS) :
		      max_t(u16, segs / 2, 1);
}

/* The most packets @b may hold (struct sroce_net_batch.max_segs) */
static inline u16 sroce_net_batch_max_segs(const struct sroce_net_batch *b)
{
	return b->max_segs && b->max_segs < SROCE_NET_BATCH_SEGS ?
	       b->max_segs : SROCE_NET_BATCH_SEGS;
}

/**
 * sroce_net_batch_started() - did the packet just given to
 *	sroce_net_xmit_batch() start a new batch?
 * @b: the batch, or NULL
 *
 * A caller that must send a pushed-back batch again marks its position
 * before each packet and keeps the mark when this says the packet heads
 * @b: when the flush is refused (-EAGAIN from sroce_net_batch_flush(), or
 * from sroce_net_xmit_batch() while @b held packets), everything from the
 * mark on did not leave.
 * Context: any.
 * Return: true when @b holds exactly that one packet.
 */
static inline bool sroce_net_batch_started(const struct sroce_net_batch *b)
{
	return b && b->head && b->segs == 1;
}

int sroce_net_xmit_batch(struct sroce_dev *dev, struct sroce_qp *qp,
			 const struct sroce_av *av, struct sk_buff *skb,
			 struct sroce_net_batch *b);
int sroce_net_batch_flush(struct sroce_dev *dev, struct sroce_net_batch *b);

/* sroce_net_gso.c: the batch's skb; no route, no device (KUnit-visible) */
bool sroce_net_batch_room(const struct sroce_net_batch *b, unsigned int len);
void sroce_net_batch_start(struct sroce_net_batch *b, struct sk_buff *skb);
void sroce_net_batch_add(struct sroce_net_batch *b, struct sk_buff *skb);
struct sk_buff *sroce_net_batch_take(struct sroce_net_batch *b);
#if IS_ENABLED(CONFIG_SROCE_KUNIT_TEST)
int sroce_net_kunit_batch_put(struct sroce_dev *dev, const struct sroce_av *av,
			      struct sk_buff *skb, struct sroce_net_batch *b);
int sroce_net_kunit_batch_flush(struct sroce_dev *dev,
				struct sroce_net_batch *b);
#endif

/* ---- sroce_net_sock.c ---- */
/* The device of a received packet (sroce_recv.c); RCU held. */
struct sroce_dev *sroce_net_rx_dev(struct sock *sk, const struct sk_buff *skb);
bool sroce_net_ndev_has_addr(struct net_device *ndev, bool ipv4,
			     __be32 a4, const struct in6_addr *a6);

#endif /* SROCE_NET_H */
