#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Checks symprof's pictures and exchange formats against its JSON output.

    check-pictures.py SYMPROF DIR IMAGE PROFILE... [--base BASE]
    check-pictures.py SYMPROF DIR REPORT.aprof... [--base BASE.aprof]

(IMAGE and PROFILE may be a gperftools executable and CPU profiles, or
--path-map=OLD=NEW and IgProf dumps.)

Runs in DIR (a fixture directory) and checks, for IMAGE and PROFILE(s) (or
the aprof reports, which need no image):

  flamegraph  the SVG parses as XML; its root frame holds the profile's total
              (--format=json "total"); every frame has a tooltip with its name
              and share; no frame is wider than its parent; no external
              resource is referenced
  folded      the "a;b;c N" lines add up to the total
  dot         Graphviz renders it (dot -Tsvg, parsed as XML); with thresholds
              0 every function with time or calls is a node and every arc an
              edge, and the defaults leave out nothing above them
  html        the page parses; no script, style, font or image comes from
              outside; its data list the same functions as --format=json
  diff        the profile minus itself is all zeros (text and JSON); with
              --base, each JSON number is the profile's minus the base's and
              base_self/base_total/base_calls are the base's
  aprof       the page's cost plots are routines with a fit, with their
              points and fitted curves as --format=json has them; a page
              without a Source tab; the flame graph says when there is no
              calling-context tree

