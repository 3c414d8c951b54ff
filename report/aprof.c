/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Text reports of aprof profiles (docs/manual.md, "aprof reports"):
 *
 *  - the header: program, reports, cost and input metrics, totals;
 *  - the routine table, aprof-plot's table in text: per routine its share
 *    of the run's cost, total (cumulative, recursion once) and self cost,
 *    calls, number of distinct input sizes and their range, and the
 *    exponent c of the worst-case fit cost = a + b * x^c with its 95%
 *    interval and R^2, then the name and the object;
 *  - one routine's cost-vs-input table: per input size the calls and the
 *    min / avg / max cumulative cost and the average self cost, both fits,
 *    and with a CCT the routine's calling contexts with their own fits.
 */
#include "symprof/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"
#include "symprof/inputcost.h"
#include "symprof/profile.h"

static const char *basename_of(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path ? path : "?";
}

const char *sp_report_aprof_metric(const char *metric)
{
	if (!strcmp(metric, "bb-count"))
		return "basic blocks executed";
	if (!strcmp(metric, "time-usec"))
		return "microseconds";
	if (!strcmp(metric, "vex-instr"))
		return "VEX instructions executed";
	return NULL;
}

static const char *metric_desc(const char *metric)
{
	const char *d = sp_report_aprof_metric(metric);

	return d ? d : "cost";
}

static const char *input_desc(const char *metric)
{
	if (metric && !strcmp(metric, "drms"))
		return "dynamic read memory size: distinct cells read, plus input from other "
		       "threads and system calls";
	return "read memory size: distinct memory cells first read";
}

static const char *unit_of(const struct sp_profile *p)
{
	return p->ncounters ? p->counters[0].unit : "cost";
}

void sp_report_aprof_header(FILE *out, const struct sp_inputcost *ic, const char *const *files,
			    size_t nfiles)
{
	const struct sp_profile *p = ic->p;
	const struct sp_aprof_info *a = &p->aprof;
	size_t i;

	fprintf(out, "aprof profile of %s\n",
		a->cmdline ? a->cmdline
		: a->app   ? a->app
			   : "an unnamed program");
	fprintf(out, "report%s:", nfiles == 1 ? "" : "s");
	for (i = 0; i < nfiles; i++)
		fprintf(out, " %s", files[i]);
	fprintf(out, " (version %d)\n", a->version);
	fprintf(out, "cost: %s (%s, in %s); input: %s (%s", a->cost_metric,
		metric_desc(a->cost_metric), unit_of(p), a->input_metric,
		input_desc(a->input_metric));
	if (a->mem_resolution)
		fprintf(out, ", %u-byte cells", a->mem_resolution);
	fputs(")\n", out);
	fprintf(out, "total cost %llu %s, %llu tuples", (unsigned long long)ic->run_total,
		unit_of(p), (unsigned long long)a->ntuples);
	if (a->has_cct)
		fprintf(out, ", %zu calling contexts", p->nnodes ? p->nnodes - 1 : 0);
	fputs("\n\n", out);
}

/* " input range" of the table: "lo..hi", or the one size */
static void put_range(FILE *out, const struct sp_ic_entry *e)
{
	char buf[48];

	if (!e->npoints)
		snprintf(buf, sizeof(buf), "-");
	else if (e->npoints == 1)
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)e->points[0].size);
	else
		snprintf(buf, sizeof(buf), "%llu..%llu", (unsigned long long)e->points[0].size,
			 (unsigned long long)e->points[e->npoints - 1].size);
	fprintf(out, " %15s", buf);
}

/* " c [c_lo, c_hi] R2" of the table, "-" without a fit */
static void put_fit_cols(FILE *out, const struct sp_fit *f)
{
	char buf[96];

	if (!f->ok) {
		fprintf(out, " %20s %6s", "-", "-");
		return;
	}
	snprintf(buf, sizeof(buf), "%.2f [%.2f, %.2f]", f->c, f->c_lo, f->c_hi);
	fprintf(out, " %20s %6.3f", buf, f->r2);
}

