#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Fault: `xdpong detach` while a flood of echo requests is running, with
# the kernel's echo on. Every request must be answered, by XDP before the
# detach and by the kernel after it: the switch may lose no more than the
# kernel alone loses in a control run of the same flood. In skb mode and
# in native mode (the pinger's veth runs xdp_pass, so XDP_TX arrives).
#
#   ns ping                                ns resp (kernel echo ON)
#  +----------------------+  veth pair  +-----------------------------+
#  | xp<id> 10.99.0.1/24  |-------------| xr<id> 10.99.0.2/24         |
#  | flood: requests as   |             | xdpong, detached mid-flood  |
#  | fast as it can, for  |             |                             |
#  | FLOOD_SECONDS (3)    |             |                             |
#  +----------------------+             +-----------------------------+
#
# Tolerance: the measured loss may exceed the control run's by 0.01% of
# the requests sent. Control and measured runs are separate floods of a
# few hundred thousand requests; the kernel's own drops (socket and
# backlog queues) vary a little from run to run, while a lost switch
# (requests neither XDP nor the kernel answers while the program is
# replaced) would show as a burst far above that.
. "$(dirname "$0")/../lib/faults.bash"

xdf_require flood
xdpt_topo_veth
xdpt_tmpdir
xdpt_track_pins "$IF_RESP"
xdpt_kernel_echo_ignore "$NS_RESP" 0
SECS=${FLOOD_SECONDS:-3}
MAC=$(xdf_mac "$NS_RESP" "$IF_RESP")

# flood OUT: the flood from the pinger's real address, summary into OUT.
flood()
{
	timeout -k 5 $((SECS + 30)) ip netns exec "$NS_PING" "$FLOOD" -i "$IF_PING" \
		-d "$RESP4" -m "$MAC" -s "$PING4" -t "$SECS" -w 500 >"$1" 2>&1
}

check_flood_line()
{
	local line=$1

	[ -n "$(xdf_kv sent "$line")" ] || xdpt_fail "flood printed no summary: $line"
	[ "$(xdf_kv bad_replies "$line")" = 0 ] || xdpt_fail "malformed replies: $line"
	[ "$(xdf_kv rx_dropped "$line")" = 0 ] ||
		xdpt_fail "the flood's own socket dropped replies, so loss cannot be judged: $line"
}

for mode in skb native; do
	if [ "$mode" = native ]; then
		xdpt_peer_xdp_pass
	fi
	xdpt_log "$mode: control run, kernel only"
	flood "$XDPT_TMP/ctrl"
	ctrl=$(cat "$XDPT_TMP/ctrl")
	check_flood_line "$ctrl"
	c_sent=$(xdf_kv sent "$ctrl") c_rep=$(xdf_kv replies "$ctrl")
	c_loss=$((c_sent - c_rep))
	xdpt_log "  $ctrl"

	xdf_x_ok "$NS_RESP" attach "$IF_RESP" --mode "$mode"
	xdpt_log "$mode: flood, detach after $((SECS / 2)).5 s"
	flood "$XDPT_TMP/det" &
	fpid=$!
	sleep "$((SECS / 2)).5"
	xdf_counter xdp_replied "$NS_RESP" "$IF_RESP" reply_echo4
	t0=$(date +%s%N)
	xdf_x_ok "$NS_RESP" detach "$IF_RESP"
	t_det=$((($(date +%s%N) - t0) / 1000000))
	wait "$fpid"
	det=$(cat "$XDPT_TMP/det")
	check_flood_line "$det"
	d_sent=$(xdf_kv sent "$det") d_rep=$(xdf_kv replies "$det")
	d_loss=$((d_sent - d_rep))
	allowed=$((c_loss + d_sent / 10000))
	xdpt_log "  $det"
	xdpt_log "  XDP had answered $xdp_replied before the detach (took $t_det ms);" \
		"lost $d_loss, control lost $c_loss, allowed $allowed"
	xdf_assert_state "$NS_RESP" "$IF_RESP" none "after the detach"
	# Both answered: XDP a good share before, the kernel everything after.
	xdpt_assert_ge 1000 "$xdp_replied" "$mode: requests XDP answered before the detach"
	xdpt_assert_ge $((xdp_replied + 1000)) "$d_rep" \
		"$mode: replies in all (XDP's and then the kernel's)"
	[ "$d_loss" -le "$allowed" ] ||
		xdpt_fail "$mode: $d_loss of $d_sent requests unanswered across the detach;" \
			"the kernel alone lost $c_loss of $c_sent (allowed $allowed)"
done
xdf_pass
