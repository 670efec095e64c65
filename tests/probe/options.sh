#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# xdpong probe's options, as uid 65534 (STAMP needs no privilege), against
# the user-space STAMP reflector of tests/lib/stamp_reflector.py on the
# loopback of a namespace of its own, IPv4 and IPv6:
#  1. every bad value and every contradiction is one line on stderr and
#     exit 2, and nothing is sent (the reflector reads nothing);
#  2. every option does what it says: -c, -i, -s, -W, -I, -t, -Q, -4, -6,
#     -q, --port, --json, --prometheus, a name resolved, the reflector's
#     residence taken out of the RTT, and T1 and T4 taken by the kernel;
#  3. --icmp where ping_group_range refuses a ping socket: the refusal names
#     it and CAP_NET_RAW; where it allows one, ICMP as uid 65534.
# xdpt-timeout: 240
. "$(dirname "$0")/../lib/probe.bash"

xdpt_require_all
xdpt_require_cmd setpriv
xdpt_require_prometheus_client
xdpt_ns_new NS probe
xdpt_sysctl "$NS" net.ipv4.ping_group_range "1 0"
xdpt_tmpdir
LOG4=$XDPT_TMP/r4.log LOG6=$XDPT_TMP/r6.log LOGP=$XDPT_TMP/rp.log LOGH=$XDPT_TMP/rh.log
# The IPv4 reflector claims a synchronised clock (S), the IPv6 one not.
xpr_reflector "$NS" 4 "$LOG4" --synced
xpr_reflector "$NS" 6 "$LOG6" --hold 0.005
xpr_reflector "$NS" 4 "$LOGP" --port 4862
# One more holds each reply 0.25 s between T2 and T3: far longer than a
# round trip on loopback, even on a machine busy with other tests.
xpr_reflector "$NS" 6 "$LOGH" --port 4863 --hold 0.25

xdpt_log "1. refusals: one line, exit 2, nothing sent"
refuse()
{
	xpr_probe --ns "$NS" "$@"
	[ "$XDPT_RC" = 2 ] || xdpt_fail "'probe $*' exited $XDPT_RC, expected 2: $XDPT_ERR"
	xdpt_assert_eq 1 "$(printf '%s\n' "$XDPT_ERR" | wc -l)" "lines on stderr of 'probe $*'"
	xdpt_assert_match '^xdpong: ' "$XDPT_ERR" "'probe $*'"
	xdpt_assert_eq "" "$XDPT_OUT" "stdout of 'probe $*'"
}
refuse
refuse -c 1
for bad in "-c 0" "-c x" "-i 0" "-i 0.001" "-i x" "-s 43" "-s 65001" "-W 0" "-W x" \
	"-I a/b" "-I 0123456789abcdef" "-t 0" "-t 256" "-Q 256" "-Q x" "--port 0" \
	"--port 65536" "-4 -6" "--json --prometheus" "--icmp --port 900" "-4 -I ::1" \
	"-6 -I 127.0.0.1" "--bogus"; do
	# shellcheck disable=SC2086 # each is an option and its value
	refuse -c 1 $bad 127.0.0.1 ::1
done
refuse -c 1 -s 43 127.0.0.1
xdpt_assert_match "invalid --size '43': a STAMP test packet is 44 bytes or more" "$XDPT_ERR" \
	"-s 43's reason"
refuse -c 1 --icmp --port 900 127.0.0.1
xdpt_assert_match "--port is STAMP's" "$XDPT_ERR" "--icmp --port's reason"
xdpt_assert_eq "0 0 0" "$(cat "$LOG4" "$LOG6" "$LOGP" | wc -l) $(wc -l <"$LOG4") \
$(wc -l <"$LOG6")" "requests the reflectors read after the refusals"
xpr_probe --ns "$NS" -c 1 -6 127.0.0.1
xdpt_assert_eq 1 "$XDPT_RC" "exit status of -6 with an IPv4 address"
xdpt_assert_match "cannot resolve '127.0.0.1'" "$XDPT_ERR" "-6 127.0.0.1"

