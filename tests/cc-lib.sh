# tests/cc-lib.sh: helpers of the congestion control tests (t-80-cc.sh,
# t-81-cc-fabric.sh) and of the congestion benchmark (tools/bench-cc.sh).
# Usage, in a script under tests/: source ./lib.sh; source ./cc-lib.sh
# shellcheck shell=bash disable=SC2034,SC2086
#   (the run helpers set results for their callers; knob rows split on purpose)
#
# Fabric (setup_cc_fabric): a sender, two routers and two receivers, so that
# the congested queue is a switch port, not the sender's own qdisc (a queue
# on the sender's netdev pushes back instead of dropping: sroce takes
# NET_XMIT_DROP/CN as backpressure and retries, nothing is lost):
#
#   A  vethA 198.18.4.1 --- vethMA 198.18.4.254  M  vethMS 198.18.6.1 ===+
#      (sroce0)                                                          |
#   +=== bottleneck: M's egress vethMS (tbf + a marking queue) =========+
#   |
#   +--- vethSM 198.18.6.2  S  vethSB 198.18.5.254 --- vethB 198.18.5.2  B (sroce1)
#                              vethSC 198.18.7.254 --- vethC 198.18.7.2  C (sroce2)
#
# Two receivers give per-flow counters (hw_counters are per device) for a
# fairness test of two flows from sroce0 through the one bottleneck.
# fabric_rxe_up adds rdma_rxe as another sender, in init_net (rxe's UDP
# socket lives there only): vethR 198.18.8.1 (rxe0) --- vethMR 198.18.8.254 M.
#
# The qdiscs and classifiers (sch_tbf sch_plug sch_prio sch_ingress cls_u32
# sch_red act_gact; netem and fq_codel too) are in the VM image: scripts/vm's
# MODULES. cc_mods tries modprobe, then insmod from `scripts/vm --add DIR`
# (the guest's /add/DIR/*.ko) for a guest kernel built without them.

CC_A_IP4=198.18.4.1 CC_B_IP4=198.18.5.2 CC_C_IP4=198.18.7.2
CC_BN_NS=M CC_BN_DEV=vethMS            # the bottleneck port
CC_BW_PORT=${CC_BW_PORT:-19500}        # next TCP port of bw_server
RDMA_DATA=${RDMA_DATA:-$PWD/bin/rdma_data}

# knob table: DIR/NAME MIN MAX DEFAULT (sroce_cc_knobs.c, sroce_cc_knobs[])
CC_KNOBS=(
	"roce_np/enable 0 1 1"
	"roce_np/cnp_interval_us 0 1000000 50"
	"roce_np/cnp_dscp 0 63 48"
	"roce_np/cnp_prio 0 7 6"
	"roce_rp/enable 0 1 1"
	"roce_rp/ecn_enable 0 1 1"
	"roce_rp/g_shift 1 16 8"
	"roce_rp/alpha_update_period_us 1 1000000 55"
	"roce_rp/rate_increase_period_us 1 1000000 55"
	"roce_rp/byte_counter 0 1073741824 10485760"
	"roce_rp/fast_recovery_steps 0 255 5"
	"roce_rp/ai_rate_mbps 1 800000 40"
	"roce_rp/hai_rate_mbps 1 800000 100"
	"roce_rp/min_rate_mbps 1 800000 10"
	"roce_rp/max_rate_mbps 0 800000 0"
)

