// SPDX-License-Identifier: GPL-2.0
/*
 * sroce_qp_fatal.c - the ends of a QP's work that the consumer does not
 * post: the device's failure (its netdev is going: every QP to the error
 * state, IBTA 11.6.2, 11.6.3.1) and the drain verbs (ib_device_ops.drain_sq,
 * drain_rq: a marker WQE flushed after every WQE before it, IBTA 10.3.1.7).
 * The QP object and its state machine are sroce_qp.c's.
 */

#include <linux/delay.h>
#include <kunit/visibility.h>

#include "sroce.h"
#include "sroce_qp.h"
#include "sroce_queue.h"
#include "sroce_verbs.h"

/* How long a failing device waits for consumers to poll its flush CQEs. */
#define SROCE_FATAL_POLL_MS	200

/*
 * Has the consumer taken every CQE of @cq?  User CQs and IB_POLL_DIRECT
 * ones are polled when their owner pleases: not waited for; XRC QPs lack
 * one or both.  The ring's header and index are read under the CQ lock,
 * which sroce_cq_swap_ring() holds: a resize_cq racing with the device's
 * failure swaps them whole, and frees the old ring only after.
 */
VISIBLE_IF_KUNIT bool sroce_fatal_cq_taken(struct sroce_cq *cq)
{
	struct sroce_queue_hdr *hdr;
	unsigned long flags;
	bool taken;

	if (!cq || cq->is_user || cq->ibcq.poll_ctx == IB_POLL_DIRECT)
		return true;
	spin_lock_irqsave(&cq->lock, flags);
	hdr = cq->queue.hdr;
	/* acquire: pairs with the release store of sroce_poll_cq() */
	taken = !hdr || smp_load_acquire(&hdr->consumer) == cq->queue.kidx;
	spin_unlock_irqrestore(&cq->lock, flags);
	return taken;
}
EXPORT_SYMBOL_IF_KUNIT(sroce_fatal_cq_taken);

static bool sroce_fatal_qp_taken(struct sroce_qp *qp)
{
	return sroce_fatal_cq_taken(qp->scq) && sroce_fatal_cq_taken(qp->rcq);
}

static bool sroce_fatal_qp_error(struct sroce_qp *qp)
{
	sroce_qp_error(qp);
	return true;
}

/*
 * Call @fn on each published QP of @dev, holding a reference, until it
 * returns false.  Return: false when @fn stopped the walk.
 */
static bool sroce_dev_each_qp(struct sroce_dev *dev,
			      bool (*fn)(struct sroce_qp *qp))
{
	struct sroce_qp *qp, *ref;
	unsigned long qpn;
	bool more = true;

	xa_for_each(&dev->qp_xa, qpn, qp) {
		ref = sroce_qp_lookup(dev, qpn);
		if (!ref)
			continue;
		more = fn(ref);
		sroce_qp_put(ref);
		if (!more)
			break;
	}
	return more;
}

/**
 * sroce_dev_set_fatal() - the device fails for good: its netdev is going
 * @dev: device
 *
 * From now on kernel consumers' posts are refused with -EIO
 * (sroce_post_send()); then every QP moves to the error state
 * (IB_EVENT_QP_FATAL, outstanding WQEs flushed, IBTA 11.6.3.1), as a
 * hardware device does on a catastrophic error (IBTA 11.6.2).  Posts seen
 * before the flag are flushed with their QP.  Returns once the flush CQEs
 * are out and the consumers' pollers (softirq, workqueue) took them, or
 * after SROCE_FATAL_POLL_MS: a consumer that sees its flush before the
 * unregistration the caller queues next starts its error recovery, which
 * fails its outstanding commands now (nvme-rdma cancels them) instead of
 * at their timeouts.  The caller raises IB_EVENT_DEVICE_FATAL.
 * Context: process; sleeps (flushes sroce_wq, whose work takes no lock
 * the caller may hold: rtnl, sroce_dev_mutex).
 */
