/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Stable sorting. gprof's output order depends on how glibc's qsort()
 * breaks ties, and glibc sorts with a stable merge sort whenever the array
 * fits in memory; sp_sort() is a stable merge sort too, so reports that
 * must match gprof byte for byte sort the same way on every libc.
 */
#ifndef SYMPROF_SORT_H
#define SYMPROF_SORT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef int (*sp_cmp_fn)(const void *a, const void *b, void *ctx);

/* Sorts n elements of `size` bytes; equal elements keep their order. */
void sp_sort(void *base, size_t n, size_t size, sp_cmp_fn cmp, void *ctx);

/* In n records of `size` bytes sorted by a uint64_t key at their start
 * (and aligned for it): the index of the first whose key is >= key, n if
 * none. */
size_t sp_lower_bound_u64(const void *base, size_t n, size_t size, uint64_t key);

/*
 * Defines `static void NAME(TYPE *v, size_t n, TYPE *tmp)`, a stable merge
 * sort (insertion sort on short runs) whose comparison LESS(a, b), on two
 * `const TYPE *`, is inlined: for hot sorts of small records by a key that
 * is a consistent order. `tmp` has room for n elements.
 */
#define SP_DEFINE_STABLE_SORT(NAME, TYPE, LESS)                                                    \
	static void NAME(TYPE *v, size_t n, TYPE *tmp)                                             \
	{                                                                                          \
		size_t n1, i, j, k;                                                                \
                                                                                                   \
		if (n <= 8) {                                                                      \
			for (i = 1; i < n; i++) {                                                  \
				TYPE x = v[i];                                                     \
                                                                                                   \
				for (j = i; j > 0 && LESS(&x, &v[j - 1]); j--)                     \
					v[j] = v[j - 1];                                           \
				v[j] = x;                                                          \
			}                                                                          \
			return;                                                                    \
		}                                                                                  \
		n1 = n / 2;                                                                        \
		NAME(v, n1, tmp);                                                                  \
		NAME(v + n1, n - n1, tmp);                                                         \
		if (!LESS(&v[n1], &v[n1 - 1]))                                                     \
			return; /* already in order */                                             \
		for (i = 0, j = n1, k = 0; i < n1 && j < n; k++)                                   \
			tmp[k] = LESS(&v[j], &v[i]) ? v[j++] : v[i++];                             \
		while (i < n1)                                                                     \
			tmp[k++] = v[i++];                                                         \
		memcpy(v, tmp, k * sizeof(*v));                                                    \
	}

/*
 * Defines `static TYPE *NAME(TYPE *v, size_t n, TYPE *tmp)`, a stable LSD
 * radix sort by the 64-bit unsigned key KEY(const TYPE *): one pass per
 * byte, and none for a byte that is the same in every key (addresses in
 * one program differ only in their low bytes). One pass over the input
 * counts all eight bytes first. `tmp` has room for n elements; returns v or
 * tmp, whichever holds the result. For n in the hundreds and more: below,
 * the counting costs more than comparing.
 */
#define SP_DEFINE_RADIX_SORT(NAME, TYPE, KEY)                                                      \
	static TYPE *NAME(TYPE *v, size_t n, TYPE *tmp)                                            \
	{                                                                                          \
		size_t count[8][256], i, pos;                                                      \
		unsigned b, d;                                                                     \
		uint64_t first;                                                                    \
                                                                                                   \
		if (n < 2)                                                                         \
			return v;                                                                  \
		memset(count, 0, sizeof(count));                                                   \
		for (i = 0; i < n; i++) {                                                          \
			uint64_t k = KEY(&v[i]);                                                   \
                                                                                                   \
			count[0][k & 0xff]++;                                                      \
			count[1][(k >> 8) & 0xff]++;                                               \
			count[2][(k >> 16) & 0xff]++;                                              \
			count[3][(k >> 24) & 0xff]++;                                              \
			count[4][(k >> 32) & 0xff]++;                                              \
			count[5][(k >> 40) & 0xff]++;                                              \
			count[6][(k >> 48) & 0xff]++;                                              \
			count[7][k >> 56]++;                                                       \
		}                                                                                  \
		first = KEY(&v[0]);                                                                \
		for (b = 0; b < 8; b++) {                                                          \
			size_t *c = count[b];                                                      \
			TYPE *t;                                                                   \
                                                                                                   \
			if (c[(first >> (8 * b)) & 0xff] == n)                                     \
				continue;                                                          \
			for (d = 0, pos = 0; d < 256; d++) {                                       \
				size_t m = c[d];                                                   \
                                                                                                   \
				c[d] = pos;                                                        \
				pos += m;                                                          \
			}                                                                          \
			for (i = 0; i < n; i++)                                                    \
				tmp[c[(KEY(&v[i]) >> (8 * b)) & 0xff]++] = v[i];                   \
			t = v;                                                                     \
			v = tmp;                                                                   \
			tmp = t;                                                                   \
		}                                                                                  \
		return v;                                                                          \
	}

/* An element's sort key and where it came from. */
struct sp_keyed {
	uint64_t key;
	uint32_t idx;
};

/* SP_DEFINE_RADIX_SORT by key: stable, so equal keys stay in input order;
 * `tmp` has room for n; returns v or tmp, whichever holds the result. */
struct sp_keyed *sp_sort_keyed(struct sp_keyed *v, size_t n, struct sp_keyed *tmp);

/* A name to sort, and where it came from (`key` is the sort's). */
struct sp_named {
	uint64_t key;
	const char *name;
	uint32_t idx;
};

/* Sorts v[0 .. n) by name in strcmp() order, stably (equal names keep
 * their order), 8 bytes of the names at a time; `tmp` has room for n. */
void sp_sort_names(struct sp_named *v, size_t n, struct sp_named *tmp);

#endif
