#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""`symprof --addr2line` as a server child, the way Go's pprof runs
addr2line: one process, an address written to its stdin, its answer read
back before the next address is written. addr2line answers each address at
once (it flushes); symprof must too, not wait for more input:

    addr2line-pipe.py SYMPROF FILE

For 200 addresses of FILE's .text, one at a time, with `-a -f -i -C`:
each answer must come within 10 seconds and equal addr2line's answer for
the same address asked the same way. Then the same addresses all at once
(a batch) must give the same bytes."""
import os
import random
import re
import select
import subprocess
import sys
import time

symprof, path = sys.argv[1], sys.argv[2]
lo = size = None
for line in subprocess.run(["readelf", "-SW", path], capture_output=True,
                           text=True).stdout.splitlines():
    m = re.match(r"\s*\[\s*\d+\]\s+\.text\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", line)
    if m:
        lo, size = int(m.group(1), 16), int(m.group(2), 16)
if lo is None:
    sys.exit("FAIL: no .text in %s" % path)
rng = random.Random(7)
addrs = ["%#x" % (lo + rng.randrange(size)) for _ in range(200)]
opts = ["-a", "-f", "-i", "-C", "-e", path]


def converse(cmd):
    """Each address's answer, read back before the next is written. The
    answer ends where the next address's answer starts: a sentinel address
    (0) is written after each one, and its answer (`0x...0`, then `??`,
    `??:0`) is read up to."""
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    fd = p.stdout.fileno()
    out, pending = [], b""
    for a in addrs:
        p.stdin.write(("%s\n0\n" % a).encode())
        p.stdin.flush()
        deadline = time.time() + 10
        while not re.search(rb"0x0+\n\?\?\n\?\?:0\n$", pending):
            left = deadline - time.time()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                p.kill()
                sys.exit("FAIL: %s: no answer for %s within 10 s (it waits for more input)"
                         % (cmd[0], a))
            chunk = os.read(fd, 65536)
            if not chunk:
                sys.exit("FAIL: %s ended early" % cmd[0])
            pending += chunk
        out.append(pending)
        pending = b""
    p.stdin.close()
    p.wait()
    return b"".join(out)


want = converse(["addr2line"] + opts)
got = converse([symprof, "--addr2line"] + opts)
if want != got:
    sys.exit("FAIL: answers differ from addr2line's, one address at a time")
batch = subprocess.run([symprof, "--addr2line"] + opts, capture_output=True,
                       input="".join("%s\n0\n" % a for a in addrs).encode()).stdout
if batch != got:
    sys.exit("FAIL: answers differ between one at a time and all at once")
print("%s: %d addresses answered one at a time, as addr2line does" % (path, len(addrs)))
