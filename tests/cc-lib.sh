# tests/cc-lib.sh: helpers of the congestion control tests (t-80-cc.sh,
# t-81-cc-bottleneck.sh) and of the congestion benchmark (bench-cc.sh).
# Usage: source ./lib.sh, then source ./cc-lib.sh (bash, inside the VM).
#
# Routed topology (setup_cc_routed), a software switch in netns M:
#   netns A  vethA 198.18.4.1/24  <->  vethMA 198.18.4.254  netns M
#   netns M  vethMB 198.18.5.254  <->  vethB 198.18.5.2/24  netns B
# M forwards; A and B route each other's subnet through it. A queue on
# vethMB (M's egress toward B) is a switch port: what it drops is lost on
# the wire (the sender's own qdisc, by contrast, pushes back: sroce sees
# NET_XMIT_DROP/CN as backpressure and retries).
#
# Qdiscs and classifiers other than netem and fq_codel are not in the VM's
# base image: cc_mods loads them with modprobe, or with insmod from a
# directory given with `scripts/vm --add DIR` (the guest's /add/DIR/*.ko),
# e.g. with the ones of the guest kernel:
#   mkdir /tmp/qmods; cp /var/cache/sroce/kernel/lib/modules/*/kernel/net/sched/{sch_tbf,sch_red,sch_plug,sch_prio,cls_u32,sch_ingress}.ko /tmp/qmods
#   scripts/vm --add /tmp/qmods tests/run t-81-cc-bottleneck.sh

CC_A_IP4=198.18.4.1 CC_MA_IP4=198.18.4.254 CC_MB_IP4=198.18.5.254 CC_B_IP4=198.18.5.2
CC_KNOBS_NP=(enable cnp_interval_us cnp_dscp cnp_prio)
CC_KNOBS_RP=(enable ecn_enable g_shift alpha_update_period_us rate_increase_period_us
	byte_counter fast_recovery_steps ai_rate_mbps hai_rate_mbps min_rate_mbps max_rate_mbps)
CC_BW_PORT=${CC_BW_PORT:-19500}    # next TCP port of bw_start

# cc_mods MOD...: load kernel modules (qdiscs, classifiers); prints the
# missing ones and returns 1 when one could not be loaded.
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

# cnt DEV NAME: a hw_counters counter of port 1 of ib device DEV.
cnt() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"; }

# cnts DEV: the non-zero counters of DEV on one line.
cnts() {
	(cd "/sys/class/infiniband/$1/ports/1/hw_counters" && grep -v ':0$' ./* | sed 's|^\./||' | tr '\n' ' ')
}

# knob DEV DIR/NAME [VALUE]: read, or write, a cc/ knob of DEV.
knob() {
	local f=/sys/class/infiniband/$1/cc/$2
	if (($# > 2)); then echo "$3" >"$f"; else cat "$f"; fi
}

# knobs_default DEV...: every knob back to its default.
knobs_default() {
	local d
	for d in "$@"; do
		knob "$d" roce_np/enable 1; knob "$d" roce_np/cnp_interval_us 50
		knob "$d" roce_np/cnp_dscp 48; knob "$d" roce_np/cnp_prio 6
		knob "$d" roce_rp/enable 1; knob "$d" roce_rp/ecn_enable 1
		knob "$d" roce_rp/g_shift 8; knob "$d" roce_rp/alpha_update_period_us 55
		knob "$d" roce_rp/rate_increase_period_us 55
		knob "$d" roce_rp/byte_counter 10485760; knob "$d" roce_rp/fast_recovery_steps 5
		knob "$d" roce_rp/ai_rate_mbps 40; knob "$d" roce_rp/hai_rate_mbps 100
		knob "$d" roce_rp/min_rate_mbps 10; knob "$d" roce_rp/max_rate_mbps 0
	done
}

# knobs_slow_fabric DEV: DCQCN scaled down to a fabric of tens of Mb/s (the
# defaults are the paper's, for 40 Gb/s): 1 ms timers, R_AI 2 Mb/s,
# R_HAI 10 Mb/s, byte counter 256 KiB, floor 2 Mb/s.
knobs_slow_fabric() {
	knob "$1" roce_rp/rate_increase_period_us "${CC_RATE_PERIOD_US:-1000}"
	knob "$1" roce_rp/alpha_update_period_us "${CC_ALPHA_PERIOD_US:-1000}"
	knob "$1" roce_rp/ai_rate_mbps "${CC_AI_MBPS:-2}"
	knob "$1" roce_rp/hai_rate_mbps "${CC_HAI_MBPS:-10}"
	knob "$1" roce_rp/byte_counter "${CC_BYTE_COUNTER:-262144}"
	knob "$1" roce_rp/min_rate_mbps "${CC_MIN_MBPS:-2}"
}

# setup_cc_routed [MTU]: netns A, M (router) and B as drawn above.
setup_cc_routed() {
	local mtu=${1:-1500}
	"$IP" netns add A && "$IP" netns add M && "$IP" netns add B &&
	"$IP" link add vethA netns A mtu "$mtu" type veth peer name vethMA netns M mtu "$mtu" &&
	"$IP" link add vethMB netns M mtu "$mtu" type veth peer name vethB netns B mtu "$mtu" &&
	"$IP" -n A addr add "$CC_A_IP4/24" dev vethA &&
	"$IP" -n M addr add "$CC_MA_IP4/24" dev vethMA &&
	"$IP" -n M addr add "$CC_MB_IP4/24" dev vethMB &&
	"$IP" -n B addr add "$CC_B_IP4/24" dev vethB &&
	for l in A/vethA A/lo M/vethMA M/vethMB M/lo B/vethB B/lo; do
		"$IP" -n "${l%/*}" link set dev "${l#*/}" up || return 1
	done &&
	"$IP" -n A route add 198.18.5.0/24 via "$CC_MA_IP4" &&
	"$IP" -n B route add 198.18.4.0/24 via "$CC_MB_IP4" &&
	"$IP" netns exec M sh -c 'echo 1 >/proc/sys/net/ipv4/ip_forward' &&
	in_ns A ping -c 1 -W 5 "$CC_B_IP4" >/dev/null
}

