#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Where `xdpong run` keeps its ownership locks, /run/xdpong/owner, and what
# it does when that place cannot be trusted. Each case runs under a tmpfs
# of its own over /run, in a private mount namespace (the host's /run is
# not touched):
#  1. /run/xdpong missing: uid 65534 cannot make it; run makes both
#     directories 0700, root's, and serves;
#  2. /run/xdpong or /run/xdpong/owner owned by uid 65534, a symlink, a
#     file, writable by others; the lock file a symlink, or readable by
#     others: run says what is wrong with which path in one line, exits 1
#     and attaches nothing;
#  3. status where the directory is unusable says it cannot tell the owner,
#     not that there is none.
#
#   ns ping                               ns resp (kernel echo off)
#  +---------------------+  veth pair  +-----------------------------------+
#  | xp<id> 10.99.0.1/24 |-------------| xr<id> 10.99.0.2/24               |
#  +---------------------+             | xdpong run, /run a private tmpfs  |
#                                      +-----------------------------------+
. "$(dirname "$0")/../lib/faults.bash"

xdf_require
xdpt_require_cmd setpriv unshare
xdf_topo_echo_off
ifindex=$(ip -n "$NS_RESP" -j link show dev "$IF_RESP" | jq -r '.[0].ifindex')
lock=/run/xdpong/owner/$(ip netns exec "$NS_RESP" stat -L -c 'net-%d-%i' /proc/self/ns/net)-$ifindex

# private SETUP CMD...: in NS_RESP, with a fresh tmpfs (root's, 0755) over
# /run, run the shell commands SETUP, then CMD; bounded. Sets XDPT_RC,
# XDPT_OUT and XDPT_ERR (xdpt_run).
private()
{
	local setup=$1

	shift
	xdpt_run nsenter "--net=/run/netns/$NS_RESP" unshare --mount --propagation private \
		bash -c 'mount -t tmpfs -o mode=0755 tmpfs /run || exit 9
			eval "$1" || exit 9
			shift
			exec "$@"' _ "$setup" "$@"
	[ "$XDPT_RC" = 9 ] && xdpt_skip "cannot mount a tmpfs over /run here: $XDPT_ERR"
	return 0
}

xdpt_log "1. /run/xdpong missing: only run makes it, 0700"
# The run stops itself once it serves: the directories are then checked.
private "" bash -c '
	LC_ALL=C setpriv --reuid=65534 --regid=65534 --clear-groups mkdir /run/xdpong 2>&1 && exit 3
	"$1" run "$2" --mode skb >/run/out 2>&1 &
	for i in $(seq 100); do grep -q "running (pid" /run/out && break; sleep 0.1; done
	kill -TERM $! && wait $!
	stat -c "%U %a" /run/xdpong /run/xdpong/owner' _ "$XDPONG" "$IF_RESP"
xdpt_assert_eq 0 "$XDPT_RC" "run with /run/xdpong missing: $XDPT_OUT $XDPT_ERR"
xdpt_assert_match "mkdir: cannot create directory '/run/xdpong': Permission denied" "$XDPT_OUT" \
	"uid 65534 making /run/xdpong"
xdpt_assert_eq "root 700 root 700" "$(tail -n 2 <<<"$XDPT_OUT" | tr '\n' ' ' | sed 's/ $//')" \
	"the directories run made"
xdf_assert_state "$NS_RESP" "$IF_RESP" none "after that run's SIGTERM"

xdpt_log "2. unusable: one line, exit 1, nothing attached"
mk="mkdir -m 0700 -p /run/xdpong/owner"
cases=(
	"mkdir -m 0700 /run/xdpong && chown 65534 /run/xdpong"
	"/run/xdpong is owned by uid 65534, not 0 \\(remove it\\)"
	"$mk && chown 65534 /run/xdpong/owner"
	"/run/xdpong/owner is owned by uid 65534, not 0"
	"mkdir -m 0700 /run/elsewhere && ln -s elsewhere /run/xdpong"
	"/run/xdpong is a symbolic link, not a directory \\(remove it\\)"
	"mkdir -m 0700 /run/xdpong && touch /run/xdpong/owner"
	"/run/xdpong/owner is a file, not a directory"
	"mkdir -m 0777 /run/xdpong"
	"/run/xdpong is writable by group or others \\(mode 0777; chmod 0700 it\\)"
	"$mk && ln -s /run/elsewhere $lock"
	"$lock is a symbolic link \\(remove it\\)"
	"$mk && touch $lock && chmod 0644 $lock"
	"$lock is not a file of uid 0's alone \\(remove it\\)"
)
for ((i = 0; i < ${#cases[@]}; i += 2)); do
	private "${cases[i]}" "$XDPONG" run "$IF_RESP" --mode skb
	xdpt_assert_eq 1 "$XDPT_RC" "run after '${cases[i]}': $XDPT_ERR"
	xdpt_assert_eq 1 "$(wc -l <<<"$XDPT_ERR")" "one line after '${cases[i]}': $XDPT_ERR"
	xdpt_assert_match "^xdpong: (.*: cannot take ownership: )?${cases[i + 1]}" "$XDPT_ERR" \
		"after '${cases[i]}'"
	xdf_assert_state "$NS_RESP" "$IF_RESP" none "after '${cases[i]}'"
	xdpt_log "${cases[i]}: $XDPT_ERR"
done

xdpt_log "3. status where the directory is unusable"
xdf_x_ok "$NS_RESP" attach "$IF_RESP" --mode skb
private "mkdir -m 0777 /run/xdpong" "$XDPONG" status "$IF_RESP"
xdpt_assert_eq 0 "$XDPT_RC" "status: $XDPT_ERR"
xdpt_assert_match "owner: +cannot tell: /run/xdpong/owner is not usable" "$XDPT_OUT" "status"
xdf_x_ok "$NS_RESP" detach "$IF_RESP"
xdf_assert_state "$NS_RESP" "$IF_RESP" none "after detach"
xdf_pass
