/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * gprof's flat profile (hist.c hist_print; gprof.md 2.1): symbols sorted by
 * self time, call count and name; one column unit for the per-call times,
 * chosen so that the largest per-call total lands in [1, 1000) (BSD layout:
 * always ms); the blurb after the table (before it with -T).
 */
#include "symprof/report.h"

#include <stdlib.h>
#include <string.h>

#include "blurbs.h"
#include "fmt.h"
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

static int cmp_time(const void *a, const void *b, void *ctx)
{
	const struct sp_cg *cg = ctx;
	const struct sp_cg_node *l = &cg->nodes[*(const unsigned *)a];
	const struct sp_cg_node *r = &cg->nodes[*(const unsigned *)b];
	double diff = r->time - l->time;

	if (diff > 0.0)
		return 1;
	if (diff < 0.0)
		return -1;
	if (r->ncalls > l->ncalls)
		return 1;
	if (r->ncalls < l->ncalls)
		return -1;
	return strcmp(l->sym->name, r->sym->name);
}

/* The SI prefix for the per-call columns (index into si_tab). */
static size_t unit_scale(const struct sp_cg *cg, const unsigned *sorted)
{
	const struct sp_cg_node *top = NULL;
	double top_time = 0.0;
	size_t i, log_scale = 0;

	for (i = 0; i < cg->nsyms; i++) {
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
	FILE *out = r->out;
	char unit[16];

	snprintf(unit, sizeof(unit), "%c%c/call", prefix, cg->dimen_abbrev);
	if (r->o->bsd) {
		fprintf(out, "\ngranularity: each sample hit covers %ld byte(s)",
			(long)cg->hist_scale * 2L);
		if (*total_time > 0.0)
			fprintf(out, " for %.2f%% of %.2f %s\n\n", 100.0 / *total_time,
				*total_time / cg->hz, cg->dimen);
	} else {
		fprintf(out, "\nEach sample counts as %g %s.\n", 1.0 / cg->hz, cg->dimen);
	}
	if (*total_time <= 0.0) {
		fputs(" no time accumulated\n\n", out);
		*total_time = 1.0;
	}
	fprintf(out, "%5.5s %10.10s %8.8s %8.8s %8.8s %8.8s  %-8.8s\n", "%  ", "cumulative",
		"self  ", "", "self  ", "total ", "");
	fprintf(out, "%5.5s %9.9s  %8.8s %8.8s %8.8s %8.8s  %-8.8s\n", "time", cg->dimen,
		cg->dimen, "calls", unit, unit, "name");
}

static void print_line(struct sp_report *r, unsigned node, double scale, double total_time,
		       double *accum)
{
	const struct sp_cg *cg = r->cg;
	const struct sp_cg_node *n = &cg->nodes[node];
	struct sp_buf *b = &r->line;
	double pct = total_time > 0.0 ? 100 * n->time / total_time : 0.0;

	if (r->o->ignore_zeros && n->ncalls == 0 && n->time == 0)
		return;
	*accum += n->time;
	if (r->o->bsd) {
		sp_fmt_put_fixed(b, pct, 5, 1);
		sp_buf_addch(b, ' ');
		sp_fmt_put_fixed(b, *accum / cg->hz, 10, 2);
	} else {
		sp_fmt_put_fixed(b, pct, 6, 2);
		sp_buf_addch(b, ' ');
		sp_fmt_put_fixed(b, *accum / cg->hz, 9, 2);
	}
	sp_buf_addch(b, ' ');
	sp_fmt_put_fixed(b, n->time / cg->hz, 8, 2);
	if (n->ncalls != 0) {
		sp_buf_addch(b, ' ');
		sp_fmt_put_ulong(b, n->ncalls, 8, 0);
		sp_buf_addch(b, ' ');
		sp_fmt_put_fixed(b, scale * n->time / cg->hz / n->ncalls, 8, 2);
		sp_buf_addch(b, ' ');
		sp_fmt_put_fixed(b, scale * (n->time + n->child_time) / cg->hz / n->ncalls, 8, 2);
		sp_buf_addchars(b, ' ', 2);
	} else {
		sp_buf_addchars(b, ' ', 1 + 8 + 1 + 8 + 1 + 8 + 2);
	}
	if (r->o->bsd)
		sp_report_name(r, node);
	else
		sp_report_name_only(r, node);
	sp_buf_addch(b, '\n');
	sp_report_flush_line(r);
}

void sp_report_flat(struct sp_report *r)
{
	const struct sp_cg *cg = r->cg;
	double total_time = cg->total_time, accum = 0.0;
	unsigned *sorted = sp_xmalloc((cg->nsyms + 1) * sizeof(*sorted));
	size_t i, log_scale;

	if (r->first_output)
		r->first_output = 0;
	else
		fputs("\f\n", r->out);
	if (r->o->bsd) {
		if (!r->o->brief) {
			fputs("\n\n\nflat profile:\n", r->out);
			fputs(sp_blurb_flat, r->out);
		}
	} else {
		fputs("Flat profile:\n", r->out);
	}
	for (i = 0; i < cg->nsyms; i++)
		sorted[i] = (unsigned)i;
	sp_sort(sorted, cg->nsyms, sizeof(*sorted), cmp_time, (void *)cg);
	/* without call counts the per-call columns stay blank: plain seconds */
	if (r->o->bsd)
		log_scale = 5;
	else if (cg->stack_based && !cg->counts_known)
		log_scale = 4;
	else
		log_scale = unit_scale(cg, sorted);
	print_header(r, si_tab[log_scale].prefix, &total_time);
	for (i = 0; i < cg->nsyms; i++)
		if (cg->nodes[sorted[i]].flat_print)
			print_line(r, sorted[i], si_tab[log_scale].scale, total_time, &accum);
	free(sorted);
	if (!r->o->brief && !r->o->bsd)
		fputs(sp_blurb_flat, r->out);
}
