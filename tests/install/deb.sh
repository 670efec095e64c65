#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian package (`make deb`, debian/): what is in it, what its
# maintainer scripts do, and lintian's verdict.
#
#  1. xdpong_VERSION_amd64.deb, and the same tree as VERSION+vmtest1 (make
#     deb DEB_VERSION=...) for the upgrade, from tools/test-debs.sh: built
#     once per state of the tree, and shared with the systemd guest.
#  2. dpkg-deb: the files and their modes, the units' ExecStart, the
#     conffiles, Depends by Debian library names, the version (that of
#     debian/changelog, of the packaged binary and of build/xdpong), and
#     the configuration it ships, which serves nothing.
#  3. The maintainer scripts, run with stand-ins for deb-systemd-invoke,
#     systemctl and deb-systemd-helper that log what they are asked, in a
#     mount namespace whose /run says systemd runs (or not): a fresh
#     install starts nothing; an upgrade try-restarts xdpong.service and
#     every xdpong@ instance and stops nothing, in prerm or anywhere;
#     remove stops both; no systemd, a chroot or DPKG_ROOT skip what they
#     must.
#  4. prerm remove for real, in ns resp (its own bpffs): the packaged
#     xdpong attached by hand to xr<id>, and the stale pins of a veth
#     xd<id> deleted under it, are detached and removed; nothing is left
#     under /sys/fs/bpf/xdpong.
#  5. dpkg --root (scripts outside a chroot, DPKG_ROOT set): install
#     enables nothing; an upgrade keeps an edited conffile; purge removes
#     /etc/xdpong and the links `systemctl enable xdpong@IFACE` made, and
#     keeps a file the operator made.
#  6. lintian (this system's) on both builds' .changes: no error, no
#     warning.
#
#   ns ping                    ns resp (step 4: own /run, own bpffs)
#  +------------------+ veth  +---------------------------------------+
#  | xp<id> 10.99.0.1 |-------| xr<id> 10.99.0.2; xd<id>-xe<id>, gone  |
#  +------------------+       +---------------------------------------+
#
# xdpt-timeout: 600
. "$(dirname "$0")/../lib/lib.sh"

xdpt_require_all
xdpt_require_cmd dpkg-deb dpkg-buildpackage dh lintian unshare pkg-config git
xdpt_tmpdir

version=$("$XDPT_REPO/tools/version.sh")
next=$version+vmtest1
# As an extended regular expression: the version's dots and plus, literal.
ere() { sed 's/[][\.*^$+?(){}|/]/\\&/g' <<<"$1"; }
UNITDIR=$(pkg-config --variable=systemdsystemunitdir systemd)
[ -n "$UNITDIR" ] ||
	xdpt_skip "no systemd.pc (pkg-config systemd): the package cannot be built here"

xdpt_log "1. the packages (tools/test-debs.sh)"
debs=$(timeout 800 "$XDPT_REPO/tools/test-debs.sh" 2>"$XDPT_TMP/make-deb.log") ||
	xdpt_fail "tools/test-debs.sh failed: $(tail -n 30 "$XDPT_TMP/make-deb.log")"
xdpt_log "$(tail -n 1 "$XDPT_TMP/make-deb.log")"
DEB=$debs/xdpong_${version}_amd64.deb
NEXT=$debs/xdpong_${next}_amd64.deb
[ -f "$DEB" ] || xdpt_fail "no $DEB from tools/test-debs.sh"
[ -f "$NEXT" ] || xdpt_fail "no $NEXT from tools/test-debs.sh"
mkdir -p "$XDPT_TMP/next"

xdpt_log "2. what is in it"
field() { dpkg-deb -f "$1" "$2"; }
xdpt_assert_eq xdpong "$(field "$DEB" Package)" "Package"
xdpt_assert_eq "$version" "$(field "$DEB" Version)" "Version (tools/version.sh: debian/changelog)"
xdpt_assert_eq "$next" "$(field "$NEXT" Version)" "Version of the DEB_VERSION build"
xdpt_assert_eq amd64 "$(field "$DEB" Architecture)" "Architecture"
xdpt_assert_eq net "$(field "$DEB" Section)" "Section"
depends=$(field "$DEB" Depends)
# Debian 13 names some of them with t64 (libmicrohttpd12t64).
for lib in libbpf1 libxdp1 libjson-c5 libsystemd0 libinih1 libmicrohttpd12 libc6; do
	xdpt_assert_match "(^|, )$lib(t64)?( |,|$)" "$depends" "Depends names $lib"
