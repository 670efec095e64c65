#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""STAMP replies read through Wireshark's TWAMP-Test dissector (tshark).

    stamp_tshark.py PCAP REFLECTOR... --replies N [--port 862]

Debian 12's tshark (4.0) has no STAMP dissector, but STAMP's
unauthenticated packets are laid out as TWAMP-Test's (RFC 8762 4.2.1 and
4.3.1 keep RFC 5357's fields; RFC 8972's SSID sits in the first MBZ):
decoded as twamp.test, every reply from a REFLECTOR address in PCAP (a capture on
the sender's side, requests and replies) must have, against its request
(the same Sequence Number):
  - the Sender Sequence Number, Sender Timestamp and Sender Error
    Estimate the request's Sequence Number, Timestamp and Error Estimate;
  - the first MBZ (the SSID) the request's, the second 0;
  - the Sender TTL the request's TTL or hop limit as captured;
  - Receive Timestamp <= Timestamp, both no earlier than the request's
    Timestamp less 1 ms and within 1 s of it;
  - an Error Estimate with Z 0 and a multiplier that is not 0;
  - the same length as the request.
Exactly N replies must be found. Exit 0 if all is so, else 1, one line
per problem.
"""
import argparse
import subprocess
import sys
import xml.etree.ElementTree as ET

F = "twamp.test."


def packets(pcap, port):
    """Each packet's fields by name: (show, raw hex) of the first seen."""
    xml = subprocess.run(["tshark", "-r", pcap, "-d", "udp.port==%d,twamp.test" % port,
                          "-T", "pdml"], check=True, capture_output=True, text=True).stdout
    for pkt in ET.fromstring(xml).iter("packet"):
        fields = {}
        for f in pkt.iter("field"):
            fields.setdefault(f.get("name"), (f.get("show"), f.get("value")))
        if F + "seq_number" in fields:
            yield fields


def ntp(fields, name):
    """An NTP 64-bit timestamp field as an integer, from its raw bytes."""
    return int(fields[F + name][1], 16)


def check(reply, req):
    """Problems with one reply against its request."""
    bad = []
    same = (("sender_seq_number", "seq_number"), ("sender_timestamp", "timestamp"),
            ("sender_error_estimate", "error_estimate"), ("mbz1", "mbz1"))
    for rf, qf in same:
        if reply[F + rf][1] != req[F + qf][1]:
            bad.append("%s %s, request's %s %s" % (rf, reply[F + rf][0], qf, req[F + qf][0]))
    if int(reply[F + "mbz2"][0]):
        bad.append("second MBZ not 0")
    ttl = req.get("ip.ttl", req.get("ipv6.hlim"))[0]
    if reply[F + "sender_ttl"][0] != ttl:
        bad.append("Sender TTL %s, request sent with %s" % (reply[F + "sender_ttl"][0], ttl))
    t1, t2, t3 = ntp(req, "timestamp"), ntp(reply, "receive_timestamp"), ntp(reply, "timestamp")
    ms = 2**32 // 1000
    if not (t1 - ms <= t2 <= t3 and t3 - t1 < 1000 * ms):
        bad.append("T1 %#x T2 %#x T3 %#x out of order or apart" % (t1, t2, t3))
    err = int(reply[F + "error_estimate"][0])
    if err & 0x4000 or not err & 0xFF:
        bad.append("Error Estimate %#06x: Z set or multiplier 0" % err)
    if reply["frame.len"][0] != req["frame.len"][0]:
        bad.append("length %s, request %s" % (reply["frame.len"][0], req["frame.len"][0]))
    return bad


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("pcap")
    p.add_argument("reflector", nargs="+")
    p.add_argument("--replies", type=int, required=True)
    p.add_argument("--port", type=int, default=862)
    a = p.parse_args()
    reqs, replies = {}, []
    for pkt in packets(a.pcap, a.port):
        src = pkt.get("ip.src", pkt.get("ipv6.src"))[0]
        if src in a.reflector:
            replies.append(pkt)
        else:
            reqs[pkt[F + "seq_number"][0]] = pkt
    failed = 0
    for r in replies:
        seq = r[F + "seq_number"][0]
        bad = check(r, reqs[seq]) if seq in reqs else ["no request with this Sequence Number"]
        print("seq %s: %s" % (seq, "; ".join(bad) if bad else "ok (twamp.test)"))
        failed += bool(bad)
    if len(replies) != a.replies:
        print("%d replies from %s decoded, expected %d" %
              (len(replies), " ".join(a.reflector), a.replies))
        failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
