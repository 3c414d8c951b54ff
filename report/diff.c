/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * --diff=BASE: the flat profile of differences between two profiles of the
 * same program. Functions are matched by symbol name (so the base may come
 * from another profiler), every amount is the profile's minus the base's,
 * and rows are sorted by the size of the change in self time, then in
 * total time, then in calls.
 *
 * Sampling noise: a function that got n samples would get about n ± √n in
 * another run of the same program (Poisson), so a change built from n1 and
 * n0 samples has a standard deviation of √(n1 + n0) samples. A change is
 * significant only outside both runs' sampling error, more than twice
 * that (about the 95% level); within it, it is not evidence of anything,
 * and the text marks it with "~". The test on √(n1 + n0) is stricter
 * than being outside each run's own error (2√n1 and 2√n0) and less strict
 * than requiring their two intervals not to overlap (2√n1 + 2√n0), which
 * would be a 99.5% test. Call counts (mcount, or an instrumenting profiler)
 * are exact and have no noise. The noise applies to time sampled in ticks
 * of the profile's clock (gmon.out, and stack profiles whose metric is
 * seconds); other amounts (aprof's counted costs, IgProf's counters) have
 * no sampling error and every change of them is significant.
 *
 * JSON keeps docs/formats.md's schema with the base's value beside each
 * difference:
 *   {"format", "executable", "files", "base_files", "metric", "total",
 *    "base_total", "noise_total", "significance",
 *    "functions": [{"id", "name", "mangled", "object", "file", "line",
 *                   "self", "children", "total", "calls", "recursive_calls",
 *                   "cycle": null, "base_self", "base_children",
 *                   "base_total", "base_calls", "noise_self",
 *                   "noise_total", "significant", "significant_total"}],
 *    "arcs": [{"caller", "callee", "count", "self", "children",
 *              "base_count", "base_self", "base_children"}]}
 */
#include "symprof/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "json.h"
#include "symprof/alloc.h"
#include "symprof/cg.h"
#include "symprof/hashmap.h"
#include "symprof/sort.h"
#include "symprof/symbolize.h"

struct build {
	struct sp_diff *d;
	size_t alloc, arc_alloc;
	struct sp_pairmap rows; /* interned mangled name -> row */
	struct sp_pairmap arcs; /* (caller row, callee row) -> arc */
	const struct sp_report_opts *ro;
};

static void row_key(const void *ctx, uint32_t v, uint64_t *k1, uint64_t *k2)
{
	const struct sp_diff *d = ctx;

	*k1 = (uint64_t)(uintptr_t)d->rows[v].mangled;
	*k2 = 0;
}

static void arc_key(const void *ctx, uint32_t v, uint64_t *k1, uint64_t *k2)
{
	const struct sp_diff *d = ctx;

	*k1 = d->arcs[v].caller;
	*k2 = d->arcs[v].callee;
}

/* The row of symbol s, created when absent. */
static uint32_t row_of(struct build *b, const struct sp_symbol *s)
{
	struct sp_diff *d = b->d;
	const char *key = sp_strtab_intern(&d->strs, s->name);
	uint32_t r = sp_pairmap_get(&b->rows, (uint64_t)(uintptr_t)key, 0);
	struct sp_diff_row *row;
	char *dm;

	if (r != UINT32_MAX)
		return r;
	SP_ALLOC_GROW(d->rows, d->len + 1, b->alloc);
	row = &d->rows[d->len];
	memset(row, 0, sizeof(*row));
	row->mangled = key;
	row->no_linkage = s->no_linkage;
	dm = b->ro->demangle && !s->no_linkage ? sp_demangle(s->name, b->ro->leading_char) : NULL;
	row->name = dm ? sp_strtab_intern(&d->strs, dm) : key;
	free(dm);
	row->file = s->file ? sp_strtab_intern(&d->strs, s->file->name) : NULL;
	row->line = s->line;
	r = (uint32_t)d->len++;
	sp_pairmap_put(&b->rows, (uint64_t)(uintptr_t)key, 0, r);
	return r;
}

/* Adds one graph's functions (base: into the base_ fields), with the
 * numbers its --format=json has. */
