#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Send ICMP or ICMPv6 echo requests and check the replies byte by byte.

Run inside the pinger's network namespace:

    echo_check.py IFACE DST SIZE [--family 4|6] [--count N] [--exact]

Each request carries SIZE bytes of seeded pseudo-random payload and is sent
through a raw IP socket (the kernel adds the IP header, as ping does). An
AF_PACKET socket on IFACE captures both the request as it leaves and the
reply as it arrives. Every reply must be an echo reply to the request's id
and sequence, from the address pinged to ours, with the payload unchanged,
and with IPv4 header and ICMP/ICMPv6 checksums that verify with the RFC 1071
routine below (written for this test, independent of the code under test).

--exact: the reply must also be the one xdpong builds, whole frame: the
request with the MAC and IP addresses swapped, TTL/hop limit 64, type 0/129
and the checksums recomputed from scratch; everything else (IP id, TOS,
flags, flow label) as sent. A kernel reply differs (its own IP id, and so
on), so this tells XDP's answer from the kernel's.

Exit status 0 if every request got a correct reply, 1 otherwise. One line
per request on stdout.
"""
import argparse
import random
import select
import socket
import struct
import sys
import time

ETH_P_ALL = 0x0003
PACKET_HOST = 0
PACKET_OUTGOING = 4


def csum(data):
    """RFC 1071 one's complement sum of data, folded and complemented."""
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def icmp_sum_ok(family, ip, icmp):
    """True if the ICMP (IPv4) or ICMPv6 (with pseudo-header) message sums to 0."""
    if family == 4:
        return csum(icmp) == 0
    pseudo = ip[8:40] + struct.pack("!IxxxB", len(icmp), 58)  # RFC 8200 8.1
    return csum(pseudo + icmp) == 0


def parse(frame, family):
    """(ip header, icmp message) of an unfragmented echo frame, else None."""
    if len(frame) < 14:
        return None
    ethertype = struct.unpack("!H", frame[12:14])[0]
    if family == 4 and ethertype == 0x0800:
        ip = frame[14:]
        if len(ip) < 20 or ip[0] >> 4 != 4 or ip[9] != 1:
            return None
        hl = (ip[0] & 15) * 4
        tot = struct.unpack("!H", ip[2:4])[0]
        if struct.unpack("!H", ip[6:8])[0] & 0x3FFF or tot > len(ip):
            return None
        return ip[:hl], ip[hl:tot]
    if family == 6 and ethertype == 0x86DD:
        ip = frame[14:]
        if len(ip) < 40 or ip[0] >> 4 != 6 or ip[6] != 58:
            return None
        plen = struct.unpack("!H", ip[4:6])[0]
        if 40 + plen > len(ip):
            return None
        return ip[:40], ip[40:40 + plen]
    return None


def reference_reply(frame, family):
    """The reply xdpong must send for request frame: a new bytes object."""
    r = bytearray(frame)
    r[0:6], r[6:12] = frame[6:12], frame[0:6]
    ip = 14
    if family == 4:
        hl = (r[ip] & 15) * 4
        r[ip + 12:ip + 16], r[ip + 16:ip + 20] = frame[ip + 16:ip + 20], frame[ip + 12:ip + 16]
        r[ip + 8] = 64
        r[ip + 10:ip + 12] = b"\0\0"
        r[ip + 10:ip + 12] = struct.pack("!H", csum(bytes(r[ip:ip + hl])))
        tot = struct.unpack("!H", frame[ip + 2:ip + 4])[0]
        icmp = ip + hl
        r[icmp] = 0
        r[icmp + 2:icmp + 4] = b"\0\0"
        r[icmp + 2:icmp + 4] = struct.pack("!H", csum(bytes(r[icmp:ip + tot])))
    else:
        r[ip + 8:ip + 24], r[ip + 24:ip + 40] = frame[ip + 24:ip + 40], frame[ip + 8:ip + 24]
        r[ip + 7] = 64
        plen = struct.unpack("!H", frame[ip + 4:ip + 6])[0]
        icmp = ip + 40
        r[icmp] = 129
        r[icmp + 2:icmp + 4] = b"\0\0"
        pseudo = bytes(r[ip + 8:ip + 40]) + struct.pack("!IxxxB", plen, 58)
        r[icmp + 2:icmp + 4] = struct.pack("!H", csum(pseudo + bytes(r[icmp:icmp + plen])))
    return bytes(r)


