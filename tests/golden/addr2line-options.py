#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""`symprof --addr2line OPTIONS` prints what `addr2line OPTIONS` prints, byte
for byte, for each of addr2line's display options and their mixes (-a the
address, -p one line per address, -s base names, -f functions, -i inline
chains, -C demangled):

    addr2line-options.py SYMPROF FILE...

For each file: every code symbol's address and the byte after it, and 300
addresses spread over .text, on stdin, then a few symbol names with and
without an offset, and a name the file lacks (addr2line asks 0 for it,
offset or not); then a few addresses as arguments.
Without any of -a, -f, -i, -p, -s symprof prints what -f -i -C prints
(its documented default), checked too."""
import random
import re
import subprocess
import sys

OPTION_SETS = [["-a"], ["-p"], ["-s"], ["-f"], ["-i"], ["-C"], ["-f", "-C"], ["-i", "-s"],
               ["-a", "-p"], ["-p", "-f"], ["-p", "-f", "-i"], ["-a", "-f", "-i", "-C"],
               ["-a", "-p", "-f", "-i", "-C", "-s"], ["--addresses", "--pretty-print",
               "--functions", "--inlines", "--demangle", "--basenames"]]

symprof, files = sys.argv[1], sys.argv[2:]
fails = 0


def run(cmd, text):
    return subprocess.run(cmd, input=text, capture_output=True, text=True).stdout


for path in files:
    addrs, names = set(), []
    for line in subprocess.run(["nm", "--defined-only", path], capture_output=True,
                               text=True).stdout.splitlines():
        p = line.split()
        if len(p) >= 3 and p[1] in "tTwW":
            a = int(p[0], 16)
            addrs |= {a, a + 1}
            if p[1] == "T" and len(names) < 6 and not re.search(r"[@.$]", p[2]):
                names += [p[2], p[2] + "+0x3"]
    names += ["symprof_no_such_symbol", "symprof_no_such_symbol+0x10"]
    rng = random.Random(path.rsplit("/", 1)[-1])
    for line in subprocess.run(["readelf", "-SW", path], capture_output=True,
                               text=True).stdout.splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+\.text\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)",
                     line)
        if m:
            lo, size = int(m.group(1), 16), int(m.group(2), 16)
            addrs |= {lo + rng.randrange(size) for _ in range(300)}
    args = ["%#x" % a for a in sorted(addrs)] + ["0x0"]
    stdin = "\n".join(args + names) + "\n"
    for opts in OPTION_SETS + [[]]:
        want = run(["addr2line"] + (opts or ["-f", "-i", "-C"]) + ["-e", path], stdin)
        got = run([symprof, "--addr2line"] + opts + ["-e", path], stdin)
        # the same on the command line (a handful of addresses)
        want += run(["addr2line"] + (opts or ["-f", "-i", "-C"]) + ["-e", path] + args[:5], "")
        got += run([symprof, "--addr2line"] + opts + ["-e", path] + args[:5], "")
        if want != got or not want:
            fails += 1
            w, g = want.splitlines(), got.splitlines()
            k = next((i for i in range(min(len(w), len(g))) if w[i] != g[i]),
                     min(len(w), len(g)))
            print("FAIL: %s %s: output line %d: symprof %r, addr2line %r" %
                  (path, " ".join(opts) or "(none)", k + 1, g[k] if k < len(g) else None,
                   w[k] if k < len(w) else None), file=sys.stderr)
    print("%s: %d addresses, %d option sets" % (path, len(args), len(OPTION_SETS) + 1))
sys.exit(1 if fails else 0)
