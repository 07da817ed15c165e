#!/bin/bash
# t-86-soak: every posted work request ends with a completion (success, or
# an error once the QP's retry budget is spent), never a hang, under loss,
# corruption, reordering, duplication, a rate limit and a starved vCPU, for
# SOAK_SECS seconds (default 300; `make soak` runs 1800) on the SAME devices
# throughout (no reload, no device re-created between steps):
#   sroce0 (netns A, vethA) <-> sroce1 (netns B, vethB)
#   rxe0 (init_net, vethR)  <-> sroce2 (netns B, vethRB)
# Pairs, client -> server: sroce0-sroce1, sroce2-rxe0 and rxe0-sroce2.
#
# Impairments: before each step the qdiscs of all four veths are replaced
# (impair: netem for the RoCE packets, UDP 4791, both directions; the TCP
# connection the programs exchange QP numbers over stays clean):
#   none      loss1 (loss 1%)        loss5 (loss 5%)      corrupt (2%)
#   reorder   (delay 1ms 2ms reorder 25% 50%)             dup (duplicate 5%)
#   rate      (rate 20mbit)          hog (two busy loops in the guest)
#   hog+loss1 (one busy loop and loss 1%)
# The busy loops run for the step and are killed after it.
# Operations:
#   data      tests/bin/rdma_data -k 31: RC WRITE, READ, SEND, WRITE_IMM,
#             atomics, every byte verified (its transport timeout: 268 ms,
#             7 retries; it waits at most 30 s for any one CQE)
#   pingpong  ibv_rc_pingpong -c (received bytes checked)
#   rping     rping -V: rdma_cm connect, verified ping data, disconnect,
#             RPING_CONNECTS times against one listening server
#   write_bw, read_bw, send_bw   ib_*_bw -a (2 B .. 8 MiB, -n 5), transport
#             timeout -u 18 (1.07 s; 7 retries: about 8.6 s without
#             progress before a retry-exceeded error)
# Each has a bound (BOUND, seconds; 4 times longer for a sweep under
# reorder) several times the longest run measured on a busy 2-core host
# and far above the transport budget: an operation still running at its
# bound is a STALL (so is a CQE rdma_data waited 30 s for).  A stall fails
# the step with, taken while the programs still run, their logs, both
# devices' counters (rdma statistic) and QPs (rdma -dd resource show qp),
# what moved on either in 5 s, and the programs' kernel stacks; then they
# are killed and the soak goes on (never running the stalled operation
# again) until SOAK_MAX_STALLS stalls.  An operation that ends with an
# error (a failed completion, a byte compared wrong) is a FAIL.
#
# Schedule: steps 1-9 (FIXED) take every impairment once, every operation
# and each pair three times, in under 200 s; then the (impairment,
# operation) combinations not run yet come in an order drawn from
# SOAK_SEED, then all 54 again, and so on, the pair of a combination moving
# on by one each round.  rdma_rxe as the requester cannot finish some
# combinations in minutes (RXE_CANNOT: go-back-N, and READ responses taken
# in order only); those go to the next pair.  SOAK_SEED (printed) replays
# the schedule and rdma_data's patterns (netem draws its own losses);
# SOAK_STEPS="loss5:read_bw:sroce2-rxe0 ..." runs the named steps instead.
# A step runs only if its estimate (the longest run of the combination so
# far, else EST) still fits in SOAK_SECS; the others are passed over.
#
# Each operation's figures come from counter deltas, as in t-85: the
# retransmits of its requesters (hw counter retransmits of the client, and
# of the server too for pingpong and rping) against the packets lost on
# the link (netem drops on both ends, rx_drop_icrc of both devices,
# UdpInCsumErrors and IpInHdrErrors of both namespaces).  They are summed
# per impairment for sroce-sroce and for sroce to rdma_rxe (sroce the
# requester; not under corrupt: rdma_rxe counts no ICRC drops); runs with
# rdma_rxe as a requester are not counted (it has no retransmit counter).
# The summary gives operations, failures, stalls, the combinations
# covered and these figures, and PASSes when the sroce-sroce runs under
# the impairments that lose packets (LOSSY) retransmitted at most
# SOAK_RATIO (default 4; 8 on the debug kernel) packets per lost packet.
# (To rdma_rxe, which keeps nothing that follows a gap, the requester must
# go back N: measured 1 to 4.5 per lost packet, reported only.)
# Then: no QP, MR, CQ, PD, cm_id or context left over on the four devices,
# a plain ibv_rc_pingpong -c still runs on sroce0-sroce1 and sroce2-rxe0,
# and dmesg is clean.
# Knobs: SOAK_SECS, SOAK_SEED, SOAK_STEPS, SOAK_RATIO, SOAK_MAX_STALLS
# (default 3).  On the debug kernel the bounds and estimates are 4 times
# longer and perftest's transport timeout is -u 20 (4.3 s).
cd "$(dirname "$0")" && source ./lib.sh

