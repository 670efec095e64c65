# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers of the deploy tests (tests/deploy/*.sh): the Kubernetes manifest
# read with PyYAML, and the image's rootfs built by deploy/build-image.sh.
# In tests/lib/, with every shared shell helper: the runner runs no test there.
# The fault tests' helpers (and tests/lib/lib.sh): ping streams, veth pairs.
. "$(dirname "${BASH_SOURCE[0]}")/faults.bash"

DP_MANIFEST=$XDPT_REPO/deploy/kubernetes/xdpong-daemonset.yaml
DP_BUILD=$XDPT_REPO/deploy/build-image.sh
DP_ROOTFS=$XDPT_REPO/build/deploy/rootfs
# The test's own limit (tests/run.sh's TEST_TIMEOUT), less a margin for
# what follows the build.
DP_LIMIT=${TEST_TIMEOUT:-180}

# dp_require_yaml: PY=Debian's python3 with PyYAML, installed if missing.
dp_require_yaml()
{
	PY=/usr/bin/python3
	[ -x "$PY" ] || xdpt_skip "needs Debian's python3 (/usr/bin/python3)"
	"$PY" -c 'import yaml' 2>/dev/null ||
		timeout 120 apt-get install -y -qq python3-yaml >/dev/null 2>&1
	"$PY" -c 'import yaml' 2>/dev/null ||
		xdpt_skip "needs python3-yaml (apt-get install python3-yaml)"
}

#
# dp_manifest: the DaemonSet's settings as shell variables (DP_*), read by
# PyYAML; the test fails if the manifest has not the shape they come from.
#   DP_CONF        the ConfigMap's xdpong.conf
#   DP_SCRIPT      the container's `sh -c` script
#   DP_PORT        env METRICS_PORT
#   DP_IMAGE       the container's image
#
dp_manifest()
{
	local out

	out=$("$PY" - "$DP_MANIFEST" <<'PY'
import shlex, sys, yaml

docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
by_kind = {d["kind"]: d for d in docs}
ds = by_kind["DaemonSet"]
cm = by_kind["ConfigMap"]
c = ds["spec"]["template"]["spec"]["containers"][0]
assert c["command"] == ["/bin/sh", "-c"], c["command"]
assert len(c["args"]) == 1, c["args"]
env = {e["name"]: e.get("value") for e in c["env"]}
for name, value in (("DP_CONF", cm["data"]["xdpong.conf"]), ("DP_SCRIPT", c["args"][0]),
                    ("DP_PORT", env["METRICS_PORT"]), ("DP_IMAGE", c["image"])):
    print("%s=%s" % (name, shlex.quote(value)))
PY
) || xdpt_fail "cannot read $DP_MANIFEST: $out"
	eval "$out"
}

#
# dp_build [--image TAG | --cached-only]: run deploy/build-image.sh (the
# rootfs only, unless --image), within what is left of the test's time.
# Skips when the tools or the Debian packages cannot be had, or when
# installing the tools and fetching the Debian base (the first build on a
# machine: two to three minutes) does not fit in the test's time; the
# next run finds the base cached under build/deploy/. --cached-only skips
# at once when the base is not cached.
#
dp_build()
{
	local args=(--rootfs-only) left rc

	xdpt_tmpdir
	case ${1:-} in
	--image) args=(--tag "$2") ;;
	--cached-only) args+=(--cached-only) ;;
	esac
	left=$((DP_LIMIT - SECONDS - 30))
	[ "$left" -gt 20 ] || xdpt_skip "no time left to build the image (TEST_TIMEOUT=$DP_LIMIT)"
	xdpt_log "deploy/build-image.sh ${args[*]} (at most ${left}s)"
	timeout -k 5 "$left" "$DP_BUILD" "${args[@]}" >"$XDPT_TMP/build.out" 2>&1
	rc=$?
	sed 's/^/#   /' "$XDPT_TMP/build.out"
	case $rc in
	0) ;;
	3) xdpt_skip "the image cannot be built here:" \
		"$(grep 'build-image.sh:' "$XDPT_TMP/build.out" | tail -n 1)" ;;
	124 | 137)
		# Still installing the tools or fetching the base: the network's
		# time, not a fault. With the base cached, a time-out is one.
		if ! grep -q 'DEBIAN *cached' "$XDPT_TMP/build.out"; then
			xdpt_skip "installing the tools and fetching the Debian base took more" \
				"than ${left}s (the first build on this machine;" \
				"run deploy/build-image.sh once to cache it)"
		fi
		xdpt_fail "deploy/build-image.sh timed out after ${left}s" \
			"with the Debian base cached"
		;;
	*) xdpt_fail "deploy/build-image.sh ${args[*]} exited $rc" ;;
	esac
}
