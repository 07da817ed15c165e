/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_mr.h - memory regions, protection checks and scatter/gather cursors (sroce_mr.c)
 */
#ifndef SROCE_MR_H
#define SROCE_MR_H

#include <linux/kref.h>
#include <linux/llist.h>
#include <linux/skbuff.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <uapi/rdma/sroce-abi.h>

struct sroce_dev;
struct sroce_pd;

/* ------------------------------------------------------------------ */
/* MR and memory access (sroce_mr.c)                                   */
/* ------------------------------------------------------------------ */

enum sroce_mr_type {
	SROCE_MR_DMA,		/* kernel virtual addresses, whole memory */
	SROCE_MR_USER,		/* pinned user memory (ib_umem) */
};

/**
 * struct sroce_mr - a memory region
 * @ibmr: core MR; lkey and rkey live here
 * @dev: owning device
 * @pd: protection domain
 * @type: SROCE_MR_DMA or SROCE_MR_USER
 * @umem: pinned pages (SROCE_MR_USER)
 * @pages: kernel pages of @umem, one per PAGE_SIZE block, built once
 * @npages: entries in @pages
 * @iova: first valid address
 * @length: bytes
 * @offset: offset of @iova within the first page
 * @access: IB_ACCESS_* flags
 * @ref: references: the base one (dropped by deregistration), one per
 *	lookup; an engine may keep one across packets
 * @free_node: entry in the device's list of deregistered MRs whose last
 *	reference went away outside process context (sroce_mr_put())
 * @valid: false once invalidated or deregistered; every access checks it
 */
struct sroce_mr {
	struct ib_mr ibmr;
	struct sroce_dev *dev;
	struct sroce_pd *pd;
	enum sroce_mr_type type;
	struct ib_umem *umem;
	struct page **pages;
	unsigned long npages;
	u64 iova;
	u64 length;
	u32 offset;
	int access;
	struct kref ref;
	struct llist_node free_node;
	bool valid;
};

/**
 * struct sroce_mr_reg - what registering a user MR takes
 * @start: user virtual address of the first byte
 * @length: bytes
 * @iova: address of the first byte in the MR
 * @access: IB_ACCESS_* flags
 */
struct sroce_mr_reg {
	u64 start;
	u64 length;
	u64 iova;
	int access;
};

void sroce_mr_rereg_attrs(const struct sroce_mr *mr, int flags,
			  struct sroce_mr_reg *reg);
void sroce_mr_rereg_swap(struct sroce_mr *old, struct sroce_mr *mr);

static inline struct sroce_mr *to_sroce_mr(struct ib_mr *mr)
{
	return container_of(mr, struct sroce_mr, ibmr);
}

void sroce_mr_dev_init(struct sroce_dev *dev);
void sroce_mr_dev_drain(struct sroce_dev *dev);
void sroce_mr_put(struct sroce_mr *mr);

struct sroce_mr *sroce_mr_lookup(struct sroce_dev *dev, u32 key, bool remote);

int sroce_mr_check(const struct sroce_mr *mr, const struct sroce_pd *pd,
		   u64 iova, u64 len, int access);
bool sroce_mr_peer_may_invalidate(const struct sroce_mr *mr,
				  const struct sroce_pd *pd);

enum sroce_copy_dir {
	SROCE_TO_MR,		/* write into the MR */
	SROCE_FROM_MR,		/* read from the MR */
};

int sroce_mr_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
		  enum sroce_copy_dir dir);
int sroce_mr_atomic(struct sroce_mr *mr, u64 iova, bool cswap, u64 swap_add,
		    u64 comp, u64 *orig);

/**
 * struct sroce_sge_cursor - position in a scatter/gather list
 * @sge: the list (a kernel copy, never a user ring)
 * @num_sge: entries
 * @idx: current entry
 * @off: bytes consumed of entry @idx
 * @mr: MR of entry @idx once looked up (reference held), else NULL
 */
struct sroce_sge_cursor {
	const struct sroce_sge *sge;
	u32 num_sge;
	u32 idx;
	u32 off;
	struct sroce_mr *mr;
};

void sroce_sge_cursor_init(struct sroce_sge_cursor *cur,
			   const struct sroce_sge *sge, u32 num_sge);
void sroce_sge_cursor_release(struct sroce_sge_cursor *cur);

int sroce_sge_copy(struct sroce_dev *dev, struct sroce_pd *pd,
		   struct sroce_sge_cursor *cur, void *buf, u32 len,
		   enum sroce_copy_dir dir);
int sroce_sge_frags(struct sroce_dev *dev, struct sroce_pd *pd,
		    struct sroce_sge_cursor *cur, struct sk_buff *skb, u32 len);

/* Total bytes of an SGE list; -EINVAL when it overflows 2^31. */
int sroce_sge_total(const struct sroce_sge *sge, u32 num_sge, u32 *total);

#endif /* SROCE_MR_H */
