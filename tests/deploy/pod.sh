#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The DaemonSet's pod, as near as this machine allows without Kubernetes
# or `podman run`: the image's rootfs (deploy/build-image.sh) run the way
# the manifest says, with the manifest's own config and script.
#
#   ns ping (another host, Prometheus)      ns resp (the node, hostNetwork)
#  +-------------------------------+  veth  +-----------------------------+
#  | xp<id> 10.99.0.1/24           |--------| eth0 10.99.0.2/24           |
#  |        fd00:99::1/64          |        |      fd00:99::2/64          |
#  | GET http://10.99.0.2:PORT/... |        | kernel echo off             |
#  +-------------------------------+        |  the "pod": new mount and   |
#                                           |  PID namespaces, chroot in  |
#                                           |  the rootfs (read-only),    |
#                                           |  ConfigMap at /etc/xdpong,  |
#                                           |  tmpfs at /run/xdpong, a    |
#                                           |  bpffs standing for the     |
#                                           |  host's at /sys/fs/bpf,     |
#                                           |  CAP_SYS_ADMIN+NET_ADMIN    |
#                                           |  only, POD_IP=10.99.0.2     |
#                                           +-----------------------------+
#
# Checked: the script execs xdpong as PID 1; /healthz and /metrics answer
# on the pod IP from the other host, not on localhost; pings are answered
# by XDP; a changed ConfigMap applied with `kill -HUP 1` from inside (as
# `kubectl exec`); `kill -USR1 1` (the optional preStop) leaves the program
# answering while no pod runs, and the next pod takes it over with no ping
# lost and the counters kept; SIGTERM from outside (the kubelet's stop)
# detaches within terminationGracePeriodSeconds and the kernel answers.
#
# Not checked: a real container runtime, its seccomp and AppArmor
# profiles, the kubelet's probes, Prometheus itself.
#
# The rootfs is built from the Debian base that tests/deploy/image.sh (or
# deploy/build-image.sh) cached; without one, the test skips at once
# rather than spend its time fetching it again.
. "$(dirname "$0")/../lib/deploy.bash"

