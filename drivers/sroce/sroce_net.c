// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_net.c - RoCEv2 encapsulation (IBTA vol. 1 annex A17): UDP port
 * 4791 sockets per network namespace and the devices attached to each
 * (which device a received packet is for), IP/UDP encapsulation,
 * transmission and its route cache.  What a received packet goes through
 * after that is sroce_recv.c's: its sroce_udp_encap_rcv() is the sockets'
 * encap_rcv.
 *
 * Sockets: each network namespace that holds the netdev of at least one
 * sroce device gets one IPv4 and one IPv6 (v6only) UDP tunnel socket bound
 * to port 4791.  They are created by the first sroce_net_attach() in that
 * namespace and released by the last sroce_net_detach(), or by the
 * namespace's exit if a device is still attached then (its netdev moved
 * back to init_net and its unregistration is still queued).  rdma_rxe
 * binds 4791 in init_net only, so sroce runs beside it in any other
 * namespace; in init_net the bind fails with -EADDRINUSE.
 *
 * Locking: sroce_net_mutex serializes attach, detach and namespace exit
 * and protects each struct sroce_net.  The receive path (softirq,
 * sroce_net_rx_dev()) finds the struct sroce_net through the socket's
 * sk_user_data and walks its device list under RCU; detach waits for a
 * grace period before the device or the struct may go away.
 */

#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/moduleparam.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/route.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_addr.h>
#include <kunit/visibility.h>

#include "sroce.h"
#include "sroce_av.h"
#include "sroce_mr.h"
#include "sroce_qp.h"
#include "sroce_net.h"
#include "sroce_recv.h"

/**
 * struct sroce_net - RoCEv2 sockets and devices of one network namespace
 * @net: the namespace (valid while @dead is false)
 * @sk4: IPv4 UDP 4791 socket, NULL once released
 * @sk6: IPv6 UDP 4791 socket (v6only), NULL without IPv6 or once released
 * @devs: attached devices (struct sroce_dev.net_list); RCU readers,
 *	writers hold sroce_net_mutex
 * @users: attached devices; the struct is freed when the last detaches
 * @dead: the namespace exited; sockets released, @net must not be used
 */
struct sroce_net {
	struct net *net;
	struct socket *sk4;
	struct socket *sk6;
	struct list_head devs;
	unsigned int users;
	bool dead;
};

/* Per-namespace storage (net_generic): the namespace's struct, if any. */
struct sroce_net_slot {
	struct sroce_net *snet;
};

static unsigned int sroce_net_id __read_mostly;
static DEFINE_MUTEX(sroce_net_mutex);

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

static bool sroce_net_is_ipv4(const struct sk_buff *skb)
{
	return ip_hdr(skb)->version == 4;
}

/* ------------------------------------------------------------------ */
/* Receive: the device a packet is for                                 */
/* ------------------------------------------------------------------ */

static struct sroce_dev *sroce_net_dev_by_ndev(struct sroce_net *snet,
					       const struct net_device *ndev)
{
	struct sroce_dev *dev;

	list_for_each_entry_rcu(dev, &snet->devs, net_list)
		if (dev->ndev == ndev)
			return dev;
	return NULL;
}

/*
 * Does @ndev own @a4 (IPv4) or @a6 (IPv6)?  Multicast addresses are never
 * owned.  Under RCU.
 */
static bool sroce_net_ndev_has_addr(struct net_device *ndev, bool ipv4,
				    __be32 a4, const struct in6_addr *a6)
{
	if (ipv4) {
		struct in_device *in_dev = __in_dev_get_rcu(ndev);
		const struct in_ifaddr *ifa;

		if (!in_dev)
			return false;
		in_dev_for_each_ifa_rcu(ifa, in_dev)
			if (ifa->ifa_local == a4)
				return true;
		return false;
	}
#if IS_ENABLED(CONFIG_IPV6)
	return ipv6_chk_addr(dev_net(ndev), a6, ndev, 1);
#else
	return false;
#endif
}

/* Does @dev's netdev own the packet's destination address? */
static bool sroce_net_owns_daddr(struct sroce_dev *dev,
				 const struct sk_buff *skb)
{
	if (sroce_net_is_ipv4(skb))
		return sroce_net_ndev_has_addr(dev->ndev, true,
					       ip_hdr(skb)->daddr, NULL);
	return sroce_net_ndev_has_addr(dev->ndev, false, 0,
				       &ipv6_hdr(skb)->daddr);
}

