/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The call graph of a stack-based profile (gperftools, IgProf, aprof CCTs),
 * computed exactly from the stacks instead of gprof's proportional guess:
 *
 *  - a function's self value is what the stacks that end in it carry;
 *  - its total counts every stack that contains it once, even when it
 *    appears several times (recursion);
 *  - an arc caller -> callee carries the value of every stack in which the
 *    callee is called from the caller, once per stack; its "self" part is
 *    from the stacks that end right there, the rest is "children".
 *
 * Stacks are the paths of the profile's calling-context tree. One walk
 * does it all: with S(n) the value of n's whole subtree, a function (or a
 * caller/callee pair) gets S(n) at the outermost node of each path where it
 * occurs, which counts each stack exactly once. A frame can expand to
 * several functions (inline chains), outermost first, so inlined calls are
 * arcs too; a frame that expands to nothing is transparent.
 *
 * A MAX counter (max_values: IgProf's MEM_MAX) is igprof-analyse's: every
 * sum above is a maximum instead. S(n) is the largest value in n's
 * subtree, a function's self the largest value its own nodes hold, its
 * total the largest S(n) of its nodes (the report's cumulative value), an
 * arc's self and total the same over the callee's nodes under that
 * caller; "children" stays total - self, so that self + children = total
 * holds for every renderer. Event counts still add up.
 */
#include "symprof/cg.h"

#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"
#include "symprof/error.h"
#include "symprof/hashmap.h"
#include "symprof/profile.h"
#include "symprof/sort.h"
#include "symprof/symbolize.h"

struct walk {
	const struct sp_profile *p;
	const struct sp_cg_stack_opts *o;
	struct sp_cg *cg;
	int64_t *self_v, *subtree_v; /* per CCT node */
	int64_t *self_c, *subtree_c; /* event counts */
	uint32_t *occ;		     /* per function: occurrences on the path */
	uint32_t *arc_occ;	     /* per arc: occurrences on the path */
	double *fn_total, *fn_total_c;
	double *arc_total, *arc_total_c;
	double *arc_calls; /* per arc: activation counts (node_counts) */
	size_t arc_alloc;
	uint32_t *path; /* expanded function path */
	size_t depth, path_alloc;
};

/* The field of a value the graph counts, as the profile names it. */
static enum sp_value_pick pick_of(enum sp_value_field f)
{
	switch (f) {
	case SP_VALUE_COUNT:
		return SP_PICK_COUNT;
	case SP_VALUE_PEAK:
		return SP_PICK_PEAK;
	default:
		return SP_PICK_VALUE;
	}
}

/* a += b, or a = max(a, b) for a MAX counter */
static void acc(const struct walk *w, double *a, double b)
{
	if (!w->o->max_values)
		*a += b;
	else if (b > *a)
		*a = b;
}

/* self and subtree values per node (sp_profile_node_sums()) */
static void node_values(struct walk *w)
{
	const struct sp_profile *p = w->p;
	size_t n = p->nnodes;

	w->self_v = sp_xcalloc(n + 1, sizeof(*w->self_v));
	w->subtree_v = sp_xcalloc(n + 1, sizeof(*w->subtree_v));
	w->self_c = sp_xcalloc(n + 1, sizeof(*w->self_c));
	w->subtree_c = sp_xcalloc(n + 1, sizeof(*w->subtree_c));
	sp_profile_node_sums(p, w->o->counter, pick_of(w->o->field),
			     w->o->max_values ? SP_SUM_MAX : 0, w->self_v, w->subtree_v);
	sp_profile_node_sums(p, w->o->counter, SP_PICK_COUNT, 0, w->self_c, w->subtree_c);
}

static uint32_t arc_for(struct walk *w, uint32_t caller, uint32_t callee)
{
	uint32_t a = sp_cg_arc_add(w->cg, caller, callee, 0);

	if (w->cg->narcs > w->arc_alloc) {
		size_t old = w->arc_alloc;

		w->arc_alloc = w->cg->narcs * 2;
		w->arc_occ = sp_xreallocarray(w->arc_occ, w->arc_alloc, sizeof(uint32_t));
		w->arc_total = sp_xreallocarray(w->arc_total, w->arc_alloc, sizeof(double));
		w->arc_total_c = sp_xreallocarray(w->arc_total_c, w->arc_alloc, sizeof(double));
		w->arc_calls = sp_xreallocarray(w->arc_calls, w->arc_alloc, sizeof(double));
		memset(w->arc_calls + old, 0, (w->arc_alloc - old) * sizeof(double));
		memset(w->arc_occ + old, 0, (w->arc_alloc - old) * sizeof(uint32_t));
		memset(w->arc_total + old, 0, (w->arc_alloc - old) * sizeof(double));
		memset(w->arc_total_c + old, 0, (w->arc_alloc - old) * sizeof(double));
	}
	return a;
}

/* Pushes the functions of node n's frame; returns how many. */
static size_t enter(struct walk *w, uint32_t n)
{
	uint32_t frame = w->p->nodes[n].frame, k, first, last;
	size_t pushed = 0;

	if (frame == SP_NONE || frame >= w->p->nframes)
		return 0;
	first = w->o->frame_first[frame];
	last = w->o->frame_first[frame + 1];
	for (k = first; k < last; k++) {
		uint32_t f = w->o->frame_funcs[k];

		if (w->depth) {
			uint32_t a = arc_for(w, w->path[w->depth - 1], f);

			if (w->arc_occ[a]++ == 0) {
				acc(w, &w->arc_total[a], (double)w->subtree_v[n]);
				w->arc_total_c[a] += (double)w->subtree_c[n];
			}
			if (k == last - 1)
				w->arc_calls[a] += (double)w->self_c[n];
		}
		if (w->occ[f]++ == 0) {
			acc(w, &w->fn_total[f], (double)w->subtree_v[n]);
			w->fn_total_c[f] += (double)w->subtree_c[n];
		}
		SP_ALLOC_GROW(w->path, w->depth + 1, w->path_alloc);
		w->path[w->depth++] = f;
		pushed++;
	}
	if ((w->self_v[n] != 0 || w->self_c[n] != 0) && w->depth) {
		uint32_t leaf = w->path[w->depth - 1];

		acc(w, &w->cg->nodes[leaf].time, (double)w->self_v[n]);
		if (w->o->counts_known)
			w->cg->nodes[leaf].ncalls += (uint64_t)w->self_c[n];
		if (w->depth > 1) {
			uint32_t a = sp_cg_arc_find(w->cg, w->path[w->depth - 2], leaf);
			acc(w, &w->cg->arcs[a].time, (double)w->self_v[n]);
		}
	}
	return pushed;
}

static void leave(struct walk *w, size_t pushed)
{
	while (pushed--) {
		uint32_t f = w->path[--w->depth];

		w->occ[f]--;
		if (w->depth)
			w->arc_occ[sp_cg_arc_find(w->cg, w->path[w->depth - 1], f)]--;
	}
}

/*
 * Depth-first over the CCT with an explicit stack (no depth limit),
 * children in the order they were created (nodes are numbered parents
 * first): the arcs, and so the graph's order among equals, then follow the
 * profile, not the order in which the tree's sibling lists were searched.
 */
static void walk_tree(struct walk *w)
{
	const struct sp_profile *p = w->p;
	size_t n = p->nnodes, i, sp = 0;
	uint32_t *first, *kids, *next, *stack;
	size_t *pushed;

	if (!n)
		return;
	/* children of node k: kids[first[k] .. first[k + 1]), by index */
	first = sp_xcalloc(n + 2, sizeof(*first));
	kids = sp_xmalloc((n + 1) * sizeof(*kids));
	for (i = 1; i < n; i++)
		first[p->nodes[i].parent + 2]++;
	for (i = 2; i < n + 2; i++)
		first[i] += first[i - 1];
	for (i = 1; i < n; i++)
		kids[first[p->nodes[i].parent + 1]++] = (uint32_t)i;
	stack = sp_xmalloc((n + 1) * sizeof(*stack));
	next = sp_xmalloc((n + 1) * sizeof(*next));
	pushed = sp_xmalloc((n + 1) * sizeof(*pushed));
	stack[0] = 0;
	pushed[0] = enter(w, 0);
	next[0] = first[0];
	sp = 1;
	while (sp) {
		uint32_t top = stack[sp - 1], c;

		if (next[sp - 1] == first[top + 1]) {
			leave(w, pushed[--sp]);
			continue;
		}
		c = kids[next[sp - 1]++];
		stack[sp] = c;
		pushed[sp] = enter(w, c);
		next[sp] = first[c];
		sp++;
	}
	free(first);
	free(kids);
	free(stack);
	free(next);
	free(pushed);
}

static int cmp_total(const void *a, const void *b, void *ctx)
{
	const struct sp_cg *cg = ctx;
	const struct sp_cg_node *l = &cg->nodes[*(const uint32_t *)a];
	const struct sp_cg_node *r = &cg->nodes[*(const uint32_t *)b];
	double diff = (l->prop_self + l->prop_child) - (r->prop_self + r->prop_child);

	if (diff < 0.0)
		return 1;
	if (diff > 0.0)
		return -1;
	if (l->sym->name[0] != '_' && r->sym->name[0] == '_')
		return -1;
	if (l->sym->name[0] == '_' && r->sym->name[0] != '_')
		return 1;
	return strcmp(l->sym->name, r->sym->name);
}

/* With activation counts, a function's calls from itself are its
 * self-recursive calls, apart from its other calls as in gprof. */
static void split_recursive_calls(struct sp_cg *cg)
{
	size_t i;

	for (i = 0; i < cg->narcs; i++) {
		struct sp_cg_arc *a = &cg->arcs[i];
		struct sp_cg_node *n = &cg->nodes[a->child];

		if (a->parent != a->child)
			continue;
		n->self_calls += a->count;
		n->ncalls -= a->count < n->ncalls ? a->count : n->ncalls;
	}
}

static void finish(struct walk *w)
{
	struct sp_cg *cg = w->cg;
	size_t i;

	for (i = 0; i < cg->nsyms; i++) {
		struct sp_cg_node *n = &cg->nodes[i];

		n->prop_fract = 1.0;
		n->prop_self = n->time;
		n->child_time = w->fn_total[i] - n->time;
		if (n->child_time < 0)
			n->child_time = 0;
		n->prop_child = n->child_time;
		n->print_flag = 1;
		n->flat_print = 1;
	}
	for (i = 0; i < cg->narcs; i++) {
		struct sp_cg_arc *a = &cg->arcs[i];

		a->child_time = w->arc_total[i] - a->time;
		if (a->child_time < 0)
			a->child_time = 0;
		if (!w->o->counts_known)
			a->count = 0;
		else if (w->o->node_counts)
			a->count = (uint64_t)w->arc_calls[i];
		else
			a->count = (uint64_t)w->arc_total_c[i];
	}
	if (w->o->node_counts && w->o->counts_known)
		split_recursive_calls(cg);
	cg->total_time = (double)w->subtree_v[0];
	cg->print_time = cg->total_time;
	cg->order = sp_xmalloc((cg->nnodes + 1) * sizeof(*cg->order));
	for (i = 0; i < cg->nnodes; i++)
		cg->order[i] = (uint32_t)i;
	sp_sort(cg->order, cg->nnodes, sizeof(*cg->order), cmp_total, cg);
	for (i = 0; i < cg->nnodes; i++)
		cg->nodes[cg->order[i]].index = (int)i + 1;
}

struct sp_cg *sp_cg_from_cct(const struct sp_profile *p, const struct sp_cg_stack_opts *o,
			     struct sp_error *err)
{
	const struct sp_symtab *t = o->funcs;
	struct sp_cg *cg = sp_cg_new();
	struct walk w;
	size_t i;

	(void)err;
	cg->symtab = t;
	cg->nsyms = cg->nnodes = t->len;
	cg->nodes = sp_xcalloc(t->len + 1, sizeof(*cg->nodes));
	for (i = 0; i < t->len; i++) {
		cg->nodes[i].sym = &t->syms[i];
		cg->nodes[i].parents = cg->nodes[i].children = SP_CG_NONE;
		cg->nodes[i].cyc_head = (uint32_t)i;
		cg->nodes[i].cyc_next = SP_CG_NONE;
	}
	cg->hz = o->hz;
	cg->hist_scale = 0;
	snprintf(cg->dimen, sizeof(cg->dimen), "%s", o->dimen ? o->dimen : "seconds");
	cg->dimen_abbrev = o->dimen_abbrev ? o->dimen_abbrev : 's';
	cg->have_hist = cg->have_arcs = 1;
	cg->stack_based = 1;
	cg->counts_known = o->counts_known;
	memset(&w, 0, sizeof(w));
	w.p = p;
	w.o = o;
	w.cg = cg;
	node_values(&w);
	w.occ = sp_xcalloc(t->len + 1, sizeof(uint32_t));
	w.fn_total = sp_xcalloc(t->len + 1, sizeof(double));
	w.fn_total_c = sp_xcalloc(t->len + 1, sizeof(double));
	walk_tree(&w);
	finish(&w);
	free(w.self_v);
	free(w.subtree_v);
	free(w.self_c);
	free(w.subtree_c);
	free(w.occ);
	free(w.arc_occ);
	free(w.fn_total);
	free(w.fn_total_c);
	free(w.arc_total);
	free(w.arc_total_c);
	free(w.arc_calls);
	free(w.path);
	return cg;
}
