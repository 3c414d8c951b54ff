/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * igprof-analyse's text report (src/analyse.cc: TreeMapBuilderFilter,
 * GProfMainRowBuilder, generateFlatReport; shared/reference/peers.md §2.5)
 * from the tree of functions cg/igtree.c builds:
 *
 *   Counter: NAME
 *   Flat profile (cumulative >= 1%)   % total, Total, [Calls], Function [rank]
 *   Flat profile (self >= 0.01%)      % total, Self, [Calls], Function [rank]
 *   Call tree profile (cumulative)    per function: callers, the function,
 *                                     callees, with Self / Children and
 *                                     [Calls / Total]
 *
 * Its rules, kept here:
 *  - a function that occurs again on its own path is another entry, NAME'2
 *    (NAME'3 ...: the first suffix not on the path), so recursion is
 *    counted once per path and each entry adds its nodes' values up;
 *  - an entry's cumulative value sums its nodes' subtree values, an edge's
 *    the callee node's; for a MAX counter every sum is a maximum;
 *  - ranks: by |cumulative| descending, then the shallowest first, then by
 *    name; the cumulative list stops after the first row under 1%, the
 *    self list (by |self|, stable) after the first under 0.01%;
 *  - numbers get ' thousands separators; PERF_TICKS values are ticks
 *    times the period (a float, as igprof-analyse keeps it) with two
 *    decimals; the Calls columns are shown for MEM_* counters;
 *  - callers are listed by ascending value, callees by descending value.
 */
#include "symprof/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"
#include "symprof/buf.h"
#include "symprof/hashmap.h"
#include "symprof/profile.h"
#include "symprof/sort.h"
#include "symprof/symbolize.h"

/* ---- the entries ---- */

struct entry {
	uint32_t name;	 /* name id */
	uint32_t suffix; /* 1: none, k: NAME'k */
	int64_t self[3]; /* value, count, nodes */
	int64_t cum[3];
	uint32_t depth; /* shallowest, root = 1 */
	uint32_t rank;
	const char *label; /* printed name */
};

struct edge {
	uint32_t from, to;
	int64_t v[3];
};

struct igr {
	const struct sp_profile *t;
	const struct sp_igprof_report_opts *o;
	FILE *out;
	int64_t *cnt, *freq, *ccnt, *cfreq; /* per tree node */
	const char **names;		    /* name id -> raw name */
	uint32_t *name_of;		    /* tree frame -> name id */
	size_t nnames;
	uint32_t *on_path; /* per name id: how many times on the path */
	struct entry *e;
	size_t ne, e_alloc;
	struct sp_pairmap e_index;
	struct edge *g;
	size_t ng, g_alloc;
	struct sp_pairmap g_index;
	uint32_t *by_from, *by_to;     /* edges grouped by caller, by callee */
	size_t *from_first, *to_first; /* entry e's: [first[e], first[e + 1]) */
	int64_t totals, totfreq;
	int maxval, maxcnt;
	struct sp_strtab labels;
};

static void e_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct igr *r = ctx;

	*k1 = r->e[i].name;
	*k2 = r->e[i].suffix;
}

static void g_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct igr *r = ctx;

	*k1 = r->g[i].from;
	*k2 = r->g[i].to;
}

static void acc(int64_t *b, int64_t c, int64_t f, int max)
{
	if (max) {
		if (b[0] < c)
			b[0] = c;
	} else {
		b[0] += c;
	}
	b[1] += f;
	b[2]++;
}

static void node_values(struct igr *r)
{
	const struct sp_profile *t = r->t;
	size_t n = t->nnodes;

	r->cnt = sp_xcalloc(n + 1, sizeof(int64_t));
	r->freq = sp_xcalloc(n + 1, sizeof(int64_t));
	r->ccnt = sp_xcalloc(n + 1, sizeof(int64_t));
	r->cfreq = sp_xcalloc(n + 1, sizeof(int64_t));
	/* one value per node (sp_igtree_build): for a MAX counter, that value
	 * is the node's own maximum */
	sp_profile_node_sums(t, 0, SP_PICK_VALUE, r->o->is_max ? SP_SUM_MAX : 0, r->cnt, r->ccnt);
	sp_profile_node_sums(t, 0, SP_PICK_COUNT, 0, r->freq, r->cfreq);
}

