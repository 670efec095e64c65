#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# xdpong demo (`make demo`, as root): two network namespaces joined by a
# veth pair. The "pong" side turns its kernel's ping answers off, attaches
# xdpong, and still answers IPv4 and IPv6 pings, from XDP. Then stats,
# status, the maps through bpftool, detach, and the kernel answers again.
#
#   namespace xdpong-demo-ping-PID          namespace xdpong-demo-pong-PID
#  +------------------------------+        +-------------------------------+
#  | ping-PID  10.200.0.1/24      |  veth  | pong-PID  10.200.0.2/24       |
#  |           fd00:200::1/64     |--------|           fd00:200::2/64      |
#  +------------------------------+        | kernel echo off, xdpong on    |
#                                          +-------------------------------+
#
# Nothing outside the two namespaces is touched; both are deleted on exit.

set -euo pipefail
cd "$(dirname "$0")/.."

XDPONG=build/xdpong
COUNT=5
NS_PING=xdpong-demo-ping-$$
NS_PONG=xdpong-demo-pong-$$
IF_PING=ping-$$
IF_PONG=pong-$$
PING4=10.200.0.1
PONG4=10.200.0.2
PING6=fd00:200::1
PONG6=fd00:200::2
PINS=/sys/fs/bpf/xdpong/$IF_PONG

if [ -t 1 ]; then
	BOLD=$(printf '\033[1m') DIM=$(printf '\033[2m') OFF=$(printf '\033[0m')
else
	BOLD='' DIM='' OFF=''
fi

# A step: a title and a line saying what to look for.
step()
{
	printf '\n%s== %s%s\n' "$BOLD" "$1" "$OFF"
	[ $# -gt 1 ] && printf '%s   %s%s\n' "$DIM" "$2" "$OFF"
	return 0
}

# Show a command, then run it (its output indented).
run()
{
	printf '%s$ %s%s\n' "$BOLD" "$*" "$OFF"
	"$@" 2>&1 | sed 's/^/    /'
	return "${PIPESTATUS[0]}"
}

# Same, for a command that is expected to fail (no answer).
run_may_fail()
{
	run "$@" || printf '    %s(exit %d, as expected)%s\n' "$DIM" "$?" "$OFF"
}

cleanup()
{
	set +e
	ip netns del "$NS_PING" 2>/dev/null
	ip netns del "$NS_PONG" 2>/dev/null
	[ -d "$PINS" ] && rm -rf -- "$PINS"
	rmdir /sys/fs/bpf/xdpong 2>/dev/null
	return 0
}

[ "$(id -u)" -eq 0 ] || { echo "tools/demo.sh: run as root (sudo make demo)" >&2; exit 1; }
[ -x "$XDPONG" ] || { echo "tools/demo.sh: $XDPONG is missing: run 'make' first" >&2; exit 1; }
trap cleanup EXIT
trap 'exit 130' INT TERM
trap 'echo "tools/demo.sh: failed: $BASH_COMMAND" >&2' ERR

step "1. Two network namespaces and a veth pair between them" \
	"no duplicate address detection on IPv6 (nodad), so addresses work at once"
run ip netns add "$NS_PING"
run ip netns add "$NS_PONG"
run ip link add "$IF_PING" netns "$NS_PING" type veth peer name "$IF_PONG" netns "$NS_PONG"
ip netns exec "$NS_PING" sysctl -qw "net.ipv6.conf.$IF_PING.accept_dad=0"
ip netns exec "$NS_PONG" sysctl -qw "net.ipv6.conf.$IF_PONG.accept_dad=0"
run ip -n "$NS_PING" addr add "$PING4/24" dev "$IF_PING"
run ip -n "$NS_PING" addr add "$PING6/64" dev "$IF_PING" nodad
run ip -n "$NS_PONG" addr add "$PONG4/24" dev "$IF_PONG"
run ip -n "$NS_PONG" addr add "$PONG6/64" dev "$IF_PONG" nodad
for ns in "$NS_PING" "$NS_PONG"; do
	ip -n "$ns" link set lo up
done
run ip -n "$NS_PING" link set "$IF_PING" up
run ip -n "$NS_PONG" link set "$IF_PONG" up
# Bounded wait for the link: at most 5 s.
for _ in $(seq 50); do
	ip netns exec "$NS_PING" ping -c 1 -W 1 "$PONG4" >/dev/null 2>&1 && break
	sleep 0.1
done

step "2. Turn off the pong side's kernel echo" \
	"from now on only XDP can answer a ping there"
run ip netns exec "$NS_PONG" sysctl -w net.ipv4.icmp_echo_ignore_all=1 \
	net.ipv6.icmp.echo_ignore_all=1
run_may_fail ip netns exec "$NS_PING" ping -c 2 -i 0.2 -W 1 "$PONG4"

why="auto mode picks skb (generic) mode here and says why; --latency-sample 1 times every reply"
why+=" (the default samples 1 in 64)"
step "3. Attach xdpong to $IF_PONG" "$why"
fmt='%s   (nsenter --net keeps this host'"'"'s /sys/fs/bpf, so the pins outlive the command;'
fmt+='\n    ip netns exec would give it a private one)%s\n'
# shellcheck disable=SC2059 # a format built in two pieces
printf "$fmt" "$DIM" "$OFF"
run nsenter --net="/run/netns/$NS_PONG" "$XDPONG" attach "$IF_PONG" --latency-sample 1
run ip -n "$NS_PONG" link show dev "$IF_PONG"

step "4. Ping it: IPv4 and IPv6, answered by XDP" \
	"the kernel ignores echo requests here, yet every ping gets its reply"
run ip netns exec "$NS_PING" ping -c "$COUNT" -i 0.2 "$PONG4"
run ip netns exec "$NS_PING" ping -6 -c "$COUNT" -i 0.2 "$PONG6"

note="replied = $((2 * COUNT)) echo replies; ARP and neighbour discovery went to the kernel"
note+=" (passed).
   Run from a fresh ip netns exec: the maps are found through the attached program."
step "5. xdpong stats: counters by outcome and reason, latency histogram" "$note"
run ip netns exec "$NS_PONG" "$XDPONG" stats "$IF_PONG"

step "6. xdpong status: what is attached where"
run nsenter --net="/run/netns/$NS_PONG" "$XDPONG" status

step "7. The same counters with bpftool, from the pinned map" \
	"per-CPU values with named fields (BTF); xdpong stats sums them"
run nsenter --net="/run/netns/$NS_PONG" bpftool map dump pinned "$PINS/stats"

step "8. Detach: the kernel gets ping back"
run nsenter --net="/run/netns/$NS_PONG" "$XDPONG" detach "$IF_PONG"
printf '    %s(kernel echo is still off: no answer)%s\n' "$DIM" "$OFF"
run_may_fail ip netns exec "$NS_PING" ping -c 2 -i 0.2 -W 1 "$PONG4"
run ip netns exec "$NS_PONG" sysctl -w net.ipv4.icmp_echo_ignore_all=0 \
	net.ipv6.icmp.echo_ignore_all=0
run ip netns exec "$NS_PING" ping -c 3 -i 0.2 "$PONG4"
run ip netns exec "$NS_PING" ping -6 -c 3 -i 0.2 "$PONG6"

step "Done" "the namespaces $NS_PING and $NS_PONG are deleted now"
