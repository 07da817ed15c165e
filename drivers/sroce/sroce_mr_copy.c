// SPDX-License-Identifier: GPL-2.0
/*
 * Data through memory regions: copies between a checked MR range and a
 * kernel buffer (user MRs page by page, fast-register MRs block by block,
 * DMA MRs directly), each inside the validity check and RCU read-side
 * section that make deregistration safe (IBTA vol. 1 10.6); 8-byte
 * atomics (9.4.5) and ATOMIC WRITE (IBTA 1.5 oA19-28); and the SGE
 * cursors that walk a WQE's scatter/gather list with lkey, PD, bounds and
 * access checks on every chunk (10.6.3, 10.8.3), copying or, zero-copy,
 * attaching a user MR's pages to a packet.
 *
 * Context: any, including softirq; nothing here sleeps.
 */

#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/skbuff.h>
#include <kunit/visibility.h>

#include "sroce.h"
#include "sroce_mr.h"

static void sroce_copy_dir(void *mem, void *buf, u32 len,
			   enum sroce_copy_dir dir)
{
	if (dir == SROCE_TO_MR)
		memcpy(mem, buf, len);
	else
		memcpy(buf, mem, len);
}

/* Copy a user MR range page by page; the page of @iova found in O(1). */
static void sroce_mr_copy_pages(struct sroce_mr *mr, u64 iova, void *buf,
				u32 len, enum sroce_copy_dir dir)
{
	unsigned long idx;
	u64 pos;
	u32 off;

	pos = iova - mr->iova + mr->offset;
	idx = pos >> PAGE_SHIFT;
	off = offset_in_page(pos);
	while (len) {
		u32 n = min_t(u32, len, PAGE_SIZE - off);
		struct page *page;
		void *va;

		if (WARN_ON_ONCE(idx >= mr->npages))
			return;
		page = mr->pages[idx];
		va = kmap_local_page(page);
		sroce_copy_dir(va + off, buf, n, dir);
		kunmap_local(va);
		if (dir == SROCE_TO_MR)
			flush_dcache_page(page);

		buf += n;
		len -= n;
		idx++;
		off = 0;
	}
}

/*
 * Copy a fast-register MR range block by block: each block of the live
 * list is kernel memory, contiguous for its whole size.
 */
static void sroce_mr_copy_fast(struct sroce_mr *mr, u64 iova, void *buf,
			       u32 len, enum sroce_copy_dir dir)
{
	const struct sroce_fr *fr = &mr->fr;
	u64 bsize = BIT_ULL(fr->shift);
	u64 pos = iova - mr->iova + mr->offset;
	u64 idx = pos >> fr->shift;
	u64 off = pos & (bsize - 1);

	while (len) {
		u32 n = min_t(u64, len, bsize - off);

		if (WARN_ON_ONCE(idx >= fr->nlive))
			return;
		sroce_copy_dir((void *)(uintptr_t)(fr->live[idx] + off), buf,
			       n, dir);
		buf += n;
		len -= n;
		idx++;
		off = 0;
	}
}

/* Copy between @mr, known valid inside the caller's RCU section, and @buf. */
static void sroce_mr_copy_valid(struct sroce_mr *mr, u64 iova, void *buf,
				u32 len, enum sroce_copy_dir dir)
{
	if (mr->type == SROCE_MR_DMA)
		sroce_copy_dir((void *)(uintptr_t)iova, buf, len, dir);
	else if (mr->type == SROCE_MR_FAST)
		sroce_mr_copy_fast(mr, iova, buf, len, dir);
	else if (len)
		sroce_mr_copy_pages(mr, iova, buf, len, dir);
}

/**
 * sroce_mr_copy() - copy between a checked MR range and a kernel buffer
 * @mr: region (a reference held); the range must have passed
 *	sroce_mr_check()
 * @iova: first byte in the MR
 * @buf: kernel buffer
 * @len: bytes
 * @dir: direction
 *
 * Checks that @mr is still valid and copies inside one RCU read-side
 * section, so once sroce_mr_destroy() returns no copy touches the memory.
 * User MRs are copied page by page through kmap_local_page().
 * Context: any, including softirq.
 * Return: 0, or -EINVAL when @mr was invalidated or deregistered since it
 * was checked (nothing copied).
 */
