#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""One name per function in every format (docs/formats.md, "Function
names"), checked against nm, c++filt and addr2line run on the same files:

    names-check.py SYMPROF KIND ARGS...

  gmon DIR EXE GMON             gprof's profile: every function of the JSON
                                is an ELF symbol of EXE ("mangled" is its
                                name in `nm`) named as `nm -C` names it
  gperf DIR EXE PROF [REF]      a gperftools profile: the functions the JSON
                                lists for EXE's code are exactly, for the
                                sampled addresses, the ELF symbol around
                                each one as `nm -C` prints it (the function
                                the address is in) and the functions
                                `addr2line -f -i` says are inlined there,
                                demangled (c++filt); where GCC left an
                                inlined function no linkage name (std::sort's
                                helpers for a lambda), the name symprof
                                builds from DWARF must be one `nm -C` prints
                                for REF, the same source at -O0 (every
                                function out of line), and "mangled" null
  igprof DIR EXE DUMP           an IgProf dump (paths as recorded under
                                /tmp/pp-corpus/igprof, mapped to DIR): the
                                JSON's functions of EXE are the `nm -C`
                                names around its frames, and every C++
                                template name of igprof-analyse's -d -v -g
                                report is in symprof's --format=igprof
  stripped DIR EXE PROF         no code of EXE is named after one of its
                                STT_OBJECT or STT_TLS symbols
  cross-gmon-gperf DIR PG GMON EXE PROF
                                the same source under gprof and gperftools:
                                a linkage name has one display name in both,
                                and the hot functions of the program appear
                                in both under that name
  cross-gperf-igprof DIR EXE PROF DUMP
                                one binary under gperftools and IgProf: a
                                function symbol both profiles sample has the
                                same name in both
"""

import bisect
import gzip
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "fixtures", "gperf"))
import importlib.util  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "gperf_tool", os.path.join(HERE, "..", "..", "fixtures", "gperf", "gperf-tool.py"))
gperf_tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gperf_tool)

fails = []


def fail(msg):
    fails.append(msg)


def run(args, cwd=None, stdin=None):
    return subprocess.run(args, cwd=cwd, check=True, capture_output=True, text=True,
                          input=stdin).stdout


def symprof_json(symprof, cwd, args):
    return json.loads(run([symprof, "--format=json", "-z"] + args, cwd=cwd))


def demangle(names):
    names = list(names)
    if not names:
        return {}
    out = run(["c++filt"], stdin="\n".join(names) + "\n").splitlines()
    return dict(zip(names, out))


class Syms:
    """An executable's symbols as nm lists them (table order, -p), each with
    its section (readelf): a function symbol names the addresses after it
    in its own section, as bfd (addr2line) takes it."""

    CODE = set("TtWwiI")

    def __init__(self, exe, dynamic=False):
        flags = ["-p", "--defined-only"] + (["-D"] if dynamic else [])
        raw = run(["nm"] + flags + [exe]).splitlines()
        dm = run(["nm", "-C"] + flags + [exe]).splitlines()
        sec_of = {}
        for line in run(["readelf", "-sW"] + (["--dyn-syms"] if dynamic else []) +
                        [exe]).splitlines():
            p = line.split()
            if len(p) >= 8 and p[0].endswith(":") and p[6].isdigit():
                sec_of.setdefault((int(p[1], 16), p[7].split("@")[0]), int(p[6]))
        self.secs = []
        for line in run(["readelf", "-SW", exe]).splitlines():
            m = re.match(r"\s*\[\s*(\d+)\]\s+\S+\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\S+\s+(\S*A\S*)", line)
            if m and int(m.group(2), 16):
                lo = int(m.group(2), 16)
                self.secs.append((lo, lo + int(m.group(3), 16), int(m.group(1))))
        self.raw = {}      # raw name -> address
        self.shown = {}    # address -> set of nm -C names (aliases)
        self.rawat = {}    # address -> set of raw names
        self.code = {}     # section -> sorted addresses of function symbols
        for r, d in zip(raw, dm):
            pr, pd = r.split(" ", 2), d.split(" ", 2)
            if len(pr) < 3 or len(pd) < 3:
                continue
            addr, kind, name = int(pr[0], 16), pr[1], pr[2]
            self.raw.setdefault(name, addr)
            if kind in self.CODE:
                self.shown.setdefault(addr, set()).add(pd[2])
                self.rawat.setdefault(addr, set()).add(name)
                sec = sec_of.get((addr, name.split("@")[0]))
                self.code.setdefault(sec, set()).add(addr)
        self.code = {k: sorted(v) for k, v in self.code.items()}

    def around(self, vaddr):
        """The address of the function symbol at or below vaddr in its
        section, or None."""
        for lo, hi, ndx in self.secs:
            if lo <= vaddr < hi:
                code = [a for a in self.code.get(ndx, ()) if a >= lo]
                i = bisect.bisect_right(code, vaddr)
                return code[i - 1] if i else None
        return None


def load_segments(exe):
    """PT_LOAD (offset, vaddr) pairs, from readelf."""
    segs = []
    for line in run(["readelf", "-lW", exe]).splitlines():
        p = line.split()
        if p and p[0] == "LOAD":
            segs.append((int(p[1], 16), int(p[2], 16)))
    return segs


def exe_functions(doc, exe_path):
    """The JSON's functions of the executable (stack profiles name objects)."""
    base = os.path.basename(exe_path)
    return [f for f in doc["functions"]
            if f.get("object") is None or os.path.basename(f["object"]) == base]


