#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Generate a large, deterministic C (or C++) program to profile with -pg.

The program is the benchmark input for symprof versus GNU gprof: thousands of
functions over tens of translation units, with a call graph shaped like a real
program's:

  * a layered DAG: roots (called by the driver in main.c) at layer 0, leaves in
    the last layer; each function calls 0..6 functions in deeper layers,
    mostly the next layer, often in its own unit;
  * self-recursive functions and a few mutual-recursion cycles (back edges are
    guarded by a depth limit, so every run terminates);
  * indirect calls through a global dispatch table and per-unit static tables;
  * static functions (whose names repeat across units, as in real code) and
    global ones;
  * a few hot functions and a long tail of warm and cold ones: each function
    runs a loop whose trip count is chosen from the expected number of calls,
    so self time follows a heavy-tailed distribution.

Calls are gated by a hash of the value flowing through the program, so the
generator can compute each function's expected number of calls per iteration
of the driver and choose gates that call every function regularly.

Usage: gen-program.py [-n FUNCTIONS] [-u UNITS] [--seed S] [--cxx] -o DIR

Shape options for bench/matrix.sh (each off by default; without them the
output is the same as before they existed, for every seed):
  --back-edges P      a recursive call from P of the functions below layer 1
                      to a random function of an earlier layer: with P about
                      0.03, gprof finds one cycle holding most of the program
  --table-calls P, --local-calls P
                      how often a function gets an indirect call through the
                      global or its unit's table (default 0.05 and 0.04)
  --cycle-len A:B     mutual-recursion cycles of A..B members (default 2..6),
                      each calling only itself and leaves outside the cycles
                      (so that gprof finds them apart), their back edges tuned
  --maxdepth D        the depth below which recursive calls are taken (24)
  --deep D            7 leaves recurse (4 on themselves, 3 in a ring) down to
                      depth D whenever they are called: a stack D frames deep
  --tiny              no filler blocks: functions of a few instructions
  --text-pad BYTES    an uncalled function of BYTES bytes in main.c: glibc
                      keeps arcs for 3% of the text size and writes no
                      gmon.out beyond that (its gmon tunables are not used
                      by a dynamically linked program here)
  --libc              the costly loops call snprintf, strlen, memchr and
                      qsort: most of the time is spent in libc

