/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * String interning with open addressing (linear probing). Slots keep the
 * low half of the hash (the table never has 2^32 slots, so it holds every
 * bit of a slot index) so that growing the table does not rehash the
 * characters. A slot is 16 bytes: a big program's names fill thousands,
 * and each page of them is a fault to take. Adopted strings (a cache
 * file's, with their hashes) are entered as they are: no hashing, no
 * comparison, no copy.
 */
#include "symprof/strtab.h"

#include <stdlib.h>
#include <string.h>

struct sp_strtab_slot {
	const char *str; /* NULL: empty slot */
	uint32_t len;
	uint32_t hash; /* the hash's low 32 bits */
};

struct sp_strtab_keep {
	void (*release)(void *ctx);
	void *ctx;
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
	t->keeps = NULL;
	t->nkeeps = t->keeps_alloc = 0;
}

void sp_strtab_release(struct sp_strtab *t)
{
	size_t i;

	sp_arena_release(&t->arena);
	free(t->slots);
	for (i = 0; i < t->nkeeps; i++)
		t->keeps[i].release(t->keeps[i].ctx);
	free(t->keeps);
	t->slots = NULL;
	t->nslots = 0;
	t->count = 0;
	t->keeps = NULL;
	t->nkeeps = t->keeps_alloc = 0;
}

/* A table of n slots (a power of two) with the strings of the old one. */
static void strtab_resize(struct sp_strtab *t, size_t n)
{
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

static void strtab_grow(struct sp_strtab *t)
{
	strtab_resize(t, t->nslots ? t->nslots * 2 : 256);
}

const char *sp_strtab_find(const struct sp_strtab *t, const char *s, size_t len)
{
	uint32_t h;
	size_t j;

	if (!t->nslots)
		return NULL;
	h = sp_strtab_hash(s, len);
	for (j = h & (t->nslots - 1); t->slots[j].str; j = (j + 1) & (t->nslots - 1)) {
		const struct sp_strtab_slot *o = &t->slots[j];
		if (o->hash == h && o->len == len && !memcmp(o->str, s, len))
			return o->str;
	}
	return NULL;
}

const char *sp_strtab_intern_hashed(struct sp_strtab *t, const char *s, size_t len, uint32_t hash)
{
	size_t j;

	if (len > UINT32_MAX)
		sp_oom(len); /* no name is 4 GiB long: the length field says so */
	if ((t->count + 1) * 4 > t->nslots * 3)
		strtab_grow(t);
	for (j = hash & (t->nslots - 1); t->slots[j].str; j = (j + 1) & (t->nslots - 1)) {
		const struct sp_strtab_slot *o = &t->slots[j];
		if (o->hash == hash && o->len == len && !memcmp(o->str, s, len))
			return o->str;
	}
	t->slots[j].str = sp_arena_strndup(&t->arena, s, len);
	t->slots[j].len = (uint32_t)len;
	t->slots[j].hash = hash;
	t->count++;
	return t->slots[j].str;
}

const char *sp_strtab_intern_n(struct sp_strtab *t, const char *s, size_t len)
{
	return sp_strtab_intern_hashed(t, s, len, sp_strtab_hash(s, len));
}

int sp_strtab_adopt_begin(struct sp_strtab *t, size_t n)
{
	size_t want = 256;

	if (t->count)
		return -1;
	/* room for n without growing: (n + 1) * 4 <= slots * 3 */
	while (want / 4 * 3 < n + 1)
		want *= 2;
	if (want > t->nslots)
		strtab_resize(t, want);
	return 0;
}

void sp_strtab_adopt(struct sp_strtab *t, const char *s, size_t len, uint32_t hash)
{
	size_t j;

	if (len > UINT32_MAX)
		sp_oom(len);
	if ((t->count + 1) * 4 > t->nslots * 3)
		strtab_grow(t);
	for (j = hash & (t->nslots - 1); t->slots[j].str; j = (j + 1) & (t->nslots - 1))
		;
	t->slots[j].str = s;
	t->slots[j].len = (uint32_t)len;
	t->slots[j].hash = hash;
	t->count++;
}

void sp_strtab_keep(struct sp_strtab *t, void (*release)(void *ctx), void *ctx)
{
	SP_ALLOC_GROW(t->keeps, t->nkeeps + 1, t->keeps_alloc);
	t->keeps[t->nkeeps].release = release;
	t->keeps[t->nkeeps].ctx = ctx;
	t->nkeeps++;
}

const char *sp_strtab_intern(struct sp_strtab *t, const char *s)
{
	return sp_strtab_intern_n(t, s, strlen(s));
}
