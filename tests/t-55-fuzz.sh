#!/bin/bash
# t-55-fuzz: mutated live traffic against sroce0 and sroce1 (tests/bin/fuzz,
# tests/src/fuzz.c). Real traffic runs between sroce1 (netns B, server) and
# sroce0 (netns A, client) in four loops of short runs: perftest RC
# SEND/WRITE/READ, atomics (FETCH_ADD, CMP_SWAP), UD SEND, UC SEND/WRITE,
# XRC SEND/WRITE/READ/FETCH_ADD (-c XRC), tests/bin/rdma_data (SEND and
# WRITE with immediate) and tests/bin/xrc_verbs (every XRC opcode, two XRC
# SRQs per side, from sroce0 and back). Meanwhile fuzz
# captures that traffic on vethB, mutates the packets (every header field,
# PSNs at the window edges, lengths, truncation, opcode swaps, RC <-> XRC,
# the XRCETH's SRQ number and reserved byte, replays, ...)
# and re-sends them with a valid ICRC (FUZZ_BAD_PCT % with a bad one) over
# the link, FUZZ_PKTS of them. The real traffic may fail (hostile packets
# may put its QPs in error); what must hold: most valid-ICRC mutants pass
# the ICRC check (they reach the transport), every bad-ICRC one that
# reaches the check is dropped there, no process is stuck in the kernel, no
# splat in the kernel log; then fresh QPs move data byte-exactly (RC
# rdma_data, UD pingpong with buffer check, XRC xrc_verbs with every byte
# compared), no verbs object is left behind
# (rdma resource counts as before), and sroce unloads and loads again.
# Knobs: FUZZ_PKTS (default 100000; 20000 below full TEST_SCOPE), FUZZ_SECS (the most time for them,
# default 900), FUZZ_RATE (the most packets per second, default 2000, so
# that every kind of traffic runs while fuzzed; 0: no limit), FUZZ_BAD_PCT
# (default 10), FUZZ_SEED (the mutations' seed, printed; a replay repeats
# the draws on whatever traffic runs).
cd "$(dirname "$0")" && source ./lib.sh

# below full scope (tests/lib.sh test_scope) 20000 packets by default
PKTS=${FUZZ_PKTS:-$(test_scope full && echo 100000 || echo 20000)}
SECS=${FUZZ_SECS:-900}
RATE=${FUZZ_RATE:-2000}
BAD=${FUZZ_BAD_PCT:-10}
SEED=${FUZZ_SEED:-$(printf '%#x' "$(od -An -N6 -tu8 /dev/urandom | tr -d ' ')")}
STOP=$LOG_DIR/t-55.stop
RUN_S=30            # the most time for one traffic run

require_sroce t-55/modprobe-sroce && require_provider t-55/provider || exit 1
for p in fuzz rdma_data xrc_verbs; do
	[[ -x bin/$p ]] || { fail t-55/build "tests/bin/$p missing: run make -C tests/src on the host"; exit 1; }
done
if ! out=$(setup_two_netns 1500 2>&1 && sroce_bind sroce0 vethA 2>&1 && sroce_bind sroce1 vethB 2>&1); then
	fail t-55/setup "$out"
	exit 1
fi
ga=$(gid_index sroce0 "$A_IP4" 2>&1) && gb=$(gid_index sroce1 "$B_IP4" 2>&1) ||
	{ fail t-55/setup "$ga $gb"; exit 1; }
in_ns A ping -c 1 -W 5 "$B_IP4" >/dev/null 2>&1
res_before=$(rdma_res_counts sroce0 sroce1)
pass t-55/setup "seed $SEED, $PKTS packets, $BAD % bad ICRC; replay: FUZZ_SEED=$SEED"