xdpt_require_all
xdpt_require_cmd unshare nsenter setpriv chroot mount flock
dp_require_yaml
dp_manifest
xdpt_tmpdir
GRACE=$("$PY" -c 'import sys, yaml
d = [x for x in yaml.safe_load_all(open(sys.argv[1])) if x and x["kind"] == "DaemonSet"][0]
print(d["spec"]["template"]["spec"]["terminationGracePeriodSeconds"])' "$DP_MANIFEST")

xdpt_log "1. the image's rootfs (from the Debian base tests/deploy/image.sh fetched)"
dp_build --cached-only
ROOT=$XDPT_TMP/root
flock -s -w 60 "$XDPT_REPO/build/deploy/.lock" cp -a "$DP_ROOTFS" "$ROOT" ||
	xdpt_fail "cannot copy $DP_ROOTFS"
# The ConfigMap's volume, and a bpffs standing for the node's: it outlives
# the pods, as the host's /sys/fs/bpf does.
CONFIG=$XDPT_TMP/configmap
mkdir -p "$CONFIG" "$XDPT_TMP/bpffs"
printf '%s' "$DP_CONF" >"$CONFIG/xdpong.conf"
mount -t bpf bpf "$XDPT_TMP/bpffs" || xdpt_fail "cannot mount a bpffs"
# shellcheck disable=SC2034 # read by the EXIT trap below
BPFFS_MOUNTED=1
# The test's exit code goes on to xdpt_cleanup, which exits with it.
on_exit='rc=$?; [ -n "${BPFFS_MOUNTED:-}" ] && umount -l "$XDPT_TMP/bpffs"; (exit "$rc");'
on_exit+=' xdpt_cleanup'
# shellcheck disable=SC2064 # on_exit is single-quoted: it expands when the trap runs
trap "$on_exit" EXIT

xdpt_log "2. the node: eth0 in a namespace, kernel echo off"
xdpt_ns_new NS_PING ping
xdpt_ns_new NS_RESP node
IF_PING=xp$XDPT_ID
IF_RESP=eth0
xdf_veth "$NS_PING" "$IF_PING" "$PING4" "$NS_RESP" "$IF_RESP" "$RESP4"
ip -n "$NS_PING" addr add "$PING6/64" dev "$IF_PING" nodad
ip -n "$NS_RESP" addr add "$RESP6/64" dev "$IF_RESP" nodad
xdpt_wait 5 ip netns exec "$NS_PING" ping -c 1 -W 1 "$RESP4" || xdpt_fail "no connectivity"
xdpt_kernel_echo_ignore "$NS_RESP" 1
xdpt_peer_xdp_pass

# The pod: PID 1 of new PID and mount namespaces, in the node's network
# namespace. Mounts as the manifest's volumes; then chroot, the container's
# capabilities, its environment, and the manifest's script.
# shellcheck disable=SC2016 # expanded by the pod's shell
POD_SETUP='
set -e
root=$1 config=$2 bpffs=$3 pod_ip=$4 port=$5 script=$6
mount --bind "$root" "$root"
mount -t proc proc "$root/proc"
mount -t sysfs -o ro sysfs "$root/sys"
mount --bind "$bpffs" "$root/sys/fs/bpf"
mount -t tmpfs -o size=1m tmpfs "$root/run/xdpong"
mount --bind -o ro "$config" "$root/etc/xdpong"
mount -t tmpfs -o size=64k tmpfs "$root/dev"
touch "$root/dev/null"
mount --bind /dev/null "$root/dev/null"
mount -o remount,bind,ro "$root"
exec chroot "$root" /usr/bin/setpriv --bounding-set=-all,+sys_admin,+net_admin \
	--inh-caps=-all /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
	POD_IP="$pod_ip" METRICS_PORT="$port" /bin/sh -c "$script"'
POD_N=0

# pod_start: a new pod; POD_PID is its PID 1 (xdpong) seen from here.
pod_start()
{
	local _

	POD_N=$((POD_N + 1))
	POD_OUT=$XDPT_TMP/pod$POD_N.out
	ip netns exec "$NS_RESP" unshare --mount --pid --fork --propagation private \
		/bin/sh -c "$POD_SETUP" pod "$ROOT" "$CONFIG" "$XDPT_TMP/bpffs" "$RESP4" \
		"$DP_PORT" "$DP_SCRIPT" >"$POD_OUT" 2>&1 &
	POD_UNSHARE=$!
	POD_PID=
	for _ in $(seq 100); do
		POD_PID=$(pgrep -P "$POD_UNSHARE" | head -n 1)
		[ -n "$POD_PID" ] && [ "$(cat "/proc/$POD_PID/comm" 2>/dev/null)" = xdpong ] &&
			break
		kill -0 "$POD_UNSHARE" 2>/dev/null || break
		sleep 0.05
	done
	[ "$(cat "/proc/$POD_PID/comm" 2>/dev/null)" = xdpong ] ||
		xdpt_fail "pod $POD_N: xdpong did not start: $(cat "$POD_OUT")"
	xdpt_wait 15 grep -q 'running (pid' "$POD_OUT" ||
		xdpt_fail "pod $POD_N: xdpong run did not start: $(cat "$POD_OUT")"
	xdpt_assert_match 'running \(pid 1\)' "$(cat "$POD_OUT")" \
		"pod $POD_N: xdpong is the pod's PID 1"
}

# pod_exec CMD: a shell command inside the pod, as `kubectl exec` runs it.
pod_exec()
{
	xdpt_run nsenter -t "$POD_PID" --mount --pid --root --wd /bin/sh -c "$1"
}

# The pod's unshare has exited (a zombie until waited for, or reaped).
pod_gone()
{
	local state

	state=$(awk '{ print $3 }' "/proc/$POD_UNSHARE/stat" 2>/dev/null)
	[ -z "$state" ] || [ "$state" = Z ]
}

# pod_wait_exit SECONDS: until the pod is gone; its time in POD_EXIT_MS.
pod_wait_exit()
{
	local t0=$EPOCHREALTIME

	xdpt_wait "$1" pod_gone ||
		xdpt_fail "pod $POD_N still runs ${1}s after the signal: $(cat "$POD_OUT")"
	wait "$POD_UNSHARE" 2>/dev/null
	POD_EXIT_MS=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d", (b - a) * 1000 }')
}

# http PATH [NS [HOST]]: GET http://HOST:PORT/PATH from NS (default: the other
# host, to the pod IP); HTTP_STATUS, HTTP_BODY; HTTP_STATUS=none if refused.
http()
{
	local out

	out=$(ip netns exec "${2:-$NS_PING}" /usr/bin/python3 - \
		"${3:-$RESP4}" "$DP_PORT" "$1" <<'PY'
import http.client, sys
try:
    c = http.client.HTTPConnection(sys.argv[1], int(sys.argv[2]), timeout=5)
    c.request("GET", sys.argv[3])
    r = c.getresponse()
    print(r.status)
    sys.stdout.write(r.read().decode())
except ConnectionRefusedError:
    print("none")
PY
)
	HTTP_STATUS=${out%%$'\n'*}
	HTTP_BODY=${out#*$'\n'}
}

healthy()
{
	http /healthz
	[ "$HTTP_STATUS" = 200 ]
}

xdpt_log "3. the pod starts"
pod_start
sed 's/^/#   /' "$POD_OUT"
xdpt_assert_eq "[global]"$'\n'"metrics-listen = $RESP4:$DP_PORT" \
	"$(cat "/proc/$POD_PID/root/run/xdpong/node.conf")" "the node.conf the script wrote"
xdpt_wait 10 healthy || xdpt_fail "/healthz from the other host: $HTTP_STATUS $HTTP_BODY"
xdpt_assert_match '^eth0: ok, program id [0-9]+' "$HTTP_BODY" "/healthz"
http /metrics
xdpt_assert_eq 200 "$HTTP_STATUS" "/metrics from the other host"
xdpt_assert_match '^xdpong_up\{device="eth0"\} 1$' "$HTTP_BODY" "xdpong_up in /metrics"
http /healthz "$NS_RESP" 127.0.0.1
xdpt_assert_eq none "$HTTP_STATUS" "a connection to the node's localhost:$DP_PORT"
[ -e "$XDPT_TMP/bpffs/xdpong/eth0/stats" ] || xdpt_fail "no pins in the node's bpffs"
PROG=$(xdpt_link_prog_id "$NS_RESP" eth0)
xdpt_assert_ne 0 "$PROG" "program on eth0"
xdpt_ping_all "$NS_PING" -4 "$RESP4" 3
xdpt_ping_all "$NS_PING" -6 "$RESP6" 2

xdpt_log "4. a changed ConfigMap, applied with kill -HUP 1 from inside"
printf '%s\naddr = 192.0.2.0/24\n' "$DP_CONF" >"$CONFIG/xdpong.conf.new"
mv "$CONFIG/xdpong.conf.new" "$CONFIG/xdpong.conf"
ip -n "$NS_PING" route add 192.0.2.0/24 via "$RESP4"
xdpt_ping_none "$NS_PING" -4 192.0.2.9 1
pod_exec 'xdpong config check /etc/xdpong/xdpong.conf && kill -HUP 1'
[ "$XDPT_RC" = 0 ] || xdpt_fail "config check and kill -HUP 1 in the pod: $XDPT_ERR"
xdpt_wait 10 grep -q 'config applied' "$POD_OUT" || xdpt_fail "no reload: $(cat "$POD_OUT")"
xdpt_ping_all "$NS_PING" -4 192.0.2.9 2
xdpt_assert_eq "$PROG" "$(xdpt_link_prog_id "$NS_RESP" eth0)" "program after a prefix reload"

xdpt_log "5. kill -USR1 1 (the preStop): answered throughout, the next pod takes over"
xdpt_counter before "$NS_RESP" eth0 replied
xdf_streams_start 3000 "$RESP4" 192.0.2.9
xdf_streams_flowing "$NS_RESP" eth0
pod_exec 'kill -USR1 1'
pod_wait_exit 5
xdpt_assert_match 'exiting; the programs stay attached' "$(cat "$POD_OUT")" "xdpong on SIGUSR1"
xdpt_assert_eq "$PROG" "$(xdpt_link_prog_id "$NS_RESP" eth0)" "program with no pod running"
[ -e "$XDPT_TMP/bpffs/xdpong/eth0/stats" ] || xdpt_fail "SIGUSR1 removed the pins"
t0=$EPOCHREALTIME
pod_start
xdpt_log "the next pod running $(awk -v a="$t0" -v b="$EPOCHREALTIME" \
	'BEGIN { printf "%d", (b - a) * 1000 }') ms after the last one exited"
xdf_streams_check "through the pod's restart"
xdpt_wait 10 healthy || xdpt_fail "/healthz of the new pod: $HTTP_STATUS $HTTP_BODY"
xdpt_counter after "$NS_RESP" eth0 replied
xdpt_assert_ge $((before + XDF_STREAMS_SENT)) "$after" "replies counted across the restart"
xdpt_assert_ne 0 "$(xdpt_link_prog_id "$NS_RESP" eth0)" "program after the takeover"

xdpt_log "6. SIGTERM from outside (the kubelet's stop): detached, the kernel answers"
kill -TERM "$POD_PID"
pod_wait_exit "$GRACE"
xdpt_log "pod gone ${POD_EXIT_MS} ms after SIGTERM (terminationGracePeriodSeconds $GRACE)"
xdpt_assert_match 'Terminated: detaching' "$(cat "$POD_OUT")" "xdpong on SIGTERM"
xdpt_assert_eq 0 "$(xdpt_link_prog_id "$NS_RESP" eth0)" "program after SIGTERM"
[ -e "$XDPT_TMP/bpffs/xdpong/eth0" ] && xdpt_fail "SIGTERM left the pins"
xdpt_ping_none "$NS_PING" -4 "$RESP4" 2
xdpt_kernel_echo_ignore "$NS_RESP" 0
xdpt_ping_all "$NS_PING" -4 "$RESP4" 2
xdpt_pass
