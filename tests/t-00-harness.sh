#!/bin/bash
# t-00-harness: proves the VM userland with rdma_rxe alone (no sroce needed):
# rxe loads and binds, ibv_devices sees it, perftest (ethernet/TCP exchange)
# and ibv_rc_pingpong run in rxe's single-device loopback (6.1's rxe binds
# UDP 4791 in init_net only, so both ends use rxe0 and 198.18.1.1).
cd "$(dirname "$0")" && source ./lib.sh

check harness/modprobe-rdma_rxe "$MODPROBE" rdma_rxe
check harness/setup-rxe setup_rxe_and_netns_b 1500
check harness/rdma-link-show-rxe0 bash -c "$RDMA link show rxe0/1 | grep -q 'state ACTIVE'"
check harness/ibv_devices-lists-rxe0 bash -c 'ibv_devices | grep -qw rxe0'
check harness/gid-index-ipv4 gid_index rxe0 "$R_IP4"
check harness/gid-index-ipv6 gid_index rxe0 "$R_IP6"

lo=(- rxe0 "$R_IP4" - rxe0 "$R_IP4")
run_pair harness/rxe-loopback/ib_write_bw-s65536 "${lo[@]}" ib_write_bw -s 65536 -n 200
run_pair harness/rxe-loopback/ib_send_lat-s2 "${lo[@]}" ib_send_lat -s 2 -n 200
run_pair harness/rxe-loopback/ib_read_bw-s4096 "${lo[@]}" ib_read_bw -s 4096 -n 100
PAIR_CONNECT=$R_IP4 run_pair harness/rxe-loopback/ib_write_bw-s65536-ipv6 \
	- rxe0 "$R_IP6" - rxe0 "$R_IP6" ib_write_bw -s 65536 -n 200

# ibv_rc_pingpong -c checks the received data.
rc_pingpong harness/rxe-loopback/ibv_rc_pingpong-c "${lo[@]}" -c -n 100 -s 4096

check harness/rdma-link-delete-rxe0 "$RDMA" link delete rxe0
check harness/rmmod-rdma_rxe "$MODPROBE" -r rdma_rxe
dmesg_clean harness/dmesg-clean
