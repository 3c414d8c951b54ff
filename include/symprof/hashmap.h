/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A hash map from a pair of 64-bit keys to a 32-bit value (open
 * addressing, linear probing). Used to dedup records: pc pairs, addresses,
 * (node, frame) pairs.
 */
#ifndef SYMPROF_HASHMAP_H
#define SYMPROF_HASHMAP_H

#include <stddef.h>
#include <stdint.h>

struct sp_pairmap_slot {
	uint64_t k1, k2;
	uint32_t value; /* UINT32_MAX: empty */
};

struct sp_pairmap {
	struct sp_pairmap_slot *slots;
	size_t nslots; /* power of two or 0 */
	size_t count;
};

#define SP_PAIRMAP_INIT {NULL, 0, 0}

void sp_pairmap_init(struct sp_pairmap *m);
void sp_pairmap_release(struct sp_pairmap *m);
/* Makes room for n entries without rehashing. */
void sp_pairmap_reserve(struct sp_pairmap *m, size_t n);
/* The value stored for (k1, k2), or UINT32_MAX. */
uint32_t sp_pairmap_get(const struct sp_pairmap *m, uint64_t k1, uint64_t k2);
/* Stores value for (k1, k2) unless present; returns the value now stored. */
uint32_t sp_pairmap_put(struct sp_pairmap *m, uint64_t k1, uint64_t k2, uint32_t value);

#endif
