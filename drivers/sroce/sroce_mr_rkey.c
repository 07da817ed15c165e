// SPDX-License-Identifier: GPL-2.0
/*
 * The rkeys of a peer's requests (IBTA 10.6.7, 9.4.1.1, 9.7.5.1.2): which
 * MRs and memory windows a peer's Send with Invalidate may invalidate, and
 * the MR an RDMA READ, RDMA WRITE or atomic reaches through an rkey: an
 * MR's own, or a memory window's (sroce_mw.c) with the window's bytes and
 * rights only; checked once for an access that ends with its packet
 * (sroce_rkey_get()), held across the packets of a message or response
 * stream otherwise (sroce_rkey_hold()).
 *
 * Context: any; nothing here sleeps.
 */

#include <linux/string.h>
#include <kunit/visibility.h>

#include "sroce.h"
#include "sroce_mr.h"

/* Access flags that let a peer name the MR in an rkey. */
#define SROCE_MR_REMOTE_MASK	(IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ | \
				 IB_ACCESS_REMOTE_ATOMIC)

/*
 * Whether a peer's Send with Invalidate may name an MR of each type
 * (IBTA 10.6.7): only fast-register MRs (IB_MR_TYPE_MEM_REG, from
 * ib_alloc_mr()) and type 2B memory windows.  An MR registered by its
 * owner is invalidated only by deregistration, a type 1 window by a
 * zero-length bind or deallocation; a kernel PD's local_dma_lkey is a
 * DMA MR.
 */
static const bool sroce_mr_type_peer_inv[] = {
	[SROCE_MR_DMA] = false,
	[SROCE_MR_USER] = false,
	[SROCE_MR_FAST] = true,
	[SROCE_MR_MW1] = false,
	[SROCE_MR_MW2] = true,
};

/**
 * sroce_mr_peer_may_invalidate() - may a peer invalidate this MR
 * @mr: region named by the R_Key of an IETH
 * @pd: PD of the QP the Send with Invalidate arrived on
 *
 * IBTA 10.6.7, 9.4.1.1: only an MR of a type that allows it
 * (sroce_mr_type_peer_inv[]), registered with remote access and in the
 * QP's PD, may be invalidated remotely; anything else is refused and the
 * MR left alone.  Validity is not checked here (the lookup does).
 * Context: any; reads @mr only.
 * Return: true when the MR may be invalidated.
 */
bool sroce_mr_peer_may_invalidate(const struct sroce_mr *mr,
				  const struct sroce_pd *pd)
{
	if (mr->type >= ARRAY_SIZE(sroce_mr_type_peer_inv) ||
	    !sroce_mr_type_peer_inv[mr->type])
		return false;
	if (!(mr->access & SROCE_MR_REMOTE_MASK))
		return false;
	return mr->pd == pd;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_mr_peer_may_invalidate);

/**
 * sroce_rkey_invalidate() - execute a peer's Send with Invalidate
 * @dev: device
 * @pd: PD of the QP the message arrived on
 * @qpn: that QP's number (a type 2B window must be bound to it)
 * @rkey: the R_Key of the IETH
 *
 * IBTA 9.4.1.1, 10.6.7: a fast-register MR or a type 2B window the peer
 * may invalidate (sroce_mr_peer_may_invalidate()) becomes invalid; a
 * window also lets its MR go.
 * Context: any.
 * Return: 0, or -EINVAL when @rkey names nothing the peer may invalidate
 * (left alone).
 */
int sroce_rkey_invalidate(struct sroce_dev *dev, const struct sroce_pd *pd,
			  u32 qpn, u32 rkey)
{
	struct sroce_mr *mr = sroce_key_get(dev, rkey);
	int err = -EINVAL;

	if (mr && sroce_mr_peer_may_invalidate(mr, pd)) {
		if (sroce_mr_is_window(mr)) {
			err = sroce_mw_invalidate(mr, pd, qpn, rkey);
		} else if (!atomic_read(&mr->num_mw)) {
			/* an MR with windows bound stays (IBTA 10.6.7.2.6) */
			WRITE_ONCE(mr->valid, false);
			err = 0;
		}
	}
	if (mr)
		sroce_mr_put(mr);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_rkey_invalidate);

/*
 * The MR behind @rkey for an access of [@va, @va + @len) with @access,
 * with a reference, and with a hold when @hold; a window's (@ref->win,
 * with a reference, and its binding in @ref->gen) grants only its bytes
 * with its own rights.  Return: the MR, or NULL (nothing held then).
 */