static uint32_t *add_functions(struct build *b, const struct sp_cg *cg,
			       const struct sp_report_meta *m, int base)
{
	uint32_t *row = sp_xmalloc((cg->nsyms + 1) * sizeof(*row));
	size_t i;

	for (i = 0; i < cg->nsyms; i++) {
		const struct sp_cg_node *n = &cg->nodes[i];
		struct sp_json_fn fn;
		struct sp_diff_row *r;

		row[i] = UINT32_MAX;
		if (!n->sym || !n->sym->name || !sp_json_fn(cg, m, b->ro->ignore_zeros, i, &fn))
			continue;
		row[i] = row_of(b, n->sym);
		r = &b->d->rows[row[i]];
		/* the object as the profile's JSON names it (stack profiles: per
		 * function), the profile's before the base's */
		if (!r->object && m->sym_objects && m->sym_objects[i])
			r->object = sp_strtab_intern(&b->d->strs, m->sym_objects[i]);
		if (base) {
			r->base_self += fn.self;
			r->base_children += fn.children;
			r->base_calls += fn.calls;
			r->base_recursive_calls += fn.recursive_calls;
		} else {
			r->self += fn.self;
			r->children += fn.children;
			r->calls += fn.calls;
			r->recursive_calls += fn.recursive_calls;
		}
	}
	return row;
}

static void add_arcs(struct build *b, const struct sp_cg *cg, const uint32_t *row, int base)
{
	struct sp_diff *d = b->d;
	double hz = cg->hz > 0 ? (double)cg->hz : 1;
	size_t i;

	for (i = 0; i < cg->narcs; i++) {
		const struct sp_cg_arc *a = &cg->arcs[i];
		struct sp_diff_arc *da;
		uint32_t k;

		if (a->parent >= cg->nsyms || a->child >= cg->nsyms ||
		    row[a->parent] == UINT32_MAX || row[a->child] == UINT32_MAX)
			continue;
		SP_ALLOC_GROW(d->arcs, d->narcs + 1, b->arc_alloc);
		d->arcs[d->narcs] =
			(struct sp_diff_arc){row[a->parent], row[a->child], 0, 0, 0, 0, 0, 0};
		k = sp_pairmap_put(&b->arcs, row[a->parent], row[a->child], (uint32_t)d->narcs);
		if (k == d->narcs)
			d->narcs++;
		da = &d->arcs[k];
		if (base) {
			da->base_count += a->count;
			da->base_self += a->time / hz;
			da->base_children += a->child_time / hz;
		} else {
			da->count += a->count;
			da->self += a->time / hz;
			da->children += a->child_time / hz;
		}
	}
}

static int cmp_change(const void *pa, const void *pb, void *ctx)
{
	const struct sp_diff *d = ctx;
	const struct sp_diff_row *a = &d->rows[*(const uint32_t *)pa];
	const struct sp_diff_row *b = &d->rows[*(const uint32_t *)pb];
	double x = fabs(a->self - a->base_self), y = fabs(b->self - b->base_self);

	if (x != y)
		return x > y ? -1 : 1;
	x = fabs(a->total - a->base_total);
	y = fabs(b->total - b->base_total);
	if (x != y)
		return x > y ? -1 : 1;
	x = fabs((double)a->calls - (double)a->base_calls);
	y = fabs((double)b->calls - (double)b->base_calls);
	if (x != y)
		return x > y ? -1 : 1;
	return strcmp(a->name, b->name);
}

int sp_diff_significant(const struct sp_diff *d, double change, double noise)
{
	if (change == 0)
		return 0;
	return !d->sampled || fabs(change) > SP_DIFF_Z * noise;
}

