#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of the VM harness's guest, on the host's root (see guest-init.sh),
# run by bash from that root (guest-init.sh has mounted /tmp, bpffs,
# debugfs, tracefs, cgroup2, brought up loopback). Loads the virtio_net
# driver when run.sh gave NICs, then runs the payload:
#
#   /run/xdpong-vm/cmd   the command's words, NUL-terminated
#   /run/xdpong-vm/env   NAME=VALUE lines to export; XDPONG_VM_REPO is
#                        the directory to run in (the shared repository)
#
# with stdin from /dev/null and output on the console, between the lines
# XDPONG-VM-START and XDPONG-VM-RC=<exit code>. Afterwards it copies the
# repository's build/test-logs and the kernel log to the output directory
# (/run/xdpong-vm/out, the host's), writes the exit code to its file rc,
# and powers off.

set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8
VM=/run/xdpong-vm
OUT=$VM/out

say()
{
	echo "xdpong-vm: $*"
}

power_off()
{
	sync
	umount "$OUT" 2>/dev/null
	echo o >/proc/sysrq-trigger
	sleep 30 2>/dev/null
}

#
# The virtio NICs (run.sh --nics; guest-init.sh loaded virtio_net): wait
# for them, put their names in XDPONG_VM_NICS. Bash only: under TCG
# every program started from the 9p root is slow.
#
nics()
{
	local want=$1 i n names=()

	[ "$want" -gt 0 ] || return 0
	for ((i = 0; i < 50; i++)); do
		names=()
		for n in /sys/class/net/*; do
			n=${n##*/}
			[ "$n" = lo ] || names+=("$n")
		done
		[ "${#names[@]}" -ge "$want" ] && break
		read -r -t 0.1 <> <(:) 2>/dev/null
	done
	[ "${#names[@]}" -ge "$want" ] ||
		say "only ${#names[@]} of $want NICs appeared: ${names[*]}"
	export XDPONG_VM_NICS="${names[*]}"
}

while IFS= read -r line; do
	[ -n "$line" ] && export "${line?}"
done <"$VM/env"
nics "${XDPONG_VM_WANT_NICS:-0}"
mapfile -d '' -t cmd <"$VM/cmd"

cd "${XDPONG_VM_REPO:-/}" || say "cannot cd to ${XDPONG_VM_REPO:-/}"
echo "XDPONG-VM-START"
"${cmd[@]}" </dev/null
rc=$?
echo "XDPONG-VM-RC=$rc"

if [ -d build/test-logs ]; then
	cp -r build/test-logs "$OUT/" 2>/dev/null || say "cannot copy build/test-logs out"
fi
dmesg >"$OUT/dmesg.txt" 2>/dev/null
echo "$rc" >"$OUT/rc"
power_off
