// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_recv.c - the receive path: from the UDP 4791 socket to the data
 * path of the destination QP (IBTA vol. 1 9.6 packet checks, annex A17).
 *
 * sroce_udp_encap_rcv(), the encap_rcv of the sockets sroce_net_sock.c keeps
 * per network namespace, takes every packet through:
 *   1. the device it is for (sroce_net_rx_dev(): the netdev it arrived
 *      on, the real device below a VLAN, or the owner of the address)
 *   2. the headers: UDP length, BTH, the opcode's whole header linear;
 *      TVer, pad and lengths (IBTA 9.2)
 *   3. the ICRC (annex A17.3.3) and the P_Key (RoCE: the default only);
 *      a packet the device hands to itself (sroce_recv_skb_local()) never
 *      crossed a wire and carries no ICRC: the sender skipped it, so does
 *      this check
 *   4. the destination QP (its lookup takes a reference), the opcode's
 *      transport against the QP type, the QP state (IBTA 10.3.1), the IP
 *      addresses of a connected QP (its path only), the Q_Key of a
 *      datagram QP (IBTA 10.2.5)
 *   5. congestion control (sroce_cc_rcv()): CNPs end there, CE marks are
 *      answered
 *   6. the QP's queues: requests for its responder, responses for its
 *      send side; a side whose queue was empty runs inline or is kicked
 *      (sroce_dp_rx_queue())
 * A dropped packet counts once, in the rx_drop_* counter of the first
 * reason; one that passes the checks counts in rcvd_pkts.
 *
 * Context: softirq, under rcu_read_lock() (the device and the QP lookup).
 * QP state and attributes are read without qp->state_lock: these are
 * filters, and the data path takes its own snapshot under the lock; the
 * path addresses are read inside qp->av_seq (sroce_recv_addr_check()).
 */

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/inet_ecn.h>
#include <net/ipv6.h>
#include <rdma/ib_addr.h>
#include <kunit/visibility.h>

#include "sroce.h"
#include "sroce_compat.h"
#include "sroce_cc.h"
#include "sroce_dp.h"
#include "sroce_mcast.h"
#include "sroce_qp.h"
#include "sroce_net.h"
#include "sroce_recv.h"
#include "sroce_trace.h"

/* ------------------------------------------------------------------ */
/* Headers, ICRC, P_Key                                                */
/* ------------------------------------------------------------------ */

/*
 * Remove the UDP header after checking its length against the skb, and
 * make the BTH and then the opcode's whole header linear.
 * Return: the opcode's entry, NULL when the packet is malformed
 * (@*drop says which counter).
 */
static const struct sroce_opcode_info *
sroce_recv_pull_hdrs(struct sk_buff *skb, enum sroce_counter *drop)
{
	const struct sroce_opcode_info *info;
	int udp_off = skb_transport_offset(skb);
	unsigned int ulen;

	*drop = SROCE_CNT_RX_DROP_MALFORMED;
	if (udp_off < 0 ||
	    !pskb_may_pull(skb, udp_off + sizeof(struct udphdr) +
			   sizeof(struct sroce_bth)))
		return NULL;
	ulen = ntohs(udp_hdr(skb)->len);
	if (ulen != skb->len - udp_off)
		return NULL;
	__skb_pull(skb, udp_off + sizeof(struct udphdr));

	info = &sroce_opcode[((struct sroce_bth *)skb->data)->opcode];
	if (!info->name) {
		*drop = SROCE_CNT_RX_DROP_OPCODE;
		return NULL;
	}
	if (!pskb_may_pull(skb, info->length))
		return NULL;
	return info;
}

/*
 * Header checks (IBTA 9.2): TVer 0, headers + pad + ICRC fit, pad only in
 * packets that carry a payload, and no payload in the others.
 */
static bool sroce_recv_lengths_ok(const struct sk_buff *skb,
				  const struct sroce_opcode_info *info)
{
	const struct sroce_bth *bth = (const struct sroce_bth *)skb->data;
	u32 min = info->length + sroce_bth_pad(bth) + SROCE_ICRC_SIZE;

	if (bth->flags & SROCE_BTH_TVER_MASK)
		return false;
	if (skb->len < min)
		return false;
	if (info->mask & (SROCE_MASK_PAYLOAD | SROCE_MASK_CNP))
		return true;
	return skb->len == min && !sroce_bth_pad(bth);
}

