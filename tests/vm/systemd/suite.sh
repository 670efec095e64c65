#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The package and its units under real systemd, inside the guest of
# tools/vm/systemd-guest.sh (Debian 12 with systemd as init, two cabled
# virtio-net NICs). tests/vm/systemd_6.1.sh and systemd_6.12.sh run it;
# /root/payload holds it, the package (xdpong_OLD_*.deb) and a newer
# build of it (xdpong_NEW_*.deb), named in ./versions.
#
#   netns peer (eth0 moved in)             the guest's own netns
#  +---------------------------+  cable  +----------------------------------+
#  | eth0 10.77.0.1 fd77::1    |---------| eth1 10.77.0.2 fd77::2           |
#  |                           |         |   xdpong@eth1 (native XDP)       |
#  | vb   10.78.0.1 fd78::1    |---------| va   10.78.0.2 fd78::2 (veth)    |
#  +---------------------------+         |   xdpong.service: eth1 and va    |
#                                        +----------------------------------+
# The kernel's own echo is off in the guest's netns, so every reply the
# peer gets is XDP's. Steps, each stopping the suite on failure:
#   install     apt install ./xdpong_OLD.deb offline (its Depends resolve
#               from apt's cache by Debian name), enable --now xdpong@eth1:
#               native mode, IPv4 and IPv6 answered, STATUS= in status,
#               every sandboxing option of the unit in force
#   kill -9     of the main pid, under a 100/s stream: systemd restarts it,
#               0 replies lost, every request counted once
#   restart     systemctl restart, likewise (SIGUSR1 hand-over)
#   reload      systemctl reload, likewise (same pid)
#   upgrade     apt install ./xdpong_NEW.deb over the running service,
#               likewise: the postinst try-restarts it into the new binary
#   stop        detaches; the kernel answers again
#   squatters   uid 65534 holds the names and the port the service uses
#               before it starts: it starts, answers, and status names it
#               the owner; metrics come up once the port is free
#   share       a drop-in adds CAP_SYS_ADMIN: xdpong attaches in libxdp's
#               dispatcher
#   multi       xdpong.service with a two-interface xdpong.conf: start,
#               both answered, reload after an edit (a new prefix is
#               answered), stop
#   remove      apt remove with the service running: no program, no pins,
#               the kernel answers; purge removes the configuration
#   watchdog    the newer package installed again, the program detached
#               behind the service's back: systemd restarts the service
#               within WatchdogSec, it attaches again with its maps pinned;
#               then purge leaves no program, pin or libxdp state
set -u
export LC_ALL=C

STREAM_RATE_INTERVAL=0.01 # 100 requests a second
PEER=(ip netns exec peer)
STEP=
T0=$SECONDS
read -r OLD NEW <versions
OLD_DEB=$(ls ./xdpong_"${OLD}"_*.deb)
NEW_DEB=$(ls ./xdpong_"${NEW}"_*.deb)

# The unit's sandboxing, as shipped. A directive dropped from the unit
# fails the suite until it is dropped here too, with the reason written
# down in the unit: none is kept untested, none lost unnoticed.
SANDBOX=(NoNewPrivileges ProtectSystem ReadWritePaths RuntimeDirectory RuntimeDirectoryMode
	RuntimeDirectoryPreserve ProtectHome PrivateTmp PrivateDevices PrivateMounts
	ReadOnlyPaths ProtectKernelModules ProtectKernelLogs ProtectControlGroups
	ProtectClock ProtectHostname ProtectProc ProcSubset RestrictAddressFamilies IPAddressDeny
	IPAddressAllow RestrictNamespaces RestrictRealtime RestrictSUIDSGID LockPersonality
	MemoryDenyWriteExecute SystemCallArchitectures SystemCallFilter SystemCallErrorNumber
	UMask LimitMEMLOCK CapabilityBoundingSet)
# The most `systemd-analyze security` may rate a unit.
MAX_EXPOSURE=2.5

fail()
{
	echo "FAIL: $STEP: $*"
	echo "--- systemctl status xdpong@eth1 xdpong:"
	systemctl status --no-pager -l xdpong@eth1 xdpong 2>&1 | tail -n 40
	exit 1
}

step()
{
	STEP=$1
	echo "== $1 ($((SECONDS - T0)) s)"
}

passed()
{
	echo "ok: $STEP"
}

