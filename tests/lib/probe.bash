# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers the prober's tests (tests/probe/) share on top of tests/lib/lib.sh
# (sourced from here): a user-space STAMP reflector written from the RFCs
# (tests/lib/stamp_reflector.py, sharing nothing with xdpong), and xdpong
# probe run as an ordinary user. Source it first thing:
#
#	. "$(dirname "$0")/../lib/probe.bash"
#
# In tests/lib/, with every shared shell helper: the runner runs no test there.

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

REFLECTOR=$XDPT_REPO/tests/lib/stamp_reflector.py
PY=/usr/bin/python3
# The unprivileged user: uid 65534, no groups, no capabilities.
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all
	--bounding-set=-all)

# xpr_reflector NS FAMILY LOG [reflector options]: a reflector in NS on
# FAMILY (4 or 6), logging what it reads to LOG; waits until it listens.
# Its pid (timeout's, which passes a signal on) in XPR_PID.
xpr_reflector()
{
	local ns=$1 fam=$2 log=$3 out

	shift 3
	xdpt_tmpdir
	out=$XDPT_TMP/reflector.$fam.$RANDOM
	: >"$log"
	nsenter "--net=/run/netns/$ns" timeout -k 5 600 "$PY" "$REFLECTOR" --family "$fam" \
		--log "$log" "$@" >"$out" 2>&1 &
	XPR_PID=$!
	xdpt_wait 20 grep -q '^ready' "$out" ||
		xdpt_fail "the STAMP reflector did not start: $(cat "$out")"
}

# xpr_probe [--ns NS] ARGS...: xdpong probe ARGS as uid 65534 (in NS).
xpr_probe()
{
	if [ "$1" = --ns ]; then
		local ns=$2

		shift 2
		xdpt_run --ns "$ns" "${NOBODY[@]}" "$XDPONG" probe "$@"
	else
		xdpt_run "${NOBODY[@]}" "$XDPONG" probe "$@"
	fi
}

# xpr_json FIELD: .targets[0].FIELD (a jq path) of the last run's output.
xpr_json()
{
	jq -r ".targets[0].$1" <<<"$XDPT_OUT"
}