static bool sroce_recv_icrc_ok(struct sk_buff *skb,
			       const struct sroce_pkt_info *pkt)
{
	__le32 buf;
	const __le32 *icrc;

	icrc = skb_header_pointer(skb, pkt->paylen - SROCE_ICRC_SIZE,
				  sizeof(buf), &buf);
	if (!icrc)
		return false;
	return le32_to_cpu(get_unaligned(icrc)) ==
	       sroce_icrc_compute(skb, pkt);
}

/* RoCE ports have only the default P_Key: full 0xffff or limited 0x7fff. */
static bool sroce_recv_pkey_ok(const struct sroce_bth *bth)
{
	return (be16_to_cpu(bth->pkey) & 0x7fff) ==
	       (SROCE_DEFAULT_PKEY & 0x7fff);
}

static u8 sroce_recv_ecn(const struct sk_buff *skb, u8 network_type)
{
	if (network_type == RDMA_NETWORK_IPV4)
		return ipv4_get_dsfield(ip_hdr(skb)) & INET_ECN_MASK;
	return ipv6_get_dsfield(ipv6_hdr(skb)) & INET_ECN_MASK;
}

/*
 * Steps 2 and 3: the packet's own checks, before any QP is looked at;
 * the ICRC only for a packet that came from a netdev (not @local).
 * Fills @skb's metadata but for pkt->qp.
 * Return: the opcode's entry, or NULL with @*drop set to the counter of
 * the reason.
 */
static const struct sroce_opcode_info *
sroce_recv_hdrs(struct sk_buff *skb, bool local, enum sroce_counter *drop)
{
	struct sroce_pkt_info *pkt = SROCE_PKT(skb);
	const struct sroce_opcode_info *info;
	const struct sroce_bth *bth;
	u8 network_type;

	info = sroce_recv_pull_hdrs(skb, drop);
	if (!info)
		return NULL;
	*drop = SROCE_CNT_RX_DROP_MALFORMED;
	if (!sroce_recv_lengths_ok(skb, info))
		return NULL;

	bth = (const struct sroce_bth *)skb->data;
	network_type = ip_hdr(skb)->version == 4 ? RDMA_NETWORK_IPV4 :
						   RDMA_NETWORK_IPV6;
	memset(pkt, 0, sizeof(*pkt));
	pkt->hdr = skb->data;
	pkt->paylen = skb->len;
	pkt->opcode = bth->opcode;
	pkt->mask = info->mask;
	pkt->psn = sroce_bth_psn(bth);
	pkt->ecn = sroce_recv_ecn(skb, network_type);
	pkt->port_num = 1;
	pkt->network_type = network_type;
	pkt->local = local;

	*drop = SROCE_CNT_RX_DROP_ICRC;
	if (!local && !sroce_recv_icrc_ok(skb, pkt))
		return NULL;
	*drop = SROCE_CNT_RX_DROP_PKEY;
	if (!sroce_recv_pkey_ok(bth))
		return NULL;
	return info;
}

/* ------------------------------------------------------------------ */
/* Checks against the destination QP                                   */
/* ------------------------------------------------------------------ */

/*
 * Does the opcode's transport match the QP type?  UD covers GSI.  CNPs
 * are for connected QPs only (RC, UC): a datagram QP takes packets from
 * anyone, so anyone could throttle it with CNPs.
 */
static bool sroce_recv_qpt_ok(const struct sroce_opcode_info *info,
			      const struct sroce_qp *qp)
{
	if (info->mask & SROCE_MASK_CNP)
		return sroce_qpt_connected(qp->type);
	if (info->qpt == IB_QPT_UD)
		return sroce_qp_is_ud(qp);
	return qp->type == info->qpt;
}

/*
 * Is the QP in a state that takes this packet (IBTA 10.3.1)?  Requests need
 * SROCE_QPS_RX_REQ, responses SROCE_QPS_RX_RESP, CNPs SROCE_QPS_PATH: a
 * QP takes them from its peer while it has one (RTR on, not in ERR; the
 * path of a QP that went through RESET is stale), whatever it is sending
 * (sroce_qp_state_caps[] says which states have what).  Read without the
 * state lock: a filter only, the data path checks again under its own
 * rules.  Done here so that a dropped packet is not also counted as
 * received.
 */
