#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# xdpong probe's precision and cost, side by side in one run, on a veth pair
# with xdpong answering (attach --stamp, the kernel's echo off), as root:
#  1. precision: N probes 10 ms apart to the one responder address, by
#     iputils ping (ICMP, user space's clock) and by xdpong probe (STAMP,
#     the kernel's timestamps, the reflector's residence out); targets:
#     probe's p50 at most half of ping's, its p99 - p50 no wider than ping's
#     (xdpong probe --icmp is shown beside them);
#  2. cost: one `xdpong run --config` probing 1,000 targets (a /22 xdpong
#     answers for) 10 times a second each for SECS seconds; targets: at most
#     5% of one CPU (its utime + stime), and no probe lost that xdpong did
#     not fail to answer (its reply_stamp4 count against the probes sent).
#
#   ns xbp-s-ID                               ns xbp-r-ID
#  +---------------------------+   veth    +-------------------------------+
#  | xbsID 198.18.0.1/24       |-----------| xbrID 198.18.0.2/24           |
#  | xdp_pass (native)         |           | xdpong --stamp (native),      |
#  | ping, probe, run --config |           |   --addr 198.19.0.0/22        |
#  | dummy xbdID (run serves)  |           |                               |
#  +---------------------------+           +-------------------------------+
#
# Usage: tools/bench/probe.sh [N [SECS]]   (defaults 1000 and 30; needs
# `make` and `make tests` built: build/xdpong, build/tools/xdp_pass.bpf.o)
set -u
cd "$(dirname "$0")/../.." || exit 1
N=${1:-1000}
SECS=${2:-30}
XDPONG=$PWD/build/xdpong
PASS_OBJ=$PWD/build/tools/xdp_pass.bpf.o
ID=$(($$ % 100000))
S=xbp-s-$ID R=xbp-r-$ID IS=xbs$ID IR=xbr$ID DUM=xbd$ID
TMP=$(mktemp -d /tmp/xbp.XXXXXX) || exit 1

[ "$(id -u)" = 0 ] || { echo "probe bench: must run as root" >&2; exit 1; }
[ -x "$XDPONG" ] && [ -r "$PASS_OBJ" ] || { echo "probe bench: run make first" >&2; exit 1; }
cleanup()
{
	[ -n "${RUN_PID:-}" ] && kill "$RUN_PID" 2>/dev/null && wait "$RUN_PID" 2>/dev/null
	ip netns del "$S" 2>/dev/null
	ip netns del "$R" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
die() { echo "probe bench: $*" >&2; exit 1; }

ip netns add "$S" && ip netns add "$R" || die "cannot create the namespaces"
ip link add "$IS" netns "$S" type veth peer name "$IR" netns "$R" || die "no veth pair"
ip -n "$S" addr add 198.18.0.1/24 dev "$IS"
ip -n "$R" addr add 198.18.0.2/24 dev "$IR"
for x in "$S $IS" "$R $IR"; do
	read -r ns dev <<<"$x"
	ip netns exec "$ns" sysctl -qw "net.ipv6.conf.$dev.disable_ipv6=1"
	ip -n "$ns" link set lo up
	ip -n "$ns" link set "$dev" up
done
ip -n "$S" neigh add 198.18.0.2 lladdr "$(ip -n "$R" -j link show "$IR" | jq -r '.[0].address')" \
	dev "$IS"
ip -n "$R" neigh add 198.18.0.1 lladdr "$(ip -n "$S" -j link show "$IS" | jq -r '.[0].address')" \
	dev "$IR"
ip -n "$S" route add 198.19.0.0/22 via 198.18.0.2
ip -n "$S" link add "$DUM" type veth peer name "${DUM}p" && ip -n "$S" link set "$DUM" up
# STAMP's checksums complete on the wire, as a NIC sends them.
ip netns exec "$S" ethtool -K "$IS" tx off >/dev/null
ip -n "$S" link set dev "$IS" xdpdrv obj "$PASS_OBJ" sec xdp.frags 2>/dev/null ||
	ip -n "$S" link set dev "$IS" xdpdrv obj "$PASS_OBJ" sec xdp || die "no xdp_pass"
ip netns exec "$R" sysctl -qw net.ipv4.icmp_echo_ignore_all=1
ip netns exec "$S" sysctl -qw net.ipv4.ping_group_range="0 2147483647"
ip netns exec "$R" "$XDPONG" attach "$IR" --mode native --stamp --addr 198.19.0.0/22 \
	>/dev/null || die "attach failed"

# stats_get NAME: a counter of xdpong on IR.
stats_get() { ip netns exec "$R" "$XDPONG" stats "$IR" --json | jq ".reasons.$1 // .$1"; }

# p50_p99 FILE: the 50th and 99th percentiles (nearest rank) of the
# numbers in FILE, one a line, in microseconds.
p50_p99()
{
	sort -g "$1" | awk '{ v[NR] = $1 } END { a = int(NR * 0.5 + 0.999999)
		b = int(NR * 0.99 + 0.999999); printf "%.1f %.1f\n", v[a], v[b] }'
}

