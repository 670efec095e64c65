#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the parser fuzz targets (build/fuzz-parsers/fuzz_*) one after the
# other and print one line per target:
#
#	ok    prefix   2 s  812345 runs  cov 233 ft 645 corpus 161
#
# or FAIL with the crash report's head, the input in hex (a line ready for
# corpus/<target>.seeds) and the one command that replays it. Exit 0 if
# every target ran clean, 1 if one failed, 77 (with --smoke) if the targets
# are not built.
#
# Two ways to run:
#   --smoke      what `make test` runs: the same on every machine. Each
#                target replays its committed seeds, then explores from
#                them for exactly FUZZ_SMOKE_RUNS (200000; config a quarter) inputs with a
#                fixed libFuzzer seed (FUZZ_SMOKE_SEED, 1) into a corpus
#                of its own that starts empty. Nothing from earlier runs
#                is read, and nothing depends on the machine's speed.
#   (default)    open-ended search, `make fuzz-parsers`: each target for
#                S seconds from a random seed, growing the corpus kept in
#                build/fuzz-parsers/corpus/<target>/ between runs. A
#                finding becomes a seed (the printed "x HEX" line, with a
#                comment, in corpus/<target>.seeds) before it is fixed,
#                so the smoke run replays it from then on.
#
# Usage: tests/lib/fuzz-parsers.bash [--seconds-each S] [--smoke] [TARGET...]
#   S defaults to $FUZZ_SECONDS or 60; TARGETs: prefix u64 attach netlink config.
# Seeds come from tests/fuzz-parsers/corpus/<target>.seeds (a line is
# "t TEXT" with printf %b escapes, or "x HEX"); crashes are saved in
# build/fuzz-parsers/artifacts/. The rules the targets check are in
# docs/input-rules.md.
# In tests/lib/, with every shared shell helper: the runner runs no test there.

set -u
REPO=$(cd "$(dirname "$0")/../.." && pwd)
SRC=$REPO/tests/fuzz-parsers
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
[ "${#TARGETS[@]}" -eq 0 ] && TARGETS=(prefix u64 attach netlink config)
SMOKE_RUNS=${FUZZ_SMOKE_RUNS:-200000}
SMOKE_SEED=${FUZZ_SMOKE_SEED:-1}
for v in "$SECONDS_EACH" "$SMOKE_RUNS" "$SMOKE_SEED"; do
	case $v in
	'' | *[!0-9]* | 0)
		echo "fuzz-parsers.bash: --seconds-each, FUZZ_SMOKE_RUNS and FUZZ_SMOKE_SEED" \
			"want whole numbers >= 1" >&2
		exit 2
		;;
	esac
done

for t in "${TARGETS[@]}"; do
	if [ ! -x "$DIR/fuzz_$t" ]; then
		msg="$DIR/fuzz_$t is not built"
		msg+=" (needs clang with libFuzzer: 'make fuzz-parsers-bins')"
		if [ "$SMOKE" -eq 1 ]; then
			echo "SKIP: $msg"
			exit 77
		fi
		echo "fuzz-parsers.bash: $msg" >&2
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

# Comparisons of pointers feed libFuzzer's mutations: with addresses laid
# out at random (ASLR) the same seed explores differently. The smoke run
# turns it off for the fuzzer (setarch -R).
NOASLR=()
[ "$SMOKE" -eq 1 ] && NOASLR=(setarch "$(uname -m)" -R)

failed=0
mkdir -p "$DIR/artifacts" || exit 1
for t in "${TARGETS[@]}"; do
	seeds=$DIR/seeds/$t log=$DIR/$t.log
	opts=(-timeout=10 -rss_limit_mb=2048 -close_fd_mask=3 -print_final_stats=1
		-artifact_prefix="$DIR/artifacts/$t-")
	if [ "$SMOKE" -eq 1 ]; then
		# A corpus of this run's own: the grown one would make it depend
		# on what ran here before.
		corpus=$DIR/smoke-corpus/$t
		rm -rf "$corpus"
		runs=$SMOKE_RUNS
		# Three config loads through a file per input: a quarter as many.
		[ "$t" = config ] && runs=$((SMOKE_RUNS / 4))
		opts+=(-runs="$runs" -seed="$SMOKE_SEED" -reload=0)
		what="$runs runs, seed $SMOKE_SEED"
	else
		corpus=$DIR/corpus/$t
		opts+=(-max_total_time="$SECONDS_EACH")
		what="$SECONDS_EACH s"
	fi
	mkdir -p "$corpus"
	seeds_write "$SRC/corpus/$t.seeds" "$seeds" ||
		{ echo "FAIL  $t: cannot write seeds"; failed=1; continue; }
	[ -f "$SRC/corpus/$t.dict" ] && opts+=(-dict="$SRC/corpus/$t.dict")
	[ "$t" = netlink ] && opts+=(-max_len=8192)
	t0=$SECONDS
	timeout -k 10 $((SECONDS_EACH + 600)) "${NOASLR[@]}" "$DIR/fuzz_$t" "${opts[@]}" \
		"$corpus" "$seeds" >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	cov_re='s/.*cov: \([0-9]*\) ft: \([0-9]*\) corp: \([0-9]*\).*/'
	cov_re+='cov \1 ft \2 corpus \3/p'
	cov=$(grep -E '^#[0-9]+' "$log" | tail -n 1 | sed -n "$cov_re")
	if [ "$rc" -eq 0 ]; then
		printf 'ok    %-8s %s  %s runs in %s s  %s\n' "$t" "$what" "${runs:-?}" \
			$((SECONDS - t0)) "${cov:-}"
		continue
	fi
	failed=1
	printf 'FAIL  %-8s exit %s after %s runs (%s)\n' "$t" "$rc" "${runs:-?}" "$what"
	grep -E 'invariant broken|ERROR: |runtime error|SUMMARY|^  ' "$log" | head -n 12 |
		sed 's/^/      | /'
	art=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -n 1)
	if [ -n "$art" ] && [ -f "$art" ]; then
		echo "      input ($(stat -c %s "$art") bytes), as a seed line for corpus/$t.seeds:"
		echo "      x $(od -An -v -tx1 "$art" | tr -d ' \n')"
		echo "      replay: $DIR/fuzz_$t $art"
	fi
	echo "      full log: $log"
done
exit "$failed"
