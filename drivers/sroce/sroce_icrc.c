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
 *
 * Two implementations of the same CRC-32 cover the payload: the library's
 * crc32_le() (slice-by-8 tables) and the crypto API's "crc32" shash (on
 * x86 with PCLMULQDQ, crc32-pclmul, carry-less multiplication).  At load
 * sroce_icrc_init() times both over 4 KiB, checks they agree, and keeps
 * the faster one; the icrc_impl module parameter (read-only) names it.
 * The headers (under 100 bytes) always go through crc32_le(), faster at
 * that size.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <crypto/hash.h>
#include <linux/crc32.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/jump_label.h>
#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/slab.h>
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

/* ------------------------------------------------------------------ */
/* CRC-32 implementation, chosen at load                               */
/* ------------------------------------------------------------------ */

/* Bytes timed per round at load, rounds, and calls per round. */
#define SROCE_ICRC_BENCH_LEN	4096
#define SROCE_ICRC_BENCH_ROUNDS	4
#define SROCE_ICRC_BENCH_CALLS	8

/* The crypto API's "crc32" (NULL when unavailable); set at load only. */
static struct crypto_shash *sroce_icrc_tfm;
/* The payload goes through sroce_icrc_tfm rather than crc32_le(). */
static DEFINE_STATIC_KEY_FALSE(sroce_icrc_shash_on);

static char sroce_icrc_impl[CRYPTO_MAX_ALG_NAME] = "crc32_le";
module_param_string(icrc_impl, sroce_icrc_impl, sizeof(sroce_icrc_impl),
		    0444);
MODULE_PARM_DESC(icrc_impl,
		 "CRC-32 implementation of the ICRC, the faster at load: crc32_le or the crypto API driver of \"crc32\" (read-only)");

/**
 * sroce_icrc_crc32_shash() - continue a CRC-32 with the crypto API
 * @crc: CRC register (not complemented), updated in place, as crc32_le()
 *	takes and returns it
 * @data: bytes
 * @len: byte count
 *
 * The "crc32" shash keeps exactly that register as its state (4 bytes,
 * checked at load), so a descriptor on the stack with @crc as its state
 * continues any CRC: no per-CPU state, usable in softirq (the PCLMUL
 * driver falls back to crc32_le() where the FPU is not usable).
 *
 * Context: any; does not sleep.
 * Return: 0, or -ENOENT when the shash is not available.
 */
VISIBLE_IF_KUNIT int sroce_icrc_crc32_shash(u32 *crc, const void *data,
					    size_t len)
{
	struct {
		struct shash_desc shash;
		u32 ctx;
	} desc;
	int err;

	if (!sroce_icrc_tfm)
		return -ENOENT;
	desc.shash.tfm = sroce_icrc_tfm;
	desc.ctx = *crc;
	err = crypto_shash_update(&desc.shash, data, len);
	*crc = desc.ctx;
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_icrc_crc32_shash);

