#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Lifecycle: the service dies or restarts under load and not one ping or
# count is lost. Two streams of 1,000 echo requests a second, to an
# interface address and to a configured prefix, with the kernel's echo off
# (only XDP can answer), run through each event:
#  1. `kill -9` of `xdpong run` (a crash, the OOM killer), then a plain
#     restart, as systemd's Restart= does: no --force;
#  2. SIGUSR1, systemd's RestartKillSignal (systemctl restart, a package
#     upgrade): run exits leaving the program attached, the next takes over;
#  3. SIGTERM (systemctl stop): detached, the kernel's again.
# Every request is answered, `replied` grows by exactly the number sent,
# and the operator's runtime prefix (xdpong addr add) is still there.
#
#   ns ping                               ns resp (kernel echo off)
#  +---------------------+  veth pair  +--------------------------------+
#  | xp<id> 10.99.0.1/24 |-------------| xr<id> 10.99.0.2/24            |
#  | 192.0.2.0/24 via .2 |             | xdpong run --addr 192.0.2.0/24 |
#  +---------------------+             +--------------------------------+
. "$(dirname "$0")/../lib/faults.bash"

xdf_require
xdf_topo_echo_off 192.0.2.0/24
N=3000

start_run()
{
	xdf_run_bg "$NS_RESP" "$XDPT_TMP/run$1" "$IF_RESP" --mode skb --addr 192.0.2.0/24
	xdf_run_wait_attached "$NS_RESP" "$IF_RESP" 10 "${2:-}" ||
		xdpt_fail "run $1 did not attach: $(cat "$XDPT_TMP/run$1")"
	xdpt_wait 10 grep -q 'running (pid' "$XDPT_TMP/run$1" ||
		xdpt_fail "run $1 is not running: $(cat "$XDPT_TMP/run$1")"
}

start_run 1
xdf_x_ok "$NS_RESP" addr "$IF_RESP" add 198.51.100.0/24
xdpt_ping_all "$NS_PING" -4 "$RESP4" 1
xdf_counter rep0 "$NS_RESP" "$IF_RESP" replied

xdpt_log "1. kill -9 under load, plain restart"
id1=$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")
xdf_streams_start "$N" "$RESP4" 192.0.2.1
xdf_streams_flowing "$NS_RESP" "$IF_RESP"
kill -9 "$XDF_RUN_PID"
wait "$XDF_RUN_PID" 2>/dev/null
# The orphan goes on answering, owned by nobody.
xdpt_assert_eq "$id1" "$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")" "program after kill -9"
xdpt_assert_eq "" "$(xdf_owner_pid "$NS_RESP" "$IF_RESP")" "owner after kill -9"
start_run 2 "$id1"
xdpt_assert_match "took over from program id $id1 without a gap" "$(cat "$XDPT_TMP/run2")" "run 2"
xdf_streams_check "kill -9 and restart"
xdf_counter rep1 "$NS_RESP" "$IF_RESP" replied
xdpt_assert_eq $((rep0 + XDF_STREAMS_SENT)) "$rep1" "replied after kill -9 and restart"
xdpt_assert_eq "$XDF_RUN_PID" "$(xdf_owner_pid "$NS_RESP" "$IF_RESP")" "owner after the restart"

xdpt_log "2. SIGUSR1 (systemd's restart) under load"
id2=$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")
xdf_streams_start "$N" "$RESP4" 192.0.2.1
xdf_streams_flowing "$NS_RESP" "$IF_RESP"
kill -USR1 "$XDF_RUN_PID"
xdf_wait_exit "$XDF_RUN_PID" 5 || xdpt_fail "run still running 5 s after SIGUSR1"
xdpt_assert_eq 0 "$XDF_EXIT" "run's exit code on SIGUSR1"
xdpt_assert_eq "$id2" "$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")" "program after SIGUSR1"
start_run 3 "$id2"
xdf_streams_check "SIGUSR1 and restart"
xdf_counter rep2 "$NS_RESP" "$IF_RESP" replied
xdpt_assert_eq $((rep1 + XDF_STREAMS_SENT)) "$rep2" "replied after SIGUSR1 and restart"
xdf_x_ok "$NS_RESP" addr "$IF_RESP" list --json
origin_q='.addresses[] | select(.prefix == "198.51.100.0/24") | .origin'
xdpt_assert_eq operator "$(jq -r "$origin_q" <<<"$XDPT_OUT")" \
	"the runtime prefix after two restarts"

xdpt_log "3. SIGTERM: stop hands pings back to the kernel"
kill -TERM "$XDF_RUN_PID"
xdf_wait_exit "$XDF_RUN_PID" 5 || xdpt_fail "run still running 5 s after SIGTERM"
xdpt_assert_eq 0 "$XDF_EXIT" "run's exit code on SIGTERM"
xdf_assert_state "$NS_RESP" "$IF_RESP" none "after SIGTERM"
xdf_pass
