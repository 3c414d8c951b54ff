/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unit tests for cg/: the exact stack-based graph and the arc sorting. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>

#include "suites.h"
#include "symprof/alloc.h"
#include "symprof/cg.h"
#include "symprof/profile.h"
#include "symprof/sort.h"
#include "symprof/symbolize.h"
/* white box: the node-order test sets the name ranks itself */
#include "../../cg/internal.h"

static struct sp_symtab *three_funcs(void)
{
	struct sp_symtab *t = sp_symtab_new();
	const char *names[] = {"main", "a", "b"};
	int i;

	for (i = 0; i < 3; i++) {
		struct sp_symbol *s = sp_symtab_add(t);
		s->name = sp_strtab_intern(&t->strs, names[i]);
		s->is_func = 1;
	}
	return t;
}

/* main, a and b at 0x100, 0x200 and 0x300, with `specs` resolved on them. */
static struct sp_symtab *three_funcs_placed(struct sp_symspecs *specs)
{
	struct sp_symtab *t = three_funcs();
	size_t i;

	for (i = 0; i < 3; i++)
		t->syms[i].addr = 0x100 * (i + 1);
	t->text_end = 0x3ff;
	sp_symtab_finalize(t);
	sp_symspecs_resolve(specs, t, NULL);
	return t;
}

/* Options for a graph of arcs only (no histogram), at 100 Hz. */
static void arcs_only(struct sp_cg_gmon_opts *o, const struct sp_symspecs *specs)
{
	memset(o, 0, sizeof(*o));
	o->specs = specs;
	o->hz = 100;
	o->have_arcs = 1;
}

static uint32_t stack(struct sp_profile *p, const uint32_t *leaf_first, size_t n, int64_t v)
{
	uint32_t node = sp_profile_cct_insert_leaf_first(p, leaf_first, n);

	sp_profile_add_value(p, node, 0, v, v, 0);
	return node;
}

static uint32_t find_arc(const struct sp_cg *cg, uint32_t from, uint32_t to)
{
	return sp_cg_arc_find(cg, from, to);
}

