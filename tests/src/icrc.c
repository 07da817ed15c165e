// SPDX-License-Identifier: GPL-2.0
/* icrc.c: CRC-32 and the RoCEv2 ICRC for the test programs (see icrc.h). */
#include <string.h>

#include "icrc.h"

#define ICRC_MAX_PKT	(9216 + 64)	/* jumbo frame: the most we mask */

static uint32_t crc_table[256];

static void crc_init(void)
{
	uint32_t c, i, k;

	for (i = 0; i < 256; i++) {
		for (c = i, k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320U ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

uint32_t crc32z(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (!crc_table[1])
		crc_init();
	crc = ~crc;
	while (len--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

/* Sets the fields the ICRC does not cover to ones, in the copy @m. */
static void icrc_mask(uint8_t *m, size_t len)
{
	size_t hl;

	if ((m[0] >> 4) == 6) {
		hl = 40;
		m[0] |= 0x0f;				/* traffic class, */
		m[1] = m[2] = m[3] = 0xff;		/* flow label */
		m[7] = 0xff;				/* hop limit */
	} else {
		hl = 20;
		m[1] = 0xff;				/* TOS */
		m[8] = 0xff;				/* TTL */
		m[10] = m[11] = 0xff;			/* header checksum */
	}
	if (len >= hl + 8)
		m[hl + 6] = m[hl + 7] = 0xff;		/* UDP checksum */
	if (len >= hl + 8 + 5)
		m[hl + 8 + 4] = 0xff;			/* BTH F/B/resv */
}

uint32_t roce_icrc(const uint8_t *ip, size_t len, int masked)
{
	static uint8_t m[8 + ICRC_MAX_PKT];

	if (len > ICRC_MAX_PKT)
		len = ICRC_MAX_PKT;
	memset(m, 0xff, 8);
	memcpy(m + 8, ip, len);
	if (masked)
		icrc_mask(m + 8, len);
	return crc32z(0, m, 8 + len);
}

void icrc_put(uint8_t *p, uint32_t icrc)
{
	p[0] = (uint8_t)icrc;
	p[1] = (uint8_t)(icrc >> 8);
	p[2] = (uint8_t)(icrc >> 16);
	p[3] = (uint8_t)(icrc >> 24);
}

int crc32z_selftest(void)
{
	static const uint8_t ff[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	return crc32z(0, "123456789", 9) != 0xcbf43926U ||
	       ~crc32z(0, ff, 8) != 0xdebb20e3U;
}
