/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Growth fits: the least-squares fit of cost = a + b * x^c to the points of
 * a cost plot (one point per input size), its R^2 and a 95% interval for
 * the exponent c.
 *
 * The model is separable: for a fixed exponent c it is linear in a and b,
 * whose least-squares values then have a closed form (a straight-line
 * regression of y on x^c). What is left is the one-dimensional function
 * SS(c), the residual sum of squares at the best a and b for that c
 * (variable projection, Golub and Pereyra). It is scanned on a grid over
 * [SP_FIT_C_MIN, SP_FIT_C_MAX] and the best grid cell is refined by golden
 * section search. Unlike Levenberg-Marquardt from a starting guess, this
 * cannot stop in a local minimum between grid points further apart than
 * SS's basins, needs no derivatives and never diverges; on exact curves it
 * returns the exponent to about 1e-6 (tests/unit/test-fit.c). The
 * regressor is (x^c - 1) / c rather than x^c: the same fit for every
 * c != 0 (an affine change of b and a), but continuous through c = 0,
 * where it becomes log x, so SS(c) has no false spike there.
 *
 * The interval is the profile-likelihood one (Bates and Watts, "Nonlinear
 * Regression Analysis", 6.1): the exponents c whose SS(c), with a and b
 * refitted, stays within
 *
 *     SS(c) <= SS(c^) * (1 + t^2 / (n - 3)),   t = t(0.975, n - 3)
 *
 * of the best fit's, the F test of the model with c fixed against c free.
 * It is exact for a model linear in c and, unlike a standard error from the
 * Jacobian, follows SS's real shape (its intervals are not symmetric, and
 * hold on 8 points as on 10,000); it needs a few dozen more evaluations of
 * SS (no resampling, nothing random). Its bounds are found on the grid's
 * values of SS, from outside in, then by bisection to 1e-7.
 *
 * No fit is reported where the data cannot support one: fewer than
 * SP_FIT_MIN_SIZES distinct sizes, sizes spanning less than a factor of
 * SP_FIT_MIN_SPAN, a constant cost, or an exponent or interval that reaches
 * a bound of the search (an exponent found there is the bound, not an
 * estimate).
 *
 * The data are scaled to x / max(x) and y / max(y) first, so that x^c stays
 * in (0, 1] for every c >= 0 and sizes of 10^9 with c = 6 do not overflow;
 * a, b and SS are scaled back at the end.
 */
#include "symprof/inputcost.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"

#define GRID_STEP 0.1
#define GRID_MAX 128 /* grid points: (SP_FIT_C_MAX - SP_FIT_C_MIN) / GRID_STEP + 1 */
#define GOLDEN_TOL 1e-7
#define BISECT_TOL 1e-7
#define BOUND_TOL 1e-4 /* an exponent this close to a bound is the bound */
#define PI 3.14159265358979323846

struct series {
	const double *lx; /* log of scaled x */
	const double *y;  /* scaled y */
	double *z;	  /* scratch: the regressor at the c of the last ss_at() */
	size_t n;
	double ymean, syy;
};

/* (x^c - 1) / c from lx = log x; log x at c = 0 */
static double regressor(double lx, double c)
{
	return c == 0 ? lx : expm1(c * lx) / c;
}

/* The best a, b (of y = a + b * regressor) for exponent c and the
 * residual sum of squares. */
static double ss_at(const struct series *s, double c, double *a, double *b)
{
	double zmean = 0, szz = 0, szy = 0, ss = 0;
	size_t i;

	for (i = 0; i < s->n; i++) {
		s->z[i] = regressor(s->lx[i], c);
		zmean += s->z[i];
	}
	zmean /= (double)s->n;
	for (i = 0; i < s->n; i++) {
		double dz = s->z[i] - zmean;

		szz += dz * dz;
		szy += dz * (s->y[i] - s->ymean);
	}
	if (!(szz > 0) || !isfinite(szz)) {
		*b = 0;
		*a = s->ymean;
		return s->syy;
	}
	*b = szy / szz;
	*a = s->ymean - *b * zmean;
	/* summed directly: syy - szy^2 / szz loses the digits of a close fit */
	for (i = 0; i < s->n; i++) {
		double r = s->y[i] - *a - *b * s->z[i];

		ss += r * r;
	}
	return ss;
}

