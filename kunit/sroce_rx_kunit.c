// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite sroce_rx: validation of received packets (sroce_recv_check()
 * in sroce_recv.c, IBTA vol. 1 9.2 and annex A17).  Each case builds a real
 * IPv4 or IPv6 + UDP + BTH packet on an skb, as the UDP tunnel hands it to
 * encap_rcv, spoils one thing or nothing, and checks the verdict, the drop
 * counter chosen and, for good packets, the metadata left in skb->cb.
 *
 * KUnit suite sroce_rx_addr: sroce_recv_addr_ok(), the address check of
 * connected QPs, as a pure function.
 *
 * The ICRC of the packets is made with sroce_icrc_compute(), which the
 * sroce_icrc suite checks against an independent reference.
 */
#include <kunit/test.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/if_ether.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <rdma/ib_pack.h>

#include "sroce.h"
#include "sroce_compat.h"
#include "sroce_qp.h"
#include "sroce_net.h"
#include "sroce_recv.h"

#define SROCE_RX_QPN_RC		0x000111
#define SROCE_RX_QPN_UD		0x000222
#define SROCE_RX_QPN_GSI	1
#define SROCE_RX_QPN_UC		0x000333
#define SROCE_RX_QPN_TGT	0x000444	/* XRC TGT */
#define SROCE_RX_QPN_INI	0x000555	/* XRC INI */

enum sroce_rx_spoil {
	SROCE_RX_OK,
	SROCE_RX_ICRC,		/* flip a payload bit after the ICRC */
	SROCE_RX_UDP_LEN,	/* UDP length one too large */
	SROCE_RX_UDP_SHORT,	/* UDP length one too small */
	SROCE_RX_TRUNC,		/* one byte short of headers + pad + ICRC */
	SROCE_RX_ONLY_BTH,	/* stop after 6 bytes of BTH */
	SROCE_RX_TVER,		/* TVer 1 */
	SROCE_RX_NONLINEAR,	/* payload and ICRC in a page fragment */
	SROCE_RX_SADDR,		/* IP source neither peer nor us */
	SROCE_RX_DADDR,		/* IP destination neither peer nor us */
	SROCE_RX_MCAST,		/* IP destination a multicast group */
};

/*
 * Host part of the test addresses, 192.168.1.x or 2001:db8::x: packets go
 * from the peer to us, the RC and UC QPs' paths from us to the peer.
 */
#define SROCE_RX_HOST_PEER	1
#define SROCE_RX_HOST_SELF	2
#define SROCE_RX_HOST_OTHER	9

/* A test address as struct sroce_av stores it (IPv4 v4-mapped). */
static void sroce_rx_addr(struct in6_addr *a, bool ipv6, u8 host)
{
	if (!ipv6) {
		ipv6_addr_set_v4mapped(htonl(0xc0a80100 | host), a);
		return;
	}
	memset(a, 0, sizeof(*a));
	a->s6_addr32[0] = htonl(0x20010db8);
	a->s6_addr32[3] = htonl(host);
}

/* The multicast group of SROCE_RX_MCAST: 239.1.2.3, or ff0e::db8:1 */
#define SROCE_RX_MCAST_V4	0xef010203
static void sroce_rx_mcast_addr(struct in6_addr *a)
{
	memset(a, 0, sizeof(*a));
	a->s6_addr32[0] = htonl(0xff0e0000);
	a->s6_addr32[3] = htonl(0x0db80001);
}

/* Q_Key of the UD QP; DETHs of the test packets carry it (GSI: 0x80010000) */
#define SROCE_RX_QKEY	0x11111111U

/* A case; what it leaves out is 0: IPv4, no payload, TOS 0, not spoiled */
struct sroce_rx_case {
	const char *name;
	bool ipv6;
	u8 opcode;
	u32 qpn;
	u16 pkey;
	u32 payload;		/* payload bytes */
	u8 pad;			/* PadCnt; 0: what the payload needs */
	u32 extra;		/* bytes appended after the headers */
	u8 tos;			/* IPv4 TOS / IPv6 traffic class */
	enum sroce_rx_spoil spoil;
	u8 state;		/* QPS(IB_QPS_*) of the RC QP; 0: RTS */
	bool local;		/* handed over by the device itself */
	int drop;		/* OK (-1) accepted, else SROCE_CNT_RX_DROP_* */
};

#define QPS(s)	((s) + 1)
#define OK	(-1)
#define FULL	SROCE_DEFAULT_PKEY

