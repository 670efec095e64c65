#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A STAMP Session-Sender (RFC 8762, RFC 8972) that checks every reply.

Written from the RFCs' text for the tests, sharing nothing with the
program under test. Run inside the sender's network namespace:

    stamp_sender.py DST [--port 862] [--family 4|6] [--count N] [--ttl T]
                    [--size BYTES] [--tlvs [--truncated] [--pads N]] [--tos TOS]
                    [--bad-csum] [--expect reply|none|refused] [--no-s]

Each test packet is the unauthenticated Session-Sender packet of RFC 8762
4.2.1 with RFC 8972 3's SSID: Sequence Number, Timestamp (T1, NTP 64-bit),
Error Estimate, SSID, then zeros up to 44 bytes (or --size bytes), sent
with IP TTL / hop limit T from a UDP socket connected to DST.

--expect reply (the default): every reply must be the Session-Reflector
packet of RFC 8762 4.3.1 (RFC 8972 3), stateless mode:
  - as long as the request, from DST's port to ours;
  - Sequence Number: the request's (stateless mode, RFC 8762 4.3);
  - T1 - 1 ms <= T2 <= T3 <= T4 + 1 ms on this host's real time clock,
    T3 - T2 within T4 - T1 (T4: when the reply was read), and the median
    T3 - T2 of the run under 1 ms;
  - the reflector's Error Estimate: Z 0 (NTP format), a multiplier that is
    not 0 (RFC 4656 4.1.2), S set exactly when the kernel's clock is
    synchronised (adjtimex), or never with --no-s (a reflector that
    nothing keeps in step must not claim it);
  - SSID, and the sender's Sequence Number, Timestamp and Error Estimate
    copied; the MBZ octets zero; byte 40 the TTL the request arrived with
    (T: no router between);
  - the reply's own TTL / hop limit 64 (xdpong's; the kernel's would be
    the sysctl's), read from the socket's control messages.
  A reply with a wrong UDP checksum never reaches the socket: it fails as
  a missing reply. (The sender's interface must compute its checksums:
  one left to offload is incomplete on the wire and not reflected.)
With --tlvs, RFC 8972 4's TLVs follow the base packet, U set on each:
Extra Padding (random bytes), Timestamp Information, Class of Service
(DSCP1 = 46) and Location (a type the reflector need not know), then
--size's zero padding if any. The reply's TLVs must be:
  - Extra Padding as sent, U cleared; Location as sent, U still set;
  - Timestamp Information with U cleared and the reflector's clock: sync
    source NTP (1) exactly when its Error Estimate has S, else local
    free-running (5), software local timestamps (2) in and out;
  - Class of Service with U cleared, DSCP1 kept, DSCP2 and ECN what the
    request was sent with (--tos: TOS or traffic class), RP 0, and the
    reply's own DSCP DSCP1 (its ECN as sent), read from the socket;
  - M clear on every one, and every other byte as sent.
