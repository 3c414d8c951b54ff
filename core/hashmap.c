/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Pair-keyed index over the caller's records; see hashmap.h. */
#include "symprof/hashmap.h"

#include <stdlib.h>

#include "symprof/alloc.h"
#include "symprof/strtab.h"

void sp_pairmap_init(struct sp_pairmap *m, sp_pairmap_key_fn key, const void *ctx)
{
	m->slots = NULL;
	m->nslots = 0;
	m->count = 0;
	m->key = key;
	m->ctx = ctx;
}

void sp_pairmap_release(struct sp_pairmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->nslots = 0;
	m->count = 0;
}

static inline uint32_t pair_hash(uint64_t k1, uint64_t k2)
{
	return (uint32_t)sp_hash_u64(k1 * 0x9e3779b97f4a7c15ULL ^ sp_hash_u64(k2));
}

static void pairmap_resize(struct sp_pairmap *m, size_t n)
{
	struct sp_pairmap_slot *s = sp_xreallocarray(NULL, n, sizeof(*s));
	size_t i;

	for (i = 0; i < n; i++)
		s[i].value = UINT32_MAX;
	for (i = 0; i < m->nslots; i++) {
		const struct sp_pairmap_slot *o = &m->slots[i];
		size_t j;

		if (o->value == UINT32_MAX)
			continue;
		for (j = o->hash & (n - 1); s[j].value != UINT32_MAX; j = (j + 1) & (n - 1))
			;
		s[j] = *o;
	}
	free(m->slots);
	m->slots = s;
	m->nslots = n;
}

void sp_pairmap_reserve(struct sp_pairmap *m, size_t n)
{
	size_t want = m->nslots ? m->nslots : 64;

	while (want * 3 < (m->count + n) * 4)
		want *= 2;
	if (want > m->nslots)
		pairmap_resize(m, want);
}

static size_t find_slot(const struct sp_pairmap *m, uint64_t k1, uint64_t k2, uint32_t h)
{
	size_t j;

	for (j = h & (m->nslots - 1); m->slots[j].value != UINT32_MAX;
	     j = (j + 1) & (m->nslots - 1)) {
		uint64_t a, b;

		if (m->slots[j].hash != h)
			continue;
		m->key(m->ctx, m->slots[j].value, &a, &b);
		if (a == k1 && b == k2)
			return j;
	}
	return j;
}

uint32_t sp_pairmap_get(const struct sp_pairmap *m, uint64_t k1, uint64_t k2)
{
	if (!m->nslots)
		return UINT32_MAX;
	return m->slots[find_slot(m, k1, k2, pair_hash(k1, k2))].value;
}

uint32_t sp_pairmap_put(struct sp_pairmap *m, uint64_t k1, uint64_t k2, uint32_t value)
{
	uint32_t h = pair_hash(k1, k2);
	size_t j;

	if ((m->count + 1) * 4 > m->nslots * 3)
		pairmap_resize(m, m->nslots ? m->nslots * 2 : 64);
	j = find_slot(m, k1, k2, h);
	if (m->slots[j].value != UINT32_MAX)
		return m->slots[j].value;
	m->slots[j].value = value;
	m->slots[j].hash = h;
	m->count++;
	return value;
}
