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
# Usage: tools/deps.sh [--vm]
#   --vm   the VM harness's packages instead (tools/vm/deps.sh, make test)

set -euo pipefail

# Build: compilers, BPF toolchain, libraries (json-c for JSON output,
# libsystemd for sd_notify, libinih for the config file, libmicrohttpd
# for --metrics-listen). Tests and demo: iproute2
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
# systemd package on Debian 12.
PACKAGES=(
	make gcc libc6-dev clang llvm pkg-config
	libbpf-dev libxdp-dev libelf-dev zlib1g-dev libjson-c-dev libsystemd-dev
	libinih-dev libmicrohttpd-dev
	bpftool iproute2 iputils-ping ethtool jq
	util-linux coreutils procps strace libclang-rt-dev
	python3-prometheus-client man-db groff-base bash-completion iperf3 xdp-tools
	build-essential debhelper dpkg-dev lintian
)

# The VM harness (tools/vm/): qemu-system-x86 (the VM; its 9p and
# virtio-net devices), busybox-static (the initramfs's only program), kmod
# (depmod on the host for the unpacked kernels, modprobe in the guest from
# the shared root), cpio (the initramfs archive), xz-utils and zstd
# (decompressing modules for busybox's insmod), iproute2 (ss: free UDP
# ports for --nics), mmdebstrap (the Debian 12 root of systemd-guest.sh, the
# guest whose init is systemd). Without recommends: qemu-system-x86 would
# bring a GUI, firmware and more.
WHAT="build and test"
INSTALL_OPTS=()
if [ "${1:-}" = --vm ]; then
	PACKAGES=(qemu-system-x86 busybox-static kmod cpio xz-utils zstd iproute2 mmdebstrap)
	WHAT="VM harness"
	INSTALL_OPTS=(--no-install-recommends)
elif [ $# -gt 0 ]; then
	echo "usage: tools/deps.sh [--vm]" >&2
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
if ! apt-get install -y "${INSTALL_OPTS[@]}" "${missing[@]}" >>"$log" 2>&1; then
	tail -n 20 "$log" >&2
	die "apt-get install ${missing[*]} failed (see above)"
fi
