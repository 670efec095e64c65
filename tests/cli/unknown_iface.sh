#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# An interface that does not exist (or a name too long to exist): exit 1,
# the name in the message, nothing attached or pinned.
. "$(dirname "$0")/../lib/lib.sh"

xdpt_require_all
xdpt_ns_new NS noif
MISSING=nx$XDPT_ID

for cmd in "attach $MISSING" "attach $MISSING --mode skb --force" "detach $MISSING" \
	"status $MISSING" "status $MISSING --json" "stats $MISSING" "stats $MISSING 1 1 --json"; do
	# shellcheck disable=SC2086 # split on purpose
	xdpt_rc 1 --ns "$NS" "$XDPONG" $cmd
	xdpt_assert_match "^xdpong: interface '$MISSING' not found in this network namespace" \
		"$XDPT_ERR" "xdpong $cmd"
done
xdpt_log "$XDPT_ERR"

LONG=abcdefghijklmnop # 16 characters, IFNAMSIZ allows 15
xdpt_rc 2 --ns "$NS" "$XDPONG" attach "$LONG"
xdpt_assert_match "invalid interface name '$LONG': expected 1 to 15 characters" "$XDPT_ERR" \
	"attach $LONG"
xdpt_log "$XDPT_ERR"

# Through nsenter (this host's bpffs): no pins appear for the name.
xdpt_track_pins "$MISSING"
xdpt_rc 1 nsenter "--net=/run/netns/$NS" "$XDPONG" attach "$MISSING"
[ -e "$XDPT_PIN_ROOT/$MISSING" ] && xdpt_fail "pins made for a missing interface"
xdpt_pass
