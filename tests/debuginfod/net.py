#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Network helpers for tests/debuginfod/check.sh, on 127.0.0.1 only.

  net.py free-port              a TCP port nothing listens on
  net.py wait SECONDS URL...    until every URL answers 200 (exit 1 if not)
  net.py hang PORTFILE          a server that accepts connections and never
                                answers; writes its port to PORTFILE
  net.py blackhole PORTFILE     a port whose connections never open: its
                                queue is full and it accepts nothing (as a
                                server behind a firewall that drops packets)
"""
import os
import socket
import sys
import time
import urllib.error
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        print(s.getsockname()[1])


def wait(seconds, urls):
    deadline = time.monotonic() + float(seconds)
    pending = list(urls)
    while pending and time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(pending[0], timeout=2) as r:
                if r.status == 200:
                    pending.pop(0)
                    continue
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.2)
    for url in pending:
        print("not served in %s s: %s" % (seconds, url), file=sys.stderr)
    return 1 if pending else 0


def write_port(portfile, port):
    with open(portfile + ".tmp", "w") as f:
        f.write("%d\n" % port)
    # written whole, then renamed: the reader never sees half a number
    os.rename(portfile + ".tmp", portfile)


def hang(portfile):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    write_port(portfile, s.getsockname()[1])
    held = []
    while True:
        c, _ = s.accept()
        held.append(c)


def blackhole(portfile):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(0)
    port = s.getsockname()[1]
    # fill the accept queue; the kernel then drops new connections' SYNs
    held = []
    for _ in range(4):
        c = socket.socket()
        c.setblocking(False)
        try:
            c.connect(("127.0.0.1", port))
        except BlockingIOError:
            pass
        held.append(c)
    time.sleep(0.5)
    write_port(portfile, port)
    while True:
        time.sleep(3600)


def main():
    cmd = sys.argv[1]
    if cmd == "free-port":
        free_port()
        return 0
    if cmd == "wait":
        return wait(sys.argv[2], sys.argv[3:])
    if cmd == "hang":
        hang(sys.argv[2])
    if cmd == "blackhole":
        blackhole(sys.argv[2])
    return 2


if __name__ == "__main__":
    sys.exit(main())
