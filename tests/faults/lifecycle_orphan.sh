#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Lifecycle: a plain `xdpong attach` takes over an orphan (the program of a
# run that was killed) under load, without --force and without a gap: two
# streams of 1,000 echo requests a second (an interface address and a
# configured prefix, the kernel's echo off) lose nothing, `replied` grows
# by exactly the number sent, the runtime prefix stays, and the counters
# are the same maps (status shows the same stats map id). Then `run` takes
# over what `attach` left, in the same way.
#
#   ns ping                               ns resp (kernel echo off)
#  +---------------------+  veth pair  +--------------------------------+
#  | xp<id> 10.99.0.1/24 |-------------| xr<id> 10.99.0.2/24            |
#  | 192.0.2.0/24 via .2 |             | run, killed; attach; run       |
#  +---------------------+             +--------------------------------+
. "$(dirname "$0")/../lib/faults.bash"

xdf_require
xdf_topo_echo_off 192.0.2.0/24
N=3000

xdf_run_bg "$NS_RESP" "$XDPT_TMP/run1" "$IF_RESP" --mode skb --addr 192.0.2.0/24
xdf_run_wait_attached "$NS_RESP" "$IF_RESP" 10 ||
	xdpt_fail "run did not attach: $(cat "$XDPT_TMP/run1")"
xdpt_wait 10 grep -q 'running (pid' "$XDPT_TMP/run1" || xdpt_fail "run is not running"
xdf_x_ok "$NS_RESP" addr "$IF_RESP" add 198.51.100.0/24
kill -9 "$XDF_RUN_PID"
wait "$XDF_RUN_PID" 2>/dev/null
xdf_x_ok "$NS_RESP" status "$IF_RESP"
xdpt_assert_match "owner: +none" "$XDPT_OUT" "status of the orphan"
xdf_x_ok "$NS_RESP" status "$IF_RESP" --json
stats_id=$(jq '.interfaces[0].maps.stats' <<<"$XDPT_OUT")
id1=$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")
xdf_counter rep0 "$NS_RESP" "$IF_RESP" replied

xdpt_log "1. attach over the orphan, under load"
xdf_streams_start "$N" "$RESP4" 192.0.2.1
xdf_streams_flowing "$NS_RESP" "$IF_RESP"
xdf_x_ok "$NS_RESP" attach "$IF_RESP" --addr 192.0.2.0/24
xdpt_assert_match "took over from program id $id1 without a gap" "$XDPT_ERR" \
	"attach over the orphan"
xdf_streams_check "attach over an orphan"
xdf_counter rep1 "$NS_RESP" "$IF_RESP" replied
xdpt_assert_eq $((rep0 + XDF_STREAMS_SENT)) "$rep1" "replied after the takeover"
xdf_x_ok "$NS_RESP" status "$IF_RESP" --json
xdpt_assert_eq "$stats_id" "$(jq '.interfaces[0].maps.stats' <<<"$XDPT_OUT")" \
	"stats map id after the takeover"
origin_q='.interfaces[0].addresses[] | select(.prefix == "198.51.100.0/24") | .origin'
xdpt_assert_eq "operator" "$(jq -r "$origin_q" <<<"$XDPT_OUT")" \
	"runtime prefix after the takeover"
xdf_assert_state "$NS_RESP" "$IF_RESP" attached "after attach over the orphan"

xdpt_log "2. run over what attach left, under load"
id2=$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")
xdf_streams_start "$N" "$RESP4" 192.0.2.1
xdf_streams_flowing "$NS_RESP" "$IF_RESP"
xdf_run_bg "$NS_RESP" "$XDPT_TMP/run2" "$IF_RESP" --mode skb --addr 192.0.2.0/24
xdf_run_wait_attached "$NS_RESP" "$IF_RESP" 10 "$id2" ||
	xdpt_fail "run 2 did not take over: $(cat "$XDPT_TMP/run2")"
xdf_streams_check "run over attach"
xdf_counter rep2 "$NS_RESP" "$IF_RESP" replied
xdpt_assert_eq $((rep1 + XDF_STREAMS_SENT)) "$rep2" "replied after run took over"
kill -TERM "$XDF_RUN_PID"
xdf_wait_exit "$XDF_RUN_PID" 5 || xdpt_fail "run 2 still running after SIGTERM"
xdf_assert_state "$NS_RESP" "$IF_RESP" none "after SIGTERM"
xdf_pass
