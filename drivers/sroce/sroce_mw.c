// SPDX-License-Identifier: GPL-2.0
/*
 * Memory windows (IBTA 10.6.7): type 1 and type 2B.
 *
 * A window is an entry of the device's key namespace (dev->mr_xa) like an
 * MR: a struct sroce_mr of type SROCE_MR_MW1 or SROCE_MR_MW2 whose @iova,
 * @length and @access describe the window and whose @mw_mr is the MR it
 * is bound to (a reference and a hold, counted in that MR's @num_mw).  Its
 * @valid says it is bound; its @key is the rkey in effect.  Binds,
 * invalidations and the responder's resolution of a window's rkey
 * (sroce_mw_window_get()) all run under the window's lock (fr.lock), so
 * an access sees one binding whole.
 *
 * A bind is a work request the requester executes in send queue order
 * (IB_WR_BIND_MW, like IB_WR_LOCAL_INV): ibv_bind_mw() posts one for a
 * type 1 window, the consumer posts one for a type 2B window.  Type 1
 * windows are unbound by a zero-length bind or deallocation; type 2B
 * windows by IB_WR_LOCAL_INV, a peer's Send with Invalidate, or
 * deallocation.  While bound, an MR cannot be deregistered or
 * invalidated (IBTA 10.6.7.2.6: the verb fails).
 */

#include <linux/overflow.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "sroce.h"
#include "sroce_mr.h"
#include "sroce_verbs.h"

/* Rights that need local write access on the MR (IBTA 10.6.7.2.2). */
#define SROCE_MW_WRITE_ACCESS	(IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_ATOMIC)

static_assert(SROCE_MW_ACCESS == (IB_ACCESS_LOCAL_WRITE |
				  IB_ACCESS_REMOTE_WRITE |
				  IB_ACCESS_REMOTE_READ |
				  IB_ACCESS_REMOTE_ATOMIC));

/* A window's key index: bits 8..31 of its rkey, which never change. */
static bool sroce_mw_same_index(u32 a, u32 b)
{
	return (a >> 8) == (b >> 8);
}

/* The MR part of sroce_mw_bind_check(): @mr may take this window. */
static int sroce_mw_check_mr(const struct sroce_mr *win,
			     const struct sroce_mr *mr,
			     const struct sroce_mw_bind *b)
{
	u64 end;

	if (!mr || (mr->type != SROCE_MR_USER && mr->type != SROCE_MR_FAST))
		return -EINVAL;
	if (mr->pd != win->pd)
		return -EACCES;
	if (!(mr->access & IB_ACCESS_MW_BIND))
		return -EACCES;
	if (mr->access & IB_ZERO_BASED)
		return -EINVAL;
	if ((b->access & SROCE_MW_WRITE_ACCESS) &&
	    !(mr->access & IB_ACCESS_LOCAL_WRITE))
		return -EACCES;
	if (check_add_overflow(b->addr, b->length, &end) ||
	    b->addr < mr->iova || end > mr->iova + mr->length)
		return -EINVAL;
	return 0;
}

/**
 * sroce_mw_bind_check() - may this bind be executed
 * @win: the window (held; its lock held by the caller, or unshared)
 * @mr: the MR named by the bind's lkey (a valid MR), or NULL when none
 *	is valid; not looked at for a zero-length bind
 * @pd: PD of the QP executing the bind
 * @b: the bind
 *
 * IBTA 10.6.7.2 (Bind Memory Window), rdma-core's ibv_bind_mw(3): the
 * window and the QP share a PD (checked first: nothing about another
 * PD's window is compared); the new rkey keeps the window's index and the
 * WR names the window by its rkey in effect; a type 2B window must
 * be unbound (invalidated) first; the rights are within SROCE_MW_ACCESS
 * (never zero based); a zero-length bind of a type 1 window unbinds it;
 * otherwise the MR is an MR of the window's PD registered with
 * IB_ACCESS_MW_BIND, not zero based, with local write access when the
 * window grants remote write or atomic access, and the window lies
 * inside it.
 * Context: any; reads its arguments only.
 * Return: 0, -EINVAL or -EACCES (the bind completes with
 * IB_WC_MW_BIND_ERR).
 */
int sroce_mw_bind_check(const struct sroce_mr *win, const struct sroce_mr *mr,
			const struct sroce_pd *pd, const struct sroce_mw_bind *b)
{
	if (win->type != SROCE_MR_MW1 && win->type != SROCE_MR_MW2)
		return -EINVAL;
	if (win->pd != pd)
		return -EACCES;
	if (READ_ONCE(win->key) != b->mw_rkey ||
	    !sroce_mw_same_index(b->mw_rkey, b->new_rkey))
		return -EINVAL;
	if (win->type == SROCE_MR_MW2 && READ_ONCE(win->valid))
		return -EINVAL;
	if (b->access & ~SROCE_MW_ACCESS)
		return -EINVAL;
	if (!b->length && win->type == SROCE_MR_MW1)
		return 0;
	return sroce_mw_check_mr(win, mr, b);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mw_bind_check);