static void name_key(const void *ctx, uint32_t i, uint64_t *k1, uint64_t *k2)
{
	const struct igr *r = ctx;

	*k1 = (uint64_t)(uintptr_t)r->names[i];
	*k2 = 0;
}

/* One id per distinct name (igprof-analyse keys its symbols by name). */
static void name_ids(struct igr *r)
{
	const struct sp_profile *t = r->t;
	struct sp_pairmap m;
	size_t i;

	sp_pairmap_init(&m, name_key, r);
	r->names = sp_xcalloc(t->nframes + 2, sizeof(*r->names));
	r->name_of = sp_xcalloc(t->nframes + 1, sizeof(*r->name_of));
	r->names[r->nnames++] = "<spontaneous>";
	for (i = 0; i < t->nframes; i++) {
		const char *n = t->frames[i].name ? t->frames[i].name : "??";
		uint32_t k;

		r->names[r->nnames] = n;
		k = sp_pairmap_put(&m, (uint64_t)(uintptr_t)n, 0, (uint32_t)r->nnames);
		if (k == r->nnames)
			r->nnames++;
		r->name_of[i] = k;
	}
	sp_pairmap_release(&m);
	r->on_path = sp_xcalloc(r->nnames + 1, sizeof(*r->on_path));
}

/* The suffix of name id on entering a node: 1 if the name is not on the
 * path, else the first k >= 2 that is not. Names enter and leave the path
 * in stack order, so the suffixes in use are always 1..n: the next is
 * n + 1. */
static uint32_t enter_name(struct igr *r, uint32_t id)
{
	return ++r->on_path[id];
}

static uint32_t entry_for(struct igr *r, uint32_t name, uint32_t suffix)
{
	uint32_t i = sp_pairmap_get(&r->e_index, name, suffix);
	struct entry *e;

	if (i != UINT32_MAX)
		return i;
	SP_ALLOC_GROW(r->e, r->ne + 1, r->e_alloc);
	e = &r->e[r->ne];
	memset(e, 0, sizeof(*e));
	e->name = name;
	e->suffix = suffix;
	e->depth = UINT32_MAX;
	sp_pairmap_put(&r->e_index, name, suffix, (uint32_t)r->ne);
	return (uint32_t)r->ne++;
}

static void edge_add(struct igr *r, uint32_t from, uint32_t to, int64_t c, int64_t f)
{
	uint32_t i;

	SP_ALLOC_GROW(r->g, r->ng + 1, r->g_alloc);
	r->g[r->ng].from = from;
	r->g[r->ng].to = to;
	i = sp_pairmap_put(&r->g_index, from, to, (uint32_t)r->ng);
	if (i == r->ng) {
		memset(r->g[i].v, 0, sizeof(r->g[i].v));
		r->ng++;
	}
	acc(r->g[i].v, c, f, r->o->is_max);
}

/* Node n of the walk: its entry (NAME or NAME'k), values, edge. */
static uint32_t visit(struct igr *r, uint32_t n, const uint32_t *stack_entry, size_t depth)
{
	const struct sp_profile *t = r->t;
	uint32_t name = n ? r->name_of[t->nodes[n].frame] : 0;
	uint32_t ent = entry_for(r, name, enter_name(r, name));
	struct entry *e;

	if (depth)
		edge_add(r, stack_entry[depth - 1], ent, r->ccnt[n], r->cfreq[n]);
	e = &r->e[ent];
	if (e->depth > depth + 1)
		e->depth = (uint32_t)depth + 1;
	acc(e->self, r->cnt[n], r->freq[n], r->o->is_max);
	acc(e->cum, r->ccnt[n], r->cfreq[n], r->o->is_max);
	return ent;
}

