. ./lib.sh
setup_rxe_and_netns_b || exit 1
gid_of 198.18.1.1; gid_of 2001:db8:1::1; gid_of ::1; gid_of fe80::20a6:baff:fe67:e753
gid_index rxe0 198.18.1.1; gid_index rxe0 2001:db8:1::1; gid_index rxe0 198.18.9.9
PERF_SHOW=1
time run_pair wbw - rxe0 $R_IP4 - rxe0 $R_IP4 ib_write_bw -s 65536 -n 200
time run_pair slat - rxe0 $R_IP4 - rxe0 $R_IP4 ib_send_lat -s 2 -n 200
time run_pair wbwa - rxe0 $R_IP4 - rxe0 $R_IP4 ib_write_bw -a -n 5
time run_pair rlata - rxe0 $R_IP4 - rxe0 $R_IP4 ib_read_lat -a -n 5
reset_state; ip link; ip netns; rdma link
