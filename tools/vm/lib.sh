# SPDX-License-Identifier: GPL-2.0
#
# What tools/vm/run.sh and tools/vm/systemd-guest.sh share: sourced by
# both after they set PROG. The guest's QEMU process is QPID, the run's
# scratch directory TMP; cleanup (trap EXIT) kills the one and removes the
# other. Exit 125 is the harness's own failure, never the command's.

TMP=
QPID=

die()
{
	echo "$PROG: $*" >&2
	exit 125
}

# The script's header comment, from its fourth line to the first blank.
usage()
{
	sed -n '4,/^$/{ s/^# \{0,1\}//; p }' "$0" | sed '$d'
}

cleanup()
{
	if [ -n "$QPID" ] && kill -0 "$QPID" 2>/dev/null; then
		kill "$QPID" 2>/dev/null
		sleep 0.2
		kill -9 "$QPID" 2>/dev/null
	fi
	[ -n "$TMP" ] && rm -rf -- "$TMP"
}

# Two free UDP ports on 127.0.0.1 (not bound now; QEMU binds them).
free_ports()
{
	local p q used i

	used=$(ss -Hlun 2>/dev/null | awk '{ n = split($4, a, ":"); print a[n] }')
	for ((i = 0; i < 50; i++)); do
		p=$((20000 + RANDOM % 40000))
		q=$((p + 1))
		if ! grep -qxE "$p|$q" <<<"$used"; then
			echo "$p $q"
			return 0
		fi
	done
	return 1
}

# The QEMU arguments of the two cabled virtio-net NICs (eth0, eth1 in the
# guest), on the ports free_ports gave: "nic_args P Q".
nic_args()
{
	NIC_ARGS=(
		-netdev "socket,id=n0,udp=127.0.0.1:$2,localaddr=127.0.0.1:$1"
		-device virtio-net-pci,netdev=n0,mac=52:54:00:78:64:01
		-netdev "socket,id=n1,udp=127.0.0.1:$1,localaddr=127.0.0.1:$2"
		-device virtio-net-pci,netdev=n1,mac=52:54:00:78:64:02
	)
}

# The kernel oopsed or panicked: the die header ("Oops: int3: 0000 [#1]"
# on 6.x, "int3: 0000 [#1]" on 5.10) or a panic. An extended regex.
KERNEL_FAULT_RE='Kernel panic - not syncing|^(\[ *[0-9.]+\] )?Oops'
KERNEL_FAULT_RE+='|(Oops|BUG|[a-z0-9 ]+): [0-9a-f][0-9a-f][0-9a-f][0-9a-f] \[#[0-9]+\]'

# boot_state CONSOLE: "started" once the console has the line
# XDPONG-VM-START (the guest handed over to the command), "fault LINE"
# when a kernel fault came before it, nothing while it boots.
boot_state()
{
	tr -d '\r' <"$1" 2>/dev/null | RE=$KERNEL_FAULT_RE awk '
		BEGIN { re = ENVIRON["RE"] }
		/^XDPONG-VM-START$/ { print "started"; exit }
		$0 ~ re { print "fault " $0; exit }'
}

# wait_guest SECONDS [CONSOLE]: until QEMU (QPID) exits, at most SECONDS,
# then kill it. Polls, so that a console follower keeps going. With
# CONSOLE, also until the guest's kernel faults before XDPONG-VM-START:
# then QEMU is killed at once and BOOT_FAULT holds the console's line.
# Sets TIMED_OUT (0 or 1), GUEST_RC (QEMU's exit status) and BOOT_FAULT
# (empty when none); clears QPID.
wait_guest()
{
	local deadline=$((SECONDS + $1)) console=${2:-} state='' next=0

	TIMED_OUT=0
	BOOT_FAULT=
	while kill -0 "$QPID" 2>/dev/null; do
		if [ "$SECONDS" -ge "$deadline" ]; then
			TIMED_OUT=1
			kill "$QPID" 2>/dev/null
			sleep 1
			kill -9 "$QPID" 2>/dev/null
			break
		fi
		if [ -n "$console" ] && [ "$state" != started ] && [ "$SECONDS" -ge "$next" ]; then
			next=$((SECONDS + 1))
			state=$(boot_state "$console")
			if [ "${state%% *}" = fault ]; then
				BOOT_FAULT=${state#fault }
				kill -9 "$QPID" 2>/dev/null
				break
			fi
		fi
		sleep 0.2
	done
	wait "$QPID"
	GUEST_RC=$?
	QPID=
	# A fault in the last moments: QEMU may have exited (panic=-1) first.
	if [ -n "$console" ] && [ "$state" != started ] && [ -z "$BOOT_FAULT" ]; then
		state=$(boot_state "$console")
		[ "${state%% *}" = fault ] && BOOT_FAULT=${state#fault }
	fi
	return 0
}

#
# boot_failed_once SAVE: after a guest's end. When its kernel oopsed or
# panicked, or QEMU ended, before the command started (XDPONG-VM-START on
# the console), that boot ran nothing of the command: an emulator fault
# under TCG, not the command's. Returns 0
# (boot again) the first time, saying so on stderr and keeping that
# boot's console in SAVE (failed-boot-console.log in the logs); 1
# otherwise. Uses the caller's timed_out, rc (QEMU's status) and
# boot_retried (0, set to 1 here), and $TMP/console.log.
# A failure once the command runs is never retried.
#
boot_failed_once()
{
	local save=$1 why

	[ "$timed_out" = 0 ] && [ "$boot_retried" = 0 ] || return 1
	if [ -n "$BOOT_FAULT" ]; then
		why="its kernel faulted: $BOOT_FAULT"
	elif [ "$(boot_state "$TMP/console.log")" != started ]; then
		why="QEMU exited (status $rc)"
	else
		return 1
	fi
	boot_retried=1
	tr -d '\r' <"$TMP/console.log" >"$save"
	echo "vm: boot retried: the guest stopped before the command started, $why;" \
		"booting it again, once (that boot's console: failed-boot-console.log" \
		"in the logs). Its last lines:" >&2
	tail -n 8 "$save" | sed 's/^/  | /' >&2
	return 0
}

# Kernel arguments that make this boot panic before its init runs (no
# such init), when XDPONG_VM_FAULT_TEST=1 and no boot was retried yet
# (boot_retried=0): how the retry of a boot that faulted is tested.
fault_test_args()
{
	[ "${XDPONG_VM_FAULT_TEST:-0}" = 1 ] && [ "$boot_retried" = 0 ] &&
		echo "rdinit=/xdpong-vm-fault-test"
	return 0
}

#
# accel_arg ACCEL: QEMU's -accel value. Under TCG the guest's vCPUs take
# turns on one host thread ($XDPONG_VM_TCG_THREAD, default single; multi
# gives each vCPU a thread of its own). The guests of make test run beside
# each other and the host's tests on two cores: with a thread per vCPU, a
# vCPU spins waiting for another whose thread is not running, and a guest
# took twice as long for the same tests (netns/ping_jumbo on 6.12).
#
case ${XDPONG_VM_TCG_THREAD:=single} in
single | multi) ;;
*) die "XDPONG_VM_TCG_THREAD: single or multi, not '$XDPONG_VM_TCG_THREAD'" ;;
esac

accel_arg()
{
	if [ "$1" = tcg ]; then echo "tcg,thread=$XDPONG_VM_TCG_THREAD"; else echo "$1"; fi
}

# accel_what ACCEL: how the first line of a run names the threading.
accel_what()
{
	[ "$1" = tcg ] && echo ", $XDPONG_VM_TCG_THREAD-threaded"
}
