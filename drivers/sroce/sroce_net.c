// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_net.c - RoCEv2 encapsulation (IBTA vol. 1 annex A17): packet
 * allocation, IP/UDP encapsulation and ICRC, the route and its cache per
 * QP, and transmission: to the IP stack (one skb per packet, or a run's
 * packets as one, sroce_net_gso.c) or, for an address of the device's own
 * netdev, straight to its receive path.  The UDP 4791 sockets a received
 * packet comes in on, and the devices attached to them, are
 * sroce_net_sock.c's.
 */

#include <linux/etherdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/moduleparam.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/net_namespace.h>
#include <net/route.h>
#include <rdma/ib_addr.h>
#include <kunit/visibility.h>

#include "sroce.h"
#include "sroce_av.h"
#include "sroce_mr.h"
#include "sroce_qp.h"
#include "sroce_net.h"
#include "sroce_recv.h"

/*
 * Loopback: a packet to an address of the device's own netdev (both QPs
 * on this device) goes straight to the device's receive path instead of
 * through the IP stack, lo and the UDP socket (sroce_net_loop_xmit()).
 */
static bool sroce_net_loopback = true;
module_param_named(loopback, sroce_net_loopback, bool, 0644);
MODULE_PARM_DESC(loopback,
		 "Hand packets to an address of the device's own netdev straight to its receive path (default: on)");

/*
 * Batches: a run's packets go to the IP stack as one skb (sroce_net_gso.c).
 * tc and netfilter then see one skb per batch, with the first packet's
 * headers; off, they see every packet (per-packet filters, netem).
 */
static bool sroce_net_batch_on = true;
module_param_named(batch, sroce_net_batch_on, bool, 0644);
MODULE_PARM_DESC(batch,
		 "Send a run's packets to the IP stack as one GSO skb; off: one skb per packet, for per-packet tc/netfilter rules (default: on)");

/* Headroom for the IP and UDP headers sroce builds itself. */
#define SROCE_ENCAP_MAX		(sizeof(struct ipv6hdr) + sizeof(struct udphdr))

/* ------------------------------------------------------------------ */
/* Transmit                                                            */
/* ------------------------------------------------------------------ */

static unsigned int sroce_net_iphdr_len(u8 network_type)
{
	return network_type == RDMA_NETWORK_IPV4 ? sizeof(struct iphdr) :
						   sizeof(struct ipv6hdr);
}

/* The packet of sroce_net_alloc_skb(); @paged: headers only, linear. */
static struct sk_buff *sroce_net_alloc(struct sroce_dev *dev,
				       const struct sroce_av *av, u32 hdr_len,
				       u32 payload, bool paged,
				       struct sroce_pkt_info *pkt)
{
	unsigned int iplen = sroce_net_iphdr_len(av->network_type);
	unsigned int headroom;
	struct sk_buff *skb;
	u32 pad = -payload & 3;
	u32 len;

	if (av->network_type != RDMA_NETWORK_IPV4 &&
	    av->network_type != RDMA_NETWORK_IPV6)
		return NULL;
	/* the UDP and IPv4 length fields are 16 bits */
	if (hdr_len > U16_MAX || payload > U16_MAX)
		return NULL;
	len = hdr_len + payload + pad + SROCE_ICRC_SIZE;
	if (len > U16_MAX - iplen - sizeof(struct udphdr))
		return NULL;

	/*
	 * As much as sroce_net_prepare_skb() asks for, IPv4 too: less made
	 * skb_cow_head() reallocate and copy every IPv4 packet.
	 */
	headroom = LL_RESERVED_SPACE(dev->ndev) + SROCE_ENCAP_MAX;
	skb = alloc_skb(headroom + (paged ? hdr_len : len), GFP_ATOMIC);
	if (unlikely(!skb))
		return NULL;
	skb_reserve(skb, headroom);
	pkt->hdr = skb_put(skb, paged ? hdr_len : len);
	memset(pkt->hdr, 0, hdr_len);
	if (!paged)
		memset(pkt->hdr + hdr_len + payload, 0,
		       pad + SROCE_ICRC_SIZE);
	pkt->paylen = len;
	pkt->network_type = av->network_type;
	pkt->port_num = 1;

