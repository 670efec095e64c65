#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# detach, stats and status on an interface where xdpong is not attached:
# exit 1, and the message says so (and how to attach, for stats).
. "$(dirname "$0")/../lib/lib.sh"

xdpt_require_all
xdpt_ns_new NS notatt

xdpt_rc 1 --ns "$NS" "$XDPONG" detach lo
xdpt_assert_match 'lo: xdpong is not attached here' "$XDPT_ERR" "detach lo"
xdpt_log "$XDPT_ERR"
xdpt_rc 1 --ns "$NS" "$XDPONG" stats lo
xdpt_assert_match "lo: xdpong is not attached \(attach it with 'xdpong attach lo'\)" "$XDPT_ERR" \
	"stats lo"
xdpt_log "$XDPT_ERR"
xdpt_rc 1 --ns "$NS" "$XDPONG" stats lo 1 1 --json
xdpt_assert_match 'lo: xdpong is not attached' "$XDPT_ERR" "stats lo 1 1 --json"
xdpt_assert_eq '' "$XDPT_OUT" "stats --json prints no JSON when not attached"
xdpt_rc 3 --ns "$NS" "$XDPONG" status lo
xdpt_assert_match '^lo: xdpong not attached$' "$XDPT_OUT" "status lo"
xdpt_rc 0 --ns "$NS" "$XDPONG" status
xdpt_assert_match 'not attached to any interface' "$XDPT_OUT" "status"
xdpt_rc 0 --ns "$NS" "$XDPONG" status --json
xdpt_assert_eq 0 "$(printf '%s\n' "$XDPT_OUT" | jq '.interfaces | length')" \
	"status --json interfaces"
xdpt_pass
