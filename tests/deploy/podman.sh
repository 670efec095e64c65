#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# xdpt-timeout: 300
#
# The DaemonSet's pod in a real container runtime: `podman kube play` on
# runc of the manifest's pod template and ConfigMap, as a Pod
# (tests/deploy/podman_pod.py: what podman 4.3 cannot follow, changed in
# one function), in the node's network namespace, with the image
# deploy/build-image.sh builds and podman's default seccomp profile.
#
#   ns ping (another host, Prometheus)      ns node (hostNetwork)
#  +-------------------------------+  veth  +-----------------------------+
#  | xp<id> 10.99.0.1/24           |--------| eth0 10.99.0.2/24           |
#  |        fd00:99::1/64          |        |      fd00:99::2/64          |
#  | GET http://10.99.0.2:PORT/... |        | kernel echo off             |
#  +-------------------------------+        | the pod: podman kube play   |
#                                           | under nsenter --net (not ip |
#                                           | netns exec: runc needs the  |
#                                           | host's cgroup mounts)       |
#                                           +-----------------------------+
#
# Checked: podman's default seccomp profile and bpf(2) (when it refuses
# CAP_BPF, the profile deploy/kubernetes/seccomp-profile.py makes of it);
# xdpong is PID 1 with exactly the manifest's capabilities; pings answered
# by XDP, IPv4 and IPv6; /healthz and /metrics on the pod IP from the other
# host, not on localhost; the liveness probe as podman's health check:
# healthy, unhealthy once the program is detached behind the pod's back,
# restarted at failureThreshold, healthy again; a changed ConfigMap applied
# with `kill -HUP 1`; kill -9 of PID 1 and `kube play --replace` after the
# preStop's SIGUSR1 (a rolling update) under ping streams: none lost,
# counters kept, the BTF the new pod reads them by in the node's
# /run/xdpong/btf; `podman pod stop`: detached within the grace period, the
# kernel answers; the manifest's CAP_SYS_ADMIN alternative (the dispatcher).
#
# podman's state lives in the test's scratch directory (CONTAINERS_CONF,
# CONTAINERS_STORAGE_CONF): nothing is left in the host's podman. The image
# is built from the Debian base that tests/deploy/image.sh, run before it,
# caches (dp_build: the test skips if fetching it does not fit in its time).
. "$(dirname "$0")/../lib/deploy.bash"

xdpt_require_all
xdpt_require_cmd podman runc nsenter flock busybox
dp_require_yaml
dp_manifest
xdpt_tmpdir
CTR=xdpong-xdpong
POD_YAML=$XDPT_TMP/pod.yaml
# The node's: where the manifest's hostPath keeps the BTF of the maps.
BTF_DIR=/run/xdpong/btf

# One at a time per machine: the pod pins its maps in the host's bpffs
# as /sys/fs/bpf/xdpong/eth0, whichever namespace its eth0 is in.
exec 8>/run/lock/xdpong-test-podman.lock
flock -w 120 8 || xdpt_skip "another tests/deploy/podman.sh holds the lock"
[ -e "$XDPT_PIN_ROOT/eth0" ] && xdpt_skip "$XDPT_PIN_ROOT/eth0 exists: an xdpong on some eth0"

# podman's configuration and storage, in the scratch directory.
PM=$XDPT_TMP/podman
mkdir -p "$PM/probe" "$PM/seccomp"
# The rlimits this sandbox allows (crun cannot set others); runc.
cat >"$PM/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1000:1000"]
[engine]
runtime = "runc"
tmp_dir = "$PM/tmp"
volume_path = "$PM/volumes"
events_logger = "file"
events_logfile_path = "$PM/events.log"
[network]
network_config_dir = "$PM/net"
EOF
printf '[storage]\ndriver = "overlay"\ngraphroot = "%s"\nrunroot = "%s"\n' \
	"$PM/root" "$PM/runroot" >"$PM/storage.conf"
export CONTAINERS_CONF=$PM/containers.conf CONTAINERS_STORAGE_CONF=$PM/storage.conf
# The probes' curl (podman_pod.py, change 4): busybox's wget.
cp "$(command -v busybox)" "$PM/probe/busybox"
cat >"$PM/probe/curl" <<'EOF'
#!/usr/local/bin/busybox sh
# curl -f URL
exec /usr/local/bin/busybox wget -q -O /dev/null "$2"
EOF
chmod 0755 "$PM/probe/curl"

