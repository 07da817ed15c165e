// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite sroce_net_gso: a run's request packets sent as one skb
 * (sroce_net_gso.c).  Each case builds encapsulated IPv4 RoCEv2 packets
 * (linear, or with their payload in a page fragment, as the zero-copy
 * gather builds them), batches them, lets the IP stack's part happen (the
 * head's total length and header checksum, as ip_local_out() sets them)
 * and cuts the batch up as a receiving UDP socket does
 * (__skb_gso_segment() with the features of udp_rcv_segment()).  Every
 * segment must be the very packet that went in, byte for byte: its own
 * IPv4 ID, total length and checksum, its UDP length, its BTH, payload and
 * ICRC.  That is the claim the batching rests on: the wire carries the
 * packets an unbatched send would.  (The packets of a batch share the
 * head's addresses and ports, as one QP's do: the segmentation gives
 * every packet the head's, as after NAT, __udpv4_gso_segment_list_csum().)
 */
#include <kunit/test.h>
#include <linux/ip.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/udp.h>

#include "sroce_net.h"

#define GSO_MAX_PKTS	6
#define GSO_HEADROOM	128
#define GSO_PAGED_HDR	28	/* BTH + RETH in the linear part */

struct sroce_gso_case {
	const char *name;
	unsigned int n;
	u16 len[GSO_MAX_PKTS];	/* each packet's UDP payload, BTH to ICRC */
	bool paged;
	bool nic;	/* cut up by a NIC without NETIF_F_FRAGLIST (TX) */
};

static const struct sroce_gso_case sroce_gso_cases[] = {
	{ .name = "one_packet_no_gso", .n = 1, .len = { 1056 } },
	{ .name = "write_first_middle_last", .n = 3,
	  .len = { 1056, 1040, 1040 } },
	{ .name = "short_last", .n = 3, .len = { 1056, 1040, 300 } },
	{ .name = "short_last_nic", .n = 3, .len = { 1056, 1040, 300 },
	  .nic = true },
	{ .name = "next_message_larger", .n = 4,
	  .len = { 1040, 1040, 1056, 1040 } },
	{ .name = "two_small", .n = 2, .len = { 32, 16 } },
	{ .name = "mtu9000", .n = 3, .len = { 4128, 4112, 4112 } },
	{ .name = "paged", .n = 3, .len = { 1056, 1040, 1040 }, .paged = true },
	{ .name = "paged_nic", .n = 3, .len = { 1056, 1040, 1040 },
	  .paged = true, .nic = true },
	{ .name = "paged_six", .n = 6, .paged = true,
	  .len = { 4128, 4112, 4112, 4112, 4112, 1000 } },
};

static void sroce_gso_case_desc(const struct sroce_gso_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s (%u packets%s%s)", c->name,
		 c->n, c->paged ? ", paged" : "", c->nic ? ", NIC" : "");
}

KUNIT_ARRAY_PARAM(sroce_gso, sroce_gso_cases, sroce_gso_case_desc);

static void sroce_gso_fill(u8 *p, unsigned int len, unsigned int seed)
{
	unsigned int i;

	for (i = 0; i < len; i++)
		p[i] = (u8)(seed * 37 + i * 7);
}

