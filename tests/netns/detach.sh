#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `xdpong detach` gives the kernel back: no XDP program, no pins, and
# pings are answered again exactly when the kernel's own echo is on.
#
#   ns ping                               ns resp
#  +---------------------+  veth pair  +------------------------------+
#  | xp<id> 10.99.0.1/24 |-------------| xr<id> 10.99.0.2/24          |
#  |        fd00:99::1   |             |        fd00:99::2            |
#  +---------------------+             | xdpong attached, then gone   |
#                                      +------------------------------+
#
# Attached through nsenter, so the pins land in this host's bpffs and
# their removal can be checked.
. "$(dirname "$0")/../lib/lib.sh"

xdpt_require_all
xdpt_topo_veth
xdpt_kernel_echo_ignore "$NS_RESP" 1
NSENTER=(nsenter "--net=/run/netns/$NS_RESP")
PINS=$XDPT_PIN_ROOT/$IF_RESP
xdpt_track_pins "$IF_RESP"

xdpt_ok "${NSENTER[@]}" "$XDPONG" attach "$IF_RESP" --mode skb
xdpt_log "$XDPT_OUT"
[ -e "$PINS/stats" ] || xdpt_fail "no pin at $PINS/stats after attach"
XDP_IN_LINK='prog/xdp|[[:space:]]xdp(generic|drv|offload)?[[:space:]]'
xdpt_assert_match "$XDP_IN_LINK" "$(ip -n "$NS_RESP" -d link show dev "$IF_RESP")" \
	"ip -d link while attached"
xdpt_ping_all "$NS_PING" -4 "$RESP4" 3
xdpt_ping_all "$NS_PING" -6 "$RESP6" 3

xdpt_ok "${NSENTER[@]}" "$XDPONG" detach "$IF_RESP"
xdpt_assert_match "detached from $IF_RESP" "$XDPT_OUT" "detach message"

xdpt_assert_eq 0 "$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")" \
	"XDP program id on $IF_RESP after detach"
xdpt_assert_no_match "$XDP_IN_LINK" "$(ip -n "$NS_RESP" -d link show dev "$IF_RESP")" \
	"ip -d link after detach"
[ -e "$PINS" ] && xdpt_fail "pins remain after detach: $(ls "$PINS")"
xdpt_rc 3 "${NSENTER[@]}" "$XDPONG" status "$IF_RESP"
xdpt_assert_match 'xdpong not attached' "$XDPT_OUT" "status after detach"

xdpt_log "kernel echo still off: no answers"
xdpt_ping_none "$NS_PING" -4 "$RESP4" 3
xdpt_ping_none "$NS_PING" -6 "$RESP6" 3

xdpt_log "kernel echo on: the kernel answers"
xdpt_kernel_echo_ignore "$NS_RESP" 0
xdpt_ping_all "$NS_PING" -4 "$RESP4" 3
xdpt_ping_all "$NS_PING" -6 "$RESP6" 3

# A second detach has nothing to do and says so.
xdpt_rc 1 "${NSENTER[@]}" "$XDPONG" detach "$IF_RESP"
xdpt_assert_match "$IF_RESP: xdpong is not attached here" "$XDPT_ERR" "second detach"
xdpt_pass
