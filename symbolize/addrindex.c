/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Bucketed index for "last entry at or below an address" (addrindex.h). */
#include "addrindex.h"

#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"

void sp_addr_index_build(struct sp_addr_index *x, const void *array, size_t n, size_t stride)
{
	uint64_t span;
	size_t b, i = 0;

	memset(x, 0, sizeof(*x));
	x->keys = array;
	x->n = n;
	x->stride = stride;
	if (!n)
		return;
	x->base = sp_addr_index_key(x, 0);
	span = sp_addr_index_key(x, n - 1) - x->base;
	/* about one bucket per entry, and never more than 2^26 buckets */
	while (x->shift < 63 && ((span >> x->shift) > n || (span >> x->shift) >= (1u << 26)))
		x->shift++;
	x->nbuckets = (size_t)(span >> x->shift) + 1;
	x->bucket = sp_xreallocarray(NULL, x->nbuckets, sizeof(*x->bucket));
	for (b = 0; b < x->nbuckets; b++) {
		uint64_t start = x->base + ((uint64_t)b << x->shift);

		while (i + 1 < n && sp_addr_index_key(x, i + 1) <= start)
			i++;
		x->bucket[b] = (uint32_t)i;
	}
}

void sp_addr_index_release(struct sp_addr_index *x)
{
	free(x->bucket);
	memset(x, 0, sizeof(*x));
}