	skb->dev = dev->ndev;
	skb->protocol = av->network_type == RDMA_NETWORK_IPV4 ?
			htons(ETH_P_IP) : htons(ETH_P_IPV6);
	return skb;
}

/**
 * sroce_net_alloc_skb() - allocate a packet for a QP or AH path
 * @dev: device
 * @av: destination (selects IPv4 or IPv6)
 * @hdr_len: bytes of BTH + extended headers
 * @payload: payload bytes; the caller puts (-@payload & 3) in the BTH
 *	PadCnt, and sroce adds those pad bytes and the ICRC
 * @pkt: metadata to fill: @pkt->hdr (the BTH), @pkt->paylen (@hdr_len +
 *	@payload + pad + ICRC), @pkt->network_type, @pkt->port_num
 *
 * The skb is linear, its headroom fits link, IP and UDP headers, and its
 * headers, pad and ICRC slot are zeroed; skb->data is at the BTH.
 *
 * Context: any (GFP_ATOMIC).
 * Return: the skb, or NULL on allocation failure or a too large packet.
 */
struct sk_buff *sroce_net_alloc_skb(struct sroce_dev *dev,
				    const struct sroce_av *av, u32 hdr_len,
				    u32 payload, struct sroce_pkt_info *pkt)
{
	return sroce_net_alloc(dev, av, hdr_len, payload, false, pkt);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_net_alloc_skb);

/**
 * sroce_net_alloc_skb_paged() - allocate a packet whose payload is attached
 *	later as page fragments (zero-copy send)
 * @dev: device
 * @av: destination (selects IPv4 or IPv6)
 * @hdr_len: bytes of BTH + extended headers
 * @payload: payload bytes the caller attaches (sroce_sge_frags()) before
 *	sroce_net_put_trailer() adds the pad and the ICRC slot
 * @pkt: metadata to fill, as sroce_net_alloc_skb() does; @pkt->paylen
 *	already counts payload, pad and ICRC
 *
 * The linear part holds the zeroed headers only: skb->len is @hdr_len
 * until the fragments are attached.
 * Context: any (GFP_ATOMIC).
 * Return: the skb, or NULL on allocation failure or a too large packet.
 */
struct sk_buff *sroce_net_alloc_skb_paged(struct sroce_dev *dev,
					  const struct sroce_av *av,
					  u32 hdr_len, u32 payload,
					  struct sroce_pkt_info *pkt)
{
	return sroce_net_alloc(dev, av, hdr_len, payload, true, pkt);
}

/**
 * sroce_net_put_trailer() - end a paged packet with its pad and ICRC slot
 * @skb: packet from sroce_net_alloc_skb_paged() with its payload attached
 * @payload: payload bytes (the pad is -@payload & 3 bytes)
 *
 * The pad and the ICRC slot go into a zeroed fragment of their own, which
 * sroce_net_xmit() may write (the payload fragments are the MR's pages).
 * Context: any.
 * Return: 0, -ENOMEM, or -E2BIG when @skb has no fragment left.
 */
int sroce_net_put_trailer(struct sk_buff *skb, u32 payload)
{
	u32 size = (-payload & 3) + SROCE_ICRC_SIZE;
	int i = skb_shinfo(skb)->nr_frags;
	struct page *page;
	void *data;

	if (i >= MAX_SKB_FRAGS)
		return -E2BIG;
	data = netdev_alloc_frag(size);
	if (unlikely(!data))
		return -ENOMEM;
	memset(data, 0, size);
	page = virt_to_head_page(data);
	skb_fill_page_desc(skb, i, page, data - page_address(page), size);
	skb->len += size;
	skb->data_len += size;
	skb->truesize += size;
	return 0;
}

