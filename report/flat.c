/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * gprof's flat profile (hist.c hist_print; gprof.md 2.1): symbols sorted by
 * self time, call count and name; one column unit for the per-call times,
 * chosen so that the largest per-call total lands in [1, 1000) (BSD layout:
 * always ms); the blurb after the table (before it with -T).
 */
#include "symprof/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blurbs.h"
#include "num.h"
#include "symprof/alloc.h"
#include "symprof/cg.h"
#include "symprof/sort.h"
#include "symprof/symbolize.h"

static const struct {
	char prefix;
	double scale;
} si_tab[] = {
	{'T', 1e-12}, {'G', 1e-09}, {'M', 1e-06}, {'K', 1e-03}, {' ', 1e-00}, {'m', 1e+03},
	{'u', 1e+06}, {'n', 1e+09}, {'p', 1e+12}, {'f', 1e+15}, {'a', 1e+18},
};
#define SI_LEN (sizeof(si_tab) / sizeof(si_tab[0]))

/* The SI prefix for the per-call columns (index into si_tab). */
static size_t unit_scale(const struct sp_cg *cg, const unsigned *sorted, size_t nsorted)
{
	const struct sp_cg_node *top = NULL;
	double top_time = 0.0;
	size_t i, log_scale = 0;

	for (i = 0; i < nsorted; i++) {
		const struct sp_cg_node *n = &cg->nodes[sorted[i]];

		if (n->ncalls != 0) {
			double t = (n->time + n->child_time) / n->ncalls;
			if (t > top_time) {
				top = n;
				top_time = t;
			}
		}
	}
	if (top && top_time > 0.0) {
		top_time /= cg->hz;
		for (log_scale = 0; log_scale < SI_LEN; log_scale++) {
			double v = si_tab[log_scale].scale * top_time;
			if (v >= 1.0 && v < 1000.0)
				break;
		}
		/* gprof would read past its table here; stay on the last unit */
		if (log_scale == SI_LEN)
			log_scale = SI_LEN - 1;
	}
	return log_scale;
}

static void print_header(struct sp_report *r, char prefix, double *total_time)
{
	const struct sp_cg *cg = r->cg;
	FILE *out = sp_report_out(r);
	char unit[32];

	if (cg->cost_note)
		snprintf(unit, sizeof(unit), "%s/call", cg->dimen);
	else
		snprintf(unit, sizeof(unit), "%c%c/call", prefix, cg->dimen_abbrev);
	if (cg->cost_note) {
		fprintf(out, "\n%s\n", cg->cost_note);
	} else if (r->o->bsd) {
		fprintf(out, "\ngranularity: each sample hit covers %ld byte(s)",
			(long)cg->hist_scale * 2L);
		if (*total_time > 0.0)
			fprintf(out, " for %.2f%% of %.2f %s\n\n", 100.0 / *total_time,
				*total_time / cg->hz, cg->dimen);
	} else {
		fprintf(out, "\nEach sample counts as %g %s.\n", 1.0 / cg->hz, cg->dimen);
	}
	if (cg->precise)
		fputs("Bins are split exactly between symbols; \"+/-\" is the expected sampling "
		      "error\n(the square root of the samples).\n",
		      out);
	if (*total_time <= 0.0) {
		fputs(" no time accumulated\n\n", out);
		*total_time = 1.0;
	}
	if (cg->precise) {
		fprintf(out, "%5.5s %10.10s %8.8s %8.8s %8.8s %8.8s %8.8s  %-8.8s\n", "%  ",
			"cumulative", "self  ", "+/-   ", "", "self  ", "total ", "");
		fprintf(out, "%5.5s %9.9s  %8.8s %8.8s %8.8s %8.8s %8.8s  %-8.8s\n", "time",
			cg->dimen, cg->dimen, cg->dimen, "calls", unit, unit, "name");
		return;
	}
	fprintf(out, "%5.5s %10.10s %8.8s %8.8s %8.8s %8.8s  %-8.8s\n", "%  ", "cumulative",
		"self  ", "", "self  ", "total ", "");
	fprintf(out, "%5.5s %9.9s  %8.8s %8.8s %8.8s %8.8s  %-8.8s\n",
		cg->cost_note ? "cost" : "time", cg->dimen, cg->dimen, "calls", unit, unit, "name");
}

/* The numbers of a line go straight into room reserved for them (num.h),
 * at most this many fields of SP_NUM_MAX. */
#define LINE_FIELDS 8

