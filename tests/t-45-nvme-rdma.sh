#!/bin/bash
# t-45-nvme-rdma: NVMe over RDMA on sroce, kernel consumers end to end.
# One sroce device (sroce9) on vethR in init_net; the NVMe target (nvmet,
# nvmet-rdma, a brd RAM disk, configured through configfs) and the host
# (nvme-rdma, nvme-cli) in the same VM, talking through that device
# (loopback).  The host registers its I/O buffers with fast-register MRs
# (IB_WR_REG_MR) and the target invalidates them with SEND with Invalidate;
# the target moves data with rdma_rw (RDMA READ/WRITE).
#   - connect (2 I/O queues), fio verify jobs (crc32c): random 4 KiB and
#     sequential 128 KiB writes read back and checked, then read-only
#     verification of the same data after a reconnect with a poll queue
#     too (IB_POLL_DIRECT CQ) and a polled job; no verify error; fio's
#     figures printed
#   - connect/disconnect $T45_CYCLES times (default 50, bounded by
#     $T45_CYCLE_SECS, default 300 s: fewer when TCG is slow, said so)
#   - with a session connected and I/O running, the device taken away
#     three ways: `rdma link delete`, deleting its netdev (three times),
#     `rmmod sroce`: the command returns within $T45_REMOVAL_SECS (default
#     30 s: no teardown waits for an NVMe timeout), the host's controller
#     goes away (device removal), fio returns, nothing hangs (no splat in
#     dmesg)
cd "$(dirname "$0")" && source ./lib.sh && source ./ulp-lib.sh

NQN=nqn.2026-12.org.sroce:t45
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:5ec0e000-0000-4000-8000-000000000045
HOSTID=5ec0e000-0000-4000-8000-000000000045
ADDR=198.18.1.1
NVME_NQN=$NQN   # ulp-lib.sh nvmet_up/nvmet_down
CYCLES=${T45_CYCLES:-50}
CYCLE_SECS=${T45_CYCLE_SECS:-300}
REMOVAL_SECS=${T45_REMOVAL_SECS:-30}
t0=$SECONDS

# The host controller connected to $NQN (nvmeN), if any.
host_ctrl() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[[ -r $c/subsysnqn && $(cat "$c/subsysnqn") == "$NQN" ]] && { echo "${c##*/}"; return 0; }
	done
	return 1
}