# wait_for SECONDS COMMAND...: until COMMAND succeeds, at most SECONDS.
wait_for()
{
	local limit=$((SECONDS + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ "$SECONDS" -lt "$limit" ] || return 1
		sleep 0.2
	done
}

prop()
{
	systemctl show -p "$2" --value "$1"
}

replied()
{
	xdpong stats "$1" --json | jq -r .replied
}

# replied_since BEFORE N: eth1 has replied N times since the count BEFORE
# (a function: wait_for evaluates its words once).
replied_since()
{
	[ "$(($(replied eth1) - $1))" -ge "$2" ]
}

# ping_ok ADDR: five requests, five replies.
ping_ok()
{
	local out

	out=$("${PEER[@]}" ping -n -c 5 -i 0.2 -W 2 "$1" 2>&1)
	grep -q ' 5 received' <<<"$out" || fail "ping $1: $(grep -E 'transmitted|100%' <<<"$out")"
}

ping_none()
{
	local out

	out=$("${PEER[@]}" ping -n -c 2 -i 0.3 -W 1 "$1" 2>&1)
	grep -q ' 0 received' <<<"$out" || fail "ping $1 answered; expected no reply: $out"
}

# exposure UNIT: systemd-analyze security's overall figure for UNIT,
# as loaded here, is at most MAX_EXPOSURE.
exposure()
{
	local out level

	out=$(systemd-analyze security --no-pager "$1" 2>&1)
	level=$(sed -n 's/^.*Overall exposure level for [^:]*: \([0-9.]*\) .*$/\1/p' <<<"$out")
	[ -n "$level" ] ||
		fail "systemd-analyze security $1 gave no overall exposure: $(tail -n 5 <<<"$out")"
	awk -v l="$level" -v m="$MAX_EXPOSURE" 'BEGIN { exit !(l <= m) }' ||
		fail "systemd-analyze security rates $1 $level, above $MAX_EXPOSURE: $(grep -E \
			' [0-9]\.[0-9]$' <<<"$out")"
	echo "   systemd-analyze security $1: $level"
}

# in_sandbox PID TEST...: test(1) as seen from PID's mount namespace.
in_sandbox()
{
	local pid=$1

	shift
	nsenter -t "$pid" -m test "$@"
}

# http_get ADDR PORT PATH: the status line of GET PATH, through bash's
# /dev/tcp (the guest has no curl).
http_get()
{
	# shellcheck disable=SC2016 # expanded by the inner bash
	timeout 5 bash -c 'exec 3<>"/dev/tcp/$1/$2" && printf "GET %s HTTP/1.0\r\n\r\n" "$3" >&3 &&
		head -n 1 <&3' _ "$@"
}

kernel_echo()
{
	sysctl -qw net.ipv4.icmp_echo_ignore_all="$1" net.ipv6.icmp.echo_ignore_all="$1"
}

no_xdp()
{
	local dev=$1

	ip -d link show dev "$dev" | grep -q 'prog/xdp' &&
		fail "$dev still has an XDP program: $(ip -d link show dev "$dev")"
	[ ! -e "/sys/fs/bpf/xdpong/$dev" ] || fail "pins left: $(ls -R /sys/fs/bpf/xdpong)"
}

#
# under_stream WHAT COMMAND...: run COMMAND while the peer sends 100 echo
# requests a second to eth1, once 100 of them are answered, and until a
# second after COMMAND returned. The stream is two chains of pings at
# 50/s, each a run of 250-request pings back to back, the second chain
# 2.5 s behind the first, so that the moment a ping process starts is
# always covered by the other chain. Requires every request of every
# ping answered, and the replied counter to have grown by exactly the
# requests sent (no count lost or doubled by the hand-over).
#
# Each ping has a deadline (-w): without one, once the last request is
# sent, ping waits for its reply only twice the slowest round trip it has
# seen, and an emulated guest busy with dpkg can be slower than that once
# without anything lost. With -w, ping waits for every reply, sending on
# meanwhile, so a run of 250 can send a few more: what must hold is that
# each of its sequence numbers 1 to 250 was answered.
#
stream_chain()
{
	local tag=$1 k=0

	sleep "$2"
	while [ ! -e /tmp/stream/stop ] && [ "$k" -lt 100 ]; do
		"${PEER[@]}" ping -n -i 0.02 -c 250 -w 30 10.77.0.2 >"/tmp/stream/$tag.$k" 2>&1
		k=$((k + 1))
	done
}

# stream_run FILE: how many requests the ping of FILE sent, if each of
# its sequence numbers 1 to 250 had a reply; false otherwise.
stream_run()
{
	local sent answered

	sent=$(sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' "$1")
	answered=$(grep -o 'icmp_seq=[0-9]*' "$1" | cut -d= -f2 |
		awk '$1 >= 1 && $1 <= 250' | sort -un | wc -l)
	[ -n "$sent" ] && [ "$answered" -eq 250 ] && echo "$sent"
}

under_stream()
{
	local what=$1 before after f n sent=0 runs=0 a b

	shift
	rm -rf /tmp/stream
	mkdir -p /tmp/stream
	before=$(replied eth1) || fail "stats eth1 before $what"
	stream_chain a 0 &
	a=$!
	stream_chain b 2.5 &
	b=$!
	wait_for 30 replied_since "$before" 100 || fail "the stream is not answered before $what"
	"$@" || { touch /tmp/stream/stop; wait; fail "$what failed"; }
	sleep 1
	touch /tmp/stream/stop
	wait "$a" "$b"
	after=$(replied eth1) || fail "stats eth1 after $what"
	for f in /tmp/stream/[ab].*; do
		n=$(stream_run "$f") ||
			fail "replies lost around $what:" \
				"$(grep transmitted "$f" || tail -n 3 "$f"); replied $before ->" \
				"$after; $(xdpong stats eth1 2>&1 | tr '\n' ' ')"
		sent=$((sent + n))
		runs=$((runs + 1))
	done
	[ "$((after - before))" -eq "$sent" ] ||
		fail "replied counter grew by $((after - before)) across $what, expected $sent" \
			"(before $before, after $after)"
	echo "   $sent of $sent answered across $what ($runs pings, each of its 250" \
		"answered); replied $before -> $after"
}

# The service is up again with a main pid other than $1, and answering.
restarted_from()
{
	local pid

	pid=$(prop xdpong@eth1 MainPID)
	[ "$pid" != 0 ] && [ "$pid" != "$1" ] && [ "$(prop xdpong@eth1 ActiveState)" = active ]
}

kill_main()
{
	local pid

	pid=$(prop xdpong@eth1 MainPID)
	kill -9 "$pid" || return 1
	wait_for 60 restarted_from "$pid"
}

reload_same_pid()
{
	local pid=$1

	systemctl reload xdpong@eth1 || return 1
	[ "$(prop xdpong@eth1 MainPID)" = "$pid" ]
}

upgrade()
{
	local pid

	pid=$(prop xdpong@eth1 MainPID)
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$NEW_DEB" >/tmp/upgrade.log 2>&1 || {
		cat /tmp/upgrade.log
		return 1
	}
	wait_for 60 restarted_from "$pid"
}

# link_addrs NETNS DEV V4 V6: DEV up with V4/24 and V6/64 (NETNS: peer,
# or - for the guest's own).
link_addrs()
{
	local run=()

	[ "$1" = - ] || run=(ip netns exec "$1")
	"${run[@]}" ip addr add "$3/24" dev "$2" &&
		"${run[@]}" ip addr add "$4/64" dev "$2" nodad &&
		"${run[@]}" ip link set "$2" up || fail "cannot set up $2 in ${1/-/the guest}"
}

setup_network()
{
	ip netns add peer
	ip link set eth0 netns peer
	ip link add va type veth peer name vb
	ip link set vb netns peer
	"${PEER[@]}" ip link set lo up
	link_addrs peer eth0 10.77.0.1 fd77::1
	link_addrs peer vb 10.78.0.1 fd78::1
	"${PEER[@]}" ip route add 192.0.2.0/24 via 10.78.0.2
	link_addrs - eth1 10.77.0.2 fd77::2
	link_addrs - va 10.78.0.2 fd78::2
	kernel_echo 0
	# The cable carries frames both ways before anything else is tested.
	wait_for 20 "${PEER[@]}" ping -c 1 -W 1 10.77.0.2 ||
		fail "no ping across the cable with the kernel answering"
	wait_for 20 "${PEER[@]}" ping -c 1 -W 1 10.78.0.2 ||
		fail "no ping across the veth with the kernel answering"
	kernel_echo 1
}

step "network"
echo "   $(uname -r); systemd $(systemctl --version | head -n 1 |
	cut -d' ' -f2); packages $OLD and $NEW"
