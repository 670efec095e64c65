#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Debian's Prometheus server scrapes `xdpong run --config` every second with
# deploy/prometheus/'s job and rules, and its HTTP API agrees with xdpong:
#  1. the target is up, and every rule of xdpong-alerts.yml evaluates
#     without error on the real series;
#  2. a 10/s ping stream: rate() of the replied counter over 8 s inside
#     the stream is the stream's rate as `xdpong stats --json` counts it
#     (within 25%), and once the stream is over, the replied counter in
#     Prometheus is exactly what stats says;
#  3. the alerts pending are exactly those xdpong's state calls for: the
#     configured interface that does not exist is detached, and failed
#     replies are uncounted only where stats says so; and each alert's
#     expression without its threshold selects the series it is about
#     (its selectors and vector matching fit the labels xdpong exports);
#  4. with a [probe NAME] section (the run probing the pinger's kernel by
#     ICMP): histogram_quantile(0.99, ...) of
#     xdpong_probe_rtt_seconds is under 1 s and in the histogram's bucket
#     of the p99 of `xdpong probe --json` on the same path, or a neighbour;
#     no probe is lost, and no probe alert is pending.
# The server runs in the responder's namespace (its ports are the test's
# own), with its storage in the scratch directory, one hour of retention
# and one Go thread; the namespace's cleanup kills it on any exit.
#
#   $NS_PING                            $NS_RESP (kernel echo off)
#  +--------------------+  veth pair  +-------------------------------------+
#  | fp1<id> 10.81.0.1  |-------------| fr1<id> 10.81.0.2                   |
#  | (kernel answers    |             | xdpong run --config, 127.0.0.1:9435 |
#  |  the probes)       |             | prometheus, 127.0.0.1:9090          |
#  +--------------------+             +-------------------------------------+
. "$(dirname "$0")/../lib/fleet.bash"

xdf_require
xdpt_require_cmd prometheus
fl_ns
fl_pair 1
GONE="fr9$XDPT_ID"
xdpt_track_pins "$GONE"
DIR=$XDPT_REPO/deploy/prometheus
FL_LISTEN=127.0.0.1:9435
API=http://127.0.0.1:9090

conf()
{
	printf '[global]\nmetrics-listen = %s\nmode = skb\n\n' "$FL_LISTEN"
	printf '[interface %s]\n\n[interface %s]\n' "$FR" "$GONE"
}
conf >"$XDPT_TMP/xdpong.conf"
{
	conf
	printf '\n[probe mesh]\ntargets = 10.81.0.1\nprotocol = icmp\ninterval = 0.1\n'
} >"$XDPT_TMP/probe.conf"
xdpt_ok "$XDPONG" config check "$XDPT_TMP/probe.conf"
fl_run "$XDPT_TMP/probe.conf"
xdf_run_wait_attached "$NS_RESP" "$FR" 10 || xdpt_fail "run did not attach to $FR"

# Prometheus's config: the shipped one, with the rules beside it, scraping
# and evaluating every second, with this run as its one target.
CFG=$XDPT_TMP/prometheus.yml
sed -e 's/^\(  [a-z]*_interval:\) 15s$/\1 1s/' -e '/host2\.example\.net/d' \
	-e "s/host1\.example\.net:9435/$FL_LISTEN/" "$DIR/prometheus.yml" >"$CFG"
cp "$DIR/xdpong-alerts.yml" "$XDPT_TMP/"
xdpt_assert_eq 2 "$(grep -c '_interval: 1s$' "$CFG")" "intervals of 1 s in the server's config"
xdpt_assert_eq "- $FL_LISTEN" "$(grep -o -- '- [^ ]*:9435$' "$CFG")" "the server's targets"
XDPT_FAIL_LOGS="$XDPT_TMP/prometheus.log $XDPT_TMP/run.out"
ip netns exec "$NS_RESP" env GOMAXPROCS=1 timeout -k 5 170 prometheus \
	--config.file="$CFG" --storage.tsdb.path="$XDPT_TMP/tsdb" \
	--storage.tsdb.retention.time=1h --web.listen-address="${API#http://}" \
	--log.level=warn >"$XDPT_TMP/prometheus.log" 2>&1 &
PROM_PID=$!

