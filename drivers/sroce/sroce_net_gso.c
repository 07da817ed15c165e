// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_net_gso.c - a run's request packets sent as one skb: UDP GSO with
 * a fraglist (SKB_GSO_UDP_L4 | SKB_GSO_FRAGLIST), the form UDP fraglist
 * GRO gives a forwarded flow (Linux commit 9fd1ff5d2ac7).
 *
 * Each packet is built and encapsulated whole first, with its own IPv4 and
 * UDP headers and its own ICRC, exactly as if it were sent alone.  The
 * first one is the batch's head; the others hang on its frag_list, pulled
 * to their BTH (their headers stay in their headroom).  The IP stack then
 * routes, filters, queues and hands over the head once for the whole
 * batch.  Where the batch is cut up again:
 *   - by the sending netdev when it cannot carry such an skb
 *     (validate_xmit_skb(): a NIC without NETIF_F_FRAGLIST), or
 *   - by the receiving UDP socket (udp_queue_rcv_skb(): an encapsulation
 *     socket, sroce's or rdma_rxe's, takes no GSO skb; so after a veth),
 * skb_segment_list() gives every packet back its own headers, and
 * inet_gso_segment() numbers the IPv4 IDs on from the head's and sets
 * each total length.  The packets' IDs are therefore consecutive from the
 * start, and the ICRC, which covers both fields, holds: the wire carries
 * the very packets an unbatched send would.
 */

#include <kunit/visibility.h>
#include <linux/ip.h>
#include <linux/skbuff.h>
#include <linux/udp.h>

#include "sroce_net.h"

/**
 * sroce_net_batch_room() - may a packet join the batch?
 * @b: batch
 * @len: the packet's UDP payload, BTH to ICRC, in bytes
 *
 * The head's IPv4 total length covers the batch: it must stay below
 * 64 KiB; and @b->max_segs packets at most.
 * Context: any.
 * Return: true when @b has a head and room for the packet.
 */
bool sroce_net_batch_room(const struct sroce_net_batch *b, unsigned int len)
{
	return b->head && b->segs < sroce_net_batch_max_segs(b) &&
	       b->head->len + len <= SROCE_NET_BATCH_BYTES;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_net_batch_room);

/**
 * sroce_net_batch_start() - make an encapsulated packet a batch's head
 * @b: an empty batch; @b->dst, @b->av and @b->opcode are the caller's
 * @skb: the packet, skb->data at its IPv4 header, ICRC written
 *
 * Context: any.
 */
void sroce_net_batch_start(struct sroce_net_batch *b, struct sk_buff *skb)
{
	b->head = skb;
	b->tail = skb;
	b->segs = 1;
	b->gso_size = skb->len - skb_transport_offset(skb) -
		      sizeof(struct udphdr);
	b->next_id = ntohs(ip_hdr(skb)->id) + 1;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_net_batch_start);

/**
 * sroce_net_batch_add() - append an encapsulated packet to a batch
 * @b: a batch with a head and room (sroce_net_batch_room())
 * @skb: the packet, skb->data at its IPv4 header (ID @b->next_id), ICRC
 *	written
 *
 * @skb's destructor runs now (skb_orphan()): the head's stands for the
 * whole batch.  A packet on a frag_list must have none, as those of UDP
 * fraglist GRO have none: skb_segment_list() runs a segment's destructor
 * without clearing it, and freeing the segment would run it again.
 *
 * Context: any.
 */
void sroce_net_batch_add(struct sroce_net_batch *b, struct sk_buff *skb)
{
	struct sk_buff *head = b->head;

	skb_orphan(skb);
	__skb_pull(skb, skb_transport_offset(skb) + sizeof(struct udphdr));
	if (b->tail == head)
		skb_shinfo(head)->frag_list = skb;
	else
		b->tail->next = skb;
	b->tail = skb;
	head->len += skb->len;
	head->data_len += skb->len;
	head->truesize += skb->truesize;
	b->segs++;
	b->next_id++;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_net_batch_add);

