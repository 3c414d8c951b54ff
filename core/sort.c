/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Stable merge sort, merging exactly as glibc's qsort (msort) does: split
 * in halves (the first half has n/2 elements), sort both, merge taking the
 * left element on ties. With a comparator that is not a consistent order
 * (gprof has a few), the result then still equals glibc's.
 *
 * Like glibc, elements of 4 and 8 bytes are moved as integers, and larger
 * elements are sorted through an array of pointers and then permuted in
 * place, which performs the same comparisons in the same order.
 */
#include "symprof/sort.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symprof/alloc.h"

struct msort {
	size_t size;
	sp_cmp_fn cmp;
	void *ctx;
	char *tmp;
	int indirect;
};

/* The comparator seen through a pointer (indirect sorting). */
static inline int cmp_of(const struct msort *m, const void *a, const void *b)
{
	if (m->indirect)
		return m->cmp(*(const void *const *)a, *(const void *const *)b, m->ctx);
	return m->cmp(a, b, m->ctx);
}

#define MSORT_TYPED(name, type)                                                                    \
	static void name(const struct msort *m, type *b, size_t n)                                 \
	{                                                                                          \
		size_t n1 = n / 2, n2 = n - n1;                                                    \
		type *b1 = b, *b2 = b + n1, *out = (type *)m->tmp;                                 \
                                                                                                   \
		if (n <= 1)                                                                        \
			return;                                                                    \
		name(m, b1, n1);                                                                   \
		name(m, b2, n2);                                                                   \
		while (n1 > 0 && n2 > 0) {                                                         \
			if (cmp_of(m, b1, b2) <= 0) {                                              \
				*out++ = *b1++;                                                    \
				n1--;                                                              \
			} else {                                                                   \
				*out++ = *b2++;                                                    \
				n2--;                                                              \
			}                                                                          \
		}                                                                                  \
		if (n1 > 0)                                                                        \
			memcpy(out, b1, n1 * sizeof(type));                                        \
		memcpy(b, m->tmp, (n - n2) * sizeof(type));                                        \
	}

MSORT_TYPED(msort_u32, uint32_t)
MSORT_TYPED(msort_u64, uint64_t)
typedef char *charp;
MSORT_TYPED(msort_ptr, charp)

/* Fixed-size blocks (keys of 16, 24 and 32 bytes) move as structs. */
struct blk16 {
	uint64_t w[2];
};
struct blk24 {
	uint64_t w[3];
};
struct blk32 {
	uint64_t w[4];
};
MSORT_TYPED(msort_b16, struct blk16)
MSORT_TYPED(msort_b24, struct blk24)
MSORT_TYPED(msort_b32, struct blk32)

static void msort_any(const struct msort *m, char *b, size_t n)
{
	size_t n1, n2, size = m->size;
	char *b1, *b2, *out;

	if (n <= 1)
		return;
	n1 = n / 2;
	n2 = n - n1;
	b1 = b;
	b2 = b + n1 * size;
	msort_any(m, b1, n1);
	msort_any(m, b2, n2);
	out = m->tmp;
	while (n1 > 0 && n2 > 0) {
		if (m->cmp(b1, b2, m->ctx) <= 0) {
			memcpy(out, b1, size);
			b1 += size;
			n1--;
		} else {
			memcpy(out, b2, size);
			b2 += size;
			n2--;
		}
		out += size;
	}
	if (n1 > 0)
		memcpy(out, b1, n1 * size);
	memcpy(b, m->tmp, (n - n2) * size);
}

/* Puts the elements of base in the order of the sorted pointers p. */
static void permute(char *base, char **p, size_t n, size_t size)
{
	char *tmp = sp_xmalloc(size);
	size_t i;

	for (i = 0; i < n; i++) {
		size_t k;
		char *kp;

		if (p[i] == base + i * size)
			continue;
		memcpy(tmp, base + i * size, size);
		for (k = i, kp = base + i * size; p[k] != base + i * size;) {
			size_t next = (size_t)(p[k] - base) / size;

			memcpy(kp, p[k], size);
			p[k] = kp;
			kp = base + next * size;
			k = next;
		}
		memcpy(kp, tmp, size);
		p[k] = kp;
	}
	free(tmp);
}

