#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Events the ring buffer has no room for are counted and reported, while
# the trace runs and at its end: a stopped reader (SIGSTOP) during a flood
# of N pings must account for every one of them, printed or lost.
#
#   ns ping (static neighbours)          ns resp (kernel echo off)
#  +---------------------+  veth pair  +------------------------------+
#  | xp<id> 10.99.0.1/24 |-------------| xr<id> 10.99.0.2/24          |
#  | ping -f -c N        |             | xdpong --mode skb            |
#  +---------------------+             | trace --json (stopped)       |
#                                      +------------------------------+
#
# The ring buffer holds 256 KiB, about 2700 events: N is well above that.
. "$(dirname "$0")/../lib/lib.sh"

N=6000

xdpt_require_all
xdpt_tmpdir
xdpt_topo_veth
xdpt_kernel_echo_ignore "$NS_RESP" 1
xdpt_sysctl "$NS_PING" "net.ipv6.conf.$IF_PING.router_solicitations" 0
mac=$(ip -n "$NS_RESP" -j link show dev "$IF_RESP" | jq -r '.[0].address')
ip -n "$NS_PING" neigh replace "$RESP4" lladdr "$mac" dev "$IF_PING" nud permanent ||
	xdpt_fail "cannot add a static neighbour for $RESP4"
xdpt_attach "$NS_RESP" "$IF_RESP" --mode skb

xdpt_wait_quiet "$NS_RESP" "$IF_RESP"

OUT=$XDPT_TMP/trace.out
ERR=$XDPT_TMP/trace.err
ip netns exec "$NS_RESP" timeout -k 5 90 "$XDPONG" trace "$IF_RESP" --json >"$OUT" 2>"$ERR" &
tpid=$!
xdpt_wait 10 grep -q "^xdpong: tracing $IF_RESP" "$ERR" ||
	xdpt_fail "trace did not start: $(cat "$ERR")"
xpid=$(pgrep -P "$tpid")
xdpt_assert_match '^[0-9]+$' "$xpid" "pid of xdpong trace"

xdpt_log "reader stopped; $N pings flood in"
kill -STOP "$xpid"
sent=$(timeout -k 5 60 ip netns exec "$NS_PING" ping -n -f -q -c "$N" -W 1 "$RESP4" |
	sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p')
xdpt_assert_eq "$N" "$sent" "pings sent"
kill -CONT "$xpid"
# Reported while running (checked every second), not only at the end.
xdpt_wait 10 grep -q '"lost":' "$OUT" ||
	xdpt_fail "no lost-events line within 10 s of the reader resuming"
xdpt_wait 10 grep -q "events lost: the ring buffer was full" "$ERR" ||
	xdpt_fail "no lost-events message on stderr: $(cat "$ERR")"
kill -INT "$xpid"
wait "$tpid"
rc=$?
xdpt_assert_eq 0 "$rc" "trace exit code after SIGINT ($(cat "$ERR"))"

printf '%s\n' "$(cat "$OUT")" | jq -e . >/dev/null || xdpt_fail "invalid JSON from trace"
events=$(jq -s '[.[] | select(has("reason"))] | length' "$OUT")
lost=$(jq -s '[.[] | select(has("lost")) | .lost] | add // 0' "$OUT")
requests=$(jq -s '[.[] | select(.reason == "reply_echo4")] | length' "$OUT")
xdpt_log "$events events printed, $lost lost, $requests of them echo replies"
xdpt_assert_ge 1 "$lost" "events lost with the reader stopped"
xdpt_assert_eq "$N" $((events + lost)) "events printed + lost vs requests sent"
xdpt_assert_eq "$events" "$requests" "every printed event is one of the pings"
xdpt_assert_match "xdpong: $IF_RESP: $events packets traced, $lost events lost" \
	"$(cat "$ERR")" "summary on stderr"

# The same loss, as the program counted it (.bss trace_lost).
xdpt_ok --ns "$NS_RESP" "$XDPONG" stats "$IF_RESP" --prometheus
xdpt_assert_match "^xdpong_trace_lost_events_total\{device=\"$IF_RESP\"\} $lost\$" \
	"$XDPT_OUT" "trace_lost in the Prometheus output"
xdpt_pass