/* Totals and noise per row; the rows in order, the arcs renumbered. */
static void finish(struct sp_diff *d)
{
	uint32_t *idx = sp_xmalloc((d->len + 1) * sizeof(*idx));
	uint32_t *where = sp_xmalloc((d->len + 1) * sizeof(*where));
	struct sp_diff_row *sorted = sp_xmalloc((d->len + 1) * sizeof(*sorted));
	size_t i;

	for (i = 0; i < d->len; i++) {
		struct sp_diff_row *r = &d->rows[i];

		r->total = r->self + r->children;
		r->base_total = r->base_self + r->base_children;
		if (d->sampled) {
			r->noise_self = sqrt((r->self + r->base_self) / d->sample) * d->sample;
			r->noise_total = sqrt((r->total + r->base_total) / d->sample) * d->sample;
		}
		r->significant = sp_diff_significant(d, r->self - r->base_self, r->noise_self);
		r->significant_total =
			sp_diff_significant(d, r->total - r->base_total, r->noise_total);
		idx[i] = (uint32_t)i;
	}
	sp_sort(idx, d->len, sizeof(*idx), cmp_change, d);
	for (i = 0; i < d->len; i++) {
		sorted[i] = d->rows[idx[i]];
		where[idx[i]] = (uint32_t)i;
	}
	free(d->rows);
	d->rows = sorted;
	for (i = 0; i < d->narcs; i++) {
		d->arcs[i].caller = where[d->arcs[i].caller];
		d->arcs[i].callee = where[d->arcs[i].callee];
	}
	free(idx);
	free(where);
	if (d->sampled)
		d->noise_total = sqrt((d->total + d->base_total) / d->sample) * d->sample;
}

/* What the --format=json of the graph calls its total. */
static double graph_total(const struct sp_cg *cg, const struct sp_report_meta *m)
{
	if (m->has_total)
		return m->total;
	return cg->total_time / (cg->hz > 0 ? (double)cg->hz : 1);
}

struct sp_diff *sp_diff_new(const struct sp_cg *cg, const struct sp_report_meta *m,
			    const struct sp_cg *base, const struct sp_report_meta *base_meta,
			    const struct sp_report_opts *ro)
{
	struct sp_diff *d = sp_xcalloc(1, sizeof(*d));
	struct build b;
	uint32_t *rows;

	memset(&b, 0, sizeof(b));
	b.d = d;
	b.ro = ro;
	sp_strtab_init(&d->strs);
	sp_pairmap_init(&b.rows, row_key, d);
	sp_pairmap_init(&b.arcs, arc_key, d);
	d->meta = *m;
	d->base_meta = *base_meta;
	snprintf(d->dimen, sizeof(d->dimen), "%s", cg->dimen);
	d->total = graph_total(cg, m);
	d->base_total = graph_total(base, base_meta);
	d->sampled = !strcmp(cg->dimen, "seconds") && cg->hz > 0 && base->hz > 0;
	d->sample = d->sampled ? 1.0 / (double)cg->hz : 0;
	/* stack samples record no calls: their count columns mean nothing */
	d->counts = (cg->counts_known || !cg->stack_based) &&
		    (base->counts_known || !base->stack_based);
	d->decimals = strcmp(cg->dimen, "seconds") ? 0 : 2;
	d->width = d->decimals ? 9 : 11;
	rows = add_functions(&b, cg, m, 0);
	add_arcs(&b, cg, rows, 0);
	free(rows);
	rows = add_functions(&b, base, base_meta, 1);
	add_arcs(&b, base, rows, 1);
	free(rows);
	sp_pairmap_release(&b.rows);
	sp_pairmap_release(&b.arcs);
	finish(d);
	return d;
}

void sp_diff_free(struct sp_diff *d)
{
	if (!d)
		return;
	free(d->rows);
	free(d->arcs);
	sp_strtab_release(&d->strs);
	free(d);
}

/* ---- text ---- */

static void put_files(FILE *out, const struct sp_report_meta *m)
{
	size_t i;

	for (i = 0; i < m->nfiles; i++)
		fprintf(out, "%s%s", i ? " + " : "", m->files[i]);
}

/* " %+8.1f%%" of the relative change (width 0: no padding), or "new". */
static void put_relative(FILE *out, double cur, double base, int width)
{
	if (cur == base)
		fprintf(out, " %*.1f%%", width ? width - 1 : 0, 0.0);
	else if (base != 0)
		fprintf(out, " %+*.1f%%", width ? width - 1 : 0, 100.0 * (cur - base) / fabs(base));
	else
		fprintf(out, " %*s", width, "new");
}

/* " %+W.Df" of a change, without a sign when there is none. */
static void put_change(FILE *out, double change, int width, int decimals)
{
	if (change == 0)
		fprintf(out, " %*.*f", width, decimals, 0.0);
	else
		fprintf(out, " %+*.*f", width, decimals, change);
}

