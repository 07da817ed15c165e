# tests/ulp-lib.sh: kernel RDMA consumers in the VM, NFS over RDMA (nfsd's
# svcrdma and the xprtrdma client) and NVMe over RDMA (nvmet-rdma and
# nvme-rdma), for the tests that run them on one VM (t-46) or across two
# (tests/tools/pair-ulp.sh).  Source it after lib.sh.
# Results go through pass/fail; every wait is bounded.

NFS_EXP=/export NFS_MNT=/mnt/nfs NFS_SRC=/tmp/nfs-src
NFS_FILES=${NFS_FILES:-6}
NVME_NQN=nqn.2026-12.org.sroce:test NVME_PORT=4420
NVME_HOSTID=5ec0e000-0000-4000-8000-000000000001
# (newer kernels refuse a host NQN whose UUID is not the host ID: EINVAL)
NVME_HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:$NVME_HOSTID

# step CMD...: run CMD; when it fails, say which.
step() { "$@" || { echo "\`$*\` failed ($?)"; return 1; }; }

# mounted DIR: is something mounted on DIR?
mounted() { awk -v d="$1" '$2 == d { f = 1 } END { exit !f }' /proc/mounts; }

# nfs_server_up ADDR: nfsd listening on rdma port 20049 (RFC 8267), mountd
# and rpcbind, a tmpfs exported to ADDR's /24.
nfs_server_up() {
	step "$MODPROBE" -a nfsd nfsv3 nfsv4 rpcrdma &&
	mkdir -p /var/lib/nfs/v4recovery /var/lib/nfs/sm "$NFS_EXP" "$NFS_MNT" /run/rpcbind &&
	{ mounted "$NFS_EXP" || step mount -t tmpfs -o size=256m tmpfs "$NFS_EXP"; } &&
	{ mounted /proc/fs/nfsd || step mount -t nfsd nfsd /proc/fs/nfsd; } &&
	echo "$NFS_EXP ${1%.*}.0/24(rw,no_root_squash,insecure,no_subtree_check,fsid=0)" >/etc/exports &&
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
	mounted "$NFS_EXP" && umount "$NFS_EXP"
	return 0
}

# nfs_mount ADDR VERS: mount the export over RDMA (NFSv3 names the path,
# NFSv4 the pseudo root).
nfs_mount() {
	local path=$NFS_EXP opts=rdma,port=20049,vers=$2,timeo=100,retrans=2
	"$MODPROBE" -a nfsv3 nfsv4 rpcrdma || return 1
	mkdir -p "$NFS_MNT"
	[[ $2 == 3 ]] && opts+=,nolock,mountport=20048,mountproto=tcp
	[[ $2 == 4* ]] && path=/
	bounded 120 mount.nfs "$1:$path" "$NFS_MNT" -o "$opts"
}

# nfs_make_files: NFS_FILES files of random sizes (up to 3 MiB) in NFS_SRC.
nfs_make_files() {
	local i sz
	rm -rf "$NFS_SRC" && mkdir -p "$NFS_SRC"
	for ((i = 0; i < NFS_FILES; i++)); do
		sz=$(((RANDOM << 8 | RANDOM & 255) % (3 << 20) + RANDOM % 4096 + 1))
		head -c "$sz" /dev/urandom >"$NFS_SRC/f$i"
	done
}

# nfs_client_round ADDR VERS: mount, write NFS_SRC's files, unmount, mount
# again and compare what a fresh client reads; prints why it failed.
nfs_client_round() {
	local i out
	out=$(nfs_mount "$1" "$2" 2>&1) || { echo "mount: $(tail -n2 <<<"$out")"; return 1; }
	grep -q " $NFS_MNT nfs.*proto=rdma" /proc/mounts ||
		{ echo "not an rdma mount: $(grep " $NFS_MNT " /proc/mounts)"; umount "$NFS_MNT"; return 1; }
	for ((i = 0; i < NFS_FILES; i++)); do
		bounded 120 cp "$NFS_SRC/f$i" "$NFS_MNT/f$i" >/dev/null ||
			{ echo "write f$i failed"; umount -f "$NFS_MNT"; return 1; }
	done
	bounded 60 umount "$NFS_MNT" >/dev/null || { echo "umount after write failed"; return 1; }
	out=$(nfs_mount "$1" "$2" 2>&1) || { echo "second mount: $(tail -n2 <<<"$out")"; return 1; }
	for ((i = 0; i < NFS_FILES; i++)); do
		bounded 120 cmp -s "$NFS_SRC/f$i" "$NFS_MNT/f$i" >/dev/null ||
			{ echo "f$i read back differs"; umount -f "$NFS_MNT"; return 1; }
	done
	bounded 60 umount "$NFS_MNT" >/dev/null || { echo "umount after read failed"; return 1; }
}