DIR receives prog.h, one file per unit, main.c (main.cc), a Makefile that builds
`prog` with -pg -g -O2, and manifest.txt with the generator's statistics. The
program's only argument is the number of iterations of the driver loop. The
same arguments always produce the same files (stdlib random with a fixed seed;
no dict-order or hash() dependence).
"""

import argparse
import math
import os
import random
import sys

# ---- vocabulary for names ----

MODULES = """lexer parser sema codegen alloc cache net io fmt json xml sql btree hash
regex crypto zip image audio video font layout render shader physics anim script
vm gc jit sched timer event log config cli plugin db index query plan exec stats
trace mem pool str utf path fs proc sig sync lock queue heap graph geo mesh tex
http dns tls""".split()

VERBS = """parse emit scan hash lookup insert update resolve flush encode decode merge
split visit walk reduce check compute fold map filter sort push pop load store
read write open close init reset grow shrink copy move find match apply build
free alloc mark sweep commit rollback render draw sample mix clamp scale rotate
pack unpack compress expand probe evict refresh sync""".split()

NOUNS = """token node buffer entry table symbol frame block page record key edge graph
list tree queue cache chunk segment header state context slot bucket range span
cursor stream packet field value item group batch vertex pixel glyph rule path
name scope type expr stmt arena region index column row tuple plan heap stack
event timer handle lock vector matrix""".split()

# Statically linked names that most units define privately (duplicates across
# units are common in real programs and exercise symbol handling).
COMMON_STATIC = ["helper", "init_once", "compare_keys", "do_step", "cleanup", "validate"]

MAXDEPTH = 24  # --maxdepth changes it (main() sets it before anything uses it)


class Fn:
	"""One generated function."""

	def __init__(self, idx, unit, layer):
		self.idx = idx
		self.unit = unit
		self.layer = layer
		self.name = None
		self.static = False
		self.inline = False
		self.kind = "plain"  # C++: plain, template, member
		self.edges = []  # [Edge]
		self.callers = 0
		self.in_table = False  # global dispatch table
		self.in_local = False  # per-unit static table
		self.cost = 1
		self.expected = 0.0
		self.hot = False
		self.deep = False  # --deep: recurses down to args.deep
		self.ring = False  # --cycle-len: in a ring that calls only itself and leaves


class Edge:
	"""A call from one function: direct, back (recursion) or indirect."""

	def __init__(self, kind, target, gate):
		self.kind = kind  # "call", "back", "table", "local"
		self.target = target  # Fn for call/back, None for table/local
		self.gate = gate  # 1..256: called with probability gate/256


# ---- graph construction ----

def layer_sizes(n, layers, roots):
	rest = n - roots
	base = [1.0 + 0.35 * math.sin(math.pi * (i + 0.5) / (layers - 1)) for i in range(layers - 1)]
	total = sum(base)
	sizes = [int(rest * b / total) for b in base]
	sizes[-1] += rest - sum(sizes)
	return [roots] + sizes


def build_graph(rng, args):
	n, units, layers = args.functions, args.units, args.layers
	roots = max(4, n // 200)
	sizes = layer_sizes(n, layers, roots)
	fns = []
	by_layer = []
	for layer, size in enumerate(sizes):
		row = []
		for _ in range(size):
			unit = 0 if layer == 0 and not row else rng.randrange(units)
			f = Fn(len(fns), unit, layer)
			fns.append(f)
			row.append(f)
		by_layer.append(row)
	by_layer_unit = [{} for _ in range(layers)]
	for f in fns:
		by_layer_unit[f.layer].setdefault(f.unit, []).append(f)

	def pick_target(f, layer):
		same = by_layer_unit[layer].get(f.unit)
		if same and rng.random() < args.locality:
			return rng.choice(same)
		return rng.choice(by_layer[layer])

	# DAG edges
	for f in fns:
		if f.layer == layers - 1:
			continue
		if f.layer > 0 and rng.random() < 0.08:
			continue  # an early leaf
		k = rng.choices([1, 2, 3, 4, 5, 6], [30, 32, 20, 10, 5, 3])[0]
		seen = set()
		for _ in range(k):
			if rng.random() < 0.72 or f.layer >= layers - 2:
				layer = f.layer + 1
			else:
				layer = rng.randrange(f.layer + 2, layers)
			g = pick_target(f, layer)
			if g.idx in seen:
				continue
			seen.add(g.idx)
			f.edges.append(Edge("call", g, 256))
	# every non-root function gets at least one caller
	for f in fns:
		for e in f.edges:
			e.target.callers += 1
	for f in fns:
		if f.layer == 0 or f.callers:
			continue
		caller = pick_target(f, f.layer - 1)
		caller.edges.append(Edge("call", f, 256))
		f.callers += 1
	return fns, by_layer


def add_recursion(rng, args, fns, by_layer):
	layers = args.layers
	middle = [f for f in fns if 1 <= f.layer <= layers - 3]
	# self recursion
	for f in rng.sample(middle, min(len(middle), max(1, len(fns) // 120))):
		f.edges.append(Edge("back", f, 96))
	# mutual recursion cycles of 2..6 members picked from consecutive
	# layers: forward calls, then a back edge from the last to the first
	cycles = []
	in_ring = set()
	for c in range(args.cycles):
		if args.cycle_len:
			size = min(rng.randint(*args.cycle_len), layers - 3)
		else:
			size = min(2 + c % 5, layers - 3)
		start = rng.randrange(1, layers - size - 1)
		members = [rng.choice(by_layer[start + i]) for i in range(size)]
		if len({m.idx for m in members}) < size:
			continue
		if args.cycle_len:
			# --cycle-len: cycles apart from each other, so that the
			# calls around them do not multiply
			if any(m.idx in in_ring for m in members):
				continue
			in_ring.update(m.idx for m in members)
		for a, b in zip(members, members[1:]):
			if all(e.target is not b for e in a.edges):
				a.edges.append(Edge("call", b, 256))
				b.callers += 1
		members[-1].edges.append(Edge("back", members[0], 32 if args.cycle_len else 128))
		cycles.append(members)
	if args.cycle_len:
		isolate_rings(rng, fns, by_layer, cycles, in_ring)
	return cycles


def isolate_rings(rng, fns, by_layer, cycles, in_ring):
	"""--cycle-len: a ring's members call only each other and leaves
	outside every ring, so that no path through the layers ties two rings
	into one cycle: gprof's cycles are the rings."""
	last = len(by_layer) - 1
	for members in cycles:
		own = {m.idx for m in members}
		for m in members:
			m.ring = True
			m.edges = [e for e in m.edges
				   if e.target is not None
				   and (e.target.idx in own
					or (e.kind == "call" and e.target.layer == last
					    and e.target.idx not in in_ring))]
	# every function below layer 0 keeps a caller
	for f in fns:
		f.callers = 0
	for f in fns:
		for e in f.edges:
			if e.kind == "call":
				e.target.callers += 1
	for f in fns:
		if f.layer == 0 or f.callers:
			continue
		caller = rng.choice([g for g in by_layer[f.layer - 1] if g.idx not in in_ring])
		caller.edges.append(Edge("call", f, 256))
		f.callers += 1


