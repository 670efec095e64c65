#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Bad input gets a clear error, changes nothing that runs, loses nothing:
#  1. config files with an unknown key, a bad value, a duplicate interface
#     section, a missing include, binary garbage, a key in the wrong
#     section, a command-line-only key, a bad [probe] key or family:
#     `config check` and `run --config` exit 1 naming FILE:LINE and the
#     fix, and attach nothing;
#  2. the same files on a SIGHUP to a running service: refused, every
#     program id and prefix as before, the service still up;
#  3. --metrics-listen on an address that is not this host's: exit 1
#     before anything is attached (a port another process holds is waited
#     for: security/squatter);
#  4. HTTP: an unknown path (404), other methods (405 with Allow), an
#     oversized request (refused), a slowloris client (cut after the
#     connection timeout, while others are served): the service still
#     answers /healthz 200 afterwards, and pings throughout.
#
#   $NS_PING                          $NS_RESP (kernel echo off)
#  +------------------+   veth   +---------------------------------+
#  | fp1<id> 10.81.0.1|----------| fr1<id> 10.81.0.2               |
#  +------------------+          | xdpong run --config, HTTP :port |
#                                +---------------------------------+
. "$(dirname "$0")/../lib/fleet.bash"

xdf_require
fl_ns
fl_pair 1
FL_LISTEN=127.0.0.1:$(fl_port)
GOOD=$XDPT_TMP/good.conf
cat >"$GOOD" <<CONF
[global]
metrics-listen = $FL_LISTEN
mode = skb
[interface $FR]
addr = 192.0.2.0/24
CONF

# A glob may match nothing, even in a directory that does not exist (an
# empty or absent conf.d/); a plain path must exist (no_include below).
printf '[global]\ninclude = %s/absent.d/*.conf\n[interface x0]\n' "$XDPT_TMP" >"$XDPT_TMP/glob.conf"
xdpt_ok "$XDPONG" config check "$XDPT_TMP/glob.conf"

# name | file body | expected message (ERE, after "FILE:")
bad()
{
	printf '%s' "$2" >"$XDPT_TMP/$1.conf"
	BAD_NAMES+=("$1")
	BAD_RES+=("$3")
}
BAD_NAMES=() BAD_RES=()
bad unknown_key $'[global]\nrate-limt = 5\n' \
	'2: unknown key .rate-limt. \(did you mean .rate-limit.\?\)'
bad bad_value $'[interface x0]\nrate-limit = fast\n' \
	'2: invalid value .fast. for rate-limit: expected PPS or PPS:BURST'
bad dup_section $'[interface x0]\n\n[interface x0]\n' \
	"3: \\[interface x0\\] again \\(first at .*:1\\): merge the two sections"
bad no_include $'[global]\ninclude = /nonexistent/xdpong.conf\n' \
	'2: include: /nonexistent/xdpong.conf does not exist'
bad wrong_section $'[interface x0]\nmetrics-listen = 127.0.0.1:1\n' \
	"2: 'metrics-listen' belongs in \\[global\\]"
bad cli_only $'[global]\nforce = yes\n' "2: 'force' is a command-line option only"
# More addr prefixes than max-prefixes holds.
many=$'[global]\nmax-prefixes = 2\n[interface x0]\n'
many+=$'addr = 10.0.0.1\naddr = 10.0.0.2\naddr = 10.0.0.3\n'
bad too_many_addrs "$many" \
	' \[interface x0\]: 3 IPv4 --addr prefixes, more than --max-prefixes 2 holds$'
bad no_equals $'[global]\njust words\n' "2: not 'key = value'"
# [probe] keys: probe's checks of -t and of -4/-6 with -I, in the file's words.
bad probe_ttl $'[interface x0]\n[probe p]\ntargets = 192.0.2.9\nttl = 0\n' \
	'4: invalid value .0. for ttl: expected a whole number, 1 to 255'
bad probe_family $'[interface x0]\n[probe p]\ntargets = 192.0.2.9\nfamily = ipv4\nsource = ::1\n' \
	'2: \[probe p\]: family = ipv4 with the IPv6 source ::1$'
# A value longer than inih's line is refused, never cut to another value.
bad long_line "[interface x0]"$'\n'"metrics-file = /run/$(printf 'd%.0s' {1..200})/m.prom"$'\n' \
	'2: line longer than 198 characters'
# 198 characters fit, and the line numbers after them stay right.
printf '[interface x0]\n# %s\nrate-limt = 5\n' "$(printf 'c%.0s' {1..196})" >"$XDPT_TMP/fit.conf"
xdpt_rc 1 "$XDPONG" config check "$XDPT_TMP/fit.conf"
xdpt_assert_match "fit.conf:3: unknown key 'rate-limt'" "$XDPT_ERR" \
	"line number after a 198-character line"
# Binary garbage, the same every run: every byte value, 8 times, scrambled
# (167 is odd, so i * 167 + 13 mod 256 visits each byte once per 256).
LC_ALL=C awk 'BEGIN { for (i = 0; i < 2048; i++) printf "%c", (i * 167 + 13) % 256 }' \
	</dev/null >"$XDPT_TMP/garbage.conf"
BAD_NAMES+=(garbage) BAD_RES+=('[0-9]+: ')