/**
 * sroce_net_batch_take() - end a batch: its head, marked GSO when it
 *	carries more than one packet
 * @b: batch; left empty (its route goes with the caller)
 *
 * The head's UDP length then covers the batch, as after UDP GRO; the
 * segmentation sets it back to the head's own (8 + gso_size) and leaves
 * the other packets' own ones.  The IP stack sets the total length.  Its
 * checksum state is CHECKSUM_UNNECESSARY, as after UDP fraglist GRO: on
 * output the same as CHECKSUM_NONE (the UDP checksum stays 0, the ICRC
 * covers the packet), but a GSO skb with CHECKSUM_NONE is segmented by
 * every netdev, even one that carries it whole (veth, lo), and warned
 * about (validate_xmit_skb(), skb_warn_bad_offload()).
 * Context: any.
 * Return: the head, or NULL when @b was empty.
 */
struct sk_buff *sroce_net_batch_take(struct sroce_net_batch *b)
{
	struct sk_buff *head = b->head;
	struct skb_shared_info *sh;

	if (!head)
		return NULL;
	b->head = NULL;
	b->tail = NULL;
	if (b->segs > 1) {
		sh = skb_shinfo(head);
		udp_hdr(head)->len = htons(head->len -
					   skb_transport_offset(head));
		sh->gso_size = b->gso_size;
		sh->gso_type = SKB_GSO_UDP_L4 | SKB_GSO_FRAGLIST;
		sh->gso_segs = b->segs;
		head->ip_summed = CHECKSUM_UNNECESSARY;
	}
	return head;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_net_batch_take);

#if IS_ENABLED(CONFIG_SROCE_KUNIT_TEST)
/**
 * sroce_net_kunit_batch_flush() - the engine suites' batch leaves
 * @dev: device with kunit_xmit and kunit_batch set
 * @b: batch of sroce_net_kunit_batch_put(); left empty
 *
 * The packets go to dev->kunit_xmit in order.  Its answer to the first is
 * the batch's: when it pushes that one back, the others are freed unsent,
 * as the IP stack frees a GSO skb its qdisc dropped; the others go with
 * dev->kunit_batch_rest set.
 * Context: as sroce_net_batch_flush().
 * Return: 0, or -EAGAIN when the batch was pushed back.
 */
int sroce_net_kunit_batch_flush(struct sroce_dev *dev,
				struct sroce_net_batch *b)
{
	struct sk_buff *skb = b->head, *next;
	int err = 0;
	bool first = true;

	b->head = NULL;
	b->tail = NULL;
	for (; skb; skb = next, first = false) {
		next = skb->next;
		skb->next = NULL;
		if (err) {
			kfree_skb(skb);
			continue;
		}
		dev->kunit_batch_rest = !first;
		if (sroce_net_xmit(dev, NULL, b->av, skb) == -EAGAIN && first)
			err = -EAGAIN;
	}
	dev->kunit_batch_rest = false;
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_net_kunit_batch_flush);

/**
 * sroce_net_kunit_batch_put() - sroce_net_xmit_batch() for the engine
 *	suites (dev->kunit_batch): @skb waits on @b, as it is (BTH at
 *	skb->data), until the flush
 * @dev: device with kunit_xmit set
 * @av: destination
 * @skb: packet
 * @b: batch: @b->max_segs packets at most, the bytes not counted
 *
 * Context: as sroce_net_xmit_batch().
 * Return: 0, or -EAGAIN when the flush for room was pushed back (@skb
 * freed).
 */
int sroce_net_kunit_batch_put(struct sroce_dev *dev, const struct sroce_av *av,
			      struct sk_buff *skb, struct sroce_net_batch *b)
{
	skb->next = NULL;
	if (b->head && b->segs < sroce_net_batch_max_segs(b)) {
		b->tail->next = skb;
		b->tail = skb;
		b->segs++;
		return 0;
	}
	if (sroce_net_kunit_batch_flush(dev, b)) {
		kfree_skb(skb);
		return -EAGAIN;
	}
	b->head = skb;
	b->tail = skb;
	b->segs = 1;
	b->av = av;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_net_kunit_batch_put);
#endif
