/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Unit tests of the growth fitter (cg/fit.c): exact curves, the cases
 * without a fit and their reasons, Student's t, and the coverage of the
 * 95% interval of the exponent on seeded noisy curves of known growth.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>

#include "suites.h"
#include "symprof/inputcost.h"

#define MAX_POINTS 400

static void fit_curve(double a, double b, double c, double x0, double step, size_t n,
		      struct sp_fit *f)
{
	double x[MAX_POINTS], y[MAX_POINTS];
	size_t i;

	for (i = 0; i < n; i++) {
		x[i] = x0 + step * (double)i;
		y[i] = a + b * pow(x[i], c);
	}
	CU_ASSERT_EQUAL(sp_fit_power(x, y, n, 0, f), 0);
}

static void test_exact(void)
{
	static const struct {
		double a, b, c, x0, step;
	} cases[] = {
		{3, 2, 2, 1, 1},	 {0, 5, 1, 1, 3},
		{100, 0.5, 1.5, 10, 10}, {10, 1000, 0.5, 1, 7},
		{1, 3e-6, 3, 1e3, 1e3},	 {50, 2, 0.25, 2, 5},
		{7, 1, 4, 1, 1},	 {1e6, 1e-3, 2.5, 100, 250},
		{5, 100, -0.5, 1, 2},	 {1, 2, 0.01, 1, 10},
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sp_fit f;

		fit_curve(cases[i].a, cases[i].b, cases[i].c, cases[i].x0, cases[i].step, 60, &f);
		CU_ASSERT(f.ok);
		CU_ASSERT_DOUBLE_EQUAL(f.c, cases[i].c, 1e-5);
		CU_ASSERT_DOUBLE_EQUAL(f.b / cases[i].b, 1, 1e-4);
		CU_ASSERT_DOUBLE_EQUAL(
			f.a, cases[i].a,
			1e-4 * (1 + fabs(cases[i].a)) +
				1e-6 * fabs(cases[i].b) *
					pow(cases[i].x0 + 59 * cases[i].step, cases[i].c));
		CU_ASSERT(f.r2 > 1 - 1e-9);
		/* an exact curve: the interval is the exponent itself */
		CU_ASSERT(f.c_lo <= f.c && f.c <= f.c_hi);
		CU_ASSERT(f.c_hi - f.c_lo < 1e-3);
		CU_ASSERT_EQUAL(f.n, 60);
		CU_ASSERT_EQUAL(f.sizes, 60);
		CU_ASSERT_EQUAL(f.x_min, cases[i].x0);
		CU_ASSERT_EQUAL(f.x_max, cases[i].x0 + 59 * cases[i].step);
	}
}

static void test_large_sizes(void)
{
	struct sp_fit f;

	/* x up to 10^9 with c = 5.5 must not overflow */
	fit_curve(0, 1e-40, 5.5, 1e7, 2e7, 50, &f);
	CU_ASSERT(f.ok);
	CU_ASSERT_DOUBLE_EQUAL(f.c, 5.5, 1e-4);
	fit_curve(5, 2, 3, 1e6, 1e6, 40, &f);
	CU_ASSERT_DOUBLE_EQUAL(f.c, 3, 1e-5);
}

static void test_decreasing(void)
{
	struct sp_fit f;

	fit_curve(500, -3, 0.5, 1, 4, 30, &f);
	CU_ASSERT(f.ok);
	CU_ASSERT_DOUBLE_EQUAL(f.c, 0.5, 1e-5);
	CU_ASSERT(f.b < 0);
	CU_ASSERT_EQUAL(sp_fit_growth(&f), -INFINITY); /* falls: ranked after growth */
	fit_curve(1, 2, 1.5, 1, 1, 30, &f);
	CU_ASSERT_DOUBLE_EQUAL(sp_fit_growth(&f), f.c_lo, 1e-12);
}

/* No fit: fit_curve's points with one change, and the reason. */
static void check_refused(const double *x, const double *y, size_t n, unsigned min_sizes,
			  enum sp_fit_none none, const char *why)
{
	struct sp_fit f;
	char buf[128];

