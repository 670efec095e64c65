#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `bpftool map dump pinned /sys/fs/bpf/xdpong/IFACE/stats` prints the
# counters with their names (BTF), and the values agree with `xdpong stats`.
#
#   ns ping                               ns resp (kernel echo off)
#  +---------------------+  veth pair  +------------------------------+
#  | xp<id> 10.99.0.1/24 |-------------| xr<id> 10.99.0.2/24          |
#  |        fd00:99::1   |             | xdpong --mode skb            |
#  +---------------------+             +------------------------------+
#
# Two ways to see the pins: inside one `ip netns exec` shell (its private
# bpffs vanishes with it), and through nsenter --net, where the pins are in
# this host's bpffs and persist until `xdpong detach` removes them.
. "$(dirname "$0")/../lib/lib.sh"

xdpt_require_all
xdpt_topo_veth
xdpt_kernel_echo_ignore "$NS_RESP" 1
PINS=$XDPT_PIN_ROOT/$IF_RESP
xdpt_track_pins "$IF_RESP"

# Sum a field over CPUs from `bpftool -j map dump` (the "formatted" part).
sum_field()
{
	printf '%s\n' "$1" | jq --arg f "$2" '[.[0].formatted.values[].value[$f]] | add'
}

xdpt_log "1. attach, ping and dump inside one ip netns exec shell"
xdpt_ok --ns "$NS_RESP" sh -c "
	'$XDPONG' attach '$IF_RESP' --mode skb --latency-sample 1 >/dev/null || exit 1
	ip netns exec '$NS_PING' ping -c 3 -i 0.2 -W 1 -n '$RESP4' >/dev/null || exit 2
	bpftool map dump pinned '$PINS/stats' || exit 3
	echo '----'
	bpftool -j map dump pinned '$PINS/stats' || exit 4
	echo
	echo '----'
	'$XDPONG' stats '$IF_RESP' --json"
part()
{
	printf '%s\n' "$XDPT_OUT" | awk -v n="$1" '/^----$/ { i++; next } i == n'
}
xdpt_assert_match '"reply_echo4": [0-9]+' "$(part 0)" "named field in bpftool map dump"
xdpt_assert_match '"pass_dst_not_local": [0-9]+' "$(part 0)" "named field in bpftool map dump"
xdpt_assert_eq 3 "$(sum_field "$(part 1)" reply_echo4)" "reply_echo4 summed over CPUs (bpftool -j)"
xdpt_get r4 reply_echo4 "$(part 2)"
xdpt_assert_eq 3 "$r4" "reply_echo4 in xdpong stats --json in the same shell"
[ -e "$PINS" ] && xdpt_fail "pins of an ip netns exec shell leaked into this host's bpffs: $PINS"

xdpt_log "2. the same program's pins through nsenter --net (this host's bpffs)"
NSENTER=(nsenter "--net=/run/netns/$NS_RESP")
xdpt_ok --ns "$NS_RESP" "$XDPONG" detach "$IF_RESP"
xdpt_ok "${NSENTER[@]}" "$XDPONG" attach "$IF_RESP" --mode skb --latency-sample 1
xdpt_log "$XDPT_OUT"
[ -e "$PINS/stats" ] || xdpt_fail "no pin at $PINS/stats after attach through nsenter"
xdpt_ping_all "$NS_PING" -4 "$RESP4" 4
xdpt_ping_all "$NS_PING" -6 "$RESP6" 2

# Pins persist across commands: read them from separate invocations.
xdpt_ok "${NSENTER[@]}" bpftool map dump pinned "$PINS/stats"
xdpt_assert_match '"reply_echo6": [0-9]+' "$XDPT_OUT" "named field through nsenter"
# The dump and XDPT_STATS of one moment.
xdpt_wait 10 xdpt_still "$NS_RESP" "$IF_RESP" \
		xdpt_ok "${NSENTER[@]}" bpftool -j map dump pinned "$PINS/stats" ||
	xdpt_fail "packets kept arriving around every dump for 10 s"
dump=$XDPT_OUT
for f in reply_echo4 reply_echo6 pass_l2_group; do
	xdpt_get want "$f"
	xdpt_assert_eq "$want" "$(sum_field "$dump" "$f")" \
		"$f: bpftool sum over CPUs vs xdpong stats"
done
xdpt_get r4 reply_echo4
xdpt_assert_eq 4 "$r4" "reply_echo4 after 4 pings"

xdpt_ok "${NSENTER[@]}" bpftool -j map dump pinned "$PINS/latency"
lat=$(printf '%s\n' "$XDPT_OUT" | jq '[.[0].formatted.values[].value.count] | add')
xdpt_get replied replied
xdpt_assert_eq "$replied" "$lat" "latency map: timed replies (1 in 1) vs replied"
xdpt_ok "${NSENTER[@]}" bpftool map dump pinned "$PINS/addr4"
xdpt_assert_match '"prefixlen": 32' "$XDPT_OUT" "addr4 LPM trie key named"

xdpt_ok "${NSENTER[@]}" "$XDPONG" detach "$IF_RESP"
[ -e "$PINS" ] && xdpt_fail "pins remain after detach: $(ls "$PINS")"
xdpt_pass