static double ss_of(const struct series *s, double c)
{
	double a, b;

	return ss_at(s, c, &a, &b);
}

/* Golden-section search for the minimum of SS on [lo, hi]. */
static double golden(const struct series *s, double lo, double hi)
{
	const double g = 0.6180339887498949;
	double c1 = hi - g * (hi - lo), c2 = lo + g * (hi - lo);
	double f1 = ss_of(s, c1), f2 = ss_of(s, c2);

	while (hi - lo > GOLDEN_TOL) {
		if (f1 <= f2) {
			hi = c2;
			c2 = c1;
			f2 = f1;
			c1 = hi - g * (hi - lo);
			f1 = ss_of(s, c1);
		} else {
			lo = c1;
			c1 = c2;
			f1 = f2;
			c2 = lo + g * (hi - lo);
			f2 = ss_of(s, c2);
		}
	}
	return (lo + hi) / 2;
}

/* SS on the grid of exponents over [cmin, cmax]. */
struct grid {
	double cmin, cmax, ss[GRID_MAX];
	int steps;
};

static double grid_c(const struct grid *g, int k)
{
	return g->cmin + (g->cmax - g->cmin) * k / g->steps;
}

/* The exponent with the least SS: grid scan, then golden section around
 * the best grid point. */
static double best_exponent(const struct series *s, struct grid *g)
{
	double best = INFINITY, best_c = g->cmin, c, lo, hi;
	int k, kbest = 0;

	g->steps = (int)ceil((g->cmax - g->cmin) / GRID_STEP);
	if (g->steps > GRID_MAX - 1)
		g->steps = GRID_MAX - 1;
	for (k = 0; k <= g->steps; k++) {
		g->ss[k] = ss_of(s, grid_c(g, k));
		if (g->ss[k] < best) {
			best = g->ss[k];
			kbest = k;
		}
	}
	best_c = grid_c(g, kbest);
	lo = grid_c(g, kbest > 0 ? kbest - 1 : 0);
	hi = grid_c(g, kbest < g->steps ? kbest + 1 : g->steps);
	c = golden(s, lo, hi);
	return ss_of(s, c) <= best ? c : best_c;
}

/* The point where SS crosses `thr` between `out` (SS above) and `in`
 * (SS at most thr), by bisection. */
static double crossing(const struct series *s, double out, double in, double thr)
{
	while (fabs(in - out) > BISECT_TOL) {
		double mid = (in + out) / 2;

		if (ss_of(s, mid) <= thr)
			in = mid;
		else
			out = mid;
	}
	return (in + out) / 2;
}

/*
 * The interval {c : SS(c) <= thr} around c^ (its outermost points the grid
 * sees): from the bound `dir` (-1: the lower, +1: the upper) inwards, the
 * first grid point within thr, or c^; the bound itself when SS there is
 * within thr (the interval is open on that side: returns 1).
 */
static int interval_end(const struct series *s, const struct grid *g, double chat, double thr,
			int dir, double *end)
{
	int k = dir < 0 ? 0 : g->steps, step = -dir, prev;

	if (g->ss[k] <= thr) {
		*end = grid_c(g, k);
		return 1;
	}
	for (prev = k, k += step; k >= 0 && k <= g->steps; prev = k, k += step) {
		double c = grid_c(g, k);

		if (dir < 0 ? c >= chat : c <= chat)
			break;
		if (g->ss[k] <= thr) {
			*end = crossing(s, grid_c(g, prev), c, thr);
			return 0;
		}
	}
	*end = crossing(s, grid_c(g, prev), chat, thr);
	return 0;
}

/* Counts the distinct x values (x is sorted ascending or not: O(n^2) is
 * avoided by checking sortedness first). */
static size_t distinct(const double *x, size_t n)
{
	size_t i, j, d = 0;
	int sorted = 1;

	for (i = 1; i < n && sorted; i++)
		sorted = x[i - 1] <= x[i];
	for (i = 0; i < n; i++) {
		if (sorted) {
			d += i == 0 || x[i] != x[i - 1];
			continue;
		}
		for (j = 0; j < i && x[j] != x[i]; j++)
			;
		d += j == i;
	}
	return d;
}

/* P(|T| <= t) for Student's t with nu degrees of freedom: the closed
 * forms for integer nu (Abramowitz and Stegun 26.7.3, 26.7.4). */
