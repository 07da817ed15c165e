#!/bin/bash
# bench-cc.sh: congestion scenario of the sroce benchmark (DCQCN), run in
# the VM by `scripts/bench --scenario congestion` (tests/tools/bench.sh's
# hook), or alone: scripts/vm tests/tools/bench-cc.sh
#
# On the fabric of cc-lib.sh (A -> M -> S -> B, C; MTU 9000; M's port toward
# S limited to CC_RATE Mb/s by tbf, CE step marking at CC_CE_THRESHOLD of
# queue delay, Not-ECT packets dropped by CoDel and at 1000 packets),
# ib_write_bw -s 65536 (ACK timeout 1 s) into the bottleneck. Scenarios:
#   dcqcn        1 flow sroce0 -> sroce1, DCQCN with knobs_fabric (timers
#                and steps scaled to a 20 Mb/s fabric with ms round trips)
#   ecn-off      the same, roce_rp/ecn_enable 0 (Not-ECT: the queue drops)
#   rp-off       the same, roce_rp/enable 0 (CNPs arrive, no reaction)
#   default      the same, DCQCN with the paper's defaults (ceiling: the
#                veth's 10 Gb/s; timers of 55 us)
#   2x-dcqcn     two senders (QPs, each with its own rate limiter) from
#                sroce0 into the bottleneck, to sroce1 and, 5 s later, to
#                sroce2; DCQCN with knobs_fabric
#   2x-ecn-off   the same with ecn_enable 0
#   2x-rxe       the same two flows sent by rdma_rxe (rxe0 in init_net,
#                joined to the switch M: its UDP socket exists only there)
#                to sroce1 and sroce2: rxe has no congestion control, sends
#                Not-ECT and relies on retransmission
# One table row per run: goodput (in order at the receivers) and link use
# in Mb/s over the middle of the run, retransmitted/sent packets (sroce:
# its retransmits counter; rxe has none: "~" = sent minus new in-order
# packets at the receivers), CNPs received by the sender, packets the
# bottleneck dropped, packets of 4 KiB queued there (median/max of samples
# every 0.2 s; 1 packet = 1.6 ms at 20 Mb/s), the sender QPs'
# drv_cc_rate_mbps median (sampled every 0.2 s), Jain's fairness index and
# each flow's goodput for two flows. Figures are measured, not asserted.
# Exits 0 when every run produced its figures.
# Knobs (env): BENCH_CC_SCENARIOS (all seven), BENCH_CC_REPS (1), CC_RATE
# (20), CC_SECS (12), CC_CE_THRESHOLD (10ms), CC_BATCH (0: sroce's batches
# off at the bottleneck, cc-lib.sh), and those of knobs_fabric.
# run from tests/, where lib.sh and the test programs (bin/) are
# shellcheck source-path=SCRIPTDIR/..
cd "$(dirname "$0")/.." && source ./lib.sh && source ./cc-lib.sh

SCENARIOS=${BENCH_CC_SCENARIOS:-dcqcn ecn-off rp-off default 2x-dcqcn 2x-ecn-off 2x-rxe}
export CC_SERIES=1   # cc-lib.sh samples each run's time series
REPS=${BENCH_CC_REPS:-1}
export CC_SECS=${CC_SECS:-12}
ROWS=()
failures=0

require_sroce bench-cc/modprobe-sroce && require_provider bench-cc/provider || exit 1
if ! miss=$(cc_mods sch_tbf); then
	echo "bench-cc: the VM lacks $miss: add it to scripts/vm MODULES, or run scripts/vm --add DIR with DIR holding $miss.ko"
	exit 1
fi
echo "bench-cc: bottleneck ${CC_RATE:-20} Mb/s, CE above ${CC_CE_THRESHOLD:-10ms} of queue, $CC_SECS s per run, $REPS round(s)"

# row NAME VALUES...: one table row.
FMT='%-11s %7s %6s %13s %6s %6s %8s %8s %s'
row() {
	local r
	# shellcheck disable=SC2059  # FMT is the table's format
	printf -v r "$FMT" "$@"
	ROWS+=("$r")
}

# mbps KBPS: kb/s as Mb/s with one decimal.
mbps() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1000 }'; }

bench_start=$SECONDS
for ((rep = 1; rep <= REPS; rep++)); do
	for s in $SCENARIOS; do
		tag=bench-cc/$s-$rep
		echo "bench-cc: $s (round $rep)"
		CC_SND_NS=A CC_SND_DEV=sroce0 CC_SND_IP=$CC_A_IP4
		if [[ $s == *rxe ]]; then
			out=$(fabric_rxe_up 2>&1) && CC_SND_NS=- CC_SND_DEV=rxe0 CC_SND_IP=$CC_R_IP4
		else
			out=$(fabric_up 2>&1)
		fi || {
			echo "bench-cc: setup failed: $out"
			failures=$((failures + 1))
			continue
		}
		case $s in
		default) knobs_default sroce0 sroce1 sroce2 ;;
		ecn-off | 2x-ecn-off) knob sroce0 roce_rp/ecn_enable 0 ;;
		rp-off) knob sroce0 roce_rp/enable 0 ;;
		dcqcn | 2x-dcqcn | 2x-rxe) ;;
		*) echo "bench-cc: unknown scenario $s"; failures=$((failures + 1)); continue ;;
		esac
		if [[ $s == 2x-* ]]; then
			if flows2_run "$tag"; then
				read -r _ _ rmed _ <<<"$(stats "$(lf "$tag").rates" 2)"
				if [[ $CC_SND_DEV == rxe0 ]]; then
					retx="~$((SENT > RX ? SENT - RX : 0))/$SENT" cnps=n/a
				else
					retx="$(dlt "$tag" sroce0 retransmits)/$SENT" cnps=$(dlt "$tag" sroce0 cnp_rcvd)
				fi
				row "$s" "$(mbps $((K1 + K2)))" "$LINK" "$retx" "$cnps" "$DROPS" "$QMED/$QMAX" "$rmed" "$JAIN ($(mbps "$K1") + $(mbps "$K2"))"
			else
				failures=$((failures + 1))
			fi
		elif flow_run "$tag"; then
			read -r _ _ rmed _ <<<"$(stats "$(lf "$tag").rates" 2)"
			row "$s" "$(mbps "$GPK")" "$LINK" "$RETX/$SENT" "$(dlt "$tag" sroce0 cnp_rcvd)" "$DROPS" "$QMED/$QMAX" "$rmed" "-"
		else
			failures=$((failures + 1))
		fi
		# the time series, to the log, for scripts/bench's plots
		[[ -s $(lf "$tag").series ]] && sed "s|^|\| series $s-$rep |" "$(lf "$tag").series"
	done
done
reset_state

echo "=== congestion table (bottleneck ${CC_RATE:-20} Mb/s, $CC_SECS s per flow run, $((SECONDS - bench_start)) s in all)"
# shellcheck disable=SC2059
{
	printf "$FMT\n" scenario goodput link retx/sent CNPs drops queue rate-med "Jain (flow 1 + 2)"
	printf "$FMT\n" "" Mb/s Mb/s pkts rcvd pkts med/max Mb/s "Mb/s"
	printf '%s\n' "${ROWS[@]}"
}
echo "=== end congestion table"
((failures == 0))
