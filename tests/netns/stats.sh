#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `xdpong stats` from a fresh `ip netns exec`, where the pins are not
# visible: the maps are found through the program attached to the
# interface. One-shot text (with the latency histogram) and JSON, and
# INTERVAL COUNT sampling with per-second rates.
#
#   ns ping                               ns resp (kernel echo off)
#  +---------------------+  veth pair  +------------------------------+
#  | xp<id> 10.99.0.1/24 |-------------| xr<id> 10.99.0.2/24          |
#  | ping -i 0.1 (bg)    |             | xdpong --mode skb            |
#  +---------------------+             +------------------------------+
. "$(dirname "$0")/../lib/lib.sh"

xdpt_require_all
xdpt_topo_veth
xdpt_kernel_echo_ignore "$NS_RESP" 1

# Attached from one `ip netns exec`; every command below runs in a new one.
# Every reply timed, so the histogram count is exact (the default is 1 in 64).
xdpt_attach "$NS_RESP" "$IF_RESP" --mode skb --latency-sample 1
xdpt_run --ns "$NS_RESP" ls "$XDPT_PIN_ROOT"
xdpt_assert_no_match "$IF_RESP" "$XDPT_OUT" "pins visible in a fresh ip netns exec"

xdpt_ping_all "$NS_PING" -4 "$RESP4" 4
xdpt_ping_all "$NS_PING" -6 "$RESP6" 3

xdpt_log "one-shot text"
xdpt_ok --ns "$NS_RESP" "$XDPONG" stats "$IF_RESP"
text=$XDPT_OUT
xdpt_assert_match "^xdpong on $IF_RESP \(program id [0-9]+, skb mode\)" "$text" "stats header"
xdpt_assert_match '^ +replied +7$' "$text" "replied line"
xdpt_assert_match '^ +reply_echo4 +4 ' "$text" "reply_echo4 line"
xdpt_assert_match '^ +reply_echo6 +3 ' "$text" "reply_echo6 line"
xdpt_assert_match 'count +distribution' "$text" "latency histogram header"
xdpt_assert_match '^ +[0-9]+ -> [0-9]+ : [0-9]+ +\|\*+ *\|$' "$text" "a histogram row with stars"

xdpt_log "one-shot JSON"
xdpt_stats "$NS_RESP" "$IF_RESP"
xdpt_assert_consistent
xdpt_get rep replied
xdpt_assert_eq 7 "$rep" "replied"
lat=$(printf '%s\n' "$XDPT_STATS" | jq '.latency.count')
xdpt_assert_eq 7 "$lat" "latency.count with every reply timed"
slots=$(printf '%s\n' "$XDPT_STATS" | jq '.latency.slots | add')
xdpt_assert_eq 7 "$slots" "sum of latency slots"

xdpt_log "INTERVAL COUNT with --json, while pings flow"
xdpt_counter base "$NS_RESP" "$IF_RESP" replied
timeout 30 ip netns exec "$NS_PING" ping -n -q -c 40 -i 0.1 "$RESP4" >/dev/null 2>&1 &
pinger=$!
# replied_above N: replies counted past N (the stream has begun).
replied_above()
{
	local r

	xdpt_counter r "$NS_RESP" "$IF_RESP" replied
	[ "$r" -gt "$1" ]
}
xdpt_wait 10 replied_above "$base" || xdpt_fail "the background ping got no reply within 10 s"
xdpt_ok --ns "$NS_RESP" "$XDPONG" stats "$IF_RESP" 0.5 3 --json
wait "$pinger"
lines=$(printf '%s\n' "$XDPT_OUT" | wc -l)
xdpt_assert_eq 3 "$lines" "JSON lines for COUNT=3"
shape='length == 3 and all(.[]; (.received | type) == "number" and '
shape+='(.replied | type) == "number" and (.passed | type) == "number" and '
shape+='(.dropped | type) == "number" and (.rates.received | type) == "number" and '
shape+='(.rates.replied | type) == "number" and .interval_s > 0)'
printf '%s\n' "$XDPT_OUT" | jq -e -s "$shape" >/dev/null ||
	xdpt_fail "each sample needs received/replied/passed/dropped and rates: $XDPT_OUT"
max_rate=$(printf '%s\n' "$XDPT_OUT" | jq -s 'map(.rates.replied) | max')
xdpt_assert_match '^[1-9][0-9]*(\.[0-9]+)?$' "$max_rate" "highest replied rate while pinging 10/s"
first=$(printf '%s\n' "$XDPT_OUT" | jq -s '.[0].replied')
last=$(printf '%s\n' "$XDPT_OUT" | jq -s '.[2].replied')
[ "$last" -gt "$first" ] || xdpt_fail "replied must grow across samples: $first then $last"

xdpt_log "INTERVAL COUNT as text"
xdpt_ok --ns "$NS_RESP" "$XDPONG" stats "$IF_RESP" 0.2 2
xdpt_assert_match '^time +received +replied +passed +dropped' "$XDPT_OUT" "rate table header"
rows=$(printf '%s\n' "$XDPT_OUT" | grep -Ec '^[0-9]{2}:[0-9]{2}:[0-9]{2} ')
xdpt_assert_eq 2 "$rows" "rate rows for COUNT=2"
xdpt_assert_match 'count +distribution' "$XDPT_OUT" "summary with histogram after the rates"

xdpt_ok --ns "$NS_RESP" "$XDPONG" detach "$IF_RESP"
xdpt_pass
