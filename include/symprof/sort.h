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

typedef int (*sp_cmp_fn)(const void *a, const void *b, void *ctx);

/* Sorts n elements of `size` bytes; equal elements keep their order. */
void sp_sort(void *base, size_t n, size_t size, sp_cmp_fn cmp, void *ctx);

/*
 * Defines `static void NAME(TYPE *v, size_t n, TYPE *tmp)`, a stable merge
 * sort (insertion sort on short runs) whose comparison LESS(a, b), on two
 * `const TYPE *`, is inlined: for hot sorts of small records by a key that
 * is a consistent order. `tmp` has room for n elements.
 */
#define SP_DEFINE_STABLE_SORT(NAME, TYPE, LESS)                                      \
	static void NAME(TYPE *v, size_t n, TYPE *tmp)                               \
	{                                                                            \
		size_t n1, i, j, k;                                                  \
                                                                                     \
		if (n <= 8) {                                                        \
			for (i = 1; i < n; i++) {                                    \
				TYPE x = v[i];                                       \
                                                                                     \
				for (j = i; j > 0 && LESS(&x, &v[j - 1]); j--)       \
					v[j] = v[j - 1];                             \
				v[j] = x;                                            \
			}                                                            \
			return;                                                      \
		}                                                                    \
		n1 = n / 2;                                                          \
		NAME(v, n1, tmp);                                                    \
		NAME(v + n1, n - n1, tmp);                                           \
		if (!LESS(&v[n1], &v[n1 - 1]))                                       \
			return; /* already in order */                               \
		for (i = 0, j = n1, k = 0; i < n1 && j < n; k++)                     \
			tmp[k] = LESS(&v[j], &v[i]) ? v[j++] : v[i++];               \
		while (i < n1)                                                       \
			tmp[k++] = v[i++];                                           \
		memcpy(v, tmp, k * sizeof(*v));                                      \
	}

#endif
