#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make test`: the dependencies (tools/deps.sh, tools/vm/deps.sh), the
# build (make all tests), then every test (tests/run.sh, whose guests in
# tests/vm/ run beside the host's tests), and at the end the time of each
# phase and of each guest:
#
#	make test: times
#	  deps                                  3.1s
#	  build                                52.0s
#	  host tests, one at a time           655.3s
#	  vm/linux_5.10                       598.7s  (beside the others)
#	  ...
#	  tests, guests included             1490.2s
#	  total                              1545.3s
#
# and any guest booted a second time (its kernel faulted before the suite
# began: tools/vm/README.md). Exit: tests/run.sh's, or the failed phase's.
# MAKE: the make to run (the Makefile passes its own).
set -u
cd "$(dirname "$0")/.." || exit 1
MAKE=${MAKE:-make}
LOG=build/test-logs/run.txt

PHASES=()

elapsed()
{
	awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'
}

# phase NAME SECONDS [NOTE]
phase()
{
	PHASES+=("$(printf '  %-32s %8ss%s' "$1" "$2" "${3:+  ($3)}")")
}

times()
{
	echo "make test: times"
	printf '%s\n' "${PHASES[@]}"
	phase_total=$(elapsed "$T0")
	printf '  %-32s %8ss\n' total "$phase_total"
}

T0=$EPOCHREALTIME
t=$EPOCHREALTIME
if ! tools/deps.sh || ! tools/vm/deps.sh; then
	phase deps "$(elapsed "$t")" failed
	times
	exit 1
fi
phase deps "$(elapsed "$t")"

t=$EPOCHREALTIME
$MAKE --no-print-directory all tests || { phase build "$(elapsed "$t")" failed; times; exit 1; }
phase build "$(elapsed "$t")"

mkdir -p "${LOG%/*}" || exit 1
t=$EPOCHREALTIME
tests/run.sh | tee "$LOG"
rc=${PIPESTATUS[0]}
tests=$(elapsed "$t")
# tests/run.sh's last lines: "time: Ns for the tests run one at a time; ..."
serial=$(sed -n 's/^time: \([0-9.]*\)s for the tests run one at a time.*/\1/p' "$LOG")
[ -n "$serial" ] && phase "host tests, one at a time" "$serial"
while read -r status name secs _; do
	phase "$name" "${secs%s}" "$status; beside the others"
done < <(grep -E '^(PASS|FAIL|SKIP)  vm/' "$LOG")
phase "tests, guests included" "$tests"
echo
times
retried=$(grep -l 'vm: boot retried' build/test-logs/vm/*.log 2>/dev/null)
for f in $retried; do
	grep -qE "^(PASS|FAIL|SKIP)  vm/$(basename "$f" .log) " "$LOG" || continue
	echo "  booted twice: vm/$(basename "$f" .log): $(grep -m 1 'vm: boot retried' "$f" |
		sed 's/^.*vm: boot retried: //; s/; booting it again.*//')"
done
exit "$rc"
