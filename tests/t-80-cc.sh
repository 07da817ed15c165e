#!/bin/bash
# shellcheck disable=SC2086,SC2100,SC2128,SC2178
#   (knob rows and tc selectors are split on purpose; t is a plain string: t=t-8x/y is no arithmetic, and not lib.sh's array t)
# t-80-cc: congestion control (DCQCN) between sroce0 (netns A, sender) and
# sroce1 (netns B, receiver) on a veth pair, with netem only (in the VM
# image): netem on vethA marks CE on a share of the ECT packets A->B, as a
# congested switch would.
#   knob/*       every cc/ knob: below range, above range, too large for a
#                u32, not a number -> EINVAL and the value unchanged; the
#                bounds and the default read back; defaults; line_rate_mbps
#                read-only; knobs are per device
#   clean        no marking: no CE counted, no CNP, no rate cut
#   ce/*         marking: the receiver counts CE and sends CNPs (at most one
#                per CE packet), the sender receives them and cuts the rate
#                once per CNP; no CNP answers a CNP
#   np_interval  cnp_interval_us 1 s: at most one CNP per QP per second;
#                interval 0: a CNP for every CE packet
#   np_off       roce_np/enable 0: CE counted, no CNP
#   rp_off       roce_rp/enable 0: CNPs arrive, no cut, the QP never limited
#   ect_off      roce_rp/ecn_enable 0: Not-ECT, netem drops instead of
#                marking: no CE arrives, the loss is retransmitted
#   pacing       a 20 Mb/s ceiling, a 5 Mb/s floor, slow recovery: while the
#                QP is limited, `rdma -dd resource show qp` shows it
#                (drv_cc_limited 1, 5 <= drv_cc_rate_mbps <= 20) and the
#                sender really sends at that rate: goodput 1..25 Mb/s
#                (the requester's pacing, sroce_req_paced())
#   ud/cnp       a UD receiver answers CE with CNPs (to the DETH source QP),
#                which the UD sender drops: UD QPs take no CNP
# One PASS/FAIL line each; the figures (counters, rates, goodput) are in
# the PASS lines. About 60 s in the VM under TCG.
cd "$(dirname "$0")" && source ./lib.sh && source ./cc-lib.sh

require_sroce t-80/modprobe-sroce && require_provider t-80/provider || exit 1
per_packet_tc	# netem and the bottleneck act on each packet
if ! out=$(setup_two_netns 1500 2>&1 && sroce_bind sroce0 vethA 2>&1 && sroce_bind sroce1 vethB 2>&1); then
	fail t-80/setup "$out"
	exit 1
fi
if [[ ! -d /sys/class/infiniband/sroce0/cc/roce_np || ! -d /sys/class/infiniband/sroce0/cc/roce_rp ]]; then
	fail t-80/setup "no /sys/class/infiniband/sroce0/cc/roce_np|roce_rp"
	exit 1
fi
pass t-80/setup
PAY=1024   # path MTU of a 1500-byte veth

# --- knobs --------------------------------------------------------------------

# kwrite FILE VALUE: write VALUE (echo: with a newline); the error text.
kwrite() {
	local out
	out=$({ echo "$2" >"$1"; } 2>&1) && return 0
	echo "${out##*: }"
	return 1
}

# knob_test DIR/NAME MIN MAX DEFAULT: one PASS/FAIL for the knob on sroce0.
knob_test() {
	local k=$1 min=$2 max=$3 def=$4 f=/sys/class/infiniband/sroce0/cc/$1 v out why='' before
	local bad=("$((max + 1))" 4294967296 99999999999999999999 abc 12abc 1.5 -1 '' ' ')
	((min > 0)) && bad=("$((min - 1))" "${bad[@]}")
	[[ -r $f && -w $f ]] || { fail "t-80/knob/$k" "missing or not writable"; return; }
	before=$(cat "$f")
	for v in "${bad[@]}"; do
		if out=$(kwrite "$f" "$v"); then
			why+="'$v' accepted; "
		elif [[ $out != "Invalid argument" ]]; then
			why+="'$v': $out, not EINVAL; "
		fi
		if [[ $(cat "$f") != "$before" ]]; then
			why+="'$v' changed it to $(cat "$f"); "
			echo "$before" >"$f"
		fi
	done
	for v in "$min" "$max" "$def"; do
		if ! out=$(kwrite "$f" "$v"); then
			why+="'$v' rejected: $out; "
		elif [[ $(cat "$f") != "$v" ]]; then
			why+="'$v' reads back '$(cat "$f")'; "
		fi
	done
	if [[ -z $why ]]; then
		pass "t-80/knob/$k" "EINVAL and unchanged for$(printf " '%s'" "${bad[@]}"); $min, $max, $def read back"
	else
		fail "t-80/knob/$k" "$why"
	fi
}

why=''
for d in sroce0 sroce1; do
	for k in "${CC_KNOBS[@]}"; do
		set -- $k
		v=$(knob "$d" "$1" 2>&1)
		[[ $v == "$4" ]] || why+="$d $1=$v (want $4); "
	done
