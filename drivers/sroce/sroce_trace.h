/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sroce_trace.h - tracepoints (TRACE_SYSTEM sroce)
 *
 * Enable them in tracefs (events/sroce/), or with trace-cmd or perf: see
 * the README.  The events are defined once, in sroce_trace.c
 * (CREATE_TRACE_POINTS); every other file includes this header and calls
 * trace_sroce_*() at the place the event happens, next to its counter.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sroce

#if !defined(SROCE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SROCE_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "sroce_compat.h"
#include "sroce_qp.h"

TRACE_DEFINE_ENUM(IB_QPS_RESET);
TRACE_DEFINE_ENUM(IB_QPS_INIT);
TRACE_DEFINE_ENUM(IB_QPS_RTR);
TRACE_DEFINE_ENUM(IB_QPS_RTS);
TRACE_DEFINE_ENUM(IB_QPS_SQD);
TRACE_DEFINE_ENUM(IB_QPS_SQE);
TRACE_DEFINE_ENUM(IB_QPS_ERR);

#define sroce_trace_qp_state(s)						\
	__print_symbolic(s, { IB_QPS_RESET, "RESET" },			\
			 { IB_QPS_INIT, "INIT" }, { IB_QPS_RTR, "RTR" },	\
			 { IB_QPS_RTS, "RTS" }, { IB_QPS_SQD, "SQD" },	\
			 { IB_QPS_SQE, "SQE" }, { IB_QPS_ERR, "ERR" })

/* The drop reasons are the rx_drop_* counters, by their counter names. */
TRACE_EVENT(sroce_qp_state,
	    TP_PROTO(const struct sroce_qp *qp, enum ib_qp_state old,
		     enum ib_qp_state new),
	    TP_ARGS(qp, old, new),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u32, old)
			     __field(u32, new)),
	    TP_fast_assign(__entry->qpn = sroce_qpn(qp);
			   __entry->old = old;
			   __entry->new = new;),
	    TP_printk("qpn=%u %s -> %s", __entry->qpn,
		      sroce_trace_qp_state(__entry->old),
		      sroce_trace_qp_state(__entry->new))
);

TRACE_EVENT(sroce_drop,
	    TP_PROTO(const struct sroce_dev *dev, enum sroce_counter reason),
	    TP_ARGS(dev, reason),
	    TP_STRUCT__entry(__array(char, dev, IB_DEVICE_NAME_MAX)
			     __string(reason, sroce_counter_name(reason))),
	    TP_fast_assign(strscpy(__entry->dev, dev_name(&dev->ib_dev.dev),
				   IB_DEVICE_NAME_MAX);
			   sroce_trace_assign_str(reason,
						  sroce_counter_name(reason));),
	    TP_printk("dev=%s reason=%s", __entry->dev, __get_str(reason))
);

/*
 * A QP, a PSN and a number: the RNR timer code of an RNR NAK's AETH (IBTA
 * 9.7.5.2.8); the other events of the class print their own meaning.
 */
DECLARE_EVENT_CLASS(sroce_qp_psn_class,
		    TP_PROTO(const struct sroce_qp *qp, u32 psn, u32 n),
		    TP_ARGS(qp, psn, n),
		    TP_STRUCT__entry(__field(u32, qpn)
				     __field(u32, psn)
				     __field(u32, n)),
		    TP_fast_assign(__entry->qpn = sroce_qpn(qp);
				   __entry->psn = psn;
				   __entry->n = n;),
		    TP_printk("qpn=%u psn=%u rnr_timer=%u", __entry->qpn,
			      __entry->psn, __entry->n)
);

/* A request packet sent again; n: retries used of the QP's retry_cnt. */
DEFINE_EVENT_PRINT(sroce_qp_psn_class, sroce_retransmit,
		   TP_PROTO(const struct sroce_qp *qp, u32 psn, u32 n),
		   TP_ARGS(qp, psn, n),
		   TP_printk("qpn=%u psn=%u retries=%u", __entry->qpn,
			     __entry->psn, __entry->n));

/* The retransmit timer expired; psn: the oldest unacknowledged one. */
DEFINE_EVENT_PRINT(sroce_qp_psn_class, sroce_retrans_timeout,
		   TP_PROTO(const struct sroce_qp *qp, u32 psn, u32 n),
		   TP_ARGS(qp, psn, n),
		   TP_printk("qpn=%u psn=%u backoff=%u", __entry->qpn,
			     __entry->psn, __entry->n));

