#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a Debian 12 userland whose init is systemd on one of Debian's stock
# kernels under QEMU, with two cabled virtio-net NICs, and run a command
# in it as a systemd service. Where tools/vm/run.sh runs the host's own
# userland with a shell as PID 1 (the kernel is what varies), this guest
# is a small Debian system as a user has one: systemd, udev, apt, dpkg,
# and nothing of xdpong's until the command installs the package. It is
# how the project holds its units and its package to real systemd.
#
# Usage: tools/vm/systemd-guest.sh [OPTIONS] -- COMMAND [ARG...]
#   --kernel K      5.10, 6.1 or 6.12 (default 6.1)
#   --payload DIR   copied into the guest as /root/payload, where COMMAND
#                   runs (as root, from a systemd service; stdin /dev/null)
#   --timeout S     kill the guest after S seconds (default 900): exit 124
#   --mem MIB       guest memory (default 4096: the root and its archive are in RAM)
#   --logs DIR      keep console.log (the kernel and systemd) and
#                   output.log (the command's) here
#   --rootfs-only   build (or find) the cached root and print its path
#   -v, --verbose   show the console too, not only the command's output
#   -h, --help      this text
#
# The root: mmdebstrap makes Debian 12 (bookworm) with systemd, udev,
# iproute2, ping, jq and bpftool, keeps apt's package lists, and leaves in
# apt's cache the runtime libraries xdpong links (RUNTIME_PACKAGES below,
# downloaded, not installed), so `apt install ./xdpong_*.deb` in the guest
# resolves the package's dependencies by their Debian names with no
# network. It is cached as an uncompressed cpio archive under
# $XDPONG_VM_CACHE/systemd-guest/ (about 300 MB; the first build downloads
# about 90 MB and takes one to three minutes), keyed by a hash of what
# makes it. Per run, a second archive is appended: the kernel's modules
# for the NICs and veth (with their own modules.dep, so udev loads them),
# the payload, and the unit that runs COMMAND. The kernel unpacks both
# into its RAM root and starts /sbin/init (systemd).
#
# The command's output goes to a second serial port (the console keeps
# the kernel's and systemd's), between the lines XDPONG-VM-START and
# XDPONG-VM-RC=<exit code>; then the guest powers off. Exit: the
# command's code; 124 when the guest timed out; 125 when the harness or
# the boot failed (the console's last lines are shown).

set -u

PROG=tools/vm/systemd-guest.sh
HERE=$(cd "$(dirname "$0")" && pwd) || exit 125
# shellcheck source=tools/vm/lib.sh
. "$HERE/lib.sh"
CACHE=${XDPONG_VM_CACHE:-/var/cache/xdpong-vm}
QEMU=${QEMU:-qemu-system-x86_64}
SUITE=bookworm
MIRROR=${MIRROR:-}

KERNEL=6.1
PAYLOAD=
TIMEOUT=900
MEM=4096
LOGS=
VERBOSE=0
ROOTFS_ONLY=0

# The guest's own packages, installed: init, device units (BindsTo= on the
# NIC), the test's tools.
GUEST_PACKAGES=(systemd systemd-sysv udev iproute2 iputils-ping procps kmod jq bpftool)
# What xdpong's package depends on, by Debian name: in apt's cache only,
# for `apt install ./xdpong_*.deb` to install. The package's Depends is
# checked against this list by tests/vm/systemd/suite.sh (apt would fail
# offline on anything missing).
RUNTIME_PACKAGES=(libbpf1 libxdp1 libelf1 zlib1g libjson-c5 libsystemd0 libinih1 libmicrohttpd12)
# Units a test guest does not need, masked for a faster boot under TCG.
MASKED_UNITS=(apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer
	dpkg-db-backup.timer systemd-tmpfiles-clean.timer serial-getty@ttyS0.service
	serial-getty@ttyS1.service getty@tty1.service getty.target console-getty.service
	systemd-timesyncd.service)

