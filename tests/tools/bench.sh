#!/bin/bash
# bench.sh (guest side of scripts/bench): the same perftest commands on
# sroce and on rdma_rxe, in one VM run, every ratio taken on one path.
#
# Topologies (all up at once, per netdev MTU of BENCH_MTUS):
#   one device  client and server on ONE device, the device's own address:
#               sroce0 on vethA in netns A (rdma_rxe owns UDP 4791 in
#               init_net, so sroce lives in a netns; perftest's server and
#               client both run in A), and rxe0 on vethR in init_net (rxe's
#               own single-device loopback). Table columns sroce, rxe.
#   veth        two netns joined by a veth pair: sroce0 (netns A, client)
#               <-> sroce1 (netns B, server) over vethA/vethB; rxe0 (init_net,
#               client; 6.1's rxe cannot live in a netns) -> sroce2 on vethRB
#               in netns B (server) over vethR/vethRB; the kernel's TCP
#               between A and B over vethA/vethB (iperf3, one stream, 64 KiB
#               writes; a 2-byte TCP_NODELAY ping-pong, /add/netpp) and the
#               UDP ping-pong floor on the same pair (/add/netpp udp). Table
#               columns sroce, rxe->sroce, tcp, udp.
# Rows: ib_{write,send,read}_bw (-s 65536 -D BENCH_DURATION -f BENCH_MARGIN,
# BW average in Gb/s) and ib_{write,send,read}_lat (-s 2 -n BENCH_LAT_ITERS,
# t_typical in us; READ and the ping-pongs: as perftest reports them, the
# READ row's tcp/udp values are whole round trips), and ib_write_bw -q N for
# N in BENCH_QPN (q1 is the ib_write_bw row itself, whose send queue holds
# perftest's default 128 WRs; the N QPs share those: -t BENCH_QP_WRS/N, so
# every row has the same 8 MiB in flight and only the parallelism differs;
# BENCH_QP_WRS=0: perftest's -t for each QP) with the scaling ratios q4/q1
# and q16/q4. Per round (BENCH_REPS, the order of the sides flips
# each round so host-load drift hits both alike) every row runs once on
# every side; the tables show medians.
# Costs per bandwidth run (see bench_cost): CPU-seconds per GB moved (guest
# CPU time, all vCPUs, from /proc/stat deltas over the whole perftest pair,
# divided by BW average x duration), system calls per message (client plus
# server, counted by /add/sysc, the sys_enter tracepoint through
# perf_event_open, steady-state rate over the message rate), and the sroce
# devices' retransmits and seq_nak_sent deltas.
# With BENCH_COMPARE=1 (scripts/bench --compare REV) scenario "compare" runs
# the sroce rows with two builds, /add/base/{sroce.ko,libsroce-rdmav34.so}
# (REV) and the one the VM booted with (new), alternating per round: unload,
# load the other build, recreate the devices.
# Then memory: /proc/modules size of sroce and rdma_rxe, and, with
# /add/qpmem, the kernel memory (slab + vmalloc, and slab alone) per RC QP.
# Helpers compiled by scripts/bench come in /add/ (tscclock.so: see
# use_tsc_clock).
#
# Output: progress lines (with a summary of the retransmission/error hw
# counters per MTU), then the tables between "=== table ..." and "=== end
# table", then the targets, each measured and marked met or MISSED (never
# asserted). Every line of raw perftest output, hw counter and CPU-time
# delta starts with "| " (the host puts those only in the log). Exits 0
# when every run produced a number (whatever the number), 1 otherwise.
#
# Knobs (env): BENCH_MTUS ("1500 9000"), BENCH_TESTS (the six above),
# BENCH_QPN ("4 16"), BENCH_QP_WRS (128), BENCH_REPS (3), BENCH_DURATION
# (5), BENCH_MARGIN (1), BENCH_LAT_ITERS (2000), BENCH_QPS (100, for the
# per-QP memory),
# BENCH_RETRIES (4), BENCH_TSC_CLOCK (1; 0: no /add/tscclock.so),
# BENCH_SCENARIOS ("base"; "compare" with BENCH_COMPARE=1; "congestion": see
# the hook below; "kernel": fio over NVMe/RDMA, see scenario_kernel;
# "sweep": bandwidth and latency over message sizes, see scenario_sweep;
# "profile": where the CPU time goes, see scenario_profile),
# BENCH_FIO_RUNTIME (10 s per fio job).
# run from tests/, where lib.sh and the test programs (bin/) are
# shellcheck source-path=SCRIPTDIR/..
cd "$(dirname "$0")/.." && source ./lib.sh && source ./ulp-lib.sh

BENCH_MTUS=${BENCH_MTUS:-1500 9000}
BENCH_TESTS=${BENCH_TESTS:-ib_write_bw ib_write_lat ib_send_bw ib_send_lat ib_read_bw ib_read_lat}
BENCH_QPN=${BENCH_QPN:-4 16}
BENCH_QP_WRS=${BENCH_QP_WRS:-128}
BENCH_REPS=${BENCH_REPS:-3}
BENCH_DURATION=${BENCH_DURATION:-5}
BENCH_MARGIN=${BENCH_MARGIN:-1}
BENCH_LAT_ITERS=${BENCH_LAT_ITERS:-2000}
BENCH_QPS=${BENCH_QPS:-100}
BENCH_COMPARE=${BENCH_COMPARE:-}
BENCH_SCENARIOS=${BENCH_SCENARIOS:-$([[ -n $BENCH_COMPARE ]] && echo compare || echo base)}
BENCH_RETRIES=${BENCH_RETRIES:-4}
BENCH_FIO_RUNTIME=${BENCH_FIO_RUNTIME:-10}
BW_SIZE=65536 LAT_SIZE=2
USER_HZ=100   # /proc/stat's unit (x86)

RESULTS=$LOG_DIR/bench.results   # "ROW WHICH VALUE" per successful run
ROWS=()                           # other table rows, in order: "ROW|UNIT|KIND"
failures=0 retries=0
: >"$RESULTS"

raw() { sed 's/^/| /' "$@"; }     # log-only lines (the host filters "| ")
note() { echo "bench: $*"; }

# ---- measurements ------------------------------------------------------------

# cpu_snap: the aggregate "cpu" line of /proc/stat (jiffies).
cpu_snap() { head -n1 /proc/stat; }

# cpu_delta BEFORE AFTER: where the CPU time of a run went, in %, and the
# busy CPU-seconds (all vCPUs: user, nice, system, irq, softirq).
cpu_delta() {
	awk -v a="$1" -v b="$2" -v hz="$USER_HZ" 'BEGIN {
		n = split(a, x); split(b, y); t = 0
		for (i = 2; i <= n; i++) { d[i] = y[i] - x[i]; t += d[i] }
		if (t <= 0) exit
		printf "cpu: usr %.0f%% sys %.0f%% irq %.0f%% softirq %.0f%% idle %.0f%% busy_cpu_s %.2f\n",
			100 * (d[2] + d[3]) / t, 100 * d[4] / t, 100 * d[7] / t, 100 * d[8] / t,
			100 * (d[5] + d[6]) / t, (d[2] + d[3] + d[4] + d[7] + d[8]) / hz }'
}

