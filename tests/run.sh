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
# A test with the line "# xdpt-parallel: yes" (tests/vm/: each boots a
# guest of its own) runs beside the others instead, from the start: at
# most XDPT_JOBS_BESIDE (default 1) at a time while the rest run one at a
# time, then XDPT_JOBS (default 2) at a time; each one's line comes when
# it ends, and a line "time: ..." says how long the two parts took.
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
XDPT_JOBS=${XDPT_JOBS:-2}
XDPT_JOBS_BESIDE=${XDPT_JOBS_BESIDE:-1}
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
n_tests=0
QUEUE=()
T_START=$EPOCHREALTIME

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
# On any exit: the tests still running beside the others are stopped
# (timeout signals its test's whole process group).
stop_queued()
{
	local f id

	for f in "$RUN_DIR"/pid.q*; do
		[ -e "$f" ] || continue
		id=${f##*/pid.}
		[ -e "$RUN_DIR/res.$id" ] || kill "$(cat "$f")" 2>/dev/null
	done
	rm -rf -- "$RUN_DIR"
}
trap stop_queued EXIT
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

elapsed()
{
	awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'
}

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

# start_test ID NAME TIMEOUT CMD...: run one test, its log in
# build/test-logs/NAME.log, and leave what report_test needs in
# $RUN_DIR/res.ID. Background-safe: a test's ids go to its own file.
start_test()
{
	local id=$1 name=$2 limit=$3 log rc t0

	shift 3
	log=$LOG_DIR/$name.log
	mkdir -p "$(dirname "$log")"
	: >"$RUN_DIR/test-ids.$id"
	t0=$EPOCHREALTIME
	XDPT_RECORD=$RUN_DIR/test-ids.$id timeout -k 10 "$limit" "$@" >"$log" 2>&1 </dev/null &
	echo "$!" >"$RUN_DIR/pid.$id"
	wait "$!"
	rc=$?
	printf '%s %s %s %s %s\n' "$rc" "$t0" "$EPOCHREALTIME" "$limit" "$name" \
		>"$RUN_DIR/res.$id.tmp"
	mv "$RUN_DIR/res.$id.tmp" "$RUN_DIR/res.$id"
}

# report_test ID: the test's line (and its log's tail when it failed); counts it.
report_test()
{
	local id=$1 rc t0 t1 limit name log secs leaked status note=

	read -r rc t0 t1 limit name <"$RUN_DIR/res.$id"
	log=$LOG_DIR/$name.log
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	cat "$RUN_DIR/test-ids.$id" >>"$RUN_DIR/ids"

	case $rc in
	0) status=PASS ;;
	"$SKIP_RC") status=SKIP ;;
	124 | 137) status=FAIL note="timed out after ${limit}s" ;;
	*) status=FAIL note="exit $rc" ;;
	esac

	leaked=$(owned_leftovers "$RUN_DIR/test-ids.$id")
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

# run_test NAME TIMEOUT CMD...: one test, now.
run_test()
{
	selected "$1" || return 0
	n_tests=$((n_tests + 1))
	start_test "$n_tests" "$@"
	report_test "$n_tests"
	report_queued
}

# queue_test NAME TIMEOUT CMD...: a test that runs beside the others
# (start_queued).
queue_test()
{
	selected "$1" || return 0
	QUEUE+=("$(printf '%q ' "$@")")
}

#
# The queued tests, in their order, in the background: at most as many at
# a time as $RUN_DIR/jobs says (the main loop raises it once the tests it
# runs one at a time are done). Each leaves res.qN; report_queued prints.
#
start_queued()
{
	local k=0 j q running jobs

	for q in "${QUEUE[@]}"; do
		while :; do
			running=0
			for ((j = 0; j < k; j++)); do
				[ -e "$RUN_DIR/res.q$j" ] || running=$((running + 1))
			done
			jobs=$(cat "$RUN_DIR/jobs")
			[ "$running" -lt "$jobs" ] && break
			sleep 1
		done
		eval "start_test q$k $q" &
		k=$((k + 1))
	done
	wait
}

# report_queued: the queued tests that ended and were not reported yet.
report_queued()
{
	local j

	for ((j = 0; j < ${#QUEUE[@]}; j++)); do
		if [ -e "$RUN_DIR/res.q$j" ] && [ ! -e "$RUN_DIR/reported.q$j" ]; then
			: >"$RUN_DIR/reported.q$j"
			report_test "q$j"
		fi
	done
}

# Shell tests: netns and cli first, then any other directory's. A test
# may ask for a longer limit: "# xdpt-timeout: SECONDS". A test whose
# work is a guest of its own ("# xdpt-parallel: yes": tests/vm/) runs
# beside the rest: from the start, XDPT_JOBS_BESIDE (default 1) of them
# at a time beside the tests that run one at a time, then XDPT_JOBS
# (default 2) at a time once those are done.
SERIAL=()
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
		limit=$(sed -n 's/^# xdpt-timeout: *\([0-9][0-9]*\)$/\1/p' "$t" | head -n 1)
		[ -n "$limit" ] && [ "$limit" -gt "$TEST_TIMEOUT" ] || limit=$TEST_TIMEOUT
		if grep -qx '# xdpt-parallel: yes' "$t"; then
			queue_test "${name%.sh}" "$limit" bash "$t"
		else
			SERIAL+=("${name%.sh} $limit $t")
		fi
	done
done
echo "$XDPT_JOBS_BESIDE" >"$RUN_DIR/jobs"
if [ "${#QUEUE[@]}" -gt 0 ]; then
	start_queued &
	QUEUE_PID=$!
fi

# Unit tests and fuzzing of the BPF program. A missing binary is a failed
# test, not a skipped one: `make tests` builds them.
run_test unit/test_xdpong "$TEST_TIMEOUT" build/tests/test_xdpong
run_test unit/test_stamp "$TEST_TIMEOUT" build/tests/test_stamp
run_test unit/test_chain "$TEST_TIMEOUT" build/tests/test_chain
run_test unit/test_limits "$TEST_TIMEOUT" build/tests/test_limits
run_test fuzz-program/fuzz_xdpong "$FUZZ_TIMEOUT" build/tests/fuzz_xdpong --frames "$FUZZ_FRAMES" \
	--seed "$FUZZ_SEED"
for s in "${SERIAL[@]}"; do
	read -r name limit t <<<"$s"
	run_test "$name" "$limit" bash "$t"
done
t_serial=$(elapsed "$T_START")
if [ "${#QUEUE[@]}" -gt 0 ]; then
	echo "$XDPT_JOBS" >"$RUN_DIR/jobs"
	while kill -0 "$QUEUE_PID" 2>/dev/null; do
		report_queued
		sleep 2
	done
	wait "$QUEUE_PID"
	report_queued
	echo "time: ${t_serial}s for the tests run one at a time; $(elapsed "$T_START")s" \
		"with the ${#QUEUE[@]} run beside them"
fi

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
