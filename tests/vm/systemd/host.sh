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

DEBS=build/vm-systemd/debs
OLD=$(tools/version.sh) || die "no version (tools/version.sh)"
NEW=$OLD+vmtest1
# What the packages are made of: the committed tree, the changes to it,
# and the files git does not know yet.
key=$({
	git rev-parse HEAD^{tree}
	git diff HEAD
	git ls-files -o --exclude-standard -z | xargs -0 -r sha256sum
} 2>/dev/null | sha256sum | cut -c1-16)
# The other kernel's run may be building them now (tests/run.sh runs the
# guests side by side): one builds, the other waits and reuses.
mkdir -p build/vm-systemd || die "cannot create build/vm-systemd"
exec 9>build/vm-systemd/.lock
flock -w 900 9 || die "another run holds build/vm-systemd/.lock"
if [ "$(cat "$DEBS/key" 2>/dev/null)" != "$key" ] ||
	! ls "$DEBS"/xdpong_"$OLD"_*.deb "$DEBS"/xdpong_"$NEW"_*.deb >/dev/null 2>&1; then
	rm -rf "$DEBS"
	mkdir -p "$DEBS" || die "cannot create $DEBS"
	for v in "$OLD" "$NEW"; do
		make --no-print-directory -s deb DEB_VERSION="$v" DEB_OUT="$DEBS" BUILD=build/vm-systemd/build >"$DEBS/make-$v.log" 2>&1 ||
			{ tail -n 30 "$DEBS/make-$v.log"; die "make deb DEB_VERSION=$v failed"; }
	done
	echo "$key" >"$DEBS/key"
	echo "packages built: $(cd "$DEBS" && ls xdpong_*.deb | tr '\n' ' ')"
else
	echo "packages reused (same tree): $(cd "$DEBS" && ls xdpong_*.deb | tr '\n' ' ')"
fi

flock -u 9
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
	echo "logs: build/vm-logs/systemd-$K/ (console.log: the kernel and systemd; output.log: the suite)"
	# The suite's verdict last, where a shortened report still shows it.
	grep -a -E '^(FAIL|== )' "build/vm-logs/systemd-$K/output.log" 2>/dev/null | tail -n 2
fi
exit "$rc"
