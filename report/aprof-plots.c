/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The "Cost plots" tab of the HTML report for aprof profiles: which
 * routines get a plot, and their curves as struct sp_html_plot (html.c
 * draws them with assets/report.js).
 *
 * The routines: the SP_APROF_PLOTS_COST costliest routines that have a
 * fit (the data support one: cg/fit.c), and the SP_APROF_PLOTS_GROWTH
 * routines --rank=growth puts first among those whose fitted cost grows
 * that are not plotted already: the expensive routines,
 * and the ones whose cost grows fastest with their input even when they
 * are cheap in this run. They are shown in the order of --rank.
 *
 * Each plot has the curves of --plot's SVG (report/svg.c): per input size
 * the worst (max), average and best (min) cost per activation, then the
 * worst-case and the average fit, each sampled at FIT_STEPS sizes spread
 * evenly and FIT_STEPS spread geometrically over the measured sizes, so
 * that it is smooth on linear and on logarithmic axes, and the band of
 * each fit's 95% interval of c at the same sizes (sp_fit_band()).
 */
#include "symprof/report.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"
#include "symprof/inputcost.h"
#include "symprof/profile.h"
#include "symprof/sort.h"

#define FIT_STEPS 32
#define NCURVES 7

struct builder {
	const struct sp_inputcost *ic;
	struct sp_aprof_plots *out;
	const char *x_label, *y_label;
};

