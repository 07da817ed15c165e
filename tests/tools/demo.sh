#!/bin/bash
# demo.sh (guest side of scripts/demo): ib_write_bw and ib_send_lat between
# two sroce devices (sroce0 in netns A <-> sroce1 in netns B over a veth
# pair), then between rdma_rxe (rxe0, init_net) and sroce (sroce1, netns B),
# printing perftest's tables. Figures are TCG-emulated, far below hardware.
# run from tests/, where lib.sh and the test programs (bin/) are
# shellcheck source-path=SCRIPTDIR/..
cd "$(dirname "$0")/.." && source ./lib.sh
export PERF_SHOW=1
rc=0
# perftest calibrates its clock against gettimeofday(), which often fails
# under TCG (every figure then prints as inf): give it the TSC clock
# (tests/src/tscclock.c), as scripts/bench does.
if [[ -f $PWD/bin/tscclock.so ]]; then
	export LD_PRELOAD=$PWD/bin/tscclock.so
	echo "(perftest times from the TSC clock, tests/src/tscclock.c)"
fi

# demo_pair: run_pair, run again (3 tries) while perftest printed its
# figures as inf: its clock calibration failed on a busy host.
demo_pair() {
	local i
	for i in 1 2 3; do
		run_pair "$@" || return 1
		grep -qw inf "$PAIR_CLOG" || return 0
		echo "(perftest's clock calibration failed on a busy host: again)"
	done
}

require_sroce demo/modprobe-sroce && require_provider demo/provider || exit 1
echo "### sroce0 (netns A, $A_IP4) -> sroce1 (netns B, $B_IP4), veth MTU 1500"
if setup_two_netns 1500 && sroce_bind sroce0 vethA && sroce_bind sroce1 vethB; then
	"$RDMA" link show
	demo_pair demo/sroce-sroce/ib_write_bw B sroce1 "$B_IP4" A sroce0 "$A_IP4" ib_write_bw -s 65536 -n 1000 || rc=1
	demo_pair demo/sroce-sroce/ib_send_lat B sroce1 "$B_IP4" A sroce0 "$A_IP4" ib_send_lat -s 2 -n 1000 || rc=1
else
	fail demo/sroce-sroce/setup "could not bind sroce0/sroce1"; rc=1
fi

reset_state
echo "### sroce1 (netns B, $RB_IP4) -> rxe0 (init_net, $R_IP4), veth MTU 1500"
if setup_rxe_and_netns_b 1500 && sroce_bind sroce1 vethRB; then
	"$RDMA" link show
	demo_pair demo/sroce-rxe/ib_write_bw - rxe0 "$R_IP4" B sroce1 "$RB_IP4" ib_write_bw -s 65536 -n 1000 || rc=1
	demo_pair demo/sroce-rxe/ib_send_lat - rxe0 "$R_IP4" B sroce1 "$RB_IP4" ib_send_lat -s 2 -n 1000 || rc=1
else
	fail demo/sroce-rxe/setup "could not bind rxe0/sroce1"; rc=1
fi
exit $rc
