/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Stable merge sort (bottom-up runs of insertion sort, then merging through
 * one scratch buffer). See sort.h for why it must be stable.
 */
#include "symprof/sort.h"

#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"

#define RUN 16

static void insertion(char *base, size_t n, size_t size, sp_cmp_fn cmp, void *ctx, char *tmp)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		char *x = base + i * size;
		for (j = i; j > 0 && cmp(base + (j - 1) * size, x, ctx) > 0; j--)
			;
		if (j == i)
			continue;
		memcpy(tmp, x, size);
		memmove(base + (j + 1) * size, base + j * size, (i - j) * size);
		memcpy(base + j * size, tmp, size);
	}
}

void sp_sort(void *vbase, size_t n, size_t size, sp_cmp_fn cmp, void *ctx)
{
	char *base = vbase, *buf, *src, *dst;
	size_t i, w;

	if (n < 2)
		return;
	buf = sp_xreallocarray(NULL, n + 1, size);
	for (i = 0; i < n; i += RUN)
		insertion(base + i * size, n - i < RUN ? n - i : RUN, size, cmp, ctx,
			  buf + n * size);
	src = base;
	dst = buf;
	for (w = RUN; w < n; w *= 2) {
		for (i = 0; i < n; i += 2 * w) {
			size_t l = i, lend = i + w < n ? i + w : n;
			size_t r = lend, rend = i + 2 * w < n ? i + 2 * w : n;
			char *out = dst + i * size;

			while (l < lend && r < rend) {
				if (cmp(src + r * size, src + l * size, ctx) < 0) {
					memcpy(out, src + r * size, size);
					r++;
				} else {
					memcpy(out, src + l * size, size);
					l++;
				}
				out += size;
			}
			memcpy(out, src + l * size, (lend - l) * size);
			out += (lend - l) * size;
			memcpy(out, src + r * size, (rend - r) * size);
		}
		{
			char *t = src;
			src = dst;
			dst = t;
		}
	}
	if (src != base)
		memcpy(base, src, n * size);
	free(buf);
}