static void put_row(const struct sp_diff *d, const struct sp_diff_row *r, FILE *out)
{
	double change = r->self - r->base_self;
	int noisy = change != 0 && !r->significant;
	int w = d->width, dec = d->decimals;

	fprintf(out, "%*.*f %*.*f", w, dec, r->self, w, dec, r->base_self);
	put_change(out, change, w, dec);
	fputc(noisy ? '~' : ' ', out);
	put_relative(out, r->self, r->base_self, 9);
	if (d->sampled)
		fprintf(out, " %7.2f", r->noise_self);
	fprintf(out, " %*.*f", w, dec, r->total);
	put_change(out, r->total - r->base_total, w, dec);
	if (!d->counts)
		fprintf(out, " %10s %10s", "-", "-");
	else if (r->calls == r->base_calls)
		fprintf(out, " %10llu %10d", (unsigned long long)r->calls, 0);
	else
		fprintf(out, " %10llu %+10lld", (unsigned long long)r->calls,
			(long long)(r->calls - r->base_calls));
	fprintf(out, "  %s\n", r->name);
}

void sp_diff_write_text(const struct sp_diff *d, FILE *out)
{
	double change = d->total - d->base_total;
	int w = d->width;
	size_t i;

	fputs("Flat profile of differences: ", out);
	put_files(out, &d->meta);
	fputs(" minus ", out);
	put_files(out, &d->base_meta);
	fputs("\n\n", out);
	fprintf(out, "Total: %.*f %s, base %.*f, change", d->decimals, d->total, d->dimen,
		d->decimals, d->base_total);
	put_change(out, change, 0, d->decimals);
	fputc(',', out);
	put_relative(out, d->total, d->base_total, 0);
	if (d->sampled)
		fprintf(out, ", noise %.2f", d->noise_total);
	fputs(".\n", out);
	if (d->sampled)
		fprintf(out,
			"Each sample counts as %g %s. \"noise\" is one standard deviation of a\n"
			"change from sampling alone (the square root of the samples in both\n"
			"profiles). A change is significant only outside both runs' sampling\n"
			"error, more than %g times its noise; one within it is marked '~'.\n",
			d->sample, d->dimen, SP_DIFF_Z);
	else
		fputs("The amounts are not sampled: no sampling error applies, and every "
		      "change is\nsignificant (none is marked '~').\n",
		      out);
	fprintf(out, "\n%*s %*s %*s  %9s%s %*s %*s %10s %10s\n", w, "self", w, "base", w, "change",
		"change", d->sampled ? "   noise" : "", w, "total", w, "change", "calls", "change");
	fprintf(out, "%*s %*s %*s  %9s%s %*s %*s %10s %10s  %s\n", w, d->dimen, w, d->dimen, w,
		d->dimen, "%", d->sampled ? " seconds" : "", w, d->dimen, w, d->dimen, "", "calls",
		"name");
	for (i = 0; i < d->len; i++)
		put_row(d, &d->rows[i], out);
}

/* ---- JSON ---- */

static void json_files(FILE *out, const struct sp_report_meta *m)
{
	size_t i;

	fputc('[', out);
	for (i = 0; i < m->nfiles; i++) {
		if (i)
			fputs(", ", out);
		sp_esc_json_str(out, m->files[i]);
	}
	fputc(']', out);
}

static void json_field(FILE *out, const char *name, double v)
{
	fprintf(out, ", \"%s\": ", name);
	sp_esc_json_num(out, v);
}

