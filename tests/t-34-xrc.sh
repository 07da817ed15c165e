#!/bin/bash
# t-34-xrc: XRC (IBTA annex A14: XRC domains and SRQs, XRCETH) between
# sroce0 (netns A) and sroce1 (netns B).  The devices say IBV_DEVICE_XRC;
# tests/bin/xrc_verbs (tests/src/xrc_verbs.c) moves every opcode an XRC
# send QP takes through ibv_post_send and through the ibv_wr_* API, bytes
# compared, each message on the SRQ its number names, each receive
# completion naming its TGT QP, and shares a domain with a second context
# (ibv_open_qp); ibv_xsrq_pingpong runs with one client and with two
# client processes sharing one XRC domain (the server reaches each
# client's SRQ through either client's TGT QP); perftest's XRC connection
# type for send, write, read and atomic bandwidth and latency; xrc_verbs
# and perftest again under packet loss, and under reordering and
# duplication (netem); XRC traffic killed mid-run frees everything, and the
# devices then go.
#
# perftest 4.5 posts through ibv_post_send only on sroce: it uses the
# ibv_wr_* API on mlx5 and EFA devices alone (xrc_verbs covers that API).
# Neither perftest nor ibv_xsrq_pingpong checks the bytes it moves.
cd "$(dirname "$0")" && source ./lib.sh

require_sroce t-34/modprobe-sroce && require_provider t-34/provider || exit 1
if [[ ! -x bin/xrc_verbs ]]; then
	fail t-34/build "tests/bin/xrc_verbs missing: run make -C tests/src on the host"
	exit 1
fi
if ! out=$(setup_two_netns 1500 2>&1 && sroce_bind sroce0 vethA 2>&1 && sroce_bind sroce1 vethB 2>&1); then
	fail t-34/setup "$out"
	exit 1
fi
ga=$(gid_index sroce0 "$A_IP4" 2>&1) && gb=$(gid_index sroce1 "$B_IP4" 2>&1) ||
	{ fail t-34/setup "$ga $gb"; exit 1; }
pass t-34/setup

# device_cap_flags: libibverbs prints XRC for IBV_DEVICE_XRC
if ibv_devinfo -v -d sroce0 2>&1 | grep -qw XRC; then
	pass t-34/device-cap-xrc
else
	fail t-34/device-cap-xrc "ibv_devinfo -v -d sroce0 lists no XRC among device_cap_flags"
fi

# Verbs are not bound to a netns (rdma system netns shared): run in init_net.
run_cases t-34/verbs 180 bin/xrc_verbs -d sroce0 -g "$ga" -D sroce1 -G "$gb"

# ibv_xsrq_pingpong takes ibv_rc_pingpong's -d -g -p -s -n -e; its -c is
# the number of clients (server side)
xsrq_pingpong() { PINGPONG=ibv_xsrq_pingpong rc_pingpong "$@"; }
ss=(B sroce1 "$B_IP4" A sroce0 "$A_IP4")
for size in 1 4096 65536; do
	xsrq_pingpong "t-34/xsrq_pingpong-s$size" "${ss[@]}" -s "$size" -n 50
done
xsrq_pingpong t-34/xsrq_pingpong-events-s4096 "${ss[@]}" -e -s 4096 -n 50
xsrq_pingpong t-34/xsrq_pingpong-mtu512-s16384 "${ss[@]}" -m 512 -s 16384 -n 20

# Two clients in netns A share the XRC domain of /tmp/xrc_domain on
# sroce0; the server sends to client i's SRQ through the send QP of turn,
# connected to either client's TGT QP.
xsrq_two_clients() {
	local name=t-34/xsrq_pingpong-2-clients port=$PERF_PORT sgid cgid i r spid cpid=() rc=0 why=''
	PERF_PORT=$((PERF_PORT + 1))
	sgid=$(gid_index sroce1 "$B_IP4") && cgid=$(gid_index sroce0 "$A_IP4") ||
		{ fail "$name" "no GID"; return 1; }
	in_ns B timeout -k 5 "$PAIR_TIMEOUT" ibv_xsrq_pingpong -d sroce1 -g "$sgid" \
		-p "$port" -c 2 -s 4096 -n 50 >"$LOG_DIR/t-34-xsrq2.server.log" 2>&1 &
	spid=$!
	for ((i = 0; i < 100; i++)); do
		tcp_listening B "$port" && break
		sleep 0.1
	done
	for i in 1 2; do
		in_ns A timeout -k 5 "$PAIR_TIMEOUT" ibv_xsrq_pingpong -d sroce0 -g "$cgid" \
			-p "$port" -s 4096 -n 50 "$B_IP4" >"$LOG_DIR/t-34-xsrq2.client$i.log" 2>&1 &
		cpid+=($!)
	done
	for i in 0 1; do
		wait_pid "${cpid[$i]}" $((PAIR_TIMEOUT + 10))
		r=$?
		((r == 0)) || { rc=1; why+="client $((i + 1)) rc=$r; "; }
	done
	wait_pid "$spid" $((rc ? 5 : PAIR_TIMEOUT + 10))
	r=$?
	((r == 0)) || { rc=1; why+="server rc=$r; "; }
	kill -0 "$spid" 2>/dev/null && kill_perf
	if ((rc == 0)) && grep -q success "$LOG_DIR/t-34-xsrq2.client1.log" &&
		grep -q success "$LOG_DIR/t-34-xsrq2.client2.log"; then
		pass "$name" "two processes, one XRC domain"
	else
		fail "$name" "$why$(tail -n 2 "$LOG_DIR"/t-34-xsrq2.*.log | tr '\n' ' ')"
	fi
}
xsrq_two_clients

