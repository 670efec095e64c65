#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# --mode native on a veth whose peer runs no native XDP program: a veth
# drops native XDP_TX frames silently then, so attach refuses, explains,
# says how to fix it, and leaves nothing attached or pinned. A generic
# (skb) program on the peer is not enough. Following the advice works.
#
#   ns ping                                  ns resp
#  +------------------------+  veth pair  +---------------------------+
#  | xp<id> 10.99.0.1/24    |-------------| xr<id> 10.99.0.2/24       |
#  | nothing, xdp_pass skb, |             | xdpong --mode native      |
#  | then the advised fix   |             |                           |
#  +------------------------+             +---------------------------+
. "$(dirname "$0")/../lib/lib.sh"

xdpt_require_all
xdpt_topo_veth
xdpt_kernel_echo_ignore "$NS_RESP" 1
NSENTER=(nsenter "--net=/run/netns/$NS_RESP")
xdpt_track_pins "$IF_RESP"

refused()
{
	xdpt_rc 1 "${NSENTER[@]}" "$XDPONG" attach "$IF_RESP" --mode native
	xdpt_assert_match "$IF_RESP is a veth whose peer $IF_PING .*has no native XDP program" \
		"$XDPT_ERR" "$1: names the peer"
	xdpt_assert_match 'dropped silently' "$XDPT_ERR" "$1: explains why"
	xdpt_assert_match "--mode skb" "$XDPT_ERR" "$1: offers skb mode"
	xdpt_assert_eq 0 "$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")" "$1: XDP program on $IF_RESP"
	[ -e "$XDPT_PIN_ROOT/$IF_RESP" ] && xdpt_fail "$1: pins left by the refused attach"
	xdpt_log "$XDPT_ERR"
}

refused "peer without XDP"

xdpt_xdp_pass "$NS_PING" "$IF_PING" xdpgeneric ||
	xdpt_fail "cannot attach xdp_pass (generic) to $IF_PING"
refused "peer with a generic XDP program"
ip -n "$NS_PING" link set dev "$IF_PING" xdpgeneric off

# The advice names a command to run on the peer (in its namespace): run it.
fix=$(printf '%s\n' "$XDPT_ERR" | sed -n "s/.*'\(xdpong attach $IF_PING [^']*\)'.*/\1/p")
if [ -n "$fix" ]; then
	xdpt_log "following the advice in $NS_PING: $fix"
	# shellcheck disable=SC2086 # the advised command, split as a shell would
	xdpt_ok --ns "$NS_PING" "$XDPONG" ${fix#xdpong }
else
	xdpt_log "no command in the advice; attaching xdp_pass natively to the peer"
	xdpt_peer_xdp_pass
fi
xdpt_ok "${NSENTER[@]}" "$XDPONG" attach "$IF_RESP" --mode native
xdpt_assert_match "attached to $IF_RESP in native mode" "$XDPT_OUT" \
	"native attach once the peer runs XDP"
xdpt_ping_all "$NS_PING" -4 "$RESP4" 3
xdpt_ping_all "$NS_PING" -6 "$RESP6" 3
xdpt_counter rep "$NS_RESP" "$IF_RESP" replied
xdpt_assert_eq 6 "$rep" "replied in native mode"
xdpt_ok "${NSENTER[@]}" "$XDPONG" detach "$IF_RESP"
xdpt_pass
