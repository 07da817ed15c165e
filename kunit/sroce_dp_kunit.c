// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suites of the data path's bounds and transmit results, on a bare
 * QP (no device registered, no network):
 *
 * sroce_dp_backlog: sroce_dp_rx_queue() keeps each side's receive queue
 *	within SROCE_DP_RX_MAX_PKTS packets and SROCE_DP_RX_MAX_BYTES bytes
 *	while a run elsewhere owns the side (as under a flood), and counts
 *	what it drops in rx_drop_backlog.
 * sroce_dp_xmit_result: sroce_net_xmit() reads what the network returned
 *	as net_xmit_eval() does: NET_XMIT_CN is sent, NET_XMIT_DROP is not.
 * sroce_resp_busy: a responder resource used by more than 255 queued
 *	READ responses counts them all (sroce_resp_out.c).
 * sroce_dp_place: a doorbell places a user RC send side, new or idle and
 *	quiescent, at the posting CPU, or at the QPN's second choice when
 *	that is home to fewer placed send sides; one in use, with packets
 *	unacknowledged, UD or a kernel QP's stays.
 * sroce_dp_place_resp: a request of a transfer of several packets (FIRST,
 *	MIDDLE, a READ of more than 4 KiB) from a QP of the same device moves
 *	the responder to the second choice when that CPU is home to fewer
 *	placed send sides; a single-packet request brings it back once idle;
 *	a remote peer's responder follows its requests to the CPU they
 *	arrive on once idle, and stays while busy; kernel and UD QPs' stay.
 * sroce_dp_take_resp: a responder homed on another CPU whose requests
 *	waited SROCE_DP_RESP_STALL with no run started since moves to this
 *	one and counts a takeover; requests that just came, a run since
 *	they came, a run in progress, a home here or none leave it; once
 *	taken, bulk placement leaves it here for a second.
 */
#include <kunit/test.h>
#include <linux/lockdep.h>
#include <linux/skbuff.h>
#include <linux/netdevice.h>
#include <rdma/ib_pack.h>

#include "sroce.h"
#include "sroce_net.h"
#include "sroce_qp.h"
#include "sroce_recv.h"

/*
 * A QP with only what the receive queues and the response queue use.
 * A run of either side is "in progress elsewhere" when @held: packets
 * stay queued.  The lockdep maps are taken as a run takes them.
 */
static struct sroce_qp *sroce_dpk_qp(struct kunit *test)
{
	static struct lock_class_key send_key, resp_key;
	struct sroce_dev *dev;
	struct sroce_qp *qp;

	dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);
	qp = kunit_kzalloc(test, sizeof(*qp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_ASSERT_NOT_NULL(test, qp);
	qp->dev = dev;
	qp->type = IB_QPT_RC;
	kref_init(&qp->ref);
	skb_queue_head_init(&qp->rx_queue);
	skb_queue_head_init(&qp->dp.resp_rx);
	INIT_LIST_HEAD(&qp->dp.resp.out);
	/* no home yet, as sroce_dp_init() leaves it: runs happen here */
	qp->dp.home_cpu[SROCE_DP_SEND] = -1;
	qp->dp.home_cpu[SROCE_DP_RESP] = -1;
	lockdep_init_map(&qp->dp.run_map[SROCE_DP_SEND], "sroce_dpk_send",
			 &send_key, 0);
	lockdep_init_map(&qp->dp.run_map[SROCE_DP_RESP], "sroce_dpk_resp",
			 &resp_key, 0);
	return qp;
}

/* ---- sroce_dp_backlog ---- */

struct sroce_dpk_backlog_case {
	const char *name;
	enum sroce_dp_side side;
	u32 n;			/* packets delivered */
	u32 size;		/* bytes of each packet's buffer */
	u32 queued;		/* packets expected queued, 0: by bytes */
};

static const struct sroce_dpk_backlog_case sroce_dpk_backlog_cases[] = {
	{ .name = "req_below_cap", .side = SROCE_DP_RESP, .n = 100,
	  .size = 64, .queued = 100 },
	{ .name = "req_flood_packets", .side = SROCE_DP_RESP, .n = 1500,
	  .size = 64, .queued = SROCE_DP_RX_MAX_PKTS },
	{ .name = "resp_flood_packets", .side = SROCE_DP_SEND, .n = 1100,
	  .size = 64, .queued = SROCE_DP_RX_MAX_PKTS },
	{ .name = "req_flood_bytes", .side = SROCE_DP_RESP, .n = 600,
	  .size = 16384 },
	{ .name = "resp_flood_bytes", .side = SROCE_DP_SEND, .n = 600,
	  .size = 16384 },
};

static void sroce_dpk_backlog_desc(const struct sroce_dpk_backlog_case *c,
				   char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sroce_dpk_backlog, sroce_dpk_backlog_cases,
		  sroce_dpk_backlog_desc);

static struct sk_buff *sroce_dpk_pkt(struct kunit *test, struct sroce_qp *qp,
				     const struct sroce_dpk_backlog_case *c)
{
	struct sk_buff *skb = alloc_skb(c->size, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	skb_put(skb, c->size);
	memset(SROCE_PKT(skb), 0, sizeof(struct sroce_pkt_info));
	SROCE_PKT(skb)->qp = qp;
	SROCE_PKT(skb)->mask = c->side == SROCE_DP_RESP ? SROCE_MASK_REQ :
							   SROCE_MASK_ACK;
	sroce_qp_get(qp);	/* the reference of the packet's lookup */
	return skb;
}

static void sroce_dpk_backlog_test(struct kunit *test)
{
	const struct sroce_dpk_backlog_case *c = test->param_value;
	struct sroce_qp *qp = sroce_dpk_qp(test);
	struct sk_buff_head *q = c->side == SROCE_DP_RESP ? &qp->dp.resp_rx :
							    &qp->rx_queue;
	unsigned int bytes = 0;
	struct sk_buff *skb;
	u32 i, len;
	s64 drops;

	/* a run on another CPU owns both sides: nothing is taken off */
	set_bit(SROCE_DP_RUNNING, &qp->dp.flags);
	set_bit(SROCE_DP_RESP_RUNNING, &qp->dp.flags);
	for (i = 0; i < c->n; i++)
		sroce_dp_rx_queue(qp, sroce_dpk_pkt(test, qp, c), c->side);

	len = skb_queue_len(q);
	drops = atomic64_read(&qp->dev->counters[SROCE_CNT_RX_DROP_BACKLOG]);
	skb_queue_walk(q, skb)
		bytes += skb->truesize;
	if (c->queued)
		KUNIT_EXPECT_EQ(test, len, c->queued);
	else
		KUNIT_EXPECT_LT(test, len, c->n);
	KUNIT_EXPECT_LE(test, len, SROCE_DP_RX_MAX_PKTS);
	KUNIT_EXPECT_LE(test, bytes, SROCE_DP_RX_MAX_BYTES);
	KUNIT_EXPECT_EQ(test, qp->dp.rx_bytes[c->side], bytes);
	KUNIT_EXPECT_EQ(test, drops, (s64)(c->n - len));
	/* a dropped packet gave its QP reference back */
	KUNIT_EXPECT_EQ(test, kref_read(&qp->ref), 1 + len);

	while ((skb = skb_dequeue(q))) {
		kfree_skb(skb);
		sroce_qp_put(qp);
	}
}

static struct kunit_case sroce_dpk_backlog_test_cases[] = {
	KUNIT_CASE_PARAM(sroce_dpk_backlog_test, sroce_dpk_backlog_gen_params),
	{}
};

static struct kunit_suite sroce_dpk_backlog_suite = {
	.name = "sroce_dp_backlog",
	.test_cases = sroce_dpk_backlog_test_cases,
};

/* ---- sroce_dp_xmit_result ---- */

struct sroce_dpk_xmit_case {
	const char *name;
	int net;		/* what the network returned */
	int ret;		/* sroce_net_xmit() */
	u32 sent;		/* sent_pkts */
	u32 backpressure;	/* tx_backpressure */
};

static const struct sroce_dpk_xmit_case sroce_dpk_xmit_cases[] = {
	{ .name = "success", .net = NET_XMIT_SUCCESS, .ret = 0, .sent = 1 },
	{ .name = "congested_is_sent", .net = NET_XMIT_CN, .ret = 0,
	  .sent = 1, .backpressure = 1 },
	{ .name = "dropped", .net = NET_XMIT_DROP, .ret = -EAGAIN,
	  .backpressure = 1 },
	{ .name = "enobufs", .net = -ENOBUFS, .ret = -EAGAIN,
	  .backpressure = 1 },
	{ .name = "no_route", .net = -EHOSTUNREACH, .ret = -EHOSTUNREACH },
};

static void sroce_dpk_xmit_desc(const struct sroce_dpk_xmit_case *c,
				char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sroce_dpk_xmit, sroce_dpk_xmit_cases, sroce_dpk_xmit_desc);

static int sroce_dpk_xmit_ret;

static int sroce_dpk_xmit_hook(struct sroce_dev *dev, struct sroce_qp *qp,
			       const struct sroce_av *av, struct sk_buff *skb)
{
	kfree_skb(skb);
	return sroce_dpk_xmit_ret;
}

static void sroce_dpk_xmit_test(struct kunit *test)
{
	const struct sroce_dpk_xmit_case *c = test->param_value;
	struct sroce_qp *qp = sroce_dpk_qp(test);
	struct sroce_dev *dev = qp->dev;
	struct sroce_av av = { .network_type = RDMA_NETWORK_IPV4 };
	struct sk_buff *skb = alloc_skb(64, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, skb);
	dev->kunit_xmit = sroce_dpk_xmit_hook;
	sroce_dpk_xmit_ret = c->net;
	KUNIT_EXPECT_EQ(test, sroce_net_xmit(dev, qp, &av, skb), c->ret);
	KUNIT_EXPECT_EQ(test, atomic64_read(&dev->counters[SROCE_CNT_SENT_PKTS]),
			(s64)c->sent);
	KUNIT_EXPECT_EQ(test,
			atomic64_read(&dev->counters[SROCE_CNT_TX_BACKPRESSURE]),
			(s64)c->backpressure);
}

static struct kunit_case sroce_dpk_xmit_test_cases[] = {
	KUNIT_CASE_PARAM(sroce_dpk_xmit_test, sroce_dpk_xmit_gen_params),
	{}
};

static struct kunit_suite sroce_dpk_xmit_suite = {
	.name = "sroce_dp_xmit_result",
	.test_cases = sroce_dpk_xmit_test_cases,
};

/* ---- sroce_resp_busy ---- */

struct sroce_dpk_busy_case {
	const char *name;
	u32 n;			/* duplicate READs queued on one resource */
	bool full;		/* the last one finds the queue full */
};

static const struct sroce_dpk_busy_case sroce_dpk_busy_cases[] = {
	{ .name = "one", .n = 1 },
	{ .name = "255", .n = 255 },
	{ .name = "256", .n = 256 },
	{ .name = "queue_full", .n = SROCE_RESP_MAX_OUT },
	{ .name = "beyond_queue", .n = SROCE_RESP_MAX_OUT + 1, .full = true },
};

static void sroce_dpk_busy_desc(const struct sroce_dpk_busy_case *c,
				char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sroce_dpk_busy, sroce_dpk_busy_cases, sroce_dpk_busy_desc);

static void sroce_dpk_busy_test(struct kunit *test)
{
	const struct sroce_dpk_busy_case *c = test->param_value;
	struct sroce_qp *qp = sroce_dpk_qp(test);
	struct sroce_resp *resp = to_sroce_resp(qp);
	u32 i, queued = 0;
	int err;

	resp->attr.mtu = 256;
	resp->res = kunit_kcalloc(test, 1, sizeof(*resp->res), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, resp->res);
	resp->res_cap = 1;
	resp->res[0].type = SROCE_RES_READ;
	resp->res[0].length = 1024 * 256;

	lock_map_acquire_try(&qp->dp.run_map[SROCE_DP_RESP]);
	/* a duplicate READ from each later PSN of the original's range */
	for (i = 0; i < c->n; i++) {
		err = sroce_resp_queue_read(qp, 0, i, 0, 0x1000 + i * 256,
					    (1024 - i) * 256);
		if (!err)
			queued++;
		KUNIT_EXPECT_EQ(test, err, c->full && i + 1 == c->n ?
				-ENOBUFS : 0);
	}
	KUNIT_EXPECT_EQ(test, (u32)resp->res[0].busy, queued);
	KUNIT_EXPECT_EQ(test, resp->out_len, queued);
	sroce_resp_out_clear(qp);
	lock_map_release(&qp->dp.run_map[SROCE_DP_RESP]);
	KUNIT_EXPECT_EQ(test, (u32)resp->res[0].busy, 0U);
	KUNIT_EXPECT_EQ(test, resp->out_len, 0U);
}

static struct kunit_case sroce_dpk_busy_test_cases[] = {
	KUNIT_CASE_PARAM(sroce_dpk_busy_test, sroce_dpk_busy_gen_params),
	{}
};

static struct kunit_suite sroce_dpk_busy_suite = {
	.name = "sroce_resp_busy",
	.test_cases = sroce_dpk_busy_test_cases,
};

/* ---- sroce_dp_place ---- */

struct sroce_dpk_place_case {
	const char *name;
	enum ib_qp_type type;
	bool kernel;		/* a kernel QP (not is_user) */
	int home;		/* HERE, ALT or -1 */
	bool placed;		/* counted at @home already */
	int homes_here;		/* placed send sides here, the QP's own too */
	int homes_alt;		/* on the QPN's second choice */
	bool outstanding;	/* packets unacknowledged */
	bool recent;		/* progress in the last jiffy */
	int want;		/* expected home: HERE, ALT or -1 */
	u64 moves;		/* expected send_moves */
};

#define HERE	1000
#define ALT	1001

static const struct sroce_dpk_place_case sroce_dpk_place_cases[] = {
	{ .name = "first_post_stays_here", .type = IB_QPT_RC, .home = -1,
	  .want = HERE },
	{ .name = "first_post_beside_a_placed_one", .type = IB_QPT_RC,
	  .home = -1, .homes_here = 1, .want = ALT },
	{ .name = "equal_counts_stay_here", .type = IB_QPT_RC, .home = -1,
	  .homes_here = 1, .homes_alt = 1, .want = HERE },
	{ .name = "idle_follows_the_posting_thread", .type = IB_QPT_RC,
	  .home = ALT, .placed = true, .homes_alt = 1, .want = HERE,
	  .moves = 1 },
	{ .name = "idle_moves_off_a_crowded_cpu", .type = IB_QPT_RC,
	  .home = HERE, .placed = true, .homes_here = 3, .homes_alt = 1,
	  .want = ALT, .moves = 1 },
	{ .name = "in_use_stays", .type = IB_QPT_RC, .home = ALT,
	  .placed = true, .homes_alt = 1, .recent = true, .want = ALT },
	{ .name = "unacknowledged_stays", .type = IB_QPT_RC, .home = ALT,
	  .placed = true, .homes_alt = 1, .outstanding = true, .want = ALT },
	{ .name = "ud_never_moves", .type = IB_QPT_UD, .home = ALT,
	  .want = ALT },
	{ .name = "kernel_qp_never_moves", .type = IB_QPT_RC, .kernel = true,
	  .home = ALT, .want = ALT },
};

static void sroce_dpk_place_desc(const struct sroce_dpk_place_case *c,
				 char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sroce_dpk_place, sroce_dpk_place_cases,
		  sroce_dpk_place_desc);

static int sroce_dpk_cpu(int which, int here, int alt)
{
	return which == HERE ? here : which == ALT ? alt : which;
}

/*
 * The second choice of QPN @qpn posted to from @here: the online CPUs
 * but @here, numbered, @here's place taken by the last.
 */
static int sroce_dpk_second(u32 qpn, int here)
{
	unsigned int n = num_online_cpus();
	int alt = cpumask_nth(qpn % (n - 1), cpu_online_mask);

	return alt == here ? cpumask_nth(n - 1, cpu_online_mask) : alt;
}

/*
 * The two CPUs of a placement case: this one (@here; the caller is not
 * migratable until it calls migrate_enable()) and the second choice of
 * QPN @qpn (@alt), with the device's counts of placed send sides, all 0.
 * Skips the case on one CPU.
 */
static void sroce_dpk_cpus(struct kunit *test, struct sroce_qp *qp, u32 qpn,
			   int *here, int *alt)
{
	struct sroce_dev *dev = qp->dev;

	dev->send_homes = kunit_kcalloc(test, nr_cpu_ids,
					sizeof(*dev->send_homes), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dev->send_homes);
	migrate_disable();
	*here = raw_smp_processor_id();
	if (num_online_cpus() < 2) {
		migrate_enable();
		kunit_skip(test, "needs a second CPU (the debug kernel has two)");
	}
	qp->ibqp.qp_num = qpn;
	*alt = sroce_dpk_second(qpn, *here);
	KUNIT_ASSERT_NE(test, *alt, *here);
}

static void sroce_dpk_place_test(struct kunit *test)
{
	const struct sroce_dpk_place_case *c = test->param_value;
	struct sroce_qp *qp = sroce_dpk_qp(test);
	struct sroce_send *snd = &qp->dp.send;
	struct sroce_dev *dev = qp->dev;
	int here, alt, home, want;

	qp->type = c->type;
	qp->is_user = !c->kernel;
	snd->max_psn = c->outstanding ? 5 : 0;
	snd->last_progress = c->recent ? jiffies : jiffies - HZ;
	sroce_dpk_cpus(test, qp, 7, &here, &alt);
	home = sroce_dpk_cpu(c->home, here, alt);
	qp->dp.home_cpu[SROCE_DP_SEND] = home;
	/* counted where it is, as an earlier placement left it */
	qp->dp.placed_cpu = c->placed ? home : -1;
	atomic_set(&dev->send_homes[here], c->homes_here);
	atomic_set(&dev->send_homes[alt], c->homes_alt);
	sroce_dp_place_send(qp);
	migrate_enable();
	want = sroce_dpk_cpu(c->want, here, alt);
	KUNIT_EXPECT_EQ(test, qp->dp.home_cpu[SROCE_DP_SEND], want);
	KUNIT_EXPECT_EQ(test, atomic64_read(&dev->counters[SROCE_CNT_SEND_MOVES]),
			c->moves);
	KUNIT_EXPECT_FALSE(test, test_bit(SROCE_DP_RUNNING, &qp->dp.flags));
	/* the counts follow the placement; an unplaced QP is not counted */
	if (qp->dp.placed_cpu >= 0) {
		KUNIT_EXPECT_EQ(test, qp->dp.placed_cpu, want);
		KUNIT_EXPECT_EQ(test, atomic_read(&dev->send_homes[here]) +
				atomic_read(&dev->send_homes[alt]),
				c->homes_here + c->homes_alt + !c->placed);
	}
}

static struct kunit_case sroce_dpk_place_test_cases[] = {
	KUNIT_CASE_PARAM(sroce_dpk_place_test, sroce_dpk_place_gen_params),
	{}
};

static struct kunit_suite sroce_dpk_place_suite = {
	.name = "sroce_dp_place",
	.test_cases = sroce_dpk_place_test_cases,
};

/* ---- sroce_dp_place_resp ---- */

struct sroce_dpk_resp_case {
	const char *name;
	u8 opcode;		/* the request's */
	u32 read_len;		/* its RETH DMA length (READ) */
	bool bulk;		/* expected of sroce_dp_bulk_req() */
	enum ib_qp_type type;
	bool kernel;		/* a kernel QP (not is_user) */
	bool remote;		/* the request came from another device */
	int home;		/* HERE, ALT or -1 */
	bool recent;		/* a responder run in the last jiffy */
	bool running;		/* a responder run in progress */
	bool blocked;		/* its last send was pushed back */
	int taken;		/* taken over: 0 never, 1 now, 2 2 s ago */
	int homes_here;		/* placed send sides here */
	int homes_alt;		/* on the QPN's second choice */
	int want;		/* expected home: HERE, ALT or -1 */
	u64 moves;		/* expected resp_moves */
};

static const struct sroce_dpk_resp_case sroce_dpk_resp_cases[] = {
	{ .name = "write_first_moves_off_the_requester",
	  .opcode = IB_OPCODE_RC_RDMA_WRITE_FIRST, .bulk = true,
	  .type = IB_QPT_RC, .home = -1, .homes_here = 1, .want = ALT,
	  .moves = 1 },
	{ .name = "send_middle_moves_off_a_crowded_cpu",
	  .opcode = IB_OPCODE_RC_SEND_MIDDLE, .bulk = true,
	  .type = IB_QPT_RC, .home = HERE, .recent = true, .homes_here = 3,
	  .homes_alt = 1, .want = ALT, .moves = 1 },
	{ .name = "long_read_moves",
	  .opcode = IB_OPCODE_RC_RDMA_READ_REQUEST, .read_len = 65536,
	  .bulk = true, .type = IB_QPT_RC, .home = -1, .homes_here = 1,
	  .want = ALT, .moves = 1 },
	{ .name = "equal_counts_stay",
	  .opcode = IB_OPCODE_RC_RDMA_WRITE_FIRST, .bulk = true,
	  .type = IB_QPT_RC, .home = -1, .homes_here = 1, .homes_alt = 1,
	  .want = -1 },
	{ .name = "away_already_stays",
	  .opcode = IB_OPCODE_RC_RDMA_WRITE_MIDDLE, .bulk = true,
	  .type = IB_QPT_RC, .home = ALT, .recent = true, .homes_here = 1,
	  .want = ALT },
	{ .name = "write_only_stays_here",
	  .opcode = IB_OPCODE_RC_RDMA_WRITE_ONLY, .type = IB_QPT_RC,
	  .home = -1, .homes_here = 1, .want = -1 },
	{ .name = "short_read_stays_here",
	  .opcode = IB_OPCODE_RC_RDMA_READ_REQUEST, .read_len = 4096,
	  .type = IB_QPT_RC, .home = -1, .homes_here = 1, .want = -1 },
	{ .name = "last_while_busy_stays_away",
	  .opcode = IB_OPCODE_RC_RDMA_WRITE_LAST, .type = IB_QPT_RC,
	  .home = ALT, .recent = true, .homes_here = 1, .want = ALT },
	{ .name = "single_after_idle_comes_back",
	  .opcode = IB_OPCODE_RC_SEND_ONLY, .type = IB_QPT_RC, .home = ALT,
	  .homes_here = 1, .want = HERE, .moves = 1 },
	{ .name = "atomic_stays",
	  .opcode = IB_OPCODE_RC_COMPARE_SWAP, .type = IB_QPT_RC,
	  .home = HERE, .homes_here = 1, .want = HERE },
	{ .name = "kernel_qp_stays",
	  .opcode = IB_OPCODE_RC_RDMA_WRITE_FIRST, .bulk = true,
	  .type = IB_QPT_RC, .kernel = true, .home = -1, .homes_here = 1,
	  .want = -1 },
	{ .name = "remote_first_bulk_stays_unplaced",
	  .opcode = IB_OPCODE_RC_RDMA_WRITE_FIRST, .bulk = true,
	  .type = IB_QPT_RC, .remote = true, .home = -1, .homes_here = 1,
	  .want = -1 },
	{ .name = "remote_sent_before_stays",
	  .opcode = IB_OPCODE_RC_RDMA_WRITE_FIRST, .bulk = true,
	  .type = IB_QPT_RC, .remote = true, .home = HERE, .homes_here = 1,
	  .want = HERE },
	{ .name = "remote_idle_follows_its_requests",
	  .opcode = IB_OPCODE_RC_SEND_ONLY, .type = IB_QPT_RC,
	  .remote = true, .home = ALT, .want = HERE, .moves = 1 },
	{ .name = "remote_bulk_after_idle_follows",
	  .opcode = IB_OPCODE_RC_RDMA_WRITE_FIRST, .bulk = true,
	  .type = IB_QPT_RC, .remote = true, .home = ALT, .want = HERE,
	  .moves = 1 },
	{ .name = "remote_busy_stays_away",
	  .opcode = IB_OPCODE_RC_RDMA_WRITE_MIDDLE, .bulk = true,
	  .type = IB_QPT_RC, .remote = true, .home = ALT, .recent = true,
	  .want = ALT },
	{ .name = "remote_idle_pushed_back_stays",
	  .opcode = IB_OPCODE_RC_SEND_ONLY, .type = IB_QPT_RC,
	  .remote = true, .home = ALT, .blocked = true, .want = ALT },
	{ .name = "remote_idle_kernel_qp_stays",
	  .opcode = IB_OPCODE_RC_SEND_ONLY, .type = IB_QPT_RC, .kernel = true,
	  .remote = true, .home = ALT, .want = ALT },
	{ .name = "taken_over_bulk_stays_here",
	  .opcode = IB_OPCODE_RC_RDMA_WRITE_FIRST, .bulk = true,
	  .type = IB_QPT_RC, .home = HERE, .taken = 1, .homes_here = 1,
	  .want = HERE },
	{ .name = "taken_over_long_ago_bulk_moves",
	  .opcode = IB_OPCODE_RC_RDMA_WRITE_FIRST, .bulk = true,
	  .type = IB_QPT_RC, .home = HERE, .taken = 2, .homes_here = 1,
	  .want = ALT, .moves = 1 },
	{ .name = "run_in_progress_stays",
	  .opcode = IB_OPCODE_RC_RDMA_WRITE_FIRST, .bulk = true,
	  .type = IB_QPT_RC, .home = -1, .homes_here = 1, .running = true,
	  .want = -1 },
	{ .name = "ud_stays",
	  .opcode = IB_OPCODE_UD_SEND_ONLY, .type = IB_QPT_UD, .home = HERE,
	  .homes_here = 1, .want = HERE },
};

static void sroce_dpk_resp_desc(const struct sroce_dpk_resp_case *c,
				char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sroce_dpk_resp, sroce_dpk_resp_cases, sroce_dpk_resp_desc);

static void sroce_dpk_resp_test(struct kunit *test)
{
	const struct sroce_dpk_resp_case *c = test->param_value;
	struct sroce_qp *qp = sroce_dpk_qp(test);
	struct sroce_dev *dev = qp->dev;
	u8 hdr[64] = {};
	struct sroce_pkt_info pkt = {
		.hdr = hdr,
		.opcode = c->opcode,
		.mask = sroce_opcode[c->opcode].mask,
		.local = !c->remote,
	};
	struct sroce_reth *reth = (void *)(hdr +
			sroce_opcode[c->opcode].offset[SROCE_HDR_RETH]);
	int here, alt;

	if (pkt.mask & SROCE_MASK_RETH)
		reth->len = cpu_to_be32(c->read_len);
	KUNIT_EXPECT_EQ(test, sroce_dp_bulk_req(&pkt), c->bulk);

	qp->type = c->type;
	qp->is_user = !c->kernel;
	qp->dp.placed_cpu = -1;
	qp->dp.resp_last = c->recent ? jiffies : jiffies - HZ;
	sroce_dpk_cpus(test, qp, 9, &here, &alt);
	qp->dp.home_cpu[SROCE_DP_RESP] = sroce_dpk_cpu(c->home, here, alt);
	atomic_set(&dev->send_homes[here], c->homes_here);
	atomic_set(&dev->send_homes[alt], c->homes_alt);
	if (c->running)
		set_bit(SROCE_DP_RESP_RUNNING, &qp->dp.flags);
	qp->dp.resp.tx_blocked = c->blocked;
	qp->dp.resp_taken = !c->taken ? 0 :
			    (c->taken == 1 ? jiffies : jiffies - 2 * HZ) | 1;
	sroce_dp_place_resp(qp, sroce_dp_bulk_req(&pkt), pkt.local);
	migrate_enable();
	/* the run's bit is the run's: taken and given back, or left alone */
	KUNIT_EXPECT_EQ(test, test_bit(SROCE_DP_RESP_RUNNING, &qp->dp.flags),
			c->running);
	KUNIT_EXPECT_EQ(test, qp->dp.home_cpu[SROCE_DP_RESP],
			sroce_dpk_cpu(c->want, here, alt));
	KUNIT_EXPECT_EQ(test, atomic64_read(&dev->counters[SROCE_CNT_RESP_MOVES]),
			c->moves);
	/* the send side is not touched */
	KUNIT_EXPECT_EQ(test, qp->dp.home_cpu[SROCE_DP_SEND], -1);
}

static struct kunit_case sroce_dpk_resp_test_cases[] = {
	KUNIT_CASE_PARAM(sroce_dpk_resp_test, sroce_dpk_resp_gen_params),
	{}
};

static struct kunit_suite sroce_dpk_resp_suite = {
	.name = "sroce_dp_place_resp",
	.test_cases = sroce_dpk_resp_test_cases,
};

/* ---- sroce_dp_take_resp ---- */

struct sroce_dpk_take_case {
	const char *name;
	enum ib_qp_type type;
	bool kernel;		/* a kernel QP (not is_user) */
	int home;		/* HERE, ALT or -1 */
	unsigned long idle;	/* jiffies since the last run started */
	unsigned long waited;	/* jiffies since the requests began to wait */
	bool running;		/* a responder run in progress */
	int want;		/* expected home: HERE, ALT or -1 */
	bool moved;		/* expected return and resp_takeovers +1 */
};

static const struct sroce_dpk_take_case sroce_dpk_take_cases[] = {
	{ .name = "stalled_home_taken_here", .type = IB_QPT_RC,
	  .home = ALT, .idle = HZ, .waited = HZ, .want = HERE, .moved = true },
	{ .name = "stalled_kernel_qp_taken_here", .type = IB_QPT_RC,
	  .kernel = true, .home = ALT, .idle = HZ, .waited = HZ, .want = HERE,
	  .moved = true },
	{ .name = "stalled_ud_taken_here", .type = IB_QPT_UD, .home = ALT,
	  .idle = HZ, .waited = HZ, .want = HERE, .moved = true },
	{ .name = "just_past_the_bound_taken", .type = IB_QPT_RC,
	  .home = ALT, .idle = HZ, .waited = SROCE_DP_RESP_STALL + 1,
	  .want = HERE, .moved = true },
	{ .name = "idle_then_new_requests_stay", .type = IB_QPT_RC,
	  .home = ALT, .idle = HZ, .waited = 0, .want = ALT },
	{ .name = "run_since_they_came_stays", .type = IB_QPT_RC,
	  .home = ALT, .idle = 0, .waited = HZ, .want = ALT },
	{ .name = "run_in_progress_stays", .type = IB_QPT_RC, .home = ALT,
	  .idle = HZ, .waited = HZ, .running = true, .want = ALT },
	{ .name = "home_here_stays", .type = IB_QPT_RC, .home = HERE,
	  .idle = HZ, .waited = HZ, .want = HERE },
	{ .name = "no_home_stays", .type = IB_QPT_RC, .home = -1,
	  .idle = HZ, .waited = HZ, .want = -1 },
};

static void sroce_dpk_take_desc(const struct sroce_dpk_take_case *c,
				char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(sroce_dpk_take, sroce_dpk_take_cases, sroce_dpk_take_desc);

static void sroce_dpk_take_test(struct kunit *test)
{
	const struct sroce_dpk_take_case *c = test->param_value;
	struct sroce_qp *qp = sroce_dpk_qp(test);
	struct sroce_dev *dev = qp->dev;
	unsigned long before = jiffies;
	int here, alt;

	qp->type = c->type;
	qp->is_user = !c->kernel;
	qp->dp.placed_cpu = -1;
	qp->dp.resp_last = jiffies - c->idle;
	qp->dp.resp_queued = jiffies - c->waited;
	sroce_dpk_cpus(test, qp, 11, &here, &alt);
	qp->dp.home_cpu[SROCE_DP_RESP] = sroce_dpk_cpu(c->home, here, alt);
	if (c->running)
		set_bit(SROCE_DP_RESP_RUNNING, &qp->dp.flags);
	KUNIT_EXPECT_EQ(test, sroce_dp_take_resp(qp), c->moved);
	migrate_enable();
	KUNIT_EXPECT_EQ(test, test_bit(SROCE_DP_RESP_RUNNING, &qp->dp.flags),
			c->running);
	KUNIT_EXPECT_EQ(test, qp->dp.home_cpu[SROCE_DP_RESP],
			sroce_dpk_cpu(c->want, here, alt));
	KUNIT_EXPECT_EQ(test,
			atomic64_read(&dev->counters[SROCE_CNT_RESP_TAKEOVERS]),
			(s64)c->moved);
	/*
	 * A takeover is remembered, so bulk placement leaves it here, and
	 * counts as a run: no other CPU takes it before its first run.
	 */
	KUNIT_EXPECT_EQ(test, qp->dp.resp_taken != 0, c->moved);
	if (c->moved) {
		KUNIT_EXPECT_FALSE(test, time_before(qp->dp.resp_taken,
						     before));
		KUNIT_EXPECT_FALSE(test, time_before(qp->dp.resp_last,
						     before));
	}
	KUNIT_EXPECT_EQ(test, qp->dp.home_cpu[SROCE_DP_SEND], -1);
}

static struct kunit_case sroce_dpk_take_test_cases[] = {
	KUNIT_CASE_PARAM(sroce_dpk_take_test, sroce_dpk_take_gen_params),
	{}
};

static struct kunit_suite sroce_dpk_take_suite = {
	.name = "sroce_dp_take_resp",
	.test_cases = sroce_dpk_take_test_cases,
};

kunit_test_suites(&sroce_dpk_backlog_suite, &sroce_dpk_xmit_suite,
		  &sroce_dpk_busy_suite, &sroce_dpk_place_suite,
		  &sroce_dpk_resp_suite, &sroce_dpk_take_suite);
