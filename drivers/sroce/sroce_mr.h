/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_mr.h - memory regions, protection checks and scatter/gather
 * cursors (sroce_mr.c; fast-register MRs: sroce_mr_fast.c; a peer's
 * rkeys: sroce_mr_rkey.c; the copies, atomics and cursors: sroce_mr_copy.c)
 */
#ifndef SROCE_MR_H
#define SROCE_MR_H

#include <linux/kref.h>
#include <linux/llist.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <uapi/rdma/sroce-abi.h>

struct sroce_dev;
struct sroce_pd;
struct scatterlist;

/* ------------------------------------------------------------------ */
/* MR and memory access (sroce_mr.c)                                   */
/* ------------------------------------------------------------------ */

enum sroce_mr_type {
	SROCE_MR_DMA,		/* kernel virtual addresses, whole memory */
	SROCE_MR_USER,		/* pinned user memory (ib_umem) */
	SROCE_MR_FAST,		/* fast-register MR (ib_alloc_mr()) */
	SROCE_MR_MW1,		/* type 1 memory window (sroce_mw.c) */
	SROCE_MR_MW2,		/* type 2B memory window (sroce_mw.c) */
};

/* Keys: lkey == rkey == (index << SROCE_MR_KEY_SHIFT) | key byte. */
#define SROCE_MR_KEY_SHIFT	8
#define SROCE_MR_KEY_BYTE	0xffU
#define SROCE_MR_MAX_INDEX	(U32_MAX >> SROCE_MR_KEY_SHIFT)

/* Most pages of a fast-register MR (max_fast_reg_page_list_len). */
#define SROCE_FR_MAX_PAGES	512
/* Page sizes a fast-register MR maps: 4 KiB .. 2 MiB (page_size_cap). */
#define SROCE_FR_PAGE_SIZE_CAP	GENMASK(21, 12)

/**
 * struct sroce_fr - page lists of a fast-register MR (IBTA 10.6.3.6)
 * @live: kernel virtual address of each block of the registration in
 *	effect (the core's virtual DMA: a DMA address is a kernel VA)
 * @stage: the list ib_map_mr_sg() builds; IB_WR_REG_MR swaps it with @live
 * @max: entries of each list (max_num_sg of ib_alloc_mr())
 * @nlive: blocks in @live
 * @nstage: blocks in @stage
 * @shift: log2 of the block size of @live
 * @stage_off: offset of the first byte in the first block of @stage
 * @lock: serialises IB_WR_REG_MR and IB_WR_LOCAL_INV on this MR
 */
struct sroce_fr {
	u64 *live;
	u64 *stage;
	u32 max;
	u32 nlive;
	u32 nstage;
	u32 shift;
	u32 stage_off;
	spinlock_t lock;	/* REG_MR vs LOCAL_INV */
};

