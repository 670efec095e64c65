#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# tools/tun-stack, the user-space baseline: real ping and ping -6 to the
# hosts behind a TUN device, answered in user space.
#
#   ns stack (kernel echo off)
#  +------------------------------------------------------------------+
#  | ping 10.78.0.2 -----> ts<id> 10.78.0.1/24 ---fd---> tun-stack     |
#  | ping -6 2001:db8:78::2       2001:db8:78::1/64      (made the TUN) |
#  | ping 10.79.0.5 -----> route 10.79.0.0/24 via the TUN: not its own |
#  +------------------------------------------------------------------+
#
# tun-stack creates the TUN and learns its addresses afterwards (netlink),
# answers for the on-link prefixes, not for addresses only routed to it;
# its counters on exit use xdpong's reason names.
. "$(dirname "$0")/../lib/lib.sh"

TUN_STACK=${TUN_STACK:-$XDPT_REPO/build/tools/tun-stack}
COUNT=5

xdpt_require_root
xdpt_require_cmd ip ping timeout jq
[ -x "$TUN_STACK" ] || xdpt_fail "$TUN_STACK is missing: run 'make' first"
[ -c /dev/net/tun ] || xdpt_skip "no /dev/net/tun"

xdpt_ns_new NS stack
xdpt_kernel_echo_ignore "$NS" 1
xdpt_tmpdir
DEV="ts$XDPT_ID"

ip netns exec "$NS" timeout -k 5 120 "$TUN_STACK" --tun "$DEV" --stats=json \
	>"$XDPT_TMP/stats" 2>"$XDPT_TMP/log" &
STACK=$!
xdpt_wait 5 ip -n "$NS" link show dev "$DEV" || {
	cat "$XDPT_TMP/log" >&2
	xdpt_fail "tun-stack did not create $DEV"
}
ip -n "$NS" addr add 10.78.0.1/24 dev "$DEV"
ip -n "$NS" addr add 2001:db8:78::1/64 dev "$DEV" nodad
ip -n "$NS" link set "$DEV" up
ip -n "$NS" route add 10.79.0.0/24 dev "$DEV"
ip -n "$NS" -6 route add 2001:db8:79::/64 dev "$DEV"

xdpt_ping_all "$NS" -4 10.78.0.2 "$COUNT"
xdpt_log "$(printf '%s\n' "$XDPT_PING_OUT" | tail -n 1)"
xdpt_ping_all "$NS" -6 2001:db8:78::2 "$COUNT"
xdpt_log "$(printf '%s\n' "$XDPT_PING_OUT" | tail -n 1)"
xdpt_ping_all "$NS" -4 10.78.0.200 1 -s 0
xdpt_ping_all "$NS" -4 10.78.0.2 1 -s 1
xdpt_ping_all "$NS" -6 2001:db8:78::abcd 1 -s 7
xdpt_ping_all "$NS" -4 10.78.0.2 1 -s 1472
# Routed into the TUN, but not a prefix of it: not tun-stack's to answer.
xdpt_ping_none "$NS" -4 10.79.0.5 2
xdpt_ping_none "$NS" -6 2001:db8:79::5 2

kill -INT "$STACK"
wait "$STACK"
rc=$?
xdpt_log "$(cat "$XDPT_TMP/log")"
xdpt_assert_eq 0 "$rc" "tun-stack's exit status after SIGINT"
stats=$(cat "$XDPT_TMP/stats")
xdpt_log "tun-stack --stats=json: $stats"
xdpt_get r4 reply_echo4 "$stats"
xdpt_get r6 reply_echo6 "$stats"
xdpt_get nl pass_dst_not_local "$stats"
xdpt_assert_eq $((COUNT + 3)) "$r4" "reply_echo4"
xdpt_assert_eq $((COUNT + 1)) "$r6" "reply_echo6"
xdpt_assert_eq 4 "$nl" "pass_dst_not_local (the routed-only prefixes)"
xdpt_assert_eq 0 "$(printf '%s\n' "$stats" | jq .write_errors)" "write errors"
XDPT_STATS=$stats
xdpt_assert_consistent
xdpt_pass