static double t_central(double t, unsigned nu)
{
	double th = atan(t / sqrt((double)nu)), sn = sin(th), c2 = cos(th) * cos(th);
	double term, sum;
	unsigned k;

	if (nu % 2 == 0) {
		for (term = sum = 1, k = 2; k + 2 <= nu; k += 2) {
			term *= c2 * (double)(k - 1) / (double)k;
			sum += term;
		}
		return sn * sum;
	}
	if (nu == 1)
		return 2 * th / PI;
	for (term = sum = cos(th), k = 3; k + 2 <= nu; k += 2) {
		term *= c2 * (double)(k - 1) / (double)k;
		sum += term;
	}
	return 2 / PI * (th + sn * sum);
}

double sp_student_t975(unsigned nu)
{
	const double z = 1.959963984540054; /* the normal's 0.975 quantile */
	double lo = 1.9, hi = 13, z2 = z * z, v;

	if (nu == 0)
		return INFINITY;
	if (nu >= 30) {
		/* Cornish-Fisher expansion in 1 / nu: within 1e-7 from 30 on */
		v = (double)nu;
		return z + z * (z2 + 1) / 4 / v + z * ((5 * z2 + 16) * z2 + 3) / 96 / (v * v) +
		       z * (((3 * z2 + 19) * z2 + 17) * z2 - 15) / 384 / (v * v * v) +
		       z * ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) / 92160 /
			       (v * v * v * v);
	}
	while (hi - lo > 1e-12) {
		double mid = (lo + hi) / 2;

		if (t_central(mid, nu) < 0.95)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

static int no_fit(struct sp_fit *out, enum sp_fit_none why)
{
	out->ok = 0;
	out->none = why;
	return -1;
}

/* The checks on the sizes alone: values, distinct sizes, span. Sets x_min,
 * x_max, x_low, sizes; 0 if a fit may be tried. */
static int check_sizes(const double *x, const double *y, size_t n, struct sp_fit *out)
{
	size_t i;

	out->x_min = n ? INFINITY : 0;
	for (i = 0; i < n; i++) {
		if (!(x[i] >= 0) || !(y[i] >= 0) || !isfinite(x[i]) || !isfinite(y[i])) {
			out->x_min = out->x_max = out->x_low = 0;
			return no_fit(out, SP_FIT_BAD_VALUES);
		}
		out->x_min = x[i] < out->x_min ? x[i] : out->x_min;
		out->x_max = x[i] > out->x_max ? x[i] : out->x_max;
		if (x[i] > 0 && (out->x_low == 0 || x[i] < out->x_low))
			out->x_low = x[i];
	}
	out->sizes = (unsigned)distinct(x, n);
	if (out->sizes < out->min_sizes)
		return no_fit(out, SP_FIT_FEW_SIZES);
	if (!(out->x_max >= SP_FIT_MIN_SPAN * out->x_low) || out->x_low <= 0)
		return no_fit(out, SP_FIT_NARROW);
	return 0;
}

/* a and b of cost = a + b * x^c in the profile's units from those of the
 * regressor (x^c - 1) / c of the scaled series */
static void unscale(const struct series *s, double c, double xmax, double ymax, double *a,
		    double *b)
{
	double as, bs;

	if (c == 0)
		c = 1e-6; /* log x is no power: the nearest one */
	ss_at(s, c, &as, &bs);
	*b = bs / c * ymax / pow(xmax, c);
	*a = (as - bs / c) * ymax;
}

/* The fit of the scaled series: c, a, b, R^2 and the interval. */
static int fit_series(const struct series *s, double cmin, double xmax, double ymax,
		      struct sp_fit *out)
{
	struct grid g;
	double c, ss, thr, t;

	g.cmin = cmin;
	g.cmax = SP_FIT_C_MAX;
	c = best_exponent(s, &g);
	if (c - cmin < BOUND_TOL || SP_FIT_C_MAX - c < BOUND_TOL) {
		out->bound = c - cmin < BOUND_TOL ? cmin : SP_FIT_C_MAX;
		return no_fit(out, SP_FIT_AT_BOUND);
	}
	ss = ss_of(s, c);
	out->c = c;
	unscale(s, c, xmax, ymax, &out->a, &out->b);
	out->r2 = 1 - ss / s->syy;
	t = sp_student_t975((unsigned)(s->n - 3));
	thr = ss * (1 + t * t / (double)(s->n - 3));
	if (interval_end(s, &g, c, thr, -1, &out->c_lo) ||
	    interval_end(s, &g, c, thr, 1, &out->c_hi)) {
		out->bound = out->c_lo <= cmin ? cmin : SP_FIT_C_MAX;
		out->c_lo = out->c_hi = 0;
		return no_fit(out, SP_FIT_UNDETERMINED);
	}
	unscale(s, out->c_lo, xmax, ymax, &out->a_lo, &out->b_lo);
	unscale(s, out->c_hi, xmax, ymax, &out->a_hi, &out->b_hi);
	out->ok = 1;
	return 0;
}

int sp_fit_power(const double *x, const double *y, size_t n, unsigned min_sizes, struct sp_fit *out)
{
	double ymax = 0, *lx, *ys, *z, cmin;
	struct series s;
	size_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	out->n = (unsigned)n;
	out->min_sizes = min_sizes > SP_FIT_MIN_SIZES ? min_sizes : SP_FIT_MIN_SIZES;
	if (check_sizes(x, y, n, out))
		return -1;
	cmin = out->x_min == 0 ? SP_FIT_C_ZERO_MIN : SP_FIT_C_MIN;
	for (i = 0; i < n; i++)
		ymax = y[i] > ymax ? y[i] : ymax;
	lx = sp_xmalloc(3 * n * sizeof(*lx));
	ys = lx + n;
	z = ys + n;
	s.lx = lx;
	s.y = ys;
	s.z = z;
	s.n = n;
	s.ymean = s.syy = 0;
	for (i = 0; i < n; i++) {
		lx[i] = x[i] > 0 ? log(x[i] / out->x_max) : -INFINITY;
		ys[i] = ymax > 0 ? y[i] / ymax : 0;
		s.ymean += ys[i];
	}
	s.ymean /= (double)n;
	for (i = 0; i < n; i++)
		s.syy += (ys[i] - s.ymean) * (ys[i] - s.ymean);
	if (s.syy <= 1e-24)
		rc = no_fit(out, SP_FIT_CONSTANT);
	else
		rc = fit_series(&s, cmin, out->x_max, ymax, out);
	free(lx);
	return rc;
}

const char *sp_fit_reason(const struct sp_fit *f, char *buf, size_t len)
{
	switch (f->ok ? SP_FIT_FITTED : f->none) {
	case SP_FIT_FITTED:
		snprintf(buf, len, "%s", "");
		break;
	case SP_FIT_BAD_VALUES:
		snprintf(buf, len, "a size or cost is negative or not finite");
		break;
	case SP_FIT_FEW_SIZES:
		snprintf(buf, len, "%u input size%s, fewer than %u", f->sizes,
			 f->sizes == 1 ? "" : "s", f->min_sizes);
		break;
	case SP_FIT_NARROW:
		snprintf(buf, len, "%sinput sizes span %.0f..%.0f", f->x_min > 0 ? "" : "nonzero ",
			 f->x_low, f->x_max);
		break;
	case SP_FIT_CONSTANT:
		snprintf(buf, len, "the same cost at every input size");
		break;
	case SP_FIT_AT_BOUND:
		snprintf(buf, len, "best exponent at the search bound %g", f->bound);
		break;
	case SP_FIT_UNDETERMINED:
		snprintf(buf, len, "exponent not determined: its 95%% interval reaches %g",
			 f->bound);
		break;
	}
	return buf;
}

int sp_fit_band(const struct sp_fit *f, double x, double *lo, double *hi)
{
	double v[3];
	int i;

	if (!f->ok)
		return -1;
	v[0] = f->a_lo + f->b_lo * pow(x, f->c_lo);
	v[1] = f->a + f->b * pow(x, f->c);
	v[2] = f->a_hi + f->b_hi * pow(x, f->c_hi);
	for (i = 0; i < 3; i++)
		if (!isfinite(v[i]))
			return -1;
	*lo = fmin(v[0], fmin(v[1], v[2]));
	*hi = fmax(v[0], fmax(v[1], v[2]));
	return 0;
}

double sp_fit_growth(const struct sp_fit *f)
{
	if (!f->ok)
		return NAN;
	return f->b > 0 && f->c > 0 ? f->c_lo : -INFINITY;
}
