#!/bin/bash
# t-15-accept: the perftest acceptance sequence, ACCEPT_ROUNDS times on the
# same devices, as a new user runs it: sroce0 (netns A, client) <-> sroce1
# (netns B, server) over a veth pair, and sroce2 (netns C) facing rdma_rxe
# (rxe0, init_net) over a second one.  Each round: ib_write_bw, ib_send_bw
# and ib_read_bw at 2 B, 4 KiB and 64 KiB; the three latency tests; write,
# send and read at 64 KiB with rdma_rxe as the server and as the client;
# ib_write_lat against rdma_rxe; at full scope (TEST_SCOPE) ib_send_bw -a
# and ib_write_bw -a (2 B .. 8 MiB).  Every pair must end within its bound
# (PAIR_TIMEOUT, 400 s for a sweep): a pair that prints its header and
# then nothing fails, with both devices' counters and every QP's state
# (tests/run's stall detector reports a QP that stops sooner).
# ACCEPT_HOG=N runs N busy loops in the guest throughout (a starved vCPU,
# as on a loaded host).  Knobs: ACCEPT_ROUNDS (default 1), ACCEPT_HOG.
cd "$(dirname "$0")" && source ./lib.sh

ROUNDS=${ACCEPT_ROUNDS:-1}
HOG=${ACCEPT_HOG:-0}

require_sroce t-15/modprobe-sroce && require_provider t-15/provider || exit 1

# setup_accept: A <-> B (sroce0, sroce1), rxe0 on vethR <-> C (sroce2).
setup_accept() {
	setup_two_netns 1500 &&
	"$IP" netns add C &&
	"$IP" link add vethR mtu 1500 type veth peer name vethRC netns C mtu 1500 &&
	ns_link - vethR "$R_IP4" "$R_IP6" 1500 &&
	ns_link C vethRC "$RB_IP4" "$RB_IP6" 1500 &&
	"$MODPROBE" rdma_rxe && "$RDMA" link add rxe0 type rxe netdev vethR &&
	sroce_bind sroce0 vethA && sroce_bind sroce1 vethB &&
	sroce_bind sroce2 vethRC
}

if ! out=$(setup_accept 2>&1); then
	fail t-15/setup "$out"
	exit 1
fi
pass t-15/setup

hogs=()
for ((h = 0; h < HOG; h++)); do
	(while :; do :; done) &
	hogs+=($!)
done
((HOG)) && echo "    $HOG busy loops in the guest"

# The send side's events during each pair (tracefs, cleared before it):
# retransmit timeouts, a retry exceeded with the QP's PSNs, QP state
# changes and drops; printed when the pair fails, so that a failure on a
# busy host tells a peer that never answered from answers not taken in.
T=$TRACEFS
trace_on sroce_retrans_timeout sroce_retry_exc sroce_qp_state sroce_drop ||
	echo "    no sroce events in tracefs: failures print no trace"

# pair NAME SECS SERVER... CLIENT... PROG ARGS: one run_pair with its bound;
# a failure prints every device's counters and the pair's last events.
pair() {
	local name=$1 secs=$2
	shift 2
	[[ -w $T/trace ]] && : >"$T/trace"
	PAIR_TIMEOUT=$secs run_pair "$name" "$@" && return
	"$RDMA" statistic show 2>&1 | sed 's/^/    /'
	trace_tail
}

ss=(B sroce1 "$B_IP4" A sroce0 "$A_IP4")
rs=(- rxe0 "$R_IP4" C sroce2 "$RB_IP4")	# rdma_rxe serves, sroce asks
sr=(C sroce2 "$RB_IP4" - rxe0 "$R_IP4")	# sroce serves, rdma_rxe asks
t=${PAIR_TIMEOUT:-120}
for ((r = 1; r <= ROUNDS; r++)); do
	p=t-15/r$r
	for prog in ib_write_bw ib_send_bw ib_read_bw; do
		pair "$p/$prog-2" "$t" "${ss[@]}" "$prog" -s 2 -n 500
		pair "$p/$prog-4k" "$t" "${ss[@]}" "$prog" -s 4096 -n 500
		pair "$p/$prog-64k" "$t" "${ss[@]}" "$prog" -s 65536 -n 300
	done
	for prog in ib_write_lat ib_send_lat ib_read_lat; do
		pair "$p/$prog" "$t" "${ss[@]}" "$prog" -s 2 -n 500
	done
	for prog in ib_write_bw ib_send_bw ib_read_bw; do
		pair "$p/rxe-server/$prog-64k" "$t" "${rs[@]}" "$prog" -s 65536 -n 300
		pair "$p/rxe-client/$prog-64k" "$t" "${sr[@]}" "$prog" -s 65536 -n 300
	done
	pair "$p/rxe-server/ib_write_lat" "$t" "${rs[@]}" ib_write_lat -s 2 -n 500
	if test_scope full; then
		pair "$p/ib_send_bw-a" 400 "${ss[@]}" ib_send_bw -a -n 100
		pair "$p/ib_write_bw-a" 400 "${ss[@]}" ib_write_bw -a -n 100
	fi
done

((${#hogs[@]})) && kill "${hogs[@]}" 2>/dev/null
[[ -d $T/events/sroce ]] && echo 0 >"$T/events/sroce/enable"
dmesg_clean t-15/dmesg
