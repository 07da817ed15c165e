#!/bin/bash
# t-16-starved-cpu: a vCPU the host does not run.  A SCHED_FIFO busy loop
# takes one vCPU for STARVE seconds (1), on each vCPU in turn, while
# perftest runs: that vCPU runs nothing else for 0.95 s (RT throttling, as
# the kernel sets it, leaves the rest of each second to other tasks), as
# when the host leaves it unscheduled.  A responder homed there would leave
# its requests unanswered for longer than the peer's retry budget (perftest's
# timeout 14 and retry count 7: about 0.54 s), and the peer's WQE would
# fail with retry exceeded although nothing was lost.  The requests that
# wait take it over on the CPU they arrive on (sroce_dp_take_resp()).
#   one device: ib_send_bw and ib_write_bw, client and server on sroce0,
#               whose responder is placed on the other vCPU: each pair
#               passes, and resp_takeovers rises over the two
#   veth:       ib_write_bw and ib_read_bw, sroce0 (A) -> sroce1 (B): each
#               pair passes (a remote peer's responder runs where its
#               requests arrive, so it seldom needs taking over)
# About 90 s in the VM under TCG.
cd "$(dirname "$0")" && source ./lib.sh

STARVE=${STARVE:-1}
HOGPID=/tmp/t-16.hog

require_sroce t-16/modprobe-sroce && require_provider t-16/provider || exit 1
for b in chrt taskset; do
	command -v $b >/dev/null || { skip t-16 "no $b in the guest"; exit 0; }
done
if ! out=$(setup_two_netns 1500 2>&1 && sroce_bind sroce0 vethA 2>&1 &&
	sroce_bind sroce1 vethB 2>&1); then
	fail t-16/setup "$out"
	exit 1
fi
pass t-16/setup

hog=''
# starve: until killed, each online CPU in turn runs a SCHED_FIFO busy
# loop alone for STARVE seconds, then 300 ms of rest.  The timeout that
# ends it is not pinned and outranks it, so it always runs to stop it.
starve() {
	local c cpus
	cpus=$(seq 0 $(($(nproc) - 1)))
	while :; do
		for c in $cpus; do
			chrt -f 60 timeout "$STARVE" taskset -c "$c" \
				chrt -f 50 bash -c 'while :; do :; done' &
			echo $! >$HOGPID
			wait $!
			sleep 0.3
		done
	done
}
# stop_starving: the loop, then the busy loop it runs (timeout passes
# the signal on), waited for.
stop_starving() {
	local p i
	[[ -n $hog ]] || return 0
	kill "$hog" 2>/dev/null
	wait "$hog" 2>/dev/null
	p=$(cat $HOGPID 2>/dev/null)
	[[ -n $p ]] && kill "$p" 2>/dev/null
	for ((i = 0; i < 50; i++)); do
		[[ -n $p && -d /proc/$p ]] || break
		sleep 0.1
	done
	hog=''
}
trap stop_starving EXIT


# starved NAME SRV... CLI... PROG ARGS: the pair while the vCPUs starve in
# turn; it must pass.
starved() {
	local name=$1
	shift
	trace_on sroce_retrans_timeout sroce_retry_exc sroce_qp_state
	starve &
	hog=$!
	if ! run_pair "$name" "$@"; then
		grep -ihE 'fail|error|couldn|status|scnt' "$PAIR_CLOG" "$PAIR_SLOG" | sed 's/^/    log| /'
		"$RDMA" statistic show 2>&1 | sed 's/^/    /'
		trace_tail
	fi
	stop_starving
}

one=(A sroce0 "$A_IP4" A sroce0 "$A_IP4")
ab=(B sroce1 "$B_IP4" A sroce0 "$A_IP4")
PAIR_TIMEOUT=${PAIR_TIMEOUT:-120}
t0=$(hw sroce0 resp_takeovers)
starved t-16/one-device/ib_send_bw "${one[@]}" ib_send_bw -s 65536 -D 8
starved t-16/one-device/ib_write_bw "${one[@]}" ib_write_bw -s 65536 -D 8
n=$(($(hw sroce0 resp_takeovers) - t0))
if ((n > 0)); then
	pass t-16/one-device/takeovers "resp_takeovers +$n"
else
	fail t-16/one-device/takeovers "resp_takeovers +0: no responder was taken over"
fi
starved t-16/veth/ib_write_bw "${ab[@]}" ib_write_bw -s 65536 -D 8
starved t-16/veth/ib_read_bw "${ab[@]}" ib_read_bw -s 65536 -D 8
check t-16/no-busy-loop-left bash -c "! grep -qs 'while :; do :; don[e]' /proc/[0-9]*/cmdline"
dmesg_clean t-16/dmesg
