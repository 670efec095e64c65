#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Fault: a 30-second flood at the highest rate the generator reaches (two
# flood processes, one per core: one from the pinger's own address, one
# from 200,000 spoofed sources). xdpong keeps counting right and its maps
# stay bounded (flood B pauses twice for a moment, to count the LRU):
#  - every sample of `xdpong stats IFACE 1 --json`: received = replied +
#    passed + dropped, each outcome the sum of its reasons; every counter
#    monotonic from one sample to the next;
#  - over the whole flood, received moved exactly as the responder veth's
#    rx_packets did (generic XDP sees every frame the device receives),
#    and replied at least by the replies the first flood got back;
#  - no malformed reply (the flood verifies every checksum);
#  - bytes_memlock of each of the program's maps is the same before, in
#    the middle of and after the flood;
#  - the per-source limiter's LRU map (attach --rate-limit, high enough
#    to let every request through) never holds more than max_entries,
#    counted after each of flood B's three phases of 200,000 new sources
#    (three times max_entries each).
#
#   ns ping                                  ns resp (kernel echo off)
#  +--------------------------+  veth pair  +---------------------------+
#  | xp<id> 10.99.0.1/24      |-------------| xr<id> 10.99.0.2/24       |
#  | flood A: 10.99.0.1       |             | xdpong --rate-limit       |
#  | flood B: 3 phases of     |             |   1000000:1000            |
#  |   200,000 spoofed sources|             | stats 1 --json sampler    |
#  +--------------------------+             +---------------------------+
. "$(dirname "$0")/../lib/faults.bash"

xdf_require flood
xdpt_topo_veth
xdpt_tmpdir
xdpt_track_pins "$IF_RESP"
xdpt_kernel_echo_ignore "$NS_RESP" 1
SECS=${FLOOD_SECONDS:-30}
SOURCES=200000
MAC=$(xdf_mac "$NS_RESP" "$IF_RESP")
LATE=()

xdf_x "$NS_RESP" attach "$IF_RESP" --rate-limit 1000000:1000
if [ "$XDPT_RC" -ne 0 ]; then
	# Still check the counters and memory; the LRU check fails at the end.
	late="attach --rate-limit failed ($XDPT_RC): $(printf '%s' "$XDPT_ERR" | tail -n 1)"
	LATE+=("$late; the LRU bound is unchecked")
	xdpt_log "attach --rate-limit failed; attaching without a limit"
	xdf_x_ok "$NS_RESP" attach "$IF_RESP"
	LIMITED=0
else
	LIMITED=1
fi
xdf_x_ok "$NS_RESP" status "$IF_RESP" --json
MAPS=$(printf '%s\n' "$XDPT_OUT" | jq -r '.interfaces[0].maps | to_entries[] | "\(.key)=\(.value)"')
RL_ID=$(printf '%s\n' "$XDPT_OUT" | jq -r '.interfaces[0].maps.ratelim')
RL_MAX=$(bpftool map show id "$RL_ID" -j | jq -r .max_entries)