# bottleneck RATE_MBIT [ecn|noecn-red|codel|none]: a rate limit (tbf) on
# M's port toward B with a marking queue under it: RED marking CE between
# CC_RED_MIN and CC_RED_MAX bytes of average queue (ECT packets; Not-ECT
# ones are dropped there), as a DCQCN switch does with Kmin/Kmax/Pmax.
bottleneck() {
	local rate=$1 kind=${2:-ecn}
	local min=${CC_RED_MIN:-20000} max=${CC_RED_MAX:-60000} lim=${CC_Q_LIMIT:-400000}
	in_ns M tc qdisc del dev vethMB root 2>/dev/null
	[[ $kind == none ]] && return 0
	in_ns M tc qdisc add dev vethMB root handle 1: tbf rate "${rate}mbit" \
		burst "${CC_TBF_BURST:-16kb}" limit "$lim" || return 1
	case $kind in
	ecn) in_ns M tc qdisc add dev vethMB parent 1:1 handle 10: red limit "$lim" \
		min "$min" max "$max" avpkt "${CC_AVPKT:-1100}" burst $(((2 * min + max) / (3 * ${CC_AVPKT:-1100}))) \
		probability "${CC_RED_PMAX:-0.1}" bandwidth "${rate}mbit" ecn ;;
	codel) in_ns M tc qdisc add dev vethMB parent 1:1 handle 10: fq_codel \
		limit 1000 ce_threshold "${CC_CE_THRESHOLD:-2ms}" ecn ;;
	esac
}

# qdisc_stats NS DEV: the statistics lines of DEV's qdiscs, condensed.
qdisc_stats() {
	in_ns "$1" tc -s qdisc show dev "$2" | awk '/^qdisc/ { q = $2 } / Sent / { printf "%s: sent %s pkts %s dropped %s overlimits %s; ", q, $2, $4, $7, $9 } /marked/ { printf "%s: %s; ", q, $0 }' | tr -s ' ,)'
}

# qdisc_drops NS DEV: packets dropped by DEV's root qdisc (children included).
qdisc_drops() {
	in_ns "$1" tc -s qdisc show dev "$2" | awk '/^qdisc/ { r = ($0 ~ / root /) } r && / Sent / { gsub(/,/, ""); print $7; exit }'
}

# red_marked NS DEV: packets marked CE by the RED qdisc on DEV.
red_marked() {
	in_ns "$1" tc -s qdisc show dev "$2" | awk '/marked/ { for (i = 1; i < NF; i++) if ($i == "marked") print $(i + 1) }' | head -n1
}

# bw_start TAG SRV_NS SDEV SIP CLI_NS CDEV CIP ARGS...: start an
# ib_write_bw pair in the background (server, then the client once the
# server listens), logs in $LOG_DIR/TAG.{server,client}.log; the pids are
# kept for bw_wait TAG. ARGS e.g. -s 65536 -D 10.
declare -A BW_SPID BW_CPID
bw_start() {
	local tag=$1 sns=$2 sdev=$3 sip=$4 cns=$5 cdev=$6 cip=$7 sg cg i
	shift 7
	local port=$CC_BW_PORT
	CC_BW_PORT=$((CC_BW_PORT + 1))
	sg=$(gid_index "$sdev" "$sip") && cg=$(gid_index "$cdev" "$cip") || return 1
	in_ns "$sns" timeout -k 5 "${BW_TIMEOUT:-90}" ib_write_bw -d "$sdev" -x "$sg" -F -p "$port" \
		--report_gbits "$@" >"$LOG_DIR/$tag.server.log" 2>&1 &
	BW_SPID[$tag]=$!
	for ((i = 0; i < 100; i++)); do
		tcp_listening "$sns" "$port" && break
		sleep 0.1
	done
	in_ns "$cns" timeout -k 5 "${BW_TIMEOUT:-90}" ib_write_bw -d "$cdev" -x "$cg" -F -p "$port" \
		--report_gbits "$@" "$sip" >"$LOG_DIR/$tag.client.log" 2>&1 &
	BW_CPID[$tag]=$!
}

