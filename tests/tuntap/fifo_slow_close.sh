#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# fifo_helper.sh again, with every close() of tun-helper delayed by
# 30 ms (strace fault injection). That widens the moment between an
# answer's last byte and the helper's close of resp, in which a client
# that stopped reading at the newline could open resp for its next command
# and be handed that close as an empty answer. A client that reads each
# answer to its end of file (as the runbook's cat, and the scripted
# processor, do) must lose nothing: every ping is answered.
. "$(dirname "$0")/../lib/lib.sh"

xdpt_require_root
xdpt_require_cmd strace
xdpt_tmpdir
HELPER=${TUN_HELPER:-$XDPT_REPO/build/tools/tun-helper}
[ -x "$HELPER" ] || xdpt_fail "$HELPER is missing: run 'make' first"
cat >"$XDPT_TMP/slow-close-helper" <<EOS
#!/bin/sh
exec strace -qq -f -o /dev/null -e trace=close -e inject=close:delay_enter=30000 \
$(printf %q "$HELPER") "\$@"
EOS
chmod +x "$XDPT_TMP/slow-close-helper"
export TUN_HELPER=$XDPT_TMP/slow-close-helper
xdpt_ok timeout -k 5 150 bash "$(dirname "$0")/fifo_helper.sh"
xdpt_log "$XDPT_OUT"
xdpt_pass