setup_network
ping_none 10.77.0.2
passed

step "install"
dpkg-query -W xdpong >/dev/null 2>&1 && fail "xdpong is installed before the test"
DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$OLD_DEB" >/tmp/install.log 2>&1 ||
	fail "apt install $OLD_DEB: $(tail -n 20 /tmp/install.log)"
[ "$(dpkg-query -W -f '${Version}' xdpong)" = "$OLD" ] || fail "installed version is not $OLD"
[ "$(xdpong --version | cut -d' ' -f2)" = "$OLD" ] ||
	fail "xdpong --version: $(xdpong --version), package $OLD"
systemctl is-active -q xdpong.service &&
	fail "xdpong.service was started on install with no configuration"
systemctl enable --now xdpong@eth1 || fail "systemctl enable --now xdpong@eth1"
[ "$(systemctl is-enabled xdpong@eth1)" = enabled ] || fail "xdpong@eth1 is not enabled"
xdpong status eth1 --json >/tmp/status.json || fail "xdpong status eth1: not attached"
[ "$(jq -r '.interfaces[0].mode' /tmp/status.json)" = native ] ||
	fail "not in native mode: $(jq -c '.interfaces[0] | {mode, dispatcher}' /tmp/status.json)"
echo "   attached: $(jq -c '.interfaces[0] | {prog_id, mode, dispatcher, owner}' /tmp/status.json)"
ping_ok 10.77.0.2
ping_ok fd77::2
[ "$(replied eth1)" -ge 10 ] || fail "the replies were not counted by xdpong"
systemctl status --no-pager xdpong@eth1 | grep -q '^ *Status: "' ||
	fail "no STATUS= line in systemctl status: $(systemctl status --no-pager xdpong@eth1 |
		head -n 12)"
