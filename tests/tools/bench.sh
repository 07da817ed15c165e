#!/bin/bash
# bench.sh (guest side of scripts/bench): the same perftest commands on
# sroce <-> sroce and on rdma_rxe, in one VM run, with a table of both.
#
#   sroce: sroce0 on vethA in netns A (client) <-> sroce1 on vethB in netns B
#          (server), a veth pair: every packet crosses the UDP/IP stack.
#   rxe:   rxe0 on vethR in init_net, server and client both on rxe0 and its
#          address (rxe's single-device loopback, as upstream benchmarks it).
#
# Per netdev MTU (BENCH_MTUS) and test (BENCH_TESTS) the sroce and the rxe
# run alternate, BENCH_REPS times (the order flips each round), so host-load
# drift hits both alike; the table shows each side's median. Bandwidth tests
# run in duration mode (-D BENCH_DURATION, margin BENCH_MARGIN s at both ends,
# so the average covers DURATION - 2 * MARGIN s) and report BW average in
# Gb/s; latency tests run BENCH_LAT_ITERS iterations and report t_typical
# (the median) in us. All with -F --report_gbits -x <RoCE v2 GID index>.
# Then memory: /proc/modules size of sroce and rdma_rxe, and, when scripts/bench
# added /add/qpmem, the kernel memory (slab + vmalloc, and slab alone) per RC
# QP; and, with /add/netpp, the one-way time of a plain UDP ping-pong over
# the same veth pair (context for the latency rows). Helpers compiled by
# scripts/bench come in /add/ (tscclock.so: see use_tsc_clock).
# The kernel's own TCP on the same veth pair is the third column, measured
# in each round after the perftest runs: iperf3 (one stream, 64 KiB writes,
# the same duration and margin) for the bandwidth rows, a 2-byte TCP_NODELAY
# ping-pong (/add/netpp; half the round trip, the whole one for the READ
# row, as perftest reports them) for the latency rows.
#
# Output: progress lines (with a summary of the retransmission/error hw
# counters per MTU), then the table
# `test | sroce | rxe | tcp | sroce/rxe | sroce/tcp`
# between "=== table" and "=== end table", then the targets. Every line of
# raw perftest output, hw counter and CPU-time delta starts with "| " (the
# host puts those only in the log). Exits 0 when every run produced a number
# (whatever the number), 1 otherwise.
#
# Knobs (env): BENCH_MTUS ("1500 9000"), BENCH_TESTS (the six below),
# BENCH_REPS (3), BENCH_DURATION (5), BENCH_MARGIN (1), BENCH_LAT_ITERS (2000),
# BENCH_QPS (100, for the per-QP memory), BENCH_RETRIES (4), BENCH_TSC_CLOCK
# (1; 0: no /add/tscclock.so), BENCH_SCENARIOS ("base"; "congestion": see
# the hook below; "kernel": fio over NVMe/RDMA, see scenario_kernel;
# "sweep": bandwidth and latency over message sizes, see scenario_sweep),
# BENCH_FIO_RUNTIME (10 s per fio job).
# run from tests/, where lib.sh and the test programs (bin/) are
# shellcheck source-path=SCRIPTDIR/..
cd "$(dirname "$0")/.." && source ./lib.sh && source ./ulp-lib.sh

BENCH_MTUS=${BENCH_MTUS:-1500 9000}
BENCH_TESTS=${BENCH_TESTS:-ib_write_bw ib_write_lat ib_send_bw ib_send_lat ib_read_bw ib_read_lat}
BENCH_REPS=${BENCH_REPS:-3}
BENCH_DURATION=${BENCH_DURATION:-5}
BENCH_MARGIN=${BENCH_MARGIN:-1}
BENCH_LAT_ITERS=${BENCH_LAT_ITERS:-2000}
BENCH_QPS=${BENCH_QPS:-100}
BENCH_SCENARIOS=${BENCH_SCENARIOS:-base}
BENCH_RETRIES=${BENCH_RETRIES:-4}
BENCH_FIO_RUNTIME=${BENCH_FIO_RUNTIME:-10}
BW_SIZE=65536 LAT_SIZE=2

