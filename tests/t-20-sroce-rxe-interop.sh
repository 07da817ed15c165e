#!/bin/bash
# t-20-sroce-rxe-interop: the t-10 perftest set between rdma_rxe (rxe0 on
# vethR, init_net, 198.18.1.1) and sroce (sroce1 on vethRB, netns B,
# 198.18.1.2) at MTU 1500, with sroce as client and as server, plus IPv6
# GIDs for ib_write_bw and ib_send_lat: sroce must speak the same RoCEv2
# wire format (BTH/RETH/AETH, ICRC) as the kernel's rxe.  The -a sweeps
# run at full scope only (TEST_SCOPE, tests/lib.sh test_scope).
cd "$(dirname "$0")" && source ./lib.sh

require_sroce t-20/modprobe-sroce && require_provider t-20/provider || exit 1

PROGS=(ib_send_bw ib_write_bw ib_read_bw ib_send_lat ib_write_lat ib_read_lat)
SIZES=("-s 2 -n 200" "-s 4096 -n 200" "-s 65536 -n 100")
test_scope full && SIZES+=("-a -n 5")

if ! out=$(setup_rxe_and_netns_b 1500 2>&1 && sroce_bind sroce1 vethRB 2>&1); then
	fail t-20/setup "$out"
	exit 1
fi
pass t-20/setup

rxe=(- rxe0 "$R_IP4") sroce=(B sroce1 "$RB_IP4")
for prog in "${PROGS[@]}"; do
	for size in "${SIZES[@]}"; do
		read -ra args <<<"$size"
		s=$(tr -d ' ' <<<"${size% -n*}")
		sweep_skipped "t-20/sroce-client/$prog$s" "${args[@]}" &&
			sweep_skipped "t-20/sroce-server/$prog$s" "${args[@]}" && continue
		run_pair "t-20/sroce-client/$prog$s" "${rxe[@]}" "${sroce[@]}" "$prog" "${args[@]}"
		run_pair "t-20/sroce-server/$prog$s" "${sroce[@]}" "${rxe[@]}" "$prog" "${args[@]}"
	done
done
# Four RC QPs at once, rdma_rxe the requester (about 5 s).  -u 17 (a
# 537 ms transport timeout, not perftest's 67 ms): when 6.1's rxe times
# out while the ACK of a WQE's last packet is on its way, it takes the
# ACK's PSN without completing the WQE and its next retry rebuilds that
# WQE past its end, a zero-length RDMA WRITE ONLY at a fresh PSN: every
# later packet is one PSN late and sroce must NAK the first whose length
# cannot match (invalid request).  On a slow TCG host 67 ms runs out.
run_pair t-20/sroce-server/ib_write_bw-q4 "${sroce[@]}" "${rxe[@]}" ib_write_bw \
	-q 4 -s 65536 -n 100 -u 17
# RoCEv2 over IPv6 GIDs (perftest's own exchange stays on IPv4 TCP)
for prog in ib_write_bw ib_send_lat; do
	PAIR_CONNECT=$R_IP4 run_pair "t-20/ipv6/sroce-client/$prog-s4096" \
		- rxe0 "$R_IP6" B sroce1 "$RB_IP6" "$prog" -s 4096 -n 100
	PAIR_CONNECT=$RB_IP4 run_pair "t-20/ipv6/sroce-server/$prog-s4096" \
		B sroce1 "$RB_IP6" - rxe0 "$R_IP6" "$prog" -s 4096 -n 100
done