static void put_table_head(FILE *out)
{
	fprintf(out, "%6s %14s %14s %11s %6s %15s %20s %6s  %s\n", "%cost", "total", "self",
		"calls", "sizes", "input range", "c [95% interval]", "R2", "routine [object]");
}

static void put_table_foot(FILE *out, const struct sp_inputcost *ic, int rank, size_t shown,
			   size_t n, size_t min_sizes)
{
	fprintf(out, "\n%zu routines", shown);
	if (shown < n)
		fprintf(out, " of %zu (those with at least %zu input sizes)", n, min_sizes);
	fprintf(out,
		". total: cumulative cost, recursion counted once; c, R2: cost = a + b * x^c\n"
		"fitted to the worst cost per input size x, with the 95%% interval of c. No fit "
		"(-) with fewer\nthan %u input sizes, sizes spanning less than a factor of %g, the "
		"same cost at every size\nor an exponent the data do not bound (--routine says "
		"which).\n",
		ic->min_sizes, SP_FIT_MIN_SPAN);
	if (rank == SP_IC_RANK_GROWTH)
		fputs("Ranked by the low end of the interval (the least exponent the data "
		      "support) where the\nfitted cost grows (b > 0, c > 0); then the fits whose "
		      "cost does not grow, then the\nroutines without a fit.\n",
		      out);
}

void sp_report_aprof_table(FILE *out, const struct sp_inputcost *ic, int rank, size_t min_sizes)
{
	const struct sp_profile *p = ic->p;
	uint32_t *order = sp_xmalloc((ic->nroutines + 1) * sizeof(*order));
	size_t i, n = sp_inputcost_rank(ic, (enum sp_ic_rank)rank, order), shown = 0;
	double base = ic->run_total ? (double)ic->run_total : 1;

	fprintf(out, "Routines by %s:\n\n",
		rank == SP_IC_RANK_GROWTH ? "growth (the exponent of the worst-case cost)"
					  : "total cost");
	put_table_head(out);
	for (i = 0; i < n; i++) {
		const struct sp_ic_entry *e = &ic->routines[order[i]];
		const struct sp_func *f = &p->funcs[order[i]];

		if (e->npoints < min_sizes)
			continue;
		shown++;
		fprintf(out, "%6.2f %14llu ", 100.0 * (double)e->total / base,
			(unsigned long long)e->total);
		if (ic->has_self)
			fprintf(out, "%14llu", (unsigned long long)e->self);
		else
			fprintf(out, "%14s", "-");
		fprintf(out, " %11llu %6zu", (unsigned long long)e->calls, e->npoints);
		put_range(out, e);
		put_fit_cols(out, &e->worst);
		fprintf(out, "  %s [%s]\n", f->name,
			basename_of(f->object < p->nobjects ? p->objects[f->object].path : NULL));
	}
	put_table_foot(out, ic, rank, shown, n, min_sizes);
	free(order);
}

static void put_fit_line(FILE *out, const char *label, const struct sp_fit *f)
{
	char why[128];

	if (!f->ok) {
		fprintf(out, "%-13s no fit (%s)\n", label, sp_fit_reason(f, why, sizeof(why)));
		return;
	}
	fprintf(out, "%-13s c = %.2f [%.2f, %.2f]   cost = %.6g %c %.6g * x^%.4f   R2 = %.5f\n",
		label, f->c, f->c_lo, f->c_hi, f->a, f->b < 0 ? '-' : '+', fabs(f->b), f->c, f->r2);
}

static void put_points(FILE *out, const struct sp_ic_entry *e, int has_self)
{
	size_t i;

	fprintf(out, "%12s %10s %14s %16s %14s %14s\n", "input size", "calls", "min", "avg", "max",
		"self avg");
	for (i = 0; i < e->npoints; i++) {
		const struct sp_ic_point *pt = &e->points[i];

		fprintf(out, "%12llu %10llu %14llu %16.2f %14llu ", (unsigned long long)pt->size,
			(unsigned long long)pt->calls, (unsigned long long)pt->min, pt->avg,
			(unsigned long long)pt->max);
		if (has_self && pt->calls)
			fprintf(out, "%14.2f\n", (double)pt->self_sum / (double)pt->calls);
		else
			fprintf(out, "%14s\n", "-");
	}
}

