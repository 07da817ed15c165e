// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_net_sock.c - the RoCEv2 UDP port 4791 sockets of each network
 * namespace (IBTA vol. 1 annex A17.2) and the devices attached to them:
 * which device a received packet is for.  What a received packet goes
 * through after that is sroce_recv.c's: its sroce_udp_encap_rcv() is the
 * sockets' encap_rcv.
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

#include <linux/if_vlan.h>
#include <linux/inetdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/udp_tunnel.h>

#include "sroce.h"
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

/**
 * sroce_net_ndev_has_addr() - does a netdev own an address?
 * @ndev: the netdev
 * @ipv4: the address is @a4 (IPv4), else @a6 (IPv6)
 * @a4: IPv4 address
 * @a6: IPv6 address
 *
 * Multicast addresses are never owned.
 * Context: under rcu_read_lock().
 * Return: true when @ndev has the address.
 */
bool sroce_net_ndev_has_addr(struct net_device *ndev, bool ipv4,
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
 * @sk: a UDP 4791 socket of sroce_net_sock.c (the one the packet came in on)
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
