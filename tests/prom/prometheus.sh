#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `xdpong stats IFACE --prometheus` through real parsers: the Python client
# library's (python3-prometheus-client) and, where installed, promtool's
# linter. The parsed values must equal `xdpong stats --json`, the
# histogram must be cumulative with +Inf = _count, and a label value with
# a quote and a backslash (an interface name may hold both) must come back
# unchanged. The chain's families say xdpong runs alone (under ip netns
# exec: no bpffs for libxdp's dispatcher).
#
#   ns ping                               ns resp (kernel echo off)
#  +---------------------+  veth pair  +------------------------------+
#  | xp<id> 10.99.0.1/24 |-------------| xr<id> 10.99.0.2/24          |
#  |        fd00:99::1   |             | xdpong --mode skb            |
#  +---------------------+             |   --rate-limit 500:10        |
#                                      |   --global-limit 1000:50     |
#                                      | xq"\<id> (veth, no peer up)  |
#                                      +------------------------------+
. "$(dirname "$0")/../lib/lib.sh"

xdpt_require_all
xdpt_require_prometheus_client
xdpt_tmpdir

# parse FILE IFACE: the exposition text into one "name{labels} value" line
# per sample, labels sorted, after the parser accepted the whole file.
cat >"$XDPT_TMP/parse.py" <<'EOF'
import sys
from prometheus_client.parser import text_string_to_metric_families
text = open(sys.argv[1]).read()
types = {}
for fam in text_string_to_metric_families(text):
    types[fam.name] = fam.type
    if not fam.documentation:
        sys.exit("no HELP for " + fam.name)
    for s in fam.samples:
        labels = ",".join("%s=%s" % kv for kv in sorted(s.labels.items()))
        print("%s{%s} %s" % (s.name, labels, repr(float(s.value))))
for name, t in sorted(types.items()):
    print("TYPE %s %s" % (name, t))
EOF
validate()
{
	xdpt_run "$PY" "$XDPT_TMP/parse.py" "$1"
	[ "$XDPT_RC" -eq 0 ] || xdpt_fail "the Prometheus parser rejected $1: $XDPT_ERR
$(cat "$1")"
	PARSED=$XDPT_OUT
	if command -v promtool >/dev/null 2>&1; then
		promtool check metrics <"$1" >"$XDPT_TMP/lint" 2>&1 ||
			xdpt_fail "promtool check metrics: $(cat "$XDPT_TMP/lint")"
	fi
}
# value NAME LABELS: one sample's value from PARSED (labels sorted by name).
value()
{
	printf '%s\n' "$PARSED" | awk -v k="$1{$2}" '$1 == k { print $2 }'
}

xdpt_topo_veth
xdpt_kernel_echo_ignore "$NS_RESP" 1
xdpt_attach "$NS_RESP" "$IF_RESP" --mode skb --rate-limit 500:10 --global-limit 1000:50 \
	--latency-sample 1
xdpt_ping_all "$NS_PING" -4 "$RESP4" 5
xdpt_ping_all "$NS_PING" -6 "$RESP6" 3

# prom_scrape: the Prometheus text in m.prom.
prom_scrape()
{
	xdpt_ok --ns "$NS_RESP" "$XDPONG" stats "$IF_RESP" --prometheus
	printf '%s\n' "$XDPT_OUT" >"$XDPT_TMP/m.prom"
}
# The scrape and XDPT_STATS of one moment.
xdpt_wait 10 xdpt_still "$NS_RESP" "$IF_RESP" prom_scrape ||
	xdpt_fail "packets kept arriving around every scrape for 10 s"
validate "$XDPT_TMP/m.prom"

xdpt_assert_match '^TYPE xdpong_packets counter$' "$PARSED" "type of xdpong_packets_total"
xdpt_assert_match '^TYPE xdpong_service_time_seconds histogram$' "$PARSED" "histogram type"
xdpt_assert_match '^TYPE xdpong_info gauge$' "$PARSED" "info type"

# Every reason is a series, zeros too, with its result; values as in --json.
n=$(printf '%s\n' "$PARSED" | grep -c '^xdpong_packets_total{')
want_n=$(printf '%s\n' "$XDPT_STATS" | jq '.reasons | length')
xdpt_assert_eq "$want_n" "$n" "xdpong_packets_total series (one per reason)"
total=0
for reason in $(printf '%s\n' "$XDPT_STATS" | jq -r '.reasons | keys[]'); do
	case $reason in
	reply_*) result=replied ;;
	pass_*) result=passed ;;
	drop_*) result=dropped ;;
	esac
	xdpt_get want "$reason"
	got=$(value xdpong_packets_total "device=$IF_RESP,reason=$reason,result=$result")
	[ -n "$got" ] || xdpt_fail "no xdpong_packets_total series for $reason/$result"
	xdpt_assert_eq "$want.0" "$got" "xdpong_packets_total $reason"
	total=$((total + want))
done
xdpt_get recv received
xdpt_assert_eq "$recv" "$total" "sum of xdpong_packets_total vs received"
xdpt_get r4 reply_echo4
xdpt_assert_eq 5 "$r4" "reply_echo4 after 5 pings"

# Histogram: le ascending, counts cumulative, +Inf = _count = replies
# (every reply is timed: --latency-sample 1 at attach).
buckets=$(printf '%s\n' "$PARSED" |
	sed -n "s/^xdpong_service_time_seconds_bucket{device=$IF_RESP,le=\([^}]*\)} \(.*\)/\1 \2/p")