echo "   $(systemctl status --no-pager xdpong@eth1 | grep '^ *Status:' | sed 's/^ *//')"
unit=$(systemctl show -p FragmentPath --value xdpong@eth1)
for d in "${SANDBOX[@]}"; do
	grep -q "^$d=" "$unit" ||
		fail "$unit lacks $d= (kept in SANDBOX here: drop it here too," \
			"with the reason in the unit)"
done
pid=$(prop xdpong@eth1 MainPID)
grep -q '^NoNewPrivs:[[:space:]]*1$' "/proc/$pid/status" || fail "NoNewPrivileges not in force"
capbnd=$(sed -n 's/^CapBnd:[[:space:]]*//p' "/proc/$pid/status")
# CAP_NET_ADMIN (12), CAP_PERFMON (38) and CAP_BPF (39): the unit's bounding
# set. No CAP_SYS_ADMIN (21): xdpong finds itself by its pins.
[ "$capbnd" = 000000c000001000 ] ||
	fail "bounding set $capbnd, expected CAP_NET_ADMIN, CAP_PERFMON and CAP_BPF only"
[ "$(prop xdpong@eth1 ProtectSystem)" = strict ] || fail "ProtectSystem=strict not in force"
[ "$(prop xdpong@eth1 MemoryDenyWriteExecute)" = yes ] || fail "MemoryDenyWriteExecute not in force"
grep -q '^Seccomp:[[:space:]]*2$' "/proc/$pid/status" || fail "no system call filter in force"
[ "$(prop xdpong@eth1 UMask)" = 0077 ] || fail "UMask $(prop xdpong@eth1 UMask), expected 0077"
# What the service may write: the pins and /run/xdpong; not the rest of
# /sys, /proc/sys or the OS.
for p in /sys/fs/bpf /sys/fs/bpf/xdpong /run/xdpong; do
	in_sandbox "$pid" -w "$p" || fail "$p is not writable in the service's sandbox"
done
for p in / /usr /etc /var /sys /sys/class/net /proc/sys/net; do
	in_sandbox "$pid" -w "$p" && fail "$p is writable in the service's sandbox"
done
# /run stays writable in this guest under ProtectSystem=strict (its root
# is the initramfs's rootfs): said, not asserted.
echo "   /run in the sandbox: $(nsenter -t "$pid" -m findmnt -no FSTYPE,OPTIONS /run)"
[ "$(stat -c %a /run/xdpong)" = 700 ] ||
	fail "/run/xdpong is mode $(stat -c %a /run/xdpong), expected 700"
