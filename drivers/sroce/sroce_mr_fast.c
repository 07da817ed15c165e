// SPDX-License-Identifier: GPL-2.0
/*
 * Fast-register MRs (IBTA 10.6.3.6, 10.6.5: Base Memory Management):
 * allocation, the page list of the next registration (map_mr_sg),
 * IB_WR_REG_MR and IB_WR_LOCAL_INV.  Their keys, lookups and lifetime are
 * sroce_mr.c's; a peer's Send with Invalidate is sroce_mr_rkey.c's.
 *
 * Fast-register MRs (IBTA 10.6.3.6-7) are published invalid when
 * allocated; ib_map_mr_sg() stages a page list (kernel virtual addresses:
 * the core's virtual DMA), IB_WR_REG_MR makes it the one in effect and
 * validates the MR, IB_WR_LOCAL_INV or a peer's SEND with Invalidate
 * invalidates it.
 */

#include <linux/log2.h>
#include <linux/overflow.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <kunit/visibility.h>

#include "sroce.h"
#include "sroce_mr.h"

/**
 * sroce_mr_init_fast() - set up a fast-register MR, invalid until
 *	IB_WR_REG_MR
 * @dev: device; it must use the core's virtual DMA (page lists then hold
 *	kernel virtual addresses)
 * @mr: zeroed MR
 * @pd: protection domain
 * @max_num_sg: most pages one registration maps (1 .. SROCE_FR_MAX_PAGES)
 *
 * The key is reserved and published at once, invalid: lookups fail until
 * sroce_mr_fast_reg() validates it.  On failure nothing is left to undo
 * but kfree(@mr).
 * Context: process.
 * Return: 0, -EINVAL (@max_num_sg), -EOPNOTSUPP (no virtual DMA), -ENOMEM.
 */
int sroce_mr_init_fast(struct sroce_dev *dev, struct sroce_mr *mr,
		       struct sroce_pd *pd, u32 max_num_sg)
{
	struct sroce_fr *fr = &mr->fr;
	int err;

	if (!max_num_sg || max_num_sg > SROCE_FR_MAX_PAGES)
		return -EINVAL;
	if (!ib_uses_virt_dma(&dev->ib_dev))
		return -EOPNOTSUPP;

	sroce_mr_init_common(dev, mr, pd, SROCE_MR_FAST, 0);
	fr->max = max_num_sg;
	fr->shift = PAGE_SHIFT;
	fr->live = kcalloc(max_num_sg, sizeof(u64), GFP_KERNEL);
	fr->stage = kcalloc(max_num_sg, sizeof(u64), GFP_KERNEL);
	err = -ENOMEM;
	if (!fr->live || !fr->stage)
		goto err_free;
	err = sroce_mr_alloc_key(dev, mr);
	if (err)
		goto err_free;
	/* Cannot fail: the slot was reserved by sroce_mr_alloc_key(). */
	xa_store(&dev->mr_xa, mr->key >> SROCE_MR_KEY_SHIFT, mr, GFP_KERNEL);
	return 0;

err_free:
	kfree(fr->live);
	kfree(fr->stage);
	fr->live = NULL;
	fr->stage = NULL;
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mr_init_fast);

/* ib_sg_to_pages() callback: one more block for the staged list. */
static int sroce_mr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct sroce_fr *fr = &to_sroce_mr(ibmr)->fr;

	if (fr->nstage >= fr->max)
		return -ENOMEM;
	fr->stage[fr->nstage++] = addr;
	return 0;
}

/**
 * sroce_mr_map_sg() - build the page list of the next registration
 *	(ib_device_ops.map_mr_sg)
 * @mr: a fast-register MR; ibmr.page_size set by ib_map_mr_sg()
 * @sg: DMA-mapped list; with virtual DMA each address is a kernel VA
 * @nents: entries of @sg
 * @sg_offset: bytes to skip in the first entry; updated as
 *	ib_sg_to_pages() documents
 *
 * ib_sg_to_pages() splits @sg into blocks of ibmr.page_size: the first
 * may start at any offset, the last end anywhere, the others must be
 * whole blocks (an entry that would leave a gap ends the mapping there;
 * the caller sees fewer entries mapped).  Sets ibmr.iova and ibmr.length.
 * The list takes effect with IB_WR_REG_MR; the registration in effect is
 * not touched.
 * Context: any (no sleeping).
 * Return: entries of @sg mapped, or -EINVAL (page size not in
 * SROCE_FR_PAGE_SIZE_CAP, not a fast-register MR).
 */
int sroce_mr_map_sg(struct sroce_mr *mr, struct scatterlist *sg, int nents,
		    unsigned int *sg_offset)
{
	struct sroce_fr *fr = &mr->fr;
	u64 psize = mr->ibmr.page_size;
	int n;

	if (mr->type != SROCE_MR_FAST || !is_power_of_2(psize) ||
	    !(psize & SROCE_FR_PAGE_SIZE_CAP))
		return -EINVAL;
	fr->nstage = 0;
	n = ib_sg_to_pages(&mr->ibmr, sg, nents, sg_offset, sroce_mr_set_page);
	fr->stage_off = mr->ibmr.iova & (psize - 1);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mr_map_sg);

/*
 * The fast-register MR @key names, with a reference, when it is @want
 * (NULL: any); the pointer is compared, never followed, before the
 * lookup found it alive.
 */
