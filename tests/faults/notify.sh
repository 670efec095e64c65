#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The systemd notify protocol of `xdpong run` (Type=notify, WatchdogSec=),
# against a stand-in for systemd: a datagram socket at $NOTIFY_SOCKET that
# records every message, and at READY=1 pings the responder at once (the
# kernel's echo is off: only the attached program can answer). Checked:
#  - READY=1 comes, with MAINPID, and the program answers at that moment;
#  - STATUS= lines say what it does;
#  - with WATCHDOG_USEC set, WATCHDOG=1 comes at least every half period
#    while the program is attached, and stops once it is detached behind
#    run's back (so systemd would restart the service);
#  - SIGTERM sends STOPPING=1.
# (PID 1 is not systemd here: the unit itself is checked by tests/install.)
#
#   ns ping                               ns resp (kernel echo off)
#  +---------------------+  veth pair  +------------------------------+
#  | xp<id> 10.99.0.1/24 |-------------| xr<id> 10.99.0.2/24          |
#  +---------------------+             | NOTIFY_SOCKET=... xdpong run |
#                                      +------------------------------+
. "$(dirname "$0")/../lib/faults.bash"

xdf_require
xdf_topo_echo_off
SOCK=$XDPT_TMP/notify.sock
LOG=$XDPT_TMP/notify.log

# The stand-in (faults.bash): at READY=1 it logs whether a ping was
# answered right then.
xdf_notify_standin "$SOCK" "$LOG" ip netns exec "$NS_PING" ping -c 1 -W 1 "$RESP4"
LISTENER=$XDF_STANDIN_PID

NOTIFY_SOCKET=$SOCK WATCHDOG_USEC=400000 \
	nsenter "--net=/run/netns/$NS_RESP" "$XDPONG" run "$IF_RESP" --mode skb --interval 0.2 \
	>"$XDPT_TMP/run.out" 2>&1 &
RUN=$!
xdpt_wait 10 grep -q 'at-ready' "$LOG" || xdpt_fail "no READY=1: $(cat "$LOG" "$XDPT_TMP/run.out")"
xdpt_assert_match "READY=1\|MAINPID=$RUN" "$(cat "$LOG")" "READY=1 with MAINPID"
xdpt_assert_match "at-ready rc=0" "$(cat "$LOG")" "the program answers when READY=1 is sent"
# Waits are for the messages themselves (bounded generously): a loaded
# machine may slow them, which is systemd's business, not this test's.
status_re="STATUS=answering on $IF_RESP \(program id [0-9]+, skb mode\): [0-9]+ replied"
xdpt_wait 10 grep -Eq "$status_re" "$LOG" || xdpt_fail "no STATUS line: $(cat "$LOG")"
# It keeps petting: five pets (every 0.2 s, half of WATCHDOG_USEC, when idle).
pets_at_least() { [ "$(grep -c ' WATCHDOG=1$' "$LOG")" -ge "$1" ]; }
xdpt_wait 10 pets_at_least 5 ||
	xdpt_fail "fewer than 5 WATCHDOG=1 messages in 10 s: $(cat "$LOG")"
pets=$(grep -c ' WATCHDOG=1$' "$LOG")

# Detached behind run's back: once run says so, the pets stop. A pet can
# race the detach; none may come after run noticed. The window is for
# an absence: a slow machine can only make it pass, never fail.
ip -n "$NS_RESP" link set dev "$IF_RESP" xdpgeneric off
xdpt_wait 10 grep -q "no longer attached" "$XDPT_TMP/run.out" ||
	xdpt_fail "run did not notice the detach: $(cat "$XDPT_TMP/run.out")"
before=$(grep -c ' WATCHDOG=1$' "$LOG")
sleep 1.2 # three pet intervals
after=$(grep -c ' WATCHDOG=1$' "$LOG")
xdpt_assert_eq "$before" "$after" "WATCHDOG=1 after run said the program was detached"

kill -TERM "$RUN"
xdf_wait_exit "$RUN" 5 || xdpt_fail "run did not stop on SIGTERM"
wait "$LISTENER"
xdpt_assert_match "STOPPING=1" "$(cat "$LOG")" "STOPPING=1 on SIGTERM"
xdpt_log "$(grep -c . "$LOG") notify lines, $pets pets before the detach"
xdf_pass