# bw_wait TAG: wait for the pair; 0 when both exited 0.
bw_wait() {
	local c s
	wait_pid "${BW_CPID[$1]}" $((${BW_TIMEOUT:-90} + 10)); c=$?
	wait_pid "${BW_SPID[$1]}" 15; s=$?
	((c == 0 && s == 0)) && return 0
	echo "bw_wait $1: client rc=$c server rc=$s" >&2
	return 1
}

# bw_mbps TAG: the client's average bandwidth, Mb/s (integer), or empty.
bw_mbps() {
	awk '$1 ~ /^[0-9]+$/ && NF >= 5 { v = $4 } END { if (v != "") printf "%d\n", v * 1000 + 0.5 }' \
		"$LOG_DIR/$1.client.log"
}

# bw_log TAG: the tail of a pair's logs.
bw_log() {
	grep -vE '^ *(-+|\*+)?$' "$LOG_DIR/$1.client.log" | tail -n 4 | sed 's/^/    client| /'
	grep -vE '^ *(-+|\*+)?$' "$LOG_DIR/$1.server.log" | tail -n 2 | sed 's/^/    server| /'
}

# qp_cc DEV [COMM]: "lqpn rate target alpha limited" of each QP of DEV owned
# by process COMM (default ib_write_bw), one line each.
qp_cc() {
	"$RDMA" -dd resource show qp link "$1/1" 2>/dev/null | awk -v c="${2:-ib_write_bw}" '
		{ for (i = 1; i < NF; i++) v[$i] = $(i + 1) }
		v["comm"] == c { print v["lqpn"], v["drv_cc_rate_mbps"], v["drv_cc_target_mbps"], v["drv_cc_alpha"], v["drv_cc_limited"] }
		{ delete v }'
}

# qp_psn DEV [COMM]: "lqpn sq-psn rq-psn" of each QP of DEV owned by process
# COMM (default ib_write_bw). The responder's rq-psn is the next PSN it
# expects: its progress counts the packets delivered in order, once each.
qp_psn() {
	"$RDMA" resource show qp link "$1/1" 2>/dev/null | awk -v c="${2:-ib_write_bw}" '
		{ for (i = 1; i < NF; i++) v[$i] = $(i + 1) }
		v["comm"] == c { print v["lqpn"], v["sq-psn"], v["rq-psn"] }
		{ delete v }'
}

# goodput_start DEV / goodput_mbps DEV PAYLOAD: in-order payload delivered
# to the ib_write_bw QPs of responder DEV since goodput_start, Mb/s, one
# "lqpn mbps" line per QP (PAYLOAD: bytes per packet, the path MTU).
declare -A GP_PSN GP_T
goodput_start() {
	local q s r
	GP_T[$1]=$(date +%s%N)
	while read -r q s r; do GP_PSN[$1/$q]=$r; done < <(qp_psn "$1")
}
goodput_mbps() {
	local q s r now dt
	now=$(date +%s%N)
	dt=$(((now - GP_T[$1]) / 1000))
	while read -r q s r; do
		[[ -n ${GP_PSN[$1/$q]:-} ]] || continue
		echo "$q $(( ((r - GP_PSN[$1/$q]) & 0xffffff) * $2 * 8 / dt ))"
	done < <(qp_psn "$1")
}

# sample_rates DEV SECS OUT: every 0.25 s for SECS, append the rate of each
# of DEV's ib_write_bw QPs to OUT ("time lqpn rate limited").
sample_rates() {
	local dev=$1 n=$(($2 * 4)) out=$3 i t0=$SECONDS
	for ((i = 0; i < n; i++)); do
		qp_cc "$dev" | awk -v t="$i" '{ print t / 4, $1, $2, $5 }' >>"$out"
		sleep 0.25
	done
}

# jain X...: Jain's fairness index (sum x)^2 / (n sum x^2), 3 decimals.
jain() {
	printf '%s\n' "$@" | awk '{ s += $1; q += $1 * $1; n++ } END { if (q > 0) printf "%.3f\n", s * s / (n * q); else print 0 }'
}

# ge A B: is A >= B (decimals)?
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 >= b + 0) }'; }
