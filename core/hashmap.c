/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Pair-keyed hash map; see hashmap.h. */
#include "symprof/hashmap.h"

#include <stdlib.h>

#include "symprof/alloc.h"
#include "symprof/strtab.h"

void sp_pairmap_init(struct sp_pairmap *m)
{
	m->slots = NULL;
	m->nslots = 0;
	m->count = 0;
}

void sp_pairmap_release(struct sp_pairmap *m)
{
	free(m->slots);
	sp_pairmap_init(m);
}

static inline uint64_t pair_hash(uint64_t k1, uint64_t k2)
{
	return sp_hash_u64(k1 * 0x9e3779b97f4a7c15ULL ^ sp_hash_u64(k2));
}

static void pairmap_resize(struct sp_pairmap *m, size_t n)
{
	size_t i;
	struct sp_pairmap_slot *s = sp_xreallocarray(NULL, n, sizeof(*s));

	for (i = 0; i < n; i++)
		s[i].value = UINT32_MAX;
	for (i = 0; i < m->nslots; i++) {
		struct sp_pairmap_slot *o = &m->slots[i];
		size_t j;

		if (o->value == UINT32_MAX)
			continue;
		for (j = pair_hash(o->k1, o->k2) & (n - 1); s[j].value != UINT32_MAX;
		     j = (j + 1) & (n - 1))
			;
		s[j] = *o;
	}
	free(m->slots);
	m->slots = s;
	m->nslots = n;
}

static void pairmap_grow(struct sp_pairmap *m)
{
	pairmap_resize(m, m->nslots ? m->nslots * 2 : 64);
}

void sp_pairmap_reserve(struct sp_pairmap *m, size_t n)
{
	size_t want = 64;

	while (want * 3 < (m->count + n) * 4)
		want *= 2;
	if (want > m->nslots)
		pairmap_resize(m, want);
}

uint32_t sp_pairmap_get(const struct sp_pairmap *m, uint64_t k1, uint64_t k2)
{
	size_t j;

	if (!m->nslots)
		return UINT32_MAX;
	for (j = pair_hash(k1, k2) & (m->nslots - 1); m->slots[j].value != UINT32_MAX;
	     j = (j + 1) & (m->nslots - 1))
		if (m->slots[j].k1 == k1 && m->slots[j].k2 == k2)
			return m->slots[j].value;
	return UINT32_MAX;
}

uint32_t sp_pairmap_put(struct sp_pairmap *m, uint64_t k1, uint64_t k2, uint32_t value)
{
	size_t j;

	if ((m->count + 1) * 4 > m->nslots * 3)
		pairmap_grow(m);
	for (j = pair_hash(k1, k2) & (m->nslots - 1); m->slots[j].value != UINT32_MAX;
	     j = (j + 1) & (m->nslots - 1))
		if (m->slots[j].k1 == k1 && m->slots[j].k2 == k2)
			return m->slots[j].value;
	m->slots[j].k1 = k1;
	m->slots[j].k2 = k2;
	m->slots[j].value = value;
	m->count++;
	return value;
}
