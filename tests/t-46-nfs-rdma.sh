#!/bin/bash
# t-46-nfs-rdma: NFS over RDMA, the kernel's server (svcrdma) and client
# (xprtrdma) on one RDMA device in init_net, looped back to its own address:
# nfsd listens on rdma port 20049 (RFC 8267), the client mounts a tmpfs
# export with -o rdma,port=20049 as NFSv3 and as NFSv4.2, writes files of
# random sizes, checks the bytes the server stored, then reads them back
# through a fresh mount and compares them again.  Each round ends with an
# unmount; ROUNDS rounds per version.  Runs on rdma_rxe first (the
# reference: same kernel, same tools) and then on sroce; the client's
# registration mode is FRWR, so the device must offer the memory management
# extensions (IB_DEVICE_MEM_MGT_EXTENSIONS).  Last, the sroce device is
# taken away while a mount is up (rdma link delete, netdev delete, rmmod):
# the transport must let go, the unmount must finish, nothing may hang.
cd "$(dirname "$0")" && source ./lib.sh && source ./ulp-lib.sh

ROUNDS=${NFS_ROUNDS:-3}
ADDR=10.46.0.1

# nfs_round NAME VERS: one round: files written, checked on the server, read
# back through a fresh mount.
nfs_round() {
	local why
	nfs_make_files
	rm -rf "${NFS_EXP:?}"/*
	if why=$(nfs_client_round "$ADDR" "$2") && why=$(nfs_server_check); then
		pass "$1" "$NFS_FILES files, $(du -sk "$NFS_SRC" | cut -f1) KiB, bytes compared twice"
	else
		fail "$1" "$why"
	fi
}

# nfs_suite PREFIX: the rounds for both versions on the device bound now.
nfs_suite() {
	local p=$1 v r
	if ! out=$(nfs_server_up "$ADDR" 2>&1); then
		fail "$p/server" "$out"
		nfs_server_down
		return 1
	fi
	pass "$p/server"
	for v in 3 4.2; do
		for ((r = 1; r <= ROUNDS; r++)); do
			nfs_round "$p/v$v/round$r" "$v"
		done
	done
	nfs_server_down
}

# bind_dev KIND: nfsdum0 with $ADDR, and an rdma device of KIND on it.
bind_dev() {
	"$IP" link del nfsdum0 2>/dev/null
	"$IP" link add nfsdum0 type dummy && "$IP" addr add "$ADDR/24" dev nfsdum0 &&
	"$IP" link set nfsdum0 up || return 1
	case $1 in
	rxe) "$MODPROBE" rdma_rxe && "$RDMA" link add rxe0 type rxe netdev nfsdum0 ;;
	sroce) sroce_bind sroce0 nfsdum0 ;;
	esac
}

if bind_dev rxe; then
	nfs_suite t-46/rxe
else
	fail t-46/rxe/bind "rdma link add rxe0 failed"
fi
reset_state
"$IP" link del nfsdum0 2>/dev/null
"$MODPROBE" -r rdma_rxe 2>/dev/null

require_sroce t-46/modprobe-sroce || exit 1
if ! bind_dev sroce; then
	fail t-46/sroce/bind "rdma link add sroce0 failed"
	exit 1
fi
nfs_suite t-46/sroce

# Teardown with a mount up: the device taken away under the client three
# ways; each time the command returns, the mount can be forced off, nothing
# hangs.
# gone NAME CMD...: mount over sroce0, write, run CMD, then umount -f.
gone() {
	local t=t-46/sroce/$1 start
	shift
	[[ -d /sys/module/sroce ]] || "$MODPROBE" sroce
	"$IP" link show nfsdum0 >/dev/null 2>&1 || bind_dev sroce
	[[ -e /sys/class/infiniband/sroce0 ]] || sroce_bind sroce0 nfsdum0
	if ! { nfs_server_up "$ADDR" && nfs_mount "$ADDR" 4.2; } >/dev/null 2>&1; then
		fail "$t" "could not mount for the teardown case"
		nfs_server_down
		return
	fi
	head -c 1000000 /dev/urandom >"$NFS_MNT/live"
	start=$SECONDS
	if bounded 90 "$@" >/dev/null; then
		pass "$t" "\`$*\` in $((SECONDS - start)) s"
	else
		fail "$t" "\`$*\` hung or failed"
	fi
	check "$t/umount" bounded 90 umount -f "$NFS_MNT"
	nfs_server_down
}
gone link-delete-mounted "$RDMA" link delete sroce0
gone netdev-delete-mounted "$IP" link delete nfsdum0
gone rmmod-mounted "$MODPROBE" -r sroce
"$IP" link del nfsdum0 2>/dev/null
exit 0
