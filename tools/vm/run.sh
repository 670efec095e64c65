#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot one of Debian's stock kernels under QEMU and run a command in it,
# on the host's own userland (its root shared read-only over virtio-9p,
# writable through a tmpfs overlay), in the repository's directory.
# Exits with the command's exit code.
#
# Usage: tools/vm/run.sh [OPTIONS] -- COMMAND [ARG...]
#   --kernel K     5.10, 6.1 or 6.12 (Debian 11, 12, 13; default 6.1), host
#                  (the running kernel, from /boot and /lib/modules), or a
#                  directory laid out as tools/vm/kernels.sh unpacks one
#   --repo DIR     the repository to run in (default: the one holding this
#                  script); must be on the host's root filesystem tree
#   --nics         add two virtio-net NICs cabled to each other (their
#                  names are in $XDPONG_VM_NICS in the guest, e.g. "eth0 eth1")
#   --timeout S    kill the guest after S seconds (default 900): exit 124
#   --accel A      auto (default: KVM when a short probe boot works there,
#                  else TCG), kvm or tcg; or XDPONG_VM_ACCEL
#   --cpus N       virtual CPUs (default 2); --mem MIB (default 1536)
#   --env NAME=V   export NAME=V to the command (repeatable)
#   --logs DIR     keep the guest's output here: console.log, dmesg.txt,
#                  rc, and test-logs/ (the guest's build/test-logs)
#   -v, --verbose  show the whole console (boot included), not only the
#                  command's output
#   -h, --help     this text
#
# Prints one line first: kernel package and version, accelerator. Exit:
# the command's code; 124 when the guest timed out (the console's last
# lines are shown); 125 when the harness or the guest's boot failed.
# Kernels are fetched into the cache on first use (tools/vm/kernels.sh).

set -u

PROG=tools/vm/run.sh
HERE=$(cd "$(dirname "$0")" && pwd) || exit 125
CACHE=${XDPONG_VM_CACHE:-/var/cache/xdpong-vm}
QEMU=${QEMU:-qemu-system-x86_64}

KERNEL=6.1
REPO=$(cd "$HERE/../.." && pwd)
NICS=0
TIMEOUT=900
ACCEL=${XDPONG_VM_ACCEL:-auto}
CPUS=2
MEM=1536
LOGS=
VERBOSE=0
ENVS=()
# shellcheck source=tools/vm/lib.sh
. "$HERE/lib.sh"

