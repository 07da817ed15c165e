#!/bin/bash
# pkg-install: the Debian packages, installed (scripts/deb-test, not part of
# the normal suite). scripts/deb-test unpacked sroce-dkms and sroce-provider
# into a root, had DKMS build the module into its
# /lib/modules/KVER/updates/dkms/, and passed the root as /add/root, with no
# provider from the build tree. Here:
#   install    the packaged files go to their places in the guest: the
#              DKMS module (the copy scripts/vm put in extra/ is removed),
#              depmod; the provider and sroce.driver; the systemd unit
#              sroce@.service and its helper /usr/libexec/sroce/sroce-link
#   module     modprobe sroce loads the module from updates/dkms/
#   provider   libibverbs sees the sroce devices through the packaged
#              provider (the only one in the guest)
#   perftest   ib_write_bw and ib_send_lat between sroce0 and sroce1
#   unit       the unit's ExecStart and ExecStop command lines, read from
#              the packaged file with %i/%I replaced as systemd does for
#              sroce@NETDEV (the guest has no systemd), on a dummy netdev:
#              start adds sroce_NETDEV (and again: still one), stop deletes
#              it (and again: fine); start for a missing netdev fails with
#              "sroce@NETDEV: no network device NETDEV"; the name from
#              /etc/sroce/NETDEV.conf, invalid names refused, a name taken
#              on another netdev refused
# run from tests/, where lib.sh and the test programs (bin/) are
# shellcheck source-path=SCRIPTDIR/..
cd "$(dirname "$0")/.." && source ./lib.sh

R=/add/root K=$(uname -r)
PROV=usr/lib/x86_64-linux-gnu/libibverbs/libsroce-rdmav34.so DRV=etc/libibverbs.d/sroce.driver
HELPER=usr/libexec/sroce/sroce-link
UNIT=lib/systemd/system/sroce@.service   # (usr/lib/... with a newer debhelper)
[[ -f $R/$UNIT ]] || UNIT=usr/$UNIT
if [[ ! -f $R/lib/modules/$K/updates/dkms/sroce.ko || ! -f $R/$PROV || ! -f $R/$DRV || ! -x $R/$HELPER || ! -f $R/$UNIT ]]; then
	fail pkg/install "no /add/root with the DKMS module, $PROV, $DRV, $HELPER and sroce@.service (run scripts/deb-test)"
	exit 1
fi
if [[ -e /$PROV || -e /$DRV ]]; then
	fail pkg/install "a provider is already installed: the test would not prove the packaged one"
	exit 1
fi
rm -f "/lib/modules/$K/extra/sroce.ko"
if out=$(mkdir -p "/lib/modules/$K/updates/dkms" &&
	cp "$R/lib/modules/$K/updates/dkms/sroce.ko" "/lib/modules/$K/updates/dkms/" &&
	depmod -a "$K" && cp "$R/$PROV" "/$PROV" && cp "$R/$DRV" "/$DRV" &&
	mkdir -p "/${HELPER%/*}" "/${UNIT%/*}" && cp -p "$R/$HELPER" "/$HELPER" && cp "$R/$UNIT" "/$UNIT" 2>&1); then
	pass pkg/install "updates/dkms/sroce.ko, /$PROV, /$DRV, /$HELPER, /$UNIT"
else
	fail pkg/install "$out"
	exit 1
fi

path=$(modinfo -n sroce 2>&1)
if out=$("$MODPROBE" sroce 2>&1) && [[ $path == "/lib/modules/$K/updates/dkms/sroce.ko" ]] && grep -q '^sroce ' /proc/modules; then
	pass pkg/module "$path, vermagic $(modinfo -F vermagic sroce | cut -d' ' -f1)"
else
	fail pkg/module "modprobe sroce: ${out:-ok}; modinfo -n: $path"
	exit 1
fi

if ! out=$(setup_two_netns 1500 2>&1 && sroce_bind sroce0 vethA 2>&1 && sroce_bind sroce1 vethB 2>&1); then
	fail pkg/provider "setup: $out"
	exit 1
fi
devs=$(in_ns A ibv_devinfo -d sroce0 2>&1)
if grep -q 'hca_id:.*sroce0' <<<"$devs" && grep -q 'transport:.*InfiniBand' <<<"$devs"; then
	pass pkg/provider "ibv_devinfo -d sroce0 through /$PROV"
else
	fail pkg/provider "$(head -n 3 <<<"$devs" | tr '\n' ' ')"
fi

run_pair pkg/ib_write_bw B sroce1 "$B_IP4" A sroce0 "$A_IP4" ib_write_bw -s 65536 -n 500
run_pair pkg/ib_send_lat B sroce1 "$B_IP4" A sroce0 "$A_IP4" ib_send_lat -s 64 -n 500
reset_state