done
if [[ -z $why ]]; then pass t-80/knob/defaults "${#CC_KNOBS[@]} knobs x 2 devices"; else fail t-80/knob/defaults "$why"; fi

for k in "${CC_KNOBS[@]}"; do knob_test $k; done

f=/sys/class/infiniband/sroce0/cc/roce_rp/line_rate_mbps
lr=$(cat "$f" 2>&1)
if out=$(kwrite "$f" 5); then
	fail t-80/knob/line_rate_mbps "writable"
elif [[ $(cat "$f") != "$lr" || $lr != 10000 ]]; then
	fail t-80/knob/line_rate_mbps "reads '$lr' then '$(cat "$f")', want 10000 (veth speed) both times"
else
	pass t-80/knob/line_rate_mbps "10000 (veth), read-only: $out"
fi

knob sroce0 roce_np/cnp_dscp 10 && knob sroce0 roce_rp/g_shift 3
if [[ $(knob sroce1 roce_np/cnp_dscp) == 48 && $(knob sroce1 roce_rp/g_shift) == 8 &&
	$(knob sroce0 roce_np/cnp_dscp) == 10 && $(knob sroce0 roce_rp/g_shift) == 3 ]]; then
	pass t-80/knob/per_device
else
	fail t-80/knob/per_device "sroce0 cnp_dscp/g_shift 10/3 -> sroce1 reads $(knob sroce1 roce_np/cnp_dscp)/$(knob sroce1 roce_rp/g_shift)"
fi
knobs_default sroce0 sroce1

# --- signalling -------------------------------------------------------------------

