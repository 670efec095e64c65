#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Every machine-readable output survives an interface name that needs
# escaping. Linux allows '"' and '\' in interface names, so the responder's
# end of the pair is renamed to one holding both, and every JSON output
# (status, status IFACE, stats, stats with an interval, addr list, trace,
# run --interval --json) is parsed by Python's json module, and every
# Prometheus output (stats --prometheus, run --metrics-file) by
# prometheus_client's parser; each must give the name back exactly.
#
#   $NS_PING                          $NS_RESP
#  +----------------+  veth pair  +----------------------------+
#  | xp<id>         |-------------| q"\<id>   <- xdpong, skb   |
#  +----------------+             +----------------------------+
. "$(dirname "$0")/../lib/lib.sh"

xdpt_require_all
xdpt_require_prometheus_client
xdpt_tmpdir
xdpt_topo_veth

NAME="q\"\\$XDPT_ID"
ip -n "$NS_RESP" link set dev "$IF_RESP" down &&
	ip -n "$NS_RESP" link set dev "$IF_RESP" name "$NAME" &&
	ip -n "$NS_RESP" link set dev "$NAME" up ||
	xdpt_fail "cannot rename $IF_RESP to $NAME"
IF_RESP=$NAME
xdpt_wait 5 ip netns exec "$NS_PING" ping -c 1 -W 1 "$RESP4" ||
	xdpt_fail "no connectivity after the rename"
xdpt_kernel_echo_ignore "$NS_RESP" 1
xdpt_track_pins "$NAME"
X() { xdpt_ok nsenter "--net=/run/netns/$NS_RESP" "$XDPONG" "$@"; }

X attach "$NAME" --mode skb --addr 192.0.2.0/24 --latency-sample 1
[ -e "$XDPT_PIN_ROOT/$NAME/stats" ] || xdpt_fail "no pins in $XDPT_PIN_ROOT/$NAME"
xdpt_ping_all "$NS_PING" -4 "$RESP4" 3

# json_check WHAT PYTHON-EXPR: every line of $XDPT_OUT is JSON, and the
# expression (over the parsed line `o`) is the interface name each time.
json_check()
{
	printf '%s\n' "$XDPT_OUT" >"$XDPT_TMP/json"
	/usr/bin/python3 - "$NAME" "$2" "$XDPT_TMP/json" \
		<<'EOF' || xdpt_fail "$1: $(cat "$XDPT_TMP/json")"
import json, sys
name, expr, path = sys.argv[1], sys.argv[2], sys.argv[3]
lines = [l for l in open(path, encoding="utf-8").read().splitlines() if l.strip()]
assert lines, "no output"
for line in lines:
    o = json.loads(line)
    got = eval(expr, {"o": o})
    assert got == name, "name %r, expected %r" % (got, name)
EOF
	xdpt_log "$1: $(wc -l <"$XDPT_TMP/json") JSON lines give the name back"
}

X status --json
json_check "status --json" '[i for i in o["interfaces"] if i["ifindex"] > 1][0]["iface"]'
X status "$NAME" --json
json_check "status IFACE --json" 'o["interfaces"][0]["iface"]'
X stats "$NAME" --json
json_check "stats --json" 'o["iface"]'
X stats "$NAME" 0.2 2 --json
json_check "stats 0.2 2 --json" 'o["iface"]'
X addr "$NAME" list --json
json_check "addr list --json" 'o["iface"]'

# trace: one event, from a ping sent once the trace is listening.
nsenter "--net=/run/netns/$NS_RESP" timeout -k 5 30 "$XDPONG" trace "$NAME" --count 1 --json \
	>"$XDPT_TMP/trace.out" 2>"$XDPT_TMP/trace.err" &
pid=$!
xdpt_wait 10 grep -q "tracing" "$XDPT_TMP/trace.err" || xdpt_fail "trace did not start"
probe="ip netns exec '$NS_PING' ping -c 1 -W 1 $RESP4 >/dev/null; "
probe+="[ -s '$XDPT_TMP/trace.out' ]"
xdpt_wait 10 sh -c "$probe" ||
	xdpt_fail "no trace event: $(cat "$XDPT_TMP/trace.err")"
wait "$pid"
XDPT_OUT=$(cat "$XDPT_TMP/trace.out")
json_check "trace --json" 'o["iface"]'

# Prometheus: the parser must read the label back exactly.
prom_check()
{
	/usr/bin/python3 - "$NAME" "$2" <<'EOF' || xdpt_fail "$1: $(cat "$2")"
import sys
from prometheus_client.parser import text_string_to_metric_families
name, path = sys.argv[1], sys.argv[2]
n = 0
for fam in text_string_to_metric_families(open(path, encoding="utf-8").read()):
    for s in fam.samples:
        if "device" in s.labels:
            assert s.labels["device"] == name, "label %r, expected %r" % (s.labels["device"], name)
            n += 1
assert n > 10, "only %d samples with a device label" % n
EOF
	xdpt_log "$1: the parser reads the device label back"
}

X stats "$NAME" --prometheus
printf '%s\n' "$XDPT_OUT" >"$XDPT_TMP/prom"
prom_check "stats --prometheus" "$XDPT_TMP/prom"

X detach "$NAME"

# run: JSON samples and the metrics file, then SIGTERM.
nsenter "--net=/run/netns/$NS_RESP" timeout -k 5 30 "$XDPONG" run "$NAME" --mode skb \
	--interval 0.2 --json --metrics-file "$XDPT_TMP/run.prom" \
	>"$XDPT_TMP/run.out" 2>"$XDPT_TMP/run.err" &
pid=$!
xdpt_wait 10 sh -c "[ \$(wc -l <'$XDPT_TMP/run.out') -ge 2 ]" ||
	xdpt_fail "run printed no samples: $(cat "$XDPT_TMP/run.err")"
cp "$XDPT_TMP/run.prom" "$XDPT_TMP/run.prom.copy" || xdpt_fail "no metrics file"
kill -TERM "$(pgrep -P "$pid" xdpong || echo "$pid")"
wait "$pid"
XDPT_OUT=$(head -n 2 "$XDPT_TMP/run.out")
json_check "run --interval --json" 'o["iface"]'
prom_check "run --metrics-file" "$XDPT_TMP/run.prom.copy"
xdpt_pass