xdpt_log "2. STAMP as uid 65534: -c -i, a line per reply, the summary, kernel timestamps"
start=$EPOCHREALTIME
xdpt_run --ns "$NS" "${NOBODY[@]}" "$XDPONG" -v probe -c 4 -i 0.3 127.0.0.1 ::1
xdpt_assert_eq 0 "$XDPT_RC" "exit status ($XDPT_ERR)"
elapsed=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { print int((b - a) * 10) }')
xdpt_assert_ge 9 "$elapsed" "tenths of a second 4 probes 0.3 s apart take"
for a in 127.0.0.1 ::1; do
	for seq in 0 1 2 3; do
		xdpt_assert_match "^44 bytes from $a: seq=$seq ttl=64 rtt=[0-9.]+ ms reflector=" \
			"$XDPT_OUT" "reply line $seq of $a"
	done
	xdpt_assert_match "^--- $a stamp statistics ---$" "$XDPT_OUT" "summary of $a"
done
xdpt_assert_eq 2 "$(grep -c '^4 sent, 4 received, 0% loss, 0 duplicates, 0 reordered$' \
	<<<"$XDPT_OUT")" "the summaries' counts"
xdpt_assert_eq 2 "$(grep -c '^rtt min/avg/p50/p90/p99/max/mdev = ' <<<"$XDPT_OUT")" "rtt lines"
xdpt_assert_match '^timestamps: T1 from the kernel 8, from user space 0; T4 from the kernel 8, ' \
	"$XDPT_OUT" "T1 and T4 are the kernel's"
xdpt_assert_no_match 'no (transmit|receive) timestamp' "$XDPT_ERR" "the fallback not taken"
xdpt_assert_eq "4 4" "$(wc -l <"$LOG4") $(wc -l <"$LOG6")" "requests the reflectors read"

xdpt_log "   the reflector's residence (0.25 s held) is not in the RTT"
# 0.3 s apart, so that no request waits behind the one held before it
xpr_probe --ns "$NS" -c 3 -i 0.3 --port 4863 --json ::1
ok=$(jq '.targets[0] | .reflector_ns.min >= 250000000 and .rtt_ns.max < 250000000' <<<"$XDPT_OUT")
xdpt_assert_eq true "$ok" "reflector_ns over 0.25 s, rtt_ns under: $XDPT_OUT"

xdpt_log "   -q, -s, -t, -Q, --port, -I"
: >"$LOG4"
xpr_probe --ns "$NS" -q -c 2 -i 0.1 -s 100 -t 7 -Q 32 127.0.0.1
xdpt_assert_eq 0 "$XDPT_RC" "exit status ($XDPT_ERR)"
xdpt_assert_no_match 'bytes from' "$XDPT_OUT" "-q: no reply lines"
xdpt_assert_match '^2 sent, 2 received, 0% loss' "$XDPT_OUT" "-q: the summary"
xdpt_assert_eq "0 7 32
1 7 32" "$(cat "$LOG4")" "-t 7 -Q 32: the TTL and TOS the reflector read"
xpr_probe --ns "$NS" -c 1 -s 100 -t 7 127.0.0.1
xdpt_assert_match '^100 bytes from 127.0.0.1: seq=0 ttl=7 ' "$XDPT_OUT" \
	"-s 100 -t 7: the reply's size and Ses-Sender TTL"
: >"$LOG6"
xpr_probe --ns "$NS" -c 1 -t 9 -Q 64 ::1
xdpt_assert_eq "0 9 64" "$(cat "$LOG6")" "-t 9 -Q 64 on IPv6: hop limit and traffic class"
xpr_probe --ns "$NS" -c 2 -i 0.1 --port 4862 127.0.0.1
xdpt_assert_eq 0 "$XDPT_RC" "--port 4862 ($XDPT_ERR)"
xdpt_assert_eq 2 "$(wc -l <"$LOGP")" "requests the reflector on port 4862 read"
for src in lo 127.0.0.1; do
	xpr_probe --ns "$NS" -c 1 -I "$src" 127.0.0.1
	xdpt_assert_eq 0 "$XDPT_RC" "-I $src ($XDPT_ERR)"