static bool sroce_recv_state_ok(const struct sroce_opcode_info *info,
				const struct sroce_qp *qp)
{
	unsigned int cap = info->mask & SROCE_MASK_REQ ? SROCE_QPS_RX_REQ :
							 SROCE_QPS_RX_RESP;

	if (info->mask & SROCE_MASK_CNP)
		cap = SROCE_QPS_PATH;
	return sroce_qp_state_can(READ_ONCE(qp->state), cap);
}

/**
 * sroce_recv_addr_ok() - does a packet travel the path of its QP?
 * @type: the QP's type
 * @path: the QP's path: @path->saddr its own address (the source GID),
 *	@path->daddr the peer's; only these two are read
 * @saddr: the packet's IP source address
 * @daddr: the packet's IP destination address
 *
 * A connected QP (RC, UC) talks to one peer: a packet must come from the
 * path's destination and go to its source.  Datagram QPs (UD, GSI) take
 * packets from anyone.  IPv4 addresses are v4-mapped, as in struct
 * sroce_av, so an IPv4 packet never matches an IPv6 path.  IBTA 9.6 (the
 * address checks of connected services) with the GRH fields carried by IP
 * (annex A17.4.5).
 *
 * Pure.  Context: any.
 * Return: true when the packet may go on to the QP.
 */
VISIBLE_IF_KUNIT bool sroce_recv_addr_ok(enum ib_qp_type type,
					 const struct sroce_av *path,
					 const struct in6_addr *saddr,
					 const struct in6_addr *daddr)
{
	if (!sroce_qpt_connected(type))
		return true;
	return ipv6_addr_equal(saddr, &path->daddr) &&
	       ipv6_addr_equal(daddr, &path->saddr);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_recv_addr_ok);

/**
 * sroce_recv_ip_addrs() - the IP addresses of a received packet
 * @skb: packet whose network header is set
 * @network_type: RDMA_NETWORK_IPV4 or RDMA_NETWORK_IPV6 (pkt->network_type)
 * @saddr: the packet's source, IPv4 as v4-mapped IPv6 (as struct sroce_av
 *	keeps addresses)
 * @daddr: the packet's destination, likewise
 *
 * Context: any.
 */
void sroce_recv_ip_addrs(const struct sk_buff *skb, u8 network_type,
			 struct in6_addr *saddr, struct in6_addr *daddr)
{
	if (network_type == RDMA_NETWORK_IPV4) {
		ipv6_addr_set_v4mapped(ip_hdr(skb)->saddr, saddr);
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr, daddr);
	} else {
		*saddr = ipv6_hdr(skb)->saddr;
		*daddr = ipv6_hdr(skb)->daddr;
	}
}

/*
 * The address check of a connected QP.  modify_qp rewrites qp->av under
 * qp->state_lock (INIT to RTR, SQD to SQD) inside qp->av_seq: the path is
 * read without the lock, retried only while a rewrite is in progress, so a
 * flood of spoofed packets, each a mismatch, never takes the lock the data
 * path and modify_qp need.  A packet is dropped only for a whole path as
 * modify_qp left it.
 */
static bool sroce_recv_addr_check(struct sroce_qp *qp,
				  const struct sk_buff *skb)
{
	const struct sroce_pkt_info *pkt = SROCE_PKT(skb);
	struct in6_addr saddr, daddr;
	struct sroce_av path;

	if (!sroce_qpt_connected(qp->type))
		return true;
	sroce_recv_ip_addrs(skb, pkt->network_type, &saddr, &daddr);
	sroce_qp_path_addrs(qp, &path.saddr, &path.daddr);
	return sroce_recv_addr_ok(qp->type, &path, &saddr, &daddr);
}

/* UD and GSI: the DETH Q_Key must be the QP's (GSI: 0x80010000; 10.2.5). */
static bool sroce_recv_qkey_ok(const struct sroce_opcode_info *info,
			       const struct sroce_qp *qp, const u8 *hdr)
{
	const struct sroce_deth *deth;
	u32 want;

	if (!(info->mask & SROCE_MASK_DETH))
		return true;
	deth = (const struct sroce_deth *)(hdr + info->offset[SROCE_HDR_DETH]);
	want = qp->type == IB_QPT_GSI ? SROCE_GSI_QKEY :
					 READ_ONCE(qp->attr.qkey);
	return be32_to_cpu(deth->qkey) == want;
}