# cc_mods MOD...: load kernel modules; prints the missing ones and returns 1
# when one could not be loaded.
cc_mods() {
	local m f missing=()
	for m in "$@"; do
		grep -q "^$m " /proc/modules && continue
		"$MODPROBE" "$m" 2>/dev/null && continue
		for f in /add/"$m".ko /add/*/"$m".ko; do
			[[ -f $f ]] && insmod "$f" 2>/dev/null && break
		done
		grep -q "^$m " /proc/modules || missing+=("$m")
	done
	((${#missing[@]} == 0)) && return 0
	echo "${missing[*]}"
	return 1
}

# need_mods NAME MOD...: cc_mods, or SKIP NAME naming what is missing.
need_mods() {
	local name=$1 miss
	shift
	miss=$(cc_mods "$@") && return 0
	skip "$name" "qdisc/classifier modules not in the VM: $miss (scripts/vm MODULES, or scripts/vm --add DIR with their .ko)"
	return 1
}

# cnt DEV NAME: a hw_counters counter of port 1 of ib device DEV.
cnt() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"; }

# cnts DEV: DEV's non-zero counters on one line.
cnts() {
	(cd "/sys/class/infiniband/$1/ports/1/hw_counters" && grep -v ':0$' ./* | sed 's|^\./||' | tr '\n' ' ')
}

# snap TAG DEV...: remember every counter of each DEV; dlt TAG DEV NAME then
# prints how much NAME grew since; dlts TAG DEV prints the non-zero deltas.
declare -A SNAP
snap() {
	local tag=$1 d f
	shift
	for d in "$@"; do
		for f in /sys/class/infiniband/"$d"/ports/1/hw_counters/*; do
			SNAP[$tag/$d/${f##*/}]=$(cat "$f")
		done
	done
}
dlt() { echo $(($(cnt "$2" "$3") - ${SNAP[$1/$2/$3]:-0})); }
dlts() {
	local f n v
	for f in /sys/class/infiniband/"$2"/ports/1/hw_counters/*; do
		n=${f##*/}
		v=$(($(cat "$f") - ${SNAP[$1/$2/$n]:-0}))
		((v)) && printf '%s:%d ' "$n" "$v"
	done
	echo
}

