#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The parser fuzzers as `make test` runs them: reproducible. Each target
# replays its committed seeds (tests/fuzz-parsers/corpus/*.seeds), then
# explores for a fixed number of inputs from a fixed seed (tests/lib/fuzz-parsers.bash
# --smoke): the same tree gives the same result on every machine. Exit 0,
# 1 on a crash or broken invariant (the input is printed in hex with the
# command that replays it), 77 if the targets are not built (clang without
# libFuzzer). Open-ended search is `make fuzz-parsers`, outside `make test`.
exec "$(dirname "$0")/../lib/fuzz-parsers.bash" --smoke
