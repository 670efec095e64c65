#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A STAMP Session-Reflector (RFC 8762, RFC 8972) in user space.

Written from the RFCs' text for the tests, sharing nothing with xdpong:
the reflector `xdpong probe` is measured against when it is not xdpong's
XDP program. Run inside the reflector's network namespace:

    stamp_reflector.py [--port 862] [--family 4|6] [--log FILE] [--synced]
                       [--hold SECONDS] [--drop SEQ,...] [--dup SEQ,...]
                       [--swap SEQ,...]

Stateless mode (RFC 8762 4.3): each unauthenticated test packet of 44
bytes or more (4.2.1) is answered by the Session-Reflector packet of
4.3.1 (RFC 8972 3), as long as the request:
  - Sequence Number: the request's (stateless);
  - Timestamp: T3, when the reply is sent; Receive Timestamp: T2, when
    the request was read (NTP 64-bit, the real time clock);
  - Error Estimate: S set only with --synced, Z 0, multiplier 1;
  - SSID, the sender's Sequence Number, Timestamp and Error Estimate
    copied; Ses-Sender TTL (octet 40): the request's TTL or hop limit;
    every MBZ octet zero.
--hold SECONDS: T3 that long after T2 (a reflector slow to answer: the
prober must take it out of the RTT).
--log FILE: a line per request read, "SEQ TTL TOS": its sender's Sequence
Number, the TTL or hop limit and the TOS or traffic class it came with, in
the order read (what a test sets against the prober's count).
--drop, --dup, --swap: faults of the reflector's own, by the sender's
Sequence Number: not answered, answered twice, or answered only after the
next request's answer (reordered).
Prints "ready PORT" once listening; runs until killed.
"""
import argparse
import socket
import struct
import sys
import time

NTP_UNIX = 2208988800  # RFC 5905: seconds from 1900 to 1970
BASE = 44  # RFC 8762 4.2.1
IP_RECVTTL = getattr(socket, "IP_RECVTTL", 12)
IP_TTL = getattr(socket, "IP_TTL", 2)
IPV6_RECVHOPLIMIT = getattr(socket, "IPV6_RECVHOPLIMIT", 51)
IPV6_HOPLIMIT = getattr(socket, "IPV6_HOPLIMIT", 52)
IP_RECVTOS = getattr(socket, "IP_RECVTOS", 13)
IP_TOS = getattr(socket, "IP_TOS", 1)
IPV6_RECVTCLASS = getattr(socket, "IPV6_RECVTCLASS", 66)
IPV6_TCLASS = getattr(socket, "IPV6_TCLASS", 67)
TTLS = ((socket.IPPROTO_IP, IP_TTL), (socket.IPPROTO_IPV6, IPV6_HOPLIMIT))
TOSES = ((socket.IPPROTO_IP, IP_TOS), (socket.IPPROTO_IPV6, IPV6_TCLASS))


def ntp(t):
    """The NTP 64-bit timestamp of Unix time t (float seconds)."""
    sec = int(t)
    return ((sec + NTP_UNIX) & 0xFFFFFFFF) << 32 | int((t - sec) * 2**32)


def cmsg_int(ancillary, kinds):
    for level, kind, data in ancillary:
        if (level, kind) in kinds:
            return struct.unpack("i", data[:4])[0] if len(data) >= 4 else data[0]
    return 0


def seqs(text):
    return {int(x) for x in text.split(",") if x} if text else set()


def reply(req, t2, ttl, errest, hold):
    """RFC 8762 4.3.1 with RFC 8972 3's SSID."""
    seq, ts, err, ssid = struct.unpack_from("!IQHH", req)
    if hold:
        time.sleep(hold)
    t3 = time.time()
    head = struct.pack("!IQHHQIQHHB3x", seq, ntp(t3), errest, ssid, ntp(t2), seq, ts, err, 0,
                       ttl & 0xFF)
    return head + bytes(len(req) - len(head))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=862)
    ap.add_argument("--family", choices=("4", "6"), default="6")
    ap.add_argument("--log")
    ap.add_argument("--synced", action="store_true")
    ap.add_argument("--hold", type=float, default=0)
    ap.add_argument("--drop", type=seqs, default=set())
    ap.add_argument("--dup", type=seqs, default=set())
    ap.add_argument("--swap", type=seqs, default=set())
    a = ap.parse_args()
    fam = socket.AF_INET if a.family == "4" else socket.AF_INET6
    s = socket.socket(fam, socket.SOCK_DGRAM)
    if fam == socket.AF_INET:
        s.setsockopt(socket.IPPROTO_IP, IP_RECVTTL, 1)
        s.setsockopt(socket.IPPROTO_IP, IP_RECVTOS, 1)
    else:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        s.setsockopt(socket.IPPROTO_IPV6, IPV6_RECVHOPLIMIT, 1)
        s.setsockopt(socket.IPPROTO_IPV6, IPV6_RECVTCLASS, 1)
    s.bind(("0.0.0.0" if fam == socket.AF_INET else "::", a.port))
    log = open(a.log, "a", buffering=1) if a.log else None
    errest = (0x8000 if a.synced else 0) | 1  # RFC 4656 4.1.2: S, Z 0, scale 0, multiplier 1
    print("ready %d" % a.port, flush=True)
    held = None
    while True:
        req, anc, _, peer = s.recvmsg(65535, 256)
        t2 = time.time()
        if len(req) < BASE:
            continue
        seq, ttl = struct.unpack_from("!I", req)[0], cmsg_int(anc, TTLS)
        if log:
            log.write("%d %d %d\n" % (seq, ttl, cmsg_int(anc, TOSES)))
        if seq in a.drop:
            continue
        out = reply(req, t2, ttl, errest, a.hold)
        for _ in range(2 if seq in a.dup else 1):
            if seq in a.swap:
                held = (out, peer)
                break
            s.sendto(out, peer)
        else:
            if held:
                s.sendto(*held)
                held = None


if __name__ == "__main__":
    sys.exit(main())
