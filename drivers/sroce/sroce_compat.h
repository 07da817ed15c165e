/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers around kernel APIs that differ between the kernels sroce
 * builds on: Debian 12's 6.1 (the target) and Debian 13's 6.12.  Keep every
 * version test here; each names the kernel and the upstream commit that
 * made it necessary.
 */
#ifndef SROCE_COMPAT_H
#define SROCE_COMPAT_H

#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/version.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

/* True on kernel @major.@minor and later: the one version test. */
#define SROCE_KERNEL_AT_LEAST(major, minor) \
	(KERNEL_VERSION(major, minor, 0) <= LINUX_VERSION_CODE)

/*
 * Device capability bit of RDMA ATOMIC WRITE (IB_DEVICE_ATOMIC_WRITE since
 * Linux 6.2; bit 40 of the uverbs device_cap_flags_ex, which 6.1 passes
 * on to userspace unchanged).
 */
#if SROCE_KERNEL_AT_LEAST(6, 2)
#define SROCE_DEVICE_ATOMIC_WRITE	IB_DEVICE_ATOMIC_WRITE
#else
#define SROCE_DEVICE_ATOMIC_WRITE	BIT_ULL(40)
#endif

/*
 * RDMA FLUSH (IBTA 1.5 annex A19.4) in the core: Linux 6.2 added
 * IB_DEVICE_FLUSH_GLOBAL, IB_ACCESS_FLUSH_GLOBAL and
 * IB_ACCESS_FLUSH_PERSISTENT (commit "RDMA: Extend RDMA kernel verbs ABI
 * to support flush").  6.1's core refuses MR access bits above
 * IB_ACCESS_HUGETLB, so no MR registered through it carries a flush
 * right; there sroce advertises no flush capability and its MRs take no
 * flush bit (both 0 below), and its responder refuses every FLUSH.
 *   SROCE_DEVICE_FLUSH_GLOBAL: the device capability bit; sroce has no
 *	persistent memory, so never IB_DEVICE_FLUSH_PERSISTENT.
 *   SROCE_MR_ACCESS_FLUSH: the flush access bits an MR may be
 *	registered with: IB_ACCESS_FLUSH_GLOBAL (the core already refuses
 *	IB_ACCESS_FLUSH_PERSISTENT for lack of the capability).
 *   SROCE_QP_ACCESS_FLUSH: the flush access bits a QP may be given:
 *	both.  ib_cm's cm_init_qp_init_attr() (6.2, commit "RDMA/cm: Make
 *	QP FLUSHABLE") grants a QP IB_ACCESS_FLUSH_GLOBAL and
 *	IB_ACCESS_FLUSH_PERSISTENT together when the device has either
 *	capability, and every rdma_cm connection with responder resources
 *	(rping, NVMe and NFS over RDMA) moves its QP to INIT with them, as
 *	rdma_rxe accepts.  The QP's persistent right grants nothing alone: a
 *	persistent FLUSH also needs the MR's, which no MR can hold here.
 * The bits the responder requires are sroce-abi.h's SROCE_ACCESS_FLUSH_*,
 * the same values (asserted in sroce_opcode.c).
 */
#if SROCE_KERNEL_AT_LEAST(6, 2)
#define SROCE_DEVICE_FLUSH_GLOBAL	IB_DEVICE_FLUSH_GLOBAL
#define SROCE_MR_ACCESS_FLUSH		IB_ACCESS_FLUSH_GLOBAL
#define SROCE_QP_ACCESS_FLUSH		(IB_ACCESS_FLUSH_GLOBAL | \
					 IB_ACCESS_FLUSH_PERSISTENT)
#else
#define SROCE_DEVICE_FLUSH_GLOBAL	0
#define SROCE_MR_ACCESS_FLUSH		0
#define SROCE_QP_ACCESS_FLUSH		0
#endif

/*
 * Free an object after an RCU grace period, without an rcu_head in it.
 * Process context only (may wait for a grace period when memory is short).
 * kvfree_rcu_mightsleep() exists from 6.1.y stable on; the one-argument
 * kvfree_rcu() is the older name of the same thing.
 */
#ifdef kvfree_rcu_mightsleep
#define sroce_kfree_rcu_sleepable(ptr)	kvfree_rcu_mightsleep(ptr)
#else
#define sroce_kfree_rcu_sleepable(ptr)	kvfree_rcu(ptr)
#endif

/*
 * get_unaligned() and friends: 6.12 moved the header, commit 5f60d5f6bbc1
 * ("move asm/unaligned.h to linux/unaligned.h").
 */
#if SROCE_KERNEL_AT_LEAST(6, 12)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * A tracepoint's __string() field: since 6.10, commit 2c92ca849fcc
 * ("tracing/treewide: Remove second parameter of __assign_str()"),
 * __assign_str() takes the source from the __string() declaration.
 */
#if SROCE_KERNEL_AT_LEAST(6, 10)
#define sroce_trace_assign_str(field, src)	__assign_str(field)
#else
#define sroce_trace_assign_str(field, src)	__assign_str(field, src)
#endif

/*
 * ib_device_ops.create_cq's last argument: the uverbs attribute bundle since
 * 6.11, commit dd6d7f8574d7 ("RDMA: Pass uverbs_attr_bundle as part of
 * '.create_cq' API"), the driver's udata before.  sroce_create_cq() takes a
 * struct sroce_create_cq_uarg * and reads its udata (NULL for a kernel CQ)
 * with sroce_create_cq_udata().
 */
#if SROCE_KERNEL_AT_LEAST(6, 11)
#define sroce_create_cq_uarg	uverbs_attr_bundle
static inline struct ib_udata *
sroce_create_cq_udata(struct uverbs_attr_bundle *attrs)
{
	return attrs ? &attrs->driver_udata : NULL;
}
#else
#define sroce_create_cq_uarg	ib_udata
static inline struct ib_udata *sroce_create_cq_udata(struct ib_udata *udata)
{
	return udata;
}
#endif

#endif /* SROCE_COMPAT_H */
