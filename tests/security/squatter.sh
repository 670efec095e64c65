#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# A local user (uid 65534) cannot block xdpong or pose as its owner, whatever
# it holds first. Before xdpong starts, the squatter binds the abstract unix
# socket "xdpong/owner/IFINDEX" that ownership once was (and answers on it
# as an owner would), tries to make /run/xdpong and the lock file (it must
# fail), binds the metrics port, and puts a symlink where the metrics file
# goes. Then:
#  1. run (under ip netns exec) attaches and answers real pings, says once
#     that the port is taken, and serves /metrics once the squatter lets
#     the port go; its metrics file replaced the symlink, whose target is
#     untouched; the lock file is root's, 0600, in 0700 root directories,
#     and the squatter can neither open nor lock it;
#  2. status, its JSON (through ip netns exec and nsenter) and a second
#     run name the real run's pid as the owner, never the squatter;
#  3. attach, with and without --force, is refused naming that pid;
#  4. SIGUSR1 leaves the program unowned, and detach removes it;
#  5. kill -9 releases ownership: a new run claims it (through nsenter,
#     the first run's way, so the pins are the host's);
#  6. two racing runs, one through each: exactly one wins.
#
#   ns ping                               ns resp (kernel echo off)
#  +---------------------+  veth pair  +-----------------------------------+
#  | xp<id> 10.99.0.1/24 |-------------| xr<id> 10.99.0.2/24               |
#  +---------------------+             | squatter (uid 65534), xdpong run  |
#                                      +-----------------------------------+
. "$(dirname "$0")/../lib/faults.bash"

xdf_require
xdpt_require_cmd setpriv
[ -x /usr/bin/python3 ] || xdpt_skip "needs /usr/bin/python3"
xdf_topo_echo_off
PORT=9435
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
ifindex=$(ip -n "$NS_RESP" -j link show dev "$IF_RESP" | jq -r '.[0].ifindex')
lock=/run/xdpong/owner/$(ip netns exec "$NS_RESP" stat -L -c 'net-%d-%i' /proc/self/ns/net)-$ifindex

# The metrics file's directory is one the squatter may write.
chmod 0711 "$XDPT_TMP"
mkdir -m 0777 "$XDPT_TMP/prom"
echo victim >"$XDPT_TMP/victim"
PROM=$XDPT_TMP/prom/xdpong.prom
"${NOBODY[@]}" ln -s ../victim "$PROM" || xdpt_fail "the squatter cannot make its symlink"

xdpt_log "the squatter takes what it can, as uid 65534"
ip netns exec "$NS_RESP" "${NOBODY[@]}" /usr/bin/python3 -c '
import errno, os, signal, socket, sys, time
ifindex, port, lock = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def say(s):
    print(s, flush=True)
def attempt(what, f):
    try:
        f()
        say(what + ": made")
    except OSError as e:
        say(what + ": " + errno.errorcode[e.errno])
a = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
a.bind(b"\0xdpong/owner/" + ifindex.encode())
a.listen(8)
say("abstract: bound")
attempt("mkdir /run/xdpong", lambda: os.mkdir("/run/xdpong", 0o777))
attempt("mkdir /run/xdpong/owner", lambda: os.mkdir("/run/xdpong/owner", 0o777))
attempt("create " + lock, lambda: os.open(lock, os.O_RDWR | os.O_CREAT, 0o666))
m = socket.socket()
m.bind(("127.0.0.1", port))
m.listen(8)
say("port: bound")
def free(*_):
    m.close()
    say("port: freed")
signal.signal(signal.SIGUSR1, free)
say("ready")
a.settimeout(0.2)
end = time.time() + 120
while time.time() < end:
    try:
        c, _ = a.accept()
        c.sendall(b"pid 1 since 0 version squatter\n")
        c.close()
    except OSError:
        pass
' "$ifindex" "$PORT" "$lock" >"$XDPT_TMP/squat" 2>&1 &
squat=$!
xdpt_wait 10 grep -q ready "$XDPT_TMP/squat" ||
	xdpt_fail "the squatter did not start: $(cat "$XDPT_TMP/squat")"
xdpt_log "$(tr '\n' ';' <"$XDPT_TMP/squat")"
xdpt_assert_no_match ": made" "$(cat "$XDPT_TMP/squat")" \
	"the squatter made something under /run/xdpong"
xdpt_assert_match "abstract: bound" "$(cat "$XDPT_TMP/squat")" \
	"the squatter holds the old owner name"
