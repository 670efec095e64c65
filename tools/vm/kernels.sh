#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian's stock kernels for the VM harness (tools/vm/run.sh): download
# once, unpack, keep in a cache.
#
# Usage: tools/vm/kernels.sh fetch VERSION...   download and unpack (if not cached)
#        tools/vm/kernels.sh path VERSION       print the unpacked directory
#                                               (fetching it first if needed)
#        tools/vm/kernels.sh list               what is cached
#        tools/vm/kernels.sh --help
#
# VERSION is 5.10 (bullseye), 6.1 (bookworm) or 6.12 (trixie), or one of
# those codenames. The package is the newest linux-image-*-amd64-unsigned
# that the suite's linux-image-amd64 metapackage points at (the suite,
# its -updates and, when the system has one, its -security suite), resolved
# through a private apt state, so the system's sources and package lists
# are never touched. The mirror is the system's own Debian mirror, taken
# from apt's configuration (apt-get indextargets); XDPONG_VM_MIRROR and
# XDPONG_VM_SECURITY_MIRROR override it.
#
# Cache: ${XDPONG_VM_CACHE:-/var/cache/xdpong-vm}
#   apt/<suite>/       private apt state (sources, lists, archives)
#   debs/              the downloaded .deb files
#   kernels/<suite>/   unpacked: vmlinuz, lib/modules/<release>/, info, and
#                      vmlinux (vmlinuz decompressed, booted directly: faster)
# `path` prints kernels/<suite>; its "info" file has the lines
# package=, version=, release= (uname -r). A cached kernel is used as is:
# delete its directory (or XDPONG_VM_REFRESH=1) to look for a newer one.

set -u

PROG=tools/vm/kernels.sh
CACHE=${XDPONG_VM_CACHE:-/var/cache/xdpong-vm}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

die()
{
	echo "$PROG: $*" >&2
	exit 1
}

usage()
{
	sed -n '4,/^$/{ s/^# \{0,1\}//; p }' "$0" | sed '$d'
}

# suite_of VERSION: the Debian codename for a kernel series.
suite_of()
{
	case $1 in
	5.10 | bullseye) echo bullseye ;;
	6.1 | bookworm) echo bookworm ;;
	6.12 | trixie) echo trixie ;;
	*) return 1 ;;
	esac
}

#
# The system's Debian mirror: the base URI of the index target whose
# release is a bare codename (not -updates, not -security). The security
# mirror likewise, from a *-security release. Only package lists apt
# already knows about are consulted; nothing is fetched.
#
system_mirror()
{
	local kind=$1

	if [ "$kind" = main ] && [ -n "${XDPONG_VM_MIRROR:-}" ]; then
		echo "$XDPONG_VM_MIRROR"
		return 0
	fi
	if [ "$kind" = security ] && [ -n "${XDPONG_VM_SECURITY_MIRROR:-}" ]; then
		echo "$XDPONG_VM_SECURITY_MIRROR"
		return 0
	fi
	apt-get indextargets --format '$(REPO_URI) $(RELEASE) $(TARGET_OF)' 2>/dev/null |
		awk -v kind="$kind" '
			$3 != "deb" { next }
			kind == "main" && $2 ~ /^[a-z]+$/ { print $1; exit }
			kind == "security" && $2 ~ /^[a-z]+-security$/ { print $1; exit }'
}

# apt_run SUITE ARGS...: apt-get/apt-cache with the suite's private state.
apt_opts()
{
	local st=$CACHE/apt/$1

	printf '%s\n' \
		-o "Dir::Etc::SourceList=$st/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null \
		-o "Dir::State::Lists=$st/lists" \
		-o "Dir::State::Status=$st/status" \
		-o "Dir::Cache=$st/cache" \
		-o "Dir::Cache::Archives=$CACHE/debs" \
		-o APT::Architecture=amd64 \
		-o APT::Architectures=amd64 \
		-o Acquire::Languages=none
}