for prog in ib_send_bw ib_write_bw ib_read_bw; do
	run_pair "t-34/$prog-xrc-s65536" "${ss[@]}" "$prog" -c XRC -s 65536 -n 200
done
run_pair t-34/ib_atomic_bw-xrc "${ss[@]}" ib_atomic_bw -c XRC -n 500
run_pair t-34/ib_send_bw-xrc-q4-s4096 "${ss[@]}" ib_send_bw -c XRC -q 4 -s 4096 -n 500
run_pair t-34/ib_send_bw-xrc-bidir-s4096 "${ss[@]}" ib_send_bw -c XRC -b -s 4096 -n 500
# a small SRQ (rx-depth 16) under a deep send queue: RNR NAK and retry
run_pair t-34/ib_send_bw-xrc-r16-s4096 "${ss[@]}" ib_send_bw -c XRC -r 16 -s 4096 -n 1000
for prog in ib_send_lat ib_write_lat ib_read_lat; do
	run_pair "t-34/$prog-xrc-s2" "${ss[@]}" "$prog" -c XRC -s 2 -n 200
done
run_pair t-34/ib_send_lat-xrc-s8192 "${ss[@]}" ib_send_lat -c XRC -s 8192 -n 200
# Recovery: xrc_verbs again (every byte checked) and ib_read_bw -c XRC with
# the RoCE packets (UDP 4791) leaving both veth ends lost (3 %), or delayed,
# reordered and duplicated, through netem as t-85 does for RC: resent
# requests carry their XRCETH, duplicates are answered from the SRQ they
# name, READ and atomic responses are replayed.
for imp in loss reorder-dup; do
	case $imp in
	loss) netem=(loss 3%) ;;
	reorder-dup) netem=(delay 1ms 2ms reorder 25% 50% duplicate 5%) ;;
	esac
	if ! out=$(impair A vethA "${netem[@]}" 2>&1 && impair B vethB "${netem[@]}" 2>&1); then
		fail "t-34/$imp/netem" "$out"
		continue
	fi
	run_cases "t-34/$imp/verbs" 240 bin/xrc_verbs -d sroce0 -g "$ga" -D sroce1 -G "$gb"
	run_pair "t-34/$imp/ib_read_bw-xrc-s65536" "${ss[@]}" ib_read_bw -c XRC -s 65536 -n 100
	run_pair "t-34/$imp/ib_atomic_bw-xrc" "${ss[@]}" ib_atomic_bw -c XRC -n 200
	in_ns A tc qdisc del dev vethA root
	in_ns B tc qdisc del dev vethB root
done

# Teardown: XRC traffic killed mid-run (SIGKILL: the kernel frees the
# domains, XRC SRQs, TGT and INI QPs of dead processes, the TGT QPs with
# requests in flight), every resource count back to what it was before,
# then both devices deleted within 30 s.
xrc_killed() {
	local name=t-34/teardown-killed-mid-traffic port=$PERF_PORT ga gb i before after d
	PERF_PORT=$((PERF_PORT + 1))
	ga=$(gid_index sroce0 "$A_IP4") && gb=$(gid_index sroce1 "$B_IP4") || { fail "$name" "no GID"; return 1; }
	before=$(rdma_res_counts sroce0 sroce1)
	in_ns B ib_send_bw -d sroce1 -x "$gb" -F -c XRC -p "$port" -D 20 -s 4096 \
		>"$LOG_DIR/t-34-kill.server.log" 2>&1 &
	for ((i = 0; i < 100; i++)); do tcp_listening B "$port" && break; sleep 0.1; done
	in_ns A ib_send_bw -d sroce0 -x "$ga" -F -c XRC -p "$port" -D 20 -s 4096 "$B_IP4" \
		>"$LOG_DIR/t-34-kill.client.log" 2>&1 &
	# connected: both printed the peer's address; then let traffic run
	for ((i = 0; i < 100; i++)); do
		grep -q 'remote address' "$LOG_DIR/t-34-kill.client.log" && break
		sleep 0.1
	done
	sleep 2
	kill_perf
	for ((i = 0; i < 100; i++)); do
		after=$(rdma_res_counts sroce0 sroce1)
		[[ $after == "$before" ]] && break
		sleep 0.1
	done
	if [[ $after != "$before" ]]; then
		fail "$name" "resources before: $before; 10 s after the kill: $after"
		return 1
	fi
	for d in sroce0 sroce1; do
		if ! bounded 30 "$RDMA" link delete "$d" >/dev/null || ! wait_gone "$d" 5; then
			fail "$name" "rdma link delete $d did not finish within 30 s"
			return 1
		fi
	done
	pass "$name" "resources freed, devices deleted"
}
xrc_killed
dmesg_clean t-34/dmesg
