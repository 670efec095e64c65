#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Rate limiting end to end (--rate-limit, against reflection floods).
#  - `attach --rate-limit 50:10`, then floods of 1000 requests/s for 2 s
#    from two IPv4 sources at once: each source gets about 10 + 50/s
#    replies, the rest is counted in drop_rate_limited; an IPv6 source
#    (its /64) is limited the same way.
#  - `attach --global-limit 100:20`, the same two floods: about 20 + 100/s
#    replies in all, the rest in drop_global_limited.
#  - no limit: every request of the same floods is answered, no drops.
# Kernel echo is off, so every reply counted is XDP's.
#
#   ns ping                                 ns resp (kernel echo off)
#  +-------------------------+  veth pair  +---------------------------+
#  | xp<id> 10.99.0.1/24     |-------------| xr<id> 10.99.0.2/24       |
#  |   floods from 10.99.0.1 |             |   xdpong with the limits  |
#  |   and 10.99.0.51 (raw)  |             |                           |
#  |   ping -6 from fd00:99::1             |                           |
#  +-------------------------+             +---------------------------+
#
# Bounds: a GCRA limit of R/s with burst B answers at most B + R*W
# requests in a window of W seconds. W is measured, not assumed: every
# reply a flood counts was admitted after its first request was sent and
# before its last reply was read (flood's start and last_reply), whatever
# the scheduler did to the floods' start or to the responder's backlog;
# two floods' window is their union. The test allows B + R*W plus 3 (the
# rounding of the times), and at least 80% of R*T for the T seconds the
# floods sent (the limit must not be harder than asked).
. "$(dirname "$0")/../lib/faults.bash"

xdf_require flood
xdpt_require_feature rate_limits "rate limits"
xdpt_topo_veth
xdpt_tmpdir
xdpt_track_pins "$IF_RESP"
xdpt_kernel_echo_ignore "$NS_RESP" 1
MAC=$(xdf_mac "$NS_RESP" "$IF_RESP")
RATE=1000 SECS=2

# two_floods: floods from 10.99.0.1 and 10.99.0.51 at once; summaries in
# F1 and F2.
two_floods()
{
	local src

	for src in 1 51; do
		timeout -k 5 30 ip netns exec "$NS_PING" "$FLOOD" -i "$IF_PING" -d "$RESP4" \
			-m "$MAC" -s "10.99.0.$src" -r "$RATE" -t "$SECS" -w 300 \
			>"$XDPT_TMP/flood.$src" 2>&1 &
	done
	wait
	F1=$(cat "$XDPT_TMP/flood.1")
	F2=$(cat "$XDPT_TMP/flood.51")
	for f in "$F1" "$F2"; do
		[ -n "$(xdf_kv sent "$f")" ] || xdpt_fail "flood printed no summary: $f"
		[ "$(xdf_kv bad_replies "$f")" = 0 ] || xdpt_fail "malformed replies: $f"
	done
	xdpt_log "  10.99.0.1:  $F1"
	xdpt_log "  10.99.0.51: $F2"
}

# bounded WHAT GOT BURST PPS WINDOW SENDING: GOT within the GCRA bounds
# for replies admitted within WINDOW seconds by floods that sent for
# SENDING seconds.
bounded()
{
	local max min

	max=$(awk -v b="$3" -v r="$4" -v t="$5" 'BEGIN { printf "%d", b + r * t + 3 }')
	min=$(awk -v r="$4" -v t="$6" 'BEGIN { printf "%d", 0.8 * r * t }')
	[ "$2" -le "$max" ] && [ "$2" -ge "$min" ] ||
		xdpt_fail "$1: $2 replies, expected between $min and $max" \
			"(burst $3, $4/s, window $5 s, sent for $6 s)"
	xdpt_log "  $1: $2 replies (bounds $min..$max, window $5 s)"
}

# window FLOOD...: seconds from the first flood's start to the last reply
# any of them read (their union).
window()
{
	local f starts=() lasts=()

	for f in "$@"; do
		starts+=("$(xdf_kv start "$f")")
		lasts+=("$(xdf_kv last_reply "$f")")
	done
	printf '%s\n' "${starts[*]}" "${lasts[*]}" |
		awk 'NR == 1 { s = $1; for (i = 2; i <= NF; i++) if ($i < s) s = $i }
		NR == 2 { l = $1; for (i = 2; i <= NF; i++) if ($i > l) l = $i }
		END { d = l - s; printf "%.3f", (d > 0 ? d : 0) }'
}

