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

# wait_guest SECONDS: until QEMU (QPID) exits, at most SECONDS, then kill
# it. Polls, so that a console follower keeps going. Sets TIMED_OUT (0 or
# 1) and GUEST_RC (QEMU's exit status); clears QPID.
wait_guest()
{
	local deadline=$((SECONDS + $1))

	TIMED_OUT=0
	while kill -0 "$QPID" 2>/dev/null; do
		if [ "$SECONDS" -ge "$deadline" ]; then
			TIMED_OUT=1
			kill "$QPID" 2>/dev/null
			sleep 1
			kill -9 "$QPID" 2>/dev/null
			break
		fi
		sleep 0.2
	done
	wait "$QPID"
	GUEST_RC=$?
	QPID=
}
