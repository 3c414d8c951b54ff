/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Resolving overlapping ranges by priority: a sweep over the range starts
 * in address order, with the ranges that cover the current address in a
 * binary min-heap on (key1, key2). Ranges that have ended are dropped from
 * the heap lazily, when they reach its top. O(n log n).
 */
#include "ivsweep.h"

#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"
#include "symprof/sort.h"

static int iv_less(const struct sp_iv *a, const struct sp_iv *b)
{
	if (a->start != b->start)
		return a->start < b->start;
	if (a->key1 != b->key1)
		return a->key1 < b->key1;
	if (a->key2 != b->key2)
		return a->key2 < b->key2;
	return a->id < b->id;
}

/* stable, as glibc's qsort() (a merge sort) was for equal ranges */
SP_DEFINE_STABLE_SORT(sort_ivs, struct sp_iv, iv_less)

void sp_iv_sort(struct sp_iv *iv, size_t n)
{
	struct sp_iv *tmp;

	if (n < 2)
		return;
	tmp = sp_xreallocarray(NULL, n, sizeof(*tmp));
	sort_ivs(iv, n, tmp);
	free(tmp);
}

struct heap {
	const struct sp_iv **v;
	size_t n;
};

static int less(const struct sp_iv *a, const struct sp_iv *b)
{
	return a->key1 < b->key1 || (a->key1 == b->key1 && a->key2 < b->key2);
}

static void heap_push(struct heap *h, const struct sp_iv *x)
{
	size_t i = h->n++;

	while (i > 0 && less(x, h->v[(i - 1) / 2])) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = x;
}

static void heap_pop(struct heap *h)
{
	const struct sp_iv *x = h->v[--h->n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && less(h->v[c + 1], h->v[c]))
			c++;
		if (!less(h->v[c], x))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = x;
}

void sp_iv_sweep(const struct sp_iv *iv, size_t n, sp_iv_out_fn out, void *ctx)
{
	struct heap h = {NULL, 0};
	uint64_t x = 0;
	size_t k = 0;

	if (!n)
		return;
	h.v = sp_xreallocarray(NULL, n, sizeof(*h.v));
	while (k < n || h.n) {
		uint64_t nx;

		if (!h.n)
			x = iv[k].start;
		while (k < n && iv[k].start <= x)
			heap_push(&h, &iv[k++]);
		while (h.n && h.v[0]->end <= x)
			heap_pop(&h);
		if (!h.n)
			continue;
		nx = h.v[0]->end;
		if (k < n && iv[k].start < nx)
			nx = iv[k].start;
		out(ctx, x, nx, h.v[0]);
		x = nx;
	}
	free(h.v);
}
