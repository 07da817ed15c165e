#!/bin/bash
# t-36-mcast: UD multicast through rdma_cm (librdmacm's mckey: join, attach,
# send to the group, leave) between sroce devices, on one device (the IP
# stack loops the group's packets back), and with rdma_rxe both ways.  The
# receiver joins with two QPs and must get every message on each (mckey
# polls message_count completions per QP); the receiving device's rcvd_pkts
# must grow by the number sent, not by the copies.
cd "$(dirname "$0")" && source ./lib.sh

MCAST=239.1.2.3
MCKEY_N=20
MCKEY_TIMEOUT=${MCKEY_TIMEOUT:-60}

require_sroce t-36/modprobe-sroce && require_provider t-36/provider || exit 1
if ! out=$(setup_two_netns 1500 2>&1 && sroce_bind sroce0 vethA 2>&1 &&
	sroce_bind sroce1 vethB 2>&1 && setup_rxe_and_netns_b 1500 2>&1 &&
	sroce_bind sroce2 vethRB 2>&1); then
	fail t-36/setup "$out"
	exit 1
fi
pass t-36/setup

# counter DEV NAME: DEV's counter NAME (rdma statistic).
counter() {
	"$RDMA" statistic show link "$1/1" 2>/dev/null |
		awk -v c="$2" '{ for (i = 1; i < NF; i++) if ($i == c) print $(i + 1) }'
}

# mckey_pair NAME RECV_NS RECV_IP SEND_NS SEND_IP [RECV_DEV [SEND_DEV]]: a
# receiver with two QPs joins MCAST, then a sender sends MCKEY_N messages
# of 512 B.  With SEND_DEV, a sender that put fewer than MCKEY_N packets on
# the wire (its sent_pkts) makes the case a SKIP: rdma_rxe of Linux 6.12
# completes all five sends to a group and sends one packet.
mckey_pair() {
	local name=$1 rns=$2 rip=$3 sns=$4 sip=$5 rdev=${6:-} sdev=${7:-} rlog slog rpid src rrc i
	local before=0 after sbefore=0 sent
	rlog=$LOG_DIR/${name//\//_}.recv.log slog=$LOG_DIR/${name//\//_}.send.log
	[[ -z $rdev ]] || before=$(counter "$rdev" rcvd_pkts)
	[[ -z $sdev ]] || sbefore=$(counter "$sdev" sent_pkts)
	in_ns "$rns" timeout -k 5 "$MCKEY_TIMEOUT" mckey -m "$MCAST" -b "$rip" -c 2 \
		-C "$MCKEY_N" -S 512 >"$rlog" 2>&1 &
	rpid=$!
	for ((i = 0; i < 150; i++)); do
		grep -q 'receiving data transfers' "$rlog" && break
		kill -0 "$rpid" 2>/dev/null || break
		sleep 0.1
	done
	in_ns "$sns" timeout -k 5 "$MCKEY_TIMEOUT" mckey -m "$MCAST" -b "$sip" -s \
		-C "$MCKEY_N" -S 512 >"$slog" 2>&1
	src=$?
	wait_pid "$rpid" $((MCKEY_TIMEOUT + 10))
	rrc=$?
	if ((src == 0 && rrc == 0)) && grep -q 'data transfers complete' "$rlog"; then
		if [[ -n $rdev ]]; then
			after=$(counter "$rdev" rcvd_pkts)
			if ((after - before < MCKEY_N || after - before >= 2 * MCKEY_N)); then
				fail "$name" "$rdev rcvd_pkts grew by $((after - before)), want $MCKEY_N (one per message, not per QP)"
				return 1
			fi
		fi
		pass "$name" "2 QPs x $MCKEY_N messages received"
	elif [[ -n $sdev ]] && sent=$(($(counter "$sdev" sent_pkts) - sbefore)) &&
		((src == 0 && sent < MCKEY_N)); then
		skip "$name" "$sdev sent $sent packets for $MCKEY_N completed sends"
	else
		fail "$name" "sender rc=$src receiver rc=$rrc"
		sed 's/^/    recv| /' "$rlog" | tail -n 6
		sed 's/^/    send| /' "$slog" | tail -n 6
		[[ -z $rdev ]] || "$RDMA" statistic show link "$rdev/1" | tr ' ' '\n' |
			paste - - | awk '$2 != 0' | tr '\n' ' ' | sed 's/^/    /'
	fi
}

mckey_pair t-36/sroce-to-sroce B "$B_IP4" A "$A_IP4" sroce1
mckey_pair t-36/sroce-loopback A "$A_IP4" A "$A_IP4"
mckey_pair t-36/sroce-to-rxe - "$R_IP4" B "$RB_IP4"
mckey_pair t-36/rxe-to-sroce B "$RB_IP4" - "$R_IP4" sroce2 rxe0

dmesg_clean t-36/dmesg