# counters_snap IBDEV...: "dev/name value" of every port-1 hw counter.
counters_snap() {
	local d f
	for d in "$@"; do
		for f in /sys/class/infiniband/"$d"/ports/1/hw_counters/*; do
			[[ -f $f && ${f##*/} != lifespan ]] || continue
			echo "$d/${f##*/} $(cat "$f" 2>/dev/null)"
		done
	done
}

# counters_delta BEFORE AFTER: the counters that changed, "name +N ...".
counters_delta() {
	echo "$1" >"$LOG_DIR/counters.before"   # (no /dev/fd in the guest)
	echo "$2" | awk 'NR == FNR { old[$1] = $2; next }
	     $2 != old[$1] { printf "%s +%d  ", $1, $2 - old[$1] }
	     END { print "" }' "$LOG_DIR/counters.before" -
}

# counter_sum DELTA NAME: the sum of counter NAME's deltas over the devices
# of a counters_delta line.
counter_sum() {
	tr -s ' ' '\n' <<<"$1" | awk -v n="$2" '
		{ k = $0; sub(/^[^\/]*\//, "", k) }
		k == n { want = 1; next }
		want { s += $0; want = 0 }
		END { print s + 0 }'
}

# perf_value LOG KIND: BW average (Gb/s, KIND bw) or t_typical (us, KIND lat)
# of the last result row of a perftest client log.
perf_value() {
	awk -v k="$2" '$1 ~ /^[0-9]+$/ && NF >= 5 { v = (k == "lat") ? $5 : $4 }
		END { if (v ~ /^[0-9.]+$/ && v > 0) print v; else exit 1 }' "$1"
}

# perf_rows LOG KIND: "SIZE VALUE" for every result row of a perftest client
# log (an -a sweep has one per message size), values as perf_value's.
perf_rows() {
	awk -v k="$2" '$1 ~ /^[0-9]+$/ && NF >= 5 { v = (k == "lat") ? $5 : $4
		if (v ~ /^[0-9.]+$/ && v > 0) print $1, v }' "$1"
}

# sysc_rate FILE: the median system-call rate (per second) of the 100 ms
# samples /add/sysc wrote ("MS COUNT" lines): the steady state of a run
# that lasts seconds, whatever its setup and teardown cost.
sysc_rate() {
	awk '$1 ~ /^[0-9]+$/ { if (NR > 1 && $1 > t) r[n++] = ($2 - c) * 1000 / ($1 - t); t = $1; c = $2 }
		END { if (!n) exit 1
			for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (r[j] < r[i]) { x = r[i]; r[i] = r[j]; r[j] = x }
			print (n % 2) ? r[int(n / 2)] : (r[n / 2 - 1] + r[n / 2]) / 2 }' "$1"
}

# bench_cost ROW WHICH KIND VAL SIZE CPU_LINE DELTA DEVS: the costs of a
# run (VAL Gb/s with SIZE-byte messages for KIND bw), appended to $RESULTS:
# for KIND bw "ROW WHICH:cpu CPU-s/GB" and "ROW WHICH:sysc CALLS/MSG" (when
# /add/sysc counted the client's and the server's calls), and when DEVS
# (the run's device names) has a sroce device "ROW WHICH:retx N" and
# "ROW WHICH:nak N" (retransmits, seq_nak_sent). Bytes moved: VAL x
# BENCH_DURATION (perftest's -D covers its margins too); CPU time: the
# whole pair, setup included.
bench_cost() {
	local row=$1 which=$2 kind=$3 val=$4 size=$5 cpu=$6 delta=$7 devs=$8 rc rs
	if [[ $devs == *sroce* ]]; then
		echo "$row $which:retx $(counter_sum "$delta" retransmits)" >>"$RESULTS"
		echo "$row $which:nak $(counter_sum "$delta" seq_nak_sent)" >>"$RESULTS"
	fi
	[[ $kind == bw ]] || return 0
	awk -v c="${cpu##*busy_cpu_s }" -v v="$val" -v d="$BENCH_DURATION" -v r="$row" -v w="$which" \
		'BEGIN { if (c != "" && v > 0) printf "%s %s:cpu %.4g\n", r, w, c / (v * d / 8) }' >>"$RESULTS"
	if [[ -s $LOG_DIR/sysc.client ]] && rc=$(sysc_rate "$LOG_DIR/sysc.client") &&
		rs=$(sysc_rate "$LOG_DIR/sysc.server"); then
		awk -v a="$rc" -v b="$rs" -v v="$val" -v s="$size" -v r="$row" -v w="$which" \
			'BEGIN { printf "%s %s:sysc %.3g\n", r, w, (a + b) / (v * 1e9 / 8 / s) }' >>"$RESULTS"
		echo "| syscalls/s (median of 100 ms samples): client $rc server $rs"
	fi
}

# arg_of FLAG ARGS...: the value after FLAG in ARGS.
arg_of() {
	local f=$1
	shift
	while (($#)); do [[ $1 == "$f" ]] && { echo "$2"; return; }; shift; done
}

# bench_run ROW KIND WHICH SRV_NS SRV_DEV SRV_IP CLI_NS CLI_DEV CLI_IP PROG ARGS...
# One perftest pair (lib.sh's pair_exec), its value appended to $RESULTS as
# "ROW WHICH VALUE", and for KIND bw its costs (bench_cost); the raw client
# output, the hw counters that moved and the CPU split go to the log.
# perftest's clock calibration sometimes fails under a loaded TCG host
# ("Correlation coefficient r^2 < 0.9", then latencies of "inf"): such a
# run is repeated, up to BENCH_RETRIES times. Returns 1 (and counts a
# failure) without a number.
bench_run() {
	local row=$1 kind=$2 which=$3 sns=$4 sdev=$5 sip=$6 cns=$7 cdev=$8 cip=$9
	shift 9
	local prog=$1 sgid cgid c0 c1 s0 s1 val rc try port cpu delta
	local swrap=() cwrap=()
	shift
	if ! sgid=$(gid_index "$sdev" "$sip" 2>&1) || ! cgid=$(gid_index "$cdev" "$cip" 2>&1); then
		note "FAILED $row $which: $sgid ${cgid:-}"
		failures=$((failures + 1))
		return 1
	fi
	if [[ $kind == bw && -n $SYSC_TP && -z ${SWEEP_OUT:-} ]]; then
		swrap=(/add/sysc -t "$SYSC_TP" "$LOG_DIR/sysc.server") cwrap=(/add/sysc -t "$SYSC_TP" "$LOG_DIR/sysc.client")
	fi
	for ((try = 0; try <= BENCH_RETRIES; try++)); do
		port=$PERF_PORT
		PERF_PORT=$((PERF_PORT + 1))
		local common=(-F --report_gbits -p "$port" "$@")
		rm -f "$LOG_DIR"/sysc.*
		c0=$(counters_snap "$sdev" "$cdev" | sort -u) s0=$(cpu_snap)
		pair_exec "bench-$which-$row" "$sns" "$cns" "$port" \
			"${swrap[@]}" "${PERF_WRAP[@]}" "$prog" -d "$sdev" -x "$sgid" "${common[@]}" -- \
			"${cwrap[@]}" "${PERF_WRAP[@]}" "$prog" -d "$cdev" -x "$cgid" "${common[@]}" "$sip"
		rc=$?
		s1=$(cpu_snap) c1=$(counters_snap "$sdev" "$cdev" | sort -u)
		cpu=$(cpu_delta "$s0" "$s1") delta=$(counters_delta "$c0" "$c1")
		echo "| ==== $row $which: $prog -d $cdev -x $cgid ${common[*]} $sip"
		raw "$PAIR_CLOG"
		echo "| $cpu"
		echo "| counters: $delta"
		if ((rc == 0)) && val=$(perf_value "$PAIR_CLOG" "$kind"); then
			echo "$row $which $val" >>"$RESULTS"
			if [[ -n ${SWEEP_OUT:-} ]]; then
				perf_rows "$PAIR_CLOG" "$kind" | sed "s|^|$row $which |" >>"$SWEEP_OUT"
			else
				bench_cost "$row" "$which" "$kind" "$val" "$(arg_of -s "$@")" "$cpu" "$delta" "$sdev$cdev"
			fi
			note "$row $which: $val $([[ $kind == lat ]] && echo us || echo Gb/s)"
			return 0
		fi
		if ((rc != 0)) || ! grep -q 'Correlation coefficient' "$PAIR_CLOG"; then
			break
		fi
		note "$row $which: perftest's clock calibration failed (host load), again"
		retries=$((retries + 1))
		sleep 1
	done
	note "FAILED $row $which: ${PAIR_WHY:-no result row in the client output}"
	pair_logs | raw
	failures=$((failures + 1))
	return 1
}

# add_row ROW UNIT KIND: declare a row of the "other" table (KIND bw:
# higher is better, lat or mem: lower is better).
add_row() { ROWS+=("$1|$2|$3"); }

# add_value ROW WHICH VALUE: a value measured outside bench_run.
add_value() { echo "$1 $2 $3" >>"$RESULTS"; }

# ---- topology ----------------------------------------------------------------

# setup_sroce MTU: netns A and B joined by vethA/vethB, sroce0 on vethA,
# sroce1 on vethB, at netdev MTU MTU.
setup_sroce() {
	reset_state
	setup_two_netns "$1" && sroce_bind sroce0 vethA && sroce_bind sroce1 vethB
}

# setup_all MTU: setup_sroce, and rxe0 on vethR in init_net joined to
# vethRB in netns B, which carries sroce2.
setup_all() {
	setup_sroce "$1" && setup_rxe_and_netns_b "$1" && sroce_bind sroce2 vethRB
}

# sides (SRV_NS SRV_DEV SRV_IP CLI_NS CLI_DEV CLI_IP, for bench_run; round
# takes them by name)
OD_SROCE=(A sroce0 "$A_IP4" A sroce0 "$A_IP4")     # one device, netns A
OD_RXE=(- rxe0 "$R_IP4" - rxe0 "$R_IP4")           # one device, init_net
# shellcheck disable=SC2034
VE_SROCE=(B sroce1 "$B_IP4" A sroce0 "$A_IP4")     # veth, A -> B
# shellcheck disable=SC2034
VE_RXE=(B sroce2 "$RB_IP4" - rxe0 "$R_IP4")        # veth, rxe0 -> sroce2

# prog_args PROG: KIND and ARGS (globals) of a perftest row.
prog_args() {
	if [[ $1 == *_lat ]]; then
		kind=lat args=(-s "$LAT_SIZE" -n "$BENCH_LAT_ITERS")
	else
		kind=bw args=(-s "$BW_SIZE" -D "$BENCH_DURATION" -f "$BENCH_MARGIN")
	fi
}

# round TOPO MTU LABEL_A SIDE_A LABEL_B SIDE_B: one round of every row of
# topology TOPO (od or veth) at MTU, side A then side B per row (either may
# be "-": not run); the sides are 6-word arrays named by SIDE_*.
round() {
	local topo=$1 mtu=$2 la=$3 lb=$5 prog q kind args=() qargs
	# a side "-" is not run, and a name reference to "-" is an error
	[[ $la == - ]] || local -n sa=$4
	[[ $lb == - ]] || local -n sb=$6
	for prog in $BENCH_TESTS; do
		prog_args "$prog"
		[[ $la == - ]] || bench_run "$topo/mtu$mtu/$prog" "$kind" "$la" "${sa[@]}" "$prog" "${args[@]}"
		[[ $lb == - ]] || bench_run "$topo/mtu$mtu/$prog" "$kind" "$lb" "${sb[@]}" "$prog" "${args[@]}"
	done
	[[ " $BENCH_TESTS " == *" ib_write_bw "* ]] || return 0
	prog_args ib_write_bw
	for q in $BENCH_QPN; do
		# -u 17 (537 ms): rdma_rxe 6.1 as the requester with several
		# QPs times out under load at the default 67 ms, and mid-retry
		# it takes an ACK without completing the WQE and then resends
		# from a PSN past the message (a WRITE ONLY of length 0): the
		# responder rightly NAKs what follows (t-20 has the pair)
		qargs=(-q "$q" -u 17)
		((BENCH_QP_WRS > 0)) && qargs+=(-t "$((BENCH_QP_WRS / q > 1 ? BENCH_QP_WRS / q : 1))")
		[[ $la == - ]] || bench_run "$topo/mtu$mtu/ib_write_bw-q$q" bw "$la" "${sa[@]}" ib_write_bw "${qargs[@]}" "${args[@]}"
		[[ $lb == - ]] || bench_run "$topo/mtu$mtu/ib_write_bw-q$q" bw "$lb" "${sb[@]}" ib_write_bw "${qargs[@]}" "${args[@]}"
	done
}

# ---- scenarios ---------------------------------------------------------------
# A scenario is a function scenario_NAME, run when NAME is in
# BENCH_SCENARIOS. It sets up its topology (setup_all or its own), runs
# bench_run for each side alternately (its rows appear in the one-device
# and veth tables when named TOPO/mtuM/PROG), or declares rows of the
# "other" table with add_row and fills them with add_value. The tables and
# the targets come after all scenarios ran.

# scenario_base: both topologies, every row, at each MTU of BENCH_MTUS.
scenario_base() {
	local mtu rep out
	for mtu in $BENCH_MTUS; do
		note "--- MTU $mtu: setting up sroce0 (A) <-> sroce1 (B), rxe0 (init_net) -> sroce2 (B)"
		if ! out=$(setup_all "$mtu" 2>&1); then
			note "FAILED setup at MTU $mtu: $out"
			failures=$((failures + 1))
			continue
		fi
		echo "| ==== MTU $mtu"
		{ "$RDMA" link show; ibv_devinfo -d sroce0; ibv_devinfo -d rxe0; } 2>&1 | raw
		for ((rep = 1; rep <= BENCH_REPS; rep++)); do
			note "--- MTU $mtu round $rep/$BENCH_REPS"
			if ((rep % 2)); then
				round od "$mtu" sroce OD_SROCE rxe OD_RXE
				round veth "$mtu" sroce VE_SROCE rxe VE_RXE
			else
				round od "$mtu" rxe OD_RXE sroce OD_SROCE
				round veth "$mtu" rxe VE_RXE sroce VE_SROCE
			fi
			tcp_round "$mtu"
		done
		echo "| ==== MTU $mtu: hw counters at the end"
		counters_snap sroce0 sroce1 sroce2 rxe0 | awk '$2 != 0' | raw
		counters_summary "$mtu"
	done
}

# load_build NAME: sroce.ko and the provider of build NAME (base: /add/base,
# new: the one the VM booted with, saved in $LOG_DIR/new.*), every device
# deleted first.
KO=/lib/modules/$(uname -r)/extra/sroce.ko
PROVIDER=/usr/lib/x86_64-linux-gnu/libibverbs/libsroce-rdmav34.so
load_build() {
	local src=$LOG_DIR/new
	[[ $1 == base ]] && src=/add/base/sroce
	reset_state
	[[ -d /sys/module/sroce ]] && { bounded 60 rmmod sroce || return 1; }
	cp "$src.ko" "$KO" && cp "$src.so" "$PROVIDER" || return 1
	"$MODPROBE" sroce 2>/dev/null || { depmod -a && "$MODPROBE" sroce; }
}

# scenario_compare: the sroce rows of both topologies with two builds,
# base (REV of scripts/bench --compare REV) and new, in alternating order
# per round, each round on freshly loaded modules and new devices.
scenario_compare() {
	local mtu rep b order out
	if [[ ! -f /add/base/sroce.ko || ! -f /add/base/sroce.so ]]; then
		note "FAILED scenario compare: no /add/base/sroce.{ko,so} (scripts/bench --compare REV)"
		failures=$((failures + 1))
		return 1
	fi
	cp "$KO" "$LOG_DIR/new.ko" && cp "$PROVIDER" "$LOG_DIR/new.so"
	note "compare: base sroce.ko md5 $(md5sum </add/base/sroce.ko | cut -c1-12), new $(md5sum <"$KO" | cut -c1-12)"
	for mtu in $BENCH_MTUS; do
		for ((rep = 1; rep <= BENCH_REPS; rep++)); do
			order=(base new)
			((rep % 2)) || order=(new base)
			for b in "${order[@]}"; do
				note "--- MTU $mtu round $rep/$BENCH_REPS: build $b"
				if ! out=$(load_build "$b" 2>&1) || ! out=$(setup_sroce "$mtu" 2>&1); then
					note "FAILED loading build $b at MTU $mtu: $out"
					failures=$((failures + 1))
					continue
				fi
				round od "$mtu" "$b" OD_SROCE - -
				round veth "$mtu" "$b" VE_SROCE - -
			done
		done
	done
	load_build new >/dev/null 2>&1 || note "FAILED reloading build new"
	"$MODPROBE" rdma_rxe
}

# counters_summary MTU: the error/retry hw counters of all runs at MTU
# (the devices are new for each MTU), one line per side.
counters_summary() {
	local devs
	for devs in "sroce0 sroce1 sroce2" rxe0; do
		# shellcheck disable=SC2086
		note "counters mtu$1 ${devs// /+}: $(counters_snap $devs | awk '
			$1 !~ /(sent|rcvd)_pkts$|rdma_(sends|recvs)$|ack_deferred$/ && $2 != 0 {
				printf "%s=%s ", $1, $2; n++ }
			END { if (!n) printf "no retransmission, error or drop" }')"
	done
}

# netpp udp|tcp PORT N: a 2-byte ping-pong of N round trips, server in netns
# B, client in netns A; prints the client's one-way time in us.
netpp() {
	local v rc spid
	in_ns B timeout 30 /add/netpp "$1" server "$B_IP4" "$2" "$3" &
	spid=$!
	sleep 0.5
	v=$(in_ns A timeout 30 /add/netpp "$1" client "$B_IP4" "$2" "$3")
	rc=$?
	wait "$spid"	# not a bare wait: the counting event (SYSC_HOLD) never ends
	echo "$v"
	return $rc
}

# tcp_round MTU: the kernel's TCP and UDP between netns A and B over the
# veth pair of sroce0 <-> sroce1, one value per veth row of MTU (see the
# header): iperf3 for the bandwidth rows, netpp's TCP and UDP ping-pongs
# for the latency rows.
TCP_PORT=5301
tcp_round() {
	local mtu=$1 prog bw='' lat='' udp='' out spid
	if command -v iperf3 >/dev/null; then
		in_ns B timeout $((BENCH_DURATION + 30)) iperf3 -s -1 -p "$TCP_PORT" >/dev/null 2>&1 &
		spid=$!
		sleep 0.5
		out=$(in_ns A timeout $((BENCH_DURATION + 30)) iperf3 -c "$B_IP4" -p "$TCP_PORT" \
			-t "$BENCH_DURATION" -O "$BENCH_MARGIN" -l "$BW_SIZE" -f g 2>&1)
		wait "$spid"
		TCP_PORT=$((TCP_PORT + 1))
		echo "| ==== mtu$mtu tcp: iperf3 -t $BENCH_DURATION -O $BENCH_MARGIN -l $BW_SIZE"
		raw <<<"$out"
		bw=$(awk '/receiver/ { for (i = 2; i <= NF; i++) if ($i == "Gbits/sec") print $(i - 1) }' <<<"$out")
		[[ -n $bw ]] && note "mtu$mtu tcp (iperf3): $bw Gb/s" || note "tcp bandwidth: no iperf3 result"
	fi
	if [[ -x /add/netpp ]]; then
		lat=$(netpp tcp "$TCP_PORT" "$BENCH_LAT_ITERS")
		TCP_PORT=$((TCP_PORT + 1))
		[[ -n $lat ]] && note "mtu$mtu tcp (2-byte ping-pong): $lat us one way" || note "tcp latency: no netpp result"
		udp=$(netpp udp "$TCP_PORT" 5000)
		TCP_PORT=$((TCP_PORT + 1))
		[[ -n $udp ]] && note "mtu$mtu udp (2-byte ping-pong): $udp us one way" || note "udp latency: no netpp result"
	fi
	for prog in $BENCH_TESTS; do
		if [[ $prog == *_bw ]]; then
			[[ -z $bw ]] || add_value "veth/mtu$mtu/$prog" tcp "$bw"
			continue
		fi
		[[ -z $lat ]] || add_value "veth/mtu$mtu/$prog" tcp "$(awk -v l="$lat" -v p="$prog" 'BEGIN { print (p == "ib_read_lat" ? 2 : 1) * l }')"
		[[ -z $udp ]] || add_value "veth/mtu$mtu/$prog" udp "$(awk -v l="$udp" -v p="$prog" 'BEGIN { print (p == "ib_read_lat" ? 2 : 1) * l }')"
	done
}

# ---- scenario congestion (hook) ----------------------------------------------
# scenario_congestion: the congestion benchmark, tests/tools/bench-cc.sh (its
# own owner: a sender, routers and a tbf/ECN bottleneck from cc-lib.sh, DCQCN
# on/off, its own table of goodput, retransmissions and CNPs), run as a
# child in a clean state by `scripts/bench --scenario "base congestion"` (or
# "congestion" alone); its BENCH_CC_* knobs pass through scripts/bench, the
# qdisc modules it may need come from `scripts/bench --add DIR`. Its exit
# status counts: non-zero is a failed run. To put congestion rows into the
# sroce|rxe table instead, replace this function: the helpers above
# (setup_all, add_row, bench_run, add_value, note, raw) are the interface.
scenario_congestion() {
	[[ -f ./tools/bench-cc.sh ]] || { note "SKIP scenario congestion: no tests/tools/bench-cc.sh"; return 0; }
	reset_state
	if ! bash ./tools/bench-cc.sh; then
		note "FAILED scenario congestion: tests/tools/bench-cc.sh exited non-zero"
		failures=$((failures + 1))
	fi
	reset_state
}

# scenario_sweep: ib_write_bw and ib_write_lat over every message size
# (perftest -a, 2 B .. 8 MiB) on sroce and rxe, each on one device (the
# one-device topology), at the first MTU of BENCH_MTUS; prints "bench:
# sweep ROW WHICH SIZE VALUE" lines (Gb/s or us), which scripts/bench plots.
scenario_sweep() {
	local mtu=${BENCH_MTUS%% *} prog kind out
	local PAIR_TIMEOUT=${BENCH_SWEEP_TIMEOUT:-600}   # 2 B .. 8 MiB under TCG
	export SWEEP_OUT=$LOG_DIR/sweep
	: >"$SWEEP_OUT"
	if ! out=$(setup_all "$mtu" 2>&1); then
		note "FAILED sweep setup at MTU $mtu: $out"
		failures=$((failures + 1))
		return 1
	fi
	for prog in ${BENCH_SWEEP_TESTS:-ib_write_bw ib_write_lat}; do
		kind=bw
		[[ $prog == *_lat ]] && kind=lat
		bench_run "sweep/mtu$mtu/$prog" "$kind" sroce "${OD_SROCE[@]}" "$prog" -a -n "${BENCH_SWEEP_ITERS:-20}"
		bench_run "sweep/mtu$mtu/$prog" "$kind" rxe "${OD_RXE[@]}" "$prog" -a -n "${BENCH_SWEEP_ITERS:-20}"
	done
	sed 's/^/bench: sweep /' "$SWEEP_OUT"
	unset SWEEP_OUT
}

# fio_value DEV NAME RW BS QD FIELD: one time-based fio job on DEV (libaio,
# direct); prints its read IOPS (FIELD iops) or read bandwidth in MB/s
# (FIELD bw), from fio's terse output (field 7: KiB/s, 8: IOPS).
fio_value() {
	local out
	out=$(bounded $((BENCH_FIO_RUNTIME + 120)) fio --name="$2" --filename="$1" --rw="$3" \
		--bs="$4" --iodepth="$5" --ioengine=libaio --direct=1 --time_based \
		--runtime="$BENCH_FIO_RUNTIME" --ramp_time=2 --minimal) || { echo "$out" | raw >&2; return 1; }
	echo "$out" | raw >&2   # (to the log, not into the value)
	awk -F';' -v f="$6" '$1 == 3 { print (f == "iops") ? $8 : sprintf("%.1f", $7 * 1024 / 1e6); exit }' <<<"$out"
}

# kernel_run WHICH: nvmet and nvme-rdma on one device of WHICH (sroce or
# rxe) on a dummy netdev in init_net (kernel ULPs live there, and only one
# of sroce and rxe can own UDP 4791 in a netns), the two fio rows, teardown.
kernel_run() {
	local dev v out
	reset_state
	"$MODPROBE" -r rdma_rxe 2>/dev/null
	"$IP" link del bnch0 2>/dev/null
	"$IP" link add bnch0 type dummy && "$IP" addr add 10.48.0.1/24 dev bnch0 && "$IP" link set bnch0 up &&
	if [[ $1 == rxe ]]; then
		"$MODPROBE" rdma_rxe && "$RDMA" link add rxe0 type rxe netdev bnch0
	else
		sroce_bind sroce0 bnch0
	fi && out=$(nvmet_up 10.48.0.1 2>&1) && dev=$(nvme_connect 10.48.0.1 2>&1) || {
		note "FAILED kernel $1: ${out:-} ${dev:-}"
		failures=$((failures + 1))
		nvmet_down
		return 1
	}
	if v=$(fio_value "$dev" qd16 randread 4k 16 iops); then
		add_value nvme-rdma/randread-4k-qd16 "$1" "$v"; note "nvme-rdma randread 4k qd16 $1: $v IOPS"
	else
		note "FAILED kernel $1: fio 4k"; failures=$((failures + 1))
	fi
	if v=$(fio_value "$dev" seq128k read 128k 4 bw); then
		add_value nvme-rdma/read-128k-qd4 "$1" "$v"; note "nvme-rdma read 128k qd4 $1: $v MB/s"
	else
		note "FAILED kernel $1: fio 128k"; failures=$((failures + 1))
	fi
	nvme_disconnect
	nvmet_down
	reset_state
	"$MODPROBE" -r rdma_rxe 2>/dev/null
	"$IP" link del bnch0 2>/dev/null
}

# scenario_kernel: fio over NVMe/RDMA (nvmet-rdma target and nvme-rdma host
# on the same device, loopback) on sroce and on rxe, alternately.
scenario_kernel() {
	local rep which order
	add_row nvme-rdma/randread-4k-qd16 IOPS bw
	add_row nvme-rdma/read-128k-qd4 MB/s bw
	for ((rep = 0; rep < BENCH_REPS; rep++)); do
		order=(sroce rxe)
		((rep % 2)) && order=(rxe sroce)
		for which in "${order[@]}"; do kernel_run "$which"; done
	done
	"$MODPROBE" rdma_rxe   # what the later scenarios expect
}

# ---- profile -----------------------------------------------------------------

# scenario_profile: where the CPU time goes, by symbol. At the first MTU of
# BENCH_MTUS: ib_write_bw (64 KiB, -D BENCH_DURATION) and ib_write_lat
# (2 B, BENCH_PROF_LAT_ITERS round trips) on one device (sroce, then
# rdma_rxe) and over the veth (sroce <-> sroce), each under a system-wide
# sampling profile of the steady state: perf record -a -g -e cpu-clock -F
# BENCH_PROF_HZ (default 1999), from 2 s after the pair starts, for
# BENCH_DURATION - 1 s. Printed per run: the samples' shares by where the
# code lives (idle, sroce, rdma_rxe, the rest of the kernel, user space:
# profile_shares), then the BENCH_PROF_TOP (default 25) symbols with the
# most self time, idle left out, each with its share of all samples; the
# report with call chains goes to the log.
# scripts/bench --scenario profile puts the host's perf, with the shared
# libraries it needs, in /add/perf.
perf_cmd() { LD_LIBRARY_PATH=/add/perf/lib /add/perf/perf "$@"; }

# profile_run NAME KIND SIDE PROG ARGS...: one bench_run under the profile.
profile_run() {
	local name=$1 kind=$2 data=$LOG_DIR/profile.data ppid
	local -n side=$3
	shift 3
	rm -f "$data"
	(sleep 2 && perf_cmd record -q -a -g -e cpu-clock -F "${BENCH_PROF_HZ:-1999}" \
		-o "$data" -- sleep "$((BENCH_DURATION > 2 ? BENCH_DURATION - 1 : 1))") >"$LOG_DIR/profile.err" 2>&1 &
	ppid=$!
	bench_run "profile/$name" "$kind" "${name%%/*}" "${side[@]}" "$@"
	wait "$ppid"
	if [[ ! -s $data ]]; then
		note "FAILED profile $name: $(tail -n 2 "$LOG_DIR/profile.err" | tr '\n' ' ')"
		failures=$((failures + 1))
		return 1
	fi
	echo "| ==== profile $name: perf report --no-children"
	perf_cmd report -i "$data" --stdio --no-children --percent-limit 0.5 2>&1 | raw
	perf_cmd report -i "$data" --stdio --no-children --sort sym -g none 2>/dev/null |
		awk '/^ *[0-9.]+%/ { sub(/%/, "", $1); print $1, $NF, $2 }' >"$LOG_DIR/profile.syms"
	note "profile $name: $(profile_shares "$LOG_DIR/profile.syms")"
	awk -v top="${BENCH_PROF_TOP:-25}" -v idle="$PROFILE_IDLE" \
		'$2 !~ idle && n < top { n++; printf "%6.2f%%  %s %s\n", $1, $3, $2 }' "$LOG_DIR/profile.syms" |
		sed "s|^|bench: profile $name:  |"
}

# profile_shares SYMS: the samples' shares ("PERCENT SYMBOL [k]|[.]"
# lines) by where the symbol lives: idle, sroce, rdma_rxe, the rest of
# the kernel (its other modules included), user space ([.]: the provider
# has symbols of the module's names, such as sroce_poll_cq).
PROFILE_IDLE='^(native_safe_halt|default_idle|amd_e400_idle|mwait_idle|intel_idle|cpu_idle_poll|acpi_idle_do_entry|pv_native_safe_halt)$'
profile_shares() {
	awk -v idle="$PROFILE_IDLE" 'NR == FNR { m[$3] = NF > 3 ? $4 : "[kernel]"; next }
		{ w = $3 == "[.]" ? "user" : $2 ~ idle ? "idle" : ($2 in m) ? m[$2] : "kernel"
		  if (w != "idle" && w != "[sroce]" && w != "[rdma_rxe]" && w != "user") w = "kernel"
		  s[w] += $1 }
		END { for (w in s) printf "%s %.1f%%  ", w, s[w] }' /proc/kallsyms "$1"
}

scenario_profile() {
	local mtu=${BENCH_MTUS%% *} out
	[[ -x /add/perf/perf ]] || { note "FAILED scenario profile: no /add/perf/perf (scripts/bench --scenario profile)"; failures=$((failures + 1)); return 1; }
	if ! out=$(setup_all "$mtu" 2>&1); then
		note "FAILED setup at MTU $mtu: $out"
		failures=$((failures + 1))
		return 1
	fi
	local lat=(-s "$LAT_SIZE" -n "${BENCH_PROF_LAT_ITERS:-100000}") bw=(-s "$BW_SIZE" -D "$BENCH_DURATION" -f "$BENCH_MARGIN")
	profile_run sroce/od/ib_write_bw bw OD_SROCE ib_write_bw "${bw[@]}"
	profile_run rxe/od/ib_write_bw bw OD_RXE ib_write_bw "${bw[@]}"
	profile_run sroce/veth/ib_write_bw bw VE_SROCE ib_write_bw "${bw[@]}"
	profile_run sroce/od/ib_write_lat lat OD_SROCE ib_write_lat "${lat[@]}"
	profile_run rxe/od/ib_write_lat lat OD_RXE ib_write_lat "${lat[@]}"
}

# scenario_memory: module size and kernel memory per QP (always run).
scenario_memory() {
	local m size out
	for m in sroce rdma_rxe; do
		size=$(awk -v m="$m" '$1 == m { print $2 }' /proc/modules)
		[[ -n $size ]] && add_value "module-size" "${m#rdma_}" "$(awk -v s="$size" 'BEGIN { printf "%.1f", s / 1024 }')"
	done
	add_row module-size KiB mem
	[[ -x /add/qpmem ]] || { note "no /add/qpmem: per-QP memory not measured"; return 0; }
	add_row "qp-kernel-mem-x$BENCH_QPS" KiB/QP mem
	add_row "qp-slab-mem-x$BENCH_QPS" KiB/QP mem
	# sroce0 and rxe0 exist from the last MTU's setup; otherwise set up.
	[[ -e /sys/class/infiniband/sroce0 && -e /sys/class/infiniband/rxe0 ]] ||
		setup_all 1500 >/dev/null 2>&1
	for m in sroce0 rxe0 sroce0 rxe0; do
		if out=$(bounded 120 /add/qpmem "$m" "$BENCH_QPS"); then
			echo "$out" | raw
			add_value "qp-kernel-mem-x$BENCH_QPS" "${m%0}" "$(awk '$1 == "kernel_kib_per_qp" { print $2 }' <<<"$out")"
			add_value "qp-slab-mem-x$BENCH_QPS" "${m%0}" "$(awk '$1 == "slab_kib_per_qp" { print $2 }' <<<"$out")"
		else
			note "FAILED qpmem $m: $(tail -n 2 <<<"$out" | tr '\n' ' ')"
			failures=$((failures + 1))
		fi
	done
}

# ---- tables ------------------------------------------------------------------

# median ROW WHICH: the median of the values of ROW for WHICH, "n/a" when
# there are none; with an even count, the mean of the middle two.
median() {
	awk -v r="$1" -v w="$2" '$1 == r && $2 == w && $3 != "" { print $3 }' "$RESULTS" | sort -g |
		awk '{ v[NR] = $1 } END {
			if (!NR) { print "n/a"; exit }
			m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf (m >= 1000 ? "%.0f\n" : "%.3g\n"), m }'
}

# total ROW WHICH: the sum of the values of ROW for WHICH ("n/a": none).
total() {
	awk -v r="$1" -v w="$2" '$1 == r && $2 == w { s += $3; n++ }
		END { if (n) print s; else print "n/a" }' "$RESULTS"
}

# ratio A B: A/B to 2 decimals, "n/a" unless both are positive numbers.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a ~ /^[0-9.e+-]+$/ && b ~ /^[0-9.e+-]+$/ && a + 0 > 0 && b + 0 > 0) printf "%.2f\n", a / b
		else print "n/a" }'
}

