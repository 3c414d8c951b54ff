#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Compares symprof -c's output with gprof -c's for the same arguments:

  static-superset.py GPROF.out SYMPROF.out PARSED-GPROF PARSED-SYMPROF

(PARSED-* are what tests/golden/graph-arcs.awk prints for each output.)

gprof's byte scan misses calls that symprof's decoder finds (backward calls
on x86-64, calls through the PLT), so symprof may print more arcs, all of
count 0. gprof's own rule (cg_dfn walks every arc, count 0 included) makes
static arcs part of cycles, and a function's place in a cycle decides where
time propagates: an added arc that closes a cycle changes the "total"
column of the flat profile and the "called" column of the graph. Checked:

 1. in each output, the cycles are the strongly connected components of the
    arcs it prints, count-0 arcs included (gprof's rule, in gprof and in
    symprof);
 2. when both outputs have the same cycles, the output before the call
    graph is identical; otherwise it is identical except the total-per-call
    column of the functions the changed cycles reach (their members and
    every function that calls into one, through calls that ran);
 3. both graphs have entries for the same functions;
 4. every arc gprof prints is printed, with the same "called" column (only
    the count of calls when the arc's ends are in cycles that differ);
 5. every arc gprof does not print has a count of 0;
 6. when symprof adds no arc, the whole output is gprof's byte for byte.
"""

import sys
from collections import defaultdict


def parse(path):
    entries, arcs, cycle_of = set(), defaultdict(set), {}
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if fields[0] == "K":
                entries.add(fields[1])
            elif fields[0] == "A":
                arcs[(fields[1], fields[2])].add(fields[3])
            elif fields[0] == "C":
                cycle_of[fields[1]] = fields[2]
    members = defaultdict(set)
    for name, n in cycle_of.items():
        members[n].add(name)
    # a function's cycle as the set of its members (numbers differ)
    cycle = {name: frozenset(members[n]) for name, n in cycle_of.items()}
    return entries, arcs, cycle


def sccs(arcs):
    """Components of more than one function, iteratively (Tarjan)."""
    succ = defaultdict(list)
    nodes = set()
    for p, c in arcs:
        nodes.update((p, c))
        if p != c:
            succ[p].append(c)
    index, low, on, stack, out = {}, {}, set(), [], set()
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = len(index)
                stack.append(v)
                on.add(v)
            if i < len(succ[v]):
                work.append((v, i + 1))
                w = succ[v][i]
                if w not in index:
                    work.append((w, 0))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            if low[v] == index[v]:
                comp = set()
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.add(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.add(frozenset(comp))
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
    return out


def before_graph(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        text = f.read()
    i = text.find("Call graph")
    return (text if i < 0 else text[:i]).splitlines(), text


def reached(arcs, start):
    """start and every function that calls into it through calls that ran."""
    callers = defaultdict(set)
    for (p, c), called in arcs.items():
        if any(count_of(s) != "0" for s in called):
            callers[c].add(p)
    seen, todo = set(start), list(start)
    while todo:
        for p in callers[todo.pop()]:
            if p not in seen:
                seen.add(p)
                todo.append(p)
    return seen


def count_of(called):
    return called.split("/")[0]


def main():
    gout, sout, gparsed, sparsed = sys.argv[1:5]
    gk, garcs, gcyc = parse(gparsed)
    sk, sarcs, scyc = parse(sparsed)
    fails = []

    for who, arcs, cyc in (("gprof", garcs, gcyc), ("symprof", sarcs, scyc)):
        printed = set(cyc.values())
        comps = sccs(arcs)
        if comps != printed:
            fails.append("%s's cycles are not the components of its arcs: printed %s, "
                         "components %s" % (who, sorted(map(sorted, printed - comps)),
                                            sorted(map(sorted, comps - printed))))

    changed = {f for f in set(gcyc) | set(scyc) if gcyc.get(f) != scyc.get(f)}
    affected = reached(sarcs, changed) | reached(garcs, changed)
    glines, gtext = before_graph(gout)
    slines, stext = before_graph(sout)
    if len(glines) != len(slines):
        fails.append("the output before the call graph has %d lines, gprof's %d"
                     % (len(slines), len(glines)))
    else:
        for g, s in zip(glines, slines):
            if g == s:
                continue
            gf, sf = g.split(None, 6), s.split(None, 6)
            if (changed and len(gf) == 7 and len(sf) == 7 and gf[:5] == sf[:5] and
                    gf[6] == sf[6] and gf[6] in affected):
                continue
            fails.append("before the call graph:\n  gprof:   %s\n  symprof: %s" % (g, s))

    if gk != sk:
        fails.append("the graphs have entries for different functions: %s"
                     % sorted(gk ^ sk))
    for pair, called in sorted(garcs.items()):
        if pair not in sarcs:
            fails.append("an arc gprof prints that symprof does not: %s -> %s %s"
                         % (pair[0], pair[1], sorted(called)))
            continue
        if pair[0] in changed or pair[1] in changed:
            same = {count_of(c) for c in called} == {count_of(c) for c in sarcs[pair]}
        else:
            same = called == sarcs[pair]
        if not same:
            fails.append("%s -> %s: called %s, gprof %s" % (pair[0], pair[1],
                                                          sorted(sarcs[pair]), sorted(called)))
    added = [p for p in sarcs if p not in garcs]
    for pair in sorted(added):
        if any(count_of(c) != "0" for c in sarcs[pair]):
            fails.append("an arc gprof does not print has calls: %s -> %s %s"
                         % (pair[0], pair[1], sorted(sarcs[pair])))
    if not added and gtext != stext:
        fails.append("no arc added, yet the output differs from gprof's")

    for f in fails[:30]:
        print("FAIL:", f)
    print("%d gprof arcs checked, %d added, %d functions in changed cycles"
          % (len(garcs), len(added), len(changed)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