/* An encapsulated packet as sroce_net_xmit() leaves it: data at IPv4. */
static struct sk_buff *sroce_gso_pkt(struct kunit *test, u16 len, u16 id,
				     bool paged, unsigned int seed)
{
	unsigned int lin = paged ? GSO_PAGED_HDR : len;
	struct sk_buff *skb;
	struct udphdr *uh;
	struct iphdr *iph;
	struct page *page;

	skb = alloc_skb(GSO_HEADROOM + lin, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_reserve(skb, GSO_HEADROOM);
	sroce_gso_fill(skb_put(skb, lin), lin, seed);
	if (paged) {
		/* two pages: a 4 KiB payload and its pad and ICRC */
		page = alloc_pages(GFP_KERNEL, 1);
		KUNIT_ASSERT_NOT_NULL(test, page);
		sroce_gso_fill(page_address(page), len - lin, seed + 1);
		skb_add_rx_frag(skb, 0, page, 0, len - lin, 2 * PAGE_SIZE);
	}
	uh = skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	/* one QP's flow: the 4-tuple of every packet is the head's */
	uh->source = htons(0xc123);
	uh->dest = htons(4791);
	uh->len = htons(skb->len);
	uh->check = 0;
	iph = skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	*iph = (struct iphdr){
		.version = 4, .ihl = 5, .tos = 0x02, .tot_len = htons(skb->len),
		.id = htons(id), .frag_off = htons(IP_DF), .ttl = 64,
		.protocol = IPPROTO_UDP, .saddr = htonl(0xc0a80101),
		.daddr = htonl(0xc0a80102),
	};
	ip_send_check(iph);
	skb->protocol = htons(ETH_P_IP);
	return skb;
}

/* @skb's bytes must be @want's: the first difference is reported */
static void sroce_gso_expect_bytes(struct kunit *test, struct sk_buff *skb,
				   const u8 *want, unsigned int len,
				   unsigned int seg)
{
	u8 *got = kunit_kzalloc(test, len, GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, got);
	KUNIT_ASSERT_EQ(test, skb->len, len);
	KUNIT_ASSERT_EQ(test, skb_copy_bits(skb, 0, got, len), 0);
	for (i = 0; i < len; i++) {
		if (got[i] != want[i]) {
			KUNIT_FAIL(test, "segment %u byte %u: %#x, want %#x",
				   seg, i, got[i], want[i]);
			return;
		}
	}
}

static u8 *sroce_gso_bytes(struct kunit *test, struct sk_buff *skb)
{
	u8 *buf = kunit_kzalloc(test, skb->len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, skb_copy_bits(skb, 0, buf, skb->len), 0);
	return buf;
}

/* The batch of @c, its head as ip_local_out() hands it on. */
static struct sk_buff *sroce_gso_batch(struct kunit *test,
				       const struct sroce_gso_case *c,
				       u8 **want, unsigned int *want_len)
{
	struct sroce_net_batch b = {};
	u16 id = 0xfffe;	/* the IDs wrap inside the batch */
	struct sk_buff *skb;
	unsigned int i;

	for (i = 0; i < c->n; i++) {
		skb = sroce_gso_pkt(test, c->len[i], id + i, c->paged, i);
		want[i] = sroce_gso_bytes(test, skb);
		want_len[i] = skb->len;
		if (!i) {
			/* an empty batch has no room: a packet starts it */
			KUNIT_EXPECT_FALSE(test,
					   sroce_net_batch_room(&b, c->len[i]));
			sroce_net_batch_start(&b, skb);
			continue;
		}
		KUNIT_EXPECT_TRUE(test, sroce_net_batch_room(&b, c->len[i]));
		KUNIT_EXPECT_EQ(test, b.next_id, (u16)(id + i));
		sroce_net_batch_add(&b, skb);
	}
	skb = sroce_net_batch_take(&b);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	KUNIT_EXPECT_NULL(test, b.head);
	KUNIT_EXPECT_NULL(test, sroce_net_batch_take(&b));
	ip_hdr(skb)->tot_len = htons(skb->len);
	ip_send_check(ip_hdr(skb));
	return skb;
}

static void sroce_gso_segment_test(struct kunit *test)
{
	const struct sroce_gso_case *c = test->param_value;
	unsigned int want_len[GSO_MAX_PKTS], i = 0;
	struct sk_buff *head, *segs, *seg, *next;
	u8 *want[GSO_MAX_PKTS];

	head = sroce_gso_batch(test, c, want, want_len);
	if (c->n == 1) {
		KUNIT_EXPECT_FALSE(test, skb_is_gso(head));
		sroce_gso_expect_bytes(test, head, want[0], want_len[0], 0);
		kfree_skb(head);
		return;
	}
	KUNIT_EXPECT_TRUE(test, skb_is_gso(head));
	/* else every netdev would segment it, warning: validate_xmit_skb() */
	KUNIT_EXPECT_EQ(test, (int)head->ip_summed, CHECKSUM_UNNECESSARY);
	KUNIT_EXPECT_EQ(test, skb_shinfo(head)->gso_segs, c->n);
	KUNIT_EXPECT_EQ(test, skb_shinfo(head)->gso_size, c->len[0]);
	KUNIT_EXPECT_EQ(test, ntohs(udp_hdr(head)->len),
			head->len - sizeof(struct iphdr));

	/*
	 * As udp_rcv_segment() does (no csum recalculation, SG), or as
	 * validate_xmit_skb() does for a NIC that can gather and checksum but
	 * takes no fraglist GSO skb.
	 */
	skb_reset_mac_header(head);
	segs = __skb_gso_segment(head, NETIF_F_SG | NETIF_F_IP_CSUM, c->nic);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(segs));
	consume_skb(head);
	skb_list_walk_safe(segs, seg, next) {
		skb_mark_not_on_list(seg);
		if (i < c->n)
			sroce_gso_expect_bytes(test, seg, want[i], want_len[i],
					       i);
		i++;
		kfree_skb(seg);
	}
	KUNIT_EXPECT_EQ(test, i, c->n);
}