# memlock: "name=bytes ..." of every map of the program.
memlock()
{
	local m out=

	for m in $MAPS; do
		out="$out ${m%%=*}=$(bpftool map show id "${m#*=}" -j | jq -r .bytes_memlock)"
	done
	echo "${out# }"
}

# lru_count: distinct keys in the rate-limit map now (bounded in time).
lru_count()
{
	timeout -k 2 20 bpftool map dump id "$RL_ID" -j | jq '[.[].key] | unique | length'
}

rx_packets()
{
	ip -s -j -n "$NS_RESP" link show dev "$IF_RESP" | jq -r '.[0].stats64.rx.packets'
}

MEM0=$(memlock)
MAPS_LOG=$(echo $MAPS)
xdpt_log "maps: $MAPS_LOG"
xdpt_log "memlock before: $MEM0"
# rx_packets read on both sides of each stats read: a stray frame (ARP,
# ND) between the two reads must not fail the comparison.
RX0A=$(rx_packets)
xdf_stats "$NS_RESP" "$IF_RESP"
ST0=$XDPT_STATS
RX0B=$(rx_packets)

xdpt_log "flooding for $SECS s from 1 + $SOURCES sources"
timeout -k 5 $((SECS + 60)) nsenter "--net=/run/netns/$NS_RESP" "$XDPONG" \
	stats "$IF_RESP" 1 $((SECS + 2)) --json \
	>"$XDPT_TMP/samples" 2>"$XDPT_TMP/samples.err" &
SAMPLER=$!
timeout -k 5 $((SECS + 60)) ip netns exec "$NS_PING" "$FLOOD" -i "$IF_PING" -d "$RESP4" -m "$MAC" \
	-s "$PING4" -t "$SECS" -w 500 >"$XDPT_TMP/flood.a" 2>&1 &
FA=$!
# Flood B in three phases of fresh sources; between phases no source is
# new, so a dump of the LRU is a true count (during churn a hash map walk
# restarts and repeats keys).
(
	for base in 10.100.0.0 10.104.0.0 10.108.0.0; do
		timeout -k 5 $((SECS + 60)) ip netns exec "$NS_PING" "$FLOOD" -i "$IF_PING" \
			-d "$RESP4" -m "$MAC" -s "$base" -n "$SOURCES" -q -t $((SECS / 3))
		if [ "$LIMITED" = 1 ]; then
			echo "lru=$(lru_count)"
		fi
		echo "memlock $(memlock)"
	done
) >"$XDPT_TMP/flood.b" 2>&1 &
FB=$!
wait "$FA" "$FB"
wait "$SAMPLER" || xdpt_fail "the stats sampler failed: $(cat "$XDPT_TMP/samples.err")"
A=$(cat "$XDPT_TMP/flood.a")
xdpt_log "flood A: $A"
sed 's/^/# flood B: /' "$XDPT_TMP/flood.b"
B_SENT=$(sed -n 's/^sent=\([0-9]*\) .*/\1/p' "$XDPT_TMP/flood.b" |
	awk '{ s += $1 } END { print s + 0 }')
[ -n "$(xdf_kv sent "$A")" ] && [ "$(grep -c '^sent=' "$XDPT_TMP/flood.b")" = 3 ] ||
	xdpt_fail "a flood printed no summary: $A / $(cat "$XDPT_TMP/flood.b")"
[ "$(xdf_kv bad_replies "$A")" = 0 ] || xdpt_fail "malformed replies: $A"
RX1A=$(rx_packets)
xdf_stats "$NS_RESP" "$IF_RESP"
ST1=$XDPT_STATS
RX1B=$(rx_packets)
MEM1=$(memlock)
[ "$LIMITED" = 1 ] && LRU_END=$(lru_count)

xdpt_log "checking $(wc -l <"$XDPT_TMP/samples") samples"
N=$(wc -l <"$XDPT_TMP/samples")
xdpt_assert_ge $((SECS - 2)) "$N" "samples of 'xdpong stats $IF_RESP 1 --json'"
# Per sample: the outcome identities. Between samples: nothing goes down.
BAD=$(jq -c -s '
	def outcome(p): [.reasons | to_entries[] | select(.key | startswith(p)) | .value] | add;
	def flat: {received, replied, passed, dropped} + .reasons;
	(map(select(.received != .replied + .passed + .dropped
		or .replied != outcome("reply_")
		or .passed != outcome("pass_")
		or .dropped != outcome("drop_")) | {time, why: "identity"}))
	+ ([range(1; length) as $i | .[$i - 1] as $a | .[$i] as $b
		| ($a | flat) as $fa | ($b | flat) | to_entries[]
		| select(.value < $fa[.key]) | {time: $b.time, why: "\(.key) went down"}])
	' "$XDPT_TMP/samples") ||
	xdpt_fail "samples are not JSON: $(head -c 300 "$XDPT_TMP/samples")"
[ "$BAD" = "[]" ] || xdpt_fail "inconsistent samples: $BAD"
XDPT_STATS=$ST1
xdpt_assert_consistent

xdpt_get recv0 received "$ST0"
xdpt_get recv1 received "$ST1"
xdpt_get rep0 reply_echo4 "$ST0"
xdpt_get rep1 reply_echo4 "$ST1"
SENT=$(($(xdf_kv sent "$A") + B_SENT))
PPS=$(awk -v s="$SENT" -v t="$SECS" 'BEGIN { printf "%d", s / t }')
RECV=$((recv1 - recv0))
xdpt_log "sent $SENT requests ($PPS/s); xdpong received $RECV, replied $((rep1 - rep0));" \
	"veth rx $((RX1A - RX0B))..$((RX1B - RX0A))"
[ "$RECV" -ge $((RX1A - RX0B)) ] && [ "$RECV" -le $((RX1B - RX0A)) ] ||
	xdpt_fail "xdpong received $RECV frames, the veth's rx_packets moved by" \
		"$((RX1A - RX0B))..$((RX1B - RX0A))"
xdpt_assert_ge "$SENT" "$RECV" "xdpong received (ARP and ND add a few) vs requests sent"
xdpt_assert_ge "$(xdf_kv replies "$A")" $((rep1 - rep0)) "reply_echo4 vs replies flood A got back"

xdpt_log "memlock after:  $MEM1"
sed -n 's/^memlock //p' "$XDPT_TMP/flood.b" | while read -r m; do
	[ "$m" = "$MEM0" ] || xdpt_fail "map memlock changed during the flood: $m (before: $MEM0)"
done || exit 1
xdpt_assert_eq "$MEM0" "$MEM1" "map memlock before vs after the flood"

if [ "$LIMITED" = 1 ]; then
	LRU_PHASES=$(sed -n 's/^lru=//p' "$XDPT_TMP/flood.b" | tr '\n' ' ')
	xdpt_log "rate-limit LRU: $LRU_PHASES entries after each phase, $LRU_END at the end" \
		"(max_entries $RL_MAX, 3 x $SOURCES spoofed sources)"
	[ "$(echo $LRU_PHASES | wc -w)" = 3 ] || xdpt_fail "LRU counts of the phases: '$LRU_PHASES'"
	for n in $LRU_PHASES "$LRU_END"; do
		[ -n "$n" ] && [ "$n" -le "$RL_MAX" ] ||
			xdpt_fail "the LRU holds '$n' entries, max_entries is $RL_MAX"
	done
	# Three times more sources than slots: the map must have filled up.
	xdpt_assert_ge $((RL_MAX / 2)) "$LRU_END" "LRU entries after $SOURCES sources"
fi
if [ "${#LATE[@]}" -gt 0 ]; then
	xdpt_fail "${LATE[*]}"
fi
xdf_pass
