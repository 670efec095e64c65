#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Lifecycle, the bad cases: each gets a clear answer and loses nothing.
#  1. the pins are gone but the program is attached (its owner ran under
#     `ip netns exec`, whose bpffs vanished with it, then died): a run
#     through nsenter takes it over from the program, counters and all, and
#     pins it where it can;
#  2. /run read-only, with and without /run/xdpong in it: run cannot
#     own the interface (its lock lives there), says so in one line,
#     exits 1 and attaches nothing;
#  3. a bpffs that takes no pins (read-only): attach still answers, says
#     the maps are not pinned, and every command finds them anyway;
#  4. the interface deleted around a takeover: the run that finds it gone
#     says so and exits 1, leaving no pins.
#
#   ns ping                               ns resp (kernel echo off)
#  +---------------------+  veth pair  +------------------------------+
#  | xp<id> 10.99.0.1/24 |-------------| xr<id> 10.99.0.2/24          |
#  +---------------------+             +------------------------------+
. "$(dirname "$0")/../lib/faults.bash"

xdf_require
xdpt_require_cmd unshare
xdpt_topo_veth
xdpt_kernel_echo_ignore "$NS_RESP" 1
xdpt_tmpdir
xdpt_track_pins "$IF_RESP"

xdpt_log "1. pins gone, program attached: taken over from the program"
timeout -k 5 60 ip netns exec "$NS_RESP" "$XDPONG" run "$IF_RESP" --mode skb \
	>"$XDPT_TMP/run1" 2>&1 &
pid=$!
xdpt_wait 10 grep -q 'running (pid' "$XDPT_TMP/run1" ||
	xdpt_fail "run under ip netns exec: $(cat "$XDPT_TMP/run1")"
xdpt_ping_all "$NS_PING" -4 "$RESP4" 3
kill -9 "$(pgrep -P "$pid" || echo "$pid")" "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
[ -e "$XDPT_PIN_ROOT/$IF_RESP" ] && xdpt_fail "pins of an ip netns exec run in this host's bpffs"
id=$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")
[ "$id" != 0 ] || xdpt_fail "no orphan after kill -9"
xdf_counter r0 "$NS_RESP" "$IF_RESP" reply_echo4
xdf_run_bg "$NS_RESP" "$XDPT_TMP/run2" "$IF_RESP" --mode skb
xdf_run_wait_attached "$NS_RESP" "$IF_RESP" 10 "$id" ||
	xdpt_fail "run did not take over: $(cat "$XDPT_TMP/run2")"
xdpt_ping_all "$NS_PING" -4 "$RESP4" 2
xdf_counter r1 "$NS_RESP" "$IF_RESP" reply_echo4
xdpt_assert_eq $((r0 + 2)) "$r1" "reply_echo4 carried over from the pinless orphan"
[ -e "$XDPT_PIN_ROOT/$IF_RESP/stats" ] || xdpt_fail "the taker-over did not pin the maps"
kill -TERM "$XDF_RUN_PID"
xdf_wait_exit "$XDF_RUN_PID" 5 || xdpt_fail "run still running after SIGTERM"
xdf_assert_state "$NS_RESP" "$IF_RESP" none "after SIGTERM"

xdpt_log "2. /run read-only: run says so and attaches nothing"
for made in no yes; do
	# A tmpfs of our own over /run, in a private mount namespace: the
	# host's /run is not touched. made=yes: the lock directory exists.
	nsenter "--net=/run/netns/$NS_RESP" unshare --mount --propagation private sh -c '
		mount -t tmpfs -o mode=0755 tmpfs /run || exit 9
		[ "$3" = no ] || mkdir -m 0700 -p /run/xdpong/owner || exit 9
		mount -o remount,ro /run && touch /run/xdpt-rw-test 2>/dev/null && exit 9
		exec "$1" run "$2" --mode skb' _ "$XDPONG" "$IF_RESP" "$made" >"$XDPT_TMP/run3" 2>&1
	rc=$?
	[ "$rc" = 9 ] && xdpt_skip "cannot mount a read-only tmpfs over /run here"
	xdpt_assert_eq 1 "$rc" \
		"run with /run read-only (lock dir made: $made): $(cat "$XDPT_TMP/run3")"
	xdpt_assert_eq 1 "$(wc -l <"$XDPT_TMP/run3")" "one line (lock dir made: $made)"
	xdpt_assert_match "^xdpong: /run/xdpong.*(Read-only|read-only).*nothing attached" \
		"$(cat "$XDPT_TMP/run3")" "the line (lock dir made: $made)"
	xdf_assert_state "$NS_RESP" "$IF_RESP" none \
		"after a run with /run read-only (lock dir made: $made)"
	xdpt_log "lock dir made: $made: $(cat "$XDPT_TMP/run3")"
done

xdpt_log "3. a bpffs that takes no pins"
nsenter "--net=/run/netns/$NS_RESP" unshare --mount --propagation private sh -c '
	mount -t bpf -o ro bpf /sys/fs/bpf || exit 9
	"$1" attach "$2" --mode skb || exit 1
	"$1" status "$2" || exit 2' _ "$XDPONG" "$IF_RESP" >"$XDPT_TMP/ro" 2>&1
rc=$?
[ "$rc" = 9 ] && xdpt_skip "cannot mount a read-only bpffs here"
xdpt_assert_eq 0 "$rc" "attach and status with a read-only bpffs: $(cat "$XDPT_TMP/ro")"
xdpt_assert_match "maps not pinned: every xdpong command still finds them" \
	"$(cat "$XDPT_TMP/ro")" "the warning"
xdpt_ping_all "$NS_PING" -4 "$RESP4" 2
xdf_x_ok "$NS_RESP" detach "$IF_RESP"

xdpt_log "4. the interface deleted around a takeover"
for delay in 0 0.05 0.1 0.2; do
	ip link add "$IF_PING" netns "$NS_PING" type veth peer name "$IF_RESP" \
			netns "$NS_RESP" 2>/dev/null ||
		true # round 1: the pair is still there
	ip -n "$NS_RESP" link set "$IF_RESP" up
	ip -n "$NS_PING" link set "$IF_PING" up
	ip -n "$NS_RESP" addr replace "$RESP4/24" dev "$IF_RESP"
	xdf_x_ok "$NS_RESP" attach "$IF_RESP" --mode skb
	xdf_run_bg "$NS_RESP" "$XDPT_TMP/run4" "$IF_RESP" --mode skb
	sleep "$delay"
	ip -n "$NS_RESP" link del "$IF_RESP"
	xdf_wait_exit "$XDF_RUN_PID" 10 ||
		xdpt_fail "delay $delay: run still running 10 s after its interface was deleted"
	xdpt_assert_eq 1 "$XDF_EXIT" "delay $delay: run's exit code"
	xdpt_assert_match "not found|was deleted|No such device|cannot" "$(cat "$XDPT_TMP/run4")" \
		"delay $delay: run says why"
	xdpt_assert_no_match "Segmentation|core dumped" "$(cat "$XDPT_TMP/run4")" "delay $delay"
	# Pins of the deleted interface: removed by run, or stale for detach.
	if [ -e "$XDPT_PIN_ROOT/$IF_RESP" ]; then
		xdf_x_ok "$NS_RESP" detach "$IF_RESP"
	fi
	[ -e "$XDPT_PIN_ROOT/$IF_RESP" ] && xdpt_fail "delay $delay: pins left"
	xdpt_log "delay $delay: $(tail -n 1 "$XDPT_TMP/run4")"
done
xdf_pass