static struct dst_entry *sroce_net_route4(struct net *net,
					  struct sroce_dev *dev,
					  const struct sroce_av *av, u8 tos)
{
	struct flowi4 fl4 = {
		.flowi4_oif = dev->ndev->ifindex,
		.flowi4_tos = RT_TOS(tos),
		.flowi4_proto = IPPROTO_UDP,
		.saddr = av->saddr.s6_addr32[3],
		.daddr = av->daddr.s6_addr32[3],
	};
	struct rtable *rt;

	rt = ip_route_output_key(net, &fl4);
	if (IS_ERR(rt))
		return ERR_CAST(rt);
	return &rt->dst;
}

static struct dst_entry *sroce_net_route6(struct net *net,
					  struct sroce_dev *dev,
					  const struct sroce_av *av, u8 tclass)
{
	struct flowi6 fl6 = {
		.flowi6_oif = dev->ndev->ifindex,
		.flowi6_proto = IPPROTO_UDP,
		.flowlabel = ip6_make_flowinfo(tclass,
					       cpu_to_be32(av->flow_label &
							   IB_GRH_FLOWLABEL_MASK)),
		.saddr = av->saddr,
		.daddr = av->daddr,
	};
	struct dst_entry *dst;

	dst = ipv6_stub->ipv6_dst_lookup_flow(net, NULL, &fl6, NULL);
	if (IS_ERR(dst))
		return dst;
	if (unlikely(dst->error)) {
		int err = dst->error;

		dst_release(dst);
		return ERR_PTR(err);
	}
	return dst;
}

/*
 * Route in the netdev's namespace with the netdev as output interface,
 * like rdma_rxe (a local destination routes through loopback).
 */
static struct dst_entry *sroce_net_route(struct sroce_dev *dev,
					 const struct sroce_av *av, u8 tos)
{
	struct net *net = dev_net(dev->ndev);

	if (av->network_type == RDMA_NETWORK_IPV4)
		return sroce_net_route4(net, dev, av, tos);
	return sroce_net_route6(net, dev, av, tos);
}

/* Keep @dst (the cache takes its own reference) for @av's source. */
static void sroce_net_cache_set(struct dst_cache *cache,
				struct dst_entry *dst, const struct sroce_av *av)
{
	if (av->network_type == RDMA_NETWORK_IPV4) {
		dst_cache_set_ip4(cache, dst, av->saddr.s6_addr32[3]);
		return;
	}
#if IS_ENABLED(CONFIG_IPV6)
	dst_cache_set_ip6(cache, dst, &av->saddr);
#endif
}

/*
 * Is @av the connected path of @qp (RC/UC requests and their responses),
 * whose route the QP caches?  UD paths change per WQE and CNPs go out at
 * their own DSCP: they are looked up every time.
 */
static bool sroce_net_qp_path(struct sroce_qp *qp,
			      const struct sroce_av *av, u8 opcode)
{
	struct in6_addr saddr, daddr;

	if (!qp || !sroce_qpt_connected(qp->type) ||
	    opcode == IB_OPCODE_CNP)
		return false;
	sroce_qp_path_addrs(qp, &saddr, &daddr);
	return ipv6_addr_equal(&daddr, &av->daddr) &&
	       ipv6_addr_equal(&saddr, &av->saddr);
}

/*
 * The route of a packet: from the QP's per-CPU dst_cache when @av is its
 * connected path (stale entries fail dst_check() after a route change,
 * modify_qp resets the cache when the path changes), else looked up.
 * Return: a dst with a reference for the skb, or an ERR_PTR().
 */
