#!/bin/bash
# shellcheck disable=SC2086,SC2100
#   (t=t-92/x is a plain string, no arithmetic; tags have no spaces)
# t-92-trace: the sroce tracepoints (drivers/sroce/sroce_trace.h) and the
# congestion counters under mlx5's names, between sroce0 (netns A) and
# sroce1 (netns B) on a veth pair. Each case enables its events in tracefs
# (/sys/kernel/tracing, mounted if needed), clears the buffer, provokes
# them and finds them in the trace:
#   qp_state     a perftest pair: sroce_qp_state RESET -> INIT -> RTR on
#                both QPs, -> RTS on (at least) the client's
#   drop         tests/bin/inject's crafted packets: sroce_drop with the
#                reason printed by its counter's name (rx_drop_icrc, ...)
#   retransmit   netem loss both ways: sroce_retransmit and
#                sroce_retrans_timeout, as many as retransmits and
#                retrans_timeouts counted
#   retry_exc    every RoCE packet from sroce1 dropped (tc): the client's
#                WQE fails with retry exceeded, one sroce_retry_exc per
#                completer_retry_err, nothing queued or in flight
#   rnr          ib_send_bw with a 1-entry receive queue against a 128-deep
#                send queue: the receiver runs out of receives,
#                sroce_rnr_nak_sent on sroce1, sroce_rnr_nak_rcvd on sroce0
#   cnp          netem ECN marking (as t-80/ce): sroce_cnp_sent,
#                sroce_cnp_rcvd and sroce_cc_rate (a cut), one event per
#                CNP counted
#   mlx5/*       the same run: np_cnp_sent, np_ecn_marked_roce_packets,
#                rp_cnp_handled, rp_cnp_ignored move with cnp_sent,
#                ecn_marked_pkts, rate_reductions, cnp_rcvd -
#                rate_reductions, in sysfs and in `rdma statistic`; with
#                the reaction point off the CNPs count as rp_cnp_ignored
# About 60 s in the VM under TCG.
cd "$(dirname "$0")" && source ./lib.sh && source ./cc-lib.sh

T=$TRACEFS
require_sroce t-92/modprobe-sroce && require_provider t-92/provider || exit 1
per_packet_tc	# netem acts on each packet
if ! trace_on; then
	fail t-92/setup "no $T/events/sroce (tracefs: $(grep tracefs /proc/mounts))"
	exit 1
fi
if ! out=$(setup_two_netns 1500 2>&1 && sroce_bind sroce0 vethA 2>&1 && sroce_bind sroce1 vethB 2>&1); then
	fail t-92/setup "$out"
	exit 1
fi
pass t-92/setup "$(cd $T/events/sroce && echo sroce_*)"
echo 4096 >$T/buffer_size_kb

# trace_save TAG: the buffer into $(lf TAG).trace, events off.
trace_save() {
	echo 0 >$T/events/sroce/enable
	cat $T/trace >"$(lf "$1").trace"
}
# nev TAG EVENT [PATTERN]: events EVENT (matching PATTERN) in TAG's trace.
nev() { grep -E " $2: .*${3:-}" "$(lf "$1").trace" | grep -c .; }
# first TAG EVENT: the first such line, for the PASS detail.
first() { grep -m1 " $2: " "$(lf "$1").trace" | sed 's/.* \(sroce_[a-z_]*: \)/\1/'; }

# expect NAME DETAIL COND...: PASS NAME (DETAIL) when bash test COND holds.
expect() {
	local name=$1 detail=$2
	shift 2
	if eval "$*"; then pass "$name" "$detail"; else fail "$name" "$* is false: $detail"; fi
}

ce_netem() { ce_off; in_ns A tc qdisc add dev vethA root netem "$@"; }
ce_off() { in_ns A tc qdisc del dev vethA root 2>/dev/null; in_ns B tc qdisc del dev vethB root 2>/dev/null; }

# bw TAG PROG ARGS...: a perftest pair, sroce1 (B) server, sroce0 (A) client.
bw() {
	local tag=$1
	shift
	snap "$tag" sroce0 sroce1
	run_pair "$tag/run" B sroce1 "$B_IP4" A sroce0 "$A_IP4" "$@" >/dev/null || { fail "$tag/run" "$PAIR_WHY"; pair_logs; return 1; }
	sleep 0.1   # hw_stats are cached for 10 ms
}