# retx_nak ROW WHICH: "RETRANSMITS/SEQ_NAKS" summed over ROW's runs.
retx_nak() {
	local r n
	r=$(total "$1" "$2:retx") n=$(total "$1" "$2:nak")
	[[ $r == n/a ]] && echo - || echo "$r/$n"
}

# grid: lines "f1|f2|..." (the first: the header), aligned, the first
# column to the left.
grid() {
	awk -F'|' '{ r[NR] = $0; for (j = 1; j <= NF; j++) if (length($j) > w[j]) w[j] = length($j) }
		END { for (i = 1; i <= NR; i++) { k = split(r[i], f, "|"); s = sprintf("%-" w[1] "s", f[1])
			for (j = 2; j <= k; j++) s = s sprintf(" | %" w[j] "s", f[j]); print s } }'
}

# perf_rows_of TOPO MTU: the row names of a topology at MTU, in order,
# "ROW|LABEL|KIND"; the q ratios last, as "q4/q1" etc.
perf_rows_of() {
	local prog q prev=''
	for prog in $BENCH_TESTS; do
		echo "$1/mtu$2/$prog|$prog$([[ $prog == *_lat ]] && echo " -s $LAT_SIZE (us)" || echo " -s $BW_SIZE (Gb/s)")|$([[ $prog == *_lat ]] && echo lat || echo bw)"
	done
	[[ " $BENCH_TESTS " == *" ib_write_bw "* ]] || return 0
	for q in $BENCH_QPN; do echo "$1/mtu$2/ib_write_bw-q$q|ib_write_bw -q $q (Gb/s)|bw"; done
	prev=1
	for q in $BENCH_QPN; do
		echo "$1/mtu$2/ib_write_bw-q$q:$1/mtu$2/ib_write_bw$([[ $prev != 1 ]] && echo "-q$prev")|scaling q$q/q$prev|ratio"
		prev=$q
	done
}