static struct sroce_mr *sroce_mr_get_fast(struct sroce_dev *dev, u32 key,
					  const struct sroce_mr *want)
{
	struct sroce_mr *mr;

	rcu_read_lock();
	mr = xa_load(&dev->mr_xa, key >> SROCE_MR_KEY_SHIFT);
	if (mr && ((want && mr != want) || mr->type != SROCE_MR_FAST ||
		   !kref_get_unless_zero(&mr->ref)))
		mr = NULL;
	rcu_read_unlock();
	return mr;
}

/*
 * Make the staged list the registration in effect (fr->lock held, the MR
 * invalid and unreferenced): the fields first, then @valid with release.
 */
static int sroce_mr_fast_apply(struct sroce_mr *mr, u32 key, int access)
{
	struct sroce_fr *fr = &mr->fr;
	u32 shift = ilog2(mr->ibmr.page_size);
	u64 end;
	u64 *tmp;

	lockdep_assert_held(&fr->lock);
	if (!fr->nstage || !mr->ibmr.length ||
	    check_add_overflow((u64)fr->stage_off, mr->ibmr.length, &end) ||
	    end > ((u64)fr->nstage << shift) ||
	    check_add_overflow(mr->ibmr.iova, mr->ibmr.length, &end))
		return -EINVAL;
	tmp = fr->live;
	fr->live = fr->stage;
	fr->stage = tmp;
	fr->nlive = fr->nstage;
	fr->nstage = 0;
	fr->shift = shift;
	mr->offset = fr->stage_off;
	mr->iova = mr->ibmr.iova;
	mr->length = mr->ibmr.length;
	mr->access = access;
	WRITE_ONCE(mr->key, key);
	/* release: lookups that see @valid see the fields (acquire) */
	smp_store_release(&mr->valid, true);
	return 0;
}

/**
 * sroce_mr_fast_reg() - execute IB_WR_REG_MR
 * @dev: device
 * @pd: PD of the QP executing it
 * @want: the MR the WR names (compared, not followed)
 * @key: the WR's key: the MR's index with a new key byte
 * @access: the WR's IB_ACCESS_* flags
 *
 * IBTA 10.6.3.6 (Fast Register): the MR must be a fast-register MR of
 * @pd, invalid (never registered, or invalidated since), and @key must
 * keep its index; only the key byte changes.  The page list
 * sroce_mr_map_sg() built takes effect with ibmr.iova and ibmr.length,
 * @access and @key.  Refused while a holder (sroce_mr_hold(): an engine,
 * a cursor, a window) still has the MR from its previous registration (a
 * message a peer left unfinished): it would otherwise go on in the new
 * one.  A lookup's passing reference does not count: another PD's QP that
 * names the MR's index cannot make the registration fail.
 * Context: data path run (any context).
 * Return: 0, -EINVAL (no such MR, wrong type or index, MR valid or held,
 * bad @access, page list and length disagree), -EACCES (another PD).
 */
int sroce_mr_fast_reg(struct sroce_dev *dev, struct sroce_pd *pd,
		      const struct sroce_mr *want, u32 key, int access)
{
	struct sroce_mr *mr = sroce_mr_get_fast(dev, key, want);
	unsigned long flags;
	int err;

	if (!mr)
		return -EINVAL;
	err = sroce_mr_check_access(access);
	if (!err && mr->pd != pd)
		err = -EACCES;
	if (err)
		goto out;
	spin_lock_irqsave(&mr->fr.lock, flags);
	/* the invalid state before the holders: pairs with sroce_mr_hold() */
	smp_mb();
	/* no holder: nobody goes on in the old registration */
	if (READ_ONCE(mr->valid) || atomic_read(&mr->held))
		err = -EINVAL;
	else
		err = sroce_mr_fast_apply(mr, key, access);
	spin_unlock_irqrestore(&mr->fr.lock, flags);
out:
	sroce_mr_put(mr);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mr_fast_reg);

/**
 * sroce_mr_local_inv() - execute IB_WR_LOCAL_INV
 * @dev: device
 * @pd: PD of the QP executing it
 * @key: the WR's invalidate_rkey: the key in effect of a fast-register MR
 *
 * @qpn: that QP's number (a type 2B window must be bound to it)
 *
 * IBTA 10.6.3.7 (Local Invalidate): only fast-register MRs, of @pd, by
 * the key they were registered with, and without windows bound to them;
 * invalidating an invalid MR again is allowed.  From then on every lookup
 * and every access through a held reference fails.  A key naming a
 * memory window invalidates a type 2B window (sroce_mw_invalidate(),
 * IBTA 10.6.7.2.5).  Another PD's MR or window is not looked at: the
 * same -EINVAL as for a wrong key, whatever key byte names it.
 * Context: data path run (any context).
 * Return: 0, -EINVAL (no fast-register MR or type 2B window of @pd with
 * that key, windows bound).
 */
int sroce_mr_local_inv(struct sroce_dev *dev, struct sroce_pd *pd, u32 key,
		       u32 qpn)
{
	struct sroce_mr *mr = sroce_key_slot_get(dev, key, pd,
						 BIT(SROCE_MR_FAST) |
						 BIT(SROCE_MR_MW2));
	unsigned long flags;
	int err = 0;

	if (!mr)
		return -EINVAL;
	if (sroce_mr_is_window(mr)) {
		err = sroce_mw_invalidate(mr, pd, qpn, key);
		sroce_mr_put(mr);
		return err;
	}
	spin_lock_irqsave(&mr->fr.lock, flags);
	if (READ_ONCE(mr->key) != key || atomic_read(&mr->num_mw))
		err = -EINVAL;
	else
		WRITE_ONCE(mr->valid, false);
	spin_unlock_irqrestore(&mr->fr.lock, flags);
	sroce_mr_put(mr);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mr_local_inv);
