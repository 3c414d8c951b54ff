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
Every fit and every "no fit" is checked against the rules of
docs/manual.md ("Growth fits"): a fit only with 8 input sizes or more
spanning a factor of 2, the reason of a refusal, the points and sizes it
names, and its interval, recomputed here: the residual sum of squares at c
(a and b refitted by least squares) is the least, and at c_lo and at c_hi
it is SS(c) * (1 + t^2 / (n - 3)), t Student's 0.975 quantile (integrated
here from the density, not from the closed forms cg/fit.c uses).
Options:

    --fit NAME:FIELD:C:TOL   FIELD (fit or fit_avg) of routine NAME has an
                             exponent within TOL of C, R^2 >= 0.99 and C
                             inside its 95% interval [c_lo, c_hi]
    --no-fit NAME:REASON     routine NAME has no fit ("fit": null), and
                             "no_fit" is REASON
    --growth-first OBJ       with --rank=growth, the routines of OBJECT (a
                             basename) whose fitted cost grows come before
                             every routine of the dynamic linker (ld-linux*),
                             in the JSON as in the table
    --check                  symprof --check must pass every report
    --same-as REPORT         the routines' calls, sizes and points equal
                             those of REPORT (another rendering of the data)
"""
import collections
import json
import lzma
import math
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
    if fit is None or abs(fit["c"] - float(c)) > float(tol) or fit["r2"] < 0.99 or \
            not fit["c_lo"] - 1e-6 <= float(c) <= fit["c_hi"] + 1e-6:
        fail("%s %s: %s, expected c = %s +- %s with R2 >= 0.99, inside [c_lo, c_hi]" %
             (name, field, fit, c, tol))
    print("%s %s: c = %.4f [%.4f, %.4f] (expected %s +- %s), R2 = %.5f" %
          (name, field, fit["c"], fit["c_lo"], fit["c_hi"], c, tol, fit["r2"]))


def t975(nu):
    """Student's t 0.975 quantile: Simpson's rule on the density, bisection."""
    lc = math.lgamma((nu + 1) / 2) - math.lgamma(nu / 2) - 0.5 * math.log(nu * math.pi)

    def cdf(t, steps=2000):
        h = t / steps
        f = [math.exp(lc - (nu + 1) / 2 * math.log1p((i * h) ** 2 / nu)) for i in range(steps + 1)]
        return 0.5 + h / 3 * (f[0] + f[-1] + 4 * sum(f[1:-1:2]) + 2 * sum(f[2:-1:2]))

    lo, hi = 1.9, 13.0
    while hi - lo > 1e-9:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if cdf(mid) < 0.975 else (lo, mid)
    return (lo + hi) / 2


def ss_at(xs, ys, c):
    """Residual sum of squares of y = a + b * x^c, a and b by least squares,
    on x / max(x) and y / max(y); the regressor (x^c - 1) / c, log x at 0."""
    xm, ym = max(xs), max(ys) or 1
    z = []
    for x in xs:
        if x == 0:
            z.append(-1 / c)
        elif c == 0:
            z.append(math.log(x / xm))
        else:
            z.append(math.expm1(c * math.log(x / xm)) / c)
    y = [v / ym for v in ys]
    n = len(z)
    zm, yb = sum(z) / n, sum(y) / n
    szz = sum((a - zm) ** 2 for a in z)
    b = sum((a - zm) * (v - yb) for a, v in zip(z, y)) / szz
    return sum((v - yb - b * (a - zm)) ** 2 for a, v in zip(z, y)), sum((v - yb) ** 2 for v in y)


def check_fit_rules(funcs):
    """Each routine's fits against the rules and their recomputed interval."""
    tq, checked = {}, 0
    for key, f in funcs.items():
        pts = f["points"]
        sizes = [p["size"] for p in pts]
        low = min((x for x in sizes if x > 0), default=0)
        for field, y_of in (("fit", "max"), ("fit_avg", "avg")):
            fit, why = f[field], f["no_" + field]
            name = "%s %s" % (key[0], field)
            if (fit is None) == (why is None):
                fail("%s: fit %s, no_fit %s" % (name, fit, why))
            if len(sizes) < 8:
                want = "%d input size%s, fewer than 8" % (len(sizes), "" if len(sizes) == 1 else "s")
                if why != want:
                    fail("%s: %s, expected no fit: %s" % (name, fit or why, want))
                continue
            if sizes[-1] < 2 * low:
                want = "%sinput sizes span %d..%d" % ("" if sizes[0] else "nonzero ", low, sizes[-1])
                if why != want:
                    fail("%s: %s, expected no fit: %s" % (name, fit or why, want))
                continue
            if fit is None:
                if why != "the same cost at every input size" and "bound" not in why and \
                        "its 95% interval reaches" not in why:
                    fail("%s: no fit for no reason the rules give: %s" % (name, why))
                continue
            if (fit["n"], fit["x_min"], fit["x_max"]) != (len(sizes), sizes[0], sizes[-1]) or \
                    not fit["c_lo"] <= fit["c"] <= fit["c_hi"]:
                fail("%s: %s for the sizes %d..%d" % (name, fit, sizes[0], sizes[-1]))
            ys = [p[y_of] for p in pts]
            n = len(sizes)
            if n - 3 not in tq:
                tq[n - 3] = t975(n - 3)
            s0, syy = ss_at(sizes, ys, fit["c"])
            thr = s0 * (1 + tq[n - 3] ** 2 / (n - 3))
            for c in (fit["c"] - 1e-3, fit["c"] + 1e-3):
                if ss_at(sizes, ys, c)[0] < s0 * (1 - 1e-9) - 1e-15 * syy:
                    fail("%s: SS(%g) < SS(c = %g): c is not the least squares" % (name, c, fit["c"]))
            if s0 < 1e-12 * syy:
                continue  # an exact curve: its interval is c itself
            for end in ("c_lo", "c_hi"):
                got = ss_at(sizes, ys, fit[end])[0]
                if abs(got / thr - 1) > 1e-3:
                    fail("%s: SS(%s = %g) = %g, the 95%% level is %g" % (name, end, fit[end], got, thr))
            checked += 1
    print("%d intervals recomputed" % checked)


