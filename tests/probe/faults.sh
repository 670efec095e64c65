#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# What xdpong probe reports of a reflector that loses, duplicates and
# reorders, exactly: the user-space reflector (tests/lib/stamp_reflector.py)
# leaves sequence numbers 2 and 5 unanswered, answers 3 and 7 twice, and
# answers 8 only after 9, on IPv4 and IPv6 (loopback of a namespace of its
# own). The network's own faults, injected with netem: probe/netem.
. "$(dirname "$0")/../lib/probe.bash"

xdpt_require_all
xdpt_require_cmd setpriv
xdpt_ns_new NS faults
xdpt_tmpdir
# shellcheck disable=SC2054 # commas within the values
FAULTS=(--drop 2,5 --dup 3,7 --swap 8)
xpr_reflector "$NS" 4 "$XDPT_TMP/r4.log" "${FAULTS[@]}"
xpr_reflector "$NS" 6 "$XDPT_TMP/r6.log" "${FAULTS[@]}"

xdpt_log "text: the marks, and the summary"
xpr_probe --ns "$NS" -c 12 -i 0.05 -W 0.5 127.0.0.1 ::1
xdpt_assert_eq 0 "$XDPT_RC" "exit status ($XDPT_ERR)"
for a in 127.0.0.1 ::1; do
	lines=$(grep "^44 bytes from $a: " <<<"$XDPT_OUT")
	xdpt_assert_eq "0 1 3 3 4 6 7 7 9 8 10 11" "$(sed -E 's/.* seq=([0-9]+) .*/\1/' \
		<<<"$lines" | tr '\n' ' ' | sed 's/ $//')" "$a: the replies, in the order read"
	xdpt_assert_eq "3 7" "$(grep -F '(DUP!)' <<<"$lines" | sed -E 's/.* seq=([0-9]+) .*/\1/' |
		tr '\n' ' ' | sed 's/ $//')" "$a: the duplicates marked"
	xdpt_assert_eq "8" "$(grep -F '(reordered)' <<<"$lines" |
		sed -E 's/.* seq=([0-9]+) .*/\1/')" "$a: the reordered one marked"
done
xdpt_assert_eq 2 "$(grep -c '^12 sent, 10 received, 16.6667% loss, 2 duplicates, 1 reordered$' \
	<<<"$XDPT_OUT")" "both summaries"

xdpt_log "--json and --prometheus: the same counts"
xpr_probe --ns "$NS" -c 12 -i 0.05 -W 0.5 --json 127.0.0.1 ::1
xdpt_assert_eq "12 10 2 2 1|12 10 2 2 1" "$(jq -r '.targets | map([.sent, .received, .lost,
	.duplicates, .reordered] | map(tostring) | join(" ")) | join("|")' <<<"$XDPT_OUT")" \
	"--json: sent received lost duplicates reordered"
xpr_probe --ns "$NS" -c 12 -i 0.05 -W 0.5 --prometheus ::1
for m in "sent_total 12" "received_total 10" "lost_total 2" "rtt_seconds_count 10"; do
	series="xdpong_probe_${m% *}\\{probe=\"cli\",target=\"::1\",protocol=\"stamp\"\\}"
	xdpt_assert_match "^$series ${m#* }$" "$XDPT_OUT" "--prometheus: ${m% *}"
done
xdpt_pass
