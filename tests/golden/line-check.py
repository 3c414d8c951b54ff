#!/usr/bin/env python3
"""Checks a line-level report where GNU gprof cannot make one (it aborts on
optimized C++ with "somebody miscounted"), against independent oracles:

    line-check.py SYMPROF DIR EXE PROFILE

- every line row "name (file:line @ addr)" of `-b -l -p -z` names what
  `addr2line -f -C -e EXE addr` (libbfd, gprof's own lookup) names: the
  same function, file and line. One addr2line process per address: libbfd
  may name an address differently once it has answered for others (which
  is why gprof's two passes over .text disagree and it aborts);
- the rows' total time equals the function-level flat profile's total;
- a function's entry row carries all its calls (with -l gprof does not
  take self-recursive calls out: the function's calls + recursive_calls)."""
import json
import re
import subprocess
import sys

symprof, d, exe, prof = sys.argv[1:5]
run = lambda args: subprocess.run([symprof] + args + [exe, prof], cwd=d, check=True,
                                  capture_output=True, text=True).stdout
row = re.compile(r"^ *[0-9.]+ +([0-9.]+) +[0-9.]+ +(?:(\d+) +[0-9.]+ +[0-9.]+ +)?"
                 r"(.*) \((.*):(\d+) @ ([0-9a-f]+)\)$")
fails = []
rows = []
for line in run(["-b", "-l", "-p", "-z"]).splitlines()[5:]:
    m = row.match(line)
    if m:
        rows.append(m.groups())
if not rows:
    fails.append("no line rows")
addrs = [r[5] for r in rows]
for i, r in enumerate(rows):
    a2l = subprocess.run(["addr2line", "-f", "-C", "-e", exe, addrs[i]], cwd=d, check=True,
                         capture_output=True, text=True).stdout.splitlines()
    func, where = a2l[0], a2l[1].split(" (discriminator")[0]
    base = where.rsplit("/", 1)[-1]
    if func != r[2] or base != "%s:%s" % (r[3].rsplit("/", 1)[-1], r[4]):
        fails.append("row @%s: symprof %s %s:%s, addr2line %s %s" % (r[5], r[2], r[3], r[4],
                                                                       func, where))
flat = run(["-b", "-p", "-z"]).splitlines()[5:]
ftotal = max((float(l.split()[1]) for l in flat if l.strip()), default=0.0)
ltotal = max((float(r[0]) for r in rows), default=0.0)
if abs(ftotal - ltotal) > 0.0051:
    fails.append("total %s vs function-level %s" % (ltotal, ftotal))
fcalls = {}
for f in json.loads(run(["--format=json", "-z"]))["functions"]:
    fcalls.setdefault(f["name"], set()).add(f["calls"] + f["recursive_calls"])
for r in rows:
    if r[1] and r[2] in fcalls and int(r[1]) not in fcalls[r[2]]:
        fails.append("%s: entry row has %s calls, function row %s" % (r[2], r[1], fcalls[r[2]]))
for f in fails[:20]:
    print("FAIL:", f, file=sys.stderr)
print("%d rows checked" % len(rows))
sys.exit(1 if fails else 0)