static struct dst_entry *sroce_net_route_qp(struct sroce_dev *dev,
					    struct sroce_qp *qp,
					    const struct sroce_av *av,
					    u8 tos, u8 opcode)
{
	struct dst_entry *dst;

	if (!sroce_net_qp_path(qp, av, opcode))
		return sroce_net_route(dev, av, tos);

	local_bh_disable();	/* the cache is per CPU */
	if (unlikely(READ_ONCE(qp->dst_tos) != tos)) {
		dst_cache_reset(&qp->dst_cache);
		WRITE_ONCE(qp->dst_tos, tos);
	}
	dst = dst_cache_get(&qp->dst_cache);
	if (!dst) {
		dst = sroce_net_route(dev, av, tos);
		if (!IS_ERR(dst))
			sroce_net_cache_set(&qp->dst_cache, dst, av);
	}
	local_bh_enable();
	return dst;
}

static void sroce_net_push_udp(struct sk_buff *skb, u16 sport)
{
	struct udphdr *udph;

	udph = skb_push(skb, sizeof(*udph));
	skb_reset_transport_header(skb);
	udph->source = htons(sport);
	udph->dest = htons(SROCE_UDP_PORT);
	udph->len = htons(skb->len);
	/* zero over IPv4 and, as rdma_rxe does, over IPv6: the ICRC covers */
	udph->check = 0;
}

/*
 * @id: the IPv4 ID, or -n to choose one and reserve n in a row from
 * ip_select_ident()'s buckets (a batch's head: its packets number on)
 */
static void sroce_net_push_ip4(struct net *net, struct sk_buff *skb,
			       const struct sroce_av *av, u8 tos, int id)
{
	struct iphdr *iph;

	iph = skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph->version = 4;
	iph->ihl = sizeof(*iph) / 4;
	iph->tos = tos;
	iph->tot_len = htons(skb->len);
	iph->frag_off = htons(IP_DF);
	iph->ttl = av->hop_limit ?: SROCE_DEFAULT_HOP_LIMIT;
	iph->protocol = IPPROTO_UDP;
	iph->check = 0;
	iph->saddr = av->saddr.s6_addr32[3];
	iph->daddr = av->daddr.s6_addr32[3];
	/* the ID is covered by the ICRC: choose it before computing that */
	if (id < 0)
		__ip_select_ident(net, iph, -id);
	else
		iph->id = htons(id);
	/* ip_local_out() computes it again for a batch's head */
	ip_send_check(iph);
}

static void sroce_net_push_ip6(struct sk_buff *skb, const struct sroce_av *av,
			       u8 tclass)
{
	struct ipv6hdr *ip6h;

	ip6h = skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6_flow_hdr(ip6h, tclass,
		     cpu_to_be32(av->flow_label & IB_GRH_FLOWLABEL_MASK));
	ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = av->hop_limit ?: SROCE_DEFAULT_HOP_LIMIT;
	ip6h->saddr = av->saddr;
	ip6h->daddr = av->daddr;
}

/* Make the whole packet private and leave room for IP and UDP headers. */
static struct sk_buff *sroce_net_prepare_skb(struct sroce_dev *dev,
					     struct sk_buff *skb)
{
	if (skb_cloned(skb)) {
		/* the ICRC slot is written, so the data must be ours */
		skb = skb_unshare(skb, GFP_ATOMIC);
		if (!skb)
			return NULL;
	}
	if (skb_cow_head(skb, LL_RESERVED_SPACE(dev->ndev) + SROCE_ENCAP_MAX)) {
		kfree_skb(skb);
		return NULL;
	}
	return skb;
}

/*
 * What ip_local_out() returned, as net_xmit_eval() reads it: NET_XMIT_CN
 * means the packet was queued (the qdisc is congested, and may have
 * dropped others), so it counts as sent, and as backpressure; only
 * NET_XMIT_DROP and errors mean it was not sent.  Sending it again
 * would put its PSN on the wire twice, and UD and UC would deliver the
 * message twice.
 */
