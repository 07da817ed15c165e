#!/bin/bash
# pkg-install: the Debian packages, installed (scripts/deb-test, not part of
# the normal suite). scripts/deb-test unpacked sroce-dkms and sroce-provider
# into a root, had DKMS build the module into its
# /lib/modules/KVER/updates/dkms/, and passed the root as /add/root, with no
# provider from the build tree. Here:
#   install    the packaged files go to their places in the guest: the
#              DKMS module (the copy scripts/vm put in extra/ is removed),
#              depmod; the provider and sroce.driver
#   module     modprobe sroce loads the module from updates/dkms/
#   provider   libibverbs sees the sroce devices through the packaged
#              provider (the only one in the guest)
#   perftest   ib_write_bw and ib_send_lat between sroce0 and sroce1
# run from tests/, where lib.sh and the test programs (bin/) are
cd "$(dirname "$0")/.." && source ./lib.sh

R=/add/root K=$(uname -r)
PROV=usr/lib/x86_64-linux-gnu/libibverbs/libsroce-rdmav34.so DRV=etc/libibverbs.d/sroce.driver
if [[ ! -f $R/lib/modules/$K/updates/dkms/sroce.ko || ! -f $R/$PROV || ! -f $R/$DRV ]]; then
	fail pkg/install "no /add/root with the DKMS module, $PROV and $DRV (run scripts/deb-test)"
	exit 1
fi
if [[ -e /$PROV || -e /$DRV ]]; then
	fail pkg/install "a provider is already installed: the test would not prove the packaged one"
	exit 1
fi
rm -f "/lib/modules/$K/extra/sroce.ko"
if out=$(mkdir -p "/lib/modules/$K/updates/dkms" &&
	cp "$R/lib/modules/$K/updates/dkms/sroce.ko" "/lib/modules/$K/updates/dkms/" &&
	depmod -a "$K" && cp "$R/$PROV" "/$PROV" && cp "$R/$DRV" "/$DRV" 2>&1); then
	pass pkg/install "updates/dkms/sroce.ko, /$PROV, /$DRV"
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
dmesg_clean pkg/dmesg
