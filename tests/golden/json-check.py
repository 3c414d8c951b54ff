#!/usr/bin/env python3
"""Checks symprof --format=json against symprof's own gprof text, which is
checked against GNU gprof byte for byte elsewhere:

    json-check.py SYMPROF DIR EXE PROFILE... [-- OPTION...]

The document must parse and carry every field of docs/formats.md; each
function of the flat profile (-b -p -z) must appear with the same self
seconds (to the flat profile's 2 decimals) and call count; every arc must
join two listed functions; the call counts of the arcs into a function must
add up to its calls (for functions not in a cycle); `total` must equal the
flat profile's total seconds. OPTIONs after `--` go to every run; with -c
every function must say whether it is a pseudo node, and each pseudo node
(zeros, null file) must be the callee of as many arcs as the call graph
has lines naming it."""
import json
import re
import subprocess
import sys

argv = sys.argv[1:]
extra = argv[argv.index("--") + 1:] if "--" in argv else []
argv = argv[:argv.index("--")] if "--" in argv else argv
symprof, d, exe, profiles = argv[0], argv[1], argv[2], argv[3:]
run = lambda args: subprocess.run([symprof] + extra + args + [exe] + profiles, cwd=d,
                                  check=True, capture_output=True, text=True).stdout
doc = json.loads(run(["--format=json", "-z"]))
fails = []


def need(cond, msg):
    if not cond:
        fails.append(msg)


for k in ("format", "executable", "files", "metric", "total", "functions", "arcs"):
    need(k in doc, "missing top-level field %r" % k)
need(doc["format"] == "gmon", "format is %r" % doc["format"])
need(doc["metric"] == {"name": "time", "unit": "seconds"}, "metric %r" % doc["metric"])
fields = {"id", "name", "mangled", "object", "file", "line", "self", "children", "total",
          "calls", "recursive_calls", "cycle"}
by_name = {}
ids = set()
for f in doc["functions"]:
    need(set(f) >= fields, "function fields %r" % sorted(f))
    need(abs(f["total"] - f["self"] - f["children"]) < 1e-9, "total != self + children")
    by_name.setdefault(f["name"], []).append(f)
    ids.add(f["id"])
for a in doc["arcs"]:
    need(set(a) >= {"caller", "callee", "count", "self", "children"}, "arc fields %r" % sorted(a))
    need(a["caller"] in ids and a["callee"] in ids, "arc to an unknown function")

flat = run(["-b", "-p", "-z"])
total = None
row = re.compile(r"^ *([0-9.]+) +([0-9.]+) +([0-9.]+) +(?:(\d+) +[0-9.]+ +[0-9.]+ +)?(.*)$")
for line in flat.splitlines()[5:]:
    m = row.match(line)
    if not m:
        continue
    cum, self_s, calls, name = float(m.group(2)), float(m.group(3)), m.group(4), m.group(5)
    total = cum
    cands = by_name.get(name, [])
    ok = any(abs(round(f["self"], 2) - self_s) < 0.006 and f["calls"] == int(calls or 0)
             for f in cands)
    need(ok, "flat row %r not in the JSON" % line)
if total is not None:
    need(abs(doc["total"] - total) < 0.006, "total %r vs flat %r" % (doc["total"], total))
into = {}
for a in doc["arcs"]:
    if a["caller"] != a["callee"]:
        into[a["callee"]] = into.get(a["callee"], 0) + a["count"]
for f in doc["functions"]:
    if f["cycle"] is None and f["id"] in into:
        need(into[f["id"]] == f["calls"], "%s: arcs bring %d calls, calls is %d"
             % (f["name"], into[f["id"]], f["calls"]))
if "-c" in extra:
    graph = run(["-b", "-q", "-z"])
    for f in doc["functions"]:
        need("pseudo" in f, "%s: no pseudo field" % f["name"])
        if not f.get("pseudo"):
            continue
        need(f["self"] == 0 and f["children"] == 0 and f["calls"] == 0 and f["file"] is None,
             "pseudo node %s with data" % f["name"])
        lines = len([l for l in graph.splitlines() if l.endswith("     " + f["name"])])
        arcs = len([a for a in doc["arcs"] if a["callee"] == f["id"]])
        need(lines == arcs, "%s: %d arcs in the JSON, %d graph lines" % (f["name"], arcs, lines))
for msg in fails[:20]:
    print("FAIL:", msg, file=sys.stderr)
sys.exit(1 if fails else 0)