static char *arena_printf(struct sp_arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static char *arena_printf(struct sp_arena *a, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return sp_arena_strdup(a, buf);
}

/* ---- choosing the routines ---- */

/* Marks in `pick` the routines to plot; returns how many. */
static size_t choose(const struct sp_inputcost *ic, uint32_t *order, unsigned char *pick)
{
	size_t n, i, cost = 0, growth = 0;

	n = sp_inputcost_rank(ic, SP_IC_RANK_COST, order);
	for (i = 0; i < n && cost < SP_APROF_PLOTS_COST; i++)
		if (ic->routines[order[i]].worst.ok) {
			pick[order[i]] = 1;
			cost++;
		}
	n = sp_inputcost_rank(ic, SP_IC_RANK_GROWTH, order);
	for (i = 0; i < n && growth < SP_APROF_PLOTS_GROWTH; i++) {
		const struct sp_ic_entry *e = &ic->routines[order[i]];

		if (!(sp_fit_growth(&e->worst) > -INFINITY))
			break; /* the fits of a growing cost come first */
		if (!pick[order[i]]) {
			pick[order[i]] = 1;
			growth++;
		}
	}
	return cost + growth;
}

/* ---- the curves ---- */

static void points(struct builder *b, struct sp_html_curve *c, const struct sp_ic_entry *e,
		   const char *kind, const char *label)
{
	struct sp_arena *a = &b->out->arena;
	double *x = sp_arena_array(a, e->npoints + 1, sizeof(*x));
	double *y = sp_arena_array(a, e->npoints + 1, sizeof(*y));
	size_t i;

	for (i = 0; i < e->npoints; i++) {
		const struct sp_ic_point *pt = &e->points[i];

		x[i] = (double)pt->size;
		if (kind[0] == 'w')
			y[i] = (double)pt->max;
		else
			y[i] = kind[0] == 'a' ? pt->avg : (double)pt->min;
	}
	c->label = label;
	c->kind = kind;
	c->x = x;
	c->y = y;
	c->n = e->npoints;
}

static int cmp_double(const void *a, const void *b, void *ctx)
{
	double x = *(const double *)a, y = *(const double *)b;

	(void)ctx;
	return (x > y) - (x < y);
}

/* The sizes a fitted curve is drawn at, ascending; returns how many. */
static size_t fit_sizes(const struct sp_ic_entry *e, const struct sp_fit *f, double *x)
{
	double lo = (double)e->points[0].size, hi = (double)e->points[e->npoints - 1].size;
	double glo = lo > 0 ? lo : 1;
	size_t n = 0, k, out = 0;

	for (k = 0; k < FIT_STEPS; k++)
		x[n++] = lo + (hi - lo) * (double)k / (FIT_STEPS - 1);
	for (k = 0; k < FIT_STEPS && glo < hi; k++)
		x[n++] = glo * pow(hi / glo, (double)k / (FIT_STEPS - 1));
	sp_sort(x, n, sizeof(*x), cmp_double, NULL);
	for (k = 0; k < n; k++)
		if ((f->c >= 0 || x[k] > 0) && (!out || x[k] > x[out - 1]))
			x[out++] = x[k];
	return out;
}

static void fit_curve(struct builder *b, struct sp_html_curve *c, const struct sp_ic_entry *e,
		      const struct sp_fit *f, const char *kind, const char *what)
{
	struct sp_arena *a = &b->out->arena;
	double *x = sp_arena_array(a, 2 * FIT_STEPS, sizeof(*x));
	double *y = sp_arena_array(a, 2 * FIT_STEPS, sizeof(*y));
	size_t n = fit_sizes(e, f, x), i, k = 0;

	for (i = 0; i < n; i++) {
		double v = f->a + f->b * pow(x[i], f->c);

		if (isfinite(v)) {
			x[k] = x[i];
			y[k++] = v;
		}
	}
	c->label = arena_printf(
		a, "%s: %.4g %c %.4g x^%.3f (R\xc2\xb2 %.4f), c = %.2f [%.2f, %.2f]", what, f->a,
		f->b < 0 ? '-' : '+', fabs(f->b), f->c, f->r2, f->c, f->c_lo, f->c_hi);
	c->kind = kind;
	c->x = x;
	c->y = y;
	c->n = k;
	c->line = 1;
}

/* The band of a fit (sp_fit_band()) at the sizes of its curve: the upper
 * edge by ascending size, then the lower edge back. */
static void band_curve(struct builder *b, struct sp_html_curve *c, const struct sp_ic_entry *e,
		       const struct sp_fit *f, const char *kind, const char *what)
{
	struct sp_arena *a = &b->out->arena;
	double *sizes = sp_arena_array(a, 2 * FIT_STEPS, sizeof(*sizes));
	double *x = sp_arena_array(a, 4 * FIT_STEPS, sizeof(*x));
	double *y = sp_arena_array(a, 4 * FIT_STEPS, sizeof(*y));
	double *lo = sp_arena_array(a, 2 * FIT_STEPS, sizeof(*lo));
	size_t n = fit_sizes(e, f, sizes), i, k = 0, m;

	for (i = 0; i < n; i++)
		if (!sp_fit_band(f, sizes[i], &lo[k], &y[k]))
			x[k++] = sizes[i];
	for (m = k, i = m; i-- > 0;) {
		x[k] = x[i];
		y[k++] = lo[i];
	}
	c->label = arena_printf(a, "%s: c from %.2f to %.2f", what, f->c_lo, f->c_hi);
	c->kind = kind;
	c->x = x;
	c->y = y;
	c->n = k;
	c->band = 1;
}

static void add_plot(struct builder *b, uint32_t r)
{
	const struct sp_profile *p = b->ic->p;
	const struct sp_ic_entry *e = &b->ic->routines[r];
	struct sp_arena *a = &b->out->arena;
	struct sp_html_plot *pl = &b->out->v[b->out->n++];
	struct sp_html_curve *c = sp_arena_zalloc(a, NCURVES * sizeof(*c));
	const char *obj =
		p->funcs[r].object < p->nobjects ? p->objects[p->funcs[r].object].path : NULL;
	const char *base = obj && strrchr(obj, '/') ? strrchr(obj, '/') + 1 : obj;

	pl->name = p->funcs[r].name;
	pl->x_label = b->x_label;
	pl->y_label = b->y_label;
	pl->curves = c;
	points(b, &c[pl->ncurves++], e, "worst", "worst case (max)");
	points(b, &c[pl->ncurves++], e, "avg", "average");
	points(b, &c[pl->ncurves++], e, "best", "best case (min)");
	if (e->worst.ok)
		fit_curve(b, &c[pl->ncurves++], e, &e->worst, "fit-worst", "worst-case fit");
	if (e->avg.ok)
		fit_curve(b, &c[pl->ncurves++], e, &e->avg, "fit-avg", "average fit");
	if (e->worst.ok)
		band_curve(b, &c[pl->ncurves++], e, &e->worst, "band-worst",
			   "95% band of the worst-case fit");
	if (e->avg.ok)
		band_curve(b, &c[pl->ncurves++], e, &e->avg, "band-avg",
			   "95% band of the average fit");
	pl->note = arena_printf(a, "%s%s%zu input sizes, %llu calls, total cost %llu %s",
				base ? base : "", base ? ": " : "", e->npoints,
				(unsigned long long)e->calls, (unsigned long long)e->total,
				p->ncounters ? p->counters[0].unit : "");
}

void sp_report_aprof_plots(struct sp_aprof_plots *out, const struct sp_inputcost *ic, int rank)
{
	const struct sp_profile *p = ic->p;
	uint32_t *order = sp_xmalloc((ic->nroutines + 1) * sizeof(*order));
	unsigned char *pick = sp_xcalloc(ic->nroutines + 1, 1);
	struct builder b;
	size_t n, i;

	memset(out, 0, sizeof(*out));
	sp_arena_init(&out->arena);
	b.ic = ic;
	b.out = out;
	b.x_label = arena_printf(&out->arena, "input size (%s)", p->aprof.input_metric);
	b.y_label = arena_printf(&out->arena, "cost per activation (%s)",
				 p->ncounters ? p->counters[0].unit : "cost");
	out->v = sp_xcalloc(choose(ic, order, pick) + 1, sizeof(*out->v));
	n = sp_inputcost_rank(ic, (enum sp_ic_rank)rank, order);
	for (i = 0; i < n; i++)
		if (pick[order[i]])
			add_plot(&b, order[i]);
	free(order);
	free(pick);
}

void sp_report_aprof_plots_release(struct sp_aprof_plots *pl)
{
	free(pl->v);
	sp_arena_release(&pl->arena);
	memset(pl, 0, sizeof(*pl));
}