SECS=${SOAK_SECS:-300}
SEED=${SOAK_SEED:-$(($(od -An -N4 -tu4 /dev/urandom) % 1000000000))}
MAX_STALLS=${SOAK_MAX_STALLS:-3}
DATA=$PWD/bin/rdma_data
SLOW=1 QP_TMO=18 RATIO=${SOAK_RATIO:-4}
if debug_kernel; then
	SLOW=4 QP_TMO=20 RATIO=${SOAK_RATIO:-8}
fi
DATA_OPS=100 PP_SIZE=8192 PP_ITERS=400 RPING_CONNECTS=3 RPING_COUNT=20
RPING_SIZE=16384 PERF_ITERS=5
GRACE=$((30 * SLOW))   # for a server after its client ended well

IMPS=(none loss1 loss5 corrupt reorder dup rate hog hog+loss1)
declare -A NETEM=(
	[loss1]="loss 1%" [loss5]="loss 5%" [corrupt]="corrupt 2%"
	[reorder]="delay 1ms 2ms reorder 25% 50%" [dup]="duplicate 5%"
	[rate]="rate 20mbit" [hog+loss1]="loss 1%"
)
declare -A HOGS=([hog]=2 [hog+loss1]=1)
LOSSY="loss1 loss5 corrupt rate hog+loss1"   # the ratio bound's runs
OPS=(data pingpong rping write_bw read_bw send_bw)
# What rdma_rxe, as the requester, cannot finish in minutes: it resends
# all that followed a lost packet (go-back-N, no window), and takes RDMA
# READ responses in order only, asking for the rest again at the first
# one out of order, which under reorder is nearly every time.  Measured:
# from rxe0, ib_write_bw -a at loss 5% 279 s; ib_read_bw -a past 240 s at
# loss 1%, loss 5%, corrupt 2% and under reorder (counters still moving);
# rdma_data's 1 MiB READ under reorder past its 30 s; rping with rxe0 as
# the server (its RDMA READs) under reorder past 120 s, and at loss 5%
# (past 120 s, about one WQE a second on sroce2's side, its counters still
# moving: a lost READ response waits for rdma_rxe's retransmit timer, the
# local ACK timeout rdma_cm set, 2.1 s here).  There such an operation
# goes to the next pair.
declare -A RXE_CANNOT=(
	[rxe0-sroce2:loss1]=" read_bw " [rxe0-sroce2:hog+loss1]=" read_bw "
	[rxe0-sroce2:loss5]=" write_bw read_bw send_bw "
	[rxe0-sroce2:corrupt]=" read_bw "
	[rxe0-sroce2:reorder]=" data read_bw "
	[sroce2-rxe0:reorder]=" rping " [sroce2-rxe0:loss5]=" rping "
)
# seconds: the stall bound, and the estimate before the first run
declare -A BOUND=([data]=180 [pingpong]=90 [rping]=120 [write_bw]=240
	[read_bw]=240 [send_bw]=240)
declare -A EST=([data]=30 [pingpong]=10 [rping]=20 [write_bw]=45
	[read_bw]=45 [send_bw]=45)
# and for a sweep under reorder both are that many times longer (measured:
# 120 to 290 s with sroce as the requester, 4 to 10 times longer)
declare -A SWEEP_SLOW=([reorder]=4)
# pair: server netns, device, IPv4, veth, then the client's
PAIRS=(sroce0-sroce1 sroce2-rxe0 rxe0-sroce2)
declare -A PAIR=(
	[sroce0-sroce1]="B sroce1 $B_IP4 vethB A sroce0 $A_IP4 vethA"
	[sroce2-rxe0]="- rxe0 $R_IP4 vethR B sroce2 $RB_IP4 vethRB"
	[rxe0-sroce2]="B sroce2 $RB_IP4 vethRB - rxe0 $R_IP4 vethR"
)
LINKS=("A vethA" "B vethB" "- vethR" "B vethRB")
# The first steps: every impairment once, every operation, each pair three
# times, in about 200 s.
FIXED=(none:write_bw:sroce2-rxe0 loss1:data:rxe0-sroce2
	loss5:read_bw:sroce0-sroce1 corrupt:pingpong:rxe0-sroce2
	reorder:data:sroce0-sroce1 dup:send_bw:rxe0-sroce2 rate:rping:sroce2-rxe0
	hog:rping:sroce0-sroce1 hog+loss1:pingpong:sroce2-rxe0)
port=18900 hog_pids=()

# ---- counters ----------------------------------------------------------------

# netem_drops NS DEV: packets the netem qdisc of DEV dropped (0: none).
netem_drops() {
	in_ns "$1" tc -s qdisc show dev "$2" | awk '/^qdisc/ { r = ($2 == "netem") }
		r && / Sent / { gsub(/[,()]/, ""); for (i = 2; i < NF; i++) if ($i == "dropped") { d += $(i + 1) } }
		END { print d + 0 }'
}