/*
 * Step 4 after the lookup: may @qp take the packet?
 * Return: true, or false with @*drop set to the counter of the reason.
 */
static bool sroce_recv_qp_ok(const struct sroce_opcode_info *info,
			     struct sroce_qp *qp, const struct sk_buff *skb,
			     enum sroce_counter *drop)
{
	*drop = SROCE_CNT_RX_DROP_OPCODE;
	if (!sroce_recv_qpt_ok(info, qp))
		return false;
	*drop = SROCE_CNT_RX_DROP_STATE;
	if (!sroce_recv_state_ok(info, qp))
		return false;
	*drop = SROCE_CNT_RX_DROP_ADDR;
	if (!sroce_recv_addr_check(qp, skb))
		return false;
	*drop = SROCE_CNT_RX_DROP_QKEY;
	return sroce_recv_qkey_ok(info, qp, skb->data);
}

/**
 * sroce_recv_qp_check() - may a QP take a checked packet?
 * @qp: the destination QP
 * @skb: packet that passed sroce_recv_check() (SROCE_PKT(@skb) filled)
 * @drop: set to the rx_drop_* counter of the reason when it may not
 *
 * The per-QP checks of step 4 (transport, state, path addresses, Q_Key),
 * for a QP the packet reaches other than by its BTH QPN: a multicast
 * packet's attached QPs (sroce_mcast_rcv()).
 *
 * Context: any.
 * Return: true when @qp may take the packet.
 */
bool sroce_recv_qp_check(struct sroce_qp *qp, const struct sk_buff *skb,
			 enum sroce_counter *drop)
{
	return sroce_recv_qp_ok(&sroce_opcode[SROCE_PKT(skb)->opcode], qp,
				skb, drop);
}

/*
 * A packet to the multicast QPN (IB_MULTICAST_QPN) must go to a multicast
 * IP address (the MGID; else there is no such QP) and be a UD SEND (else
 * the opcode is wrong); it then goes to every QP attached to
 * the group (sroce_mcast_rcv()), so no QP is looked up here.
 */
static bool sroce_recv_mcast_ok(const struct sroce_opcode_info *info,
				const struct sk_buff *skb,
				enum sroce_counter *drop)
{
	const struct sroce_pkt_info *pkt = SROCE_PKT(skb);
	struct in6_addr saddr, daddr;

	*drop = SROCE_CNT_RX_DROP_NO_QP;
	sroce_recv_ip_addrs(skb, pkt->network_type, &saddr, &daddr);
	if (!rdma_is_multicast_addr(&daddr))
		return false;
	*drop = SROCE_CNT_RX_DROP_OPCODE;
	return info->qpt == IB_QPT_UD && !(info->mask & SROCE_MASK_CNP);
}

/*
 * Validate a received packet for @dev: steps 2 to 4 of the file comment
 * (the ICRC unless @local).  @skb is as the UDP tunnel hands it over:
 * skb->data at the UDP header, the network and transport headers set.
 * @drop is set to the rx_drop_* counter of the reason when the packet is
 * dropped.  On success skb->data is at the BTH, the opcode's whole header
 * is linear and SROCE_PKT(@skb) is filled, its ->qp holding a reference
 * the caller passes on or drops; ->qp is NULL for a packet to a multicast
 * group (sroce_mcast_rcv() finds its QPs).
 *
 * Context: softirq (or any), under rcu_read_lock().
 * Return: 0, or -EINVAL with @*drop set (no QP reference is held then).
 */
VISIBLE_IF_KUNIT int sroce_recv_check(struct sroce_dev *dev,
				      struct sk_buff *skb, bool local,
				      enum sroce_counter *drop)
{
	const struct sroce_opcode_info *info;
	struct sroce_qp *qp;
	u32 qpn;

	info = sroce_recv_hdrs(skb, local, drop);
	if (!info)
		return -EINVAL;

	qpn = sroce_bth_qpn((const struct sroce_bth *)skb->data);
	if (qpn == IB_MULTICAST_QPN)
		return sroce_recv_mcast_ok(info, skb, drop) ? 0 : -EINVAL;
	*drop = SROCE_CNT_RX_DROP_NO_QP;
	qp = qpn ? sroce_qp_lookup(dev, qpn) : NULL;
	if (!qp)
		return -EINVAL;
	if (!sroce_recv_qp_ok(info, qp, skb, drop)) {
		sroce_qp_put(qp);
		return -EINVAL;
	}
	SROCE_PKT(skb)->qp = qp;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_recv_check);

