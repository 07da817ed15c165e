// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions: keys, lookups, protection checks (IBTA 10.6),
 * registration and deregistration; fast-register MRs are in
 * sroce_mr_fast.c, the rkeys of a peer's requests in sroce_mr_rkey.c,
 * the copies between MRs and kernel buffers in sroce_mr_copy.c.
 *
 * Keys: lkey == rkey == (index << 8) | key byte.  The index (1 .. 2^24-1)
 * comes from a cyclic xarray allocation in dev->mr_xa, so a lookup is one
 * xa_load() and an index comes back only after all the others were
 * handed out.  The key byte is drawn at random, so one key tells nothing
 * of the next, but never the byte the index had last (dev->mr_key_hist
 * keeps it: the key in effect when the index was freed), so a stale key
 * (of a deregistered MR whose index was reused) never matches the new MR.
 * Lookups compare @key, the key in effect: a fast-register
 * MR (ib_alloc_mr()) gets its key byte from each IB_WR_REG_MR, whose
 * owner sets ibmr's keys ahead of it (ib_update_fast_reg_key()).
 *
 * Lifetime: an MR carries a kref; lookups (RCU + kref_get_unless_zero())
 * take a reference, which an engine may keep across packets (a multi-packet
 * RDMA WRITE, a receive or send cursor).  Every copy to or from the MR
 * checks @valid inside an RCU read-side section.  Deregistration never
 * waits for a peer: it unpublishes the key, clears @valid, drops the base
 * reference and, when others still hold one, waits one RCU grace period
 * for copies already under way; from then on nothing reads or writes the
 * memory through the MR.  The engines see @valid cleared on their next use
 * and fail the access (remote access error, local protection error).  The
 * last reference frees the MR: at once when that is deregistration, else
 * on the device's work item, in process context as ib_umem_release()
 * needs; the pinned pages stay pinned until then.  Device removal flushes
 * that work.  The structure is freed after an RCU grace period because a
 * lookup may still be reading it.
 *
 * User MRs keep an array of their pinned pages, built once at registration,
 * so an iova translates to (page, offset) in O(1).  DMA MRs cover all kernel
 * memory: with the core's virtual DMA ops, a kernel ULP's "DMA address" is a
 * kernel virtual address.
 */

#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <kunit/visibility.h>

#include "sroce.h"
#include "sroce_mr.h"
#include "sroce_verbs.h"
#include "sroce_compat.h"

/*
 * Access flags an MR may carry; MW_BIND lets windows bind to it (sroce_mw.c),
 * FLUSH_GLOBAL lets a peer's FLUSH name it (annex A19.4, where the kernel
 * has the bit: SROCE_MR_ACCESS_FLUSH).
 */
#define SROCE_MR_ACCESS_MASK	(SROCE_MR_ACCESS_FLUSH | \
				 IB_ACCESS_LOCAL_WRITE | \
				 IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_ATOMIC | \
				 IB_ACCESS_MW_BIND | \
				 IB_ZERO_BASED | \
				 IB_ACCESS_HUGETLB | \
				 IB_ACCESS_OPTIONAL)

/* Flags that sroce_mr_check() compares. */
#define SROCE_MR_CHECK_MASK	(IB_ACCESS_LOCAL_WRITE | \
				 IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_ATOMIC | \
				 SROCE_ACCESS_FLUSH_GLOBAL | \
				 SROCE_ACCESS_FLUSH_PERSISTENT)

/* Indices whose last key byte one page of dev->mr_key_hist keeps. */
#define SROCE_MR_HIST_CHUNK	PAGE_SIZE
#define SROCE_MR_HIST_CHUNKS	DIV_ROUND_UP(SROCE_MR_MAX_INDEX + 1, \
					     SROCE_MR_HIST_CHUNK)

/*
 * Install @new (zeroed, or NULL) at @slot unless another thread did
 * first: what is there then.  Release: a reader that sees the pointer
 * sees the zeroes.
 */
static void *sroce_mr_hist_install(void **slot, void *new)
{
	void *old = cmpxchg_release(slot, NULL, new);

	if (!old)
		return new;
	kvfree(new);
	return old;
}

