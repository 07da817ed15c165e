# scripts/lib/kernel-source.bash: the kernel source tree that scripts/kunit
# and scripts/debug-kernel build from.  Sourced, not run.  Expects CACHE
# (the cache directory) to be set, and KSRC_SERIES may be (default 6.1:
# linux-source-6.1; 6.12: Debian 13's linux-source-6.12, in $CACHE/
# linux-source-6.12, guarded by $CACHE/src-6.12.lock); defines SRC and TARBALL.
#
# Debian's linux-source-6.1 is unpacked once into $CACHE/linux-source-6.1;
# every build there uses O=<its own build directory>, so the tree itself
# stays clean and several builds can share it.  $CACHE/src.lock guards it:
# unpacking takes the lock exclusively, builds hold it shared, so the tree
# is never replaced under a running build.
#
# The patches in scripts/kernel-patches/<series>/ (fixes of the kernel's own
# code that the test kernels need; each file says why) are applied when the
# tree is unpacked; the tree's identity includes them, so a changed patch
# set unpacks the tree again (tar keeps the files' dates: only the patched
# files rebuild).

KSRC_SERIES=${KSRC_SERIES:-6.1}
SRC=$CACHE/linux-source-$KSRC_SERIES
TARBALL=/usr/src/linux-source-$KSRC_SERIES.tar.xz
SRC_LOCK=$CACHE/src.lock
KSRC_PATCHES=$(cd "$(dirname "${BASH_SOURCE[0]}")/../kernel-patches" && pwd)/$KSRC_SERIES
[[ $KSRC_SERIES == 6.1 ]] || SRC_LOCK=$CACHE/src-$KSRC_SERIES.lock

# ksrc_install_deps PKG...: apt-get install the packages that are missing.
ksrc_install_deps() {
	local p missing=()
	for p in "$@"; do
		[[ $(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null) == installed ]] ||
			missing+=("$p")
	done
	((${#missing[@]})) || return 0
	echo "${0##*/}: installing ${missing[*]}" >&2
	apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends "${missing[@]}"
}

# ksrc_version: the tree's identity: the linux-source package version and
# a hash of the patches applied to it.
ksrc_version() {
	local ver
	ver=$(dpkg-query -W -f='${Version}' "linux-source-$KSRC_SERIES") || return 1
	if compgen -G "$KSRC_PATCHES/*.patch" >/dev/null; then
		ver+=+patches-$(cat "$KSRC_PATCHES"/*.patch | sha256sum | cut -c1-12)
	fi
	echo "$ver"
}

# ksrc_patch DIR: apply the series' patches to the tree in DIR.
ksrc_patch() {
	local p
	for p in "$KSRC_PATCHES"/*.patch; do
		[[ -e $p ]] || continue
		patch -s -p1 -d "$1" <"$p" || { echo "${0##*/}: $p does not apply" >&2; return 1; }
	done
}

# ksrc_unpack FD: unpacks the source if it is missing or from another package
# version, then holds $CACHE/src.lock shared on file descriptor FD until the
# caller exits.  The stamp holds the package version, so an updated
# linux-source package is unpacked again.  Unpacks beside the target and renames:
# never half a tree.
ksrc_unpack() {
	local fd=$1 ver
	ver=$(ksrc_version) || return 1
	eval "exec $fd>$(printf %q "$SRC_LOCK")" || return 1
	flock -s "$fd" || return 1
	[[ $(cat "$SRC/.sroce-unpacked" 2>/dev/null) == "$ver" ]] && return 0
	flock -x "$fd" || return 1
	if [[ $(cat "$SRC/.sroce-unpacked" 2>/dev/null) != "$ver" ]]; then
		echo "${0##*/}: unpacking linux-source-$KSRC_SERIES $ver into $SRC" >&2
		rm -rf "$SRC.tmp" && mkdir -p "$SRC.tmp" &&
			tar -xJf "$TARBALL" -C "$SRC.tmp" --strip-components=1 &&
			ksrc_patch "$SRC.tmp" &&
			echo "$ver" >"$SRC.tmp/.sroce-unpacked" || return 1
		rm -rf "$SRC.old"
		[[ ! -e $SRC ]] || mv "$SRC" "$SRC.old"
		mv "$SRC.tmp" "$SRC" && rm -rf "$SRC.old" || return 1
	fi
	flock -s "$fd"
}
