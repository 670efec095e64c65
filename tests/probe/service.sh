#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# run --config with [probe NAME] sections: the service probes beside the
# responder and exports the probes' histogram and counters on /metrics:
#  1. a STAMP section to a user-space reflector and an ICMP one to the
#     kernel, every probe answered, read with prometheus_client beside the
#     responder's metrics; /healthz about the responder alone; the STAMP
#     section's ttl and tos are what the reflector reads;
#  2. SIGHUP with a target added that answers nothing and the ICMP section
#     gone: the target that stays keeps counting from where it was, the new
#     one loses, the ICMP series go, /healthz still 200;
#  3. SIGHUP with a bad [probe] section (no targets; a source that is not
#     this host's): refused, saying why, and nothing changes;
#  4. kill -9, then a new run of the same file: it takes the program over
#     and probes again, with a name of a section in a private /etc/hosts
#     and another one asked of a DNS server that never answers (the queries
#     go to $NS_PING, which forwards nothing): the name in hosts becomes a
#     target, and the run answers /metrics and a SIGHUP, probes, and ends
#     on SIGTERM while the other name is still being looked up.
#
#   $NS_PING                                  $NS_RESP (kernel echo off)
#  +----------------------------+  veth 1  +--------------------------------+
#  | fp1<id> 10.81.0.1          |----------| fr1<id> 10.81.0.2              |
#  | stamp_reflector.py, kernel |          | xdpong run --config, probing   |
#  +----------------------------+          +--------------------------------+
# xdpt-timeout: 240
. "$(dirname "$0")/../lib/fleet.bash"
. "$(dirname "$0")/../lib/probe.bash"

xdf_require
xdpt_require_prometheus_client
fl_ns
fl_pair 1
FR1=$FR
# The service's probes leave their checksums to no offload.
ip netns exec "$NS_RESP" ethtool -K "$FR1" tx off >/dev/null
xpr_reflector "$NS_PING" 4 "$XDPT_TMP/r4.log"
FL_LISTEN=127.0.0.1:$(fl_port)
CONF=$XDPT_TMP/xdpong.conf

# conf [probe sections...]: the config file: FR1, and the sections given.
conf()
{
	printf '[global]\nmetrics-listen = %s\nmode = skb\n\n[interface %s]\n' "$FL_LISTEN" \
		"$FR1" >"$CONF"
	printf '%s\n' "$@" >>"$CONF"
}

# metric NAME PROBE TARGET PROTOCOL: a sample of the last /metrics (empty
# if none), read by prometheus_client.
metric()
{
	"$PY" -c '
import sys
from prometheus_client.parser import text_string_to_metric_families as parse
want = {"probe": sys.argv[2], "target": sys.argv[3], "protocol": sys.argv[4]}
for fam in parse(sys.stdin.read()):
    for s in fam.samples:
        if s.name == sys.argv[1] and s.labels == want:
            print(int(s.value))' "$@" <<<"$HTTP_BODY" || xdpt_fail "/metrics unparsed: $HTTP_BODY"
}

# grows NAME PROBE TARGET PROTOCOL: the sample is there within 3 s, then
# grows within 3 s more; the last value in VALUE.
grows()
{
	local first

	for _ in 1 2 3 4 5 6; do
		fl_http /metrics
		first=$(metric "$@")
		[ -n "$first" ] && break
		sleep 0.5
	done
	for _ in 1 2 3 4 5 6; do
		sleep 0.5
		fl_http /metrics
		VALUE=$(metric "$@")
		[ -n "$first" ] && [ "${VALUE:-0}" -gt "$first" ] && return 0
	done
	xdpt_fail "$* did not grow from '$first': $VALUE"
}

MESH="[probe mesh]
targets = 10.81.0.1
interval = 0.1
timeout = 0.5
ttl = 7
tos = 32
family = ipv4
source = $FR1"
conf "$MESH" '[probe ping]
protocol = icmp
targets = 10.81.0.1
interval = 0.1'
xdpt_ok "$XDPONG" config check "$CONF"
xdpt_assert_match \
	"probe mesh: STAMP every 0.1 s to 10.81.0.1, IPv4 only, from $FR1, ttl 7, tos 32" \
	"$XDPT_OUT" "config check"