# --- QP state -------------------------------------------------------------
t=t-92/qp_state
trace_on sroce_qp_state
if bw $t ib_write_bw -s 4096 -n 100; then
	trace_save $t
	r=$(nev $t sroce_qp_state 'RESET -> INIT') i=$(nev $t sroce_qp_state 'INIT -> RTR') s=$(nev $t sroce_qp_state 'RTR -> RTS')
	expect $t "RESET->INIT $r, INIT->RTR $i, RTR->RTS $s: $(first $t sroce_qp_state)" \
		"(( r >= 2 && i >= 2 && s >= 1 ))"
fi

# --- drops ----------------------------------------------------------------
t=t-92/drop
ga=$(gid_index sroce0 "$A_IP4")
in_ns B ping -c 1 -W 5 "$A_IP4" >/dev/null 2>&1
trace_on sroce_drop
snap $t sroce0
bounded 200 bin/inject -d sroce0 -g "$ga" -s "$B_IP4" -t "$A_IP4" -n /run/netns/B -c 50 >"$(lf $t).log" 2>&1
sleep 0.1
trace_save $t
why='' ok=''
for c in rx_drop_malformed rx_drop_icrc rx_drop_opcode rx_drop_no_qp rx_drop_pkey rx_drop_qkey rx_drop_state rx_drop_addr; do
	d=$(dlt $t sroce0 $c) n=$(nev $t sroce_drop "reason=$c\$")
	((d == n)) || why+="$c: counter +$d, $n events; "
	((d)) && ok+="$c $n "
done
expect $t "one event per drop, by reason: $ok; $(first $t sroce_drop)" \
	"[[ -z '$why' ]] && (( $(nev $t sroce_drop) > 0 ))"

# --- retransmits and timeouts --------------------------------------------------
t=t-92/retransmit
trace_on sroce_retransmit sroce_retrans_timeout
ce_netem loss 3%
in_ns B tc qdisc add dev vethB root netem loss 20%
if bw $t ib_write_bw -s 65536 -n 200; then
	trace_save $t
	rt=$(dlt $t sroce0 retransmits) to=$(dlt $t sroce0 retrans_timeouts)
	expect $t/retransmit "$rt retransmits: $(first $t sroce_retransmit)" \
		"(( rt > 0 && $(nev $t sroce_retransmit) == rt ))"
	expect $t/timeout "$to timeouts: $(first $t sroce_retrans_timeout)" \
		"(( to > 0 && $(nev $t sroce_retrans_timeout) == to ))"
fi
ce_off

# --- retry exceeded -------------------------------------------------------------
# Every RoCE packet from B dropped (its ACKs): the client's first WQE fails
# with retry exceeded, and the event shows nothing answered in this host.
t=t-92/retry_exc
trace_on sroce_retry_exc
snap $t sroce0
in_ns B tc qdisc add dev vethB root handle 1: prio &&
	in_ns B tc filter add dev vethB parent 1: protocol ip u32 match ip protocol 17 0xff \
		match ip dport 4791 0xffff action drop
sg=$(gid_index sroce1 "$B_IP4") cg=$(gid_index sroce0 "$A_IP4") port=$PERF_PORT
PERF_PORT=$((PERF_PORT + 1))
perf=(-F -p "$port" -s 4096 -n 20)
PAIR_TIMEOUT=30 pair_exec "$t/run" B A "$port" ib_write_bw -d sroce1 -x "$sg" "${perf[@]}" -- \
	ib_write_bw -d sroce0 -x "$cg" "${perf[@]}" "$B_IP4"
st=$(grep -o 'Failed status [0-9]*' "$PAIR_CLOG" | head -n 1)
in_ns B tc qdisc del dev vethB root 2>/dev/null
sleep 0.1
trace_save $t
n=$(dlt $t sroce0 completer_retry_err)
expect $t "$n retry exceeded, client: $st: $(first $t sroce_retry_exc)" \
	"(( n > 0 && $(nev $t sroce_retry_exc 'queued=0 inflight=0') == n )) && [[ '$st' == 'Failed status 12' ]]"

# --- RNR ------------------------------------------------------------------
t=t-92/rnr
trace_on sroce_rnr_nak_sent sroce_rnr_nak_rcvd
if bw $t ib_send_bw -s 64 -n 3000 -r 1 -t 128; then
	trace_save $t
	snt=$(dlt $t sroce1 send_rnr_err) rcv=$(dlt $t sroce0 rcvd_rnr_err)
	expect $t/sent "$snt RNR NAKs sent: $(first $t sroce_rnr_nak_sent)" \
		"(( snt > 0 && $(nev $t sroce_rnr_nak_sent) == snt ))"
	expect $t/rcvd "$rcv RNR NAKs received: $(first $t sroce_rnr_nak_rcvd)" \
		"(( rcv > 0 && $(nev $t sroce_rnr_nak_rcvd) == rcv ))"
