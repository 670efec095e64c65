#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A config file's addr keys are as many as it holds, bounded only by its
# max-prefixes:
#  1. `run --config` of 2,000 addr keys with max-prefixes = 4096 in
#     [global]: config check counts them, status shows maps of 4096 and
#     the 2,000 (origin config) beside the interface's own, and real pings
#     to sampled prefixes are answered;
#  2. SIGHUP with the first 1,500 of them and max-prefixes = 8192: maps of
#     8192 (a new program), 1,500 listed, the 1,501st no longer answered.
#
#   $NS_PING                                 $NS_RESP (kernel echo off)
#  +---------------------------+  veth  +-----------------------------+
#  | fp1<id> 10.81.0.1         |--------| fr1<id> 10.81.0.2           |
#  | 10.0.0.0/8 via 10.81.0.2  |        | xdpong run --config         |
#  +---------------------------+        +-----------------------------+
# xdpt-timeout: 120
. "$(dirname "$0")/../lib/fleet.bash"

xdf_require
CHECK=$XDPT_REPO/build/tests/prefix_check
[ -x "$CHECK" ] || xdpt_fail "$CHECK is missing: make tests"
fl_ns
fl_pair 1
ip -n "$NS_PING" route add 10.0.0.0/8 via "$FR_IP" || xdpt_fail "route 10.0.0.0/8"
CONF=$XDPT_TMP/xdpong.conf
N=2000

# write_conf MAX COUNT: the config, with prefix_check's first COUNT IPv4
# prefixes as addr keys.
write_conf()
{
	{
		printf '[global]\nmode = skb\nmax-prefixes = %s\n\n[interface %s]\n' "$1" "$FR"
		"$CHECK" list 4 "$2" | sed 's/^/addr = /'
	} >"$CONF"
}

# check_status MAX COUNT: maps of MAX, COUNT config prefixes, and the
# interface's own beside them.
check_status()
{
	local n used

	xdf_x_ok "$NS_RESP" status "$FR" --json
	xdpt_assert_eq "$1" "$(jq '.interfaces[0].prefixes.ipv4.max' <<<"$XDPT_OUT")" \
		"IPv4 map size"
	xdpt_assert_eq "$1" "$(jq '.interfaces[0].prefixes.ipv6.max' <<<"$XDPT_OUT")" \
		"IPv6 map size"
	n=$(jq '[.interfaces[0].addresses[] | select(.origin == "config")] | length' \
		<<<"$XDPT_OUT")
	xdpt_assert_eq "$2" "$n" "config prefixes in status"
	n=$(jq '[.interfaces[0].addresses[] | select(.origin == "iface" and
		(.prefix | contains(":") | not))] | length' <<<"$XDPT_OUT")
	used=$(jq '.interfaces[0].prefixes.ipv4.used' <<<"$XDPT_OUT")
	xdpt_assert_match '^[1-9]' "$n" "the interface's own IPv4 addresses"
	xdpt_assert_eq $(($2 + n)) "$used" "IPv4 entries: the config's and the interface's"
}

xdpt_log "1. $N addr keys, max-prefixes = 4096"
write_conf 4096 $N
xdpt_ok "$XDPONG" config check "$CONF"
xdpt_assert_match "$FR +mode skb, $N configured prefixes" "$XDPT_OUT" "config check"
fl_run "$CONF"
check_status 4096 $N
for i in 0 1 999 $((N - 1)); do
	xdpt_ping_all "$NS_PING" -4 "$("$CHECK" inside 4 $i)" 1
done
xdpt_ping_none "$NS_PING" -4 "$("$CHECK" inside 4 $N)" 1

M=1500
xdpt_log "2. SIGHUP: the first $M, max-prefixes = 8192"
id=$(xdpt_link_prog_id "$NS_RESP" "$FR")
write_conf 8192 $M
kill -HUP "$XDF_RUN_PID"
xdpt_wait 10 sh -c "grep -q 'config applied' '$XDPT_TMP/run.out'" ||
	xdpt_fail "no reload: $(cat "$XDPT_TMP/run.out")"
xdpt_assert_ne "$id" "$(xdpt_link_prog_id "$NS_RESP" "$FR")" "a new program for the new size"
check_status 8192 $M
xdpt_ping_all "$NS_PING" -4 "$("$CHECK" inside 4 $((M - 1)))" 1
xdpt_ping_none "$NS_PING" -4 "$("$CHECK" inside 4 $M)" 1
kill -0 "$XDF_RUN_PID" || xdpt_fail "run exited on SIGHUP"

kill -TERM "$XDF_RUN_PID"
xdf_wait_exit "$XDF_RUN_PID" 5 || xdpt_fail "run still running after SIGTERM"
xdpt_assert_eq 0 "$(xdpt_link_prog_id "$NS_RESP" "$FR")" "program after SIGTERM"
xdf_pass