parse_args()
{
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel) KERNEL=${2:?--kernel needs a value}; shift ;;
		--payload) PAYLOAD=${2:?--payload needs a directory}; shift ;;
		--timeout) TIMEOUT=${2:?--timeout needs seconds}; shift ;;
		--mem) MEM=${2:?--mem needs MiB}; shift ;;
		--logs) LOGS=${2:?--logs needs a directory}; shift ;;
		--rootfs-only) ROOTFS_ONLY=1 ;;
		-v | --verbose) VERBOSE=1 ;;
		-h | --help) usage; exit 0 ;;
		--) shift; break ;;
		*) echo "$PROG: unknown option '$1' (the command goes after --)" >&2; \
			usage >&2; exit 125 ;;
		esac
		shift
	done
	CMD=("$@")
	[ "$ROOTFS_ONLY" = 1 ] && return
	[ "${#CMD[@]}" -gt 0 ] || die "no command: $PROG [OPTIONS] -- COMMAND..."
	case $TIMEOUT$MEM in *[!0-9]*) die "--timeout and --mem take numbers" ;; esac
	if [ -n "$PAYLOAD" ]; then
		[ -d "$PAYLOAD" ] || die "--payload: no directory $PAYLOAD"
	fi
}

# The Debian mirror: apt's own (as tools/vm/kernels.sh finds it).
mirror()
{
	local m=$MIRROR

	[ -n "$m" ] ||
		m=$(apt-get indextargets --format '$(REPO_URI)' 'Created-By: Packages' 2>/dev/null |
			grep -v -- '-security' | head -n 1)
	[ -n "$m" ] || m=http://deb.debian.org/debian/
	echo "${m%/}"
}

#
# The cached root, as an uncompressed cpio archive; prints its path.
# mmdebstrap runs once per key (and after --refresh of the inputs), under
# a lock, so that two runs never build it at once.
#
rootfs()
{
	local m sec key dir cpio t0 root opts hook

	command -v mmdebstrap >/dev/null 2>&1 ||
		die "mmdebstrap missing: run tools/vm/deps.sh (as root)"
	m=$(mirror)
	sec=${m%/debian}/debian-security
	opts=(--variant=apt
		"--include=$(IFS=,; echo "${GUEST_PACKAGES[*]}")"
		--dpkgopt='path-exclude=/usr/share/locale/*'
		--dpkgopt='path-exclude=/usr/share/doc/*'
		--dpkgopt='path-include=/usr/share/doc/*/copyright'
		--dpkgopt='path-exclude=/usr/share/info/*'
		--skip=cleanup/apt/lists,cleanup/apt/cache)
	key=$(printf '%s\n' "$SUITE" "$m" "${opts[*]}" "${RUNTIME_PACKAGES[*]}" \
		"${MASKED_UNITS[*]}" "$(mmdebstrap --version)" | sha256sum | cut -c1-16)
	dir=$CACHE/systemd-guest
	cpio=$dir/root-$key.cpio
	mkdir -p "$dir" || die "cannot create $dir"
	exec 8>"$dir/.lock"
	flock -w 900 8 || die "another run holds $dir/.lock"
	if [ -s "$cpio" ]; then
		echo "$cpio"
		return
	fi
	t0=$SECONDS
	echo "systemd-guest: building the Debian $SUITE root with systemd" \
		"(once; cached as $cpio)" >&2
	root=$(mktemp -d "$dir/build.XXXXXX") || die "cannot make a build directory"
	# The customize hook: the runtime libraries into apt's cache (not
	# installed), the units a test guest does not need masked, a
	# hostname, and no root password prompt anywhere (nothing logs in).
	hook="chroot \"\$1\" sh -ec 'apt-get clean;"
	hook+=" apt-get install -q -y --download-only ${RUNTIME_PACKAGES[*]} >/dev/null'"
	if ! mmdebstrap --quiet "${opts[@]}" \
		--customize-hook="$hook" \
		--customize-hook="chroot \"\$1\" systemctl mask -q ${MASKED_UNITS[*]}" \
		--customize-hook='echo xdpong-guest >"$1/etc/hostname"' \
		"$SUITE" "$root/tree" \
		"deb $m $SUITE main" "deb $m $SUITE-updates main" "deb $sec $SUITE-security main" \
		>"$dir/mmdebstrap.log" 2>&1; then
		tail -n 20 "$dir/mmdebstrap.log" >&2
		rm -rf -- "$root"
		die "mmdebstrap failed (log: $dir/mmdebstrap.log)"
	fi
	(cd "$root/tree" && find . | cpio -o -H newc --quiet) >"$cpio.tmp" || {
		rm -rf -- "$root" "$cpio.tmp"
		die "cannot write $cpio"
	}
	rm -rf -- "$root"
	mv "$cpio.tmp" "$cpio"
	# Roots made from other inputs are stale now.
	find "$dir" -maxdepth 1 -name 'root-*.cpio' ! -name "${cpio##*/}" -delete
	echo "systemd-guest: root built in $((SECONDS - t0)) s ($(du -m "$cpio" | cut -f1) MiB)" >&2
	echo "$cpio"
}