--truncated: the last TLV's length runs 4 bytes past the packet; the
reply must have M set on it (U as sent), the walk stopped there.
--pads N: N more Extra Padding TLVs (one random byte each) first.
--expect none: no reply within a second of each request.
--expect refused: the kernel's answer when nothing listens, ICMP port
unreachable (the connected socket's ECONNREFUSED).
--bad-csum: the UDP checksum is off by one (sent through a raw socket).

One line per packet on stdout; exit status 0 if every one went as
expected, 1 otherwise.
"""
import argparse
import ctypes
import random
import socket
import struct
import sys
import time

NTP_UNIX = 2208988800  # seconds from 1900-01-01 to 1970-01-01 (RFC 5905)
BASE = 44  # RFC 8762 4.2.1, 4.3.1: unauthenticated base packet size
TIME_ERROR = 5  # adjtimex(2): the clock is not synchronised
STA_UNSYNC = 0x0040
SENDER_ERR = 0x0102  # an Error Estimate the reflector must copy as sent
IP_RECVTTL = getattr(socket, "IP_RECVTTL", 12)  # Linux's, where Python lacks the name
IP_RECVTOS = getattr(socket, "IP_RECVTOS", 13)
IPV6_RECVTCLASS = getattr(socket, "IPV6_RECVTCLASS", 66)
IPV6_TCLASS = getattr(socket, "IPV6_TCLASS", 67)
# RFC 8972 4 and 5: TLV flags, types, synchronisation sources, methods.
TLV_U, TLV_M = 0x80, 0x40
EXTRA_PADDING, LOCATION, TIMESTAMP_INFO, CLASS_OF_SERVICE = 1, 2, 3, 4
SYNC_NTP, SYNC_FREE_RUNNING, TS_SW_LOCAL = 1, 5, 2
DSCP1 = 46  # what the Class of Service TLV asks the reflector to send with


def ntp(t):
    """The NTP 64-bit timestamp of Unix time t (float seconds)."""
    sec = int(t)
    return ((sec + NTP_UNIX) & 0xFFFFFFFF) << 32 | int((t - sec) * 2**32)


def unix(ts):
    """Unix time (float seconds) of an NTP 64-bit timestamp (era 0)."""
    return (ts >> 32) - NTP_UNIX + (ts & 0xFFFFFFFF) / 2**32


def clock_synchronised():
    """What adjtimex(2) says of the kernel's clock (x86-64, arm64 layout:
    modes, then the longs offset, freq, maxerror, esterror, then status)."""
    libc = ctypes.CDLL(None, use_errno=True)
    buf = ctypes.create_string_buffer(512)
    state = libc.adjtimex(buf)
    status = struct.unpack_from("i", buf, 40)[0]
    return state != TIME_ERROR and not status & STA_UNSYNC


def csum(data):
    """RFC 1071: the one's complement of the one's complement sum. The end-
    around carries (4.1) leave the sum modulo 0xFFFF, a multiple as 0xFFFF."""
    data += bytes(len(data) % 2)
    total = sum(int.from_bytes(data[i:i + 2], "big") for i in range(0, len(data), 2))
    folded = total % 0xFFFF or (0xFFFF if total else 0)
    return ~folded & 0xFFFF


def udp_datagram(fam, src, dst, sport, dport, payload, bad):
    """A UDP header and payload with its checksum (RFC 768; RFC 8200 8.1
    for IPv6's pseudo-header), off by one if bad."""
    length = 8 + len(payload)
    af = socket.AF_INET if fam == 4 else socket.AF_INET6
    pseudo = socket.inet_pton(af, src) + socket.inet_pton(af, dst)
    if fam == 4:
        pseudo += struct.pack("!BBH", 0, socket.IPPROTO_UDP, length)
    else:
        pseudo += struct.pack("!IxxxB", length, socket.IPPROTO_UDP)
    hdr = struct.pack("!HHHH", sport, dport, length, 0)
    c = csum(pseudo + hdr + payload) or 0xFFFF
    if bad:
        c = c + 1 if c < 0xFFFF else 1
    return struct.pack("!HHHH", sport, dport, length, c) + payload


def tlv(kind, value, flags=TLV_U):
    """RFC 8972 4: flags, type, the value's length, the value."""
    return struct.pack("!BBH", flags, kind, len(value)) + value


def tlvs(truncated, pads):
    """The TLVs --tlvs sends; with truncated, the last one's length runs
    4 bytes past the packet."""
    out = b"".join(tlv(EXTRA_PADDING, random.randbytes(1)) for _ in range(pads))
    out += (tlv(EXTRA_PADDING, random.randbytes(7)) + tlv(TIMESTAMP_INFO, bytes(4)) +
           tlv(CLASS_OF_SERVICE, struct.pack("!HH", DSCP1 << 10, 0)) +
           tlv(LOCATION, random.randbytes(12)))
    if truncated:
        out += struct.pack("!BBH", TLV_U, LOCATION, 8) + bytes(4)
    return out


def request(seq, ssid, size, extra):
    """RFC 8762 4.2.1 (RFC 8972 3: SSID in octets 14-15), T1 now, then
    extra (TLVs), then zero padding up to size."""
    t1 = time.time()
    head = struct.pack("!IQHH", seq, ntp(t1), SENDER_ERR, ssid)
    if extra:
        head += bytes(BASE - len(head)) + extra
    return head + bytes(max(size - len(head), 0)), t1


def check_tlvs(r, req, a, rx_tos, synced):
    """The reply's TLVs against the request's (RFC 8972 4, 4.3, 4.4)."""
    bad, at, seen = [], BASE, []
    sync, tos = SYNC_NTP if synced else SYNC_FREE_RUNNING, a.tos
    while at < len(req) and req[at] & TLV_U:
        flags, kind, vlen = struct.unpack_from("!BBH", req, at)
        rflags, rkind, rvlen = struct.unpack_from("!BBH", r, at)
        v, rv = req[at + 4:at + 4 + vlen], r[at + 4:at + 4 + vlen]
        if (rkind, rvlen) != (kind, vlen):
            return bad + ["TLV at %d: type/length %d/%d, sent %d/%d" %
                          (at, rkind, rvlen, kind, vlen)]
        if at + 4 + vlen > len(req):
            if rflags != flags | TLV_M or r[at + 4:] != req[at + 4:]:
                bad.append("TLV past the packet: flags %#x, or its bytes changed" % rflags)
            seen.append("M")
            at = len(req)
            break
        want = {EXTRA_PADDING: v, TIMESTAMP_INFO: bytes((sync, TS_SW_LOCAL, sync, TS_SW_LOCAL)),
                CLASS_OF_SERVICE: struct.pack("!HH", v[0] >> 2 << 10 | (tos >> 2) << 4 |
                                              (tos & 3) << 2, 0)}.get(kind, v)
        known = kind in (EXTRA_PADDING, TIMESTAMP_INFO, CLASS_OF_SERVICE)
        wflags = flags & ~(TLV_U | TLV_M) if known else flags
        if rflags != wflags or rv != want:
            bad.append("TLV type %d: flags %#x value %s, want %#x %s" %
                       (kind, rflags, rv.hex(), wflags, want.hex()))
        if kind == CLASS_OF_SERVICE and rx_tos != (DSCP1 << 2 | (tos & 3)):
            bad.append("reply's TOS/traffic class %s, not DSCP1 %d with ECN %d" %
                       (rx_tos, DSCP1, tos & 3))
        seen.append(kind)
        at += 4 + vlen
    if r[at:] != req[at:]:
        bad.append("bytes after the TLVs changed")
    want_seen = [EXTRA_PADDING] * a.pads + [EXTRA_PADDING, TIMESTAMP_INFO, CLASS_OF_SERVICE,
                                            LOCATION]
    if seen != want_seen + (["M"] if a.truncated else []):
        bad.append("TLVs walked: %s" % seen)
    return bad


def check_reply(r, req, t1, t4, a, anc, synced):
    """Every field of a reflected packet (RFC 8762 4.3.1, RFC 8972 3)."""
    bad, ttl, hops = [], a.ttl, cmsg_int(anc, TTL_CMSGS)
    if len(r) != len(req):
        return ["length %d, sent %d" % (len(r), len(req))]
    seq, t3, err, ssid, t2, sseq, sts, serr, mbz1, sttl = struct.unpack_from(
        "!IQHHQIQHHB", r)
    mbz2 = r[41:44]
    rseq, rts, rerr, rssid = struct.unpack_from("!IQHH", req)
    if seq != rseq:
        bad.append("Sequence Number %d, sent %d" % (seq, rseq))
    if (sseq, sts, serr, ssid) != (rseq, rts, rerr, rssid):
        bad.append("sender's fields not copied: seq %d ts %x err %x ssid %x" %
                   (sseq, sts, serr, ssid))
    if mbz1 or any(mbz2):
        bad.append("MBZ not zero")
    if sttl != ttl:
        bad.append("Ses-Sender TTL %d, sent with %d" % (sttl, ttl))
    if hops != 64:
        bad.append("reply's own TTL/hop limit %s, not xdpong's 64" % hops)
    if err & 0x4000:
        bad.append("Z bit set (PTP format)")
    if not err & 0xFF:
        bad.append("Error Estimate multiplier 0")
    if bool(err & 0x8000) != synced:
        bad.append("S bit %d, the kernel's clock synchronised: %s" % (err >> 15, synced))
    u2, u3 = unix(t2), unix(t3)
    if not t1 - 0.001 <= u2 <= u3 <= t4 + 0.001:
        bad.append("T1 %.6f T2 %.6f T3 %.6f T4 %.6f out of order" % (t1, u2, u3, t4))
    if abs(u2 - t1) > 1:
        bad.append("T2 %.6f more than 1 s from T1 %.6f" % (u2, t1))
    # The residence, a duration on the reflector's clock, is within the
    # round trip; its 1 ms bound is on the run's median (main), which one
    # reply delayed by a preempted or emulated CPU does not move.
    res = (t3 - t2) * 10**9 >> 32
    RESIDENCES.append(res)
    if not 0 <= res <= (t4 - t1) * 1e9 + 1000:
        bad.append("T3 - T2 = %d ns, longer than the round trip %d ns" %
                   (res, (t4 - t1) * 1e9))
    if a.tlvs:
        bad += check_tlvs(r, req, a, cmsg_int(anc, TOS_CMSGS), synced)
    elif r[BASE:] != req[BASE:]:
        bad.append("padding after the base packet changed")
    return bad


def open_sockets(a):
    """The sender's socket, connected, and with --bad-csum a raw one."""
    fam = socket.AF_INET if a.family == 4 else socket.AF_INET6
    s = socket.socket(fam, socket.SOCK_DGRAM)
    if a.family == 4:
        s.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, a.ttl)
        s.setsockopt(socket.IPPROTO_IP, IP_RECVTTL, 1)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, a.tos)
        s.setsockopt(socket.IPPROTO_IP, IP_RECVTOS, 1)
    else:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_UNICAST_HOPS, a.ttl)
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_RECVHOPLIMIT, 1)
        s.setsockopt(socket.IPPROTO_IPV6, IPV6_TCLASS, a.tos)
        s.setsockopt(socket.IPPROTO_IPV6, IPV6_RECVTCLASS, 1)
    s.connect((a.dst, a.port))
    s.settimeout(1)
    raw = None
    if a.bad_csum:
        raw = socket.socket(fam, socket.SOCK_RAW, socket.IPPROTO_UDP)
        if a.family == 4:
            raw.setsockopt(socket.IPPROTO_IP, socket.IP_TTL, a.ttl)
        else:
            raw.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_UNICAST_HOPS, a.ttl)
    return s, raw