RESULTS=$LOG_DIR/bench.results   # "ROW DEV VALUE" per successful run
ROWS=()                           # table rows, in order: "ROW|UNIT|KIND"
failures=0 retries=0
: >"$RESULTS"

raw() { sed 's/^/| /' "$@"; }     # log-only lines (the host filters "| ")
note() { echo "bench: $*"; }

# ---- measurements ------------------------------------------------------------

# cpu_snap: the aggregate "cpu" line of /proc/stat (jiffies).
cpu_snap() { head -n1 /proc/stat; }

# cpu_delta BEFORE AFTER: where the CPU time of a run went, in %.
cpu_delta() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		n = split(a, x); split(b, y); t = 0
		for (i = 2; i <= n; i++) { d[i] = y[i] - x[i]; t += d[i] }
		if (t <= 0) exit
		printf "cpu: usr %.0f%% sys %.0f%% irq %.0f%% softirq %.0f%% idle %.0f%%\n",
			100 * (d[2] + d[3]) / t, 100 * d[4] / t, 100 * d[7] / t, 100 * d[8] / t,
			100 * (d[5] + d[6]) / t }'
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

# bench_run ROW KIND WHICH SRV_NS SRV_DEV SRV_IP CLI_NS CLI_DEV CLI_IP PROG ARGS...
# One perftest pair (lib.sh's pair_exec), its value appended to $RESULTS as
# "ROW WHICH VALUE"; the raw client output, the hw counters that moved and the
# CPU split go to the log. perftest's clock calibration sometimes fails under
# a loaded TCG host ("Correlation coefficient r^2 < 0.9", then latencies of
# "inf"): such a run is repeated, up to BENCH_RETRIES times. Returns 1 (and
# counts a failure) without a number.
bench_run() {
	local row=$1 kind=$2 which=$3 sns=$4 sdev=$5 sip=$6 cns=$7 cdev=$8 cip=$9
	shift 9
	local prog=$1 sgid cgid c0 c1 s0 s1 val rc try port
	shift
	if ! sgid=$(gid_index "$sdev" "$sip" 2>&1) || ! cgid=$(gid_index "$cdev" "$cip" 2>&1); then
		note "FAILED $row $which: $sgid ${cgid:-}"
		failures=$((failures + 1))
		return 1
	fi
	for ((try = 0; try <= BENCH_RETRIES; try++)); do
		port=$PERF_PORT
		PERF_PORT=$((PERF_PORT + 1))
		local common=(-F --report_gbits -p "$port" "$@")
		c0=$(counters_snap "$sdev" "$cdev" | sort -u) s0=$(cpu_snap)
		pair_exec "bench-$which-$row" "$sns" "$cns" "$port" \
			"${PERF_WRAP[@]}" "$prog" -d "$sdev" -x "$sgid" "${common[@]}" -- \
			"${PERF_WRAP[@]}" "$prog" -d "$cdev" -x "$cgid" "${common[@]}" "$sip"
		rc=$?
		s1=$(cpu_snap) c1=$(counters_snap "$sdev" "$cdev" | sort -u)
		echo "| ==== $row $which: $prog -d $cdev -x $cgid ${common[*]} $sip"
		raw "$PAIR_CLOG"
		echo "| $(cpu_delta "$s0" "$s1")"
		echo "| counters: $(counters_delta "$c0" "$c1")"
		if ((rc == 0)) && val=$(perf_value "$PAIR_CLOG" "$kind"); then
			echo "$row $which $val" >>"$RESULTS"
			[[ -z ${SWEEP_OUT:-} ]] || perf_rows "$PAIR_CLOG" "$kind" | sed "s|^|$row $which |" >>"$SWEEP_OUT"
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

# add_row ROW UNIT KIND: declare a table row (KIND bw: higher is better, lat
# or mem: lower is better).
add_row() { ROWS+=("$1|$2|$3"); }

# add_value ROW WHICH VALUE: a value measured outside bench_run.
add_value() { echo "$1 $2 $3" >>"$RESULTS"; }

# ---- topology ----------------------------------------------------------------

# setup_both MTU: sroce0 (netns A) <-> sroce1 (netns B) over vethA/vethB, and
# rxe0 on vethR in init_net, all at netdev MTU MTU.
setup_both() {
	reset_state
	setup_two_netns "$1" && sroce_bind sroce0 vethA && sroce_bind sroce1 vethB &&
		setup_rxe_and_netns_b "$1"
}

SROCE_SIDE=(B sroce1 "$B_IP4" A sroce0 "$A_IP4")
RXE_SIDE=(- rxe0 "$R_IP4" - rxe0 "$R_IP4")

# ---- scenarios ---------------------------------------------------------------
# A scenario is a function scenario_NAME, run when NAME is in
# BENCH_SCENARIOS. It sets up its topology (setup_both or its own), declares
# its rows with add_row, runs bench_run for "sroce" and "rxe" alternately,
# and may add_value other figures. The table and the targets come after all
# scenarios ran.

# scenario_base: the six perftest tests at each MTU of BENCH_MTUS.
scenario_base() {
	local mtu prog rep kind row args order out which
	for mtu in $BENCH_MTUS; do
		note "--- MTU $mtu: setting up sroce0 <-> sroce1 and rxe0"
		if ! out=$(setup_both "$mtu" 2>&1); then
			note "FAILED setup at MTU $mtu: $out"
			failures=$((failures + 1))
			continue
		fi
		echo "| ==== MTU $mtu"
		{ "$RDMA" link show; ibv_devinfo -d sroce0; ibv_devinfo -d rxe0; } 2>&1 | raw
		for prog in $BENCH_TESTS; do
			if [[ $prog == *_lat ]]; then
				kind=lat row="mtu$mtu/$prog-s$LAT_SIZE"
				args=(-s "$LAT_SIZE" -n "$BENCH_LAT_ITERS")
				add_row "$row" us lat
			else
				kind=bw row="mtu$mtu/$prog-s$BW_SIZE"
				args=(-s "$BW_SIZE" -D "$BENCH_DURATION" -f "$BENCH_MARGIN")
				add_row "$row" Gb/s bw
			fi
		done
		for ((rep = 1; rep <= BENCH_REPS; rep++)); do
			order=(sroce rxe)
			((rep % 2)) || order=(rxe sroce)
			for prog in $BENCH_TESTS; do
				if [[ $prog == *_lat ]]; then
					kind=lat row="mtu$mtu/$prog-s$LAT_SIZE"
					args=(-s "$LAT_SIZE" -n "$BENCH_LAT_ITERS")
				else
					kind=bw row="mtu$mtu/$prog-s$BW_SIZE"
					args=(-s "$BW_SIZE" -D "$BENCH_DURATION" -f "$BENCH_MARGIN")
				fi
				for which in "${order[@]}"; do
					if [[ $which == sroce ]]; then
						bench_run "$row" "$kind" sroce "${SROCE_SIDE[@]}" "$prog" "${args[@]}"
					else
						bench_run "$row" "$kind" rxe "${RXE_SIDE[@]}" "$prog" "${args[@]}"
					fi
				done
			done
			tcp_round "$mtu"
		done
		echo "| ==== MTU $mtu: hw counters at the end"
		counters_snap sroce0 sroce1 rxe0 | awk '$2 != 0' | raw
		counters_summary "$mtu"
	done
}

# counters_summary MTU: the error/retry hw counters of all runs at MTU
# (the devices are new for each MTU), one line per side.
counters_summary() {
	local devs
	for devs in "sroce0 sroce1" rxe0; do
		# shellcheck disable=SC2086
		note "counters mtu$1 ${devs%% *}: $(counters_snap $devs | awk '
			$1 !~ /(sent|rcvd)_pkts$|rdma_(sends|recvs)$|ack_deferred$/ && $2 != 0 {
				printf "%s=%s ", $1, $2; n++ }
			END { if (!n) printf "no retransmission, error or drop" }')"
	done
}

# netpp udp|tcp PORT N: a 2-byte ping-pong of N round trips, server in netns
# B, client in netns A; prints the client's one-way time in us.
netpp() {
	local v rc
	in_ns B timeout 30 /add/netpp "$1" server "$B_IP4" "$2" "$3" &
	sleep 0.5
	v=$(in_ns A timeout 30 /add/netpp "$1" client "$B_IP4" "$2" "$3")
	rc=$?
	wait
	echo "$v"
	return $rc
}

# tcp_round MTU: the kernel's TCP between netns A and B over the same veth
# pair, one value per table row of MTU (see the header): iperf3 for the
# bandwidth rows, netpp's TCP ping-pong for the latency rows.
TCP_PORT=5301
tcp_round() {
	local mtu=$1 prog bw='' lat='' out
	if command -v iperf3 >/dev/null; then
		in_ns B timeout $((BENCH_DURATION + 30)) iperf3 -s -1 -p "$TCP_PORT" >/dev/null 2>&1 &
		sleep 0.5
		out=$(in_ns A timeout $((BENCH_DURATION + 30)) iperf3 -c "$B_IP4" -p "$TCP_PORT" \
			-t "$BENCH_DURATION" -O "$BENCH_MARGIN" -l "$BW_SIZE" -f g 2>&1)
		wait
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
	fi
	for prog in $BENCH_TESTS; do
		if [[ $prog == *_bw && -n $bw ]]; then
			add_value "mtu$mtu/$prog-s$BW_SIZE" tcp "$bw"
		elif [[ $prog == ib_read_lat && -n $lat ]]; then
			add_value "mtu$mtu/$prog-s$LAT_SIZE" tcp "$(awk -v l="$lat" 'BEGIN { print 2 * l }')"
		elif [[ $prog == *_lat && -n $lat ]]; then
			add_value "mtu$mtu/$prog-s$LAT_SIZE" tcp "$lat"
		fi
	done
}

# udp_floor: one-way time of a 2-byte UDP ping-pong between netns A and B
# over the veth pair (both ends busy-polling; median of 3 x 5000), the trip
# through the UDP/IP stack and veth that every sroce packet takes and rxe's
# loopback does not. Context for the latency rows; sets UDP_FLOOR.
UDP_FLOOR=
udp_floor() {
	local i v vals=()
	[[ -x /add/netpp ]] || return 0
	[[ -e /run/netns/A && -e /run/netns/B ]] || setup_two_netns 1500 >/dev/null 2>&1
	for i in 1 2 3; do
		v=$(netpp udp $((5000 + i)) 5000) && vals+=("$v")
	done
	((${#vals[@]})) || { note "udp ping-pong failed"; return 0; }
	UDP_FLOOR=$(printf '%s\n' "${vals[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	echo "| udp ping-pong netns A <-> B, one way, us: ${vals[*]}"
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
# (setup_both, add_row, bench_run, add_value, note, raw) are the interface.
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
# (perftest -a, 2 B .. 8 MiB) on sroce and rxe at the first MTU of
# BENCH_MTUS; prints "bench: sweep ROW WHICH SIZE VALUE" lines (Gb/s or
# us), which scripts/bench plots.
scenario_sweep() {
	local mtu=${BENCH_MTUS%% *} prog which kind out
	local PAIR_TIMEOUT=${BENCH_SWEEP_TIMEOUT:-600}   # 2 B .. 8 MiB under TCG
	export SWEEP_OUT=$LOG_DIR/sweep
	: >"$SWEEP_OUT"
	if ! out=$(setup_both "$mtu" 2>&1); then
		note "FAILED sweep setup at MTU $mtu: $out"
		failures=$((failures + 1))
		return 1
	fi
	for prog in ${BENCH_SWEEP_TESTS:-ib_write_bw ib_write_lat}; do
		kind=bw
		[[ $prog == *_lat ]] && kind=lat
		for which in sroce rxe; do
			if [[ $which == sroce ]]; then
				bench_run "mtu$mtu/$prog-sweep" "$kind" sroce "${SROCE_SIDE[@]}" "$prog" -a -n "${BENCH_SWEEP_ITERS:-20}"
			else
				bench_run "mtu$mtu/$prog-sweep" "$kind" rxe "${RXE_SIDE[@]}" "$prog" -a -n "${BENCH_SWEEP_ITERS:-20}"
			fi
		done
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
		setup_both 1500 >/dev/null 2>&1
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

# ---- table -------------------------------------------------------------------

# median ROW WHICH: the median of the values of ROW for WHICH (sroce/rxe),
# "n/a" when there are none; with an even count, the mean of the middle two.
median() {
	awk -v r="$1" -v w="$2" '$1 == r && $2 == w && $3 != "" { print $3 }' "$RESULTS" | sort -n |
		awk '{ v[NR] = $1 } END {
			if (!NR) { print "n/a"; exit }
			m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%.3g\n", m }'
}

print_table() {
	local e row unit kind s x t
	echo "=== table (median of each side's runs, $BENCH_REPS per perftest row; bw = BW average, lat = t_typical; tcp: the kernel's TCP on the same veth pair)"
	for e in "${ROWS[@]}"; do
		IFS='|' read -r row unit kind <<<"$e"
		s=$(median "$row" sroce) x=$(median "$row" rxe) t=$(median "$row" tcp)
		echo "$row ($unit)|$s|$x|$t"
	done | awk -F'|' 'BEGIN { r[0] = "test|sroce|rxe|tcp|sroce/rxe|sroce/tcp"; n = 1 }
		{ q = ($2 + 0 > 0 && $3 + 0 > 0) ? sprintf("%.2f", $2 / $3) : "n/a"
		  p = ($2 + 0 > 0 && $4 + 0 > 0) ? sprintf("%.2f", $2 / $4) : "n/a"
		  r[n++] = $0 "|" q "|" p }
		END {
			for (i = 0; i < n; i++) { k = split(r[i], f, "|"); for (j = 1; j <= k; j++)
				if (length(f[j]) > w[j]) w[j] = length(f[j]) }
			for (i = 0; i < n; i++) { split(r[i], f, "|")
				printf "%-" w[1] "s | %" w[2] "s | %" w[3] "s | %" w[4] "s | %" w[5] "s | %" w[6] "s\n", f[1], f[2], f[3], f[4], f[5], f[6] }
		}'
	echo "=== end table"
}

# target ROW OP LIMIT: "met"/"missed" for sroce/rxe OP LIMIT.
target() {
	local s x
	s=$(median "$1" sroce) x=$(median "$1" rxe)
	awk -v a="$s" -v b="$x" -v op="$2" -v l="$3" -v r="$1" 'BEGIN {
		if (!(a + 0 > 0 && b + 0 > 0)) { printf "target %s: sroce/rxe %s %s: no data\n", r, op, l; exit }
		q = a / b; ok = (op == ">=") ? q >= l : q <= l
		printf "target %s: sroce/rxe = %.2f, wanted %s %s: %s\n", r, q, op, l, ok ? "met" : "MISSED" }'
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
note "guest $(uname -r), $(nproc) vCPUs; reps $BENCH_REPS, bw -D $BENCH_DURATION -f $BENCH_MARGIN, lat -n $BENCH_LAT_ITERS"
start=$SECONDS
for sc in $BENCH_SCENARIOS; do
	if declare -F "scenario_$sc" >/dev/null; then
		note "=== scenario $sc"
		"scenario_$sc"
	else
		note "SKIP scenario $sc: not written yet (scenario_$sc: see the hook in tests/tools/bench.sh)"
	fi
done
udp_floor
scenario_memory
reset_state
note "done in $((SECONDS - start))s, $failures failed run(s), $retries repeated after a clock calibration failure"

print_table
[[ " $BENCH_SCENARIOS " == *" base "* ]] && for mtu in $BENCH_MTUS; do
	[[ " $BENCH_TESTS " == *" ib_write_bw "* ]] && target "mtu$mtu/ib_write_bw-s$BW_SIZE" ">=" 1
	[[ " $BENCH_TESTS " == *" ib_write_lat "* ]] && target "mtu$mtu/ib_write_lat-s$LAT_SIZE" "<=" 1.5
done
[[ -z $UDP_FLOOR ]] || note "context: a 2-byte UDP ping-pong between the same two netns over the veth pair (busy-polling) takes $UDP_FLOOR us one way: the stack + veth trip each sroce packet makes; rxe's loopback skips it"
dmesg | grep -E "$SPLAT" | head -n 5 | sed 's/^/bench: dmesg: /'
((failures == 0))