#
# The per-run archive: modules, payload, the command's unit.
#
payload_cpio()
{
	local kdir=$1 release=$2 out=$3 top=$TMP/extra m f rel dst

	# usr/lib: the root has a merged /usr, and an archive's directory
	# "lib" would replace the symlink /lib (the kernel unpacks over it).
	mkdir -p "$top/usr/lib/modules/$release" "$top/root/payload" \
		"$top/etc/systemd/system/multi-user.target.wants" || return 1
	# The NICs' driver and veth, decompressed (the guest's kmod need not
	# read the kernel's compression), with their own modules.dep.
	for m in virtio_pci virtio_net veth; do
		PATH=$PATH:/sbin:/usr/sbin modprobe -d "$kdir" -S "$release" \
				--show-depends "$m" 2>/dev/null |
			awk '$1 == "insmod" { print $2 }'
	done | awk '!seen[$0]++' | while read -r f; do
		rel=${f#"$kdir"/lib/modules/"$release"/}
		dst=$top/usr/lib/modules/$release/${rel%.[xg]z}
		dst=${dst%.zst}
		mkdir -p "$(dirname "$dst")" || exit 1
		case $f in
		*.xz) xz -dc "$f" >"$dst" ;;
		*.zst) zstd -qdc "$f" >"$dst" ;;
		*.gz) gzip -dc "$f" >"$dst" ;;
		*) cp "$f" "$dst" ;;
		esac || exit 1
	done || return 1
	cp "$kdir/lib/modules/$release/modules.builtin" "$kdir/lib/modules/$release/modules.order" \
		"$top/usr/lib/modules/$release/" 2>/dev/null
	PATH=$PATH:/sbin:/usr/sbin depmod -b "$top/usr" "$release" 2>/dev/null || return 1
	if [ -n "$PAYLOAD" ]; then
		cp -r "$PAYLOAD/." "$top/root/payload/" || return 1
	fi
	printf '%s\0' "${CMD[@]}" >"$top/root/xdpong-vm.cmd"
	cp "$HERE/systemd-guest-run.sh" "$top/root/xdpong-vm-run.sh" &&
		chmod 755 "$top/root/xdpong-vm-run.sh" ||
		return 1
	# After the system is up; its output on the second serial port.
	cat >"$top/etc/systemd/system/xdpong-vm.service" <<-'EOF'
		[Unit]
		Description=xdpong VM harness: the command
		After=multi-user.target systemd-udev-settle.service systemd-modules-load.service
		Wants=systemd-udev-settle.service
		[Service]
		Type=exec
		ExecStart=/root/xdpong-vm-run.sh
		StandardInput=null
		StandardOutput=tty
		StandardError=tty
		TTYPath=/dev/ttyS1
		TTYReset=no
		TTYVHangup=no
		[Install]
		WantedBy=multi-user.target
	EOF
	ln -s ../xdpong-vm.service \
		"$top/etc/systemd/system/multi-user.target.wants/xdpong-vm.service"
	# No entry for "." itself: it would set the mode of the guest's /.
	(cd "$top" && find . -mindepth 1 | cpio -o -H newc --quiet --owner=0:0) >"$out"
}

# KVM if run.sh's probe found it usable this boot, else TCG.
accel()
{
	local stamp=$CACHE/kvm-probe

	if [ -n "${XDPONG_VM_ACCEL:-}" ] && [ "$XDPONG_VM_ACCEL" != auto ]; then
		echo "$XDPONG_VM_ACCEL"
	elif [ -r /dev/kvm ] && [ -w /dev/kvm ] && [ -f "$stamp" ] &&
		[ "$(head -n 1 "$stamp")" = "$(cat /proc/sys/kernel/random/boot_id)" ] &&
		[ "$(sed -n 2p "$stamp")" = kvm ]; then
		echo kvm
	else
		echo tcg
	fi
}