TTL_CMSGS = ((socket.IPPROTO_IP, socket.IP_TTL), (socket.IPPROTO_IPV6, socket.IPV6_HOPLIMIT))
TOS_CMSGS = ((socket.IPPROTO_IP, socket.IP_TOS), (socket.IPPROTO_IPV6, IPV6_TCLASS))


def cmsg_int(ancdata, kinds):
    """A received TTL, hop limit, TOS or traffic class (IP_TOS: 1 byte)."""
    for level, kind, data in ancdata:
        if (level, kind) in kinds:
            return data[0] if len(data) == 1 else struct.unpack("i", data[:4])[0]
    return None


def one(a, s, raw, seq, ssid, synced):
    """Send one request; the problems with what came back ([] if none)."""
    req, t1 = request(seq, ssid, a.size, tlvs(a.truncated, a.pads) if a.tlvs else b"")
    if raw:
        src, sport = s.getsockname()[:2]
        raw.sendto(udp_datagram(a.family, src, a.dst, sport, a.port, req, True),
                   (a.dst, 0))
    else:
        s.send(req)
    try:
        r, anc, _, _ = s.recvmsg(2048, 256)
    except socket.timeout:
        return [] if a.expect == "none" else ["no reply"]
    except ConnectionRefusedError:
        return [] if a.expect == "refused" else ["port unreachable"]
    t4 = time.time()
    if a.expect != "reply":
        return ["a reply of %d bytes, expected %s" % (len(r), a.expect)]
    return check_reply(r, req, t1, t4, a, anc, synced)


