/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to symbolize/: "the last entry at or below an address" in a
 * sorted array, in about two memory accesses instead of a binary search's
 * twenty (random lookups miss the cache at every level of a search).
 *
 * The address range is cut into buckets of 2^shift bytes, about one per
 * entry; bucket b holds the last entry at or below its start, from where a
 * short forward scan finds the answer. The array is only read; the index
 * is built once and then safe to use from several threads.
 */
#ifndef SYMPROF_SYMBOLIZE_ADDRINDEX_H
#define SYMPROF_SYMBOLIZE_ADDRINDEX_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct sp_addr_index {
	const uint8_t *keys; /* the array: n entries of `stride` bytes ... */
	size_t n, stride;    /* ... each starting with its uint64_t address */
	uint64_t base;	     /* keys[0] */
	unsigned shift;
	uint32_t *bucket; /* per bucket: the last entry at or below its start */
	size_t nbuckets;
	size_t filled; /* while built entry by entry: the buckets done */
	/* what lookups read: `bucket`, or the borrowed buckets of
	 * sp_addr_index_borrow() (any alignment, so read with memcpy) */
	const uint8_t *lookup;
};

/* Indexes n entries of `stride` bytes whose first 8 bytes are an address
 * (sorted ascending); the array must outlive the index. */
void sp_addr_index_build(struct sp_addr_index *x, const void *array, size_t n, size_t stride);
/*
 * The same, built while the array is being filled: begin with the keys of
 * its first and last entries, then sp_addr_index_add() each entry's key in
 * order, then sp_addr_index_end() (which the index is not usable before).
 * Saves a pass over an array that was just written.
 */
void sp_addr_index_begin(struct sp_addr_index *x, const void *array, size_t n, size_t stride,
			 uint64_t first, uint64_t last);
void sp_addr_index_end(struct sp_addr_index *x);

/* Entry i (entries come in order) has address key. */
static inline void sp_addr_index_add(struct sp_addr_index *x, size_t i, uint64_t key)
{
	while (x->filled < x->nbuckets && x->base + ((uint64_t)x->filled << x->shift) < key)
		x->bucket[x->filled++] = (uint32_t)(i ? i - 1 : 0);
}
void sp_addr_index_release(struct sp_addr_index *x);

/*
 * An index whose buckets were saved with the array (the index cache):
 * base, shift and the nbuckets 32-bit buckets (little-endian, any
 * alignment) as a built index had them. The buckets are borrowed and must
 * outlive x. Returns 0, or -1 if they cannot be an index of these n
 * entries (a bucket past the end, a bucket count that does not match).
 */
int sp_addr_index_borrow(struct sp_addr_index *x, const void *array, size_t n, size_t stride,
			 unsigned shift, const void *bucket, size_t nbuckets);

/* Entry i's address (entries need not be aligned). */
static inline uint64_t sp_addr_index_key(const struct sp_addr_index *x, size_t i)
{
	uint64_t k;

	memcpy(&k, x->keys + i * x->stride, sizeof(k));
	return k;
}

/* The last entry whose address is <= addr, or n if none. */
static inline size_t sp_addr_index_find(const struct sp_addr_index *x, uint64_t addr)
{
	size_t i, b;

	if (!x->n || addr < x->base)
		return x->n;
	b = (size_t)((addr - x->base) >> x->shift);
	if (b < x->nbuckets) {
		uint32_t v;

		memcpy(&v, x->lookup + b * sizeof(v), sizeof(v));
		i = v;
	} else {
		i = x->n - 1;
	}
	while (i + 1 < x->n && sp_addr_index_key(x, i + 1) <= addr)
		i++;
	return i;
}

/*
 * The first of n entries (`stride` bytes each, starting with their
 * uint64_t address, sorted) whose address is above addr, or at or above it
 * unless `above`; n if none. A binary search, for arrays too small or with
 * addresses too unevenly spread for an index.
 */
static inline size_t sp_addr_bound(const void *array, size_t n, size_t stride, uint64_t addr,
				   int above)
{
	const uint8_t *keys = array;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t key = *(const uint64_t *)(const void *)(keys + mid * stride);

		if (key < addr || (above && key == addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