# value ROW WHICH KIND: the median, or for KIND ratio (ROW "NUM:DEN") the
# ratio of the two rows' medians.
value() {
	if [[ $3 == ratio ]]; then
		ratio "$(median "${1%%:*}" "$2")" "$(median "${1#*:}" "$2")"
	else
		median "$1" "$2"
	fi
}

# cost_cols ROW WHICH KIND: CPU-s/GB, syscalls/msg (bandwidth rows) and
# retransmits/seq NAKs of WHICH in ROW.
cost_cols() {
	if [[ $3 == bw ]]; then
		echo "$(median "$1" "$2:cpu")|$(median "$1" "$2:sysc")|$(retx_nak "$1" "$2")"
	elif [[ $3 == lat ]]; then
		echo "-|-|$(retx_nak "$1" "$2")"
	else
		echo "-|-|-"
	fi
}

# table_od / table_veth / table_compare / table_other: the tables.
table_od() {
	local mtu row label kind s x
	for mtu in $BENCH_MTUS; do
		echo "test (one device, MTU $mtu)|sroce|rxe|sroce/rxe|sroce CPU-s/GB|rxe CPU-s/GB|sroce sysc/msg|rxe sysc/msg|sroce retx/nak"
		perf_rows_of od "$mtu" | while IFS='|' read -r row label kind; do
			s=$(value "$row" sroce "$kind") x=$(value "$row" rxe "$kind")
			IFS='|' read -r sc ss sr <<<"$(cost_cols "$row" sroce "$kind")"
			IFS='|' read -r xc xs _ <<<"$(cost_cols "$row" rxe "$kind")"
			echo "$label|$s|$x|$(ratio "$s" "$x")|$sc|$xc|$ss|$xs|$sr"
		done
	done | grid
}

table_veth() {
	local mtu row label kind s x t u
	for mtu in $BENCH_MTUS; do
		echo "test (veth, MTU $mtu)|sroce|rxe->sroce|tcp|udp|sroce/tcp|sroce/udp|sroce CPU-s/GB|rxe->sroce CPU-s/GB|sroce sysc/msg|sroce retx/nak|rxe->sroce retx/nak"
		perf_rows_of veth "$mtu" | while IFS='|' read -r row label kind; do
			s=$(value "$row" sroce "$kind") x=$(value "$row" rxe "$kind")
			t=$(median "$row" tcp) u=$(median "$row" udp)
			[[ $kind == ratio ]] && t=n/a u=n/a
			IFS='|' read -r sc ss sr <<<"$(cost_cols "$row" sroce "$kind")"
			IFS='|' read -r xc _ xr <<<"$(cost_cols "$row" rxe "$kind")"
			echo "$label|$s|$x|$t|$u|$(ratio "$s" "$t")|$(ratio "$s" "$u")|$sc|$xc|$ss|$sr|$xr"
		done
	done | grid
}

table_compare() {
	local mtu topo row label kind b n
	for mtu in $BENCH_MTUS; do
		for topo in od veth; do
			echo "test ($([[ $topo == od ]] && echo "one device" || echo veth), MTU $mtu)|base|new|new/base|base CPU-s/GB|new CPU-s/GB|base sysc/msg|new sysc/msg|base retx/nak|new retx/nak"
			perf_rows_of "$topo" "$mtu" | while IFS='|' read -r row label kind; do
				b=$(value "$row" base "$kind") n=$(value "$row" new "$kind")
				IFS='|' read -r bc bs br <<<"$(cost_cols "$row" base "$kind")"
				IFS='|' read -r nc ns nr <<<"$(cost_cols "$row" new "$kind")"
				echo "$label|$b|$n|$(ratio "$n" "$b")|$bc|$nc|$bs|$ns|$br|$nr"
			done
		done
	done | grid
}

table_other() {
	local e row unit kind s x
	{
		echo "test|sroce|rxe|sroce/rxe"
		for e in "${ROWS[@]}"; do
			IFS='|' read -r row unit kind <<<"$e"
			s=$(median "$row" sroce) x=$(median "$row" rxe)
			echo "$row ($unit)|$s|$x|$(ratio "$s" "$x")"
		done
	} | grid
}

print_tables() {
	local reps="median of $BENCH_REPS round(s); bw = BW average, lat = t_typical; CPU-s/GB: guest CPU time over bytes moved; sysc/msg: client + server system calls per message; retx/nak: retransmits/seq_nak_sent summed over the runs"
	if [[ " $BENCH_SCENARIOS " == *" base "* ]]; then
		echo "=== table one device: client and server on one device ($reps)"
		table_od
		echo "=== end table"
		echo "=== table veth: two netns over a veth pair, the kernel's TCP and UDP on the same pair ($reps)"
		table_veth
		echo "=== end table"
	fi
	if [[ " $BENCH_SCENARIOS " == *" compare "* ]]; then
		echo "=== table compare: sroce, base (/add/base) and new builds, alternating per round in one VM run ($reps)"
		table_compare
		echo "=== end table"
	fi
	echo "=== table other"
	table_other
	echo "=== end table"
}

# ---- targets -----------------------------------------------------------------

# target NAME VALUE OP LIMIT: "target NAME: VALUE, wanted OP LIMIT: met"
# (or MISSED, or no data).
target() {
	awk -v n="$1" -v v="$2" -v op="$3" -v l="$4" 'BEGIN {
		if (v !~ /^[0-9.e+-]+$/) { printf "target %s: no data (wanted %s %s)\n", n, op, l; exit }
		ok = (op == ">=") ? v + 0 >= l + 0 : (op == "==") ? v + 0 == l + 0 : v + 0 <= l + 0
		printf "target %s: %s, wanted %s %s: %s\n", n, v, op, l, ok ? "met" : "MISSED" }'
}

