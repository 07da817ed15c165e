/* SPDX-License-Identifier: GPL-2.0 */
/* sroce_req.h - requester and completer state (sroce_req.c, sroce_comp.c) */
#ifndef SROCE_REQ_H
#define SROCE_REQ_H

#include <linux/timer.h>

struct sroce_req {
	struct timer_list retrans_timer;
	struct timer_list rnr_timer;
};

#endif /* SROCE_REQ_H */