# prom_api PATH [NAME=VALUE...]: GET PATH of the server's API (the
# parameters URL-encoded); the "data" of its answer into PROM_DATA, false
# unless the server said "success" (then PROM_DATA says why).
prom_api()
{
	PROM_DATA=$(ip netns exec "$NS_RESP" /usr/bin/python3 - "$API" "$@" 2>&1 <<'PY'
import json, sys, urllib.parse, urllib.request
base, path, params = sys.argv[1], sys.argv[2], [tuple(a.split("=", 1)) for a in sys.argv[3:]]
url = base + path + ("?" + urllib.parse.urlencode(params) if params else "")
try:
    answer = json.load(urllib.request.urlopen(url, timeout=10))
except Exception as e:
    sys.exit("%s: %s" % (url, e))
if answer.get("status") != "success":
    sys.exit("%s: %s" % (url, answer))
print(json.dumps(answer["data"]))
PY
	)
}
# prom_value QUERY [TIME]: the one value of an instant query into VALUE;
# false unless the answer is exactly one sample.
prom_value()
{
	prom_api /api/v1/query query="$1" ${2:+time="$2"} || return 1
	VALUE=$(printf '%s\n' "$PROM_DATA" | jq -er 'select(.result | length == 1) |
		.result[0].value[1]') || return 1
}
prom_equals()
{
	prom_value "$1" && [ "$VALUE" = "$2" ]
}
now()
{
	date +%s.%N
}

xdpt_log "1. the target is up, every rule evaluates"
xdpt_wait 20 prom_equals 'up{job="xdpong", instance="127.0.0.1"}' 1 ||
	xdpt_fail "Prometheus never scraped xdpong up (last answer: ${PROM_DATA:-none})"
xdpt_wait 10 prom_equals "xdpong_up{device=\"$FR\"}" 1 || xdpt_fail "xdpong_up of $FR: $PROM_DATA"
n_alerts=$(grep -c '^      - alert: ' "$DIR/xdpong-alerts.yml")
rules_evaluated()
{
	prom_api /api/v1/rules type=alert &&
		printf '%s\n' "$PROM_DATA" | jq -e --argjson n "$n_alerts" '[.groups[].rules[]] |
			length == $n and all(.health == "ok")' >/dev/null
}
xdpt_wait 10 rules_evaluated ||
	xdpt_fail "not $n_alerts alerting rules evaluated without error: $(printf '%s\n' \
		"$PROM_DATA" | jq -c '[.groups[].rules[] | {name, health, lastError}]')"

xdpt_log "2. rate() of the replied counter over a 10/s ping stream"
xdf_counter before "$NS_RESP" "$FR" replied
t0=$(now)
out=$(timeout -k 5 60 ip netns exec "$NS_PING" ping -n -q -c 100 -i 0.1 -W 1 "$FR_IP" 2>&1)
t1=$(now)
xdpt_assert_match '100 packets transmitted, 100 received' "$out" "the ping stream"
xdf_counter after "$NS_RESP" "$FR" replied
xdpt_assert_eq 100 $((after - before)) "replies counted by stats over the stream"
# The replied counter in Prometheus, once a scrape came after the stream.
replied_q="sum(xdpong_packets_total{job=\"xdpong\", device=\"$FR\", result=\"replied\"})"
xdpt_wait 10 prom_equals "$replied_q" "$after" ||
	xdpt_fail "Prometheus's replied counter is ${VALUE:-none}, stats says $after"
# rate() over the 8 s that end 0.5 s before the stream did, all inside it.
tq=$(awk -v t="$t1" 'BEGIN { printf "%.3f", t - 0.5 }')
prom_value "sum(rate(xdpong_packets_total{job=\"xdpong\", device=\"$FR\",
	result=\"replied\"}[8s]))" "$tq" || xdpt_fail "no rate of replies: $PROM_DATA"
want=$(awk -v n=$((after - before)) -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", n / (b - a) }')
xdpt_log "rate() $VALUE/s; stats: 100 replies in $(awk -v a="$t0" -v b="$t1" \
	'BEGIN { printf "%.2f", b - a }') s, $want/s"
awk -v got="$VALUE" -v want="$want" 'BEGIN { d = got / want - 1; exit !(d < 0.25 && d > -0.25) }' ||
	xdpt_fail "rate() of replies is $VALUE/s, stats says $want/s"

xdpt_log "3. the alerts pending are those xdpong's state calls for"
xdf_stats "$NS_RESP" "$FR"
want="XdpongDetached $GONE"
if [ "$(printf '%s\n' "$XDPT_STATS" | jq -r .tx_failed_counted)" != true ]; then
	want+=$'\n'"XdpongTxFailuresNotCounted $FR"
fi
alerts_are()
{
	prom_api /api/v1/alerts || return 1
	ALERTS=$(printf '%s\n' "$PROM_DATA" | jq -r '.alerts[] | [.labels.alertname,
		(.labels.device // .labels.target), .labels.instance, .labels.job, .state] |
		join(" ")' | sort)
	[ "$ALERTS" = "$(printf '%s\n' "$want" | sed 's/$/ 127.0.0.1 xdpong pending/' | sort)" ]
}
xdpt_wait 10 alerts_are || xdpt_fail "alerts: expected $want, found: ${ALERTS:-none}"

# series_of ALERT=N...: each alert's expression without its last comparison
# (as the server parsed it) selects N series of the real ones: its
# selectors and matching fit the labels xdpong exports.
series_of()
{
	local a query n rules

	prom_api /api/v1/rules type=alert || xdpt_fail "no rules: $PROM_DATA"
	rules=$PROM_DATA
	for a in "$@"; do
		query=$(printf '%s\n' "$rules" | jq -r --arg a "${a%=*}" \
			'.groups[].rules[] | select(.name == $a) | .query' |
			sed -E 's/ *(>|==) *[0-9.e+-]+$//')
		prom_api /api/v1/query query="$query" || xdpt_fail "${a%=*}: $query: $PROM_DATA"
		n=$(printf '%s\n' "$PROM_DATA" | jq '.result | length')
		xdpt_assert_eq "${a#*=}" "$n" "series of ${a%=*}'s $query"
		xdpt_log "${a%=*}: $n series of $query"
	done
}
series_of XdpongDown=1 XdpongDetached=2 XdpongRepliesTxFailed=1 XdpongTxFailuresNotCounted=1 \
	XdpongGlobalRateLimited=1 XdpongProbeLoss=1 XdpongProbeTargetDown=1 XdpongProbeRttHigh=1

xdpt_log "4. the probe's RTT p99 from Prometheus, and its own"
p99_q='histogram_quantile(0.99, sum by (le) (rate(xdpong_probe_rtt_seconds_bucket{
	job="xdpong", probe="mesh", target="10.81.0.1"}[10s])))'