static void print_line(struct sp_report *r, unsigned node, double scale, double total_time,
		       double *accum)
{
	const struct sp_cg *cg = r->cg;
	const struct sp_cg_node *n = &cg->nodes[node];
	struct sp_buf *b = &r->line;
	double pct = total_time > 0.0 ? 100 * n->time / total_time : 0.0;
	char *p;

	if (n->folded || (r->o->ignore_zeros && n->ncalls == 0 && n->time == 0))
		return;
	*accum += n->time;
	p = sp_num_line_begin(b, LINE_FIELDS * (size_t)SP_NUM_MAX);
	if (r->o->bsd) {
		p = sp_num_at_fixed(p, pct, 5, 1);
		*p++ = ' ';
		p = sp_num_at_fixed(p, *accum / cg->hz, 10, 2);
	} else {
		p = sp_num_at_fixed(p, pct, 6, 2);
		*p++ = ' ';
		p = sp_num_at_fixed(p, *accum / cg->hz, 9, 2);
	}
	*p++ = ' ';
	p = sp_num_at_fixed(p, n->time / cg->hz, 8, 2);
	if (cg->precise) {
		*p++ = ' ';
		p = sp_num_at_fixed(p, sqrt(n->time) / cg->hz, 8, 2);
	}
	if (n->ncalls != 0) {
		*p++ = ' ';
		p = sp_num_at_ulong(p, n->ncalls, 8);
		*p++ = ' ';
		p = sp_num_at_fixed(p, scale * n->time / cg->hz / n->ncalls, 8, 2);
		*p++ = ' ';
		p = sp_num_at_fixed(p, scale * (n->time + n->child_time) / cg->hz / n->ncalls, 8,
				    2);
		p = sp_num_at_spaces(p, 2);
	} else {
		p = sp_num_at_spaces(p, 1 + 8 + 1 + 8 + 1 + 8 + 2);
	}
	sp_num_line_end(b, p);
	if (r->o->bsd)
		sp_report_name(r, node);
	else
		sp_report_name_only(r, node);
	sp_buf_addch(b, '\n');
	sp_report_end_line(r);
}

/* --precise: the samples that fell on no symbol, as a row of their own. */
static void print_unattributed(struct sp_report *r, double total_time, double *accum)
{
	const struct sp_cg *cg = r->cg;
	double t = cg->unattributed;

	*accum += t;
	fprintf(sp_report_out(r), "%6.2f %9.2f %8.2f %8.2f %8.8s %8.8s %8.8s  <unattributed>\n",
		100 * t / total_time, *accum / cg->hz, t / cg->hz, sqrt(t) / cg->hz, "", "", "");
}

void sp_report_flat(struct sp_report *r)
{
	const struct sp_cg *cg = r->cg;
	double total_time = cg->total_time, accum = 0.0;
	unsigned *sorted = sp_xmalloc((cg->nsyms + 1) * sizeof(*sorted));
	size_t i, n, log_scale;

	if (r->first_output)
		r->first_output = 0;
	else
		fputs("\f\n", sp_report_out(r));
	if (r->o->bsd) {
		if (!r->o->brief) {
			fputs("\n\n\nflat profile:\n", sp_report_out(r));
			fputs(sp_blurb_flat, sp_report_out(r));
		}
	} else {
		fputs("Flat profile:\n", sp_report_out(r));
	}
	/*
	 * Only the symbols a line may be printed for (with -l hundreds of
	 * thousands of lines, most with neither time nor calls): the stable
	 * sort of those is the order of all with the rest left out. unit_scale()
	 * reads only symbols with calls. A NaN time (a cost from another
	 * profiler) makes the order depend on what is compared: all then.
	 */
	for (i = 0, n = 0; i < cg->nsyms; i++) {
		const struct sp_cg_node *nd = &cg->nodes[i];

		if (nd->time != nd->time)
			break;
		if (!(r->o->ignore_zeros && nd->ncalls == 0 && nd->time == 0))
			sorted[n++] = (unsigned)i;
	}
	if (i < cg->nsyms)
		for (i = 0, n = cg->nsyms; i < n; i++)
			sorted[i] = (unsigned)i;
	sp_cg_sort_nodes(r->cg, sorted, n, SP_CG_ORDER_TIME);
	if (r->o->bsd)
		log_scale = 5;
	else if (cg->cost_note)
		log_scale = 4; /* no prefix: the unit as is */
	/* without call counts the per-call columns stay blank: plain seconds */
	else if (cg->stack_based && !cg->counts_known)
		log_scale = 4;
	else
		log_scale = unit_scale(cg, sorted, n);
	print_header(r, si_tab[log_scale].prefix, &total_time);
	for (i = 0; i < n; i++)
		if (cg->nodes[sorted[i]].flat_print)
			print_line(r, sorted[i], si_tab[log_scale].scale, total_time, &accum);
	if (cg->precise && cg->unattributed > 0)
		print_unattributed(r, total_time, &accum);
	free(sorted);
	if (!r->o->brief && !r->o->bsd)
		fputs(sp_blurb_flat, sp_report_out(r));
	sp_report_flush_line(r);
}