	memset(&f, 0x5a, sizeof(f));
	CU_ASSERT_EQUAL(sp_fit_power(x, y, n, min_sizes, &f), -1);
	CU_ASSERT_FALSE(f.ok);
	CU_ASSERT_EQUAL(f.none, none);
	CU_ASSERT(isnan(sp_fit_growth(&f)));
	CU_ASSERT_STRING_EQUAL(sp_fit_reason(&f, buf, sizeof(buf)), why);
	CU_ASSERT_EQUAL(f.c, 0);
	CU_ASSERT_EQUAL(f.c_lo, 0);
	CU_ASSERT_EQUAL(f.c_hi, 0);
}

static void test_refuses(void)
{
	double x[40], y[40];
	size_t i;

	for (i = 0; i < 40; i++) {
		x[i] = (double)(i + 1);
		y[i] = 10 + x[i] * x[i];
	}
	check_refused(x, y, 4, 0, SP_FIT_FEW_SIZES, "4 input sizes, fewer than 8");
	check_refused(x, y, 7, 0, SP_FIT_FEW_SIZES, "7 input sizes, fewer than 8");
	check_refused(x, y, 1, 0, SP_FIT_FEW_SIZES, "1 input size, fewer than 8");
	check_refused(x, y, 0, 0, SP_FIT_FEW_SIZES, "0 input sizes, fewer than 8");
	check_refused(x, y, 20, 30, SP_FIT_FEW_SIZES, "20 input sizes, fewer than 30");
	/* 40 points, 4 distinct sizes */
	for (i = 0; i < 40; i++)
		x[i] = (double)(1 + i % 4);
	check_refused(x, y, 40, 0, SP_FIT_FEW_SIZES, "4 input sizes, fewer than 8");
	/* a narrow range: sizes 100..157, the example of issue 18 */
	for (i = 0; i < 31; i++) {
		x[i] = 100 + (double)(57 * i / 30);
		y[i] = 80 + 1e-10 * pow(x[i], 5);
	}
	check_refused(x, y, 31, 0, SP_FIT_NARROW, "input sizes span 100..157");
	x[0] = 0;
	x[1] = 80; /* 80..157: still less than a factor of 2 above 0 */
	check_refused(x, y, 31, 0, SP_FIT_NARROW, "nonzero input sizes span 80..157");
	x[1] = 75; /* 75..157 spans more than 2: fitted */
	y[0] = 80;
	y[1] = 80 + 1e-10 * pow(75, 5);
	CU_ASSERT_EQUAL(sp_fit_power(x, y, 31, 0, &(struct sp_fit){0}), 0);
	for (i = 0; i < 31; i++)
		y[i] = 42;
	check_refused(x, y, 31, 0, SP_FIT_CONSTANT, "the same cost at every input size");
	y[3] = -1;
	check_refused(x, y, 31, 0, SP_FIT_BAD_VALUES, "a size or cost is negative or not finite");
	y[3] = NAN;
	check_refused(x, y, 31, 0, SP_FIT_BAD_VALUES, "a size or cost is negative or not finite");
}

static void test_bounds(void)
{
	double x[30], y[30];
	size_t i;

	/* steeper than x^6: the best exponent is the bound, not an estimate */
	for (i = 0; i < 30; i++) {
		x[i] = (double)(i + 1);
		y[i] = exp(x[i]);
	}
	check_refused(x, y, 30, 0, SP_FIT_AT_BOUND, "best exponent at the search bound 6");
	/* no growth but noise: the exponent is anything */
	for (i = 0; i < 30; i++)
		y[i] = 1000 + (double)((i * 7919) % 13);
	{
		struct sp_fit f;
		char buf[128];

		CU_ASSERT_EQUAL(sp_fit_power(x, y, 30, 0, &f), -1);
		CU_ASSERT(f.none == SP_FIT_AT_BOUND || f.none == SP_FIT_UNDETERMINED);
		sp_fit_reason(&f, buf, sizeof(buf));
		CU_ASSERT(strstr(buf, "search bound") || strstr(buf, "interval reaches"));
	}
}