/*
 * A WQE failed with retry exceeded (IBTA 9.7.5.2.4, 9.7.6.1.3): the send
 * side's state then.  PSNs: the oldest unacknowledged, the next to send,
 * one past the newest sent; idle_ms: since the last retry or progress
 * (at least the local ACK timeout when the retry was counted); queued:
 * responses waiting for the completer; inflight: request skbs still in
 * this host's stack.  A peer that answered nothing shows queued 0 and
 * inflight 0.
 */
TRACE_EVENT(sroce_retry_exc,
	    TP_PROTO(const struct sroce_qp *qp, u32 comp_psn, u32 psn,
		     u32 max_psn, u32 idle_ms, u32 queued, u32 inflight),
	    TP_ARGS(qp, comp_psn, psn, max_psn, idle_ms, queued, inflight),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u32, comp_psn)
			     __field(u32, psn)
			     __field(u32, max_psn)
			     __field(u32, idle_ms)
			     __field(u32, queued)
			     __field(u32, inflight)),
	    TP_fast_assign(__entry->qpn = sroce_qpn(qp);
			   __entry->comp_psn = comp_psn;
			   __entry->psn = psn;
			   __entry->max_psn = max_psn;
			   __entry->idle_ms = idle_ms;
			   __entry->queued = queued;
			   __entry->inflight = inflight;),
	    TP_printk("qpn=%u comp_psn=%u psn=%u max_psn=%u idle_ms=%u queued=%u inflight=%u",
		      __entry->qpn, __entry->comp_psn, __entry->psn,
		      __entry->max_psn, __entry->idle_ms, __entry->queued,
		      __entry->inflight)
);

DEFINE_EVENT(sroce_qp_psn_class, sroce_rnr_nak_sent,
	     TP_PROTO(const struct sroce_qp *qp, u32 psn, u32 n),
	     TP_ARGS(qp, psn, n));

DEFINE_EVENT(sroce_qp_psn_class, sroce_rnr_nak_rcvd,
	     TP_PROTO(const struct sroce_qp *qp, u32 psn, u32 n),
	     TP_ARGS(qp, psn, n));

DECLARE_EVENT_CLASS(sroce_cnp_class,
		    TP_PROTO(const struct sroce_qp *qp, u32 dest_qpn),
		    TP_ARGS(qp, dest_qpn),
		    TP_STRUCT__entry(__field(u32, qpn)
				     __field(u32, dest_qpn)),
		    TP_fast_assign(__entry->qpn = sroce_qpn(qp);
				   __entry->dest_qpn = dest_qpn;),
		    TP_printk("qpn=%u dest_qpn=%u", __entry->qpn, __entry->dest_qpn)
);

/* qpn: the local QP that got the CE mark; dest_qpn: the sender to slow */
DEFINE_EVENT(sroce_cnp_class, sroce_cnp_sent,
	     TP_PROTO(const struct sroce_qp *qp, u32 dest_qpn),
	     TP_ARGS(qp, dest_qpn));

/* qpn: the local QP the CNP named (dest_qpn is the same) */
DEFINE_EVENT(sroce_cnp_class, sroce_cnp_rcvd,
	     TP_PROTO(const struct sroce_qp *qp, u32 dest_qpn),
	     TP_ARGS(qp, dest_qpn));

/* DCQCN rate RC of a QP changed; kb/s, 0 = never limited (line rate) */
TRACE_EVENT_CONDITION(sroce_cc_rate,
		      TP_PROTO(const struct sroce_qp *qp, u32 old_kbps,
			       u32 new_kbps),
		      TP_ARGS(qp, old_kbps, new_kbps),
		      TP_CONDITION(old_kbps != new_kbps),
		      TP_STRUCT__entry(__field(u32, qpn)
				       __field(u32, old_kbps)
				       __field(u32, new_kbps)),
		      TP_fast_assign(__entry->qpn = sroce_qpn(qp);
				     __entry->old_kbps = old_kbps;
				     __entry->new_kbps = new_kbps;),
		      TP_printk("qpn=%u rate_kbps=%u -> %u", __entry->qpn,
				__entry->old_kbps, __entry->new_kbps)
);

#endif /* SROCE_TRACE_H */

/* define_trace.h finds this file through -I$(src) (Kbuild). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE sroce_trace
#include <trace/define_trace.h>