# knob DEV DIR/NAME [VALUE]: read, or write, a cc/ knob of DEV.
knob() {
	local f=/sys/class/infiniband/$1/cc/$2
	if (($# > 2)); then echo "$3" >"$f"; else cat "$f"; fi
}

# knobs_default DEV...: every knob of each DEV back to its default.
knobs_default() {
	local d k
	for d in "$@"; do
		for k in "${CC_KNOBS[@]}"; do
			set -- $k
			knob "$d" "$1" "$4"
		done
	done
}

# knobs_fabric SENDER RECEIVER...: DCQCN scaled to the 20 Mb/s fabric of
# TCG (the defaults are the paper's, for 40 Gb/s links and µs round trips;
# here a round trip takes milliseconds): a 200 Mb/s ceiling (what the VM can
# send), 5 ms rate and alpha timers, R_AI 1 Mb/s, R_HAI 5 Mb/s, no byte
# counter, g = 1/16, a 1 Mb/s floor; receivers send a CNP at most every
# 5 ms per QP. Each value can be overridden from the environment.
knobs_fabric() {
	local s=$1 r
	shift
	knob "$s" roce_rp/max_rate_mbps "${CC_MAX_MBPS:-200}"
	knob "$s" roce_rp/rate_increase_period_us "${CC_RATE_PERIOD_US:-5000}"
	knob "$s" roce_rp/alpha_update_period_us "${CC_ALPHA_PERIOD_US:-5000}"
	knob "$s" roce_rp/ai_rate_mbps "${CC_AI_MBPS:-1}"
	knob "$s" roce_rp/hai_rate_mbps "${CC_HAI_MBPS:-5}"
	knob "$s" roce_rp/byte_counter "${CC_BYTE_COUNTER:-0}"
	knob "$s" roce_rp/g_shift "${CC_G_SHIFT:-4}"
	knob "$s" roce_rp/min_rate_mbps "${CC_MIN_MBPS:-1}"
	for r in "$@"; do
		knob "$r" roce_np/cnp_interval_us "${CC_CNP_INTERVAL_US:-5000}"
	done
}

# rps_pin NS DEV...: receive processing of each DEV on CPU 0 (RPS). A veth
# hands a packet to the backlog of the CPU that sent it, and the next hop
# processes the backlogs of both vCPUs at once: packets of one flow that
# were sent (or dequeued from a qdisc) on different CPUs overtake each
# other at every hop, each time costing sroce a NAK and a go-back-N. A
# switch does not reorder; one CPU per receiving veth makes the fabric
# keep the order too.
rps_pin() {
	local ns=$1 d
	shift
	for d in "$@"; do
		in_ns "$ns" sh -c "for q in /sys/class/net/$d/queues/rx-*; do echo 1 >\$q/rps_cpus; done" || return 1
	done
}

# ns_addr NS DEV ADDR/LEN: address and up.
ns_addr() { "$IP" -n "$1" addr add "$3" dev "$2" && "$IP" -n "$1" link set dev "$2" up; }

# setup_cc_fabric [MTU]: netns A, M, S, B and C as drawn above (no rdma
# devices, no qdisc); A reaches B and C through M and S; RPS pinned.
setup_cc_fabric() {
	local mtu=${1:-1500} n
	for n in A M S B C; do "$IP" netns add "$n" || return 1; done
	"$IP" link add vethA netns A mtu "$mtu" type veth peer name vethMA netns M mtu "$mtu" &&
	"$IP" link add vethMS netns M mtu "$mtu" type veth peer name vethSM netns S mtu "$mtu" &&
	"$IP" link add vethSB netns S mtu "$mtu" type veth peer name vethB netns B mtu "$mtu" &&
	"$IP" link add vethSC netns S mtu "$mtu" type veth peer name vethC netns C mtu "$mtu" &&
	ns_addr A vethA 198.18.4.1/24 && ns_addr M vethMA 198.18.4.254/24 &&
	ns_addr M vethMS 198.18.6.1/24 && ns_addr S vethSM 198.18.6.2/24 &&
	ns_addr S vethSB 198.18.5.254/24 && ns_addr B vethB 198.18.5.2/24 &&
	ns_addr S vethSC 198.18.7.254/24 && ns_addr C vethC 198.18.7.2/24 || return 1
	for n in A M S B C; do "$IP" -n "$n" link set dev lo up || return 1; done
	"$IP" -n A route add default via 198.18.4.254 &&
	"$IP" -n B route add default via 198.18.5.254 &&
	"$IP" -n C route add default via 198.18.7.254 &&
	"$IP" -n M route add 198.18.5.0/24 via 198.18.6.2 &&
	"$IP" -n M route add 198.18.7.0/24 via 198.18.6.2 &&
	"$IP" -n S route add 198.18.4.0/24 via 198.18.6.1 || return 1
	for n in M S; do in_ns "$n" sh -c 'echo 1 >/proc/sys/net/ipv4/ip_forward' || return 1; done
	rps_pin A vethA && rps_pin M vethMA vethMS && rps_pin S vethSM vethSB vethSC &&
	rps_pin B vethB && rps_pin C vethC || return 1
	in_ns A ping -c 1 -W 5 "$CC_B_IP4" >/dev/null && in_ns A ping -c 1 -W 5 "$CC_C_IP4" >/dev/null
}

# bottleneck RATE_MBIT [step|none]: on M's port toward S a token bucket of
# RATE_MBIT Mb/s (tbf) over one FIFO (fq_codel with one flow queue of
# CC_Q_LIMIT packets, default 1000) that marks CE on ECT packets that waited
# more than CC_CE_THRESHOLD (default 10 ms): step marking on the queue delay
# at dequeue, as DCQCN's switches do (K_min = K_max). Not-ECT packets meet
# CoDel instead: dropped once the delay stays above 5 ms for 100 ms. (With
# sroce's window of 256 packets one flow cannot fill 1000 packets: there
# is no tail drop, the queue's length is what the sender's rate makes it.)
# "none" removes it.
bottleneck() {
	local rate=$1 kind=${2:-step}
	in_ns "$CC_BN_NS" tc qdisc del dev "$CC_BN_DEV" root 2>/dev/null
	[[ $kind == none ]] && return 0
	# fq_codel marks CE on each packet, not a batch's head (CC_BATCH=1:
	# leave batches on, to measure what they do to DCQCN)
	[[ ${CC_BATCH:-0} == 1 ]] || per_packet_tc
	in_ns "$CC_BN_NS" tc qdisc add dev "$CC_BN_DEV" root handle 1: tbf rate "${rate}mbit" \
		burst "${CC_TBF_BURST:-32kb}" limit 1mb &&
	in_ns "$CC_BN_NS" tc qdisc add dev "$CC_BN_DEV" parent 1:1 handle 10: fq_codel \
		flows 1 limit "${CC_Q_LIMIT:-1000}" ce_threshold "${CC_CE_THRESHOLD:-10ms}" ecn
}

# qdisc_drops NS DEV / qdisc_bytes NS DEV: packets dropped / bytes sent by
# DEV's root qdisc (its children included).
qdisc_field() {
	in_ns "$1" tc -s qdisc show dev "$2" | awk -v f="$3" '/^qdisc/ { r = ($0 ~ / root /) }
		r && / Sent / { gsub(/[,()]/, ""); for (i = 2; i < NF; i++) if ($i == f) { print (f == "bytes" ? $(i - 1) : $(i + 1)); exit } }'
}
qdisc_drops() { qdisc_field "$1" "$2" dropped; }
qdisc_bytes() { qdisc_field "$1" "$2" bytes; }

# qdisc_brief NS DEV: DEV's qdiscs and their counters, on one line.
qdisc_brief() {
	in_ns "$1" tc -s qdisc show dev "$2" | awk '/^qdisc/ { printf "%s%s %s:", s, $2, $3; s = "; " }
		/ Sent / { gsub(/[,()]/, ""); printf " %s B %s pkt dropped %s overlimits %s", $2, $4, $7, $9 }
		/ecn_mark/ { for (i = 1; i < NF; i++) if ($i == "ecn_mark") printf " ecn_mark %s", $(i + 1) }
		/ce_mark/ { for (i = 1; i < NF; i++) if ($i == "ce_mark") printf " ce_mark %s", $(i + 1) }
		END { print "" }'
}

# rx_mark DEV / rx_mbps DEV PAYLOAD (rx_kbps: in kb/s): in-order payload delivered to responder
# DEV since rx_mark, Mb/s: packets received minus duplicates and
# out-of-sequence ones (each new request packet carries PAYLOAD bytes, the
# path MTU, for RDMA WRITEs of a multiple of it), over the wall time.
declare -A RX_T RX_N
rx_new() { echo $(($(cnt "$1" rcvd_pkts) - $(cnt "$1" duplicate_request) - $(cnt "$1" out_of_seq_request))); }
rx_mark() { RX_T[$1]=${EPOCHREALTIME/./}; RX_N[$1]=$(rx_new "$1"); }
rx_kbps() {
	local dt=$((${EPOCHREALTIME/./} - RX_T[$1]))
	echo $((($(rx_new "$1") - RX_N[$1]) * $2 * 8000 / dt))
}
rx_mbps() { echo $(($(rx_kbps "$@") / 1000)); }

# lf TAG: the log file prefix of TAG ($LOG_DIR/TAG with / -> _).
lf() { echo "$LOG_DIR/${1//\//_}"; }

# bw_server TAG NS DEV IP ARGS... / bw_client TAG NS DEV SERVER_IP IP ARGS...:
# one side of an ib_write_bw pair in the background (-F --report_gbits, the
# RoCE v2 GID of the device's address, TCP port chosen by bw_server), under
# a timeout of BW_TIMEOUT s (default 90); logs in $(lf TAG).{server,client}.log.
# bw_start TAG SRV_NS SDEV SIP CLI_NS CDEV CIP ARGS... does both (the client
# once the server listens); bw_wait TAG waits for both: 0 when both exit 0.
declare -A BW_SPID BW_CPID BW_PORT BW_T0 BW_T1
bw_server() {
	local tag=$1 ns=$2 dev=$3 ip=$4 g
	shift 4
	BW_PORT[$tag]=$CC_BW_PORT
	CC_BW_PORT=$((CC_BW_PORT + 1))
	g=$(gid_index "$dev" "$ip") || return 1
	in_ns "$ns" timeout -k 5 "${BW_TIMEOUT:-90}" ib_write_bw -d "$dev" -x "$g" -F -p "${BW_PORT[$tag]}" \
		--report_gbits "$@" >"$(lf "$tag").server.log" 2>&1 &
	BW_SPID[$tag]=$!
	local i
	for ((i = 0; i < 100; i++)); do
		tcp_listening "$ns" "${BW_PORT[$tag]}" && return 0
		kill -0 "${BW_SPID[$tag]}" 2>/dev/null || break
		sleep 0.1
	done
	echo "bw_server $tag: not listening" >&2
	return 1
}
bw_client() {
	local tag=$1 ns=$2 dev=$3 sip=$4 cip=$5 g
	shift 5
	g=$(gid_index "$dev" "$cip") || return 1
	BW_T0[$tag]=${EPOCHREALTIME/./}
	in_ns "$ns" timeout -k 5 "${BW_TIMEOUT:-90}" ib_write_bw -d "$dev" -x "$g" -F -p "${BW_PORT[$tag]}" \
		--report_gbits "$@" "$sip" >"$(lf "$tag").client.log" 2>&1 &
	BW_CPID[$tag]=$!
}
bw_start() {
	local tag=$1 sns=$2 sdev=$3 sip=$4 cns=$5 cdev=$6 cip=$7
	shift 7
	bw_server "$tag" "$sns" "$sdev" "$sip" "$@" && bw_client "$tag" "$cns" "$cdev" "$sip" "$cip" "$@"
}
bw_wait() {
	local c s
	wait_pid "${BW_CPID[$1]}" $((${BW_TIMEOUT:-90} + 10)); c=$?
	BW_T1[$1]=${EPOCHREALTIME/./}
	wait_pid "${BW_SPID[$1]}" 15; s=$?
	if kill -0 "${BW_SPID[$1]}" 2>/dev/null; then kill_perf; wait_pid "${BW_SPID[$1]}" 5; fi
	((c == 0 && s == 0)) && return 0
	BW_WHY="client rc=$c server rc=$s"
	return 1
}

# bw_log TAG: the tail of a pair's logs (for a FAIL).
bw_log() {
	grep -vE '^ *(-+|\*+)?$' "$(lf "$1").client.log" | tail -n 3 | sed 's/^/    client| /'
	grep -vE '^ *(-+|\*+)?$' "$(lf "$1").server.log" | tail -n 2 | sed 's/^/    server| /'
}

# qp_cc DEV [COMM]: "lqpn rate target alpha limited" of each QP of DEV owned
# by process COMM (default ib_write_bw), from `rdma -dd resource show qp`.
qp_cc() {
	"$RDMA" -dd resource show qp link "$1/1" 2>/dev/null | awk -v c="${2:-ib_write_bw}" '
		{ for (i = 1; i < NF; i++) v[$i] = $(i + 1) }
		v["comm"] == c && v["drv_cc_rate_mbps"] != "" { print v["lqpn"], v["drv_cc_rate_mbps"], v["drv_cc_target_mbps"], v["drv_cc_alpha"], v["drv_cc_limited"] }
		{ delete v }'
}

# rates_start DEV OUT / rates_stop: sample qp_cc DEV every 0.2 s in the
# background into OUT, one "lqpn rate target alpha limited" line per QP.
rates_start() {
	: >"$2"
	(while :; do qp_cc "$1" >>"$2"; sleep 0.2; done) &
	RATES_PID=$!
}
rates_stop() { kill "$RATES_PID" 2>/dev/null; wait "$RATES_PID" 2>/dev/null; series_stop; }

# series_start OUT SENDER RECEIVER...: only when CC_SERIES is set (the
# benchmark's plots; the timed tests leave it unset): sample every 0.2 s
# into OUT, with the ms since the start, "T queue PACKETS" (the bottleneck's
# backlog), "T rx-DEV PACKETS" (each receiver's new in-order packets, a
# running count) and "T qpLQPN MBPS" (each sender QP's DCQCN rate, sroce).
# rates_stop ends it.
SERIES_PID=
series_start() {
	[[ -n ${CC_SERIES:-} ]] || return 0
	local out=$1 snd=$2 d
	shift 2
	: >"$out"
	(t0=${EPOCHREALTIME/./}
	while :; do
		t=$(((${EPOCHREALTIME/./} - t0) / 1000))
		echo "$t queue $(qdisc_backlog)"
		for d in "$@"; do echo "$t rx-$d $(rx_new "$d")"; done
		qp_cc "$snd" | awk -v t="$t" '{ print t, "qp" $1, $2 }'
		sleep 0.2
	done >>"$out") &
	SERIES_PID=$!
}
series_stop() {
	[[ -n $SERIES_PID ]] || return 0
	kill "$SERIES_PID" 2>/dev/null; wait "$SERIES_PID" 2>/dev/null
	SERIES_PID=
}

# qdisc_backlog: packets queued at the bottleneck now.
qdisc_backlog() {
	in_ns "$CC_BN_NS" tc -s qdisc show dev "$CC_BN_DEV" | awk '/backlog/ { sub(/p$/, "", $3); print $3; exit }'
}

# qlen_start OUT / qlen_stop: sample the packets queued at the bottleneck
# every 0.2 s in the background into OUT, one number per line.
qlen_start() {
	: >"$1"
	(while :; do qdisc_backlog >>"$1"; sleep 0.2; done) &
	QLEN_PID=$!
}
qlen_stop() { kill "$QLEN_PID" 2>/dev/null; wait "$QLEN_PID" 2>/dev/null; }

# stats FILE COLUMN: "n min median max" of a column.
stats() {
	awk -v c="$2" '{ print $c }' "$1" | sort -n | awk '{ v[NR] = $1 } END {
		if (NR) printf "%d %s %s %s\n", NR, v[1], v[int((NR + 1) / 2)], v[NR]; else print "0 - - -" }'
}

# jain X...: Jain's fairness index (sum x)^2 / (n sum x^2), 3 decimals.
jain() {
	printf '%s\n' "$@" | awk '{ s += $1; q += $1 * $1; n++ } END { if (q > 0) printf "%.3f\n", s * s / (n * q); else print "0.000" }'
}

# ge A B: is A >= B (decimals)?
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }

