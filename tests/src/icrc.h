/* SPDX-License-Identifier: GPL-2.0 */
/*
 * icrc.h: the RoCEv2 ICRC for the test programs that craft packets
 * (inject.c, fuzz.c); tests/src/Makefile links icrc.c into every program.
 *
 * The ICRC (IBTA annex A17.3.3) is zlib's CRC-32 (IEEE 802.3, reflected
 * 0xedb88320) over 8 bytes of 0xff (the LRH stand-in), the IP header with
 * the fields routers change set to ones (IPv4: TOS, TTL, header checksum;
 * IPv6: traffic class, flow label, hop limit), the UDP header with its
 * checksum set to ones, the BTH with its byte 4 (F/B/reserved) set to ones,
 * and everything after it up to the ICRC; stored little-endian.
 */
#ifndef SROCE_TEST_ICRC_H
#define SROCE_TEST_ICRC_H

#include <stddef.h>
#include <stdint.h>

/* crc32(crc, buf, len) as zlib's: crc32z(0, ...) starts a new CRC. */
uint32_t crc32z(uint32_t crc, const void *buf, size_t len);

/*
 * The ICRC of the packet at @ip (an IPv4 header without options or an IPv6
 * header without extension headers, then UDP, BTH, ...), @len bytes from
 * the IP header up to where the ICRC goes. @masked 0 leaves the variant
 * fields as they are (a wrong ICRC that only a masking bug would accept).
 */
uint32_t roce_icrc(const uint8_t *ip, size_t len, int masked);

/* Stores @icrc at @p, little-endian (as the ICRC travels). */
void icrc_put(uint8_t *p, uint32_t icrc);

/* 0 when crc32z() gives the standard check values. */
int crc32z_selftest(void);

#endif
