#!/bin/bash
# t-40-verbs-errno: tests/bin/verbs_errno (tests/src/verbs_errno.c) against
# sroce0 (netns A), with sroce1 (netns B) as the peer of its final ping: bad
# arguments to every verb fail with the errno rdma-core/ib_core/IBTA/rxe
# document (the program's table names the source of each), refused calls
# change nothing, and the same QPs then pass send/recv and RDMA traffic.
# XRC (with IBV_DEVICE_XRC): domains, XRC SRQs and QPs refused without
# what they need, posts to queues XRC QPs lack, and sends naming an SRQ
# number the target QP's domain lacks (unknown, another domain's,
# destroyed) completing with IBV_WC_REM_INV_REQ_ERR, the INI QP in ERR.
# One t-40/<case> result per line the program prints; then no kernel splat.
cd "$(dirname "$0")" && source ./lib.sh

require_sroce t-40/modprobe-sroce && require_provider t-40/provider || exit 1
if [[ ! -x bin/verbs_errno ]]; then
	fail t-40/build "tests/bin/verbs_errno missing: run make -C tests/src on the host"
	exit 1
fi
if ! out=$(setup_two_netns 1500 2>&1 && sroce_bind sroce0 vethA 2>&1 && sroce_bind sroce1 vethB 2>&1); then
	fail t-40/setup "$out"
	exit 1
fi
ga=$(gid_index sroce0 "$A_IP4" 2>&1) && gb=$(gid_index sroce1 "$B_IP4" 2>&1) ||
	{ fail t-40/setup "$ga $gb"; exit 1; }
pass t-40/setup

# Verbs are not bound to a netns (rdma system netns shared): run in init_net.
run_cases t-40 180 bin/verbs_errno -d sroce0 -g "$ga" -D sroce1 -G "$gb"

# The devices still carry traffic between two other processes.
rc_pingpong t-40/rc_pingpong-after B sroce1 "$B_IP4" A sroce0 "$A_IP4" -c -s 4096 -n 50
dmesg_clean t-40/dmesg-clean