# --- runs through the fabric (t-81, tools/bench-cc.sh) -------------------------
# Settings: CC_RATE (bottleneck Mb/s, default 20), CC_SECS (seconds per run,
# default 12).

# fabric_up: reset, the fabric with sroce0 (A), sroce1 (B), sroce2 (C),
# knobs_fabric; MTU 9000 (4 KiB packets: a quarter of TCG's per-packet work
# at a given rate).
fabric_up() {
	reset_state
	setup_cc_fabric 9000 && sroce_bind sroce0 vethA && sroce_bind sroce1 vethB &&
		sroce_bind sroce2 vethC && knobs_fabric sroce0 sroce1 sroce2
}
CC_PAY=4096   # payload of a full packet at path MTU 4096

# link_mark / link_mbps: Mb/s through the bottleneck since link_mark.
link_mark() { LINK_T=${EPOCHREALTIME/./} LINK_B=$(qdisc_bytes $CC_BN_NS $CC_BN_DEV); }
link_mbps() { echo $((($(qdisc_bytes $CC_BN_NS $CC_BN_DEV) - LINK_B) * 8 / (${EPOCHREALTIME/./} - LINK_T))); }

# flow_run TAG: ib_write_bw -s 65536 -D CC_SECS (ACK timeout 1 s) sroce0 ->
# sroce1 through a fresh bottleneck (snap TAG first). Sets GP (Mb/s in order
# at sroce1 from 4 s after the start to 2 s before the end; GPK in kb/s) and LINK (Mb/s
# through the bottleneck, same window), DROPS (the bottleneck's), SENT and
# RETX (sroce0's), QMED and QMAX (packets queued at the bottleneck, median
# and largest of samples every 0.2 s in the window), rates of sroce0's QP
# in $(lf TAG).rates; prints the counters. Returns 1 (FAIL TAG/run) when the pair failed.
flow_run() {
	local tag=$1 rc secs=${CC_SECS:-12}
	GP=0 GPK=0 LINK=0
	bottleneck "${CC_RATE:-20}" step || { fail "$tag/setup" "tc tbf/fq_codel failed"; return 1; }
	snap "$tag" sroce0 sroce1
	rates_start sroce0 "$(lf "$tag").rates"
	series_start "$(lf "$tag").series" sroce0 sroce1
	if bw_start "$tag" B sroce1 "$CC_B_IP4" A sroce0 "$CC_A_IP4" -s 65536 -D "$secs" -u 18; then
		sleep 4; rx_mark sroce1; link_mark; qlen_start "$(lf "$tag").qlen"
		sleep $((secs - 6)); GPK=$(rx_kbps sroce1 $CC_PAY) LINK=$(link_mbps)
		GP=$((GPK / 1000))
		qlen_stop
		bw_wait "$tag"
	else
		false
	fi
	rc=$?
	rates_stop
	read -r _ _ QMED QMAX <<<"$(stats "$(lf "$tag").qlen" 1)"
	DROPS=$(qdisc_drops $CC_BN_NS $CC_BN_DEV) SENT=$(dlt "$tag" sroce0 sent_pkts) RETX=$(dlt "$tag" sroce0 retransmits)
	echo "  $tag: goodput $GP Mb/s, bottleneck link $LINK Mb/s, queue median $QMED max $QMAX packets; $(qdisc_brief $CC_BN_NS $CC_BN_DEV)"
	echo "  $tag: sroce0 $(dlts "$tag" sroce0)| sroce1 $(dlts "$tag" sroce1)"
	((rc == 0)) && return 0
	fail "$tag/run" "ib_write_bw: ${BW_WHY:-could not start}"
	bw_log "$tag"
	return 1
}