/**
 * struct sroce_mr - a memory region
 * @ibmr: core MR; lkey and rkey live here
 * @dev: owning device
 * @pd: protection domain
 * @type: enum sroce_mr_type
 * @umem: pinned pages (SROCE_MR_USER)
 * @pages: kernel pages of @umem, one per PAGE_SIZE block, built once
 * @npages: entries in @pages
 * @iova: first valid address
 * @length: bytes
 * @offset: offset of @iova within the first page
 * @access: IB_ACCESS_* flags
 * @ref: references: the base one (dropped by deregistration), one per
 *	lookup; an engine may keep one across packets
 * @held: holders that keep the MR across packets (an engine's message or
 *	READ stream, an SGE cursor, a bound memory window), each with a
 *	reference too (sroce_mr_hold()); IB_WR_REG_MR waits for none.  A
 *	lookup's reference alone never counts
 * @free_node: entry in the device's list of deregistered MRs whose last
 *	reference went away outside process context (sroce_mr_put())
 * @valid: false once invalidated or deregistered; every access checks it
 * @key: the lkey and rkey in effect, which lookups compare (a
 *	fast-register MR's key byte changes with each IB_WR_REG_MR, while
 *	its owner may have updated ibmr's keys for the next one)
 * @fr: page lists of a SROCE_MR_FAST MR; its lock also serialises the
 *	binds and invalidations of a memory window
 * @num_mw: memory windows bound to this MR (each holds a reference)
 * @mw_mr: a memory window's MR while bound (a reference held), else NULL;
 *	@iova, @length and @access are then the window's
 * @mw_qpn: QPN a type 2B window is bound to
 * @mw_gen: a window's binding: changes whenever a binding ends (bind,
 *	unbind, invalidation, deallocation; under fr.lock), so an access
 *	granted through the window is checked again on every packet
 *	(struct sroce_rkey_ref)
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
	atomic_t held;
	struct llist_node free_node;
	bool valid;
	u32 key;
	struct sroce_fr fr;
	atomic_t num_mw;
	struct sroce_mr *mw_mr;
	u32 mw_qpn;
	u32 mw_gen;
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
struct sroce_mr *sroce_mr_lookup_held(struct sroce_dev *dev, u32 key);
bool sroce_mr_hold(struct sroce_mr *mr, u32 key);
void sroce_mr_put_held(struct sroce_mr *mr);

int sroce_mr_check(const struct sroce_mr *mr, const struct sroce_pd *pd,
		   u64 iova, u64 len, int access);
struct sroce_mr *sroce_key_slot_get(struct sroce_dev *dev, u32 key,
				    const struct sroce_pd *pd,
				    unsigned int types);
struct sroce_mr *sroce_key_get(struct sroce_dev *dev, u32 key);
int sroce_mr_init_window(struct sroce_dev *dev, struct sroce_mr *win,
			 struct sroce_pd *pd, enum sroce_mr_type type);
bool sroce_mr_is_window(const struct sroce_mr *mr);

/* Shared with sroce_mr_fast.c */
int sroce_mr_check_access(int access);
void sroce_mr_init_common(struct sroce_dev *dev, struct sroce_mr *mr,
			  struct sroce_pd *pd, enum sroce_mr_type type,
			  int access);
int sroce_mr_alloc_key(struct sroce_dev *dev, struct sroce_mr *mr);

/* A peer's rkeys (sroce_mr_rkey.c) */
bool sroce_mr_peer_may_invalidate(const struct sroce_mr *mr,
				  const struct sroce_pd *pd);
struct sroce_mr *sroce_rkey_get(struct sroce_dev *dev,
				const struct sroce_pd *pd, u32 qpn, u32 rkey,
				u64 va, u64 len, int access);
int sroce_rkey_invalidate(struct sroce_dev *dev, const struct sroce_pd *pd,
			  u32 qpn, u32 rkey);

/**
 * struct sroce_rkey_ref - an rkey an engine keeps across the packets of
 *	one message (an RDMA WRITE) or response stream (an RDMA READ)
 * @mr: the MR accessed, with a reference and a hold (sroce_mr_hold())
 * @win: the memory window the rkey names, with a reference, or NULL
 * @gen: @win's binding (its mw_gen) when the access was granted
 *
 * Taken by sroce_rkey_hold(), dropped by sroce_rkey_release(); zeroed,
 * it holds nothing.
 */
struct sroce_rkey_ref {
	struct sroce_mr *mr;
	struct sroce_mr *win;
	u32 gen;
};

int sroce_rkey_hold(struct sroce_dev *dev, const struct sroce_pd *pd,
		    u32 qpn, u32 rkey, u64 va, u64 len, int access,
		    struct sroce_rkey_ref *ref);
void sroce_rkey_release(struct sroce_rkey_ref *ref);

/**
 * sroce_rkey_ref_ok() - does an access granted earlier still stand
 * @ref: the rkey kept since the message's first packet (a non-NULL @mr)
 *
 * IBTA 10.6.7, 9.7.5.1.2: an access through a memory window ends with the
 * window's binding (invalidation, a bind, deallocation), even in the
 * middle of a message; an MR's own validity is checked by every copy
 * (sroce_mr_copy()).  Two loads: cheap enough for every packet.
 * Context: any.
 * Return: true while the MR is valid and the window, if any, still has
 * the binding the access was granted under.
 */
static inline bool sroce_rkey_ref_ok(const struct sroce_rkey_ref *ref)
{
	return READ_ONCE(ref->mr->valid) &&
	       (!ref->win || READ_ONCE(ref->win->mw_gen) == ref->gen);
}

/* ------------------------------------------------------------------ */
/* Memory windows (sroce_mw.c)                                         */
/* ------------------------------------------------------------------ */

