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
# deleted while a mount is up: the transport must let go, the unmount must
# finish, and nothing may hang.
cd "$(dirname "$0")" && source ./lib.sh

ROUNDS=${NFS_ROUNDS:-3}
FILES=${NFS_FILES:-6}
ADDR=10.46.0.1
SRC=/tmp/nfs-src MNT=/mnt/nfs EXP=/export

# step CMD...: run CMD; when it fails, say which.
step() { "$@" || { echo "\`$*\` failed ($?)"; return 1; }; }

# mounted DIR: is something mounted on DIR?
mounted() { awk -v d="$1" '$2 == d { f = 1 } END { exit !f }' /proc/mounts; }

# nfs_server_up: nfsd with an rdma listener, mountd and rpcbind, export $EXP.
nfs_server_up() {
	step "$MODPROBE" -a nfsd nfsv3 nfsv4 rpcrdma &&
	mkdir -p /var/lib/nfs/v4recovery /var/lib/nfs/sm "$EXP" "$MNT" /run/rpcbind &&
	{ mounted "$EXP" || step mount -t tmpfs -o size=256m tmpfs "$EXP"; } &&
	{ mounted /proc/fs/nfsd || step mount -t nfsd nfsd /proc/fs/nfsd; } &&
	echo "$EXP $ADDR/32(rw,no_root_squash,insecure,no_subtree_check,fsid=0)" >/etc/exports &&
	: >/var/lib/nfs/etab &&
	{ pidof rpcbind >/dev/null || step rpcbind -w; } &&
	step exportfs -ra &&
	{ pidof rpc.mountd >/dev/null || step rpc.mountd -p 20048; } &&
	# a short NFSv4 grace period: opens wait for it after nfsd starts
	echo 10 >/proc/fs/nfsd/nfsv4leasetime &&
	echo 10 >/proc/fs/nfsd/nfsv4gracetime &&
	step rpc.nfsd 4 &&
	step sh -c 'echo "rdma 20049" >/proc/fs/nfsd/portlist' &&
	step grep -q '^rdma 20049' /proc/fs/nfsd/portlist
}

nfs_server_down() {
	rpc.nfsd 0 2>/dev/null
	killall rpc.mountd rpcbind 2>/dev/null
	exportfs -ua 2>/dev/null
	mounted /proc/fs/nfsd && umount /proc/fs/nfsd
	mounted "$EXP" && umount "$EXP"
	return 0
}

# nfs_mount VERS: mount the export over RDMA (NFSv3 names the path, NFSv4
# the pseudo root).
nfs_mount() {
	local path=$EXP opts=rdma,port=20049,vers=$1,timeo=100,retrans=2
	[[ $1 == 3 ]] && opts+=,nolock,mountport=20048,mountproto=tcp
	[[ $1 == 4* ]] && path=/
	bounded 120 mount.nfs "$ADDR:$path" "$MNT" -o "$opts"
}

# nfs_round NAME VERS: one round of random files written, checked on the
# server, read back through a fresh mount and compared.
nfs_round() {
	local t=$1 v=$2 i sz bad=0 why=''
	rm -rf "$SRC" "${EXP:?}"/*
	mkdir -p "$SRC"
	for ((i = 0; i < FILES; i++)); do
		sz=$(((RANDOM << 8 | RANDOM & 255) % (3 << 20) + RANDOM % 4096 + 1))
		head -c "$sz" /dev/urandom >"$SRC/f$i"
	done
	if ! out=$(nfs_mount "$v" 2>&1); then
		fail "$t" "mount: $(tail -n3 <<<"$out")"
		return 1
	fi
	grep -q " $MNT nfs.*proto=rdma" /proc/mounts || why="not an rdma mount: $(grep " $MNT " /proc/mounts)"
	for ((i = 0; i < FILES; i++)); do
		bounded 120 cp "$SRC/f$i" "$MNT/f$i" || { why="write f$i failed"; break; }
	done
	bounded 60 sync
	bounded 60 umount "$MNT" || why=${why:-"umount after write failed"}
	for ((i = 0; i < FILES; i++)); do   # what the server stored
		cmp -s "$SRC/f$i" "$EXP/f$i" || { bad=$((bad + 1)); why=${why:-"f$i differs on the server"}; }
	done
	if nfs_mount "$v" >/dev/null 2>&1; then
		for ((i = 0; i < FILES; i++)); do   # what a fresh client reads
			bounded 120 cmp -s "$SRC/f$i" "$MNT/f$i" || { bad=$((bad + 1)); why=${why:-"f$i read back differs"}; }
		done
		bounded 60 umount "$MNT" || why=${why:-"umount after read failed"}
	else
		why=${why:-"second mount failed"}
	fi
	if [[ -z $why ]]; then
		pass "$t" "$FILES files, $(du -sk "$SRC" | cut -f1) KiB, bytes compared twice"
	else
		fail "$t" "$why ($bad mismatches)"
	fi
}

# nfs_suite PREFIX: the rounds for both versions on the device bound now.
nfs_suite() {
	local p=$1 v r
	if ! out=$(nfs_server_up 2>&1); then
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

# Teardown with a mount up: delete the device under the client.
if nfs_server_up >/dev/null 2>&1 && nfs_mount 4.2; then
	head -c 1000000 /dev/urandom >"$MNT/live"
	start=$SECONDS
	if bounded 90 "$RDMA" link delete sroce0; then
		pass t-46/sroce/link-delete-mounted "$((SECONDS - start)) s"
	else
		fail t-46/sroce/link-delete-mounted "rdma link delete hung or failed"
	fi
	check t-46/sroce/umount-after-delete bounded 90 umount -f "$MNT"
else
	fail t-46/sroce/link-delete-mounted "could not mount for the teardown case"
fi
nfs_server_down
"$IP" link del nfsdum0 2>/dev/null
exit 0
