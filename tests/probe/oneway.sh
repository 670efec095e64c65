#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# xdpong probe's one-way delays (RFC 8762 4.2: with both clocks
# synchronised, the S bit of both Error Estimates), as uid 65534 against
# the user-space STAMP reflector on a namespace's loopback:
#  - to a reflector that sets S, forward (T2 - T1) and backward (T4 - T3)
#    are given, each above 0, and they add up to the RTT, which is
#    (T4 - T1) - (T3 - T2);
#  - to one that does not set S, neither is given.
# They need this host's clock synchronised (adjtimex(2) without
# STA_UNSYNC). Where it is not, a tools/vm guest (XDPONG_VM_KERNEL) marks
# its own clock synchronised for the test, which changes nothing outside
# it; elsewhere the test skips, and probe/options checks that no one-way
# delay is claimed.
. "$(dirname "$0")/../lib/probe.bash"

xdpt_require_all
xdpt_require_cmd setpriv

# clock_mark sync|unsync: set or clear STA_UNSYNC (the estimated error
# 100 us, the maximum 1 ms: well inside what a synchronised clock claims).
clock_mark()
{
	"$PY" - "$1" <<'EOF'
import ctypes, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(512)
if libc.adjtimex(buf) < 0:
    sys.exit("adjtimex: errno %d" % ctypes.get_errno())
status = struct.unpack_from("i", buf, 40)[0]
status = status & ~0x40 if sys.argv[1] == "sync" else status | 0x40
buf = ctypes.create_string_buffer(512)
struct.pack_into("I", buf, 0, 0x10 | 0x04 | 0x08)  # ADJ_STATUS, MAXERROR, ESTERROR
struct.pack_into("q", buf, 24, 1000)
struct.pack_into("q", buf, 32, 100)
struct.pack_into("i", buf, 40, status)
if libc.adjtimex(buf) < 0:
    sys.exit("adjtimex: errno %d" % ctypes.get_errno())
EOF
}

synced()
{
	"$PY" -c '
import ctypes, struct
buf = ctypes.create_string_buffer(512)
state = ctypes.CDLL(None).adjtimex(buf)
print(str(state != 5 and not struct.unpack_from("i", buf, 40)[0] & 0x40).lower())'
}

if [ "$(synced)" != true ]; then
	[ -n "${XDPONG_VM_KERNEL:-}" ] ||
		xdpt_skip "this host's clock is not synchronised (adjtimex); a guest runs it"
	clock_mark sync || xdpt_fail "cannot mark the guest's clock synchronised"
	trap 'rc=$?; clock_mark unsync; (exit "$rc"); xdpt_cleanup' EXIT
	[ "$(synced)" = true ] || xdpt_fail "the guest's clock is still not synchronised"
fi

xdpt_ns_new NS oneway
xdpt_tmpdir
xpr_reflector "$NS" 4 "$XDPT_TMP/r4.log" --synced
xpr_reflector "$NS" 6 "$XDPT_TMP/r6.log"

xpr_probe --ns "$NS" -c 1 --json 127.0.0.1 ::1
xdpt_assert_eq 0 "$XDPT_RC" "exit status ($XDPT_ERR)"
xdpt_assert_eq "true true false false" "$(jq -r '.targets | map(has("forward_ns"),
	has("backward_ns")) | join(" ")' <<<"$XDPT_OUT")" \
	"forward_ns and backward_ns: to the reflector with S, not to the one without"
# One probe: each distribution's min is its one sample.
read -r f b r < <(jq -r '.targets[0] | "\(.forward_ns.min) \(.backward_ns.min) \(.rtt_ns.min)"' \
	<<<"$XDPT_OUT")
xdpt_log "forward $f ns, backward $b ns, RTT $r ns"
ok=$(awk -v f="$f" -v b="$b" -v r="$r" \
	'BEGIN { d = f + b - r; print (f > 0 && b > 0 && d <= 2 && d >= -2) ? "yes" : "no" }')
xdpt_assert_eq yes "$ok" "forward $f and backward $b above 0, adding up to the RTT $r"
xdpt_pass
