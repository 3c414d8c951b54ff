/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * String interning with open addressing (linear probing). Slots keep the
 * low half of the hash (the table never has 2^32 slots, so it holds every
 * bit of a slot index) so that growing the table does not rehash the
 * characters. A slot is 16 bytes: a big program's names fill thousands,
 * and each page of them is a fault to take.
 */
#include "symprof/strtab.h"

#include <stdlib.h>
#include <string.h>

struct sp_strtab_slot {
	const char *str; /* NULL: empty slot */
	uint32_t len;
	uint32_t hash; /* the hash's low 32 bits */
};

/* Eight bytes per step (multiply and fold); names are rarely short. */
uint64_t sp_hash_bytes(const void *p, size_t len)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ULL ^ (len * 0x9e3779b97f4a7c15ULL), w;

	while (len >= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0x9fb21c651e98df25ULL;
		h ^= h >> 29;
		s += 8;
		len -= 8;
	}
	if (len) {
		w = 0;
		memcpy(&w, s, len);
		h = (h ^ w) * 0x9fb21c651e98df25ULL;
		h ^= h >> 29;
	}
	h *= 0xff51afd7ed558ccdULL;
	return h ^ (h >> 32);
}

void sp_strtab_init(struct sp_strtab *t)
{
	sp_arena_init(&t->arena);
	t->slots = NULL;
	t->nslots = 0;
	t->count = 0;
}

void sp_strtab_release(struct sp_strtab *t)
{
	sp_arena_release(&t->arena);
	free(t->slots);
	t->slots = NULL;
	t->nslots = 0;
	t->count = 0;
}

static void strtab_grow(struct sp_strtab *t)
{
	size_t n = t->nslots ? t->nslots * 2 : 256;
	struct sp_strtab_slot *s = sp_xcalloc_probed(n, sizeof(*s));
	size_t i;

	for (i = 0; i < t->nslots; i++) {
		struct sp_strtab_slot *o = &t->slots[i];
		size_t j;

		if (!o->str)
			continue;
		for (j = o->hash & (n - 1); s[j].str; j = (j + 1) & (n - 1))
			;
		s[j] = *o;
	}
	free(t->slots);
	t->slots = s;
	t->nslots = n;
}

const char *sp_strtab_find(const struct sp_strtab *t, const char *s, size_t len)
{
	uint64_t h;
	size_t j;

	if (!t->nslots)
		return NULL;
	h = sp_hash_bytes(s, len);
	for (j = h & (t->nslots - 1); t->slots[j].str; j = (j + 1) & (t->nslots - 1)) {
		const struct sp_strtab_slot *o = &t->slots[j];
		if (o->hash == (uint32_t)h && o->len == len && !memcmp(o->str, s, len))
			return o->str;
	}
	return NULL;
}

const char *sp_strtab_intern_n(struct sp_strtab *t, const char *s, size_t len)
{
	uint64_t h;
	size_t j;

	if (len > UINT32_MAX)
		sp_oom(len); /* no name is 4 GiB long: the length field says so */
	if ((t->count + 1) * 4 > t->nslots * 3)
		strtab_grow(t);
	h = sp_hash_bytes(s, len);
	for (j = h & (t->nslots - 1); t->slots[j].str; j = (j + 1) & (t->nslots - 1)) {
		const struct sp_strtab_slot *o = &t->slots[j];
		if (o->hash == (uint32_t)h && o->len == len && !memcmp(o->str, s, len))
			return o->str;
	}
	t->slots[j].str = sp_arena_strndup(&t->arena, s, len);
	t->slots[j].len = (uint32_t)len;
	t->slots[j].hash = (uint32_t)h;
	t->count++;
	return t->slots[j].str;
}

const char *sp_strtab_intern(struct sp_strtab *t, const char *s)
{
	return sp_strtab_intern_n(t, s, strlen(s));
}