static atomic_t sroce_gso_dtor_runs;

static void sroce_gso_dtor(struct sk_buff *skb)
{
	atomic_inc(&sroce_gso_dtor_runs);
}

/*
 * A packet's destructor runs once, as it joins the batch: never again
 * when the batch is cut up (skb_segment_list() runs a segment's destructor
 * without clearing it) and the segments are freed.  The head's runs once.
 */
static void sroce_gso_dtor_test(struct kunit *test)
{
	struct sroce_net_batch b = {};
	struct sk_buff *skb, *segs, *seg, *next;
	unsigned int i, n = 0;

	atomic_set(&sroce_gso_dtor_runs, 0);
	for (i = 0; i < 3; i++) {
		skb = sroce_gso_pkt(test, 1040, 7 + i, false, i);
		skb->destructor = sroce_gso_dtor;
		if (!i) {
			sroce_net_batch_start(&b, skb);
			continue;
		}
		sroce_net_batch_add(&b, skb);
		KUNIT_EXPECT_EQ(test, atomic_read(&sroce_gso_dtor_runs), i);
		KUNIT_EXPECT_NULL(test, skb->destructor);
	}
	skb = sroce_net_batch_take(&b);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	ip_hdr(skb)->tot_len = htons(skb->len);
	skb_orphan(skb);	/* the head leaves the sender: veth, a qdisc */
	KUNIT_EXPECT_EQ(test, atomic_read(&sroce_gso_dtor_runs), 3);
	skb_reset_mac_header(skb);
	segs = __skb_gso_segment(skb, NETIF_F_SG | NETIF_F_IP_CSUM, false);
	KUNIT_ASSERT_FALSE(test, IS_ERR_OR_NULL(segs));
	consume_skb(skb);
	skb_list_walk_safe(segs, seg, next) {
		skb_mark_not_on_list(seg);
		kfree_skb(seg);
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, 3u);
	KUNIT_EXPECT_EQ(test, atomic_read(&sroce_gso_dtor_runs), 3);
}

/* A batch stops at 32 packets and below 64 KiB of IP datagram. */
static void sroce_gso_room_test(struct kunit *test)
{
	struct sroce_net_batch b = {};
	struct sk_buff *skb;
	unsigned int i;

	skb = sroce_gso_pkt(test, 1040, 1, false, 0);
	sroce_net_batch_start(&b, skb);
	for (i = 1; i < 32; i++) {
		KUNIT_ASSERT_TRUE(test, sroce_net_batch_room(&b, 1040));
		sroce_net_batch_add(&b, sroce_gso_pkt(test, 1040, 1 + i, false,
						      i));
	}
	KUNIT_EXPECT_FALSE(test, sroce_net_batch_room(&b, 16));
	kfree_skb(sroce_net_batch_take(&b));

	skb = sroce_gso_pkt(test, 8000, 1, false, 0);
	sroce_net_batch_start(&b, skb);
	for (i = 1; i < 8; i++) {
		KUNIT_ASSERT_TRUE(test, sroce_net_batch_room(&b, 8000));
		sroce_net_batch_add(&b, sroce_gso_pkt(test, 8000, 1 + i, false,
						      i));
	}
	/* 28 + 8 x 8000 = 64028 bytes: 8000 more pass U16_MAX - 1024 */
	KUNIT_EXPECT_FALSE(test, sroce_net_batch_room(&b, 8000));
	KUNIT_EXPECT_TRUE(test, sroce_net_batch_room(&b, 400));
	kfree_skb(sroce_net_batch_take(&b));
}

static struct kunit_case sroce_gso_test_cases[] = {
	KUNIT_CASE_PARAM(sroce_gso_segment_test, sroce_gso_gen_params),
	KUNIT_CASE(sroce_gso_dtor_test),
	KUNIT_CASE(sroce_gso_room_test),
	{}
};

static struct kunit_suite sroce_gso_suite = {
	.name = "sroce_net_gso",
	.test_cases = sroce_gso_test_cases,
};

kunit_test_suite(sroce_gso_suite);
