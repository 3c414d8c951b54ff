/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Stable merge sort, merging exactly as glibc's qsort (msort) does: split
 * in halves (the first half has n/2 elements), sort both, merge taking the
 * left element on ties. With a comparator that is not a consistent order
 * (gprof has a few), the result then still equals glibc's.
 */
#include "symprof/sort.h"

#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"

struct msort {
	size_t size;
	sp_cmp_fn cmp;
	void *ctx;
	char *tmp;
};

static void msort_rec(const struct msort *m, char *b, size_t n)
{
	size_t n1, n2, size = m->size;
	char *b1, *b2, *out;

	if (n <= 1)
		return;
	n1 = n / 2;
	n2 = n - n1;
	b1 = b;
	b2 = b + n1 * size;
	msort_rec(m, b1, n1);
	msort_rec(m, b2, n2);
	out = m->tmp;
	while (n1 > 0 && n2 > 0) {
		if (m->cmp(b1, b2, m->ctx) <= 0) {
			memcpy(out, b1, size);
			b1 += size;
			n1--;
		} else {
			memcpy(out, b2, size);
			b2 += size;
			n2--;
		}
		out += size;
	}
	if (n1 > 0)
		memcpy(out, b1, n1 * size);
	memcpy(b, m->tmp, (n - n2) * size);
}

void sp_sort(void *base, size_t n, size_t size, sp_cmp_fn cmp, void *ctx)
{
	struct msort m;

	if (n < 2)
		return;
	m.size = size;
	m.cmp = cmp;
	m.ctx = ctx;
	m.tmp = sp_xreallocarray(NULL, n, size);
	msort_rec(&m, base, n);
	free(m.tmp);
}
