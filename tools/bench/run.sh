#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make bench [ARGS=...]`: run build/bench/xdpong-bench as root, then draw
# build/bench/bench.png with gnuplot (installed from Debian if missing).
# Namespaces are named after this shell's PID and deleted on any exit.
set -u
cd "$(dirname "$0")/../.." || exit 1
OUT=build/bench
BIN=$OUT/xdpong-bench

if [ "$(id -u)" != 0 ]; then
	echo "bench: must run as root (network namespaces, BPF)" >&2
	exit 1
fi
if ! command -v gnuplot >/dev/null 2>&1; then
	echo "bench: installing gnuplot-nox for the chart" >&2
	{ timeout 300 apt-get install -y -qq gnuplot-nox ||
	  { timeout 300 apt-get update -qq &&
	    timeout 300 apt-get install -y -qq gnuplot-nox; }; } >/dev/null 2>&1 ||
		echo "bench: could not install gnuplot-nox: no chart" >&2
fi

ID=$(($$ % 100000))
cleanup() {
	ip netns del "xbench-s-$ID" 2>/dev/null
	ip netns del "xbench-r-$ID" 2>/dev/null
	ip netns del "xbench-ms-$ID" 2>/dev/null # the multi-queue pair (mq.c)
	ip netns del "xbench-mr-$ID" 2>/dev/null
	ip netns del "xbench-ts-$ID" 2>/dev/null # the throughput pair (tput.c)
	ip netns del "xbench-tr-$ID" 2>/dev/null
	return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The run takes about 6 minutes, more where the cost part is timed again on a
# busy machine (bench.c, cost_again); SIGINT makes the driver
# tear down and stop.
timeout -s INT -k 15 720 "$BIN" --id "$ID" --out "$OUT" "$@"
rc=$?
if [ "$rc" = 0 ] && [ -s "$OUT/meta.gp" ] && command -v gnuplot >/dev/null 2>&1; then
	if timeout 60 gnuplot -e "dir='$OUT'" tools/bench/chart.gp; then
		echo "bench: chart in $OUT/bench.png, table in $OUT/results.txt" >&2
	else
		echo "bench: gnuplot failed: no chart" >&2
	fi
fi
exit "$rc"