static int sroce_net_xmit_result(struct sroce_dev *dev, int err)
{
	switch (err) {
	case NET_XMIT_CN:
		sroce_counter_inc(dev, SROCE_CNT_TX_BACKPRESSURE);
		fallthrough;
	case NET_XMIT_SUCCESS:
		sroce_counter_inc(dev, SROCE_CNT_SENT_PKTS);
		return 0;
	case NET_XMIT_DROP:
	case -ENOBUFS:
		sroce_counter_inc(dev, SROCE_CNT_TX_BACKPRESSURE);
		return -EAGAIN;
	default:
		return err < 0 ? err : -EIO;
	}
}

/*
 * Is @av's destination an address of @dev's own netdev, to be delivered
 * by sroce_net_loop_xmit()?  Not with loopback off, with the netdev down
 * (the IP stack refuses that route: the same error either way), or with
 * IRQs off (the receive path needs them on; so does a hard IRQ caller).
 */
static bool sroce_net_loop_ok(struct sroce_dev *dev, const struct sroce_av *av)
{
	bool ok;

	if (!READ_ONCE(sroce_net_loopback) || !netif_running(dev->ndev) ||
	    in_hardirq() || irqs_disabled())
		return false;
	rcu_read_lock();
	ok = sroce_net_ndev_has_addr(dev->ndev,
				     av->network_type == RDMA_NETWORK_IPV4,
				     av->daddr.s6_addr32[3], &av->daddr);
	rcu_read_unlock();
	return ok;
}

/*
 * Deliver an encapsulated packet to @dev's own receive path as the UDP
 * tunnel would hand it over: skb->data at the UDP header, network and
 * transport headers set, the IPv4 header checksum filled (as every
 * IPv4 header sroce builds has it).  It goes
 * through every check of a received packet but the ICRC, which guards a
 * wire this packet never crosses (sroce_recv_skb_local(); the sender
 * skipped it too): P_Key, the QP lookup and state, the path addresses,
 * and the receive counters.  The
 * sender's destructor runs first, as when a netdev takes a packet.  The
 * receive path queues the packet for its QP (sroce_dp_rx_queue(), whose
 * bound drops and counts in rx_drop_backlog as a full NIC ring would) and
 * may run that QP's side inline; a run that is already in progress, such
 * as the one that sent this packet, is only kicked, so the nesting stays
 * one run deep and a QP's packets are queued in the order they were sent.
 * Context: not hard IRQ, IRQs on (sroce_net_loop_ok()); BH is disabled
 * around the receive path.
 */
static int sroce_net_loop_xmit(struct sroce_dev *dev, struct sk_buff *skb)
{
	skb_orphan(skb);
	memset(skb->cb, 0, sizeof(skb->cb));
	skb->dev = dev->ndev;
	skb->pkt_type = PACKET_HOST;
	skb->ip_summed = CHECKSUM_NONE;
	skb_reset_mac_header(skb);	/* no link header: at the IP header */
	skb_reset_mac_len(skb);
	__skb_pull(skb, skb_transport_offset(skb));

	sroce_counter_inc(dev, SROCE_CNT_SENT_PKTS);
	sroce_counter_inc(dev, SROCE_CNT_LOOPBACK_PKTS);
	local_bh_disable();
	rcu_read_lock();
	sroce_recv_skb_local(dev, skb);
	rcu_read_unlock();
	local_bh_enable();
	return 0;
}

