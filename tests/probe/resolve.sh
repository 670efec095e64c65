#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# xdpong probe resolves its targets' names again while it runs (every 30 s):
# a name that gains an address gains a target, and the address it had
# keeps its counts. The name is in an /etc/hosts of this test's own (bind-
# mounted in a mount namespace of its own), first with 127.0.0.1 alone,
# then with ::1 too; a user-space STAMP reflector answers both.
# xdpt-timeout: 120
. "$(dirname "$0")/../lib/probe.bash"

xdpt_require_all
xdpt_require_cmd setpriv unshare
xdpt_ns_new NS resolve
xdpt_tmpdir
xpr_reflector "$NS" 4 "$XDPT_TMP/r4.log"
xpr_reflector "$NS" 6 "$XDPT_TMP/r6.log"
HOSTS=$XDPT_TMP/hosts
NAME=xdpt-probe-twin
printf '127.0.0.1 %s\n' "$NAME" >"$HOSTS"
chmod 644 "$HOSTS"

xdpt_log "probing $NAME until SIGINT, 34 s; ::1 added after 3 s"
unshare -m bash -c 'mount --bind "$1" /etc/hosts && shift && exec "$@"' _ "$HOSTS" \
	timeout --preserve-status -s INT 34 nsenter "--net=/run/netns/$NS" "${NOBODY[@]}" \
	"$XDPONG" probe -i 0.1 -q --json "$NAME" >"$XDPT_TMP/out" 2>"$XDPT_TMP/err" &
pid=$!
sleep 3
printf '::1 %s\n' "$NAME" >>"$HOSTS" # in place: the bind mount sees it
wait "$pid"
rc=$?
out=$(cat "$XDPT_TMP/out")
xdpt_assert_eq 0 "$rc" "exit status ($(cat "$XDPT_TMP/err"))"
xdpt_assert_eq "$NAME 127.0.0.1|$NAME ::1" "$(jq -r '.targets | map(.name + " " + .target) |
	join("|")' <<<"$out")" "the targets, the second one found again"
read -r s4 r4 l4 s6 r6 < <(jq -r '.targets | "\(.[0].sent) \(.[0].received) \(.[0].lost)
	\(.[1].sent) \(.[1].received)"' <<<"$out" | tr '\n' ' ')
xdpt_log "   127.0.0.1: $s4 sent, $r4 received; ::1: $s6 sent, $r6 received"
xdpt_assert_ge 300 "$s4" "probes to 127.0.0.1 all along"
xdpt_assert_eq "$s4" "$((r4 + l4))" "127.0.0.1: sent = received + lost"
[ "$s6" -ge 10 ] && [ "$s6" -le 60 ] || xdpt_fail "::1 probed from 30 s on: $s6 sent"
xdpt_assert_ge "$((s6 - 1))" "$r6" "::1 answered"
xdpt_pass