# sum_all WHICH_SUFFIX: the sum of every base-scenario sroce run's
# WHICH_SUFFIX (retx or nak), both topologies, rxe->sroce included.
sum_all() {
	awk -v k="$1" '$1 ~ /^(od|veth)\// && ($2 == "sroce:" k || $2 == "rxe:" k) { s += $3; n++ }
		END { if (n) print s; else print "n/a" }' "$RESULTS"
}

print_targets() {
	local mtu prog topo q prev s x
	[[ " $BENCH_SCENARIOS " == *" base "* ]] || return 0
	for mtu in $BENCH_MTUS; do
		for prog in $BENCH_TESTS; do
			s=$(median "od/mtu$mtu/$prog" sroce) x=$(median "od/mtu$mtu/$prog" rxe)
			if [[ $prog == *_bw ]]; then
				target "one device mtu$mtu $prog sroce/rxe" "$(ratio "$s" "$x")" ">=" 3
				target "one device mtu$mtu $prog CPU-s/GB sroce/rxe" \
					"$(ratio "$(median "od/mtu$mtu/$prog" sroce:cpu)" "$(median "od/mtu$mtu/$prog" rxe:cpu)")" "<=" 0.33
				target "veth mtu$mtu $prog sroce/tcp" "$(ratio "$(median "veth/mtu$mtu/$prog" sroce)" "$(median "veth/mtu$mtu/$prog" tcp)")" ">=" 1
			else
				target "one device mtu$mtu $prog sroce/rxe" "$(ratio "$s" "$x")" "<=" 0.7
				target "veth mtu$mtu $prog sroce/udp" "$(ratio "$(median "veth/mtu$mtu/$prog" sroce)" "$(median "veth/mtu$mtu/$prog" udp)")" "<=" 1.3
			fi
		done
		[[ " $BENCH_TESTS " == *" ib_write_bw "* ]] || continue
		for topo in od veth; do
			prev=1
			for q in $BENCH_QPN; do
				s=$(value "$topo/mtu$mtu/ib_write_bw-q$q:$topo/mtu$mtu/ib_write_bw$([[ $prev != 1 ]] && echo "-q$prev")" sroce ratio)
				target "$([[ $topo == od ]] && echo "one device" || echo veth) mtu$mtu sroce q$q/q$prev" "$s" ">=" \
					"$( ((prev == 1)) && echo 1.7 || echo 1)"
				prev=$q
			done
		done
	done
	target "lossless paths: sroce retransmits, all runs" "$(sum_all retx)" "==" 0
	target "lossless paths: sroce seq_nak_sent, all runs" "$(sum_all nak)" "==" 0
	target "kernel memory per QP sroce/rxe" \
		"$(ratio "$(median "qp-kernel-mem-x$BENCH_QPS" sroce)" "$(median "qp-kernel-mem-x$BENCH_QPS" rxe)")" "<=" 1
}