# csum_drops NS: UDP checksum and IP header errors of NS.
csum_drops() {
	in_ns "$1" cat /proc/net/snmp | awk '$1 == "Ip:" || $1 == "Udp:" {
		if (!($1 in h)) { for (i = 2; i <= NF; i++) h[$1, $i] = i; h[$1] = 1; next }
		n += $1 == "Ip:" ? $h[$1, "InHdrErrors"] : $h[$1, "InCsumErrors"] } END { print n + 0 }'
}

# snap: "client_sent client_rtx server_sent server_rtx lost" of the current
# pair (lost: netem, ICRC and checksum drops of both ends).
snap() {
	local lost
	lost=$(($(netem_drops "$SNS" "$SVETH") + $(netem_drops "$CNS" "$CVETH") +
		$(hw "$SDEV" rx_drop_icrc) + $(hw "$CDEV" rx_drop_icrc) +
		$(csum_drops "$SNS") + $(csum_drops "$CNS")))
	echo "$(hw "$CDEV" sent_pkts) $(hw "$CDEV" retransmits)" \
		"$(hw "$SDEV" sent_pkts) $(hw "$SDEV" retransmits) $lost"
}

# ---- impairments -------------------------------------------------------------

# hog_start N SECS: N busy loops in the guest, each ending by itself after
# SECS at the latest.
hog_start() {
	local i
	for ((i = 0; i < $1; i++)); do
		bash -c 'end=$((SECONDS + $1)); while ((SECONDS < end)); do :; done' hog "$2" &
		hog_pids+=($!)
	done
}