echo "1. precision: $N probes 10 ms apart to 198.18.0.2, one after the other"
ip netns exec "$S" ping -n -c "$N" -i 0.01 198.18.0.2 |
	sed -n 's/.* time=\([0-9.]*\) ms/\1/p' | awk '{ print $1 * 1000 }' >"$TMP/ping"
read -r ping50 ping99 < <(p50_p99 "$TMP/ping")
for proto in stamp icmp; do
	flag=()
	[ "$proto" = icmp ] && flag=(--icmp)
	ip netns exec "$S" setpriv --reuid=65534 --regid=65534 --clear-groups "$XDPONG" probe \
		"${flag[@]}" -c "$N" -i 0.01 --json 198.18.0.2 >"$TMP/$proto.json" ||
		die "xdpong probe $proto failed"
	read -r p50 p99 < <(jq -r '.targets[0].rtt_ns | "\(.p50 / 1000) \(.p99 / 1000)"' \
		"$TMP/$proto.json")
	printf -v "${proto}50" '%.1f' "$p50"
	printf -v "${proto}99" '%.1f' "$p99"
done
printf '   %-34s %10s %10s %10s\n' "" "p50 us" "p99 us" "p99-p50"
for row in "iputils ping:$ping50:$ping99" "xdpong probe (STAMP):$stamp50:$stamp99" \
	"xdpong probe --icmp:$icmp50:$icmp99"; do
	IFS=: read -r what a b <<<"$row"
	printf '   %-34s %10s %10s %10.1f\n' "$what" "$a" "$b" "$(echo "$b - $a" | bc -l)"
done
verdict() { if [ "$(echo "$1" | bc -l)" = 1 ]; then echo PASS; else echo MISS; fi; }
echo "   target: STAMP p50 <= 0.5 x ping's p50          $(verdict "$stamp50 <= 0.5 * $ping50")"
echo "   target: STAMP p99 - p50 <= ping's p99 - p50     $(verdict \
	"$stamp99 - $stamp50 <= $ping99 - $ping50")"

echo "2. cost: 1,000 targets, 10 probes a second each, from one run, for $SECS s"
# The cost is the run's alone. veth has no interrupt: each side's NAPI (the
# responder's XDP on IR, and the kernel's receive path of the replies on
# IS) would run as a softirq in the sender's context, charged to the run.
# So each runs in a thread of its own (threaded NAPI), pinned with the run
# to one CPU at real-time priority: it works right after each send, as the
# softirq did (on another CPU the sender would pay for waking it, and a
# stalled virtual CPU would overflow veth's ring), but on its own account.
# The run still pays the switches to it and back; a NIC would not cost it.
for x in "$S $IS" "$R $IR"; do
	read -r ns dev <<<"$x"
	ip netns exec "$ns" sh -c "echo 1 >/sys/class/net/$dev/threaded" ||
		die "no threaded NAPI on $dev"
