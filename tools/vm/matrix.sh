#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run a test selection on each of Debian's stock kernels (tools/vm/run.sh,
# one guest per kernel, with the virtio-net NIC pair), one line per kernel:
#
#	PASS  6.1   linux-image-6.1.0-56-amd64-unsigned 6.1.192-2   12 passed, 0 failed   95.3s
#
# then the total time and exactly "N passed, N failed" over the kernels.
# Each kernel's logs (console.log, dmesg.txt, test-logs/) are kept in
# build/vm-logs/<kernel>/. Exit 0 only if every kernel passed.
#
# Usage: tools/vm/matrix.sh [-v] [--kernels "5.10 6.1 6.12"] [--repo DIR]
#                           [--timeout S] [--also PATTERNS] [-- COMMAND...]
#   -v           show each guest's output as it runs (default: only a
#                failing kernel's last lines)
#   --kernels    which kernels (default: $VM_KERNELS, else 5.10 6.1 6.12)
#   --repo DIR   the repository to test (default: this script's)
#   --timeout S  per kernel (default 1800)
#   --also P     more test patterns after the core suite's (space-separated)
#   COMMAND      default: tests/run.sh and the core suite, DEFAULT_TESTS below
#                ($VM_TESTS, when set, replaces the patterns)
# TEST_TIMEOUT, FUZZ_TIMEOUT and FUZZ_FRAMES, when set, are passed to the
# guest.

set -u

PROG=tools/vm/matrix.sh
HERE=$(cd "$(dirname "$0")" && pwd) || exit 1
REPO=$(cd "$HERE/../.." && pwd)
KERNELS=${VM_KERNELS:-5.10 6.1 6.12}
TIMEOUT=1800
VERBOSE=0
ALSO=
# The core suite (tests/README.md): the unit tests (the kernel-parity
# proof), IPv4 and IPv6 answered in skb and native mode on veth and
# virtio_net, jumbo frames, STAMP reflection and its clock, status,
# detach, takeover, run following address changes, sharing the interface
# in libxdp's dispatcher.
DEFAULT_TESTS="unit/ netns/ping_skb netns/ping_native netns/ping_virtio netns/ping_jumbo"
DEFAULT_TESTS+=" netns/stamp netns/status netns/detach netns/tx_failed netns/dispatcher"
DEFAULT_TESTS+=" cli/already_attached faults/addr_change"

# tests/vm/ runs this from make test: XDPT_VM=0 turns the matrix off
# there, for a quick run on the machine's own kernel only (CI keeps it).
if [ "${XDPT_VM:-1}" = 0 ]; then
	echo "SKIP: the kernel matrix is off (XDPT_VM=0)"
	exit 77
fi

die()
{
	echo "$PROG: $*" >&2
	exit 1
}

usage()
{
	sed -n '4,/^$/{ s/^# \{0,1\}//; p }' "$0" | sed '$d'
}

elapsed()
{
	awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'
}

# run_kernel K: one guest; prints its summary line; returns 0 if it passed.
run_kernel()
{
	local k=$1 logs out rc t0 secs summary pkg status

	logs=$REPO/build/vm-logs/$k
	rm -rf -- "$logs"
	mkdir -p "$logs" || die "cannot create $logs"
	out=$logs/output.txt
	t0=$EPOCHREALTIME
	if [ "$VERBOSE" = 1 ]; then
		"$HERE/run.sh" --kernel "$k" --repo "$REPO" --nics --timeout "$TIMEOUT" \
			--logs "$logs" "${ENVS[@]}" -- "${CMD[@]}" 2>&1 | tee "$out"
		rc=${PIPESTATUS[0]}
	else
		"$HERE/run.sh" --kernel "$k" --repo "$REPO" --nics --timeout "$TIMEOUT" \
			--logs "$logs" "${ENVS[@]}" -- "${CMD[@]}" >"$out" 2>&1
		rc=$?
	fi
	secs=$(elapsed "$t0")
	pkg=$(sed -n 's/^vm: kernel \([^ ]* [^ ]*\).*/\1/p' "$out" | head -n 1)
	# tests/run.sh ends with "N passed, N failed[, N skipped]".
	summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
	case $rc in
	0) status=PASS ;;
	124) status=FAIL summary="timed out after ${TIMEOUT}s${summary:+; $summary}" ;;
	125) status=FAIL summary="no result: boot or harness failed${summary:+; $summary}" ;;
	*) status=FAIL summary="${summary:-exit $rc}" ;;
	esac
	printf '%s  %-5s %-52s %-28s %7ss\n' "$status" "$k" "${pkg:-?}" "$summary" "$secs"
	# run.sh's word when the first boot faulted before the suite began.
	grep '^vm: boot retried' "$out" | sed 's/^/      /'
	if [ "$status" = FAIL ] && [ "$VERBOSE" = 0 ]; then
		grep -E '^(FAIL|tools/vm/)' "$out" | head -n 20 | sed 's/^/      | /'
		echo "      full output: $out (and $logs/test-logs/)"
	fi
	[ "$status" = PASS ]
}

main()
{
	local k v t0 passed=0 failed=0

	while [ $# -gt 0 ]; do
		case $1 in
		-v) VERBOSE=1 ;;
		--kernels) KERNELS=${2:?--kernels needs a list}; shift ;;
		--repo) REPO=$(cd "${2:?--repo needs a directory}" && pwd) || exit 1; shift ;;
		--timeout) TIMEOUT=${2:?--timeout needs seconds}; shift ;;
		--also) ALSO=${2:?--also needs test patterns}; shift ;;
		-h | --help) usage; exit 0 ;;
		--) shift; break ;;
		*) usage >&2; exit 2 ;;
		esac
		shift
	done
	CMD=("$@")
	if [ "${#CMD[@]}" -eq 0 ]; then
		# shellcheck disable=SC2206 # a list of patterns, split on spaces
		CMD=(tests/run.sh ${VM_TESTS:-$DEFAULT_TESTS} ${ALSO:-})
	fi
	# tests/run.sh's settings go into the guest.
	ENVS=()
	for v in TEST_TIMEOUT FUZZ_TIMEOUT FUZZ_FRAMES; do
		[ -n "${!v:-}" ] && ENVS+=(--env "$v=${!v}")
	done
	# netns/stamp's cases that check the program's bytes alone, not the
	# kernel (tshark's read, the TLV and padding variants), each take
	# seconds under TCG: the host's run does them.
	ENVS+=(--env "XDPT_STAMP_FULL=${XDPT_STAMP_FULL:-0}")
	[ -x "$REPO/build/xdpong" ] ||
		echo "$PROG: warning: no $REPO/build/xdpong (make all tests first)" >&2

	# Download what is missing first, so the per-kernel times are boots
	# and tests only.
	for k in $KERNELS; do
		"$HERE/kernels.sh" fetch "$k" || die "cannot fetch kernel $k"
	done

	echo "vm matrix: ${CMD[*]} on kernels $KERNELS"
	t0=$EPOCHREALTIME
	for k in $KERNELS; do
		if run_kernel "$k"; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
		fi
	done
	echo "total $(elapsed "$t0")s; logs in $REPO/build/vm-logs/"
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}

main "$@"