# unit_cmd KEY NETDEV: the packaged unit's KEY= line (ExecStart, ExecStop)
# as systemd runs it for sroce@NETDEV.service, split into $CMD: %i and %I
# are NETDEV (a name that systemd-escape leaves as it is).  Returns 1 when
# the line is missing or has what this does not do as systemd would: another
# specifier, quotes, escapes or a prefix (-@:+!).
unit_cmd() {
	local line
	line=$(sed -n "s/^$1=//p" "/$UNIT")
	line=${line//%i/$2} line=${line//%I/$2}
	[[ $line == /* && $line != *[%\"\'\\]* ]] || return 1
	read -ra CMD <<<"$line"
}

# unit_case NAME KEY NETDEV WANT [CHECK...]: run the unit's KEY for
# sroce@NETDEV; PASS NAME when it exits 0 (WANT "ok") or fails with the
# one stderr line WANT, and CHECK (a command) holds; FAIL otherwise.
unit_case() {
	local name=$1 key=$2 d=$3 want=$4 err=/tmp/unit.err out rc
	shift 4
	unit_cmd "$key" "$d" || { fail "$name" "no usable $key= line in /$UNIT"; return 1; }
	out=$(timeout -k 5 30 "${CMD[@]}" 2>"$err")   # stderr apart, to compare
	rc=$?
	out=$(printf '%s\n' "$out" "$(cat "$err")" | sed '/^$/d' | tr '\n' ' ')
	out=${out% }
	if [[ $want == ok ]] && ((rc != 0)); then
		fail "$name" "\`${CMD[*]}\` exited $rc: $out"
	elif [[ $want != ok ]] && { ((rc == 0)) || [[ $(cat "$err") != "$want" ]]; }; then
		fail "$name" "\`${CMD[*]}\` exited $rc, want non-zero and \"$want\": $out"
	elif (($#)) && ! "$@"; then
		fail "$name" "\`${CMD[*]}\` exited $rc, but not $*; links: $(rdma_links | tr '\n' ' ')"
	else
		pass "$name" "${CMD[*]}: $out"
	fi
}

# links_are [IBDEV NETDEV]...: the rdma links are these and no others, each
# bound to its NETDEV.
links_are() {
	local want=()
	while (($#)); do
		"$RDMA" link show "$1/1" 2>/dev/null | grep -qw "netdev $2" || return 1
		want+=("$1")
		shift 2
	done
	[[ $(rdma_links | sort) == "$( ((${#want[@]})) && printf '%s\n' "${want[@]}" | sort)" ]]
}

# unit_conf NETDEV: the device name from /etc/sroce/NETDEV.conf; invalid
# names refused; a name taken on another netdev refused.
unit_conf() {
	local d=$1 conf=/etc/sroce/$1.conf c bad out
	mkdir -p /etc/sroce
	printf '# the RDMA device on %s\n\nNAME="roce_%s"\n' "$d" "$d" >"$conf"
	unit_case pkg/unit/conf-name ExecStart "$d" ok links_are "roce_$d" "$d"
	unit_case pkg/unit/conf-name-stop ExecStop "$d" ok links_are
	for c in "space=a b" "slash=a/b" "format=sroce%d" "empty=" "64-chars=$(printf 'n%.0s' {1..64})"; do
		bad=${c#*=}
		echo "NAME=$bad" >"$conf"
		unit_case "pkg/unit/conf-invalid/${c%%=*}" ExecStart "$d" \
			"sroce@$d: $conf: NAME \"$bad\" is not an RDMA link name (1 to 63 characters, no '/', '%' or whitespace)" \
			links_are
	done
	rm -f "$conf"
	if out=$("$IP" link add "${d}b" type dummy 2>&1 && "$IP" link set "${d}b" up 2>&1 &&
		sroce_bind "sroce_$d" "${d}b" 2>&1); then
		unit_case pkg/unit/name-taken ExecStart "$d" \
			"sroce@$d: RDMA device sroce_$d exists on network device ${d}b" links_are "sroce_$d" "${d}b"
	else
		fail pkg/unit/name-taken "setup: $out"
	fi
	reset_state
	"$IP" link delete "${d}b" 2>/dev/null
}

D=pkgdum0
if out=$("$IP" link add "$D" type dummy 2>&1 && "$IP" link set "$D" up 2>&1); then
	unit_case pkg/unit/start ExecStart "$D" ok links_are "sroce_$D" "$D"
	unit_case pkg/unit/start-again ExecStart "$D" ok links_are "sroce_$D" "$D"
	unit_case pkg/unit/stop ExecStop "$D" ok links_are
	unit_case pkg/unit/stop-again ExecStop "$D" ok links_are
	unit_conf "$D"
	"$IP" link delete "$D"
else
	fail pkg/unit/setup "$out"
fi
if "$IP" link show eth9 >/dev/null 2>&1; then
	fail pkg/unit/no-netdev "the guest has an eth9"
else
	unit_case pkg/unit/no-netdev ExecStart eth9 "sroce@eth9: no network device eth9" links_are
fi
dmesg_clean pkg/dmesg
