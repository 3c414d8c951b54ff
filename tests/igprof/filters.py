#!/usr/bin/env python3
"""The default filters in every output, checked against igprof-analyse.

  tests/igprof/filters.py SYMPROF DUMP COUNTER REPORT

Run from fixtures/igprof, for MEM_* counters. REPORT is igprof-analyse's `-d -v -g -r COUNTER`
report of DUMP; its call tree gives each function's self value (NAME'k
entries added to NAME) and the total (<spontaneous>). Checks, for a
counter that adds up:
  1. `-b -l -p`: the line entries' self values, added up per function, are
     the report's self values (allocation functions folded, IgProf's
     frames gone);
  2. `--format=callgrind`: the summary is the report's total;
  3. `-A`: the lines of the program's source file hold the self values of
     the report's functions defined there (corpus::*, main);
and for a MAX counter:
  4. `--format=json`: each function's self is the report's self (the
     largest over its stacks) and the document's total the report's.
Exits 0 when all hold, 1 (with the differences on stderr) otherwise.
"""
import gzip
import json
import re
import subprocess
import sys

MAP = "--path-map=/tmp/pp-corpus/igprof=."
ROW = re.compile(r"^\[\d+\]\s+[\d.]+\s+([\d',.]+)\s+([\d',.]+) / [\d',.]+\s+(?:[\d']+\s+)?(.*)$")


def num(s):
    return int(s.replace("'", ""))


def read_report(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        text = f.read()
    selves, total = {}, None
    for line in text[text.index("Call tree profile"):].splitlines():
        m = ROW.match(line)
        if not m:
            continue
        name = re.sub(r"'\d+$", "", m.group(3))
        if name == "<spontaneous>":
            total = num(m.group(1))
            continue
        selves.setdefault(name, []).append(num(m.group(2)))
    return selves, total


def run(symprof, *args):
    return subprocess.run([symprof, MAP, *args], check=True, capture_output=True,
                          text=True).stdout


def compare(what, want, got, errors):
    for name in sorted(set(want) | set(got)):
        if want.get(name, 0) != got.get(name, 0):
            errors.append("%s: %s: want %d, got %d" % (what, name, want.get(name, 0),
                                                       got.get(name, 0)))


def check_lines(symprof, dump, counter, want, errors):
    got = {}
    out = run(symprof, "-b", "-l", "-p", "--counter=" + counter, dump)
    for line in out.splitlines():
        m = re.match(r"^\s*[\d.]+\s+[\d.]+\s+([\d.]+)\s+(.*)$", line)
        if not m:
            continue
        name = re.sub(r" \([^()]*:\d+\)$", "", m.group(2).strip())
        got[name] = got.get(name, 0) + int(float(m.group(1)))
    compare("-l -p", {k: v for k, v in want.items() if v}, got, errors)


def check_callgrind(symprof, dump, counter, total, errors):
    out = run(symprof, "--format=callgrind", "--counter=" + counter, dump)
    m = re.search(r"^summary: (\d+)$", out, re.M)
    if not m or int(m.group(1)) != total:
        errors.append("callgrind: summary %s, want %d" % (m and m.group(1), total))


def check_annotate(symprof, dump, counter, want, errors):
    out = run(symprof, "-A", "--counter=" + counter, dump)
    m = re.search(r"^\*\*\* File \S*/leaky\.cc: (\d+) ", out, re.M)
    mine = sum(v for k, v in want.items() if k == "main" or "corpus::" in k)
    if not m or int(m.group(1)) != mine:
        errors.append("-A: leaky.cc holds %s, want %d" % (m and m.group(1), mine))


def check_json_max(symprof, dump, counter, want, total, errors):
    doc = json.loads(run(symprof, "--format=json", "--counter=" + counter, dump))
    got = {f["name"]: f["self"] for f in doc["functions"] if f["self"]}
    compare("json", {k: max(v) for k, v in want.items() if max(v)}, got, errors)
    if doc["total"] != total:
        errors.append("json: total %s, want %d" % (doc["total"], total))


def main():
    symprof, dump, counter, report = sys.argv[1:5]
    selves, total = read_report(report)
    errors = []
    if counter.endswith("_MAX"):
        check_json_max(symprof, dump, counter, selves, total, errors)
    else:
        want = {k: sum(v) for k, v in selves.items()}
        check_lines(symprof, dump, counter, want, errors)
        check_callgrind(symprof, dump, counter, total, errors)
        if "leaky" in dump:
            check_annotate(symprof, dump, counter, want, errors)
    for e in errors:
        print("FAIL: " + e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
