/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Unit tests for report/: the number formatting of num.h against the C
 * library's snprintf() (gprof prints with printf, so the two must agree
 * byte for byte), including the values the fast paths are most likely to
 * get wrong: decimal halfway cases and their neighbours, binary ties,
 * values at the edges of the fast ranges, -0.0, huge, tiny and non-finite.
 */
#include <float.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/CUnit.h>

#include "num.h"
#include "suites.h"
#include "symprof/buf.h"
#include "symprof/report.h"

/* Bytes past a writer's room that must stay untouched. */
enum { CANARY = 64 };

static uint64_t rng_state = UINT64_C(0x9e3779b97f4a7c15);

static uint64_t rng(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

/* A uniform double in [0, 1). */
static double rng_unit(void)
{
	return (double)(rng() >> 11) / 9007199254740992.0;
}

static unsigned long failures;

static void report_failure(const char *what, const char *want, const char *got, size_t got_len)
{
	if (++failures <= 10)
		fprintf(stderr, "\n%s: want \"%s\", got \"%.*s\"\n", what, want, (int)got_len, got);
}

/* What a writer put at area (up to end) against snprintf()'s want[0..n),
 * and nothing past its room. */
static void check_written(const char *what, const char *want, int n, const char *area,
			  const char *end, size_t room)
{
	size_t i;

	if ((size_t)(end - area) != (size_t)n || memcmp(area, want, (size_t)n))
		report_failure(what, want, area, (size_t)(end - area));
	for (i = room; i < room + CANARY; i++)
		if (area[i] != '#') {
			report_failure(what, "(within its room)", "(wrote past it)", 15);
			break;
		}
}

/* One "%{width}.{prec}f" through the writer, sp_num_put_fixed() and (for
 * width 0) sp_num_fixed(), each compared with snprintf(). */
static void check_fixed(double v, int width, int prec)
{
	char want[SP_NUM_MAX + 64], what[96];
	size_t room = sp_num_room(width);
	char *area = malloc(room + CANARY), *end;
	struct sp_buf b = SP_BUF_INIT;
	int n = snprintf(want, sizeof(want), "%*.*f", width, prec, v);

	snprintf(what, sizeof(what), "%%%d.%df of %a", width, prec, v);
	CU_ASSERT_FATAL(area != NULL && n > 0 && (size_t)n < sizeof(want));
	memset(area, '#', room + CANARY);
	end = sp_num_at_fixed(area, v, width, prec);
	check_written(what, want, n, area, end, room);
	sp_buf_addstr(&b, "x");
	sp_num_put_fixed(&b, v, width, prec);
	if (b.len != (size_t)n + 1 || strcmp(b.buf + 1, want))
		report_failure(what, want, b.buf + 1, b.len - 1);
	if (width == 0) {
		size_t len = sp_num_fixed(area, v, prec);

		if (len != (size_t)n || memcmp(area, want, len))
			report_failure(what, want, area, len);
	}
	sp_buf_release(&b);
	free(area);
}

/* v and its neighbours, at every precision, in a few widths. */
static void check_fixed_around(double v)
{
	static const int widths[] = {0, 1, 4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 24};
	double near[5];
	size_t i, w;
	int prec;

	near[0] = v;
	near[1] = nextafter(v, INFINITY);
	near[2] = nextafter(v, -INFINITY);
	near[3] = nextafter(near[1], INFINITY);
	near[4] = nextafter(near[2], -INFINITY);
	for (i = 0; i < 5; i++)
		for (prec = 0; prec <= SP_NUM_PREC_MAX; prec++)
			for (w = 0; w < sizeof(widths) / sizeof(widths[0]); w++)
				check_fixed(near[i], widths[w], prec);
}

static void test_fixed_special(void)
{
	static const double v[] = {
		0.0,
		0.001,
		0.0049,
		0.00499999999,
		0.005,
		0.0050000001,
		0.0051,
		0.049,
		0.05,
		0.125,
		0.375,
		0.625,
		2.675,
		1.005,
		1.015,
		1.025,
		0.5,
		1.5,
		2.5,
		99.995,
		999.995,
		9999.995,
		99999.995,
		1e12,
		1e12 - 0.005,
		999999999999.995,
		1e13,
		1e15,
		4503599627370496.0,
		9007199254740993.0,
		1e18,
		9.3e18,
		1.8e19,
		1e19,
		1e22,
		1e300,
		DBL_MAX,
		DBL_MIN,
		DBL_MIN / 4,
		5e-324,
		1e-300,
		100.0,
		1000.0,
		12345.678,
		0.015,
		0.025,
		0.035,
		0.045,
	};
	size_t i;

	failures = 0;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		check_fixed_around(v[i]);
		check_fixed_around(-v[i]);
	}
	check_fixed_around(-0.0);
	check_fixed(INFINITY, 7, 2);
	check_fixed(-INFINITY, 7, 2);
	check_fixed(NAN, 7, 2);
	check_fixed(-NAN, 7, 2);
	check_fixed(NAN, 0, 1);
	CU_ASSERT_EQUAL(failures, 0);
}