static const struct sroce_rx_case sroce_rx_cases[] = {
	/* accepted */
	{ .name = "rc_send_only_v4", .opcode = IB_OPCODE_RC_SEND_ONLY,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .payload = 16, .tos = 0x02,
	  .drop = OK },
	{ .name = "rc_send_only_v6", .ipv6 = true,
	  .opcode = IB_OPCODE_RC_SEND_ONLY, .qpn = SROCE_RX_QPN_RC,
	  .pkey = FULL, .payload = 16, .tos = 0x02, .drop = OK },
	{ .name = "rc_send_pad1", .opcode = IB_OPCODE_RC_SEND_ONLY,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .payload = 3, .tos = 0x02,
	  .drop = OK },
	{ .name = "rc_send_pad3", .ipv6 = true,
	  .opcode = IB_OPCODE_RC_SEND_ONLY, .qpn = SROCE_RX_QPN_RC,
	  .pkey = FULL, .payload = 1, .tos = 0x02, .drop = OK },
	{ .name = "rc_send_empty", .opcode = IB_OPCODE_RC_SEND_ONLY,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .tos = 0x02, .drop = OK },
	{ .name = "rc_write_first", .opcode = IB_OPCODE_RC_RDMA_WRITE_FIRST,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .payload = 1024, .tos = 0x02,
	  .drop = OK },
	{ .name = "rc_ack", .opcode = IB_OPCODE_RC_ACKNOWLEDGE,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .tos = 0x02, .drop = OK },
	{ .name = "rc_atomic_ack_v6", .ipv6 = true,
	  .opcode = IB_OPCODE_RC_ATOMIC_ACKNOWLEDGE, .qpn = SROCE_RX_QPN_RC,
	  .pkey = FULL, .tos = 0x02, .drop = OK },
	{ .name = "rc_read_req", .opcode = IB_OPCODE_RC_RDMA_READ_REQUEST,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .tos = 0x02, .drop = OK },
	{ .name = "xrc_send_only_to_tgt", .opcode = 0xa0 | IB_OPCODE_SEND_ONLY,
	  .qpn = SROCE_RX_QPN_TGT, .pkey = FULL, .payload = 8, .tos = 0x02,
	  .drop = OK },
	{ .name = "xrc_read_req_to_tgt_v6", .ipv6 = true,
	  .opcode = 0xa0 | IB_OPCODE_RDMA_READ_REQUEST,
	  .qpn = SROCE_RX_QPN_TGT, .pkey = FULL, .tos = 0x02, .drop = OK },
	{ .name = "xrc_ack_to_ini", .opcode = 0xa0 | IB_OPCODE_ACKNOWLEDGE,
	  .qpn = SROCE_RX_QPN_INI, .pkey = FULL, .tos = 0x02, .drop = OK },
	{ .name = "rc_ce_marked", .opcode = IB_OPCODE_RC_SEND_ONLY,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .payload = 8, .tos = 0x03,
	  .drop = OK },
	{ .name = "rc_ce_marked_v6", .ipv6 = true,
	  .opcode = IB_OPCODE_RC_SEND_ONLY, .qpn = SROCE_RX_QPN_RC,
	  .pkey = FULL, .payload = 8, .tos = 0x03, .drop = OK },
	{ .name = "limited_pkey", .opcode = IB_OPCODE_RC_SEND_ONLY,
	  .qpn = SROCE_RX_QPN_RC, .pkey = 0x7fff, .payload = 8, .drop = OK },
	{ .name = "ud_send_only", .opcode = IB_OPCODE_UD_SEND_ONLY,
	  .qpn = SROCE_RX_QPN_UD, .pkey = FULL, .payload = 256, .drop = OK },
	{ .name = "ud_to_gsi", .ipv6 = true,
	  .opcode = IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE,
	  .qpn = SROCE_RX_QPN_GSI, .pkey = FULL, .payload = 256, .drop = OK },
	{ .name = "uc_write_only", .opcode = IB_OPCODE_UC_RDMA_WRITE_ONLY,
	  .qpn = SROCE_RX_QPN_UC, .pkey = FULL, .payload = 64, .drop = OK },
	{ .name = "cnp_to_rc", .opcode = SROCE_CNP_OPCODE,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .tos = 0x03, .drop = OK },
	{ .name = "cnp_to_rc_v6", .ipv6 = true, .opcode = SROCE_CNP_OPCODE,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .drop = OK },
	{ .name = "cnp_to_uc", .opcode = SROCE_CNP_OPCODE,
	  .qpn = SROCE_RX_QPN_UC, .pkey = FULL, .drop = OK },
	{ .name = "cnp_to_rc_in_rtr", .opcode = SROCE_CNP_OPCODE,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .state = QPS(IB_QPS_RTR),
	  .drop = OK },
	{ .name = "cnp_to_rc_in_sqd", .opcode = SROCE_CNP_OPCODE,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .state = QPS(IB_QPS_SQD),
	  .drop = OK },
	{ .name = "paged_payload", .opcode = IB_OPCODE_RC_SEND_ONLY,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .payload = 700,
	  .spoil = SROCE_RX_NONLINEAR, .drop = OK },
	{ .name = "paged_payload_v6", .ipv6 = true,
	  .opcode = IB_OPCODE_RC_RDMA_WRITE_ONLY, .qpn = SROCE_RX_QPN_RC,
	  .pkey = FULL, .payload = 61, .spoil = SROCE_RX_NONLINEAR,
	  .drop = OK },
	/* malformed */
	{ .name = "icrc_bad", .opcode = IB_OPCODE_RC_SEND_ONLY,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .payload = 16,
	  .spoil = SROCE_RX_ICRC, .drop = SROCE_CNT_RX_DROP_ICRC },
	{ .name = "icrc_bad_v6", .ipv6 = true,
	  .opcode = IB_OPCODE_RC_ACKNOWLEDGE, .qpn = SROCE_RX_QPN_RC,
	  .pkey = FULL, .spoil = SROCE_RX_ICRC,
	  .drop = SROCE_CNT_RX_DROP_ICRC },
	/* loopback carries no ICRC: not checked, every other check is */
	{ .name = "local_icrc_not_checked", .opcode = IB_OPCODE_RC_SEND_ONLY,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .payload = 16,
	  .spoil = SROCE_RX_ICRC, .local = true, .drop = OK },
	{ .name = "local_udp_len_short", .opcode = IB_OPCODE_RC_SEND_ONLY,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .payload = 16,
	  .spoil = SROCE_RX_UDP_SHORT, .local = true,
	  .drop = SROCE_CNT_RX_DROP_MALFORMED },
	{ .name = "local_qp_state_checked", .opcode = IB_OPCODE_RC_SEND_ONLY,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .payload = 16,
	  .state = QPS(IB_QPS_INIT), .local = true,
	  .drop = SROCE_CNT_RX_DROP_STATE },
	{ .name = "udp_len_long", .opcode = IB_OPCODE_RC_SEND_ONLY,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .payload = 16,
	  .spoil = SROCE_RX_UDP_LEN, .drop = SROCE_CNT_RX_DROP_MALFORMED },
	{ .name = "udp_len_short", .opcode = IB_OPCODE_RC_SEND_ONLY,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .payload = 16,
	  .spoil = SROCE_RX_UDP_SHORT, .drop = SROCE_CNT_RX_DROP_MALFORMED },
	{ .name = "truncated", .opcode = IB_OPCODE_RC_SEND_ONLY,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .payload = 16,
	  .spoil = SROCE_RX_TRUNC, .drop = SROCE_CNT_RX_DROP_MALFORMED },
	{ .name = "bth_cut", .opcode = IB_OPCODE_RC_SEND_ONLY,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .spoil = SROCE_RX_ONLY_BTH,
	  .drop = SROCE_CNT_RX_DROP_MALFORMED },
	{ .name = "reth_missing", .opcode = IB_OPCODE_RC_RDMA_READ_REQUEST,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .spoil = SROCE_RX_TRUNC,
	  .drop = SROCE_CNT_RX_DROP_MALFORMED },
	{ .name = "tver_1", .opcode = IB_OPCODE_RC_SEND_ONLY,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .payload = 16,
	  .spoil = SROCE_RX_TVER, .drop = SROCE_CNT_RX_DROP_MALFORMED },
	{ .name = "ack_with_pad", .opcode = IB_OPCODE_RC_ACKNOWLEDGE,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .pad = 2, .extra = 2,
	  .drop = SROCE_CNT_RX_DROP_MALFORMED },
	{ .name = "ack_with_payload", .opcode = IB_OPCODE_RC_ACKNOWLEDGE,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .extra = 4,
	  .drop = SROCE_CNT_RX_DROP_MALFORMED },
	{ .name = "read_req_with_payload", .ipv6 = true,
	  .opcode = IB_OPCODE_RC_RDMA_READ_REQUEST, .qpn = SROCE_RX_QPN_RC,
	  .pkey = FULL, .extra = 8, .drop = SROCE_CNT_RX_DROP_MALFORMED },
	/* opcode, P_Key, QP */
	{ .name = "opcode_reserved", .opcode = 0x15, .qpn = SROCE_RX_QPN_RC,
	  .pkey = FULL, .drop = SROCE_CNT_RX_DROP_OPCODE },
	{ .name = "opcode_rd", .opcode = 0x44, .qpn = SROCE_RX_QPN_RC,
	  .pkey = FULL, .drop = SROCE_CNT_RX_DROP_OPCODE },
	{ .name = "opcode_ff", .ipv6 = true, .opcode = 0xff,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL,
	  .drop = SROCE_CNT_RX_DROP_OPCODE },
	{ .name = "rc_opcode_to_ud_qp", .opcode = IB_OPCODE_RC_SEND_ONLY,
	  .qpn = SROCE_RX_QPN_UD, .pkey = FULL, .payload = 8,
	  .drop = SROCE_CNT_RX_DROP_OPCODE },
	{ .name = "ud_opcode_to_rc_qp", .opcode = IB_OPCODE_UD_SEND_ONLY,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .payload = 8,
	  .drop = SROCE_CNT_RX_DROP_OPCODE },
	{ .name = "uc_opcode_to_rc_qp", .opcode = IB_OPCODE_UC_SEND_ONLY,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .payload = 8,
	  .drop = SROCE_CNT_RX_DROP_OPCODE },
	/* XRC (annex A14): requests to a TGT QP only, responses to INI only */
	{ .name = "rc_opcode_to_xrc_tgt", .opcode = IB_OPCODE_RC_SEND_ONLY,
	  .qpn = SROCE_RX_QPN_TGT, .pkey = FULL, .payload = 8,
	  .drop = SROCE_CNT_RX_DROP_OPCODE },
	{ .name = "xrc_request_to_rc_qp", .opcode = 0xa0 | IB_OPCODE_SEND_ONLY,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .payload = 8,
	  .drop = SROCE_CNT_RX_DROP_OPCODE },
	{ .name = "xrc_request_to_xrc_ini",
	  .opcode = 0xa0 | IB_OPCODE_SEND_ONLY, .qpn = SROCE_RX_QPN_INI,
	  .pkey = FULL, .payload = 8, .drop = SROCE_CNT_RX_DROP_OPCODE },
	{ .name = "xrc_ack_to_xrc_tgt", .opcode = 0xa0 | IB_OPCODE_ACKNOWLEDGE,
	  .qpn = SROCE_RX_QPN_TGT, .pkey = FULL,
	  .drop = SROCE_CNT_RX_DROP_OPCODE },
	{ .name = "rc_ack_to_xrc_ini", .opcode = IB_OPCODE_RC_ACKNOWLEDGE,
	  .qpn = SROCE_RX_QPN_INI, .pkey = FULL,
	  .drop = SROCE_CNT_RX_DROP_OPCODE },
	{ .name = "xrc_send_from_other_host",
	  .opcode = 0xa0 | IB_OPCODE_SEND_ONLY, .qpn = SROCE_RX_QPN_TGT,
	  .pkey = FULL, .payload = 8, .spoil = SROCE_RX_SADDR,
	  .drop = SROCE_CNT_RX_DROP_ADDR },
	{ .name = "pkey_other", .opcode = IB_OPCODE_RC_SEND_ONLY,
	  .qpn = SROCE_RX_QPN_RC, .pkey = 0x8001, .payload = 8,
	  .drop = SROCE_CNT_RX_DROP_PKEY },
	{ .name = "pkey_zero", .ipv6 = true, .opcode = IB_OPCODE_RC_SEND_ONLY,
	  .qpn = SROCE_RX_QPN_RC, .pkey = 0, .payload = 8,
	  .drop = SROCE_CNT_RX_DROP_PKEY },
	{ .name = "no_such_qp", .opcode = IB_OPCODE_RC_SEND_ONLY,
	  .qpn = 0x000999, .pkey = FULL, .payload = 8,
	  .drop = SROCE_CNT_RX_DROP_NO_QP },
	{ .name = "qpn_zero", .opcode = IB_OPCODE_UD_SEND_ONLY, .qpn = 0,
	  .pkey = FULL, .payload = 8, .drop = SROCE_CNT_RX_DROP_NO_QP },
	{ .name = "qpn_max", .opcode = IB_OPCODE_RC_SEND_ONLY,
	  .qpn = SROCE_QPN_MASK, .pkey = FULL, .payload = 8,
	  .drop = SROCE_CNT_RX_DROP_NO_QP },
	/*
	 * The multicast QPN: a UD SEND to a multicast group goes on without
	 * a QP (sroce_mcast_rcv() finds the attached ones); to a unicast
	 * address there is no such QP; other transports may not multicast.
	 */
	{ .name = "ud_to_mcast_group", .opcode = IB_OPCODE_UD_SEND_ONLY,
	  .qpn = IB_MULTICAST_QPN, .pkey = FULL, .payload = 64,
	  .spoil = SROCE_RX_MCAST, .drop = OK },
	{ .name = "ud_imm_to_mcast_group_v6", .ipv6 = true,
	  .opcode = IB_OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE,
	  .qpn = IB_MULTICAST_QPN, .pkey = FULL, .payload = 8,
	  .spoil = SROCE_RX_MCAST, .drop = OK },
	{ .name = "ud_mcast_qpn_unicast_daddr", .opcode = IB_OPCODE_UD_SEND_ONLY,
	  .qpn = IB_MULTICAST_QPN, .pkey = FULL, .payload = 8,
	  .drop = SROCE_CNT_RX_DROP_NO_QP },
	{ .name = "rc_to_mcast_group", .opcode = IB_OPCODE_RC_SEND_ONLY,
	  .qpn = IB_MULTICAST_QPN, .pkey = FULL, .payload = 8,
	  .spoil = SROCE_RX_MCAST, .drop = SROCE_CNT_RX_DROP_OPCODE },
	{ .name = "uc_to_mcast_group_v6", .ipv6 = true,
	  .opcode = IB_OPCODE_UC_SEND_ONLY, .qpn = IB_MULTICAST_QPN,
	  .pkey = FULL, .payload = 8, .spoil = SROCE_RX_MCAST,
	  .drop = SROCE_CNT_RX_DROP_OPCODE },
	{ .name = "cnp_to_mcast_group", .opcode = SROCE_CNP_OPCODE,
	  .qpn = IB_MULTICAST_QPN, .pkey = FULL, .spoil = SROCE_RX_MCAST,
	  .drop = SROCE_CNT_RX_DROP_OPCODE },
	/* connected QPs: from their path only; datagram QPs: from anyone */
	{ .name = "rc_saddr_other", .opcode = IB_OPCODE_RC_SEND_ONLY,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .payload = 16,
	  .spoil = SROCE_RX_SADDR, .drop = SROCE_CNT_RX_DROP_ADDR },
	{ .name = "rc_saddr_other_v6", .ipv6 = true,
	  .opcode = IB_OPCODE_RC_SEND_ONLY, .qpn = SROCE_RX_QPN_RC,
	  .pkey = FULL, .payload = 16, .spoil = SROCE_RX_SADDR,
	  .drop = SROCE_CNT_RX_DROP_ADDR },
	{ .name = "rc_daddr_other", .opcode = IB_OPCODE_RC_RDMA_READ_REQUEST,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .spoil = SROCE_RX_DADDR,
	  .drop = SROCE_CNT_RX_DROP_ADDR },
	{ .name = "rc_ack_saddr_other", .opcode = IB_OPCODE_RC_ACKNOWLEDGE,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .spoil = SROCE_RX_SADDR,
	  .drop = SROCE_CNT_RX_DROP_ADDR },
	{ .name = "uc_saddr_other", .opcode = IB_OPCODE_UC_RDMA_WRITE_ONLY,
	  .qpn = SROCE_RX_QPN_UC, .pkey = FULL, .payload = 64,
	  .spoil = SROCE_RX_SADDR, .drop = SROCE_CNT_RX_DROP_ADDR },
	{ .name = "uc_daddr_other_v6", .ipv6 = true,
	  .opcode = IB_OPCODE_UC_SEND_ONLY, .qpn = SROCE_RX_QPN_UC,
	  .pkey = FULL, .payload = 8, .spoil = SROCE_RX_DADDR,
	  .drop = SROCE_CNT_RX_DROP_ADDR },
	{ .name = "cnp_to_rc_saddr_other", .opcode = SROCE_CNP_OPCODE,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .spoil = SROCE_RX_SADDR,
	  .drop = SROCE_CNT_RX_DROP_ADDR },
	{ .name = "cnp_to_rc_daddr_other_v6", .ipv6 = true,
	  .opcode = SROCE_CNP_OPCODE, .qpn = SROCE_RX_QPN_RC, .pkey = FULL,
	  .spoil = SROCE_RX_DADDR, .drop = SROCE_CNT_RX_DROP_ADDR },
	{ .name = "cnp_to_uc_saddr_other", .opcode = SROCE_CNP_OPCODE,
	  .qpn = SROCE_RX_QPN_UC, .pkey = FULL, .spoil = SROCE_RX_SADDR,
	  .drop = SROCE_CNT_RX_DROP_ADDR },
	{ .name = "ud_saddr_other", .opcode = IB_OPCODE_UD_SEND_ONLY,
	  .qpn = SROCE_RX_QPN_UD, .pkey = FULL, .payload = 32,
	  .spoil = SROCE_RX_SADDR, .drop = OK },
	{ .name = "gsi_saddr_other_v6", .ipv6 = true,
	  .opcode = IB_OPCODE_UD_SEND_ONLY, .qpn = SROCE_RX_QPN_GSI,
	  .pkey = FULL, .payload = 32, .spoil = SROCE_RX_SADDR, .drop = OK },
	/*
	 * CNPs: for connected QPs with a path only.  A datagram QP takes
	 * packets from anyone, so anyone could throttle it; the path of a QP
	 * back in RESET or INIT (after a RESET) is stale; in ERR it sends
	 * nothing.
	 */
	{ .name = "cnp_to_ud", .opcode = SROCE_CNP_OPCODE,
	  .qpn = SROCE_RX_QPN_UD, .pkey = FULL, .tos = 0x03,
	  .drop = SROCE_CNT_RX_DROP_OPCODE },
	{ .name = "cnp_to_ud_v6", .ipv6 = true, .opcode = SROCE_CNP_OPCODE,
	  .qpn = SROCE_RX_QPN_UD, .pkey = FULL,
	  .drop = SROCE_CNT_RX_DROP_OPCODE },
	{ .name = "cnp_to_ud_saddr_other", .opcode = SROCE_CNP_OPCODE,
	  .qpn = SROCE_RX_QPN_UD, .pkey = FULL, .spoil = SROCE_RX_SADDR,
	  .drop = SROCE_CNT_RX_DROP_OPCODE },
	{ .name = "cnp_to_gsi", .opcode = SROCE_CNP_OPCODE,
	  .qpn = SROCE_RX_QPN_GSI, .pkey = FULL,
	  .drop = SROCE_CNT_RX_DROP_OPCODE },
	{ .name = "cnp_to_rc_in_reset", .opcode = SROCE_CNP_OPCODE,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .state = QPS(IB_QPS_RESET),
	  .drop = SROCE_CNT_RX_DROP_STATE },
	{ .name = "cnp_to_rc_in_init", .opcode = SROCE_CNP_OPCODE,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .state = QPS(IB_QPS_INIT),
	  .drop = SROCE_CNT_RX_DROP_STATE },
	{ .name = "cnp_to_rc_in_err", .opcode = SROCE_CNP_OPCODE,
	  .qpn = SROCE_RX_QPN_RC, .pkey = FULL, .state = QPS(IB_QPS_ERR),
	  .drop = SROCE_CNT_RX_DROP_STATE },
};

