# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers of the fleet tests (tests/fleet/*.sh): one responder namespace
# with several veth pairs to one pinger namespace, `xdpong run --config`
# in the background, and an HTTP client (Python's, from Debian).
# In tests/lib/, with every shared shell helper: the runner runs no test there.
. "$(dirname "${BASH_SOURCE[0]}")/faults.bash"

# fl_pair N: veth pair fp<N><id> (10.8N.0.1, $NS_PING) - fr<N><id>
# (10.8N.0.2, $NS_RESP). Sets FR (the responder's name) and FR_IP.
fl_pair()
{
	FR="fr$1$XDPT_ID" FR_IP="10.8$1.0.2"
	xdf_veth "$NS_PING" "fp$1$XDPT_ID" "10.8$1.0.1" "$NS_RESP" "$FR" "$FR_IP"
	xdpt_track_pins "$FR"
}

# fl_ns: the two namespaces, kernel echo off in the responder.
fl_ns()
{
	xdpt_ns_new NS_PING ping
	xdpt_ns_new NS_RESP resp
	xdpt_kernel_echo_ignore "$NS_RESP" 1
	xdpt_tmpdir
}

# fl_run CONF: run --config CONF in the background (XDF_RUN_PID), output
# in $XDPT_TMP/run.out; waits until it says it is running.
fl_run()
{
	xdf_run_bg "$NS_RESP" "$XDPT_TMP/run.out" --config "$1"
	xdpt_wait 15 grep -q 'running (pid' "$XDPT_TMP/run.out" ||
		xdpt_fail "run --config did not start: $(cat "$XDPT_TMP/run.out")"
}

# fl_http PATH [METHOD]: an HTTP request to the run's listener from inside
# $NS_RESP; status in HTTP_STATUS, body in HTTP_BODY.
fl_http()
{
	local out

	out=$(ip netns exec "$NS_RESP" /usr/bin/python3 - "$FL_LISTEN" "$1" "${2:-GET}" <<'PY'
import http.client, sys
host, port = sys.argv[1].rsplit(":", 1)
c = http.client.HTTPConnection(host, int(port), timeout=10)
c.request(sys.argv[3], sys.argv[2])
r = c.getresponse()
print(r.status)
sys.stdout.write(r.read().decode())
PY
) || xdpt_fail "HTTP $2 $1: no answer from $FL_LISTEN"
	HTTP_STATUS=${out%%$'\n'*}
	HTTP_BODY=${out#*$'\n'}
}

# fl_port: a free TCP port number for the listener.
fl_port()
{
	local py='import socket; s = socket.socket(); s.bind(("127.0.0.1", 0));'
	py+=' print(s.getsockname()[1])'
	/usr/bin/python3 -c "$py"
}