def unnamed(name):
    return name.startswith("0x") or name.startswith("@")


def check_linkage_names(fns, syms, label, inline_linkage=()):
    """Every function with a linkage name is shown as c++filt shows it; a
    function frame's linkage name is an ELF symbol of the executable."""
    dm = demangle(f["mangled"] for f in fns if f["mangled"])
    for f in fns:
        m = f["mangled"]
        if unnamed(f["name"]):
            if m is not None:
                fail("%s: unnamed '%s' has mangled %r" % (label, f["name"], m))
            continue
        if m is None:
            continue
        if dm[m] != f["name"]:
            fail("%s: '%s' is shown as '%s', c++filt says '%s'" % (label, m, f["name"], dm[m]))
        if m not in syms.raw and m not in inline_linkage:
            fail("%s: mangled '%s' is no ELF symbol nor linkage name addr2line gives" %
                 (label, m))


def gmon(symprof, d, exe, prof):
    syms = Syms(os.path.join(d, exe))
    fns = symprof_json(symprof, d, [exe, prof])["functions"]
    if not fns:
        fail("gmon: no functions")
    check_linkage_names(fns, syms, "gmon")
    for f in fns:
        m = f["mangled"]
        if m is None or m not in syms.raw:
            fail("gmon: '%s' (mangled %r) is not an ELF symbol" % (f["name"], m))
        elif f["name"] not in syms.shown.get(syms.raw[m], ()):
            fail("gmon: '%s' is not what nm -C names %s" % (f["name"], m))
    return {f["mangled"]: f["name"] for f in fns}


def gperf_addresses(exe, prof):
    """The sampled vaddrs of exe (the leaf as it is, callers minus one, as
    symprof and google-pprof look them up)."""
    p = gperf_tool.parse(prof)
    segs = load_segments(exe)
    base = os.path.basename(exe)
    ranges = []
    for start, end, off, path in p["maps"]:
        if os.path.basename(path) != base:
            continue
        delta = 0
        for soff, svaddr in segs:
            if soff <= off:
                delta = svaddr - soff
        ranges.append((start, end, off, delta))
    out = set()
    for _count, pcs in p["records"]:
        for k, pc in enumerate(pcs):
            a = pc - 1 if k else pc
            for start, end, off, delta in ranges:
                if start <= a < end:
                    out.add(a - start + off + delta)
    return sorted(out)


def addr2line_chains(exe, addrs):
    """{vaddr: [names innermost first]} from one `addr2line -a -f -i`."""
    text = run(["addr2line", "-a", "-f", "-i", "-e", exe] + ["%#x" % a for a in addrs])
    chains, cur, lines, i = {}, None, text.splitlines(), 0
    while i < len(lines):
        if re.match(r"^0x[0-9a-f]+$", lines[i]):
            cur = int(lines[i], 16)
            chains[cur] = []
            i += 1
            continue
        chains[cur].append(lines[i])
        i += 2
    return chains


def gperf_expected(exe, prof, syms):
    """What the names must be for the sampled addresses: the function
    symbols around them (by address) and the inline frames' linkage names
    and bare DWARF names, from addr2line."""
    addrs = gperf_addresses(exe, prof)
    chains = addr2line_chains(exe, addrs)
    funcs, linkage, bare = set(), set(), set()
    for a in addrs:
        at = syms.around(a)
        if at is not None:
            funcs.add(at)
        chain = chains.get(a, [])
        if len(chain) < 2:
            continue
        for k, name in enumerate(chain[:-1]):
            # addr2line names an innermost inlined function that has no
            # linkage name by the ELF symbol around the address
            if k == 0 and at is not None and name in syms.rawat.get(at, ()):
                bare.add(None)
                continue
            if name.startswith("_Z"):
                linkage.add(name)
            elif name != "??":
                bare.add(name)
    return addrs, funcs, linkage, bare