# attach_limited ARGS...: attach with limits, or fail saying why.
attach_limited()
{
	xdf_x "$NS_RESP" attach "$IF_RESP" "$@"
	if [ "$XDPT_RC" -ne 0 ]; then
		_xdpt_show_run
		xdpt_fail "'xdpong attach $IF_RESP $*' exited $XDPT_RC" \
			"(see 'xdpong -v attach' for the verifier log)"
	fi
}

xdpt_log "per source: --rate-limit 50:10"
attach_limited --rate-limit 50:10
xdf_stats "$NS_RESP" "$IF_RESP"
S0=$XDPT_STATS
two_floods
xdf_stats "$NS_RESP" "$IF_RESP"
S1=$XDPT_STATS
for f in "$F1" "$F2"; do
	bounded "source $(xdf_kv seconds "$f") s" "$(xdf_kv replies "$f")" 10 50 "$(window "$f")" \
		"$(xdf_kv seconds "$f")"
done
xdpt_get r0 reply_echo4 "$S0"
xdpt_get r1 reply_echo4 "$S1"
xdpt_get d0 drop_rate_limited "$S0"
xdpt_get d1 drop_rate_limited "$S1"
xdpt_get g1 drop_global_limited "$S1"
sent=$(($(xdf_kv sent "$F1") + $(xdf_kv sent "$F2")))
replies=$(($(xdf_kv replies "$F1") + $(xdf_kv replies "$F2")))
xdpt_assert_eq "$replies" $((r1 - r0)) "reply_echo4 vs replies the floods received"
xdpt_assert_eq $((sent - replies)) $((d1 - d0)) "drop_rate_limited vs requests not answered"
xdpt_assert_eq 0 "$g1" "drop_global_limited without a global limit"

xdpt_log "per source: IPv6, limited by /64"
xdpt_ping "$NS_PING" -6 "$RESP6" 1
out=$(timeout -k 5 20 ip netns exec "$NS_PING" ping -6 -n -q -i 0.002 -c 500 -W 1 "$RESP6" 2>&1)
got6=$(printf '%s\n' "$out" | sed -n 's/.* transmitted, \([0-9]*\) received.*/\1/p')
secs6=$(printf '%s\n' "$out" | sed -n 's/.*received.*time \([0-9]*\)ms.*/\1/p')
[ -n "$got6" ] && [ -n "$secs6" ] || xdpt_fail "ping -6 flood output: $out"
# ping's "time" runs from its first request to its last reply read.
secs6=$(awk -v m="$secs6" 'BEGIN { print m / 1000 }')
bounded "IPv6 source $secs6 s" "$got6" 10 50 "$secs6" "$secs6"
xdf_x_ok "$NS_RESP" detach "$IF_RESP"

xdpt_log "global: --global-limit 100:20"
attach_limited --global-limit 100:20
two_floods
xdf_stats "$NS_RESP" "$IF_RESP"
replies=$(($(xdf_kv replies "$F1") + $(xdf_kv replies "$F2")))
sent=$(($(xdf_kv sent "$F1") + $(xdf_kv sent "$F2")))
sending=$(awk -v a="$(xdf_kv seconds "$F1")" -v b="$(xdf_kv seconds "$F2")" \
	'BEGIN { print (a < b ? a : b) }')
bounded "both sources" "$replies" 20 100 "$(window "$F1" "$F2")" "$sending"
xdpt_get g drop_global_limited
xdpt_get d drop_rate_limited
xdpt_assert_eq $((sent - replies)) "$g" "drop_global_limited vs requests not answered"
xdpt_assert_eq 0 "$d" "drop_rate_limited without a per-source limit"
xdf_x_ok "$NS_RESP" detach "$IF_RESP"

xdpt_log "no limit: everything answered"
xdf_x_ok "$NS_RESP" attach "$IF_RESP"
two_floods
for f in "$F1" "$F2"; do
	xdpt_assert_eq "$(xdf_kv sent "$f")" "$(xdf_kv replies "$f")" "replies without limits"
done
xdf_stats "$NS_RESP" "$IF_RESP"
xdpt_get d drop_rate_limited
xdpt_get g drop_global_limited
xdpt_assert_eq 0 "$d" "drop_rate_limited without limits"
xdpt_assert_eq 0 "$g" "drop_global_limited without limits"
xdf_x_ok "$NS_RESP" detach "$IF_RESP"
xdf_pass