def add_back_edges(rng, args, fns, by_layer):
	"""--back-edges: recursive calls to earlier layers, which tie most of the
	program into one cycle."""
	count = 0
	for f in fns:
		if f.layer >= 2 and rng.random() < args.back_edges:
			g = rng.choice(by_layer[rng.randrange(1, f.layer)])
			f.edges.append(Edge("back", g, 128))
			count += 1
	return count


def add_deep(rng, args, fns, by_layer):
	"""--deep: leaves that recurse down to depth args.deep each time they are
	called: 4 on themselves and a ring of 3."""
	leaves = [f for f in by_layer[-1] if not f.in_table]
	picked = rng.sample(leaves, min(7, len(leaves)))
	for f in picked[:4]:
		f.edges.append(Edge("deep", f, 256))
	ring = picked[4:]
	for a, b in zip(ring, ring[1:] + ring[:1]):
		a.edges.append(Edge("deep", b, 256))
	for f in picked:
		f.deep = True
	return picked


def add_indirect(rng, args, fns, by_layer):
	layers = args.layers
	deep = by_layer[-1] + by_layer[-2]
	table = rng.sample(deep, min(len(deep), args.table))
	for f in table:
		f.in_table = True
	for f in fns:
		if f.layer <= layers - 3 and not f.ring and rng.random() < args.table_calls:
			f.edges.append(Edge("table", None, 64))
	# per-unit static callback tables of up to 4 functions from deep layers
	local = {}
	for f in by_layer[-1] + by_layer[-2] + by_layer[-3]:
		if not f.in_table and len(local.setdefault(f.unit, [])) < 4:
			local[f.unit].append(f)
			f.in_local = True
	for f in fns:
		if f.layer <= layers - 4 and f.unit in local and not f.ring and rng.random() < args.local_calls:
			f.edges.append(Edge("local", None, 96))
	return table, local


def decide_linkage(rng, args, fns, table):
	xunit = set()
	for f in fns:
		for e in f.edges:
			if e.target is not None and e.target.unit != f.unit:
				xunit.add(e.target.idx)
	for f in fns:
		f.static = not (f.layer == 0 or f.in_table or f.idx in xunit)
		if f.static and not f.in_local and rng.random() < 0.03:
			f.inline = True  # left to the compiler: usually inlined away


# ---- expected calls and gates ----

def expected_calls(fns, table, local):
	"""Expected calls per driver iteration, by depth (back edges stop at MAXDEPTH)."""
	n = len(fns)
	total = [0.0] * n
	cur = {f.idx: 1.0 for f in fns if f.layer == 0}
	for depth in range(MAXDEPTH + 16):
		if not cur:
			break
		nxt = {}
		for idx, e_f in cur.items():
			total[idx] += e_f
			for e in fns[idx].edges:
				p = e.gate / 256.0
				if e.kind == "back" and depth >= MAXDEPTH:
					continue
				if e.kind == "deep":
					continue  # not tuned: the leaf recurses args.deep deep
				if e.kind in ("call", "back"):
					nxt[e.target.idx] = nxt.get(e.target.idx, 0.0) + e_f * p
				else:
					targets = table if e.kind == "table" else local[fns[idx].unit]
					share = e_f * p / len(targets)
					for g in targets:
						nxt[g.idx] = nxt.get(g.idx, 0.0) + share
		cur = {k: v for k, v in nxt.items() if v > 1e-9}
	for f in fns:
		f.expected = total[f.idx]


def tune_gates(args, fns, table, local):
	"""Scale the gates of the direct calls into each function so that it is
	called about args.calls times per iteration (within a factor of 1.4)."""
	target = args.calls
	incoming = {}
	for c in fns:
		for e in c.edges:
			if e.kind == "call" or (args.cycle_len and e.kind == "back"):
				incoming.setdefault(e.target.idx, []).append(e)
	for _ in range(40 if args.cycle_len else 8):
		expected_calls(fns, table, local)
		changed = False
		for f in fns:
			if f.layer == 0 or f.expected <= 0:
				continue
			ratio = target / f.expected
			if 0.7 <= ratio <= 1.4:
				continue
			if args.cycle_len:
				ratio = math.sqrt(ratio)  # damped: cycles feed back
			for e in incoming.get(f.idx, []):
				gate = max(1, min(256, round(e.gate * ratio)))
				if gate != e.gate:
					e.gate = gate
					changed = True
		if not changed:
			break
	expected_calls(fns, table, local)


