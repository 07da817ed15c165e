#!/bin/bash
# t-12-devname: sroce devices work whatever their name.  The provider
# recognises a device by its hca_type sysfs attribute, not by a "sroce"
# name prefix: two devices named roce0 (netns A) and fabric_b (netns B) are
# opened by ibv_devinfo (honest identity: non-zero vendor_id and part id),
# carry an ibv_rc_pingpong (bytes checked), an ib_write_bw pair and XRC
# (ibv_xsrq_pingpong, ib_send_bw -c XRC), and
# connect through rdma_cm (rping, data checked, and ib_send_bw -R); an rxe
# device beside them is still driven by the rxe provider.
cd "$(dirname "$0")" && source ./lib.sh

require_sroce t-12/modprobe-sroce && require_provider t-12/provider || exit 1
if ! out=$(setup_two_netns 1500 2>&1 && sroce_bind roce0 vethA 2>&1 && sroce_bind fabric_b vethB 2>&1); then
	fail t-12/setup "$out"
	exit 1
fi
pass t-12/setup

# ibv_devinfo opens the device (alloc_context) and reports its identity.
for d in roce0 fabric_b; do
	out=$(ibv_devinfo -d "$d" 2>&1)
	vid=$(awk '$1 == "vendor_id:" { print $2 }' <<<"$out")
	part=$(awk '$1 == "vendor_part_id:" { print $2 }' <<<"$out")
	if [[ -n $vid && $vid != 0x0000 && -n $part && $part != 0 ]] &&
		grep -q 'transport:.*InfiniBand' <<<"$out"; then
		pass "t-12/devinfo-$d" "vendor_id $vid part $part"
	else
		fail "t-12/devinfo-$d" "$(tail -n 5 <<<"$out" | tr '\n' ' ')"
	fi
done
hca=$(cat /sys/class/infiniband/roce0/hca_type 2>&1)
[[ $hca == sroce ]] && pass t-12/hca_type || fail t-12/hca_type "roce0/hca_type: '$hca'"

pair=(B fabric_b "$B_IP4" A roce0 "$A_IP4")
rc_pingpong t-12/rc_pingpong "${pair[@]}" -c -s 4096 -n 50
run_pair t-12/ib_write_bw "${pair[@]}" ib_write_bw -s 65536 -n 200
# XRC: domains, XRC SRQs, INI and TGT QPs on renamed devices
PINGPONG=ibv_xsrq_pingpong rc_pingpong t-12/xsrq_pingpong "${pair[@]}" -s 4096 -n 20
run_pair t-12/ib_send_bw-xrc "${pair[@]}" ib_send_bw -c XRC -s 4096 -n 200

# cm_pair NAME SERVER_CMD... -- CLIENT_CMD...: the server in netns B, the
# client in netns A.  An rdma_cm server listens on no TCP port, so the
# client is retried (once a second, 30 times at most) while it is rejected
# for want of a listener and the server still waits.
cm_pair() {
	local name=$1 scmd=() spid crc=1 src i
	local slog=$LOG_DIR/${name//\//_}.server.log clog=$LOG_DIR/${name//\//_}.client.log
	shift
	while [[ $1 != -- ]]; do scmd+=("$1"); shift; done
	shift
	in_ns B timeout -k 5 "$PAIR_TIMEOUT" "${scmd[@]}" >"$slog" 2>&1 &
	spid=$!
	for ((i = 0; i < 30 && crc; i++)); do
		sleep 1
		kill -0 "$spid" 2>/dev/null || break
		in_ns A timeout -k 5 "$PAIR_TIMEOUT" "$@" >"$clog" 2>&1
		crc=$?
		grep -qiE 'REJECTED|CM event .* 8$' "$clog" || break
	done
	wait_pid "$spid" 30 2>/dev/null
	src=$?
	kill -0 "$spid" 2>/dev/null && kill_perf
	if ((crc == 0 && src == 0)); then
		pass "$name"
	else
		fail "$name" "client rc=$crc server rc=$src: $(tail -n 3 "$clog" "$slog" | tr '\n' ' ')"
	fi
}

# rdma_cm: rping verifies every byte it receives (-V); ib_send_bw -R.
cm_pair t-12/rping rping -s -a "$B_IP4" -p 19999 -C 20 -S 4096 -V -- \
	rping -c -a "$B_IP4" -p 19999 -C 20 -S 4096 -V
cm_pair t-12/ib_send_bw-rdma_cm ib_send_bw -d fabric_b -R -F -s 4096 -n 200 -p 19998 -- \
	ib_send_bw -d roce0 -R -F -s 4096 -n 200 -p 19998 "$B_IP4"

# rxe beside sroce: its own provider still takes it.
if out=$(setup_rxe_and_netns_b 1500 2>&1); then
	out=$(ibv_devinfo -d rxe0 2>&1)
	vid=$(awk '$1 == "vendor_id:" { print $2 }' <<<"$out")
	if [[ $vid == 0xffffff ]]; then
		pass t-12/rxe-beside "rxe0 vendor_id $vid"
	else
		fail t-12/rxe-beside "$(tail -n 5 <<<"$out" | tr '\n' ' ')"
	fi
else
	fail t-12/rxe-beside "setup: $out"
fi
dmesg_clean t-12/dmesg
