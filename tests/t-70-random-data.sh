#!/bin/bash
# t-70-random-data: tests/bin/rdma_data (tests/src/rdma_data.c) between two
# devices: DATA_OPS random operations (RDMA WRITE, RDMA READ, SEND/RECV with
# and without immediate, RDMA WRITE with immediate) of 0 B..1 MiB, including
# 0, 1, MTU-1, MTU, MTU+1 and 1 MiB for every kind, with 1..max_sge SGEs at
# random places, random remote offsets and byte patterns, one at a time or
# in bursts of 2..8 posted together. After each one (burst) the
# destination buffer is compared byte for byte with its expected image (data
# where it belongs, untouched background/guard bytes everywhere else) and
# every CQE is checked (status, wr_id, opcode, byte_len, imm). One seed per
# run, printed; replay with DATA_SEED=<seed>.
# Configurations, at MTU 1500 and 9000: sroce<->sroce (server sroce1 in netns
# B, client sroce0 in netns A); sroce client -> rdma_rxe server (rxe0 in
# init_net, sroce1 on vethRB in netns B); rdma_rxe client -> sroce server.
# Knobs: DATA_OPS (default 400), DATA_SEED, DATA_TIMEOUT (seconds per
# configuration, default 240), DATA_MTUS (default "1500 9000").
cd "$(dirname "$0")" && source ./lib.sh

BIN=$PWD/bin/rdma_data
OPS=${DATA_OPS:-400}
SEED=${DATA_SEED:-$(printf '%#x' "$(od -An -N6 -tu8 /dev/urandom | tr -d ' ')")}
TMO=${DATA_TIMEOUT:-240}
port=18700

require_sroce t-70/modprobe-sroce && require_provider t-70/provider || exit 1
if [[ ! -x $BIN ]]; then
	fail t-70/build "tests/bin/rdma_data not built: run make -C tests/src on the host"
	exit 1
fi
echo "t-70: seed $SEED, $OPS operations per configuration (replay: DATA_SEED=$SEED)"

# data_pair NAME SRV_NS SRV_DEV SRV_IP CLI_NS CLI_DEV CLI_IP: one configuration.
data_pair() {
	local name=$1 sns=$2 sdev=$3 sip=$4 cns=$5 cdev=$6 cip=$7 sgid cgid line
	port=$((port + 1))
	sgid=$(gid_index "$sdev" "$sip" 2>&1) || { fail "$name" "server: $sgid"; return 1; }
	cgid=$(gid_index "$cdev" "$cip" 2>&1) || { fail "$name" "client: $cgid"; return 1; }
	if PAIR_TIMEOUT=$TMO pair_exec "$name" "$sns" "$cns" "$port" \
		"$BIN" -s -d "$sdev" -g "$sgid" -p "$port" -- \
		"$BIN" -c "$sip" -d "$cdev" -g "$cgid" -p "$port" -n "$OPS" -S "$SEED"; then
		line=$(grep -m1 '^PASS' "$PAIR_CLOG")
		pass "$name" "${line#PASS rdma_data: }"
	else
		line=$(grep -m1 '^FAIL' "$PAIR_CLOG")
		fail "$name" "${line:+${line#FAIL rdma_data: }; }$PAIR_WHY"
		pair_logs
	fi
}

for mtu in ${DATA_MTUS:-1500 9000}; do
	reset_state
	if out=$(setup_two_netns "$mtu" 2>&1 && sroce_bind sroce0 vethA 2>&1 &&
		sroce_bind sroce1 vethB 2>&1); then
		data_pair "t-70/mtu$mtu/sroce-sroce" B sroce1 "$B_IP4" A sroce0 "$A_IP4"
	else
		fail "t-70/mtu$mtu/sroce-sroce" "setup: $out"
	fi
	reset_state
	if out=$(setup_rxe_and_netns_b "$mtu" 2>&1 && sroce_bind sroce1 vethRB 2>&1); then
		data_pair "t-70/mtu$mtu/sroce-client-rxe-server" - rxe0 "$R_IP4" B sroce1 "$RB_IP4"
		data_pair "t-70/mtu$mtu/rxe-client-sroce-server" B sroce1 "$RB_IP4" - rxe0 "$R_IP4"
	else
		fail "t-70/mtu$mtu/sroce-client-rxe-server" "setup: $out"
		fail "t-70/mtu$mtu/rxe-client-sroce-server" "setup: $out"
	fi
done
