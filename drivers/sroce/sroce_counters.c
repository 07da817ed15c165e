// SPDX-License-Identifier: GPL-2.0
/*
 * Device counters exported through `rdma statistic`
 * (the core's hw_stats interface).
 *
 * The data path counts into dev->counters[] with sroce_counter_inc(); the
 * core reads them through get_hw_stats when a user asks, at most once per
 * RDMA_HW_STATS_DEFAULT_LIFESPAN.  Names follow rxe's where the meaning is
 * the same, so tools that know rxe's counters read ours.
 *
 * After them come the congestion counters under the names mlx5 gives
 * them, for tools and dashboards that watch those: each is one of ours (or
 * the difference of two), read when the core asks, never counted twice.
 */

#include "sroce.h"
#include "sroce_verbs.h"

/*
 * The mlx5 names, after sroce's own counters: each reads a counter of
 * ours, less another one where .minus is not SROCE_CNT_NONE.
 * rp_cnp_handled: CNPs the reaction point acted on (a DCQCN rate cut);
 * rp_cnp_ignored: CNPs it did not (reaction point disabled).
 */
#define SROCE_CNT_NONE SROCE_NUM_COUNTERS
enum sroce_stat {
	SROCE_STAT_NP_CNP_SENT = SROCE_NUM_COUNTERS,
	SROCE_STAT_NP_ECN_MARKED,
	SROCE_STAT_RP_CNP_HANDLED,
	SROCE_STAT_RP_CNP_IGNORED,
	SROCE_NUM_STATS
};

struct sroce_counter_alias {
	enum sroce_counter cnt;
	enum sroce_counter minus;
};

static const struct sroce_counter_alias sroce_mlx5_aliases[] = {
	[SROCE_STAT_NP_CNP_SENT - SROCE_NUM_COUNTERS] = {
		.cnt = SROCE_CNT_CNP_SENT, .minus = SROCE_CNT_NONE },
	[SROCE_STAT_NP_ECN_MARKED - SROCE_NUM_COUNTERS] = {
		.cnt = SROCE_CNT_ECN_MARKED_PKTS, .minus = SROCE_CNT_NONE },
	[SROCE_STAT_RP_CNP_HANDLED - SROCE_NUM_COUNTERS] = {
		.cnt = SROCE_CNT_RATE_REDUCTIONS, .minus = SROCE_CNT_NONE },
	[SROCE_STAT_RP_CNP_IGNORED - SROCE_NUM_COUNTERS] = {
		.cnt = SROCE_CNT_CNP_RCVD, .minus = SROCE_CNT_RATE_REDUCTIONS },
};

static const struct rdma_stat_desc sroce_counter_descs[] = {
	[SROCE_CNT_SENT_PKTS].name		= "sent_pkts",
	[SROCE_CNT_RCVD_PKTS].name		= "rcvd_pkts",
	[SROCE_CNT_DUP_REQ].name		= "duplicate_request",
	[SROCE_CNT_OUT_OF_SEQ_REQ].name		= "out_of_seq_request",
	[SROCE_CNT_RCV_RNR_ERR].name		= "rcvd_rnr_err",
	[SROCE_CNT_SND_RNR].name		= "send_rnr_err",
	[SROCE_CNT_RCV_SEQ_ERR].name		= "rcvd_seq_err",
	[SROCE_CNT_COMPLETER_RETRY_ERR].name	= "completer_retry_err",
	[SROCE_CNT_RETRANSMITS].name		= "retransmits",
	[SROCE_CNT_RNR_RETRY_ERR].name		= "rnr_retry_err",
	[SROCE_CNT_LOCAL_ACCESS_ERR].name	= "local_access_err",
	[SROCE_CNT_REMOTE_ACCESS_ERR].name	= "rem_access_err",
	[SROCE_CNT_REMOTE_INVALID_REQ].name	= "rem_invalid_req",
	[SROCE_CNT_RX_DROP_MALFORMED].name	= "rx_drop_malformed",
	[SROCE_CNT_RX_DROP_ICRC].name		= "rx_drop_icrc",
	[SROCE_CNT_RX_DROP_OPCODE].name		= "rx_drop_opcode",
	[SROCE_CNT_RX_DROP_NO_QP].name		= "rx_drop_no_qp",
	[SROCE_CNT_RX_DROP_PKEY].name		= "rx_drop_pkey",
	[SROCE_CNT_RX_DROP_QKEY].name		= "rx_drop_qkey",
	[SROCE_CNT_RX_DROP_STATE].name		= "rx_drop_state",
	[SROCE_CNT_RX_DROP_ADDR].name		= "rx_drop_addr",
	[SROCE_CNT_RX_DROP_BACKLOG].name	= "rx_drop_backlog",
	[SROCE_CNT_TX_BACKPRESSURE].name	= "tx_backpressure",
	[SROCE_CNT_ECN_MARKED_PKTS].name	= "ecn_marked_pkts",
	[SROCE_CNT_CNP_SENT].name		= "cnp_sent",
	[SROCE_CNT_CNP_RCVD].name		= "cnp_rcvd",
	[SROCE_CNT_RATE_REDUCTIONS].name	= "rate_reductions",
	[SROCE_CNT_CNP_SUPPRESSED].name		= "cnp_suppressed",
	[SROCE_CNT_LOSS_REWINDS].name		= "loss_rewinds",
	[SROCE_CNT_RETRANS_TIMEOUTS].name	= "retrans_timeouts",
	[SROCE_CNT_SEQ_NAK_SENT].name		= "seq_nak_sent",
	[SROCE_CNT_RX_OOO_HELD].name		= "rx_ooo_held",
	[SROCE_CNT_RX_OOO_DRAINED].name		= "rx_ooo_drained",
	[SROCE_CNT_SEL_RESENDS].name		= "sel_resends",
	[SROCE_CNT_READ_RESUMES].name		= "read_resumes",
	[SROCE_CNT_WAKEUP_REPAIRS].name		= "wakeup_repairs",
	[SROCE_CNT_LOOPBACK_PKTS].name		= "loopback_pkts",
	[SROCE_CNT_DOORBELLS].name		= "doorbells",
	[SROCE_CNT_SEND_MOVES].name		= "send_moves",
	[SROCE_CNT_RESP_MOVES].name		= "resp_moves",
	[SROCE_CNT_TX_BATCHES].name		= "tx_batches",
	[SROCE_CNT_RESP_TAKEOVERS].name	= "resp_takeovers",
	[SROCE_STAT_NP_CNP_SENT].name		= "np_cnp_sent",
	[SROCE_STAT_NP_ECN_MARKED].name		= "np_ecn_marked_roce_packets",
	[SROCE_STAT_RP_CNP_HANDLED].name	= "rp_cnp_handled",
	[SROCE_STAT_RP_CNP_IGNORED].name	= "rp_cnp_ignored",
};