/**
 * sroce_net_rx_dev() - the device a received packet is for
 * @sk: a UDP 4791 socket of sroce_net.c (the one the packet came in on)
 * @skb: packet, its network header set
 *
 * Looks among the devices attached in the socket's namespace for the one
 * bound to the netdev the packet arrived on, or to the real device below
 * a VLAN, or (packets to a local address arrive on the loopback device)
 * the one whose netdev owns the destination address.
 *
 * Context: softirq, under rcu_read_lock(); the device stays valid until
 * rcu_read_unlock() (sroce_net_detach() waits for a grace period).
 * Return: the device, or NULL when the packet is for none of them.
 */
struct sroce_dev *sroce_net_rx_dev(struct sock *sk, const struct sk_buff *skb)
{
	struct sroce_net *snet = rcu_dereference_sk_user_data(sk);
	struct net_device *ndev = skb->dev;
	struct sroce_dev *dev;

	if (!snet)
		return NULL;
	dev = sroce_net_dev_by_ndev(snet, ndev);
	if (dev)
		return dev;
	if (is_vlan_dev(ndev)) {
		dev = sroce_net_dev_by_ndev(snet, vlan_dev_real_dev(ndev));
		if (dev)
			return dev;
	}
	list_for_each_entry_rcu(dev, &snet->devs, net_list)
		if (sroce_net_owns_daddr(dev, skb))
			return dev;
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Sockets per network namespace                                       */
/* ------------------------------------------------------------------ */

static struct socket *sroce_net_sock_create(struct sroce_net *snet,
					    bool ipv6)
{
	struct udp_port_cfg ucfg = {
		.local_udp_port = htons(SROCE_UDP_PORT),
	};
	struct udp_tunnel_sock_cfg tcfg = {
		.sk_user_data = snet,
		.encap_type = 1,
		.encap_rcv = sroce_udp_encap_rcv,
	};
	struct socket *sock;
	int err;

	/*
	 * use_udp6_rx_checksums stays 0: accept the zero UDP checksum that
	 * rdma_rxe (and sroce) send over IPv6 (RFC 6936 tunnel exception).
	 */
	if (ipv6) {
		ucfg.family = AF_INET6;
		ucfg.ipv6_v6only = 1;
	} else {
		ucfg.family = AF_INET;
	}
	err = udp_sock_create(snet->net, &ucfg, &sock);
	if (err)
		return ERR_PTR(err);
	setup_udp_tunnel_sock(snet->net, sock, &tcfg);
	return sock;
}

/* Waits for encap_rcv callers that still see @snet (synchronize_rcu). */
static void sroce_net_sock_release(struct sroce_net *snet)
{
	lockdep_assert_held(&sroce_net_mutex);

	if (snet->sk6)
		udp_tunnel_sock_release(snet->sk6);
	if (snet->sk4)
		udp_tunnel_sock_release(snet->sk4);
	snet->sk6 = NULL;
	snet->sk4 = NULL;
}

static struct sroce_net *sroce_net_create(struct sroce_dev *dev,
					  struct net *net)
{
	struct sroce_net *snet;
	struct socket *sock;

	lockdep_assert_held(&sroce_net_mutex);

	snet = kzalloc(sizeof(*snet), GFP_KERNEL);
	if (!snet)
		return ERR_PTR(-ENOMEM);
	snet->net = net;
	INIT_LIST_HEAD(&snet->devs);

	sock = sroce_net_sock_create(snet, false);
	if (IS_ERR(sock))
		goto err_free;
	snet->sk4 = sock;