static void test_zero_size_and_noise(void)
{
	double x[200], y[200];
	uint64_t s = 88172645463325252ULL;
	struct sp_fit f;
	size_t i;

	for (i = 0; i < 200; i++) {
		double noise;

		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		noise = (double)(s % 2001) / 1000.0 - 1.0; /* [-1, 1] */
		x[i] = (double)i;			   /* x = 0 included */
		y[i] = 20 + 0.25 * x[i] * x[i] * (1 + 0.05 * noise);
	}
	CU_ASSERT_EQUAL(sp_fit_power(x, y, 200, 0, &f), 0);
	CU_ASSERT_DOUBLE_EQUAL(f.c, 2, 0.05); /* 5% noise: 1.978 */
	CU_ASSERT(f.r2 > 0.99);
	CU_ASSERT(f.c_lo < f.c && f.c < f.c_hi && f.c_hi - f.c_lo < 0.1);
	CU_ASSERT_EQUAL(f.x_min, 0);
	CU_ASSERT_EQUAL(f.x_low, 1);
	/* the band: the fitted curve inside, open at the ends of the sizes */
	for (i = 0; i < 200; i += 11) {
		double lo, hi, v = f.a + f.b * pow(x[i], f.c);

		CU_ASSERT_EQUAL_FATAL(sp_fit_band(&f, x[i], &lo, &hi), 0);
		CU_ASSERT(lo <= v + 1e-9 && v <= hi + 1e-9);
	}
	{
		double lo, hi;

		sp_fit_band(&f, 199, &lo, &hi);
		CU_ASSERT(hi - lo > 0 && hi - lo < 0.1 * hi);
		CU_ASSERT_DOUBLE_EQUAL(f.a_lo + f.b_lo * pow(199, f.c_lo), lo, 1e-9 * hi);
	}
	f.ok = 0;
	CU_ASSERT_EQUAL(sp_fit_band(&f, 10, &(double){0}, &(double){0}), -1);
}

static void test_student_t(void)
{
	static const struct {
		unsigned nu;
		double t;
	} known[] = {
		{1, 12.7062047}, {2, 4.3026527},   {3, 3.1824463},     {5, 2.5705818},
		{8, 2.3060041},	 {10, 2.2281389},  {29, 2.0452296},    {30, 2.0422725},
		{60, 2.0002978}, {100, 1.9839715}, {10000, 1.9602012},
	};
	size_t i;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		CU_ASSERT_DOUBLE_EQUAL(sp_student_t975(known[i].nu), known[i].t, 1e-6);
	CU_ASSERT(isinf(sp_student_t975(0)));
}

/* ---- coverage of the interval ---- */

static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/* A standard normal deviate (Box-Muller). */
static double gauss(uint64_t *s)
{
	double u1 = ((double)(rng_next(s) >> 11) + 0.5) / 9007199254740992.0;
	double u2 = ((double)(rng_next(s) >> 11) + 0.5) / 9007199254740992.0;

	return sqrt(-2 * log(u1)) * cos(2 * 3.14159265358979323846 * u2);
}

enum model { POW_1, POW_1_5, POW_2, N_LOG_N };

/* 100 + 1000 * g(x) / g(1000) for the growth g of the model */
static double model_at(enum model m, double x)
{
	switch (m) {
	case POW_1:
		return 100 + x;
	case POW_1_5:
		return 100 + 1000 * pow(x / 1000, 1.5);
	case POW_2:
		return 100 + 1000 * (x / 1000) * (x / 1000);
	case N_LOG_N:
		break;
	}
	return 100 + x * log(x) / log(1000);
}

struct trials {
	enum model m;
	size_t n;	  /* sizes, 10 to 1000 */
	double noise;	  /* standard deviation, a share of the largest cost */
	unsigned inside;  /* trials whose interval holds the true exponent */
	unsigned refused; /* trials without a fit */
	double width;	  /* mean width of the intervals */
	double c_true;	  /* the exponent of the noiseless curve */
};

#define TRIALS 200

