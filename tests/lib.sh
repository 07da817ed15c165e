# tests/lib.sh: helpers for the tests that run inside the VM (scripts/vm).
# Usage: source "$(dirname "$0")/lib.sh" from a tests/t-*.sh script (bash).
#
# Topologies (all addresses 198.18.0.0/15 and 2001:db8::/32, inside the VM):
#   setup_two_netns [MTU]        netns A vethA 198.18.0.1 2001:db8::1
#                            <-> netns B vethB 198.18.0.2 2001:db8::2
#   setup_rxe_and_netns_b [MTU]  init_net vethR 198.18.1.1 2001:db8:1::1 (rxe0)
#                            <-> netns B vethRB 198.18.1.2 2001:db8:1::2
# Results: pass NAME [DETAIL], fail NAME WHY, skip NAME WHY print one
# `PASS name` / `FAIL name: why` / `SKIP name: why` line each and append it to
# $SROCE_RESULTS when tests/run set it.

IP=/usr/bin/ip
RDMA=/usr/bin/rdma
MODPROBE=/sbin/modprobe

A_IP4=198.18.0.1 B_IP4=198.18.0.2 A_IP6=2001:db8::1 B_IP6=2001:db8::2
R_IP4=198.18.1.1 RB_IP4=198.18.1.2 R_IP6=2001:db8:1::1 RB_IP6=2001:db8:1::2

LOG_DIR=${SROCE_LOG_DIR:-/tmp/sroce-logs}
PAIR_TIMEOUT=${PAIR_TIMEOUT:-60}    # seconds for one perftest server/client
PAIR_MAX_TIMEOUTS=${PAIR_MAX_TIMEOUTS:-3}   # then FAIL the rest without running
pair_timeouts=0
PERF_PORT=${PERF_PORT:-18515}       # next TCP port for perftest's exchange
PERF_SHOW=${PERF_SHOW:-}            # non-empty: print the client's full output
mkdir -p "$LOG_DIR"
ulimit -l unlimited

record() { [[ -z ${SROCE_RESULTS:-} ]] || echo "$1" >>"$SROCE_RESULTS"; }
pass() { echo "PASS $1${2:+ ($2)}"; record "PASS $1"; }
fail() { echo "FAIL $1: ${2:-failed}"; record "FAIL $1"; }
skip() { echo "SKIP $1: ${2:-skipped}"; record "SKIP $1"; }

# test_scope LEVEL: does this run include the parts of a test meant for
# LEVEL?  TEST_SCOPE (quick, ci or full; default full) says how much of
# each test runs: quick for everyday work (make check-quick), ci for make
# check, full for everything (make check-full, make vmtest).  A long part
# (a 2 B .. 8 MiB sweep, a second MTU, extra rounds) runs only at the
# scope it names and above, e.g. `test_scope full && ...`.
test_scope() {
	local -A rank=([quick]=0 [ci]=1 [full]=2)
	((${rank[${TEST_SCOPE:-full}]:-2} >= ${rank[$1]}))
}

# debug_kernel: true in the debug guest kernel (KASAN, lockdep, kmemleak;
# scripts/vm --debug), which runs several times slower than the stock one.
debug_kernel() { [[ -e /sys/kernel/debug/kmemleak ]]; }

# sweep_skipped NAME ARGS...: on the debug kernel (KASAN, lockdep, kmemleak
# under TCG), skip a perftest run whose ARGS hold -a (every size, 2 B ..
# 8 MiB) and return 0.  There a 1 MiB message at path MTU 1024 takes longer
# than perftest's transport timeout (-u 14: 67 ms) allows: the requester
# ends with IBV_WC_RETRY_EXC_ERR, or the run outlasts PAIR_TIMEOUT, with
# sroce or rdma_rxe as the requester.  The sweeps run on the stock kernels.
sweep_skipped() {
	local name=$1
	shift
	debug_kernel && [[ " $* " == *" -a "* ]] || return 1
	skip "$name" "2 B .. 8 MiB sweep: too slow for the transport timeout on the debug kernel"
}