/* The pre-order walk of TreeMapBuilderFilter over the whole tree. */
static void build_entries(struct igr *r)
{
	const struct sp_profile *t = r->t;
	uint32_t *stack_node = NULL, *stack_entry = NULL, n = 0;
	size_t depth = 0, alloc = 0, ealloc = 0;

	sp_pairmap_init(&r->e_index, e_key, r);
	sp_pairmap_init(&r->g_index, g_key, r);
	while (t->nnodes) {
		uint32_t ent = visit(r, n, stack_entry, depth);

		SP_ALLOC_GROW(stack_node, depth + 1, alloc);
		SP_ALLOC_GROW(stack_entry, depth + 1, ealloc);
		stack_node[depth] = n;
		stack_entry[depth++] = ent;
		if (t->nodes[n].first_child != SP_NONE) {
			n = t->nodes[n].first_child;
			continue;
		}
		/* leave nodes until one has a next sibling */
		for (;;) {
			const struct entry *x = &r->e[stack_entry[--depth]];
			uint32_t left = stack_node[depth];

			r->on_path[x->name]--;
			if (!depth || t->nodes[left].next_sibling != SP_NONE) {
				n = depth ? t->nodes[left].next_sibling : SP_NONE;
				break;
			}
		}
		if (n == SP_NONE)
			break;
	}
	free(stack_node);
	free(stack_entry);
}

/* ---- ranks and labels ---- */

static const char *raw_name(const struct igr *r, const struct entry *e)
{
	return r->names[e->name];
}

static int cmp_rank(const void *a, const void *b, void *ctx)
{
	const struct igr *r = ctx;
	const struct entry *x = &r->e[*(const uint32_t *)a], *y = &r->e[*(const uint32_t *)b];
	int64_t ax = llabs(x->cum[0]), ay = llabs(y->cum[0]);
	int c;

	if (ax != ay)
		return ax > ay ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	c = strcmp(raw_name(r, x), raw_name(r, y));
	if (c)
		return c;
	return x->suffix < y->suffix ? -1 : x->suffix > y->suffix;
}

static int cmp_self(const void *a, const void *b, void *ctx)
{
	const struct igr *r = ctx;
	int64_t x = llabs(r->e[*(const uint32_t *)a].self[0]);
	int64_t y = llabs(r->e[*(const uint32_t *)b].self[0]);

	return x > y ? -1 : x < y;
}

static void label(struct igr *r, struct entry *e)
{
	struct sp_buf b = SP_BUF_INIT;
	const char *raw = raw_name(r, e);
	char *dm = r->o->demangle && e->name ? sp_demangle(raw, 0) : NULL;

	sp_buf_addstr(&b, dm ? dm : raw);
	if (e->suffix > 1)
		sp_buf_addf(&b, "'%u", e->suffix);
	e->label = sp_strtab_intern(&r->labels, b.buf);
	free(dm);
	sp_buf_release(&b);
}

/* ---- numbers ---- */

/* igprof-analyse's thousands(): 1'234'567. */
static void thousands_i(struct sp_buf *b, int64_t v)
{
	char d[32];
	int n, i;
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

	n = snprintf(d, sizeof(d), "%llu", (unsigned long long)u);
	sp_buf_reset(b);
	if (v < 0)
		sp_buf_addch(b, '-');
	for (i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			sp_buf_addch(b, '\'');
		sp_buf_addch(b, d[i]);
	}
}

/* thousands(double, 0, 2): rounded to hundredths, "0.66", "1'234.50". */
static void thousands_d(struct sp_buf *b, double v)
{
	char frac[32];

	v = round(v * 100.) / 100.;
	thousands_i(b, (int64_t)v);
	snprintf(frac, sizeof(frac), "%.2f", fabs(v - (double)(int64_t)v));
	sp_buf_addstr(b, frac + 1);
}