static void run_trials(struct trials *t, uint64_t seed)
{
	double x[MAX_POINTS], y0[MAX_POINTS], y[MAX_POINTS];
	struct sp_fit f;
	size_t i;
	int k;

	for (i = 0; i < t->n; i++) {
		x[i] = 10 + 990 * (double)i / (double)(t->n - 1);
		y0[i] = model_at(t->m, x[i]);
	}
	/* n log n is no power of n: its exponent is the best power's over
	 * these sizes, what the fit of the exact curve finds */
	CU_ASSERT_EQUAL_FATAL(sp_fit_power(x, y0, t->n, 0, &f), 0);
	t->c_true = t->m == POW_1 ? 1 : t->m == POW_1_5 ? 1.5 : t->m == POW_2 ? 2 : f.c;
	t->inside = t->refused = 0;
	t->width = 0;
	for (k = 0; k < TRIALS; k++) {
		for (i = 0; i < t->n; i++)
			y[i] = y0[i] + t->noise * y0[t->n - 1] * gauss(&seed);
		if (sp_fit_power(x, y, t->n, 0, &f)) {
			t->refused++;
			continue;
		}
		CU_ASSERT(f.c_lo <= f.c && f.c <= f.c_hi);
		t->inside += f.c_lo <= t->c_true && t->c_true <= f.c_hi;
		t->width += (f.c_hi - f.c_lo) / TRIALS;
	}
}

static void test_coverage(void)
{
	static const enum model models[] = {POW_1, POW_1_5, POW_2, N_LOG_N};
	static const size_t sizes[] = {8, 12, 40, 300};
	static const double noises[] = {0.002, 0.02};
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	size_t m, n, k;

	for (m = 0; m < 4; m++)
		for (n = 0; n < 4; n++)
			for (k = 0; k < 2; k++) {
				struct trials t = {models[m], sizes[n], noises[k], 0, 0, 0, 0};

				run_trials(&t, seed++);
				if (getenv("SP_FIT_COVERAGE"))
					fprintf(stderr,
						"model %zu n %3zu noise %.2f: c %.4f inside "
						"%3u/%u refused %u width %.3f\n",
						m, t.n, t.noise, t.c_true, t.inside, TRIALS,
						t.refused, t.width);
				/* about 95%: 200 trials put 190 +- 6 inside */
				CU_ASSERT(t.refused <= TRIALS / 20);
				CU_ASSERT(t.inside >= (TRIALS - t.refused) * 90 / 100);
				CU_ASSERT(t.inside <= (TRIALS - t.refused) * 99 / 100);
			}
}

/* The interval narrows as the points multiply, and n log n is told from
 * n: its interval lies above 1 once the data say so. */
static void test_nlogn_above_linear(void)
{
	struct trials t = {N_LOG_N, 300, 0.01, 0, 0, 0, 0};
	double x[MAX_POINTS], y[MAX_POINTS];
	uint64_t seed = 42;
	struct sp_fit f;
	size_t i;

	for (i = 0; i < 300; i++) {
		x[i] = 10 + 990 * (double)i / 299.0;
		y[i] = model_at(N_LOG_N, x[i]) + 0.01 * model_at(N_LOG_N, 1000) * gauss(&seed);
	}
	CU_ASSERT_EQUAL_FATAL(sp_fit_power(x, y, 300, 0, &f), 0);
	CU_ASSERT(f.c_lo > 1.05 && f.c_hi < 1.3);
	run_trials(&t, 7);
	CU_ASSERT(t.c_true > 1.1 && t.c_true < 1.2);
}

int sp_test_register_fit(void)
{
	CU_pSuite s = CU_add_suite("fit", NULL, NULL);

	if (!s)
		return -1;
	if (!CU_add_test(s, "exact curves", test_exact) ||
	    !CU_add_test(s, "large sizes", test_large_sizes) ||
	    !CU_add_test(s, "decreasing", test_decreasing) ||
	    !CU_add_test(s, "no fit: sizes, span, constant", test_refuses) ||
	    !CU_add_test(s, "no fit: exponent at a bound", test_bounds) ||
	    !CU_add_test(s, "zero size and noise", test_zero_size_and_noise) ||
	    !CU_add_test(s, "Student's t", test_student_t) ||
	    !CU_add_test(s, "coverage of the 95% interval", test_coverage) ||
	    !CU_add_test(s, "n log n above linear", test_nlogn_above_linear))
		return -1;
	return 0;
}