static struct sroce_mr *sroce_rkey_resolve(struct sroce_dev *dev,
					   const struct sroce_pd *pd, u32 qpn,
					   u32 rkey, u64 va, u64 len,
					   int access, bool hold,
					   struct sroce_rkey_ref *ref)
{
	struct sroce_mr *mr = sroce_key_get(dev, rkey);
	u32 key = rkey;

	memset(ref, 0, sizeof(*ref));
	if (mr && sroce_mr_is_window(mr)) {
		ref->win = mr;
		mr = sroce_mw_window_get(ref->win, pd, qpn, va, len, access,
					 &ref->gen);
		access = 0;	/* the window's rights were checked */
		if (mr)
			key = READ_ONCE(mr->key);
	}
	if (mr && hold && !sroce_mr_hold(mr, key)) {
		sroce_mr_put(mr);
		mr = NULL;
	}
	if (mr && sroce_mr_check(mr, pd, va, len, access)) {
		if (hold)
			sroce_mr_put_held(mr);
		else
			sroce_mr_put(mr);
		mr = NULL;
	}
	if (!mr && ref->win) {
		sroce_mr_put(ref->win);
		ref->win = NULL;
	}
	return mr;
}

/**
 * sroce_rkey_get() - resolve an rkey for a remote access and check it
 * @dev: device
 * @pd: PD of the QP doing the access
 * @qpn: that QP's number (a type 2B window must be bound to it)
 * @rkey: the rkey of a RETH or AtomicETH
 * @va: first byte
 * @len: bytes
 * @access: IB_ACCESS_REMOTE_* rights the access needs
 *
 * An MR's rkey is checked by sroce_mr_check(); a memory window's grants
 * only its window, with its own rights, through the MR it is bound to
 * (sroce_mw_window_get(), IBTA 10.6.7, 9.7.5.1.2).  For an access that
 * ends with the packet that asked for it; one that goes on over later
 * packets takes the rkey with sroce_rkey_hold().
 * Context: any.
 * Return: the MR to access, with a reference held, or NULL (remote
 * access error).
 */
struct sroce_mr *sroce_rkey_get(struct sroce_dev *dev,
				const struct sroce_pd *pd, u32 qpn, u32 rkey,
				u64 va, u64 len, int access)
{
	struct sroce_rkey_ref ref;
	struct sroce_mr *mr;

	mr = sroce_rkey_resolve(dev, pd, qpn, rkey, va, len, access, false,
				&ref);
	if (ref.win)
		sroce_mr_put(ref.win);
	return mr;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_rkey_get);

/**
 * sroce_rkey_hold() - take an rkey for an access that goes on over
 *	several packets
 * @dev: device
 * @pd: PD of the QP doing the access
 * @qpn: that QP's number (a type 2B window must be bound to it)
 * @rkey: the rkey of the RETH
 * @va: first byte
 * @len: bytes
 * @access: IB_ACCESS_REMOTE_* rights the access needs
 * @ref: filled: the MR (held, sroce_mr_hold()) and, for a window's rkey,
 *	the window and its binding
 *
 * Checks as sroce_rkey_get() once, for the whole access (IBTA
 * 9.7.5.1.2); each later packet checks sroce_rkey_ref_ok(), so the
 * access ends when the MR is invalidated or the window's binding ends.
 * Context: any.
 * Return: 0, or -EACCES (remote access error; @ref holds nothing).
 */
int sroce_rkey_hold(struct sroce_dev *dev, const struct sroce_pd *pd,
		    u32 qpn, u32 rkey, u64 va, u64 len, int access,
		    struct sroce_rkey_ref *ref)
{
	ref->mr = sroce_rkey_resolve(dev, pd, qpn, rkey, va, len, access,
				     true, ref);
	return ref->mr ? 0 : -EACCES;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_rkey_hold);

/**
 * sroce_rkey_release() - let go of an rkey taken with sroce_rkey_hold()
 * @ref: the rkey, or a zeroed one; zeroed afterwards
 *
 * Context: any.
 */
void sroce_rkey_release(struct sroce_rkey_ref *ref)
{
	if (ref->mr)
		sroce_mr_put_held(ref->mr);
	if (ref->win)
		sroce_mr_put(ref->win);
	memset(ref, 0, sizeof(*ref));
}
EXPORT_SYMBOL_IF_KUNIT(sroce_rkey_release);
