#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the parser fuzz targets (build/fuzz-parsers/fuzz_*) one after the
# other, each for a bounded time, and print one line per target:
#
#	ok    prefix   2 s  812345 runs  cov 233 ft 645 corpus 161
#
# or FAIL with the crash report's head and the command that replays the
# saved input. Exit 0 if every target ran clean, 1 if one failed, 77
# (with --smoke) if the targets are not built.
#
# Usage: fuzz.bash [--seconds-each S] [--smoke] [TARGET...]
#   S defaults to $FUZZ_SECONDS or 60; TARGETs: prefix u64 attach netlink.
# Seeds come from tests/fuzz-parsers/corpus/<target>.seeds (a line is
# "t TEXT" with printf %b escapes, or "x HEX"); the corpus the fuzzer grows
# is kept in build/fuzz-parsers/corpus/<target>/ between runs, crashes in
# build/fuzz-parsers/artifacts/.
# Not named *.sh: tests/run.sh runs every tests/<dir>/*.sh as a test.

set -u
SRC=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$SRC/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$REPO/$BUILD ;; esac
DIR=$BUILD/fuzz-parsers
SECONDS_EACH=${FUZZ_SECONDS:-60}
SMOKE=0
TARGETS=()

while [ $# -gt 0 ]; do
	case $1 in
	--seconds-each) SECONDS_EACH=$2; shift ;;
	--smoke) SMOKE=1 ;;
	-h | --help) sed -n '3,20s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) TARGETS+=("$1") ;;
	esac
	shift
done
[ "${#TARGETS[@]}" -eq 0 ] && TARGETS=(prefix u64 attach netlink)
case $SECONDS_EACH in
'' | *[!0-9]* | 0) echo "fuzz.bash: --seconds-each wants a whole number of seconds >= 1" >&2; exit 2 ;;
esac

for t in "${TARGETS[@]}"; do
	if [ ! -x "$DIR/fuzz_$t" ]; then
		msg="$DIR/fuzz_$t is not built (needs clang with libFuzzer: 'make fuzz-parsers-bins')"
		if [ "$SMOKE" -eq 1 ]; then
			echo "SKIP: $msg"
			exit 77
		fi
		echo "fuzz.bash: $msg" >&2
		exit 1
	fi
done

# seeds_write FILE OUTDIR: one file per seed line.
seeds_write()
{
	local kind data n=0

	rm -rf "$2" && mkdir -p "$2" || return 1
	while read -r kind data; do
		case $kind in
		t) printf '%b' "$data" >"$2/seed$n" ;;
		x) printf '%b' "$(printf '%s' "$data" | sed 's/../\\x&/g')" >"$2/seed$n" ;;
		*) continue ;;
		esac
		n=$((n + 1))
	done <"$1"
}

failed=0
mkdir -p "$DIR/artifacts" || exit 1
for t in "${TARGETS[@]}"; do
	seeds=$DIR/seeds/$t corpus=$DIR/corpus/$t log=$DIR/$t.log
	opts=(-max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048
		-close_fd_mask=3 -print_final_stats=1
		-artifact_prefix="$DIR/artifacts/$t-")
	mkdir -p "$corpus"
	seeds_write "$SRC/corpus/$t.seeds" "$seeds" || { echo "FAIL  $t: cannot write seeds"; failed=1; continue; }
	[ -f "$SRC/corpus/$t.dict" ] && opts+=(-dict="$SRC/corpus/$t.dict")
	[ "$t" = netlink ] && opts+=(-max_len=8192)
	timeout -k 10 $((SECONDS_EACH + 60)) "$DIR/fuzz_$t" "${opts[@]}" "$corpus" "$seeds" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	cov=$(grep -E '^#[0-9]+' "$log" | tail -n 1 | sed -n 's/.*cov: \([0-9]*\) ft: \([0-9]*\) corp: \([0-9]*\).*/cov \1 ft \2 corpus \3/p')
	if [ "$rc" -eq 0 ]; then
		printf 'ok    %-8s %3s s  %s runs  %s\n' "$t" "$SECONDS_EACH" "${runs:-?}" "${cov:-}"
		continue
	fi
	failed=1
	printf 'FAIL  %-8s exit %s after %s runs\n' "$t" "$rc" "${runs:-?}"
	grep -E 'invariant broken|ERROR: |runtime error|SUMMARY|^  ' "$log" | head -n 12 | sed 's/^/      | /'
	art=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
	[ -n "$art" ] && echo "      replay: $DIR/fuzz_$t $art"
	echo "      full log: $log"
done
exit "$failed"
