#!/bin/bash
# t-30-pingpong: ibv_rc_pingpong -c (checks every received byte) between
# sroce0 (netns A) and sroce1 (netns B), message sizes 1 B..1 MiB including
# sizes around the path MTU and page size; two runs with -e (completion
# events: req_notify_cq + completion channel instead of busy polling).
cd "$(dirname "$0")" && source ./lib.sh

require_sroce t-30/modprobe-sroce && require_provider t-30/provider || exit 1
if ! out=$(setup_two_netns 1500 2>&1 && sroce_bind sroce0 vethA 2>&1 && sroce_bind sroce1 vethB 2>&1); then
	fail t-30/setup "$out"
	exit 1
fi
pass t-30/setup

pair=(B sroce1 "$B_IP4" A sroce0 "$A_IP4")
for size in 1 2 3 64 1000 1024 1025 2048 4095 4096 4097 16384 65536 65537 262144 1048576; do
	((size >= 65536)) && n=10 || n=100
	rc_pingpong "t-30/rc_pingpong-s$size" "${pair[@]}" -c -s "$size" -n "$n"
done
rc_pingpong t-30/rc_pingpong-events-s4096 "${pair[@]}" -c -e -s 4096 -n 100
rc_pingpong t-30/rc_pingpong-events-s1048576 "${pair[@]}" -c -e -s 1048576 -n 10