void sroce_dev_set_fatal(struct sroce_dev *dev)
{
	unsigned long end = jiffies + msecs_to_jiffies(SROCE_FATAL_POLL_MS);

	WRITE_ONCE(dev->fatal, true);
	smp_mb();	/* the flag before the QPs' states */
	sroce_dev_each_qp(dev, sroce_fatal_qp_error);
	flush_workqueue(sroce_wq);
	while (!sroce_dev_each_qp(dev, sroce_fatal_qp_taken) &&
	       time_before(jiffies, end))
		usleep_range(2000, 5000);
}
EXPORT_SYMBOL_IF_KUNIT(sroce_dev_set_fatal);

/* A drain's marker WQE and the completion its CQE signals. */
struct sroce_drain {
	struct ib_cqe cqe;
	struct completion done;
};

static void sroce_drain_done(struct ib_cq *cq, struct ib_wc *wc)
{
	complete(&container_of(wc->wr_cqe, struct sroce_drain, cqe)->done);
}

/*
 * Wait for the marker's CQE: the CQ's poller calls sroce_drain_done();
 * nobody polls an IB_POLL_DIRECT CQ but its owner, who is here.  The flush
 * in the error state always completes the marker, so the wait ends.
 */
static void sroce_drain_wait(struct ib_cq *cq, struct sroce_drain *d)
{
	if (cq->poll_ctx != IB_POLL_DIRECT) {
		wait_for_completion(&d->done);
		return;
	}
	while (!wait_for_completion_timeout(&d->done, HZ / 10))
		ib_process_cq_direct(cq, -1);
}

static int sroce_drain_to_err(struct ib_qp *ibqp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	return sroce_modify_qp(ibqp, &attr, IB_QP_STATE, NULL);
}

/**
 * sroce_drain_sq() - wait until every send WQE of a kernel QP completed
 *	(ib_device_ops.drain_sq)
 * @ibqp: RC or UC QP whose send CQ the caller polls or lets the core poll
 *
 * Moves the QP to the error state and posts a signalled marker WQE, which
 * completes (flushed, IBTA 10.3.1.7) after every WQE before it; returns
 * when its CQE has been polled.  Unlike ib_drain_sq()'s own marker, this
 * one is posted on a device in its fatal state too, so a consumer's
 * teardown after the netdev went still drains.
 * Context: process; sleeps.
 */
void sroce_drain_sq(struct ib_qp *ibqp)
{
	struct sroce_drain d = { .cqe.done = sroce_drain_done };
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_cqe = &d.cqe,
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED,
		},
	};
	const struct ib_send_wr *bad;
	int err;

	init_completion(&d.done);
	err = sroce_drain_to_err(ibqp) ?:
	      sroce_post_send_wrs(ibqp, &wr.wr, &bad);
	if (err) {
		ibdev_err(ibqp->device, "qp#%u: send queue not drained: %d\n",
			  ibqp->qp_num, err);
		return;
	}
	sroce_drain_wait(ibqp->send_cq, &d);
}

/**
 * sroce_drain_rq() - wait until every receive WQE of a kernel QP completed
 *	(ib_device_ops.drain_rq)
 * @ibqp: QP with a receive queue of its own (no SRQ)
 *
 * As sroce_drain_sq(), with an empty receive WQE as the marker.
 * Context: process; sleeps.
 */
void sroce_drain_rq(struct ib_qp *ibqp)
{
	struct sroce_drain d = { .cqe.done = sroce_drain_done };
	struct ib_recv_wr wr = { .wr_cqe = &d.cqe };
	const struct ib_recv_wr *bad;
	int err;

	init_completion(&d.done);
	err = sroce_drain_to_err(ibqp) ?:
	      sroce_post_recv_wrs(ibqp, &wr, &bad);
	if (err) {
		ibdev_err(ibqp->device, "qp#%u: receive queue not drained: %d\n",
			  ibqp->qp_num, err);
		return;
	}
	sroce_drain_wait(ibqp->recv_cq, &d);
}
