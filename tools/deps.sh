#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what xdpong needs to build and test, on Debian 12 (or any
# apt-based system), as root. Idempotent: when everything is present it
# only checks (dpkg-query, well under a second) and says so; otherwise it
# runs `apt-get update` once and installs just the missing packages.
# Prints one line of what it did. Used by `make test`, `make demo` and
# `make deps`.
#
# Usage: tools/deps.sh [--vm | --check]
#   --vm     the VM harness's packages instead (tools/vm/deps.sh, make test)
#   --check  install nothing, need no root: probe the commands and headers
#            that `make` uses (CC, CLANG, BPFTOOL, RST2MAN and CPPFLAGS as
#            make passes them), say nothing and exit 0 when all are there,
#            else name the missing Debian packages and how to get them,
#            exit 1. The Makefile runs it before the first compile.

set -euo pipefail

# Build: compilers, BPF toolchain, libraries (json-c for JSON output,
# libsystemd for sd_notify, libinih for the config file, libmicrohttpd
# for --metrics-listen), python3-docutils (rst2man: xdpong(8) from
# man/xdpong.8.rst). Tests and demo: iproute2
# (ip netns, veth), ping, bpftool, jq, nsenter/runuser/setpriv
# (util-linux), timeout (coreutils), sysctl (procps), ethtool; strace
# (kill_loader stops the loader at chosen syscalls), libFuzzer's runtime
# (parser fuzzing), the Prometheus parser (metrics tests), man-db and
# groff-base (man page test), bash-completion (completion test); iperf3
# (make bench: TCP throughput through the veth pair with and without XDP);
# xdp-tools (xdp-filter and xdp-loader: the programs xdpong shares an
# interface with in libxdp's dispatcher, netns/dispatcher). The Debian
# package (make deb, install/deb): build-essential (dpkg-buildpackage
# checks for it), debhelper, dpkg-dev, and lintian to check the result;
# systemd.pc, which debian/rules asks for the unit directory, is in the
# systemd package on Debian 12. clang-format: tests/style checks the
# layout against .clang-format. tshark: netns/stamp reads xdpong's STAMP
# replies through Wireshark's TWAMP-Test dissector (Debian 12's 4.0 has
# none for STAMP; unauthenticated STAMP is TWAMP-Test's layout).
# prometheus: see NO_RECOMMENDS. The DaemonSet's pod
# (tests/deploy/podman.sh): podman (`kube play`), runc (the runtime it runs
# on: crun cannot set the rlimits this sandbox allows), python3-yaml (the
# manifest read), and busybox-static (its wget stands in for the curl
# podman's httpGet probes run inside the container).
PACKAGES=(
	make gcc libc6-dev clang llvm pkg-config
	libbpf-dev libxdp-dev libelf-dev zlib1g-dev libjson-c-dev libsystemd-dev
	libinih-dev libmicrohttpd-dev python3-docutils
	bpftool iproute2 iputils-ping ethtool jq
	util-linux coreutils procps strace libclang-rt-dev
	python3-prometheus-client man-db groff-base bash-completion iperf3 xdp-tools
	clang-format tshark
	build-essential debhelper dpkg-dev lintian
	prometheus
	podman runc python3-yaml busybox-static
)
# Of PACKAGES, those installed without their recommends. prometheus gives
# promtool (tests/prom/rules.sh checks and unit-tests deploy/prometheus/)
# and the server tests/prom/server.sh starts; it would recommend
# prometheus-node-exporter and its collectors (ipmitool, smartmontools,
# nvme-cli: 22 more packages). Without them it is 12 packages, about 22 MB
# to fetch and 325 MB installed, 218 MB of it libjs-moment-timezone (its web
# UI's JavaScript is in its Depends). Its postinst starts a server with
# Debian's config on *:9090; the tests start their own, so when this script
# installs it, it stops that one and disables it at boot.
NO_RECOMMENDS=(prometheus)

# The VM harness (tools/vm/): qemu-system-x86 (the VM; its 9p and
# virtio-net devices), busybox-static (the initramfs's only program), kmod
# (depmod on the host for the unpacked kernels, modprobe in the guest from
# the shared root), cpio (the initramfs archive), xz-utils and zstd
# (decompressing modules for busybox's insmod), iproute2 (ss: free UDP
# ports for --nics), mmdebstrap (the Debian 12 root of systemd-guest.sh, the
# guest whose init is systemd). Without recommends: qemu-system-x86 would
# bring a GUI, firmware and more.
# What `make` needs, as "probe package": cmd:NAME is a command on PATH,
# hdr:PATH a header the C compiler finds. Probed rather than asked of
# dpkg, so that a toolchain installed another way counts too.
BUILD_NEEDS=(
	"cmd:${CC:-cc} gcc"
	"cmd:${CLANG:-clang} clang"
	"cmd:${BPFTOOL:-bpftool} bpftool"
	"cmd:${RST2MAN:-rst2man} python3-docutils"
	"hdr:stdio.h libc6-dev"
	"hdr:bpf/bpf_helpers.h libbpf-dev"
	"hdr:xdp/libxdp.h libxdp-dev"
	"hdr:libelf.h libelf-dev"
	"hdr:zlib.h zlib1g-dev"
	"hdr:json-c/json.h libjson-c-dev"
	"hdr:systemd/sd-daemon.h libsystemd-dev"
	"hdr:ini.h libinih-dev"
	"hdr:microhttpd.h libmicrohttpd-dev"
)

