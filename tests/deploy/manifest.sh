#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# deploy/kubernetes/xdpong-daemonset.yaml holds together: its parts agree
# with each other and with xdpong (tests/deploy/manifest_check.py: one
# port for metrics-listen, the scrape annotations and the probes; exactly
# the capabilities loader/core/privs.c checks for; the ConfigMap, bpffs and
# include directory mounted where xdpong looks), and the config a pod
# would run is valid: the ConfigMap's xdpong.conf with the node.conf the
# container's script writes, for an IPv4 and an IPv6 node, through
# `xdpong config check`.
#
# The schema itself: tests/deploy/manifest_schema.sh. A cluster: none here.
. "$(dirname "$0")/../lib/deploy.bash"

[ -x "$XDPONG" ] || xdpt_fail "$XDPONG is missing: run 'make' first"
dp_require_yaml
xdpt_tmpdir
version=$("$XDPT_REPO/tools/version.sh")

xdpt_log "1. the manifest's parts agree"
xdpt_ok "$PY" "$XDPT_REPO/tests/deploy/manifest_check.py" "$DP_MANIFEST" \
	"$XDPT_REPO/loader/core/privs.c" "$XDPT_REPO/systemd/xdpong.service" \
	"localhost/xdpong:$version"
printf '%s\n' "$XDPT_OUT" | sed 's/^/#   /'

xdpt_log "2. the config each pod runs: the ConfigMap's and the node's"
dp_manifest
run_script()
{
	local dir=$XDPT_TMP/$1 ip=$2

	mkdir -p "$dir/run"
	# The pod's paths, moved into the scratch directory; and config check
	# where the pod execs run.
	printf '%s' "$DP_CONF" | sed "s|^include = /run/xdpong/|include = $dir/run/|" \
		>"$dir/xdpong.conf"
	local script=${DP_SCRIPT//\/run\/xdpong\//$dir/run/}
	local from='exec /usr/sbin/xdpong run --config /etc/xdpong/xdpong.conf'
	script=${script/"$from"/exec "$XDPONG" config check "$dir/xdpong.conf"}
	[ "$script" != "$DP_SCRIPT" ] ||
		xdpt_fail "the container's script is not as expected: $DP_SCRIPT"
	xdpt_ok env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin POD_IP="$ip" METRICS_PORT="$DP_PORT" \
		XDPONG="$XDPONG" /bin/sh -c "$script"
	printf '%s\n' "$XDPT_OUT" | sed 's/^/#   /'
	xdpt_assert_match "valid, 1 interface" "$XDPT_OUT" "config check of the pod's config"
	xdpt_assert_match "^  eth0 " "$XDPT_OUT" "the ConfigMap's interface"
	NODE_CONF=$(cat "$dir/run/node.conf")
}
run_script v4 192.0.2.10
xdpt_assert_match "metrics and health on http://192\.0\.2\.10:$DP_PORT/" "$XDPT_OUT" \
	"an IPv4 node's metrics-listen"
xdpt_assert_eq $'[global]\nmetrics-listen = 192.0.2.10:'"$DP_PORT" "$NODE_CONF" "node.conf"
run_script v6 2001:db8::10
xdpt_assert_match "metrics and health on http://\[2001:db8::10\]:$DP_PORT/" "$XDPT_OUT" \
	"an IPv6 node's metrics-listen"

xdpt_log "2b. the ConfigMap's pingmesh example, uncommented, is a valid config"
# The commented STAMP and [probe mesh] lines turned on, the rest as shipped.
printf '%s' "$DP_CONF" | sed -E '/^include = /d;
	s/^# (stamp = yes|\[probe mesh\]|targets = |interval = )/\1/' >"$XDPT_TMP/mesh.conf"
xdpt_ok "$XDPONG" config check "$XDPT_TMP/mesh.conf"
xdpt_assert_match "mesh" "$XDPT_OUT" "config check lists the [probe mesh] section"
grep -q '^\[probe mesh\]' "$XDPT_TMP/mesh.conf" ||
	xdpt_fail "no [probe mesh] example in the ConfigMap: $(cat "$XDPT_TMP/mesh.conf")"

xdpt_log "3. the script fails, and xdpong does not start, when it cannot write node.conf"
script=${DP_SCRIPT//\/run\/xdpong\//$XDPT_TMP/missing/}
script=${script/exec \/usr\/sbin\/xdpong run*/exec echo started}
xdpt_run env -i POD_IP=192.0.2.10 METRICS_PORT="$DP_PORT" /bin/sh -c "$script"
xdpt_assert_ne 0 "$XDPT_RC" "the script's exit code with no writable directory"
xdpt_assert_no_match started "$XDPT_OUT" "xdpong started anyway"
xdpt_pass
