#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# xdpong on a TUN device (and, as xdp_tap.sh, on a TAP device): a
# process creates the device, writes echo requests into its fd as the far
# end of the link would, and reads the replies back from the same fd.
#
#   ns tun (kernel echo off)
#  +------------------------------------------------------------------+
#  | tuntap_echo --fd--> tt<id> 192.0.2.1/24, 2001:db8::1/64          |
#  |  writes requests      xdpong: TUN skb mode (frames from the IP   |
#  |  reads replies <--fd--        header), TAP native (Ethernet)     |
#  +------------------------------------------------------------------+
#
# TUN: native mode must fail with the skb hint and leave nothing attached;
# auto must fall back to skb and say so. TAP: native must work, and auto
# must pick it. Replies
# must match pkt_reference_reply byte for byte and pass pkt_verify_csums;
# xdpong's counters must show exactly the frames written, by reason, with
# the kernel's echo off (so no reply can have come from the kernel).
# XDPT_MTU (environment): the device's MTU; the MTU-sized requests follow it.
. "$(dirname "$0")/../lib/lib.sh"

KIND=${1:-tun}
XDPT_NAME=test_xdp_$KIND${XDPT_MTU:+_mtu$XDPT_MTU}
TUNTAP_ECHO=${TUNTAP_ECHO:-$XDPT_REPO/build/tests/tuntap_echo}
SELF=$(readlink -f "$0")
LOCAL4=192.0.2.1
LOCAL6=2001:db8::1

# Inside the namespace, run by tuntap_echo once the device exists.
setup()
{
	local dev=$TT_DEV

	if [ -n "${XDPT_MTU:-}" ]; then
		ip link set "$dev" mtu "$XDPT_MTU" || xdpt_fail "cannot set MTU $XDPT_MTU on $dev"
	fi
	ip link set "$dev" up || xdpt_fail "cannot bring $dev up"
	ip addr add "$LOCAL4/24" dev "$dev" || xdpt_fail "cannot add $LOCAL4"
	ip addr add "$LOCAL6/64" dev "$dev" nodad || xdpt_fail "cannot add $LOCAL6"
	if [ "$KIND" = tun ]; then
		xdpt_rc 1 "$XDPONG" attach "$dev" --mode native
		xdpt_assert_match 'native mode.*try --mode skb' "$XDPT_ERR" \
			"native attach on a TUN: the error suggests skb"
		xdpt_rc 3 "$XDPONG" status "$dev"
		xdpt_assert_match 'not attached' "$XDPT_OUT" \
			"after the failed native attach, nothing is attached"
		xdpt_ok "$XDPONG" attach "$dev"
		xdpt_log "$XDPT_OUT"
		xdpt_log "$XDPT_ERR"
		xdpt_assert_match 'native XDP not available.*using skb mode' "$XDPT_ERR" \
			"auto mode on a TUN says it falls back to skb"
		xdpt_assert_match "attached to $dev in skb mode" "$XDPT_OUT" "attach message"
		# XDP_ATTACHED_SKB (2), as the kernel reports it
		xdpt_assert_eq 2 "$(ip -j -d link show dev "$dev" | jq '.[0].xdp.mode')" \
			"the kernel reports a generic (skb) XDP program"
		want_mode=skb want_framing=ip
	else
		xdpt_ok "$XDPONG" attach "$dev" --mode native
		xdpt_assert_match "attached to $dev in native mode" "$XDPT_OUT" \
			"explicit native attach on a TAP"
		xdpt_ok "$XDPONG" detach "$dev"
		xdpt_ok "$XDPONG" attach "$dev"
		xdpt_log "$XDPT_OUT"
		xdpt_assert_match "attached to $dev in native mode" "$XDPT_OUT" \
			"auto mode on a TAP picks native"
		xdpt_assert_no_match 'skb' "$XDPT_ERR" "auto mode on a TAP: no fallback"
		# XDP_ATTACHED_DRV (1), as the kernel reports it
		xdpt_assert_eq 1 "$(ip -j -d link show dev "$dev" | jq '.[0].xdp.mode')" \
			"the kernel reports a native (driver) XDP program"
		want_mode=native want_framing=ethernet
	fi
	xdpt_ok "$XDPONG" status "$dev" --json
	xdpt_assert_eq "$want_mode" "$(printf '%s\n' "$XDPT_OUT" | jq -r '.interfaces[0].mode')" \
		"status mode"
	xdpt_assert_eq "$want_framing" \
		"$(printf '%s\n' "$XDPT_OUT" | jq -r '.interfaces[0].framing')" "status framing"
	exit 0
}

# Inside the namespace, after the checks: the counters, reason by reason.
verify()
{
	local dev=$TT_DEV pair reason want got recv

	xdpt_ok "$XDPONG" stats "$dev" --json
	XDPT_STATS=$XDPT_OUT
	xdpt_log "expected counters: $TT_EXPECT (of $TT_SENT frames written)"
	for pair in $TT_EXPECT; do
		reason=${pair%=*}
		want=${pair#*=}
		xdpt_get got "$reason"
		xdpt_assert_eq "$want" "$got" "xdpong counter $reason"
	done
	xdpt_get recv received
	xdpt_assert_eq "$TT_SENT" "$recv" "xdpong saw every frame written, and only those"
	xdpt_assert_consistent
	xdpt_ok "$XDPONG" detach "$dev"
	exit 0
}

case ${2:-} in
__setup) setup ;;
__verify) verify ;;
esac

xdpt_require_all
[ "${XDPT_MTU:-1500}" -gt 3500 ] && xdpt_require_feature frags "XDP at MTU $XDPT_MTU on a $KIND"
[ -x "$TUNTAP_ECHO" ] || xdpt_fail "$TUNTAP_ECHO is missing: run 'make tests' first"
[ -c /dev/net/tun ] || xdpt_skip "no /dev/net/tun"

xdpt_ns_new NS "$KIND"
xdpt_kernel_echo_ignore "$NS" 1
DEV="tt$XDPT_ID"
xdpt_log "$KIND device $DEV in $NS, kernel echo off"

timeout -k 5 120 ip netns exec "$NS" "$TUNTAP_ECHO" "--$KIND" "$DEV" \
	--local4 "$LOCAL4" --local6 "$LOCAL6" \
	--setup "$(printf '%q %q __setup' "$SELF" "$KIND")" \
	--verify "$(printf '%q %q __verify' "$SELF" "$KIND")"
rc=$?
[ "$rc" -eq 0 ] || xdpt_fail "tuntap_echo --$KIND exited $rc"
ip -n "$NS" link show dev "$DEV" >/dev/null 2>&1 &&
	xdpt_fail "$DEV still exists after its creator exited"
xdpt_pass