fi

# --- CNPs, DCQCN rate, mlx5 counter names -----------------------------------------
# mlx5_check TAG: each mlx5 name moved with its sroce twin(s), in sysfs and
# in `rdma statistic` (which reads the same hw_stats).
mlx5_check() {
	local t=$1 st
	expect $t/mlx5/np_cnp_sent "$(dlt $t sroce1 np_cnp_sent) = cnp_sent $(dlt $t sroce1 cnp_sent)" \
		"(( $(dlt $t sroce1 np_cnp_sent) == $(dlt $t sroce1 cnp_sent) ))"
	expect $t/mlx5/np_ecn_marked_roce_packets "$(dlt $t sroce1 np_ecn_marked_roce_packets) = ecn_marked_pkts $(dlt $t sroce1 ecn_marked_pkts)" \
		"(( $(dlt $t sroce1 np_ecn_marked_roce_packets) == $(dlt $t sroce1 ecn_marked_pkts) ))"
	expect $t/mlx5/rp_cnp_handled "$(dlt $t sroce0 rp_cnp_handled) = rate_reductions $(dlt $t sroce0 rate_reductions)" \
		"(( $(dlt $t sroce0 rp_cnp_handled) == $(dlt $t sroce0 rate_reductions) ))"
	expect $t/mlx5/rp_cnp_ignored "$(dlt $t sroce0 rp_cnp_ignored) = cnp_rcvd $(dlt $t sroce0 cnp_rcvd) - rate_reductions $(dlt $t sroce0 rate_reductions)" \
		"(( $(dlt $t sroce0 rp_cnp_ignored) == $(dlt $t sroce0 cnp_rcvd) - $(dlt $t sroce0 rate_reductions) ))"
	st=$("$RDMA" statistic show link sroce1/1 2>&1)
	local a b
	a=$(sed -n 's/.* np_cnp_sent \([0-9]*\).*/\1/p' <<<"$st") b=$(sed -n 's/.* cnp_sent \([0-9]*\).*/\1/p' <<<"$st")
	expect $t/mlx5/rdma_statistic "rdma statistic sroce1: np_cnp_sent ${a:-?}, cnp_sent ${b:-?}" \
		"[[ -n '$a' && '$a' == '$b' ]]"
}

t=t-92/cnp
trace_on sroce_cnp_sent sroce_cnp_rcvd sroce_cc_rate
ce_netem loss 5% ecn
if bw $t ib_write_bw -s 65536 -n 300; then
	trace_save $t
	snt=$(dlt $t sroce1 cnp_sent) rcv=$(dlt $t sroce0 cnp_rcvd) cuts=$(dlt $t sroce0 rate_reductions)
	expect $t/sent "$snt CNPs sent: $(first $t sroce_cnp_sent)" \
		"(( snt > 0 && $(nev $t sroce_cnp_sent) == snt ))"
	expect $t/rcvd "$rcv CNPs received: $(first $t sroce_cnp_rcvd)" \
		"(( rcv > 0 && $(nev $t sroce_cnp_rcvd) == rcv ))"
	expect $t/rate "$cuts cuts, $(nev $t sroce_cc_rate) rate changes: $(first $t sroce_cc_rate)" \
		"(( cuts > 0 && $(nev $t sroce_cc_rate) >= cuts ))"
	mlx5_check $t
fi

t=t-92/cnp_rp_off
knob sroce0 roce_rp/enable 0
if bw $t ib_write_bw -s 65536 -n 150; then
	expect $t/ignored "$(dlt $t sroce0 rp_cnp_ignored) ignored of $(dlt $t sroce0 cnp_rcvd) received" \
		"(( $(dlt $t sroce0 rp_cnp_ignored) > 0 && $(dlt $t sroce0 rp_cnp_ignored) == $(dlt $t sroce0 cnp_rcvd) ))"
	mlx5_check $t
fi
knob sroce0 roce_rp/enable 1
ce_off
echo 0 >$T/events/sroce/enable
: >$T/trace

dmesg_clean t-92/dmesg