main()
{
	local kdir release base accel ports rc t0 secs timed_out cpu kernel tailpid cmdline
	local boot_retried

	parse_args "$@"
	base=$(rootfs) || exit 125
	if [ "$ROOTFS_ONLY" = 1 ]; then
		echo "$base"
		return 0
	fi
	command -v "$QEMU" >/dev/null 2>&1 || die "$QEMU not found: run tools/vm/deps.sh (as root)"
	TMP=$(mktemp -d /tmp/xdpong-sysvm.XXXXXX) || exit 125
	trap cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	kdir=$("$HERE/kernels.sh" path "$KERNEL") || die "no kernel '$KERNEL'"
	release=$(sed -n 's/^release=//p' "$kdir/info")
	[ -n "$release" ] || die "$kdir/info names no release"
	payload_cpio "$kdir" "$release" "$TMP/extra.cpio" || die "cannot build the payload archive"
	# Two archives, one after the other: the kernel unpacks both.
	cat "$base" "$TMP/extra.cpio" >"$TMP/initrd" || die "cannot write the initramfs"
	accel=$(accel)
	if [ "$accel" = kvm ]; then cpu=host; else cpu=max; fi
	kernel=$kdir/vmlinuz
	[ -f "$kdir/vmlinux" ] && kernel=$kdir/vmlinux
	echo "systemd-guest: kernel $(sed -n 's/^package=//p' "$kdir/info") ($release)," \
		"Debian $SUITE with systemd, accel ${accel^^}$(accel_what "$accel")," \
		"2 vCPU, $MEM MiB, 2 virtio-net NICs"
	cmdline="console=ttyS0 rdinit=/sbin/init quiet panic=-1"
	cmdline+=" systemd.show_status=false net.ifnames=0"
	t0=$EPOCHREALTIME
	boot_retried=0
	while :; do
		ports=$(free_ports) || die "no free UDP port pair on 127.0.0.1"
		nic_args $ports
		: >"$TMP/console.log"
		: >"$TMP/output.log"
		"$QEMU" -machine pc -accel "$(accel_arg "$accel")" -cpu "$cpu" -smp 2 -m "$MEM" \
			-nodefaults -no-user-config -display none -no-reboot -monitor none \
			-kernel "$kernel" -initrd "$TMP/initrd" \
			-append "$cmdline $(fault_test_args)" \
			-serial "file:$TMP/console.log" -serial "file:$TMP/output.log" \
			"${NIC_ARGS[@]}" \
			</dev/null >"$TMP/qemu.err" 2>&1 &
		QPID=$!
		if [ "$VERBOSE" = 1 ]; then
			tail -n +1 -f --pid="$QPID" "$TMP/console.log" "$TMP/output.log" \
				2>/dev/null &
		else
			tail -n +1 -f --pid="$QPID" "$TMP/output.log" 2>/dev/null |
				awk '{ sub(/\r$/, "") } /^XDPONG-VM-START$/ { on = 1; next }
					/^XDPONG-VM-RC=/ { on = 0; next } on { print; fflush() }' &
		fi
		tailpid=$!
		wait_guest "$TIMEOUT" "$TMP/console.log"
		timed_out=$TIMED_OUT rc=$GUEST_RC
		wait "$tailpid" 2>/dev/null
		boot_failed_once "$TMP/failed-boot-console.log" || break
	done
	secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
	if [ -n "$LOGS" ]; then
		mkdir -p "$LOGS" && tr -d '\r' <"$TMP/console.log" >"$LOGS/console.log" &&
			tr -d '\r' <"$TMP/output.log" >"$LOGS/output.log" ||
			echo "$PROG: cannot keep the logs in $LOGS" >&2
		[ -f "$TMP/failed-boot-console.log" ] && cp "$TMP/failed-boot-console.log" "$LOGS/"
	fi
	if [ "$timed_out" = 1 ]; then
		echo "$PROG: guest ($release) timed out after ${TIMEOUT}s; last console lines:" >&2
		tr -d '\r' <"$TMP/console.log" | tail -n 30 | sed 's/^/  | /' >&2
		return 124
	fi
	rc=$(tr -d '\r' <"$TMP/output.log" | sed -n 's/^XDPONG-VM-RC=\([0-9]*\)$/\1/p' | tail -n 1)
	if [ -z "$rc" ]; then
		echo "$PROG: guest ($release) ended without an exit code after ${secs}s" \
			"(QEMU: $(head -c 300 "$TMP/qemu.err")); last console lines:" >&2
		tr -d '\r' <"$TMP/console.log" | tail -n 30 | sed 's/^/  | /' >&2
		return 125
	fi
	echo "systemd-guest: exit $rc after ${secs}s"
	return "$rc"
}

main "$@"
