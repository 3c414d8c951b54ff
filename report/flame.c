/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The flame-graph tree (include/symprof/flame.h) and the two ways to fill
 * it from a profile.
 *
 * From a calling-context tree the stacks are exact: every CCT node maps to
 * one tree node (the path of its frames' functions, inline chains
 * expanded), and the node's values are added there.
 *
 * From a gmon.out call graph there are no stacks, only arcs with call
 * counts, and the tree is gprof's estimate drawn as a flame graph. Let a
 * unit be a function, or a whole cycle; C(u) the calls into u from other
 * units; T(u) its total. Then
 *
 *   T(u) = self(u) + sum over arcs u -> v of count / C(v) * T(v)
 *
 * computed callees first, and a unit that nobody calls (C = 0: main, a
 * signal handler) is a root. Walking down from the roots, a context worth
 * x of u's total T(u) gives each callee v the share x / T(u) * count /
 * C(v) * T(v) and keeps x / T(u) * self(u) for itself. The shares always
 * add up, so the root's value is exactly the sum of the self times. A
 * cycle is one frame "<cycle N>" with its members above it, each with its
 * own self time and its calls out of the cycle; calls inside the cycle
 * carry no time, as in gprof. gprof credits a histogram bin to the
 * functions it overlaps in proportion to the overlap of rounded
 * addresses, which can add up to a little more than the bin; the credits
 * are scaled so that the root holds exactly the profile's samples.
 *
 * An aprof profile with a CCT is a calling-context tree like any other;
 * without one, the stacks are unknown and the tree is one level of
 * routines with their self costs. Either way the root holds the run's
 * total (the `k` lines): what aprof counted outside every routine is
 * "[unknown]", as gmon.out's samples outside every function.
 */
#include "symprof/flame.h"

#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"
#include "symprof/cg.h"
#include "symprof/inputcost.h"
#include "symprof/profile.h"
#include "symprof/report.h"
#include "symprof/symbolize.h"

/* ---- the tree ---- */

static void node_key(const void *ctx, uint32_t value, uint64_t *k1, uint64_t *k2)
{
	const struct sp_flame *f = ctx;

	*k1 = f->nodes[value].parent;
	*k2 = (uint64_t)(uintptr_t)f->nodes[value].name;
}

static uint32_t add_node(struct sp_flame *f, uint32_t parent, const char *name)
{
	struct sp_flame_node *n;

	SP_ALLOC_GROW(f->nodes, f->len + 1, f->alloc);
	n = &f->nodes[f->len];
	memset(n, 0, sizeof(*n));
	n->name = name;
	n->parent = parent;
	n->first_child = n->next_sibling = SP_FLAME_NONE;
	if (parent != SP_FLAME_NONE) {
		n->depth = f->nodes[parent].depth + 1;
		n->next_sibling = f->nodes[parent].first_child;
		f->nodes[parent].first_child = (uint32_t)f->len;
		if (n->depth > f->max_depth)
			f->max_depth = n->depth;
	}
	return (uint32_t)f->len++;
}

struct sp_flame *sp_flame_new(const char *title, const char *unit)
{
	struct sp_flame *f = sp_xcalloc(1, sizeof(*f));

	sp_strtab_init(&f->names);
	sp_pairmap_init(&f->index, node_key, f);
	f->title = sp_strtab_intern(&f->names, title ? title : "");
	f->unit = sp_strtab_intern(&f->names, unit ? unit : "samples");
	f->unit_scale = 1;
	add_node(f, SP_FLAME_NONE, sp_strtab_intern(&f->names, "all"));
	return f;
}

void sp_flame_free(struct sp_flame *f)
{
	if (!f)
		return;
	sp_pairmap_release(&f->index);
	sp_strtab_release(&f->names);
	free(f->nodes);
	free(f);
}

uint32_t sp_flame_child(struct sp_flame *f, uint32_t parent, const char *name)
{
	const char *in = sp_strtab_intern(&f->names, name ? name : "??");
	uint32_t n = sp_pairmap_get(&f->index, parent, (uint64_t)(uintptr_t)in);

	if (n != UINT32_MAX)
		return n;
	n = add_node(f, parent, in);
	sp_pairmap_put(&f->index, parent, (uint64_t)(uintptr_t)in, n);
	return n;
}

