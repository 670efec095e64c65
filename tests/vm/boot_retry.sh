#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The VM harness boots a guest again, once, when its kernel faults before
# the command starts, and never once the command runs (tools/vm/README.md,
# "A boot that faults"). On Debian 12's kernel (6.1): a first boot made to
# panic (XDPONG_VM_FAULT_TEST=1) is retried, said so, its console kept, and
# the command's exit code comes back; a kernel crash under the command
# fails the run (exit 125) and is not retried.
# xdpt-timeout: 600
# xdpt-parallel: yes
. "$(dirname "$0")/../lib/lib.sh"

[ "${XDPT_VM:-1}" = 0 ] && xdpt_skip "the VM tests are off (XDPT_VM=0)"
xdpt_require_root
RUN=$XDPT_REPO/tools/vm/run.sh
LOGS=$XDPT_REPO/build/vm-logs/boot_retry
rm -rf "$LOGS"

out=$(XDPONG_VM_FAULT_TEST=1 "$RUN" --kernel 6.1 --logs "$LOGS/panic" -- sh -c 'exit 3' 2>&1)
rc=$?
xdpt_log "$out"
xdpt_assert_eq 3 "$rc" "the command's exit code after a first boot that panicked"
xdpt_assert_match '^vm: boot retried: .*Kernel panic - not syncing' "$out" "the retry's line"
xdpt_assert_match 'Kernel panic - not syncing' "$(cat "$LOGS/panic/failed-boot-console.log")" \
	"the failed boot's console, kept"

out=$("$RUN" --kernel 6.1 --logs "$LOGS/crash" -- sh -c 'echo c >/proc/sysrq-trigger' 2>&1)
rc=$?
xdpt_log "$out"
xdpt_assert_eq 125 "$rc" "exit code of a guest whose kernel crashed under the command"
xdpt_assert_no_match 'boot retried' "$out" "a crash under the command"
[ -e "$LOGS/crash/failed-boot-console.log" ] && xdpt_fail "a crash under the command was retried"
xdpt_pass