xdpt_log "1. config check and run --config refuse each bad file"
for i in "${!BAD_NAMES[@]}"; do
	f=$XDPT_TMP/${BAD_NAMES[$i]}.conf
	xdpt_rc 1 "$XDPONG" config check "$f"
	xdpt_assert_match "^xdpong: $f:${BAD_RES[$i]}" "$XDPT_ERR" \
		"config check of ${BAD_NAMES[$i]}"
	xdf_x_rc 1 "$NS_RESP" run --config "$f"
	xdpt_assert_match "^xdpong: $f:${BAD_RES[$i]}" "$XDPT_ERR" \
		"run --config of ${BAD_NAMES[$i]}"
	xdpt_assert_eq 0 "$(xdpt_link_prog_id "$NS_RESP" "$FR")" \
		"program on $FR after ${BAD_NAMES[$i]}"
	xdpt_log "${BAD_NAMES[$i]}: ${XDPT_ERR#xdpong: }"
done
xdpt_rc 1 "$XDPONG" config check "$XDPT_TMP/does-not-exist.conf"
xdpt_assert_match "cannot read: No such file or directory" "$XDPT_ERR" \
	"config check of a missing file"

xdpt_log "3. --metrics-listen: an address not ours"
xdf_x_rc 1 "$NS_RESP" run "$FR" --metrics-listen 203.0.113.5:9435
xdpt_assert_match "not an address of this host" "$XDPT_ERR" "a foreign address"
xdpt_assert_eq 0 "$(xdpt_link_prog_id "$NS_RESP" "$FR")" "program after the foreign address"
xdf_x_rc 2 "$NS_RESP" run "$FR" --metrics-listen localhost:80
xdpt_assert_match "invalid --metrics-listen 'localhost:80'" "$XDPT_ERR" "a name, not an address"

xdpt_log "2. SIGHUP with each bad file: nothing changes"
fl_run "$GOOD"
id=$(xdpt_link_prog_id "$NS_RESP" "$FR")
xdf_x_ok "$NS_RESP" addr "$FR" list --json
before=$XDPT_OUT
# The run reads $GOOD: put each bad body there in turn, then the good one back.
cp "$GOOD" "$GOOD.orig"
for i in "${!BAD_NAMES[@]}"; do
	cp "$XDPT_TMP/${BAD_NAMES[$i]}.conf" "$GOOD"
	n=$(grep -c 'nothing changed' "$XDPT_TMP/run.out")
	kill -HUP "$XDF_RUN_PID"
	xdpt_wait 5 sh -c "[ \$(grep -c 'nothing changed' '$XDPT_TMP/run.out') -gt $n ]" ||
		xdpt_fail "no refusal of ${BAD_NAMES[$i]} on SIGHUP:" \
			"$(tail -n 3 "$XDPT_TMP/run.out")"
	kill -0 "$XDF_RUN_PID" || xdpt_fail "run died on the bad reload ${BAD_NAMES[$i]}"
	xdpt_assert_eq "$id" "$(xdpt_link_prog_id "$NS_RESP" "$FR")" \
		"program after reload of ${BAD_NAMES[$i]}"
	xdf_x_ok "$NS_RESP" addr "$FR" list --json
	xdpt_assert_eq "$before" "$XDPT_OUT" "prefixes after reload of ${BAD_NAMES[$i]}"
done
cp "$GOOD.orig" "$GOOD"
ip -n "$NS_PING" route add 192.0.2.0/24 via "$FR_IP"
xdpt_ping_all "$NS_PING" -4 192.0.2.1 2

xdpt_log "4. HTTP: wrong paths, wrong methods, oversized, slowloris"
fl_http /nope
xdpt_assert_eq 404 "$HTTP_STATUS" "unknown path"
fl_http /metrics/../etc/passwd
xdpt_assert_eq 404 "$HTTP_STATUS" "a path with dots"
for m in POST PUT DELETE PATCH; do
	fl_http /metrics "$m"
	xdpt_assert_eq 405 "$HTTP_STATUS" "$m /metrics"
done
ip netns exec "$NS_RESP" /usr/bin/python3 - "$FL_LISTEN" \
	<<'PY' >"$XDPT_TMP/abuse" 2>&1 || xdpt_fail "HTTP abuse: $(cat "$XDPT_TMP/abuse")"
import http.client, socket, sys, time
host, port = sys.argv[1].rsplit(":", 1)
port = int(port)

# Oversized: 64 KiB of headers. Refused (4xx) or cut, never served.
s = socket.create_connection((host, port), timeout=10)
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n" + b"X-Pad: " + b"a" * 65536 + b"\r\n\r\n")
try:
    head = s.recv(64)
except ConnectionResetError:
    head = b""
assert not head.startswith(b"HTTP/1.1 200"), head
print("oversized:", head.split(b"\r\n")[0].decode() or "connection cut")
s.close()

# Slowloris: half a request line, then nothing. Others are served meanwhile,
# and the server cuts the slow one within its timeout (5 s) plus slack.
slow = socket.create_connection((host, port), timeout=15)
slow.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
t0 = time.monotonic()
c = http.client.HTTPConnection(host, port, timeout=5)
c.request("GET", "/healthz")
assert c.getresponse().status == 200, "not served while a slow client waits"
data = slow.recv(1024)  # b"" when cut
took = time.monotonic() - t0
assert took < 12, "slow client held %.1f s" % took
print("slowloris: cut after %.1f s (%r)" % (took, data[:20]))
PY
xdpt_log "$(cat "$XDPT_TMP/abuse")"
fl_http /healthz
xdpt_assert_eq 200 "$HTTP_STATUS" "/healthz after the abuse"
xdpt_ping_all "$NS_PING" -4 192.0.2.1 2
kill -TERM "$XDF_RUN_PID"
xdf_wait_exit "$XDF_RUN_PID" 5 || xdpt_fail "run still running after SIGTERM"
xdf_pass