fl_run "$CONF"
XDPT_FAIL_LOGS="$XDPT_TMP/run.out"

xdpt_log "1. probing beside the responder"
grows xdpong_probe_received_total mesh 10.81.0.1 stamp
grows xdpong_probe_received_total ping 10.81.0.1 icmp
sleep 1
fl_http /metrics
for p in "mesh stamp" "ping icmp"; do
	read -r name proto <<<"$p"
	sent=$(metric xdpong_probe_sent_total "$name" 10.81.0.1 "$proto")
	rec=$(metric xdpong_probe_received_total "$name" 10.81.0.1 "$proto")
	lost=$(metric xdpong_probe_lost_total "$name" 10.81.0.1 "$proto")
	count=$(metric xdpong_probe_rtt_seconds_count "$name" 10.81.0.1 "$proto")
	xdpt_log "   $name: sent $sent received $rec lost $lost"
	xdpt_assert_eq 0 "$lost" "$name: lost"
	xdpt_assert_eq "$rec" "$count" "$name: the histogram's count"
	[ "$((sent - rec))" -le 1 ] || xdpt_fail "$name: $sent sent, only $rec received"
done
xdpt_assert_match "^xdpong_up\\{device=\"$FR1\"\\} 1$" "$HTTP_BODY" "the responder's metrics too"
xdpt_assert_eq "" "$(awk '$2 != 7 || $3 != 32' "$XDPT_TMP/r4.log")" \
	"ttl = 7, tos = 32: the TTL and TOS of every request the reflector read"
xdpt_assert_ge 5 "$(wc -l <"$XDPT_TMP/r4.log")" "requests the reflector read"
fl_http /healthz
xdpt_assert_eq 200 "$HTTP_STATUS" "/healthz"

xdpt_log "2. SIGHUP: a target added, a section removed; counts kept"
fl_http /metrics
before=$(metric xdpong_probe_sent_total mesh 10.81.0.1 stamp)
conf "$MESH
targets = 10.81.0.3"
kill -HUP "$XDF_RUN_PID"
grows xdpong_probe_lost_total mesh 10.81.0.3 stamp
after=$(metric xdpong_probe_sent_total mesh 10.81.0.1 stamp)
[ "$after" -gt "$before" ] || xdpt_fail "mesh to 10.81.0.1 went from $before to $after sent"
xdpt_assert_eq 0 "$(metric xdpong_probe_lost_total mesh 10.81.0.1 stamp)" \
	"nothing lost to the target that stayed, across the reload"
xdpt_assert_eq "" "$(metric xdpong_probe_sent_total ping 10.81.0.1 icmp)" "the section removed"
fl_http /healthz
xdpt_assert_eq 200 "$HTTP_STATUS" "/healthz while a probe loses"

xdpt_log "3. SIGHUP with a bad [probe] section: refused, nothing changes"
cp "$CONF" "$XDPT_TMP/good.conf"
conf "$MESH" '[probe bad]
interval = 1'
kill -HUP "$XDF_RUN_PID"
xdpt_wait 5 grep -q 'reload: .*\[probe bad\]: no targets; nothing changed' \
	"$XDPT_TMP/run.out" || xdpt_fail "the bad reload was not refused"
grows xdpong_probe_sent_total mesh 10.81.0.3 stamp
xdpt_assert_eq "" "$(metric xdpong_probe_sent_total bad 10.81.0.1 stamp)" "no bad section"
conf "$MESH
source = 192.0.2.77"
kill -HUP "$XDF_RUN_PID"
xdpt_wait 5 grep -q '^xdpong: reload: the new \[probe\] sections cannot be had; nothing changed' \
	"$XDPT_TMP/run.out" || xdpt_fail "a source not of this host was not refused"