void sp_flame_add_self(struct sp_flame *f, uint32_t node, double value)
{
	f->nodes[node].self += value;
	f->finished = 0;
}

void sp_flame_add_stack(struct sp_flame *f, const char *const *names, size_t depth, double value)
{
	uint32_t n = 0;
	size_t i;

	for (i = 0; i < depth; i++)
		n = sp_flame_child(f, n, names[i]);
	sp_flame_add_self(f, n, value);
}

void sp_flame_finish(struct sp_flame *f)
{
	size_t i;

	if (f->finished)
		return;
	for (i = 0; i < f->len; i++)
		f->nodes[i].value = f->nodes[i].self;
	/* children come after their parents */
	for (i = f->len; i > 1; i--)
		f->nodes[f->nodes[i - 1].parent].value += f->nodes[i - 1].value;
	f->finished = 1;
}

/* ---- exact stacks: a calling-context tree ---- */

static double pick(const struct sp_cct_value *v, enum sp_value_field field)
{
	if (field == SP_VALUE_COUNT)
		return (double)v->count;
	if (field == SP_VALUE_PEAK)
		return (double)v->peak;
	return (double)v->value;
}

/* The tree node of CCT node n, its parent's being known. */
static uint32_t cct_node(struct sp_flame *f, const struct sp_profile *p,
			 const struct sp_cg_stack_opts *o, const char *const *names,
			 uint32_t parent, uint32_t n)
{
	uint32_t frame = p->nodes[n].frame, k;

	if (frame == SP_NONE || frame >= p->nframes)
		return parent;
	for (k = o->frame_first[frame]; k < o->frame_first[frame + 1]; k++) {
		uint32_t fn = o->frame_funcs[k];

		parent = sp_flame_child(f, parent, names ? names[fn] : o->funcs->syms[fn].name);
	}
	return parent;
}

struct sp_flame *sp_flame_from_cct(const struct sp_profile *p, const struct sp_cg_stack_opts *o,
				   const char *const *names, const char *title)
{
	const struct sp_counter *c = o->counter < p->ncounters ? &p->counters[o->counter] : NULL;
	struct sp_flame *f;
	uint32_t *map;
	size_t i;

	f = sp_flame_new(title, o->field == SP_VALUE_COUNT ? "events" : c ? c->name : "samples");
	if (c && o->field != SP_VALUE_COUNT && c->unit) {
		f->dimen = sp_strtab_intern(&f->names, c->unit);
		f->unit_scale = c->unit_per_count;
	}
	map = sp_xmalloc((p->nnodes + 1) * sizeof(*map));
	/* nodes are numbered parents first */
	for (i = 0; i < p->nnodes; i++) {
		uint32_t par = p->nodes[i].parent;

		map[i] = par == SP_NONE || par >= i
				 ? 0
				 : cct_node(f, p, o, names, map[par], (uint32_t)i);
	}
	for (i = 0; i < p->nvalues; i++) {
		const struct sp_cct_value *v = &p->values[i];

		if (v->counter == o->counter && v->node < p->nnodes)
			sp_flame_add_self(f, map[v->node], pick(v, o->field));
	}
	free(map);
	sp_flame_finish(f);
	return f;
}

/* ---- aprof: the calling-context tree, or routines alone ---- */

/* The CCT of an aprof profile: frame i is routine i. */
static struct sp_flame *aprof_cct(const struct sp_profile *p, const char *title)
{
	uint32_t *first = sp_xmalloc((p->nframes + 1) * sizeof(*first));
	uint32_t *funcs = sp_xmalloc((p->nframes + 1) * sizeof(*funcs));
	const char **names = sp_xmalloc((p->nframes + 1) * sizeof(*names));
	struct sp_cg_stack_opts so;
	struct sp_flame *f;
	size_t i;

	for (i = 0; i < p->nframes; i++) {
		first[i] = funcs[i] = (uint32_t)i;
		names[i] = i < p->nfuncs ? p->funcs[i].name : p->frames[i].name;
	}
	first[p->nframes] = (uint32_t)p->nframes;
	memset(&so, 0, sizeof(so));
	so.counter = 0;
	so.field = SP_VALUE_VALUE;
	so.frame_first = first;
	so.frame_funcs = funcs;
	f = sp_flame_from_cct(p, &so, names, title);
	free(first);
	free(funcs);
	free(names);
	return f;
}

