/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The cost plot of one routine as a standalone SVG 1.1 document (--plot):
 *
 *   <svg> <style/> <title/> axes with ticks and labels
 *     <g class="point" data-size data-calls> <title/> three circles:
 *         class="worst" (max), "avg", "best" (min) </g>   one per input size
 *     <path class="band-worst"/> <path class="band-avg"/>  95% bands of c
 *     <path class="fit-worst"/> <path class="fit-avg"/>   fitted a + b x^c
 *     legend </svg>
 *
 * A band is the region between the fits with c at either end of its 95%
 * interval and the best fit (sp_fit_band()): the curves the data allow.
 *
 * Axes are linear from 0 or logarithmic in decades (SP_PLOT_LOGX/LOGY); on
 * a log axis a value <= 0 is drawn on the axis line. Colours and shapes are
 * in the <style> element, so the file opens in any browser and keeps its
 * data for scripts (data-* attributes, one group per size).
 */
#include "symprof/report.h"

#include <math.h>
#include <string.h>

#include "symprof/inputcost.h"
#include "symprof/profile.h"

#define W 820.0
#define H 540.0
#define LEFT 100.0
#define RIGHT (W - 30.0)
#define TOP 60.0
#define BOTTOM (H - 70.0)
#define CURVE_STEPS 160

struct axis {
	double lo, hi; /* data range (log10 of it on a log axis) */
	int log;
	double p0, p1; /* pixel positions of lo and hi */
};

static void xml_text(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&apos;", out);
			break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\t')
				fputc(*s, out);
		}
	}
}