/* "outer > ... > routine" for a CCT node */
static void put_path(FILE *out, const struct sp_profile *p, uint32_t node)
{
	uint32_t *path = NULL, n;
	size_t depth = 0, alloc = 0;

	for (n = node; n != SP_NONE && n != 0; n = p->nodes[n].parent) {
		SP_ALLOC_GROW(path, depth + 1, alloc);
		path[depth++] = n;
	}
	while (depth--)
		fprintf(out, "%s%s", p->funcs[p->nodes[path[depth]].frame].name,
			depth ? " > " : "");
	free(path);
}

static void put_contexts(FILE *out, struct sp_inputcost *ic, uint32_t routine)
{
	size_t i, n = 0;

	sp_inputcost_fit_contexts(ic);
	fprintf(out, "\nCalling contexts (%u):\n\n", ic->routines[routine].ncontexts);
	fprintf(out, "%14s %11s %6s %15s %20s %6s  %s\n", "total", "calls", "sizes", "input range",
		"c [95% interval]", "R2", "path");
	for (i = 0; i < ic->ncontexts; i++) {
		const struct sp_ic_entry *c = &ic->contexts[i];

		if (c->func != routine)
			continue;
		fprintf(out, "%14llu %11llu %6zu", (unsigned long long)c->total,
			(unsigned long long)c->calls, c->npoints);
		put_range(out, c);
		put_fit_cols(out, &c->worst);
		fputs("  ", out);
		put_path(out, ic->p, c->node);
		fputc('\n', out);
		n++;
	}
}

static void put_induced(FILE *out, const struct sp_ic_entry *e)
{
	double input = 0;
	size_t i;

	for (i = 0; i < e->npoints; i++)
		input += (double)e->points[i].size * (double)e->points[i].calls;
	if (input <= 0)
		return;
	fprintf(out, "induced input: %.2f%% from system calls, %.2f%% from other threads\n",
		100.0 * (double)e->induced[0] / input, 100.0 * (double)e->induced[1] / input);
}

void sp_report_aprof_routine(FILE *out, struct sp_inputcost *ic, uint32_t routine)
{
	const struct sp_profile *p = ic->p;
	const struct sp_func *f = &p->funcs[routine];
	const struct sp_ic_entry *e = &ic->routines[routine];
	const char *unit = unit_of(p);

	fprintf(out, "Routine %s\n", f->name);
	if (f->mangled)
		fprintf(out, "mangled:      %s\n", f->mangled);
	fprintf(out, "object:       %s\n",
		f->object < p->nobjects ? p->objects[f->object].path : "?");
	fprintf(out, "calls:        %llu\n", (unsigned long long)e->calls);
	fprintf(out, "total cost:   %llu %s (%.2f%% of the run)\n", (unsigned long long)e->total,
		unit, ic->run_total ? 100.0 * (double)e->total / (double)ic->run_total : 0.0);
	if (ic->has_self)
		fprintf(out, "self cost:    %llu %s\n", (unsigned long long)e->self, unit);
	fprintf(out, "input sizes:  %zu (%s)", e->npoints, p->aprof.input_metric);
	if (e->npoints > 1)
		fprintf(out, " from %llu to %llu", (unsigned long long)e->points[0].size,
			(unsigned long long)e->points[e->npoints - 1].size);
	fputc('\n', out);
	if (p->aprof.fields & SP_APROF_HAS_INDUCED)
		put_induced(out, e);
	put_fit_line(out, "worst case:", &e->worst);
	put_fit_line(out, "average:", &e->avg);
	fprintf(out, "\nCost per activation (%s, cumulative) by input size:\n\n", unit);
	put_points(out, e, ic->has_self);
	if (ic->context_of_node && e->ncontexts)
		put_contexts(out, ic, routine);
}