/* Decimal halfway points k + 1/2 ulp of the last printed digit: the
 * double nearest to each is just above or below (or, for binary
 * fractions, exactly on) the tie. */
static void test_fixed_halfway(void)
{
	int prec, i;

	failures = 0;
	for (prec = 0; prec <= SP_NUM_PREC_MAX; prec++) {
		double scale = (double)sp_num_pow10[prec];

		for (i = 0; i < 3000; i++) {
			/* integer parts of every size up to the fast path's limit and past it */
			uint64_t k = rng() >> (rng() % 64);
			double v = ((double)k + 0.5) / scale;

			check_fixed(v, 7, prec);
			check_fixed(nextafter(v, INFINITY), 8, prec);
			check_fixed(nextafter(v, -INFINITY), 5, prec);
			k = rng() % 100000;
			v = ((double)k + 0.5) / scale;
			check_fixed(v, 7, prec);
			check_fixed(nextafter(v, INFINITY), 7, prec);
			check_fixed(nextafter(v, -INFINITY), 7, prec);
		}
	}
	/* exact binary ties: multiples of 1/8 and 1/1024 (ties to even) */
	for (i = 0; i < 20000; i++) {
		check_fixed((double)i / 8.0, 7, 2);
		check_fixed((double)i / 1024.0, 9, 2);
		check_fixed((double)i / 16.0, 5, 1);
		check_fixed((double)i / 2.0, 3, 0);
	}
	CU_ASSERT_EQUAL(failures, 0);
}

static void test_fixed_random(void)
{
	static const int widths[] = {0, 5, 6, 7, 8, 9, 10, 11};
	int i;

	failures = 0;
	for (i = 0; i < 200000; i++) {
		uint64_t bits = rng();
		int prec = (int)(rng() % (SP_NUM_PREC_MAX + 1)), width = widths[rng() % 8];
		double v;

		switch (i % 4) {
		case 0: /* any bit pattern: every exponent, subnormals, infinities, NaNs */
			memcpy(&v, &bits, sizeof(v));
			break;
		case 1: /* the report's range: times and percentages */
			v = rng_unit() * pow(10.0, (double)(int)(rng() % 16) - 6);
			break;
		case 2: /* ticks over a rate, as the reports compute them */
			v = (double)(rng() % 100000) / (double)(1 + rng() % 1000);
			break;
		default: /* near the fast path's edges */
			v = 1e12 * (1.0 + (rng_unit() - 0.5) * 1e-3);
			break;
		}
		check_fixed(v, width, prec);
	}
	CU_ASSERT_EQUAL(failures, 0);
}

static void check_ulong(uint64_t v, int width)
{
	char want[64], what[64];
	size_t room = sp_num_room(width);
	char *area = malloc(room + CANARY), *end;
	struct sp_buf b = SP_BUF_INIT;
	int left, n;

	CU_ASSERT_FATAL(area != NULL);
	for (left = 0; left <= 1; left++) {
		n = snprintf(want, sizeof(want), left ? "%-*" PRIu64 : "%*" PRIu64, width, v);
		snprintf(what, sizeof(what), left ? "%%-%dllu of %" PRIu64 : "%%%dllu of %" PRIu64,
			 width, v);
		memset(area, '#', room + CANARY);
		end = left ? sp_num_at_ulong_left(area, v, width) : sp_num_at_ulong(area, v, width);
		check_written(what, want, n, area, end, room);
		sp_buf_reset(&b);
		sp_num_put_ulong(&b, v, width, left);
		if (b.len != (size_t)n || strcmp(b.buf, want))
			report_failure(what, want, b.buf, b.len);
	}
	sp_buf_release(&b);
	free(area);
}