/* ------------------------------------------------------------------ */
/* Dispatch                                                            */
/* ------------------------------------------------------------------ */

/**
 * sroce_rcv() - hand a checked packet to its QP's data path (step 6)
 * @skb: packet; SROCE_PKT(skb) is filled and its ->qp holds a reference
 *
 * Queues a request for the QP's responder, a response for its send side
 * (sroce_dp_rx_queue(), which bounds the queue and kicks the run).  The
 * packet keeps its QP reference until the run is done with it.
 * Context: softirq (or process context with IRQs enabled).
 */
void sroce_rcv(struct sk_buff *skb)
{
	struct sroce_pkt_info *pkt = SROCE_PKT(skb);

	sroce_dp_rx_queue(pkt->qp, skb, pkt->mask & SROCE_MASK_REQ ?
			  SROCE_DP_RESP : SROCE_DP_SEND);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_rcv);

static void __sroce_recv_skb(struct sroce_dev *dev, struct sk_buff *skb,
			     bool local)
{
	enum sroce_counter drop;

	if (sroce_recv_check(dev, skb, local, &drop)) {
		sroce_counter_inc(dev, drop);
		trace_sroce_drop(dev, drop);
		kfree_skb(skb);
		return;
	}
	sroce_counter_inc(dev, SROCE_CNT_RCVD_PKTS);
	if (!SROCE_PKT(skb)->qp)
		sroce_mcast_rcv(dev, skb);
	else if (!sroce_cc_rcv(dev, skb))
		sroce_rcv(skb);
}

/**
 * sroce_recv_skb() - receive a RoCEv2 packet for a known device
 * @dev: the device the packet is for
 * @skb: packet as the UDP tunnel hands it over: skb->data at the UDP
 *	header, the network and transport headers set
 *
 * Checks the packet (sroce_recv_check()) and counts it in rcvd_pkts or in
 * the rx_drop_* counter of the first reason to drop it, lets congestion
 * control consume CNPs and answer CE marks (sroce_cc_rcv()), and queues
 * the rest for the destination QP's data path (a packet to a multicast
 * group for each QP attached to it, sroce_mcast_rcv()).  Consumes @skb.
 * sroce_udp_encap_rcv() calls it.
 *
 * Context: softirq or BH disabled, under rcu_read_lock().
 */
void sroce_recv_skb(struct sroce_dev *dev, struct sk_buff *skb)
{
	__sroce_recv_skb(dev, skb, false);
}

/**
 * sroce_recv_skb_local() - receive a packet the device sent to itself
 * @dev: the device that sent it, to an address of its own netdev
 * @skb: as for sroce_recv_skb(), built by sroce_net_xmit() without an
 *	ICRC (the slot is there, zero)
 *
 * As sroce_recv_skb(), every check and counter included, but for the
 * ICRC: it guards a packet on a wire (IBTA annex A17.3.3), and this one
 * went from one of the device's QPs to another in memory, as rdma_rxe's
 * loopback hands its packets over.  SROCE_PKT(@skb)->local tells the data
 * path (sroce_dp_rx_queue()) that the QP's peer is on this device.
 *
 * Context: BH disabled, under rcu_read_lock() (sroce_net_xmit()).
 */
void sroce_recv_skb_local(struct sroce_dev *dev, struct sk_buff *skb)
{
	__sroce_recv_skb(dev, skb, true);
}

/**
 * sroce_udp_encap_rcv() - receive a RoCEv2 packet
 * @sk: a UDP 4791 socket of sroce_net_sock.c (its encap_rcv)
 * @skb: packet; skb->data at the UDP header, whose checksum (if not
 *	zero) the UDP layer verified
 *
 * Finds the device and hands the packet to sroce_recv_skb().  A packet
 * for no sroce device is freed without being counted.
 *
 * Context: softirq.
 * Return: 0: every packet is consumed.
 */
int sroce_udp_encap_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct sroce_dev *dev;

	rcu_read_lock();
	dev = sroce_net_rx_dev(sk, skb);
	if (dev)
		sroce_recv_skb(dev, skb);
	else
		kfree_skb(skb);
	rcu_read_unlock();
	return 0;
}