parse_args()
{
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel) KERNEL=${2:?--kernel needs a value}; shift ;;
		--repo) REPO=${2:?--repo needs a directory}; shift ;;
		--nics) NICS=2 ;;
		--timeout) TIMEOUT=${2:?--timeout needs seconds}; shift ;;
		--accel) ACCEL=${2:?--accel needs auto, kvm or tcg}; shift ;;
		--cpus) CPUS=${2:?--cpus needs a number}; shift ;;
		--mem) MEM=${2:?--mem needs MiB}; shift ;;
		--env) ENVS+=("${2:?--env needs NAME=VALUE}"); shift ;;
		--logs) LOGS=${2:?--logs needs a directory}; shift ;;
		-v | --verbose) VERBOSE=1 ;;
		-h | --help) usage; exit 0 ;;
		--) shift; break ;;
		*) echo "$PROG: unknown option '$1' (the command goes after --)" >&2; \
			usage >&2; exit 125 ;;
		esac
		shift
	done
	CMD=("$@")
	[ "${#CMD[@]}" -gt 0 ] || die "no command: tools/vm/run.sh [OPTIONS] -- COMMAND..."
	case $ACCEL in auto | kvm | tcg) ;; *) die "--accel: auto, kvm or tcg, not '$ACCEL'" ;; esac
	case $TIMEOUT$CPUS$MEM in *[!0-9]*) die "--timeout, --cpus and --mem take numbers" ;; esac
	[ -d "$REPO" ] || die "no repository at $REPO"
	REPO=$(cd "$REPO" && pwd -P) || exit 125
	local e
	for e in "${ENVS[@]}"; do
		[[ $e =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || die "--env: NAME=VALUE, not '$e'"
	done
}

# The kernel's directory (vmlinuz, lib/modules/<release>, info).
kernel_dir()
{
	local rel

	if [ "$KERNEL" = host ]; then
		# The running kernel, when it is installed the Debian way.
		rel=$(uname -r)
		[ -f "/boot/vmlinuz-$rel" ] && [ -d "/lib/modules/$rel" ] || {
			echo "$PROG: --kernel host: no /boot/vmlinuz-$rel" \
				"with /lib/modules/$rel" >&2
			return 1
		}
		mkdir -p "$TMP/host/lib" && ln -s "/boot/vmlinuz-$rel" "$TMP/host/vmlinuz" &&
			ln -s /lib/modules "$TMP/host/lib/modules" || return 1
		printf 'package=host\nversion=%s\nrelease=%s\n' \
			"$(uname -v | awk '{ print $NF }')" "$rel" >"$TMP/host/info"
		echo "$TMP/host"
		return
	fi
	if [ -d "$KERNEL" ]; then
		(cd "$KERNEL" && pwd)
		return
	fi
	"$HERE/kernels.sh" path "$KERNEL"
}

#
# The initramfs: static busybox, guest-init.sh as /init, stage2, the
# command and environment, and the modules that mounting 9p and overlay
# need (and virtio_net with --nics), in dependency order and decompressed
# (busybox insmod cannot read .ko.xz), as an uncompressed cpio archive.
#
build_initramfs()
{
	local kdir=$1 release=$2 out=$3 root=$TMP/initramfs m f base e mods

	mkdir -p "$root/modules" "$root/bin" || return 1
	[ -x /bin/busybox ] && ! ldd /bin/busybox >/dev/null 2>&1 ||
		die "/bin/busybox missing or not static: install busybox-static (tools/vm/deps.sh)"
	cp /bin/busybox "$root/bin/busybox" || return 1
	cp "$HERE/guest-init.sh" "$root/init" && chmod 755 "$root/init" || return 1
	cp "$HERE/guest-stage2.sh" "$root/stage2.sh" || return 1
	printf '%s\0' "${CMD[@]}" >"$root/cmd"
	{
		echo "XDPONG_VM_REPO=$REPO"
		echo "XDPONG_VM_KERNEL=$release"
		echo "XDPONG_VM_WANT_NICS=$NICS"
		for e in "${ENVS[@]}"; do echo "$e"; done
	} >"$root/env"
	: >"$root/modules.list"
	mods=(virtio_pci 9pnet_virtio 9p overlay)
	[ "$NICS" -gt 0 ] && mods+=(virtio_net)
	for m in "${mods[@]}"; do
		PATH=$PATH:/sbin:/usr/sbin modprobe -d "$kdir" -S "$release" \
				--show-depends "$m" 2>/dev/null |
			awk '$1 == "insmod" { print $2 }'
	done | awk '!seen[$0]++' | while read -r f; do
		base=$(basename "$f")
		case $base in
		*.ko.xz) xz -dc "$f" >"$root/modules/${base%.xz}" || exit 1; base=${base%.xz} ;;
		*.ko.zst) zstd -qdc "$f" >"$root/modules/${base%.zst}" ||
			exit 1; base=${base%.zst} ;;
		*.ko.gz) gzip -dc "$f" >"$root/modules/${base%.gz}" || exit 1; base=${base%.gz} ;;
		*) cp "$f" "$root/modules/$base" || exit 1 ;;
		esac
		echo "$base" >>"$root/modules.list"
	done || die "cannot copy the modules for 9p and overlay from $kdir"
	(cd "$root" && find . | cpio -o -H newc --quiet) >"$out" || die "cannot write the initramfs"
}

