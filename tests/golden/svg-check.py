#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks symprof's SVG cost plots by parsing them.

    svg-check.py SYMPROF REPORT ROUTINE

For each of --plot-axes=linear, log, logx and logy, writes the plot of
ROUTINE with --output and checks that it is well-formed XML (xml.etree), an
<svg> root with a viewBox, one <g class="point"> per input size of the
routine (the sizes and calls of symprof's JSON, in order), each with a
worst, an avg and a best circle whose coordinates are finite and inside the
picture, and a fitted curve (path with finite coordinates) and its band (a
closed path) exactly for the fits the JSON has, the legend giving each
fit's interval of c as the JSON has it.
"""
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def routine_json(symprof, report, name):
    p = subprocess.run([symprof, "--format=json", report], capture_output=True, text=True,
                       check=True)
    for f in json.loads(p.stdout)["functions"]:
        if f["name"] == name:
            return f
    fail("no routine %s in the JSON" % name)


def check_plot(path, f, axes):
    root = ET.parse(path).getroot()
    if root.tag != NS + "svg":
        fail("%s: root is %s" % (axes, root.tag))
    _, _, width, height = (float(v) for v in root.get("viewBox").split())
    groups = [g for g in root.iter(NS + "g") if g.get("class") == "point"]
    sizes = [int(g.get("data-size")) for g in groups]
    calls = [int(g.get("data-calls")) for g in groups]
    if sizes != [p["size"] for p in f["points"]] or calls != [p["calls"] for p in f["points"]]:
        fail("%s: %d point groups, the routine has %d input sizes" %
             (axes, len(groups), f["input_sizes"]))
    for g in groups:
        kinds = sorted(c.get("class") for c in g.iter(NS + "circle"))
        if kinds != ["avg", "best", "worst"]:
            fail("%s: point %s has circles %s" % (axes, g.get("data-size"), kinds))
        for c in g.iter(NS + "circle"):
            x, y = float(c.get("cx")), float(c.get("cy"))
            if not (math.isfinite(x) and math.isfinite(y) and 0 <= x <= width and
                    0 <= y <= height):
                fail("%s: circle at (%s, %s) outside the picture" % (axes, x, y))
    for cls, field in (("fit-worst", "fit"), ("fit-avg", "fit_avg")):
        paths = [p for p in root.iter(NS + "path") if p.get("class") == cls and
                 p.get("clip-path")]
        if bool(paths) != (f[field] is not None):
            fail("%s: %d %s curves, fit is %s" % (axes, len(paths), cls, f[field]))
        for p in paths:
            nums = [float(v) for v in re.findall(r"-?[0-9.]+(?:e[-+]?[0-9]+)?", p.get("d"))]
            if len(nums) < 4 or not all(math.isfinite(v) for v in nums):
                fail("%s: bad curve %s" % (axes, p.get("d")[:80]))
    legend = " ".join(t.text or "" for t in root.iter(NS + "text"))
    for cls, field in (("band-worst", "fit"), ("band-avg", "fit_avg")):
        paths = [p for p in root.iter(NS + "path") if p.get("class") == cls]
        if bool(paths) != (f[field] is not None) or len(paths) > 1:
            fail("%s: %d %s bands, fit is %s" % (axes, len(paths), cls, f[field]))
        for p in paths:
            nums = [float(v) for v in re.findall(r"-?[0-9.]+(?:e[-+]?[0-9]+)?", p.get("d"))]
            if len(nums) < 8 or not all(math.isfinite(v) for v in nums) or \
                    not p.get("d").rstrip().endswith("Z"):
                fail("%s: bad band %s" % (axes, p.get("d")[:80]))
            fit = f[field]
            want = "c = %.2f [%.2f, %.2f]" % (fit["c"], fit["c_lo"], fit["c_hi"])
            if want not in legend:
                fail("%s: the legend has no %s" % (axes, want))
    title = root.find(NS + "title")
    if title is None or title.text != f["name"]:
        fail("%s: title %s" % (axes, title.text if title is not None else None))


def main():
    symprof, report, name = sys.argv[1:4]
    f = routine_json(symprof, report, name)
    with tempfile.TemporaryDirectory() as tmp:
        for axes in ("linear", "log", "logx", "logy"):
            out = os.path.join(tmp, axes + ".svg")
            subprocess.run([symprof, "--plot=" + name, "--plot-axes=" + axes, "--output=" + out,
                            report], check=True)
            check_plot(out, f, axes)
    print("%s: %d input sizes, 4 plots parsed" % (name, f["input_sizes"]))


if __name__ == "__main__":
    main()