static void test_ulong(void)
{
	int width, d, i;

	failures = 0;
	for (width = 0; width <= 24; width++) {
		check_ulong(0, width);
		check_ulong(UINT64_MAX, width);
		for (d = 1; d < 20; d++) {
			check_ulong(sp_num_pow10[d] - 1, width);
			check_ulong(sp_num_pow10[d], width);
			check_ulong(sp_num_pow10[d] + 1, width);
		}
		for (i = 0; i < 2000; i++)
			check_ulong(rng() >> (rng() % 64), width);
	}
	CU_ASSERT_EQUAL(failures, 0);
}

static void test_long(void)
{
	static const long long v[] = {0,	 1,	     -1,	9,	  -10,
				      123456789, -987654321, LLONG_MAX, LLONG_MIN};
	struct sp_buf b = SP_BUF_INIT;
	char want[32];
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		sp_buf_reset(&b);
		sp_num_put_long(&b, v[i]);
		snprintf(want, sizeof(want), "%lld", v[i]);
		CU_ASSERT_STRING_EQUAL(b.buf, want);
	}
	sp_buf_release(&b);
}

/* --diff: a change is significant only outside both runs' sampling error,
 * more than twice its noise; an amount that is not sampled has none */
static void test_diff_significant(void)
{
	struct sp_diff d;

	memset(&d, 0, sizeof(d));
	d.sampled = 1;
	d.sample = 0.01;
	CU_ASSERT_TRUE(sp_diff_significant(&d, -0.41, 0.157));	 /* hot_a: 2.6 noises */
	CU_ASSERT_FALSE(sp_diff_significant(&d, -0.06, 0.0749)); /* hot_b: 0.8 */
	CU_ASSERT_FALSE(sp_diff_significant(&d, 0.2, 0.1));	 /* exactly twice: not */
	CU_ASSERT_TRUE(sp_diff_significant(&d, 0.21, 0.1));
	CU_ASSERT_FALSE(sp_diff_significant(&d, 0, 0));
	d.sampled = 0;
	CU_ASSERT_TRUE(sp_diff_significant(&d, 1, 0));
	CU_ASSERT_TRUE(sp_diff_significant(&d, -1e-9, 100));
	CU_ASSERT_FALSE(sp_diff_significant(&d, 0, 0));
}

static void test_utoa_xtoa(void)
{
	char got[32], want[32];
	size_t n;
	int i;

	for (i = 0; i < 10000; i++) {
		uint64_t v = rng() >> (rng() % 64);

		n = sp_num_utoa(got, v);
		snprintf(want, sizeof(want), "%" PRIu64, v);
		CU_ASSERT(n == strlen(want) && !memcmp(got, want, n));
		n = sp_num_xtoa(got, v);
		snprintf(want, sizeof(want), "%" PRIx64, v);
		CU_ASSERT(n == strlen(want) && !memcmp(got, want, n));
	}
}

int sp_test_register_report(void)
{
	CU_pSuite s = CU_add_suite("report", NULL, NULL);

	if (!s)
		return -1;
	if (!CU_add_test(s, "fixed: special values", test_fixed_special) ||
	    !CU_add_test(s, "fixed: halfway cases", test_fixed_halfway) ||
	    !CU_add_test(s, "fixed: random values", test_fixed_random) ||
	    !CU_add_test(s, "ulong: right and left", test_ulong) ||
	    !CU_add_test(s, "long", test_long) || !CU_add_test(s, "utoa, xtoa", test_utoa_xtoa) ||
	    !CU_add_test(s, "diff: significance", test_diff_significant))
		return -1;
	return 0;
}
