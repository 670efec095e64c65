#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the VM harness's initramfs (tools/vm/run.sh builds it: this
# file, a static busybox, the kernel's modules for virtio, 9p and overlay,
# already decompressed, and modules.list giving their insmod order).
#
# Why a tiny initramfs and the host's root rather than a full guest image:
# the guest then runs exactly the userland the project is built and
# tested with (Debian 12's libbpf, libxdp and its BPF objects, iproute2,
# bpftool, ping, build/xdpong), nothing has to be assembled, copied or
# kept in sync, and the only thing that varies is the kernel under test.
#
# It mounts the host's root (9p tag "hostroot", read-only) under a tmpfs
# overlay so the guest can write anywhere (nothing reaches the host), the
# kernel's modules (tag "modules") over /lib/modules, the host's output
# directory (tag "out", writable) at /run/xdpong-vm/out, then
# switch_roots into bash running stage2.sh (tools/vm/guest-stage2.sh).
#
# Kernel command line: xdpong_vm.probe=1 only prints a marker and powers
# off (run.sh's KVM probe).

/bin/busybox mkdir -p /proc /sys /dev /bin
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
/bin/busybox mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
/bin/busybox --install -s /bin
export PATH=/bin

fail()
{
	echo "xdpong-vm init: $*"
	echo "XDPONG-VM-RC=125"
	echo o >/proc/sysrq-trigger
	sleep 10
	exit 1
}

case " $(cat /proc/cmdline) " in
*" xdpong_vm.probe=1 "*)
	echo "XDPONG-VM-PROBE-OK"
	echo o >/proc/sysrq-trigger
	sleep 10
	exit 0
	;;
esac

for m in $(cat /modules.list); do
	insmod "/modules/$m" || echo "xdpong-vm init: insmod $m failed"
done

mkdir -p /lower /rw /newroot
# msize: larger messages, far fewer round trips. The root is read-only
# and does not change under us: cache it (cache=loose).
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose hostroot /lower ||
	fail "cannot mount the host's root (9p tag hostroot)"
mount -t tmpfs -o mode=0755 rw /rw || fail "cannot mount the overlay's tmpfs"
mkdir -p /rw/upper /rw/work
mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work overlay /newroot ||
	fail "cannot mount the overlay on the host's root"
# The repository may live where the guest mounts a tmpfs of its own (a CI
# clone under /tmp): hold its view of the overlay aside now, and put it
# back at its path once those are mounted, below.
repo=$(sed -n 's/^XDPONG_VM_REPO=//p' /env)
mkdir -p /rw/repo
[ -n "$repo" ] && mount --bind "/newroot$repo" /rw/repo ||
	fail "cannot hold the repository $repo"

# /lib is usr/lib on a merged-/usr root: mkdir and mount follow it.
mkdir -p /newroot/lib/modules
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose \
		modules /newroot/lib/modules ||
	fail "cannot mount the kernel's modules (9p tag modules)"

mount --move /dev /newroot/dev || fail "cannot move /dev"
mount --move /proc /newroot/proc || fail "cannot move /proc"
mount --move /sys /newroot/sys || fail "cannot move /sys"
mount -t tmpfs -o mode=0755,nosuid,nodev run /newroot/run || fail "cannot mount /run"
# What a booted system has. Mounted here by the static busybox, in RAM:
# under TCG each dynamically linked program from the 9p root costs
# tenths of a second to start.
mkdir -p /newroot/dev/pts /newroot/dev/shm /newroot/run/netns /newroot/run/lock
# devtmpfs has no /dev/fd (bash's <(...) needs it) nor /dev/std*: udev
# or systemd make them on a booted system.
ln -sf /proc/self/fd /newroot/dev/fd
ln -sf /proc/self/fd/0 /newroot/dev/stdin
ln -sf /proc/self/fd/1 /newroot/dev/stdout
ln -sf /proc/self/fd/2 /newroot/dev/stderr
# Nor /dev/net/tun until tun is loaded (systemd-tmpfiles makes the
# static nodes of modules): opening the node loads the module.
mkdir -p /newroot/dev/net
[ -e /newroot/dev/net/tun ] || mknod -m 666 /newroot/dev/net/tun c 10 200
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /newroot/dev/pts
mount -t tmpfs -o nosuid,nodev shm /newroot/dev/shm
mount -t tmpfs -o mode=1777,nosuid,nodev tmp /newroot/tmp || fail "cannot mount /tmp"
mount -t bpf -o mode=0700 bpf /newroot/sys/fs/bpf || fail "cannot mount bpffs"
mount -t debugfs debugfs /newroot/sys/kernel/debug
mount -t tracefs tracefs /newroot/sys/kernel/tracing
mount -t cgroup2 cgroup2 /newroot/sys/fs/cgroup
# ip netns bind-mounts namespaces under /run/netns: it wants a shared
# mount tree (what systemd sets up).
mount --make-rshared /newroot
hostname xdpong-vm
ip link set lo up
# The command's output is what the host shows: kernel messages stay off
# the console (stage2 saves them to dmesg.txt).
dmesg -n 1
mkdir -p /newroot/run/xdpong-vm/out
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out /newroot/run/xdpong-vm/out ||
	fail "cannot mount the output directory (9p tag out)"
cp /stage2.sh /cmd /env /newroot/run/xdpong-vm/ || fail "cannot copy stage2"
mkdir -p "/newroot$repo" && mount --move /rw/repo "/newroot$repo" ||
	fail "cannot put the repository back at $repo"

exec switch_root /newroot /bin/bash /run/xdpong-vm/stage2.sh
fail "switch_root failed"
