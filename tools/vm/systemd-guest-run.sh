#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside tools/vm/systemd-guest.sh's guest, as the service xdpong-vm
# (after multi-user.target, output on /dev/ttyS1, the host's output.log):
# runs the command (/root/xdpong-vm.cmd, NUL-separated words) in
# /root/payload between the lines XDPONG-VM-START and XDPONG-VM-RC=<code>.
# A failing command is followed by the journal's last lines. Then the
# guest powers off at once (sysrq: nothing on its disk is worth a clean
# shutdown, it has none).

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8
mapfile -d '' -t cmd </root/xdpong-vm.cmd
cd /root/payload || echo "xdpong-vm: no /root/payload"
# On the console too: the host retries a boot whose kernel faulted before
# this line (tools/vm/lib.sh), never after it.
echo "XDPONG-VM-START" >/dev/ttyS0
echo "XDPONG-VM-START"
"${cmd[@]}" </dev/null 2>&1
rc=$?
if [ "$rc" -ne 0 ]; then
	echo "xdpong-vm: the command failed ($rc); the journal's last 80 lines:"
	journalctl -b --no-pager -o short-monotonic 2>&1 | tail -n 80 | sed 's/^/  journal| /'
fi
echo "XDPONG-VM-RC=$rc"
sync
echo o >/proc/sysrq-trigger
sleep 30