#undef OK
#undef QPS
#undef FULL

static void sroce_rx_case_desc(const struct sroce_rx_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sroce_rx, sroce_rx_cases, sroce_rx_case_desc);

struct sroce_rx_ctx {
	struct sroce_dev *dev;
	struct sroce_qp *qp[6];
};

static const struct {
	u32 qpn;
	enum ib_qp_type type;
} sroce_rx_qps[] = {
	{ .qpn = SROCE_RX_QPN_RC, .type = IB_QPT_RC },
	{ .qpn = SROCE_RX_QPN_UD, .type = IB_QPT_UD },
	{ .qpn = SROCE_RX_QPN_GSI, .type = IB_QPT_GSI },
	{ .qpn = SROCE_RX_QPN_UC, .type = IB_QPT_UC },
	{ .qpn = SROCE_RX_QPN_TGT, .type = IB_QPT_XRC_TGT },
	{ .qpn = SROCE_RX_QPN_INI, .type = IB_QPT_XRC_INI },
};

/* A device with six published QPs, one per type. */
static int sroce_rx_init(struct kunit *test)
{
	struct sroce_rx_ctx *ctx;
	unsigned int i;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->dev = kunit_kzalloc(test, sizeof(*ctx->dev), GFP_KERNEL);
	if (!ctx->dev)
		return -ENOMEM;
	xa_init(&ctx->dev->qp_xa);
	for (i = 0; i < ARRAY_SIZE(sroce_rx_qps); i++) {
		struct sroce_qp *qp;

		qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);
		if (!qp)
			return -ENOMEM;
		qp->dev = ctx->dev;
		qp->type = sroce_rx_qps[i].type;
		qp->state = IB_QPS_RTS;
		qp->attr.qkey = SROCE_RX_QKEY;
		qp->ibqp.qp_num = sroce_rx_qps[i].qpn;
		spin_lock_init(&qp->state_lock);
		seqcount_spinlock_init(&qp->av_seq, &qp->state_lock);
		kref_init(&qp->ref);
		init_completion(&qp->done);
		if (xa_err(xa_store(&ctx->dev->qp_xa, sroce_rx_qps[i].qpn, qp,
				    GFP_KERNEL)))
			return -ENOMEM;
		ctx->qp[i] = qp;
	}
	test->priv = ctx;
	return 0;
}

