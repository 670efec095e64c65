#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `--addr PREFIX`: xdpong answers for a configured prefix that is not
# configured on the interface (anycast style), and only inside it.
#
#   ns ping                                   ns resp (kernel echo off)
#  +-------------------------+  veth pair  +-------------------------------+
#  | xp<id> 10.99.0.1/24     |-------------| xr<id> 10.99.0.2/24           |
#  |        fd00:99::1/64    |             |        fd00:99::2/64          |
#  | 192.0.2.0/24 via .2     |             | xdpong --addr 192.0.2.64/26   |
#  | 2001:db8::/32 via ::2   |             |        --addr 2001:db8:77::/64|
#  +-------------------------+             +-------------------------------+
#
# 192.0.2.77 and 2001:db8:77::1 sit inside the prefixes: XDP answers.
# 192.0.2.200 and 2001:db8:78::1 are routed to the responder too but are
# outside them: no answer, and pass_dst_not_local counts them. Last,
# `addr add` and `del` take 226 prefixes in one call each.
. "$(dirname "$0")/../lib/lib.sh"

xdpt_require_all
xdpt_topo_veth
xdpt_kernel_echo_ignore "$NS_RESP" 1
ip -n "$NS_PING" route add 192.0.2.0/24 via "$RESP4" || xdpt_fail "route 192.0.2.0/24"
ip -n "$NS_PING" -6 route add 2001:db8::/32 via "$RESP6" || xdpt_fail "route 2001:db8::/32"

xdpt_attach "$NS_RESP" "$IF_RESP" --mode skb --addr 192.0.2.64/26 --addr 2001:db8:77::/64
xdpt_assert_match 'answering for 2 IPv4 and 3 IPv6 prefixes' "$XDPT_OUT" \
	"attach counts the --addr prefixes"
xdpt_ok --ns "$NS_RESP" "$XDPONG" status "$IF_RESP" --json
status=$XDPT_OUT
for p in 192.0.2.64/26 2001:db8:77::/64; do
	o=$(printf '%s\n' "$status" | jq -r --arg p "$p" \
		'.interfaces[0].addresses[] | select(.prefix == $p) | .origin')
	xdpt_assert_eq config "$o" "status origin of $p"
done
o=$(printf '%s\n' "$status" | jq -r --arg p "$RESP4/32" \
	'.interfaces[0].addresses[] | select(.prefix == $p) | .origin')
xdpt_assert_eq iface "$o" "status origin of $RESP4/32"

xdpt_log "inside the prefixes: answered by XDP"
xdpt_ping_all "$NS_PING" -4 192.0.2.77 3
xdpt_assert_match 'from 192\.0\.2\.77' "$XDPT_PING_OUT" "reply source address"
xdpt_ping_all "$NS_PING" -6 2001:db8:77::1 3
xdpt_assert_match 'from 2001:db8:77::1' "$XDPT_PING_OUT" "reply source address"
xdpt_stats "$NS_RESP" "$IF_RESP"
xdpt_get r4 reply_echo4
xdpt_get r6 reply_echo6
xdpt_get nl0 pass_dst_not_local
xdpt_assert_eq 3 "$r4" "reply_echo4 for 192.0.2.77"
xdpt_assert_eq 3 "$r6" "reply_echo6 for 2001:db8:77::1"

xdpt_log "outside the prefixes: passed to the kernel, which does not answer"
xdpt_ping_none "$NS_PING" -4 192.0.2.200 2
xdpt_ping_none "$NS_PING" -6 2001:db8:78::1 2
xdpt_stats "$NS_RESP" "$IF_RESP"
xdpt_get r4 reply_echo4
xdpt_get r6 reply_echo6
xdpt_get nl pass_dst_not_local
xdpt_assert_eq 3 "$r4" "reply_echo4 unchanged"
xdpt_assert_eq 3 "$r6" "reply_echo6 unchanged"
xdpt_assert_eq $((nl0 + 4)) "$nl" "pass_dst_not_local after 4 pings outside the prefixes"
xdpt_assert_consistent

xdpt_log "--no-iface-addrs: only the prefixes"
# A takeover: the configured prefixes and the interface's become the new
# command line's; the counters go on.
xdpt_get r4_0 reply_echo4
xdpt_attach "$NS_RESP" "$IF_RESP" --mode skb --no-iface-addrs --addr 192.0.2.64/26
xdpt_assert_match 'answering for 1 IPv4 and 0 IPv6 prefixes' "$XDPT_OUT" \
	"attach with --no-iface-addrs"
xdpt_ping_all "$NS_PING" -4 192.0.2.77 2
xdpt_ping_none "$NS_PING" -4 "$RESP4" 2
xdpt_stats "$NS_RESP" "$IF_RESP"
xdpt_get r4 reply_echo4
xdpt_get nl pass_dst_not_local
xdpt_assert_eq $((r4_0 + 2)) "$r4" "reply_echo4: only 192.0.2.77"
xdpt_assert_ge 2 "$nl" "pass_dst_not_local for the interface's own address"

xdpt_log "addr add and del: as many prefixes as the command line carries"
many=()
for i in $(seq 129 254); do
	many+=("192.0.2.$i/32")
done
for i in $(seq 1 100); do
	many+=("2001:db8:5::$(printf '%x' "$i")/128")
done
operators() {
	xdpt_ok --ns "$NS_RESP" "$XDPONG" addr "$IF_RESP" list --json
	printf '%s\n' "$XDPT_OUT" | jq '[.addresses[] | select(.origin == "operator")] | length'
}
xdpt_ok --ns "$NS_RESP" "$XDPONG" addr "$IF_RESP" add "${many[@]}"
xdpt_assert_eq "${#many[@]}" "$(operators)" "operator prefixes after one add"
xdpt_ping_all "$NS_PING" -4 192.0.2.254 2
xdpt_ping_all "$NS_PING" -6 2001:db8:5::64 2
xdpt_ok --ns "$NS_RESP" "$XDPONG" addr "$IF_RESP" del "${many[@]}"
xdpt_assert_eq 0 "$(operators)" "operator prefixes after one del"
xdpt_ping_none "$NS_PING" -4 192.0.2.254 2

xdpt_ok --ns "$NS_RESP" "$XDPONG" detach "$IF_RESP"
xdpt_pass
