#!/bin/bash
# t-60-protection: tests/bin/rdma_prot (tests/src/rdma_prot.c) between sroce1
# (server/responder, netns B) and sroce0 (client/requester, netns A) at MTU
# 1500: bad/stale rkeys, accesses outside an MR (one byte past the end,
# before the start, multi-packet overrun, VA+length wrapping past 2^64),
# missing REMOTE_READ/REMOTE_WRITE, deregistered MRs, MRs of another PD, bad
# or foreign lkeys, a receive buffer too small for a SEND. Each case checks
# the CQE status on both sides, the QP states (ERR where IBTA says so), the
# flushing of the WQEs behind the fault, and that no byte outside the
# allowed ranges changed (guard MRs next to the target MR); SEND with
# Invalidate naming MRs a peer may not invalidate (refused, the MR keeps
# working). One PASS/FAIL line per case, t-60/<case>. Knob: PROT_TIMEOUT
# (seconds, default 300).
# Then tests/bin/rdma_dereg (tests/src/rdma_dereg.c): sroce1 deregisters an
# MR while sroce0's RDMA WRITE into it is half done (a tc filter on vethB
# drops the WRITE's MIDDLE and LAST packets): ibv_dereg_mr, destroying the
# QP, closing the device and `rdma link delete sroce1` must each return
# within a bound, and the rest of the WRITE must be refused; then the same
# with ibv_rereg_mr (new translation) in place of ibv_dereg_mr.
cd "$(dirname "$0")" && source ./lib.sh

BIN=$PWD/bin/rdma_prot
DEREG=$PWD/bin/rdma_dereg
port=18690

require_sroce t-60/modprobe-sroce && require_provider t-60/provider || exit 1
per_packet_tc	# its tc filter drops WRITE packets one by one
if [[ ! -x $BIN ]]; then
	fail t-60/build "tests/bin/rdma_prot not built: run make -C tests/src on the host"
	exit 1
fi
if ! out=$(setup_two_netns 1500 2>&1 && sroce_bind sroce0 vethA 2>&1 && sroce_bind sroce1 vethB 2>&1); then
	fail t-60/setup "$out"
	exit 1
fi
sgid=$(gid_index sroce1 "$B_IP4" 2>&1) || { fail t-60/setup "server: $sgid"; exit 1; }
cgid=$(gid_index sroce0 "$A_IP4" 2>&1) || { fail t-60/setup "client: $cgid"; exit 1; }

PAIR_TIMEOUT=${PROT_TIMEOUT:-300} pair_exec t-60 B A "$port" \
	"$BIN" -s -d sroce1 -g "$sgid" -p "$port" -- \
	"$BIN" -c "$B_IP4" -d sroce0 -g "$cgid" -p "$port"
rc=$?
# One line per case from the client's log; a case without one did not run.
for c in $("$BIN" -L); do
	line=$(grep -m1 -E "^(PASS|FAIL) $c(:|\$)" "$PAIR_CLOG")
	case $line in
	PASS*) pass "t-60/$c" ;;
	FAIL*) fail "t-60/$c" "${line#FAIL "$c": }" ;;
	*) fail "t-60/$c" "not run ($PAIR_WHY)" ;;
	esac
done
if ((rc)) && ! grep -q '^FAIL' "$PAIR_CLOG"; then
	fail t-60/run "$PAIR_WHY"
	pair_logs
fi

# rdma_dereg: the BTH opcode is the first byte after IPv4 (20) + UDP (8)
# headers; RC RDMA WRITE MIDDLE is 0x07, LAST 0x08 (IBTA 9.2.3).
drop_write_rest() {
	in_ns B tc qdisc add dev vethB ingress &&
	for op in 0x07 0x08; do
		in_ns B tc filter add dev vethB parent ffff: protocol ip prio 1 u32 \
			match ip protocol 17 0xff match ip dport 4791 0xffff \
			match u8 "$op" 0xff at 28 action drop || return 1
	done
}
if ! out=$(drop_write_rest 2>&1); then
	fail t-60/dereg-setup "tc filter on vethB: $out"
	exit 1
fi
# The same with ibv_rereg_mr onto another buffer (-R) instead of dereg.
for m in dereg rereg; do
	if [[ $m == rereg ]] && ! out=$(drop_write_rest 2>&1); then
		fail t-60/rereg-setup "tc filter on vethB: $out"
		break
	fi
	opt=(); [[ $m == rereg ]] && opt=(-R)
	out=$(bounded 60 "$DEREG" -d sroce1 -g "$sgid" -D sroce0 -G "$cgid" \
		-u "$IP netns exec B tc qdisc del dev vethB ingress" "${opt[@]}")
	for c in ${m}_during_write ${m}_write_refused ${m}_teardown; do
		line=$(grep -m1 -E "^(PASS|FAIL) $c( |:|\$)" <<<"$out")
		case $line in
		PASS*) pass "t-60/$c" "$(sed -n 's/^[^(]*(\(.*\))$/\1/p' <<<"$line")" ;;
		FAIL*) fail "t-60/$c" "${line#FAIL "$c": }" ;;
		*) fail "t-60/$c" "not run: $(tail -n 3 <<<"$out" | tr '\n' ' ')" ;;
		esac
	done
done
t0=$EPOCHREALTIME
if out=$(bounded 20 "$RDMA" link delete sroce1) && wait_gone sroce1 5; then
	ms=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d", (b - a) * 1000 }')
	pass t-60/dereg_link_delete "rdma link delete sroce1: $ms ms"
else
	fail t-60/dereg_link_delete "rdma link delete sroce1 did not return: $out"
fi