struct sp_flame *sp_flame_from_inputcost(const struct sp_inputcost *ic, const char *title)
{
	const struct sp_profile *p = ic->p;
	const struct sp_counter *c = p->ncounters ? &p->counters[0] : NULL;
	struct sp_flame *f;
	size_t i;

	if (p->aprof.has_cct) {
		f = aprof_cct(p, title);
		/* values are counts of the unit ("1582252 bb") */
		f->unit = sp_strtab_intern(&f->names, c && c->unit ? c->unit : "cost");
		f->dimen = NULL;
	} else {
		f = sp_flame_new(title, c && c->unit ? c->unit : "cost");
		f->note = sp_strtab_intern(&f->names,
					   "no calling-context tree: each routine's self cost, "
					   "without its callers");
		for (i = 0; i < ic->nroutines; i++)
			if (ic->routines[i].npoints && ic->routines[i].self)
				sp_flame_add_self(f, sp_flame_child(f, 0, p->funcs[i].name),
						  (double)ic->routines[i].self);
	}
	sp_flame_finish(f);
	if ((double)ic->run_total > f->nodes[0].value)
		sp_flame_add_self(f, sp_flame_child(f, 0, "[unknown]"),
				  (double)ic->run_total - f->nodes[0].value);
	sp_flame_finish(f);
	return f;
}

/* ---- the estimate from a call graph ---- */

struct est {
	struct sp_report *r;
	const struct sp_cg *cg;
	struct sp_flame *f;
	double *self, *total, *calls_in; /* per unit */
	double min_value;
	size_t max_nodes;
};

static uint32_t unit_of(const struct sp_cg *cg, uint32_t n)
{
	return cg->nodes[n].cycle ? cg->nodes[n].cyc_head : n;
}

/* Whether arc a carries time between two units. */
static int cross_arc(const struct sp_cg *cg, const struct sp_cg_arc *a)
{
	return a->parent < cg->nsyms && a->child < cg->nsyms && a->count &&
	       unit_of(cg, a->parent) != unit_of(cg, a->child);
}

/* The share of callee unit v's total that arc a brings to its caller. */
static double arc_share(const struct est *e, const struct sp_cg_arc *a)
{
	uint32_t v = unit_of(e->cg, a->child);

	return e->calls_in[v] > 0 ? (double)a->count / e->calls_in[v] * e->total[v] : 0;
}

/* First member of unit u (u itself for a function). */
static uint32_t first_member(const struct sp_cg *cg, uint32_t u)
{
	return u >= cg->nsyms ? cg->nodes[u].cyc_next : u;
}

static uint32_t next_member(const struct sp_cg *cg, uint32_t u, uint32_t m)
{
	return u >= cg->nsyms ? cg->nodes[m].cyc_next : SP_CG_NONE;
}

/* T(u) for one unit whose callee units are done. */
static void unit_total(struct est *e, uint32_t u)
{
	const struct sp_cg *cg = e->cg;
	uint32_t m, a;
	double t = e->self[u];

	for (m = first_member(cg, u); m != SP_CG_NONE && m < cg->nsyms; m = next_member(cg, u, m))
		for (a = cg->nodes[m].children; a != SP_CG_NONE; a = cg->arcs[a].next_child)
			if (cross_arc(cg, &cg->arcs[a]))
				t += arc_share(e, &cg->arcs[a]);
	e->total[u] = t;
}

