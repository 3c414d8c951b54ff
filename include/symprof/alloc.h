/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Memory helpers: checked allocation, growable arrays and the arena.
 *
 * Allocation failure is the only condition that ends the process from
 * library code (like git's xmalloc): every size that comes from a file is
 * checked against the file's length before it is allocated, so running out
 * of memory is not a bad-input case.
 */
#ifndef SYMPROF_ALLOC_H
#define SYMPROF_ALLOC_H

#include <stddef.h>
#include <stdint.h>

void *sp_xmalloc(size_t size);
void *sp_xcalloc(size_t n, size_t size);
void *sp_xrealloc(void *p, size_t size);
/* realloc of n elements of `size` bytes, checking n * size for overflow. */
void *sp_xreallocarray(void *p, size_t n, size_t size);
char *sp_xstrdup(const char *s);
char *sp_xstrndup(const char *s, size_t n);

/*
 * The size bytes at p (a block just allocated) are about to be written
 * whole: has their pages made at once, with one call into the kernel,
 * rather than by a page fault every 4 KiB. Only an optimisation: it does
 * nothing (and returns -1) for blocks under 64 KiB or where the system
 * cannot; 0 when the pages were made.
 */
int sp_prefault(void *p, size_t size);
/*
 * sp_xcalloc() for a hash table, whose probes read slots before anything
 * writes them: its pages are made writable at once (sp_prefault()). A read
 * of a fresh calloc() page maps the kernel's shared zero page, and the
 * first write after it copies that page and flushes the TLB of every CPU
 * the process's other threads run on.
 */
void *sp_xcalloc_probed(size_t n, size_t size);

/* Prints "symprof: out of memory (N bytes)" and exits with status 1. */
_Noreturn void sp_oom(size_t size);

/*
 * Grow array `x` (of `alloc` elements) so that it holds at least `nr`
 * elements; amortized doubling (git's ALLOC_GROW).
 */
#define SP_ALLOC_GROW(x, nr, alloc)                                                                \
	do {                                                                                       \
		if ((size_t)(nr) > (size_t)(alloc)) {                                              \
			size_t sp_ag_new_ = ((size_t)(alloc) + 16) * 3 / 2;                        \
			if (sp_ag_new_ < (size_t)(nr))                                             \
				sp_ag_new_ = (size_t)(nr);                                         \
			(x) = sp_xreallocarray((x), sp_ag_new_, sizeof(*(x)));                     \
			(alloc) = sp_ag_new_;                                                      \
		}                                                                                  \
	} while (0)

/* ---- arena: bump allocator, everything freed at once ---- */

struct sp_arena_chunk;

struct sp_arena {
	struct sp_arena_chunk *head;
	size_t total; /* bytes handed out, for statistics */
};

#define SP_ARENA_INIT                                                                              \
	{                                                                                          \
		NULL, 0                                                                            \
	}

void sp_arena_init(struct sp_arena *a);
/* Frees every chunk; the arena is empty (and reusable) afterwards. */
void sp_arena_release(struct sp_arena *a);
/* `size` bytes aligned to 16; never NULL. Valid until sp_arena_release(). */
void *sp_arena_alloc(struct sp_arena *a, size_t size);
void *sp_arena_zalloc(struct sp_arena *a, size_t size);
/* Arrays: checks n * size for overflow. */
void *sp_arena_array(struct sp_arena *a, size_t n, size_t size);
char *sp_arena_strndup(struct sp_arena *a, const char *s, size_t n);
char *sp_arena_strdup(struct sp_arena *a, const char *s);

#endif
