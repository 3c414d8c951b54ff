#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""An index cache file whose line records were damaged after it was
written (symbolize/dwcache.c: they are checked by blocks, as they are
read), through the command line:

    cache-damage.py SYMPROF FIXTURES

- a run that reads every row (-b -l, --addr2line) checks them all as the
  index loads: the damaged index is refused, the output is the one
  without a cache, the exit status 0, and the index is written again;
- a run that reads rows as its lookups reach them (a gperftools profile
  with --lines) fails: status 1, one line on stderr naming the index and
  the offset, the index removed; the next run prints the report without
  a cache and writes the index again.

In each case the damage is a changed line number in every record, so
that any row read is a damaged one.
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

symprof, fixtures = sys.argv[1], sys.argv[2]
failures = []


def run(args, cwd, cache=None, stdin=None):
    env = dict(os.environ)
    for k in ("SYMPROF_CACHE_DIR", "XDG_CACHE_HOME", "SYMPROF_NO_CACHE"):
        env.pop(k, None)
    if cache is None:
        env["SYMPROF_NO_CACHE"] = "1"
    else:
        args = ["--cache-dir=" + cache] + args
    r = subprocess.run([symprof] + args, cwd=cwd, env=env, input=stdin,
                       capture_output=True)
    return r.returncode, r.stdout, r.stderr.decode(errors="replace")


def read(path):
    return open(path, "rb").read() if os.path.exists(path) else None


def build_id(path):
    out = subprocess.run(["readelf", "-n", path], capture_output=True,
                         text=True).stdout
    for line in out.splitlines():
        if "Build ID:" in line:
            return line.split("Build ID:")[1].strip()
    sys.exit("FAIL: no build-id in %s (bad test)" % path)


def index_of(cache, exe, suffix):
    bid = build_id(exe)
    return os.path.join(cache, bid[:2], bid[2:] + suffix)


def damage(path):
    """Every line record's line number changed; the checked part intact."""
    data = bytearray(open(path, "rb").read())
    (records_len,) = struct.unpack_from("<Q", data, len(data) - 8)
    start = len(data) - 8 - records_len
    if records_len == 0 or records_len % 18:
        sys.exit("FAIL: %s: %d bytes of line records (bad test)" %
                 (path, records_len))
    for at in range(start + 4, len(data) - 8, 18):
        data[at] ^= 0x20
    open(path, "wb").write(data)
    return bytes(data)


def check(name, cond):
    if not cond:
        failures.append(name)
        print("FAIL:", name, file=sys.stderr)


def whole_reader(name, cwd, exe, args, stdin, suffix):
    tmp = tempfile.mkdtemp()
    try:
        cache = os.path.join(tmp, "c")
        rc, want, _ = run(args, cwd, stdin=stdin)
        check(name + ": reference run", rc == 0 and want)
        rc, out, _ = run(args, cwd, cache, stdin)
        index = index_of(cache, os.path.join(cwd, exe), suffix)
        check(name + ": index written", os.path.exists(index))
        good = read(index)
        damage(index)
        rc, out, err = run(args, cwd, cache, stdin)
        check(name + ": damaged index: status 0, no message", rc == 0 and not err)
        check(name + ": damaged index: the output without a cache", out == want)
        check(name + ": damaged index written again", read(index) == good)
    finally:
        shutil.rmtree(tmp)


def lazy_reader(name, cwd, exe, args, suffix):
    tmp = tempfile.mkdtemp()
    try:
        cache = os.path.join(tmp, "c")
        rc, want, _ = run(args, cwd)
        check(name + ": reference run", rc == 0 and want)
        rc, out, _ = run(args, cwd, cache)
        check(name + ": through a cache", rc == 0 and out == want)
        index = index_of(cache, os.path.join(cwd, exe), suffix)
        check(name + ": index written", os.path.exists(index))
        good = read(index)
        damage(index)
        rc, out, err = run(args, cwd, cache)
        lines = err.splitlines()
        check(name + ": damaged rows: status 1", rc == 1)
        check(name + ": damaged rows: one line naming the index and the offset",
              len(lines) == 1 and index in lines[0] and "offset" in lines[0])
        check(name + ": damaged index removed", not os.path.exists(index))
        rc, out, err = run(args, cwd, cache)
        check(name + ": the next run: the report", rc == 0 and out == want)
        check(name + ": the next run: the index written again", read(index) == good)
    finally:
        shutil.rmtree(tmp)


gmon = os.path.join(fixtures, "gmon", "prog")
whole_reader("-b -l", gmon, "prog", ["-b", "-l", "prog", "gmon.out.run1"], None,
             ".idx")
text = subprocess.run(["readelf", "-SW", os.path.join(gmon, "prog")],
                      capture_output=True, text=True).stdout
lo = size = None
for line in text.splitlines():
    f = line.replace("[", " ").replace("]", " ").split()
    if len(f) > 5 and f[1] == ".text":
        lo, size = int(f[3], 16), int(f[5], 16)
addrs = "".join("0x%x\n" % a for a in range(lo, lo + size, 3)).encode()
whole_reader("--addr2line", gmon, "prog",
             ["--addr2line", "-f", "-i", "-C", "-e", "prog"], addrs, ".idx")
lazy_reader("--format=pprof --lines", os.path.join(fixtures, "gperf", "cxx"), "cxx",
            ["--format=pprof", "--lines", "cxx", "cxx.prof"], ".idx")
if failures:
    sys.exit(1)
print("damaged line records: refused at load, or the run failed and the index removed")
