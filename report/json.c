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
 * Stack profiles (sample_seconds set) have no call counts: "calls",
 * "recursive_calls" and the arcs' "count" are null, and fields are added:
 * "samples" and "period" (seconds per sample) at the top, "self_samples"
 * and "total_samples" per function (the total counts each sample once,
 * however often the function recurs), "self_samples" and
 * "children_samples" per arc; "object" names each function's object.
 */
#include "symprof/report.h"

#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"
#include "symprof/cg.h"
#include "symprof/symbolize.h"

static void json_str(FILE *out, const char *s)
{
	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void json_num(FILE *out, double v)
{
	if (v != v || v > 1e300 || v < -1e300)
		fputs("null", out);
	else
		fprintf(out, "%.10g", v);
}

static int listed(const struct sp_report *r, const struct sp_cg_node *n)
{
	return !r->o->ignore_zeros || n->ncalls != 0 || n->self_calls != 0 || n->time != 0 ||
	       n->prop_child != 0;
}

static void json_function(struct sp_report *r, const struct sp_report_meta *m, unsigned node,
			  long id)
{
	const struct sp_cg *cg = r->cg;
	const struct sp_cg_node *n = &cg->nodes[node];
	const struct sp_symbol *s = n->sym;
	char *dm = r->o->demangle ? sp_demangle(s->name, r->o->leading_char) : NULL;
	double hz = (double)cg->hz, self = n->time / hz, children = n->prop_child / hz;

	fprintf(r->out, "    {\"id\": %ld, \"name\": ", id);
	json_str(r->out, dm ? dm : s->name);
	fputs(", \"mangled\": ", r->out);
	json_str(r->out, s->name);
	fputs(", \"object\": ", r->out);
	json_str(r->out, m->sym_objects ? m->sym_objects[node] : m->executable);
	fputs(", \"file\": ", r->out);
	if (!s->file && m->sym_files && m->sym_files[node])
		json_str(r->out, m->sym_files[node]);
	else
		json_str(r->out, s->file ? s->file->name : NULL);
	if (s->file)
		fprintf(r->out, ", \"line\": %d", s->line);
	else
		fputs(", \"line\": null", r->out);
	fputs(", \"self\": ", r->out);
	json_num(r->out, self);
	fputs(", \"children\": ", r->out);
	json_num(r->out, children);
	fputs(", \"total\": ", r->out);
	json_num(r->out, self + children);
	if (cg->counts_known)
		fprintf(r->out, ", \"calls\": %llu, \"recursive_calls\": %llu, \"cycle\": ",
			(unsigned long long)n->ncalls, (unsigned long long)n->self_calls);
	else
		fputs(", \"calls\": null, \"recursive_calls\": null, \"cycle\": ", r->out);
	if (n->cycle)
		fprintf(r->out, "%d", n->cycle);
	else
		fputs("null", r->out);
	if (m->sample_seconds > 0)
		fprintf(r->out, ", \"self_samples\": %.0f, \"total_samples\": %.0f", n->time,
			n->time + n->prop_child);
	fputc('}', r->out);
	free(dm);
}

void sp_report_json(struct sp_report *r, const struct sp_report_meta *m)
{
	const struct sp_cg *cg = r->cg;
	long *ids = sp_xmalloc((cg->nsyms + 1) * sizeof(*ids)), next = 0;
	size_t i;
	int first = 1;

	fputs("{\n  \"format\": ", r->out);
	json_str(r->out, m->format);
	fputs(",\n  \"executable\": ", r->out);
	json_str(r->out, m->executable);
	fputs(",\n  \"files\": [", r->out);
	for (i = 0; i < m->nfiles; i++) {
		if (i)
			fputs(", ", r->out);
		json_str(r->out, m->files[i]);
	}
	fputs("],\n  \"metric\": {\"name\": ", r->out);
	json_str(r->out, m->metric);
	fputs(", \"unit\": ", r->out);
	json_str(r->out, m->unit);
	fputs("},\n  \"total\": ", r->out);
	json_num(r->out, cg->total_time / (double)cg->hz);
	if (m->sample_seconds > 0) {
		fprintf(r->out, ",\n  \"samples\": %.0f,\n  \"period\": ", cg->total_time);
		json_num(r->out, m->sample_seconds);
	}
	fputs(",\n  \"functions\": [", r->out);
	for (i = 0; i < cg->nsyms; i++) {
		ids[i] = -1;
		if (!listed(r, &cg->nodes[i]))
			continue;
		ids[i] = next++;
		fputs(first ? "\n" : ",\n", r->out);
		first = 0;
		json_function(r, m, (unsigned)i, ids[i]);
	}
	fputs(first ? "],\n  \"arcs\": [" : "\n  ],\n  \"arcs\": [", r->out);
	first = 1;
	for (i = 0; i < cg->narcs; i++) {
		const struct sp_cg_arc *a = &cg->arcs[i];

		if (a->parent >= cg->nsyms || a->child >= cg->nsyms || ids[a->parent] < 0 ||
		    ids[a->child] < 0)
			continue;
		fputs(first ? "\n" : ",\n", r->out);
		first = 0;
		fprintf(r->out, "    {\"caller\": %ld, \"callee\": %ld, \"count\": ", ids[a->parent],
			ids[a->child]);
		if (cg->counts_known)
			fprintf(r->out, "%llu", (unsigned long long)a->count);
		else
			fputs("null", r->out);
		fputs(", \"self\": ", r->out);
		json_num(r->out, a->time / (double)cg->hz);
		fputs(", \"children\": ", r->out);
		json_num(r->out, a->child_time / (double)cg->hz);
		if (m->sample_seconds > 0)
			fprintf(r->out, ", \"self_samples\": %.0f, \"children_samples\": %.0f",
				a->time, a->child_time);
		fputc('}', r->out);
	}
	fputs(first ? "]\n}\n" : "\n  ]\n}\n", r->out);
	free(ids);
}