static double nice_step(double range)
{
	double raw = range / 5, mag = pow(10, floor(log10(raw))), f = raw / mag;

	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

/* Sets the axis range from the data range [vmin, vmax]. */
static void axis_range(struct axis *a, double vmin, double vmax, int log_axis)
{
	a->log = log_axis;
	if (!(vmax > 0) || !isfinite(vmax))
		vmax = log_axis ? 10 : 1;
	if (log_axis) {
		if (!(vmin > 0) || !isfinite(vmin) || vmin > vmax)
			vmin = vmax / 10;
		a->lo = floor(log10(vmin));
		a->hi = ceil(log10(vmax));
		if (a->hi <= a->lo)
			a->hi = a->lo + 1;
		return;
	}
	a->lo = 0;
	a->hi = ceil(vmax / nice_step(vmax)) * nice_step(vmax);
}

static double pos(const struct axis *a, double v)
{
	double t;

	if (a->log)
		t = v > 0 ? (log10(v) - a->lo) / (a->hi - a->lo) : 0;
	else
		t = (v - a->lo) / (a->hi - a->lo);
	return a->p0 + t * (a->p1 - a->p0);
}

static void put_ticks(FILE *out, const struct axis *a, int vertical)
{
	double step = a->log ? 1 : nice_step(a->hi - a->lo);
	int k, n = (int)floor((a->hi - a->lo) / step + 1e-9);

	for (k = 0; k <= n && k <= 40; k++) {
		double t = a->lo + k * step, v = a->log ? pow(10, t) : t, p = pos(a, v);

		if (vertical)
			fprintf(out,
				"<line class=\"grid\" x1=\"%.1f\" y1=\"%.2f\" x2=\"%.1f\" "
				"y2=\"%.2f\"/>"
				"<text class=\"tick\" x=\"%.1f\" y=\"%.2f\" "
				"text-anchor=\"end\">%g</text>\n",
				LEFT, p, RIGHT, p, LEFT - 6, p + 4, v);
		else
			fprintf(out,
				"<line class=\"grid\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" "
				"y2=\"%.1f\"/>"
				"<text class=\"tick\" x=\"%.2f\" y=\"%.1f\" "
				"text-anchor=\"middle\">%g</text>\n",
				p, TOP, p, BOTTOM, p, BOTTOM + 18, v);
	}
}

static void put_frame(FILE *out, const struct sp_inputcost *ic, uint32_t routine,
		      const struct axis *x, const struct axis *y)
{
	const struct sp_profile *p = ic->p;
	const char *unit = p->ncounters ? p->counters[0].unit : "cost";

	fprintf(out,
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
		W, H, W, H);
	fputs("<style>\n"
	      "text { font-family: sans-serif; font-size: 12px; fill: #222; }\n"
	      ".title { font-size: 15px; font-weight: bold; }\n"
	      ".grid { stroke: #ddd; stroke-width: 1; }\n"
	      ".axis { stroke: #444; stroke-width: 1.2; fill: none; }\n"
	      ".worst { fill: #d62728; } .avg { fill: #1f77b4; } .best { fill: #2ca02c; }\n"
	      ".fit-worst { stroke: #d62728; } .fit-avg { stroke: #1f77b4; }\n"
	      ".fit-worst, .fit-avg { fill: none; stroke-width: 1.5; stroke-dasharray: 6 3; }\n"
	      ".band-worst { fill: #d62728; } .band-avg { fill: #1f77b4; }\n"
	      ".band-worst, .band-avg { fill-opacity: 0.15; stroke: none; }\n"
	      "</style>\n<title>",
	      out);
	xml_text(out, p->funcs[routine].name);
	fputs("</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
	      "<text class=\"title\" x=\"",
	      out);
	fprintf(out, "%.0f\" y=\"28\">Cost plot of ", LEFT);
	xml_text(out, p->funcs[routine].name);
	fputs("</text>\n", out);
	put_ticks(out, x, 0);
	put_ticks(out, y, 1);
	fprintf(out,
		"<rect class=\"axis\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n",
		LEFT, TOP, RIGHT - LEFT, BOTTOM - TOP);
	fprintf(out,
		"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">input size (%s%s)</text>\n",
		(LEFT + RIGHT) / 2, H - 25, p->aprof.input_metric, x->log ? ", log scale" : "");
	fprintf(out,
		"<text x=\"20\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 20 "
		"%.1f)\">cost per activation (%s%s)</text>\n",
		(TOP + BOTTOM) / 2, (TOP + BOTTOM) / 2, unit, y->log ? ", log scale" : "");
	fprintf(out,
		"<clipPath id=\"plot\"><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		"height=\"%.1f\"/></clipPath>\n",
		LEFT, TOP, RIGHT - LEFT, BOTTOM - TOP);
}

static void put_points(FILE *out, const struct sp_ic_entry *e, const struct axis *x,
		       const struct axis *y)
{
	size_t i;

	for (i = 0; i < e->npoints; i++) {
		const struct sp_ic_point *pt = &e->points[i];
		double px = pos(x, (double)pt->size);

		fprintf(out,
			"<g class=\"point\" data-size=\"%llu\" data-calls=\"%llu\">"
			"<title>size %llu: %llu calls, min %llu, avg %.2f, max %llu</title>",
			(unsigned long long)pt->size, (unsigned long long)pt->calls,
			(unsigned long long)pt->size, (unsigned long long)pt->calls,
			(unsigned long long)pt->min, pt->avg, (unsigned long long)pt->max);
		fprintf(out, "<circle class=\"worst\" cx=\"%.2f\" cy=\"%.2f\" r=\"3\"/>", px,
			pos(y, (double)pt->max));
		fprintf(out, "<circle class=\"avg\" cx=\"%.2f\" cy=\"%.2f\" r=\"2.5\"/>", px,
			pos(y, pt->avg));
		fprintf(out, "<circle class=\"best\" cx=\"%.2f\" cy=\"%.2f\" r=\"2\"/></g>\n", px,
			pos(y, (double)pt->min));
	}
}

static void put_curve(FILE *out, const struct sp_fit *f, const char *cls, const struct axis *x,
		      const struct axis *y)
{
	int k, pen = 0;

	if (!f->ok)
		return;
	fprintf(out, "<path class=\"%s\" clip-path=\"url(#plot)\" d=\"", cls);
	for (k = 0; k <= CURVE_STEPS; k++) {
		double t = x->lo + (x->hi - x->lo) * k / CURVE_STEPS;
		double v = x->log ? pow(10, t) : t, c = f->a + f->b * pow(v, f->c);

		if (!isfinite(c) || (y->log && c <= 0) || (f->c < 0 && v <= 0)) {
			pen = 0;
			continue;
		}
		fprintf(out, "%c%.2f %.2f ", pen ? 'L' : 'M', pos(x, v), pos(y, c));
		pen = 1;
	}
	fputs("\"/>\n", out);
}

/* The band of a fit (sp_fit_band()) over the measured sizes as one closed
 * path: its upper edge from left to right, its lower edge back. */
static void put_band(FILE *out, const struct sp_fit *f, const char *cls, const struct axis *x,
		     const struct axis *y)
{
	double px[CURVE_STEPS + 1], lo[CURVE_STEPS + 1], hi[CURVE_STEPS + 1], t0, t1;
	int k, n = 0;

	if (!f->ok)
		return;
	t0 = x->log ? log10(f->x_low) : f->x_min;
	t1 = x->log ? log10(f->x_max) : f->x_max;
	for (k = 0; k <= CURVE_STEPS; k++) {
		double t = t0 + (t1 - t0) * k / CURVE_STEPS;
		double v = x->log ? pow(10, t) : t, l, h;

		if (sp_fit_band(f, v, &l, &h))
			continue;
		px[n] = pos(x, v);
		lo[n] = fmax(-1e5, fmin(1e5, pos(y, l)));
		hi[n++] = fmax(-1e5, fmin(1e5, pos(y, h)));
	}
	if (n < 2)
		return;
	fprintf(out, "<path class=\"%s\" clip-path=\"url(#plot)\" d=\"", cls);
	for (k = 0; k < n; k++)
		fprintf(out, "%c%.2f %.2f ", k ? 'L' : 'M', px[k], hi[k]);
	for (k = n - 1; k >= 0; k--)
		fprintf(out, "L%.2f %.2f ", px[k], lo[k]);
	fputs("Z\"/>\n", out);
}

static void legend_item(FILE *out, int row, const char *cls, int line, const char *text,
			const struct sp_fit *f)
{
	double ly = TOP + 14 + 16 * row, lx = LEFT + 12;

	if (line)
		fprintf(out, "<path class=\"%s\" d=\"M%.1f %.1f L%.1f %.1f\"/>", cls, lx - 6,
			ly - 4, lx + 10, ly - 4);
	else
		fprintf(out, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\"/>", cls, lx + 2,
			ly - 4);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">%s", lx + 16, ly, text);
	if (f)
		fprintf(out, ": %.4g %c %.4g x^%.3f (R2 %.4f), c = %.2f [%.2f, %.2f] (band)", f->a,
			f->b < 0 ? '-' : '+', fabs(f->b), f->c, f->r2, f->c, f->c_lo, f->c_hi);
	fputs("</text>\n", out);
}

