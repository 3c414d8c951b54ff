#!/usr/bin/env python3
"""Checks what --precise promises, on real profiles:

    precise-check.py SYMPROF DIR EXE PROFILE

- the flat profile's percentages add up to 100 (each row is rounded to
  0.01, so within 0.01 per row), samples on no symbol included;
- no function keeps a GCC clone suffix (.constprop, .isra, .part, .cold);
- with -l the call graph (and its index) is the function-level one;
- each "+/-" is the square root of the row's samples, in seconds;
- in --format=json (-z) the functions' "self" and "unattributed" add up to
  "total", and "unattributed" is the flat profile's <unattributed> row
  (0 without one)."""
import json
import math
import re
import subprocess
import sys

symprof, d, exe, prof = sys.argv[1:5]
run = lambda args: subprocess.run([symprof] + args + [exe, prof], cwd=d, check=True,
                                  capture_output=True, text=True).stdout
fails = []
flat = run(["-b", "-p", "--precise"])
hz = 1 / float(re.search(r"Each sample counts as ([0-9.e-]+)", flat).group(1))
rows = [l for l in flat.splitlines() if re.match(r"^ *[0-9]+\.[0-9]+ ", l)]
pct = sum(float(l.split()[0]) for l in rows)
if rows and abs(pct - 100) > 0.01 * len(rows) + 1e-9:
    fails.append("percentages add up to %.2f" % pct)
for l in rows:
    f = l.split()
    self_s, err = float(f[2]), float(f[3])
    if abs(err - math.sqrt(self_s * hz) / hz) > 0.011:
        fails.append("row %r: +/- %s is not sqrt(samples)" % (l, f[3]))
for text in (flat, run(["-b", "--precise"])):
    if re.search(r"\.(constprop|isra|part|cold)\b", text):
        fails.append("a clone suffix is still printed")
graph = run(["-b", "-q", "--precise"])
line_graph = run(["-b", "-l", "--precise"])
i = line_graph.find("\t\t\tCall graph")
if i < 0 or line_graph[i:] != graph[graph.find("\t\t\tCall graph"):]:
    fails.append("-l --precise does not print the function-level call graph")
doc = json.loads(run(["--format=json", "-z", "--precise"]))
unattr = [float(l.split()[2]) for l in rows if l.endswith("<unattributed>")]
selfs = sum(f["self"] for f in doc["functions"])
if "unattributed" not in doc:
    fails.append("json: no \"unattributed\" field")
elif abs(selfs + doc["unattributed"] - doc["total"]) > 1e-6 * (len(doc["functions"]) + 1):
    fails.append("json: self values %.9g + unattributed %.9g, total %.9g"
                 % (selfs, doc["unattributed"], doc["total"]))
elif abs(doc["unattributed"] - (unattr[0] if unattr else 0)) > 0.005 + 1e-9:
    fails.append("json: unattributed %.9g, flat profile row %s" % (doc["unattributed"], unattr))
for f in fails[:20]:
    print("FAIL:", f, file=sys.stderr)
print("%d flat rows checked, %d unattributed" % (len(rows), len(unattr)))
sys.exit(1 if fails else 0)
