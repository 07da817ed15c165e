// SPDX-License-Identifier: GPL-2.0
/*
 * Rings shared with the provider (SQ, RQ, SRQ, CQ), their mmap
 * entries, the receive WQE fetch of RQs and SRQs, and the CQ producer.
 *
 * A ring is one virtually contiguous buffer (sroce_ring_alloc(): like
 * vmalloc_user(), but a user ring is charged to the caller's memory
 * cgroup): struct
 * sroce_queue_hdr, then a power-of-two number of fixed-size slots (see
 * sroce-abi.h).  Each buffer has a struct sroce_mmap_entry.  For a user
 * context the buffer is exposed through the entry's rdma_user_mmap_entry;
 * the provider maps it with mmap(MAP_SHARED) at the offset the create
 * response carries.  The buffer is freed in mmap_free, once the core drops
 * the last reference to the entry; pages still mapped by a process stay
 * alive through the page references remap_vmalloc_range() took, so a
 * process that keeps a mapping after destroy (or after the device went
 * away) reads stale memory, never freed memory.
 *
 * Destroy clears q->hdr before the buffer goes, and the buffer is freed only
 * after an RCU grace period, from sroce_wq (sroce_ring_free()):
 * sroce_queue_used() (rdma resource dumps, which 6.1 cores before 6.1.190
 * run concurrently with destroy) reads it under rcu_read_lock().
 */

#include <linux/vmalloc.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <kunit/visibility.h>

#include "sroce.h"
#include "sroce_qp.h"
#include "sroce_queue.h"
#include "sroce_verbs.h"

/**
 * struct sroce_mmap_entry - a ring buffer, possibly offered to a user
 *	context
 * @rdma_entry: core entry (offset, length, references); inserted for user
 *	rings only
 * @buf: the sroce_ring_alloc() buffer
 * @size: bytes of @buf, page aligned
 * @free_work: frees @buf and the entry after an RCU grace period
 */
struct sroce_mmap_entry {
	struct rdma_user_mmap_entry rdma_entry;
	void *buf;
	size_t size;
	struct rcu_work free_work;
};

static struct sroce_mmap_entry *
to_sroce_mmap_entry(struct rdma_user_mmap_entry *entry)
{
	return container_of(entry, struct sroce_mmap_entry, rdma_entry);
}

/*
 * A zeroed buffer of @size bytes (page aligned) that remap_vmalloc_range()
 * accepts, allocated with @gfp (GFP_KERNEL_ACCOUNT charges it to the
 * caller's memory cgroup).  vmalloc_user() takes no GFP flags and
 * __vmalloc_node_range() is not exported, so the pages are allocated here
 * and vmap()ed with VM_USERMAP; with VM_MAP_PUT_PAGES, vfree() frees the
 * pages and the array.
 */
static void *sroce_ring_alloc(size_t size, gfp_t gfp)
{
	unsigned int i, n = size >> PAGE_SHIFT;
	struct page **pages;
	void *buf;

	pages = kvcalloc(n, sizeof(*pages), gfp);
	if (!pages)
		return NULL;
	for (i = 0; i < n; i++) {
		pages[i] = alloc_page(gfp | __GFP_ZERO);
		if (!pages[i])
			goto err;
	}
	buf = vmap(pages, n, VM_MAP | VM_USERMAP | VM_MAP_PUT_PAGES,
		   PAGE_KERNEL);
	if (buf)
		return buf;
err:
	while (i--)
		__free_page(pages[i]);
	kvfree(pages);
	return NULL;
}

static void sroce_ring_free_work(struct work_struct *work)
{
	struct sroce_mmap_entry *entry =
		container_of(to_rcu_work(work), struct sroce_mmap_entry,
			     free_work);

	vfree(entry->buf);
	kfree(entry);
}

/*
 * Free a ring buffer and its entry once every RCU reader is done with it.
 * The work runs in process context: vfree() from softirq would defer the
 * free through a list node written into the buffer, which a process may
 * still map.  Module exit waits for these with rcu_barrier() before it
 * destroys sroce_wq.
 */
static void sroce_ring_free(struct sroce_mmap_entry *entry)
{
	INIT_RCU_WORK(&entry->free_work, sroce_ring_free_work);
	queue_rcu_work(sroce_wq, &entry->free_work);
}

static int sroce_queue_expose(struct sroce_queue *q, struct ib_ucontext *uctx,
			      struct sroce_mmap_info *mi)
{
	struct sroce_mmap_entry *entry = q->ring;
	int err;

	err = rdma_user_mmap_entry_insert(uctx, &entry->rdma_entry,
					  q->buf_size);
	if (err)
		return err;