hog_stop() {
	((${#hog_pids[@]})) || return 0
	kill "${hog_pids[@]}" 2>/dev/null
	wait "${hog_pids[@]}" 2>/dev/null
	hog_pids=()
}

# impairment_set IMP SECS: IMP's netem on all four veths (none: no qdisc)
# and its busy loops (for SECS at most).
impairment_set() {
	local l ns dev
	hog_stop
	for l in "${LINKS[@]}"; do
		read -r ns dev <<<"$l"
		in_ns "$ns" tc qdisc del dev "$dev" root 2>/dev/null
		[[ -z ${NETEM[$1]:-} ]] && continue
		# shellcheck disable=SC2086 # the netem options are words
		impair "$ns" "$dev" ${NETEM[$1]} || return 1
	done
	hog_start "${HOGS[$1]:-0}" "$2"
}

trap 'hog_stop' EXIT
trap 'hog_stop; exit 143' TERM

# ---- running one operation ---------------------------------------------------

# cm_listening IP PORT: an rdma_cm ID listens on IP:PORT.
cm_listening() {
	"$RDMA" resource show cm_id 2>/dev/null | grep -qE "state LISTEN .*src-addr $1:$2( |$)"
}

# ns_prefix NS: NSX is the command prefix that runs a program in NS.
ns_prefix() {
	NSX=()
	[[ $1 == - ]] || NSX=("$IP" netns exec "$1")
}

# stop_group PID: TERM, then KILL, the process group timeout(1) leads as
# PID; 1 when it is still there (stuck in the kernel).
stop_group() {
	kill -0 "$1" 2>/dev/null || return 0
	kill -TERM -- "-$1" 2>/dev/null
	wait_pid "$1" 10 2>/dev/null && return 0
	kill -KILL -- "-$1" 2>/dev/null
	wait_pid "$1" 10 2>/dev/null && return 0
	! kill -0 "$1" 2>/dev/null
}

# descendants PID...: PID and every process below it.
descendants() {
	local p c kids line pp
	for p; do
		echo "$p"
		kids=()
		for c in /proc/[0-9]*/stat; do
			{ read -r line <"$c"; } 2>/dev/null || continue
			read -r _ pp _ <<<"${line##*) }"   # after "(comm) ": state ppid
			[[ $pp == "$p" ]] && kids+=("${c//[^0-9]/}")
		done
		((${#kids[@]})) && descendants "${kids[@]}"
	done
}

# counters_moving SECS: what the current pair's hw counters and QPs did
# in SECS seconds (nothing: a hang; packets: a live loop or a slow path).
counters_moving() {
	local d f=$LOG_DIR/soak-moving
	for d in "$CDEV" "$SDEV"; do
		grep -H . /sys/class/infiniband/"$d"/ports/1/hw_counters/* >"$f.$d" 2>/dev/null
		"$RDMA" -dd resource show qp link "$d/1" >"$f.$d.qp" 2>&1
	done
	sleep "$1"
	for d in "$CDEV" "$SDEV"; do
		grep -H . /sys/class/infiniband/"$d"/ports/1/hw_counters/* >"$f.now" 2>/dev/null
		echo "    $d in ${1}s: $(diff -u "$f.$d" "$f.now" | sed -n 's,^+/.*/,,p' | tr '\n' ' ')"
		"$RDMA" -dd resource show qp link "$d/1" >"$f.now" 2>&1
		diff -u "$f.$d.qp" "$f.now" | sed -n "s/^+\([^+]\)/    $d qp now| \1/p"
	done
}

# stall_report WHY PID...: everything there is to see about a stalled
# operation, with its programs (PIDs and below) still running.
stall_report() {
	local why=$1 d p
	shift
	echo "    STALL $STEP_NAME: $why (seed $SEED, replay: SOAK_SEED=$SEED" \
		"or SOAK_STEPS=$S_IMP:$S_OP:$S_PAIR)"
	sed 's/^/    client| /' "$PAIR_CLOG" | tail -n 15
	sed 's/^/    server| /' "$PAIR_SLOG" | tail -n 15
	for d in "$CDEV" "$SDEV"; do
		echo "    $d counters: $("$RDMA" statistic show link "$d/1" 2>&1)"
		"$RDMA" -dd resource show qp link "$d/1" 2>&1 | sed "s/^/    $d qp| /"
	done
	counters_moving 5
	for p in $(descendants "$@"); do
		[[ -r /proc/$p/stat ]] || continue
		echo "    pid $p $(tr '\0' ' ' <"/proc/$p/cmdline" | cut -c1-80)" \
			"state $(awk '{ print $3 }' "/proc/$p/stat") wchan $(cat "/proc/$p/wchan" 2>/dev/null)"
		sed 's/^/      /' "/proc/$p/stack" 2>/dev/null
	done
}

# last_ack_lost STALLED GONE: pingpong's last message.  GONE's program
# received it, ended well and destroyed its QP, and the last SEND of
# STALLED's program lost its ACK on the way: nothing answers its resends
# any more.  ibv_rc_pingpong's retry_cnt is 7: on sroce that SEND fails
# with retry exceeded once the retries are spent (last_ack_ended); rdma_rxe
# takes 7 for no limit (rxe_comp.c, COMPST_ERROR_RETRY) and resends for
# ever.  True when that is what STALLED (rdma_rxe) does: GONE (sroce) has
# no RC QP left and drops the resends (rx_drop_no_qp moves).
last_ack_lost() {
	local f=/sys/class/infiniband/$2/ports/1/hw_counters/rx_drop_no_qp b a
	[[ $1 == rxe* && $2 == sroce* ]] || return 1
	"$RDMA" resource show qp link "$2/1" 2>/dev/null | grep -q ' type RC ' && return 1
	b=$(cat "$f") && sleep 3 && a=$(cat "$f") || return 1
	((a > b))
}

# sroce_retry_exc: SENDs the pair's sroce devices failed with retry
# exceeded (their completer_retry_err; rdma_rxe's counts retries).  When
# the QP goes to error, the receive WQEs' flush completions may be polled
# before the failed SEND's own (IBTA orders no completions across the two
# queues), and ibv_rc_pingpong then prints "work request flushed error".
sroce_retry_exc() {
	local d n=0
	for d in "$CDEV" "$SDEV"; do
		[[ $d == sroce* ]] && n=$((n + $(hw "$d" completer_retry_err)))
	done
	echo "$n"
}

# rxe_req_stuck: rdma_rxe (6.1) as rdma_data's client has a work request
# with no completion, and sends nothing at all for 3 s: no resend, no error
# completion.  A requester that waits for an ACK resends at each timeout
# (rdma_rxe takes retry_cnt 7 for no limit), so this is rdma_rxe's own
# defect: its completer can end a go-back-N resend in COMPST_ERROR_RETRY
# without re-arming the retransmit timer, after a late ACK of the resent
# WQE's last PSN moved comp.psn past it without completing it
# (drivers/infiniband/sw/rxe/rxe_comp.c).  Prints the evidence: rdma_rxe's
# sq-psn, the sroce peer's rq-psn (equal: every request it sent arrived).
rxe_req_stuck() {
	local r=$CDEV s=$SDEV rsq rrq b a
	# rdma_data's client posts every request; its server only receives
	[[ $r == rxe* && $s == sroce* ]] &&
		grep -q 'client: no CQE within' "$PAIR_CLOG" || return 1
	rsq=$(qp_psns "$r" sq-psn) rrq=$(qp_psns "$s" rq-psn)
	b=$(hw "$r" sent_pkts) && sleep 3 && a=$(hw "$r" sent_pkts) || return 1
	((a == b)) && [[ -n $rsq ]] || return 1
	echo "$r sent no packet in 3 s; its RC QPs' sq-psn: $rsq; $s's rq-psn: $rrq"
}

# qp_psns DEV FIELD: FIELD (sq-psn, rq-psn) of DEV's RC QPs, on one line
qp_psns() {
	"$RDMA" -dd resource show qp link "$1/1" 2>/dev/null |
		awk -v f="$2" '/type RC/ { for (i = 1; i < NF; i++) if ($i == f) printf "%s ", $(i + 1) }'
}

# last_ack_ended CPID SPID: when one side of a pingpong ended well and the
# other did not end, or failed with retry exceeded, because its last ACK
# was lost (last_ack_lost), the other's end counts as good too: it is
# stopped if still running, and OP_NOTE says how it ended.  Reads and may
# clear op_exec's crc and src.
last_ack_ended() {
	local who
	[[ $S_OP == pingpong ]] && ((crc == 0 || src == 0)) || return 0
	((crc == 0)) && who=server || who=client
	if { ((crc == 124)) && last_ack_lost "$CDEV" "$SDEV"; } ||
		{ ((src == 124)) && last_ack_lost "$SDEV" "$CDEV"; }; then
		OP_NOTE="the $who's last ACK lost after its peer ended: rdma_rxe resends for ever at retry_cnt 7, stopped"
		if ((crc)); then stop_group "$1"; else stop_group "$2"; fi ||
			OP_WHY="the $who cannot be killed; "
	elif ((crc + src != 124)) && { grep -q 'retry counter exceeded' "$PAIR_CLOG" "$PAIR_SLOG" ||
		{ grep -q 'work request flushed error' "$PAIR_CLOG" "$PAIR_SLOG" &&
		  (($(sroce_retry_exc) > REX0)); }; }; then
		OP_NOTE="the $who's last ACK lost after its peer ended: its SEND failed once its retries were spent"
	else
		return 0
	fi
	crc=0 src=0
}

# op_exec BOUND: the server SRV in SNS, once READY (or after 10 s) the
# client CLI in CNS, both line-buffered into PAIR_SLOG and PAIR_CLOG.
# OP_RC: 0 both ended well, 1 failed (OP_WHY), 2 stalled (OP_WHY; the
# report in STALL_LOG is written before they are killed); OP_SECS: how
# long it took (to the stall).  The rping server (SRV_STAYS) listens
# until it is stopped.  OP_NOTE: how a pingpong whose last ACK was lost
# (last_ack_ended) ended.
op_exec() {
	local bound=$1 spid cpid crc src i ev hard=$(($1 + GRACE + 60)) t0=$SECONDS
	OP_RC=0 OP_WHY='' OP_NOTE='' REX0=$(sroce_retry_exc)
	: >"$STALL_LOG"
	ns_prefix "$SNS"
	"${NSX[@]}" timeout -k 5 "$hard" stdbuf -oL -eL "${SRV[@]}" >"$PAIR_SLOG" 2>&1 &
	spid=$!
	for ((i = 0; i < 100; i++)); do
		"${READY[@]}" && break
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	ns_prefix "$CNS"
	"${NSX[@]}" timeout -k 5 "$hard" stdbuf -oL -eL "${CLI[@]}" >"$PAIR_CLOG" 2>&1 &
	cpid=$!
	wait_pid "$cpid" "$bound" 2>/dev/null
	crc=$?
	if [[ -n $SRV_STAYS ]] && ((crc != 124)) && kill -0 "$spid" 2>/dev/null; then
		stop_group "$spid" || OP_WHY="the server cannot be killed; "
		src=0
	else
		wait_pid "$spid" $((crc ? 5 : GRACE)) 2>/dev/null
		src=$?
		last_ack_ended "$cpid" "$spid"
		if ((crc == 124)); then
			OP_RC=2 OP_WHY="the client did not end within ${bound}s"
		elif ((src == 124 && crc == 0)); then
			OP_RC=2 OP_WHY="the server did not end within ${GRACE}s after its client"
		elif ((src == 124)); then
			stop_group "$spid" || OP_WHY="the server cannot be killed; "
		fi
	fi
	OP_SECS=$((SECONDS - t0))
	if ((OP_RC == 2)); then
		stall_report "$OP_WHY" "$cpid" "$spid" >"$STALL_LOG" 2>&1
		stop_group "$cpid" || OP_WHY+="; the client cannot be killed (stuck in the kernel)"
		stop_group "$spid" || OP_WHY+="; the server cannot be killed (stuck in the kernel)"
		return
	fi
	# rdma_data waits at most 30 s for any CQE: past that it is a stall too
	if grep -q 'no CQE within' "$PAIR_CLOG" "$PAIR_SLOG" && ev=$(rxe_req_stuck); then
		OP_NOTE="rdma_rxe's requester stopped (its defect, see rxe_req_stuck): $ev"
	elif grep -q 'no CQE within' "$PAIR_CLOG" "$PAIR_SLOG"; then
		OP_RC=2 OP_WHY="a work request had no completion within 30 s:"
		OP_WHY+=" $(grep -h -m1 'no CQE within' "$PAIR_CLOG" "$PAIR_SLOG")"
		stall_report "$OP_WHY" >"$STALL_LOG" 2>&1
	elif ((crc || src)); then
		OP_RC=1 OP_WHY+="client rc=$crc server rc=$src"
	fi
}

# op_cmds OP: SRV, CLI and READY for OP between the current pair's devices.
op_cmds() {
	local sg cg prog args
	sg=$(gid_index "$SDEV" "$SIP") && cg=$(gid_index "$CDEV" "$CIP") || return 1
	SRV_STAYS='' READY=(tcp_listening "$SNS" "$port")
	case $1 in
	data)
		SRV=("$DATA" -s -d "$SDEV" -g "$sg" -p "$port")
		CLI=("$DATA" -c "$SIP" -d "$CDEV" -g "$cg" -p "$port" -n "$DATA_OPS"
			-S "$((SEED + STEP))" -k 31) ;;
	pingpong)
		SRV=(ibv_rc_pingpong -d "$SDEV" -g "$sg" -p "$port" -c -s "$PP_SIZE" -n "$PP_ITERS")
		CLI=(ibv_rc_pingpong -d "$CDEV" -g "$cg" -p "$port" -c -s "$PP_SIZE" -n "$PP_ITERS" "$SIP") ;;
	rping)
		SRV_STAYS=1 READY=(cm_listening "$SIP" "$port")
		SRV=(rping -s -P -a "$SIP" -p "$port" -C "$RPING_COUNT" -S "$RPING_SIZE" -V)
		# shellcheck disable=SC2016 # expanded by that bash
		CLI=(bash -c 'for ((i = 0; i < $1; i++)); do "${@:2}" || exit; done' connects
			"$RPING_CONNECTS" rping -c -a "$SIP" -p "$port" -C "$RPING_COUNT"
			-S "$RPING_SIZE" -V) ;;
	*_bw)
		prog=ib_$1
		args=(-F --report_gbits -p "$port" -a -n "$PERF_ITERS" -u "$QP_TMO")
		SRV=("$prog" -d "$SDEV" -x "$sg" "${args[@]}")
		CLI=("$prog" -d "$CDEV" -x "$cg" "${args[@]}" "$SIP") ;;
	esac
}

# ---- steps -------------------------------------------------------------------

declare -A N_OPS N_FAIL N_STALL R_RTX R_LOST R_SENT LONGEST
ops=0 fails=0 stalls=0

# counted_as OP IMP: which figures the run's counters go to: "ss" (sroce
# at both ends), "sr" (sroce the only requester, rdma_rxe the responder,
# which keeps nothing that follows a gap: the requester must go back N),
# or nothing when rdma_rxe requests too (it counts no retransmits) or
# IMP corrupts what rdma_rxe receives (it counts no ICRC drops).
counted_as() {
	if [[ $CDEV == sroce* && $SDEV == sroce* ]]; then
		echo ss
	elif [[ $CDEV == sroce* && $1 != pingpong && $1 != rping && $2 != corrupt ]]; then
		echo sr
	fi
}

# account OP IMP BEFORE AFTER: FIG, the run's figures, added to IMP's.
account() {
	local b a rtx sent lost c
	read -ra b <<<"$3"
	read -ra a <<<"$4"
	rtx=$((a[1] - b[1])) sent=$((a[0] - b[0])) lost=$((a[4] - b[4]))
	if [[ $1 == pingpong || $1 == rping ]]; then
		rtx=$((rtx + a[3] - b[3])) sent=$((sent + a[2] - b[2]))
	fi
	FIG="lost $lost, retransmitted $rtx of $sent sent"
	c=$(counted_as "$1" "$2")
	if [[ -z $c ]]; then
		FIG+=" (not counted: rdma_rxe counts no retransmits nor ICRC drops)"
		return
	fi
	R_RTX[$c:$2]=$((${R_RTX[$c:$2]:-0} + rtx))
	R_LOST[$c:$2]=$((${R_LOST[$c:$2]:-0} + lost))
	R_SENT[$c:$2]=$((${R_SENT[$c:$2]:-0} + sent))
}

# slowness IMP OP: how many times longer than BOUND and EST say OP may
# take under IMP.
slowness() {
	if [[ $2 == *_bw ]]; then echo $((SLOW * ${SWEEP_SLOW[$1]:-1})); else echo "$SLOW"; fi
}

# run_step IMP OP PAIR: one operation under one impairment; records
# PASS/FAIL soak/STEP-n/PAIR/OP/IMP.
run_step() {
	local imp=$1 op=$2 bound=$((BOUND[$2] * $(slowness "$1" "$2"))) before after t
	local STALL_LOG=$LOG_DIR/soak-$STEP.stall.log
	S_IMP=$1 S_OP=$2 S_PAIR=$3
	read -r SNS SDEV SIP SVETH CNS CDEV CIP CVETH <<<"${PAIR[$3]}"
	STEP_NAME=soak/STEP-$STEP/$3/$op/$imp
	PAIR_SLOG=$LOG_DIR/soak-$STEP.server.log PAIR_CLOG=$LOG_DIR/soak-$STEP.client.log
	port=$((port + 1))
	if ! impairment_set "$imp" $((bound + GRACE + 60)) >"$LOG_DIR/soak-setup.log" 2>&1 ||
		! op_cmds "$op" 2>>"$LOG_DIR/soak-setup.log"; then
		fail "$STEP_NAME" "setup: $(tail -n 3 "$LOG_DIR/soak-setup.log" | tr '\n' ' ')"
		return
	fi
	before=$(snap)
	op_exec "$bound"
	t=$OP_SECS
	hog_stop
	after=$(snap)
	account "$op" "$imp" "$before" "$after"
	((t <= ${LONGEST[$op:$imp]:-0})) || LONGEST[$op:$imp]=$t
	ops=$((ops + 1)) RAN[$imp:$op]=1
	N_OPS[$imp]=$((${N_OPS[$imp]:-0} + 1))
	case $OP_RC in
	0) pass "$STEP_NAME" "${t}s; $FIG${OP_NOTE:+; $OP_NOTE}" ;;
	1)	fail "$STEP_NAME" "${t}s, $OP_WHY; $FIG"
		pair_logs
		fails=$((fails + 1)) N_FAIL[$imp]=$((${N_FAIL[$imp]:-0} + 1)) ;;
	2)	fail "$STEP_NAME" "STALL after ${t}s: $OP_WHY; $FIG"
		cat "$STALL_LOG"
		stalls=$((stalls + 1)) N_STALL[$imp]=$((${N_STALL[$imp]:-0} + 1)) ;;
	esac
}