	if (IS_ENABLED(CONFIG_IPV6)) {
		sock = sroce_net_sock_create(snet, true);
		if (IS_ERR(sock) && PTR_ERR(sock) != -EAFNOSUPPORT)
			goto err_release;
		snet->sk6 = IS_ERR(sock) ? NULL : sock;
	}
	return snet;

err_release:
	sroce_net_sock_release(snet);
err_free:
	kfree(snet);
	if (PTR_ERR(sock) == -EADDRINUSE)
		netdev_err(dev->ndev,
			   "sroce: UDP port %u is in use in this network namespace (rdma_rxe loaded?)\n",
			   SROCE_UDP_PORT);
	else
		netdev_err(dev->ndev,
			   "sroce: cannot create the UDP %u socket: %ld\n",
			   SROCE_UDP_PORT, PTR_ERR(sock));
	return ERR_CAST(sock);
}

/**
 * sroce_net_attach() - start receiving for a device in its netdev's netns
 * @dev: device with @dev->ndev set; not attached yet
 *
 * Creates the namespace's UDP 4791 sockets on first use, or joins them,
 * and publishes @dev for receive demultiplexing.  Packets may reach the
 * data path from this point on (QP lookups fail until QPs exist).
 *
 * Context: process; may sleep; takes sroce_net_mutex (not RTNL).
 * Return: 0; -EADDRINUSE when port 4791 is taken in that namespace (e.g.
 * rdma_rxe in init_net); -ENODEV when the namespace is being dismantled;
 * -EBUSY when @dev is already attached; -ENOMEM or a socket error.
 */
int sroce_net_attach(struct sroce_dev *dev)
{
	struct net *net = dev_net(dev->ndev);
	struct sroce_net_slot *slot;
	struct sroce_net *snet;
	int err = 0;

	mutex_lock(&sroce_net_mutex);
	if (WARN_ON_ONCE(dev->snet)) {
		err = -EBUSY;
		goto unlock;
	}
	slot = net_generic(net, sroce_net_id);
	snet = slot->snet;
	if (!snet) {
		if (!check_net(net)) {
			err = -ENODEV;
			goto unlock;
		}
		snet = sroce_net_create(dev, net);
		if (IS_ERR(snet)) {
			err = PTR_ERR(snet);
			goto unlock;
		}
		slot->snet = snet;
	}
	snet->users++;
	dev->snet = snet;
	list_add_tail_rcu(&dev->net_list, &snet->devs);
unlock:
	mutex_unlock(&sroce_net_mutex);
	return err;
}

/**
 * sroce_net_detach() - stop receiving for a device
 * @dev: device; nothing happens when it is not attached
 *
 * Unpublishes @dev and, for the last device of its namespace, releases
 * the UDP sockets.  On return no receive path uses @dev any more (an RCU
 * grace period has passed), but packets already handed to the data path
 * still hold their QP references.
 *
 * Context: process; sleeps (synchronize_rcu); takes sroce_net_mutex.
 */
void sroce_net_detach(struct sroce_dev *dev)
{
	struct sroce_net *snet;
	bool last;

	mutex_lock(&sroce_net_mutex);
	snet = dev->snet;
	if (!snet) {
		mutex_unlock(&sroce_net_mutex);
		return;
	}
	list_del_rcu(&dev->net_list);
	dev->snet = NULL;
	last = --snet->users == 0;
	if (last && !snet->dead) {
		struct sroce_net_slot *slot = net_generic(snet->net,
							  sroce_net_id);

		sroce_net_sock_release(snet);
		slot->snet = NULL;
	}
	mutex_unlock(&sroce_net_mutex);

	synchronize_rcu();
	if (last)
		kfree(snet);
}

/*
 * A namespace is going away.  Its netdevs were unregistered or moved to
 * init_net before this runs (pernet subsys exits follow device exits), so
 * normally every device detached already.  A device whose unregistration
 * is still queued keeps the struct until it detaches; its sockets go now,
 * before the namespace is freed.
 */
static void __net_exit sroce_net_ns_exit(struct net *net)
{
	struct sroce_net_slot *slot = net_generic(net, sroce_net_id);
	struct sroce_net *snet;

	mutex_lock(&sroce_net_mutex);
	snet = slot->snet;
	if (snet) {
		sroce_net_sock_release(snet);
		snet->dead = true;
		snet->net = NULL;
		slot->snet = NULL;
	}
	mutex_unlock(&sroce_net_mutex);
}

static struct pernet_operations sroce_net_ops = {
	.exit	= sroce_net_ns_exit,
	.id	= &sroce_net_id,
	.size	= sizeof(struct sroce_net_slot),
};

/**
 * sroce_net_init() - register the per-namespace state of sroce
 *
 * No socket is created here: each namespace gets its sockets when its
 * first device attaches.
 *
 * Context: module init.
 * Return: 0 or a negative errno from register_pernet_subsys().
 */
int sroce_net_init(void)
{
	BUILD_BUG_ON(sizeof(struct sroce_pkt_info) >
		     sizeof_field(struct sk_buff, cb));
	return register_pernet_subsys(&sroce_net_ops);
}

/**
 * sroce_net_exit() - unregister the per-namespace state of sroce
 *
 * Every device must be detached (unregistered) before; sockets left
 * behind by a bug are released all the same.
 *
 * Context: module exit.
 */
void sroce_net_exit(void)
{
	unregister_pernet_subsys(&sroce_net_ops);
}

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
