/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Fast number formatting for the report lines that gprof prints with
 * printf ("%7.2f", "%7lu", "%-7lu" ...). A call graph of a large program
 * has hundreds of thousands of such fields, and printf's format parsing and
 * exact float conversion dominate the run time.
 *
 * Fixed-point output must equal glibc's, which rounds the exact binary
 * value to the nearest decimal, ties to even. The fast path scales by
 * 10^prec in double precision; the scaling error is below one part in
 * 2^52 of the result, so the rounding direction is certain unless the
 * fractional part is within that error of one half. Those near-ties, and
 * anything negative, huge, infinite or NaN, go through snprintf().
 */
#include "fmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const double pow10_tab[] = {1, 10, 100, 1000, 10000, 100000, 1000000};

static const char digit_pairs[] = "00010203040506070809"
				  "10111213141516171819"
				  "20212223242526272829"
				  "30313233343536373839"
				  "40414243444546474849"
				  "50515253545556575859"
				  "60616263646566676869"
				  "70717273747576777879"
				  "80818283848586878889"
				  "90919293949596979899";

/* Decimal digits of v, right-aligned so they end at `end`, two at a time;
 * returns the first digit. */
static char *digits_before(char *end, unsigned long long v)
{
	while (v >= 100) {
		unsigned r = (unsigned)(v % 100);

		v /= 100;
		end -= 2;
		memcpy(end, digit_pairs + 2 * r, 2);
	}
	if (v >= 10) {
		end -= 2;
		memcpy(end, digit_pairs + 2 * v, 2);
	} else {
		*--end = (char)('0' + v);
	}
	return end;
}

size_t sp_fmt_utoa(char *dst, unsigned long long v)
{
	char tmp[24];
	char *p = digits_before(tmp + sizeof(tmp), v);
	size_t n = (size_t)(tmp + sizeof(tmp) - p);

	memcpy(dst, p, n);
	return n;
}

size_t sp_fmt_xtoa(char *dst, unsigned long long v)
{
	char tmp[24], *p = tmp + sizeof(tmp);
	size_t n;

	do {
		*--p = "0123456789abcdef"[v & 15];
		v >>= 4;
	} while (v);
	n = (size_t)(tmp + sizeof(tmp) - p);
	memcpy(dst, p, n);
	return n;
}

static size_t fixed_slow(char *dst, double v, int prec)
{
	char buf[64];
	int n = snprintf(buf, sizeof(buf), "%.*f", prec, v);

	if (n < 0 || n >= (int)sizeof(buf)) {
		memcpy(dst, "?", 1);
		return 1;
	}
	memcpy(dst, buf, (size_t)n);
	return (size_t)n;
}

size_t sp_fmt_fixed(char *dst, double v, int prec)
{
	double x, f, err;
	unsigned long long u, r, scale;
	size_t n;
	int i;

	if (!(v >= 0.0) || v > 1e12 || prec < 0 || prec > 6)
		return fixed_slow(dst, v, prec);
	x = v * pow10_tab[prec];
	/* x < 1e18 < 2^63: the conversion truncates exactly (floor, no libm call) */
	r = (unsigned long long)x;
	f = x - (double)r;
	err = x * 4.5e-16 + 1e-300;
	if (fabs(f - 0.5) <= err)
		return fixed_slow(dst, v, prec);
	u = r + (f > 0.5);
	scale = (unsigned long long)pow10_tab[prec];
	n = sp_fmt_utoa(dst, u / scale);
	if (prec > 0) {
		unsigned long long frac = u % scale;

		dst[n++] = '.';
		for (i = prec - 1; i >= 0; i--) {
			dst[n + (size_t)i] = (char)('0' + frac % 10);
			frac /= 10;
		}
		n += (size_t)prec;
	}
	return n;
}

/*
 * A field is formatted right to left into a scratch buffer of spaces that
 * ends FIELD_END bytes in; fields of up to 16 bytes then go out with one
 * fixed-size copy (spaces included), with no memset or memcpy calls.
 */
enum { FIELD_SIZE = 64, FIELD_END = 40 };

static void put_field(struct sp_buf *b, const char *tmp, const char *p, int width, int left)
{
	const char *end = tmp + FIELD_END;
	size_t n = (size_t)(end - p), w = width > 0 ? (size_t)width : 0, len = w > n ? w : n;
	char *dst;

	if (len <= 16) {
		sp_buf_grow(b, 16);
		dst = b->buf + b->len;
		memcpy(dst, left ? p : end - len, 16);
	} else {
		size_t pad = len - n;

		sp_buf_grow(b, len);
		dst = b->buf + b->len;
		memset(dst + (left ? n : 0), ' ', pad);
		memcpy(dst + (left ? 0 : pad), p, n);
	}
	b->len += len;
	b->buf[b->len] = '\0';
}

/* Right-aligned in `width` (printf's "%W.Pf"). */
void sp_fmt_put_fixed(struct sp_buf *b, double v, int width, int prec)
{
	char tmp[FIELD_SIZE], *p = tmp + FIELD_END;
	double x, f;
	unsigned long long u, r;
	size_t n;

	memset(tmp, ' ', sizeof(tmp));
	if (v >= 0.0 && v <= 1e12 && prec == 2) {
		/* the common case ("%7.2f" ...), as sp_fmt_fixed with constant divisors */
		x = v * 100.0;
		r = (unsigned long long)x;
		f = x - (double)r;
		if (fabs(f - 0.5) > x * 4.5e-16 + 1e-300) {
			u = r + (f > 0.5);
			p -= 2;
			memcpy(p, digit_pairs + 2 * (u % 100), 2);
			*--p = '.';
			p = digits_before(p, u / 100);
			put_field(b, tmp, p, width, 0);
			return;
		}
	}
	{
		char num[64];

		n = sp_fmt_fixed(num, v, prec);
		if (n <= FIELD_END) {
			memcpy(tmp + FIELD_END - n, num, n);
			put_field(b, tmp, tmp + FIELD_END - n, width, 0);
		} else {
			size_t w = width > 0 ? (size_t)width : 0;

			if (w > n)
				sp_buf_addchars(b, ' ', w - n);
			sp_buf_add(b, num, n);
		}
	}
}

void sp_fmt_put_ulong(struct sp_buf *b, unsigned long long v, int width, int left)
{
	char tmp[FIELD_SIZE];

	memset(tmp, ' ', sizeof(tmp));
	put_field(b, tmp, digits_before(tmp + FIELD_END, v), width, left);
}

void sp_fmt_put_long(struct sp_buf *b, long long v)
{
	if (v < 0) {
		sp_buf_addch(b, '-');
		sp_fmt_put_ulong(b, (unsigned long long)-(v + 1) + 1, 0, 0);
	} else {
		sp_fmt_put_ulong(b, (unsigned long long)v, 0, 0);
	}
}