/*
 * The byte of dev->mr_key_hist for index @idx, its page allocated first
 * when @alloc (process context); NULL when it is missing.
 */
static u8 *sroce_mr_hist_byte(struct sroce_dev *dev, u32 idx, bool alloc)
{
	/* acquire: pairs with the release of sroce_mr_hist_install() */
	u8 **dir = smp_load_acquire(&dev->mr_key_hist);
	u32 c = idx / SROCE_MR_HIST_CHUNK;
	u8 *page;

	if (!dir && alloc)
		dir = sroce_mr_hist_install((void **)&dev->mr_key_hist,
					    kvcalloc(SROCE_MR_HIST_CHUNKS,
						     sizeof(*dir), GFP_KERNEL));
	if (!dir)
		return NULL;
	page = smp_load_acquire(&dir[c]);	/* as @dir */
	if (!page && alloc)
		page = sroce_mr_hist_install((void **)&dir[c],
					     kzalloc(SROCE_MR_HIST_CHUNK,
						     GFP_KERNEL));
	return page ? &page[idx % SROCE_MR_HIST_CHUNK] : NULL;
}

/* Forget every index's last key byte: the device's MRs are all gone. */
static void sroce_mr_hist_free(struct sroce_dev *dev)
{
	u8 **dir = dev->mr_key_hist;
	u32 c;

	if (!dir)
		return;
	for (c = 0; c < SROCE_MR_HIST_CHUNKS; c++)
		kfree(dir[c]);
	kvfree(dir);
	dev->mr_key_hist = NULL;
}

/* Note the key byte an index had last, before the index is freed. */
static void sroce_mr_key_retire(struct sroce_dev *dev, u32 key)
{
	u8 *last = sroce_mr_hist_byte(dev, key >> SROCE_MR_KEY_SHIFT, false);

	if (last)
		WRITE_ONCE(*last, key & SROCE_MR_KEY_BYTE);
}

/*
 * Unpin and free a deregistered MR nobody references; a window a bind
 * racing with its deallocation left bound lets its MR go.  Context:
 * process.
 */
static void sroce_mr_free(struct sroce_mr *mr)
{
	if (mr->mw_mr) {
		atomic_dec(&mr->mw_mr->num_mw);
		sroce_mr_put_held(mr->mw_mr);
		mr->mw_mr = NULL;
	}
	kvfree(mr->pages);
	mr->pages = NULL;
	kfree(mr->fr.live);
	kfree(mr->fr.stage);
	if (mr->umem)
		ib_umem_release(mr->umem);
	mr->umem = NULL;
	sroce_kfree_rcu_sleepable(mr);
}

static void sroce_mr_free_work(struct work_struct *work)
{
	struct sroce_dev *dev = container_of(work, struct sroce_dev,
					     mr_free_work);
	struct sroce_mr *mr, *tmp;
	struct llist_node *list;

	list = llist_del_all(&dev->mr_free);
	llist_for_each_entry_safe(mr, tmp, list, free_node) {
		sroce_mr_free(mr);
		atomic_dec(&dev->mr_zombies);
	}
}

/**
 * sroce_mr_dev_init() - set up a device's deferred MR freeing
 * @dev: device, before any MR is registered
 *
 * Context: process.
 */
void sroce_mr_dev_init(struct sroce_dev *dev)
{
	init_llist_head(&dev->mr_free);
	INIT_WORK(&dev->mr_free_work, sroce_mr_free_work);
	atomic_set(&dev->mr_zombies, 0);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mr_dev_init);

/**
 * sroce_mr_dev_drain() - free the deregistered MRs still queued
 * @dev: device whose QPs are all destroyed (so no MR reference is left)
 *
 * Bounded: waits only for the free work already queued, which does not
 * sleep on anything a peer controls.  Then forgets the key bytes the
 * indices had last (dev->mr_key_hist): no key of the device is left.
 * Context: process, may sleep.
 */
void sroce_mr_dev_drain(struct sroce_dev *dev)
{
	flush_work(&dev->mr_free_work);
	WARN_ON_ONCE(atomic_read(&dev->mr_zombies));
	sroce_mr_hist_free(dev);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mr_dev_drain);