/* Totals callees first: an iterative depth-first post-order over units. */
static void unit_totals(struct est *e)
{
	const struct sp_cg *cg = e->cg;
	unsigned char *state = sp_xcalloc(cg->nnodes + 1, 1);
	uint32_t *stack = sp_xmalloc((cg->nnodes + 1) * sizeof(*stack));
	uint32_t *next_arc = sp_xmalloc((cg->nnodes + 1) * sizeof(*next_arc));
	uint32_t *member = sp_xmalloc((cg->nnodes + 1) * sizeof(*member));
	size_t u0, sp;

	for (u0 = 0; u0 < cg->nnodes; u0++) {
		if (state[u0] || (u0 < cg->nsyms && cg->nodes[u0].cycle))
			continue;
		sp = 0;
		stack[sp] = (uint32_t)u0;
		member[sp] = first_member(cg, (uint32_t)u0);
		next_arc[sp] = member[sp] < cg->nsyms ? cg->nodes[member[sp]].children : SP_CG_NONE;
		state[u0] = 1;
		sp++;
		while (sp) {
			uint32_t u = stack[sp - 1], a = next_arc[sp - 1], v;

			if (a == SP_CG_NONE) {
				uint32_t m = next_member(cg, u, member[sp - 1]);

				if (m != SP_CG_NONE && m < cg->nsyms) {
					member[sp - 1] = m;
					next_arc[sp - 1] = cg->nodes[m].children;
					continue;
				}
				unit_total(e, u);
				state[u] = 2;
				sp--;
				continue;
			}
			next_arc[sp - 1] = cg->arcs[a].next_child;
			if (!cross_arc(cg, &cg->arcs[a]))
				continue;
			v = unit_of(cg, cg->arcs[a].child);
			if (state[v])
				continue; /* done, or a loop gprof's cycles missed */
			state[v] = 1;
			stack[sp] = v;
			member[sp] = first_member(cg, v);
			next_arc[sp] = member[sp] < cg->nsyms ? cg->nodes[member[sp]].children
							      : SP_CG_NONE;
			sp++;
		}
	}
	free(state);
	free(stack);
	free(next_arc);
	free(member);
}

static const char *unit_name(struct est *e, uint32_t u, char *buf, size_t len)
{
	if (u < e->cg->nsyms)
		return sp_report_display_name(e->r, u, NULL);
	snprintf(buf, len, "<cycle %d>", e->cg->nodes[u].cycle);
	return buf;
}

struct work {
	uint32_t unit, parent;
	double value;
};

/* Member m of a unit, in a context that holds `fract` of the unit's total:
 * its self share, and its callees pushed as work. */
static void expand_member(struct est *e, uint32_t m, uint32_t node, double fract,
			  struct work **stack, size_t *sp, size_t *alloc)
{
	const struct sp_cg *cg = e->cg;
	char buf[48];
	uint32_t a;

	if (e->self[m] > 0)
		sp_flame_add_self(e->f, node, fract * e->self[m]);
	for (a = cg->nodes[m].children; a != SP_CG_NONE; a = cg->arcs[a].next_child) {
		uint32_t v;
		double share;

		if (!cross_arc(cg, &cg->arcs[a]))
			continue;
		share = fract * arc_share(e, &cg->arcs[a]);
		if (share <= 0)
			continue;
		v = unit_of(cg, cg->arcs[a].child);
		if (share < e->min_value || e->f->len >= e->max_nodes) {
			sp_flame_add_self(
				e->f, sp_flame_child(e->f, node, unit_name(e, v, buf, sizeof(buf))),
				share);
			continue;
		}
		SP_ALLOC_GROW(*stack, *sp + 1, *alloc);
		(*stack)[(*sp)++] = (struct work){v, node, share};
	}
}

static void expand(struct est *e, uint32_t root)
{
	const struct sp_cg *cg = e->cg;
	struct work *stack = NULL;
	size_t sp = 0, alloc = 0;
	char buf[48];

	SP_ALLOC_GROW(stack, 1, alloc);
	stack[sp++] = (struct work){root, 0, e->total[root]};
	while (sp) {
		struct work w = stack[--sp];
		uint32_t node =
			sp_flame_child(e->f, w.parent, unit_name(e, w.unit, buf, sizeof(buf)));
		double fract = w.value / e->total[w.unit];
		uint32_t m;

		if (w.unit < cg->nsyms) {
			expand_member(e, w.unit, node, fract, &stack, &sp, &alloc);
			continue;
		}
		for (m = cg->nodes[w.unit].cyc_next; m != SP_CG_NONE && m < cg->nsyms;
		     m = cg->nodes[m].cyc_next) {
			uint32_t mnode =
				sp_flame_child(e->f, node, sp_report_display_name(e->r, m, NULL));

			expand_member(e, m, mnode, fract, &stack, &sp, &alloc);
		}
	}
	free(stack);
}