xdpt_assert_match '\[probe mesh\]: --source 192\.0\.2\.77: Cannot assign requested address' \
	"$(cat "$XDPT_TMP/run.out")" "why the source was refused"
grows xdpong_probe_sent_total mesh 10.81.0.3 stamp

xdpt_log "4. kill -9, and a new run of the same file; a name never answered"
# A private /etc/hosts, resolv.conf and nsswitch.conf: TWIN is in hosts;
# STALL is asked of 10.89.0.53, routed to $NS_PING, which forwards nothing.
TWIN=xdpt-twin-$XDPT_ID STALL=xdpt-stall-$XDPT_ID.example ETC=$XDPT_TMP/etc
mkdir -p "$ETC"
printf '10.81.0.4 %s\n' "$TWIN" >"$ETC/hosts"
printf 'nameserver 10.89.0.53\noptions timeout:30 attempts:1\n' >"$ETC/resolv.conf"
printf 'hosts: files dns\n' >"$ETC/nsswitch.conf"
chmod 644 "$ETC"/*
xdpt_sysctl "$NS_PING" net.ipv4.ip_forward 0
ip -n "$NS_RESP" route add 10.89.0.53/32 via 10.81.0.1
# private_etc CMD...: exec CMD in $NS_RESP, with those files (in the
# background: $! is CMD).
private_etc()
{
	# shellcheck disable=SC2016 # for the inner shell
	exec unshare -m sh -c 'for f in hosts resolv.conf nsswitch.conf; do
		mount --bind "$0/$f" "/etc/$f" || exit 1; done; exec "$@"' "$ETC" \
		nsenter "--net=/run/netns/$NS_RESP" "$@"
}
private_etc getent ahostsv4 "$STALL" >/dev/null 2>&1 &
stalled=$!
DNS="[probe dns]
targets = $TWIN $STALL
interval = 0.2"
{ cat "$XDPT_TMP/good.conf" && printf '%s\n' "$DNS"; } >"$CONF"
kill -KILL "$XDF_RUN_PID"
wait "$XDF_RUN_PID" 2>/dev/null
xdpt_ping_all "$NS_PING" -4 10.81.0.2 2
private_etc "$XDPONG" run --config "$CONF" >"$XDPT_TMP/run.out" 2>&1 &
XDF_RUN_PID=$!
xdpt_wait 15 grep -q 'running (pid' "$XDPT_TMP/run.out" ||
	xdpt_fail "run --config did not start while $STALL is looked up: $(cat "$XDPT_TMP/run.out")"
start=$EPOCHREALTIME
fl_http /healthz
xdpt_assert_eq 200 "$HTTP_STATUS" "/healthz while $STALL is looked up"
grows xdpong_probe_received_total mesh 10.81.0.1 stamp
grows xdpong_probe_lost_total mesh 10.81.0.3 stamp
grows xdpong_probe_sent_total dns 10.81.0.4 stamp
xdpt_log "   $TWIN found in hosts and probed, /metrics served, $(awk -v a="$start" \
	-v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }') s"
conf "$MESH
targets = 10.81.0.3" "$DNS
targets = 10.81.0.5"
kill -HUP "$XDF_RUN_PID"
grows xdpong_probe_sent_total dns 10.81.0.5 stamp
grows xdpong_probe_sent_total dns 10.81.0.4 stamp
xdpt_ping_all "$NS_PING" -4 10.81.0.2 2
kill -0 "$stalled" 2>/dev/null ||
	xdpt_fail "getent $STALL did not wait for the DNS server: nothing here stalled"
kill -TERM "$XDF_RUN_PID"
xdpt_wait 5 sh -c "! kill -0 $XDF_RUN_PID" ||
	xdpt_fail "run did not end on SIGTERM while $STALL was looked up"
wait "$XDF_RUN_PID" || xdpt_fail "run did not end cleanly: $(tail -n 3 "$XDPT_TMP/run.out")"
kill "$stalled" 2>/dev/null
xdpt_pass