Prints one line per check and exits 1 if any fails.
"""
import html.parser
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SVG = '{http://www.w3.org/2000/svg}'
failures = 0


def check(ok, what):
    global failures
    print(('ok: ' if ok else 'FAIL: ') + what)
    if not ok:
        failures += 1


def run(args, **kw):
    p = subprocess.run([symprof] + args, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        sys.exit('symprof %s failed (%d): %s' % (' '.join(args), p.returncode, p.stderr))
    return p.stdout


def counts_as_zero(doc):
    """Stack profiles record no calls: their JSON has null counts, which
    the page and the text show as 0 and '-'."""
    for f in doc['functions']:
        for k in ('calls', 'recursive_calls', 'base_calls'):
            if k in f and f[k] is None:
                f[k] = 0
    for a in doc['arcs']:
        for k in ('count', 'base_count'):
            if k in a and a[k] is None:
                a[k] = 0
    return doc


def load_json(text):
    return counts_as_zero(json.loads(text))


def close(a, b, rel=1e-9, abs_=1e-9):
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_)


def check_flamegraph(expected_total, files, tmp, js_arcs=()):
    path = os.path.join(tmp, 'flame.svg')
    run(['--format=flamegraph', '--output=' + path] + files)
    root = ET.parse(path).getroot()
    check(root.tag == SVG + 'svg', 'flamegraph: the output is an SVG document')
    total = float(root.get('data-total'))
    scale = float(root.get('data-scale'))
    check(close(total * scale, expected_total, 1e-7),
          'flamegraph: the total %.6g %s equals the profile total %.6g'
          % (total * scale, root.get('data-dimen') or root.get('data-unit'), expected_total))
    frames = [g for g in root.iter(SVG + 'g') if g.get('class') == 'f']
    roots = [g for g in frames if g.get('data-d') == '0']
    check(len(roots) == 1 and close(float(roots[0].get('data-v')), total, 1e-9, 1e-9),
          'flamegraph: one root frame holding the total')
    bad = [g.get('data-n') for g in frames
           if g.find(SVG + 'title') is None or not g.find(SVG + 'title').text.startswith(g.get('data-n'))
           or not g.find(SVG + 'title').text.rstrip().endswith('%')]
    check(not bad, 'flamegraph: every frame has a tooltip with its name and share %s' % bad[:3])
    # children lie inside their parent (by depth and x range)
    spans = {}
    for g in frames:
        spans.setdefault(int(g.get('data-d')), []).append((float(g.get('data-x')), float(g.get('data-v'))))
    eps = total * 1e-9
    outside = 0
    for d, fs in spans.items():
        if d == 0:
            continue
        parents = sorted(spans.get(d - 1, []))
        for x, v in fs:
            if not any(px - eps <= x and x + v <= px + pv + eps for px, pv in parents):
                outside += 1
    check(outside == 0, 'flamegraph: every frame lies within a parent frame (%d outside)' % outside)
    text = open(path, encoding='utf-8').read()
    refs = re.findall(r'(?:href|src)\s*=\s*"([^"]*)"', text)
    check(not refs, 'flamegraph: no external reference %s' % refs[:3])
    if aprof:
        flat = 'no calling-context tree' in text
        check(flat == (not js_arcs) and (not flat or max(int(g.get('data-d')) for g in frames) == 1),
              'flamegraph: %s' % ('one level of routines, said under the title' if flat else 'the stacks of the calling-context tree'))
    return len(frames)


def check_folded(expected_total, scale, files):
    out = run(['--format=folded'] + files)
    total = 0.0
    lines = out.splitlines()
    ok = True
    for line in lines:
        m = re.match(r'^(\S.*) ([0-9]+(?:\.[0-9]+)?)$', line)
        ok = ok and m is not None
        if m:
            total += float(m.group(2))
    check(ok and (lines or expected_total == 0), 'folded: %d lines of "stack value"' % len(lines))
    check(close(total * scale, expected_total, 1e-5, 1e-6 * len(lines)),
          'folded: the values add up to the total (%.6g)' % (total * scale))


def check_dot(js, files, tmp):
    def render(extra):
        out = run(['--format=dot'] + extra + files)
        p = subprocess.run(['dot', '-Tsvg'], input=out, capture_output=True, text=True)
        check(p.returncode == 0, 'dot %s: Graphviz renders it %s' % (' '.join(extra), p.stderr.strip()[:200]))
        return out, ET.fromstring(p.stdout) if p.returncode == 0 else None

    out, svg = render(['--node-threshold=0', '--edge-threshold=0'])
    if svg is None:
        return
    nodes = [g for g in svg.iter(SVG + 'g') if g.get('class') == 'node']
    edges = [g for g in svg.iter(SVG + 'g') if g.get('class') == 'edge']
    labels = set()
    for g in nodes:
        t = [x.text for x in g.iter(SVG + 'text')]
        if t:
            labels.add(t[0])
    funcs = [f for f in js['functions'] if f['calls'] or f['recursive_calls'] or f['self'] or f['children']]
    missing = [f['name'] for f in funcs if f['name'] not in labels]
    check(len(nodes) == len(funcs) and not missing,
          'dot: with thresholds 0, one node per function (%d nodes, %d functions, missing %s)'
          % (len(nodes), len(funcs), missing[:3]))
    arcs = [a for a in js['arcs'] if a['caller'] != a['callee']]
    loops = [f for f in funcs if f['recursive_calls']]
    check(len(edges) == len(arcs) + len(loops),
          'dot: one edge per arc and a loop per self-recursive function (%d edges, %d arcs, %d loops)'
          % (len(edges), len(arcs), len(loops)))
    clusters = [g for g in svg.iter(SVG + 'g') if g.get('class') == 'cluster']
    cycles = {f['cycle'] for f in funcs if f['cycle']}
    check(len(clusters) == len(cycles), 'dot: one cluster per cycle (%d)' % len(cycles))
    out, svg = render([])
    # default thresholds: 0.5% of the total for nodes
    total = js['total'] or 1
    heavy = [f['name'] for f in funcs if f['total'] / total >= 0.006]
    shown = set(re.findall(r'label="([^"\\]*)', out))
    check(all(n in shown for n in heavy), 'dot: the default thresholds keep every function above 0.5%')


class Scan(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.external = []
        self.data = None
        self.in_data = False
        self.tags = 0

    def handle_starttag(self, tag, attrs):
        self.tags += 1
        a = dict(attrs)
        if tag == 'link' or (tag in ('script', 'img', 'iframe', 'object', 'embed') and a.get('src')):
            self.external.append(tag)
        for k, v in attrs:
            if k in ('src', 'href') and v and not v.startswith('#'):
                self.external.append('%s=%s' % (k, v))
        self.in_data = tag == 'script' and a.get('id') == 'sp-data'

    def handle_data(self, d):
        if self.in_data:
            self.data = (self.data or '') + d

    def handle_endtag(self, tag):
        if tag == 'script':
            self.in_data = False


def check_html(js, files, tmp, extra=()):
    path = os.path.join(tmp, 'report.html')
    out = run(['--html=' + path] + list(extra) + files)
    check(out == '' or extra, 'html: nothing on stdout without --format')
    text = open(path, encoding='utf-8').read()
    scan = Scan()
    scan.feed(text)
    scan.close()
    check(text.startswith('<!DOCTYPE html>') and scan.tags > 20, 'html: an HTML document (%d tags)' % scan.tags)
    check(not scan.external, 'html: nothing loaded from outside %s' % scan.external[:3])
    check(not re.search(r'url\(|@import|@font-face', text), 'html: no style sheet reaches outside')
    data = json.loads(scan.data)
    names = [f[0] for f in data['functions']]
    check(names == [f['name'] for f in js['functions']],
          'html: the data list the %d functions of --format=json, in order' % len(names))
    # the page's calls are gprof's, from other functions; aprof's JSON counts
    # the recursive activations too
    check(all(close(f[3], g['self']) and close(f[3] + f[4], g['total'], 1e-9, 1e-6)
              and f[5] + (f[6] if aprof else 0) == g['calls'] and f[6] == g['recursive_calls']
              for f, g in zip(data['functions'], js['functions'])),
          'html: self, total and calls as in --format=json')
    check(len(data['arcs']) == len([a for a in js['arcs'] if a['caller'] != a['callee']]),
          'html: the arcs of --format=json')
    check(data['call_graph'] == bool(js['arcs']) or not aprof, 'html: says whether there is a call graph')
    if aprof and not extra:
        check_plots(js, data, text)
    return data


def band_holds_fit(band, fit, points):
    """A band's outline: its upper edge by ascending size over the measured
    sizes, its lower edge back at the same sizes, the fitted curve between."""
    pts, lo, hi = band['points'], points[0]['size'], points[-1]['size']
    m = len(pts) // 2
    upper, lower = pts[:m], pts[m:][::-1]
    if not band.get('band') or band['line'] or len(pts) % 2 or m < 8 or \
       [q[0] for q in upper] != [q[0] for q in lower] or \
       any(a[0] >= b[0] for a, b in zip(upper, upper[1:])) or \
       not all(lo - 1e-9 <= q[0] <= hi * (1 + 1e-9) for q in upper) or \
       not fit['c_lo'] <= fit['c'] <= fit['c_hi']:
        return False
    for u, l in zip(upper, lower):
        y = fit['a'] + fit['b'] * u[0] ** fit['c'] if u[0] > 0 else None
        tol = 1e-6 * (abs(u[1]) + abs(l[1])) + 1e-6
        if u[1] < l[1] - tol or (y is not None and not l[1] - tol <= y <= u[1] + tol):
            return False
    return True


def check_plots(js, data, text):
    """aprof: the page's cost plots against --format=json."""
    by_name = {f['name']: f for f in js['functions']}
    plots = data['plots']
    check(plots and 'id="plots"' in text and 'id="source"' not in text,
          'aprof html: a Cost plots tab (%d plots) and no Source tab' % len(plots))
    bad = []
    for p in plots:
        f = by_name.get(p['name'])
        curves = {c['kind']: c for c in p['curves']}
        if not f or not f['fit'] or set(curves) != ({'worst', 'avg', 'best', 'fit-worst', 'band-worst'} |
                                                     ({'fit-avg', 'band-avg'} if f['fit_avg'] else set())):
            bad.append(p['name'])
            continue
        for kind, key in (('worst', 'max'), ('avg', 'avg'), ('best', 'min')):
            pts = curves[kind]['points']
            if curves[kind]['line'] or [q[0] for q in pts] != [x['size'] for x in f['points']] or \
               not all(close(q[1], x[key], 1e-9) for q, x in zip(pts, f['points'])):
                bad.append('%s %s' % (p['name'], kind))
        for kind, key in (('fit-worst', 'fit'), ('fit-avg', 'fit_avg')):
            if kind not in curves:
                continue
            fit, pts = f[key], curves[kind]['points']
            lo, hi = f['points'][0]['size'], f['points'][-1]['size']
            if not curves[kind]['line'] or len(pts) < 8 or \
               not all(lo - 1e-9 <= q[0] <= hi * (1 + 1e-9) for q in pts) or \
               not all(close(q[1], fit['a'] + fit['b'] * q[0] ** fit['c'], 1e-6, 1e-6 * abs(fit['a']) + 1e-6)
                       for q in pts if q[0] > 0):
                bad.append('%s %s' % (p['name'], kind))
        for kind, key in (('band-worst', 'fit'), ('band-avg', 'fit_avg')):
            if kind in curves and not band_holds_fit(curves[kind], f[key], f['points']):
                bad.append('%s %s' % (p['name'], kind))
    check(not bad, 'aprof html: every plot a routine with a fit, its points, both fitted curves '
          'and their bands as --format=json has them %s' % bad[:3])
    costly = [f['name'] for f in sorted(js['functions'], key=lambda f: -f['total']) if f['fit']][:8]
    check(set(costly) <= {p['name'] for p in plots},
          'aprof html: the 8 costliest routines with a fit are plotted')


