#!/bin/bash
# t-35-pyverbs: rdma-core's own test suite (python3-pyverbs' run_tests.py)
# against sroce0 (netns A) and, as the reference, against rdma_rxe's rxe0
# (init_net), in the same VM run.  Prints each suite's figures (ok, failed,
# errors, skipped), every test that failed or erred, and every skip with
# its reason.  sroce must end with 0 failed and 0 errors: a feature sroce
# lacks must make the suite skip, not fail; its XRC tests (XRC send QPs
# with the ibv_wr_* API, extended CQs, atomics, relaxed ordering) must run
# and pass.  rxe's figures are reported only (rdma_rxe of Linux 6.1 has a
# known error, test_qp_ex_rc_atomic_write, and no XRC).
#
# sroce0 sits on the guest's virtio NIC, eth0, moved into netns A: the suite
# finds a device's IP address (which its rdma_cm tests need) through
# /sys/class/infiniband/DEV/device/net/, and only a netdev with a parent
# device (PCI, virtio) has one there; a veth has none.  rxe0 stays on a veth
# (rdma_rxe gives its device no parent either way), so its rdma_cm tests
# skip.
cd "$(dirname "$0")" && source ./lib.sh

SUITE=/usr/share/doc/rdma-core/tests
SUITE_TIMEOUT=${SUITE_TIMEOUT:-900}

require_sroce t-35/modprobe-sroce && require_provider t-35/provider || exit 1
if [[ ! -f $SUITE/run_tests.py ]] || ! command -v python3 >/dev/null; then
	fail t-35/suite-present "no python3 or no $SUITE/run_tests.py in the guest (scripts/vm)"
	exit 1
fi
if ! out=$("$IP" netns add A 2>&1 && "$IP" link set eth0 netns A 2>&1 &&
	ns_link A eth0 "$A_IP4" "$A_IP6" 1500 2>&1 && sroce_bind sroce0 eth0 2>&1 &&
	setup_rxe_and_netns_b 1500 2>&1); then
	fail t-35/setup "$out"
	exit 1
fi
gid_index sroce0 "$A_IP4" >/dev/null && gid_index rxe0 "$R_IP4" >/dev/null
pass t-35/setup

# The suite's huge page tests need some 2 MiB pages reserved.
HUGE=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
huge_before=$(cat "$HUGE" 2>/dev/null || echo 0)
echo 16 >"$HUGE" 2>/dev/null

# suite NS DEV: run the suite on DEV from NS; sets RAN OK FAILED ERRORS
# SKIPPED and LOG.
suite() {
	local ns=$1 dev=$2 sum
	LOG=$LOG_DIR/t-35-$dev.log
	(cd "$SUITE" && in_ns "$ns" timeout -k 5 "$SUITE_TIMEOUT" \
		python3 run_tests.py --dev "$dev" -v) >"$LOG" 2>&1
	RAN=$(sed -n 's/^Ran \([0-9]*\) tests\{0,1\} in .*/\1/p' "$LOG" | tail -n1)
	sum=$(grep -E '^(OK|FAILED)( \(|$)' "$LOG" | tail -n1)
	FAILED=$(sed -n 's/.*failures=\([0-9]*\).*/\1/p' <<<"$sum")
	ERRORS=$(sed -n 's/.*errors=\([0-9]*\).*/\1/p' <<<"$sum")
	SKIPPED=$(sed -n 's/.*skipped=\([0-9]*\).*/\1/p' <<<"$sum")
	local xf xs
	xf=$(sed -n 's/.*expected failures=\([0-9]*\).*/\1/p' <<<"$sum")
	xs=$(sed -n 's/.*unexpected successes=\([0-9]*\).*/\1/p' <<<"$sum")
	: "${RAN:=0}" "${FAILED:=0}" "${ERRORS:=0}" "${SKIPPED:=0}" "${xf:=0}" "${xs:=0}"
	OK=$((RAN - FAILED - ERRORS - SKIPPED - xf - xs))
	[[ -n $sum ]]
}

# report DEV: the figures, the failed and erred tests, every skip's reason.
report() {
	echo "== $1: $RAN tests: $OK ok, $FAILED failed, $ERRORS errors, $SKIPPED skipped"
	grep -E '^(FAIL|ERROR): ' "$LOG" | sed "s/^/   $1 /"
	echo "== $1: skips (test: reason)"
	# "name (id) ... skipped 'why'", or "name (id)" then a docstring line
	# "... skipped 'why'"; a skipped class reads "setUpClass (id)".
	awk -v dev="$1" '
		match($0, /^[A-Za-z_][A-Za-z0-9_]* \([^)]*\)/) {
			id = substr($0, RSTART, RLENGTH)
			sub(/^[^(]*\(/, "", id); sub(/\)$/, "", id); sub(/^tests\./, "", id)
		}
		/ \.\.\. skipped / {
			why = $0; sub(/.* \.\.\. skipped /, "", why)
			print "   " dev " skip " id ": " why
		}' "$LOG"
}

if suite A sroce0; then
	report sroce0
	fig="$OK ok, $FAILED failed, $ERRORS errors, $SKIPPED skipped"
	if ((RAN > 0 && FAILED == 0 && ERRORS == 0)); then
		pass t-35/sroce-suite "$fig"
	else
		fail t-35/sroce-suite "$fig"
		grep -E -A 12 '^(FAIL|ERROR): ' "$LOG" | head -n 120
	fi
	# the XRC tests ran on sroce0 (not skipped) and passed: "name (id)"
	# then " ... ok" on that line or, after a docstring, on a later one
	bad=''
	for x in test_qp_ex_xrc_send test_qp_ex_xrc_send_imm test_xrc_traffic_cq_ex \
		test_xrc_atomic_fetch_and_add test_xrc_atomic_cmp_and_swap test_ro_xrc_traffic; do
		r=$(awk -v n="$x" 'index($0, n " (") == 1 { f = 1 }
			f && / \.\.\. / { sub(/.* \.\.\. /, ""); print; exit }' "$LOG")
		[[ $r == ok ]] || bad+="$x: ${r:-not run}; "
	done
	if [[ -z $bad ]]; then
		pass t-35/sroce-xrc "6 XRC tests ok"
	else
		fail t-35/sroce-xrc "$bad"
	fi
	# the rdma_cm tests ran: the suite found sroce0's interface
	n=$(grep -c "doesn't have net interface" "$LOG")
	if ((n == 0)) && grep -q '^test_rdmacm_sync_traffic .* ok$' "$LOG"; then
		pass t-35/sroce-netdev "rdma_cm tests ran on sroce0 (eth0)"
	else
		fail t-35/sroce-netdev "$n tests skipped for want of sroce0's net interface"
	fi
else
	fail t-35/sroce-suite "the suite did not finish: $(tail -n 15 "$LOG")"
fi

if suite - rxe0; then
	report rxe0
	pass t-35/rxe-suite "reference: $OK ok, $FAILED failed, $ERRORS errors, $SKIPPED skipped"
else
	fail t-35/rxe-suite "the suite did not finish: $(tail -n 15 "$LOG")"
fi
echo "$huge_before" >"$HUGE" 2>/dev/null
dmesg_clean t-35/dmesg