procopts=$(nsenter -t "$pid" -m findmnt -no OPTIONS /proc)
[[ $procopts == *hidepid=invisible* && $procopts == *subset=pid* ]] ||
	fail "ProtectProc/ProcSubset not in force: /proc mounted $procopts"
exposure xdpong@eth1.service
exposure xdpong.service
passed

step "kill -9"
n0=$(prop xdpong@eth1 NRestarts)
under_stream "kill -9 of the main pid" kill_main
[ "$(prop xdpong@eth1 NRestarts)" -gt "$n0" ] || fail "systemd did not count a restart"
passed

step "restart"
under_stream "systemctl restart" systemctl restart xdpong@eth1
passed

step "reload"
under_stream "systemctl reload" reload_same_pid "$(prop xdpong@eth1 MainPID)"
passed

step "upgrade"
under_stream "apt install of $NEW over the running service" upgrade
[ "$(dpkg-query -W -f '${Version}' xdpong)" = "$NEW" ] || fail "installed version is not $NEW"
pid=$(prop xdpong@eth1 MainPID)
exe=$(readlink "/proc/$pid/exe")
[ "$exe" = /usr/sbin/xdpong ] || fail "the service runs $exe, not the new /usr/sbin/xdpong"
xdpong status eth1 --json >/tmp/status.json || fail "not attached after the upgrade"
[ "$(jq -r '.interfaces[0].owner.version' /tmp/status.json)" = "$NEW" ] ||
	fail "owner after the upgrade: $(jq -c '.interfaces[0].owner' /tmp/status.json)"
passed

step "stop"
systemctl stop xdpong@eth1 || fail "systemctl stop"
no_xdp eth1
ping_none 10.77.0.2
kernel_echo 0
ping_ok 10.77.0.2
kernel_echo 1
systemctl disable -q xdpong@eth1
passed

step "squatters"
# Unprivileged processes (uid 65534) hold, before the service starts, every
# name it uses: the abstract socket name owners had before, the metrics
# port; and try to make its directory in /run. None may block it or pass
# for its owner (xdpong(8), SECURITY).
ifindex=$(cat /sys/class/net/eth1/ifindex)
squat()
{
	# exec: the background job's pid is the squatter's own, for kill.
	exec setpriv --reuid=65534 --regid=65534 --clear-groups perl -MSocket -e '
		my ($kind, $name) = @ARGV;
		if ($kind eq "unix") {
			socket(S, PF_UNIX, SOCK_STREAM, 0) or die "socket: $!";
			bind(S, pack_sockaddr_un("\0$name")) or die "bind $name: $!";
		} else {
			socket(S, PF_INET, SOCK_STREAM, 0) or die "socket: $!";
			setsockopt(S, SOL_SOCKET, SO_REUSEADDR, 1);
			bind(S, pack_sockaddr_in($name, inet_aton("127.0.0.1")))
				or die "bind $name: $!";
		}
		listen(S, 8) or die "listen: $!";
		$| = 1; print "ready\n";
		while (accept(C, S)) { close(C) }' "$@"
}
rm -rf /run/xdpong
setpriv --reuid=65534 --regid=65534 --clear-groups mkdir -p /run/xdpong/owner 2>/dev/null &&
	fail "uid 65534 could make /run/xdpong"
squat unix "xdpong/owner/$ifindex" >/tmp/squat1 2>&1 &
sq1=$!
squat inet 9435 >/tmp/squat2 2>&1 &
sq2=$!
wait_for 10 grep -q ready /tmp/squat1 ||
	fail "the socket squatter did not start: $(cat /tmp/squat1)"
wait_for 10 grep -q ready /tmp/squat2 || fail "the port squatter did not start: $(cat /tmp/squat2)"
echo 'XDPONG_IFACE_OPTS="--metrics-listen 127.0.0.1:9435"' >/etc/default/xdpong.eth1
systemctl start xdpong@eth1 || fail "systemctl start xdpong@eth1 with the squatters there"
ping_ok 10.77.0.2
xdpong status eth1 --json >/tmp/status.json || fail "xdpong status eth1 with the squatters there"
owner=$(jq -r '.interfaces[0].owner.pid' /tmp/status.json)
[ "$owner" = "$(prop xdpong@eth1 MainPID)" ] ||
	fail "status names pid $owner as the owner, the service is $(prop \
		xdpong@eth1 MainPID) (squatters $sq1, $sq2)"
