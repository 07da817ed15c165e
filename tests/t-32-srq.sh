#!/bin/bash
# t-32-srq: shared receive queues.  ibv_srq_pingpong -c (16 RC QPs sharing
# one SRQ on each side, every received byte checked) between sroce0 and
# sroce1 and between sroce and rdma_rxe, both directions; perftest
# ib_send_bw and ib_send_lat with --use-srq over RC and UD, sroce <-> sroce
# and sroce <-> rxe.
cd "$(dirname "$0")" && source ./lib.sh

require_sroce t-32/modprobe-sroce && require_provider t-32/provider || exit 1
if ! out=$(setup_two_netns 1500 2>&1 && sroce_bind sroce0 vethA 2>&1 &&
	   sroce_bind sroce1 vethB 2>&1 && setup_rxe_and_netns_b 1500 2>&1 &&
	   sroce_bind sroce2 vethRB 2>&1); then
	fail t-32/setup "$out"
	exit 1
fi
pass t-32/setup

# ibv_srq_pingpong takes ibv_rc_pingpong's options (-q QPs, -r SRQ depth)
srq_pingpong() { PINGPONG=ibv_srq_pingpong rc_pingpong "$@"; }

ss=(B sroce1 "$B_IP4" A sroce0 "$A_IP4")
rxe=(- rxe0 "$R_IP4") sroce=(B sroce2 "$RB_IP4")
for size in 1 4096 65536; do
	srq_pingpong "t-32/srq_pingpong-s$size" "${ss[@]}" -c -s "$size" -n 50
done
srq_pingpong t-32/srq_pingpong-q1-r4-s4096 "${ss[@]}" -c -q 1 -r 4 -s 4096 -n 200
srq_pingpong t-32/srq_pingpong-events-s4096 "${ss[@]}" -c -e -s 4096 -n 50
srq_pingpong t-32/rxe/sroce-client/srq_pingpong-s4096 "${rxe[@]}" "${sroce[@]}" -c -s 4096 -n 50
srq_pingpong t-32/rxe/sroce-server/srq_pingpong-s4096 "${sroce[@]}" "${rxe[@]}" -c -s 4096 -n 50

for conn in RC UD; do
	for prog in ib_send_bw ib_send_lat; do
		[[ $conn == UD ]] && size=1024 || size=65536
		run_pair "t-32/$conn/$prog-srq-s$size" "${ss[@]}" "$prog" -c "$conn" --use-srq -s "$size" -n 200
		run_pair "t-32/rxe/sroce-client/$conn/$prog-srq-s$size" "${rxe[@]}" "${sroce[@]}" \
			"$prog" -c "$conn" --use-srq -s "$size" -n 200
		run_pair "t-32/rxe/sroce-server/$conn/$prog-srq-s$size" "${sroce[@]}" "${rxe[@]}" \
			"$prog" -c "$conn" --use-srq -s "$size" -n 200
	done
done
# a small SRQ (rx-depth 16) under a deep send queue: RNR NAK and retry
run_pair t-32/RC/ib_send_bw-srq-r16-s4096 "${ss[@]}" ib_send_bw -c RC --use-srq -r 16 -s 4096 -n 1000
dmesg_clean t-32/dmesg
