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

/* Digits of v into dst (reversed-free); returns the length. */
static size_t utoa(char *dst, unsigned long long v)
{
	char tmp[24];
	size_t n = 0, i;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (i = 0; i < n; i++)
		dst[i] = tmp[n - 1 - i];
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
	double x, r, f, err;
	unsigned long long u, scale;
	size_t n;
	int i;

	if (!(v >= 0.0) || v > 1e12 || prec < 0 || prec > 6)
		return fixed_slow(dst, v, prec);
	x = v * pow10_tab[prec];
	r = floor(x);
	f = x - r;
	err = x * 4.5e-16 + 1e-300;
	if (fabs(f - 0.5) <= err)
		return fixed_slow(dst, v, prec);
	u = (unsigned long long)r + (f > 0.5);
	scale = (unsigned long long)pow10_tab[prec];
	n = utoa(dst, u / scale);
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

/* Right-aligned in `width` (printf's "%W.Pf"). */
void sp_fmt_put_fixed(struct sp_buf *b, double v, int width, int prec)
{
	char tmp[64];
	size_t n = sp_fmt_fixed(tmp, v, prec);

	if ((size_t)width > n)
		sp_buf_addchars(b, ' ', (size_t)width - n);
	sp_buf_add(b, tmp, n);
}

void sp_fmt_put_ulong(struct sp_buf *b, unsigned long long v, int width, int left)
{
	char tmp[24];
	size_t n = utoa(tmp, v);

	if (!left && (size_t)width > n)
		sp_buf_addchars(b, ' ', (size_t)width - n);
	sp_buf_add(b, tmp, n);
	if (left && (size_t)width > n)
		sp_buf_addchars(b, ' ', (size_t)width - n);
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