/* Hand an encapsulated packet to the IP stack along @dst. */
static int sroce_net_ip_xmit(struct sroce_dev *dev, const struct sroce_av *av,
			     struct dst_entry *dst, struct sk_buff *skb,
			     u8 opcode)
{
	struct net *net = dev_net(dev->ndev);
	bool ipv4 = av->network_type == RDMA_NETWORK_IPV4;

	memset(skb->cb, 0, sizeof(skb->cb));
	skb_dst_set(skb, dst);
	skb->dev = dst->dev;
	skb->protocol = ipv4 ? htons(ETH_P_IP) : htons(ETH_P_IPV6);
	skb->priority = sroce_cc_skb_priority(dev->cc, av, opcode);
	/* a batch's head keeps sroce_net_batch_take()'s CHECKSUM_UNNECESSARY */
	if (!skb_is_gso(skb))
		skb->ip_summed = CHECKSUM_NONE;

	if (ipv4)
		return sroce_net_xmit_result(dev, ip_local_out(net, NULL, skb));
	return sroce_net_xmit_result(dev, ip6_local_out(net, NULL, skb));
}

/* UDP and IP headers onto @skb (at the BTH); @id as sroce_net_push_ip4() */
static void sroce_net_push_hdrs(struct sroce_dev *dev, struct sroce_qp *qp,
				const struct sroce_av *av, struct sk_buff *skb,
				u8 tos, int id)
{
	u32 dqpn = sroce_bth_qpn((struct sroce_bth *)skb->data);
	u16 sport;

	sport = rdma_get_udp_sport(av->flow_label & IB_GRH_FLOWLABEL_MASK,
				   qp ? sroce_qpn(qp) : 0, dqpn);
	sroce_net_push_udp(skb, sport);
	if (av->network_type == RDMA_NETWORK_IPV4)
		sroce_net_push_ip4(dev_net(dev->ndev), skb, av, tos, id);
	else
		sroce_net_push_ip6(skb, av, tos);
}

static void sroce_net_put_icrc(struct sk_buff *skb, struct sroce_pkt_info *pkt)
{
	__le32 icrc = cpu_to_le32(sroce_icrc_compute(skb, pkt));

	skb_store_bits(skb, skb->len - SROCE_ICRC_SIZE, &icrc, sizeof(icrc));
}

/*
 * Route @skb (at its BTH), push its UDP and IP headers (@id as
 * sroce_net_push_ip4()) and write its ICRC, computed last.  Return: the
 * route, or an ERR_PTR (@skb freed).
 */
static struct dst_entry *sroce_net_encap(struct sroce_dev *dev,
					 struct sroce_qp *qp,
					 const struct sroce_av *av,
					 struct sk_buff *skb, u8 tos,
					 struct sroce_pkt_info *pkt, int id)
{
	struct dst_entry *dst;

	dst = sroce_net_route_qp(dev, qp, av, tos, pkt->opcode);
	if (IS_ERR(dst)) {
		kfree_skb(skb);
		return dst;
	}
	sroce_net_push_hdrs(dev, qp, av, skb, tos, id);
	sroce_net_put_icrc(skb, pkt);
	return dst;
}

/*
 * @skb into batch @b: it joins when there is room and the route carries
 * it (the next IPv4 ID, routed as the head), else the batch goes out first
 * and @skb heads the next one.  Return: 0, or the flush's -EAGAIN (@skb
 * freed, unsent: so is the batch) or the route's error.
 */
static int sroce_net_batch_put(struct sroce_dev *dev, struct sroce_qp *qp,
			       const struct sroce_av *av, struct sk_buff *skb,
			       struct sroce_net_batch *b, u8 tos,
			       struct sroce_pkt_info *pkt)
{
	struct dst_entry *dst;
	int err;

	if (b->head && sroce_net_batch_room(b, skb->len) &&
	    skb->len <= b->max_len) {
		sroce_net_push_hdrs(dev, qp, av, skb, tos, b->next_id);
		sroce_net_put_icrc(skb, pkt);
		sroce_net_batch_add(b, skb);
		return 0;
	}
	err = sroce_net_batch_flush(dev, b);
	if (err == -EAGAIN) {
		kfree_skb(skb);
		return err;
	}
	dst = sroce_net_encap(dev, qp, av, skb, tos, pkt,
			      -SROCE_NET_BATCH_SEGS);
	if (IS_ERR(dst))
		return PTR_ERR(dst);
	b->dst = dst;
	b->av = av;
	b->opcode = pkt->opcode;
	b->max_len = dst_mtu(dst) - sizeof(struct iphdr) -
		     sizeof(struct udphdr);
	sroce_net_batch_start(b, skb);
	return 0;
}

