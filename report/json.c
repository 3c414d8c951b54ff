/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * --format=json (docs/formats.md): one document with the profile's
 * functions and arcs, numbers in the metric's unit (seconds for gmon time):
 *
 *   {"format", "executable", "files", "metric": {"name", "unit"}, "total",
 *    "functions": [{"id", "name", "mangled", "object", "file", "line", "self",
 *                   "children", "total", "calls", "recursive_calls", "cycle"}],
 *    "arcs": [{"caller", "callee", "count", "self", "children"}]}
 *
 * "self" is the function's own time (the flat profile's self seconds),
 * "children" the time propagated from its callees (the call graph's
 * children column), "total" their sum; "calls" excludes self-recursive
 * calls, which are "recursive_calls"; "cycle" is the cycle number or null.
 * Functions with no calls and no time are left out unless -z is given.
 *
 * With -c, every arc also says whether a call instruction for it was found
 * in the code ("static") and, with --precise, whether a jump to the
 * callee's entry was ("tail"); with --precise every function has
 * "indirect_calls", the calls through registers or memory in its code.
 * With -c every function also says whether it is a pseudo node
 * ("pseudo"): a stand-in callee that is no function of the image, such as
 * "<indirect child>" on MIPS (every `jalr $ra` goes to it). Pseudo nodes
 * come after the functions, always (-z or not), with "mangled", "object",
 * "file", "line" and "cycle" null and nothing but zeros.
 * Stack profiles (sample_seconds set) have no call counts: "calls",
 * "recursive_calls" and the arcs' "count" are null, and fields are added:
 * "samples" and "period" (seconds per sample) at the top, "self_samples"
 * and "total_samples" per function (the total counts each sample once,
 * however often the function recurs), "self_samples" and
 * "children_samples" per arc; "object" names each function's object.
 * With --precise, "unattributed" at the top is the time of the samples
 * that fell on no symbol (the text's <unattributed> row), so that the
 * functions' "self" values and it add up to "total".
 * These fields are only added, never renamed.
 */
#include "symprof/report.h"

#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "json.h"
#include "symprof/alloc.h"
#include "symprof/cg.h"
#include "symprof/sort.h"
#include "symprof/symbolize.h"

int sp_json_fn(const struct sp_cg *cg, const struct sp_report_meta *m, int ignore_zeros, size_t i,
	       struct sp_json_fn *out)
{
	const struct sp_cg_node *n = &cg->nodes[i];
	const struct sp_fn_cost *c = m ? m->fn_costs : NULL;
	double hz = cg->hz > 0 ? (double)cg->hz : 1;
	uint32_t a;

	memset(out, 0, sizeof(*out));
	if (c) {
		if (i >= m->nfn_costs || !c[i].listed)
			return 0;
		if (cg->narcs && i < cg->nsyms &&
		    (a = sp_cg_arc_find(cg, (uint32_t)i, (uint32_t)i)) != SP_CG_NONE)
			out->recursive_calls = cg->arcs[a].count;
		out->self = c[i].self;
		out->children = c[i].children;
		out->calls = c[i].calls;
		out->outside_calls =
			c[i].calls > out->recursive_calls ? c[i].calls - out->recursive_calls : 0;
		return 1;
	}
	if (n->folded || (ignore_zeros && n->ncalls == 0 && n->self_calls == 0 && n->time == 0 &&
			  n->prop_child == 0))
		return 0;
	out->self = n->time / hz;
	out->children = n->prop_child / hz;
	out->calls = out->outside_calls = n->ncalls;
	out->recursive_calls = n->self_calls;
	return 1;
}

static int listed(const struct sp_report *r, unsigned node)
{
	struct sp_json_fn fn;

	return sp_json_fn(r->cg, NULL, r->o->ignore_zeros, node, &fn);
}

static void json_function(struct sp_report *r, const struct sp_report_meta *m, unsigned node,
			  long id)
{
	const struct sp_cg *cg = r->cg;
	const struct sp_cg_node *n = &cg->nodes[node];
	const struct sp_symbol *s = n->sym;
	char *dm =
		r->o->demangle && !s->no_linkage ? sp_demangle(s->name, r->o->leading_char) : NULL;
	double hz = (double)cg->hz, self = n->time / hz, children = n->prop_child / hz;

	fprintf(r->out, "    {\"id\": %ld, \"name\": ", id);
	sp_esc_json_str(r->out, dm ? dm : s->name);
	fputs(", \"mangled\": ", r->out);
	sp_esc_json_str(r->out, s->no_linkage ? NULL : s->name);
	fputs(", \"object\": ", r->out);
	sp_esc_json_str(r->out, m->sym_objects ? m->sym_objects[node] : m->executable);
	fputs(", \"file\": ", r->out);
	if (!s->file && m->sym_files && m->sym_files[node])
		sp_esc_json_str(r->out, m->sym_files[node]);
	else
		sp_esc_json_str(r->out, s->file ? s->file->name : NULL);
	if (s->file)
		fprintf(r->out, ", \"line\": %d", s->line);
	else
		fputs(", \"line\": null", r->out);
	fputs(", \"self\": ", r->out);
	sp_esc_json_num(r->out, self);
	fputs(", \"children\": ", r->out);
	sp_esc_json_num(r->out, children);
	fputs(", \"total\": ", r->out);
	sp_esc_json_num(r->out, self + children);
	if (cg->counts_known)
		fprintf(r->out, ", \"calls\": %llu, \"recursive_calls\": %llu, \"cycle\": ",
			(unsigned long long)n->ncalls, (unsigned long long)n->self_calls);
	else
		fputs(", \"calls\": null, \"recursive_calls\": null, \"cycle\": ", r->out);
	if (n->cycle)
		fprintf(r->out, "%d", n->cycle);
	else
		fputs("null", r->out);
	if ((cg->static_flags & SP_CG_STATIC_ON) && (cg->static_flags & SP_CG_STATIC_TAIL))
		fprintf(r->out, ", \"indirect_calls\": %u", n->indirect_calls);
	if (cg->static_flags & SP_CG_STATIC_ON)
		fputs(", \"pseudo\": false", r->out);
	if (m->sample_seconds > 0)
		fprintf(r->out, ", \"self_samples\": %.0f, \"total_samples\": %.0f", n->time,
			n->time + n->prop_child);
	fputc('}', r->out);
	free(dm);
}

/* A pseudo node: a name and zeros (see the top of the file). */
static void json_pseudo(struct sp_report *r, unsigned node, long id)
{
	const struct sp_cg *cg = r->cg;

	fprintf(r->out, "    {\"id\": %ld, \"name\": ", id);
	sp_esc_json_str(r->out, cg->nodes[node].sym->name);
	fputs(", \"mangled\": null, \"object\": null, \"file\": null, \"line\": null, "
	      "\"self\": 0, \"children\": 0, \"total\": 0, \"calls\": 0, "
	      "\"recursive_calls\": 0, \"cycle\": null",
	      r->out);
	if (cg->static_flags & SP_CG_STATIC_TAIL)
		fputs(", \"indirect_calls\": 0", r->out);
	fputs(", \"pseudo\": true}", r->out);
}

struct line_entry {
	const char *file;
	int line;
	double self;
	uint64_t count;
};

static int cmp_line_entry(const void *a, const void *b, void *ctx)
{
	const struct line_entry *l = a, *r = b;
	int c = strcmp(l->file, r->file);

	(void)ctx;
	return c ? c : (l->line > r->line) - (l->line < r->line);
}

/*
 * "lines": per source line, the histogram time of its line symbols and the
 * executions counted on it (entry calls and basic blocks), as -A counts
 * them; sorted by file and line.
 */
static void json_lines(struct sp_report *r, const struct sp_cg *lc)
{
	struct line_entry *v = sp_xcalloc(lc->nsyms + 1, sizeof(*v));
	size_t i, n = 0, k;
	int printed = 0;
	uint32_t b;

	for (i = 0; i < lc->nsyms; i++) {
		const struct sp_cg_node *nd = &lc->nodes[i];

		if (!nd->sym->file || nd->folded)
			continue;
		v[n].file = nd->sym->file->name;
		v[n].line = nd->sym->line;
		v[n].self = nd->time;
		v[n].count = nd->ncalls;
		for (b = 0; b < nd->nbbs; b++)
			v[n].count += lc->bbs[nd->bb_first + b].count;
		n++;
	}
	sp_sort(v, n, sizeof(*v), cmp_line_entry, NULL);
	fputs(",\n  \"lines\": [", r->out);
	for (i = 0, k = 0; i < n; i = k) {
		double self = 0;
		uint64_t count = 0;

		for (k = i; k < n && !cmp_line_entry(&v[i], &v[k], NULL); k++) {
			self += v[k].self;
			count += v[k].count;
		}
		if (self == 0 && count == 0 && r->o->ignore_zeros)
			continue;
		fputs(printed++ ? ",\n    {\"file\": " : "\n    {\"file\": ", r->out);
		sp_esc_json_str(r->out, v[i].file);
		fprintf(r->out, ", \"line\": %d, \"self\": ", v[i].line);
		sp_esc_json_num(r->out, self / (double)lc->hz);
		fprintf(r->out, ", \"count\": %llu}", (unsigned long long)count);
	}
	fputs(printed ? "\n  ]" : "]", r->out);
	free(v);
}

/* "format" to "metric", shared with the aprof document */
void sp_json_head(struct sp_report *r, const struct sp_report_meta *m)
{
	size_t i;

	fputs("{\n  \"format\": ", r->out);
	sp_esc_json_str(r->out, m->format);
	fputs(",\n  \"executable\": ", r->out);
	sp_esc_json_str(r->out, m->executable);
	fputs(",\n  \"files\": [", r->out);
	for (i = 0; i < m->nfiles; i++) {
		if (i)
			fputs(", ", r->out);
		sp_esc_json_str(r->out, m->files[i]);
	}
	fputs("],\n  \"metric\": {\"name\": ", r->out);
	sp_esc_json_str(r->out, m->metric);
	fputs(", \"unit\": ", r->out);
	sp_esc_json_str(r->out, m->unit);
	fputc('}', r->out);
}

void sp_report_json(struct sp_report *r, const struct sp_report_meta *m)
{
	const struct sp_cg *cg = r->cg;
	size_t nall = cg->nnodes + cg->npseudo, i;
	long *ids = sp_xmalloc((nall + 1) * sizeof(*ids)), next = 0;
	int first = 1;

	sp_json_head(r, m);
	fputs(",\n  \"total\": ", r->out);
	sp_esc_json_num(r->out, cg->total_time / (double)cg->hz);
	if (cg->precise) {
		fputs(",\n  \"unattributed\": ", r->out);
		sp_esc_json_num(r->out, cg->unattributed / (double)cg->hz);
	}
	if (m->sample_seconds > 0) {
		fprintf(r->out, ",\n  \"samples\": %.0f,\n  \"period\": ", cg->total_time);
		sp_esc_json_num(r->out, m->sample_seconds);
	}
	fputs(",\n  \"functions\": [", r->out);
	for (i = 0; i < cg->nsyms; i++) {
		ids[i] = -1;
		if (!listed(r, (unsigned)i))
			continue;
		ids[i] = next++;
		fputs(first ? "\n" : ",\n", r->out);
		first = 0;
		json_function(r, m, (unsigned)i, ids[i]);
	}
	for (i = cg->nsyms; i < cg->nnodes; i++)
		ids[i] = -1; /* cycles are no entries */
	for (i = cg->nnodes; i < nall; i++) {
		ids[i] = next++;
		fputs(first ? "\n" : ",\n", r->out);
		first = 0;
		json_pseudo(r, (unsigned)i, ids[i]);
	}
	fputs(first ? "],\n  \"arcs\": [" : "\n  ],\n  \"arcs\": [", r->out);
	first = 1;
	for (i = 0; i < cg->narcs; i++) {
		const struct sp_cg_arc *a = &cg->arcs[i];

		if (ids[a->parent] < 0 || ids[a->child] < 0)
			continue;
		fputs(first ? "\n" : ",\n", r->out);
		first = 0;
		fprintf(r->out,
			"    {\"caller\": %ld, \"callee\": %ld, \"count\": ", ids[a->parent],
			ids[a->child]);
		if (cg->counts_known)
			fprintf(r->out, "%llu", (unsigned long long)a->count);
		else
			fputs("null", r->out);
		fputs(", \"self\": ", r->out);
		sp_esc_json_num(r->out, a->time / (double)cg->hz);
		fputs(", \"children\": ", r->out);
		sp_esc_json_num(r->out, a->child_time / (double)cg->hz);
		if (m->sample_seconds > 0)
			fprintf(r->out, ", \"self_samples\": %.0f, \"children_samples\": %.0f",
				a->time, a->child_time);
		if (cg->static_flags & SP_CG_STATIC_ON)
			fprintf(r->out, ", \"static\": %s",
				(a->flags & SP_CG_ARC_STATIC) ? "true" : "false");
		if (cg->static_flags & SP_CG_STATIC_TAIL)
			fprintf(r->out, ", \"tail\": %s",
				(a->flags & SP_CG_ARC_TAIL) ? "true" : "false");
		fputc('}', r->out);
	}
	fputs(first ? "]" : "\n  ]", r->out);
	if (m->line_cg)
		json_lines(r, m->line_cg);
	fputs("\n}\n", r->out);
	free(ids);
}
