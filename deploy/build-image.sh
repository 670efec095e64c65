#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the xdpong OCI image from Debian packages only: no image registry,
# no base image pulled from anywhere, nothing but a Debian mirror.
#
#   1. mmdebstrap makes a Debian 12 (bookworm) rootfs: the Essential
#      packages plus the libraries build/xdpong links against. It is
#      cached as /var/cache/xdpong-deploy/base-KEY.tar (XDPONG_DEPLOY_CACHE),
#      KEY a hash of everything that
#      goes into it (suite, mirrors, packages, options), so a rebuild of
#      xdpong alone takes seconds; --refresh fetches it anew (security
#      updates).
#   2. `make install DESTDIR=ROOTFS PREFIX=/usr` puts xdpong in it, and
#      deploy/xdpong.conf becomes /etc/xdpong/xdpong.conf.
#   3. In a chroot, the image's own loader and libraries run
#      `xdpong --version` and `xdpong config check`: a binary that needs
#      a library or symbol the image lacks fails the build here.
#   4. `podman import` turns the rootfs into an image, with the entrypoint,
#      command, stop signal and labels set by --change.
#
# Usage: deploy/build-image.sh [options]
#   --tag NAME       image name (default localhost/xdpong:VERSION)
#   --rootfs-only    stop after step 3: build/deploy/rootfs, no podman
#   --output FILE    also write the image as an OCI archive (podman save),
#                    to copy to a node or push with skopeo
#   --refresh        rebuild the cached Debian base
#   --cached-only    use the cached Debian base, never fetch it (exit 3
#                    when there is none)
#   --mirror URL     Debian mirror (default $MIRROR or deb.debian.org)
#   -h, --help       this text
#
# As root, on Debian 12: the binary is built here against this system's
# libraries, which must be the ones the image gets. Installs mmdebstrap
# (and podman, unless --rootfs-only) with apt-get when they are missing.
# Exit 0 built, 1 failed, 2 usage, 3 the tools or the Debian packages
# cannot be had (apt-get or the mirror failed): nothing was built.

set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$REPO/build}
OUT=$BUILD/deploy
ROOTFS=$OUT/rootfs
SUITE=bookworm
MIRROR=${MIRROR:-http://deb.debian.org/debian}
SECURITY_MIRROR=${SECURITY_MIRROR:-http://deb.debian.org/debian-security}
VERSION=$("$REPO/tools/version.sh")
TAG=localhost/xdpong:$VERSION
ROOTFS_ONLY=0
REFRESH=0
CACHED_ONLY=0
OUTPUT=

# What `ldd build/xdpong` names, by package; libc6 and libgcc-s1 come with
# the Essential set. Step 3 proves the list complete.
RUNTIME_PACKAGES=(libbpf1 libxdp1 libelf1 zlib1g libjson-c5 libsystemd0 libinih1 libmicrohttpd12)

# Essential only (no apt: nothing installs at run time), a merged /usr
# without the usrmerge package and the perl it pulls in, and no manuals,
# documentation or translations (dpkg path-exclude). /usr/share/doc/*/copyright
# stays: the licenses travel with the binaries.
MMDEBSTRAP_OPTS=(
	--variant=essential
	--hook-dir=/usr/share/mmdebstrap/hooks/merged-usr
	--dpkgopt='path-exclude=/usr/share/man/*'
	--dpkgopt='path-exclude=/usr/share/locale/*'
	--dpkgopt='path-exclude=/usr/share/doc/*'
	--dpkgopt='path-include=/usr/share/doc/*/copyright'
	--dpkgopt='path-exclude=/usr/share/info/*'
)

usage()
{
	sed -n '/^# Usage:/,/^# Exit/s/^# \{0,1\}//p' "$0"
}

die()
{
	echo "build-image.sh: $*" >&2
	exit 1
}

# The network or the mirror, not xdpong: exit 3.
unavailable()
{
	echo "build-image.sh: $*" >&2
	exit 3
}

log()
{
	printf '  %-8s %s\n' "$1" "$2"
}

while [ $# -gt 0 ]; do
	case $1 in
	--tag) TAG=${2:?--tag needs a NAME}; shift ;;
	--rootfs-only) ROOTFS_ONLY=1 ;;
	--output) OUTPUT=${2:?--output needs a FILE}; shift ;;
	--refresh) REFRESH=1 ;;
	--cached-only) CACHED_ONLY=1 ;;
	--mirror) MIRROR=${2:?--mirror needs a URL}; shift ;;
	-h | --help) usage; exit 0 ;;
	*) echo "build-image.sh: unknown option '$1'" >&2; usage >&2; exit 2 ;;
	esac
	shift