def check_no_fit(funcs, spec):
    name, why = spec.split(":", 1)
    matches = [f for k, f in funcs.items() if k[0] == name]
    if not matches or matches[0]["fit"] is not None or matches[0]["no_fit"] != why:
        fail("%s: expected no fit (%s), got %s" % (name, why,
                                                    matches and (matches[0]["fit"] or matches[0]["no_fit"])))
    print("%s: no fit (%s)" % (name, why))


def check_growth_first(symprof, reports, obj):
    doc = json.loads(run(symprof, ["--format=json", "--rank=growth"] + reports)[0])
    base = lambda f: os.path.basename(f["object"] or "")
    grows = lambda f: f["fit"] is not None and f["fit"]["b"] > 0 and f["fit"]["c"] > 0
    mine = [i for i, f in enumerate(doc["functions"]) if base(f) == obj and grows(f)]
    ldso = [i for i, f in enumerate(doc["functions"]) if base(f).startswith("ld-linux")]
    if not mine or not ldso or max(mine) > min(ldso):
        fail("--rank=growth: %s's growing routines at %s, the dynamic linker's from %s" %
             (obj, mine, ldso[:3]))
    print("--rank=growth: %s's %d growing routines before the %d of the dynamic linker: %s" %
          (obj, len(mine), len(ldso), [doc["functions"][i]["name"] for i in mine]))
    table = [l for l in run(symprof, ["--rank=growth"] + reports)[0].splitlines()
             if l.endswith("]") and "  " in l][1:]
    want = ["  %s [%s]" % (f["name"], base(f)) for f in doc["functions"]]
    if len(table) != len(want) or not all(l.endswith(w) for l, w in zip(table, want)):
        fail("--rank=growth: the JSON's functions are not in the table's order")


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
    no_fits, first = [], []
    i = 1
    while i < len(args):
        if args[i] in ("--fit", "--same-as", "--no-fit", "--growth-first"):
            {"--fit": fits, "--same-as": others, "--no-fit": no_fits,
             "--growth-first": first}[args[i]].append(args[i + 1])
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
        check_fit_rules(funcs)
        for spec in fits:
            check_fit(funcs, spec)
        for spec in no_fits:
            check_no_fit(funcs, spec)
        for obj in first:
            check_growth_first(symprof, plain, obj)
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