/* Continue @crc over @len bytes with the implementation chosen at load. */
static u32 sroce_icrc_crc32(u32 crc, const u8 *data, unsigned int len)
{
	if (static_branch_likely(&sroce_icrc_shash_on) &&
	    !sroce_icrc_crc32_shash(&crc, data, len))
		return crc;
	return crc32_le(crc, data, len);
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * sroce_icrc_use_shash() - choose the ICRC's CRC-32 implementation
 * @on: the crypto API's "crc32" (true) or crc32_le() (false)
 *
 * For KUnit, which computes the same ICRCs with both; sroce_icrc_init()
 * makes the choice otherwise.
 * Context: process; may sleep (static key).
 * Return: the previous choice (1: the shash, 0: crc32_le()), or -ENOENT
 * when @on and the shash is not available (nothing changes then).
 */
VISIBLE_IF_KUNIT int sroce_icrc_use_shash(bool on)
{
	int was = static_key_enabled(&sroce_icrc_shash_on);

	if (on && !sroce_icrc_tfm)
		return -ENOENT;
	if (on)
		static_branch_enable(&sroce_icrc_shash_on);
	else
		static_branch_disable(&sroce_icrc_shash_on);
	return was;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_icrc_use_shash);
#endif

/*
 * Best time of SROCE_ICRC_BENCH_ROUNDS rounds, in ns per call over @buf;
 * the CRC goes to @sink so that no call is optimised away.
 */
static u64 sroce_icrc_time(const u8 *buf, bool shash, u32 *sink)
{
	u64 best = U64_MAX, t;
	u32 crc = ~0U;
	int r, i;

	for (r = 0; r < SROCE_ICRC_BENCH_ROUNDS; r++) {
		t = ktime_get_ns();
		for (i = 0; i < SROCE_ICRC_BENCH_CALLS; i++) {
			if (!shash)
				crc = crc32_le(crc, buf, SROCE_ICRC_BENCH_LEN);
			else if (sroce_icrc_crc32_shash(&crc, buf,
							SROCE_ICRC_BENCH_LEN))
				return U64_MAX;
		}
		best = min(best, ktime_get_ns() - t);
	}
	*sink = crc;
	return div_u64(best, SROCE_ICRC_BENCH_CALLS);
}

/* The shash as it will be used: 4-byte state, same CRC as crc32_le(). */
static bool sroce_icrc_shash_ok(const u8 *buf)
{
	u32 crc = ~0U;

	if (crypto_shash_descsize(sroce_icrc_tfm) != sizeof(u32))
		return false;
	if (sroce_icrc_crc32_shash(&crc, buf, SROCE_ICRC_BENCH_LEN))
		return false;
	return crc == crc32_le(~0U, buf, SROCE_ICRC_BENCH_LEN);
}

/* Keep the crypto API's "crc32" when it is usable; else none. */
static void sroce_icrc_get_shash(const u8 *buf)
{
	struct crypto_shash *tfm = crypto_alloc_shash("crc32", 0, 0);

	if (IS_ERR(tfm))
		return;
	sroce_icrc_tfm = tfm;
	if (!sroce_icrc_shash_ok(buf)) {
		sroce_icrc_tfm = NULL;
		crypto_free_shash(tfm);
	}
}

/**
 * sroce_icrc_init() - choose the CRC-32 implementation of the ICRC
 *
 * Times crc32_le() and the crypto API's "crc32" shash (when it exists and
 * gives the same CRC) over 4 KiB of random bytes, keeps the faster for the
 * payload, names it in the icrc_impl parameter and logs the choice and
 * both times once.  Without memory or the shash, crc32_le() it is: the
 * ICRC is the same either way, only its cost differs.
 *
 * Context: module init; process, may sleep.
 */
void sroce_icrc_init(void)
{
	u64 t_lib, t_shash = U64_MAX;
	u32 sink;
	u8 *buf;

	buf = kmalloc(SROCE_ICRC_BENCH_LEN, GFP_KERNEL);
	if (!buf)
		return;
	get_random_bytes(buf, SROCE_ICRC_BENCH_LEN);
	sroce_icrc_get_shash(buf);
	t_lib = sroce_icrc_time(buf, false, &sink);
	if (sroce_icrc_tfm)
		t_shash = sroce_icrc_time(buf, true, &sink);
	kfree(buf);

	if (!sroce_icrc_tfm) {
		pr_info("ICRC: crc32_le (%llu ns per 4 KiB; no crc32 shash)\n",
			t_lib);
		return;
	}
	if (t_shash < t_lib) {
		strscpy(sroce_icrc_impl,
			crypto_shash_driver_name(sroce_icrc_tfm),
			sizeof(sroce_icrc_impl));
		static_branch_enable(&sroce_icrc_shash_on);
	}
	pr_info("ICRC: %s (per 4 KiB: crc32_le %llu ns, %s %llu ns)\n",
		sroce_icrc_impl, t_lib,
		crypto_shash_driver_name(sroce_icrc_tfm), t_shash);
}

/**
 * sroce_icrc_exit() - release what sroce_icrc_init() took
 *
 * Context: module exit, after every device is gone (no ICRC is computed).
 */
void sroce_icrc_exit(void)
{
	static_branch_disable(&sroce_icrc_shash_on);
	if (sroce_icrc_tfm)
		crypto_free_shash(sroce_icrc_tfm);
	sroce_icrc_tfm = NULL;
}

/* ------------------------------------------------------------------ */
/* ICRC                                                                */
/* ------------------------------------------------------------------ */

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
		return sroce_icrc_crc32(crc, skb->data + off, len);
	skb_prepare_seq_read(skb, off, off + len, &st);
	while ((n = skb_seq_read(done, &data, &st)) != 0) {
		n = min(n, len - done);
		crc = sroce_icrc_crc32(crc, data, n);
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