# Sender of flows2_run: netns, ib device, address (default sroce0 in A;
# fabric_rxe_up adds rdma_rxe's rxe0 in init_net, "-", as another one).
CC_SND_NS=A CC_SND_DEV=sroce0 CC_SND_IP=$CC_A_IP4

# flows2_run TAG [STAGGER]: two ib_write_bw flows through a fresh
# bottleneck from the sender CC_SND_DEV (sroce0 unless set): to sroce1 (B),
# then STAGGER s later (default 5) to sroce2 (C), which must take its share
# from the first; both end together, CC_SECS + 6 s after the second started
# (snap TAG first). Each flow is its own QP, with its own DCQCN state: for
# congestion control that is two senders. Sets G1, G2 (Mb/s in order at
# each receiver from 5 s after the second flow started to 3 s before the
# end; K1, K2 the same in kb/s), LINK, JAIN (Jain's index of K1, K2), DROPS (the bottleneck's),
# SENT (the sender's packets), RX (new in-order packets at both receivers,
# whole run), QMED and QMAX (packets queued at the bottleneck in the
# window); rates of the sender's QPs in $(lf TAG).rates (none for rxe).
# Returns 1 (FAIL TAG/run) when a pair failed.
flows2_run() {
	local t=$1 st=${2:-5} ok=1 secs=$((${CC_SECS:-12} + 6)) a=(-s 65536 -u 18)
	local ns=$CC_SND_NS dev=$CC_SND_DEV ip=$CC_SND_IP rx1 rx2
	G1=0 G2=0 K1=0 K2=0 LINK=0 JAIN=0 QMED=- QMAX=-
	bottleneck "${CC_RATE:-20}" step || { fail "$t/setup" "tc tbf/fq_codel failed"; return 1; }
	snap "$t" "$dev" sroce1 sroce2
	rx1=$(rx_new sroce1) rx2=$(rx_new sroce2)
	rates_start "$dev" "$(lf "$t").rates"
	series_start "$(lf "$t").series" "$dev" sroce1 sroce2
	bw_server "$t-1" B sroce1 "$CC_B_IP4" "${a[@]}" -D $((secs + st)) &&
	bw_server "$t-2" C sroce2 "$CC_C_IP4" "${a[@]}" -D "$secs" &&
	bw_client "$t-1" "$ns" "$dev" "$CC_B_IP4" "$ip" "${a[@]}" -D $((secs + st)) &&
	sleep "$st" &&
	bw_client "$t-2" "$ns" "$dev" "$CC_C_IP4" "$ip" "${a[@]}" -D "$secs" || ok=''
	if [[ -n $ok ]]; then
		sleep 5; rx_mark sroce1; rx_mark sroce2; link_mark; qlen_start "$(lf "$t").qlen"
		sleep $((secs - 8))
		K1=$(rx_kbps sroce1 $CC_PAY) K2=$(rx_kbps sroce2 $CC_PAY) LINK=$(link_mbps)
		G1=$((K1 / 1000)) G2=$((K2 / 1000))
		qlen_stop
		read -r _ _ QMED QMAX <<<"$(stats "$(lf "$t").qlen" 1)"
		bw_wait "$t-1" || { ok=''; fail "$t/run" "flow 1: $BW_WHY"; bw_log "$t-1"; }
		bw_wait "$t-2" || { ok=''; fail "$t/run" "flow 2: $BW_WHY"; bw_log "$t-2"; }
	else
		fail "$t/run" "could not start"
		kill_perf
	fi
	rates_stop
	JAIN=$(jain "$K1" "$K2")
	DROPS=$(qdisc_drops $CC_BN_NS $CC_BN_DEV) SENT=$(dlt "$t" "$dev" sent_pkts)
	RX=$(($(rx_new sroce1) - rx1 + $(rx_new sroce2) - rx2))
	echo "  $t: goodput $G1 + $G2 Mb/s, bottleneck link $LINK Mb/s, queue median $QMED max $QMAX packets; $(qdisc_brief $CC_BN_NS $CC_BN_DEV)"
	echo "  $t: $dev $(dlts "$t" "$dev")| sroce1 $(dlts "$t" sroce1)| sroce2 $(dlts "$t" sroce2)"
	echo "  $t: mean drv_cc_rate_mbps per QP: $(awk '{ s[$1] += $2; n[$1]++ } END { for (q in s) printf "qp %s %.1f (%d samples) ", q, s[q] / n[q], n[q] }' "$(lf "$t").rates")"
	[[ -n $ok ]]
}

