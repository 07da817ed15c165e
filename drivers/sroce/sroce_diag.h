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
 * (bits 0-15): timers armed and the send side's waits.
 */
#define SROCE_DIAG_RETRANS_ARMED	BIT(16)
#define SROCE_DIAG_RNR_ARMED		BIT(17)
#define SROCE_DIAG_TX_ARMED		BIT(18)
#define SROCE_DIAG_RNR_WAIT		BIT(19)
#define SROCE_DIAG_TX_BLOCKED		BIT(20)
#define SROCE_DIAG_RETRYING		BIT(21)
#define SROCE_DIAG_SEL_PROBE		BIT(22)
#define SROCE_DIAG_ERROR		BIT(23)
#define SROCE_DIAG_RUNNING		BIT(24)
#define SROCE_DIAG_WORK_PENDING		BIT(25)

bool sroce_send_needs_timer(const struct sroce_qp *qp);
bool sroce_send_retrans_armed(struct sroce_qp *qp);
bool sroce_send_check_wakeup(struct sroce_qp *qp);
int sroce_diag_fill_res_qp(struct sk_buff *msg, struct sroce_qp *qp);

#endif /* SROCE_DIAG_H */
