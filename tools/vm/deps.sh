#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what the VM harness (tools/vm/) needs, on Debian 12 (or any
# apt-based system), as root; tools/deps.sh's style: checks only when
# everything is present, else one `apt-get update` and the missing ones.
#
# Usage: tools/vm/deps.sh
#
# qemu-system-x86 (the VM; its 9p and virtio-net devices), busybox-static
# (the initramfs's only program), kmod (depmod on the host for the
# unpacked kernels, modprobe in the guest from the shared root), cpio
# (the initramfs archive), xz-utils and zstd (decompressing modules for
# busybox's insmod), iproute2 (ss: free UDP ports for --nics).

set -euo pipefail

PACKAGES=(qemu-system-x86 busybox-static kmod cpio xz-utils zstd iproute2)

die()
{
	echo "tools/vm/deps.sh: $*" >&2
	exit 1
}

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
	die "this system has no apt-get/dpkg (Debian/Ubuntu only); install by hand: ${PACKAGES[*]}"
fi

installed=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' "${PACKAGES[@]}" 2>/dev/null |
	awk '$1 == "ii" { print $2 }' || true)
missing=()
for p in "${PACKAGES[@]}"; do
	grep -qxF "$p" <<<"$installed" || missing+=("$p")
done

if [ "${#missing[@]}" -eq 0 ]; then
	echo "vm deps: all ${#PACKAGES[@]} VM harness packages present, nothing to install"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	die "must run as root to install: ${missing[*]}"
fi

echo "vm deps: installing ${#missing[@]} missing packages: ${missing[*]}"
log=$(mktemp /tmp/xdpong-vm-deps.XXXXXX)
trap 'rm -f "$log"' EXIT
export DEBIAN_FRONTEND=noninteractive
if ! apt-get update >"$log" 2>&1; then
	tail -n 20 "$log" >&2
	die "apt-get update failed (see above)"
fi
# No recommends: qemu-system-x86 would bring a GUI, firmware and more.
if ! apt-get install -y --no-install-recommends "${missing[@]}" >>"$log" 2>&1; then
	tail -n 20 "$log" >&2
	die "apt-get install ${missing[*]} failed (see above)"
fi