/* A value of the counter as the report prints it (PERF_TICKS: seconds
 * through igprof-analyse's float period). */
static const char *val(const struct igr *r, struct sp_buf *b, int64_t v)
{
	if (r->o->seconds_per_tick > 0)
		thousands_d(b, (double)v * (double)(float)r->o->seconds_per_tick);
	else
		thousands_i(b, v);
	return b->buf;
}

static const char *num(struct sp_buf *b, int64_t v)
{
	thousands_i(b, v);
	return b->buf;
}

static double pct(int64_t a, int64_t b)
{
	if (!b)
		return 0;
	return (float)((double)a / (double)b * 100.);
}

/* ---- printing ---- */

static void repeat(FILE *out, const char *s, size_t n)
{
	while (n--)
		fputs(s, out);
}

static void header(struct igr *r, const char *title, const char *kind)
{
	FILE *out = r->out;

	fputs("\n", out);
	repeat(out, "-", 70);
	fprintf(out, "\n%s\n\n%% total  %*s  ", title, r->maxval, kind);
	if (r->o->with_calls)
		fprintf(out, "%*s  ", r->maxcnt, "Calls");
	fputs("Function\n", out);
}

static void print_flat(struct igr *r, const uint32_t *order, size_t n, int self)
{
	struct sp_buf b = SP_BUF_INIT, c = SP_BUF_INIT;
	size_t i;

	header(r, self ? "Flat profile (self >= 0.01%)" : "Flat profile (cumulative >= 1%)",
	       self ? "Self" : "Total");
	for (i = 0; i < n; i++) {
		const struct entry *e = &r->e[order[i]];
		int64_t v = self ? e->self[0] : e->cum[0];
		double p = pct(v, r->totals);

		fprintf(r->out, self ? "%7.2f  " : "%7.1f  ", p);
		fprintf(r->out, "%*s  ", r->maxval, val(r, &b, v));
		if (r->o->with_calls)
			fprintf(r->out, "%*s  ", r->maxcnt, num(&c, self ? e->self[1] : e->cum[1]));
		fprintf(r->out, "%s [%u]\n", e->label, e->rank);
		if ((self ? p < 0.01 : p < 1.) || v == 0)
			break;
	}
	fputc('\n', r->out);
	sp_buf_release(&b);
	sp_buf_release(&c);
}

/* "  Self / Children" with the report's widths. */
static void fraction(struct igr *r, const char *a, const char *b, int w)
{
	fprintf(r->out, "%*s / %-*s", w, a, w, b);
}

/* A caller or callee line: the edge's value and calls, the other end's. */
static void other_line(struct igr *r, const struct edge *g, const struct entry *other)
{
	struct sp_buf a = SP_BUF_INIT, b = SP_BUF_INIT;

	fprintf(r->out, "        %7.1f  ", pct(g->v[0], r->totals));
	repeat(r->out, ".", (size_t)r->maxval);
	fputs("  ", r->out);
	val(r, &a, g->v[0]);
	val(r, &b, other->cum[0]);
	fraction(r, a.buf, b.buf, r->maxval);
	fputs("  ", r->out);
	if (r->o->with_calls) {
		fraction(r, num(&a, g->v[1]), num(&b, other->cum[1]), r->maxcnt);
		fputs("  ", r->out);
	}
	fprintf(r->out, "  %s [%u]\n", other->label, other->rank);
	sp_buf_release(&a);
	sp_buf_release(&b);
}

/* The edges into (callers) or out of (callees) entry x, in print order. */
struct side {
	const struct igr *r;
	int callees;
};