static void sroce_rx_exit(struct kunit *test)
{
	struct sroce_rx_ctx *ctx = test->priv;
	unsigned int i;

	if (!ctx)
		return;
	/* every reference a verdict took was given back */
	for (i = 0; i < ARRAY_SIZE(ctx->qp); i++)
		if (ctx->qp[i])
			KUNIT_EXPECT_EQ(test, kref_read(&ctx->qp[i]->ref), 1u);
	xa_destroy(&ctx->dev->qp_xa);
}

/*
 * Build the packet: IP, UDP, BTH (+ extended headers, zero), payload,
 * pad, ICRC; skb->data at the UDP header as in encap_rcv.
 */
static struct sk_buff *sroce_rx_build(struct kunit *test,
				      const struct sroce_rx_case *c)
{
	const struct sroce_opcode_info *info = &sroce_opcode[c->opcode];
	unsigned int iplen = c->ipv6 ? sizeof(struct ipv6hdr) :
				       sizeof(struct iphdr);
	u32 hlen = info->name ? info->length : sizeof(struct sroce_bth);
	u32 pad = c->pad ?: -c->payload & 3;
	u32 tlen = hlen + c->payload + c->extra + pad + SROCE_ICRC_SIZE;
	u8 src = c->spoil == SROCE_RX_SADDR ? SROCE_RX_HOST_OTHER :
					       SROCE_RX_HOST_PEER;
	u8 dst = c->spoil == SROCE_RX_DADDR ? SROCE_RX_HOST_OTHER :
					       SROCE_RX_HOST_SELF;
	struct sroce_pkt_info pkt = {};
	struct sk_buff *skb;
	struct udphdr *uh;
	u8 *p;
	u32 i;

	skb = alloc_skb(128 + iplen + sizeof(*uh) + tlen, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, 128);
	skb->protocol = htons(c->ipv6 ? ETH_P_IPV6 : ETH_P_IP);

	skb_reset_network_header(skb);
	if (c->ipv6) {
		struct ipv6hdr *ip6 = skb_put_zero(skb, sizeof(*ip6));

		ip6_flow_hdr(ip6, c->tos, htonl(0x12345));
		ip6->payload_len = htons(sizeof(*uh) + tlen);
		ip6->nexthdr = IPPROTO_UDP;
		ip6->hop_limit = 64;
		sroce_rx_addr(&ip6->saddr, true, src);
		sroce_rx_addr(&ip6->daddr, true, dst);
		if (c->spoil == SROCE_RX_MCAST)
			sroce_rx_mcast_addr(&ip6->daddr);
	} else {
		struct iphdr *iph = skb_put_zero(skb, sizeof(*iph));

		iph->version = 4;
		iph->ihl = 5;
		iph->tos = c->tos;
		iph->tot_len = htons(sizeof(*iph) + sizeof(*uh) + tlen);
		iph->frag_off = htons(IP_DF);
		iph->ttl = 64;
		iph->protocol = IPPROTO_UDP;
		iph->saddr = htonl(0xc0a80100 | src);
		iph->daddr = htonl(c->spoil == SROCE_RX_MCAST ?
				   SROCE_RX_MCAST_V4 : 0xc0a80100 | dst);
		ip_send_check(iph);
	}

	skb_set_transport_header(skb, iplen);
	uh = skb_put_zero(skb, sizeof(*uh));
	uh->source = htons(0xc123);
	uh->dest = htons(SROCE_UDP_PORT);
	uh->len = htons(sizeof(*uh) + tlen);

	p = skb_put_zero(skb, tlen);
	sroce_bth_init((struct sroce_bth *)p, c->opcode, false, pad, c->pkey,
		       c->qpn, true, 0x000abc);
	if (c->opcode == SROCE_CNP_OPCODE)
		((struct sroce_bth *)p)->qpn |= cpu_to_be32(SROCE_BTH_BECN);
	for (i = 0; i < c->payload + c->extra; i++)
		p[hlen + i] = i * 13 + 5;
	if (info->name && (info->mask & SROCE_MASK_DETH)) {
		struct sroce_deth *deth = (void *)(p + info->offset[SROCE_HDR_DETH]);

		deth->qkey = cpu_to_be32(c->qpn == SROCE_RX_QPN_GSI ?
					 SROCE_GSI_QKEY : SROCE_RX_QKEY);
	}

	/* header spoils first: the ICRC covers them and stays right */
	if (c->spoil == SROCE_RX_UDP_LEN)
		be16_add_cpu(&uh->len, 1);
	else if (c->spoil == SROCE_RX_UDP_SHORT)
		be16_add_cpu(&uh->len, -1);
	else if (c->spoil == SROCE_RX_TVER)
		p[1] |= 1;

	/* the ICRC over the finished packet, stored little-endian */
	pkt.hdr = p;
	pkt.paylen = tlen;
	put_unaligned_le32(sroce_icrc_compute(skb, &pkt),
			   p + tlen - SROCE_ICRC_SIZE);

	if (c->spoil == SROCE_RX_ICRC) {
		p[hlen + c->payload / 2] ^= 0x10;
	} else if (c->spoil == SROCE_RX_TRUNC) {
		/* one byte short of headers, pad and ICRC */
		tlen = hlen + pad + SROCE_ICRC_SIZE - 1;
		skb_trim(skb, iplen + sizeof(*uh) + tlen);
		uh->len = htons(sizeof(*uh) + tlen);
	} else if (c->spoil == SROCE_RX_ONLY_BTH) {
		skb_trim(skb, iplen + sizeof(*uh) + 6);
		uh->len = htons(sizeof(*uh) + 6);
	}
	/* as encap_rcv gets it: data at the UDP header */
	__skb_pull(skb, iplen);
	return skb;
}