int sroce_mr_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
		  enum sroce_copy_dir dir)
{
	int err = 0;

	rcu_read_lock();
	if (!READ_ONCE(mr->valid))
		err = -EINVAL;
	else
		sroce_mr_copy_valid(mr, iova, buf, len, dir);
	rcu_read_unlock();
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mr_copy);

/**
 * sroce_mr_atomic() - execute an 8-byte atomic on a checked MR range
 * @mr: region (a reference held); the range passed sroce_mr_check() with
 *	IB_ACCESS_REMOTE_ATOMIC
 * @iova: the 8-byte aligned target in the MR
 * @cswap: true for COMPARE_SWAP, false for FETCH_ADD
 * @swap_add: the swap value (COMPARE_SWAP) or the addend (FETCH_ADD)
 * @comp: the compare value (COMPARE_SWAP only)
 * @orig: out: the value before the operation
 *
 * The validity check, the read and the write are one RCU read-side
 * section, as in sroce_mr_copy(): a deregistration either comes after the
 * whole operation or before any of it, never between the read and the
 * write (IBTA 9.4.5: an atomic is executed entirely or not at all).
 * Context: any; the caller serialises atomics (it holds its atomic lock).
 * Return: 0, or -EINVAL when @mr was invalidated or deregistered since it
 * was checked (nothing read or written, @orig untouched).
 */
int sroce_mr_atomic(struct sroce_mr *mr, u64 iova, bool cswap, u64 swap_add,
		    u64 comp, u64 *orig)
{
	u64 old, val;
	int err = 0;

	rcu_read_lock();
	if (!READ_ONCE(mr->valid)) {
		err = -EINVAL;
		goto out;
	}
	sroce_mr_copy_valid(mr, iova, &old, sizeof(old), SROCE_FROM_MR);
	if (!cswap || old == comp) {
		val = cswap ? swap_add : old + swap_add;
		sroce_mr_copy_valid(mr, iova, &val, sizeof(val), SROCE_TO_MR);
	}
	*orig = old;
out:
	rcu_read_unlock();
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mr_atomic);

/*
 * Kernel address of byte @iova of a valid MR, or NULL; a user MR's page
 * is mapped (*@page set: the caller unmaps it).
 */
static u8 *sroce_mr_kaddr(struct sroce_mr *mr, u64 iova, struct page **page)
{
	u64 pos = iova - mr->iova + mr->offset;
	const struct sroce_fr *fr = &mr->fr;

	*page = NULL;
	switch (mr->type) {
	case SROCE_MR_DMA:
		return (u8 *)(uintptr_t)iova;
	case SROCE_MR_FAST:
		if ((pos >> fr->shift) >= fr->nlive)
			return NULL;
		return (u8 *)(uintptr_t)(fr->live[pos >> fr->shift] +
					 (pos & (BIT_ULL(fr->shift) - 1)));
	default:
		if ((pos >> PAGE_SHIFT) >= mr->npages)
			return NULL;
		*page = mr->pages[pos >> PAGE_SHIFT];
		return (u8 *)kmap_local_page(*page) + offset_in_page(pos);
	}
}

/**
 * sroce_mr_atomic_write() - store 8 bytes with one 64-bit store
 * @mr: region (a reference held); the range passed sroce_mr_check() with
 *	IB_ACCESS_REMOTE_WRITE
 * @iova: the 8-byte aligned target in the MR
 * @val: the bytes to store, in memory order
 *
 * IBTA 1.5 oA19-28 (ATOMIC WRITE): the 8 bytes become visible all at
 * once, after the RDMA WRITEs executed before it (a release store).  The
 * validity check and the store are one RCU read-side section, as in
 * sroce_mr_copy().
 * Context: any, including softirq.
 * Return: 0; -EINVAL when @mr was invalidated or deregistered since it was
 * checked, or the memory behind @iova is not 8-byte aligned (nothing
 * stored); -EOPNOTSUPP on 32-bit kernels.
 */