# check NAME CMD...: PASS when CMD succeeds, else FAIL with its output's tail.
check() {
	local name=$1 out; shift
	if out=$("$@" 2>&1); then pass "$name"; else fail "$name" "\`$*\` failed: $(tail -n 3 <<<"$out" | tr '\n' ' ')"; fi
}

# run_cases PREFIX SECS CMD...: run a tests/bin program that prints
# `PASS name (...)` / `FAIL name: why` / `SKIP name: why` lines; record each
# as PREFIX/name; other lines are echoed, the last TOTAL line is kept in
# $TOTAL_LINE. FAIL PREFIX/exit if it dies without saying why.
run_cases() {
	local prefix=$1 secs=$2 out rc line rest nfail=0
	shift 2
	out=$(bounded "$secs" "$@")
	rc=$?
	TOTAL_LINE=
	while IFS= read -r line; do
		rest=${line#* }
		case $line in
		"PASS "*) pass "$prefix/${rest%% *}" "$(sed -n 's/^[^ ]* (\(.*\))$/\1/p' <<<"$rest")" ;;
		"FAIL "*) fail "$prefix/${rest%%:*}" "${rest#*: }"; nfail=$((nfail + 1)) ;;
		"SKIP "*) skip "$prefix/${rest%%:*}" "${rest#*: }" ;;
		"TOTAL "*) TOTAL_LINE=$line; echo "    $line" ;;
		*) echo "    $line" ;;
		esac
	done <<<"$out"
	((rc == 0 || nfail > 0)) || fail "$prefix/exit" "\`$*\` exited with status $rc without a FAIL line"
	return $rc
}

# in_ns NS CMD...: run CMD in network namespace NS ("-" or "" = init_net).
in_ns() {
	local ns=$1; shift
	if [[ -z $ns || $ns == - ]]; then "$@"; else "$IP" netns exec "$ns" "$@"; fi
}

# netns_of NETDEV: print the netns holding NETDEV ("-" for init_net).
netns_of() {
	local ns
	"$IP" link show dev "$1" >/dev/null 2>&1 && { echo -; return; }
	for ns in $("$IP" netns list | cut -d' ' -f1); do
		"$IP" -n "$ns" link show dev "$1" >/dev/null 2>&1 && { echo "$ns"; return; }
	done
	return 1
}

# kill_perf: SIGKILL every perftest, ibv_* example, rping and ucx_perftest
# process.
kill_perf() {
	local p c
	for p in /proc/[0-9]*; do
		read -r c 2>/dev/null <"$p/comm" || continue
		case $c in ib_*_bw | ib_*_lat | ibv_* | rping | ucx_perftest) kill -9 "${p#/proc/}" 2>/dev/null ;; esac
	done
}

# wait_pid PID SECS: wait up to SECS for background PID; its exit status, or
# 124 if it is still running (a task stuck in the kernel cannot be killed).
wait_pid() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		kill -0 "$1" 2>/dev/null || { wait "$1"; return; }
		sleep 0.1
	done
	return 124
}

# bounded SECS CMD...: run CMD, give up (status 124) after SECS. CMD's output
# goes through a file, so that $(bounded ...) cannot hang on a stuck CMD.
bounded() {
	local t=$1 out rc
	shift
	out=$(mktemp "$LOG_DIR/bounded.XXXXXX")
	"$@" >"$out" 2>&1 &
	wait_pid $! "$t"
	rc=$?
	cat "$out"
	rm -f "$out"
	((rc != 124)) || echo "\`$*\` still running after ${t}s"
	return $rc
}

# rdma_links: names of all rdma links.
rdma_links() { "$RDMA" link show 2>/dev/null | awk '$1 == "link" { sub(/\/.*/, "", $2); print $2 }'; }

# wait_gone IBDEV [SECS]: wait for IBDEV to disappear (default 20 s).
wait_gone() {
	local i
	for ((i = 0; i < ${2:-20} * 10; i++)); do
		[[ -e /sys/class/infiniband/$1 ]] || return 0
		sleep 0.1
	done
	return 1
}