static void json_row(const struct sp_diff *d, size_t i, FILE *out)
{
	const struct sp_diff_row *r = &d->rows[i];

	fprintf(out, "    {\"id\": %zu, \"name\": ", i);
	sp_esc_json_str(out, r->name);
	fputs(", \"mangled\": ", out);
	sp_esc_json_str(out, r->no_linkage ? NULL : r->mangled);
	fputs(", \"object\": ", out);
	sp_esc_json_str(out, r->object ? r->object : d->meta.executable);
	fputs(", \"file\": ", out);
	sp_esc_json_str(out, r->file);
	if (r->file)
		fprintf(out, ", \"line\": %d", r->line);
	else
		fputs(", \"line\": null", out);
	json_field(out, "self", r->self - r->base_self);
	json_field(out, "children", r->children - r->base_children);
	json_field(out, "total", r->total - r->base_total);
	if (d->counts)
		fprintf(out, ", \"calls\": %lld, \"recursive_calls\": %lld, \"cycle\": null",
			(long long)(r->calls - r->base_calls),
			(long long)(r->recursive_calls - r->base_recursive_calls));
	else
		fputs(", \"calls\": null, \"recursive_calls\": null, \"cycle\": null", out);
	json_field(out, "base_self", r->base_self);
	json_field(out, "base_children", r->base_children);
	json_field(out, "base_total", r->base_total);
	if (d->counts)
		fprintf(out, ", \"base_calls\": %llu", (unsigned long long)r->base_calls);
	else
		fputs(", \"base_calls\": null", out);
	json_field(out, "noise_self", r->noise_self);
	json_field(out, "noise_total", r->noise_total);
	fprintf(out, ", \"significant\": %s, \"significant_total\": %s",
		r->significant ? "true" : "false", r->significant_total ? "true" : "false");
	fputc('}', out);
}

static void json_arc(const struct sp_diff *d, const struct sp_diff_arc *a, FILE *out)
{
	fprintf(out, "    {\"caller\": %u, \"callee\": %u, \"count\": ", a->caller, a->callee);
	if (d->counts)
		fprintf(out, "%lld", (long long)(a->count - a->base_count));
	else
		fputs("null", out);
	json_field(out, "self", a->self - a->base_self);
	json_field(out, "children", a->children - a->base_children);
	if (d->counts)
		fprintf(out, ", \"base_count\": %llu", (unsigned long long)a->base_count);
	else
		fputs(", \"base_count\": null", out);
	json_field(out, "base_self", a->base_self);
	json_field(out, "base_children", a->base_children);
	fputc('}', out);
}

void sp_diff_write_json(const struct sp_diff *d, FILE *out)
{
	size_t i;

	fputs("{\n  \"format\": ", out);
	sp_esc_json_str(out, d->meta.format);
	fputs(",\n  \"executable\": ", out);
	sp_esc_json_str(out, d->meta.executable);
	fputs(",\n  \"files\": ", out);
	json_files(out, &d->meta);
	fputs(",\n  \"base_format\": ", out);
	sp_esc_json_str(out, d->base_meta.format);
	fputs(",\n  \"base_files\": ", out);
	json_files(out, &d->base_meta);
	fputs(",\n  \"metric\": {\"name\": ", out);
	sp_esc_json_str(out, d->meta.metric);
	fputs(", \"unit\": ", out);
	sp_esc_json_str(out, d->meta.unit);
	fputs("},\n  \"total\": ", out);
	sp_esc_json_num(out, d->total - d->base_total);
	fputs(",\n  \"base_total\": ", out);
	sp_esc_json_num(out, d->base_total);
	fputs(",\n  \"noise_total\": ", out);
	sp_esc_json_num(out, d->noise_total);
	fputs(",\n  \"significance\": ", out);
	if (d->sampled) {
		char rule[256];

		snprintf(rule, sizeof(rule),
			 "a change is significant only outside both runs' sampling error: more "
			 "than %g times its noise, sqrt(samples in both profiles) * %g %s",
			 SP_DIFF_Z, d->sample, d->dimen);
		sp_esc_json_str(out, rule);
	} else {
		sp_esc_json_str(out, "the amounts are not sampled: no sampling error applies, "
				     "and every change is significant");
	}
	fputs(",\n  \"functions\": [", out);
	for (i = 0; i < d->len; i++) {
		fputs(i ? ",\n" : "\n", out);
		json_row(d, i, out);
	}
	fputs(d->len ? "\n  ],\n  \"arcs\": [" : "],\n  \"arcs\": [", out);
	for (i = 0; i < d->narcs; i++) {
		fputs(i ? ",\n" : "\n", out);
		json_arc(d, &d->arcs[i], out);
	}
	fputs(d->narcs ? "\n  ]\n}\n" : "]\n}\n", out);
}
