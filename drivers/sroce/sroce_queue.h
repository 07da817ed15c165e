/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_queue.h - shared rings and completion queues (sroce_queue.c)
 */
#ifndef SROCE_QUEUE_H
#define SROCE_QUEUE_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include <uapi/rdma/sroce-abi.h>

struct sroce_dev;
struct sroce_mmap_entry;

/* ------------------------------------------------------------------ */
/* Shared rings (sroce_queue.c)                                        */
/* ------------------------------------------------------------------ */

/**
 * struct sroce_queue - a ring of fixed-size slots, possibly mapped by the
 *	provider
 * @hdr: start of the ring buffer (indices); NULL once cleaned up
 * @slots: first slot (hdr + SROCE_QUEUE_HDR_SIZE)
 * @num: slot count, a power of two
 * @slot_size: bytes per slot
 * @buf_size: bytes of the buffer, page aligned
 * @kidx: the kernel's own index, never read back from shared memory:
 *	the producer index of a CQ, the consumer index of an SQ or RQ
 * @mmap_entry: mmap entry when mapped by a user context, else NULL
 * @ring: the buffer's descriptor (sroce_queue.c), which frees it
 */
struct sroce_queue {
	struct sroce_queue_hdr *hdr;
	void *slots;
	u32 num;
	u32 slot_size;
	size_t buf_size;
	u32 kidx;
	struct rdma_user_mmap_entry *mmap_entry;
	struct sroce_mmap_entry *ring;
};

int sroce_queue_init(struct sroce_dev *dev, struct sroce_queue *q, u32 num,
		     u32 slot_size, struct ib_ucontext *uctx,
		     struct sroce_mmap_info *mi);
void sroce_queue_cleanup(struct sroce_queue *q);
u32 sroce_queue_used(const struct sroce_queue *q);
int sroce_queue_fetch_recv(struct sroce_queue *q, struct sroce_recv_wqe *wqe);

static inline void *sroce_queue_slot(const struct sroce_queue *q, u32 idx)
{
	return q->slots + (size_t)(idx & (q->num - 1)) * q->slot_size;
}

/**
 * sroce_queue_count() - entries the producer has published past @q->kidx
 * @q: an SQ or RQ (kernel consumes)
 *
 * Acquire-loads the producer index.  Return: 0..@q->num, or -EIO when the
 * producer wrote an index more than @q->num ahead (hostile or corrupt).
 */
static inline int sroce_queue_count(struct sroce_queue *q)
{
	/* pairs with the producer's release store: slots before it are written */
	u32 prod = smp_load_acquire(&q->hdr->producer);
	u32 n = prod - q->kidx;

	return n > q->num ? -EIO : (int)n;
}

/* Advance the kernel's consumer index and publish it (release). */
static inline void sroce_queue_consume(struct sroce_queue *q, u32 n)
{
	q->kidx += n;
	/* pairs with the producer's acquire load: our reads of the slots are done */
	smp_store_release(&q->hdr->consumer, q->kidx);
}

/* ------------------------------------------------------------------ */
/* CQ                                                                  */
/* ------------------------------------------------------------------ */

/**
 * struct sroce_cq - completion queue
 * @ibcq: core CQ
 * @lock: serializes producers (any QP's work may complete into it) and,
 *	for kernel CQs, poll_cq
 * @queue: the CQE ring (struct sroce_cqe slots)
 * @notify: IB_CQ_NEXT_COMP / IB_CQ_SOLICITED armed, 0 when not armed
 * @is_user: ring mapped by a user context
 * @overflowed: an error event was raised; further CQEs are dropped
 */
struct sroce_cq {
	struct ib_cq ibcq;
	spinlock_t lock;	/* producers; poll_cq of kernel CQs */
	struct sroce_queue queue;
	u8 notify;
	bool is_user;
	bool overflowed;
};

static inline struct sroce_cq *to_sroce_cq(struct ib_cq *cq)
{
	return container_of(cq, struct sroce_cq, ibcq);
}

int sroce_cq_post(struct sroce_cq *cq, const struct sroce_cqe *cqe,
		  bool solicited);
int sroce_cq_ring_move(struct sroce_queue *dst, const struct sroce_queue *src);
int sroce_cq_swap_ring(struct sroce_cq *cq, struct sroce_queue *nq);

#endif /* SROCE_QUEUE_H */
