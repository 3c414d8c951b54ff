#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""`symprof --addr2line` prints what `addr2line -f -i -C` prints, byte for
byte, for the addresses of a file that addr2line answers differently:

    addr2line-check.py SYMPROF FILE...

For each file: every symbol's address (code and data: a variable that DWARF
describes gets its DW_AT_decl_file:DW_AT_decl_line at its very address),
the next byte, and 400 addresses spread over each allocated section, asked
of one addr2line process and of one symprof, the same list. Then, for the
first file, input cut as addr2line's fgets(buf, 100) cuts it: lines of 98
to 101 and of 250 characters, empty lines, CRLF, symbols, no newline at the
end."""
import random
import re
import subprocess
import sys

symprof, files = sys.argv[1], sys.argv[2:]
fails = 0
first_addrs = []
for path in files:
    addrs = set()
    for line in subprocess.run(["nm", "--defined-only", path], capture_output=True,
                               text=True).stdout.splitlines():
        p = line.split()
        if len(p) >= 3:
            a = int(p[0], 16)
            addrs |= {a, a + 1}
    rng = random.Random(path.rsplit("/", 1)[-1])
    for line in subprocess.run(["readelf", "-SW", path], capture_output=True,
                               text=True).stdout.splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+\S+\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)"
                     r"\s+\S+\s+(\S*A\S*)", line)
        if m and int(m.group(1), 16) and int(m.group(2), 16):
            lo, size = int(m.group(1), 16), int(m.group(2), 16)
            addrs |= {lo + rng.randrange(size) for _ in range(400)}
    args = ["%#x" % a for a in sorted(addrs)]
    if path == files[0]:
        first_addrs = sorted(addrs)
    want = subprocess.run(["addr2line", "-f", "-i", "-C", "-e", path], input="\n".join(args),
                          capture_output=True, text=True).stdout
    got = subprocess.run([symprof, "--addr2line", "-e", path], input="\n".join(args),
                         capture_output=True, text=True).stdout
    if want != got:
        fails += 1
        w, g = want.splitlines(), got.splitlines()
        k = next((i for i in range(min(len(w), len(g))) if w[i] != g[i]), min(len(w), len(g)))
        print("FAIL: %s: symprof and addr2line differ at output line %d: %r vs %r" %
              (path, k + 1, g[k] if k < len(g) else None, w[k] if k < len(w) else None),
              file=sys.stderr)
    else:
        print("%s: %d addresses agree" % (path, len(args)))

def awkward_input(addr):
    """Lines that fgets(buf, 100) splits or keeps whole, as stdin."""
    a = "%#x" % addr
    lines = [a, "", a + "\r", "main", "main+0x4"]
    for width in (98, 99, 100, 101, 250):
        lines.append(" " * (width - len(a)) + a)  # the address in the last chunk
        lines.append(a + " " * (width - len(a)))  # the address in the first
    lines += ["0x" + "0" * 120 + a[2:], a + "1" * 97 + a, a]
    return "\n".join(lines)  # and no newline at the end


if files and first_addrs:
    text = awkward_input(first_addrs[len(first_addrs) // 2])
    want = subprocess.run(["addr2line", "-f", "-i", "-C", "-e", files[0]], input=text,
                          capture_output=True, text=True).stdout
    got = subprocess.run([symprof, "--addr2line", "-e", files[0]], input=text,
                         capture_output=True, text=True).stdout
    if want != got:
        fails += 1
        print("FAIL: %s: input lines cut as fgets cuts them: symprof printed %d lines, "
              "addr2line %d" % (files[0], len(got.splitlines()), len(want.splitlines())),
              file=sys.stderr)
    else:
        print("%s: %d lines of awkward input agree" % (files[0], len(want.splitlines())))
sys.exit(1 if fails else 0)
