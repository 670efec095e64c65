#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A device whose driver has no native XDP (TUN; dummy too where the module
# exists): --mode native fails with a hint to use --mode skb and leaves
# nothing attached or pinned; auto mode falls back to skb and says so.
#
#   ns tun
#  +------------------------------------+
#  | tun<id> (TUN, no native XDP) up    |
#  | dum<id> (dummy, if available)      |
#  +------------------------------------+
. "$(dirname "$0")/../lib/lib.sh"

xdpt_require_all
[ -c /dev/net/tun ] || xdpt_skip "no /dev/net/tun"
xdpt_ns_new NS tun
DEVS=("tun$XDPT_ID")
ip -n "$NS" tuntap add dev "tun$XDPT_ID" mode tun || xdpt_fail "cannot create a TUN device"
if ip -n "$NS" link add "dum$XDPT_ID" type dummy 2>/dev/null; then
	DEVS+=("dum$XDPT_ID")
else
	xdpt_log "no dummy driver here: TUN only"
fi
NSENTER=(nsenter "--net=/run/netns/$NS")

for dev in "${DEVS[@]}"; do
	ip -n "$NS" link set "$dev" up
	xdpt_track_pins "$dev"
	xdpt_rc 1 "${NSENTER[@]}" "$XDPONG" attach "$dev" --mode native
	xdpt_assert_match "failed to attach to $dev in native mode: .*try --mode skb" "$XDPT_ERR" \
		"native attach on $dev"
	xdpt_log "$XDPT_ERR"
	xdpt_assert_eq 0 "$(xdpt_link_prog_id "$NS" "$dev")" \
		"XDP program on $dev after the failed attach"
	[ -e "$XDPT_PIN_ROOT/$dev" ] &&
		xdpt_fail "pins left by the failed attach: $XDPT_PIN_ROOT/$dev"

	xdpt_ok "${NSENTER[@]}" "$XDPONG" attach "$dev"
	xdpt_assert_match "$dev: native XDP not available .*using skb mode" "$XDPT_ERR" \
		"auto mode says it fell back"
	xdpt_assert_match "attached to $dev in skb mode" "$XDPT_OUT" "auto mode on $dev"
	xdpt_log "$XDPT_ERR"
	xdpt_assert_match "^$dev: xdpong program id [0-9]+, skb mode" \
		"$("${NSENTER[@]}" "$XDPONG" status "$dev")" "status after auto attach"
	xdpt_ok "${NSENTER[@]}" "$XDPONG" detach "$dev"
	[ -e "$XDPT_PIN_ROOT/$dev" ] && xdpt_fail "pins left after detach: $XDPT_PIN_ROOT/$dev"
done
xdpt_pass
