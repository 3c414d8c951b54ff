#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks symprof --format=callgrind with the real callgrind_annotate:

    callgrind-check.py SYMPROF DIR EXE PROFILE... [-- OPTION...]

Runs symprof --format=callgrind and --format=json on the same files (cwd
DIR; OPTIONs after `--` go to both), then `callgrind_annotate
--inclusive=yes --threshold=100` on the callgrind output (from an empty
directory: callgrind_annotate strips its working directory from `fl=`
names but not from `cfi=` ones). Every function callgrind_annotate lists
must be a function of the JSON with its inclusive cost equal to the JSON
`total_samples`, and every JSON function must be listed; the program total
must be the JSON `samples`. callgrind_annotate names a function
"file:function", and the costs that follow a `fi=` line become another
"file:function" of that file: such parts are not compared (a called
function's inclusive cost is that of its own file's name, from the calls
into it). Exit 77 (skipped) without callgrind_annotate.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile


def run(cmd, cwd):
    return subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, text=True).stdout


def names_in(cg):
    """(file, function, object) of every function, as callgrind_annotate
    names it "file:function" (the file of its `fn=` block, or of the `cfi=`
    before a `cfn=`); names are compressed: `fn=(N) name` the first time."""
    ids = {"ob": {}, "fl": {}, "fn": {}}
    kinds = {"ob": "ob", "cob": "ob", "fl": "fl", "fi": "fl", "fe": "fl", "cfi": "fl",
             "cfl": "fl", "fn": "fn", "cfn": "fn"}
    cur = {"ob": None, "fl": None, "cob": None, "cfi": None, "fn": None}
    out, parts = set(), set()
    for line in cg.splitlines():
        m = re.match(r"^([a-z]+)=\((\d+)\)(?: (.*))?$", line)
        if not m or m.group(1) not in kinds:
            continue
        key, kind = m.group(1), kinds[m.group(1)]
        if m.group(3) is not None:
            ids[kind][m.group(2)] = m.group(3)
        name = ids[kind][m.group(2)]
        if key == "fn":
            cur["fn"] = name
            out.add((cur["fl"], name, cur["ob"]))
        elif key in ("fi", "fe"):
            # callgrind_annotate makes the costs that follow "file:function"
            # of that file: a part of the function under another name
            cur["fl"] = name
            parts.add((name, cur["fn"], cur["ob"]))
        elif key == "cfn":
            out.add((cur["cfi"] or cur["fl"], name, cur["cob"] or cur["ob"]))
            cur["cfi"] = cur["cob"] = None
        elif key == "cfl":
            cur["cfi"] = name
        else:
            cur[key if key in cur else "fl"] = name
    return out, parts - out


def main():
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    argv = argv[:argv.index("--")] if "--" in argv else argv
    symprof, d, exe, profiles = argv[0], argv[1], argv[2], argv[3:]
    annotate = shutil.which("callgrind_annotate")
    if not annotate:
        print("skip: no callgrind_annotate")
        return 77
    doc = json.loads(run([symprof, "--format=json"] + extra + [exe] + profiles, d))
    cg = run([symprof, "--format=callgrind"] + extra + [exe] + profiles, d)
    fails = []
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "callgrind.out")
        with open(path, "w") as f:
            f.write(cg)
        empty = os.path.join(tmp, "cwd")
        os.mkdir(empty)
        text = run([annotate, "--inclusive=yes", "--threshold=100", path], empty)

    # "file:function [object]" -> (function, object)
    key, part = {}, set()
    functions, parts = names_in(cg)
    for fl, fn, ob in functions:
        key["%s:%s [%s]" % (fl, fn, ob)] = (fn, ob)
        key["%s:%s" % (fl, fn)] = (fn, ob)
    for fl, fn, ob in parts:
        part.update(("%s:%s [%s]" % (fl, fn, ob), "%s:%s" % (fl, fn)))
    incl, total, nparts = {}, None, 0
    section = None
    for line in text.splitlines():
        if re.match(r"^Samples +file:function$", line) or line.endswith(" file:function"):
            section = "functions"
            continue
        m = re.match(r"^ *([\d,]+) +\( *[\d.]+%\) +(.*)$", line)
        if not m:
            if section == "functions" and line.startswith("---") and incl:
                section = None
            continue
        n, what = int(m.group(1).replace(",", "")), m.group(2)
        if what == "PROGRAM TOTALS":
            total = n
        elif section == "functions":
            if what in part and what not in key:
                nparts += 1
                continue
            if what not in key:
                fails.append("callgrind_annotate lists %r, no function of the file" % what)
                continue
            if key[what] in incl:
                fails.append("callgrind_annotate lists %r twice" % what)
            incl[key[what]] = n

    if total != doc["samples"]:
        fails.append("program totals %s, json samples %d" % (total, doc["samples"]))
    seen = set()
    for f in doc["functions"]:
        # one name per function in every format: an address in no
        # function is "0x401060 (in OBJECT)" in both
        k = (f["name"], f["object"])
        seen.add(k)
        if k not in incl:
            fails.append("%s (%s): json total_samples %d, not listed by callgrind_annotate"
                         % (k + (f["total_samples"],)))
        elif incl[k] != f["total_samples"]:
            fails.append("%s (%s): callgrind_annotate --inclusive=yes %d, json total_samples %d"
                         % (k + (incl[k], f["total_samples"])))
    for k in sorted(set(incl) - seen, key=str):
        fails.append("%s (%s): listed by callgrind_annotate, not in the json" % k)
    for msg in fails:
        print("FAIL:", msg)
    print("%d functions checked, %d samples (%d parts of functions in other files "
          "not compared)" % (len(incl), doc["samples"], nparts))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