# use_tsc_clock: run perftest with /add/tscclock.so preloaded (see
# scripts/bench: its clock calibration otherwise fails often in TCG) if that
# clock agrees with CLOCK_MONOTONIC within 1 % over 0.5 s.
PERF_WRAP=(env)
use_tsc_clock() {
	local t
	[[ ${BENCH_TSC_CLOCK:-1} != 0 && -f /add/tscclock.so && -x /add/clockcheck ]] ||
		{ note "perftest calibrates its clock itself"; return 0; }
	t=$(LD_PRELOAD=/add/tscclock.so /add/clockcheck)
	if awk -v a="${t% *}" -v b="${t#* }" 'BEGIN { exit !(b > 0 && a / b > 0.99 && a / b < 1.01) }'; then
		PERF_WRAP=(env LD_PRELOAD=/add/tscclock.so)
		note "perftest runs with the TSC clock (/add/tscclock.so; over 0.5 s: $t us TSC/monotonic, cpu MHz $(awk '/^cpu MHz/ { print $4; exit }' /proc/cpuinfo))"
	else
		note "TSC clock disagrees with CLOCK_MONOTONIC ($t us): perftest calibrates its clock itself"
	fi
}

# ---- main --------------------------------------------------------------------

require_sroce bench/modprobe-sroce && require_provider bench/provider || exit 1
"$MODPROBE" rdma_rxe || { note "FAILED modprobe rdma_rxe"; exit 1; }
use_tsc_clock
# the sys_enter tracepoint's id for /add/sysc (read here: the sysfs of
# `ip netns exec` has no debugfs)
SYSC_TP=$(cat /sys/kernel/tracing/events/raw_syscalls/sys_enter/id 2>/dev/null ||
	cat /sys/kernel/debug/tracing/events/raw_syscalls/sys_enter/id 2>/dev/null)
