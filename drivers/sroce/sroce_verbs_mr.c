// SPDX-License-Identifier: GPL-2.0
/*
 * Memory region verbs: get_dma_mr, reg_user_mr, rereg_user_mr, dereg_mr,
 * alloc_mr and map_mr_sg.  Each checks its input and takes a device slot
 * (sroce_res_get()); the MR's keys, memory and lifetime are sroce_mr.c's.
 */

#include <linux/slab.h>

#include "sroce.h"
#include "sroce_mr.h"
#include "sroce_verbs.h"

/*
 * A zeroed MR allocated with @gfp (GFP_KERNEL_ACCOUNT for a user's MR), with
 * a device slot taken.
 * Return: the MR, or ERR_PTR(-ENOMEM) (also when max_mr is reached).
 */
static struct sroce_mr *sroce_mr_alloc(struct sroce_dev *dev, gfp_t gfp)
{
	struct sroce_mr *mr;

	if (sroce_res_get(dev, SROCE_RES_MR))
		return ERR_PTR(-ENOMEM);
	mr = kzalloc(sizeof(*mr), gfp);
	if (!mr) {
		sroce_res_put(dev, SROCE_RES_MR);
		return ERR_PTR(-ENOMEM);
	}
	return mr;
}

/* Undo sroce_mr_alloc() for an MR that was never set up. */
static void sroce_mr_free_unused(struct sroce_dev *dev, struct sroce_mr *mr)
{
	kfree(mr);
	sroce_res_put(dev, SROCE_RES_MR);
}

/**
 * sroce_get_dma_mr() - MR over all kernel memory (ib_device_ops.get_dma_mr)
 * @ibpd: PD
 * @access: IB_ACCESS_* flags
 *
 * Context: process.
 * Return: the MR, or ERR_PTR(-EINVAL/-EOPNOTSUPP/-ENOMEM).
 */
