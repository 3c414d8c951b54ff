/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Fast printf-equivalent number formatting (private to report/).
 *
 * Two layers. The sp_num_at_* writers put one printf field at a pointer
 * into room the caller has reserved (sp_num_room() bytes per field, see
 * sp_num_line_begin()); a report line is then one reservation, a run of
 * stores and one length update, which is what makes a 77,000-line call
 * graph cheap. The sp_num_put_* functions wrap them for an sp_buf.
 */
#ifndef SYMPROF_REPORT_NUM_H
#define SYMPROF_REPORT_NUM_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "symprof/buf.h"

/* The largest precision the fixed-point writers take. */
#define SP_NUM_PREC_MAX 6
/* Bytes "%.{SP_NUM_PREC_MAX}f" of any double can take: a sign, 309 integer
 * digits (DBL_MAX), the point and the decimals; also any "%llu". */
#define SP_NUM_MAX (1 + 309 + 1 + SP_NUM_PREC_MAX)

extern const char sp_num_digit_pairs[200];

/* 10^i; static, so that the compiler folds constant indexes (a divisor
 * known at compile time is a multiplication, not a division). */
static const uint64_t sp_num_pow10[20] = {
	UINT64_C(1),
	UINT64_C(10),
	UINT64_C(100),
	UINT64_C(1000),
	UINT64_C(10000),
	UINT64_C(100000),
	UINT64_C(1000000),
	UINT64_C(10000000),
	UINT64_C(100000000),
	UINT64_C(1000000000),
	UINT64_C(10000000000),
	UINT64_C(100000000000),
	UINT64_C(1000000000000),
	UINT64_C(10000000000000),
	UINT64_C(100000000000000),
	UINT64_C(1000000000000000),
	UINT64_C(10000000000000000),
	UINT64_C(100000000000000000),
	UINT64_C(1000000000000000000),
	UINT64_C(10000000000000000000),
};

/* The bytes a field writer of `width` may store into (all of it). */
static inline size_t sp_num_room(int width)
{
	return width > SP_NUM_MAX ? (size_t)width : SP_NUM_MAX;
}

/* Reserves `room` bytes at the end of b; returns where to write. */
static inline char *sp_num_line_begin(struct sp_buf *b, size_t room)
{
	sp_buf_grow(b, room);
	return b->buf + b->len;
}

/* Takes what was written up to `end` (from sp_num_line_begin) into b. */
static inline void sp_num_line_end(struct sp_buf *b, char *end)
{
	b->len = (size_t)(end - b->buf);
	*end = '\0';
}

/* Decimal digits of v, right-aligned so that they end at `end`, two at a
 * time; returns the first digit. Below 2^32 (nearly every number of a
 * report) the divisions by 100 are 32-bit: a multiply and a shift. */
static inline char *sp_num_digits_back(char *end, uint64_t v)
{
	uint32_t w;

	while (v > UINT32_MAX) {
		unsigned r = (unsigned)(v % 100);

		v /= 100;
		end -= 2;
		memcpy(end, sp_num_digit_pairs + 2 * r, 2);
	}
	w = (uint32_t)v;
	while (w >= 100) {
		unsigned r = w % 100;

		w /= 100;
		end -= 2;
		memcpy(end, sp_num_digit_pairs + 2 * r, 2);
	}
	if (w >= 10) {
		end -= 2;
		memcpy(end, sp_num_digit_pairs + 2 * w, 2);
	} else {
		*--end = (char)('0' + w);
	}
	return end;
}

/* The number of decimal digits of v: from its bit length (log10(2) is
 * about 1233 / 4096), one more if v reaches the next power of ten. v | 1
 * has as many digits as v (0 has one, and no power of ten but 1 is odd). */
static inline int sp_num_ndigits(uint64_t v)
{
	uint64_t w = v | 1;
	int t = ((64 - __builtin_clzll(w)) * 1233) >> 12;

	return t + (w >= sp_num_pow10[t]);
}

/* "%llu" of v at dst (room for 20); returns the length. */
static inline size_t sp_num_utoa(char *dst, uint64_t v)
{
	int n = sp_num_ndigits(v);

	sp_num_digits_back(dst + n, v);
	return (size_t)n;
}

/* Sixteen spaces at p: one store where a memset would be a call. */
static inline void sp_num_spaces16(char *p)
{
	memcpy(p, "                ", 16);
}

/* `n` spaces at p (it may store up to 32); returns p + n. */
static inline char *sp_num_at_spaces(char *p, size_t n)
{
	if (n <= 32) {
		sp_num_spaces16(p);
		sp_num_spaces16(p + 16);
	} else {
		memset(p, ' ', n);
	}
	return p + n;
}

/* s[0..n) padded with spaces to `width` (left-aligned when left) at p;
 * returns the end. The general case of the writers below. */