static void estimate_init(struct est *e, struct sp_report *r)
{
	const struct sp_cg *cg = r->cg;
	double sum = 0, k = 1;
	size_t i;

	e->r = r;
	e->cg = cg;
	e->self = sp_xcalloc(cg->nnodes + 1, sizeof(double));
	e->total = sp_xcalloc(cg->nnodes + 1, sizeof(double));
	e->calls_in = sp_xcalloc(cg->nnodes + 1, sizeof(double));
	for (i = 0; i < cg->nsyms; i++)
		sum += cg->nodes[i].time;
	/* gprof splits a bin between the functions it overlaps with rounded
	 * addresses, so the credits can add up to a little more than the
	 * samples: scale them back to the profile's total */
	if (sum > cg->total_time && sum > 0)
		k = cg->total_time / sum;
	for (i = 0; i < cg->nsyms; i++) {
		e->self[i] = cg->nodes[i].time * k;
		if (cg->nodes[i].cycle)
			e->self[unit_of(cg, (uint32_t)i)] += cg->nodes[i].time * k;
	}
	for (i = 0; i < cg->narcs; i++)
		if (cross_arc(cg, &cg->arcs[i]))
			e->calls_in[unit_of(cg, cg->arcs[i].child)] += (double)cg->arcs[i].count;
	e->max_nodes = 200000;
}

struct sp_flame *sp_flame_from_cg(struct sp_report *r, const char *title)
{
	const struct sp_cg *cg = r->cg;
	struct est e;
	double sum = 0;
	size_t u;

	memset(&e, 0, sizeof(e));
	estimate_init(&e, r);
	e.f = sp_flame_new(title, "samples");
	e.f->estimated = !cg->stack_based;
	if (cg->hz > 0) {
		e.f->unit_scale = 1.0 / (double)cg->hz;
		e.f->dimen = sp_strtab_intern(&e.f->names, cg->dimen);
	}
	e.min_value = cg->total_time / 20000;
	unit_totals(&e);
	for (u = 0; u < cg->nnodes; u++) {
		if (u < cg->nsyms && cg->nodes[u].cycle)
			continue;
		if (e.calls_in[u] == 0 && e.total[u] > 0) {
			expand(&e, (uint32_t)u);
			sum += e.total[u];
		}
	}
	if (cg->total_time - sum > 1e-9 * (cg->total_time + 1))
		sp_flame_add_self(e.f, sp_flame_child(e.f, 0, "[unknown]"), cg->total_time - sum);
	free(e.self);
	free(e.total);
	free(e.calls_in);
	sp_flame_finish(e.f);
	return e.f;
}

/* ---- folded stacks ---- */

static void put_frame_name(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc(*s == ';' ? ':' : (*s == '\n' || *s == '\r') ? ' ' : *s, out);
}

static void put_path(const struct sp_flame *f, uint32_t n, FILE *out)
{
	uint32_t path[64], *p = path, depth = f->nodes[n].depth, i;

	if (depth > 64)
		p = sp_xmalloc(depth * sizeof(*p));
	for (i = depth; i > 0; i--, n = f->nodes[n].parent)
		p[i - 1] = n;
	for (i = 0; i < depth; i++) {
		if (i)
			fputc(';', out);
		put_frame_name(out, f->nodes[p[i]].name);
	}
	if (p != path)
		free(p);
}

void sp_flame_write_folded(struct sp_flame *f, FILE *out)
{
	size_t i;

	sp_flame_finish(f);
	for (i = 1; i < f->len; i++) {
		double v = f->nodes[i].self;
		char num[64];
		size_t len;

		if (v == (double)(int64_t)v && v > 0) {
			snprintf(num, sizeof(num), "%lld", (long long)v);
		} else {
			/* fixed point: the readers of folded stacks want no exponent */
			snprintf(num, sizeof(num), "%.6f", v);
			len = strlen(num);
			while (len > 1 && num[len - 1] == '0')
				num[--len] = 0;
			if (num[len - 1] == '.')
				num[--len] = 0;
		}
		if (!(v > 0) || !strcmp(num, "0"))
			continue;
		put_path(f, (uint32_t)i, out);
		fprintf(out, " %s\n", num);
	}
}