static void test_exact_recursion(void)
{
	struct sp_profile *p = sp_profile_new(SP_PROFILE_GPERF);
	struct sp_symtab *t = three_funcs();
	uint32_t first[4] = {0, 1, 2, 3}, funcs[3] = {0, 1, 2};
	uint32_t s1[] = {2, 1, 0}, s2[] = {2, 1, 1, 0}, s3[] = {2, 0}, s4[] = {0};
	struct sp_counter c = {"samples", "count", 1, SP_COUNTER_SUM};
	struct sp_cg_stack_opts o;
	struct sp_cg *cg;
	int i;

	for (i = 0; i < 3; i++) {
		struct sp_frame f;
		memset(&f, 0, sizeof(f));
		f.addr = (uint64_t)i;
		sp_profile_add_frame(p, &f);
	}
	sp_profile_add_counter(p, &c);
	stack(p, s1, 3, 5);
	stack(p, s2, 4, 3);
	stack(p, s3, 2, 2);
	stack(p, s4, 1, 1);
	memset(&o, 0, sizeof(o));
	o.frame_first = first;
	o.frame_funcs = funcs;
	o.funcs = t;
	o.hz = 1;
	o.counts_known = 1;
	cg = sp_cg_from_cct(p, &o, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cg);
	CU_ASSERT_DOUBLE_EQUAL(cg->total_time, 11, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cg->nodes[2].time, 10, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cg->nodes[0].time, 1, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cg->nodes[1].time, 0, 1e-9);
	/* totals count each stack once, recursion included */
	CU_ASSERT_DOUBLE_EQUAL(cg->nodes[0].prop_self + cg->nodes[0].prop_child, 11, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cg->nodes[1].prop_self + cg->nodes[1].prop_child, 8, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cg->nodes[2].prop_self + cg->nodes[2].prop_child, 10, 1e-9);
	/* arcs: a->b carries both stacks ending in b below a, once each */
	CU_ASSERT_DOUBLE_EQUAL(cg->arcs[find_arc(cg, 1, 2)].time, 8, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cg->arcs[find_arc(cg, 1, 2)].child_time, 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cg->arcs[find_arc(cg, 0, 1)].time, 0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cg->arcs[find_arc(cg, 0, 1)].child_time, 8, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cg->arcs[find_arc(cg, 1, 1)].child_time, 3, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(cg->arcs[find_arc(cg, 0, 2)].time, 2, 1e-9);
	CU_ASSERT_EQUAL(cg->arcs[find_arc(cg, 0, 1)].count, 8);
	/* ranks by total: main, b, a */
	CU_ASSERT_EQUAL(cg->nodes[0].index, 1);
	CU_ASSERT_EQUAL(cg->nodes[2].index, 2);
	CU_ASSERT_EQUAL(cg->nodes[1].index, 3);
	sp_cg_free(cg);
	sp_symtab_free(t);
	sp_profile_free(p);
}

static void test_inline_expansion(void)
{
	struct sp_profile *p = sp_profile_new(SP_PROFILE_GPERF);
	struct sp_symtab *t = three_funcs();
	/* frame 0 = main; frame 1 = a with b inlined into it */
	uint32_t first[3] = {0, 1, 3}, funcs[3] = {0, 1, 2};
	uint32_t s1[] = {1, 0};
	struct sp_counter c = {"samples", "count", 1, SP_COUNTER_SUM};
	struct sp_cg_stack_opts o;
	struct sp_frame f;
	struct sp_cg *cg;

	memset(&f, 0, sizeof(f));
	sp_profile_add_frame(p, &f);
	sp_profile_add_frame(p, &f);
	sp_profile_add_counter(p, &c);
	stack(p, s1, 2, 4);
	memset(&o, 0, sizeof(o));
	o.frame_first = first;
	o.frame_funcs = funcs;
	o.funcs = t;
	o.hz = 1;
	cg = sp_cg_from_cct(p, &o, NULL);
	CU_ASSERT_DOUBLE_EQUAL(cg->nodes[2].time, 4, 1e-9);
	CU_ASSERT_NOT_EQUAL(find_arc(cg, 1, 2), SP_CG_NONE);
	CU_ASSERT_DOUBLE_EQUAL(cg->arcs[find_arc(cg, 1, 2)].time, 4, 1e-9);
	CU_ASSERT_EQUAL(cg->arcs[find_arc(cg, 1, 2)].count, 0);
	sp_cg_free(cg);
	sp_symtab_free(t);
	sp_profile_free(p);
}

/* A find_calls hook: every function calls the pseudo node "<p>". */
static void call_pseudo(struct sp_cg *cg, uint32_t node, uint64_t lo, uint64_t hi, void *ctx)
{
	(void)lo;
	(void)hi;
	(void)ctx;
	sp_cg_arc_add(cg, node, sp_cg_pseudo_findnew(cg, "<p>"), 0);
}

/*
 * The arcs of a gmon.out: repeats of a pair from another call site summed
 * onto the first arc, arcs in creation order and each node's lists newest
 * first, while the callers come in runs and after one comes back (main
 * after a), when the arcs go through the index instead.
 */
static void test_tally_runs(void)
{
	static const uint64_t recs[][3] = {
		{0x108, 0x200, 1},  {0x110, 0x300, 2},	{0x120, 0x200, 4},  {0x208, 0x300, 8},
		{0x130, 0x300, 16}, {0x210, 0x300, 32}, {0x308, 0x100, 64},
	};
	static const uint32_t ends[][2] = {{0, 1}, {0, 2}, {1, 2}, {2, 0}};
	static const uint64_t counts[] = {5, 18, 40, 64};
	struct sp_profile *p = sp_profile_new(SP_PROFILE_GMON);
	struct sp_symspecs *specs = sp_symspecs_new();
	struct sp_symtab *t = three_funcs_placed(specs);
	struct sp_cg_gmon_opts o;
	struct sp_cg *cg;
	size_t i;

	for (i = 0; i < 7; i++)
		sp_profile_add_pcarc(p, recs[i][0], recs[i][1], recs[i][2]);
	arcs_only(&o, specs);
	cg = sp_cg_from_gmon(p, t, &o, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cg);
	CU_ASSERT_EQUAL_FATAL(cg->narcs, 4);
	for (i = 0; i < 4; i++) {
		CU_ASSERT(cg->arcs[i].parent == ends[i][0] && cg->arcs[i].child == ends[i][1]);
		CU_ASSERT_EQUAL(cg->arcs[i].count, counts[i]);
		CU_ASSERT_EQUAL(find_arc(cg, ends[i][0], ends[i][1]), i);
	}
	CU_ASSERT_EQUAL(find_arc(cg, 2, 1), SP_CG_NONE);
	CU_ASSERT_EQUAL(cg->nodes[0].children, 1);
	CU_ASSERT_EQUAL(cg->arcs[1].next_child, 0);
	CU_ASSERT_EQUAL(cg->nodes[2].parents, 2);
	CU_ASSERT_EQUAL(cg->arcs[2].next_parent, 1);
	CU_ASSERT(cg->nodes[0].ncalls == 64 && cg->nodes[1].ncalls == 5 &&
		  cg->nodes[2].ncalls == 58);
	CU_ASSERT_EQUAL(cg->narc_list, 4);
	sp_cg_free(cg);
	sp_symspecs_free(specs);
	sp_symtab_free(t);
	sp_profile_free(p);
}

/*
 * Pseudo nodes sit after the cycle nodes once the graph is assembled, the
 * arcs into them follow, and they stay out of the ranking: main -> a,
 * a <-> b (one cycle), and every function -> "<p>".
 */
static void test_pseudo_after_cycles(void)
{
	struct sp_profile *p = sp_profile_new(SP_PROFILE_GMON);
	struct sp_symspecs *specs = sp_symspecs_new();
	struct sp_symtab *t = three_funcs_placed(specs);
	struct sp_cg_gmon_opts o;
	struct sp_cg *cg;
	uint32_t ps, a;
	size_t i;

	sp_profile_add_pcarc(p, 0x108, 0x200, 3);
	sp_profile_add_pcarc(p, 0x208, 0x300, 5);
	sp_profile_add_pcarc(p, 0x308, 0x200, 4);
	arcs_only(&o, specs);
	o.find_calls = call_pseudo;
	cg = sp_cg_from_gmon(p, t, &o, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cg);
	CU_ASSERT_EQUAL(cg->ncycles, 1);
	CU_ASSERT_EQUAL(cg->nnodes, 4);
	CU_ASSERT_EQUAL_FATAL(cg->npseudo, 1);
	ps = (uint32_t)cg->nnodes;
	CU_ASSERT(cg->nodes[ps].pseudo);
	CU_ASSERT_STRING_EQUAL(cg->nodes[ps].sym->name, "<p>");
	CU_ASSERT_EQUAL(sp_cg_pseudo_findnew(cg, "<p>"), ps);
	CU_ASSERT_EQUAL(cg->nodes[ps].cyc_head, ps);
	CU_ASSERT_EQUAL(cg->nodes[ps].index, 0);
	CU_ASSERT_EQUAL(cg->nodes[ps].cycle, 0);
	CU_ASSERT_DOUBLE_EQUAL(cg->nodes[ps].prop_fract, 1.0, 0);
	/* the cycle node kept its place, and is a cycle */
	CU_ASSERT_PTR_NULL(cg->nodes[3].sym);
	CU_ASSERT_EQUAL(cg->nodes[3].cycle, 1);
	for (i = 0; i < 3; i++) {
		a = find_arc(cg, (uint32_t)i, ps);
		CU_ASSERT_NOT_EQUAL_FATAL(a, SP_CG_NONE);
		CU_ASSERT_EQUAL(cg->arcs[a].child, ps);
		CU_ASSERT_EQUAL(cg->arcs[a].count, 0);
	}
	for (a = cg->nodes[ps].parents, i = 0; a != SP_CG_NONE; a = cg->arcs[a].next_parent)
		i++;
	CU_ASSERT_EQUAL(i, 3);
	CU_ASSERT_NOT_EQUAL(find_arc(cg, 1, 2), SP_CG_NONE);
	for (i = 0; i < cg->nnodes; i++)
		CU_ASSERT(cg->order[i] < cg->nnodes);
	sp_cg_free(cg);
	sp_symspecs_free(specs);
	sp_symtab_free(t);
	sp_profile_free(p);
}

/*
 * differences.md: gprof's depth-first numbering recurses once per function
 * of a call chain; symprof's keeps an explicit stack, so any depth works.
 * A chain of 300,000 functions, f0 -> f1 -> ... (a recursive walk would
 * need tens of megabytes of native stack), closed into one cycle by the
 * last function calling f0 (found at the bottom of the walk).
 */
#define DEEP_CHAIN 300000
static void test_deep_chain(void)
{
	struct sp_profile *p = sp_profile_new(SP_PROFILE_GMON);
	struct sp_symspecs *specs = sp_symspecs_new();
	struct sp_symtab *t = sp_symtab_new();
	struct sp_cg_gmon_opts o;
	struct sp_pcarc *arcs;
	struct sp_cg *cg;
	char name[32];
	size_t i, bad = 0;

	for (i = 0; i < DEEP_CHAIN; i++) {
		struct sp_symbol *sym = sp_symtab_add(t);

		snprintf(name, sizeof(name), "f%zu", i);
		sym->name = sp_strtab_intern(&t->strs, name);
		sym->is_func = 1;
		sym->addr = 0x1000 + 0x10 * (uint64_t)i;
	}
	t->text_end = 0x1000 + 0x10 * (uint64_t)DEEP_CHAIN - 1;
	sp_symtab_finalize(t);
	sp_symspecs_resolve(specs, t, NULL);
	arcs = sp_xcalloc(DEEP_CHAIN, sizeof(*arcs));
	for (i = 0; i < DEEP_CHAIN; i++) {
		arcs[i].from_pc = 0x1000 + 0x10 * (uint64_t)i + 4;
		arcs[i].self_pc = 0x1000 + 0x10 * (uint64_t)((i + 1) % DEEP_CHAIN);
		arcs[i].count = 1;
	}
	sp_profile_append_pcarcs(p, arcs, DEEP_CHAIN);
	free(arcs);
	arcs_only(&o, specs);
	cg = sp_cg_from_gmon(p, t, &o, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cg);
	CU_ASSERT_EQUAL(cg->nsyms, DEEP_CHAIN);
	CU_ASSERT_EQUAL(cg->ncycles, 1);
	for (i = 0; i < DEEP_CHAIN; i++)
		bad += cg->nodes[i].cycle != 1 || cg->nodes[i].cyc_head != cg->nodes[0].cyc_head;
	CU_ASSERT_EQUAL(bad, 0);
	sp_cg_free(cg);
	sp_symspecs_free(specs);
	sp_symtab_free(t);
	sp_profile_free(p);
}

/* The fast lookup must answer exactly as gprof's binary search. */
static void test_symtab_lookup(void)
{
	struct sp_gprof_symopts so;
	struct sp_image *im = sp_image_open(SP_FIXTURES_DIR "/gmon/prog/prog", NULL, NULL);
	struct sp_symtab *t;
	uint64_t a;
	int same = 1;

	CU_ASSERT_PTR_NOT_NULL_FATAL(im);
	memset(&so, 0, sizeof(so));
	t = sp_image_gprof_symtab(im, &so, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	for (a = t->syms[0].addr - 64; a < t->syms[t->len - 1].addr + 64; a++)
		if (sp_symtab_lookup(t, a) != sp_symbols_lookup(t->syms, t->len, a))
			same = 0;
	CU_ASSERT(same);
	CU_ASSERT_PTR_NULL(sp_symtab_lookup(t, 0));
	sp_symtab_free(t);
	sp_image_free(im);
}

/* ---- arc list order: sp_cg_sorted_parents/children against gprof's insertion ---- */

static uint64_t sort_rng_state = UINT64_C(0x2545f4914f6cdd1d);

static uint64_t sort_rng(void)
{
	sort_rng_state ^= sort_rng_state << 13;
	sort_rng_state ^= sort_rng_state >> 7;
	sort_rng_state ^= sort_rng_state << 17;
	return sort_rng_state;
}

/* gprof's cmp_arc(), written out from its description: self calls, then
 * calls inside one cycle by count, then the rest by time and count. */
static int ref_cmp_arc(const struct sp_cg *cg, uint32_t l, uint32_t r)
{
	const struct sp_cg_arc *a = &cg->arcs[l], *b = &cg->arcs[r];
	int ca, cb, pa = cg->nodes[a->parent].cycle, pb = cg->nodes[b->parent].cycle;

	ca = a->parent == a->child ? 0 : pa && pa == cg->nodes[a->child].cycle ? 1 : 2;
	cb = b->parent == b->child ? 0 : pb && pb == cg->nodes[b->child].cycle ? 1 : 2;
	if (ca != cb)
		return ca < cb ? -1 : 1;
	if (ca == 0)
		return -1;
	if (ca == 2) {
		double ta = a->time + a->child_time, tb = b->time + b->child_time;

		if (ta < tb)
			return -1;
		if (ta > tb)
			return 1;
	}
	return a->count < b->count ? -1 : a->count > b->count;
}

/* The list of a node's parents (or children) in gprof's printing order,
 * by its own algorithm: each arc, in list order, is inserted before the
 * first arc it does not exceed (parents) or is not below (children). */
static size_t ref_sorted(const struct sp_cg *cg, uint32_t node, int parents, uint32_t *out)
{
	uint32_t a = parents ? cg->nodes[node].parents : cg->nodes[node].children;
	size_t n = 0, j;

	for (; a != SP_CG_NONE; a = parents ? cg->arcs[a].next_parent : cg->arcs[a].next_child) {
		for (j = 0; j < n; j++) {
			int c = ref_cmp_arc(cg, a, out[j]);

			if (parents ? c <= 0 : c >= 0)
				break;
		}
		memmove(out + j + 1, out + j, (n - j) * sizeof(*out));
		out[j] = a;
		n++;
	}
	return n;
}

/* A random graph whose arc lists are short and long (past the sort's
 * stack buffer), with self calls, cycles, many equal times and counts, a
 * time split differently between self and children, -0.0, most times
 * zero, and (when with_nan) NaN times. */
static struct sp_cg *random_graph(size_t nnodes, size_t narcs, int with_nan)
{
	static const double times[] = {0.0, -0.0, 0.5, 1.0, 1.5, 2.0, 1e-300, 3.25};
	struct sp_cg *cg = sp_cg_new();
	size_t i;

	cg->nodes = calloc(nnodes + 1, sizeof(*cg->nodes));
	cg->nnodes = nnodes;
	for (i = 0; i < nnodes; i++) {
		cg->nodes[i].parents = cg->nodes[i].children = SP_CG_NONE;
		cg->nodes[i].cyc_head = (uint32_t)i;
		cg->nodes[i].cycle = sort_rng() % 4 == 0 ? (int)(1 + sort_rng() % 2) : 0;
	}
	for (i = 0; i < narcs; i++) {
		/* node 0 and node 1 collect most arcs: long lists */
		uint32_t from = (uint32_t)(sort_rng() % 3 ? sort_rng() % nnodes : 0);
		uint32_t to = (uint32_t)(sort_rng() % 3 ? sort_rng() % nnodes : 1);
		/* counts of one byte (many ties) and of up to eight */
		uint64_t count = sort_rng() % 3 ? sort_rng() % 4 : sort_rng() >> (sort_rng() % 64);
		uint32_t a = sp_cg_arc_add(cg, from, to, count);
		struct sp_cg_arc *arc = &cg->arcs[a];

		/* most arcs pass no time, as in a real profile: a shared key */
		arc->time = sort_rng() % 8 ? 0.0 : times[sort_rng() % 8];
		arc->child_time = sort_rng() % 8 ? 0.0 : times[sort_rng() % 8];
		if (with_nan && sort_rng() % 16 == 0)
			arc->child_time = NAN;
	}
	return cg;
}

/* A node's parents (or children) in printing order, with `mem`, against
 * the list gprof's algorithm makes of the same input; want has room for
 * them. */
static int sorted_as_gprof(const struct sp_cg *cg, uint32_t node, int parents, uint32_t *want,
			   struct sp_cg_sort_mem *mem)
{
	size_t n = ref_sorted(cg, node, parents, want), k, got_n;
	const uint32_t *got = parents ? sp_cg_sorted_parents(cg, node, mem, &got_n)
				      : sp_cg_sorted_children(cg, node, mem, &got_n);
	int same = got_n == n;

	for (k = 0; same && k < n; k++)
		same &= want[k] == got[k];
	return same;
}

static size_t longest_list(const struct sp_cg *cg)
{
	size_t i, n, most = 0;
	uint32_t a;

	for (i = 0; i < cg->nnodes; i++) {
		for (n = 0, a = cg->nodes[i].parents; a != SP_CG_NONE; a = cg->arcs[a].next_parent)
			n++;
		most = n > most ? n : most;
		for (n = 0, a = cg->nodes[i].children; a != SP_CG_NONE; a = cg->arcs[a].next_child)
			n++;
		most = n > most ? n : most;
	}
	return most;
}

/* Whether every node's lists are newest first (see below). */
static int newest_first(const struct sp_cg *cg)
{
	size_t i;
	int ok = 1;

	for (i = 0; i < cg->nnodes; i++) {
		uint32_t a, prev = UINT32_MAX;

		for (a = cg->nodes[i].parents; a != SP_CG_NONE; a = cg->arcs[a].next_parent) {
			ok &= a < prev && cg->arcs[a].child == i;
			prev = a;
		}
		prev = UINT32_MAX;
		for (a = cg->nodes[i].children; a != SP_CG_NONE; a = cg->arcs[a].next_child) {
			ok &= a < prev && cg->arcs[a].parent == i;
			prev = a;
		}
	}
	return ok;
}

static void check_arc_order(int with_nan)
{
	int round;

	for (round = 0; round < 40; round++) {
		size_t nnodes = 2 + sort_rng() % (round % 2 ? 40 : 800), narcs = sort_rng() % 1200,
		       i;
		struct sp_cg *cg = random_graph(nnodes, narcs, with_nan);
		uint32_t *want = malloc((narcs + 1) * sizeof(*want));
		struct sp_cg_sort_mem mem, first;
		struct sp_cg_parent_runs *runs = round % 2 ? sp_cg_parent_runs_new(cg) : NULL;
		int pass, same = 1;

		/* the first pass reads the callers from the runs (every other
		 * round), as a report does; the second sorts the same lists
		 * again (the views leave them as they are), with keys memory
		 * that long lists grew and short ones then reuse */
		memset(&mem, 0, sizeof(mem));
		memset(&first, 0, sizeof(first));
		first.runs = runs;
		for (pass = 0; pass < 2; pass++) {
			for (i = 0; i < nnodes; i++) {
				same &= sorted_as_gprof(cg, (uint32_t)i, 1, want,
							pass ? &mem : &first);
				same &= sorted_as_gprof(cg, (uint32_t)i, 0, want,
							pass ? &mem : &first);
			}
		}
		sp_cg_parent_runs_free(runs);
		sp_cg_sort_mem_release(&first);
		CU_ASSERT(same);
		/* and the lists are still as the graph was built */
		CU_ASSERT(newest_first(cg));
		/* the memory grew for the longest list past the stack's room (a
		 * NaN time stops the keys early: gprof's insertion sort then) */
		CU_ASSERT(with_nan || longest_list(cg) <= 128 || mem.alloc >= longest_list(cg));
		sp_cg_sort_mem_release(&mem);
		free(want);
		sp_cg_free(cg);
	}
}

static void test_arc_order(void)
{
	check_arc_order(0);
}

static void test_arc_order_nan(void)
{
	check_arc_order(1);
}

/* The arcs into (and out of) a node are listed newest first, always:
 * sp_cg_assemble()'s callers table (cg/cycles.c) and
 * sp_cg_parent_runs_new() are built from the arc array on that promise. */
static void test_arc_lists_newest_first(void)
{
	int round, ok = 1;

	for (round = 0; round < 10; round++) {
		size_t nnodes = 2 + sort_rng() % 300;
		struct sp_cg *cg = random_graph(nnodes, 1 + sort_rng() % 2000, 0);

		ok &= newest_first(cg);
		sp_cg_free(cg);
	}
	CU_ASSERT(ok);
}

/* ---- node orders: the large-table sort against a plain stable sort ---- */

/* gprof's cmp_time(): more self time, then more calls, then the name. */
static int ref_cmp_time(const void *pa, const void *pb, void *ctx)
{
	const struct sp_cg *cg = ctx;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	const struct sp_cg_node *x = &cg->nodes[a], *y = &cg->nodes[b];

	if (x->time != y->time)
		return x->time > y->time ? -1 : 1;
	if (x->ncalls != y->ncalls)
		return x->ncalls > y->ncalls ? -1 : 1;
	return (cg->priv->name_rank[a] > cg->priv->name_rank[b]) -
	       (cg->priv->name_rank[a] < cg->priv->name_rank[b]);
}

static int ref_cmp_name(const void *pa, const void *pb, void *ctx)
{
	const struct sp_cg *cg = ctx;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	return (cg->priv->name_rank[a] > cg->priv->name_rank[b]) -
	       (cg->priv->name_rank[a] < cg->priv->name_rank[b]);
}

/* gprof's cmp_total() for named nodes: more time (self and children),
 * then names not starting with '_', then more calls, then the name. */
static int ref_cmp_total(const void *pa, const void *pb, void *ctx)
{
	const struct sp_cg *cg = ctx;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	const struct sp_cg_node *x = &cg->nodes[a], *y = &cg->nodes[b];
	double tx = x->prop_self + x->prop_child, ty = y->prop_self + y->prop_child;
	int ux = x->sym->name[0] == '_', uy = y->sym->name[0] == '_';

	if (tx != ty)
		return tx > ty ? -1 : 1;
	if (ux != uy)
		return ux - uy;
	if (x->ncalls != y->ncalls)
		return x->ncalls > y->ncalls ? -1 : 1;
	return ref_cmp_name(pa, pb, ctx);
}

/* A node's self time: for spread 0 most nodes have none (the
 * radix-sorted bulk); for spread 1 most have some and no time is shared
 * by half of them (the radix sort over all bytes), with repeats, 1/7ths
 * (all mantissa bytes differ) and zeros of both signs. */
static double node_time(int spread)
{
	if (!spread)
		return sort_rng() % 10 == 0 ? (double)(sort_rng() % 50) : 0.0;
	switch (sort_rng() % 4) {
	case 0:
		return sort_rng() % 2 ? 0.0 : -0.0;
	case 1:
		return (double)(sort_rng() % 20);
	default:
		return (double)(sort_rng() % 5000) / 7.0;
	}
}

/* Thousands of nodes, calls of one to five bytes, names ranked with
 * repeats (ties kept in order). In the third round the first node to sort
 * has the largest name and the rest have no time and no calls (the index
 * of a program whose main, first in .text, sorts after every name). In
 * the fourth, -l's shape: most nodes have neither time nor calls, and
 * differ by name alone (names with and without a leading '_'). */
static void test_node_orders(void)
{
	static const sp_cmp_fn ref[] = {ref_cmp_time, ref_cmp_name, ref_cmp_total};
	static const enum sp_cg_order orders[] = {SP_CG_ORDER_TIME, SP_CG_ORDER_NAME,
						  SP_CG_ORDER_TOTAL};
	size_t n = 6000, i;
	struct sp_cg *cg = sp_cg_new();
	struct sp_symbol *syms = calloc(n, sizeof(*syms));
	uint32_t *got = malloc(n * sizeof(*got)), *want = malloc(n * sizeof(*want));
	int order, spread;

	cg->nodes = calloc(n + 1, sizeof(*cg->nodes));
	cg->nnodes = cg->nsyms = n;
	cg->priv->name_rank = malloc(n * sizeof(*cg->priv->name_rank));
	for (spread = 0; spread < 4; spread++) {
		for (i = 0; i < n; i++) {
			int live = spread == 3 ? sort_rng() % 20 == 0 : spread < 2;

			cg->nodes[i].time = live ? node_time(spread % 3) : 0.0;
			cg->nodes[i].ncalls =
				live && sort_rng() % 3 ? sort_rng() >> (24 + sort_rng() % 40) : 0;
			cg->nodes[i].prop_self = cg->nodes[i].time;
			cg->nodes[i].prop_child =
				live && sort_rng() % 2 ? (double)(sort_rng() % 9) : 0.0;
			cg->priv->name_rank[i] = (uint32_t)(sort_rng() % (n - n / 8));
			syms[i].name = sort_rng() % 4 ? "f" : "_f";
			cg->nodes[i].sym = &syms[i];
		}
		if (spread == 2)
			cg->priv->name_rank[n - 1] = (uint32_t)(n - 1);
		for (order = 0; order < 3; order++) {
			for (i = 0; i < n; i++)
				got[i] = want[i] = (uint32_t)(n - 1 - i);
			sp_cg_sort_nodes(cg, got, n, orders[order]);
			sp_sort(want, n, sizeof(*want), ref[order], cg);
			CU_ASSERT(memcmp(got, want, n * sizeof(*got)) == 0);
		}
	}
	free(got);
	free(want);
	free(syms);
	sp_cg_free(cg);
}

/* The bucket index on tables of every density: lone symbols far apart,
 * crowded runs (line symbols a byte apart), and addresses near 2^64. */
static void test_symtab_buckets(void)
{
	static const uint64_t bases[] = {0x1000, 0x400000, UINT64_MAX - 0x4000000};
	uint64_t seed = 12345;
	size_t k;

	for (k = 0; k < sizeof(bases) / sizeof(bases[0]); k++) {
		struct sp_symtab *t = sp_symtab_new();
		uint64_t a = bases[k], probe;
		size_t i, n = 500, bad = 0;

		for (i = 0; i < n; i++) {
			struct sp_symbol *s = sp_symtab_add(t);

			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			/* mostly close together, sometimes a long gap */
			a += (seed >> 60) < 2 ? (seed >> 33) % 20000 : 1 + (seed >> 33) % 3;
			s->addr = a;
			s->is_func = 1;
			s->name = "f";
		}
		t->text_end = a + 7;
		sp_symtab_finalize(t);
		CU_ASSERT_PTR_NOT_NULL_FATAL(t->buckets);
		for (probe = bases[k] - 3; probe <= t->text_end + 3 && probe >= bases[k] - 3;
		     probe++)
			if (sp_symtab_lookup(t, probe) != sp_symbols_lookup(t->syms, t->len, probe))
				bad++;
		CU_ASSERT_EQUAL(bad, 0);
		CU_ASSERT_PTR_NULL(sp_symtab_lookup(t, bases[k] - 1));
		CU_ASSERT_PTR_EQUAL(sp_symtab_lookup(t, t->text_end), &t->syms[t->len - 1]);
		sp_symtab_free(t);
	}
}

static int cmp_sym(const void *l, const void *r, void *ctx)
{
	(void)ctx;
	return sp_symbol_cmp_addr(l, r);
}

/* The radix sort of a large table gives gprof's order, ties (same
 * address, kind and binding) in table order, as the merge sort does. */
static void test_symbols_sort(void)
{
	static struct sp_symbol a[600], b[600];
	static char names[600][8];
	uint64_t x = 5;
	size_t i, na = 600, nb = 600, bad = 0;

	for (i = 0; i < 600; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		memset(&a[i], 0, sizeof(a[i]));
		a[i].addr = 0x400000 + 16 * ((x >> 33) % 150);
		a[i].is_func = (x >> 20) & 1;
		a[i].is_static = (x >> 21) & 1;
		snprintf(names[i], sizeof(names[i]), "%c%zu", (x >> 22) & 1 ? '_' : 'f', i);
		a[i].name = names[i];
	}
	memcpy(b, a, sizeof(a));
	sp_sort(b, nb, sizeof(b[0]), cmp_sym, NULL); /* already sorted: kept as is */
	sp_symbols_finalize(a, &na, 0x500000);
	sp_symbols_finalize(b, &nb, 0x500000);
	CU_ASSERT_EQUAL_FATAL(na, nb);
	for (i = 0; i < na; i++)
		if (a[i].name != b[i].name || a[i].end_addr != b[i].end_addr)
			bad++;
	CU_ASSERT_EQUAL(bad, 0);
}

/* Name ranks follow strcmp(): names that share 8 or 16 bytes, prefixes
 * of each other, bytes above 0x7f, equal names at distinct addresses. */
static void test_name_ranks(void)
{
	static const char *const names[] = {
		"alloc_build_event",
		"alloc_build_rule",
		"alloc_bu",
		"alloc_build_",
		"alloc",
		"",
		"alloc_build_event",
		"zeta",
		"alloc_build_eventX",
		"alloc_build_even",
		"\xc3\xa9t\xc3\xa9",
		"a\x7f",
		"a\x80",
		"abcdefghabcdefgh1",
		"abcdefghabcdefgh",
		"abcdefghabcdefgh0",
		"_start",
		"__start",
		"abcdefgh",
	};
	size_t n = sizeof(names) / sizeof(names[0]), i, j, bad = 0;
	struct sp_symtab *t = sp_symtab_new();
	uint32_t *rank;

	for (i = 0; i < n; i++) {
		struct sp_symbol *s = sp_symtab_add(t);

		/* the same characters at another address must rank the same */
		s->name = sp_arena_strdup(&t->arena, names[i]);
		s->addr = 0x1000 + 16 * i;
	}
	/* and enough names built of a few syllables for the radix path */
	for (i = 0; i < 700; i++) {
		static const char *const syl[] = {"al", "loc_", "b", "uild", "_e", "ve", "nt"};
		struct sp_symbol *s = sp_symtab_add(t);
		char buf[64] = "";
		size_t k, x = i * 2654435761u;

		for (k = 0; k < 2 + i % 9; k++, x /= 7)
			strcat(buf, syl[x % 7]);
		s->name = sp_arena_strdup(&t->arena, buf);
		s->addr = 0x8000 + 16 * i;
	}
	rank = sp_symtab_name_ranks(t);
	for (i = 0; i < t->len; i++)
		for (j = 0; j < t->len; j++) {
			int c = strcmp(t->syms[i].name, t->syms[j].name);

			if ((c > 0) - (c < 0) != (rank[i] > rank[j]) - (rank[i] < rank[j]))
				bad++;
		}
	CU_ASSERT_EQUAL(bad, 0);
	free(rank);
	sp_symtab_free(t);
}

/* ---- cycles: the linear walk against gprof's cg_dfn() ---- */

/* gprof's cg_dfn() and find_cycle() as gprof writes them (recursive,
 * quadratic in a cycle's size), on the children lists of an assembled
 * graph, with arrays of their own: order 0 unvisited, -1 busy. */
struct ref_dfn {
	const struct sp_cg *cg;
	uint32_t *head, *next, *stack;
	int *order;
	size_t depth;
	int counter;
};

static void ref_find_cycle(struct ref_dfn *d, uint32_t child)
{
	uint32_t head = SP_CG_NONE, tail;
	size_t top, k;

	for (top = d->depth; top > 0; --top) {
		head = d->stack[top];
		if (child == head || (d->head[child] != child && d->head[child] == head))
			break;
	}
	if (top == 0 || top == d->depth)
		return;
	for (tail = head; d->next[tail] != SP_CG_NONE; tail = d->next[tail])
		;
	head = d->head[head];
	for (k = top + 1; k <= d->depth; ++k) {
		uint32_t c = d->stack[k];

		if (d->head[c] != c)
			continue;
		d->next[tail] = c;
		d->head[c] = head;
		for (tail = c; d->next[tail] != SP_CG_NONE; tail = d->next[tail])
			d->head[d->next[tail]] = head;
	}
}

static void ref_dfn(struct ref_dfn *d, uint32_t n)
{
	uint32_t a, m;

	if (d->order[n] > 0)
		return;
	if (d->order[n] < 0) {
		ref_find_cycle(d, n);
		return;
	}
	d->stack[++d->depth] = n;
	d->order[n] = -1;
	for (a = d->cg->nodes[n].children; a != SP_CG_NONE; a = d->cg->arcs[a].next_child)
		ref_dfn(d, d->cg->arcs[a].child);
	if (d->head[n] == n) {
		++d->counter;
		for (m = n; m != SP_CG_NONE; m = d->next[m])
			d->order[m] = d->counter;
	}
	--d->depth;
}

/* Whether the assembled graph's numbers, cycles (numbered by their head's
 * place) and member lists are the ones gprof's walk leaves. */
static int cycles_as_gprof(const struct sp_cg *cg)
{
	size_t n = cg->nsyms, i, ncyc = 0;
	struct ref_dfn d = {cg,
			    malloc(n * sizeof(uint32_t)),
			    malloc(n * sizeof(uint32_t)),
			    malloc((n + 1) * sizeof(uint32_t)),
			    calloc(n, sizeof(int)),
			    0,
			    0};
	int same = 1;

	for (i = 0; i < n; i++) {
		d.head[i] = (uint32_t)i;
		d.next[i] = SP_CG_NONE;
	}
	for (i = 0; i < n; i++)
		if (d.order[i] == 0)
			ref_dfn(&d, (uint32_t)i);
	for (i = 0; i < n; i++) {
		same &= cg->nodes[i].top_order == d.order[i];
		if (d.head[i] == i && d.next[i] != SP_CG_NONE) {
			/* the cycle's node, then its members in gprof's order */
			uint32_t m = cg->nodes[n + ncyc].cyc_next, r;

			for (r = (uint32_t)i; r != SP_CG_NONE;
			     r = d.next[r], m = cg->nodes[m].cyc_next)
				same &= m == r && cg->nodes[r].cycle == (int)ncyc + 1;
			same &= m == SP_CG_NONE;
			ncyc++;
		} else if (d.head[i] == i) {
			same &= cg->nodes[i].cycle == 0;
		}
	}
	same &= cg->ncycles == ncyc;
	free(d.head);
	free(d.next);
	free(d.stack);
	free(d.order);
	return same;
}

/* Random graphs of up to 300 functions: sparse and dense, mostly forward
 * (layered, as programs are) with back calls and self calls, so that cycles
 * nest, share members and are found from inside. */
static void test_cycles_as_gprof(void)
{
	int round, same = 1;

	for (round = 0; round < 300; round++) {
		size_t n = 2 + sort_rng() % (round % 3 ? 40 : 300), narcs, i;
		unsigned back = (unsigned)(sort_rng() % 40);
		struct sp_profile *p = sp_profile_new(SP_PROFILE_GMON);
		struct sp_symspecs *specs = sp_symspecs_new();
		struct sp_symtab *t = sp_symtab_new();
		struct sp_cg_gmon_opts o;
		struct sp_cg *cg;

		for (i = 0; i < n; i++) {
			struct sp_symbol *s = sp_symtab_add(t);

			s->name = sp_strtab_intern(&t->strs, "f");
			s->is_func = 1;
			s->addr = 0x100 * (i + 1);
		}
		t->text_end = 0x100 * (n + 1) - 1;
		sp_symtab_finalize(t);
		sp_symspecs_resolve(specs, t, NULL);
		narcs = n * (1 + sort_rng() % 4);
		for (i = 0; i < narcs; i++) {
			uint64_t from = sort_rng() % n, to = sort_rng() % n;

			/* forward calls, except `back` percent of them */
			if (from > to && sort_rng() % 100 >= back) {
				uint64_t x = from;

				from = to;
				to = x;
			}
			sp_profile_add_pcarc(p, 0x100 * (from + 1) + 8 + sort_rng() % 4,
					     0x100 * (to + 1), 1 + sort_rng() % 5);
		}
		arcs_only(&o, specs);
		cg = sp_cg_from_gmon(p, t, &o, NULL);
		CU_ASSERT_PTR_NOT_NULL_FATAL(cg);
		same &= cycles_as_gprof(cg);
		sp_cg_free(cg);
		sp_symspecs_free(specs);
		sp_symtab_free(t);
		sp_profile_free(p);
	}
	CU_ASSERT(same);
}

/* A symbol of a random -l table: a function (its end preset, as -l keeps
 * functions' whole ranges) or a line of the function before it. */
struct line_spec {
	uint64_t addr, end;
	const char *name;
	int is_func;
};

static struct sp_symtab *line_table(const struct line_spec *v, size_t n, uint64_t text_end)
{
	struct sp_symtab *t = sp_symtab_new();
	size_t i;

	for (i = 0; i < n; i++) {
		struct sp_symbol *s = sp_symtab_add(t);

		s->addr = v[i].addr;
		s->end_addr = v[i].end;
		s->name = sp_strtab_intern(&t->strs, v[i].name);
		s->is_func = v[i].is_func;
		s->is_line = !v[i].is_func;
		s->line = (int)i + 1;
	}
	t->text_end = text_end;
	sp_symtab_finalize(t);
	return t;
}

/* Whether node k of `r` (symbol f of the whole table, or a cycle) came out
 * as node f of `w`. */
static int same_node(const struct sp_cg *w, uint32_t f, const struct sp_cg *r, uint32_t k)
{
	const struct sp_cg_node *a = &w->nodes[f], *b = &r->nodes[k];

	return a->time == b->time && a->ncalls == b->ncalls && a->self_calls == b->self_calls &&
	       a->prop_self == b->prop_self && a->prop_child == b->prop_child &&
	       a->index == b->index && a->cycle == b->cycle && a->print_flag == b->print_flag &&
	       a->nbbs == b->nbbs && (!a->sym) == (!b->sym) &&
	       (!a->sym || a->sym->addr == b->sym->addr);
}

/*
 * -l tables compacted to the symbols sp_cg_gmon_mark_used() marks give the
 * graph of the whole table: the same time, calls, propagation, cycles and
 * call-graph numbers for every node kept, and the nodes left out empty.
 * Random functions with lines (names shared, some with '_', lines one byte
 * apart, some ending short of the next symbol), bins of 1 to 4 units over
 * the whole text, arcs from anywhere (holes too) to anywhere, blocks.
 */
static void test_unused_lines_dropped(void)
{
	static const char *const names[] = {"main", "a", "_b", "c", "__d", "e", "_f"};
	int round, same = 1, dropped_some = 0, shifted = 0;

	for (round = 0; round < 200; round++) {
		size_t nf = 2 + sort_rng() % 30, n = 0, alloc = 0, i, k, nhits;
		struct line_spec *v = NULL;
		uint64_t addr = 0x1000, text_end, lo, hi;
		struct sp_profile *p = sp_profile_new(SP_PROFILE_GMON);
		struct sp_symspecs *specs = sp_symspecs_new();
		struct sp_symtab *whole, *part;
		struct sp_cg_gmon_opts o;
		struct sp_cg_dropped d;
		struct sp_cg *w, *r;
		struct sp_hist *h;
		uint32_t nbins;
		uint8_t *used;

		for (i = 0; i < nf; i++) {
			size_t f = n, nl = sort_rng() % 12, j;
			const char *name = names[sort_rng() % 7];

			SP_ALLOC_GROW(v, n + nl + 1, alloc);
			v[n].addr = addr;
			v[n].name = name;
			v[n++].is_func = 1;
			for (j = 0; j < nl; j++) {
				addr += 1 + (sort_rng() % 3 ? sort_rng() % 24 : 0);
				v[n].addr = addr;
				v[n].name = name;
				v[n].is_func = 0;
				/* a line that ends short of the next symbol: a hole */
				v[n++].end = sort_rng() % 8 ? 0 : addr;
			}
			addr += 1 + sort_rng() % 32;
			v[f].end = addr - 1 - (sort_rng() % 4 ? 0 : sort_rng() % 8);
			if (v[f].end < v[n - 1].addr)
				v[f].end = addr - 1;
		}
		text_end = addr - 1;
		whole = line_table(v, n, text_end);
		part = line_table(v, n, text_end);
		sp_symspecs_resolve(specs, whole, NULL);
		/* the bins: some 1 unit wide, some 4 */
		lo = 0x1000 - 2 * (sort_rng() % 4);
		hi = (text_end + 2) & ~(uint64_t)1;
		nbins = (uint32_t)((hi - lo) / 2 / (1 + sort_rng() % 4));
		h = sp_profile_findnew_hist(p, lo, hi, nbins);
		nhits = 1 + sort_rng() % 12;
		for (k = 0, i = sort_rng() % 8; k < nhits && i < nbins;
		     k++, i += 1 + sort_rng() % 24) {
			uint32_t idx = (uint32_t)i, cnt = 1 + (uint32_t)(sort_rng() % 9);

			sp_profile_hist_add(h, &idx, &cnt, 1);
		}
		for (k = 0; k < 3 * nf; k++)
			sp_profile_add_pcarc(p, 0x1000 + sort_rng() % (text_end - 0xfff),
					     v[sort_rng() % n].addr + (sort_rng() % 4 ? 0 : 1),
					     1 + sort_rng() % 5);
		for (k = 0; k < nf; k++)
			sp_profile_add_bbcount(p, 0x1000 + sort_rng() % (text_end - 0xfff), 7);
		arcs_only(&o, specs);
		o.have_hist = 1;
		o.hist_scale = (double)((hi - lo) / 2) / nbins;
		o.line_granularity = 1;
		w = sp_cg_from_gmon(p, whole, &o, NULL);
		used = sp_xmalloc(part->len);
		sp_cg_gmon_mark_used(p, part, &o, used);
		sp_cg_dropped_count(part, used, &d);
		sp_symtab_compact(part, used);
		o.dropped = &d;
		r = sp_cg_from_gmon(p, part, &o, NULL);
		CU_ASSERT_PTR_NOT_NULL_FATAL(w);
		CU_ASSERT_PTR_NOT_NULL_FATAL(r);
		same &= w->total_time == r->total_time && w->ncycles == r->ncycles &&
			w->narcs == r->narcs && w->nbbs == r->nbbs;
		dropped_some |= part->len < whole->len;
		for (i = 0, k = 0; i < whole->len; i++) {
			if (!used[i]) {
				/* empty, and numbered after every node kept but the empty ones */
				same &= w->nodes[i].time == 0 && w->nodes[i].ncalls == 0 &&
					w->nodes[i].parents == SP_CG_NONE &&
					w->nodes[i].children == SP_CG_NONE && w->nodes[i].nbbs == 0;
				continue;
			}
			same &= same_node(w, (uint32_t)i, r, (uint32_t)k);
			shifted |= r->nodes[k].index != (int)(k + 1) && w->nodes[i].time == 0 &&
				   d.before[k] > 0;
			k++;
		}
		for (i = 0; i < w->ncycles; i++)
			same &= same_node(w, (uint32_t)(w->nsyms + i), r, (uint32_t)(r->nsyms + i));
		sp_cg_dropped_release(&d);
		free(used);
		sp_cg_free(w);
		sp_cg_free(r);
		sp_symtab_free(whole);
		sp_symtab_free(part);
		sp_symspecs_free(specs);
		sp_profile_free(p);
		free(v);
	}
	CU_ASSERT(same);
	CU_ASSERT(dropped_some);
	CU_ASSERT(shifted);
}

int sp_test_register_cg(void)
{
	CU_pSuite s = CU_add_suite("cg", NULL, NULL);

	if (!s)
		return -1;
	if (!CU_add_test(s, "stacks: recursion counted once", test_exact_recursion) ||
	    !CU_add_test(s, "stacks: inline chains are arcs", test_inline_expansion) ||
	    !CU_add_test(s, "symtab lookup equals gprof's", test_symtab_lookup) ||
	    !CU_add_test(s, "pseudo nodes follow the cycles", test_pseudo_after_cycles) ||
	    !CU_add_test(s, "arc lists in gprof's order", test_arc_order) ||
	    !CU_add_test(s, "arc lists with NaN times", test_arc_order_nan) ||
	    !CU_add_test(s, "arc lists newest first", test_arc_lists_newest_first) ||
	    !CU_add_test(s, "node orders of large tables", test_node_orders) ||
	    !CU_add_test(s, "symtab buckets at every density", test_symtab_buckets) ||
	    !CU_add_test(s, "name ranks in strcmp order", test_name_ranks) ||
	    !CU_add_test(s, "symbols sorted by key as by comparisons", test_symbols_sort) ||
	    !CU_add_test(s, "gmon arcs summed, in gprof's list order", test_tally_runs) ||
	    !CU_add_test(s, "a call chain of 300,000 functions", test_deep_chain) ||
	    !CU_add_test(s, "cycles, numbers and members as gprof's walk", test_cycles_as_gprof) ||
	    !CU_add_test(s, "-l graphs without the unused lines", test_unused_lines_dropped))
		return -1;
	return 0;
}