# fabric_rxe_up: fabric_up, plus a sender host in init_net (rdma_rxe's UDP
# socket lives there only) joined to the switch M like A:
#   init_net vethR 198.18.8.1 (rxe0) --- vethMR 198.18.8.254  M
# so that rxe0 -> sroce1/sroce2 crosses the same bottleneck. rxe has no
# congestion control: it sends Not-ECT (its traffic class 0), the
# bottleneck drops instead of marking, no CNP is sent.
CC_R_IP4=198.18.8.1
fabric_rxe_up() {
	fabric_up &&
	"$IP" link add vethR mtu 9000 type veth peer name vethMR netns M mtu 9000 &&
	"$IP" addr add "$CC_R_IP4/24" dev vethR && "$IP" link set dev vethR up &&
	ns_addr M vethMR 198.18.8.254/24 &&
	"$IP" route add 198.18.5.0/24 via 198.18.8.254 &&
	"$IP" route add 198.18.7.0/24 via 198.18.8.254 &&
	"$IP" -n S route add 198.18.8.0/24 via 198.18.6.1 &&
	rps_pin - vethR && rps_pin M vethMR &&
	ping -c 1 -W 5 "$CC_B_IP4" >/dev/null && ping -c 1 -W 5 "$CC_C_IP4" >/dev/null &&
	"$MODPROBE" rdma_rxe && "$RDMA" link add rxe0 type rxe netdev vethR
}