def base_name(name):
    """The last identifier of a function name, without scope, template
    arguments, parameters or return type: what a bare DW_AT_name starts
    with ("__heap_select" of "void std::__heap_select<...>(...)")."""
    depth, cut = 0, len(name)
    for i, ch in enumerate(name):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0:
            cut = i
            break
    s = name[:cut]
    # drop trailing template arguments
    while s.endswith(">"):
        depth = 0
        for i in range(len(s) - 1, -1, -1):
            depth += {">": 1, "<": -1}.get(s[i], 0)
            if depth == 0:
                s = s[:i]
                break
    s = s.rsplit("::", 1)[-1]
    return s.split(" ")[-1]


def gperf(symprof, d, exe, prof, ref=None):
    syms = Syms(os.path.join(d, exe))
    doc = symprof_json(symprof, d, [exe, prof])
    fns = [f for f in exe_functions(doc, exe) if not unnamed(f["name"])]
    addrs, funcs, linkage, bare = gperf_expected(os.path.join(d, exe), os.path.join(d, prof),
                                                  syms)
    if not addrs:
        fail("gperf %s: no sampled address in %s" % (prof, exe))
    check_linkage_names(fns, syms, "gperf " + prof, linkage)
    want = set()
    for at in funcs:
        want |= syms.shown[at]
    dm = demangle(linkage)
    want_inl = set(dm.values())
    got = {f["name"] for f in fns}
    built = {f["name"] for f in fns if f["mangled"] is None}
    for at in funcs:
        if not syms.shown[at] & got:
            fail("gperf %s: the function at %#x (%s) is missing" %
                 (prof, at, " = ".join(sorted(syms.shown[at]))))
    for name in want_inl - got:
        fail("gperf %s: inlined '%s' (addr2line) is missing" % (prof, name))
    for name in got - want - want_inl - built:
        fail("gperf %s: '%s' is neither nm -C's nor addr2line's for a sampled address" %
             (prof, name))
    # built names: functions without a linkage name
    ref_names = None
    if ref:
        ref_names = {ln.split(" ", 2)[2] for ln in run(["nm", "-C", os.path.join(d, ref)])
                     .splitlines() if len(ln.split(" ", 2)) == 3}
    bare_bases = {base_name(b) for b in bare if b}
    for name in built:
        if ref_names is not None and name not in ref_names:
            fail("gperf %s: built '%s' is not a name nm -C prints for %s" % (prof, name, ref))
        if ref_names is None:
            fail("gperf %s: '%s' has no linkage name and no reference build" % (prof, name))
        if bare and base_name(name) not in bare_bases and None not in bare:
            fail("gperf %s: built '%s' names no inlined function addr2line reports" %
                 (prof, name))
    if bare - {None} and not built:
        fail("gperf %s: addr2line reports functions without linkage name (%s), "
             "symprof names none" % (prof, ", ".join(sorted(bare - {None}))[:200]))
    return doc, syms, funcs


def igprof_frames(dump, exe_base):
    """The file offsets of frames in exe (dump text, F=(path)+offset)."""
    with gzip.open(dump, "rt", errors="replace") as fh:
        text = fh.read()
    paths, offs = {}, set()
    for m in re.finditer(r"FN[0-9a-f]+=\(F([0-9a-f]+)(?:=\((.*?)\))?\+([0-9a-f]+) N=\(", text):
        fid, path, off = m.group(1), m.group(2), int(m.group(3), 16)
        if path is not None:
            paths[fid] = path
        if os.path.basename(paths.get(fid, "")) == exe_base:
            offs.add(off)
    return sorted(offs)