int sroce_mr_atomic_write(struct sroce_mr *mr, u64 iova, u64 val)
{
	struct page *page = NULL;
	u8 *addr = NULL;
	int err = 0;

	if (!IS_ENABLED(CONFIG_64BIT))
		return -EOPNOTSUPP;
	rcu_read_lock();
	if (READ_ONCE(mr->valid))
		addr = sroce_mr_kaddr(mr, iova, &page);
	if (!addr || !IS_ALIGNED((uintptr_t)addr, sizeof(u64))) {
		err = -EINVAL;
		goto out;
	}
#ifdef CONFIG_64BIT
	/* release: the writes executed before it are visible first */
	smp_store_release((u64 *)addr, val);
#endif
	if (page)
		flush_dcache_page(page);
out:
	if (page)
		kunmap_local(addr);
	rcu_read_unlock();
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mr_atomic_write);

/**
 * sroce_sge_cursor_init() - start a cursor at the first byte of an SGE list
 * @cur: cursor
 * @sge: the list (a kernel copy, never a user ring)
 * @num_sge: entries in @sge
 *
 * Context: any.
 */
void sroce_sge_cursor_init(struct sroce_sge_cursor *cur,
			   const struct sroce_sge *sge, u32 num_sge)
{
	cur->sge = sge;
	cur->num_sge = num_sge;
	cur->idx = 0;
	cur->off = 0;
	cur->mr = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_sge_cursor_init);

/**
 * sroce_sge_cursor_release() - drop the MR a cursor holds
 * @cur: cursor; may be used again only after sroce_sge_cursor_init()
 *
 * Context: any.
 */
