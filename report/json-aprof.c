/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * --format=json for aprof profiles (docs/formats.md): json.c's document
 * with the cost-vs-input data of every routine added to its function:
 *
 *   {"format": "aprof", "executable", "files", "metric": {"name", "unit"},
 *    "input_metric", "total",
 *    "functions": [{"id", "name", "mangled", "object", "file", "line",
 *                   "self", "children", "total", "calls", "recursive_calls",
 *                   "cycle", "input_sizes",
 *                   "points": [{"size", "calls", "min", "avg", "max"}],
 *                   "fit": {"a", "b", "c", "r2", "c_lo", "c_hi", "n",
 *                           "x_min", "x_max"}, "no_fit",
 *                   "fit_avg": {...}, "no_fit_avg",
 *                   "contexts": [{"path", "calls", "self", "total",
 *                                 "input_sizes", "points", "fit", "no_fit",
 *                                 "fit_avg", "no_fit_avg"}]}],
 *    "arcs": [{"caller", "callee", "count", "self", "children"}]}
 *
 * Costs are integers in the cost metric's unit. "self" is the routine's
 * own cost, "total" its cumulative cost with recursion counted once (the
 * sum of aprof's `real`), "children" their difference, "calls" every
 * activation (recursive ones included; "recursive_calls" are those made by
 * the routine itself, known from a CCT). "points" has one entry per input
 * size with the cumulative cost per activation; "fit" is fitted to the
 * worst case (max), "fit_avg" to the average, with the 95% interval
 * [c_lo, c_hi] of c, the points fitted and their range of sizes; null
 * where the data cannot support a fit, "no_fit" ("no_fit_avg") then says
 * why (cg/fit.c's sp_fit_reason(); null beside a fit). "contexts" (with a CCT only) lists the
 * routine's calling contexts, "path" naming the routines from the outermost one. "arcs" come from
 * the CCT (none without one). Functions are in the routines' order, or in --rank=growth's when
 * m->rank asks for it.
 */
#include <stdlib.h>

#include "escape.h"
#include "json.h"
#include "symprof/alloc.h"
#include "symprof/cg.h"
#include "symprof/inputcost.h"
#include "symprof/profile.h"
#include "symprof/symbolize.h"

static void json_u64(FILE *out, uint64_t v)
{
	fprintf(out, "%llu", (unsigned long long)v);
}

static void json_field(FILE *out, const char *name, double v)
{
	fprintf(out, ", \"%s\": ", name);
	sp_esc_json_num(out, v);
}

/* `"NAME": {fit}, "no_NAME": null` or `"NAME": null, "no_NAME": "why"` */
static void json_fit(FILE *out, const char *name, const struct sp_fit *f)
{
	char why[128];

	fprintf(out, "\"%s\": ", name);
	if (!f->ok) {
		fprintf(out, "null, \"no_%s\": ", name);
		sp_esc_json_str(out, sp_fit_reason(f, why, sizeof(why)));
		return;
	}
	fputs("{\"a\": ", out);
	sp_esc_json_num(out, f->a);
	json_field(out, "b", f->b);
	json_field(out, "c", f->c);
	json_field(out, "r2", f->r2);
	json_field(out, "c_lo", f->c_lo);
	json_field(out, "c_hi", f->c_hi);
	fprintf(out, ", \"n\": %u, \"x_min\": %.0f, \"x_max\": %.0f}, \"no_%s\": null", f->n,
		f->x_min, f->x_max, name);
}

/* "input_sizes", "points", "fit", "fit_avg" of an entry */
static void json_curve(FILE *out, const struct sp_ic_entry *e, const char *indent)
{
	size_t i;

	fprintf(out, ",\n%s\"input_sizes\": %zu, \"points\": [", indent, e->npoints);
	for (i = 0; i < e->npoints; i++) {
		const struct sp_ic_point *pt = &e->points[i];

		fprintf(out, "%s\n%s  {\"size\": %llu, \"calls\": %llu, \"min\": %llu, \"avg\": ",
			i ? "," : "", indent, (unsigned long long)pt->size,
			(unsigned long long)pt->calls, (unsigned long long)pt->min);
		sp_esc_json_num(out, pt->avg);
		fprintf(out, ", \"max\": %llu}", (unsigned long long)pt->max);
	}
	if (e->npoints)
		fprintf(out, "\n%s", indent);
	fprintf(out, "],\n%s", indent);
	json_fit(out, "fit", &e->worst);
	fputs(", ", out);
	json_fit(out, "fit_avg", &e->avg);
}

static void json_path(FILE *out, const struct sp_profile *p, uint32_t node)
{
	uint32_t *path = NULL, n;
	size_t depth = 0, alloc = 0;

	for (n = node; n != SP_NONE && n != 0; n = p->nodes[n].parent) {
		SP_ALLOC_GROW(path, depth + 1, alloc);
		path[depth++] = n;
	}
	fputc('[', out);
	while (depth--) {
		sp_esc_json_str(out, p->funcs[p->nodes[path[depth]].frame].name);
		if (depth)
			fputs(", ", out);
	}
	fputc(']', out);
	free(path);
}

static void json_contexts(FILE *out, const struct sp_inputcost *ic, uint32_t func)
{
	size_t i;
	int first = 1;

	fputs(",\n     \"contexts\": [", out);
	for (i = 0; i < ic->ncontexts; i++) {
		const struct sp_ic_entry *c = &ic->contexts[i];

		if (c->func != func)
			continue;
		fputs(first ? "\n       {\"path\": " : ",\n       {\"path\": ", out);
		first = 0;
		json_path(out, ic->p, c->node);
		fprintf(out, ", \"calls\": %llu, \"self\": %llu, \"total\": %llu",
			(unsigned long long)c->calls, (unsigned long long)c->self,
			(unsigned long long)c->total);
		json_curve(out, c, "        ");
		fputc('}', out);
	}
	fputs(first ? "]" : "\n     ]", out);
}

static void json_routine(struct sp_report *r, const struct sp_report_meta *m, uint32_t f, long id)
{
	const struct sp_inputcost *ic = m->inputcost;
	const struct sp_profile *p = ic->p;
	const struct sp_func *fn = &p->funcs[f];
	const struct sp_ic_entry *e = &ic->routines[f];
	struct sp_json_fn jf;

	sp_json_fn(r->cg, m, 1, f, &jf);
	fprintf(r->out, "    {\"id\": %ld, \"name\": ", id);
	sp_esc_json_str(r->out, fn->name);
	fputs(", \"mangled\": ", r->out);
	/* the linkage name: the report's (u line), else the name when it can be one */
	sp_esc_json_str(r->out, fn->mangled		       ? fn->mangled
				: sp_name_is_linkage(fn->name) ? fn->name
							       : NULL);
	fputs(", \"object\": ", r->out);
	sp_esc_json_str(r->out, fn->object < p->nobjects ? p->objects[fn->object].path : NULL);
	fputs(", \"file\": null, \"line\": null,\n     \"self\": ", r->out);
	json_u64(r->out, e->self);
	fputs(", \"children\": ", r->out);
	json_u64(r->out, e->total > e->self ? e->total - e->self : 0);
	fputs(", \"total\": ", r->out);
	json_u64(r->out, e->total);
	fprintf(r->out, ", \"calls\": %llu, \"recursive_calls\": %llu, \"cycle\": null",
		(unsigned long long)jf.calls, (unsigned long long)jf.recursive_calls);
	json_curve(r->out, e, "     ");
	if (ic->context_of_node)
		json_contexts(r->out, ic, f);
	fputc('}', r->out);
}

static void json_arcs(struct sp_report *r, const long *ids, size_t nids)
{
	const struct sp_cg *cg = r->cg;
	size_t i;
	int first = 1;

	fputs("  \"arcs\": [", r->out);
	for (i = 0; cg && i < cg->narcs; i++) {
		const struct sp_cg_arc *a = &cg->arcs[i];

		if (a->parent >= nids || a->child >= nids || ids[a->parent] < 0 ||
		    ids[a->child] < 0)
			continue;
		fputs(first ? "\n" : ",\n", r->out);
		first = 0;
		fprintf(r->out,
			"    {\"caller\": %ld, \"callee\": %ld, \"count\": %llu, \"self\": ",
			ids[a->parent], ids[a->child], (unsigned long long)a->count);
		sp_esc_json_num(r->out, a->time / (double)cg->hz);
		fputs(", \"children\": ", r->out);
		sp_esc_json_num(r->out, a->child_time / (double)cg->hz);
		fputc('}', r->out);
	}
	fputs(first ? "]\n}\n" : "\n  ]\n}\n", r->out);
}

void sp_report_json_aprof(struct sp_report *r, const struct sp_report_meta *m)
{
	struct sp_inputcost *ic = m->inputcost;
	long *ids = sp_xmalloc((ic->nroutines + 1) * sizeof(*ids)), next = 0;
	uint32_t *order = sp_xmalloc((ic->nroutines + 1) * sizeof(*order));
	size_t i, n;

	if (ic->context_of_node)
		sp_inputcost_fit_contexts(ic);
	sp_json_head(r, m);
	fputs(",\n  \"input_metric\": ", r->out);
	sp_esc_json_str(r->out, ic->p->aprof.input_metric);
	fputs(",\n  \"total\": ", r->out);
	json_u64(r->out, ic->run_total);
	fputs(",\n  \"functions\": [", r->out);
	for (i = 0; i < ic->nroutines; i++)
		ids[i] = -1;
	if (m->rank == SP_IC_RANK_GROWTH) {
		n = sp_inputcost_rank(ic, SP_IC_RANK_GROWTH, order);
	} else {
		for (i = n = 0; i < ic->nroutines; i++)
			if (ic->routines[i].npoints)
				order[n++] = (uint32_t)i;
	}
	for (i = 0; i < n; i++) {
		fputs(next ? ",\n" : "\n", r->out);
		ids[order[i]] = next++;
		json_routine(r, m, order[i], ids[order[i]]);
	}
	fputs(next ? "\n  ],\n" : "],\n", r->out);
	json_arcs(r, ids, ic->nroutines);
	free(order);
	free(ids);
}