# run TAG SECS [ARGS]: ib_write_bw -s 65536 -D SECS (or ARGS) from sroce0 to
# sroce1 after snap TAG; sroce0's QP rates sampled into $(lf TAG).rates;
# GOODPUT: Mb/s delivered in order to sroce1 from 2 s after the start to 2 s
# before the end. Returns 1 (FAIL TAG/run) when the pair failed.
run() {
	local tag=$1 secs=$2
	shift 2
	(($#)) || set -- -s 65536 -D "$secs"
	snap "$tag" sroce0 sroce1
	GOODPUT=''
	rates_start sroce0 "$(lf "$tag").rates"
	if bw_start "$tag" B sroce1 "$B_IP4" A sroce0 "$A_IP4" -u 18 "$@"; then
		if ((secs >= 5)); then
			sleep 2; rx_mark sroce1; sleep $((secs - 4)); GOODPUT=$(rx_mbps sroce1 "$PAY")
		fi
		bw_wait "$tag"
	else
		BW_WHY="could not start"; false
	fi
	local rc=$?
	rates_stop
	echo "  $tag: sroce0 $(dlts "$tag" sroce0)| sroce1 $(dlts "$tag" sroce1)"
	((rc == 0)) && return 0
	fail "$tag/run" "ib_write_bw: $BW_WHY"
	bw_log "$tag"
	return 1
}

# expect NAME DETAIL COND...: PASS NAME (DETAIL) when bash test COND holds.
expect() {
	local name=$1 detail=$2
	shift 2
	if eval "$*"; then pass "$name" "$detail"; else fail "$name" "$* is false: $detail"; fi
}

ce_netem() { ce_off; in_ns A tc qdisc add dev vethA root netem "$@"; }
ce_off() { in_ns A tc qdisc del dev vethA root 2>/dev/null; }

t=t-80/clean
if run $t 6; then
	unpaced=$GOODPUT
	expect $t/no_cnp "goodput ${unpaced:-?} Mb/s, no CE, no CNP, no cut" \
		"(( $(dlt $t sroce1 ecn_marked_pkts) == 0 && $(dlt $t sroce1 cnp_sent) == 0 &&" \
		"$(dlt $t sroce0 cnp_rcvd) == 0 && $(dlt $t sroce0 rate_reductions) == 0 ))"
fi

t=t-80/ce
ce_netem loss 5% ecn
if run $t 6; then
	ce=$(dlt $t sroce1 ecn_marked_pkts) sent=$(dlt $t sroce1 cnp_sent) rcvd=$(dlt $t sroce0 cnp_rcvd)
	cuts=$(dlt $t sroce0 rate_reductions)
	expect $t/np_counts_ce "$ce CE packets" "(( ce > 0 ))"
	expect $t/np_sends_cnp "$sent CNPs for $ce CE packets" "(( sent > 0 && sent <= ce ))"
	expect $t/rp_gets_cnp "$rcvd of $sent CNPs received" "(( rcvd > 0 && rcvd <= sent ))"
	expect $t/rp_cuts "$cuts rate cuts for $rcvd CNPs" "(( cuts == rcvd ))"
	expect $t/no_cnp_for_cnp "sroce0 sent $(dlt $t sroce0 cnp_sent), sroce1 received $(dlt $t sroce1 cnp_rcvd)" \
		"(( $(dlt $t sroce0 cnp_sent) == 0 && $(dlt $t sroce1 cnp_rcvd) == 0 ))"
fi

t=t-80/np_interval
knob sroce1 roce_np/cnp_interval_us 1000000
if run $t 5; then
	sent=$(dlt $t sroce1 cnp_sent) ce=$(dlt $t sroce1 ecn_marked_pkts)
	secs=$(((BW_T1[$t] - BW_T0[$t] + 999999) / 1000000))
	expect $t/1s "$sent CNPs for $ce CE packets in ${secs} s" "(( sent >= 1 && sent <= secs + 1 && ce > sent ))"
fi
knob sroce1 roce_np/cnp_interval_us 0
if run $t-0 4 -s 65536 -n 150; then
	sent=$(dlt $t-0 sroce1 cnp_sent) ce=$(dlt $t-0 sroce1 ecn_marked_pkts)
	expect $t/0 "$sent CNPs for $ce CE packets" "(( ce > 0 && sent <= ce && sent * 10 >= ce * 9 ))"
fi
knob sroce1 roce_np/cnp_interval_us 50

t=t-80/np_off
knob sroce1 roce_np/enable 0
if run $t 4 -s 65536 -n 150; then
	expect $t "$(dlt $t sroce1 ecn_marked_pkts) CE packets, $(dlt $t sroce1 cnp_sent) CNPs" \
		"(( $(dlt $t sroce1 ecn_marked_pkts) > 0 && $(dlt $t sroce1 cnp_sent) == 0 && $(dlt $t sroce0 cnp_rcvd) == 0 ))"
fi
knob sroce1 roce_np/enable 1

t=t-80/rp_off
knob sroce0 roce_rp/enable 0
if run $t 3; then
	read -r n _ _ maxlim <<<"$(stats "$(lf $t).rates" 5)"
	expect $t "$(dlt $t sroce0 cnp_rcvd) CNPs, $(dlt $t sroce0 rate_reductions) cuts, drv_cc_limited at most ${maxlim/-/?} in $n samples" \
		"(( $(dlt $t sroce0 cnp_rcvd) > 0 && $(dlt $t sroce0 rate_reductions) == 0 && n > 0 )) && [[ $maxlim == 0 ]]"
fi
knob sroce0 roce_rp/enable 1

t=t-80/ect_off
knob sroce0 roce_rp/ecn_enable 0
ce_netem loss 0.5% ecn
if run $t 4 -s 65536 -n 40; then
	drops=$(in_ns A tc -s qdisc show dev vethA | awk '/dropped/ { gsub(/,/, ""); print $7; exit }')
	expect $t "netem dropped ${drops:-?} Not-ECT packets (no CE), $(dlt $t sroce0 retransmits) retransmitted" \
		"(( $(dlt $t sroce1 ecn_marked_pkts) == 0 && ${drops:-0} > 0 && $(dlt $t sroce0 retransmits) > 0 ))"
fi
knob sroce0 roce_rp/ecn_enable 1

t=t-80/pacing
knob sroce0 roce_rp/max_rate_mbps 20
knob sroce0 roce_rp/min_rate_mbps 5
knob sroce0 roce_rp/rate_increase_period_us 1000000
knob sroce0 roce_rp/byte_counter 0
ce_netem loss 2% ecn
if run $t 10; then
	read -r n rmin rmed rmax <<<"$(stats "$(lf $t).rates" 2)"
	lim=$(awk '$5 == 1' "$(lf $t).rates" | wc -l)
	expect $t/res "drv_cc_rate_mbps min/median/max $rmin/$rmed/$rmax, limited in $lim of $n samples" \
		"(( n > 0 && lim * 2 >= n && rmax <= 20 && rmin >= 5 ))"
	expect $t/rate "goodput ${GOODPUT:-?} Mb/s under a 20 Mb/s ceiling (unpaced: ${unpaced:-?} Mb/s; sroce_req_paced() in sroce_req.c)" \
		"[[ -n \$GOODPUT ]] && (( GOODPUT >= 1 && GOODPUT <= 25 ))"
fi
knobs_default sroce0

t=t-80/ud
ce_netem loss 5% ecn
snap $t sroce0 sroce1
if PAIR_TIMEOUT=60 run_pair $t/run B sroce1 "$B_IP4" A sroce0 "$A_IP4" ib_send_bw -c UD -s 1024 -n 3000; then
	echo "  $t: sroce0 $(dlts $t sroce0)| sroce1 $(dlts $t sroce1)"
	# UD QPs take packets from anyone, so they take no CNP: dropped as a
	# wrong-transport opcode, no rate cut (sroce_recv.c)
	expect $t/cnp "$(dlt $t sroce1 ecn_marked_pkts) CE, $(dlt $t sroce1 cnp_sent) CNPs sent, $(dlt $t sroce0 rx_drop_opcode) dropped, $(dlt $t sroce0 cnp_rcvd) received, $(dlt $t sroce0 rate_reductions) cuts" \
		"(( $(dlt $t sroce1 cnp_sent) > 0 && $(dlt $t sroce0 rx_drop_opcode) > 0 && $(dlt $t sroce0 rx_drop_opcode) <= $(dlt $t sroce1 cnp_sent) && $(dlt $t sroce0 cnp_rcvd) == 0 && $(dlt $t sroce0 rate_reductions) == 0 ))"
fi
ce_off

dmesg_clean t-80/dmesg
