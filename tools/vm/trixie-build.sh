#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build xdpong with Debian 13's (trixie's) userland: clang 19, libbpf 1.5,
# libxdp 1.5, bpftool 7.5, in a chroot made by mmdebstrap (the tree's own
# committed files plus the working tree's changes), then run the BPF unit
# tests there: the skeletons of bpftool 7.5 and libbpf 1.5's loading of
# the objects, on this machine's kernel; then the Debian package with
# trixie's debhelper (make deb), checked by trixie's lintian. The Debian 12
# toolchain is what `make` uses everywhere else; this is the other half of
# the pair.
#
# Usage: tools/vm/trixie-build.sh        (as root; make trixie-build)
#   TRIXIE_ROOT   the chroot, kept for reuse (default /var/cache/xdpong-trixie;
#                 about 1 GB, a few minutes to make the first time)
#   MIRROR        default: the first URI of apt's own Debian sources
#
# Not in `make test`: the first run downloads about 300 MB.
set -euo pipefail
cd "$(dirname "$0")/../.."

ROOT=${TRIXIE_ROOT:-/var/cache/xdpong-trixie}
# What tools/deps.sh installs to build, as trixie names it; and to build
# the Debian package (make deb) and check it with trixie's lintian:
# build-essential (dpkg-buildpackage checks for it), debhelper, dpkg-dev,
# lintian, python3-docutils (rst2man: xdpong(8)), and systemd-dev
# (systemd.pc, whose unit directory debian/rules
# reads: in the systemd package on Debian 12).
PKGS=make,gcc,libc6-dev,clang,llvm,pkg-config,libbpf-dev,libxdp-dev,libelf-dev,zlib1g-dev
PKGS+=,libjson-c-dev,libsystemd-dev,libinih-dev,libmicrohttpd-dev,python3-docutils,bpftool
PKGS+=,libclang-rt-dev,binutils,iproute2,build-essential,debhelper,dpkg-dev,lintian,systemd-dev

die()
{
	echo "trixie-build: $*" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || die "must run as root (chroot, mounts)"
if [ -z "${MIRROR:-}" ]; then
	MIRROR=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null |
		head -n 1)
	[ -n "$MIRROR" ] ||
		MIRROR=$(awk '$1 == "deb" { print $2; exit }' /etc/apt/sources.list 2>/dev/null ||
			true)
	: "${MIRROR:=http://deb.debian.org/debian}"
fi

if [ ! -x "$ROOT/usr/bin/clang" ] || [ ! -e "$ROOT/usr/include/xdp/libxdp.h" ]; then
	command -v mmdebstrap >/dev/null || {
		[ -n "$(ls -A /var/lib/apt/lists 2>/dev/null | grep -v lock || true)" ] ||
			apt-get update -q
		apt-get install -y -q mmdebstrap >/dev/null
	}
	echo "trixie-build: making the chroot $ROOT from $MIRROR (once)"
	rm -rf "$ROOT"
	mmdebstrap --variant=apt --include="$PKGS" trixie "$ROOT" "$MIRROR" >/dev/null
fi

# The tree as it is now: committed files, then what the working tree changed.
tools/tree-copy.sh "$ROOT/src"

mounted=()
cleanup()
{
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
		umount -l "${mounted[i]}" 2>/dev/null || true
	done
}
trap cleanup EXIT
for m in proc sys dev; do
	mount --rbind "/$m" "$ROOT/$m"
	mount --make-rslave "$ROOT/$m"
	mounted+=("$ROOT/$m")
done

# A chroot made before PKGS grew gets what it lacks (once).
# shellcheck disable=SC2086 # a list of package names
missing=$(chroot "$ROOT" dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' ${PKGS//,/ } 2>&1 |
	grep -v '^ii ' || true)
if [ -n "$missing" ]; then
	echo "trixie-build: adding to the chroot: $(awk '{ print $NF }' <<<"$missing" |
		tr '\n' ' ')"
	chroot "$ROOT" sh -c "{ apt-get update && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y ${PKGS//,/ } && apt-get clean; } \
		>/tmp/apt.log 2>&1" ||
		{ tail -n 20 "$ROOT/tmp/apt.log"; die "apt-get in the chroot failed"; }
fi

chroot "$ROOT" sh -ec '
	echo "trixie-build: $(clang --version | head -n 1);" \
		"libbpf $(pkg-config --modversion libbpf);" \
		"libxdp $(pkg-config --modversion libxdp);" \
		"$(bpftool version | head -n 1)"
	cd /src
	make -j2 all tests bench-build >/tmp/build.log 2>&1 ||
		{ tail -n 40 /tmp/build.log; exit 1; }
	! grep -n "warning:" /tmp/build.log || { echo "trixie-build: warnings above"; exit 1; }
	build/tests/test_xdpong >/tmp/unit.log 2>&1 || { tail -n 30 /tmp/unit.log; exit 1; }
	echo "trixie-build: unit tests: $(tail -n 1 /tmp/unit.log)"
	build/tests/test_chain >/tmp/chain.log 2>&1 || { tail -n 30 /tmp/chain.log; exit 1; }
	echo "trixie-build: run configuration read back by libxdp: $(tail -n 1 /tmp/chain.log)"
	make --no-print-directory deb
	lintian --version
	lintian --fail-on error,warning --display-info --pedantic \
		build/deb/xdpong_*_amd64.changes 2>/dev/null ||
		{ echo "trixie-build: lintian failed"; exit 1; }
'
echo "trixie-build: ok"
