#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
The clients of tests/prom/abuse.sh, for `xdpong run --metrics-listen`:
two abusers and two well-behaved ones. Each is bounded in time and in
connections, and prints one JSON line of what it saw.

  slow HOST PORT SRC MAX_S
      One connection from SRC that sends a request one byte a second and
      never finishes it (slowloris). Prints "connected" once connected, then
      {"cut_s": seconds from connect to the server closing it (null if it
      did not within MAX_S), "bytes": bytes sent, "answered": whether a
      response came}.

  polite HOST PORT SRC COUNT INTERVAL_S
      A scraper on one kept-alive connection from SRC: COUNT requests for
      /metrics, INTERVAL_S apart. Prints "connected" once connected, then
      {"statuses": [each answer's status, null if none], "max_ms": the
      slowest answer, "reconnected": whether the connection was lost}.

  half HOST PORT SRC PATH
      A whole request for PATH, then the client closes its sending side
      (shutdown SHUT_WR) and reads to the end. Prints {"status", "ms"}.

  flood HOST PORT SRCS COUNT HOLD_S MAX_ATTEMPTS PROBE_SRC PROBE_PATH
      COUNT connections at once from the addresses SRCS (comma-separated):
      every other one from the first, the rest from the others in turn. A
      third stay silent, a third send a partial request, a third trickle
      one more header byte a second. One the server closes is opened
      again, up to MAX_ATTEMPTS connects in all. After HOLD_S every one is
      closed (the abuse stops) and at once PROBE_PATH is fetched from
      PROBE_SRC, with a fresh connection every 0.25 s (a SYN that the full
      accept queue dropped is not left to the kernel's retransmission 1 s
      later), for 1 s at most. Prints {"attempts", "connected" (connects
      that completed), "cut" (closed by the server), "failed",
      "peak_open" (completed and open at once), "pending" (not completed
      at the end), "probe_status" (null: no answer), "probe_ms",
      "probe_tries"}.
"""
import json
import resource
import selectors
import socket
import sys
import time

PARTIAL = b"GET /metrics HTTP/1.1\r\nHost: abuse\r\n"
TRICKLE = b"X-Abuse: " + b"a" * 200


def raise_nofile(need):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (need, max(hard, need)))


def slow(host, port, src, max_s):
    s = socket.create_connection((host, port), timeout=2, source_address=(src, 0))
    t0 = time.monotonic()
    print("connected", flush=True)
    s.setblocking(False)
    req = b"GET /healthz HTTP/1.1\r\nHost: abuse\r\nX-Slow: " + b"s" * 100
    sel = selectors.DefaultSelector()
    sel.register(s, selectors.EVENT_READ)
    sent, cut, answered, next_byte = 0, None, False, t0
    while cut is None and time.monotonic() - t0 < max_s:
        now = time.monotonic()
        if now >= next_byte:
            try:
                s.send(req[sent:sent + 1])
                sent += 1
            except OSError:
                cut = now - t0
                break
            next_byte += 1.0
        if sel.select(timeout=max(0.0, min(next_byte, t0 + max_s) - time.monotonic())):
            try:
                data = s.recv(4096)
            except OSError:
                data = b""
            if data:
                answered = True
            else:
                cut = time.monotonic() - t0
    s.close()
    print(json.dumps({"cut_s": cut, "bytes": sent, "answered": answered}), flush=True)


def read_response(f):
    """One HTTP/1.1 response with a Content-Length from the file f: status."""
    status = int(f.readline().split(b" ", 2)[1])
    length = 0
    while True:
        line = f.readline().strip()
        if not line:
            break
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    f.read(length)
    return status


def polite(host, port, src, count, interval):
    s = socket.create_connection((host, port), timeout=2, source_address=(src, 0))
    print("connected", flush=True)
    f = s.makefile("rb")
    statuses, max_ms, reconnected = [], 0, False
    for i in range(count):
        if i:
            time.sleep(interval)
        t0 = time.monotonic()
        try:
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: polite\r\n\r\n")
            statuses.append(read_response(f))
        except (OSError, ValueError, IndexError):
            statuses.append(None)
            reconnected = True
            break
        max_ms = max(max_ms, round((time.monotonic() - t0) * 1000))
    s.close()
    print(json.dumps({"statuses": statuses, "max_ms": max_ms, "reconnected": reconnected}),
          flush=True)


def half(host, port, src, path):
    t0 = time.monotonic()
    s = socket.create_connection((host, port), timeout=2, source_address=(src, 0))
    s.sendall(("GET %s HTTP/1.1\r\nHost: half\r\n\r\n" % path).encode())
    s.shutdown(socket.SHUT_WR)
    data = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    except OSError:
        pass
    s.close()
    status = int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/") else None
    print(json.dumps({"status": status, "ms": round((time.monotonic() - t0) * 1000)}), flush=True)


def probe(host, port, path, src, within):
    """First answer to GET path within `within` seconds: (status, ms, tries)."""
    t0 = time.monotonic()
    tries = 0
    req = ("GET %s HTTP/1.1\r\nHost: abuse\r\nConnection: close\r\n\r\n" % path).encode()
    while time.monotonic() - t0 < within:
        tries += 1
        left = within - (time.monotonic() - t0)
        try:
            s = socket.create_connection((host, port), timeout=max(0.01, min(0.25, left)),
                                         source_address=(src, 0))
        except OSError:
            continue
        try:
            s.settimeout(max(0.01, within - (time.monotonic() - t0)))
            s.sendall(req)
            data = b""
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
            status = int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/") else None
        except (OSError, ValueError, IndexError):
            status = None
        finally:
            s.close()
        if status is not None:
            return status, round((time.monotonic() - t0) * 1000), tries
    return None, round((time.monotonic() - t0) * 1000), tries


def flood(host, port, srcs, count, hold_s, max_attempts, probe_src, probe_path):
    raise_nofile(count + 64)
    sel = selectors.DefaultSelector()
    st = {"attempts": 0, "connected": 0, "cut": 0, "failed": 0, "peak_open": 0}
    conns = {}  # socket -> [index (its source, its kind: i % 3), connected, bytes trickled]

    def open_one(i):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        # Half from the first address, over its cap of 8; the rest in turn.
        if i % 2 == 0 or len(srcs) == 1:
            s.bind((srcs[0], 0))
        else:
            s.bind((srcs[1 + i // 2 % (len(srcs) - 1)], 0))
        s.connect_ex((host, port))
        conns[s] = [i, False, 0]
        sel.register(s, selectors.EVENT_WRITE)
        st["attempts"] += 1

    def drop(s, what):
        sel.unregister(s)
        i = conns.pop(s)[0]
        s.close()
        st[what] += 1
        if st["attempts"] < max_attempts:
            open_one(i)

    for i in range(count):
        open_one(i)
    end = time.monotonic() + hold_s
    next_trickle = time.monotonic() + 1.0
    while time.monotonic() < end:
        timeout = max(0.0, min(end, next_trickle) - time.monotonic())
        for key, _ in sel.select(timeout=timeout):
            s = key.fileobj
            c = conns[s]
            if not c[1]:
                if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR):
                    drop(s, "failed")
                    continue
                c[1] = True
                st["connected"] += 1
                sel.modify(s, selectors.EVENT_READ)
                if c[0] % 3:
                    try:
                        s.send(PARTIAL)
                    except OSError:
                        pass
                continue
            try:
                data = s.recv(4096)
            except OSError:
                data = b""
            if not data:
                drop(s, "cut")
        if time.monotonic() >= next_trickle:
            next_trickle += 1.0
            for s, c in conns.items():
                if c[1] and c[0] % 3 == 2 and c[2] < len(TRICKLE):
                    try:
                        s.send(TRICKLE[c[2]:c[2] + 1])
                        c[2] += 1
                    except OSError:
                        pass
        st["peak_open"] = max(st["peak_open"], sum(1 for c in conns.values() if c[1]))
    st["pending"] = sum(1 for c in conns.values() if not c[1])
    for s in list(conns):
        s.close()
    # The abuse has stopped: the endpoint must answer within 1 s.
    st["probe_status"], st["probe_ms"], st["probe_tries"] = probe(host, port, probe_path,
                                                                  probe_src, 1.0)
    print(json.dumps(st), flush=True)


def main(argv):
    if len(argv) == 6 and argv[1] == "slow":
        slow(argv[2], int(argv[3]), argv[4], float(argv[5]))
    elif len(argv) == 7 and argv[1] == "polite":
        polite(argv[2], int(argv[3]), argv[4], int(argv[5]), float(argv[6]))
    elif len(argv) == 6 and argv[1] == "half":
        half(argv[2], int(argv[3]), argv[4], argv[5])
    elif len(argv) == 10 and argv[1] == "flood":
        flood(argv[2], int(argv[3]), argv[4].split(","), int(argv[5]), float(argv[6]),
              int(argv[7]), argv[8], argv[9])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