done
if [ "$ROOTFS_ONLY" = 1 ] && [ -n "$OUTPUT" ]; then
	echo "build-image.sh: --output needs the image: drop --rootfs-only" >&2
	exit 2
fi

[ "$(id -u)" -eq 0 ] || die "must run as root (mmdebstrap, chroot and podman's image store)"
# shellcheck source=/dev/null
codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
[ "$codename" = "$SUITE" ] ||
	die "this is '${codename:-not Debian}', not Debian 12 ($SUITE):" \
		"build/xdpong must be built against the libraries the image gets"

# The tools, from Debian, when missing.
need=(mmdebstrap)
[ "$ROOTFS_ONLY" = 1 ] || need+=(podman)
missing=()
for t in "${need[@]}"; do
	command -v "$t" >/dev/null 2>&1 || missing+=("$t")
done
if [ "${#missing[@]}" -gt 0 ]; then
	log APT "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 ||
		{ apt-get update -qq >/dev/null 2>&1 &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" \
				>/dev/null 2>&1; } ||
		unavailable "cannot install ${missing[*]} with apt-get"
fi

mkdir -p "$OUT"
# One build at a time per build directory: they share the rootfs.
exec 9>"$OUT/.lock"
flock -w 600 9 || die "another build-image.sh holds $OUT/.lock"

log MAKE build/xdpong
make --no-print-directory -C "$REPO" -s "$BUILD/xdpong" BUILD="$BUILD" >/dev/null

# 1. The Debian base, cached by a hash of what makes it.
SOURCES="deb $MIRROR $SUITE main
deb $MIRROR $SUITE-updates main
deb $SECURITY_MIRROR $SUITE-security main"
key=$(printf '%s\n' "$SUITE" "$SOURCES" "${RUNTIME_PACKAGES[*]}" "${MMDEBSTRAP_OPTS[*]}" \
	"$(mmdebstrap --version)" | sha256sum | cut -c1-16)
# On the machine, not in the tree: every clone (a CI run's fresh one too)
# reuses it, as tools/vm/ does its kernels and guests.
CACHE=${XDPONG_DEPLOY_CACHE:-/var/cache/xdpong-deploy}
mkdir -p "$CACHE" || die "cannot create $CACHE"
BASE=$CACHE/base-$key.tar
if [ "$CACHED_ONLY" = 1 ] && [ ! -s "$BASE" ]; then
	unavailable "--cached-only: no cached Debian base ${BASE#"$REPO"/} (run without it once)"
elif [ "$REFRESH" = 1 ] || [ ! -s "$BASE" ]; then
	log DEBIAN "mmdebstrap $SUITE (${RUNTIME_PACKAGES[*]}) -> ${BASE#"$REPO"/}"
	rm -f "$BASE.tmp"
	# An interrupted fetch (a test's time-out) leaves no half tarball.
	trap 'rm -f "$BASE.tmp"' EXIT
	trap 'exit 143' TERM INT HUP
	if ! printf '%s\n' "$SOURCES" | mmdebstrap --quiet "${MMDEBSTRAP_OPTS[@]}" \
		--include="$(IFS=,; echo "${RUNTIME_PACKAGES[*]}")" \
		--format=tar "$SUITE" "$BASE.tmp" - >"$OUT/mmdebstrap.log" 2>&1; then
		tail -n 20 "$OUT/mmdebstrap.log" >&2
		rm -f "$BASE.tmp"
		# A package Debian does not have is this script's fault, not the network's.
		grep -qE \
		'Unable to locate package|has no installation candidate|unmet dependencies' \
			"$OUT/mmdebstrap.log" &&
			die "mmdebstrap: a package cannot be installed (see above)"
		unavailable "mmdebstrap failed (full log: $OUT/mmdebstrap.log);" \
			"is $MIRROR reachable?"
	fi
	mv "$BASE.tmp" "$BASE"
	trap - EXIT
	# Bases for other inputs are stale now.
	find "$CACHE" -maxdepth 1 -name 'base-*.tar' ! -name "${BASE##*/}" -delete
else
	log DEBIAN "cached ${BASE#"$REPO"/} (--refresh to fetch it anew)"
fi

# 2. xdpong into a fresh copy of it.
rm -rf "$ROOTFS"
mkdir -p "$ROOTFS"
tar -C "$ROOTFS" -xf "$BASE"
log INSTALL "make install DESTDIR=${ROOTFS#"$REPO"/} PREFIX=/usr"
make --no-print-directory -C "$REPO" -s install BUILD="$BUILD" DESTDIR="$ROOTFS" PREFIX=/usr \
	>/dev/null
install -D -m 0644 "$REPO/deploy/xdpong.conf" "$ROOTFS/etc/xdpong/xdpong.conf"
# /run/xdpong: where the DaemonSet writes the node's part of the config.
install -d -m 0755 "$ROOTFS/run/xdpong"

# 3. The image's binary, run by the image's loader and libraries.
if unresolved=$(chroot "$ROOTFS" /usr/bin/ldd /usr/sbin/xdpong 2>&1 | grep 'not found'); then
	die "the image lacks libraries build/xdpong needs: $unresolved"
fi
v=$(chroot "$ROOTFS" /usr/sbin/xdpong --version) ||
	die "'xdpong --version' fails in the image: is build/xdpong built on Debian 12?"
log CHECK "$v"
chroot "$ROOTFS" /usr/sbin/xdpong config check /etc/xdpong/xdpong.conf >/dev/null ||
	die "'xdpong config check /etc/xdpong/xdpong.conf' fails in the image"
log CHECK "config check /etc/xdpong/xdpong.conf"
if [ "$ROOTFS_ONLY" = 1 ]; then
	log ROOTFS "${ROOTFS#"$REPO"/} (no image: --rootfs-only)"
	exit 0
fi

# 4. The image. The entrypoint is the binary, so `IMAGE status eth0` works;
# the default command serves the config. SIGTERM detaches (the kernel
# answers again); see deploy/README.md for SIGUSR1 and restarts.
log IMAGE "podman import -> $TAG"
tar -C "$ROOTFS" --numeric-owner -c . |
	podman import \
		--change 'ENTRYPOINT ["/usr/sbin/xdpong"]' \
		--change 'CMD ["run", "--config", "/etc/xdpong/xdpong.conf"]' \
		--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
		--change 'STOPSIGNAL SIGTERM' \
		--change 'EXPOSE 9435/tcp' \
		--change "LABEL org.opencontainers.image.title=xdpong" \
		--change "LABEL org.opencontainers.image.description=XDP ICMP echo responder" \
		--change "LABEL org.opencontainers.image.version=$VERSION" \
		--change "LABEL org.opencontainers.image.licenses=GPL-2.0" \
		--change "LABEL org.opencontainers.image.base.name=debian:$SUITE" \
		--message "xdpong $VERSION on Debian $SUITE (deploy/build-image.sh)" \
		- "$TAG" >"$OUT/podman.log" 2>&1 ||
	{ tail -n 20 "$OUT/podman.log" >&2; die "podman import failed (log: $OUT/podman.log)"; }
if [ -n "$OUTPUT" ]; then
	rm -f "$OUTPUT"
	podman save --format oci-archive -o "$OUTPUT" "$TAG" >/dev/null 2>&1 ||
		die "podman save -o $OUTPUT failed"
	log SAVE "$OUTPUT (OCI archive)"
fi
log DONE "$TAG ($(podman image inspect --format '{{.Size}}' "$TAG" |
	awk '{ printf "%.0f MB", $1 / 1e6 }'))"