/* sroce_net_xmit(), into batch @b when not NULL (IPv4 over the IP stack) */
static int sroce_net_send(struct sroce_dev *dev, struct sroce_qp *qp,
			  const struct sroce_av *av, struct sk_buff *skb,
			  struct sroce_net_batch *b)
{
	bool ipv4 = av->network_type == RDMA_NETWORK_IPV4;
	struct sroce_pkt_info pkt = {};
	struct dst_entry *dst;
	bool loop;
	u8 tos;

	skb = sroce_net_prepare_skb(dev, skb);
	if (!skb)
		return -ENOMEM;
	if (WARN_ON_ONCE(skb->len < sizeof(struct sroce_bth) +
				    SROCE_ICRC_SIZE) ||
	    (!ipv4 && av->network_type != RDMA_NETWORK_IPV6)) {
		kfree_skb(skb);
		return -EINVAL;
	}
	pkt.hdr = skb->data;
	pkt.paylen = skb->len;
	pkt.opcode = ((struct sroce_bth *)skb->data)->opcode;

	tos = sroce_cc_tos(dev->cc, av->traffic_class);
	loop = sroce_net_loop_ok(dev, av);
	if (b && ipv4 && !loop && READ_ONCE(sroce_net_batch_on))
		return sroce_net_batch_put(dev, qp, av, skb, b, tos, &pkt);
	/* a packet that does not join leaves after the batch, not before */
	if (b && sroce_net_batch_flush(dev, b) == -EAGAIN) {
		kfree_skb(skb);
		return -EAGAIN;
	}
	if (loop) {
		sroce_net_push_hdrs(dev, qp, av, skb, tos, -1);
		return sroce_net_loop_xmit(dev, skb);
	}
	dst = sroce_net_encap(dev, qp, av, skb, tos, &pkt, -1);
	if (IS_ERR(dst))
		return PTR_ERR(dst);
	return sroce_net_ip_xmit(dev, av, dst, skb, pkt.opcode);
}

/**
 * sroce_net_xmit() - encapsulate and send a built packet
 * @dev: device
 * @qp: source QP (UDP source port entropy), or NULL (then QPN 0)
 * @av: destination; IPv4 addresses are v4-mapped
 * @skb: packet from sroce_net_alloc_skb() or sroce_net_alloc_skb_paged():
 *	skb->data at the BTH, headers and payload filled, skb->len = BTH to
 *	the end of the ICRC slot.  The engines never keep a packet for a
 *	retransmission (they build it again), so @skb is normally private;
 *	a cloned one would be unshared before the ICRC is written.
 *
 * Builds the UDP header (source port rdma_get_udp_sport() of the flow
 * label or the QPN pair, checksum 0) and the IPv4 (DF, TOS = traffic class
 * with sroce_cc_tos()) or IPv6 header, computes the ICRC last (not for
 * the device's own address: sroce_net_loop_xmit() below),
 * routes in the netdev's namespace with the netdev as output interface
 * and hands the packet to ip_local_out() / ip6_local_out().
 * skb->priority comes from sroce_cc_skb_priority().  A packet to an
 * address of the netdev itself skips routing and the IP stack when the
 * loopback parameter is on: sroce_net_loop_xmit() hands it to the
 * device's own receive path (counted in sent_pkts and loopback_pkts).
 * Consumes @skb in every case.
 *
 * Context: any (softirq or process); does not sleep.
 * Return: 0 when sent (NET_XMIT_CN included: the packet was queued);
 * -EAGAIN on backpressure (NET_XMIT_DROP or -ENOBUFS: retry the packet
 * later, it is not lost);
 * -EHOSTUNREACH/-ENETUNREACH (no route), -ENOMEM, -EMSGSIZE or another
 * negative errno when the packet was dropped.
 */
