#!/bin/bash
# t-10-sroce-perftest: perftest between two sroce devices, sroce0 on vethA in
# netns A (client) and sroce1 on vethB in netns B (server), for the send,
# write and read bandwidth and latency tests, each with -s 2, -s 4096,
# -s 65536 and -a (all sizes 2 B..8 MiB, few iterations), at veth MTU 1500
# (path MTU 1024) and 9000 (path MTU 4096), plus three runs over IPv6 GIDs
# per MTU. One PASS/FAIL per combination.  Per MTU, batching: 64-KiB
# WRITEs and READs leave in batches (hw counter tx_batches: sroce0 for
# the WRITE requests, sroce1 for the READ responses) and are cut back into
# the very packets: every packet one device sent the other received, and
# no ICRC failed (sroce_net_gso.c).  And through a tbf on both veths
# whose queue refuses a batch when full (NET_XMIT_DROP, backpressure): a
# refused batch is sent again from its first packet, so the same runs
# count push-backs but no retransmit, sequence NAK or timeout.  TEST_SCOPE (tests/lib.sh
# test_scope): the -a sweeps at full scope only (the soak, t-86, sweeps at
# ci scope); at quick scope MTU 1500 only, without -s 4096.
cd "$(dirname "$0")" && source ./lib.sh

# snap [COUNTER...]: the counters (default tx_batches, sent_pkts, rcvd_pkts,
# rx_drop_icrc) of sroce0, then of sroce1
snap() {
	local d c cs=("$@")
	((${#cs[@]})) || cs=(tx_batches sent_pkts rcvd_pkts rx_drop_icrc)
	for d in sroce0 sroce1; do
		for c in "${cs[@]}"; do
			echo -n "$(hw $d $c) "
		done
	done
}

# write_read T: one ib_write_bw and one ib_read_bw of 64 KiB, 100 each
write_read() {
	run_pair "$1/ib_write_bw-s65536" B sroce1 "$B_IP4" A sroce0 "$A_IP4" \
		ib_write_bw -s 65536 -n 100
	run_pair "$1/ib_read_bw-s65536" B sroce1 "$B_IP4" A sroce0 "$A_IP4" \
		ib_read_bw -s 65536 -n 100
}

# batches T: write_read, counted
batches() {
	local b a
	read -ra b <<<"$(snap)"
	write_read "$1"
	read -ra a <<<"$(snap)"
	local info="sroce0 tx_batches +$((a[0] - b[0])) sent +$((a[1] - b[1])) rcvd +$((a[2] - b[2])) icrc +$((a[3] - b[3])); sroce1 tx_batches +$((a[4] - b[4])) sent +$((a[5] - b[5])) rcvd +$((a[6] - b[6])) icrc +$((a[7] - b[7]))"
	if ((a[0] > b[0] && a[4] > b[4] && a[1] - b[1] == a[6] - b[6] &&
	     a[5] - b[5] == a[2] - b[2] && a[3] == b[3] && a[7] == b[7])); then
		pass "$1/counters" "$info"
	else
		fail "$1/counters" "$info (want tx_batches up on both, sent = the peer's rcvd, icrc +0)"
	fi
}

# rps NS CPUS: the CPUs (a hex mask; 0: none) vethNS's packets are
# received on.  A qdisc that holds packets hands them to the veth from
# its timer, on either CPU, and without RPS the peer then receives
# consecutive batches on two CPUs at once: reordered READ responses look
# lost to the requester.
rps() { in_ns "$1" sh -c "echo $2 > /sys/class/net/veth$1/queues/rx-0/rps_cpus"; }

# pushback T: write_read through a tbf (the burst holds a whole batch, so
# tbf never cuts one up: tbf_segment() would drop packets one by one),
# each veth's packets received on CPU 0
pushback() {
	local b a ns out info
	for ns in A B; do
		if ! out=$(rps "$ns" 1 2>&1 && in_ns "$ns" tc qdisc replace \
				dev "veth$ns" root tbf rate 100mbit burst 128kb limit 192kb 2>&1); then
			fail "$1/tbf" "$out"
			for ns in A B; do in_ns "$ns" tc qdisc del dev "veth$ns" root 2>/dev/null; rps "$ns" 0; done
			return
		fi
	done
	read -ra b <<<"$(snap tx_backpressure retransmits seq_nak_sent retrans_timeouts)"
	write_read "$1"
	read -ra a <<<"$(snap tx_backpressure retransmits seq_nak_sent retrans_timeouts)"
	for ns in A B; do in_ns "$ns" tc qdisc del dev "veth$ns" root 2>/dev/null; rps "$ns" 0; done
	info="sroce0 backpressure +$((a[0] - b[0])) retx +$((a[1] - b[1])) seqnak +$((a[2] - b[2])) timeouts +$((a[3] - b[3])); sroce1 backpressure +$((a[4] - b[4])) retx +$((a[5] - b[5])) seqnak +$((a[6] - b[6])) timeouts +$((a[7] - b[7]))"
	if ((a[0] > b[0] && a[4] > b[4] && a[1] == b[1] && a[5] == b[5] &&
	     a[2] == b[2] && a[6] == b[6] && a[3] == b[3] && a[7] == b[7])); then
		pass "$1/counters" "$info"
	else
		fail "$1/counters" "$info (want backpressure up on both, no retransmit, NAK or timeout)"
	fi
}

require_sroce t-10/modprobe-sroce && require_provider t-10/provider || exit 1

PROGS=(ib_send_bw ib_write_bw ib_read_bw ib_send_lat ib_write_lat ib_read_lat)
SIZES=("-s 2 -n 200" "-s 65536 -n 100")
MTUS=(1500)
test_scope ci && SIZES+=("-s 4096 -n 200") MTUS+=(9000)
test_scope full && SIZES+=("-a -n 5")

for mtu in "${MTUS[@]}"; do
	reset_state
	t=t-10/mtu$mtu
	if ! out=$(setup_two_netns "$mtu" 2>&1 && sroce_bind sroce0 vethA 2>&1 && sroce_bind sroce1 vethB 2>&1); then
		fail "$t/setup" "$out"
		continue
	fi
	pass "$t/setup"
	want=$( ((mtu == 1500)) && echo 1024 || echo 4096)
	check "$t/active_mtu-$want" bash -c "ibv_devinfo -d sroce0 | grep -q 'active_mtu:.*$want'"
	for prog in "${PROGS[@]}"; do
		for size in "${SIZES[@]}"; do
			read -ra args <<<"$size"
			sweep_skipped "$t/$prog$(tr -d " " <<<"${size% -n*}")" "${args[@]}" && continue
			run_pair "$t/$prog$(tr -d " " <<<"${size% -n*}")" \
				B sroce1 "$B_IP4" A sroce0 "$A_IP4" "$prog" "${args[@]}"
		done
	done
	batches "$t/batch"
	pushback "$t/pushback"
	# RoCEv2 over IPv6 GIDs (perftest's own exchange stays on IPv4 TCP)
	for prog in ib_write_bw ib_send_lat ib_read_lat; do
		PAIR_CONNECT=$B_IP4 run_pair "$t/ipv6/$prog-s4096" \
			B sroce1 "$B_IP6" A sroce0 "$A_IP6" "$prog" -s 4096 -n 100
	done
done