kill "$sq2"
wait "$sq2" 2>/dev/null
healthz()
{
	exec 3<>/dev/tcp/127.0.0.1/9435 && printf 'GET /healthz HTTP/1.0\r\n\r\n' >&3 &&
		head -n 1 <&3 | grep -q ' 200 '
}
wait_for 30 healthz || fail "no /healthz on 127.0.0.1:9435 30 s after the port squatter left"
kill "$sq1"
wait "$sq1" 2>/dev/null
systemctl stop xdpong@eth1 || fail "systemctl stop xdpong@eth1"
rm -f /etc/default/xdpong.eth1
no_xdp eth1
passed

step "share"
# A drop-in adds CAP_SYS_ADMIN, as xdpong(8) says: then xdpong attaches in
# libxdp's dispatcher, where others can join it.
mkdir -p /etc/systemd/system/xdpong@eth1.service.d
printf '[Service]\nCapabilityBoundingSet=CAP_SYS_ADMIN\n' \
	>/etc/systemd/system/xdpong@eth1.service.d/share.conf
systemctl daemon-reload
systemctl start xdpong@eth1 || fail "systemctl start xdpong@eth1 with CAP_SYS_ADMIN added"
capbnd=$(sed -n 's/^CapBnd:[[:space:]]*//p' "/proc/$(prop xdpong@eth1 MainPID)/status")
[ "$capbnd" = 000000c000201000 ] ||
	fail "bounding set $capbnd with the drop-in, expected the unit's and CAP_SYS_ADMIN"
ping_ok 10.77.0.2
xdpong status eth1 --json >/tmp/status.json || fail "xdpong status eth1 with CAP_SYS_ADMIN added"
[ "$(jq -r '.interfaces[0].dispatcher' /tmp/status.json)" = true ] ||
	fail "not in libxdp's dispatcher with CAP_SYS_ADMIN: $(jq -c \
		'.interfaces[0] | {mode, dispatcher}' /tmp/status.json)"
echo "   with the drop-in: $(jq -c '.interfaces[0] | {prog_id, mode, dispatcher}' /tmp/status.json)"
systemctl stop xdpong@eth1 || fail "systemctl stop xdpong@eth1 with CAP_SYS_ADMIN added"
no_xdp eth1
rm -r /etc/systemd/system/xdpong@eth1.service.d
systemctl daemon-reload
passed

step "multi"
conf=/etc/xdpong/xdpong.conf
cp "$conf" /tmp/xdpong.conf.orig
# The metrics on every address: the unit's IPAddressAllow= lets only
# loopback clients in. The file in node_exporter's directory, writable
# under ProtectSystem=strict (ReadWritePaths=).
prom=/var/lib/prometheus/node-exporter/xdpong.prom
mkdir -p "${prom%/*}"
cat >"$conf" <<-EOF
	# Two interfaces, one process (tests/vm/systemd/suite.sh).
	[global]
	metrics-listen = 0.0.0.0:9435
	metrics-file = $prom
	[interface eth1]
	mode = native
	[interface va]
	mode = skb
EOF
systemctl start xdpong || fail "systemctl start xdpong"
for a in 10.77.0.2 fd77::2 10.78.0.2 fd78::2; do ping_ok "$a"; done
grep -q '^xdpong_up{device="va"} 1$' "$prom" ||
	fail "no metrics in $prom: $(head -n 5 "$prom" 2>&1)"
http_get 127.0.0.1 9435 /healthz | grep -q '^HTTP/1\.[01] 200 ' ||
	fail "/healthz on 127.0.0.1: $(http_get 127.0.0.1 9435 /healthz 2>&1)"
"${PEER[@]}" bash -c "$(declare -f http_get); http_get 10.77.0.2 9435 /healthz" >/dev/null 2>&1 &&
	fail "/healthz answered the peer: IPAddressAllow=localhost is not in force"
ping_none 192.0.2.7
pid=$(prop xdpong MainPID)
printf 'addr = 192.0.2.0/24\n' >>"$conf"
systemctl reload xdpong || fail "systemctl reload xdpong after adding a prefix to va"
wait_for 10 "${PEER[@]}" ping -c 1 -W 1 192.0.2.7 ||
	fail "the new prefix is not answered after the reload"