/*
 * End the window's binding: accesses granted under it stop at their next
 * packet (mw_gen).  The caller drops the returned MR's hold and reference
 * (sroce_mr_put_held()).
 */
static struct sroce_mr *sroce_mw_detach(struct sroce_mr *win)
{
	struct sroce_mr *old = win->mw_mr;

	lockdep_assert_held(&win->fr.lock);
	win->mw_mr = NULL;
	WRITE_ONCE(win->valid, false);
	WRITE_ONCE(win->mw_gen, win->mw_gen + 1);
	if (old)
		atomic_dec(&old->num_mw);
	return old;
}

/* Apply a checked bind; @mr's reference and hold pass to the window. */
static struct sroce_mr *sroce_mw_apply(struct sroce_mr *win,
				       struct sroce_mr *mr, u32 qpn,
				       const struct sroce_mw_bind *b)
{
	struct sroce_mr *old = sroce_mw_detach(win);

	WRITE_ONCE(win->key, b->new_rkey);
	if (!b->length && win->type == SROCE_MR_MW1)
		return old;	/* unbound; the caller drops @mr */
	if (mr)
		atomic_inc(&mr->num_mw);
	win->mw_mr = mr;
	win->iova = b->addr;
	win->length = b->length;
	win->access = b->access;
	win->mw_qpn = qpn;
	/* the MR went away meanwhile: the window stays unusable */
	WRITE_ONCE(win->valid, true);
	return old;
}

/**
 * sroce_mw_bind() - execute IB_WR_BIND_MW
 * @dev: device
 * @pd: PD of the QP executing it
 * @qpn: that QP's number; a type 2B window is bound to it
 * @b: the bind, copied out of the ring (every field untrusted)
 *
 * Checks with sroce_mw_bind_check(); a bound window holds its MR (a
 * reference and a hold: sroce_mr_hold()) and lets go of the MR it was
 * bound to before.  A window of another PD is not looked at: -EINVAL, as
 * for a wrong rkey.
 * Context: data path run (any context).
 * Return: 0, -EINVAL or -EACCES (IB_WC_MW_BIND_ERR).
 */
int sroce_mw_bind(struct sroce_dev *dev, struct sroce_pd *pd, u32 qpn,
		  const struct sroce_mw_bind *b)
{
	struct sroce_mr *win = sroce_key_slot_get(dev, b->mw_rkey, pd,
						  BIT(SROCE_MR_MW1) |
						  BIT(SROCE_MR_MW2));
	struct sroce_mr *mr = NULL;
	struct sroce_mr *old = NULL;
	unsigned long flags;
	int err;

	if (!win)
		return -EINVAL;
	if (b->length)
		mr = sroce_mr_lookup_held(dev, b->mr_lkey);
	spin_lock_irqsave(&win->fr.lock, flags);
	err = sroce_mw_bind_check(win, mr, pd, b);
	if (!err) {
		old = sroce_mw_apply(win, mr, qpn, b);
		if (win->mw_mr == mr)
			mr = NULL;	/* the window holds it now */
	}
	spin_unlock_irqrestore(&win->fr.lock, flags);
	if (mr)
		sroce_mr_put_held(mr);
	if (old)
		sroce_mr_put_held(old);
	sroce_mr_put(win);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mw_bind);

/**
 * sroce_mw_invalidate() - invalidate a type 2B window
 * @win: the window (a reference held)
 * @pd: PD of the QP doing it
 * @qpn: that QP's number
 * @rkey: the rkey the WR or IETH names
 *
 * IBTA 10.6.7.2.5: only a bound type 2B window, by its rkey in effect,
 * through the QP it is bound to (same PD); it lets its MR go and can be
 * bound again.  Local Invalidate and a peer's Send with Invalidate alike.
 * Context: any.
 * Return: 0, -EINVAL (type 1, unbound, another rkey or QP), -EACCES
 * (another PD).
 */
