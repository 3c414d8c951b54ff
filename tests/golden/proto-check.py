#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""--format=proto read by Go's pprof (`go tool pprof`, Debian golang-go).

  proto-check.py SYMPROF DIR [--noinlines] [--original=PROFILE] -- ARGS...

In DIR, writes symprof's --format=json and --format=proto of ARGS and checks:
  - `go tool pprof -raw` reads the proto (exit 0, samples and sample types);
  - `go tool pprof -top` of the default sample type: the total and every
    function's flat value equal the self values of symprof's JSON report of
    the same input (functions grouped by name; in nanoseconds for seconds,
    bytes for bytes). --noinlines: pprof charges inlined functions to their
    callers, as the report of IgProf dumps does (igprof-analyse's naming);
  - with a "calls" sample type (gmon.out, aprof), each function's calls
    in pprof (the arcs into it) equal the counts of the report's arcs into it;
  - --original=PROFILE (a gperftools profile): `go tool pprof -top` of the
    original profile, symbolized by pprof itself from the binaries in DIR
    (PPROF_BINARY_PATH), and of the proto give the same flat samples for
    every function pprof can name (inlined code charged to its caller on
    both sides: pprof's own symbolization gives no inline chains here).
Exit 0 pass, 1 fail.
"""
import atexit
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

failures = 0


def check(ok, what):
    global failures
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures += 1


def run(cmd, env=None):
    p = subprocess.run(cmd, capture_output=True, env=env)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def pprof(env, *args):
    return run(["go", "tool", "pprof"] + list(args), env)


ROW = re.compile(r"^\s*(\S+)\s+\S+%\s+\S+%\s+(\S+)\s+\S+%\s+(.*)$")
UNITS = {"ns": 1, "B": 1, "": 1}


def number(text):
    m = re.match(r"^(-?[0-9.e+]+)([a-zA-Z]*)$", text)
    if not m:
        raise ValueError(text)
    return float(m.group(1)) * UNITS.get(m.group(2), float("nan"))


def parse_top(text):
    """Total and {name: flat} of `pprof -top` output."""
    total = None
    flat = {}
    rows = False
    for line in text.splitlines():
        m = re.search(r"of (\S+) total", line)
        if m and total is None:
            total = number(m.group(1))
        if re.match(r"^\s+flat\s+flat%", line):
            rows = True
            continue
        if rows:
            m = ROW.match(line)
            if m:
                name = m.group(3)
                name = re.sub(r" \((partial-)?inline\)$", "", name)
                flat[name] = flat.get(name, 0) + number(m.group(1))
    return total, flat


def requires_met():
    """The `requires` file of the directory ("PATH BUILD-ID" lines, as
    tests/golden/run.sh reads it): whether each library is the one the
    profiles ran with."""
    if not os.path.exists("requires"):
        return True
    for line in open("requires"):
        words = line.split()
        if len(words) != 2:
            continue
        rc, out, _ = run(["readelf", "-n", words[0]])
        m = re.search(r"Build ID: (\S+)", out)
        if rc or not m or m.group(1) != words[1]:
            return False
    return True


def pprof_name(name):
    """What pprof prints for a function of the report: a frame nothing
    names ("0xADDR (in OBJECT)") is "[OBJECT's base name]"."""
    m = re.match(r"^0x[0-9a-f]+ \(in (.*)\)$", name)
    return "[" + os.path.basename(m.group(1)) + "]" if m else name


def near(a, b):
    return abs(a - b) <= max(1.0, 1e-6 * max(abs(a), abs(b)))


def compare(got, want, what):
    missing = sorted(set(want) - set(got))
    extra = sorted(set(got) - set(want))
    check(not missing and not extra,
          f"{what}: the same functions ({len(want)})"
          + (f"; missing {missing[:5]}" if missing else "")
          + (f"; extra {extra[:5]}" if extra else ""))
    bad = [(n, got[n], want[n]) for n in want if n in got and not near(got[n], want[n])]
    check(not bad, f"{what}: the same values" + (f"; differ {bad[:5]}" if bad else ""))


def main():
    argv = sys.argv[1:]
    if "--" not in argv or len(argv) < 3:
        print(__doc__)
        return 2
    sep = argv.index("--")
    symprof, dirname, opts, args = argv[0], argv[1], argv[2:sep], argv[sep + 1:]
    noinlines = "--noinlines" in opts
    original = [o.split("=", 1)[1] for o in opts if o.startswith("--original=")]
    os.chdir(dirname)
    tmp = tempfile.mkdtemp(prefix="symprof-proto-")
    atexit.register(shutil.rmtree, tmp, True)
    env = dict(os.environ, HOME=tmp, GOFLAGS="", PPROF_TMPDIR=tmp)
    proto = os.path.join(tmp, "profile.pb.gz")

    rc, out, err = run([symprof, "--format=json"] + args)
    check(rc == 0, f"symprof --format=json (exit {rc}) {err.strip()[:200]}")
    rc, _, err = run([symprof, "--format=proto", "--output=" + proto] + args)
    check(rc == 0, f"symprof --format=proto (exit {rc}) {err.strip()[:200]}")
    if failures:
        return 1
    doc = json.loads(out)
    with open(proto, "rb") as f:
        check(f.read(2) == b"\x1f\x8b", "the proto is gzipped")

    rc, raw, err = pprof(env, "-raw", proto)
    check(rc == 0, f"go tool pprof -raw reads it (exit {rc}) {err.strip()[:200]}")
    m = re.search(r"^Samples:\n(.*)$", raw, re.M)
    types = m.group(1).split() if m else []
    check(bool(types), f"sample types: {' '.join(types)}")
    names = [t.split("/")[0] for t in types]

    unit = doc["metric"]["unit"]
    flag, scale = {"seconds": (["-unit=ns"], 1e9), "bytes": (["-unit=B"], 1)}.get(unit, ([], 1))
    # -symbolize=none: the names as the file has them (pprof otherwise
    # demangles mangled system names again, with its own simplifications)
    top_args = ["-top", "-symbolize=none", "-nodefraction=0", "-edgefraction=0",
                "-nodecount=100000"]
    if noinlines:
        top_args.append("-noinlines")
    rc, top, err = pprof(env, *(top_args + flag + [proto]))
    check(rc == 0, f"go tool pprof -top reads it (exit {rc}) {err.strip()[:200]}")
    total, flat = parse_top(top)
    want = {}
    for fn in doc["functions"]:
        if fn["self"]:
            name = pprof_name(fn["name"])
            want[name] = want.get(name, 0) + fn["self"] * scale
    flat = {n: v for n, v in flat.items() if v}
    check(total is not None and near(total, sum(want.values())),
          f"pprof's total {total} is the report's {sum(want.values())} ({unit})")
    compare(flat, want, f"flat {unit} per function")

    if "calls" in names:
        rc, top, err = pprof(env, *(top_args + ["-sample_index=calls", proto]))
        _, calls = parse_top(top)
        want = {}
        byid = {fn["id"]: fn["name"] for fn in doc["functions"]}
        for arc in doc.get("arcs") or []:
            if arc.get("count") and arc["callee"] in byid and arc["caller"] in byid:
                name = pprof_name(byid[arc["callee"]])
                want[name] = want.get(name, 0) + arc["count"]
        compare({n: v for n, v in calls.items() if v}, want, "calls per function (its arcs)")

    if original and not requires_met():
        print("skip: --original: a library the profiles sampled is not the installed one")
        original = []
    for prof in original:
        oenv = dict(env, PPROF_BINARY_PATH=os.getcwd())
        # pprof's own symbolizer gives no inline chains here: both sides
        # charge inlined code to the function it is inlined into
        common = ["-top", "-nodefraction=0", "-sample_index=samples", "-noinlines"]
        rc, a, err = pprof(oenv, *(common + [prof]))
        check(rc == 0, f"go tool pprof -top {prof} (exit {rc}) {err.strip()[:200]}")
        rc, b, _ = pprof(env, *(common + [proto]))
        _, fa = parse_top(a)
        _, fb = parse_top(b)
        # what pprof cannot name prints as [object] or an address
        named = {n: v for n, v in fa.items() if v and not n.startswith(("[", "0x"))}
        check(len(named) > 0, f"pprof names the sampled functions of {prof} ({len(named)})")
        compare({n: v for n, v in fb.items() if n in named}, named,
                f"flat samples against pprof on {prof}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