def igprof(symprof, d, exe, dump):
    path = os.path.join(d, "bin", exe)
    syms = Syms(path)
    segs = load_segments(path)
    delta = segs[0][1] - segs[0][0] if segs else 0
    # a return address may end its function: the symbol of offset - 1 too
    ok = set()
    for off in igprof_frames(os.path.join(d, dump), exe):
        for a in (off + delta, off + delta - 1):
            at = syms.around(a)
            if at is not None:
                ok |= syms.shown[at]
    doc = json.loads(run([symprof, "--format=json", "-z", "--counter=MEM_TOTAL",
                          "--path-map=/tmp/pp-corpus/igprof=" + d, os.path.join(d, dump)],
                         cwd=d))
    fns = [f for f in doc["functions"] if f.get("object") and
           os.path.basename(f["object"]) == exe and not unnamed(f["name"])]
    if not fns:
        fail("igprof %s: no function of %s" % (dump, exe))
    check_linkage_names(fns, syms, "igprof " + dump)
    for f in fns:
        if f["name"] not in ok:
            fail("igprof %s: '%s' is no nm -C name around a frame of %s" % (dump, f["name"], exe))
    # igprof-analyse -d -v -g's own names for C++ templates
    report = os.path.join(d, "reports", os.path.basename(dump).replace(".gz", "") +
                          ".MEM_TOTAL.d-v-g.txt")
    if os.path.exists(report):
        text = run([symprof, "--format=igprof", "--counter=MEM_TOTAL",
                    "--path-map=/tmp/pp-corpus/igprof=" + d, os.path.join(d, dump)], cwd=d)
        ref = open(report).read()
        tmpl = set(re.findall(r"^ +[0-9.]+ +[0-9']+ +[0-9']+  (.*<.*>.*) \[\d+\]$", ref, re.M))
        if not tmpl:
            fail("igprof %s: no C++ template name in %s" % (dump, report))
        for name in tmpl:
            if name not in text:
                fail("igprof %s: igprof-analyse's '%s' is missing" % (dump, name))
    return doc, syms, fns


def stripped(symprof, d, exe, prof):
    data = set()
    for line in run(["readelf", "-sW", "--dyn-syms", os.path.join(d, exe)]).splitlines():
        p = line.split()
        if len(p) >= 8 and p[3] in ("OBJECT", "TLS") and p[6] != "UND":
            data.add(p[7].split("@")[0])
    if not data:
        fail("stripped: %s defines no data symbol" % exe)
    doc = symprof_json(symprof, d, [exe, prof])
    fns = exe_functions(doc, exe)
    if not fns:
        fail("stripped: no function of %s" % exe)
    for f in fns:
        if f["name"].split("@")[0] in data or (f["mangled"] or "").split("@")[0] in data:
            fail("stripped: code named after the data symbol '%s'" % f["name"])
    folded = run([symprof, "--format=folded", exe, prof], cwd=d)
    for name in data:
        if re.search(r"(^|;)%s(@[^;]*)?(;| )" % re.escape(name), folded, re.M):
            fail("stripped: folded stacks name code '%s'" % name)


def cross_gmon_gperf(symprof, d, pg, gmonf, exe, prof):
    by_linkage = gmon(symprof, d, pg, gmonf)
    doc = symprof_json(symprof, d, [exe, prof])
    fns = exe_functions(doc, exe)
    shown = {f["mangled"]: f["name"] for f in fns if f["mangled"]}
    common = set(by_linkage) & set(shown)
    for m in common:
        if by_linkage[m] != shown[m]:
            fail("cross: '%s' is '%s' under gprof, '%s' under gperftools" %
                 (m, by_linkage[m], shown[m]))
    gm = symprof_json(symprof, d, [pg, gmonf])["functions"]
    total = sum(f["self"] for f in gm) or 1
    hot = {f["name"] for f in gm if f["self"] / total >= 0.05}
    got = {f["name"] for f in fns}
    for name in hot - got:
        fail("cross: gprof's hot '%s' is not among gperftools' names" % name)
    if len(common) < 5:
        fail("cross: only %d functions in common" % len(common))


def cross_gperf_igprof(symprof, d, exe, prof, dump):
    doc, syms, funcs = gperf(symprof, d, exe, prof)
    idir = os.path.abspath(os.path.join(d, "..", "igprof"))
    _idoc, _isyms, ifns = igprof(symprof, idir, os.path.basename(exe), dump)
    gnames = {f["name"] for f in exe_functions(doc, exe)}
    inames = {f["name"] for f in ifns}
    both = 0
    for at in funcs:
        shown = syms.shown[at]
        if shown & inames:
            both += 1
            if not shown & gnames:
                fail("cross: '%s' is in the IgProf report, not under gperftools" %
                     " = ".join(shown))
    if both < 5:
        fail("cross: only %d functions sampled by both profilers" % both)


def main():
    symprof, kind, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    symprof = os.path.abspath(symprof)
    if kind == "gmon":
        gmon(symprof, *args)
    elif kind == "gperf":
        gperf(symprof, *args)
    elif kind == "igprof":
        igprof(symprof, *args)
    elif kind == "stripped":
        stripped(symprof, *args)
    elif kind == "cross-gmon-gperf":
        cross_gmon_gperf(symprof, *args)
    elif kind == "cross-gperf-igprof":
        cross_gperf_igprof(symprof, *args)
    else:
        sys.exit("unknown check %s" % kind)
    for f in fails[:30]:
        print("FAIL:", f, file=sys.stderr)
    print("%s: %d problems" % (kind, len(fails)))
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
