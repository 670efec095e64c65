#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The short pass of the parser fuzzers that `make test` runs (tests/run.sh
# picks up every tests/<dir>/*.sh): each target for FUZZ_SMOKE_SECONDS (2)
# seconds, about 10 s in all. Exit 0, 1 on a crash or broken invariant,
# 77 if the targets are not built (clang without libFuzzer).
# `make fuzz-parsers` is the long run (FUZZ_SECONDS, 60 s per target).
exec "$(dirname "$0")/fuzz.bash" --smoke --seconds-each "${FUZZ_SMOKE_SECONDS:-2}"
