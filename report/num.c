/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Fast number formatting for the report lines that gprof prints with
 * printf ("%7.2f", "%7lu", "%-7lu" ...). A call graph of a large program
 * has hundreds of thousands of such fields, and printf's format parsing and
 * exact float conversion dominate the run time.
 *
 * The fast paths are inline in num.h; this file holds what they fall back
 * on: padding of numbers wider than their field, and snprintf() for the
 * fixed-point values the fast path cannot round with certainty (near
 * ties, -0.0, negatives, huge values, infinities, NaN).
 */
#include "num.h"

#include <stdio.h>
#include <string.h>

#include "symprof/error.h"

const char sp_num_digit_pairs[200] = {
	'0', '0', '0', '1', '0', '2', '0', '3', '0', '4', '0', '5', '0', '6', '0', '7', '0',
	'8', '0', '9', '1', '0', '1', '1', '1', '2', '1', '3', '1', '4', '1', '5', '1', '6',
	'1', '7', '1', '8', '1', '9', '2', '0', '2', '1', '2', '2', '2', '3', '2', '4', '2',
	'5', '2', '6', '2', '7', '2', '8', '2', '9', '3', '0', '3', '1', '3', '2', '3', '3',
	'3', '4', '3', '5', '3', '6', '3', '7', '3', '8', '3', '9', '4', '0', '4', '1', '4',
	'2', '4', '3', '4', '4', '4', '5', '4', '6', '4', '7', '4', '8', '4', '9', '5', '0',
	'5', '1', '5', '2', '5', '3', '5', '4', '5', '5', '5', '6', '5', '7', '5', '8', '5',
	'9', '6', '0', '6', '1', '6', '2', '6', '3', '6', '4', '6', '5', '6', '6', '6', '7',
	'6', '8', '6', '9', '7', '0', '7', '1', '7', '2', '7', '3', '7', '4', '7', '5', '7',
	'6', '7', '7', '7', '8', '7', '9', '8', '0', '8', '1', '8', '2', '8', '3', '8', '4',
	'8', '5', '8', '6', '8', '7', '8', '8', '8', '9', '9', '0', '9', '1', '9', '2', '9',
	'3', '9', '4', '9', '5', '9', '6', '9', '7', '9', '8', '9', '9',
};

size_t sp_num_xtoa(char *dst, unsigned long long v)
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

char *sp_num_at_text(char *p, const char *s, size_t n, int width, int left)
{
	size_t w = width > 0 ? (size_t)width : 0, pad = w > n ? w - n : 0;

	if (left) {
		memcpy(p, s, n);
		memset(p + n, ' ', pad);
	} else {
		memset(p, ' ', pad);
		memcpy(p + pad, s, n);
	}
	return p + n + pad;
}

char *sp_num_at_ulong_slow(char *p, uint64_t v, int width, int left)
{
	char tmp[24], *end = tmp + sizeof(tmp), *q = sp_num_digits_back(end, v);

	return sp_num_at_text(p, q, (size_t)(end - q), width, left);
}

char *sp_num_at_fixed_slow(char *p, double v, int width, int prec)
{
	char tmp[SP_NUM_MAX + 1];
	int n;

	if (prec < 0 || prec > SP_NUM_PREC_MAX)
		prec = SP_NUM_PREC_MAX; /* outside the contract: stay within tmp */
	n = snprintf(tmp, sizeof(tmp), "%.*f", prec, v);
	if (n < 0 || n >= (int)sizeof(tmp))
		SP_BUG("%%.%df of %g takes %d bytes", prec, v, n); /* SP_NUM_MAX bounds it */
	return sp_num_at_text(p, tmp, (size_t)n, width, 0);
}

size_t sp_num_fixed(char *dst, double v, int prec)
{
	char tmp[SP_NUM_MAX], *end = sp_num_at_fixed(tmp, v, 0, prec);
	size_t n = (size_t)(end - tmp);

	memcpy(dst, tmp, n);
	return n;
}

void sp_num_put_fixed(struct sp_buf *b, double v, int width, int prec)
{
	char *p = sp_num_line_begin(b, sp_num_room(width));

	sp_num_line_end(b, sp_num_at_fixed(p, v, width, prec));
}

void sp_num_put_ulong(struct sp_buf *b, unsigned long long v, int width, int left)
{
	char *p = sp_num_line_begin(b, sp_num_room(width));

	sp_num_line_end(b, left ? sp_num_at_ulong_left(p, v, width) : sp_num_at_ulong(p, v, width));
}

void sp_num_put_long(struct sp_buf *b, long long v)
{
	if (v < 0) {
		sp_buf_addch(b, '-');
		sp_num_put_ulong(b, (unsigned long long)-(v + 1) + 1, 0, 0);
	} else {
		sp_num_put_ulong(b, (unsigned long long)v, 0, 0);
	}
}
