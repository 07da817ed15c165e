#!/bin/bash
# t-65-hostile-user: tests/bin/hostile (tests/src/hostile.c) plays a hostile
# local user against sroce0 (netns A), with sroce1 (netns B) as the peer of
# its RC pairs: destroy against `rdma -dd resource show` dumps, MR dereg
# under in-flight transfers, objects up to and past every advertised limit,
# garbage written into the mapped rings, ring memory and a send queue's
# kernel state charged to the memory cgroup.  One t-65/<case> result per
# line the program prints; then no kernel splat.
#
# The limits sroce0 and sroce1 advertise are lowered with sroce's max_*
# module parameters before `rdma link add` (devices keep the values they
# were added with; the defaults are restored right after), so that the
# limits test creates tens of objects, not 65536 QPs.  The program runs
# in a memory cgroup of its own (cgroup2 is mounted when it is not).
# HOSTILE_TESTS (e.g. `scripts/vm env HOSTILE_TESTS=limits tests/run
# t-65-hostile-user.sh`) picks some of the program's tests.
cd "$(dirname "$0")" && source ./lib.sh

LIMITS="max_pd=12 max_cq=12 max_qp=12 max_mr=24 max_ah=12 max_srq=12"
PARAMS=/sys/module/sroce/parameters
CG=/sys/fs/cgroup
CGT=$CG/sroce-t65

# set_limits "k=v ...": write sroce module parameters; prints the old ones.
set_limits() {
	local kv old=""
	for kv in $1; do
		old+="${kv%%=*}=$(cat "$PARAMS/${kv%%=*}") "
		echo "${kv#*=}" >"$PARAMS/${kv%%=*}" || return 1
	done
	echo "$old"
}

# memcg_setup: a child cgroup with the memory controller; 1 if impossible.
memcg_setup() {
	[[ -f $CG/cgroup.controllers ]] || mount -t cgroup2 none "$CG" 2>/dev/null || return 1
	grep -qw memory "$CG/cgroup.controllers" || return 1
	echo +memory >"$CG/cgroup.subtree_control" 2>/dev/null
	mkdir -p "$CGT" && [[ -f $CGT/memory.current ]]
}

require_sroce t-65/modprobe-sroce && require_provider t-65/provider || exit 1
if [[ ! -x bin/hostile ]]; then
	fail t-65/build "tests/bin/hostile missing: run make -C tests/src on the host"
	exit 1
fi
old=$(set_limits "$LIMITS") || { fail t-65/setup "cannot set $LIMITS in $PARAMS"; exit 1; }
out=$(setup_two_netns 1500 2>&1 && sroce_bind sroce0 vethA 2>&1 && sroce_bind sroce1 vethB 2>&1)
rc=$?
set_limits "$old" >/dev/null
((rc == 0)) || { fail t-65/setup "$out"; exit 1; }
ga=$(gid_index sroce0 "$A_IP4" 2>&1) && gb=$(gid_index sroce1 "$B_IP4" 2>&1) ||
	{ fail t-65/setup "$ga $gb"; exit 1; }
pass t-65/setup "limits $LIMITS"

incg=()
if memcg_setup; then
	# shellcheck disable=SC2016
	incg=(bash -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CGT")
fi
run_cases t-65 540 "${incg[@]}" bin/hostile -d sroce0 -g "$ga" -D sroce1 -G "$gb" -s 20 \
	-t "${HOSTILE_TESTS:-dump,dereg,limits,scribble,memcg,memcg_sq}"
[[ -d $CGT ]] && rmdir "$CGT" 2>/dev/null

# The devices still carry traffic between two other processes.
rc_pingpong t-65/rc_pingpong-after B sroce1 "$B_IP4" A sroce0 "$A_IP4" -c -s 4096 -n 50
dmesg_clean t-65/dmesg-clean
