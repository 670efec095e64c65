#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what the VM harness (tools/vm/) needs, as root: tools/deps.sh
# --vm (the package list and why each is there are in that file).
#
# Usage: tools/vm/deps.sh
exec "$(dirname "$0")/../deps.sh" --vm