int sroce_net_xmit(struct sroce_dev *dev, struct sroce_qp *qp,
		   const struct sroce_av *av, struct sk_buff *skb)
{
#if IS_ENABLED(CONFIG_SROCE_KUNIT_TEST)
	if (dev->kunit_xmit)
		return sroce_net_xmit_result(dev, dev->kunit_xmit(dev, qp, av,
								  skb));
#endif
	return sroce_net_send(dev, qp, av, skb, NULL);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_net_xmit);

/**
 * sroce_net_xmit_batch() - sroce_net_xmit() for a run of request packets
 * @dev: device
 * @qp: the QP whose send side runs (UDP source port entropy)
 * @av: destination, the same for every packet of @b
 * @skb: packet, as for sroce_net_xmit()
 * @b: the run's batch (struct sroce_net_batch), zeroed before its first
 *	packet and flushed by sroce_net_batch_flush() before the run ends
 *
 * An IPv4 packet that goes through the IP stack joins @b (sroce_net_gso.c):
 * it is encapsulated and its ICRC written now, and it leaves with the
 * batch, at the latest at the flush.  Any other packet is sent at once
 * by sroce_net_xmit().  Nothing is reordered: one QP's send side sends
 * from one CPU, and its packets stay in one skb in their order.
 * Context: the send side's run (owns its RUNNING bit); does not sleep.
 * Return: as sroce_net_xmit().  0 for a packet that joined @b: it leaves
 * with the batch, or not at all when the network pushes the batch back.
 * -EAGAIN while @b held packets means a flush for room was refused:
 * neither @skb nor the batch left (sroce_net_batch_started() tells the
 * caller where that batch began).
 */
int sroce_net_xmit_batch(struct sroce_dev *dev, struct sroce_qp *qp,
			 const struct sroce_av *av, struct sk_buff *skb,
			 struct sroce_net_batch *b)
{
#if IS_ENABLED(CONFIG_SROCE_KUNIT_TEST)
	if (dev->kunit_xmit && b && dev->kunit_batch)
		return sroce_net_kunit_batch_put(dev, av, skb, b);
	if (dev->kunit_xmit)
		return sroce_net_xmit(dev, qp, av, skb);
#endif
	return sroce_net_send(dev, qp, av, skb, b);
}

/**
 * sroce_net_batch_flush() - send a batch of sroce_net_xmit_batch()
 * @dev: device
 * @b: batch; left empty
 *
 * The batch's packets go to ip_local_out() as one skb (a GSO skb of
 * several packets, counted in tx_batches).  sent_pkts counts each packet.
 * Context: as sroce_net_xmit_batch().
 * Return: 0 (an empty batch too), -EAGAIN when the network pushed the
 * batch back (none of its packets left: the caller sends them again), or
 * another negative errno when they were dropped (a loss, as for a packet).
 */
int sroce_net_batch_flush(struct sroce_dev *dev, struct sroce_net_batch *b)
{
	u16 segs = b->segs;
	struct sk_buff *skb;
	int err;

#if IS_ENABLED(CONFIG_SROCE_KUNIT_TEST)
	if (dev->kunit_xmit && dev->kunit_batch)
		return sroce_net_kunit_batch_flush(dev, b);
#endif
	skb = sroce_net_batch_take(b);
	if (!skb)
		return 0;
	err = sroce_net_ip_xmit(dev, b->av, b->dst, skb, b->opcode);
	b->dst = NULL;
	if (err || segs < 2)
		return err;
	sroce_counter_add(dev, SROCE_CNT_SENT_PKTS, segs - 1);
	sroce_counter_inc(dev, SROCE_CNT_TX_BATCHES);
	return 0;
}