RESIDENCES = []  # T3 - T2 of every reply, in ns


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dst")
    p.add_argument("--port", type=int, default=862)
    p.add_argument("--family", type=int, choices=(4, 6), default=4)
    p.add_argument("--count", type=int, default=3)
    p.add_argument("--ttl", type=int, default=57)
    p.add_argument("--size", type=int, default=BASE)
    p.add_argument("--tlvs", action="store_true")
    p.add_argument("--truncated", action="store_true")
    p.add_argument("--pads", type=int, default=0)
    p.add_argument("--tos", type=lambda v: int(v, 0), default=0)
    p.add_argument("--bad-csum", action="store_true")
    p.add_argument("--expect", choices=("reply", "none", "refused"), default="reply")
    p.add_argument("--no-s", action="store_true")
    a = p.parse_args()
    s, raw = open_sockets(a)
    synced = clock_synchronised() and not a.no_s
    ssid = random.randrange(1, 0x10000)
    seq0 = random.randrange(0, 2**31)
    failed = 0
    for i in range(a.count):
        bad = one(a, s, raw, seq0 + i, ssid, synced)
        print("seq %d: %s" % (seq0 + i, "; ".join(bad) if bad else "ok (" + a.expect + ")"))
        failed += bool(bad)
        time.sleep(0.05)
    if RESIDENCES:
        med = sorted(RESIDENCES)[len(RESIDENCES) // 2]
        print("T3 - T2: median %d ns of %d replies" % (med, len(RESIDENCES)))
        if med >= 1000000:
            print("the median T3 - T2, %d ns, is not under 1 ms" % med)
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