/**
 * struct sroce_mw - a memory window (IBTA 10.6.7)
 * @ibmw: core MW (allocated by the core)
 * @win: the window's entry in the key namespace: a struct sroce_mr of
 *	type SROCE_MR_MW1 or SROCE_MR_MW2, allocated by sroce_alloc_mw()
 *	and freed through the MR lifetime rules (sroce_mr_destroy())
 */
struct sroce_mw {
	struct ib_mw ibmw;
	struct sroce_mr *win;
};

static inline struct sroce_mw *to_sroce_mw(struct ib_mw *mw)
{
	return container_of(mw, struct sroce_mw, ibmw);
}

/**
 * struct sroce_mw_bind - a bind work request (sroce_send_wqe.wr.bind),
 *	copied out of the ring
 * @mw_rkey: the window's rkey in effect
 * @new_rkey: the rkey it takes: same index, any key byte
 * @mr_lkey: the MR it binds to (ignored when @length is 0)
 * @access: IB_ACCESS_* rights of the window (SROCE_MW_ACCESS)
 * @addr: first byte of the window in the MR
 * @length: bytes; 0 unbinds a type 1 window
 */
struct sroce_mw_bind {
	u32 mw_rkey;
	u32 new_rkey;
	u32 mr_lkey;
	u32 access;
	u64 addr;
	u64 length;
};

int sroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int sroce_dealloc_mw(struct ib_mw *ibmw);
int sroce_mw_bind_check(const struct sroce_mr *win, const struct sroce_mr *mr,
			const struct sroce_pd *pd, const struct sroce_mw_bind *b);
int sroce_mw_bind(struct sroce_dev *dev, struct sroce_pd *pd, u32 qpn,
		  const struct sroce_mw_bind *b);
int sroce_mw_invalidate(struct sroce_mr *win, const struct sroce_pd *pd,
			u32 qpn, u32 rkey);
struct sroce_mr *sroce_mw_window_get(struct sroce_mr *win,
				     const struct sroce_pd *pd, u32 qpn,
				     u64 va, u64 len, int access, u32 *gen);

/* Fast-register MRs (sroce_mr_fast.c) */

/**
 * struct sroce_reg_wqe - IB_WR_REG_MR in the wr area of a kernel QP's
 *	send WQE (a kernel ring: never mapped to userspace)
 * @mr: the struct sroce_mr the WR names; sroce_mr_fast_reg() compares it
 *	with the MR its key names, it never follows it
 * @key: the new lkey and rkey
 * @access: IB_ACCESS_* flags of the registration
 */
struct sroce_reg_wqe {
	u64 mr;
	u32 key;
	u32 access;
};

static_assert(sizeof(struct sroce_reg_wqe) <=
	      sizeof_field(struct sroce_send_wqe, wr.raw));

int sroce_mr_init_fast(struct sroce_dev *dev, struct sroce_mr *mr,
		       struct sroce_pd *pd, u32 max_num_sg);
int sroce_mr_map_sg(struct sroce_mr *mr, struct scatterlist *sg, int nents,
		    unsigned int *sg_offset);
int sroce_mr_fast_reg(struct sroce_dev *dev, struct sroce_pd *pd,
		      const struct sroce_mr *want, u32 key, int access);
int sroce_mr_local_inv(struct sroce_dev *dev, struct sroce_pd *pd, u32 key,
		       u32 qpn);

/* Copies, atomics and SGE cursors (sroce_mr_copy.c) */
enum sroce_copy_dir {
	SROCE_TO_MR,		/* write into the MR */
	SROCE_FROM_MR,		/* read from the MR */
};

int sroce_mr_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
		  enum sroce_copy_dir dir);
int sroce_mr_atomic(struct sroce_mr *mr, u64 iova, bool cswap, u64 swap_add,
		    u64 comp, u64 *orig);
int sroce_mr_atomic_write(struct sroce_mr *mr, u64 iova, u64 val);

/**
 * struct sroce_sge_cursor - position in a scatter/gather list
 * @sge: the list (a kernel copy, never a user ring)
 * @num_sge: entries
 * @idx: current entry
 * @off: bytes consumed of entry @idx
 * @mr: MR of entry @idx once looked up (a reference and a hold:
 *	sroce_mr_lookup_held()), else NULL
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
