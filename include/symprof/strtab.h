/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * String interning: equal strings get equal pointers. The characters live
 * in the table's own arena; pointers stay valid until sp_strtab_release().
 */
#ifndef SYMPROF_STRTAB_H
#define SYMPROF_STRTAB_H

#include <stddef.h>
#include <stdint.h>

#include "symprof/alloc.h"

struct sp_strtab_slot;
struct sp_strtab_keep;

struct sp_strtab {
	struct sp_arena arena;
	struct sp_strtab_slot *slots;
	size_t nslots; /* power of two or 0 */
	size_t count;
	/* what holds the adopted strings (sp_strtab_keep()) */
	struct sp_strtab_keep *keeps;
	size_t nkeeps, keeps_alloc;
};

#define SP_STRTAB_INIT                                                                             \
	{                                                                                          \
		SP_ARENA_INIT, NULL, 0, 0, NULL, 0, 0                                              \
	}

void sp_strtab_init(struct sp_strtab *t);
void sp_strtab_release(struct sp_strtab *t);

/* The interned copy of s[0..len) (NUL-terminated). */
const char *sp_strtab_intern_n(struct sp_strtab *t, const char *s, size_t len);
const char *sp_strtab_intern(struct sp_strtab *t, const char *s);
/* The interned copy if present, else NULL. */
const char *sp_strtab_find(const struct sp_strtab *t, const char *s, size_t len);

/* sp_strtab_intern_n() of a string whose sp_strtab_hash() is known. */
const char *sp_strtab_intern_hashed(struct sp_strtab *t, const char *s, size_t len, uint32_t hash);

/*
 * Strings that live elsewhere (a mapped cache file's), taken as they are:
 * sp_strtab_adopt_begin() makes room for n of them in an empty table (-1,
 * and nothing done, if the table holds any string: intern them instead),
 * then sp_strtab_adopt() enters each without comparing or copying it: the
 * caller promises they are distinct, NUL-terminated at s[len], with their
 * sp_strtab_hash(), and that they stay until the table's release (see
 * sp_strtab_keep()). Interning one of them afterwards answers s itself.
 */
int sp_strtab_adopt_begin(struct sp_strtab *t, size_t n);
void sp_strtab_adopt(struct sp_strtab *t, const char *s, size_t len, uint32_t hash);
/* release(ctx) is called by sp_strtab_release(), after the table's own
 * strings are freed: what holds adopted strings lets them go there. */
void sp_strtab_keep(struct sp_strtab *t, void (*release)(void *ctx), void *ctx);

/* 64-bit FNV-1a; exported for the other hash tables of the project. */
uint64_t sp_hash_bytes(const void *p, size_t len);
/* What a table keeps of a string's hash: the low half of sp_hash_bytes(),
 * which a cache can store beside the string. */
static inline uint32_t sp_strtab_hash(const char *s, size_t len)
{
	return (uint32_t)sp_hash_bytes(s, len);
}

static inline uint64_t sp_hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

/* The slot of pointer p in a direct-mapped memo of nslots (a power of
 * two) slots: Fibonacci hashing, the address's high bits mixed down. */
static inline size_t sp_ptr_slot(const void *p, size_t nslots)
{
	return (size_t)(((uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ULL) >> 32) & (nslots - 1);
}

#endif