# The namespace block device of $NQN (/dev/nvmeXnY: the multipath head
# node, or the controller's own node without multipath), if any.
host_dev() {
	local b
	for b in /sys/block/nvme*; do
		[[ ${b##*/} =~ ^nvme[0-9]+n[0-9]+$ && -r $b/device/subsysnqn &&
			$(cat "$b/device/subsysnqn") == "$NQN" && -b /dev/${b##*/} ]] &&
			{ echo "/dev/${b##*/}"; return 0; }
	done
	return 1
}

# connect [ARGS]: nvme connect (2 I/O queues, ARGS added), then wait (10 s)
# for the namespace's block device.
connect() {
	local out i
	out=$(bounded 60 nvme connect -t rdma -a "$ADDR" -s 4420 -n "$NQN" \
		--hostnqn="$HOSTNQN" --hostid="$HOSTID" -i 2 "$@" 2>&1) || { echo "nvme connect: $out"; return 1; }
	for ((i = 0; i < 100; i++)); do
		DEV=$(host_dev) && return 0
		sleep 0.1
	done
	echo "no block device for $NQN after connect: $(ls /sys/block)"
	bounded 60 nvme disconnect -n "$NQN" >/dev/null 2>&1
	return 1
}

disconnect() {
	local out
	out=$(bounded 60 nvme disconnect -n "$NQN" 2>&1) || { echo "nvme disconnect: $out"; return 1; }
	host_ctrl >/dev/null && { echo "controller still there after disconnect"; return 1; }
	return 0
}

# fio_job NAME ARGS...: one fio run on $DEV with crc32c verification; PASS
# with its bandwidth when fio succeeds with no error.  Two jobs (two CPUs,
# so both I/O queues), 8 MiB each, 16 MiB apart from the first offset.
fio_job() {
	local name=$1 out rc sum
	shift
	out=$(bounded 300 fio --name="$name" --filename="$DEV" --direct=1 \
		--ioengine=libaio --iodepth=8 --numjobs=2 --offset_increment=16m \
		--size=8m --verify=crc32c --verify_fatal=1 --group_reporting "$@" 2>&1)
	rc=$?
	sum=$(grep -E '^ +(READ|WRITE):|err=' <<<"$out" | sed 's/^ *//' | tr '\n' ';')
	echo "fio $name: $sum"
	if ((rc == 0)) && ! grep -q 'verify: bad\|err= *[1-9]' <<<"$out"; then
		pass "t-45/fio-$name" "$(grep -E '^ +(read|write): IOPS=' <<<"$out" | sed 's/^ *//;s/ (.*//' | tr '\n' ' ')"
	else
		fail "t-45/fio-$name" "status $rc: $(tail -n 15 <<<"$out")"
	fi
}

if ! out=$("$MODPROBE" -a nvmet-rdma nvme-rdma 2>&1); then
	skip t-45/modules "no nvme-rdma/nvmet-rdma in this kernel: $out"
	exit 0
fi
if ! command -v fio >/dev/null || ! command -v nvme >/dev/null; then
	fail t-45/tools "fio or nvme-cli missing from the guest"
	exit 1
fi
require_sroce t-45/modprobe-sroce || exit 1
# rdma_rxe, left loaded by earlier tests, holds UDP 4791 in init_net
"$MODPROBE" -r rdma_rxe 2>/dev/null
[[ -b /dev/ram0 ]] || "$MODPROBE" brd rd_nr=1 rd_size=131072
if ! out=$( { "$IP" link add vethR type veth peer name vethRB &&
	ns_link - vethR "$ADDR" 2001:db8:1::1 1500 && "$IP" link set vethRB up &&
	sroce_bind sroce9 vethR && [[ -b /dev/ram0 ]] && nvmet_up "$ADDR"; } 2>&1); then
	fail t-45/setup "$out"
	nvmet_down
	exit 1
fi
pass t-45/setup

# --- data path: connect, fio verify, disconnect -------------------------------
if connect >/tmp/t45.msg 2>&1; then
	pass t-45/connect "$DEV"
	fio_job rand4k-write --rw=randwrite --bs=4k
	fio_job seq128k-write --rw=write --bs=128k --offset=32m
	check t-45/disconnect disconnect
	# again with a poll queue (its CQ is IB_POLL_DIRECT) besides
	if connect -P 1 >/tmp/t45.msg 2>&1; then
		# the same jobs, reading back what the first connection wrote
		fio_job rand4k-read --rw=randwrite --bs=4k --verify_only
		fio_job seq128k-read --rw=write --bs=128k --offset=32m --verify_only
		# polled I/O (RWF_HIPRI) goes through the poll queue
		if [[ $(cat "/sys/block/${DEV##*/}/queue/io_poll" 2>/dev/null) == 1 ]]; then
			fio_job poll4k --rw=randwrite --bs=4k --offset=64m \
				--ioengine=pvsync2 --hipri --iodepth=1
		else
			fail t-45/poll-queue "no polling on ${DEV##*/} after connect -P 1"
		fi
		check t-45/disconnect-2 disconnect
	else
		fail t-45/connect-2 "$(cat /tmp/t45.msg)"
	fi
else
	fail t-45/connect "$(cat /tmp/t45.msg)"
fi
fr=$("$RDMA" statistic show link sroce9/1 2>/dev/null | tr ' ' '\n' | grep -A1 -x 'rem_invalid_req' | tail -n1)
[[ -z $fr || $fr == 0 ]] && pass t-45/no-invalid-req || fail t-45/no-invalid-req "rem_invalid_req $fr"

# --- connect/disconnect cycles -----------------------------------------------
start=$SECONDS
n=0
err=
while ((n < CYCLES && SECONDS - start < CYCLE_SECS)); do
	connect >/tmp/t45.msg 2>&1 || { err="connect $((n + 1)): $(cat /tmp/t45.msg)"; break; }
	out=$(disconnect) || { err="disconnect $((n + 1)): $out"; break; }
	((n++))
done
secs=$((SECONDS - start))
if [[ -n $err ]]; then
	fail t-45/cycles "$err"
elif ((n < CYCLES)); then
	pass t-45/cycles "$n of $CYCLES connect/disconnect cycles in ${secs}s (time bound ${CYCLE_SECS}s)"
else
	pass t-45/cycles "$n connect/disconnect cycles in ${secs}s"
fi

# --- device removal with a session connected and I/O running -----------------
# bring_up: vethR, sroce9 on it and the target, whatever is missing.
bring_up() {
	[[ -d /sys/module/sroce ]] || "$MODPROBE" sroce || return 1
	if ! "$IP" link show vethR >/dev/null 2>&1; then
		"$IP" link add vethR type veth peer name vethRB &&
		ns_link - vethR "$ADDR" 2001:db8:1::1 1500 && "$IP" link set vethRB up || return 1
	fi
	[[ -e /sys/class/infiniband/sroce9 ]] || sroce_bind sroce9 vethR || return 1
	nvmet_down
	nvmet_up "$ADDR"
}

# removal NAME CMD...: connect, start fio, run CMD (which takes the device
# away): CMD returns, the host's controller goes (the ULP saw the device's
# removal), fio returns, nothing hangs.
removal() {
	local t=t-45/$1 fpid rstart rc i
	shift
	if ! bring_up >/tmp/t45.msg 2>&1 || ! connect >>/tmp/t45.msg 2>&1; then
		fail "$t" "$(cat /tmp/t45.msg)"
		return
	fi
	fio --name=removal --filename="$DEV" --direct=1 --ioengine=libaio \
		--iodepth=8 --rw=randrw --bs=4k --size=16m --time_based \
		--runtime=60 >/tmp/t45-removal.log 2>&1 &
	fpid=$!
	sleep 2
	rstart=$SECONDS
	if ! bounded 120 "$@" || ! wait_gone sroce9 30; then
		fail "$t" "\`$*\` failed or hung"
	elif ((SECONDS - rstart > REMOVAL_SECS)); then
		fail "$t" "\`$*\` took $((SECONDS - rstart))s (bound ${REMOVAL_SECS}s): a teardown waited for a timeout"
	else
		pass "$t" "\`$*\` in $((SECONDS - rstart))s"
	fi
	for ((i = 0; i < 300; i++)); do host_ctrl >/dev/null || break; sleep 0.1; done
	host_ctrl >/dev/null && fail "$t/ctrl-removed" "controller still there 30 s after removal" ||
		pass "$t/ctrl-removed"
	wait_pid "$fpid" 60
	rc=$?
	((rc != 124)) && pass "$t/fio-returns" "fio exited $rc after the device went away" ||
		fail "$t/fio-returns" "fio still running 60 s after removal"
}

removal link-delete-connected "$RDMA" link delete sroce9
# three times: whether the host's shutdown command was already posted
# when the device failed is a matter of timing
removal netdev-delete-connected "$IP" link delete vethR
removal netdev-delete-connected-2 "$IP" link delete vethR
removal netdev-delete-connected-3 "$IP" link delete vethR
removal rmmod-connected "$MODPROBE" -r sroce
nvmet_down
dmesg_clean t-45/dmesg
echo "t-45: ${SECONDS}s in all"
