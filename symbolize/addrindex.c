/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Bucketed index for "last entry at or below an address" (addrindex.h). */
#include "addrindex.h"

#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"

void sp_addr_index_begin(struct sp_addr_index *x, const void *array, size_t n, size_t stride,
			 uint64_t first, uint64_t last)
{
	uint64_t span;

	memset(x, 0, sizeof(*x));
	x->keys = array;
	x->n = n;
	x->stride = stride;
	if (!n)
		return;
	x->base = first;
	span = last > first ? last - first : 0;
	/* about one bucket per entry, and never more than 2^26 buckets */
	while (x->shift < 63 && ((span >> x->shift) > n || (span >> x->shift) >= (1u << 26)))
		x->shift++;
	x->nbuckets = (size_t)(span >> x->shift) + 1;
	x->bucket = sp_xreallocarray(NULL, x->nbuckets, sizeof(*x->bucket));
	sp_prefault(x->bucket, x->nbuckets * sizeof(*x->bucket));
	x->lookup = (const uint8_t *)x->bucket;
}

int sp_addr_index_borrow(struct sp_addr_index *x, const void *array, size_t n, size_t stride,
			 unsigned shift, const void *bucket, size_t nbuckets)
{
	const uint8_t *b = bucket;
	uint64_t last, span;
	uint32_t v;
	size_t i;

	memset(x, 0, sizeof(*x));
	x->keys = array;
	x->stride = stride;
	if (!n)
		return nbuckets ? -1 : 0;
	x->base = sp_addr_index_key(x, 0);
	last = sp_addr_index_key(x, n - 1);
	span = last > x->base ? last - x->base : 0;
	if (shift > 63 || nbuckets != (span >> shift) + 1)
		return -1;
	for (i = 0; i < nbuckets; i++) {
		memcpy(&v, b + i * sizeof(v), sizeof(v));
		if (v >= n)
			return -1;
	}
	x->n = n;
	x->shift = shift;
	x->nbuckets = x->filled = nbuckets;
	x->lookup = b;
	return 0;
}

void sp_addr_index_end(struct sp_addr_index *x)
{
	/* the buckets past the last entry's address */
	while (x->filled < x->nbuckets)
		x->bucket[x->filled++] = (uint32_t)(x->n - 1);
}

void sp_addr_index_build(struct sp_addr_index *x, const void *array, size_t n, size_t stride)
{
	uint64_t first, last;
	size_t i;

	if (!n) {
		sp_addr_index_begin(x, array, 0, stride, 0, 0);
		return;
	}
	memcpy(&first, array, sizeof(first));
	memcpy(&last, (const uint8_t *)array + (n - 1) * stride, sizeof(last));
	sp_addr_index_begin(x, array, n, stride, first, last);
	for (i = 0; i < n; i++)
		sp_addr_index_add(x, i, sp_addr_index_key(x, i));
	sp_addr_index_end(x);
}

void sp_addr_index_release(struct sp_addr_index *x)
{
	free(x->bucket);
	memset(x, 0, sizeof(*x));
}