char *sp_num_at_text(char *p, const char *s, size_t n, int width, int left);
/* "%{width}.{prec}f" when the fast path of sp_num_at_fixed() cannot decide. */
char *sp_num_at_fixed_slow(char *p, double v, int width, int prec);
char *sp_num_at_ulong_slow(char *p, uint64_t v, int width, int left);

/* "%{width}llu" at p; returns the end. */
static inline char *sp_num_at_ulong(char *p, uint64_t v, int width)
{
	/* the usual case: the number fits the width, digits go right to left */
	if (width >= 1 && width <= 16 && v < sp_num_pow10[width]) {
		sp_num_spaces16(p);
		sp_num_digits_back(p + width, v);
		return p + width;
	}
	return sp_num_at_ulong_slow(p, v, width, 0);
}

/* "%-{width}llu" at p; returns the end. */
static inline char *sp_num_at_ulong_left(char *p, uint64_t v, int width)
{
	if (width >= 1 && width <= 16 && v < sp_num_pow10[width]) {
		sp_num_spaces16(p);
		sp_num_utoa(p, v);
		return p + width;
	}
	return sp_num_at_ulong_slow(p, v, width, 1);
}

/*
 * "%{width}.{prec}f" at p (0 <= prec <= SP_NUM_PREC_MAX); returns the end.
 * glibc prints the binary value rounded to the nearest decimal, ties to
 * even. Here x = v * 10^prec is computed in double: its error is at most
 * half an ulp, below x * 2^-53, so unless the fraction of x lies within
 * 4.5e-16 * x of one half, x rounds to the same integer as the exact
 * product (near an integer both sides round to it). Values in [0, 1e12]
 * keep x below 2^63, so the conversion truncates and the fraction is
 * exact (from 2^52 on it is 0 and the bound exceeds one half). Near ties,
 * -0.0, negatives, huge values, infinities and NaN take snprintf().
 */
static inline char *sp_num_at_fixed(char *p, double v, int width, int prec)
{
	uint64_t scale, r, u;
	double x, f;

	if (!(prec >= 0 && prec <= SP_NUM_PREC_MAX) || signbit(v) || !(v <= 1e12))
		return sp_num_at_fixed_slow(p, v, width, prec);
	scale = sp_num_pow10[prec];
	/* most values of a call graph print as zero: v * 10^prec < 0.49
	 * leaves no doubt (the product's error is 2^-53 of it) */
	if (v < 0.49 / (double)scale && width <= 16 && width >= prec + 2) {
		sp_num_spaces16(p);
		if (prec)
			memcpy(p + width - (prec + 2), "0.000000", (size_t)(prec + 2));
		else
			p[width - 1] = '0';
		return p + width;
	}
	x = v * (double)scale;
	/* x < 2^63: the signed conversions are single instructions */
	r = (uint64_t)(int64_t)x;
	f = x - (double)(int64_t)r;
	if (!(fabs(f - 0.5) > x * 4.5e-16 + 1e-300))
		return sp_num_at_fixed_slow(p, v, width, prec);
	u = r + (f > 0.5);
	/* fits the width (a leading "0." counts two) */
	if (width <= 16 && width >= prec + 2 && u < sp_num_pow10[prec ? width - 1 : width]) {
		char *end = p + width, *q = end;

		sp_num_spaces16(p);
		if (prec == 2) {
			q -= 2;
			memcpy(q, sp_num_digit_pairs + 2 * (u % 100), 2);
		} else {
			uint64_t fr = u % scale;
			int i;

			for (i = 0; i < prec; i++) {
				*--q = (char)('0' + fr % 10);
				fr /= 10;
			}
		}
		if (prec)
			*--q = '.';
		sp_num_digits_back(q, u / scale);
		return end;
	}
	{
		char tmp[32], *end = tmp + sizeof(tmp), *q = end;
		uint64_t fr = u % scale;
		int i;

		for (i = 0; i < prec; i++) {
			*--q = (char)('0' + fr % 10);
			fr /= 10;
		}
		if (prec)
			*--q = '.';
		q = sp_num_digits_back(q, u / scale);
		return sp_num_at_text(p, q, (size_t)(end - q), width, 0);
	}
}

/* "%llx" of v into dst (at least 16 bytes); returns the length. */
size_t sp_num_xtoa(char *dst, unsigned long long v);
/* "%.{prec}f" of v (0 <= prec <= SP_NUM_PREC_MAX) into dst (at least
 * SP_NUM_MAX bytes); returns the length. */
size_t sp_num_fixed(char *dst, double v, int prec);
/* "%{width}.{prec}f" appended to b. */
void sp_num_put_fixed(struct sp_buf *b, double v, int width, int prec);
/* "%{width}lu", or "%-{width}lu" when left, appended to b. */
void sp_num_put_ulong(struct sp_buf *b, unsigned long long v, int width, int left);
/* "%lld" appended to b. */
void sp_num_put_long(struct sp_buf *b, long long v);

#endif
