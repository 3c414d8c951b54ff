#!/usr/bin/env python3
"""Profiles without an executable are all summed (issue 17): symprof's JSON
of several gperftools profiles against google/pprof's own reading of each
(the PROFILE.string beside it: Profile.String() of pprof's TestParse).

  pprof-string-sum.py SYMPROF PROFILE...

For the profiles in the order given and in reverse: the sample count is the
sum of the .string files' samples, every file is listed, no executable is
named, and each leaf address has as many self samples as the .string files
give it (frames are not symbolized: their binaries are not there). Exits 77
when a profile is missing (they live in ../shared/external, not in the
repository).
"""
import collections
import json
import os
import re
import subprocess
import sys


def pprof_leaves(path):
    """Samples per leaf address, and their total, from a .string file."""
    text = open(path + '.string').read()
    locs = {int(m.group(1)): int(m.group(2), 16)
            for m in re.finditer(r'^\s+(\d+): (0x[0-9a-f]+)', text, re.M)}
    leaves = collections.Counter()
    samples = text.split('\nSamples:\n', 1)[1].split('\nLocations', 1)[0]
    for m in re.finditer(r'^\s*(\d+)\s+\d+: ([\d ]+)$', samples, re.M):
        leaves[locs[int(m.group(2).split()[0])]] += int(m.group(1))
    return leaves


def symprof_leaves(symprof, profiles):
    out = subprocess.run([symprof, '--format=json'] + profiles, capture_output=True,
                         text=True)
    if out.returncode != 0:
        sys.exit('symprof failed: ' + out.stderr)
    doc = json.loads(out.stdout)
    leaves = collections.Counter()
    for f in doc['functions']:
        if f['self_samples']:
            leaves[int(f['name'].split()[0], 16)] += f['self_samples']
    return doc, leaves


def main():
    symprof, profiles = sys.argv[1], sys.argv[2:]
    for p in profiles:
        if not os.path.exists(p) or not os.path.exists(p + '.string'):
            print('SKIP: %s is not there' % p)
            return 77
    want = collections.Counter()
    for p in profiles:
        want.update(pprof_leaves(p))
    failed = 0
    for order in (profiles, profiles[::-1]):
        doc, got = symprof_leaves(symprof, order)
        differ = {hex(a): (got[a], want[a]) for a in set(got) | set(want) if got[a] != want[a]}
        checks = [
            ('samples', doc['samples'], sum(want.values())),
            ('files', doc['files'], order),
            ('executable', doc['executable'], None),
            ('leaf addresses whose self samples differ (symprof, pprof)',
             dict(list(differ.items())[:8]), {}),
        ]
        for what, g, w in checks:
            if g != w:
                print('FAIL (%s): %s is %s, pprof says %s' % (' '.join(order), what, g, w))
                failed = 1
    if not failed:
        print('ok: %d samples at %d leaf addresses' % (sum(want.values()), len(want)))
    return failed


sys.exit(main())