apt_update()
{
	local suite=$1 st=$CACHE/apt/$1 main sec log

	main=$(system_mirror main)
	[ -n "$main" ] ||
		die "no Debian mirror in apt's configuration" \
			"(set XDPONG_VM_MIRROR=http://.../debian)"
	sec=$(system_mirror security)
	mkdir -p "$st/lists/partial" "$st/cache/archives/partial" "$CACHE/debs/partial" || exit 1
	: >"$st/status"
	{
		echo "deb [signed-by=$KEYRING] ${main%/} $suite main"
		echo "deb [signed-by=$KEYRING] ${main%/} $suite-updates main"
		[ -n "$sec" ] && echo "deb [signed-by=$KEYRING] ${sec%/} $suite-security main"
	} >"$st/sources.list"
	log=$st/update.log
	# shellcheck disable=SC2046 # apt_opts prints one option word a line
	if ! apt-get $(apt_opts "$suite") update >"$log" 2>&1; then
		tail -n 20 "$log" >&2
		die "apt-get update for $suite failed (see above)"
	fi
}

#
# The concrete kernel package linux-image-amd64 depends on in SUITE, as
# its -unsigned variant when that exists: prints "NAME VERSION".
#
resolve_package()
{
	local suite=$1 dep name ver

	# shellcheck disable=SC2046
	dep=$(apt-cache $(apt_opts "$suite") depends linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }')
	[ -n "$dep" ] || die "$suite: linux-image-amd64 has no linux-image-<abi> dependency"
	name=$dep
	case $dep in
	*-unsigned) ;;
	*)
		# shellcheck disable=SC2046
		if apt-cache $(apt_opts "$suite") show "$dep-unsigned" >/dev/null 2>&1; then
			name=$dep-unsigned
		fi
		;;
	esac
	# shellcheck disable=SC2046
	ver=$(apt-cache $(apt_opts "$suite") policy "$name" | awk '$1 == "Candidate:" { print $2 }')
	[ -n "$ver" ] && [ "$ver" != "(none)" ] || die "$suite: no candidate for $name"
	echo "$name $ver"
}

fetch_one()
{
	local suite dir tmp name ver deb t0 size release mods

	suite=$(suite_of "$1") ||
		die "unknown kernel '$1' (5.10, 6.1, 6.12 or bullseye, bookworm, trixie)"
	dir=$CACHE/kernels/$suite
	if [ -f "$dir/info" ] && [ "${XDPONG_VM_REFRESH:-0}" != 1 ]; then
		return 0
	fi
	t0=$EPOCHREALTIME
	apt_update "$suite"
	read -r name ver < <(resolve_package "$suite")
	[ -n "${name:-}" ] || exit 1
	# apt-get download writes into the current directory; the file name
	# escapes the version's colon (none for kernels, but be safe).
	deb=$CACHE/debs/${name}_${ver//:/%3a}_amd64.deb
	if [ ! -s "$deb" ]; then
		echo "$PROG: downloading $name $ver ($suite)" >&2
		# shellcheck disable=SC2046
		(cd "$CACHE/debs" && apt-get $(apt_opts "$suite") download "$name=$ver") \
				>"$CACHE/apt/$suite/download.log" 2>&1 ||
			{ tail -n 20 "$CACHE/apt/$suite/download.log" >&2; \
				die "download of $name $ver failed"; }
		[ -s "$deb" ] || die "download of $name $ver left no $deb"
	fi
	tmp=$(mktemp -d "$CACHE/kernels/.unpack-$suite.XXXXXX") || exit 1
	# shellcheck disable=SC2064 # expand now: the trap must remove this dir
	trap "rm -rf -- '$tmp'" EXIT
	dpkg-deb -x "$deb" "$tmp/root" || die "cannot unpack $deb"
	# Modules are in lib/modules (bullseye, bookworm) or, with the merged
	# /usr, usr/lib/modules (trixie).
	mods=$tmp/root/lib/modules
	[ -d "$mods" ] || mods=$tmp/root/usr/lib/modules
	release=$(find "$mods" -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null | head -n 1)
	[ -n "$release" ] && [ -f "$tmp/root/boot/vmlinuz-$release" ] ||
		die "$deb has no boot/vmlinuz-<release> with [usr/]lib/modules/<release>"
	mkdir -p "$tmp/k/lib/modules" || exit 1
	mv "$tmp/root/boot/vmlinuz-$release" "$tmp/k/vmlinuz" &&
		mv "$mods/$release" "$tmp/k/lib/modules/$release" || exit 1
	# The guest's modprobe reads modules.dep*, which the package does not
	# ship (its postinst runs depmod): build them with the host's depmod.
	PATH=$PATH:/sbin:/usr/sbin depmod -b "$tmp/k" "$release" ||
		die "depmod for $release failed (is kmod installed? tools/vm/deps.sh)"
	size=$(stat -c %s "$deb")
	printf 'package=%s\nversion=%s\nrelease=%s\nsuite=%s\ndeb_bytes=%s\n' \
		"$name" "$ver" "$release" "$suite" "$size" >"$tmp/k/info"
	extract_vmlinux "$tmp/k"
	rm -rf -- "$dir"
	mv "$tmp/k" "$dir" || exit 1
	rm -rf -- "$tmp"
	trap - EXIT
	echo "$PROG: $suite: $name $ver ($((size / 1048576)) MiB) in $(awk -v a="$t0" \
		-v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')s -> $dir" >&2
}

# One fetch at a time per cache (runs from several worktrees share it):
# the lock is held until this script exits.
lock()
{
	exec 9>"$CACHE/.lock" || die "cannot open $CACHE/.lock"
	flock 9 || die "cannot lock $CACHE/.lock"
}

#
# DIR/vmlinux: the uncompressed kernel, decompressed from DIR/vmlinuz
# (bullseye's and bookworm's payload is xz, trixie's zstd), when it can
# be booted directly (its PVH entry note, XEN_ELFNOTE_PHYS32_ENTRY).
# Under TCG, the kernel's own decompression takes about 4 of a boot's
# 12-18 seconds; QEMU boots a PVH ELF in well under one. Leaves
# DIR/vmlinux.none when there is none, so it is tried once.
#
extract_vmlinux()
{
	local dir=$1 magic off tmp

	[ -f "$dir/vmlinux" ] || [ -f "$dir/vmlinux.none" ] && return 0
	tmp=$dir/vmlinux.tmp
	for magic in '\xfd7zXZ\x00' '\x28\xb5\x2f\xfd'; do
		off=$(LC_ALL=C grep -obUaP "$magic" "$dir/vmlinuz" 2>/dev/null |
			head -n 1 | cut -d: -f1)
		[ -n "$off" ] || continue
		case $magic in
		*7zXZ*) tail -c +$((off + 1)) "$dir/vmlinuz" |
			xz -dc --single-stream >"$tmp" 2>/dev/null ;;
		*) tail -c +$((off + 1)) "$dir/vmlinuz" | zstd -qdc >"$tmp" 2>/dev/null ;;
		esac
		if [ "$(head -c 4 "$tmp" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] &&
			readelf -n "$tmp" 2>/dev/null | grep -q 'Xen.*(0x00000012)'; then
			mv "$tmp" "$dir/vmlinux"
			return 0
		fi
	done
	rm -f "$tmp"
	: >"$dir/vmlinux.none"
}