/**
 * sroce_counter_name() - the name `rdma statistic` shows for a counter
 * @cnt: one of sroce's own counters
 *
 * The sroce_drop tracepoint prints a drop's reason with it, so a drop and
 * the counter it moved read the same.
 * Context: any.
 * Return: the name, "?" for a value out of range.
 */
const char *sroce_counter_name(enum sroce_counter cnt)
{
	if ((unsigned int)cnt >= SROCE_NUM_COUNTERS ||
	    !sroce_counter_descs[cnt].name)
		return "?";
	return sroce_counter_descs[cnt].name;
}

/*
 * The subtrahend is read first: it is counted after the counter (a CNP is
 * counted received before the rate cut), so the difference is never
 * negative.
 */
static u64 sroce_counter_alias_read(struct sroce_dev *dev,
				    const struct sroce_counter_alias *a)
{
	s64 minus = 0;

	if (a->minus != SROCE_CNT_NONE)
		minus = atomic64_read(&dev->counters[a->minus]);
	return max_t(s64, atomic64_read(&dev->counters[a->cnt]) - minus, 0);
}

/**
 * sroce_alloc_hw_port_stats() - describe the port counters to the core
 *	(ib_device_ops.alloc_hw_port_stats)
 * @ibdev: device
 * @port_num: port (always 1)
 *
 * Context: process.
 * Return: a stats structure the core owns and frees, or NULL on -ENOMEM.
 */
struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port_num)
{
	BUILD_BUG_ON(ARRAY_SIZE(sroce_counter_descs) != SROCE_NUM_STATS);
	BUILD_BUG_ON(ARRAY_SIZE(sroce_mlx5_aliases) !=
		     SROCE_NUM_STATS - SROCE_NUM_COUNTERS);

	return rdma_alloc_hw_stats_struct(sroce_counter_descs,
					  ARRAY_SIZE(sroce_counter_descs),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

/**
 * sroce_get_hw_stats() - read the counters into @stats
 *	(ib_device_ops.get_hw_stats)
 * @ibdev: device
 * @stats: structure from sroce_alloc_hw_port_stats()
 * @port: port (1); 0 would ask for device counters, which we do not have
 * @index: the counter the user asked for; we refresh all of them
 *
 * Context: process; the counters are atomics, read without a lock.
 * Return: the number of counters refreshed, or -EINVAL.
 */
int sroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index)
{
	struct sroce_dev *dev = to_sroce_dev(ibdev);
	unsigned int i;

	if (!stats || port != SROCE_PORT_NUM ||
	    stats->num_counters < SROCE_NUM_STATS)
		return -EINVAL;

	for (i = 0; i < SROCE_NUM_COUNTERS; i++)
		stats->value[i] = atomic64_read(&dev->counters[i]);
	for (i = 0; i < ARRAY_SIZE(sroce_mlx5_aliases); i++)
		stats->value[SROCE_NUM_COUNTERS + i] =
			sroce_counter_alias_read(dev, &sroce_mlx5_aliases[i]);

	return SROCE_NUM_STATS;
}