xdpt_assert_match "port: bound" "$(cat "$XDPT_TMP/squat")" "the squatter holds the port"

# run_started FILE: RUN, the pid of the run writing FILE, once it is running.
run_started()
{
	xdpt_wait 15 grep -q 'running (pid' "$1" || xdpt_fail "run did not start: $(cat "$1")"
	RUN=$(sed -n 's/.*running (pid \([0-9]*\)).*/\1/p' "$1" | head -n 1)
}

# assert_owner PID WHAT: every way of asking names PID as IFACE's owner.
assert_owner()
{
	xdpt_assert_eq "$1" "$(xdf_owner_pid "$NS_RESP" "$IF_RESP")" \
		"$2: owner in status --json (nsenter)"
	xdpt_ok --ns "$NS_RESP" "$XDPONG" status "$IF_RESP" --json
	xdpt_assert_eq "$1" "$(jq -r '.interfaces[0].owner.pid' <<<"$XDPT_OUT")" \
		"$2: owner in status --json (ip netns exec)"
	xdpt_ok --ns "$NS_RESP" "$XDPONG" status "$IF_RESP"
	xdpt_assert_match "owner: +xdpong run, pid $1, running for" "$XDPT_OUT" \
		"$2: owner in status"
}

xdpt_log "1. run attaches and answers with the squatter in place"
ip netns exec "$NS_RESP" "$XDPONG" run "$IF_RESP" --mode skb --metrics-listen "127.0.0.1:$PORT" \
	--metrics-file "$PROM" >"$XDPT_TMP/run1" 2>&1 &
run_started "$XDPT_TMP/run1"
run=$RUN
xdpt_ping_all "$NS_PING" -4 "$RESP4" 3
xdpt_ping_all "$NS_PING" -6 "$RESP6" 3
re="metrics-listen 127.0.0.1:$PORT: Address already in use \(another process holds the port\);"
re+=" answering pings anyway"
xdpt_assert_match "$re" \
	"$(cat "$XDPT_TMP/run1")" "the warning about the port"
xdpt_assert_eq "root 700 root 700 root 600 regular file" \
	"$(stat -c '%U %a' /run/xdpong /run/xdpong/owner |
		tr '\n' ' ')$(stat -c '%U %a %F' "$lock")" \
	"the lock directories and file"
xdpt_assert_match "^pid $run pidns [0-9]+ since [0-9]+ version " "$(cat "$lock")" \
	"the owner's record"
ip netns exec "$NS_RESP" "${NOBODY[@]}" /usr/bin/python3 -c '
import fcntl, os, struct, sys
for flags in (os.O_RDONLY, os.O_RDWR):
    try:
        fd = os.open(sys.argv[1], flags)
    except OSError as e:
        print("open:", e.strerror)
        continue
    fcntl.fcntl(fd, 37, struct.pack("hhqqi", fcntl.F_RDLCK, 0, 0, 0, 0))  # F_OFD_SETLK
    print("locked")' "$lock" >"$XDPT_TMP/grab" 2>&1
xdpt_assert_eq "open: Permission denied open: Permission denied" \
	"$(tr '\n' ' ' <"$XDPT_TMP/grab" | sed 's/ $//')" \
	"the squatter opening the lock file"
[ -f "$PROM" ] && [ ! -L "$PROM" ] ||
	xdpt_fail "the metrics file did not replace the squatter's symlink"
xdpt_assert_eq "root" "$(stat -c %U "$PROM")" "the metrics file's owner"
xdpt_assert_match "^xdpong_up\{device=\"$IF_RESP\"\} " "$(cat "$PROM")" "the metrics file"
xdpt_assert_eq victim "$(cat "$XDPT_TMP/victim")" "the symlink's target"
kill -USR1 "$squat"
xdpt_wait 5 grep -q 'port: freed' "$XDPT_TMP/squat" ||
	xdpt_fail "the squatter did not free the port"
xdpt_wait 15 grep -q "metrics-listen 127.0.0.1:$PORT: listening now" "$XDPT_TMP/run1" ||
	xdpt_fail "run did not take the freed port: $(cat "$XDPT_TMP/run1")"
ip netns exec "$NS_RESP" /usr/bin/python3 -c '
import http.client, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=5)
c.request("GET", "/healthz")
print(c.getresponse().status)' "$PORT" >"$XDPT_TMP/healthz" 2>&1
xdpt_assert_eq 200 "$(cat "$XDPT_TMP/healthz")" "/healthz once the port is free"