# p99_ready: the p99 as of a second ago (every scrape in) into P99, true
# once it is a number above 0.
p99_ready()
{
	prom_value "$p99_q" "$(awk -v t="$(now)" 'BEGIN { printf "%.3f", t - 1 }')" &&
		P99=$VALUE && awk -v v="$P99" 'BEGIN { exit !(v > 0) }'
}
xdpt_wait 20 p99_ready || xdpt_fail "no RTT p99 of probe mesh: ${P99:-$PROM_DATA}"
p99=$P99
awk -v v="$p99" 'BEGIN { exit !(v < 1) }' ||
	xdpt_fail "RTT p99 of probe mesh on a veth pair: $p99 s, not under 1 s"
prom_value "sum(xdpong_probe_lost_total{probe=\"mesh\"})" ||
	xdpt_fail "no lost counter of probe mesh: $PROM_DATA"
xdpt_assert_eq 0 "$VALUE" "probes lost on a veth pair"
xdf_x_ok "$NS_RESP" probe --icmp -c 50 -i 0.1 --json 10.81.0.1
own=$(printf '%s\n' "$XDPT_OUT" | jq -er '.targets[0].rtt_ns.p99 / 1e9') ||
	xdpt_fail "xdpong probe --json gave no rtt_ns.p99: $XDPT_OUT"
# Both measure one path, Prometheus from the buckets (its p99 lies in the
# bucket of the true one), the probe from its samples: in the same bucket
# of the histogram's, or in neighbours.
prom_api /api/v1/query query='count by (le) (xdpong_probe_rtt_seconds_bucket{probe="mesh"})' ||
	xdpt_fail "no buckets of probe mesh: $PROM_DATA"
les=$(printf '%s\n' "$PROM_DATA" | jq -r '.result[].metric.le' | sed 's/+Inf/1e300/' | sort -g)
bucket()
{
	printf '%s\n' "$les" | awk -v v="$1" '$1 + 0 >= v + 0 { print NR; exit }'
}
xdpt_log "RTT p99: Prometheus $p99 s (bucket $(bucket "$p99")), xdpong probe $own s" \
	"(bucket $(bucket "$own")), of $(printf '%s\n' "$les" | grep -c .) buckets"
d=$(($(bucket "$p99") - $(bucket "$own")))
[ "${d#-}" -le 1 ] || xdpt_fail "RTT p99: Prometheus $p99 s, the probe's own summary $own s"
xdpt_wait 10 alerts_are || xdpt_fail "alerts with probes: expected $want, found: ${ALERTS:-none}"
kill "$PROM_PID" 2>/dev/null
wait "$PROM_PID"
xdf_pass