# has_header PATH: the C compiler finds #include <PATH> (without one, the
# usual include directories have it).
has_header()
{
	if command -v "${CC:-cc}" >/dev/null 2>&1; then
		# shellcheck disable=SC2086 # CPPFLAGS is a list of flags
		printf '#include <%s>\n' "$1" | "${CC:-cc}" ${CPPFLAGS:-} -E -x c - >/dev/null 2>&1
		return
	fi
	compgen -G "/usr/include/$1" >/dev/null || compgen -G "/usr/include/*/$1" >/dev/null ||
		compgen -G "/usr/local/include/$1" >/dev/null
}

# check_build: the packages of BUILD_NEEDS whose probe fails, named.
check_build()
{
	local need probe pkg missing=() all_headers=()

	for need in "${BUILD_NEEDS[@]}"; do
		[[ $need == hdr:* ]] && all_headers+=("${need%% *}")
	done
	# One compiler run when every header is there (the usual case).
	# shellcheck disable=SC2086 # CPPFLAGS is a list of flags
	if command -v "${CC:-cc}" >/dev/null 2>&1 &&
		printf '#include <%s>\n' "${all_headers[@]#hdr:}" |
		"${CC:-cc}" ${CPPFLAGS:-} -E -x c - >/dev/null 2>&1; then
		all_headers=()
	fi
	for need in "${BUILD_NEEDS[@]}"; do
		probe=${need%% *} pkg=${need##* }
		case $probe in
		cmd:*) command -v "${probe#cmd:}" >/dev/null 2>&1 && continue ;;
		hdr:*)
			[ "${#all_headers[@]}" -eq 0 ] && continue
			has_header "${probe#hdr:}" && continue
			;;
		esac
		[[ " ${missing[*]} " == *" $pkg "* ]] || missing+=("$pkg")
		echo "deps: missing ${probe#*:} (Debian package $pkg)" >&2
	done
	[ "${#missing[@]}" -eq 0 ] && return 0
	echo "deps: to build, install: ${missing[*]}" >&2
	echo "deps: as root, 'tools/deps.sh' (or 'make deps') installs them" \
		"and what the tests need" >&2
	return 1
}

WHAT="build and test"
INSTALL_OPTS=()
if [ "${1:-}" = --check ]; then
	check_build
	exit
elif [ "${1:-}" = --vm ]; then
	PACKAGES=(qemu-system-x86 busybox-static kmod cpio xz-utils zstd iproute2 mmdebstrap)
	WHAT="VM harness"
	INSTALL_OPTS=(--no-install-recommends)
elif [ $# -gt 0 ]; then
	echo "usage: tools/deps.sh [--vm | --check]" >&2
	exit 2
fi


die()
{
	echo "tools/deps.sh: $*" >&2
	exit 1
}

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
	die "this system has no apt-get/dpkg (Debian/Ubuntu only); install by hand: ${PACKAGES[*]}"
fi
if [ "$(id -u)" -ne 0 ]; then
	die "must run as root to install packages and to run the tests (try: sudo make test)"
fi

# One dpkg-query for all: installed packages print "ii <name>".
installed=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' "${PACKAGES[@]}" 2>/dev/null |
	awk '$1 == "ii" { print $2 }' || true)
missing=()
for p in "${PACKAGES[@]}"; do
	grep -qxF "$p" <<<"$installed" || missing+=("$p")
done

if [ "${#missing[@]}" -eq 0 ]; then
	echo "deps: all ${#PACKAGES[@]} $WHAT packages present, nothing to install"
	exit 0
fi

echo "deps: installing ${#missing[@]} missing $WHAT packages: ${missing[*]}"
log=$(mktemp /tmp/xdpong-deps.XXXXXX)
trap 'rm -f "$log"' EXIT
export DEBIAN_FRONTEND=noninteractive
if ! apt-get update >"$log" 2>&1; then
	tail -n 20 "$log" >&2
	die "apt-get update failed (see above)"
fi
# apt_install [OPTION...] PACKAGE...: into the log; on failure its tail, and stop.
apt_install()
{
	apt-get install -y "${INSTALL_OPTS[@]}" "$@" >>"$log" 2>&1 && return
	tail -n 20 "$log" >&2
	die "apt-get install $* failed (see above)"
}
plain=() bare=()
for p in "${missing[@]}"; do
	if [[ " ${NO_RECOMMENDS[*]} " == *" $p "* ]]; then bare+=("$p"); else plain+=("$p"); fi
done
[ "${#plain[@]}" -eq 0 ] || apt_install "${plain[@]}"
[ "${#bare[@]}" -eq 0 ] || apt_install --no-install-recommends "${bare[@]}"
# The server prometheus's postinst started: stopped, and off at boot.
if [[ " ${bare[*]} " == *" prometheus "* ]]; then
	if [ -d /run/systemd/system ]; then
		systemctl disable --now prometheus.service >>"$log" 2>&1 || true
	else
		invoke-rc.d prometheus stop >>"$log" 2>&1 || true
		update-rc.d prometheus disable >>"$log" 2>&1 || true
	fi
fi