# reset_state: kill perftest, delete every rdma link, the netns and our veths.
reset_state() {
	local l ns
	kill_perf
	for l in $(rdma_links); do
		bounded 20 "$RDMA" link delete "$l" 2>/dev/null ||
			echo "reset_state: rdma link delete $l failed or hung" >&2
	done
	for ns in $("$IP" netns list | cut -d' ' -f1); do bounded 20 "$IP" netns delete "$ns"; done
	for l in vethA vethB vethR vethRB; do "$IP" link delete "$l" 2>/dev/null; done
	return 0
}

# per_packet_tc [off]: make sroce hand the IP stack one skb per packet (its
# batch parameter off), so that tc filters and netem act on every packet
# and not on a batch's head, until the test ends; `off` restores the
# default (batches), as tests/run does before every test.
per_packet_tc() {
	local p=/sys/module/sroce/parameters/batch
	[[ -w $p ]] || return 0
	if [[ ${1:-} == off ]]; then echo 1 >"$p"; else echo 0 >"$p"; fi
}

# ns_link NS DEV ADDR4 ADDR6 MTU: address, MTU and up.
ns_link() {
	in_ns "$1" "$IP" link set dev "$2" mtu "$5" up &&
	in_ns "$1" "$IP" addr add "$3/24" dev "$2" &&
	in_ns "$1" "$IP" addr add "$4/64" dev "$2" nodad &&
	in_ns "$1" "$IP" link set dev lo up
}

# setup_two_netns [MTU]: netns A and B joined by vethA <-> vethB.
setup_two_netns() {
	local mtu=${1:-1500}
	"$IP" netns add A && "$IP" netns add B &&
	"$IP" link add vethA netns A mtu "$mtu" type veth peer name vethB netns B mtu "$mtu" &&
	ns_link A vethA "$A_IP4" "$A_IP6" "$mtu" &&
	ns_link B vethB "$B_IP4" "$B_IP6" "$mtu"
}

# setup_rxe_and_netns_b [MTU]: rxe0 on vethR (init_net) <-> vethRB in netns B.
setup_rxe_and_netns_b() {
	local mtu=${1:-1500}
	{ "$IP" netns list | grep -qw B || "$IP" netns add B; } &&
	"$IP" link add vethR mtu "$mtu" type veth peer name vethRB netns B mtu "$mtu" &&
	ns_link - vethR "$R_IP4" "$R_IP6" "$mtu" &&
	ns_link B vethRB "$RB_IP4" "$RB_IP6" "$mtu" &&
	"$MODPROBE" rdma_rxe &&
	"$RDMA" link add rxe0 type rxe netdev vethR
}

# sroce_bind NAME NETDEV: add sroce device NAME on NETDEV, from NETDEV's netns.
sroce_bind() {
	local ns
	ns=$(netns_of "$2") || { echo "sroce_bind: no netdev $2" >&2; return 1; }
	in_ns "$ns" "$RDMA" link add "$1" type sroce netdev "$2"
}

# require_sroce NAME: load sroce.ko, or record FAIL NAME and return 1.
require_sroce() {
	local out
	if [[ ! -f /lib/modules/$(uname -r)/extra/sroce.ko ]]; then
		fail "$1" "sroce.ko not built (no drivers/sroce/sroce.ko in the repo)"
		return 1
	fi
	out=$("$MODPROBE" sroce 2>&1) || { fail "$1" "modprobe sroce: $out"; return 1; }
}

# require_provider NAME: the sroce libibverbs provider is installed, or FAIL.
require_provider() {
	[[ -f /usr/lib/x86_64-linux-gnu/libibverbs/libsroce-rdmav34.so && -f /etc/libibverbs.d/sroce.driver ]] && return 0
	fail "$1" "provider not built (no userspace/libsroce-rdmav34.so or userspace/sroce.driver)"
	return 1
}

