#!/bin/bash
# Usage (host):
#   scripts/vm-pair tests/tools/pair-ulp.sh a -- tests/tools/pair-ulp.sh b
#
# Kernel RDMA consumers between two VMs, sroce in one and rdma_rxe in the
# other, over eth0 (a QEMU socket netdev): each VM's ULPs live in init_net,
# where only one of sroce and rxe can own UDP 4791, hence two VMs.  VM a is
# the NVMe over RDMA target (nvmet-rdma, a RAM disk) and the NFS over RDMA
# server (nfsd on rdma port 20049); VM b is the host and the client: fio
# with crc32c verification (2 MiB of random 4 KiB writes, one I/O at a time:
# some 20 I/Os per second between two TCG guests; 32 MiB of sequential
# 128 KiB writes; read back and checked) and NFSv3 and NFSv4.2 files compared through a fresh
# mount.  Phase 1: rxe target/server, sroce host/client; phase 2 the
# reverse.  The VMs step through the phases by messages on TCP port 7100.
# run from tests/, where lib.sh and the test programs (bin/) are
# shellcheck source-path=SCRIPTDIR/..
cd "$(dirname "$0")/.." && source ./lib.sh && source ./ulp-lib.sh

ROLE=${1:?usage: pair-ulp.sh a|b}
export SROCE_RESULTS=/tmp/pair-results
: >"$SROCE_RESULTS"
A=10.47.0.1 B=10.47.0.2
[[ $ROLE == a ]] && { ME=$A PEER=$B; } || { ME=$B PEER=$A; }
WAIT=${PAIR_WAIT:-1200}

# pair_signal TAG: tell the peer TAG (retried until it listens, up to WAIT s).
pair_signal() {
	local end=$((SECONDS + WAIT))
	while ((SECONDS < end)); do
		echo "$1" | nc -w 5 "$PEER" 7100 2>/dev/null && return 0
		sleep 0.5
	done
	return 1
}

# pair_wait TAG: wait up to WAIT s for the peer to signal TAG.
pair_wait() {
	local end=$((SECONDS + WAIT)) msg
	while ((SECONDS < end)); do
		msg=$(timeout $((end - SECONDS)) nc -l -p 7100 2>/dev/null)
		[[ $msg == "$1" ]] && return 0
		[[ -n $msg ]] && echo "pair_wait: got '$msg', want '$1'" >&2
	done
	return 1
}

# bind KIND: an rdma device of KIND (rxe or sroce) on eth0.
bind() {
	case $1 in
	rxe) "$MODPROBE" rdma_rxe && "$RDMA" link add rxe0 type rxe netdev eth0 ;;
	sroce) sroce_bind sroce0 eth0 ;;
	esac
}

unbind() {
	local l
	for l in $(rdma_links); do bounded 60 "$RDMA" link delete "$l" >/dev/null; done
	"$MODPROBE" -r rdma_rxe 2>/dev/null
	return 0
}

# serve PHASE KIND: target and server on a KIND device until b is done.
serve() {
	local t=pair/$1/$2-target out
	bind "$2" || { fail "$t/bind"; }
	if out=$(nvmet_up "$A" 2>&1); then pass "$t/nvmet"; else fail "$t/nvmet" "$out"; fi
	if out=$(nfs_server_up "$A" 2>&1); then pass "$t/nfsd"; else fail "$t/nfsd" "$out"; fi
	pair_signal "ready-$1" || fail "$t/signal" "b never listened"
	pair_wait "done-$1" || fail "$t/wait" "b did not finish in ${WAIT}s"
	nvmet_down
	nfs_server_down
	unbind
}

# use PHASE KIND: host and client on a KIND device.
use() {
	local t=pair/$1/$2-host dev out v
	pair_wait "ready-$1" || { fail "$t/wait" "a never got ready"; return 1; }
	bind "$2" || fail "$t/bind"
	if dev=$(nvme_connect "$A" 2>"$LOG_DIR/nvme-connect"); then
		pass "$t/nvme-connect" "$dev"
		if out=$(nvme_fio "$dev" rand4k randwrite 4k 2m); then pass "$t/nvme-fio-rand4k" "$out"; else fail "$t/nvme-fio-rand4k" "$out"; fi
		if out=$(nvme_fio "$dev" seq128k write 128k 32m); then pass "$t/nvme-fio-seq128k" "$out"; else fail "$t/nvme-fio-seq128k" "$out"; fi
		check "$t/nvme-disconnect" nvme_disconnect
	else
		fail "$t/nvme-connect" "$(tail -n3 "$LOG_DIR/nvme-connect")"
	fi
	for v in 3 4.2; do
		nfs_make_files
		if out=$(nfs_client_round "$A" "$v"); then
			pass "$t/nfs-v$v" "$NFS_FILES files, $(du -sk "$NFS_SRC" | cut -f1) KiB compared"
		else
			fail "$t/nfs-v$v" "$out"
		fi
	done
	unbind
	pair_signal "done-$1" || fail "$t/signal" "a never listened"
}

"$IP" link set lo up
"$IP" link set eth0 up && "$IP" addr add "$ME/24" dev eth0 || { fail "pair/$ROLE/eth0"; exit 1; }
require_sroce "pair/$ROLE/modprobe-sroce" || exit 1
for phase in ${PAIR_PHASES:-1 2}; do   # the target's device, the host's
	kinds=(rxe sroce)
	((phase == 2)) && kinds=(sroce rxe)
	if [[ $ROLE == a ]]; then serve "$phase" "${kinds[0]}"; else use "$phase" "${kinds[1]}"; fi
done
grep -q '^FAIL' "$SROCE_RESULTS" && exit 1
exit 0