	q->mmap_entry = &entry->rdma_entry;
	if (mi) {
		mi->offset = rdma_user_mmap_get_offset(&entry->rdma_entry);
		mi->size = q->buf_size;
		mi->num_slots = q->num;
		mi->reserved = 0;
		mi->reserved2 = 0;
	}
	return 0;
}

/**
 * sroce_queue_init() - allocate a ring and, for a user context, offer it
 *	for mmap
 * @dev: device (for debug output)
 * @q: queue to fill
 * @num: slot count, a power of two (1 .. 2^20)
 * @slot_size: bytes per slot
 * @uctx: user context that will map the ring, or NULL for a kernel ring
 * @mi: filled with offset, size and slot count when @uctx is set; may be
 *	NULL for kernel rings
 *
 * The buffer is zeroed (both indices start at 0); a user ring is charged,
 * like everything allocated on a user's behalf, to the caller's memory
 * cgroup.
 * Context: process, may sleep.
 * Return: 0, -EINVAL for a bad @num or @slot_size, -ENOMEM.
 */
int sroce_queue_init(struct sroce_dev *dev, struct sroce_queue *q, u32 num,
		     u32 slot_size, struct ib_ucontext *uctx,
		     struct sroce_mmap_info *mi)
{
	gfp_t gfp = uctx ? GFP_KERNEL_ACCOUNT : GFP_KERNEL;
	size_t bytes;
	int err;

	if (!num || !is_power_of_2(num) || num > (1U << 20) || !slot_size)
		return -EINVAL;
	if (check_mul_overflow((size_t)num, (size_t)slot_size, &bytes) ||
	    check_add_overflow(bytes, (size_t)SROCE_QUEUE_HDR_SIZE, &bytes) ||
	    bytes > U32_MAX - PAGE_SIZE)
		return -EINVAL;

	memset(q, 0, sizeof(*q));
	q->buf_size = PAGE_ALIGN(bytes);
	q->ring = kzalloc(sizeof(*q->ring), gfp);
	if (!q->ring)
		return -ENOMEM;
	q->hdr = sroce_ring_alloc(q->buf_size, gfp);
	if (!q->hdr) {
		err = -ENOMEM;
		goto err_entry;
	}
	q->ring->buf = q->hdr;
	q->ring->size = q->buf_size;
	q->slots = (void *)q->hdr + SROCE_QUEUE_HDR_SIZE;
	q->num = num;
	q->slot_size = slot_size;

	if (uctx) {
		err = sroce_queue_expose(q, uctx, mi);
		if (err)
			goto err_buf;
	}

	ibdev_dbg(&dev->ib_dev, "queue %u x %u bytes%s\n", num, slot_size,
		  uctx ? " (user)" : "");
	return 0;

err_buf:
	vfree(q->hdr);
	q->hdr = NULL;
err_entry:
	kfree(q->ring);
	q->ring = NULL;
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_queue_init);

/**
 * sroce_queue_cleanup() - release a ring
 * @q: queue from sroce_queue_init(); cleaning an unused (zeroed) queue or
 *	the same queue twice is allowed
 *
 * A user ring gets SROCE_QUEUE_F_ERROR set in its header (a process that
 * still maps it, e.g. after the device was removed under it, sees the queue
 * is dead) and its mmap entry removed; the buffer itself is freed by
 * sroce_mmap_free() when the core drops the entry's last reference.  A
 * kernel ring is freed after an RCU grace period (see the file comment).
 * Context: process (any for a kernel ring).
 */
void sroce_queue_cleanup(struct sroce_queue *q)
{
	struct sroce_queue_hdr *hdr = q->hdr;

	/* From here on sroce_queue_used() no longer reaches the buffer. */
	WRITE_ONCE(q->hdr, NULL);
	q->slots = NULL;
	if (q->mmap_entry) {
		/*
		 * A process may keep the ring mapped (device removal does not
		 * unmap it): tell its provider the queue is dead.
		 */
		WRITE_ONCE(hdr->flags, READ_ONCE(hdr->flags) | SROCE_QUEUE_F_ERROR);
		rdma_user_mmap_entry_remove(q->mmap_entry);
		q->mmap_entry = NULL;
	} else if (q->ring) {
		sroce_ring_free(q->ring);
	}
	q->ring = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_queue_cleanup);

/**
 * sroce_queue_used() - ring occupancy as the shared indices say
 * @q: any queue, possibly being cleaned up concurrently
 *
 * For display only (rdma resource dumps): user indices are not trusted.
 * Context: any; safe against a concurrent sroce_queue_cleanup(), whose
 * buffer is freed only after an RCU grace period.
 * Return: producer minus consumer index, 0 for a cleaned up queue.
 */