static int cmp_side(const void *a, const void *b, void *ctx)
{
	const struct side *s = ctx;
	const struct edge *x = &s->r->g[*(const uint32_t *)a], *y = &s->r->g[*(const uint32_t *)b];
	const struct entry *ox = &s->r->e[s->callees ? x->to : x->from];
	const struct entry *oy = &s->r->e[s->callees ? y->to : y->from];
	int sign = s->callees ? -1 : 1;

	if (x->v[0] != y->v[0])
		return sign * (x->v[0] < y->v[0] ? -1 : 1);
	if (ox->cum[0] != oy->cum[0])
		return sign * (ox->cum[0] < oy->cum[0] ? -1 : 1);
	return strcmp(ox->label, oy->label);
}

/* Edges grouped by one end (a counting sort): entry e's are
 * v[first[e] .. first[e + 1]). */
static void group_edges(const struct igr *r, int by_to, uint32_t **v, size_t **first)
{
	size_t i;

	*first = sp_xcalloc(r->ne + 2, sizeof(**first));
	*v = sp_xmalloc((r->ng + 1) * sizeof(**v));
	for (i = 0; i < r->ng; i++)
		(*first)[(by_to ? r->g[i].to : r->g[i].from) + 1]++;
	for (i = 0; i < r->ne; i++)
		(*first)[i + 1] += (*first)[i];
	for (i = 0; i < r->ng; i++)
		(*v)[(*first)[by_to ? r->g[i].to : r->g[i].from]++] = (uint32_t)i;
	for (i = r->ne; i > 0; i--)
		(*first)[i] = (*first)[i - 1];
	(*first)[0] = 0;
}

static size_t side_of(struct igr *r, uint32_t x, int callees, uint32_t **v, size_t *alloc)
{
	struct side s = {r, callees};
	const uint32_t *all = callees ? r->by_from : r->by_to;
	const size_t *first = callees ? r->from_first : r->to_first;
	size_t i, n = 0;

	for (i = first[x]; i < first[x + 1]; i++) {
		if (!r->g[all[i]].v[0])
			continue;
		SP_ALLOC_GROW(*v, n + 1, *alloc);
		(*v)[n++] = all[i];
	}
	sp_sort(*v, n, sizeof(**v), cmp_side, &s);
	return n;
}

static void tree_header(struct igr *r)
{
	fprintf(r->out, "%-8s%% total  %*s  ", "Rank", r->maxval, "Self");
	fraction(r, "Self", "Children", r->maxval);
	fputs("  ", r->out);
	if (r->o->with_calls) {
		fraction(r, "Calls", "Total", r->maxcnt);
		fputs("  ", r->out);
	}
	fputs("Function\n", r->out);
}

static void main_line(struct igr *r, const struct entry *e, const uint32_t *callees, size_t nc)
{
	struct sp_buf a = SP_BUF_INIT, b = SP_BUF_INIT;
	char rank[32];
	int64_t kids = e->cum[0] - e->self[0];
	size_t i;

	if (r->o->is_max) {
		kids = 0;
		for (i = 0; i < nc; i++)
			if (kids < r->g[callees[i]].v[0])
				kids = r->g[callees[i]].v[0];
	}
	snprintf(rank, sizeof(rank), "[%u]", e->rank);
	fprintf(r->out, "%-8s%7.1f  ", rank, pct(e->cum[0], r->totals));
	fprintf(r->out, "%*s  ", r->maxval, val(r, &a, e->cum[0]));
	val(r, &a, e->self[0]);
	val(r, &b, kids);
	fraction(r, a.buf, b.buf, r->maxval);
	fputs("  ", r->out);
	if (r->o->with_calls)
		fprintf(r->out, "%*s  %*s   ", r->maxcnt, num(&a, e->cum[1]), r->maxcnt, "");
	fprintf(r->out, "%s\n", e->label);
	sp_buf_release(&a);
	sp_buf_release(&b);
}

