#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks symprof's analysis of aprof reports against an independent reading.

    aprof-check.py SYMPROF [options] REPORT...

Reads the raw reports here (its own parser, versions 1 to 6, .xz allowed),
merges their tuples per routine (name and object) and input size, and
compares with `symprof --format=json REPORT...`: per routine the calls, the
self cost, the total (sum of `real`, or of the cumulative cost for v1),
the number of input sizes and every point (size, calls, min, avg, max),
the run's total (sum of k), and with contexts the call counts of the arcs.
Options:

    --fit NAME:FIELD:C:TOL   FIELD (fit or fit_avg) of routine NAME has an
                             exponent within TOL of C and R^2 >= 0.99
    --check                  symprof --check must pass every report
    --same-as REPORT         the routines' calls, sizes and points equal
                             those of REPORT (another rendering of the data)
"""
import collections
import json
import lzma
import os
import subprocess
import sys
import tempfile
import time

LAYOUTS = {
    1: ["id", "size", "min", "max", "sum", "sqr", "calls"],
    2: ["id", "size", "min", "max", "sum", "calls", "real", "self"],
    3: ["id", "size", "min", "max", "sum", "calls", "real", "self", "self_min", "self_max"],
    4: ["id", "size", "min", "max", "sum", "sqr", "calls", "real", "self", "self_min",
        "self_max", "self_sqr"],
}


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def parse_routine(line):
    body = line[1:].strip()
    rid = body.rsplit(None, 1)[1]
    quoted = body[: len(body) - len(rid)].rstrip()
    sep = quoted.rindex('" "')
    return quoted[1:sep], quoted[sep + 3 : -1], int(rid)


def read_report(path):
    """(version, k, {rid: (name, obj)}, [(kind, id, fields)], {ctx: (rid, parent)})"""
    version, k, rids, tuples, ctxs = 0, 0, {}, [], {}
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            line = line.rstrip("\r\n")
            tok = line.split()
            if not tok:
                continue
            tag = tok[0]
            if tag == "v":
                version = int(tok[1])
            elif tag == "k":
                k = int(tok[1])
            elif tag == "r":
                name, obj, rid = parse_routine(line)
                rids[rid] = (name, obj)
            elif tag in ("p", "q"):
                layout = LAYOUTS[min(version, 4)]
                vals = dict(zip(layout, (float(t) if "sqr" in n else int(t)
                                         for n, t in zip(layout, tok[1:]))))
                tuples.append((tag, vals["id"], vals))
            elif tag == "x":
                ctxs[int(tok[2])] = (int(tok[1]), int(tok[3]))
    return version, k, rids, tuples, ctxs


def merge(reports):
    points = collections.defaultdict(dict)
    arcs = collections.Counter()
    total_k, min_version = 0, 9
    for path in reports:
        version, k, rids, tuples, ctxs = read_report(path)
        total_k += k
        min_version = min(min_version, version)
        for tag, ident, v in tuples:
            rid = ident if tag == "p" else ctxs[ident][0]
            key = rids[rid]
            pt = points[key].setdefault(v["size"], collections.Counter(min=v["min"]))
            pt["min"] = min(pt["min"], v["min"])
            pt["max"] = max(pt["max"], v["max"])
            for f in ("calls", "sum", "real", "self"):
                pt[f] += v.get(f, 0)
            if tag == "q" and ctxs[ident][1] >= 0:
                caller = rids[ctxs[ctxs[ident][1]][0]]
                arcs[(caller, key)] += v["calls"]
    return points, arcs, total_k, min_version


def run(symprof, args):
    t0 = time.monotonic()
    p = subprocess.run([symprof] + args, capture_output=True, text=True)
    dt = time.monotonic() - t0
    if p.returncode != 0:
        fail("symprof %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr))
    return p.stdout, dt


def check_functions(doc, points, min_version):
    funcs = {(f["name"], f["object"]): f for f in doc["functions"]}
    if set(funcs) != set(points):
        fail("routines differ: %s" % sorted(set(funcs) ^ set(points))[:5])
    for key, sizes in points.items():
        f = funcs[key]
        want_total = sum(p["real" if min_version >= 2 else "sum"] for p in sizes.values())
        want = {"calls": sum(p["calls"] for p in sizes.values()),
                "self": sum(p["self"] for p in sizes.values()),
                "total": want_total, "input_sizes": len(sizes)}
        for field, value in want.items():
            if f[field] != value:
                fail("%s: %s is %s, the report says %s" % (key[0], field, f[field], value))
        if f["children"] != max(0, f["total"] - f["self"]):
            fail("%s: children is not total - self" % key[0])
        for got, size in zip(f["points"], sorted(sizes)):
            p = sizes[size]
            if (got["size"], got["calls"], got["min"], got["max"]) != \
                    (size, p["calls"], p["min"], p["max"]) or \
                    abs(got["avg"] - p["sum"] / p["calls"]) > 1e-6 * max(1, got["avg"]):
                fail("%s: point %s is %s, the report says %s" % (key[0], size, got, dict(p)))
    return funcs


def check_arcs(doc, arcs):
    ids = {f["id"]: (f["name"], f["object"]) for f in doc["functions"]}
    got = collections.Counter()
    for a in doc["arcs"]:
        got[(ids[a["caller"]], ids[a["callee"]])] += a["count"]
    if got != arcs:
        diff = [(k, got[k], arcs[k]) for k in set(got) | set(arcs) if got[k] != arcs[k]]
        fail("arc counts differ: %s" % diff[:5])
    for f in doc["functions"]:
        key = (f["name"], f["object"])
        if f["recursive_calls"] != arcs.get((key, key), 0):
            fail("%s: recursive_calls %d" % (f["name"], f["recursive_calls"]))


def check_fit(funcs, spec):
    name, field, c, tol = spec.rsplit(":", 3)
    matches = [f for k, f in funcs.items() if k[0] == name]
    if not matches:
        fail("no routine %s" % name)
    fit = matches[0][field]
    if fit is None or abs(fit["c"] - float(c)) > float(tol) or fit["r2"] < 0.99:
        fail("%s %s: %s, expected c = %s +- %s with R2 >= 0.99" % (name, field, fit, c, tol))
    print("%s %s: c = %.4f (expected %s +- %s), R2 = %.5f" % (name, field, fit["c"], c, tol,
                                                             fit["r2"]))


def same_as(symprof, doc, other):
    ref = json.loads(run(symprof, ["--format=json", other])[0])
    want = {(f["name"], f["object"]): (f["calls"], f["input_sizes"], f["points"], f["fit"],
                                       f["fit_avg"]) for f in ref["functions"]}
    got = {(f["name"], f["object"]): (f["calls"], f["input_sizes"], f["points"], f["fit"],
                                      f["fit_avg"]) for f in doc["functions"]}
    if got != want:
        fail("data differs from %s: %s" % (other, [k for k in got if got[k] != want.get(k)][:5]))


def main():
    args = sys.argv[1:]
    symprof, fits, check, others, reports = args[0], [], False, [], []
    i = 1
    while i < len(args):
        if args[i] in ("--fit", "--same-as"):
            {"--fit": fits, "--same-as": others}[args[i]].append(args[i + 1])
            i += 2
            continue
        if args[i] == "--check":
            check = True
        else:
            reports.append(args[i])
        i += 1
    with tempfile.TemporaryDirectory() as tmp:
        plain = []
        for r in reports:
            if r.endswith(".xz"):
                out = os.path.join(tmp, os.path.basename(r)[:-3])
                with lzma.open(r) as src, open(out, "wb") as dst:
                    dst.write(src.read())
                r = out
            plain.append(r)
        points, arcs, total_k, min_version = merge(plain)
        text, dt = run(symprof, ["--format=json"] + plain)
        doc = json.loads(text)
        if doc["total"] != total_k:
            fail("total %s, the reports' k add up to %s" % (doc["total"], total_k))
        funcs = check_functions(doc, points, min_version)
        check_arcs(doc, arcs)
        for spec in fits:
            check_fit(funcs, spec)
        for other in others:
            same_as(symprof, doc, other)
        dt2 = run(symprof, plain)[1]
        print("%d routines, %d points: json %.3f s, table %.3f s" %
              (len(points), sum(len(v) for v in points.values()), dt, dt2))
        if check:
            out = run(symprof, ["--check"] + plain)[0]
            if out.count("Passed:") != len(plain):
                fail("--check: %s" % out)


if __name__ == "__main__":
    main()
