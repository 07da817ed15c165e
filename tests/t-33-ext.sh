#!/bin/bash
# t-33-ext: the extended verbs (ibv_create_qp_ex with the ibv_wr_* API,
# ibv_create_cq_ex with start/next/end_poll and the read_* accessors)
# through tests/bin/ext_verbs (tests/src/ext_verbs.c): every opcode over
# RC, UC and UD with gather lists and inline data, bytes compared and
# every accessor checked; bad work requests fail ibv_wr_complete() with
# the documented errno and post nothing of the batch; what the device
# cannot do is refused at creation; RC ATOMIC WRITE (stored bytes, a
# misaligned address, an MR without remote write) where the peer reports
# it (rdma_rxe of Linux 6.1 does not: skipped there).  First sroce0
# (netns A) against sroce1 (netns B), then sroce1 against rdma_rxe (rxe0,
# init_net), both ends on the extended verbs.  One t-33/<pair>/<case>
# result per line the program prints; then no kernel splat.
#
# perftest is not run here: perftest 4.5 (Debian 12) has no option to use
# the ibv_wr_* API on a device it does not know (it forces
# --use_old_post_send for everything but mlx5 and EFA), so it cannot
# exercise this code.
cd "$(dirname "$0")" && source ./lib.sh

require_sroce t-33/modprobe-sroce && require_provider t-33/provider || exit 1
if [[ ! -x bin/ext_verbs ]]; then
	fail t-33/build "tests/bin/ext_verbs missing: run make -C tests/src on the host"
	exit 1
fi

# Verbs are not bound to a netns (rdma system netns shared): run in init_net.
reset_state
if out=$(setup_two_netns 1500 2>&1 && sroce_bind sroce0 vethA 2>&1 && sroce_bind sroce1 vethB 2>&1) &&
	ga=$(gid_index sroce0 "$A_IP4" 2>&1) && gb=$(gid_index sroce1 "$B_IP4" 2>&1); then
	pass t-33/sroce/setup
	run_cases t-33/sroce 180 bin/ext_verbs -d sroce0 -g "$ga" -D sroce1 -G "$gb"
else
	fail t-33/sroce/setup "$out $ga $gb"
fi

reset_state
if out=$(setup_rxe_and_netns_b 1500 2>&1 && sroce_bind sroce1 vethRB 2>&1) &&
	gs=$(gid_index sroce1 "$RB_IP4" 2>&1) && gr=$(gid_index rxe0 "$R_IP4" 2>&1); then
	pass t-33/rxe/setup
	run_cases t-33/rxe 180 bin/ext_verbs -d sroce1 -g "$gs" -D rxe0 -G "$gr" -x
else
	fail t-33/rxe/setup "$out $gs $gr"
fi
reset_state
dmesg_clean t-33/dmesg-clean