# traffic_one KIND PORT LOG: one run of real traffic, sroce1 (B) serving
# sroce0 (A); its outcome does not matter (fuzzing may break its QPs).
traffic_one() {
	local port=$2 log=$3 srv cli spid i
	case $1 in
	rc-send) srv=(ib_send_bw -c RC -s 3000 -D 8) ;;
	rc-write) srv=(ib_write_bw -c RC -s 3000 -D 8) ;;
	rc-read) srv=(ib_read_bw -s 3000 -D 8) ;;
	fetch-add) srv=(ib_atomic_bw -A FETCH_AND_ADD -D 8) ;;
	cmp-swap) srv=(ib_atomic_bw -A CMP_AND_SWAP -D 8) ;;
	ud-send) srv=(ib_send_bw -c UD -s 1024 -D 8) ;;
	uc-send) srv=(ib_send_bw -c UC -s 3000 -D 8) ;;
	uc-write) srv=(ib_write_bw -c UC -s 3000 -D 8) ;;
	xrc-send) srv=(ib_send_bw -c XRC -s 3000 -D 8) ;;
	xrc-write) srv=(ib_write_bw -c XRC -s 3000 -D 8) ;;
	xrc-read) srv=(ib_read_bw -c XRC -s 3000 -D 8) ;;
	xrc-fetch-add) srv=(ib_atomic_bw -c XRC -A FETCH_AND_ADD -D 8) ;;
	xrc-verbs)	# both devices from init_net, no server
		echo "== $1" >>"$log"
		timeout -k 2 "$RUN_S" bin/xrc_verbs -d sroce0 -g "$ga" -D sroce1 -G "$gb" >>"$log" 2>&1
		echo "$1:$?" >>"$LOG_DIR/t-55.outcomes"
		return ;;
	imm) srv=(bin/rdma_data -s -d sroce1 -g "$gb" -p "$port")
	     cli=(bin/rdma_data -c "$B_IP4" -d sroce0 -g "$ga" -p "$port" -n 20 -S "$SEED") ;;
	esac
	if [[ $1 != imm ]]; then
		cli=("${srv[@]}" -F -d sroce0 -x "$ga" -p "$port" "$B_IP4")
		srv+=(-F -d sroce1 -x "$gb" -p "$port")
	fi
	echo "== $1 port $port" >>"$log"
	in_ns B timeout -k 2 "$RUN_S" "${srv[@]}" >>"$log" 2>&1 &
	spid=$!
	for ((i = 0; i < 100; i++)); do
		tcp_listening B "$port" && break
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.1
	done
	in_ns A timeout -k 2 "$RUN_S" "${cli[@]}" >>"$log" 2>&1
	local crc=$?
	wait_pid "$spid" $((RUN_S + 5)) >/dev/null 2>&1
	echo "$1:$crc" >>"$LOG_DIR/t-55.outcomes"
}

# traffic_loop ID KIND...: the KINDs in turn until $STOP exists (or this
# script, $$, is gone).
traffic_loop() {
	local port=$((19000 + $1 * 2000)) log=$LOG_DIR/t-55.traffic$1.log k
	shift
	: >"$log"
	while [[ ! -e $STOP ]] && kill -0 $$ 2>/dev/null; do
		for k in "$@"; do
			[[ -e $STOP ]] && break
			traffic_one "$k" "$port" "$log"
			port=$((port + 1))
		done
	done
}

# traffic_outcomes: per kind, the runs whose client exited 0 / all runs.
traffic_outcomes() {
	sort "$LOG_DIR/t-55.outcomes" 2>/dev/null |
		awk -F: '{ n[$1]++; ok[$1] += $2 == 0 } END { for (k in n) printf " %s %d/%d", k, ok[k], n[k] }'
}

rm -f "$STOP" "$LOG_DIR/t-55.outcomes"
trap 'touch "$STOP"' EXIT
trap 'exit 1' TERM INT
traffic_loop 0 fetch-add rc-send rc-read cmp-swap &
loops=($!)
traffic_loop 1 imm ud-send rc-write &
loops+=($!)
# xrc_verbs (its own domain per run) and perftest XRC in two loops: XRC
# requests of two domains of one device on the link at once, so that the
# XRCETHs fuzz draws name SRQs of another domain as well.
traffic_loop 2 uc-send xrc-verbs ud-send uc-write &
loops+=($!)
traffic_loop 3 xrc-send xrc-read xrc-fetch-add xrc-write &
loops+=($!)

