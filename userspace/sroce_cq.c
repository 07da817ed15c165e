// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce_cq.c - the completion queues of the sroce provider: ibv_create_cq,
 * ibv_destroy_cq, ibv_resize_cq (the kernel's new ring mapped in place of
 * the old one) and ibv_poll_cq, a pure ring operation that turns CQEs into
 * struct ibv_wc.  ibv_create_cq_ex (sroce_ex.c) builds on the first and
 * the last.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/sroce-abi.h>

#include "sroce.h"

/* Driver data after the core responses: the kernel sees it as udata. */
struct sroce_create_cq_resp_buf {
	struct ib_uverbs_create_cq_resp ibv_resp;
	struct sroce_create_cq_resp drv;
};

struct sroce_resize_cq_resp_buf {
	struct ib_uverbs_resize_cq_resp ibv_resp;
	struct sroce_resize_cq_resp drv;
};

static_assert(offsetof(struct sroce_create_cq_resp_buf, drv) ==
	      sizeof(struct ib_uverbs_create_cq_resp), "no padding");
static_assert(offsetof(struct sroce_resize_cq_resp_buf, drv) ==
	      sizeof(struct ib_uverbs_resize_cq_resp), "no padding");

/* ------------------------------------------------------------------ */
/* CQ                                                                  */
/* ------------------------------------------------------------------ */

struct ibv_cq *sroce_create_cq(struct ibv_context *ibctx, int cqe,
			       struct ibv_comp_channel *channel, int comp_vector)
{
	struct sroce_create_cq_resp_buf resp = {};
	struct ibv_create_cq cmd = {};
	struct sroce_cq *cq;
	int ret;

	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;

	ret = ibv_cmd_create_cq(ibctx, cqe, channel, comp_vector, &cq->vcq.cq,
				&cmd, sizeof(cmd), &resp.ibv_resp,
				sizeof(resp));
	if (ret)
		goto err_free;

	ret = sroce_ring_map(ibctx, &cq->ring, &resp.drv.mi,
			     sizeof(struct sroce_cqe), resp.drv.mi.num_slots);
	if (ret)
		goto err_destroy;
	return &cq->vcq.cq;

err_destroy:
	ibv_cmd_destroy_cq(&cq->vcq.cq);
err_free:
	free(cq);
	errno = ret;
	return NULL;
}

int sroce_destroy_cq(struct ibv_cq *ibcq)
{
	struct sroce_cq *cq = to_scq(ibcq);
	int ret;

	ret = ibv_cmd_destroy_cq(ibcq);
	if (ret)
		return ret;
	sroce_ring_unmap(&cq->ring);
	free(cq);
	return 0;
}

/*
 * ibv_resize_cq: the kernel moves the CQEs not yet polled into a new ring
 * at the same indices (sroce-abi.h, struct sroce_resize_cq_resp); we map
 * it in place of the old ring, under the ring lock, so no poll_cq sees the
 * CQ in between.  Should the new mapping fail, the old ring, which the
 * kernel marked dead, stays: poll_cq reports EIO from then on.
 * Returns 0 or an errno value: EINVAL when @cqe is out of range or smaller
 * than the CQEs pending, ENOMEM.
 */
int sroce_resize_cq(struct ibv_cq *ibcq, int cqe)
{
	struct sroce_resize_cq_resp_buf resp = {};
	struct sroce_ring *ring = &to_scq(ibcq)->ring;
	struct ibv_resize_cq cmd = {};
	void *buf;
	int ret;

	pthread_spin_lock(&ring->lock);
	ret = ibv_cmd_resize_cq(ibcq, cqe, &cmd, sizeof(cmd), &resp.ibv_resp,
				sizeof(resp));
	if (ret)
		goto out;
	buf = sroce_ring_mmap(ibcq->context, &resp.drv.mi,
			      sizeof(struct sroce_cqe), &ret);
	if (!buf) {
		sroce_err(ibcq->context, "cannot map the resized CQ: %s\n",
			  strerror(ret));
		goto out;
	}
	munmap(ring->hdr, ring->map_size);
	sroce_ring_set(ring, buf, &resp.drv.mi, sizeof(struct sroce_cqe),
		       resp.drv.mi.num_slots);
out:
	pthread_spin_unlock(&ring->lock);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Poll                                                                */
/* ------------------------------------------------------------------ */

#define SROCE_WC_FLAGS	(SROCE_WC_F_GRH | SROCE_WC_F_WITH_IMM | \
			 SROCE_WC_F_WITH_INV)

/* ibv_wc.sl: a UD receive's (it has a GRH) is its packet type, sroce-abi.h. */
static uint8_t sroce_wc_sl(const struct sroce_cqe *cqe)
{
	if (!(cqe->wc_flags & SROCE_WC_F_GRH))
		return cqe->sl;
	switch (cqe->network_hdr_type) {
	case SROCE_NETWORK_IPV4:
		return SROCE_WC_SL_ROCEV2 | SROCE_WC_SL_L3_IPV4;
	case SROCE_NETWORK_IPV6:
		return SROCE_WC_SL_ROCEV2 | SROCE_WC_SL_L3_IPV6;
	default:
		return cqe->sl;
	}
}

static void sroce_cqe_to_wc(struct ibv_wc *wc, const struct sroce_cqe *cqe)
{
	wc->wr_id = cqe->wr_id;
	wc->status = (enum ibv_wc_status)cqe->status;
	wc->opcode = (enum ibv_wc_opcode)cqe->opcode;
	wc->vendor_err = cqe->vendor_err;
	wc->byte_len = cqe->byte_len;
	wc->imm_data = cqe->ex.imm_data;	/* or the invalidated rkey */
	wc->qp_num = cqe->qp_num;
	wc->src_qp = cqe->src_qp;
	wc->wc_flags = cqe->wc_flags & SROCE_WC_FLAGS;
	wc->pkey_index = cqe->pkey_index;
	wc->slid = cqe->slid;
	wc->sl = sroce_wc_sl(cqe);
	wc->dlid_path_bits = cqe->dlid_path_bits;
}

int sroce_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct sroce_ring *ring = &to_scq(ibcq)->ring;
	struct sroce_cqe cqe;
	uint32_t prod, cons, avail;
	int n;

	if (ne <= 0)
		return 0;

	pthread_spin_lock(&ring->lock);
	if (sroce_ring_dead(ring)) {
		pthread_spin_unlock(&ring->lock);
		errno = EIO;
		return -1;
	}
	cons = sroce_load_own(&ring->hdr->consumer);
	prod = sroce_load_acquire(&ring->hdr->producer);
	avail = prod - cons;
	if (avail > ring->num) {
		/* Kernel and provider disagree on the ring: report, not crash. */
		pthread_spin_unlock(&ring->lock);
		sroce_err(ibcq->context, "CQ ring corrupt (%u CQEs pending)\n",
			  avail);
		return -1;
	}
	for (n = 0; n < ne && (uint32_t)n < avail; n++) {
		memcpy(&cqe, sroce_ring_slot(ring, cons + n), sizeof(cqe));
		sroce_cqe_to_wc(&wc[n], &cqe);
	}
	if (n)
		sroce_store_release(&ring->hdr->consumer, cons + n);
	pthread_spin_unlock(&ring->lock);
	return n;
}