void sroce_sge_cursor_release(struct sroce_sge_cursor *cur)
{
	if (cur->mr) {
		sroce_mr_put_held(cur->mr);
		cur->mr = NULL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(sroce_sge_cursor_release);

static void sroce_sge_cursor_next(struct sroce_sge_cursor *cur)
{
	sroce_sge_cursor_release(cur);
	cur->idx++;
	cur->off = 0;
}

/*
 * The next chunk of at most @len bytes at @cur: skips used-up and empty
 * SGEs, looks the SGE's lkey up once (cur->mr keeps the reference) and
 * checks @pd, bounds and @access for the chunk.  @iova and @n name it.
 * Return: 0, -EINVAL when the list ends first, -EACCES/-EFAULT on a
 * protection failure.
 */
static int sroce_sge_chunk(struct sroce_dev *dev, struct sroce_pd *pd,
			   struct sroce_sge_cursor *cur, u32 len, int access,
			   u64 *iova, u32 *n)
{
	const struct sroce_sge *sge;
	int err;

	for (;;) {
		if (cur->idx >= cur->num_sge)
			return -EINVAL;
		sge = &cur->sge[cur->idx];
		if (cur->off < sge->length)
			break;
		sroce_sge_cursor_next(cur);
	}
	if (!cur->mr) {
		cur->mr = sroce_mr_lookup_held(dev, sge->lkey);
		if (!cur->mr)
			return -EACCES;
	}
	*iova = sge->addr + cur->off;
	*n = min(len, sge->length - cur->off);
	err = sroce_mr_check(cur->mr, pd, *iova, *n, access);
	if (err)
		return err == -EINVAL ? -EACCES : err;
	return 0;
}

/* Move @cur @n bytes on, past its SGE when that is used up. */
static void sroce_sge_cursor_advance(struct sroce_sge_cursor *cur, u32 n)
{
	cur->off += n;
	if (cur->off == cur->sge[cur->idx].length)
		sroce_sge_cursor_next(cur);
}

/**
 * sroce_sge_copy() - copy @len bytes at a cursor, then advance it
 * @dev: device (key lookups)
 * @pd: PD of the QP
 * @cur: cursor
 * @buf: kernel buffer
 * @len: bytes
 * @dir: SROCE_FROM_MR gathers (send), SROCE_TO_MR scatters (receive)
 *
 * Each SGE's lkey is looked up once (the cursor keeps the reference until
 * it moves past the SGE); every chunk is checked for @pd, bounds and, for
 * SROCE_TO_MR, IB_ACCESS_LOCAL_WRITE.
 * Context: any.
 * Return: 0, -EINVAL when the list is shorter than @len (IB_WC_LOC_LEN_ERR),
 * -EACCES/-EFAULT on a protection failure (IB_WC_LOC_PROT_ERR).
 */
int sroce_sge_copy(struct sroce_dev *dev, struct sroce_pd *pd,
		   struct sroce_sge_cursor *cur, void *buf, u32 len,
		   enum sroce_copy_dir dir)
{
	int access = dir == SROCE_TO_MR ? IB_ACCESS_LOCAL_WRITE : 0;
	u64 iova;
	u32 n;
	int err;

	while (len) {
		err = sroce_sge_chunk(dev, pd, cur, len, access, &iova, &n);
		if (err)
			return err;
		if (sroce_mr_copy(cur->mr, iova, buf, n, dir))
			return -EACCES;
		buf += n;
		len -= n;
		sroce_sge_cursor_advance(cur, n);
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_sge_copy);

/*
 * Attach @len bytes of a user MR from @iova to @skb as page fragments,
 * each holding a page reference (the pages outlive a deregistration while
 * the packet is in flight).  Return: 0, or -E2BIG when @skb has no
 * fragment left (what was attached stays: the caller frees @skb).
 */
static int sroce_mr_frags(struct sroce_mr *mr, u64 iova, struct sk_buff *skb,
			  u32 len)
{
	u64 pos = iova - mr->iova + mr->offset;
	unsigned long idx = pos >> PAGE_SHIFT;
	u32 off = offset_in_page(pos);

	while (len) {
		u32 n = min_t(u32, len, PAGE_SIZE - off);
		int i = skb_shinfo(skb)->nr_frags;
		struct page *page;

		if (WARN_ON_ONCE(idx >= mr->npages))
			return -EFAULT;
		page = mr->pages[idx];
		if (skb_can_coalesce(skb, i, page, off)) {
			skb_frag_size_add(&skb_shinfo(skb)->frags[i - 1], n);
		} else {
			if (i >= MAX_SKB_FRAGS)
				return -E2BIG;
			get_page(page);
			skb_fill_page_desc(skb, i, page, off, n);
		}
		skb->len += n;
		skb->data_len += n;
		skb->truesize += n;
		len -= n;
		idx++;
		off = 0;
	}
	/* the application can write these pages: never checksum in place */
	skb_shinfo(skb)->flags |= SKBFL_SHARED_FRAG;
	return 0;
}

/**
 * sroce_sge_frags() - attach @len bytes at a cursor to a packet, zero-copy
 * @dev: device (key lookups)
 * @pd: PD of the QP
 * @cur: cursor
 * @skb: packet; the bytes are appended as page fragments of the MRs'
 *	pinned pages, each with a page reference
 * @len: bytes
 *
 * The gather of sroce_sge_copy() (SROCE_FROM_MR) without the copy: the
 * same lkey, PD and bounds checks on every chunk.  Only user MRs have a
 * page array; a DMA MR gets -EOPNOTSUPP.
 * Context: any.
 * Return: 0; -EINVAL, -EACCES or -EFAULT as sroce_sge_copy(); -EOPNOTSUPP
 * (DMA MR) or -E2BIG (more fragments than an skb holds): the caller frees
 * @skb and copies instead.
 */
int sroce_sge_frags(struct sroce_dev *dev, struct sroce_pd *pd,
		    struct sroce_sge_cursor *cur, struct sk_buff *skb, u32 len)
{
	u64 iova;
	u32 n;
	int err;

	while (len) {
		err = sroce_sge_chunk(dev, pd, cur, len, 0, &iova, &n);
		if (err)
			return err;
		if (cur->mr->type != SROCE_MR_USER)
			return -EOPNOTSUPP;
		err = sroce_mr_frags(cur->mr, iova, skb, n);
		if (err)
			return err;
		len -= n;
		sroce_sge_cursor_advance(cur, n);
	}
	return 0;
}

/**
 * sroce_sge_total() - total bytes of an SGE list
 * @sge: the list (a kernel copy)
 * @num_sge: entries
 * @total: the sum
 *
 * Context: any.
 * Return: 0, or -EINVAL when the sum exceeds SROCE_MAX_MSG_SIZE (2^31).
 */
int sroce_sge_total(const struct sroce_sge *sge, u32 num_sge, u32 *total)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < num_sge; i++)
		sum += sge[i].length;
	if (sum > SROCE_MAX_MSG_SIZE)
		return -EINVAL;
	*total = sum;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_sge_total);
