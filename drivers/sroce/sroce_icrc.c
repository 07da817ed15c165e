// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_icrc.c - RoCEv2 invariant CRC (IBTA vol. 1 annex A17.3.3).
 *
 * The ICRC is a CRC-32 (IEEE, reflected) over the packet from the IP header
 * to the end of the pad, preceded by 8 bytes of 0xff standing for the
 * InfiniBand LRH that RoCEv2 does not carry.  Fields that routers may
 * change are replaced by ones first:
 *   IPv4: TOS, TTL, header checksum;
 *   IPv6: traffic class, flow label, hop limit;
 *   UDP:  checksum;
 *   BTH:  the byte holding FECN, BECN and the 6 reserved bits (the top
 *         byte of the DestQP word), exactly as rdma_rxe masks it.
 * The result is stored complemented, least significant byte first: it
 * equals zlib's crc32() of the masked byte string.
 */

#include <linux/crc32.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <linux/skbuff.h>
#include <kunit/visibility.h>

#include "sroce_hdr.h"

/*
 * CRC-32 register (not complemented) after the initial ~0 and the 8 bytes
 * of 0xff standing for the masked LRH: crc32_le(~0, ff x 8).
 */
#define SROCE_ICRC_SEED		0xdebb20e3U

/* Largest IP header we mask: IPv4 with options (60) > IPv6 (40). */
#define SROCE_ICRC_MAX_IPHDR	60

/*
 * Continue @crc over @len bytes of @skb from @off: linear data directly,
 * page fragments and a frag list through skb_seq_read()'s mappings, one
 * running CRC (no per-fragment CRC to combine).  skb_seq_read() returns
 * the rest of its current block, which may run past @off + @len (into the
 * ICRC slot): clamp each block.  The call after the last byte returns 0
 * and drops the mapping.
 */
static u32 sroce_icrc_skb(struct sk_buff *skb, unsigned int off,
			  unsigned int len, u32 crc)
{
	struct skb_seq_state st;
	unsigned int done = 0, n;
	const u8 *data;

	if (off + len <= skb_headlen(skb))
		return crc32_le(crc, skb->data + off, len);
	skb_prepare_seq_read(skb, off, off + len, &st);
	while ((n = skb_seq_read(done, &data, &st)) != 0) {
		n = min(n, len - done);
		crc = crc32_le(crc, data, n);
		done += n;
	}
	return crc;
}

/*
 * CRC of the masked IP header, UDP header and BTH.  All three are in the
 * skb's linear data: the IP stack pulled the IP and UDP headers on receive,
 * the receive path pulled the BTH, and the transmit path built them there.
 */
static u32 sroce_icrc_hdrs(const struct sk_buff *skb,
			   const struct sroce_pkt_info *pkt)
{
	u8 buf[SROCE_ICRC_MAX_IPHDR + sizeof(struct udphdr) +
	       sizeof(struct sroce_bth)];
	const struct iphdr *iph = ip_hdr(skb);
	struct sroce_bth *bth;
	struct udphdr *udph;
	unsigned int iplen;

	if (iph->version == 4) {
		struct iphdr *ip4;

		iplen = min_t(unsigned int, iph->ihl * 4, SROCE_ICRC_MAX_IPHDR);
		memcpy(buf, iph, iplen);
		ip4 = (struct iphdr *)buf;
		ip4->tos = 0xff;
		ip4->ttl = 0xff;
		ip4->check = CSUM_MANGLED_0;
	} else {
		struct ipv6hdr *ip6;

		iplen = sizeof(*ip6);
		memcpy(buf, iph, iplen);
		ip6 = (struct ipv6hdr *)buf;
		/* traffic class (8 bits) and flow label (20 bits) */
		ip6->priority = 0xf;
		memset(ip6->flow_lbl, 0xff, sizeof(ip6->flow_lbl));
		ip6->hop_limit = 0xff;
	}

	udph = (struct udphdr *)(buf + iplen);
	memcpy(udph, udp_hdr(skb), sizeof(*udph));
	udph->check = CSUM_MANGLED_0;

	bth = (struct sroce_bth *)(udph + 1);
	memcpy(bth, pkt->hdr, sizeof(*bth));
	bth->qpn |= cpu_to_be32(~SROCE_QPN_MASK);

	return crc32_le(SROCE_ICRC_SEED, buf,
			iplen + sizeof(*udph) + sizeof(*bth));
}

/**
 * sroce_icrc_compute() - compute the ICRC of a RoCEv2 packet
 * @skb: packet whose network and transport headers are set (IPv4 or IPv6,
 *	UDP); the IP header, UDP header and BTH must be in the linear data;
 *	the rest may be paged or in a frag list
 * @pkt: @pkt->hdr points at the BTH, @pkt->paylen is the byte count from
 *	the BTH to the end of the ICRC slot (not covered)
 *
 * Produces exactly what rdma_rxe 6.1 produces (rxe_icrc.c), so packets
 * interoperate.  The caller checked @pkt->paylen >= BTH + ICRC sizes.
 *
 * Context: any.  IBTA annex A17.3.3.
 * Return: the ICRC; it is stored in the packet as a little-endian 32-bit
 * value (put_unaligned_le32()).
 */
u32 sroce_icrc_compute(struct sk_buff *skb, const struct sroce_pkt_info *pkt)
{
	int off = pkt->hdr - skb->data + sizeof(struct sroce_bth);
	int len = pkt->paylen - sizeof(struct sroce_bth) - SROCE_ICRC_SIZE;
	u32 crc;

	crc = sroce_icrc_hdrs(skb, pkt);
	crc = sroce_icrc_skb(skb, off, len, crc);
	return ~crc;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_icrc_compute);
