#!/bin/bash
# t-37-ucx: UCX over sroce: the rc_verbs transport (RC QPs whose receives
# come from an SRQ, posted by the provider without entering the kernel):
# ucx_perftest UCT put_bw and get (zero copy) and am_lat; ud_verbs am_lat;
# UCP tag_lat and tag_bw over rc (rc_verbs, ud_verbs for the wireup) and
# over ud_verbs.  ucx_perftest runs a UCT test on the device the client
# names on both sides, so the two processes share sroce0 (netns A, to its
# own address); UCP tests run between sroce0 and sroce1 (netns B).  Prints the
# figures (Final: iterations, then latency, bandwidth MB/s and message
# rate, each typical/average/overall).
cd "$(dirname "$0")" && source ./lib.sh

require_sroce t-37/modprobe-sroce && require_provider t-37/provider || exit 1
if ! command -v ucx_perftest >/dev/null; then
	skip t-37/ucx "ucx_perftest not in the guest (ucx-utils)"
	exit 0
fi
if ! out=$(setup_two_netns 1500 2>&1 && sroce_bind sroce0 vethA 2>&1); then
	fail t-37/setup "$out"
	exit 1
fi
ga=$(gid_index sroce0 "$A_IP4" 2>&1) || { fail t-37/setup "$ga"; exit 1; }
pass t-37/setup

# ucx_run NAME SRV_NS SRV_DEV SRV_GID CLI_NS CLI_DEV CLI_GID SRV_IP ARGS...
ucx_run() {
	local name=$1 sns=$2 sdev=$3 sgid=$4 cns=$5 cdev=$6 cgid=$7 sip=$8
	shift 8
	local port=$PERF_PORT
	PERF_PORT=$((PERF_PORT + 1))
	local common=(UCX_TLS=${UCX_TLS:-rc_verbs} UCX_WARN_UNUSED_ENV_VARS=n)
	if pair_exec "$name" "$sns" "$cns" "$port" \
		env "${common[@]}" UCX_NET_DEVICES="$sdev:1" UCX_IB_GID_INDEX="$sgid" ucx_perftest -p "$port" -- \
		env "${common[@]}" UCX_NET_DEVICES="$cdev:1" UCX_IB_GID_INDEX="$cgid" ucx_perftest "$sip" -p "$port" "$@" &&
		grep -q '^Final:' "$PAIR_CLOG"; then
		pass "$name" "$(grep -m1 '^Final:' "$PAIR_CLOG" | tr -s ' ')"
	else
		fail "$name" "${PAIR_WHY:-no Final: line}"
		[[ $PAIR_WHY == "not run"* ]] || pair_logs
	fi
	[[ -n $PERF_SHOW ]] && cat "$PAIR_CLOG"
}

aa=(A sroce0 "$ga" A sroce0 "$ga" "$A_IP4")
ucx_run t-37/uct/put_bw-s65536 "${aa[@]}" -x rc_verbs -d sroce0:1 -t put_bw -D zcopy -s 65536 -n 500
ucx_run t-37/uct/get_bw-s65536 "${aa[@]}" -x rc_verbs -d sroce0:1 -t get -D zcopy -s 65536 -n 500
ucx_run t-37/uct/am_lat-s8 "${aa[@]}" -x rc_verbs -d sroce0:1 -t am_lat -s 8 -n 200
# ud_verbs: UCX 1.13 drops a UD receive unless the GRH area's destination
# is one of the device's GIDs, and finds where it is (IPv4 or IPv6) from
# ibv_wc.sl, as mlx5 reports it (sroce-abi.h SROCE_WC_SL_*).
UCX_TLS=ud_verbs ucx_run t-37/uct/ud-am_lat-s8 "${aa[@]}" -x ud_verbs -d sroce0:1 -t am_lat -s 8 -n 200

# UCP (the protocol layer MPI uses) between sroce0 (netns A) and sroce1
# (netns B): each side names its own device.  UCX_TLS=rc is rc_verbs with
# ud_verbs for the wireup; ud_verbs alone carries everything.
if out=$(sroce_bind sroce1 vethB 2>&1) && gb=$(gid_index sroce1 "$B_IP4" 2>&1); then
	ab=(B sroce1 "$gb" A sroce0 "$ga" "$B_IP4")
	UCX_TLS=rc ucx_run t-37/ucp/rc-tag_lat-s8 "${ab[@]}" -t tag_lat -s 8 -n 200
	UCX_TLS=rc ucx_run t-37/ucp/rc-tag_bw-s65536 "${ab[@]}" -t tag_bw -s 65536 -n 200
	UCX_TLS=ud_verbs ucx_run t-37/ucp/ud-tag_lat-s8 "${ab[@]}" -t tag_lat -s 8 -n 200
else
	fail t-37/ucp/setup "${out:-$gb}"
fi
dmesg_clean t-37/dmesg