# qemu_args KDIR INITRD ACCEL CMDLINE_EXTRA: the QEMU command line.
qemu_args()
{
	local kdir=$1 initrd=$2 accel=$3 extra=$4 cpu kernel

	if [ "$accel" = kvm ]; then cpu=host; else cpu=max; fi
	# The uncompressed kernel (PVH entry) when kernels.sh extracted it:
	# seconds faster under TCG than the bzImage decompressing itself.
	kernel=$kdir/vmlinuz
	[ -f "$kdir/vmlinux" ] && kernel=$kdir/vmlinux
	QARGS=(
		"$QEMU" -machine pc -accel "$(accel_arg "$accel")" -cpu "$cpu"
		-smp "$CPUS" -m "$MEM"
		-nodefaults -no-user-config -display none -no-reboot -monitor none
		-kernel "$kernel" -initrd "$initrd"
		-append "console=ttyS0 quiet panic=-1 $extra"
		-serial "file:$TMP/console.log"
		-fsdev "local,id=fsroot,path=/,security_model=none,readonly=on,multidevs=remap"
		-device virtio-9p-pci,fsdev=fsroot,mount_tag=hostroot
		-fsdev "local,id=fsmod,path=$kdir/lib/modules,security_model=none,readonly=on"
		-device virtio-9p-pci,fsdev=fsmod,mount_tag=modules
		-fsdev "local,id=fsout,path=$TMP/out,security_model=none"
		-device virtio-9p-pci,fsdev=fsout,mount_tag=out
	)
}

#
# KVM works where a probe boot (the same kernel and initramfs, which only
# prints a marker and powers off) ends within 20 s. Nested KVM may hang
# at boot instead; then TCG. The verdict is kept for this host boot.
#
pick_accel()
{
	local kdir=$1 initrd=$2 boot_id stamp

	if [ "$ACCEL" != auto ]; then
		echo "$ACCEL as asked"
		return
	fi
	if [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
		echo "tcg no usable /dev/kvm"
		return
	fi
	boot_id=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)
	stamp=$CACHE/kvm-probe
	if [ -f "$stamp" ] && [ "$(head -n 1 "$stamp")" = "$boot_id" ]; then
		echo "$(sed -n 2p "$stamp") probed earlier this boot ($stamp)"
		return
	fi
	qemu_args "$kdir" "$initrd" kvm xdpong_vm.probe=1
	local verdict=tcg why="KVM probe boot failed or hung"
	: >"$TMP/console.log"
	if timeout -k 2 20 "${QARGS[@]}" >"$TMP/probe.err" 2>&1 </dev/null &&
		grep -q XDPONG-VM-PROBE-OK "$TMP/console.log"; then
		verdict=kvm why="KVM probe boot worked"
	fi
	mkdir -p "$CACHE" 2>/dev/null &&
		printf '%s\n%s\n' "$boot_id" "$verdict" >"$stamp" 2>/dev/null
	echo "$verdict $why"
}

# What the user sees of the console: the command's output only (between
# the markers), or everything with --verbose. Serial lines end in CR LF.
show_console()
{
	awk -v verbose="$VERBOSE" '
		{ sub(/\r$/, "") }
		/^XDPONG-VM-START$/ { on = 1; if (!verbose) next }
		/^XDPONG-VM-RC=/ { if (!verbose) { on = 0; next } }
		verbose || on { print; fflush() }'
}