/* Move everything after the first @keep bytes into a page fragment. */
static void sroce_rx_make_paged(struct kunit *test, struct sk_buff *skb,
				unsigned int keep)
{
	unsigned int n = skb->len - keep;
	struct page *page = alloc_page(GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, page);
	memcpy(page_address(page), skb->data + keep, n);
	skb_trim(skb, keep);
	skb_add_rx_frag(skb, 0, page, 0, n, PAGE_SIZE);
}

/* The connected QPs' paths, from us to the peer, in the case's family. */
static void sroce_rx_set_paths(struct sroce_rx_ctx *ctx, bool ipv6)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ctx->qp); i++) {
		struct sroce_av *av = &ctx->qp[i]->av;

		if (!sroce_qpt_connected(ctx->qp[i]->type))
			continue;
		av->network_type = ipv6 ? RDMA_NETWORK_IPV6 :
					  RDMA_NETWORK_IPV4;
		sroce_rx_addr(&av->saddr, ipv6, SROCE_RX_HOST_SELF);
		sroce_rx_addr(&av->daddr, ipv6, SROCE_RX_HOST_PEER);
	}
}

static void sroce_rx_test(struct kunit *test)
{
	const struct sroce_rx_case *c = test->param_value;
	struct sroce_rx_ctx *ctx = test->priv;
	enum sroce_counter drop = SROCE_NUM_COUNTERS;
	struct sroce_pkt_info *pkt;
	struct sk_buff *skb;
	int err;

	sroce_rx_set_paths(ctx, c->ipv6);
	if (c->state)
		ctx->qp[0]->state = c->state - 1;	/* the RC QP */
	skb = sroce_rx_build(test, c);
	if (c->spoil == SROCE_RX_NONLINEAR)
		sroce_rx_make_paged(test, skb, sizeof(struct udphdr) + 4);

	rcu_read_lock();
	err = sroce_recv_check(ctx->dev, skb, c->local, &drop);
	rcu_read_unlock();

	if (c->drop >= 0) {
		KUNIT_EXPECT_EQ(test, err, -EINVAL);
		KUNIT_EXPECT_EQ(test, drop, c->drop);
		kfree_skb(skb);
		return;
	}

	KUNIT_EXPECT_EQ(test, err, 0);
	if (err) {
		kunit_info(test, "dropped with counter %d", drop);
		kfree_skb(skb);
		return;
	}
	pkt = SROCE_PKT(skb);
	KUNIT_EXPECT_EQ(test, pkt->local, c->local);
	if (c->qpn == IB_MULTICAST_QPN)
		KUNIT_EXPECT_NULL(test, pkt->qp);
	else
		KUNIT_EXPECT_NOT_NULL(test, pkt->qp);
	if (pkt->qp)
		KUNIT_EXPECT_EQ(test, sroce_qpn(pkt->qp), c->qpn);
	KUNIT_EXPECT_PTR_EQ(test, pkt->hdr, skb->data);
	KUNIT_EXPECT_EQ(test, pkt->opcode, c->opcode);
	KUNIT_EXPECT_EQ(test, pkt->mask, sroce_opcode[c->opcode].mask);
	KUNIT_EXPECT_EQ(test, pkt->psn, 0x000abcu);
	KUNIT_EXPECT_EQ(test, pkt->paylen, skb->len);
	KUNIT_EXPECT_EQ(test, pkt->paylen, sroce_opcode[c->opcode].length +
			c->payload + sroce_bth_pad(sroce_pkt_bth(pkt)) +
			SROCE_ICRC_SIZE);
	KUNIT_EXPECT_EQ(test, pkt->ecn, c->tos & INET_ECN_MASK);
	KUNIT_EXPECT_EQ(test, pkt->port_num, 1);
	KUNIT_EXPECT_EQ(test, pkt->network_type,
			c->ipv6 ? RDMA_NETWORK_IPV6 : RDMA_NETWORK_IPV4);
	/* the whole header is linear now, wherever it arrived */
	KUNIT_EXPECT_GE(test, skb_headlen(skb),
			sroce_opcode[c->opcode].length);
	if (pkt->qp)
		sroce_qp_put(pkt->qp);
	kfree_skb(skb);
}