def one_profile(files, p):
    """The arguments that read profile p alone."""
    return [p] if aprof else [files[0], p]


def check_diff_self(files):
    prof = files if aprof else files[1:]
    zero = '0' if aprof or not sampled else '0.00'
    for p in prof:
        out = run(['--format=json', '--diff=' + p] + one_profile(files, p))
        d = load_json(out)
        nonzero = [f['name'] for f in d['functions']
                   if any(f[k] != 0 for k in ('self', 'children', 'total', 'calls', 'recursive_calls'))]
        nonzero += ['arc %d' % i for i, a in enumerate(d['arcs']) if a['count'] or a['self'] or a['children']]
        check(d['total'] == 0 and not nonzero and d['functions'],
              'diff: %s minus itself is all zeros in JSON (%d functions) %s' % (p, len(d['functions']), nonzero[:3]))
        text = run(['--diff=' + p] + one_profile(files, p))
        rows = [l for l in text.splitlines() if re.match(r'^ +[0-9]', l)]
        calls = 7 if aprof or not sampled else 8  # the change in calls (after the noise column)
        same = all(l.split()[2] == zero and l.split()[3] == '0.0%' and l.split()[calls] in ('0', '-')
                   for l in rows)
        check(rows and same, 'diff: %s minus itself shows no change in the text (%d rows)' % (p, len(rows)))


