/* SPDX-License-Identifier: GPL-2.0 */
/* sroce_resp.h - responder state (sroce_resp.c) */
#ifndef SROCE_RESP_H
#define SROCE_RESP_H

#include <linux/types.h>

struct sroce_resp {
	u32 epsn;	/* next expected request PSN */
	u32 msn;	/* message sequence number */
};

#endif /* SROCE_RESP_H */