static struct kunit_case sroce_rx_test_cases[] = {
	KUNIT_CASE_PARAM(sroce_rx_test, sroce_rx_gen_params),
	{}
};

static struct kunit_suite sroce_rx_suite = {
	.name = "sroce_rx",
	.init = sroce_rx_init,
	.exit = sroce_rx_exit,
	.test_cases = sroce_rx_test_cases,
};

/* ------------------------------------------------------------------ */
/* sroce_rx_addr: sroce_recv_addr_ok()                                 */
/* ------------------------------------------------------------------ */

/* 198.18.0.x v4-mapped, 2001:db8::x */
#define V4(x)	{ .s6_addr = { [10] = 0xff, [11] = 0xff, [12] = 198, \
			       [13] = 18, [15] = (x) } }
#define V6(x)	{ .s6_addr = { [0] = 0x20, [1] = 0x01, [2] = 0x0d, \
			       [3] = 0xb8, [15] = (x) } }
/* the same four low bytes as V4(x), not v4-mapped */
#define V6_LOW4(x) { .s6_addr = { [0] = 0x20, [1] = 0x01, [12] = 198, \
				  [13] = 18, [15] = (x) } }

/* @path from us (1) to the peer (2); a packet from @saddr to @daddr */
struct sroce_rx_addr_case {
	const char *name;
	enum ib_qp_type type;
	struct sroce_av path;
	struct in6_addr saddr;
	struct in6_addr daddr;
	bool ok;
};

