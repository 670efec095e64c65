#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `xdpong run IFACE --metrics-file PATH`: the file node_exporter's textfile
# collector reads. Written at start, rewritten every --interval with the
# live counters, always whole (a reader racing 20 rewrites a second never
# sees a partial file), mode 0644, no temporary files left, removed when
# run ends; a path that cannot be written stops run at once, detached.
#
#   ns ping                               ns resp (kernel echo off)
#  +---------------------+  veth pair  +------------------------------+
#  | xp<id> 10.99.0.1/24 |-------------| xr<id> 10.99.0.2/24          |
#  |                     |             | xdpong run --metrics-file    |
#  +---------------------+             +------------------------------+
. "$(dirname "$0")/../lib/lib.sh"

xdpt_require_all
xdpt_require_prometheus_client
xdpt_tmpdir
DIR=$XDPT_TMP/textfile
mkdir -p "$DIR"
PROM=$DIR/xdpong.prom

xdpt_topo_veth
xdpt_kernel_echo_ignore "$NS_RESP" 1

# start_run NAME ARGS...: `xdpong run IFACE ARGS` in the background until it
# says "running". RUN_PID is the timeout around it, XD_PID xdpong.
start_run()
{
	local name=$1

	shift
	ip netns exec "$NS_RESP" timeout -k 5 120 "$XDPONG" run "$IF_RESP" --mode skb "$@" \
		>"$XDPT_TMP/$name.out" 2>"$XDPT_TMP/$name.err" &
	RUN_PID=$!
	xdpt_wait 15 grep -q "running (pid" "$XDPT_TMP/$name.err" ||
		xdpt_fail "run $name did not start: $(cat "$XDPT_TMP/$name.err")"
	XD_PID=$(pgrep -P "$RUN_PID")
	xdpt_assert_match '^[0-9]+$' "$XD_PID" "pid of xdpong run"
}
stop_run()
{
	kill -TERM "$XD_PID"
	wait "$RUN_PID"
	RUN_RC=$?
}

# The reply_echo4 counter as the file says, through the real parser.
cat >"$XDPT_TMP/read.py" <<'EOF'
import sys
from prometheus_client.parser import text_string_to_metric_families
path, want = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None
if want is None:
    for fam in text_string_to_metric_families(open(path).read()):
        for s in fam.samples:
            if s.name == "xdpong_packets_total" and s.labels["reason"] == "reply_echo4":
                print(int(s.value))
    sys.exit(0)
# Hammer: read and parse the file as often as possible while it is being
# rewritten; every read must hold every family, the last one included.
reads = 0
for _ in range(int(want)):
    text = open(path).read()
    fams = {f.name for f in text_string_to_metric_families(text)}
    if "xdpong_packets" not in fams or "xdpong_chain_program_info" not in fams:
        sys.exit("partial file after %d reads:\n%s" % (reads, text))
    reads += 1
print(reads)
EOF
file_replies()
{
	"$PY" "$XDPT_TMP/read.py" "$PROM" 2>/dev/null
}

xdpt_log "1. --metrics-file alone: written at once, every 15 s, nothing on stdout"
start_run quiet --metrics-file "$PROM"
[ -f "$PROM" ] || xdpt_fail "no metrics file at $PROM once run said it was running"
xdpt_assert_eq 0 "$(file_replies)" "reply_echo4 in the first file"
xdpt_assert_eq 644 "$(stat -c %a "$PROM")" "metrics file mode (node_exporter is not root)"
if command -v promtool >/dev/null 2>&1; then
	promtool check metrics <"$PROM" >"$XDPT_TMP/lint" 2>&1 ||
		xdpt_fail "promtool check metrics $PROM: $(cat "$XDPT_TMP/lint")"
fi
sleep 1
xdpt_assert_no_match 'received/s' "$(cat "$XDPT_TMP/quiet.out")" \
	"stdout of run with --metrics-file and no --interval"
stop_run
xdpt_assert_eq 0 "$RUN_RC" "run exit code after SIGTERM"
[ -e "$PROM" ] && xdpt_fail "metrics file still there after run ended"

xdpt_log "2. --interval 0.05: live counters, atomic rewrites"
start_run fast --metrics-file "$PROM" --interval 0.05
xdpt_ping_all "$NS_PING" -4 "$RESP4" 4
xdpt_wait 5 sh -c "[ \"\$('$PY' '$XDPT_TMP/read.py' '$PROM')\" = 4 ]" ||
	xdpt_fail "the metrics file does not show the 4 replies: reply_echo4 = $(file_replies)"
xdpt_run "$PY" "$XDPT_TMP/read.py" "$PROM" 3000
[ "$XDPT_RC" -eq 0 ] || xdpt_fail "a reader saw a partial metrics file: $XDPT_ERR"
xdpt_log "$XDPT_OUT whole reads while run rewrote the file every 50 ms"
xdpt_assert_match 'received/s' "$(cat "$XDPT_TMP/fast.out")" \
	"stats lines on stdout with an explicit --interval"
stop_run
xdpt_assert_eq 0 "$RUN_RC" "run exit code after SIGTERM"
left=$(ls -A "$DIR")
xdpt_assert_eq "" "$left" "files left in the textfile directory"

xdpt_log "3. a path that cannot be written: exit 1 at once, nothing attached"
xdpt_rc 1 --ns "$NS_RESP" "$XDPONG" run "$IF_RESP" --mode skb \
	--metrics-file "$XDPT_TMP/missing/xdpong.prom"
re="^xdpong: cannot write the metrics file $XDPT_TMP/missing/xdpong.prom: No such file or"
re+=" directory \(create its directory first\)"
xdpt_assert_match "$re" \
	"$XDPT_ERR" "error message"
xdpt_assert_no_match "attached to" "$XDPT_OUT$XDPT_ERR" \
	"nothing attached before the metrics file was checked"
xdpt_assert_eq 0 "$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")" \
	"XDP program on $IF_RESP after the failed run"
xdpt_rc 2 --ns "$NS_RESP" "$XDPONG" attach "$IF_RESP" --metrics-file "$PROM"
xdpt_pass