# pm ARGS: podman in the node's namespace (runc exec joins none with
# hostNetwork: `podman exec` there, too).
# PMC: the same, for xdpt_run.
pm()
{
	nsenter --net="/run/netns/$NS_RESP" podman "$@"
}

# cleanup_podman RC: pods, volumes, images, mounts; the container's log
# if RC is a failure.
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup_podman()
{
	local m

	if [ -n "${NS_RESP:-}" ] && [ -e "/run/netns/$NS_RESP" ]; then
		[ "$1" = 0 ] || { echo "--- the container's log"; pod_log | tail -n 20; } >&2
		pm pod rm -a -f -t 0 >/dev/null 2>&1
		pm volume rm -a -f >/dev/null 2>&1
		pm rmi -a -f >/dev/null 2>&1
		rm -f "$BTF_DIR/$(stat -L -c %i "/run/netns/$NS_RESP")"-* 2>/dev/null
	fi
	# What podman left mounted under its root.
	awk -v p="$PM/" 'index($2, p) == 1 { print $2 }' /proc/mounts | sort -r |
		while read -r m; do
			umount -l "$m" 2>/dev/null
		done
	return 0
}
# The test's exit code goes on to xdpt_cleanup, which exits with it.
trap 'rc=$?; cleanup_podman "$rc"; (exit "$rc"); xdpt_cleanup' EXIT

xdpt_log "1. the image, into the test's own podman storage"
dp_build --image "$DP_IMAGE"
podman image exists "$DP_IMAGE" || xdpt_fail "no $DP_IMAGE in $PM/root after the build"

xdpt_log "2. the node: eth0 in a namespace, kernel echo off"
xdpt_ns_new NS_PING ping
xdpt_ns_new NS_RESP node
IF_PING=xp$XDPT_ID
xdf_veth "$NS_PING" "$IF_PING" "$PING4" "$NS_RESP" eth0 "$RESP4"
ip -n "$NS_PING" addr add "$PING6/64" dev "$IF_PING" nodad
ip -n "$NS_RESP" addr add "$RESP6/64" dev eth0 nodad
xdpt_wait 5 ip netns exec "$NS_PING" ping -c 1 -W 1 "$RESP4" || xdpt_fail "no connectivity"
xdpt_kernel_echo_ignore "$NS_RESP" 1
xdpt_peer_xdp_pass
xdpt_track_pins eth0
PMC=(nsenter --net="/run/netns/$NS_RESP" podman)
BTF_PREFIX=$(stat -L -c %i "/run/netns/$NS_RESP")-$(ip -n "$NS_RESP" -j link show eth0 |
	jq -r '.[0].ifindex')-

# pod_yaml VARIANT [PROFILE]: POD_YAML, and GRACE, CAPS, CAP_EFF.
pod_yaml()
{
	local out

	out=$("$PY" "$XDPT_REPO/tests/deploy/podman_pod.py" "$DP_MANIFEST" "$RESP4" \
		"$PM/probe" "$1" "${2:-}" "$POD_YAML") || xdpt_fail "podman_pod.py: $out"
	eval "$out"
}

# pod_play [--replace]: kube play; PID is the container's PID 1 as seen here.
pod_play()
{
	xdpt_run "${PMC[@]}" kube play "$@" --seccomp-profile-root "$PM/seccomp" "$POD_YAML"
	[ "$XDPT_RC" = 0 ] || xdpt_fail "podman kube play $*: $XDPT_ERR"
	xdpt_wait 10 pod_logged 'running \(pid' || xdpt_fail "xdpong did not start: $(pod_log)"
	pod_pid
}

pod_log()
{
	pm logs "$CTR" 2>&1 | grep -v 'level=error msg="unable to get systemd'
}

# pod_logged REGEX: the container's log (this run's and the ones before) has it.
pod_logged()
{
	pod_log | grep -Eq "$1"
}

pod_pid()
{
	PID=$(pm inspect -f '{{.State.Pid}}' "$CTR" 2>/dev/null)
}