main()
{
	local cmd=${1:-} v suite

	case $cmd in
	-h | --help | help)
		usage
		exit 0
		;;
	fetch)
		shift
		[ $# -gt 0 ] || die "fetch: which kernel? (5.10, 6.1, 6.12)"
		command -v apt-get >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1 ||
			die "needs apt-get and dpkg-deb (Debian/Ubuntu)"
		mkdir -p "$CACHE/kernels" "$CACHE/debs" ||
			die "cannot create $CACHE (root? set XDPONG_VM_CACHE)"
		lock
		for v in "$@"; do
			fetch_one "$v"
		done
		;;
	path)
		[ $# -eq 2 ] || die "path: exactly one kernel (5.10, 6.1, 6.12)"
		suite=$(suite_of "$2") || die "unknown kernel '$2' (5.10, 6.1, 6.12)"
		if [ ! -f "$CACHE/kernels/$suite/info" ]; then
			mkdir -p "$CACHE/kernels" "$CACHE/debs" || die "cannot create $CACHE"
			lock
			fetch_one "$2" >&2
		fi
		# Caches from before vmlinux was extracted get it now.
		if [ ! -f "$CACHE/kernels/$suite/vmlinux" ] &&
			[ ! -f "$CACHE/kernels/$suite/vmlinux.none" ]; then
			lock
			extract_vmlinux "$CACHE/kernels/$suite"
		fi
		echo "$CACHE/kernels/$suite"
		;;
	list)
		for v in "$CACHE"/kernels/*/info; do
			[ -f "$v" ] || continue
			printf '%-9s %s\n' "$(basename "$(dirname "$v")")" "$(paste -sd ' ' "$v")"
		done
		;;
	*)
		usage >&2
		exit 2
		;;
	esac
}

main "$@"
