#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# One `xdpong run --config` serves two veth pairs in one namespace:
#  1. both answer pings, /healthz is 200, /metrics parses with Prometheus's
#     own parser (prometheus_client) and has every interface, xdpong_up and
#     build info;
#  2. SIGHUP after adding a prefix to one interface and removing the
#     other: the prefix is answered, the removed one is detached (its
#     pings are the kernel's, and with its echo off, unanswered), the
#     unchanged interfaces keep their program ids;
#  3. an interface deleted: /healthz 503 naming it, xdpong_up 0; back: 200;
#  4. a configured interface that does not exist yet is waited for.
#
#   $NS_PING                          $NS_RESP (kernel echo off)
#  +------------------+  veth 1  +---------------------------------+
#  | fp1<id> 10.81.0.1|----------| fr1<id> 10.81.0.2               |
#  | fp2<id> 10.82.0.1|----------| fr2<id> 10.82.0.2               |
#  | (fp3 later)      |          | xdpong run --config, HTTP :port |
#  +------------------+          +---------------------------------+
. "$(dirname "$0")/../lib/fleet.bash"

xdf_require
xdpt_require_prometheus_client
fl_ns
fl_pair 1
FR1=$FR
fl_pair 2
FR2=$FR
FR3="fr3$XDPT_ID"
xdpt_track_pins "$FR3"
ip -n "$NS_PING" route add 192.0.2.0/24 via 10.82.0.2
FL_LISTEN=127.0.0.1:$(fl_port)
CONF=$XDPT_TMP/xdpong.conf
cat >"$CONF" <<CONF
# two interfaces and one that is not there yet
[global]
metrics-listen = $FL_LISTEN
mode = skb

[interface $FR1]

[interface $FR2]
addr = 192.0.2.0/24

[interface $FR3]
CONF
xdpt_ok "$XDPONG" config check "$CONF"
xdpt_assert_match "valid, 3 interfaces" "$XDPT_OUT" "config check"
fl_run "$CONF"

xdpt_log "1. both interfaces answer; health and metrics"
xdpt_ping_all "$NS_PING" -4 10.81.0.2 2
xdpt_ping_all "$NS_PING" -4 10.82.0.2 2
xdpt_ping_all "$NS_PING" -4 192.0.2.9 2
fl_http /healthz
xdpt_assert_eq 503 "$HTTP_STATUS" "/healthz with $FR3 missing"
xdpt_assert_match "$FR3: not attached: no such interface" "$HTTP_BODY" \
	"/healthz names the missing one"
fl_http /metrics
xdpt_assert_eq 200 "$HTTP_STATUS" "/metrics"
printf '%s' "$HTTP_BODY" >"$XDPT_TMP/metrics"
/usr/bin/python3 - "$XDPT_TMP/metrics" "$FR1" "$FR2" "$FR3" \
	<<'PY' || xdpt_fail "/metrics: $(head -c 2000 "$XDPT_TMP/metrics")"
import sys
from prometheus_client.parser import text_string_to_metric_families
path, fr1, fr2, fr3 = sys.argv[1:5]
fams = {f.name: f for f in text_string_to_metric_families(open(path).read())}
up = {s.labels["device"]: s.value for s in fams["xdpong_up"].samples}
assert up == {fr1: 1, fr2: 1, fr3: 0}, up
assert [s.labels["version"] for s in fams["xdpong_build_info"].samples], "no build info"
rep = {s.labels["device"]: s.value for s in fams["xdpong_packets"].samples
       if s.labels.get("reason") == "reply_echo4"}
assert rep[fr1] >= 2 and rep[fr2] >= 4, rep
assert fr3 not in rep, rep
PY
xdpt_log "/metrics: parsed, xdpong_up 1 1 0"

xdpt_log "4. the missing interface appears and is attached"
xdf_veth "$NS_PING" "fp3$XDPT_ID" 10.83.0.1 "$NS_RESP" "$FR3" 10.83.0.2
xdpt_wait 5 sh -c "ip -n $NS_RESP -d link show dev $FR3 | grep -q xdpgeneric" ||
	xdpt_fail "$FR3 not attached after it appeared: $(cat "$XDPT_TMP/run.out")"
xdpt_ping_all "$NS_PING" -4 10.83.0.2 2
fl_http /healthz
xdpt_assert_eq 200 "$HTTP_STATUS" "/healthz with all three: $HTTP_BODY"

xdpt_log "3. an interface deleted and back: 503, then 200"
ip -n "$NS_RESP" link del "$FR3"
xdpt_wait 5 sh -c "grep -q '$FR3 was deleted' '$XDPT_TMP/run.out'" ||
	xdpt_fail "run did not see $FR3 go"
fl_http /healthz
xdpt_assert_eq 503 "$HTTP_STATUS" "/healthz with $FR3 deleted"
xdpt_assert_match "$FR3: not attached: interface deleted" "$HTTP_BODY" "/healthz says why"
xdf_veth "$NS_PING" "fp3$XDPT_ID" 10.83.0.1 "$NS_RESP" "$FR3" 10.83.0.2
xdpt_wait 5 sh -c "ip -n $NS_RESP -d link show dev $FR3 | grep -q xdpgeneric" ||
	xdpt_fail "$FR3 not attached again: $(cat "$XDPT_TMP/run.out")"
fl_http /healthz
xdpt_assert_eq 200 "$HTTP_STATUS" "/healthz with $FR3 back"

xdpt_log "2. SIGHUP: a prefix added to $FR2, $FR1 removed"
id2=$(xdpt_link_prog_id "$NS_RESP" "$FR2")
id3=$(xdpt_link_prog_id "$NS_RESP" "$FR3")
ip -n "$NS_PING" route add 198.51.100.0/24 via 10.82.0.2
cat >"$CONF" <<CONF
[global]
metrics-listen = $FL_LISTEN
mode = skb

[interface $FR2]
addr = 192.0.2.0/24
addr = 198.51.100.0/24

[interface $FR3]
CONF
kill -HUP "$XDF_RUN_PID"
xdpt_wait 5 sh -c "grep -q 'config applied' '$XDPT_TMP/run.out'" ||
	xdpt_fail "no reload: $(cat "$XDPT_TMP/run.out")"
xdpt_assert_eq 0 "$(xdpt_link_prog_id "$NS_RESP" "$FR1")" "program on the removed $FR1"
xdpt_ping_none "$NS_PING" -4 10.81.0.2 2
xdpt_ping_all "$NS_PING" -4 198.51.100.7 2
xdpt_ping_all "$NS_PING" -4 192.0.2.9 2
xdpt_assert_eq "$id2" "$(xdpt_link_prog_id "$NS_RESP" "$FR2")" \
	"$FR2's program (prefixes changed in place)"
xdpt_assert_eq "$id3" "$(xdpt_link_prog_id "$NS_RESP" "$FR3")" "$FR3's program (unchanged)"
fl_http /healthz
xdpt_assert_eq 200 "$HTTP_STATUS" "/healthz after the reload"
kill -0 "$XDF_RUN_PID" || xdpt_fail "run exited on SIGHUP"

kill -TERM "$XDF_RUN_PID"
xdf_wait_exit "$XDF_RUN_PID" 5 || xdpt_fail "run still running after SIGTERM"
for f in "$FR1" "$FR2" "$FR3"; do
	xdpt_assert_eq 0 "$(xdpt_link_prog_id "$NS_RESP" "$f")" "program on $f after SIGTERM"
done
xdf_pass
