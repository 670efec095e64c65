#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The host's half of the systemd guest suite (tests/vm/systemd_6.1.sh,
# systemd_6.12.sh): builds the package twice, as the tree's version and
# as a newer one (VERSION+vmtest1, for the upgrade step), then boots
# tools/vm/systemd-guest.sh on the kernel named and runs suite.sh there
# with both packages. The two packages are built once per state of the
# tree (build/vm-systemd/debs/, keyed by a hash of the tree and its
# uncommitted changes), so the second kernel reuses the first's.
#
# Usage: tests/vm/systemd/host.sh KERNEL      (6.1 or 6.12; as root)
# Logs: build/vm-logs/systemd-KERNEL/ (console.log, output.log).
# XDPT_VM=0 skips it, as it does the kernel matrix.
set -u
cd "$(dirname "$0")/../../.." || exit 1
K=${1:?usage: tests/vm/systemd/host.sh KERNEL}

if [ "${XDPT_VM:-1}" = 0 ]; then
	echo "SKIP: the VM tests are off (XDPT_VM=0)"
	exit 77
fi
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root (QEMU, mmdebstrap)"; exit 77; }

die()
{
	echo "FAIL: systemd_$K: $*"
	exit 1
}

OLD=$(tools/version.sh) || die "no version (tools/version.sh)"
NEW=$OLD+vmtest1
DEBS=$(tools/test-debs.sh) || die "cannot build the packages (tools/test-debs.sh)"
payload=build/vm-systemd/payload-$K
rm -rf "$payload"
mkdir -p "$payload" || die "cannot create $payload"
cp tests/vm/systemd/suite.sh "$payload/" &&
	cp "$DEBS"/xdpong_"$OLD"_*.deb "$DEBS"/xdpong_"$NEW"_*.deb "$payload/" &&
	echo "$OLD $NEW" >"$payload/versions" || die "cannot fill $payload"
tools/vm/systemd-guest.sh --kernel "$K" --payload "$payload" --timeout 1200 \
	--logs "build/vm-logs/systemd-$K" -- ./suite.sh
rc=$?
if [ "$rc" -ne 0 ]; then
	echo "logs: build/vm-logs/systemd-$K/ (console.log: the kernel and systemd;" \
		"output.log: the suite)"
	# The suite's verdict last, where a shortened report still shows it.
	grep -a -E '^(FAIL|== )' "build/vm-logs/systemd-$K/output.log" 2>/dev/null | tail -n 2
fi
exit "$rc"
