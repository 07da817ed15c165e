#!/bin/bash
# t-11-loopback: both ends on one device, sroce0 on vethA in netns A, client
# and server on its own address. With the loopback module parameter on (the
# default) every packet goes straight to the device's receive path: the
# hw counter loopback_pkts moves by exactly as much as sent_pkts, and the
# data is checked byte for byte (ibv_rc_pingpong -c, tests/bin/rdma_data's
# random WRITE/READ/SEND mix), plus ib_read_bw, and ib_write_bw over IPv6 GIDs.
# With loopback off the same traffic goes through the IP stack and lo:
# loopback_pkts stays put while sent_pkts and rcvd_pkts move.
# Spreading: ib_write_bw -q 4 from one thread has its busy send sides
# placed on both vCPUs (drv_send_cpu of `rdma -dd resource show qp`, read
# mid-run), and moving them loses no order: no sequence NAK.
cd "$(dirname "$0")" && source ./lib.sh

require_sroce t-11/modprobe-sroce && require_provider t-11/provider || exit 1
PARAM=/sys/module/sroce/parameters/loopback
if ! out=$(setup_two_netns 1500 2>&1 && sroce_bind sroce0 vethA 2>&1); then
	fail t-11/setup "$out"
	exit 1
fi
pass t-11/setup

snap() {
	echo "$(hw sroce0 loopback_pkts) $(hw sroce0 sent_pkts) $(hw sroce0 rcvd_pkts) $(hw sroce0 rx_drop_icrc)"
}

# rdma_data NAME: the random RC data test, client and server on sroce0.
rdma_data() {
	local port=$PERF_PORT gidx
	PERF_PORT=$((PERF_PORT + 1))
	gidx=$(gid_index sroce0 "$A_IP4" 2>&1) || { fail "$1" "$gidx"; return 1; }
	if pair_exec "$1" A A "$port" bin/rdma_data -s -d sroce0 -g "$gidx" -p "$port" -- \
		bin/rdma_data -c "$A_IP4" -d sroce0 -g "$gidx" -p "$port" -n 60; then
		pass "$1"
	else
		fail "$1" "$PAIR_WHY"
		pair_logs
	fi
}

# traffic MODE: the data checks on one device, both ends in netns A.
traffic() {
	local one=(A sroce0 "$A_IP4" A sroce0 "$A_IP4")
	rc_pingpong "t-11/$1/rc_pingpong-s4096" "${one[@]}" -c -s 4096 -n 100
	rc_pingpong "t-11/$1/rc_pingpong-s65537" "${one[@]}" -c -s 65537 -n 10
	PAIR_CONNECT=$A_IP4 run_pair "t-11/$1/ipv6/ib_write_bw-s4096" \
		A sroce0 "$A_IP6" A sroce0 "$A_IP6" ib_write_bw -s 4096 -n 100
	rdma_data "t-11/$1/rdma_data"
	run_pair "t-11/$1/ib_read_bw-s65536" "${one[@]}" ib_read_bw -s 65536 -n 100
}

# deltas BEFORE AFTER: "loop sent rcvd icrc" moved between two snapshots.
deltas() {
	local b a
	read -ra b <<<"$1"
	read -ra a <<<"$2"
	echo "$((a[0] - b[0])) $((a[1] - b[1])) $((a[2] - b[2])) $((a[3] - b[3]))"
}

check t-11/param-default-on grep -qx Y "$PARAM"
before=$(snap)
traffic on
read -r loop sent rcvd icrc <<<"$(deltas "$before" "$(snap)")"
info="loopback_pkts +$loop sent_pkts +$sent rcvd_pkts +$rcvd"
if ((loop > 0 && loop == sent && rcvd > 0 && icrc == 0)); then
	pass t-11/on/counters "$info"
else
	fail t-11/on/counters "$info rx_drop_icrc +$icrc (want loopback_pkts = sent_pkts > 0)"
fi

echo 0 >"$PARAM"
before=$(snap)
traffic off
read -r loop sent rcvd icrc <<<"$(deltas "$before" "$(snap)")"
info="loopback_pkts +$loop sent_pkts +$sent rcvd_pkts +$rcvd"
if ((loop == 0 && sent > 0 && rcvd > 0 && icrc == 0)); then
	pass t-11/off/counters "$info"
else
	fail t-11/off/counters "$info rx_drop_icrc +$icrc (want loopback_pkts +0)"
fi
echo 1 >"$PARAM"

# spread: the send CPUs of the QPs of one ib_write_bw -q 4 (loopback on)
spread() {
	local qps=/tmp/t-11-qps nak0 nak cpus sampler
	if (($(nproc) < 2)); then
		skip t-11/spread "one vCPU"
		return
	fi
	rm -f "$qps"
	nak0=$(hw sroce0 seq_nak_sent)
	(sleep 4; in_ns A "$RDMA" -dd resource show qp >"$qps" 2>&1) &
	sampler=$!
	run_pair t-11/spread/ib_write_bw-q4 A sroce0 "$A_IP4" A sroce0 "$A_IP4" \
		ib_write_bw -q 4 -s 65536 -D 6
	wait "$sampler"
	nak=$(($(hw sroce0 seq_nak_sent) - nak0))
	cpus=$(awk '$1 == "link" { for (i = 1; i < NF; i++)
		if ($i == "drv_send_cpu" && $(i + 1) != 4294967295) print $(i + 1) }' "$qps" | sort -u | xargs)
	if [[ $(wc -w <<<"$cpus") -ge 2 && $nak == 0 ]]; then
		pass t-11/spread "send CPUs: $cpus; seq_nak_sent +$nak"
	else
		fail t-11/spread "send CPUs: ${cpus:-none} (want 2 or more); seq_nak_sent +$nak (want 0); $(head -c 600 "$qps")"
	fi
}
spread

dmesg_clean t-11/dmesg
