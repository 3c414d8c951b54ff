/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Private to symbolize/: resolving overlapping address ranges. Given
 * ranges that each claim [start, end) with a priority, reports which one
 * wins at every address. lines.c uses it where units overlap, and
 * dwarf-funcs.c to find the innermost function at every address.
 */
#ifndef SYMPROF_SYMBOLIZE_IVSWEEP_H
#define SYMPROF_SYMBOLIZE_IVSWEEP_H

#include <stddef.h>
#include <stdint.h>

/* A claim on [start, end); the smallest (key1, key2) wins. */
struct sp_iv {
	uint64_t start, end;
	uint64_t key1, key2;
	size_t id; /* the caller's */
};

typedef void (*sp_iv_out_fn)(void *ctx, uint64_t start, uint64_t end, const struct sp_iv *winner);

/* Sorts by start (then key1, key2, id), as sp_iv_sweep() needs; stable. */
void sp_iv_sort(struct sp_iv *iv, size_t n);
/* The same by merge sort alone (for n >= SP_IV_RADIX_MIN sp_iv_sort()
 * sorts by radix): for tests. */
void sp_iv_sort_merge(struct sp_iv *iv, size_t n);

#define SP_IV_RADIX_MIN 256

/*
 * Sweeps ranges sorted by sp_iv_sort(): calls out() in address order for
 * every stretch with one winner. Stretches are split where a range starts
 * even if the winner stays the same; addresses nobody claims are skipped.
 */
void sp_iv_sweep(const struct sp_iv *iv, size_t n, sp_iv_out_fn out, void *ctx);

#endif
