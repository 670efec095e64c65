#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run every xdpong test, each under a timeout, one line per test:
#
#	PASS  netns/ping_skb                      4.9s
#
# then exactly "N passed, N failed" (", N skipped" when some were).
# Order: the unit tests (build/tests/test_xdpong), a short fuzz run
# (build/tests/fuzz_xdpong --frames 100000 --seed 1: a fixed seed, so the
# same frames on every machine), then the shell tests:
# tests/netns/*.sh, tests/cli/*.sh, then any other tests/<dir>/*.sh.
# Exit 0 only if nothing failed.
#
# Usage: tests/run.sh [-v] [PATTERN...]
#   -v        print every test's output, not only a failing test's
#   PATTERN   run only tests whose name contains PATTERN (e.g. netns/, help)
# Environment: TEST_TIMEOUT (seconds per test, default 180; a test file may
# ask for more with a line "# xdpt-timeout: SECONDS"), FUZZ_TIMEOUT
# (default 600), FUZZ_FRAMES (default 100000), FUZZ_SEED (default 1).
# `make fuzz` is the open-ended run, with a seed from the clock.
#
# Each test's output is kept in build/test-logs/<dir>/<name>.log. A test
# that leaves a namespace or a pin under /sys/fs/bpf/xdpong with its id
# (tests/lib/lib.sh) fails, and what it left is removed so the next test
# starts clean.

set -u
cd "$(dirname "$0")/.." || exit 1

TEST_TIMEOUT=${TEST_TIMEOUT:-180}
FUZZ_TIMEOUT=${FUZZ_TIMEOUT:-600}
FUZZ_FRAMES=${FUZZ_FRAMES:-100000}
FUZZ_SEED=${FUZZ_SEED:-1}
LOG_DIR=build/test-logs
PIN_ROOT=/sys/fs/bpf/xdpong
SKIP_RC=77
VERBOSE=0

if [ "${1:-}" = -v ]; then
	VERBOSE=1
	shift
fi
PATTERNS=("$@")

passed=0
failed=0
skipped=0

for tool in timeout ip; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "tests/run.sh: '$tool' is missing: run tools/deps.sh (as root)" >&2
		exit 1
	fi
done
if [ "$(id -u)" -ne 0 ]; then
	echo "tests/run.sh: not root: the tests that need root will be skipped" >&2
fi

mkdir -p "$LOG_DIR" || exit 1

RUN_DIR=$(mktemp -d /tmp/xdpt-run.XXXXXX) || exit 1
trap 'rm -rf -- "$RUN_DIR"' EXIT
: >"$RUN_DIR/ids"

all_namespaces()
{
	ip netns list 2>/dev/null | awk '$1 ~ /^xdpt-/ { print $1 }' | sort
}

pin_entries()
{
	[ -d "$PIN_ROOT" ] && find "$PIN_ROOT" -mindepth 1 -maxdepth 1 2>/dev/null | sort
	return 0
}

#
# Namespaces and pins that end in one of the test ids listed in file $1:
# tests/lib/lib.sh names namespaces xdpt-TAG-ID and interfaces (so pin
# directories) xpID, xrID. Other runs may share this machine: only our
# ids count.
#
owned_leftovers()
{
	local ids=$1

	[ -s "$ids" ] || return 0
	{ all_namespaces; pin_entries; } |
		grep -E "[^0-9]($(paste -sd '|' "$ids"))\$"
}