start=$SECONDS
out=$(bounded $((SECS + 180)) bin/fuzz -n "$PKTS" -r "$RATE" -t "$SECS" -w 120 -x "$BAD" -S "$SEED")
rc=$?
fuzz_s=$((SECONDS - start))
touch "$STOP"
record_lines t-55 <<<"$out"
((rc == 0 || rc == 1)) || fail t-55/fuzz-exit "fuzz exited with status $rc${out:+: $(tail -n 2 <<<"$out" | tr '\n' ' ')}"
echo "    fuzz ran ${fuzz_s}s"

# The traffic stops by itself within a run's time; a process that does not
# is stuck in the kernel.
stuck=
for pid in "${loops[@]}"; do
	wait_pid "$pid" $((2 * RUN_S + 20)) || stuck+=" $pid"
done
kill_perf
if [[ -n $stuck ]]; then
	fail t-55/traffic-ends "traffic loop(s)$stuck still running: $(ps -eo pid,stat,wchan:24,comm | awk '$2 ~ /D/' | tr '\n' ';')"
else
	pass t-55/traffic-ends "real traffic runs (kind: completed/all):$(traffic_outcomes)"
fi
dmesg_clean t-55/dmesg-clean-fuzz

# Fresh QPs move data byte-exactly.
port=18600
if pair_exec t-55/rdma_data-after B A "$port" \
	bin/rdma_data -s -d sroce1 -g "$gb" -p "$port" -- \
	bin/rdma_data -c "$B_IP4" -d sroce0 -g "$ga" -p "$port" -n 60 -S "$SEED"; then
	pass t-55/rdma_data-after "$(grep -m1 '^PASS' "$PAIR_CLOG")"
else
	fail t-55/rdma_data-after "$(grep -m1 '^FAIL' "$PAIR_CLOG") $PAIR_WHY"
	pair_logs
fi
port=$((port + 1))
if pair_exec t-55/ud_pingpong-after B A "$port" \
	ibv_ud_pingpong -d sroce1 -g "$gb" -p "$port" -s 1024 -n 50 -c -- \
	ibv_ud_pingpong -d sroce0 -g "$ga" -p "$port" -s 1024 -n 50 -c "$B_IP4"; then
	pass t-55/ud_pingpong-after "$(grep -m1 'Mbit/sec' "$PAIR_CLOG")"
else
	fail t-55/ud_pingpong-after "$PAIR_WHY"
	pair_logs
fi

# XRC: fresh domains, SRQs, TGT and INI QPs move every opcode byte-exactly.
if out=$(bounded 120 bin/xrc_verbs -d sroce0 -g "$ga" -D sroce1 -G "$gb"); then
	pass t-55/xrc_verbs-after "$(grep -c '^PASS' <<<"$out") cases, $(grep -m1 '^TOTAL' <<<"$out")"
else
	fail t-55/xrc_verbs-after "$(grep -m3 '^FAIL\|still running' <<<"$out" | tr '\n' ' ')"
fi

# Nothing left behind: the devices' verbs objects as before the traffic.
res_after=$(rdma_res_counts sroce0 sroce1)
if [[ $res_after == "$res_before" ]]; then
	pass t-55/no-leftover-objects "$res_after"
else
	fail t-55/no-leftover-objects "before: $res_before; after: $res_after"
fi

# The module unloads cleanly and loads again.
for l in sroce0 sroce1; do
	bounded 30 "$RDMA" link delete "$l" >/dev/null 2>&1 || fail t-55/link-delete "rdma link delete $l failed or hung"
done
if out=$(bounded 60 rmmod sroce 2>&1); then
	pass t-55/rmmod
else
	fail t-55/rmmod "$out"
fi
check t-55/modprobe-again "$MODPROBE" sroce
check t-55/link-add-again sroce_bind sroce0 vethA
dmesg_clean t-55/dmesg-clean
