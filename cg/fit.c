/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Growth fits: the least-squares fit of cost = a + b * x^c to the points of
 * a cost plot (one point per input size), with its R^2.
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
 * returns the exponent to about 1e-6 (tests/unit/test-fit.c).
 *
 * The data are scaled to x / max(x) and y / max(y) first, so that x^c stays
 * in (0, 1] for every c >= 0 and sizes of 10^9 with c = 6 do not overflow;
 * a, b and SS are scaled back at the end.
 */
#include "symprof/inputcost.h"

#include <math.h>
#include <stdlib.h>

#include "symprof/alloc.h"

#define GRID_STEP 0.1
#define GOLDEN_TOL 1e-7

struct series {
	const double *lx; /* log of scaled x */
	const double *y;  /* scaled y */
	size_t n;
	double ymean, syy;
};

/* The best a, b for exponent c and the residual sum of squares. */
static double ss_at(const struct series *s, double c, double *a, double *b)
{
	double zmean = 0, szz = 0, szy = 0, ss;
	size_t i;

	for (i = 0; i < s->n; i++)
		zmean += exp(c * s->lx[i]);
	zmean /= (double)s->n;
	for (i = 0; i < s->n; i++) {
		double dz = exp(c * s->lx[i]) - zmean;

		szz += dz * dz;
		szy += dz * (s->y[i] - s->ymean);
	}
	if (szz <= 0 || !isfinite(szz)) {
		*b = 0;
		*a = s->ymean;
		return s->syy;
	}
	*b = szy / szz;
	*a = s->ymean - *b * zmean;
	ss = s->syy - szy * szy / szz;
	return ss < 0 ? 0 : ss;
}

/* Golden-section search for the minimum of SS on [lo, hi]. */
static double golden(const struct series *s, double lo, double hi)
{
	const double g = 0.6180339887498949;
	double a, b, c1 = hi - g * (hi - lo), c2 = lo + g * (hi - lo);
	double f1 = ss_at(s, c1, &a, &b), f2 = ss_at(s, c2, &a, &b);

	while (hi - lo > GOLDEN_TOL) {
		if (f1 <= f2) {
			hi = c2;
			c2 = c1;
			f2 = f1;
			c1 = hi - g * (hi - lo);
			f1 = ss_at(s, c1, &a, &b);
		} else {
			lo = c1;
			c1 = c2;
			f1 = f2;
			c2 = lo + g * (hi - lo);
			f2 = ss_at(s, c2, &a, &b);
		}
	}
	return (lo + hi) / 2;
}

/* The exponent with the least SS: grid scan, then golden section around
 * the best grid point. */
static double best_exponent(const struct series *s, double cmin, double cmax)
{
	double best_c = cmin, best = INFINITY, a, b, c, lo, hi;
	int k, steps = (int)ceil((cmax - cmin) / GRID_STEP);

	for (k = 0; k <= steps; k++) {
		double ss;

		c = cmin + (cmax - cmin) * k / steps;
		ss = ss_at(s, c, &a, &b);
		if (ss < best) {
			best = ss;
			best_c = c;
		}
	}
	lo = best_c - GRID_STEP < cmin ? cmin : best_c - GRID_STEP;
	hi = best_c + GRID_STEP > cmax ? cmax : best_c + GRID_STEP;
	c = golden(s, lo, hi);
	return ss_at(s, c, &a, &b) <= best ? c : best_c;
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

int sp_fit_power(const double *x, const double *y, size_t n, struct sp_fit *out)
{
	double xmax = 0, ymax = 0, *lx, *ys, a, b, c, ss, cmin = SP_FIT_C_MIN;
	struct series s;
	size_t i;

	out->a = out->b = out->c = out->r2 = 0;
	out->n = (unsigned)n;
	out->ok = 0;
	for (i = 0; i < n; i++) {
		if (!(x[i] >= 0) || !(y[i] >= 0) || !isfinite(x[i]) || !isfinite(y[i]))
			return -1;
		xmax = x[i] > xmax ? x[i] : xmax;
		ymax = y[i] > ymax ? y[i] : ymax;
		if (x[i] == 0 && cmin < SP_FIT_C_ZERO_MIN)
			cmin = SP_FIT_C_ZERO_MIN;
	}
	if (distinct(x, n) < SP_FIT_MIN_POINTS || xmax <= 0)
		return -1;
	lx = sp_xmalloc(n * sizeof(*lx));
	ys = sp_xmalloc(n * sizeof(*ys));
	s.lx = lx;
	s.y = ys;
	s.n = n;
	s.ymean = s.syy = 0;
	for (i = 0; i < n; i++) {
		lx[i] = x[i] > 0 ? log(x[i] / xmax) : -INFINITY;
		ys[i] = ymax > 0 ? y[i] / ymax : 0;
		s.ymean += ys[i];
	}
	s.ymean /= (double)n;
	for (i = 0; i < n; i++)
		s.syy += (ys[i] - s.ymean) * (ys[i] - s.ymean);
	out->ok = 1;
	if (s.syy <= 1e-24) {
		/* a constant: no growth */
		out->a = s.ymean * ymax;
		out->r2 = 1;
	} else {
		c = best_exponent(&s, cmin, SP_FIT_C_MAX);
		ss = ss_at(&s, c, &a, &b);
		out->a = a * ymax;
		out->b = b * ymax / pow(xmax, c);
		out->c = c;
		out->r2 = 1 - ss / s.syy;
	}
	free(lx);
	free(ys);
	return 0;
}

double sp_fit_growth(const struct sp_fit *f)
{
	if (!f->ok)
		return NAN;
	return f->b > 0 && f->c > 0 ? f->c : 0;
}

int sp_fit_trusted(const struct sp_fit *f)
{
	return f->ok && f->r2 >= SP_FIT_GOOD_R2 && f->n >= SP_FIT_GOOD_POINTS;
}