done
xpr_probe --ns "$NS" -c 1 -I 127.0.0.2 127.0.0.1
xdpt_assert_eq 0 "$XDPT_RC" "-I 127.0.0.2 ($XDPT_ERR)"
xpr_probe --ns "$NS" -c 1 -I 192.0.2.1 127.0.0.1
xdpt_assert_eq 1 "$XDPT_RC" "-I an address not of this host"
xdpt_assert_match -- "--source 192.0.2.1: Cannot assign requested address" "$XDPT_ERR" \
	"-I an address not of this host"

xdpt_log "   -W: an unanswered probe waits that long, then is lost"
start=$EPOCHREALTIME
xpr_probe --ns "$NS" -c 2 -i 0.1 -W 0.5 --port 9 127.0.0.1
elapsed=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { print int((b - a) * 10) }')
xdpt_assert_eq 1 "$XDPT_RC" "exit status with no reply"
xdpt_assert_match '^2 sent, 0 received, 100% loss' "$XDPT_OUT" "-W 0.5: both lost"
xdpt_assert_ge 5 "$elapsed" "tenths of a second -W 0.5 waited"
[ "$elapsed" -lt 30 ] || xdpt_fail "-W 0.5 took $elapsed tenths of a second"

xdpt_log "   a name, -4 and -6"
xpr_probe --ns "$NS" -c 1 localhost
xdpt_assert_match '^--- localhost \(127\.0\.0\.1\) stamp statistics ---$' "$XDPT_OUT" \
	"the name and its address"
xpr_probe --ns "$NS" -c 1 -4 --json localhost
xdpt_assert_eq "localhost 127.0.0.1 stamp" "$(jq -r '.targets | map(.name, .target, .protocol) |
	join(" ")' <<<"$XDPT_OUT")" "-4 localhost"
xpr_probe --ns "$NS" -c 1 -6 --json ::1 127.0.0.1
xdpt_assert_eq 1 "$XDPT_RC" "-6 with an IPv4 target"

xdpt_log "   --json: one object, the schema's keys, read by jq and Python"
xpr_probe --ns "$NS" -c 5 -i 0.05 --json 127.0.0.1 ::1
xdpt_assert_eq 0 "$XDPT_RC" "--json ($XDPT_ERR)"
xdpt_assert_eq 1 "$(printf '%s\n' "$XDPT_OUT" | wc -l)" "--json lines"
printf '%s' "$XDPT_OUT" | "$PY" -c '
import json, sys
d = json.load(sys.stdin)
assert list(d) == ["targets"], d
want = ["target", "name", "protocol", "sent", "received", "lost", "duplicates", "reordered",
        "rtt_ns", "reflector_ns"]
for t in d["targets"]:
    keys = [k for k in t if k not in ("forward_ns", "backward_ns")]
    assert keys == want, keys
    assert (t["sent"], t["received"], t["lost"], t["duplicates"], t["reordered"]) == \
        (5, 5, 0, 0, 0), t
    for dist in ("rtt_ns", "reflector_ns"):
        r = t[dist]
        assert list(r) == ["min", "mean", "p50", "p90", "p99", "max", "mdev"], r
        assert 0 <= r["min"] <= r["p50"] <= r["p90"] <= r["p99"] <= r["max"], r
        assert r["min"] <= r["mean"] <= r["max"], r
    assert ("forward_ns" in t) == ("backward_ns" in t), t
' || xdpt_fail "--json as Python reads it: $XDPT_OUT"
# One-way delays only where both clocks say S: here as adjtimex(2) says.
synced=$("$PY" -c '
import ctypes, struct
buf = ctypes.create_string_buffer(512)
state = ctypes.CDLL(None).adjtimex(buf)
print(str(state != 5 and not struct.unpack_from("i", buf, 40)[0] & 0x40).lower())')
xdpt_assert_eq "$synced $synced false false" "$(jq -r '.targets | map(has("forward_ns"),
	has("backward_ns")) | join(" ")' <<<"$XDPT_OUT")" \
	"forward_ns and backward_ns (this host's clock synchronised: $synced; ::1's reflector no S)"