def assign_costs(rng, args, fns):
	"""Loop trip counts: a few hot functions, a heavy tail, many cold ones."""
	work = args.work
	cand = sorted(fns, key=lambda f: -f.expected)[: len(fns) // 2]
	cand = [f for f in cand if not f.inline]
	hot = rng.sample(cand, min(len(cand), args.hot))
	share = {}
	for i, f in enumerate(hot):
		f.hot = True
		share[f.idx] = 0.50 * (1.0 / (i + 1) ** 1.1)
	hot_total = sum(share.values())
	for k in share:
		share[k] *= 0.50 / hot_total
	warm = [f for f in fns if not f.hot and rng.random() < 0.45]
	weights = [rng.lognormvariate(0.0, 1.6) for _ in warm]
	wsum = sum(weights)
	for f, w in zip(warm, weights):
		share[f.idx] = 0.45 * w / wsum
	for f in fns:
		if f.expected <= 0:
			f.cost = 1
			continue
		s = share.get(f.idx)
		if s is None:
			f.cost = rng.randint(1, 6)  # cold
		else:
			f.cost = max(1, min(2_000_000, round(s * work / f.expected)))


# ---- naming ----

def assign_names(rng, args, fns, units):
	modules = []
	for u in range(units):
		m = MODULES[u % len(MODULES)]
		modules.append(m if u < len(MODULES) else "%s%d" % (m, u // len(MODULES)))
	taken_global = set()
	taken_unit = [set() for _ in range(units)]
	common_used = [0] * units
	for f in fns:
		for attempt in range(100):
			if f.static and common_used[f.unit] < len(COMMON_STATIC) and rng.random() < 0.02:
				base = COMMON_STATIC[common_used[f.unit]]
				common_used[f.unit] += 1
			elif f.static or args.cxx:
				base = "%s_%s" % (rng.choice(VERBS), rng.choice(NOUNS))
			else:
				base = "%s_%s_%s" % (modules[f.unit], rng.choice(VERBS), rng.choice(NOUNS))
			name = base if attempt < 20 else "%s_%d" % (base, attempt)
			if name in taken_unit[f.unit]:
				continue
			# C: one global namespace; C++: each unit has its own
			if not args.cxx and name in taken_global:
				continue
			if not args.cxx and not f.static and any(name in t for t in taken_unit):
				continue
			break
		f.name = name
		taken_unit[f.unit].add(name)
		if not f.static:
			taken_global.add(name)
	return modules


# ---- code emission ----

class Emitter:
	def __init__(self, rng, args, fns, table, local, modules):
		self.rng = rng
		self.args = args
		self.cxx = args.cxx
		self.fns = fns
		self.table = table
		self.local = local
		self.modules = modules

	def ref(self, f, from_unit):
		"""How to name f in a call from from_unit."""
		if not self.cxx:
			return f.name
		ns = "" if f.unit == from_unit else "%s::" % self.ns(f.unit)
		if f.kind == "template":
			return "%s%s<unsigned>" % (ns, f.name)
		if f.kind == "member":
			return "%sEngine::%s" % (ns, f.name)
		return ns + f.name

	def ns(self, unit):
		return "mod_%s" % self.modules[unit]

	def proto(self, f, qualified=False):
		if self.cxx and f.kind == "template":
			return "template <typename T> T %s(T x, unsigned depth)" % f.name
		name = ("Engine::" + f.name) if (self.cxx and f.kind == "member" and qualified) else f.name
		return "unsigned %s(unsigned x, unsigned depth)" % name

	# -- header --
	def header(self):
		out = []
		w = out.append
		w("/* Generated by bench/gen-program.py (seed %d): do not edit. */" % self.args.seed)
		w("#ifndef PROG_H")
		w("#define PROG_H")
		w("")
		w("#define PROG_MAXDEPTH %du" % MAXDEPTH)
		if self.args.deep:
			w("#define PROG_DEEP %du" % self.args.deep)
		w("#define PROG_NOINLINE __attribute__((noinline))")
		w("")
		w("static inline unsigned prog_mix(unsigned x)")
		w("{")
		w("\tx ^= x >> 16;")
		w("\tx *= 0x7feb352du;")
		w("\tx ^= x >> 15;")
		w("\tx *= 0x846ca68bu;")
		w("\tx ^= x >> 16;")
		w("\treturn x;")
		w("}")
		w("")
		w("typedef unsigned (*prog_fn)(unsigned x, unsigned depth);")
		w("extern const prog_fn prog_dispatch[%d];" % len(self.table))
		w("")
		by_unit = {}
		for f in self.fns:
			if not f.static:
				by_unit.setdefault(f.unit, []).append(f)
		for u in sorted(by_unit):
			group = by_unit[u]
			if self.cxx:
				w("namespace %s {" % self.ns(u))
				members = [f for f in group if f.kind == "member"]
				if members:
					w("struct Engine {")
					for f in members:
						w("\tstatic %s;" % self.proto(f))
					w("};")
				for f in group:
					if f.kind == "plain":
						w("%s;" % self.proto(f))
					elif f.kind == "template":
						w("%s;" % self.proto(f))
						w("extern template unsigned %s<unsigned>(unsigned x, unsigned depth);" % f.name)
				w("} /* namespace %s */" % self.ns(u))
			else:
				w("/* %s.c */" % self.unit_name(u))
				for f in group:
					w("%s;" % self.proto(f))
			w("")
		w("#endif /* PROG_H */")
		return "\n".join(out) + "\n"

	def unit_name(self, u):
		return "u%02d_%s" % (u, self.modules[u])

	# -- units --
	def unit(self, u, members):
		rng = self.rng
		p = "u%02d" % u
		out = []
		w = out.append
		w("/* Generated by bench/gen-program.py (seed %d): unit %d, module %s. */"
		  % (self.args.seed, u, self.modules[u]))
		if self.args.libc:
			w("#include <stdio.h>" if not self.cxx else "#include <cstdio>")
			w("#include <stdlib.h>" if not self.cxx else "#include <cstdlib>")
			w("#include <string.h>" if not self.cxx else "#include <cstring>")
		w('#include "prog.h"')
		w("")
		if self.cxx:
			w("namespace %s {" % self.ns(u))
			w("")
		if self.args.libc:
			w("static int %s_cmp(const void *a, const void *b)" % p)
			w("{")
			w("\tunsigned x = *(const unsigned *)a, y = *(const unsigned *)b;")
			w("")
			w("\treturn (x > y) - (x < y);")
			w("}")
			w("")
		w("enum %s_mode { %s };" % (p, ", ".join("%s_MODE_%s" % (p.upper(), m)
						       for m in ("IDLE", "SCAN", "MERGE", "FLUSH"))))
		w("")
		w("struct %s_ctx {" % p)
		w("\tunsigned a;")
		w("\tunsigned b;")
		w("\tunsigned long acc;")
		w("\tenum %s_mode mode;" % p)
		w("\tunsigned char lane[8];")
		w("};")
		w("")
		vals = ", ".join("0x%08xu" % rng.getrandbits(32) for _ in range(64))
		w("static const unsigned %s_tab[64] = { %s };" % (p, vals))
		w("")
		w("static inline unsigned %s_step(struct %s_ctx *c, unsigned v)" % (p, p))
		w("{")
		w("\tc->a += v;")
		w("\tc->b ^= c->a >> 3;")
		w("\tc->acc += c->b;")
		w("\tif (c->mode == %s_MODE_FLUSH)" % p.upper())
		w("\t\tc->acc >>= 1;")
		w("\treturn c->a ^ c->b;")
		w("}")
		w("")
		statics = [f for f in members if f.static]
		if statics:
			if self.cxx:
				w("namespace {")
			for f in statics:
				w("static %s;" % self.proto(f) if not self.cxx else "%s;" % self.proto(f))
			if self.cxx:
				w("} /* namespace */")
			w("")
		local = self.local.get(u)
		if local:
			w("static const prog_fn %s_ops[%d] = { %s };"
			  % (p, len(local), ", ".join("&" + self.ref(f, u) for f in local)))
			w("")
		for f in members:
			out.extend(self.function(f, p))
			w("")
		if self.cxx:
			for f in members:
				if f.kind == "template" and not f.static:
					w("template unsigned %s<unsigned>(unsigned x, unsigned depth);" % f.name)
			w("} /* namespace %s */" % self.ns(u))
		return "\n".join(out) + "\n"

	def function(self, f, p):
		rng = self.rng
		out = []
		w = out.append
		attr = "" if f.inline else "PROG_NOINLINE "
		if self.cxx and f.static:
			w("namespace {")
		if self.cxx and f.kind == "template":
			w("template <typename T> %sT %s(T x, unsigned depth)" % (attr, f.name))
		elif f.static and not self.cxx:
			w("static %s%s" % (attr, self.proto(f)))
		else:
			w("%s%s" % (attr, self.proto(f, qualified=True)))
		w("{")
		w("\tstruct %s_ctx c = { (unsigned)x, 0x%08xu, 0, %s_MODE_IDLE, { 0 } };"
		  % (p, rng.getrandbits(32), p.upper()))
		w("\tunsigned h = prog_mix((unsigned)x ^ 0x%08xu);" % rng.getrandbits(32))
		w("\tunsigned i;")
		w("")
		# the cost loop
		var = 1
		while var * 8 <= f.cost:
			var *= 2
		var -= 1
		bound = "%du + (h & %du)" % (f.cost, var) if var else "%du" % f.cost
		if self.args.libc and f.cost > 6:
			# libc's work: formatting, scanning, and sorting with a
			# comparator of ours (called back from libc)
			w("\t{")
			w("\t\tchar buf[48];")
			w("\t\tunsigned arr[16];")
			w("")
			w("\t\tfor (i = 0; i < %s; i++) {" % bound)
			w('\t\t\tint n = snprintf(buf, sizeof buf, "%%u:%%x:%%u", h, i, h >> 7);')
			w("")
			w("\t\t\th = h * 31u + (unsigned)n + (unsigned)strlen(buf);")
			w("\t\t\th += (unsigned)(memchr(buf, ':', (size_t)n) != NULL);")
			w("\t\t\tif ((i & 7u) == 0) {")
			w("\t\t\t\tunsigned j;")
			w("")
			w("\t\t\t\tfor (j = 0; j < 16; j++)")
			w("\t\t\t\t\tarr[j] = prog_mix(h + j);")
			w("\t\t\t\tqsort(arr, 16, sizeof arr[0], %s_cmp);" % p)
			w("\t\t\t\th ^= arr[3];")
			w("\t\t\t}")
			w("\t\t}")
			w("\t}")
		elif rng.random() < 0.6:
			w("\tfor (i = 0; i < %s; i++)" % bound)
			w("\t\th = (h ^ (h >> 13)) * 0x5bd1e995u + i;")
		else:
			w("\tfor (i = 0; i < %s; i++) {" % bound)
			w("\t\th = %s_tab[(h + i) & 63] + h * 33u;" % p)
			w("\t\tif (h & 0x100u)")
			w("\t\t\th ^= h >> 7;")
			w("\t}")
		# filler blocks: realistic code bulk and line-table entries
		for _ in range(0 if self.args.tiny else rng.choices([0, 1, 2, 3], [30, 40, 20, 10])[0]):
			out.extend(self.block(p))
		# calls
		for e in f.edges:
			out.extend(self.call(f, e, p))
		w("\treturn (%s)(h ^ c.a ^ (unsigned)c.acc);"
		  % ("T" if self.cxx and f.kind == "template" else "unsigned"))
		w("}")
		if self.cxx and f.static:
			w("} /* namespace */")
		return out

	def block(self, p):
		rng = self.rng
		k = rng.randrange(6)
		s = rng.getrandbits(32)
		if k == 0:
			return ["\th ^= %s_step(&c, h + 0x%08xu);" % (p, s)]
		if k == 1:
			return ["\th += %s_tab[h & 63] ^ (h >> %d);" % (p, rng.randint(3, 11))]
		if k == 2:
			sh = rng.randint(1, 20)
			return ["\tswitch ((h >> %d) & 3) {" % sh,
				"\tcase 0:",
				"\t\tc.mode = %s_MODE_SCAN;" % p.upper(),
				"\t\th += 0x%08xu;" % s,
				"\t\tbreak;",
				"\tcase 1:",
				"\t\tc.mode = %s_MODE_MERGE;" % p.upper(),
				"\t\th ^= h << %d;" % rng.randint(1, 9),
				"\t\tbreak;",
				"\tcase 2:",
				"\t\tc.mode = %s_MODE_FLUSH;" % p.upper(),
				"\t\th = (h << 5) | (h >> 27);",
				"\t\tbreak;",
				"\tdefault:",
				"\t\th -= %s_step(&c, h);" % p,
				"\t\tbreak;",
				"\t}"]
		if k == 3:
			return ["\tif (h & 0x%xu)" % (1 << rng.randint(0, 31)),
				"\t\th = (h << %d) | (h >> %d);" % ((r := rng.randint(1, 31)), 32 - r),
				"\telse",
				"\t\th -= 0x%08xu;" % s]
		if k == 4:
			return ["\tfor (i = 0; i < 8; i++)",
				"\t\tc.lane[i] = (unsigned char)(h >> (i * 3));",
				"\th += c.lane[h & 7] * 0x%xu;" % (s | 1)]
		return ["\tc.acc += (unsigned long)h * 0x%08xu;" % s,
			"\tc.b = (unsigned)(c.acc >> %d);" % rng.randint(8, 40),
			"\th ^= c.b;"]

	def call(self, f, e, p):
		s1 = self.rng.getrandbits(32)
		s2 = self.rng.getrandbits(32)
		gate = "((h ^ 0x%08xu) * 0x9e3779b1u >> 24) < %du" % (s1, e.gate)
		if e.kind == "back":
			cond = "depth < PROG_MAXDEPTH && " + gate
		elif e.kind == "deep":
			cond = "depth < PROG_DEEP"
		else:
			cond = gate if e.gate < 256 else None
		if e.kind in ("call", "back", "deep"):
			callee = self.ref(e.target, f.unit)
			arg = "h ^ 0x%08xu" % s2
			stmt = "h += %s(%s, depth + 1);" % (callee, arg)
		elif e.kind == "table":
			stmt = "h += prog_dispatch[(h >> 7) %% %du](h ^ 0x%08xu, depth + 1);" % (len(self.table), s2)
		else:
			n = len(self.local[f.unit])
			stmt = "h += %s_ops[(h >> 9) %% %du](h ^ 0x%08xu, depth + 1);" % (p, n, s2)
		if cond is None:
			return ["\t" + stmt]
		return ["\tif (%s)" % cond, "\t\t" + stmt]

	def dispatch(self):
		out = ["/* Generated by bench/gen-program.py (seed %d): the global dispatch table. */"
		       % self.args.seed, '#include "prog.h"', ""]
		refs = ",\n".join("\t&%s" % self.ref(f, -1) for f in self.table)
		out.append("const prog_fn prog_dispatch[%d] = {\n%s\n};" % (len(self.table), refs))
		return "\n".join(out) + "\n"

	def main(self, roots, default_iters):
		out = []
		w = out.append
		w("/* Generated by bench/gen-program.py (seed %d): the driver. */" % self.args.seed)
		w("#include <stdio.h>" if not self.cxx else "#include <cstdio>")
		w("#include <stdlib.h>" if not self.cxx else "#include <cstdlib>")
		w('#include "prog.h"')
		w("")
		if self.args.text_pad:
			w("/* never called: room in .text for glibc's arc table (3% of it) */")
			w("PROG_NOINLINE void prog_text_pad(void)")
			w("{")
			w('\t__asm__ volatile(".skip %d, 0x90");' % self.args.text_pad)
			w("}")
			w("")
		w("static PROG_NOINLINE unsigned run_iteration(unsigned long it)")
		w("{")
		w("\tunsigned x = prog_mix((unsigned)it + 1u);")
		w("\tunsigned sum = 0;")
		w("")
		for f in roots:
			w("\tsum += %s(x ^ 0x%08xu, 0);" % (self.ref(f, -1), self.rng.getrandbits(32)))
		w("\treturn sum;")
		w("}")
		w("")
		w("int main(int argc, char **argv)")
		w("{")
		w("\tunsigned long iters = argc > 1 ? strtoul(argv[1], NULL, 10) : %dul;" % default_iters)
		w("\tunsigned long it;")
		w("\tunsigned sum = 0;")
		w("")
		w("\tfor (it = 0; it < iters; it++)")
		w("\t\tsum += run_iteration(it);")
		w('\tprintf("iterations %lu checksum %08x\\n", iters, sum);')
		w("\treturn 0;")
		w("}")
		return "\n".join(out) + "\n"


def makefile(args, units_files):
	cc = "g++" if args.cxx else "gcc"
	ext = "cc" if args.cxx else "c"
	objs = " \\\n\t".join(f[: -len(ext)] + "o" for f in units_files)
	return """# Generated by bench/gen-program.py: builds prog with -pg -g -O2.
CC = {cc}
CFLAGS = -pg -g -O2
LDFLAGS = -pg

OBJS = {objs}

prog: $(OBJS)
\t$(CC) $(LDFLAGS) -o $@ $(OBJS)

%.o: %.{ext} prog.h
\t$(CC) $(CFLAGS) -c -o $@ $<

clean:
\trm -f prog $(OBJS)

.PHONY: clean
""".format(cc=cc, objs=objs, ext=ext)


def write_if_changed(path, text):
	try:
		with open(path) as f:
			if f.read() == text:
				return
	except OSError:
		pass
	with open(path, "w") as f:
		f.write(text)


def main():
	ap = argparse.ArgumentParser(description="generate a large C/C++ program for -pg profiling")
	ap.add_argument("-o", "--out", required=True, help="output directory")
	ap.add_argument("-n", "--functions", type=int, default=6000)
	ap.add_argument("-u", "--units", type=int, default=60)
	ap.add_argument("--seed", type=int, default=1)
	ap.add_argument("--cxx", action="store_true", help="emit C++ (namespaces, templates)")
	ap.add_argument("--layers", type=int, default=10)
	ap.add_argument("--cycles", type=int, default=6, help="mutual-recursion cycles")
	ap.add_argument("--table", type=int, default=64, help="global dispatch table size")
	ap.add_argument("--hot", type=int, default=12, help="number of hot functions")
	ap.add_argument("--calls", type=float, default=3.0,
			help="target expected calls per function per iteration")
	ap.add_argument("--work", type=float, default=3e6,
			help="loop trips per iteration shared by hot and warm functions")
	ap.add_argument("--locality", type=float, default=0.5,
			help="probability that a callee is picked from the caller's unit")
	ap.add_argument("--back-edges", type=float, default=0.0,
			help="share of functions with a recursive call to an earlier layer")
	ap.add_argument("--table-calls", type=float, default=0.05,
			help="probability of an indirect call through the global table")
	ap.add_argument("--local-calls", type=float, default=0.04,
			help="probability of an indirect call through the unit's table")
	ap.add_argument("--cycle-len", default=None, metavar="A:B",
			help="members of each mutual-recursion cycle (default 2..6)")
	ap.add_argument("--maxdepth", type=int, default=24,
			help="depth limit of the recursive calls")
	ap.add_argument("--deep", type=int, default=0, metavar="D",
			help="leaves that recurse down to depth D")
	ap.add_argument("--tiny", action="store_true", help="no filler blocks")
	ap.add_argument("--text-pad", type=int, default=0, metavar="BYTES",
			help="an uncalled function of BYTES bytes (room for more arcs)")
	ap.add_argument("--libc", action="store_true", help="spend the time in libc")
	args = ap.parse_args()
	if args.cycle_len:
		a, _, b = args.cycle_len.partition(":")
		args.cycle_len = (int(a), int(b or a))
	global MAXDEPTH
	MAXDEPTH = args.maxdepth
	if args.functions < 200 or args.units < 1 or args.layers < 6:
		ap.error("need at least 200 functions, 1 unit and 6 layers")

	rng = random.Random(args.seed)
	fns, by_layer = build_graph(rng, args)
	cycles = add_recursion(rng, args, fns, by_layer)
	back = add_back_edges(rng, args, fns, by_layer) if args.back_edges > 0 else 0
	table, local = add_indirect(rng, args, fns, by_layer)
	deep = add_deep(rng, args, fns, by_layer) if args.deep > 0 else []
	decide_linkage(rng, args, fns, table)
	tune_gates(args, fns, table, local)
	assign_costs(rng, args, fns)
	for f in deep:
		f.cost = 1  # called args.deep times per call from the graph
	modules = assign_names(rng, args, fns, args.units)
	if args.cxx:
		for f in fns:
			if not f.static:
				f.kind = rng.choices(["plain", "template", "member"], [60, 25, 15])[0]
	em = Emitter(rng, args, fns, table, local, modules)

	os.makedirs(args.out, exist_ok=True)
	ext = "cc" if args.cxx else "c"
	files = []
	write_if_changed(os.path.join(args.out, "prog.h"), em.header())
	for u in range(args.units):
		members = [f for f in fns if f.unit == u]
		name = "%s.%s" % (em.unit_name(u), ext)
		write_if_changed(os.path.join(args.out, name), em.unit(u, members))
		files.append(name)
	write_if_changed(os.path.join(args.out, "dispatch." + ext), em.dispatch())
	files.append("dispatch." + ext)
	roots = [f for f in fns if f.layer == 0]
	write_if_changed(os.path.join(args.out, "main." + ext), em.main(roots, 1000))
	files.append("main." + ext)
	write_if_changed(os.path.join(args.out, "Makefile"), makefile(args, files))

	edges = [e for f in fns for e in f.edges]
	exp = sorted(f.expected for f in fns)
	trips = sum(f.expected * f.cost for f in fns)
	hot = sum(f.expected * f.cost for f in fns if f.hot)
	stats = [
		("language", "C++" if args.cxx else "C"),
		("seed", args.seed),
		("functions", len(fns)),
		("units", args.units),
		("layers", " ".join(str(len(r)) for r in by_layer)),
		("static functions", sum(f.static for f in fns)),
		("left to the inliner", sum(f.inline for f in fns)),
		("direct call sites", sum(e.kind == "call" for e in edges)),
		("recursive call sites", sum(e.kind == "back" for e in edges)),
	]
	if back:
		stats.append(("back edges to earlier layers", back))
	if deep:
		stats.append(("deep recursion", "%d leaves down to depth %d" % (len(deep), args.deep)))
	stats += [
		("indirect call sites", sum(e.kind in ("table", "local") for e in edges)),
		("mutual-recursion cycles", " ".join(str(len(c)) for c in cycles)),
		("dispatch table", len(table)),
		("expected calls/iteration", "%.0f" % sum(exp)),
		("expected calls/function min/median/max",
		 "%.3g %.3g %.3g" % (exp[0], exp[len(exp) // 2], exp[-1])),
		("expected loop trips/iteration", "%.0f" % trips),
		("hot functions' share of trips", "%.2f" % (hot / trips if trips else 0)),
	]
	text = "".join("%-40s %s\n" % (k + ":", v) for k, v in stats)
	write_if_changed(os.path.join(args.out, "manifest.txt"), text)
	sys.stdout.write(text)


if __name__ == "__main__":
	main()