int sroce_mw_invalidate(struct sroce_mr *win, const struct sroce_pd *pd,
			u32 qpn, u32 rkey)
{
	struct sroce_mr *old = NULL;
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&win->fr.lock, flags);
	if (win->type != SROCE_MR_MW2 || !READ_ONCE(win->valid) ||
	    READ_ONCE(win->key) != rkey || win->mw_qpn != qpn)
		err = -EINVAL;
	else if (win->pd != pd)
		err = -EACCES;
	else
		old = sroce_mw_detach(win);
	spin_unlock_irqrestore(&win->fr.lock, flags);
	if (old)
		sroce_mr_put_held(old);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mw_invalidate);

/**
 * sroce_mw_window_get() - the MR behind a window, for one remote access
 * @win: a window found by its rkey (a reference held)
 * @pd: PD of the QP doing the access
 * @qpn: that QP's number
 * @va: first byte
 * @len: bytes
 * @access: IB_ACCESS_REMOTE_* rights the access needs
 * @gen: set to the window's binding (mw_gen) the access is granted under
 *
 * IBTA 10.6.7, 9.7.5.1.2: the window must be bound, in the QP's PD (a
 * type 2B window to this QP), grant @access, and contain [@va, @va +
 * @len).  An access over several packets holds on to @gen: the binding
 * ends (sroce_mw_detach()) and so does the access (sroce_rkey_ref_ok()).
 * Context: any.
 * Return: the bound MR with a reference held, or NULL.
 */
struct sroce_mr *sroce_mw_window_get(struct sroce_mr *win,
				     const struct sroce_pd *pd, u32 qpn,
				     u64 va, u64 len, int access, u32 *gen)
{
	struct sroce_mr *mr = NULL;
	unsigned long flags;
	u64 end;

	if (check_add_overflow(va, len, &end))
		return NULL;
	spin_lock_irqsave(&win->fr.lock, flags);
	if (READ_ONCE(win->valid) && win->mw_mr && win->pd == pd &&
	    (win->type != SROCE_MR_MW2 || win->mw_qpn == qpn) &&
	    (win->access & access) == access &&
	    (!len || (va >= win->iova && end <= win->iova + win->length))) {
		mr = win->mw_mr;
		kref_get(&mr->ref);	/* the window holds one */
		*gen = win->mw_gen;
	}
	spin_unlock_irqrestore(&win->fr.lock, flags);
	return mr;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mw_window_get);

/**
 * sroce_alloc_mw() - allocate a memory window (ib_device_ops.alloc_mw)
 * @ibmw: core MW: device, PD and type set
 * @udata: user data (none defined)
 *
 * Takes one of the device's max_mr slots (windows and MRs share the key
 * namespace; query_device reports the same limit as max_mw).  The window
 * is unbound; ibmw->rkey is its first rkey.
 * Context: process.
 * Return: 0, -EINVAL (type neither 1 nor 2), -ENOMEM.
 */
int sroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct sroce_dev *dev = to_sroce_dev(ibmw->device);
	struct sroce_mw *mw = to_sroce_mw(ibmw);
	enum sroce_mr_type type;
	struct sroce_mr *win;
	int err;

	if (ibmw->type == IB_MW_TYPE_1)
		type = SROCE_MR_MW1;
	else if (ibmw->type == IB_MW_TYPE_2)
		type = SROCE_MR_MW2;
	else
		return -EINVAL;
	if (sroce_res_get(dev, SROCE_RES_MR))
		return -ENOMEM;
	win = kzalloc(sizeof(*win), GFP_KERNEL_ACCOUNT);
	err = -ENOMEM;
	if (win)
		err = sroce_mr_init_window(dev, win, to_sroce_pd(ibmw->pd),
					   type);
	if (err) {
		kfree(win);
		sroce_res_put(dev, SROCE_RES_MR);
		return err;
	}
	mw->win = win;
	ibmw->rkey = win->key;
	return 0;
}

/**
 * sroce_dealloc_mw() - free a memory window (ib_device_ops.dealloc_mw)
 * @ibmw: MW
 *
 * Unbinds the window (its MR may be deregistered from then on) and
 * unpublishes its rkey; accesses through it fail from now on.
 * Context: process, may sleep (bounded, as sroce_mr_destroy()).
 * Return: 0.
 */
int sroce_dealloc_mw(struct ib_mw *ibmw)
{
	struct sroce_mw *mw = to_sroce_mw(ibmw);
	struct sroce_mr *win = mw->win;
	struct sroce_dev *dev = win->dev;
	struct sroce_mr *old;
	unsigned long flags;

	spin_lock_irqsave(&win->fr.lock, flags);
	old = sroce_mw_detach(win);
	spin_unlock_irqrestore(&win->fr.lock, flags);
	if (old)
		sroce_mr_put_held(old);
	sroce_mr_destroy(win);
	mw->win = NULL;
	sroce_res_put(dev, SROCE_RES_MR);
	return 0;
}