[ "$(prop xdpong MainPID)" = "$pid" ] || fail "reload changed the main pid"
printf 'no-such-key = 1\n' >>"$conf"
systemctl reload xdpong 2>/dev/null && fail "a reload with an invalid file succeeded"
[ "$(prop xdpong ActiveState)" = active ] || fail "an invalid file stopped the service"
ping_ok 192.0.2.7
systemctl stop xdpong || fail "systemctl stop xdpong"
no_xdp eth1
no_xdp va
cp /tmp/xdpong.conf.orig "$conf"
passed

step "remove"
systemctl start xdpong@eth1 || fail "systemctl start xdpong@eth1"
ping_ok 10.77.0.2
DEBIAN_FRONTEND=noninteractive apt-get remove -y -q xdpong >/tmp/remove.log 2>&1 ||
	fail "apt remove: $(tail -n 20 /tmp/remove.log)"
systemctl is-active -q xdpong@eth1 && fail "xdpong@eth1 still active after remove"
no_xdp eth1
[ -z "$(ls -A /sys/fs/bpf/xdpong 2>/dev/null)" ] ||
	fail "pins left after remove: $(ls -R /sys/fs/bpf/xdpong)"
kernel_echo 0
ping_ok 10.77.0.2
[ -e "$conf" ] || fail "remove took the configuration (only purge may)"
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q xdpong >/tmp/purge.log 2>&1 ||
	fail "apt purge: $(tail -n 20 /tmp/purge.log)"
for f in /etc/xdpong /etc/default/xdpong; do
	[ ! -e "$f" ] || fail "purge left $f"
done
passed

step "watchdog"
# From the purged state, the newer package again; then the program is
# detached behind the service's back.
DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$NEW_DEB" >/tmp/install.log 2>&1 ||
	fail "apt install $NEW_DEB after purge: $(tail -n 20 /tmp/install.log)"
kernel_echo 1
# The unit's WatchdogSec (30 s) shortened by a drop-in, to save the suite's
# time: the mechanism is the same.
mkdir -p /etc/systemd/system/xdpong@eth1.service.d
printf '[Service]\nWatchdogSec=12s\n' >/etc/systemd/system/xdpong@eth1.service.d/watchdog.conf
systemctl daemon-reload
systemctl enable -q --now xdpong@eth1 || fail "systemctl enable --now xdpong@eth1 after reinstall"
ping_ok 10.77.0.2
pid=$(prop xdpong@eth1 MainPID)
wd=$(prop xdpong@eth1 WatchdogUSec)
ip link set dev eth1 xdp off || fail "cannot detach behind the service's back"
ping_none 10.77.0.2
# WatchdogSec, then the restart (RestartSec=1s) and the attach, under TCG.
wait_for $((${wd%s} + 30)) restarted_from "$pid" || fail "no restart within $wd + 30 s"
journalctl -b -u xdpong@eth1 --no-pager | grep -qi 'watchdog timeout' ||
	fail "the restart was not the watchdog's: $(journalctl -b -u xdpong@eth1 --no-pager |
		tail -n 10)"
wait_for 30 xdpong status eth1 || fail "not attached again after the watchdog restart"
ping_ok 10.77.0.2
xdpong status eth1 --json >/tmp/status.json
[ "$(jq -r '.interfaces[0].maps.stats' /tmp/status.json)" = \
	"$(bpftool map show pinned /sys/fs/bpf/xdpong/eth1/stats -j 2>/dev/null | jq -r .id)" ] ||
	fail "the restarted service's maps are not the pinned ones: $(ls \
		/sys/fs/bpf/xdpong/eth1 2>&1)"
passed

step "remove after the watchdog"
DEBIAN_FRONTEND=noninteractive apt-get purge -y -q xdpong >/tmp/remove.log 2>&1 ||
	fail "apt purge: $(tail -n 20 /tmp/remove.log)"
no_xdp eth1
[ -z "$(ls -A /sys/fs/bpf/xdpong 2>/dev/null)" ] ||
	fail "pins left after purge: $(ls -R /sys/fs/bpf/xdpong)"
ls -d /sys/fs/bpf/xdp/dispatch-* >/dev/null 2>&1 && fail "libxdp's pins left: $(ls /sys/fs/bpf/xdp)"
passed

echo "systemd suite: all steps passed in $((SECONDS - T0)) s"