done

# Every file (not directory), with its mode and owner. The docs/ pages
# README.md links to come along, each compressed or not by its size
# (dh_compress: over 4 KiB): the .gz is dropped from their names here.
dpkg-deb -c "$DEB" | awk '$1 !~ /^d/ { print $1, $2, $6 }' |
	sed 's|^\(.* \./usr/share/doc/xdpong/docs/.*\)\.gz$|\1|' | sort -k3 >"$XDPT_TMP/files"
{
	for f in docs/*; do
		echo "-rw-r--r-- root/root ./usr/share/doc/xdpong/$f"
	done
	echo "-rw-r--r-- root/root ./etc/default/xdpong"
	echo "-rw-r--r-- root/root ./etc/xdpong/xdpong.conf"
	echo "-rw-r--r-- root/root .$UNITDIR/xdpong.service"
	echo "-rw-r--r-- root/root .$UNITDIR/xdpong@.service"
	echo "-rwxr-xr-x root/root ./usr/sbin/xdpong"
	echo "-rw-r--r-- root/root ./usr/share/bash-completion/completions/xdpong"
	echo "-rw-r--r-- root/root ./usr/share/doc/xdpong/README.md.gz"
	echo "-rw-r--r-- root/root ./usr/share/doc/xdpong/changelog.gz"
	echo "-rw-r--r-- root/root ./usr/share/doc/xdpong/copyright"
	echo "-rw-r--r-- root/root ./usr/share/doc/xdpong/examples/xdpong.conf"
	echo "-rw-r--r-- root/root ./usr/share/lintian/overrides/xdpong"
	echo "-rw-r--r-- root/root ./usr/share/man/man8/xdpong.8.gz"
} | sort -k3 >"$XDPT_TMP/want"
diff -u "$XDPT_TMP/want" "$XDPT_TMP/files" >"$XDPT_TMP/files.diff" ||
	xdpt_fail "the package's files (- expected, + found): $(cat "$XDPT_TMP/files.diff")"

ROOT=$XDPT_TMP/unpacked
dpkg-deb -x "$DEB" "$ROOT"
dpkg-deb -e "$DEB" "$XDPT_TMP/control"
xdpt_assert_eq "$(printf '%s\n' /etc/default/xdpong /etc/xdpong/xdpong.conf)" \
	"$(sort "$XDPT_TMP/control/conffiles")" "conffiles"
UNIT=$ROOT$UNITDIR/xdpong@.service
SVC=$ROOT$UNITDIR/xdpong.service
xdpt_assert_match '^ExecStart=/usr/sbin/xdpong run %I \$XDPONG_OPTS \$XDPONG_IFACE_OPTS$' \
	"$(cat "$UNIT")" "ExecStart of xdpong@.service"
xdpt_assert_match '^ExecStart=/usr/sbin/xdpong run --config /etc/xdpong/xdpong.conf$' \
	"$(cat "$SVC")" "ExecStart of xdpong.service"
xdpt_assert_no_match '@[A-Z]+@' "$(cat "$UNIT" "$SVC")" "placeholders left in the units"
xdpt_assert_match "^\.TH \"?XDPONG\"? 8 \"[^\"]*\" \"xdpong $(ere "$version")\" " \
	"$(zcat "$ROOT/usr/share/man/man8/xdpong.8.gz" | sed -n '/^\.TH /p')" \
	"the man page's version"
xdpt_assert_match '^#XDPONG_OPTS=' "$(cat "$ROOT/etc/default/xdpong")" \
	"/etc/default/xdpong: XDPONG_OPTS, commented out"
xdpt_assert_no_match '^[^#]' "$(cat "$ROOT/etc/default/xdpong")" "/etc/default/xdpong sets nothing"
# The packaged binary, on this system's libraries, and build/xdpong.
xdpt_ok "$ROOT/usr/sbin/xdpong" --version
xdpt_assert_match "^xdpong $(ere "$version") " "$XDPT_OUT" "the packaged xdpong --version"
xdpt_ok "$XDPONG" --version
xdpt_assert_match "^xdpong $(ere "$version") " "$XDPT_OUT" \
	"$XDPONG --version (make, then this test)"
# The shipped configuration names no interface, so the unit's
# ExecStartPre refuses it: xdpong.service can do nothing until it does.
xdpt_rc 1 "$ROOT/usr/sbin/xdpong" config check "$ROOT/etc/xdpong/xdpong.conf"
xdpt_assert_match 'no \[interface NAME\] section' "$XDPT_ERR" \
	"config check of the shipped xdpong.conf"
xdpt_ok "$ROOT/usr/sbin/xdpong" config check "$ROOT/usr/share/doc/xdpong/examples/xdpong.conf"
dpkg-deb -x "$NEXT" "$XDPT_TMP/next/root"
xdpt_ok "$XDPT_TMP/next/root/usr/sbin/xdpong" --version
xdpt_assert_match "^xdpong $(ere "$next") " "$XDPT_OUT" \
	"xdpong --version of the DEB_VERSION=$next build"
[ ! -e "$XDPT_TMP/control/preinst" ] || ! grep -q deb-systemd-invoke "$XDPT_TMP/control/preinst" ||
	xdpt_fail "preinst stops or starts a unit: $(cat "$XDPT_TMP/control/preinst")"

xdpt_log "3. the maintainer scripts, with logging stand-ins for systemd's tools"
STUBS=$XDPT_TMP/stubs
STUB_XDPONG=$XDPT_TMP/stub-xdpong
STUB_LOG=$XDPT_TMP/stub.log
export STUB_LOG
mkdir -p "$STUBS" "$STUB_XDPONG"
for tool in deb-systemd-invoke systemctl deb-systemd-helper; do
	# deb-systemd-helper: "not installed by debian, not enabled", as on a
	# first install; everything else succeeds.
	cat >"$STUBS/$tool" <<-'EOF'
		#!/bin/sh
		echo "${0##*/} $*" >>"$STUB_LOG"
		case "${0##*/} $*" in
		*"debian-installed"* | *"was-enabled"*) exit 1 ;;
		esac
		exit 0
	EOF
