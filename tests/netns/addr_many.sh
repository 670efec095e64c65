#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `xdpong addr IFACE add PREFIX...` takes as many prefixes as the command
# line carries, not a fixed number of arguments: 900 IPv4 and 100 IPv6
# prefixes in one call (an anycast operator's list) are all added, the
# last of them is answered, and one `del` takes them all away again.
. "$(dirname "$0")/../lib/lib.sh"

xdpt_require_all
xdpt_topo_veth
xdpt_kernel_echo_ignore "$NS_RESP" 1
ip -n "$NS_PING" route add 198.18.0.0/15 via "$RESP4" || xdpt_fail "route 198.18.0.0/15"
ip -n "$NS_PING" -6 route add 2001:db8::/32 via "$RESP6" || xdpt_fail "route 2001:db8::/32"
xdpt_attach "$NS_RESP" "$IF_RESP" --mode skb

prefixes=()
for i in $(seq 0 899); do
	prefixes+=("198.18.$((i / 250)).$((i % 250 + 1))/32")
done
for i in $(seq 1 100); do
	prefixes+=("2001:db8:5::$(printf '%x' "$i")/128")
done

operator_count() {
	xdpt_ok --ns "$NS_RESP" "$XDPONG" addr "$IF_RESP" list --json
	printf '%s\n' "$XDPT_OUT" | jq '[.addresses[] | select(.origin == "operator")] | length'
}

xdpt_log "add ${#prefixes[@]} prefixes in one call"
xdpt_ok --ns "$NS_RESP" "$XDPONG" addr "$IF_RESP" add "${prefixes[@]}"
xdpt_assert_eq "${#prefixes[@]}" "$(operator_count)" "operator prefixes after one add"

xdpt_log "the last IPv4 and IPv6 prefixes of the call are answered"
xdpt_ping_all "$NS_PING" -4 198.18.3.150 2
xdpt_ping_all "$NS_PING" -6 2001:db8:5::64 2

xdpt_log "del them all in one call"
xdpt_ok --ns "$NS_RESP" "$XDPONG" addr "$IF_RESP" del "${prefixes[@]}"
xdpt_assert_eq 0 "$(operator_count)" "operator prefixes after one del"
xdpt_ping_none "$NS_PING" -4 198.18.3.150 2
xdpt_pass