# ---- schedule ----------------------------------------------------------------

declare -A RAN
BAG=() ROUND=0

# bag_fill: the combinations (IMPS index.OPS index) not run yet (after the
# first round: all of them) in an order drawn from RANDOM (seeded).
bag_fill() {
	local i o j k t
	BAG=()
	for ((i = 0; i < ${#IMPS[@]}; i++)); do
		for ((o = 0; o < ${#OPS[@]}; o++)); do
			((ROUND)) || [[ -z ${RAN[${IMPS[i]}:${OPS[o]}]:-} ]] && BAG+=("$i.$o")
		done
	done
	for ((k = ${#BAG[@]} - 1; k > 0; k--)); do
		j=$((RANDOM % (k + 1)))
		t=${BAG[k]} BAG[k]=${BAG[j]} BAG[j]=$t
	done
}

# next_step: N_IMP, N_OP and N_PAIR of step STEP (from 1); 1 when the
# schedule has no more (SOAK_STEPS given).  Not in a subshell: RANDOM.
next_step() {
	local i o p w=("${FIXED[@]}")
	[[ -z ${SOAK_STEPS:-} ]] || read -ra w <<<"$SOAK_STEPS"
	if ((STEP <= ${#w[@]})); then
		IFS=: read -r N_IMP N_OP N_PAIR <<<"${w[STEP - 1]}"
		return 0
	fi
	[[ -z ${SOAK_STEPS:-} ]] || return 1
	((${#BAG[@]})) || { bag_fill; ROUND=$((ROUND + 1)); }
	i=${BAG[0]%.*} o=${BAG[0]#*.}
	BAG=("${BAG[@]:1}")
	N_IMP=${IMPS[i]} N_OP=${OPS[o]}
	for ((p = i + o + ROUND - 1; ; p++)); do
		N_PAIR=${PAIRS[p % ${#PAIRS[@]}]}
		[[ ${RXE_CANNOT[$N_PAIR:$N_IMP]:-} != *" $N_OP "* ]] && break
	done
}

# step_ok: N_IMP, N_OP and N_PAIR name known things.
step_ok() {
	[[ -n ${PAIR[$N_PAIR]:-} && -n ${BOUND[$N_OP]:-} && " ${IMPS[*]} " == *" $N_IMP "* ]]
}

# ---- summary -----------------------------------------------------------------

# ratio A B: A / B with two decimals, or n/a.
ratio() {
	if (($2)); then echo "$(($1 / $2)).$(printf '%02d' $(($1 * 100 / $2 % 100)))"; else echo n/a; fi
}

# figures C IMP: the counted runs' figures of class C (counted_as) under IMP.
figures() {
	local r=${R_RTX[$1:$2]:-0} l=${R_LOST[$1:$2]:-0}
	echo "lost $l, retransmitted $r of ${R_SENT[$1:$2]:-0} sent ($(ratio "$r" "$l") per lost packet)"
}

summary() {
	local imp rtx=0 lost=0 line
	for imp in "${IMPS[@]}"; do
		((${N_OPS[$imp]:-0})) || continue
		line="${N_OPS[$imp]} ops, ${N_FAIL[$imp]:-0} failed, ${N_STALL[$imp]:-0} stalls;"
		line+=" sroce-sroce: $(figures ss "$imp"); sroce to rdma_rxe: $(figures sr "$imp")"
		echo "t-86: $imp: $line"
		[[ " $LOSSY " == *" $imp "* ]] || continue
		rtx=$((rtx + ${R_RTX[ss:$imp]:-0})) lost=$((lost + ${R_LOST[ss:$imp]:-0}))
	done
	line="$ops operations, $fails failures, $stalls stalls; retransmits per lost packet"
	line+=" $(ratio $rtx $lost) ($rtx / $lost, sroce-sroce under $LOSSY);"
	line+=" ${#RAN[@]} of $((${#IMPS[@]} * ${#OPS[@]})) (impairment, operation) combinations"
	echo "t-86: summary: $line; seed $SEED, $((SECONDS - T0)) s"
	if ((ops == 0)); then
		fail soak/summary "no operation ran"
	elif ((lost == 0)); then
		skip soak/retransmits "nothing was lost in the sroce-sroce runs"
	elif ((rtx <= RATIO * lost)); then
		pass soak/retransmits "$(ratio $rtx $lost) per lost packet, limit $RATIO"
	else
		fail soak/retransmits "$(ratio $rtx $lost) per lost packet ($rtx / $lost), more than $RATIO"
	fi
}

# ---- the soak ----------------------------------------------------------------

require_sroce soak/modprobe-sroce && require_provider soak/provider || exit 1
if [[ ! -x $DATA ]]; then
	fail soak/build "tests/bin/rdma_data not built: run make -C tests/src on the host"
	exit 1
fi
if ! out=$(setup_two_netns 1500 2>&1 && sroce_bind sroce0 vethA 2>&1 &&
	sroce_bind sroce1 vethB 2>&1 && setup_rxe_and_netns_b 1500 2>&1 &&
	sroce_bind sroce2 vethRB 2>&1); then
	fail soak/setup "$out"
	exit 1
fi
DEVS=(sroce0 sroce1 sroce2 rxe0)
res_before=$(rdma_res_counts "${DEVS[@]}")
RANDOM=$SEED
echo "t-86: seed $SEED (replay: SOAK_SEED=$SEED), ${SECS}s${SOAK_STEPS:+, steps $SOAK_STEPS}"
# a step that would end past SOAK_SECS is passed over; the soak ends when
# a whole round of them was
T0=$SECONDS STEP=0 over=0 skipped=0
while ((over < ${#IMPS[@]} * ${#OPS[@]})) && STEP=$((STEP + 1)) && next_step; do
	if ! step_ok; then
		out="impairments: ${IMPS[*]}; operations: ${OPS[*]}; pairs: ${PAIRS[*]}"
		fail "soak/STEP-$STEP" "unknown step $N_IMP:$N_OP:$N_PAIR ($out)"
		continue
	fi
	est=${LONGEST[$N_OP:$N_IMP]:-$((EST[$N_OP] * $(slowness "$N_IMP" "$N_OP")))}
	if ((SECONDS - T0 + est > SECS)); then
		over=$((over + 1)) skipped=$((skipped + 1))
		continue
	fi
	over=0
	run_step "$N_IMP" "$N_OP" "$N_PAIR"
	if ((stalls >= MAX_STALLS)); then
		fail soak/stopped "$stalls stalls: the soak ends at step $STEP"
		break
	fi
done
impairment_set none 0
((skipped == 0)) || echo "t-86: $skipped steps passed over: each would have ended past SOAK_SECS"
summary

# the devices survived: nothing left over, and they still carry traffic
for ((i = 0; i < 20 * SLOW; i++)); do
	res_after=$(rdma_res_counts "${DEVS[@]}")
	[[ $res_after == "$res_before" ]] && break
	sleep 0.5
done
if [[ $res_after == "$res_before" ]]; then
	pass soak/no-leftover-objects "$res_after"
else
	fail soak/no-leftover-objects "before: $res_before; after: $res_after"
fi
PAIR_TIMEOUT=$((60 * SLOW)) rc_pingpong soak/survived/sroce0-sroce1 \
	B sroce1 "$B_IP4" A sroce0 "$A_IP4" -c -s 4096 -n 100
PAIR_TIMEOUT=$((60 * SLOW)) rc_pingpong soak/survived/sroce2-rxe0 \
	- rxe0 "$R_IP4" B sroce2 "$RB_IP4" -c -s 4096 -n 100
dmesg_clean soak/dmesg
