/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers around kernel APIs that differ between the
 * kernels sroce builds on (6.1 is the target).  Keep every version test here.
 */
#ifndef SROCE_COMPAT_H
#define SROCE_COMPAT_H

#include <linux/rcupdate.h>
#include <linux/slab.h>

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

#endif /* SROCE_COMPAT_H */
