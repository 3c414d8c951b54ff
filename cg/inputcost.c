/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Cost as a function of the input size (inputcost.h), from the p/q tuples
 * of an aprof profile.
 *
 * A routine's tuples come from every context it ran in (q lines) or from
 * the routine as a whole (p lines); tuples with the same input size merge
 * as aprof merges them: calls, sums and `real` add up, the minimum of the
 * minima and the maximum of the maxima are kept. From the merged points:
 *
 *   calls  = sum of calls            self  = sum of self costs
 *   total  = sum of `real`           cumul = sum of cumulative costs
 *
 * `real` is the cumulative cost of the activations that are not nested in
 * another activation of the same routine, so `total` counts recursion once
 * (a recursive routine's `cumul` counts every level again). The worst-case
 * curve is max cost per size, the average curve sum / calls per size; each
 * gets a growth fit (fit.c) when it has enough distinct sizes.
 */
#include "symprof/inputcost.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "symprof/cg.h"
#include "symprof/profile.h"
#include "symprof/sort.h"
#include "symprof/symbolize.h"

struct keyed {
	uint64_t size;
	uint32_t idx;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *l = a, *r = b;

	if (l->size != r->size)
		return l->size < r->size ? -1 : 1;
	return l->idx < r->idx ? -1 : l->idx > r->idx;
}

static void merge_point(struct sp_ic_point *d, const struct sp_input_point *s, int fresh)
{
	int i;

	if (fresh || s->min < d->min)
		d->min = s->min;
	if (fresh || s->self_min < d->self_min)
		d->self_min = s->self_min;
	if (s->max > d->max)
		d->max = s->max;
	if (s->self_max > d->self_max)
		d->self_max = s->self_max;
	d->calls += s->calls;
	d->sum += s->sum;
	d->real += s->real;
	d->self_sum += s->self_sum;
	for (i = 0; i < 4; i++)
		d->induced[i] += s->extra[i];
}

/* Builds an entry from the profile points idx[0..n) (sorted by size). */
static void build_entry(struct sp_inputcost *ic, struct sp_ic_entry *e, const struct keyed *k,
			size_t n)
{
	const struct sp_profile *p = ic->p;
	size_t i, m = 0;
	int j;

	e->points = sp_arena_array(&ic->arena, n ? n : 1, sizeof(*e->points));
	for (i = 0; i < n; i++) {
		const struct sp_input_point *s = &p->points[k[i].idx];
		int fresh = m == 0 || e->points[m - 1].size != s->size;

		if (fresh) {
			memset(&e->points[m], 0, sizeof(e->points[m]));
			e->points[m++].size = s->size;
		}
		merge_point(&e->points[m - 1], s, fresh);
	}
	e->npoints = m;
	for (i = 0; i < m; i++) {
		struct sp_ic_point *pt = &e->points[i];

		pt->avg = pt->calls ? (double)pt->sum / (double)pt->calls : 0;
		e->calls += pt->calls;
		e->self += pt->self_sum;
		e->cumul += pt->sum;
		e->total += ic->has_real ? pt->real : pt->sum;
		for (j = 0; j < 4; j++)
			e->induced[j] += pt->induced[j];
	}
}

static void fit_entry(struct sp_ic_entry *e, unsigned min_sizes)
{
	double *x, *y;
	size_t i;

	x = sp_xmalloc((e->npoints + 1) * sizeof(*x));
	y = sp_xmalloc((e->npoints + 1) * sizeof(*y));
	for (i = 0; i < e->npoints; i++) {
		x[i] = (double)e->points[i].size;
		y[i] = (double)e->points[i].max;
	}
	sp_fit_power(x, y, e->npoints, min_sizes, &e->worst);
	for (i = 0; i < e->npoints; i++)
		y[i] = e->points[i].avg;
	sp_fit_power(x, y, e->npoints, min_sizes, &e->avg);
	free(x);
	free(y);
}

/* Groups the points by key (function or node, nkeys of them) and sorts
 * each group by size: group g is keys[first[g] .. first[g + 1]). */
static struct keyed *group(const struct sp_profile *p, int by_node, size_t nkeys,
			   size_t **first_out)
{
	size_t *first = sp_xcalloc(nkeys + 2, sizeof(*first)), i, g;
	struct keyed *k = sp_xmalloc((p->npoints + 1) * sizeof(*k));
	size_t *fill;

	for (i = 0; i < p->npoints; i++) {
		uint32_t key = by_node ? p->points[i].node : p->points[i].func;

		if (key < nkeys)
			first[key + 1]++;
	}
	for (g = 0; g < nkeys; g++)
		first[g + 1] += first[g];
	fill = sp_xmalloc((nkeys + 1) * sizeof(*fill));
	memcpy(fill, first, (nkeys + 1) * sizeof(*fill));
	for (i = 0; i < p->npoints; i++) {
		uint32_t key = by_node ? p->points[i].node : p->points[i].func;

		if (key < nkeys) {
			k[fill[key]].size = p->points[i].size;
			k[fill[key]++].idx = (uint32_t)i;
		}
	}
	free(fill);
	for (g = 0; g < nkeys; g++)
		qsort(k + first[g], first[g + 1] - first[g], sizeof(*k), cmp_keyed);
	*first_out = first;
	return k;
}

static void build_contexts(struct sp_inputcost *ic)
{
	const struct sp_profile *p = ic->p;
	size_t *first, n;
	struct keyed *k;
	uint32_t node;

	if (!p->nnodes)
		return;
	k = group(p, 1, p->nnodes, &first);
	ic->context_of_node = sp_xmalloc(p->nnodes * sizeof(*ic->context_of_node));
	for (node = 0, n = 0; node < p->nnodes; node++)
		n += first[node + 1] > first[node];
	ic->contexts = sp_xcalloc(n + 1, sizeof(*ic->contexts));
	for (node = 0; node < p->nnodes; node++) {
		struct sp_ic_entry *e;

		ic->context_of_node[node] = SP_NONE;
		if (first[node + 1] == first[node])
			continue;
		e = &ic->contexts[ic->ncontexts];
		ic->context_of_node[node] = (uint32_t)ic->ncontexts++;
		e->node = node;
		e->func = p->points[k[first[node]].idx].func;
		build_entry(ic, e, k + first[node], first[node + 1] - first[node]);
		if (e->func < ic->nroutines)
			ic->routines[e->func].ncontexts++;
	}
	free(first);
	free(k);
}

struct sp_inputcost *sp_inputcost_new(const struct sp_profile *p, unsigned min_sizes)
{
	struct sp_inputcost *ic = sp_xcalloc(1, sizeof(*ic));
	size_t *first, f;
	struct keyed *k;

	ic->p = p;
	ic->min_sizes = min_sizes > SP_FIT_MIN_SIZES ? min_sizes : SP_FIT_MIN_SIZES;
	sp_arena_init(&ic->arena);
	ic->has_self = !!(p->aprof.fields & SP_APROF_HAS_SELF);
	ic->has_real = !!(p->aprof.fields & SP_APROF_HAS_REAL);
	ic->nroutines = p->nfuncs;
	ic->routines = sp_xcalloc(p->nfuncs + 1, sizeof(*ic->routines));
	k = group(p, 0, p->nfuncs, &first);
	for (f = 0; f < p->nfuncs; f++) {
		struct sp_ic_entry *e = &ic->routines[f];

		e->func = (uint32_t)f;
		e->node = SP_NONE;
		build_entry(ic, e, k + first[f], first[f + 1] - first[f]);
		fit_entry(e, ic->min_sizes);
		ic->self_total += e->self;
	}
	free(first);
	free(k);
	build_contexts(ic);
	ic->run_total = p->aprof.total_cost ? p->aprof.total_cost : ic->self_total;
	return ic;
}

void sp_inputcost_fit_contexts(struct sp_inputcost *ic)
{
	size_t i;

	if (ic->contexts_fitted)
		return;
	for (i = 0; i < ic->ncontexts; i++)
		fit_entry(&ic->contexts[i], ic->min_sizes);
	ic->contexts_fitted = 1;
}

void sp_inputcost_free(struct sp_inputcost *ic)
{
	if (!ic)
		return;
	free(ic->routines);
	free(ic->contexts);
	free(ic->context_of_node);
	sp_arena_release(&ic->arena);
	free(ic);
}

/* ---- ranking and lookup ---- */

static int cmp_cost(const struct sp_inputcost *ic, uint32_t l, uint32_t r)
{
	const struct sp_ic_entry *a = &ic->routines[l], *b = &ic->routines[r];

	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	if (a->self != b->self)
		return a->self > b->self ? -1 : 1;
	return strcmp(ic->p->funcs[l].name, ic->p->funcs[r].name);
}

/* 0: a fit whose cost grows, 1: another fit, 2: none */
static int fit_class(const struct sp_fit *f)
{
	double g = sp_fit_growth(f);

	return isnan(g) ? 2 : g == -INFINITY;
}

struct rank_ctx {
	const struct sp_inputcost *ic;
	enum sp_ic_rank by;
};

static int cmp_rank(const void *a, const void *b, void *ctx)
{
	const struct rank_ctx *rc = ctx;
	const struct sp_inputcost *ic = rc->ic;
	uint32_t l = *(const uint32_t *)a, r = *(const uint32_t *)b;

	if (rc->by == SP_IC_RANK_GROWTH) {
		const struct sp_fit *fl = &ic->routines[l].worst, *fr = &ic->routines[r].worst;
		int cl = fit_class(fl), cr = fit_class(fr);
		double gl = sp_fit_growth(fl), gr = sp_fit_growth(fr);

		if (cl != cr)
			return cl < cr ? -1 : 1;
		if (cl == 0 && gl != gr)
			return gl > gr ? -1 : 1;
	}
	return cmp_cost(ic, l, r);
}

size_t sp_inputcost_rank(const struct sp_inputcost *ic, enum sp_ic_rank by, uint32_t *order)
{
	struct rank_ctx ctx = {ic, by};
	size_t i, n = 0;

	for (i = 0; i < ic->nroutines; i++)
		if (ic->routines[i].npoints)
			order[n++] = (uint32_t)i;
	sp_sort(order, n, sizeof(*order), cmp_rank, &ctx);
	return n;
}

size_t sp_inputcost_find(const struct sp_inputcost *ic, const char *name, uint32_t *out, size_t max)
{
	uint32_t *order = sp_xmalloc((ic->nroutines + 1) * sizeof(*order));
	size_t i, n = sp_inputcost_rank(ic, SP_IC_RANK_COST, order), found = 0;

	for (i = 0; i < n && found < max; i++) {
		const struct sp_func *f = &ic->p->funcs[order[i]];

		if (!strcmp(f->name, name) || (f->mangled && !strcmp(f->mangled, name)))
			out[found++] = order[i];
	}
	free(order);
	return found;
}

/* ---- a flat call graph without a CCT ---- */

struct sp_cg *sp_inputcost_flat_cg(const struct sp_inputcost *ic, const struct sp_symtab *t)
{
	struct sp_cg *cg = sp_cg_new();
	size_t i;

	cg->symtab = t;
	cg->nsyms = cg->nnodes = t->len;
	cg->nodes = sp_xcalloc(t->len + 1, sizeof(*cg->nodes));
	cg->order = sp_xmalloc((t->len + 1) * sizeof(*cg->order));
	for (i = 0; i < t->len; i++) {
		struct sp_cg_node *n = &cg->nodes[i];
		const struct sp_ic_entry *e = i < ic->nroutines ? &ic->routines[i] : NULL;

		n->sym = &t->syms[i];
		n->parents = n->children = SP_CG_NONE;
		n->cyc_head = (uint32_t)i;
		n->cyc_next = SP_CG_NONE;
		n->prop_fract = 1.0;
		n->print_flag = n->flat_print = 1;
		if (e) {
			n->time = n->prop_self = (double)e->self;
			n->ncalls = e->calls;
			n->child_time = n->prop_child =
				e->total > e->self ? (double)(e->total - e->self) : 0;
		}
		cg->total_time += n->time;
		cg->order[i] = (uint32_t)i;
		n->index = (int)i + 1;
	}
	/* what the routines' totals are a share of: the run's cost, as in the
	 * routine table (version 1 reports have no self costs at all) */
	cg->print_time = ic->run_total ? (double)ic->run_total : cg->total_time;
	cg->hz = 1;
	cg->have_hist = 1;
	cg->stack_based = 1;
	cg->counts_known = 1;
	return cg;
}
