/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_diag.h - the send side's wake-up invariant and the per-QP state
 * of `rdma -dd resource show qp` (sroce_diag.c).
 */
#ifndef SROCE_DIAG_H
#define SROCE_DIAG_H

#include <linux/bits.h>
#include <linux/kconfig.h>
#include <linux/types.h>

struct sk_buff;
struct sroce_qp;

/*
 * Broken data path invariants WARN on kernels built for debugging (with
 * lockdep, as the debug kernel of make check-debug); elsewhere they are
 * logged (ratelimited) and repaired.
 */
#define SROCE_DEBUG_CHECKS	IS_ENABLED(CONFIG_PROVE_LOCKING)

/*
 * Bits of the "send_flags" attribute above the enum sroce_send_flag bits
 * (bits 0-7): timers armed and the send side's waits.
 */
#define SROCE_DIAG_RETRANS_ARMED	BIT(8)
#define SROCE_DIAG_RNR_ARMED		BIT(9)
#define SROCE_DIAG_TX_ARMED		BIT(10)
#define SROCE_DIAG_RNR_WAIT		BIT(11)
#define SROCE_DIAG_TX_BLOCKED		BIT(12)
#define SROCE_DIAG_RETRYING		BIT(13)
#define SROCE_DIAG_SEL_PROBE		BIT(14)
#define SROCE_DIAG_ERROR		BIT(15)
#define SROCE_DIAG_RUNNING		BIT(16)
#define SROCE_DIAG_WORK_PENDING		BIT(17)

bool sroce_send_needs_timer(const struct sroce_qp *qp);
bool sroce_send_check_wakeup(struct sroce_qp *qp);
int sroce_diag_fill_res_qp(struct sk_buff *msg, struct sroce_qp *qp);

#endif /* SROCE_DIAG_H */
