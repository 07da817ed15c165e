#!/bin/bash
# t-50-malformed: crafted RoCEv2 packets against sroce0 (tests/bin/inject,
# tests/src/inject.c). inject runs in init_net (where sroce0's hw_counters
# are; netns only see a compat device without them), creates its QPs on
# sroce0, and sends from a raw IPv4 socket it opens in netns B, so the
# packets cross vethB -> vethA like real traffic (from B's address or, for
# the addr/ classes, another one of its subnet); once over IPv4, once over
# IPv6 (ipv6/ names). Per class it asserts the
# exact change of rcvd_pkts, sent_pkts, cnp_rcvd, rate_reductions and every
# rx_drop_* counter, its QPs' states and completions (see inject.c). Here we also
# cross-check the totals with our own reading of the counters, then show
# that nothing was disturbed: RC and UD pingpong between sroce1 and sroce0
# pass and the kernel log has no splat.
cd "$(dirname "$0")" && source ./lib.sh

CNT=/sys/class/infiniband/sroce0/ports/1/hw_counters

# drop_sum: the sum of sroce0's rx_drop_* counters.
drop_sum() {
	local f s=0
	for f in "$CNT"/rx_drop_*; do s=$((s + $(cat "$f"))); done
	echo $s
}

require_sroce t-50/modprobe-sroce && require_provider t-50/provider || exit 1
if [[ ! -x bin/inject ]]; then
	fail t-50/build "tests/bin/inject missing: run make -C tests/src on the host"
	exit 1
fi
if ! out=$(setup_two_netns 1500 2>&1 && sroce_bind sroce0 vethA 2>&1 && sroce_bind sroce1 vethB 2>&1); then
	fail t-50/setup "$out"
	exit 1
fi
ga=$(gid_index sroce0 "$A_IP4" 2>&1) && ga6=$(gid_index sroce0 "$A_IP6" 2>&1) ||
	{ fail t-50/setup "$ga $ga6"; exit 1; }
[[ -r $CNT/rx_drop_malformed ]] || { fail t-50/setup "no $CNT/rx_drop_malformed"; exit 1; }
# Resolve the neighbours before the first raw packet.
in_ns B ping -c 1 -W 5 "$A_IP4" >/dev/null 2>&1
in_ns B ping -6 -c 1 -W 5 "$A_IP6" >/dev/null 2>&1
pass t-50/setup

# inject_checked NAME SRC DST GIDX COUNT: run inject, then check its TOTAL
# line against our own reading of the counters: every packet sent is
# counted exactly once, as a drop or as received.
inject_checked() {
	local name=$1 drops0 rcvd0 drops rcvd
	drops0=$(drop_sum) rcvd0=$(cat "$CNT/rcvd_pkts")
	run_cases t-50 200 bin/inject -d sroce0 -g "$4" -s "$2" -t "$3" -n /run/netns/B -c "$5"
	sleep 0.1   # hw_stats are cached for 10 ms
	drops=$(($(drop_sum) - drops0)) rcvd=$(($(cat "$CNT/rcvd_pkts") - rcvd0))
	if [[ ! $TOTAL_LINE =~ ^TOTAL\ dropped\ ([0-9]+)\ delivered\ ([0-9]+)\ sent\ ([0-9]+) ]]; then
		fail "t-50/$name" "inject printed no TOTAL line"
	elif ((drops == BASH_REMATCH[1] && rcvd == BASH_REMATCH[2] && drops + rcvd == BASH_REMATCH[3])); then
		pass "t-50/$name" "${BASH_REMATCH[3]} packets: $drops dropped, $rcvd received"
	else
		fail "t-50/$name" "sent ${BASH_REMATCH[3]}: rx_drop_* +$drops, rcvd_pkts +$rcvd (inject saw ${BASH_REMATCH[1]} and ${BASH_REMATCH[2]}); each packet must count once"
	fi
}

inject_checked counters-total "$B_IP4" "$A_IP4" "$ga" 200
inject_checked ipv6/counters-total "$B_IP6" "$A_IP6" "$ga6" 100

# Nothing was disturbed: new QPs on both devices still talk.
rc_pingpong t-50/rc_pingpong-after B sroce1 "$B_IP4" A sroce0 "$A_IP4" -c -s 4096 -n 50
port=$PERF_PORT PERF_PORT=$((PERF_PORT + 1))
gb=$(gid_index sroce1 "$B_IP4")
if pair_exec t-50/ud_pingpong-after B A "$port" \
	ibv_ud_pingpong -d sroce1 -g "$gb" -p "$port" -s 1024 -n 50 -- \
	ibv_ud_pingpong -d sroce0 -g "$ga" -p "$port" -s 1024 -n 50 "$B_IP4"; then
	pass t-50/ud_pingpong-after "$(grep -m1 'Mbit/sec' "$PAIR_CLOG")"
else
	fail t-50/ud_pingpong-after "$PAIR_WHY"
	pair_logs
fi
dmesg_clean t-50/dmesg-clean