done
# xdpong: attached to eth9; the bpffs below holds the pins of gone1.
cat >"$STUB_XDPONG/xdpong" <<-'EOF'
	#!/bin/sh
	echo "xdpong $*" >>"$STUB_LOG"
	[ "$1 $2" = "status --json" ] &&
		echo '{"interfaces":[{"iface":"eth9","ifindex":9,"attached":true}],"stale_pins":[]}'
	exit 0
EOF
chmod +x "$STUBS"/* "$STUB_XDPONG/xdpong"

# script SYSTEMD CHROOT NAME ARGS...: run maintainer script NAME with ARGS
# in a mount namespace whose /run has /run/systemd/system if SYSTEMD is 1,
# and where ischroot says yes if CHROOT is 1, with an empty bpffs
# (a tmpfs) but for /sys/fs/bpf/xdpong/gone1; STUB_OUT: what the stand-ins
# were asked, one line each.
script()
{
	local systemd=$1 chroot=$2 name=$3

	shift 3
	: >"$STUB_LOG"
	cat >"$STUBS/ischroot" <<-EOF
		#!/bin/sh
		exit $((1 - chroot))
	EOF
	chmod +x "$STUBS/ischroot"
	xdpt_run env PATH="$STUBS:$STUB_XDPONG:$PATH" unshare -m sh -c '
		mount -t tmpfs tmpfs /run && mount -t tmpfs tmpfs /sys/fs/bpf || exit 99
		mkdir -p /sys/fs/bpf/xdpong/gone1
		[ "$1" = 1 ] && mkdir -p /run/systemd/system
		shift
		exec sh "$@"' _ "$systemd" "$XDPT_TMP/control/$name" "$@"
	[ "$XDPT_RC" -eq 0 ] || { _xdpt_show_run; xdpt_fail "$name $* exited $XDPT_RC"; }
	STUB_OUT=$(cat "$STUB_LOG")
}
INVOKE='^deb-systemd-invoke'
script 1 0 postinst configure ""
xdpt_assert_no_match "$INVOKE|^deb-systemd-helper enable" "$STUB_OUT" \
	"postinst of a first install: nothing started or enabled"
xdpt_assert_match '^systemctl --system daemon-reload$' "$STUB_OUT" "postinst of a first install"
script 1 0 postinst configure 0.0.1
xdpt_assert_eq "$(printf '%s\n' "deb-systemd-invoke try-restart xdpong.service" \
	"deb-systemd-invoke try-restart xdpong@*.service")" "$(grep "$INVOKE" <<<"$STUB_OUT")" \
	"postinst of an upgrade: what deb-systemd-invoke is asked"
script 0 0 postinst configure 0.0.1
xdpt_assert_no_match "$INVOKE" "$STUB_OUT" "postinst of an upgrade without systemd"
for args in "upgrade $next" "deconfigure in-favour other 1" "failed-upgrade $version"; do
	# shellcheck disable=SC2086 # the arguments, split
	script 1 0 prerm $args
	xdpt_assert_eq "" "$STUB_OUT" "prerm $args: stops or detaches nothing"
done
script 1 0 prerm remove
xdpt_assert_eq "$(printf '%s\n' "deb-systemd-invoke stop xdpong.service xdpong@*.service" \
	"xdpong status --json" "xdpong detach eth9" "xdpong detach gone1")" "$STUB_OUT" \
	"prerm remove: stop both units, then detach what xdpong left"
script 0 0 prerm remove
xdpt_assert_eq \
	"$(printf '%s\n' "xdpong status --json" "xdpong detach eth9" "xdpong detach gone1")" \
	"$STUB_OUT" "prerm remove without systemd: the detach only"
script 1 1 prerm remove
xdpt_assert_eq "deb-systemd-invoke stop xdpong.service xdpong@*.service" "$STUB_OUT" \
	"prerm remove in a chroot: no detach (the host's programs are not the chroot's)"
DPKG_ROOT=/nonexistent script 1 0 prerm remove
xdpt_assert_eq "" "$STUB_OUT" "prerm remove with DPKG_ROOT: nothing"
script 1 0 postrm remove
xdpt_assert_no_match "$INVOKE" "$STUB_OUT" "postrm remove"

xdpt_topo_veth
xdpt_log "4. prerm remove detaches what xdpong left, for real, in $NS_RESP"
GONE=xd$XDPT_ID
printf '#!/bin/sh\nexit 1\n' >"$STUBS/ischroot" # not a chroot
: >"$STUB_LOG"
xdpt_run ip netns exec "$NS_RESP" env PATH="$STUBS:$ROOT/usr/sbin:$PATH" \
	sh -c 'exec >"$1/real.log" 2>&1
		set -x
		mount -t bpf bpf /sys/fs/bpf && mount -t tmpfs tmpfs /run || exit 99
		mkdir -p /run/systemd/system
		xdpong attach "$2" --mode skb || exit 98
		ip link add "$3" type veth peer name "$4" && ip link set "$3" up || exit 97
		xdpong attach "$3" --mode skb --no-iface-addrs || exit 96
		ip link del "$3"
		xdpong status --json >"$1/before.json"
		sh "$1/control/prerm" remove >"$1/prerm.out" 2>&1
		echo $? >"$1/prerm.rc"
		xdpong status --json >"$1/after.json"
		ls -A /sys/fs/bpf >"$1/bpffs.after"
		ip -d link show "$2" >"$1/link.after"' _ "$XDPT_TMP" "$IF_RESP" "$GONE" "xe$XDPT_ID"
[ "$XDPT_RC" -eq 0 ] || xdpt_fail "the remove scenario exited $XDPT_RC: $(cat "$XDPT_TMP/real.log")"
ifaces=$(jq -c '[.interfaces[].iface]' "$XDPT_TMP/before.json")
xdpt_assert_eq "[\"$IF_RESP\"] [\"$GONE\"]" \
	"$ifaces $(jq -c .stale_pins "$XDPT_TMP/before.json")" \
	"before prerm: attached by hand, and the pins of a deleted interface"
xdpt_assert_eq 0 "$(cat "$XDPT_TMP/prerm.rc")" "prerm remove's exit status"
xdpt_assert_match "deb-systemd-invoke stop xdpong.service xdpong@\*.service" "$(cat "$STUB_LOG")" \
	"prerm remove stopped both units"
xdpt_assert_match "detached from $IF_RESP " "$(cat "$XDPT_TMP/prerm.out")" "prerm remove's detach"
xdpt_assert_match "$GONE is gone; removed its [0-9]+ stale pins" "$(cat "$XDPT_TMP/prerm.out")" \
	"prerm remove's removal of stale pins"
ifaces=$(jq -c '.interfaces' "$XDPT_TMP/after.json")
xdpt_assert_eq "[] []" \
	"$ifaces $(jq -c .stale_pins "$XDPT_TMP/after.json")" \
	"after prerm remove: xdpong attached nowhere, no stale pins"
# (A new bpffs holds the kernel's maps.debug and progs.debug.)
xdpt_assert_no_match '^xdpong$' "$(cat "$XDPT_TMP/bpffs.after")" \
	"/sys/fs/bpf/xdpong after prerm remove"
xdpt_assert_no_match 'prog/xdp|xdpgeneric' "$(cat "$XDPT_TMP/link.after")" \
	"XDP on $IF_RESP after prerm remove"

xdpt_log "5. dpkg --root: install, upgrade, remove, purge"
# The real deb-systemd-helper (it follows DPKG_ROOT); systemctl and
# deb-systemd-invoke stand-ins, in case a script runs one on this host.
R=$XDPT_TMP/root
STUBS_ROOT=$XDPT_TMP/stubs-root
mkdir -p "$STUBS_ROOT"
cp "$STUBS/systemctl" "$STUBS/deb-systemd-invoke" "$STUBS_ROOT/"
mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates" "$R/var/lib/dpkg/triggers"
: >"$R/var/lib/dpkg/status"
: >"$R/var/lib/dpkg/available"
dpkg_root()
{
	xdpt_run env PATH="$STUBS_ROOT:$PATH" dpkg --root="$R" --force-depends \
		--force-script-chrootless --force-confold "$@"
	[ "$XDPT_RC" -eq 0 ] || { _xdpt_show_run; xdpt_fail "dpkg $* exited $XDPT_RC"; }
}
dpkg_root -i "$DEB"
WANTS=$R/etc/systemd/system/multi-user.target.wants
xdpt_assert_eq "" "$(find "$R/etc" -type l)" "links after install (nothing enabled)"
[ -x "$R/usr/sbin/xdpong" ] && [ -f "$R$UNITDIR/xdpong@.service" ] ||
	xdpt_fail "installed under $R: $(find "$R" -path "$R/var" -prune -o -type f -print)"
# What the operator does: one instance enabled, an option, a file of its own.
mkdir -p "$WANTS"
ln -s "$UNITDIR/xdpong@.service" "$WANTS/xdpong@eth0.service"
echo 'XDPONG_OPTS="--host-addrs"' >>"$R/etc/default/xdpong"
echo 'XDPONG_IFACE_OPTS="--addr 192.0.2.1/32"' >"$R/etc/default/xdpong.eth0"
dpkg_root -i "$NEXT"
xdpt_assert_match "^xdpong $(ere "$next") " "$("$R/usr/sbin/xdpong" --version)" \
	"xdpong --version after the upgrade"
xdpt_assert_match '^XDPONG_OPTS="--host-addrs"$' "$(cat "$R/etc/default/xdpong")" \
	"the operator's /etc/default/xdpong after the upgrade"
[ -L "$WANTS/xdpong@eth0.service" ] || xdpt_fail "the upgrade removed xdpong@eth0's link"
dpkg_root -r xdpong
[ ! -e "$R/usr/sbin/xdpong" ] || xdpt_fail "remove left /usr/sbin/xdpong"
[ -f "$R/etc/xdpong/xdpong.conf" ] && [ -f "$R/etc/default/xdpong" ] ||
	xdpt_fail "remove took the configuration (purge does): $(find "$R/etc")"
[ -L "$WANTS/xdpong@eth0.service" ] || xdpt_fail "remove removed xdpong@eth0's link (purge does)"
dpkg_root -P xdpong
[ ! -e "$R/etc/xdpong" ] || xdpt_fail "purge left /etc/xdpong: $(find "$R/etc/xdpong")"
[ ! -e "$R/etc/default/xdpong" ] || xdpt_fail "purge left /etc/default/xdpong"
[ ! -L "$WANTS/xdpong@eth0.service" ] || xdpt_fail "purge left xdpong@eth0's link"
[ -f "$R/etc/default/xdpong.eth0" ] ||
	xdpt_fail "purge removed the operator's /etc/default/xdpong.eth0"

xdpt_log "6. lintian $(lintian --version | awk '{ print $2 }')"
for changes in "${DEB%.deb}.changes" "${NEXT%.deb}.changes"; do
	timeout 300 lintian --fail-on error,warning --display-info --pedantic "$changes" \
		>"$XDPT_TMP/lintian.out" 2>&1
	rc=$?
	xdpt_log "$(basename "$changes"): $(grep -c '^[EWIPX]:' "$XDPT_TMP/lintian.out") tags," \
		"exit $rc"
	grep '^[EWIPXO]:' "$XDPT_TMP/lintian.out" | sed 's/^/#   /'
	if [ "$rc" -ne 0 ] || grep -q '^[EW]:' "$XDPT_TMP/lintian.out"; then
		xdpt_fail "lintian $changes: $(cat "$XDPT_TMP/lintian.out")"
	fi
done
xdpt_pass