xdpt_log "2. status and a second run name the real owner"
assert_owner "$run" "run 1"
xdf_x_rc 1 "$NS_RESP" run "$IF_RESP" --mode skb
xdpt_assert_match "owned by another 'xdpong run' \(pid $run\)" "$XDPT_ERR" "a second run"

xdpt_log "3. attach is refused, naming the owner"
for force in "" --force; do
	xdpt_rc 1 --ns "$NS_RESP" "$XDPONG" attach "$IF_RESP" --mode skb $force
	xdpt_assert_match "is owned by 'xdpong run' \(pid $run, running since" "$XDPT_ERR" \
		"attach $force"
done

xdpt_log "4. SIGUSR1 leaves it unowned; detach removes it"
id=$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")
kill -USR1 "$run"
xdf_wait_exit "$run" 5 || xdpt_fail "run did not exit on SIGUSR1"
xdpt_assert_eq "$id" "$(xdpt_link_prog_id "$NS_RESP" "$IF_RESP")" "the program after SIGUSR1"
xdpt_assert_eq "" "$(xdf_owner_pid "$NS_RESP" "$IF_RESP")" "owner after SIGUSR1"
[ -e "$lock" ] && xdpt_fail "the lock file outlived a clean exit"
xdpt_ok --ns "$NS_RESP" "$XDPONG" detach "$IF_RESP"
xdf_assert_state "$NS_RESP" "$IF_RESP" none "after detach"
xdpt_ping_none "$NS_PING" -4 "$RESP4" 2

xdpt_log "5. kill -9 releases ownership"
xdf_run_bg "$NS_RESP" "$XDPT_TMP/run2" "$IF_RESP" --mode skb
xdf_run_wait_attached "$NS_RESP" "$IF_RESP" 10 ||
	xdpt_fail "run through nsenter: $(cat "$XDPT_TMP/run2")"
assert_owner "$XDF_RUN_PID" "run 2"
kill -9 "$XDF_RUN_PID"
xdf_wait_exit "$XDF_RUN_PID" 5 2>/dev/null
xdpt_assert_eq "" "$(xdf_owner_pid "$NS_RESP" "$IF_RESP")" "owner after kill -9"
# Through nsenter again: it takes over the orphan's pins in the host's bpffs.
xdf_run_bg "$NS_RESP" "$XDPT_TMP/run3" "$IF_RESP" --mode skb
run_started "$XDPT_TMP/run3"
run=$RUN
assert_owner "$run" "the run after kill -9"
xdpt_ping_all "$NS_PING" -4 "$RESP4" 2
kill -TERM "$run"
xdf_wait_exit "$run" 5 || xdpt_fail "run did not stop on SIGTERM"
xdf_assert_state "$NS_RESP" "$IF_RESP" none "after SIGTERM"

xdpt_log "6. two racing runs, through ip netns exec and nsenter: one wins"
for round in 1 2 3; do
	ip netns exec "$NS_RESP" "$XDPONG" run "$IF_RESP" --mode skb >"$XDPT_TMP/a" 2>&1 &
	a=$!
	nsenter "--net=/run/netns/$NS_RESP" "$XDPONG" run "$IF_RESP" --mode skb \
		>"$XDPT_TMP/b" 2>&1 &
	b=$!
	xdpt_wait 10 sh -c "! kill -0 $a 2>/dev/null || ! kill -0 $b 2>/dev/null" ||
		xdpt_fail "round $round: both runs still running after 10 s"
	if kill -0 "$a" 2>/dev/null; then
		win=$a lose=$b out=$XDPT_TMP/a lose_out=$XDPT_TMP/b
	else
		win=$b lose=$a out=$XDPT_TMP/b lose_out=$XDPT_TMP/a
	fi
	wait "$lose"
	xdpt_assert_eq 1 "$?" "round $round: the loser's exit code"
	xdpt_assert_match "owned by another 'xdpong run' \(pid $win\)" "$(cat "$lose_out")" \
		"round $round: the loser"
	run_started "$out"
	xdpt_assert_eq "$win" "$RUN" "round $round: the winner runs"
	assert_owner "$win" "round $round"
	kill -TERM "$win"
	xdf_wait_exit "$win" 5 || xdpt_fail "round $round: the winner did not stop on SIGTERM"
	xdf_assert_state "$NS_RESP" "$IF_RESP" none "round $round: after SIGTERM"
done
kill "$squat"
wait "$squat" 2>/dev/null
xdf_pass