if [[ ! -x /add/sysc || -z $SYSC_TP ]] || ! /add/sysc -t "$SYSC_TP" "$LOG_DIR/sysc.check" true ||
	grep -q unavailable "$LOG_DIR/sysc.check"; then
	note "system calls not counted: $(cat "$LOG_DIR/sysc.check" 2>/dev/null || echo "no /add/sysc or no tracepoint")"
	SYSC_TP=
fi
# One counting event held for the whole run, so that the scheduler's and
# the tracepoint's static keys, switched on by the first perf event and
# off by the last, are patched once, not around every run: under TCG a
# vCPU once ran the int3 of a patch of __schedule after the patch was
# done (a guest oops, Linux 6.12).
if [[ -n $SYSC_TP ]]; then
	/add/sysc -t "$SYSC_TP" /dev/null sleep 100000 &
	SYSC_HOLD=$!
	trap 'kill "$SYSC_HOLD" 2>/dev/null' EXIT
fi
note "guest $(uname -r), $(nproc) vCPUs; reps $BENCH_REPS, bw -D $BENCH_DURATION -f $BENCH_MARGIN, lat -n $BENCH_LAT_ITERS, -q $BENCH_QPN"
start=$SECONDS
for sc in $BENCH_SCENARIOS; do
	if declare -F "scenario_$sc" >/dev/null; then
		note "=== scenario $sc"
		"scenario_$sc"
	else
		note "SKIP scenario $sc: not written yet (scenario_$sc: see the hook in tests/tools/bench.sh)"
	fi
done
scenario_memory
reset_state
note "done in $((SECONDS - start))s, $failures failed run(s), $retries repeated after a clock calibration failure"

print_tables
print_targets
dmesg | grep -E "$SPLAT" | head -n 5 | sed 's/^/bench: dmesg: /'
((failures == 0))