main()
{
	local kdir info pkg ver release accel why ports rc t0 secs tries tailpid boot_retried=0

	parse_args "$@"
	command -v "$QEMU" >/dev/null 2>&1 || die "$QEMU not found: run tools/vm/deps.sh (as root)"
	TMP=$(mktemp -d /tmp/xdpong-vm.XXXXXX) || exit 125
	trap cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	kdir=$(kernel_dir) || die "no kernel '$KERNEL'"
	info=$kdir/info
	pkg=$(sed -n 's/^package=//p' "$info" 2>/dev/null)
	ver=$(sed -n 's/^version=//p' "$info" 2>/dev/null)
	release=$(sed -n 's/^release=//p' "$info" 2>/dev/null)
	[ -n "$release" ] && [ -f "$kdir/vmlinuz" ] || die "$kdir has no vmlinuz or info"

	mkdir -p "$TMP/out"
	build_initramfs "$kdir" "$release" "$TMP/initrd" || die "cannot build the initramfs"
	read -r accel why < <(pick_accel "$kdir" "$TMP/initrd")
	echo "vm: kernel $pkg $ver ($release), accel ${accel^^} ($why)$(accel_what "$accel")," \
		"${CPUS} vCPU, ${MEM} MiB$([ "$NICS" -gt 0 ] && echo ", 2 virtio-net NICs")"

	t0=$EPOCHREALTIME
	for ((tries = 0; tries < 5; tries++)); do
		qemu_args "$kdir" "$TMP/initrd" "$accel" "$(fault_test_args)"
		if [ "$NICS" -gt 0 ]; then
			ports=$(free_ports) || die "no free UDP port pair on 127.0.0.1"
			nic_args $ports
			QARGS+=("${NIC_ARGS[@]}")
		fi
		: >"$TMP/console.log"
		rm -f "$TMP/out/rc"
		"${QARGS[@]}" </dev/null >"$TMP/qemu.err" 2>&1 &
		QPID=$!
		tail -n +1 -f --pid="$QPID" "$TMP/console.log" 2>/dev/null | show_console &
		tailpid=$!
		wait_guest "$TIMEOUT" "$TMP/console.log"
		rc=$GUEST_RC timed_out=$TIMED_OUT
		wait "$tailpid" 2>/dev/null
		# A port taken between the check and QEMU's bind: new ports.
		if [ "$NICS" -gt 0 ] && [ "$timed_out" = 0 ] &&
			grep -q 'Address already in use' "$TMP/qemu.err"; then
			continue
		fi
		boot_failed_once "$TMP/out/failed-boot-console.log" || break
	done
	secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')

	if [ -n "$LOGS" ]; then
		mkdir -p "$LOGS" && cp -r "$TMP/out/." "$LOGS/" &&
			tr -d '\r' <"$TMP/console.log" >"$LOGS/console.log" ||
			echo "$PROG: cannot keep the logs in $LOGS" >&2
	fi

	if [ "$timed_out" = 1 ]; then
		echo "$PROG: guest ($release) timed out after ${TIMEOUT}s; last console lines:" >&2
		tr -d '\r' <"$TMP/console.log" | tail -n 30 | sed 's/^/  | /' >&2
		return 124
	fi
	if ! tr -d '\r' <"$TMP/console.log" | grep -qx XDPONG-VM-START; then
		echo "$PROG: guest ($release) failed to boot (QEMU exit $rc) after ${secs}s;" \
			"last lines:" >&2
		cat "$TMP/qemu.err" >&2
		tr -d '\r' <"$TMP/console.log" | tail -n 30 | sed 's/^/  | /' >&2
		return 125
	fi
	if [ -s "$TMP/out/rc" ]; then
		rc=$(cat "$TMP/out/rc")
	else
		rc=$(tr -d '\r' <"$TMP/console.log" | sed -n 's/^XDPONG-VM-RC=\([0-9]*\)$/\1/p' |
			tail -n 1)
	fi
	if [ -z "$rc" ]; then
		echo "$PROG: guest ($release) ended without an exit code after ${secs}s;" \
			"last lines:" >&2
		cat "$TMP/qemu.err" >&2
		tr -d '\r' <"$TMP/console.log" | tail -n 30 | sed 's/^/  | /' >&2
		return 125
	fi
	[ "$VERBOSE" = 1 ] && echo "vm: exit $rc after ${secs}s"
	return "$rc"
}

main "$@"
