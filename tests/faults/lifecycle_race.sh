#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Lifecycle: two `xdpong run`s started at the same instant for one
# interface, five times over. Exactly one wins and serves; the other exits
# 1 at once, naming the winner's pid, and changes nothing; status names the
# winner as the owner.
#
#   ns ping                               ns resp
#  +---------------------+  veth pair  +-------------------------------+
#  | xp<id> 10.99.0.1/24 |-------------| xr<id> 10.99.0.2/24           |
#  +---------------------+             | two runs racing for xr<id>    |
#                                      +-------------------------------+
. "$(dirname "$0")/../lib/faults.bash"

xdf_require
xdf_topo_echo_off

for round in 1 2 3 4 5; do
	nsenter "--net=/run/netns/$NS_RESP" "$XDPONG" run "$IF_RESP" --mode skb \
		>"$XDPT_TMP/a" 2>&1 &
	a=$!
	nsenter "--net=/run/netns/$NS_RESP" "$XDPONG" run "$IF_RESP" --mode skb \
		>"$XDPT_TMP/b" 2>&1 &
	b=$!
	# The loser exits by itself; the winner runs on.
	xdpt_wait 10 sh -c "! kill -0 $a 2>/dev/null || ! kill -0 $b 2>/dev/null" ||
		xdpt_fail "round $round: both runs still running after 10 s"
	sleep 0.3
	if kill -0 "$a" 2>/dev/null; then
		win=$a lose=$b lose_out=$XDPT_TMP/b
	else
		win=$b lose=$a lose_out=$XDPT_TMP/a
	fi
	kill -0 "$win" 2>/dev/null ||
		xdpt_fail "round $round: neither run is running: $(cat "$XDPT_TMP/a" "$XDPT_TMP/b")"
	wait "$lose"
	rc=$?
	xdpt_assert_eq 1 "$rc" "round $round: the loser's exit code"
	xdpt_assert_match "owned by another 'xdpong run' \(pid $win\)" "$(cat "$lose_out")" \
		"round $round: the loser names the winner"
	xdpt_wait 10 grep -q 'running (pid' "$XDPT_TMP/$([ "$win" = "$a" ] && echo a || echo b)" ||
		xdpt_fail "round $round: the winner is not serving"
	xdpt_assert_eq "$win" "$(xdf_owner_pid "$NS_RESP" "$IF_RESP")" \
		"round $round: owner in status"
	xdpt_ping_all "$NS_PING" -4 "$RESP4" 2
	kill -TERM "$win"
	xdf_wait_exit "$win" 5 || xdpt_fail "round $round: the winner did not stop on SIGTERM"
	xdf_assert_state "$NS_RESP" "$IF_RESP" none "round $round: after the winner's SIGTERM"
	xdpt_log "round $round: pid $win won, pid $lose named it and exited 1"
done
xdf_pass