def check_reply(family, req, rep, payload, exact):
    """Why reply frame rep is wrong for request frame req, or None."""
    rq, rp = parse(req, family), parse(rep, family)
    if not rq or not rp:
        return "not an unfragmented ICMP frame"
    (qip, qicmp), (pip, picmp) = rq, rp
    want_type = 0 if family == 4 else 129
    if picmp[0] != want_type or picmp[1] != qicmp[1]:
        return "type/code %d/%d, want %d/%d" % (picmp[0], picmp[1], want_type, qicmp[1])
    if picmp[4:8] != qicmp[4:8]:
        return "id/sequence differ"
    if picmp[8:] != payload:
        diff = next(i for i in range(min(len(picmp) - 8, len(payload)))
                    if picmp[8 + i] != payload[i]) if len(picmp) - 8 == len(payload) else -1
        return "payload differs (%d bytes, want %d; first difference at %d)" % (
            len(picmp) - 8, len(payload), diff)
    if family == 4:
        if csum(pip) != 0:
            return "IPv4 header checksum wrong"
        if pip[12:16] != qip[16:20] or pip[16:20] != qip[12:16]:
            return "addresses not swapped"
    elif pip[8:24] != qip[24:40] or pip[24:40] != qip[8:24]:
        return "addresses not swapped"
    if not icmp_sum_ok(family, pip, picmp):
        return "ICMP checksum wrong"
    if rep[0:6] != req[6:12] or rep[6:12] != req[0:6]:
        return "MAC addresses not swapped"
    if exact:
        want = reference_reply(req, family)
        if rep != want:
            first = next((i for i in range(min(len(rep), len(want))) if rep[i] != want[i]),
                         min(len(rep), len(want)))
            return "not xdpong's reply: %d bytes, want %d; first difference at byte %d" % (
                len(rep), len(want), first)
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("iface")
    ap.add_argument("dst")
    ap.add_argument("size", type=int, help="ICMP payload bytes (ping -s)")
    ap.add_argument("--family", type=int, choices=(4, 6), default=4)
    ap.add_argument("--count", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=2.0, help="seconds per reply")
    ap.add_argument("--exact", action="store_true")
    a = ap.parse_args()

    cap = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    cap.bind((a.iface, 0))
    cap.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    if a.family == 4:
        tx = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    else:
        tx = socket.socket(socket.AF_INET6, socket.SOCK_RAW, socket.IPPROTO_ICMPV6)
    rng = random.Random(a.size * 1000 + a.family)
    ident = rng.randrange(1, 0xFFFF)
    failures = 0
    for seq in range(1, a.count + 1):
        payload = bytes(rng.randrange(256) for _ in range(a.size))
        hdr = struct.pack("!BBHHH", 8 if a.family == 4 else 128, 0, 0, ident, seq)
        msg = hdr + payload
        if a.family == 4:  # ICMPv6 raw sockets get their checksum from the kernel
            msg = msg[:2] + struct.pack("!H", csum(msg)) + msg[4:]
        tx.sendto(msg, (a.dst, 0))
        req = rep = None
        deadline = time.monotonic() + a.timeout
        while rep is None and time.monotonic() < deadline:
            if not select.select([cap], [], [], max(0.0, deadline - time.monotonic()))[0]:
                break
            frame, addr = cap.recvfrom(65536)
            p = parse(frame, a.family)
            if not p or p[1][4:8] != struct.pack("!HH", ident, seq):
                continue
            if addr[2] == PACKET_OUTGOING and p[1][0] == hdr[0]:
                req = frame
            elif addr[2] == PACKET_HOST and p[1][0] != hdr[0] and req is not None:
                rep = frame
        if rep is None:
            why = "no reply within %.1f s" % a.timeout if req else "request not seen leaving"
        else:
            why = check_reply(a.family, req, rep, payload, a.exact)
        if why:
            failures += 1
            print("FAIL IPv%d %d-byte payload seq %d: %s" % (a.family, a.size, seq, why))
        else:
            print("ok   IPv%d %d-byte payload seq %d: %d-byte reply%s" % (
                a.family, a.size, seq, len(rep), ", xdpong's exactly" if a.exact else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