done
# napi_pid DEV: the NAPI thread of DEV.
napi_pid() { pgrep "^napi/$1-" | head -n 1; }
CPU=$(taskset -pc $$ | sed 's/.*: //; s/[-,].*//') # the first this may use
for dev in "$IS" "$IR"; do
	taskset -pc "$CPU" "$(napi_pid "$dev")" >/dev/null || die "cannot pin $dev's NAPI thread"
done
# The replies' receive ahead of the responder, whose XDP_TX fills its ring.
chrt -f -p 51 "$(napi_pid "$IS")" && chrt -f -p 50 "$(napi_pid "$IR")" ||
	die "cannot raise the NAPI threads"
{
	printf '[global]\nmetrics-listen = 127.0.0.1:29435\n[interface %s]\nmode = skb\n' "$DUM"
	printf '[probe thousand]\ninterval = 0.1\ntimeout = 1\n'
	for i in $(seq 0 999); do
		printf '198.19.%d.%d\n' $((i / 250)) $((i % 250 + 1))
	done | paste -d' ' - - - - - - - - - - | sed 's/^/targets = /'
} >"$TMP/run.conf"
taskset -c "$CPU" nsenter "--net=/run/netns/$S" "$XDPONG" run --config "$TMP/run.conf" \
	>"$TMP/run.out" 2>&1 &
RUN_PID=$!
for _ in $(seq 50); do grep -q 'running (pid' "$TMP/run.out" && break; sleep 0.1; done
grep -q 'running (pid' "$TMP/run.out" || die "run did not start: $(cat "$TMP/run.out")"
sleep 3 # every target under way
metrics()
{
	ip netns exec "$S" /usr/bin/python3 -c '
import urllib.request, sys
t = urllib.request.urlopen("http://127.0.0.1:29435/metrics", timeout=10).read().decode()
s = {"sent": 0, "received": 0, "lost": 0}
for line in t.splitlines():
    for k in s:
        if line.startswith("xdpong_probe_%s_total{" % k):
            s[k] += int(float(line.split()[-1]))
print(s["sent"], s["received"], s["lost"])'
}
# ticks [PID]: the CPU time of the run (or PID), in clock ticks.
ticks() { awk '{ print $14 + $15 }' "/proc/${1:-$RUN_PID}/stat"; }
NAPI_S=$(napi_pid "$IS") NAPI_R=$(napi_pid "$IR")
read -r sent0 _ lost0 < <(metrics)
refl0=$(stats_get reply_stamp4)
txf0=$(stats_get tx_failed)
t0=$(ticks) s0=$(ticks "$NAPI_S") r0=$(ticks "$NAPI_R")
sleep "$SECS"
t1=$(ticks) s1=$(ticks "$NAPI_S") r1=$(ticks "$NAPI_R")
read -r sent1 rec1 lost1 < <(metrics)
refl1=$(stats_get reply_stamp4)
txf1=$(stats_get tx_failed)
hz=$(getconf CLK_TCK)
cpu=$(echo "($t1 - $t0) * 100 / $hz / $SECS" | bc -l)
sent=$((sent1 - sent0)) refl=$((refl1 - refl0)) lost=$((lost1 - lost0)) txf=$((txf1 - txf0))
printf '   probes sent %d (%.0f/s), reflected by xdpong %d (of which the driver failed to\n' \
	"$sent" "$(echo "$sent / $SECS" | bc -l)" "$refl"
printf '   send %d), lost %d (in all: %d sent, %d received)\n' "$txf" "$lost" "$sent1" "$rec1"
printf '   CPU of the run: %.2f%% of one CPU\n' "$cpu"
printf '   beside it, in NAPI threads: the replies'"'"' receive (%s) %.2f%%, xdpong (%s) %.2f%%\n' \
	"$IS" "$(echo "($s1 - $s0) * 100 / $hz / $SECS" | bc -l)" "$IR" \
	"$(echo "($r1 - $r0) * 100 / $hz / $SECS" | bc -l)"
echo "   target: <= 5% of one CPU                        $(verdict "$cpu <= 5")"
echo "   target: no probe lost that xdpong answered      $(verdict "$lost <= $txf")"
grep -h "probe thousand" "$TMP/run.out" | sed "s/^/   run said: /"