# gid_of IPADDR: the RoCE GID string of an IPv4 (mapped) or IPv6 address.
gid_of() {
	local a=$1 h t g=() x n
	if [[ $a != *:* ]]; then
		IFS=. read -ra h <<<"$a"
		printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' "${h[@]}"
		return
	fi
	if [[ $a == *::* ]]; then
		IFS=: read -ra h <<<"${a%%::*}"
		IFS=: read -ra t <<<"${a#*::}"
	else
		IFS=: read -ra h <<<"$a"
		t=()
	fi
	g=("${h[@]}")
	for ((n = 8 - ${#h[@]} - ${#t[@]}; n > 0; n--)); do g+=(0); done
	g+=("${t[@]}")
	printf -v x '%04x:' "${g[@]/#/0x}"
	echo "${x%:}"
}

# gid_index DEV IPADDR [TYPE]: index of the RoCE v2 (or TYPE) GID of IPADDR on
# port 1 of DEV; waits up to 10 s for the GID to appear.
gid_index() {
	local d=/sys/class/infiniband/$1/ports/1 gid f i try
	gid=$(gid_of "$2")
	for ((try = 0; try < 100; try++)); do
		for f in $(grep -lx "$gid" "$d"/gids/* 2>/dev/null); do
			i=${f##*/}
			[[ $(cat "$d/gid_attrs/types/$i" 2>/dev/null) == "${3:-RoCE v2}" ]] && { echo "$i"; return 0; }
		done
		sleep 0.1
	done
	echo "gid_index: no ${3:-RoCE v2} GID $gid ($2) on $1" >&2
	return 1
}

# tcp_listening NS PORT: is something listening on TCP PORT in NS?
tcp_listening() {
	local hex
	printf -v hex ':%04X ' "$2"
	in_ns "$1" cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk -v p="$hex" 'index($2 " ", p) && $4 == "0A" { f = 1 } END { exit !f }'
}

# perf_summary LOG: the last result row of a perftest output, condensed.
perf_summary() {
	awk '/#bytes/ { lat = /usec/ }
	     $1 ~ /^[0-9]+$/ && NF >= 5 { last = lat ? $1 " B: " $5 " us typ" : $1 " B: " $4 " Gb/s avg" }
	     END { print last }' "$1"
}

# pair_exec NAME SRV_NS CLI_NS PORT SERVER_CMD... -- CLIENT_CMD...
# Starts SERVER_CMD in SRV_NS, waits until it listens on TCP PORT, runs
# CLIENT_CMD in CLI_NS, each under a $PAIR_TIMEOUT s timeout; a server still
# waiting 5 s after its client failed is killed; a process stuck in the
# kernel is left behind and reported. Output goes to PAIR_SLOG and
# PAIR_CLOG ($LOG_DIR/NAME.{server,client}.log). Returns 0 when both exit 0,
# else 1 with the reason in PAIR_WHY. After $PAIR_MAX_TIMEOUTS timeouts in a
# row it fails at once without running anything (a hung driver would
# otherwise cost PAIR_TIMEOUT every time).
pair_exec() {
	local name=$1 sns=$2 cns=$3 port=$4 scmd=() spid cpid src crc killed='' i
	shift 4
	while [[ $1 != -- ]]; do scmd+=("$1"); shift; done
	shift
	PAIR_SLOG=$LOG_DIR/${name//\//_}.server.log PAIR_CLOG=$LOG_DIR/${name//\//_}.client.log PAIR_WHY=
	if ((pair_timeouts >= PAIR_MAX_TIMEOUTS)); then
		PAIR_WHY="not run: the last $pair_timeouts runs timed out"
		return 1
	fi
	in_ns "$sns" timeout -k 5 "$PAIR_TIMEOUT" "${scmd[@]}" >"$PAIR_SLOG" 2>&1 &
	spid=$!
	for ((i = 0; i < 100; i++)); do
		tcp_listening "$sns" "$port" && break
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	# Both run in background and are waited for with deadlines: a process
	# stuck in the kernel (D state) survives timeout's SIGKILL.
	in_ns "$cns" timeout -k 5 "$PAIR_TIMEOUT" "$@" >"$PAIR_CLOG" 2>&1 &
	cpid=$!
	wait_pid "$cpid" $((PAIR_TIMEOUT + 10)) 2>/dev/null
	crc=$?
	kill -0 "$cpid" 2>/dev/null && PAIR_WHY+="client stuck in the kernel, unkillable (timed out); "
	wait_pid "$spid" $((crc == 0 ? PAIR_TIMEOUT + 10 : 5)) 2>/dev/null
	src=$?
	if kill -0 "$spid" 2>/dev/null; then   # a server left alone may wait forever
		kill_perf
		killed=1
		wait_pid "$spid" 10 2>/dev/null
		src=$?
		kill -0 "$spid" 2>/dev/null && PAIR_WHY+="server stuck in the kernel, unkillable (timed out); "
	fi
	((crc == 124 || crc == 137)) && PAIR_WHY+="client timed out after ${PAIR_TIMEOUT}s; "
	((src == 124 || (src == 137 && !killed))) && PAIR_WHY+="server timed out after ${PAIR_TIMEOUT}s; "
	[[ -n $killed ]] && PAIR_WHY+="server killed after the client ended; "
	if [[ $PAIR_WHY == *"timed out"* ]]; then pair_timeouts=$((pair_timeouts + 1)); else pair_timeouts=0; fi
	((crc == 0 && src == 0)) && return 0
	PAIR_WHY+="client rc=$crc server rc=$src"
	return 1
}

# pair_logs: the interesting tail of the last pair's client and server logs.
pair_logs() {
	sed 's/^/    client| /' "$PAIR_CLOG" | grep -vE '^    client\| *(-+|\*+)?$' | tail -n 8
	sed 's/^/    server| /' "$PAIR_SLOG" | grep -vE '^    server\| *(-+|\*+)?$' | tail -n 8
}

# run_pair NAME SRV_NS SRV_DEV SRV_IP CLI_NS CLI_DEV CLI_IP PROG [ARGS...]
# Runs perftest PROG as server on SRV_DEV in SRV_NS and as client on CLI_DEV
# in CLI_NS (ns "-" = init_net), each with the RoCE v2 GID of its IP (-x),
# -F, --report_gbits and a fresh TCP port (pair_exec does the rest). perftest
# 4.5 exchanges QP data over IPv4 TCP only: for IPv6 GIDs set PAIR_CONNECT to
# the server's IPv4 address. Records PASS NAME (with the last result row) or
# FAIL NAME with the reason and the logs' tails.
run_pair() {
	local name=$1 sns=$2 sdev=$3 sip=$4 cns=$5 cdev=$6 cip=$7 prog=$8 sgid cgid
	shift 8
	local port=$PERF_PORT
	PERF_PORT=$((PERF_PORT + 1))
	sgid=$(gid_index "$sdev" "$sip" 2>&1) || { fail "$name" "server: $sgid"; return 1; }
	cgid=$(gid_index "$cdev" "$cip" 2>&1) || { fail "$name" "client: $cgid"; return 1; }
	local common=(-F --report_gbits -p "$port" "$@")
	pair_exec "$name" "$sns" "$cns" "$port" "$prog" -d "$sdev" -x "$sgid" "${common[@]}" -- \
		"$prog" -d "$cdev" -x "$cgid" "${common[@]}" "${PAIR_CONNECT:-$sip}"
	local rc=$?
	[[ -n $PERF_SHOW ]] && { echo "== $name: $prog ${common[*]}"; cat "$PAIR_CLOG"; }
	if ((rc == 0)); then
		pass "$name" "$(perf_summary "$PAIR_CLOG")"
	else
		fail "$name" "$PAIR_WHY"
		[[ $PAIR_WHY == "not run"* ]] || pair_logs
	fi
	return $rc
}

# rc_pingpong NAME SRV_NS SRV_DEV SRV_IP CLI_NS CLI_DEV CLI_IP [ARGS...]
# ibv_rc_pingpong (-g GID index of each IP, a fresh -p port, ARGS such as
# -c -s SIZE -n ITERS) between the two devices; records PASS or FAIL NAME.
# PINGPONG=ibv_srq_pingpong (or another libibverbs example taking the same
# options) runs that program instead.
rc_pingpong() {
	local name=$1 sns=$2 sdev=$3 sip=$4 cns=$5 cdev=$6 cip=$7 sgid cgid
	shift 7
	local port=$PERF_PORT
	PERF_PORT=$((PERF_PORT + 1))
	sgid=$(gid_index "$sdev" "$sip" 2>&1) || { fail "$name" "server: $sgid"; return 1; }
	cgid=$(gid_index "$cdev" "$cip" 2>&1) || { fail "$name" "client: $cgid"; return 1; }
	local prog=${PINGPONG:-ibv_rc_pingpong}
	if pair_exec "$name" "$sns" "$cns" "$port" "$prog" -d "$sdev" -g "$sgid" -p "$port" "$@" -- \
		"$prog" -d "$cdev" -g "$cgid" -p "$port" "$@" "$sip"; then
		pass "$name" "$(grep -m1 'Mbit/sec' "$PAIR_CLOG")"
	else
		fail "$name" "$PAIR_WHY"
		[[ $PAIR_WHY == "not run"* ]] || pair_logs
		return 1
	fi
}

# What scripts/vm also looks for in the guest's dmesg.
SPLAT='Kernel panic|Oops|BUG:|kernel BUG|WARNING:|KASAN|UBSAN|refcount_t|general protection fault'
SPLAT+='|list_(add|del) corruption|stack-protector|Call Trace:|blocked for more than|detected stall'
# sroce's data path invariant (sroce_diag.c), broken and repaired
SPLAT+='|sroce: QP [0-9]+: .* timer not armed'

# dmesg_clean NAME: FAIL NAME with each splat the kernel logged since the
# line tests/run logged when the test began ($SROCE_DMESG_MARK; the whole
# log when there is none: a test run alone, or the line scrolled out of
# the ring), and the 20 lines after it (the task, its stack); or PASS NAME.
dmesg_clean() {
	local from=0 hits
	if [[ -n ${SROCE_DMESG_MARK:-} ]]; then
		from=$(dmesg | grep -n -F -- "$SROCE_DMESG_MARK" | tail -n 1 | cut -d: -f1)
		from=$((${from:-1} - 1))
	fi
	hits=$(dmesg | tail -n +"$((from + 1))" | grep -E -A20 "$SPLAT" | head -n 60)
	if [[ -z $hits ]]; then pass "$1"; else fail "$1" "$hits"; fi
}

# record_lines PREFIX: read a test program's output on stdin and record its
# `PASS name (detail)` / `FAIL name: why` / `SKIP name: why` lines as
# PREFIX/name; other lines are echoed, indented.
record_lines() {
	local line rest
	while IFS= read -r line; do
		rest=${line#* }
		case $line in
		"PASS "*) pass "$1/${rest%% *}" "$(sed -n 's/^[^ ]* (\(.*\))$/\1/p' <<<"$rest")" ;;
		"FAIL "*) fail "$1/${rest%%:*}" "${rest#*: }" ;;
		"SKIP "*) skip "$1/${rest%%:*}" "${rest#*: }" ;;
		*) echo "    $line" ;;
		esac
	done
}

# rdma_res_counts DEV...: the `rdma resource show` line (pd, cq, qp, mr,
# ... counts) of each DEV, without its index, joined by "; ".
rdma_res_counts() {
	local d
	for d; do
		"$RDMA" resource show 2>/dev/null | sed -n "s/^[0-9]*: \($d:.*\)/\1/p"
	done | paste -sd';'
}

# impair NS DEV NETEM...: RoCE packets (UDP 4791) leaving DEV go through
# netem (loss, delay, reordering, duplication), the rest of DEV's traffic
# does not.
impair() {
	local ns=$1 dev=$2
	shift 2
	per_packet_tc
	in_ns "$ns" tc qdisc add dev "$dev" root handle 1: prio bands 3 &&
	in_ns "$ns" tc qdisc add dev "$dev" parent 1:3 handle 30: netem "$@" &&
	in_ns "$ns" tc filter add dev "$dev" parent 1: protocol ip prio 1 u32 \
		match ip protocol 17 0xff match ip dport 4791 0xffff flowid 1:3
}

# hw DEV NAME: hw_counters counter NAME of port 1 of ib device DEV (0 when
# it cannot be read).
hw() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2" 2>/dev/null || echo 0; }

# trace_on EVENT...: tracefs mounted at $TRACEFS (if it was not), only
# these sroce tracepoints on and the buffer empty; 1 when the kernel has no
# sroce events (tracefs missing, or an older module).
TRACEFS=/sys/kernel/tracing
trace_on() {
	local e
	[[ -d $TRACEFS/events ]] || mount -t tracefs nodev $TRACEFS 2>/dev/null
	[[ -d $TRACEFS/events/sroce ]] || return 1
	echo 0 >$TRACEFS/events/sroce/enable
	for e; do echo 1 >"$TRACEFS/events/sroce/$e/enable" || return 1; done
	: >$TRACEFS/trace
	echo 1 >$TRACEFS/tracing_on
}

# trace_tail [N]: the last N (40) events in the trace buffer, indented.
trace_tail() {
	[[ -r $TRACEFS/trace ]] || return 0
	grep -v '^#' "$TRACEFS/trace" | tail -n "${1:-40}" | sed 's/^/    trace| /'
}

# The stall detector (tests/run starts one around every test).  The IB
# contract: every posted work request ends with a completion, a success or
# an error once the QP's retry budget is spent.  stall_watch samples
# `rdma -dd resource show qp` every STALL_PERIOD seconds (default 1): a
# QP in RTS with WQEs outstanding (drv_sq_used) whose oldest WQE
# (drv_sq_head) and oldest unacknowledged PSN (drv_comp_psn) both stay put
# for longer than its retry budget (drv_budget_ms, which the driver
# derives from the QP's timeout, retry_cnt and rnr_retry; 0: unbounded,
# e.g. an RNR wait with infinite retries) plus STALL_SLACK seconds
# (default 10, 30 on the debug kernel: timers of a guest under TCG run
# late) is stalled: one FAIL NAME/stall line for it, with every QP's state
# and every link's counters printed.  It runs until the file STOPFILE
# exists.
# stall_watch NAME STOPFILE
stall_watch() {
	local name=$1 stop=$2 slack=${STALL_SLACK:-10} line
	debug_kernel && slack=${STALL_SLACK:-30}
	while [[ ! -e $stop ]]; do
		echo "T $SECONDS"
		"$RDMA" -dd resource show qp 2>/dev/null
		sleep "${STALL_PERIOD:-1}"
	done | awk -v slack="$slack" '
		$1 == "T" { now = $2; next }
		$1 != "link" { next }
		{
			delete f
			for (i = 1; i < NF; i++) f[$i] = $(i + 1)
			if (f["state"] != "RTS" || !("drv_sq_used" in f)) next
			k = f["link"] " " f["lqpn"] " " f["pid"]
			sig = f["drv_sq_head"] ":" f["drv_comp_psn"]
			if (f["drv_sq_used"] == 0 || sig != last[k]) {
				last[k] = sig; since[k] = now; next
			}
			if (f["drv_budget_ms"] == 0 || done[k]) next
			if (now - since[k] > f["drv_budget_ms"] / 1000 + slack) {
				done[k] = 1
				printf "STALL %s qpn %s (%s): no progress for %d s, budget %d ms: %s\n",
				       f["link"], f["lqpn"], f["comm"], now - since[k],
				       f["drv_budget_ms"], $0
				fflush()
			}
		}' | while IFS= read -r line; do
		[[ $line == "STALL "* ]] || continue
		fail "$name/stall" "${line#STALL }"
		echo "    every QP now:"
		"$RDMA" -dd resource show qp 2>&1 | sed 's/^/      /'
		echo "    every link's counters:"
		"$RDMA" statistic show 2>&1 | sed 's/^/      /'
	done
}