xdpt_assert_ge 2 "$(printf '%s\n' "$buckets" | grep -c .)" "histogram buckets"
printf '%s\n' "$buckets" | awk '
	$1 == "+Inf" { inf = 1; if ($2 < prev) exit 1; next }
	{ if (inf || $1 + 0 <= le || $2 < prev) exit 1; le = $1 + 0; prev = $2 }
	END { if (!inf) exit 1 }' ||
	xdpt_fail "histogram buckets not ascending and cumulative, ending in +Inf: $buckets"
inf=$(printf '%s\n' "$buckets" | awk '$1 == "+Inf" { print $2 }')
count=$(value xdpong_service_time_seconds_count "device=$IF_RESP")
sum=$(value xdpong_service_time_seconds_sum "device=$IF_RESP")
xdpt_get rep replied
xdpt_assert_eq "$rep.0" "$inf" "+Inf bucket vs replies"
xdpt_assert_eq "$inf" "$count" "_count vs +Inf bucket"
awk -v s="$sum" -v n="$rep" 'BEGIN { exit !(s > 0 && s < n * 0.01) }' ||
	xdpt_fail "_sum $sum s for $rep replies: not between 0 and 10 ms each"
lat_sum=$(printf '%s\n' "$XDPT_STATS" | jq .latency.sum_ns)
awk -v s="$sum" -v ns="$lat_sum" 'BEGIN { d = s * 1e9 - ns; exit !(d < 1 && d > -1) }' ||
	xdpt_fail "_sum $sum s vs latency.sum_ns $lat_sum"

prog_id=$(printf '%s\n' "$XDPT_STATS" | jq -r .prog_id)
info=$(printf '%s\n' "$PARSED" | grep '^xdpong_info{')
xdpt_assert_match \
	"device=$IF_RESP,framing=ethernet,mode=skb,prog_id=$prog_id,version=[0-9.]+} 1.0$" \
	"$info" "xdpong_info labels"
xdpt_assert_eq 1000.0 \
	"$(value xdpong_rate_limit_replies_per_second "device=$IF_RESP,scope=global")" \
	"global limit gauge"
xdpt_assert_eq 500.0 \
	"$(value xdpong_rate_limit_replies_per_second "device=$IF_RESP,scope=source")" \
	"per-source limit gauge"
xdpt_assert_eq 1.0 "$(value xdpong_answered_prefixes "device=$IF_RESP,family=ipv4")" \
	"IPv4 prefixes answered for"

# The chain: under ip netns exec (no bpffs for libxdp) xdpong runs alone,
# first of one, with no priority.
for fam in xdpong_dispatcher xdpong_chain_priority xdpong_chain_position \
		xdpong_chain_program_info; do
	xdpt_assert_match "^TYPE $fam gauge\$" "$PARSED" "type of $fam"
done
xdpt_assert_eq 0.0 "$(value xdpong_dispatcher "device=$IF_RESP")" "xdpong_dispatcher alone"
xdpt_assert_eq 1.0 "$(value xdpong_chain_position "device=$IF_RESP")" "xdpong_chain_position alone"
xdpt_assert_no_match '^xdpong_chain_priority\{' "$PARSED" "xdpong_chain_priority alone"
xdpt_assert_eq "xdpong_chain_program_info{device=$IF_RESP,id=$prog_id,name=xdpong,position=1} 1.0" \
	"$(printf '%s\n' "$PARSED" | grep '^xdpong_chain_program_info{')" \
	"xdpong_chain_program_info alone"

xdpt_log "a label value with a quote and a backslash"
odd="xq\"\\$XDPT_ID"
ip -n "$NS_RESP" link add name "$odd" type veth peer name "xo$XDPT_ID" ||
	xdpt_fail "cannot create an interface named $odd"
ip -n "$NS_RESP" link set "$odd" up
xdpt_attach "$NS_RESP" "$odd" --mode skb
xdpt_ok --ns "$NS_RESP" "$XDPONG" stats "$odd" --prometheus
xdpt_assert_eq 0.0 "$(printf '%s\n' "$XDPT_OUT" |
	sed -n 's/^xdpong_rate_limit_replies_per_second{.*scope="source"} //p').0" \
	"per-source limit gauge when off"
xdpt_track_pins "$odd"
xdpt_ok --ns "$NS_RESP" "$XDPONG" stats "$odd" --prometheus
printf '%s\n' "$XDPT_OUT" >"$XDPT_TMP/odd.prom"
xdpt_assert_match "device=\"xq\\\\\"\\\\\\\\$XDPT_ID\"" "$XDPT_OUT" "escaped label in the text"
validate "$XDPT_TMP/odd.prom"
xdpt_assert_match "^xdpong_info\{device=$(printf '%s' "$odd" |
	sed 's/[\\"]/\\&/g'),framing=ethernet,mode=skb," \
	"$PARSED" "interface name after parsing"
xdpt_ok --ns "$NS_RESP" "$XDPONG" detach "$odd"

xdpt_log "usage errors"
xdpt_rc 2 --ns "$NS_RESP" "$XDPONG" stats "$IF_RESP" --prometheus --json
xdpt_assert_match "run $IF_RESP --metrics-file" "$XDPT_ERR" "hint for periodic output"
xdpt_rc 2 --ns "$NS_RESP" "$XDPONG" stats "$IF_RESP" 1 --prometheus
xdpt_pass