# Remove what a test left behind (only names with its ids).
remove_leftovers()
{
	local x

	for x in $1; do
		case $x in
		xdpt-*) ip netns del "$x" 2>/dev/null ;;
		"$PIN_ROOT"/*) rm -rf -- "$x" ;;
		esac
	done
	[ -d "$PIN_ROOT" ] && rmdir "$PIN_ROOT" 2>/dev/null
	return 0
}

NS_BEFORE=$(all_namespaces)
PINS_BEFORE=$(pin_entries)

# Lines to one line of words.
words()
{
	printf '%s\n' "$1" | paste -sd ' '
}

selected()
{
	local p

	[ "${#PATTERNS[@]}" -eq 0 ] && return 0
	for p in "${PATTERNS[@]}"; do
		case $1 in *"$p"*) return 0 ;; esac
	done
	return 1
}

# run_test NAME TIMEOUT CMD...
run_test()
{
	local name=$1 limit=$2 log rc t0 t1 secs leaked status note=

	shift 2
	selected "$name" || return 0
	log=$LOG_DIR/$name.log
	mkdir -p "$(dirname "$log")"
	: >"$RUN_DIR/test-ids"
	t0=$EPOCHREALTIME
	XDPT_RECORD=$RUN_DIR/test-ids timeout -k 10 "$limit" "$@" >"$log" 2>&1 </dev/null
	rc=$?
	t1=$EPOCHREALTIME
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	cat "$RUN_DIR/test-ids" >>"$RUN_DIR/ids"

	case $rc in
	0) status=PASS ;;
	"$SKIP_RC") status=SKIP ;;
	124 | 137) status=FAIL note="timed out after ${limit}s" ;;
	*) status=FAIL note="exit $rc" ;;
	esac

	leaked=$(owned_leftovers "$RUN_DIR/test-ids")
	if [ -n "$leaked" ]; then
		status=FAIL
		note="${note:+$note; }left behind: $(words "$leaked")"
		remove_leftovers "$leaked"
	fi

	printf '%s  %-36s %7ss%s\n' "$status" "$name" "$secs" "${note:+  ($note)}"
	case $status in
	PASS) passed=$((passed + 1)) ;;
	SKIP) skipped=$((skipped + 1)) ;;
	FAIL) failed=$((failed + 1)) ;;
	esac
	if [ "$status" = SKIP ] && [ "$VERBOSE" -eq 0 ]; then
		grep -m 1 '^SKIP' "$log" | sed 's/^/      /'
	fi
	if [ "$status" = FAIL ] || [ "$VERBOSE" -eq 1 ]; then
		tail -n 40 "$log" | sed 's/^/      | /'
		[ "$status" = FAIL ] && echo "      full log: $log"
	fi
	return 0
}

# Unit tests and fuzzing of the BPF program. A missing binary is a failed
# test, not a skipped one: `make tests` builds them.
run_test unit/test_xdpong "$TEST_TIMEOUT" build/tests/test_xdpong
run_test unit/test_chain "$TEST_TIMEOUT" build/tests/test_chain
run_test unit/test_limits "$TEST_TIMEOUT" build/tests/test_limits
run_test fuzz-program/fuzz_xdpong "$FUZZ_TIMEOUT" build/tests/fuzz_xdpong --frames "$FUZZ_FRAMES" \
	--seed "$FUZZ_SEED"

# Shell tests: netns and cli first, then any other directory's.
dirs=(tests/netns tests/cli)
for d in tests/*/; do
	d=${d%/}
	case $d in tests/netns | tests/cli | tests/lib) continue ;; esac
	dirs+=("$d")
done
for d in "${dirs[@]}"; do
	for t in "$d"/*.sh; do
		[ -f "$t" ] || continue
		name=${t#tests/}
		# A test may ask for a longer limit: "# xdpt-timeout: SECONDS".
		limit=$(sed -n 's/^# xdpt-timeout: *\([0-9][0-9]*\)$/\1/p' "$t" | head -n 1)
		[ -n "$limit" ] && [ "$limit" -gt "$TEST_TIMEOUT" ] || limit=$TEST_TIMEOUT
		run_test "${name%.sh}" "$limit" bash "$t"
	done
done

# Nothing of ours may remain. Namespaces or pins that appeared during the
# run without one of our ids belong to another run on this machine: named,
# not counted.
left=$(owned_leftovers "$RUN_DIR/ids")
if [ -n "$left" ]; then
	printf 'FAIL  %-36s  (still present: %s)\n' cleanup "$(words "$left")"
	failed=$((failed + 1))
fi
others=$(comm -13 <(printf '%s\n' "$NS_BEFORE" "$PINS_BEFORE" | sed '/^$/d' | sort) \
	<({ all_namespaces; pin_entries; } | sort) | grep -vxF -e "$left" -e '')
[ -n "$others" ] && echo "note: not made by this run (another run?): $(words "$others")"

summary="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && summary="$summary, $skipped skipped"
echo "$summary"
[ "$failed" -eq 0 ]