void sp_report_aprof_svg(FILE *out, const struct sp_inputcost *ic, uint32_t routine, unsigned axes)
{
	const struct sp_ic_entry *e = &ic->routines[routine];
	struct axis x, y;
	double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0;
	size_t i;
	int row = 0;

	for (i = 0; i < e->npoints; i++) {
		const struct sp_ic_point *pt = &e->points[i];

		if (pt->size > 0 && (double)pt->size < xmin)
			xmin = (double)pt->size;
		if ((double)pt->size > xmax)
			xmax = (double)pt->size;
		if (pt->min > 0 && (double)pt->min < ymin)
			ymin = (double)pt->min;
		if ((double)pt->max > ymax)
			ymax = (double)pt->max;
	}
	axis_range(&x, xmin, xmax, !!(axes & SP_PLOT_LOGX));
	axis_range(&y, ymin, ymax, !!(axes & SP_PLOT_LOGY));
	x.p0 = LEFT;
	x.p1 = RIGHT;
	y.p0 = BOTTOM;
	y.p1 = TOP;
	put_frame(out, ic, routine, &x, &y);
	put_band(out, &e->worst, "band-worst", &x, &y);
	put_band(out, &e->avg, "band-avg", &x, &y);
	put_curve(out, &e->worst, "fit-worst", &x, &y);
	put_curve(out, &e->avg, "fit-avg", &x, &y);
	put_points(out, e, &x, &y);
	legend_item(out, row++, "worst", 0, "worst (max)", NULL);
	legend_item(out, row++, "avg", 0, "average", NULL);
	legend_item(out, row++, "best", 0, "best (min)", NULL);
	if (e->worst.ok)
		legend_item(out, row++, "fit-worst", 1, "worst-case fit", &e->worst);
	if (e->avg.ok)
		legend_item(out, row++, "fit-avg", 1, "average fit", &e->avg);
	fputs("</svg>\n", out);
}