# The container's PID 1 is another process than PID (a restart).
pod_restarted()
{
	local was=$PID

	pod_pid
	[ -n "$PID" ] && [ "$PID" != 0 ] && [ "$PID" != "$was" ] && return 0
	PID=$was
	return 1
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

# The health check podman made of the liveness probe.
health_run()
{
	xdpt_run "${PMC[@]}" healthcheck run "$CTR"
}

health_status()
{
	pm inspect -f '{{.State.Health.Status}}' "$CTR"
}

health_ok()
{
	health_run
	[ "$XDPT_RC" = 0 ]
}

status_field()
{
	awk -v k="$1:" '$1 == k { print $2 }' "/proc/$PID/status"
}

xdpt_log "3. podman's default seccomp profile and CAP_BPF"
PROFILE=
pod_yaml manifest
pod_play
if pod_logged '0 of 1 interfaces attached'; then
	xdpt_assert_match 'Operation not permitted' "$(pod_log)" "why xdpong could not load"
	xdpt_assert_match 'runs under a seccomp filter' "$(pod_log)" \
		"xdpong names the seccomp filter, not a missing kernel feature"
	allowed=$(jq '[.syscalls[]
		| select((.names | index("bpf")) and .action == "SCMP_ACT_ALLOW")
		| .includes.caps // [] | index("CAP_BPF")] | any' \
		/usr/share/containers/seccomp.json)
	xdpt_assert_eq false "$allowed" "the default profile allows bpf(2) to CAP_BPF"
	xdpt_log "refused: podman's default allows bpf(2) to CAP_SYS_ADMIN only; the fix:"
	xdpt_log "deploy/kubernetes/seccomp-profile.py's profile, a Localhost one"
	xdpt_ok "${PMC[@]}" kube play --down "$POD_YAML"
	"$XDPT_REPO/deploy/kubernetes/seccomp-profile.py" >"$PM/seccomp/xdpong.json" ||
		xdpt_fail "seccomp-profile.py failed"
	PROFILE=xdpong.json
	pod_yaml manifest "$PROFILE"
	pod_play
fi
xdpt_assert_match 'attached to eth0 .*program id' "$(pod_log)" "xdpong attached eth0"
sed 's/^/#   /' < <(pod_log)

xdpt_log "4. PID 1, its capabilities, the node's config, pings, /healthz and /metrics"
xdpt_assert_match 'running \(pid 1\)' "$(pod_log)" "xdpong is the container's PID 1"
xdpt_assert_eq xdpong "$(cat "/proc/$PID/comm")" "the container's PID 1"
for f in CapEff CapPrm CapBnd; do
	xdpt_assert_eq "$CAP_EFF" "$(status_field "$f")" "$f of PID 1 (the manifest's $CAPS)"
done
xdpt_assert_eq 2 "$(status_field Seccomp)" "PID 1 under a seccomp filter"
xdpt_assert_eq 1 "$(status_field NoNewPrivs)" "NoNewPrivs (allowPrivilegeEscalation: false)"
xdpt_assert_eq "[global]"$'\n'"metrics-listen = $RESP4:$DP_PORT" \
	"$(cat "/proc/$PID/root/run/xdpong/node.conf")" "the node.conf the script wrote"
xdpt_wait 10 healthy || xdpt_fail "/healthz from the other host: $HTTP_STATUS $HTTP_BODY"
xdpt_assert_match '^eth0: ok, program id [0-9]+' "$HTTP_BODY" "/healthz"
http /metrics
xdpt_assert_eq 200 "$HTTP_STATUS" "/metrics from the other host"
xdpt_assert_match '^xdpong_up\{device="eth0"\} 1$' "$HTTP_BODY" "xdpong_up in /metrics"
http /healthz "$NS_RESP" 127.0.0.1
xdpt_assert_eq none "$HTTP_STATUS" "a connection to the node's localhost:$DP_PORT"
[ -e "$XDPT_PIN_ROOT/eth0/stats" ] || xdpt_fail "no pins in the node's bpffs"
compgen -G "$BTF_DIR/$BTF_PREFIX*" >/dev/null ||
	xdpt_fail "no BTF $BTF_DIR/$BTF_PREFIX* in the node's /run/xdpong"
PROG=$(xdpt_link_prog_id "$NS_RESP" eth0)
xdpt_assert_ne 0 "$PROG" "program on eth0"
xdpt_ping_all "$NS_PING" -4 "$RESP4" 3
xdpt_ping_all "$NS_PING" -6 "$RESP6" 2

xdpt_log "5. the liveness probe as podman's health check"
health_ok || xdpt_fail "the health check while attached: $XDPT_OUT $XDPT_ERR"
xdpt_assert_eq healthy "$(health_status)" "the health check's status while attached"
# Behind the pod's back: the kernel detaches it (native or generic).
ip -n "$NS_RESP" link set dev eth0 xdpdrv off 2>/dev/null
ip -n "$NS_RESP" link set dev eth0 xdpgeneric off 2>/dev/null
xdpt_assert_eq 0 "$(xdpt_link_prog_id "$NS_RESP" eth0)" "program after ip link set xdp off"
retries=$(pm inspect -f '{{.Config.Healthcheck.Retries}}' "$CTR")
xdpt_assert_eq 6 "$retries" "the health check's retries (the liveness failureThreshold)"
for i in $(seq "$retries"); do
	health_run
	xdpt_assert_eq 1 "$XDPT_RC" "health check $i of $retries after the detach"
	xdpt_assert_match '^unhealthy' "$XDPT_OUT" "health check $i after the detach"
	[ "$i" -lt "$retries" ] && pod_restarted && xdpt_fail "restarted after $i failures"
done
xdpt_wait 10 pod_restarted || xdpt_fail "not restarted after $retries failed health checks"
xdpt_wait 15 health_ok || xdpt_fail "the health check after the restart: $XDPT_OUT"
xdpt_assert_eq healthy "$(health_status)" "the health check's status after the restart"
xdpt_assert_match 'Terminated: detaching' "$(pod_log)" "the restart's stop"
xdpt_assert_ne 0 "$(xdpt_link_prog_id "$NS_RESP" eth0)" "program after the restart"
xdpt_ping_all "$NS_PING" -4 "$RESP4" 2

xdpt_log "6. a changed ConfigMap, applied with kill -HUP 1"
CONFIG=$(pm volume inspect -f '{{.Mountpoint}}' xdpong-config) ||
	xdpt_fail "no volume xdpong-config"
printf '%s\naddr = 192.0.2.0/24\n' "$DP_CONF" >"$CONFIG/xdpong.conf.new"
mv "$CONFIG/xdpong.conf.new" "$CONFIG/xdpong.conf"
# The ConfigMap as edited: the next pods get it too.
export CONFIGMAP_CONF=$PM/configmap.conf
cp "$CONFIG/xdpong.conf" "$CONFIGMAP_CONF"
ip -n "$NS_PING" route add 192.0.2.0/24 via "$RESP4"
xdpt_ping_none "$NS_PING" -4 192.0.2.9 1
PROG=$(xdpt_link_prog_id "$NS_RESP" eth0)
xdpt_ok "${PMC[@]}" exec "$CTR" sh -c 'xdpong config check /etc/xdpong/xdpong.conf && kill -HUP 1'
xdpt_wait 10 pod_logged 'config applied' || xdpt_fail "no reload: $(pod_log)"
xdpt_ping_all "$NS_PING" -4 192.0.2.9 2
xdpt_assert_eq "$PROG" "$(xdpt_link_prog_id "$NS_RESP" eth0)" "program after a prefix reload"

# takeover WHAT: after the stop started by the caller, under the ping
# streams: none lost, the counters kept (from "before"), healthy.
# shellcheck disable=SC2154 # before and after: set by xdpt_counter
takeover()
{
	xdf_streams_check "$1"
	xdpt_wait 10 healthy || xdpt_fail "/healthz after $1: $HTTP_STATUS $HTTP_BODY"
	xdpt_counter after "$NS_RESP" eth0 replied
	xdpt_assert_ge $((before + XDF_STREAMS_SENT)) "$after" "replies counted across $1"
	xdpt_assert_match 'took over from program id' "$(pod_log)" "the new run after $1"
}

xdpt_log "7. kill -9 of PID 1 under ping streams: restarted, taken over, none lost"
xdpt_counter before "$NS_RESP" eth0 replied
xdf_streams_start 3000 "$RESP4" 192.0.2.9
xdf_streams_flowing "$NS_RESP" eth0
kill -KILL "$PID"
xdpt_wait 15 pod_restarted || xdpt_fail "not restarted after kill -9"
takeover "kill -9 of PID 1"

xdpt_log "8. a rolling update: the preStop's kill -USR1 1, then kube play --replace"
# To a pod that stays stopped after the preStop (podman_pod.py, change 5).
# podman before 5.1 ends the old pod of `kube play --replace` with SIGKILL,
# not its stop signal: the new pod takes over what it left attached.
pod_yaml rolling "$PROFILE"
pod_play --replace
xdpt_wait 10 healthy || xdpt_fail "/healthz of the pod: $HTTP_STATUS $HTTP_BODY"
# A mark in this pod's /run/xdpong, which the next must not find.
touch "/proc/$PID/root/run/xdpong/old-pod" || xdpt_fail "cannot write the pod's /run/xdpong"
xdpt_counter before "$NS_RESP" eth0 replied
xdf_streams_start 3000 "$RESP4" 192.0.2.9
xdf_streams_flowing "$NS_RESP" eth0
# podman runs no preStop hook: as the kubelet does, before the stop.
xdpt_ok "${PMC[@]}" exec "$CTR" sh -c 'kill -USR1 1'
xdpt_wait 10 pod_logged 'exiting; the programs stay attached' ||
	xdpt_fail "xdpong on SIGUSR1: $(pod_log)"
pod_play --replace
takeover "kube play --replace"
# The new pod's own /run/xdpong: its maps' BTF was the node's to keep.
[ -e "/proc/$PID/root/run/xdpong/node.conf" ] || xdpt_fail "the new pod has no node.conf"
[ -e "/proc/$PID/root/run/xdpong/old-pod" ] && xdpt_fail "the new pod has the old /run/xdpong"
compgen -G "$BTF_DIR/$BTF_PREFIX*" >/dev/null || xdpt_fail "the BTF left the node's /run/xdpong"

xdpt_log "9. podman pod stop: detached within the grace period, the kernel answers"
t0=$EPOCHREALTIME
xdpt_ok "${PMC[@]}" pod stop -t "$GRACE" xdpong
ms=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d", (b - a) * 1000 }')
xdpt_log "stopped in $ms ms (terminationGracePeriodSeconds $GRACE)"
[ "$ms" -lt $((GRACE * 1000)) ] || xdpt_fail "the stop took $ms ms"
xdpt_assert_match 'Terminated: detaching' "$(pod_log | tail -n 3)" "xdpong on the stop"
xdpt_assert_eq 0 "$(xdpt_link_prog_id "$NS_RESP" eth0)" "program after the stop"
[ -e "$XDPT_PIN_ROOT/eth0" ] && xdpt_fail "the stop left the pins"
compgen -G "$BTF_DIR/$BTF_PREFIX*" >/dev/null && xdpt_fail "the stop left the BTF"
xdpt_ping_none "$NS_PING" -4 "$RESP4" 2
xdpt_kernel_echo_ignore "$NS_RESP" 0
xdpt_ping_all "$NS_PING" -4 "$RESP4" 2
xdpt_kernel_echo_ignore "$NS_RESP" 1

xdpt_log "10. the manifest's CAP_SYS_ADMIN alternative (libxdp's dispatcher)"
pod_yaml sys-admin
pod_play --replace
sed 's/^/#   /' < <(pod_log | tail -n 4)
xdpt_assert_eq "$CAP_EFF" "$(status_field CapEff)" "CapEff of PID 1 (the alternative's $CAPS)"
xdpt_assert_match 'attached to eth0 .*program id' "$(pod_log | tail -n 4)" "xdpong attached eth0"
# Where the kernel refuses libxdp's extension programs, xdpong attaches
# alone and says why; elsewhere it is in the dispatcher.
xdpt_ok "${PMC[@]}" exec "$CTR" xdpong status eth0
if pod_logged "refuses the extension programs of libxdp's dispatcher"; then
	xdpt_assert_match 'attaching alone' "$(pod_log | tail -n 4)" "xdpong without the dispatcher"
else
	xdpt_assert_match 'dispatcher' "$XDPT_OUT" "xdpong status in the dispatcher"
fi
xdpt_ping_all "$NS_PING" -4 "$RESP4" 2
xdpt_wait 10 healthy || xdpt_fail "/healthz: $HTTP_STATUS $HTTP_BODY"
xdpt_ok "${PMC[@]}" pod stop -t "$GRACE" xdpong
xdpt_assert_eq 0 "$(xdpt_link_prog_id "$NS_RESP" eth0)" "program after the stop"
xdpt_pass