# nfs_server_check: NFS_SRC's files as the server stored them; prints why not.
nfs_server_check() {
	local i
	for ((i = 0; i < NFS_FILES; i++)); do
		cmp -s "$NFS_SRC/f$i" "$NFS_EXP/f$i" || { echo "f$i differs on the server"; return 1; }
	done
}

# nvmet_up ADDR: an NVMe over RDMA target on ADDR:4420 (nvmet configfs)
# exporting a 256 MiB RAM disk (brd) as namespace 1 of NVME_NQN.
nvmet_up() {
	local c=/sys/kernel/config/nvmet s p
	step "$MODPROBE" -a nvmet nvmet-rdma &&
	{ [[ -b /dev/ram0 ]] || step "$MODPROBE" brd rd_nr=1 rd_size=262144; } || return 1
	s=$c/subsystems/$NVME_NQN p=$c/ports/1
	step mkdir -p "$s/namespaces/1" &&
	echo 1 >"$s/attr_allow_any_host" &&
	echo -n /dev/ram0 >"$s/namespaces/1/device_path" &&
	step sh -c "echo 1 >$s/namespaces/1/enable" &&
	step mkdir -p "$p" &&
	echo rdma >"$p/addr_trtype" && echo ipv4 >"$p/addr_adrfam" &&
	echo "$1" >"$p/addr_traddr" && echo "$NVME_PORT" >"$p/addr_trsvcid" &&
	step ln -s "$s" "$p/subsystems/$NVME_NQN"
}

nvmet_down() {
	local c=/sys/kernel/config/nvmet
	[[ -d $c ]] || return 0
	rm -f "$c/ports/1/subsystems/$NVME_NQN" 2>/dev/null
	rmdir "$c/ports/1" 2>/dev/null
	echo 0 >"$c/subsystems/$NVME_NQN/namespaces/1/enable" 2>/dev/null
	rmdir "$c/subsystems/$NVME_NQN/namespaces/1" "$c/subsystems/$NVME_NQN" 2>/dev/null
	return 0
}

# nvme_connect ADDR: connect to NVME_NQN at ADDR over RDMA; prints the block
# device of its namespace 1.
nvme_connect() {
	local d try
	"$MODPROBE" nvme-rdma || return 1
	bounded 120 nvme connect -t rdma -a "$1" -s "$NVME_PORT" -n "$NVME_NQN" \
		--hostnqn="$NVME_HOSTNQN" --hostid="$NVME_HOSTID" -i 2 >&2 || return 1
	for ((try = 0; try < 100; try++)); do
		for d in /sys/class/nvme/*; do
			[[ $(cat "$d/subsysnqn" 2>/dev/null) == "$NVME_NQN" ]] || continue
			for d in "$d"/nvme*n1 /sys/block/"${d##*/}"n1; do
				[[ -b /dev/${d##*/} ]] && { echo "/dev/${d##*/}"; return 0; }
			done
		done
		sleep 0.1
	done
	echo "nvme_connect: no block device for $NVME_NQN" >&2
	return 1
}

nvme_disconnect() { bounded 60 nvme disconnect -n "$NVME_NQN" >/dev/null; }

# nvme_fio DEV NAME RW BS SIZE: a fio job on DEV with crc32c verification
# (writes SIZE, then reads it back and checks every block); prints fio's
# bandwidth lines, fails on any error.
nvme_fio() {
	local out rc
	out=$(bounded 300 fio --name="$2" --filename="$1" --rw="$3" --bs="$4" --size="$5" \
		--ioengine=psync --direct=1 --verify=crc32c --do_verify=1 \
		--verify_fatal=1 --group_reporting 2>&1)
	rc=$?
	if ((rc == 0)); then
		grep -E '^ +(READ|WRITE):' <<<"$out" | sed 's/^ *//; s/ (.*//' | tr '\n' ' '
		return 0
	fi
	echo "fio exit $rc: $(grep -iE 'verify|crc|error|bad|still running' <<<"$out" | head -n5)"
	return 1
}
