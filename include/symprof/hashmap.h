/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * An index over records kept in the caller's array, keyed by a pair of
 * 64-bit values (pc pairs, addresses, (caller, callee) pairs). The map
 * stores only the record's index and a 32-bit hash (8 bytes a slot); keys
 * are read back from the records through the caller's key function, so
 * the index stays small however large the records are.
 */
#ifndef SYMPROF_HASHMAP_H
#define SYMPROF_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

/* Fetches the key of record `value` from the caller's array. */
typedef void (*sp_pairmap_key_fn)(const void *ctx, uint32_t value, uint64_t *k1, uint64_t *k2);

struct sp_pairmap_slot {
	uint32_t value; /* UINT32_MAX: empty */
	uint32_t hash;
};

struct sp_pairmap {
	struct sp_pairmap_slot *slots;
	size_t nslots; /* power of two or 0 */
	size_t count;
	sp_pairmap_key_fn key;
	const void *ctx;
};

void sp_pairmap_init(struct sp_pairmap *m, sp_pairmap_key_fn key, const void *ctx);
void sp_pairmap_release(struct sp_pairmap *m);
/* Makes room for n more entries without rehashing. */
void sp_pairmap_reserve(struct sp_pairmap *m, size_t n);
/* The record with key (k1, k2), or UINT32_MAX. */
uint32_t sp_pairmap_get(const struct sp_pairmap *m, uint64_t k1, uint64_t k2);
/* The record with key (k1, k2); if there is none, `value` is entered (the
 * caller then stores the record at that index) and returned. */
uint32_t sp_pairmap_put(struct sp_pairmap *m, uint64_t k1, uint64_t k2, uint32_t value);

#endif