static void print_tree(struct igr *r, const uint32_t *order, size_t n)
{
	int divlen = 34 + 3 * r->maxval + (r->o->with_calls ? 2 * r->maxcnt + 5 : 0);
	uint32_t *callers = NULL, *callees = NULL;
	size_t i, k, a1 = 0, a2 = 0;

	fputs("\n", r->out);
	repeat(r->out, "-", 70);
	fputs("\nCall tree profile (cumulative)\n", r->out);
	group_edges(r, 0, &r->by_from, &r->from_first);
	group_edges(r, 1, &r->by_to, &r->to_first);
	for (i = 0; i < n; i++) {
		const struct entry *e = &r->e[order[i]];
		size_t ncr = side_of(r, order[i], 0, &callers, &a1);
		size_t nce = side_of(r, order[i], 1, &callees, &a2);

		fputs("\n", r->out);
		repeat(r->out, "- ", (size_t)(1 + divlen) / 2);
		fputs("\n", r->out);
		if (e->rank % 10 == 1)
			tree_header(r);
		for (k = 0; k < ncr; k++)
			other_line(r, &r->g[callers[k]], &r->e[r->g[callers[k]].from]);
		main_line(r, e, callees, nce);
		for (k = 0; k < nce; k++)
			other_line(r, &r->g[callees[k]], &r->e[r->g[callees[k]].to]);
	}
	free(callers);
	free(callees);
}

/* The widths: 8, or the longest of the totals as printed. */
static void widths(struct igr *r)
{
	struct sp_buf b = SP_BUF_INIT;
	int w;

	r->maxcnt = 8;
	w = (int)strlen(val(r, &b, r->totals));
	if (w > r->maxcnt)
		r->maxcnt = w;
	w = (int)strlen(val(r, &b, r->totfreq));
	if (w > r->maxcnt)
		r->maxcnt = w;
	r->maxval = r->maxcnt + (r->o->seconds_per_tick > 0 ? 1 : 0);
	sp_buf_release(&b);
}

static void igr_release(struct igr *r)
{
	free(r->on_path);
	free(r->by_from);
	free(r->by_to);
	free(r->from_first);
	free(r->to_first);
	free(r->names);
	free(r->name_of);
	free(r->cnt);
	free(r->freq);
	free(r->ccnt);
	free(r->cfreq);
	free(r->e);
	free(r->g);
	sp_pairmap_release(&r->e_index);
	sp_pairmap_release(&r->g_index);
	sp_strtab_release(&r->labels);
}

/* Entries with a cumulative value, in rank order (ranks set). */
static size_t ranked(struct igr *r, uint32_t **order)
{
	size_t i, n = 0;
	uint32_t *all = sp_xmalloc((r->ne + 1) * sizeof(*all));

	for (i = 0; i < r->ne; i++)
		all[i] = (uint32_t)i;
	sp_sort(all, r->ne, sizeof(*all), cmp_rank, r);
	for (i = 0; i < r->ne; i++) {
		r->e[all[i]].rank = (uint32_t)i + 1;
		label(r, &r->e[all[i]]);
	}
	for (i = 0; i < r->ne; i++)
		if (r->e[all[i]].cum[0])
			all[n++] = all[i];
	*order = all;
	return n;
}

void sp_report_igprof(FILE *out, const struct sp_profile *t, const struct sp_igprof_report_opts *o)
{
	struct igr r;
	uint32_t *order, *by_self;
	size_t n;

	memset(&r, 0, sizeof(r));
	r.t = t;
	r.o = o;
	r.out = out;
	sp_strtab_init(&r.labels);
	node_values(&r);
	name_ids(&r);
	build_entries(&r);
	if (r.ne) {
		r.totals = r.e[0].cum[0];
		r.totfreq = r.e[0].cum[1];
	}
	widths(&r);
	n = ranked(&r, &order);
	by_self = sp_xmalloc((n + 1) * sizeof(*by_self));
	memcpy(by_self, order, n * sizeof(*by_self));
	sp_sort(by_self, n, sizeof(*by_self), cmp_self, &r);
	fprintf(out, "Counter: %s\n", o->counter);
	print_flat(&r, order, n, 0);
	print_flat(&r, by_self, n, 1);
	print_tree(&r, order, n);
	free(order);
	free(by_self);
	igr_release(&r);
}
