#!/bin/bash
# t-90-teardown: removing sroce devices while they are in use:
#   rdma link delete with a user context open and with QPs moving traffic,
#   ip link del / netns delete of the bound netdev, rmmod with devices
#   bound (idle and in use), module reload; then dmesg must be clean.
# Without a disassociate_ucontext op the kernel makes the delete wait for
# the users to close the device, so each step kills perftest after 3 s and
# then expects the removal to finish within 30 s.
cd "$(dirname "$0")" && source ./lib.sh

require_sroce t-90/modprobe-sroce || exit 1

bind_pair() {
	reset_state
	setup_two_netns 1500 && sroce_bind sroce0 vethA && sroce_bind sroce1 vethB
}
port=18700

# server_waiting: ib_write_bw server on sroce1 waiting for a client.
server_waiting() {
	local g
	g=$(gid_index sroce1 "$B_IP4") || return 1
	port=$((port + 1))
	in_ns B ib_write_bw -d sroce1 -x "$g" -F -p "$port" >"$LOG_DIR/t90-srv.$port.log" 2>&1 &
	disown
	for ((i = 0; i < 50; i++)); do tcp_listening B "$port" && return 0; sleep 0.1; done
	return 1
}

# traffic: ib_write_bw for 30 s from sroce0 (A) to sroce1 (B), in background.
traffic() {
	local gA gB
	gA=$(gid_index sroce0 "$A_IP4") && gB=$(gid_index sroce1 "$B_IP4") || return 1
	port=$((port + 1))
	in_ns B ib_write_bw -d sroce1 -x "$gB" -F -p "$port" -D 30 -s 65536 >"$LOG_DIR/t90-srv.$port.log" 2>&1 &
	disown
	for ((i = 0; i < 50; i++)); do tcp_listening B "$port" && break; sleep 0.1; done
	in_ns A ib_write_bw -d sroce0 -x "$gA" -F -p "$port" -D 30 -s 65536 "$B_IP4" >"$LOG_DIR/t90-cli.$port.log" 2>&1 &
	disown
	# connected: the client's RC QP reached RTS (perftest's own output is
	# block-buffered into the log, so ask the kernel instead)
	for ((i = 0; i < 200; i++)); do
		"$RDMA" resource show qp link sroce0/1 2>/dev/null |
			grep -q 'type RC.*state RTS' && { sleep 1; return 0; }
		sleep 0.1
	done
	return 1
}

# removal NAME CMD...: run CMD in background, kill perftest after 3 s; PASS
# when CMD exits 0 within 30 s more.
removal() {
	local name=$1 pid rc when=
	shift
	"$@" >"$LOG_DIR/t90.out" 2>&1 &
	pid=$!
	sleep 3
	kill -0 "$pid" 2>/dev/null && when="finished after its users were killed"
	kill_perf
	wait_pid "$pid" 30
	rc=$?
	if ((rc == 0)); then
		pass "$name" "${when:-returned while in use}"
	elif ((rc == 124)); then
		fail "$name" "\`$*\` still blocked 30 s after its users were killed"
	else
		fail "$name" "\`$*\` exited $rc: $(tr '\n' ' ' <"$LOG_DIR/t90.out")"
	fi
	((rc == 0))
}

gone() { # NAME IBDEV...: PASS if every IBDEV disappears within 20 s
	local name=$1 d
	shift
	for d; do wait_gone "$d" || { fail "$name" "$d still registered"; return 1; }; done
	pass "$name"
}

step() { # NAME SETUP: FAIL NAME/setup and return 1 when SETUP fails
	"${@:2}" >"$LOG_DIR/t90.setup" 2>&1 && return 0
	fail "$1/setup" "$(tail -n 3 "$LOG_DIR/t90.setup" | tr '\n' ' ')"
	return 1
}

# 1. rdma link delete while a process has the device open (no QP yet)
n=t-90/link-delete-context-open
step $n bind_pair && step $n server_waiting &&
	removal $n "$RDMA" link delete sroce1 && gone $n/gone sroce1

# 2. rdma link delete under traffic (QPs in RTS), then the peer
n=t-90/link-delete-under-traffic
step $n bind_pair && step $n traffic &&
	removal $n "$RDMA" link delete sroce1 && gone $n/gone sroce1 &&
	check $n/peer-survives "$RDMA" link show sroce0/1 &&
	check $n/peer-delete bounded 30 "$RDMA" link delete sroce0

# 3. ip link del of the bound netdev (its veth peer goes too), idle and busy
n=t-90/netdev-delete-idle
step $n bind_pair && check $n bounded 30 "$IP" -n A link del vethA &&
	gone $n/gone sroce0 sroce1
n=t-90/netdev-delete-under-traffic
step $n bind_pair && step $n traffic &&
	removal $n "$IP" -n A link del vethA && gone $n/gone sroce0 sroce1

# 4. netns delete with devices bound
n=t-90/netns-delete
step $n bind_pair && check $n bounded 30 "$IP" netns del A &&
	check $n/B bounded 30 "$IP" netns del B && gone $n/gone sroce0 sroce1

# 5. rmmod with devices bound: idle, then with a process using one
n=t-90/rmmod-bound-idle
step $n bind_pair && check $n bounded 30 "$MODPROBE" -r sroce &&
	gone $n/gone sroce0 sroce1
# In use: either refused (EBUSY: the device holds a module reference while
# opened) or unloaded once the user is gone; never stuck, never a splat.
n=t-90/rmmod-in-use
"$MODPROBE" sroce
if step $n bind_pair && step $n server_waiting; then
	"$MODPROBE" -r sroce >"$LOG_DIR/t90.out" 2>&1 &
	pid=$!
	sleep 3
	kill_perf
	wait_pid $pid 30
	rc=$?
	if ((rc == 124)); then
		fail $n "modprobe -r sroce still blocked 30 s after its user was killed"
	elif ((rc == 0)); then
		gone $n sroce0 sroce1
	elif [[ -d /sys/module/sroce && -e /sys/class/infiniband/sroce1 ]]; then
		pass $n "refused: $(tr '\n' ' ' <"$LOG_DIR/t90.out")"
	else
		fail $n "modprobe -r failed ($rc) but the module or device is gone"
	fi
fi
kill_perf

# 6. the module comes back and works
n=t-90/reload
if check $n "$MODPROBE" sroce && step $n bind_pair; then
	run_pair $n/ib_write_bw B sroce1 "$B_IP4" A sroce0 "$A_IP4" ib_write_bw -s 4096 -n 100
fi
reset_state
check t-90/final-rmmod bounded 30 "$MODPROBE" -r sroce
dmesg_clean t-90/dmesg-clean