u32 sroce_queue_used(const struct sroce_queue *q)
{
	const struct sroce_queue_hdr *hdr;
	u32 used = 0;

	rcu_read_lock();
	hdr = READ_ONCE(q->hdr);
	if (hdr)
		used = READ_ONCE(hdr->producer) - READ_ONCE(hdr->consumer);
	rcu_read_unlock();
	return used;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_queue_used);

/**
 * sroce_queue_fetch_recv() - copy the receive WQE at a ring's consumer
 *	index and check the copy
 * @q: an RQ or SRQ ring (struct sroce_recv_wqe slots, the kernel consumes)
 * @wqe: filled with the copy, read from the ring exactly once; every later
 *	use reads the copy only
 *
 * The one place a receive WQE leaves a ring, for RQs and SRQs alike.  Does
 * not consume the slot.  A producer index more than the ring size ahead
 * puts the ring in error (SROCE_QUEUE_F_ERROR, which the provider reads).
 * A copy with more than SROCE_MAX_SGE entries keeps its wr_id (for the
 * error completion) and gets num_sge 0.
 * Context: any; the caller serializes the ring's consumers.
 * Return: WQEs published at the consumer index (>= 1, this one included),
 * 0 when the ring is empty, -EIO for a hostile producer index, -EBADMSG for
 * a bad entry count (IBTA 10.8.3.1: the WQE completes in error).
 */
int sroce_queue_fetch_recv(struct sroce_queue *q, struct sroce_recv_wqe *wqe)
{
	int n = sroce_queue_count(q);

	if (n < 0) {
		WRITE_ONCE(q->hdr->flags,
			   READ_ONCE(q->hdr->flags) | SROCE_QUEUE_F_ERROR);
		return n;
	}
	if (!n)
		return 0;
	memcpy(wqe, sroce_queue_slot(q, q->kidx), sizeof(*wqe));
	if (wqe->num_sge > SROCE_MAX_SGE) {
		wqe->num_sge = 0;
		return -EBADMSG;
	}
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_queue_fetch_recv);

/**
 * sroce_mmap() - map a ring into a process (ib_device_ops.mmap)
 * @ibuc: user context
 * @vma: the mapping; needs MAP_SHARED and exactly the ring's length
 *
 * Context: process (ib_uverbs_mmap, under the disassociate SRCU).
 * Return: 0, -EINVAL for an unknown offset, a wrong length or a private
 * mapping, or the error of remap_vmalloc_range().
 */
int sroce_mmap(struct ib_ucontext *ibuc, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma_entry;
	struct sroce_mmap_entry *entry;
	int err;

	/* Checks VM_SHARED and that the length equals the entry's. */
	rdma_entry = rdma_user_mmap_entry_get(ibuc, vma);
	if (!rdma_entry)
		return -EINVAL;

	entry = to_sroce_mmap_entry(rdma_entry);
	err = remap_vmalloc_range(vma, entry->buf, 0);
	rdma_user_mmap_entry_put(rdma_entry);
	return err;
}

/**
 * sroce_mmap_free() - free a ring once nothing refers to its entry
 *	(ib_device_ops.mmap_free)
 * @rdma_entry: the entry
 *
 * The buffer goes after an RCU grace period (see the file comment).
 * Context: any.
 */
void sroce_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	sroce_ring_free(to_sroce_mmap_entry(rdma_entry));
}

/* Tell the CQ's owner that it lost a CQE (IBTA 11.6.2, CQ overrun). */
static void sroce_cq_raise_error(struct sroce_cq *cq)
{
	struct ib_event ev = {
		.device = cq->ibcq.device,
		.element.cq = &cq->ibcq,
		.event = IB_EVENT_CQ_ERR,
	};

	if (cq->ibcq.event_handler)
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
}

/*
 * Should this CQE wake the consumer?  IBTA 11.4.2.2: a solicited
 * notification fires for solicited and for unsuccessful completions.
 * Disarms the CQ when it fires.
 */
static bool sroce_cq_should_notify(struct sroce_cq *cq,
				   const struct sroce_cqe *cqe, bool solicited)
{
	lockdep_assert_held(&cq->lock);

	if (cq->notify == IB_CQ_NEXT_COMP ||
	    (cq->notify == IB_CQ_SOLICITED &&
	     (solicited || cqe->status != IB_WC_SUCCESS))) {
		cq->notify = 0;
		return true;
	}
	return false;
}

/**
 * sroce_cq_post() - add a CQE and signal the consumer if armed
 * @cq: completion queue
 * @cqe: entry to copy into the ring (userspace values, see sroce-abi.h)
 * @solicited: the completion is for a solicited event
 *
 * The consumer index of a user CQ is written by the provider: it is read
 * with an acquire load and a value more than the ring size away from our
 * producer index counts as "full".  The producer index is published with a
 * release store after the slot was written.  The event and completion
 * handlers are called without @cq->lock held, because consumers call
 * ib_req_notify_cq() (which takes it) from their completion handler.
 *
 * Context: any (takes @cq->lock with irqsave).
 * Return: 0, or -ENOSPC when the CQ is full or overflowed earlier (an
 * IB_EVENT_CQ_ERR is raised once and the CQE is lost, IBTA 11.4.2.1).
 */