xdpt_log "   --prometheus: the exposition, read by prometheus_client"
xpr_probe --ns "$NS" -c 4 -i 0.05 --prometheus 127.0.0.1 --port 9 -W 0.2
printf '%s\n' "$XDPT_OUT" >"$XDPT_TMP/lost.prom"
xpr_probe --ns "$NS" -c 4 -i 0.05 --prometheus 127.0.0.1 ::1
xdpt_assert_eq 0 "$XDPT_RC" "--prometheus ($XDPT_ERR)"
printf '%s\n' "$XDPT_OUT" >"$XDPT_TMP/ok.prom"
"$PY" - "$XDPT_TMP/ok.prom" "$XDPT_TMP/lost.prom" <<'PYEOF' || xdpt_fail "--prometheus: $XDPT_OUT"
import sys
from prometheus_client.parser import text_string_to_metric_families as parse
LE = ["1e-05", "2e-05", "5e-05", "0.0001", "0.0002", "0.0005", "0.001", "0.002", "0.005",
      "0.01", "0.02", "0.05", "0.1", "0.2", "0.5", "1", "+Inf"]
def read(path):
    out = {}
    for fam in parse(open(path).read()):
        for s in fam.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
        out[fam.name] = fam.type
    return out
ok, lost = read(sys.argv[1]), read(sys.argv[2])
assert ok["xdpong_probe_rtt_seconds"] == "histogram", ok
for name in ("xdpong_probe_sent", "xdpong_probe_received", "xdpong_probe_lost"):
    assert ok[name] == "counter", name
for target in ("127.0.0.1", "::1"):
    lab = (("probe", "cli"), ("protocol", "stamp"), ("target", target))
    assert ok[("xdpong_probe_sent_total", lab)] == 4
    assert ok[("xdpong_probe_received_total", lab)] == 4
    assert ok[("xdpong_probe_lost_total", lab)] == 0
    assert ok[("xdpong_probe_rtt_seconds_count", lab)] == 4
    les = [float(le) for le in LE]
    cum = [ok[("xdpong_probe_rtt_seconds_bucket", tuple(sorted(lab + (("le", le),))))]
           for le in LE]
    assert cum == sorted(cum) and cum[-1] == 4, cum
    assert 0 < ok[("xdpong_probe_rtt_seconds_sum", lab)] < 1
lab = (("probe", "cli"), ("protocol", "stamp"), ("target", "127.0.0.1"))
assert lost[("xdpong_probe_sent_total", lab)] == 4, lost
assert lost[("xdpong_probe_lost_total", lab)] == 4, lost
assert lost[("xdpong_probe_rtt_seconds_count", lab)] == 0, lost
PYEOF

xdpt_log "3. --icmp: refused without a ping socket, naming why; then as uid 65534"
: >"$LOG4"
xpr_probe --ns "$NS" --icmp -c 1 127.0.0.1
xdpt_assert_eq 1 "$XDPT_RC" "--icmp refused: exit status"
xdpt_assert_match 'net\.ipv4\.ping_group_range \(1 0\) refuses to group 65534.*CAP_NET_RAW' \
	"$XDPT_ERR" "--icmp refused"
xdpt_sysctl "$NS" net.ipv4.ping_group_range "0 2147483647"
xpr_probe --ns "$NS" --icmp -c 3 -i 0.1 -s 100 -t 9 127.0.0.1 ::1
xdpt_assert_eq 0 "$XDPT_RC" "--icmp as uid 65534 ($XDPT_ERR)"
xdpt_assert_match '^108 bytes from 127\.0\.0\.1: icmp_seq=2 ttl=64 rtt=' "$XDPT_OUT" "ICMP reply"
xdpt_assert_match '^108 bytes from ::1: icmp_seq=2 ttl=64 rtt=' "$XDPT_OUT" "ICMPv6 reply"
xdpt_assert_eq 2 "$(grep -c '^3 sent, 3 received, 0% loss' <<<"$XDPT_OUT")" "ICMP summaries"
xdpt_assert_match '^--- ::1 icmp statistics ---$' "$XDPT_OUT" "ICMP summary of ::1"
xdpt_pass
