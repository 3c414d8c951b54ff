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

#endif