struct ib_mr *sroce_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct sroce_dev *dev = to_sroce_dev(ibpd->device);
	struct sroce_mr *mr;
	int err;

	mr = sroce_mr_alloc(dev, GFP_KERNEL);
	if (IS_ERR(mr))
		return ERR_CAST(mr);

	err = sroce_mr_init_dma(dev, mr, to_sroce_pd(ibpd), access);
	if (err) {
		sroce_mr_free_unused(dev, mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

/**
 * sroce_reg_user_mr() - register user memory (ib_device_ops.reg_user_mr)
 * @ibpd: PD
 * @start: user virtual address
 * @length: bytes
 * @iova: address of the first byte in the MR
 * @access: IB_ACCESS_* flags
 * @udata: user data; we define no driver data either way
 *
 * Context: process.
 * Return: the MR, or ERR_PTR(): see sroce_mr_init_user().
 */
struct ib_mr *sroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata)
{
	struct sroce_dev *dev = to_sroce_dev(ibpd->device);
	struct sroce_mr *mr;
	int err;

	err = sroce_udata_in_ok(udata);
	if (err)
		return ERR_PTR(err);

	mr = sroce_mr_alloc(dev, GFP_KERNEL_ACCOUNT);
	if (IS_ERR(mr))
		return ERR_CAST(mr);

	err = sroce_mr_init_user(dev, mr, to_sroce_pd(ibpd), start, length,
				 iova, access);
	if (err) {
		sroce_mr_free_unused(dev, mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

/**
 * sroce_rereg_user_mr() - re-register a user MR
 *	(ib_device_ops.rereg_user_mr)
 * @ibmr: the MR, a user MR
 * @flags: IB_MR_REREG_TRANS, _PD, _ACCESS (the core refuses others and 0)
 * @start: new user address (IB_MR_REREG_TRANS)
 * @length: new length (IB_MR_REREG_TRANS)
 * @iova: new address of the first byte in the MR (IB_MR_REREG_TRANS)
 * @access: new IB_ACCESS_* flags (IB_MR_REREG_ACCESS; the core checked
 *	them against the device)
 * @ibpd: the new PD, or the MR's own without IB_MR_REREG_PD
 * @udata: no driver data
 *
 * Deregistration followed by registration (man ibv_rereg_mr(3)): a new MR
 * is registered over the new or the same memory, with the new PD and
 * access, and takes over the old one's keys (sroce_mr_rereg_swap(): lkey
 * and rkey stay, as with mlx5 and rxe); the old MR is invalidated and the
 * core then destroys it through dereg_mr, as ibv_dereg_mr() would
 * (sroce_mr_destroy()): transfers still using it fail on their next
 * access, so none reaches memory under the old rights or translation.  On
 * failure the old MR is unchanged and valid.
 * Context: process, may sleep.
 * Return: the new MR, or ERR_PTR(): -EINVAL (not a user MR, driver input,
 * a bad range or access, see sroce_mr_init_user()), -ENOMEM (also when
 * max_mr is reached: old and new MR exist together for a moment), or the
 * error of ib_umem_get().
 */
struct ib_mr *sroce_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				  u64 length, u64 iova, int access,
				  struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct sroce_mr_reg reg = {
		.start = start, .length = length, .iova = iova, .access = access,
	};
	struct sroce_mr *old = to_sroce_mr(ibmr);
	struct sroce_dev *dev = old->dev;
	struct sroce_mr *mr;
	int err;

	err = sroce_udata_in_ok(udata);
	if (err)
		return ERR_PTR(err);
	if (old->type != SROCE_MR_USER || atomic_read(&old->num_mw))
		return ERR_PTR(-EINVAL);	/* windows bound: 10.6.7.2.6 */
	sroce_mr_rereg_attrs(old, flags, &reg);

	mr = sroce_mr_alloc(dev, GFP_KERNEL_ACCOUNT);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	err = sroce_mr_init_user(dev, mr, to_sroce_pd(ibpd), reg.start,
				 reg.length, reg.iova, reg.access);
	if (err) {
		sroce_mr_free_unused(dev, mr);
		return ERR_PTR(err);
	}
	sroce_mr_rereg_swap(old, mr);
	return &mr->ibmr;
}

/**
 * sroce_dereg_mr() - deregister an MR (ib_device_ops.dereg_mr)
 * @ibmr: MR
 * @udata: user data
 *
 * Returns once no access uses the MR any more.
 * Context: process, sleeps.
 * Return: 0, or -EINVAL while memory windows are bound to the MR (IBTA
 * 10.6.7.2.6; as rdma_rxe).
 */
int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct sroce_mr *mr = to_sroce_mr(ibmr);
	struct sroce_dev *dev = mr->dev;

	if (atomic_read(&mr->num_mw))
		return -EINVAL;
	sroce_mr_destroy(mr);
	sroce_res_put(dev, SROCE_RES_MR);
	return 0;
}

/**
 * sroce_alloc_mr() - allocate a fast-register MR (ib_device_ops.alloc_mr)
 * @ibpd: PD
 * @mr_type: IB_MR_TYPE_MEM_REG only (no SG_GAPS, no integrity)
 * @max_num_sg: most pages one registration maps
 *	(1 .. max_fast_reg_page_list_len)
 *
 * The MR is invalid until an IB_WR_REG_MR registers the page list
 * ib_map_mr_sg() built (IBTA 10.6.3.6).
 * Context: process.
 * Return: the MR, or ERR_PTR(-EINVAL) (type, @max_num_sg), -ENOMEM.
 */
struct ib_mr *sroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type mr_type,
			     u32 max_num_sg)
{
	struct sroce_dev *dev = to_sroce_dev(ibpd->device);
	struct sroce_mr *mr;
	int err;

	if (mr_type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EINVAL);
	mr = sroce_mr_alloc(dev, GFP_KERNEL);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	err = sroce_mr_init_fast(dev, mr, to_sroce_pd(ibpd), max_num_sg);
	if (err) {
		sroce_mr_free_unused(dev, mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

/**
 * sroce_map_mr_sg() - page list of a fast-register MR
 *	(ib_device_ops.map_mr_sg)
 * @ibmr: MR from sroce_alloc_mr()
 * @sg: DMA-mapped scatterlist
 * @sg_nents: entries
 * @sg_offset: offset into the first entry
 *
 * See sroce_mr_map_sg().
 * Context: any.
 * Return: entries mapped, or -EINVAL.
 */
int sroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset)
{
	return sroce_mr_map_sg(to_sroce_mr(ibmr), sg, sg_nents, sg_offset);
}