int sroce_cq_post(struct sroce_cq *cq, const struct sroce_cqe *cqe,
		  bool solicited)
{
	struct sroce_queue *q = &cq->queue;
	unsigned long flags;
	bool notify;
	u32 used;

	spin_lock_irqsave(&cq->lock, flags);
	if (unlikely(cq->overflowed || !q->hdr)) {
		spin_unlock_irqrestore(&cq->lock, flags);
		return -ENOSPC;
	}

	/* Wraps to a huge value when a hostile consumer runs ahead. */
	used = q->kidx - smp_load_acquire(&q->hdr->consumer);
	if (unlikely(used >= q->num)) {
		cq->overflowed = true;
		WRITE_ONCE(q->hdr->flags, q->hdr->flags | SROCE_QUEUE_F_ERROR);
		spin_unlock_irqrestore(&cq->lock, flags);
		sroce_cq_raise_error(cq);
		return -ENOSPC;
	}

	memcpy(sroce_queue_slot(q, q->kidx), cqe, sizeof(*cqe));
	q->kidx++;
	/* Publishes the CQE copied above; the consumer acquires. */
	smp_store_release(&q->hdr->producer, q->kidx);
	notify = sroce_cq_should_notify(cq, cqe, solicited);
	spin_unlock_irqrestore(&cq->lock, flags);

	if (notify && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cq_post);

/**
 * sroce_cq_ring_move() - move the CQEs not yet polled into a new ring
 * @dst: the new ring, fresh from sroce_queue_init() (both indices 0)
 * @src: the CQ's current ring
 *
 * For resize_cq.  The CQEs between the consumer index (read once from the
 * shared header, where the provider writes it) and the kernel's producer
 * index are copied into @dst at the same free-running indices, so no index
 * changes meaning: the provider swaps its mapping and polls on from its
 * consumer index.  @dst's header gets both indices (the producer index
 * published last, with a release store) and @src's flags (an overrun CQ
 * stays in error, IBTA 11.4.2.1).
 * Context: any; the caller holds the CQ's lock (no producer, no kernel
 * poller runs), so a full ring costs up to SROCE_MAX_CQE CQE copies there.
 * Return: 0, or -EINVAL when more CQEs are pending than @dst has slots, or
 * the consumer index is not within @src's pending range (a corrupt index).
 */
int sroce_cq_ring_move(struct sroce_queue *dst, const struct sroce_queue *src)
{
	/* Pairs with the consumer's release store: its reads are done. */
	u32 cons = smp_load_acquire(&src->hdr->consumer);
	u32 pending = src->kidx - cons;
	u32 i;

	if (pending > src->num || pending > dst->num ||
	    dst->slot_size != src->slot_size)
		return -EINVAL;
	for (i = cons; i != src->kidx; i++)
		memcpy(sroce_queue_slot(dst, i), sroce_queue_slot(src, i),
		       src->slot_size);
	dst->kidx = src->kidx;
	WRITE_ONCE(dst->hdr->consumer, cons);
	WRITE_ONCE(dst->hdr->flags, READ_ONCE(src->hdr->flags));
	/* Publishes the CQEs copied above. */
	smp_store_release(&dst->hdr->producer, dst->kidx);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cq_ring_move);

/**
 * sroce_cq_swap_ring() - make a new ring, holding every pending CQE, the
 *	CQ's ring
 * @cq: completion queue
 * @nq: the new ring (sroce_queue_init()); on success it holds the old ring
 *	for the caller to clean up with sroce_queue_cleanup()
 *
 * Producers and kernel pollers take @cq->lock, so none sees the CQ between
 * the copy and the swap; sroce_queue_used() readers may still read the old
 * header, which is freed after an RCU grace period.
 * Context: any (takes @cq->lock with irqsave).
 * Return: 0, or -EINVAL (sroce_cq_ring_move()); @nq is unchanged then.
 */
int sroce_cq_swap_ring(struct sroce_cq *cq, struct sroce_queue *nq)
{
	struct sroce_queue old;
	unsigned long flags;
	int err;

	spin_lock_irqsave(&cq->lock, flags);
	err = sroce_cq_ring_move(nq, &cq->queue);
	if (!err) {
		old = cq->queue;
		cq->queue = *nq;
		/* for sroce_queue_used(), which reads it without the lock */
		WRITE_ONCE(cq->queue.hdr, nq->hdr);
		cq->ibcq.cqe = nq->num;
		*nq = old;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_cq_swap_ring);