def check_diff_base(files, base):
    cur = load_json(run(['--format=json'] + files))
    old = load_json(run(['--format=json'] + one_profile(files, base)))
    d = load_json(run(['--format=json', '--diff=' + base] + files))
    by_cur = {f['mangled']: f for f in cur['functions']}
    by_old = {f['mangled']: f for f in old['functions']}
    zero = {'self': 0, 'children': 0, 'total': 0, 'calls': 0}
    bad = []
    for f in d['functions']:
        c, b = by_cur.get(f['mangled'], zero), by_old.get(f['mangled'], zero)
        for k in ('self', 'total', 'calls'):
            if not close(f[k], c[k] - b[k], 1e-7, 1e-9) or not close(f['base_' + k], b[k], 1e-7, 1e-9):
                bad.append('%s.%s' % (f['name'], k))
    check(not bad and len(d['functions']) == len(set(by_cur) | set(by_old)),
          'diff: every JSON number is profile minus base, with base_self/base_total/base_calls %s' % bad[:3])
    check(close(d['total'], cur['total'] - old['total']) and close(d['base_total'], old['total']),
          'diff: the totals')
    changes = [abs(f['self']) for f in d['functions']]
    check(changes == sorted(changes, reverse=True), 'diff: rows sorted by the size of the change')
    if aprof or not sampled:
        noisy = [f['name'] for f in d['functions'] if f['noise_self'] or f['noise_total']]
        check(not noisy and not d['noise_total'], 'diff: counted costs (aprof, IgProf bytes) are not '
              'sampled: no noise')
    else:
        period = cur.get('period', 0.01)  # gmon.out: 100 Hz
        noisy = [f['name'] for f in d['functions']
                 if not close(f['noise_self'], math.sqrt((by_cur.get(f['mangled'], zero)['self'] + f['base_self']) / period) * period, 1e-6)]
        check(not noisy, 'diff: the noise is the square root of the samples in both profiles (%g s each)' % period)
    return d


def main():
    global symprof, aprof, sampled
    args = sys.argv[1:]
    base = None
    if '--base' in args:
        i = args.index('--base')
        base = args[i + 1]
        del args[i:i + 2]
    symprof, where, files = os.path.abspath(args[0]), args[1], args[2:]
    os.chdir(where)
    js = load_json(run(['--format=json'] + files))
    aprof = js['format'] == 'aprof'
    sampled = js['metric']['unit'] == 'seconds'  # IgProf memory counters count bytes
    with tempfile.TemporaryDirectory() as tmp:
        check_flamegraph(js['total'], files, tmp, js['arcs'])
        scale = float(ET.parse(os.path.join(tmp, 'flame.svg')).getroot().get('data-scale'))
        check_folded(js['total'], scale, files)
        check_dot(js, files, tmp)
        check_html(js, files, tmp)
        check_diff_self(files)
        if base:
            check_diff_base(files, base)
            check_html(js, files, tmp, ['--diff=' + base])
    sys.exit(1 if failures else 0)


symprof = None
aprof = False
sampled = True
if __name__ == '__main__':
    main()