/* The last reference of a deregistered MR, from any context. */
static void sroce_mr_release(struct kref *ref)
{
	struct sroce_mr *mr = container_of(ref, struct sroce_mr, ref);
	struct sroce_dev *dev = mr->dev;

	llist_add(&mr->free_node, &dev->mr_free);
	queue_work(system_wq, &dev->mr_free_work);
}

/* Deregistration frees the MR itself when its reference is the last. */
static void sroce_mr_release_none(struct kref *ref)
{
}

/**
 * sroce_mr_put() - drop a reference taken by sroce_mr_lookup()
 * @mr: region
 *
 * The last reference of a deregistered MR queues its freeing on the
 * device's work item.
 * Context: any.
 */
void sroce_mr_put(struct sroce_mr *mr)
{
	kref_put(&mr->ref, sroce_mr_release);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mr_put);

/*
 * IBTA 10.6.3.1 / C10-10: remote write and remote atomic access need local
 * write access; on-demand paging is not offered.
 */
int sroce_mr_check_access(int access)
{
	if (access & IB_ACCESS_ON_DEMAND)
		return -EOPNOTSUPP;
	if (access & ~SROCE_MR_ACCESS_MASK)
		return -EINVAL;
	if ((access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IB_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	return 0;
}

void sroce_mr_init_common(struct sroce_dev *dev, struct sroce_mr *mr,
			  struct sroce_pd *pd, enum sroce_mr_type type,
			  int access)
{
	mr->dev = dev;
	mr->pd = pd;
	mr->type = type;
	mr->access = access;
	kref_init(&mr->ref);
	spin_lock_init(&mr->fr.lock);
	mr->ibmr.page_size = PAGE_SIZE;
}

/*
 * Reserve an index and make the keys; the MR is not visible to lookups
 * until sroce_mr_publish().  The key byte is random, never the one the
 * index had last.
 */
int sroce_mr_alloc_key(struct sroce_dev *dev, struct sroce_mr *mr)
{
	u32 idx, key, byte;
	u8 *last;
	int err;

	err = xa_alloc_cyclic(&dev->mr_xa, &idx, NULL,
			      XA_LIMIT(1, SROCE_MR_MAX_INDEX),
			      &dev->next_mr_idx, GFP_KERNEL);
	if (err < 0)
		return err == -EBUSY ? -ENOMEM : err;
	last = sroce_mr_hist_byte(dev, idx, true);
	if (!last) {
		xa_erase(&dev->mr_xa, idx);
		return -ENOMEM;
	}
	/* 255 bytes to draw from: skip the last one */
	byte = get_random_u32_below(SROCE_MR_KEY_BYTE);
	if (byte >= READ_ONCE(*last))
		byte++;
	key = (idx << SROCE_MR_KEY_SHIFT) | byte;
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	mr->key = key;
	return 0;
}

/* Frees the MR's index, unless a re-registration gave it to a successor. */
static void sroce_mr_free_key(struct sroce_dev *dev, struct sroce_mr *mr)
{
	u32 idx = mr->ibmr.lkey >> SROCE_MR_KEY_SHIFT;

	/* the key in effect: what a peer may still hold for this index */
	if (xa_load(&dev->mr_xa, idx) == mr)
		sroce_mr_key_retire(dev, READ_ONCE(mr->key));
	xa_cmpxchg(&dev->mr_xa, idx, mr, NULL, GFP_KERNEL);
}

/* Make a fully initialised MR visible to sroce_mr_lookup(). */
static void sroce_mr_publish(struct sroce_dev *dev, struct sroce_mr *mr)
{
	WRITE_ONCE(mr->valid, true);
	/* Cannot fail: the slot was reserved by sroce_mr_alloc_key(). */
	xa_store(&dev->mr_xa, mr->ibmr.lkey >> SROCE_MR_KEY_SHIFT, mr,
		 GFP_KERNEL);
}

/**
 * sroce_mr_init_dma() - set up an MR covering all kernel memory
 * @dev: device
 * @mr: zeroed MR
 * @pd: protection domain
 * @access: IB_ACCESS_* flags
 *
 * Used by the core for a kernel PD's local_dma_lkey (and the rarely used
 * unsafe global rkey).  On failure nothing is left to undo but kfree(@mr).
 * Context: process.
 * Return: 0, -EINVAL/-EOPNOTSUPP for bad @access, -ENOMEM.
 */
int sroce_mr_init_dma(struct sroce_dev *dev, struct sroce_mr *mr,
		      struct sroce_pd *pd, int access)
{
	int err;

	err = sroce_mr_check_access(access);
	if (err)
		return err;

	sroce_mr_init_common(dev, mr, pd, SROCE_MR_DMA, access);
	mr->iova = 0;
	mr->length = U64_MAX;

	err = sroce_mr_alloc_key(dev, mr);
	if (err)
		return err;
	sroce_mr_publish(dev, mr);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mr_init_dma);

/**
 * sroce_mr_init_window() - give a memory window its key
 * @dev: device
 * @win: zeroed entry of the window (struct sroce_mw @win)
 * @pd: the window's PD
 * @type: SROCE_MR_MW1 or SROCE_MR_MW2
 *
 * The key is published at once, unbound: every access through it fails
 * until a bind (sroce_mw_bind()).  On failure nothing is left to undo but
 * kfree(@win).
 * Context: process.
 * Return: 0, -ENOMEM.
 */
int sroce_mr_init_window(struct sroce_dev *dev, struct sroce_mr *win,
			 struct sroce_pd *pd, enum sroce_mr_type type)
{
	int err;

	sroce_mr_init_common(dev, win, pd, type, 0);
	err = sroce_mr_alloc_key(dev, win);
	if (err)
		return err;
	/* Cannot fail: the slot was reserved by sroce_mr_alloc_key(). */
	xa_store(&dev->mr_xa, win->key >> SROCE_MR_KEY_SHIFT, win, GFP_KERNEL);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mr_init_window);

/* Collect the pinned pages once, in iova order. */
static int sroce_mr_build_pages(struct sroce_mr *mr)
{
	struct ib_umem *umem = mr->umem;
	struct sg_page_iter piter;
	unsigned long i = 0;

	mr->npages = ib_umem_num_pages(umem);
	mr->pages = kvmalloc_array(mr->npages, sizeof(*mr->pages),
				   GFP_KERNEL_ACCOUNT);
	if (!mr->pages)
		return -ENOMEM;

	for_each_sgtable_page(&umem->sgt_append.sgt, &piter, 0) {
		if (WARN_ON_ONCE(i >= mr->npages))
			break;
		mr->pages[i++] = sg_page_iter_page(&piter);
	}
	if (WARN_ON_ONCE(i != mr->npages)) {
		kvfree(mr->pages);
		mr->pages = NULL;
		return -EFAULT;
	}
	return 0;
}

/**
 * sroce_mr_init_user() - pin user memory and set up an MR over it
 * @dev: device
 * @mr: zeroed MR
 * @pd: protection domain
 * @start: user virtual address of the first byte
 * @length: bytes (1 .. SROCE_MAX_MR_SIZE)
 * @iova: address the first byte has in the MR (what keys and WQEs use)
 * @access: IB_ACCESS_* flags
 *
 * Pins with ib_umem_get() (charged to RLIMIT_MEMLOCK).  On failure nothing
 * is left to undo but kfree(@mr).
 * Context: process, may sleep.
 * Return: 0, -EINVAL (length, iova range, access), -EOPNOTSUPP (on-demand
 * paging), -ENOMEM, or the error of ib_umem_get() (-EFAULT, -ENOMEM ...).
 */
int sroce_mr_init_user(struct sroce_dev *dev, struct sroce_mr *mr,
		       struct sroce_pd *pd, u64 start, u64 length, u64 iova,
		       int access)
{
	struct ib_umem *umem;
	u64 end;
	int err;

	err = sroce_mr_check_access(access);
	if (err)
		return err;
	if (!length || length > SROCE_MAX_MR_SIZE ||
	    check_add_overflow(iova, length, &end) ||
	    check_add_overflow(start, length, &end))
		return -EINVAL;

	umem = ib_umem_get(&dev->ib_dev, start, length, access);
	if (IS_ERR(umem))
		return PTR_ERR(umem);

	sroce_mr_init_common(dev, mr, pd, SROCE_MR_USER, access);
	mr->umem = umem;
	mr->iova = iova;
	mr->length = length;
	mr->offset = ib_umem_offset(umem);
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;

	err = sroce_mr_build_pages(mr);
	if (err)
		goto err_release;
	err = sroce_mr_alloc_key(dev, mr);
	if (err)
		goto err_pages;

	sroce_mr_publish(dev, mr);
	return 0;

err_pages:
	kvfree(mr->pages);
	mr->pages = NULL;
err_release:
	ib_umem_release(umem);
	mr->umem = NULL;
	return err;
}

/**
 * sroce_mr_destroy() - deregister an MR
 * @mr: an MR set up by sroce_mr_init_dma() or sroce_mr_init_user()
 *
 * Unpublishes the key and invalidates the MR, so no new access starts
 * (IBTA 10.6.3.4: deregistration makes the keys invalid at once).  An
 * engine may still hold a reference, e.g. for an RDMA WRITE whose peer
 * went silent after its first packet; this never waits for it, only for
 * copies already under way (one RCU grace period).  The holders' next
 * use fails; the last reference unpins and frees the MR on the device's
 * work item.  Without other references the MR is freed here.
 * Context: process, may sleep (bounded: no peer can delay it).
 */
void sroce_mr_destroy(struct sroce_mr *mr)
{
	struct sroce_dev *dev = mr->dev;

	sroce_mr_free_key(dev, mr);
	WRITE_ONCE(mr->valid, false);
	atomic_inc(&dev->mr_zombies);
	if (kref_put(&mr->ref, sroce_mr_release_none)) {
		atomic_dec(&dev->mr_zombies);
		sroce_mr_free(mr);
		return;
	}
	/* copies that saw @valid set finish before we return */
	synchronize_rcu();
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mr_destroy);

/*
 * @key is the key in effect and the MR valid; the acquire pairs with the
 * release of sroce_mr_fast_reg(), so a registration's fields are seen.
 */
static bool sroce_mr_key_valid(const struct sroce_mr *mr, u32 key)
{
	/* acquire: pairs with the release in sroce_mr_fast_apply() */
	return smp_load_acquire(&mr->valid) && READ_ONCE(mr->key) == key;
}

/**
 * sroce_mr_hold() - keep a looked-up MR across packets
 * @mr: MR with a reference (a lookup's)
 * @key: the key it is used by: its key in effect when it was looked up
 *
 * Counts the caller among the holders IB_WR_REG_MR waits for (@held),
 * then checks again that @mr is valid with @key: an MR invalidated and
 * registered again between the lookup and the hold is not held, so a
 * holder never goes on in a registration it did not look up.  A lookup's
 * reference alone never holds an MR (another QP naming its index must not
 * make a registration fail).
 * Context: any.
 * Return: true with the hold taken (drop it and the reference with
 * sroce_mr_put_held()), false without (the reference stays).
 */
bool sroce_mr_hold(struct sroce_mr *mr, u32 key)
{
	atomic_inc(&mr->held);
	/* the hold before the check: pairs with sroce_mr_fast_reg()'s smp_mb() */
	smp_mb__after_atomic();
	if (sroce_mr_key_valid(mr, key))
		return true;
	atomic_dec(&mr->held);
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mr_hold);

/**
 * sroce_mr_put_held() - drop a hold and its reference
 * @mr: MR held with sroce_mr_hold() (or sroce_mr_lookup_held())
 *
 * Context: any.
 */
void sroce_mr_put_held(struct sroce_mr *mr)
{
	/* the holder's accesses come before a registration that follows */
	smp_mb__before_atomic();
	atomic_dec(&mr->held);
	sroce_mr_put(mr);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mr_put_held);

/**
 * sroce_mr_rereg_attrs() - what a re-registration registers
 * @mr: the user MR being re-registered
 * @flags: IB_MR_REREG_* flags: what changes
 * @reg: in: the new translation (start, length, iova) and access, as the
 *	caller passed them; out: the same, with whatever @flags leaves
 *	unchanged taken from @mr
 *
 * Re-registration is deregistration followed by registration (man
 * ibv_rereg_mr(3)): the new MR pins its memory again, so an access change
 * pins with the new rights (a region that becomes writable is pinned
 * writable).
 * Context: any; reads @mr only.
 */
void sroce_mr_rereg_attrs(const struct sroce_mr *mr, int flags,
			  struct sroce_mr_reg *reg)
{
	if (!(flags & IB_MR_REREG_TRANS)) {
		reg->start = mr->umem->address;
		reg->length = mr->length;
		reg->iova = mr->iova;
	}
	if (!(flags & IB_MR_REREG_ACCESS))
		reg->access = mr->access;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mr_rereg_attrs);

/**
 * sroce_mr_rereg_swap() - hand a re-registered MR's keys to its successor
 * @old: the MR being re-registered, valid
 * @mr: its successor, fully set up (sroce_mr_init_user()) under keys of
 *	its own that nobody was given yet
 *
 * The keys stay what they were, as rdma-core users expect of
 * ibv_rereg_mr(): @mr gives up its own index and takes @old's keys and
 * slot, so a lookup of those keys finds @mr from now on, and @old is
 * invalidated: a transfer still holding it fails on its next access, as
 * after deregistration.  The caller then destroys @old
 * (sroce_mr_destroy(), which leaves the slot to @mr and waits for copies
 * already under way).
 * Context: process (the MR's uobject is held exclusively by the core).
 */
void sroce_mr_rereg_swap(struct sroce_mr *old, struct sroce_mr *mr)
{
	struct sroce_dev *dev = old->dev;
	u32 key = old->ibmr.lkey;

	sroce_mr_key_retire(dev, mr->key);
	xa_erase(&dev->mr_xa, mr->ibmr.lkey >> SROCE_MR_KEY_SHIFT);
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	WRITE_ONCE(mr->key, key);	/* the key lookups compare */
	/* Replaces @old in its slot: no allocation, cannot fail. */
	xa_store(&dev->mr_xa, key >> SROCE_MR_KEY_SHIFT, mr, GFP_KERNEL);
	WRITE_ONCE(old->valid, false);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mr_rereg_swap);

/**
 * sroce_key_slot_get() - the entry of a key's index, whatever its state,
 *	when it is of a type and PD the caller may act on
 * @dev: device
 * @key: lkey or rkey; only its index (upper 24 bits) is used
 * @pd: PD of the QP acting on it: an entry of another PD is not found
 * @types: BIT(enum sroce_mr_type) of each type the caller takes
 *
 * For the owners of a key's state (IB_WR_LOCAL_INV, memory window binds),
 * which check the key and validity themselves under their lock.  Type and
 * PD are checked before any reference is taken and before the key is
 * compared: another PD's entry, whatever its key, is no entry at all, so
 * a QP learns nothing of another PD's keys from its completions (IBTA
 * 10.6.3.7, 10.6.7.2: a key of another PD is not valid for the QP), and
 * takes no reference that another PD's owner could run into.
 * Context: any; RCU inside.
 * Return: the MR or window with a reference held, or NULL.
 */
struct sroce_mr *sroce_key_slot_get(struct sroce_dev *dev, u32 key,
				    const struct sroce_pd *pd,
				    unsigned int types)
{
	struct sroce_mr *mr;

	rcu_read_lock();
	mr = xa_load(&dev->mr_xa, key >> SROCE_MR_KEY_SHIFT);
	/* @pd and @type never change once the entry is published */
	if (mr && (mr->pd != pd || !(types & BIT(mr->type)) ||
		   !kref_get_unless_zero(&mr->ref)))
		mr = NULL;
	rcu_read_unlock();
	return mr;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_key_slot_get);

/*
 * The valid entry @key names, with a reference, and a hold when @hold
 * (sroce_mr_hold()); NULL when none.
 */
static struct sroce_mr *sroce_key_find(struct sroce_dev *dev, u32 key,
				       bool hold)
{
	struct sroce_mr *mr;

	rcu_read_lock();
	mr = xa_load(&dev->mr_xa, key >> SROCE_MR_KEY_SHIFT);
	if (mr && (!sroce_mr_key_valid(mr, key) ||
		   !kref_get_unless_zero(&mr->ref)))
		mr = NULL;
	rcu_read_unlock();
	/* again with the reference: a fast-register MR may have moved on */
	if (mr && !(hold ? sroce_mr_hold(mr, key) :
			   sroce_mr_key_valid(mr, key))) {
		sroce_mr_put(mr);
		mr = NULL;
	}
	return mr;
}

/**
 * sroce_key_get() - find a valid MR or memory window by key
 * @dev: device
 * @key: lkey or rkey (index in the upper 24 bits, a key byte below)
 *
 * MRs and memory windows share one key namespace (IBTA 10.6.7).
 * Context: any; RCU inside.
 * Return: the entry with a reference held (drop it with sroce_mr_put()),
 * or NULL when no valid entry has this key.
 */
struct sroce_mr *sroce_key_get(struct sroce_dev *dev, u32 key)
{
	return sroce_key_find(dev, key, false);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_key_get);

bool sroce_mr_is_window(const struct sroce_mr *mr)
{
	return mr->type == SROCE_MR_MW1 || mr->type == SROCE_MR_MW2;
}

/**
 * sroce_mr_lookup() - find a valid MR by lkey or rkey
 * @dev: device
 * @key: lkey or rkey (index in the upper 24 bits, a key byte below)
 * @remote: @key is an rkey rather than an lkey (sroce's are equal)
 *
 * A memory window's key is never an MR's: the responder resolves rkeys
 * with sroce_rkey_get(), which knows windows.
 * Context: any; RCU inside.
 * Return: the MR with a reference held (drop it with sroce_mr_put()), or
 * NULL when no valid MR has this key.
 */
struct sroce_mr *sroce_mr_lookup(struct sroce_dev *dev, u32 key, bool remote)
{
	struct sroce_mr *mr = sroce_key_get(dev, key);

	if (mr && sroce_mr_is_window(mr)) {
		sroce_mr_put(mr);
		mr = NULL;
	}
	return mr;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mr_lookup);

/**
 * sroce_mr_lookup_held() - find a valid MR by key, to keep across packets
 * @dev: device
 * @key: lkey (index in the upper 24 bits, a key byte below)
 *
 * sroce_mr_lookup() with a hold (sroce_mr_hold()): for SGE cursors and
 * memory window binds, which keep the MR until they move past it.
 * Context: any; RCU inside.
 * Return: the MR with a reference and a hold (drop both with
 * sroce_mr_put_held()), or NULL when no valid MR has this key.
 */
struct sroce_mr *sroce_mr_lookup_held(struct sroce_dev *dev, u32 key)
{
	struct sroce_mr *mr = sroce_key_find(dev, key, true);

	if (mr && sroce_mr_is_window(mr)) {
		sroce_mr_put_held(mr);
		mr = NULL;
	}
	return mr;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mr_lookup_held);

/**
 * sroce_mr_check() - protection check of an access to an MR
 * @mr: region
 * @pd: PD of the QP doing the access
 * @iova: first byte
 * @len: bytes (0 is allowed and always in bounds)
 * @access: IB_ACCESS_* flags the access needs (0 for local read)
 *
 * Checks validity, PD, access flags and bounds with overflow checks (IBTA
 * 10.6.3, 9.7.5.1.2): no byte outside [mr->iova, mr->iova + mr->length).
 * Context: any.
 * Return: 0, -EINVAL (invalidated MR), -EACCES (PD or flags), -EFAULT
 * (bounds).
 */
int sroce_mr_check(const struct sroce_mr *mr, const struct sroce_pd *pd,
		   u64 iova, u64 len, int access)
{
	u64 end;

	if (!READ_ONCE(mr->valid))
		return -EINVAL;
	if (mr->pd != pd)
		return -EACCES;
	access &= SROCE_MR_CHECK_MASK;
	if ((mr->access & access) != access)
		return -EACCES;
	if (!len)
		return 0;
	if (check_add_overflow(iova, len, &end))
		return -EFAULT;
	if (mr->type == SROCE_MR_DMA)
		return 0;
	if (iova < mr->iova || end > mr->iova + mr->length)
		return -EFAULT;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mr_check);