void sp_sort(void *base, size_t n, size_t size, sp_cmp_fn cmp, void *ctx)
{
	struct msort m;

	if (n < 2)
		return;
	m.size = size;
	m.cmp = cmp;
	m.ctx = ctx;
	m.indirect = 0;
	if (size > 32) {
		char **p = sp_xreallocarray(NULL, n, sizeof(*p));
		size_t i;

		for (i = 0; i < n; i++)
			p[i] = (char *)base + i * size;
		m.indirect = 1;
		m.tmp = sp_xreallocarray(NULL, n, sizeof(char *));
		msort_ptr(&m, p, n);
		permute(base, p, n, size);
		free(p);
	} else {
		m.tmp = sp_xreallocarray(NULL, n, size);
		int aligned8 = ((uintptr_t)base & 7) == 0;

		if (size == 4 && ((uintptr_t)base & 3) == 0)
			msort_u32(&m, base, n);
		else if (size == 8 && aligned8)
			msort_u64(&m, base, n);
		else if (size == 16 && aligned8)
			msort_b16(&m, base, n);
		else if (size == 24 && aligned8)
			msort_b24(&m, base, n);
		else if (size == 32 && aligned8)
			msort_b32(&m, base, n);
		else
			msort_any(&m, base, n);
	}
	free(m.tmp);
}

/* ---- radix sort by key ---- */

static uint64_t keyed_key(const struct sp_keyed *k)
{
	return k->key;
}

SP_DEFINE_RADIX_SORT(radix_keyed, struct sp_keyed, keyed_key)

struct sp_keyed *sp_sort_keyed(struct sp_keyed *v, size_t n, struct sp_keyed *tmp)
{
	return radix_keyed(v, n, tmp);
}

size_t sp_lower_bound_u64(const void *base, size_t n, size_t size, uint64_t key)
{
	const char *b = base;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;

		memcpy(&k, b + mid * size, sizeof(k));
		if (k < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* ---- names ---- */

/*
 * Names are sorted by 8 bytes at a time: `key` holds the bytes from
 * `depth` on, big-endian and zero past the NUL, so that comparing keys
 * compares those bytes as strcmp() does; names whose keys tie and go on
 * are then sorted by their next 8 bytes. Integer comparisons in place of
 * a strcmp() call for each of the n log n comparisons.
 */
static int named_less(const struct sp_named *a, const struct sp_named *b)
{
	return a->key < b->key;
}

SP_DEFINE_STABLE_SORT(sort_named, struct sp_named, named_less)

static uint64_t named_key(const struct sp_named *a)
{
	return a->key;
}

SP_DEFINE_RADIX_SORT(radix_named, struct sp_named, named_key)

/* The bytes of s from depth on; s has at least `depth` bytes before its NUL. */
static uint64_t name_key(const char *s, size_t depth)
{
	const unsigned char *p = (const unsigned char *)s + depth;
	uint64_t k = 0;
	unsigned i;

	for (i = 0; i < 8 && p[i]; i++)
		k |= (uint64_t)p[i] << (56 - 8 * i);
	return k;
}

static void sort_names(struct sp_named *v, size_t n, struct sp_named *tmp, size_t depth)
{
	size_t i, j;

	for (i = 0; i < n; i++)
		v[i].key = name_key(v[i].name, depth);
	if (n < 256) {
		sort_named(v, n, tmp);
	} else if (radix_named(v, n, tmp) != v) {
		memcpy(v, tmp, n * sizeof(*v));
	}
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && v[j].key == v[i].key; j++)
			;
		/* a last byte that is not NUL: these names go on */
		if (j - i > 1 && (v[i].key & 0xff))
			sort_names(v + i, j - i, tmp, depth + 8);
	}
}

void sp_sort_names(struct sp_named *v, size_t n, struct sp_named *tmp)
{
	sort_names(v, n, tmp, 0);
}
