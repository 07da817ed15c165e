// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * sroce_ring.c - the rings of the sroce provider: mapping and unmapping the
 * send, receive, SRQ and completion queue rings the kernel allocates
 * (include/uapi/rdma/sroce-abi.h), after checking the layout it describes.
 * The index accessors the data path uses on them are inline, in sroce.h.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>

#include <infiniband/verbs.h>
#include <rdma/sroce-abi.h>

#include "sroce.h"

/* Upper bound on slots of one ring; the kernel's limits are far lower. */
#define SROCE_MAX_RING_SLOTS	(1U << 24)

/*
 * Maps the ring the kernel described in @mi.  Returns the mapping with
 * *@err 0, or NULL with *@err set to an errno value: EINVAL when @mi is
 * inconsistent with our ABI, mmap()'s errno otherwise.
 */
void *sroce_ring_mmap(struct ibv_context *ibctx,
		      const struct sroce_mmap_info *mi,
		      uint32_t slot_size, int *err)
{
	uint64_t need;
	void *buf;

	*err = EINVAL;
	if (!mi->num_slots || mi->num_slots > SROCE_MAX_RING_SLOTS ||
	    (mi->num_slots & (mi->num_slots - 1))) {
		sroce_err(ibctx, "bad ring: %u slots\n", mi->num_slots);
		return NULL;
	}
	need = SROCE_QUEUE_HDR_SIZE + (uint64_t)mi->num_slots * slot_size;
	if (mi->size < need) {
		sroce_err(ibctx, "bad ring: %u bytes for %u slots of %u\n",
			  mi->size, mi->num_slots, slot_size);
		return NULL;
	}
	*err = 0;

	buf = mmap(NULL, mi->size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   ibctx->cmd_fd, (off_t)mi->offset);
	if (buf == MAP_FAILED) {
		*err = errno;
		return NULL;
	}
	return buf;
}

/* Points @ring at the mapping @buf of the ring @mi describes. */
void sroce_ring_set(struct sroce_ring *ring, void *buf,
		    const struct sroce_mmap_info *mi,
		    uint32_t slot_size, uint32_t max_wr)
{
	ring->hdr = buf;
	ring->slots = (uint8_t *)buf + SROCE_QUEUE_HDR_SIZE;
	ring->map_size = mi->size;
	ring->num = mi->num_slots;
	ring->slot_size = slot_size;
	ring->limit = max_wr < mi->num_slots ? max_wr : mi->num_slots;
}

/* Maps a new ring; returns 0 or an errno value (sroce_ring_mmap()). */
int sroce_ring_map(struct ibv_context *ibctx, struct sroce_ring *ring,
		   const struct sroce_mmap_info *mi, uint32_t slot_size,
		   uint32_t max_wr)
{
	void *buf;
	int err;

	buf = sroce_ring_mmap(ibctx, mi, slot_size, &err);
	if (!buf)
		return err;
	sroce_ring_set(ring, buf, mi, slot_size, max_wr);
	pthread_spin_init(&ring->lock, PTHREAD_PROCESS_PRIVATE);
	return 0;
}

void sroce_ring_unmap(struct sroce_ring *ring)
{
	if (!ring->hdr)
		return;
	munmap(ring->hdr, ring->map_size);
	pthread_spin_destroy(&ring->lock);
	ring->hdr = NULL;
}