static const struct sroce_rx_addr_case sroce_rx_addr_cases[] = {
	{ .name = "rc_v4_from_peer", .type = IB_QPT_RC,
	  .path = { .saddr = V4(1), .daddr = V4(2) },
	  .saddr = V4(2), .daddr = V4(1), .ok = true },
	{ .name = "rc_v6_from_peer", .type = IB_QPT_RC,
	  .path = { .saddr = V6(1), .daddr = V6(2) },
	  .saddr = V6(2), .daddr = V6(1), .ok = true },
	{ .name = "uc_v4_from_peer", .type = IB_QPT_UC,
	  .path = { .saddr = V4(1), .daddr = V4(2) },
	  .saddr = V4(2), .daddr = V4(1), .ok = true },
	{ .name = "uc_v6_from_peer", .type = IB_QPT_UC,
	  .path = { .saddr = V6(1), .daddr = V6(2) },
	  .saddr = V6(2), .daddr = V6(1), .ok = true },
	{ .name = "rc_v4_from_other", .type = IB_QPT_RC,
	  .path = { .saddr = V4(1), .daddr = V4(2) },
	  .saddr = V4(3), .daddr = V4(1) },
	{ .name = "rc_v4_to_other", .type = IB_QPT_RC,
	  .path = { .saddr = V4(1), .daddr = V4(2) },
	  .saddr = V4(2), .daddr = V4(3) },
	{ .name = "rc_v4_reversed", .type = IB_QPT_RC,
	  .path = { .saddr = V4(1), .daddr = V4(2) },
	  .saddr = V4(1), .daddr = V4(2) },
	{ .name = "rc_v4_from_self", .type = IB_QPT_RC,
	  .path = { .saddr = V4(1), .daddr = V4(2) },
	  .saddr = V4(1), .daddr = V4(1) },
	{ .name = "rc_v6_from_other", .type = IB_QPT_RC,
	  .path = { .saddr = V6(1), .daddr = V6(2) },
	  .saddr = V6(3), .daddr = V6(1) },
	{ .name = "uc_v6_to_other", .type = IB_QPT_UC,
	  .path = { .saddr = V6(1), .daddr = V6(2) },
	  .saddr = V6(2), .daddr = V6(3) },
	{ .name = "uc_v4_from_other", .type = IB_QPT_UC,
	  .path = { .saddr = V4(1), .daddr = V4(2) },
	  .saddr = V4(3), .daddr = V4(1) },
	{ .name = "rc_v4_packet_v6_path", .type = IB_QPT_RC,
	  .path = { .saddr = V6(1), .daddr = V6(2) },
	  .saddr = V4(2), .daddr = V4(1) },
	{ .name = "rc_v6_low_bytes_of_v4_path", .type = IB_QPT_RC,
	  .path = { .saddr = V4(1), .daddr = V4(2) },
	  .saddr = V6_LOW4(2), .daddr = V6_LOW4(1) },
	{ .name = "rc_no_path_yet", .type = IB_QPT_RC,
	  .saddr = V4(2), .daddr = V4(1) },
	{ .name = "ud_from_anyone", .type = IB_QPT_UD,
	  .path = { .saddr = V4(1), .daddr = V4(2) },
	  .saddr = V4(3), .daddr = V4(4), .ok = true },
	{ .name = "ud_no_path", .type = IB_QPT_UD,
	  .saddr = V6(3), .daddr = V6(1), .ok = true },
	{ .name = "gsi_from_anyone", .type = IB_QPT_GSI,
	  .path = { .saddr = V6(1), .daddr = V6(2) },
	  .saddr = V4(3), .daddr = V4(1), .ok = true },
};

#undef V4
#undef V6
#undef V6_LOW4

static void sroce_rx_addr_case_desc(const struct sroce_rx_addr_case *c,
				    char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sroce_rx_addr, sroce_rx_addr_cases, sroce_rx_addr_case_desc);

static void sroce_rx_addr_test(struct kunit *test)
{
	const struct sroce_rx_addr_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, sroce_recv_addr_ok(c->type, &c->path, &c->saddr,
						 &c->daddr), c->ok);
}

static struct kunit_case sroce_rx_addr_test_cases[] = {
	KUNIT_CASE_PARAM(sroce_rx_addr_test, sroce_rx_addr_gen_params),
	{}
};

static struct kunit_suite sroce_rx_addr_suite = {
	.name = "sroce_rx_addr",
	.test_cases = sroce_rx_addr_test_cases,
};

kunit_test_suites(&sroce_rx_suite, &sroce_rx_addr_suite);
