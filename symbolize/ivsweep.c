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

void sp_iv_sort_merge(struct sp_iv *iv, size_t n)
{
	struct sp_iv *tmp;

	if (n < 2)
		return;
	tmp = sp_xreallocarray(NULL, n, sizeof(*tmp));
	sort_ivs(iv, n, tmp);
	free(tmp);
}

/* (key1, key2, id): the order among ranges that start together */
static int tie_less(const struct sp_iv *a, const struct sp_iv *b)
{
	if (a->key1 != b->key1)
		return a->key1 < b->key1;
	if (a->key2 != b->key2)
		return a->key2 < b->key2;
	return a->id < b->id;
}

/*
 * A stable radix sort of (start, index) pairs, then each run of equal
 * starts put in (key1, key2, id) order by insertion (runs are short: an
 * inlined function and the functions it sits in; a long one is merge
 * sorted): the merge sort's order without moving the 40-byte records
 * log n times.
 */
void sp_iv_sort(struct sp_iv *iv, size_t n)
{
	struct sp_keyed *k, *order;
	struct sp_iv *out;
	size_t i, j, run;

	if (n < SP_IV_RADIX_MIN || n > UINT32_MAX) {
		sp_iv_sort_merge(iv, n);
		return;
	}
	for (i = 1, run = 0; i < n; i++)
		run += iv_less(&iv[i], &iv[i - 1]);
	if (run * 16 < n) {
		/* nearly in order (the units' segments, one unit after another):
		 * the merge sort's long runs cost less than radix passes */
		sp_iv_sort_merge(iv, n);
		return;
	}
	k = sp_xreallocarray(NULL, 2 * n, sizeof(*k));
	for (i = 0; i < n; i++) {
		k[i].key = iv[i].start;
		k[i].idx = (uint32_t)i;
	}
	order = sp_sort_keyed(k, n, k + n);
	out = sp_xreallocarray(NULL, n, sizeof(*out));
	for (i = 0; i < n; i++)
		out[i] = iv[order[i].idx];
	free(k);
	for (run = 0; run < n; run = i) {
		for (i = run + 1; i < n && out[i].start == out[run].start; i++)
			;
		if (i - run > 32) {
			/* a long run (hostile DWARF): the merge sort, in order */
			sp_iv_sort_merge(out + run, i - run);
			continue;
		}
		for (j = run + 1; j < i; j++) {
			struct sp_iv x = out[j];
			size_t m = j;

			for (; m > run && tie_less(&x, &out[m - 1]); m--)
				out[m] = out[m - 1];
			out[m] = x;
		}
	}
	memcpy(iv, out, n * sizeof(*iv));
	free(out);
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
