#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Bad usage exits 2 (as iproute2 and xdp-tools) with a message naming
# what is wrong, and attaches nothing. Run in a namespace of its own so a
# command that wrongly succeeded could not touch this host's interfaces.
. "$(dirname "$0")/../lib/lib.sh"

xdpt_require_all
xdpt_ns_new NS usage

# args (one string, split on spaces) | exit code | stderr must match (ERE)
CASES=(
	"attach lo --mode foo|2|invalid --mode 'foo': expected auto, native or skb"
	"attach lo -m drvx|2|invalid --mode 'drvx'"
	"attach lo --addr 10.0.0.0/33|2|invalid --addr '10\.0\.0\.0/33'"
	"attach lo --addr 2001:db8::/129|2|invalid --addr '2001:db8::/129'"
	"attach lo --addr 10.0.0.256|2|invalid --addr '10\.0\.0\.256'"
	"attach lo --addr bogus|2|invalid --addr 'bogus': expected ADDR or ADDR/LEN"
	"attach lo --addr 10.0.0.0/|2|invalid --addr '10\.0\.0\.0/'"
	"attach lo --addr|2|option '--addr' needs a value"
	"attach|2|missing interface"
	"attach lo extra|2|unexpected argument 'extra'"
	"attach lo --bogus|2|unknown option '--bogus' for 'attach'"
	"attach lo --interval 5|2|unknown option '--interval' for 'attach'"
	"attach lo --interval=5|2|unknown option '--interval' for 'attach'"
	"attach lo -x|2|unknown option '-x' for 'attach'"
	"attach abcdefghijklmnop|2|invalid interface name 'abcdefghijklmnop'"
	"run lo --json|2|--json needs --interval"
	"trace lo --off --json|2|--off takes no --count or --json"
	"addr lo frob|2|unknown addr command 'frob'"
	"addr lo add|2|missing PREFIX"
	"addr lo add 10.0.0.1/40|2|invalid PREFIX '10\.0\.0\.1/40'"
	"attach lo --latency-sample x|2|invalid --latency-sample 'x'"
	"attach lo --rate-limit 0|2|invalid --rate-limit '0'"
	"attach lo --max-prefixes 0|2|--max-prefixes '0': expected a whole number, 1 to 16777216"
	"attach lo --max-prefixes -1|2|invalid --max-prefixes '-1'"
	"attach lo --max-prefixes lots|2|invalid --max-prefixes 'lots'"
	"attach lo --max-prefixes 16777217|2|invalid --max-prefixes '16777217'"
	"run lo --max-prefixes 99999999999999999999999|2|invalid --max-prefixes '9+'"
	"attach lo --max-prefixes 2 -a ::1 -a ::2 -a ::3|2|^xdpong: 3 IPv6.*--max-prefixes 2 holds$"
	"run lo --max-prefixes 1 -a 10.0.0.1 -a 10.0.0.2|2|^xdpong: 2 IPv4.*--max-prefixes 1 holds$"
	"detach|2|missing interface"
	"detach lo --bogus|2|unknown option '--bogus'"
	"status --bogus|2|unknown option '--bogus'"
	"stats|2|missing interface"
	"stats lo abc|2|invalid INTERVAL 'abc'"
	"stats lo 0x10|2|invalid INTERVAL '0x10'"
	"stats lo 1e1|2|invalid INTERVAL '1e1'"
	"stats lo 1 0|2|invalid COUNT '0'"
	"stats lo 1 2 3|2|unexpected argument '3'"
	"stats lo --bogus|2|unknown option '--bogus'"
	"probe|2|missing argument \(usage: xdpong probe \[options\] TARGET\.\.\.\)"
	"probe -c 0 127.0.0.1|2|invalid --count '0': expected a whole number from 1"
	"probe -s 20 127.0.0.1|2|invalid --size '20': a STAMP test packet is 44 bytes"
	"probe -4 -6 127.0.0.1|2|-4 and -6 contradict each other"
	"config|2|missing argument"
	"bogus|2|unknown command 'bogus' \(try 'xdpong --help'\)"
	"--bogus|2|unknown option '--bogus'"
	"|2|Usage: xdpong"
)

for c in "${CASES[@]}"; do
	IFS='|' read -r args want re <<<"$c"
	# shellcheck disable=SC2086 # split on purpose
	xdpt_rc "$want" --ns "$NS" "$XDPONG" $args
	xdpt_assert_match "$re" "$XDPT_ERR$XDPT_OUT" "message of 'xdpong $args'"
	xdpt_assert_no_match '(Segmentation|core dumped|libbpf:|libxdp:)' "$XDPT_ERR" \
		"'xdpong $args'"
	xdpt_log "xdpong $args -> $want: $(printf '%s\n' "$XDPT_ERR" | head -n 1)"
done

# -v is taken anywhere by every command, as xdpong(8) says: these get past
# the parser (exit 1: nothing is attached in this namespace, not 2).
for args in "addr -v lo list" "addr lo list -v" "detach -v lo" "stats lo -v" \
		"trace -v lo --count 1"; do
	# shellcheck disable=SC2086 # split on purpose
	xdpt_rc 1 --ns "$NS" "$XDPONG" $args
	xdpt_assert_match 'not attached' "$XDPT_ERR" "'xdpong $args'"
done
# An empty interface name is a usage error too.
xdpt_rc 2 --ns "$NS" "$XDPONG" attach ""
xdpt_assert_match "invalid interface name ''" "$XDPT_ERR" "xdpong attach ''"

# Nothing of the above attached anything.
xdpt_assert_eq 0 "$(xdpt_link_prog_id "$NS" lo)" "XDP program on lo after the usage errors"
xdpt_pass
